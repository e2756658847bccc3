"""Los controles interactivos de la lección 05 (ipywidgets, solo widgets básicos).

- ``selector_dispositivo()``: elegir CPU o GPU (sustituye al cuadro «sí/no» de Tk del texto
  base). Solo se muestra si hay GPU y ya trae una elección por defecto.
- ``pizarra(modelo, dispositivo)``: una cuadrícula de 8×8 para dibujar una línea y pedir una
  predicción. Su lógica es ``LogicaPizarra``, una clase normal que se prueba sin navegador.

ipywidgets se importa solo dentro de las funciones que lo usan. Funciona con ipywidgets
7.7.1 (el de Google Colab) y con 8: solo Button, ToggleButtons, GridBox, HTML, HBox y VBox.
"""

from __future__ import annotations

import html

import torch

from ..base import VISTA_WIDGET, leer_numero
from ..entrenamiento import LADO
from ..dispositivo import dispositivos_disponibles, elegir_dispositivo

AVISO_VACIA = "Debes dibujar algo antes de predecir."
AVISO_INACTIVA = "La cuadrícula se activará al terminar el entrenamiento."
LISTA = "Modelo listo: dibuja una línea (haz clic en las celdas) y pulsa «Predecir»."
COLOR_PINTADA = "black"
COLOR_VACIA = "white"


def _widgets():
    import ipywidgets

    return ipywidgets


def _mostrar(widget) -> None:
    from IPython.display import display

    display(widget)


# ---------------------------------------------------------------------------
# Una foto HTML para las copias exportadas (nbconvert, una web del curso)
# ---------------------------------------------------------------------------

CLASE_COPIA_FIJA = "curso-copia-fija"

# La segunda salida (la copia fija suelta) nace oculta: en Jupyter, Colab o VS Code nunca se ve.
# Solo se muestra justo detrás de una vista de widget que ninguna biblioteca dibujó: el
# ``<script type="…widget-view+json">`` que deja ``nbconvert`` sin el ``.widget-subarea`` que
# inserta ``@jupyter-widgets/html-manager`` al dibujarla (lib/libembed.js, ``renderManager``).
# Plantilla «lab» (la de ``--to html``) y «classic». Un navegador sin ``:has()`` la deja oculta.
_VISTA_SIN_DIBUJAR = (
    "{salida}:has(> {area} > script[type='application/vnd.jupyter.widget-view+json'])"
    ":not(:has(.widget-subarea)) + {salida}")
_CSS_COPIA_FIJA = "".join(
    f"{_VISTA_SIN_DIBUJAR.format(salida=salida, area=area)} .{CLASE_COPIA_FIJA}{{display:block !important}}"
    f"{salida}:has(.{CLASE_COPIA_FIJA}){{display:none}}"
    f"{_VISTA_SIN_DIBUJAR.format(salida=salida, area=area)}:has(.{CLASE_COPIA_FIJA}){{display:flex}}"
    for salida, area in ((".jp-OutputArea-child", ".jupyter-widgets"), (".output_area", ".output_widget_view")))


def con_respaldo_html(widget, html_actual, texto: str = ""):
    """Muestra ``widget`` como siempre y guarda, junto a él, una foto HTML de su estado.

    En Jupyter, Colab y VS Code se ve solo el widget vivo. Una copia exportada (nbconvert a
    HTML) lee la foto ``html_actual()`` en lugar de ``VBox(children=…)`` o de un hueco en blanco:

    - sin el estado de los widgets guardado, la salida del widget trae la foto como HTML;
    - con el estado guardado (``nbconvert --execute`` lo guarda por defecto), nbconvert elige la
      vista del widget, que sin red queda en blanco. Por eso se muestra una segunda salida, oculta,
      que una regla CSS enseña solo si esa vista no llegó a dibujarse.

    ``actualizar()`` (si se llama) rehace las dos fotos con el estado de ese momento. Devuelve el
    mismo widget.
    """
    import uuid

    identificador = f"curso-{uuid.uuid4().hex}"

    def mimebundle(foto: str | None = None) -> dict:
        datos = {}
        generar = getattr(type(widget), "_repr_mimebundle_", None)
        if generar is not None:
            datos = dict(generar(widget) or {})
        if VISTA_WIDGET not in datos:  # ipywidgets 7 (Colab) no lo da por este camino
            datos[VISTA_WIDGET] = {"version_major": 2, "version_minor": 0, "model_id": widget.model_id}
        datos["text/plain"] = texto or type(widget).__name__
        datos["text/html"] = html_actual() if foto is None else foto
        return datos

    def copia_fija(foto: str | None = None) -> dict:
        foto = html_actual() if foto is None else foto
        return {"text/plain": "",
                "text/html": (f"<div class='{CLASE_COPIA_FIJA}' hidden style='display:none'>{foto}</div>"
                              f"<style>{_CSS_COPIA_FIJA}</style>")}

    def mostrar() -> None:
        from IPython.display import display

        foto = html_actual()  # una sola foto para las dos salidas
        display(mimebundle(foto), raw=True, display_id=identificador)
        display(copia_fija(foto), raw=True, display_id=f"{identificador}-fija")
        widget._respaldo_mostrado = True

    def actualizar() -> None:
        if getattr(widget, "_respaldo_mostrado", False):
            from IPython.display import update_display

            foto = html_actual()
            update_display(mimebundle(foto), raw=True, display_id=identificador)
            update_display(copia_fija(foto), raw=True, display_id=f"{identificador}-fija")

    widget._ipython_display_ = mostrar
    widget.mimebundle_estatico = mimebundle
    widget.copia_fija = copia_fija
    widget.actualizar_respaldo = actualizar
    return widget


