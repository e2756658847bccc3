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
# [![Abrir en Colab](https://colab.research.google.com/assets/colab-badge.svg)](https://colab.research.google.com/github/curso-gpu/curso_gpu/blob/main/notebooks/07_memoria_entrenamiento.ipynb)
#
# # Lección 07 — Memoria al entrenar: activaciones, tamaño de lote y «CUDA out of memory»

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
# - Las **cuatro partes** de la memoria al entrenar: pesos, gradientes, estados del optimizador
#   y **activaciones**. Y por qué unos dicen 16 bytes por parámetro y otros 18.
# - A **medir** las activaciones de un modelo de verdad, sin GPU, con `saved_tensors_hooks`.
# - Por qué crecen **con el lote** (en línea recta) y, en la atención clásica, **con el cuadrado** del texto.
# - A leer el mensaje **`CUDA out of memory`** y a recuperarte de él sin reiniciar.
# - Los remedios, cada uno medido: **acumular gradientes**, ***activation checkpointing***,
#   precisión mixta, `zero_grad(set_to_none=True)` y `torch.no_grad()`.
# - Las herramientas de la GPU: `max_memory_allocated`, `memory_summary` y la foto de la memoria.
#
# ## Por qué importa
#
# En la lección 04 contaste los pesos: un modelo «cabe» si caben sus pesos. Pero al entrenar,
# el error llega con el primer lote: `CUDA out of memory`. La culpa casi nunca es de los pesos,
# sino de las **activaciones**, que crecen con el tamaño del lote y con la longitud del texto.
# Saber cuánto ocupan **antes** de lanzar el entrenamiento te ahorra horas de prueba y error.
#
# No necesitas una GPU: todo se mide en la CPU, y las celdas de GPU te dicen qué verías en una T4.

# %%
import gc
import time

import torch
from torch import nn

from curso_gpu import graficos
from curso_gpu.memoria import lote_maximo, medir_memoria_entrenamiento
from curso_gpu.entrenamiento import CNNPequena, GPT2Pequeno
from curso_gpu.dispositivo import simulacion_activa

torch.manual_seed(0)
print("PyTorch", torch.__version__)

# %% [markdown]
# ## La idea clave: cuatro partes
#
# Durante un paso de entrenamiento conviven en memoria:
#
# | parte | cuánto ocupa | ¿depende del lote? |
# |---|---|---|
# | **pesos** | parámetros × bytes de su precisión | no |
# | **gradientes** | uno por parámetro entrenable | no |
# | **optimizador** | Adam: 2 números por parámetro; SGD con momento: 1; SGD: 0 | no |
# | **activaciones** | lo que la pasada hacia delante guarda para la de atrás | **sí** |
#
# Además hay búferes temporales de cada operación y el **contexto de CUDA** (en una T4, 100 MiB o más).
#
# ### ¿16 o 18 bytes por parámetro?
#
# Con Adam y **precisión mixta** circulan dos reglas. Las dos son correctas; cuentan cosas distintas:
#
# | qué se guarda | ZeRO (Rajbhandari et al., 2020) | Hugging Face, «Model memory anatomy» |
# |---|---|---|
# | pesos en 16 bits | 2 | 2 |
# | copia de los pesos en fp32 | 4 (dentro del optimizador) | 4 |
# | gradientes | 2 (en 16 bits) | 4 (en fp32) |
# | Adam: media y media de los cuadrados (fp32) | 4 + 4 | 4 + 4 |
# | **total** | **16** | **18** |
#
# - **16** (el artículo de ZeRO, «ZeRO: Memory Optimizations Toward Training Trillion Parameter
#   Models», SC 2020): el modelo vive en fp16 con sus gradientes en fp16, y el optimizador guarda
#   la copia maestra en fp32. Es el esquema de DeepSpeed y Megatron, y la regla de la lección 04.
# - **18** (la guía «Model memory anatomy» de la documentación de Transformers): el modelo vive en
#   fp32, con sus gradientes en fp32, y se hace una copia en 16 bits para calcular. Es lo que pasa
#   con `torch.autocast` de PyTorch, lo que verás medido aquí abajo.
#
# En fp32 puro (sin precisión mixta) son 4 + 4 + 8 = **16** bytes, sin copias. Y ninguna de las
# dos reglas incluye las activaciones.

# %% [markdown]
# ## Paso a paso
#
# ### 1. Las activaciones, a mano: qué guarda autograd
#
# Para calcular los gradientes, cada operación **guarda** algunos tensores durante la pasada hacia
# delante: una capa lineal guarda su entrada; una ReLU, su salida. PyTorch deja ver cada uno con
# `torch.autograd.graph.saved_tensors_hooks`: una función que se llama con cada tensor guardado.

