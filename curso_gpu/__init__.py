"""curso_gpu: las herramientas del curso «Usar una GPU con PyTorch».

Cada módulo es la caja de herramientas de una lección:

- ``dispositivo``: elegir CPU/CUDA/MPS/XPU y describir el entorno (lección 01).
- ``colab``: Google Colab, Google Drive y la comprobación del entorno (lección 02).
- ``medicion``: medir CPU frente a GPU sin trampas (lección 03), con ``cronometro``
  (sincronizar, calentar, mediana) y ``memoria_libre`` (¿caben las matrices antes de crearlas?).
- ``memoria``: cuánta memoria necesita un modelo (lección 04).
- ``datos``, ``modelos``, ``entrenamiento``, ``checkpoints``, ``widgets``: entrenar de
  forma portable y dibujar líneas para el modelo (lección 05).
- ``graficos``: las figuras de las lecciones (matplotlib, se importa solo al dibujar).
- ``presentacion``: cómo se ven los informes en la terminal y en el notebook.
- ``numeros``: leer los números que escribes (``3``, ``np.int64(3)``, ``Decimal("0.8")``).
- ``terminal``: la ayuda en español y una salida que no falla en consolas sin UTF-8 (órdenes).

``import curso_gpu`` no carga matplotlib ni ipywidgets, ni torch hasta que lo usas.
"""

from __future__ import annotations

import importlib
import os

# Los nombres de arriba se importan al usarlos (PEP 562): así ``python -m curso_gpu --help``
# responde sin cargar torch, y ``from curso_gpu import elegir_dispositivo`` funciona igual.
_REEXPORTADOS = {
    "DispositivoNoDisponible": "dispositivo",
    "InformeEntorno": "dispositivo",
    "describir_entorno": "dispositivo",
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
