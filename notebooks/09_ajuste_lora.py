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
# [![Abrir en Colab](https://colab.research.google.com/assets/colab-badge.svg)](https://colab.research.google.com/github/curso-gpu/curso_gpu/blob/main/notebooks/09_ajuste_lora.ipynb)
#
# # Lección 09 — Ajustar un modelo de lenguaje en una T4: LoRA y QLoRA, sin quedarse sin memoria

# %%
# Arranque: en Google Colab o en Kaggle, instala el paquete del curso si falta (en Kaggle,
# activa antes Internet en las opciones del notebook). En tu computadora no hace nada:
# allí lo instalas tú una vez, como dice el README del curso.
import importlib.util, os, subprocess, sys
REPOSITORIO_CURSO = "https://github.com/curso-gpu/curso_gpu"
EN_COLAB_O_KAGGLE = "google.colab" in sys.modules or "KAGGLE_KERNEL_RUN_TYPE" in os.environ
if EN_COLAB_O_KAGGLE and importlib.util.find_spec("curso_gpu") is None:
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", f"git+{REPOSITORIO_CURSO}"], check=True)  # solo se ejecuta en Colab o Kaggle

# %%
# Las bibliotecas de modelos de lenguaje: en Colab y en Kaggle se instalan las que falten; en tu
# computadora, esta celda te dice cuáles. Colab ya trae transformers, peft y accelerate; bitsandbytes (los 4 bits)
# solo hace falta con GPU (el curso solo usa los 4 bits en una GPU CUDA).
import torch

paquetes = ("transformers", "peft", "accelerate") + (("bitsandbytes",) if torch.cuda.is_available() else ())
faltan = [p for p in paquetes if importlib.util.find_spec(p) is None]
if faltan and EN_COLAB_O_KAGGLE:  # EN_COLAB_O_KAGGLE: de la primera celda
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", *faltan], check=True)  # solo se ejecuta en Colab o Kaggle, si faltan
elif faltan:
    print("Faltan:", ", ".join(faltan), "→ pip install", " ".join(faltan),
          "(bitsandbytes solo lo usa la celda de QLoRA, al final)" if faltan == ["bitsandbytes"] else "")

# %% [markdown]
# ## Qué vas a aprender
#
# - Cuándo cabe en una T4 de 16 GB el **ajuste fino completo** (*full fine-tuning*: entrenar todos los
#   pesos) y cuándo no, con las cuentas de las lecciones 04 y 07 sobre la arquitectura real de
#   Qwen2.5-0.5B (sí cabe) y Qwen2.5-7B (ni de lejos).
# - **LoRA** escrito a mano en 15 líneas de PyTorch, y lo mismo con la biblioteca **`peft`**: dan lo mismo.
# - **Cuántos parámetros** entrena LoRA (r · (entradas + salidas) por capa) y cuánta memoria ahorra, medida.
# - A **entrenar de verdad** un modelo pequeño en la CPU: la pérdida baja, el modelo base no cambia, y
#   solo se guarda el **adaptador**, con checkpoints que sobreviven a una desconexión.
# - A **fusionar** el adaptador con el modelo (`merge_and_unload`).
# - **QLoRA** en una T4: el modelo en 4 bits, fp16 y no bf16, y el error
#   «Attempting to unscale FP16 gradients.» (y cómo se arregla).
#
# ## Por qué importa
#
# Lo que más intenta quien tiene una T4 gratis es adaptar un modelo de lenguaje a sus textos. Y lo
# primero que ve es `CUDA out of memory`, o una sesión de Colab que se cae al cargar el modelo.
# LoRA y QLoRA son la forma habitual de hacerlo caber: no entrenas los miles de millones de pesos
# del modelo, sino dos matrices pequeñas por capa.
#
# Usamos las bibliotecas de verdad: **`transformers`** (los modelos) y **`peft`** (LoRA), y
# **`bitsandbytes`** para los 4 bits en la GPU. Todo lo de esta lección se ejecuta en la CPU sin
# descargar nada: los modelos grandes se construyen en el dispositivo `meta` (sin memoria) y
# entrenamos un modelo diminuto hecho en memoria. La celda de la T4, al final, dice qué mirar.

# %%
import time

import torch
from torch import nn

from curso_gpu.base import formatear_numero, mostrar_ruta
from curso_gpu.ajuste import (
    TEXTO_ENTRENAMIENTO,
    LoRALineal,
    ajustar,
    aplicar_lora,
    config_de,
    estado_adaptador,
    guardar_adaptador,
    memoria_ajuste,
    modelo_diminuto,
    modelo_en_meta,
    parametros_lora,
    tabla_metodos,
)

print("PyTorch", torch.__version__)

