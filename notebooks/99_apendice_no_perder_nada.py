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
# [![Abrir en Colab](https://colab.research.google.com/assets/colab-badge.svg)](https://colab.research.google.com/github/curso-gpu/curso_gpu/blob/main/notebooks/99_apendice_no_perder_nada.ipynb)
#
# # Lección 99 — Apéndice: no perder nada

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
# - Por qué un archivo escrito **a medias** es peor que no tener ninguno, y cómo lo evita escribir
#   de forma **atómica**: primero en un archivo temporal, luego renombrarlo de una vez.
# - Cómo una **suma SHA-256** descubre un checkpoint dañado **antes** de cargarlo.
# - Por qué un **candado** impide que dos entrenamientos escriban en la misma carpeta.
# - Cómo se para un proceso colgado sin dejar procesos huérfanos.
#
# ## Por qué importa
#
# Las lecciones 02, 05 y 08 enseñan lo que necesitas: **guarda a menudo, de forma atómica, y
# reanuda** desde el último checkpoint. Este apéndice mira por dentro cómo el paquete del curso
# se asegura de que eso sea verdad: provoca cada fallo a propósito y enseña qué queda. No hace
# falta para seguir el curso; léelo cuando quieras saber qué pasa si se corta la luz a mitad de
# guardar.
#
# Todo corre en la CPU, en unos segundos, dentro de una carpeta temporal que se borra al final.

# %%
import io
import tempfile
from pathlib import Path

import torch
from torch import nn

CARPETA_TEMPORAL = tempfile.TemporaryDirectory(prefix="apendice_")  # se borra al final
CARPETA = Path(CARPETA_TEMPORAL.name)
torch.manual_seed(0)
print("PyTorch", torch.__version__)

# %% [markdown]
# ## 1. A medias frente a atómico
#
# `torch.save(estado, "checkpoint.pt")` abre el archivo, **lo vacía** y escribe. Si el proceso
# muere a mitad (Colab se desconecta, se acaba la memoria, alguien pulsa «Detener»), queda un
# archivo a medias: el checkpoint bueno de antes ya no está y el nuevo no sirve.
#
# Simulamos el corte con una excepción a mitad de escribir. Primero, a la brava:

# %%
class Corte(Exception):
    """Hace de «se cortó la luz a mitad de guardar»."""


estado = {"pesos": torch.randn(200, 100)}


