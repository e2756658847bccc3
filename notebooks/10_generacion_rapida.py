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
# Arranque: solo en Google Colab, y solo si falta, instala el paquete del curso.
# En tu computadora esta celda no hace nada.
import importlib.util, subprocess, sys
REPOSITORIO_CURSO = "https://github.com/curso-gpu/curso_gpu"
if "google.colab" in sys.modules and importlib.util.find_spec("curso_gpu") is None:
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", f"git+{REPOSITORIO_CURSO}"], check=True)

# %% [markdown]
# ## Qué vas a aprender
#
# - Qué cuesta **un token**: leer todos los pesos del modelo. Y de ahí, el **techo** de tokens por
#   segundo de tu GPU, con una división.
# - Qué ahorran `model.eval()` y `torch.inference_mode()`.
# - La **caché KV**: qué guarda, cuánto ocupa (calculado y medido) y cuánto tiempo ahorra.
# - Generar **por lotes**: relleno a la **izquierda** con máscara de atención, y el error clásico
#   del relleno a la derecha.
# - Qué verás en una **T4**: fp16, caché estática con `torch.compile` e int8.
#
# ## Por qué importa
#
# Después de ajustar tu modelo (lección 09) quieres usarlo, y la queja más repetida es «`generate`
# va lento y la GPU está al 40 %». No es un fallo de tu código: al generar de uno en uno, la GPU
# pasa casi todo el tiempo **leyendo pesos de su memoria**, no calculando. Con esa idea sabes qué
# esperar, qué arreglos sirven (lotes, fp16, menos bytes por peso) y cuáles no.
#
# Todo se mide aquí en la CPU con el modelo diminuto de la lección 09 (sin descargas). Lo de la
# T4 está escrito como «lo que verás», con sus fuentes.

# %%
import time

import torch

from curso_gpu.ajuste import TEXTO_ENTRENAMIENTO, config_de, modelo_diminuto, modelo_en_meta
from curso_gpu.generacion import (
    avisos_de_transformers,
    bytes_cache_kv,
    bytes_de_cache,
    cache_de,
    medir_ancho_de_banda,
    medir_generacion,
    preparar_lote,
    techo_tokens_por_segundo,
)
from curso_gpu.medicion import comparar_tiempos
from curso_gpu.base import formatear_numero

torch.set_num_threads(1)  # con un modelo diminuto, más hilos solo se estorban (y la CPU es compartida)
torch.manual_seed(0)
INICIO = time.perf_counter()
print("PyTorch", torch.__version__)

# %% [markdown]
# ## La idea clave: un token cuesta leer todos los pesos
#
# Un modelo de lenguaje genera **un token cada vez**: mira todo el texto, elige el siguiente token,
# lo añade y vuelve a empezar. Para cada token nuevo, cada peso del modelo se usa una vez, así que
# **todos los pesos viajan de la memoria de la GPU a sus núcleos en cada paso**. Con un solo texto
# (lote 1) los cálculos son pocos (una multiplicación y una suma por peso), y la GPU espera a la
# memoria. Es el techo de la lección 03, pero con la memoria en vez de los FLOP/s:
#
# ```
# tokens/s  ≤  ancho de banda de la memoria (bytes/s) ÷ bytes de los pesos
# ```
#
# Un ejemplo con cifras de verdad: Qwen2.5-0.5B. Su arquitectura (los valores de su `config.json`)
# está en el paquete desde la lección 09; con ella se cuentan sus parámetros en el dispositivo
# `meta`, sin descargar nada:

# %%
QWEN25_05B = config_de("Qwen2.5-0.5B")  # 24 capas, 896 de ancho, 14 cabezas de consulta y 2 de claves/valores
qwen = modelo_en_meta(QWEN25_05B)       # la forma de los tensores, sin memoria
parametros = sum(p.numel() for p in qwen.parameters())
bytes_fp16 = parametros * 2
print(f"Qwen2.5-0.5B: {formatear_numero(parametros)} parámetros → {bytes_fp16 / 1e9:.3f} GB en fp16")
print(f"Techo en una T4 (320 GB/s), a mano: {320e9 / bytes_fp16:.0f} tokens/s")

# %% [markdown]
# El ancho de banda de cada GPU está en la tabla de GPU del curso, con su fuente (la ficha del
# fabricante). `techo_tokens_por_segundo` hace la misma división:

