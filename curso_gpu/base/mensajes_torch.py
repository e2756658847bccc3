"""Los mensajes de error reales de PyTorch que enseñan las lecciones 01, 05, 07 y 09.

Es el único sitio del curso con estos textos: las lecciones los imprimen desde aquí y
``benchmarks/validar_en_gpu.py`` comprueba en una GPU de verdad que PyTorch dice lo mismo.

Fuentes (leídas el 3 de diciembre de 2026 en torch 2.13.0):

- Las cadenas C++ de ``torch/lib/libtorch_cpu.so`` (``strings libtorch_cpu.so``):
  «Expected all tensors to be on the same device, but got », «, different from other
  tensors on », « (when checking argument in method » (``aten/src/ATen/core/adaption.cpp``)
  y «Input type (», «) and weight type (», «) should be the same or input should be a
  MKLDNN tensor and weight is a dense tensor» (``aten/src/ATen/native/Convolution.cpp``).
- ``torch/lib/libtorch_python.so`` traduce los nombres de tipo antes de que los veas en
  Python (``torch::processErrorMsg``): «CPUFloatType» → «torch.FloatTensor» y
  «CUDAFloatType» → «torch.cuda.FloatTensor».
- «Found no NVIDIA driver on your system…»: ``c10/cuda/CUDAFunctions.cpp`` de PyTorch (está
  en ``libc10_cuda.so``, que solo traen las versiones con CUDA). Es lo que lanza
  ``torch.zeros(3, device="cuda")`` con un PyTorch con CUDA en una máquina sin driver, como
  Colab con un entorno de ejecución sin GPU.
"""

from __future__ import annotations

__all__ = [
    "MENSAJE_OOM_CPU", "MENSAJE_OOM_CUDA", "PROCESO_EN_CONTENEDOR", "PROCESO_PROPIO", "MEZCLA_CONVOLUCION", "MEZCLA_CONVOLUCION_MODELO_EN_CPU",
    "MEZCLA_ARGUMENTO", "MEZCLA_DISPOSITIVOS", "MEZCLA_INDICES", "MEZCLA_LINEAL", "MEZCLA_SUMA", "MEZCLA_TIPOS",
    "EVENTO_SIN_TERMINAR", "NUMPY_EN_GPU", "SINCRONIZACION", "PILA_DE_FORMAS_DISTINTAS", "SIN_CUDA_COMPILADA", "SIN_DRIVER", "SIN_RUNTIME_CUDA",
    "UNSCALE_FP16", "coincide",
    "mensaje_sin_memoria",
]

# nn.Linear en cuda:0 con una entrada en la CPU: addmm comprueba los dispositivos.
MEZCLA_LINEAL = (
    "Expected all tensors to be on the same device, but got mat1 is on cpu, different from "
    "other tensors on cuda:0 (when checking argument in method wrapper_CUDA_addmm)"
)

# nn.Conv2d en cuda:0 con una entrada en la CPU (lección 05). Lo que sigue a «should be the
# same» depende del camino de la convolución; la comprobación compara este comienzo.
MEZCLA_CONVOLUCION = "Input type (torch.FloatTensor) and weight type (torch.cuda.FloatTensor) should be the same"

# El mismo error al revés: la CNN se quedó en la CPU y los datos están en cuda:0.
MEZCLA_CONVOLUCION_MODELO_EN_CPU = (
    "Input type (torch.cuda.FloatTensor) and weight type (torch.FloatTensor) should be the same"
)

# Una operación elemento a elemento (a + b) con un tensor en la CPU y otro en cuda:0
# (``aten/src/ATen/TensorIterator.cpp``: «…but found at least two devices, »).
MEZCLA_SUMA = "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!"

