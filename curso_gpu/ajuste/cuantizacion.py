"""QLoRA: el modelo base en 4 bits (NF4) con bitsandbytes, y lo que necesita (lección 09).

bitsandbytes cuantiza y multiplica en la GPU: sin CUDA no hay 4 bits (tampoco en la T4 simulada,
``CURSO_GPU_SIMULAR=T4``: allí todo se calcula en la CPU). En una T4 (Turing, capacidad 7.5) se
calcula en fp16: no tiene núcleos tensor para bf16 (``precision_mixta``).
"""

from __future__ import annotations

import importlib.util
import os
import socket

import torch

from ..base import MENU_COLAB, mostrar_valor, normalizar_precision
from ..dispositivo import VARIABLE_SIMULAR, gpu_simulada, simulacion_activa
from ..rendimiento import comprobar_precision

__all__ = ["CuantizacionNoDisponible", "bitsandbytes_instalado", "cargar_en_4_bits", "comprobar_4_bits",
           "config_4_bits", "motivo_sin_qlora"]

_SERVIDOR_HUB = ("huggingface.co", 443)
"""Adónde se conecta ``from_pretrained`` para descargar un modelo del Hub de Hugging Face."""

_VERDADERO = ("1", "on", "yes", "true")  # lo que huggingface_hub toma como «sí» en HF_HUB_OFFLINE


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
    if simulacion_activa():
        raise CuantizacionNoDisponible(
            f"esta {gpu_simulada().nombre} es simulada ({VARIABLE_SIMULAR}): todo se calcula en la CPU, y "
            "bitsandbytes cuantiza y multiplica en 4 bits en una GPU NVIDIA de verdad. En Colab, con una T4, "
            "esta comprobación pasa.")
    if not bitsandbytes_instalado():
        raise CuantizacionNoDisponible(
            "Cargar el modelo en 4 bits (QLoRA) necesita el paquete bitsandbytes, y no está instalado. "
            "Instálalo con: pip install bitsandbytes (en Colab: !pip install -q bitsandbytes) y vuelve a "
            "ejecutar la celda.")


def config_4_bits(precision: str = "fp16"):
    """La ``BitsAndBytesConfig`` de QLoRA: NF4, doble cuantización y cálculo en ``precision``. Lección 09.

    ``precision``: ``"fp16"`` (la de una T4) o ``"bf16"`` (Ampere o más nueva: A100, L4, RTX 30/40).
    Antes de nada comprueba que la GPU puede con ``precision`` (bf16 en una T4: no) y que hay CUDA
    y bitsandbytes.
    """
    try:
        nombre = normalizar_precision(precision)
    except (TypeError, ValueError):
        nombre = None
    if nombre not in ("fp16", "bf16"):
        raise ValueError(f"precision debe ser 'fp16' (T4) o 'bf16' (Ampere o más nueva): QLoRA calcula en 16 bits; "
                         f"recibí {mostrar_valor(precision)}. Por ejemplo, config_4_bits('fp16').")
    # Primero lo que dice la GPU (una T4 no puede con bf16, haya o no bitsandbytes); sin CUDA,
    # comprobar_4_bits dice que hace falta una GPU.
    tipo = comprobar_precision(nombre, torch.device("cuda")) if torch.cuda.is_available() else None
    comprobar_4_bits()
    from transformers import BitsAndBytesConfig

    return BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type="nf4", bnb_4bit_use_double_quant=True,
                              bnb_4bit_compute_dtype=tipo)


def motivo_sin_qlora(servidor: tuple[str, int] = _SERVIDOR_HUB, segundos: float = 3.0) -> str | None:
    """Por qué aquí no se puede cargar un modelo del Hub en 4 bits, en español; None si se puede. Lección 09.

    Hace falta todo lo de ``comprobar_4_bits`` (una GPU CUDA de verdad y bitsandbytes) y poder
    descargar: sin ``HF_HUB_OFFLINE=1`` (la T4 simulada lo pone) y con conexión a ``servidor``.
    """
    try:
        comprobar_4_bits()
    except CuantizacionNoDisponible as error:
        return str(error)
    if os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in _VERDADERO:
        return "HF_HUB_OFFLINE=1: transformers no descarga nada en esta sesión. Quítala para descargar el modelo."
    try:
        with socket.create_connection(servidor, timeout=segundos):
            return None
    except OSError as error:
        return (f"no hay conexión con {servidor[0]} ({type(error).__name__}: {error}), y el modelo se descarga "
                "de allí la primera vez. Comprueba tu conexión y vuelve a ejecutar la celda.")


def cargar_en_4_bits(nombre: str = "Qwen/Qwen2.5-0.5B", precision: str = "fp16"):
    """``(modelo, tokenizador)``: el modelo ``nombre`` del Hub en 4 bits (NF4), directo a la GPU. Lección 09.

    Es la llamada de la lección::

        AutoModelForCausalLM.from_pretrained(nombre, quantization_config=config_4_bits(precision),
                                             device_map={"": 0}, dtype=torch.float16)

    ``device_map`` lleva cada parte de los pesos directa a la GPU, sin pasar entera por la RAM.
    Se descarga la primera vez (~1 GB para Qwen2.5-0.5B). Antes, ``config_4_bits`` comprueba
    que aquí se puede.
    """
    if not isinstance(nombre, str) or not nombre.strip():
        raise ValueError(f"nombre debe ser el nombre de un modelo del Hub como texto, p. ej. "
                         f"nombre='Qwen/Qwen2.5-0.5B'; recibí {mostrar_valor(nombre)}.")
    configuracion = config_4_bits(precision)
    import transformers
    from transformers import AutoModelForCausalLM, AutoTokenizer

    clave = "dtype" if int(transformers.__version__.split(".")[0]) >= 5 else "torch_dtype"
    modelo = AutoModelForCausalLM.from_pretrained(nombre, quantization_config=configuracion, device_map={"": 0},
                                                  **{clave: configuracion.bnb_4bit_compute_dtype})
    return modelo, AutoTokenizer.from_pretrained(nombre)
