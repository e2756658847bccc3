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
# [![Abrir en Colab](https://colab.research.google.com/assets/colab-badge.svg)](https://colab.research.google.com/github/curso-gpu/curso_gpu/blob/main/notebooks/02_colab_t4_y_nube.ipynb)
#
# # Lección 02 — GPU local, Colab T4 o nube

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
# No necesitas comprar una GPU para aprender. Sí necesitas saber dónde conseguir una, y
# cuándo merece la pena pagarla.
#
# ## Qué vas a aprender
#
# - Las tres formas de tener una GPU: la tuya, Google Colab gratis o una alquilada en la nube.
# - Preparar Colab con una GPU T4 y comprobar que la tienes.
# - Guardar los checkpoints en Google Drive y retomar un entrenamiento cortado.
# - Alquilar una GPU en la nube, comprobarla y calcular cuánto cuesta olvidarse de apagarla.
#
# ## Por qué importa
#
# Las primeras lecciones del curso funcionan bien en CPU. Pero cuando entrenes redes
# neuronales, Transformers o LLMs (desde la lección 05, y sobre todo de la 09 en adelante), querrás una GPU.
# Un entrenamiento que tarda **8 horas en CPU** puede tardar **10 minutos en GPU**:

# %%
horas_cpu = 8
minutos_gpu = 10
print(f"Un ejemplo: 8 h en CPU frente a 10 min en GPU: la GPU es {horas_cpu * 60 / minutos_gpu:.0f} veces más rápida.")
print("Diez entrenamientos así: 80 horas (más de 3 días) en CPU, 100 minutos en GPU.")

# %% [markdown]
# ¿Por qué tanta diferencia? Una CPU tiene pocos núcleos muy potentes, pensados para tareas
# de una en una. Una GPU tiene miles de núcleos sencillos que hacen la misma operación a la vez
# sobre datos distintos. Entrenar una red es, sobre todo, multiplicar matrices enormes: justo
# lo que se reparte bien entre miles de núcleos. Lo medirás en la lección 03.

# %% [markdown]
# ## La idea clave: tres opciones
#
# | | 1. GPU NVIDIA local | 2. Google Colab (gratis) | 3. GPU en la nube |
# |---|---|---|---|
# | **Coste** | 0 $ (ya la tienes) | 0 $ | de unos 0.40 $/h a más de 7 $/h (según GPU y proveedor) |
# | **Preparación** | el driver de NVIDIA y PyTorch con CUDA (que ya trae CUDA y cuDNN) | ninguna: elegir GPU T4 en un menú | SSH + instalar PyTorch |
# | **Ideal para** | uso habitual, datasets grandes | experimentos rápidos, si no tienes GPU en casa | entrenamientos serios, modelos grandes |
# | **Ojo con** | que PyTorch sea la versión con CUDA | desconexiones y límites de uso | **apagar la máquina al terminar** |
#
# Proveedores de GPU en la nube: Lambda, RunPod, Vast.ai y muchos otros.
#
# ¿Qué tienes tú ahora mismo? Esta celda te lo dice:

# %%
import torch

from curso_gpu.dispositivo import en_colab, simulacion_activa

if en_colab():
    print("Estás en Google Colab: la opción 2.")  # solo se ejecuta en Colab
elif torch.cuda.is_available():  # con CURSO_GPU_SIMULAR=T4, una T4 simulada en tu CPU
    opcion = "simulada en tu CPU; en Colab sería la opción 2" if simulacion_activa() else "la opción 1"
    print(f"Tienes una GPU local ({torch.cuda.get_device_name(0)}): {opcion}.")
else:
    print("Aquí no hay GPU CUDA. Para este curso basta la CPU; para entrenar en serio, usa Colab (2) o la nube (3).")

