"""La tabla driver → CUDA → rueda de PyTorch (lección 01)."""

import pytest

from curso_gpu.base import ruedas_cuda
from curso_gpu.base import (
    INDICE_RUEDAS,
    VERSIONES_CUDA,
    comando_instalacion,
    cuda_maxima_del_driver,
    motivo_sin_rueda,
    rueda_para,
)


# --- driver → CUDA más alta que admite --------------------------------------------------

@pytest.mark.parametrize(
    ("driver", "cuda"),
    [
        ("560.28.03", (12, 6)),  # justo el mínimo de CUDA 12.6
        ("560.35.03", (12, 6)),
        ("565.57.01", (12, 6)),
        ("570.26", (12, 8)),  # justo el mínimo de CUDA 12.8
        ("570.124.06", (12, 8)),
        ("550.54.15", (12, 4)),  # el driver de las T4 de Colab durante mucho tiempo
        ("535.104.05", (12, 2)),
        ("525.60.13", (12, 0)),
        ("520.61.05", (11, 8)),
        ("580.65.06", (13, 0)),
        ("595.45.04", (13, 2)),
        ("610.10", (13, 2)),  # rama 610 anterior al GA de CUDA 13.3
        ("610.43.02", (13, 3)),
        ("616.00", (13, 4)),
        ("700.10", (13, 4)),  # un driver más nuevo que la tabla admite al menos lo último
    ],
)
def test_driver_linux_admite_hasta_esta_cuda(driver, cuda):
    assert cuda_maxima_del_driver(driver) == cuda


def test_un_driver_por_debajo_del_minimo_no_llega_a_esa_cuda():
    assert cuda_maxima_del_driver("560.28.02") == (12, 5)
    assert cuda_maxima_del_driver("570.25.99") == (12, 6)


def test_en_windows_los_numeros_de_driver_son_otros():
    # 560.70 en Windows no llega a CUDA 12.6 (pide 560.76); en Linux sí (pide 560.28.03).
    assert cuda_maxima_del_driver("560.70", "Windows") == (12, 5)
    assert cuda_maxima_del_driver("560.70", "linux") == (12, 6)
    assert cuda_maxima_del_driver("560.94", "windows") == (12, 6)


@pytest.mark.parametrize("driver", ["", "desconocido", "N/A", "440.33", "450.36.06"])
def test_driver_ilegible_o_demasiado_antiguo_da_none(driver):
    assert cuda_maxima_del_driver(driver) is None


def test_la_tabla_va_de_la_cuda_mas_nueva_a_la_mas_antigua_y_sus_drivers_tambien():
    versiones = [fila.version for fila in VERSIONES_CUDA]
    assert versiones == sorted(versiones, reverse=True)
    drivers = [ruedas_cuda._numeros(fila.driver_linux) for fila in VERSIONES_CUDA]
    assert drivers == sorted(drivers, reverse=True)


# Versiones de torch publicadas en PyPI, copiadas de `pip index versions torch` el
# 3 de diciembre de 2026 (las «+cpu» son del índice local). Si una versión nueva sale,
# añádela aquí copiándola del registro, nunca a mano.
TORCH_PUBLICADAS = {
    "2.15.0", "2.14.1", "2.14.0", "2.13.0", "2.12.1", "2.12.0", "2.11.0", "2.10.0",
    "2.9.1", "2.9.0", "2.8.0", "2.7.1", "2.7.0", "2.6.0", "2.5.1", "2.5.0", "2.4.1",
    "2.4.0", "2.3.1", "2.3.0", "2.2.2", "2.2.1", "2.2.0", "2.1.2", "2.1.1", "2.1.0",
    "2.0.1", "2.0.0", "1.13.1", "1.13.0",
}


def test_cada_torch_que_fija_la_tabla_se_publico_de_verdad():
    fijadas = {fila.torch_maximo for fila in VERSIONES_CUDA if fila.torch_maximo}
    assert fijadas <= TORCH_PUBLICADAS, f"nunca publicadas: {sorted(fijadas - TORCH_PUBLICADAS)}"
    assert "2.11.1" not in fijadas


