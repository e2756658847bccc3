"""Generar texto rápido: la caché KV, los lotes y el techo del ancho de banda (lección 10).

- ``cache_kv``: cuánto ocupa la caché KV, calculado (``bytes_cache_kv``) y medido (``bytes_de_cache``).
- ``techo``: el techo de tokens por segundo que deja la memoria (``techo_tokens_por_segundo``).
- ``medir``: ``medir_generacion`` con el ``generate`` de ``transformers`` y su ``MedicionGeneracion``;
  ``comprobar_para_generar`` y ``comprobar_contexto``, lo que se comprueba antes de generar.
- ``barrido``: lotes de 1, 4 y 16, con y sin caché y la caché estática compilada, medidos alternados
  (``medir_barrido`` y su ``BarridoGeneracion``, que dice lo que midió en frases).
- ``adaptador``: el adaptador de la lección 09 (``buscar_adaptador``) y un modelo en fp16 para
  generar en la GPU (``cargar_para_generar``).
- ``avisos``: recoger los avisos de ``transformers`` para leerlos (``avisos_de_transformers``).

``transformers`` se importa solo dentro de las funciones que lo usan: importar este subpaquete
no lo carga.
"""

from ..base import cargar_perezoso

# Cada nombre público y el módulo donde vive. Se importa al usarlo por primera vez.
CASAS = {
    "ADAPTADOR_DIMINUTO": "adaptador",
    "ADAPTADOR_QWEN": "adaptador",
    "buscar_adaptador": "adaptador",
    "cargar_adaptador": "adaptador",
    "cargar_para_generar": "adaptador",
    "BarridoGeneracion": "barrido",
    "FilaBarrido": "barrido",
    "VARIANTES": "barrido",
    "medir_barrido": "barrido",
    "avisos_de_transformers": "avisos",
    "bytes_cache_kv": "cache_kv",
    "bytes_de_cache": "cache_kv",
    "cache_de": "cache_kv",
    "forma_de_atencion": "cache_kv",
    "MedicionGeneracion": "medir",
    "comprobar_contexto": "medir",
    "comprobar_para_generar": "medir",
    "medir_generacion": "medir",
    "preparar_lote": "medir",
    "ancho_de_banda_de": "techo",
    "medir_ancho_de_banda": "techo",
    "techo_tokens_por_segundo": "techo",
}

__all__ = sorted(CASAS)


def __getattr__(nombre: str):
    return cargar_perezoso(__name__, CASAS, nombre, globals())


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(CASAS))
