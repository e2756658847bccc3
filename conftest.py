"""Configuración común de pytest para las pruebas y los notebooks.

La orden de pruebas del README reparte los archivos entre varios procesos con pytest-xdist
(``-n auto --dist loadfile``). Cada proceso usa entonces un solo hilo de cálculo: si cada uno
abriera tantos hilos como núcleos, competirían por la CPU y todo iría varias veces más lento.
La variable de entorno también llega a los kernels de las lecciones y a los subprocesos de las pruebas.

Cada lección (``notebooks/NN_*.ipynb``) es una prueba: se ejecuta entera una sola vez por sesión
(``tests/ejecucion_compartida.py``) y no escribe en stderr. Esa misma ejecución la reciben las
pruebas que miran sus salidas con el fixture ``leccion_ejecutada("08")``, en cualquier proceso de
xdist: nadie la ejecuta dos veces.
"""

import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

import pytest
from ejecucion_compartida import Ejecutadas, LeccionFallida

EJECUTADAS = pytest.StashKey[Ejecutadas]()
CARPETA_DE_LA_SESION = "curso_gpu_ejecutadas"  # en ``workerinput``: la carpeta que comparten los procesos

HILOS = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")


def pytest_configure(config):
    entrada = getattr(config, "workerinput", None)  # un trabajador de xdist la recibe del principal
    if entrada is not None and CARPETA_DE_LA_SESION in entrada:
        carpeta = entrada[CARPETA_DE_LA_SESION]
    else:
        carpeta = tempfile.mkdtemp(prefix="curso_gpu_lecciones_")
        config.add_cleanup(lambda: shutil.rmtree(carpeta, ignore_errors=True))
    config.stash[EJECUTADAS] = Ejecutadas(carpeta)
    if os.environ.get("PYTEST_XDIST_WORKER"):
        for variable in HILOS:
            os.environ.setdefault(variable, "1")
        if "torch" in sys.modules:  # por si un plugin ya lo importó
            sys.modules["torch"].set_num_threads(1)


# --- Reparto entre procesos (pytest-xdist, ``--dist loadfile``) ------------------------------
#
# xdist da a cada proceso un archivo (o notebook) entero. Por defecto empieza por los que tienen
# más pruebas, así que las pruebas largas de una sola función (el navegador, torchrun) quedaban
# para el final, con el otro proceso ya parado. Aquí van primero las más largas (segundos de CPU
# medidos en la máquina de 2 núcleos), y el resto después, en el orden de siempre.
LARGAS_PRIMERO = (
    "tests/e2e/",                  # JupyterLab y Chromium de verdad (un solo servidor para las dos)
    "notebooks/08_",               # torchrun con 2 procesos
    "tests/test_distribuido.py",   # torchrun con 2 procesos
    "notebooks/05_",
    "tests/test_app_lineas.py",    # la ventana Tk de la lección 05
    "tests/test_cli.py",
    "tests/test_checkpoints.py",
    "notebooks/",
)
# Y esta, la última: construye el sitio con las lecciones que nbval ya ejecutó (ver abajo).
AL_FINAL = ("tests/test_sitio_navegador.py",)


def _turno(nodeid: str) -> int:
    if nodeid.startswith(AL_FINAL):
        return len(LARGAS_PRIMERO) + 1
    return next((i for i, inicio in enumerate(LARGAS_PRIMERO) if nodeid.startswith(inicio)), len(LARGAS_PRIMERO))


