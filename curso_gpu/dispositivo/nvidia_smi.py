"""Preguntar a ``nvidia-smi`` qué GPU NVIDIA hay, con qué driver y cuánta memoria. Lección 01."""

from __future__ import annotations

import os
import platform
import re
import shutil
import signal
import subprocess
import threading
import time
from dataclasses import dataclass, field

from ..base import GPUS_SIMULABLES, cuda_maxima_del_driver

__all__ = [
    "GPUNvidiaSmi", "InformeNvidiaSmi", "SALIDA_EJEMPLO_T4", "consultar_capacidades",
    "consultar_nvidia_smi", "consultar_nvidia_smi_con_problema", "tabla_nvidia_smi",
]

_CAMPOS = "index,name,driver_version,memory.total,memory.used,memory.free"


def tabla_nvidia_smi(driver: str, cuda: str, nombre: str, memoria_total_mib: int, memoria_usada_mib: int = 0,
                     bus: str = "00000000:00:04.0", temperatura_c: int = 38, consumo_w: int = 9,
                     limite_w: int = 70, nota: str = "") -> str:
    """La tabla que imprime ``nvidia-smi`` (sin argumentos) con una GPU y ningún proceso. Lección 01.

    Con el formato de los drivers de las ramas 550 a 580, que cambia en dos líneas: desde la 580
    la línea bajo la cabecera empieza por «+---» (antes, «|---») y la columna PID es más ancha
    (salidas de una T4 de Colab con 550.54.15, enero de 2026, y con 580.82.07, agosto de 2026;
    fuentes en ``base.gpu_simulada``). La usan la salida de ejemplo de la lección 01 y el
    ``nvidia-smi`` de la T4 simulada. ``nota``: una línea más dentro de la tabla, al final (la
    simulada dice ahí que lo es).
    """
    borde = "+" + "-" * 89 + "+"
    rama = driver.split(".")[0]
    rama_580 = not rama.isdigit() or int(rama) >= 580
    esquina = "+" if rama_580 else "|"
    bajo_cabecera = esquina + "-" * 41 + "+" + "-" * 24 + "+" + "-" * 22 + esquina
    procesos = ("|  GPU   GI   CI              PID   Type   Process name                        GPU Memory |" if rama_580 else
                "|  GPU   GI   CI        PID   Type   Process name                              GPU Memory |")
    return "\n".join([
        borde,
        f"| NVIDIA-SMI {driver:<23}Driver Version: {driver:<15}CUDA Version: {cuda:<9}|",
        bajo_cabecera,
        "| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |",
        "| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |",
        "|                                         |                        |               MIG M. |",
        "|=========================================+========================+======================|",
        f"|   0  {nombre:<30} Off |   {bus} Off |                    0 |",
        f"| N/A   {temperatura_c:>2}C    P8  {consumo_w:>13}W / {limite_w:>4}W | {memoria_usada_mib:>7}MiB / "
        f"{memoria_total_mib:>6}MiB |      0%      Default |",
        "|                                         |                        |                  N/A |",
        "+-----------------------------------------+------------------------+----------------------+",
        "",
        borde,
        "| Processes:" + " " * 78 + "|",
        procesos,
        "|        ID   ID                                                               Usage      |",
        "|" + "=" * 89 + "|",
        "|  No running processes found" + " " * 61 + "|",
        *([f"| {nota:<87.87} |"] if nota else []),
        borde,
        "",
    ])


# Lo que imprime ``nvidia-smi`` en una T4 recién abierta, con un driver de la rama 580 (lección 01
# lo explica línea a línea cuando tu máquina no tiene nvidia-smi): el de una T4 de Colab el 31 de
# agosto de 2026 (fuente en ``base.gpu_simulada``). El driver de Colab cambia sin aviso (en
# septiembre de 2025 su T4 admitía CUDA 12.4, googlecolab/colabtools#5578), así que las lecciones
# enseñan a leer la línea propia. Las cifras son las de la T4 simulada: un solo sitio.
_T4 = GPUS_SIMULABLES["T4"].driver
SALIDA_EJEMPLO_T4 = tabla_nvidia_smi(_T4.version, _T4.cuda, GPUS_SIMULABLES["T4"].nombre, _T4.memoria_mib, 0, _T4.bus,
                                     _T4.temperatura_c, _T4.consumo_w, _T4.limite_w)


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


