"""El dispositivo: elegir CPU, CUDA, MPS o XPU y conocer la máquina. Lección 01.

- ``primitivas``: ``elegir_dispositivo``, ``como_dispositivo``, ``sincronizar``, nombre y memoria de la GPU.
- ``nvidia_smi``: preguntar a ``nvidia-smi`` por el driver y las GPU.
- ``entorno``: ``describir_entorno()``, sus avisos en español y ``en_colab()``.
"""

from ..base import cargar_perezoso

# Cada nombre público y el módulo donde vive. Se importa al usarlo por primera vez.
CASAS = {
    "InformeEntorno": "entorno",
    "avisos_del_entorno": "entorno",
    "describir_entorno": "entorno",
    "en_colab": "entorno",
    "CAMPOS": "nvidia_smi",
    "GPUNvidiaSmi": "nvidia_smi",
    "GRACIA_S": "nvidia_smi",
    "InformeNvidiaSmi": "nvidia_smi",
    "LIMITE_SALIDA": "nvidia_smi",
    "SALIDA_EJEMPLO_T4": "nvidia_smi",
    "analizar_cabecera": "nvidia_smi",
    "analizar_capacidades": "nvidia_smi",
    "analizar_consulta": "nvidia_smi",
    "consultar_capacidades": "nvidia_smi",
    "consultar_nvidia_smi": "nvidia_smi",
    "consultar_nvidia_smi_con_problema": "nvidia_smi",
    "DispositivoNoDisponible": "primitivas",
    "InfoGPU": "primitivas",
    "MENU_COLAB": "primitivas",
    "MemoriaDispositivo": "primitivas",
    "OPCIONES_VALIDAS": "primitivas",
    "RUTA_MEMINFO": "primitivas",
    "VARIABLE_ENTORNO": "primitivas",
    "cantidad_gpus": "primitivas",
    "como_conseguir_gpu": "primitivas",
    "como_dispositivo": "primitivas",
    "cuda_disponible": "primitivas",
    "dispositivo_del_modelo": "primitivas",
    "dispositivos_disponibles": "primitivas",
    "elegir_dispositivo": "primitivas",
    "gpus_cuda": "primitivas",
    "info_gpu": "primitivas",
    "memoria_dispositivo": "primitivas",
    "memoria_ram": "primitivas",
    "mps_disponible": "primitivas",
    "nombre_dispositivo": "primitivas",
    "sincronizar": "primitivas",
    "xpu_disponible": "primitivas",
}

__all__ = sorted(CASAS)


def __getattr__(nombre: str):
    return cargar_perezoso(__name__, CASAS, nombre, globals())


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(CASAS))
