"""Las figuras del curso (matplotlib). matplotlib se importa solo al dibujar.

Aquí, las de las lecciones 02 a 04 (velocidad y memoria de un modelo). El estilo común vive en
``estilo_graficos`` y las figuras de entrenar (lecciones 05 a 07) en ``graficos_entrenamiento``:
las dos se importan también desde aquí, como ``graficos.curvas_entrenamiento``.

Cada función recibe los datos que devuelve otro módulo (``Historial``, ``ResultadoBarrido``,
una tabla de VRAM...) y devuelve la ``Figure`` de matplotlib, para que un test pueda leer
sus datos sin pantalla.
"""

from __future__ import annotations

from .estilo import COLORES, dar_estilo, leyenda_fuera, nueva_figura
from ..base import formatear_bytes, gflops_de_referencia, marcar_simulada, picos_de, tabla_picos, tflops_sostenidos
from ..memoria import (
    BYTES_ENTRENAMIENTO, MARGEN_INFERENCIA, formatear_parametros, memoria_entrenamiento, memoria_inferencia,
)

__all__ = [
    "grafico_barrido", "grafico_entrenamiento_gpus", "grafico_modelos_vram", "grafico_muestras",
    "grafico_picos", "grafico_vram",
]


def _etiquetas_de_tamano(ejes, tamanos) -> None:
    """Marcas del eje x en los tamaños medidos, escritos tal cual (32, 64... y no 2⁵, 2⁶...)."""
    from matplotlib.ticker import NullFormatter, NullLocator

    ejes.set_xticks(list(tamanos), [str(n) for n in tamanos])
    ejes.xaxis.set_minor_locator(NullLocator())
    ejes.xaxis.set_minor_formatter(NullFormatter())


# --- Lección 03: medición CPU frente a GPU -------------------------------------------------

def grafico_barrido(resultado, titulo: str = "a @ b: GFLOP/s según el tamaño", referencia: str | None = "Tesla T4"):
    """GFLOP/s frente al tamaño n, en escala log-log, una línea por dispositivo. Lección 03.

    La línea es la mediana; la banda clara va de la muestra más lenta a la más rápida.

    Recibe el ``ResultadoBarrido`` de ``medicion.barrido``. Se ve dónde empieza a ganar la
    GPU: con matrices pequeñas apenas gana; con grandes, mucho. Si solo se midió la CPU, dibuja
    además (a trazos) la cota de ``referencia`` según su pico publicado (``gflops_de_referencia``),
    para ver dónde se cruzarían. ``referencia=None`` la quita.
    """
    figura, ejes = nueva_figura()
    hay_acelerador = hay_simulada = False
    for dispositivo, puntos in resultado.resultados.items():
        if not puntos:
            continue
        simulada = puntos[0].simulada  # la GPU simulada: medida en la CPU; la curva de referencia se dibuja igual
        hay_acelerador |= not dispositivo.startswith("cpu") and not simulada
        hay_simulada |= simulada
        color = COLORES["cpu"] if dispositivo.startswith("cpu") else COLORES["gpu"]
        hilos = puntos[0].hilos_cpu
        medido = "simulada: medido en la CPU" if simulada else "medido"
        etiqueta = f"{dispositivo} ({puntos[0].nombre_dispositivo}{f', {hilos} hilo' + ('s' if hilos != 1 else '') if hilos else ''}, {medido})"
        ejes.plot([r.n for r in puntos], [r.gflops for r in puntos], marker="o", color=color, label=etiqueta)
        banda = resultado.banda(dispositivo)  # de la muestra más lenta a la más rápida
        ejes.fill_between([n for n, *_ in banda], [b for _, b, _, _ in banda], [a for *_, a in banda],
                          color=color, alpha=0.2, linewidth=0)
        pico = puntos[0].pico_tflops
        if pico and not simulada:  # la simulada ya tiene su curva de referencia, con su pico
            ejes.axhline(pico * 1000, linestyle=":", linewidth=1, color=color,
                         label=f"pico teórico {puntos[0].modo}: {pico:g} TFLOP/s")
    if referencia and not hay_acelerador:
        puntos = gflops_de_referencia(resultado.tamanos, referencia, "fp32")
        fila = picos_de(referencia)
        if puntos and fila is not None:
            sostenido, rango = tflops_sostenidos(referencia, "fp32")
            cifra = (f"~{sostenido:.1f} TFLOP/s fp32 sostenidos, {rango[0]:g}–{rango[1]:g} % de {fila.fp32:g}"
                     if rango else f"pico de {fila.fp32:g} TFLOP/s fp32")
            ejes.plot([n for n, _ in puntos], [g for _, g in puntos], linestyle="--", marker="s", markersize=4,
                      color=COLORES["referencia"],
                      label=f"{fila.nombre} según cifras publicadas (no medido):\n{cifra} + 10 µs por llamada")
    ejes.set_xscale("log", base=2)
    ejes.set_yscale("log")
    _etiquetas_de_tamano(ejes, resultado.tamanos)
    dar_estilo(ejes, marcar_simulada(titulo, hay_simulada), "tamaño n (matrices n×n)", "GFLOP/s (mediana)")
    leyenda_fuera(ejes, debajo=True, columnas=1 if hay_simulada else 3)  # la simulada lleva tres entradas largas
    return figura


