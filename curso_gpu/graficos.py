"""Las figuras del curso (matplotlib). matplotlib se importa solo al dibujar.

Cada función recibe los datos que devuelve otro módulo (``Historial``, ``ResultadoBarrido``,
una tabla de VRAM...) y devuelve la ``Figure`` de matplotlib, para que un test pueda leer
sus datos sin pantalla.
"""

from __future__ import annotations


def _pyplot():
    """Importa matplotlib.pyplot solo cuando hace falta (``import curso_gpu`` sigue siendo ligero)."""
    import matplotlib

    if not _hay_pantalla_o_notebook():
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def figura_a_png(figura, dpi: int = 80) -> bytes:
    """La figura como PNG (bytes), y la cierra para no acumular figuras abiertas."""
    import io

    bufer = io.BytesIO()
    figura.savefig(bufer, format="png", dpi=dpi)
    _pyplot().close(figura)
    return bufer.getvalue()


def _hay_pantalla_o_notebook() -> bool:
    import os
    import sys

    return "ipykernel" in sys.modules or bool(os.environ.get("DISPLAY")) or sys.platform in ("win32", "darwin")


# --- El estilo del curso: todas las figuras se parecen -------------------------------------

TAMANO = (7.5, 4.0)
"""Ancho y alto (pulgadas) de una figura de un panel; las de dos paneles, el doble de ancho."""

COLORES = {
    "cpu": "#0969da", "gpu": "#cf222e", "referencia": "#6e7781",
    "cabe": "#2da44e", "no_cabe": "#cf222e", "linea": "#0969da",
    "entrenamiento": "#0969da", "validacion": "#bc4c00",
}
"""Un color por idea, el mismo en todas las lecciones."""


def nueva_figura(columnas: int = 1, filas: int = 1, ancho: float | None = None, alto: float | None = None):
    """Una figura con el tamaño y el diseño del curso: ``(figura, ejes)``.

    Usa el diseño «constrained» de matplotlib, que deja sitio a las leyendas que van fuera
    de los ejes (``leyenda_fuera``) sin recortarlas.
    """
    plt = _pyplot()
    ancho = ancho or TAMANO[0] * (1 if columnas == 1 else 0.7 * columnas)
    alto = alto or TAMANO[1] * (1 if filas == 1 else 0.75 * filas)
    return plt.subplots(filas, columnas, figsize=(ancho, alto), layout="constrained")


def dar_estilo(ejes, titulo: str | None = None, eje_x: str | None = None, eje_y: str | None = None,
               rejilla: str = "both") -> None:
    """Título y nombres de los ejes (en español, con su unidad entre paréntesis) y una rejilla suave."""
    if titulo:
        ejes.set_title(titulo, fontsize=11)
    if eje_x:
        ejes.set_xlabel(eje_x)
    if eje_y:
        ejes.set_ylabel(eje_y)
    if rejilla:
        ejes.grid(True, axis=rejilla, which="major", alpha=0.3)
    ejes.spines[["top", "right"]].set_visible(False)


def leyenda_fuera(ejes, handles=None, titulo: str | None = None, debajo: bool = False):
    """La leyenda fuera de los ejes (a la derecha, o debajo): nunca tapa un dato."""
    opciones = dict(frameon=False, fontsize=9, title=titulo)
    if handles is not None:
        opciones["handles"] = handles
    if debajo:
        return ejes.legend(loc="upper center", bbox_to_anchor=(0.5, -0.18), ncol=3, **opciones)
    return ejes.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0, **opciones)


def _etiquetas_de_tamano(ejes, tamanos) -> None:
    """Marcas del eje x en los tamaños medidos, escritos tal cual (32, 64... y no 2⁵, 2⁶...)."""
    from matplotlib.ticker import NullFormatter, NullLocator

    ejes.set_xticks(list(tamanos), [str(n) for n in tamanos])
    ejes.xaxis.set_minor_locator(NullLocator())
    ejes.xaxis.set_minor_formatter(NullFormatter())


# --- Lección 03: medición CPU frente a GPU -------------------------------------------------

# Lo que tarda, en una GPU, encargar y esperar una operación por pequeña que sea (lanzar el
# kernel y sincronizar): unos 10 µs. Orden de magnitud, no una cifra de ficha: NVIDIA, CUDA C++
# Best Practices Guide, «kernel launch overhead» (del orden de microsegundos).
_LANZAMIENTO_GPU_S = 10e-6


