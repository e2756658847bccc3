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
# [![Abrir en Colab](https://colab.research.google.com/assets/colab-badge.svg)](https://colab.research.google.com/github/curso-gpu/curso_gpu/blob/main/notebooks/04_estimar_vram.ipynb)
#
# # Lección 04 — ¿Cuánta memoria necesita un modelo?

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
# Antes de descargar un modelo de 16 GB, conviene saber si te cabe en la GPU.
# Basta una cuenta de una línea.
#
# ## Qué vas a aprender
#
# - La regla rápida: **memoria de los pesos = número de parámetros × bytes por parámetro**.
# - Cuánto más hace falta para **usar** un modelo (+20 %) y para **entrenarlo** (~16 bytes por parámetro).
# - La pregunta inversa: **¿qué modelo me cabe** en mi GPU?
# - Por qué una T4 «de 16 GB» muestra 15 360 MiB en `nvidia-smi` (GB frente a GiB, y el ECC).
# - Usar una calculadora interactiva de VRAM.
# - Comprobar la regla con un modelo real de PyTorch, del tamaño de GPT-2.
#
# ## Por qué importa
#
# El error más común con modelos grandes no es de código: es `CUDA out of memory`.
# La memoria de la GPU (la **VRAM**) es fija: una T4 de Colab tiene «16 GB» en su ficha y no hay más.
# Si el modelo no cabe, no arranca. Con la regla de esta lección sabrás, antes de empezar,
# si un modelo cabe, en qué precisión, y si puedes entrenarlo o solo usarlo.

# %% [markdown]
# ## La idea clave
#
# Un modelo es, sobre todo, una lista enorme de números: sus **parámetros** (los pesos).
# Cada número ocupa unos bytes, según la **precisión** en que se guarda:
#
# | precisión | bytes por parámetro | qué es |
# |---|---|---|
# | fp32 | 4 | coma flotante de 32 bits, la de PyTorch por defecto |
# | fp16 | 2 | coma flotante de 16 bits |
# | bf16 | 2 | otro formato de 16 bits, con más rango que fp16 |
# | int8 | 1 | entero de 8 bits (modelo cuantizado) |
# | int4 | 0.5 | entero de 4 bits: dos parámetros por byte |
#
# Tres reglas:
#
# 1. **Pesos** = parámetros × bytes por parámetro.
# 2. **Usar el modelo** (inferencia): los pesos **+20 %** para las activaciones y la caché de atención.
# 3. **Entrenarlo entero** con Adam y precisión mixta: unos **16 bytes por parámetro**.
#
# Una nota sobre los nombres: «8B» es la forma inglesa de escribir 8 *billion*, es decir,
# **8 000 millones** de parámetros (no 8 billones en español). «124M» son 124 millones.

# %% [markdown]
# ## Paso a paso
#
# ### 1. La cuenta a mano
#
# Tomemos Llama 3 8B: 8 000 millones de parámetros. Sin ninguna biblioteca, solo Python:

# %%
parametros = 8_000_000_000          # 8B: 8 000 millones
bytes_fp16 = 2                      # cada parámetro en fp16 ocupa 2 bytes

pesos_bytes = parametros * bytes_fp16
from curso_gpu.base import formatear_numero  # 16000000000 → «16 000 000 000»

print(f"Pesos en fp16: {formatear_numero(pesos_bytes)} bytes = {pesos_bytes / 1e9:.1f} GB")

# %% [markdown]
# Para usarlo hace falta algo más: las **activaciones** (los resultados intermedios de cada capa)
# y la **caché de atención** (lo que un Transformer guarda de los tokens anteriores).
# La regla rápida suma un 20 %:

# %%
margen = 1.2                         # +20 %
inferencia_bytes = pesos_bytes * margen
print(f"Para usarlo en fp16: {inferencia_bytes / 1e9:.1f} GB")
print(f"¿Cabe en una T4 de 16 GB? {'sí' if inferencia_bytes <= 16e9 else 'no'}")

# %% [markdown]
# La misma cuenta para todas las precisiones, y para entrenarlo:

# %%
vram_gb = 16                         # la memoria de tu GPU, en GB
bytes_por_parametro = {"fp32": 4, "fp16": 2, "bf16": 2, "int8": 1, "int4": 0.5}

