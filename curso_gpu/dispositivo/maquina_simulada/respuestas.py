"""Lo que contesta ``torch.cuda`` en la GPU simulada: propiedades, eventos, flujos y memoria."""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass

import torch

from .memoria import CUDA0

__all__ = ["ESTADO_RNG", "Evento", "Flujo", "Propiedades", "bf16_soportado", "comprobar_indice",
           "respuestas_acelerador", "respuestas_cuda"]

ESTADO_RNG = torch.zeros(16, dtype=torch.uint8)
"""Lo que guarda y devuelve ``torch.compile`` como estado aleatorio de la GPU; nadie lo lee."""


@dataclass(frozen=True)
class Propiedades:
    """Lo que da ``torch.cuda.get_device_properties`` en la GPU simulada."""

    name: str
    major: int
    minor: int
    total_memory: int
    multi_processor_count: int
    L2_cache_size: int
    is_integrated: bool = False
    is_multi_gpu_board: bool = False
    warp_size: int = 32
    max_threads_per_multi_processor: int = 1024

    def __repr__(self) -> str:  # como el de PyTorch, que da los MB como MiB truncados
        return (f"_CudaDeviceProperties(name='{self.name}', major={self.major}, minor={self.minor}, "
                f"total_memory={self.total_memory // 2**20}MB, multi_processor_count={self.multi_processor_count}, "
                f"L2_cache_size={self.L2_cache_size // 2**20}MB) [simulada]")


class Evento:
    """``torch.cuda.Event`` en la GPU simulada: el reloj de la CPU (``time.perf_counter``)."""

    def __init__(self, enable_timing: bool = False, blocking: bool = False, interprocess: bool = False) -> None:
        self.enable_timing = enable_timing
        self.instante: float | None = None

    def record(self, stream=None) -> None:
        self.instante = time.perf_counter()

    def synchronize(self) -> None:
        return None

    def query(self) -> bool:
        return True

    def wait(self, stream=None) -> None:
        return None

    def elapsed_time(self, fin: "Evento") -> float:
        if not (self.enable_timing and fin.enable_timing):
            raise RuntimeError("Both events must be created with argument 'enable_timing=True'.")
        if self.instante is None or fin.instante is None:
            raise RuntimeError("Both events must be recorded before calculating elapsed time.")
        return (fin.instante - self.instante) * 1000.0


class Flujo:
    """``torch.cuda.Stream`` en la GPU simulada: todo ocurre en orden, en la CPU."""

    def __init__(self, device=None, priority: int = 0, **_kwargs) -> None:
        self.device = CUDA0

    def synchronize(self) -> None:
        return None

    def wait_stream(self, otro) -> None:
        return None

    def wait_event(self, evento) -> None:
        return None

    def record_event(self, evento=None):
        evento = evento or Evento()
        evento.record()
        return evento

    def query(self) -> bool:
        return True

    def is_capturing(self) -> bool:
        return False

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def comprobar_indice(dispositivo=None) -> int:
    """El índice de ``dispositivo`` en la GPU simulada (0), o el error de CUDA si pide otra GPU."""
    if dispositivo is None:
        return 0
    if isinstance(dispositivo, str):
        dispositivo = torch.device(dispositivo)
    indice = dispositivo.index if isinstance(dispositivo, torch.device) else int(dispositivo)
    if indice not in (None, 0):
        raise RuntimeError("CUDA error: invalid device ordinal (la GPU simulada es una sola: cuda:0)")
    return 0


def bf16_soportado(capacidad: tuple[int, int]):
    """``torch.cuda.is_bf16_supported`` como en esa GPU: por debajo de 8.0, solo emulado."""
    def is_bf16_supported(including_emulation: bool = True) -> bool:
        return capacidad >= (8, 0) or bool(including_emulation)
    return is_bf16_supported


def _con_indice(valor):
    def funcion(device=None, *args, **kwargs):
        comprobar_indice(device)
        return valor() if callable(valor) else valor
    return funcion


