"""Un servidor de verdad, compatible con la API de OpenAI, como proceso hijo: ``Servidor``. Lección 13.

``with Servidor("mi_modelo") as servidor:`` arranca ``transformers serve`` (o ``vllm serve`` donde hay
vLLM y una GPU) en un puerto libre de 127.0.0.1, espera a que ``/health`` responda y da su dirección
en ``servidor.url``. Al salir del ``with`` (bien, con una excepción o con una interrupción del kernel)
para el servidor y todo lo que cuelgue de él. Si el proceso dueño muere, incluso con SIGKILL, el
servidor lo nota (``curso_gpu.distribuido.vigilar_padre``, lección 08) y se apaga solo.

Lo que escribe el servidor queda en un archivo (``servidor.registro``); si muere al arrancar, el error
muestra sus últimas líneas.
"""

from __future__ import annotations

import atexit
import importlib.util
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
import weakref
from pathlib import Path

from ..base import leer_numero, mostrar_valor
from ..distribuido import PuertoOcupado, puerto_en_uso, puerto_libre, sigue_vivo

__all__ = ["ANFITRION", "MOTORES", "Servidor", "ServidorNoArranca", "hay_vllm"]

ANFITRION = "127.0.0.1"
"""Solo la propia máquina: el servidor no escucha en la red (en Colab, servidor y cliente van en el mismo notebook)."""

MOTORES = ("transformers", "vllm")
_FALTA_SERVING = ("fastapi", "uvicorn", "openai")  # lo que añade el extra transformers[serving]
_LINEAS_DEL_REGISTRO = 15
_GRACIA_S = 5.0  # tras SIGTERM, lo que se espera antes de SIGKILL
_BLOQUES_CPU = 128
"""En la CPU, ``--continuous-batching`` de transformers 5.25 reserva la caché KV según la memoria del
sistema: con el modelo diminuto, 14 GB de RAM (medido aquí: el proceso del modelo, 14 365 MiB; el
sistema lo mató por falta de memoria). Con 128 bloques, unos 1.2 GB en total: de sobra para 8
usuarios de 256 tokens. Si das ``--cb-num-blocks`` o ``--cb-max-memory-percent`` en ``extra``, mandan."""
_vivos: "weakref.WeakSet[Servidor]" = weakref.WeakSet()


class ServidorNoArranca(RuntimeError):
    """El servidor murió al arrancar o no llegó a responder en ``/health`` a tiempo."""


def hay_vllm() -> bool:
    """¿Se puede servir con vLLM aquí? Hace falta el paquete ``vllm`` y una GPU de verdad (no la simulada)."""
    if importlib.util.find_spec("vllm") is None:
        return False
    from ..dispositivo import simulacion_activa

    if simulacion_activa():
        return False
    import torch  # solo en una GPU real: con vLLM instalado

    return torch.cuda.is_available()  # solo en una GPU real: con vLLM instalado


def _carpeta_o_nombre(modelo) -> str:
    """La carpeta del modelo (con su ``config.json``) o un nombre del Hub (``org/nombre``), o un error."""
    if isinstance(modelo, bool) or not isinstance(modelo, (str, os.PathLike)) or not str(modelo).strip():
        raise ValueError(f"modelo debe ser la carpeta de un modelo guardado con save_pretrained (o un nombre del Hub "
                         f"como 'Qwen/Qwen2.5-0.5B-Instruct'); recibí {mostrar_valor(modelo)}.")
    texto = os.fspath(modelo)
    ruta = Path(texto).expanduser()
    parece_ruta = isinstance(modelo, os.PathLike) or ruta.is_absolute() or texto.startswith((".", "~")) \
        or texto.count("/") != 1
    if ruta.is_dir():
        if not (ruta / "config.json").is_file():
            raise FileNotFoundError(f"La carpeta {texto!r} no tiene config.json: no es un modelo guardado. Guárdalo "
                                    "antes con modelo.save_pretrained(carpeta) y tokenizador.save_pretrained(carpeta).")
        return str(ruta.resolve())
    if ruta.exists() or parece_ruta:
        raise FileNotFoundError(f"No existe la carpeta del modelo {texto!r}. Revisa la ruta, o guarda antes el modelo "
                                "con modelo.save_pretrained(carpeta) y tokenizador.save_pretrained(carpeta).")
    return texto  # un nombre del Hub: lo descarga el servidor la primera vez


