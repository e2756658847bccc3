"""Las precisiones (tipos de dato) del curso: nombre, bytes por número y ``torch.dtype``. Lecciones 03 y 04.

Un solo vocabulario para todo el paquete: ``normalizar_precision`` acepta ``"fp16"``,
``"half"``, ``"float16"``, ``"torch.float16"`` o ``torch.float16`` y devuelve ``"fp16"``.
Cada función dice qué precisiones admite (la memoria de un modelo admite int8 e int4; la
multiplicación de matrices, tf32 y fp64).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

__all__ = ["AUTOCAST_CUDA_FP32", "PRECISIONES", "PRECISIONES_ENTRENAR", "Precision", "dtype_de", "normalizar_precision"]


@dataclass(frozen=True)
class Precision:
    """Una precisión: su nombre corto, los bytes de cada número y su ``torch.dtype``."""

    nombre: str
    bytes: float
    dtype: torch.dtype | None  # None: PyTorch no tiene un dtype para calcular en ella (int4)
    descripcion: str


PRECISIONES: dict[str, Precision] = {p.nombre: p for p in [
    Precision("fp32", 4, torch.float32, "coma flotante de 32 bits (la precisión por defecto)"),
    Precision("tf32", 4, torch.float32, "fp32 calculado en los Tensor Cores con 10 bits de mantisa"),
    Precision("fp16", 2, torch.float16, "coma flotante de 16 bits"),
    Precision("bf16", 2, torch.bfloat16, "bfloat16: 16 bits con el rango de fp32"),
    Precision("fp64", 8, torch.float64, "coma flotante de 64 bits"),
    Precision("int8", 1, torch.int8, "enteros de 8 bits (cuantizado)"),
    Precision("int4", 0.5, None, "enteros de 4 bits (cuantizado): dos por byte"),
]}
"""Todas las precisiones que nombra el curso."""

_ALIAS = {
    "float32": "fp32", "float": "fp32",
    "float16": "fp16", "half": "fp16",
    "bfloat16": "bf16",
    "float64": "fp64", "double": "fp64",
}


def _dtypes() -> dict[torch.dtype, str]:
    tabla = {
        torch.float32: "fp32", torch.float16: "fp16", torch.bfloat16: "bf16", torch.float64: "fp64",
        torch.int8: "int8", torch.uint8: "int8", torch.qint8: "int8", torch.quint8: "int8",
        torch.quint4x2: "int4",
    }
    for nombre in ("int4", "uint4"):  # existen desde torch 2.3
        dtype = getattr(torch, nombre, None)
        if isinstance(dtype, torch.dtype):
            tabla[dtype] = "int4"
    return tabla


# Las precisiones de entrenar (lecciones 06 y 07): fp32, o mixta con fp16 o bf16.
PRECISIONES_ENTRENAR = ("fp32", "fp16", "bf16")


def normalizar_precision(precision, admitidas=tuple(PRECISIONES)) -> str:
    """El nombre corto de la precisión (``"fp32"``, ``"fp16"``...), si está en ``admitidas``.

    Acepta el nombre en mayúsculas o minúsculas, sus alias (``"half"``, ``"float16"``,
    ``"torch.float16"``) o el ``torch.dtype``. Cualquier otra cosa da ``ValueError`` con las
    precisiones admitidas.
    """
    nombre = None
    if isinstance(precision, torch.dtype):
        nombre = _dtypes().get(precision)
    elif isinstance(precision, str):
        texto = precision.strip().lower().removeprefix("torch.")
        nombre = _ALIAS.get(texto, texto)
    if nombre in admitidas:
        return nombre
    raise ValueError(f"precision desconocida {precision!r}; usa una de: {', '.join(admitidas)}")


def dtype_de(precision, admitidas=tuple(PRECISIONES)) -> torch.dtype:
    """El ``torch.dtype`` en que se calcula esa precisión (tf32 se guarda como ``torch.float32``)."""
    nombre = normalizar_precision(precision, admitidas)
    dtype = PRECISIONES[nombre].dtype
    if dtype is None:
        raise ValueError(f"PyTorch no calcula en {nombre}; usa una de: fp32, fp16, bf16.")
    return dtype


# Las operaciones que ``torch.autocast("cuda", torch.float16)`` calcula en fp32 (sus entradas fp16 se
# pasan a fp32 y el resultado sale en fp32): la lista «CUDA Ops that can autocast to float32» de la
# referencia de AMP de PyTorch (docs.pytorch.org/docs/stable/amp.html, «Autocast Op Reference»; leída el
# 7-12-2026). Con la de la CPU son otras: la T4 simulada (``dispositivo.maquina_simulada``) usa esta.
AUTOCAST_CUDA_FP32 = frozenset({
    "__pow__", "__rdiv__", "__rpow__", "__rtruediv__", "acos", "asin", "binary_cross_entropy_with_logits", "cosh",
    "cosine_embedding_loss", "cdist", "cosine_similarity", "cross_entropy", "cumprod", "cumsum", "dist", "erfinv",
    "exp", "expm1", "group_norm", "hinge_embedding_loss", "kl_div", "l1_loss", "layer_norm", "log", "log_softmax",
    "log10", "log1p", "log2", "margin_ranking_loss", "mse_loss", "multilabel_margin_loss", "multi_margin_loss",
    "nll_loss", "norm", "normalize", "pdist", "poisson_nll_loss", "pow", "prod", "reciprocal", "rsqrt", "sinh",
    "smooth_l1_loss", "soft_margin_loss", "softmax", "softmin", "softplus", "sum", "renorm", "tan",
    "triplet_margin_loss",
})
