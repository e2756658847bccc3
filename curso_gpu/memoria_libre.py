"""¿Cabe antes de reservar? La memoria que piden las matrices de la lección 03 y la que queda libre.

Antes de crear ``a``, ``b`` y ``c = a @ b`` (3·n²·bytes) se mira la memoria libre del
dispositivo, y un tamaño que no cabe se rechaza con ``MemoriaInsuficiente`` y un tamaño
sugerido, en vez de colgar la máquina o acabar en un error de CUDA. Lección 03.

(La memoria que necesita un *modelo* entero es otra cosa: está en ``memoria``, lección 04.)
"""

from __future__ import annotations

import gc
import math
import os

import torch

from .cronometro import _como_dispositivo, _entero_positivo

_TIPOS = {
    "fp32": torch.float32, "float32": torch.float32, "float": torch.float32,
    "tf32": torch.float32,
    "fp16": torch.float16, "float16": torch.float16, "half": torch.float16,
    "bf16": torch.bfloat16, "bfloat16": torch.bfloat16,
    "fp64": torch.float64, "float64": torch.float64, "double": torch.float64,
}
_NOMBRE_CORTO = {torch.float32: "fp32", torch.float16: "fp16", torch.bfloat16: "bf16", torch.float64: "fp64"}


class MemoriaInsuficiente(ValueError):
    """El tamaño pedido no cabe en la memoria del dispositivo (o se agotó al medir)."""

    def __init__(self, mensaje: str, necesaria_bytes: int = 0, disponible_bytes: int | None = None,
                 n_sugerido: int | None = None):
        super().__init__(mensaje)
        self.necesaria_bytes = necesaria_bytes
        self.disponible_bytes = disponible_bytes
        self.n_sugerido = n_sugerido


def _tipo_de_dato(dtype) -> tuple[torch.dtype, bool]:
    """(dtype de torch, se pidió TF32). Un tipo desconocido da ValueError en español."""
    if isinstance(dtype, torch.dtype) and dtype in _NOMBRE_CORTO:
        return dtype, False
    if isinstance(dtype, str) and dtype.strip().lower() in _TIPOS:
        texto = dtype.strip().lower()
        return _TIPOS[texto], texto == "tf32"
    raise ValueError(
        f"Tipo de dato desconocido: {dtype!r}. Usa uno de: fp32, tf32, fp16, bf16, fp64 "
        "(o torch.float32, torch.float16, torch.bfloat16, torch.float64)."
    )

# ---------------------------------------------------------------------------
# Memoria: ¿cabe antes de reservar?
# ---------------------------------------------------------------------------

def memoria_necesaria(n: int, dtype=torch.float32) -> int:
    """Bytes de ``a``, ``b`` y ``c = a @ b`` (n×n cada una): 3·n²·bytes por elemento. Lección 03."""
    n = _entero_positivo(n, "n (el lado de la matriz)")
    tipo, _ = _tipo_de_dato(dtype)
    return 3 * n * n * torch.empty((), dtype=tipo).element_size()


def _ram_disponible() -> int | None:
    """Bytes de RAM libres (``/proc/meminfo`` en Linux; ``os.sysconf`` en otros), o None."""
    try:
        with open("/proc/meminfo", encoding="ascii") as archivo:
            for linea in archivo:
                if linea.startswith("MemAvailable:"):
                    return int(linea.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    for paginas in ("SC_AVPHYS_PAGES", "SC_PHYS_PAGES"):
        try:
            return int(os.sysconf(paginas)) * int(os.sysconf("SC_PAGE_SIZE"))
        except (ValueError, OSError, AttributeError):
            continue
    return None


def memoria_disponible(dispositivo) -> int | None:
    """Bytes libres en el dispositivo (None si no se sabe). Lección 03."""
    d = _como_dispositivo(dispositivo)
    try:
        if d.type == "cuda":
            return int(torch.cuda.mem_get_info(d)[0])
        if d.type == "mps" and hasattr(torch.mps, "recommended_max_memory"):
            return int(torch.mps.recommended_max_memory() - torch.mps.current_allocated_memory())
        if d.type == "xpu" and hasattr(torch.xpu, "mem_get_info"):
            return int(torch.xpu.mem_get_info(d)[0])
    except Exception:
        return None
    return _ram_disponible() if d.type in ("cpu", "mps") else None


def _n_que_cabe(libre: int, matrices: int, bytes_elemento: int) -> int:
    """El mayor n (redondeado) tal que ``matrices``·n²·bytes quepan en el 90 % de ``libre``."""
    n = int(math.sqrt(max(libre, 0) * 0.9 / (matrices * bytes_elemento)))
    return n // 256 * 256 if n >= 512 else max(n, 1)


def comprobar_que_cabe(n: int, dispositivo, dtype=torch.float32) -> None:
    """Lanza ``MemoriaInsuficiente`` si 3·n²·bytes no caben en el dispositivo. Lección 03.

    Con un acelerador, además, ``a`` y ``b`` se crean antes en la RAM (2·n²·bytes).
    """
    d = _como_dispositivo(dispositivo)
    n = _entero_positivo(n, "n (el lado de la matriz)")
    tipo, _ = _tipo_de_dato(dtype)
    bytes_elemento = torch.empty((), dtype=tipo).element_size()
    lugares = [(d, 3)] + ([(torch.device("cpu"), 2)] if d.type != "cpu" else [])
    for lugar, matrices in lugares:
        necesaria = matrices * n * n * bytes_elemento
        libre = memoria_disponible(lugar)
        if libre is not None and necesaria > libre:
            donde = "la RAM" if lugar.type == "cpu" else f"la memoria de {lugar}"
            sugerido = _n_que_cabe(libre, matrices, bytes_elemento)
            raise MemoriaInsuficiente(
                f"n={n} no cabe: {matrices} matrices de {n}×{n} en {_NOMBRE_CORTO[tipo]} necesitan "
                f"{necesaria / 1e9:.2f} GB y en {donde} quedan {libre / 1e9:.2f} GB libres. "
                f"Prueba con un tamaño menor, por ejemplo n={sugerido}.",
                necesaria, libre, sugerido,
            )


def _es_falta_de_memoria(error: BaseException) -> bool:
    if isinstance(error, torch.cuda.OutOfMemoryError):
        return True
    texto = str(error).lower()
    return isinstance(error, RuntimeError) and ("out of memory" in texto or "can't allocate memory" in texto)


def _liberar_memoria(d: torch.device, error_de_cuda: bool) -> None:
    """Suelta los tensores sin dueño y devuelve al driver la memoria que PyTorch guardaba."""
    gc.collect()
    if d.type == "cuda" or error_de_cuda:
        torch.cuda.empty_cache()
    elif d.type == "mps" and hasattr(torch.mps, "empty_cache"):
        torch.mps.empty_cache()
