"""Las lecciones ejecutadas una sola vez por sesión de pruebas, compartidas por todas las pruebas.

Ejecutar una lección entera cuesta de segundos a un minuto de CPU (la 08 lanza ``torchrun``). La
prueba de cada lección (``notebooks/NN_*.ipynb``, recogida por el ``conftest.py`` de la raíz) y
las pruebas que miran sus salidas (resultados de DDP, stderr, figuras, el sitio) usan la misma
ejecución: ``ejecutada("08")`` devuelve el notebook ejecutado (``nbformat``).

- Una sesión de pruebas tiene una carpeta (``carpeta_de_la_sesion``): la crea el proceso
  principal de pytest y la reciben los trabajadores de xdist (``pytest_configure_node``).
- La primera prueba que pide una lección la ejecuta (nbclient, un kernel con este mismo Python,
  sin ``PYTEST_CURRENT_TEST``) y guarda la copia ahí; las demás, en cualquier proceso, la leen.
  Un cerrojo por lección (``fcntl.flock``) hace esperar a quien la pida mientras otro la ejecuta.
- Si falla, queda anotado el error (``NN.fallo``) y todas las que la pidan fallan con él, sin
  ejecutarla otra vez.
- Cada copia completa se guarda también en la caché del sitio (``herramientas/lecciones_ejecutadas.py``),
  así ``python herramientas/sitio.py`` no ejecuta otra vez lo que las pruebas ya ejecutaron.
"""

from __future__ import annotations

import contextlib
import copy
import fcntl
import os
import re
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

RAIZ = Path(__file__).resolve().parent.parent
NOTEBOOKS = RAIZ / "notebooks"
HERRAMIENTAS = RAIZ / "herramientas"
STDERR_ESPERADO = "stderr-esperado"  # la etiqueta de una celda que enseña un aviso a propósito
TIEMPO_CELDA_S = 600     # lo más que puede tardar una celda
ESPERA_CERROJO_S = 1200  # lo más que se espera a que otro proceso termine la misma lección
VARIABLE = "CURSO_GPU_EJECUTADAS"  # la carpeta de la sesión, para quien no la recibe de pytest
HILOS = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")  # los hilos de cálculo de torch y sus bibliotecas
SIMULAR = "CURSO_GPU_SIMULAR"        # con T4, la lección corre en la GPU simulada (curso_gpu.dispositivo.simulacion)
SUFIJO_T4 = ".t4"                    # la copia ejecutada en la T4 simulada: 05_nombre.t4.ipynb
COBERTURA = "CURSO_GPU_COBERTURA"    # dónde guarda el kernel sus líneas ejecutadas (tests/cobertura_kernel.py)
SUFIJO_COBERTURA = ".cobertura.json"


class LeccionFallida(AssertionError):
    """Una lección falló al ejecutarse (o escribió en stderr): lo dice con la celda y el error."""


def ruta_de_leccion(numero: str | int, notebooks: Path = NOTEBOOKS) -> Path:
    """``"08"`` (o ``8``) → ``notebooks/08_varias_gpu_ddp.ipynb``; un error claro si no existe."""
    numero = f"{int(numero):02d}" if str(numero).isdigit() else str(numero)
    encontradas = sorted(Path(notebooks).glob(f"{numero}_*.ipynb"))
    if len(encontradas) != 1:
        hay = ", ".join(r.name[:2] for r in sorted(Path(notebooks).glob("[0-9][0-9]_*.ipynb")))
        raise ValueError(f"no hay una lección {numero!r} en notebooks/ (hay: {hay})")
    return encontradas[0]


# ---------------------------------------------------------------------------
# Ejecutar un notebook (un kernel con este Python) y mirar sus salidas
# ---------------------------------------------------------------------------