# %% [markdown]
# ## La idea clave: no cambies W, súmale B·A
#
# Una capa lineal hace `y = W x`, con `W` de tamaño salidas × entradas (896 × 896 en una capa de
# atención de Qwen2.5-0.5B: 802 816 números). El ajuste completo cambia todos esos números.
# LoRA (*Low-Rank Adaptation*, Hu et al. 2021) **congela** `W` y aprende un cambio pequeño:
#
# ```
# y = W·x + (alpha / r) · B·A·x
# ```
#
# con `A` de r × entradas y `B` de salidas × r, y un rango `r` pequeño (8, 16). Con r = 16, esa
# capa entrena 16 · (896 + 896) = 28 672 números en vez de 802 816. `B` empieza en **cero**: al
# principio el modelo es exactamente el original. Solo `A` y `B` necesitan gradientes y estados de
# Adam, y eso es lo que ahorra memoria (lección 07).
#
# ## Paso a paso
#
# ### 1. Cuándo cabe el ajuste completo
#
# Construimos Qwen2.5-0.5B y Qwen2.5-7B en el dispositivo `meta`: todas sus capas, con su forma y
# su tipo, pero sin datos. Los valores de su arquitectura (bloques, ancho, cabezas, vocabulario) están
# escritos en `curso_gpu.ajuste.arquitecturas`, copiados del `config.json` de cada modelo: nada se descarga.

# %%
for nombre in ("Qwen2.5-0.5B", "Qwen2.5-7B"):
    config = config_de(nombre)
    modelo_meta = modelo_en_meta(config)
    n = sum(p.numel() for p in modelo_meta.parameters())
    print(f"{nombre}: {config.num_hidden_layers} bloques, ancho {config.hidden_size}, "
          f"{formatear_numero(n)} parámetros")
    # La regla rápida de la lección 04: ~16 bytes por parámetro para entrenar con Adam.
    print(f"   entrenarlo entero: ~{16 * n / 1e9:.1f} GB sin contar activaciones; una T4 tiene 16 GB")

# %% [markdown]
# La regla rápida ya lo dice: el 7B no cabe ni de lejos; el 0.5B sí, pero sin contar las
# activaciones, que crecen con el lote y el texto. Con el desglose de la
# lección 07 (pesos, gradientes, optimizador y activaciones **medidas**, aquí en `meta` para un lote
# de 1 × 512 tokens en fp16), `memoria_ajuste` compara los tres métodos:
#
# - **completo** (`metodo="completo"`): pesos, gradientes y Adam en fp32, más la copia de 16 bits de autocast (18 bytes por parámetro);
# - **LoRA**: el modelo base congelado en fp16 (2 bytes) y el adaptador en fp32 con sus gradientes y Adam;
# - **QLoRA**: como LoRA, pero las capas lineales en 4 bits (NF4).

# %%
inicio = time.perf_counter()
desgloses = [memoria_ajuste(nombre, metodo, "fp16", lote=1, secuencia=512, r=16)
             for nombre in ("Qwen2.5-0.5B", "Qwen2.5-7B") for metodo in ("completo", "lora", "qlora")]
tabla_metodos(desgloses)

# %% [markdown]
# Fíjate en cinco cosas:
#
# - El 0.5B **cabe entero** en una T4 (9.9 GB): el ajuste completo de un modelo pequeño es posible;
#   el 7B pide 140 GB.
# - Con LoRA, **gradientes y optimizador casi desaparecen**: solo los tiene el adaptador.
# - En el 7B, LoRA sigue sin caber: el modelo base en fp16 ya ocupa ~15 GB. Por eso existe QLoRA.
# - Las **activaciones** cambian poco con el método: dependen sobre todo del lote y de la longitud
#   del texto (lección 07). El ajuste completo guarda algo más (la entrada de cada capa lineal, para
#   el gradiente de sus pesos): entre un 0 y un 25 % más que LoRA, en la tabla y en la medida del
#   paso 3. Con textos largos son ellas las que llenan la GPU; el *activation checkpointing*
#   (lección 07) las recorta mucho, y `prepare_model_for_kbit_training` lo activa en QLoRA.
# - Los **pesos de QLoRA** del 7B ocupan unos 8 GB, más que los 5.5–6 GB que la lección 04 estimó
#   para un 8B. No es un error: la 04 contaba el modelo recién cargado, con lo no cuantizado en
#   16 bits. Para entrenar, `prepare_model_for_kbit_training` pasa a **fp32** lo que no está en
#   4 bits (los *embeddings*, `lm_head` y las normas). En Qwen2.5-7B, *embeddings* y `lm_head`
#   son 2 × 152 064 × 3 584 ≈ 1.09 mil millones de parámetros: 4.4 GB en fp32 en lugar de 2.2 GB.

