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
# [![Abrir en Colab](https://colab.research.google.com/assets/colab-badge.svg)](https://colab.research.google.com/github/curso-gpu/curso_gpu/blob/main/notebooks/03_benchmark_cpu_gpu.ipynb)
#
# # Lección 03 — Medir CPU frente a GPU de verdad

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
# - Medir una multiplicación de matrices en CPU y en GPU **sin trampas**: sincronizar,
#   calentar y quedarte con la mediana de varias medidas.
# - Calcular la **aceleración** (cuántas veces más rápida es la GPU), con y sin contar la copia
#   de los datos.
# - Expresar el rendimiento en **GFLOP/s** y en **% del pico teórico** de tu GPU.
# - Ver en una gráfica **desde qué tamaño** empieza a ganar la GPU.
# - Comparar los tipos de dato fp32, TF32, fp16 y bf16 (si tienes GPU).
#
# ## Por qué importa
#
# Un entrenamiento que tarda 8 horas en CPU puede tardar 10 minutos en GPU. Pero la mayoría del
# código de medición que circula por internet está mal: mide una sola vez, no calienta y no
# sincroniza. Con ese código la GPU parece cientos de veces más rápida de lo que es, o más lenta.
# Aquí aprendes a medir de forma que un profesor se fíe de tus números.

# %% [markdown]
# ## La idea clave: por qué una GPU es tan rápida
#
# Una **CPU** tiene unos pocos núcleos muy potentes, pensados para tareas secuenciales y variadas.
# Una **GPU** tiene miles de núcleos más sencillos que hacen **la misma operación a la vez sobre
# datos distintos**. Entrenar una red neuronal es, sobre todo, multiplicar matrices enormes
# (y convoluciones, activaciones y gradientes): justo lo que se reparte bien entre miles de núcleos.
#
# Dos matices importantes:
#
# - **No siempre gana la GPU.** Con un problema pequeño, el coste de mover los datos y de
#   coordinar el dispositivo se come la ventaja.
# - **La diferencia se nota más** con modelos grandes, datos grandes, lotes (*batches*) grandes y
#   muchas operaciones matriciales o convolucionales. En ejemplos didácticos pequeños la mejora
#   existe, pero no siempre es espectacular.
#
# Vamos a comprobarlo midiendo.

# %%
import time

import torch

from curso_gpu.base import MARCA_SIMULADA
from curso_gpu.dispositivo import elegir_dispositivo, simulacion_activa

dispositivo = elegir_dispositivo()  # cuda (NVIDIA/AMD), mps (Mac), xpu (Intel) o cpu
HAY_GPU = dispositivo.type != "cpu"
GPU_DE_VERDAD = HAY_GPU and not simulacion_activa()  # con CURSO_GPU_SIMULAR=T4, la «GPU» calcula en la CPU
# En la T4 simulada, cada tiempo «de la GPU» se midió en la CPU: lo decimos junto a cada cifra.
MARCA = f" [{MARCA_SIMULADA}]" if simulacion_activa() else ""  # «[GPU simulada: tiempos de la CPU]»
print(f"Usando: {dispositivo}")
print(f"Hilos de CPU que usa PyTorch: {torch.get_num_threads()}")

# Tamaños de las matrices: grandes con una GPU de verdad; pequeños sin ella, para que el notebook vaya rápido.
N = 4096 if GPU_DE_VERDAD else 512
print(f"Tamaño de las pruebas: {N}×{N}")

# %% [markdown]
# Sin GPU el notebook funciona entero en CPU, con matrices más pequeñas. En cada paso te
# contamos qué verías en una GPU T4 de Google Colab (menú *Entorno de ejecución › Cambiar tipo
# de entorno de ejecución › GPU T4*).

# %% [markdown]
# ## Paso 1: el código ingenuo, y qué tiene de malo
#
# Esta es la comparativa que encontrarás en muchos sitios. Parece razonable:

# %%
a_cpu = torch.randn(N, N)
b_cpu = torch.randn(N, N)

inicio = time.time()
c_cpu = a_cpu @ b_cpu
tiempo_cpu = time.time() - inicio
print(f"CPU: {tiempo_cpu:.4f} s")

if torch.cuda.is_available():
    a_gpu = a_cpu.to("cuda")
    b_gpu = b_cpu.to("cuda")
    torch.cuda.synchronize()
    inicio = time.time()
    c_gpu = a_gpu @ b_gpu
    torch.cuda.synchronize()
    tiempo_gpu = time.time() - inicio
    print(f"GPU: {tiempo_gpu:.4f} s{MARCA}")
    print(f"Aceleración: {tiempo_cpu / tiempo_gpu:.0f}x"
          + (" (T4 simulada: los dos tiempos son de la CPU; no es una aceleración de GPU)" if simulacion_activa() else ""))

