"""ipywidgets 7.7.1, el de Google Colab, instalado una vez en .cache/ipywidgets7 para las pruebas.

Lo usan test_widgets.py (la pizarra y el selector) y test_progreso_estatico.py (la barra):
con esa carpeta delante en ``sys.path``, un proceso importa ipywidgets 7.7.1 en vez del 8 del entorno.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

RAIZ = Path(__file__).resolve().parent.parent
CACHE_W7 = RAIZ / ".cache" / "ipywidgets7"
# Solo la parte de Python: widgetsnbextension y jupyterlab_widgets son el JavaScript del navegador
# (aquí no hay navegador) e ipywidgets 7 no los importa. Las demás dependencias ya están en el entorno.
PAQUETES_W7 = ["ipywidgets==7.7.1", "ipython_genutils==0.2.0"]


def instalar_ipywidgets7() -> Path:
    """Instala (una vez) ipywidgets 7.7.1 en .cache/ipywidgets7; falla con un mensaje claro."""
    if (CACHE_W7 / "ipywidgets-7.7.1.dist-info").is_dir() and (CACHE_W7 / "ipywidgets").is_dir():
        return CACHE_W7
    temporal = CACHE_W7.with_name(f"ipywidgets7.tmp{os.getpid()}")
    shutil.rmtree(temporal, ignore_errors=True)
    orden = [sys.executable, "-m", "pip", "install", "-q", "--disable-pip-version-check", "--no-deps",
             "--no-compile", "--target", str(temporal), *PAQUETES_W7]
    resultado = subprocess.run(orden, capture_output=True, text=True, timeout=300)
    if resultado.returncode != 0:
        shutil.rmtree(temporal, ignore_errors=True)
        pytest.fail(
            "No pude instalar ipywidgets 7.7.1 (el de Google Colab) para probar los widgets con él.\n"
            f"Orden: {' '.join(orden)}\n{resultado.stdout}\n{resultado.stderr}\n"
            "¿Hay acceso a PyPI? Esta prueba no se salta: sin ella no sabemos si la pizarra funciona en Colab."
        )
    CACHE_W7.parent.mkdir(parents=True, exist_ok=True)
    if CACHE_W7.exists():
        shutil.rmtree(CACHE_W7)
    os.replace(temporal, CACHE_W7)
    return CACHE_W7
