"""La puerta de cada subpaquete: sus nombres se cargan al usarlos (PEP 562).

Así ``from curso_gpu.base import Tabla`` no carga torch, y ``python -m curso_gpu --help``
responde al momento. Cada ``__init__.py`` dice en ``CASAS`` el módulo de cada nombre.
"""

from __future__ import annotations

import importlib


def cargar_perezoso(paquete: str, casas: dict[str, str], nombre: str, espacio: dict):
    """Importa ``nombre`` desde su módulo (``casas[nombre]``) la primera vez que se pide."""
    if nombre not in casas:
        raise AttributeError(f"module {paquete!r} has no attribute {nombre!r}")
    valor = getattr(importlib.import_module(f".{casas[nombre]}", paquete), nombre)
    espacio[nombre] = valor  # la próxima vez, sin pasar por aquí
    return valor
