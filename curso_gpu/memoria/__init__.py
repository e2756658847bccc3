"""Cuánta memoria necesita un modelo. Lecciones 04, 07 y 12.

- ``regla``: la regla rápida (inferencia y los 16 bytes por parámetro de entrenar) y si cabe en tu GPU.
- ``desglose``: la memoria de entrenar medida por partes: pesos, gradientes, optimizador y activaciones.
- ``lote``: ``lote_maximo``, el mayor lote que cabe, probado o calculado.
- ``reparto``: la memoria de cada GPU con DDP o con FSDP (fragmentos), y lo que guarda cada rango (lección 12).
"""

from typing import TYPE_CHECKING

from ..base._puerta import abrir

# CASAS (cada nombre y su módulo) y __all__ salen de los __all__ de los módulos; cada nombre
# se importa al usarlo por primera vez.
abrir(globals())

if TYPE_CHECKING:  # para los editores y los comprobadores de tipos; al ejecutar no se importa nada
    from .desglose import *  # noqa: F403
    from .lote import *  # noqa: F403
    from .regla import *  # noqa: F403
    from .reparto import *  # noqa: F403
