"""Las arquitecturas de Qwen2.5-0.5B, 1.5B y 7B, escritas a mano y construidas en ``meta`` (lección 09).

Sin descargar nada: la configuración se escribe aquí con los valores del ``config.json`` de
cada modelo y ``transformers`` construye el modelo en el dispositivo ``meta`` (tensores con
forma y tipo, sin datos). Así se cuentan sus parámetros exactos y se mide su memoria.
"""

from __future__ import annotations

import torch

from ..base import mostrar_valor

__all__ = ["ARQUITECTURAS", "config_de", "modelo_en_meta"]

ARQUITECTURAS: dict[str, dict] = {
    # El config.json de Qwen/Qwen2.5-0.5B (https://huggingface.co/Qwen/Qwen2.5-0.5B/blob/main/config.json),
    # comprobado el 3-12-2026 en copias publicadas de ese archivo («_name_or_path»: «Qwen/Qwen2.5-0.5B»,
    # p. ej. https://huggingface.co/osllmai-community/Qwen2.5-0.5B/blob/main/config.json): 24 capas,
    # 896 de ancho, 4864 en el MLP, 14 cabezas de atención y 2 de claves/valores, vocabulario de
    # 151 936, embeddings atados. La ficha del modelo dice «Number of Parameters: 0.49B (0.36B
    # non-embedding)»; construido en meta da 494 032 768 (136 134 656 de ellos, los embeddings).
    "Qwen2.5-0.5B": dict(vocab_size=151936, hidden_size=896, intermediate_size=4864, num_hidden_layers=24,
                         num_attention_heads=14, num_key_value_heads=2, max_position_embeddings=32768,
                         rms_norm_eps=1e-6, tie_word_embeddings=True),
    # El config.json de Qwen/Qwen2.5-1.5B (https://huggingface.co/Qwen/Qwen2.5-1.5B/blob/main/config.json),
    # comprobado el 7-12-2026 en copias publicadas («_name_or_path»: «Qwen/Qwen2.5-1.5B», p. ej.
    # https://huggingface.co/kaitchup/Qwen2.5-1.5B-AutoRound-GPTQ-asym-4bit/blob/main/config.json): 28 capas,
    # 1536 de ancho, 8960 en el MLP, 12 cabezas y 2 de claves/valores, vocabulario de 151 936,
    # embeddings atados. La ficha dice «Number of Parameters: 1.54B»; en meta da 1 543 714 304. Lección 12.
    "Qwen2.5-1.5B": dict(vocab_size=151936, hidden_size=1536, intermediate_size=8960, num_hidden_layers=28,
                         num_attention_heads=12, num_key_value_heads=2, max_position_embeddings=131072,
                         rms_norm_eps=1e-6, tie_word_embeddings=True),
    # El config.json de Qwen/Qwen2.5-7B (https://huggingface.co/Qwen/Qwen2.5-7B/blob/main/config.json),
    # comprobado el 3-12-2026 en copias publicadas («_name_or_path»: «Qwen/Qwen2.5-7B», p. ej.
    # https://huggingface.co/AmberYifan/Qwen2.5-7B-gen-dpo-10k/blob/main/config.json): 28 capas,
    # 3584 de ancho, 18 944 en el MLP, 28 cabezas y 4 de claves/valores, vocabulario de 152 064,
    # embeddings sin atar. La ficha dice «Number of Parameters: 7.61B»; en meta da 7 615 616 512.
    "Qwen2.5-7B": dict(vocab_size=152064, hidden_size=3584, intermediate_size=18944, num_hidden_layers=28,
                       num_attention_heads=28, num_key_value_heads=4, max_position_embeddings=131072,
                       rms_norm_eps=1e-6, tie_word_embeddings=False),
}


def config_de(nombre: str):
    """La ``Qwen2Config`` de ``"Qwen2.5-0.5B"`` o ``"Qwen2.5-7B"``, sin red. Lección 09.

    El nombre se reconoce sin mirar mayúsculas ni espacios alrededor (``"qwen2.5-0.5b"`` vale).
    """
    return _config_de(nombre, "nombre")


def _config_de(nombre, argumento: str):
    """``config_de`` con el nombre del dato que dan los mensajes (``nombre``, ``config``...)."""
    conocidos = ", ".join(repr(n) for n in ARQUITECTURAS)
    if not isinstance(nombre, str):
        raise ValueError(f"{argumento} debe ser el nombre de un modelo como texto, uno de: {conocidos}; recibí "
                         f"{mostrar_valor(nombre)} (de tipo {type(nombre).__name__}). Por ejemplo, "
                         "config_de('Qwen2.5-0.5B').")
    claves = {n.lower(): n for n in ARQUITECTURAS}
    clave = claves.get(nombre.strip().lower())
    if clave is None:
        raise ValueError(f"{argumento}: no tengo la arquitectura de {nombre!r}; conozco: {conocidos}. "
                         "Para otro modelo, AutoConfig.from_pretrained('nombre') la descarga (un archivo pequeño).")
    from transformers import Qwen2Config

    return Qwen2Config(**ARQUITECTURAS[clave])


def modelo_en_meta(config, *, argumento: str = "config"):
    """El modelo de ``config`` en el dispositivo ``meta``: toda la forma, ningún byte. Lección 09.

    ``config``: una configuración de ``transformers`` (``Qwen2Config``, ``AutoConfig``...) o uno
    de los nombres de ``ARQUITECTURAS``. ``argumento``: cómo se llama ese dato en los mensajes de error.
    """
    from transformers import AutoModelForCausalLM, PretrainedConfig

    if isinstance(config, str):
        config = _config_de(config, argumento)
    if not isinstance(config, PretrainedConfig):
        raise ValueError(f"{argumento} debe ser una configuración de transformers (p. ej. config_de('Qwen2.5-0.5B') o "
                         f"AutoConfig.from_pretrained(...)) o el nombre de una de ARQUITECTURAS; recibí "
                         f"{mostrar_valor(config)} (de tipo {type(config).__name__}).")
    with torch.device("meta"):
        return AutoModelForCausalLM.from_config(config)