_LIMITE_SALIDA = 2**20
"""Bytes que leemos como mucho de ``nvidia-smi`` (1 MiB): su respuesta normal ocupa unos pocos KB."""

_GRACIA_S = 0.2
"""Lo que esperamos a la salida cuando ``nvidia-smi`` ya terminó pero un proceso hijo suyo la
mantiene abierta: después lo matamos y nos quedamos con lo leído."""


@dataclass
class _Respuesta:
    texto: str | None  # None: no existe, falló o no respondió a tiempo
    truncada: bool = False


def _matar_grupo(proceso: subprocess.Popen) -> None:
    try:  # el grupo entero: un nvidia-smi colgado (o sus hijos) no debe quedar vivo
        os.killpg(proceso.pid, signal.SIGKILL)
    except (OSError, AttributeError):  # AttributeError: Windows no tiene killpg
        try:
            proceso.kill()
        except OSError:
            pass


def _ejecutar(argumentos: list[str], timeout_s: float) -> str | None:
    """Ejecuta un programa sin shell; None si falla, devuelve error o se cuelga."""
    return _leer_salida(argumentos, timeout_s).texto


def _leer_salida(argumentos: list[str], timeout_s: float) -> _Respuesta:
    """Ejecuta un programa sin shell y lee como mucho ``_LIMITE_SALIDA`` bytes de su salida.

    Espera a que el programa termine (o a ``timeout_s``), da ``_GRACIA_S`` a la lectura y
    mata a todo su grupo de procesos: un nieto que deje la salida abierta no nos cuelga.
    """
    try:
        proceso = subprocess.Popen(
            argumentos, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL,
            start_new_session=True,  # su propio grupo: así podemos matarlo con sus hijos
        )
    except (OSError, ValueError):
        return _Respuesta(None)
    trozos: list[bytes] = []
    lleno = threading.Event()

    def leer() -> None:
        leidos = 0
        try:
            while leidos < _LIMITE_SALIDA:
                trozo = proceso.stdout.read1(_LIMITE_SALIDA - leidos)
                if not trozo:
                    return
                trozos.append(trozo)
                leidos += len(trozo)
            lleno.set()
        except (OSError, ValueError):
            pass

    lector = threading.Thread(target=leer, name="leer-nvidia-smi", daemon=True)
    lector.start()
    limite = time.monotonic() + max(timeout_s, 0.01)
    try:
        while not lleno.is_set() and time.monotonic() < limite:
            try:
                proceso.wait(0.02)
                break
            except subprocess.TimeoutExpired:
                pass
        terminado = proceso.poll() is not None
        if terminado:  # terminó: lo que quede en la tubería llega enseguida
            lector.join(_GRACIA_S)
    finally:
        _matar_grupo(proceso)
        lector.join(2)
        if not lector.is_alive():
            proceso.stdout.close()
        try:
            proceso.wait(2)
        except subprocess.TimeoutExpired:
            pass
    texto = b"".join(trozos).decode("utf-8", errors="replace")
    if lleno.is_set():  # demasiado largo: nos quedamos con las líneas completas que caben
        return _Respuesta(texto.rpartition("\n")[0], truncada=True)
    if not terminado or proceso.returncode != 0:
        return _Respuesta(None)
    return _Respuesta(texto)


_ENTERO = re.compile(r"[0-9]+")
_MEMORIA = re.compile(r"([0-9]+)(?: ?MiB)?")  # pedimos «nounits», pero «15360 MiB» también vale
_VERSION_DRIVER = re.compile(r"[0-9]+(\.[0-9]+)+")
_SIN_DATO = re.compile(r"\[?(N/A|Not Supported|Unknown Error|Insufficient Permissions)\]?", re.IGNORECASE)


def _mib(texto: str) -> int | None:
    numero = _MEMORIA.fullmatch(texto)
    return int(numero.group(1)) if numero else None


