"""Copias exportadas (nbconvert a HTML) de un notebook ya ejecutado: los widgets se leen, no salen
como ``VBox(children=…)``. Los widgets siguen funcionando igual en vivo."""

from __future__ import annotations

import nbformat
import torch
from nbconvert import HTMLExporter

from curso_gpu.interactivo import calculadora_vram
from curso_gpu.base import VISTA_WIDGET
from curso_gpu.interactivo import Pizarra


def _exportar(*bundles) -> str:
    """Un notebook con esas salidas (sin el estado de los widgets, como al exportar) pasado a HTML."""
    celda = nbformat.v4.new_code_cell("x")
    celda.outputs = [nbformat.v4.new_output("display_data", data=b) for b in bundles]
    cuaderno = nbformat.v4.new_notebook(cells=[celda])
    cuerpo, _ = HTMLExporter().from_notebook_node(cuaderno)
    return cuerpo


def test_la_calculadora_exportada_muestra_su_tabla_y_su_veredicto():
    caja = calculadora_vram("Llama 3 8B", "NVIDIA T4", grafico=False)
    bundle = caja.mimebundle_estatico()
    assert bundle[VISTA_WIDGET]["model_id"] == caja.model_id  # en vivo, el widget de siempre
    html = _exportar(bundle)
    assert "VBox(children" not in html
    assert "Calculadora de VRAM" in html and "NO cabe" in html and "Llama 3 8B" in html


def test_la_pizarra_exportada_muestra_la_cuadricula_con_lo_dibujado():
    pizarra = Pizarra()
    vacia = pizarra.widget.mimebundle_estatico()["text/html"]
    pizarra.habilitar(torch_modelo_trivial())
    for fila in range(8):
        pizarra.pintar(fila, 2)
    pizarra.predecir()
    dibujada = pizarra.widget.mimebundle_estatico()["text/html"]
    assert vacia.count("background:black") == 0 and dibujada.count("background:black") == 8
    html = _exportar(pizarra.widget.mimebundle_estatico())
    assert "VBox(children" not in html and "Predicción" in html


def test_la_barra_de_progreso_de_tqdm_exportada_se_lee_como_texto():
    from tqdm.notebook import tqdm

    barra = tqdm(total=4, desc="Entrenando", display=False)  # la que usa progreso.barra en un notebook
    barra.update(4)
    texto = repr(barra.container)  # su text/plain: lo que muestra una copia exportada
    barra.close()
    assert "Entrenando" in texto and "4/4" in texto and "HBox(children" not in texto


def torch_modelo_trivial():
    import torch

    return torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(64, 3))


def test_sin_la_foto_nbconvert_mostraria_el_texto_del_widget():
    caja = calculadora_vram(grafico=False)
    bundle = {k: v for k, v in caja.mimebundle_estatico().items() if k != "text/html"}
    bundle["text/plain"] = repr(caja)
    assert "VBox(children" in _exportar(bundle)  # lo que pasaba antes: por eso hace falta la foto


def test_la_foto_de_la_pizarra_se_rehace_al_dibujar_y_al_predecir(monkeypatch):
    """En una copia exportada (o el sitio del curso), la celda de la pizarra muestra lo último dibujado."""
    import IPython.display

    enviadas = []
    monkeypatch.setattr(IPython.display, "update_display", lambda datos, **kw: enviadas.append(datos["text/html"]))
    pizarra = Pizarra()
    pizarra.widget._respaldo_mostrado = True  # como tras mostrarla en una celda
    pizarra.habilitar(torch_modelo_trivial())
    for fila in range(8):
        pizarra.pintar(fila, 2)
    assert enviadas[-1].count("background:black") == 8
    pizarra.predecir()
    assert "Predicción" in enviadas[-1]
    pizarra.limpiar()
    assert enviadas[-1].count("background:black") == 0
    antes = len(enviadas)
    pizarra.celdas[3].click()  # un clic en vivo no rehace la copia: volvería a dibujar el widget
    pizarra.boton_predecir.click()
    assert len(enviadas) == antes and pizarra.logica.celdas[0][3] == 1


def test_la_copia_fija_aparte_nace_oculta_y_lleva_la_misma_foto():
    """La segunda salida: oculta en Jupyter, Colab y VS Code; solo una regla CSS la enseña en una
    página de nbconvert cuya vista de widget no se dibujó (tests/test_widgets_exportados.py)."""
    from curso_gpu.interactivo.widgets import _CLASE_COPIA_FIJA

    caja = calculadora_vram("Llama 3 8B", "NVIDIA T4", grafico=False)
    copia = caja.copia_fija()
    assert VISTA_WIDGET not in copia and copia["text/plain"] == ""
    assert f"<div class='{_CLASE_COPIA_FIJA}' hidden style='display:none'>" in copia["text/html"]
    assert caja.mimebundle_estatico()["text/html"] in copia["text/html"]
    assert "widget-view+json" in copia["text/html"] and ":not(:has(.widget-subarea))" in copia["text/html"]


def test_el_selector_de_dispositivo_tiene_copia_fija_y_la_rehace_si_elige_el_codigo(monkeypatch):
    import IPython.display

    from curso_gpu.interactivo import widgets

    enviadas = []
    monkeypatch.setattr(IPython.display, "update_display",
                        lambda datos, display_id, **kw: enviadas.append((display_id, datos["text/html"])))
    monkeypatch.setattr(widgets, "dispositivos_disponibles", lambda: ["cuda:0", "cpu"])  # una GPU falsa
    monkeypatch.setattr(widgets, "elegir_dispositivo", lambda preferencia="auto": torch.device("cuda"))
    selector = widgets.selector_dispositivo(mostrar=False)
    assert "Entrenar en:</b> cuda:0" in selector.widget.mimebundle_estatico()["text/html"]
    selector.widget._respaldo_mostrado = True  # como tras mostrarlo en una celda
    selector.widget.value = "cpu"  # un clic: no se vuelve a dibujar el widget bajo el ratón
    assert enviadas == [] and selector.dispositivo == torch.device("cpu")
    selector.elegir("cuda:0")  # desde el código: las dos copias se rehacen
    assert len(enviadas) == 2 and len({ident for ident, _ in enviadas}) == 2
    assert all("Entrenar en:</b> cuda:0" in html for _, html in enviadas)

