"""El simulador: mueve tensores entre la CPU y la GPU simulada, cuenta su memoria, enciende y apaga."""

from __future__ import annotations

import contextlib

import torch

from ...base import GPUS_SIMULABLES, SINCRONIZACION, formatear_bytes, mensaje_sin_memoria
from ..nvidia_smi_simulado import NvidiaSmiSimulado
from .memoria import CUDA0, Memoria
from .modos import ModoDispositivo, ModoMemoria
from .parches import (
    Registro, parchear_autocast, parchear_carga, parchear_compilar, parchear_hilos, parchear_tensor, poner_entorno,
)
from .respuestas import Aleatorio, comprobar_indice, respuestas_acelerador, respuestas_cuda

__all__ = ["Simulador"]

_EN_TORCH_CUDA_MEMORY = ("set_per_process_memory_fraction", "get_per_process_memory_fraction", "memory_summary")


class Simulador:
    """La GPU simulada ``clave`` (``"T4"``): su memoria, sus respuestas y lo que cambia en torch."""

    def __init__(self, clave: str) -> None:
        self.perfil = GPUS_SIMULABLES[clave]
        self.contexto = self.perfil.contexto_cuda_bytes
        self.memoria = Memoria(self.perfil.memoria_total_bytes - self.contexto)
        self.memoria.sin_memoria = self.sin_memoria
        self.memoria.al_cambiar = self.al_cambiar_reservada
        self.iniciada = False  # ¿se creó ya el contexto de CUDA? (al primer uso de la GPU)
        self.fraccion: float | None = None  # la de set_per_process_memory_fraction, si se puso
        self.copiando = False
        self.registro = Registro()
        self.modos: list = []
        self.nvidia_smi = NvidiaSmiSimulado()
        self.aleatorio = Aleatorio()  # el generador de la GPU, aparte del de la CPU
        self.esperas = 0  # cuántas veces ha esperado la CPU a la GPU (terminan los eventos grabados antes)
        self.autocast_cuda: list[bool] = []  # los bloques torch.autocast("cuda") abiertos (True: activo)
        self.modo_esperas = 0  # el de torch.cuda.set_sync_debug_mode: 0, 1 (avisar) o 2 (error)

    # --- las esperas de la CPU ----------------------------------------------------------------
    def esperar(self, implicita: bool = True) -> None:
        """La CPU espera a la GPU. ``implicita``: la pide una operación (``.item()``, una copia sin
        ``non_blocking``), no ``torch.cuda.synchronize()``; con ``set_sync_debug_mode`` avisa o lanza."""
        if implicita and self.modo_esperas:
            if self.modo_esperas == 2:
                raise RuntimeError(SINCRONIZACION)
            import warnings

            warnings.warn(SINCRONIZACION, UserWarning, stacklevel=4)
        self.esperas += 1

    def poner_modo_de_esperas(self, debug_mode) -> None:
        """``torch.cuda.set_sync_debug_mode``, con los mismos valores y el mismo error que en torch."""
        if isinstance(debug_mode, str):
            valores = {"default": 0, "warn": 1, "error": 2}
            if debug_mode not in valores:
                raise RuntimeError("invalid value of debug_mode, expected one of `default`, `warn`, `error`")
            debug_mode = valores[debug_mode]
        self.modo_esperas = int(debug_mode)

    # --- la memoria que cabe ----------------------------------------------------------------
    def reservar(self, pedido: int) -> None:
        """Si ``pedido`` bytes no caben, ``torch.OutOfMemoryError`` con el texto de CUDA."""
        if not self.memoria.cabe(pedido):
            self.sin_memoria(pedido)

    def sin_memoria(self, pedido: int) -> None:
        """``torch.OutOfMemoryError`` con el texto de CUDA en la forma de Colab («Process N has …»)."""
        import os

        total, asignada, reservada = self.perfil.memoria_total_bytes, self.memoria.asignada(), self.memoria.reservada
        raise torch.OutOfMemoryError(mensaje_sin_memoria(
            pedido=pedido, total=total, libre=self.libre(), asignada=asignada, reservada=reservada,
            permitida=self.memoria.limite if self.fraccion is not None else None, proceso=os.getpid()))

    def libre(self) -> int:
        """La memoria libre según CUDA (``mem_get_info``): la total menos el contexto y lo reservado."""
        self.iniciar()
        return self.perfil.memoria_total_bytes - self.contexto - self.memoria.reservada

    def iniciar(self) -> None:
        """El primer uso de la GPU crea el contexto de CUDA: desde ahí ``nvidia-smi`` lo cuenta como usado."""
        if not self.iniciada:
            self.iniciada = True
            self.al_cambiar_reservada()

    def al_cambiar_reservada(self) -> None:
        """Lo reservado cambió: el ``nvidia-smi`` simulado dice la memoria usada de ahora."""
        self.iniciada = True
        self.nvidia_smi.usar((self.contexto + self.memoria.reservada) // 2**20)

    def poner_fraccion(self, fraction, device=None) -> None:
        """``torch.cuda.set_per_process_memory_fraction``: el límite de este proceso (como en torch)."""
        comprobar_indice(device)
        if not isinstance(fraction, float):
            raise TypeError("Invalid type for fraction argument, must be `float`")
        if fraction < 0 or fraction > 1:
            raise ValueError(f"Invalid fraction value: {fraction}. Allowed range: 0~1")
        self.fraccion = fraction
        self.memoria.limite = min(int(fraction * self.perfil.memoria_total_bytes),
                                  self.perfil.memoria_total_bytes - self.contexto)

    def resumen(self, device=None, abbreviated: bool = False) -> str:
        """``torch.cuda.memory_summary`` en la GPU simulada: solo lo que cuenta (no hay asignador de CUDA)."""
        comprobar_indice(device)
        asignada, memoria = self.memoria.asignada(), self.memoria
        return (f"Memoria de la GPU simulada ({self.perfil.nombre}): asignada {formatear_bytes(asignada)}, "
                f"pico {formatear_bytes(max(memoria.pico, asignada))}; reservada {formatear_bytes(memoria.reservada)} "
                f"en {len(memoria.segmentos)} segmentos (pico {formatear_bytes(memoria.pico_reservada)}); contexto de "
                f"CUDA {formatear_bytes(self.contexto)}. El informe completo del asignador de CUDA (bloques, "
                "fragmentación) solo sale en una GPU real.")

    # --- mover tensores -------------------------------------------------------------------
    def a_la_gpu(self, tensor: torch.Tensor, non_blocking: bool = False) -> torch.Tensor:
        if self.memoria.contiene(tensor):
            return tensor
        if not non_blocking:  # de la CPU a la GPU sin non_blocking: memcpy_and_sync
            self.esperar()
        try:
            pedido = tensor.untyped_storage().nbytes()
        except Exception:  # tensores sin almacenamiento (dispersos, meta...)
            pedido = 0
        self.reservar(pedido)  # antes de copiar, como cudaMalloc
        with self.sin_anotar():
            copia = torch.Tensor.clone(tensor)
        self.memoria.anotar(copia)
        return copia

    def a_la_cpu(self, tensor: torch.Tensor, non_blocking: bool = False) -> torch.Tensor:
        if not self.memoria.contiene(tensor):
            return tensor
        if not non_blocking:
            self.esperar()
        with self.sin_anotar():
            return torch.Tensor.clone(tensor)

    def mover(self, tensor: torch.Tensor, args, kwargs, a_la_gpu: bool) -> torch.Tensor:
        """``tensor.to(...)``, con sus tres formas: ``(device, dtype, …)``, ``(dtype, …)`` y ``(otro, …)``."""
        resto = list(args)
        destino = kwargs.pop("device", None)
        tipo = kwargs.pop("dtype", None)
        if resto and isinstance(resto[0], torch.Tensor):
            otro = resto.pop(0)
            destino = CUDA0 if self.memoria.contiene(otro) else otro.device
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
            comprobar_indice(destino)
            base = self.a_la_gpu(tensor, bool(non_blocking))
            nuevo = torch._C.TensorBase.to(base, copy=copiar and base is tensor, **opciones)
            if nuevo is not base:
                self.memoria.anotar(nuevo)
            return nuevo
        if destino is not None:
            base = self.a_la_cpu(tensor, bool(non_blocking))
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

    # --- encender y apagar ------------------------------------------------------------------
    def _responder(self) -> None:
        """``torch.cuda``, ``torch.accelerator`` y ``torch.distributed`` responden como la GPU simulada."""
        registro = self.registro
        respuestas = respuestas_cuda(self)
        registro.poner_todos(torch.cuda, respuestas)
        # también en torch.cuda.memory, de donde los importa torch.cuda
        registro.poner_todos(torch.cuda.memory, {n: respuestas[n] for n in _EN_TORCH_CUDA_MEMORY}, solo_si_existe=True)
        # Sin NCCL: la GPU simulada no comunica con otras; torch.distributed usa gloo (lección 08).
        distribuido = getattr(torch, "distributed", None)
        if distribuido is not None:
            registro.poner_todos(distribuido, {"is_nccl_available": lambda: False}, solo_si_existe=True)
        acelerador = getattr(torch, "accelerator", None)
        if acelerador is not None:
            registro.poner_todos(acelerador, respuestas_acelerador(self), solo_si_existe=True)

    def encender(self, origen: str) -> None:
        """Cambia torch para que la GPU simulada responda; ``origen`` dice quién la pidió (``CURSO_GPU_SIMULAR=T4``)."""
        self._responder()
        parchear_tensor(self.registro, self.memoria)
        parchear_compilar(self.registro)
        parchear_carga(self.registro, self.memoria)
        parchear_autocast(self.registro, self)
        parchear_hilos(self.registro, self.crear_modos)
        poner_entorno(self.registro)
        self.nvidia_smi.poner(self.perfil, origen=origen)
        self.modos = self.crear_modos()
        for modo in self.modos:
            modo.__enter__()

    def tensores_vivos(self) -> int:
        """Cuántos almacenamientos siguen vivos en la GPU simulada (tras recoger la basura)."""
        self.memoria.asignada()
        if self.memoria.vivos:
            import gc

            gc.collect()
            self.memoria.asignada()
        return len(self.memoria.vivos)

    def crear_modos(self) -> list:
        """Los dos modos de torch de la GPU simulada (cada hilo entra en los suyos)."""
        return [ModoDispositivo(self), ModoMemoria(self)]

    def apagar(self) -> None:
        """Deja torch, el entorno y el PATH como estaban."""
        import atexit

        for modo in reversed(self.modos):
            modo.__exit__(None, None, None)
        self.modos = []
        self.registro.restaurar()
        atexit.unregister(self.nvidia_smi.quitar)
        self.nvidia_smi.quitar()
