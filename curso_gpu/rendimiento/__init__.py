"""¿Por qué va lenta mi GPU? Lección 06.

- ``precision_mixta``: ``autocast`` y ``GradScaler`` según lo que pueda cada dispositivo.
- ``conjuntos``: imágenes con aumento de datos en la CPU, para el ``DataLoader``.
- ``cargadores``: ``comparar_cargadores``: muestras por segundo según ``num_workers`` y ``pin_memory``.
- ``diagnostico``: ``diagnosticar``: ¿datos, lanzamientos o cálculo?
"""

from typing import TYPE_CHECKING

from ..base._puerta import abrir

# CASAS (cada nombre y su módulo) y __all__ salen de los __all__ de los módulos; cada nombre
# se importa al usarlo por primera vez.
abrir(globals())

if TYPE_CHECKING:  # para los editores y los comprobadores de tipos; al ejecutar no se importa nada
    from .cargadores import *  # noqa: F403
    from .conjuntos import *  # noqa: F403
    from .diagnostico import *  # noqa: F403
    from .precision_mixta import *  # noqa: F403
