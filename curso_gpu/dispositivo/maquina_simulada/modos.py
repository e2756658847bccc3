"""Los dos modos de torch de la GPU simulada: el de funciones (dispositivos) y el de despacho (memoria)."""

from __future__ import annotations

import torch
from torch.overrides import TorchFunctionMode
from torch.utils._python_dispatch import TorchDispatchMode

from ...base import AUTOCAST_CUDA_FP32, NUMPY_EN_GPU
from .memoria import CUDA0, almacen, bytes_de_fabrica, es_cuda, tensores_de
from .reglas import MEZCLABLES, comprobar_dispositivos

__all__ = ["ESPECIALES", "ModoDispositivo", "ModoMemoria", "anotar_resultados"]

ESPECIALES = frozenset({"to", "cuda", "cpu", "pin_memory", "record_stream", "numpy", "__array__",
                        "tolist", "__repr__", "__str__", "__format__"})
"""Las funciones que ``ModoDispositivo.__torch_function__`` cambia (además de las que piden ``device=``)."""


class ModoDispositivo(TorchFunctionMode):
    """Cambia ``device="cuda"`` por la CPU y anota en la GPU simulada lo que se creó allí."""

    def __init__(self, simulador) -> None:
        super().__init__()
        self.simulador = simulador

    def __torch_function__(self, func, types, args=(), kwargs=None):
        nombre = getattr(func, "__name__", "")
        simulador = self.simulador
        if simulador.autocast_cuda and simulador.autocast_cuda[-1] and nombre in AUTOCAST_CUDA_FP32:
            return _en_fp32(func, args, kwargs or {})
        if nombre not in ESPECIALES and not (kwargs and ("device" in kwargs or kwargs.get("pin_memory"))):
            return func(*args, **(kwargs or {}))  # casi todas: nada que cambiar (y es cada llamada a torch)
        kwargs = dict(kwargs or {})
        a_la_gpu = False
        if "device" in kwargs and es_cuda(kwargs["device"]):
            kwargs["device"] = "cpu"
            a_la_gpu = True
            pedido = bytes_de_fabrica(nombre, args, kwargs)
            if pedido is not None:  # se mira ANTES de reservar: un pedido de 20 GB no toca la RAM
                simulador.reservar(pedido)
        if kwargs.get("pin_memory"):  # memoria fijada para copiar a la GPU (safetensors con device="cuda"): sin GPU no hay
            kwargs["pin_memory"] = False
        if nombre == "to" and args and isinstance(args[0], torch.Tensor):
            return simulador.mover(args[0], args[1:], kwargs, a_la_gpu)
        if nombre == "cuda" and args and isinstance(args[0], torch.Tensor):
            return simulador.a_la_gpu(args[0], kwargs.get("non_blocking", False))
        if nombre == "cpu" and args and isinstance(args[0], torch.Tensor):
            return simulador.a_la_cpu(args[0], kwargs.get("non_blocking", False))
        if nombre in ("numpy", "__array__") and args and simulador.memoria.contiene(args[0]):
            raise TypeError(NUMPY_EN_GPU.format(dispositivo=CUDA0))
        if nombre in _LEEN and args and simulador.memoria.contiene(args[0]):
            simulador.esperar()  # la CPU lee los valores: espera a la GPU
        if nombre == "pin_memory":
            return args[0]
        if nombre == "record_stream":
            return None
        if a_la_gpu and nombre in _COPIAN:  # torch.tensor(datos, device="cuda"): una copia que espera
            simulador.esperar()
        if a_la_gpu and nombre in _AZAR:  # torch.randn(..., device="cuda"): el generador de la GPU
            with simulador.aleatorio.usar():
                resultado = func(*args, **kwargs)
        else:
            resultado = func(*args, **kwargs)
        if a_la_gpu:
            for tensor in tensores_de((resultado,)):
                simulador.memoria.anotar(tensor)
        return resultado


_LEEN = frozenset({"tolist", "__repr__", "__str__", "__format__"})  # leen los valores desde la CPU
_COPIAN = frozenset({"tensor", "as_tensor", "asarray"})  # con device="cuda", copian datos de la CPU a la GPU
_aten = torch.ops.aten
_ESPERAN = frozenset({  # su resultado (o su forma) depende de los valores: la CPU espera a la GPU
    _aten._local_scalar_dense.default, _aten.nonzero.default, _aten.masked_select.default, _aten.equal.default,
    _aten.is_nonzero.default, _aten._unique2.default, _aten.unique_dim.default, _aten.unique_consecutive.default,
    _aten.repeat_interleave.Tensor,
})


