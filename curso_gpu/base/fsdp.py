"""Hechos de la lección 12 (FSDP2 en dos T4), cada uno con su fuente. Lección 12.

- ``COMUNICACION_POR_PASO``: cuántas veces Ψ (los bytes del gradiente) envía cada GPU en un paso,
  multiplicado por (N−1)/N: 2 con DDP (un all-reduce), 3 con FSDP/ZeRO-3 (dos all-gather y un
  reduce-scatter): 1.5 veces más.
- ``KAGGLE_T4X2``: lo que da el acelerador «GPU T4 x2» de Kaggle.
- ``CAPACIDAD_BF16``: desde qué capacidad de cómputo de CUDA hay bf16 de verdad (8.0, Ampere).
- ``SALIDAS_T4``: lo que imprime una T4 en las piezas de la lección que no corren en una CPU (un
  ejemplo sacado de fuentes, no una medida de este curso).
- ``MEMORIA_T4_PYTORCH``: la memoria de una T4 como la da PyTorch (``total_memory``), en Colab y en Kaggle.
- ``CONTEXTO_CUDA_T4``: la memoria de la GPU que no es de PyTorch (contexto de CUDA).
- ``TORCH_MINIMO_FSDP2``: desde qué versión de torch existe ``torch.distributed.fsdp.fully_shard``.
"""

from __future__ import annotations

__all__ = ["CAPACIDAD_BF16", "COMUNICACION_POR_PASO", "CONTEXTO_CUDA_T4", "ESTRATEGIAS", "KAGGLE_T4X2", "MEMORIA_T4_PYTORCH",
           "SALIDAS_T4", "TORCH_MINIMO_FSDP2"]

ESTRATEGIAS = ("ddp", "fsdp")
"""Las dos formas de repartir el entrenamiento del curso: DDP (lección 08) y FSDP (lección 12)."""

# Rajbhandari, Rasley, Ruwase y He, «ZeRO: Memory Optimizations Toward Training Trillion Parameter
# Models», arXiv:1910.02054 (SC 2020), sección 7 («Communication Analysis of ZeRO-DP»): el
# all-reduce de DDP son un reduce-scatter y un all-gather, 2Ψ por paso (7.2.1: «Ψ+Ψ=2Ψ, exactly
# the same as the baseline DP»); con los parámetros repartidos (Pos+g+p) hay un all-gather en la
# pasada hacia delante, otro en la de atrás y un reduce-scatter de los gradientes (7.2.2: «The
# total volume is therefore 3Ψ which is 1.5x compared to the baseline»). Con N GPU en anillo,
# cada término se multiplica por (N−1)/N.
# La documentación de PyTorch describe la misma secuencia para fully_shard (torch 2.13,
# torch/distributed/fsdp/_fully_shard/_fully_shard.py: «Before forward, FSDP all-gathers ... re-
# all-gathers them in backward ... reduce-scatters the unsharded gradients»).
COMUNICACION_POR_PASO = {"ddp": 2.0, "fsdp": 3.0}

# El acelerador «GPU T4 x2» de los notebooks de Kaggle: dos NVIDIA T4 en la misma máquina, sin
# NVLink (PCIe), cada una con 15 360 MiB visibles (los 16 GiB menos el ECC, como en Colab).
# Fuentes: la lista de aceleradores de la CLI de Kaggle («NvidiaTeslaT4», añadida en Kaggle/kaggle-cli#916,
# https://github.com/Kaggle/kaggle-cli/blob/main/docs/kernels.md), y los metadatos que escribe
# wandb en notebooks de Kaggle con ese acelerador («"gpu_count": 2», «"name": "Tesla T4"»,
# «"memory_total": 16106127360», p. ej. https://huggingface.co/Surabhi-K/llama_3_3epochs/blob/main/wandb-metadata.json).
# El menú: en el panel derecho del notebook, «Settings › Accelerator › GPU T4 x2». La cuota de GPU es
# semanal y se ve en tu perfil; el contador corre desde que arranca la sesión (Banachewicz y Massaron,
# «The Kaggle Book», cap. 3, https://packtpub.com/en-sk/product/the-kaggle-book-9781801817479/chapter/working-and-learning-with-kaggle-notebooks-4/section/getting-the-most-out-of-notebooks-ch04lvl1sec17).
KAGGLE_T4X2 = {
    "gpus": 2,
    "nombre": "Tesla T4",
    "memoria_mib": 15360,
    "menu": "Settings › Accelerator › GPU T4 x2",
    # Sin Internet, `pip install git+...` no llega a GitHub. El interruptor del notebook es
    # «Settings › Internet» (en la CLI de Kaggle, «enable_internet» de kernel-metadata.json, el mismo
    # docs/kernels.md de arriba). Que solo se enciende con la cuenta verificada con un teléfono lo dice
    # el propio panel de Kaggle al intentarlo; no encontramos una página pública que citar (7-12-2026):
    # compruébalo en tu panel si cambia.
    "internet": "Settings › Internet (solo con la cuenta verificada con un teléfono)",
    "enlace": "PCIe 3.0 x16",
}

