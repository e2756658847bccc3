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
# [![Abrir en Colab](https://colab.research.google.com/assets/colab-badge.svg)](https://colab.research.google.com/github/curso-gpu/curso_gpu/blob/main/notebooks/01_deteccion_gpu.ipynb)
#
# # Lección 01 — Detectar la GPU y usarla desde PyTorch

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
# - Qué es una GPU y en qué se diferencia de una CPU.
# - Por qué el *deep learning* va mucho más rápido en una GPU… y cuándo no.
# - Qué es CUDA y cómo leer lo que dice `nvidia-smi`.
# - Cómo pregunta PyTorch si hay GPU: `torch.cuda.is_available()` y sus amigas.
# - El concepto de **dispositivo** (*device*) y cómo mover tensores y modelos con `.to(device)`.
# - El error más típico al empezar (mezclar dispositivos), provocado de verdad, y cómo se arregla.
# - Cómo escribir código **portable**, que funciona igual con GPU y sin ella.
# - Qué hacer si tu PyTorch no ve tu GPU: el comando exacto para reinstalarlo.
#
# ## Por qué importa
#
# Cuando los modelos y los datos crecen, entrenar tarda muchísimo. Un entrenamiento que
# tarda 8 horas en CPU puede tardar 10 minutos en una GPU. Pero no basta con *tener* una
# GPU: hay que decirle a PyTorch dónde viven los datos y el modelo. Casi todos los errores
# del principio vienen de ahí.
#
# No necesitas una GPU para seguir esta lección: todo funciona en CPU, y cada celda te dice
# qué verías en una GPU T4 de Google Colab.

# %%
import os
import shutil
import subprocess
import sys

import torch
from torch import nn

from curso_gpu.base import ruedas_cuda
from curso_gpu.dispositivo import SALIDA_EJEMPLO_T4, consultar_nvidia_smi

print("PyTorch", torch.__version__)

# %% [markdown]
# ## La idea clave
#
# ### ¿Qué es una GPU?
#
# GPU significa *Graphics Processing Unit*: unidad de procesamiento gráfico. Nació para
# dibujar millones de píxeles por segundo en la pantalla. Esa misma arquitectura resultó
# perfecta para otro trabajo: hacer cálculos numéricos enormes **en paralelo**. Por eso
# hoy es una pieza central del *deep learning*.
#
# ### CPU frente a GPU
#
# | | CPU | GPU |
# |---|---|---|
# | Núcleos | pocos (4–64), muy potentes | miles, más sencillos |
# | Pensada para | tareas generales y variadas, una tras otra | la misma operación sobre muchos datos a la vez |
# | Ejemplo | tu navegador, el sistema operativo, Python | multiplicar dos matrices de 5000 × 5000 |
#
# Una CPU es muy versátil. Una GPU es muy fuerte en operaciones masivas y paralelas.
#
# ### Por qué la GPU ayuda tanto en *deep learning*
#
# Entrenar una red neuronal es repetir muchísimas veces las mismas operaciones sobre
# muchos datos y parámetros:
#
# - multiplicaciones de matrices,
# - convoluciones,
# - aplicar funciones de activación,
# - calcular gradientes.
#
# Son, sobre todo, multiplicaciones y sumas independientes entre sí: justo lo que se
# reparte bien entre miles de núcleos.
#
# ### No siempre gana la GPU
#
# Si el modelo es muy pequeño o los datos son diminutos, el coste de **mover los datos** a
# la GPU y de **coordinarla** puede comerse la ventaja. La diferencia se nota más cuando:
#
# - el modelo es grande,
# - el conjunto de datos es grande,
# - el tamaño de lote (*batch size*) es considerable,
# - hay muchas operaciones de matrices o convoluciones.
#
# En los ejemplos pequeños de este curso la mejora existe, pero no siempre será
# espectacular. En la lección 03 lo medirás con cuidado.

# %% [markdown]
# ### Pruébalo: la misma idea, a pequeña escala
#
# No hace falta una GPU para ver por qué el hardware paralelo gana. Un bucle de Python
# multiplica los números de uno en uno; `torch` lanza la multiplicación de matrices entera
# sobre código optimizado que usa las instrucciones vectoriales de la CPU. Una GPU lleva
# esa idea al extremo, con miles de núcleos a la vez.
#
# Para compararlos de forma honrada usamos `comparar_tiempos` del paquete del curso: llama
# a las dos versiones **alternándolas** (bucle, torch, torch, bucle…), así que si otro
# programa frena tu máquina a mitad de la medida, frena a las dos por igual. Da la
# aceleración con su **intervalo del 95 %** (el rango en el que casi seguro está la de
# verdad) y una frase que dice lo que ha pasado *en tu máquina*. En la lección 03 verás
# por qué hace falta todo esto.
#
# Con n = 60, en una CPU tranquila el bucle tarda decenas de milisegundos y `a @ b`, unos
# microsegundos: torch sale miles de veces más rápido. En una máquina ocupada el número
# baja y se mueve de una ejecución a otra; el intervalo te dice cuánto.

