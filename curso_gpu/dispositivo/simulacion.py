"""La T4 simulada: las ramas de GPU de las lecciones, ejecutadas en una máquina sin GPU.

Para quien prepara un notebook para Colab en un portátil sin GPU (y para las pruebas del curso).
Con ``CURSO_GPU_SIMULAR=T4`` en el entorno, ``import curso_gpu`` la enciende; en una prueba,
``with simular_gpu("T4"):`` hace lo mismo. Mientras está encendida:

- ``torch.cuda`` responde como una Tesla T4 de Colab: disponible, 1 GPU, ``"Tesla T4"``,
  capacidad (7, 5), 40 multiprocesadores, 15095 MiB (``curso_gpu.base.GPUS_SIMULABLES``).
- Lo que pides en ``"cuda"`` (``device="cuda"``, ``.cuda()``, ``.to("cuda")``, ``modelo.to(dispositivo)``)
  vive en la CPU, aunque dice ``device='cuda:0'``. ``.cpu()`` da una copia, como en una GPU.
- ``torch.cuda.memory_allocated``, ``max_memory_allocated``, ``reset_peak_memory_stats`` y
  ``mem_get_info`` cuentan los bytes de los tensores que viven en la GPU simulada, también los
  gradientes y el estado del optimizador. No hay caché del asignador: reservada = asignada.
- Lo que no cabe en los 15095 MiB (o en ``set_per_process_memory_fraction``) lanza
  ``torch.OutOfMemoryError`` con el texto de CUDA: lo que se pide con ``device="cuda"`` o
  ``.to("cuda")`` se mira antes de reservarlo en la CPU. ``memory_summary`` dice lo que cuenta.
- No hay NCCL: ``torch.distributed.is_nccl_available()`` es False y DDP usa ``gloo``. Los hijos
  de un ``fork`` (los procesos de un ``DataLoader``) no la heredan, como no heredan CUDA.
- ``torch.compile`` usa el backend ``eager`` (no genera código) y Triton usa su intérprete.
- ``torch.autocast("cuda", torch.float16)`` calcula en fp16 en la CPU; bf16 no existe en una T4.
- Las descargas y ``bitsandbytes`` responden como sin red: ``HF_HUB_OFFLINE=1``.
- ``nvidia-smi`` (en Linux y macOS) responde como en una T4 de Colab: su tabla, con el driver y la
  «CUDA Version», y ``--query-gpu=…`` (``curso_gpu.base.DriverSimulado``). Vive en una carpeta
  temporal al principio del ``PATH`` mientras la simulación está encendida.

Se anuncia una vez, en español. **Ningún tiempo ni velocidad que veas sale de una GPU**: sirve
para comprobar que cada línea funciona, no para medir. Nunca se enciende sola: sin la variable, o
con una GPU de verdad, torch queda intacto.
"""

from __future__ import annotations

import contextlib
import functools
import os
import sys
import time
import weakref
from dataclasses import dataclass

import torch
from torch.multiprocessing.reductions import StorageWeakRef
from torch.overrides import TorchFunctionMode
from torch.utils._python_dispatch import TorchDispatchMode

from ..base import GPUS_SIMULABLES, formatear_bytes, mensaje_sin_memoria
from .nvidia_smi_simulado import NvidiaSmiSimulado

__all__ = [
    "AVISO_SIMULACION", "VARIABLE_SIMULAR", "activar_simulacion", "desactivar_simulacion",
    "dispositivo_simulado", "gpu_simulada", "simulacion_activa", "simular_gpu",
]

VARIABLE_SIMULAR = "CURSO_GPU_SIMULAR"
"""La variable de entorno que enciende la simulación al importar ``curso_gpu`` (``T4``)."""

AVISO_SIMULACION = (
    "GPU simulada ({variable}={clave}): torch.cuda responde como una {nombre}, pero todo se calcula "
    "en la CPU. Ningún tiempo ni velocidad que veas sale de una GPU."
)
"""El anuncio que se imprime una vez al encenderla."""


# ---------------------------------------------------------------------------
# La memoria de la GPU simulada: los almacenamientos (storages) que viven en ella
# ---------------------------------------------------------------------------

_expirado = torch.UntypedStorage._expired  # = StorageWeakRef.expired, sin sus dos llamadas en Python


