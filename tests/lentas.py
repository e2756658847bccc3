"""La marca «lento» donde está el coste: en la prueba o en el fixture que lo causa.

``pytest -m "not lento"`` es la vuelta rápida: sin torchrun, sin kernels de Jupyter, sin
navegador y sin entrenamientos en otro proceso. Una prueba cara lleva ``@pytest.mark.lento``;
un fixture caro se declara con ``fixture_lenta`` (en vez de ``pytest.fixture``) y toda prueba
que lo use, directa o indirectamente, queda marcada ``lento`` al recogerse (``conftest.py`` llama
a ``marcar_lentas``).

Se marca por el fixture mismo (su función), no por su nombre: una prueba rápida con su propio
fixture ``ejecutado`` sigue en la vuelta rápida aunque otro archivo tenga un ``ejecutado`` lento.
"""

from __future__ import annotations

import pytest

FIXTURES_LENTAS: set = set()
"""Las funciones declaradas con ``fixture_lenta`` (no sus nombres)."""


def fixture_lenta(funcion=None, **opciones):
    """Como ``@pytest.fixture(...)``, y además marca ``lento`` toda prueba que la use."""
    def decorar(f):
        FIXTURES_LENTAS.add(f)
        return pytest.fixture(**opciones)(f)

    return decorar(funcion) if funcion is not None else decorar


def _usadas(item):
    """Las funciones de los fixtures que ``item`` usa de verdad, también los que reciben otros."""
    info = getattr(item, "_fixtureinfo", None)
    if info is None:  # no es una función de prueba (p. ej. una lección entera: ya lleva «lento»)
        return
    for nombre in item.fixturenames:
        definiciones = list(info.name2fixturedefs.get(nombre, ()))
        # La más cercana es la última; si pide su propio nombre, usa también la de fuera, y así.
        while definiciones:
            definicion = definiciones.pop()
            yield getattr(definicion.func, "__func__", definicion.func)  # de un método, su función
            if nombre not in definicion.argnames:
                break


def es_lenta(item) -> bool:
    """¿Usa ``item`` algún fixture declarado con ``fixture_lenta``?"""
    return any(funcion in FIXTURES_LENTAS for funcion in _usadas(item))


def marcar_lentas(items) -> None:
    """Marca ``lento`` cada prueba de ``items`` que usa un fixture lento (directa o indirectamente)."""
    for item in items:
        if es_lenta(item):
            item.add_marker(pytest.mark.lento)
