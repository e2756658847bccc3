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
