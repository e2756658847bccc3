"""Cronometrar bien en CPU y en GPU: sincronizar, calentar y quedarse con la mediana. Lección 03.

Tres reglas, que casi todo el código de medición de internet se salta:

1. **Sincronizar.** En una GPU, ``a @ b`` solo *encarga* el trabajo y vuelve enseguida. Antes
   de leer el reloj hay que esperar a que termine: ``torch.cuda.synchronize()``.
2. **Calentar.** La primera llamada paga el arranque (el contexto de CUDA, cuBLAS, la memoria).
   Se mide aparte (``Medicion.primera``) y no cuenta.
3. **Repetir y dar la mediana.** Una sola muestra es ruido; la mediana de varias, no.

En CPU se usan todos los hilos que PyTorch tiene (``torch.get_num_threads()``), para que la
comparación con la GPU sea justa.
"""

from __future__ import annotations

import html
import math
import statistics
import time
from dataclasses import asdict, dataclass
from typing import Callable

import torch

from .dispositivo import elegir_dispositivo

# ---------------------------------------------------------------------------
# Validar la entrada
# ---------------------------------------------------------------------------

def _como_dispositivo(dispositivo) -> torch.device:
    if dispositivo is None:
        return elegir_dispositivo("auto")
    if isinstance(dispositivo, torch.device):
        return dispositivo
    if isinstance(dispositivo, str):
        return elegir_dispositivo(dispositivo)
    raise ValueError(
        f"Dispositivo no válido: {dispositivo!r}. Pasa un torch.device o un texto como "
        "'cpu', 'cuda' o 'mps' (o usa elegir_dispositivo())."
    )


def _entero_positivo(valor, nombre: str, minimo: int = 1) -> int:
    if isinstance(valor, bool) or not isinstance(valor, int) or valor < minimo:
        raise ValueError(
            f"{nombre} debe ser un número entero mayor o igual que {minimo}; recibí {valor!r}."
        )
    return valor


# ---------------------------------------------------------------------------
# Sincronizar y cronometrar
# ---------------------------------------------------------------------------

def sincronizar(dispositivo) -> None:
    """Espera a que el dispositivo termine todo el trabajo encargado. Lección 03.

    cuda: ``torch.cuda.synchronize``; mps: ``torch.mps.synchronize`` (el temporizador de
    PyTorch no lo hace); xpu: ``torch.xpu.synchronize``. En cpu no hace nada: las
    operaciones de la CPU ya terminan antes de volver.
    """
    d = _como_dispositivo(dispositivo) if not isinstance(dispositivo, torch.device) else dispositivo
    if d.type == "cuda":
        torch.cuda.synchronize(d)
    elif d.type == "mps":
        torch.mps.synchronize()
    elif d.type == "xpu":
        torch.xpu.synchronize(d)


def _percentil(ordenadas: list[float], p: float) -> float:
    """Percentil con interpolación lineal (como ``numpy.percentile`` por defecto)."""
    if len(ordenadas) == 1:
        return ordenadas[0]
    posicion = (len(ordenadas) - 1) * p
    abajo = math.floor(posicion)
    arriba = min(abajo + 1, len(ordenadas) - 1)
    return ordenadas[abajo] + (ordenadas[arriba] - ordenadas[abajo]) * (posicion - abajo)


def _formato_tiempo(segundos: float) -> str:
    if segundos >= 1:
        return f"{segundos:.3f} s"
    if segundos >= 1e-3:
        return f"{segundos * 1e3:.3f} ms"
    return f"{segundos * 1e6:.1f} µs"