# %%
for gpu in ["Tesla T4", "NVIDIA L4", "NVIDIA A100-SXM4-80GB", "NVIDIA H100 80GB HBM3"]:
    print(f"{gpu:<24} techo con lote 1: {techo_tokens_por_segundo(bytes_fp16, gpu):>6.0f} tokens/s")

# %% [markdown]
# Es un **techo**: ningún truco de software lo pasa con lote 1 y pesos en fp16. Lo que sí lo sube:
# menos bytes por peso (int8, int4) o más textos a la vez (cada lectura de los pesos sirve a todo el
# lote). Lo verás medido más abajo.
#
# ## Paso a paso
#
# ### 1. El modelo diminuto de la lección 09
#
# Arquitectura de Qwen2 con 64 de ancho y 2 capas, pesos aleatorios y un tokenizador de
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
#   azar). Sin él, dos generaciones con la misma entrada pueden dar textos distintos.
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
print(f"\nSin inference_mode, autograd guarda {guardado_con_grafo / 1024:.0f} KiB para la pasada hacia atrás; "
      f"con inference_mode, {sum(guardados) / 1024:.0f} KiB.")
print("¿Los logits piden gradiente?", con_grafo.logits.requires_grad, "→", sin_grafo.logits.requires_grad)
del con_grafo

# %% [markdown]
# Aquí son unos cientos de KiB; con un modelo de 0.5B y textos largos en la GPU son gigas, y el
# primer síntoma es un `CUDA out of memory` que no tiene sentido «si solo estoy evaluando».
#
# ### 3. La caché KV: qué guarda y cuánto ocupa
#
# En cada paso, la atención de cada capa compara el token nuevo con **todos los anteriores**
# usando sus **claves** (K) y sus **valores** (V). Sin caché, el modelo recalcularía K y V de todo
# el texto en cada paso. La caché los guarda: en cada paso solo se calculan los del token nuevo.
# Ocupa, por token y por texto:
#
# ```
# 2 (K y V) × capas × cabezas de K/V × dimensión de cabeza × bytes por valor
# ```
#
# Qwen2.5-0.5B usa **atención agrupada** (GQA): 14 cabezas de consulta comparten solo 2 de claves
# y valores, y la caché es 7 veces más pequeña de lo que sería sin ella.

# %%
por_token = bytes_cache_kv(QWEN25_05B, tokens=1, bytes_por_valor=2)  # fp16
print(f"Qwen2.5-0.5B en fp16: 2 · 24 · 2 · 64 · 2 = {por_token} bytes = {por_token / 1024:.0f} KiB por token")
for tokens, lote in [(4096, 1), (32_768, 1), (32_768, 16)]:
    total = bytes_cache_kv(QWEN25_05B, tokens=tokens, lote=lote)
    print(f"  {tokens:>6} tokens × lote {lote:>2}: {total / 2**20:>8.0f} MiB")

# %% [markdown]
# Con 32 768 tokens son 384 MiB: poco al lado de los 0.99 GB de pesos. Pero crece con la longitud
# **y** con el lote: 16 textos de 32 k tokens son 6 GiB. Ahora la medimos en el modelo diminuto: una
# pasada con `use_cache=True` devuelve la caché, con un tensor de claves y otro de valores por capa
# de forma `[lote, cabezas_kv, tokens, dimensión]`:

# %%
with torch.inference_mode():
    salida = modelo(**texto_largo, use_cache=True)
cache = cache_de(salida)  # salida.cache en transformers 5; salida.past_key_values en las versiones 4
tokens = texto_largo["input_ids"].shape[1]
if hasattr(cache, "layers"):
    print("claves de la capa 0:", tuple(cache.layers[0].keys.shape), "· valores:", tuple(cache.layers[0].values.shape))
medido = bytes_de_cache(cache)
calculado = bytes_cache_kv(modelo.config, tokens=tokens, bytes_por_valor=4)  # el modelo diminuto está en fp32
print(f"{tokens} tokens: medido {medido} bytes, calculado {calculado} bytes →", "iguales" if medido == calculado else "¡distintos!")

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
comparacion = comparar_tiempos(con_cache, sin_cache, nombres=("con caché", "sin caché"), repeticiones=5,
                               presupuesto_s=None, descripcion="200 tokens de entrada + 60 nuevos")
print(comparacion.veredicto)
comparacion

