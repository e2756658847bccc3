"""Preguntar a ``nvidia-smi`` qué GPU NVIDIA hay, con qué driver y cuánta memoria. Lección 01."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
from dataclasses import dataclass, field

from .ruedas_cuda import cuda_maxima_del_driver

CAMPOS = "index,name,driver_version,memory.total,memory.used,memory.free"


@dataclass
class GPUNvidiaSmi:
    """Una fila de ``nvidia-smi --query-gpu``: memoria en MiB, como la imprime la herramienta."""

    indice: int
    nombre: str
    memoria_total_mib: int
    memoria_usada_mib: int
    memoria_libre_mib: int


@dataclass
class InformeNvidiaSmi:
    """Lo que dice ``nvidia-smi``: driver, CUDA que admite ese driver y cada GPU."""

    driver: str
    cuda_del_driver: tuple[int, int] | None
    cuda_de_cabecera: bool  # False: la CUDA se dedujo del número de driver
    gpus: list[GPUNvidiaSmi] = field(default_factory=list)


def _ejecutar(argumentos: list[str], timeout_s: float) -> str | None:
    """Ejecuta un programa sin shell; None si falla, devuelve error o se cuelga."""
    try:
        proceso = subprocess.Popen(
            argumentos, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            stdin=subprocess.DEVNULL, text=True, start_new_session=True,
        )
    except OSError:
        return None
    try:
        salida, _ = proceso.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        try:  # matar también a sus hijos: un nvidia-smi colgado no debe quedar vivo
            os.killpg(proceso.pid, signal.SIGKILL)
        except OSError:
            proceso.kill()
        proceso.communicate()
        return None
    return salida if proceso.returncode == 0 else None


def _entero(texto: str) -> int:
    numero = re.match(r"\s*(\d+)", texto)
    return int(numero.group(1)) if numero else 0


def analizar_consulta(texto: str) -> tuple[str, list[GPUNvidiaSmi]] | None:
    """Lee la salida CSV de ``nvidia-smi --query-gpu=... --format=csv,noheader,nounits``."""
    gpus, driver = [], ""
    for linea in texto.strip().splitlines():
        partes = [p.strip() for p in linea.split(",")]
        if len(partes) != 6 or not partes[0].isdigit():
            continue
        indice, nombre, driver, total, usada, libre = partes
        gpus.append(GPUNvidiaSmi(int(indice), nombre, _entero(total), _entero(usada), _entero(libre)))
    if not gpus:
        return None
    return driver, gpus


def analizar_cabecera(texto: str) -> tuple[int, int] | None:
    """La «CUDA Version: 12.4» de la cabecera de ``nvidia-smi`` (None si no aparece)."""
    encontrado = re.search(r"CUDA Version\s*:\s*(\d+)\.(\d+)", texto or "")
    return (int(encontrado.group(1)), int(encontrado.group(2))) if encontrado else None


def consultar_nvidia_smi(timeout_s: float = 5) -> InformeNvidiaSmi | None:
    """Ejecuta ``nvidia-smi`` y devuelve lo que informa, o None. Nunca lanza excepciones.

    None cuando no está instalado, termina con error o tarda más de ``timeout_s``
    segundos. La versión de CUDA que admite el driver sale de la cabecera del
    ``nvidia-smi`` normal; si un driver nuevo no la imprime, se deduce del driver.
    """
    programa = shutil.which("nvidia-smi")
    if programa is None:
        return None
    salida = _ejecutar([programa, f"--query-gpu={CAMPOS}", "--format=csv,noheader,nounits"], timeout_s)
    analizado = analizar_consulta(salida) if salida else None
    if analizado is None:
        return None
    driver, gpus = analizado
    cuda = analizar_cabecera(_ejecutar([programa], timeout_s) or "")
    de_cabecera = cuda is not None
    if cuda is None:
        cuda = cuda_maxima_del_driver(driver)
    return InformeNvidiaSmi(driver=driver, cuda_del_driver=cuda, cuda_de_cabecera=de_cabecera, gpus=gpus)
