"""Números que escribe quien sigue el curso: ``3``, ``0.8``, ``np.int64(3)`` o ``Decimal("0.8")``.

``leer_numero`` los convierte a ``float`` o dice en español por qué no puede. Cada función
del curso añade a ese motivo qué dato era y qué escribir.
"""

from __future__ import annotations

import math
import numbers
from decimal import Decimal


def leer_numero(valor) -> float:
    """El ``float`` de ``valor``, o ``ValueError`` con el motivo en español.

    Acepta ``int``, ``float``, los enteros y decimales de NumPy, ``Decimal`` y ``Fraction``.
    Rechaza los booleanos, lo que no es un número («es de tipo str»), NaN y lo infinito o
    demasiado grande para un ``float`` (``10**400``).
    """
    if isinstance(valor, bool) or not isinstance(valor, (numbers.Real, Decimal)):
        motivo = "es un booleano, no un número" if isinstance(valor, bool) else f"es de tipo {type(valor).__name__}, no un número"
        raise ValueError(motivo)
    try:
        numero = float(valor)
    except OverflowError:
        raise ValueError("es demasiado grande") from None
    except (TypeError, ValueError):  # Decimal("sNaN")
        raise ValueError("es NaN: no es un número") from None
    if math.isnan(numero):
        raise ValueError("es NaN: no es un número")
    if math.isinf(numero):
        raise ValueError("es infinito" if isinstance(valor, float) else "es demasiado grande")
    return numero


def mostrar_valor(valor) -> str:
    """El ``repr`` de ``valor`` para un mensaje de error, corto aunque el número sea enorme.

    ``10**400`` se muestra como «un entero de unas 401 cifras» (su ``repr`` ocuparía la pantalla
    y, con más de 4300 cifras, Python se niega a escribirlo).
    """
    if isinstance(valor, numbers.Integral) and not isinstance(valor, bool):
        bits = abs(int(valor)).bit_length()
        if bits > 200:
            return f"un entero de unas {int(bits * math.log10(2)) + 1} cifras"
    try:
        texto = repr(valor)
    except Exception:  # un objeto cuyo repr falla no debe tapar el error que explicamos
        texto = f"<{type(valor).__name__}>"
    return texto if len(texto) <= 80 else texto[:77] + "..."