# %%
from curso_gpu.base import formatear_numero
from curso_gpu.medicion import comparar_tiempos, formatear_veces, hilos_cpu

n = 60
a = torch.rand(n, n, dtype=torch.float64)
b = torch.rand(n, n, dtype=torch.float64)
a_lista, b_lista = a.tolist(), b.tolist()


def con_bucle():
    return [[sum(a_lista[i][k] * b_lista[k][j] for k in range(n)) for j in range(n)] for i in range(n)]


def con_torch():
    return a @ b


print("¿Mismo resultado?", torch.allclose(torch.tensor(con_bucle(), dtype=torch.float64), con_torch()))
with hilos_cpu(1):  # un hilo: con matrices tan pequeñas, repartir el trabajo entre hilos cuesta más de lo que ahorra
    comparacion = comparar_tiempos(con_bucle, con_torch, nombres=("bucle de Python", "torch (a @ b)"),
                                   repeticiones=5, presupuesto_s=0.5, descripcion=f"matrices {n}×{n}")
bajo, alto = comparacion.intervalo
print(f"Aceleración: {formatear_veces(comparacion.veces)}× (intervalo del 95 %: "
      f"{formatear_veces(bajo)}–{formatear_veces(alto)}×)")
comparacion

# %% [markdown]
# ## Paso a paso
#
# ### 1. CUDA: cómo habla PyTorch con una GPU NVIDIA
#
# **CUDA** es la plataforma de computación paralela de NVIDIA: permite usar sus GPU para
# cálculos generales, no solo para gráficos. Cuando PyTorch usa una GPU NVIDIA, lo hace a
# través de CUDA. Por eso en PyTorch la GPU se llama `"cuda"`.
#
# Otras GPU tienen su propia plataforma:
#
# - **AMD**: ROCm. PyTorch para ROCm también usa el nombre `"cuda"`, así que tu código no cambia.
# - **Apple Silicon** (M1, M2…): MPS (*Metal Performance Shaders*), dispositivo `"mps"`.
# - **Intel**: XPU, dispositivo `"xpu"`.
#
# Para usar CUDA necesitas tres piezas que encajen: una GPU NVIDIA, su **driver**
# (controlador) y una versión de PyTorch **compilada con CUDA**.

# %% [markdown]
# ### 2. `nvidia-smi`: lo que dice el driver
#
# `nvidia-smi` es la herramienta del driver de NVIDIA. Si está instalada y ve una GPU, el
# hardware y el driver están bien. En una terminal escribirías `nvidia-smi`; aquí lo
# lanzamos desde Python, así la celda funciona en cualquier máquina.

# %%
programa = shutil.which("nvidia-smi")
if programa:
    resultado = subprocess.run([programa], capture_output=True, text=True, timeout=10)
    print(resultado.stdout or resultado.stderr)
else:
    print("Esta máquina no tiene nvidia-smi (no hay GPU NVIDIA o no hay driver).")
    print("Así se ve en una GPU T4 (un ejemplo: la versión del driver y la línea «CUDA Version»\n"
          "cambian con el tiempo; en tu máquina, léelas en tu propia salida):\n")
    print(SALIDA_EJEMPLO_T4)

# %% [markdown]
# Cómo leerlo (con el ejemplo de la T4, que es lo que mostraba una T4 de Colab el 31 de agosto de
# 2026; tus cifras de driver y CUDA pueden ser otras, porque Google actualiza el driver sin avisar):
#
# - **Driver Version: 580.82.07**: la versión del driver de NVIDIA.
# - **CUDA Version: 13.0**: la versión de CUDA que **ese driver admite con seguridad**. No es la
#   CUDA que tienes instalada ni la que usa PyTorch. Tómala como una **regla práctica**, un
#   techo prudente: un PyTorch para CUDA 13.0 o anterior funciona seguro. No es un muro. En
#   «13.2», 13 es la versión **mayor** y 2 la **menor**; por la *compatibilidad de versión menor*
#   de CUDA, un driver de la rama 580 ejecuta también una **rueda** (*wheel*: el archivo `.whl`
#   que descarga `pip install torch`, ya compilado para una versión de CUDA) para CUDA 13.2
#   (misma versión mayor, 13), aunque alguna función muy nueva podría faltar. Lo que nunca funciona es saltar de versión mayor: una rueda CUDA 13 con
#   un driver que solo llega a CUDA 12.
# - **Tesla T4**: el modelo de GPU, con su índice `0` a la izquierda. Con varias GPU verías
#   una fila por cada una (`0`, `1`…).
# - **0MiB / 15360MiB**: memoria de la GPU (VRAM) usada y total, en **MiB** (1 MiB = 2²⁰
#   bytes). La T4 lleva 16 GiB de memoria física (16 384 MiB), pero tiene activado el **ECC**
#   (códigos que detectan y corrigen errores de memoria): en su memoria GDDR6 esos códigos
#   ocupan 1/16 del total, así que quedan 16 384 − 1024 = **15 360 MiB** (15 GiB, unos 16.1 GB).
#   Las GPU con memoria HBM (A100, H100) guardan el ECC aparte y muestran su tamaño completo.
# - **37C, 10W / 70W, 0%**: temperatura, consumo y uso. En reposo, todo bajo.
# - **Processes**: qué programas usan la GPU y cuánta memoria ocupan.
#
# El paquete del curso hace la misma consulta en formato CSV y la convierte en datos. Si no
# hay `nvidia-smi`, devuelve `None` (nunca lanza un error):

