"""Generar texto rápido: la caché KV, los lotes y el techo del ancho de banda (lección 10).

- ``cache_kv``: cuánto ocupa la caché KV, calculado (``bytes_cache_kv``) y medido (``bytes_de_cache``).
- ``techo``: el techo de tokens por segundo que deja la memoria (``techo_tokens_por_segundo``).
- ``velocidad``: ``medir_generacion`` con el ``generate`` de ``transformers`` y su ``MedicionGeneracion``;
  ``comprobar_para_generar`` y ``comprobar_contexto``, lo que se comprueba antes de generar.
- ``barrido``: lotes de 1, 4 y 16, con y sin caché y la caché estática compilada, medidos alternados
  (``medir_barrido`` y su ``BarridoGeneracion``, que dice lo que midió en frases).
- ``adaptador``: el adaptador de la lección 09 (``buscar_adaptador``) y un modelo en fp16 para
  generar en la GPU (``cargar_para_generar``).
- ``avisos``: recoger los avisos de ``transformers`` para leerlos (``avisos_de_transformers``).

``transformers`` se importa solo dentro de las funciones que lo usan: importar este subpaquete
no lo carga.
"""

from typing import TYPE_CHECKING

from ..base._puerta import abrir

# CASAS (cada nombre y su módulo) y __all__ salen de los __all__ de los módulos; cada nombre
# se importa al usarlo por primera vez.
abrir(globals())

if TYPE_CHECKING:  # para los editores y los comprobadores de tipos; al ejecutar no se importa nada
    from .adaptador import *  # noqa: F403
    from .avisos import *  # noqa: F403
    from .barrido import *  # noqa: F403
    from .cache_kv import *  # noqa: F403
    from .techo import *  # noqa: F403
    from .velocidad import *  # noqa: F403
