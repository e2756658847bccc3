"""Lo que el curso declara como dependencia: donde está declarada, que falte es un error, no un salto.

``requirements.txt`` (lo que instala la orden del README) es la fuente: ``triton>=3.7.0;
sys_platform == "linux"`` se pide en Linux y en ningún otro sistema (no hay ruedas). Una prueba
que necesita triton llama a ``exigir_triton(falta)``: si no se puede importar y aquí está declarado,
falla; si aquí no hay versión, se salta como cualquier otra cosa que falta (``falta``).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

REQUISITOS = Path(__file__).resolve().parent.parent / "requirements.txt"


def declarada(nombre: str) -> bool:
    """¿Pide ``requirements.txt`` el paquete ``nombre`` en esta máquina (con su marcador, si lo tiene)?"""
    for linea in REQUISITOS.read_text(encoding="utf-8").splitlines():
        linea = linea.split("#", 1)[0].strip()
        if not linea or linea.startswith("-"):  # comentarios y opciones de pip (``-e .``)
            continue
        requisito = Requirement(linea)
        if canonicalize_name(requisito.name) == canonicalize_name(nombre):
            return requisito.marker is None or requisito.marker.evaluate()
    return False


def exigir_triton(falta) -> None:
    """Nada si triton se puede importar; si no: falla donde está declarado y, donde no, ``falta``."""
    from curso_gpu.kernels import COMO_INSTALAR, triton_instalado

    if triton_instalado():
        return
    if declarada("triton"):
        pytest.fail(f"triton está declarado para este sistema (requirements.txt, curso_gpu[kernels]) y no se "
                    f"puede importar: la instalación está incompleta. {COMO_INSTALAR}", pytrace=False)
    falta("triton no tiene versión para este sistema (solo Linux): los kernels de la lección 11 no se prueban aquí")