print(f"Modelo de 8B en una GPU de {vram_gb} GB (inferencia, +20 %):")
for precision, b in bytes_por_parametro.items():
    necesaria_gb = parametros * b * margen / 1e9
    print(f"  {precision:<5} {necesaria_gb:6.1f} GB  → {'cabe' if necesaria_gb <= vram_gb else 'NO cabe'}")
print(f"Para entrenarlo entero (~16 bytes/parámetro): {parametros * 16 / 1e9:.0f} GB")

# %% [markdown]
# En fp16 no cabe; en int8 o int4, sí. Para entrenarlo harían falta 128 GB: casi dos A100 de 80 GB.
#
# ### 2. Lo mismo con el paquete del curso
#
# `curso_gpu.memoria` hace estas cuentas y comprueba lo que le das. Acepta los parámetros
# como número (`8_000_000_000`), como texto con sufijo (`"8B"`, `"124M"`, `"1.5B"`), con el
# nombre de un modelo conocido (`"Llama 3 8B"`) o como un modelo de PyTorch.
# Devuelve **bytes**; `a_gb` los pasa a GB.

# %%
from curso_gpu.memoria import (
    a_gb,
    a_gib,
    memoria_entrenamiento,
    memoria_inferencia,
    memoria_pesos,
    modelo_mas_grande,
    tabla_vram,
)

print(f"Pesos fp16:       {a_gb(memoria_pesos('8B', 'fp16')):.1f} GB")
print(f"Inferencia fp16:  {a_gb(memoria_inferencia('8B', 'fp16')):.1f} GB")
print(f"Inferencia int4:  {a_gb(memoria_inferencia('8B', 'int4')):.1f} GB")
print(f"Entrenamiento:    {a_gb(memoria_entrenamiento('8B')):.0f} GB")

# %% [markdown]
# La precisión también puede ser un `torch.dtype`, y el margen se puede cambiar:

# %%
import torch

print(f"{a_gb(memoria_inferencia('8B', torch.bfloat16, margen=1.5)):.1f} GB en bf16 con +50 %")

# %% [markdown]
# ### 3. La tabla: ¿cabe o no cabe?
#
# `tabla_vram(parametros, vram_gb)` da una fila por precisión y la línea de entrenamiento.
# En un notebook se ve como una tabla:

# %%
tabla = tabla_vram("8B", vram_gb=16)
tabla

# %% [markdown]
# En una terminal, `print(tabla)` la escribe como texto. Son las mismas cifras que tu cuenta a mano:

# %%
print(tabla)

# %% [markdown]
# Y en un gráfico: cada barra es la memoria que pide una precisión; la línea azul, lo que tiene tu GPU.

# %%
from curso_gpu import graficos

graficos.grafico_vram(tabla, destacar="fp16");

# %% [markdown]
# Los modelos conocidos tienen un número de parámetros algo distinto del de su nombre.
# Llama 3 8B tiene, en realidad, 8 030 millones. El catálogo del curso guarda las cifras publicadas:

# %%
from curso_gpu.base import catalogo, formatear_numero

for modelo in catalogo.MODELOS.values():
    millones = formatear_numero(round(modelo.parametros / 1e6))
    print(f"{modelo.nombre:<15} {millones:>8} millones   {modelo.descripcion}")

# %%
print(tabla_vram("Llama 3 8B", 16).veredicto("fp16"))
print(tabla_vram("Phi-3-mini", 16).veredicto("fp16"))

# %% [markdown]
# ### 4. La pregunta inversa: ¿qué modelo me cabe?
#
# Despeja la regla: parámetros = memoria ÷ (bytes por parámetro × margen).
# En una T4 (16 GB) y en fp16: 16 ÷ (2 × 1.2) ≈ **6.7 mil millones** de parámetros.

# %%
from curso_gpu.memoria import formatear_parametros

print(f"A mano:      {16e9 / (2 * 1.2) / 1e9:.2f} mil millones")
print(f"Con curso_gpu: {formatear_parametros(modelo_mas_grande(16, 'fp16'))}")

# %% [markdown]
# Por eso Mistral 7B (7 240 millones) no cabe en fp16 en una T4, pero Phi-3-mini sí.
# Para varias GPU del catálogo:

# %%
print(f"{'GPU':<22} {'VRAM':>6}   {'fp16':>7} {'int8':>7} {'int4':>7}   mayor del catálogo en fp16")
for nombre in ["NVIDIA T4", "NVIDIA RTX 3060", "NVIDIA RTX 4090", "NVIDIA A100 80 GB", "NVIDIA H200"]:
    gb = catalogo.GPUS[nombre].memoria_gb
    maximos = {p: modelo_mas_grande(gb, p) for p in ("fp16", "int8", "int4")}
    caben = [m for m in catalogo.MODELOS.values() if m.parametros <= maximos["fp16"]]
    mayor = max(caben, key=lambda m: m.parametros).nombre if caben else "-"
    columnas = " ".join(f"{formatear_parametros(n):>7}" for n in maximos.values())
    print(f"{nombre:<22} {gb:>4g} GB   {columnas}   {mayor}")

# %% [markdown]
# ### 5. GB frente a GiB: ¿dónde están mis 16 GB?
#
# Hay dos «gigas» distintos:
#
# - **GB** (gigabyte) = 10⁹ = 1 000 000 000 bytes. Lo usan los discos, macOS y las cuentas de
#   este curso.
# - **GiB** (gibibyte) = 2³⁰ = 1 073 741 824 bytes. Lo usan `nvidia-smi` (en MiB = 2²⁰ bytes),
#   PyTorch cuando imprime `MB` y Windows, que los escribe «GB».
#
# Un GiB es un 7.4 % más grande que un GB. Y la memoria de una GPU se fabrica en potencias de
# dos: los «16 GB» de la ficha de la T4 son **16 GiB físicos** (17.2 GB). En una T4 de Colab,
# `nvidia-smi` dice **15 360 MiB**:

# %%
mib_t4 = 15360
bytes_t4 = mib_t4 * 2**20
print(f"{formatear_numero(mib_t4)} MiB = {a_gib(bytes_t4):.1f} GiB = {a_gb(bytes_t4):.1f} GB")

# %% [markdown]
# 15 GiB, no 16: falta 1 GiB. Es el **ECC** (corrección de errores de memoria): la memoria
# GDDR6 de la T4 no tiene chips aparte para él, así que con el ECC activado (lo está en las
# GPU de centro de datos, y en Colab) se guardan los códigos en la propia memoria y se quedan
# **1/16** de ella: 16 384 MiB − 1 024 MiB = 15 360 MiB. Las GPU con memoria **HBM** (A100,
# H100) llevan el ECC aparte, pero tampoco muestran siempre la cifra redonda: una A100 80GB
# marca 81 920 MiB (80 GiB justos) y una H100 80GB, **81 559 MiB** (algo menos de 80 GiB, más de
# 80 GB). Que 15 GiB sean 16.1 GB es solo una casualidad de unidades. Y no todo eso es para ti:
#
# <!-- Fuentes de las cifras de nvidia-smi: modal-labs/modal-client, PR #2797 (2025-01-23): «H100:
# 81559MiB, A100 80GB: 81920MiB, T4: 15360MiB»; NVIDIA/nccl, issue #1264 (H100 80GB HBM3, driver
# 550.54.15: «0MiB / 81559MiB»). -->
#
# - Al primer uso de la GPU, PyTorch crea el **contexto de CUDA** (el código de CUDA, de cuDNN y
#   de cuBLAS cargado en la GPU). En una T4 de Colab ocupa **unos 100 MiB** al principio, y crece
#   con cada biblioteca de kernels que se carga (cuDNN, cuBLAS): lo verás en `nvidia-smi` aunque
#   no hayas creado ningún tensor.
# - PyTorch dice que la T4 tiene unos **15.8 GB** (`total_memory`: unos 15 100 MiB, según la
#   versión del driver), algo menos que los 15 360 MiB de `nvidia-smi`: el driver se queda el resto.
#
# El curso hace sus cuentas con la cifra de la ficha («16 GB») tomada como GB decimales. En
# casi todas las GPU eso es prudente (la ficha cuenta GiB, que son más). En la T4, con el ECC,
# es un poco optimista (16 GB frente a los 15.8 GB que ve PyTorch): el margen del +20 % lo
# cubre de sobra. Por eso la regla deja margen: no cuentes con los 16 GB enteros. (La lección 01
# resume las cuatro cifras de la T4 en una tabla: ficha, `nvidia-smi`, PyTorch y lo que queda
# tras el contexto.)
#
# ¿Qué dice tu máquina? Esta celda pregunta a `nvidia-smi` (si existe) y a PyTorch:

# %%
from curso_gpu.dispositivo import consultar_nvidia_smi

informe_smi = consultar_nvidia_smi()
if informe_smi is None or not informe_smi.gpus:
    print("Aquí no hay nvidia-smi (ni GPU NVIDIA). En una T4 de Colab verías unos 15 360 MiB en total.")
else:
    for g in informe_smi.gpus:
        print(f"nvidia-smi: {g.nombre}: {g.memoria_total_mib} MiB = {g.memoria_total_mib / 1024:.1f} GiB "
              f"= {g.memoria_total_mib * 2**20 / 1e9:.1f} GB; en uso {g.memoria_usada_mib} MiB")

if torch.cuda.is_available():
    libre, total = torch.cuda.mem_get_info()           # lo que ve el driver, en bytes
    de_pytorch = torch.cuda.memory_reserved()          # lo que PyTorch ha pedido para tensores
    print(f"PyTorch: {total / 1e9:.1f} GB en total, {libre / 1e9:.1f} GB libres")
    print(f"Ocupado fuera de los tensores de PyTorch (contexto de CUDA y otros programas): "
          f"{(total - libre - de_pytorch) / 1e6:.0f} MB")

# %% [markdown]
# ### 6. ¿Cuánta memoria tienes tú?
#
# `memoria_dispositivo(dispositivo)` da la memoria total y libre del dispositivo: en NVIDIA con
# `torch.cuda.mem_get_info`; en un Mac, lo que Metal deja usar a la GPU
# (`torch.mps.recommended_max_memory`). En CPU da la RAM del equipo: no hay VRAM.

# %%
from curso_gpu.dispositivo import elegir_dispositivo, memoria_dispositivo
from curso_gpu.interactivo import resumen_memoria

dispositivo = elegir_dispositivo()
tu_memoria = memoria_dispositivo(dispositivo) if dispositivo.type != "cpu" else None
print(f"Dispositivo: {dispositivo}")
print(tu_memoria or "Sin GPU: no hay VRAM que medir.")

# %% [markdown]
# Con esa memoria (o con la RAM, si no hay GPU), este es el modelo más grande que te cabe.
# Es lo mismo que imprime `python -m curso_gpu`:

# %%
print(resumen_memoria(dispositivo)[1])

# %% [markdown]
# El catálogo entero en una figura: la memoria para usar cada modelo en cada precisión, y la de
# tu GPU como línea (sin GPU, la de una T4 de Colab). Lo que queda por encima de la línea (rayado)
# no cabe. El eje va en escala logarítmica: del GPT-2 al Llama de 405B hay cuatro órdenes de magnitud.

# %%
if tu_memoria is not None:
    graficos.grafico_modelos_vram(catalogo.MODELOS.values(), tu_memoria.total_gb,
                                  tu_memoria.nombre or str(dispositivo))
else:
    graficos.grafico_modelos_vram(catalogo.MODELOS.values(), catalogo.GPUS["NVIDIA T4"].memoria_gb,
                                  "una T4 (aquí no hay GPU)");

# %% [markdown]
# ### 7. ¿Por qué entrenar cuesta 16 bytes por parámetro?
#
# Para usar un modelo solo hacen falta sus pesos. Para entrenarlo con **Adam** y
# **precisión mixta** (cálculos en fp16, actualizaciones en fp32), cada parámetro necesita:

# %%
por_parametro = {
    "pesos en fp16 (los que usa el cálculo)": 2,
    "gradientes en fp16": 2,
    "copia maestra de los pesos en fp32": 4,
    "Adam: media de los gradientes (fp32)": 4,
    "Adam: media de sus cuadrados (fp32)": 4,
}
for que, b in por_parametro.items():
    print(f"  {b:>2} bytes  {que}")
print(f"  {sum(por_parametro.values()):>2} bytes  en total, sin contar las activaciones")

# %% [markdown]
# La copia en fp32 existe porque las actualizaciones de Adam son diminutas: sumadas a un peso
# en fp16 se perderían por redondeo. Y las **activaciones** que se guardan para la
# retropropagación van aparte: crecen con el tamaño del lote y la longitud del texto.
#
# Con 16 bytes por parámetro, ¿qué se puede entrenar entero?

# %%
for nombre in ["GPT-2", "Phi-3-mini", "Llama 3 8B", "Llama 3 70B"]:
    gb = a_gb(memoria_entrenamiento(nombre))
    print(f"{nombre:<12} {formatear_numero(gb, 0, 'GB'):>8}   → {'cabe' if gb <= 16 else 'NO cabe'} en una T4")

