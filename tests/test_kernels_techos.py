"""Lección 11: con qué pico se compara la matmul de Triton, según la capacidad de cómputo de la GPU.

No necesita triton: es una cuenta con la ficha del catálogo. Una T4 (7.5) no usa los Tensor Cores
en ``tl.dot`` desde Triton 3.3: su techo es el pico fp32 (8.1 TFLOP/s), no el fp16 (65).
"""

import re
from pathlib import Path

import pytest
import torch

from curso_gpu.base import picos_de
from curso_gpu.kernels import (CAPACIDAD_TENSOR_CORES_TL_DOT, PLATAFORMAS_CON_TRITON, techo_tl_dot,
                               triton_declarado)

RAIZ = Path(__file__).resolve().parent.parent


def test_en_una_t4_la_matmul_fp16_de_triton_se_compara_con_el_pico_fp32():
    techo = techo_tl_dot("Tesla T4", torch.float16, (7, 5))
    assert (techo.tensor_cores, techo.modo, techo.tflops) == (False, "fp32", 8.1)
    assert techo.tflops == picos_de("Tesla T4").fp32 and techo.tflops < picos_de("Tesla T4").fp16
    assert "no usa los Tensor Cores" in str(techo) and "8.1 TFLOP/s" in str(techo) and "NVIDIA T4 datasheet" in str(techo)


@pytest.mark.parametrize("nombre, dtype, capacidad, modo, tflops", [
    ("NVIDIA A100-SXM4-40GB", torch.float16, (8, 0), "fp16", 312.0),
    ("NVIDIA A100-SXM4-40GB", torch.float32, (8, 0), "tf32", 156.0),  # fp32 en tl.dot: TF32 por defecto
    ("NVIDIA L4", "bf16", (8, 9), "bf16", 121.0),
    ("NVIDIA H100 80GB HBM3", "fp16", (9, 0), "fp16", 989.5),
])
def test_desde_la_capacidad_8_0_tl_dot_usa_los_tensor_cores(nombre, dtype, capacidad, modo, tflops):
    techo = techo_tl_dot(nombre, dtype, capacidad)
    assert (techo.tensor_cores, techo.modo, techo.tflops) == (True, modo, tflops)
    assert "usa los Tensor Cores" in str(techo) and "no usa" not in str(techo)


def test_la_frontera_es_la_capacidad_de_la_gpu_no_su_nombre():
    # La misma ficha con otra capacidad: quien decide es la capacidad (la que da torch.cuda).
    assert CAPACIDAD_TENSOR_CORES_TL_DOT == (8, 0)
    assert techo_tl_dot("Tesla T4", "fp16", (8, 0)).modo == "fp16"
    assert techo_tl_dot("NVIDIA A100", "fp16", (7, 5)).modo == "fp32"
    assert techo_tl_dot("NVIDIA A100", "fp16", (7, 9)).tflops == 19.5  # pico fp32 de la A100


def test_sin_capacidad_usa_la_del_catalogo():
    assert techo_tl_dot("Tesla T4", "fp16").capacidad == (7, 5)
    assert techo_tl_dot("Tesla T4", "fp16").tflops == 8.1
    assert techo_tl_dot("NVIDIA A100 80GB PCIe", "fp16").tflops == 312.0


def test_por_debajo_de_8_0_ni_fp32_ni_bf16_van_por_tensor_cores_y_sin_ellos_no_hay_tensor_cores():
    assert techo_tl_dot("Tesla T4", "bf16").modo == "fp32"  # la T4 no tiene bf16 en Tensor Cores
    assert techo_tl_dot("Tesla T4", "fp32").modo == "fp32"  # ni TF32
    p100 = techo_tl_dot("Tesla P100-PCIE-16GB", "fp16")
    assert (p100.tensor_cores, p100.tflops) == (False, 9.3) and "no tiene" in str(p100)


def test_hasta_triton_3_2_una_t4_si_usaba_los_tensor_cores_en_fp16():
    antiguo = techo_tl_dot("Tesla T4", "fp16", (7, 5), version_triton="3.2.0")
    assert (antiguo.tensor_cores, antiguo.tflops) == (True, 65.0)
    assert techo_tl_dot("Tesla T4", "fp32", (7, 5), version_triton="3.2.0").modo == "fp32"  # sin TF32
    assert techo_tl_dot("Tesla T4", "fp16", (7, 5), version_triton="3.3.0").modo == "fp32"
    assert techo_tl_dot("Tesla T4", "fp16", (7, 5), version_triton="3.9.0+git1a2b").modo == "fp32"


def test_gpu_desconocida_o_de_apple_da_none():
    assert techo_tl_dot("NVIDIA GeForce RTX 4070", "fp16", (8, 9)) is None
    assert techo_tl_dot("Apple M2", "fp32") is None  # sin capacidad de CUDA: Triton no corre allí


@pytest.mark.parametrize("capacidad", [(7,), "7.5", (7.5, 0), (True, 5), (-1, 0)])
def test_una_capacidad_mal_escrita_da_un_error_en_espanol(capacidad):
    with pytest.raises(ValueError, match=r"capacidad debe ser dos enteros.*\(7, 5\) en una T4"):
        techo_tl_dot("Tesla T4", "fp16", capacidad)


def test_un_tipo_que_tl_dot_no_recibe_da_un_error_en_espanol():
    with pytest.raises(ValueError, match="precision desconocida.*fp32, fp16, bf16"):
        techo_tl_dot("Tesla T4", "tf32")


def test_la_t4_del_catalogo_tiene_40_sm():
    assert picos_de("Tesla T4").multiprocesadores == 40


def test_triton_se_declara_donde_lo_piden_requirements_y_pyproject():
    requisitos = (RAIZ / "requirements.txt").read_text(encoding="utf-8")
    assert re.search(r'^triton>=[\d.]+; sys_platform == "linux"$', requisitos, re.MULTILINE)
    assert "platform_system == 'Linux'" in (RAIZ / "pyproject.toml").read_text(encoding="utf-8")
    assert PLATAFORMAS_CON_TRITON == ("linux",)
    assert triton_declarado("linux") and not triton_declarado("darwin") and not triton_declarado("win32")