class _Memoria:
    """Cuenta los bytes de los almacenamientos de la GPU simulada, como ``memory_allocated``."""

    def __init__(self, limite: int) -> None:
        self.vivos: dict[int, tuple[StorageWeakRef, int]] = {}  # _cdata → (referencia débil, bytes)
        self.cota = 0   # suma de lo anotado, vivo o ya liberado: una cota superior de lo asignado
        self.pico = 0
        self.limite = limite  # la memoria total, o la fracción de set_per_process_memory_fraction
        self.sin_memoria = None  # (pedido) → lanza torch.OutOfMemoryError; lo pone el simulador

    def contiene(self, tensor: torch.Tensor) -> bool:
        entrada = self.vivos.get(_almacen(tensor))  # sin almacenamiento (dispersos, meta...): None, no está
        return entrada is not None and not _expirado(entrada[0].cdata)

    def anotar(self, tensor: torch.Tensor) -> None:
        try:
            almacen = tensor.untyped_storage()
        except Exception:
            return
        clave = almacen._cdata
        entrada = self.vivos.get(clave)
        if entrada is not None and not _expirado(entrada[0].cdata):
            return
        bytes_ = almacen.nbytes()
        self.vivos[clave] = (StorageWeakRef(almacen), bytes_)
        self.cota += bytes_
        if self.cota > self.limite and self.asignada() > self.limite and self.sin_memoria is not None:
            # El resultado de una operación no cabe: como en la GPU, la reserva falla (aquí, después de
            # calcularlo en la CPU; lo que se pide con device="cuda" o .to("cuda") se mira antes).
            self.olvidar(tensor)
            self.sin_memoria(bytes_)
        if self.cota > self.pico:  # solo puede haber un pico nuevo si la cota lo supera
            self.pico = max(self.pico, self.asignada())

    def cabe(self, pedido: int) -> bool:
        """¿Caben ``pedido`` bytes más sin pasar del límite? (sin recorrer los vivos si la cota basta)."""
        return self.cota + pedido <= self.limite or self.asignada() + pedido <= self.limite

    def olvidar(self, tensor: torch.Tensor) -> None:
        entrada = self.vivos.pop(_almacen(tensor), None)
        if entrada is not None:
            self.cota -= entrada[1]

    def asignada(self) -> int:
        """Los bytes vivos ahora (y limpia los ya liberados)."""
        muertos = [c for c, (ref, _) in self.vivos.items() if _expirado(ref.cdata)]
        for clave in muertos:
            self.cota -= self.vivos.pop(clave)[1]
        return self.cota

    def reiniciar_pico(self) -> None:
        self.pico = self.asignada()


def _es_cuda(dispositivo) -> bool:
    if isinstance(dispositivo, torch.device):
        return dispositivo.type == "cuda"
    if isinstance(dispositivo, str):
        return dispositivo.strip().lower().split(":")[0] == "cuda"
    return False


_FABRICAS = ("empty", "zeros", "ones", "rand", "randn", "full")


def _bytes_de_fabrica(nombre: str, args, kwargs) -> int | None:
    """Los bytes que pide ``torch.empty/zeros/ones/rand/randn/full(forma, ...)``, o None si no lo sé."""
    if nombre not in _FABRICAS:
        return None
    forma = kwargs.get("size")
    if forma is None and args:
        forma = args[0] if nombre == "full" or not isinstance(args[0], int) else args
    try:
        elementos = 1
        for lado in forma:
            elementos *= int(lado)
        tipo = kwargs.get("dtype") or torch.get_default_dtype()
        return elementos * tipo.itemsize
    except (TypeError, ValueError, AttributeError):
        return None


# ---------------------------------------------------------------------------
# Los dos modos de torch: el de funciones (dispositivos) y el de despacho (memoria)
# ---------------------------------------------------------------------------

_CUDA0 = torch.device("cuda", 0)


