"""Lanzar ``torchrun`` desde Python (un notebook, una prueba) sin dejar procesos huérfanos. Lección 08.

- ``orden_torchrun(programa, procesos=2, ...)``: la orden ``python -m torch.distributed.run``
  (lo mismo que ``torchrun``, pero con el Python del notebook: funciona igual en Colab,
  Kaggle, JupyterLab y CI). Con ``nodos=2`` simula dos máquinas en 127.0.0.1.
- ``ejecutar(orden, ...)``: la ejecuta (o varias a la vez) con un tiempo máximo; al
  terminar, bien o mal, no queda ningún proceso vivo: ni ``torchrun`` ni sus trabajadores.
  Los procesos se leen con psutil (el mismo código en Linux, macOS y Windows), y cada uno se
  reconoce por su pid y su hora de creación: a un pid que otro programa reutilizó no se le
  manda nunca una señal, ni a su grupo.
- ``puerto_libre()`` y ``puerto_en_uso(puerto)``.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field

from ..base import leer_numero, mostrar_valor

__all__ = ["Ejecucion", "PUERTO_MAXIMO", "PuertoOcupado", "descendientes", "ejecutar", "orden_torchrun", "puerto_en_uso", "puerto_libre",
           "sigue_vivo"]

_ANFITRION = "127.0.0.1"  # solo la propia máquina (loopback): nada sale a la red


class PuertoOcupado(ValueError):
    """El puerto de reunión (rendezvous) ya lo usa otro programa."""


PUERTO_MAXIMO = 65535  # los puertos TCP son números de 16 bits


def _puerto(valor, nombre: str = "puerto") -> int:
    return leer_numero(valor, nombre, entero=True, minimo=1, maximo=PUERTO_MAXIMO,
                       ejemplo=f"{nombre}=puerto_libre() o un número como 29500")


def puerto_en_uso(puerto: int, anfitrion: str = _ANFITRION) -> bool:
    """True si otro programa escucha ya en ``anfitrion:puerto`` (de 1 a 65535)."""
    puerto = _puerto(puerto)
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        try:
            s.bind((anfitrion, puerto))
        except OSError:
            return True
    return False


def puerto_libre(anfitrion: str = _ANFITRION) -> int:
    """Un puerto TCP libre ahora mismo en ``anfitrion`` (lo elige el sistema operativo)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((anfitrion, 0))
        return s.getsockname()[1]


def _validar_programa(programa) -> list[str]:
    """El guion o la lista de argumentos de ``orden_torchrun``, como lista de textos; nunca vacío."""
    if isinstance(programa, (str, os.PathLike)):
        partes = [os.fspath(programa)]
    elif isinstance(programa, (list, tuple)) and all(isinstance(p, (str, os.PathLike, int)) for p in programa):
        partes = [str(os.fspath(p)) if isinstance(p, os.PathLike) else str(p) for p in programa]
    else:
        partes = []
    if not partes or not partes[0].strip():
        raise ValueError(f"programa no válido: {mostrar_valor(programa)}. Da un guion (\"entrenar.py\") o una lista "
                         "como [\"-m\", \"curso_gpu.entrenar_ddp\", \"--epocas\", \"3\"].")
    return partes


def orden_torchrun(programa, *, procesos: int = 2, nodos: int = 1, rango_nodo: int = 0,
                   puerto: int | None = None, reinicios: int = 0) -> list[str]:
    """La orden para lanzar ``programa`` con ``torchrun``. Lección 08.

    ``programa``: un guion (``"entrenar.py"``) o una lista (``["-m", "curso_gpu.entrenar_ddp",
    "--epocas", "3"]``). ``procesos``: cuántos en esta máquina (``--nproc_per_node``).
    ``nodos=2``: reunión ``c10d`` en ``127.0.0.1:puerto`` (dos órdenes, ``rango_nodo`` 0 y 1).
    ``reinicios``: ``--max-restarts`` (si un proceso muere, se reinicia todo el grupo).
    Comprueba que el puerto esté libre: si no, ``PuertoOcupado`` con qué hacer.
    """
    partes = _validar_programa(programa)
    procesos = leer_numero(procesos, "procesos", entero=True, minimo=1, maximo=1024, ejemplo="procesos=2")
    nodos = leer_numero(nodos, "nodos", entero=True, minimo=1, maximo=1024, ejemplo="nodos=1")
    reinicios = leer_numero(reinicios, "reinicios", entero=True, minimo=0, maximo=100, ejemplo="reinicios=1")
    rango_nodo = leer_numero(rango_nodo, "rango_nodo", entero=True, minimo=0, ejemplo="rango_nodo=0")
    if rango_nodo >= nodos:
        raise ValueError(f"rango_nodo va de 0 a {nodos - 1}; recibí {rango_nodo}.")
    puerto = puerto_libre() if puerto is None else _puerto(puerto)
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
    orden += ["--rdzv-backend=c10d", f"--rdzv-endpoint={_ANFITRION}:{puerto}", "--rdzv-id=curso_gpu",
              "--rdzv-conf=join_timeout=60"]
    # Cada cuánto mira torchrun si sus procesos terminaron o fallaron: 0.1 s, el valor por omisión
    # desde 2024; antes era 5 s, una espera muerta tras cada fallo y al terminar
    # (https://github.com/pytorch/pytorch/pull/124692).
    orden += [f"--max-restarts={reinicios}", "--monitor-interval=0.1"]
    return [str(p) for p in orden + partes]


