"""Qué versión de CUDA admite cada driver de NVIDIA y qué rueda de PyTorch instalar. Lección 01.

Es la única tabla del curso con estos números: el diagnóstico de ``describir_entorno``
y el mensaje de ``DispositivoNoDisponible`` la leen de aquí.

Fuentes:

- NVIDIA, «CUDA Toolkit Release Notes», tabla «CUDA Toolkit and Corresponding Driver
  Versions»: el driver mínimo de cada versión GA del toolkit (Linux x86_64 y Windows).
  Desde CUDA 13 la tabla ya no da un driver de Windows: allí usamos el de Linux, que es
  de la misma rama (580, 590, 595...).
- PyTorch, «RELEASE.md», matriz de CUDA de cada versión, y los índices de ruedas
  ``https://download.pytorch.org/whl/cuXYZ``. Las ruedas «retiradas» ya no reciben
  versiones nuevas de torch: guardamos la última que se publicó con ellas.

Regla prudente: proponemos una rueda cuya CUDA no supere la que admite el driver. Gracias
a la compatibilidad de versión menor de CUDA, a veces una rueda más nueva de la misma
versión mayor también funciona, pero la prudente funciona siempre.
"""

from __future__ import annotations

from dataclasses import dataclass

INDICE_RUEDAS = "https://download.pytorch.org/whl"


@dataclass(frozen=True)
class VersionCUDA:
    """Una versión de CUDA, el driver mínimo que la admite y su rueda de PyTorch (si existe)."""

    version: tuple[int, int]
    driver_linux: str
    driver_windows: str | None = None  # None: NVIDIA no lo publica; vale el de Linux
    rueda: str | None = None  # "cu126": índice de ruedas de PyTorch
    torch_maximo: str | None = None  # rueda retirada: última versión de torch publicada con ella


# De la más nueva a la más antigua.
VERSIONES_CUDA: tuple[VersionCUDA, ...] = (
    VersionCUDA((13, 2), "595.45.04", None, "cu132"),
    VersionCUDA((13, 1), "590.44.01"),
    VersionCUDA((13, 0), "580.65.06", None, "cu130"),
    VersionCUDA((12, 9), "575.51.03", "576.02", "cu129", torch_maximo="2.8.0"),
    VersionCUDA((12, 8), "570.26", "570.65", "cu128", torch_maximo="2.11.1"),
    VersionCUDA((12, 6), "560.28.03", "560.76", "cu126"),
    VersionCUDA((12, 5), "555.42.02", "555.85"),
    VersionCUDA((12, 4), "550.54.14", "551.61", "cu124", torch_maximo="2.6.0"),
    VersionCUDA((12, 3), "545.23.06", "545.84"),
    VersionCUDA((12, 2), "535.54.03", "536.25"),
    VersionCUDA((12, 1), "530.30.02", "531.14", "cu121", torch_maximo="2.5.1"),
    VersionCUDA((12, 0), "525.60.13", "527.41"),
    VersionCUDA((11, 8), "520.61.05", "520.06", "cu118", torch_maximo="2.7.1"),
    VersionCUDA((11, 0), "450.36.06", "451.22"),
)


def _numeros(version: str) -> tuple[int, ...]:
    partes = []
    for trozo in str(version).strip().split("."):
        if not trozo.isdigit():
            break
        partes.append(int(trozo))
    return tuple(partes)


def cuda_maxima_del_driver(driver: str, sistema: str = "linux") -> tuple[int, int] | None:
    """La versión de CUDA más alta que admite un driver (p. ej. "560.35.03" → (12, 6)).

    Sirve cuando ``nvidia-smi`` no imprime «CUDA Version» en su cabecera. ``sistema`` es
    "linux" o "windows" (los números de driver difieren un poco). None si el driver no se
    entiende o es más antiguo que todos los de la tabla.
    """
    actual = _numeros(driver)
    if not actual:
        return None
    windows = str(sistema).lower().startswith("win")
    for fila in VERSIONES_CUDA:
        minimo = (fila.driver_windows or fila.driver_linux) if windows else fila.driver_linux
        if actual >= _numeros(minimo):
            return fila.version
    return None


def rueda_para(cuda_del_driver: tuple[int, int] | None) -> VersionCUDA | None:
    """La rueda de PyTorch que conviene con un driver que admite esa versión de CUDA.

    Prefiere las ruedas que siguen recibiendo versiones nuevas de torch (la más nueva que
    el driver admita); solo si el driver es antiguo propone una rueda retirada, con la
    última torch que la tuvo. Sin información del driver propone la más conservadora de
    las actuales (cu126). None si el driver es más antiguo que todas las ruedas: hay que
    actualizarlo.
    """
    actuales = [fila for fila in VERSIONES_CUDA if fila.rueda and not fila.torch_maximo]
    retiradas = [fila for fila in VERSIONES_CUDA if fila.rueda and fila.torch_maximo]
    if cuda_del_driver is None:
        return actuales[-1]
    for fila in actuales + retiradas:
        if fila.version <= tuple(cuda_del_driver):
            return fila
    return None


def comando_instalacion(cuda_del_driver: tuple[int, int] | None = None) -> str:
    """El comando ``pip`` exacto que instala PyTorch con CUDA para ese driver. Lección 01.

    ``--force-reinstall`` hace falta: si ya tienes la versión «+cpu», pip daría por
    buena la instalación y no cambiaría nada.

    >>> comando_instalacion((12, 4))
    'python -m pip install --force-reinstall torch==2.6.0 --index-url https://download.pytorch.org/whl/cu124'

    Lanza ``ValueError`` si el driver es demasiado antiguo para cualquier rueda.
    """
    fila = rueda_para(cuda_del_driver)
    if fila is None:
        raise ValueError(
            f"Un driver que solo admite CUDA {'.'.join(map(str, cuda_del_driver))} es más antiguo que "
            f"todas las ruedas de PyTorch (la más antigua, {_mas_antigua().rueda}, pide un driver "
            f"{_mas_antigua().driver_linux} o más nuevo). Actualiza el driver de NVIDIA."
        )
    paquete = f"torch=={fila.torch_maximo}" if fila.torch_maximo else "torch"
    return (
        f"python -m pip install --force-reinstall {paquete} "
        f"--index-url {INDICE_RUEDAS}/{fila.rueda}"
    )


def _mas_antigua() -> VersionCUDA:
    return [fila for fila in VERSIONES_CUDA if fila.rueda][-1]
