"""Comprobaciones de los widgets de la lección 05, sin navegador.

test_widgets.py las usa de dos formas: dentro del proceso (el ipywidgets del entorno, 8) y
en un subproceso con ipywidgets 7.7.1 (el de Google Colab) delante en sys.path:

    PYTHONPATH=.cache/ipywidgets7 python tests/comprobar_widgets.py [pesos.pt]

Con ``pesos.pt`` (el ``state_dict`` de una ``CNNPequena``) usa ese modelo en vez de entrenar uno.

Cada comprobación lanza AssertionError si algo falla; el programa termina con código 0
solo si todas pasan.
"""

from __future__ import annotations

import re
import sys

import torch


def modelo_entrenado():
    """Una CNNPequena entrenada en pocos segundos con la receta variada."""
    from curso_gpu.entrenamiento import generar_dataset
    from curso_gpu.entrenamiento import entrenar
    from curso_gpu.entrenamiento import CNNPequena

    torch.manual_seed(0)
    modelo = CNNPequena()
    entrenar(modelo, generar_dataset(60, semilla=1), generar_dataset(20, semilla=2), "cpu", epocas=60,
             silencioso=True)
    return modelo


def _clases(widget) -> tuple:
    return tuple(widget._dom_classes)


def comprobar_pizarra_desactivada_hasta_habilitar():
    from curso_gpu.interactivo import pizarra

    p = pizarra()
    assert len(p.celdas) == 64
    assert all("curso-celda" in _clases(c) for c in p.celdas)
    assert "curso-predecir" in _clases(p.boton_predecir)
    assert "curso-limpiar" in _clases(p.boton_limpiar)
    assert "curso-resultado" in _clases(p.resultado)
    assert "curso-aviso" in _clases(p.aviso)
    assert p.boton_predecir.disabled and p.boton_limpiar.disabled
    assert all(c.disabled for c in p.celdas)
    assert "activará" in p.estado.value


def comprobar_dibujar_vertical_predice_vertical(modelo):
    from curso_gpu.interactivo import pizarra

    p = pizarra()
    p.habilitar(modelo, torch.device("cpu"))
    assert not p.boton_predecir.disabled and not p.boton_limpiar.disabled
    for fila in range(8):
        p.celdas[fila * 8 + 3].click()  # la celda (fila, 3): una columna entera
    assert [p.celdas[f * 8 + 3].style.button_color for f in range(8)] == ["black"] * 8
    assert p.celdas[0].style.button_color == "white"
    assert p.logica.celdas[5][3] == 1 and p.logica.celdas[5][2] == 0
    p.boton_predecir.click()
    texto = re.sub(r"<[^>]+>", " ", p.resultado.value)
    assert "Predicción: vertical" in texto, texto
    for nombre in ("vertical", "horizontal", "oblicua"):
        assert re.search(rf"{nombre}\s+[01]\.\d\d", texto), texto
    probabilidad = float(re.search(r"vertical\s+([01]\.\d\d)", texto).group(1))
    assert probabilidad > 0.5, texto


def comprobar_cuadricula_vacia_avisa_y_limpiar_borra(modelo):
    from curso_gpu.interactivo import AVISO_VACIA, pizarra

    p = pizarra(modelo, "cpu")
    p.boton_predecir.click()
    assert AVISO_VACIA in p.aviso.value
    assert p.resultado.value == ""
    for col in range(8):
        p.celdas[2 * 8 + col].click()  # fila 2 entera: horizontal
    assert p.aviso.value == ""
    p.boton_predecir.click()
    assert "Predicción: horizontal" in p.resultado.value
    p.celdas[2 * 8 + 0].click()  # un segundo clic borra la celda
    assert p.logica.celdas[2][0] == 0 and p.celdas[16].style.button_color == "white"
    p.boton_limpiar.click()
    assert p.logica.vacia
    assert all(c.style.button_color == "white" for c in p.celdas)
    p.boton_predecir.click()
    assert AVISO_VACIA in p.aviso.value


def comprobar_selector_con_gpu_falsa():
    """Con una GPU fingida (torch.cuda.is_available → True) aparecen los botones."""
    from curso_gpu.interactivo import widgets

    original = (torch.cuda.is_available, torch.cuda.device_count)
    torch.cuda.is_available, torch.cuda.device_count = (lambda: True), (lambda: 1)
    try:
        selector = widgets.selector_dispositivo(mostrar=False)
    finally:
        torch.cuda.is_available, torch.cuda.device_count = original
    assert selector.widget is not None
    assert list(selector.widget.options) == ["cuda:0", "cpu"]
    assert selector.dispositivo == torch.device("cuda:0")
    selector.widget.value = "cpu"  # lo que hace un clic en «cpu»
    assert selector.dispositivo == torch.device("cpu")


def comprobar_selector_sin_gpu():
    """Sin ninguna GPU (ni CUDA, ni MPS, ni XPU, también en un Mac): solo la CPU, sin botones."""
    from curso_gpu.interactivo import widgets

    falsos = [(torch.cuda, "is_available"), (torch.backends.mps, "is_available")]
    if getattr(torch, "xpu", None) is not None:
        falsos.append((torch.xpu, "is_available"))
    originales = [(modulo, nombre, getattr(modulo, nombre)) for modulo, nombre in falsos]
    for modulo, nombre in falsos:
        setattr(modulo, nombre, lambda: False)
    try:
        selector = widgets.selector_dispositivo(mostrar=False)
    finally:
        for modulo, nombre, original in originales:
            setattr(modulo, nombre, original)
    assert selector.opciones == ["cpu"], selector.opciones
    assert selector.widget is None
    assert selector.dispositivo == torch.device("cpu")


def cargar_modelo(ruta):
    """La ``CNNPequena`` guardada en ``ruta`` (su ``state_dict``)."""
    from curso_gpu.entrenamiento import CNNPequena

    modelo = CNNPequena()
    modelo.load_state_dict(torch.load(ruta, weights_only=True))
    return modelo


def comprobar_todo(ruta_modelo=None) -> str:
    import ipywidgets

    comprobar_pizarra_desactivada_hasta_habilitar()
    modelo = modelo_entrenado() if ruta_modelo is None else cargar_modelo(ruta_modelo)
    comprobar_dibujar_vertical_predice_vertical(modelo)
    comprobar_cuadricula_vacia_avisa_y_limpiar_borra(modelo)
    comprobar_selector_con_gpu_falsa()
    comprobar_selector_sin_gpu()
    return ipywidgets.__version__


if __name__ == "__main__":
    version = comprobar_todo(sys.argv[1] if len(sys.argv) > 1 else None)
    print(f"ipywidgets {version}: todas las comprobaciones pasan")
    sys.exit(0)
