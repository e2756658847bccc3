# ---
# jupyter:
#   accelerator: GPU
#   colab:
#     gpuType: T4
#     provenance: []
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# [![Abrir en Colab](https://colab.research.google.com/assets/colab-badge.svg)](https://colab.research.google.com/github/curso-gpu/curso_gpu/blob/main/notebooks/12_fsdp_modelos_grandes.ipynb)
#
# # Lección 12 — Un modelo que no cabe en una GPU: FSDP2

# %%
# Arranque: en Google Colab o en Kaggle, instala el paquete del curso si falta (en Kaggle,
# activa antes Internet en las opciones del notebook). En tu computadora no hace nada:
# allí lo instalas tú una vez, como dice el README del curso.
import importlib.util, os, subprocess, sys
REPOSITORIO_CURSO = "https://github.com/curso-gpu/curso_gpu"
EN_COLAB_O_KAGGLE = "google.colab" in sys.modules or "KAGGLE_KERNEL_RUN_TYPE" in os.environ
if EN_COLAB_O_KAGGLE and importlib.util.find_spec("curso_gpu") is None:
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", f"git+{REPOSITORIO_CURSO}"], check=True)  # solo se ejecuta en Colab o Kaggle

# %% [markdown]
# ## Qué vas a aprender
#
# - Por qué **una T4 no basta** para entrenar todos los pesos de un modelo de 1 500 millones de
#   parámetros, por qué **DDP tampoco** (cada GPU guarda todo) y cuánto guarda cada GPU con **FSDP**
#   en su **pico**: lo que de verdad decide si cabe.
# - A repartir un modelo con **`fully_shard`** (FSDP2, la forma estándar de PyTorch): qué trozo
#   guarda cada proceso, el **all-gather** antes de cada bloque, el **reshard** después y el
#   **reduce-scatter** de los gradientes, con los bytes contados. Cada parámetro repartido es un
#   **`DTensor`** (*distributed tensor*): por fuera tiene la forma entera; por dentro, cada proceso
#   guarda solo su trozo.
# - A comprobar que **2 procesos × lote 16 = 1 proceso × lote 32**, como con DDP en la lección 08.
# - La **precisión mixta de una T4**: calcular en fp16, reducir en fp32 y escalar la pérdida.
# - A **guardar y seguir** sin perder nada: cada proceso escribe su trozo, un `SIGKILL` no deja
#   nada a medias, y lo guardado con 2 procesos se sigue con 1.
# - Los pasos para usar las **2 T4 gratis de Kaggle** con el mismo código.
#
# ## Por qué importa
#
# En la lección 08 cada GPU tenía una copia entera del modelo: DDP reparte los datos, no la
# memoria. En la 09, LoRA congelaba el modelo y entrenaba un adaptador pequeño. ¿Y si quieres
# entrenar **todos** los pesos de un modelo que no cabe en una GPU? Kaggle te da gratis dos T4:
# juntas tienen 2 × 15 360 MiB = 30 GiB (32.2 GB) según `nvidia-smi`, y PyTorch deja usar 14.56 GiB de
# cada una. FSDP (*Fully Sharded Data Parallel*) las usa casi como si fueran una memoria: cada GPU
# guarda la mitad de todo y pide prestado a la otra el bloque que está calculando.
#
# Como en la lección 08, todo funciona con procesos de **CPU** y el backend `gloo`: aquí lo
# pruebas entero sin GPU. Casi todo el tiempo de la lección se va en arrancar los procesos de
# `torchrun` (cada uno importa torch) y en construir Qwen2.5-1.5B en `meta`.

# %%
# Lo primero: FSDP2 (fully_shard) es público desde torch 2.6; con uno más viejo, la lección no puede correr.
import torch
from curso_gpu.base import TORCH_MINIMO_FSDP2

_version = tuple(int(parte) for parte in torch.__version__.split("+")[0].split(".")[:2])
assert _version >= TORCH_MINIMO_FSDP2, (f"Esta lección necesita torch {TORCH_MINIMO_FSDP2[0]}.{TORCH_MINIMO_FSDP2[1]} o más "
                                        f"nuevo (fully_shard); tienes {torch.__version__}. Actualízalo: pip install -U torch")

import json
import os
import signal
import subprocess
import tempfile
import time
from pathlib import Path

from torch import nn

from curso_gpu import distribuido
from curso_gpu.ajuste import memoria_ajuste, modelo_en_meta
from curso_gpu.base import (CAPACIDAD_BF16, COMUNICACION_POR_PASO, CONTEXTO_CUDA_T4, KAGGLE_T4X2, MEMORIA_T4_PYTORCH,
                            SALIDAS_T4, formatear_bytes, formatear_numero)
from curso_gpu.distribuido import ANCHOS_DE_BANDA_GB_S, descendientes, ejecutar, orden_torchrun, sigue_vivo
from curso_gpu.entrenar_ddp import main as entrenar_ddp_main
from curso_gpu.guardado import CheckpointDanado, cargar_pesos, como_carpeta, leer_indice
from curso_gpu.memoria import bytes_de_fragmento, medir_memoria_entrenamiento, memoria_por_gpu, trafico_descarga_cpu

print("PyTorch", torch.__version__, "· ¿CUDA?", torch.cuda.is_available(),
      "· GPU:", torch.cuda.device_count(), "· núcleos de CPU:", os.cpu_count())
CARPETA = Path(tempfile.mkdtemp(prefix="leccion12_"))  # aquí van el guion, los resultados y los checkpoints
ENTORNO = {"OMP_NUM_THREADS": "1"}  # un hilo por proceso, como en la lección 08

# %% [markdown]
# ## La idea clave: repartirlo todo y reunir solo lo que se calcula
#
# Con N procesos (uno por GPU), FSDP hace lo mismo que **ZeRO-3**: la tercera etapa de ZeRO (el
# artículo de DeepSpeed, *Zero Redundancy Optimizer*), la que reparte entre las GPU los tres: estado
# del optimizador (etapa 1), gradientes (etapa 2) y pesos (etapa 3).
#
# 1. Cada parámetro se corta por su primera dimensión en N trozos. Cada proceso guarda **su
#    trozo** de los pesos, de los gradientes y del estado del optimizador: 1/N de todo.
# 2. Antes del `forward` de un bloque, un **all-gather** reúne el bloque entero en cada proceso.
#    Al terminar el bloque se libera (**reshard**). Pero nunca hay solo un bloque entero: FSDP2
#    **reúne por adelantado el siguiente** (*prefetch*) para que la comunicación se solape con el
#    cálculo, y la **raíz** (lo que no está en ningún bloque; en Qwen, los embeddings) sigue reunida
#    de principio a fin: su `reshard_after_forward` vale `False` por defecto.
# 3. En el `backward` se reúne otra vez cada bloque, se calcula su gradiente y un
#    **reduce-scatter** **promedia** los gradientes de todos (`ReduceOp.AVG`, como el all-reduce de DDP
#    en la lección 08) y deja a cada proceso solo su trozo del promedio.
# 4. Cada proceso actualiza su trozo con su trozo del optimizador. No hace falta nada más.
#
# El precio es comunicar más. Llamemos Ψ a los bytes del gradiente en fp32 (4 bytes por parámetro).
# DDP envía por GPU unos 2·(N−1)/N × Ψ por paso; FSDP en fp32, 3·(N−1)/N × Ψ (dos all-gather y un
# reduce-scatter): **1.5 veces** más, según el artículo de ZeRO, que cuenta así cuando todo viaja en el
# mismo tipo. Con la política de una T4 (reunir en fp16, reducir en fp32), cada all-gather mueve la
# mitad: 0.5Ψ + 0.5Ψ + Ψ = **2Ψ, lo mismo que DDP**.

