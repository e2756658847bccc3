"""Lección 04: la regla de la memoria, la tabla de VRAM, la pregunta inversa y la memoria real."""

from __future__ import annotations

import os
from decimal import Decimal

import numpy as np
import pytest
import torch
from torch import nn

from curso_gpu.base import catalogo
from curso_gpu.dispositivo import primitivas as dispositivo  # se parchea en el módulo que lo usa
from curso_gpu.interactivo import resumen_memoria
from curso_gpu.base import formatear_bytes
from curso_gpu.dispositivo import DispositivoNoDisponible, memoria_dispositivo
from ram_falsa import poner_ram, sin_ram_de_psutil
from curso_gpu.memoria import (
    BYTES_POR_PARAMETRO,
    GB,
    GIB,
    a_gb,
    a_gib,
    bytes_por_parametro,
    contar_parametros,
    formatear_parametros,
    memoria_entrenamiento,
    memoria_inferencia,
    memoria_pesos,
    modelo_mas_grande,
    precision_de_modelo,
    tabla_vram,
)


# --- bytes por parámetro y precisiones --------------------------------------------------------

def test_bytes_por_parametro_de_cada_precision():
    assert BYTES_POR_PARAMETRO == {"fp32": 4, "fp16": 2, "bf16": 2, "int8": 1, "int4": 0.5}


@pytest.mark.parametrize("texto, nombre", [("FP16", "fp16"), ("Bf16", "bf16"), (" int4 ", "int4"),
                                           ("float32", "fp32"), ("torch.bfloat16", "bf16")])
def test_la_precision_se_acepta_en_cualquier_mayuscula(texto, nombre):
    assert precision_de_modelo(texto) == nombre


@pytest.mark.parametrize("dtype, nombre", [(torch.float32, "fp32"), (torch.float16, "fp16"),
                                           (torch.bfloat16, "bf16"), (torch.int8, "int8")])
def test_la_precision_se_acepta_como_torch_dtype(dtype, nombre):
    assert precision_de_modelo(dtype) == nombre
    assert bytes_por_parametro(dtype) == torch.empty(0, dtype=dtype).element_size()


def test_precision_desconocida_lista_las_validas():
    with pytest.raises(ValueError) as error:
        precision_de_modelo("fp8")
    assert str(error.value) == "precision desconocida 'fp8'; usa una de: fp32, fp16, bf16, int8, int4"


def test_dtype_sin_precision_en_la_tabla_da_error_en_espanol():
    with pytest.raises(ValueError, match="precision desconocida torch.float64; usa una de: fp32"):
        memoria_pesos("1B", torch.float64)


# --- contar parámetros --------------------------------------------------------------------------

@pytest.mark.parametrize("texto, esperado", [
    ("124M", 124_000_000), ("8B", 8_000_000_000), ("70b", 70_000_000_000), ("1.5B", 1_500_000_000),
    ("50K", 50_000), ("1,5B", 1_500_000_000), (" 7 B ", 7_000_000_000), ("2.5e3M", 2_500_000_000),
    ("124439808", 124_439_808), ("7.24B", 7_240_000_000),
])
def test_los_sufijos_k_m_b_se_leen_exactos(texto, esperado):
    assert contar_parametros(texto) == esperado


def test_un_numero_es_la_cantidad_exacta():
    assert contar_parametros(124_439_808) == 124_439_808
    assert contar_parametros(8e9) == 8_000_000_000


def test_un_modelo_de_pytorch_se_cuenta_exacto():
    modelo = nn.Sequential(nn.Linear(10, 20), nn.ReLU(), nn.Linear(20, 3))
    assert contar_parametros(modelo) == (10 * 20 + 20) + (20 * 3 + 3)


def test_los_pesos_compartidos_cuentan_una_vez():
    emb = nn.Embedding(1000, 16)
    cabeza = nn.Linear(16, 1000, bias=False)
    cabeza.weight = emb.weight
    assert contar_parametros(nn.ModuleList([emb, cabeza])) == 16_000


def test_un_modelo_en_meta_se_cuenta_sin_reservar_memoria():
    with torch.device("meta"):
        modelo = nn.Linear(4096, 4096)
    assert contar_parametros(modelo) == 4096 * 4096 + 4096


