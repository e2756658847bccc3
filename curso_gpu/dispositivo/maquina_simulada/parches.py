"""Lo que la GPU simulada cambia en torch y en el entorno, en un solo registro que lo devuelve todo."""

from __future__ import annotations

import contextlib
import functools
import os
import sys

import torch

from .memoria import CUDA0, anotar_todo, es_cuda
from .modos import ModoMemoria, anotar_resultados

__all__ = ["Registro", "parchear_autocast", "parchear_carga", "parchear_compilar", "parchear_hilos", "parchear_tensor",
           "poner_entorno"]

_FALTA = object()
_DEVICE_ORIGINAL = torch._C.TensorBase.device
_IS_CPU_ORIGINAL = torch._C.TensorBase.is_cpu
_GET_DEVICE_ORIGINAL = torch._C.TensorBase.get_device


class Registro:
    """Cada cambio hecho (atributos, variables de entorno, funciones de salida), para deshacerlo al apagar."""

    def __init__(self) -> None:
        self.originales: list[tuple[object, str, object]] = []
        self.entorno: dict[str, str | None] = {}
        self.al_salir: list = []

    def poner(self, objeto, nombre: str, valor) -> None:
        """``objeto.nombre = valor``, recordando lo que había (o que no había nada)."""
        self.originales.append((objeto, nombre, objeto.__dict__.get(nombre, _FALTA) if isinstance(objeto, type)
                                else getattr(objeto, nombre, _FALTA)))
        setattr(objeto, nombre, valor)

    def poner_todos(self, objeto, valores: dict, solo_si_existe: bool = False) -> None:
        for nombre, valor in valores.items():
            if not solo_si_existe or hasattr(objeto, nombre):
                self.poner(objeto, nombre, valor)

    def poner_variable(self, variable: str, valor: str) -> None:
        """``os.environ[variable] = valor``, recordando lo que había."""
        self.entorno.setdefault(variable, os.environ.get(variable))
        os.environ[variable] = valor

    def al_apagar(self, funcion) -> None:
        """``funcion`` se llama al apagar, y al salir de Python si no se apagó antes (``atexit``)."""
        import atexit

        atexit.register(funcion)
        self.al_salir.append(funcion)

    def restaurar(self) -> None:
        """Deshace todo, en el orden inverso: atributos, variables y, al final, las funciones de salida."""
        import atexit

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
        for funcion in reversed(self.al_salir):
            atexit.unregister(funcion)
            funcion()
        self.al_salir = []


def parchear_tensor(registro: Registro, memoria) -> None:
    """``tensor.device``, ``is_cuda``, ``is_cpu`` y ``get_device`` dicen ``cuda:0`` para lo que vive en la GPU."""

    def propiedad_device(tensor):
        return CUDA0 if memoria.contiene(tensor) else _DEVICE_ORIGINAL.__get__(tensor)

    def propiedad_is_cuda(tensor):
        return memoria.contiene(tensor)

    def propiedad_is_cpu(tensor):
        return _IS_CPU_ORIGINAL.__get__(tensor) and not memoria.contiene(tensor)

    def get_device(tensor):
        return 0 if memoria.contiene(tensor) else _GET_DEVICE_ORIGINAL(tensor)

    registro.poner(torch.Tensor, "device", property(propiedad_device))
    registro.poner(torch.Tensor, "is_cuda", property(propiedad_is_cuda))
    registro.poner(torch.Tensor, "is_cpu", property(propiedad_is_cpu))
    registro.poner(torch.Tensor, "get_device", get_device)
    # fijar memoria (DataLoader con pin_memory=True, también en su hilo): no hace falta en la CPU
    registro.poner(torch.Tensor, "pin_memory", lambda tensor, *args, **kwargs: tensor)
    registro.poner(torch.Tensor, "is_pinned", lambda tensor, *args, **kwargs: False)


def parchear_compilar(registro: Registro) -> None:
    """``torch.compile`` con el backend ``eager``: inductor pide a ``torch.cuda`` cosas que solo tiene una GPU."""
    compilar = torch.compile

    @functools.wraps(compilar)
    def compile_eager(model=None, *args, **kwargs):
        kwargs.pop("mode", None)
        kwargs.pop("options", None)
        # Con el modo de despacho de la memoria activo, dynamo no compila ningún marco («non-infra torch
        # dispatch mode present») y fullgraph=True fallaría siempre: sin él, el código corre tal cual.
        kwargs.pop("fullgraph", None)
        kwargs["backend"] = "eager"
        # Quien compila ya importa torch._dynamo: desde ahora el modo de memoria es invisible para
        # dynamo (si no, la compilaba una vez por operación, hasta su límite de 8, y lo avisaba en stderr).
        import torch._dynamo

        if ModoMemoria.__dict__["__torch_dispatch__"] is anotar_resultados:
            registro.poner(ModoMemoria, "__torch_dispatch__", torch._dynamo.disable(anotar_resultados, recursive=True))
        return compilar(model, *args, **kwargs)

    registro.poner(torch, "compile", compile_eager)


