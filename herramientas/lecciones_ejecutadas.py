"""Herramienta de mantenimiento: las lecciones ejecutadas, guardadas en una caché para el sitio.

No forma parte del paquete que importa quien sigue el curso. El sitio (``herramientas/sitio.py``)
necesita cada lección con sus salidas. Ejecutar las diez cuesta minutos de CPU, así que cada
copia ejecutada se guarda en una carpeta (por defecto ``_build/ejecuciones/``) con una clave: la
huella del notebook y del código del paquete ``curso_gpu``. Si ninguno cambió, se reutiliza.

La caché se llena de dos maneras:

- ``ejecutar(notebooks, cache)``: nbclient, **una lección tras otra y en orden** (la 10 encuentra el
  adaptador que guardó la 09), todas en una misma carpeta de trabajo nueva y neutral (una temporal:
  ni el repositorio ni ``notebooks/``), con el paquete importable (``PYTHONPATH`` con la raíz) y sin
  ``PYTEST_CURRENT_TEST`` (con ella, ipykernel esconde lo que la parte en C escribe en stderr). Son
  copias **limpias**: lo que vería un alumno que sigue el curso en orden en una máquina tranquila.
- ``RegistroNbval``: durante las pruebas, nbval ya ejecuta cada notebook. El ``conftest.py`` de la
  raíz le pone este registro, que anota los mensajes del kernel celda a celda, rehace las salidas
  como las guardaría Jupyter (incluidas las actualizaciones de una salida ya mostrada, que nbval
  descarta: las barras de progreso cerradas y la pizarra de la lección 05) y guarda la copia aquí.
  Así la prueba del sitio no ejecuta las lecciones una segunda vez. Esas copias no son limpias (van
  en paralelo, en ``notebooks/``, en una máquina ocupada): el sitio no las publica salvo que se le pida
  (``--copias-de-las-pruebas``, lo que hace la prueba del sitio).

Cada copia lleva en sus metadatos (``METADATOS``) cómo se hizo: ``limpia`` es True solo para las de
``ejecutar``.

Solo importa la biblioteca estándar y ``curso_gpu.base`` (sin torch): lo carga el ``conftest.py``.
"""

from __future__ import annotations

import copy
import datetime as dt
import hashlib
import os
import sys
import time
from collections.abc import Iterable
from pathlib import Path

RAIZ = Path(__file__).resolve().parent.parent
if str(RAIZ) not in sys.path:  # para usarla sin instalar el paquete
    sys.path.insert(0, str(RAIZ))
from curso_gpu.base import VISTA_WIDGET  # noqa: E402  (ligero: no carga torch)

NOTEBOOKS = RAIZ / "notebooks"
PAQUETE = RAIZ / "curso_gpu"
CACHE = RAIZ / "_build" / "ejecuciones"
PATRON_LECCION = "[0-9][0-9]_*.ipynb"
# Sube este número si cambia lo que se guarda en la caché: las copias viejas dejan de valer.
FORMATO = 2
METADATOS = "curso_gpu_ejecucion"  # la clave, en los metadatos del notebook, de quién lo ejecutó y dónde
LECCIONES_PREVIAS = {"10": ("09",)}
"""Lo que una lección usa de otra anterior (la 10 genera con el adaptador que guarda la 09): para
ejecutar la 10 de forma limpia, la 09 se ejecuta antes, en la misma carpeta."""


# ---------------------------------------------------------------------------
# Qué lecciones hay y su clave
# ---------------------------------------------------------------------------

def lecciones(carpeta: str | Path = NOTEBOOKS) -> list[Path]:
    """Los notebooks ``NN_nombre.ipynb`` que existan en ``carpeta``, en orden de lección."""
    return sorted(Path(carpeta).glob(PATRON_LECCION))


def huella_paquete(paquete: str | Path = PAQUETE) -> str:
    """La huella (sha256) de todo el código de ``curso_gpu``: cambia si cambia cualquier ``.py``."""
    paquete = Path(paquete)
    h = hashlib.sha256()
    for ruta in sorted(paquete.rglob("*.py")):
        h.update(ruta.relative_to(paquete).as_posix().encode() + b"\0")
        h.update(ruta.read_bytes() + b"\0")
    return h.hexdigest()


