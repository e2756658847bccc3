"""La marca «lento» donde está el coste: en la prueba o en el fixture que lo causa.

``pytest -m "not lento"`` es la vuelta rápida: sin torchrun, sin kernels de Jupyter, sin
navegador y sin entrenamientos en otro proceso. Una prueba cara lleva ``@pytest.mark.lento``;
un fixture caro se declara con ``fixture_lenta`` (en vez de ``pytest.fixture``) y toda prueba
que lo use, directa o indirectamente, queda marcada ``lento`` al recogerse (``conftest.py``).
"""

from __future__ import annotations

import pytest

FIXTURES_LENTAS: set[str] = set()


def fixture_lenta(funcion=None, **opciones):
    """Como ``@pytest.fixture(...)``, y además marca ``lento`` toda prueba que la use."""
    def decorar(f):
        FIXTURES_LENTAS.add(opciones.get("name") or f.__name__)
        return pytest.fixture(**opciones)(f)

    return decorar(funcion) if funcion is not None else decorar