def grafico_muestras(medicion, titulo: str | None = None):
    """Barras con cada muestra de una ``Medicion``: la primera (en frío) en otro color. Lección 03.

    La línea horizontal es la mediana, la cifra que se cita. Medida en la GPU simulada, el título
    y la leyenda lo dicen: son tiempos de la CPU.
    """
    simulada = getattr(medicion, "simulada", False)
    figura, ejes = nueva_figura(alto=3.5)
    etiquetas, valores, colores = [], [], []
    if medicion.primera is not None:
        etiquetas.append("en frío")
        valores.append(medicion.primera * 1e3)
        colores.append("tab:red")
    for i, muestra in enumerate(medicion.muestras, start=1):
        etiquetas.append(str(i))
        valores.append(muestra * 1e3)
        colores.append("tab:blue")
    ejes.bar(etiquetas, valores, color=colores)
    ejes.axhline(medicion.mediana * 1e3, color="black", linestyle="--", label=marcar_simulada(f"mediana: {medicion.mediana * 1e3:.3f} ms", simulada))
    dar_estilo(ejes, marcar_simulada(titulo or medicion.descripcion or "Cada muestra", simulada), "llamada (las azules, tras el calentamiento)",
               "tiempo (ms)", rejilla="y")
    leyenda_fuera(ejes)
    return figura



def grafico_picos(gpus=None, modos=("fp32", "tf32", "fp16", "bf16"),
                  titulo: str = "Pico teórico de cada GPU según su ficha"):
    """Barras del pico teórico (TFLOP/s, escala log) por GPU y tipo de dato. Lección 03.

    ``gpus``: nombres (como los da PyTorch) o ``None`` para una selección de la tabla de
    ``picos``. Un modo que la GPU no tiene (la T4 en bf16) queda sin barra.
    """
    if gpus is None:
        filas = [f for f in tabla_picos() if f.nombre in _GPUS_PICOS]
    else:
        filas = [f for f in (picos_de(g) for g in gpus) if f is not None]
    figura, ejes = nueva_figura(alto=4.2)
    ancho = 0.8 / len(modos)
    colores = {"fp32": COLORES["cpu"], "tf32": "#8250df", "fp16": COLORES["gpu"], "bf16": "#bc4c00"}
    for i, modo in enumerate(modos):
        xs = [j + (i - (len(modos) - 1) / 2) * ancho for j in range(len(filas))]
        valores = [f.pico(modo) or 0 for f in filas]
        barras = ejes.bar(xs, [v if v else float("nan") for v in valores], ancho, label=modo,
                          color=colores.get(modo))
        barras.set_label(modo)
    ejes.set_yscale("log")
    ejes.set_xticks(range(len(filas)), [f.nombre.replace("NVIDIA ", "").replace("GeForce ", "") for f in filas],
                    rotation=30, ha="right")
    dar_estilo(ejes, titulo, None, "TFLOP/s (escala log)", rejilla="y")
    leyenda_fuera(ejes, titulo="tipo de dato")
    return figura