# %% [markdown]
# ## Paso a paso
#
# ### Opción 1: tu GPU NVIDIA
#
# La herramienta `nvidia-smi` viene con el driver de NVIDIA. Si la tienes, hay GPU. En una
# terminal escribirías `nvidia-smi`; aquí la lanzamos desde Python para que la celda funcione
# en cualquier máquina, tenga o no GPU:

# %%
import shutil
import subprocess

if shutil.which("nvidia-smi"):
    resultado = subprocess.run(["nvidia-smi"], capture_output=True, text=True, timeout=30)
    print(resultado.stdout or resultado.stderr)
else:
    print("nvidia-smi no está en esta máquina: no hay GPU NVIDIA, o falta su driver.")

# %% [markdown]
# Con una T4 verías una tabla como la de la lección 01: `Tesla T4`, `15360MiB` de memoria
# (16 GiB físicos menos lo que ocupa el ECC) y, arriba a la derecha, `CUDA Version: X.Y`: el
# techo prudente de CUDA que admite el driver **de esa máquina**. En Colab cambia cuando Google
# actualiza el driver: en septiembre de 2025 su T4 decía 12.4
# ([colabtools #5578](https://github.com/googlecolab/colabtools/issues/5578)), y el 31 de agosto
# de 2026, lo último que hemos visto, `Driver Version: 580.82.07` y `CUDA Version: 13.0` (la
# lección 01 cuenta también su PyTorch). Léela en la tuya; esta celda la saca de la salida de arriba:

# %%
import re

if shutil.which("nvidia-smi"):
    linea = re.search(r"Driver Version: *(\S+) +CUDA Version: *(\S+)", resultado.stdout)
    if linea:
        print(f"Tu driver: {linea.group(1)} · CUDA que admite: {linea.group(2)}")
    else:
        print("nvidia-smi no dio la línea «CUDA Version» (un driver muy antiguo o un error arriba).")
else:
    print("Sin nvidia-smi no hay línea que leer. Con GPU, esta celda escribiría dos cifras como\n"
          "«Tu driver: 580.82.07 · CUDA que admite: 13.0» (las de tu máquina).")

# %% [markdown]
# Después, pregunta a PyTorch qué ve él:

# %%
print(f"CUDA disponible: {torch.cuda.is_available()}")
print(f"Versión de CUDA de PyTorch: {torch.version.cuda}")
if torch.cuda.is_available():
    print(f"GPU: {torch.cuda.get_device_name(0)}")
    print(f"Memoria: {torch.cuda.get_device_properties(0).total_memory / 1e9:.1f} GB")

# %% [markdown]
# Si `nvidia-smi` ve la GPU pero PyTorch no, tienes un PyTorch solo para CPU. La lección 01
# te da el comando exacto para reinstalarlo (`describir_entorno()`).

# %% [markdown]
# ### Opción 2: Google Colab con una GPU T4
#
# 1. **Abre el notebook en Colab.** Lo más fácil: la insignia «Abrir en Colab» de la primera
#    celda (están todas en `colab_badges.md`). También puedes entrar en
#    [colab.research.google.com](https://colab.research.google.com) y subir un `.ipynb` del
#    curso con *Archivo › Subir cuaderno*.
# 2. **Pide la GPU**: menú **Entorno de ejecución › Cambiar tipo de entorno de ejecución › GPU T4**.
#    Los notebooks del curso ya la piden en sus metadatos, pero compruébalo.
# 3. **Ejecuta la celda de arranque** (la primera de código). En Colab instala el paquete del
#    curso si falta. No reinstala PyTorch: el curso pide solo versiones mínimas (`torch>=2.1`) y
#    el PyTorch de Colab ya las cumple, así que `pip` lo deja como está.
# 4. **Comprueba la GPU.** En Colab basta con `!nvidia-smi` en una celda; la celda de la opción 1
#    hace lo mismo desde Python.
#
# O deja que el paquete lo compruebe todo. Aquí no estás en Colab, y te lo dice:

# %%
from curso_gpu.dispositivo import comprobar_entorno_colab

informe = comprobar_entorno_colab()
informe