class _ModoDispositivo(TorchFunctionMode):
    """Cambia ``device="cuda"`` por la CPU y anota en la GPU simulada lo que se creó allí."""

    def __init__(self, simulador: "_Simulador") -> None:
        super().__init__()
        self.simulador = simulador

    def __torch_function__(self, func, types, args=(), kwargs=None):
        nombre = getattr(func, "__name__", "")
        if nombre not in _ESPECIALES and not (kwargs and ("device" in kwargs or kwargs.get("pin_memory"))):
            return func(*args, **(kwargs or {}))  # casi todas: nada que cambiar (y es cada llamada a torch)
        kwargs = dict(kwargs or {})
        memoria = self.simulador.memoria
        a_la_gpu = False
        if "device" in kwargs and _es_cuda(kwargs["device"]):
            kwargs["device"] = "cpu"
            a_la_gpu = True
            pedido = _bytes_de_fabrica(nombre, args, kwargs)
            if pedido is not None:  # se mira ANTES de reservar: un pedido de 20 GB no toca la RAM
                self.simulador.reservar(pedido)
        if kwargs.get("pin_memory"):  # memoria fijada para copiar a la GPU (safetensors con device="cuda"): sin GPU no hay
            kwargs["pin_memory"] = False
        if nombre == "to" and args and isinstance(args[0], torch.Tensor):
            return self.simulador.mover(args[0], args[1:], kwargs, a_la_gpu)
        if nombre == "cuda" and args and isinstance(args[0], torch.Tensor):
            return self.simulador.a_la_gpu(args[0], kwargs.get("non_blocking", False))
        if nombre == "cpu" and args and isinstance(args[0], torch.Tensor):
            return self.simulador.a_la_cpu(args[0])
        if nombre == "pin_memory":
            return args[0]
        if nombre == "record_stream":
            return None
        resultado = func(*args, **kwargs)
        if a_la_gpu:
            for tensor in _tensores_de((resultado,)):
                memoria.anotar(tensor)
        return resultado


_ESPECIALES = frozenset({"to", "cuda", "cpu", "pin_memory", "record_stream"})  # las que __torch_function__ cambia


def _anotar_resultados(modo: "_ModoMemoria", func, types, args=(), kwargs=None):
    resultado = func(*args, **kwargs) if kwargs else func(*args)
    memoria = modo.simulador.memoria
    if not memoria.vivos or modo.simulador.copiando:
        return resultado
    entradas = _tensores_de(args)
    if kwargs:
        entradas += _tensores_de(kwargs.values())
    en_gpu = [memoria.contiene(t) for t in entradas]
    if any(en_gpu):
        # Una operación que escribe en su entrada (cpu.copy_(gpu), lo que hace load_state_dict) deja el
        # destino donde estaba, como en una GPU: no se anota lo que comparte memoria con una entrada de la CPU.
        en_cpu = {_almacen(t) for t, gpu in zip(entradas, en_gpu) if not gpu}
        for tensor in _tensores_de((resultado,)):
            if _almacen(tensor) not in en_cpu:
                memoria.anotar(tensor)
    return resultado


def _tensores_de(valores) -> list:
    """Los tensores de ``valores`` (los argumentos de una operación), también dentro de listas y tuplas."""
    encontrados = []
    for valor in valores:
        if isinstance(valor, torch.Tensor):
            encontrados.append(valor)
        elif isinstance(valor, (list, tuple)):
            encontrados.extend(v for v in valor if isinstance(v, torch.Tensor))
    return encontrados


def _almacen(tensor: torch.Tensor):
    """El almacenamiento (``_cdata``) de ``tensor``, o None si no tiene (dispersos, meta...)."""
    try:
        return tensor.untyped_storage()._cdata
    except Exception:
        return None


class _ModoMemoria(TorchDispatchMode):
    """Anota en la GPU simulada el resultado de toda operación con una entrada que vive allí."""

    def __init__(self, simulador: "_Simulador") -> None:
        super().__init__()
        self.simulador = simulador

    __torch_dispatch__ = _anotar_resultados


# torch envuelve el ``__torch_dispatch__`` de cada modo con ``torch._disable_dynamo``: importaría
# ``torch._dynamo`` en la primera operación (3–6 s de CPU en una lección que no compila nada) y
# pasaría cada operación por su envoltura. Se quita tras ``__init_subclass__``; quien compila
# (``compile_eager``) pone la versión invisible para dynamo.
_ModoMemoria.__torch_dispatch__ = _anotar_resultados


# ---------------------------------------------------------------------------
# Las respuestas de torch.cuda
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class _Propiedades:
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


