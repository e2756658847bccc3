"""El techo de generar texto: cuántos tokens por segundo deja pasar la memoria. Lección 10.

Con lote 1, cada token nuevo obliga a leer **todos** los pesos del modelo de la memoria de la
GPU, y los cálculos son pocos. Así que ningún truco pasa de

    tokens/s ≤ ancho de banda de la memoria ÷ bytes de los pesos

Una T4 (320 GB/s) con Qwen2.5-0.5B en fp16 (0,99 GB de pesos) no pasa de unos 320 tokens/s. Con
un lote de B secuencias, cada lectura de los pesos sirve a las B: el techo se multiplica por B
hasta que manda el cálculo. Es el techo de la lección 03, con memoria en vez de FLOP/s.
Los anchos de banda salen de la tabla de GPU del curso (``catalogo``), con su fuente.
"""

from __future__ import annotations

import torch

from ..base import leer_numero, mostrar_valor, picos_de, tabla_picos
from ..dispositivo import como_dispositivo
from ..medicion import cronometrar

__all__ = ["ancho_de_banda_de", "medir_ancho_de_banda",
           "techo_tokens_por_segundo"]

_MEGABYTES_MAXIMOS = 4096
"""``medir_ancho_de_banda`` copia como mucho 4 GiB (y reserva el doble): más no mide mejor y no cabe en un portátil."""

_REPETICIONES_MAXIMAS = 1000
"""Más repeticiones no cambian la mediana: solo alargan la espera."""

def ancho_de_banda_de(nombre_gpu: str) -> float:
    """El ancho de banda de la memoria (GB/s) de esa GPU según su ficha. Lección 10.

    Acepta el nombre que da PyTorch (``"Tesla T4"``) o el de la tabla (``"NVIDIA T4"``, ``"T4"``).
    Una GPU que no está en la tabla da ``ValueError`` con los nombres válidos.
    """
    return _ancho_de_banda(nombre_gpu, "nombre_gpu")


_EJEMPLOS = ("NVIDIA T4", "NVIDIA L4", "NVIDIA A100", "NVIDIA H100 SXM")
"""Las GPU que el error nombra como ejemplo cuando el nombre dado no se parece a ninguna."""


def _ancho_de_banda(nombre_gpu, argumento: str) -> float:
    fila = picos_de(nombre_gpu) if isinstance(nombre_gpu, str) and nombre_gpu.strip() else None
    if fila is None or fila.ancho_de_banda_gb_s is None:
        import difflib

        validas = [f.nombre for f in tabla_picos() if f.ancho_de_banda_gb_s]
        parecidas = difflib.get_close_matches(str(nombre_gpu), validas, n=3, cutoff=0.5)
        ejemplos = parecidas or [v for v in validas if v in _EJEMPLOS] or validas[:4]
        raise ValueError(
            f"{argumento}: GPU desconocida {mostrar_valor(nombre_gpu)}: no está en la tabla de anchos de banda del curso. "
            f"{'¿Quisiste decir' if parecidas else 'Usa, por ejemplo,'} {', '.join(ejemplos)}{'?' if parecidas else ''} "
            f"(el curso conoce {len(validas)}: están en curso_gpu.base.tabla_picos()); o da la cifra de su ficha en GB/s "
            "(por ejemplo, 320 para una T4)."
        )
    return fila.ancho_de_banda_gb_s


def techo_tokens_por_segundo(bytes_pesos: float, ancho_de_banda, lote: int = 1, bytes_cache: float = 0) -> float:
    """El máximo de tokens por segundo que permite la memoria al generar. Lección 10.

    ``ancho_de_banda``: GB/s (``320``) o el nombre de una GPU de la tabla (``"Tesla T4"``).
    Cada paso lee una vez los pesos (``bytes_pesos``) y la caché KV de todo el lote
    (``bytes_cache``, 0 si la ignoras) y produce ``lote`` tokens:

        techo = lote · ancho_de_banda / (bytes_pesos + bytes_cache)

    Es un techo, no una promesa: un modelo diminuto se queda muy lejos (manda el coste fijo de
    cada paso), y con lotes grandes acaba mandando el cálculo.
    """
    if isinstance(ancho_de_banda, str):
        gb_s = _ancho_de_banda(ancho_de_banda, "ancho_de_banda")
    else:
        gb_s = leer_numero(ancho_de_banda, "ancho_de_banda (GB/s de la ficha de tu GPU, o su nombre: \"Tesla T4\")",
                           minimo=0, minimo_incluido=False, ejemplo="ancho_de_banda=320 (una T4)")
    bytes_pesos = leer_numero(bytes_pesos, "bytes_pesos (parámetros × bytes por valor: 2 en fp16)", minimo=0,
                              minimo_incluido=False, ejemplo="bytes_pesos=494_032_768 * 2 (Qwen2.5-0.5B en fp16)")
    lote = leer_numero(lote, "lote (cuántas secuencias se generan a la vez)", entero=True, minimo=1, ejemplo="lote=1")
    bytes_cache = leer_numero(bytes_cache, "bytes_cache (los bytes de la caché KV de todo el lote; 0 si la ignoras)",
                              minimo=0, ejemplo="bytes_cache=0")
    return lote * gb_s * 1e9 / (bytes_pesos + bytes_cache)


def medir_ancho_de_banda(dispositivo="cpu", megabytes: int = 128, repeticiones: int = 5) -> float:
    """El ancho de banda de la memoria medido (GB/s): copiar un tensor grande lee y escribe sus bytes. Lección 10.

    En la CPU mide con los hilos que tenga PyTorch (``torch.get_num_threads()``). Es una cota
    realista, por debajo de la cifra de la ficha.
    """
    megabytes = leer_numero(megabytes, "megabytes (el tamaño del tensor que se copia)", entero=True, minimo=1,
                            maximo=_MEGABYTES_MAXIMOS, ejemplo="megabytes=128")
    repeticiones = leer_numero(repeticiones, "repeticiones", entero=True, minimo=1, maximo=_REPETICIONES_MAXIMAS,
                               ejemplo="repeticiones=5")
    d = como_dispositivo(dispositivo)
    origen = torch.empty(megabytes * 2**20 // 4, dtype=torch.float32, device=d).fill_(1.0)
    destino = torch.empty_like(origen)
    medicion = cronometrar(lambda: destino.copy_(origen), d, repeticiones=repeticiones, calentamiento=1)
    return 2 * origen.numel() * 4 / medicion.mediana / 1e9
