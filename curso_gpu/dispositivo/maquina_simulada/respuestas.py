"""Lo que contesta ``torch.cuda`` en la GPU simulada: propiedades, eventos, flujos y memoria."""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass

import torch

from ...base import EVENTO_SIN_TERMINAR
from .memoria import CUDA0

__all__ = ["Aleatorio", "Evento", "Flujo", "Propiedades", "bf16_soportado", "clase_evento", "clase_flujo",
           "comprobar_indice",
           "respuestas_acelerador", "respuestas_cuda"]


class Aleatorio:
    """El generador de números aleatorios de la GPU simulada, aparte del de la CPU (como en CUDA).

    Lo siembran ``torch.cuda.manual_seed`` y ``torch.manual_seed`` (que siembra todos los dispositivos).
    Las operaciones aleatorias en la GPU (``torch.randn(..., device="cuda")``, ``dropout``...) lo usan con
    ``usar()``: cambia un momento el estado del generador de la CPU por el suyo. Su estado es el de un
    generador de la CPU (no los 16 bytes de semilla y desplazamiento de CUDA)."""

    def __init__(self) -> None:
        self.semilla = torch.initial_seed()
        self._estado = torch.Generator().manual_seed(self.semilla).get_state()

    def sembrar(self, semilla) -> None:
        generador = torch.Generator()
        self.semilla = generador.seed() if semilla is None else int(semilla) % 2**64
        self._estado = generador.manual_seed(self.semilla).get_state()

    def estado(self) -> torch.Tensor:
        return self._estado.clone()

    def poner_estado(self, estado) -> None:
        self._estado = torch.as_tensor(estado, dtype=torch.uint8).clone()

    @contextlib.contextmanager
    def usar(self):
        de_la_cpu = torch.default_generator.get_state()
        torch.default_generator.set_state(self._estado)
        try:
            yield
        finally:
            self._estado = torch.default_generator.get_state()
            torch.default_generator.set_state(de_la_cpu)



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
    """``torch.cuda.Event`` en la GPU simulada: el reloj de la CPU (``time.perf_counter``).

    Como en CUDA, un evento grabado no ha terminado hasta que la CPU espera a la GPU después de
    grabarlo (``torch.cuda.synchronize()``, ``evento.synchronize()``, ``.item()``...): hasta
    entonces ``query()`` da False y ``elapsed_time`` lanza «CUDA error: device not ready».
    """

    simulador = None  # lo pone ``clase_evento``: cuenta las esperas de la CPU

    def __init__(self, enable_timing: bool = False, blocking: bool = False, interprocess: bool = False) -> None:
        self.enable_timing = enable_timing
        self.instante: float | None = None
        self.espera = 0  # las esperas que había al grabarlo

    def record(self, stream=None) -> None:
        self.instante = time.perf_counter()
        self.espera = self.simulador.esperas if self.simulador is not None else 0

    def synchronize(self) -> None:
        if self.simulador is not None and not self.query():
            self.simulador.esperar(implicita=False)

    def query(self) -> bool:
        return self.instante is None or self.simulador is None or self.simulador.esperas > self.espera

    def wait(self, stream=None) -> None:
        return None

    def elapsed_time(self, fin: "Evento") -> float:
        if not (self.enable_timing and fin.enable_timing):
            raise RuntimeError("Both events must be created with argument 'enable_timing=True'.")
        if self.instante is None or fin.instante is None:
            raise RuntimeError("Both events must be recorded before calculating elapsed time.")
        if not (self.query() and fin.query()):
            raise torch.AcceleratorError(EVENTO_SIN_TERMINAR)
        return (fin.instante - self.instante) * 1000.0


def clase_evento(simulador) -> type:
    """``torch.cuda.Event`` de ``simulador``: sus eventos terminan cuando la CPU espera a esa GPU."""
    return type("Event", (Evento,), {"simulador": simulador, "__module__": Evento.__module__})


class Flujo:
    """``torch.cuda.Stream`` en la GPU simulada: todo ocurre en orden, en la CPU."""

    simulador = None  # lo pone ``clase_flujo``

    def __init__(self, device=None, priority: int = 0, **_kwargs) -> None:
        self.device = CUDA0

    def synchronize(self) -> None:
        if self.simulador is not None:  # ``stream_synchronize``: sí avisa con set_sync_debug_mode
            self.simulador.esperar(implicita=True)

    def wait_stream(self, otro) -> None:
        return None

    def wait_event(self, evento) -> None:
        return None

    def record_event(self, evento=None):
        evento = evento or clase_evento(self.simulador)()
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


def clase_flujo(simulador) -> type:
    """``torch.cuda.Stream`` de ``simulador``."""
    return type("Stream", (Flujo,), {"simulador": simulador, "__module__": Flujo.__module__})


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


