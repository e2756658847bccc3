"""Presentar datos como texto o como HTML: informes de pares (qué, valor), tablas y tiempos.

Lo usan las dataclasses del paquete (``InformeEntorno``, ``InformeColab``, ``Medicion``,
``ResultadoMatmul``...) en su ``__str__`` y su ``_repr_html_``: los datos viven en ellas y aquí
solo se decide cómo se ven en la terminal y en el notebook. No importa nada del paquete.
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


def _celdas(filas: list[tuple[str, str]]) -> str:
    return "".join(
        f"<tr><th style='text-align:left'>{html.escape(k)}</th>"
        f"<td style='text-align:left'>{html.escape(v)}</td></tr>"
        for k, v in filas
    )


def informe_html(titulo: str, filas: list[tuple[str, str]], titulo_avisos: str, avisos: list[str]) -> str:
    """El informe como tabla HTML para el notebook; los saltos de línea de un aviso se respetan."""
    celdas = _celdas(filas)
    lista = "".join(f"<li>{html.escape(a).replace(chr(10), '<br>')}</li>" for a in avisos)
    return (
        f"<div><b>{html.escape(titulo)}</b><table>{celdas}</table>"
        + (f"<b>{html.escape(titulo_avisos)}</b><ul>{lista}</ul>" if avisos else "")
        + "</div>"
    )


def tabla_texto(titulo: str, filas: list[tuple[str, str]], avisos: list[str] = ()) -> str:
    """Una tabla corta como texto: el título, una fila sangrada y alineada por par y los avisos («¡Ojo!»)."""
    ancho = max((len(k) for k, _ in filas), default=0)
    return "\n".join([titulo] + [f"  {k:<{ancho}}  {v}" for k, v in filas] + [f"  ¡Ojo! {a}" for a in avisos])


def tabla_html(titulo: str, filas: list[tuple[str, str]], avisos: list[str] = ()) -> str:
    """La misma tabla en HTML, con los avisos en rojo debajo."""
    lista = "".join(f"<p style='color:#b00'>¡Ojo! {html.escape(a)}</p>" for a in avisos)
    return f"<div><b>{html.escape(titulo)}</b><table>{_celdas(filas)}</table>{lista}</div>"


def formatear_tiempo(segundos: float) -> str:
    """Segundos en la unidad que se lee bien: «1.234 s», «12.345 ms» o «56.7 µs»."""
    if segundos >= 1:
        return f"{segundos:.3f} s"
    if segundos >= 1e-3:
        return f"{segundos * 1e3:.3f} ms"
    return f"{segundos * 1e6:.1f} µs"