# %%
mlp = nn.Sequential(nn.Linear(10, 20), nn.ReLU(), nn.Linear(20, 3))
x = torch.randn(5, 10)                      # un lote de 5 ejemplos

guardados = []

def al_guardar(tensor):                      # se llama con cada tensor que autograd guarda
    guardados.append(tensor)
    return tensor

with torch.autograd.graph.saved_tensors_hooks(al_guardar, lambda t: t):
    salida = mlp(x)

for t in guardados:
    es_parametro = any(t.untyped_storage()._cdata == p.untyped_storage()._cdata for p in mlp.parameters())
    print(f"{str(tuple(t.shape)):>9}  {t.numel() * t.element_size():>4} bytes"
          f"{'  (un peso: ya estaba en memoria)' if es_parametro else ''}")

# %% [markdown]
# Cuatro tensores guardados, pero no todos son memoria nueva:
#
# - la salida de la ReLU aparece **dos veces** (la guarda la ReLU y la guarda la segunda capa):
#   es el mismo almacenamiento (*storage*), se cuenta una vez;
# - la matriz de pesos es un **parámetro** guardado por referencia: ya estaba contado en los pesos.
#
# Quedan la entrada (5×10), la salida de la ReLU (5×20) y la salida del modelo (5×3), que vive hasta
# calcular la pérdida: 4 × 5 × (10 + 20 + 3) = **660 bytes**. `medir_memoria_entrenamiento` hace
# exactamente esta cuenta, y suma pesos, gradientes y optimizador:

# %%
desglose = medir_memoria_entrenamiento(mlp, x, optimizador="adam")
print(f"Activaciones: {desglose.activaciones} bytes (a mano: {4 * 5 * (10 + 20 + 3)})")
desglose

# %% [markdown]
# 16 bytes por parámetro: pesos (4), gradientes (4) y los dos estados de Adam (8), todo en fp32.
#
# ### 2. Un modelo de verdad: la CNN de la lección 05
#
# La misma CNN de líneas, con lotes de 32, 128 y 512 imágenes. Los pesos, los gradientes y Adam
# no cambian; las activaciones crecen con el lote:

# %%
cnn = CNNPequena()
desgloses_cnn = [medir_memoria_entrenamiento(cnn, torch.rand(lote, 1, 8, 8)) for lote in (32, 128, 512)]
for d in desgloses_cnn:
    print(f"lote {d.lote:>4}: pesos+gradientes+Adam {(d.total - d.activaciones) / 1e3:6.1f} kB · "
          f"activaciones {d.activaciones / 1e6:6.2f} MB")
graficos.grafico_memoria_entrenamiento(desgloses_cnn, titulo="CNN de la lección 05");
grande = desgloses_cnn[-1]
print(f"Con {grande.lote} imágenes, las activaciones pesan {grande.activaciones / (grande.total - grande.activaciones):.0f} "
      f"veces lo que el modelo con sus gradientes y Adam, y {grande.activaciones / grande.pesos:.0f} veces "
      "lo que los pesos solos.")

# %% [markdown]
# En un modelo tan pequeño, las activaciones lo son casi todo: con 512 imágenes pesan decenas de
# veces lo que el modelo con sus gradientes y Adam, y cientos de veces lo que los pesos solos
# (la celda de arriba da las dos cifras).
#
# ### 3. El GPT-2 de la lección 04
#
# `GPT2Pequeno` es el Transformer de la lección 04 (ahora en `curso_gpu.entrenamiento`). En la CPU lo
# medimos **reducido** (vocabulario de 1 000, 4 capas de 128): la forma es la misma, y tarda
# un instante.

# %%
GPT_REDUCIDO = dict(vocabulario=1000, contexto=1024, dimension=128, capas=4, cabezas=4)
gpt = GPT2Pequeno(**GPT_REDUCIDO)
desgloses_gpt = [medir_memoria_entrenamiento(gpt, torch.randint(0, 1000, (lote, 128))) for lote in (2, 4, 8, 16)]
graficos.grafico_memoria_entrenamiento(desgloses_gpt, titulo="GPT-2 reducido, 128 tokens por ejemplo");

# %% [markdown]
# ¿Y el **GPT-2 pequeño de verdad** (124 millones de parámetros), con lotes de 8 textos de
# 1 024 tokens? Construido en el dispositivo **`meta`** (tensores con forma pero sin datos), se
# mide sin ocupar memoria: la pasada hacia delante solo calcula formas.

# %%
with torch.device("meta"):
    gpt2 = GPT2Pequeno()                     # 124M parámetros, 0 bytes de RAM
ids_largos = torch.randint(0, 50257, (8, 1024))
print(medir_memoria_entrenamiento(gpt2, ids_largos))

