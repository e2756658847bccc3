"""Barras de progreso con ``tqdm.auto``: un widget en Jupyter y Colab, una línea en una terminal.

``tqdm`` es la barra estándar del ecosistema (la usan PyTorch y Hugging Face, y ya viene en
Colab). ``tqdm.auto`` elige sola la versión del notebook o la de la terminal. Se importa
dentro de las funciones: ``import curso_gpu`` no la carga.

En un notebook, mientras avanza, se ve el widget de ``tqdm.notebook`` de siempre. Al cerrarse,
la salida de la celda pasa a ser una copia fija de su estado final (texto y HTML, con el mismo
aspecto): es lo que queda al guardar el notebook o exportarlo (nbconvert a HTML), en vez del
0 % con que se mostró o de un hueco en blanco donde la página no puede dibujar widgets.
"""

from __future__ import annotations

import functools
import html
import re
import sys
import uuid

__all__ = ["BarraEpocas", "VISTA_WIDGET", "barra"]

# El tipo MIME con el que Jupyter y Colab dibujan un widget vivo (el mismo en ipywidgets 7 y 8).
VISTA_WIDGET = "application/vnd.jupyter.widget-view+json"
# Colores de la barra de tqdm.notebook: en curso, terminada y cortada (bar_style de ipywidgets).
_COLORES_BARRA = {"en curso": "#2196f3", "terminada": "#5cb85c", "cortada": "#d9534f"}


def barra(total: int, descripcion: str = "", silenciosa: bool = False, inicial: int = 0):
    """Una barra de ``tqdm.auto`` de ``total`` pasos; con ``silenciosa=True`` no muestra nada.

    Se usa como ``with barra(10, "Barrido") as b: ... b.update(1)``.
    """
    from tqdm.auto import tqdm

    notebook = sys.modules.get("tqdm.notebook")  # tqdm.auto solo lo importa dentro de Jupyter
    if notebook is not None and issubclass(tqdm, notebook.tqdm) and not silenciosa:
        tqdm = _barra_notebook(tqdm)
    return tqdm(total=max(int(total), 1), desc=descripcion, initial=inicial, disable=silenciosa,
                dynamic_ncols=True)


class BarraEpocas:
    """La barra por defecto de ``entrenar``: se llama como ``al_avanzar(epoca, total)``. Lección 05.

    Crea la barra en la primera llamada (si se reanuda en la época 31, empieza en 30 de 60) y
    la cierra al llegar a la última época.
    """

    def __init__(self, descripcion: str):
        self.descripcion = descripcion
        self._barra = None

    def __call__(self, epoca: int, total: int) -> None:
        if self._barra is None:
            self._barra = barra(total, self.descripcion, inicial=epoca - 1)
        self._barra.update(epoca - self._barra.n)
        if epoca >= total:
            self.cerrar()

    def cerrar(self) -> None:
        """Cierra la barra (en una terminal, pasa a la línea siguiente)."""
        if self._barra is not None:
            self._barra.close()


def _html_barra(izquierda: str, hechos: int, total: int, derecha: str, estado: str = "en curso") -> str:
    """La barra en HTML fijo: texto, una franja rellena y más texto, como el widget de tqdm. Lección 05."""
    fraccion = min(max(hechos / total, 0.0), 1.0) if total else 0.0
    return (
        "<div class='curso-barra' style='display:flex;align-items:center;gap:0.4em;"
        "font-family:monospace;white-space:pre'>"
        f"<span>{html.escape(izquierda)}</span>"
        f"<span role='progressbar' aria-valuenow='{hechos}' aria-valuemax='{total}' "
        "style='flex:2;min-width:6em;height:1.4em;background:#eeeeee'>"
        f"<span style='display:block;height:100%;width:{fraccion:.1%};background:{_COLORES_BARRA[estado]}'></span>"
        "</span>"
        f"<span>{html.escape(derecha)}</span></div>"
    )


@functools.cache
def _barra_notebook(base):
    """La ``tqdm`` de notebook (``base``) que, al cerrarse, deja en la celda una copia fija."""
    from IPython.display import display, update_display

    class BarraNotebook(base):
        """El widget de ``tqdm.notebook`` de siempre mientras avanza; al cerrarse, su copia fija."""

        def __init__(self, *args, **kwargs):
            kwargs["display"] = False  # la mostramos nosotros, con un identificador para rehacerla
            super().__init__(*args, **kwargs)
            if not self.disable:
                self._id_salida = f"curso-barra-{uuid.uuid4().hex}"
                vista = {"version_major": 2, "version_minor": 0, "model_id": self.container.model_id}
                # Lo mismo que muestra ipywidgets (7 y 8): en vivo, nada cambia.
                display({VISTA_WIDGET: vista, "text/plain": repr(self.container)}, raw=True,
                        display_id=self._id_salida)
                self.displayed = True

        def foto(self, estado: str) -> dict:
            """El estado de ahora como texto y HTML (``text/plain`` y ``text/html``)."""
            formato = dict(self.format_dict, ascii=False)  # una sola lectura: texto y HTML dicen lo mismo
            texto = self.format_meter(**formato)
            formato["bar_format"] = (formato["bar_format"] or "{l_bar}<bar/>{r_bar}").replace("{bar}", "<bar/>")
            partes = re.split(r"\|?<bar/>\|?", self.format_meter(**formato), maxsplit=1)
            izquierda, derecha = partes if len(partes) == 2 else ("", partes[0])
            return {"text/plain": texto, "text/html": _html_barra(izquierda, self.n, self.total, derecha, estado)}

        def close(self):
            if self.disable:  # ya cerrada (tqdm pone disable=True al cerrar)
                return
            super().close()
            estado = "cortada" if self.total and self.n < self.total else "terminada"
            # Sin la vista del widget: la copia fija se lee igual en Jupyter, Colab y una página exportada.
            update_display(self.foto(estado) if self.leave else {"text/plain": ""}, raw=True,
                           display_id=self._id_salida)

    return BarraNotebook
