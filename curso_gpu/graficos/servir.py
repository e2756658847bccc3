"""Las figuras de servir un modelo: una respuesta token a token y la curva rendimiento-latencia. Lección 13.

Reciben lo que mide ``curso_gpu.servir`` (una ``Peticion``, un ``BarridoCarga``) y devuelven la ``Figure``.
"""

from __future__ import annotations

from .estilo import COLORES, dar_estilo, nueva_figura

__all__ = ["grafico_carga", "grafico_respuesta"]


def grafico_respuesta(peticion, titulo: str = "Una respuesta en streaming, token a token"):
    """Cuándo llegó cada trozo con texto: el TTFT (la espera hasta el primero) y los huecos entre tokens. Lección 13."""
    if peticion.ttft is None:
        raise ValueError("Esta petición no trajo ningún token (¿falló?): no hay nada que dibujar. "
                         f"Error: {peticion.error or 'ninguno'}.")
    momentos = [peticion.ttft]
    for hueco in peticion.huecos:
        momentos.append(momentos[-1] + hueco)
    figura, ejes = nueva_figura()
    ms = [1000 * t for t in momentos]
    ejes.axvspan(0, ms[0], color=COLORES["referencia"], alpha=0.15, label=f"TTFT: {ms[0]:.1f} ms (prefill)")
    ejes.step(ms, range(1, len(ms) + 1), where="post", color=COLORES["linea"], label="tokens recibidos (decode)")
    ejes.plot(ms, range(1, len(ms) + 1), "o", color=COLORES["linea"], markersize=3)
    dar_estilo(ejes, titulo, "milisegundos desde que se envió la petición", "tokens recibidos")
    ejes.legend(frameon=False, fontsize=9, loc="lower right")
    return figura


def grafico_carga(barrido, titulo: str = "Más usuarios: más tokens/s, hasta la rodilla"):
    """Tokens/s frente a la latencia p95, un punto por número de usuarios; marca la rodilla. Lección 13."""
    resultados = barrido.resultados
    x = [1000 * r.latencia.p95 for r in resultados]
    y = [r.tokens_por_segundo for r in resultados]
    figura, ejes = nueva_figura()
    ejes.plot(x, y, "o-", color=COLORES["linea"])
    for r, xi, yi in zip(resultados, x, y):
        ejes.annotate(f"{r.usuarios}", (xi, yi), textcoords="offset points", xytext=(4, 4), fontsize=9)
    rodilla = barrido.usuarios.index(barrido.rodilla)
    ejes.plot([x[rodilla]], [y[rodilla]], "o", markersize=12, markerfacecolor="none", color=COLORES["gpu"],
              label=f"rodilla: {barrido.rodilla} usuarios")
    dar_estilo(ejes, titulo, "latencia p95 por petición (ms)", "tokens/s del servidor")
    ejes.legend(frameon=False, fontsize=9, loc="lower right")
    if barrido.nota:
        figura.text(0.01, 0.01, barrido.nota, fontsize=8, color=COLORES["referencia"])
    return figura