# %% [markdown]
# Frente a las GPU habituales (cada línea es la memoria de una):

# %%
graficos.grafico_entrenamiento_gpus(
    [catalogo.MODELOS[n] for n in ["GPT-2", "Phi-3-mini", "Llama 3 8B", "Llama 3 70B"]],
    [catalogo.GPUS[g] for g in ["NVIDIA T4", "NVIDIA RTX 4090", "NVIDIA A100 80 GB", "NVIDIA H200"]]);

# %% [markdown]
# Entrenar entero un 8B pide 128 GB: fuera del alcance de casi todos. Por eso existe **LoRA**
# (lo verás en la lección 09, «Ajustar un modelo de lenguaje en una T4: LoRA y QLoRA»): congela los pesos del modelo
# (solo 2 bytes por parámetro, en fp16, sin gradientes ni estados de Adam) y entrena unas
# matrices pequeñas añadidas, que suman muy pocos parámetros. Una cuenta aproximada:

# %%
n = catalogo.MODELOS["Llama 3 8B"].parametros
entrenables = 0.005 * n               # supongamos un 0,5 % de parámetros nuevos (LoRA)
congelados_gb = a_gb(memoria_pesos(n, "fp16"))
lora_gb = a_gb(memoria_entrenamiento(int(entrenables)))
print(f"Entrenar todo:  {a_gb(memoria_entrenamiento(n)):.0f} GB")
print(f"Con LoRA:       {congelados_gb:.1f} GB congelados + {lora_gb:.1f} GB de LoRA = {congelados_gb + lora_gb:.1f} GB"
      " (más las activaciones)")

# %% [markdown]
# Con los pesos congelados en int4 (la idea de **QLoRA**) baja mucho. QLoRA los guarda en **NF4**
# (*4-bit NormalFloat*): 4 bits por peso, con 16 valores posibles repartidos como se reparten los
# pesos de una red (muchos cerca de cero), más una escala por cada bloque de 64 pesos. Pero no baja a
# 8B × 0.5 bytes = 4 GB: QLoRA cuantiza solo las capas lineales de los bloques del Transformer. La tabla de
# *embeddings* (la entrada) y la capa de salida (`lm_head`) se quedan en 16 bits, y en Llama 3
# son grandes por su vocabulario de 128 256 palabras:

# %%
# Forma de Llama 3 8B: config.json de meta-llama/Meta-Llama-3-8B en Hugging Face
# (vocab_size 128256, hidden_size 4096, tie_word_embeddings false; leído el 3-12-2026).
vocabulario, dimension = 128_256, 4096
en_16_bits = 2 * vocabulario * dimension          # embeddings + lm_head, sin compartir
en_4_bits = n - en_16_bits                          # las capas lineales, cuantizadas en NF4
constantes = en_4_bits * 0.127 / 8                  # escalas por bloque: ~0,127 bits por parámetro
#   con doble cuantización (Dettmers et al., «QLoRA», 2023, sección 3)
qlora_gb = a_gb(en_16_bits * 2 + en_4_bits * 0.5 + constantes)
print(f"En 16 bits: {en_16_bits / 1e9:.2f} mil millones de parámetros → {a_gb(en_16_bits * 2):.1f} GB")
print(f"En 4 bits:  {en_4_bits / 1e9:.2f} mil millones → {a_gb(en_4_bits * 0.5 + constantes):.1f} GB")
print(f"Pesos de QLoRA: unos {qlora_gb:.1f} GB, más LoRA y activaciones")

# %% [markdown]
# Unos **5.5–6 GB** de pesos, no 4: aun así caben de sobra en una T4, y por eso se pueden
# ajustar modelos de 8B en Colab gratis. Es lo que ocupa el modelo **recién cargado**. Para
# entrenar, `peft` pasa a fp32 lo que no está cuantizado (los *embeddings*, `lm_head` y las
# normas), y los pesos suben unos GB más: la lección 09 lo cuenta con el 7B.

# %% [markdown]
# ## Pruébalo
#
# ### La calculadora de VRAM
#
# Escribe los parámetros (`8B`, `124M`) o elige un modelo del catálogo; elige tu GPU (o
# escribe su memoria en GB), la precisión y el margen. La frase, la tabla y el gráfico
# cambian al momento. Un texto que no se entiende muestra el error en español.