# %% [markdown]
# En Colab con la T4 verías `GPU: Tesla T4 (15.8 GB)` y, si olvidaste el paso 2, el menú exacto
# para cambiarlo. El informe también es un dato: puedes preguntarle cosas.

# %%
print("¿En Colab?", informe.en_colab)
print("¿Listo para entrenar en GPU?", informe.listo)
print("¿Es la T4 gratuita?", informe.es_t4)

# %% [markdown]
# #### Ojo con Colab gratis
#
# - **Inactividad**: si no tocas la pestaña un rato, la sesión se desconecta.
# - **Duración**: una sesión dura como mucho unas 12 horas.
# - **Límites de uso**: si usas mucho la GPU, Colab puede dejarte sin ella unas horas.
# - **Al desconectarse se borra `/content`**: tus archivos, tus modelos y tus checkpoints.
# - **CPU modesta**: 2 vCPU, que son **un solo núcleo** físico con dos hilos (lo que muestra
#   `lscpu` en Colab gratis). Preparar datos en la CPU de Colab es lento. Compruébalo:

# %%
import os

print("CPU lógicas (vCPU) en esta máquina:", os.cpu_count())

# %% [markdown]
# Por eso, guarda los checkpoints en un sitio que sobreviva, como **Google Drive**. Pero
# con cuidado:
#
# - **No escribas con `torch.save` directamente en Drive en cada época.** En Colab, Drive es
#   un montaje por red que sincroniza tarde: un `torch.save` dentro del bucle puede quedarse
#   colgado, y un corte a mitad deja un archivo a medias (hay casos documentados en el
#   repositorio de Colab, `googlecolab/colabtools`, incidencias 2102, 2607 y 287).
# - **Monta Drive solo si tú lo eliges.** Montarlo abre una ventana que pide permiso amplio
#   sobre todo tu Drive. Si no vas a guardar allí, no hace falta.
#
# #### El patrón seguro, en PyTorch
#
# 1. Guarda el checkpoint **en el disco local** (rápido y fiable), **cada pocas épocas**.
# 2. Escríbelo primero con un nombre temporal y renómbralo con `os.replace`: el archivo está
#    entero o no está, nunca a medias.
# 3. Si elegiste Drive, **copia** ese archivo a Drive, también con un nombre temporal y
#    `os.replace`.
#
# Un checkpoint es un diccionario con todo lo necesario para seguir: el número de época, los
# pesos del modelo y el estado del optimizador. Aquí guardamos en una carpeta temporal, para
# no dejar archivos en tu computadora. En Colab, cambia `GUARDAR_EN_DRIVE` a `True` si
# quieres la copia en Drive (Colab te pedirá permiso).

# %%
import shutil
import tempfile
from pathlib import Path

from torch import nn

from curso_gpu.dispositivo import montar_drive
from curso_gpu.base import formatear_numero

GUARDAR_EN_DRIVE = False  # en Colab, ponlo a True para que la copia sobreviva a una desconexión
CADA_EPOCAS = 10  # guardar cada pocas épocas, no en todas

carpeta_drive = montar_drive() if GUARDAR_EN_DRIVE else None  # solo si tú lo eliges
carpeta_local = Path(tempfile.mkdtemp(prefix="curso_gpu_"))
ruta_local = carpeta_local / "leccion02_ultimo.pt"


def escribir_entero(escribir, destino):
    """Escribe en un temporal junto a `destino` y lo renombra: o está entero o no está."""
    temporal = destino.with_name(f".{destino.name}.{os.getpid()}.tmp")
    escribir(temporal)
    os.replace(temporal, destino)


def guardar_checkpoint(epoca, modelo, optimizador):
    estado = {"epoca": epoca, "modelo": modelo.state_dict(), "optimizador": optimizador.state_dict()}
    escribir_entero(lambda ruta: torch.save(estado, ruta), ruta_local)  # 1 y 2: en local
    if carpeta_drive is not None:  # 3: una copia en Drive
        escribir_entero(lambda ruta: shutil.copyfile(ruta_local, ruta), carpeta_drive / ruta_local.name)


