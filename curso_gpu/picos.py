"""Picos teóricos de cálculo de GPU habituales, para dar una medida como «% del pico». Lección 03.

El pico teórico es lo máximo que el fabricante dice que el chip puede calcular por segundo
(TFLOP/s = billones de operaciones de coma flotante por segundo). Una multiplicación de
matrices grande y bien medida llega, en la práctica, a una fracción de ese pico:

- una T4 de Colab: más o menos la mitad del pico en fp32 y unos dos tercios en fp16;
- una GPU de centro de datos (A100, H100, H200): del 75 al 90 % en bf16/fp16.

Si una medida supera el 100 %, la medida está mal (casi siempre falta sincronizar).

Cifras *densas* (sin la «dispersión 2:4» que los folletos suman a veces, que duplica la cifra)
y con el reloj máximo (boost). Columnas:

- ``fp32``: núcleos normales (CUDA cores), sin Tensor Cores.
- ``tf32``: Tensor Cores con TF32 (Ampere y posteriores). PyTorch, por defecto, NO usa TF32
  en las multiplicaciones fp32: ``torch.get_float32_matmul_precision()`` vale ``"highest"``
  y ``torch.backends.cuda.matmul.allow_tf32`` es ``False``. Con
  ``torch.set_float32_matmul_precision("high")`` lo permites.
- ``fp16`` y ``bf16``: Tensor Cores, acumulando en fp32, que es lo que hace PyTorch. Las
  GeForce (RTX) acumulan fp16 en fp32 a *mitad* de velocidad que en fp16: la tabla da esa
  mitad, que es lo que verás con PyTorch.
- ``None``: el chip no tiene ese modo (la T4 y la V100 no tienen TF32 ni bf16 en Tensor Cores)
  o no hay cifra oficial.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import torch

from .precisiones import normalizar_precision

MODOS = ("fp32", "tf32", "fp16", "bf16")



@dataclass(frozen=True)
class PicoGPU:
    """Los picos teóricos (TFLOP/s, densos) de una GPU y de dónde salen."""

    nombre: str
    fp32: float | None
    tf32: float | None
    fp16: float | None
    bf16: float | None
    fuente: str
    nota: str = ""

    def pico(self, modo: str) -> float | None:
        """El pico en ``modo`` (``"fp32"``, ``"tf32"``, ``"fp16"`` o ``"bf16"``)."""
        return getattr(self, normalizar_modo(modo))


# Cada entrada: (patrón sobre el nombre en minúsculas, PicoGPU). Se prueban en orden, así que
# las variantes (PCIe, NVL, V100S...) van antes que el modelo general.
_TABLA: list[tuple[str, PicoGPU]] = [
    # NVIDIA T4 Tensor Core GPU datasheet: FP32 8,1 TFLOPS; mixta FP16/FP32 65 TFLOPS.
    # Turing (capacidad 7.5): sin TF32 ni bf16 en Tensor Cores.
    (r"\bt4\b", PicoGPU("NVIDIA T4", 8.1, None, 65.0, None, "NVIDIA T4 datasheet",
                        "Turing: sin TF32 ni bf16 en Tensor Cores; bf16 va por la vía lenta.")),
    # NVIDIA L4 datasheet: FP32 30,3; TF32 120*, FP16/BF16 242* (*con dispersión: la mitad densas).
    (r"\bl4\b", PicoGPU("NVIDIA L4", 30.3, 60.0, 121.0, 121.0, "NVIDIA L4 datasheet")),
    # NVIDIA Tesla P100 datasheet: PCIe FP32 9,3 / FP16 18,7; SXM2 (NVLink) FP32 10,6 / FP16 21,2.
    # Pascal no tiene Tensor Cores: su fp16 es el doble de fp32 en los núcleos normales.
    (r"p100.*pcie", PicoGPU("NVIDIA P100 PCIe", 9.3, None, 18.7, None, "NVIDIA Tesla P100 datasheet",
                            "Pascal: sin Tensor Cores.")),
    (r"p100", PicoGPU("NVIDIA P100 SXM2", 10.6, None, 21.2, None, "NVIDIA Tesla P100 datasheet",
                      "Pascal: sin Tensor Cores.")),
    # NVIDIA V100 datasheet: SXM2 FP32 15,7 / Tensor 125; PCIe 14 / 112; V100S PCIe 16,4 / 130.
    (r"v100s", PicoGPU("NVIDIA V100S PCIe", 16.4, None, 130.0, None, "NVIDIA V100S datasheet",
                       "Volta: sin TF32 ni bf16.")),
    (r"v100.*pcie", PicoGPU("NVIDIA V100 PCIe", 14.0, None, 112.0, None, "NVIDIA V100 datasheet",
                            "Volta: sin TF32 ni bf16.")),
    (r"v100", PicoGPU("NVIDIA V100 SXM2", 15.7, None, 125.0, None, "NVIDIA V100 datasheet",
                      "Volta: sin TF32 ni bf16.")),
    # NVIDIA A100 datasheet (40 y 80 GB, PCIe y SXM): FP32 19,5; TF32 156; FP16/BF16 312 (densos).
    (r"a100", PicoGPU("NVIDIA A100", 19.5, 156.0, 312.0, 312.0, "NVIDIA A100 datasheet")),
    # NVIDIA H100 datasheet: SXM FP32 67, TF32 989*, BF16/FP16 1979*; PCIe 51, 756*, 1513*;
    # NVL 60, 835*, 1671* (*con dispersión: la mitad densas).
    (r"h100.*pcie", PicoGPU("NVIDIA H100 PCIe", 51.0, 378.0, 756.0, 756.0, "NVIDIA H100 datasheet")),
    (r"h100.*nvl", PicoGPU("NVIDIA H100 NVL", 60.0, 417.5, 835.5, 835.5, "NVIDIA H100 datasheet")),
    (r"h100", PicoGPU("NVIDIA H100 SXM", 67.0, 494.5, 989.5, 989.5, "NVIDIA H100 datasheet")),
    # NVIDIA H200 datasheet: SXM igual que H100 SXM (67 / 989* / 1979*); NVL 60 / 835* / 1671*.
    (r"h200.*nvl", PicoGPU("NVIDIA H200 NVL", 60.0, 417.5, 835.5, 835.5, "NVIDIA H200 datasheet")),
    (r"h200", PicoGPU("NVIDIA H200 SXM", 67.0, 494.5, 989.5, 989.5, "NVIDIA H200 datasheet")),
    # NVIDIA Ampere GA102 whitepaper, apéndice: RTX 3090 FP32 35,6; TF32 35,6; FP16 y BF16 con
    # acumulación fp32 71 (con acumulación fp16: 142). La RTX 3060 (GA106, 112 Tensor Cores a
    # 1,78 GHz, FP32 12,7) no está en el whitepaper: sus Tensor Cores escalados desde la 3090.
    (r"rtx 3090", PicoGPU("NVIDIA GeForce RTX 3090", 35.6, 35.6, 71.0, 71.0, "NVIDIA Ampere GA102 whitepaper",
                          "GeForce: fp16 acumulando en fp32 a mitad de velocidad (142 acumulando en fp16).")),
    (r"rtx 3060(?!\s*ti)", PicoGPU("NVIDIA GeForce RTX 3060", 12.7, 12.7, 25.5, 25.5,
                                  "NVIDIA RTX 3060 specs; Tensor Cores escalados del whitepaper GA102",
                                  "GeForce: fp16 acumulando en fp32 a mitad de velocidad.")),
    # NVIDIA Ada Lovelace whitepaper: RTX 4090 FP32 82,6; TF32 82,6; FP16/BF16 con acumulación
    # fp32 165,2 (con acumulación fp16: 330,3).
    (r"rtx 4090", PicoGPU("NVIDIA GeForce RTX 4090", 82.6, 82.6, 165.2, 165.2, "NVIDIA Ada Lovelace whitepaper",
                          "GeForce: fp16 acumulando en fp32 a mitad de velocidad (330 acumulando en fp16).")),
    # Apple (notas de prensa de Apple, versión con más núcleos de GPU): M1 2,6; M1 Pro 5,2;
    # M1 Max 10,4; M1 Ultra 21; M2 3,6; M2 Pro 6,8; M2 Max 13,6; M2 Ultra 27,2 TFLOPS fp32.
    # Apple no publica cifras de fp16/bf16 ni de los M3/M4.
    (r"\bm1 ultra\b", PicoGPU("Apple M1 Ultra", 21.0, None, None, None, "Apple (nota de prensa)")),
    (r"\bm1 max\b", PicoGPU("Apple M1 Max", 10.4, None, None, None, "Apple (nota de prensa)")),
    (r"\bm1 pro\b", PicoGPU("Apple M1 Pro", 5.2, None, None, None, "Apple (nota de prensa)")),
    (r"\bm1\b", PicoGPU("Apple M1", 2.6, None, None, None, "Apple (nota de prensa)")),
    (r"\bm2 ultra\b", PicoGPU("Apple M2 Ultra", 27.2, None, None, None, "Apple (nota de prensa)")),
    (r"\bm2 max\b", PicoGPU("Apple M2 Max", 13.6, None, None, None, "Apple (nota de prensa)")),
    (r"\bm2 pro\b", PicoGPU("Apple M2 Pro", 6.8, None, None, None, "Apple (nota de prensa)")),
    (r"\bm2\b", PicoGPU("Apple M2", 3.6, None, None, None, "Apple (nota de prensa)")),
]


def normalizar_modo(modo) -> str:
    """``torch.float16``, ``"half"``, ``"fp16"``... → ``"fp16"``. Un modo desconocido da ``ValueError``."""
    return normalizar_precision(modo, MODOS)


def buscar_gpu(nombre_gpu: str) -> PicoGPU | None:
    """La fila de la tabla de la GPU con ese nombre (como lo da PyTorch), o ``None``. Lección 03.

    Acepta los nombres de ``torch.cuda.get_device_name()``: ``"Tesla T4"``,
    ``"NVIDIA H100 80GB HBM3"``, ``"NVIDIA GeForce RTX 4090"``... Las GPU de portátil
    («Laptop») son otro chip y no están en la tabla.
    """
    if not isinstance(nombre_gpu, str) or not nombre_gpu.strip():
        return None
    texto = " ".join(nombre_gpu.lower().replace("-", " ").split())
    if "laptop" in texto or "mobile" in texto:
        return None
    for patron, fila in _TABLA:
        if re.search(patron, texto):
            return fila
    return None


def pico_teorico(nombre_gpu: str, dtype=torch.float32) -> float | None:
    """El pico teórico en TFLOP/s de esa GPU y ese tipo de dato, o ``None``. Lección 03.

    ``dtype``: ``torch.float32`` (o ``"fp32"``), ``"tf32"``, ``torch.float16`` (``"fp16"``) o
    ``torch.bfloat16`` (``"bf16"``). Devuelve ``None`` si la GPU no está en la tabla o no tiene
    ese modo (``pico_teorico("Tesla T4", torch.bfloat16)`` es ``None``: la T4 no tiene bf16 en
    Tensor Cores). Un tipo de dato desconocido da ``ValueError``.
    """
    modo = normalizar_modo(dtype)
    fila = buscar_gpu(nombre_gpu)
    return None if fila is None else fila.pico(modo)


def tabla_picos() -> list[PicoGPU]:
    """Todas las filas de la tabla, en orden, para enseñarlas en la lección."""
    return [fila for _, fila in _TABLA]
