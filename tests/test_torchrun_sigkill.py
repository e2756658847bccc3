"""Matar a torchrun con SIGKILL no deja trabajadores entrenando solos. Lección 08.

Con procesos de verdad: torchrun (la orden de ``orden_torchrun``) con dos trabajadores que guardan un
checkpoint por época; SIGKILL a torchrun; en segundos no queda ningún trabajador y el último
checkpoint completo se carga bien.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from curso_gpu.guardado import como_carpeta
from curso_gpu.distribuido import orden_torchrun, sigue_vivo
from interrupciones import TorchrunVigilado, esperar_que_paren, matar

RAIZ = Path(__file__).resolve().parent.parent
PLAZO_S = 10  # vigilar_padre: aviso del núcleo al instante, sondeo cada 0.5 s y 3 s de gracia


@pytest.mark.lento
def test_sigkill_a_torchrun_para_a_sus_trabajadores_y_el_ultimo_checkpoint_sigue_sano(tmp_path):
    ck = tmp_path / "ck"
    orden = orden_torchrun(["-m", "curso_gpu.entrenar_ddp", "--epocas", "100000", "--checkpoints", str(ck),
                            "--silencioso"], procesos=2)
    with TorchrunVigilado(orden, RAIZ) as torchrun:
        limite = time.monotonic() + 180
        trabajadores: set[int] = set()
        while time.monotonic() < limite and torchrun.proceso.poll() is None:
            trabajadores = torchrun.mirar()
            if len(trabajadores) >= 2 and como_carpeta(ck).archivos():
                break
            time.sleep(0.2)
        assert torchrun.proceso.poll() is None and len(trabajadores) >= 2 and como_carpeta(ck).archivos(), \
            torchrun.salida()

        os.kill(torchrun.proceso.pid, signal.SIGKILL)  # como el OOM killer o una interrupción de Colab que escala
        torchrun.proceso.wait(timeout=10)
        tardanza = esperar_que_paren(trabajadores, 3 * PLAZO_S)
        vivos = [p for p in trabajadores if sigue_vivo(p)]
        assert not vivos, f"siguen vivos {vivos} {tardanza:.1f} s después de matar a torchrun"
        assert tardanza < PLAZO_S, f"los trabajadores tardaron {tardanza:.1f} s en parar"

        archivos = como_carpeta(ck).archivos()
        time.sleep(1.5)
        assert como_carpeta(ck).archivos() == archivos  # nadie sigue escribiendo checkpoints
        estado = como_carpeta(ck).cargar_ultimo("cpu")
        assert estado is not None and int(estado["epoca"]) >= 1
        print(f"trabajadores parados {tardanza:.2f} s después del SIGKILL; último checkpoint: época {estado['epoca']}")


def test_vigilar_padre_para_a_un_huerfano(tmp_path):
    """Sin torchrun: un padre que lanza un hijo que vigila y muere con SIGKILL; el hijo para solo."""
    import sys

    hijo = ("import sys, time; sys.path.insert(0, %r)\n"
            "from curso_gpu.distribuido import vigilar_padre\n"
            "vigilar_padre(); print('vigilando', flush=True)\n"
            "time.sleep(60)\n") % str(RAIZ)
    padre = ("import subprocess, sys, time\n"
             "h = subprocess.Popen([sys.executable, '-c', %r])\n"
             "print(h.pid, flush=True); time.sleep(60)\n") % hijo
    proceso = subprocess.Popen([sys.executable, "-c", padre], stdout=subprocess.PIPE, text=True,
                               start_new_session=True)
    pid_hijo = None
    try:
        pid_hijo = int(proceso.stdout.readline())
        assert proceso.stdout.readline().strip() == "vigilando"
        os.kill(proceso.pid, signal.SIGKILL)
        proceso.wait(timeout=10)
        inicio = time.monotonic()
        while sigue_vivo(pid_hijo) and time.monotonic() - inicio < 15:
            time.sleep(0.05)
        assert not sigue_vivo(pid_hijo)
        assert time.monotonic() - inicio < 5
    finally:
        if proceso.poll() is None:
            proceso.kill()
        if pid_hijo is not None and sigue_vivo(pid_hijo):
            matar([pid_hijo])
        proceso.wait(timeout=10)