# %%
print(desgloses[1])  # el desglose entero de Qwen2.5-0.5B con LoRA
print(f"(tardó {time.perf_counter() - inicio:.1f} s: cada modelo se mide con 1 y 2 bloques, que son iguales)")

# %% [markdown]
# ### 2. LoRA a mano, en PyTorch
#
# Lo escribimos nosotros: una `nn.Linear` congelada más `B @ A` escalado por `alpha / r`.

# %%
class LoRAAMano(nn.Module):
    def __init__(self, capa: nn.Linear, r: int, alpha: float):
        super().__init__()
        self.capa = capa.requires_grad_(False)          # W congelada
        self.escala = alpha / r
        self.A = nn.Parameter(torch.empty(r, capa.in_features))
        self.B = nn.Parameter(torch.zeros(capa.out_features, r))   # B = 0: al principio no cambia nada
        nn.init.kaiming_uniform_(self.A, a=5 ** 0.5)     # como nn.Linear (y como peft)

    def forward(self, x):
        return self.capa(x) + (x @ self.A.T @ self.B.T) * self.escala


torch.manual_seed(0)
capa = nn.Linear(64, 64)
mia = LoRAAMano(capa, r=8, alpha=16)
x = torch.randn(4, 64)
print("¿Igual que la capa original al empezar?", torch.equal(mia(x), capa(x)))
print("Se entrenan:", [(n, tuple(p.shape)) for n, p in mia.named_parameters() if p.requires_grad])

# %% [markdown]
# Ahora lo mismo con **`peft`** sobre un modelo de lenguaje de verdad. `modelo_diminuto()` construye
# un modelo con la arquitectura de Qwen2 (la de Qwen2.5) pero diminuto: 64 de ancho, 2 bloques,
# 4 cabezas de atención y 2 de claves/valores, con pesos aleatorios, y un tokenizador de un carácter
# por token. Todo en memoria, sin red. `aplicar_lora` es `LoraConfig` + `get_peft_model`:
#
# ```python
# from peft import LoraConfig, get_peft_model
# config = LoraConfig(r=8, lora_alpha=16, target_modules="all-linear", lora_dropout=0.0, task_type="CAUSAL_LM")
# modelo_lora = get_peft_model(modelo, config)
# ```
#
# `target_modules="all-linear"` adapta todas las capas lineales de los bloques (no la cabeza de salida).

# %%
modelo, tokenizador = modelo_diminuto(semilla=0)
print(modelo.model.layers[0])
torch.manual_seed(0)
modelo_lora = aplicar_lora(modelo, r=8, alpha=16)
entrenables, todos = modelo_lora.get_nb_trainable_parameters()
print(f"Se entrenan {formatear_numero(entrenables)} de {formatear_numero(todos)} parámetros "
      f"({100 * entrenables / todos:.1f} %): en un modelo tan pequeño, LoRA es una parte grande")

# %% [markdown]
# Comparamos una capa de `peft` con la nuestra, **con los mismos pesos**. Para que la comparación
# no sea trivial (con B = 0 las dos dan lo de la capa original), damos a `B` valores al azar.

# %%
q_peft = modelo_lora.base_model.model.model.layers[0].self_attn.q_proj
with torch.no_grad():
    q_peft.lora_B["default"].weight.normal_(0, 0.1)
    q_mia = LoRAAMano(q_peft.base_layer, r=8, alpha=16)
    q_mia.A.copy_(q_peft.lora_A["default"].weight)
    q_mia.B.copy_(q_peft.lora_B["default"].weight)
    x = torch.randn(2, 5, 64)
    diferencia = (q_peft(x) - q_mia(x)).abs().max().item()
    q_peft.lora_B["default"].weight.zero_()  # B vuelve a cero antes de entrenar
print(f"Diferencia máxima entre peft y LoRA a mano: {diferencia:.1e}")
print("Coinciden (≤ 1e-6):", diferencia <= 1e-6)

# %% [markdown]
# El paquete guarda esta misma capa como `curso_gpu.ajuste.LoRALineal`: el modelo entero con ella da
# los mismos logits que con `peft`.
# <!-- Lo comprueba tests/test_ajuste.py. -->
#
# ### 3. Cuántos parámetros entrena LoRA
#
# Cada capa adaptada entrena r · (entradas + salidas). En un bloque de Qwen2.5-0.5B (ancho 896,
# 2 cabezas de claves/valores de 64, MLP de 4864):