@contextlib.contextmanager
def gestor_de_kernel():
    """Un ``KernelManager`` que arranca el kernel con este mismo Python (no otro «python3» del sistema).

    En Linux y macOS el kernel habla por sockets de Unix en una carpeta propia (``transport="ipc"``),
    no por puertos TCP. Con TCP, jupyter_client elige cinco puertos libres, los suelta y el kernel los
    ocupa después: con varias lecciones a la vez (xdist, ``torchrun``, servidores), otro proceso puede
    quedarse uno en ese hueco. En CI pasó: el latido de otro kernel llegaba al canal de control de la
    lección 07 («DELIM not in msg_list» en su stderr). Al salir, el kernel se apaga y la carpeta se borra.
    """
    from ipykernel.kernelspec import get_kernel_dict
    from jupyter_client import KernelManager
    from jupyter_client.kernelspec import KernelSpecManager

    class EstePython(KernelSpecManager):
        def get_kernel_spec(self, kernel_name):
            return self.kernel_spec_class(**get_kernel_dict())

    carpeta = tempfile.mkdtemp(prefix="kernel_") if os.name == "posix" else None
    canal = {"transport": "ipc", "ip": os.path.join(carpeta, "k")} if carpeta else {}
    km = KernelManager(kernel_name="python3", kernel_spec_manager=EstePython(), **canal)
    try:
        yield km
    finally:  # nbclient no apaga un kernel que no creó él
        if km.has_kernel:
            km.shutdown_kernel(now=True)
        if carpeta:
            shutil.rmtree(carpeta, ignore_errors=True)


def entorno_del_kernel(simulada: bool = False) -> dict:
    """El entorno del kernel: el paquete de esta carpeta importable, sin ``PYTEST_CURRENT_TEST``
    (con ella, ipykernel esconde lo que la parte en C escribe en stderr) y sin ``TRITON_INTERPRET``
    (la pone conftest.py para las pruebas; la lección 11 arranca como la de un alumno).
    ``simulada``: con ``CURSO_GPU_SIMULAR=T4`` (la T4 simulada); si no, sin esa variable.
    Los hilos de cálculo (``HILOS``) los fija este entorno; las lecciones no los tocan, salvo la 03, que los enseña."""
    fuera = ("PYTEST_CURRENT_TEST", "TRITON_INTERPRET", SIMULAR)
    entorno = {k: v for k, v in os.environ.items() if k not in fuera}
    otras = entorno.get("PYTHONPATH")
    entorno["PYTHONPATH"] = str(RAIZ) + (os.pathsep + otras if otras else "")
    # Los hilos los fija quien ejecuta, no la lección: un hilo de cálculo por kernel, como en cada
    # proceso de xdist (conftest.py). Las lecciones usan modelos diminutos, y en la máquina de 2
    # núcleos compartida más hilos se estorban: la lección 10, 20 s con un hilo y más de 90 s con dos
    # (medido el 7-12-2026, la máquina ocupada). Quien quiera otro número, lo pone en el entorno.
    for variable in HILOS:
        entorno.setdefault(variable, "1")
    if simulada:
        entorno[SIMULAR] = "T4"
    return entorno


def _arranque_de_cobertura() -> str:
    """La línea que el kernel ejecuta al arrancar para medir la cobertura (sin dejar nombres en la lección)."""
    modulo = Path(__file__).with_name("cobertura_kernel.py")
    return ("import importlib.util as _u; _s = _u.spec_from_file_location('cobertura_kernel', "
            f"{str(modulo)!r}); _m = _u.module_from_spec(_s); _s.loader.exec_module(_m); _m.iniciar(); "
            "del _u, _s, _m")


def ejecutar_notebook(ruta: str | Path, tiempo_celda_s: int = TIEMPO_CELDA_S, simulada: bool = False,
                      cobertura: str | Path | None = None):
    """Ejecuta ``ruta`` de principio a fin en su carpeta; devuelve el notebook con sus salidas.
    ``simulada``: en la T4 simulada (``CURSO_GPU_SIMULAR=T4``). ``cobertura``: un JSON donde el
    kernel guarda las líneas que ejecutó cada celda (``tests/cobertura_kernel.py``).

    Si una celda falla, lanza ``LeccionFallida`` con su número, su código y el error.
    El kernel se apaga siempre, también si algo falla.
    """
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError

    ruta = Path(ruta)
    cuaderno = nbformat.read(ruta, as_version=4)
    argumentos = ["--IPKernelApp.log_level=ERROR"]
    entorno = entorno_del_kernel(simulada)
    if cobertura is not None:
        entorno[COBERTURA] = str(cobertura)
        argumentos.append(f"--IPKernelApp.exec_lines={[_arranque_de_cobertura()]!r}")
    with gestor_de_kernel() as km:
        cliente = NotebookClient(cuaderno, km=km, timeout=tiempo_celda_s, startup_timeout=120,
                                 resources={"metadata": {"path": str(ruta.parent)}}, extra_arguments=argumentos)
        try:
            cliente.execute(env=entorno)
        except (CellExecutionError, CellTimeoutError, DeadKernelError) as error:
            donde = f"{ruta.name} (en la T4 simulada)" if simulada else ruta.name
            raise LeccionFallida(f"{donde}: {_celda_que_fallo(cuaderno)}\n{_sin_colores(str(error))}") from None
    return unir_flujos_seguidos(cuaderno)