def test_el_nombre_de_un_modelo_del_catalogo_vale_como_parametros():
    assert contar_parametros("llama 3 8b") == catalogo.MODELOS["Llama 3 8B"].parametros
    assert contar_parametros(catalogo.MODELOS["GPT-2"]) == 124_000_000


@pytest.mark.parametrize("malo, pista", [
    (-5, "demasiado pequeño"), (0, "demasiado pequeño"), ("-8B", "no lo entiendo"), ("0B", "mayor que cero"),
    (float("nan"), "NaN"), (float("inf"), "infinito"), (-float("inf"), "infinito"), (True, "booleano"),
    (False, "booleano"), ("ocho mil millones", "no lo entiendo"), ("8X", "no lo entiendo"), ("", "no lo entiendo"),
    ("124,000,000", "comas"), (None, "NoneType"), ([8], "list"), (nn.ReLU(), "no tiene parámetros"),
    ("nanB", "no lo entiendo"),
])
def test_un_numero_de_parametros_malo_da_error_en_espanol(malo, pista):
    with pytest.raises(ValueError, match="^parametros debe ser un ") as error:
        contar_parametros(malo)
    assert pista in str(error.value)


@pytest.mark.parametrize("malo", [8, 8.0, "8", 1.5])
def test_8_sin_sufijo_no_se_toma_por_8_parametros(malo):
    """La celda de la semilla usa parametros = 8 para decir 8B: aquí es un error, no 16 bytes."""
    with pytest.raises(ValueError, match=r"¿querías decir '(8|1\.5)B'\?"):
        memoria_pesos(malo, "fp16")


# --- la regla ------------------------------------------------------------------------------------

def test_pesos_son_parametros_por_bytes_por_parametro():
    for precision, b in BYTES_POR_PARAMETRO.items():
        assert memoria_pesos("8B", precision) == 8e9 * b


def test_la_estimacion_coincide_con_los_bytes_reales_de_un_modelo():
    modelo = nn.Sequential(nn.Linear(300, 200), nn.Linear(200, 10))
    for dtype in (torch.float32, torch.float16, torch.bfloat16):
        modelo = modelo.to(dtype)
        reales = sum(p.numel() * p.element_size() for p in modelo.parameters())
        assert memoria_pesos(modelo, dtype) == reales


def test_inferencia_suma_un_20_por_ciento_por_defecto():
    assert memoria_inferencia("8B") == pytest.approx(19.2e9)
    assert memoria_inferencia("8B", "int4", margen=1.0) == 4e9


def test_entrenar_cuesta_16_bytes_por_parametro():
    assert memoria_entrenamiento("8B") == 128e9
    assert memoria_entrenamiento("1B", bytes_por_parametro=20) == 20e9


@pytest.mark.parametrize("malo", [0, -16, float("nan"), True, "16"])
def test_bytes_por_parametro_de_entrenamiento_malos(malo):
    with pytest.raises(ValueError, match="^bytes_por_parametro debe ser un número mayor que 0 y menor o igual que 1000; recibí"):
        memoria_entrenamiento("1B", bytes_por_parametro=malo)


@pytest.mark.parametrize("malo", [0.99, 0, -1.2, float("nan"), float("inf"), True, "1.2"])
def test_margen_menor_que_1_o_no_numero_da_error(malo):
    with pytest.raises(ValueError, match="^margen debe ser un número entre 1 y 100; recibí"):
        memoria_inferencia("8B", margen=malo)


def test_gb_y_gib_no_son_lo_mismo():
    assert GB == 1_000_000_000 and GIB == 1_073_741_824
    # Los 15 360 MiB que nvidia-smi muestra en una T4 de Colab son 15 GiB... y 16.1 GB.
    t4 = 15360 * 2**20
    assert a_gib(t4) == 15.0
    assert round(a_gb(t4), 1) == 16.1


# --- la tabla ------------------------------------------------------------------------------------

