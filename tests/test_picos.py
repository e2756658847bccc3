"""Lección 03: la tabla de picos teóricos y los nombres de GPU tal como los da PyTorch."""

import pytest
import torch

from curso_gpu.base import catalogo
from curso_gpu.base import picos_de
from curso_gpu.base import pico_teorico, tabla_picos


@pytest.mark.parametrize("nombre, dtype, esperado", [
    ("Tesla T4", torch.float32, 8.1),
    ("Tesla T4", torch.float16, 65.0),
    ("NVIDIA L4", "bf16", 121.0),
    ("Tesla P100-PCIE-16GB", "fp32", 9.3),
    ("Tesla V100-SXM2-16GB", "fp16", 125.0),
    ("Tesla V100S-PCIE-32GB", "fp16", 130.0),
    ("NVIDIA A100-SXM4-80GB", "tf32", 156.0),
    ("NVIDIA A100 80GB PCIe", torch.bfloat16, 312.0),
    ("NVIDIA H100 80GB HBM3", torch.bfloat16, 989.5),
    ("NVIDIA H100 PCIe", "fp32", 51.0),
    ("NVIDIA H200", "fp16", 989.5),
    ("NVIDIA GeForce RTX 4090", "fp16", 165.2),
    ("NVIDIA GeForce RTX 3090", "tf32", 35.6),
    ("NVIDIA GeForce RTX 3060", "fp32", 12.7),
    ("Apple M2 Pro", "fp32", 6.8),
])
def test_nombres_como_los_da_torch(nombre, dtype, esperado):
    assert pico_teorico(nombre, dtype) == esperado


def test_la_t4_no_tiene_bf16_ni_tf32_en_tensor_cores():
    assert pico_teorico("Tesla T4", torch.bfloat16) is None
    assert pico_teorico("Tesla T4", "tf32") is None


def test_las_geforce_dan_fp16_a_mitad_de_velocidad_acumulando_en_fp32():
    fila = picos_de("NVIDIA GeForce RTX 4090")
    assert fila.fp16 == pytest.approx(2 * fila.fp32)  # 165 = mitad de los 330 acumulando en fp16
    assert "mitad" in fila.nota


def test_gpu_desconocida_o_de_portatil_da_none():
    assert pico_teorico("NVIDIA GeForce RTX 4090 Laptop GPU", "fp32") is None
    assert pico_teorico("NVIDIA GeForce RTX 3060 Ti", "fp32") is None
    assert pico_teorico("GPU inventada", "fp32") is None
    assert pico_teorico("NVIDIA L40S", "fp32") is None  # no es una L4
    assert pico_teorico("", "fp32") is None


def test_tipo_desconocido_da_error_en_espanol():
    with pytest.raises(ValueError, match="precision desconocida.*fp32, tf32, fp16, bf16"):
        pico_teorico("Tesla T4", "fp8")


def test_las_variantes_van_antes_que_el_modelo_general():
    assert picos_de("NVIDIA H100 NVL").nombre == "NVIDIA H100 NVL"
    assert picos_de("NVIDIA H200 NVL").nombre == "NVIDIA H200 NVL"
    assert picos_de("Tesla V100-PCIE-32GB").nombre == "NVIDIA V100 PCIe"


def test_cada_fila_dice_su_fuente_y_los_tensor_cores_superan_a_fp32():
    for fila in tabla_picos():
        assert fila.fuente and fila.fp32 and fila.fp32 > 0
        for modo in (fila.tf32, fila.fp16, fila.bf16):
            assert modo is None or modo >= fila.fp32


def test_el_catalogo_une_memoria_picos_y_capacidad_de_computo():
    t4 = catalogo.buscar_gpu("t4")
    assert t4.memoria_gb == 16
    assert t4.picos.fp16 == 65.0 and t4.picos.capacidad_computo == (7, 5)
    assert catalogo.buscar_gpu("A100 80 GB").picos.capacidad_computo == (8, 0)
    assert catalogo.buscar_gpu("Mac Apple Silicon 16 GB").picos is None
    # TF32 solo existe desde Ampere (capacidad 8.0): la tabla no da TF32 a chips anteriores.
    for fila in catalogo.tabla_picos():
        if fila.capacidad_computo and fila.capacidad_computo < (8, 0):
            assert fila.tf32 is None, fila.nombre


@pytest.mark.parametrize("nombre", [
    "NVIDIA GeForce RTX 3090 Ti",  # otra tarjeta, con otro pico
    "NVIDIA GeForce RTX 4090 D",   # la versión con menos núcleos
    "NVIDIA GH200 480GB",          # Grace Hopper no es una H200
    "NVIDIA GH100",
])
def test_los_patrones_no_atrapan_otras_tarjetas(nombre):
    assert picos_de(nombre) is None


def test_los_picos_de_apple_dicen_como_se_calcularon():
    for nombre, nucleos, reloj in [("Apple M1", 8, 1.278), ("Apple M1 Max", 32, 1.278),
                                   ("Apple M2", 10, 1.398), ("Apple M2 Ultra", 76, 1.398)]:
        fila = picos_de(nombre)
        assert fila.fuente.startswith(f"cálculo: {nucleos} núcleos × 128 ALU × 2")
        # núcleos × 128 ALU × 2 operaciones × reloj (GHz) = GFLOP/s; la tabla redondea a 0,1 TFLOP/s
        assert fila.fp32 == pytest.approx(nucleos * 128 * 2 * reloj / 1000, abs=0.15)


def test_la_t4_sostiene_mucho_menos_que_su_pico_en_fp16():
    from curso_gpu.base import rango_porcentaje

    minimo, maximo = rango_porcentaje("Tesla T4", torch.float16)
    assert (minimo * 65 / 100, maximo * 65 / 100) == pytest.approx((19.5, 26.0))  # 20–25 TFLOP/s
    assert rango_porcentaje("Tesla T4", "fp32") == (40.0, 60.0)  # unos 4 de 8,1
    assert rango_porcentaje("NVIDIA H100 80GB HBM3", "bf16") == (70.0, 90.0)
    assert rango_porcentaje("NVIDIA GeForce RTX 4090", "fp16") is None  # sin medida publicada
    assert rango_porcentaje("GPU inventada", "fp16") is None
