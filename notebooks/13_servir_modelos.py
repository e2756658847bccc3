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
# [![Abrir en Colab](https://colab.research.google.com/assets/colab-badge.svg)](https://colab.research.google.com/github/curso-gpu/curso_gpu/blob/main/notebooks/13_servir_modelos.ipynb)
#
# # Lección 13 — Servir un modelo a muchos a la vez: una API como la de OpenAI, lotes continuos y latencias medidas

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
# - Por qué **servir** no es llamar a `generate` (lección 10): muchos usuarios a la vez, cada uno
#   esperando su respuesta.
# - A arrancar un **servidor de verdad** (`transformers serve`; en una GPU, vLLM) con la misma API que
#   OpenAI, y a hablarle con HTTP a mano y con el cliente `openai`.
# - A medir una respuesta en *streaming*: el **tiempo hasta el primer token** (TTFT) y los **huecos
#   entre tokens** (ITL, TPOT).
# - A medir **carga**: 1, 2, 4 y 8 usuarios, la **rodilla** de la curva, los **lotes continuos** medidos
#   alternados y el **goodput** bajo un objetivo (SLO).
# - Qué pasa en una **T4** con vLLM: qué versión, qué orden, qué le falta y cuántas conversaciones caben.
# - Los errores de siempre, provocados de verdad: el puerto ocupado, una entrada demasiado larga, un
#   servidor que muere a mitad de respuesta y un cliente que no lee.
#
# ## Por qué importa
#
# Ya sabes ajustar un modelo (lección 09) y generar rápido en un proceso (lección 10). El siguiente paso
# es que **otros** lo usen: una aplicación, tus compañeros, un bot. Eso es un servidor, y las preguntas
# cambian: ¿cuánto espera cada usuario antes de ver la primera palabra?, ¿cuántos usuarios aguanta
# antes de que la espera se dispare? Se responden **midiendo**, y aquí aprendes a hacerlo bien.
#
# Todo corre aquí en la CPU con el modelo diminuto de la lección 09 (sin descargas), servido por
# `transformers serve`. En una GPU con vLLM, la sección 5 sirve Qwen2.5-0.5B con el mismo código.

# %%
import json
import tempfile
import time
import urllib.request

import psutil
import torch

from curso_gpu.ajuste import config_de, modelo_diminuto, modelo_en_meta
from curso_gpu.base import (
    HECHOS_VLLM_T4,
    MENSAJE_VLLM_BF16_T4,
    MENSAJE_VLLM_FP8_KV_T4,
    ORDEN_VLLM_T4,
    Tabla,
    contar,
    formatear_numero,
)
from curso_gpu.dispositivo import simulacion_activa
from curso_gpu.generacion import adaptador_diminuto, bytes_cache_kv
from curso_gpu.graficos import grafico_carga, grafico_respuesta
from curso_gpu.servir import (
    Servidor,
    barrer_concurrencia,
    comparar_servidores,
    guardar_para_servir,
    hay_vllm,
    medir_carga,
)

torch.manual_seed(0)
# Los servidores son programas aparte: en la T4 simulada también calculan en la CPU, y así lo dicen
# todas las cifras medidas.
EN_GPU = torch.cuda.is_available() and not simulacion_activa()  # dónde calcula el servidor (Servidor lo elige igual)
DONDE = ("Medido en la CPU (con la T4 simulada el servidor es otro programa, que no la ve)."
         if simulacion_activa() else f"Medido en {'la GPU' if EN_GPU else 'la CPU'} de esta máquina.")
print("PyTorch", torch.__version__)

