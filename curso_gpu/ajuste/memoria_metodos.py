"""¿Cuánta memoria pide ajustar un modelo de lenguaje: entero, con LoRA o con QLoRA? Lección 09.

Las mismas reglas y el mismo desglose que la lección 07 (``DesgloseMemoria``): pesos,
gradientes, optimizador y activaciones. El modelo se construye en ``meta`` desde su
configuración (nada se descarga ni ocupa memoria) y las activaciones se **miden** con
``medir_memoria_entrenamiento`` (en ``meta`` no hay autocast: en fp16/bf16 se cuentan a 2 bytes
por número, ``aproximado=True``). Lo que cambia con cada método es qué se guarda y en qué tipo:

- ``"completo"``: todo se entrena, la regla de la lección 07 (pesos, gradientes y Adam en fp32,
  más la copia de 16 bits que hace autocast): 18 bytes por parámetro en precisión mixta.
- ``"lora"``: el modelo base congelado en ``precision`` (2 bytes en fp16/bf16, 4 en fp32), sin
  gradientes ni optimizador; el adaptador en fp32 con sus gradientes y los dos estados de Adam.
- ``"qlora"``: como LoRA, pero las capas lineales de los bloques en NF4 de 4 bits, y el resto
  (embeddings, normas, sesgos) en fp32, como lo deja ``prepare_model_for_kbit_training`` de peft.

Las activaciones son sin *activation checkpointing* (la lección 07 mide cuánto lo reduce).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

import torch

from ..base import Celda, Tabla, buscar_gpu, formatear_bytes, formatear_numero, leer_numero, mostrar_valor
from ..memoria import (
    ESTADOS_OPTIMIZADOR,
    DesgloseMemoria,
    medir_memoria_entrenamiento,
    normalizar_optimizador,
    normalizar_precision_entrenamiento,
)
from .lora import aplicar_lora, capas_lineales, validar_r

__all__ = ["BYTES_NF4", "METODOS", "DesgloseAjuste", "memoria_ajuste", "tabla_metodos"]

METODOS = ("completo", "lora", "qlora")

BYTES_NF4 = 0.5 + 1 / 64 + 4 / (64 * 256)
"""Bytes por peso en NF4 con doble cuantización: 4 bits del peso, más una constante de 8 bits por
bloque de 64 pesos y una de 32 bits por cada 256 bloques. Dettmers et al. 2023, «QLoRA:
Efficient Finetuning of Quantized LLMs», arXiv:2305.14314, sección 3 (*Double Quantization*:
las constantes pasan de 32/64 = 0.5 bits a 8/64 + 32/(64·256) = 0.127 bits por parámetro)."""

_NOMBRES = {"completo": "entero", "lora": "LoRA", "qlora": "QLoRA (4 bits)"}


@dataclass
class DesgloseAjuste(DesgloseMemoria):
    """El desglose de la lección 07 para ajustar un modelo de lenguaje. Lección 09.

    Lo crea ``memoria_ajuste``. ``parametros`` son los que se entrenan; ``parametros_modelo``,
    los del modelo base.
    """

    metodo: str = "completo"
    r: int = 0
    secuencia: int = 0
    parametros_modelo: int = 0
    nombre_modelo: str = ""

    @property
    def bytes_por_parametro(self) -> float:
        """Pesos + gradientes + optimizador por parámetro del modelo (sin activaciones)."""
        return (self.pesos + self.gradientes + self.optimizador) / max(self.parametros_modelo, 1)

    def tabla(self) -> Tabla:
        tabla = super().tabla()
        tabla.notas = [f"{self.bytes_por_parametro:.1f} bytes por parámetro del modelo sin activaciones; se entrenan "
                       f"{formatear_numero(self.parametros)} de {formatear_numero(self.parametros_modelo)} parámetros "
                       f"({100 * self.parametros / max(self.parametros_modelo, 1):.2g} %)"]
        return tabla

    def titulo(self) -> str:
        metodo = _NOMBRES[self.metodo] + (f" r={self.r}" if self.metodo != "completo" else "")
        return (f"{self.nombre_modelo or 'El modelo'} ajustado {metodo}: {self.nombre_optimizador} en "
                f"{self.precision}, lote de {self.lote} × {self.secuencia} tokens (activaciones medidas en meta)")


def _con_capas(config, capas: int):
    """Una copia de ``config`` con ``capas`` bloques (lo demás, igual)."""
    copia = copy.deepcopy(config)
    copia.num_hidden_layers = capas
    if getattr(copia, "layer_types", None):
        copia.layer_types = list(copia.layer_types)[:capas]
    return copia


def _medir_por_bloques(config, metodo: str, lote: int, secuencia: int, r: int, modulos, optimizador: str,
                       precision: str) -> tuple[int, int, bool, int]:
    """(activaciones, copias de 16 bits, aproximado, activaciones con 1 bloque) del modelo entero, medidos con 1 y 2 bloques.

    Los bloques de un Transformer son iguales: cada uno guarda lo mismo para la pasada hacia
    atrás. Con la medida de 1 y de 2 bloques, el modelo de N bloques guarda
    ``m1 + (N - 1) · (m2 - m1)``, exacto (``tests/test_ajuste.py`` lo compara con la medida entera).
    Medir 2 bloques en vez de 28 hace que la lección tarde segundos y no minutos.
    """
    from .arquitecturas import modelo_en_meta

    entrada = torch.zeros(lote, secuencia, dtype=torch.long, device="meta")
    medidas = []
    for capas in (1, 2):
        modelo = modelo_en_meta(_con_capas(config, capas))
        if metodo != "completo":
            modelo = aplicar_lora(modelo, r=r, alpha=2 * r, modulos=modulos)
        medidas.append(medir_memoria_entrenamiento(modelo, entrada, optimizador, precision))
    uno, dos = medidas
    n = config.num_hidden_layers
    return (uno.activaciones + (n - 1) * (dos.activaciones - uno.activaciones),
            uno.pesos_16_bits + (n - 1) * (dos.pesos_16_bits - uno.pesos_16_bits), uno.aproximado, uno.activaciones)


def _leer_metodo(metodo) -> str:
    """``"completo"``, ``"lora"`` o ``"qlora"``, sin mirar mayúsculas ni espacios; si no, un error en español."""
    texto = metodo.strip().lower() if isinstance(metodo, str) else None
    if texto not in METODOS:
        raise ValueError(f"metodo desconocido {mostrar_valor(metodo)}; usa uno de: {', '.join(METODOS)}. "
                         "Por ejemplo, metodo='lora'.")
    return texto


def memoria_ajuste(config, metodo: str = "completo", precision: str = "fp16", lote: int = 1,
                   secuencia: int = 512, r: int = 16, modulos=None, optimizador: str = "adamw",
                   nombre: str = "", checkpointing: bool = False) -> DesgloseAjuste:
    """Pesos, gradientes, optimizador y activaciones de ajustar ``config``. Lección 09.

    - ``config``: una configuración de ``transformers`` o un nombre de ``arquitecturas``
      (``"Qwen2.5-0.5B"``, ``"Qwen2.5-7B"``).
    - ``metodo``: ``"completo"``, ``"lora"`` o ``"qlora"`` (ver el módulo; sin mirar mayúsculas: ``"LoRA"`` vale).
    - ``precision``: ``"fp16"`` (T4), ``"bf16"`` (Ampere o más nueva) o ``"fp32"``; QLoRA pide 16 bits.
    - ``lote`` × ``secuencia``: los tokens de un paso. ``r`` y ``modulos``: los de LoRA
      (``alpha`` no cambia la memoria). ``optimizador``: los de la lección 07 (``"adamw"``...).
    - ``checkpointing``: *activation checkpointing* en cada bloque (lección 07): cada bloque guarda
      solo su entrada (fp32, la corriente residual) y en la pasada hacia atrás se recalcula uno a la vez.
    """
    from .arquitecturas import modelo_en_meta
    from .lora import parametros_lora

    metodo = _leer_metodo(metodo)
    precision = normalizar_precision_entrenamiento(precision)
    if metodo == "qlora" and precision == "fp32":
        raise ValueError("QLoRA calcula en 16 bits: usa precision='fp16' (T4) o 'bf16' (Ampere o más nueva).")
    lote = leer_numero(lote, "lote", entero=True, minimo=1, ejemplo="lote=1")
    r = validar_r(r)
    estados = ESTADOS_OPTIMIZADOR[normalizar_optimizador(optimizador)]
    if not isinstance(nombre, str):
        raise ValueError(f"nombre debe ser un texto (el nombre del modelo en la tabla, o ''); recibí "
                         f"{mostrar_valor(nombre)}. Por ejemplo, nombre='Qwen2.5-0.5B'.")
    if isinstance(config, str):
        nombre = nombre or config.strip()
    modelo = modelo_en_meta(config)  # también comprueba config (un nombre que no conoce, otro tipo...)
    config = modelo.config
    # Más tokens que los que ve el modelo de una vez no se pueden entrenar (sus posiciones no existen).
    contexto = getattr(config.get_text_config(), "max_position_embeddings", None)
    contexto = contexto if isinstance(contexto, int) and contexto > 0 else None
    secuencia = leer_numero(secuencia, "secuencia", entero=True, minimo=1, maximo=contexto,
                            ejemplo="secuencia=512 (tokens por ejemplo)")
    total = sum(p.numel() for p in modelo.parameters())
    buffers = sum(b.numel() * b.element_size() for b in modelo.buffers())
    # Las capas que bitsandbytes cuantiza: las lineales de los bloques (la cabeza, no).
    pesos_lineales = sum(capa.weight.numel() for capa in capas_lineales(modelo).values())
    entrenables = total if metodo == "completo" else parametros_lora(modelo, r, modulos)
    activaciones, copias, aproximado, con_un_bloque = _medir_por_bloques(config, metodo, lote, secuencia, r, modulos,
                                                          optimizador, precision)
    if checkpointing is not False and checkpointing is not True:
        raise ValueError(f"checkpointing debe ser True o False; recibí {mostrar_valor(checkpointing)}.")
    if checkpointing:  # torch.utils.checkpoint guarda las entradas de la función: las de cada bloque
        texto = config.get_text_config()  # un bloque recalculado, más la entrada de cada bloque
        activaciones = con_un_bloque + texto.num_hidden_layers * lote * secuencia * texto.hidden_size * 4
    mixta = precision != "fp32"
    if metodo == "completo":
        pesos = 4 * total + buffers + copias  # fp32 + la copia de 16 bits de autocast (lección 07)
    else:
        copias = 2 * entrenables if mixta else 0  # la copia de 16 bits del adaptador que hace autocast
        if metodo == "lora":
            base = total * (2 if mixta else 4)
        else:
            base = pesos_lineales * BYTES_NF4 + (total - pesos_lineales) * 4
        pesos = int(round(base)) + buffers + 4 * entrenables + copias
    return DesgloseAjuste(
        pesos=pesos, gradientes=4 * entrenables, optimizador=estados * 4 * entrenables,
        activaciones=activaciones, parametros=entrenables, lote=lote, precision=precision,
        nombre_optimizador=normalizar_optimizador(optimizador), dispositivo="meta", pesos_16_bits=copias,
        aproximado=aproximado, metodo=metodo, r=r if metodo != "completo" else 0,
        secuencia=secuencia, parametros_modelo=total, nombre_modelo=nombre)


def tabla_metodos(desgloses: list[DesgloseAjuste], gpu: str = "T4") -> Tabla:
    """Una fila por desglose: las cuatro partes, el total y si cabe en la memoria de ``gpu``. Lección 09.

    La memoria de la GPU es la de su ficha (``catalogo``: 16 GB en una T4), que es algo más de lo
    que de verdad puedes usar (ver ``catalogo``), y el total no cuenta el contexto de CUDA.
    """
    if isinstance(desgloses, DesgloseAjuste):
        desgloses = [desgloses]
    if (not isinstance(desgloses, (list, tuple)) or not desgloses
            or not all(isinstance(d, DesgloseAjuste) for d in desgloses)):
        raise ValueError(f"desgloses debe ser una lista de resultados de memoria_ajuste; recibí "
                         f"{mostrar_valor(desgloses)}. Por ejemplo, tabla_metodos([memoria_ajuste('Qwen2.5-0.5B', "
                         "'lora')]).")
    ficha = buscar_gpu(gpu)
    limite = ficha.memoria_gb * 10**9
    filas, ids = [], []
    for d in desgloses:
        cabe = d.total <= limite
        veredicto = Celda("cabe" if cabe else "NO cabe",
                          f"color:{'#1a7f37' if cabe else '#cf222e'};font-weight:bold;white-space:nowrap")
        metodo = _NOMBRES[d.metodo] + (f" r={d.r}" if d.metodo != "completo" else "")
        filas.append([d.nombre_modelo, metodo, formatear_bytes(d.pesos), formatear_bytes(d.gradientes),
                      formatear_bytes(d.optimizador), formatear_bytes(d.activaciones), formatear_bytes(d.total),
                      veredicto])
        ids.append(f"{d.nombre_modelo}/{d.metodo}")
    lotes = sorted({(d.lote, d.secuencia, d.precision) for d in desgloses})
    contexto = "; ".join(f"lote {lo} × {s} tokens en {p}" for lo, s, p in lotes)
    return Tabla(f"Ajustar un modelo de lenguaje en una {ficha.nombre} ({ficha.memoria_gb:g} GB)",
                 ["modelo", "método", "pesos", "gradientes", "optimizador", "activaciones", "total", "¿cabe?"],
                 filas, subtitulo=f"({contexto}, sin activation checkpointing)", ids_filas=ids, nombre_id="ajuste",
                 notas=["Activaciones medidas en meta, a 2 bytes por número en 16 bits; sin el contexto de CUDA "
                        "(unos cientos de MB) ni los temporales de cada operación."])