def _fila(linea: str) -> GPUNvidiaSmi | None:
    partes = [p.strip() for p in linea.split(",")]
    if len(partes) < 6 or not _ENTERO.fullmatch(partes[0]) or not _VERSION_DRIVER.fullmatch(partes[-4]):
        return None
    if not all(_MEMORIA.fullmatch(m) or _SIN_DATO.fullmatch(m) for m in partes[-3:]):
        return None
    # El nombre va entre el índice y los cuatro últimos campos (por si llevara comas).
    return GPUNvidiaSmi(int(partes[0]), ", ".join(partes[1:-4]), *(_mib(m) for m in partes[-3:]))


def _analizar_consulta(texto: str) -> tuple[str, list[GPUNvidiaSmi]] | None:
    """Lee la salida CSV de ``nvidia-smi --query-gpu=... --format=csv,noheader,nounits``.

    Devuelve (driver, GPU) o None si no hay ninguna fila válida. Una fila es válida si
    empieza por un índice (0, 1...), el driver es una versión (580.82.07) y cada memoria es
    un número de MiB o un «[N/A]».
    """
    gpus, driver = [], ""
    for linea in (texto or "").strip().splitlines():
        gpu = _fila(linea)
        if gpu is not None:
            gpus.append(gpu)
            driver = [p.strip() for p in linea.split(",")][-4]
    if not gpus:
        return None
    return driver, gpus


def _analizar_cabecera(texto: str) -> tuple[int, int] | None:
    """La «CUDA Version: 12.4» de la cabecera de ``nvidia-smi`` (None si no aparece)."""
    encontrado = re.search(r"CUDA Version\s*:\s*(\d+)\.(\d+)", texto or "")
    return (int(encontrado.group(1)), int(encontrado.group(2))) if encontrado else None


def consultar_nvidia_smi(timeout_s: float = 5) -> InformeNvidiaSmi | None:
    """Ejecuta ``nvidia-smi`` y devuelve lo que informa, o None. Nunca lanza excepciones. Lección 01.

    None cuando no está instalado, termina con error, tarda más de ``timeout_s``
    segundos en total o responde algo que no se entiende. La versión de CUDA que admite el
    driver sale de la cabecera del ``nvidia-smi`` normal; si un driver nuevo no la imprime,
    se deduce del número de driver.
    """
    return consultar_nvidia_smi_con_problema(timeout_s)[0]


def consultar_nvidia_smi_con_problema(timeout_s: float = 5) -> tuple[InformeNvidiaSmi | None, str]:
    """Como ``consultar_nvidia_smi``, con una frase si la respuesta fue rara. Lección 01.

    La frase (vacía si todo fue normal) dice si ``nvidia-smi`` respondió algo que no se
    entiende (entonces el informe es None: no sacamos conclusiones de ello) o una respuesta
    enorme que se cortó en ``_LIMITE_SALIDA`` bytes.
    """
    try:
        return _consultar(float(timeout_s))
    except Exception:  # un informe sin nvidia-smi es mejor que un curso que no arranca
        return None, ""


def _consultar(timeout_s: float) -> tuple[InformeNvidiaSmi | None, str]:
    programa = shutil.which("nvidia-smi")
    if programa is None:
        return None, ""
    limite = time.monotonic() + timeout_s
    respuesta = _leer_salida([programa, f"--query-gpu={_CAMPOS}", "--format=csv,noheader,nounits"], timeout_s)
    cortada = (f"nvidia-smi respondió más de {_LIMITE_SALIDA // 2**20} MiB; leí solo el primero."
               if respuesta.truncada else "")
    analizado = _analizar_consulta(respuesta.texto) if respuesta.texto else None
    if analizado is None:
        if not (respuesta.texto or "").strip():
            return None, cortada
        muestra = respuesta.texto.strip().splitlines()[0][:80]
        return None, f"nvidia-smi respondió algo que no se entiende ({muestra!r}). {cortada}".strip()
    driver, gpus = analizado
    restante = limite - time.monotonic()
    cabecera = _ejecutar([programa], restante) if restante > 0 else None
    cuda = _analizar_cabecera(cabecera or "")
    de_cabecera = cuda is not None
    if cuda is None:
        cuda = cuda_maxima_del_driver(driver, platform.system())
    return InformeNvidiaSmi(driver=driver, cuda_del_driver=cuda, cuda_de_cabecera=de_cabecera, gpus=gpus), cortada


def _analizar_capacidades(texto: str) -> list[tuple[int, int]]:
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
    return _analizar_capacidades(salida or "")
