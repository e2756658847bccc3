"""curso_gpu: las herramientas del curso «Usar una GPU con PyTorch».

Lo primero que buscarás está aquí arriba (``curso_gpu.describir_entorno()``,
``from curso_gpu import elegir_dispositivo``), con la lección que lo enseña:

- ``describir_entorno()``: qué GPU, driver, CUDA y PyTorch tienes, y avisos en español (lección 01).
- ``elegir_dispositivo()``: el ``torch.device`` donde trabajar: cuda, mps, xpu o cpu (lección 01).
- ``sincronizar(dispositivo)``: esperar a que la GPU termine antes de mirar el reloj (lección 03).
- ``cronometrar(funcion, dispositivo)``: medir bien: calentar, sincronizar, mediana (lección 03).
- ``comparar_tiempos(a, b)``: ¿cuál es más rápida?, con su intervalo y «sin diferencia clara» (lección 03).
- ``calculadora_vram()``: ¿cabe este modelo en esta GPU? La calculadora de la lección 04.
- ``entrenar(modelo, datos, validacion, dispositivo)``: el entrenamiento portable de la lección 05.

Son atajos: cada uno vive en su subpaquete y es el mismo objeto (``curso_gpu.entrenar is
curso_gpu.entrenamiento.entrenar``). Todo lo demás se importa desde su subpaquete, por ejemplo
``from curso_gpu.memoria import tabla_vram``. Los subpaquetes son las capas; uno solo importa de los
de abajo (lo comprueba ``tests/test_arquitectura.py``):

1. ``base``: hechos con su fuente y formato. Tablas de GPU, picos, precisiones, ruedas de CUDA,
   mensajes reales de PyTorch, precios de la nube; tablas de texto y HTML, números, la terminal,
   barras de progreso.
2. ``dispositivo``: elegir CPU/CUDA/MPS/XPU, ``como_dispositivo``, ``sincronizar``,
   ``nvidia-smi``, ``describir_entorno()`` y Google Colab y Drive (lecciones 01 y 02).
3. ``kernels``: tus primeros kernels de GPU con Triton, también en la CPU con su intérprete (lección 11).
4. ``medicion``: cronometrar bien, CPU frente a GPU, comparar dos tiempos (lección 03).
   ``memoria``: cuánta memoria necesita un modelo, medida al entrenar y el lote que cabe (lecciones 04 y 07).
   ``guardado``: escribir sin perder nada, checkpoints con SHA-256 y reanudar (lección 05).
   ``rendimiento``: precisión mixta, ``DataLoader`` y el diagnóstico de la lección 06.
   ``distribuido``: DDP y ``torchrun`` sin procesos huérfanos (lección 08).
5. ``entrenamiento``: datos, modelos, ``entrenar``, ``evaluar`` y ``predecir`` (lección 05).
6. ``ajuste``: LoRA y QLoRA con ``transformers`` y ``peft`` (lección 09).
   ``generacion``: generar texto rápido: caché KV, lotes y el techo del ancho de banda (lección 10).
   ``servir``: servir un modelo a muchos a la vez con ``transformers serve`` o vLLM, y medirlo (lección 13).
7. ``graficos``: las figuras del curso (matplotlib se importa al dibujar).
8. ``interactivo``: la pizarra, la calculadora de VRAM y ``python -m curso_gpu``.
9. Las órdenes: ``__main__`` (``python -m curso_gpu``), ``app_lineas`` (``python -m
   curso_gpu.app_lineas``, la app de la lección 05) y ``entrenar_ddp`` (``python -m
   curso_gpu.entrenar_ddp``, lección 08). ``python -m curso_gpu.servir`` (lección 13) vive en su subpaquete.

``import curso_gpu`` no carga torch, matplotlib, ipywidgets, transformers ni triton: cada subpaquete (y
cada atajo) se carga al usarlo (``curso_gpu.memoria`` funciona sin importarlo antes).
"""

from __future__ import annotations

import importlib
import os
from typing import TYPE_CHECKING

# El perfilador de PyTorch 2.13 (kineto) escribe en stderr dos líneas por perfil
# («USDT:… SyncActivityProfilerHandler.cpp:52] profiler_start» y «…:59] profiler_stop»): kineto
# las emite con su nivel USDT (5, tras STAGE=3 y ERROR=4; pytorch/kineto#1325, «Emit USDT logger
# messages on profiler start/stop») y las imprime si ese nivel es ≥ KINETO_LOG_LEVEL. Con 6 calla
# (comprobado con torch 2.13.0: con 5 salen, con 6 no); también calla los errores internos de
# kineto, que además llegan como avisos de Python. Se lee al arrancar el primer perfil, así que
# basta con ponerla antes. ``setdefault``: si tú pones otro nivel, se respeta.
os.environ.setdefault("KINETO_LOG_LEVEL", "6")

__version__ = "0.1.0"

ATAJOS = {
    "describir_entorno": "dispositivo",
    "elegir_dispositivo": "dispositivo",
    "sincronizar": "dispositivo",
    "cronometrar": "medicion",
    "comparar_tiempos": "medicion",
    "calculadora_vram": "interactivo",
    "entrenar": "entrenamiento",
}
"""Lo que se busca primero y el subpaquete donde vive: los únicos nombres que se ofrecen aquí arriba."""

__all__ = ["__version__", *ATAJOS]


def __getattr__(nombre: str):
    if nombre in ATAJOS:
        valor = getattr(importlib.import_module(f".{ATAJOS[nombre]}", __name__), nombre)
        globals()[nombre] = valor  # la próxima vez, sin pasar por aquí
        return valor
    carpeta = os.path.dirname(__file__)
    if not nombre.startswith("_") and (os.path.isfile(os.path.join(carpeta, f"{nombre}.py"))
                                       or os.path.isfile(os.path.join(carpeta, nombre, "__init__.py"))):
        return importlib.import_module(f".{nombre}", __name__)  # curso_gpu.memoria sin importarlo antes
    raise AttributeError(f"module {__name__!r} has no attribute {nombre!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(ATAJOS))


if TYPE_CHECKING:  # para los editores y los comprobadores de tipos; al ejecutar no se importa nada
    from .dispositivo import describir_entorno, elegir_dispositivo, sincronizar
    from .entrenamiento import entrenar
    from .interactivo import calculadora_vram
    from .medicion import comparar_tiempos, cronometrar

# La T4 simulada (``curso_gpu.dispositivo.simulacion``): con CURSO_GPU_SIMULAR=T4, las ramas de GPU de
# las lecciones corren en una máquina sin GPU. Solo entonces importar curso_gpu carga torch.
if os.environ.get("CURSO_GPU_SIMULAR", "").strip().lower() not in ("", "0", "no", "false"):
    importlib.import_module(".dispositivo.simulacion", __name__).activar_simulacion(os.environ["CURSO_GPU_SIMULAR"])
