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
# [![Abrir en Colab](https://colab.research.google.com/assets/colab-badge.svg)](https://colab.research.google.com/github/curso-gpu/curso_gpu/blob/main/notebooks/10_generacion_rapida.ipynb)
#
# # Lección 10 — Generar texto rápido: caché KV, lotes y el techo del ancho de banda

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
# - Qué cuesta **un token**: leer todos los pesos del modelo. Y de ahí, el **techo** de tokens por
#   segundo de tu GPU, con una división.
# - Qué ahorran `model.eval()` y `torch.inference_mode()`.
# - Las dos fases de generar: leer la entrada (***prefill***, de ahí el **tiempo hasta el primer
#   token**, TTFT) y escribir token a token (***decode***).
# - La **caché KV**: qué guarda, cuánto ocupa (calculado y medido) y cuánto tiempo ahorra.
# - Generar **por lotes**: relleno a la **izquierda** con máscara de atención, y el error clásico
#   del relleno a la derecha.
# - A generar con el **adaptador que entrenaste en la lección 09**: antes y después, y si el
#   adaptador sin fusionar va más lento que el modelo fusionado (medido).
# - Qué verás en una **T4**: fp16, caché estática con `torch.compile` e int8; con una GPU, medido.
#
# ## Por qué importa
#
# Después de ajustar tu modelo (lección 09) quieres usarlo, y la queja más repetida es «`generate`
# va lento y la GPU está al 40 %». No es un fallo de tu código: al generar de uno en uno, la GPU
# pasa casi todo el tiempo **leyendo pesos de su memoria**, no calculando. Con esa idea sabes qué
# esperar, qué arreglos sirven (lotes, fp16, menos bytes por peso) y cuáles no.
#
# Todo se mide aquí en la CPU con el modelo diminuto de la lección 09 (sin descargas). Con una GPU,
# la sección 6 carga Qwen2.5-0.5B de verdad y lo mide; sin ella, dice qué verías en una T4 y por qué.

# %%
import time

import torch

from curso_gpu.ajuste import TEXTO_ENTRENAMIENTO, config_de, modelo_diminuto, modelo_en_meta
from curso_gpu.generacion import (
    ADAPTADOR_DIMINUTO,
    VARIANTES,
    avisos_de_transformers,
    buscar_adaptador,
    bytes_cache_kv,
    bytes_de_cache,
    cache_de,
    medir_ancho_de_banda,
    medir_barrido,
    medir_generacion,
    preparar_lote,
    techo_tokens_por_segundo,
)
from curso_gpu.medicion import comparar_tiempos
from curso_gpu.base import formatear_numero
from curso_gpu.dispositivo import simulacion_activa

torch.manual_seed(0)
# En la T4 simulada (CURSO_GPU_SIMULAR=T4) cada operación pasa por el simulador: menos repeticiones
# en las medidas, que de todos modos no dicen nada de una GPU.
RONDAS = 3 if simulacion_activa() else None
print("PyTorch", torch.__version__)

# %% [markdown]
# ## La idea clave: un token cuesta leer todos los pesos
#
# Un modelo de lenguaje genera **un token cada vez**: mira todo el texto, elige el siguiente token,
# lo añade y vuelve a empezar. Para cada token nuevo, cada peso del modelo se usa una vez, así que
# **todos los pesos viajan de la memoria de la GPU a sus núcleos en cada paso**. Con un solo texto
# (lote 1) los cálculos son pocos (una multiplicación y una suma por peso), y la GPU espera a la
# memoria. Es la idea del «% del pico» de la lección 03, pero con la memoria en vez de los FLOP/s:
#
# ```
# tokens/s  ≤  ancho de banda de la memoria (bytes/s) ÷ bytes de los pesos
# ```
#
# Un ejemplo con cifras de verdad: Qwen2.5-0.5B. Su arquitectura (los valores de su `config.json`)
# está en el paquete desde la lección 09; con ella se cuentan sus parámetros en el dispositivo
# `meta`, sin descargar nada:

# %%
QWEN25_05B = config_de("Qwen2.5-0.5B")  # 24 bloques, 896 de ancho, 14 cabezas de consulta y 2 de claves/valores
qwen = modelo_en_meta(QWEN25_05B)       # la forma de los tensores, sin memoria
parametros = sum(p.numel() for p in qwen.parameters())
bytes_fp16 = parametros * 2
print(f"Qwen2.5-0.5B: {formatear_numero(parametros)} parámetros → {bytes_fp16 / 1e9:.3f} GB en fp16")
print(f"Techo en una T4 (320 GB/s), a mano: {formatear_numero(320e9 / bytes_fp16, 0)} tokens/s")

# %% [markdown]
# El ancho de banda de cada GPU está en la tabla de GPU del curso, con su fuente (la ficha del
# fabricante). `techo_tokens_por_segundo` hace la misma división:

