"""Picos teóricos de cálculo de GPU habituales, para dar una medida como «% del pico». Lección 03.

El pico teórico es lo máximo que el fabricante dice que el chip puede calcular por segundo
(TFLOP/s = billones de operaciones de coma flotante por segundo). Una multiplicación de
matrices grande y bien medida llega, en la práctica, a una fracción de ese pico
(``rango_porcentaje`` da el rango esperado de cada GPU; sus fuentes, en ``catalogo``):

- una T4 de Colab: un 40–60 % en fp32 (unos 4 TFLOP/s) y solo un 30–40 % en fp16
  (20–25 TFLOP/s de 65), porque su límite de potencia de 70 W le baja los relojes;
- una GPU de centro de datos (A100, H100, H200): del 70 al 90 % en bf16/fp16.

Si una medida supera el 100 %, la medida está mal (casi siempre falta sincronizar).

Las cifras están en ``catalogo`` (con su fuente), junto a la memoria de cada GPU; aquí se
calcula con ellas. Cifras *densas* (sin la «dispersión 2:4» que los folletos suman a veces, que duplica la cifra)
y con el reloj máximo (boost). Columnas:

- ``fp32``: núcleos normales (CUDA cores), sin Tensor Cores.
- ``tf32``: Tensor Cores con TF32 (Ampere y posteriores). PyTorch, por defecto, NO usa TF32
  en las multiplicaciones fp32 (sí en las convoluciones de cuDNN). Desde PyTorch 2.9 se
  permite con ``torch.backends.cuda.matmul.fp32_precision = "tf32"`` (la API antigua,
  ``allow_tf32`` y ``set_float32_matmul_precision``, sigue funcionando, pero se retirará).
- ``fp16`` y ``bf16``: Tensor Cores, acumulando en fp32, que es lo que hace PyTorch. Las
  GeForce (RTX) acumulan fp16 en fp32 a *mitad* de velocidad que en fp16: la tabla da esa
  mitad, que es lo que verás con PyTorch.
- ``None``: el chip no tiene ese modo (la T4 y la V100 no tienen TF32 ni bf16 en Tensor Cores)
  o no hay cifra oficial.
"""

from __future__ import annotations

import torch

from .catalogo import MODOS_PICO, RANGOS_PORCENTAJE, picos_de
from .precisiones import normalizar_precision

__all__ = ["LANZAMIENTO_GPU_S", "gflops_de_referencia", "pico_teorico", "rango_porcentaje", "tflops_sostenidos"]

# Lo que tarda, en una GPU, encargar y esperar una operación por pequeña que sea (lanzar el
# kernel y sincronizar): unos 10 µs. Orden de magnitud, no una cifra de ficha: NVIDIA, CUDA C++
# Best Practices Guide, «kernel launch overhead» (del orden de microsegundos).
LANZAMIENTO_GPU_S = 10e-6


def _normalizar_modo(modo) -> str:
    """``torch.float16``, ``"half"``, ``"fp16"``... → ``"fp16"``. Un modo desconocido da ``ValueError``."""
    return normalizar_precision(modo, MODOS_PICO)


def pico_teorico(nombre_gpu: str, dtype=torch.float32) -> float | None:
    """El pico teórico en TFLOP/s de esa GPU y ese tipo de dato, o ``None``. Lección 03.

    ``dtype``: ``torch.float32`` (o ``"fp32"``), ``"tf32"``, ``torch.float16`` (``"fp16"``) o
    ``torch.bfloat16`` (``"bf16"``). Devuelve ``None`` si la GPU no está en la tabla o no tiene
    ese modo (``pico_teorico("Tesla T4", torch.bfloat16)`` es ``None``: la T4 no tiene bf16 en
    Tensor Cores). Un tipo de dato desconocido da ``ValueError``.
    """
    modo = _normalizar_modo(dtype)
    fila = picos_de(nombre_gpu)
    return None if fila is None else fila.pico(modo)


def rango_porcentaje(nombre_gpu: str, dtype=torch.float32) -> tuple[float, float] | None:
    """El % del pico que se alcanza de verdad en esa GPU y ese tipo de dato, o None. Lección 03.

    Por ejemplo, ``rango_porcentaje("Tesla T4", "fp16")`` es ``(30.0, 40.0)``: una T4
    sostiene 20–25 de sus 65 TFLOP/s teóricos. None si no hay una medida publicada.
    """
    modo = _normalizar_modo(dtype)
    fila = picos_de(nombre_gpu)
    return None if fila is None else RANGOS_PORCENTAJE.get((fila.nombre, modo))


def tflops_sostenidos(nombre_gpu: str, dtype=torch.float32) -> tuple[float | None, tuple[float, float] | None]:
    """(TFLOP/s que sostiene de verdad esa GPU, rango en % del pico): el centro del rango publicado o,
    sin rango, el pico teórico; (None, None) si la GPU o el modo no están en la tabla. Lección 03."""
    pico = pico_teorico(nombre_gpu, dtype)
    rango = rango_porcentaje(nombre_gpu, dtype) if pico else None
    return (pico * sum(rango) / 200 if rango else pico), rango


def gflops_de_referencia(tamanos, nombre_gpu: str = "Tesla T4", dtype=torch.float32) -> list[tuple[int, float]]:
    """GFLOP/s que daría esa GPU en ``a @ b`` de n×n para cada n: ``2·n³ / (10 µs + 2·n³ / R)``. Lección 03.

    R es ``tflops_sostenidos``: cifras publicadas, no una medida; sirve para ver, sin GPU, dónde se
    cruzaría con tu CPU. Lista vacía si la GPU o el modo no están en la tabla.
    """
    sostenido, _ = tflops_sostenidos(nombre_gpu, dtype)
    if not sostenido:
        return []
    return [(n, 2 * n**3 / (LANZAMIENTO_GPU_S + 2 * n**3 / (sostenido * 1e12)) / 1e9) for n in tamanos]