# %% [markdown]
# Con 200 tokens de entrada y 60 nuevos, en este modelo diminuto la caché ganó entre 1.7 y 2.3 veces
# en nuestras ejecuciones, con la CPU tranquila y con la CPU ocupada (las medidas alternadas se frenan
# juntas). La frase de arriba dice lo que pasó en la tuya. La ventaja crece con la longitud del texto (sin caché, el trabajo
# total crece con el cuadrado) y con el tamaño del modelo: en una T4 con un modelo de 0.5B y textos
# de miles de tokens, generar sin caché es inviable. Por eso `use_cache=True` es lo que hace
# `generate` por defecto.
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
# **¿Cuánto ganas con el lote?** `medir_generacion` genera con `generate` y mide: tokens por
# segundo, tiempo hasta el primer token (leer la entrada) y la caché al terminar. Lo medimos con
# lotes de 1, 4 y 16 textos:

# %%
FRASES = [f.strip() + "." for f in TEXTO_ENTRENAMIENTO.split(".") if f.strip()]
medidas = {}
for lote in (1, 4, 16):
    textos = [FRASES[i % len(FRASES)] for i in range(lote)]
    medidas[lote] = medir_generacion(modelo, tokenizador, textos, max_tokens_nuevos=32, dispositivo="cpu")
    print(f"lote {lote:>2}: {medidas[lote].tokens_por_segundo:>7.0f} tokens/s")
medidas[16]

# %% [markdown]
# Y el techo de **esta** máquina: su ancho de banda de memoria, medido copiando un tensor grande,
# entre los bytes de los pesos del modelo diminuto:

# %%
ancho_cpu = medir_ancho_de_banda("cpu", megabytes=64)
print(f"Ancho de banda medido en esta CPU (1 hilo): {ancho_cpu:.1f} GB/s")
techos = {lote: techo_tokens_por_segundo(bytes_pesos, ancho_cpu, lote=lote) for lote in medidas}
for lote, medida in medidas.items():
    print(f"lote {lote:>2}: medido {medida.tokens_por_segundo:>7.0f} tokens/s, techo {techos[lote]:>9.0f} tokens/s "
          f"→ {100 * medida.tokens_por_segundo / techos[lote]:.1f} % del techo")
ganancia = medidas[16].tokens_por_segundo / medidas[1].tokens_por_segundo
print(f"\nCon lote 16, {ganancia:.1f} veces los tokens/s del lote 1 en esta ejecución.")

# %%
from curso_gpu.graficos import COLORES, dar_estilo, leyenda_fuera, nueva_figura

figura, ejes = nueva_figura()
lotes = list(medidas)
ejes.plot(lotes, [medidas[l].tokens_por_segundo for l in lotes], marker="o", color=COLORES["cpu"],
          label="medido en esta CPU")