# La memoria de una T4 según PyTorch (torch.cuda.get_device_properties(0).total_memory), no la de
# nvidia-smi (15 360 MiB, con la parte que reserva el driver):
# - Colab: 15 095 MiB, la misma cifra de la T4 simulada (gpu_simulada.py, con sus fuentes).
# - Kaggle («GPU T4 x2»): 14.56 GiB, lo que dice el OutOfMemoryError de PyTorch en notebooks de Kaggle
#   publicados («GPU 0 has a total capacity of 14.56 GiB of which ... is free», también «GPU 1 ...»
#   con dos T4; leído el 7-12-2026). PyTorch redondea a dos decimales: ±5 MiB.
MEMORIA_T4_PYTORCH = {"Colab": 15095 * 2**20, "Kaggle": round(14.56 * 2**30)}

# La memoria fuera de PyTorch: el contexto de CUDA (los kernels cargados, sus tablas) y los búferes
# de nccl. Un OutOfMemoryError en una T4 de Kaggle (el mismo texto de arriba, leído el 7-12-2026):
# «this process has 14.55 GiB memory in use. Of the allocated memory 14.29 GiB is allocated by
# PyTorch, and 119.36 MiB is reserved by PyTorch but unallocated»: 14.55 − 14.29 − 0.12 ≈ 0.14 GiB
# fuera de PyTorch, en un proceso sin nccl. Sin la carga perezosa de CUDA el contexto era mayor
# (pytorch/pytorch#34323: «nvidia-smi shows usage of 781MB»). Contamos 300 MiB: lo visto más los
# búferes de nccl (unas decenas de MB). Es una estimación, no una medida de este curso. El contexto
# solo, sin nccl, en una T4 de Colab es la cifra de la T4 simulada (``gpu_simulada``: unos 106 MiB).
CONTEXTO_CUDA_T4 = 300 * 2**20

# fully_shard es público en torch.distributed.fsdp desde torch 2.6 (enero de 2025); antes estaba en
# torch.distributed._composable.fsdp. La página torch.distributed.fsdp.fully_shard de la documentación
# de PyTorch dice «Created On: Dec 04, 2024» (https://docs.pytorch.org/docs/stable/distributed.fsdp.fully_shard.html);
# la 2.13 instalada aquí la tiene en torch.distributed.fsdp.
TORCH_MINIMO_FSDP2 = (2, 6)

# bf16 en Tensor Cores llega con Ampere (capacidad 8.0). torch.cuda.is_bf16_supported mira
# exactamente eso: «if torch.cuda.get_device_properties(device).major >= 8: return True»; con
# including_emulation=False una T4 (7.5) da False (torch 2.13, torch/cuda/__init__.py). La tabla de
# capacidades está en catalogo.py (T4 7.5, A100 8.0, L4 8.9, H100 9.0).
CAPACIDAD_BF16 = (8, 0)

# Lo que imprime una T4 (Colab o Kaggle) en las piezas de la lección 12 que en una CPU no existen: un
# ejemplo armado con las fuentes, NO una salida medida por este curso. Capacidad y nombre: la tabla de
# catalogo.py («Tesla T4», 7.5); bf16: la regla de arriba. nccl: el backend que elige
# distribuido.elegir_backend con GPU NVIDIA (lección 08).
SALIDAS_T4 = {
    "torch.cuda.get_device_name(0)": "Tesla T4",
    "torch.cuda.get_device_capability(0)": "(7, 5)",
    "torch.cuda.is_bf16_supported(including_emulation=False)": "False",
    "torch.distributed.get_backend()": "nccl",
}