def test_las_ruedas_retiradas_guardan_su_ultima_torch():
    por_rueda = {fila.rueda: fila for fila in VERSIONES_CUDA if fila.rueda}
    assert por_rueda["cu128"].torch_maximo == "2.11.0"  # cu128 se retiró en 2.12
    assert por_rueda["cu126"].torch_maximo == "2.14.1"  # torch 2.15 ya no publica cu126
    assert por_rueda["cu129"].torch_maximo == "2.13.0"  # colabtools #6053: cu129 también para 2.13.0
    assert por_rueda["cu118"].torch_maximo == "2.7.1"
    actuales = sorted(r for r, f in por_rueda.items() if f.torch_maximo is None)
    assert actuales == ["cu130", "cu132"]  # las de torch 2.15


def test_cuda_11_0_usa_el_driver_del_ga_y_13_3_el_de_sus_notas():
    por_version = {fila.version: fila for fila in VERSIONES_CUDA}
    assert por_version[(11, 0)].driver_linux == "450.51.05"
    assert por_version[(11, 0)].driver_windows == "451.48"
    assert por_version[(13, 3)].driver_linux == "610.43.02"
    assert por_version[(12, 6)].driver_linux.startswith("560.28")
    assert por_version[(12, 8)].driver_linux.startswith("570.26")


# --- CUDA del driver → rueda (sin saber la GPU) ----------------------------------------------

@pytest.mark.parametrize(
    ("cuda", "rueda", "torch_maximo"),
    [
        ((13, 2), "cu132", None),
        ((13, 5), "cu132", None),
        ((13, 0), "cu130", None),
        ((13, 1), "cu130", None),
        ((12, 9), "cu126", "2.14.1"),  # la torch más nueva que ese driver admite
        ((12, 8), "cu126", "2.14.1"),
        ((12, 6), "cu126", "2.14.1"),
        ((12, 5), "cu118", "2.7.1"),  # cu118 (2.7.1) trae torch más nueva que cu124 (2.6.0)
        ((12, 4), "cu118", "2.7.1"),
        ((12, 0), "cu118", "2.7.1"),
        ((11, 8), "cu118", "2.7.1"),
    ],
)
def test_rueda_que_admite_el_driver(cuda, rueda, torch_maximo):
    fila = rueda_para(cuda)
    assert fila.rueda == rueda
    assert fila.torch_maximo == torch_maximo
    assert fila.version <= cuda, "nunca se propone una CUDA más nueva que la del driver"


def test_sin_saber_el_driver_propone_cu130_la_mas_conservadora_de_las_actuales():
    assert rueda_para(None).rueda == "cu130"


def test_driver_mas_antiguo_que_cualquier_rueda_no_tiene_rueda():
    assert rueda_para((11, 0)) is None


# --- la GPU también cuenta --------------------------------------------------------------------

# Capacidad de cómputo de cada GPU: NVIDIA, «CUDA GPUs - Compute Capability»
# (https://developer.nvidia.com/cuda-gpus, leída el 3 de diciembre de 2026).
GPUS = {
    "P100": (6, 0), "V100": (7, 0), "T4": (7, 5), "A100": (8, 0),
    "RTX 4090": (8, 9), "RTX 5090": (12, 0), "H100": (9, 0),
}


