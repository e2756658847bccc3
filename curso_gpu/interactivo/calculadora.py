"""La calculadora interactiva de VRAM de la lección 04.

Dos piezas:

- ``CalculadoraVRAM``: la lógica, sin widgets. Guarda lo elegido (parámetros, GPU, VRAM,
  precisión, margen) y ``actualizar()`` calcula la tabla, el veredicto o el error. Un test
  la maneja sin navegador.
- ``calculadora_vram(...)``: los controles de ipywidgets (solo widgets básicos, válidos en
  ipywidgets 7.7.1 de Colab y en 8) conectados a esa lógica. ipywidgets y matplotlib se
  importan solo aquí dentro.
"""

from __future__ import annotations

import html
from dataclasses import dataclass

from ..base import catalogo
from ..memoria import BYTES_POR_PARAMETRO, MARGEN_INFERENCIA, TablaVRAM, precision_de_modelo, tabla_vram
from ..graficos import figura_a_png, grafico_vram
from .widgets import con_respaldo_html

__all__ = ["CalculadoraVRAM", "EstadoCalculadora", "calculadora_vram"]

_OPCION_ESCRIBIR = "(escribe los parámetros)"
"""Opción del desplegable de modelos cuando el texto no es un modelo del catálogo."""

_OPCION_A_MANO = "(memoria a mano)"
"""Opción del desplegable de GPU cuando la VRAM no coincide con ninguna del catálogo."""

_CLASES_CSS = {
    "parametros": "curso-vram-parametros",
    "modelo": "curso-vram-modelo",
    "gpu": "curso-vram-gpu",
    "vram": "curso-vram-vram",
    "precision": "curso-vram-precision",
    "margen": "curso-vram-margen",
    "tabla": "curso-vram-tabla",
    "veredicto": "curso-vram-veredicto",
    "grafico": "curso-vram-grafico",
}
"""Clases CSS de cada control, para las pruebas de extremo a extremo en un navegador."""


@dataclass
class EstadoCalculadora:
    """Lo que muestra la calculadora tras ``actualizar()``: la tabla o el error, y la frase."""

    tabla: TablaVRAM | None
    veredicto: str
    error: str | None = None
    cabe: bool | None = None  # según la precisión elegida; None si hay un error

    def html_tabla(self) -> str:
        """La tabla; vacía si hubo un error (el error ya sale, una sola vez, en el veredicto)."""
        return "" if self.tabla is None else self.tabla._repr_html_()

    def html_veredicto(self) -> str:
        if self.error is not None:
            return f"<b style='color:#cf222e'>⚠ {html.escape(self.veredicto)}</b>"
        color = "#1a7f37" if self.cabe else "#cf222e"
        return f"<b style='color:{color}'>{html.escape(self.veredicto)}</b>"


