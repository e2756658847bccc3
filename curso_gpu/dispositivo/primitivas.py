"""Los dispositivos: elegir CPU, CUDA, MPS o XPU, sincronizarlos y leer su nombre y su memoria. Lección 01.

Es la capa de las primitivas: lo demás del paquete (medir, estimar memoria, entrenar, el
informe del entorno) pregunta aquí por el dispositivo en vez de hablar con torch por su cuenta.
"""

from __future__ import annotations

import os
import platform
import re
import subprocess
import sys
from dataclasses import dataclass

import torch

from ..base import MENU_COLAB, ruedas_cuda
from .nvidia_smi import consultar_capacidades, consultar_nvidia_smi

__all__ = [
    "DispositivoNoDisponible", "InfoGPU", "MemoriaDispositivo", "VARIABLE_ENTORNO",
    "cantidad_gpus", "como_dispositivo", "cuda_disponible", "dispositivo_del_modelo",
    "dispositivos_disponibles", "elegir_dispositivo", "gpus_cuda", "info_gpu", "memoria_dispositivo",
    "memoria_ram", "mps_disponible", "nombre_dispositivo", "sincronizar", "xpu_disponible",
]

VARIABLE_ENTORNO = "CURSO_GPU_DISPOSITIVO"
_OPCIONES_VALIDAS = ("auto", "cpu", "cuda", "cuda:N", "mps", "xpu", "xpu:N")
_PATRON = re.compile(r"^(cpu|cuda|mps|xpu)(?::([0-9]+))?$")  # solo cifras ASCII: «cpu:٠» no


class DispositivoNoDisponible(RuntimeError):
    """Se pidió un dispositivo que esta máquina no tiene (p. ej. "cuda" sin GPU)."""


# ---------------------------------------------------------------------------
# Qué hay disponible
# ---------------------------------------------------------------------------

def cuda_disponible() -> bool:
    """True si PyTorch puede usar una GPU por CUDA (NVIDIA) o ROCm (AMD)."""
    try:
        return bool(torch.cuda.is_available())
    except Exception:  # un driver roto no debe tumbar el curso
        return False


def mps_disponible() -> bool:
    """True si PyTorch puede usar la GPU de un Mac con Apple Silicon (MPS)."""
    mps = getattr(torch.backends, "mps", None)
    try:
        return bool(mps is not None and mps.is_available())
    except Exception:
        return False


def xpu_disponible() -> bool:
    """True si PyTorch puede usar una GPU de Intel (XPU)."""
    xpu = getattr(torch, "xpu", None)
    try:
        return bool(xpu is not None and xpu.is_available())
    except Exception:
        return False


def cantidad_gpus(tipo: str) -> int:
    """Cuántas GPU de ``tipo`` ("cuda" o "xpu") ve PyTorch (0 si ninguna)."""
    modulo = torch.cuda if tipo == "cuda" else getattr(torch, tipo, None)
    try:
        return int(modulo.device_count()) if modulo is not None else 0
    except Exception:
        return 0


def dispositivos_disponibles() -> list[str]:
    """Los dispositivos que puedes pedir en esta máquina, p. ej. ``['cuda:0', 'cpu']``."""
    lista: list[str] = []
    if cuda_disponible():
        lista += [f"cuda:{i}" for i in range(max(cantidad_gpus("cuda"), 1))]
    if mps_disponible():
        lista.append("mps")
    if xpu_disponible():
        lista += [f"xpu:{i}" for i in range(max(cantidad_gpus("xpu"), 1))]
    lista.append("cpu")
    return lista


