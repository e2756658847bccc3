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
# [![Abrir en Colab](https://colab.research.google.com/assets/colab-badge.svg)](https://colab.research.google.com/github/curso-gpu/curso_gpu/blob/main/notebooks/08_varias_gpu_ddp.ipynb)
#
# # Lección 08 — Más de una GPU: DDP y torchrun

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
# - Qué es el **paralelismo de datos**: cada proceso tiene una copia entera del modelo y un
#   trozo distinto de cada lote, y los gradientes se promedian con un **all-reduce**.
# - A calcular sobre el papel cuándo compensa: lo que cuesta comunicar frente a lo que se calcula,
#   por PCIe o por NVLink.
# - A escribir un guion con `DistributedDataParallel` (DDP) en PyTorch puro y lanzarlo con
#   **`torchrun`**, con dos procesos en tu CPU: el mismo código que usarías con dos GPU.
# - A comprobar que funciona: qué ejemplos recibe cada proceso, que las copias acaban
#   idénticas y que 2 procesos con lotes de 16 dan el mismo modelo que 1 proceso con lotes de 32.
# - A sobrevivir a un fallo: `torchrun --max-restarts` y checkpoints que solo escribe el rango 0.
# - A simular **dos máquinas** en la tuya, y qué cambia en un clúster de verdad.
#
# ## Por qué importa
#
# Cuando un entrenamiento tarda días en una GPU, la respuesta habitual es repartirlo entre
# varias. Kaggle te da gratis dos T4 («GPU T4 x2»); en la nube hay máquinas con 2, 4 u 8 GPU.
# Colab gratis solo tiene una. La herramienta estándar es la de PyTorch: `torch.distributed` +
# `DistributedDataParallel`, arrancados con `torchrun`.
#
# Lo bueno: con el backend `gloo`, DDP funciona con procesos de **CPU**. Así pruebas tu código
# distribuido en el portátil, en Colab o en una integración continua, antes de pagar por GPU.
# Esta lección entera corre en CPU en menos de un minuto (unos 45 s en una CPU de 2 núcleos
# ocupada; la mayor parte, arrancando los procesos de `torchrun`).

# %%
import json
import os
import re
import tempfile
import time
from pathlib import Path

import torch
from torch import nn

from curso_gpu import distribuido
from curso_gpu.base import contar, formatear_numero
from curso_gpu.guardado import cargar_pesos
from curso_gpu.entrenamiento import generar_dataset
from curso_gpu.entrenar_ddp import main as entrenar_ddp_main
from curso_gpu.distribuido import PuertoOcupado, ejecutar, orden_torchrun, puerto_libre, sigue_vivo
from curso_gpu.entrenamiento import CNNPequena

print("PyTorch", torch.__version__, "· ¿CUDA?", torch.cuda.is_available(),
      "· GPU:", torch.cuda.device_count(), "· núcleos de CPU:", os.cpu_count())
CARPETA_TEMPORAL = tempfile.TemporaryDirectory(prefix="leccion08_")  # se borra al final de la lección
CARPETA = Path(CARPETA_TEMPORAL.name)  # aquí van el guion, los pesos, los checkpoints y los registros
ENTORNO = {"OMP_NUM_THREADS": "1",  # un hilo por proceso: si no, los procesos se pelean por los núcleos
           "CUDA_VISIBLE_DEVICES": ""}  # y en la CPU: con una sola GPU (la T4 de Colab), dos procesos no tendrían una cada uno

# %% [markdown]
# ## La idea clave: paralelismo de datos
#
# Con N procesos (uno por GPU):
#
# 1. Cada proceso tiene **una copia entera** del modelo, con los mismos pesos iniciales.
# 2. Cada lote se reparte: cada proceso recibe **su trozo** de ejemplos (`DistributedSampler`).
# 3. Cada uno hace `forward` y `backward` con su trozo y obtiene **sus** gradientes.
# 4. Un **all-reduce** suma los gradientes de todos y los divide entre N: todos reciben la media.
# 5. Todos aplican el mismo paso del optimizador: las copias **siguen idénticas**.
#
# ¿Por qué da lo mismo que un solo proceso con el lote entero? Porque la pérdida es una media:
# el gradiente de la media de 32 ejemplos es la media de los gradientes de las dos mitades de 16.
# Compruébalo sin procesos, con dos copias del modelo:

# %%
X, y = generar_dataset(64, semilla=0)
criterio = nn.CrossEntropyLoss()
torch.manual_seed(0)
modelo_a = CNNPequena()
modelo_b = CNNPequena()
modelo_b.load_state_dict(modelo_a.state_dict())   # la misma copia en los dos «procesos»
entero = CNNPequena()
entero.load_state_dict(modelo_a.state_dict())

