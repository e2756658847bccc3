"""Las figuras del curso (matplotlib). matplotlib se importa solo al dibujar.

Cada función recibe los datos que devuelve otro módulo (``Historial``, ``ResultadoBarrido``,
una tabla de VRAM...) y devuelve la ``Figure`` de matplotlib, para que un test pueda leer
sus datos sin pantalla.
"""

from __future__ import annotations


def _pyplot():
    """Importa matplotlib.pyplot solo cuando hace falta (``import curso_gpu`` sigue siendo ligero)."""
    import matplotlib

    if not _hay_pantalla_o_notebook():
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _hay_pantalla_o_notebook() -> bool:
    import os
    import sys

    return "ipykernel" in sys.modules or bool(os.environ.get("DISPLAY")) or sys.platform in ("win32", "darwin")


# --- Lección 03: medición CPU frente a GPU -------------------------------------------------


# --- Lección 04: memoria de un modelo --------------------------------------------------------


# --- Lección 05: entrenamiento ---------------------------------------------------------------
