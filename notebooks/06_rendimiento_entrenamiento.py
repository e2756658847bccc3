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
# [![Abrir en Colab](https://colab.research.google.com/assets/colab-badge.svg)](https://colab.research.google.com/github/curso-gpu/curso_gpu/blob/main/notebooks/06_rendimiento_entrenamiento.ipynb)
#
# # Lección 06 — ¿Por qué va lenta mi GPU? Perfilar, alimentar la GPU y precisión mixta

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
# - Los **tres cuellos de botella** de un entrenamiento: la GPU espera a los **datos**, espera a
#   los **lanzamientos** de operaciones, o está **calculando** (el buen caso).
# - A usar `torch.profiler`: perfilar unos pasos, leer la tabla y abrir la traza en Perfetto.
# - A diagnosticar tu bucle con una sola llamada: `diagnosticar(paso, cargador, dispositivo)`.
# - A alimentar la GPU: `num_workers`, `pin_memory`, `non_blocking=True`, `persistent_workers`.
# - Las **sincronizaciones ocultas** (`.item()`, `print(perdida)`) y cómo evitarlas.
# - **Precisión mixta**: `torch.autocast`, `GradScaler` para fp16, bf16 sin escalador.
# - Los interruptores gratis: TF32, `cudnn.benchmark` y `torch.compile`.
#
# ## Por qué importa
#
# Es la pregunta que más se repite en los foros: «tengo GPU y entrena igual de lento». Casi
# nunca es culpa de la GPU: o no le llegan los datos a tiempo, o le llegan operaciones tan
# pequeñas que pasa más tiempo esperando a Python que calculando. Antes de cambiar nada hay
# que **medir** dónde se va el tiempo. Esta lección te enseña a medirlo y a arreglarlo.
#
# Todo corre en CPU en menos de un minuto. Donde una GPU cambia algo, la celda dice qué verías
# en una T4 de Colab.

# %%
import multiprocessing
import shutil
import tempfile
import time
from pathlib import Path

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

from curso_gpu import graficos
from curso_gpu.rendimiento import ImagenesSinteticas
from curso_gpu.medicion import cronometrar
from curso_gpu.entrenamiento import generar_dataset
from curso_gpu.dispositivo import elegir_dispositivo, simulacion_activa, sincronizar
from curso_gpu.entrenamiento import entrenar
from curso_gpu.entrenamiento import CNNPequena
from curso_gpu.rendimiento import soporte_bf16_cpu
from curso_gpu.rendimiento import comparar_cargadores, diagnosticar
from curso_gpu.base import marcar_simulada

dispositivo = elegir_dispositivo()
EN_GPU = dispositivo.type != "cpu"
print("PyTorch", torch.__version__, "· dispositivo:", dispositivo)

# %% [markdown]
# ## La idea clave: tres cuellos de botella
#
# Un paso de entrenamiento son dos trabajos que se turnan: la **CPU** prepara el lote y
# *encarga* las operaciones; la **GPU** las ejecuta. La GPU solo va a tope si siempre tiene
# trabajo en la cola. Hay tres formas de que no lo tenga (o de que sí):
#
# | cuello de botella | qué pasa | síntoma | arreglo típico |
# |---|---|---|---|
# | **datos** | la GPU espera el siguiente lote (leer de Drive, aumentar imágenes en la CPU) | la GPU al 20–40 % en `nvidia-smi` | `num_workers`, `pin_memory`, copiar los datos al disco local |
# | **lanzamientos** | cada operación cuesta unos microsegundos fijos en lanzarse; si son miles y diminutas, la GPU espera a Python | muchas operaciones cortas en el perfilador | lotes más grandes, quitar `.item()`, `torch.compile` |
# | **cálculo** | la GPU está ocupada calculando: el buen caso | la GPU cerca del 100 % | precisión mixta, TF32, `torch.compile` |
#
# Vamos a medir cada uno. Empezamos por la herramienta de PyTorch que lo ve todo: el perfilador.
#
# ## Paso a paso
#
# ### 1. Un bucle de entrenamiento para estudiar
#
# La CNN de líneas de la lección 05, con lotes de 64 imágenes de un `DataLoader`.
# `paso(xb, yb)` es **un** paso de entrenamiento: forward, pérdida, backward y step.