def test_8b_en_16_gb_como_la_semilla():
    tabla = tabla_vram("8B", 16)
    valores = {f.precision: (round(f.necesaria_gb, 1), f.veredicto) for f in tabla.filas}
    assert valores == {
        "fp32": (38.4, "NO cabe"), "fp16": (19.2, "NO cabe"), "bf16": (19.2, "NO cabe"),
        "int8": (9.6, "cabe"), "int4": (4.8, "cabe"),
    }
    assert tabla.entrenamiento.necesaria_gb == 128
    assert not tabla.entrenamiento.cabe


def test_8b_en_fp16_no_cabe_en_16_gb():
    assert not tabla_vram("8B", 16).fila("fp16").cabe
    assert tabla_vram("8B", 24).fila("fp16").cabe


def test_la_tabla_en_texto_muestra_las_cifras_de_la_semilla():
    # Las columnas se alinean con espacios: se comparan las celdas, separadas por un espacio.
    lineas = [" ".join(linea.split()) for linea in str(tabla_vram("8B", 16)).splitlines()]
    for linea in ("fp32 4 38.4 GB NO cabe", "fp16 2 19.2 GB NO cabe", "bf16 2 19.2 GB NO cabe",
                  "int8 1 9.6 GB cabe", "int4 0.5 4.8 GB cabe", "entrenar entero ~16 128.0 GB NO cabe"):
        assert linea in lineas


def test_la_tabla_en_html_tiene_una_fila_por_precision_y_la_de_entrenar():
    codigo = tabla_vram("8B", 16)._repr_html_()
    assert codigo.count("<tr data-precision=") == 6
    assert "<td style='text-align:right'>38.4 GB</td>" in codigo and ">128.0 GB</td>" in codigo
    assert codigo.count("NO cabe") == 4 and codigo.count(">cabe<") == 2


def test_justo_lo_que_cabe_cabe():
    assert tabla_vram("5B", 10, margen=1.0).fila("fp16").cabe
    assert not tabla_vram(5_000_000_001, 10, margen=1.0).fila("fp16").cabe


def test_el_veredicto_nombra_al_modelo_del_catalogo():
    assert tabla_vram("Llama 3 8B", 16).veredicto("fp16") == "Llama 3 8B en fp16 necesita 19.3 GB: NO cabe en 16 GB"
    assert tabla_vram("8B", 16).veredicto("int8") == (
        "Un modelo de 8B parámetros en int8 necesita 9.6 GB: cabe en 16 GB (sobran 6.4 GB)")


def test_modelos_pequenos_se_muestran_en_mb():
    assert "GPT-2 en fp16 necesita 298 MB: cabe en 16 GB" in tabla_vram("GPT-2", 16).veredicto("fp16")


@pytest.mark.parametrize("malo", [0, -16, float("nan"), float("inf"), True, "16"])
def test_vram_cero_o_negativa_da_error(malo):
    with pytest.raises(ValueError, match="^vram_gb debe ser un número mayor que 0"):
        tabla_vram("8B", malo)
    with pytest.raises(ValueError, match="^vram_gb debe ser un número mayor que 0"):
        modelo_mas_grande(malo)


# --- la pregunta inversa ---------------------------------------------------------------------------

def test_en_16_gb_en_fp16_cabe_un_modelo_de_unos_6_7b():
    n = modelo_mas_grande(16, "fp16")
    assert round(n / 1e9, 1) == 6.7
    assert tabla_vram(n, 16).fila("fp16").cabe
    assert not tabla_vram(n + 1, 16).fila("fp16").cabe


def test_en_int4_cabe_cuatro_veces_mas_que_en_fp16():
    assert modelo_mas_grande(24, "int4") == pytest.approx(4 * modelo_mas_grande(24, "fp16"), abs=4)


def test_sin_margen_caben_vram_entre_bytes_por_parametro():
    assert modelo_mas_grande(16, "fp32", margen=1.0) == 4_000_000_000


# --- la memoria que de verdad hay -------------------------------------------------------------------

def test_en_cpu_la_memoria_del_dispositivo_es_la_ram():
    # La RAM que el sistema declara, por otro camino (sysconf existe en Linux y macOS).
    pagina, paginas = os.sysconf("SC_PAGE_SIZE"), os.sysconf("SC_PHYS_PAGES")
    assert pagina > 0 and paginas > 0
    for cpu in (torch.device("cpu"), "cpu"):
        info = memoria_dispositivo(cpu)
        assert info is not None, "en una máquina con RAM, la memoria de la CPU no puede ser «no se sabe»"
        assert (info.dispositivo, info.nombre) == ("cpu", "RAM del equipo")
        assert info.total_bytes == pytest.approx(pagina * paginas, rel=0.01)
        assert info.libre_bytes is None or 0 < info.libre_bytes <= info.total_bytes


