"""Presentar números e informes, como texto o como HTML.

- ``formatear_numero``: la única forma de escribir un número en el curso (punto decimal,
  espacio de millares desde cinco cifras, la unidad tras un espacio).
- ``informe_texto`` / ``informe_html``: un informe de pares (qué, valor) con sus avisos. Lo
  usan ``InformeEntorno`` (lección 01) e ``InformeColab`` (lección 02): los datos viven en sus
  dataclasses y aquí solo se decide cómo se ven en la terminal y en el notebook.
"""

from __future__ import annotations

import html
import math


def formatear_numero(valor: float, decimales: int | None = None, unidad: str = "",
                     cifras: int | None = None) -> str:
    """Un número como lo escribe el curso, en las salidas y en el texto de las lecciones.

    Punto decimal (como lo escribe Python), un espacio como separador de millares desde cinco
    cifras y la unidad tras un espacio:

    >>> formatear_numero(124439808)
    '124 439 808'
    >>> formatear_numero(1024)
    '1024'
    >>> formatear_numero(12.6, 2, "$")
    '12.60 $'
    >>> formatear_numero(0.0015349, cifras=3, unidad="GFLOP/s")
    '0.00153 GFLOP/s'

    ``decimales``: cuántos decimales; ``cifras``: cuántas cifras significativas (sin notación
    científica). Sin ninguno de los dos, un entero se escribe entero y un decimal con hasta 6
    cifras significativas (``1000.5`` → ``'1000.5'``).
    """
    if isinstance(valor, bool) or not isinstance(valor, (int, float)):
        try:
            valor = float(valor)  # numpy, un tensor de un elemento...
        except (TypeError, ValueError):
            raise ValueError(f"formatear_numero espera un número; recibí {valor!r}.") from None
    if isinstance(valor, float) and not math.isfinite(valor):
        texto = "∞" if valor > 0 else "−∞" if valor < 0 else "—"
        return f"{texto} {unidad}" if unidad else texto
    if decimales is None and cifras is None and isinstance(valor, float) and not valor.is_integer():
        corto = f"{valor:.6g}"
        if "e" in corto:
            cifras = 3
        else:
            decimales = len(corto.partition(".")[2])
    if cifras is not None and decimales is None:
        decimales = 0 if valor == 0 else max(0, cifras - 1 - math.floor(math.log10(abs(valor))))
    texto = f"{valor:.{decimales}f}" if decimales is not None else str(int(valor))
    signo = "-" if texto.startswith("-") else ""
    entero, _, fraccion = texto.lstrip("-").partition(".")
    if len(entero) >= 5:
        grupos = []
        while entero:
            grupos.insert(0, entero[-3:])
            entero = entero[:-3]
        entero = " ".join(grupos)
    texto = signo + entero + (f".{fraccion}" if fraccion else "")
    return f"{texto} {unidad}" if unidad else texto


def informe_texto(titulo: str, filas: list[tuple[str, str]], titulo_avisos: str, avisos: list[str]) -> str:
    """El informe como texto: título subrayado, una fila alineada por par y los avisos con guiones."""
    ancho = max((len(k) for k, _ in filas), default=0)
    lineas = [titulo, "=" * len(titulo)]
    lineas += [f"{k:<{ancho}}  {v}" for k, v in filas]
    if avisos:
        lineas += ["", f"{titulo_avisos}:"] + [f"- {a}" for a in avisos]
    return "\n".join(lineas)


def informe_html(titulo: str, filas: list[tuple[str, str]], titulo_avisos: str, avisos: list[str]) -> str:
    """El informe como tabla HTML para el notebook; los saltos de línea de un aviso se respetan."""
    celdas = "".join(
        f"<tr><th style='text-align:left'>{html.escape(k)}</th>"
        f"<td style='text-align:left'>{html.escape(v)}</td></tr>"
        for k, v in filas
    )
    lista = "".join(f"<li>{html.escape(a).replace(chr(10), '<br>')}</li>" for a in avisos)
    return (
        f"<div><b>{html.escape(titulo)}</b><table>{celdas}</table>"
        + (f"<b>{html.escape(titulo_avisos)}</b><ul>{lista}</ul>" if avisos else "")
        + "</div>"
    )