# %%
config = config_de("Qwen2.5-0.5B")
cabeza = config.hidden_size // config.num_attention_heads          # 64
kv = config.num_key_value_heads * cabeza                              # 128
capas = {"q_proj": (896, 896), "k_proj": (896, kv), "v_proj": (896, kv), "o_proj": (896, 896),
         "gate_proj": (896, 4864), "up_proj": (896, 4864), "down_proj": (4864, 896)}
r = 16
por_bloque = sum(r * (entradas + salidas) for entradas, salidas in capas.values())
print(f"Por bloque: {formatear_numero(por_bloque)}; en {config.num_hidden_layers} bloques: "
      f"{formatear_numero(por_bloque * config.num_hidden_layers)}")
print(f"parametros_lora (desde la configuración, en meta): {formatear_numero(parametros_lora(config, r=16))}")
total = sum(p.numel() for p in modelo_en_meta(config).parameters())
print(f"Un {100 * parametros_lora(config, r=16) / total:.2f} % de los {formatear_numero(total)} parámetros")

# %% [markdown]
# En el modelo diminuto, `parametros_lora` y `peft` cuentan lo mismo:

# %%
print("parametros_lora:", formatear_numero(parametros_lora(modelo_diminuto()[0], r=8)),
      "· peft:", formatear_numero(modelo_lora.get_nb_trainable_parameters()[0]))

# %% [markdown]
# Y la memoria de un paso, **medida** con la herramienta de la lección 07 en el modelo diminuto,
# en la CPU: el ajuste completo frente a entrenar solo el adaptador.

# %%
from curso_gpu.memoria import medir_memoria_entrenamiento

ids_ejemplo = tokenizador([TEXTO_ENTRENAMIENTO[:32]] * 4, return_tensors="pt")["input_ids"]
entero = medir_memoria_entrenamiento(modelo_diminuto()[0], ids_ejemplo, "adamw")
con_lora = medir_memoria_entrenamiento(modelo_lora, ids_ejemplo, "adamw")
for nombre, d in (("completo", entero), ("LoRA", con_lora)):
    print(f"{nombre:>8}: " + ", ".join(f"{parte} {formatear_numero(valor / 1e3, 1)} kB" for parte, valor in d.partes().items()))
mas = 100 * (entero.partes()["activaciones"] / con_lora.partes()["activaciones"] - 1)
print(f"Activaciones: el ajuste completo guarda un {mas:.0f} % más que LoRA.")

# %% [markdown]
# ### 4. Entrenar el adaptador de verdad
#
# El bucle es el de siempre, sobre el modelo de `peft`: solo los parámetros con
# `requires_grad=True` (el adaptador) van al optimizador. Cada ejemplo es un trozo del texto y
# aprende a predecir el siguiente carácter (`labels=input_ids`: transformers desplaza las etiquetas).

# %%
from curso_gpu.ajuste import trozos_de_texto

print(TEXTO_ENTRENAMIENTO[:120], "…")
trozos = trozos_de_texto(tokenizador, TEXTO_ENTRENAMIENTO, secuencia=32)
print("Trozos de 32 tokens:", tuple(trozos.shape))

entrenables = [p for p in modelo_lora.parameters() if p.requires_grad]
optimizador = torch.optim.AdamW(entrenables, lr=1e-2)
modelo_lora.train()
for paso in range(3):
    ids = trozos[paso * 4:(paso + 1) * 4]
    perdida = modelo_lora(input_ids=ids, labels=ids, use_cache=False).loss
    optimizador.zero_grad(set_to_none=True)
    perdida.backward()
    optimizador.step()
    print(f"paso {paso + 1}: pérdida {perdida.item():.3f}")   # .item(): en una GPU, aquí la CPU espera
modelo_lora.eval();

# %% [markdown]
# `ajustar` es ese mismo bucle con lo que ya sabes de la lección 05: un **checkpoint por época**
# escrito de forma atómica (un archivo temporal y `os.replace`), con su **suma SHA-256**, un candado
# para que no escriban dos a la vez, y **reanudar** desde el último. La diferencia: el checkpoint
# lleva **solo el adaptador** (y el optimizador), no el modelo base, que no cambia.
#
# En Colab, cambia `GUARDAR_EN_DRIVE` a `True` para que los checkpoints sobrevivan a una
# desconexión (montar Drive pide permisos: solo se hace si tú lo eliges). En Colab, además, cada
# notebook tiene su propia máquina: lo que guardes junto a este notebook ya no está cuando abras la
# lección 10. Si vas a seguir con ella en Colab, guarda en Drive. Simulamos una desconexión en la
# época 5 de 10.

# %%
from curso_gpu.guardado import carpeta_checkpoints

GUARDAR_EN_DRIVE = False  # en Colab, ponlo a True para guardar en Google Drive
carpeta = carpeta_checkpoints("lora_diminuto", drive=GUARDAR_EN_DRIVE)

