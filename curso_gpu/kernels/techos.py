"""Con qué pico comparar la matmul de Triton: ¿usa ``tl.dot`` los Tensor Cores en esta GPU? Lección 11.

Una matmul hace muchas cuentas por byte: su techo es el pico de cálculo de la ficha. Pero ¿qué
pico? Depende de qué unidades use ``tl.dot``, y eso depende de la **capacidad de cómputo**:

- Desde la 8.0 (A100, L4, RTX 30, H100), ``tl.dot`` usa los **Tensor Cores**: en fp16 y bf16, el
  pico de ese tipo; en fp32, TF32 (lo que Triton hace por defecto en NVIDIA).
- Por debajo de la 8.0 (la T4 de Colab es 7.5), desde Triton 3.3 ``tl.dot`` ya no usa los Tensor
  Cores: calcula con FMA en los núcleos CUDA, en fp32 (los operandos fp16 se pasan a fp32). Su
  techo es el pico **fp32** de la ficha (8.1 TFLOP/s en una T4), no los 65 de sus Tensor Cores.
  cuBLAS (``a @ b`` en PyTorch) sí los usa en una T4.

Fuentes (leídas el 7-12-2026): triton-lang/triton, PR #5066, «[BACKEND] Deprecate MMAv1; fallback to
FMA for computeCapability < 80» (fusionado el 5-11-2024): en
``lib/Dialect/TritonGPU/Transforms/AccelerateMatmul.cpp``, con capacidad < 80 el ``tl.dot`` avisa
«Dot op using MMA for compute capability ... has been deprecated. It falls back to the FMA path.»
(la misma frase está en el ``libtriton.so`` de triton 3.9.0), y el README pasó a «NVIDIA GPUs
(Compute Capability 8.0+)». Que el cambio llegó con Triton 3.3 (3.2 aún usaba los Tensor Cores de
Turing): triton-lang/triton-windows, incidencia 28, «Turing support». TF32 por defecto en fp32:
``default_dot_input_precision = "tf32"`` en ``triton/backends/nvidia/compiler.py`` (triton 3.9.0).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..base import leer_numero, normalizar_precision, picos_de
from .carga import version_suficiente

__all__ = ["CAPACIDAD_TENSOR_CORES_TL_DOT", "TRITON_SIN_TENSOR_CORES_ANTIGUOS", "TechoMatmul", "techo_tl_dot"]

CAPACIDAD_TENSOR_CORES_TL_DOT = (8, 0)
"""Desde qué capacidad de cómputo usa ``tl.dot`` los Tensor Cores (Triton ≥ 3.3; ver el docstring)."""

TRITON_SIN_TENSOR_CORES_ANTIGUOS = "3.3.0"
"""La primera versión de Triton cuyo ``tl.dot`` no usa los Tensor Cores por debajo de la capacidad 8.0.
Antes (hasta 3.2), una T4 o una V100 los usaba en fp16."""

_TIPOS_DOT = ("fp32", "fp16", "bf16")  # lo que entra en tl.dot en los kernels del curso


@dataclass(frozen=True)
class TechoMatmul:
    """El pico con el que comparar una matmul de Triton en una GPU, y por qué. Lo devuelve ``techo_tl_dot``."""

    gpu: str                       # el nombre de la fila del catálogo («NVIDIA T4»)
    capacidad: tuple[int, int]     # capacidad de cómputo, (7, 5) en una T4
    tipo: str                      # el de los operandos: "fp32", "fp16" o "bf16"
    modo: str                      # la columna de la ficha que manda: "fp32", "tf32", "fp16" o "bf16"
    tensor_cores: bool             # ¿usa tl.dot los Tensor Cores?
    tflops: float | None           # el pico de ``modo`` (None si la ficha no lo da)
    fuente: str                    # de dónde sale el pico
    motivo: str = ""               # por qué no usa los Tensor Cores (vacío si los usa)

    def __str__(self) -> str:
        cc = f"{self.capacidad[0]}.{self.capacidad[1]}"
        pico = (f"techo {self.tflops:g} TFLOP/s ({self.modo} de la ficha, {self.fuente})" if self.tflops is not None
                else f"la ficha no da el pico {self.modo}")
        if self.tensor_cores:
            return f"{self.gpu} (capacidad {cc}): tl.dot en {self.tipo} usa los Tensor Cores ({self.modo}); {pico}."
        return (f"{self.gpu} (capacidad {cc}): tl.dot en {self.tipo} no usa los Tensor Cores ({self.motivo}): "
                f"calcula en fp32 con FMA en los núcleos CUDA; {pico}.")


def techo_tl_dot(nombre_gpu: str, dtype, capacidad: tuple[int, int] | None = None, *,
                 version_triton: str | None = None) -> TechoMatmul | None:
    """El pico que limita una matmul con ``tl.dot`` en esa GPU, según su capacidad de cómputo. Lección 11.

    ``nombre_gpu``: el de ``torch.cuda.get_device_name()`` («Tesla T4»). ``dtype``: el de los
    operandos (``torch.float16``, ``"fp32"``, ``"bf16"``). ``capacidad``: la de
    ``torch.cuda.get_device_capability()``; sin ella, la del catálogo. ``version_triton``: la de
    ``triton.__version__``; sin ella, una actual (≥ 3.3). Capacidad ≥ 8.0: los Tensor Cores (fp32
    va en TF32); por debajo, el pico fp32 de los núcleos CUDA. ``None`` si la GPU no está en el
    catálogo o no es de NVIDIA (Triton no corre en la GPU de un Mac).
    """
    tipo = normalizar_precision(dtype, _TIPOS_DOT)
    fila = picos_de(nombre_gpu)
    if capacidad is not None:
        mal = ValueError(f"capacidad debe ser dos enteros (mayor, menor), como los da "
                         f"torch.cuda.get_device_capability(): (7, 5) en una T4; recibí {capacidad!r}.")
        if not isinstance(capacidad, (tuple, list)) or len(capacidad) != 2:
            raise mal
        try:  # base.numeros, el único lector de números: rechaza booleanos, textos, negativos y 7.5
            capacidad = tuple(leer_numero(v, "capacidad", entero=True, minimo=0) for v in capacidad)
        except (TypeError, ValueError):
            raise mal from None
    elif fila is not None:
        capacidad = fila.capacidad_computo
    if fila is None or capacidad is None:
        return None
    antiguo = version_triton is not None and not version_suficiente(version_triton, TRITON_SIN_TENSOR_CORES_ANTIGUOS)
    desde = (7, 0) if antiguo else CAPACIDAD_TENSOR_CORES_TL_DOT  # hasta Triton 3.2, Volta y Turing en fp16
    # fp32 (TF32) y bf16 en Tensor Cores llegaron con Ampere (8.0): antes, por los núcleos CUDA.
    tensor_cores = capacidad >= desde and (tipo == "fp16" or capacidad >= (8, 0))
    modo = ("tf32" if tipo == "fp32" else tipo) if tensor_cores else "fp32"
    if tensor_cores:
        motivo = ""
    elif capacidad < (7, 0):
        motivo = "esta GPU no tiene"
    elif capacidad < desde:
        motivo = (f"Triton {TRITON_SIN_TENSOR_CORES_ANTIGUOS[:3]} o más nuevo solo los usa desde la capacidad "
                  f"{CAPACIDAD_TENSOR_CORES_TL_DOT[0]}.{CAPACIDAD_TENSOR_CORES_TL_DOT[1]}")
    else:
        motivo = f"{tipo} en Tensor Cores llegó con la capacidad 8.0"
    return TechoMatmul(fila.nombre, capacidad, tipo, modo, tensor_cores, fila.pico(modo), fila.fuente, motivo)