class _Evento:
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

    def elapsed_time(self, fin: "_Evento") -> float:
        if not (self.enable_timing and fin.enable_timing):
            raise RuntimeError("Both events must be created with argument 'enable_timing=True'.")
        if self.instante is None or fin.instante is None:
            raise RuntimeError("Both events must be recorded before calculating elapsed time.")
        return (fin.instante - self.instante) * 1000.0


class _Flujo:
    """``torch.cuda.Stream`` en la GPU simulada: todo ocurre en orden, en la CPU."""

    def __init__(self, device=None, priority: int = 0, **_kwargs) -> None:
        self.device = _CUDA0

    def synchronize(self) -> None:
        return None

    def wait_stream(self, otro) -> None:
        return None

    def wait_event(self, evento) -> None:
        return None

    def record_event(self, evento=None):
        evento = evento or _Evento()
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


def _comprobar_indice(dispositivo=None) -> int:
    if dispositivo is None:
        return 0
    if isinstance(dispositivo, str):
        dispositivo = torch.device(dispositivo)
    indice = dispositivo.index if isinstance(dispositivo, torch.device) else int(dispositivo)
    if indice not in (None, 0):
        raise RuntimeError("CUDA error: invalid device ordinal (la GPU simulada es una sola: cuda:0)")
    return 0


# ---------------------------------------------------------------------------
# El simulador: guarda lo que cambia en torch y lo devuelve al apagarse
# ---------------------------------------------------------------------------

