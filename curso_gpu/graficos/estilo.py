"""El estilo común de las figuras del curso: tamaño, colores, títulos, leyendas fuera. Lecciones 02 a 07.

matplotlib se importa solo al dibujar (``pyplot()``). Las figuras de cada lección viven en
``graficos`` (02 a 04) y ``graficos_entrenamiento`` (05 a 07); ``graficos`` reexporta todo.
"""

from __future__ import annotations

import io
import os
import sys

__all__ = ["COLORES", "dar_estilo", "figura_a_png", "leyenda_fuera", "nueva_figura", "pyplot"]


def pyplot():
    """``matplotlib.pyplot``, importado solo cuando hace falta (``import curso_gpu`` sigue siendo ligero)."""
    import matplotlib

    if not _hay_pantalla_o_notebook():
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def figura_a_png(figura, dpi: int = 80) -> bytes:
    """La figura como PNG (bytes), y la cierra para no acumular figuras abiertas."""
    bufer = io.BytesIO()
    figura.savefig(bufer, format="png", dpi=dpi)
    pyplot().close(figura)
    return bufer.getvalue()


def _hay_pantalla_o_notebook() -> bool:
    return "ipykernel" in sys.modules or bool(os.environ.get("DISPLAY")) or sys.platform in ("win32", "darwin")


# --- El estilo del curso: todas las figuras se parecen -------------------------------------

_TAMANO = (7.5, 4.0)
"""Ancho y alto (pulgadas) de una figura de un panel; las de dos paneles, el doble de ancho."""

COLORES = {
    "cpu": "#0969da", "gpu": "#cf222e", "referencia": "#6e7781",
    "cabe": "#2da44e", "no_cabe": "#cf222e", "linea": "#0969da",
    "entrenamiento": "#0969da", "validacion": "#bc4c00",
}
"""Un color por idea, el mismo en todas las lecciones."""


def nueva_figura(columnas: int = 1, filas: int = 1, ancho: float | None = None, alto: float | None = None):
    """Una figura con el tamaño y el diseño del curso: ``(figura, ejes)``.

    Usa el diseño «constrained» de matplotlib, que deja sitio a las leyendas que van fuera
    de los ejes (``leyenda_fuera``) sin recortarlas.
    """
    plt = pyplot()
    ancho = ancho or _TAMANO[0] * (1 if columnas == 1 else 0.7 * columnas)
    alto = alto or _TAMANO[1] * (1 if filas == 1 else 0.75 * filas)
    return plt.subplots(filas, columnas, figsize=(ancho, alto), layout="constrained")


def dar_estilo(ejes, titulo: str | None = None, eje_x: str | None = None, eje_y: str | None = None,
               rejilla: str = "both") -> None:
    """Título y nombres de los ejes (en español, con su unidad entre paréntesis) y una rejilla suave."""
    if titulo:
        ejes.set_title(titulo, fontsize=11)
    if eje_x:
        ejes.set_xlabel(eje_x)
    if eje_y:
        ejes.set_ylabel(eje_y)
    if rejilla:
        ejes.grid(True, axis=rejilla, which="major", alpha=0.3)
    ejes.spines[["top", "right"]].set_visible(False)


def leyenda_fuera(ejes, handles=None, titulo: str | None = None, debajo: bool = False, columnas: int = 3):
    """La leyenda fuera de los ejes (a la derecha, o debajo, en ``columnas``): nunca tapa un dato."""
    opciones = dict(frameon=False, fontsize=9, title=titulo)
    if handles is not None:
        opciones["handles"] = handles
    if debajo:
        return ejes.legend(loc="upper center", bbox_to_anchor=(0.5, -0.18), ncol=columnas, **opciones)
    return ejes.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0, **opciones)
