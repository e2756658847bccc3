"""El catálogo: modelos conocidos (con su número de parámetros publicado) y GPU comunes (con su
memoria, sus picos teóricos por precisión y su capacidad de cómputo). Lecciones 03 y 04.

Sirven de ejemplos y de preajustes para ``curso_gpu.memoria`` y la calculadora de VRAM.
Cada entrada lleva en un comentario la fuente de la cifra. Los números de parámetros son
los publicados por sus autores (ficha del modelo o artículo), redondeados como ellos los dan.
La memoria de las GPU es la cifra de su ficha comercial («16 GB»), que las cuentas del
curso toman como GB decimales (10⁹ bytes). Es una etiqueta, no lo que puedes usar:

- La memoria física se fabrica en potencias de dos: los «16 GB» de una T4 son 16 GiB
  (2³⁰ bytes cada uno, 17.2 GB). Tomarlos como 16·10⁹ bytes deja un margen de un 7 %.
- Las GPU con memoria GDDR y ECC activado (la T4 de Colab) guardan los códigos del ECC en la
  propia memoria y pierden 1/16: ``nvidia-smi`` muestra 15 360 MiB (16.1 GB) y PyTorch ve
  unos 15 100 MiB (15.8 GB). Ahí la cifra de la ficha es un 1 % optimista; el margen del +20 %
  de ``memoria.memoria_inferencia`` lo cubre. Las GPU con HBM (A100, H100) llevan el ECC
  aparte y muestran su tamaño completo.

Los picos (TFLOP/s densos) son por chip y variante (PCIe, SXM...), y se buscan por el nombre
que da PyTorch (``picos_de("Tesla T4")``); ``curso_gpu.picos`` explica cómo leerlos. Cada fila
lleva también el ancho de banda de su memoria (GB/s, de la misma ficha): el techo de generar
texto de la lección 10. Donde dos versiones de un chip solo cambian la memoria (A100 de 40 y de
80 GB, P100 de 12 y de 16 GB), cada una tiene su fila con los mismos picos.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .precisiones import normalizar_precision

__all__ = [
    "GPU", "GPUS", "MODELOS", "MODOS_PICO", "Modelo", "PicoGPU", "RANGOS_PORCENTAJE", "ancho_de_banda_conocido",
    "buscar_gpu", "buscar_modelo", "picos_de", "tabla_picos",
]

MODOS_PICO = ("fp32", "tf32", "fp16", "bf16")
"""Las precisiones con pico teórico en la tabla."""


@dataclass(frozen=True)
class Modelo:
    """Un modelo conocido y su número de parámetros publicado. Lección 04."""

    nombre: str
    parametros: int
    descripcion: str = ""


@dataclass(frozen=True)
class GPU:
    """Una GPU (o un Mac) y la memoria de su ficha («16 GB»), tomada como GB de 10⁹ bytes. Lección 04."""

    nombre: str
    memoria_gb: float
    descripcion: str = ""

    @property
    def picos(self) -> "PicoGPU | None":
        """Sus picos teóricos y su capacidad de cómputo (None si no están en la tabla)."""
        return picos_de(self.nombre)


@dataclass(frozen=True)
class PicoGPU:
    """Los picos teóricos (TFLOP/s, densos) de un chip, su capacidad de cómputo y de dónde salen. Lección 03."""

    nombre: str
    fp32: float | None
    tf32: float | None
    fp16: float | None
    bf16: float | None
    fuente: str
    nota: str = ""
    capacidad_computo: tuple[int, int] | None = None  # la de CUDA: (7, 5) en una T4; None en Apple
    ancho_de_banda_gb_s: float | None = None  # memoria de la GPU ↔ núcleos, GB/s de su ficha (lección 10)
    multiprocesadores: int | None = None  # SM (lección 11): los que reparten los programas; None: sin cifra aquí

    def pico(self, modo: str) -> float | None:
        """El pico en ``modo`` (``"fp32"``, ``"tf32"``, ``"fp16"`` o ``"bf16"``)."""
        return getattr(self, normalizar_precision(modo, MODOS_PICO))


# Cada entrada: (patrón sobre el nombre en minúsculas, PicoGPU). Se prueban en orden, así que
# las variantes (PCIe, NVL, V100S...) van antes que el modelo general.
# Capacidad de cómputo de CUDA: https://developer.nvidia.com/cuda-gpus (tabla «CUDA GPU Compute
# Capability»): P100 6.0, V100 7.0, T4 7.5, A100 8.0, RTX 30 8.6, L4 y RTX 40 8.9, H100 y H200 9.0.
# Ancho de banda de la memoria (GB/s, 1 GB = 10⁹ bytes), la última cifra de cada fila (lección 10):
# el de la ficha de cada GPU, leído el 3-12-2026. T4: «NVIDIA T4 Product Brief» (PB-09256), tabla
# «Memory Specifications»: «Peak Memory bandwidth Up to 320 GBytes/s». L4: L4 datasheet, 300 GB/s.
# P100: datasheet, 732 GB/s con 16 GB y 549 GB/s con 12 GB. V100 (PCIe y SXM2): datasheet, 900 GB/s;
# V100S: 1134 GB/s. A100 datasheet: 1555 GB/s con 40 GB (HBM2), 1935 GB/s la de 80 GB PCIe y
# 2039 GB/s la de 80 GB SXM (HBM2e). H100 datasheet: SXM 3,35 TB/s, PCIe 2 TB/s, NVL 3,9 TB/s.
# H200 datasheet: 4,8 TB/s (SXM y NVL). GeForce: velocidad de la memoria × ancho del bus ÷ 8, como
# en sus whitepapers: RTX 3090 19,5 Gbps × 384 bits = 936 GB/s (GA102 whitepaper), RTX 3060
# 15 Gbps × 192 bits = 360 GB/s, RTX 4090 21 Gbps × 384 bits = 1008 GB/s (Ada Lovelace whitepaper).
# Apple, notas de prensa de cada chip (apple.com/newsroom): M1 Pro 200, M1 Max 400, M1 Ultra 800,
# M2 100, M2 Pro 200, M2 Max 400, M2 Ultra 800 GB/s. El M1 no tiene cifra de Apple: 68,3 GB/s es
# el cálculo de su memoria LPDDR4X-4266 con un bus de 128 bits (4266 MT/s × 16 bytes).
_PICOS: list[tuple[str, PicoGPU]] = [
    # NVIDIA T4 Tensor Core GPU datasheet: FP32 8,1 TFLOPS (los núcleos CUDA); mixta FP16/FP32 65 TFLOPS
    # (los Tensor Cores). Turing (capacidad 7.5): sin TF32 ni bf16 en Tensor Cores. SM: el datasheet da
    # 2560 núcleos CUDA y el «NVIDIA Turing GPU Architecture» whitepaper, 64 núcleos FP32 por SM: 40 SM
    # (lo mismo que da torch.cuda.get_device_properties(0).multi_processor_count en una T4).
    (r"\bt4\b", PicoGPU("NVIDIA T4", 8.1, None, 65.0, None, "NVIDIA T4 datasheet",
                        "Turing: sin TF32 ni bf16 en Tensor Cores; bf16 va por la vía lenta.", capacidad_computo=(7, 5),
                        ancho_de_banda_gb_s=320.0, multiprocesadores=40)),
    # NVIDIA L4 datasheet: FP32 30,3; TF32 120*, FP16/BF16 242* (*con dispersión: la mitad densas).
    (r"\bl4\b", PicoGPU("NVIDIA L4", 30.3, 60.0, 121.0, 121.0, "NVIDIA L4 datasheet", capacidad_computo=(8, 9),
                        ancho_de_banda_gb_s=300.0)),
    # NVIDIA Tesla P100 datasheet: PCIe FP32 9,3 / FP16 18,7; SXM2 (NVLink) FP32 10,6 / FP16 21,2.
    # Pascal no tiene Tensor Cores: su fp16 es el doble de fp32 en los núcleos normales.
    (r"p100.*pcie.*12\s*gb", PicoGPU("NVIDIA P100 PCIe 12 GB", 9.3, None, 18.7, None, "NVIDIA Tesla P100 datasheet",
                                     "Pascal: sin Tensor Cores.", capacidad_computo=(6, 0), ancho_de_banda_gb_s=549.0)),
    (r"p100.*pcie", PicoGPU("NVIDIA P100 PCIe", 9.3, None, 18.7, None, "NVIDIA Tesla P100 datasheet",
                            "Pascal: sin Tensor Cores.", capacidad_computo=(6, 0), ancho_de_banda_gb_s=732.0)),
    (r"p100", PicoGPU("NVIDIA P100 SXM2", 10.6, None, 21.2, None, "NVIDIA Tesla P100 datasheet",
                      "Pascal: sin Tensor Cores.", capacidad_computo=(6, 0), ancho_de_banda_gb_s=732.0)),
    # NVIDIA V100 datasheet: SXM2 FP32 15,7 / Tensor 125; PCIe 14 / 112; V100S PCIe 16,4 / 130.
    (r"v100s", PicoGPU("NVIDIA V100S PCIe", 16.4, None, 130.0, None, "NVIDIA V100S datasheet",
                       "Volta: sin TF32 ni bf16.", capacidad_computo=(7, 0), ancho_de_banda_gb_s=1134.0)),
    (r"v100.*pcie", PicoGPU("NVIDIA V100 PCIe", 14.0, None, 112.0, None, "NVIDIA V100 datasheet",
                            "Volta: sin TF32 ni bf16.", capacidad_computo=(7, 0), ancho_de_banda_gb_s=900.0)),
    (r"v100", PicoGPU("NVIDIA V100 SXM2", 15.7, None, 125.0, None, "NVIDIA V100 datasheet",
                      "Volta: sin TF32 ni bf16.", capacidad_computo=(7, 0), ancho_de_banda_gb_s=900.0)),
    # NVIDIA A100 datasheet (40 y 80 GB, PCIe y SXM): FP32 19,5; TF32 156; FP16/BF16 312 (densos).
    # Los picos son los mismos; la memoria no: las de 80 GB llevan HBM2e, más rápida.
    (r"a100.*80\s*gb.*pcie|a100.*pcie.*80\s*gb", PicoGPU(
        "NVIDIA A100 80 GB PCIe", 19.5, 156.0, 312.0, 312.0, "NVIDIA A100 datasheet", capacidad_computo=(8, 0),
        ancho_de_banda_gb_s=1935.0)),
    (r"a100.*80\s*gb", PicoGPU("NVIDIA A100 80 GB SXM", 19.5, 156.0, 312.0, 312.0, "NVIDIA A100 datasheet",
                               capacidad_computo=(8, 0), ancho_de_banda_gb_s=2039.0)),
    (r"a100", PicoGPU("NVIDIA A100", 19.5, 156.0, 312.0, 312.0, "NVIDIA A100 datasheet", "La de 40 GB.",
                      capacidad_computo=(8, 0), ancho_de_banda_gb_s=1555.0)),
    # NVIDIA H100 datasheet: SXM FP32 67, TF32 989*, BF16/FP16 1979*; PCIe 51, 756*, 1513*;
    # NVL 60, 835*, 1671* (*con dispersión: la mitad densas).
    (r"\bh100.*pcie", PicoGPU("NVIDIA H100 PCIe", 51.0, 378.0, 756.0, 756.0, "NVIDIA H100 datasheet", capacidad_computo=(9, 0),
                              ancho_de_banda_gb_s=2000.0)),
    (r"\bh100.*nvl", PicoGPU("NVIDIA H100 NVL", 60.0, 417.5, 835.5, 835.5, "NVIDIA H100 datasheet", capacidad_computo=(9, 0),
                             ancho_de_banda_gb_s=3900.0)),
    (r"\bh100\b", PicoGPU("NVIDIA H100 SXM", 67.0, 494.5, 989.5, 989.5, "NVIDIA H100 datasheet", capacidad_computo=(9, 0),
                          ancho_de_banda_gb_s=3350.0)),
    # NVIDIA H200 datasheet: SXM igual que H100 SXM (67 / 989* / 1979*); NVL 60 / 835* / 1671*.
    # «\b»: la GH200 (Grace Hopper) es otro producto y no debe confundirse con la H200.
    (r"\bh200.*nvl", PicoGPU("NVIDIA H200 NVL", 60.0, 417.5, 835.5, 835.5, "NVIDIA H200 datasheet", capacidad_computo=(9, 0),
                             ancho_de_banda_gb_s=4800.0)),
    (r"\bh200\b", PicoGPU("NVIDIA H200 SXM", 67.0, 494.5, 989.5, 989.5, "NVIDIA H200 datasheet", capacidad_computo=(9, 0),
                          ancho_de_banda_gb_s=4800.0)),
    # NVIDIA Ampere GA102 whitepaper, apéndice: RTX 3090 FP32 35,6; TF32 35,6; FP16 y BF16 con
    # acumulación fp32 71 (con acumulación fp16: 142). La RTX 3060 (GA106, 112 Tensor Cores a
    # 1,78 GHz, FP32 12,7) no está en el whitepaper: sus Tensor Cores escalados desde la 3090.
    (r"rtx 3090(?!\s*ti)", PicoGPU("NVIDIA GeForce RTX 3090", 35.6, 35.6, 71.0, 71.0, "NVIDIA Ampere GA102 whitepaper",
                          "GeForce: fp16 acumulando en fp32 a mitad de velocidad (142 acumulando en fp16).", capacidad_computo=(8, 6),
                          ancho_de_banda_gb_s=936.0)),
    (r"rtx 3060(?!\s*ti)", PicoGPU("NVIDIA GeForce RTX 3060", 12.7, 12.7, 25.5, 25.5,
                                  "NVIDIA RTX 3060 specs; Tensor Cores escalados del whitepaper GA102",
                                  "GeForce: fp16 acumulando en fp32 a mitad de velocidad.", capacidad_computo=(8, 6),
                                  ancho_de_banda_gb_s=360.0)),
    # NVIDIA Ada Lovelace whitepaper: RTX 4090 FP32 82,6; TF32 82,6; FP16/BF16 con acumulación
    # fp32 165,2 (con acumulación fp16: 330,3).
    (r"rtx 4090(?!\s*d\b)", PicoGPU("NVIDIA GeForce RTX 4090", 82.6, 82.6, 165.2, 165.2, "NVIDIA Ada Lovelace whitepaper",
                          "GeForce: fp16 acumulando en fp32 a mitad de velocidad (330 acumulando en fp16).", capacidad_computo=(8, 9),
                          ancho_de_banda_gb_s=1008.0)),
    # Apple no publica una ficha con TFLOPS por tipo de dato: las cifras fp32 son un cálculo,
    # núcleos de GPU × 128 ALU por núcleo × 2 operaciones (multiplicar y sumar) × reloj de la
    # GPU: 1,278 GHz en los M1 y 1,398 GHz en los M2 (arquitectura y relojes: Philip Turner,
    # «metal-benchmarks», github.com/philipturner/metal-benchmarks; leído el 3-12-2026).
    # Coinciden con las que Apple dio al presentarlos (2,6 el M1, 10,4 el M1 Max...). Versión
    # con más núcleos de GPU de cada chip. Sin fp16/bf16 ni M3/M4: no hay cifra publicada.
    (r"\bm1 ultra\b", PicoGPU("Apple M1 Ultra", 21.0, None, None, None, "cálculo: 64 núcleos × 128 ALU × 2 × 1,278 GHz",
                              ancho_de_banda_gb_s=800.0)),
    (r"\bm1 max\b", PicoGPU("Apple M1 Max", 10.4, None, None, None, "cálculo: 32 núcleos × 128 ALU × 2 × 1,278 GHz",
                            ancho_de_banda_gb_s=400.0)),
    (r"\bm1 pro\b", PicoGPU("Apple M1 Pro", 5.2, None, None, None, "cálculo: 16 núcleos × 128 ALU × 2 × 1,278 GHz",
                            ancho_de_banda_gb_s=200.0)),
    (r"\bm1\b", PicoGPU("Apple M1", 2.6, None, None, None, "cálculo: 8 núcleos × 128 ALU × 2 × 1,278 GHz",
                        ancho_de_banda_gb_s=68.3)),
    (r"\bm2 ultra\b", PicoGPU("Apple M2 Ultra", 27.2, None, None, None, "cálculo: 76 núcleos × 128 ALU × 2 × 1,398 GHz",
                              ancho_de_banda_gb_s=800.0)),
    (r"\bm2 max\b", PicoGPU("Apple M2 Max", 13.6, None, None, None, "cálculo: 38 núcleos × 128 ALU × 2 × 1,398 GHz",
                            ancho_de_banda_gb_s=400.0)),
    (r"\bm2 pro\b", PicoGPU("Apple M2 Pro", 6.8, None, None, None, "cálculo: 19 núcleos × 128 ALU × 2 × 1,398 GHz",
                            ancho_de_banda_gb_s=200.0)),
    (r"\bm2\b", PicoGPU("Apple M2", 3.6, None, None, None, "cálculo: 10 núcleos × 128 ALU × 2 × 1,398 GHz",
                        ancho_de_banda_gb_s=100.0)),
]


# Qué fracción del pico (en %) alcanza de verdad una multiplicación grande y cuadrada
# (n = 4096–8192) medida con PyTorch, por (nombre del chip, precisión). Solo donde hay una medida
# publicada. ``benchmarks/validar_en_gpu.py`` los comprueba cada vez que hay una GPU: si una
# medida propia los contradice, se corrigen aquí.
RANGOS_PORCENTAJE: dict[tuple[str, str], tuple[float, float]] = {
    # T4 en fp16: cuBLAS sostiene unos 24 TFLOP/s con n=4096 (un 37 % de 65), porque la T4
    # está limitada a 70 W: con los Tensor Cores a tope el límite de potencia baja sus relojes
    # desde el máximo de 1590 MHz. NVIDIA Developer Forums, «About GPU peak performance»
    # (forums.developer.nvidia.com/t/about-gpu-peak-performance/264462), respuesta de NVIDIA;
    # también Jia et al., «Dissecting the NVidia Turing T4 GPU via Microbenchmarking»,
    # arXiv:1903.07486 (2019), sobre los relojes de la T4 bajo carga. Leídos el 3-12-2026.
    ("NVIDIA T4", "fp16"): (30.0, 40.0),
    # T4 en fp32: unos 4 TFLOP/s de 8,1, por el mismo límite de 70 W. Rango prudente hasta
    # que una medida nuestra en una T4 lo sustituya (mismas fuentes que arriba).
    ("NVIDIA T4", "fp32"): (40.0, 60.0),
    # Centro de datos, fp16/bf16 (densos): A100 SXM 271 de 312 (87 %) y H100 SXM 795 de 989
    # (80 %) en bf16 (S. Bekman, «ML Engineering», tabla «Maximum Achievable Matmul FLOPS»,
    # github.com/stas00/ml-engineering, compute/accelerator); H100 80GB HBM3 con torch 2.7:
    # fp16 736–760 y bf16 789–798 (74–81 %) (github.com/zzc0721/torch-performance-test-data,
    # incidencia 79). Leídos el 3-12-2026.
    **{(gpu, modo): (70.0, 90.0)
       for gpu in ("NVIDIA A100", "NVIDIA A100 80 GB PCIe", "NVIDIA A100 80 GB SXM", "NVIDIA H100 SXM",
                   "NVIDIA H100 PCIe", "NVIDIA H100 NVL", "NVIDIA H200 SXM", "NVIDIA H200 NVL")
       for modo in ("fp16", "bf16")},
}


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
    # https://www.nvidia.com/en-us/data-center/tesla-t4/ («16 GB GDDR6»): 16 GiB físicos; con
    # el ECC activado, nvidia-smi muestra 15360 MiB y PyTorch ve de 15079 a 15109 MiB según el
    # driver (total_memory de _CudaDeviceProperties en Colab, citado en muchos proyectos
    # públicos; leído el 3-12-2026).
    GPU("NVIDIA T4", 16, "la GPU gratis de Google Colab (15360 MiB usables con ECC)"),
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


def picos_de(nombre_gpu: str) -> PicoGPU | None:
    """Los picos de la GPU con ese nombre (como lo da PyTorch), o ``None``. Lección 03.

    Acepta los nombres de ``torch.cuda.get_device_name()``: ``"Tesla T4"``,
    ``"NVIDIA H100 80GB HBM3"``, ``"NVIDIA GeForce RTX 4090"``... y los del catálogo. Las GPU de
    portátil («Laptop») son otro chip y no están en la tabla.
    """
    if not isinstance(nombre_gpu, str) or not nombre_gpu.strip():
        return None
    texto = " ".join(nombre_gpu.lower().replace("-", " ").split())
    if "laptop" in texto or "mobile" in texto:
        return None
    for patron, fila in _PICOS:
        if re.search(patron, texto):
            return fila
    return None


def ancho_de_banda_conocido(nombre_gpu) -> float | None:
    """El ancho de banda de la memoria (GB/s) de esa GPU según su ficha, o ``None`` si no lo conozco. Lección 10.

    Acepta el nombre que da PyTorch (``"Tesla T4"`` → 320.0). Una GPU que no está en la tabla
    (``"NVIDIA GeForce RTX 4070"``, ``"NVIDIA A10G"``, cualquier GPU de portátil) da ``None``: no
    es un error, la lección mide igual y dice que no conoce su techo.
    """
    fila = picos_de(nombre_gpu)
    return fila.ancho_de_banda_gb_s if fila is not None else None


def tabla_picos() -> list[PicoGPU]:
    """Todas las filas de picos, en orden, para enseñarlas en la lección 03."""
    return [fila for _, fila in _PICOS]