criterio(modelo_a(X[:16]), y[:16]).backward()     # «proceso 0»: su mitad del lote
criterio(modelo_b(X[16:32]), y[16:32]).backward() # «proceso 1»: la otra mitad
criterio(entero(X[:32]), y[:32]).backward()       # un solo proceso con el lote de 32

media = (modelo_a.conv1.weight.grad + modelo_b.conv1.weight.grad) / 2   # lo que hace el all-reduce
print("¿Media de los dos gradientes == gradiente del lote entero?",
      torch.allclose(media, entero.conv1.weight.grad, atol=1e-7))

# %% [markdown]
# ### ¿Cuándo compensa? Comunicar frente a calcular
#
# El all-reduce no es gratis. El algoritmo en **anillo** (el que usa NCCL) hace que cada GPU envíe
# y reciba unos **2·(N−1)/N veces** los bytes del gradiente en cada paso: casi el doble del
# gradiente, da igual cuántas GPU haya. El tiempo es eso dividido por el ancho de banda entre GPU:
#
# - **PCIe 3.0 x16** (la T4 de Colab y Kaggle): 15.75 GB/s por sentido.
# - **NVLink** (V100, A100, H100 de centro de datos): de 150 a 450 GB/s por sentido.
#
# Son **techos teóricos** del enlace (la cuenta de su ficha), no lo que mide NCCL. En la práctica
# un all-reduce alcanza como mucho un 70–85 % de ese techo, y entre dos T4 sin NVLink, como las de
# Kaggle, los datos pasan por el bus PCIe del servidor y suele quedarse por debajo. Por eso
# `tiempo_allreduce` da un **mínimo**: el tiempo de verdad es mayor.
#
# `tiempo_allreduce` hace la cuenta. Un modelo del tamaño de ResNet-50 (25.6 millones de
# parámetros, 102 MB de gradiente en fp32) en 8 GPU:

# %%
print("Anchos de banda entre GPU, por sentido:")
for enlace, gb_s in distribuido.ANCHOS_DE_BANDA_GB_S.items():
    print(f"  {enlace:<13} {formatear_numero(gb_s)} GB/s")
t4 = distribuido.tiempo_allreduce(25_600_000, 8, "PCIe 3.0 x16")
h100 = distribuido.tiempo_allreduce(25_600_000, 8, "NVLink H100")
print("8×T4 por PCIe:   ", t4)
print("8×H100 con NVLink:", h100)

# %% [markdown]
# Lo que importa es la comparación con el **cálculo** de cada paso. Si cada GPU tarda `c`
# segundos en su `forward` + `backward`, y después espera al all-reduce, la aceleración con
# N GPU es N·c / (c + comunicación). DDP solapa parte de la comunicación con el `backward`,
# así que la realidad queda entre las dos columnas.

# %%
print(f"{'cálculo por paso':>17} | {'8×T4 PCIe':>10} | {'8×H100 NVLink':>13}")
for c in (0.010, 0.050, 0.200):
    print(f"{1000 * c:>14.0f} ms | {t4.aceleracion(c):>9.1f}x | {h100.aceleracion(c):>12.1f}x")

# %% [markdown]
# Con pasos cortos (un modelo pequeño o una GPU muy rápida), la T4 por PCIe pierde buena parte
# de la ganancia esperando a la red; con NVLink casi no se nota. Además, una H100 calcula
# muchas veces más rápido que una T4, así que su `c` es más corto: por eso necesita NVLink.
#
# Datos publicados para comparar: Horovod (otra herramienta de paralelismo de datos) mide un
# 90 % de eficiencia con ResNet-101 en 512 GPU y un 68 % con VGG-16, que tiene muchos más
# parámetros por cálculo; un usuario de fast.ai midió 1.5× con 2 V100 en Google Cloud (75 %).

# %%
for caso, eficiencia in distribuido.EFICIENCIA_PUBLICADA.items():
    print(f"{caso:<32} {100 * eficiencia:.0f} % de eficiencia")

# %% [markdown]
# ## Paso a paso
#
# ### 1. El guion DDP en PyTorch puro
#
# DDP no se ejecuta dentro del notebook: se escribe un **guion** y `torchrun` arranca una
# copia por GPU (aquí, por proceso de CPU). Cada copia sabe quién es por unas variables de
# entorno que pone `torchrun`: `RANK` (0…N−1), `LOCAL_RANK` (qué GPU de esta máquina) y
# `WORLD_SIZE` (cuántos hay). Lee el guion de arriba abajo: son las piezas de siempre más
# seis líneas nuevas, marcadas con «DDP».

