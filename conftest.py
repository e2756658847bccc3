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
    _kernel_sin_variable_de_pytest(config)
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


# --- Ninguna lección escribe en stderr ---------------------------------------------------------
#
# Cada celda que nbval ejecuta se mira al terminar: si dejó una salida ``stream`` ``stderr`` (el
# texto rosa de Jupyter), la celda falla. Así cada ejecución de una lección es también la prueba
# de que no ensucia la salida, sin ejecutarla dos veces. Una celda que enseña un aviso a
# propósito lleva la etiqueta ``stderr-esperado`` en sus metadatos.
#
# ipykernel solo recoge lo que las bibliotecas de C escriben en stderr (el perfilador de
# PyTorch, por ejemplo) si el kernel arranca sin ``PYTEST_CURRENT_TEST``; pytest la pone justo
# antes de que nbval arranque el kernel, así que el kernel de nbval arranca con una copia del
# entorno sin ella.
STDERR_ESPERADO = "stderr-esperado"


def _es_celda_de_nbval(item) -> bool:
    return type(item).__name__ == "IPyNbCell" and hasattr(item, "cell")


def _kernel_sin_variable_de_pytest(config):
    try:
        from nbval import kernel
    except ImportError:
        return
    arrancar = kernel.start_new_kernel

    def start_new_kernel(*args, **kwargs):
        kwargs.setdefault("env", {k: v for k, v in os.environ.items() if k != "PYTEST_CURRENT_TEST"})
        return arrancar(*args, **kwargs)

    kernel.start_new_kernel = start_new_kernel
    config.add_cleanup(lambda: setattr(kernel, "start_new_kernel", arrancar))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    """Dos cosas por cada celda de nbval: anota sus mensajes para el sitio (``_registro``) y
    falla si escribió en stderr sin la etiqueta ``stderr-esperado``."""
    registro = _registro(item)
    if registro is not None:
        registro.empezar(item.cell_num)
    try:
        resultado = yield
    except BaseException:
        if registro is not None:
            registro.fallida = True
        raise
    if _es_celda_de_nbval(item) and STDERR_ESPERADO not in item.cell.get("metadata", {}).get("tags", []):
        textos = [salida.get("text", "") for salida in getattr(item, "test_outputs", None) or []
                  if salida.get("output_type") == "stream" and salida.get("name") == "stderr"]
        if any(t.strip() for t in textos):
            if registro is not None:
                registro.fallida = True
            pytest.fail(f"La celda {item.cell_num} escribió en stderr (una lección no debe):\n" + "".join(textos),
                        pytrace=False)
    return resultado


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
    if not _es_celda_de_nbval(item):
        return None
    archivo = item.parent
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
