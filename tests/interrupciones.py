"""Cortar un entrenamiento a mitad, como una sesión de Colab que se desconecta.

Lo usan las pruebas de checkpoints, acumulación y precisión mixta:
``entrenar(..., al_avanzar=cortar_en(7))`` lanza ``Desconexion`` al terminar la época 7.
"""


class Desconexion(Exception):
    """La sesión se cortó a mitad del entrenamiento."""


def cortar_en(epoca_corte: int):
    """Un ``al_avanzar(epoca, total)`` que lanza ``Desconexion`` al llegar a ``epoca_corte``."""
    def al_avanzar(epoca: int, total: int) -> None:
        if epoca == epoca_corte:
            raise Desconexion
    return al_avanzar


def matar_al_llegar(victima, marca, limite_s: float, que: str) -> None:
    """Espera a que ``victima`` (un ``subprocess.Popen``) cree ``marca`` y la mata con SIGKILL.

    Falla si el proceso termina antes o si ``marca`` no aparece en ``limite_s`` segundos
    (``que`` dice qué se esperaba, p. ej. «el entrenamiento llegara a la época 13»).
    """
    import signal
    import time

    limite = time.monotonic() + limite_s
    while not marca.exists():
        assert victima.poll() is None, f"el proceso terminó antes de que {que}"
        assert time.monotonic() < limite, f"no pasó en {limite_s:.0f} s que {que}"
        time.sleep(0.05)
    victima.send_signal(signal.SIGKILL)
    assert victima.wait(timeout=30) == -signal.SIGKILL


def matar(pids) -> None:
    """SIGKILL a cada ``pid`` que siga vivo (limpieza de una prueba; nunca por nombre)."""
    import os
    import signal

    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def esperar_que_paren(pids, plazo_s: float) -> float:
    """Espera (como mucho ``plazo_s``) a que ningún ``pid`` siga vivo; devuelve los segundos que tardaron."""
    import time

    from curso_gpu.distribuido import sigue_vivo

    inicio = time.monotonic()
    while any(sigue_vivo(p) for p in pids) and time.monotonic() - inicio < plazo_s:
        time.sleep(0.1)
    return time.monotonic() - inicio


class TorchrunVigilado:
    """``with TorchrunVigilado(orden, raiz) as t:`` lanza ``torchrun`` en su sesión, con la salida en un
    temporal (``t.salida()``) y los procesos vistos en ``t.vistos`` (``t.mirar()`` los apunta). Al salir,
    pase lo que pase, no queda ninguno vivo."""

    def __init__(self, orden, raiz):
        import os

        self.orden, self.entorno = orden, {**os.environ, "PYTHONPATH": str(raiz), "OMP_NUM_THREADS": "1"}
        self.entorno.pop("PYTEST_CURRENT_TEST", None)
        self.vistos: set[int] = set()

    def __enter__(self) -> "TorchrunVigilado":
        import subprocess
        import tempfile

        self._archivo = tempfile.TemporaryFile(mode="w+", encoding="utf-8", errors="replace")
        self.proceso = subprocess.Popen(self.orden, stdout=self._archivo, stderr=subprocess.STDOUT, env=self.entorno,
                                        start_new_session=True)
        return self

    def mirar(self) -> set[int]:
        """Apunta los descendientes de torchrun que hay ahora y los devuelve."""
        from curso_gpu.distribuido import descendientes

        ahora = descendientes(self.proceso.pid)
        self.vistos |= ahora
        return ahora

    def salida(self) -> str:
        self._archivo.seek(0)
        return self._archivo.read()

    def __exit__(self, *excepcion) -> None:
        import subprocess

        from curso_gpu.distribuido import descendientes, sigue_vivo

        if self.proceso.poll() is None:
            self.proceso.kill()
        matar(p for p in self.vistos | descendientes(self.proceso.pid) if sigue_vivo(p))
        try:
            self.proceso.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass
        self._archivo.close()
