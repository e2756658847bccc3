"""Que un trabajador de ``torchrun`` no siga solo si ``torchrun`` muere. Lección 08.

Si alguien mata a ``torchrun`` con SIGKILL (una interrupción de Colab que escala, el OOM killer),
nadie avisa a sus trabajadores: seguirían entrenando sin supervisión y escribiendo checkpoints.
``vigilar_padre()`` hace que cada trabajador lo note en segundos y pare:

- En Linux, ``prctl(_PR_SET_PDEATHSIG, SIGTERM)``: el núcleo le manda SIGTERM cuando muere su padre.
- En todos los sistemas, un hilo que mira ``os.getppid()`` cada ``_CADA_S`` segundos (un huérfano
  cambia de padre) y, si el proceso sigue vivo ``_GRACIA_PADRE_S`` segundos después del aviso (atascado
  en una operación de C, como un all-reduce que espera a un compañero muerto), lo termina con
  ``os._exit``. Los checkpoints se escriben de forma atómica: el último completo queda intacto.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import signal
import sys
import threading
import time

__all__ = ["padre_muerto", "terminar_lanzador", "vigilar_padre"]

_PR_SET_PDEATHSIG = 1  # <linux/prctl.h>; https://man7.org/linux/man-pages/man2/prctl.2.html
_CADA_S = 0.5
_GRACIA_PADRE_S = 3.0
_CODIGO_HUERFANO = 128 + signal.SIGTERM  # como un proceso que terminó por SIGTERM

_vigilando: int | None = None  # el pid del padre que ya se vigila en este proceso


def _senal_al_morir_el_padre(senal: int) -> bool:
    """``prctl(_PR_SET_PDEATHSIG, senal)`` por ctypes; False fuera de Linux o si falla."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        return libc.prctl(_PR_SET_PDEATHSIG, int(senal), 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def vigilar_padre(cada_s: float = _CADA_S, gracia_s: float = _GRACIA_PADRE_S) -> bool:
    """Para este proceso en segundos si su padre (``torchrun``) muere. Lección 08.

    Devuelve True si el núcleo avisará con SIGTERM (Linux); el hilo que mira ``os.getppid()``
    funciona además en todos los sistemas. Llamarla otra vez no añade otro hilo.
    """
    global _vigilando
    padre = os.getppid()
    if _vigilando == padre:
        return True
    con_prctl = _senal_al_morir_el_padre(signal.SIGTERM)
    _vigilando = padre

    def mirar() -> None:
        while os.getppid() == padre:
            time.sleep(cada_s)
        if not con_prctl:  # con prctl el núcleo ya mandó SIGTERM
            try:
                os.kill(os.getpid(), signal.SIGTERM)
            except OSError:
                pass
        time.sleep(gracia_s)  # tiempo para que el manejador de SIGTERM cierre con orden
        os._exit(_CODIGO_HUERFANO)  # sigue vivo: atascado en C, sin nadie que lo supervise

    threading.Thread(target=mirar, name="curso_gpu-vigilar-padre", daemon=True).start()
    if os.getppid() != padre:  # el padre murió antes de pedir el aviso: prctl ya no llegará
        os.kill(os.getpid(), signal.SIGTERM)
    return con_prctl


def padre_muerto() -> bool:
    """True si el padre que vigila ``vigilar_padre()`` ya no existe (este proceso quedó huérfano)."""
    return _vigilando is not None and os.getppid() != _vigilando


def _es_torchrun(pid: int) -> bool:
    """¿Es ``pid`` un ``torchrun`` (o ``python -m torch.distributed.run``)? Su orden, leída con psutil."""
    import psutil

    try:
        partes = psutil.Process(pid).cmdline()
    except psutil.Error:
        return False
    return any("torch.distributed.run" in p or os.path.basename(p) == "torchrun" for p in partes)


def terminar_lanzador() -> bool:
    """Termina a ``torchrun`` (el padre de este proceso) con SIGKILL, sin su resumen en inglés. Lección 08.

    Solo para un error de configuración que ya se explicó en español y que es igual en todos los
    procesos (``--backend nccl`` sin GPU, una ruta donde no se puede escribir), antes de entrenar.
    Los demás trabajadores paran con él (``vigilar_padre``). Devuelve True si lo terminó; no hace
    nada si el padre no es ``torchrun`` (su orden se lee con psutil).
    """
    padre = os.getppid()
    if padre <= 1 or not _es_torchrun(padre):
        return False
    try:
        os.kill(padre, signal.SIGKILL)
    except OSError:
        return False
    return True