def test_vram_de_cuda_sale_de_mem_get_info(monkeypatch):
    pedido = []
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "mem_get_info", lambda d=None: pedido.append(d) or (15_000_000_000, 15_828_320_256))
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda d=None: "Tesla T4")
    info = memoria_dispositivo(torch.device("cuda:0"))
    assert pedido == [torch.device("cuda:0")]
    assert (info.total_bytes, info.libre_bytes, info.nombre) == (15_828_320_256, 15_000_000_000, "Tesla T4")
    assert "Tesla T4" in str(info) and "15.8 GB en total" in str(info) and "15.0 GB libres" in str(info)


def test_pedir_vram_de_cuda_sin_gpu_lo_dice(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with pytest.raises(DispositivoNoDisponible, match="'cuda', pero no está disponible en esta máquina"):
        memoria_dispositivo("cuda")


def test_vram_de_mps_es_el_maximo_recomendado(monkeypatch):
    monkeypatch.setattr(torch.backends.mps, "is_available", lambda: True)
    monkeypatch.setattr(torch.mps, "recommended_max_memory", lambda: 12 * GB, raising=False)
    monkeypatch.setattr(torch.mps, "driver_allocated_memory", lambda: 2 * GB, raising=False)
    info = memoria_dispositivo(torch.device("mps"))
    assert (info.total_bytes, info.libre_bytes) == (12 * GB, 10 * GB)
    assert info.fuente == "torch.mps.recommended_max_memory"


def test_mps_sin_maximo_recomendado_usa_la_memoria_unificada(monkeypatch):
    monkeypatch.setattr(torch.backends.mps, "is_available", lambda: True)
    monkeypatch.delattr(torch.mps, "recommended_max_memory", raising=False)
    poner_ram(monkeypatch, 16 * GIB, 8 * GIB)
    info = memoria_dispositivo("mps")
    assert info.total_bytes == 16 * GIB and info.libre_bytes == 8 * GIB
    assert "memoria unificada" in info.fuente


def test_dispositivo_ilegible_da_error_en_espanol():
    with pytest.raises(ValueError, match="Dispositivo no válido: 'gpu'"):
        memoria_dispositivo("gpu")


def test_la_ram_se_lee_de_psutil(monkeypatch):
    poner_ram(monkeypatch, 8_000_000 * 1024, 6_000_000 * 1024)
    ram = dispositivo.memoria_ram()
    assert (ram.total_bytes, ram.libre_bytes) == (8_000_000 * 1024, 6_000_000 * 1024)
    assert ram.fuente == "psutil.virtual_memory"


def test_si_psutil_no_puede_leer_la_ram_sale_de_sysconf(monkeypatch):
    sin_ram_de_psutil(monkeypatch)
    valores = {"SC_PAGE_SIZE": 4096, "SC_PHYS_PAGES": 1_000_000}
    monkeypatch.setattr(dispositivo.os, "sysconf", lambda nombre: valores[nombre])
    ram = dispositivo.memoria_ram()
    assert ram.total_bytes == 4_096_000_000 and ram.fuente == "os.sysconf"


# --- para python -m curso_gpu ---------------------------------------------------------------------

def test_resumen_sin_gpu_usa_la_ram_y_lo_dice(monkeypatch):
    poner_ram(monkeypatch, 16 * GB, 8 * GB)
    datos, texto = resumen_memoria(torch.device("cpu"))
    assert datos["memoria"] == "ram" and datos["total_gb"] == 16.0
    assert datos["modelo_mas_grande"]["fp16"] == modelo_mas_grande(16, "fp16")
    assert datos["modelo_mas_grande"]["int4"] == modelo_mas_grande(16, "int4")
    assert datos["entrenamiento_completo"] == 1_000_000_000
    assert "No hay GPU" in texto and "memoria RAM del equipo" in texto
    assert "fp16 6.67B Phi-3-mini" in [" ".join(linea.split()) for linea in texto.splitlines()]
    assert datos["ejemplo_del_catalogo"]["fp16"] == "Phi-3-mini"


def test_resumen_con_una_t4_usa_su_vram(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "mem_get_info", lambda d=None: (15_500_000_000, 15_828_320_256))
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda d=None: "Tesla T4")
    datos, texto = resumen_memoria(torch.device("cuda"))
    assert datos["memoria"] == "gpu" and datos["fuente"] == "torch.cuda.mem_get_info"
    assert datos["total_gb"] == 15.83 and datos["libre_gb"] == 15.5
    assert datos["modelo_mas_grande"]["fp16"] == modelo_mas_grande(15_828_320_256 / GB, "fp16")
    assert "Tesla T4" in texto and "15.8 GB en total" in texto and "No hay GPU" not in texto