modelo, tokenizador = modelo_diminuto(semilla=0)
pesos_base_antes = {k: v.clone() for k, v in modelo.state_dict().items()}
torch.manual_seed(0)
modelo_lora = aplicar_lora(modelo, r=8, alpha=16)


class Desconexion(Exception):
    """Hace de «Colab se ha desconectado»."""


def desconectar_en_5(epoca, total):
    if epoca == 5:
        raise Desconexion(f"Colab se desconectó al terminar la época {epoca} de {total}")


try:
    ajustar(modelo_lora, tokenizador, epocas=10, checkpoints=carpeta.con(reanudar=False),
            al_terminar_epoca=desconectar_en_5)  # reanudar=False: empieza de cero (lo viejo va a anteriores/)
except Desconexion as error:
    print("¡Ay!", error)
print("Checkpoints:", [p.name for p in carpeta.archivos()])

# %% [markdown]
# Al volver, se crea otra vez el modelo (el base sale igual de `modelo_diminuto`) y se llama a
# `ajustar` igual: encuentra el checkpoint de la época 5 y **sigue desde ahí**.

# %%
modelo, tokenizador = modelo_diminuto(semilla=0)
modelo_lora = aplicar_lora(modelo, r=8, alpha=16)
resultado = ajustar(modelo_lora, tokenizador, epocas=10, checkpoints=carpeta)
print(f"reanudado_desde={resultado.reanudado_desde}")
resultado

# %%
print(f"La pérdida pasó de {resultado.perdidas[0]:.2f} a {resultado.perdidas[-1]:.2f}: "
      + ("baja." if resultado.perdidas[-1] < resultado.perdidas[0] else "no baja."))
pesos_base_despues = {k: v for k, v in modelo_lora.get_base_model().state_dict().items() if "lora_" not in k}
iguales = all(torch.equal(pesos_base_antes[k.replace(".base_layer", "")], v) for k, v in pesos_base_despues.items())
print("¿El modelo base sigue idéntico, bit a bit?", iguales)
print(f"El checkpoint ocupa {resultado.bytes_checkpoint / 1e3:.1f} kB: el adaptador "
      f"({formatear_numero(sum(v.numel() for v in estado_adaptador(modelo_lora).values()))} números) y los dos estados de Adam.")

# %% [markdown]
# Para usar el adaptador después (o compartirlo), se guarda en el formato de `peft`, también sin
# archivos a medias, en la misma carpeta que los checkpoints: junto al notebook
# (`checkpoints/lora_diminuto/adaptador`) o, con `GUARDAR_EN_DRIVE = True`, en tu Drive
# (`MyDrive/curso_gpu/checkpoints/lora_diminuto/adaptador`). Se carga con
# `PeftModel.from_pretrained(modelo_base, carpeta)`: la lección 10 lo hace para generar texto con él
# (en Colab, pon allí también `ADAPTADOR_EN_DRIVE = True` y lo busca en tu Drive).

# %%
archivos = guardar_adaptador(modelo_lora, carpeta.ruta / "adaptador")  # la lección 10 lo busca aquí
for archivo in archivos:
    print(f"{archivo.name}: {archivo.stat().st_size / 1e3:.1f} kB")
print("Guardado en", mostrar_ruta(carpeta.ruta / "adaptador"))
print(f"Para Qwen2.5-0.5B con r=16 serían {parametros_lora(config_de('Qwen2.5-0.5B'), 16) * 4 / 1e6:.1f} MB en fp32 "
      "(el modelo entero en fp16: ~1 GB).")

# %% [markdown]
# ### 5. Fusionar: un modelo normal otra vez
#
# `merge_and_unload()` suma `(alpha / r) · B A` a cada `W` y quita el adaptador. El modelo que queda
# es un modelo de `transformers` normal, con la forma y la velocidad del original, y da **los mismos
# logits**. Sin fusionar, cada capa hace además dos multiplicaciones pequeñas: la lección 10 mide
# cuánto cuesta eso, alternando las medidas.

# %%
ids = tokenizador(["Con LoRA entrenas pocas matrices."], return_tensors="pt")["input_ids"]
with torch.no_grad():
    con_adaptador = modelo_lora(input_ids=ids).logits
    fusionado = modelo_lora.merge_and_unload()
    diferencia = (fusionado(input_ids=ids).logits - con_adaptador).abs().max().item()
print(type(fusionado).__name__, f"· diferencia máxima de logits: {diferencia:.1e}")