def _como_conseguir_gpu(tipo: str = "cuda") -> str:
    """Cómo conseguir una GPU, en español, para el mensaje de ``DispositivoNoDisponible``."""
    if tipo == "mps":
        return (
            "'mps' solo existe en un Mac con Apple Silicon (M1 o posterior) y macOS 12.3 o más nuevo. "
            "En otra máquina usa 'cuda' (NVIDIA o AMD) o elegir_dispositivo('auto')."
        )
    if tipo == "xpu":
        return (
            "'xpu' es una GPU de Intel con una versión de PyTorch para XPU. "
            "En otra máquina usa 'cuda' (NVIDIA o AMD) o elegir_dispositivo('auto')."
        )
    lineas = ["Para usar una GPU:", "- En Google Colab: menú " + MENU_COLAB + "."]
    if torch.version.cuda or getattr(torch.version, "hip", None):
        lineas.append(
            f"- En tu computadora: tu PyTorch ya trae CUDA {torch.version.cuda or ''}".rstrip()
            + "; comprueba con nvidia-smi que la GPU y su driver están instalados."
        )
    else:
        try:
            comando = ruedas_cuda.comando_instalacion(_cuda_del_driver(), consultar_capacidades(timeout_s=3))
        except ValueError as error:  # ninguna rueda sirve a ese driver y esa GPU
            comando = str(error)
        lineas.append(
            f"- En tu computadora con una GPU NVIDIA: tu PyTorch ({torch.__version__}) es solo para CPU; "
            "reinstálalo con CUDA:\n    " + comando
        )
    lineas.append("Sin GPU todo el curso funciona igual en CPU: usa elegir_dispositivo('auto').")
    return "\n".join(lineas)


def _cuda_del_driver() -> tuple[int, int] | None:
    informe = consultar_nvidia_smi(timeout_s=3)
    return informe.cuda_del_driver if informe else None


# ---------------------------------------------------------------------------
# Elegir
# ---------------------------------------------------------------------------

def _normalizar(preferencia, origen: str) -> str:
    if isinstance(preferencia, torch.device):
        preferencia = str(preferencia)
    if not isinstance(preferencia, str) or not preferencia.strip():
        raise ValueError(
            f"{origen} no válido: {preferencia!r}. "
            f"Usa uno de: {', '.join(_OPCIONES_VALIDAS)} (N es el número de GPU, p. ej. 'cuda:0')."
        )
    texto = preferencia.strip().lower()
    if texto != "auto" and not _PATRON.match(texto):
        pista = " Para la GPU escribe 'cuda' (NVIDIA/AMD) o 'mps' (Mac)." if texto == "gpu" else ""
        if not texto.isascii():
            pista = " Escribe el nombre y el número con letras y cifras normales (0-9), p. ej. 'cuda:0'."
        raise ValueError(
            f"{origen} no válido: {preferencia!r}. "
            f"Usa uno de: {', '.join(_OPCIONES_VALIDAS)}.{pista}"
        )
    return texto


def _automatico() -> torch.device:
    if cuda_disponible():
        return torch.device("cuda")
    if mps_disponible():
        return torch.device("mps")
    if xpu_disponible():
        return torch.device("xpu")
    return torch.device("cpu")


def elegir_dispositivo(preferencia: str | torch.device = "auto") -> torch.device:
    """Devuelve el ``torch.device`` en el que trabajar. Lección 01.

    - ``"auto"`` (por defecto): la primera que haya de cuda (NVIDIA o ROCm), mps (Mac),
      xpu (Intel) y, si no hay ninguna, cpu. La variable de entorno
      ``CURSO_GPU_DISPOSITIVO`` (p. ej. ``cpu``) manda sobre "auto".
    - ``"cpu"``, ``"cuda"``, ``"cuda:N"``, ``"mps"``, ``"xpu"``: ese dispositivo; si no
      existe aquí, lanza ``DispositivoNoDisponible`` con lo que sí hay.

    Es la versión completa de ``torch.device("cuda" if torch.cuda.is_available() else "cpu")``.
    """
    texto = _normalizar(preferencia, "Dispositivo")
    origen = ""
    if texto == "auto":
        variable = os.environ.get(VARIABLE_ENTORNO, "").strip()
        if not variable:
            return _automatico()
        texto = _normalizar(variable, f"Valor de la variable {VARIABLE_ENTORNO}")
        if texto == "auto":
            return _automatico()
        origen = f" (lo pide la variable de entorno {VARIABLE_ENTORNO})"

    tipo, _, numero = texto.partition(":")
    hay = {"cpu": True, "cuda": cuda_disponible, "mps": mps_disponible, "xpu": xpu_disponible}[tipo]
    if tipo != "cpu" and not hay():
        raise DispositivoNoDisponible(
            f"Pediste el dispositivo '{texto}'{origen}, pero no está disponible en esta máquina. "
            f"Disponibles: {', '.join(dispositivos_disponibles())}.\n" + _como_conseguir_gpu(tipo)
        )
    if numero and tipo in ("cuda", "xpu"):
        cantidad = max(cantidad_gpus(tipo), 1)  # disponible implica al menos una
        if int(numero) >= cantidad:
            raise DispositivoNoDisponible(
                f"Pediste '{texto}'{origen}, pero solo hay {cantidad} GPU de tipo {tipo} "
                f"(de {tipo}:0 a {tipo}:{cantidad - 1}). "
                f"Disponibles: {', '.join(dispositivos_disponibles())}."
            )
    if numero and tipo in ("cpu", "mps") and int(numero) != 0:
        raise DispositivoNoDisponible(
            f"Pediste '{texto}'{origen}, pero solo existe '{tipo}' (sin número). "
            f"Disponibles: {', '.join(dispositivos_disponibles())}."
        )
    return torch.device(texto)