# ---------------------------------------------------------------------------
# Ejecutar y limpiar
# ---------------------------------------------------------------------------

# Una línea del registro de torchrun (logging de Python, ``W1207 21:38:02.641000 4242 api.py:12] …``)
# o de c10d en C++ (``[W1207 21:38:02.641000000 socket.cpp:12] …``). Las que la siguen y son su traza:
# sangradas, marcos de C++ (``frame #0: …``), ``Traceback``, ``Exception raised from`` o la excepción.
_CABECERA = re.compile(r"^\[?[IWEF]\d{4} \d\d:\d\d:\d\d\.\d+ ")
_TRAZA = re.compile(r"^(\s|frame #\d+|Exception raised from |Traceback |During handling |The above exception "
                    r"|[\w.]*(Error|Exception|Warning)\b)")


def _separar(salida: str) -> tuple[list[str], list[str]]:
    propias, registro, en_registro = [], [], False
    for linea in salida.splitlines():
        if _CABECERA.match(linea):
            registro.append(linea)
            en_registro = True
        elif en_registro and (not linea.strip() or _TRAZA.match(linea)):
            registro[-1] += "\n" + linea
        else:
            en_registro = False
            propias.append(linea)
    return propias, registro


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

    @property
    def propias(self) -> list[str]:
        """Las líneas de ``salida`` que escribieron los programas, sin el registro en inglés de torchrun."""
        return _separar(self.salida)[0]

    @property
    def registro(self) -> list[str]:
        """El registro en inglés de torchrun (``W1207 21:38:02.641000 …``): un texto por aviso, con su traza."""
        return _separar(self.salida)[1]

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


def _foto() -> dict[int, list]:
    """Los hijos de cada pid ahora mismo, como ``psutil.Process``: una sola pasada por todos los procesos."""
    import psutil

    hijos: dict[int, list] = {}
    for proceso in psutil.process_iter(["ppid"]):
        padre = proceso.info.get("ppid")
        if padre is not None:
            hijos.setdefault(padre, []).append(proceso)
    return hijos


def _nacio_despues(hijo, padre) -> bool:
    """Un hijo nace después que su padre; si no, su «padre» es otro proceso que reutilizó aquel pid."""
    import psutil

    try:
        return hijo.create_time() >= padre.create_time()
    except psutil.Error:
        return False


def _arbol(raiz, hijos: dict[int, list]) -> set:
    """Los que cuelgan de ``raiz`` (un ``psutil.Process`` vivo y comprobado) en la foto ``hijos``."""
    vistos, pendientes = set(), [raiz]
    while pendientes:
        padre = pendientes.pop()
        for hijo in hijos.get(padre.pid, ()):
            if hijo not in vistos and _nacio_despues(hijo, padre):
                vistos.add(hijo)
                pendientes.append(hijo)
    return vistos


def descendientes(pid: int) -> set[int]:
    """Los pid de los procesos que cuelgan de ``pid`` (hijos, nietos…), con psutil (Linux, macOS, Windows)."""
    import psutil

    try:
        return {hijo.pid for hijo in psutil.Process(pid).children(recursive=True)}
    except psutil.Error:
        return set()


def sigue_vivo(proceso) -> bool:
    """True si el proceso existe y no es un zombi. Lección 08.

    ``proceso``: un pid, o un ``psutil.Process``; con este, además, tiene que ser el mismo proceso
    (psutil compara su hora de creación): un pid que murió y otro programa reutilizó no cuenta.
    """
    import psutil

    try:
        actual = proceso if isinstance(proceso, psutil.Process) else psutil.Process(proceso)
        return actual.is_running() and actual.status() != psutil.STATUS_ZOMBIE
    except (psutil.Error, ValueError, TypeError):  # no existe, no se deja mirar, o no es un pid
        return False


