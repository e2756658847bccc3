"""Preguntar a ``nvidia-smi`` qué GPU NVIDIA hay, con qué driver y cuánta memoria. Lección 01."""

from __future__ import annotations

import os
import platform
import re
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass, field

from .ruedas_cuda import cuda_maxima_del_driver

CAMPOS = "index,name,driver_version,memory.total,memory.used,memory.free"

# Lo que imprime ``nvidia-smi`` en una T4 de Google Colab recién abierta (lección 01 lo
# explica línea a línea cuando tu máquina no tiene nvidia-smi).
SALIDA_EJEMPLO_T4 = """\
+-----------------------------------------------------------------------------------------+
| NVIDIA-SMI 580.82.07              Driver Version: 580.82.07      CUDA Version: 13.0     |
|-----------------------------------------+------------------------+----------------------+
| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |
| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |
|                                         |                        |               MIG M. |
|=========================================+========================+======================|
|   0  Tesla T4                       Off |   00000000:00:04.0 Off |                    0 |
| N/A   38C    P8              9W /   70W |       0MiB /  15360MiB |      0%      Default |
|                                         |                        |                  N/A |
+-----------------------------------------+------------------------+----------------------+

+-----------------------------------------------------------------------------------------+
| Processes:                                                                              |
|  GPU   GI   CI        PID   Type   Process name                              GPU Memory |
|        ID   ID                                                               Usage      |
|=========================================================================================|
|  No running processes found                                                             |
+-----------------------------------------------------------------------------------------+
"""


@dataclass
class GPUNvidiaSmi:
    """Una fila de ``nvidia-smi --query-gpu``: memoria en MiB, como la imprime la herramienta.

    Una memoria que ``nvidia-smi`` no conoce (``[N/A]``) queda en None.
    """

    indice: int
    nombre: str
    memoria_total_mib: int | None
    memoria_usada_mib: int | None
    memoria_libre_mib: int | None


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
            stdin=subprocess.DEVNULL, text=True, errors="replace",
            start_new_session=True,  # su propio grupo: así podemos matarlo con sus hijos
        )
    except (OSError, ValueError):
        return None
    try:
        salida, _ = proceso.communicate(timeout=max(timeout_s, 0.01))
    except subprocess.TimeoutExpired:
        try:  # matar también a sus hijos: un nvidia-smi colgado no debe quedar vivo
            os.killpg(proceso.pid, signal.SIGKILL)
        except (OSError, AttributeError):  # AttributeError: Windows no tiene killpg
            proceso.kill()
        try:
            proceso.communicate(timeout=2)
        except subprocess.TimeoutExpired:
            pass
        return None
    return salida if proceso.returncode == 0 else None


def _mib(texto: str) -> int | None:
    numero = re.match(r"\s*(\d+)", texto)
    return int(numero.group(1)) if numero else None


def analizar_consulta(texto: str) -> tuple[str, list[GPUNvidiaSmi]] | None:
    """Lee la salida CSV de ``nvidia-smi --query-gpu=... --format=csv,noheader,nounits``.

    Devuelve (driver, GPU) o None si no hay ninguna fila válida.
    """
    gpus, driver = [], ""
    for linea in (texto or "").strip().splitlines():
        partes = [p.strip() for p in linea.split(",")]
        if len(partes) < 6 or not partes[0].isdigit():
            continue
        # El nombre va entre el índice y los cuatro últimos campos (por si llevara comas).
        nombre = ", ".join(partes[1:-4])
        driver, total, usada, libre = partes[-4:]
        gpus.append(GPUNvidiaSmi(int(partes[0]), nombre, _mib(total), _mib(usada), _mib(libre)))
    if not gpus:
        return None
    return driver, gpus


def analizar_cabecera(texto: str) -> tuple[int, int] | None:
    """La «CUDA Version: 12.4» de la cabecera de ``nvidia-smi`` (None si no aparece)."""
    encontrado = re.search(r"CUDA Version\s*:\s*(\d+)\.(\d+)", texto or "")
    return (int(encontrado.group(1)), int(encontrado.group(2))) if encontrado else None


def consultar_nvidia_smi(timeout_s: float = 5) -> InformeNvidiaSmi | None:
    """Ejecuta ``nvidia-smi`` y devuelve lo que informa, o None. Nunca lanza excepciones. Lección 01.

    None cuando no está instalado, termina con error o tarda más de ``timeout_s``
    segundos en total. La versión de CUDA que admite el driver sale de la cabecera del
    ``nvidia-smi`` normal; si un driver nuevo no la imprime, se deduce del número de driver.
    """
    try:
        return _consultar(float(timeout_s))
    except Exception:  # un informe sin nvidia-smi es mejor que un curso que no arranca
        return None


def _consultar(timeout_s: float) -> InformeNvidiaSmi | None:
    programa = shutil.which("nvidia-smi")
    if programa is None:
        return None
    limite = time.monotonic() + timeout_s
    salida = _ejecutar([programa, f"--query-gpu={CAMPOS}", "--format=csv,noheader,nounits"], timeout_s)
    analizado = analizar_consulta(salida) if salida else None
    if analizado is None:
        return None
    driver, gpus = analizado
    restante = limite - time.monotonic()
    cabecera = _ejecutar([programa], restante) if restante > 0 else None
    cuda = analizar_cabecera(cabecera or "")
    de_cabecera = cuda is not None
    if cuda is None:
        cuda = cuda_maxima_del_driver(driver, platform.system())
    return InformeNvidiaSmi(driver=driver, cuda_del_driver=cuda, cuda_de_cabecera=de_cabecera, gpus=gpus)


def analizar_capacidades(texto: str) -> list[tuple[int, int]]:
    """Lee la salida de ``nvidia-smi --query-gpu=compute_cap --format=csv,noheader``: «7.5» por GPU.

    Devuelve [] si alguna línea no es una capacidad (mejor no saber que adivinar mal).
    """
    capacidades = []
    for linea in (texto or "").strip().splitlines():
        encontrado = re.fullmatch(r"\s*(\d+)\.(\d+)\s*", linea)
        if not encontrado:
            return []
        capacidades.append((int(encontrado.group(1)), int(encontrado.group(2))))
    return capacidades


def consultar_capacidades(timeout_s: float = 3) -> list[tuple[int, int]]:
    """La capacidad de cómputo de cada GPU NVIDIA, p. ej. [(7, 5)] en una T4. Lección 01.

    Sirve para elegir una rueda de PyTorch que traiga kernels para tu GPU aunque tu
    PyTorch sea solo para CPU. [] si no hay ``nvidia-smi`` o es tan antiguo que no
    conoce el campo ``compute_cap``. Nunca lanza excepciones.
    """
    programa = shutil.which("nvidia-smi")
    if programa is None:
        return []
    try:
        salida = _ejecutar([programa, "--query-gpu=compute_cap", "--format=csv,noheader"], float(timeout_s))
    except Exception:
        return []
    return analizar_capacidades(salida or "")