_TIPOS_CONOCIDOS = ("cpu", "cuda", "mps", "xpu")


def como_dispositivo(dispositivo, *, nombre: str = "dispositivo", auto: bool = True,
                     meta: bool = False, aqui: bool = True) -> torch.device:
    """El ``torch.device`` de ``dispositivo``, comprobado: la única puerta a un dispositivo del paquete. Lección 01.

    - ``None`` o ``"auto"``: el de ``elegir_dispositivo()`` (con ``auto=False``, un error: quien
      llama necesita un dispositivo ya elegido).
    - Un texto o un ``torch.device``: ``elegir_dispositivo`` comprueba que esta máquina lo tiene;
      ``torch.device("cuda")`` sin GPU da ``DispositivoNoDisponible`` en español aquí, no
      «Torch not compiled with CUDA enabled» tres llamadas más abajo.
    - ``"meta"`` (tensores sin datos, para estimar) solo con ``meta=True``.
    - Cualquier otra cosa (``42``, ``"tpu"``): ``ValueError`` que nombra el dato (``nombre``).
    - ``aqui=False``: un cálculo para otra máquina (``lote_maximo(..., "cuda", memoria_bytes=...)``
      en un portátil): se comprueba que el nombre es válido, no que esta máquina lo tenga.
    """
    if dispositivo is None or (isinstance(dispositivo, str) and dispositivo.strip().lower() == "auto"):
        if auto:
            return elegir_dispositivo("auto")
        raise ValueError(f"{nombre} no puede ser {dispositivo!r} aquí: pasa un dispositivo ya elegido, p. ej. "
                         "torch.device('cpu') o elegir_dispositivo().")
    if isinstance(dispositivo, torch.device):
        tipo = dispositivo.type
        texto = str(dispositivo)
    elif isinstance(dispositivo, str):
        texto = dispositivo.strip().lower()
        tipo = texto.partition(":")[0]
    else:
        raise ValueError(f"{nombre} no válido: {dispositivo!r:.80} (es de tipo {type(dispositivo).__name__}). "
                         "Pasa un torch.device o un texto como 'cpu', 'cuda' o 'mps' (o usa elegir_dispositivo()).")
    if tipo == "meta":
        if meta and texto in ("meta", "meta:0"):
            return torch.device("meta")
        raise ValueError(f"{nombre} no puede ser 'meta' aquí: en 'meta' los tensores no tienen datos (sirve para "
                         "estimar memoria, no para calcular ni entrenar). Usa 'cpu', 'cuda' o elegir_dispositivo().")
    if isinstance(dispositivo, torch.device) and tipo not in _TIPOS_CONOCIDOS:
        raise DispositivoNoDisponible(
            f"{nombre} '{texto}': el curso no sabe usar dispositivos de tipo '{tipo}'. "
            f"Disponibles: {', '.join(dispositivos_disponibles())}.")
    if not aqui:
        return torch.device(_normalizar(texto, "Dispositivo"))
    return elegir_dispositivo(dispositivo if isinstance(dispositivo, str) else texto)