class _Simulador:
    def __init__(self, clave: str) -> None:
        self.perfil = GPUS_SIMULABLES[clave]
        self.memoria = _Memoria(self.perfil.memoria_total_bytes)
        self.memoria.sin_memoria = self.sin_memoria
        self.fraccion: float | None = None  # la de set_per_process_memory_fraction, si se puso
        self.copiando = False
        self.originales: list[tuple[object, str, object]] = []
        self.modos: list = []
        self.entorno: dict[str, str | None] = {}
        self.nvidia_smi = NvidiaSmiSimulado()

    # --- la memoria que cabe ----------------------------------------------------------------
    def reservar(self, pedido: int) -> None:
        """Si ``pedido`` bytes no caben, ``torch.OutOfMemoryError`` con el texto de CUDA."""
        if not self.memoria.cabe(pedido):
            self.sin_memoria(pedido)

    def sin_memoria(self, pedido: int) -> None:
        total, asignada = self.perfil.memoria_total_bytes, self.memoria.asignada()
        raise torch.OutOfMemoryError(mensaje_sin_memoria(
            pedido=pedido, total=total, libre=total - asignada, asignada=asignada, reservada=asignada,
            permitida=self.memoria.limite if self.fraccion is not None else None))

    def poner_fraccion(self, fraction, device=None) -> None:
        """``torch.cuda.set_per_process_memory_fraction``: el límite de este proceso (como en torch)."""
        _comprobar_indice(device)
        if not isinstance(fraction, float):
            raise TypeError("Invalid type for fraction argument, must be `float`")
        if fraction < 0 or fraction > 1:
            raise ValueError(f"Invalid fraction value: {fraction}. Allowed range: 0~1")
        self.fraccion = fraction
        self.memoria.limite = int(fraction * self.perfil.memoria_total_bytes)

    def resumen(self, device=None, abbreviated: bool = False) -> str:
        """``torch.cuda.memory_summary`` en la GPU simulada: solo lo que cuenta (no hay asignador de CUDA)."""
        _comprobar_indice(device)
        asignada = self.memoria.asignada()
        return (f"Memoria de la GPU simulada ({self.perfil.nombre}): asignada {formatear_bytes(asignada)}, "
                f"pico {formatear_bytes(max(self.memoria.pico, asignada))}, reservada = asignada (no hay caché "
                "del asignador). El informe del asignador de CUDA (segmentos, fragmentación) solo sale en una GPU real.")

    # --- mover tensores -------------------------------------------------------------------
    def a_la_gpu(self, tensor: torch.Tensor, non_blocking: bool = False) -> torch.Tensor:
        if self.memoria.contiene(tensor):
            return tensor
        try:
            pedido = tensor.untyped_storage().nbytes()
        except Exception:  # tensores sin almacenamiento (dispersos, meta...)
            pedido = 0
        self.reservar(pedido)  # antes de copiar, como cudaMalloc
        with self.sin_anotar():
            copia = torch.Tensor.clone(tensor)
        self.memoria.anotar(copia)
        return copia

    def a_la_cpu(self, tensor: torch.Tensor) -> torch.Tensor:
        if not self.memoria.contiene(tensor):
            return tensor
        with self.sin_anotar():
            return torch.Tensor.clone(tensor)

    def mover(self, tensor: torch.Tensor, args, kwargs, a_la_gpu: bool) -> torch.Tensor:
        """``tensor.to(...)``, con sus tres formas: ``(device, dtype, …)``, ``(dtype, …)`` y ``(otro, …)``."""
        resto = list(args)
        destino = kwargs.pop("device", None)
        tipo = kwargs.pop("dtype", None)
        if resto and isinstance(resto[0], torch.Tensor):
            otro = resto.pop(0)
            destino = _CUDA0 if self.memoria.contiene(otro) else otro.device
            tipo = otro.dtype
        elif resto and isinstance(resto[0], torch.dtype):
            tipo = resto.pop(0)
        elif resto and (resto[0] is None or isinstance(resto[0], (str, torch.device, int))):
            destino = resto.pop(0)
            if resto and (resto[0] is None or isinstance(resto[0], torch.dtype)):
                tipo = resto.pop(0)
        non_blocking = kwargs.pop("non_blocking", resto.pop(0) if resto else False)
        copiar = bool(kwargs.pop("copy", resto.pop(0) if resto else False))
        if a_la_gpu:
            destino = "cuda"
        if isinstance(destino, int) and not isinstance(destino, bool):
            destino = torch.device("cuda", destino)
        if destino is not None:
            destino = torch.device(destino)  # un destino que no existe da el error de torch
        opciones = dict(kwargs, dtype=tipo, non_blocking=bool(non_blocking))
        if destino is not None and destino.type == "cuda":
            _comprobar_indice(destino)
            base = self.a_la_gpu(tensor)
            nuevo = torch._C.TensorBase.to(base, copy=copiar and base is tensor, **opciones)
            if nuevo is not base:
                self.memoria.anotar(nuevo)
            return nuevo
        if destino is not None:
            base = self.a_la_cpu(tensor)
            with self.sin_anotar():
                return torch._C.TensorBase.to(base, destino, copy=copiar and base is tensor, **opciones)
        return torch._C.TensorBase.to(tensor, copy=copiar, **opciones)

    @contextlib.contextmanager
    def sin_anotar(self):
        anterior, self.copiando = self.copiando, True
        try:
            yield
        finally:
            self.copiando = anterior

    # --- cambiar y restaurar ----------------------------------------------------------------
    def poner(self, objeto, nombre: str, valor) -> None:
        self.originales.append((objeto, nombre, objeto.__dict__.get(nombre, _FALTA) if isinstance(objeto, type)
                                else getattr(objeto, nombre, _FALTA)))
        setattr(objeto, nombre, valor)

    def encender(self) -> None:
        perfil, memoria = self.perfil, self.memoria
        cuda = torch.cuda
        propiedades = _Propiedades(perfil.nombre, *perfil.capacidad_computo, perfil.memoria_total_bytes,
                                   perfil.multiprocesadores, perfil.cache_l2_bytes)

        def con_indice(valor):
            def funcion(device=None, *args, **kwargs):
                _comprobar_indice(device)
                return valor() if callable(valor) else valor
            return funcion

        respuestas = {
            "is_available": lambda: True,
            "device_count": lambda: 1,
            "current_device": lambda: 0,
            "set_device": lambda device: _comprobar_indice(device) and None,
            "_lazy_init": lambda: None,
            "init": lambda: None,
            "synchronize": con_indice(None),
            "get_device_name": con_indice(perfil.nombre),
            "get_device_capability": con_indice(perfil.capacidad_computo),
            "get_device_properties": con_indice(propiedades),
            "get_arch_list": lambda: [f"sm_{perfil.capacidad_computo[0]}{perfil.capacidad_computo[1]}"],
            "is_bf16_supported": _bf16_soportado(perfil.capacidad_computo),
            "memory_allocated": con_indice(memoria.asignada),
            "max_memory_allocated": con_indice(lambda: max(memoria.pico, memoria.asignada())),
            "memory_reserved": con_indice(memoria.asignada),
            "max_memory_reserved": con_indice(lambda: max(memoria.pico, memoria.asignada())),
            "reset_peak_memory_stats": con_indice(memoria.reiniciar_pico),
            "reset_max_memory_allocated": con_indice(memoria.reiniciar_pico),
            "reset_accumulated_memory_stats": con_indice(None),
            "set_per_process_memory_fraction": self.poner_fraccion,
            "get_per_process_memory_fraction": con_indice(lambda: 1.0 if self.fraccion is None else self.fraccion),
            "memory_summary": self.resumen,
            "empty_cache": lambda: None,
            "mem_get_info": con_indice(lambda: (perfil.memoria_total_bytes - memoria.asignada(),
                                                perfil.memoria_total_bytes)),
            "memory_stats": con_indice(lambda: {
                "allocated_bytes.all.current": memoria.asignada(),
                "allocated_bytes.all.peak": max(memoria.pico, memoria.asignada()),
                "reserved_bytes.all.current": memoria.asignada(),
                "reserved_bytes.all.peak": max(memoria.pico, memoria.asignada()),
            }),
            # el generador de la GPU simulada es el de la CPU: torch.manual_seed ya lo siembra
            "get_rng_state": lambda device="cuda": _ESTADO_RNG.clone(),
            "set_rng_state": lambda estado, device="cuda": None,
            "get_rng_state_all": lambda: [_ESTADO_RNG.clone()],
            "set_rng_state_all": lambda estados: None,
            "initial_seed": lambda: torch.initial_seed(),
            "manual_seed": lambda seed: None,
            "manual_seed_all": lambda seed: None,
            "seed": lambda: None,
            "seed_all": lambda: None,
            "Event": _Evento,
            "Stream": _Flujo,
            "current_stream": lambda device=None: _Flujo(),
            "default_stream": lambda device=None: _Flujo(),
            "stream": lambda flujo=None: contextlib.nullcontext(),
            "is_current_stream_capturing": lambda: False,
        }
        for nombre, valor in respuestas.items():
            self.poner(cuda, nombre, valor)
        for nombre in ("set_per_process_memory_fraction", "get_per_process_memory_fraction", "memory_summary"):
            if hasattr(cuda.memory, nombre):  # también en torch.cuda.memory, de donde los importa torch.cuda
                self.poner(cuda.memory, nombre, respuestas[nombre])
        # Sin NCCL: la GPU simulada no comunica con otras; torch.distributed usa gloo (lección 08).
        distribuido = getattr(torch, "distributed", None)
        if distribuido is not None and hasattr(distribuido, "is_nccl_available"):
            self.poner(distribuido, "is_nccl_available", lambda: False)
        # torch.accelerator (lo usa el DataLoader con pin_memory=True) ve la misma GPU
        acelerador = getattr(torch, "accelerator", None)
        if acelerador is not None:
            for nombre, valor in {
                "is_available": lambda: True,
                "current_accelerator": lambda check_available=False: torch.device("cuda"),
                "device_count": lambda: 1,
                "current_device_index": lambda: 0,
                "set_device_index": lambda device: None,
                "synchronize": lambda device=None: None,
                "current_stream": lambda device=None: _Flujo(),
            }.items():
                if hasattr(acelerador, nombre):
                    self.poner(acelerador, nombre, valor)

        simulador = self

        def propiedad_device(tensor):
            return _CUDA0 if memoria.contiene(tensor) else _DEVICE_ORIGINAL.__get__(tensor)

        def propiedad_is_cuda(tensor):
            return memoria.contiene(tensor)

        def propiedad_is_cpu(tensor):
            return _IS_CPU_ORIGINAL.__get__(tensor) and not memoria.contiene(tensor)

        def get_device(tensor):
            return 0 if memoria.contiene(tensor) else _GET_DEVICE_ORIGINAL(tensor)

        self.poner(torch.Tensor, "device", property(propiedad_device))
        self.poner(torch.Tensor, "is_cuda", property(propiedad_is_cuda))
        self.poner(torch.Tensor, "is_cpu", property(propiedad_is_cpu))
        self.poner(torch.Tensor, "get_device", get_device)
        # fijar memoria (DataLoader con pin_memory=True, también en su hilo): no hace falta en la CPU
        self.poner(torch.Tensor, "pin_memory", lambda tensor, *args, **kwargs: tensor)
        self.poner(torch.Tensor, "is_pinned", lambda tensor, *args, **kwargs: False)

        compilar = torch.compile

        @functools.wraps(compilar)
        def compile_eager(model=None, *args, **kwargs):
            kwargs.pop("mode", None)
            kwargs.pop("options", None)
            # Con el modo de despacho de la memoria activo, dynamo no compila ningún marco («non-infra torch
            # dispatch mode present») y fullgraph=True fallaría siempre: sin él, el código corre tal cual.
            kwargs.pop("fullgraph", None)
            kwargs["backend"] = "eager"  # inductor pide a torch.cuda cosas que solo tiene una GPU
            # Quien compila ya importa torch._dynamo: desde ahora el modo de memoria es invisible para
            # dynamo (si no, la compilaba una vez por operación, hasta su límite de 8, y lo avisaba en stderr).
            import torch._dynamo

            _ModoMemoria.__torch_dispatch__ = torch._dynamo.disable(_anotar_resultados, recursive=True)
            return compilar(model, *args, **kwargs)

        self.poner(torch, "compile", compile_eager)

        cargar = torch.load

        @functools.wraps(cargar)
        def load(*args, **kwargs):
            destino = kwargs.get("map_location")
            if _es_cuda(destino):
                kwargs["map_location"] = "cpu"
            resultado = cargar(*args, **kwargs)
            if _es_cuda(destino):
                _anotar_todo(resultado, memoria)
            return resultado

        self.poner(torch, "load", load)

        clase_autocast = torch.amp.autocast_mode.autocast
        init_autocast = clase_autocast.__init__

        @functools.wraps(init_autocast)
        def init(instancia, device_type, *args, **kwargs):
            if device_type == "cuda":  # en la CPU, con el mismo tipo de dato: fp16 calcula en fp16
                args = list(args)
                tipo = kwargs.get("dtype", args[0] if args else None) or torch.float16
                device_type = "cpu"
                if args:
                    args[0] = tipo
                else:
                    kwargs["dtype"] = tipo
            init_autocast(instancia, device_type, *args, **kwargs)

        self.poner(clase_autocast, "__init__", init)

        for variable, valor in (("HF_HUB_OFFLINE", "1"), ("TRANSFORMERS_OFFLINE", "1")):
            self.entorno[variable] = os.environ.get(variable)
            os.environ[variable] = valor
        if "triton" not in sys.modules and "TRITON_INTERPRET" not in os.environ:
            self.entorno["TRITON_INTERPRET"] = None
            os.environ["TRITON_INTERPRET"] = "1"  # sin GPU, los kernels solo corren en el intérprete
        self.nvidia_smi.poner(self.perfil, origen=f"{VARIABLE_SIMULAR}={self.perfil.clave}")

        self.modos = [_ModoDispositivo(simulador), _ModoMemoria(simulador)]
        for modo in self.modos:
            modo.__enter__()

    def apagar(self) -> None:
        for modo in reversed(self.modos):
            modo.__exit__(None, None, None)
        self.modos = []
        for objeto, nombre, valor in reversed(self.originales):
            if valor is _FALTA:
                with contextlib.suppress(AttributeError):
                    delattr(objeto, nombre)
            else:
                setattr(objeto, nombre, valor)
        self.originales = []
        for variable, valor in self.entorno.items():
            if valor is None:
                os.environ.pop(variable, None)
            else:
                os.environ[variable] = valor
        self.entorno = {}
        self.nvidia_smi.quitar()


