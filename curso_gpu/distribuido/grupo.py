"""Entrenar con varios procesos (una GPU cada uno) con el motor de PyTorch. Lección 08.

- ``iniciar()``: une este proceso al grupo que arrancó ``torchrun`` (``nccl`` en GPU
  NVIDIA, ``gloo`` en CPU) y devuelve un ``Proceso`` (rango, rango local, tamaño del mundo,
  dispositivo, backend). Fuera de ``torchrun`` es un mundo de uno y todo sigue funcionando.
- ``es_principal()``, ``promediar(tensor)``, ``huella_de_pesos(modelo)``, ``terminar()``.
- ``tiempo_allreduce(...)``: cuánto tarda, sobre el papel, promediar los gradientes en
  cada paso (anillo: cada GPU envía unos 2·(N−1)/N × los bytes del gradiente).

Nada de esto sustituye a PyTorch: ``torch.distributed``, ``DistributedDataParallel`` y
``torchrun`` hacen el trabajo; aquí solo se eligen bien las piezas y se explican los errores.
"""

from __future__ import annotations

import datetime
import hashlib
import os
from dataclasses import dataclass

import torch
import torch.distributed as dist

from ..base import formatear_numero, leer_numero, mostrar_valor
from ..dispositivo import cantidad_gpus, como_dispositivo, cuda_disponible, elegir_dispositivo
from .lanzador import PUERTO_MAXIMO
from .padre import vigilar_padre

__all__ = ["ANCHOS_DE_BANDA_GB_S", "EFICIENCIA_PUBLICADA", "ErrorDistribuido", "Proceso", "TiempoAllReduce",
           "bajo_torchrun", "elegir_backend", "es_principal", "huella_de_pesos", "iniciar", "proceso_actual",
           "promediar", "terminar", "tiempo_allreduce"]

_BACKENDS = ("nccl", "gloo")
_ESPERA_S = 60.0  # tiempo máximo para reunirse y para cada operación colectiva: nunca un cuelgue mudo

# Ancho de banda por GPU y por sentido, en GB/s (10⁹ bytes/s): el que usa un all-reduce en anillo.
# Son picos teóricos; en la práctica se mide un 70-85 % (nccl-tests los llama «busbw»).
# - PCIe: 8 GT/s (3.0) y 16 GT/s (4.0) por carril, 16 carriles, codificación 128b/130b →
#   15,75 y 31,5 GB/s por sentido (32 y 64 GB/s sumando los dos sentidos, la cifra de las fichas).
#   La T4 (Colab, Kaggle) usa PCIe 3.0 x16 y no tiene NVLink; la A100 PCIe, PCIe 4.0 x16.
#   Fuentes: https://www.fibermall.com/blog/nvidia-nvlink-and-nvswitch-evolution.htm
#   («PCIe 3.0×16: bidirectional communication bandwidth of 32GB/s»),
#   https://sysrqmts.com/gpus/compare/nvidia-a100-sxm4-40-gb-vs-nvidia-tesla-t4 (interfaces).
# - NVLink, total por GPU sumando los dos sentidos: V100 300 GB/s, A100 600 GB/s, H100 900 GB/s;
#   aquí, la mitad (un sentido). Fuentes: https://www.textbookofai.com/glossary/nvlink.html,
#   https://github.com/NVIDIA/nccl/issues/1264 (H100: «unidirectional ... 450GB/s theoretical»),
#   https://github.com/li-plus/playground/blob/main/cuda/nccl.md (A100: «300GB/s TX & 300GB/s RX»).
ANCHOS_DE_BANDA_GB_S = {
    "PCIe 3.0 x16": 15.75,
    "PCIe 4.0 x16": 31.5,
    "NVLink V100": 150.0,
    "NVLink A100": 300.0,
    "NVLink H100": 450.0,
}
# Referencia publicada de escalado (Horovod, ResNet-101 e Inception V3 en 512 GPU): un 90 % de
# eficiencia; VGG-16, con muchos más parámetros por cálculo, un 68 %.
# Fuente: https://github.com/horovod/horovod/blob/master/docs/benchmarks.rst
# Y una medida de un usuario con 2 V100 en Google Cloud sin NVLink completo entre ellas: «on 2 GPUs
# give you around x1.5 more than 1 GPU» (75 %). Fuente: https://forums.fast.ai/t/lesson-1-pets-benchmarks/27681/70
EFICIENCIA_PUBLICADA = {
    "ResNet-101 (Horovod, 512 GPU)": 0.90,
    "VGG-16 (Horovod, 512 GPU)": 0.68,
    "fast.ai, 2 V100 en GCP (PCIe)": 0.75,
}


