"""Una barra de progreso que funciona en un notebook (ipywidgets) y en una terminal (texto)."""

from __future__ import annotations

import sys
import time


def en_notebook() -> bool:
    """True si el código corre dentro de un kernel de Jupyter o Colab."""
    ipython = sys.modules.get("IPython")
    if ipython is None:
        return False
    try:
        shell = ipython.get_ipython()
    except Exception:
        return False
    return shell is not None and "IPKernelApp" in getattr(shell, "config", {})


class BarraProgreso:
    """Barra de progreso sencilla: ``avanzar()`` cada paso, ``cerrar()`` al final.

    En un notebook muestra un ``IntProgress`` de ipywidgets con un texto al lado; en una
    terminal, una línea ``[#####.....] 50 %`` en stderr. Con ``silenciosa=True`` no
    muestra nada. Se puede usar como ``with BarraProgreso(120, "Entrenando") as barra:``.
    """

    def __init__(self, total: int, descripcion: str = "", silenciosa: bool = False, salida=None):
        self.total = max(int(total), 1)
        self.hecho = 0
        self.descripcion = descripcion
        self.texto = ""
        self.silenciosa = silenciosa
        self._salida = salida or sys.stderr
        self._widget = None
        self._ultimo = 0.0
        if silenciosa:
            return
        if en_notebook():
            try:
                import ipywidgets as widgets
                from IPython.display import display
            except ImportError:
                pass
            else:
                self._barra = widgets.IntProgress(value=0, min=0, max=self.total, description=descripcion)
                self._etiqueta = widgets.Label(value="")
                self._widget = widgets.HBox([self._barra, self._etiqueta])
                from .widgets import con_respaldo_html

                con_respaldo_html(self._widget, self.html_estatico, descripcion or "Barra de progreso")
                display(self._widget)
        self._dibujar(forzar=True)

    def avanzar(self, pasos: int = 1, texto: str | None = None) -> None:
        """Suma ``pasos`` y, si se da, cambia el texto que acompaña a la barra."""
        self.hecho = min(self.hecho + pasos, self.total)
        if texto is not None:
            self.texto = texto
        self._dibujar(forzar=self.hecho == self.total or texto is not None)

    def _dibujar(self, forzar: bool = False) -> None:
        if self.silenciosa:
            return
        if self._widget is not None:
            self._barra.value = self.hecho
            self._etiqueta.value = f"{self.hecho}/{self.total} {self.texto}"
            return
        ahora = time.perf_counter()
        if not forzar and ahora - self._ultimo < 0.1:
            return
        self._ultimo = ahora
        ancho = 30
        llenas = int(ancho * self.hecho / self.total)
        porcentaje = 100 * self.hecho / self.total
        self._salida.write(
            f"\r{self.descripcion} [{'#' * llenas}{'.' * (ancho - llenas)}] {porcentaje:3.0f} % {self.texto}"
        )
        self._salida.flush()

    def html_estatico(self) -> str:
        """La barra como HTML fijo, para una copia exportada del notebook (sin widgets vivos)."""
        import html

        porcentaje = 100 * self.hecho / self.total
        return (f"<div class='curso-barra-estatica' style='display:flex;align-items:center;gap:8px'>"
                f"<span>{html.escape(self.descripcion)}</span>"
                f"<progress value='{self.hecho}' max='{self.total}'></progress>"
                f"<span>{self.hecho}/{self.total} ({porcentaje:.0f} %) {html.escape(self.texto)}</span></div>")

    def cerrar(self) -> None:
        """Termina la barra (en una terminal, pasa a la línea siguiente)."""
        if self._widget is not None:
            self._widget.actualizar_respaldo()  # la copia exportada muestra cómo terminó
        if not self.silenciosa and self._widget is None:
            self._dibujar(forzar=True)
            self._salida.write("\n")
            self._salida.flush()

    def __enter__(self) -> "BarraProgreso":
        return self

    def __exit__(self, *exc) -> None:
        self.cerrar()
