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

import math
import statistics
import time
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from typing import Callable

import torch

from ..dispositivo import como_dispositivo, dispositivo_simulado, sincronizar
from ..base import AVISO_SIMULADA, contar, formatear_tiempo, leer_numero, marcar_simulada, tabla_html, tabla_texto

__all__ = [
    "DISPERSION_MAXIMA", "Medicion", "comprobar_sin_argumentos", "cronometrar", "cronometrar_con_presupuesto",
    "hilos_cpu",
]

# ---------------------------------------------------------------------------
# Validar la entrada
# ---------------------------------------------------------------------------

def comprobar_sin_argumentos(funcion, nombre: str, contexto: str = "") -> None:
    """``funcion`` se puede llamar sin argumentos; si no, un ``ValueError`` en español antes de medir nada.

    ``contexto``: una frase que va delante del mensaje («comparar_tiempos necesita dos funciones...»).
    """
    import inspect

    from ..base import mostrar_valor

    if not callable(funcion):
        raise ValueError(f"{contexto}{nombre} debe ser una función sin argumentos (p. ej. {nombre}=lambda: x @ x); "
                         f"recibí {mostrar_valor(funcion)}.")
    quien = mostrar_valor(funcion)
    try:
        firma = inspect.signature(funcion)
    except (TypeError, ValueError):  # una función de C (torch.matmul) no dice su firma: la lee su documentación
        firma = _firma_documentada(funcion)
        quien = f"{getattr(funcion, '__module__', None) or ''}.{getattr(funcion, '__name__', '')}".lstrip(".")
        if firma is None:
            return
        obligatorios = [p for p in firma.strip("()").split(",") if p.strip() and "=" not in p
                        and not p.strip().startswith("*") and p.strip() != "/"]
        pide_algo = bool(obligatorios)
    else:
        try:
            firma.bind()
            pide_algo = False
        except TypeError:
            pide_algo = True
    if pide_algo:
        raise ValueError(f"{contexto}{nombre} debe poderse llamar sin argumentos, y {quien} pide "
                         f"{firma}. Envuélvela con sus datos: {nombre}=lambda: f(x).")


def _firma_documentada(funcion) -> str | None:
    """«(input, other, *, out=None)»: la firma que escribe la primera línea de la documentación de una función
    de C de torch («matmul(input, other, *, out=None) -> Tensor»), o None si no la escribe."""
    import re

    nombre = getattr(funcion, "__name__", "")
    primera = next((linea.strip() for linea in (getattr(funcion, "__doc__", None) or "").splitlines() if linea.strip()), "")
    encontrada = re.match(rf"{re.escape(nombre)}(\([^()]*\))", primera) if nombre else None
    return encontrada.group(1) if encontrada else None


@contextmanager
def hilos_cpu(n: int):
    """Dentro del bloque, PyTorch usa ``n`` hilos de CPU; al salir, los que había. Lección 03.

    En una CPU de 2 núcleos compartida (Colab, un portátil con el navegador abierto), dos hilos
    de cálculo se pelean con los otros programas y un hilo que espera al otro frena los dos: las
    medidas saltan de una ejecución a otra. Con uno solo salen estables.
    """
    antes = torch.get_num_threads()
    torch.set_num_threads(leer_numero(n, "hilos", entero=True, minimo=1))
    try:
        yield
    finally:
        torch.set_num_threads(antes)


# ---------------------------------------------------------------------------
# Sincronizar y cronometrar
# ---------------------------------------------------------------------------

def _percentil(ordenadas: list[float], p: float) -> float:
    """Percentil con interpolación lineal (como ``numpy.percentile`` por defecto)."""
    if len(ordenadas) == 1:
        return ordenadas[0]
    posicion = (len(ordenadas) - 1) * p
    abajo = math.floor(posicion)
    arriba = min(abajo + 1, len(ordenadas) - 1)
    return ordenadas[abajo] + (ordenadas[arriba] - ordenadas[abajo]) * (posicion - abajo)