# %%
N = 2
for politica, reunir, reducir in (("todo en fp32 (la demo de esta lección)", 4, 4),
                                  ("reunir en fp16, reducir en fp32 (una T4)", 2, 4)):
    fsdp_psi = (2 * reunir + reducir) / 4  # en veces Ψ: dos all-gather y un reduce-scatter
    print(f"FSDP, {politica}: {fsdp_psi:g}Ψ · (N−1)/N por paso; DDP (all-reduce fp32): "
          f"{COMUNICACION_POR_PASO['ddp']:g}Ψ · (N−1)/N → FSDP/DDP = {fsdp_psi / COMUNICACION_POR_PASO['ddp']:.1f}")

# %% [markdown]
# ## Paso a paso
#
# ### 1. Por qué una GPU no basta, y qué cabe en dos
#
# El desglose de la lección 07 (el mismo que usó la 09 para LoRA) para entrenar **todos** los pesos de
# Qwen2.5-1.5B con Adam en precisión mixta fp16, lote de 1 × 512 tokens. El modelo se construye en
# `meta`: nada se descarga ni ocupa memoria.
#
# `memoria_por_gpu` cuenta lo que guarda cada GPU **en su pico**, no solo los trozos. Mira tres
# momentos, porque no todo existe a la vez:
#
# 1. **El comienzo de la pasada hacia atrás**: todas las activaciones, la raíz reunida, el bloque que
#    se calcula y el siguiente (*prefetch*), el búfer del reduce-scatter (en `reduce_dtype`, fp32). Aún
#    no hay gradientes repartidos: `zero_grad()` los borró.
# 2. **El final de la pasada hacia atrás**: todos los gradientes repartidos, y el reduce-scatter de la
#    raíz, con su búfer fp32 de 233 millones de números.
# 3. **El paso del optimizador**: Adam, con `foreach` (lo normal en GPU), calcula `sqrt` de todo su
#    estado de una vez: un temporal tan grande como los pesos que guarda esa GPU.
#
# Y encima, el **contexto de CUDA**: memoria de la GPU que no es de PyTorch. Se compara con lo que
# PyTorch dice que tiene la GPU (`torch.cuda.get_device_properties(0).total_memory`): 15 095 MiB en una
# T4 de Colab y 14.56 GiB en una de Kaggle, no los 15 360 MiB de `nvidia-smi`.

# %%
GPU_KAGGLE, GPU_COLAB = MEMORIA_T4_PYTORCH["Kaggle"], MEMORIA_T4_PYTORCH["Colab"]
print(f"total_memory de una T4: Colab {formatear_numero(GPU_COLAB / 2**20, 0)} MiB ({GPU_COLAB / 2**30:.2f} GiB) · "
      f"Kaggle {GPU_KAGGLE / 2**30:.2f} GiB · fuera de PyTorch (contexto de CUDA y nccl, estimado): {CONTEXTO_CUDA_T4 / 2**20:.0f} MiB")
completo = memoria_ajuste("Qwen2.5-1.5B", "completo", "fp16", lote=1, secuencia=512)
qwen = modelo_en_meta("Qwen2.5-1.5B")
bloque = max(sum(p.numel() for p in capa.parameters()) for capa in qwen.model.layers)
raiz = sum(p.numel() for p in qwen.parameters()) - sum(p.numel() for p in qwen.model.layers.parameters())
mayor = max(p.numel() for p in qwen.parameters())
print(f"Un bloque: {formatear_numero(bloque)} parámetros · la raíz (embeddings atados a la cabeza y la "
      f"norma final): {formatear_numero(raiz)} · en total {formatear_numero(completo.parametros)}")
medidas_fsdp = dict(unidad_parametros=bloque, raiz_parametros=raiz, mayor_parametro=mayor, nombre="Qwen2.5-1.5B")
una = memoria_por_gpu(completo, 1, "una", nombre="Qwen2.5-1.5B")
ddp = memoria_por_gpu(completo, 2, "ddp", nombre="Qwen2.5-1.5B")
fsdp = memoria_por_gpu(completo, 2, "fsdp", **medidas_fsdp)
print(fsdp)

# %% [markdown]
# Cada fila dice en qué momentos existe (1, 2, 3) y de dónde sale. Los bytes por parámetro no son los
# mismos en todas las filas, y por eso 29 GB / 2 no da lo que da FSDP:
#
# - **Una GPU o DDP: 18 bytes por parámetro** (lección 07): pesos fp32 (4) + la copia fp16 que hace
#   `autocast` (2) + gradientes (4) + Adam (8).
# - **FSDP: 16 bytes por parámetro, entre N**: pesos fp32, gradientes y Adam repartidos. La copia fp16
#   solo existe para lo que se está calculando (`MixedPrecisionPolicy`), y se cuenta aparte: la raíz,
#   el bloque y el siguiente, a 2 bytes por parámetro.
# - **Los temporales** (Adam, búfer del reduce-scatter) y el **contexto de CUDA**, en cada fila.
#
# El veredicto de cada forma de entrenar, con el pico y contra la memoria de la GPU donde correría:

# %%
def veredicto(nombre, memoria, gpu, donde):
    cabe = memoria.cabe_en(gpu)
    print(f"{nombre:42} pico {memoria.total / 2**30:5.2f} GiB ({memoria.momento_pico}) de {gpu / 2**30:.2f} GiB "
          f"en {donde} → {'CABE' if cabe else 'NO CABE'}")
    return cabe

cabe_una = veredicto("una T4", una, GPU_COLAB, "Colab")
cabe_ddp = veredicto("DDP en 2 × T4", ddp, GPU_KAGGLE, "Kaggle")
cabe_fsdp = veredicto("FSDP en 2 × T4, tal cual", fsdp, GPU_KAGGLE, "Kaggle")

# %% [markdown]
# **FSDP tal cual no cabe.** Repartir deja unos 12 GB de trozos por GPU, pero en el paso de Adam se suma
# un temporal de 3.1 GB, y con el contexto de CUDA el pico pasa de los 14.56 GiB de una T4 de Kaggle
# (por poco: la cuenta tiene sus límites, y una T4 real podría fallar incluso antes, por la
# fragmentación del asignador). ¿Qué lo arregla? Cada medida, contada con la misma calculadora:

# %%
con_checkpointing = memoria_ajuste("Qwen2.5-1.5B", "completo", "fp16", lote=1, secuencia=512, checkpointing=True)
mas_corta = memoria_ajuste("Qwen2.5-1.5B", "completo", "fp16", lote=1, secuencia=256)
medidas = {
    "activation checkpointing (lección 07)": memoria_por_gpu(con_checkpointing, 2, "fsdp", **medidas_fsdp),
    "secuencia de 256 tokens": memoria_por_gpu(mas_corta, 2, "fsdp", **medidas_fsdp),
    "reshard_after_forward=True en la raíz": fsdp,  # la raíz sigue reunida: ver abajo
    "Adam con foreach=False": memoria_por_gpu(completo, 2, "fsdp", foreach=False, **medidas_fsdp),
    "CPUOffloadPolicy (trozos y Adam en la CPU)": memoria_por_gpu(completo, 2, "fsdp", descarga_cpu=True, **medidas_fsdp),
}
cabe_con = {nombre: veredicto(nombre, memoria, GPU_KAGGLE, "Kaggle") for nombre, memoria in medidas.items()}
pcie = trafico_descarga_cpu(completo.parametros, 2)
print(f"CPUOffloadPolicy: {formatear_bytes(pcie)} por GPU y paso cruzan el PCIe (al menos "
      f"{pcie / (ANCHOS_DE_BANDA_GB_S['PCIe 3.0 x16'] * 1e9):.1f} s por paso al techo teórico del PCIe 3.0 x16, {ANCHOS_DE_BANDA_GB_S['PCIe 3.0 x16']} GB/s), "
      f"y la RAM de la máquina guarda {formatear_bytes(16 * completo.parametros)} de trozos de los dos procesos")

# %% [markdown]
# - **Activation checkpointing** y **secuencias más cortas** bajan el momento 1 (las activaciones),
#   pero el pico está en el paso de Adam: no bastan solos.
# - **`reshard_after_forward=True` en la raíz** no cambia nada aquí: el `forward` de la raíz es el del
#   modelo entero (los bloques están dentro), así que la raíz se reúne al empezar y sigue reunida hasta
#   el final de la pasada hacia atrás. Lo que sí ayuda es sacar los embeddings a su propia unidad, como
#   hace **torchtitan** (el código de referencia de PyTorch para entrenar modelos grandes con FSDP2);
#   en Qwen2.5-1.5B no se puede sin más, porque la cabeza comparte su matriz con los embeddings.
# - **`foreach=False`** (`torch.optim.Adam(..., foreach=False)`): Adam recorre los parámetros de uno en
#   uno y el temporal es el del mayor (la matriz de embeddings), no el de todos. **Cabe**, con
#   algo más de 1 GiB de margen: la medida más barata.
# - **`CPUOffloadPolicy`** cabe con mucho margen, a cambio de mover unos 9 GB por paso por el PCIe y de
#   hacer el paso de Adam en la CPU: mucho más lento.
#
# **El veredicto de esta lección: ajustar entero Qwen2.5-1.5B en 2 × T4 de Kaggle cabe con FSDP y
# `foreach=False`, según la cuenta, sin medir en una T4.** `benchmarks/validar_en_gpu.py` compara esta
# calculadora con el pico medido en GPU de verdad.
#
# **¿Y LoRA?** Si no necesitas cambiar todos los pesos, LoRA (lección 09) es mejor respuesta: cabe en
# **una** T4, sin comunicación entre GPU, y guarda solo el adaptador. QLoRA, aún menos.
# FSDP es para cuando de verdad quieres ajustar el modelo entero (o preentrenarlo).

# %%
lora = memoria_ajuste("Qwen2.5-1.5B", "lora", "fp16", lote=1, secuencia=512)
print(f"LoRA r=16 en una T4: {formatear_bytes(lora.total)} → {'CABE' if lora.total <= GPU_COLAB else 'NO CABE'}; "
      f"el adaptador: {formatear_numero(lora.parametros)} parámetros, {formatear_bytes(4 * lora.parametros)} en fp32")

# %% [markdown]
# ### 2. FSDP2 a mano en un modelo diminuto
#
# Como DDP, FSDP no se ejecuta dentro del notebook: se escribe un guion y `torchrun` arranca un
# proceso por GPU (aquí, por proceso de CPU). El modelo: un MLP de 33 088 parámetros, tres capas
# `Linear`. Las líneas nuevas llevan «FSDP». El guion guarda lo que ve cada rango en **su propio
# archivo** (`rango_0.json`, `rango_1.json`, escritos de forma atómica): nunca se leen mezclados
# de la salida.
#
# Una pieza nueva: la **malla de procesos** (`DeviceMesh`, de `init_device_mesh`). Es la lista de
# procesos (y de sus dispositivos) entre los que se reparte, con forma: `(2,)` son dos procesos en
# una fila; `(2, 4)` serían 2 nodos de 4 GPU. `fully_shard` corta cada parámetro entre los procesos
# de la malla.

