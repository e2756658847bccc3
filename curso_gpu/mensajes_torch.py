"""Los mensajes de error reales de PyTorch que las lecciones 01 y 05 enseñan. Lecciones 01 y 05.

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

# Un PyTorch con CUDA en una máquina sin driver de NVIDIA (Colab en un entorno sin GPU).
SIN_DRIVER = (
    "Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and "
    "installed a driver from http://www.nvidia.com/Download/index.aspx"
)

# Un PyTorch solo para CPU al que le pides CUDA (torch/cuda/__init__.py).
SIN_CUDA_COMPILADA = "Torch not compiled with CUDA enabled"


def coincide(real: str, esperado: str) -> bool:
    """¿Empieza el mensaje real (quitando «RuntimeError: » y espacios) como el esperado?"""
    texto = str(real).strip().removeprefix("RuntimeError:").strip()
    return texto.startswith(esperado)
