"""La tabla driver → CUDA → rueda de PyTorch (lección 01)."""

import pytest

from curso_gpu import ruedas_cuda
from curso_gpu.ruedas_cuda import (
    INDICE_RUEDAS,
    VERSIONES_CUDA,
    comando_instalacion,
    cuda_maxima_del_driver,
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
        ("610.10", (13, 2)),  # un driver más nuevo que la tabla admite al menos lo último
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


@pytest.mark.parametrize("driver", ["", "desconocido", "N/A", "440.33"])
def test_driver_ilegible_o_demasiado_antiguo_da_none(driver):
    assert cuda_maxima_del_driver(driver) is None


def test_la_tabla_va_de_la_cuda_mas_nueva_a_la_mas_antigua_y_sus_drivers_tambien():
    versiones = [fila.version for fila in VERSIONES_CUDA]
    assert versiones == sorted(versiones, reverse=True)
    drivers = [ruedas_cuda._numeros(fila.driver_linux) for fila in VERSIONES_CUDA]
    assert drivers == sorted(drivers, reverse=True)


def test_los_ejemplos_del_enunciado_estan_en_la_tabla():
    por_rueda = {fila.rueda: fila for fila in VERSIONES_CUDA if fila.rueda}
    assert por_rueda["cu126"].driver_linux.startswith("560.28")
    assert por_rueda["cu128"].driver_linux.startswith("570.26")
    assert por_rueda["cu118"].torch_maximo == "2.7.1"  # el torch==2.7.1 del tema 27.8


# --- CUDA del driver → rueda -------------------------------------------------------------

@pytest.mark.parametrize(
    ("cuda", "rueda", "torch_maximo"),
    [
        ((13, 2), "cu132", None),
        ((13, 5), "cu132", None),
        ((13, 0), "cu130", None),
        ((13, 1), "cu130", None),
        ((12, 9), "cu126", None),  # prefiere una rueda actual (torch nuevo) a cu129 (torch 2.8)
        ((12, 8), "cu126", None),
        ((12, 6), "cu126", None),
        ((12, 5), "cu124", "2.6.0"),  # ninguna actual cabe: la retirada más nueva que cabe
        ((12, 4), "cu124", "2.6.0"),
        ((12, 2), "cu121", "2.5.1"),
        ((12, 0), "cu118", "2.7.1"),
        ((11, 8), "cu118", "2.7.1"),
    ],
)
def test_rueda_que_admite_el_driver(cuda, rueda, torch_maximo):
    fila = rueda_para(cuda)
    assert fila.rueda == rueda
    assert fila.torch_maximo == torch_maximo
    assert fila.version <= cuda, "nunca se propone una CUDA más nueva que la del driver"


def test_sin_saber_el_driver_propone_cu126_la_mas_conservadora_de_las_actuales():
    assert rueda_para(None).rueda == "cu126"


def test_driver_mas_antiguo_que_cualquier_rueda_no_tiene_rueda():
    assert rueda_para((11, 0)) is None


# --- el comando ------------------------------------------------------------------------------

def test_comando_para_driver_con_cuda_12_6_usa_el_indice_cu126():
    assert comando_instalacion((12, 6)) == (
        "python -m pip install --force-reinstall torch --index-url https://download.pytorch.org/whl/cu126"
    )


def test_comando_para_rueda_retirada_fija_la_ultima_version_de_torch():
    assert comando_instalacion((11, 8)) == (
        "python -m pip install --force-reinstall torch==2.7.1 --index-url https://download.pytorch.org/whl/cu118"
    )
    assert "torch==2.6.0 " in comando_instalacion((12, 4))


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