torch.manual_seed(0)
x = torch.randn(256, 4)
y = x @ torch.tensor([[2.0], [-1.0], [0.5], [3.0]]) + 1.0  # una recta que el modelo debe aprender


def entrenar(modelo, optimizador, desde_epoca, hasta_epoca):
    """Entrena de una época a otra, guarda un checkpoint cada CADA_EPOCAS y al final, y devuelve las pérdidas."""
    perdidas = []
    for epoca in range(desde_epoca, hasta_epoca):
        perdida = nn.functional.mse_loss(modelo(x), y)
        optimizador.zero_grad()
        perdida.backward()
        optimizador.step()
        if (epoca + 1) % CADA_EPOCAS == 0 or epoca == hasta_epoca - 1:
            guardar_checkpoint(epoca, modelo, optimizador)
        perdidas.append(perdida.item())
    return perdidas


modelo = nn.Linear(4, 1)
pesos_iniciales = {k: v.clone() for k, v in modelo.state_dict().items()}  # para comparar al final
optimizador = torch.optim.SGD(modelo.parameters(), lr=0.1)
perdidas_antes = entrenar(modelo, optimizador, 0, 30)
print(f"Época 29, pérdida {formatear_numero(perdidas_antes[-1], cifras=3)}. Checkpoint en {ruta_local}")
print("Copia en Drive:", carpeta_drive / ruta_local.name if carpeta_drive else "no (GUARDAR_EN_DRIVE = False)")

# %% [markdown]
# Ahora imagina que Colab se desconecta: se pierden el modelo y el optimizador de la memoria.
# Al volver, creas otros nuevos, cargas el checkpoint y sigues desde la época siguiente.
# `map_location` pone los pesos en el dispositivo que tengas ahora (un checkpoint guardado en
# GPU se carga también en CPU).

# %%
del modelo, optimizador  # la desconexión

modelo = nn.Linear(4, 1)
optimizador = torch.optim.SGD(modelo.parameters(), lr=0.1)
origen = carpeta_drive / ruta_local.name if carpeta_drive else ruta_local  # tras una desconexión, la de Drive
checkpoint = torch.load(origen, map_location="cpu", weights_only=True)
modelo.load_state_dict(checkpoint["modelo"])
optimizador.load_state_dict(checkpoint["optimizador"])
siguiente = checkpoint["epoca"] + 1

perdidas_despues = entrenar(modelo, optimizador, siguiente, 60)
print(f"Retomado en la época {siguiente}; tras la 59, la pérdida es "
      f"{formatear_numero(perdidas_antes[-1] / perdidas_despues[-1], 0)} veces menor que en la 29.")

# %% [markdown]
# En una gráfica: el entrenamiento cortado y reanudado, encima del mismo entrenamiento sin
# cortes (mismos pesos iniciales). La pérdida va en escala logarítmica: baja tanto que, en
# escala normal, todo lo que pasa tras la época 10 parecería cero.

# %%
from curso_gpu import graficos

seguido = nn.Linear(4, 1)
seguido.load_state_dict(pesos_iniciales)
ruta_local = carpeta_local / "leccion02_sin_cortes.pt"  # otro archivo: no pisar el de antes
perdidas_seguido = entrenar(seguido, torch.optim.SGD(seguido.parameters(), lr=0.1), 0, 60)
graficos.grafico_reanudacion(
    (range(60), perdidas_seguido), (range(30), perdidas_antes), (range(siguiente, 60), perdidas_despues),
    desconexion=siguiente, reanudado_desde=checkpoint["epoca"]);

# %% [markdown]
# La pérdida sigue bajando desde donde estaba: no se perdió nada. En la lección 05,
# `curso_gpu.guardado` hace esto mismo por ti (local, cada pocas épocas, copia atómica a
# Drive solo si lo pides con `drive=True`). ¿Qué pasa si se corta a mitad de guardar? Lo provoca el
# apéndice del curso (lección 99, «no perder nada»).