_GPUS_PICOS = ("NVIDIA T4", "NVIDIA P100 PCIe", "NVIDIA V100 SXM2", "NVIDIA L4", "NVIDIA A100",
               "NVIDIA H100 SXM", "NVIDIA GeForce RTX 3060", "NVIDIA GeForce RTX 4090", "Apple M2 Max")


# --- Lección 04: memoria de un modelo --------------------------------------------------------

def grafico_vram(tabla, destacar: str | None = None, incluir_entrenamiento: bool = False, ax=None):
    """Barras de memoria por precisión y la VRAM de la GPU como línea horizontal. Lección 04.

    ``tabla`` es una ``TablaVRAM`` (de ``curso_gpu.memoria.tabla_vram``). Verde: cabe; rojo:
    no cabe. ``destacar`` ("fp16"...) marca con borde la precisión elegida. Devuelve la Figure.
    """
    from matplotlib.patches import Patch

    if ax is None:
        figura, ax = nueva_figura()
    else:
        figura = ax.figure
    filas = list(tabla.filas)
    if incluir_entrenamiento and tabla.entrenamiento is not None:
        filas.append(tabla.entrenamiento)
    nombres = ["entrenar" if f.precision == "entrenamiento" else f.precision for f in filas]
    alturas = [f.necesaria_gb for f in filas]
    colores = [COLORES["cabe"] if f.cabe else COLORES["no_cabe"] for f in filas]
    barras = ax.bar(nombres, alturas, color=colores)
    for barra, fila in zip(barras, filas):
        barra.set_label(fila.precision)  # para que un test encuentre cada barra
        if destacar is not None and fila.precision == destacar:
            barra.set_edgecolor("black")
            barra.set_linewidth(2.5)
    ax.bar_label(barras, labels=[formatear_bytes(f.necesaria_bytes) for f in filas], padding=2, fontsize=9)
    ax.axhline(tabla.vram_gb, color=COLORES["linea"], linestyle="--", linewidth=2,
               label=f"memoria de la GPU: {tabla.vram_gb:g} GB")
    quien = tabla.nombre or f"{formatear_parametros(tabla.parametros)} parámetros"
    dar_estilo(ax, f"{quien}: ¿cabe en {tabla.vram_gb:g} GB? (margen +{(tabla.margen - 1) * 100:.0f} %)",
               "precisión de los pesos", "memoria necesaria (GB)", rejilla="y")
    ax.set_ylim(0, max(max(alturas), tabla.vram_gb) * 1.18)
    leyenda_fuera(ax, handles=[ax.lines[-1], Patch(color=COLORES["cabe"], label="cabe"),
                               Patch(color=COLORES["no_cabe"], label="NO cabe")])
    return figura