# %%
for gpu in ["Tesla T4", "NVIDIA L4", "NVIDIA A100-SXM4-80GB", "NVIDIA H100 80GB HBM3"]:
    print(f"{gpu:<24} techo con lote 1: {formatear_numero(techo_tokens_por_segundo(bytes_fp16, gpu), 0):>6} tokens/s")

# %% [markdown]
# Es un **techo**: ningún truco de software lo pasa con lote 1 y pesos en fp16. Lo que sí lo sube:
# menos bytes por peso (int8, int4) o más textos a la vez (cada lectura de los pesos sirve a todo el
# lote). Lo verás medido más abajo.
#
# ## Paso a paso
#
# ### 1. El modelo diminuto de la lección 09
#
# Arquitectura de Qwen2 con 64 de ancho y 2 bloques, pesos aleatorios y un tokenizador de
# caracteres. El texto que escribe no tiene sentido (no ha aprendido nada), pero es un modelo de
# `transformers` de verdad, con su `generate`: sirve para medir y comparar.

# %%
modelo, tokenizador = modelo_diminuto(semilla=0)
bytes_pesos = sum(p.numel() * p.element_size() for p in modelo.parameters())
print(f"{formatear_numero(sum(p.numel() for p in modelo.parameters()))} parámetros, {bytes_pesos / 1024:.0f} KiB en fp32")

entrada = tokenizador("La GPU hace muchas cuentas", return_tensors="pt")  # input_ids y attention_mask
salida = modelo.generate(**entrada, max_new_tokens=20, do_sample=False,
                         pad_token_id=tokenizador.pad_token_id)
print(repr(tokenizador.decode(salida[0], skip_special_tokens=True)))

# %% [markdown]
# Fíjate en los argumentos: `**entrada` pasa también la **máscara de atención**, `max_new_tokens`
# dice cuántos tokens **nuevos** generar, `do_sample=False` elige siempre el más probable
# (búsqueda voraz, *greedy*) y `pad_token_id` dice cuál es el relleno. Sin ellos, `transformers`
# adivina y te avisa en rojo.
#
# ### 2. `model.eval()` y `torch.inference_mode()`
#
# - **`model.eval()`** apaga lo que solo sirve para entrenar, como el *dropout* (apagar neuronas al
#   azar). Solo cambia algo si el modelo tiene *dropout* encendido: entonces, sin `eval()`, dos
#   pasadas con la misma entrada dan resultados distintos. `from_pretrained` ya devuelve el modelo
#   en modo evaluación (y Qwen2.5 trae el *dropout* de la atención a 0); el riesgo es volver de
#   entrenar (lección 09: `ajustar` deja el modelo en `train()`) y generar sin llamar a `eval()`.
# - **`torch.inference_mode()`** le dice a PyTorch que no vas a calcular gradientes: no guarda lo
#   que haría falta para la pasada hacia atrás (las activaciones de la lección 07) y no apunta
#   el grafo.
#
# `generate` ya trabaja sin gradientes por dentro. Pero si llamas al modelo tú mismo (para puntuar
# textos, por ejemplo), sin `inference_mode` autograd guarda sus tensores. Lo medimos con el mismo
# truco de la lección 07:

# %%
print("¿En modo evaluación?", not modelo.training)
capa = torch.nn.Dropout(p=0.1).train()
x = torch.ones(8)
print("dropout en train():", [round(v, 2) for v in capa(x).tolist()])
print("dropout en eval(): ", [round(v, 2) for v in capa.eval()(x).tolist()])

guardados = []
def al_guardar(tensor):
    guardados.append(tensor.numel() * tensor.element_size())
    return tensor

texto_largo = tokenizador(TEXTO_ENTRENAMIENTO[:300], return_tensors="pt")
with torch.autograd.graph.saved_tensors_hooks(al_guardar, lambda t: t):
    con_grafo = modelo(**texto_largo)
guardado_con_grafo, guardados = sum(guardados), []
with torch.inference_mode(), torch.autograd.graph.saved_tensors_hooks(al_guardar, lambda t: t):
    sin_grafo = modelo(**texto_largo)
print(f"\nSin inference_mode, autograd guarda {formatear_numero(guardado_con_grafo / 2**20, 1)} MiB para la pasada "
      f"hacia atrás; con inference_mode, {formatear_numero(sum(guardados) / 2**20, 1)} MiB.")
print("¿Los logits piden gradiente?", con_grafo.logits.requires_grad, "→", sin_grafo.logits.requires_grad)
del con_grafo

# %% [markdown]
# Aquí son unos 4 MiB (trece veces los 314 KiB de pesos: las activaciones de 300 tokens); con un
# modelo de 0.5B y textos largos en la GPU son gigas, y el primer síntoma es un `CUDA out of memory`
# que no tiene sentido «si solo estoy evaluando».
#
# ### 3. La caché KV: qué guarda y cuánto ocupa
#
# En cada paso, la atención de cada bloque compara el token nuevo con **todos los anteriores**
# usando sus **claves** (K) y sus **valores** (V). Sin caché, el modelo recalcularía K y V de todo
# el texto en cada paso. La caché los guarda: en cada paso solo se calculan los del token nuevo.
# Ocupa, por token y por texto:
#
# ```
# 2 (K y V) × bloques × cabezas de K/V × dimensión de cabeza × bytes por valor
# ```
#
# Qwen2.5-0.5B usa **atención agrupada** (GQA): 14 cabezas de consulta comparten solo 2 de claves
# y valores, y la caché es 7 veces más pequeña de lo que sería sin ella.

