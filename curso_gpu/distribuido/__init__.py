"""Más de una GPU con DDP y ``torchrun``. Lección 08.

- ``grupo``: ``iniciar``, ``promediar``, ``terminar`` y el cálculo del all-reduce.
- ``lanzador``: lanzar ``torchrun`` con tiempo límite y sin dejar procesos huérfanos.
- ``padre``: que cada trabajador pare si ``torchrun`` muere (``vigilar_padre``).
- ``fragmentado``: FSDP2 (``fully_shard``), su precisión mixta y la comunicación contada (lección 12).
"""

from typing import TYPE_CHECKING

from ..base._puerta import abrir

# CASAS (cada nombre y su módulo) y __all__ salen de los __all__ de los módulos; cada nombre
# se importa al usarlo por primera vez.
abrir(globals())

if TYPE_CHECKING:  # para los editores y los comprobadores de tipos; al ejecutar no se importa nada
    from .fragmentado import *  # noqa: F403
    from .grupo import *  # noqa: F403
    from .lanzador import *  # noqa: F403
    from .padre import *  # noqa: F403
