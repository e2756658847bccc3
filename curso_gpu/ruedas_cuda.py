"""Qué versión de CUDA admite cada driver de NVIDIA y qué rueda de PyTorch instalar.

Lección 01. Es la única tabla del curso con estos números: el diagnóstico de
``describir_entorno`` y el mensaje de ``DispositivoNoDisponible`` la leen de aquí.

Fuente: NVIDIA, «CUDA Toolkit Release Notes», tabla 3 «CUDA Toolkit and Corresponding
Driver Versions» (driver mínimo de cada versión GA del toolkit, Linux x86_64 y Windows),
y los índices de ruedas de PyTorch ``https://download.pytorch.org/whl/cuXYZ``.
"""

from __future__ import annotations

from dataclasses import dataclass

INDICE_RUEDAS = "https://download.pytorch.org/whl"


@dataclass(frozen=True)
class VersionCUDA:
    """Una versión de CUDA, el driver mínimo que la admite y su rueda de PyTorch (si existe)."""

    version: tuple[int, int]
    driver_linux: str
    driver_windows: str
    rueda: str | None = None  # "cu126": índice de ruedas de PyTorch
    torch_maximo: str | None = None  # última versión de torch publicada con esa rueda


# De la más nueva a la más antigua.
VERSIONES_CUDA: tuple[VersionCUDA, ...] = (
    VersionCUDA((13, 0), "580.65.06", "580.88", "cu130"),
    VersionCUDA((12, 9), "575.51.03", "576.02", "cu129", torch_maximo="2.8.0"),
    VersionCUDA((12, 8), "570.26", "570.65", "cu128"),
    VersionCUDA((12, 6), "560.28.03", "560.76", "cu126"),
    VersionCUDA((12, 4), "550.54.14", "551.61", "cu124", torch_maximo="2.6.0"),
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

    Sirve cuando ``nvidia-smi`` no imprime «CUDA Version» en su cabecera. None si el
    driver no se entiende o es más antiguo que todos los de la tabla.
    """
    actual = _numeros(driver)
    if not actual:
        return None
    for fila in VERSIONES_CUDA:
        minimo = fila.driver_windows if sistema.lower().startswith("win") else fila.driver_linux
        if actual >= _numeros(minimo):
            return fila.version
    return None


def rueda_para(cuda_del_driver: tuple[int, int] | None) -> VersionCUDA:
    """La rueda de PyTorch que conviene con un driver que admite esa versión de CUDA.

    Prefiere las ruedas que siguen recibiendo versiones nuevas de torch; solo si el
    driver es antiguo propone una rueda retirada (con la última torch que la tuvo).
    Sin información del driver propone la más conservadora de las actuales (cu126).
    """
    actuales = [fila for fila in VERSIONES_CUDA if fila.rueda and not fila.torch_maximo]
    retiradas = [fila for fila in VERSIONES_CUDA if fila.rueda and fila.torch_maximo]
    if cuda_del_driver is None:
        return actuales[-1]
    for fila in actuales + retiradas:
        if fila.version <= tuple(cuda_del_driver):
            return fila
    return retiradas[-1]


def comando_instalacion(cuda_del_driver: tuple[int, int] | None = None) -> str:
    """El comando ``pip`` exacto para instalar PyTorch con CUDA para ese driver.

    >>> comando_instalacion((12, 4))
    'python -m pip install --force-reinstall torch==2.6.0 --index-url https://download.pytorch.org/whl/cu124'
    """
    fila = rueda_para(cuda_del_driver)
    paquete = f"torch=={fila.torch_maximo}" if fila.torch_maximo else "torch"
    return (
        f"python -m pip install --force-reinstall {paquete} "
        f"--index-url {INDICE_RUEDAS}/{fila.rueda}"
    )