# %% [markdown]
# ### Opción 3: una GPU alquilada en la nube
#
# 1. **Crea una instancia con GPU** en el panel del proveedor (Lambda, RunPod, Vast.ai…). El
#    precio depende sobre todo de la GPU (la tabla de abajo, con precios de 2026).
# 2. **Entra por SSH** desde tu terminal:
#
#    ```bash
#    ssh usuario@tu-instancia-gpu
#    ```
#
# 3. **Mira el driver** con `nvidia-smi` e **instala PyTorch**. En Linux, la versión de PyPI
#    ya trae CUDA: desde torch 2.11 es una versión con **CUDA 13**, que pide un driver
#    **580 o más nuevo**:
#
#    ```bash
#    pip install torch torchvision
#    ```
#
#    Con un driver más antiguo (por ejemplo 570 o 560, que solo llegan a CUDA 12.8 o 12.6)
#    ese comando instala un PyTorch que no ve la GPU. Usa entonces el índice de una rueda
#    que tu driver admita, con el comando que te da el paquete (abajo).
#
# 4. **Comprueba la GPU**:
#
#    ```bash
#    python -c "import torch; print(torch.cuda.get_device_name(0))"
#    ```
#
# Si el driver de la instancia es anterior al 580, `nvidia-smi` te dice hasta qué CUDA admite
# y el paquete te da el comando que encaja con ese driver y con la GPU. Por ejemplo, una
# A100 (capacidad de cómputo 8.0) con `CUDA Version: 12.8`:

# %%
from curso_gpu.base import comando_instalacion

print(comando_instalacion((12, 8), capacidad=(8, 0)))

# %% [markdown]
# Esta celda hace lo mismo que el comando del paso 4. Con GPU imprime su nombre (`Tesla T4`,
# `NVIDIA A100-SXM4-40GB`…). Sin GPU falla: así sabrás que alquilaste la máquina equivocada,
# o que tu PyTorch es solo para CPU, antes de pagar horas de entrenamiento.

# %%
try:
    print("GPU:", torch.cuda.get_device_name(0))
except (AssertionError, RuntimeError) as error:
    print(f"Sin GPU, el comando falla con {type(error).__name__}: {error}")

# %% [markdown]
# #### Apaga la máquina al terminar
#
# Una GPU en la nube cobra **por hora encendida, la estés usando o no**. Cerrar la terminal o
# la computadora portátil no la apaga: apágala (o elimínala) en el panel del proveedor. Olvidarse es el
# error más caro, y el más común, de quien empieza.
#
# Cuánto cuesta la hora depende de la GPU. Precios bajo demanda de 2026, en dólares (cambian
# cada mes; cada rango dice de dónde sale):

# %%
from curso_gpu.base import PRECIOS_2026

for rango in PRECIOS_2026:
    print(f"{rango.clase:<62} {rango.minimo:5.2f}–{rango.maximo:.2f} $/h  ({rango.fuente})")

# %% [markdown]
# La cuenta es sencilla: precio por hora × horas.

# %%
precio_hora = 0.80  # dólares por hora
horas = 3
print(f"{precio_hora} $/h × {horas} h = {precio_hora * horas:.2f} $")

# %% [markdown]
# `curso_gpu.base` hace esa cuenta y comprueba los datos. Un fin de semana son 63 horas
# (del viernes a las 18:00 al lunes a las 9:00). Compara lo que usaste con lo que pagas por
# olvidarte:

# %%
from curso_gpu.base import (
    HORAS_FIN_DE_SEMANA,
    PRECIO_HORA_MAXIMO,
    PRECIO_HORA_MINIMO,
    calcular_coste,
    coste_olvido,
)

