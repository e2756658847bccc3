"""Precisión mixta al entrenar: ``autocast`` y ``GradScaler`` según el dispositivo. Lección 06.

- ``fp32``: lo de siempre (32 bits en todo).
- ``fp16``: el paso hacia delante en 16 bits con ``torch.autocast`` y la pérdida escalada con
  ``torch.amp.GradScaler`` (sin escalar, los gradientes pequeños se vuelven 0 en fp16).
- ``bf16``: también con ``autocast``, pero sin escalador: bf16 tiene el mismo rango que fp32.

Qué puede correr cada dispositivo (PyTorch 2.13):

- CUDA: fp16 en todas; bf16 solo con núcleos tensor para bf16 (Ampere o más nueva, capacidad
  8.0+; en ROCm, todas). Una T4 (Turing, 7.5) tiene núcleos tensor para fp16 pero no para bf16:
  allí bf16 se emula y va varias veces más lento, así que aquí es un error que propone fp16.
- CPU: bf16 y fp16 con ``autocast``; ``GradScaler("cpu")`` existe desde PyTorch 2.3. bf16 solo
  acelera en CPUs con AVX-512-BF16 o AMX (``soporte_bf16_cpu()``); en las demás va más lento.
- MPS (Mac): ``autocast`` fp16 desde PyTorch 2.5 y bf16 desde 2.6 con macOS 14 o más nuevo;
  ``GradScaler`` en MPS desde PyTorch 2.8.
"""

from __future__ import annotations

import contextlib
import os
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, ContextManager

import torch

from ..base import PRECISIONES_ENTRENAR, mostrar_valor, normalizar_precision
from ..dispositivo import como_dispositivo

__all__ = [
    "PrecisionNoDisponible", "SoporteBF16", "comprobar_precision", "preparar_precision", "soporte_bf16_cpu",
]

_TIPOS = {"fp16": torch.float16, "bf16": torch.bfloat16}


class PrecisionNoDisponible(ValueError):
    """El dispositivo no puede entrenar (o no le conviene) con la precisión pedida."""


def _version_minima(version: str) -> bool:
    return torch.torch_version.TorchVersion(torch.__version__.split("+")[0]) >= version


def comprobar_precision(precision: str, dispositivo: torch.device) -> torch.dtype | None:
    """El ``dtype`` de ``autocast`` para ``precision`` en ``dispositivo`` (None en fp32). Lección 06.

    Acepta también los alias de ``precisiones`` (``"float16"``, ``torch.bfloat16``...). Si el
    dispositivo no puede con esa precisión, lanza ``PrecisionNoDisponible`` con la
    alternativa (por ejemplo, fp16 en una T4 en vez de bf16).
    """
    precision = normalizar_precision(precision, PRECISIONES_ENTRENAR)
    dispositivo = como_dispositivo(dispositivo, auto=False)  # «cuda» sin GPU: la culpa es de la GPU que falta
    if precision == "fp32":
        return None
    tipo = dispositivo.type
    if tipo == "cuda":
        if precision == "bf16" and not torch.version.hip:
            if not torch.cuda.is_bf16_supported():
                raise PrecisionNoDisponible(
                    "Esta GPU no puede trabajar en bf16. Usa precision='fp16' (con GradScaler) o 'fp32'.")
            mayor, menor = torch.cuda.get_device_capability(dispositivo)
            if mayor < 8:
                nombre = torch.cuda.get_device_name(dispositivo)
                raise PrecisionNoDisponible(
                    f"{nombre} (capacidad {mayor}.{menor}) no tiene núcleos tensor para bf16: bf16 se "
                    "emularía y entrenaría más lento que fp32. Usa precision='fp16': es la que acelera "
                    "una T4 (bf16 necesita Ampere o más nueva, capacidad 8.0+).")
    elif tipo == "mps":
        if precision == "fp16" and not _version_minima("2.8"):
            raise PrecisionNoDisponible(
                f"En un Mac, fp16 necesita GradScaler en MPS (PyTorch 2.8 o más nuevo; tienes "
                f"{torch.__version__}). Usa precision='bf16' (macOS 14+) o actualiza PyTorch.")
        if precision == "bf16" and not torch.backends.mps.is_macos_or_newer(14, 0):
            raise PrecisionNoDisponible(
                "bf16 en MPS necesita macOS 14 (Sonoma) o más nuevo. Usa precision='fp16' o 'fp32'.")
    elif tipo == "cpu":
        if precision == "fp16" and not _version_minima("2.3"):
            raise PrecisionNoDisponible(
                f"fp16 en la CPU necesita GradScaler('cpu') (PyTorch 2.3 o más nuevo; tienes "
                f"{torch.__version__}). Usa precision='bf16' o 'fp32'.")
    elif not torch.amp.is_autocast_available(tipo):
        raise PrecisionNoDisponible(
            f"PyTorch no tiene autocast para '{tipo}'. Usa precision='fp32'.")
    # La última palabra la tiene el propio autocast: si no admite el tipo, avisa y se desactiva.
    with warnings.catch_warnings(record=True) as avisos:
        warnings.simplefilter("always")
        torch.autocast(tipo, dtype=_TIPOS[precision])
    if any("autocast" in str(a.message).lower() for a in avisos):
        raise PrecisionNoDisponible(
            f"autocast en '{tipo}' no admite {precision} con PyTorch {torch.__version__}. "
            f"Usa precision='fp32'{' o ' + repr('bf16') if precision == 'fp16' else ''}.")
    return _TIPOS[precision]