# %%
por_token = bytes_cache_kv(QWEN25_05B, tokens=1, bytes_por_valor=2)  # fp16
print(f"Qwen2.5-0.5B en fp16: 2 · 24 · 2 · 64 · 2 = {formatear_numero(por_token)} bytes = "
      f"{por_token / 1024:.0f} KiB por token")
for tokens, lote in [(4096, 1), (32_768, 1), (32_768, 16)]:
    total = bytes_cache_kv(QWEN25_05B, tokens=tokens, lote=lote)
    print(f"  {formatear_numero(tokens):>6} tokens × lote {lote:>2}: {formatear_numero(total / 2**20, 0):>5} MiB")
print(f"Los pesos en fp16: {formatear_numero(bytes_fp16 / 2**20, 0)} MiB")

# %% [markdown]
# Con 32 768 tokens son 384 MiB: poco al lado de los 942 MiB de pesos. Pero crece con la longitud
# **y** con el lote: 16 textos de 32 768 tokens son 6 144 MiB (6 GiB). Ahora la medimos en el modelo diminuto: una
# pasada con `use_cache=True` devuelve la caché, con un tensor de claves y otro de valores por bloque
# de forma `[lote, cabezas_kv, tokens, dimensión]`:

# %%
with torch.inference_mode():
    salida = modelo(**texto_largo, use_cache=True)
cache = cache_de(salida)  # salida.cache en transformers 5; salida.past_key_values en las versiones 4
tokens = texto_largo["input_ids"].shape[1]
if hasattr(cache, "layers"):  # transformers ≥ 4.54; hasta la 4.55 también cache.key_cache[0] (quitado en la 4.56)
    print("claves del bloque 0:", tuple(cache.layers[0].keys.shape), "· valores:", tuple(cache.layers[0].values.shape))
medido = bytes_de_cache(cache)
calculado = bytes_cache_kv(modelo.config, tokens=tokens, bytes_por_valor=4)  # el modelo diminuto está en fp32
print(f"{tokens} tokens: medido {formatear_numero(medido)} bytes, calculado {formatear_numero(calculado)} bytes →",
      "iguales" if medido == calculado else "¡distintos!")

# %% [markdown]
# **¿Cambia el texto?** No: la caché solo evita repetir cuentas. Con búsqueda voraz, el texto con
# y sin caché es el mismo, token a token:

# %%
PROMPT_LARGO = tokenizador(TEXTO_ENTRENAMIENTO[:200], return_tensors="pt")
OPCIONES = dict(max_new_tokens=60, do_sample=False, pad_token_id=tokenizador.pad_token_id)

def con_cache():
    return modelo.generate(**PROMPT_LARGO, use_cache=True, **OPCIONES)

def sin_cache():
    return modelo.generate(**PROMPT_LARGO, use_cache=False, **OPCIONES)

print("¿El mismo texto con y sin caché?", torch.equal(con_cache(), sin_cache()))

# %% [markdown]
# **¿Cuánto tiempo ahorra?** Sin caché, el paso *n* procesa los *n* tokens anteriores; con caché,
# uno. Las dos formas se miden **alternadas** (con, sin, sin, con...), para que si otro programa
# frena la máquina, las frene a las dos; el veredicto sale de los datos, con su intervalo:

# %%
comparacion = comparar_tiempos(con_cache, sin_cache, nombres=("con caché", "sin caché"), repeticiones=RONDAS or 9,
                               presupuesto_s=None, descripcion="200 tokens de entrada + 60 nuevos")
print(comparacion.veredicto)
comparacion

# %% [markdown]
# La frase de arriba dice lo que pasó en tu máquina. Con 200 tokens de entrada y 60 nuevos, en este
# modelo diminuto y en una CPU de 2 núcleos, la caché ganó entre 1.5 y 4 veces, con la CPU tranquila
# y con la CPU ocupada: las dos medidas van alternadas y se frenan juntas. La ventaja de la caché crece con la longitud del
# texto (sin caché, el trabajo total crece con el cuadrado) y con el tamaño del modelo: en una T4
# con un modelo de 0.5B y textos de miles de tokens, generar sin caché es inviable. Por eso
# `use_cache=True` es lo que hace `generate` por defecto.
#
# ### 4. Por lotes: relleno a la izquierda y máscara de atención
#
# Varios textos a la vez comparten cada lectura de los pesos. Pero tienen longitudes distintas, y
# un lote es un tensor rectangular: los cortos se **rellenan** con el token `<pad>`, y la
# **máscara de atención** (`attention_mask`, 1 = token de verdad, 0 = relleno) le dice al modelo
# que lo ignore. ¿Por qué lado rellenar? Un modelo que solo decodifica sigue escribiendo **por la
# derecha**: si el relleno está a la derecha, los textos cortos siguen *después* del relleno.