def _respuestas_dispositivo(simulador) -> dict:
    perfil = simulador.perfil
    evento, flujo = clase_evento(simulador), clase_flujo(simulador)
    propiedades = Propiedades(perfil.nombre, *perfil.capacidad_computo, perfil.memoria_total_bytes,
                              perfil.multiprocesadores, perfil.cache_l2_bytes)
    return {
        "is_available": lambda: True,
        "device_count": lambda: 1,
        "current_device": lambda: 0,
        "set_device": lambda device: comprobar_indice(device) and None,
        "_lazy_init": lambda: None,
        "init": lambda: None,
        "synchronize": _con_indice(lambda: simulador.esperar(implicita=False)),
        "set_sync_debug_mode": simulador.poner_modo_de_esperas,
        "get_sync_debug_mode": lambda: simulador.modo_esperas,
        "get_device_name": _con_indice(perfil.nombre),
        "get_device_capability": _con_indice(perfil.capacidad_computo),
        "get_device_properties": _con_indice(propiedades),
        "get_arch_list": lambda: [f"sm_{perfil.capacidad_computo[0]}{perfil.capacidad_computo[1]}"],
        "is_bf16_supported": bf16_soportado(perfil.capacidad_computo),
        "Event": evento,
        "Stream": flujo,
        "current_stream": lambda device=None: flujo(),
        "default_stream": lambda device=None: flujo(),
        "stream": lambda flujo=None: contextlib.nullcontext(),
        "is_current_stream_capturing": lambda: False,
    }


def _respuestas_memoria(simulador) -> dict:
    memoria, total = simulador.memoria, simulador.perfil.memoria_total_bytes
    pico = lambda: max(memoria.pico, memoria.asignada())  # noqa: E731
    return {
        "memory_allocated": _con_indice(memoria.asignada),
        "max_memory_allocated": _con_indice(pico),
        "memory_reserved": _con_indice(lambda: memoria.reservada),
        "max_memory_reserved": _con_indice(lambda: memoria.pico_reservada),
        "reset_peak_memory_stats": _con_indice(memoria.reiniciar_pico),
        "reset_max_memory_allocated": _con_indice(memoria.reiniciar_pico),
        "reset_accumulated_memory_stats": _con_indice(None),
        "set_per_process_memory_fraction": simulador.poner_fraccion,
        "get_per_process_memory_fraction": _con_indice(
            lambda: 1.0 if simulador.fraccion is None else simulador.fraccion),
        "memory_summary": simulador.resumen,
        "empty_cache": memoria.vaciar_cache,
        "mem_get_info": _con_indice(lambda: (simulador.libre(), total)),
        "memory_stats": _con_indice(lambda: {
            "allocated_bytes.all.current": memoria.asignada(),
            "allocated_bytes.all.peak": pico(),
            "reserved_bytes.all.current": memoria.reservada,
            "reserved_bytes.all.peak": memoria.pico_reservada,
            "num_alloc_retries": 0,
            "num_ooms": 0,
        }),
    }


def _respuestas_aleatorias(simulador) -> dict:
    # el generador de la GPU simulada es suyo, aparte del de la CPU (``Simulador.generador``)
    aleatorio = simulador.aleatorio
    return {
        "get_rng_state": lambda device="cuda": aleatorio.estado(),
        "set_rng_state": lambda new_state, device="cuda": aleatorio.poner_estado(new_state),
        "get_rng_state_all": lambda: [aleatorio.estado()],
        "set_rng_state_all": lambda new_states: aleatorio.poner_estado(list(new_states)[0]),
        "initial_seed": lambda: aleatorio.semilla,
        "manual_seed": lambda seed: aleatorio.sembrar(seed),
        "manual_seed_all": lambda seed: aleatorio.sembrar(seed),
        "seed": lambda: aleatorio.sembrar(None),
        "seed_all": lambda: aleatorio.sembrar(None),
    }


def respuestas_cuda(simulador) -> dict:
    """Cada función de ``torch.cuda`` que cambia la GPU simulada, con su respuesta."""
    return {**_respuestas_dispositivo(simulador), **_respuestas_memoria(simulador), **_respuestas_aleatorias(simulador)}


def respuestas_acelerador(simulador) -> dict:
    """``torch.accelerator`` (lo usa el ``DataLoader`` con ``pin_memory=True``) ve la misma GPU."""
    return {
        "is_available": lambda: True,
        "current_accelerator": lambda check_available=False: torch.device("cuda"),
        "device_count": lambda: 1,
        "current_device_index": lambda: 0,
        "set_device_index": lambda device: None,
        "synchronize": lambda device=None: simulador.esperar(implicita=False),
        "current_stream": lambda device=None: clase_flujo(simulador)(),
    }
