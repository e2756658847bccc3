"""El bucle triple de Python frente a ``a @ b`` de NumPy: por qué nadie multiplica matrices a mano. Lección 03.

Se importa también desde ``medicion`` (``from curso_gpu.medicion import bucle_python_vs_numpy``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..base import ComoTabla, Tabla, formatear_tiempo, leer_numero
from .comparar import Comparacion, comparar_tiempos, formatear_veces

__all__ = ["ResultadoBucle", "bucle_python_vs_numpy"]


@dataclass
class ResultadoBucle(ComoTabla):
    """El bucle triple de Python frente a ``a @ b`` de NumPy, medidos alternados. Lección 03."""

    n: int
    comparacion: Comparacion
    iguales: bool  # np.allclose entre los dos resultados

    @property
    def segundos_bucle(self) -> float:
        return self.comparacion.mediana_a

    @property
    def segundos_numpy(self) -> float:
        return self.comparacion.mediana_b

    @property
    def aceleracion(self) -> float:
        """Cuántas veces más rápido fue NumPy (mediana de los pares; ver ``intervalo``)."""
        return self.comparacion.razon

    @property
    def intervalo(self) -> tuple[float, float]:
        """Intervalo del 95 % de la aceleración."""
        return self.comparacion.intervalo_razon

    def tabla(self) -> Tabla:
        bajo, alto = self.intervalo
        return Tabla(f"Matrices {self.n}×{self.n} ({self.comparacion.pares} pares alternados):", [],
                     [["Bucle de Python", formatear_tiempo(self.segundos_bucle)],
                      ["NumPy (a @ b)", formatear_tiempo(self.segundos_numpy)],
                      ["Aceleración", f"{formatear_veces(self.aceleracion)}× "
                                      f"(intervalo del 95 %: {formatear_veces(bajo)}–{formatear_veces(alto)}×)"],
                      ["¿Mismo resultado?", "sí" if self.iguales else "no"]],
                     notas=[self.comparacion.veredicto])


def bucle_python_vs_numpy(n: int = 80, semilla: int = 0, presupuesto_s: float = 1.0) -> ResultadoBucle:
    """La demostración de la lección: un bucle de Python contra ``a @ b`` de NumPy. Lección 03.

    El bucle hace las n³ multiplicaciones de una en una; NumPy las lanza en bloque sobre código
    optimizado que usa las instrucciones vectoriales de la CPU. Se miden con ``comparar_tiempos``
    (alternados, al menos 5 pares y hasta gastar ``presupuesto_s``). Con n=80 el bucle tarda
    unas centésimas de segundo; el tiempo crece con n³.
    """
    n = leer_numero(n, "n (el lado de la matriz)", entero=True, minimo=1)
    semilla = leer_numero(semilla, "semilla", entero=True, minimo=0, ejemplo="semilla=0")
    generador = np.random.default_rng(semilla)
    a = generador.random((n, n))
    b = generador.random((n, n))
    filas_a, filas_b = a.tolist(), b.tolist()

    def con_bucle():
        return [[sum(filas_a[i][k] * filas_b[k][j] for k in range(n)) for j in range(n)] for i in range(n)]

    iguales = bool(np.allclose(con_bucle(), a @ b))
    comparacion = comparar_tiempos(con_bucle, lambda: a @ b, nombres=("bucle de Python", "NumPy"),
                                   repeticiones=5, presupuesto_s=presupuesto_s, descripcion=f"matrices {n}×{n}")
    return ResultadoBucle(n, comparacion, iguales)
