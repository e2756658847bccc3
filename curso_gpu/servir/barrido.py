"""La misma carga con 1, 2, 4, 8… usuarios (``barrer_concurrencia``) y dos servidores comparados
alternados (``comparar_servidores``). Lección 13.

Con más usuarios a la vez, el servidor saca más tokens por segundo (mete varias peticiones en cada
paso) hasta que se satura; desde ahí, cada usuario más solo alarga la espera de todos. Ese punto es la
**rodilla** de la curva rendimiento-latencia, y ``BarridoCarga.rodilla`` la saca de los datos.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from ..base import ComoTabla, Tabla, contar, formatear_numero, formatear_tiempo, leer_numero, mostrar_valor
from ..medicion import Comparacion, comparar_muestras
from .carga import PROMPT, medir_carga
from .resultados import ResultadoCarga

__all__ = ["GANANCIA_MINIMA", "BarridoCarga", "barrer_concurrencia", "comparar_servidores"]

GANANCIA_MINIMA = 1.15
"""Doblar los usuarios «aún rinde» si los tokens/s suben al menos un 15 %; si no, se pasó la rodilla."""


@dataclass
class BarridoCarga(ComoTabla):
    """Un ``ResultadoCarga`` por número de usuarios, en orden. Lo devuelve ``barrer_concurrencia``."""

    resultados: list[ResultadoCarga]
    nota: str = ""

    @property
    def usuarios(self) -> list[int]:
        return [r.usuarios for r in self.resultados]

    @property
    def rodilla(self) -> int:
        """Los usuarios desde los que añadir más ya no sube los tokens/s al menos ``GANANCIA_MINIMA`` veces
        (el último número si todos rinden: la rodilla está más allá de lo medido)."""
        for antes, despues in zip(self.resultados, self.resultados[1:]):
            if not despues.tokens_por_segundo >= antes.tokens_por_segundo * GANANCIA_MINIMA:
                return antes.usuarios
        return self.resultados[-1].usuarios

    def frase(self) -> str:
        """Lo que dice la curva, sacado de los datos."""
        if len(self.resultados) < 2:
            return "Con un solo punto no hay curva: mide al menos dos números de usuarios."
        primero, ultimo = self.resultados[0], self.resultados[-1]
        rodilla = self.rodilla
        veces_tokens = ultimo.tokens_por_segundo / primero.tokens_por_segundo if primero.tokens_por_segundo else float("nan")
        veces_latencia = ultimo.latencia.p95 / primero.latencia.p95 if primero.latencia.p95 else float("nan")
        texto = (f"De {primero.usuarios} a {contar(ultimo.usuarios, 'usuario')}, los tokens/s se multiplican por "
                 f"{formatear_numero(veces_tokens, 2)} y la latencia p95 por {formatear_numero(veces_latencia, 2)}. ")
        if rodilla == ultimo.usuarios:
            return texto + "Cada paso aún rinde: la rodilla está más allá de lo medido."
        return texto + (f"La rodilla está en {contar(rodilla, 'usuario')}: desde ahí, más usuarios apenas dan más tokens/s "
                        f"(menos de un {round((GANANCIA_MINIMA - 1) * 100)} % más) y solo alargan la espera.")

    def tabla(self) -> Tabla:
        filas = [[r.usuarios, formatear_numero(r.tokens_por_segundo, cifras=3), formatear_numero(r.peticiones_por_segundo, cifras=3),
                  formatear_tiempo(r.ttft.p50), formatear_tiempo(r.tpot.p50), formatear_tiempo(r.latencia.p95),
                  sum(r.errores.values())] for r in self.resultados]
        notas = [self.frase()] + ([self.nota] if self.nota else [])
        return Tabla("Barrido de concurrencia", ["usuarios", "tokens/s", "peticiones/s", "TTFT p50", "TPOT p50",
                                                 "latencia p95", "errores"], filas, notas=notas)


def _leer_usuarios(usuarios) -> list[int]:
    if isinstance(usuarios, (str, bytes)) or not hasattr(usuarios, "__iter__"):
        raise ValueError(f"usuarios debe ser una lista de números de usuarios, p. ej. usuarios=(1, 2, 4, 8); "
                         f"recibí {mostrar_valor(usuarios)}.")
    lista = [leer_numero(u, "usuarios", entero=True, minimo=1, maximo=4096, ejemplo="usuarios=(1, 2, 4, 8)")
             for u in usuarios]
    if not lista or sorted(set(lista)) != lista:
        raise ValueError(f"usuarios debe ir de menos a más y sin repetir, p. ej. (1, 2, 4, 8); recibí {lista}.")
    return lista


def barrer_concurrencia(url, modelo, *, usuarios=(1, 2, 4, 8), peticiones_por_usuario: int = 4,
                        max_tokens: int = 32, prompt: str = PROMPT, chat: bool = False, limite_s: float = 120,
                        nota: str = "") -> BarridoCarga:
    """``medir_carga`` con cada número de ``usuarios`` (lazo cerrado), ``peticiones_por_usuario`` cada uno. Lección 13.

    Devuelve un ``BarridoCarga``: su tabla, su ``rodilla`` y su frase; ``graficos.grafico_carga`` lo dibuja.
    """
    lista = _leer_usuarios(usuarios)
    por_usuario = leer_numero(peticiones_por_usuario, "peticiones_por_usuario", entero=True, minimo=1,
                              ejemplo="peticiones_por_usuario=4")
    resultados = [medir_carga(url, modelo, usuarios=u, peticiones=u * por_usuario, max_tokens=max_tokens,
                              prompt=prompt, chat=chat, limite_s=limite_s, nota=nota) for u in lista]
    return BarridoCarga(resultados, nota)


def comparar_servidores(url_a, modelo_a, url_b, modelo_b, *, nombres=("a", "b"), usuarios: int = 8,
                        peticiones: int = 8, max_tokens: int = 16, rondas: int = 5, prompt: str = PROMPT,
                        dispositivo: str = "cpu", limite_s: float = 120) -> Comparacion:
    """Dos servidores con la misma carga, **alternados** (a b, b a, a b…): el veredicto de
    ``comparar_muestras`` sobre el tiempo de servir ``peticiones`` con ``usuarios`` a la vez. Lección 13.

    Si una ronda tiene errores, la comparación se para y lo dice: un tiempo con peticiones fallidas no vale.
    """
    rondas = leer_numero(rondas, "rondas", entero=True, minimo=1, maximo=100, ejemplo="rondas=5")
    destinos = {"a": (url_a, modelo_a), "b": (url_b, modelo_b)}
    tiempos: dict[str, list[float]] = {"a": [], "b": []}
    for ronda in range(rondas + 1):  # la ronda 0 calienta los dos y no cuenta
        for clave in ("ab" if ronda % 2 == 0 else "ba"):
            url, modelo = destinos[clave]
            inicio = time.perf_counter()
            resultado = medir_carga(url, modelo, usuarios=usuarios, peticiones=peticiones, max_tokens=max_tokens,
                                    prompt=prompt, limite_s=limite_s, barra_progreso=False)
            if resultado.errores:
                nombre = nombres[0] if clave == "a" else nombres[1]
                raise RuntimeError(f"La carga contra {nombre} ({url}) tuvo errores: {resultado.errores}. Revisa el "
                                   "servidor (servidor.ultimas_lineas()) antes de comparar.")
            if ronda:
                tiempos[clave].append(time.perf_counter() - inicio)
    return comparar_muestras(tiempos["a"], tiempos["b"], nombres=nombres, dispositivo=dispositivo,
                             descripcion=f"servir {peticiones} peticiones de {max_tokens} tokens con {usuarios} a la vez")
