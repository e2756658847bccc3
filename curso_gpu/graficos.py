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


# --- Lección 03: medición CPU frente a GPU -------------------------------------------------

def grafico_barrido(resultado, titulo: str = "a @ b: GFLOP/s según el tamaño"):
    """GFLOP/s frente al tamaño n, en escala log-log, una línea por dispositivo. Lección 03.

    Recibe el ``ResultadoBarrido`` de ``medicion.barrido``. Se ve dónde empieza a ganar la
    GPU: con matrices pequeñas apenas gana; con grandes, mucho.
    """
    plt = _pyplot()
    figura, ejes = plt.subplots(figsize=(7, 4.5))
    for dispositivo, puntos in resultado.resultados.items():
        if not puntos:
            continue
        etiqueta = f"{dispositivo} ({puntos[0].nombre_dispositivo})"
        ejes.plot([r.n for r in puntos], [r.gflops for r in puntos], marker="o", label=etiqueta)
        pico = puntos[0].pico_tflops
        if pico:
            ejes.axhline(pico * 1000, linestyle="--", linewidth=1, color="gray",
                         label=f"pico teórico {puntos[0].modo} ({pico:g} TFLOP/s)")
    ejes.set_xscale("log", base=2)
    ejes.set_yscale("log")
    ejes.set_xlabel("tamaño n (matrices n×n)")
    ejes.set_ylabel("GFLOP/s (mediana)")
    ejes.set_title(titulo)
    ejes.grid(True, which="both", alpha=0.3)
    ejes.legend()
    figura.tight_layout()
    return figura


def grafico_muestras(medicion, titulo: str | None = None):
    """Barras con cada muestra de una ``Medicion``: la primera (en frío) en otro color. Lección 03.

    La línea horizontal es la mediana, la cifra que se cita.
    """
    plt = _pyplot()
    figura, ejes = plt.subplots(figsize=(7, 3.5))
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
    ejes.set_xlabel("llamada (las azules, tras el calentamiento)")
    ejes.set_ylabel("milisegundos")
    ejes.set_title(titulo or medicion.descripcion or "Cada muestra")
    ejes.legend()
    figura.tight_layout()
    return figura



# --- Lección 04: memoria de un modelo --------------------------------------------------------

def grafico_vram(tabla, destacar: str | None = None, incluir_entrenamiento: bool = False, ax=None):
    """Barras de memoria por precisión y la VRAM de la GPU como línea horizontal. Lección 04.

    ``tabla`` es una ``TablaVRAM`` (de ``curso_gpu.memoria.tabla_vram``). Verde: cabe; rojo:
    no cabe. ``destacar`` ("fp16"...) marca con borde la precisión elegida. Devuelve la Figure.
    """
    from .memoria import formatear_bytes, formatear_parametros

    plt = _pyplot()
    from matplotlib.patches import Patch

    if ax is None:
        figura, ax = plt.subplots(figsize=(7, 4))
    else:
        figura = ax.figure
    filas = list(tabla.filas)
    if incluir_entrenamiento and tabla.entrenamiento is not None:
        filas.append(tabla.entrenamiento)
    nombres = ["entrenar" if f.precision == "entrenamiento" else f.precision for f in filas]
    alturas = [f.necesaria_gb for f in filas]
    colores = ["#2da44e" if f.cabe else "#cf222e" for f in filas]
    barras = ax.bar(nombres, alturas, color=colores)
    for barra, fila in zip(barras, filas):
        barra.set_label(fila.precision)  # para que un test encuentre cada barra
        if destacar is not None and fila.precision == destacar:
            barra.set_edgecolor("black")
            barra.set_linewidth(2.5)
    ax.bar_label(barras, labels=[formatear_bytes(f.necesaria_bytes) for f in filas], padding=2, fontsize=9)
    ax.axhline(tabla.vram_gb, color="#0969da", linestyle="--", linewidth=2,
               label=f"memoria de la GPU: {tabla.vram_gb:g} GB")
    ax.set_ylabel("Memoria necesaria (GB)")
    ax.set_xlabel("Precisión de los pesos")
    quien = tabla.nombre or f"{formatear_parametros(tabla.parametros)} parámetros"
    ax.set_title(f"{quien}: ¿cabe en {tabla.vram_gb:g} GB? (margen +{(tabla.margen - 1) * 100:.0f} %)")
    ax.set_ylim(0, max(max(alturas), tabla.vram_gb) * 1.18)
    ax.legend(handles=[ax.lines[-1], Patch(color="#2da44e", label="cabe"), Patch(color="#cf222e", label="NO cabe")],
              loc="best")
    figura.tight_layout()
    return figura


