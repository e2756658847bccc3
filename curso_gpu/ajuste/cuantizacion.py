"""QLoRA: el modelo base en 4 bits (NF4) con bitsandbytes, y lo que necesita (lección 09).

bitsandbytes cuantiza y multiplica en la GPU: sin CUDA no hay 4 bits. En una T4 (Turing,
capacidad 7.5) se calcula en fp16: no tiene núcleos tensor para bf16 (``precision_mixta``).
"""

from __future__ import annotations

import importlib.util

import torch

from ..base import MENU_COLAB, mostrar_valor, normalizar_precision
from ..rendimiento import comprobar_precision

__all__ = ["CuantizacionNoDisponible", "bitsandbytes_instalado", "comprobar_4_bits", "config_4_bits"]


class CuantizacionNoDisponible(ValueError):
    """Se pidió cargar en 4 bits donde no se puede (sin CUDA o sin bitsandbytes)."""


def bitsandbytes_instalado() -> bool:
    """¿Está instalado bitsandbytes? (Sin importarlo: importarlo sin GPU escribe avisos.)"""
    return importlib.util.find_spec("bitsandbytes") is not None


def comprobar_4_bits() -> None:
    """``CuantizacionNoDisponible`` en español si aquí no se puede cargar un modelo en 4 bits. Lección 09."""
    if not torch.cuda.is_available():
        raise CuantizacionNoDisponible(
            "Cargar el modelo en 4 bits (QLoRA) necesita una GPU NVIDIA con CUDA: bitsandbytes cuantiza y "
            f"multiplica en la GPU, y aquí torch.cuda.is_available() es False. En Colab: {MENU_COLAB}. "
            "Sin GPU, ajusta con LoRA normal en fp32 (como el modelo diminuto de la lección).")
    if not bitsandbytes_instalado():
        raise CuantizacionNoDisponible(
            "Cargar el modelo en 4 bits (QLoRA) necesita el paquete bitsandbytes, y no está instalado. "
            "Instálalo con: pip install bitsandbytes (en Colab: !pip install -q bitsandbytes) y vuelve a "
            "ejecutar la celda.")


def config_4_bits(precision: str = "fp16"):
    """La ``BitsAndBytesConfig`` de QLoRA: NF4, doble cuantización y cálculo en ``precision``. Lección 09.

    ``precision``: ``"fp16"`` (la de una T4) o ``"bf16"`` (Ampere o más nueva: A100, L4, RTX 30/40).
    Antes de nada comprueba que hay CUDA y bitsandbytes, y que la GPU puede con ``precision``.
    """
    try:
        nombre = normalizar_precision(precision)
    except (TypeError, ValueError):
        nombre = None
    if nombre not in ("fp16", "bf16"):
        raise ValueError(f"precision debe ser 'fp16' (T4) o 'bf16' (Ampere o más nueva): QLoRA calcula en 16 bits; "
                         f"recibí {mostrar_valor(precision)}. Por ejemplo, config_4_bits('fp16').")
    comprobar_4_bits()
    tipo = comprobar_precision(precision, torch.device("cuda"))
    if tipo is None:
        raise ValueError("QLoRA calcula en 16 bits: usa precision='fp16' (T4) o 'bf16' (Ampere o más nueva).")
    from transformers import BitsAndBytesConfig

    return BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type="nf4", bnb_4bit_use_double_quant=True,
                              bnb_4bit_compute_dtype=tipo)