def preparar_precision(precision: str, dispositivo: torch.device
                       ) -> tuple[Callable[[], ContextManager], torch.amp.GradScaler]:
    """``(contexto, escalador)`` para un bucle de entrenamiento. Lección 06.

    ``contexto()`` abre ``torch.autocast`` (o nada en fp32) para el paso hacia delante;
    ``escalador`` es un ``GradScaler`` activo solo en fp16 (apagado, ``scale``/``step``/``update``
    equivalen a ``backward``/``optimizador.step()`` de siempre)::

        with contexto():
            perdida = criterio(modelo(X), y)
        escalador.scale(perdida).backward()
        escalador.step(optimizador)
        escalador.update()
    """
    dispositivo = como_dispositivo(dispositivo, auto=False)
    tipo = comprobar_precision(precision, dispositivo)
    precision = normalizar_precision(precision, PRECISIONES_ENTRENAR)
    if tipo is None:
        contexto = contextlib.nullcontext
    else:
        def contexto():
            return torch.autocast(dispositivo.type, dtype=tipo)
    escalador = torch.amp.GradScaler(dispositivo.type, enabled=precision == "fp16")
    return contexto, escalador


# ---------------------------------------------------------------------------
# ¿Acelera bf16 esta CPU?
# ---------------------------------------------------------------------------

_BANDERAS_BF16 = ("avx512_bf16", "amx_bf16", "amx_tile", "bf16")  # x86 (flags) y ARM (Features)


@dataclass
class SoporteBF16:
    """Si la CPU tiene instrucciones para bf16 (AVX-512-BF16 o AMX). Lección 06."""

    capacidad: str          # lo que usa PyTorch: torch.backends.cpu.get_cpu_capability()
    banderas: list[str]     # las de /proc/cpuinfo que importan para bf16 (solo Linux)
    acelera: bool | None    # None: no se puede saber (no es Linux)

    def __str__(self) -> str:
        if self.acelera is None:
            return (f"PyTorch usa las instrucciones {self.capacidad} de esta CPU; no sé si tiene "
                    "AVX-512-BF16 o AMX (solo lo leo en Linux). Mídelo: es lo que cuenta.")
        if self.acelera:
            return (f"Esta CPU tiene {', '.join(self.banderas)}: bf16 puede ir más rápido que fp32 "
                    f"(PyTorch usa {self.capacidad}).")
        return (f"Esta CPU no tiene AVX-512-BF16 ni AMX (PyTorch usa {self.capacidad}): bf16 se "
                "convierte a fp32 por dentro y suele ir más lento que fp32.")


def soporte_bf16_cpu(cpuinfo: str | Path = "/proc/cpuinfo") -> SoporteBF16:
    """¿Tiene esta CPU AVX-512-BF16 o AMX (o BF16 en ARM), las que aceleran bf16? Lección 06."""
    if isinstance(cpuinfo, bool) or not isinstance(cpuinfo, (str, os.PathLike)):
        raise ValueError(f"cpuinfo debe ser la ruta del archivo con las banderas de la CPU, como texto o Path "
                         f"(por omisión, '/proc/cpuinfo'); recibí {mostrar_valor(cpuinfo)}. Llama a "
                         "soporte_bf16_cpu() sin nada para leer el de esta máquina.")
    capacidad = torch.backends.cpu.get_cpu_capability()
    try:
        texto = Path(cpuinfo).read_text(encoding="utf-8", errors="replace")
    except (OSError, ValueError):  # no existe, es una carpeta o tiene un carácter nulo: sin banderas que leer
        return SoporteBF16(capacidad, [], None)
    banderas = set()
    for linea in texto.splitlines():
        if linea.startswith(("flags", "Features")):
            banderas.update(linea.split(":", 1)[-1].split())
    presentes = [b for b in _BANDERAS_BF16 if b in banderas]
    return SoporteBF16(capacidad, presentes, bool(presentes))