# %%
from curso_gpu.interactivo import calculadora_vram

calculadora_vram(parametros="Llama 3 8B", gpu="NVIDIA T4", precision="fp16", margen=1.2)

# %% [markdown]
# ### Compruébalo con un modelo de verdad
#
# ¿Es exacta la regla? Construyamos un modelo del tamaño de **GPT-2 pequeño** en PyTorch puro,
# con pesos al azar (sin descargar nada): 12 capas de Transformer, 12 cabezas de atención,
# vectores de 768, un vocabulario de 50 257 tokens y un contexto de 1 024.
# Como GPT-2, la capa de salida **comparte** los pesos con la tabla de tokens.

# %%
from torch import nn


class GPT2Pequeno(nn.Module):
    """Un Transformer con la forma de GPT-2 pequeño (124M parámetros), con pesos al azar."""

    def __init__(self, vocabulario=50257, contexto=1024, dimension=768, capas=12, cabezas=12):
        super().__init__()
        self.tokens = nn.Embedding(vocabulario, dimension)
        self.posiciones = nn.Embedding(contexto, dimension)
        capa = nn.TransformerEncoderLayer(
            dimension, cabezas, dim_feedforward=4 * dimension, dropout=0.0,
            activation="gelu", batch_first=True, norm_first=True,
        )
        self.bloques = nn.TransformerEncoder(capa, capas, enable_nested_tensor=False)
        self.norma_final = nn.LayerNorm(dimension)
        self.salida = nn.Linear(dimension, vocabulario, bias=False)
        self.salida.weight = self.tokens.weight          # pesos compartidos, como en GPT-2

    def forward(self, ids):
        n = ids.shape[1]
        x = self.tokens(ids) + self.posiciones(torch.arange(n, device=ids.device))
        causal = nn.Transformer.generate_square_subsequent_mask(n, device=ids.device)
        x = self.bloques(x, mask=causal, is_causal=True)
        return self.salida(self.norma_final(x))      # una puntuación por token del vocabulario


# %% [markdown]
# Lo construimos en la CPU (un par de segundos) y contamos sus parámetros a mano, con
# `p.numel()` (el número de elementos de cada tensor de pesos):

# %%
import time

torch.manual_seed(0)
inicio = time.perf_counter()
gpt = GPT2Pequeno()
print(f"Construido en {time.perf_counter() - inicio:.1f} s")

n_parametros = sum(p.numel() for p in gpt.parameters())
print(f"Parámetros: {formatear_numero(n_parametros)}  (GPT-2 pequeño: «124M»)")

# %% [markdown]
# 124 439 808: los «124M» de GPT-2. Ahora, la estimación frente a los **bytes exactos** de sus
# pesos (`numel() × element_size()`, el tamaño en bytes de cada número):

# %%
def bytes_de_los_pesos(modelo):
    return sum(p.numel() * p.element_size() for p in modelo.parameters())


estimado = memoria_pesos(gpt, "fp32")
exacto = bytes_de_los_pesos(gpt)
print(f"fp32: estimado {estimado / 1e6:.1f} MB, exacto {exacto / 1e6:.1f} MB, ¿iguales? {estimado == exacto}")

# %% [markdown]
# Para los pesos, la regla es **exacta**. Una pasada hacia delante con un texto corto
# (16 tokens al azar) comprueba que el modelo funciona. Para usar un modelo, como siempre:
# `modelo.eval()` y `torch.no_grad()` (sin gradientes no se guardan activaciones para la
# retropropagación, y se ahorra memoria):

# %%
gpt.eval()
ids = torch.randint(0, 50257, (1, 16))
with torch.no_grad():
    puntuaciones = gpt(ids)
print(f"Entrada {tuple(ids.shape)} → salida {tuple(puntuaciones.shape)} (una puntuación por palabra del vocabulario)")

# %% [markdown]
# Pasado a bf16 con `.to(torch.bfloat16)`, cada peso ocupa la mitad, y la regla sigue siendo exacta:

# %%
gpt = gpt.to(torch.bfloat16)
print(f"bf16: estimado {memoria_pesos(gpt, torch.bfloat16) / 1e6:.1f} MB, exacto {bytes_de_los_pesos(gpt) / 1e6:.1f} MB")

