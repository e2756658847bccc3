"""Comparar dos formas de hacer lo mismo sin engañarse: ``comparar_tiempos``. Lecciones 01, 03, 06, 07 y 08.

Medir primero ``a`` diez veces y luego ``b`` diez veces no sirve en una máquina compartida: si
otro programa se pone a trabajar a mitad, todo el retraso cae sobre uno de los dos y la
conclusión se invierte de una ejecución a otra. Aquí las medidas se **alternan** (a b, b a,
a b...), cada par se mide en el mismo momento de la máquina y la conclusión lleva su
**intervalo**: si no se puede distinguir una de otra, el veredicto lo dice.
"""

from __future__ import annotations

import math
import statistics
import time
from dataclasses import dataclass
from typing import Callable

import numpy as np
import torch

from ..base import (
    AVISO_SIMULADA, ComoTabla, Tabla, formatear_numero, formatear_tiempo, leer_numero, marcar_simulada, mostrar_valor,
)
from ..dispositivo import como_dispositivo, dispositivo_simulado, sincronizar
from .cronometro import comprobar_sin_argumentos

__all__ = ["BLOQUE_ACELERADOR_S", "BLOQUE_CPU_S", "DURACION_MAXIMA_S", "MARGEN", "NIVEL", "PARES_MAXIMOS", "PARES_MINIMOS",
           "REMUESTREOS", "Comparacion", "comparar_muestras", "comparar_tiempos", "formatear_veces"]

NIVEL = 0.95
"""El intervalo cubre el 95 % central de las razones remuestreadas."""

MARGEN = 1.05
"""Una diferencia cuenta si incluso el extremo pesimista del intervalo es de al menos un 5 %."""

PARES_MINIMOS = 5
"""Con menos pares alternados no se declara ganador: el intervalo no sería de fiar."""

REMUESTREOS = 2000
BLOQUE_CPU_S = 1e-4
"""Una muestra en la CPU dura al menos esto (0.1 ms): el reloj no pesa, y es mucho más corta que el
turno de unos 3 ms que el sistema da a cada programa, así que pocas muestras caen en una interrupción."""
BLOQUE_ACELERADOR_S = 1e-3
"""En una GPU, 1 ms: sincronizar cuesta decenas de microsegundos y no debe pesar."""
PARES_MAXIMOS = 500
DURACION_MAXIMA_S = 600
"""Una comparación que tardaría más de 10 minutos se rechaza antes de empezar, con la estimación."""


def formatear_veces(x: float) -> str:
    """Un «cuántas veces» como lo escribe el curso: «2.13», «31.4», «3 396»."""
    if x < 10:
        return formatear_numero(x, 2)
    if x < 100:
        return formatear_numero(x, 1)
    return formatear_numero(round(x))


