"""Modelos conocidos (con su número de parámetros publicado) y GPU comunes (con su memoria).
Lección 04.

Sirven de ejemplos y de preajustes para ``curso_gpu.memoria`` y la calculadora de VRAM.
Cada entrada lleva en un comentario la fuente de la cifra. Los números de parámetros son
los publicados por sus autores (ficha del modelo o artículo), redondeados como ellos los dan.
La memoria de las GPU es la de su ficha comercial, en GB (10⁹ bytes).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Modelo:
    """Un modelo conocido y su número de parámetros publicado. Lección 04."""

    nombre: str
    parametros: int
    descripcion: str = ""


@dataclass(frozen=True)
class GPU:
    """Una GPU (o un Mac) y su memoria en GB (10⁹ bytes), según su ficha. Lección 04."""

    nombre: str
    memoria_gb: float
    descripcion: str = ""


_MODELOS = [
    # https://huggingface.co/openai-community/gpt2 («the smallest version of GPT-2, with 124M parameters»)
    Modelo("GPT-2", 124_000_000, "el GPT-2 pequeño de OpenAI (2019)"),
    # https://huggingface.co/openai-community/gpt2-xl («the 1.5B parameter version of GPT-2»)
    Modelo("GPT-2 XL", 1_500_000_000, "la versión más grande de GPT-2"),
    # Devlin et al. 2018, arXiv:1810.04805, sección 3: BERT-BASE «Total Parameters=110M»
    Modelo("BERT-base", 110_000_000, "codificador de texto de Google"),
    # Devlin et al. 2018, arXiv:1810.04805, sección 3: BERT-LARGE «Total Parameters=340M»
    Modelo("BERT-large", 340_000_000, "la versión grande de BERT"),
    # https://pytorch.org/vision/stable/models/generated/torchvision.models.resnet50.html
    # (ResNet50_Weights.IMAGENET1K_V2: «num_params 25557032»)
    Modelo("ResNet-50", 25_557_032, "red convolucional para imágenes"),
    # https://pytorch.org/vision/stable/models/generated/torchvision.models.vit_b_16.html
    # (ViT_B_16_Weights.IMAGENET1K_V1: «num_params 86567656»)
    Modelo("ViT-B/16", 86_567_656, "transformer para imágenes"),
    # https://huggingface.co/meta-llama/Llama-3.2-1B (ficha de Hugging Face: «1.24B params»)
    Modelo("Llama 3.2 1B", 1_240_000_000, "Llama pequeño de Meta"),
    # https://huggingface.co/microsoft/Phi-3-mini-4k-instruct
    # («Phi-3-Mini-4K-Instruct is a 3.8B parameters» ; arXiv:2404.14219)
    Modelo("Phi-3-mini", 3_800_000_000, "modelo pequeño de Microsoft"),
    # https://huggingface.co/mistralai/Mistral-7B-v0.1 (ficha de Hugging Face: «7.24B params»)
    Modelo("Mistral 7B", 7_240_000_000, "modelo de Mistral AI"),
    # https://huggingface.co/Qwen/Qwen2.5-7B («Number of Parameters: 7.61B»)
    Modelo("Qwen2.5-7B", 7_610_000_000, "modelo de Alibaba"),
    # https://huggingface.co/meta-llama/Meta-Llama-3-8B (ficha de Hugging Face: «8.03B params»)
    Modelo("Llama 3 8B", 8_030_000_000, "Llama 3 de Meta, versión 8B"),
    # https://huggingface.co/google/gemma-2-9b (ficha de Hugging Face: «9.24B params»)
    Modelo("Gemma 2 9B", 9_240_000_000, "modelo de Google"),
    # https://huggingface.co/Qwen/Qwen2.5-14B («Number of Parameters: 14.7B»)
    Modelo("Qwen2.5-14B", 14_700_000_000, "modelo de Alibaba, versión 14B"),
    # https://huggingface.co/google/gemma-2-27b (ficha de Hugging Face: «27.2B params»)
    Modelo("Gemma 2 27B", 27_200_000_000, "el Gemma 2 grande de Google"),
    # https://huggingface.co/Qwen/Qwen2.5-32B («Number of Parameters: 32.5B»)
    Modelo("Qwen2.5-32B", 32_500_000_000, "modelo de Alibaba, versión 32B"),
    # https://mistral.ai/news/mixtral-of-experts/ («46.7B total parameters»)
    Modelo("Mixtral 8x7B", 46_700_000_000, "mezcla de expertos de Mistral AI"),
    # https://huggingface.co/meta-llama/Meta-Llama-3-70B (ficha de Hugging Face: «70.6B params»)
    Modelo("Llama 3 70B", 70_600_000_000, "Llama 3 de Meta, versión 70B"),
    # https://ai.meta.com/blog/meta-llama-3-1/ («Llama 3.1 405B»; ficha de Hugging Face: «406B params»)
    Modelo("Llama 3.1 405B", 405_000_000_000, "el Llama más grande de Meta"),
]

_GPUS = [
    # https://www.nvidia.com/en-us/data-center/tesla-p100/ (versiones de 12 GB y de 16 GB)
    GPU("NVIDIA P100", 16, "la GPU de Kaggle (versión de 16 GB)"),
    # https://www.nvidia.com/en-us/data-center/tesla-t4/ («16 GB GDDR6»)
    GPU("NVIDIA T4", 16, "la GPU gratis de Google Colab"),
    # https://www.nvidia.com/en-us/data-center/v100/ («16 GB / 32 GB HBM2»)
    GPU("NVIDIA V100 16 GB", 16, "centro de datos (2017)"),
    GPU("NVIDIA V100 32 GB", 32, "centro de datos (2017)"),
    # https://www.nvidia.com/en-us/data-center/l4/ («24 GB GDDR6»)
    GPU("NVIDIA L4", 24, "centro de datos, también en Colab"),
    # https://www.nvidia.com/en-us/data-center/a100/ («40 GB HBM2» y «80 GB HBM2e»)
    GPU("NVIDIA A100 40 GB", 40, "centro de datos, también en Colab"),
    GPU("NVIDIA A100 80 GB", 80, "centro de datos"),
    # https://www.nvidia.com/en-us/data-center/h100/ (H100 SXM y PCIe: «80 GB»)
    GPU("NVIDIA H100", 80, "centro de datos"),
    # https://www.nvidia.com/en-us/data-center/h200/ («141 GB of HBM3e»)
    GPU("NVIDIA H200", 141, "centro de datos"),
    # https://www.nvidia.com/en-us/geforce/graphics-cards/30-series/rtx-3060-3060ti/ («12 GB GDDR6»)
    GPU("NVIDIA RTX 3060", 12, "de sobremesa (versión de 12 GB)"),
    # https://www.nvidia.com/en-us/geforce/graphics-cards/30-series/rtx-3090-3090ti/ («24 GB GDDR6X»)
    GPU("NVIDIA RTX 3090", 24, "de sobremesa"),
    # https://www.nvidia.com/en-us/geforce/graphics-cards/40-series/rtx-4060-4060ti/ («8 GB GDDR6»)
    GPU("NVIDIA RTX 4060", 8, "de sobremesa"),
    # https://www.nvidia.com/en-us/geforce/graphics-cards/40-series/rtx-4090/ («24 GB GDDR6X»)
    GPU("NVIDIA RTX 4090", 24, "de sobremesa"),
    # https://www.nvidia.com/en-us/geforce/graphics-cards/50-series/rtx-5090/ («32 GB GDDR7»)
    GPU("NVIDIA RTX 5090", 32, "de sobremesa"),
    # https://www.amd.com/en/products/accelerators/instinct/mi300/mi300x.html («192 GB HBM3»)
    GPU("AMD Instinct MI300X", 192, "centro de datos (ROCm)"),
    # https://www.apple.com/mac/compare/ : los Mac con Apple Silicon (M1 a M4) comparten la
    # memoria unificada entre CPU y GPU. La GPU (MPS) solo puede usar una parte:
    # torch.mps.recommended_max_memory() dice cuánta en tu Mac.
    GPU("Mac Apple Silicon 8 GB", 8, "memoria unificada, compartida con la CPU"),
    GPU("Mac Apple Silicon 16 GB", 16, "memoria unificada, compartida con la CPU"),
    GPU("Mac Apple Silicon 24 GB", 24, "memoria unificada, compartida con la CPU"),
    GPU("Mac Apple Silicon 36 GB", 36, "memoria unificada, compartida con la CPU"),
    GPU("Mac Apple Silicon 64 GB", 64, "memoria unificada, compartida con la CPU"),
    GPU("Mac Apple Silicon 128 GB", 128, "memoria unificada, compartida con la CPU"),
]

MODELOS: dict[str, Modelo] = {m.nombre: m for m in _MODELOS}
"""Los modelos del catálogo por nombre, de menor a mayor."""

GPUS: dict[str, GPU] = {g.nombre: g for g in _GPUS}
"""Las GPU del catálogo por nombre."""


def _clave(nombre: str) -> str:
    return " ".join(nombre.lower().replace("_", " ").split())


def buscar_modelo(nombre: str) -> Modelo | None:
    """El modelo del catálogo con ese nombre (sin importar mayúsculas ni espacios), o None. Lección 04."""
    if not isinstance(nombre, str):
        return None
    clave = _clave(nombre)
    return next((m for m in _MODELOS if _clave(m.nombre) == clave), None)


def buscar_gpu(nombre: str) -> GPU:
    """La GPU del catálogo con ese nombre ("NVIDIA T4", "t4", "RTX 4090"...). Lección 04.

    Lanza ``ValueError`` con los nombres válidos si no la encuentra.
    """
    if isinstance(nombre, str):
        clave = _clave(nombre)
        for gpu in _GPUS:
            completo = _clave(gpu.nombre)
            if clave in (completo, completo.removeprefix("nvidia ")):
                return gpu
    raise ValueError(
        f"GPU desconocida {nombre!r}; usa una de: {', '.join(GPUS)} "
        "(o da la memoria en GB con vram_gb=...)."
    )