_FALTA = object()
_ESTADO_RNG = torch.zeros(16, dtype=torch.uint8)  # lo que guarda y devuelve torch.compile; nadie lo lee
_DEVICE_ORIGINAL = torch._C.TensorBase.device
_IS_CPU_ORIGINAL = torch._C.TensorBase.is_cpu
_GET_DEVICE_ORIGINAL = torch._C.TensorBase.get_device


def _bf16_soportado(capacidad: tuple[int, int]):
    """``torch.cuda.is_bf16_supported`` como en esa GPU: por debajo de 8.0, solo emulado."""
    def is_bf16_supported(including_emulation: bool = True) -> bool:
        return capacidad >= (8, 0) or bool(including_emulation)
    return is_bf16_supported


def _anotar_todo(valor, memoria: _Memoria) -> None:
    if isinstance(valor, torch.Tensor):
        memoria.anotar(valor)
    elif isinstance(valor, dict):
        for v in valor.values():
            _anotar_todo(v, memoria)
    elif isinstance(valor, (list, tuple)):
        for v in valor:
            _anotar_todo(v, memoria)


_ACTIVO: _Simulador | None = None


def _gpu_visible() -> bool:
    """¿Deja ``CUDA_VISIBLE_DEVICES`` ver la GPU 0? Vacía (o ``-1``) la esconde, como a una de verdad:
    así corren en la CPU los procesos de torchrun de la lección 08."""
    visibles = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visibles is None:
        return True
    primera = visibles.split(",")[0].strip()
    return primera == "0" or primera.startswith("GPU-")