def clave(notebook: str | Path, paquete: str | None = None) -> str:
    """La clave de la copia ejecutada de ``notebook``: su contenido y el código del paquete."""
    h = hashlib.sha256(f"formato {FORMATO}\0".encode())
    h.update(Path(notebook).read_bytes() + b"\0")
    h.update((paquete or huella_paquete()).encode())
    return h.hexdigest()[:20]


def ruta_en_cache(notebook: str | Path, cache: str | Path = CACHE, paquete: str | None = None) -> Path:
    """Dónde va (o está) la copia ejecutada de ``notebook`` con el contenido de ahora."""
    notebook = Path(notebook)
    return Path(cache) / f"{notebook.stem}-{clave(notebook, paquete)}.ipynb"


def ruta_fallo(notebook: str | Path, cache: str | Path = CACHE, paquete: str | None = None) -> Path:
    """El aviso de que esta versión de ``notebook`` falló al ejecutarse (nadie debe esperarla)."""
    return ruta_en_cache(notebook, cache, paquete).with_suffix(".fallo")


def leer(notebook: str | Path, cache: str | Path = CACHE, paquete: str | None = None, solo_limpias: bool = False):
    """La copia ejecutada de ``notebook`` (un ``NotebookNode``) si está en la caché; si no, None.
    Con ``solo_limpias``, solo una copia limpia (``es_limpia``): las de las pruebas no valen."""
    import nbformat

    ruta = ruta_en_cache(notebook, cache, paquete)
    if not ruta.is_file():
        return None
    cuaderno = nbformat.read(ruta, as_version=4)
    return cuaderno if not solo_limpias or es_limpia(cuaderno) else None


def es_limpia(cuaderno) -> bool:
    """¿Se hizo esta copia de forma limpia (``ejecutar``: sola, en orden, en una carpeta neutral)?"""
    return bool((cuaderno.metadata.get(METADATOS) or {}).get("limpia"))


def con_previas(notebooks: Iterable[Path], todas: Iterable[Path]) -> list[Path]:
    """``notebooks`` más las lecciones de ``todas`` que necesitan antes (``LECCIONES_PREVIAS``), en orden de lección."""
    por_numero = {Path(r).name[:2]: Path(r) for r in todas}
    elegidas = {Path(r).name[:2]: Path(r) for r in notebooks}
    for numero in list(elegidas):
        for previa in LECCIONES_PREVIAS.get(numero, ()):
            if previa in por_numero:
                elegidas.setdefault(previa, por_numero[previa])
    return [elegidas[n] for n in sorted(elegidas)]


def fallo(notebook: str | Path, cache: str | Path = CACHE, paquete: str | None = None) -> str | None:
    """El motivo por el que esta versión de ``notebook`` falló al ejecutarse, o None."""
    ruta = ruta_fallo(notebook, cache, paquete)
    return ruta.read_text(encoding="utf-8") if ruta.is_file() else None


# ---------------------------------------------------------------------------
# Escribir en la caché
# ---------------------------------------------------------------------------

def _escribir_texto(destino: Path, texto: str) -> None:
    """Escribe ``texto`` en ``destino`` de forma atómica (temporal único y ``os.replace``)."""
    from curso_gpu.guardado import escribir_atomico

    destino.parent.mkdir(parents=True, exist_ok=True)
    escribir_atomico(destino, lambda archivo: archivo.write(texto.encode("utf-8")))


def describir_dispositivo() -> str:
    """Dónde se ejecutan las lecciones en esta máquina: «CPU: Intel(R) Xeon(R) … · PyTorch 2.13.0»."""
    import torch

    from curso_gpu.dispositivo import elegir_dispositivo, nombre_dispositivo

    dispositivo = elegir_dispositivo("auto")
    tipo = {"cpu": "CPU", "cuda": "GPU", "mps": "GPU de Apple (MPS)", "xpu": "GPU Intel (XPU)"}.get(
        dispositivo.type, dispositivo.type)
    return f"{tipo}: {nombre_dispositivo(dispositivo)} · PyTorch {torch.__version__}"


