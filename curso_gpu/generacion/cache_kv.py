"""La caché KV: qué guarda y cuánto ocupa, calculado y medido. Lección 10.

Al generar, cada capa de atención guarda las **claves** (K) y los **valores** (V) de todos los
tokens ya vistos, para no recalcularlos en cada paso. Por token y por secuencia ocupan

    2 (K y V) · capas · cabezas de claves/valores · dimensión de cada cabeza · bytes por valor

En Qwen2.5-0.5B en fp16 son 2 · 24 · 2 · 64 · 2 = 12 288 bytes (12 KiB) por token: con 32 768
tokens, 384 MiB. (Su config.json, huggingface.co/Qwen/Qwen2.5-0.5B/blob/main/config.json, leído el
3-12-2026: ``num_hidden_layers`` 24, ``num_key_value_heads`` 2, ``hidden_size`` 896 y
``num_attention_heads`` 14, así que cada cabeza tiene 896 / 14 = 64.) La cuenta vale para los modelos con atención completa en todas sus capas
(Llama, Qwen2, Mistral sin ventana deslizante).
"""

from __future__ import annotations

import torch

from ..base import PRECISIONES, leer_numero, normalizar_precision

__all__ = ["bytes_cache_kv", "bytes_de_cache", "cache_de", "forma_de_atencion"]

def _config_de(config_o_modelo):
    """La configuración de texto de un modelo de ``transformers`` (o la propia configuración)."""
    config = getattr(config_o_modelo, "config", config_o_modelo)
    if hasattr(config, "get_text_config"):
        config = config.get_text_config()
    return config


def forma_de_atencion(config_o_modelo) -> tuple[int, int, int]:
    """``(capas, cabezas de claves/valores, dimensión de cada cabeza)`` de una configuración. Lección 10.

    Lee ``num_hidden_layers``, ``num_key_value_heads`` (si no está: ``num_attention_heads``, sin
    atención agrupada) y ``head_dim`` (si no está: ``hidden_size // num_attention_heads``).
    """
    return _forma(config_o_modelo, "config_o_modelo")


def _forma(config_o_modelo, argumento: str) -> tuple[int, int, int]:
    """``forma_de_atencion`` con el nombre del dato que dan los mensajes."""
    config = _config_de(config_o_modelo)
    faltan = [nombre for nombre in ("num_hidden_layers", "num_attention_heads", "hidden_size")
              if isinstance(getattr(config, nombre, None), bool) or not isinstance(getattr(config, nombre, None), int)
              or getattr(config, nombre) <= 0]
    if faltan:
        raise ValueError(
            f"{argumento}: la configuración no tiene {', '.join(faltan)} (enteros mayores que 0); pasa la configuración de un modelo de lenguaje "
            f"de transformers (por ejemplo, modelo.config). Recibí un {type(config).__name__}."
        )
    cabezas_kv = getattr(config, "num_key_value_heads", None) or config.num_attention_heads
    dimension = getattr(config, "head_dim", None) or config.hidden_size // config.num_attention_heads
    return config.num_hidden_layers, cabezas_kv, dimension


def _bytes_por_valor(bytes_por_valor) -> float:
    if isinstance(bytes_por_valor, (str, torch.dtype)):
        try:
            return PRECISIONES[normalizar_precision(bytes_por_valor)].bytes
        except ValueError as error:
            raise ValueError(f"bytes_por_valor: {error}; o un número de bytes (2 en fp16, 4 en fp32).") from None
    return leer_numero(bytes_por_valor, "bytes_por_valor (2 en fp16, 4 en fp32, o una precisión: \"fp16\", "
                       "torch.float32...)", minimo=0, minimo_incluido=False, maximo=8,
                       ejemplo="bytes_por_valor=2 (o bytes_por_valor=\"fp16\")")