# %%
smi = consultar_nvidia_smi()
if smi is None:
    print("consultar_nvidia_smi() → None: aquí no hay nvidia-smi.")
else:
    print(f"Driver {smi.driver}, admite CUDA hasta {'.'.join(map(str, smi.cuda_del_driver or ()))}")
    for gpu in smi.gpus:
        print(f"GPU {gpu.indice}: {gpu.nombre}, {gpu.memoria_usada_mib} de {gpu.memoria_total_mib} MiB usados")

# %% [markdown]
# ### 3. Qué ve PyTorch: la API de CUDA
#
# `nvidia-smi` dice qué ve el driver. Lo que importa para entrenar es qué ve **PyTorch**.
#
# > **La T4 simulada del curso.** ¿Sin GPU, y quieres ver qué hace cada celda cuando la hay? Abre
# > Jupyter con la variable de entorno `CURSO_GPU_SIMULAR=T4` (en una terminal:
# > `CURSO_GPU_SIMULAR=T4 jupyter lab`). Al importar `curso_gpu`, `torch.cuda` responde como la
# > Tesla T4 de Colab: dice que hay GPU, su nombre y su memoria, y falla donde fallaría una T4. Pero
# > calcula en tu CPU: sirve para comprobar que tu código de GPU funciona, **nunca para medir
# > velocidad**. Cuando una salida del curso diga «T4 simulada», es esto. En Colab, o con una GPU de
# > verdad, la variable no cambia nada.
#
# Estas cuatro preguntas son las de siempre:

# %%
from curso_gpu.dispositivo import simulacion_activa

print(f"PyTorch: {torch.__version__}")
print(f"CUDA disponible: {torch.cuda.is_available()}")
print(f"Versión de CUDA: {torch.version.cuda}")
if torch.cuda.is_available():
    print(f"GPU: {torch.cuda.get_device_name(0)}")
    print(f"Memoria: {torch.cuda.get_device_properties(0).total_memory / 1e9:.1f} GB")
if simulacion_activa():  # CURSO_GPU_SIMULAR=T4: la GPU es simulada, el PyTorch es el tuyo
    print("(T4 simulada: la versión de CUDA es la de tu PyTorch; con el PyTorch de CPU vale None. "
          "En Colab verías la del PyTorch de Colab.)")

# %% [markdown]
# - `torch.cuda.is_available()` devuelve `True` si PyTorch puede usar una GPU por CUDA.
# - `torch.version.cuda` es la versión de CUDA **con la que se compiló tu PyTorch**. Si vale
#   `None`, tienes una versión **solo para CPU**: aunque tengas GPU, PyTorch no la usará.
# - `torch.cuda.get_device_name(0)` da el nombre de la GPU número 0.
# - `get_device_properties(0).total_memory` da la memoria en bytes; al dividir entre `1e9`
#   queda en GB **decimales** (1 GB = 10⁹ bytes). Cuidado: `nvidia-smi` usa MiB binarios
#   (2²⁰ bytes), macOS muestra GB decimales y Windows llama «GB» a los GiB binarios
#   (2³⁰ bytes). El mismo disco o la misma GPU dan números distintos según quién cuente.
#
# Esto es lo que mostraba una T4 de Colab el 31 de agosto de 2026, lo más reciente que hemos visto.
# Colab cambia su PyTorch varias veces al año (en enero de 2026 traía 2.9.0+cu126), así que fíate de
# lo que imprime tu celda, no de este ejemplo:
#
# ```
# PyTorch: 2.11.0+cu128
# CUDA disponible: True
# Versión de CUDA: 12.8
# GPU: Tesla T4
# Memoria: 15.8 GB
# ```
#
# Fíjate: el PyTorch de Colab está compilado con CUDA 12.8 y su driver admite hasta 13.0. Encaja,
# porque 12.8 no supera 13.0.
#
# ¿Por qué 15.8 GB? La T4 tiene 16 GiB físicos; el ECC se queda 1/16 y `nvidia-smi` muestra
# 15 360 MiB (16.1 GB decimales). De esos, el driver reserva unos 250 MiB para sí mismo, y
# PyTorch informa de lo que queda: unos 15 100 MiB, que en GB decimales son 15.8. Los
# «16 GB» de la ficha técnica son GiB de memoria física, no memoria que puedas usar. Y aún falta
# un descuento: al crear el primer tensor, el **contexto de CUDA** (el código de CUDA y de
# PyTorch cargado en la GPU) ocupa unos cientos de MiB más. La lección 07 lo mide. En resumen,
# cuatro cifras de la misma T4:
#
# | cifra | quién la da | qué es |
# |---|---|---|
# | 16 GB (16 GiB) | la ficha técnica | la memoria física |
# | 15 360 MiB | `nvidia-smi` | lo que queda con el ECC activado |
# | 15.8 GB (15 095 MiB) | PyTorch (`total_memory`) | lo que el driver deja a CUDA |
# | algo menos | `torch.cuda.mem_get_info()` tras el primer tensor | lo que queda para tus tensores, sin el contexto |

