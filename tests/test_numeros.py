"""``leer_numero`` y ``mostrar_valor``: los números que escribe quien sigue el curso."""

from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest

from curso_gpu.base import ENTERO_MAXIMO, NoEsUnNumero, leer_numero, mostrar_valor


@pytest.mark.parametrize("valor, esperado", [
    (3, 3.0), (0.8, 0.8), (np.int64(3), 3.0), (np.float32(0.5), 0.5), (np.float64(2.5), 2.5),
    (Decimal("0.8"), 0.8), (Fraction(1, 4), 0.25), (-2, -2.0), (np.uint8(7), 7.0),
])
def test_numpy_decimal_y_fraction_valen_como_un_numero_de_python(valor, esperado):
    numero = leer_numero(valor, "x")
    assert numero == esperado and type(numero) is float


@pytest.mark.parametrize("valor", [3, np.int64(3), np.uint8(3), 3.0, np.float64(3), Decimal("3"), Fraction(6, 2)])
def test_un_entero_sale_como_int_de_python_aunque_llegue_de_numpy_o_decimal(valor):
    numero = leer_numero(valor, "epocas", entero=True, minimo=1)
    assert numero == 3 and type(numero) is int


@pytest.mark.parametrize("valor, motivo", [
    (True, "booleano"), (np.bool_(True), "de tipo bool"), (None, "de tipo NoneType"), ("3", "de tipo str"),
    (1 + 2j, "de tipo complex"), ([3], "de tipo list"),
])
def test_lo_que_no_es_un_numero_es_un_error_de_tipo_en_espanol(valor, motivo):
    with pytest.raises(NoEsUnNumero, match=f"^lr debe ser un número; recibí .* \\(.*{motivo}.*\\)\\. Prueba, por ejemplo, lr=1\\.$"):
        leer_numero(valor, "lr")
    # es TypeError y también ValueError: quien ya atrapaba ValueError sigue atrapándolo
    with pytest.raises(TypeError):
        leer_numero(valor, "lr")
    with pytest.raises(ValueError):
        leer_numero(valor, "lr", entero=True)


@pytest.mark.parametrize("valor, motivo", [
    (float("nan"), "NaN"), (np.float64("nan"), "NaN"), (Decimal("NaN"), "NaN"), (Decimal("sNaN"), "NaN"),
    (float("inf"), "infinito"), (-np.inf, "infinito"), (10**400, "demasiado grande"),
    (Decimal("1e999"), "demasiado grande"), (Fraction(10**400, 3), "demasiado grande"),
])
def test_nan_e_infinito_se_rechazan_con_el_motivo(valor, motivo):
    with pytest.raises(ValueError, match=f"margen debe ser un número; recibí .*{motivo}") as error:
        leer_numero(valor, "margen")
    assert not isinstance(error.value, TypeError)


@pytest.mark.parametrize("valor, motivo", [
    (2.5, "no es un número entero"), (Decimal("0.5"), "no es un número entero"), (0, "demasiado pequeño"),
    (2**70, "demasiado grande"), (10**400, "unas 401 cifras"), (float("inf"), "infinito"),
])
def test_un_entero_se_rechaza_si_no_es_entero_o_no_cabe(valor, motivo):
    with pytest.raises(ValueError, match=f"^tamano_lote debe ser un entero .*; recibí .*{motivo}"):
        leer_numero(valor, "tamano_lote", entero=True, minimo=1)


def test_el_tope_de_int64_solo_se_menciona_a_quien_lo_pasa():
    with pytest.raises(ValueError, match=r"^semilla debe ser un entero entre 0 y 2\*\*63 - 1; recibí 18446744073709551616"):
        leer_numero(2**64, "semilla", entero=True, minimo=0)
    with pytest.raises(ValueError, match=r"semilla debe ser un entero mayor o igual que 0; recibí -1"):
        leer_numero(-1, "semilla", entero=True, minimo=0)
    assert leer_numero(ENTERO_MAXIMO, "semilla", entero=True, minimo=0) == ENTERO_MAXIMO
    with pytest.raises(ValueError, match=r"semilla debe ser un entero mayor o igual que 0; recibí -1"):
        leer_numero(-1, "semilla", entero=True, minimo=0, maximo=ENTERO_MAXIMO)


