"""Medir bien: sincronizar, calentar, medianas y comparaciones honestas. Lección 03.

- ``cronometro``: ``cronometrar``, las mediciones con presupuesto de tiempo y ``comprobar_sin_argumentos``.
- ``cpu_gpu``: ``a @ b`` en CPU y GPU: GFLOP/s, % del pico, el barrido por tamaños.
- ``memoria_libre``: ¿caben las matrices antes de crearlas?
- ``bucle_python``: el bucle triple de Python frente a NumPy.
- ``comparar``: ``comparar_tiempos``, dos funciones medidas alternadas con su intervalo y su veredicto.
"""

from typing import TYPE_CHECKING

from ..base._puerta import abrir

# CASAS (cada nombre y su módulo) y __all__ salen de los __all__ de los módulos; cada nombre
# se importa al usarlo por primera vez.
abrir(globals())

if TYPE_CHECKING:  # para los editores y los comprobadores de tipos; al ejecutar no se importa nada
    from .bucle_python import *  # noqa: F403
    from .comparar import *  # noqa: F403
    from .cpu_gpu import *  # noqa: F403
    from .cronometro import *  # noqa: F403
    from .memoria_libre import *  # noqa: F403
    from .sin_sincronizar import *  # noqa: F403