def _en_fp32(func, args, kwargs):
    """``func`` con sus tensores fp16/bf16 pasados a fp32, como hace autocast en CUDA con las operaciones de
    ``AUTOCAST_CUDA_FP32`` (con un ``dtype=`` explícito no se toca: autocast tampoco lo hace)."""
    if kwargs.get("dtype") is not None or not torch.is_autocast_enabled("cpu"):
        return func(*args, **kwargs)

    def a_fp32(valor):
        if isinstance(valor, torch.Tensor) and valor.dtype in (torch.float16, torch.bfloat16):
            return valor.float()
        return valor

    return func(*[a_fp32(a) for a in args], **{k: a_fp32(v) for k, v in kwargs.items()})


def anotar_resultados(modo: "ModoMemoria", func, types, args=(), kwargs=None):
    """El ``__torch_dispatch__`` de ``ModoMemoria``: comprueba los dispositivos de las entradas y anota
    lo que sale de una operación con una entrada en la GPU."""
    memoria = modo.simulador.memoria
    if not memoria.vivos or modo.simulador.copiando:
        return func(*args, **kwargs) if kwargs else func(*args)
    entradas = tensores_de(args)
    if kwargs:
        entradas += tensores_de(kwargs.values())
    en_gpu = [memoria.contiene(t) for t in entradas]
    azar = False
    if any(en_gpu):
        if not all(en_gpu) and func not in MEZCLABLES:
            comprobar_dispositivos(func, args, kwargs)
        cruza = not all(en_gpu) and func in MEZCLABLES  # copy_ entre la CPU y la GPU
        if func in _ESPERAN or (cruza and not _sin_esperar(args, kwargs)) or _con_mascara(func, args):
            modo.simulador.esperar()
        azar = _aleatoria(func)
    if azar:  # dropout, normal_, bernoulli... de un tensor de la GPU: el generador de la GPU
        with modo.simulador.aleatorio.usar():
            resultado = func(*args, **kwargs) if kwargs else func(*args)
    else:
        resultado = func(*args, **kwargs) if kwargs else func(*args)
    if any(en_gpu):
        # Una operación que escribe en su entrada (cpu.copy_(gpu), lo que hace load_state_dict) deja el
        # destino donde estaba, como en una GPU: no se anota lo que comparte memoria con una entrada de la CPU.
        en_cpu = {almacen(t) for t, gpu in zip(entradas, en_gpu) if not gpu}
        for tensor in tensores_de((resultado,)):
            if almacen(tensor) not in en_cpu:
                memoria.anotar(tensor)
    return resultado


_AZAR = frozenset({"rand", "randn", "randint", "randperm", "normal", "bernoulli", "multinomial", "poisson",
                   "rand_like", "randn_like", "randint_like"})  # con device="cuda", usan el generador de la GPU
_ES_ALEATORIA: dict = {}


def _aleatoria(func) -> bool:
    """¿Usa ``func`` el generador de números aleatorios? (la etiqueta ``nondeterministic_seeded`` de aten)."""
    es = _ES_ALEATORIA.get(func)
    if es is None:
        es = _ES_ALEATORIA[func] = torch.Tag.nondeterministic_seeded in getattr(func, "tags", ())
    return es


def _sin_esperar(args, kwargs) -> bool:
    """¿Es una copia con ``non_blocking=True``? (el tercer argumento de ``copy_``)."""
    return bool((kwargs or {}).get("non_blocking", len(args) > 2 and args[2] is True))


def _con_mascara(func, args) -> bool:
    """``x[mascara]`` con una máscara de booleanos: CUDA busca sus ``True`` (``nonzero``) y espera."""
    return (func is _aten.index.Tensor and len(args) > 1
            and any(isinstance(i, torch.Tensor) and i.dtype == torch.bool for i in args[1] or ()))


class ModoMemoria(TorchDispatchMode):
    """Anota en la GPU simulada el resultado de toda operación con una entrada que vive allí."""

    def __init__(self, simulador) -> None:
        super().__init__()
        self.simulador = simulador

    __torch_dispatch__ = anotar_resultados


# torch envuelve el ``__torch_dispatch__`` de cada modo con ``torch._disable_dynamo``: importaría
# ``torch._dynamo`` en la primera operación (3–6 s de CPU en una lección que no compila nada) y
# pasaría cada operación por su envoltura. Se quita tras ``__init_subclass__``; quien compila
# (``parches.compile_eager``) pone, mientras la simulación está encendida, la versión invisible para dynamo.
ModoMemoria.__torch_dispatch__ = anotar_resultados