# %%
GUION = CARPETA / "entrenar_ddp_puro.py"
GUION.write_text('''\
import datetime, hashlib, json, os, statistics, sys, time
import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset
from curso_gpu.entrenamiento import CNNPequena, generar_dataset

tamano_lote, epocas, destino = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]

# DDP 1: unirse al grupo. nccl si hay GPU y PyTorch lo trae (cada proceso en su GPU), gloo si no.
rango_local = int(os.environ["LOCAL_RANK"])
if torch.cuda.is_available() and dist.is_nccl_available():
    backend, dispositivo = "nccl", torch.device("cuda", rango_local)
    torch.cuda.set_device(dispositivo)
else:
    backend, dispositivo = "gloo", torch.device("cpu")
dist.init_process_group(backend, timeout=datetime.timedelta(seconds=60))
rango, mundo = dist.get_rank(), dist.get_world_size()

# DDP 2: los mismos datos en todos; el muestreador da a cada proceso su parte.
X, y = generar_dataset(64, semilla=0)
conjunto = TensorDataset(X, y)
muestreador = DistributedSampler(conjunto, num_replicas=mundo, rank=rango, shuffle=True, seed=0)
cargador = DataLoader(conjunto, batch_size=tamano_lote, sampler=muestreador)

# DDP 3: el mismo modelo inicial, envuelto en DDP (promedia los gradientes en backward).
torch.manual_seed(0)
modelo = CNNPequena().to(dispositivo)
ddp = DistributedDataParallel(modelo, device_ids=[rango_local] if backend == "nccl" else None)
optimizador = torch.optim.Adam(ddp.parameters(), lr=0.01)
criterio = nn.CrossEntropyLoss()

inicio, pasos = time.perf_counter(), []
for epoca in range(1, epocas + 1):
    muestreador.set_epoch(epoca)  # DDP 4: otro reparto en cada época
    if epoca == 1:
        indices = list(muestreador)
        print(f"[rango {rango}] me tocan {len(indices)} ejemplos: {indices[:8]} ...", flush=True)
    for xb, yb in cargador:
        t0 = time.perf_counter()
        xb, yb = xb.to(dispositivo), yb.to(dispositivo)
        perdida = criterio(ddp(xb), yb)
        optimizador.zero_grad()
        perdida.backward()        # aquí espera a los demás: all-reduce de los gradientes
        optimizador.step()
        pasos.append(time.perf_counter() - t0)
segundos = time.perf_counter() - inicio

pesos = b"".join(t.detach().cpu().numpy().tobytes() for t in modelo.state_dict().values())
print(f"[rango {rango}] huella de los pesos: {hashlib.sha256(pesos).hexdigest()[:16]}", flush=True)
if rango == 0:  # DDP 5: solo el rango 0 imprime el resumen y guarda
    print(f"{mundo} procesos · {segundos:.2f} s de entrenamiento · pérdida {perdida.item():.4f}", flush=True)
    print(f"{len(pasos)} pasos · mediana {1000 * statistics.median(pasos):.1f} ms por paso", flush=True)
    with open(destino + ".pasos.json", "w") as archivo:  # cada paso, para compararlos después
        json.dump(pasos, archivo)
    torch.save(modelo.state_dict(), destino)  # el modelo sin envolver: sin el prefijo «module.»
dist.destroy_process_group()  # DDP 6: cerrar el grupo
''')
print(f"Guion escrito en {GUION.name} ({len(GUION.read_text().splitlines())} líneas), en la carpeta de la lección")

# %% [markdown]
# ### 2. Lanzarlo con `torchrun`
#
# En una terminal sería `torchrun --nproc_per_node=2 entrenar_ddp_puro.py 16 3 pesos.pt`.
# Desde el notebook usamos `python -m torch.distributed.run` con **el mismo Python del
# notebook** (`sys.executable`): así funciona igual en Colab, Kaggle, JupyterLab y CI, aunque
# `torchrun` no esté en el `PATH`. Y un puerto libre para que los procesos se encuentren.
#
# ¿Por qué no `subprocess.run(orden, timeout=...)`? Porque al agotarse el tiempo solo mata a
# `torchrun`, y `torchrun` arranca cada trabajador en su propia sesión: quedarían procesos
# huérfanos ocupando CPU o GPU. `ejecutar` del paquete pone el tiempo máximo y, pase lo que
# pase, para a `torchrun` **y a todos sus trabajadores**.
#
# **Un archivo por rango.** Los dos procesos escriben a la vez. Si comparten la pantalla, la
# línea de uno puede colarse en mitad de la del otro:
# `[rango 0] huella de los pesos: e0be8108573ec19e[rango 1] huella de los pesos: e0be8108573ec19e`.
# Leer eso línea a línea encuentra una sola huella. Por eso pedimos a `torchrun` que guarde lo
# que escribe cada rango en su propio archivo: `--log-dir` (la carpeta) y `--redirects=3`
# (1: la salida, 2: los errores, 3: las dos). Cada rango deja su
# `<carpeta>/<id>/attempt_0/<rango>/stdout.log` y su `stderr.log`, enteros y sin mezclar.

