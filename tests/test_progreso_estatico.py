"""Lecciones 03 y 05: la barra de progreso de un notebook guardado o exportado muestra su estado final.

Un notebook ejecutado sin navegador (nbclient, como nbconvert --execute) guarda de cada salida lo
que el kernel envió. El widget de tqdm solo envía su texto al mostrarse (0 %); desde ahí avanza
por mensajes que no quedan en la salida. La barra del curso rehace su salida al cerrarse: texto y
HTML del estado final, junto a la vista del widget, que en vivo sigue mandando.

Se ejecuta un notebook en memoria con ipywidgets 8 y con 7.7.1 (el de Google Colab).
"""

from __future__ import annotations

import os
import re

import nbformat
import pytest
from nbclient import NotebookClient
from nbconvert import HTMLExporter

import test_widgets  # instala una vez ipywidgets 7.7.1 en .cache/ipywidgets7 (el de Colab)
from curso_gpu.progreso import VISTA_WIDGET

EPOCAS = 12
VERSION = "import ipywidgets\nprint('ipywidgets', ipywidgets.__version__)\n"
# Un entrenamiento de verdad, con la barra por defecto (importar torch en el kernel: unos segundos).
ENTRENAMIENTO = (
    "import torch\n"
    "from curso_gpu.datos import generar_dataset\n"
    "from curso_gpu.entrenamiento import entrenar\n"
    "from curso_gpu.modelos import CNNPequena\n"
    "torch.manual_seed(0)\n"
    f"historial = entrenar(CNNPequena(), generar_dataset(30, semilla=1), generar_dataset(10, semilla=2), 'cpu',"
    f" epocas={EPOCAS})\n"
)
# Con ipywidgets 7.7.1, la misma barra por épocas sin torch: lo que ``entrenar`` llama en cada época.
EPOCAS_SIN_TORCH = (
    "from curso_gpu.progreso import BarraEpocas\n"
    "al_avanzar = BarraEpocas('Entrenando en cpu')\n"
    f"for epoca in range(1, {EPOCAS} + 1):\n"
    f"    al_avanzar(epoca, {EPOCAS})\n"
)
# Una barra que se corta a mitad (como un barrido interrumpido) y una silenciosa.
CORTADA_Y_SILENCIOSA = (
    "from curso_gpu.progreso import barra\n"
    "with barra(30, 'Barrido') as b:\n"
    "    b.update(12)\n"
    "with barra(5, 'Nada', silenciosa=True) as b:\n"
    "    b.update(5)"
)
CERO_POR_CIENTO = re.compile(r"(?<![\d.])0%")  # «0%», pero no el final de «100%»


def _ejecutar(carpeta_extra: str | None) -> nbformat.NotebookNode:
    primera = VERSION + (EPOCAS_SIN_TORCH if carpeta_extra else ENTRENAMIENTO)
    cuaderno = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in (primera, CORTADA_Y_SILENCIOSA)])
    rutas = [str(test_widgets.RAIZ), os.environ.get("PYTHONPATH", "")]
    if carpeta_extra:
        rutas.insert(0, carpeta_extra)
    entorno = dict(os.environ, PYTHONPATH=os.pathsep.join(r for r in rutas if r))
    NotebookClient(cuaderno, timeout=120, kernel_name="python3", startup_timeout=60).execute(env=entorno)
    return cuaderno


@pytest.fixture(scope="module", params=["8", "7.7.1"])
def ejecutado(request):
    """(versión de ipywidgets pedida, notebook ejecutado con ella)."""
    extra = str(test_widgets._instalar_ipywidgets7()) if request.param == "7.7.1" else None
    return request.param, _ejecutar(extra)


def _salidas_widget(celda) -> list[dict]:
    return [s["data"] for s in celda.outputs if s["output_type"] == "display_data" and VISTA_WIDGET in s["data"]]


def _sin_estado_de_widgets(cuaderno):
    copia = nbformat.from_dict(cuaderno)
    copia.metadata.pop("widgets", None)
    return copia


def test_se_ejecuta_con_la_version_de_ipywidgets_pedida(ejecutado):
    version, cuaderno = ejecutado
    texto = "".join(s.get("text", "") for s in cuaderno.cells[0].outputs if s["output_type"] == "stream")
    assert f"ipywidgets {version}" in texto if version != "8" else re.search(r"ipywidgets 8\.", texto), texto


def test_la_salida_guardada_es_el_estado_final_en_texto_y_html(ejecutado):
    _, cuaderno = ejecutado
    (datos,) = _salidas_widget(cuaderno.cells[0])
    assert re.match(rf"Entrenando en cpu: 100%\|█+\| {EPOCAS}/{EPOCAS} \[", datos["text/plain"]), datos["text/plain"]
    html = datos["text/html"]
    assert "Entrenando en cpu: 100%" in html and f"{EPOCAS}/{EPOCAS}" in html
    assert "width:100.0%" in html and f"aria-valuenow='{EPOCAS}'" in html
    assert datos[VISTA_WIDGET]["model_id"]  # en vivo, Jupyter y Colab siguen dibujando el widget


def test_no_queda_ningun_0_por_ciento_congelado(ejecutado):
    _, cuaderno = ejecutado
    for celda in cuaderno.cells:
        for salida in celda.outputs:
            for tipo, valor in salida.get("data", {}).items():
                if tipo.startswith("text/"):
                    assert not CERO_POR_CIENTO.search(valor), valor


def test_una_barra_cortada_se_guarda_donde_se_quedo_y_una_silenciosa_no_deja_nada(ejecutado):
    _, cuaderno = ejecutado
    (datos,) = _salidas_widget(cuaderno.cells[1])  # la silenciosa no añade otra salida
    assert re.match(r"Barrido:  40%\|█+ *\| 12/30 \[", datos["text/plain"]), datos["text/plain"]
    assert "width:40.0%" in datos["text/html"] and "#d9534f" in datos["text/html"]  # rojo: no terminó


def test_la_copia_exportada_sin_estado_de_widgets_muestra_el_estado_final(ejecutado):
    _, cuaderno = ejecutado
    cuerpo, _ = HTMLExporter().from_notebook_node(_sin_estado_de_widgets(cuaderno))
    assert "curso-barra" in cuerpo and f"{EPOCAS}/{EPOCAS}" in cuerpo and "Entrenando en cpu: 100%" in cuerpo
    texto = re.sub(r"<[^>]+>", "", re.sub(r"(?s)<(style|script)\b.*?</\1>", "", cuerpo))  # lo que se lee
    assert "HBox(children" not in texto and not CERO_POR_CIENTO.search(texto)


def test_con_el_estado_de_widgets_la_copia_exportada_dibuja_el_widget_en_su_estado_final(ejecutado):
    """nbconvert prefiere el widget si el notebook guardó su estado; ese estado es el final."""
    _, cuaderno = ejecutado
    (datos,) = _salidas_widget(cuaderno.cells[0])
    estado = cuaderno.metadata["widgets"]["application/vnd.jupyter.widget-state+json"]["state"]
    caja = estado[datos[VISTA_WIDGET]["model_id"]]["state"]
    hijos = [estado[h.removeprefix("IPY_MODEL_")]["state"] for h in caja["children"]]
    assert hijos[1]["value"] == EPOCAS and hijos[1]["bar_style"] == "success"
    assert f"{EPOCAS}/{EPOCAS}" in hijos[2]["value"].replace("\u2007", " ")
    cuerpo, _ = HTMLExporter().from_notebook_node(cuaderno)
    assert datos[VISTA_WIDGET]["model_id"] in cuerpo and "widget-state+json" in cuerpo

