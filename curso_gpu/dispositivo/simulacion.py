"""La T4 simulada: las ramas de GPU de las lecciones, ejecutadas en una máquina sin GPU.

Para quien prepara un notebook para Colab en un portátil sin GPU (y para las pruebas del curso).
Con ``CURSO_GPU_SIMULAR=T4`` en el entorno, ``import curso_gpu`` la enciende; en una prueba,
``with simular_gpu("T4"):`` hace lo mismo. Mientras está encendida:

- ``torch.cuda`` responde como una Tesla T4 de Colab: disponible, 1 GPU, ``"Tesla T4"``,
  capacidad (7, 5), 40 multiprocesadores, 15095 MiB (``curso_gpu.base.GPUS_SIMULABLES``).
- Lo que pides en ``"cuda"`` (``device="cuda"``, ``.cuda()``, ``.to("cuda")``, ``modelo.to(dispositivo)``)
  vive en la CPU, aunque dice ``device='cuda:0'``. ``.cpu()`` da una copia, como en una GPU.
- Falla donde falla una T4, con los textos de PyTorch: una operación que mezcla tensores de la
  GPU y de la CPU («Expected all tensors to be on the same device…»; se admiten, como en CUDA, los
  escalares de la CPU, las copias y los índices de la CPU), ``.numpy()`` de un tensor de la GPU y
  ``Event.elapsed_time`` antes de que termine el evento («CUDA error: device not ready»).
- La memoria sigue al asignador con caché de PyTorch (bloques de 512 bytes, segmentos de 2 y
  20 MiB, la caché hasta ``empty_cache()``): ``memory_allocated``, ``memory_reserved``, sus picos y
  ``mem_get_info``, que cuenta también el contexto de CUDA de una T4 de Colab.
- Lo que no cabe en los 15095 MiB (o en ``set_per_process_memory_fraction``) lanza
  ``torch.OutOfMemoryError`` con el texto de CUDA, en la forma de Colab («Process N has …»): lo que
  se pide con ``device="cuda"`` o ``.to("cuda")`` se mira antes de reservarlo en la CPU.
- ``torch.cuda.set_sync_debug_mode("warn" | "error")`` avisa o lanza en cada espera de la CPU
  (``.item()``, ``.cpu()``, ``.tolist()``, ``nonzero``, imprimir, una copia sin ``non_blocking``).
- La GPU tiene su propio generador (``torch.cuda.manual_seed``); los hilos nuevos la ven; un
  tensor que sobrevive a ``with simular_gpu()`` es un error, no un cambio de sitio en silencio.
- No hay NCCL: ``torch.distributed.is_nccl_available()`` es False y DDP usa ``gloo``. Los hijos
  de un ``fork`` (los procesos de un ``DataLoader``) no la heredan, como no heredan CUDA.
- ``torch.compile`` usa el backend ``eager`` (no genera código) y Triton usa su intérprete.
- ``torch.autocast("cuda", torch.float16)`` calcula en fp16 en la CPU, con las listas de CUDA: lo
  que CUDA pasa a fp32 (softmax, layer_norm, exp, sum, las pérdidas…) calcula en fp32.
- Las descargas y ``bitsandbytes`` responden como sin red: ``HF_HUB_OFFLINE=1``.
- ``nvidia-smi`` (en Linux y macOS) responde como en una T4 de Colab: su tabla, con el driver y la
  «CUDA Version», y ``--query-gpu=…`` (``curso_gpu.base.DriverSimulado``). Vive en una carpeta
  temporal al principio del ``PATH`` mientras la simulación está encendida.

Este módulo no importa torch: es el estado (encendida o no) y lo público. La maquinaria
(``maquina_simulada``) solo se importa al encenderla.

Se anuncia una vez, en español. **Ningún tiempo ni velocidad que veas sale de una GPU**: sirve
para comprobar que cada línea funciona, no para medir. Nunca se enciende sola: sin la variable, o
con una GPU de verdad, torch queda intacto.
"""

from __future__ import annotations

import contextlib
import os

from ..base import GPUS_SIMULABLES, contar

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

_SI = ("1", "TRUE", "YES", "ON", "SI", "SÍ")
"""Lo que, en ``CURSO_GPU_SIMULAR``, quiere decir «sí» sin nombrar una GPU: la primera simulable (T4)."""

_ACTIVO = None  # el ``maquina_simulada.simulador.Simulador`` encendido, o None


def _gpu_visible() -> bool:
    """¿Deja ``CUDA_VISIBLE_DEVICES`` ver la GPU 0? Vacía (o ``-1``) la esconde, como a una de verdad:
    así corren en la CPU los procesos de torchrun de la lección 08."""
    visibles = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visibles is None:
        return True
    primera = visibles.split(",")[0].strip()
    return primera == "0" or primera.startswith("GPU-")


def _hay_gpu_de_verdad() -> bool:
    import torch

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
    if texto in _SI:
        texto = next(iter(GPUS_SIMULABLES))
    if texto not in GPUS_SIMULABLES:
        raise ValueError(f"no sé simular la GPU {clave!r}; usa una de: {', '.join(GPUS_SIMULABLES)}, "
                         f"o 1 / true para la {next(iter(GPUS_SIMULABLES))} (por ejemplo {VARIABLE_SIMULAR}=T4)")
    if _ACTIVO is not None:
        return True
    if _hay_gpu_de_verdad():
        if anunciar:
            print(f"{VARIABLE_SIMULAR}={texto}: esta máquina tiene una GPU de verdad; no se simula nada.")
        return False
    if not _gpu_visible():  # como una GPU de verdad escondida: torch.cuda no la ve
        return False
    from .maquina_simulada.simulador import Simulador

    simulador = Simulador(texto)
    simulador.encender(origen=f"{VARIABLE_SIMULAR}={texto}")
    _ACTIVO = simulador
    if anunciar:
        print(AVISO_SIMULACION.format(variable=VARIABLE_SIMULAR, clave=texto, nombre=simulador.perfil.nombre))
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
    if _ACTIVO is None:
        return False
    import torch

    try:
        return torch.device(dispositivo).type == "cuda"
    except (TypeError, RuntimeError):
        return False


def gpu_simulada():
    """El ``PerfilGPU`` de la GPU simulada, o None si no hay simulación."""
    return _ACTIVO.perfil if _ACTIVO is not None else None


@contextlib.contextmanager
def simular_gpu(clave: str = "T4", anunciar: bool = False):
    """``with simular_gpu("T4"):`` — la GPU simulada solo dentro del bloque (para pruebas).

    Si al salir quedan tensores vivos en la GPU simulada, la apaga y lanza ``RuntimeError``: fuera
    del bloque esos tensores serían de la CPU, y nadie debe creer que siguen en la GPU."""
    ya_estaba = simulacion_activa()
    activar_simulacion(clave, anunciar=anunciar)
    try:
        yield gpu_simulada()
    except BaseException:
        if not ya_estaba:
            desactivar_simulacion()
        raise
    if not ya_estaba:
        quedan = _ACTIVO.tensores_vivos() if _ACTIVO is not None else 0
        desactivar_simulacion()
        if quedan:
            raise RuntimeError(
                f"Al salir de simular_gpu() quedan {contar(quedan, 'tensor', 'tensores')} en la GPU simulada. Fuera del bloque "
                "serían tensores de la CPU sin avisar (en una GPU de verdad seguirían en cuda). Muévelos con "
                ".cpu() o bórralos (del) antes de salir, o deja todo el trabajo con la GPU dentro del bloque.")
