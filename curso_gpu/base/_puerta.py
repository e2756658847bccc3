"""La puerta de cada subpaquete: sus nombres se cargan al usarlos (PEP 562).

Cada módulo dice en su ``__all__`` lo que ofrece. ``abrir`` lee esas listas sin importar los
módulos (``from curso_gpu.base import Tabla`` no carga torch, y ``python -m curso_gpu --help``
responde al momento), arma ``CASAS`` (cada nombre y el módulo donde vive) y da al subpaquete su
``__all__``, su ``__getattr__`` y su ``__dir__``. Así no hay una lista a mano que olvidar: lo
público de un subpaquete es la suma de los ``__all__`` de sus módulos.
"""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

_PATRON_ALL = re.compile(r"^__all__\s*=\s*(\[[^\]]*\]|\([^)]*\))", re.MULTILINE)


def publicos_de(ruta: Path) -> list[str]:
    """Lo que ofrece el módulo ``ruta``: su ``__all__`` (una lista escrita tal cual), leído sin importarlo."""
    encontrado = _PATRON_ALL.search(ruta.read_text(encoding="utf-8"))
    if encontrado is None:
        raise ImportError(f"{ruta.name} no declara __all__: cada módulo dice qué ofrece (tests/test_arquitectura.py)")
    return list(ast.literal_eval(encontrado.group(1)))


def casas_de(carpeta: Path) -> dict[str, str]:
    """Cada nombre público de los módulos de ``carpeta`` y el módulo donde vive."""
    casas: dict[str, str] = {}
    for ruta in sorted(carpeta.glob("*.py")):
        if ruta.name.startswith("_"):
            continue  # __init__, __main__ y los módulos privados no ofrecen nada
        for nombre in publicos_de(ruta):
            if nombre in casas:
                raise ImportError(f"{nombre} está en el __all__ de {casas[nombre]} y en el de {ruta.stem}: "
                                  "cada nombre tiene una sola casa")
            casas[nombre] = ruta.stem
    return casas


def abrir(espacio: dict) -> None:
    """Da al subpaquete cuyo ``globals()`` es ``espacio`` su ``CASAS``, ``__all__``, ``__getattr__`` y ``__dir__``."""
    paquete = espacio["__name__"]
    casas = casas_de(Path(espacio["__file__"]).parent)

    def __getattr__(nombre: str):
        if nombre not in casas:
            raise AttributeError(f"module {paquete!r} has no attribute {nombre!r}")
        valor = getattr(importlib.import_module(f".{casas[nombre]}", paquete), nombre)
        espacio[nombre] = valor  # la próxima vez, sin pasar por aquí
        return valor

    def __dir__() -> list[str]:
        return sorted(set(casas) | {n for n in espacio if n.startswith("__") or n == "CASAS"})

    espacio.update(CASAS=casas, __all__=sorted(casas), __getattr__=__getattr__, __dir__=__dir__)