def _hay_gpu_de_verdad() -> bool:
    try:
        return bool(torch.cuda.is_available())
    except Exception:
        return False


def _apagar_en_el_hijo() -> None:
    """Tras un ``fork`` (los procesos de un ``DataLoader`` con ``num_workers``), el hijo sin GPU simulada.

    En CUDA un proceso hijo de un ``fork`` tampoco puede usar la GPU («Cannot re-initialize CUDA
    in forked subprocess»): prepara lotes en la CPU y el padre los copia. Así el hijo calcula a la
    velocidad de la CPU, sin pasar cada operación por los modos de la simulación.
    """
    global _ACTIVO
    if _ACTIVO is not None:
        simulador, _ACTIVO = _ACTIVO, None
        simulador.apagar()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_apagar_en_el_hijo)


def activar_simulacion(clave: str = "T4", anunciar: bool = True) -> bool:
    """Enciende la GPU simulada ``clave`` (``"T4"``). Devuelve True si quedó encendida.

    Con una GPU de verdad no hace nada (devuelve False): torch queda intacto. Si ya estaba
    encendida, no cambia nada. Se anuncia una vez (``anunciar``). Para notebooks: la enciende
    ``CURSO_GPU_SIMULAR=T4`` al importar ``curso_gpu``.
    """
    global _ACTIVO
    texto = str(clave).strip().upper()
    if texto not in GPUS_SIMULABLES:
        raise ValueError(f"no sé simular la GPU {clave!r}; usa una de: {', '.join(GPUS_SIMULABLES)} "
                         f"(por ejemplo {VARIABLE_SIMULAR}=T4)")
    if _ACTIVO is not None:
        return True
    if _hay_gpu_de_verdad():
        if anunciar:
            print(f"{VARIABLE_SIMULAR}={texto}: esta máquina tiene una GPU de verdad; no se simula nada.")
        return False
    if not _gpu_visible():  # como una GPU de verdad escondida: torch.cuda no la ve
        return False
    simulador = _Simulador(texto)
    simulador.encender()
    _ACTIVO = simulador
    if anunciar:
        perfil = simulador.perfil
        print(AVISO_SIMULACION.format(variable=VARIABLE_SIMULAR, clave=texto, nombre=perfil.nombre))
    return True


