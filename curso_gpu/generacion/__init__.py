"""Generar texto rápido: la caché KV, los lotes y el techo del ancho de banda (lección 10).

- ``cache_kv``: cuánto ocupa la caché KV, calculado (``bytes_cache_kv``) y medido (``bytes_de_cache``).
- ``techo``: el techo de tokens por segundo que deja la memoria (``techo_tokens_por_segundo``).
- ``medir``: ``medir_generacion`` con el ``generate`` de ``transformers`` y su ``MedicionGeneracion``.
- ``avisos``: recoger los avisos de ``transformers`` para leerlos (``avisos_de_transformers``).

``transformers`` se importa solo dentro de las funciones que lo usan: importar este subpaquete
no lo carga.
"""

from .avisos import avisos_de_transformers
from .cache_kv import bytes_cache_kv, bytes_de_cache, cache_de, forma_de_atencion
from .medir import MedicionGeneracion, medir_generacion, preparar_lote
from .techo import ancho_de_banda_de, medir_ancho_de_banda, techo_tokens_por_segundo

__all__ = [
    "MedicionGeneracion",
    "ancho_de_banda_de",
    "avisos_de_transformers",
    "bytes_cache_kv",
    "bytes_de_cache",
    "cache_de",
    "forma_de_atencion",
    "medir_ancho_de_banda",
    "medir_generacion",
    "preparar_lote",
    "techo_tokens_por_segundo",
]