@dataclass
class Comparacion(ComoTabla):
    """Dos funciones medidas alternadas, con el veredicto que dan los datos. Lo devuelve ``comparar_tiempos``.

    ``muestras_a[i]`` y ``muestras_b[i]`` (segundos por llamada) se midieron uno junto al otro:
    forman el par ``i``. ``veces`` e ``intervalo`` miden cuántas veces más rápido es el ganador
    (o, si no lo hay, el más rápido en la mediana); ``intervalo`` es el del 95 %.
    """

    nombres: tuple[str, str]
    muestras_a: list[float]
    muestras_b: list[float]
    primera_a: float | None  # la primera llamada, en frío: no cuenta
    primera_b: float | None
    dispositivo: str
    razon: float  # mediana de tiempo_a / tiempo_b en cada par (> 1: b fue más rápido)
    intervalo_razon: tuple[float, float]  # intervalo del 95 % de esa razón
    descripcion: str = ""
    alternados: bool = True  # False: los pares se midieron en ejecuciones distintas (comparar_muestras)
    simulada: bool = False  # medida en la GPU simulada: los tiempos son de la CPU (lo dicen título y veredicto)

    @property
    def pares(self) -> int:
        return len(self.muestras_a)

    @property
    def mediana_a(self) -> float:
        return statistics.median(self.muestras_a)

    @property
    def mediana_b(self) -> float:
        return statistics.median(self.muestras_b)

    @property
    def _b_mas_rapido(self) -> bool:
        return self.razon >= 1

    @property
    def veces(self) -> float:
        """Cuántas veces más rápido fue el más rápido (siempre ≥ 1)."""
        return self.razon if self._b_mas_rapido else 1 / self.razon

    @property
    def intervalo(self) -> tuple[float, float]:
        """El intervalo del 95 % de ``veces``, en el mismo sentido (del más rápido)."""
        bajo, alto = self.intervalo_razon
        return (bajo, alto) if self._b_mas_rapido else (1 / alto, 1 / bajo)

    @property
    def concluyente(self) -> bool:
        """True si hay ganador: bastantes pares y todo el intervalo por encima de 1.05×.

        Un intervalo ancho que llega a 1 (o a menos de un 5 % de diferencia) no es concluyente.
        """
        return self.pares >= PARES_MINIMOS and self.intervalo[0] >= MARGEN

    @property
    def ganador(self) -> str | None:
        if not self.concluyente:
            return None
        return self.nombres[1] if self._b_mas_rapido else self.nombres[0]

    @property
    def perdedor(self) -> str | None:
        if not self.concluyente:
            return None
        return self.nombres[0] if self._b_mas_rapido else self.nombres[1]

    @property
    def veredicto(self) -> str:
        """Una frase en español que es verdad pase lo que pase en la máquina."""
        bajo, alto = self.intervalo
        pares = f"{self.pares} pares{' alternados' if self.alternados else ''}"
        simulada = f" {AVISO_SIMULADA}" if self.simulada else ""
        if self.concluyente:
            return (f"En esta máquina, {self.ganador} fue {formatear_veces(self.veces)}× más rápido que "
                    f"{self.perdedor} (intervalo del 95 %: {formatear_veces(bajo)}–{formatear_veces(alto)}×, "
                    f"{pares}).{simulada}")
        a, b = self.nombres
        rb, ra = self.intervalo_razon
        pocos = f" Solo hubo {self.pares} pares: pide más repeticiones." if self.pares < PARES_MINIMOS else ""
        return (f"Sin diferencia clara en esta máquina: {a} tardó entre {formatear_veces(rb)} y "
                f"{formatear_veces(ra)} veces lo que {b} (intervalo del 95 %, {pares})."
                f"{pocos} Repite con la máquina en reposo o con más repeticiones.{simulada}")

    def a_dict(self) -> dict:
        return {"nombres": list(self.nombres), "dispositivo": self.dispositivo, "pares": self.pares,
                "mediana_a": self.mediana_a, "mediana_b": self.mediana_b, "veces": self.veces,
                "intervalo": list(self.intervalo), "concluyente": self.concluyente, "ganador": self.ganador,
                "veredicto": self.veredicto, "simulada": self.simulada, "muestras_a": self.muestras_a, "muestras_b": self.muestras_b}

    def tabla(self) -> Tabla:
        """Una fila por función (mediana, mínimo y máximo); debajo, el veredicto."""
        filas = [[nombre, formatear_tiempo(statistics.median(m)), formatear_tiempo(min(m)), formatear_tiempo(max(m))]
                 for nombre, m in zip(self.nombres, (self.muestras_a, self.muestras_b))]
        titulo = marcar_simulada(f"Comparación{': ' + self.descripcion if self.descripcion else ''} ({self.dispositivo})",
                                 self.simulada)
        return Tabla(titulo, ["", "mediana", "mínimo", "máximo"], filas, notas=[self.veredicto])


