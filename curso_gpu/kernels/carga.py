"""Cargar Triton en el modo que toca: compilado en una GPU CUDA, intérprete en la CPU. Lección 11.

Triton compila cada kernel para la GPU. Su **intérprete** (``TRITON_INTERPRET=1``) ejecuta el
mismo kernel en la CPU con NumPy, un programa detrás de otro: sirve para escribirlo, depurarlo
(``print``, ``pdb``) y comprobarlo sin GPU, no para medir su velocidad. Triton lee esa variable
al definir cada kernel (``@triton.jit``), así que hay que ponerla antes.

Cuándo la pone el curso (la primera vez que lanzas uno de sus kernels, nunca al importar):

- si ya la pusiste tú (``1`` o ``0``), se respeta;
- si no, y esta máquina no tiene GPU CUDA, y nadie ha importado ``triton`` todavía, el curso
  pone ``TRITON_INTERPRET=1`` en ``os.environ``: los kernels que definas después en esta sesión
  también se interpretarán (sin GPU no hay otra forma de ejecutarlos);
- si ``triton`` ya estaba importado sin el intérprete (lo importaste tú, o ``torch.compile``),
  no se toca tu sesión: los kernels del curso se compilan, y con tensores en la CPU el error
  te dice qué hacer.

Triton solo publica ruedas para Linux (x86-64 y ARM). En Colab ya viene con PyTorch.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys

from ..base import URL_GITHUB

__all__ = [
    "COMO_INSTALAR", "COMPILADO", "INTERPRETE", "PLATAFORMAS_CON_TRITON", "TRITON_MINIMO", "cargar_programas",
    "interprete_pedido", "modo_triton", "preparar_interprete", "triton_declarado", "triton_instalado",
    "version_suficiente"
]

INTERPRETE = "intérprete"
COMPILADO = "compilado"

TRITON_MINIMO = "3.7.0"
"""La versión de triton más antigua cuyo intérprete ejecuta bien los kernels del curso.

Probado con torch 2.13.0 (CPU) y NumPy 2.4.6, con ``tests/test_kernels.py`` (3-12-2026): 3.7.0,
3.8.0 y 3.9.0 dan lo mismo que PyTorch. De 3.2.0 a 3.6.0, los bucles con un límite que llega
como argumento (``for inicio in range(0, K, BLOQUE_K)``, la matmul y las filas largas del softmax)
fallan en el intérprete con «only 0-dimensional arrays can be converted to Python scalars»: NumPy
ya no convierte un vector de un elemento en un número (las NumPy anteriores solo avisaban), y
triton 3.7.0 lo arregló. Con 3.1.0 falla ya la suma. Es la cota del grupo «kernels» del curso
(``pip install "curso_gpu[kernels] @ git+..."``); con una triton más antigua y una NumPy que solo avisa (Colab), los
lanzadores la aceptan. Compilados en una GPU, los kernels no dependen de esto.
"""

COMO_INSTALAR = (
    f"Triton no está instalado. En Linux (también WSL2 en Windows): pip install \"curso_gpu[kernels] @ "
    f"git+{URL_GITHUB}\" (o pip install triton); el PyTorch con CUDA de Linux ya lo trae. En macOS y en Windows sin WSL2 "
    "Triton no tiene versión: abre la lección en Google Colab (también con el entorno de CPU)."
)
"""Qué hacer cuando falta ``triton``: lo dicen la lección 11 y cada kernel del curso."""

PLATAFORMAS_CON_TRITON = ("linux",)
"""Los ``sys.platform`` donde el curso declara triton: ``requirements.txt`` (``sys_platform == "linux"``) y
el grupo «kernels» de ``pyproject.toml`` (``platform_system == 'Linux'``). Allí, que falte es un fallo."""

_VERDADERO = ("1", "true", "yes", "on", "y")  # lo que triton toma como «sí» en TRITON_INTERPRET


def triton_instalado() -> bool:
    """¿Se puede importar ``triton`` aquí? No lo importa. Lección 11."""
    if "triton" in sys.modules:
        return sys.modules["triton"] is not None  # None: alguien bloqueó su importación
    try:
        return importlib.util.find_spec("triton") is not None
    except (ImportError, ValueError):  # un triton roto o a medias cuenta como que no está
        return False


def triton_declarado(plataforma: str | None = None) -> bool:
    """¿Instala el curso triton en esta plataforma (``sys.platform`` si no dices otra)? Lección 11.

    En Linux sí (lo piden ``requirements.txt`` y el PyTorch con CUDA): si falta, la instalación está
    incompleta. En macOS y Windows no hay ruedas: la lección explica sin ejecutar los kernels.
    """
    return (sys.platform if plataforma is None else plataforma).startswith(PLATAFORMAS_CON_TRITON)


def _hay_cuda() -> bool:
    import torch

    return torch.cuda.is_available()


def preparar_interprete() -> None:
    """Pone ``TRITON_INTERPRET=1`` solo si nadie lo decidió, no hay CUDA y triton no está importado.

    La llama ``programas`` antes de importar ``triton``. Lección 11.
    """
    if "TRITON_INTERPRET" in os.environ or "triton" in sys.modules or _hay_cuda():
        return
    os.environ["TRITON_INTERPRET"] = "1"


def cargar_programas():
    """El módulo con los kernels del curso (``programas``), importado en el modo que toca.

    La primera llamada decide el modo (ver el docstring del módulo) e importa ``triton``.
    Sin triton, ``ModuleNotFoundError`` con :data:`COMO_INSTALAR`. Lección 11.
    """
    nombre = f"{__package__}.programas"
    if nombre in sys.modules:
        return sys.modules[nombre]
    if not triton_instalado():
        raise ModuleNotFoundError(COMO_INSTALAR, name="triton")
    return importlib.import_module(nombre)  # programas llama a preparar_interprete() antes de importar triton


def modo_triton() -> str:
    """``"intérprete"`` o ``"compilado"``: cómo se ejecutan los kernels del curso en esta sesión.

    Carga los kernels si aún no lo estaban (y con ello decide el modo). Lección 11.
    """
    programas = cargar_programas()
    return INTERPRETE if type(programas.kernel_suma).__name__ == "InterpretedFunction" else COMPILADO


def version_suficiente(version: str, minima: str = TRITON_MINIMO) -> bool:
    """¿Es ``version`` (``"3.9.0"``, ``"3.7.0+git1234"``) al menos ``minima`` (:data:`TRITON_MINIMO`)? Lección 11."""
    def numeros(texto):
        return tuple(int("".join(c for c in parte if c.isdigit()) or 0) for parte in texto.split(".")[:3])

    return numeros(version) >= numeros(minima)


def interprete_pedido() -> bool:
    """¿Pide el entorno el intérprete de Triton (``TRITON_INTERPRET=1``)? Lección 11."""
    return os.environ.get("TRITON_INTERPRET", "0").strip().lower() in _VERDADERO