class CalculadoraVRAM:
    """La lógica de la calculadora de VRAM, sin widgets. Lección 04.

    Cambia los atributos (o usa ``elegir_modelo``, ``elegir_gpu``, ``fijar_vram``) y llama a
    ``actualizar()``: devuelve un ``EstadoCalculadora`` con la tabla, el veredicto o el error.
    Un texto ilegible en ``parametros`` da el error en español, nunca una excepción.
    """

    def __init__(self, parametros="Llama 3 8B", gpu: str | None = "NVIDIA T4", vram_gb: float | None = None,
                 precision: str = "fp16", margen: float = MARGEN_INFERENCIA):
        self.parametros = parametros
        self.gpu = _OPCION_A_MANO
        self.vram_gb = 16.0
        if gpu is not None and gpu != _OPCION_A_MANO:
            self.elegir_gpu(catalogo.buscar_gpu(gpu).nombre)
        if vram_gb is not None:
            self.fijar_vram(vram_gb)
        self.precision = precision_de_modelo(precision)
        self.margen = margen
        self.estado: EstadoCalculadora | None = None
        self.actualizar()

    # -- cambios que hacen los controles ------------------------------------------------

    def modelo_elegido(self) -> str:
        """El nombre del catálogo si ``parametros`` es uno de sus modelos; si no, _OPCION_ESCRIBIR."""
        modelo = catalogo.buscar_modelo(self.parametros) if isinstance(self.parametros, str) else None
        return modelo.nombre if modelo else _OPCION_ESCRIBIR

    def elegir_modelo(self, nombre: str) -> None:
        """Pone en ``parametros`` un modelo del catálogo (_OPCION_ESCRIBIR no cambia nada)."""
        if nombre != _OPCION_ESCRIBIR:
            self.parametros = nombre

    def elegir_gpu(self, nombre: str) -> None:
        """Elige una GPU del catálogo: su memoria pasa a ``vram_gb``."""
        if nombre == _OPCION_A_MANO:
            self.gpu = _OPCION_A_MANO
            return
        gpu = catalogo.buscar_gpu(nombre)
        self.gpu = gpu.nombre
        self.vram_gb = float(gpu.memoria_gb)

    def fijar_vram(self, vram_gb: float) -> None:
        """Escribe la VRAM a mano; si ya no coincide con la GPU elegida, pasa a _OPCION_A_MANO."""
        self.vram_gb = vram_gb
        if self.gpu in catalogo.GPUS and catalogo.GPUS[self.gpu].memoria_gb != vram_gb:
            self.gpu = _OPCION_A_MANO

    # -- el cálculo ---------------------------------------------------------------------

    def actualizar(self) -> EstadoCalculadora:
        """Recalcula la tabla y el veredicto con lo elegido. Nunca lanza por una entrada mala."""
        try:
            if isinstance(self.parametros, str) and not self.parametros.strip():
                raise ValueError("Escribe el número de parámetros (p. ej. '8B') o elige un modelo del catálogo.")
            tabla = tabla_vram(self.parametros, self.vram_gb, self.margen)
            precision = precision_de_modelo(self.precision)
        except ValueError as error:
            self.estado = EstadoCalculadora(None, str(error), str(error))
            return self.estado
        self.estado = EstadoCalculadora(tabla, tabla.veredicto(precision), None, tabla.fila(precision).cabe)
        return self.estado

    def figura(self):
        """La figura de barras (``graficos.grafico_vram``) del último cálculo; None si hubo error."""
        estado = self.estado or self.actualizar()
        if estado.tabla is None:
            return None

        return grafico_vram(estado.tabla, destacar=precision_de_modelo(self.precision))


def _png(figura) -> bytes:
    return figura_a_png(figura)