# %%
GUION = CARPETA / "fsdp_a_mano.py"
GUION.write_text('''\
import json, sys
from pathlib import Path
import torch
from torch import nn
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard
import torch.distributed.checkpoint as dcp
from torch.distributed.checkpoint.state_dict import StateDictOptions, get_model_state_dict
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset
from curso_gpu import distribuido
from curso_gpu.distribuido import ContadorComunicacion
from curso_gpu.guardado import escribir_atomico
from curso_gpu.memoria import bytes_de_fragmento

tamano_lote, epocas, carpeta = int(sys.argv[1]), int(sys.argv[2]), Path(sys.argv[3])

# FSDP 1: unirse al grupo. iniciar() elige el backend (nccl con GPU, gloo en CPU) y el dispositivo.
proceso = distribuido.iniciar()
rango, mundo, dispositivo = proceso.rango, proceso.tamano_mundo, proceso.dispositivo
malla = init_device_mesh(dispositivo.type, (mundo,))  # DeviceMesh: los procesos entre los que se reparte

def mlp():
    return nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU(), nn.Linear(128, 64))

# FSDP 2: el mismo modelo inicial en todos; fully_shard en cada bloque y después en la raíz.
torch.manual_seed(0)
modelo = mlp().to(dispositivo)
prediccion = bytes_de_fragmento(modelo, mundo, rango)  # la calculadora, antes de repartir
for bloque in (modelo[0], modelo[2], modelo[4]):
    fully_shard(bloque, mesh=malla)
fully_shard(modelo, mesh=malla)
medido = distribuido.fragmento_medido(modelo)
trozos = {n: {"forma": list(p.shape), "local": list(p.to_local().shape), "tipo": type(p).__name__,
              "reparto": str(p.placements)} for n, p in modelo.named_parameters()}

# FSDP 3: ver el all-gather antes del forward de cada bloque y el reshard después.
eventos = []
def antes(bloque, _):
    eventos.append(f"antes del forward de {bloque.nombre}: weight es {type(bloque.weight).__name__} "
                   f"{list(bloque.weight.shape)}")
def despues(bloque, _, __):
    eventos.append(f"después: weight es {type(bloque.weight).__name__} {list(bloque.weight.shape)}, "
                   f"trozo local {list(bloque.weight.to_local().shape)}")
for i in (0, 2, 4):
    modelo[i].nombre = f"la capa {i}"
    modelo[i].register_forward_pre_hook(antes)
    modelo[i].register_forward_hook(despues)

# Los mismos datos en todos; el muestreador da a cada proceso su parte.
generador = torch.Generator().manual_seed(0)
X = torch.randn(256, 64, generator=generador)
y = (X @ torch.randn(64, 8, generator=generador)).argmax(1)
muestreador = DistributedSampler(TensorDataset(X, y), num_replicas=mundo, rank=rango, shuffle=True, seed=0)
cargador = DataLoader(TensorDataset(X, y), batch_size=tamano_lote, sampler=muestreador)
optimizador = torch.optim.Adam(modelo.parameters(), lr=0.001)  # solo ve los trozos de este rango
criterio = nn.CrossEntropyLoss()

comunicacion = None
for epoca in range(epocas):
    muestreador.set_epoch(epoca)
    for xb, yb in cargador:
        xb, yb = xb.to(dispositivo), yb.to(dispositivo)
        if comunicacion is None:  # el primer paso, contado: cada all-gather y reduce-scatter, con sus bytes
            with ContadorComunicacion() as comunicacion:
                perdida = criterio(modelo(xb), yb)
                optimizador.zero_grad()
                perdida.backward()  # reúne otra vez cada bloque y reparte su gradiente (reduce-scatter)
            gradiente = modelo[0].weight.grad
            info_gradiente = f"{type(gradiente).__name__} {list(gradiente.shape)}, trozo local {list(gradiente.to_local().shape)}"
        else:
            perdida = criterio(modelo(xb), yb)
            optimizador.zero_grad()
            perdida.backward()
        optimizador.step()  # cada rango actualiza su trozo con su trozo del estado de Adam
# En una GPU: el pico de memoria de este entrenamiento (en una CPU no hay nada que leer).
memoria_gpu = torch.cuda.max_memory_allocated(dispositivo) if dispositivo.type == "cuda" else None

# FSDP 4: guardar. Cada rango escribe su trozo (DCP); el rango 0, además, el modelo entero reunido.
dcp.save({"modelo": get_model_state_dict(modelo)}, checkpoint_id=carpeta / "a_mano.dcp")
enteros = get_model_state_dict(modelo, options=StateDictOptions(full_state_dict=True, cpu_offload=True))
if rango == 0:
    escribir_atomico(carpeta / "pesos_fsdp.pt", lambda archivo: torch.save(enteros, archivo))

# FSDP 5: la precisión mixta de una T4: calcula en fp16, reduce en fp32 y escala la pérdida.
torch.manual_seed(0)
mixto = mlp().to(dispositivo)
politica = MixedPrecisionPolicy(param_dtype=torch.float16, reduce_dtype=torch.float32)
for bloque in (mixto[0], mixto[2], mixto[4]):
    fully_shard(bloque, mesh=malla, mp_policy=politica)
fully_shard(mixto, mesh=malla, mp_policy=politica)
tipos = {}
def anotar_tipo(bloque, _):
    tipos.setdefault("al calcular", str(bloque.weight.dtype))
mixto[0].register_forward_pre_hook(anotar_tipo)
# El GradScaler de siempre: con FSDP2 los gradientes son DTensor y PyTorch reúne el inf entre rangos.
escalador = torch.amp.GradScaler(dispositivo.type, init_scale=2.0**16)  # "cuda" en GPU, "cpu" aquí
optimizador_mixto = torch.optim.Adam(mixto.parameters(), lr=0.01)
saltos = []
for paso, (xb, yb) in zip(range(4), cargador):
    xb, yb = xb.to(dispositivo), yb.to(dispositivo)
    perdida_mixta = criterio(mixto(xb).float(), yb)
    optimizador_mixto.zero_grad()
    escalador.scale(perdida_mixta).backward()
    if paso == 3 and rango == 0:  # el último paso: un inf solo en el trozo del rango 0
        mixto[0].weight.grad.to_local()[0, 0] = float("inf")
    antes = mixto[0].weight.to_local().clone()
    escalador.step(optimizador_mixto)  # salta el paso si algún rango vio un inf o un NaN
    escalador.update()
    saltos.append(torch.equal(antes, mixto[0].weight.to_local()))  # True: este rango saltó el paso
tipos["guardado (trozo)"] = str(mixto[0].weight.dtype)
tipos["gradiente (trozo)"] = str(mixto[0].weight.grad.dtype)

resultado = {"rango": rango, "mundo": mundo, "backend": proceso.backend, "dispositivo": str(dispositivo),
             "prediccion": prediccion.bytes, "medido": medido.bytes, "propios": medido.parametros,
             "trozos": trozos, "eventos": eventos, "gradiente": info_gradiente,
             "comunicacion": {"llamadas": dict(comunicacion.llamadas), "bytes": dict(comunicacion.bytes_por_tipo),
                              "enviados": comunicacion.enviados_por_rango},
             "precision_mixta": tipos, "escala": escalador.get_scale(), "perdida_mixta": perdida_mixta.item(),
             "saltos": saltos, "escalador": type(escalador).__name__,
             "memoria_gpu": memoria_gpu}
escribir_atomico(carpeta / f"rango_{rango}.json", lambda archivo: archivo.write(json.dumps(resultado).encode()))
distribuido.terminar()
''')
print(f"Guion escrito en {GUION} ({len(GUION.read_text().splitlines())} líneas)")

# %% [markdown]
# Lo lanzamos con `torchrun`, dos procesos, lotes de 16 y una época, con `ejecutar` de la lección 08:
# tiempo máximo y ningún proceso huérfano pase lo que pase.

# %%
EPOCAS = 1
orden = orden_torchrun([str(GUION), "16", str(EPOCAS), str(CARPETA)], procesos=2)
(a_mano,) = ejecutar(orden, timeout_s=180, entorno=ENTORNO)
print(f"Código de salida {a_mano.codigo} · {a_mano.segundos:.1f} s (arrancar Python y torch en 3 procesos incluido)")
print("Los dos procesos terminaron bien." if a_mano.bien else f"{a_mano.salida[-3000:]}\n{a_mano.explicacion()}")
rangos = [json.loads((CARPETA / f"rango_{r}.json").read_text()) for r in range(2)]

# %% [markdown]
# **Qué guarda cada rango.** Cada parámetro es un `DTensor`: por fuera tiene la forma entera; por
# dentro (`to_local()`), solo su trozo, cortado por la primera dimensión (`Shard(dim=0)`).

# %%
for r in rangos:
    print(f"Rango {r['rango']} ({r['backend']}, {r['dispositivo']}):")
    for nombre, t in r["trozos"].items():
        print(f"  {nombre:9} {t['tipo']} {t['forma']} {t['reparto']} → trozo local {t['local']}")

# %% [markdown]
# **Los bytes, medidos frente a la calculadora.** `bytes_de_fragmento` predice, sin repartir nada, lo
# que guardará cada rango; el guion mide la memoria de sus trozos de verdad. Aquí la calculamos otra
# vez en el notebook, con el mismo MLP sin repartir:

# %%
def mlp():
    return nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU(), nn.Linear(128, 64))

torch.manual_seed(0)
entero = mlp()
total = sum(p.numel() for p in entero.parameters())
prevision = [bytes_de_fragmento(entero, 2, r) for r in range(2)]
for r, p in zip(rangos, prevision):
    print(f"rango {r['rango']}: {r['propios']:_} de {total:_} parámetros · medido {formatear_bytes(r['medido'])} · "
          f"calculado {formatear_bytes(p.bytes)} → {'iguales' if r['medido'] == p.bytes else 'DISTINTOS'}".replace("_", " "))