def guardar(cuaderno, notebook: str | Path, cache: str | Path = CACHE, origen: str = "sitio",
            segundos: float | None = None, dispositivo: str | None = None, limpia: bool = False) -> Path:
    """Guarda la copia ejecutada ``cuaderno`` de ``notebook`` en la caché; devuelve su ruta.

    Anota en sus metadatos cuándo, dónde (``dispositivo``), quién (``origen``: «sitio» o
    «pruebas») la ejecutó y si es ``limpia`` (sola, en orden, en una carpeta neutral: ``ejecutar``),
    y quita el estado de los widgets: el sitio muestra su copia fija.
    Las copias de versiones anteriores del mismo notebook se borran (son solo caché).
    """
    import nbformat

    notebook, cache = Path(notebook), Path(cache)
    destino = ruta_en_cache(notebook, cache)
    cuaderno = copy.deepcopy(cuaderno)
    cuaderno.metadata.pop("widgets", None)
    cuaderno.metadata[METADATOS] = {
        "fecha": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "dispositivo": dispositivo or describir_dispositivo(),
        "origen": origen,
        "segundos": None if segundos is None else round(segundos, 1),
        "limpia": bool(limpia),
    }
    _escribir_texto(destino, nbformat.writes(cuaderno))
    for vieja in cache.glob(f"{notebook.stem}-*"):
        if vieja.name != destino.name and vieja.suffix in (".ipynb", ".fallo"):
            vieja.unlink(missing_ok=True)
    return destino


def marcar_fallo(notebook: str | Path, motivo: str, cache: str | Path = CACHE) -> Path:
    """Deja constancia de que esta versión de ``notebook`` falló: así nadie la espera."""
    destino = ruta_fallo(notebook, cache)
    _escribir_texto(destino, motivo)
    return destino


def esperar(notebooks: Iterable[Path], cache: str | Path = CACHE, espera_s: float = 300.0,
            cada_s: float = 1.0) -> list[Path]:
    """Espera, como mucho ``espera_s``, a que otro proceso guarde esos notebooks (o falle).

    Devuelve los que siguen sin copia ejecutada al terminar (los fallidos incluidos).
    """
    notebooks = list(notebooks)
    paquete = huella_paquete()
    limite = time.monotonic() + espera_s
    while True:
        sin_copia = [nb for nb in notebooks if not ruta_en_cache(nb, cache, paquete).is_file()]
        en_curso = [nb for nb in sin_copia if fallo(nb, cache, paquete) is None]
        if not en_curso or time.monotonic() >= limite:
            return sin_copia
        time.sleep(cada_s)


# ---------------------------------------------------------------------------
# Ejecutar con nbclient
# ---------------------------------------------------------------------------