# %%
TEXTOS = ["La GPU hace muchas cuentas", "Hola", "Una T4 tiene dieciséis gigas"]
POCOS = dict(max_new_tokens=12, do_sample=False, pad_token_id=tokenizador.pad_token_id)

uno_a_uno = [tokenizador.decode(modelo.generate(**tokenizador(t, return_tensors="pt"), **POCOS)[0],
                                skip_special_tokens=True) for t in TEXTOS]

tokenizador.padding_side = "left"
izquierda = tokenizador(TEXTOS, return_tensors="pt", padding=True)
print("relleno a la izquierda:", izquierda["input_ids"][1].tolist())
print("máscara de atención:   ", izquierda["attention_mask"][1].tolist())
en_lote = tokenizador.batch_decode(modelo.generate(**izquierda, **POCOS), skip_special_tokens=True)

tokenizador.padding_side = "right"
derecha = tokenizador(TEXTOS, return_tensors="pt", padding=True)
with avisos_de_transformers() as avisos:  # recoge el aviso de transformers para leerlo aquí
    mal = tokenizador.batch_decode(modelo.generate(**derecha, **POCOS), skip_special_tokens=True)

for uno, izq, der in zip(uno_a_uno, en_lote, mal):
    print(f"\nde uno en uno: {uno!r}\nizquierda:     {izq!r} {'✓ igual' if izq == uno else '✗ distinto'}"
          f"\nderecha:       {der!r} {'✓ igual' if der == uno else '✗ distinto'}")
print("\ntransformers avisó:", *avisos)

# %% [markdown]
# Con relleno a la izquierda, cada texto del lote sale **igual** que generado solo. Con relleno a
# la derecha, el texto más largo (que no lleva relleno) sale bien y los cortos salen mal: el modelo
# los continúa después de los `<pad>`. `transformers` avisa, pero el aviso se pierde entre otros.
# `preparar_lote` del curso rellena siempre por la izquierda, sin tocar tu tokenizador.
#
# **Las dos fases de generar.** `medir_generacion` genera con `generate` y mide el **tiempo hasta
# el primer token** (TTFT: leer toda la entrada de una vez, la fase de ***prefill***) y el ritmo de
# después, token a token (la fase de ***decode***, la que limita la memoria), con la caché al terminar:

# %%
FRASES = [f.strip() + "." for f in TEXTO_ENTRENAMIENTO.split(".") if f.strip()]
medir_generacion(modelo, tokenizador, FRASES[:4], max_tokens_nuevos=32, dispositivo="cpu")

# %% [markdown]
# **¿Cuánto ganas con el lote?** `medir_barrido` genera 32 tokens por texto con lotes de 1, 4 y 16
# textos, y **alterna** las medidas (una ronda mide los tres lotes, la siguiente en orden inverso):
# si otro programa frena la máquina, frena a los tres. Con el ancho de banda de **esta** máquina
# (medido copiando un tensor grande) calcula además el techo de cada lote:

# %%
ancho_cpu = medir_ancho_de_banda("cpu", megabytes=64)
print(f"Ancho de banda medido en esta CPU (1 hilo): {ancho_cpu:.1f} GB/s")
barrido = medir_barrido(modelo, tokenizador, FRASES, lotes=(1, 4, 16), max_tokens_nuevos=32, repeticiones=RONDAS or 5,
                        dispositivo="cpu", ancho_de_banda_gb_s=ancho_cpu)
print(*barrido.frases(), sep="\n")
barrido

# %%
from curso_gpu.graficos import COLORES, dar_estilo, leyenda_fuera, nueva_figura

figura, ejes = nueva_figura()
lotes = [1, 4, 16]
ejes.plot(lotes, [barrido.fila("con caché", l).tokens_por_segundo for l in lotes], marker="o", color=COLORES["cpu"],
          label="medido en esta CPU")
ejes.plot(lotes, [barrido.techo(l) for l in lotes], linestyle="--", color=COLORES["referencia"],
          label=f"techo: {ancho_cpu:.1f} GB/s ÷ {bytes_pesos / 1024:.0f} KiB de pesos × lote")
ejes.set_xscale("log", base=2)
ejes.set_yscale("log")
ejes.set_xticks(lotes, [str(l) for l in lotes])
dar_estilo(ejes, "Modelo diminuto: tokens por segundo según el lote", "lote (textos a la vez)",
           "tokens/s (escala log)")
leyenda_fuera(ejes, debajo=True);