def test_resumen_con_driver_roto_cae_en_la_ram_y_avisa(monkeypatch):
    def roto(d=None):
        raise RuntimeError("CUDA driver initialization failed")

    poner_ram(monkeypatch, 16 * GIB, 12 * GIB)  # una RAM conocida: 16 GiB en total, 12 GiB disponibles
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "mem_get_info", roto)
    datos, texto = resumen_memoria(torch.device("cuda"))
    assert "No pude leer la memoria de cuda (CUDA driver initialization failed)" in texto
    assert datos["memoria"] == "ram" and datos["fuente"] == "psutil.virtual_memory"
    assert datos["total_gb"] == round(16 * 2**30 / 1e9, 2) and datos["libre_gb"] == round(12 * 2**30 / 1e9, 2)


def test_resumen_sin_forma_de_saber_la_memoria(monkeypatch):
    sin_ram_de_psutil(monkeypatch)
    monkeypatch.setattr(dispositivo.os, "sysconf", lambda nombre: -1)
    datos, texto = resumen_memoria(torch.device("cpu"))
    assert datos["total_gb"] is None and "No pude saber" in texto


# --- el catálogo ---------------------------------------------------------------------------------

def test_el_catalogo_tiene_los_modelos_de_la_leccion():
    esperados = {"GPT-2": 124e6, "BERT-base": 110e6, "ResNet-50": 25.6e6, "Llama 3 8B": 8.03e9,
                 "Mistral 7B": 7.24e9, "Phi-3-mini": 3.8e9, "Qwen2.5-7B": 7.61e9, "Gemma 2 9B": 9.24e9}
    for nombre, n in esperados.items():
        assert catalogo.MODELOS[nombre].parametros == pytest.approx(n, rel=2e-3), nombre
    assert 70e9 <= catalogo.MODELOS["Llama 3 70B"].parametros < 71e9


def test_el_catalogo_de_gpu_tiene_su_memoria():
    esperadas = {"NVIDIA T4": 16, "NVIDIA L4": 24, "NVIDIA A100 40 GB": 40, "NVIDIA A100 80 GB": 80,
                 "NVIDIA H100": 80, "NVIDIA H200": 141, "NVIDIA RTX 3060": 12, "NVIDIA RTX 4090": 24,
                 "NVIDIA P100": 16, "NVIDIA V100 32 GB": 32}
    for nombre, gb in esperadas.items():
        assert catalogo.GPUS[nombre].memoria_gb == gb
    assert any(nombre.startswith("Mac Apple Silicon") for nombre in catalogo.GPUS)


def test_cada_entrada_del_catalogo_cita_su_fuente():
    """Encima de cada entrada (o de su grupo) hay un comentario con la dirección o el artículo."""
    import inspect

    lineas = [l.strip() for l in inspect.getsource(catalogo).splitlines()]
    entradas = [i for i, l in enumerate(lineas) if l.startswith(('Modelo("', 'GPU("'))]
    assert len(entradas) == len(catalogo.MODELOS) + len(catalogo.GPUS)
    for i in entradas:
        j = i - 1
        while lineas[j].startswith(('Modelo("', 'GPU("')) or (lineas[j].startswith("#") and not _cita(lineas[j])):
            j -= 1
        assert lineas[j].startswith("#") and _cita(lineas[j]), lineas[i]