def _senal(procesos, senal) -> None:
    """Manda ``senal`` a cada ``psutil.Process`` que sigue siendo el mismo (pid y hora de creación); si
    encabeza su grupo, a todo su grupo. Un pid reutilizado por otro programa no recibe nada, ni su grupo."""
    import psutil

    for proceso in procesos:
        try:
            if not proceso.is_running():  # murió, o su pid ya es de otro programa
                continue
            if hasattr(os, "killpg") and os.getpgid(proceso.pid) == proceso.pid:
                os.killpg(proceso.pid, senal)  # el grupo es suyo: lo encabeza él, comprobado
            else:
                proceso.send_signal(senal)  # psutil vuelve a comprobar que es el mismo
        except (psutil.Error, OSError):  # ya no existe, o no es nuestro
            continue


def ejecutar(*ordenes: list[str], timeout_s: float = 120, entorno: dict | None = None,
             directorio=None) -> list[Ejecucion]:
    """Ejecuta una o varias órdenes a la vez y espera a todas, como mucho ``timeout_s`` segundos. Lección 08.

    Cada orden va en su propia sesión (``start_new_session``). Al terminar, bien, mal o por
    tiempo, se paran el grupo de cada orden y todos sus descendientes (``torchrun`` arranca
    sus trabajadores en sesiones propias): no queda ningún proceso huérfano.
    ``entorno`` se añade a las variables de entorno actuales. Las órdenes reciben una carpeta
    temporal propia (``TMPDIR``) que se borra al terminar: ``torchrun`` deja en ella sus
    ``torchelastic_*`` y no en /tmp. Si ``entorno`` trae su ``TMPDIR``, se usa ese y no se borra.
    """
    if not ordenes:
        raise ValueError("ejecutar necesita al menos una orden, por ejemplo orden_torchrun('guion.py').")
    limite_s = leer_numero(timeout_s, "timeout_s", minimo=0, minimo_incluido=False, ejemplo="timeout_s=120 (segundos)")
    for orden in ordenes:
        if (isinstance(orden, (str, bytes)) or not isinstance(orden, (list, tuple)) or not orden
                or not all(isinstance(p, (str, os.PathLike)) for p in orden)):
            raise ValueError(f"Cada orden debe ser una lista de textos, p. ej. [sys.executable, 'guion.py'] u "
                             f"orden_torchrun('guion.py'); recibí {mostrar_valor(orden)}.")
    _comprobar_puertos(ordenes)
    variables = dict(os.environ, **(entorno or {}))
    import psutil

    temporal = None if "TMPDIR" in (entorno or {}) else tempfile.mkdtemp(prefix="curso_gpu_ejecutar_")
    if temporal is not None:
        variables["TMPDIR"] = temporal
    archivos, procesos, raices, vistos = [], [], [], []
    inicio = time.perf_counter()
    try:
        for orden in ordenes:
            archivo = tempfile.TemporaryFile(mode="w+", encoding="utf-8", errors="replace")
            archivos.append(archivo)
            try:
                procesos.append(subprocess.Popen(orden, stdout=archivo, stderr=subprocess.STDOUT, env=variables,
                                                 cwd=directorio, start_new_session=True))
            except FileNotFoundError:
                carpeta = f" o la carpeta {str(directorio)!r}" if directorio is not None else ""
                raise ValueError(f"No encuentro el programa {str(orden[0])!r}{carpeta} de la orden "
                                 f"{mostrar_valor(list(orden))}. Usa sys.executable para Python u "
                                 "orden_torchrun(...) para torchrun.") from None
            except (PermissionError, NotADirectoryError) as error:
                raise ValueError(f"No puedo ejecutar {str(orden[0])!r}: {error.strerror}. Revisa la orden y "
                                 "la carpeta (directorio).") from None
            # Su pid y su hora de creación, ahora que es seguro suyo (nadie lo ha recogido aún).
            raices.append(psutil.Process(procesos[-1].pid))
            vistos.append({raices[-1]})
        limite = inicio + limite_s
        while any(p.poll() is None for p in procesos) and time.perf_counter() < limite:
            hijos = _foto()  # una sola pasada por los procesos para todas las órdenes
            for proceso, raiz, conocidos in zip(procesos, raices, vistos):
                if proceso.poll() is None:
                    conocidos |= _arbol(raiz, hijos)
            time.sleep(0.2)
        agotados = [p.poll() is None for p in procesos]
    finally:
        _limpiar(procesos, vistos)
        if temporal is not None:  # con todos los procesos ya parados: nadie escribe en ella
            shutil.rmtree(temporal, ignore_errors=True)
    segundos = time.perf_counter() - inicio
    resultados = []
    for orden, proceso, archivo, conocidos, agotado in zip(ordenes, procesos, archivos, vistos, agotados):
        archivo.seek(0)
        resultados.append(Ejecucion(list(orden), proceso.returncode, archivo.read(), segundos, agotado,
                                    {p.pid for p in conocidos}))
        archivo.close()
    return resultados


