"""La orden de la lección 08: entrenar la CNN de líneas con varios procesos (DDP).

Con ``torchrun`` (dos procesos en CPU con gloo, o uno por GPU con nccl)::

    torchrun --nproc_per_node=2 -m curso_gpu.entrenar_ddp --tamano-lote 16

Solo (``python -m curso_gpu.entrenar_ddp --tamano-lote 32``) es un mundo de uno. Este módulo
solo lee los argumentos, comprueba las rutas y cuenta los errores en español; el entrenador es
``curso_gpu.entrenamiento.entrenar_ddp``. Un argumento mal escrito se dice sin importar torch.
"""

from __future__ import annotations

import argparse
import errno
import gc
import os
import signal
import sys
import time

from . import distribuido  # perezoso: torch llega con el primer nombre que se usa
from .base import ENTERO_MAXIMO, AnalizadorArgumentos, ejecutar_orden, salida_rota, tipo_entero
from .guardado import comprobar_destino

__all__ = ["main"]

# ---------------------------------------------------------------------------
# Línea de órdenes
# ---------------------------------------------------------------------------

_EPOCAS_MAXIMAS = ENTERO_MAXIMO  # lo que cabe en un int64; la semilla tiene el mismo tope
_entero_positivo = tipo_entero(1, _EPOCAS_MAXIMAS)


def _analizador() -> argparse.ArgumentParser:
    analizador = AnalizadorArgumentos(  # argparse en español, como python -m curso_gpu
        prog="python -m curso_gpu.entrenar_ddp",
        description="Entrena la CNN de líneas de la lección 05 con varios procesos (DistributedDataParallel). "
                    "Lánzalo con: torchrun --nproc_per_node=2 -m curso_gpu.entrenar_ddp. "
                    "Solo, es un mundo de un proceso.")
    analizador.add_argument("--epocas", type=_entero_positivo, default=10, help="épocas de entrenamiento (10)")
    analizador.add_argument("--tamano-lote", type=_entero_positivo, default=16,
                            help="ejemplos por paso en CADA proceso (16); el lote global es este × procesos")
    analizador.add_argument("--semilla", type=tipo_entero(0, ENTERO_MAXIMO), default=0,
                            help="semilla de datos, modelo y reparto (0); de 0 a 2**63 - 1")
    analizador.add_argument("--checkpoints", metavar="CARPETA",
                            help="guarda un checkpoint por época (solo el rango 0) y reanuda desde el último, "
                                 "también uno de entrenar (lección 05)")
    analizador.add_argument("--guardar-pesos", metavar="RUTA",
                            help="el rango 0 guarda aquí los pesos finales (state_dict con su SHA-256; "
                                 "se cargan con cargar_pesos)")
    analizador.add_argument("--simular-fallo", type=_entero_positivo, metavar="EPOCA",
                            help="en el primer intento, el proceso de rango 1 muere en esa época")
    analizador.add_argument("--backend", choices=("auto", "nccl", "gloo"), default="auto",
                            help="auto: nccl si hay GPU con CUDA, gloo si no")
    analizador.add_argument("--silencioso", action="store_true", help="no imprime el progreso")
    return analizador


# Lo que un rango distinto de 0 espera a que el rango 0 llegue al mismo error y termine a torchrun.
# Si se cansa antes, sale con 1: torchrun manda SIGTERM al rango 0 (que quizá aún no dijo nada) y
# escribe su resumen en inglés. Con la máquina cargada (la suite entera en 2 núcleos, el PyTorch
# con CUDA, más lento de importar), el rango 0 llegó más de 5 s tarde.
_ESPERA_AL_RANGO_0_S = 60


class _Parado(Exception):
    """torchrun pidió a este proceso que terminara (SIGTERM): otro del grupo falló."""


def _parar(numero, _marco):
    raise _Parado(numero)


def main(argv=None) -> int:
    """``python -m curso_gpu.entrenar_ddp``: 0 si todo fue bien; 1 y un mensaje en español si no.

    La salida aguanta una consola sin UTF-8, ``| head -1`` y ``> /dev/full`` (``ejecutar_orden``).
    """
    return ejecutar_orden(_principal, argv)