# %% [markdown]
# Tiene tres fallos:
#
# 1. **`time.time()`** es el reloj de pared del sistema: puede saltar (si el sistema ajusta la
#    hora) y tiene poca resolución en algunos sistemas. Para medir duraciones se usa
#    **`time.perf_counter()`**.
# 2. **Una sola muestra.** Cualquier otra tarea de la computadora cambia el resultado. Hay que repetir
#    y quedarse con la **mediana**.
# 3. **Sin calentamiento.** La primera multiplicación en la GPU paga el arranque (el contexto de
#    CUDA, la biblioteca cuBLAS, la reserva de memoria). Ese tiempo no es el de la operación.
#
# Lo que sí hace bien es `torch.cuda.synchronize()`: sin él la medida en GPU no vale nada.
# Lo vemos en el paso 3.

# %% [markdown]
# ## Paso 2: la primera llamada es distinta (calentamiento)
#
# Medimos la misma multiplicación varias veces seguidas con `perf_counter`, esperando a que
# la GPU termine, y miramos cada tiempo. Usamos matrices nuevas, de otro tamaño, para que la
# primera sea de verdad la primera. Todo en PyTorch puro: `esperar` llama a
# `torch.cuda.synchronize()` en una GPU NVIDIA (o AMD) y a `torch.mps.synchronize()` en un Mac;
# en la CPU no hace falta esperar.

# %%
import statistics


def esperar(dispositivo):
    """Espera a que el dispositivo termine todo lo encargado (en la CPU, nada que esperar)."""
    if dispositivo.type == "cuda":
        torch.cuda.synchronize()
    elif dispositivo.type == "mps":  # solo se ejecuta en un Mac con GPU (MPS)
        torch.mps.synchronize()


M = N + 128
a = torch.randn(M, M, device=dispositivo)
b = torch.randn(M, M, device=dispositivo)
tiempos = []
for _ in range(6):
    esperar(dispositivo)  # punto de espera: la cola de la GPU, vacía antes de arrancar el reloj
    inicio = time.perf_counter()
    c = a @ b
    esperar(dispositivo)  # punto de espera: a @ b terminado antes de parar el reloj
    tiempos.append(time.perf_counter() - inicio)
print(f"milisegundos{MARCA}:", [round(t * 1000, 2) for t in tiempos])
primera, resto = tiempos[0], tiempos[1:]
print((f"Esta vez la primera fue la más lenta: {primera / statistics.median(resto):.1f} veces la mediana de las demás."
       if primera > max(resto) else
       f"Esta vez la primera ({primera * 1000:.2f} ms) no fue la más lenta: quedó dentro del rango de las "
       f"demás ({min(resto) * 1000:.2f}–{max(resto) * 1000:.2f} ms). Una sola primera llamada es una sola "
       "muestra: lo que cuesta de más se pierde en el ruido.") + MARCA)

# %% [markdown]
# En una T4, la primera multiplicación de un proceso paga el arranque de cuBLAS: **cientos de
# milisegundos**, frente a unos pocos de las siguientes. Aquí ya lo pagó el paso 1, así que lo que
# queda es lo que cuesta una **forma nueva** (reservar la memoria del resultado y preparar la
# operación). En una CPU tranquila la primera suele salir algo más lenta (memoria nueva, cachés
# frías, hilos que despiertan); en una ocupada, el ruido puede taparlo.
#
# Una sola primera llamada no basta para saberlo. Para comparar de verdad, `comparar_tiempos`
# mide muchas veces las dos cosas, **alternándolas**: `en_frio` multiplica cada vez matrices de
# una forma que no se ha usado nunca (preparadas antes, para medir solo la multiplicación) y
# `en_caliente`, siempre las mismas. Su veredicto dice lo que pasó en *esta* máquina, con su
# intervalo del 95 %; si no se distinguen, lo dice.

# %%
from curso_gpu.medicion import comparar_tiempos

formas_nuevas = iter([(torch.randn(M + i, M + i, device=dispositivo), torch.randn(M + i, M + i, device=dispositivo))
                      for i in range(1, 15)])


def en_frio():
    x, y = next(formas_nuevas)  # una forma que ninguna celda ha usado todavía
    return x @ y


def en_caliente():
    return a @ b


frio = comparar_tiempos(en_frio, en_caliente, nombres=("en frío", "en caliente"), repeticiones=10,
                        presupuesto_s=None, dispositivo=dispositivo, descripcion=f"a @ b, unas {M}×{M}")