# %% [markdown]
# ## La idea clave: muchos usuarios, dos esperas
#
# En la lección 10 generabas para **ti**: un texto, o un lote que tú armabas. Un servidor recibe
# peticiones de **gente que no se conoce**, cada una cuando quiere. Cada usuario vive dos esperas:
#
# - **TTFT** (*time to first token*): desde que envía hasta que ve el primer token. Es leer su entrada
#   entera (el ***prefill***: mucho cálculo de una vez).
# - **TPOT** (*time per output token*): lo que tarda cada token siguiente (el ***decode***: un paso
#   por token, que lee todos los pesos, lección 10).
#
# Y el servidor tiene su propia cifra: **tokens por segundo** entre todos. Meter más usuarios en el
# mismo paso sube los tokens/s (cada lectura de los pesos sirve a todos), pero cada paso tarda más:
# sube la latencia de cada uno. **Rendimiento frente a latencia**: servir es elegir dónde ponerse.
#
# Los **lotes continuos** (*continuous batching*) son la técnica que lo hace posible: en cada paso el
# servidor añade las peticiones que acaban de llegar y saca las que terminaron, en vez de esperar a
# que termine un lote entero. vLLM la usa siempre (con *paged attention*: la caché KV en bloques, como
# páginas de memoria); `transformers serve` la activa con `--continuous-batching`.
#
# ## Paso a paso
#
# ### 1. El modelo de la lección 09, listo para servir
#
# Un servidor carga el modelo de una carpeta, como `from_pretrained`. Tomamos el modelo diminuto con el
# adaptador LoRA de la lección 09 (si no lo encuentras, se entrena uno igual, con menos épocas, en unos segundos),
# **fusionamos** el adaptador (un servidor carga un modelo normal) y lo guardamos:

# %%
_, tokenizador = modelo_diminuto(semilla=0)
con_adaptador = adaptador_diminuto(tokenizador, epocas=3)
carpeta = guardar_para_servir(con_adaptador, tokenizador, tempfile.mkdtemp(prefix="leccion13_") + "/diminuto")
print("Guardado en", carpeta, "→", sorted(p.name for p in carpeta.iterdir()))

# %% [markdown]
# ### 2. Arrancar el servidor
#
# En una terminal sería una línea (`transformers` viene con la orden `serve`; pide
# `pip install "transformers[serving]"`):
#
# ```
# transformers serve CARPETA --device cpu --host 127.0.0.1 --port 8000 --continuous-batching
# ```
#
# Desde un notebook, `Servidor` la arranca como proceso hijo en un puerto libre, espera a que responda
# en `/health`, guarda lo que escribe en un archivo y, pase lo que pase (un error, parar el kernel, o
# que el kernel muera), lo apaga: nunca queda un servidor huérfano ocupando el puerto y la memoria.
# Arrancamos dos a la vez, sin y con lotes continuos, para compararlos después. (En la CPU, `Servidor`
# limita la caché de los lotes continuos con `--cb-num-blocks 128`: sin eso, `transformers serve` 5.25
# reserva unos 14 GB de RAM para el modelo diminuto; lo medimos, y el sistema lo mató por falta de memoria.)

# %%
sin_lotes = Servidor(carpeta, lotes_continuos=False, max_model_len=256).iniciar()  # entrada + respuesta ≤ 256 tokens
con_lotes = Servidor(carpeta, lotes_continuos=True, max_model_len=256).iniciar()
for servidor in (sin_lotes, con_lotes):
    servidor.esperar()
    print(f"{servidor} listo en {servidor.segundos_arranque:.1f} s:", " ".join(servidor.orden()))

# %% [markdown]
# ### 3. La primera petición, con HTTP a mano
#
# La API es la de OpenAI: `POST /v1/completions` con un JSON. Nada más que la biblioteca estándar:

# %%
peticion = urllib.request.Request(
    con_lotes.url + "/v1/completions",
    data=json.dumps({"model": con_lotes.modelo, "prompt": "La GPU", "max_tokens": 12}).encode(),
    headers={"Content-Type": "application/json"})
with urllib.request.urlopen(peticion, timeout=60) as respuesta:
    datos = json.load(respuesta)
print(repr(datos["choices"][0]["text"]), datos["usage"])