# %% [markdown]
# ### 4. El concepto de dispositivo (*device*)
#
# En PyTorch, **cada tensor y cada modelo vive en un dispositivo**: la CPU, una GPU
# (`cuda:0`, `cuda:1`…), la GPU de un Mac (`mps`)… Un dispositivo es un objeto
# `torch.device`:

# %%
cpu = torch.device("cpu")
x = torch.ones(3)
print(cpu, "| tipo:", cpu.type)
print("x vive en:", x.device)

# %% [markdown]
# Usar la GPU en PyTorch significa **poner en ella el modelo y los datos**. Para que una
# operación funcione, todos los tensores que participan deben estar en el mismo dispositivo.
#
# La forma habitual de elegir dispositivo es esta línea. Apréndetela: la verás en casi
# todo el código de PyTorch.

# %%
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print(f"Usando: {device}")

# %% [markdown]
# Así el mismo código funciona en una máquina con GPU y en una sin ella. Su único
# defecto: ignora la GPU de un Mac (`mps`) y la de Intel (`xpu`).
#
# El paquete del curso trae `elegir_dispositivo()`, la versión completa de esa línea.
# Con `"auto"` (lo que usa si no le dices nada) prueba, por orden: `cuda` (NVIDIA o AMD),
# `mps` (Mac), `xpu` (Intel) y, si no hay nada, `cpu`.

# %%
from curso_gpu.dispositivo import dispositivos_disponibles, elegir_dispositivo

device = elegir_dispositivo()
print("Dispositivo elegido:", device)
print("Disponibles aquí:", dispositivos_disponibles())

# %% [markdown]
# También puedes pedir uno concreto: `"cpu"`, `"cuda"`, `"cuda:1"`, `"mps"`, `"xpu"`. Si
# pides uno que no existe en tu máquina, el error te dice qué hay y cómo conseguir una GPU.
# Y si escribes algo que no es un dispositivo, te dice qué valores valen:

# %%
from curso_gpu.dispositivo import DispositivoNoDisponible

for pedido in ["cpu", "gpu", "cuda"]:
    try:
        print(f"{pedido!r} → {elegir_dispositivo(pedido)}")
    except ValueError as error:
        print(f"{pedido!r} → ValueError: {error}")
    except DispositivoNoDisponible as error:
        print(f"{pedido!r} → DispositivoNoDisponible: {error}")

# %% [markdown]
# Un truco para probar tu código en CPU aunque tengas GPU: la variable de entorno
# `CURSO_GPU_DISPOSITIVO` manda sobre `"auto"`.

# %%
anterior = os.environ.pop("CURSO_GPU_DISPOSITIVO", None)  # la guardamos para dejarla como estaba
os.environ["CURSO_GPU_DISPOSITIVO"] = "cpu"
print("Con CURSO_GPU_DISPOSITIVO=cpu:", elegir_dispositivo())
del os.environ["CURSO_GPU_DISPOSITIVO"]
print("Sin la variable:", elegir_dispositivo())
if anterior is not None:
    os.environ["CURSO_GPU_DISPOSITIVO"] = anterior

# %% [markdown]
# ### 5. Mover tensores con `.to(device)`
#
# `.to(device)` **devuelve una copia** del tensor en ese dispositivo. El original no cambia,
# así que hay que guardar el resultado:

# %%
X = torch.randn(8, 4)
y = torch.randint(0, 2, (8,))

X = X.to(device)
y = y.to(device)
print("X en:", X.device, "| y en:", y.device)

# También puedes crear el tensor directamente en su sitio, sin copia:
Z = torch.zeros(8, 4, device=device)
print("Z en:", Z.device)

# %% [markdown]
# Cuidado: `X.to(device)` sin `X = ...` no hace nada útil. La copia se pierde y `X`
# sigue en la CPU.
#
# ### 6. Mover el modelo
#
# El modelo también se mueve con `.to(device)`. En un modelo (`nn.Module`), `.to()` mueve
# **todos sus parámetros** y devuelve el mismo modelo, así que se suele escribir en una línea:

# %%
torch.manual_seed(0)
modelo = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 2)).to(device)
print("Los parámetros del modelo viven en:", next(modelo.parameters()).device)

# %% [markdown]
# ### 7. El error típico: mezclar dispositivos
#
# El error más común al empezar: **el modelo está en la GPU y los datos siguen en la CPU**
# (o al revés). Al hacer la propagación hacia adelante, PyTorch se niega a mezclar
# dispositivos por su cuenta.
#
# Vamos a provocarlo de verdad. Con GPU, ponemos el modelo en `cuda`. Sin GPU usamos el
# dispositivo `meta` de PyTorch: guarda la forma de los tensores pero no sus datos, y
# PyTorch lo trata como otro dispositivo cualquiera. El error es el mismo de fondo.

# %%
otro = "cuda" if torch.cuda.is_available() else "meta"
modelo_lejos = nn.Linear(4, 2).to(otro)
datos_en_cpu = torch.randn(3, 4)

try:
    modelo_lejos(datos_en_cpu)
except RuntimeError as error:
    print("RuntimeError:", error)

# %% [markdown]
# En una GPU el mensaje es otro. Es el que da PyTorch para una capa `nn.Linear` en `cuda:0`
# con datos en la CPU (leído de las cadenas de la propia librería de PyTorch; el curso lo
# comprueba en una GPU de verdad):

# %%
from curso_gpu.base import mensajes_torch

print("RuntimeError:", mensajes_torch.MEZCLA_LINEAL)

# %% [markdown]
# Léelo así: `mat1` (los datos de entrada) está en `cpu`, y los demás tensores (los pesos)
# en `cuda:0`. El arreglo: mover los datos al dispositivo del modelo.

# %%
dispositivo_del_modelo = next(modelo_lejos.parameters()).device
salida = modelo_lejos(datos_en_cpu.to(dispositivo_del_modelo))
print("Funciona. La salida tiene forma", tuple(salida.shape), "y vive en", salida.device)

# %% [markdown]
# (Con `meta` la salida tampoco tiene números, solo forma: por eso sirve para practicar el
# error, no para calcular.)
#
# > **Regla práctica**: el modelo y todos los tensores que usa deben estar en el **mismo
# > dispositivo**. Si recuerdas esto, evitarás la mayoría de los errores habituales.
#
# Una variante traicionera: crear un tensor nuevo **a mitad del camino** sin indicar el
# dispositivo. `torch.zeros(3)` siempre nace en la CPU. Para crearlo junto a otro tensor,
# usa `device=x.device` o las funciones `*_like`:

# %%
x = torch.randn(3, device=device)
mascara = torch.ones(3, device=x.device)  # mismo dispositivo que x
ceros = torch.zeros_like(x)  # misma forma, tipo y dispositivo que x
print((x * mascara + ceros).device)

# %% [markdown]
# ### 8. El flujo típico con GPU
#
# 1. Detectar si hay GPU.
# 2. Elegir el dispositivo.
# 3. Mover el modelo al dispositivo.
# 4. Mover los tensores al dispositivo.
# 5. Entrenar y evaluar como siempre.
#
# Usar la GPU **no cambia la teoría del entrenamiento**: la pérdida es la misma, el
# optimizador funciona igual y la retropropagación (*backpropagation*) calcula los mismos
# gradientes. Solo cambia el hardware que hace las cuentas, y por tanto la velocidad.
#
# Un ejemplo completo y pequeño: separar puntos por encima y por debajo de una recta.
# Al final medimos la *accuracy*: la fracción de puntos bien clasificados (de 0 a 1).

# %%
def entrenar_y_evaluar(device, pasos=60):
    """Entrena una red diminuta en `device` y devuelve (pérdida final, accuracy)."""
    torch.manual_seed(24)
    X = torch.randn(256, 2)
    y = (X[:, 1] > 0.5 * X[:, 0]).long()
    X, y = X.to(device), y.to(device)  # 4. datos al dispositivo

    modelo = nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 2)).to(device)  # 3. modelo
    criterio = nn.CrossEntropyLoss()
    optimizador = torch.optim.Adam(modelo.parameters(), lr=0.05)

    modelo.train()
    for _ in range(pasos):  # 5. entrenar: idéntico en CPU y en GPU
        perdida = criterio(modelo(X), y)
        optimizador.zero_grad()
        perdida.backward()
        optimizador.step()

    modelo.eval()  # evaluar: eval() y no_grad(), como siempre
    with torch.no_grad():
        accuracy = (modelo(X).argmax(dim=1) == y).float().mean().item()
    return perdida.item(), accuracy


perdida, accuracy = entrenar_y_evaluar(elegir_dispositivo())
print(f"Pérdida final: {perdida:.3f} | accuracy: {formatear_numero(100 * accuracy, 1, '%')}")