# %%
X, y = generar_dataset(200, semilla=1)                 # 600 imágenes de 8×8
cargador = DataLoader(TensorDataset(X, y), batch_size=64, shuffle=True)

torch.manual_seed(0)
modelo = CNNPequena().to(dispositivo)
optimizador = torch.optim.Adam(modelo.parameters(), lr=0.01)
criterio = nn.CrossEntropyLoss()


def paso(xb, yb):
    perdida = criterio(modelo(xb), yb)
    optimizador.zero_grad(set_to_none=True)
    perdida.backward()
    optimizador.step()
    return perdida


for xb, yb in cargador:  # una época de calentamiento: la primera vez todo cuesta más
    paso(xb.to(dispositivo), yb.to(dispositivo))
print(f"Pérdida tras una época: {paso(xb.to(dispositivo), yb.to(dispositivo)).item():.4f}")

# %% [markdown]
# ### 2. `torch.profiler`: dónde se va el tiempo
#
# `torch.profiler.profile` registra cada operación de PyTorch (y, en GPU, cada *kernel*).
# `record_function("nombre")` marca un trozo del código para encontrarlo en el informe.
# Qué puede ver lo dice `torch.profiler.supported_activities()`: en una GPU de NVIDIA, la CPU y
# CUDA; en un PyTorch solo para CPU (o en la T4 simulada, que calcula en la CPU), solo la CPU.
# Perfilamos cinco pasos:

# %%
ve_la_gpu = (dispositivo.type == "cuda"
             and torch.profiler.ProfilerActivity.CUDA in torch.profiler.supported_activities())
actividades = [torch.profiler.ProfilerActivity.CPU] + ([torch.profiler.ProfilerActivity.CUDA] if ve_la_gpu else [])
print("El perfilador mira:", ", ".join(a.name for a in actividades))

with torch.profiler.profile(activities=actividades) as perfil:
    for i, (xb, yb) in enumerate(cargador):
        if i == 5:
            break
        with torch.profiler.record_function("paso_de_entrenamiento"):
            paso(xb.to(dispositivo, non_blocking=True), yb.to(dispositivo, non_blocking=True))
    sincronizar(dispositivo)  # que la GPU termine antes de cerrar el perfil

orden = "cuda_time_total" if ve_la_gpu else "cpu_time_total"
print(perfil.key_averages().table(sort_by=orden, row_limit=12))

# %% [markdown]
# Cómo leer la tabla:
#
# - **Name**: la operación (`aten::convolution`, `aten::addmm`...) o tu marca (`paso_de_entrenamiento`).
# - **Self CPU**: el tiempo de la operación sin contar las que llama por dentro; **CPU total**, contándolas.
# - **# of Calls**: cuántas veces se llamó. Cientos de llamadas con un tiempo medio de pocos
#   microsegundos son el síntoma de los **lanzamientos**.
# - En GPU aparecen además las columnas **CUDA total** (el tiempo de los *kernels*). Si la suma
#   de CUDA es mucho menor que la duración del paso, la GPU pasa el resto del tiempo esperando.
# - En la T4 simulada no hay columnas de CUDA (el perfilador solo ve la CPU) y aparecen filas
#   `PythonDispatchMode`: son la simulación, que pasa cada operación por Python.
#
# La **traza** muestra lo mismo en una línea de tiempo. La guardamos en una carpeta temporal
# (fuera del repositorio):

# %%
traza = Path(tempfile.gettempdir()) / "curso_gpu_traza_leccion06.json"
perfil.export_chrome_trace(str(traza))
print(f"Traza guardada en {traza} ({traza.stat().st_size / 1e6:.1f} MB)")

# %% [markdown]
# Para verla, abre <https://ui.perfetto.dev> en el navegador y arrastra allí el archivo
# («Open trace file»); también sirve `chrome://tracing` en Chrome. Verás una fila por hilo de
# la CPU (y una por *stream* de la GPU): los huecos en la fila de la GPU son tiempo perdido.
# En Colab, descárgalo desde el panel de archivos (la carpeta es `/tmp`).
#
# ### 3. El diagnóstico en una llamada
#
# El paquete del curso hace estas cuentas por ti. `diagnosticar(paso, cargador, dispositivo)`
# mide unos pasos (cuánto se espera al cargador y cuánto dura cada paso, sincronizando con la
# GPU), perfila dos pasos más y reparte el tiempo en los tres cuellos de botella:

# %%
diagnostico = diagnosticar(paso, cargador, dispositivo, pasos=6)
diagnostico

# %% [markdown]
# Con imágenes de 8×8 y 2 339 parámetros, cada operación hace muy poco trabajo. En la CPU,
# que calcula despacio, el cálculo aún pesa; en una T4, que en fp32 calcula unas 30–60 veces más
# rápido (lo mediste en la lección 03; cientos de veces solo en fp16 con sus Tensor Cores),
# este modelo es el caso de libro de **lanzamientos**: la GPU termina cada operación antes de
# que Python le encargue la siguiente. Los otros dos cuellos, provocados a propósito:

# %%
lotes_en_memoria = [(torch.randn(8, 8), torch.zeros(8)) for _ in range(6)]


def operaciones_diminutas(xb, yb):   # 200 operaciones sobre 8 números
    x = xb[0]
    for _ in range(100):
        x = x * 1.0001 + 0.0001
    return x


A = torch.randn(512, 512, device=dispositivo)


def multiplicaciones_grandes(xb, yb):  # pocas operaciones, mucho trabajo cada una
    for _ in range(3):
        B = A @ A
    return B


for nombre, funcion in [("diminutas", operaciones_diminutas), ("grandes", multiplicaciones_grandes)]:
    d = diagnosticar(funcion, lotes_en_memoria, dispositivo, pasos=3)
    print(marcar_simulada(f"{nombre:<10} → {d.nombre_cuello:<13} (lanzar {100 * d.fraccion_lanzamientos:.0f} %, "
                          f"calcular {100 * d.fraccion_calculo:.0f} %)", d.simulada))

# %% [markdown]
# ### 4. Alimentar la GPU: el `DataLoader`
#
# En un proyecto de verdad cada imagen se lee de disco, se decodifica y se transforma
# (recortes, volteos, color) **en la CPU**. `ImagenesSinteticas` imita eso: cada imagen se
# fabrica al pedirla y pasa por un aumento de datos típico. Con `latencia` simula además leer
# de un disco lento, como Google Drive montado en Colab.

# %%
conjunto = ImagenesSinteticas(n=256, lado=24, recorte=20, latencia=0.003)
imagen, etiqueta = conjunto[0]
print("Una imagen:", tuple(imagen.shape), imagen.dtype, "· etiqueta:", etiqueta)

# %% [markdown]
# Las opciones que importan, en PyTorch puro:
#
# - `num_workers=N`: N procesos preparan lotes **mientras** la GPU calcula. Con 0, los prepara
#   el propio proceso y la GPU espera.
# - `pin_memory=True`: deja los lotes en memoria «fijada», desde la que la copia a la GPU es
#   más rápida y puede ir en paralelo. Solo sirve con CUDA.
# - `.to(dispositivo, non_blocking=True)`: la copia no bloquea a la CPU (necesita `pin_memory`).
# - `persistent_workers=True`: los procesos sobreviven entre épocas (arrancarlos cuesta).

# %%
cargador_rapido = DataLoader(conjunto, batch_size=32, shuffle=True, num_workers=2,
                             pin_memory=dispositivo.type == "cuda", persistent_workers=True, timeout=60)
inicio = time.perf_counter()
for i, (xb, yb) in enumerate(cargador_rapido):
    xb = xb.to(dispositivo, non_blocking=True)
    if i == 3:
        break
print(f"4 lotes con 2 procesos: {time.perf_counter() - inicio:.2f} s (arranque incluido)")
del cargador_rapido  # cierra los procesos (con persistent_workers siguen vivos hasta aquí)

# %% [markdown]
# ¿Cuántos procesos? Depende de tu CPU y de lo cara que sea la transformación: se mide.
# `comparar_cargadores` mide las muestras por segundo de cada configuración (sin contar el
# arranque) y cierra siempre sus procesos:

# %%
comparacion = comparar_cargadores(conjunto, 32, num_workers=(0, 1, 2), lotes=3)
print(comparacion)
graficos.grafico_cargadores(comparacion);

# %% [markdown]
# Con solo 3 lotes por configuración, una tabla así se mueve mucho de una ejecución a otra (los
# procesos ya tenían lotes preparados, otro programa usó la CPU…). Para decidir entre dos
# configuraciones, mídelas **alternadas** con `comparar_tiempos`: aquí, una época entera de 64
# imágenes con 0 y con 2 procesos (que siguen vivos entre épocas: el arranque no cuenta).

# %%
from curso_gpu.medicion import comparar_tiempos

pequeno = ImagenesSinteticas(n=64, lado=24, recorte=20, latencia=0.003)
cero = DataLoader(pequeno, batch_size=32)
dos = DataLoader(pequeno, batch_size=32, num_workers=2, persistent_workers=True, timeout=60)


def una_epoca(cargador):
    for xb, yb in cargador:
        xb.to(dispositivo)


try:
    procesos = comparar_tiempos(lambda: una_epoca(cero), lambda: una_epoca(dos),
                                nombres=("num_workers=0", "num_workers=2"), repeticiones=5, presupuesto_s=None,
                                dispositivo=dispositivo, descripcion="una época de 64 imágenes")
finally:
    del dos  # cierra sus dos procesos
procesos

# %% [markdown]
# Qué suele salir: leer de un disco lento no gasta CPU, así que varios procesos esperan a la vez
# y las muestras por segundo suben casi en proporción (con 2 procesos, cerca del doble). Si la
# transformación es cara, cada proceso necesita un núcleo: en una máquina de 2 núcleos (como
# Colab gratis) más de 2 procesos ya no ayudan, y si la CPU está ocupada con otras cosas, ni
# siquiera 2. El veredicto de arriba dice lo que pasó aquí. Y el diagnóstico lo ve: con el
# cargador lento, manda el cuello de **datos**.

# %%
lento = DataLoader(conjunto, batch_size=32, shuffle=False)  # num_workers=0
diagnosticar(lambda xb, yb: (xb * 2).sum(), lento, dispositivo, pasos=3)

# %% [markdown]
# **En Colab, copia los datos de Drive al disco local antes de entrenar.** Drive es un
# montaje de red: leer miles de archivos pequeños de `/content/drive` es lentísimo. Copiarlos
# una vez a `/content` tarda un poco al principio y después cada época vuela:
#
# ```python
# shutil.copytree("/content/drive/MyDrive/mis_datos", "/content/mis_datos")  # o descomprime un .zip
# conjunto = MiDataset("/content/mis_datos")
# ```
#
# **Por qué `ImagenesSinteticas` vive en el paquete y no aquí.** Cada proceso del `DataLoader`
# tiene que tener la clase del conjunto. En Linux con Python 3.13 o anterior (Colab hoy) los
# procesos se crean con *fork*: son una copia de este, con todo lo que definiste. En macOS y
# Windows se crean con *spawn*, y en Linux desde Python 3.14 con *forkserver*: un Python nuevo
# que **importa** el módulo donde está la clase, y una clase definida en un notebook no se
# puede importar (verías `AttributeError: Can't get attribute ...`). Pon tus conjuntos en un
# archivo `.py`: así funcionan en todas partes.
#
# <!-- Fuente: documentación de Python 3.14, «multiprocessing › Contexts and start methods»
# («Changed in version 3.14: On POSIX platforms the default start method was changed from fork
# to forkserver»). El curso admite Python 3.10 o posterior. -->

# %%
print("Aquí los procesos se crean con:", multiprocessing.get_start_method())

# %% [markdown]
# ### 5. Sincronizaciones ocultas
#
# La CPU encarga operaciones a la GPU y sigue adelante sin esperar. Pero si le pides un número
# a la GPU (`perdida.item()`, `print(perdida)`, `float(perdida)`, `.cpu()`), la CPU **se para**
# hasta que la GPU termina todo lo encargado. Hacerlo en cada paso vacía la cola de la GPU en
# cada paso. El mismo bucle, con y sin `.item()` en cada paso:

# %%
lotes = [(xb.to(dispositivo), yb.to(dispositivo)) for xb, yb in cargador]