def escribir_a_medias(archivo):
    datos = io.BytesIO()
    torch.save(estado, datos)
    archivo.write(datos.getvalue()[: len(datos.getvalue()) // 2])  # la mitad...
    raise Corte("se cortó la luz a mitad de guardar")


directo = CARPETA / "directo.pt"
torch.save({"pesos": torch.zeros(3)}, directo)  # el checkpoint bueno de antes
try:
    with open(directo, "wb") as archivo:  # como torch.save: vacía el archivo y escribe
        escribir_a_medias(archivo)
except Corte as error:
    print("¡Ay!", error)
try:
    torch.load(directo, weights_only=True)
except Exception as error:  # el de antes se perdió, y el nuevo está roto
    print(f"Al cargarlo: {type(error).__name__}. El checkpoint bueno de antes ya no existe.")

# %% [markdown]
# Ahora, de forma atómica: se escribe en un temporal con un nombre único junto al destino y,
# solo si todo fue bien, `os.replace` lo renombra. Renombrar es atómico: o pasa entero o no pasa.
# `escribir_atomico` del paquete hace eso (y borra el temporal si algo falla):

# %%
from curso_gpu.guardado import escribir_atomico

atomico = CARPETA / "atomico.pt"
torch.save({"pesos": torch.zeros(3)}, atomico)  # el checkpoint bueno de antes
try:
    escribir_atomico(atomico, escribir_a_medias)
except Corte as error:
    print("¡Ay!", error)
print("Al cargarlo:", torch.load(atomico, weights_only=True)["pesos"], "← el de antes, entero")
print("En la carpeta:", sorted(p.name for p in CARPETA.iterdir()), "(ningún temporal)")

# %% [markdown]
# ## 2. La suma SHA-256: un byte cambiado se nota
#
# Un disco o una copia que fallan pueden cambiar un solo byte: el archivo se carga, pero con un
# número distinto. `guardar_pesos` guarda, junto a los pesos, su **suma SHA-256** (una huella de
# 64 cifras hexadecimales que cambia por completo si cambia un solo bit). `cargar_pesos` la
# comprueba **antes** de tocar tu modelo. Cambiamos un byte del medio a propósito (con una capa de
# 256 × 256, el medio del archivo son pesos; en un archivo diminuto podría caer en el relleno del
# formato, que no es ningún número):

# %%
from curso_gpu.guardado import CheckpointDanado, cargar_pesos, guardar_pesos

modelo = nn.Linear(256, 256)
ruta = guardar_pesos(modelo, CARPETA / "pesos.pt")
contenido = bytearray(ruta.read_bytes())
contenido[len(contenido) // 2] ^= 0xFF  # un byte del medio, cambiado
ruta.write_bytes(bytes(contenido))

otro = nn.Linear(256, 256)
antes = {k: v.clone() for k, v in otro.state_dict().items()}
try:
    cargar_pesos(ruta, otro)
except CheckpointDanado as error:
    print("CheckpointDanado:", str(error).splitlines()[0])
print("¿Tu modelo sigue como estaba?", all(torch.equal(antes[k], v) for k, v in otro.state_dict().items()))

# %% [markdown]
# ## 3. El candado: un solo entrenamiento por carpeta
#
# Si lanzas dos veces la misma celda de entrenamiento (o dos notebooks con la misma carpeta de
# checkpoints), los dos escribirían `checkpoint_epoca_...` a la vez. La carpeta de checkpoints
# del curso lleva un **candado**: un archivo `.entrenando.lock` con el número de proceso de quien
# entrena, bloqueado por el sistema operativo (que lo suelta solo si el proceso muere). El segundo
# que llega se niega y dice quién lo tiene:

# %%
from curso_gpu.guardado import Candado, CarpetaOcupada

carpeta_ck = CARPETA / "checkpoints"
with Candado(carpeta_ck):  # el primer entrenamiento
    try:
        Candado(carpeta_ck).tomar()  # el segundo, en la misma carpeta
    except CarpetaOcupada as error:
        print("CarpetaOcupada:", str(error).split(". ")[0] + ".")
with Candado(carpeta_ck):  # el primero terminó: ahora sí
    print("Libre: el siguiente entrenamiento lo toma.")

# %% [markdown]
# ## 4. Un proceso colgado, parado sin dejar huérfanos
#
# Con varios procesos (lección 08), uno puede quedarse colgado para siempre: esperando a otro que
# murió, o en un bucle. `ejecutar` del paquete espera como mucho `timeout_s` y después para a
# todos, también a los que el proceso arrancó en otra sesión (como hace `torchrun` con sus
# trabajadores). Un programa que arranca un «nieto» y se queda dormido:

# %%
import sys

from curso_gpu.distribuido import ejecutar, sigue_vivo

colgado = ("import subprocess, sys, time; "
           "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'], start_new_session=True); "
           "time.sleep(60)")
(r,) = ejecutar([sys.executable, "-c", colgado], timeout_s=1)
print(r.explicacion())
print("¿Queda alguno vivo?", any(sigue_vivo(pid) for pid in r.procesos))

# %% [markdown]
# ## Qué debes recordar
#
# - **A medias es peor que nada**: escribe en un temporal y renómbralo (`os.replace`).
# - Una **suma SHA-256** junto a los pesos descubre un archivo dañado antes de usarlo.
# - Un **candado** por carpeta: dos entrenamientos en la misma carpeta se pisarían.
# - Con varios procesos, pon siempre un **tiempo máximo** y para a todos al terminar.
#
# ## Retos
#
# 1. En la sección 1, cambia `// 2` por `// 10` (se corta antes). ¿Cambia algo en el archivo de
#    la forma atómica?
# 2. En la sección 2, cambia el último byte en vez del del medio. ¿Lo descubre igual la suma?
# 3. Calcula tú la suma de un archivo con `hashlib.sha256(ruta.read_bytes()).hexdigest()` y
#    compárala antes y después de cambiar un byte.
#
# ## Glosario
#
# - **Atómico**: que pasa entero o no pasa; nunca a medias.
# - **`os.replace`**: renombra un archivo, reemplazando el destino de una vez (atómico en el mismo disco).
# - **SHA-256**: una función que da una huella de 256 bits de unos datos; cambia por completo si cambia un bit.
# - **Candado** (*lock file*): un archivo que dice «esta carpeta está en uso» mientras alguien la usa.
# - **Proceso huérfano**: uno que sigue vivo después de que su padre terminó.

# %%
# Comprobación final: escribir de forma atómica conserva el archivo de antes, la suma descubre un
# byte cambiado, el candado niega una segunda escritora y no queda ningún proceso vivo.
# Ejecútala tras cambiar algo: si deja de ser cierto, falla y dice qué.
assert torch.equal(torch.load(atomico, weights_only=True)["pesos"], torch.zeros(3))
assert all(torch.equal(antes[k], v) for k, v in otro.state_dict().items())
assert not any(sigue_vivo(pid) for pid in r.procesos)
print("Comprobado: atómico, suma SHA-256, candado y sin huérfanos.")
CARPETA_TEMPORAL.cleanup()