# %% [markdown]
# Los pesos, los gradientes y Adam suman 2 GB (16 bytes por parámetro); las activaciones de solo
# 8 textos, **más de 6 GB**: tres veces más. ¿Qué lote cabe en los unos 15 GB que deja libres una T4
# (los 15.8 GB que ve PyTorch, menos el contexto de CUDA; la lección 01 cuenta cada cifra)? Con
# precisión mixta en **fp16**: la T4 no tiene bf16 nativo (lección 06), y `entrenar` lo rechaza en ella.
# `lote_maximo` lo calcula con las activaciones medidas de un ejemplo (deja margen: la medida no
# incluye la función de pérdida, y `cross_entropy` guarda otra matriz del tamaño de la salida,
# 8 × 1 024 × 50 257 números: 1.6 GB en fp32):

# %%
T4_LIBRES = 15 * 10**9
for precision in ("fp32", "fp16"):
    lote = lote_maximo(gpt2, ids_largos, "cuda", memoria_bytes=T4_LIBRES, precision=precision)
    print(f"GPT-2 pequeño, 1 024 tokens, {precision}: lote máximo en una T4 ≈ {lote}")

# %% [markdown]
# En `meta` no existe `torch.autocast`: en fp16 la cifra es una aproximación (cuenta los números
# de 32 bits a 2 bytes). En la CPU o en la GPU se mide con autocast de verdad.
#
# ### 4. El lote crece en línea recta; el texto, a veces al cuadrado
#
# Doblar el lote dobla las activaciones: cada ejemplo guarda lo suyo.

# %%
for d in desgloses_gpt:
    print(f"lote {d.lote:>2}: activaciones {d.activaciones / 1e6:6.1f} MB  "
          f"({d.activaciones / desgloses_gpt[0].activaciones:.0f} × las del lote 2)")

# %% [markdown]
# Con la longitud del texto depende de la **atención**. La atención clásica calcula, por cada
# cabeza, una matriz de s × s (cada token con cada token) y la guarda para la pasada hacia atrás:
# doblar el texto cuadruplica esa parte. Así, en PyTorch puro:

# %%
class AtencionClasica(nn.Module):
    """Una cabeza de atención como en el artículo original: guarda la matriz s × s."""

    def __init__(self, dimension):
        super().__init__()
        self.qkv = nn.Linear(dimension, 3 * dimension)

    def forward(self, x):                                   # x: [lote, s, dimension]
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        pesos = torch.softmax(q @ k.transpose(1, 2) / x.shape[-1] ** 0.5, dim=-1)   # [lote, s, s]
        return pesos @ v


clasica = AtencionClasica(16)
print(f"{'tokens':>6}  {'atención clásica':>17}  {'GPT-2 (scaled_dot_product_attention)':>36}")
longitudes, memoria_clasica, memoria_fusionada = [128, 256, 512, 1024], [], []
for s in longitudes:
    memoria_clasica.append(medir_memoria_entrenamiento(clasica, torch.randn(2, s, 16)).activaciones / 1e6)
    memoria_fusionada.append(medir_memoria_entrenamiento(gpt, torch.randint(0, 1000, (2, s))).activaciones / 1e6)
    print(f"{s:>6}  {memoria_clasica[-1]:>14.2f} MB  {memoria_fusionada[-1]:>33.2f} MB")

# %%
import matplotlib.pyplot as plt

figura, ax = plt.subplots(figsize=(6, 3.5))
ax.plot(longitudes, memoria_clasica, "o-", label="una cabeza de atención clásica (guarda s × s)")
ax.plot(longitudes, memoria_fusionada, "s--", label="GPT-2 reducido entero (scaled_dot_product_attention)")
ax.set_xscale("log", base=2)  # log-log: una recta de pendiente 2 sube ×4 al doblar s; de pendiente 1, ×2
ax.set_yscale("log", base=2)
ax.set_xticks(longitudes, [str(s) for s in longitudes])
ax.set_xlabel("tokens por ejemplo (s)")
ax.set_ylabel("activaciones (MB, escala log)")
ax.set_title("Doblar el texto: ×4 con la atención clásica, ×2 con la fusionada")
ax.legend()
figura.tight_layout()
for nombre, serie in (("atención clásica", memoria_clasica), ("GPT-2 reducido", memoria_fusionada)):
    factores = [b / a for a, b in zip(serie, serie[1:])]
    print(f"{nombre}: al doblar s, las activaciones se multiplican por "
          + ", ".join(f"{f:.1f}" for f in factores))

