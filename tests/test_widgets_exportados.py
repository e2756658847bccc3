"""Widgets en una página exportada con ``nbconvert --execute``, que guarda su estado (issue 24, punto 8).

Con el estado guardado (lo que hace ``nbconvert --execute`` si no se le dice otra cosa),
nbconvert elige la vista del widget, y esa vista solo se dibuja si la página descarga
``@jupyter-widgets/html-manager`` de unpkg. Sin red quedaría un hueco en blanco. Aquí se ejecuta
un notebook con la calculadora (04), la pizarra (05) y el selector de dispositivo tal como lo
hace nbconvert, se exporta con las plantillas «lab» (la de ``--to html``) y «classic», y
Chromium, sin red, debe mostrar cada copia fija una vez. Si la vista sí se dibuja (con red),
la copia fija se esconde.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from curso_gpu.base import VISTA_WIDGET
from curso_gpu.interactivo import CLASE_COPIA_FIJA

pytestmark = pytest.mark.lento

RAIZ = Path(__file__).resolve().parent.parent
ESTADO_WIDGETS = "application/vnd.jupyter.widget-state+json"

CELDAS = [
    "from curso_gpu.interactivo import calculadora_vram\n"
    "calculadora_vram(parametros='Llama 3 8B', gpu='NVIDIA T4', precision='fp16', margen=1.2)",
    # El selector solo aparece con GPU: aquí una GPU falsa, en el borde (la lista de dispositivos).
    "import torch\n"
    "from curso_gpu.interactivo import widgets\n"
    "widgets.dispositivos_disponibles = lambda: ['cpu', 'cuda:0']\n"
    "selector = widgets.selector_dispositivo()\n"
    "selector.elegir('cuda:0');",
    "from curso_gpu.interactivo import pizarra\n"
    "tablero = pizarra()\n"
    "tablero",
    "tablero.habilitar(torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(64, 3)))\n"
    "for fila in range(8):\n"
    "    tablero.pintar(fila, 2)\n"
    "tablero.predecir();",
]
# Lo que debe leerse en cada copia fija, en el orden de las celdas.
TEXTOS = [
    ("Calculadora de VRAM", "Llama 3 8B", "NO cabe"),
    ("Entrenar en:", "cuda:0"),
    ("Predicción",),
]


@pytest.fixture(scope="module")
def ejecutado(tmp_path_factory) -> nbformat.NotebookNode:
    """El notebook ejecutado por ``jupyter nbconvert --execute`` con sus opciones por defecto."""
    carpeta = tmp_path_factory.mktemp("exportar")
    origen = carpeta / "widgets.ipynb"
    cuaderno = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in CELDAS])
    cuaderno.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(cuaderno, origen)
    entorno = {k: v for k, v in os.environ.items() if k != "PYTEST_CURRENT_TEST"}
    entorno["PYTHONPATH"] = os.pathsep.join(filter(None, [str(RAIZ), entorno.get("PYTHONPATH")]))
    entorno.pop("CURSO_GPU_DISPOSITIVO", None)
    resultado = subprocess.run(
        [sys.executable, "-m", "nbconvert", "--to", "notebook", "--execute", str(origen),
         "--output", "ejecutado.ipynb"],
        cwd=carpeta, env=entorno, capture_output=True, text=True, timeout=240)
    assert resultado.returncode == 0, resultado.stdout + resultado.stderr
    return nbformat.read(carpeta / "ejecutado.ipynb", as_version=4)


def _exportar(cuaderno, plantilla: str) -> str:
    from nbconvert import HTMLExporter

    cuerpo, _ = HTMLExporter(template_name=plantilla).from_notebook_node(cuaderno)
    return cuerpo


@pytest.fixture(scope="module")
def pagina(chromium, tmp_path_factory):
    """Una pestaña del Chromium de la sesión, sin red: todo lo que no sea ``file:`` o ``data:`` se corta."""
    carpeta = tmp_path_factory.mktemp("paginas")
    contexto = chromium.new_context(viewport={"width": 1200, "height": 900})
    try:
        contexto.set_default_timeout(20_000)
        bloqueadas: list[str] = []

        def filtrar(ruta):
            if ruta.request.url.startswith(("file:", "data:")):
                ruta.continue_()
            else:
                bloqueadas.append(ruta.request.url)
                ruta.abort()

        contexto.route("**/*", filtrar)
        pestana = contexto.new_page()

        def abrir(html: str, nombre: str):
            ruta = carpeta / nombre
            ruta.write_text(html, encoding="utf-8")
            pestana.goto(ruta.as_uri())
            pestana.wait_for_load_state("load")
            return pestana

        abrir.bloqueadas = bloqueadas
        yield abrir
    finally:
        contexto.close()


def _copias_visibles(pestana) -> list[str]:
    return [c.inner_text() for c in pestana.locator(f".{CLASE_COPIA_FIJA}").all() if c.is_visible()]


def test_nbconvert_guarda_el_estado_y_elige_la_vista_del_widget(ejecutado):
    """La situación de partida: sin la copia fija aparte, estas salidas serían huecos."""
    estado = ejecutado.metadata["widgets"][ESTADO_WIDGETS]["state"]
    vistas = [s["data"][VISTA_WIDGET]["model_id"] for c in ejecutado.cells for s in c.outputs
              if VISTA_WIDGET in s.get("data", {})]
    assert len(vistas) == 3 and all(v in estado for v in vistas)
    html = _exportar(ejecutado, "lab")
    assert html.count('<script type="application/vnd.jupyter.widget-view+json">') == 3
    assert "curso-vram-estatica" not in html.split(CLASE_COPIA_FIJA, 1)[0], \
        "nbconvert no debería usar el HTML de la salida del widget: por eso hace falta la copia aparte"


@pytest.mark.parametrize("plantilla", ["lab", "classic"])
def test_sin_red_cada_widget_se_lee_como_su_copia_fija_una_sola_vez(ejecutado, pagina, plantilla):
    pestana = pagina(_exportar(ejecutado, plantilla), f"con_estado_{plantilla}.html")
    visibles = _copias_visibles(pestana)
    assert len(visibles) == len(TEXTOS), visibles
    for texto, esperados in zip(visibles, TEXTOS):
        assert all(e in texto for e in esperados), (esperados, texto)
    negras = pestana.locator(f".{CLASE_COPIA_FIJA} .curso-pizarra-estatica div[style*='background:black']")
    assert negras.count() == 8  # la vertical dibujada antes de predecir
    assert pestana.locator(".curso-vram-estatica").filter(visible=True).count() == 1
    assert "VBox(children" not in pestana.locator("body").inner_text()
    assert any("unpkg.com" in u for u in pagina.bloqueadas), "la página intentó descargar el gestor de widgets"


@pytest.mark.parametrize("plantilla", ["lab", "classic"])
def test_con_red_el_widget_se_dibuja_y_la_copia_fija_se_esconde(ejecutado, pagina, plantilla):
    """Lo que hace ``@jupyter-widgets/html-manager`` al dibujar una vista: un ``.widget-subarea``
    antes de su ``<script>`` (lib/libembed.js, ``renderManager``). Aquí se hace a mano."""
    pestana = pagina(_exportar(ejecutado, plantilla), f"dibujada_{plantilla}.html")
    vistas = pestana.locator("script[type='application/vnd.jupyter.widget-view+json']")
    assert vistas.count() == 3
    assert len(_copias_visibles(pestana)) == 3
    vistas.first.evaluate("s => s.parentElement.insertBefore(Object.assign(document.createElement('div'),"
                          " {className: 'widget-subarea', textContent: 'widget dibujado'}), s)")
    assert [t for t in _copias_visibles(pestana) if "Calculadora de VRAM" in t] == []
    assert len(_copias_visibles(pestana)) == 2  # las otras dos vistas siguen sin dibujar
    vistas.evaluate_all("ss => ss.slice(1).forEach(s => s.parentElement.insertBefore("
                        "Object.assign(document.createElement('div'), {className: 'widget-subarea'}), s))")
    assert _copias_visibles(pestana) == []


def test_sin_estado_guardado_la_copia_sale_de_la_salida_del_widget_y_no_se_repite(ejecutado, pagina):
    """``--ExecutePreprocessor.store_widget_state=False`` (o un notebook guardado sin estado)."""
    sin_estado = nbformat.from_dict(ejecutado)
    sin_estado.metadata.pop("widgets")
    pestana = pagina(_exportar(sin_estado, "lab"), "sin_estado.html")
    assert _copias_visibles(pestana) == []
    assert pestana.locator(".curso-vram-estatica").filter(visible=True).count() == 1
    assert pestana.locator(".curso-selector-estatico").filter(visible=True).count() == 1
    assert pestana.locator(".curso-pizarra-estatica").filter(visible=True).count() == 1
