"""La regla del dispositivo de la GPU simulada: una operación no mezcla tensores de la GPU y de la CPU.

Como ``_find_common_device`` de ``FakeTensorMode`` (``torch/_subclasses/fake_tensor.py``), la simulada
de PyTorch: se recorren los tensores de la operación en el orden de su esquema; el primero fija el
dispositivo común; un tensor de la CPU con 0 dimensiones (un escalar) se admite junto a los de la GPU,
como en CUDA; cualquier otro dispositivo distinto lanza el error de PyTorch. Las excepciones son las
de CUDA: las copias (``copy_``, ``.to()``) y los índices de la CPU de un tensor de la GPU.
"""

from __future__ import annotations

import torch

from ...base import MEZCLA_ARGUMENTO, MEZCLA_DISPOSITIVOS, MEZCLA_INDICES, MEZCLA_TIPOS

__all__ = ["MEZCLABLES", "comprobar_dispositivos"]

_aten = torch.ops.aten
MEZCLABLES = frozenset({
    _aten.copy_.default, _aten._to_copy.default, _aten._copy_from.default, _aten._copy_from_and_resize.default,
    _aten._foreach_copy_.default, _aten.set_.source_Storage, _aten.set_.source_Storage_storage_offset,
    _aten.set_.source_Tensor,
})
"""Las operaciones que copian de un dispositivo a otro: en CUDA mezclan la CPU y la GPU sin error."""

_INDEXADAS = frozenset({
    _aten.index.Tensor, _aten.index_put_.default, _aten.index_put.default, _aten._index_put_impl_.default,
    _aten._unsafe_index.Tensor, _aten._unsafe_index_put.default,
})
_CONVOLUCIONES = frozenset({"convolution", "_convolution", "convolution_backward"})
# Las que el generador de código de PyTorch hace «structured» (su función de CUDA es wrapper_CUDA_{op});
# las demás se llaman wrapper_CUDA__{op} (con el nombre de su sobrecarga vacío).
_ESTRUCTURADAS = frozenset({"addmm", "mm", "bmm", "baddbmm", "addmv", "nll_loss_forward", "nll_loss_backward",
                            "cat", "gather", "scatter", "index_add", "mse_loss", "topk", "sort"})
# Elemento a elemento según sus etiquetas, pero en CUDA sin TensorIterator: su error es el de adaption.cpp
# («…but got other is on cuda:0, different from other tensors on cpu (when checking argument in method
# wrapper_CUDA__equal)», citado en pytorch/pytorch#163529, de septiembre de 2025).
_SIN_ITERADOR = frozenset({"equal"})
# Operaciones que CUDA hace con otra: su error nombra la otra y su argumento.
_COMO = {"embedding": ("index_select", {"indices": "index"})}
_TIPOS = {torch.float32: "Float", torch.float16: "Half", torch.bfloat16: "BFloat16", torch.float64: "Double",
          torch.int64: "Long", torch.int32: "Int", torch.int16: "Short", torch.int8: "Char", torch.uint8: "Byte",
          torch.bool: "Bool"}


def _argumentos(func, args, kwargs):
    """(nombre, valor) de cada argumento de ``func``, en el orden de su esquema."""
    esquema = func._schema.arguments
    pares = list(zip((a.name for a in esquema), args))
    nombrados = {a.name for a in esquema[:len(args)]}
    pares += [(n, v) for n, v in (kwargs or {}).items() if n not in nombrados]
    return pares


def _tipo(tensor) -> str:
    base = _TIPOS.get(tensor.dtype, str(tensor.dtype).removeprefix("torch."))
    return f"torch.cuda.{base}Tensor" if tensor.device.type == "cuda" else f"torch.{base}Tensor"


def _error(func, nombre, comun, tensor, pares):
    paquete = func._overloadpacket.__name__
    if paquete in _CONVOLUCIONES and len(pares) > 1:
        entrada, peso = pares[0][1], pares[1][1]
        return RuntimeError(MEZCLA_TIPOS.format(entrada=_tipo(entrada), peso=_tipo(peso)))
    if torch.Tag.pointwise in func.tags and paquete not in _SIN_ITERADOR:
        return RuntimeError(MEZCLA_DISPOSITIVOS.format(comun=comun, otro=tensor.device))
    paquete, argumentos = _COMO.get(paquete, (paquete, {}))
    nombre = argumentos.get(nombre, nombre)
    metodo = paquete if paquete in _ESTRUCTURADAS else f"_{paquete}"
    return RuntimeError(MEZCLA_ARGUMENTO.format(argumento=nombre, dispositivo=tensor.device, comun=comun,
                                                metodo=metodo))


def comprobar_dispositivos(func, args, kwargs) -> None:
    """Lanza el error de PyTorch si ``func`` mezcla tensores de la GPU simulada y de la CPU (o no hace nada)."""
    pares = _argumentos(func, args, kwargs)
    if func in _INDEXADAS:
        indexado = pares[0][1]
        for indice in (pares[1][1] if len(pares) > 1 else None) or ():
            if isinstance(indice, torch.Tensor) and indice.device != indexado.device and indexado.device.type == "cpu":
                raise RuntimeError(MEZCLA_INDICES.format(dispositivo=indexado.device))
        pares = [pares[0], *pares[2:]]  # CUDA copia a la GPU los índices que están en la CPU
    comun = None
    comun_escalar = False
    for nombre, valor in pares:
        for tensor in (valor if isinstance(valor, (list, tuple)) else (valor,)):
            if not isinstance(tensor, torch.Tensor):
                continue
            dispositivo = tensor.device
            escalar = dispositivo.type == "cpu" and tensor.dim() == 0
            if comun is None:
                comun, comun_escalar = dispositivo, escalar
            elif dispositivo == comun:
                comun_escalar = comun_escalar and escalar
            elif escalar:
                continue  # un escalar de la CPU va con cualquier dispositivo
            elif comun_escalar:
                comun, comun_escalar = dispositivo, False
            else:
                raise _error(func, nombre, comun, tensor, pares)