def _calibrar(funcion: Callable[[], object], d, reloj, objetivo: float) -> tuple[int, float]:
    """Cuántas llamadas seguidas forman un bloque de al menos ``objetivo`` segundos; y la primera (en frío)."""

    def bloque(k: int) -> float:
        sincronizar(d)
        inicio = reloj()
        for _ in range(k):
            funcion()
        sincronizar(d)
        return reloj() - inicio

    primera = bloque(1)
    k, segundos = 1, bloque(1)  # la segunda llamada ya es «caliente»
    while segundos < objetivo and k < 1_000_000:
        k = min(1_000_000, k * min(10, max(2, math.ceil(objetivo / max(segundos, 1e-9)))))
        segundos = bloque(k)
    return k, primera


def _bootstrap(razones: list[float], semilla: int) -> tuple[float, float]:
    """Intervalo del 95 % de la mediana de las razones por pares (bootstrap por percentiles)."""
    import numpy as np

    logs = np.log(np.asarray(razones, dtype=float))
    generador = np.random.default_rng(semilla)
    indices = generador.integers(0, len(logs), size=(REMUESTREOS, len(logs)))
    medianas = np.median(logs[indices], axis=1)
    cola = (1 - NIVEL) / 2
    bajo, alto = np.quantile(medianas, [cola, 1 - cola])
    return float(math.exp(bajo)), float(math.exp(alto))


def _leer_nombres(nombres) -> tuple[str, str]:
    if (not isinstance(nombres, (tuple, list)) or len(nombres) != 2
            or not all(isinstance(n, str) and n.strip() for n in nombres) or nombres[0] == nombres[1]):
        raise ValueError(f"nombres debe ser dos textos distintos, p. ej. nombres=('bucle', 'NumPy'); recibí "
                         f"{mostrar_valor(nombres)}.")
    return tuple(nombres)


def _leer_semilla(semilla) -> int:
    return leer_numero(semilla, "semilla (la del remuestreo del intervalo)", entero=True, minimo=0, ejemplo="semilla=0")


def _leer_descripcion(descripcion) -> str:
    if not isinstance(descripcion, str):
        raise ValueError(f"descripcion debe ser un texto (o ''); recibí {mostrar_valor(descripcion)}. Por ejemplo, "
                         "descripcion='matmul 1024'.")
    return descripcion


def _comprobar_duracion(primera_a: float, primera_b: float, k_a: int, k_b: int, objetivo: float,
                        repeticiones: int, presupuesto_s: float | None) -> None:
    """Rechaza, antes de los pares, una comparación que tardaría más de ``DURACION_MAXIMA_S``."""
    par = max(primera_a, 0.0) * k_a + max(primera_b, 0.0) * k_b  # la primera llamada, en frío, es la más lenta
    par = max(par, 2 * objetivo)
    prevista = repeticiones * par
    if presupuesto_s is not None:
        prevista = max(prevista, min(presupuesto_s, PARES_MAXIMOS * par))
    if prevista > DURACION_MAXIMA_S:
        raise ValueError(
            f"Esta comparación tardaría unos {prevista / 60:.0f} min ({repeticiones} pares de "
            f"{formatear_numero(par, cifras=3)} s cada uno, según la primera llamada): más de {DURACION_MAXIMA_S // 60} minutos. "
            "Baja repeticiones, o mide un trabajo más pequeño (una matriz menor, menos pasos).")


