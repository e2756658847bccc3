"""Google Colab: detectarlo, montar Google Drive y comprobar el entorno. Lección 02."""

from __future__ import annotations

import os
import sys


def en_colab() -> bool:
    """True solo dentro de Google Colab (un notebook o un ``!python`` lanzado desde él)."""
    return "google.colab" in sys.modules or bool(os.environ.get("COLAB_RELEASE_TAG"))