usado, olvidado = coste_olvido(precio_hora, horas_usadas=3)
print("Lo que usaste:           ", usado)
print("Olvidada el fin de semana:", olvidado)
print(f"Olvidarla cuesta {olvidado.total / usado.total:.0f} veces más que el trabajo.")
print()
for precio in (PRECIO_HORA_MINIMO, 1.0, PRECIO_HORA_MAXIMO):
    print("Un fin de semana olvidada:", calcular_coste(precio, HORAS_FIN_DE_SEMANA))

# %% [markdown]
# El coste crece en línea recta con las horas. En el dibujo, las 3 horas de trabajo son la
# esquina de abajo a la izquierda; el resto es lo que pagas por olvidarte.

# %%
import matplotlib.pyplot as plt

from curso_gpu.graficos import dar_estilo, leyenda_fuera, nueva_figura
from curso_gpu.base import formatear_numero

horas_eje = range(0, HORAS_FIN_DE_SEMANA + 1)
figura, ejes = nueva_figura(alto=3.6)
for precio in (PRECIO_HORA_MINIMO, 1.0, PRECIO_HORA_MAXIMO):
    ejes.plot(horas_eje, [calcular_coste(precio, h).total for h in horas_eje], label=formatear_numero(precio, 2, "$/h"))
    total = calcular_coste(precio, HORAS_FIN_DE_SEMANA).total
    ejes.annotate(formatear_numero(total, 2, "$"), (HORAS_FIN_DE_SEMANA, total), xytext=(4, -4), textcoords="offset points")
ejes.axvline(3, color="gray", linestyle="--", label="fin del trabajo (3 h)")
dar_estilo(ejes, "Una GPU en la nube olvidada un fin de semana", "horas encendida (h)", "coste ($)")
leyenda_fuera(ejes, titulo="precio por hora")
ejes.set_xlim(0, HORAS_FIN_DE_SEMANA + 12)
plt.show()

# %% [markdown]
# ### ¿Sin GPU? Sin problema
#
# Casi todo el curso funciona en CPU, y las lecciones que necesitan GPU lo dicen. Escribe tu
# código para que funcione en los dos casos:

# %%
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print(f"Usando: {device}")

# %% [markdown]
# `curso_gpu.elegir_dispositivo()` hace lo mismo y además reconoce el Mac (MPS) y las GPU de
# Intel (lección 01).

# %% [markdown]
# ## Pruébalo
#
# Busca el precio por hora de una GPU en un proveedor y cámbialo abajo. ¿Cuánto cuesta tu
# trabajo? ¿Y olvidarla una semana entera (168 horas)? Prueba también con un precio negativo:
# el paquete te dice qué está mal.

# %%
mi_precio_hora = 1.20
mis_horas_de_trabajo = 4
horas_olvidada = 168

trabajo, olvido = coste_olvido(mi_precio_hora, mis_horas_de_trabajo, horas_olvidada)
print("Trabajo:", trabajo)
print("Olvido: ", olvido)

try:
    calcular_coste(-1.20, 4)
except ValueError as error:
    print("Error:", error)

# %% [markdown]
# ## Errores comunes
#
# - **No apagar la máquina en la nube.** Cobra por hora aunque no la uses. Apágala en el panel
#   del proveedor, no solo cerrando la terminal.
# - **Olvidar pedir la GPU en Colab.** `torch.cuda.is_available()` da `False`. Menú
#   *Entorno de ejecución › Cambiar tipo de entorno de ejecución › GPU T4*.
# - **Seguir tras cambiar de entorno.** Cambiar el tipo de entorno lo reinicia y borra las
#   variables: vuelve a ejecutar el notebook desde el principio.
# - **Guardar los checkpoints en `/content`.** Se borran al desconectarse. Guárdalos en Drive.
# - **Reinstalar PyTorch en Colab** con `pip install torch==...`. Colab ya trae uno con CUDA;
#   cambiarlo obliga a reiniciar y puede romperlo. La celda de arranque del curso no lo toca.
# - **Dejar un entrenamiento largo sin checkpoints.** Si Colab se desconecta a mitad, empiezas
#   de cero. Guarda uno cada pocas épocas, en local, y cópialo a Drive.
# - **`torch.save` directo a Drive en cada época.** Puede colgarse o dejar archivos a medias.
# - **`pip install torch` con un driver anterior al 580.** La versión de PyPI trae CUDA 13;
#   usa el `--index-url` de una rueda que tu driver admita.
# - **Entrenar en la nube sin comprobar la GPU.** Ejecuta el comando del paso 4 antes de lanzar
#   nada: si falla, estás pagando una GPU que PyTorch no usa.

