"""Números que escribe quien sigue el curso: ``3``, ``0.8``, ``np.int64(3)`` o ``Decimal("0.8")``.

``leer_numero`` es el único lector de números del paquete (épocas, lotes, procesos, puertos,
márgenes, gigas, segundos...): devuelve un ``int`` o un ``float`` de Python, o un error en
español que nombra el dato, muestra lo recibido y da un ejemplo que sí vale.
"""

from __future__ import annotations

import math
import numbers
from decimal import Decimal

__all__ = ["ENTERO_MAXIMO", "NoEsUnNumero", "leer_entero", "leer_numero", "leer_positivo", "mostrar_valor"]

ENTERO_MAXIMO = 2**63 - 1
"""El mayor entero que cabe en un ``int64`` de torch y NumPy: más allá, ``OverflowError`` en C."""


class NoEsUnNumero(TypeError, ValueError):
    """Lo recibido no es un número (un texto, ``None``, un booleano, un complejo...).

    Es ``TypeError`` (el tipo está mal) y también ``ValueError``: ``except ValueError`` lo atrapa
    como a cualquier otro número que no vale.
    """


def leer_numero(valor, nombre: str, *, entero: bool = False, minimo=None, maximo=None,
                minimo_incluido: bool = True, maximo_incluido: bool = True, ejemplo=None) -> int | float:
    """El número de ``valor`` como ``int`` (``entero=True``) o ``float`` de Python.

    Acepta ``int``, ``float``, los enteros y decimales de NumPy, ``Decimal`` y ``Fraction``.
    Rechaza los booleanos, los textos, ``None`` y los complejos (``NoEsUnNumero``, que es
    ``TypeError`` y ``ValueError``); NaN, lo infinito, lo que no es entero si ``entero=True``
    (``2.5``; ``3.0`` vale como 3) y lo que se sale de ``[minimo, maximo]`` (``ValueError``).
    Con ``entero=True`` y sin ``maximo``, el tope es lo que cabe en un ``int64`` (``ENTERO_MAXIMO``).

    El mensaje nombra el dato y da un ejemplo (``ejemplo``, o uno sacado de las cotas):

    >>> leer_numero(0, "tamano_lote", entero=True, minimo=1)
    Traceback (most recent call last):
    ...
    ValueError: tamano_lote debe ser un entero mayor o igual que 1; recibí 0 (es demasiado pequeño). Prueba, por ejemplo, tamano_lote=1.

    Una probabilidad: ``minimo=0, maximo=1, maximo_incluido=False``.
    """
    tope = maximo
    if entero and maximo is None:
        tope = ENTERO_MAXIMO  # torch y NumPy no guardan más en un int64
    error = ValueError
    numero = None
    if isinstance(valor, bool) or not isinstance(valor, (numbers.Real, Decimal)):
        error = NoEsUnNumero
        motivo = "es un booleano, no un número" if isinstance(valor, bool) else f"es de tipo {type(valor).__name__}, no un número"
    elif entero and isinstance(valor, numbers.Integral):
        numero, motivo = int(valor), None
    else:
        numero, motivo = _finito(valor)
        if motivo is None and entero:
            exacto = int(valor)  # exacto para float, Decimal y Fraction finitos
            numero, motivo = (exacto, None) if exacto == valor else (None, "no es un número entero")
    if motivo is None:
        if minimo is not None and (numero < minimo or (numero == minimo and not minimo_incluido)):
            motivo = "es demasiado pequeño"
        elif tope is not None and (numero > tope or (numero == tope and not maximo_incluido)):
            motivo = "es demasiado grande"
        else:
            return numero
    if tope == ENTERO_MAXIMO and motivo != "es demasiado grande":
        tope = None  # el tope de int64 solo se menciona a quien se pasa de él
    cota = _cota(minimo, tope, minimo_incluido, maximo_incluido)
    if ejemplo is None:
        ejemplo = _ejemplo(entero, minimo, tope, minimo_incluido, maximo_incluido)
    if not isinstance(ejemplo, str):
        ejemplo = f"{nombre}={_texto(ejemplo)}" if nombre.isidentifier() else _texto(ejemplo)
    clase = "un entero" if entero else "un número"
    raise error(f"{nombre} debe ser {clase}{' ' + cota if cota else ''}; recibí {mostrar_valor(valor)} "
                f"({motivo}). Prueba, por ejemplo, {ejemplo}.")


