"""Entrenar en cualquier dispositivo. Lección 05.

- ``datos``: las imágenes de líneas de 8×8.
- ``modelos``: la CNN pequeña, la red tabular y el Transformer de las lecciones 04 y 07.
- ``entradas``: comprobar modelo, datos y números antes de entrenar, con errores claros.
- ``resultados``: ``Registro``, ``Historial`` y ``Prediccion``.
- ``ddp``: ``entrenar_ddp``, la CNN de la lección 05 con varios procesos (lección 08), con DDP o FSDP (lección 12).
- ``nucleo``: lo que comparten los tres entrenadores (candado, reanudar, guardar el checkpoint).
- ``bucle``: ``entrenar``, ``evaluar`` y ``predecir``.
"""

from typing import TYPE_CHECKING

from ..base._puerta import abrir

# CASAS (cada nombre y su módulo) y __all__ salen de los __all__ de los módulos; cada nombre
# se importa al usarlo por primera vez.
abrir(globals())

if TYPE_CHECKING:  # para los editores y los comprobadores de tipos; al ejecutar no se importa nada
    from .bucle import *  # noqa: F403
    from .datos import *  # noqa: F403
    from .ddp import *  # noqa: F403
    from .entradas import *  # noqa: F403
    from .modelos import *  # noqa: F403
    from .nucleo import *  # noqa: F403
    from .resultados import *  # noqa: F403