def parchear_carga(registro: Registro, memoria) -> None:
    """``torch.load(..., map_location="cuda")`` carga en la CPU y anota lo cargado en la GPU simulada."""
    cargar = torch.load

    @functools.wraps(cargar)
    def load(*args, **kwargs):
        destino = kwargs.get("map_location")
        if es_cuda(destino):
            kwargs["map_location"] = "cpu"
        resultado = cargar(*args, **kwargs)
        if es_cuda(destino):
            anotar_todo(resultado, memoria)
        return resultado

    registro.poner(torch, "load", load)


def parchear_autocast(registro: Registro, simulador) -> None:
    """``torch.autocast("cuda", tipo)`` calcula en la CPU con el mismo tipo de dato (fp16 calcula en fp16), y
    ``simulador.autocast_cuda`` cuenta los bloques abiertos: ahí las operaciones de ``AUTOCAST_CUDA_FP32``
    calculan en fp32, como en CUDA (``ModoDispositivo``)."""
    clase_autocast = torch.amp.autocast_mode.autocast
    init_autocast, entrar, salir = clase_autocast.__init__, clase_autocast.__enter__, clase_autocast.__exit__

    @functools.wraps(init_autocast)
    def init(instancia, device_type, *args, **kwargs):
        instancia.cuda_simulada = device_type == "cuda"
        if device_type == "cuda":
            args = list(args)
            tipo = kwargs.get("dtype", args[0] if args else None) or torch.float16
            device_type = "cpu"
            if args:
                args[0] = tipo
            else:
                kwargs["dtype"] = tipo
        init_autocast(instancia, device_type, *args, **kwargs)

    @functools.wraps(entrar)
    def enter(instancia):
        resultado = entrar(instancia)
        if getattr(instancia, "cuda_simulada", False):
            simulador.autocast_cuda.append(bool(getattr(instancia, "_enabled", True)))
        return resultado

    @functools.wraps(salir)
    def exit_(instancia, *exc):
        if getattr(instancia, "cuda_simulada", False) and simulador.autocast_cuda:
            simulador.autocast_cuda.pop()
        return salir(instancia, *exc)

    registro.poner(clase_autocast, "__init__", init)
    registro.poner(clase_autocast, "__enter__", enter)
    registro.poner(clase_autocast, "__exit__", exit_)


def parchear_hilos(registro: Registro, crear_modos) -> None:
    """Los modos de torch son de cada hilo: un hilo nuevo (``threading.Thread``, también los de un
    ``ThreadPoolExecutor``) entra en los suyos al arrancar, y ve la misma GPU simulada que el principal."""
    import threading

    correr = threading.Thread.run

    @functools.wraps(correr)
    def run(hilo):
        modos = crear_modos()
        with contextlib.ExitStack() as pila:
            for modo in modos:
                pila.enter_context(modo)
            return correr(hilo)

    registro.poner(threading.Thread, "run", run)


_SI = ("1", "ON", "YES", "TRUE")  # lo que huggingface_hub toma como «sí» (``constants._is_true``)


def _releer_sin_red() -> None:
    """``huggingface_hub.constants.HF_HUB_OFFLINE`` se lee al importarlo: si se importó con la simulación
    encendida, vuelve a leerse de las variables ya restauradas."""
    constantes = sys.modules.get("huggingface_hub.constants")
    if constantes is not None:
        valor = os.environ.get("HF_HUB_OFFLINE") or os.environ.get("TRANSFORMERS_OFFLINE")
        constantes.HF_HUB_OFFLINE = valor is not None and valor.upper() in _SI


def poner_entorno(registro: Registro) -> None:
    """Sin red para las descargas y, sin GPU, Triton en su intérprete."""
    for variable in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"):
        registro.poner_variable(variable, "1")
    constantes = sys.modules.get("huggingface_hub.constants")
    if constantes is not None:  # ya importado: su constante se leyó antes de encender
        registro.poner(constantes, "HF_HUB_OFFLINE", True)
    else:
        registro.al_salir.append(_releer_sin_red)
    if "triton" not in sys.modules and "TRITON_INTERPRET" not in os.environ:
        registro.poner_variable("TRITON_INTERPRET", "1")  # sin GPU, los kernels solo corren en el intérprete