# ---------------------------------------------------------------------------
# Elegir el dispositivo
# ---------------------------------------------------------------------------

class SelectorDispositivo:
    """La elección de dispositivo. ``dispositivo`` es siempre un ``torch.device`` válido."""

    def __init__(self, opciones: list[str], por_defecto: str):
        self.opciones = list(opciones)
        self._elegido = por_defecto
        self.widget = None

    @property
    def dispositivo(self) -> torch.device:
        return torch.device(self._elegido)

    def elegir(self, nombre: str) -> torch.device:
        if nombre not in self.opciones:
            raise ValueError(f"Dispositivo {nombre!r} no disponible aquí; elige uno de: {', '.join(self.opciones)}.")
        self._elegido = nombre
        if self.widget is not None and self.widget.value != nombre:
            self.widget.value = nombre
            self.widget.actualizar_respaldo()  # el cambio vino del código: la copia fija lo recoge
        return self.dispositivo

    def html_estatico(self) -> str:
        """La elección como HTML fijo (para una copia exportada)."""
        return (f"<div class='curso-selector-estatico'><b>Entrenar en:</b> {html.escape(self._elegido)} "
                f"<i>(copia fija: en Jupyter o Colab aquí puedes elegir entre "
                f"{html.escape(', '.join(self.opciones))})</i></div>")

    def __repr__(self) -> str:
        return f"SelectorDispositivo(dispositivo='{self._elegido}', opciones={self.opciones})"


def selector_dispositivo(mostrar: bool = True) -> SelectorDispositivo:
    """Elegir dónde entrenar, sin cuadros de diálogo que bloqueen el notebook. Lección 05.

    Si hay GPU, muestra unos botones (GPU o CPU) con la GPU elegida por defecto (como
    responder «sí» a «¿Deseas usar la GPU?»); si no hay, dice que se usará la CPU. La variable
    ``CURSO_GPU_DISPOSITIVO`` manda sobre el valor por defecto. Lee la elección con
    ``selector.dispositivo`` en la celda siguiente.
    """
    opciones = dispositivos_disponibles()
    por_defecto = str(elegir_dispositivo("auto"))
    if por_defecto == "cuda" and "cuda:0" in opciones:
        por_defecto = "cuda:0"
    if por_defecto not in opciones:
        por_defecto = opciones[0]
    selector = SelectorDispositivo(opciones, por_defecto)
    if len(opciones) == 1:
        if mostrar:
            print("No se detectó ninguna GPU: se usará la CPU (todo funciona igual, solo más despacio).")
        return selector
    w = _widgets()
    botones = w.ToggleButtons(options=opciones, value=por_defecto, description="Entrenar en:")
    botones.add_class("curso-selector-dispositivo")
    botones.observe(lambda cambio: selector.elegir(cambio["new"]), names="value")
    selector.widget = con_respaldo_html(botones, selector.html_estatico, f"Entrenar en: {por_defecto}")
    if mostrar:
        print(f"Se detectó una GPU. Por defecto se usará {por_defecto}; puedes elegir otra opción "
              "y volver a ejecutar las celdas siguientes.")
        _mostrar(botones)
    return selector


# ---------------------------------------------------------------------------
# La pizarra: primero la lógica, sin widgets
# ---------------------------------------------------------------------------