def _cita(linea: str) -> bool:
    return "https://" in linea or "arXiv:" in linea


def test_buscar_gpu_acepta_el_nombre_corto_y_explica_si_no_existe():
    assert catalogo.buscar_gpu("t4").memoria_gb == 16
    assert catalogo.buscar_gpu("RTX 4090").memoria_gb == 24
    with pytest.raises(ValueError, match="GPU desconocida 'T5'; usa una de: NVIDIA P100"):
        catalogo.buscar_gpu("T5")


# --- entradas absurdas o de otro tipo: error en español, nunca OverflowError ni «-0 MB» ---------

@pytest.mark.parametrize("llamada, pista", [
    (lambda: tabla_vram("8B", 1e300), "vram_gb debe ser un número mayor que 0 y menor o igual que 10**6; recibí 1e+300 (es demasiado grande"),
    (lambda: modelo_mas_grande(1e300), "vram_gb debe ser un número"),
    (lambda: tabla_vram("1e9999B", 16), "'1e9999B' (es demasiado grande"),
    (lambda: contar_parametros("1e99999999999B"), "es demasiado grande"),
    (lambda: contar_parametros("1e-9999B"), "es menos de un parámetro"),
    (lambda: contar_parametros(10**400), "un entero de unas 401 cifras (es demasiado grande"),
    (lambda: contar_parametros(10**5000), "(es demasiado grande"),
    (lambda: contar_parametros(1e300), "es demasiado grande"),
    (lambda: memoria_inferencia("8B", margen=1e300), "margen debe ser un número entre 1 y 100; recibí 1e+300 (es demasiado grande"),
    (lambda: tabla_vram("8B", 16, margen=10**400), "margen debe ser un número"),
    (lambda: memoria_entrenamiento("8B", bytes_por_parametro=1e308), "bytes_por_parametro debe ser un número"),
])
def test_numeros_enormes_dan_un_error_en_espanol(llamada, pista):
    with pytest.raises(ValueError) as error:
        llamada()
    assert type(error.value) is ValueError
    assert pista in str(error.value)


@pytest.mark.parametrize("malo, motivo", [
    (-5, "es demasiado pequeño"), (-0.4, "es demasiado pequeño"), (None, "NoneType"), (float("nan"), "NaN"),
    (float("inf"), "infinito"), ("19GB", "str"), (True, "booleano"),
])
def test_formatear_bytes_y_parametros_rechazan_lo_que_no_es_una_cantidad(malo, motivo):
    with pytest.raises(ValueError, match=f"^n_bytes debe ser un número mayor o igual que 0; recibí .*{motivo}"):
        formatear_bytes(malo)
    with pytest.raises(ValueError, match=f"^n debe ser un número mayor o igual que 0; recibí .*{motivo}"):
        formatear_parametros(malo)


def test_formatear_acepta_numpy_decimal_y_el_cero():
    assert formatear_bytes(np.int64(298_000_000)) == formatear_bytes(298_000_000) == "298 MB"
    assert formatear_bytes(Decimal("19.2e9")) == "19.2 GB"
    assert formatear_bytes(0) == "0 bytes"
    assert formatear_bytes(40_000) == "40.0 kB" and formatear_bytes(999_960) == "1.0 MB"
    assert formatear_parametros(np.int64(3)) == "3"
    assert formatear_parametros(np.float64(8.03e9)) == "8.03B"


def test_numpy_y_decimal_valen_donde_vale_un_numero():
    referencia = tabla_vram(8_000_000_000, 16)
    for parametros, vram in ((np.int64(8_000_000_000), np.float32(16)), (Decimal("8e9"), Decimal("16")),
                             (np.float64(8e9), np.int64(16))):
        tabla = tabla_vram(parametros, vram)
        assert tabla.parametros == referencia.parametros and tabla.vram_gb == 16.0
        assert [f.cabe for f in tabla.filas] == [f.cabe for f in referencia.filas]
    assert memoria_inferencia("8B", margen=Decimal("1.2")) == memoria_inferencia("8B", margen=1.2)
    assert memoria_entrenamiento("1B", bytes_por_parametro=np.int64(20)) == 20e9
    assert modelo_mas_grande(np.int64(16)) == modelo_mas_grande(16)