# %% [markdown]
# Las **activaciones** son la parte que la regla solo estima (el +20 %). Se miden en la GPU:
# `torch.cuda.max_memory_allocated()` dice el pico de memoria de los tensores desde el último
# `torch.cuda.reset_peak_memory_stats()`. En una T4 verás que los pesos en fp16 (unos 249 MB)
# coinciden con la estimación, y que el pico con 1 024 tokens es algo mayor que ellos: la
# salida de 1 024 × 50 257 puntuaciones ya ocupa unos 100 MB. En un modelo pequeño con un texto
# largo las activaciones pesan más que el 20 %; en un modelo grande con lotes pequeños, menos.
# Sin GPU, esta celda solo lo explica.
#
# Ojo: en un modelo, `.to()` mueve **el mismo** modelo (lección 01). Para dejar la GPU libre al
# terminar hay que devolverlo a la CPU; borrar otro nombre que apunte a él no libera nada.

# %%
from curso_gpu.dispositivo import simulacion_activa

if torch.cuda.is_available():
    gpu = torch.device("cuda")
    tokens = 16 if simulacion_activa() else 1024               # la T4 simulada calcula en la CPU: un texto corto
    gpt = gpt.to(gpu, torch.float16)                           # pesos en fp16, en la GPU (el mismo modelo)
    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()
    pesos_medidos = torch.cuda.memory_allocated()
    with torch.no_grad():
        salida = gpt(torch.randint(0, 50257, (1, tokens), device=gpu))
    torch.cuda.synchronize()
    pico = torch.cuda.max_memory_allocated()
    print(f"Pesos fp16: estimado {memoria_pesos(gpt, 'fp16') / 1e6:.0f} MB, medido {pesos_medidos / 1e6:.0f} MB")
    print(f"Pico tras la pasada de {tokens} tokens: {pico / 1e6:.0f} MB; estimación con +20 %: "
          f"{memoria_inferencia(gpt, 'fp16') / 1e6:.0f} MB (el pico es {pico / pesos_medidos:.2f} × los pesos)")
    if simulacion_activa():
        print("(T4 simulada: cuenta los bytes de los tensores que viven en ella. Los pesos son los de una T4; "
              "el pico de una T4 de verdad, con sus propios kernels, puede ser algo distinto.)")
    del salida
    gpt = gpt.cpu()                                            # devolverlo a la CPU libera la GPU
    torch.cuda.empty_cache()
elif dispositivo.type == "mps":  # en un Mac: lo que ocupan los tensores en su GPU (sin pico que medir)
    with torch.no_grad():
        gpt.to(dispositivo, torch.float16)(torch.randint(0, 50257, (1, 1024), device=dispositivo))
    print(f"MPS: {torch.mps.current_allocated_memory() / 1e6:.0f} MB en tensores "
          f"(estimación de los pesos: {memoria_pesos(gpt, 'fp16') / 1e6:.0f} MB)")
else:
    print("Sin GPU: en Colab con una T4 esta celda mide los pesos en fp16 y el pico tras una pasada de 1 024 tokens.")

# %% [markdown]
# ## Errores comunes
#
# - **Confundir «8» con «8B».** La celda de la cuenta rápida trabaja en miles de millones;
#   el paquete cuenta parámetros sueltos. Para no darte una cifra falsa (16 bytes), se niega:

# %%
try:
    memoria_pesos(8, "fp16")
except ValueError as error:
    print(error)

# %% [markdown]
# - **Mezclar GB y GiB.** 15 GiB de `nvidia-smi` son 16.1 GB. Compara siempre en la misma unidad.
# - **Olvidar las activaciones y la caché.** Los pesos caben justos, pero el modelo falla al
#   procesar un texto largo o un lote grande. Deja margen (el +20 % es el mínimo).
# - **Creer que entrenar cuesta lo mismo que usar.** Entrenar entero pide unas 8 veces más que
#   los pesos en fp16 (16 bytes frente a 2).
# - **Contar con toda la VRAM.** El contexto de CUDA ocupa 100 MiB o más y otros programas
#   (u otro notebook abierto en Colab) pueden estar usando la GPU: mira la memoria **libre**.
# - **En un Mac, olvidar que la memoria es compartida.** La GPU usa la misma memoria que el
#   sistema y tus programas, y solo una parte de ella.
# - **Precisiones que no existen.** `"fp8"` o `"float64"` no están en la tabla: el paquete lo dice
#   y enumera las válidas.