frio

# %% [markdown]
# `cronometrar` del paquete hace lo de la celda de antes por ti: mide aparte la primera llamada
# (`primera`), hace el calentamiento sin contarlo y devuelve todas las muestras. Le damos otra
# forma nueva, para que su primera llamada sea de verdad la primera:

# %%
from curso_gpu import graficos
from curso_gpu.medicion import cronometrar

M2 = M + 64
a2 = torch.randn(M2, M2, device=dispositivo)
b2 = torch.randn(M2, M2, device=dispositivo)
medida = cronometrar(lambda: a2 @ b2, dispositivo, repeticiones=8, calentamiento=1,
                     descripcion=f"a @ b, {M2}×{M2}")
medida

# %%
graficos.grafico_muestras(medida)
# Lo que pasó aquí con la primera llamada, de los datos (no lo que «debería» pasar):
veces = medida.primera / medida.mediana
print(f"Primera llamada: {veces:.1f} veces la mediana{MARCA}. "
      + ("Esta vez pagó el arranque." if medida.primera > medida.maximo else
         "Esta vez no fue la más lenta: en esta máquina, lo que cuesta de más quedó dentro del ruido."))

# %% [markdown]
# ## Paso 3: sincronizar, o medir lo que no es
#
# Las operaciones en GPU son **asíncronas**: Python encarga el cálculo a la GPU y sigue adelante
# sin esperar. Si paras el reloj sin sincronizar, mides lo que se tarda en *encargar* el trabajo,
# no en *hacerlo*. Compruébalo en PyTorch puro: la misma multiplicación, medida mal y bien.

# %%
a3 = torch.randn(N, N, device=dispositivo)
b3 = torch.randn(N, N, device=dispositivo)
c3 = a3 @ b3  # calentamiento
esperar(dispositivo)

# Mal: se para el reloj sin esperar a la GPU.
inicio = time.perf_counter()
c3 = a3 @ b3
mal = time.perf_counter() - inicio
esperar(dispositivo)  # (vaciamos la cola antes de la medida buena)

# Bien: torch.cuda.synchronize() antes de parar el reloj.
inicio = time.perf_counter()
c3 = a3 @ b3
esperar(dispositivo)
bien = time.perf_counter() - inicio

print(f"sin sincronizar: {mal * 1000:9.3f} ms{MARCA}")
print(f"sincronizando:   {bien * 1000:9.3f} ms{MARCA}   (una sola medida de cada: abajo, repetidas y alternadas)")

# %% [markdown]
# Una medida de cada no dice nada: en una máquina ocupada, dos medidas de lo mismo pueden
# salir una el doble que la otra. El paquete del curso trae esto mismo listo para reutilizar:
# `sincronizar(dispositivo)` es nuestro `esperar`, y `medir_sin_sincronizar` repite las dos
# medidas **alternándolas** y juzga los pares como `comparar_tiempos`:

# %%
from curso_gpu.medicion import medir_sin_sincronizar
from curso_gpu.dispositivo import sincronizar  # sincronizar = esperar

medir_sin_sincronizar(N, dispositivo, repeticiones=9)

# %% [markdown]
# En la CPU las operaciones son síncronas: las dos formas miden lo mismo y lo esperado es «sin
# diferencia clara». En una T4, con matrices de 4096×4096, la medida sin sincronizar da unos
# **microsegundos** y la buena unas **decenas de milisegundos**: parecería miles de veces más
# rápida. Si un resultado te parece demasiado bueno, sospecha de la sincronización.

# %% [markdown]
# ## Paso 4: la mediana, no la media ni una sola muestra
#
# Cada `Medicion` guarda todas las muestras. La **mediana** (el valor del medio) no se deja
# arrastrar por una muestra rara, por ejemplo cuando otro programa usa la CPU un momento. El
# **rango intercuartílico** (del cuartil 1 al 3) dice cuánto varían las muestras: si es grande
# comparado con la mediana, repite la medida.

# %%
import statistics

print(f"muestras (ms){MARCA}: {[round(t * 1000, 3) for t in medida.muestras]}")
print(f"media:   {statistics.mean(medida.muestras) * 1000:.3f} ms")
print(f"mediana: {medida.mediana * 1000:.3f} ms   ← la cifra que citamos")
print(f"rango intercuartílico: {medida.rango_intercuartilico * 1000:.3f} ms")