# %% [markdown]
# En escala log-log, una curva que crece como s² es una recta con el doble de pendiente que una
# que crece como s. Las dos series son los MB reales (una cabeza sola frente al GPT-2 entero, por
# eso empiezan a alturas distintas); lo que importa es la pendiente. La atención clásica sube como
# s²; la del GPT-2, en línea recta. ¿Por qué? `nn.TransformerEncoder`
# usa `F.scaled_dot_product_attention`, que en CPU y en GPU elige una atención **fusionada**
# (*FlashAttention* o la «eficiente en memoria»): no guarda la matriz s × s, la vuelve a calcular
# en la pasada hacia atrás. La matriz sigue existiendo un instante, por bloques, pero no se guarda.
#
# ### 5. «CUDA out of memory»: qué dice el mensaje
#
# Cuando una reserva no cabe, PyTorch lanza `torch.OutOfMemoryError` con este texto (copiado de
# las cadenas de la biblioteca de CUDA de PyTorch, `libc10_cuda.so`; aquí con las cifras de una T4):

# %%
from curso_gpu.base import mensaje_sin_memoria

print(mensaje_sin_memoria(pedido=768 * 2**20, total=15_835_660_288, libre=412 * 2**20,
                          asignada=13_900 * 2**20, reservada=14_300 * 2**20, proceso=16497))

# %% [markdown]
# Léelo por partes:
#
# - **Tried to allocate 768.00 MiB**: lo que pedía la operación que falló (no lo que te falta en total).
# - **total capacity … of which … is free**: la memoria de la GPU y la que queda libre según el driver.
# - **Process 16497 has … memory in use**: todo lo de tu proceso, contexto de CUDA incluido. En Colab
#   sale así, con un número que no es el de tu Python (`os.getpid()`): el driver ve el proceso desde
#   fuera del contenedor. En tu propia máquina dice «Including non-PyTorch memory, this process has …».
# - **allocated by PyTorch**: la que ocupan tus tensores ahora (`torch.cuda.memory_allocated()`).
# - **reserved by PyTorch but unallocated**: la que PyTorch guarda en su **caché** para reutilizarla
#   (`memory_reserved() - memory_allocated()`). PyTorch no devuelve la memoria al driver cuando
#   borras un tensor: la guarda, porque pedirla otra vez es lento.
# - Si esa parte reservada es grande y aun así no cabe, la memoria está **fragmentada**: hay huecos
#   libres, pero ninguno del tamaño pedido. Lo arregla
#   `PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True`, que deja crecer los bloques en vez de
#   crear otros nuevos. Se lee al reservar memoria en la GPU por primera vez: lo seguro es ponerla
#   **antes** de importar torch (o antes de lanzar Python):
#
# ```python
# import os
# os.environ["PYTORCH_CUDA_ALLOC_CONF"] = "expandable_segments:True"
# import torch
# ```
#
# En una GPU puedes ver cada parte con `torch.cuda`: borra un tensor y su memoria pasa a la caché
# («reservada pero sin usar») hasta `torch.cuda.empty_cache()`; lo que `mem_get_info` da por
# ocupado y PyTorch no tiene reservado es el contexto de CUDA.

# %%
if torch.cuda.is_available():
    temporal = torch.empty(3 * 2**20, dtype=torch.uint8, device="cuda")  # 3 MiB
    del temporal
    libre, total = torch.cuda.mem_get_info()
    asignada, reservada = torch.cuda.memory_allocated(), torch.cuda.memory_reserved()
    print(f"Asignada (tensores vivos):          {asignada / 2**20:8.2f} MiB")
    print(f"Reservada pero sin usar (la caché): {(reservada - asignada) / 2**20:8.2f} MiB")
    print(f"Fuera de PyTorch (contexto de CUDA): {(total - libre - reservada) / 2**20:7.0f} MiB")
    torch.cuda.empty_cache()
    print(f"Tras empty_cache(), reservada:      {torch.cuda.memory_reserved() / 2**20:8.2f} MiB")
else:
    print("Sin GPU: en una T4 verías la caché que deja un tensor borrado y unos 100 MiB de contexto de CUDA.")

# %% [markdown]
# ### 6. Recuperarse sin reiniciar
#
# El patrón en PyTorch puro: capturar `torch.OutOfMemoryError`, **soltar** todo lo que apunta a
# los tensores del intento fallido (`del`, `gc.collect()`), devolver la caché
# (`torch.cuda.empty_cache()`) y probar con un lote menor. La limpieza va **fuera** del `except`:
# dentro, la excepción aún guarda referencias a los tensores del intento.
#
# En la CPU no hay un límite de VRAM, así que lo simulamos: un presupuesto de 2 MB, comprobado
# con la memoria medida del paso. En una GPU, el `raise` lo haría PyTorch.