class ErrorDistribuido(RuntimeError):
    """Algo impide formar el grupo de procesos (backend, GPU, puerto, tiempo de espera)."""


# ---------------------------------------------------------------------------
# Este proceso dentro del grupo
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Proceso:
    """Quién es este proceso en el grupo. Lección 08.

    ``rango``: 0 … ``tamano_mundo`` − 1 en todo el grupo; ``rango_local``: su número dentro
    de esta máquina (qué GPU usa); ``dispositivo`` y ``backend`` (``nccl`` o ``gloo``).
    """

    rango: int
    rango_local: int
    tamano_mundo: int
    dispositivo: torch.device
    backend: str

    @property
    def principal(self) -> bool:
        """True en el rango 0: el único que imprime el resumen y guarda archivos."""
        return self.rango == 0

    def __str__(self) -> str:
        return (f"Proceso {self.rango} de {self.tamano_mundo} (rango local {self.rango_local}) · "
                f"backend {self.backend} · {self.dispositivo}")


def bajo_torchrun() -> bool:
    """True si este proceso lo arrancó ``torchrun`` (define RANK, WORLD_SIZE, MASTER_ADDR…)."""
    return all(v in os.environ for v in ("RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT"))


def _entero_de_entorno(nombre: str, defecto: int, minimo: int = 0, maximo: int | None = None) -> int:
    valor = os.environ.get(nombre)
    if valor is None:
        return defecto
    try:
        numero = int(valor)
    except ValueError:
        numero = None
    if numero is None or numero < minimo or (maximo is not None and numero > maximo):
        cota = f"entre {minimo} y {maximo}" if maximo is not None else f"mayor o igual que {minimo}"
        raise ErrorDistribuido(f"La variable de entorno {nombre} debe ser un entero {cota}; vale "
                               f"{valor!r}. La pone torchrun: lanza con torchrun --nproc_per_node=2 ... o bórrala "
                               f"(unset {nombre}) para un mundo de un proceso.") from None
    return numero


_DE_LA_REUNION = ("RANK", "MASTER_ADDR", "MASTER_PORT")  # quién es y dónde se reúnen: las pone torchrun (o tú, a mano)


def elegir_backend(backend: str | None = None) -> str:
    """``nccl`` si el dispositivo de ``elegir_dispositivo()`` es una GPU CUDA y PyTorch trae NCCL, ``gloo`` si no.

    Respeta ``CURSO_GPU_DISPOSITIVO`` (``cpu``: gloo aunque haya GPU). Sin NCCL (PyTorch en
    Windows, o la T4 simulada, que calcula en la CPU) es gloo. Comprueba uno pedido a mano.
    """
    if backend in (None, "auto"):
        return "nccl" if elegir_dispositivo("auto").type == "cuda" and dist.is_nccl_available() else "gloo"
    if backend not in _BACKENDS:
        raise ErrorDistribuido(f"Backend desconocido {backend!r}; usa uno de: {', '.join(_BACKENDS)} (o 'auto').")
    if backend == "nccl" and not cuda_disponible():
        raise ErrorDistribuido(
            "Pediste el backend nccl, pero aquí no hay ninguna GPU con CUDA: nccl solo comunica GPU "
            "NVIDIA (o AMD con ROCm). En CPU usa gloo (--backend gloo, o 'auto', que lo elige solo).")
    if backend == "nccl" and not dist.is_nccl_available():
        raise ErrorDistribuido(
            "Pediste el backend nccl, pero este PyTorch no trae NCCL (pasa en Windows y en la T4 simulada, "
            "que calcula en la CPU). Usa gloo (--backend gloo, o 'auto', que lo elige solo).")
    return backend


def _traducir(error: Exception, timeout_s: float) -> ErrorDistribuido:
    """Un error de ``init_process_group`` contado en español, con qué hacer."""
    texto = str(error)
    puerto = os.environ.get("MASTER_PORT", "?")
    if "EADDRINUSE" in texto or "address already in use" in texto:
        return ErrorDistribuido(
            f"El puerto {puerto} ya está en uso (otro entrenamiento u otro programa lo tiene abierto). "
            "Elige otro con --master-port (o --rdzv-endpoint=127.0.0.1:OTRO) o espera a que termine el anterior.")
    if "timed out" in texto.lower() and "connection refused" not in texto.lower():
        return ErrorDistribuido(
            f"Los procesos no se reunieron en {timeout_s:g} s: falta alguno (¿arrancaste todos los nodos?, "
            "¿la misma dirección y puerto en todos?) o uno se quedó colgado.")
    return ErrorDistribuido("No pude formar el grupo de procesos: revisa que todos usen la misma dirección, puerto "
                            f"y número de procesos. El mensaje original de PyTorch ({type(error).__name__}), "
                            f"completo y en inglés:\n{texto.strip()}")