def _comprobar_motor(motor: str) -> None:
    if motor == "vllm":
        if importlib.util.find_spec("vllm") is None:
            raise ModuleNotFoundError("Falta vLLM: instálalo con pip install vllm (necesita una GPU de NVIDIA; en una "
                                      "T4, la lección 13 dice qué versión), o usa motor='transformers'.")
        return
    faltan = [m for m in _FALTA_SERVING if importlib.util.find_spec(m) is None]
    if faltan:
        raise ModuleNotFoundError(f"Falta transformers[serving] (no encuentro {', '.join(faltan)}): instálalo con "
                                  "pip install \"transformers[serving]\" y vuelve a ejecutar la celda.")


class Servidor:
    """Un servidor compatible con la API de OpenAI en 127.0.0.1, como proceso hijo. Lección 13.

    ``modelo``: la carpeta de un modelo guardado con ``save_pretrained`` (o un nombre del Hub).
    ``puerto``: None elige uno libre. ``lotes_continuos``: ``--continuous-batching`` de
    ``transformers serve`` (vLLM los usa siempre). ``motor``: "transformers", "vllm" o None (vLLM si
    está instalado y hay una GPU). ``dispositivo``: "cpu", "cuda"… o None (la GPU si hay una de verdad).
    ``max_model_len``: el largo máximo (entrada + respuesta) en tokens. ``extra``: más opciones para la
    orden. ``espera_s``: cuánto esperar a ``/health``. Se usa con ``with``, o con ``iniciar()`` y
    ``detener()`` en un notebook.
    """

    def __init__(self, modelo, *, puerto: int | None = None, lotes_continuos: bool = False, motor: str | None = None,
                 dispositivo: str | None = None, max_model_len: int | None = None, extra=(), espera_s: float = 180,
                 registro=None):
        self.modelo = _carpeta_o_nombre(modelo)
        if motor is None:
            motor = "vllm" if hay_vllm() else "transformers"
        if motor not in MOTORES:
            raise ValueError(f"motor debe ser uno de {', '.join(MOTORES)} (o None: el que haya); recibí {mostrar_valor(motor)}.")
        self.motor = motor
        if not isinstance(lotes_continuos, bool):
            raise ValueError(f"lotes_continuos debe ser True o False; recibí {mostrar_valor(lotes_continuos)}.")
        self.lotes_continuos = lotes_continuos
        self.puerto = None if puerto is None else leer_numero(puerto, "puerto", entero=True, minimo=1, maximo=65535,
                                                              ejemplo="puerto=None (uno libre) o puerto=8000")
        if dispositivo is not None and (not isinstance(dispositivo, str) or not dispositivo.strip()):
            raise ValueError(f"dispositivo debe ser un texto como 'cpu' o 'cuda' (o None); recibí {mostrar_valor(dispositivo)}.")
        self.dispositivo = dispositivo
        self.max_model_len = None if max_model_len is None else leer_numero(
            max_model_len, "max_model_len", entero=True, minimo=1, ejemplo="max_model_len=2048")
        if isinstance(extra, str) or not all(isinstance(x, str) for x in extra):
            raise ValueError(f"extra debe ser una lista de textos, como ['--dtype', 'half']; recibí {mostrar_valor(extra)}.")
        self.extra = list(extra)
        self.espera_s = leer_numero(espera_s, "espera_s", minimo=0, minimo_incluido=False, ejemplo="espera_s=120")
        self.registro = None if registro is None else Path(registro)
        self.proceso: subprocess.Popen | None = None
        self.segundos_arranque: float | None = None
        self._inicio = 0.0
        self._carpeta_temporal: str | None = None

    # --- la orden ---------------------------------------------------------------------------------
    def _dispositivo(self) -> str:
        if self.dispositivo is not None:
            return self.dispositivo
        from ..dispositivo import simulacion_activa

        if simulacion_activa() or "torch" not in sys.modules and importlib.util.find_spec("torch") is None:
            return "cpu"  # la T4 simulada calcula en la CPU: el servidor, también
        import torch

        return "cuda" if torch.cuda.is_available() else "cpu"

    def orden(self) -> list[str]:
        """La orden que se ejecuta (sin el envoltorio que vigila al padre), tal como la escribirías en una terminal."""
        puerto = str(self.puerto if self.puerto is not None else "PUERTO")
        if self.motor == "vllm":
            orden = ["vllm", "serve", self.modelo, "--host", ANFITRION, "--port", puerto]
            if self.max_model_len is not None:
                orden += ["--max-model-len", str(self.max_model_len)]
            return orden + self.extra
        orden = ["transformers", "serve", self.modelo, "--device", self._dispositivo(), "--host", ANFITRION,
                 "--port", puerto, "--log-level", "warning"]
        if self.lotes_continuos:
            orden.append("--continuous-batching")
            if self._dispositivo() == "cpu" and not {"--cb-num-blocks", "--cb-max-memory-percent"} & set(self.extra):
                orden += ["--cb-num-blocks", str(_BLOQUES_CPU)]
        if self.max_model_len is not None:
            orden += ["--max-model-len", str(self.max_model_len)]
        return orden + self.extra

    @property
    def url(self) -> str:
        """``http://127.0.0.1:PUERTO``: la dirección base; la API de OpenAI está en ``url + "/v1"``."""
        if self.puerto is None:
            raise RuntimeError("El servidor aún no tiene puerto: arráncalo antes con servidor.iniciar() o con «with».")
        return f"http://{ANFITRION}:{self.puerto}"

    # --- arrancar -------------------------------------------------------------------------------
    def iniciar(self) -> "Servidor":
        """Arranca el proceso (sin esperar a que responda; ``esperar()`` espera). Devuelve el servidor."""
        if self.proceso is not None and self.proceso.poll() is None:
            return self
        _comprobar_motor(self.motor)
        if self.puerto is None:
            self.puerto = puerto_libre(ANFITRION)
        elif puerto_en_uso(self.puerto, ANFITRION):
            raise PuertoOcupado(f"El puerto {self.puerto} ya está en uso: ¿sigue encendido otro servidor (de otra "
                                "celda, o de una ejecución anterior)? Detenlo con servidor.detener(), o usa puerto=None "
                                "y te doy uno libre.")
        if self.registro is None:
            self._carpeta_temporal = tempfile.mkdtemp(prefix="curso_gpu_servidor_")
            self.registro = Path(self._carpeta_temporal) / "servidor.log"
        entorno = dict(os.environ)
        entorno.pop("CURSO_GPU_SIMULAR", None)  # el servidor es un programa aparte: no hereda la T4 simulada
        raiz = str(Path(__file__).resolve().parents[2])
        entorno["PYTHONPATH"] = os.pathsep.join([raiz] + [p for p in [entorno.get("PYTHONPATH")] if p])
        entorno["PYTHONUNBUFFERED"] = "1"
        if Path(self.modelo).is_dir():
            entorno["HF_HUB_OFFLINE"] = "1"  # un modelo local: nada que descargar
        with open(self.registro, "ab") as archivo:
            self.proceso = subprocess.Popen(
                [sys.executable, "-m", "curso_gpu.servir._hijo", *self.orden()], stdin=subprocess.DEVNULL,
                stdout=archivo, stderr=subprocess.STDOUT, env=entorno, start_new_session=True)
        self._inicio = time.perf_counter()
        _vivos.add(self)
        return self

    def ultimas_lineas(self, n: int = _LINEAS_DEL_REGISTRO) -> str:
        """Las últimas ``n`` líneas del registro del servidor (lo que escribió en su salida)."""
        if self.registro is None or not self.registro.is_file():
            return ""
        lineas = self.registro.read_text(encoding="utf-8", errors="replace").replace("\r", "\n").splitlines()
        return "\n".join(linea for linea in lineas[-n:])

    def _salud(self) -> bool:
        try:
            with urllib.request.urlopen(self.url + "/health", timeout=2) as respuesta:
                return respuesta.status == 200
        except (urllib.error.URLError, OSError, ValueError):
            return False

    def esperar(self) -> "Servidor":
        """Espera a que ``/health`` responda (hasta ``espera_s``). Si muere o no llega, lo para y lo dice."""
        if self.proceso is None:
            raise RuntimeError("Arranca antes el servidor con servidor.iniciar() (o usa «with Servidor(...)»).")
        try:
            limite = self._inicio + self.espera_s
            while not self._salud():
                codigo = self.proceso.poll()
                if codigo is not None:
                    raise ServidorNoArranca(
                        f"El servidor terminó al arrancar (código {codigo}). Sus últimas líneas "
                        f"({self.registro}):\n{self.ultimas_lineas()}")
                if time.perf_counter() > limite:
                    raise ServidorNoArranca(
                        f"El servidor no respondió en /health en {self.espera_s:g} s: lo he parado. Si la máquina va "
                        f"cargada, prueba con espera_s más grande. Sus últimas líneas ({self.registro}):\n"
                        f"{self.ultimas_lineas()}")
                time.sleep(0.2)
        except BaseException:  # también una interrupción del kernel: ningún servidor a medio arrancar
            self.detener(conservar_registro=True)  # el error cita su registro: que siga ahí para leerlo
            raise
        self.segundos_arranque = time.perf_counter() - self._inicio
        return self

    def modelos(self) -> list[str]:
        """Los nombres que el servidor acepta en ``"model"`` (``GET /v1/models``)."""
        with urllib.request.urlopen(self.url + "/v1/models", timeout=10) as respuesta:
            return [m["id"] for m in json.load(respuesta).get("data", [])]

    # --- parar ------------------------------------------------------------------------------------
    @property
    def vivo(self) -> bool:
        return self.proceso is not None and self.proceso.poll() is None

    def detener(self, conservar_registro: bool = False) -> None:
        """Para el servidor y todo lo que cuelga de él: SIGTERM y, a los pocos segundos, SIGKILL.

        Si el registro estaba en una carpeta temporal del curso (no diste ``registro``), la borra al
        terminar, salvo con ``conservar_registro=True``: así lo pide ``esperar()`` cuando el servidor no
        llega a arrancar, y ``with`` cuando sale por un error, para que puedas leer su registro.
        """
        proceso, self.proceso = self.proceso, None
        _vivos.discard(self)
        if proceso is None:
            return
        import psutil

        try:
            raiz = psutil.Process(proceso.pid)
            arbol = [raiz] + raiz.children(recursive=True)
        except psutil.Error:
            arbol = []
        for p in arbol:
            try:
                p.send_signal(signal.SIGTERM)
            except psutil.Error:
                pass
        _, quedan = psutil.wait_procs(arbol, timeout=_GRACIA_S)
        for p in quedan:
            try:
                p.kill()
            except psutil.Error:
                pass
        try:
            os.killpg(proceso.pid, signal.SIGKILL)  # su sesión entera (start_new_session): nada se escapa
        except (OSError, AttributeError):
            pass
        try:
            proceso.wait(timeout=_GRACIA_S)
        except subprocess.TimeoutExpired:
            pass
        carpeta = getattr(self, "_carpeta_temporal", None)
        if carpeta is not None and not conservar_registro:
            shutil.rmtree(carpeta, ignore_errors=True)  # solo la carpeta que creó iniciar(), nunca una tuya
            self._carpeta_temporal = self.registro = None

    def __enter__(self) -> "Servidor":
        return self.iniciar().esperar()

    def __exit__(self, tipo, *excepcion) -> None:
        self.detener(conservar_registro=tipo is not None)

    def __del__(self):
        if getattr(self, "proceso", None) is not None and sigue_vivo(self.proceso.pid):
            self.detener()

    def __repr__(self) -> str:
        estado = "encendido" if self.vivo else "apagado"
        donde = f" en {self.url}" if self.puerto is not None else ""
        return f"Servidor({self.motor}, {Path(self.modelo).name!r}{donde}, {estado})"


@atexit.register
def _apagar_todos() -> None:
    """Al salir Python (o reiniciar el kernel con orden), ningún servidor queda encendido."""
    for servidor in list(_vivos):
        servidor.detener()
