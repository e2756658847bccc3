"""¿Cabe antes de reservar? La memoria que piden las matrices de la lección 03 y la que queda libre.

Antes de crear ``a``, ``b`` y ``c = a @ b`` (3·n²·bytes) se mira la memoria libre del
dispositivo, y un tamaño que no cabe se rechaza con ``MemoriaInsuficiente`` y un tamaño
sugerido, en vez de colgar la máquina o acabar en un error de CUDA. Lección 03.

(La memoria que necesita un *modelo* entero es otra cosa: está en ``memoria``, lección 04.)
"""

from __future__ import annotations

import gc
import math

import torch

from ..dispositivo import como_dispositivo, memoria_dispositivo
from ..base import dtype_de, formatear_numero, leer_numero, normalizar_precision

PRECISIONES_MATMUL = ("fp32", "tf32", "fp16", "bf16", "fp64")
"""Las precisiones en que se puede medir ``a @ b`` en la lección 03."""


class MemoriaInsuficiente(ValueError):
    """El tamaño pedido no cabe en la memoria del dispositivo (o se agotó al medir)."""

    def __init__(self, mensaje: str, necesaria_bytes: int = 0, disponible_bytes: int | None = None,
                 n_sugerido: int | None = None):
        super().__init__(mensaje)
        self.necesaria_bytes = necesaria_bytes
        self.disponible_bytes = disponible_bytes
        self.n_sugerido = n_sugerido


def tipo_de_dato(dtype) -> tuple[torch.dtype, bool]:
    """(``torch.dtype`` en que se calcula, se pidió TF32). Un tipo desconocido da ValueError en español."""
    return dtype_de(dtype, PRECISIONES_MATMUL), normalizar_precision(dtype, PRECISIONES_MATMUL) == "tf32"

# ---------------------------------------------------------------------------
# Memoria: ¿cabe antes de reservar?
# ---------------------------------------------------------------------------

def memoria_necesaria(n: int, dtype=torch.float32) -> int:
    """Bytes de ``a``, ``b`` y ``c = a @ b`` (n×n cada una): 3·n²·bytes por elemento. Lección 03."""
    n = leer_numero(n, "n (el lado de la matriz)", entero=True, minimo=1, ejemplo="n=1024")
    tipo, _ = tipo_de_dato(dtype)
    return 3 * n * n * torch.empty((), dtype=tipo).element_size()


def _libre_bytes(dispositivo) -> int | None:
    """Bytes libres en el dispositivo (en cpu, la RAM disponible; None si no se sabe). Lección 03."""
    try:
        memoria = memoria_dispositivo(como_dispositivo(dispositivo))
    except Exception:  # un driver roto: no sabemos, no bloqueamos
        return None
    return None if memoria is None else memoria.libre_bytes


def _n_que_cabe(libre: int, matrices: int, bytes_elemento: int) -> int:
    """El mayor n (redondeado) tal que ``matrices``·n²·bytes quepan en el 90 % de ``libre``."""
    n = int(math.sqrt(max(libre, 0) * 0.9 / (matrices * bytes_elemento)))
    return n // 256 * 256 if n >= 512 else max(n, 1)


def comprobar_que_cabe(n: int, dispositivo, dtype=torch.float32) -> None:
    """Lanza ``MemoriaInsuficiente`` si 3·n²·bytes no caben en el dispositivo. Lección 03.

    Con un acelerador, además, ``a`` y ``b`` se crean antes en la RAM (2·n²·bytes).
    """
    d = como_dispositivo(dispositivo)
    n = leer_numero(n, "n (el lado de la matriz)", entero=True, minimo=1, ejemplo="n=1024")
    tipo, _ = tipo_de_dato(dtype)
    bytes_elemento = torch.empty((), dtype=tipo).element_size()
    lugares = [(d, 3)] + ([(torch.device("cpu"), 2)] if d.type != "cpu" else [])
    for lugar, matrices in lugares:
        necesaria = matrices * n * n * bytes_elemento
        libre = _libre_bytes(lugar)
        if libre is not None and necesaria > libre:
            donde = "la RAM" if lugar.type == "cpu" else f"la memoria de {lugar}"
            sugerido = _n_que_cabe(libre, matrices, bytes_elemento)
            raise MemoriaInsuficiente(
                f"n={n} no cabe: {matrices} matrices de {formatear_numero(n)} × {formatear_numero(n)} en {normalizar_precision(tipo)} necesitan "
                f"{necesaria / 1e9:.2f} GB y en {donde} quedan {libre / 1e9:.2f} GB libres. "
                f"Prueba con un tamaño menor, por ejemplo n={sugerido}.",
                necesaria, libre, sugerido,
            )


def es_falta_de_memoria(error: BaseException) -> bool:
    """True si ``error`` es un «out of memory» de PyTorch (CUDA, MPS o la RAM)."""
    if isinstance(error, torch.cuda.OutOfMemoryError):
        return True
    texto = str(error).lower()
    return isinstance(error, RuntimeError) and ("out of memory" in texto or "can't allocate memory" in texto)


def liberar_memoria(d: torch.device, error_de_cuda: bool) -> None:
    """Suelta los tensores sin dueño y devuelve al driver la memoria que PyTorch guardaba."""
    gc.collect()
    if d.type == "cuda" or error_de_cuda:
        torch.cuda.empty_cache()
    elif d.type == "mps" and hasattr(torch.mps, "empty_cache"):
        torch.mps.empty_cache()
