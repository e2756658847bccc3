"""Lecciones 03 y 05: la barra de progreso de un notebook guardado o exportado muestra su estado final.

Un notebook ejecutado sin navegador (nbclient, como nbconvert --execute) guarda de cada salida lo
que el kernel envió. El widget de tqdm solo envía su texto al mostrarse (0 %); desde ahí avanza
por mensajes que no quedan en la salida. La barra del curso se muestra como el widget de siempre
y, al cerrarse, rehace su salida: texto y HTML fijos de su estado final.

Se ejecuta un notebook en memoria con ipywidgets 8 y con 7.7.1 (el de Google Colab).
"""

from __future__ import annotations

import copy
import os
import re

import nbformat
import pytest
from lentas import fixture_lenta
from nbclient import NotebookClient
from nbconvert import HTMLExporter

from curso_gpu.base import VISTA_WIDGET
from ejecucion_compartida import gestor_de_kernel
from ipywidgets_colab import RAIZ, instalar_ipywidgets7

EPOCAS = 12
VERSION = "import ipywidgets\nprint('ipywidgets', ipywidgets.__version__)\n"
# Un entrenamiento de verdad, con la barra por defecto (importar torch en el kernel: unos segundos).
ENTRENAMIENTO = (
    "import torch\n"
    "from curso_gpu.entrenamiento import generar_dataset\n"
    "from curso_gpu.entrenamiento import entrenar\n"
    "from curso_gpu.entrenamiento import CNNPequena\n"
    "torch.manual_seed(0)\n"
    f"historial = entrenar(CNNPequena(), generar_dataset(30, semilla=1), generar_dataset(10, semilla=2), 'cpu',"
    f" epocas={EPOCAS})\n"
)
# Con ipywidgets 7.7.1, la misma barra por épocas sin torch: lo que ``entrenar`` llama en cada época.
EPOCAS_SIN_TORCH = (
    "from curso_gpu.base import BarraEpocas\n"
    "al_avanzar = BarraEpocas('Entrenando en cpu')\n"
    f"for epoca in range(1, {EPOCAS} + 1):\n"
    f"    al_avanzar(epoca, {EPOCAS})\n"
)
# Una barra que se corta a mitad (como un barrido interrumpido) y una silenciosa.
CORTADA_Y_SILENCIOSA = (
    "from curso_gpu.base import barra\n"
    "with barra(30, 'Barrido') as b:\n"
    "    b.update(12)\n"
    "with barra(5, 'Nada', silenciosa=True) as b:\n"
    "    b.update(5)"
)
# Una barra viva entre dos celdas: mientras avanza, la salida es el widget.
VIVA = "viva = barra(10, 'En vivo')\nviva.update(3)"
CIERRE = "viva.update(7)\nviva.close()"
CERO_POR_CIENTO = re.compile(r"(?<![\d.])0%")  # «0%», pero no el final de «100%»


def _ejecutar(carpeta_extra: str | None) -> nbformat.NotebookNode:
    primera = VERSION + (EPOCAS_SIN_TORCH if carpeta_extra else ENTRENAMIENTO)
    celdas = (primera, CORTADA_Y_SILENCIOSA, VIVA, CIERRE)
    cuaderno = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in celdas])
    rutas = [str(RAIZ), os.environ.get("PYTHONPATH", "")]
    if carpeta_extra:
        rutas.insert(0, carpeta_extra)
    entorno = dict(os.environ, PYTHONPATH=os.pathsep.join(r for r in rutas if r))
    vistas = []  # las salidas de cada celda al terminar de ejecutarla, antes de las siguientes

    def al_ejecutar(cell, cell_index, execute_reply):
        vistas.append(copy.deepcopy(cell.outputs))

    with gestor_de_kernel() as km:  # lo apaga al salir, sin dejarlo vivo
        NotebookClient(cuaderno, km=km, timeout=120, startup_timeout=60,
                       on_cell_executed=al_ejecutar).execute(env=entorno)
    cuaderno.metadata["vistas_al_ejecutar"] = vistas  # solo para estas pruebas
    return cuaderno


@fixture_lenta(scope="module", params=["8", "7.7.1"])  # un kernel de Jupyter por versión
def ejecutado(request):
    """(versión de ipywidgets pedida, notebook ejecutado con ella)."""
    extra = str(instalar_ipywidgets7()) if request.param == "7.7.1" else None
    return request.param, _ejecutar(extra)


def _barras(salidas) -> list[dict]:
    return [s["data"] for s in salidas if s["output_type"] == "display_data" and "text/plain" in s["data"]]