def desactivar_simulacion() -> None:
    """Apaga la GPU simulada y deja torch como estaba (no hace nada si estaba apagada)."""
    global _ACTIVO
    if _ACTIVO is not None:
        simulador, _ACTIVO = _ACTIVO, None
        simulador.apagar()


def simulacion_activa() -> bool:
    """¿Está encendida la GPU simulada? Las lecciones lo usan para elegir tamaños y decirlo."""
    return _ACTIVO is not None


def dispositivo_simulado(dispositivo) -> bool:
    """¿Es ``dispositivo`` la GPU simulada? Lo que se mide en él se calculó en la CPU. Lección 03."""
    try:
        return _ACTIVO is not None and torch.device(dispositivo).type == "cuda"
    except (TypeError, RuntimeError):
        return False


def gpu_simulada():
    """El ``PerfilGPU`` de la GPU simulada, o None si no hay simulación."""
    return _ACTIVO.perfil if _ACTIVO is not None else None


@contextlib.contextmanager
def simular_gpu(clave: str = "T4", anunciar: bool = False):
    """``with simular_gpu("T4"):`` — la GPU simulada solo dentro del bloque (para pruebas)."""
    ya_estaba = simulacion_activa()
    activar_simulacion(clave, anunciar=anunciar)
    try:
        yield gpu_simulada()
    finally:
        if not ya_estaba:
            desactivar_simulacion()
