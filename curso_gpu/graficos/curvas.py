"""Las figuras de entrenar: curvas, reanudación, dibujos, tiempos, memoria y cargadores. Lecciones 05 a 07.

Cada función recibe los datos que devuelve otro módulo (``Historial``, ``DesgloseMemoria``,
``ComparacionCargadores``...) y devuelve la ``Figure`` de matplotlib. Se importan también
desde ``graficos``.
"""

from __future__ import annotations

from .estilo import COLORES, dar_estilo, leyenda_fuera, nueva_figura, pyplot
from ..base import formatear_numero, marcar_simulada
from ..dispositivo import dispositivo_simulado
from ..entrenamiento import NOMBRES_CLASES

__all__ = [
    "curvas_entrenamiento", "dibujos_fallados", "grafico_cargadores", "grafico_memoria_entrenamiento",
    "grafico_reanudacion", "grafico_tiempos_epoca", "muestras_por_clase",
]


# --- Lección 05: entrenamiento ---------------------------------------------------------------

def curvas_entrenamiento(historial, titulo: str | None = None):
    """Pérdida (en escala logarítmica) y accuracy, de entrenamiento y validación. Lección 05.

    La pérdida va en escala log: pasa de ~1 a ~0.0001 y, en escala lineal, todo lo que ocurre
    tras las primeras épocas parecería una línea plana en cero.
    """
    figura, (ax_perdida, ax_acc) = nueva_figura(2)
    for valores_perdida, valores_acc, nombre, marca in (
            (historial.perdida_entrenamiento, historial.accuracy_entrenamiento, "entrenamiento", "o-"),
            (historial.perdida_validacion, historial.accuracy_validacion, "validación", "s--")):
        color = COLORES["entrenamiento" if nombre == "entrenamiento" else "validacion"]
        ax_perdida.plot(historial.epocas_registradas, valores_perdida, marca, color=color, markersize=4, label=nombre)
        ax_acc.plot(historial.epocas_registradas, valores_acc, marca, color=color, markersize=4, label=nombre)
    ax_perdida.set_yscale("log")
    dar_estilo(ax_perdida, "Pérdida (escala logarítmica)", "época", "pérdida (entropía cruzada)")
    dar_estilo(ax_acc, "Accuracy", "época", "accuracy (fracción de aciertos)")
    ax_acc.set_ylim(0, 1.05)
    leyenda_fuera(ax_acc)
    figura.suptitle(titulo or marcar_simulada(f"Entrenamiento en {historial.dispositivo} ({historial.segundos:.2f} s)",
                                              bool(getattr(historial, "simulada", False))))
    return figura


def _serie(datos) -> tuple[list[int], list[float]]:
    """(épocas, pérdidas) de un ``Historial`` o de un par de listas."""
    if hasattr(datos, "perdida_entrenamiento"):
        return list(datos.epocas_registradas), list(datos.perdida_entrenamiento)
    epocas, perdidas = datos
    return list(epocas), list(perdidas)


def grafico_reanudacion(seguido, cortado, reanudado, desconexion: int, reanudado_desde: int,
                        titulo: str = "Reanudar desde un checkpoint: no se pierde nada"):
    """La pérdida del entrenamiento cortado y reanudado, sobre la del que no se cortó. Lecciones 02 y 05.

    ``seguido``, ``cortado`` y ``reanudado``: un ``Historial`` o un par ``(épocas, pérdidas)``.
    Marca la época de la ``desconexion`` y la del checkpoint del que se reanudó. Si el reanudado
    cae encima del seguido, no se perdió nada.
    """
    figura, ejes = nueva_figura()
    e_seguido, p_seguido = _serie(seguido)
    e_cortado, p_cortado = _serie(cortado)
    e_reanudado, p_reanudado = _serie(reanudado)
    ejes.plot(e_seguido, p_seguido, color="#d0d7de", linewidth=6, solid_capstyle="round",
              label="sin cortes (referencia)")
    ejes.plot(e_cortado, p_cortado, "o-", color=COLORES["entrenamiento"], markersize=4, label="antes de la desconexión")
    ejes.plot(e_reanudado, p_reanudado, "s--", color=COLORES["validacion"], markersize=4, label="reanudado")
    ejes.axvline(desconexion, color=COLORES["no_cabe"], linestyle=":", linewidth=1.5)
    ejes.axvline(reanudado_desde, color=COLORES["cabe"], linestyle=":", linewidth=1.5)
    ejes.set_yscale("log")
    arriba = ejes.get_ylim()[1]
    ejes.annotate(f"desconexión\n(época {desconexion})", (desconexion, arriba), xytext=(4, -4),
                  textcoords="offset points", va="top", fontsize=9, color=COLORES["no_cabe"])
    ejes.annotate(f"reanudado desde\nla época {reanudado_desde}", (reanudado_desde, arriba), xytext=(-4, -4),
                  textcoords="offset points", va="top", ha="right", fontsize=9, color=COLORES["cabe"])
    dar_estilo(ejes, titulo, "época", "pérdida de entrenamiento (escala log)")
    leyenda_fuera(ejes)
    return figura


