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

from ..base import picos_de, tabla_picos
from ..dispositivo import como_dispositivo
from ..medicion import cronometrar, entero_positivo




def ancho_de_banda_de(nombre_gpu: str) -> float:
    """El ancho de banda de la memoria (GB/s) de esa GPU según su ficha. Lección 10.

    Acepta el nombre que da PyTorch (``"Tesla T4"``) o el de la tabla (``"NVIDIA T4"``, ``"T4"``).
    Una GPU que no está en la tabla da ``ValueError`` con los nombres válidos.
    """
    fila = picos_de(nombre_gpu)
    if fila is None or fila.ancho_de_banda_gb_s is None:
        validas = [f.nombre for f in tabla_picos() if f.ancho_de_banda_gb_s]
        raise ValueError(
            f"GPU desconocida {nombre_gpu!r}: no está en la tabla de anchos de banda del curso. Usa una de: "
            f"{', '.join(validas)}; o da la cifra de su ficha en GB/s (por ejemplo, 320 para una T4)."
        )
    return fila.ancho_de_banda_gb_s


def _positivo(valor, nombre: str, pista: str) -> float:
    if isinstance(valor, bool) or not isinstance(valor, (int, float)) or not valor > 0:
        raise ValueError(f"{nombre} debe ser un número positivo; recibí {valor!r}. {pista}")
    return float(valor)


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
        gb_s = ancho_de_banda_de(ancho_de_banda)
    else:
        gb_s = _positivo(ancho_de_banda, "ancho_de_banda (GB/s)",
                         "Da los GB/s de la ficha de tu GPU o su nombre (\"Tesla T4\").")
    _positivo(bytes_pesos, "bytes_pesos", "Son los bytes de los pesos: parámetros × bytes por valor (2 en fp16).")
    entero_positivo(lote, "lote (cuántas secuencias se generan a la vez)")
    if isinstance(bytes_cache, bool) or not isinstance(bytes_cache, (int, float)) or bytes_cache < 0:
        raise ValueError(f"bytes_cache debe ser un número mayor o igual que 0; recibí {bytes_cache!r}.")
    return lote * gb_s * 1e9 / (bytes_pesos + bytes_cache)


def medir_ancho_de_banda(dispositivo="cpu", megabytes: int = 128, repeticiones: int = 5) -> float:
    """El ancho de banda de la memoria medido (GB/s): copiar un tensor grande lee y escribe sus bytes. Lección 10.

    En la CPU mide con los hilos que tenga PyTorch (``torch.get_num_threads()``). Es una cota
    realista, por debajo de la cifra de la ficha.
    """
    d = como_dispositivo(dispositivo)
    entero_positivo(megabytes, "megabytes")
    origen = torch.empty(megabytes * 2**20 // 4, dtype=torch.float32, device=d).fill_(1.0)
    destino = torch.empty_like(origen)
    medicion = cronometrar(lambda: destino.copy_(origen), d, repeticiones=repeticiones, calentamiento=1)
    return 2 * origen.numel() * 4 / medicion.mediana / 1e9