def epoca(leer_cada_paso):
    perdidas = []
    for xb, yb in lotes:
        perdida = paso(xb, yb)
        perdidas.append(perdida.item() if leer_cada_paso else perdida.detach())
    return sum(perdidas) / len(perdidas) if leer_cada_paso else torch.stack(perdidas).mean().item()


comparar_tiempos(lambda: epoca(True), lambda: epoca(False), nombres=("con .item()", "leyendo al final"),
                 repeticiones=7, presupuesto_s=None, dispositivo=dispositivo, descripcion="una época")

# %% [markdown]
# Qué esperar: en la CPU no hay cola que vaciar (la CPU ya hace las cuentas ella misma), así que
# lo normal es «sin diferencia clara» o una diferencia pequeña. En una GPU, el bucle con `.item()`
# hace esperar a la CPU en cada paso; con un modelo pequeño eso puede ser una buena parte del
# tiempo. El veredicto de arriba es el de esta máquina.

# %% [markdown]
# Hay sincronizaciones que no puedes evitar (quieres ver la pérdida). La solución: acumula la
# pérdida **en la GPU** y léela cada N pasos, como hace `entrenar` del curso (solo mide en la
# época 1 y cada 10):
#
# ```python
# suma = torch.zeros((), device=dispositivo)
# for i, (xb, yb) in enumerate(cargador):
#     suma += paso(xb, yb).detach()          # sin .item(): no espera
#     if (i + 1) % 100 == 0:
#         print(f"pérdida media: {(suma / 100).item():.4f}")   # una espera cada 100 pasos
#         suma.zero_()
# ```
#
# `diagnosticar` también las cuenta: `diagnostico.sincronizaciones_por_paso`.
#
# ### 6. Precisión mixta
#
# Las GPU modernas tienen **Tensor Cores** que multiplican matrices en 16 bits muchas veces
# más rápido que en 32. La **precisión mixta** hace el paso hacia delante en 16 bits donde es
# seguro (multiplicaciones, convoluciones) y deja en 32 lo delicado (sumas grandes, `softmax`,
# la pérdida) y los pesos. En PyTorch puro:
#
# - `torch.autocast(device_type, dtype)` alrededor del forward y la pérdida (el backward sigue solo).
# - Con **fp16**, además `torch.amp.GradScaler`: multiplica la pérdida para que los gradientes
#   pequeños no se vuelvan 0 en 16 bits, y los divide antes del `step`.
# - Con **bf16** no hace falta escalador: tiene el mismo rango que fp32 (menos decimales).

# %%
tipo_16 = torch.float16 if dispositivo.type == "cuda" else torch.bfloat16
escalador = torch.amp.GradScaler(dispositivo.type, enabled=tipo_16 == torch.float16)

for xb, yb in lotes[:3]:
    with torch.autocast(device_type=dispositivo.type, dtype=tipo_16):
        logits = modelo(xb)                      # las convoluciones y lineales, en 16 bits
        perdida = criterio(logits, yb)           # la pérdida, en fp32 (autocast lo decide)
    optimizador.zero_grad(set_to_none=True)
    escalador.scale(perdida).backward()          # sin escalador (bf16) es perdida.backward()
    escalador.step(optimizador)
    escalador.update()
print("logits:", logits.dtype, "· pérdida:", perdida.dtype, "· pesos:", modelo.conv1.weight.dtype)

# %% [markdown]
# **¿Acelera en esta máquina?** Depende del hardware:
#
# - Una **T4** (Turing) tiene Tensor Cores para **fp16**, pero **no para bf16**: en ella bf16
#   funciona, emulado, y va varias veces más lento
#   ([un caso medido: 1.29 s por lote en bf16 frente a 0.30 s en fp16](https://earino.github.io/applied-deep-learning/site/blog/05_bf16_on_t4.html)).
#   bf16 acelera desde Ampere (A100, RTX 30xx, capacidad 8.0+). En una T4, usa fp16.
# - Ojo: en una T4, `torch.cuda.is_bf16_supported()` dice `True`, pero solo porque cuenta la
#   **emulación** (PyTorch prueba a crear un tensor bf16 y lo consigue). La pregunta que importa
#   es `torch.cuda.is_bf16_supported(including_emulation=False)`: en una T4 (capacidad 7.5), `False`.
# - Una **CPU** solo gana con bf16 si tiene AVX-512-BF16 o AMX (Xeon recientes); si no, convierte
#   a fp32 por dentro y pierde. Veamos cuál es esta (y la GPU, si hay):