@dataclass
class Medicion:
    """Los tiempos (en segundos) de ``cronometrar``: todas las muestras y sus estadísticas. Lección 03."""

    muestras: list[float]
    primera: float | None  # la primera llamada, en frío: no cuenta en las estadísticas
    dispositivo: str
    calentamiento: int = 0
    sincronizada: bool = True
    hilos_cpu: int | None = None
    descripcion: str = ""

    @property
    def repeticiones(self) -> int:
        return len(self.muestras)

    @property
    def mediana(self) -> float:
        """La cifra que cita la lección."""
        return statistics.median(self.muestras)

    @property
    def minimo(self) -> float:
        return min(self.muestras)

    @property
    def maximo(self) -> float:
        return max(self.muestras)

    @property
    def cuartil_1(self) -> float:
        return _percentil(sorted(self.muestras), 0.25)

    @property
    def cuartil_3(self) -> float:
        return _percentil(sorted(self.muestras), 0.75)

    @property
    def rango_intercuartilico(self) -> float:
        """La dispersión: Q3 − Q1 (el 50 % central de las muestras)."""
        return self.cuartil_3 - self.cuartil_1

    def a_dict(self) -> dict:
        datos = asdict(self)
        datos.update(mediana=self.mediana, minimo=self.minimo, maximo=self.maximo,
                     rango_intercuartilico=self.rango_intercuartilico)
        return datos

    def _filas(self) -> list[tuple[str, str]]:
        filas = []
        if self.primera is not None:
            filas.append(("primera llamada (en frío)", _formato_tiempo(self.primera)))
        filas += [
            ("mediana", _formato_tiempo(self.mediana)),
            ("mínimo / máximo", f"{_formato_tiempo(self.minimo)} / {_formato_tiempo(self.maximo)}"),
            ("rango intercuartílico", _formato_tiempo(self.rango_intercuartilico)),
            ("muestras", f"{self.repeticiones} tras {self.calentamiento} de calentamiento"),
        ]
        hilos = f", {self.hilos_cpu} hilos" if self.hilos_cpu else ""
        sinc = "sincronizando" if self.sincronizada else "SIN sincronizar (mal a propósito)"
        filas.append(("dispositivo", f"{self.dispositivo}{hilos}, {sinc}"))
        return filas

    def __str__(self) -> str:
        titulo = f"Medición: {self.descripcion}" if self.descripcion else "Medición"
        filas = self._filas()
        ancho = max(len(k) for k, _ in filas)
        return "\n".join([titulo] + [f"  {k:<{ancho}}  {v}" for k, v in filas])

    def _repr_html_(self) -> str:
        titulo = html.escape(f"Medición: {self.descripcion}" if self.descripcion else "Medición")
        celdas = "".join(f"<tr><th style='text-align:left'>{html.escape(k)}</th>"
                         f"<td style='text-align:left'>{html.escape(v)}</td></tr>" for k, v in self._filas())
        return f"<div><b>{titulo}</b><table>{celdas}</table></div>"


def cronometrar(funcion: Callable[[], object], dispositivo, repeticiones: int = 10, calentamiento: int = 2,
                reloj: Callable[[], float] | None = None, descripcion: str = "") -> Medicion:
    """Mide ``funcion()`` bien: calentamiento, sincronización y varias muestras. Lección 03.

    1. La primera llamada se mide aparte (``primera``): es la «en frío».
    2. Luego ``calentamiento`` llamadas más que no se miden.
    3. Luego ``repeticiones`` muestras. Cada una: ``sincronizar`` → reloj → ``funcion()`` →
       ``sincronizar`` → reloj. Así el reloj nunca se lee con trabajo pendiente en la GPU.

    ``reloj`` es ``time.perf_counter`` salvo que pases otro (los tests pasan uno falso).
    """
    d = _como_dispositivo(dispositivo)
    _entero_positivo(repeticiones, "repeticiones")
    _entero_positivo(calentamiento, "calentamiento", minimo=0)
    reloj = reloj or time.perf_counter

    def una_vez() -> float:
        sincronizar(d)
        inicio = reloj()
        funcion()
        sincronizar(d)
        return reloj() - inicio

    primera = una_vez()
    for _ in range(calentamiento):
        funcion()
    muestras = [una_vez() for _ in range(repeticiones)]
    return Medicion(muestras, primera, str(d), calentamiento, True,
                    torch.get_num_threads() if d.type == "cpu" else None, descripcion)


def _cronometrar_sin_sincronizar(funcion, d: torch.device, repeticiones: int, calentamiento: int,
                                 reloj, descripcion: str) -> Medicion:
    """La forma MAL hecha, a propósito: lee el reloj sin esperar a la GPU."""
    reloj = reloj or time.perf_counter
    for _ in range(1 + calentamiento):
        funcion()
    sincronizar(d)  # empezamos con la cola vacía, para que la comparación sea justa
    muestras = []
    for _ in range(repeticiones):
        inicio = reloj()
        funcion()
        muestras.append(reloj() - inicio)
    sincronizar(d)  # fuera del reloj: dejamos la GPU limpia
    return Medicion(muestras, None, str(d), calentamiento, False,
                    torch.get_num_threads() if d.type == "cpu" else None, descripcion)
