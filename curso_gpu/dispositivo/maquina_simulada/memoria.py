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


# El asignador con caché de PyTorch (c10/cuda/CUDACachingAllocator.cpp, torch 2.13), las reglas que se
# modelan: cada bloque se redondea a múltiplos de 512 bytes (``kMinBlockSize``, ``round_size``); los
# pedidos de hasta 1 MiB (``kSmallSize``) van al grupo pequeño, en segmentos de 2 MiB (``kSmallBuffer``);
# los mayores, al grupo grande: en un segmento de 20 MiB (``kLargeBuffer``) si piden menos de 10 MiB
# (``kMinLargeAlloc``), o en uno redondeado a 2 MiB (``kRoundLarge``). Un bloque liberado queda en su
# segmento (la caché) hasta que ``empty_cache()`` devuelve a CUDA los segmentos vacíos; si un pedido no
# cabe, el asignador vacía la caché y lo intenta otra vez antes del «out of memory». Lo que no se modela:
# dónde cae cada bloque dentro del segmento (la fragmentación), ni los flujos, ni expandable_segments.
_BLOQUE_MINIMO = 512
_PEQUENO = 2**20
_SEGMENTO_PEQUENO = 2 * 2**20
_SEGMENTO_GRANDE = 20 * 2**20
_GRANDE_MINIMO = 10 * 2**20
_REDONDEO_GRANDE = 2 * 2**20


def _redondear(bytes_: int, multiplo: int) -> int:
    return -(-bytes_ // multiplo) * multiplo


def _bloque(bytes_: int) -> int:
    """Los bytes que ocupa un pedido en el asignador (``memory_allocated`` los cuenta así)."""
    return 0 if bytes_ <= 0 else _redondear(bytes_, _BLOQUE_MINIMO)


def _segmento(bloque: int) -> int:
    """El tamaño del segmento que el asignador pide a CUDA para un bloque que no cabe en los que tiene."""
    if bloque <= _PEQUENO:
        return _SEGMENTO_PEQUENO
    return _SEGMENTO_GRANDE if bloque < _GRANDE_MINIMO else _redondear(bloque, _REDONDEO_GRANDE)


class Memoria:
    """Los bytes de la GPU simulada: asignados (``memory_allocated``) y reservados (``memory_reserved``).

    ``limite``: lo que el proceso puede reservar (la memoria total menos el contexto de CUDA, o la
    fracción de ``set_per_process_memory_fraction``)."""

    def __init__(self, limite: int) -> None:
        self.vivos: dict[int, tuple[StorageWeakRef, int, list]] = {}  # _cdata → (ref. débil, bloque, segmento)
        self.segmentos: list[list] = []  # [tamaño, usado, pequeño]
        self.cota = 0   # suma de los bloques anotados, vivos o ya liberados: una cota superior de lo asignado
        self.pico = 0
        self.reservada = 0
        self.pico_reservada = 0
        self.limite = limite
        self.sin_memoria = None  # (pedido) → lanza torch.OutOfMemoryError; lo pone el simulador
        self.al_cambiar = None  # () → lo reservado cambió (el nvidia-smi simulado); lo pone el simulador

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
        bloque = _bloque(guardado.nbytes())
        segmento = self._colocar(bloque, guardado.nbytes())  # si no cabe, el «out of memory» de CUDA
        self.vivos[clave] = (StorageWeakRef(guardado), bloque, segmento)
        self.cota += bloque
        if self.cota > self.pico:  # solo puede haber un pico nuevo si la cota lo supera
            self.pico = max(self.pico, self.asignada())

    def _hueco(self, bloque: int):
        pequeno = bloque <= _PEQUENO
        for segmento in self.segmentos:
            if segmento[2] == pequeno and segmento[0] - segmento[1] >= bloque:
                return segmento
        return None

    def _colocar(self, bloque: int, pedido: int):
        if bloque == 0:
            return None
        segmento = self._hueco(bloque)
        if segmento is None:
            self.asignada()  # los bloques ya liberados vuelven a sus segmentos
            segmento = self._hueco(bloque)
        if segmento is None:
            tamano = _segmento(bloque)
            if self.reservada + tamano > self.limite:
                self.vaciar_cache()  # como el asignador: libera la caché y lo intenta otra vez
                if self.reservada + tamano > self.limite and self.sin_memoria is not None:
                    self.sin_memoria(pedido)
            segmento = [tamano, 0, bloque <= _PEQUENO]
            self.segmentos.append(segmento)
            self.reservada += tamano
            self.pico_reservada = max(self.pico_reservada, self.reservada)
            if self.al_cambiar is not None:
                self.al_cambiar()
        segmento[1] += bloque
        return segmento

    def cabe(self, pedido: int) -> bool:
        """¿Caben ``pedido`` bytes más (en un hueco de la caché o en un segmento nuevo, vaciando la caché)?"""
        bloque = _bloque(pedido)
        if bloque == 0 or self._hueco(bloque) is not None:
            return True
        self.asignada()
        if self._hueco(bloque) is not None:
            return True
        vacios = sum(s[0] for s in self.segmentos if s[1] == 0)
        return self.reservada - vacios + _segmento(bloque) <= self.limite

    def olvidar(self, tensor: torch.Tensor) -> None:
        entrada = self.vivos.pop(almacen(tensor), None)
        if entrada is not None:
            self._liberar(entrada)

    def _liberar(self, entrada) -> None:
        self.cota -= entrada[1]
        if entrada[2] is not None:
            entrada[2][1] -= entrada[1]

    def asignada(self) -> int:
        """Los bytes vivos ahora (y devuelve a su segmento los bloques ya liberados)."""
        muertos = [c for c, (ref, _, _) in self.vivos.items() if _expirado(ref.cdata)]
        for clave in muertos:
            self._liberar(self.vivos.pop(clave))
        return self.cota

    def vaciar_cache(self) -> None:
        """``torch.cuda.empty_cache()``: devuelve a CUDA los segmentos sin ningún bloque vivo."""
        self.asignada()
        vacios = [s for s in self.segmentos if s[1] == 0]
        if vacios:
            self.segmentos = [s for s in self.segmentos if s[1] != 0]
            self.reservada -= sum(s[0] for s in vacios)
            if self.al_cambiar is not None:
                self.al_cambiar()

    def reiniciar_pico(self) -> None:
        self.pico = self.asignada()
        self.pico_reservada = self.reservada


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