def sincronizar(dispositivo) -> None:
    """Espera a que el dispositivo termine todo el trabajo encargado. Lección 03.

    cuda: ``torch.cuda.synchronize``; mps: ``torch.mps.synchronize`` (el temporizador de
    PyTorch no lo hace); xpu: ``torch.xpu.synchronize``. En cpu no hace nada: las
    operaciones de la CPU ya terminan antes de volver.
    """
    # La CPU ya dada como torch.device vuelve enseguida: quien cronometra llama a esto dentro de la
    # medida, y comprobar el texto con como_dispositivo costaría unos 3 µs en cada muestra.
    if isinstance(dispositivo, torch.device) and dispositivo.type == "cpu":
        return
    d = como_dispositivo(dispositivo)
    if d.type == "cuda":
        torch.cuda.synchronize(d)
    elif d.type == "mps":
        torch.mps.synchronize()
    elif d.type == "xpu":
        torch.xpu.synchronize(d)


# ---------------------------------------------------------------------------
# Qué GPU es: nombre, memoria y capacidad de cómputo
# ---------------------------------------------------------------------------

@dataclass
class InfoGPU:
    """Una GPU tal como la ve PyTorch."""

    indice: int
    nombre: str
    memoria_total_bytes: int
    capacidad_computo: tuple[int, int] | None = None  # (7, 5) en una T4


def info_gpu(indice: int = 0) -> InfoGPU | None:
    """Nombre, memoria y capacidad de cómputo de la GPU CUDA ``indice``, o None si no hay. Lección 01."""
    if not cuda_disponible():
        return None
    try:
        p = torch.cuda.get_device_properties(indice)
    except Exception:  # un driver roto no debe tumbar el curso
        return None
    mayor, menor = getattr(p, "major", None), getattr(p, "minor", None)
    capacidad = (int(mayor), int(menor)) if mayor is not None and menor is not None else None
    nombre = getattr(p, "name", None) or torch.cuda.get_device_name(indice)
    return InfoGPU(indice, nombre, int(p.total_memory), capacidad)


def gpus_cuda() -> list[InfoGPU]:
    """Todas las GPU CUDA (o ROCm) que ve PyTorch. Lección 01."""
    if not cuda_disponible():
        return []
    return [g for g in (info_gpu(i) for i in range(cantidad_gpus("cuda"))) if g is not None]


def nombre_dispositivo(dispositivo) -> str:
    """El nombre del chip: «Tesla T4», el modelo de CPU, «Apple M2»... Lección 03."""
    d = como_dispositivo(dispositivo)
    try:
        if d.type == "cuda":
            return torch.cuda.get_device_name(d)
        if d.type == "xpu":
            return torch.xpu.get_device_name(d)
        if d.type == "mps" and sys.platform == "darwin":
            salida = subprocess.run(["sysctl", "-n", "machdep.cpu.brand_string"], capture_output=True,
                                    text=True, timeout=3)
            return salida.stdout.strip() or "Apple (MPS)"
    except Exception:
        return d.type
    if d.type == "cpu":
        try:
            with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as archivo:
                for linea in archivo:
                    if linea.startswith("model name"):
                        return linea.split(":", 1)[1].strip()
        except OSError:
            pass
        return platform.processor() or "CPU"
    return d.type


# ---------------------------------------------------------------------------
# Memoria total y libre: una fórmula por tipo de dispositivo
# ---------------------------------------------------------------------------

@dataclass
class MemoriaDispositivo:
    """La memoria total y libre de un dispositivo, y de dónde sale el dato. Lección 04."""

    dispositivo: str
    total_bytes: int
    libre_bytes: int | None
    fuente: str
    nombre: str = ""

    @property
    def total_gb(self) -> float:
        return self.total_bytes / 10**9

    @property
    def libre_gb(self) -> float | None:
        return None if self.libre_bytes is None else self.libre_bytes / 10**9

    def __str__(self) -> str:
        quien = f"{self.dispositivo} ({self.nombre})" if self.nombre else self.dispositivo
        libre = "" if self.libre_bytes is None else f", {self.libre_gb:.1f} GB libres"
        return (f"{quien}: {self.total_gb:.1f} GB en total ({self.total_bytes / 2**30:.1f} GiB){libre}; "
                f"dato de {self.fuente}")