DISPERSION_MAXIMA = 0.10
"""Por encima de este rango intercuartílico (como fracción de la mediana), la medida avisa."""


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
    simulada: bool = False  # medida en la GPU simulada: los tiempos son de la CPU (lo dicen título y avisos)

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
            filas.append(("primera llamada (en frío)", formatear_tiempo(self.primera)))
        filas += [
            ("mediana", formatear_tiempo(self.mediana)),
            ("mínimo / máximo", f"{formatear_tiempo(self.minimo)} / {formatear_tiempo(self.maximo)}"),
            ("rango intercuartílico", formatear_tiempo(self.rango_intercuartilico)),
            ("muestras", f"{self.repeticiones} tras {self.calentamiento} de calentamiento"),
        ]
        hilos = f", {contar(self.hilos_cpu, 'hilo')}" if self.hilos_cpu else ""
        sinc = "sincronizando" if self.sincronizada else "SIN sincronizar (mal a propósito)"
        filas.append(("dispositivo", marcar_simulada(f"{self.dispositivo}{hilos}, {sinc}", self.simulada)))
        return filas

    @property
    def avisos(self) -> list[str]:
        """Como ``torch.utils.benchmark``: avisa si la dispersión es grande (IQR > 10 % de la mediana).
        En la GPU simulada, avisa antes de todo de que los tiempos son de la CPU."""
        simulada = [AVISO_SIMULADA] if self.simulada else []
        if self.mediana > 0 and self.rango_intercuartilico > DISPERSION_MAXIMA * self.mediana:
            porcentaje = 100 * self.rango_intercuartilico / self.mediana
            return simulada + [f"La dispersión es grande: el rango intercuartílico es el {porcentaje:.0f} % de la mediana "
                    f"(más del {DISPERSION_MAXIMA * 100:.0f} %). No te fíes de esta cifra: repite la medida con más "
                    "repeticiones y sin otros programas trabajando."]
        return simulada

    def _titulo(self) -> str:
        return marcar_simulada(f"Medición: {self.descripcion}" if self.descripcion else "Medición", self.simulada)

    def __str__(self) -> str:
        return tabla_texto(self._titulo(), self._filas(), self.avisos)

    def _repr_html_(self) -> str:
        return tabla_html(self._titulo(), self._filas(), self.avisos)


def cronometrar(funcion: Callable[[], object], dispositivo, repeticiones: int = 10, calentamiento: int = 2,
                reloj: Callable[[], float] | None = None, descripcion: str = "") -> Medicion:
    """Mide ``funcion()`` bien: calentamiento, sincronización y varias muestras. Lección 03.

    1. La primera llamada se mide aparte (``primera``): es la «en frío».
    2. Luego ``calentamiento`` llamadas más que no se miden.
    3. Luego ``repeticiones`` muestras. Cada una: ``sincronizar`` → reloj → ``funcion()`` →
       ``sincronizar`` → reloj. Así el reloj nunca se lee con trabajo pendiente en la GPU.

    ``reloj`` es ``time.perf_counter`` salvo que pases otro (los tests pasan uno falso).
    """
    comprobar_sin_argumentos(funcion, "funcion")
    d = como_dispositivo(dispositivo)
    leer_numero(repeticiones, "repeticiones", entero=True, minimo=1)
    leer_numero(calentamiento, "calentamiento", entero=True, minimo=0)
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
                    torch.get_num_threads() if d.type == "cpu" else None, descripcion, dispositivo_simulado(d))


def cronometrar_con_presupuesto(funcion: Callable[[], object], d: torch.device, presupuesto_s: float,
                                minimo: int, calentamiento: int, reloj: Callable[[], float] | None,
                                descripcion: str) -> Medicion:
    """Como ``cronometrar``, pero repite hasta gastar ``presupuesto_s`` segundos (y al menos ``minimo``).

    La idea de ``blocked_autorange`` (``torch.utils.benchmark``): una operación de microsegundos
    se mide en *bloques* de k llamadas seguidas, así el reloj y la sincronización (microsegundos)
    no pesan. k empieza en 1 y crece (como mucho ×10 cada vez) hasta que un bloque dura ~1 ms;
    solo cuentan los bloques de esa duración. Bloques cortos: si otro programa interrumpe uno,
    es una muestra rara que la mediana descarta. Cada muestra es el tiempo del bloque entre k.
    """
    reloj = reloj or time.perf_counter

    def bloque(k: int) -> float:
        sincronizar(d)
        inicio = reloj()
        for _ in range(k):
            funcion()
        sincronizar(d)
        return reloj() - inicio

    primera = bloque(1)  # en frío: aparte, no cuenta
    for _ in range(calentamiento):
        funcion()
    objetivo = min(presupuesto_s / 10, 1e-3)  # lo que debe durar cada bloque
    llamadas, gastado = 1, 0.0
    muestras: list[float] = []
    while len(muestras) < minimo or (gastado < presupuesto_s and len(muestras) < 1000):
        segundos = bloque(llamadas)
        gastado += segundos
        if segundos >= objetivo / 2 or llamadas >= 1_000_000 or gastado >= presupuesto_s:
            muestras.append(segundos / llamadas)
        else:  # bloque demasiado corto: no cuenta, el siguiente será mayor
            llamadas = min(1_000_000, llamadas * min(10, max(2, round(objetivo / max(segundos, 1e-9)))))
    if llamadas > 1:
        descripcion = f"{descripcion} (bloques de {llamadas} llamadas)"
    return Medicion(muestras, primera, str(d), calentamiento, True,
                    torch.get_num_threads() if d.type == "cpu" else None, descripcion, dispositivo_simulado(d))
