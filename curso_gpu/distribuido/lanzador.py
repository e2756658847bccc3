"""Lanzar ``torchrun`` desde Python (un notebook, una prueba) sin dejar procesos huérfanos. Lección 08.

- ``orden_torchrun(programa, procesos=2, ...)``: la orden ``python -m torch.distributed.run``
  (lo mismo que ``torchrun``, pero con el Python del notebook: funciona igual en Colab,
  Kaggle, JupyterLab y CI). Con ``nodos=2`` simula dos máquinas en 127.0.0.1.
- ``ejecutar(orden, ...)``: la ejecuta (o varias a la vez) con un tiempo máximo; al
  terminar, bien o mal, no queda ningún proceso vivo: ni ``torchrun`` ni sus trabajadores.
- ``puerto_libre()`` y ``puerto_en_uso(puerto)``.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field

ANFITRION = "127.0.0.1"  # solo la propia máquina (loopback): nada sale a la red


class PuertoOcupado(ValueError):
    """El puerto de reunión (rendezvous) ya lo usa otro programa."""


def puerto_en_uso(puerto: int, anfitrion: str = ANFITRION) -> bool:
    """True si otro programa escucha ya en ``anfitrion:puerto``."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        try:
            s.bind((anfitrion, puerto))
        except OSError:
            return True
    return False


def puerto_libre(anfitrion: str = ANFITRION) -> int:
    """Un puerto TCP libre ahora mismo en ``anfitrion`` (lo elige el sistema operativo)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((anfitrion, 0))
        return s.getsockname()[1]


def _validar_entero(valor, nombre: str, minimo: int) -> int:
    if isinstance(valor, bool) or not isinstance(valor, int) or valor < minimo:
        raise ValueError(f"{nombre} debe ser un entero mayor o igual que {minimo}; recibí {valor!r}.")
    return valor


def orden_torchrun(programa, *, procesos: int = 2, nodos: int = 1, rango_nodo: int = 0,
                   puerto: int | None = None, reinicios: int = 0) -> list[str]:
    """La orden para lanzar ``programa`` con ``torchrun``. Lección 08.

    ``programa``: un guion (``"entrenar.py"``) o una lista (``["-m", "curso_gpu.entrenar_ddp",
    "--epocas", "3"]``). ``procesos``: cuántos en esta máquina (``--nproc_per_node``).
    ``nodos=2``: reunión ``c10d`` en ``127.0.0.1:puerto`` (dos órdenes, ``rango_nodo`` 0 y 1).
    ``reinicios``: ``--max-restarts`` (si un proceso muere, se reinicia todo el grupo).
    Comprueba que el puerto esté libre: si no, ``PuertoOcupado`` con qué hacer.
    """
    _validar_entero(procesos, "procesos", 1)
    _validar_entero(nodos, "nodos", 1)
    _validar_entero(reinicios, "reinicios", 0)
    _validar_entero(rango_nodo, "rango_nodo", 0)
    if rango_nodo >= nodos:
        raise ValueError(f"rango_nodo va de 0 a {nodos - 1}; recibí {rango_nodo}.")
    if puerto is None:
        puerto = puerto_libre()
    _validar_entero(puerto, "puerto", 1)
    if rango_nodo == 0 and puerto_en_uso(puerto):
        raise PuertoOcupado(
            f"El puerto {puerto} ya está en uso: otro programa (¿un entrenamiento anterior que sigue vivo?) "
            "escucha en él. Elige otro, por ejemplo puerto=puerto_libre(), o termina el programa que lo usa.")
    # Reunión c10d también con un solo nodo: cada reinicio es una ronda nueva. Con la estática
    # (--master_port) el almacén se reutiliza y, tras un reinicio, vimos al rango 0 intentar
    # conectar con la dirección vieja del rango que murió.
    orden = [sys.executable, "-m", "torch.distributed.run", f"--nproc_per_node={procesos}", f"--nnodes={nodos}"]
    if nodos > 1:  # con c10d torchrun numera los nodos por orden de llegada (y avisa de que ignora esto)
        orden.append(f"--node-rank={rango_nodo}")
    orden += ["--rdzv-backend=c10d", f"--rdzv-endpoint={ANFITRION}:{puerto}", "--rdzv-id=curso_gpu",
              "--rdzv-conf=join_timeout=60"]
    # Cada cuánto mira torchrun si sus procesos terminaron o fallaron: 0.1 s, el valor por omisión
    # desde 2024; antes era 5 s, una espera muerta tras cada fallo y al terminar
    # (https://github.com/pytorch/pytorch/pull/124692).
    orden += [f"--max-restarts={reinicios}", "--monitor-interval=0.1"]
    orden += [programa] if isinstance(programa, (str, os.PathLike)) else [str(p) for p in programa]
    return [str(p) for p in orden]


# ---------------------------------------------------------------------------
# Ejecutar y limpiar
# ---------------------------------------------------------------------------

@dataclass
class Ejecucion:
    """Cómo terminó una orden: código de salida, lo que escribió y cuánto tardó. Lección 08."""

    orden: list[str]
    codigo: int
    salida: str
    segundos: float
    agotado: bool = False  # se pasó del tiempo máximo y se paró
    procesos: set[int] = field(default_factory=set, repr=False)  # todos los que se vieron (para comprobar que no queda ninguno)

    @property
    def bien(self) -> bool:
        return self.codigo == 0 and not self.agotado

    def explicacion(self) -> str:
        """Qué pasó, en español (vacío si terminó bien)."""
        if self.bien:
            return ""
        if self.agotado:
            return (f"No terminó en {self.segundos:.0f} s y lo paré (a todos sus procesos). Suele ser un proceso "
                    "colgado o uno que no llegó a la reunión: revisa la salida de cada rango.")
        if "EADDRINUSE" in self.salida or "address already in use" in self.salida:
            return "El puerto de reunión ya estaba en uso: elige otro (puerto_libre()) o cierra el programa que lo usa."
        return f"Terminó con el código {self.codigo}: mira arriba el mensaje del rango que falló."


def _hijos_por_padre() -> dict[int, list[int]]:
    hijos: dict[int, list[int]] = {}
    try:
        entradas = os.listdir("/proc")
    except OSError:  # fuera de Linux no hay /proc: solo se limpia el grupo de procesos
        return hijos
    for entrada in entradas:
        if not entrada.isdigit():
            continue
        try:
            with open(f"/proc/{entrada}/stat", "rb") as archivo:
                campos = archivo.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        hijos.setdefault(int(campos[1]), []).append(int(entrada))
    return hijos


def descendientes(pid: int, hijos: dict[int, list[int]] | None = None) -> set[int]:
    """Los procesos que cuelgan de ``pid`` (hijos, nietos…), leídos de /proc (Linux).

    ``hijos``: una lectura de /proc ya hecha, para reutilizarla con varios ``pid``.
    """
    hijos = _hijos_por_padre() if hijos is None else hijos
    vistos, pendientes = set(), [pid]
    while pendientes:
        for hijo in hijos.get(pendientes.pop(), []):
            if hijo not in vistos:
                vistos.add(hijo)
                pendientes.append(hijo)
    return vistos


def sigue_vivo(pid: int) -> bool:
    """True si el proceso ``pid`` existe y no es un zombi."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as archivo:
            return archivo.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except OSError:
        try:
            os.kill(pid, 0)
        except (ProcessLookupError, PermissionError):
            return False
        except OSError:
            return False
        return True