# Lo que se marca «lento» aquí, sin decorador: los notebooks enteros (nbval), las pruebas en un
# navegador o una ventana, torchrun, los procesos que se matan o reanudan, los kernels de Jupyter y
# los entrenamientos largos. Otras pruebas lentas llevan además @pytest.mark.lento en su archivo.
LENTAS_POR_CARPETA = (
    "notebooks/",
    "tests/e2e/",
    "tests/test_app_lineas.py",                 # la ventana Tk y sus subprocesos
    "tests/test_distribuido.py::test_dos_procesos",  # torchrun
    "tests/test_distribuido.py::test_un_fallo",
    "tests/test_distribuido.py::test_no_queda_ningun_proceso_vivo",
    "tests/test_distribuido.py::test_mas_procesos_que_gpu",
    "tests/test_distribuido.py::test_un_proceso_colgado",
    "tests/test_checkpoints.py::test_interrumpido_y_reanudado",  # reanudar en otro proceso
    "tests/test_checkpoints.py::test_matado_con_sigkill",        # SIGKILL
    "tests/test_tortura_checkpoints.py",        # SIGKILL y bytes cambiados
    "tests/test_progreso_estatico.py",          # kernels de Jupyter con ipywidgets 7 y 8
    "tests/test_widgets.py::test_widgets_funcionan_con_ipywidgets_7_7_1",  # instala ipywidgets 7.7.1
    "tests/test_cli.py::test_python_m_curso_gpu",   # la comprobación entera en un subproceso
    "tests/test_entrenamiento.py::test_receta_variada",  # entrenamientos largos
    "tests/test_entrenamiento.py::test_sin_sincronizar_con_la_cpu",
    "tests/test_precision_mixta.py::test_fp16_con_lotes_y_acumulando",
    "tests/test_precision_mixta.py::test_sin_el_estado_del_escalador",
    "tests/test_sitio",                         # construir el sitio y abrirlo en Chromium
)


def pytest_collection_modifyitems(items):
    """Marca «lento» lo de ``LENTAS_POR_CARPETA`` y ordena los archivos por ``LARGAS_PRIMERO``
    (dentro de cada archivo, el orden no cambia)."""
    for item in items:
        if item.nodeid.startswith(LENTAS_POR_CARPETA):
            item.add_marker(pytest.mark.lento)
    items.sort(key=lambda item: _turno(item.nodeid))


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """``--dist loadfile`` con dos cambios: las pruebas de ``tests/e2e`` van juntas en un mismo
    proceso (comparten JupyterLab y Chromium) y los archivos se reparten en el orden de la
    colección (``LARGAS_PRIMERO``), no por número de pruebas."""
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class LargasPrimero(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return "tests/e2e" if nodeid.startswith("tests/e2e/") else super()._split_scope(nodeid)

    config.option.loadscopereorder = False  # el orden ya lo puso pytest_collection_modifyitems
    return LargasPrimero(config, log)


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node):
    """xdist: cada trabajador recibe la carpeta de las lecciones ejecutadas de esta sesión."""
    node.workerinput[CARPETA_DE_LA_SESION] = str(node.config.stash[EJECUTADAS].carpeta)


@pytest.fixture(scope="session")
def leccion_ejecutada(pytestconfig):
    """``leccion_ejecutada("08")`` → el notebook ejecutado (``nbformat``) de esa lección.

    Se ejecuta una sola vez por sesión de pruebas, aunque la pidan varias pruebas en varios
    procesos; quien la pide mientras otro la ejecuta, espera. Cada llamada da una copia.
    Si la lección falla, falla con la celda y el error.
    """
    return pytestconfig.stash[EJECUTADAS]


# --- Cada lección, una prueba ---------------------------------------------------------------
#
# Cada ``notebooks/NN_nombre.ipynb`` se recoge como una prueba: la lección se ejecuta entera,
# de principio a fin, sin errores y sin escribir en stderr (el texto rosa de Jupyter; una celda
# que enseña un aviso a propósito lleva la etiqueta ``stderr-esperado``). Su última celda de
# código comprueba con ``assert`` lo que la lección enseña.
_LECCION = re.compile(r"^\d\d_[a-z0-9_]+\.ipynb$")
NOTEBOOKS = Path(__file__).resolve().parent / "notebooks"


def pytest_collect_file(file_path, parent):
    if file_path.parent == NOTEBOOKS and _LECCION.match(file_path.name):
        return Leccion.from_parent(parent, path=file_path)
    return None


class Leccion(pytest.File):
    """Un notebook del curso: una prueba que lo ejecuta entero (una sola vez por sesión)."""

    def collect(self):
        yield SeEjecutaEntera.from_parent(self, name="se_ejecuta_entera")


class SeEjecutaEntera(pytest.Item):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.add_marker(pytest.mark.lento)  # arranca un kernel de Jupyter

    def runtest(self):
        self.config.stash[EJECUTADAS](self.path.name[:2])

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, LeccionFallida):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self):
        return self.path, None, f"{self.path.name}: ejecutada entera"
