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
    torch_colab: str = ""  # el ``torch.__version__`` que traía Colab con ese driver (lo último visto, con fecha en la fuente)


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
# El PyTorch de Colab con esa T4 (la salida de ejemplo de la lección 01), lo más nuevo que hemos visto
# (leído el 7-12-2026): 2.11.0+cu128, así que ``torch.version.cuda`` da «12.8». Salidas de una T4 de
# Colab con ``!nvidia-smi`` y ``torch.__version__`` en la misma página, en yoon-gu/neuqes-101
# (23_ko_bert_classify, ejecutada el 31 de agosto de 2026; otras del 17 y el 22 de junio de 2026 dan lo
# mismo): «PyTorch: 2.11.0+cu128», «GPU: Tesla T4». Antes, en enero de 2026, Colab traía 2.9.0+cu126
# con el driver 550. Lo que Colab trae después no lo sabemos: PyTorch retiró las ruedas cu128 desde
# 2.12 y las da en CUDA 13.0 (googlecolab/colabtools #5982, 18-6-2026: «we have removed cu 12.8
# builds»), y los avisos de 2.11 a 2.14 (#5925, #5982, #6053, #6093, este del 3-9-2026) siguen
# abiertos. Por eso la lección 01 dice qué se vio y cuándo, e imprime lo que da la máquina del alumno.
# La simulación no cambia ``torch.version.cuda``: da la del torch instalado.
GPUS_SIMULABLES: dict[str, PerfilGPU] = {
    "T4": PerfilGPU(
        clave="T4",
        nombre="Tesla T4",
        capacidad_computo=(7, 5),
        multiprocesadores=40,
        memoria_total_bytes=15095 * 2**20,
        cache_l2_bytes=4 * 2**20,
        fuente="torch.cuda.get_device_properties(0) y deviceQuery en una T4 de Google Colab",
        # ``nvidia-smi`` en una T4 de Colab (leído el 7-12-2026), lo más nuevo que hemos visto: la salida
        # del 31 de agosto de 2026 en yoon-gu/neuqes-101 (23_ko_bert_classify, «Colab T4 기준»):
        # «NVIDIA-SMI 580.82.07  Driver Version: 580.82.07  CUDA Version: 13.0», «Tesla T4  Off |
        # 00000000:00:04.0 Off», «N/A 37C P8 10W / 70W | 3MiB / 15360MiB»; las del 17 y el 22 de junio
        # de 2026 en el mismo libro, y otra T4 de Colab del 17 de junio de 2026 («0, Tesla T4, 15360 MiB,
        # 580.82.07»), dan el mismo driver. En enero de 2026 era 550.54.15 / CUDA 12.4. Formato de la
        # rama 580: la segunda línea empieza por «+---» y la columna PID es más ancha (``nvidia_smi``).
        # memory.free = total − reservada − usada (``nvidia-smi -q``: «Total 15360 MiB,
        # Reserved 393 MiB, Used 31 MiB, Free 14935 MiB» en otra T4): la reservada del driver es lo
        # que CUDA no da a PyTorch, 15360 − 15095 = 265 MiB, así que en reposo quedan 15095 MiB libres.
        driver=DriverSimulado(
            version="580.82.07", cuda="13.0", memoria_mib=15360, bus="00000000:00:04.0",
            temperatura_c=37, consumo_w=10, limite_w=70,
            fuente="nvidia-smi en una T4 de Google Colab (31 de agosto de 2026)",
            torch_colab="2.11.0+cu128",
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