# %%
if torch.cuda.is_available():  # fuente: is_bf16_supported en torch/cuda/__init__.py (torch 2.13.0)
    print("GPU:", torch.cuda.get_device_name(), "· capacidad", torch.cuda.get_device_capability(),
          "· ¿bf16, contando la emulación?", torch.cuda.is_bf16_supported(),
          "· ¿bf16 nativo?", torch.cuda.is_bf16_supported(including_emulation=False))
print(soporte_bf16_cpu())
a = torch.randn(256, 256)
a16 = a.to(torch.bfloat16)
comparar_tiempos(lambda: a @ a, lambda: a16 @ a16, nombres=("fp32", "bf16"), repeticiones=7,
                 descripcion="a @ a, 256×256, en la CPU")  # cada una se calienta antes de medir

# %% [markdown]
# **¿Y la accuracy?** La misma. `entrenar` del curso acepta `precision="fp32"` (por defecto),
# `"fp16"` o `"bf16"`; con fp16 guarda el estado del escalador en los checkpoints. Entrenamos
# la CNN de la lección 05 con las tres:

# %%
X_ent, y_ent = generar_dataset(40, semilla=1)
X_val, y_val = generar_dataset(30, semilla=2)
for precision in ("fp32", "bf16", "fp16"):
    torch.manual_seed(24)
    try:
        h = entrenar(CNNPequena(), (X_ent, y_ent), (X_val, y_val), dispositivo, epocas=30,
                     silencioso=True, precision=precision)
    except ValueError as error:  # por ejemplo, bf16 en una T4
        print(f"{precision}: {error}")
        continue
    print(f"{precision}: accuracy de validación {h.final.accuracy_validacion:.3f} · "
          f"pérdida {h.final.perdida_validacion:.4f}")
# Sin tiempos: la primera precisión del bucle paga el arranque y ordenarlas así sería injusto.
# La comparación de velocidad justa es la de arriba (alternada y calentada).

# %% [markdown]
# Un modelo tan pequeño no gana nada con precisión mixta, tampoco en una T4: su tiempo es de
# lanzamientos, no de cálculo. La precisión mixta brilla cuando manda el **cálculo**. Cifras
# publicadas en una T4 (PyTorch 1.6, instancias `g4dn.xlarge` de AWS, de la
# [guía de rendimiento de Aleksey Bilogur](https://github.com/ResidentMario/pytorch-training-performance-guide/blob/main/book/mixed-precision.md)):
#
# | modelo | parámetros | tiempo de entrenamiento con AMP (fp16) |
# |---|---|---|
# | red *feedforward* pequeña | pocos | sin cambio |
# | UNet (segmentación) | 7.7 millones | **unos 30 % menos** |
# | BERT-base | 110 millones | **entre 50 y 60 % menos** |
#
# Sin cambiar la accuracy en ninguno. Compruébalo tú en Colab con GPU T4: en la celda de
# `comparar_tiempos` de arriba, pon `a = torch.randn(4096, 4096, device="cuda")` y `a16 = a.half()`
# (fp16, la que acelera en una T4) y compara `fp32` con `fp16`.
#
# ### 7. Los interruptores gratis
#
# **TF32** (Ampere y más nuevas: A100, RTX 30xx, L4; **no** en una T4): las multiplicaciones en
# fp32 usan los Tensor Cores con 10 bits de mantisa. Pierdes decimales que casi nunca
# importan y ganas mucha velocidad. Desde PyTorch 2.9 se elige así (antes,
# `torch.backends.cuda.matmul.allow_tf32 = True`):

# %%
print("matmul en fp32:", torch.backends.cuda.matmul.fp32_precision,
      "· convoluciones en fp32:", torch.backends.cudnn.conv.fp32_precision)