# Las plantillas de esos textos, para la T4 simulada (``dispositivo.maquina_simulada.reglas``), que
# los compone con los tensores de cada operación. Mismas fuentes:
# - TensorIterator (operaciones elemento a elemento): «…but found at least two devices, » y « and »;
#   el mismo texto da ``FakeTensorMode`` de PyTorch (``_find_common_device`` en
#   torch/_subclasses/fake_tensor.py: ``FakeTensorDeviceMismatchError``), comprobado en torch 2.13.0.
MEZCLA_DISPOSITIVOS = "Expected all tensors to be on the same device, but found at least two devices, {comun} and {otro}!"
# - adaption.cpp (``check_and_update_common_device``), en las demás: el primer argumento (en el orden
#   del esquema de la operación) en otro dispositivo. ``wrapper_CUDA_{metodo}`` es el nombre que da el
#   generador de código de PyTorch a la función de CUDA de esa operación (``addmm`` → ``wrapper_CUDA_addmm``,
#   ``MEZCLA_LINEAL``).
MEZCLA_ARGUMENTO = (
    "Expected all tensors to be on the same device, but got {argumento} is on {dispositivo}, different from "
    "other tensors on {comun} (when checking argument in method wrapper_CUDA_{metodo})"
)
# - Convolution.cpp (``check_input_same_type_as_parameters``): «Input type (», «) and weight type (»,
#   «) should be the same». Los tipos, como los escribe Python: torch.FloatTensor, torch.cuda.FloatTensor.
MEZCLA_TIPOS = "Input type ({entrada}) and weight type ({peso}) should be the same"
# - Indexar un tensor de la CPU con índices de la GPU (``aten/src/ATen/native/TensorAdvancedIndexing.cpp``):
#   «indices should be either on », el dispositivo de la CPU, « or on the same device as the indexed tensor (».
#   CUDA sí acepta índices de la CPU para un tensor de la GPU.
MEZCLA_INDICES = "indices should be either on cpu or on the same device as the indexed tensor ({dispositivo})"

# ``.numpy()`` de un tensor de la GPU (``torch/csrc/utils/tensor_numpy.cpp``, en libtorch_python.so de
# torch 2.13.0: «can't convert », « device type tensor to numpy. Use Tensor.cpu() to », «copy the tensor
# to host memory first.»). Es un ``TypeError``.
NUMPY_EN_GPU = "can't convert {dispositivo} device type tensor to numpy. Use Tensor.cpu() to copy the tensor to host memory first."

# ``torch.cuda.Event.elapsed_time`` antes de que termine el evento final: ``cudaEventElapsedTime`` da
# ``cudaErrorNotReady``, que PyTorch lanza como «CUDA error: device not ready» (pytorch/pytorch#85796,
# y el tutorial de FSDP2 de pytorch/tutorials#3166, que añadió ``end.synchronize()`` por ese error).
EVENTO_SIN_TERMINAR = "CUDA error: device not ready"

# ``torch.cuda.set_sync_debug_mode("warn" | "error")``: lo que avisa (``UserWarning``) o lanza
# (``RuntimeError``) cada operación que hace esperar a la CPU por la GPU. ``warn_or_error_on_sync`` de
# c10/cuda/CUDAFunctions.cpp (en libc10_cuda.so, que solo traen las versiones con CUDA); lo llaman
# ``memcpy_and_sync`` (copias sin non_blocking, ``.item()``, ``.cpu()``) y ``stream_synchronize``, no
# ``torch.cuda.synchronize()`` ni ``Event.synchronize()``.
SINCRONIZACION = "called a synchronizing CUDA operation"

# Un PyTorch con CUDA en una máquina sin driver de NVIDIA (Colab en un entorno sin GPU).
SIN_DRIVER = (
    "Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and "
    "installed a driver from http://www.nvidia.com/Download/index.aspx"
)

# Un PyTorch solo para CPU al que le pides CUDA (torch/cuda/__init__.py).
SIN_CUDA_COMPILADA = "Torch not compiled with CUDA enabled"

# Un PyTorch con CUDA sin GPU, al importar torch.utils.cpp_extension (lo hace torch.compile):
# ``logger.warning("No CUDA runtime is found, using CUDA_HOME='%s'", cuda_home)`` en
# ``_find_cuda_home`` de torch/utils/cpp_extension.py (leído en torch 2.13.0 y 2.14.1). Lo que
# sigue al «=» es la carpeta de CUDA que encuentre. Lo descarta ``kernels.preparar_torch_compile``.
SIN_RUNTIME_CUDA = "No CUDA runtime is found, using CUDA_HOME="


# El DataLoader junta los ejemplos de un lote con torch.stack, y unos x de formas distintas no se
# apilan (lección 06). Fuente: las cadenas de torch/lib/libtorch_cpu.so de torch 2.13.0+cpu
# (``strings libtorch_cpu.so``); sigue «[3] at entry 0 and [4] at entry 1».
PILA_DE_FORMAS_DISTINTAS = "stack expects each tensor to be equal size, but got "


def coincide(real: str, esperado: str) -> bool:
    """¿Empieza el mensaje real (quitando «RuntimeError: » y espacios) como el esperado?"""
    texto = str(real).strip().removeprefix("RuntimeError:").strip()
    return texto.startswith(esperado)


# --- Sin memoria (lección 07) ---------------------------------------------------------------