def calculadora_vram(parametros="Llama 3 8B", gpu: str | None = "NVIDIA T4", vram_gb: float | None = None,
                     precision: str = "fp16", margen: float = MARGEN_INFERENCIA, grafico: bool = True):
    """La calculadora interactiva de VRAM (ipywidgets). Lección 04.

    Escribe los parámetros ("8B") o elige un modelo del catálogo; elige una GPU o escribe su
    memoria; elige la precisión y el margen. La tabla, la frase y el gráfico de barras se
    actualizan al momento. Devuelve la caja de widgets (muéstrala dejándola al final de la
    celda); ``caja.calculadora`` es la ``CalculadoraVRAM`` y ``caja.controles`` los widgets.
    """
    import ipywidgets as widgets

    logica = CalculadoraVRAM(parametros, gpu, vram_gb, precision, margen)
    estilo = {"description_width": "90px"}
    ancho = widgets.Layout(width="360px")
    controles = {
        "parametros": widgets.Text(value=str(logica.parametros), description="Parámetros",
                                   placeholder="p. ej. 8B, 124M o Llama 3 8B", style=estilo, layout=ancho),
        "modelo": widgets.Dropdown(options=[_OPCION_ESCRIBIR, *catalogo.MODELOS], value=logica.modelo_elegido(),
                                   description="Modelo", style=estilo, layout=ancho),
        "gpu": widgets.Dropdown(options=[_OPCION_A_MANO, *catalogo.GPUS], value=logica.gpu,
                                description="GPU", style=estilo, layout=ancho),
        "vram": widgets.FloatText(value=float(logica.vram_gb), description="VRAM (GB)", step=1.0,
                                  style=estilo, layout=ancho),
        "precision": widgets.Dropdown(options=list(BYTES_POR_PARAMETRO), value=logica.precision,
                                      description="Precisión", style=estilo, layout=ancho),
        "margen": widgets.FloatSlider(value=float(margen), min=1.0, max=2.0, step=0.05, readout_format=".2f",
                                      description="Margen", style=estilo, layout=ancho),
        "veredicto": widgets.HTML(value=""),
        "tabla": widgets.HTML(value=""),
        "grafico": widgets.Image(value=b"", format="png", layout=widgets.Layout(width="560px")),
    }
    for clave, control in controles.items():
        control.add_class(_CLASES_CSS[clave])
    ocupado = {"si": False}  # mientras se sincronizan dos controles, los observadores esperan

    def refrescar() -> None:
        estado = logica.actualizar()
        controles["veredicto"].value = estado.html_veredicto()
        controles["tabla"].value = estado.html_tabla()
        if grafico:
            figura = logica.figura()
            controles["grafico"].value = _png(figura) if figura is not None else b""
            controles["grafico"].layout.display = None if figura is not None else "none"

    def poner_valor(clave: str, valor) -> None:
        ocupado["si"] = True
        try:
            controles[clave].value = valor
        finally:
            ocupado["si"] = False

    def al_cambiar(clave: str):
        def manejador(cambio) -> None:
            if ocupado["si"]:
                return
            nuevo = cambio["new"]
            if clave == "parametros":
                logica.parametros = nuevo
                poner_valor("modelo", logica.modelo_elegido())
            elif clave == "modelo":
                if nuevo == _OPCION_ESCRIBIR:
                    return
                logica.elegir_modelo(nuevo)
                poner_valor("parametros", nuevo)
            elif clave == "gpu":
                logica.elegir_gpu(nuevo)
                poner_valor("vram", float(logica.vram_gb))
            elif clave == "vram":
                logica.fijar_vram(nuevo)
                poner_valor("gpu", logica.gpu)
            elif clave == "precision":
                logica.precision = nuevo
            elif clave == "margen":
                logica.margen = nuevo
            refrescar()
        return manejador

    for clave in ("parametros", "modelo", "gpu", "vram", "precision", "margen"):
        controles[clave].observe(al_cambiar(clave), names="value")
    refrescar()

    caja = widgets.VBox([
        widgets.HTML(value="<b>Calculadora de VRAM</b>: ¿cabe el modelo en tu GPU?"),
        widgets.HBox([widgets.VBox([controles["parametros"], controles["modelo"], controles["precision"]]),
                      widgets.VBox([controles["gpu"], controles["vram"], controles["margen"]])]),
        controles["veredicto"],
        widgets.HBox([controles["tabla"], controles["grafico"]]),
    ])
    caja.add_class("curso-vram")
    caja.calculadora = logica
    caja.controles = controles

    def html_estatico() -> str:
        estado = logica.estado or logica.actualizar()
        quien = html.escape(f"{logica.parametros} en {logica.gpu or 'una GPU'} de {logica.vram_gb:g} GB, "
                            f"{logica.precision}, margen {logica.margen:.2f}")
        return (f"<div class='curso-vram-estatica'><b>Calculadora de VRAM</b> "
                f"<i>(copia fija; en Jupyter o Colab puedes cambiar los valores)</i><br>{quien}<br>"
                f"{estado.html_veredicto()}{estado.html_tabla()}</div>")


    return con_respaldo_html(caja, html_estatico, "Calculadora de VRAM (ábrela en Jupyter o Colab)")