def comparar_tiempos(a: Callable[[], object], b: Callable[[], object], *, nombres=("a", "b"),
                     repeticiones: int = 7, presupuesto_s: float | None = 1.0, dispositivo="cpu",
                     reloj: Callable[[], float] | None = None, semilla: int = 0,
                     descripcion: str = "") -> Comparacion:
    """Mide ``a()`` y ``b()`` alternándolas y dice cuál fue más rápida, si se puede saber. Lección 03.

    1. **Calentar.** Cada función se llama una vez en frío (``primera_a``, ``primera_b``, que no
       cuentan) y se calibra cuántas llamadas seguidas forman una muestra de al menos 0.1 ms en la
       CPU (1 ms en una GPU): así una operación de microsegundos también se mide bien.
    2. **Alternar.** Se miden pares a-b, b-a, a-b... (cada par cambia el orden, para que ninguna
       vaya siempre detrás de la otra), sincronizando ``dispositivo`` antes y después de cada
       muestra. Al menos ``repeticiones`` pares; con ``presupuesto_s``, más pares hasta gastar esos
       segundos (como mucho 500).
    3. **Juzgar.** De cada par sale la razón tiempo_a / tiempo_b: los dos tiempos se midieron con la
       máquina en el mismo estado, así que si otro programa la frena, frena a los dos y la razón
       apenas cambia. ``veces`` es la mediana de esas razones (en el sentido del más rápido) e
       ``intervalo``, su intervalo del 95 % por *bootstrap*: se remuestrean los pares 2000 veces
       con un generador de semilla fija (``semilla``; el mismo dato da el mismo intervalo) y se
       toman los percentiles 2.5 y 97.5 de la mediana. La mediana y el remuestreo no suponen que
       los tiempos sigan una campana: un par interrumpido por otro programa es un valor raro que la
       mediana descarta. ``concluyente`` es True solo si hay al menos 5 pares y todo el intervalo
       está por encima de 1.05×; entonces ``ganador`` es el nombre del más rápido.

    ``dispositivo``: donde corre el trabajo (``"cpu"``, ``"cuda"``, ``"mps"``...), para
    sincronizarlo. Si una función usa la GPU y la otra la CPU, pasa la GPU. ``reloj``:
    ``time.perf_counter`` salvo que pases otro (las pruebas).
    """
    comprobar_sin_argumentos(a, "a", "comparar_tiempos necesita dos funciones sin argumentos: ")
    comprobar_sin_argumentos(b, "b", "comparar_tiempos necesita dos funciones sin argumentos: ")
    nombres = _leer_nombres(nombres)
    repeticiones = leer_numero(repeticiones, "repeticiones (los pares alternados mínimos)", entero=True, minimo=1,
                               maximo=PARES_MAXIMOS, ejemplo="repeticiones=10")
    if presupuesto_s is not None:
        presupuesto_s = leer_numero(presupuesto_s, "presupuesto_s", minimo=0, minimo_incluido=False,
                                    maximo=DURACION_MAXIMA_S, ejemplo="presupuesto_s=2 (segundos, o None)")
    semilla = _leer_semilla(semilla)
    descripcion = _leer_descripcion(descripcion)
    if reloj is not None and not callable(reloj):
        raise ValueError(f"reloj debe ser una función sin argumentos que da segundos (como time.perf_counter) o None; "
                         f"recibí {mostrar_valor(reloj)}.")
    d = como_dispositivo(dispositivo)
    reloj = reloj or time.perf_counter
    objetivo = BLOQUE_CPU_S if d.type == "cpu" else BLOQUE_ACELERADOR_S
    if presupuesto_s is not None:
        objetivo = min(objetivo, presupuesto_s / 20)
    k_a, primera_a = _calibrar(a, d, reloj, objetivo)
    k_b, primera_b = _calibrar(b, d, reloj, objetivo)
    _comprobar_duracion(primera_a, primera_b, k_a, k_b, objetivo, repeticiones, presupuesto_s)

    def muestra(funcion, k: int) -> float:
        sincronizar(d)
        inicio = reloj()
        for _ in range(k):
            funcion()
        sincronizar(d)
        return (reloj() - inicio) / k

    muestras_a: list[float] = []
    muestras_b: list[float] = []
    gastado = 0.0  # la suma de las muestras: el reloj solo se lee con el dispositivo sincronizado
    while len(muestras_a) < repeticiones or (
            presupuesto_s is not None and gastado < presupuesto_s and len(muestras_a) < PARES_MAXIMOS):
        if len(muestras_a) % 2 == 0:
            ta = muestra(a, k_a)
            tb = muestra(b, k_b)
        else:
            tb = muestra(b, k_b)
            ta = muestra(a, k_a)
        muestras_a.append(ta)
        muestras_b.append(tb)
        gastado += ta * k_a + tb * k_b
    return comparar_muestras(muestras_a, muestras_b, nombres=nombres, dispositivo=str(d), primera_a=primera_a,
                             primera_b=primera_b, semilla=semilla, descripcion=descripcion)