# %% [markdown]
# Lo que dice la figura:
#
# - Los tokens/s **suben con el lote**: un paso con 16 textos cuesta poco más que uno con 1, y
#   mucho menos que 16 veces: menos de 8. La frase de arriba dice cuánto en tu máquina (por
#   debajo de 1 es ruido). Lo caro es el coste fijo del paso, no los cálculos.
# - El modelo diminuto queda **muy lejos** de su techo. Sus pesos (unos cientos de KiB) caben en la
#   memoria caché del procesador (sus niveles L2 y L3: otra caché, nada que ver con la caché KV).
#   Aquí no manda la memoria, sino el coste fijo de cada paso (Python y lanzar decenas de
#   operaciones pequeñas), como con las matrices pequeñas de la lección 03.
# - Con un modelo de verdad en una GPU, los pesos (0.99 GB) no caben en la caché L2 de la GPU (unos
#   MB) y la memoria sí manda: ahí el techo es la cifra que importa, y el lote lo multiplica hasta
#   que manda el cálculo.
#
# ### 5. Con el adaptador que entrenaste en la lección 09
#
# La lección 09 entrenó un adaptador LoRA para **este mismo** modelo diminuto y lo guardó junto a sus
# checkpoints: en `checkpoints/lora_diminuto/adaptador`, junto al notebook, o en tu Drive si pusiste
# `GUARDAR_EN_DRIVE = True`. **En Colab**, cada notebook tiene su propia máquina: lo que la 09 guardó
# junto a ella ya no está aquí. Si la seguiste en Colab y guardaste en Drive, pon abajo
# `ADAPTADOR_EN_DRIVE = True` (monta tu Drive y te pide permiso). En tu computadora, las dos lecciones
# comparten la carpeta `notebooks/` y no hace falta.
#
# El adaptador se carga sobre el modelo base con `PeftModel.from_pretrained` (`cargar_adaptador` es
# esa llamada, sin un aviso entre `peft` y `transformers` que no depende de ti). `adaptador_diminuto`
# hace eso: busca la carpeta y la carga con `cargar_adaptador`. Si no la encuentra (no ejecutaste la
# lección 09, o la ejecutaste en otra máquina), entrena aquí uno igual, con el mismo `ajustar` (unos
# segundos), y lo dice:

# %%
from curso_gpu.generacion import adaptador_diminuto
from curso_gpu.guardado import carpeta_checkpoints

ADAPTADOR_EN_DRIVE = False  # en Colab: True si en la lección 09 guardaste en Drive
carpeta_09 = carpeta_checkpoints("lora_diminuto", drive=ADAPTADOR_EN_DRIVE, silenciosa=True).ruta / "adaptador"
ajustado = adaptador_diminuto(tokenizador, carpeta_09)  # el de la lección 09 con cargar_adaptador; si no está, uno igual
ajustado.eval()  # ajustar deja el modelo en train(): sin eval(), el dropout seguiría encendido (si lo hubiera)

INICIO_09 = tokenizador("La GPU", return_tensors="pt")
GENERAR = dict(max_new_tokens=40, do_sample=False, pad_token_id=tokenizador.pad_token_id)
with torch.inference_mode():
    antes = tokenizador.decode(modelo.generate(**INICIO_09, **GENERAR)[0], skip_special_tokens=True)
    despues = tokenizador.decode(ajustado.generate(**INICIO_09, **GENERAR)[0], skip_special_tokens=True)
print(f"antes (modelo base):      {antes!r}")
print(f"después (con adaptador):  {despues!r}")

# %% [markdown]
# El modelo base escribe letras al azar; con el adaptador, trozos parecidos al texto con el que
# entrenó en la lección 09 (con un modelo de 80 mil parámetros y unos segundos de entrenamiento, no
# esperes más). **¿Cuesta velocidad el adaptador?** Sin fusionar, cada capa adaptada hace además
# `x·A` y `·B`: dos multiplicaciones pequeñas más por capa y por paso. Fusionado (`merge_and_unload`,
# lección 09), vuelve a ser un modelo normal. Medimos los dos alternados, con el mismo texto:

# %%
import copy

fusionado = copy.deepcopy(ajustado).merge_and_unload()

def con_adaptador():
    return ajustado.generate(**PROMPT_LARGO, **OPCIONES)

def con_fusionado():
    return fusionado.generate(**PROMPT_LARGO, **OPCIONES)

with torch.inference_mode():
    print("¿El mismo texto?", torch.equal(con_adaptador(), con_fusionado()))
    comparacion_fusion = comparar_tiempos(con_fusionado, con_adaptador, nombres=("fusionado", "con adaptador"),
                                          repeticiones=RONDAS or 7, presupuesto_s=None,
                                          descripcion="200 tokens de entrada + 60 nuevos")
print(comparacion_fusion.veredicto)

