"""Medir mal a propósito: ``a @ b`` sin sincronizar, alternado con la medida bien hecha. Lección 03.

Sin ``sincronizar``, el reloj se para cuando Python ha *encargado* el trabajo a la GPU, no
cuando la GPU lo ha hecho. Aquí se ven las dos medidas lado a lado, con el juicio de
``comparar_tiempos`` («sin diferencia clara» en la CPU, donde ``a @ b`` ya es síncrona).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable

import torch

from ..base import ComoTabla, Tabla, formatear_tiempo, leer_numero, marcar_simulada
from ..dispositivo import como_dispositivo, dispositivo_simulado, sincronizar
from .comparar import Comparacion, comparar_muestras
from .cronometro import Medicion
from .memoria_libre import comprobar_que_cabe, tipo_de_dato

__all__ = ["ComparacionSincronizacion", "medir_sin_sincronizar"]


def _multiplicar(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return a @ b



@dataclass
class ComparacionSincronizacion(ComoTabla):
    """La misma multiplicación medida bien (sincronizando) y mal (sin sincronizar), alternadas. Lección 03."""

    n: int
    dispositivo: str
    con_sincronizar: Medicion
    sin_sincronizar: Medicion
    comparacion: Comparacion  # el juicio de los pares: ¿se distinguen de verdad?
    simulada: bool = False  # medida en la GPU simulada (CURSO_GPU_SIMULAR): en realidad, en la CPU

    @property
    def factor(self) -> float:
        """Cuántas veces más corto parece el tiempo sin sincronizar (1 = igual)."""
        return self.con_sincronizar.mediana / self.sin_sincronizar.mediana

    @property
    def explicacion(self) -> str:
        """Lo que dicen los datos (el veredicto) y por qué, según el dispositivo."""
        if self.simulada:
            return (f"{self.comparacion.veredicto} La GPU simulada calcula en la CPU, donde a @ b no vuelve "
                    "hasta terminar: las dos formas miden lo mismo y lo esperado es «sin diferencia clara». En "
                    "una T4 de verdad, sin sincronizar se mide solo lo que tarda Python en encargar el trabajo.")
        if self.dispositivo.startswith("cpu"):
            return (f"{self.comparacion.veredicto} En la CPU, a @ b no vuelve hasta terminar (es síncrona): "
                    "sincronizar no cambia nada y las dos formas miden lo mismo, así que lo esperado es «sin "
                    "diferencia clara». En una GPU, sin sincronizar se mide solo lo que tarda Python en "
                    "encargar el trabajo: en una T4, con n=4096, microsegundos en lugar de decenas de milisegundos.")
        return (f"{self.comparacion.veredicto} Sin sincronizar se mide lo que tarda Python en encargar el "
                f"trabajo a {self.dispositivo}, no lo que tarda la GPU en hacerlo.")

    def tabla(self) -> Tabla:
        """Las dos medianas y, debajo, el veredicto y la explicación."""
        return Tabla(marcar_simulada(f"a @ b, {self.n}×{self.n}, en {self.dispositivo} ({self.comparacion.pares} pares "
                                     "alternados):", self.simulada),
                     ["", "mediana", "mínimo", "máximo"],
                     [[nombre, formatear_tiempo(m.mediana), formatear_tiempo(m.minimo), formatear_tiempo(m.maximo)]
                      for nombre, m in (("sincronizando", self.con_sincronizar),
                                        ("sin sincronizar", self.sin_sincronizar))],
                     notas=[self.explicacion])


def medir_sin_sincronizar(n: int = 1024, dispositivo=None, dtype=torch.float32, repeticiones: int = 9,
                          calentamiento: int = 1, reloj: Callable[[], float] | None = None) -> ComparacionSincronizacion:
    """Mide ``a @ b`` bien y MAL (sin sincronizar), a propósito, alternando las dos formas. Lección 03.

    Cada par mide una vez cada forma (cambiando el orden de un par al siguiente). La medida mal
    hecha lee el reloj sin esperar a la GPU y vacía la cola *después*, fuera del reloj, para que
    la siguiente medida empiece limpia. El juicio es el de ``comparar_tiempos``.
    """
    n = leer_numero(n, "n (el lado de la matriz)", entero=True, minimo=1)
    leer_numero(repeticiones, "repeticiones", entero=True, minimo=1)
    leer_numero(calentamiento, "calentamiento", entero=True, minimo=0)
    tipo, _ = tipo_de_dato(dtype)
    d = como_dispositivo(dispositivo)
    comprobar_que_cabe(n, d, tipo)
    generador = torch.Generator().manual_seed(0)
    a = torch.randn(n, n, generator=generador).to(device=d, dtype=tipo)
    b = torch.randn(n, n, generator=generador).to(device=d, dtype=tipo)
    reloj = reloj or time.perf_counter

    def bien() -> float:
        sincronizar(d)
        inicio = reloj()
        _multiplicar(a, b)
        sincronizar(d)  # punto de espera: a @ b terminado antes de parar el reloj
        return reloj() - inicio

    def mal() -> float:
        inicio = reloj()
        _multiplicar(a, b)
        segundos = reloj() - inicio  # sin esperar a la GPU: mal a propósito
        sincronizar(d)  # fuera del reloj: la cola queda vacía para la siguiente medida
        return segundos

    for _ in range(1 + calentamiento):
        _multiplicar(a, b)
    sincronizar(d)
    con, sin = [], []
    for i in range(repeticiones):
        if i % 2 == 0:
            con.append(bien())
            sin.append(mal())
        else:
            sin.append(mal())
            con.append(bien())
    descripcion = f"a @ b, {n}×{n}, en {d}"
    hilos = torch.get_num_threads() if d.type == "cpu" else None
    juicio = comparar_muestras(con, sin, nombres=("sincronizando", "sin sincronizar"), dispositivo=str(d),
                               descripcion=descripcion)
    simulada = dispositivo_simulado(d)
    return ComparacionSincronizacion(n, str(d), Medicion(con, None, str(d), calentamiento, True, hilos, descripcion, simulada),
                                     Medicion(sin, None, str(d), calentamiento, False, hilos, descripcion, simulada), juicio,
                                     simulada)