# %%
EPOCAS = 3
ruta_2x16 = CARPETA / "pesos_2x16.pt"
REGISTROS = CARPETA / "registros"
orden = [sys.executable, "-m", "torch.distributed.run", "--nproc_per_node=2",
         f"--master_port={puerto_libre()}", f"--log-dir={REGISTROS.name}", "--redirects=3",
         GUION.name, "16", str(EPOCAS), ruta_2x16.name]  # rutas relativas a CARPETA, donde se ejecuta
print(" ".join(orden[1:]))
(dos,) = ejecutar(orden, timeout_s=120, entorno=ENTORNO, directorio=CARPETA)
salida_de = {}  # rango → todo lo que escribió
for registro in sorted(REGISTROS.glob("*/attempt_0/*/stdout.log")):
    rango = int(registro.parent.name)
    salida_de[rango] = registro.read_text()
    errores = (registro.parent / "stderr.log").read_text()
    print(f"── rango {rango} ({registro.relative_to(REGISTROS)}) ──\n{salida_de[rango]}{errores}", end="")
for linea in dos.propias:  # lo que dice torchrun mismo: nada si todo fue bien
    print(linea)
if dos.registro:  # su registro, en inglés, lo guarda aparte: lo contamos
    print(f"[torchrun] dejó {contar(len(dos.registro), 'aviso')} en inglés en su registro (dos.registro).")  # solo se ejecuta si torchrun avisa de algo (a veces, con la máquina ocupada)
print(f"Código de salida {dos.codigo} · {dos.segundos:.1f} s en total (arrancar Python y torch en 3 procesos incluido)")

# %% [markdown]
# ### 3. Verlo funcionar
#
# **Cada rango recibe ejemplos distintos**: arriba, cada uno imprime los primeros índices de
# los 96 que le tocan (la mitad de 192). `DistributedSampler` baraja con la misma semilla en
# todos y reparte de forma alterna: el rango 0 se queda las posiciones pares y el 1 las impares.
#
# **Las copias acaban idénticas**: las dos huellas de los pesos coinciden. La huella es un
# resumen (SHA-256) de todos los bytes de los pesos: si un solo número difiriera, cambiaría.

# %%
huellas = [linea.rsplit(" ", 1)[1] for texto in salida_de.values() for linea in texto.splitlines()
           if "huella de los pesos" in linea]  # una por rango, de su propio archivo
print("Huellas:", huellas, "→ ¿idénticas?", len(huellas) == 2 and len(set(huellas)) == 1)

# %% [markdown]
# **2 procesos × lote 16 = 1 proceso × lote 32.** El lote global es el mismo (32) y DDP
# promedia los gradientes: el modelo final debe ser el mismo, salvo el redondeo de sumar en
# otro orden. Lo comprobamos con el bucle de siempre, en un solo proceso y sin DDP: los mismos
# datos, semilla y optimizador, y el mismo muestreador con un único «rango»
# (`num_replicas=1, rank=0`), que sin grupo de procesos funciona igual.

# %%
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

# Un hilo (lo pusimos al principio), como cada proceso de torchrun: una comparación justa.
conjunto = TensorDataset(X, y)                                   # los 192 ejemplos de antes (semilla 0)
muestreador = DistributedSampler(conjunto, num_replicas=1, rank=0, shuffle=True, seed=0)
cargador = DataLoader(conjunto, batch_size=32, sampler=muestreador)
torch.manual_seed(0)
solo = CNNPequena()
optimizador = torch.optim.Adam(solo.parameters(), lr=0.01)
inicio, pasos_1 = time.perf_counter(), []
for epoca in range(1, EPOCAS + 1):
    muestreador.set_epoch(epoca)
    for xb, yb in cargador:
        t0 = time.perf_counter()
        perdida = criterio(solo(xb), yb)
        optimizador.zero_grad()
        perdida.backward()
        optimizador.step()
        pasos_1.append(time.perf_counter() - t0)
segundos_1 = time.perf_counter() - inicio

pesos_2x16 = torch.load(ruta_2x16, weights_only=True)
diferencia = max((pesos_2x16[k] - v).abs().max().item() for k, v in solo.state_dict().items())
print(f"Máxima diferencia entre 2×16 y 1×32: {diferencia:.1e} (redondeo de float32)")
print("Huella de 1×32:", distribuido.huella_de_pesos(solo), "(otra: no son idénticos bit a bit, solo casi)")