# %% [markdown]
# **El all-gather y el reshard.** Antes del `forward` de cada capa, su `weight` es un parámetro
# normal con la forma entera (FSDP acaba de reunirlo); después, otra vez un `DTensor` con medio
# trozo local. En el `backward` pasa lo mismo, y el gradiente también queda repartido
# (**reduce-scatter**):

# %%
print("\n".join(rangos[0]["eventos"][:6]))
print("gradiente de la capa 0 tras backward:", rangos[0]["gradiente"])

# %% [markdown]
# **La comunicación, contada.** `ContadorComunicacion` anotó cada operación colectiva del primer paso
# y el tamaño de su tensor entero. En anillo, cada rango envía (N−1)/N de cada uno. DDP, para el
# mismo modelo, haría un all-reduce de los gradientes: 2·(N−1)/N × Ψ.

# %%
c = rangos[0]["comunicacion"]
psi = 4 * total  # los bytes del gradiente en fp32
ddp = distribuido.tiempo_allreduce(total, 2, "PCIe 3.0 x16").bytes_por_gpu
print("FSDP, primer paso:", " · ".join(f"{veces} {tipo} ({formatear_bytes(c['bytes'][tipo])} en total)"
                                       for tipo, veces in c["llamadas"].items()))
print(f"Envía cada rango: FSDP {c['enviados']:_.0f} bytes; DDP {ddp:_.0f} bytes → {c['enviados'] / ddp:.2f} veces".replace("_", " "))

# %% [markdown]
# Tres all-gather en el `forward` (uno por capa), tres en el `backward` y tres reduce-scatter (que
# promedian): en fp32, exactamente 1.5 veces los bytes de DDP, lo que dice el artículo de ZeRO. Con la
# política de una T4 (all-gather en fp16) serían 2Ψ, lo mismo que DDP (la cuenta de arriba). Con N GPU
# en un solo nodo por PCIe, la comunicación se nota; lo que se gana es memoria.
#
# ### 3. Equivalencia: 2 procesos × lote 16 = 1 proceso × lote 32
#
# Como en la lección 08: el bucle de siempre, en un solo proceso, sin FSDP, con el lote global de 32
# y el mismo muestreador con un único «rango». Los pesos que reunió y guardó el rango 0 deben ser
# los mismos, salvo el redondeo de sumar en otro orden.

# %%
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

generador = torch.Generator().manual_seed(0)
X = torch.randn(256, 64, generator=generador)
y = (X @ torch.randn(64, 8, generator=generador)).argmax(1)
muestreador = DistributedSampler(TensorDataset(X, y), num_replicas=1, rank=0, shuffle=True, seed=0)
cargador = DataLoader(TensorDataset(X, y), batch_size=32, sampler=muestreador)
optimizador = torch.optim.Adam(entero.parameters(), lr=0.001)
criterio = nn.CrossEntropyLoss()
for epoca in range(EPOCAS):
    muestreador.set_epoch(epoca)
    for xb, yb in cargador:
        perdida = criterio(entero(xb), yb)
        optimizador.zero_grad()
        perdida.backward()
        optimizador.step()

pesos_fsdp = torch.load(CARPETA / "pesos_fsdp.pt", weights_only=True)
diferencia = max((pesos_fsdp[k] - v).abs().max().item() for k, v in entero.state_dict().items())
print(f"Máxima diferencia entre FSDP 2×16 y 1×32: {diferencia:.1e} (redondeo de float32)")

# %% [markdown]
# ### 4. Precisión mixta en una T4
#
# Con `MixedPrecisionPolicy(param_dtype=torch.float16, reduce_dtype=torch.float32)` cada bloque se
# reúne y se calcula en fp16 (la mitad de bytes en cada all-gather, y los Tensor Cores de la T4),
# los gradientes se promedian en fp32 y los trozos que guarda cada rango siguen en fp32: el optimizador
# actualiza números de 32 bits. fp16 tiene poco rango: un gradiente pequeño se queda en cero. Por
# eso se **escala la pérdida** (como en la lección 06), con el **`torch.amp.GradScaler` de siempre**.
# Cada rango solo ve su trozo de los gradientes, pero son `DTensor`, y PyTorch reúne entre todos los
# rangos si alguno vio un inf o un NaN (`found_inf_reduce_handler`, en `torch/distributed/tensor`; su
# prueba `test_fully_shard_grad_scaler.py` hace lo mismo que este guion): todos saltan el paso juntos.
# `ShardedGradScaler` es el de FSDP1 (`FullyShardedDataParallel`), no hace falta con `fully_shard`. En
# una GPU se crea con `"cuda"`; aquí, sin GPU, con `"cpu"` (el de `"cuda"` se desactiva solo).
#
# El guion dio 4 pasos y en el último puso un inf **solo en el trozo del rango 0**. Lo que vio cada rango:

# %%
for r in rangos:
    tipos = r["precision_mixta"]
    print(f"rango {r['rango']}: calcula en {tipos['al calcular']}, guarda su trozo en {tipos['guardado (trozo)']} y "
          f"su gradiente en {tipos['gradiente (trozo)']} · {r['escalador']}, escala final {formatear_numero(r['escala'])}")
    print(f"   ¿saltó cada paso? {', '.join('sí' if s else 'no' for s in r['saltos'])} "
          f"(el último, {'con el inf en su trozo' if r['rango'] == 0 else 'sin ningún inf en su trozo'})")

# %% [markdown]
# **¿Y bf16?** No existe en una T4: llega con la capacidad de cómputo 8.0 (A100, L4, H100). Con bf16
# no hace falta escalar la pérdida (tiene el rango de fp32). Esto imprimiría una T4 en las piezas que
# una CPU no tiene: es un **ejemplo armado con fuentes** (la ficha de la T4, la regla de bf16 de PyTorch),
# **no una salida medida** por este curso. En Colab o Kaggle, ejecuta esas mismas líneas y compara:

# %%
print(f"bf16 de verdad desde la capacidad {CAPACIDAD_BF16[0]}.{CAPACIDAD_BF16[1]}")
print("Ejemplo de una T4, sacado de las fuentes de curso_gpu/base/fsdp.py (no medido aquí):")
for codigo, salida in SALIDAS_T4.items():
    print(f">>> {codigo}\n{salida}")
if torch.cuda.is_available():
    print("Aquí:", torch.cuda.get_device_name(0), torch.cuda.get_device_capability(0),
          torch.cuda.is_bf16_supported(including_emulation=False))

# %% [markdown]
# ### 5. Guardar y seguir sin perder nada
#
# Con FSDP ningún proceso tiene el modelo entero: **cada rango escribe su trozo** con
# `torch.distributed.checkpoint` (DCP). El guion guardó así `a_mano.dcp`: un archivo por rango y el
# índice `.metadata`.

# %%
for archivo in sorted((CARPETA / "a_mano.dcp").iterdir()):
    print(f"  {archivo.name:14} {formatear_bytes(archivo.stat().st_size)}")