# %%
PRESUPUESTO = 2 * 10**6                          # imagina una GPU con solo 2 MB libres
modelo = CNNPequena()
optimizador = torch.optim.Adam(modelo.parameters(), lr=0.01)
criterio = nn.CrossEntropyLoss()


def paso_de_entrenamiento(lote):
    X = torch.rand(lote, 1, 8, 8)
    y = torch.randint(0, 3, (lote,))
    necesaria = medir_memoria_entrenamiento(modelo, X).total      # en una GPU no haría falta
    if necesaria > PRESUPUESTO:
        raise torch.OutOfMemoryError(f"CUDA out of memory. Tried to allocate {necesaria} bytes (simulado)")
    perdida = criterio(modelo(X), y)
    optimizador.zero_grad(set_to_none=True)
    perdida.backward()
    optimizador.step()


lote = 4096
while lote >= 1:
    sin_memoria = False
    try:
        paso_de_entrenamiento(lote)
    except torch.OutOfMemoryError:
        sin_memoria = True
    if not sin_memoria:
        print(f"lote {lote}: cabe")
        break
    print(f"lote {lote}: sin memoria → libero y pruebo con {lote // 2}")
    optimizador.zero_grad(set_to_none=True)
    gc.collect()
    if torch.cuda.is_available():
        torch.cuda.empty_cache()
    lote //= 2

# %% [markdown]
# `lote_maximo` hace la misma búsqueda sin tanteos: con el presupuesto, la calcula a partir de
# las activaciones medidas de un ejemplo; en una GPU (sin `memoria_bytes`), la **prueba** con pasos
# reales, doblando el lote y afinando, y deja la memoria como estaba. Entre 256 y 512, el exacto:

# %%
print("Lote máximo con 2 MB:", lote_maximo(modelo, (1, 8, 8), "cpu", memoria_bytes=PRESUPUESTO))

# %% [markdown]
# En una GPU puedes provocar un error real limitando la memoria del proceso con
# `torch.cuda.set_per_process_memory_fraction`. La T4 simulada (`CURSO_GPU_SIMULAR=T4`) hace lo
# mismo: mira cada reserva **antes** de hacerla y, si no cabe, lanza `torch.OutOfMemoryError` con
# el texto de CUDA. Sin GPU, esta celda solo lo explica:

# %%
if torch.cuda.is_available():
    total = torch.cuda.get_device_properties(0).total_memory
    torch.cuda.set_per_process_memory_fraction(0.1)          # este proceso: solo el 10 %
    enorme = None
    try:
        enorme = torch.empty(int(0.2 * total), dtype=torch.uint8, device="cuda")
    except torch.OutOfMemoryError as error:
        print(str(error)[:300], "…")
    finally:
        del enorme
        torch.cuda.set_per_process_memory_fraction(1.0)
        torch.cuda.empty_cache()
    # La T4 simulada calcula cada lote en la CPU: allí probamos hasta 2 048 (en una GPU, hasta 65 536).
    hasta, donde = (2048, "En la T4 simulada") if simulacion_activa() else (65_536, "En la GPU de verdad")
    print(f"{donde}, probando hasta {hasta}:", lote_maximo(modelo.to("cuda"), (1, 8, 8), "cuda", maximo=hasta))
    modelo.to("cpu")
else:
    print("Sin GPU: en una T4 verías el mensaje de arriba y el lote máximo probado de verdad.")

# %% [markdown]
# ### 7. Los remedios, medidos
#
# #### Lotes pequeños y **acumulación de gradientes**
#
# Si el lote de 32 no cabe, usa micro-lotes de 8 y **suma** sus gradientes cuatro veces antes de
# dar el paso: el resultado es el mismo que con 32, con la memoria de activaciones de 8.
# En PyTorch puro, cada micro-lote pesa lo que sus ejemplos en el grupo:
#
# ```python
# optimizador.zero_grad(set_to_none=True)
# for i, (xb, yb) in enumerate(micro_lotes):            # 4 micro-lotes de 8
#     perdida = criterio(modelo(xb), yb) * len(xb) / 32  # cada uno, su parte de los 32
#     perdida.backward()                                 # los gradientes se SUMAN en .grad
# optimizador.step()
# ```
#
# `entrenar(..., tamano_lote=8, acumular=4)` lo hace por ti (también el último grupo, si los datos
# no son múltiplo de 32). Comprobémoslo con la CNN:

# %%
from curso_gpu.entrenamiento import generar_dataset
from curso_gpu.entrenamiento import entrenar

datos = generar_dataset(40, semilla=1)            # 120 imágenes: 3 lotes de 32 y uno de 24
validacion = generar_dataset(10, semilla=2)
resultados = {}
for lote, acumular in ((32, 1), (8, 4)):
    torch.manual_seed(0)
    red = CNNPequena()
    entrenar(red, datos, validacion, "cpu", epocas=3, tamano_lote=lote, acumular=acumular, semilla=1, silencioso=True)
    resultados[(lote, acumular)] = red