@pytest.mark.parametrize("valor, valido", [
    (0, True), (0.5, True), (np.float32(0.999), True), (1, False), (1.0, False), (-0.01, False), (Decimal("1.5"), False),
])
def test_una_probabilidad_va_de_0_incluido_a_1_excluido(valor, valido):
    argumentos = dict(minimo=0, maximo=1, maximo_incluido=False)
    if valido:
        assert 0 <= leer_numero(valor, "p", **argumentos) < 1
    else:
        with pytest.raises(ValueError, match=r"^p debe ser un número mayor o igual que 0 y menor que 1; recibí "
                                             r".*\(es demasiado (grande|pequeño)\)\. Prueba, por ejemplo, p=0\.$"):
            leer_numero(valor, "p", **argumentos)


@pytest.mark.parametrize("argumentos, cota, ejemplo", [
    (dict(minimo=0, minimo_incluido=False), "mayor que 0", "lr=1"),
    (dict(minimo=1, maximo=10), "entre 1 y 10", "lr=1"),
    (dict(minimo=0, maximo=1, minimo_incluido=False, maximo_incluido=False), "mayor que 0 y menor que 1", "lr=0.5"),
    (dict(minimo=0, minimo_incluido=False, ejemplo=3e-4), "mayor que 0", "lr=0.0003"),
    (dict(minimo=0, minimo_incluido=False, ejemplo="lr=3e-4 (o 1e-3)"), "mayor que 0", "lr=3e-4 \\(o 1e-3\\)"),
])
def test_el_mensaje_dice_la_cota_y_un_ejemplo_que_vale(argumentos, cota, ejemplo):
    with pytest.raises(ValueError, match=f"^lr debe ser un número {cota}; recibí -5 \\(.*\\)\\. Prueba, por ejemplo, {ejemplo}\\.$"):
        leer_numero(-5, "lr", **argumentos)
    with pytest.raises(ValueError, match=r"^lr debe ser un número menor que 0; recibí 5 \(es demasiado grande\)\. "
                                         r"Prueba, por ejemplo, lr=-1\.$"):
        leer_numero(5, "lr", maximo=0, maximo_incluido=False)


def test_el_ejemplo_derivado_de_las_cotas_es_valido():
    for argumentos in (dict(minimo=0, minimo_incluido=False), dict(minimo=2, maximo=3), dict(maximo=-2),
                       dict(minimo=0, maximo=1, maximo_incluido=False), dict(entero=True, minimo=0, minimo_incluido=False),
                       dict(entero=True, maximo=-3, maximo_incluido=False)):
        with pytest.raises(ValueError) as error:
            leer_numero("x", "v", **argumentos)
        ejemplo = str(error.value).rsplit("v=", 1)[1].rstrip(".")
        assert leer_numero(float(ejemplo), "v", **argumentos) == float(ejemplo)


def test_un_nombre_que_no_es_identificador_lleva_el_ejemplo_solo():
    with pytest.raises(ValueError, match=r"n \(el lado de la matriz\) debe ser un entero mayor o igual que 1; "
                                         r"recibí 0 \(es demasiado pequeño\)\. Prueba, por ejemplo, 1\.$"):
        leer_numero(0, "n (el lado de la matriz)", entero=True, minimo=1)


def test_un_entero_enorme_se_muestra_resumido_y_sin_el_limite_de_cifras_de_python():
    assert mostrar_valor(10**400) == "un entero de unas 401 cifras"
    assert "cifras" in mostrar_valor(-(10**100_000))  # repr() fallaría: más de 4300 cifras
    assert mostrar_valor(2**70) == repr(2**70)
    assert mostrar_valor(np.int64(3)) == repr(np.int64(3))
    assert len(mostrar_valor("x" * 10_000)) <= 80


def test_una_cota_excluida_rechaza_el_valor_de_la_cota():
    with pytest.raises(ValueError, match=r"^lr debe ser un número mayor que 0; recibí 0\.0 \(es demasiado pequeño\)"):
        leer_numero(0.0, "lr", minimo=0, minimo_incluido=False)
    with pytest.raises(ValueError, match=r"^procesos debe ser un entero mayor que 0 y menor que 4; recibí np.int64\(4\) \(es demasiado grande\)\. Prueba, por ejemplo, procesos=1\.$"):
        leer_numero(np.int64(4), "procesos", entero=True, minimo=0, maximo=4, minimo_incluido=False, maximo_incluido=False)
    assert leer_numero(1e-12, "lr", minimo=0, minimo_incluido=False) == 1e-12


def test_las_cotas_grandes_se_escriben_cortas():
    with pytest.raises(ValueError, match=r"^memoria_bytes debe ser un número mayor que 0 y menor o igual que 10\*\*18; "):
        leer_numero(10**19, "memoria_bytes", minimo=0, minimo_incluido=False, maximo=10**18)
    with pytest.raises(ValueError, match=r"^horas debe ser un número entre 0 y 876000; "):
        leer_numero(-1, "horas", minimo=0, maximo=876_000)