# %% [markdown]
# ### 6. En una T4: QLoRA, fp16 y la memoria de la CPU
#
# **QLoRA** (Dettmers et al. 2023) carga el modelo base en **4 bits** (el formato NF4) con
# `bitsandbytes` y entrena un adaptador LoRA encima. Los pesos se descuantizan a 16 bits en cada
# multiplicación. En código:
#
# ```python
# from transformers import AutoModelForCausalLM, BitsAndBytesConfig
# from peft import prepare_model_for_kbit_training
# bnb = BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type="nf4",
#                          bnb_4bit_use_double_quant=True,             # doble cuantización
#                          bnb_4bit_compute_dtype=torch.float16)       # fp16 en una T4
# modelo = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-0.5B", quantization_config=bnb,
#                                               device_map={"": 0})   # directo a la GPU
# modelo = prepare_model_for_kbit_training(modelo)   # activation checkpointing, y fp32 en lo no cuantizado
# modelo = get_peft_model(modelo, LoraConfig(r=16, lora_alpha=32, target_modules="all-linear"))
# ```
#
# La **doble cuantización** (QLoRA, Dettmers et al. 2023, sección 3) cuantiza también las constantes
# de escala de cada bloque de 64 pesos: pasan de 0.5 a 0.127 bits por parámetro, unos 0.37 bits menos
# (unos 17 MB en los 358 millones de pesos de las capas lineales del 0.5B).
# `config_4_bits("fp16")` del paquete devuelve esa misma `BitsAndBytesConfig` tras comprobar que hay
# CUDA, `bitsandbytes` y una GPU que admite la precisión. Que pida CUDA es una **decisión del curso**,
# no un límite de la biblioteca: bitsandbytes trae también un camino para CPU (su documentación lo
# llama *multi-backend*; la 0.50.2 ejecuta una capa NF4, `Linear4bit`, en una máquina sin GPU), pero
# ahí es lento, y lo que QLoRA busca es que el modelo quepa **en la memoria de la GPU**.
#
# - **fp16, no bf16**: la T4 (Turing, capacidad 7.5) no tiene Tensor Cores para bf16 (lección 06).
# - **El adaptador, en fp32**: con `GradScaler` (necesario en fp16), los gradientes que se
#   desescalan deben ser fp32. `peft` ya crea el adaptador en fp32; si lo pasas a fp16 (por ejemplo
#   con `modelo.half()`), aparece este error. Lo reproducimos en la CPU:

# %%
from curso_gpu.base import UNSCALE_FP16

def un_paso_con_escalador(capa):
    optimizador = torch.optim.AdamW(capa.parameters())
    escalador = torch.amp.GradScaler("cpu")
    with torch.autocast("cpu", dtype=torch.float16):
        perdida = capa(torch.randn(4, 8)).float().pow(2).mean()
    escalador.scale(perdida).backward()
    escalador.step(optimizador)
    escalador.update()

try:
    un_paso_con_escalador(nn.Linear(8, 8).half())        # «adaptador» en fp16
except ValueError as error:
    print("ValueError:", error)
    print("¿Es el texto de PyTorch que enseña la lección?", str(error) == UNSCALE_FP16)
un_paso_con_escalador(nn.Linear(8, 8))                 # en fp32: funciona
print("Con los pesos entrenables en fp32, el paso funciona.")

# %% [markdown]
# - **La RAM de la CPU**: cargar un modelo «a la antigua» (crearlo entero con pesos aleatorios y
#   luego leer encima los de verdad) ocupa **dos veces** su tamaño en RAM, y la sesión de Colab se
#   cae («Your session crashed after using all available RAM»). Con `low_cpu_mem_usage=True` el
#   modelo se crea vacío (en `meta`) y los pesos se leen por partes: el pico es **una vez** su tamaño;
#   con `device_map` se activa solo y cada parte va directa a la GPU (documentación de
#   transformers, «Large model loading»; en transformers 5 ya es siempre así). Los archivos
#   **safetensors** se leen sin copiar. Antes de cargar, mira cuánta RAM te queda:

# %%
from curso_gpu.dispositivo import memoria_ram

ram = memoria_ram()
if ram is not None and ram.libre_bytes is not None:
    print(f"RAM de esta máquina: {ram.total_bytes / 1e9:.1f} GB, disponible {ram.libre_bytes / 1e9:.1f} GB")
print(f"Qwen2.5-0.5B en fp16 ocupa ~{2 * 494_032_768 / 1e9:.1f} GB; Qwen2.5-7B, ~{2 * 7_615_616_512 / 1e9:.1f} GB")

