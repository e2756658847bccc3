"""La GPU que simula el curso: los datos de una Tesla T4 tal como los da PyTorch en Colab.

Los usa ``curso_gpu.dispositivo.simulacion`` (``CURSO_GPU_SIMULAR=T4``) para que ``torch.cuda``
responda como una T4 en una máquina sin GPU. Solo son los datos que un alumno compara con su
pantalla; ningún tiempo sale de aquí.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["GPUS_SIMULABLES", "DriverSimulado", "PerfilGPU"]


@dataclass(frozen=True)
class DriverSimulado:
    """Lo que dice ``nvidia-smi`` de la GPU simulada: driver, CUDA que admite, memoria en MiB y la fila."""

    version: str
    cuda: str  # la «CUDA Version» de la cabecera
    memoria_mib: int  # memory.total: lo que ``nvidia-smi`` cuenta, con el ECC ya descontado
    bus: str
    temperatura_c: int
    consumo_w: int
    limite_w: int
    fuente: str


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
    driver: DriverSimulado | None = None  # el ``nvidia-smi`` simulado (None: no hay)
    contexto_cuda_bytes: int = 0  # lo que el proceso ocupa fuera de PyTorch (el contexto de CUDA)


# Tesla T4 en Google Colab. Fuentes (leídas el 7-12-2026):
# - ``torch.cuda.get_device_properties(0)`` en Colab (enero de 2026, driver 550.54.15): «_CudaDevice
#   Properties(name='Tesla T4', major=7, minor=5, total_memory=15095MB, multi_processor_count=40, …,
#   L2_cache_size=4MB)». PyTorch da los MB como MiB truncados: 15095 MiB.
# - deviceQuery en Colab (README de sylvia-ymlin/cuda-kernels-from-scratch): «Global Memory 15095 MBytes»,
#   «Multiprocessors 40», «CUDA Capability 7.5», «L2 Cache Size 4194304 bytes».
# La ficha dice 16 GB; con ECC activado (Colab), el driver reserva una parte (ver ``catalogo``).
# El PyTorch de Colab con esa T4 (la salida de ejemplo de la lección 01): 2.9.0+cu126, así que
# ``torch.version.cuda`` da «12.6» (leído el 7-12-2026: la tabla de entorno de una tesis en Colab con
# «Tesla T4 · PyTorch 2.9.0+cu126 · Python 3.12.12», y un ``pip freeze`` de Colab con
# «google-colab @ file:///colabtools/...» y «torch==2.9.0+cu126»). En googlecolab/colabtools #5661
# (enero de 2026) PyTorch pregunta por 2.9; de 2.11 a 2.14 (#5925, #5982, #6053, #6093) el paso a
# CUDA 13 sigue abierto. La simulación no cambia ``torch.version.cuda``: da la del torch instalado.
GPUS_SIMULABLES: dict[str, PerfilGPU] = {
    "T4": PerfilGPU(
        clave="T4",
        nombre="Tesla T4",
        capacidad_computo=(7, 5),
        multiprocesadores=40,
        memoria_total_bytes=15095 * 2**20,
        cache_l2_bytes=4 * 2**20,
        fuente="torch.cuda.get_device_properties(0) y deviceQuery en una T4 de Google Colab",
        # ``nvidia-smi`` en una T4 de Colab (leído el 7-12-2026): la salida del 1 de enero de 2026 en el
        # notebook de vibeswithkk/ZENITH (Result_Notebook/Result_zenith_comprehensive_verification.md):
        # «Driver Version: 550.54.15  CUDA Version: 12.4», «Tesla T4  Off | 00000000:00:04.0 Off»,
        # «N/A 41C P8 10W / 70W | 0MiB / 15360MiB»; otra del 30 de enero de 2026 (/content, 38C,
        # 9W / 70W) da las mismas cifras, y «name, driver_version, compute_cap: Tesla T4, 550.54.15,
        # 7.5» en Colab. memory.free = total − reservada − usada (``nvidia-smi -q``: «Total 15360 MiB,
        # Reserved 393 MiB, Used 31 MiB, Free 14935 MiB» en otra T4): la reservada del driver es lo
        # que CUDA no da a PyTorch, 15360 − 15095 = 265 MiB, así que en reposo quedan 15095 MiB libres.
        driver=DriverSimulado(
            version="550.54.15", cuda="12.4", memoria_mib=15360, bus="00000000:00:04.0",
            temperatura_c=41, consumo_w=10, limite_w=70,
            fuente="nvidia-smi en una T4 de Google Colab (enero de 2026)",
        ),
        # El contexto de CUDA (lo que el proceso ocupa en la GPU fuera de los tensores de PyTorch),
        # leído el 7-12-2026 de mensajes de «CUDA out of memory» en T4 de Colab, como «en uso» menos lo
        # reservado por PyTorch (asignado + «reserved by PyTorch but unallocated»):
        # - NUS-HPC-AI-Lab/VideoSys#192 (3-9-2024): «Process 16497 has 14.74 GiB memory in use. Of the
        #   allocated memory 14.19 GiB is allocated by PyTorch, and 456.84 MiB is reserved» → unos 106 MiB;
        # - hpcaitech/Open-Sora#697 (9-9-2024): 14.67 GiB en uso, 14.55 GiB + 23.38 MiB → unos 99 MiB;
        # - tsugumi-sys/SA-ConvLSTM-Pytorch#22 (1-1-2024): 13.94 GiB, 13.20 GiB + 621.20 MiB → unos 136 MiB.
        # Con la carga perezosa de CUDA (CUDA_MODULE_LOADING=LAZY, desde CUDA 11.7) crece con los kernels que
        # se usan; las cifras van redondeadas a 0.01 GiB (±5 MiB). Se toma la del informe que cita el curso.
        contexto_cuda_bytes=106 * 2**20,
    ),
}
"""Las GPU que se pueden simular, por la clave de ``CURSO_GPU_SIMULAR``."""