def _leer_tiempo(valor, nombre: str) -> float:
    """Un tiempo medido: segundos finitos y mayores que 0 (un escalar de NumPy o de torch también vale)."""
    if (isinstance(valor, torch.Tensor) and valor.numel() == 1) or (isinstance(valor, np.ndarray) and valor.size == 1):
        valor = valor.item()
    return leer_numero(valor, nombre, minimo=0, minimo_incluido=False,
                       ejemplo=f"{nombre}=0.0012 (segundos; un tiempo medido nunca es 0 ni negativo)")


def _leer_tiempos(muestras, nombre: str) -> list[float]:
    if isinstance(muestras, (str, bytes)) or not hasattr(muestras, "__iter__") or hasattr(muestras, "keys"):
        raise ValueError(f"{nombre} debe ser una lista de tiempos en segundos (una por par); recibí "
                         f"{mostrar_valor(muestras)}. Por ejemplo, {nombre}=[0.012, 0.011, 0.013].")
    tiempos = [_leer_tiempo(t, f"{nombre}[{i}]") for i, t in enumerate(muestras)]
    if not tiempos:
        raise ValueError(f"{nombre} está vacía: comparar_muestras necesita al menos un par medido. Por ejemplo, "
                         f"{nombre}=[0.012, 0.011, 0.013].")
    return tiempos


def comparar_muestras(muestras_a, muestras_b, *, nombres=("a", "b"), dispositivo: str = "cpu",
                      primera_a: float | None = None, primera_b: float | None = None, semilla: int = 0,
                      descripcion: str = "", alternados: bool = True, simulada: bool | None = None) -> Comparacion:
    """El juicio de ``comparar_tiempos`` sobre pares ya medidos (``muestras_a[i]`` junto a ``muestras_b[i]``).

    Para quien mide a su manera (por ejemplo, sin sincronizar a propósito, lección 03) pero
    quiere el mismo veredicto: mediana de las razones por pares e intervalo del 95 % por bootstrap.
    ``alternados=False`` si los pares no se midieron a la vez (dos ejecuciones seguidas, lección
    08): el veredicto no dice «alternados» y el intervalo solo recoge la variación de un par a otro.
    ``simulada``: si se midió en la GPU simulada (None: lo que diga ``dispositivo`` ahora mismo).
    """
    muestras_a, muestras_b = _leer_tiempos(muestras_a, "muestras_a"), _leer_tiempos(muestras_b, "muestras_b")
    if len(muestras_a) != len(muestras_b):
        raise ValueError(f"comparar_muestras necesita dos listas de tiempos del mismo largo (una por par); "
                         f"recibí {len(muestras_a)} y {len(muestras_b)}.")
    nombres = _leer_nombres(nombres)
    semilla = _leer_semilla(semilla)
    descripcion = _leer_descripcion(descripcion)
    primera_a, primera_b = (None if t is None else _leer_tiempo(t, n) for t, n in
                            ((primera_a, "primera_a"), (primera_b, "primera_b")))
    if not isinstance(alternados, bool):
        raise ValueError(f"alternados debe ser True o False; recibí {mostrar_valor(alternados)}.")
    if not isinstance(dispositivo, str):
        dispositivo = str(dispositivo)
    if simulada is None:
        simulada = dispositivo_simulado(dispositivo)
    razones = [x / y for x, y in zip(muestras_a, muestras_b)]
    razon = math.exp(statistics.median(math.log(r) for r in razones))
    intervalo = _bootstrap(razones, semilla)
    return Comparacion(tuple(nombres), muestras_a, muestras_b, primera_a, primera_b, dispositivo, razon,
                       intervalo, descripcion, alternados, bool(simulada))