class LogicaPizarra:
    """El estado de la cuadrícula de 8×8 y lo que hacen sus botones. Lección 05.

    No sabe nada de widgets: un test puede pintar celdas, pedir una predicción y leer
    el resultado.
    """

    def __init__(self, modelo=None, dispositivo=None):
        self.celdas = [[0] * LADO for _ in range(LADO)]
        self.modelo = None
        self.dispositivo = None
        if modelo is not None:
            self.habilitar(modelo, dispositivo)

    @property
    def activa(self) -> bool:
        """True cuando ya hay un modelo entrenado para predecir."""
        return self.modelo is not None

    @property
    def vacia(self) -> bool:
        return not any(any(fila) for fila in self.celdas)

    def _comprobar(self, fila, col) -> None:
        for nombre, valor in (("fila", fila), ("col", col)):
            leer_numero(valor, nombre, entero=True, minimo=0, maximo=LADO - 1)

    def pintar(self, fila: int, col: int) -> None:
        """Pinta la celda (fila, col)."""
        self._comprobar(fila, col)
        self.celdas[fila][col] = 1

    def alternar(self, fila: int, col: int) -> int:
        """Pinta la celda si estaba vacía y la borra si estaba pintada; devuelve su valor nuevo."""
        self._comprobar(fila, col)
        self.celdas[fila][col] = 1 - self.celdas[fila][col]
        return self.celdas[fila][col]

    def limpiar(self) -> None:
        """Deja todas las celdas vacías."""
        self.celdas = [[0] * LADO for _ in range(LADO)]

    def habilitar(self, modelo, dispositivo=None) -> None:
        """Activa la predicción con un modelo ya entrenado (en ``dispositivo``).

        ``dispositivo`` acepta lo mismo que ``elegir_dispositivo`` ('cpu', 'cuda:0', 'mps'...);
        un nombre que no existe ('gpu') da un ``ValueError`` con las opciones válidas.
        """
        from ..dispositivo import dispositivo_del_modelo

        if dispositivo is None:
            dispositivo = dispositivo_del_modelo(modelo)
        elif not isinstance(dispositivo, torch.device):
            dispositivo = elegir_dispositivo(dispositivo)
        self.modelo = modelo
        self.dispositivo = dispositivo

    def como_tensor(self) -> torch.Tensor:
        """La cuadrícula como tensor float32 de 8×8 (0 vacío, 1 pintado)."""
        return torch.tensor(self.celdas, dtype=torch.float32)

    def predecir(self):
        """La ``Prediccion`` del modelo, o un texto de aviso si no hay modelo o la cuadrícula está vacía."""
        from ..entrenamiento import predecir

        if not self.activa:
            return AVISO_INACTIVA
        if self.vacia:
            return AVISO_VACIA
        return predecir(self.modelo, self.como_tensor(), self.dispositivo)


# ---------------------------------------------------------------------------
# La pizarra con widgets
# ---------------------------------------------------------------------------

