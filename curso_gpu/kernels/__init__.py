"""Tus primeros kernels de GPU con Triton: suma, softmax por filas y matmul por teselas. Lección 11.

- ``carga``: importar ``triton`` en el modo que toca (compilado con CUDA, intérprete en la CPU),
  ``modo_triton()`` y qué hacer si falta (``COMO_INSTALAR``).
- ``programas``: los kernels, tal como se escriben en Triton (importarlo importa ``triton``).
- ``lanzadores``: ``suma``, ``softmax_filas`` y ``matmul_teselas`` con tensores de PyTorch, comprobados.
- ``cuentas``: los bytes que mueve cada kernel (``trafico_softmax``) y los FLOP de una matmul.
- ``techos``: con qué pico comparar la matmul (``techo_tl_dot``): ¿usa ``tl.dot`` los Tensor Cores
  en esta GPU? Desde la capacidad de cómputo 8.0 sí; en una T4 (7.5), no.
- ``compilacion``: ``preparar_torch_compile()``, sin el aviso en inglés de un PyTorch con CUDA sin GPU.

``triton`` se importa al lanzar el primer kernel, nunca al importar este subpaquete.
"""

from typing import TYPE_CHECKING

from ..base._puerta import abrir

# CASAS (cada nombre y su módulo) y __all__ salen de los __all__ de los módulos; cada nombre
# se importa al usarlo por primera vez.
abrir(globals())

if TYPE_CHECKING:  # para los editores y los comprobadores de tipos; al ejecutar no se importa nada
    from .carga import *  # noqa: F403
    from .compilacion import *  # noqa: F403
    from .cuentas import *  # noqa: F403
    from .lanzadores import *  # noqa: F403
    from .programas import *  # noqa: F403
    from .techos import *  # noqa: F403
