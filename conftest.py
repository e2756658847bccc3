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
from ejecucion_compartida import HILOS, Ejecutadas, LeccionFallida
from lentas import fixture_lenta

EJECUTADAS = pytest.StashKey[Ejecutadas]()
CARPETA_DE_LA_SESION = "curso_gpu_ejecutadas"  # en ``workerinput``: la carpeta que comparten los procesos


def pytest_configure(config):
    entrada = getattr(config, "workerinput", None)  # un trabajador de xdist la recibe del principal
    if entrada is not None and CARPETA_DE_LA_SESION in entrada:
        carpeta = entrada[CARPETA_DE_LA_SESION]
    else:
        carpeta = tempfile.mkdtemp(prefix="curso_gpu_lecciones_")
        config.add_cleanup(lambda: shutil.rmtree(carpeta, ignore_errors=True))
    config.stash[EJECUTADAS] = Ejecutadas(carpeta)
    # Las pruebas corren en la CPU: los kernels de Triton (lección 11) necesitan su intérprete, y
    # TRITON_INTERPRET debe estar puesta antes de que algo importe triton. En un mismo proceso de
    # xdist, una prueba anterior con torch.compile ya lo importa (inductor mira si está), y entonces
    # curso_gpu.kernels se niega a correr en la CPU (con razón: es lo que le pasaría a un alumno).
    # Las pruebas que comprueban ese caso y el de «nadie la puso» usan subprocesos sin la variable.
    os.environ.setdefault("TRITON_INTERPRET", "1")
    if os.environ.get("PYTEST_XDIST_WORKER"):
        for variable in HILOS:
            os.environ.setdefault(variable, "1")
        if "torch" in sys.modules:  # por si un plugin ya lo importó
            sys.modules["torch"].set_num_threads(1)


# --- Reparto entre procesos (pytest-xdist, ``--dist loadfile``) ------------------------------
#
# xdist da a cada proceso un archivo (o notebook) entero. Con ``--no-loadscope-reorder``
# (pyproject.toml) los reparte en el orden de la colección, que se fija aquí: primero las pruebas
# con navegador (van juntas al primer proceso, que les da un solo Chromium: el fixture de sesión
# ``chromium``), luego las más largas (torchrun, la ventana Tk) y después el resto, como siempre.
LARGAS_PRIMERO = (
    "tests/e2e/",                        # JupyterLab y Chromium de verdad
    "tests/test_widgets_exportados.py",  # páginas exportadas en Chromium
    "tests/test_sitio_navegador.py",     # el sitio (con las lecciones de la sesión) en Chromium
    "notebooks/08_",                     # torchrun con 2 procesos
    "notebooks/12_",                     # torchrun con 2 procesos, dos veces (FSDP)
    "notebooks/13_",                     # dos servidores de transformers serve
    "notebooks/05_",
    "tests/test_app_lineas.py",          # la ventana Tk de la lección 05
    "tests/test_torchrun_sigkill.py",
    "tests/test_checkpoints.py",
    "notebooks/",
)


def _turno(nodeid: str) -> int:
    return next((i for i, inicio in enumerate(LARGAS_PRIMERO) if nodeid.startswith(inicio)), len(LARGAS_PRIMERO))


@pytest.hookimpl(tryfirst=True)  # antes de que «-m "not lento"» deseleccione
def pytest_collection_modifyitems(items):
    """Marca «lento» cada prueba que usa un fixture declarado con ``lentas.fixture_lenta`` y
    ordena los archivos por ``LARGAS_PRIMERO`` (dentro de cada archivo, el orden no cambia)."""
    from lentas import marcar_lentas

    marcar_lentas(items)
    items.sort(key=lambda item: _turno(item.nodeid))


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node):
    """xdist: cada trabajador recibe la carpeta de las lecciones ejecutadas de esta sesión."""
    node.workerinput[CARPETA_DE_LA_SESION] = str(node.config.stash[EJECUTADAS].carpeta)


@fixture_lenta(scope="session")  # ejecutar una lección arranca un kernel (y la 08, torchrun)
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
    """Un notebook del curso: dos pruebas que lo ejecutan entero (una sola vez por sesión cada una):
    en la CPU y en la T4 simulada (``CURSO_GPU_SIMULAR=T4``), que recorre sus ramas de GPU."""

    def collect(self):
        yield SeEjecutaEntera.from_parent(self, name="se_ejecuta_entera")
        yield SeEjecutaEntera.from_parent(self, name="se_ejecuta_en_la_t4_simulada", simulada=True)


