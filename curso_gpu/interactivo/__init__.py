"""Lo que se usa con las manos: widgets, la calculadora y la línea de órdenes.

- ``widgets``: la pizarra y el selector de dispositivo (lección 05), con su foto HTML fija.
- ``calculadora``: la calculadora de VRAM (lección 04).
- ``cli``: ``python -m curso_gpu``: entorno, velocidad y qué modelo te cabe (lecciones 01 a 04).
"""

from typing import TYPE_CHECKING

from ..base._puerta import abrir

# CASAS (cada nombre y su módulo) y __all__ salen de los __all__ de los módulos; cada nombre
# se importa al usarlo por primera vez.
abrir(globals())

if TYPE_CHECKING:  # para los editores y los comprobadores de tipos; al ejecutar no se importa nada
    from .calculadora import *  # noqa: F403
    from .cli import *  # noqa: F403
    from .widgets import *  # noqa: F403