class Pizarra:
    """La cuadrícula con botones «Predecir» y «Limpiar». Lección 05.

    Clases CSS para las pruebas en navegador: cada celda ``curso-celda`` (64, por filas),
    ``curso-predecir``, ``curso-limpiar``, ``curso-resultado`` y ``curso-aviso``.
    """

    def __init__(self, modelo=None, dispositivo=None, tamano_celda: int = 34):
        w = _widgets()
        self.logica = LogicaPizarra()
        lado = f"{tamano_celda}px"
        self.celdas = []
        for fila in range(LADO):
            for col in range(LADO):
                celda = w.Button(description="", layout=w.Layout(width=lado, height=lado, padding="0px", border="1px solid #999"),
                                 tooltip=f"fila {fila}, columna {col}")
                celda.style.button_color = COLOR_VACIA
                celda.add_class("curso-celda")
                celda.on_click(self._como_clic(lambda f=fila, c=col: self.alternar(f, c)))
                self.celdas.append(celda)
        self.cuadricula = w.GridBox(
            self.celdas, layout=w.Layout(grid_template_columns=f"repeat({LADO}, {lado})", grid_gap="2px"))
        self.boton_predecir = w.Button(description="Predecir", button_style="primary")
        self.boton_predecir.add_class("curso-predecir")
        self.boton_predecir.on_click(self._como_clic(self.predecir))
        self.boton_limpiar = w.Button(description="Limpiar")
        self.boton_limpiar.add_class("curso-limpiar")
        self.boton_limpiar.on_click(self._como_clic(self.limpiar))
        self.estado = w.HTML(value=html.escape(AVISO_INACTIVA))
        self.aviso = w.HTML(value="")
        self.aviso.add_class("curso-aviso")
        self.resultado = w.HTML(value="")
        self.resultado.add_class("curso-resultado")
        self.widget = w.VBox([
            self.estado, self.cuadricula, w.HBox([self.boton_predecir, self.boton_limpiar]), self.aviso, self.resultado,
        ])
        con_respaldo_html(self.widget, self.html_estatico, "Pizarra de 8×8 (ábrela en Jupyter o Colab para dibujar)")
        self._activar(False)
        if modelo is not None:
            self.habilitar(modelo, dispositivo)

    def html_estatico(self) -> str:
        """La pizarra como HTML fijo (para una copia exportada): la cuadrícula, el estado y el resultado."""
        celdas = "".join(
            f"<div style='width:14px;height:14px;border:1px solid #999;"
            f"background:{COLOR_PINTADA if self.logica.celdas[f][c] else COLOR_VACIA}'></div>"
            for f in range(LADO) for c in range(LADO))
        return (f"<div class='curso-pizarra-estatica'><div>{self.estado.value}</div>"
                f"<div style='display:grid;grid-template-columns:repeat({LADO},16px);gap:1px;margin:4px 0'>{celdas}</div>"
                f"<div><i>(Copia fija: en Jupyter o Colab aquí hay una pizarra para dibujar.)</i></div>"
                f"{self.aviso.value}{self.resultado.value}</div>")

    def _como_clic(self, accion):
        """El manejador de un botón: hace ``accion()`` sin rehacer la copia fija (ver ``_tras_cambiar``)."""
        def al_pulsar(_boton):
            self._en_clic = True
            try:
                accion()
            finally:
                self._en_clic = False
        return al_pulsar

    def _tras_cambiar(self) -> None:
        """Rehace la copia fija si el cambio vino del código de una celda. Tras un clic no: en vivo,
        rehacerla vuelve a dibujar el widget bajo el ratón, y la copia solo cuenta al guardar."""
        if not getattr(self, "_en_clic", False):
            self.widget.actualizar_respaldo()

    def _activar(self, activa: bool) -> None:
        for control in [*self.celdas, self.boton_predecir, self.boton_limpiar]:
            control.disabled = not activa

    def _pintar_celda(self, fila: int, col: int) -> None:
        pintada = self.logica.celdas[fila][col] == 1
        self.celdas[fila * LADO + col].style.button_color = COLOR_PINTADA if pintada else COLOR_VACIA

    @property
    def activa(self) -> bool:
        return self.logica.activa

    def habilitar(self, modelo, dispositivo=None) -> None:
        """Activa la cuadrícula y los botones (llámalo cuando termine el entrenamiento)."""
        self.logica.habilitar(modelo, dispositivo)
        self._activar(True)
        self.estado.value = html.escape(LISTA)
        self.widget.actualizar_respaldo()

    def alternar(self, fila: int, col: int) -> None:
        self.logica.alternar(fila, col)
        self._pintar_celda(fila, col)
        self.aviso.value = ""
        self._tras_cambiar()

    def pintar(self, fila: int, col: int) -> None:
        self.logica.pintar(fila, col)
        self._pintar_celda(fila, col)
        self.aviso.value = ""
        self._tras_cambiar()

    def limpiar(self) -> None:
        self.logica.limpiar()
        for celda in self.celdas:
            celda.style.button_color = COLOR_VACIA
        self.aviso.value = ""
        self.resultado.value = "Cuadrícula limpia."
        self._tras_cambiar()

    def predecir(self):
        """Pide la predicción y la muestra; devuelve la ``Prediccion`` o el aviso."""
        resultado = self.logica.predecir()
        if isinstance(resultado, str):
            self.aviso.value = f"<b style='color:#b00'>⚠ {html.escape(resultado)}</b>"
            self._tras_cambiar()
            return resultado
        self.aviso.value = ""
        self.resultado.value = resultado._repr_html_()  # la tabla de la Predicción, con sus barras
        self._tras_cambiar()  # la copia fija (una página exportada) también la muestra
        return resultado

    def _ipython_display_(self):
        _mostrar(self.widget)


def pizarra(modelo=None, dispositivo=None) -> Pizarra:
    """La cuadrícula de 8×8 para dibujar y pedir predicciones. Lección 05.

    Sin modelo, aparece desactivada («se activará al terminar el entrenamiento»); al
    terminar, llama a ``pizarra.habilitar(modelo, dispositivo)``.
    """
    return Pizarra(modelo, dispositivo)