def unir_flujos_seguidos(cuaderno):
    """Une en una las salidas ``stream`` seguidas del mismo nombre de cada celda, como las muestra Jupyter.

    El kernel envía lo impreso a trozos cuando vacía su búfer: con la máquina ocupada,
    ``print("igual:", True)`` puede llegar como ``"igual:"`` y ``" True\n"``. Unidas, una línea
    impresa es una línea del texto, y las pruebas la encuentran entera.
    """
    for celda in cuaderno.cells:
        unidas = []
        for salida in celda.get("outputs", []):
            anterior = unidas[-1] if unidas else None
            if (anterior is not None and salida.get("output_type") == "stream" == anterior.get("output_type")
                    and salida.get("name") == anterior.get("name")):
                anterior["text"] += salida.get("text", "")
            else:
                unidas.append(salida)
        if celda.get("cell_type") == "code":
            celda["outputs"] = unidas
    return cuaderno


def _sin_colores(texto: str) -> str:
    return re.sub(r"\x1b\[[0-9;]*m", "", texto).rstrip()


def _celda_que_fallo(cuaderno) -> str:
    codigo = [c for c in cuaderno.cells if c.cell_type == "code"]
    for numero, celda in enumerate(codigo):
        if any(s.get("output_type") == "error" for s in celda.get("outputs", [])):
            return f"falló la celda de código {numero}"
    return "falló una celda"


def texto_impreso(cuaderno) -> str:
    """Todo lo que imprimieron (stdout y stderr) las celdas de código de un notebook ejecutado, en orden."""
    return "\n".join(s.get("text", "") for c in cuaderno.cells if c.cell_type == "code"
                     for s in c.get("outputs", []) if s.get("output_type") == "stream")


def salidas_en_stderr(cuaderno) -> list[tuple[int, str]]:
    """Las celdas de código (número, texto) que escribieron en stderr sin la etiqueta ``stderr-esperado``."""
    encontradas = []
    codigo = [c for c in cuaderno.cells if c.cell_type == "code"]
    for numero, celda in enumerate(codigo):
        if STDERR_ESPERADO in celda.get("metadata", {}).get("tags", []):
            continue
        texto = "".join(s.get("text", "") for s in celda.get("outputs", [])
                        if s.get("output_type") == "stream" and s.get("name") == "stderr")
        if texto.strip():
            encontradas.append((numero, texto))
    return encontradas


def comprobar_sin_stderr(cuaderno, nombre: str) -> None:
    """Falla si alguna celda escribió en stderr (el texto rosa de Jupyter): una lección no debe."""
    sucias = salidas_en_stderr(cuaderno)
    if sucias:
        detalle = "\n".join(f"--- celda de código {n}:\n{t}" for n, t in sucias)
        raise LeccionFallida(f"{nombre}: {len(sucias)} celda(s) escribieron en stderr (una lección no debe):\n{detalle}")


# ---------------------------------------------------------------------------
# Una vez por sesión, compartida entre procesos
# ---------------------------------------------------------------------------

