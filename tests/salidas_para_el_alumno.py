"""Lo que una lección ejecutada no debe enseñar en sus salidas (issue 53): restos de la máquina que la ejecutó.

``problemas_de_salidas(cuaderno, rutas)`` devuelve una lista (vacía: nada) con, por celda:

- **rutas de la construcción**: la carpeta del repositorio, la temporal o la de trabajo de quien la
  ejecutó (``rutas``). Un alumno ve ``checkpoints/...``, relativo a su carpeta (``mostrar_ruta``).
- **direcciones de memoria** (``<torch._C.Generator at 0x7f…>``): un ``repr`` que no dice nada.
- **números crudos**: más de 6 cifras significativas (``0.9545339941978455``); el curso redondea
  con ``formatear_numero``.
- **plurales sueltos tras un 1** (``1 hilos``, ``los 1 procesos``) y ``proceso(s)``: ``contar``.
- **líneas de registro en inglés** de torchrun o de glog (``E1207 18:15:29.876000 …``).
"""

from __future__ import annotations

import re

from cifras_de_lecciones import salidas

_DIRECCION = re.compile(r"\b0x[0-9a-fA-F]{6,}\b")
# Un decimal suelto: ni parte de una versión (2.13.0), ni de una dirección IP, ni de un nombre.
_DECIMAL = re.compile(r"(?<![\w.:])-?(\d+)\.(\d+)(?:[eE][-+]?\d+)?(?![\w.])")
# «1 hilos»: un 1 suelto seguido de una palabra en plural (acaba en «s»), salvo las que no son plurales.
_UNO_Y_PLURAL = re.compile(r"(?<![\d.,\w])1 ([a-záéíóúñ]+s)\b")
_NO_SON_PLURALES = {"más", "menos", "tras", "antes", "después", "pues", "es", "vs", "mientras", "además",
                    "entonces", "mes", "gas", "bis", "lunes", "martes", "miércoles", "jueves", "viernes"}
# Los mensajes de PyTorch se citan tal cual, en inglés («expected input to have 1 channels, but got 3»).
_EN_INGLES = re.compile(r"\b(?:the|to have|but got|expected|instead)\b")
_PLURAL_ENTRE_PARENTESIS = re.compile(r"\b\w+\(s\)|\b\w+\(es\)")
_REGISTRO = re.compile(r"^\s*[EWIF]\d{4} \d\d:\d\d:\d\d\.\d+ ", re.M)


def _linea_de(texto: str, posicion: int) -> str:
    inicio = texto.rfind("\n", 0, posicion) + 1
    fin = texto.find("\n", posicion)
    return texto[inicio:fin if fin >= 0 else len(texto)]


def cifras_significativas(entero: str, decimales: str) -> int:
    """Las cifras significativas de ``entero.decimales`` (sin los ceros de delante)."""
    return len((entero + decimales).lstrip("0"))


def problemas_de_texto(texto: str, rutas: tuple[str, ...] = ()) -> list[str]:
    """Los problemas de un texto visible (ver el docstring del módulo)."""
    problemas = [f"ruta de la máquina que la ejecutó: {r!r}" for r in rutas if r and r in texto]
    problemas += [f"dirección de memoria {m.group(0)!r}" for m in _DIRECCION.finditer(texto)]
    problemas += [f"número crudo {m.group(0)!r} (más de 6 cifras significativas)"
                  for m in _DECIMAL.finditer(texto) if cifras_significativas(m.group(1), m.group(2)) > 6]
    problemas += [f"plural tras un 1: {m.group(0)!r}" for m in _UNO_Y_PLURAL.finditer(texto)
                  if m.group(1) not in _NO_SON_PLURALES and not _EN_INGLES.search(_linea_de(texto, m.start()))]
    problemas += [f"plural entre paréntesis {m.group(0)!r} (usa contar)" for m in _PLURAL_ENTRE_PARENTESIS.finditer(texto)]
    problemas += [f"línea de registro en inglés: {m.group(0).strip()!r}…" for m in _REGISTRO.finditer(texto)]
    return problemas


def problemas_de_salidas(cuaderno, rutas: tuple[str, ...] = ()) -> list[str]:
    """Cada problema de las salidas de ``cuaderno``, con su celda: ``"celda 13: número crudo '0.95453399'"``."""
    return [f"celda {i}: {p}" for i, texto in salidas(cuaderno) for p in problemas_de_texto(texto, rutas)]