def _almacen(rango: int, tamano: int, espera: datetime.timedelta):
    """El almacén de claves donde los procesos se encuentran (lo que hace ``env://``), con un prefijo por intento.

    ``torchrun`` conserva su almacén entre reinicios: sin prefijo, tras un reinicio un
    proceso nuevo puede leer la dirección que publicó el proceso muerto del intento anterior
    (lo vimos: «Connection refused» al reconectar). Con ``intento_N/`` cada intento empieza limpio.
    """
    propio = os.environ.get("TORCHELASTIC_USE_AGENT_STORE") == "True"  # si no, lo abre el rango 0
    almacen = dist.TCPStore(os.environ["MASTER_ADDR"], _entero_de_entorno("MASTER_PORT", 0, 1, PUERTO_MAXIMO), tamano,
                            is_master=rango == 0 and not propio, timeout=espera, multi_tenant=True)
    intento = _entero_de_entorno("TORCHELASTIC_RESTART_COUNT", 0)
    return dist.PrefixStore(f"curso_gpu/intento_{intento}/", almacen)


def iniciar(backend: str | None = None, *, timeout_s: float = _ESPERA_S) -> Proceso:
    """Une este proceso al grupo de ``torchrun`` y devuelve su ``Proceso``. Lección 08.

    - Lee ``RANK``, ``LOCAL_RANK``, ``WORLD_SIZE`` y ``LOCAL_WORLD_SIZE`` (las pone ``torchrun``).
    - ``backend=None``: ``nccl`` si hay CUDA (cada proceso en su GPU, con
      ``torch.cuda.set_device(LOCAL_RANK)``), ``gloo`` en CPU.
    - Fuera de ``torchrun`` forma un mundo de uno (sin red: un almacén en memoria), así el
      mismo guion funciona con ``python guion.py``.
    - ``timeout_s``: cuánto esperar a los demás en la reunión y en cada operación colectiva.

    Errores claros (``ErrorDistribuido``): nccl sin CUDA, más procesos que GPU con nccl,
    el puerto ocupado, procesos que no llegan.
    """
    timeout_s = leer_numero(timeout_s, "timeout_s", minimo=0, minimo_incluido=False, ejemplo="timeout_s=60 (segundos)")
    if dist.is_available() and dist.is_initialized():
        return proceso_actual()
    if not dist.is_available():
        raise ErrorDistribuido("Este PyTorch no trae torch.distributed; instala una versión oficial de PyTorch.")
    rango = _entero_de_entorno("RANK", 0)
    tamano = _entero_de_entorno("WORLD_SIZE", 1, minimo=1)
    rango_local = _entero_de_entorno("LOCAL_RANK", 0)
    locales = _entero_de_entorno("LOCAL_WORLD_SIZE", tamano, minimo=1)
    if rango >= tamano or rango_local >= locales:
        raise ErrorDistribuido(
            f"RANK={rango} y LOCAL_RANK={rango_local} deben ser menores que WORLD_SIZE={tamano} y "
            f"LOCAL_WORLD_SIZE={locales}: los rangos van de 0 a procesos − 1. Deja que las ponga torchrun "
            "(torchrun --nproc_per_node=2 ...) o bórralas para un mundo de un proceso.")
    if bajo_torchrun():
        _entero_de_entorno("MASTER_PORT", 0, 1, PUERTO_MAXIMO)  # un puerto imposible, ahora y en español
    backend = elegir_backend(backend)
    if bajo_torchrun():
        vigilar_padre()  # si torchrun muere (SIGKILL), este proceso para en segundos
    dispositivo = como_dispositivo("cpu")
    if backend == "nccl":
        gpus = cantidad_gpus("cuda")
        if locales > gpus or rango_local >= gpus:
            raise ErrorDistribuido(
                f"Hay {locales} procesos en esta máquina pero solo {gpus} GPU: con nccl cada proceso "
                f"necesita su propia GPU. Usa --nproc_per_node={gpus} (o gloo para probar en CPU).")
        dispositivo = como_dispositivo(f"cuda:{rango_local}")
        torch.cuda.set_device(dispositivo)
    faltan = [v for v in _DE_LA_REUNION if v not in os.environ]
    if tamano > 1 and faltan:  # sin dirección de reunión, un mundo de varios esperaría a nadie hasta timeout_s
        lista = faltan[0] if len(faltan) == 1 else f"{', '.join(faltan[:-1])} y {faltan[-1]}"
        raise ErrorDistribuido(
            f"WORLD_SIZE={tamano} dice que hay {tamano} procesos, pero falta {lista}: sin eso "
            "los procesos no tienen dónde reunirse, y este esperaría en vano. Lánzalo con torchrun "
            f"(torchrun --nproc_per_node={tamano} ...), que las pone todas; a mano, define RANK, MASTER_ADDR y "
            "MASTER_PORT en cada proceso; o bórralas (unset RANK WORLD_SIZE) para un mundo de un proceso.")
    espera = datetime.timedelta(seconds=float(timeout_s))
    opciones = {"device_id": dispositivo} if backend == "nccl" else {}
    try:
        almacen = _almacen(rango, tamano, espera) if bajo_torchrun() else dist.HashStore()
        dist.init_process_group(backend, store=almacen, rank=rango, world_size=tamano, timeout=espera, **opciones)
    except (RuntimeError, ValueError) as error:
        raise _traducir(error, timeout_s) from None
    return Proceso(rango=dist.get_rank(), rango_local=rango_local, tamano_mundo=dist.get_world_size(),
                   dispositivo=dispositivo, backend=backend)