def _principal(argv=None) -> int:
    argumentos = _analizador().parse_args(argv)  # un argumento mal escrito se dice aquí, sin importar torch
    from .entrenamiento import entrenar_ddp

    bajo_torchrun = distribuido.bajo_torchrun()
    anterior = signal.signal(signal.SIGTERM, _parar) if bajo_torchrun else None
    empezado = False
    try:
        if bajo_torchrun:  # dentro del try: su SIGTERM puede llegar ya aquí (_Parado, abajo)
            distribuido.vigilar_padre()  # si torchrun muere (SIGKILL), este proceso para en segundos
        if argumentos.checkpoints is not None:
            comprobar_destino(argumentos.checkpoints, "--checkpoints", carpeta=True)
        if argumentos.guardar_pesos is not None:
            comprobar_destino(argumentos.guardar_pesos, "--guardar-pesos", sobrescribir=True)
        distribuido.elegir_backend(argumentos.backend)  # nccl sin GPU: ahora, igual en todos los procesos
        empezado = True
        entrenar_ddp(argumentos.epocas, argumentos.tamano_lote, argumentos.semilla,
                     checkpoints=argumentos.checkpoints, destino_pesos=argumentos.guardar_pesos,
                     simular_fallo=argumentos.simular_fallo, backend=argumentos.backend,
                     silencioso=argumentos.silencioso)
    except BrokenPipeError:  # quien leía la salida se fue (| head -1): lo resuelve ejecutar_orden
        raise
    except (distribuido.ErrorDistribuido, ValueError, OSError) as error:
        if isinstance(error, OSError) and error.errno in (errno.ENOSPC, errno.EIO) and salida_rota():
            raise  # la salida (> /dev/full), no un checkpoint: lo explica ejecutar_orden
        _de_salida(bajo_torchrun)
        _avisar(f"Error: {error}")
        if not empezado and bajo_torchrun:
            _sin_resumen_de_torchrun()
        return 1
    except RuntimeError as error:  # un compañero murió a mitad de una operación colectiva
        _de_salida(bajo_torchrun)
        original = f"\nEl mensaje original de PyTorch ({type(error).__name__}), completo y en inglés:\n{str(error).strip()}"
        _avisar("Error: otro proceso del grupo falló o dejó de responder a mitad del entrenamiento. Mira arriba "
                "el mensaje del rango que falló; con torchrun --max-restarts=1 el grupo se reinicia y sigue desde "
                "el último checkpoint." + (original if str(error).strip() else ""))
        return 1
    except _Parado:
        _de_salida(bajo_torchrun)  # el aviso de vigilar_padre puede llegar después del de torchrun
        if distribuido.padre_muerto():
            _avisar("Error: torchrun terminó (¿lo mataron?) y este proceso para con él. El último checkpoint "
                    "completo está intacto: vuelve a lanzar la misma orden para seguir desde él.")
        else:
            _avisar("Error: torchrun paró este proceso porque otro proceso del grupo falló. Mira arriba el mensaje "
                    "del rango que falló; con torchrun --max-restarts=1 el grupo se reinicia y sigue desde el último "
                    "checkpoint.")
        return 1
    finally:
        if anterior is not None:
            signal.signal(signal.SIGTERM, anterior)
        distribuido.terminar()
    return 0


def _de_salida(bajo_torchrun: bool) -> None:
    """Este proceso ya sale con su mensaje: un SIGTERM ahora no lo corta a medias.

    Si otro proceso del grupo termina antes, ``torchrun`` manda SIGTERM a los demás. Con el
    manejador puesto, ese ``_Parado`` saltaría dentro del ``except``, mientras se escribe el
    mensaje: una traza en inglés que repite el error. El proceso sale igual, con su código.
    """
    if bajo_torchrun:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)


def _sin_resumen_de_torchrun() -> None:
    """Un error de configuración (igual en todos los procesos, antes de entrenar) bajo ``torchrun``.

    ``torchrun`` no sabe terminar sin su resumen en inglés (``ChildFailedError`` y una traza) cuando
    un trabajador sale con error. Para que se lea solo el mensaje en español: el rango 0 lo
    acaba de escribir y termina a ``torchrun`` (sin nada que guardar: no se ha entrenado); los
    demás esperan a que eso pase y se van con él (SIGTERM, de vigilar_padre o de ``torchrun``).
    """
    if os.environ.get("RANK", "0") == "0":
        distribuido.terminar_lanzador()  # SIGTERM ya se ignora (_de_salida): el de vigilar_padre llegará
    else:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        limite = time.monotonic() + _ESPERA_AL_RANGO_0_S
        while time.monotonic() < limite and not distribuido.padre_muerto():
            time.sleep(0.1)


def _avisar(texto: str, todos: bool = False) -> None:
    """Los errores los cuenta el rango 0 (los demás salen con el mismo código, sin repetirlo)."""
    rango = os.environ.get("RANK", "0")
    if rango == "0" or todos:
        try:
            print(texto if rango == "0" else f"[rango {rango}] {texto}", file=sys.stderr, flush=True)
        except OSError:  # stderr cerrado o lleno: el código de salida ya lo dice
            pass


if __name__ == "__main__":
    codigo = main()
    # Al salir, Python pasa el recolector de basura por los cientos de miles de objetos que torch
    # creó al importarse: unos 0.6 s de CPU en cada proceso, y torchrun arranca varios. Con todo
    # ya guardado y cerrado, gc.freeze() los aparta de esas pasadas
    # (https://docs.python.org/3/library/gc.html#gc.freeze).
    gc.freeze()
    sys.exit(codigo)