# %% [markdown]
# Y con el cliente `openai`, apuntado a **tu** servidor en vez de a OpenAI. Cualquier programa escrito
# para la API de OpenAI funciona con el tuyo cambiando `base_url` (la clave no se comprueba):

# %%
from openai import OpenAI

cliente = OpenAI(base_url=con_lotes.url + "/v1", api_key="no-hace-falta", timeout=60)
chat = cliente.chat.completions.create(model=con_lotes.modelo, max_tokens=12,
                                       messages=[{"role": "user", "content": "La GPU hace"}])
print(repr(chat.choices[0].message.content), "·", chat.usage.completion_tokens, "tokens")

# %% [markdown]
# El modelo diminuto escribe letras sin sentido (tiene 2 bloques de 64 de ancho): lo que importa es
# que el camino es el de verdad. Con Qwen2.5 en una GPU, es la misma llamada.
#
# ### 4. Una respuesta en *streaming*, cronometrada
#
# Con `"stream": true` el servidor manda cada token en cuanto lo tiene, como eventos (SSE: líneas
# `data: {...}`). Así el usuario ve la respuesta crecer, y nosotros podemos medir cuándo llega cada
# token. `medir_carga` hace eso para muchas peticiones a la vez; aquí, para una:

# %%
una = medir_carga(con_lotes.url, con_lotes.modelo, usuarios=1, peticiones=1, max_tokens=48, nota=DONDE)
respuesta = una.peticiones[0]
print(f"TTFT {1000 * respuesta.ttft:.1f} ms; {len(respuesta.huecos)} huecos entre tokens, mediana "
      f"{1000 * sorted(respuesta.huecos)[len(respuesta.huecos) // 2]:.2f} ms; total {1000 * respuesta.latencia:.1f} ms")
print(f"Tokens: {respuesta.tokens_contados} trozos con texto; el servidor dice {respuesta.tokens_usage} en «usage».")
grafico_respuesta(respuesta);

# %% [markdown]
# La zona gris es el **TTFT**: leer la entrada y dar el primer token. Después, la escalera es el
# **decode**: un token por paso. Si los trozos con texto no coinciden con `usage`, no es un error de
# medida: un trozo puede traer dos tokens (el servidor espera a tener un carácter completo) y el último
# token puede ser uno especial, sin texto. Por eso `medir_carga` cuenta con `usage` cuando llega.
#
# Por dentro, `medir_carga` usa `aiohttp` (asíncrono: cientos de conexiones con un solo hilo), no el
# cliente `openai`: con mucha concurrencia, ese cliente se vuelve el cuello de botella y medirías tu
# cliente en vez de tu servidor (lo midió Stas Bekman en vllm-project/vllm#7935).
#
# ### 5. Carga: 1, 2, 4 y 8 usuarios
#
# Cada usuario manda una petición, espera la respuesta entera y manda la siguiente (un **lazo
# cerrado**). Con más usuarios, ¿cuántos tokens/s más saca el servidor, y cuánto más espera cada uno?

# %%
barrido = barrer_concurrencia(con_lotes.url, con_lotes.modelo, usuarios=(1, 2, 4, 8), peticiones_por_usuario=3,
                              max_tokens=24, nota=DONDE)
display(barrido)
grafico_carga(barrido);

# %% [markdown]
# Cada punto es un número de usuarios. Mientras la curva sube hacia arriba, más usuarios dan más
# tokens/s; cuando se tumba hacia la derecha, cada usuario más solo alarga la espera de todos: esa es
# la **rodilla**, y la frase de la tabla la saca de tus datos. En una CPU de 2 núcleos compartidos la
# rodilla llega pronto; en una GPU, mucho más tarde (ver la sección de la T4).
#
# ### 6. ¿Ayudan los lotes continuos? Medido alternado
#
# Misma carga (8 usuarios a la vez) contra los dos servidores, **alternando** (sin, con; con, sin…),
# para que un momento de la máquina más cargado no caiga siempre sobre el mismo. El veredicto lo dan
# los datos, con su intervalo:

# %%
comparacion = comparar_servidores(sin_lotes.url, sin_lotes.modelo, con_lotes.url, con_lotes.modelo,
                                  nombres=("sin lotes continuos", "con lotes continuos"), usuarios=8,
                                  peticiones=8, max_tokens=16, rondas=5, dispositivo="cuda" if EN_GPU else "cpu")
print(comparacion.veredicto)
print(DONDE)

# %% [markdown]
# Con un modelo diminuto en una CPU ocupada, cada paso es tan barato que juntar peticiones apenas
# cambia nada, y a menudo la frase dice que **no hay una diferencia clara**: es la respuesta honesta.
# En una GPU, con un modelo de verdad, un paso con 8 peticiones cuesta casi lo mismo que con una (la
# lección 10 lo midió con lotes), y ahí los lotes continuos multiplican los tokens/s.
#
# ### 7. Goodput: ¿cuántas peticiones cumplen lo prometido?
#
# Un **SLO** (*service level objective*) es la promesa: «el primer token en menos de X ms y cada token
# siguiente en menos de Y ms». El **goodput** es la fracción de peticiones que la cumplen. Un servidor
# con muchos tokens/s pero que hace esperar a todos tiene buen rendimiento y mal goodput:

# %%
slo = {"ttft": 2 * barrido.resultados[0].ttft.p50, "tpot": 2 * barrido.resultados[0].tpot.p50}
print(f"SLO: TTFT ≤ {1000 * slo['ttft']:.1f} ms y TPOT ≤ {1000 * slo['tpot']:.2f} ms (el doble de lo de 1 usuario)")
for resultado in barrido.resultados:
    print(f"  {contar(resultado.usuarios, 'usuario')}: goodput {100 * resultado.goodput(slo):.0f} %, "
          f"{formatear_numero(resultado.tokens_por_segundo, cifras=3)} tokens/s")
print(DONDE)

# %% [markdown]
# También puedes medir con **llegadas de Poisson**: peticiones que llegan al azar a un ritmo medio, como
# las de gente que no se conoce (`llegadas=` peticiones por segundo, con semilla):

# %%
poisson = medir_carga(con_lotes.url, con_lotes.modelo, usuarios=8, peticiones=12, max_tokens=16,
                      llegadas=40.0, semilla=0, nota=DONDE)
display(poisson)

# %% [markdown]
# ## En una T4, con vLLM
#
# `transformers serve` es perfecto para aprender y para probar; para servir de verdad en una GPU se usa
# **vLLM**. En una T4 (la de Colab) funciona, con condiciones. Cada hecho, con su fuente:

# %%
display(Tabla("vLLM en una T4", ["", "fuente"], [[h.texto, h.fuente] for h in HECHOS_VLLM_T4],
              notas=[f"Fuentes leídas el {HECHOS_VLLM_T4[0].leido}."]))

# %% [markdown]
# La orden, con `--dtype half` (los pesos de Qwen2.5 están en bf16, que la T4 no tiene: vLLM los pasa a
# fp16), un largo máximo que deja sitio a la caché y solo en `localhost`. En Colab, el servidor y el
# cliente van en el **mismo notebook**: el plan gratuito no permite interfaces remotas ni túneles.

# %%
print(" ".join(ORDEN_VLLM_T4))

# %% [markdown]
# ¿Cuántas conversaciones caben a la vez? Lo dice la caché KV (lección 10): 12 KiB por token en fp16
# para Qwen2.5-0.5B. La memoria que vLLM reserva (`--gpu-memory-utilization 0.85` de 15 GiB), menos
# los pesos, dividida por lo que ocupa una conversación de 4 096 tokens:

# %%
qwen = config_de("Qwen2.5-0.5B")
pesos = 2 * sum(p.numel() for p in modelo_en_meta(qwen).parameters())   # fp16: 2 bytes por parámetro
por_token = bytes_cache_kv(qwen, tokens=1)                                # 12 288 bytes
reservada = 0.85 * 15_095 * 2**20                                         # lo que PyTorch ve libre en una T4
margen = 1.5 * 2**30                                                      # activaciones y grafos de CUDA, aprox.
tokens_en_cache = int((reservada - pesos - margen) // por_token)
print(f"Pesos {pesos / 2**30:.2f} GiB; caché para {formatear_numero(tokens_en_cache)} tokens → "
      f"{tokens_en_cache // 4096} conversaciones llenas de 4 096 tokens a la vez")

# %% [markdown]
# vLLM imprime su propia cuenta al arrancar («Maximum concurrency for 4096 tokens per request: …x»).
# Y el mismo barrido, contra vLLM si lo tienes (en Colab: `pip install vllm`, unos minutos); si no,
# contra el servidor de esta lección:

# %%
if hay_vllm():
    servidor_t4 = Servidor("Qwen/Qwen2.5-0.5B-Instruct", motor="vllm", extra=ORDEN_VLLM_T4[3:-4], espera_s=900).iniciar().esperar()  # solo se ejecuta en una GPU real: descarga Qwen2.5-0.5B (~1 GB) y arranca vLLM
else:
    servidor_t4 = con_lotes
    print("Sin vLLM o sin una GPU de verdad: el mismo barrido, contra transformers serve.")
barrido_t4 = barrer_concurrencia(servidor_t4.url, servidor_t4.modelo, usuarios=(1, 4), peticiones_por_usuario=2,
                                 max_tokens=16, nota=DONDE if servidor_t4 is con_lotes else "")
display(barrido_t4)

# %% [markdown]
# ¿Y SGLang, el otro servidor famoso? Ya **no admite la T4** (anunció el fin de sm75 y hoy falla al
# arrancar en ella; está en la tabla de arriba, con su fuente). En una T4, vLLM.
#
# ## Errores comunes
#
# **El puerto ya está en uso.** Un servidor de una celda anterior sigue encendido en ese puerto:

# %%
try:
    Servidor(carpeta, puerto=con_lotes.puerto).iniciar()
except ValueError as error:
    print(type(error).__name__ + ":", error)

# %% [markdown]
# **Una entrada más larga que `--max-model-len`.** Entrada y respuesta tienen que caber en el largo
# máximo que le diste al servidor (`--max-model-len`; arriba, `max_model_len=256`; sin él, el contexto
# del modelo: 32 768 tokens en Qwen2.5). Si no caben, el servidor responde 400, y `medir_carga` lo cuenta
# como error, con su texto:

# %%
larga = medir_carga(con_lotes.url, con_lotes.modelo, usuarios=1, peticiones=1, max_tokens=8, prompt="La GPU " * 80)
print(larga.errores, larga.peticiones[0].detalle)

# %% [markdown]
# **El servidor muere a mitad de respuesta** (lo mata el sistema por falta de memoria, o alguien lo
# para), con 8 usuarios dentro. Ninguna petición se queda colgada: las que no habían terminado acaban
# como error «corte», con lo que les llegó. Ya no necesitamos el servidor sin lotes continuos, que
# atiende una petición cada vez (las demás esperan turno): lo matamos con SIGKILL en cuanto llega el
# primer texto. `al_recibir` llama a una función con cada trozo que llega; la nuestra mata el proceso y
# sus hijos (con psutil, igual en Linux, macOS y Windows: `transformers serve` genera en un proceso hijo).

# %%
raiz = psutil.Process(sin_lotes.proceso.pid)
procesos = [raiz, *raiz.children(recursive=True)]

def matar_servidor(texto):
    while procesos:  # solo la primera vez: luego la lista está vacía
        procesos.pop().kill()  # SIGKILL, como el OOM killer

cortadas = medir_carga(sin_lotes.url, sin_lotes.modelo, usuarios=8, peticiones=8, max_tokens=240, prompt="La GPU",
                       limite_s=30, al_recibir=matar_servidor)
sin_lotes.detener()
print("Errores:", cortadas.errores, "· completas:", len(cortadas.bien))
print("Trozos con texto que recibió cada usuario:", [p.tokens_contados for p in cortadas.peticiones])
print("Lo que dice aiohttp:", next((p.detalle for p in cortadas.peticiones if p.error), "nada"))

# %% [markdown]
# Con la CPU tranquila, el usuario al que se atendía recibe uno o pocos trozos (los que ya estaban en
# camino) y se corta; los que esperaban turno se cortan sin recibir nada. Si la máquina va muy
# cargada, el proceso que genera puede adelantarse al que envía: alguna petición recibe entonces
# muchos tokens en un trozo, o incluso su respuesta entera, antes del corte. Las que no habían
# terminado se cortan igual. Ninguna se queda colgada (`limite_s` es el último seguro).
#
# **Un cliente que no lee su respuesta.** El servidor sigue generando y dejando los tokens en la
# conexión; si tu programa no los lee a tiempo, llegan todos de golpe cuando por fin lee y tus huecos
# entre tokens salen casi cero: mides tu cliente, no el servidor. Pedimos en *streaming*, esperamos un
# segundo sin leer y luego leemos:

# %%
import http.client

conexion = http.client.HTTPConnection("127.0.0.1", con_lotes.puerto, timeout=30)
conexion.request("POST", "/v1/completions", json.dumps({"model": con_lotes.modelo, "prompt": "La GPU",
                                                        "max_tokens": 32, "stream": True}),
                 {"Content-Type": "application/json"})
sin_leer = conexion.getresponse()
time.sleep(1.0)  # el cliente está «ocupado» y no lee
llegadas = [time.perf_counter() for linea in sin_leer if linea.startswith(b"data:")]
conexion.close()
leidos_ms, generados_ms = 1000 * (llegadas[-1] - llegadas[0]), 1000 * respuesta.latencia * 32 / 48
print(f"{len(llegadas)} trozos leídos en {leidos_ms:.2f} ms (en el servidor tardaron ~{generados_ms:.0f} ms): "
      + ("los huecos medidos así no valen" if leidos_ms < generados_ms / 5 else
         "esta vez el servidor aún generaba mientras leíamos (¿máquina ocupada?); prueba a esperar más"))

# %% [markdown]
# La regla: lee el *stream* en cuanto llega (con un bucle asíncrono, como `medir_carga`), y ciérralo
# siempre (`with`), o el servidor guardará su sitio hasta que termine.
#
# **En una T4, `--dtype bfloat16`.** La T4 no tiene bf16 nativo y vLLM se niega a arrancar con este
# mensaje (sin vLLM no lo podemos provocar aquí; es el texto que verás en una T4):

# %%
print(MENSAJE_VLLM_BF16_T4)
print("\nY con --kv-cache-dtype fp8 en una T4 (vLLM ≥ 0.24):\n" + MENSAJE_VLLM_FP8_KV_T4)

# %% [markdown]
# **Entradas mal escritas** reciben un error en español que dice qué hacer:

# %%
for llamada in [lambda: medir_carga(con_lotes.url, con_lotes.modelo, usuarios=0, peticiones=1, max_tokens=1),
                lambda: medir_carga(con_lotes.url, "otro-modelo", usuarios=1, peticiones=1, max_tokens=1),
                lambda: medir_carga("http://127.0.0.1:9", "m", usuarios=1, peticiones=1, max_tokens=1)]:
    try:
        llamada()
    except (ValueError, ConnectionError) as error:
        print(type(error).__name__ + ":", error, "\n")

# %% [markdown]
# ## Pruébalo
#
# Apaga los servidores (en un notebook, `detener()`; con `with Servidor(...) as s:` se apaga solo al
# salir del bloque). Después, desde una terminal, el mismo barrido con una orden:
#
# ```
# python -m curso_gpu.servir --modelo CARPETA --usuarios 1,2,4,8
# python -m curso_gpu.servir --url http://127.0.0.1:8000 --usuarios 1,4,16   # contra un servidor ya encendido
# ```

# %%
for servidor in (sin_lotes, con_lotes):
    servidor.detener()
print("Servidores apagados:", not sin_lotes.vivo and not con_lotes.vivo)

# %% [markdown]
# ## Retos
#
# 1. Repite el barrido con `max_tokens=4` y con `max_tokens=64`. ¿Cuál llega antes a la rodilla? ¿Por qué?
# 2. Cambia el `prompt` por uno de 300 caracteres. ¿Qué sube más, el TTFT o el TPOT? (Piensa en
#    *prefill* y *decode*.)
# 3. Con `llegadas=`, busca el ritmo de peticiones por segundo a partir del cual el goodput con tu SLO
#    baja del 90 %.
# 4. En Colab con una T4: `pip install vllm`, arranca `Servidor("Qwen/Qwen2.5-0.5B-Instruct", motor="vllm",
#    extra=["--dtype", "half", "--max-model-len", "4096"])` y barre 1, 4, 16 y 64 usuarios. ¿Dónde está la
#    rodilla? Compara con la cuenta de conversaciones que caben.
# 5. Mata al proceso de Python que tiene un `Servidor` (por ejemplo, reinicia el kernel) y comprueba con
#    `ps` que no queda ningún `transformers serve`.
#
# ## Glosario
#
# - **TTFT** (*time to first token*): desde que envías la petición hasta el primer token con texto.
# - **TPOT** (*time per output token*): por petición, lo que tarda cada token después del primero.
# - **ITL** (*inter-token latency*): cada hueco entre dos tokens seguidos de una respuesta.
# - **Latencia de extremo a extremo**: desde que envías hasta el último token.
# - **p50, p90, p99**: el valor que no supera el 50 %, el 90 % o el 99 % de las peticiones.
# - **Goodput**: la fracción de peticiones que cumplen el SLO.
# - **SLO** (*service level objective*): la promesa de servicio, p. ej. «TTFT ≤ 500 ms y TPOT ≤ 50 ms».
# - **Lotes continuos** (*continuous batching*): en cada paso el servidor añade las peticiones nuevas y
#   saca las terminadas, sin esperar a que acabe un lote entero.
# - ***Paged attention***: la caché KV guardada en bloques de tamaño fijo, como páginas de memoria, para
#   no desperdiciarla (la idea de vLLM).
# - ***Prefill***: leer toda la entrada de una vez; decide el TTFT.
# - ***Decode***: generar un token por paso; decide el TPOT.
# - **SSE** (*server-sent events*): líneas `data: {...}` con las que el servidor manda cada trozo.

# %%
# Comprobación final: el servidor responde lo pedido, la carga nunca pasa de los usuarios pedidos, los
# errores se cuentan sin colgarse y no queda ningún servidor. Ejecútala tras cambiar algo: si deja de
# ser cierto, falla y dice qué.
assert datos["usage"]["completion_tokens"] == 12  # el servidor generó lo pedido
assert not una.errores and respuesta.ttft < respuesta.latencia  # el primer token llega antes que el último
assert [r.usuarios for r in barrido.resultados] == [1, 2, 4, 8] and not any(r.errores for r in barrido.resultados)
assert all(r.concurrencia_maxima <= r.usuarios for r in barrido.resultados)  # nunca más usuarios de los pedidos
assert larga.errores == {"HTTP 400": 1} and "max-model-len" in larga.peticiones[0].detalle
assert set(cortadas.errores) == {"corte"}  # murió con ellas dentro: las que no habían terminado, cortadas, sin colgarse
assert not sin_lotes.vivo and not con_lotes.vivo  # ningún servidor queda encendido
assert tokens_en_cache // 4096 > 10  # en una T4 caben decenas de conversaciones de Qwen2.5-0.5B
print("Comprobado: el servidor responde lo pedido, la carga se midió sin pasarse de usuarios y no queda ningún servidor.")