def bytes_cache_kv(config, tokens: int, lote: int = 1, bytes_por_valor=2) -> int:
    """Los bytes exactos de la caché KV con ``tokens`` tokens por secuencia y ``lote`` secuencias. Lección 10.

    ``2 · capas · cabezas_kv · dimensión_cabeza · tokens · lote · bytes_por_valor``. ``config``: la
    configuración de ``transformers`` (o el modelo). ``bytes_por_valor``: 2 en fp16/bf16, 4 en
    fp32, o el nombre de la precisión. En un lote con relleno a la izquierda, ``tokens`` es la
    longitud con relleno: la caché también guarda las posiciones de relleno.

    >>> from transformers import Qwen2Config
    >>> bytes_cache_kv(Qwen2Config(num_hidden_layers=24, num_attention_heads=14, hidden_size=896,
    ...                            num_key_value_heads=2), tokens=1)
    12288
    """
    tokens = leer_numero(tokens, "tokens (la longitud del texto guardado en la caché)", entero=True, minimo=1,
                         ejemplo="tokens=1024")
    lote = leer_numero(lote, "lote (cuántas secuencias se generan a la vez)", entero=True, minimo=1, ejemplo="lote=1")
    por_valor = _bytes_por_valor(bytes_por_valor)
    capas, cabezas_kv, dimension = _forma(config, "config")
    return round(2 * capas * cabezas_kv * dimension * tokens * lote * por_valor)


def cache_de(salida):
    """La caché que devuelve ``generate(..., return_dict_in_generate=True)`` o una pasada del modelo.

    En ``transformers`` 5 se llama ``salida.cache``; en las versiones 4, ``salida.past_key_values``.
    """
    campos = getattr(salida, "__dataclass_fields__", {})
    if "cache" in campos:
        return salida.cache
    return getattr(salida, "past_key_values", None)


def _tensores(cache) -> list[torch.Tensor]:
    if cache is None:
        return []
    if isinstance(cache, torch.Tensor):
        return [cache]
    if hasattr(cache, "layers"):  # transformers ≥ 4.56: una capa con .keys y .values
        return [t for capa in cache.layers for t in (getattr(capa, "keys", None), getattr(capa, "values", None))
                if isinstance(t, torch.Tensor)]
    if hasattr(cache, "key_cache"):  # DynamicCache de transformers 4.36–4.55
        return [t for t in list(cache.key_cache) + list(cache.value_cache) if isinstance(t, torch.Tensor)]
    if isinstance(cache, (tuple, list)):  # el formato antiguo: ((k, v), (k, v), ...)
        return [t for parte in cache for t in _tensores(parte)]
    raise ValueError(f"cache: no sé leer una caché de tipo {type(cache).__name__}; pasa cache_de(salida) con la "
                     "salida de generate(..., return_dict_in_generate=True) o la de una pasada del modelo.")


def bytes_de_cache(cache) -> int:
    """Los bytes que ocupa de verdad una caché KV de ``transformers`` (claves y valores). Lección 10.

    ``cache``: la de ``cache_de(salida)``, o la propia salida de ``generate(...,
    return_dict_in_generate=True)``. Sin caché (``None``, o una salida de ``generate`` sin ella,
    o el tensor de tokens que da ``generate`` sin ``return_dict_in_generate``) es un error, no un 0.
    """
    if cache is not None and not isinstance(cache, (torch.Tensor, tuple, list)) and (
            hasattr(cache, "sequences") or "cache" in getattr(cache, "__dataclass_fields__", {})):
        cache = cache_de(cache)  # la salida de generate: su caché
    if cache is None:
        raise ValueError("cache es None: no hay caché KV que medir. generate solo la devuelve con "
                         "return_dict_in_generate=True y sin use_cache=False: salida = modelo.generate(..., "
                         "return_dict_in_generate=True); bytes_de_cache(cache_de(salida)).")
    if isinstance(cache, torch.Tensor):
        raise ValueError(f"cache debe ser la caché KV, no un tensor suelto (recibí uno de forma "
                         f"{list(cache.shape)}: ¿los tokens que da generate sin return_dict_in_generate=True?). "
                         "Usa salida = modelo.generate(..., return_dict_in_generate=True) y "
                         "bytes_de_cache(cache_de(salida)).")
    return sum(t.numel() * t.element_size() for t in _tensores(cache))