# %% [markdown]
# `.item()` convierte un tensor de un solo número en un `float` de Python, esté donde esté.
# Para llevar un tensor grande de vuelta (por ejemplo, para dibujarlo con matplotlib) usa
# `.cpu()`.
#
# ### 9. Código portable
#
# La función de arriba no sabe si hay GPU: recibe `device` y lo usa en todas partes. Ese
# es el **código portable**: el mismo script funciona en tu computadora portátil, en Colab y en una
# máquina con varias GPU. Compruébalo: en CPU da el mismo resultado.

# %%
perdida_cpu, accuracy_cpu = entrenar_y_evaluar(torch.device("cpu"))
print(f"En CPU: pérdida {perdida_cpu:.3f} | accuracy {formatear_numero(100 * accuracy_cpu, 1, '%')}")

# %% [markdown]
# (En GPU los números pueden diferir en los últimos decimales: el orden de las sumas en
# paralelo cambia un poco el redondeo.)
#
# ### 10. Todo el entorno de un vistazo: `describir_entorno()`
#
# `describir_entorno()` reúne lo que has visto: sistema, versiones, lo que ve PyTorch, lo
# que dice `nvidia-smi` y un **diagnóstico** en español con lo que conviene hacer. En un
# notebook se ve como tabla:

# %%
from curso_gpu.dispositivo import describir_entorno

informe = describir_entorno()
informe

# %% [markdown]
# En una terminal, lo mismo en texto: `print(describir_entorno())`. Y sin abrir ningún
# notebook, desde la terminal de tu computadora (o con `!` en Colab):
#
# ```bash
# python -m curso_gpu            # o bien: comprobar_gpu (la misma orden, con pip install)
# python -m curso_gpu --json     # el mismo informe en JSON
# ```
#
# `python -m curso_gpu` es la comprobación de la lección: el entorno, una medida de velocidad
# y qué modelos te caben. No hace falta ningún script aparte.

# %% [markdown]
# ### 11. Si PyTorch no ve tu GPU: reinstalarlo con CUDA
#
# El error clásico en una computadora propia: `nvidia-smi` ve la GPU, pero
# `torch.cuda.is_available()` da `False` y `torch.version.cuda` vale `None`. Instalaste la
# versión de PyTorch **solo para CPU**. La solución es reinstalarla con CUDA. Un ejemplo
# que circula mucho:
#
# ```bash
# python -m pip uninstall -y torch torchvision
# python -m pip install --upgrade pip
# python -m pip install --no-cache-dir --force-reinstall torch==2.7.1 torchvision --index-url https://download.pytorch.org/whl/cu118
# ```
#
# Qué hace cada parte:
#
# - `uninstall` quita la versión para CPU. `torchvision` va con ella porque cada versión suya
#   está hecha para una versión concreta de `torch`: pip elige la que encaja con ese `torch`.
#   (Muchas recetas añaden `torchaudio`; hoy está en modo mantenimiento y ya no sale a la
#   vez que cada `torch`: no lo instales si no lo usas.)
# - `--index-url https://download.pytorch.org/whl/cu118` descarga de PyTorch las ruedas
#   (*wheels*, los paquetes ya compilados) hechas con **CUDA 11.8**. Hay un índice por
#   versión de CUDA: `cu118`, `cu126`, `cu130`, `cu132`…
# - `torch==2.7.1` fija la versión porque 2.7.1 fue la **última** que se publicó para
#   `cu118`: las versiones nuevas ya no salen para CUDA 11.8.
# - `--force-reinstall` obliga a reinstalar: sin él, pip ve que ya hay un `torch` y no hace
#   nada. `--no-cache-dir` evita reutilizar la versión para CPU que pip guardó.
#
# La rueda correcta **depende de tu driver y de tu GPU**:
#
# - **El driver**: por prudencia, la CUDA de la rueda no debe ser más nueva que la «CUDA
#   Version» de `nvidia-smi`.
# - **La GPU**: cada rueda trae código compilado solo para ciertas arquitecturas, que se
#   numeran por su **capacidad de cómputo** (*compute capability*): 6.0 una P100, 7.0 una
#   V100, 7.5 una T4, 8.0 una A100, 8.9 una RTX 4090, 9.0 una H100, 12.0 una RTX 5090. Las
#   ruedas CUDA 13 (`cu130`, `cu132`) ya no traen nada por debajo de 7.5: en una P100 de
#   Kaggle o una V100 hace falta `cu126`. Y las anteriores a `cu128` no traen Blackwell (10.0,
#   12.0): una RTX 5090 necesita `cu128` o más nueva. La tuya la da
#   `nvidia-smi --query-gpu=compute_cap --format=csv` o `torch.cuda.get_device_capability()`.
#
# Esta es la tabla del curso:

# %%
print(f"{'CUDA':<6} {'driver Linux ≥':<15} {'rueda':<7} torch")
for fila in ruedas_cuda.VERSIONES_CUDA:
    if fila.rueda:
        version = ".".join(map(str, fila.version))
        torch_rueda = f"hasta {fila.torch_maximo}" if fila.torch_maximo else "las nuevas"
        print(f"{version:<6} {fila.driver_linux:<15} {fila.rueda:<7} {torch_rueda}")

# %% [markdown]
# `ruedas_cuda.comando_instalacion(cuda_del_driver, capacidad)` elige, entre las ruedas que
# admiten el driver y la GPU, la que trae el PyTorch más nuevo, y escribe el comando. Si
# ninguna sirve, dice por qué. Por ejemplo, la T4 de la salida de ejemplo (driver 580,
# CUDA 13.0), una P100 con el mismo driver y una RTX 5090 con dos drivers más antiguos:

# %%
casos = [("T4", (13, 0), (7, 5)), ("P100", (13, 0), (6, 0)),
         ("RTX 5090", (12, 8), (12, 0)), ("RTX 5090", (12, 6), (12, 0))]
for gpu, cuda_del_driver, capacidad in casos:
    print(f"{gpu} con un driver de CUDA {cuda_del_driver[0]}.{cuda_del_driver[1]}:")
    try:
        print("   ", ruedas_cuda.comando_instalacion(cuda_del_driver, capacidad))
    except ValueError as error:
        print("    Ninguna rueda sirve:", error)

# %% [markdown]
# Y `describir_entorno()` lo hace por ti con tu driver real: si detecta el error clásico, el
# diagnóstico incluye el comando exacto. Los avisos de esta máquina:

# %%
for aviso in informe.avisos:
    print("-", aviso)

# %% [markdown]
# Dos avisos importantes:
#
# - **En Google Colab no reinstales PyTorch**: ya trae una versión con CUDA. Si no ves la
#   GPU allí, es que el entorno de ejecución no tiene GPU (mira la sección siguiente).
# - Si usas `torchvision`, añádelo al mismo comando para que encaje con el `torch` nuevo.
# - En Linux, `pip install torch` a secas (desde PyPI) trae desde torch 2.11 una versión con
#   **CUDA 13**, que pide un driver **580 o más nuevo**. Con un driver más antiguo, usa el
#   comando de la tabla, con su `--index-url` (por ejemplo `cu126` para un driver 560).

# %% [markdown]
# ## ¿Sin GPU? Sin problema
#
# Si no hay GPU, PyTorch funciona perfectamente en CPU. No tener GPU **no impide aprender
# deep learning**: solo significa que algunos entrenamientos tardan más. Todas las lecciones
# de este curso funcionan en CPU, y las que se benefician de una GPU te lo dicen.
#
# Para probar una GPU gratis, abre este notebook en Google Colab (el botón de arriba) y:
#
# 1. Menú **Entorno de ejecución › Cambiar tipo de entorno de ejecución**.
# 2. Elige **GPU T4** y guarda.
# 3. Ejecuta el notebook desde el principio: `describir_entorno()` mostrará la T4.
#
# Escribe siempre tu código para que funcione en los dos casos, con el `device` elegido al
# principio y usado en todas partes.

# %% [markdown]
# ## Errores comunes
#
# - Olvidar mover el modelo al mismo dispositivo que los datos.
# - Mezclar tensores en CPU con tensores en GPU.
# - Escribir `x.to(device)` sin guardar el resultado (`x = x.to(device)`).
# - Crear tensores nuevos a mitad del camino sin moverlos (`torch.zeros(3)` nace en la CPU).
# - Suponer que la GPU acelera cualquier ejemplo por igual.
# - No comprobar si CUDA está disponible antes de usarla (`torch.device("cuda")` a ciegas).
# - Tener instalado PyTorch solo para CPU en una máquina con GPU (`torch.version.cuda` es `None`).
#
# Buenas costumbres:
#
# - Define `device` al principio del programa y úsalo en todas partes.
# - Comprueba primero que el código funciona en CPU.
# - Repite el mismo patrón hasta que te salga solo.
# - La GPU acelera el cálculo, pero no sustituye entender bien el modelo.

# %% [markdown]
# ## Pruébalo
#
# Cambia `preferencia` por `"cuda"`, `"mps"`, `"cuda:1"` o `"gpu"` y ejecuta la celda.
# ¿Qué error sale en cada caso y qué te propone?

# %%
preferencia = "auto"
try:
    print("Dispositivo:", elegir_dispositivo(preferencia))
except (ValueError, DispositivoNoDisponible) as error:
    print(type(error).__name__, "→", error)

