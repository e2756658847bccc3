"""Entradas malas en las comparaciones (``comparar_tiempos``, ``comparar_muestras``): el mensaje en español.

Lo que mide un reloj falso: nada de esto espera de verdad.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from curso_gpu.medicion import DURACION_MAXIMA_S, PARES_MAXIMOS, comparar_muestras, comparar_tiempos


def _nada():
    return None


@pytest.mark.parametrize("argumentos, mensaje", [
    (dict(a=lambda x: x), r"a debe poderse llamar sin argumentos, y .* pide \(x\)\. Envuélvela con sus datos: a=lambda: f\(x\)"),
    (dict(b=lambda x, y=1: x), r"b debe poderse llamar sin argumentos"),
    (dict(a=None), r"comparar_tiempos necesita dos funciones sin argumentos: a debe ser una"),
    (dict(semilla=-1), r"semilla \(la del remuestreo del intervalo\) debe ser un entero mayor o igual que 0; recibí -1"),
    (dict(semilla=1.5), r"semilla .*no es un número entero"),
    (dict(repeticiones=10**9), rf"repeticiones .*entre 1 y {PARES_MAXIMOS}; recibí 1000000000 \(es demasiado grande\)"),
    (dict(presupuesto_s=math.inf), r"presupuesto_s debe ser un número mayor que 0 .*recibí inf"),
    (dict(presupuesto_s=10**6), rf"presupuesto_s .*menor o igual que {DURACION_MAXIMA_S}"),
    (dict(descripcion=42), r"descripcion debe ser un texto"),
    (dict(reloj=42), r"reloj debe ser una función sin argumentos"),
])
def test_comparar_tiempos_comprueba_todo_antes_de_medir(argumentos, mensaje):
    llamadas = []
    datos = dict(a=lambda: llamadas.append("a"), b=lambda: llamadas.append("b"), presupuesto_s=None, repeticiones=3)
    datos.update(argumentos)
    with pytest.raises(ValueError, match=mensaje):
        comparar_tiempos(datos.pop("a"), datos.pop("b"), **datos)
    assert llamadas == [], "no se midió nada"


def test_una_comparacion_que_tardaria_demasiado_se_rechaza_antes_de_los_pares():
    ahora = [0.0]
    llamadas = []

    def reloj():
        return ahora[0]

    def lenta():  # cada llamada «tarda» 10 s en el reloj falso
        llamadas.append(1)
        ahora[0] += 10.0

    with pytest.raises(ValueError, match=r"Esta comparación tardaría unos .* min .*más de 10 minutos\. Baja repeticiones"):
        comparar_tiempos(lenta, lenta, repeticiones=100, presupuesto_s=None, reloj=reloj)
    assert len(llamadas) == 4, "solo la llamada en frío y la de calibrar de cada una"


def test_comparar_tiempos_admite_funciones_de_c_sin_firma():
    c = comparar_tiempos(time_ns_sin_firma(), time_ns_sin_firma(), repeticiones=2, presupuesto_s=0.01)
    assert c.pares >= 2


def test_una_funcion_de_c_que_pide_argumentos_se_rechaza_antes_de_medir():
    """torch.matmul no dice su firma a inspect: antes fallaba dentro, con «matmul() missing 2 required…»."""
    from curso_gpu.medicion import cronometrar

    with pytest.raises(ValueError, match=r"a debe poderse llamar sin argumentos, y torch.matmul pide "
                                         r"\(input, other, \*, out=None\)\. Envuélvela con sus datos"):
        comparar_tiempos(torch.matmul, _nada, repeticiones=2, presupuesto_s=0.01)
    with pytest.raises(ValueError, match=r"funcion debe poderse llamar sin argumentos, y torch.matmul pide"):
        cronometrar(torch.matmul, "cpu")
    comparar_tiempos(torch.seed, _nada, repeticiones=2, presupuesto_s=0.01)  # una de C sin argumentos: vale


def time_ns_sin_firma():
    import time

    return time.perf_counter_ns  # una función de C: inspect no siempre sabe su firma


@pytest.mark.parametrize("muestras_a, mensaje", [
    ([0.02, 0.0, 0.02], r"muestras_a\[1\] debe ser un número mayor que 0; recibí 0.0 .*nunca es 0 ni negativo"),
    ([0.02, -0.01, 0.02], r"muestras_a\[1\] .*recibí -0.01 \(es demasiado pequeño\)"),
    ([0.02, math.nan, 0.02], r"muestras_a\[1\] .*recibí nan \(es NaN"),
    ([], r"muestras_a está vacía"),
    ("0.1 0.2", r"muestras_a debe ser una lista de tiempos en segundos"),
    (None, r"muestras_a debe ser una lista de tiempos"),
    ([True, True, True], r"muestras_a\[0\] .*es un booleano"),
])
def test_comparar_muestras_rechaza_tiempos_imposibles(muestras_a, mensaje):
    with pytest.raises(ValueError, match=mensaje):
        comparar_muestras(muestras_a, [0.01, 0.01, 0.01])


@pytest.mark.parametrize("opciones, mensaje", [
    (dict(semilla=-1), r"semilla .*mayor o igual que 0; recibí -1"),
    (dict(nombres=("x", "x")), r"nombres debe ser dos textos distintos"),
    (dict(primera_a=-1.0), r"primera_a debe ser un número mayor que 0"),
    (dict(alternados="sí"), r"alternados debe ser True o False"),
])
def test_comparar_muestras_comprueba_sus_opciones(opciones, mensaje):
    with pytest.raises(ValueError, match=mensaje):
        comparar_muestras([0.02] * 3, [0.01] * 3, **opciones)


def test_comparar_muestras_sigue_aceptando_numpy_y_escalares_de_torch():
    c = comparar_muestras(np.array([0.02] * 6), [torch.tensor(0.01)] * 6)
    assert c.ganador == "b" and c.veces == pytest.approx(2)
