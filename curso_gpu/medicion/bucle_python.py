"""El bucle triple de Python frente a ``a @ b`` de NumPy: por qué nadie multiplica matrices a mano. Lección 03.

Se importa también desde ``medicion`` (``from curso_gpu.medicion import bucle_python_vs_numpy``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import torch

from .cronometro import cronometrar, entero_positivo
from ..base import ComoTabla, Tabla, formatear_tiempo


@dataclass
class ResultadoBucle(ComoTabla):
    """El bucle triple de Python frente a ``a @ b`` de NumPy. Lección 03."""

    n: int
    segundos_bucle: float
    segundos_numpy: float  # mediana de varias llamadas
    iguales: bool  # np.allclose entre los dos resultados

    @property
    def aceleracion(self) -> float:
        return self.segundos_bucle / self.segundos_numpy

    def tabla(self) -> Tabla:
        return Tabla(f"Matrices {self.n}×{self.n}:", [],
                     [["Bucle de Python", formatear_tiempo(self.segundos_bucle)],
                      ["NumPy (a @ b)", formatear_tiempo(self.segundos_numpy)],
                      ["Aceleración", f"{self.aceleracion:.0f}x"],
                      ["¿Mismo resultado?", "sí" if self.iguales else "no"]])


def bucle_python_vs_numpy(n: int = 120, semilla: int = 0) -> ResultadoBucle:
    """La demostración de la lección: un bucle de Python contra ``a @ b`` de NumPy. Lección 03.

    El bucle hace las n³ multiplicaciones de una en una; NumPy las lanza en bloque sobre código
    optimizado que usa las instrucciones vectoriales de la CPU. Con n=120 el bucle tarda
    unas décimas de segundo; el tiempo crece con n³.
    """
    import numpy as np

    n = entero_positivo(n, "n (el lado de la matriz)")
    generador = np.random.default_rng(semilla)
    a = generador.random((n, n))
    b = generador.random((n, n))
    filas_a, filas_b = a.tolist(), b.tolist()
    inicio = time.perf_counter()
    c = [[sum(filas_a[i][k] * filas_b[k][j] for k in range(n)) for j in range(n)] for i in range(n)]
    segundos_bucle = time.perf_counter() - inicio
    medicion = cronometrar(lambda: a @ b, torch.device("cpu"), repeticiones=21, calentamiento=2)
    return ResultadoBucle(n, segundos_bucle, medicion.mediana, bool(np.allclose(c, a @ b)))
