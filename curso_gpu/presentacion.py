"""Presentar un informe de pares (qué, valor) con sus avisos, como texto o como HTML.

Lo usan ``InformeEntorno`` (lección 01) e ``InformeColab`` (lección 02): los datos viven en
sus dataclasses y aquí solo se decide cómo se ven en la terminal y en el notebook.
"""

from __future__ import annotations

import html


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
