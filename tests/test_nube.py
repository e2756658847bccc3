"""Lección 02: la nube cobra por hora encendida, la uses o no. «Apaga la máquina al terminar»."""

import math
from decimal import Decimal

import numpy as np
import pytest

from curso_gpu.nube import (
    HORAS_FIN_DE_SEMANA,
    PRECIO_HORA_MAXIMO,
    PRECIO_HORA_MINIMO,
    CosteNube,
    calcular_coste,
    coste_olvido,
)


def test_el_coste_es_precio_por_hora_por_horas():
    coste = calcular_coste(0.80, 3)
    assert isinstance(coste, CosteNube)
    assert coste.total == pytest.approx(2.40)


def test_un_fin_de_semana_olvidada_va_del_viernes_a_las_18_al_lunes_a_las_9():
    assert HORAS_FIN_DE_SEMANA == (24 - 18) + 24 + 24 + 9


def test_olvidar_la_gpu_mas_cara_un_fin_de_semana_cuesta_mas_de_450_dolares():
    assert calcular_coste(PRECIO_HORA_MAXIMO, HORAS_FIN_DE_SEMANA).total == pytest.approx(7.20 * 63)


def test_el_rango_de_precios_de_la_leccion_va_de_039_a_720_dolares_la_hora():
    assert (PRECIO_HORA_MINIMO, PRECIO_HORA_MAXIMO) == (0.39, 7.20)


def test_olvidarse_cuesta_mucho_mas_que_usarla():
    usado, olvidado = coste_olvido(0.80, horas_usadas=2)
    assert usado.total == pytest.approx(1.60)
    assert olvidado.horas == HORAS_FIN_DE_SEMANA
    assert olvidado.total == pytest.approx(0.80 * 63)
    assert olvidado.total / usado.total == pytest.approx(31.5)


def test_cero_horas_no_cuesta_nada():
    assert calcular_coste(2.0, 0).total == 0


def test_el_coste_se_lee_en_espanol():
    assert str(calcular_coste(0.8, 63)) == "0.80 $/h × 63 h = 50.40 $"
    assert str(calcular_coste(2, 1000.5)) == "2.00 $/h × 1 000.5 h = 2 001.00 $"


@pytest.mark.parametrize("precio", [-0.5, -1])
def test_un_precio_negativo_es_un_error_claro(precio):
    with pytest.raises(ValueError, match=r"^precio_hora debe ser un número entre 0 y 1000; recibí -.* \(es demasiado pequeño\)") as error:
        calcular_coste(precio, 3)
    assert repr(precio) in str(error.value)


def test_horas_negativas_es_un_error_claro():
    with pytest.raises(ValueError, match=r"^horas debe ser un número entre 0 y 876000; recibí -2 \(es demasiado pequeño\)"):
        calcular_coste(0.8, -2)


@pytest.mark.parametrize("valor", ["0.8", None, True, math.nan, math.inf])
def test_lo_que_no_es_un_numero_finito_es_un_error_claro(valor):
    with pytest.raises(ValueError, match="^precio_hora debe ser un número entre 0 y 1000; recibí"):
        calcular_coste(valor, 3)
    with pytest.raises(ValueError, match="^horas debe ser un número entre 0 y 876000; recibí"):
        calcular_coste(0.8, valor)


def test_cada_clase_de_gpu_tiene_un_rango_con_su_fuente():
    from curso_gpu.nube import PRECIOS_2026
    assert len(PRECIOS_2026) >= 4
    for rango in PRECIOS_2026:
        assert 0 < rango.minimo < rango.maximo, rango
        assert "2026" in rango.fuente
    por_clase = {r.clase.split(" ")[0]: r for r in PRECIOS_2026}
    assert por_clase["H100"].minimo > por_clase["A100"].minimo  # una H100 nunca es la más barata


@pytest.mark.parametrize("precio, horas, pista", [
    (0.8, 10**400, "horas debe ser un número entre 0 y 876000; recibí un entero de unas 401 cifras (es demasiado grande"),
    (0.8, 1e300, "horas debe ser un número entre 0 y 876000; recibí 1e+300 (es demasiado grande). Prueba, por ejemplo, "
                 "horas=2.5 (el tope, 876000 h, son cien años)."),
    (1e300, 1e300, "precio_hora debe ser un número entre 0 y 1000; recibí 1e+300 (es demasiado grande). Prueba, por "
                   "ejemplo, precio_hora=0.8 (dólares por hora)."),
    (0.8, Decimal("NaN"), "horas debe ser un número"),
    (np.float64("nan"), 3, "precio_hora debe ser un número"),
    (np.int64(-1), 3, "precio_hora debe ser un número entre 0 y 1000; recibí np.int64(-1) (es demasiado pequeño)"),
])
def test_numeros_enormes_negativos_o_nan_son_un_error_claro(precio, horas, pista):
    with pytest.raises(ValueError) as error:
        calcular_coste(precio, horas)
    assert type(error.value) is ValueError and pista in str(error.value)


def test_numpy_y_decimal_valen_como_numeros():
    referencia = calcular_coste(0.8, 3)
    for precio, horas in ((np.float64(0.8), np.int64(3)), (Decimal("0.8"), Decimal("3")), (np.float32(0.5) + 0.3, 3)):
        coste = calcular_coste(precio, horas)
        assert coste.total == pytest.approx(referencia.total) and str(coste) == str(referencia)
