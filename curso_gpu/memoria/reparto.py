"""La memoria de cada GPU al repartir el entrenamiento: DDP o FSDP, en su pico. Lección 12.

El desglose de la lección 07 (``DesgloseMemoria``: pesos, gradientes, optimizador y
activaciones) repartido entre N GPU, y lo que un entrenamiento de verdad suma a eso:

- **DDP** (lección 08): cada GPU guarda todo; solo se reparte el lote. Además, sus *cubos* de
  gradientes para el all-reduce (torch 2.13, ``torch/nn/parallel/distributed.py``,
  ``gradient_as_bucket_view``: «the saved memory size will be equal to the total gradients size»).
- **FSDP** (ZeRO-3): pesos, gradientes y estado del optimizador se parten en N trozos. La copia de
  16 bits solo existe para lo que se calcula (``MixedPrecisionPolicy``, torch 2.13,
  ``_fsdp_api.py``: «FSDP does not require any extra memory to keep a high-precision copy of the
  parameters for the optimizer step»). Lo que se reúne entero, en ``param_dtype``:
  - la **raíz** (lo que no está en ningún bloque: en Qwen, los embeddings atados a la cabeza). Su
    ``reshard_after_forward`` vale False por defecto («``False`` for root modules», ``_fully_shard.py``)
    y, como el ``forward`` de la raíz es el del modelo entero, está reunida toda la pasada hacia
    delante y toda la de atrás, también con ``reshard_after_forward=True``;
  - el **bloque que se calcula** (pesos y gradiente) y el **siguiente**, que FSDP2 reúne por
    adelantado (``_fsdp_param_group.py``: «implicit forward prefetching», ``_backward_prefetch``);
  - el **búfer del reduce-scatter**, del tamaño de la unidad entera en ``reduce_dtype``
    (``_fsdp_collectives.py``, ``foreach_reduce``: ``reduce_scatter_comm.allocate(...,
    dtype=reduce_dtype)``).
- **El paso de Adam**: con ``foreach`` (lo normal en GPU) hace un temporal del tamaño de todos sus
  parámetros (``torch/optim/adam.py``, ``_multi_tensor_adam``: ``exp_avg_sq_sqrt =
  torch._foreach_sqrt(device_exp_avg_sqs)``); con ``foreach=False``, dos del parámetro más grande
  (``_single_tensor_adam``: ``denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)``).
- **El contexto de CUDA**: memoria de la GPU que no es de PyTorch (``CONTEXTO_CUDA_T4``).

Los términos no están todos a la vez: la cuenta mira tres momentos (el comienzo de la pasada
hacia atrás, su final y el paso del optimizador) y el pico es el mayor. Los gradientes repartidos
no existen al comenzar la pasada hacia atrás: ``zero_grad()`` los borra (``set_to_none=True`` por
defecto, ``torch/optim/optimizer.py``).

``bytes_de_fragmento`` predice lo que guarda cada rango de un modelo repartido con
``fully_shard``: cada parámetro se corta por su primera dimensión en N trozos de
⌈filas/N⌉ filas (``torch.chunk``); el último puede quedar corto o vacío y FSDP lo **rellena**
hasta ese tamaño (torch 2.13, ``torch/distributed/fsdp/_fully_shard/_fsdp_param.py``:
«padded_sharded_size = chunks[0].size()  # 0th always padded»).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..base import CONTEXTO_CUDA_T4, ESTRATEGIAS, ComoTabla, Tabla, formatear_bytes, leer_numero, mostrar_valor
from .desglose import DesgloseMemoria

__all__ = ["MOMENTOS", "FragmentoLocal", "MemoriaPorGPU", "Termino", "bytes_de_fragmento", "memoria_por_gpu",
           "trafico_descarga_cpu"]


MOMENTOS = ("comienzo de la pasada atrás", "final de la pasada atrás", "paso del optimizador")
"""Los momentos que mira la cuenta: con todas las activaciones; al reducir la raíz; en ``step()``."""


@dataclass(frozen=True)
class Termino:
    """Una parte de la memoria de una GPU: cuántos bytes, en qué momentos y de dónde sale. Lección 12."""

    nombre: str
    bytes: int
    momentos: tuple[str, ...]
    fuente: str


@dataclass
class MemoriaPorGPU(ComoTabla):
    """Lo que guarda cada GPU en un paso de entrenamiento repartido entre ``gpus``. Lección 12.

    La crea ``memoria_por_gpu``. ``terminos``: cada parte, con sus momentos y su fuente;
    ``contexto``: la memoria de la GPU que no es de PyTorch (el contexto de CUDA).
    """

    estrategia: str
    gpus: int
    terminos: list[Termino]
    contexto: int = 0
    nombre: str = ""

    def en(self, momento: str) -> int:
        """Los bytes de PyTorch en ``momento`` (uno de ``MOMENTOS``)."""
        return sum(t.bytes for t in self.terminos if momento in t.momentos)

    @property
    def momento_pico(self) -> str:
        return max(MOMENTOS, key=self.en)

    @property
    def pico_pytorch(self) -> int:
        """El pico de lo que reserva PyTorch: comparable con ``torch.cuda.max_memory_allocated``."""
        return self.en(self.momento_pico)

    @property
    def total(self) -> int:
        """El pico más el contexto de CUDA: comparable con ``total_memory`` de la GPU."""
        return self.pico_pytorch + self.contexto

    def parte(self, nombre: str) -> int:
        """Los bytes del término que empieza por ``nombre`` (0 si no está)."""
        return sum(t.bytes for t in self.terminos if t.nombre.startswith(nombre))

    def cabe_en(self, memoria_total: int) -> bool:
        """¿Cabe el pico, con el contexto de CUDA, en una GPU cuyo ``total_memory`` es ``memoria_total``?"""
        return self.total <= memoria_total

    def titulo(self) -> str:
        como = {"una": "una GPU", "ddp": f"DDP en {self.gpus} GPU", "fsdp": f"FSDP en {self.gpus} GPU"}[self.estrategia]
        return f"{self.nombre + ': ' if self.nombre else ''}memoria de cada GPU con {como}"

    def tabla(self) -> Tabla:
        marcas = {m: str(i + 1) for i, m in enumerate(MOMENTOS)}
        filas = [[t.nombre, formatear_bytes(t.bytes), " ".join(marcas[m] for m in t.momentos), t.fuente]
                 for t in self.terminos if t.bytes]
        filas += [[f"en el momento {marcas[m]} ({m})", formatear_bytes(self.en(m)), marcas[m], "suma de su columna"]
                  for m in MOMENTOS]
        filas.append(["contexto de CUDA (fuera de PyTorch)", formatear_bytes(self.contexto), "1 2 3", "CONTEXTO_CUDA_T4"])
        return Tabla(self.titulo(), ["parte", "bytes", "momentos", "de dónde sale"], filas,
                     total=[f"pico ({self.momento_pico}) + contexto", formatear_bytes(self.total),
                            f"{self.total / 2**30:.2f} GiB", ""],
                     notas=["GB = 10⁹ bytes; GiB = 2³⁰ bytes, la unidad en que PyTorch da total_memory "
                            "(14.56 GiB son 15.6 GB).",
                            "Sin la fragmentación del asignador (lo que reserva sin usar: mira max_memory_reserved)."])


def _leer_estrategia(estrategia) -> str:
    texto = estrategia.strip().lower() if isinstance(estrategia, str) else None
    if texto not in ("una", *ESTRATEGIAS):
        raise ValueError(f"estrategia desconocida {mostrar_valor(estrategia)}; usa una de: una, "
                         f"{', '.join(ESTRATEGIAS)} (una: una sola GPU; ddp: cada GPU guarda todo; fsdp: todo repartido).")
    return texto


def _leer_si_no(valor, nombre: str) -> bool:
    if not isinstance(valor, bool):
        raise ValueError(f"{nombre} debe ser True o False; recibí {mostrar_valor(valor)}.")
    return valor


def memoria_por_gpu(desglose: DesgloseMemoria, gpus: int = 1, estrategia: str = "ddp", *,
                    unidad_parametros: int = 0, raiz_parametros: int = 0, mayor_parametro: int = 0,
                    bytes_unidad: int = 2, bytes_reduccion: int = 4, foreach: bool = True,
                    descarga_cpu: bool = False, contexto: int | None = None, nombre: str = "") -> MemoriaPorGPU:
    """La memoria de cada GPU, en su pico, al entrenar con ``estrategia`` entre ``gpus``. Lección 12.

    - ``desglose``: el de la lección 07 (``medir_memoria_entrenamiento``) o el de la 09
      (``memoria_ajuste``), medido con el lote de UNA GPU.
    - ``estrategia``: ``"una"`` (una GPU), ``"ddp"`` (cada GPU guarda todo) o ``"fsdp"``.
    - Con FSDP: ``unidad_parametros``, los parámetros del bloque más grande (cada ``fully_shard``);
      ``raiz_parametros``, los de la raíz (lo que queda fuera de los bloques); ``bytes_unidad``, los
      bytes de ``param_dtype`` (2 con fp16) y ``bytes_reduccion`` los de ``reduce_dtype`` (4 con fp32).
    - ``foreach``: el de Adam (True en GPU por defecto). ``mayor_parametro``: los elementos del
      parámetro más grande (con ``foreach=False``; 0: el mayor de la unidad y la raíz).
    - ``descarga_cpu``: ``CPUOffloadPolicy`` (trozos y paso de Adam en la CPU).
    - ``contexto``: los bytes fuera de PyTorch (por defecto ``CONTEXTO_CUDA_T4``; 0 en un CPU).
    """
    if not isinstance(desglose, DesgloseMemoria):
        raise ValueError(f"desglose debe ser un DesgloseMemoria (medir_memoria_entrenamiento(...) o memoria_ajuste(...)); "
                         f"recibí {type(desglose).__name__}.")
    estrategia = _leer_estrategia(estrategia)
    gpus = leer_numero(gpus, "gpus", entero=True, minimo=1, maximo=1_000_000, ejemplo="gpus=2")
    enteros = {}
    for clave, valor, ejemplo in (("unidad_parametros", unidad_parametros, "unidad_parametros=46_797_824 (un bloque)"),
                                  ("raiz_parametros", raiz_parametros, "raiz_parametros=233_373_696 (los embeddings)"),
                                  ("mayor_parametro", mayor_parametro, "mayor_parametro=233_373_696"),
                                  ("contexto", CONTEXTO_CUDA_T4 if contexto is None else contexto, "contexto=0 (en un CPU)")):
        enteros[clave] = leer_numero(valor, clave, entero=True, minimo=0, ejemplo=ejemplo)
    bytes_unidad = leer_numero(bytes_unidad, "bytes_unidad", entero=True, minimo=1, maximo=8,
                               ejemplo="bytes_unidad=2 (fp16) o 4 (fp32)")
    bytes_reduccion = leer_numero(bytes_reduccion, "bytes_reduccion", entero=True, minimo=1, maximo=8,
                                  ejemplo="bytes_reduccion=4 (reduce_dtype=float32)")
    foreach, descarga_cpu = _leer_si_no(foreach, "foreach"), _leer_si_no(descarga_cpu, "descarga_cpu")
    if estrategia == "una" and gpus != 1:
        raise ValueError(f"estrategia='una' es una sola GPU; recibí gpus={gpus}. Usa estrategia='ddp' o 'fsdp'.")
    if descarga_cpu and estrategia != "fsdp":
        raise ValueError("descarga_cpu=True es CPUOffloadPolicy de FSDP: úsalo con estrategia='fsdp'.")
    uno, dos, tres = MOMENTOS
    todos, atras = MOMENTOS, (dos, tres)
    adam = "adam.py, _multi_tensor_adam: _foreach_sqrt" if foreach else "adam.py, _single_tensor_adam: sqrt() / …"
    if estrategia != "fsdp":  # una GPU o DDP: cada GPU guarda todo, como en la lección 07
        originales = desglose.pesos - desglose.pesos_16_bits
        mayor = enteros["mayor_parametro"] or desglose.parametros
        terminos = [Termino("pesos (fp32)", originales, todos, "4 bytes por parámetro"),
                    Termino("copia de 16 bits de autocast", desglose.pesos_16_bits, (uno,),
                            "2 bytes por parámetro: la caché de autocast (lección 07)"),
                    Termino("gradientes", desglose.gradientes, atras, "4 bytes por parámetro; zero_grad los borra"),
                    Termino("estado del optimizador", desglose.optimizador, todos, "8 bytes por parámetro con Adam"),
                    Termino("temporal de Adam", desglose.parametros * 4 if foreach else 2 * mayor * 4, (tres,), adam),
                    Termino("activaciones", desglose.activaciones, (uno,), "lección 07, medidas en meta")]
        if estrategia == "ddp":
            terminos.insert(3, Termino("cubos de DDP", desglose.gradientes, todos,
                                       "distributed.py: gradient_as_bucket_view=False"))
        return MemoriaPorGPU(estrategia, gpus, terminos, enteros["contexto"], nombre)
    # FSDP: los pesos en su tipo original (sin la copia de 16 bits de autocast) se reparten.
    trozo = lambda n: math.ceil(n / gpus)  # noqa: E731
    pesos, gradientes = trozo(desglose.pesos - desglose.pesos_16_bits), trozo(desglose.gradientes)
    unidad, raiz = enteros["unidad_parametros"], enteros["raiz_parametros"]
    mayor = enteros["mayor_parametro"] or max(unidad, raiz)
    en_gpu = 0 if descarga_cpu else 1
    temporal = 0 if descarga_cpu else (pesos if foreach else 2 * trozo(mayor) * 4)
    terminos = [
        Termino("pesos (trozo fp32)", en_gpu * pesos, todos, "4 bytes por parámetro / N"),
        Termino("gradientes (trozo fp32)", en_gpu * gradientes, atras, "4 bytes por parámetro / N; zero_grad los borra"),
        Termino("estado de Adam (trozo)", en_gpu * trozo(desglose.optimizador), todos, "8 bytes por parámetro / N"),
        Termino("temporal de Adam", temporal, (tres,), "en la CPU (CPUOffloadPolicy)" if descarga_cpu else adam),
        Termino("raíz reunida (pesos)", raiz * bytes_unidad, (uno,), "reshard_after_forward=False en la raíz"),
        Termino("raíz: gradiente sin repartir", raiz * bytes_unidad, (uno, dos), "param_dtype, hasta su reduce-scatter"),
        Termino("bloque que se calcula (pesos y gradiente)", 2 * unidad * bytes_unidad, (uno,), "param_dtype"),
        Termino("bloque siguiente (prefetch)", unidad * bytes_unidad, (uno,), "_fsdp_param_group.py: prefetch"),
        Termino("búfer del reduce-scatter de un bloque", unidad * bytes_reduccion, (uno,), "_fsdp_collectives.py, reduce_dtype"),
        Termino("búfer del reduce-scatter de la raíz", raiz * bytes_reduccion, (dos,), "_fsdp_collectives.py, reduce_dtype"),
        Termino("activaciones", desglose.activaciones, (uno,), "lección 07, medidas en meta; no se reparten"),
    ]
    return MemoriaPorGPU("fsdp", gpus, terminos, enteros["contexto"], nombre)


def trafico_descarga_cpu(parametros: int, gpus: int) -> int:
    """Bytes por GPU y paso que cruzan el PCIe con ``CPUOffloadPolicy`` (fp32). Lección 12.

    Cada all-gather copia antes el trozo fp32 de la CPU a la GPU (``_fsdp_param.py``:
    ``sharded_param_data.to(self.device, non_blocking=True)``), dos por paso (delante y atrás), y el
    gradiente repartido vuelve a la CPU (``_fsdp_collectives.py``: ``.to(torch.device("cpu"), ...)``):
    3 × 4 bytes × parámetros / N.
    """
    parametros = leer_numero(parametros, "parametros", entero=True, minimo=1, ejemplo="parametros=1_543_714_304")
    gpus = leer_numero(gpus, "gpus", entero=True, minimo=1, ejemplo="gpus=2")
    return 3 * 4 * math.ceil(parametros / gpus)


@dataclass(frozen=True)
class FragmentoLocal:
    """Lo que guarda un rango de un modelo repartido con ``fully_shard``. Lección 12.

    ``bytes``: lo que ocupa su trozo de cada parámetro, relleno incluido; ``relleno``: la parte
    que son ceros de relleno (el último trozo, si las filas no se dividen entre los procesos).
    """

    rango: int
    procesos: int
    parametros: int
    bytes: int
    relleno: int

    def __str__(self) -> str:
        relleno = f", {formatear_bytes(self.relleno)} de relleno" if self.relleno else ""
        return (f"rango {self.rango} de {self.procesos}: {self.parametros:_} parámetros propios, ".replace("_", " ")
                + f"{formatear_bytes(self.bytes)}{relleno}")


def bytes_de_fragmento(modelo, procesos: int, rango: int = 0) -> FragmentoLocal:
    """Lo que guardará el rango ``rango`` de ``modelo`` repartido entre ``procesos``. Lección 12.

    ``modelo``: un ``nn.Module`` sin repartir (puede estar en ``meta``). Cada parámetro se corta
    por su primera dimensión en trozos de ⌈filas/procesos⌉ filas; el rango ``r`` tiene las filas
    de ``r·t`` a ``(r+1)·t`` (o menos, o ninguna, al final) y FSDP rellena su trozo hasta ``t``.
    """
    import torch

    if not isinstance(modelo, torch.nn.Module):
        raise ValueError(f"modelo debe ser un nn.Module sin repartir; recibí {type(modelo).__name__}.")
    procesos = leer_numero(procesos, "procesos", entero=True, minimo=1, maximo=1_000_000, ejemplo="procesos=2")
    rango = leer_numero(rango, "rango", entero=True, minimo=0, maximo=procesos - 1,
                        ejemplo=f"rango=0 (de 0 a {procesos - 1})")
    propios = total = relleno = 0
    for parametro in modelo.parameters():
        filas = parametro.shape[0] if parametro.dim() > 0 else 1
        resto = parametro.numel() // max(filas, 1)
        trozo = math.ceil(filas / procesos)
        mias = max(0, min(trozo, filas - rango * trozo))
        propios += mias * resto
        total += trozo * resto * parametro.element_size()
        relleno += (trozo - mias) * resto * parametro.element_size()
    return FragmentoLocal(rango, procesos, propios, total, relleno)
