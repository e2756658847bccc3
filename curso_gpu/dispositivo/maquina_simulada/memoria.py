"""La memoria de la GPU simulada: los almacenamientos (storages) que viven en ella."""

from __future__ import annotations

import torch
from torch.multiprocessing.reductions import StorageWeakRef

__all__ = ["CUDA0", "Memoria", "almacen", "anotar_todo", "bytes_de_fabrica", "es_cuda", "tensores_de"]

CUDA0 = torch.device("cuda", 0)
"""El único dispositivo de la GPU simulada."""

_expirado = torch.UntypedStorage._expired  # = StorageWeakRef.expired, sin sus dos llamadas en Python


def almacen(tensor: torch.Tensor):
    """El almacenamiento (``_cdata``) de ``tensor``, o None si no tiene (dispersos, meta...)."""
    try:
        return tensor.untyped_storage()._cdata
    except Exception:
        return None


def tensores_de(valores) -> list:
    """Los tensores de ``valores`` (los argumentos de una operación), también dentro de listas y tuplas."""
    encontrados = []
    for valor in valores:
        if isinstance(valor, torch.Tensor):
            encontrados.append(valor)
        elif isinstance(valor, (list, tuple)):
            encontrados.extend(v for v in valor if isinstance(v, torch.Tensor))
    return encontrados


class Memoria:
    """Cuenta los bytes de los almacenamientos de la GPU simulada, como ``memory_allocated``."""

    def __init__(self, limite: int) -> None:
        self.vivos: dict[int, tuple[StorageWeakRef, int]] = {}  # _cdata → (referencia débil, bytes)
        self.cota = 0   # suma de lo anotado, vivo o ya liberado: una cota superior de lo asignado
        self.pico = 0
        self.limite = limite  # la memoria total, o la fracción de set_per_process_memory_fraction
        self.sin_memoria = None  # (pedido) → lanza torch.OutOfMemoryError; lo pone el simulador

    def contiene(self, tensor: torch.Tensor) -> bool:
        entrada = self.vivos.get(almacen(tensor))  # sin almacenamiento (dispersos, meta...): None, no está
        return entrada is not None and not _expirado(entrada[0].cdata)

    def anotar(self, tensor: torch.Tensor) -> None:
        try:
            guardado = tensor.untyped_storage()
        except Exception:
            return
        clave = guardado._cdata
        entrada = self.vivos.get(clave)
        if entrada is not None and not _expirado(entrada[0].cdata):
            return
        bytes_ = guardado.nbytes()
        self.vivos[clave] = (StorageWeakRef(guardado), bytes_)
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
        entrada = self.vivos.pop(almacen(tensor), None)
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


def es_cuda(dispositivo) -> bool:
    """¿Nombra ``dispositivo`` (un ``torch.device`` o un texto) la GPU?"""
    if isinstance(dispositivo, torch.device):
        return dispositivo.type == "cuda"
    if isinstance(dispositivo, str):
        return dispositivo.strip().lower().split(":")[0] == "cuda"
    return False


_FABRICAS = ("empty", "zeros", "ones", "rand", "randn", "full")


def bytes_de_fabrica(nombre: str, args, kwargs) -> int | None:
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


def anotar_todo(valor, memoria: Memoria) -> None:
    """Anota en ``memoria`` cada tensor de ``valor`` (un tensor, o dicts, listas y tuplas de ellos)."""
    if isinstance(valor, torch.Tensor):
        memoria.anotar(valor)
    elif isinstance(valor, dict):
        for v in valor.values():
            anotar_todo(v, memoria)
    elif isinstance(valor, (list, tuple)):
        for v in valor:
            anotar_todo(v, memoria)
