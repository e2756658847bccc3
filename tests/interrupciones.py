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
