"""curso_gpu: las herramientas del curso «Usar una GPU con PyTorch».

El mapa del paquete, por capas. Un módulo solo importa de su capa o de las de abajo
(lo comprueba ``tests/test_arquitectura.py``); cada línea dice la lección que lo presenta.

Datos y formato (tablas con su fuente; nada de esto habla con la GPU):

- ``proyecto``: la dirección del repositorio para las insignias y la celda de arranque (todas).
- ``ruedas_cuda``: qué PyTorch con CUDA instalar según el driver y la GPU (lección 01).
- ``precisiones``: fp32, tf32, fp16, bf16, fp64, int8, int4: bytes y ``torch.dtype`` (lecciones 03 y 04).
- ``catalogo``: GPU (memoria) y modelos (parámetros) con sus fuentes (lección 04).
- ``picos``: picos teóricos en TFLOP/s por GPU y precisión, para el «% del pico» (lección 03).
- ``nube``: cuánto cuesta una GPU alquilada y olvidarse de apagarla (lección 02).
- ``mensajes_torch``: los mensajes de error reales de PyTorch que enseñan las lecciones 01, 05 y 07.
- ``presentacion``: cómo se ven números (``formatear_numero``), informes y tablas en la terminal y
  en el notebook (todas).
- ``numeros``: leer los números que escribes: ``3``, ``np.int64(3)``, ``Decimal("0.8")`` (lecciones 02 y 04).
- ``terminal``: la ayuda en español y una salida que no falla en consolas sin UTF-8 (órdenes).

El dispositivo:

- ``nvidia_smi``: preguntar a ``nvidia-smi`` por el driver y las GPU (lección 01).
- ``dispositivo``: elegir CPU/CUDA/MPS/XPU, ``como_dispositivo``, ``sincronizar``, nombre y
  memoria de la GPU (lección 01).
- ``colab``: detectar Google Colab, montar Drive y comprobar su entorno (lección 02).
- ``entorno``: ``describir_entorno()`` y su diagnóstico en español (lección 01).

Medir, estimar memoria y entrenar:

- ``cronometro``: cronometrar bien: sincronizar, calentar, mediana, bloques con presupuesto (lección 03).
- ``comparar``: ``comparar_tiempos``, dos funciones medidas alternadas con su intervalo y su veredicto
  (lecciones 01, 03, 06, 07 y 08).
- ``memoria_libre``: ¿caben las matrices antes de crearlas? (lección 03).
- ``bucle_python``: el bucle triple de Python frente a ``a @ b`` de NumPy (lección 03).
- ``medicion``: CPU frente a GPU con ``a @ b``: GFLOP/s, barrido, sin sincronizar (lección 03).
- ``memoria``: cuánta memoria necesita un modelo y si cabe en tu GPU (lección 04).
- ``memoria_entrenamiento``: la memoria de entrenar: pesos, gradientes, optimizador y activaciones medidas (lección 07).
- ``lote_que_cabe``: ``lote_maximo``, el mayor lote que cabe, probado o calculado (lección 07).
- ``progreso``: barras de progreso con ``tqdm`` (lecciones 03 y 05); en un notebook, al cerrarse
  dejan una copia fija de su estado final que se lee en las copias exportadas.
- ``datos``, ``modelos``: las imágenes de líneas de 8×8 y la CNN pequeña (lección 05).
- ``escritura_segura``: escribir sin perder nada: archivos atómicos y un candado por carpeta (lección 05).
- ``checkpoints``: guardar y cargar checkpoints con su SHA-256, también en Google Drive (lección 05).
- ``reanudacion``: seguir desde el último checkpoint o empezar de cero sin borrar nada (lección 05).
- ``entradas_entrenamiento``: comprobar modelo, datos y números antes de entrenar, con errores claros (lección 05).
- ``resultados_entrenamiento``: ``Registro``, ``Historial`` y ``Prediccion``, lo que devuelve entrenar (lección 05).
- ``entrenamiento``: ``entrenar``, ``evaluar`` y ``predecir`` en cualquier dispositivo (lección 05).
- ``precision_mixta``: ``autocast`` y ``GradScaler`` según lo que pueda cada dispositivo (lección 06).
- ``conjuntos``: imágenes con el aumento de datos hecho en la CPU, para el ``DataLoader`` (lección 06).
- ``cargadores``: ``comparar_cargadores``: muestras por segundo según ``num_workers`` y ``pin_memory`` (lección 06).
- ``rendimiento``: ¿datos, lanzamientos o cálculo? ``diagnosticar`` (lección 06).
- ``distribuido``: ``iniciar``, ``promediar``, ``terminar`` y el cálculo del all-reduce, para DDP (lección 08).
- ``lanzador``: lanzar ``torchrun`` con tiempo límite y sin dejar procesos huérfanos (lección 08).
- ``ajuste`` (subpaquete): ajustar un modelo de lenguaje con LoRA y QLoRA; el modelo diminuto (lección 09).
- ``generacion`` (subpaquete): generar texto rápido: caché KV, lotes y el techo del ancho de banda
  (lección 10). ``transformers`` se importa solo dentro de sus funciones.

Presentación interactiva (matplotlib e ipywidgets se importan solo al usarlas):

- ``estilo_graficos``: el estilo común de las figuras (``nueva_figura``, ``dar_estilo``,
  ``leyenda_fuera``) (lecciones 02 a 07).
- ``graficos_entrenamiento``: las figuras de entrenar: curvas, reanudación, memoria, cargadores (lecciones 05 a 07).
- ``graficos``: las figuras de velocidad y de memoria de un modelo (lecciones 02 a 04); reexporta
  las otras dos, así que ``graficos.curvas_entrenamiento`` sigue funcionando.
- ``widgets``: la pizarra y el selector de dispositivo (lección 05); ``con_respaldo_html`` deja una
  foto HTML legible de un widget en las copias exportadas.
- ``calculadora``: la calculadora de VRAM (lección 04).

Lecciones, línea de órdenes y app:

- ``cli``: ``python -m curso_gpu``: entorno, velocidad y qué modelo te cabe (lecciones 01 a 04).
- ``app_lineas``: la app de escritorio (Tk) de la pizarra (lección 05).
- ``entrenar_ddp``: ``python -m curso_gpu.entrenar_ddp``, la CNN de líneas con DDP (lección 08).

``import curso_gpu`` no carga matplotlib, ipywidgets ni tqdm, ni torch hasta que lo usas. Las
herramientas de quien mantiene el curso (las insignias de Colab) viven fuera del paquete, en
``herramientas/``.
"""