def _sostenido(nombre_gpu: str, modo: str) -> tuple[float | None, tuple[float, float] | None]:
    """(TFLOP/s que sostiene de verdad esa GPU, rango en % del pico) según ``picos``; sin rango, el pico."""
    from . import picos

    pico = picos.pico_teorico(nombre_gpu, modo)
    # ``rango_porcentaje`` (el % del pico medido y publicado) vive en ``picos`` junto a los picos.
    rango = getattr(picos, "rango_porcentaje", lambda *_: None)(nombre_gpu, modo) if pico else None
    return (pico * sum(rango) / 200 if rango else pico), rango


def curva_referencia(tamanos, nombre_gpu: str = "Tesla T4", modo: str = "fp32") -> list[tuple[int, float]]:
    """GFLOP/s que daría esa GPU para cada n: ``2·n³ / (10 µs + 2·n³ / R)``. Lección 03.

    R sale de la tabla del curso (``picos``): lo que esa GPU sostiene de verdad según cifras
    publicadas (el centro de su rango de % del pico) o, si no hay, su pico teórico. No es una
    medida: sirve para ver, sin GPU, dónde se cruzaría con tu CPU. Lista vacía si la GPU o el
    modo no están en la tabla.
    """
    sostenido, _ = _sostenido(nombre_gpu, modo)
    if not sostenido:
        return []
    return [(n, 2 * n**3 / (_LANZAMIENTO_GPU_S + 2 * n**3 / (sostenido * 1e12)) / 1e9) for n in tamanos]


def grafico_barrido(resultado, titulo: str = "a @ b: GFLOP/s según el tamaño", referencia: str | None = "Tesla T4"):
    """GFLOP/s frente al tamaño n, en escala log-log, una línea por dispositivo. Lección 03.

    Recibe el ``ResultadoBarrido`` de ``medicion.barrido``. Se ve dónde empieza a ganar la
    GPU: con matrices pequeñas apenas gana; con grandes, mucho. Si solo se midió la CPU, dibuja
    además (a trazos) la cota de ``referencia`` según su pico publicado (``curva_referencia``),
    para ver dónde se cruzarían. ``referencia=None`` la quita.
    """
    from .catalogo import picos_de

    figura, ejes = nueva_figura()
    hay_acelerador = False
    for dispositivo, puntos in resultado.resultados.items():
        if not puntos:
            continue
        hay_acelerador |= not dispositivo.startswith("cpu")
        color = COLORES["cpu"] if dispositivo.startswith("cpu") else COLORES["gpu"]
        etiqueta = f"{dispositivo} ({puntos[0].nombre_dispositivo}, medido)"
        ejes.plot([r.n for r in puntos], [r.gflops for r in puntos], marker="o", color=color, label=etiqueta)
        pico = puntos[0].pico_tflops
        if pico:
            ejes.axhline(pico * 1000, linestyle=":", linewidth=1, color=color,
                         label=f"pico teórico {puntos[0].modo}: {pico:g} TFLOP/s")
    if referencia and not hay_acelerador:
        puntos = curva_referencia(resultado.tamanos, referencia, "fp32")
        fila = picos_de(referencia)
        if puntos and fila is not None:
            sostenido, rango = _sostenido(referencia, "fp32")
            cifra = (f"~{sostenido:.1f} TFLOP/s fp32 sostenidos, {rango[0]:g}–{rango[1]:g} % de {fila.fp32:g}"
                     if rango else f"pico de {fila.fp32:g} TFLOP/s fp32")
            ejes.plot([n for n, _ in puntos], [g for _, g in puntos], linestyle="--", marker="s", markersize=4,
                      color=COLORES["referencia"],
                      label=f"{fila.nombre} según cifras publicadas (no medido):\n{cifra} + 10 µs por llamada")
    ejes.set_xscale("log", base=2)
    ejes.set_yscale("log")
    _etiquetas_de_tamano(ejes, resultado.tamanos)
    dar_estilo(ejes, titulo, "tamaño n (matrices n×n)", "GFLOP/s (mediana)")
    leyenda_fuera(ejes, debajo=True)
    return figura


def grafico_muestras(medicion, titulo: str | None = None):
    """Barras con cada muestra de una ``Medicion``: la primera (en frío) en otro color. Lección 03.

    La línea horizontal es la mediana, la cifra que se cita.
    """
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
    ejes.axhline(medicion.mediana * 1e3, color="black", linestyle="--", label=f"mediana: {medicion.mediana * 1e3:.3f} ms")
    dar_estilo(ejes, titulo or medicion.descripcion or "Cada muestra", "llamada (las azules, tras el calentamiento)",
               "tiempo (ms)", rejilla="y")
    leyenda_fuera(ejes)
    return figura