if dispositivo.type == "cuda" and torch.cuda.get_device_capability(dispositivo)[0] >= 8:
    torch.backends.cuda.matmul.fp32_precision = "tf32"   # solo se ejecuta en una GPU con capacidad 8.0+ (la T4 es 7.5); "ieee" vuelve a fp32
    print("TF32 activado para las multiplicaciones de matrices.")  # solo se ejecuta en una GPU con capacidad 8.0+
else:
    print("Sin GPU Ampere o más nueva: TF32 no cambia nada aquí (las convoluciones ya lo usan por defecto donde existe).")

# %% [markdown]
# **`cudnn.benchmark`**: si las entradas tienen siempre el mismo tamaño, cuDNN prueba varios
# algoritmos de convolución la primera vez y se queda con el más rápido. Con tamaños que
# cambian en cada lote, repite la prueba cada vez y va más lento.

# %%
torch.backends.cudnn.benchmark = True  # en CPU no hace nada; en GPU, con tamaños fijos, ayuda

# %% [markdown]
# **`torch.compile`** fusiona muchas operaciones pequeñas en pocos *kernels*: ataca
# directamente el cuello de los lanzamientos. El precio: compilar la primera vez, que hay que
# contar: en una T4 de Colab, la primera compilación tarda **decenas de segundos** (la lección 11
# la mide en la CPU), y un modelo grande, minutos. En la CPU además necesita un compilador de C, y compilar
# incluso una función pequeña puede tardar cerca de un minuto en una máquina modesta, así que
# aquí solo lo hacemos en GPU.

# %%
compilador_c = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang") or shutil.which("cl")
print("Compilador de C:", compilador_c or "ninguno (torch.compile no funcionaría en la CPU)")
if EN_GPU:
    def pasos_diminutos(x):
        for _ in range(50):
            x = x * 1.0001 + 0.0001
        return x

    compilada = torch.compile(pasos_diminutos)
    x = torch.randn(1024, device=dispositivo)
    inicio = time.perf_counter()
    compilada(x)
    sincronizar(dispositivo)
    print(f"Compilar (primera llamada): {time.perf_counter() - inicio:.1f} s")
    normal = cronometrar(lambda: pasos_diminutos(x), dispositivo, repeticiones=10)
    rapida = cronometrar(lambda: compilada(x), dispositivo, repeticiones=10)
    nota = " (T4 simulada: torch.compile con el backend eager, en la CPU, no fusiona nada)" if simulacion_activa() else ""
    print(f"100 operaciones: {normal.mediana * 1e6:.0f} µs sin compilar · {rapida.mediana * 1e6:.0f} µs compiladas{nota}")
else:
    print("Sin GPU no compilamos en esta lección. En una T4 de Colab, la primera compilación de esta\n"
          "función de 100 operaciones diminutas tarda decenas de segundos (arrancar el compilador cuesta\n"
          "más que la función) y después cada llamada es un solo kernel: de cientos de microsegundos a unas decenas.")

