"""Presentar datos como texto o como HTML: números, informes de pares (qué, valor), tablas y tiempos.

Lo usan las dataclasses del paquete (``InformeEntorno``, ``InformeColab``, ``Medicion``,
``ResultadoMatmul``...) en su ``__str__`` y su ``_repr_html_``: los datos viven en ellas y aquí
solo se decide cómo se ven en la terminal y en el notebook. No importa nada del paquete.

``formatear_numero`` es la única forma de escribir un número en el curso: punto decimal,
espacio de millares desde cinco cifras y la unidad tras un espacio.
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