from __future__ import annotations

import importlib
import os

# El perfilador de PyTorch 2.13 (kineto) escribe en stderr dos líneas por perfil
# («USDT:… SyncActivityProfilerHandler.cpp:52] profiler_start» y «…:59] profiler_stop»): kineto
# las emite con su nivel USDT (5, tras STAGE=3 y ERROR=4; pytorch/kineto#1325, «Emit USDT logger
# messages on profiler start/stop») y las imprime si ese nivel es ≥ KINETO_LOG_LEVEL. Con 6 calla
# (comprobado con torch 2.13.0: con 5 salen, con 6 no); también calla los errores internos de
# kineto, que además llegan como avisos de Python. Se lee al arrancar el primer perfil, así que
# basta con ponerla antes. ``setdefault``: si tú pones otro nivel, se respeta.
os.environ.setdefault("KINETO_LOG_LEVEL", "6")

# Los nombres de abajo se importan al usarlos (PEP 562): así ``python -m curso_gpu --help``
# responde sin cargar torch, y ``from curso_gpu import elegir_dispositivo`` funciona igual.
_REEXPORTADOS = {
    "DispositivoNoDisponible": "dispositivo",
    "InformeEntorno": "entorno",
    "describir_entorno": "entorno",
    "dispositivos_disponibles": "dispositivo",
    "elegir_dispositivo": "dispositivo",
    "consultar_nvidia_smi": "nvidia_smi",
}

__version__ = "0.1.0"

__all__ = [
    "DispositivoNoDisponible",
    "InformeEntorno",
    "consultar_nvidia_smi",
    "describir_entorno",
    "dispositivos_disponibles",
    "elegir_dispositivo",
    "__version__",
]


def __getattr__(nombre: str):
    if nombre in _REEXPORTADOS:
        valor = getattr(importlib.import_module(f".{_REEXPORTADOS[nombre]}", __name__), nombre)
        globals()[nombre] = valor  # la próxima vez, sin pasar por aquí
        return valor
    if not nombre.startswith("_") and os.path.isfile(os.path.join(os.path.dirname(__file__), f"{nombre}.py")):
        return importlib.import_module(f".{nombre}", __name__)  # curso_gpu.memoria sin importarlo antes
    raise AttributeError(f"module {__name__!r} has no attribute {nombre!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_REEXPORTADOS))