# %% [markdown]
# La frase de arriba sale de los datos de tu ejecución. En un modelo diminuto en la CPU, las
# multiplicaciones extra del adaptador pesan frente al resto; en una GPU con un modelo de verdad
# pesan menos, pero existen. Para servir un modelo, fusiona; para seguir entrenando o cambiar de
# adaptador, no.
#
# ### 6. En una GPU: Qwen2.5-0.5B medido, o lo que verás en una T4
#
# Con una GPU CUDA, esta celda descarga **Qwen2.5-0.5B** (~1 GB la primera vez), lo carga en fp16
# (con el adaptador de QLoRA de la celda de la T4 de la lección 09, fusionado, si lo guardaste) y
# mide tokens/s con lotes de 1, 4 y 16, con caché, sin caché y con la caché estática compilada,
# frente al techo de **tu** GPU. Si tu GPU no está en la tabla del curso, lo dice y da la medida sola.
# Si no puede descargarlo (sin red, o en la T4 simulada del curso, `CURSO_GPU_SIMULAR=T4`, que no
# descarga nada), lo dice y mide lo mismo con el modelo diminuto en fp16, con lotes y textos cortos.

# %%
if torch.cuda.is_available():
    from curso_gpu.generacion import cargar_para_generar

    nombre_gpu = torch.cuda.get_device_name(0)
    adaptador_qwen = buscar_adaptador(carpeta_checkpoints("qlora_qwen", drive=ADAPTADOR_EN_DRIVE, silenciosa=True).ruta / "adaptador")
    medida = dict(lotes=(1, 4, 16), max_tokens_nuevos=64, repeticiones=3, nombre_gpu=nombre_gpu)
    try:
        qwen_gpu, tokenizador_qwen = cargar_para_generar("Qwen/Qwen2.5-0.5B", "cuda", adaptador=adaptador_qwen)
        print(f"Qwen2.5-0.5B en fp16 en tu {nombre_gpu}",  # solo se ejecuta en una GPU real, tras descargar Qwen2.5-0.5B (~1 GB)
              f"con el adaptador de la lección 09 ({adaptador_qwen}), fusionado." if adaptador_qwen else
              "(sin adaptador: no encontré el de la lección 09).")
    except OSError as error:  # sin red (o con HF_HUB_OFFLINE=1, como en la T4 simulada) y sin una copia guardada
        # En la T4 simulada todo corre en la CPU: la medida lo dice, y no se compara con el techo de una T4.
        donde = ("en la T4 simulada (calcula esta CPU: los tiempos no son de una GPU)" if simulacion_activa()
                 else "en la GPU")
        print(f"No pude cargar Qwen2.5-0.5B ({type(error).__name__}): no hay conexión con huggingface.co, o "
              "HF_HUB_OFFLINE=1 no deja descargar (la T4 simulada lo pone), y no hay una copia guardada.\n"
              f"Mido lo mismo con el modelo diminuto en fp16 {donde}, con lotes de 1 y 4 y 8 tokens:")
        qwen_gpu, tokenizador_qwen = modelo_diminuto(semilla=0)[0].to("cuda", torch.float16), tokenizador
        medida.update(lotes=(1, 4), max_tokens_nuevos=8, repeticiones=1)
    barrido_gpu = medir_barrido(qwen_gpu, tokenizador_qwen, FRASES, variantes=VARIANTES, **medida)
    print(*barrido_gpu.frases(), sep="\n")
    display(barrido_gpu)
else:
    print("Sin GPU CUDA: no cargo Qwen2.5-0.5B (no se descargan modelos sin GPU). En una T4 de Colab, esta "
          "celda imprime los tokens/s con lotes de 1, 4 y 16, con y sin caché y con la caché estática compilada, "
          "y qué parte del techo de 324 tokens/s alcanza cada uno. La tabla de abajo dice qué esperar.")

# %% [markdown]
# Los techos de la T4 según lo que guardes en cada peso. Ojo con int8: Qwen2.5-0.5B **comparte** la
# tabla de *embeddings* con la capa de salida (`lm_head`), 136 millones de parámetros, y al cuantizar
# `transformers` la deja en 16 bits: con bitsandbytes y con torchao salta por defecto la capa de
# salida y los pesos compartidos (`get_keys_to_not_convert`, en `transformers/quantizers/base.py`;
# torchao solo la incluye con `include_input_output_embeddings=True`). Cada paso la lee entera para
# dar las probabilidades:

# %%
embeddings = qwen.get_input_embeddings().weight.numel()
resto = parametros - embeddings
bytes_por_paso = {"fp32": 4 * parametros, "fp16": 2 * parametros,
                  "int8 (lm_head en fp16)": resto + 2 * embeddings, "int8 (si todo fuera int8)": parametros}
print(f"embeddings (= lm_head): {formatear_numero(embeddings)} parámetros; el resto: {formatear_numero(resto)}")
for formato, leidos in bytes_por_paso.items():
    print(f"{formato:<26} {leidos / 1e9:.2f} GB por paso → techo en una T4: "
          f"{formatear_numero(techo_tokens_por_segundo(leidos, 'Tesla T4'), 0)} tokens/s")