def _finito(valor) -> tuple[float | None, str | None]:
    """El ``float`` de un real y ``None``, o ``None`` y el motivo por el que no es finito."""
    try:
        numero = float(valor)
    except OverflowError:
        return None, "es demasiado grande"
    except (TypeError, ValueError):  # Decimal("sNaN")
        return None, "es NaN: no es un número"
    if math.isnan(numero):
        return None, "es NaN: no es un número"
    if math.isinf(numero):
        return None, "es infinito" if isinstance(valor, float) else "es demasiado grande"
    return numero, None


def _cota(minimo, maximo, minimo_incluido: bool, maximo_incluido: bool) -> str:
    if minimo is not None and maximo is not None and minimo_incluido and maximo_incluido:
        return f"entre {_texto(minimo)} y {_texto(maximo)}"
    partes = []
    if minimo is not None:
        partes.append(f"{'mayor o igual que' if minimo_incluido else 'mayor que'} {_texto(minimo)}")
    if maximo is not None:
        partes.append(f"{'menor o igual que' if maximo_incluido else 'menor que'} {_texto(maximo)}")
    return " y ".join(partes)


def _ejemplo(entero: bool, minimo, maximo, minimo_incluido: bool, maximo_incluido: bool):
    """Un valor dentro de las cotas: el mínimo, o 1 si no hay cotas que lo impidan."""
    if entero:
        bajo = None if minimo is None else (math.ceil(minimo) if minimo_incluido else math.floor(minimo) + 1)
        alto = None if maximo is None else (math.floor(maximo) if maximo_incluido else math.ceil(maximo) - 1)
        if bajo is not None:
            return bajo
        return 1 if alto is None or alto >= 1 else alto
    if minimo is not None and maximo is not None:
        return minimo if minimo_incluido else (minimo + maximo) / 2
    if minimo is not None:
        return minimo if minimo_incluido else minimo + 1
    if maximo is not None:
        return 1 if maximo > 1 else (maximo if maximo_incluido else maximo - 1)
    return 1


def _texto(numero) -> str:
    """Una cota legible: ``2**63 - 1`` y ``10**18`` en vez de sus 19 cifras."""
    if numero == ENTERO_MAXIMO:
        return "2**63 - 1"
    if numero == 2**32 - 1:
        return "2**32 - 1"
    if isinstance(numero, int) and numero >= 10**6 and str(numero).rstrip("0") == "1":
        return f"10**{len(str(numero)) - 1}"
    if isinstance(numero, float) and numero.is_integer() and abs(numero) < 1e15:
        return str(int(numero)) if abs(numero) >= 1 or numero == 0 else repr(numero)
    return f"{numero:g}" if isinstance(numero, float) else str(numero)


def leer_entero(valor, nombre: str, minimo: int | None = None, maximo: int | None = None,
                ejemplo: str | None = None) -> int:
    """Lo mismo que ``leer_numero(valor, nombre, entero=True, minimo=..., maximo=..., ejemplo=...)``.

    Se quita en cuanto ningún módulo lo use: escribe ``leer_numero`` en su lugar.
    """
    return leer_numero(valor, nombre, entero=True, minimo=minimo, maximo=maximo, ejemplo=ejemplo or None)


def leer_positivo(valor, nombre: str, unidad: str = "segundos", ejemplo: float | str = 60) -> float:
    """``leer_numero(valor, nombre, minimo=0, minimo_incluido=False, ejemplo=...)``, con la unidad en el ejemplo.

    Se quita en cuanto ningún módulo lo use: escribe ``leer_numero`` en su lugar.
    """
    return leer_numero(valor, nombre, minimo=0, minimo_incluido=False, ejemplo=f"{nombre}={ejemplo} ({unidad})")


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
