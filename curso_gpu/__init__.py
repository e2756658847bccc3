"""curso_gpu: las herramientas del curso «Usar una GPU con PyTorch».

El paquete está hecho de subpaquetes, uno por capa. Cada uno tiene una sola puerta: su
``__init__.py`` y su ``__all__``. Importa cada nombre desde su subpaquete, por ejemplo
``from curso_gpu.dispositivo import elegir_dispositivo``. Un subpaquete solo importa de los de
abajo (lo comprueba ``tests/test_arquitectura.py``):

1. ``base``: hechos con su fuente y formato. Tablas de GPU, picos, precisiones, ruedas de CUDA,
   mensajes reales de PyTorch; tablas de texto y HTML, números, la terminal, barras de progreso.
2. ``dispositivo``: elegir CPU/CUDA/MPS/XPU, ``como_dispositivo``, ``sincronizar``,
   ``nvidia-smi`` y ``describir_entorno()`` (lección 01).
3. ``colab`` y ``nube``: Google Colab y Drive; lo que cuesta una GPU alquilada (lección 02).
   ``kernels``: tus primeros kernels de GPU con Triton, también en la CPU con su intérprete (lección 11).
4. ``medicion``: cronometrar bien, CPU frente a GPU, comparar dos tiempos (lección 03).
   ``memoria``: cuánta memoria necesita un modelo, medida al entrenar y el lote que cabe (lecciones 04 y 07).
   ``guardado``: escribir sin perder nada, checkpoints con SHA-256 y reanudar (lección 05).
   ``rendimiento``: precisión mixta, ``DataLoader`` y el diagnóstico de la lección 06.
   ``distribuido``: DDP y ``torchrun`` sin procesos huérfanos (lección 08).
5. ``entrenamiento``: datos, modelos, ``entrenar``, ``evaluar`` y ``predecir`` (lección 05).
6. ``ajuste``: LoRA y QLoRA con ``transformers`` y ``peft`` (lección 09).
   ``generacion``: generar texto rápido: caché KV, lotes y el techo del ancho de banda (lección 10).
7. ``graficos``: las figuras del curso (matplotlib se importa al dibujar).
8. ``interactivo``: la pizarra, la calculadora de VRAM y ``python -m curso_gpu``.
9. Las órdenes: ``__main__`` (``python -m curso_gpu``), ``app_lineas`` (``python -m
   curso_gpu.app_lineas``, la app de la lección 05) y ``entrenar_ddp`` (``python -m
   curso_gpu.entrenar_ddp``, lección 08).

``import curso_gpu`` no carga torch, matplotlib, ipywidgets, transformers ni triton: cada subpaquete se carga al
usarlo (``curso_gpu.memoria`` funciona sin importarlo antes).
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

__version__ = "0.1.0"

__all__ = ["__version__"]


def __getattr__(nombre: str):
    carpeta = os.path.dirname(__file__)
    if not nombre.startswith("_") and (os.path.isfile(os.path.join(carpeta, f"{nombre}.py"))
                                       or os.path.isfile(os.path.join(carpeta, nombre, "__init__.py"))):
        return importlib.import_module(f".{nombre}", __name__)  # curso_gpu.memoria sin importarlo antes
    raise AttributeError(f"module {__name__!r} has no attribute {nombre!r}")