# %% [markdown]
# El paquete tiene la versión completa del guion, `curso_gpu.entrenar_ddp`: solo, con
# `python -m curso_gpu.entrenar_ddp --tamano-lote 32`, es un mundo de un proceso con DDP y da
# también estos pesos.
# <!-- Lo comprueba tests/test_distribuido.py. -->
#
# **¿Y el tiempo?** Comparamos paso a paso: cada paso de un proceso con lote 32 frente al mismo
# paso (el mismo lote global) de dos procesos con lote 16, medido por el rango 0. Las dos
# ejecuciones no fueron a la vez, así que el intervalo solo recoge la variación de un paso a otro,
# no los cambios de carga de la máquina entre una ejecución y la otra.

# %%
from curso_gpu.medicion import comparar_muestras

linea = next(l for l in salida_de[0].splitlines() if "de entrenamiento" in l)  # lo escribe el rango 0
segundos_2 = float(linea.split("·")[1].split()[0])
pasos_2 = json.loads((CARPETA / (ruta_2x16.name + ".pasos.json")).read_text())  # lo guarda el rango 0
print(f"1 proceso,  lote 32: {segundos_1:.2f} s de entrenamiento")
print(f"2 procesos, lote 16: {segundos_2:.2f} s de entrenamiento, y {dos.segundos:.1f} s con el arranque")
comparar_muestras(pasos_1, pasos_2, nombres=("1 proceso", "2 procesos"), alternados=False,
                  descripcion="un paso de entrenamiento, lote global 32")

# %% [markdown]
# Qué suele salir en una CPU de 2 núcleos: dos procesos **no** van el doble de rápido, y a
# menudo van más lentos. El veredicto de arriba dice lo que pasó en esta ejecución. Por qué:
#
# - Los dos procesos comparten los mismos núcleos de CPU, la misma memoria y la misma caché: no
#   hay más hardware, solo más trabajo de coordinación.
# - El modelo es diminuto (2 339 parámetros): cada paso calcula casi nada, y el all-reduce
#   y la sincronización pesan más que el cálculo.
# - `torchrun` tiene que arrancar Python e importar torch en cada proceso: varios segundos.
#
# En Kaggle con **2×T4** cada proceso tendría su propia GPU. Con este modelo tampoco ganarías
# (la GPU apenas trabaja). Con uno grande, sí: por ejemplo, un ResNet-50 pasa 102 MB de
# gradiente por PCIe en cada paso:

# %%
kaggle = distribuido.tiempo_allreduce(25_600_000, 2, "PCIe 3.0 x16")
print(kaggle)
for c in (0.05, 0.2):
    print(f"si cada T4 calcula {1000 * c:.0f} ms por paso: como mucho {kaggle.aceleracion(c):.2f}x con el techo teórico "
          f"(hasta {kaggle.aceleracion(c, solapar=True):.2f}x si DDP solapa toda la comunicación)")

# %% [markdown]
# ### 4. Fallos: un proceso muere y `torchrun` reinicia el grupo
#
# En un entrenamiento largo, tarde o temprano un proceso muere (una GPU que falla, memoria
# agotada, una máquina que se reinicia). Si un proceso del grupo muere, los demás no pueden
# seguir: se quedarían esperando su parte del all-reduce. `torchrun` lo detecta, para a todos
# y, con `--max-restarts=N`, **vuelve a arrancar el grupo entero** hasta N veces.
#
# Para no empezar de cero hacen falta checkpoints, con las reglas de la lección 05 y una más:
# **solo el rango 0 escribe** (todos tienen los mismos pesos), de forma atómica; al arrancar,
# todos leen el último y siguen desde ahí.
#
# `--simular-fallo 2` hace que, en el primer intento, el proceso de rango 1 muera en la época 2.
# Esta es la orden; la lanzamos después del paso 5, a la vez que la de dos máquinas:

# %%
ck = CARPETA / "checkpoints"
orden_fallo = orden_torchrun(
    ["-m", "curso_gpu.entrenar_ddp", "--epocas", str(EPOCAS), "--tamano-lote", "16", "--semilla", "0",
     "--checkpoints", ck.name, "--simular-fallo", "2", "--guardar-pesos", "pesos_fallo.pt"],
    procesos=2, reinicios=1)
print(" ".join(orden_fallo[1:]))

# %% [markdown]
# ### 5. Más de una máquina, simulada en esta
#
# Con varias máquinas, en cada una se lanza `torchrun` con las mismas opciones salvo su número
# de nodo. Los procesos se encuentran en un punto de reunión (*rendezvous*) `c10d`: una
# dirección y un puerto de la máquina 0. Aquí las dos «máquinas» son dos órdenes en la tuya,
# con la dirección de *loopback* `127.0.0.1` (nada sale a la red) y un proceso cada una:

# %%
puerto = puerto_libre()
pesos_nodos = CARPETA / "pesos_2_nodos.pt"
ordenes = [[sys.executable, "-m", "torch.distributed.run", "--nproc_per_node=1", "--nnodes=2",
            f"--node-rank={nodo}", "--rdzv-backend=c10d", f"--rdzv-endpoint=127.0.0.1:{puerto}",
            "--rdzv-id=leccion08", GUION.name, "16", str(EPOCAS), pesos_nodos.name] for nodo in (0, 1)]
for o in ordenes:
    print(" ".join(o[1:]))

# %% [markdown]
# ### Las dos pruebas a la vez
#
# El fallo del paso 4 y las dos «máquinas» del paso 5 no dependen una de otra: cada prueba
# tiene su puerto, sus archivos y sus procesos. `ejecutar` acepta varias órdenes: las lanza a
# la vez y espera a todas, con el mismo tiempo máximo y sin dejar procesos huérfanos. Mientras
# un `torchrun` arranca Python e importa torch, otro ya entrena, y los dos núcleos no se
# quedan parados: esperas bastante menos que lanzándolas una tras otra.

# %%
fallo, nodo0, nodo1 = ejecutar(orden_fallo, *ordenes, timeout_s=180, entorno=ENTORNO, directorio=CARPETA)
print(f"Terminaron en {fallo.segundos:.1f} s · códigos de salida: fallo {fallo.codigo}, "
      f"nodo 0 {nodo0.codigo}, nodo 1 {nodo1.codigo}")

# %% [markdown]
# **El fallo (paso 4).** Las líneas importantes de su salida:

# %%
importantes = ("Simulo", "Error:", "Reanudo", "época", "Copias")
for l in fallo.salida.splitlines():
    if "failed (exitcode:" in l:  # el registro de torchrun, en inglés: qué proceso murió y con qué código
        codigo, rango_local = re.search(r"exitcode: (-?\d+)", l)[1], re.search(r"local_rank: (\d+)", l)[1]
        print(f"[torchrun] el rango {rango_local} terminó con el código {codigo}: paro el grupo y lo reinicio.")
    elif any(p in l for p in importantes):
        print(l)
print(f"\nCódigo de salida {fallo.codigo} · checkpoints: {sorted(p.name for p in ck.iterdir())}")

# %% [markdown]
# Fíjate en el orden: el rango 1 muere; el rango 0 lo nota en el siguiente all-reduce y lo dice
# en español; `torchrun` para el grupo y lo vuelve a arrancar; los dos procesos nuevos leen
# `checkpoint_epoca_000001.pt` y siguen en la época 2. ¿Acaba igual que sin el fallo?

# %%
tras_fallo = cargar_pesos(CARPETA / "pesos_fallo.pt")  # --guardar-pesos lleva su SHA-256: se comprueba al cargar
sin_fallo = pesos_2x16
print("¿Pesos idénticos, número a número, al entrenamiento sin fallo?",
      all(torch.equal(tras_fallo[k], sin_fallo[k]) for k in sin_fallo))

# %% [markdown]
# Sí, y la huella que imprime es la del guion del paso 2. El checkpoint guarda los pesos, el
# estado de Adam y la época, y `set_epoch` hace que el reparto de cada época dependa solo de
# la semilla y la época. Por eso el resultado no depende de cuándo falló.
#
# **Las dos máquinas (paso 5).** Cada «máquina» imprime lo de su proceso:

# %%
for nodo, e in enumerate((nodo0, nodo1)):
    print(f"── máquina {nodo} ──")
    for l in e.propias:  # lo que escribieron torchrun y el guion; el registro de torchrun va aparte
        if "node_rank is only used for static rdzv_backend" in l:  # el aviso de torchrun, en inglés
            print("[torchrun] aviso: con la reunión c10d, --node-rank no cuenta (se ignora).")
        elif l.strip():
            print(l)
    if e.registro:  # al cerrar, con la máquina ocupada, una máquina puede no encontrar ya a la otra
        print(f"[torchrun] dejó {contar(len(e.registro), 'aviso')} en inglés en su registro (nodo{nodo}.registro).")  # solo se ejecuta si torchrun avisa de algo (a veces, con la máquina ocupada)
dos_nodos = torch.load(pesos_nodos, weights_only=True)
print("¿Mismos pesos que un nodo con 2 procesos?", all(torch.equal(dos_nodos[k], sin_fallo[k]) for k in sin_fallo))