# %% [markdown]
# ## Retos
#
# 1. Abre este notebook en Colab con su insignia, pide la T4 y ejecuta
#    `comprobar_entorno_colab()`. ¿Qué GPU te tocó y cuánta memoria tiene?
# 2. En Colab, monta Drive, entrena el ejemplo de checkpoints y desconecta el entorno
#    (*Entorno de ejecución › Desconectar y eliminar entorno de ejecución*). Vuelve a conectar
#    y retoma desde el checkpoint: ¿en qué época sigues?
# 3. Ejecuta la comparativa CPU frente a GPU de la lección 03 en tu computadora y en Colab, y
#    compara los tiempos.
# 4. Con el precio real de una GPU en un proveedor: ¿cuánto cuesta una tarde de 4 horas?
#    ¿Y un mes olvidada (30 × 24 = 720 horas)?
# 5. La T4 tiene 15 360 MiB usables (unos 16 GB). Con la regla rápida de 2 bytes por parámetro en fp16,
#    ¿cuál es el modelo más grande que te cabría? (Lo verás a fondo en la lección 04.)

# %% [markdown]
# ## Glosario
#
# - **GPU**: procesador con miles de núcleos sencillos que hacen la misma operación a la vez.
# - **CUDA**: la plataforma de NVIDIA para hacer cálculos generales en sus GPU. PyTorch la usa.
# - **`nvidia-smi`**: la herramienta del driver de NVIDIA que muestra las GPU, su memoria y su uso.
# - **Google Colab**: notebooks de Jupyter en los servidores de Google, con GPU gratis (T4).
# - **Entorno de ejecución**: la máquina de Colab en la que corre tu notebook.
# - **T4**: la GPU NVIDIA del plan gratuito de Colab: 16 GiB físicos, 15 360 MiB usables con el ECC activado.
# - **VRAM**: la memoria de la GPU.
# - **Google Drive / «Mi unidad» (MyDrive)**: tu espacio en la nube de Google; Colab lo monta en `/content/drive`.
# - **Montar**: hacer que una unidad se vea como una carpeta más.
# - **Checkpoint**: un archivo con el estado del entrenamiento (época, pesos, optimizador) para retomarlo.
# - **Instancia**: una máquina alquilada en la nube.
# - **SSH**: la forma de abrir una terminal en una máquina remota.
# - **$/h**: dólares por hora; así cobran las GPU en la nube.
# - **Binder**: un servicio gratis que abre los notebooks en el navegador, sin GPU.

# %%
# Comprobación final: el entrenamiento retomado acaba como el seguido y la cuenta de la nube cuadra.
# Ejecútala tras cambiar algo: si deja de ser cierto, falla y dice qué.
assert perdidas_antes[-1] < perdidas_antes[0] and perdidas_despues[-1] < perdidas_antes[-1]  # retomado, sigue bajando
assert abs(perdidas_despues[-1] - perdidas_seguido[-1]) <= 1e-6 + 1e-3 * perdidas_seguido[-1]  # como sin cortes
assert round(usado.total, 2) == 2.40 and round(olvidado.total / usado.total) == 21  # olvidarla cuesta 21 veces más
print("Comprobado: el entrenamiento retomado acaba como el seguido, y la cuenta de la nube cuadra.")