def muestras_por_clase(X, y, por_clase: int = 5, nombres=None, titulo: str = "Ejemplos de cada clase"):
    """Una fila de imágenes de 8×8 por clase (las primeras ``por_clase`` de cada una). Lección 05."""
    nombres = tuple(nombres or NOMBRES_CLASES)
    plt = pyplot()
    figura, ejes = plt.subplots(len(nombres), por_clase, figsize=(1.4 * por_clase, 1.5 * len(nombres)), squeeze=False,
                                layout="constrained")
    for clase, nombre in enumerate(nombres):
        indices = [i for i in range(len(y)) if int(y[i]) == clase][:por_clase]
        for j in range(por_clase):
            eje = ejes[clase][j]
            eje.set_xticks([])
            eje.set_yticks([])
            if j < len(indices):
                eje.imshow(X[indices[j]].reshape(8, 8).detach().cpu().numpy(), cmap="gray_r", vmin=0, vmax=1)
            if j == 0:
                eje.set_ylabel(nombre)
    figura.suptitle(titulo)
    return figura


def dibujos_fallados(X, y, predicciones: dict, nombres=None, maximo: int = 8,
                     titulo: str = "Los dibujos a mano que cada modelo falla"):
    """Una fila por modelo con los dibujos que clasifica mal, enmarcados en rojo. Lección 05.

    ``predicciones``: ``{"nombre del modelo": tensor de clases predichas}``, en el orden de
    ``X``. Bajo cada dibujo: la clase real y la que dijo el modelo. Se dibujan como mucho ``maximo``
    por fila; si falla más, la etiqueta de la fila lo dice («9 de 35 mal; aquí, los 8 primeros»).
    """
    nombres = tuple(nombres or NOMBRES_CLASES)
    plt = pyplot()
    filas = list(predicciones.items())
    figura, ejes = plt.subplots(len(filas), maximo, figsize=(1.3 * maximo, 1.75 * len(filas)), squeeze=False,
                                layout="constrained")
    for fila, (modelo, predichas) in enumerate(filas):
        predichas = [int(p) for p in predichas]
        malos = [i for i in range(len(y)) if predichas[i] != int(y[i])]
        for j in range(maximo):
            eje = ejes[fila][j]
            eje.set_xticks([])
            eje.set_yticks([])
            for borde in eje.spines.values():
                borde.set_visible(False)
            if j < len(malos):
                i = malos[j]
                eje.imshow(X[i].reshape(8, 8).detach().cpu().numpy(), cmap="gray_r", vmin=0, vmax=1)
                for borde in eje.spines.values():
                    borde.set_visible(True)
                    borde.set_color(COLORES["no_cabe"])
                    borde.set_linewidth(2.5)
                eje.set_xlabel(f"es {nombres[int(y[i])]}\ndijo {nombres[predichas[i]]}", fontsize=8)
            elif j == 0:
                eje.text(0.5, 0.5, "ninguno", ha="center", va="center", fontsize=10, transform=eje.transAxes)
        vistos = f"; aquí, los {maximo} primeros" if len(malos) > maximo else ""
        ejes[fila][0].set_ylabel(f"{modelo}\n({len(malos)} de {len(y)} mal{vistos})", fontsize=9)
    figura.suptitle(titulo)
    return figura