def memoria_ram() -> MemoriaDispositivo | None:
    """La RAM del equipo (total y disponible), de ``psutil.virtual_memory()``. Lección 04.

    psutil da lo mismo en Linux, macOS y Windows («available»: lo que se puede reservar sin
    mandar nada a disco; en Linux, el MemAvailable de /proc/meminfo). Si psutil no puede leerla,
    ``os.sysconf`` (el total; lo libre solo en Linux).
    """
    try:
        import psutil

        memoria = psutil.virtual_memory()
        if memoria.total > 0:
            return MemoriaDispositivo("cpu", int(memoria.total), int(memoria.available), "psutil.virtual_memory",
                                      "RAM del equipo")
    except (ImportError, OSError, RuntimeError, AttributeError):  # sin psutil, o sin /proc que leer
        pass
    try:
        pagina, paginas = os.sysconf("SC_PAGE_SIZE"), os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        return None
    if pagina <= 0 or paginas <= 0:  # sysconf devuelve -1 si no lo sabe
        return None
    try:
        libres = os.sysconf("SC_AVPHYS_PAGES")  # no existe en macOS
    except (AttributeError, ValueError, OSError, KeyError):
        libres = -1
    libre = int(pagina * libres) if libres > 0 else None
    return MemoriaDispositivo("cpu", int(pagina * paginas), libre, "os.sysconf", "RAM del equipo")


def memoria_dispositivo(dispositivo) -> MemoriaDispositivo | None:
    """Memoria total y libre de ``dispositivo`` (en cpu, la RAM), o None si no se sabe. Lección 04.

    - CUDA (NVIDIA o ROCm): ``torch.cuda.mem_get_info`` (lo mismo que ve nvidia-smi).
    - MPS (Mac): ``torch.mps.recommended_max_memory()``, lo que Metal deja usar a la GPU de
      la memoria unificada; libre = eso menos ``torch.mps.driver_allocated_memory()``.
    - XPU (Intel): ``torch.xpu.mem_get_info``.
    - CPU: la RAM del equipo (``memoria_ram()``).
    """
    d = como_dispositivo(dispositivo)
    if d.type == "cpu":
        return memoria_ram()
    if d.type == "cuda":
        libre, total = torch.cuda.mem_get_info(d)
        try:
            nombre = torch.cuda.get_device_name(d)
        except Exception:
            nombre = ""
        return MemoriaDispositivo(str(d), int(total), int(libre), "torch.cuda.mem_get_info", nombre)
    if d.type == "mps":
        maximo = getattr(torch.mps, "recommended_max_memory", None)
        if maximo is None:  # torch antiguo: la memoria unificada es la RAM
            ram = memoria_ram()
            if ram is None:
                return None
            return MemoriaDispositivo("mps", ram.total_bytes, ram.libre_bytes,
                                      f"memoria unificada ({ram.fuente}); tu PyTorch no tiene "
                                      "torch.mps.recommended_max_memory", "GPU de Apple")
        total = int(maximo())
        usada = getattr(torch.mps, "driver_allocated_memory", None)
        libre = max(total - int(usada()), 0) if usada is not None else None
        return MemoriaDispositivo("mps", total, libre, "torch.mps.recommended_max_memory", "GPU de Apple")
    if d.type == "xpu" and hasattr(torch.xpu, "mem_get_info"):
        libre, total = torch.xpu.mem_get_info(d)
        return MemoriaDispositivo(str(d), int(total), int(libre), "torch.xpu.mem_get_info")
    return None


def dispositivo_del_modelo(modelo: torch.nn.Module) -> torch.device:
    """El dispositivo donde están los parámetros del modelo (cpu si no tiene). Lección 05."""
    for p in modelo.parameters():
        return p.device
    for b in modelo.buffers():
        return b.device
    return torch.device("cpu")
