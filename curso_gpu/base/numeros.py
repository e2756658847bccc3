"""Números que escribe quien sigue el curso: ``3``, ``0.8``, ``np.int64(3)`` o ``Decimal("0.8")``.

``leer_numero`` los convierte a ``float`` o dice en español por qué no puede. Cada función
del curso añade a ese motivo qué dato era y qué escribir. ``leer_entero`` es el único lector
de cantidades enteras del paquete (épocas, lotes, procesos, puertos...): el mismo mensaje en todas.
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


ENTERO_MAXIMO = 2**63 - 1
"""El mayor entero que cabe en un ``int64`` de torch y NumPy: más allá, ``OverflowError`` en C."""


def leer_entero(valor, nombre: str, minimo: int | None = None, maximo: int | None = ENTERO_MAXIMO,
                ejemplo: str = "") -> int:
    """El ``int`` de Python de ``valor``, o ``ValueError`` en español que nombra el dato.

    Acepta ``int`` y los enteros de NumPy (``np.int64(3)``); rechaza los booleanos, los
    decimales (``3.0``), los textos y lo que se sale de ``[minimo, maximo]`` (por defecto, lo
    que cabe en un ``int64``: ``2**70`` no). ``ejemplo``: un valor que sí vale, para el mensaje.
    """
    if isinstance(valor, numbers.Integral) and not isinstance(valor, bool):
        numero = int(valor)
        if (minimo is None or numero >= minimo) and (maximo is None or numero <= maximo):
            return numero
        motivo = "es demasiado grande" if maximo is not None and numero > maximo else "es demasiado pequeño"
    elif isinstance(valor, bool):
        motivo = "es un booleano, no un número"
    elif isinstance(valor, numbers.Real):
        motivo = "no es un número entero"
    else:
        motivo = f"es de tipo {type(valor).__name__}, no un número"
    if maximo == ENTERO_MAXIMO and motivo != "es demasiado grande":
        maximo = None  # el tope de int64 solo se menciona a quien lo pasa
    if minimo is not None and maximo is not None:
        cota = f"entre {minimo} y {_cota(maximo)}"
    elif minimo is not None:
        cota = f"mayor o igual que {minimo}"
    elif maximo is not None:
        cota = f"menor o igual que {_cota(maximo)}"
    else:
        cota = ""
    prueba = f" Prueba, por ejemplo, {ejemplo}." if ejemplo else ""
    raise ValueError(f"{nombre} debe ser un entero {cota}".rstrip() +
                     f"; recibí {mostrar_valor(valor)} ({motivo}).{prueba}")


def leer_positivo(valor, nombre: str, unidad: str = "segundos", ejemplo: float | str = 60) -> float:
    """Un número de ``unidad`` mayor que 0 y finito (``np.float64`` y ``Decimal`` valen), o un
    ``ValueError`` en español que nombra el argumento: «timeout_s debe ser un número de
    segundos mayor que 0; recibí -1 (no es mayor que 0)…». Lecciones 03 y 08."""
    try:
        numero = leer_numero(valor)
        if numero <= 0:
            raise ValueError("no es mayor que 0")
    except ValueError as motivo:
        raise ValueError(f"{nombre} debe ser un número de {unidad} mayor que 0; recibí {mostrar_valor(valor)} "
                         f"({motivo}). Prueba, por ejemplo, {nombre}={ejemplo}.") from None
    return numero


def _cota(numero: int) -> str:
    return {ENTERO_MAXIMO: "2**63 - 1", 2**32 - 1: "2**32 - 1"}.get(numero, str(numero))


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