# %% [markdown]
# ## Paso 5: la comparativa bien hecha
#
# `comparar_cpu_gpu` mide la CPU con **todos los hilos que PyTorch tenga** (`torch.get_num_threads()`,
# lo imprimió la primera celda), para que la comparación sea justa, y el acelerador, con
# calentamiento y mediana de 5. Da la aceleración
# de dos formas: solo el cálculo, y el cálculo más la copia de `a` y `b` de la CPU a la GPU.
# **Mover datos también cuesta**: con problemas pequeños, la copia se come la ventaja.

# %%
from curso_gpu.medicion import comparar_cpu_gpu

comparacion = comparar_cpu_gpu(N, dispositivo, repeticiones=5)
comparacion

# %% [markdown]
# ¿Cuántos son «todos los hilos»? Depende de la máquina, y de si alguien los limitó. Esta celda
# lo lee de la tuya:

# %%
import os

hilos, nucleos = torch.get_num_threads(), os.cpu_count()
limite = os.environ.get("OMP_NUM_THREADS")
print(f"La CPU midió con {hilos} {'hilo' if hilos == 1 else 'hilos'} de PyTorch; el sistema ve {nucleos} "
      f"{'núcleo lógico' if nucleos == 1 else 'núcleos lógicos'}. "
      + (f"Los limitó la variable OMP_NUM_THREADS={limite}." if limite else
         "Es lo que PyTorch elige solo: un hilo por núcleo físico (con hyperthreading, el sistema cuenta el doble)."))

# %% [markdown]
# En una T4 de Colab con n=4096 en fp32, la CPU (2 vCPU: un solo núcleo) tarda uno o dos
# segundos y la T4 unos 30–40 ms (unos 4 TFLOP/s): entre **30 y 60 veces** más rápida, y algo
# menos contando la copia (unos 10–20 ms por el bus PCIe). Sin GPU solo ves la línea de la CPU.

# %% [markdown]
# ## Paso 6: GFLOP/s y % del pico teórico
#
# Multiplicar dos matrices n×n cuesta **2·n³** operaciones (n³ multiplicaciones y n³ sumas). Si
# tarda `t` segundos, el rendimiento es `2·n³ / t` operaciones por segundo. Dividido entre 10⁹,
# **GFLOP/s**. Hagámoslo a mano con la mediana de la CPU:

# %%
from curso_gpu.base import formatear_numero

r = comparacion.cpu
operaciones = 2 * r.n ** 3
print(f"2·n³ = {formatear_numero(operaciones)} operaciones")
print(f"mediana = {r.segundos:.4f} s  →  {operaciones / r.segundos / 1e9:.1f} GFLOP/s")
print(f"medir_matmul dice: {r.gflops:.1f} GFLOP/s")

# %% [markdown]
# Cada GPU tiene un **pico teórico**: lo máximo que el fabricante dice que puede calcular. La
# tabla del curso (`curso_gpu.base.picos`) da el de las GPU habituales, en TFLOP/s (1 TFLOP/s =
# 1000 GFLOP/s):

# %%
from curso_gpu.base import pico_teorico, tabla_picos

print(f"{'GPU':<26}{'fp32':>7}{'tf32':>7}{'fp16':>7}{'bf16':>7}")
for fila in tabla_picos():
    celdas = "".join(f"{v:>7g}" if v else f"{'—':>7}" for v in (fila.fp32, fila.tf32, fila.fp16, fila.bf16))
    print(f"{fila.nombre:<26}{celdas}")
t4_bf16 = pico_teorico("Tesla T4", torch.bfloat16)  # None: la tabla no tiene cifra
print("\nTesla T4 en bf16:", "sin cifra (no tiene bf16 en Tensor Cores)" if t4_bf16 is None else f"{t4_bf16:g} TFLOP/s")

# %% [markdown]
# En barras, con escala logarítmica (cada marca es diez veces la anterior): de una T4 a una
# H100 hay más de diez veces, y de fp32 a fp16 en la misma GPU, otras tantas. Donde falta una
# barra, la GPU no tiene ese modo.

# %%
graficos.grafico_picos();

# %% [markdown]
# El pico teórico no se alcanza nunca. Qué es realista en una multiplicación grande y
# cuadrada (`picos.rango_porcentaje` da cada rango; sus fuentes están en el código):

# %%
from curso_gpu.base import rango_porcentaje

for gpu, modo in [("Tesla T4", "fp32"), ("Tesla T4", "fp16"), ("NVIDIA A100-SXM4-80GB", "bf16"),
                  ("NVIDIA H100 80GB HBM3", "bf16")]:
    minimo, maximo = rango_porcentaje(gpu, modo)
    pico = pico_teorico(gpu, modo)
    print(f"{gpu:<24} {modo}: {minimo:.0f}–{maximo:.0f} % del pico = "
          f"{pico * minimo / 100:.0f}–{pico * maximo / 100:.0f} de {pico:g} TFLOP/s (cifras publicadas)")