# %% [markdown]
# ### 8. Lista de comprobación, de lo que más suele ganar a lo que menos
#
# 1. **Mide primero**: `diagnosticar(...)` o `torch.profiler`. No optimices a ciegas.
# 2. **Datos** (si la GPU espera): copia los datos al disco local, `num_workers` ≈ núcleos,
#    `pin_memory=True` + `non_blocking=True`, `persistent_workers=True`.
# 3. **Sin sincronizaciones** en el bucle: nada de `.item()`/`print` en cada paso.
# 4. **Precisión mixta**: fp16 + `GradScaler` en una T4; bf16 en Ampere o más nueva.
# 5. **Lotes más grandes** (lo que quepa en memoria; lección 07).
# 6. **TF32** en Ampere o más nueva, y `cudnn.benchmark = True` con tamaños fijos.
# 7. **`torch.compile`**, contando su tiempo de compilar.
#
# ## Pruébalo
#
# - Cambia `latencia=0.003` por `latencia=0` en `ImagenesSinteticas` y repite la comparación de
#   cargadores. ¿Siguen ayudando los procesos? ¿Por qué?
# - Sube `batch_size` de 64 a 600 en el primer cargador y repite el diagnóstico. ¿Qué fracción crece?
# - En Colab con GPU T4, ejecuta el notebook entero y compara el diagnóstico de la CNN con el de aquí.
#
# ## Errores comunes
#
# | error | qué pasa | cómo se arregla |
# |---|---|---|
# | Medir sin sincronizar | los tiempos de la GPU salen absurdamente cortos | `torch.cuda.synchronize()` antes de parar el reloj |
# | `print(perdida)` o `.item()` en cada paso | la CPU espera a la GPU en cada paso | acumula en la GPU y lee cada N pasos |
# | Un `Dataset` definido en el notebook con `num_workers > 0` en macOS/Windows | `AttributeError: Can't get attribute ...` | pon la clase en un archivo `.py` |
# | Entrenar leyendo de `/content/drive` | la GPU espera a Drive | copia los datos a `/content` antes |
# | `dtype=torch.bfloat16` en una T4 | funciona, pero más lento que fp32 | `torch.float16` con `GradScaler` |
# | fp16 sin `GradScaler` | la pérdida se queda en `nan` o no baja | `torch.amp.GradScaler` |
# | `.half()` en el modelo en vez de `autocast` | pesos en 16 bits que pierden las actualizaciones pequeñas | `autocast`: los pesos siguen en fp32 |
#
# ## Retos
#
# 1. Añade a `paso` un `print(perdida.item())` y mira cómo cambian `sincronizaciones_por_paso`
#    y el reparto del diagnóstico.
# 2. Escribe un `Dataset` propio en un archivo `mis_datos.py`, con una transformación más cara, y
#    busca con `comparar_cargadores` el mejor `num_workers` de tu máquina.
# 3. Entrena el modelo ampliado de la lección 05 (`CNNPequena(canales=(64, 128), ocultas=256)`)
#    en una T4 con `precision="fp32"` y `precision="fp16"`. ¿Cuánto gana? ¿Y el pequeño?
# 4. Abre la traza en Perfetto y encuentra el backward de un paso. ¿Qué operación tarda más?
#
# ## Glosario
#
# - **Cuello de botella**: la parte más lenta, la que marca la velocidad de todo lo demás.
# - **Perfilador (*profiler*)**: herramienta que registra cuánto tarda cada operación.
# - **Traza**: el registro del perfilador en una línea de tiempo (se abre en Perfetto).
# - **Kernel**: un programa que se ejecuta en la GPU; cada operación de PyTorch lanza uno o varios.
# - **Lanzamiento**: encargar un *kernel* a la GPU; cuesta unos microsegundos fijos.
# - **Sincronización**: la CPU espera a que la GPU termine lo encargado (`.item()`, `synchronize()`).
# - **`num_workers`**: procesos que preparan lotes en paralelo al entrenamiento.
# - **Memoria fijada (*pinned*)**: memoria de la CPU desde la que se copia más rápido a la GPU.
# - **Precisión mixta (AMP)**: cuentas en 16 bits donde es seguro y en 32 donde no.
# - **fp16 / bf16**: números de 16 bits; fp16 tiene más decimales y bf16 más rango.
# - **`GradScaler`**: escala la pérdida para que los gradientes en fp16 no se vuelvan 0.
# - **Tensor Cores**: unidades de la GPU que multiplican matrices pequeñas en baja precisión.
# - **TF32**: formato de Ampere para hacer las cuentas de fp32 en los Tensor Cores.
# - **`torch.compile`**: compila tu modelo o función para lanzar menos *kernels* y más grandes.

# %%
# Comprobación final: el diagnóstico nombra el mayor cuello de botella y cargar en paralelo gana con un disco lento.
# Ejecútala tras cambiar algo: si deja de ser cierto, falla y dice qué.
assert diagnostico.cuello in ("datos", "lanzamientos", "calculo")
fracciones = (diagnostico.fraccion_datos, diagnostico.fraccion_lanzamientos, diagnostico.fraccion_calculo)
assert abs(sum(fracciones) - 1) < 1e-6 and diagnostico.cuello == ("datos", "lanzamientos", "calculo")[fracciones.index(max(fracciones))]
assert comparacion.mejor.num_workers > 0, comparacion  # con un disco lento, los procesos de carga ayudan
print("Comprobado: el diagnóstico nombra la mayor fracción y cargar en paralelo gana con un disco lento.")