def proceso_actual() -> Proceso:
    """El ``Proceso`` de un grupo ya iniciado (o el de un mundo de uno si no hay grupo)."""
    if not (dist.is_available() and dist.is_initialized()):
        return Proceso(0, 0, 1, torch.device("cpu"), "ninguno")
    backend = str(dist.get_backend())
    rango_local = _entero_de_entorno("LOCAL_RANK", 0)
    dispositivo = como_dispositivo(f"cuda:{rango_local}" if backend == "nccl" else "cpu")
    return Proceso(dist.get_rank(), rango_local, dist.get_world_size(), dispositivo, backend)


def es_principal() -> bool:
    """True en el proceso de rango 0 (o si no hay grupo): el que imprime y guarda. Lección 08."""
    return not (dist.is_available() and dist.is_initialized()) or dist.get_rank() == 0


def promediar(tensor: torch.Tensor) -> torch.Tensor:
    """La media de ``tensor`` entre todos los procesos (un all-reduce). Lección 08.

    Devuelve un tensor nuevo (no cambia el tuyo). Todos los procesos deben llamarla a la
    vez. Con nccl, el tensor debe estar en la GPU del proceso. Sin grupo, una copia.
    """
    if not isinstance(tensor, torch.Tensor):
        raise ValueError(f"promediar necesita un tensor; recibí {type(tensor).__name__}. Usa torch.tensor(valor).")
    if tensor.is_complex():
        raise ValueError(f"promediar: el tensor es complejo ({tensor.dtype}) y la media entre procesos solo se "
                         "hace con números reales. Promedia la parte real y la imaginaria por separado "
                         "(tensor.real, tensor.imag).")
    copia = tensor.detach().clone()
    if not copia.is_floating_point():
        copia = copia.float()
    if dist.is_available() and dist.is_initialized() and dist.get_world_size() > 1:
        dist.all_reduce(copia, op=dist.ReduceOp.SUM)
        copia /= dist.get_world_size()
    return copia


def huella_de_pesos(modelo: torch.nn.Module) -> str:
    """Una huella (SHA-256, 16 cifras) de los bytes de todos los pesos, en el orden de ``state_dict``. Lección 08.

    Pesos iguales bit a bit ⇔ misma huella. Es la misma cuenta que
    ``sha256(b"".join(t.numpy().tobytes() for t in modelo.state_dict().values()))``.
    """
    if not isinstance(modelo, torch.nn.Module):
        raise ValueError(f"huella_de_pesos necesita un modelo de PyTorch (un nn.Module, p. ej. CNNPequena() o el "
                         f"modelo sin envolver de DDP, ddp.module); recibí {mostrar_valor(modelo)}.")
    estado = modelo.state_dict()
    if any(t.is_meta for t in estado.values() if isinstance(t, torch.Tensor)):
        raise ValueError(f"El modelo ({type(modelo).__name__}) tiene sus pesos en el dispositivo 'meta': solo formas, "
                         "sin valores, así que no hay bytes de los que sacar una huella. Calcúlala con el modelo "
                         "con pesos de verdad (creado sin 'meta', o tras modelo.to_empty(device='cpu') y "
                         "modelo.load_state_dict(...)).")
    h = hashlib.sha256()
    for tensor in estado.values():
        h.update(tensor.detach().cpu().contiguous().view(torch.uint8).numpy().tobytes())
    return h.hexdigest()[:16]


