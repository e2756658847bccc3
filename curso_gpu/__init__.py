"""curso_gpu: las herramientas del curso «Usar una GPU con PyTorch».

Cada módulo es la caja de herramientas de una lección:

- ``dispositivo``: elegir CPU/CUDA/MPS/XPU y describir el entorno (lección 01).
- ``colab``: Google Colab, Google Drive y la comprobación del entorno (lección 02).
- ``medicion``: medir CPU frente a GPU sin trampas (lección 03), con ``cronometro``
  (sincronizar, calentar, mediana) y ``memoria_libre`` (¿caben las matrices antes de crearlas?).
- ``memoria``: cuánta memoria necesita un modelo (lección 04).
- ``datos``, ``modelos``, ``entrenamiento``, ``checkpoints``, ``widgets``: entrenar de
  forma portable y dibujar líneas para el modelo (lección 05).
- ``rendimiento``, ``conjuntos``, ``precision_mixta``: por qué va lento un entrenamiento
  (datos, lanzamientos o cálculo), un ``DataLoader`` que alimente la GPU y precisión mixta (lección 06).
- ``graficos``: las figuras de las lecciones (matplotlib, se importa solo al dibujar).
- ``presentacion``: cómo se ven los informes en la terminal y en el notebook.

``import curso_gpu`` no carga matplotlib ni ipywidgets.
"""

from .dispositivo import (
    DispositivoNoDisponible,
    InformeEntorno,
    describir_entorno,
    dispositivos_disponibles,
    elegir_dispositivo,
)
from .nvidia_smi import consultar_nvidia_smi

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