# %% [markdown]
# **Reshard al cargar.** Lo guardaron 2 procesos; lo cargamos aquí, en un mundo de **uno**
# (`distribuido.iniciar()` fuera de `torchrun`). DCP reparte los trozos entre los procesos que haya
# ahora. ¿Da los mismos pesos que reunió el rango 0?

# %%
import torch.distributed.checkpoint as dcp
from torch.distributed.checkpoint.state_dict import get_model_state_dict, set_model_state_dict

proceso = distribuido.iniciar()  # un mundo de un proceso (gloo, sin red)
try:
    torch.manual_seed(1)  # otros pesos iniciales: lo que cuenta es lo que se carga
    de_uno = distribuido.fragmentar(mlp(), proceso=proceso)
    trozos = {"modelo": get_model_state_dict(de_uno)}
    dcp.load(trozos, checkpoint_id=CARPETA / "a_mano.dcp")
    set_model_state_dict(de_uno, trozos["modelo"])
    recargados = distribuido.pesos_completos(de_uno)
finally:
    distribuido.terminar()
identicos_reparto = all(torch.equal(recargados[k], pesos_fsdp[k]) for k in pesos_fsdp)
print("Guardado con 2 procesos, cargado con 1: ¿pesos idénticos, número a número?", identicos_reparto)

# %% [markdown]
# **Con el paquete, y un `SIGKILL` a mitad.** `python -m curso_gpu.entrenar_ddp --estrategia fsdp`
# (la orden de la lección 08) entrena la CNN de líneas repartida y, con `--checkpoints`, guarda una
# carpeta `checkpoint_epoca_000003.dcp` por época con la disciplina de la lección 05: todos escriben en
# una carpeta temporal; cuando todos terminaron, el rango 0 anota el SHA-256 de cada archivo y la
# renombra (un cambio de nombre es atómico). Un candado impide un segundo entrenamiento en la misma
# carpeta.
#
# Lo lanzamos para muchas épocas y, en cuanto hay dos checkpoints, matamos a `torchrun` con
# `SIGKILL` (como el OOM killer o una desconexión): sin avisar a nadie. Sus trabajadores no se quedan
# huérfanos: cada uno llama a `vigilar_padre()` (lección 08), que pide al sistema un aviso si su
# proceso padre muere y, además, mira cada medio segundo si sigue ahí; si no, el trabajador para.

# %%
ck = CARPETA / "checkpoints"
orden_larga = orden_torchrun(["-m", "curso_gpu.entrenar_ddp", "--estrategia", "fsdp", "--epocas", "100000",
                              "--tamano-lote", "16", "--checkpoints", str(ck), "--silencioso"], procesos=2)
torchrun = subprocess.Popen(orden_larga, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            env={**os.environ, **ENTORNO}, start_new_session=True)
trabajadores: set[int] = set()
try:
    limite = time.monotonic() + 120
    while time.monotonic() < limite and torchrun.poll() is None and len(como_carpeta(ck).archivos()) < 2:
        trabajadores |= descendientes(torchrun.pid)
        time.sleep(0.1)
    trabajadores |= descendientes(torchrun.pid)
    os.kill(torchrun.pid, signal.SIGKILL)  # solo a torchrun: sus trabajadores no reciben nada de él
    torchrun.wait(timeout=10)
    inicio = time.monotonic()
    while any(sigue_vivo(p) for p in trabajadores) and time.monotonic() - inicio < 20:
        time.sleep(0.1)
    print(f"torchrun muerto; sus {len(trabajadores)} procesos pararon solos en {time.monotonic() - inicio:.1f} s "
          f"(vigilar_padre, lección 08). ¿Queda alguno vivo? {any(sigue_vivo(p) for p in trabajadores)}")
finally:  # pase lo que pase, ningún proceso sigue vivo al salir de esta celda
    for pid in [torchrun.pid, *trabajadores]:
        if sigue_vivo(pid):
            os.kill(pid, signal.SIGKILL)
    if torchrun.poll() is None:
        torchrun.wait(timeout=10)
print("En la carpeta:", sorted(p.name for p in ck.iterdir()))

# %% [markdown]
# Solo hay checkpoints completos (y quizá una carpeta temporal `.…tmp` del que se estaba escribiendo:
# se borra al tomar el candado). Cada uno se comprueba archivo a archivo antes de usarlo:

# %%
ultimo = como_carpeta(ck).archivos()[0]
indice = leer_indice(ultimo)
print(f"{ultimo.name}: época {indice['epoca']}, escrito por {indice['fragmentos']['procesos']} procesos, "
      f"archivos con su SHA-256: {sorted(indice['fragmentos']['archivos'])}")

# %% [markdown]
# **Seguir con 1 proceso** (aquí, sin `torchrun`), dos épocas más, con lote 32 (el lote global de
# antes) y `--guardar-pesos`: el mismo archivo de un solo modelo, con su SHA-256, que escribe DDP.
# Es el formato que `cargar_pesos` lee en cualquier lección.

# %%
epoca_final = int(indice["epoca"]) + 2
codigo = entrenar_ddp_main(["--estrategia", "fsdp", "--epocas", str(epoca_final), "--tamano-lote", "32",
                            "--checkpoints", str(ck), "--guardar-pesos", str(CARPETA / "cnn_fsdp.pt")])
print("código de salida:", codigo)

# %% [markdown]
# **Un segundo escritor se rechaza.** Mientras un entrenamiento tiene la carpeta (aquí la tomamos a
# mano con su candado), otro que quiera usarla para con un error, sin tocar nada:

# %%
# El error sale en rojo (stderr), como en una terminal: es lo que esta celda enseña.
antes = sorted(p.name for p in ck.iterdir())
with como_carpeta(ck).candado():
    segundo = entrenar_ddp_main(["--estrategia", "fsdp", "--epocas", str(epoca_final + 1), "--checkpoints", str(ck)])
print("código de salida:", segundo, "· ¿la carpeta sigue igual?", sorted(p.name for p in ck.iterdir()) == antes)

# %%
from curso_gpu.entrenamiento import CNNPequena

cnn = CNNPequena()
pesos_cnn = cargar_pesos(CARPETA / "cnn_fsdp.pt", cnn)  # comprueba su SHA-256 y las formas
print(f"cnn_fsdp.pt: {len(pesos_cnn)} tensores, cargados en una CNNPequena normal (sin FSDP).")

# %% [markdown]
# **Un byte cambiado no pasa.** Si un archivo de un checkpoint cambia en el disco (o en una copia),
# su suma ya no cuadra y el curso lo dice antes de usarlo (y al seguir, usa el anterior sano):

