"""``leer_numero`` y ``mostrar_valor``: los números que escribe quien sigue el curso."""

from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest

from curso_gpu.base import leer_numero, mostrar_valor


@pytest.mark.parametrize("valor, esperado", [
    (3, 3.0), (0.8, 0.8), (np.int64(3), 3.0), (np.float32(0.5), 0.5), (np.float64(2.5), 2.5),
    (Decimal("0.8"), 0.8), (Fraction(1, 4), 0.25), (-2, -2.0),
])
def test_numpy_decimal_y_fraction_valen_como_un_numero_de_python(valor, esperado):
    assert leer_numero(valor) == esperado


@pytest.mark.parametrize("valor, motivo", [
    (True, "booleano"), (None, "de tipo NoneType"), ("3", "de tipo str"), (np.bool_(True), "de tipo bool"),
    (float("nan"), "NaN"), (np.float64("nan"), "NaN"), (Decimal("NaN"), "NaN"), (Decimal("sNaN"), "NaN"),
    (float("inf"), "infinito"), (10**400, "demasiado grande"), (Decimal("1e999"), "demasiado grande"),
    (Fraction(10**400, 3), "demasiado grande"),
])
def test_lo_que_no_es_un_numero_finito_da_el_motivo_en_espanol(valor, motivo):
    with pytest.raises(ValueError, match=motivo):
        leer_numero(valor)


def test_un_entero_enorme_se_muestra_resumido_y_sin_el_limite_de_cifras_de_python():
    assert mostrar_valor(10**400) == "un entero de unas 401 cifras"
    assert "cifras" in mostrar_valor(-(10**100_000))  # repr() fallaría: más de 4300 cifras
    assert mostrar_valor(2**70) == repr(2**70)
    assert mostrar_valor(np.int64(3)) == repr(np.int64(3))
    assert len(mostrar_valor("x" * 10_000)) <= 80
