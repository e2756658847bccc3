"""El curso no está en PyPI: ninguna instrucción le pide a pip que lo instale por su nombre solo.

``pip install curso_gpu`` (o ``"curso_gpu[kernels]"``) instalaría lo que alguien suba a PyPI con ese
nombre. Las lecciones, el README, ``colab_badges.md`` y los mensajes del paquete instalan el curso
siempre desde su repositorio: ``git+https://...``, ``"curso_gpu[kernels] @ git+https://..."`` o
``pip install -e ".[kernels]"`` en una copia clonada.
"""

import re
from pathlib import Path

import pytest

RAIZ = Path(__file__).resolve().parent.parent

_ORDEN_PIP = re.compile(r"pip3?\s+install\b(?P<resto>[^\n`]*)")
_NOMBRE_SOLO = re.compile(
    r"""(?:^|[\s"'(\[,])(?P<arg>curso[_-]gpu(?:\[[^\]]*\])?(?:\s*[=<>~!]=?\s*[\w.*]+)?)(?=["')\s,]|$)(?!\s*@)""",
    re.IGNORECASE)


def instalaciones_por_nombre(texto: str) -> list[str]:
    """Las órdenes ``pip install`` de ``texto`` que piden el curso por su nombre solo (sin ``@ git+...``)."""
    malas = []
    for orden in _ORDEN_PIP.finditer(texto):
        argumentos = re.split(r"\s#|;|&&|\|", orden.group("resto"))[0]  # hasta un comentario u otra orden
        if _NOMBRE_SOLO.search(argumentos):
            malas.append(orden.group(0).strip())
    return malas


def _textos_para_el_alumno() -> list[Path]:
    rutas = sorted((RAIZ / "notebooks").glob("[0-9][0-9]_*.py")) + [RAIZ / "README.md", RAIZ / "colab_badges.md"]
    return rutas + sorted((RAIZ / "curso_gpu").rglob("*.py"))


@pytest.mark.parametrize("orden", [
    'pip install "curso_gpu[kernels]"',
    "pip install curso_gpu",
    "!pip install -q curso-gpu",
    "pip install -U curso_gpu==0.1",
    'pip install -U "triton>=3.7.0" (o "curso_gpu[kernels]").',
    "python -m pip install 'curso_gpu[kernels]' triton",
])
def test_pedir_el_curso_a_pypi_por_su_nombre_se_detecta(orden):
    assert instalaciones_por_nombre(f"texto\n{orden}\nmás texto") != []


@pytest.mark.parametrize("orden", [
    'pip install "curso_gpu[kernels] @ git+https://github.com/curso-gpu/curso_gpu"',
    "pip install -q git+https://github.com/curso-gpu/curso_gpu",
    'pip install -e ".[kernels]"',
    "pip install -r requirements.txt",
    "pip install triton  # lo que pide curso_gpu",
    "pip install bitsandbytes; import curso_gpu",
])
def test_instalar_desde_el_repositorio_no_se_confunde(orden):
    assert instalaciones_por_nombre(orden) == []


def test_ningun_texto_para_el_alumno_instala_el_curso_por_su_nombre_solo():
    malas = [f"{ruta.relative_to(RAIZ)}: {orden}" for ruta in _textos_para_el_alumno()
             for orden in instalaciones_por_nombre(ruta.read_text(encoding="utf-8"))]
    assert not malas, ("el curso no está en PyPI: instálalo desde el repositorio "
                       "(\"curso_gpu[kernels] @ git+https://...\" o pip install -e \".[kernels]\"):\n" + "\n".join(malas))
