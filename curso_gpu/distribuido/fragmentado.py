"""FSDP2 (``fully_shard``): repartir pesos, gradientes y optimizador entre procesos. Lección 12.

- ``fragmentar(modelo)``: ``fully_shard`` en cada bloque y después en la raíz, como hacen
  torchtitan y las pruebas de PyTorch; la malla de procesos (``DeviceMesh``) sale del
  ``Proceso`` de ``iniciar()``, así el backend se elige en un solo sitio (``elegir_backend``).
- ``politica_de_precision("fp16")``: ``MixedPrecisionPolicy(param_dtype=float16,
  reduce_dtype=float32)``, la de una T4; ``escalador_de_perdida``: ``torch.amp.GradScaler`` (el
  escalado que pide fp16; con FSDP2 los rangos se ponen de acuerdo solos, ver su docstring).
- ``fragmento_medido(modelo)``: lo que guarda este rango de verdad (se compara con
  ``memoria.bytes_de_fragmento``).
- ``ContadorComunicacion``: cuenta los bytes de cada all-gather, reduce-scatter y all-reduce que
  pasan por el despachador de PyTorch.
- ``pesos_completos(modelo)``: el ``state_dict`` entero, reunido (para guardarlo en un archivo).

Todo el trabajo lo hace PyTorch (``torch.distributed.fsdp``); aquí se eligen las piezas y se
explican los errores en español.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

import torch
import torch.distributed as dist
from torch import nn
from torch.utils._python_dispatch import TorchDispatchMode

from ..base import CAPACIDAD_BF16, mostrar_valor
from ..memoria import FragmentoLocal
from .grupo import ErrorDistribuido, Proceso, proceso_actual

__all__ = ["Comunicacion", "ContadorComunicacion", "escalador_de_perdida", "fragmentar", "fragmento_medido",
           "pesos_completos", "politica_de_precision"]

_PRECISIONES = ("fp32", "fp16", "bf16")


def politica_de_precision(precision: str = "fp32", dispositivo: torch.device | None = None):
    """La ``MixedPrecisionPolicy`` de FSDP para ``precision`` (None en fp32). Lección 12.

    ``"fp16"``: calcula en float16 y reduce los gradientes en float32 (la de una T4).
    ``"bf16"``: solo en GPU con capacidad 8.0 o más (Ampere); en una T4 (7.5), un error claro.
    """
    from torch.distributed.fsdp import MixedPrecisionPolicy

    if precision not in _PRECISIONES:
        raise ValueError(f"precision desconocida {mostrar_valor(precision)}; usa una de: {', '.join(_PRECISIONES)}.")
    if precision == "fp32":
        return None
    if precision == "bf16" and dispositivo is not None and torch.device(dispositivo).type == "cuda":
        capacidad = torch.cuda.get_device_capability(dispositivo)
        if capacidad < CAPACIDAD_BF16:
            raise ValueError(f"Esta GPU ({torch.cuda.get_device_name(dispositivo)}, capacidad {capacidad[0]}.{capacidad[1]}) "
                             f"no tiene bf16: llega con la capacidad {CAPACIDAD_BF16[0]}.{CAPACIDAD_BF16[1]} (A100, L4, "
                             "H100). En una T4 usa precision='fp16', con escalador_de_perdida().")
    tipo = torch.float16 if precision == "fp16" else torch.bfloat16
    return MixedPrecisionPolicy(param_dtype=tipo, reduce_dtype=torch.float32)


def escalador_de_perdida(precision: str = "fp32", dispositivo: torch.device | None = None):
    """El escalado de la pérdida que pide fp16, para un modelo repartido. Lección 12.

    Es el ``torch.amp.GradScaler`` de siempre. Con ``fully_shard`` los gradientes son ``DTensor`` y
    PyTorch ya reúne entre todos los rangos si alguno vio un inf/NaN (``found_inf_reduce_handler``
    en ``torch/distributed/tensor/_dispatch.py``; PyTorch lo prueba en
    ``test_fully_shard_grad_scaler.py``): todos saltan el paso juntos. ``ShardedGradScaler`` es el de
    FSDP1 (``FullyShardedDataParallel``). En una CPU hace falta ``GradScaler("cpu")``: el de
    ``"cuda"`` se desactiva sin GPU. Desactivado (no escala) fuera de fp16.
    """
    tipo = torch.device(dispositivo).type if dispositivo is not None else proceso_actual().dispositivo.type
    return torch.amp.GradScaler(tipo, enabled=precision == "fp16")


def _comprobar_modelo(modelo) -> None:
    if not isinstance(modelo, nn.Module):
        raise ValueError(f"fragmentar necesita un modelo de PyTorch (un nn.Module); recibí {type(modelo).__name__}.")
    if not any(True for _ in modelo.parameters()):
        raise ValueError("El modelo no tiene parámetros: no hay nada que repartir.")
    en_meta = [n for n, p in modelo.named_parameters() if p.is_meta]
    if en_meta:
        raise ValueError(
            f"El modelo está en el dispositivo meta (sin datos): {', '.join(en_meta[:3])}"
            f"{'…' if len(en_meta) > 3 else ''}. fully_shard lo reparte, pero no puede entrenar pesos que no "
            "existen, y fragmentar no inventa sus valores. Créalo en la CPU (o en la GPU) antes de fragmentar; "
            "para un modelo enorme, reparte en meta y después llama a modelo.to_empty(device=...) y a "
            "reset_parameters() de cada capa, o carga sus pesos.")
    from torch.distributed.tensor import DTensor

    if any(isinstance(p, DTensor) for p in modelo.parameters()):
        raise ValueError("Este modelo ya está repartido (sus parámetros son DTensor): llama a fragmentar una sola vez.")


def fragmentar(modelo: nn.Module, *, bloques=None, precision: str = "fp32", proceso: Proceso | None = None) -> nn.Module:
    """Reparte ``modelo`` entre los procesos del grupo con ``fully_shard`` (FSDP2). Lección 12.

    - ``bloques``: las capas que se reúnen de una en una (cada una, un all-gather antes de su
      ``forward``); por omisión, los hijos directos con parámetros. Después, la raíz.
    - ``precision``: ``"fp32"``, ``"fp16"`` (T4) o ``"bf16"`` (Ampere o más nueva).
    - ``proceso``: el de ``iniciar()`` (por omisión, el del grupo ya iniciado).

    Devuelve el mismo objeto: sus parámetros pasan a ser ``DTensor`` partidos por la primera
    dimensión. Si las filas no se dividen entre los procesos, FSDP rellena el último trozo
    (no es un error: ``memoria.bytes_de_fragmento`` cuenta ese relleno).
    """
    _comprobar_modelo(modelo)
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.fsdp import fully_shard

    if not (dist.is_available() and dist.is_initialized()):
        raise ErrorDistribuido("No hay grupo de procesos: llama antes a distribuido.iniciar() (con torchrun, o "
                               "solo: un mundo de un proceso).")
    proceso = proceso or proceso_actual()
    politica = politica_de_precision(precision, proceso.dispositivo)
    if bloques is None:
        bloques = [hijo for hijo in modelo.children() if any(True for _ in hijo.parameters())]
    bloques = list(bloques)
    if not all(isinstance(b, nn.Module) for b in bloques):
        raise ValueError(f"bloques debe ser una lista de capas del modelo (nn.Module); recibí {mostrar_valor(bloques)}.")
    # La malla sale del dispositivo que eligió iniciar(): cpu con gloo, cuda con nccl.
    malla = init_device_mesh(proceso.dispositivo.type, (proceso.tamano_mundo,))
    opciones = {"mesh": malla} | ({"mp_policy": politica} if politica is not None else {})
    for bloque in bloques:
        fully_shard(bloque, **opciones)
    fully_shard(modelo, **opciones)
    return modelo


def fragmento_medido(modelo: nn.Module) -> FragmentoLocal:
    """Lo que guarda este rango de un modelo repartido, medido en sus tensores. Lección 12.

    ``bytes``: la memoria de los trozos locales (relleno incluido); ``parametros``: los números
    propios de este rango.
    """
    from torch.distributed.tensor import DTensor

    propios = total = 0
    for parametro in modelo.parameters():
        if not isinstance(parametro, DTensor):
            raise ValueError("El modelo no está repartido (sus parámetros no son DTensor): llama antes a fragmentar(modelo).")
        local = parametro.to_local()
        propios += local.numel()
        total += local.untyped_storage().nbytes()
    rango = dist.get_rank() if dist.is_initialized() else 0
    procesos = dist.get_world_size() if dist.is_initialized() else 1
    elemento = next(modelo.parameters()).element_size()
    return FragmentoLocal(rango, procesos, propios, total, total - propios * elemento)


def pesos_completos(modelo: nn.Module, *, todos: bool = False) -> dict:
    """El ``state_dict`` entero (en la CPU) de un modelo repartido. Lección 12.

    Todos los procesos deben llamarla a la vez (reúne los trozos). Con ``todos=False`` solo el
    rango 0 recibe los pesos (los demás, ``{}``): es lo que se guarda en un archivo.
    """
    from torch.distributed.checkpoint.state_dict import StateDictOptions, get_model_state_dict

    opciones = StateDictOptions(full_state_dict=True, cpu_offload=not todos)
    pesos = get_model_state_dict(modelo, options=opciones)
    return {k: v.detach().cpu() for k, v in pesos.items()}


# ---------------------------------------------------------------------------
# Contar la comunicación
# ---------------------------------------------------------------------------

_OPERACIONES = {"_allgather_base_": "all-gather", "allgather_": "all-gather", "allgather_into_tensor_coalesced_": "all-gather",
                "_reduce_scatter_base_": "reduce-scatter", "reduce_scatter_": "reduce-scatter",
                "reduce_scatter_tensor_coalesced_": "reduce-scatter", "allreduce_": "all-reduce"}


def _bytes(valor) -> int:
    if isinstance(valor, torch.Tensor):
        return valor.numel() * valor.element_size()
    if isinstance(valor, (list, tuple)):
        return sum(_bytes(v) for v in valor)
    return 0


@dataclass
class Comunicacion:
    """Las operaciones colectivas contadas por ``ContadorComunicacion``. Lección 12.

    ``bytes_por_tipo``: los bytes del tensor entero de cada colectiva (la salida de un all-gather,
    la entrada de un reduce-scatter, el tensor de un all-reduce), sumados por tipo.
    """

    procesos: int
    llamadas: dict = field(default_factory=lambda: defaultdict(int))
    bytes_por_tipo: dict = field(default_factory=lambda: defaultdict(int))

    @property
    def enviados_por_rango(self) -> float:
        """Lo que envía cada rango en anillo: (N−1)/N de cada all-gather y reduce-scatter, 2·(N−1)/N de un all-reduce."""
        n = self.procesos
        factor = (n - 1) / n
        return factor * (self.bytes_por_tipo.get("all-gather", 0) + self.bytes_por_tipo.get("reduce-scatter", 0)
                         + 2 * self.bytes_por_tipo.get("all-reduce", 0))

    def __str__(self) -> str:
        partes = [f"{self.llamadas[t]} {t} ({self.bytes_por_tipo[t]:_} bytes)".replace("_", " ")
                  for t in ("all-gather", "reduce-scatter", "all-reduce") if self.llamadas.get(t)]
        return "; ".join(partes) or "ninguna operación colectiva"


class ContadorComunicacion(TorchDispatchMode):
    """``with ContadorComunicacion() as c:`` cuenta las colectivas de c10d que pasan por el despachador. Lección 12.

    FSDP2 llama a ``all_gather_into_tensor`` y ``reduce_scatter_tensor`` de ``torch.distributed``,
    que pasan por el despachador de operaciones de PyTorch (como ``CommDebugMode`` de
    ``torch.distributed.tensor.debug``, que solo cuenta llamadas). El all-reduce de DDP lo lanza
    su ``Reducer`` desde C++ y no pasa por aquí: para DDP, usa ``tiempo_allreduce``.
    """

    def __init__(self):
        super().__init__()
        self.resultado = Comunicacion(dist.get_world_size() if dist.is_initialized() else 1)

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        paquete = getattr(func, "_overloadpacket", None)
        nombre = getattr(paquete, "__name__", "")
        if getattr(func, "namespace", "") == "c10d" and nombre in _OPERACIONES:
            tipo = _OPERACIONES[nombre]
            # all-gather: el tensor entero es la salida (el primero); reduce-scatter: la entrada (el segundo).
            tensor = args[1] if tipo == "reduce-scatter" else args[0]
            self.resultado.llamadas[tipo] += 1
            self.resultado.bytes_por_tipo[tipo] += _bytes(tensor)
        return func(*args, **(kwargs or {}))

    def __enter__(self) -> "Comunicacion":
        super().__enter__()
        return self.resultado