# %% [markdown]
# - Una **T4** de Colab llega a unos **4 TFLOP/s en fp32** (la mitad de 8.1) y a solo
#   **20–25 TFLOP/s en fp16**, un tercio de su pico de 65: unas **5 o 6 veces** más que en
#   fp32, no diez. ¿Por qué tan lejos del pico? Por su **límite de potencia**.
# - Una GPU de centro de datos (A100, H100, H200) llega al **70–90 %** en bf16/fp16.
# - Las GeForce (RTX) acumulan fp16 en fp32 a **mitad de velocidad**: la tabla ya da esa cifra.
# - **Más del 100 % es imposible**: la medida está mal, casi siempre por no sincronizar.
#   `medir_matmul` te avisa con «¡Ojo!».
#
# ### El límite de potencia: por qué la T4 no llega a su pico
#
# El pico teórico se calcula con el **reloj máximo** (*boost*) de la GPU: núcleos ×
# operaciones por ciclo × ciclos por segundo. En la T4, 1590 MHz. Pero cada GPU tiene además un
# **límite de potencia**: la T4, pensada para servidores sin ventiladores propios, no puede
# gastar más de **70 W** (`nvidia-smi` lo muestra como `10W / 70W`). Una multiplicación de
# matrices larga pone a trabajar todos los Tensor Cores a la vez; para no pasar de 70 W, el
# driver **baja el reloj** (*clock throttling*) muy por debajo del máximo, y con menos ciclos
# por segundo salen menos operaciones por segundo. Una ráfaga corta puede ir más rápida;
# una multiplicación sostenida, no. Las GPU grandes (300–700 W) también tienen límite, pero
# llegan mucho más cerca de su pico.
#
# Puedes verlo en una T4: mientras corre una multiplicación larga, ejecuta en una terminal
# `nvidia-smi --query-gpu=clocks.sm,power.draw,power.limit --format=csv -l 1` y mira cómo
# el reloj (`clocks.sm`) baja cuando el consumo toca los 70 W.

# %%
if comparacion.acelerador is not None:
    g = comparacion.acelerador
    # En la T4 simulada no hay % del pico: dividir un tiempo de la CPU entre el pico de una T4 no significa nada.
    pico = (f" = {g.porcentaje_pico:.0f} % del pico {g.modo}" if g.porcentaje_pico is not None
            else MARCA + ", sin % del pico" if g.simulada else " (no está en la tabla de picos)")
    print(f"{g.nombre_dispositivo}: {g.gflops:.0f} GFLOP/s{pico}")
    for aviso in g.avisos:
        print("¡Ojo!", aviso)
else:
    print("Sin GPU no hay pico que comparar. En una T4 verías algo como: 4000 GFLOP/s = 49 % del pico fp32.")

# %% [markdown]
# ### TF32: el modo que PyTorch deja apagado
#
# Las GPU NVIDIA desde Ampere (A100, RTX 30, L4, H100...) pueden hacer las cuentas fp32 con
# **TF32** en los Tensor Cores: mucho más rápido, con menos precisión (10 bits de mantisa en
# lugar de 23). PyTorch lo trata distinto según la operación:
#
# - **Multiplicaciones de matrices** (`@`, `nn.Linear`): TF32 **apagado** por defecto.
# - **Convoluciones** (cuDNN, `nn.Conv2d`): TF32 **encendido** por defecto. Una CNN en fp32
#   en una A100 ya usa TF32 sin que lo pidas.
#
# Desde PyTorch 2.9 el ajuste se escribe con `fp32_precision` (`"ieee"`: fp32 de verdad;
# `"tf32"`: permite TF32; `"none"`: hereda el ajuste general). Los ajustes antiguos
# (`allow_tf32`, `set_float32_matmul_precision`) siguen funcionando, pero PyTorch los va a
# retirar (documentación de PyTorch, «CUDA semantics › TensorFloat-32», versiones 2.9 y
# posteriores). Estos son los ajustes en vigor; `medir_matmul` los lee y dice qué modo midió
# (`modo`):

# %%
print("matmul, API nueva:  torch.backends.cuda.matmul.fp32_precision =", repr(torch.backends.cuda.matmul.fp32_precision))
print("conv., API nueva:   torch.backends.cudnn.conv.fp32_precision =", repr(torch.backends.cudnn.conv.fp32_precision))
print("matmul, API antigua: torch.backends.cuda.matmul.allow_tf32 =", torch.backends.cuda.matmul.allow_tf32)
print("conv., API antigua:  torch.backends.cudnn.allow_tf32 =", torch.backends.cudnn.allow_tf32)
# Para permitir TF32 en las multiplicaciones: torch.backends.cuda.matmul.fp32_precision = "tf32"
# (y "ieee" para volver a fp32 exacto).

