"""La GPU que simula el curso: los datos de una Tesla T4 tal como los da PyTorch en Colab.

Los usa ``curso_gpu.dispositivo.simulacion`` (``CURSO_GPU_SIMULAR=T4``) para que ``torch.cuda``
responda como una T4 en una máquina sin GPU. Solo son los datos que un alumno compara con su
pantalla; ningún tiempo sale de aquí.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["GPUS_SIMULABLES", "PerfilGPU"]


@dataclass(frozen=True)
class PerfilGPU:
    """Lo que ``torch.cuda`` dice de una GPU: nombre, capacidad, multiprocesadores y memoria."""

    clave: str
    nombre: str
    capacidad_computo: tuple[int, int]
    multiprocesadores: int
    memoria_total_bytes: int
    cache_l2_bytes: int
    fuente: str


# Tesla T4 en Google Colab. Fuentes (leídas el 7-12-2026):
# - ``torch.cuda.get_device_properties(0)`` en Colab (enero de 2026, driver 550.54.15): «_CudaDevice
#   Properties(name='Tesla T4', major=7, minor=5, total_memory=15095MB, multi_processor_count=40, …,
#   L2_cache_size=4MB)». PyTorch da los MB como MiB truncados: 15095 MiB.
# - deviceQuery en Colab (README de sylvia-ymlin/cuda-kernels-from-scratch): «Global Memory 15095 MBytes»,
#   «Multiprocessors 40», «CUDA Capability 7.5», «L2 Cache Size 4194304 bytes».
# La ficha dice 16 GB; con ECC activado (Colab), el driver reserva una parte (ver ``catalogo``).
GPUS_SIMULABLES: dict[str, PerfilGPU] = {
    "T4": PerfilGPU(
        clave="T4",
        nombre="Tesla T4",
        capacidad_computo=(7, 5),
        multiprocesadores=40,
        memoria_total_bytes=15095 * 2**20,
        cache_l2_bytes=4 * 2**20,
        fuente="torch.cuda.get_device_properties(0) y deviceQuery en una T4 de Google Colab",
    ),
}
"""Las GPU que se pueden simular, por la clave de ``CURSO_GPU_SIMULAR``."""