diferencia = max((a - b).abs().max().item() for a, b in
                 zip(resultados[(32, 1)].parameters(), resultados[(8, 4)].parameters()))
print(f"Mayor diferencia entre los pesos: {diferencia:.1e} (redondeo de coma flotante)")
activaciones = {b: medir_memoria_entrenamiento(red, datos[0][:b]).activaciones for b in (8, 32)}
print(f"Activaciones: lote de 32 → {activaciones[32] / 1e3:.0f} kB; micro-lote de 8 → {activaciones[8] / 1e3:.0f} kB")

# %% [markdown]
# #### *Activation checkpointing*: menos memoria a cambio de tiempo
#
# `torch.utils.checkpoint.checkpoint(capa, x, use_reentrant=False)` **no guarda** las activaciones
# de dentro de la capa: solo su entrada. En la pasada hacia atrás, la vuelve a calcular.
# (`use_reentrant=False` es la versión recomendada por PyTorch.) Un GPT-2 con cada bloque así:

# %%
from torch.utils.checkpoint import checkpoint


class GPT2ConCheckpoint(GPT2Pequeno):
    def forward(self, ids):
        n = ids.shape[1]
        x = self.tokens(ids) + self.posiciones(torch.arange(n, device=ids.device))
        causal = nn.Transformer.generate_square_subsequent_mask(n, device=ids.device)
        for bloque in self.bloques.layers:        # cada bloque: se recalcula al ir hacia atrás
            x = checkpoint(bloque, x, src_mask=causal, is_causal=True, use_reentrant=False)
        return self.salida(self.norma_final(x))


gpt_ck = GPT2ConCheckpoint(**GPT_REDUCIDO)
gpt_ck.load_state_dict(gpt.state_dict())
ids = torch.randint(0, 1000, (4, 128))


from curso_gpu.medicion import comparar_tiempos, formatear_veces


def un_paso(m):
    m(ids).float().mean().backward()
    m.zero_grad(set_to_none=True)


sin_ck, con_ck = medir_memoria_entrenamiento(gpt, ids), medir_memoria_entrenamiento(gpt_ck, ids)
tiempo = comparar_tiempos(lambda: un_paso(gpt), lambda: un_paso(gpt_ck), nombres=("sin checkpointing", "con checkpointing"),
                          repeticiones=5, presupuesto_s=None, descripcion="un paso del GPT-2 reducido")
bajo, alto = tiempo.intervalo_razon
print(f"sin checkpointing: activaciones {sin_ck.activaciones / 1e6:5.1f} MB · {tiempo.mediana_a * 1e3:4.0f} ms por paso")
print(f"con checkpointing: activaciones {con_ck.activaciones / 1e6:5.1f} MB · {tiempo.mediana_b * 1e3:4.0f} ms por paso")
print(f"→ {100 * (1 - con_ck.activaciones / sin_ck.activaciones):.0f} % menos memoria; con checkpointing, cada paso "
      f"tardó {100 * (1 / tiempo.razon - 1):+.0f} % (intervalo del 95 %: {100 * (1 / alto - 1):+.0f} % a "
      f"{100 * (1 / bajo - 1):+.0f} %)")
print(tiempo.veredicto)
entradas_de_bloques = len(gpt_ck.bloques.layers) * ids.numel() * GPT_REDUCIDO["dimension"] * 4
print(f"(más {entradas_de_bloques / 1e6:.1f} MB: la entrada de cada bloque, que checkpoint guarda aparte)")

# %% [markdown]
# Lo que queda son la salida (una puntuación por token y palabra del vocabulario) y lo de fuera de
# los bloques. La entrada de cada bloque, que `checkpoint` guarda para recalcular, no pasa por
# `saved_tensors_hooks`: la medida no la ve, y la sumamos a mano. El precio es una pasada hacia
# delante extra de los bloques: como la de atrás cuesta unas dos de delante, en una GPU un paso
# tarda como mucho un 33 % más (menos si parte del trabajo queda fuera de los bloques, como aquí
# la capa de salida). En una CPU ocupada el porcentaje medido arriba puede salir bastante
# mayor o menor: por eso lleva su intervalo.
#
# #### Precisión mixta (lección 06)
#
# Con `torch.autocast` en bf16 o fp16, las activaciones de las operaciones grandes se guardan en
# 16 bits. Los pesos, los gradientes y Adam siguen en fp32, y se suma la copia de 16 bits de los pesos:

# %%
for precision in ("fp32", "bf16"):
    d = medir_memoria_entrenamiento(gpt, ids, precision=precision)
    print(f"{precision}: activaciones {d.activaciones / 1e6:5.1f} MB · pesos {d.pesos / 1e6:4.2f} MB "
          f"· {d.bytes_por_parametro:.1f} bytes por parámetro sin activaciones")

# %% [markdown]
# Ahí están los 18 bytes de Hugging Face (algo menos: la tabla de tokens no se copia a 16 bits).
#
# #### `zero_grad(set_to_none=True)` y `torch.no_grad()`
#
# - `optimizador.zero_grad(set_to_none=True)` (lo que hace PyTorch por defecto desde la 2.0)
#   **borra** los gradientes en vez de llenarlos de ceros: esa memoria queda libre hasta el
#   siguiente `backward()`.
# - Para **evaluar**, `torch.no_grad()`: sin gradientes, autograd no guarda nada.

# %%
with torch.no_grad():
    guardados.clear()
    with torch.autograd.graph.saved_tensors_hooks(al_guardar, lambda t: t):
        gpt(ids)
print("Tensores guardados al evaluar con no_grad():", len(guardados))

optimizador_gpt = torch.optim.SGD(gpt.parameters(), lr=0.0)
gpt(ids).float().mean().backward()
print("Tras backward(), ¿hay gradientes?", gpt.tokens.weight.grad is not None)
optimizador_gpt.zero_grad(set_to_none=True)
print("Tras zero_grad(set_to_none=True):", gpt.tokens.weight.grad)

# %% [markdown]
# #### Dos remedios más, para más adelante
#
# - **Optimizadores de 8 bits** (por ejemplo, `bitsandbytes.optim.Adam8bit`): guardan los dos
#   estados de Adam en 8 bits, 2 bytes por parámetro en vez de 8.
# - **LoRA** (lecciones 04 y 09): congela el modelo y entrena matrices pequeñas: casi no hay
#   gradientes ni estados de Adam. `medir_memoria_entrenamiento` lo ve: un parámetro con
#   `requires_grad=False` no suma gradientes ni optimizador.
#
# ### 8. En una GPU: las herramientas de PyTorch
#
# En una GPU, el asignador de PyTorch lleva la cuenta de todo:
#
# - `torch.cuda.max_memory_allocated()`: el **pico** de memoria de los tensores desde el último
#   `torch.cuda.reset_peak_memory_stats()`. Es la cifra que compara `medir_memoria_entrenamiento`.
# - `torch.cuda.memory_summary()`: un informe con lo asignado, lo reservado y la fragmentación.
# - `torch.cuda.memory._record_memory_history()` y `torch.cuda.memory._dump_snapshot("foto.pickle")`:
#   graban cada reserva con la línea de código que la hizo. Arrastra el archivo a
#   <https://pytorch.org/memory_viz> y verás la memoria en el tiempo, capa a capa.

# %%
if torch.cuda.is_available():
    gpu = torch.device("cuda")
    red = GPT2Pequeno(**GPT_REDUCIDO).to(gpu)
    adam = torch.optim.Adam(red.parameters())
    ids_gpu = ids.to(gpu)
    grabar = not simulacion_activa()  # la T4 simulada cuenta los bytes, pero no graba su historia
    if grabar:
        torch.cuda.memory._record_memory_history(max_entries=100_000)  # solo se ejecuta en una GPU real: la graba el asignador de CUDA
    torch.cuda.reset_peak_memory_stats()
    for _ in range(2):                            # el segundo paso ya tiene los estados de Adam
        red(ids_gpu).float().mean().backward()
        adam.step()
        adam.zero_grad(set_to_none=True)
    torch.cuda.synchronize()
    print(f"Pico medido: {torch.cuda.max_memory_allocated() / 1e6:.1f} MB · "
          f"estimado: {medir_memoria_entrenamiento(red, ids_gpu).total / 1e6:.1f} MB")
    if grabar:
        torch.cuda.memory._dump_snapshot("foto_memoria.pickle")  # solo se ejecuta en una GPU real: la escribe el asignador de CUDA
        torch.cuda.memory._record_memory_history(enabled=None)  # solo se ejecuta en una GPU real: deja de grabar
    print(torch.cuda.memory_summary(abbreviated=True)[:1500])
    print("Arrastra foto_memoria.pickle a https://pytorch.org/memory_viz" if grabar else
          "La T4 simulada no graba la historia de la memoria: en Colab, esta celda deja foto_memoria.pickle.")
else:
    print("Sin GPU: en una T4 verías el pico de memoria, el informe del asignador y la foto para memory_viz.")