def entorno_kernel(paralelo: int = 1) -> dict:
    """El entorno de los kernels: el paquete importable, sin ``PYTEST_CURRENT_TEST`` y sin
    ``CURSO_GPU_SIMULAR``: el sitio nunca publica una ejecución en la T4 simulada (sus tiempos son
    de la CPU), aunque la variable esté puesta en la terminal de quien lo construye.

    Con varias lecciones a la vez, cada kernel usa su parte de los núcleos (si no lo fija ya
    ``OMP_NUM_THREADS``): si no, competirían por la CPU y las medidas saldrían peor.
    """
    entorno = dict(os.environ)
    entorno.pop("PYTEST_CURRENT_TEST", None)
    entorno.pop("CURSO_GPU_SIMULAR", None)  # curso_gpu.dispositivo.VARIABLE_SIMULAR (importarla cargaría torch)
    otras = entorno.get("PYTHONPATH")
    entorno["PYTHONPATH"] = str(RAIZ) + (os.pathsep + otras if otras else "")
    for variable in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):  # las lecciones no los fijan (salvo la 03)
        entorno.setdefault(variable, str(max(1, (os.cpu_count() or 1) // max(paralelo, 1))))
    return entorno


class LeccionFallida(RuntimeError):
    """Una lección terminó con un error: el sitio no se construye con salidas a medias."""


def ejecutar(notebooks: Iterable[Path], cache: str | Path = CACHE, tiempo_celda_s: int = 600,
             avisar=print) -> dict[Path, Path]:
    """Ejecuta ``notebooks`` de forma limpia y guarda cada uno en la caché (``limpia=True``).

    Una lección tras otra, en orden de lección (con las que necesitan antes: ``con_previas``),
    todas en la misma carpeta de trabajo, nueva y temporal: lo que guarda una (el adaptador de la
    09) lo encuentra la siguiente, y ninguna ruta de la construcción sale en sus salidas (las rutas
    que muestran son relativas a esa carpeta). La carpeta se borra al terminar.

    Devuelve {notebook: copia ejecutada}. Si una falla, las siguientes se ejecutan igual (quedan
    guardadas) y al final lanza ``LeccionFallida`` con la celda y el error de cada fallo.
    """
    import tempfile

    import nbformat
    from nbclient import NotebookClient

    notebooks = [Path(r) for r in notebooks]
    if notebooks:
        notebooks = con_previas(notebooks, lecciones(notebooks[0].parent))
    dispositivo = describir_dispositivo()
    entorno = entorno_kernel(1)
    hechas, fallos = {}, []
    with tempfile.TemporaryDirectory(prefix="curso_gpu_leccion_") as carpeta:
        for ruta in notebooks:
            inicio = time.monotonic()
            try:
                cuaderno = nbformat.read(ruta, as_version=4)
                cliente = NotebookClient(cuaderno, timeout=tiempo_celda_s, kernel_name="python3",
                                         resources={"metadata": {"path": carpeta}},
                                         extra_arguments=["--IPKernelApp.log_level=ERROR"])
                cliente.execute(env=entorno)
            except Exception as error:  # la celda y el error, para quien construye el sitio
                motivo = resumen_del_error(error)
                marcar_fallo(ruta, motivo, cache)
                fallos.append(f"--- {ruta.name}:\n{motivo}")
                continue
            segundos = time.monotonic() - inicio
            hechas[ruta] = guardar(cuaderno, ruta, cache, "sitio", segundos, dispositivo, limpia=True)
            avisar(f"  {ruta.name}: ejecutada en {segundos:.0f} s")
    if fallos:
        raise LeccionFallida("Estas lecciones fallaron al ejecutarse; corrígelas y repite:\n" + "\n".join(fallos))
    return hechas


def resumen_del_error(error: BaseException, lineas: int = 12) -> str:
    """El final del error de una lección, sin los colores de la terminal: lo que hay que leer."""
    import re

    texto = re.sub(r"\x1b\[[0-9;]*m", "", f"{type(error).__name__}: {error}").rstrip()
    return "\n".join(texto.splitlines()[-lineas:])


# ---------------------------------------------------------------------------
# Las salidas de nbval, como las guardaría Jupyter
# ---------------------------------------------------------------------------

class RegistroNbval:
    """Anota los mensajes del kernel que lee nbval y rehace con ellos el notebook ejecutado.

    nbval guarda en cada celda lo que salió, pero descarta ``update_display_data`` (una salida
    ya mostrada que cambia: la barra de progreso que al cerrarse deja su copia fija, la pizarra
    que se activa al terminar de entrenar) y ``clear_output``. Aquí se aplican como lo hace
    nbclient, también cuando una celda posterior actualiza la salida de otra anterior.
    """

    def __init__(self, cuaderno):
        self.cuaderno = copy.deepcopy(cuaderno)
        self.codigo = [c for c in self.cuaderno.cells if c.cell_type == "code"]
        for celda in self.codigo:
            celda.outputs, celda.execution_count = [], None
        self.celda_de_mensaje: dict[str, int] = {}
        self.ejecutadas: set[int] = set()
        self.actual: int | None = None
        self.fallida = False
        self._por_id: dict[str, list[tuple[int, int]]] = {}
        self._limpiar_antes: set[int] = set()
        self.inicio = time.monotonic()

    # -- lo que llama conftest.py ---------------------------------------------------------
    def empezar(self, celda: int) -> None:
        self.actual = celda

    def ejecutada(self, celda: int, msg_id: str) -> None:
        """La celda ``celda`` se envió al kernel con el mensaje ``msg_id``."""
        self.celda_de_mensaje[msg_id] = celda
        self.ejecutadas.add(celda)

    def segundos(self) -> float:
        """Cuánto lleva el notebook desde que nbval ejecutó su primera celda."""
        return time.monotonic() - self.inicio

    def completo(self) -> bool:
        return not self.fallida and self.ejecutadas == set(range(len(self.codigo)))

    # -- rehacer las salidas ------------------------------------------------------------
    def mensaje(self, msg: dict) -> None:
        """Aplica un mensaje del canal iopub a las salidas del notebook."""
        import nbformat

        padre = (msg.get("parent_header") or {}).get("msg_id")
        indice = self.celda_de_mensaje.get(padre, self.actual)
        if indice is None:
            return
        tipo, contenido = msg["msg_type"], msg["content"]
        if tipo == "execute_input":  # nbval no guarda la historia: el número sería siempre 1
            self.codigo[indice].execution_count = indice + 1
            return
        if tipo == "execute_result" and termina_en_punto_y_coma(self.codigo[indice].source):
            return  # Jupyter no lo muestra; nbval ejecuta sin historia e IPython no ve el «;»
        if tipo == "clear_output":
            if contenido.get("wait"):
                self._limpiar_antes.add(indice)
            else:
                self._limpiar(indice)
            return
        if tipo == "update_display_data":
            ident = (contenido.get("transient") or {}).get("display_id")
            for celda, posicion in self._por_id.get(ident, []):
                salida = self.codigo[celda].outputs[posicion]
                salida["data"], salida["metadata"] = contenido["data"], contenido.get("metadata", {})
            return
        if tipo not in ("stream", "display_data", "execute_result", "error"):
            return
        if indice in self._limpiar_antes:
            self._limpiar(indice)
        salidas = self.codigo[indice].outputs
        if tipo == "stream" and salidas and salidas[-1].get("output_type") == "stream" \
                and salidas[-1].get("name") == contenido["name"]:
            salidas[-1]["text"] += contenido["text"]
            return
        if tipo == "stream":
            salida = nbformat.v4.new_output("stream", name=contenido["name"], text=contenido["text"])
        elif tipo == "error":
            salida = nbformat.v4.new_output("error", ename=contenido["ename"], evalue=contenido["evalue"],
                                            traceback=contenido["traceback"])
        else:
            salida = nbformat.v4.new_output(tipo, data=contenido["data"], metadata=contenido.get("metadata", {}))
            if tipo == "execute_result":
                salida["execution_count"] = contenido.get("execution_count")
            ident = (contenido.get("transient") or {}).get("display_id")
            if ident:
                self._por_id.setdefault(ident, []).append((indice, len(salidas)))
        salidas.append(salida)

    def _limpiar(self, indice: int) -> None:
        self._limpiar_antes.discard(indice)
        self.codigo[indice].outputs = []
        for ident, lugares in self._por_id.items():
            self._por_id[ident] = [(c, p) for c, p in lugares if c != indice]

    def resultado(self):
        """El notebook con las salidas rehechas (un ``NotebookNode`` nuevo)."""
        return copy.deepcopy(self.cuaderno)


def termina_en_punto_y_coma(codigo: str) -> bool:
    """¿Acaba la celda en «;»? (IPython entonces no muestra su resultado, como en Jupyter)."""
    import io
    import tokenize

    try:
        fichas = list(tokenize.generate_tokens(io.StringIO(codigo).readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return False
    ignorar = (tokenize.ENDMARKER, tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT, tokenize.DEDENT,
               tokenize.INDENT)
    for ficha in reversed(fichas):
        if ficha.type not in ignorar:
            return ficha.type == tokenize.OP and ficha.string == ";"
    return False


def sin_vistas_de_widget(cuaderno) -> int:
    """Quita la vista de widget de las salidas que traen además HTML; devuelve cuántas quitó.

    Sin red ni estado de los widgets, esa vista sería un hueco en blanco: la copia fija en HTML
    (``con_respaldo_html``, la barra de progreso cerrada) es lo que se lee.
    """
    quitadas = 0
    for celda in cuaderno.cells:
        for salida in celda.get("outputs", []):
            datos = salida.get("data", {})
            if VISTA_WIDGET in datos and "text/html" in datos:
                del datos[VISTA_WIDGET]
                quitadas += 1
    return quitadas


if __name__ == "__main__":  # pragma: no cover - solo para mirar la caché a mano
    for ruta in lecciones():
        print(ruta.name, "en caché" if ruta_en_cache(ruta).is_file() else "sin ejecutar")
    sys.exit(0)