# %% [markdown]
# Con Qwen2.5-0.5B (494 millones de parámetros) en una T4, esto es lo que verás y por qué:
#
# | qué cambias | techo con lote 1 | lo que verás |
# |---|---|---|
# | pesos en fp32 (1.98 GB) | 162 tokens/s | la mitad que en fp16: el doble de bytes por token |
# | pesos en **fp16** (0.99 GB) | 324 tokens/s | lo normal; muy por debajo del techo con `generate` tal cual |
# | caché **estática** + `torch.compile` | 324 tokens/s | más cerca del techo: hasta 4 veces más rápido según la documentación de `transformers` |
# | **int8** con bitsandbytes (`load_in_8bit`) | 508 tokens/s | **más lento** que fp16 (unas 2.5 veces en una T4) |
# | **int8** solo de pesos con torchao | 508 tokens/s | menos bytes por peso; cuánto gana depende de compilar |
#
# Los techos salen de la celda de arriba (320 GB/s entre los bytes que lee cada paso). Lo demás:
#
# - **Caché estática + `torch.compile`**: con la caché que crece en cada paso, las formas de los
#   tensores cambian y no se puede compilar. `cache_implementation="static"` reserva la caché entera
#   al principio; entonces `torch.compile(modelo.forward, mode="reduce-overhead")` junta las
#   decenas de operaciones de cada paso y quita el coste fijo de lanzarlas una a una. La guía
#   «Optimizing inference» de `transformers` (docs/source/en/llm_optims.md) habla de «hasta 4 veces»
#   más rápido, menos en modelos grandes, y según el hardware. Las primeras llamadas son lentas:
#   compilan.
# - **int8 con bitsandbytes** (LLM.int8(), Dettmers et al. 2022, arXiv:2208.07339) reduce la
#   **memoria**, no el tiempo: separa los valores extremos y los multiplica en fp16. Medido en una T4
#   de Kaggle con un Qwen de 494 M parámetros, clasificando textos (una pasada por ejemplo, no
#   generando): 12.65 ms por ejemplo en int8 frente a 5.05 ms en fp16 (2.5 veces más lento) y
#   7.92 ms en 4 bits NF4 («Your int8 Quantization Is 2.5× Slower Than fp16»,
#   earino.github.io/applied-deep-learning, leído el 3-12-2026). Úsalo cuando el modelo no cabe en
#   fp16, no para ir más rápido.
# - **int8 solo de pesos con torchao** (`TorchAoConfig(Int8WeightOnlyConfig())`) guarda los pesos en
#   8 bits y los convierte al calcular: la mitad de bytes que leer. Sin compilar, convertir cuesta y
#   la ganancia se pierde; no tenemos una medida publicada en una T4 que citar: mídelo tú (reto 6).
#
# En Colab con GPU T4, la celda del paso 6 mide eso mismo con Qwen2.5-0.5B: tokens/s con lotes de 1,
# 4 y 16, con y sin caché y con la caché estática compilada, frente al techo de tu GPU.
#
# ## Pruébalo
#
# - Cambia `max_tokens_nuevos` a 128 en la medida por lotes: ¿qué pasa con los tokens/s del lote 16?
# - Calcula con `bytes_cache_kv` la caché de Qwen2.5-0.5B con 8 textos de 8192 tokens. ¿Cabe en una T4
#   junto a los pesos?
# - Mide `comparar_tiempos(con_cache, sin_cache)` con `TEXTO_ENTRENAMIENTO[:20]`: ¿sigue ganando la caché?
#
# ## Errores comunes
#
# | error | qué pasa | cómo se arregla |
# |---|---|---|
# | Rellenar a la **derecha** en un lote | los textos cortos salen mal (siguen tras el `<pad>`) | `tokenizador.padding_side = "left"` y pasar `attention_mask` (o `preparar_lote`) |
# | Generar justo después de entrenar sin `model.eval()` | si el modelo tiene *dropout*, sigue encendido: resultados distintos con la misma entrada | `modelo.eval()` antes de generar (`from_pretrained` ya lo deja así) |
# | Llamar al modelo sin `torch.inference_mode()` | autograd guarda activaciones: más memoria y tiempo | `with torch.inference_mode():` |
# | Textos muy largos o lotes grandes | `CUDA out of memory` por la **caché**, no por los pesos | calcula antes con `bytes_cache_kv`; baja el lote o la longitud |
# | `max_length` en vez de `max_new_tokens` | `max_length` cuenta **también la entrada**: con una entrada larga no genera nada | usa siempre `max_new_tokens` |
#
# La caché que no cabe, con cifras: Qwen2.5-0.5B en fp16 con 64 textos de 32 768 tokens en una T4,
# donde PyTorch ve unos 15 100 MiB (14.7 GiB; lección 04):

# %%
cache_grande = bytes_cache_kv(QWEN25_05B, tokens=32_768, lote=64)
total = cache_grande + bytes_fp16
print(f"caché {cache_grande / 2**30:.0f} GiB + pesos {bytes_fp16 / 2**30:.2f} GiB = {total / 2**30:.1f} GiB:",
      "cabe" if total <= 15_100 * 2**20 else "no cabe", "en una T4")

# %% [markdown]
# Y `max_length`, que cuenta también la entrada: pides «30» pensando en 30 tokens nuevos y salen 4.