# %% [markdown]
# - **Activation checkpointing** (`prepare_model_for_kbit_training` lo activa): recalcula las
#   activaciones en la pasada hacia atrás. Es lo que hace caber textos largos (lección 07).
#
# La celda siguiente carga **Qwen2.5-0.5B de verdad** en 4 bits y da unos pasos de QLoRA en fp16.
# Necesita una GPU CUDA, bitsandbytes y conexión a internet (descarga ~1 GB): `cargar_en_4_bits` es
# el `from_pretrained` de arriba. Si tienes GPU pero falta lo demás (o la GPU es la T4 simulada del
# curso, `CURSO_GPU_SIMULAR=T4`), dice qué falta y hace los mismos pasos con el modelo diminuto en
# fp16, sin cuantizar. Sin GPU, lo dice y no hace nada.

# %%
from peft import prepare_model_for_kbit_training

from curso_gpu.ajuste import cargar_en_4_bits, motivo_sin_qlora

if not torch.cuda.is_available():
    print("Sin GPU CUDA: no cargo Qwen2.5-0.5B en 4 bits (bitsandbytes necesita una GPU). En una T4 de Colab, "
          "esta celda imprime la memoria tras cargar en 4 bits, la pérdida de cada época, el pico de "
          "memoria y los segundos por paso, y la estimación de memoria_ajuste para comparar; y guarda el "
          "adaptador, que la lección 10 usa para generar.")
else:
    falta = motivo_sin_qlora()  # None: GPU de verdad, bitsandbytes y conexión con huggingface.co
    torch.cuda.reset_peak_memory_stats()
    if falta is None:
        modelo_q, tokenizador_q = cargar_en_4_bits("Qwen/Qwen2.5-0.5B", "fp16")  # solo se ejecuta en una GPU real: necesita bitsandbytes y ~1 GB del Hub
    else:
        print(f"No cargo Qwen2.5-0.5B en 4 bits: {falta}\nHago los mismos pasos con el modelo diminuto, "
              "en fp16 y sin cuantizar: la memoria y los tiempos son los suyos, no los de Qwen.\n")
        modelo_q, tokenizador_q = modelo_diminuto(semilla=0)
        modelo_q.to("cuda", torch.float16)  # como from_pretrained(..., dtype=torch.float16)
    config_q = "Qwen2.5-0.5B" if falta is None else modelo_q.config
    print(f"Tras cargar: {torch.cuda.memory_allocated() / 1e6:.2f} MB en la GPU")
    modelo_q = prepare_model_for_kbit_training(modelo_q)  # lo no cuantizado (embeddings, normas) pasa a fp32
    print(f"Tras prepare_model_for_kbit_training: {torch.cuda.memory_allocated() / 1e6:.2f} MB en la GPU")
    modelo_q = aplicar_lora(modelo_q, r=16, alpha=32)
    resultado_q = ajustar(modelo_q, tokenizador_q, epocas=3, tamano_lote=2, secuencia=32, lr=2e-4, precision="fp16")
    print(resultado_q)
    print(f"Pico de memoria: {torch.cuda.max_memory_allocated() / 1e6:.2f} MB · "
          f"{resultado_q.segundos / max(resultado_q.pasos, 1):.2f} s por paso")
    print(memoria_ajuste(config_q, "qlora" if falta is None else "lora", "fp16", lote=2, secuencia=32, r=16))
    carpeta_q = carpeta_checkpoints("qlora_qwen", drive=GUARDAR_EN_DRIVE, silenciosa=True) if falta is None else carpeta
    destino_q = carpeta_q.ruta / ("adaptador" if falta is None else "adaptador_fp16")  # la lección 10 genera con el de Qwen
    guardar_adaptador(modelo_q, destino_q)
    print("Adaptador guardado en", mostrar_ruta(destino_q))

# %% [markdown]
# **Lo que verás en una T4**: primero la memoria tras cargar (los pesos en 4 bits), luego la que queda
# tras `prepare_model_for_kbit_training` (más: pasa a fp32 lo no cuantizado, como los embeddings), la pérdida de cada
# época y el **pico de memoria**. Compáralo con el total de `memoria_ajuste`: el pico real suma
# además los temporales de cada operación y el contexto de CUDA, y el *activation checkpointing*
# baja las activaciones. Los segundos por paso dependen del texto y del lote: anótalos y compáralos
# con los de tu compañero.
#
# ## Pruébalo
#
# - Cambia `r` (4, 8, 32) en `aplicar_lora` y mira cómo cambian los parámetros entrenables y la pérdida final.
# - Adapta solo la atención: `aplicar_lora(modelo, r=8, modulos=["q_proj", "v_proj"])`. ¿Baja igual la pérdida?
# - Con `memoria_ajuste`, busca la secuencia más larga que cabe en una T4 con QLoRA para el 7B y lote 1.
#
# ## Errores comunes
#
# | error | qué pasa | cómo se arregla |
# |---|---|---|
# | Ajuste completo de un modelo de 7B en una T4 | `CUDA out of memory` | LoRA o QLoRA: `memoria_ajuste` dice antes si cabe |
# | `bnb_4bit_compute_dtype=torch.bfloat16` en una T4 | bf16 emulado, mucho más lento | `torch.float16` en una T4; bf16 en Ampere o más nueva |
# | El adaptador en fp16 con `GradScaler` | `ValueError: Attempting to unscale FP16 gradients.` | deja el adaptador en fp32 (lo que hace `peft`) |
# | Cargar en 4 bits sin GPU o sin `bitsandbytes` | `config_4_bits` lo rechaza (el curso usa los 4 bits solo en CUDA) | GPU T4 en Colab y `pip install bitsandbytes` |
# | `target_modules` con nombres de otro modelo (`query`, `value` son de BERT) | no se adapta nada, o un error | mira los nombres con `print(modelo)` |
# | Cargar el modelo sin `device_map` en Colab | «Your session crashed after using all available RAM» | `device_map={"": 0}` y safetensors |
#
# Y los errores del paquete, en español y con el arreglo:

# %%
from curso_gpu.ajuste import config_4_bits
from curso_gpu.rendimiento import PrecisionNoDisponible

for intento in (lambda: aplicar_lora(modelo_diminuto()[0], r=0),
                lambda: aplicar_lora(modelo_diminuto()[0], r=8, modulos=["query", "value"]),
                lambda: config_4_bits("bf16")):
    try:
        intento()
        print("(aquí sí se puede: hay una GPU que admite 4 bits y bf16)")
    except (ValueError, PrecisionNoDisponible) as error:
        print(f"{type(error).__name__}: {error}\n")

# %% [markdown]
# ## Retos
#
# 1. Haz el ajuste completo del modelo diminuto (sin LoRA, todos los parámetros) con el bucle del paso 4
#    (no con `ajustar`, que entrena solo adaptadores de `peft`). ¿Baja más
#    la pérdida? ¿Cuánto ocupa su checkpoint frente al del adaptador?
# 2. Con `memoria_ajuste`, ¿qué pesa más en Qwen2.5-0.5B con QLoRA y 2048 tokens: los pesos o las activaciones?
# 3. Escribe `merge` a mano para una capa: `W + (alpha / r) · B @ A`, y compáralo con `merge_and_unload()`.
# 4. En Colab con una T4: compara el pico de memoria de la celda de QLoRA con la estimación de `memoria_ajuste`.
#    ¿De dónde sale la diferencia?
#
# ## Glosario
#
# - **Ajuste fino (*fine-tuning*)**: seguir entrenando un modelo ya entrenado con tus datos. **Completo**
#   si se entrenan todos los pesos.
# - **LoRA**: congelar `W` y entrenar un cambio de rango bajo `B A`, escalado por `alpha / r`.
# - **Rango `r`**: cuántas columnas tiene `B` (y filas `A`); pocas (8, 16) bastan.
# - **`alpha`**: la escala del adaptador: su cambio se multiplica por `alpha / r` (`lora_alpha` en `peft`).
# - **Adaptador**: las matrices `A` y `B` de todas las capas; lo único que se entrena y se guarda.
# - **`peft`**: la biblioteca de Hugging Face para LoRA y otros ajustes con pocos parámetros.
# - **QLoRA**: LoRA sobre un modelo base cuantizado en 4 bits.
# - **NF4**: el formato de 4 bits de QLoRA, pensado para pesos con distribución normal.
# - **Doble cuantización**: cuantizar también las escalas de cada bloque de pesos de 4 bits
#   (`bnb_4bit_use_double_quant=True`).
# - ***Activation checkpointing***: no guardar las activaciones y recalcularlas en la pasada hacia
#   atrás; menos memoria a cambio de más cálculo (lección 07).
# - **`meta`**: un dispositivo de PyTorch con tensores sin datos: forma y tipo, cero bytes.
# - **Fusionar (`merge_and_unload`)**: sumar el adaptador a los pesos y volver a un modelo normal.
# - **`GradScaler`**: multiplica la pérdida para que los gradientes pequeños no se pierdan en fp16.

# %%
# Comprobación final: la pérdida baja, el modelo base queda intacto y fusionar el adaptador no cambia lo que predice.
# Ejecútala tras cambiar algo: si deja de ser cierto, falla y dice qué.
assert resultado.perdidas[-1] < resultado.perdidas[0], resultado.perdidas  # LoRA aprende
assert iguales  # los pesos del modelo base no cambiaron: solo se entrenó el adaptador
assert diferencia < 1e-4, diferencia  # fusionar el adaptador (merge_and_unload) da los mismos logits
print("Comprobado: la pérdida baja, el modelo base queda intacto y fusionar no cambia lo que predice.")