# El mensaje de CUDA al quedarse sin memoria, tal como lo escribe PyTorch. Fuente: las cadenas
# de torch/lib/libc10_cuda.so de la rueda torch 2.14.1+cu130 (``strings libc10_cuda.so``), que
# salen de c10/cuda/CUDACachingAllocator.cpp. El PyTorch para CPU no trae ese archivo: su
# mensaje es el de libc10.so, más abajo. Los huecos {…} los rellena ``mensaje_sin_memoria``.
# {permitida} solo se llena tras ``torch.cuda.set_per_process_memory_fraction``: «14.74 GiB allowed; »
# (``allowed_info`` en c10/cuda/CUDACachingAllocator.cpp, entre ``proc_info`` y «Of the allocated memory»).
MENSAJE_OOM_CUDA = (
    "CUDA out of memory. Tried to allocate {pedido}. GPU {gpu} has a total capacity of {total} "
    "of which {libre} is free. Including non-PyTorch memory, this process has {proceso} memory in use. "
    "{permitida}Of the allocated memory {asignada} is allocated by PyTorch, and {reservada_libre} is reserved by "
    "PyTorch but unallocated. If reserved but unallocated memory is large try setting "
    "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for "
    "Memory Management  (https://docs.pytorch.org/docs/stable/notes/cuda.html"
    "#optimizing-memory-usage-with-pytorch-cuda-alloc-conf)"
)
# En la CPU, la RAM que falta. Fuente: ``strings torch/lib/libc10.so`` de torch 2.13.0+cpu.
MENSAJE_OOM_CPU = "DefaultCPUAllocator: can't allocate memory: you tried to allocate {pedido} bytes."


def _formato_pytorch(n_bytes: int) -> str:
    """Un tamaño escrito como en los mensajes de PyTorch: «20.00 MiB», «14.75 GiB». Lección 07."""
    if n_bytes <= 1024:
        return f"{n_bytes} bytes"
    for limite, divisor, unidad in ((2**20, 2**10, "KiB"), (2**30, 2**20, "MiB")):
        if n_bytes <= limite:
            return f"{n_bytes / divisor:.2f} {unidad}"
    return f"{n_bytes / 2**30:.2f} GiB"


# Cómo dice PyTorch quién usa la GPU (``proc_info`` en c10/cuda/CUDACachingAllocator.cpp, con lo que da
# NVML): su propio proceso, «Including non-PyTorch memory, this process has X memory in use. »; otro,
# «Process N has X memory in use. ». En un contenedor (Colab) NVML da el número de proceso de fuera,
# distinto del de Python, así que en una T4 de Colab sale la segunda forma también para el propio proceso:
# «Process 16497 has 14.74 GiB memory in use.» (NUS-HPC-AI-Lab/VideoSys#192, zai-org/CogVideo#741).
PROCESO_PROPIO = "Including non-PyTorch memory, this process has "
PROCESO_EN_CONTENEDOR = "Process {proceso} has "


def mensaje_sin_memoria(pedido: int, total: int, libre: int, asignada: int, reservada: int,
                        gpu: int = 0, permitida: int | None = None, proceso: int | None = None) -> str:
    """El texto de «CUDA out of memory» con estos números (en bytes). Lección 07.

    ``asignada`` es lo que ocupan los tensores (``memory_allocated``); ``reservada``, lo que el
    asignador de PyTorch tiene pedido a CUDA (``memory_reserved``), siempre ≥ ``asignada``.
    ``permitida``: el límite de ``set_per_process_memory_fraction``, si se puso. ``proceso``: el número
    con que NVML ve el proceso en un contenedor (Colab): el mensaje dice «Process N has …».
    """
    texto = MENSAJE_OOM_CUDA
    if proceso is not None:
        texto = texto.replace(PROCESO_PROPIO, PROCESO_EN_CONTENEDOR.format(proceso=proceso))
    return texto.format(
        pedido=_formato_pytorch(pedido), gpu=gpu, total=_formato_pytorch(total), libre=_formato_pytorch(libre),
        proceso=_formato_pytorch(total - libre), asignada=_formato_pytorch(asignada),
        reservada_libre=_formato_pytorch(reservada - asignada),
        permitida="" if permitida is None else f"{_formato_pytorch(permitida)} allowed; ")


# --- Precisión mixta con LoRA (lección 09) ------------------------------------------------------

# ``GradScaler.unscale_`` (o ``step``) con gradientes en fp16: pasa cuando los pesos que se
# entrenan (el adaptador LoRA) están en fp16 en vez de fp32. Fuente: torch/amp/grad_scaler.py
# de torch 2.13.0 (``_unscale_grads_``: ``raise ValueError("Attempting to unscale FP16 gradients.")``).
UNSCALE_FP16 = "Attempting to unscale FP16 gradients."