ejes.plot(lotes, [techos[l] for l in lotes], linestyle="--", color=COLORES["referencia"],
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
# - Los tokens/s **suben con el lote**: cada paso cuesta casi lo mismo con 1 texto que con 16,
#   porque lo caro es el coste fijo del paso, no los cálculos.
# - El modelo diminuto queda **muy lejos** de su techo. Sus pesos (unos cientos de KiB) caben en la
#   caché del procesador: aquí no manda la memoria, sino el coste fijo de cada paso (Python y lanzar
#   decenas de operaciones pequeñas), como con las matrices pequeñas de la lección 03.
# - Con un modelo de verdad en una GPU, los pesos (0.99 GB) no caben en ninguna caché y la memoria
#   sí manda: ahí el techo es la cifra que importa, y el lote lo multiplica hasta que manda el cálculo.
#
# ### 5. En una GPU: lo que verás en una T4
#
# Si tienes una GPU, esta celda mide lo mismo en ella, con el modelo diminuto en fp16:

# %%
if torch.cuda.is_available():
    gpu = torch.device("cuda")
    diminuto_gpu = modelo.to(gpu, torch.float16)
    medida_gpu = medir_generacion(diminuto_gpu, tokenizador, FRASES[:1], max_tokens_nuevos=32, dispositivo=gpu)
    print(medida_gpu)
    nombre = torch.cuda.get_device_name(gpu)
    print(f"Qwen2.5-0.5B en fp16 en tu {nombre}: techo de "
          f"{techo_tokens_por_segundo(bytes_fp16, nombre):.0f} tokens/s con lote 1.")
    modelo = modelo.to("cpu", torch.float32)
else:
    print("Sin GPU: no hay nada que medir aquí. Abre la lección en Colab con una T4 para verlo.")

# %% [markdown]
# Con Qwen2.5-0.5B (494 millones de parámetros) en una T4, esto es lo que verás y por qué:
#
# | qué cambias | techo con lote 1 | lo que verás |
# |---|---|---|
# | pesos en fp32 (1.98 GB) | 162 tokens/s | la mitad que en fp16: el doble de bytes por token |
# | pesos en **fp16** (0.99 GB) | 324 tokens/s | lo normal; muy por debajo del techo con `generate` tal cual |
# | caché **estática** + `torch.compile` | 324 tokens/s | más cerca del techo: hasta 4 veces más rápido según la documentación de `transformers` |
# | **int8** con bitsandbytes (`load_in_8bit`) | 648 tokens/s | **más lento** que fp16 (unas 2.5 veces en una T4) |
# | **int8** solo de pesos con torchao | 648 tokens/s | la mitad de bytes por peso; cuánto gana depende de compilar |
#
# Los techos salen de la división de arriba (320 GB/s entre los bytes). Lo demás:
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
#   la ganancia se pierde; no tenemos una medida publicada en una T4 que citar: mídelo tú (reto 4).
#
# `benchmarks/validar_en_gpu.py` mide los tokens/s con lote 1 en la GPU que tenga y los compara con
# su techo cada vez que quien mantiene el curso tiene una GPU.
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
# | Olvidar `model.eval()` | el *dropout* sigue encendido: textos distintos con la misma entrada | `modelo.eval()` antes de generar |
# | Llamar al modelo sin `torch.inference_mode()` | autograd guarda activaciones: más memoria y tiempo | `with torch.inference_mode():` |
# | Textos muy largos o lotes grandes | `CUDA out of memory` por la **caché**, no por los pesos | calcula antes con `bytes_cache_kv`; baja el lote o la longitud |
# | `max_length` en vez de `max_new_tokens` | `max_length` cuenta **también la entrada**: con una entrada larga no genera nada | usa siempre `max_new_tokens` |
#
# La caché que no cabe, con cifras: Qwen2.5-0.5B en fp16 con 64 textos de 32 768 tokens en una T4,
# donde PyTorch ve unos 15 080 MiB (14.7 GiB; lección 04):

# %%
cache_grande = bytes_cache_kv(QWEN25_05B, tokens=32_768, lote=64)
total = cache_grande + bytes_fp16
print(f"caché {cache_grande / 2**30:.0f} GiB + pesos {bytes_fp16 / 2**30:.2f} GiB = {total / 2**30:.1f} GiB:",
      "cabe" if total <= 15_080 * 2**20 else "no cabe", "en una T4")

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
# 4. En Colab con una T4: carga Qwen2.5-0.5B en fp16 y mide los tokens/s con lote 1; luego con
#    `cache_implementation="static"` y `torch.compile`. ¿Qué % del techo de 324 tokens/s alcanzas?
# 5. ¿Por qué el tiempo hasta el primer token crece con la longitud de la entrada y el ritmo de
#    después casi no? Compruébalo con `medir_generacion` y entradas de 10 y 300 caracteres.
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
# - **Tiempo hasta el primer token**: lo que tarda en leer la entrada y dar el primer token nuevo.
# - **`torch.inference_mode()`**: ejecutar sin apuntar nada para los gradientes.
# - **Caché estática**: una caché reservada entera al principio, de tamaño fijo, que permite compilar.
# - **Cuantizar**: guardar los pesos con menos bits (int8, int4) para leer menos bytes.

# %%
print(f"Lección ejecutada en {time.perf_counter() - INICIO:.0f} s")

# %%
# Comprobación final: lo que esta lección te mostró, escrito como `assert`. Si algo deja de ser
# cierto (en tu máquina o tras cambiar una celda), esta celda falla y dice qué.
assert medido == calculado  # la caché KV medida ocupa lo que dice la cuenta
assert por_token == 12_288  # Qwen2.5-0.5B en fp16: 12 KiB por token
assert en_lote == [t for t in uno_a_uno], (en_lote, uno_a_uno)  # en lote con relleno a la izquierda: el mismo texto
print("Comprobado: la caché KV ocupa lo calculado y generar en lote da el mismo texto que de uno en uno.")