# --- Lección 05: entrenamiento ---------------------------------------------------------------

def curvas_entrenamiento(historial, titulo: str | None = None):
    """Pérdida y accuracy (entrenamiento y validación) de un ``Historial``. Lección 05."""
    plt = _pyplot()
    figura, (ax_perdida, ax_acc) = plt.subplots(1, 2, figsize=(10, 3.6))
    ax_perdida.plot(historial.epocas, historial.perdida_entrenamiento, "o-", label="entrenamiento")
    ax_perdida.plot(historial.epocas, historial.perdida_validacion, "s--", label="validación")
    ax_perdida.set_xlabel("época")
    ax_perdida.set_ylabel("pérdida (entropía cruzada)")
    ax_perdida.set_title("Pérdida")
    ax_perdida.legend()
    ax_acc.plot(historial.epocas, historial.accuracy_entrenamiento, "o-", label="entrenamiento")
    ax_acc.plot(historial.epocas, historial.accuracy_validacion, "s--", label="validación")
    ax_acc.set_xlabel("época")
    ax_acc.set_ylabel("accuracy")
    ax_acc.set_ylim(0, 1.05)
    ax_acc.set_title("Accuracy")
    ax_acc.legend()
    figura.suptitle(titulo or f"Entrenamiento en {historial.dispositivo} ({historial.segundos:.2f} s)")
    figura.tight_layout()
    return figura


def muestras_por_clase(X, y, por_clase: int = 5, nombres=None, titulo: str = "Ejemplos de cada clase"):
    """Una fila de imágenes de 8×8 por clase (las primeras ``por_clase`` de cada una). Lección 05."""
    from .datos import NOMBRES_CLASES

    nombres = tuple(nombres or NOMBRES_CLASES)
    plt = _pyplot()
    figura, ejes = plt.subplots(len(nombres), por_clase, figsize=(1.4 * por_clase, 1.5 * len(nombres)), squeeze=False)
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
    figura.tight_layout()
    return figura


# --- Lección 07: memoria al entrenar ---------------------------------------------------------

def grafico_memoria_entrenamiento(desgloses, titulo: str = "Memoria para entrenar según el tamaño del lote", ax=None):
    """Una barra apilada por tamaño de lote: pesos, gradientes, optimizador y activaciones. Lección 07.

    ``desgloses`` es una lista de ``DesgloseMemoria`` (de ``medir_memoria_entrenamiento``), uno
    por lote. Las tres primeras partes no cambian; las activaciones crecen con el lote.
    """
    plt = _pyplot()
    if ax is None:
        figura, ax = plt.subplots(figsize=(7, 4))
    else:
        figura = ax.figure
    etiquetas = [str(d.lote) for d in desgloses]
    base = [0.0] * len(desgloses)
    colores = {"pesos": "#4c72b0", "gradientes": "#dd8452", "optimizador": "#55a868", "activaciones": "#c44e52"}
    for parte, color in colores.items():
        alturas = [d.partes()[parte] / 1e6 for d in desgloses]
        ax.bar(etiquetas, alturas, bottom=base, color=color, label=parte)
        base = [b + h for b, h in zip(base, alturas)]
    ax.set_xlabel("tamaño del lote")
    ax.set_ylabel("memoria (MB)")
    ax.set_title(titulo)
    ax.legend(loc="upper left")
    figura.tight_layout()
    return figura


# --- Lección 06: rendimiento -----------------------------------------------------------------

def grafico_cargadores(comparacion, titulo: str | None = None):
    """Muestras por segundo frente a ``num_workers``, una línea por ``pin_memory``. Lección 06.

    Recibe la ``ComparacionCargadores`` de ``rendimiento.comparar_cargadores``.
    """
    plt = _pyplot()
    figura, ejes = plt.subplots(figsize=(6.5, 3.8))
    for fijada in sorted({m.pin_memory for m in comparacion.mediciones}):
        puntos = sorted((m.num_workers, m.muestras_por_segundo) for m in comparacion.mediciones if m.pin_memory == fijada)
        ejes.plot([n for n, _ in puntos], [v for _, v in puntos], marker="o", label=f"pin_memory={fijada}")
    ejes.set_xticks(sorted({m.num_workers for m in comparacion.mediciones}))
    ejes.set_xlabel("num_workers (procesos que preparan lotes)")
    ejes.set_ylabel("muestras por segundo")
    ejes.set_ylim(bottom=0)
    ejes.set_title(titulo or f"DataLoader, lotes de {comparacion.tamano_lote} hacia {comparacion.dispositivo}")
    ejes.grid(True, alpha=0.3)
    ejes.legend()
    figura.tight_layout()
    return figura