def _respuestas_dispositivo(perfil) -> dict:
    propiedades = Propiedades(perfil.nombre, *perfil.capacidad_computo, perfil.memoria_total_bytes,
                              perfil.multiprocesadores, perfil.cache_l2_bytes)
    return {
        "is_available": lambda: True,
        "device_count": lambda: 1,
        "current_device": lambda: 0,
        "set_device": lambda device: comprobar_indice(device) and None,
        "_lazy_init": lambda: None,
        "init": lambda: None,
        "synchronize": _con_indice(None),
        "get_device_name": _con_indice(perfil.nombre),
        "get_device_capability": _con_indice(perfil.capacidad_computo),
        "get_device_properties": _con_indice(propiedades),
        "get_arch_list": lambda: [f"sm_{perfil.capacidad_computo[0]}{perfil.capacidad_computo[1]}"],
        "is_bf16_supported": bf16_soportado(perfil.capacidad_computo),
        "Event": Evento,
        "Stream": Flujo,
        "current_stream": lambda device=None: Flujo(),
        "default_stream": lambda device=None: Flujo(),
        "stream": lambda flujo=None: contextlib.nullcontext(),
        "is_current_stream_capturing": lambda: False,
    }


def _respuestas_memoria(simulador) -> dict:
    memoria, total = simulador.memoria, simulador.perfil.memoria_total_bytes
    pico = lambda: max(memoria.pico, memoria.asignada())  # noqa: E731
    return {
        "memory_allocated": _con_indice(memoria.asignada),
        "max_memory_allocated": _con_indice(pico),
        "memory_reserved": _con_indice(memoria.asignada),
        "max_memory_reserved": _con_indice(pico),
        "reset_peak_memory_stats": _con_indice(memoria.reiniciar_pico),
        "reset_max_memory_allocated": _con_indice(memoria.reiniciar_pico),
        "reset_accumulated_memory_stats": _con_indice(None),
        "set_per_process_memory_fraction": simulador.poner_fraccion,
        "get_per_process_memory_fraction": _con_indice(
            lambda: 1.0 if simulador.fraccion is None else simulador.fraccion),
        "memory_summary": simulador.resumen,
        "empty_cache": lambda: None,
        "mem_get_info": _con_indice(lambda: (total - memoria.asignada(), total)),
        "memory_stats": _con_indice(lambda: {
            "allocated_bytes.all.current": memoria.asignada(),
            "allocated_bytes.all.peak": pico(),
            "reserved_bytes.all.current": memoria.asignada(),
            "reserved_bytes.all.peak": pico(),
        }),
    }


def _respuestas_aleatorias() -> dict:
    # el generador de la GPU simulada es el de la CPU: torch.manual_seed ya lo siembra
    return {
        "get_rng_state": lambda device="cuda": ESTADO_RNG.clone(),
        "set_rng_state": lambda estado, device="cuda": None,
        "get_rng_state_all": lambda: [ESTADO_RNG.clone()],
        "set_rng_state_all": lambda estados: None,
        "initial_seed": lambda: torch.initial_seed(),
        "manual_seed": lambda seed: None,
        "manual_seed_all": lambda seed: None,
        "seed": lambda: None,
        "seed_all": lambda: None,
    }


def respuestas_cuda(simulador) -> dict:
    """Cada función de ``torch.cuda`` que cambia la GPU simulada, con su respuesta."""
    return {**_respuestas_dispositivo(simulador.perfil), **_respuestas_memoria(simulador), **_respuestas_aleatorias()}


def respuestas_acelerador() -> dict:
    """``torch.accelerator`` (lo usa el ``DataLoader`` con ``pin_memory=True``) ve la misma GPU."""
    return {
        "is_available": lambda: True,
        "current_accelerator": lambda check_available=False: torch.device("cuda"),
        "device_count": lambda: 1,
        "current_device_index": lambda: 0,
        "set_device_index": lambda device: None,
        "synchronize": lambda device=None: None,
        "current_stream": lambda device=None: Flujo(),
    }
