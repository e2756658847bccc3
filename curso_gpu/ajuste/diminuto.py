"""Un modelo de lenguaje diminuto y su tokenizador, hechos en memoria (lecciones 09 y 10).

Sin red y sin descargas: la arquitectura es la de Qwen2 (la familia de Qwen2.5-0.5B) pero con
64 de ancho y 2 bloques, con pesos aleatorios fijados por una semilla; el tokenizador es de
caracteres. Sirve para entrenar LoRA de verdad en la CPU en segundos y para probar ``generate``.
"""

from __future__ import annotations

import torch

from ..base import leer_numero, mostrar_valor

__all__ = ["ALFABETO", "TEXTO_ENTRENAMIENTO", "modelo_diminuto", "tokenizador_diminuto"]

#: El texto en español que entrena la lección 09: frases cortas que se repiten con variaciones,
#: para que la pérdida baje en pocos pasos incluso con un modelo tan pequeño.
TEXTO_ENTRENAMIENTO = (
    "La GPU hace muchas cuentas a la vez. "
    "La CPU hace pocas cuentas, pero muy rápido. "
    "Una T4 tiene dieciséis gigas de memoria. "
    "El modelo no cabe si la memoria no alcanza. "
    "Con LoRA entrenas pocas matrices y el modelo base no cambia. "
    "Con QLoRA el modelo base se guarda en cuatro bits. "
    "Guarda el adaptador a menudo y no perderás el trabajo. "
    "Si la sesión se corta, sigue desde el último punto guardado. "
    "La pérdida baja cuando el modelo aprende. "
    "Mide antes de creer y anota lo que ves."
)

#: Caracteres que el tokenizador conoce (uno por token). Cualquier otro se vuelve ``<unk>``.
ALFABETO = (
    "abcdefghijklmnopqrstuvwxyz"
    "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    "áéíóúüñÁÉÍÓÚÜÑ"
    "0123456789"
    " .,;:¡!¿?-()\"'%/\n"
)

_ESPECIALES = ("<pad>", "<eos>", "<unk>")


def tokenizador_diminuto(padding_side: str = "right"):
    """Un tokenizador de ``transformers`` de un carácter por token, sin archivos (lección 09).

    Tiene ``<pad>`` (id 0), ``<eos>`` (id 1) y ``<unk>`` (id 2); ``padding_side`` se puede
    cambiar después (``"left"`` para generar por lotes, lección 10).
    """
    if padding_side not in ("left", "right"):
        raise ValueError(f"padding_side debe ser 'right' (entrenar) o 'left' (generar por lotes, lección 10); "
                         f"recibí {mostrar_valor(padding_side)}. Por ejemplo, tokenizador_diminuto('left').")
    from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    vocabulario = {token: i for i, token in enumerate(_ESPECIALES)}
    for caracter in ALFABETO:
        vocabulario.setdefault(caracter, len(vocabulario))
    base = Tokenizer(models.WordLevel(vocab=vocabulario, unk_token="<unk>"))
    # Cada carácter (también el espacio y el salto de línea) es una pieza.
    base.pre_tokenizer = pre_tokenizers.Split(Regex(r"[\s\S]"), behavior="isolated")
    base.decoder = decoders.Fuse()  # al decodificar, los caracteres se juntan sin espacios
    return PreTrainedTokenizerFast(
        tokenizer_object=base,
        pad_token="<pad>",
        eos_token="<eos>",
        unk_token="<unk>",
        padding_side=padding_side,
        model_max_length=512,
    )


def modelo_diminuto(semilla: int = 0):
    """Devuelve ``(modelo, tokenizador)``: un Qwen2 diminuto con pesos aleatorios (lección 09).

    64 de ancho, 2 bloques, 4 cabezas de atención y 2 de claves/valores (atención agrupada,
    GQA, como Qwen2.5), embeddings atados. Misma ``semilla``, mismos pesos; el generador
    aleatorio global no cambia. El modelo vuelve en modo evaluación, en fp32 y en la CPU.
    """
    semilla = leer_numero(semilla, "semilla", entero=True, minimo=0, ejemplo="semilla=0")
    from transformers import Qwen2Config, Qwen2ForCausalLM

    tokenizador = tokenizador_diminuto()
    config = Qwen2Config(
        vocab_size=len(tokenizador),
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=512,
        tie_word_embeddings=True,
        # Pesos iniciales con desviación 0.1 (Qwen2 usa 0.02): con 64 de ancho y la cabeza atada a
        # los embeddings, 0.02 deja los logits casi planos y LoRA apenas podría bajar la pérdida.
        initializer_range=0.1,
        pad_token_id=tokenizador.pad_token_id,
        eos_token_id=tokenizador.eos_token_id,
        bos_token_id=None,
    )
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(semilla)
        modelo = Qwen2ForCausalLM(config)
    modelo.generation_config.pad_token_id = tokenizador.pad_token_id
    modelo.generation_config.eos_token_id = tokenizador.eos_token_id
    modelo.eval()
    return modelo, tokenizador