# %% [markdown]
# Algo parecido pasa con fp16: por defecto cada multiplicación fp16 **acumula** (suma los
# productos) en fp32, más lento pero más exacto. `torch.backends.cuda.matmul.allow_fp16_accumulation
# = True` le deja acumular en fp16: más rápido en las GPU que lo aceptan, con más error.

# %% [markdown]
# ## Paso 7: ¿desde qué tamaño gana la GPU?
#
# `barrido` mide varios tamaños en la CPU y en el acelerador, con una barra de progreso. La CPU,
# con todos sus hilos (`hilos=None`), como en el paso 5: con uno solo la GPU parecería más rápida
# de lo que es (el error de «Errores comunes»). La gráfica usa escala log-log: cada marca del eje
# es el doble (o diez veces) la anterior.

# %%
from curso_gpu.medicion import barrido

tamanos = [64, 128, 256, 512, 1024, 2048, 4096] if GPU_DE_VERDAD else [32, 64, 128, 256, 512]
resultado = barrido(tamanos, hilos=None)  # la CPU con todos sus hilos; cada tamaño se repite hasta gastar 0.3 s
print(resultado)

# %%
graficos.grafico_barrido(resultado)
print(resultado.conclusion)

# %% [markdown]
# La frase de debajo de la figura sale de los datos de esta ejecución. La línea es la mediana y
# la banda clara va de la muestra más lenta a la más rápida: si otro programa interrumpió
# alguna medida, la banda se ensancha por abajo. En una máquina ocupada la curva de la CPU puede
# torcerse; por eso la frase dice lo que pasó aquí y no lo que «debería» pasar.
#
# Por qué la GPU gana poco con matrices pequeñas: encargar cada operación le cuesta unos
# microsegundos fijos, y hay pocos datos para repartir entre sus miles de núcleos. Al crecer n,
# el coste fijo pesa menos y la curva de la GPU sube hasta cerca de lo que sostiene. Sin una GPU
# de verdad ves, a trazos, la curva de una T4 calculada con cifras publicadas: lo que sostiene
# con matrices grandes (unos 4 TFLOP/s en fp32) más 10 µs fijos por llamada. No es una medida.
#
# La misma cuenta, tamaño a tamaño, frente a **tu** CPU: cuántas veces por delante iría una T4.

# %%
from curso_gpu.base import gflops_de_referencia

banda_cpu = resultado.banda("cpu")
t4_publicada = gflops_de_referencia([n for n, *_ in banda_cpu], "Tesla T4", "fp32")  # 10 µs fijos + el cálculo
for (n, _, gflops_cpu, _), (_, t4) in zip(banda_cpu, t4_publicada):
    print(f"n={n:>5}: tu CPU {formatear_numero(gflops_cpu, cifras=3):>6} GFLOP/s · una T4 según cifras publicadas "
          f"{formatear_numero(t4, cifras=3):>6} GFLOP/s → {formatear_numero(t4 / gflops_cpu, cifras=2):>5} veces")

# %% [markdown]
# Con n pequeño, los 10 µs fijos se comen casi toda la ventaja de la T4; al crecer n, la
# distancia crece. Contando además la copia de los datos por el bus (paso 5), la GPU empieza a
# ganar más tarde.

# %% [markdown]
# ## Paso 8: tipos de dato en la GPU (fp32, TF32, fp16, bf16)
#
# Con menos bits por número la GPU usa sus **Tensor Cores** y va mucho más rápida. Esta celda
# solo mide si hay GPU:

# %%
from curso_gpu.medicion import MemoriaInsuficiente, medir_matmul