@dataclass
class Ejecutadas:
    """Las lecciones ejecutadas en una sesión de pruebas (una carpeta compartida por los procesos)."""

    carpeta: Path
    notebooks: Path = NOTEBOOKS
    guardar_en_cache_del_sitio: bool = True

    def __post_init__(self):
        self.carpeta, self.notebooks = Path(self.carpeta), Path(self.notebooks)
        self.carpeta.mkdir(parents=True, exist_ok=True)
        self._leidas: dict[str, object] = {}

    def __call__(self, numero: str | int, simulada: bool = False):
        """El notebook ejecutado de la lección ``numero`` (una copia: cambiarla no afecta a otras pruebas).
        ``simulada=True``: la ejecución en la T4 simulada, otra distinta."""
        ruta = ruta_de_leccion(numero, self.notebooks)
        clave = (ruta.name, simulada)
        if clave not in self._leidas:
            self._leidas[clave] = self._una_vez(ruta, simulada)
        return copy.deepcopy(self._leidas[clave])

    def cobertura(self, numero: str | int, simulada: bool = False) -> Path:
        """El JSON con las líneas que ejecutó cada celda de la lección (la ejecuta si aún no lo está)."""
        return self.ruta(numero, simulada).with_suffix(SUFIJO_COBERTURA)

    def ruta(self, numero: str | int, simulada: bool = False) -> Path:
        """Dónde queda la copia ejecutada de la lección (la ejecuta si aún no lo está)."""
        self(numero, simulada)
        return self.carpeta / self._nombre(ruta_de_leccion(numero, self.notebooks), simulada)

    @staticmethod
    def _nombre(ruta: Path, simulada: bool) -> str:
        return ruta.stem + SUFIJO_T4 + ruta.suffix if simulada else ruta.name

    def _una_vez(self, ruta: Path, simulada: bool = False):
        import nbformat

        nombre = self._nombre(ruta, simulada)
        copia, aviso = self.carpeta / nombre, self.carpeta / (Path(nombre).stem + ".fallo")
        with _cerrojo(self.carpeta / (Path(nombre).stem + ".cerrojo"), nombre):
            if aviso.is_file():
                raise LeccionFallida(aviso.read_text(encoding="utf-8"))
            if copia.is_file():
                return nbformat.read(copia, as_version=4)
            inicio = time.monotonic()
            try:
                cuaderno = ejecutar_notebook(ruta, simulada=simulada,
                                             cobertura=copia.with_suffix(SUFIJO_COBERTURA))
                comprobar_sin_stderr(cuaderno, nombre)
            except LeccionFallida as error:
                _escribir(aviso, str(error))
                raise
            except BaseException as error:  # un kernel que no arranca, Ctrl+C...
                _escribir(aviso, f"{nombre}: no se pudo ejecutar: {type(error).__name__}: {error}")
                raise
            segundos = time.monotonic() - inicio
            _escribir(copia, nbformat.writes(cuaderno))
            if self.guardar_en_cache_del_sitio and not simulada:  # el sitio muestra la ejecución en la CPU
                _guardar_para_el_sitio(cuaderno, ruta, segundos)
            return cuaderno


class _cerrojo:
    """``fcntl.flock`` exclusivo sobre ``ruta``, esperando como mucho ``ESPERA_CERROJO_S``."""

    def __init__(self, ruta: Path, que: str):
        self.ruta, self.que = ruta, que

    def __enter__(self):
        self.archivo = open(self.ruta, "a")
        limite = time.monotonic() + ESPERA_CERROJO_S
        while True:
            try:
                fcntl.flock(self.archivo, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return self
            except BlockingIOError:
                if time.monotonic() > limite:
                    self.archivo.close()
                    raise LeccionFallida(f"{self.que}: otro proceso lleva más de {ESPERA_CERROJO_S} s ejecutándola")
                time.sleep(0.2)

    def __exit__(self, *exc):
        fcntl.flock(self.archivo, fcntl.LOCK_UN)
        self.archivo.close()
        return False


def _escribir(destino: Path, texto: str) -> None:
    """Escribe de forma atómica: quien lee nunca ve una copia a medias."""
    temporal = destino.with_name(f".{destino.name}.{os.getpid()}.tmp")
    temporal.write_text(texto, encoding="utf-8")
    os.replace(temporal, destino)


def _guardar_para_el_sitio(cuaderno, ruta: Path, segundos: float) -> None:
    import warnings

    try:
        if str(HERRAMIENTAS) not in sys.path:
            sys.path.insert(0, str(HERRAMIENTAS))
        import lecciones_ejecutadas

        lecciones_ejecutadas.guardar(cuaderno, ruta, origen="pruebas", segundos=segundos)
    except Exception as error:  # la caché del sitio nunca hace fallar una prueba
        warnings.warn(f"No pude guardar {ruta.name} en la caché del sitio: {error}", stacklevel=2)