def grafico_modelos_vram(modelos, vram_gb: float, nombre_gpu: str = "tu GPU",
                         precisiones=("fp32", "fp16", "int8", "int4"), margen: float | None = None,
                         titulo: str | None = None):
    """Memoria para usar cada modelo en cada precisión, con la de tu GPU como línea. Lección 04.

    ``modelos``: ``catalogo.Modelo`` (o pares ``(nombre, parametros)``). Escala log: del
    GPT-2 (0.1 GB) al Llama de 405B (casi 1000 GB) hay cuatro órdenes de magnitud.
    """
    margen = MARGEN_INFERENCIA if margen is None else margen
    pares = sorted(((m.nombre, m.parametros) if hasattr(m, "parametros") else tuple(m) for m in modelos),
                   key=lambda par: par[1])
    figura, ejes = nueva_figura(ancho=9, alto=4.4)
    ancho = 0.8 / len(precisiones)
    tonos = {"fp32": "#0969da", "fp16": "#54aeff", "bf16": "#54aeff", "int8": "#8250df", "int4": "#c297ff"}
    for i, precision in enumerate(precisiones):
        xs = [j + (i - (len(precisiones) - 1) / 2) * ancho for j in range(len(pares))]
        gb = [memoria_inferencia(p, precision, margen) / 1e9 for _, p in pares]
        barras = ejes.bar(xs, gb, ancho, label=precision, color=tonos.get(precision))
        for barra, valor in zip(barras, gb):
            if valor > vram_gb:
                barra.set_hatch("///")
                barra.set_edgecolor("white")
    ejes.axhline(vram_gb, color=COLORES["gpu"], linestyle="--", linewidth=2, label=f"{nombre_gpu}: {vram_gb:g} GB")
    ejes.set_yscale("log")
    ejes.set_xticks(range(len(pares)), [n for n, _ in pares], rotation=35, ha="right")
    dar_estilo(ejes, titulo or f"¿Qué modelo cabe en {nombre_gpu}? (inferencia, margen +{(margen - 1) * 100:.0f} %)",
               None, "memoria necesaria (GB, escala log)", rejilla="y")
    from matplotlib.patches import Patch

    manijas, _ = ejes.get_legend_handles_labels()
    manijas.append(Patch(facecolor="#bbbbbb", hatch="///", edgecolor="white", label="rayada: NO cabe"))
    leyenda_fuera(ejes, handles=manijas, titulo="precisión de los pesos")
    return figura


def grafico_entrenamiento_gpus(modelos, gpus, bytes_por_parametro: float | None = None,
                               titulo: str = "Entrenar el modelo entero: memoria frente a GPU comunes"):
    """Memoria para entrenar cada modelo (~16 bytes/parámetro) y la de varias GPU como líneas. Lección 04.

    ``modelos``: ``catalogo.Modelo`` o pares ``(nombre, parametros)``; ``gpus``: ``catalogo.GPU``
    o pares ``(nombre, memoria_gb)``. Sin contar las activaciones, que suman más.
    """
    por_parametro = BYTES_ENTRENAMIENTO if bytes_por_parametro is None else bytes_por_parametro
    pares = [(m.nombre, m.parametros) if hasattr(m, "parametros") else tuple(m) for m in modelos]
    lineas = [(g.nombre, g.memoria_gb) if hasattr(g, "memoria_gb") else tuple(g) for g in gpus]
    figura, ejes = nueva_figura(ancho=8.5, alto=4.2)
    gb = [memoria_entrenamiento(p, por_parametro) / 1e9 for _, p in pares]
    barras = ejes.bar([n for n, _ in pares], gb, color="#afb8c1")

    def donde_cabe(valor: float) -> str:
        cabe = [nombre for nombre, memoria in sorted(lineas, key=lambda x: x[1]) if valor <= memoria]
        return f"cabe en: {cabe[0].replace('NVIDIA ', '')}" if cabe else "no cabe en ninguna"

    ejes.bar_label(barras, labels=[f"{formatear_bytes(v * 1e9)}\n{donde_cabe(v)}" for v in gb], padding=2, fontsize=8,
                   bbox=dict(facecolor="white", edgecolor="none", alpha=0.8, pad=1))
    estilos = ["--", "-.", ":", (0, (5, 1))]
    for i, (nombre, memoria) in enumerate(sorted(lineas, key=lambda x: x[1])):
        ejes.axhline(memoria, linestyle=estilos[i % len(estilos)], linewidth=1.5, color=f"C{i}",
                     label=f"{nombre}: {memoria:g} GB")
    ejes.set_yscale("log")
    ejes.set_ylim(min(gb + [m for _, m in lineas]) / 2, max(gb + [m for _, m in lineas]) * 4)
    ejes.tick_params(axis="x", rotation=30)
    for etiqueta in ejes.get_xticklabels():
        etiqueta.set_ha("right")
    dar_estilo(ejes, titulo, None, f"memoria para entrenar (GB, ~{por_parametro:g} bytes/parámetro)", rejilla="y")
    leyenda_fuera(ejes, titulo="memoria de la GPU")
    return figura