def _exportar(cuaderno, estado_de_widgets: bool) -> str:
    """El notebook en HTML, como nbconvert; lo que un lector ve (sin estilos ni scripts)."""
    copia = nbformat.from_dict(cuaderno)
    copia.metadata.pop("vistas_al_ejecutar")
    if not estado_de_widgets:
        copia.metadata.pop("widgets", None)
    cuerpo, _ = HTMLExporter().from_notebook_node(copia)
    assert "curso-barra" in cuerpo
    return re.sub(r"<[^>]+>", "", re.sub(r"(?s)<(style|script)\b.*?</\1>", "", cuerpo))


def test_se_ejecuta_con_la_version_de_ipywidgets_pedida(ejecutado):
    version, cuaderno = ejecutado
    texto = "".join(s.get("text", "") for s in cuaderno.cells[0].outputs if s["output_type"] == "stream")
    assert re.search(rf"ipywidgets {re.escape(version)}\b", texto), texto


def test_la_salida_guardada_es_el_estado_final_en_texto_y_html(ejecutado):
    _, cuaderno = ejecutado
    (datos,) = _barras(cuaderno.cells[0].outputs)
    assert re.match(rf"Entrenando en cpu: 100%\|█+\| {EPOCAS}/{EPOCAS} \[", datos["text/plain"]), datos["text/plain"]
    html = datos["text/html"]
    assert "Entrenando en cpu: 100%" in html and f"{EPOCAS}/{EPOCAS}" in html
    assert "width:100.0%" in html and f"aria-valuenow='{EPOCAS}'" in html
    assert VISTA_WIDGET not in datos  # la copia fija no depende de que la página sepa dibujar widgets


def test_mientras_avanza_la_salida_es_el_widget_de_tqdm(ejecutado):
    _, cuaderno = ejecutado
    (en_vivo,) = _barras(cuaderno.metadata["vistas_al_ejecutar"][2])
    assert set(en_vivo) == {VISTA_WIDGET, "text/plain"}  # lo mismo que da ipywidgets: el widget vivo
    estado = cuaderno.metadata["widgets"]["application/vnd.jupyter.widget-state+json"]["state"]
    caja = estado[en_vivo[VISTA_WIDGET]["model_id"]]["state"]
    hijos = [estado[h.removeprefix("IPY_MODEL_")]["state"] for h in caja["children"]]
    assert hijos[1]["value"] == 10 and hijos[1]["bar_style"] == "success"  # y el widget llegó al final
    (cerrada,) = _barras(cuaderno.cells[2].outputs)  # la cerró la celda siguiente
    assert VISTA_WIDGET not in cerrada and "10/10" in cerrada["text/plain"]
    assert cuaderno.cells[3].outputs == []


def test_no_queda_ningun_0_por_ciento_congelado(ejecutado):
    _, cuaderno = ejecutado
    textos = [valor for celda in cuaderno.cells for salida in celda.outputs
              for tipo, valor in salida.get("data", {}).items() if tipo.startswith("text/")]
    # Las tres barras que se ven (la silenciosa no deja nada) quedan, cada una, con su estado final,
    # en texto y en HTML: sin salidas no hay nada que mirar, y eso también es un fallo.
    for barra in ("Entrenando en cpu: 100%", "Barrido:  40%", "En vivo: 100%"):
        assert sum(barra in t for t in textos) >= 2, f"falta la barra final «{barra}» en texto y HTML: {textos}"
    congelados = [t for t in textos if CERO_POR_CIENTO.search(t)]
    assert not congelados, congelados


def test_una_barra_cortada_se_guarda_donde_se_quedo_y_una_silenciosa_no_deja_nada(ejecutado):
    _, cuaderno = ejecutado
    (datos,) = _barras(cuaderno.cells[1].outputs)  # la silenciosa no añade otra salida
    assert re.match(r"Barrido:  40%\|█+ *\| 12/30 \[", datos["text/plain"]), datos["text/plain"]
    assert "width:40.0%" in datos["text/html"] and "#d9534f" in datos["text/html"]  # rojo: no terminó


@pytest.mark.parametrize("estado_de_widgets", [False, True], ids=["sin estado", "con estado"])
def test_la_copia_exportada_muestra_el_estado_final(ejecutado, estado_de_widgets):
    """Con el estado de los widgets guardado (lo que hace nbconvert --execute) o sin él."""
    _, cuaderno = ejecutado
    texto = _exportar(cuaderno, estado_de_widgets)
    assert re.search(rf"Entrenando en cpu: 100%\s+{EPOCAS}/{EPOCAS} \[", texto), texto
    assert "Barrido:  40%" in texto and "En vivo: 100%" in texto
    assert "HBox(children" not in texto and not CERO_POR_CIENTO.search(texto)