# %%
danado = CARPETA / "danado.dcp"
subprocess.run(["cp", "-r", str(ultimo), str(danado)], check=True)
trozo = next(p for p in danado.iterdir() if p.suffix == ".distcp")
datos = bytearray(trozo.read_bytes())
datos[len(datos) // 2] ^= 0xFF
trozo.write_bytes(bytes(datos))
try:
    leer_indice(danado)
except CheckpointDanado as error:
    print("CheckpointDanado:", error)

# %% [markdown]
# ### 6. Kaggle con 2 × T4, paso a paso
#
# 1. En kaggle.com, **Create › New Notebook**.
# 2. En el panel de la derecha, **Settings › Accelerator › GPU T4 x2**. La cuota de GPU es semanal
#    (la ves en tu perfil) y corre desde que arranca la sesión: apágala al terminar.
# 3. Enciende **Settings › Internet**: sin él, `pip` no llega a GitHub. Kaggle solo lo deja encender
#    si tu cuenta está verificada con un número de teléfono.
# 4. Sube esta lección (o ábrela desde GitHub): su primera celda instala el curso también en Kaggle.
# 5. Escribe el guion de arriba en un archivo y lánzalo **con el mismo código** de esta lección:
#    `orden_torchrun([...], procesos=2)` y `ejecutar(...)`. `iniciar()` ve las dos GPU y elige
#    `nccl`; cada proceso usa la suya (`LOCAL_RANK`). No cambia nada más.
# 6. Lee los `rango_N.json`: `backend` dirá `nccl`, `dispositivo` `cuda:0` y `cuda:1`, y
#    `memoria_gpu` el pico de memoria de cada GPU (`torch.cuda.max_memory_allocated`).
#
# La misma celda que aquí dice «en CPU no hay memoria de GPU»; en Kaggle, los bytes de cada T4,
# junto a lo que dice la calculadora para este MLP (con un modelo tan pequeño pesa el redondeo del
# asignador de CUDA, que reserva en bloques):

# %%
print(f"Kaggle da: {KAGGLE_T4X2['gpus']} × {KAGGLE_T4X2['nombre']} de {formatear_numero(KAGGLE_T4X2['memoria_mib'])} MiB "
      f"en nvidia-smi ({KAGGLE_T4X2['enlace']}); menú {KAGGLE_T4X2['menu']}; Internet: {KAGGLE_T4X2['internet']}")
calculada = memoria_por_gpu(medir_memoria_entrenamiento(mlp(), X[:16], "adam"), 2, "fsdp",
                            unidad_parametros=128 * 128 + 128, bytes_unidad=4)
print(f"La calculadora, por GPU: pico de PyTorch {formatear_bytes(calculada.pico_pytorch)} "
      f"({calculada.momento_pico}; compáralo con max_memory_allocated), más el contexto de CUDA")
for r in rangos:
    if r["memoria_gpu"] is None:
        print(f"rango {r['rango']}: en {r['dispositivo']} no hay memoria de GPU que leer; los trozos ocupan "
              f"{formatear_bytes(r['medido'])}")
    else:
        print(f"rango {r['rango']} en {r['dispositivo']}: pico de {formatear_bytes(r['memoria_gpu'])}; los trozos "  # solo se ejecuta en una GPU real: la memoria de cada GPU
              f"ocupan {formatear_bytes(r['medido'])}")

# %% [markdown]
# Y con el paquete, desde una celda de Kaggle (la barra delante de la orden es de Jupyter):
# `!torchrun --nproc_per_node=2 -m curso_gpu.entrenar_ddp --estrategia fsdp --epocas 30 --checkpoints ck`.

# %% [markdown]
# ## Pruébalo
#
# - Lanza el guion con `procesos=4`. ¿Cuántas filas tiene cada trozo local? ¿Siguen coincidiendo
#   los bytes medidos con `bytes_de_fragmento(mlp(), 4, r)`?
# - Cambia `"16"` por `"8"` en la orden del paso 2 y compara con el bucle de un proceso con lote 16.
# - En el paso 1, prueba `secuencia=1024` o `lote=2` con FSDP en 2 × T4. ¿Sigue cabiendo?
#
# ## Errores comunes
#
# | error | qué pasa (texto de PyTorch) | cómo se arregla |
# |---|---|---|
# | Un modelo que se quedó en `meta` | `fully_shard` lo reparte sin quejarse; el primer `forward` da `RuntimeError: FSDP parameters should be materialized from meta device before training, ...` | reparte en `meta`, después `modelo.to_empty(device=...)` e inicializa los pesos (o créalo en la CPU) |
# | El optimizador creado **antes** de `fully_shard` | ningún error: el optimizador guarda los `Parameter` viejos, el modelo usa `DTensor` nuevos, y los pesos **no cambian nunca** | crea el optimizador después de `fully_shard` |
# | `fully_shard` solo en la raíz | ningún error: todo el modelo es **una** unidad, se reúne entero y no ahorras memoria al calcular | `fully_shard` en cada bloque primero, la raíz al final |
# | Un tutorial de FSDP1 (`FullyShardedDataParallel`) | en una CPU: `RuntimeError: FSDP needs a non-CPU accelerator device, but no accelerator device is detected.`; y FSDP1 no se mezcla con `fully_shard` en un modelo | usa FSDP2, `fully_shard`: corre en CPU y en GPU |
# | Buscar `ShardedGradScaler` para FSDP2 | es de FSDP1; con `fully_shard` no hace falta (paso 4) | `torch.amp.GradScaler` |
# | bf16 en una T4 | no hay bf16 en Tensor Cores (capacidad 7.5): lento o un error | fp16 con escalado de la pérdida |
# | Filas que no se dividen entre los procesos | no es un error: FSDP rellena el último trozo con ceros | cuéntalo: `bytes_de_fragmento` dice cuánto relleno |
# | Seguir una carpeta de DDP con FSDP | los checkpoints de DDP son el modelo entero; los de FSDP, carpetas repartidas | otra carpeta, o la misma estrategia |
#
# Provocados de verdad, con `fully_shard` tal cual, en un mundo de un proceso:

# %%
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.fsdp import FSDPModule, FullyShardedDataParallel, fully_shard

proceso = distribuido.iniciar()
try:
    malla = init_device_mesh(proceso.dispositivo.type, (1,))
    with torch.device("meta"):  # 1. un modelo que se quedó en meta
        en_meta = nn.Linear(8192, 8192)
    fully_shard(en_meta, mesh=malla)
    try:
        en_meta(torch.randn(2, 8192, device=proceso.dispositivo))
    except RuntimeError as error:
        print("1. Modelo en meta → RuntimeError:", str(error).splitlines()[0])
    torch.manual_seed(0)  # 2. el optimizador, antes de fully_shard
    red = mlp().to(proceso.dispositivo)
    optimizador_antes = torch.optim.SGD(red.parameters(), lr=0.1)
    fully_shard(red, mesh=malla)
    antes_del_paso = [p.full_tensor().clone() for p in red.parameters()]
    red(torch.randn(4, 64, device=proceso.dispositivo)).sum().backward()
    optimizador_antes.step()
    cambio = any(not torch.equal(a, p.full_tensor()) for a, p in zip(antes_del_paso, red.parameters()))
    print(f"2. Optimizador creado antes → sin error; ¿cambió algún peso? {'sí' if cambio else 'no'}. El optimizador "
          f"tiene {type(optimizador_antes.param_groups[0]['params'][0]).__name__}; el modelo, "
          f"{type(next(red.parameters())).__name__}")
    unidades = sum(isinstance(m, FSDPModule) for m in red.modules())  # 3. solo en la raíz (la red de arriba)
    print(f"3. fully_shard solo en la raíz → {unidades} unidad con los {formatear_numero(total)} parámetros: se reúne entera")
    try:  # 4. FSDP1
        FullyShardedDataParallel(mlp())
    except RuntimeError as error:
        print("4. FSDP1 en una CPU → RuntimeError:", error)
finally:
    distribuido.terminar()

# %% [markdown]
# Filas que no se dividen: una capa de 5 salidas entre 3 procesos. Cada trozo tiene ⌈5/3⌉ = 2 filas;
# el último solo 1, y FSDP lo rellena con una fila de ceros:

# %%
for r in range(3):
    print(bytes_de_fragmento(nn.Linear(33, 5), 3, r))

# %% [markdown]
# Seguir con FSDP una carpeta de DDP (la orden de la lección 08 escribe archivos `.pt` enteros):

# %%
ck_ddp = CARPETA / "ck_ddp"
entrenar_ddp_main(["--epocas", "1", "--checkpoints", str(ck_ddp), "--silencioso"])
# El error sale en rojo (stderr), como en una terminal: es lo que esta celda enseña.
print("código de salida:", entrenar_ddp_main(["--estrategia", "fsdp", "--epocas", "2", "--checkpoints", str(ck_ddp)]))

# %% [markdown]
# ## Retos
#
# 1. Con `memoria_por_gpu`, ¿cuántas T4 hacen falta para ajustar entero Qwen2.5-7B con FSDP y un
#    lote de 1 × 512 tokens? ¿Y con 8 GPU de 80 GB?
# 2. Cambia el guion para que la última capa no se libere tras su `forward`
#    (`fully_shard(modelo[4], mesh=malla, reshard_after_forward=False)`). ¿Cuántos all-gather cuenta
#    ahora `ContadorComunicacion`? ¿Por qué torchtitan lo hace así?
# 3. Guarda con 2 procesos y sigue con 3 (`orden_torchrun(..., procesos=3)`). ¿Qué trozo tiene cada uno?
# 4. En Kaggle con 2 × T4, compara `memoria_gpu` de cada rango con `memoria_por_gpu` de un MLP más
#    grande (por ejemplo 8 capas de 4096). ¿Cuánto se acerca?
#
# ## Glosario
#
# - **FSDP** (*Fully Sharded Data Parallel*): paralelismo de datos en el que pesos, gradientes y
#   estado del optimizador se reparten entre los procesos. FSDP2 es `fully_shard`.
# - **ZeRO-3**: la misma idea, del artículo de ZeRO (DeepSpeed): repartir los tres. Mueve 3Ψ por paso
#   si todo viaja en fp32 (1.5 veces DDP) y 2Ψ con all-gather en fp16 y reduce-scatter en fp32 (como DDP).
# - **Fragmento / trozo (*shard*)**: la parte de un tensor que guarda un proceso.
# - **`DTensor`**: un tensor repartido entre procesos: forma entera por fuera, trozo local dentro.
# - **All-gather**: cada proceso aporta su trozo y todos reciben el tensor entero.
# - **Reduce-scatter**: se promedian los tensores de todos (en FSDP, `ReduceOp.AVG`) y cada proceso
#   recibe solo su trozo del promedio.
# - **Reshard**: liberar el bloque reunido y quedarse otra vez con el trozo.
# - **Unidad de FSDP**: lo que se reúne de una vez (cada llamada a `fully_shard`).
# - **`MixedPrecisionPolicy`**: en qué tipo se reúne y se calcula (`param_dtype`) y en cuál se promedian los gradientes (`reduce_dtype`).
# - **`torch.amp.GradScaler`**: el escalado de la pérdida de fp16; con `fully_shard` todos los rangos
#   saltan juntos el paso con un inf. `ShardedGradScaler` es el de FSDP1.
# - **`DeviceMesh`**: la malla de procesos entre los que se reparte (`init_device_mesh`).
# - **Raíz**: el módulo sobre el que se llama `fully_shard` al final; lo que no está en ningún bloque.
#   Sigue reunida toda la pasada hacia delante y hacia atrás (`reshard_after_forward=False` por defecto).
# - **Prefetch**: reunir el bloque siguiente mientras se calcula este; hay dos bloques enteros a la vez.
# - **Pico de memoria**: lo más que ocupa una GPU en un paso; es lo que decide si cabe
#   (`memoria_por_gpu`, con sus tres momentos).
# - **DCP** (`torch.distributed.checkpoint`): guarda y carga checkpoints repartidos, con cualquier número de procesos.
# - **Relleno (*padding*)**: los ceros que completan el último trozo cuando las filas no se dividen.

# %%
# Comprobación final: quién cabe en dos T4 según la cuenta (sin medir en una T4) y por qué.
# Ejecútala tras cambiar algo: si deja de ser cierto, falla y dice qué.
# Qwen2.5-1.5B entero, según la cuenta, sin medir en una T4: ni una T4 ni DDP; FSDP tal cual tampoco
# (el temporal de Adam); con foreach=False o CPUOffloadPolicy, sí; checkpointing y secuencias cortas, solos, no.
assert not cabe_una and not cabe_ddp and not cabe_fsdp, "según la cuenta, sin medir en una T4"
assert cabe_con["Adam con foreach=False"] and cabe_con["CPUOffloadPolicy (trozos y Adam en la CPU)"]
assert not cabe_con["activation checkpointing (lección 07)"] and not cabe_con["secuencia de 256 tokens"]
assert medidas["reshard_after_forward=True en la raíz"].total == fsdp.total  # la raíz sigue reunida
assert fsdp.momento_pico == "paso del optimizador" and fsdp.parte("temporal de Adam") == fsdp.parte("pesos")
assert a_mano.bien, a_mano.explicacion()
assert [r["propios"] for r in rangos] == [total // 2] * 2 == [16544] * 2  # cada rango, la mitad
assert [r["escalador"] for r in rangos] == ["GradScaler"] * 2 and [r["saltos"][-1] for r in rangos] == [True, True]
assert not cambio and unidades == 1  # el optimizador creado antes no entrena; solo la raíz: una unidad
assert all(r["medido"] == p.bytes == r["prediccion"] for r, p in zip(rangos, prevision))  # bytes = calculadora
assert c["enviados"] == 1.5 * ddp  # FSDP comunica 1.5 veces lo de DDP
assert diferencia < 1e-5, diferencia  # 2 procesos × lote 16 ≈ 1 proceso × lote 32
assert all(r["precision_mixta"]["al calcular"] == "torch.float16" for r in rangos)
assert all(r["precision_mixta"]["guardado (trozo)"] == r["precision_mixta"]["gradiente (trozo)"] == "torch.float32"
           for r in rangos)
assert identicos_reparto  # guardado con 2, cargado con 1: idénticos
assert codigo == 0 and not [p for p in trabajadores | {torchrun.pid} if sigue_vivo(p)]  # nada huérfano tras SIGKILL
assert segundo == 1 and sorted(p.name for p in ck.iterdir()) == antes  # el segundo escritor, rechazado
assert not [pid for pid in a_mano.procesos if sigue_vivo(pid)]
print("Comprobado: FSDP reparte, cuenta, coincide con un proceso, guarda, sobrevive a un SIGKILL y se sigue con 1 proceso.")
print("Qwen2.5-1.5B entero en 2 × T4 de Kaggle: cabe con FSDP y foreach=False, según la cuenta, sin medir en una T4.")