# %% [markdown]
# ## Retos
#
# 1. Abre este notebook en Colab con una GPU T4 y compara la tabla de `describir_entorno()`
#    con la de tu computadora. ¿Qué filas cambian?
# 2. En Colab con GPU, vuelve a ejecutar la celda del error típico. Copia el mensaje
#    exacto que da la GPU y compáralo con el que imprime `mensajes_torch.MEZCLA_LINEAL`.
# 3. Escribe una función `predecir(modelo, x)` que funcione aunque `x` llegue en la CPU y el
#    modelo esté en la GPU. Pista: `next(modelo.parameters()).device`.
# 4. En una terminal, ejecuta `CURSO_GPU_DISPOSITIVO=cpu python -m curso_gpu` y después
#    `python -m curso_gpu --dispositivo gpu`. ¿Qué código de salida da cada uno (`echo $?`)?
# 5. Tu amiga tiene un driver `535.104.05`. Con `ruedas_cuda.cuda_maxima_del_driver` y
#    `ruedas_cuda.comando_instalacion`, ¿qué comando le darías si su GPU es una T4 (7.5)?
#    ¿Y si es una P100 (6.0)? ¿Por qué fija una versión de torch?
# 6. Busca en la salida de ejemplo de `nvidia-smi` cuánta memoria tiene la T4 y pásala a GB.
#    ¿Por qué PyTorch dice 15.8 GB y no 16? ¿Cuánto mostraría el Explorador de Windows (GiB)?

# %% [markdown]
# ## Qué debes recordar
#
# - La GPU puede acelerar mucho el entrenamiento de modelos de deep learning.
# - En PyTorch se trabaja con la idea de dispositivo (`device`).
# - El modelo y los tensores deben estar en el mismo dispositivo.
# - La línea de siempre: `torch.device("cuda" if torch.cuda.is_available() else "cpu")`.
# - Usar GPU no cambia la teoría del entrenamiento, solo el hardware que hace las cuentas.
#
# ## Glosario
#
# - **GPU** (*Graphics Processing Unit*): procesador con miles de núcleos sencillos que
#   hacen la misma operación sobre muchos datos a la vez.
# - **CPU** (*Central Processing Unit*): el procesador general de la computadora, con pocos
#   núcleos muy potentes.
# - **Núcleo**: cada unidad que ejecuta instrucciones dentro de un procesador.
# - **CUDA**: la plataforma de NVIDIA para hacer cálculos generales en sus GPU.
# - **ROCm**: el equivalente de AMD. En PyTorch también se usa como `"cuda"`.
# - **MPS** (*Metal Performance Shaders*): la forma de usar la GPU de un Mac con Apple Silicon.
# - **XPU**: el dispositivo de PyTorch para las GPU de Intel.
# - **Driver** (controlador): el software que deja al sistema operativo usar la GPU. Su
#   versión limita la CUDA más nueva que puedes usar.
# - **Capacidad de cómputo** (*compute capability*): el número de la arquitectura de una
#   GPU NVIDIA (7.5 en una T4). Cada rueda de PyTorch trae código solo para algunas.
# - **GB y GiB**: 1 GB = 10⁹ bytes; 1 GiB = 2³⁰ bytes (un 7.4 % más). `nvidia-smi` cuenta en MiB.
# - **`nvidia-smi`**: la herramienta del driver de NVIDIA que muestra las GPU, su memoria y su uso.
# - **Dispositivo** (*device*): dónde vive un tensor o un modelo: `cpu`, `cuda:0`, `mps`…
# - **`meta`**: un dispositivo de PyTorch que guarda formas pero no datos. Útil para
#   practicar errores de dispositivo sin GPU.
# - **VRAM**: la memoria propia de la GPU.
# - **Rueda** (*wheel*): un paquete de Python ya compilado. Las de PyTorch con CUDA están
#   en índices como `https://download.pytorch.org/whl/cu130`.
# - **Código portable**: código que funciona igual con GPU y sin ella, porque elige el
#   dispositivo al principio y lo usa en todas partes.
# - **T4**: la GPU NVIDIA (16 GiB físicos, 15 360 MiB usables con ECC) que Google Colab ofrece gratis.

# %%
# Comprobación final: la GPU (o la CPU) calcula lo mismo que el bucle, los datos van al dispositivo del modelo y el mismo código aprende en los dos.
# Ejecútala tras cambiar algo: si deja de ser cierto, falla y dice qué.
assert torch.allclose(torch.tensor(con_bucle(), dtype=torch.float64), con_torch())  # mismo resultado
assert comparacion.intervalo[0] > 1, comparacion  # torch gana al bucle de Python, con todo su intervalo
assert X.device.type == y.device.type == Z.device.type == next(modelo.parameters()).device.type
assert salida.device == dispositivo_del_modelo  # los datos se movieron al dispositivo del modelo
assert accuracy > 0.9 and accuracy_cpu > 0.9, (accuracy, accuracy_cpu)  # el mismo código aprende en CPU y GPU
print("Comprobado: torch gana al bucle, datos y modelo en el mismo dispositivo, y la red aprende.")
