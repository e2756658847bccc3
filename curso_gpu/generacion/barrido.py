"""Generar con lotes de 1, 4 y 16 textos, con y sin caché, midiendo todo alternado. Lección 10.

``medir_barrido`` mide cada combinación (variante × lote) con el ``generate`` de ``transformers``
y **alterna** las medidas: una ronda mide todas las combinaciones, la siguiente en orden inverso,
y así ``repeticiones`` veces. Si otro programa frena la máquina, frena a todas por igual y las
razones entre ellas (lote 16 frente a lote 1, con caché frente a sin caché) se sostienen.

``BarridoGeneracion`` guarda las muestras y saca de ellas las frases que lee el alumno
(``frases()``): cuántas veces más tokens/s da el lote, cuánto ahorra la caché y qué parte del
techo del ancho de banda se alcanza; si no se conoce el ancho de banda de la GPU, lo dice.
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass, field

import torch

from ..base import (
    AVISO_SIMULADA, ComoTabla, Tabla, ancho_de_banda_conocido, contar, formatear_numero, formatear_tiempo, leer_numero,
    marcar_simulada, mostrar_valor,
)
from ..dispositivo import como_dispositivo, dispositivo_simulado, sincronizar
from .velocidad import comprobar_contexto, comprobar_para_generar, preparar_lote

__all__ = ["VARIANTES", "BarridoGeneracion", "FilaBarrido", "medir_barrido"]

_CON_CACHE = "con caché"
_SIN_CACHE = "sin caché"
_ESTATICA = "caché estática + torch.compile"
_REPETICIONES_MAXIMAS = 100
"""Más rondas no cambian las medianas: solo alargan la espera."""
_LOTE_MAXIMO = 4096
"""Un lote mayor no cabe en la memoria de ninguna GPU de la tabla del curso con un modelo de lenguaje."""
VARIANTES = (_CON_CACHE, _SIN_CACHE, _ESTATICA)
"""Las formas de generar que mide ``medir_barrido``. La estática solo se mide con el lote más pequeño."""


@dataclass
class FilaBarrido:
    """Una combinación medida: variante, lote y los segundos de cada generación (alternadas)."""

    variante: str
    lote: int
    tokens_nuevos: int          # por generación, sumando todo el lote
    pasos: int                  # llamadas al modelo por generación (una por token nuevo)
    segundos: list[float] = field(default_factory=list)

    @property
    def mediana(self) -> float:
        return statistics.median(self.segundos)

    @property
    def dispersion(self) -> float:
        """(máximo − mínimo) / mediana de las muestras: cuánto se movió la medida."""
        return (max(self.segundos) - min(self.segundos)) / self.mediana

    @property
    def tokens_por_segundo(self) -> float:
        return self.tokens_nuevos / self.mediana

    @property
    def segundos_por_paso(self) -> float:
        return self.mediana / self.pasos


@dataclass
class BarridoGeneracion(ComoTabla):
    """Lo que midió ``medir_barrido``, y las frases que salen de ello. Lección 10."""

    dispositivo: str
    nombre_gpu: str | None
    ancho_de_banda_gb_s: float | None   # None: no lo conozco (GPU fuera de la tabla del curso)
    bytes_pesos: int
    filas: list[FilaBarrido]
    repeticiones: int
    tokens_entrada: int
    fallos: list[str] = field(default_factory=list)  # variantes que no se pudieron medir, y por qué
    simulada: bool = False  # medido en la GPU simulada: tokens/s de la CPU, que no se comparan con el techo de la GPU

    def fila(self, variante: str, lote: int) -> FilaBarrido | None:
        return next((f for f in self.filas if f.variante == variante and f.lote == lote), None)

    def techo(self, lote: int) -> float | None:
        """Tokens/s máximos que deja la memoria con ``lote`` textos (None sin ancho de banda).
        Es una cuenta con la ficha de la GPU, no una medida."""
        if self.ancho_de_banda_gb_s is None:
            return None
        return lote * self.ancho_de_banda_gb_s * 1e9 / self.bytes_pesos

    def del_techo(self, fila: FilaBarrido) -> float | None:
        """El % del techo que alcanzó ``fila``; None sin techo y en la GPU simulada (sus tokens/s son de la CPU)."""
        techo = self.techo(fila.lote)
        return None if techo is None or self.simulada else 100 * fila.tokens_por_segundo / techo

    def frases(self) -> list[str]:
        """Lo que dicen los datos, en frases: lote, caché, caché estática y techo."""
        frases = [AVISO_SIMULADA] if self.simulada else []
        con = sorted((f for f in self.filas if f.variante == _CON_CACHE), key=lambda f: f.lote)
        if len(con) >= 2:
            uno, grande = con[0], con[-1]
            veces = grande.tokens_por_segundo / uno.tokens_por_segundo
            paso = grande.segundos_por_paso / uno.segundos_por_paso
            frases.append(
                f"Con lote {grande.lote}, {formatear_numero(veces, 1)} veces los tokens/s del lote {uno.lote}: "
                f"un paso con {grande.lote} textos costó {formatear_numero(paso, 2)} veces lo que uno con "
                f"{uno.lote} " + ("(menos: con la máquina ocupada, el ruido pesa más que el lote)." if paso < 0.9 else
                                  "(casi lo mismo)." if paso < 1.2 else
                                  f"(no {grande.lote / uno.lote:.0f} veces: cada lectura de los pesos sirve a todo el lote)."
                                  if paso < 0.8 * grande.lote / uno.lote else
                                  f"(casi {grande.lote / uno.lote:.0f} veces: aquí el lote no ayudó)."))
        for f in con:
            sin = self.fila(_SIN_CACHE, f.lote)
            if sin is not None:
                veces = f.tokens_por_segundo / sin.tokens_por_segundo
                frases.append(f"Con lote {f.lote}, la caché dio {formatear_numero(veces, 2)} veces los tokens/s de "
                              "sin caché" + (" (no hay una diferencia clara)." if 0.95 < veces < 1.05 else "."))
        estatica = next((f for f in self.filas if f.variante == _ESTATICA), None)
        if estatica is not None and (normal := self.fila(_CON_CACHE, estatica.lote)) is not None:
            veces = estatica.tokens_por_segundo / normal.tokens_por_segundo
            frases.append(f"Con lote {estatica.lote}, la caché estática con torch.compile dio "
                          f"{formatear_numero(veces, 2)} veces los tokens/s de la caché normal"
                          + (" (no hay una diferencia clara)." if 0.95 < veces < 1.05 else "."))
        for fallo in self.fallos:
            frases.append(f"La caché estática con torch.compile no funcionó aquí ({fallo}): va sin ella.")
        movida = max((f for f in self.filas if len(f.segundos) > 1), key=lambda f: f.dispersion, default=None)
        if movida is not None and movida.dispersion > 0.25:
            frases.append(f"Ojo: las medidas se movieron mucho (hasta un {100 * movida.dispersion:.0f} % en "
                          f"«{movida.variante}, lote {movida.lote}»): la máquina estaba ocupada. Las razones entre "
                          "filas, medidas alternadas, aguantan mejor que las cifras sueltas.")
        quien = self.nombre_gpu or self.dispositivo
        if self.ancho_de_banda_gb_s is None:
            frases.append(f"No conozco su ancho de banda ({quien} no está en la tabla del curso): "
                          "aquí va solo la medida, sin techo con el que compararla.")
        elif con and self.simulada:
            f = con[0]
            frases.append(
                f"El techo de {quien} con lote {f.lote} sería {formatear_numero(self.techo(f.lote), 0)} tokens/s "
                f"({formatear_numero(self.ancho_de_banda_gb_s, cifras=3)} GB/s ÷ "
                f"{formatear_numero(self.bytes_pesos / 1e6, cifras=3)} MB de pesos); los tokens/s de arriba son de la "
                "CPU (GPU simulada), así que no se comparan con él.")
        elif con:
            f = con[0]
            techo = self.techo(f.lote)
            frases.append(
                f"Con lote {f.lote} y caché: {formatear_numero(f.tokens_por_segundo, 0)} tokens/s, el "
                f"{formatear_numero(100 * f.tokens_por_segundo / techo, cifras=2)} % del techo de "
                f"{formatear_numero(techo, 0)} tokens/s ({formatear_numero(self.ancho_de_banda_gb_s, cifras=3)} GB/s "
                f"÷ {formatear_numero(self.bytes_pesos / 1e6, cifras=3)} MB de pesos).")
        return frases

    def tabla(self) -> Tabla:
        filas = []
        for f in self.filas:
            techo, del_techo = self.techo(f.lote), self.del_techo(f)
            filas.append([f.variante, formatear_numero(f.lote), formatear_tiempo(f.mediana),
                          formatear_numero(100 * f.dispersion, 0, "%"),
                          formatear_numero(f.tokens_por_segundo, 0),
                          formatear_numero(techo, 0) if techo else "—",
                          formatear_numero(del_techo, cifras=2, unidad="%") if del_techo is not None else "—"])
        medida = f"Mediana de {contar(self.repeticiones, 'generación')}" if self.repeticiones > 1 else "Una generación"
        notas = [f"{medida} por fila, alternando las filas en cada ronda; "
                 f"entrada de {self.tokens_entrada} tokens (con relleno), búsqueda voraz."]
        if self.ancho_de_banda_gb_s is None:
            notas.append("No conozco su ancho de banda: sin techo.")
        else:
            notas.append(f"Techo: lote × {formatear_numero(self.ancho_de_banda_gb_s, cifras=3)} GB/s ÷ "
                         f"{formatear_numero(self.bytes_pesos / 1e6, cifras=3)} MB de pesos.")
        if self.simulada:
            notas.insert(0, AVISO_SIMULADA + " Por eso no se da el % del techo.")
        return Tabla(marcar_simulada(f"Generación en {self.nombre_gpu or self.dispositivo}", self.simulada),
                     ["variante", "lote", "tiempo", "dispersión", "tokens/s", "techo", "del techo"], filas, notas=notas)


def _textos_del_lote(textos: list[str], lote: int) -> list[str]:
    return [textos[i % len(textos)] for i in range(lote)]


def medir_barrido(modelo, tokenizador, textos, *, lotes=(1, 4, 16), variantes=(_CON_CACHE,),
                  max_tokens_nuevos: int = 32, repeticiones: int = 5, dispositivo=None,
                  nombre_gpu: str | None = None, ancho_de_banda_gb_s: float | None = None,
                  bytes_pesos: int | None = None, compilar=None) -> BarridoGeneracion:
    """Mide ``generate`` con cada lote y cada variante, alternando las medidas. Lección 10.

    - ``textos``: frases de las que se forma cada lote (el lote 16 repite si hay menos).
    - ``variantes``: de ``VARIANTES``. ``"caché estática + torch.compile"`` se mide solo con el
      lote más pequeño: ``cache_implementation="static"`` y el ``forward`` del modelo compilado con
      ``torch.compile(mode="reduce-overhead")`` (``compilar`` lo cambia; el modelo queda como estaba).
    - Cada generación produce exactamente ``max_tokens_nuevos`` tokens por texto (``min_new_tokens``).
    - El techo: ``ancho_de_banda_gb_s`` si lo das; si no, el de la ficha de ``nombre_gpu`` si está en
      la tabla del curso; si no, ninguno (y las frases lo dicen). ``bytes_pesos``: por defecto, los
      de los parámetros del modelo.
    """
    from transformers import GenerationConfig

    textos = comprobar_para_generar(modelo, tokenizador, textos)
    max_tokens_nuevos = leer_numero(max_tokens_nuevos, "max_tokens_nuevos (cuántos tokens generar)", entero=True,
                                    minimo=1, ejemplo="max_tokens_nuevos=32")
    repeticiones = leer_numero(repeticiones, "repeticiones", entero=True, minimo=1, maximo=_REPETICIONES_MAXIMAS,
                               ejemplo="repeticiones=5")
    if not isinstance(lotes, (list, tuple, range)) or not lotes:
        raise ValueError(f"lotes debe ser una lista de tamaños de lote, p. ej. lotes=(1, 4, 16); recibí "
                         f"{mostrar_valor(lotes)}.")
    lotes = sorted({leer_numero(l, "lote (cada uno de lotes)", entero=True, minimo=1, maximo=_LOTE_MAXIMO,
                                ejemplo="lotes=(1, 4, 16)") for l in lotes})
    if isinstance(variantes, str):
        variantes = (variantes,)
    if not isinstance(variantes, (list, tuple)):
        variantes = (variantes,)
    desconocidas = [v for v in variantes if v not in VARIANTES]
    if desconocidas or not variantes:
        raise ValueError(f"variantes desconocidas {desconocidas or variantes!r}; usa algunas de: {', '.join(VARIANTES)}.")
    if nombre_gpu is not None and not isinstance(nombre_gpu, str):
        raise ValueError(f"nombre_gpu debe ser el nombre de la GPU (torch.cuda.get_device_name()) o None; recibí "
                         f"{mostrar_valor(nombre_gpu)}.")
    if ancho_de_banda_gb_s is not None:
        ancho_de_banda_gb_s = leer_numero(ancho_de_banda_gb_s, "ancho_de_banda_gb_s", minimo=0, minimo_incluido=False,
                                          ejemplo="ancho_de_banda_gb_s=320 (una T4), o None")
    if bytes_pesos is not None:
        bytes_pesos = leer_numero(bytes_pesos, "bytes_pesos", entero=True, minimo=1, ejemplo="bytes_pesos=None (los del modelo)")
    if compilar is not None and not callable(compilar):
        raise ValueError(f"compilar debe ser una función como torch.compile, o None; recibí {mostrar_valor(compilar)}.")
    d = como_dispositivo(dispositivo) if dispositivo is not None else next(modelo.parameters()).device
    if ancho_de_banda_gb_s is None and nombre_gpu is not None:
        ancho_de_banda_gb_s = ancho_de_banda_conocido(nombre_gpu)
    if bytes_pesos is None:
        bytes_pesos = sum(p.numel() * p.element_size() for p in modelo.parameters())

    eos = modelo.generation_config.eos_token_id
    relleno = tokenizador.pad_token_id if tokenizador.pad_token_id is not None else (
        eos[0] if isinstance(eos, (list, tuple)) else eos)
    base = dict(do_sample=False, pad_token_id=relleno, eos_token_id=eos,
                max_new_tokens=max_tokens_nuevos, min_new_tokens=max_tokens_nuevos)
    combinaciones = [(v, l) for v in variantes for l in (lotes[:1] if v == _ESTATICA else lotes)]
    entradas = {l: preparar_lote(tokenizador, _textos_del_lote(textos, l), d) for l in lotes}
    comprobar_contexto(modelo, max(int(e["input_ids"].shape[1]) for e in entradas.values()), max_tokens_nuevos)
    forward_original = modelo.forward
    compilado = None
    if _ESTATICA in variantes:
        compilar = compilar or torch.compile
        compilado = compilar(forward_original, mode="reduce-overhead", fullgraph=True)

    def generar(variante: str, lote: int) -> float:
        opciones = dict(base, use_cache=variante != _SIN_CACHE)
        if variante == _ESTATICA:
            opciones["cache_implementation"] = "static"
            # Compilamos nosotros (como en la guía de transformers); desde la 4.5x, generate compilaría
            # además por su cuenta con la caché estática en una GPU: disable_compile lo evita.
            opciones["disable_compile"] = True
            modelo.forward = compilado
        try:
            sincronizar(d)
            inicio = time.perf_counter()
            modelo.generate(**entradas[lote], generation_config=GenerationConfig(**opciones))
            sincronizar(d)
            return time.perf_counter() - inicio
        finally:
            modelo.forward = forward_original

    filas = {c: FilaBarrido(c[0], c[1], c[1] * max_tokens_nuevos, max_tokens_nuevos) for c in combinaciones}
    fallos = []
    modelo.eval()
    with torch.inference_mode():
        for c in list(combinaciones):  # calentamiento (y, en la estática, compilar): no cuenta
            if c[0] != _ESTATICA:
                generar(*c)
                continue
            try:  # compilar depende de la versión de torch, de transformers y del modelo
                generar(*c)
                generar(*c)
            except Exception as error:  # noqa: BLE001 — se cuenta en las frases y se sigue sin ella
                fallos.append(f"{type(error).__name__}: {str(error).splitlines()[0][:200] if str(error) else ''}")
                combinaciones.remove(c)
                del filas[c]
        for ronda in range(repeticiones):
            for c in (combinaciones if ronda % 2 == 0 else combinaciones[::-1]):
                filas[c].segundos.append(generar(*c))
    return BarridoGeneracion(dispositivo=str(d), nombre_gpu=nombre_gpu, ancho_de_banda_gb_s=ancho_de_banda_gb_s,
                             bytes_pesos=int(bytes_pesos), filas=list(filas.values()), repeticiones=repeticiones,
                             tokens_entrada=int(entradas[lotes[-1]]["input_ids"].shape[1]), fallos=fallos,
                             simulada=dispositivo_simulado(d))