def _senal(pids, senal) -> None:
    for pid in pids:
        for matar in (lambda: os.killpg(os.getpgid(pid), senal), lambda: os.kill(pid, senal)):
            try:
                matar()
                break
            except (ProcessLookupError, PermissionError, OSError):
                continue


def ejecutar(*ordenes: list[str], timeout_s: float = 120, entorno: dict | None = None,
             directorio=None) -> list[Ejecucion]:
    """Ejecuta una o varias órdenes a la vez y espera a todas, como mucho ``timeout_s`` segundos. Lección 08.

    Cada orden va en su propia sesión (``start_new_session``). Al terminar, bien, mal o por
    tiempo, se paran el grupo de cada orden y todos sus descendientes (``torchrun`` arranca
    sus trabajadores en sesiones propias): no queda ningún proceso huérfano.
    ``entorno`` se añade a las variables de entorno actuales.
    """
    if not ordenes:
        raise ValueError("ejecutar necesita al menos una orden, por ejemplo orden_torchrun('guion.py').")
    variables = dict(os.environ, **(entorno or {}))
    archivos, procesos, vistos = [], [], []
    inicio = time.perf_counter()
    try:
        for orden in ordenes:
            archivo = tempfile.TemporaryFile(mode="w+", encoding="utf-8", errors="replace")
            archivos.append(archivo)
            procesos.append(subprocess.Popen(orden, stdout=archivo, stderr=subprocess.STDOUT, env=variables,
                                             cwd=directorio, start_new_session=True))
            vistos.append({procesos[-1].pid})
        limite = inicio + timeout_s
        while any(p.poll() is None for p in procesos) and time.perf_counter() < limite:
            hijos = _hijos_por_padre()  # una sola lectura de /proc para todas las órdenes
            for proceso, pids in zip(procesos, vistos):
                if proceso.poll() is None:
                    pids.update(descendientes(proceso.pid, hijos))
            time.sleep(0.2)
        agotados = [p.poll() is None for p in procesos]
    finally:
        _limpiar(procesos, vistos)
    segundos = time.perf_counter() - inicio
    resultados = []
    for orden, proceso, archivo, pids, agotado in zip(ordenes, procesos, archivos, vistos, agotados):
        archivo.seek(0)
        resultados.append(Ejecucion(list(orden), proceso.returncode, archivo.read(), segundos, agotado, pids))
        archivo.close()
    return resultados


def _limpiar(procesos, vistos) -> None:
    """SIGTERM a quien siga vivo (``torchrun`` avisa a sus trabajadores); a los 5 s, SIGKILL."""
    vivos = set()
    for proceso, pids in zip(procesos, vistos):
        if proceso.poll() is None:
            pids.update(descendientes(proceso.pid))
        vivos |= {pid for pid in pids if sigue_vivo(pid)}
    if vivos:
        _senal(vivos, signal.SIGTERM)
        limite = time.perf_counter() + 5
        while time.perf_counter() < limite and any(sigue_vivo(pid) for pid in vivos):
            for proceso in procesos:
                proceso.poll()
            time.sleep(0.1)
        _senal([pid for pid in vivos if sigue_vivo(pid)], signal.SIGKILL)
    for proceso in procesos:
        try:
            proceso.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