@pytest.mark.parametrize(
    ("gpu", "cuda", "rueda", "torch_maximo"),
    [
        ("P100", (13, 2), "cu126", "2.14.1"),  # cu13x no trae kernels para 6.0
        ("V100", (13, 2), "cu126", "2.14.1"),  # ni para 7.0
        ("P100", (11, 8), "cu118", "2.7.1"),
        ("T4", (13, 2), "cu132", None),
        ("T4", (13, 0), "cu130", None),
        ("T4", (12, 4), "cu118", "2.7.1"),
        ("A100", (13, 2), "cu132", None),
        ("RTX 4090", (13, 0), "cu130", None),  # 8.9 corre los kernels sm_86
        ("RTX 4090", (12, 8), "cu126", "2.14.1"),
        ("RTX 5090", (13, 0), "cu130", None),
        ("RTX 5090", (12, 9), "cu129", "2.13.0"),  # cu126 no trae Blackwell; cu129 llega a 2.13.0
        ("RTX 5090", (12, 8), "cu128", "2.11.0"),
        ("H100", (13, 2), "cu132", None),
        ("H100", (12, 6), "cu126", "2.14.1"),
    ],
)
def test_la_rueda_sirve_al_driver_y_a_la_gpu(gpu, cuda, rueda, torch_maximo):
    fila = rueda_para(cuda, GPUS[gpu])
    assert (fila.rueda, fila.torch_maximo) == (rueda, torch_maximo)
    assert ruedas_cuda.admite_arquitectura(fila, GPUS[gpu])


def test_sin_driver_conocido_una_v100_recibe_cu126():
    assert rueda_para(None, (7, 0)).rueda == "cu126"
    assert rueda_para(None, "7.5").rueda == "cu130"


def test_una_rtx_5090_con_driver_de_cuda_12_6_no_tiene_rueda_y_dice_por_que():
    assert rueda_para((12, 6), GPUS["RTX 5090"]) is None
    motivo = motivo_sin_rueda((12, 6), GPUS["RTX 5090"])
    assert "12.0" in motivo and "cu128" in motivo and "570.26" in motivo
    assert "Actualiza el driver" in motivo
    with pytest.raises(ValueError, match="cu128"):
        comando_instalacion((12, 6), capacidad=(12, 0))


def test_una_gpu_demasiado_antigua_no_tiene_ninguna_rueda():
    motivo = motivo_sin_rueda((13, 2), (3, 5))
    assert "3.5" in motivo and "demasiado antigua" in motivo


def test_varias_gpu_necesitan_una_rueda_que_sirva_a_todas():
    assert rueda_para((13, 2), [(7, 0), (8, 0)]).rueda == "cu126"
    assert rueda_para((13, 2), [(6, 0), (12, 0)]) is None


def test_capacidad_ilegible_explica_el_formato():
    with pytest.raises(ValueError, match="7.5"):
        rueda_para((13, 0), "siete")


# --- el comando ------------------------------------------------------------------------------

def test_comando_para_driver_con_cuda_13_0_usa_el_indice_cu130():
    assert comando_instalacion((13, 0)) == (
        "python -m pip install --force-reinstall torch --index-url https://download.pytorch.org/whl/cu130"
    )


def test_comando_para_rueda_retirada_fija_la_ultima_version_de_torch():
    assert comando_instalacion((11, 8)) == (
        "python -m pip install --force-reinstall torch==2.7.1 --index-url https://download.pytorch.org/whl/cu118"
    )
    assert "torch==2.11.0 " in comando_instalacion((12, 8), capacidad=(12, 0))


def test_cada_comando_apunta_al_indice_de_su_rueda_y_fuerza_la_reinstalacion():
    for fila in VERSIONES_CUDA:
        rueda = rueda_para(fila.version)
        if rueda is None:  # CUDA 11.0: ninguna rueda; lo prueba el test siguiente
            continue
        comando = comando_instalacion(fila.version)
        paquete = f"torch=={rueda.torch_maximo}" if rueda.torch_maximo else "torch"
        assert comando == (
            f"python -m pip install --force-reinstall {paquete} --index-url {INDICE_RUEDAS}/{rueda.rueda}"
        )


def test_driver_demasiado_antiguo_explica_que_hay_que_actualizarlo():
    with pytest.raises(ValueError, match="Actualiza el driver") as error:
        comando_instalacion((11, 0))
    assert "11.0" in str(error.value) and "cu118" in str(error.value)
