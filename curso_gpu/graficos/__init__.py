"""Las figuras del curso (matplotlib se importa al dibujar).

- ``estilo``: el estilo común (``nueva_figura``, ``dar_estilo``, ``leyenda_fuera``).
- ``velocidad_memoria``: velocidad y memoria de un modelo (lecciones 02 a 04).
- ``curvas``: entrenar: curvas, reanudación, memoria, cargadores (lecciones 05 a 07).
- ``servir``: una respuesta token a token y la curva rendimiento-latencia (lección 13).
"""

from typing import TYPE_CHECKING

from ..base._puerta import abrir

# CASAS (cada nombre y su módulo) y __all__ salen de los __all__ de los módulos; cada nombre
# se importa al usarlo por primera vez.
abrir(globals())

if TYPE_CHECKING:  # para los editores y los comprobadores de tipos; al ejecutar no se importa nada
    from .curvas import *  # noqa: F403
    from .estilo import *  # noqa: F403
    from .servir import *  # noqa: F403
    from .velocidad_memoria import *  # noqa: F403
