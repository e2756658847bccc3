"""La memoria de cada GPU al repartir el entrenamiento: DDP o FSDP. Lección 12.

El desglose de la lección 07 (``DesgloseMemoria``: pesos, gradientes, optimizador y
activaciones) con un número de fragmentos (*shards*):

- **DDP** (lección 08): cada GPU guarda todo; solo se reparte el lote.
- **FSDP** (ZeRO-3): pesos, gradientes y estados del optimizador se parten en N trozos, uno por
  GPU. Además, mientras calcula un bloque, cada GPU tiene ese bloque entero (sus pesos reunidos
  con un all-gather y, en la pasada hacia atrás, su gradiente antes del reduce-scatter): la
  «unidad reunida». Con precisión mixta de FSDP (``param_dtype=float16``) esa copia en 16 bits
  solo existe para la unidad que se calcula, no para todo el modelo: los trozos guardados siguen
  en fp32 y el optimizador los usa tal cual (torch 2.13, ``MixedPrecisionPolicy`` en
  ``torch/distributed/fsdp/_fully_shard/_fsdp_api.py``: «FSDP does not require any extra memory to
  keep a high-precision copy of the parameters for the optimizer step»). FSDP2 puede reunir por
  adelantado el bloque siguiente mientras calcula uno: la calculadora cuenta una sola unidad.
- Las activaciones no se reparten: dependen del lote de cada GPU.

``bytes_de_fragmento`` predice lo que guarda cada rango de un modelo repartido con
``fully_shard``: cada parámetro se corta por su primera dimensión en N trozos de
⌈filas/N⌉ filas (``torch.chunk``); el último puede quedar corto o vacío y FSDP lo **rellena**
hasta ese tamaño (torch 2.13, ``torch/distributed/fsdp/_fully_shard/_fsdp_param.py``:
«padded_sharded_size = chunks[0].size()  # 0th always padded»).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..base import ESTRATEGIAS, ComoTabla, Tabla, formatear_bytes, leer_numero, mostrar_valor
from .desglose import DesgloseMemoria

__all__ = ["FragmentoLocal", "MemoriaPorGPU", "bytes_de_fragmento", "memoria_por_gpu"]


@dataclass
class MemoriaPorGPU(ComoTabla):
    """Lo que guarda cada GPU en un paso de entrenamiento repartido entre ``gpus``. Lección 12.

    La crea ``memoria_por_gpu``. ``unidad_reunida``: el bloque entero que FSDP reúne para calcular
    (0 con DDP o con una GPU).
    """

    estrategia: str
    gpus: int
    pesos: int
    gradientes: int
    optimizador: int
    activaciones: int
    unidad_reunida: int = 0
    nombre: str = ""

    @property
    def total(self) -> int:
        return self.pesos + self.gradientes + self.optimizador + self.activaciones + self.unidad_reunida

    def partes(self) -> dict[str, int]:
        return {"pesos": self.pesos, "gradientes": self.gradientes, "optimizador": self.optimizador,
                "activaciones": self.activaciones, "unidad reunida": self.unidad_reunida}

    def cabe_en(self, memoria_bytes: int) -> bool:
        """¿Cabe en una GPU con ``memoria_bytes`` usables? (sin contar el contexto de CUDA)."""
        return self.total <= memoria_bytes

    def titulo(self) -> str:
        como = {"una": "una GPU", "ddp": f"DDP en {self.gpus} GPU", "fsdp": f"FSDP en {self.gpus} GPU"}[self.estrategia]
        return f"{self.nombre + ': ' if self.nombre else ''}memoria de cada GPU con {como}"

    def tabla(self) -> Tabla:
        total = max(self.total, 1)
        filas = [[parte, formatear_bytes(valor), f"{100 * valor / total:.0f} %"] for parte, valor in self.partes().items()]
        return Tabla(self.titulo(), ["parte", "memoria por GPU", "%"], filas,
                     total=["total", formatear_bytes(self.total), ""],
                     notas=["sin el contexto de CUDA ni los búferes temporales de cada operación"])


def _leer_estrategia(estrategia) -> str:
    texto = estrategia.strip().lower() if isinstance(estrategia, str) else None
    if texto not in ("una", *ESTRATEGIAS):
        raise ValueError(f"estrategia desconocida {mostrar_valor(estrategia)}; usa una de: una, "
                         f"{', '.join(ESTRATEGIAS)} (una: una sola GPU; ddp: cada GPU guarda todo; fsdp: todo repartido).")
    return texto


def memoria_por_gpu(desglose: DesgloseMemoria, gpus: int = 1, estrategia: str = "ddp", *,
                    unidad_parametros: int = 0, bytes_unidad: int = 2, nombre: str = "") -> MemoriaPorGPU:
    """La memoria de cada GPU al entrenar con ``estrategia`` entre ``gpus``. Lección 12.

    - ``desglose``: el de la lección 07 (``medir_memoria_entrenamiento``) o el de la 09
      (``memoria_ajuste``), medido con el lote de UNA GPU.
    - ``estrategia``: ``"una"`` (una GPU), ``"ddp"`` (cada GPU guarda todo) o ``"fsdp"`` (pesos,
      gradientes y optimizador partidos en ``gpus`` trozos).
    - ``unidad_parametros``: con FSDP, los parámetros del bloque más grande que se reúne entero
      (la unidad de ``fully_shard``); ``bytes_unidad``: sus bytes por parámetro al reunirlo (2 con
      ``param_dtype=float16``, 4 en fp32). Se cuentan sus pesos y su gradiente sin repartir.
    """
    if not isinstance(desglose, DesgloseMemoria):
        raise ValueError(f"desglose debe ser un DesgloseMemoria (medir_memoria_entrenamiento(...) o memoria_ajuste(...)); "
                         f"recibí {type(desglose).__name__}.")
    estrategia = _leer_estrategia(estrategia)
    gpus = leer_numero(gpus, "gpus", entero=True, minimo=1, maximo=1_000_000, ejemplo="gpus=2")
    unidad_parametros = leer_numero(unidad_parametros, "unidad_parametros", entero=True, minimo=0,
                                    ejemplo="unidad_parametros=46_797_824 (un bloque)")
    bytes_unidad = leer_numero(bytes_unidad, "bytes_unidad", entero=True, minimo=1, maximo=8,
                               ejemplo="bytes_unidad=2 (fp16) o 4 (fp32)")
    if estrategia == "una" and gpus != 1:
        raise ValueError(f"estrategia='una' es una sola GPU; recibí gpus={gpus}. Usa estrategia='ddp' o 'fsdp'.")
    if estrategia != "fsdp":  # una GPU o DDP: cada GPU guarda todo, como en la lección 07
        return MemoriaPorGPU(estrategia, gpus, desglose.pesos, desglose.gradientes, desglose.optimizador,
                             desglose.activaciones, 0, nombre)
    # FSDP: los pesos en su tipo original (sin la copia de 16 bits de autocast) se reparten; la copia
    # de 16 bits solo existe para la unidad que se calcula (MixedPrecisionPolicy).
    originales = desglose.pesos - desglose.pesos_16_bits
    unidad = unidad_parametros * bytes_unidad * 2  # pesos + gradiente de la unidad, reunida (o pasada a 16 bits)
    return MemoriaPorGPU("fsdp", gpus, math.ceil(originales / gpus), math.ceil(desglose.gradientes / gpus),
                         math.ceil(desglose.optimizador / gpus), desglose.activaciones, unidad, nombre)


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