class SeEjecutaEntera(pytest.Item):
    def __init__(self, *, simulada: bool = False, **kwargs):
        super().__init__(**kwargs)
        self.simulada = simulada
        self.add_marker(pytest.mark.lento)  # arranca un kernel de Jupyter

    def runtest(self):
        self.config.stash[EJECUTADAS](self.path.name[:2], simulada=self.simulada)

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, LeccionFallida):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self):
        donde = " en la T4 simulada" if self.simulada else ""
        return self.path, None, f"{self.path.name}: ejecutada entera{donde}"


# --- La vuelta rápida, vigilada ---------------------------------------------------------------
#
# Una prueba sin la marca «lento» no puede arrancar torchrun, un kernel de Jupyter, un navegador
# ni un entrenamiento en otro proceso: si lo hace, falla y dice qué arrancó. Dos vigilantes:
# - ``sys.addaudithook`` (la forma documentada de Python de ver cada ``subprocess.Popen``,
#   ``os.posix_spawn``, ``os.exec*``...): la orden de cada proceso se compara con ``VIGILADOS``;
# - los segundos de CPU de los subprocesos que la prueba arrancó y esperó (``getrusage``):
#   más de ``CPU_HIJOS_MAX_S`` es un entrenamiento o un ``import torch`` en otro proceso.
VIGILADOS = {
    "torchrun": ("torch.distributed.run", "torchrun"),
    "un kernel de Jupyter": ("ipykernel", "jupyter-lab", "jupyterlab", "jupyter_server", "jupyter-server"),
    "un servidor de modelos (lección 13)": ("curso_gpu.servir._hijo", "transformers serve", "vllm serve"),
    "un navegador": ("chromium", "chrome", "playwright", "Xvfb", "xvfb-run"),
    # los guiones de las pruebas que siempre entrenan; el resto lo delata su CPU (CPU_HIJOS_MAX_S)
    "un entrenamiento": ("entrenar_con_checkpoints", "ajustar_lora_con_cortes", "comprobar_widgets"),
}
CPU_HIJOS_MAX_S = 4.0  # import torch en otro proceso: ~2 s con la máquina cargada
EVENTOS_DE_PROCESO = ("subprocess.Popen", "os.posix_spawn", "os.spawn", "os.exec", "os.system", "os.startfile")


class Vigilante:
    """Anota los procesos que arranca la prueba en curso (solo mientras ``activo``)."""

    def __init__(self):
        self.activo = False
        self.vistos: list[str] = []

    def auditar(self, evento, argumentos):
        if not self.activo or not evento.startswith(EVENTOS_DE_PROCESO):
            return
        partes = []
        for argumento in argumentos[:2]:
            if isinstance(argumento, (list, tuple)):
                partes += [os.fsdecode(a) if isinstance(a, (bytes, os.PathLike)) else str(a) for a in argumento]
            elif argumento is not None:
                partes.append(os.fsdecode(argumento) if isinstance(argumento, (bytes, os.PathLike)) else str(argumento))
        orden = " ".join(partes)
        for que, patrones in VIGILADOS.items():
            if any(p in orden for p in patrones):
                self.vistos.append(f"{que}: {orden[:300]}")
                return


VIGILANTE = Vigilante()
sys.addaudithook(VIGILANTE.auditar)


def _cpu_de_los_hijos() -> float:
    import resource

    uso = resource.getrusage(resource.RUSAGE_CHILDREN)
    return uso.ru_utime + uso.ru_stime


def _vigilar(item):
    """Envuelve una fase de la prueba ``item``: si no es «lento», mira qué procesos arranca."""
    if item.get_closest_marker("lento") is not None:
        return (yield)
    VIGILANTE.activo, VIGILANTE.vistos = True, []
    antes = _cpu_de_los_hijos()
    try:
        resultado = yield
    finally:
        VIGILANTE.activo = False
    gastado = _cpu_de_los_hijos() - antes
    quejas = list(VIGILANTE.vistos)
    if gastado > CPU_HIJOS_MAX_S:
        quejas.append(f"subprocesos que gastaron {gastado:.1f} s de CPU (un entrenamiento o torch en otro proceso)")
    if quejas:
        pytest.fail("Esta prueba no lleva la marca «lento» y arrancó:\n  " + "\n  ".join(quejas) +
                    "\nMárcala con @pytest.mark.lento (o su fixture con lentas.fixture_lenta), o no lo arranques.",
                    pytrace=False)
    return resultado


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item):
    return (yield from _vigilar(item))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    return (yield from _vigilar(item))