# %%
try:
    memoria_pesos("8B", "fp8")
except ValueError as error:
    print(error)

# %% [markdown]
# ## Retos
#
# 1. Mira cuánta memoria tiene tu GPU (o usa la T4 de Colab) y calcula, primero a mano
#    (2 bytes por parámetro en fp16, +20 %) y luego con `modelo_mas_grande`, el mayor modelo que te cabe.
# 2. ¿Cabe Gemma 2 9B en una RTX 4090 en fp16? ¿Y en int8? Usa la calculadora.
# 3. Cambia `GPT2Pequeno` a la forma de GPT-2 *medium* (`dimension=1024`, `capas=24`, `cabezas=16`).
#    Cuenta sus parámetros: ¿te sale la cifra publicada de 355M?
# 4. Contar sin reservar memoria: dentro de `with torch.device("meta"):`, PyTorch crea los
#    tensores con su forma pero sin datos. Construye ahí un `GPT2Pequeno` de 48 capas y
#    `dimension=1600` y `cabezas=25` (la forma de GPT-2 XL: 1600 no se divide entre 12, y cada
#    cabeza necesita la misma dimensión, 64) y cuenta sus parámetros sin gastar RAM. ¿Te sale
#    la cifra publicada de 1 558 millones?
# 5. En Colab con una T4: repite la medida de la GPU con 128, 512 y 1 024 tokens. ¿Cómo crece el
#    pico de memoria? ¿Cuándo supera el +20 %?
# 6. Con 16 bytes por parámetro, ¿qué modelo del catálogo podrías entrenar entero en una H100 de 80 GB?
#
# ## Glosario
#
# - **Parámetro**: cada número que el modelo aprende (un peso o un sesgo).
# - **VRAM**: la memoria propia de la GPU. Los pesos y los datos deben estar ahí para calcular.
# - **Precisión (fp32, fp16, bf16, int8, int4)**: cuántos bits ocupa cada número y cómo se guarda.
# - **Cuantizar**: guardar los pesos con menos bits (int8, int4) para que ocupen menos.
# - **Inferencia**: usar un modelo ya entrenado para obtener respuestas.
# - **Activaciones**: los resultados intermedios de cada capa durante una pasada.
# - **Caché de atención (KV cache)**: lo que un Transformer guarda de los tokens anteriores para no recalcularlo.
# - **Precisión mixta**: calcular en fp16/bf16 y guardar una copia de los pesos en fp32 para actualizarlos.
# - **Adam**: el optimizador más usado; guarda dos números extra por parámetro.
# - **LoRA**: ajuste fino que congela el modelo y entrena matrices pequeñas añadidas (lección 09).
# - **GB / GiB**: 10⁹ bytes frente a 2³⁰ bytes. MiB = 2²⁰ bytes.
# - **Contexto de CUDA**: lo que CUDA carga en la GPU al primer uso; en una T4, 100 MiB o más.
# - **Dispositivo `meta`**: un dispositivo de PyTorch con tensores sin datos, útil para contar parámetros.
# - **8B, 124M**: 8 000 millones y 124 millones de parámetros (B de *billion* en inglés).

# %%
# Comprobación final: las cuentas de memoria de la lección (8B en fp16, qué cabe en 16 GB y 4 bytes por parámetro en fp32).
# Ejecútala tras cambiar algo: si deja de ser cierto, falla y dice qué.
assert pesos_bytes == 16 * 10**9 and round(inferencia_bytes / 1e9, 1) == 19.2  # 8B en fp16: 16 GB, +20 %: 19,2 GB
assert [fila.cabe for fila in tabla.filas] == [False, False, False, True, True]  # en 16 GB: solo int8 e int4
assert estimado == exacto  # 4 bytes por parámetro en fp32: la cuenta coincide con los tensores de verdad
if torch.cuda.is_available():  # en la GPU: los pesos medidos son los estimados y el pico pasa de ellos
    assert abs(pesos_medidos - memoria_pesos(gpt, "fp16")) <= 0.01 * pesos_medidos, (pesos_medidos, pico)
    assert pico > pesos_medidos and torch.cuda.memory_allocated() < pesos_medidos  # y la GPU quedó libre
print("Comprobado: 8B no cabe en una T4 en fp16 (sí en int8 e int4) y la cuenta de los pesos es exacta.")