# %%
entrada = tokenizador("La GPU hace muchas cuentas", return_tensors="pt")  # 26 tokens
with avisos_de_transformers() as avisos:
    salida = modelo.generate(**entrada, max_length=30, do_sample=False, pad_token_id=tokenizador.pad_token_id)
nuevos = salida.shape[1] - entrada["input_ids"].shape[1]
print(f"max_length=30 con una entrada de {entrada['input_ids'].shape[1]} tokens: {nuevos} tokens nuevos")
salida = modelo.generate(**entrada, max_new_tokens=30, do_sample=False, pad_token_id=tokenizador.pad_token_id)
print(f"max_new_tokens=30: {salida.shape[1] - entrada['input_ids'].shape[1]} tokens nuevos")
print("Avisos de transformers:", *(avisos or ["ninguno"]))
# Con una entrada más larga que max_length, transformers 5 da un ValueError; las versiones 4 solo avisaban.

# %% [markdown]
# Los errores del paquete, en español y con el arreglo:

# %%
import copy

sin_relleno = copy.deepcopy(tokenizador)
sin_relleno.pad_token = None  # como muchos tokenizadores de modelos base
for llamada in [lambda: bytes_cache_kv(QWEN25_05B, tokens=0),
                lambda: techo_tokens_por_segundo(bytes_fp16, "RTX 9090"),
                lambda: preparar_lote(sin_relleno, ["uno", "dos textos"])]:
    try:
        llamada()
    except ValueError as error:
        print("ValueError:", error, "\n")

# %% [markdown]
# ## Retos
#
# 1. Mide con `medir_generacion` los lotes 1, 2, 4, 8, 16, 32 y 64. ¿Dónde deja de crecer el ritmo?
#    ¿Por qué crees que para ahí?
# 2. Con `comparar_tiempos`, mide la caché con entradas de 50, 200 y 400 tokens. Dibuja la ventaja
#    frente a la longitud. ¿Crece en línea recta?
# 3. Calcula el techo de Qwen2.5-7B en una T4 en fp16 y en int4 (`modelo_en_meta("Qwen2.5-7B")` te da
#    sus parámetros) y su caché KV con `bytes_cache_kv(config_de("Qwen2.5-7B"), ...)`. ¿Cabe en fp16?
# 4. En Colab con una T4: ejecuta la celda de la sección 6 con `max_tokens_nuevos=256`. ¿Sube el %
#    del techo de 324 tokens/s? ¿Y el de la caché estática compilada?
# 5. ¿Por qué el tiempo hasta el primer token (el *prefill*) crece con la longitud de la entrada y el
#    ritmo de después (el *decode*) casi no? Compruébalo con `medir_generacion` y entradas de 10 y
#    300 caracteres.
# 6. En una T4, carga Qwen2.5-0.5B con `TorchAoConfig(Int8WeightOnlyConfig())` y mide con
#    `medir_barrido` con y sin `torch.compile`. ¿Se acerca al techo de 508 tokens/s?
#
# ## Glosario
#
# - **Token**: el trozo de texto que el modelo lee y escribe (aquí, un carácter).
# - **Búsqueda voraz (*greedy*)**: elegir siempre el token más probable (`do_sample=False`).
# - **Caché KV**: las claves y los valores de la atención de los tokens anteriores, guardados para
#   no recalcularlos.
# - **Atención agrupada (GQA)**: varias cabezas de consulta comparten las mismas claves y valores;
#   la caché se reduce en esa proporción.
# - **Ancho de banda de la memoria**: cuántos bytes por segundo van de la memoria de la GPU a sus núcleos.
# - **Techo (*roofline*)**: el límite que pone la parte más lenta; al generar con lote 1, la memoria.
# - **Relleno (*padding*)** y **máscara de atención**: igualar las longitudes de un lote, y decirle
#   al modelo qué posiciones son relleno.
# - ***Prefill*** y ***decode***: las dos fases de generar. En el *prefill* el modelo lee toda la
#   entrada de una vez (mucho cálculo); en el *decode* escribe un token por paso (mucha memoria).
# - **Tiempo hasta el primer token (TTFT)**: lo que dura el *prefill*: leer la entrada y dar el
#   primer token nuevo.
# - **`torch.inference_mode()`**: ejecutar sin apuntar nada para los gradientes.
# - **Caché estática**: una caché reservada entera al principio, de tamaño fijo, que permite compilar.
# - **Cuantizar**: guardar los pesos con menos bits (int8, int4) para leer menos bytes.

# %%
# Comprobación final: la caché KV ocupa lo calculado y generar en lote da el mismo texto que de uno en uno.
# Ejecútala tras cambiar algo: si deja de ser cierto, falla y dice qué.
assert medido == calculado  # la caché KV medida ocupa lo que dice la cuenta
assert por_token == 12_288  # Qwen2.5-0.5B en fp16: 12 KiB por token
assert en_lote == [t for t in uno_a_uno], (en_lote, uno_a_uno)  # en lote con relleno a la izquierda: el mismo texto
print("Comprobado: la caché KV ocupa lo calculado y generar en lote da el mismo texto que de uno en uno.")