# %% [markdown]
# ## Pruébalo
#
# - Cambia `GPT_REDUCIDO` (más capas, más `dimension`) y mira qué parte del gráfico crece.
# - Mide la CNN con `optimizador="sgd"` y con `"sgd_momento"`: ¿cuánto baja la parte del optimizador?
# - Con el GPT-2 en `meta`, busca el lote máximo para una GPU de 24 GB y 512 tokens.
#
# ## Errores comunes
#
# | error | qué pasa | cómo se arregla |
# |---|---|---|
# | Contar solo los pesos | `CUDA out of memory` en el primer lote | mide las activaciones: `medir_memoria_entrenamiento` |
# | Evaluar sin `torch.no_grad()` | la validación gasta tanta memoria como entrenar | `with torch.no_grad():` (y `modelo.eval()`) |
# | Guardar la pérdida con su grafo (`historial.append(perdida)`) | la memoria sube en cada paso | guarda `perdida.item()` |
# | Reintentar dentro del `except` | la memoria del intento fallido sigue ocupada | libera fuera del `except`: `del`, `gc.collect()`, `empty_cache()` |
# | Acumular sin escalar la pérdida | gradientes k veces más grandes | multiplica cada pérdida por su parte del grupo |
# | Mirar `nvidia-smi` para saber lo que ocupan tus tensores | incluye la caché y el contexto | `torch.cuda.memory_allocated()` |
#
# Y los errores del paquete, en español y con el arreglo:

# %%
try:
    medir_memoria_entrenamiento(cnn, torch.rand(4, 8, 8))        # falta el canal: [N, 1, 8, 8]
except ValueError as error:
    print(error)
try:
    lote_maximo(cnn, (1, 8, 8), "cpu", memoria_bytes=10_000)     # no cabe ni un ejemplo
except ValueError as error:
    print(error)

# %% [markdown]
# ## Retos
#
# 1. Con la CNN, ¿a partir de qué lote las activaciones pesan más que los pesos, los gradientes y Adam juntos?
# 2. Mide el GPT-2 reducido con 64, 128 y 256 tokens. Cambia `AtencionClasica` por
#    `F.scaled_dot_product_attention` (`torch.nn.functional`) y repite: ¿sigue creciendo al cuadrado?
# 3. Pon `checkpoint` solo en la mitad de los bloques. ¿Cuánta memoria ahorras y cuánto tiempo pagas?
# 4. Entrena la CNN con `tamano_lote=8, acumular=4` y con `tamano_lote=32` durante 30 épocas. ¿Siguen iguales los pesos?
# 5. En Colab con una T4: compara `medir_memoria_entrenamiento(...).total` con `max_memory_allocated()` para
#    el GPT-2 reducido. ¿Qué diferencia hay y de dónde sale?
#
# ## Glosario
#
# - **Activaciones**: los resultados intermedios que la pasada hacia delante guarda para calcular los gradientes.
# - **Estados del optimizador**: lo que el optimizador recuerda por parámetro (Adam: dos medias).
# - **Precisión mixta**: calcular en 16 bits y guardar los pesos en fp32 (`torch.autocast`).
# - **`saved_tensors_hooks`**: funciones que PyTorch llama con cada tensor que autograd guarda.
# - **Almacenamiento (*storage*)**: la memoria de verdad de un tensor; sus vistas la comparten.
# - **Memoria asignada / reservada**: la de los tensores vivos / la que PyTorch tiene pedida a CUDA (con su caché).
# - **Fragmentación**: memoria libre en huecos pequeños, que no sirven para una reserva grande.
# - **Acumulación de gradientes**: sumar los gradientes de varios micro-lotes antes de cada paso.
# - ***Activation checkpointing***: no guardar activaciones y recalcularlas en la pasada hacia atrás.
# - **Atención fusionada (*FlashAttention*)**: la que calcula la atención por bloques sin guardar la matriz s × s.
# - **`torch.OutOfMemoryError`**: la excepción de PyTorch cuando una reserva de memoria no cabe.

# %%
# Comprobación final: las activaciones medidas, acumular gradientes y el activation checkpointing.
# Ejecútala tras cambiar algo: si deja de ser cierto, falla y dice qué.
assert desglose.activaciones == 660  # las activaciones del MLP, medidas, igual que a mano
assert grande.activaciones > 50 * (grande.pesos + grande.gradientes + grande.optimizador)  # con lote 512 mandan ellas
assert diferencia < 1e-3, diferencia  # acumular 4 lotes de 8 da (casi) lo mismo que un lote de 32 (con
# varios hilos, las sumas cambian de orden y Adam agranda esas diferencias de redondeo: del orden de 1e-4)
assert con_ck.activaciones < sin_ck.activaciones  # activation checkpointing guarda menos
print("Comprobado: activaciones medidas, acumular gradientes y checkpointing hacen lo que dicen.")
