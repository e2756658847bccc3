"""Lo que mide ``medir_carga``: cada petición (``Peticion``) y su resumen (``ResultadoCarga``). Lección 13.

- **TTFT** (*time to first token*): desde que se envía la petición hasta el primer trozo con texto.
  Es la espera del usuario antes de ver nada: sobre todo, leer la entrada (*prefill*).
- **ITL** (*inter-token latency*): cada hueco entre dos trozos con texto seguidos.
- **TPOT** (*time per output token*): por petición, ``(latencia - TTFT) / (tokens - 1)``: lo que cuesta
  cada token de la respuesta (*decode*).
- **Latencia** de extremo a extremo: desde el envío hasta el último byte.
- **Goodput**: la fracción de peticiones que cumplen un objetivo (SLO) de TTFT y de TPOT.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field

from ..base import ComoTabla, Tabla, contar, formatear_numero, formatear_tiempo, mostrar_valor

__all__ = ["Peticion", "Percentiles", "ResultadoCarga", "percentil"]


def percentil(valores, q: float) -> float:
    """El percentil ``q`` (de 0 a 100) de ``valores``, interpolando entre los dos vecinos (como NumPy)."""
    ordenados = sorted(valores)
    if not ordenados:
        return math.nan
    posicion = (len(ordenados) - 1) * q / 100
    abajo = math.floor(posicion)
    arriba = min(abajo + 1, len(ordenados) - 1)
    return ordenados[abajo] + (ordenados[arriba] - ordenados[abajo]) * (posicion - abajo)


@dataclass(frozen=True)
class Percentiles:
    """p50, p90, p95 y p99 de unos tiempos, en segundos (NaN si no hay ninguno)."""

    p50: float
    p90: float
    p95: float
    p99: float
    n: int

    @classmethod
    def de(cls, valores) -> "Percentiles":
        valores = list(valores)
        return cls(*(percentil(valores, q) for q in (50, 90, 95, 99)), len(valores))


@dataclass
class Peticion:
    """Una petición medida. Tiempos en segundos desde el envío; ``error`` es None si fue bien."""

    inicio: float  # cuándo se envió, en segundos desde que empezó la carga
    ttft: float | None = None
    huecos: list[float] = field(default_factory=list)  # entre trozos con texto seguidos
    latencia: float | None = None
    tokens_contados: int = 0  # trozos con texto que llegaron
    tokens_usage: int | None = None  # completion_tokens de «usage», si el servidor lo manda
    error: str | None = None  # el tipo: "conexión", "HTTP 400", "corte", "tiempo"…
    detalle: str = ""

    @property
    def bien(self) -> bool:
        return self.error is None

    @property
    def tokens(self) -> int:
        """Los tokens de la respuesta: los de ``usage`` si llegó (el servidor los sabe seguro), si no, los contados."""
        return self.tokens_usage if self.tokens_usage is not None else self.tokens_contados

    @property
    def tpot(self) -> float | None:
        if not self.bien or self.ttft is None or self.latencia is None or self.tokens < 2:
            return None
        return (self.latencia - self.ttft) / (self.tokens - 1)


def _leer_slo(slo) -> dict[str, float]:
    claves = ("ttft", "tpot", "latencia")
    if not hasattr(slo, "items") or not slo or any(k not in claves for k in slo):
        raise ValueError(f"slo debe ser un diccionario con objetivos en segundos de {', '.join(claves)}, p. ej. "
                         f"{{'ttft': 0.5, 'tpot': 0.05}}; recibí {mostrar_valor(slo)}.")
    salida = {}
    for clave, valor in slo.items():
        if isinstance(valor, bool) or not isinstance(valor, (int, float)) or not valor > 0 or math.isinf(valor):
            raise ValueError(f"slo[{clave!r}] debe ser un tiempo en segundos mayor que 0, p. ej. 0.5; recibí "
                             f"{mostrar_valor(valor)}.")
        salida[clave] = float(valor)
    return salida


@dataclass
class ResultadoCarga(ComoTabla):
    """El resumen de una carga medida con ``medir_carga``. Lección 13.

    ``ttft``, ``tpot``, ``itl`` y ``latencia`` son ``Percentiles`` (segundos) de las peticiones que
    fueron bien. ``tokens_por_segundo`` y ``peticiones_por_segundo`` cuentan solo esas, sobre la
    duración total. ``errores``: cuántas fallaron, por tipo. ``goodput(slo)``: la fracción que cumple.
    """

    peticiones: list[Peticion]
    duracion_s: float
    usuarios: int
    llegadas: float | None
    max_tokens: int
    concurrencia_maxima: int
    url: str
    modelo: str
    nota: str = ""  # p. ej. «medido en la CPU» en la T4 simulada

    @property
    def bien(self) -> list[Peticion]:
        return [p for p in self.peticiones if p.bien]

    @property
    def ttft(self) -> Percentiles:
        return Percentiles.de(p.ttft for p in self.bien if p.ttft is not None)

    @property
    def tpot(self) -> Percentiles:
        return Percentiles.de(p.tpot for p in self.bien if p.tpot is not None)

    @property
    def itl(self) -> Percentiles:
        return Percentiles.de(h for p in self.bien for h in p.huecos)

    @property
    def latencia(self) -> Percentiles:
        return Percentiles.de(p.latencia for p in self.bien if p.latencia is not None)

    @property
    def tokens_salida(self) -> int:
        return sum(p.tokens for p in self.bien)

    @property
    def tokens_por_segundo(self) -> float:
        return self.tokens_salida / self.duracion_s if self.duracion_s > 0 else math.nan

    @property
    def peticiones_por_segundo(self) -> float:
        return len(self.bien) / self.duracion_s if self.duracion_s > 0 else math.nan

    @property
    def errores(self) -> dict[str, int]:
        return dict(Counter(p.error for p in self.peticiones if p.error is not None))

    @property
    def desajustes_usage(self) -> int:
        """Peticiones en las que los trozos con texto no coinciden con ``usage`` (un trozo puede traer
        varios tokens, o uno especial ninguno): entonces cuenta ``usage``."""
        return sum(1 for p in self.bien if p.tokens_usage is not None and p.tokens_usage != p.tokens_contados)

    def goodput(self, slo) -> float:
        """La fracción (0 a 1) de todas las peticiones que fueron bien y cumplen ``slo``, p. ej.
        ``{"ttft": 0.5, "tpot": 0.05}`` (segundos). Una petición que falló no cumple."""
        objetivos = _leer_slo(slo)
        if not self.peticiones:
            return math.nan

        def cumple(p: Peticion) -> bool:
            medidas = {"ttft": p.ttft, "tpot": p.tpot, "latencia": p.latencia}
            return p.bien and all(medidas[k] is None and k == "tpot" or (medidas[k] is not None and medidas[k] <= v)
                                  for k, v in objetivos.items())

        return sum(cumple(p) for p in self.peticiones) / len(self.peticiones)

    def tabla(self) -> Tabla:
        def fila(nombre: str, pc: Percentiles) -> list:
            return [nombre] + [formatear_tiempo(x) if not math.isnan(x) else "—" for x in (pc.p50, pc.p90, pc.p99)]

        modo = (f"llegadas de Poisson a {formatear_numero(self.llegadas)} peticiones/s (máx. {self.usuarios} a la vez)"
                if self.llegadas is not None else f"{contar(self.usuarios, 'usuario')} a la vez")
        notas = [f"{len(self.bien)} de {len(self.peticiones)} peticiones bien en {formatear_tiempo(self.duracion_s)}; "
                 f"{formatear_numero(self.tokens_por_segundo, cifras=3)} tokens/s, "
                 f"{formatear_numero(self.peticiones_por_segundo, cifras=3)} peticiones/s; "
                 f"como mucho {self.concurrencia_maxima} en curso a la vez."]
        if self.errores:
            notas.append("Errores: " + ", ".join(f"{k}: {v}" for k, v in sorted(self.errores.items())) + ".")
        if self.desajustes_usage:
            notas.append(f"En {self.desajustes_usage} respuestas los trozos con texto no coinciden con «usage»: "
                         "cuento los tokens de «usage».")
        if self.nota:
            notas.append(self.nota)
        return Tabla(f"Carga: {modo}, {self.max_tokens} tokens por respuesta", ["", "p50", "p90", "p99"],
                     [fila("TTFT", self.ttft), fila("TPOT", self.tpot), fila("ITL", self.itl),
                      fila("latencia", self.latencia)], notas=notas)