def grafico_tiempos_epoca(tiempos: dict, titulo: str = "Milisegundos por época: modelo pequeño y ampliado"):
    """Barras de milisegundos por época, por modelo y dispositivo. Lección 05.

    ``tiempos``: ``{(modelo, dispositivo): segundos por época}``, como en la lección. Un dispositivo
    de la GPU simulada lleva su marca en la leyenda y el color de la CPU: sus tiempos son de la CPU.
    """
    modelos = list(dict.fromkeys(m for m, _ in tiempos))
    dispositivos = list(dict.fromkeys(d for _, d in tiempos))
    figura, ejes = nueva_figura(alto=3.6)
    ancho = 0.8 / len(dispositivos)
    hay_simulada = False
    for i, d in enumerate(dispositivos):
        xs = [j + (i - (len(dispositivos) - 1) / 2) * ancho for j in range(len(modelos))]
        ms = [1000 * tiempos.get((m, d), float("nan")) for m in modelos]
        simulada = dispositivo_simulado(d)
        hay_simulada |= simulada
        en_la_cpu = d.startswith("cpu") or simulada
        barras = ejes.bar(xs, ms, ancho, label=marcar_simulada(d, simulada), color=COLORES["cpu"] if en_la_cpu else COLORES["gpu"],
                          hatch="//" if simulada else None)

        ejes.bar_label(barras, labels=[formatear_numero(v, 0, "ms") for v in ms], padding=2, fontsize=9)
    ejes.set_xticks(range(len(modelos)), [f"modelo {m}" for m in modelos])
    ejes.set_ylim(0, max(1000 * v for v in tiempos.values()) * 1.2)
    dar_estilo(ejes, marcar_simulada(titulo, hay_simulada), None, "tiempo por época (ms)", rejilla="y")
    leyenda_fuera(ejes, titulo="dispositivo")
    return figura


# --- Lección 07: memoria al entrenar ---------------------------------------------------------

def grafico_memoria_entrenamiento(desgloses, titulo: str = "Memoria para entrenar según el tamaño del lote", ax=None):
    """Una barra apilada por tamaño de lote: pesos, gradientes, optimizador y activaciones. Lección 07.

    ``desgloses`` es una lista de ``DesgloseMemoria`` (de ``medir_memoria_entrenamiento``), uno
    por lote. Las tres primeras partes no cambian; las activaciones crecen con el lote.
    """
    if ax is None:
        figura, ax = nueva_figura()
    else:
        figura = ax.figure
    etiquetas = [str(d.lote) for d in desgloses]
    base = [0.0] * len(desgloses)
    colores = {"pesos": "#4c72b0", "gradientes": "#dd8452", "optimizador": "#55a868", "activaciones": "#c44e52"}
    for parte, color in colores.items():
        alturas = [d.partes()[parte] / 1e6 for d in desgloses]
        ax.bar(etiquetas, alturas, bottom=base, color=color, label=parte)
        base = [b + h for b, h in zip(base, alturas)]
    dar_estilo(ax, titulo, "tamaño del lote", "memoria (MB)", rejilla="y")
    leyenda_fuera(ax)
    return figura


# --- Lección 06: rendimiento -----------------------------------------------------------------

def grafico_cargadores(comparacion, titulo: str | None = None):
    """Muestras por segundo frente a ``num_workers``, una línea por ``pin_memory``. Lección 06.

    Recibe la ``ComparacionCargadores`` de ``rendimiento.comparar_cargadores``.
    """
    figura, ejes = nueva_figura()
    for fijada in sorted({m.pin_memory for m in comparacion.mediciones}):
        puntos = sorted((m.num_workers, m.muestras_por_segundo) for m in comparacion.mediciones if m.pin_memory == fijada)
        ejes.plot([n for n, _ in puntos], [v for _, v in puntos], marker="o", label=f"pin_memory={fijada}")
    ejes.set_xticks(sorted({m.num_workers for m in comparacion.mediciones}))
    ejes.set_ylim(bottom=0)
    dar_estilo(ejes, titulo or f"DataLoader, lotes de {comparacion.tamano_lote} hacia {comparacion.dispositivo}",
               "num_workers (procesos que preparan lotes)", "muestras por segundo")
    leyenda_fuera(ejes)
    return figura