# %% [markdown]
# Las huellas coinciden con las del paso 2. `torchrun` avisa de que ignora `--node-rank` con
# `c10d`: esa reunión numera las máquinas por orden de llegada (con la reunión estática,
# `--master_addr` y `--master_port`, sí cuenta). Lo importante es que todas usen el mismo
# `--rdzv-endpoint` y el mismo `--rdzv-id`.
#
# **En un clúster de verdad** cambia poco:
#
# - `--rdzv-endpoint` es la dirección de la máquina 0 en la red del clúster (por ejemplo
#   `10.0.0.1:29500`), y ese puerto debe estar abierto entre las máquinas.
# - `--nproc_per_node` es el número de GPU de cada máquina (8 en una de 8 GPU).
# - Con **SLURM**, no lanzas tú cada orden: `srun` ejecuta la misma orden en cada nodo del
#   trabajo, por ejemplo `srun torchrun --nnodes=$SLURM_NNODES --nproc_per_node=8
#   --rdzv-backend=c10d --rdzv-endpoint=$NODO0:29500 entrenar.py`.
# - Entre máquinas, la red (InfiniBand, Ethernet) es mucho más lenta que NVLink: ahí el
#   all-reduce pesa más, y la calculadora de arriba te dice cuánto.
#
# **¿Y si el modelo no cabe en una GPU?** DDP guarda una copia entera del modelo, sus
# gradientes y el estado del optimizador en **cada** GPU (lecciones 04 y 07). Si eso no cabe,
# el paso siguiente es **FSDP** (`torch.distributed.fsdp`): reparte los pesos, los gradientes
# y el estado del optimizador entre las GPU, y junta cada capa solo cuando la necesita.

# %% [markdown]
# ## Pruébalo
#
# - Cambia `"16"` por `"8"` en la orden del paso 2 y compara con el bucle de un proceso con `batch_size=16`
#   en un proceso. ¿Siguen coincidiendo? ¿Por qué?
# - Lanza el guion con `--nproc_per_node=4`. ¿Cuántos ejemplos le tocan a cada rango?
# - En Kaggle, elige «GPU T4 x2» y ejecuta
#   `!torchrun --nproc_per_node=2 -m curso_gpu.entrenar_ddp --epocas 30`: el mismo código, con nccl.
#
# ## Errores comunes
#
# | error | qué pasa | cómo se arregla |
# |---|---|---|
# | Todos los rangos guardan | N procesos escriben el mismo archivo a la vez: uno a medias o corrupto | guarda solo en el rango 0 (`if dist.get_rank() == 0`), de forma atómica |
# | Olvidar `set_epoch` | cada época reparte los mismos ejemplos en el mismo orden | `muestreador.set_epoch(epoca)` al empezar cada época |
# | `nccl` en CPU | `Distributed package doesn't have NCCL built in` o un error de CUDA | `gloo` en CPU; `nccl` solo con GPU NVIDIA |
# | El puerto está en uso | `The server socket has failed to listen ... EADDRINUSE ... address already in use` | otro puerto (`--master_port`, `--rdzv-endpoint`) o cierra el entrenamiento anterior |
# | Un rango colgado | los demás esperan en el all-reduce para siempre | `timeout=` en `init_process_group`: pasado ese tiempo, la espera se convierte en un error. Con nccl no hace falta nada más: `TORCH_NCCL_ASYNC_ERROR_HANDLING` ya vale 3 por defecto (para el proceso al fallar) y `torchrun` la pone en 1 (también limpia NCCL) si no la defines |
# | Más procesos que GPU | dos procesos en la misma GPU con nccl: error o cuelgue | `--nproc_per_node` = número de GPU |
#
# <!-- Fuente de la fila «Un rango colgado» (torch 2.13.0): include/torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp
# («the default value (3 - SkipCleanUp)»; 1 = TearDown) y torch/distributed/elastic/agent/server/local_elastic_agent.py
# («"TORCH_NCCL_ASYNC_ERROR_HANDLING": os.getenv("TORCH_NCCL_ASYNC_ERROR_HANDLING", str(1))»). -->
#
# Algunos, provocados de verdad. `nccl` sin GPU, con el paquete:

# %%
# El error sale en rojo (stderr), como en una terminal: es lo que esta celda enseña.
if not torch.cuda.is_available():
    print("código de salida:", entrenar_ddp_main(["--backend", "nccl", "--epocas", "1"]))

# %% [markdown]
# El puerto en uso: un programa escucha en un puerto y pedimos el mismo para la reunión.

# %%
import socket

with socket.socket() as ocupado:
    ocupado.bind(("127.0.0.1", 0))
    ocupado.listen()
    try:
        orden_torchrun(GUION, puerto=ocupado.getsockname()[1])
    except PuertoOcupado as error:
        print("PuertoOcupado:", error)