_PUERTO_EN_ORDEN = re.compile(r"^--(?:rdzv[-_]endpoint=.*:|master[-_]port=)(\d+)$")
_NODO_EN_ORDEN = re.compile(r"^--node[-_]rank=(\d+)$")


def _comprobar_puertos(ordenes) -> None:
    """Antes de lanzar: dos ``torchrun`` con el mismo puerto (y el mismo nodo), o un puerto ya ocupado,
    son un error claro ahora, no un ``EADDRINUSE`` en inglés ni una espera muda de minutos."""
    vistos: dict[tuple[int, int], int] = {}
    for numero, orden in enumerate(ordenes, 1):
        textos = [str(p) for p in orden]
        puertos = [int(m.group(1)) for m in map(_PUERTO_EN_ORDEN.match, textos) if m]
        nodos = [int(m.group(1)) for m in map(_NODO_EN_ORDEN.match, textos) if m]
        if not puertos or not any("torch.distributed.run" in p or os.path.basename(p) == "torchrun" for p in textos):
            continue
        clave = (puertos[0], nodos[0] if nodos else 0)
        if clave in vistos:
            raise PuertoOcupado(
                f"Las órdenes {vistos[clave]} y {numero} usan el mismo puerto de reunión {clave[0]}: la segunda "
                "se quedaría esperando o fallaría. Crea cada una con su propio orden_torchrun(...) (elige un "
                "puerto libre solo) o usa puertos distintos.")
        vistos[clave] = numero
        if clave[1] == 0 and puerto_en_uso(clave[0]):
            raise PuertoOcupado(
                f"El puerto {clave[0]} de la orden {numero} ya está en uso: otro programa (¿un entrenamiento "
                "anterior que sigue vivo?) escucha en él. Crea la orden otra vez con orden_torchrun(...) "
                "(elige un puerto libre) o termina el programa que lo usa.")


def _congelar(vistos) -> set:
    """Para (SIGSTOP) todo lo vivo de cada orden y lo que cuelga de ello, y vuelve a mirar hasta que no
    aparece ninguno nuevo; devuelve los parados. Un proceso parado no arranca hijos ni muere: así ningún
    nieto nacido entre la última foto y la señal se escapa colgando de init. Solo se mira desde los
    procesos que siguen siendo los mismos (``is_running`` compara la hora de creación): un pid que otro
    programa reutilizó no aporta ni sus hijos ni a sí mismo."""
    parados: set = set()
    for _ in range(100):
        hijos = _foto()
        nuevos = set()
        for conocidos in vistos:
            propios = {p for p in conocidos if p.is_running()}
            for raiz in list(propios):
                propios |= _arbol(raiz, hijos)
            conocidos |= propios
            nuevos |= {p for p in propios if p not in parados and sigue_vivo(p)}
        if not nuevos:
            break
        _senal(nuevos, signal.SIGSTOP)
        parados |= nuevos
    return parados


def _limpiar(procesos, vistos) -> None:
    """Congela los árboles, SIGTERM (``torchrun`` avisa a sus trabajadores) y SIGCONT; a los 5 s, SIGKILL."""
    vivos = _congelar(vistos)
    if vivos:
        _senal(vivos, signal.SIGTERM)
        _senal(vivos, signal.SIGCONT)  # la señal pendiente se entrega al continuar
        limite = time.perf_counter() + 5
        while time.perf_counter() < limite and any(sigue_vivo(p) for p in vivos):
            for proceso in procesos:
                proceso.poll()
            time.sleep(0.1)
        _senal([p for p in vivos if sigue_vivo(p)], signal.SIGKILL)  # _senal comprueba otra vez que es el mismo
    for proceso in procesos:
        try:
            proceso.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