def grafico_picos(gpus=None, modos=("fp32", "tf32", "fp16", "bf16"),
                  titulo: str = "Pico teórico de cada GPU según su ficha"):
    """Barras del pico teórico (TFLOP/s, escala log) por GPU y tipo de dato. Lección 03.

    ``gpus``: nombres (como los da PyTorch) o ``None`` para una selección de la tabla de
    ``picos``. Un modo que la GPU no tiene (la T4 en bf16) queda sin barra.
    """
    from .catalogo import picos_de, tabla_picos

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
    from .memoria import formatear_bytes, formatear_parametros

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
    from .memoria import MARGEN_INFERENCIA, memoria_inferencia

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
    from .memoria import BYTES_ENTRENAMIENTO, memoria_entrenamiento

    por_parametro = BYTES_ENTRENAMIENTO if bytes_por_parametro is None else bytes_por_parametro
    pares = [(m.nombre, m.parametros) if hasattr(m, "parametros") else tuple(m) for m in modelos]
    lineas = [(g.nombre, g.memoria_gb) if hasattr(g, "memoria_gb") else tuple(g) for g in gpus]
    figura, ejes = nueva_figura(ancho=8.5, alto=4.2)
    gb = [memoria_entrenamiento(p, por_parametro) / 1e9 for _, p in pares]
    barras = ejes.bar([n for n, _ in pares], gb, color="#afb8c1")
    from .memoria import formatear_bytes

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
        ax_perdida.plot(historial.epocas, valores_perdida, marca, color=color, markersize=4, label=nombre)
        ax_acc.plot(historial.epocas, valores_acc, marca, color=color, markersize=4, label=nombre)
    ax_perdida.set_yscale("log")
    dar_estilo(ax_perdida, "Pérdida (escala logarítmica)", "época", "pérdida (entropía cruzada)")
    dar_estilo(ax_acc, "Accuracy", "época", "accuracy (fracción de aciertos)")
    ax_acc.set_ylim(0, 1.05)
    leyenda_fuera(ax_acc)
    figura.suptitle(titulo or f"Entrenamiento en {historial.dispositivo} ({historial.segundos:.2f} s)")
    return figura


def _serie(datos) -> tuple[list[int], list[float]]:
    """(épocas, pérdidas) de un ``Historial`` o de un par de listas."""
    if hasattr(datos, "perdida_entrenamiento"):
        return list(datos.epocas), list(datos.perdida_entrenamiento)
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
    from .datos import NOMBRES_CLASES

    nombres = tuple(nombres or NOMBRES_CLASES)
    plt = _pyplot()
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
    ``X``. Bajo cada dibujo: la clase real y la que dijo el modelo.
    """
    from .datos import NOMBRES_CLASES

    nombres = tuple(nombres or NOMBRES_CLASES)
    plt = _pyplot()
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
        ejes[fila][0].set_ylabel(f"{modelo}\n({len(malos)} de {len(y)} mal)", fontsize=9)
    figura.suptitle(titulo)
    return figura


def grafico_tiempos_epoca(tiempos: dict, titulo: str = "Milisegundos por época: modelo pequeño y ampliado"):
    """Barras de milisegundos por época, por modelo y dispositivo. Lección 05.

    ``tiempos``: ``{(modelo, dispositivo): segundos por época}``, como en la lección.
    """
    modelos = list(dict.fromkeys(m for m, _ in tiempos))
    dispositivos = list(dict.fromkeys(d for _, d in tiempos))
    figura, ejes = nueva_figura(alto=3.6)
    ancho = 0.8 / len(dispositivos)
    for i, d in enumerate(dispositivos):
        xs = [j + (i - (len(dispositivos) - 1) / 2) * ancho for j in range(len(modelos))]
        ms = [1000 * tiempos.get((m, d), float("nan")) for m in modelos]
        barras = ejes.bar(xs, ms, ancho, label=d, color=COLORES["cpu"] if d.startswith("cpu") else COLORES["gpu"])
        from .presentacion import formatear_numero

        ejes.bar_label(barras, labels=[formatear_numero(v, 0, "ms") for v in ms], padding=2, fontsize=9)
    ejes.set_xticks(range(len(modelos)), [f"modelo {m}" for m in modelos])
    ejes.set_ylim(0, max(1000 * v for v in tiempos.values()) * 1.2)
    dar_estilo(ejes, titulo, None, "tiempo por época (ms)", rejilla="y")
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