# %% [markdown]
# Olvidar `set_epoch`: sin él, el muestreador reparte igual en todas las épocas.

# %%
muestreador = DistributedSampler(range(12), num_replicas=2, rank=0, shuffle=True, seed=0)
print("Sin set_epoch:", [list(muestreador)[:4] for _ in range(3)])
con_epoca = []
for epoca in range(3):
    muestreador.set_epoch(epoca)
    con_epoca.append(list(muestreador)[:4])
print("Con set_epoch:", con_epoca)

# %% [markdown]
# Un proceso colgado: `ejecutar` espera como mucho `timeout_s` y después para a todos, también a
# los que el proceso arrancó en otra sesión. El apéndice (lección 99, «no perder nada») lo provoca
# de verdad, junto con un corte a mitad de guardar, un checkpoint dañado y dos entrenamientos en la
# misma carpeta.

# %% [markdown]
# ## Retos
#
# 1. Añade al guion un `dist.all_reduce` de la pérdida para que el rango 0 imprima la media de
#    todos (pista: `distribuido.promediar`).
# 2. Calcula con `tiempo_allreduce` cuántos milisegundos de cálculo por paso necesita un modelo de
#    7 000 millones de parámetros en fp16 para escalar al 90 % en 8×H100. ¿Y en 8×T4?
# 3. Lanza `entrenar_ddp` con `--simular-fallo 2` pero **sin** `--max-restarts`. ¿Qué código de
#    salida da? ¿Qué queda en la carpeta de checkpoints?
# 4. En Kaggle con 2×T4, mide el tiempo por época de `CNNPequena(canales=(64, 128), ocultas=256)`
#    con 1 y con 2 procesos. ¿Cuánto se acerca a 2×?
#
# ## Glosario
#
# - **Paralelismo de datos**: cada proceso tiene el modelo entero y un trozo distinto de los datos.
# - **Rango (*rank*)**: el número de un proceso en el grupo, de 0 a N−1. El 0 es el principal.
# - **Rango local (`LOCAL_RANK`)**: el número del proceso dentro de su máquina; dice qué GPU usa.
# - **Tamaño del mundo (`WORLD_SIZE`)**: cuántos procesos hay en total.
# - **All-reduce**: operación colectiva que suma (o promedia) un tensor entre todos y deja el
#   resultado en todos.
# - **DDP (`DistributedDataParallel`)**: envuelve el modelo y promedia los gradientes en `backward`.
# - **`DistributedSampler`**: reparte los índices del conjunto entre los rangos; `set_epoch` cambia el reparto.
# - **Backend**: la biblioteca que comunica: `nccl` (GPU NVIDIA) o `gloo` (CPU).
# - **`torchrun`**: el lanzador de PyTorch; arranca los procesos, pone sus variables de entorno y
#   los reinicia si fallan (`--max-restarts`).
# - **Rendezvous (reunión)**: el punto donde los procesos se encuentran (`c10d`, dirección y puerto).
# - **PCIe / NVLink**: las conexiones entre GPU: PCIe es la general; NVLink, mucho más rápida, la de NVIDIA.
# - **FSDP**: reparte también los pesos y el estado del optimizador, para modelos que no caben en una GPU.

# %%
# Comprobación final: DDP da el mismo modelo con 1 o 2 nodos y tras un fallo, sin dejar procesos vivos.
# Ejecútala tras cambiar algo: si deja de ser cierto, falla y dice qué.
assert len(huellas) == 2 and len(set(huellas)) == 1  # las copias de los 2 rangos acaban idénticas
assert diferencia < 1e-5, diferencia  # 2 procesos × lote 16 ≈ 1 proceso × lote 32
assert "Simulo un fallo en la época 2" in fallo.salida and "Reanudo desde checkpoint_epoca_000001.pt" in fallo.salida
assert sorted(p.name for p in ck.iterdir()) == [f"checkpoint_epoca_{e:06d}.pt" for e in (1, 2, 3)]
assert all(torch.equal(tras_fallo[k], sin_fallo[k]) for k in sin_fallo)  # el fallo no cambió nada
assert all(torch.equal(dos_nodos[k], sin_fallo[k]) for k in sin_fallo)  # 2 nodos = 1 nodo con 2 procesos
assert dos.bien and fallo.bien and nodo0.bien and nodo1.bien
assert not [pid for e in (dos, fallo, nodo0, nodo1) for pid in e.procesos if sigue_vivo(pid)]  # ningún huérfano
print("Comprobado: DDP con torchrun da el mismo modelo con 1 o 2 nodos, tras un fallo, y sin procesos vivos.")
CARPETA_TEMPORAL.cleanup()  # el guion, los pesos, los checkpoints y los registros de esta lección