def terminar() -> None:
    """Cierra el grupo de procesos (``destroy_process_group``) si hay uno. Lección 08."""
    if dist.is_available() and dist.is_initialized():
        dist.destroy_process_group()


# ---------------------------------------------------------------------------
# Sobre el papel: ¿cuánto cuesta promediar los gradientes?
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class TiempoAllReduce:
    """Lo que cuesta un all-reduce en anillo de los gradientes, sobre el papel. Lección 08."""

    parametros: int
    gpus: int
    ancho_de_banda_gb_s: float
    bytes_gradiente: int
    bytes_por_gpu: float  # lo que envía (y recibe) cada GPU: 2·(N−1)/N × bytes_gradiente
    segundos: float

    def aceleracion(self, segundos_calculo: float, solapar: bool = False) -> float:
        """Cuántas veces más ejemplos por segundo que una GPU, si cada paso calcula ``segundos_calculo``.

        Cada GPU procesa su propio lote en ``segundos_calculo`` y después espera al
        all-reduce (``solapar=False``). DDP solapa en parte la comunicación con el
        ``backward`` (``solapar=True``: el paso dura lo que el más lento de los dos).
        """
        segundos_calculo = leer_numero(segundos_calculo, "segundos_calculo", minimo=0, minimo_incluido=False,
                                       ejemplo="segundos_calculo=0.1")
        paso = max(segundos_calculo, self.segundos) if solapar else segundos_calculo + self.segundos
        return self.gpus * segundos_calculo / paso

    def eficiencia(self, segundos_calculo: float, solapar: bool = False) -> float:
        """La aceleración dividida entre el número de GPU (1.0 = escalado perfecto)."""
        return self.aceleracion(segundos_calculo, solapar) / self.gpus

    def __str__(self) -> str:
        return (f"All-reduce de {formatear_numero(self.parametros / 1e6, 1)} M parámetros "
                f"({formatear_numero(self.bytes_gradiente / 1e6, 0, 'MB')} de gradiente) entre {self.gpus} GPU a "
                f"{self.ancho_de_banda_gb_s:g} GB/s (techo teórico del enlace): cada GPU envía "
                f"{formatear_numero(self.bytes_por_gpu / 1e6, 0, 'MB')} → al menos "
                f"{formatear_numero(1000 * self.segundos, 1, 'ms')} por paso.")


def tiempo_allreduce(parametros: int, gpus: int, ancho_de_banda_gb_s, bytes_por_parametro: int = 4) -> TiempoAllReduce:
    """El tiempo de promediar los gradientes en cada paso con un all-reduce en anillo. Lección 08.

    Cada GPU envía (y recibe) unos 2·(N−1)/N × los bytes del gradiente; el tiempo es eso
    dividido por el ancho de banda de un sentido por GPU. ``ancho_de_banda_gb_s`` es un
    número (GB/s) o un nombre de ``ANCHOS_DE_BANDA_GB_S`` («PCIe 3.0 x16», «NVLink H100»…).
    Es un mínimo: no cuenta la latencia de cada mensaje ni que solo se alcanza un 70-85 % del pico.
    """
    parametros = leer_numero(parametros, "parametros", entero=True, minimo=1, ejemplo="parametros=25_000_000")
    gpus = leer_numero(gpus, "gpus", entero=True, minimo=1, ejemplo="gpus=8")
    bytes_por_parametro = leer_numero(bytes_por_parametro, "bytes_por_parametro", entero=True, minimo=1,
                                      ejemplo="bytes_por_parametro=4 (fp32) o 2 (fp16)")
    if isinstance(ancho_de_banda_gb_s, str):
        if ancho_de_banda_gb_s not in ANCHOS_DE_BANDA_GB_S:
            raise ValueError(f"Enlace desconocido {ancho_de_banda_gb_s!r}; usa un número de GB/s o uno de: "
                             f"{', '.join(ANCHOS_DE_BANDA_GB_S)}.")
        ancho_de_banda_gb_s = ANCHOS_DE_BANDA_GB_S[ancho_de_banda_gb_s]
    ancho_de_banda_gb_s = leer_numero(ancho_de_banda_gb_s, "ancho_de_banda_gb_s", minimo=0, minimo_incluido=False,
                                      ejemplo="ancho_de_banda_gb_s=15.75 o 'PCIe 3.0 x16'")
    bytes_gradiente = parametros * bytes_por_parametro
    bytes_por_gpu = 2 * (gpus - 1) / gpus * bytes_gradiente
    return TiempoAllReduce(parametros, gpus, float(ancho_de_banda_gb_s), bytes_gradiente, bytes_por_gpu,
                           bytes_por_gpu / (ancho_de_banda_gb_s * 1e9))
