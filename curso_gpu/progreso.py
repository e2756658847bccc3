"""Barras de progreso con ``tqdm.auto``: un widget en Jupyter y Colab, una línea en una terminal.

``tqdm`` es la barra estándar del ecosistema (la usan PyTorch y Hugging Face, y ya viene en
Colab). ``tqdm.auto`` elige sola la versión del notebook o la de la terminal. Se importa
dentro de las funciones: ``import curso_gpu`` no la carga.

En un notebook, la barra guarda además una foto de su estado (texto y HTML) en la salida de
la celda y la rehace al cerrarse: una copia guardada o exportada (nbconvert a HTML) muestra
el estado final («100%|██████| 30/30 …»), no el 0 % del comienzo ni un hueco en blanco.
"""

from __future__ import annotations

import functools
import html
import re

# El tipo MIME con el que Jupyter y Colab dibujan un widget vivo (el mismo en ipywidgets 7 y 8).
VISTA_WIDGET = "application/vnd.jupyter.widget-view+json"
# Colores de la barra de tqdm.notebook: en curso, terminada y cortada (bar_style de ipywidgets).
COLORES = {"en curso": "#2196f3", "terminada": "#5cb85c", "cortada": "#d9534f"}


def barra(total: int, descripcion: str = "", silenciosa: bool = False, inicial: int = 0):
    """Una barra de ``tqdm.auto`` de ``total`` pasos; con ``silenciosa=True`` no muestra nada.

    Se usa como ``with barra(10, "Barrido") as b: ... b.update(1)``.
    """
    import sys

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


def html_barra(izquierda: str, hechos: int, total: int, derecha: str, estado: str = "en curso") -> str:
    """La barra en HTML estático: texto, una franja rellena y más texto, como el widget de tqdm."""
    fraccion = min(max(hechos / total, 0.0), 1.0) if total else 0.0
    return (
        "<div class='curso-barra' style='display:flex;align-items:center;gap:0.5em;"
        "font-family:monospace;white-space:pre'>"
        f"<span>{html.escape(izquierda)}</span>"
        f"<span role='progressbar' aria-valuenow='{hechos}' aria-valuemax='{total}' "
        "style='flex:0 1 24em;min-width:6em;height:1.1em;background:#e0e0e0;display:inline-block'>"
        f"<span style='display:block;height:100%;width:{fraccion:.1%};background:{COLORES[estado]}'></span>"
        "</span>"
        f"<span>{html.escape(derecha)}</span></div>"
    )


@functools.cache
def _barra_notebook(base):
    """La ``tqdm`` de notebook (``base``) que además deja una foto de su estado en la salida de la celda."""
    import uuid

    from IPython.display import display, update_display
    class BarraNotebook(base):
        """El widget de ``tqdm.notebook`` de siempre; su salida lleva también texto y HTML.

        En vivo se ve el widget (la vista del widget manda). Al cerrarse, la salida se
        rehace con el estado final: es lo que queda al guardar o exportar el notebook.
        """

        def __init__(self, *args, **kwargs):
            kwargs["display"] = False  # la mostramos nosotros, con foto
            super().__init__(*args, **kwargs)
            if not self.disable:
                self._id_foto = f"curso-barra-{uuid.uuid4().hex}"
                display(self.mimebundle_estatico(), raw=True, display_id=self._id_foto)
                self.displayed = True

        def mimebundle_estatico(self, estado: str = "en curso") -> dict:
            """La vista del widget, más el texto y el HTML del estado actual."""
            formato = dict(self.format_dict, ascii=False)  # una sola lectura: texto y HTML dicen lo mismo
            texto = self.format_meter(**formato)
            formato["bar_format"] = (formato["bar_format"] or "{l_bar}<bar/>{r_bar}").replace("{bar}", "<bar/>")
            partes = re.split(r"\|?<bar/>\|?", self.format_meter(**formato), maxsplit=1)
            izquierda, derecha = partes if len(partes) == 2 else ("", partes[0])
            return {
                VISTA_WIDGET: {"version_major": 2, "version_minor": 0, "model_id": self.container.model_id},
                "text/plain": texto,
                "text/html": html_barra(izquierda, self.n, self.total, derecha, estado),
            }

        def close(self):
            if self.disable:  # ya cerrada (tqdm pone disable=True al cerrar)
                return
            super().close()
            estado = "cortada" if self.total and self.n < self.total else "terminada"
            datos = self.mimebundle_estatico(estado) if self.leave else {"text/plain": ""}
            update_display(datos, raw=True, display_id=self._id_foto)

    return BarraNotebook
