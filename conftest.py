"""Configuración común de pytest para las pruebas y los notebooks.

La orden de pruebas del README reparte los archivos entre varios procesos con pytest-xdist
(``-n auto --dist loadfile``). Cada proceso usa entonces un solo hilo de cálculo: si cada uno
abriera tantos hilos como núcleos, competirían por la CPU y todo iría varias veces más lento.
La variable de entorno también llega a los kernels de nbval y a los subprocesos de las pruebas.
Con ``--dist loadfile`` los archivos más largos se reparten primero (``LARGAS_PRIMERO``) y la
prueba del sitio va la última (``AL_FINAL``): reutiliza las lecciones que nbval ya ejecutó, que
este archivo guarda en la caché del sitio (``herramientas/lecciones_ejecutadas.py``).
"""

import os
import re
import sys
import warnings
from pathlib import Path

import pytest

HILOS = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")


def pytest_configure(config):
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


# Lo que se marca «lento» sin decorador: los notebooks enteros (nbval) y las pruebas en un navegador.
# Las demás pruebas lentas (torchrun, SIGKILL, reanudar en otro proceso) llevan @pytest.mark.lento.
LENTAS_POR_CARPETA = ("notebooks/", "tests/e2e/")


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


# --- Las lecciones que ejecuta nbval, guardadas para el sitio del curso -----------------------
#
# nbval ya ejecuta cada lección entera. La prueba del sitio (tests/test_sitio_navegador.py, la
# última) necesita esas mismas lecciones con sus salidas: en vez de ejecutarlas otra vez, aquí se
# anotan los mensajes del kernel que lee nbval y, al acabar la última celda sin fallos, la copia
# ejecutada se guarda en la caché del sitio (_build/ejecuciones/), con la misma clave que usa
# ``python herramientas/sitio.py``. Si una celda falla, se deja un aviso para que nadie la espere.
_LECCION = re.compile(r"^\d\d_[a-z0-9_]+\.ipynb$")


def _lecciones_ejecutadas():
    carpeta = str(Path(__file__).resolve().parent / "herramientas")
    if carpeta not in sys.path:
        sys.path.insert(0, carpeta)
    import lecciones_ejecutadas

    return lecciones_ejecutadas


def _registro(item):
    """El registro de mensajes del notebook de ``item`` si es una celda de una lección; si no, None."""
    archivo = getattr(item, "parent", None)
    if type(item).__name__ != "IPyNbCell":
        return None
    ruta = Path(str(archivo.path)).resolve()
    if ruta.parent != Path(__file__).resolve().parent / "notebooks" or not _LECCION.match(ruta.name):
        return None  # solo las lecciones del curso (un notebook de prueba en otra carpeta, no)
    registro = getattr(archivo, "registro_sitio", None)
    if registro is None:
        registro = _lecciones_ejecutadas().RegistroNbval(archivo.nb)
        archivo.registro_sitio = registro
        leer = archivo.get_kernel_message

        def get_kernel_message(*args, **kwargs):
            mensaje = leer(*args, **kwargs)
            registro.mensaje(mensaje)
            return mensaje

        archivo.get_kernel_message = get_kernel_message  # nbval lee así cada mensaje de la celda
    kernel = archivo.kernel  # lo arranca nbval al preparar la primera celda
    if kernel is not None and getattr(kernel, "registro_sitio", None) is not registro:
        enviar = kernel.execute_cell_input

        def execute_cell_input(source, allow_stdin=None):
            msg_id = enviar(source, allow_stdin=allow_stdin)
            registro.ejecutada(registro.actual, msg_id)
            return msg_id

        kernel.execute_cell_input = execute_cell_input
        kernel.registro_sitio = registro
    return registro


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    registro = _registro(item)
    if registro is not None:
        registro.empezar(item.cell_num)
    resultado = yield
    if registro is not None and resultado.excinfo is not None:
        registro.fallida = True


def pytest_runtest_teardown(item, nextitem):
    registro = getattr(getattr(item, "parent", None), "registro_sitio", None)
    if registro is None or (nextitem is not None and nextitem.parent is item.parent):
        return
    item.parent.registro_sitio = None
    ruta = Path(str(item.parent.path))
    try:
        modulo = _lecciones_ejecutadas()
        if registro.completo():
            modulo.guardar(registro.resultado(), ruta, origen="pruebas", segundos=registro.segundos())
        elif registro.fallida:
            modulo.marcar_fallo(ruta, "una celda falló al ejecutarse con nbval")
    except Exception as error:  # la caché del sitio nunca hace fallar la lección
        warnings.warn(f"No pude guardar {ruta.name} en la caché del sitio: {error}", stacklevel=1)