if HAY_GPU:
    for modo in ["fp32", "tf32", "fp16", "bf16"]:
        try:
            r = medir_matmul(N * 2 if GPU_DE_VERDAD else N // 2, dispositivo, dtype=modo, repeticiones=5)
        except (MemoriaInsuficiente, RuntimeError) as error:  # una GPU sin memoria o sin ese tipo de dato
            print(f"{modo}: no se pudo medir ({error})")
        else:
            pico = f" = {r.porcentaje_pico:.0f} % del pico {r.modo}" if r.porcentaje_pico is not None else ""
            print(f"{modo:>5}: {r.segundos * 1000:8.2f} ms  {r.gflops:9.0f} GFLOP/s{pico}")
            for aviso in r.avisos:  # en la T4 simulada, uno dice que la medida es de la CPU
                print("       ¡Ojo!", aviso)
else:
    print("Sin GPU: esta comparación no se mide aquí. Mira abajo qué verías en una T4.")

# %% [markdown]
# Qué verías en una **T4** (Turing) con n=8192:
#
# - **fp32**: unos 4 TFLOP/s, la mitad de su pico de 8.1.
# - **tf32**: lo mismo que fp32, con un aviso: la T4 no tiene TF32 (llegó con Ampere).
# - **fp16**: 20–25 TFLOP/s sostenidos, un 30–40 % de su pico de 65 (el límite de 70 W baja
#   el reloj): unas **5 o 6 veces** más que fp32.
# - **bf16**: como fp32 o más lento: la T4 no tiene bf16 en sus Tensor Cores.
#
# En una A100 o H100, bf16 y fp16 llegan al 70–90 % del pico, y TF32 multiplica varias veces la
# velocidad de fp32.

# %% [markdown]
# ## Pruébalo: por qué el hardware paralelo es tan rápido
#
# No hace falta GPU para ver la idea. Un bucle de Python hace las multiplicaciones **de una en
# una**; NumPy las lanza **en bloque** sobre código optimizado que aprovecha las instrucciones
# vectoriales de la CPU. Una GPU lleva esa idea al extremo, con miles de núcleos a la vez:

# %%
import numpy as np

n = 60
a_np = np.random.rand(n, n)
b_np = np.random.rand(n, n)

inicio = time.perf_counter()
c_bucle = [[sum(a_np[i, k] * b_np[k, j] for k in range(n)) for j in range(n)] for i in range(n)]
t_bucle = time.perf_counter() - inicio

inicio = time.perf_counter()
c_np = a_np @ b_np
t_numpy = time.perf_counter() - inicio

print(f"Bucle de Python: {t_bucle:.3f} s")
print(f"NumPy (a @ b):   {t_numpy:.5f} s   (¡una sola medida, sin calentar!)")
print("¿Mismo resultado?", np.allclose(c_bucle, c_np))

# %% [markdown]
# La medida de NumPy de arriba tiene los mismos fallos del paso 1. `bucle_python_vs_numpy` mide
# las dos versiones con `comparar_tiempos`: alternadas, calentadas y con el intervalo de la
# aceleración. Con n=80 el bucle hace 512 000 multiplicaciones. En una CPU tranquila, NumPy sale
# miles de veces más rápido; en una ocupada, menos, y el intervalo dice cuánto se movió:

# %%
from curso_gpu.medicion import bucle_python_vs_numpy

print(bucle_python_vs_numpy(80))

# %% [markdown]
# Cambia `n` y vuelve a ejecutar: el bucle crece con n³ (el doble de n, ocho veces más tiempo).

# %% [markdown]
# ## Errores comunes
#
# - **No sincronizar** antes de parar el reloj en una GPU: mides el encargo, no el trabajo.
# - **No calentar**: la primera llamada incluye el arranque de CUDA y cuBLAS.
# - **Una sola muestra**, o la media en lugar de la mediana.
# - **`time.time()`** en lugar de `time.perf_counter()`.
# - **Comparar con una CPU de un solo hilo** (lo que hace por defecto `torch.utils.benchmark`):
#   la GPU parece más rápida de lo que es. Aquí la CPU usa todos sus hilos.
# - **Olvidar la copia de datos**: si los datos viven en la CPU, copiarlos a la GPU cuenta.
# - **Suponer que la GPU acelera cualquier ejemplo por igual**: con problemas pequeños gana poco.
# - **Creerse más del 100 % del pico**: es un error de medición.
# - **Pedir matrices que no caben**: `medir_matmul` calcula antes 3·n²·bytes y te avisa.

# %%
try:
    medir_matmul(0, dispositivo)
except ValueError as error:
    print("ValueError:", error)

try:
    medir_matmul(200_000, dispositivo)  # 3 × 200 000² × 4 bytes = 480 GB
except MemoriaInsuficiente as error:
    print("MemoriaInsuficiente:", error)
    # Que quepa no quiere decir que acabe pronto: 2·n³ operaciones al ritmo medido en el paso 5.
    ritmo = (comparacion.acelerador if GPU_DE_VERDAD else comparacion.cpu).gflops * 1e9
    segundos = 2 * error.n_sugerido**3 / ritmo
    duracion = f"{formatear_numero(segundos / 60, 0)} minutos" if segundos >= 120 else f"{segundos:.0f} segundos"
    print(f"n={error.n_sugerido} cabe, pero a {formatear_numero(ritmo / 1e9, cifras=3)} GFLOP/s (los de {'la GPU' if GPU_DE_VERDAD else 'la CPU'} "
          f"en el paso 5) tardaría unos {duracion} por multiplicación. Mide primero con un tamaño "
          "que acabe en segundos.")

# %% [markdown]
# ## Retos
#
# Los cuatro primeros se hacen en cualquier CPU; el último necesita la T4 de Colab.
#
# 1. **Tu propio cronómetro.** Escribe una función `mi_cronometro(funcion, repeticiones)` con
#    `time.perf_counter()`: una llamada de calentamiento, `repeticiones` muestras y la mediana
#    (`statistics.median`). Llama a `esperar(dispositivo)` antes y después de cada muestra (en
#    la CPU no hace nada; en una GPU, sí). Compara su mediana con la de `cronometrar`.
# 2. **Un hilo frente a todos.** Guarda `antes = torch.get_num_threads()`. Mide `a @ b` con n=512
#    en la CPU con `cronometrar` tras `torch.set_num_threads(1)`, y otra vez tras
#    `torch.set_num_threads(antes)` (así queda como estaba). ¿Cuántas veces más lenta es la
#    mediana con un hilo? Es lo que una GPU parecería ganar de más frente a una CPU de un solo
#    hilo (el error de «Errores comunes»).
# 3. **fp32 frente a fp64 en la CPU.** Con `medir_matmul(512, "cpu", dtype=...)`, mide fp32 y
#    `torch.float64`. ¿Cuántos GFLOP/s pierdes con el doble de bits por número?
# 4. **Dónde se aplana tu CPU.** Repite el `barrido` del paso 7 con más tamaños (hasta 2048, si
#    tu máquina aguanta). ¿Desde qué n dejan de subir los GFLOP/s de la CPU?
# 5. **En la T4 de Colab** (menú *Entorno de ejecución › Cambiar tipo de entorno de ejecución*):
#    ejecuta el notebook entero y compara la aceleración del paso 5 con y sin la copia de los
#    datos. ¿Cuánto se come la copia con n=4096?
#
# ## Glosario
#
# - **Aceleración** (*speed-up*): tiempo en CPU dividido por tiempo en GPU.
# - **Asíncrono**: la operación se encarga y Python sigue sin esperar a que termine.
# - **Calentamiento** (*warm-up*): llamadas previas que no se miden, para pagar el arranque.
# - **cuBLAS**: la biblioteca de NVIDIA que hace las multiplicaciones de matrices en la GPU.
# - **FLOP/s**: operaciones de coma flotante por segundo (GFLOP/s = 10⁹; TFLOP/s = 10¹²).
# - **fp32, fp16, bf16**: números de 32 y 16 bits; bf16 tiene el rango de fp32 con menos precisión.
# - **Límite de potencia** (*power cap*): los vatios que una GPU no puede superar (70 W la T4);
#   para respetarlo, el driver baja el reloj (*clock throttling*).
# - **Mediana**: el valor del medio de las muestras ordenadas.
# - **Pico teórico**: el máximo de FLOP/s que el fabricante da para un chip y un tipo de dato.
# - **Rango intercuartílico**: la distancia entre el cuartil 1 y el 3; mide la dispersión.
# - **Sincronizar**: esperar a que la GPU termine todo lo encargado (`torch.cuda.synchronize()`).
# - **Tensor Cores**: unidades de las GPU NVIDIA (desde Volta) especializadas en multiplicar
#   matrices en fp16, bf16, TF32...
# - **TF32**: modo de los Tensor Cores (desde Ampere) para acelerar multiplicaciones fp32 con
#   menos precisión. PyTorch lo deja apagado en las multiplicaciones de matrices y encendido
#   en las convoluciones de cuDNN.

# %%
# Comprobación final: la mediana, los GFLOP/s (2·n³/t) y los picos de la T4 que usa la lección.
# Ejecútala tras cambiar algo: si deja de ser cierto, falla y dice qué.
assert np.allclose(c_bucle, c_np)  # NumPy da lo mismo que el bucle de Python
assert medida.mediana == statistics.median(medida.muestras)  # la cifra que citamos es la mediana
assert abs(r.gflops - 2 * r.n**3 / r.segundos / 1e9) <= 1e-6 * r.gflops  # GFLOP/s = 2·n³ / segundos
assert pico_teorico("Tesla T4", torch.float32) == 8.1 and t4_bf16 is None  # la T4: 8,1 TFLOP/s en fp32, sin bf16
print("Comprobado: mediana, GFLOP/s = 2·n³/t y los picos de la T4.")
