"""Preparar ``torch.compile`` sin un aviso en inglés que no va contigo. Lección 11.

``torch.compile`` importa ``torch.utils.cpp_extension``. Con un PyTorch con CUDA y sin GPU, ese
import escribe en la salida de errores «No CUDA runtime is found, using CUDA_HOME='/usr/local/cuda'»
(o la carpeta donde encuentre ``nvcc``). Pasa en Colab con el entorno de CPU y en Linux con el
PyTorch de siempre en una computadora sin GPU NVIDIA. Solo dice que hay herramientas de CUDA en
el disco y ninguna GPU. Esa carpeta solo sirve para compilar extensiones de CUDA: sin GPU,
``torch.compile`` genera C++ para la CPU y no la usa. ``preparar_torch_compile()`` hace ese
import y descarta solo ese aviso; cualquier otro mensaje sale como siempre.
"""

from __future__ import annotations

import logging
import sys

from ..base import SIN_RUNTIME_CUDA

__all__ = ["preparar_torch_compile"]

_MODULO = "torch.utils.cpp_extension"  # el aviso sale una sola vez, al importarlo (su CUDA_HOME)


def _no_es_el_aviso(registro: logging.LogRecord) -> bool:
    return not str(registro.msg).startswith(SIN_RUNTIME_CUDA)


def preparar_torch_compile() -> None:
    """Importa lo que usa ``torch.compile`` sin el aviso «No CUDA runtime is found». Lección 11.

    Llámala antes del primer ``torch.compile``. Con una GPU, o con el PyTorch para CPU, ese
    aviso no existe y solo importa. Si el módulo ya estaba importado, el aviso ya salió (o no
    tocaba) y no hace nada.
    """
    if _MODULO in sys.modules:
        return
    registro = logging.getLogger(_MODULO)
    registro.addFilter(_no_es_el_aviso)
    try:
        import torch.utils.cpp_extension  # noqa: F401
    finally:
        registro.removeFilter(_no_es_el_aviso)
