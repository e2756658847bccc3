"""Leer los avisos de ``transformers`` en vez de verlos pasar en rojo. Lección 10.

``transformers`` avisa con su propio registro (``logging``), que escribe en la salida de errores.
``avisos_de_transformers()`` los recoge en una lista mientras dura el bloque ``with``, para
enseñarlos o comprobarlos, y deja el registro como estaba al salir.
"""

from __future__ import annotations

import logging
from contextlib import contextmanager

__all__ = ["avisos_de_transformers"]


class _Recoger(logging.Handler):
    def __init__(self, destino: list[str]):
        super().__init__(logging.WARNING)
        self.destino = destino

    def emit(self, registro: logging.LogRecord) -> None:
        self.destino.append(registro.getMessage())


@contextmanager
def avisos_de_transformers():
    """``with avisos_de_transformers() as avisos:`` → ``avisos`` es la lista de avisos emitidos dentro.

    Mientras dura, los avisos no se escriben en la salida de errores. Los avisos que
    ``transformers`` da «una sola vez» (``warning_once``) solo aparecen la primera vez.
    """
    from transformers.utils import logging as registro_transformers

    avisos: list[str] = []
    raiz = registro_transformers.get_logger("transformers")
    recoger = _Recoger(avisos)
    raiz.addHandler(recoger)
    registro_transformers.disable_default_handler()
    try:
        yield avisos
    finally:
        registro_transformers.enable_default_handler()
        raiz.removeHandler(recoger)
