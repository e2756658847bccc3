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
# [![Abrir en Colab](https://colab.research.google.com/assets/colab-badge.svg)](https://colab.research.google.com/github/curso-gpu/curso_gpu/blob/main/notebooks/05_entrenamiento_portable.ipynb)
#
# # Lección 05 — Entrenamiento portable en CPU y GPU

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
# - El **flujo típico** con GPU: detectar, elegir el dispositivo, mover el modelo, mover los
#   datos y entrenar como siempre.
# - Ese mismo flujo en un problema tabular pequeño y, después, en una CNN de imágenes.
# - A entrenar en el dispositivo elegido con barra de progreso y métricas, y a dibujar las curvas.
# - A evaluar con `model.eval()` y `torch.no_grad()`, y por qué la GPU **no cambia** la lógica del aprendizaje.
# - A dibujar una línea en una cuadrícula de 8×8 y pedirle al modelo qué es.
# - Los **cinco errores comunes** al usar GPU, provocados de verdad y arreglados.
# - Cuándo compensa la GPU y cuándo no: un modelo pequeño frente a uno más grande.
# - A guardar **checkpoints** en Google Drive y seguir entrenando tras una desconexión de Colab.
#
# ## Por qué importa
#
# En las lecciones anteriores viste qué es una GPU, cómo conseguir una y cómo medirla.
# Ahora toca lo que harás siempre: entrenar un modelo con código que funciona **igual** en
# tu computadora portátil sin GPU, en una T4 de Colab o en un Mac. Si aprendes bien este patrón, lo
# reutilizarás en cualquier proyecto.
#
# No necesitas una GPU: todo corre en CPU en un minuto o dos (más si la CPU está ocupada con
# otros programas), y donde la GPU cambia algo, la celda te dice qué verías en una T4.

# %%
import torch
from torch import nn

from curso_gpu import graficos
from curso_gpu.base import mensajes_torch
from curso_gpu.guardado import cargar_pesos, carpeta_checkpoints, guardar_pesos
from curso_gpu.entrenamiento import NOMBRES_CLASES, generar_dataset, generar_datos_tabulares, lineas_dibujadas
from curso_gpu.dispositivo import elegir_dispositivo, simulacion_activa
from curso_gpu.entrenamiento import entrenar, evaluar, predecir
from curso_gpu.entrenamiento import CNNPequena, MLPTabular, contar_parametros_entrenables
from curso_gpu.base import formatear_numero
from curso_gpu.interactivo import pizarra, selector_dispositivo

print("PyTorch", torch.__version__)

# %% [markdown]
# ## La idea clave: el flujo típico
#
# Usar una GPU en PyTorch son cinco pasos, siempre los mismos:
#
# 1. **Detectar** si hay GPU: `torch.cuda.is_available()`.
# 2. **Elegir** el dispositivo: `device = torch.device("cuda" if torch.cuda.is_available() else "cpu")`.
# 3. **Mover el modelo**: `modelo = modelo.to(device)`.
# 4. **Mover los datos**: `X = X.to(device)` y `y = y.to(device)`.
# 5. **Entrenar** como siempre: la pérdida, el optimizador y *backpropagation* no cambian.
#
# La regla que evita casi todos los errores: **el modelo y los tensores que usa deben
# estar en el mismo dispositivo**.

# %%
# Pasos 1 y 2, en PyTorch puro: esta línea hace el código portable.
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print("¿Hay GPU con CUDA?", torch.cuda.is_available())
print("Dispositivo:", device)

# %% [markdown]
# El paquete del curso tiene la versión completa: `elegir_dispositivo()` también reconoce
# la GPU de un Mac (`mps`) y la variable de entorno `CURSO_GPU_DISPOSITIVO`.
#
# Una aplicación de escritorio preguntaría con un cuadro de diálogo «¿Deseas usar la GPU?».
# En un notebook un cuadro así bloquearía la ejecución, así que usamos unos botones: solo aparecen si hay
# GPU, y ya traen la GPU elegida. Si cambias la elección, vuelve a ejecutar las celdas
# siguientes.

# %%
selector = selector_dispositivo()

# %%
dispositivo = selector.dispositivo
print("Vamos a entrenar en:", dispositivo)

# %% [markdown]
# ## Paso a paso
#
# ### 1. Calentamiento: un problema tabular con una red pequeña
#
# No hace falta un modelo gigante para aprender a usar la GPU. Empezamos con datos
# tabulares: cada fila tiene dos números (las coordenadas de un punto) y la etiqueta dice
# si el punto cae dentro de un círculo (1) o fuera (0). Es una **clasificación binaria**.

# %%
torch.manual_seed(0)
X_tab, y_tab = generar_datos_tabulares(600, semilla=1)
print("X:", tuple(X_tab.shape), X_tab.dtype, "· y:", tuple(y_tab.shape), "· proporción de unos:", round(y_tab.mean().item(), 2))
print(X_tab[:3])

# %% [markdown]
# Ahora los cinco pasos, en PyTorch puro. Fíjate en las dos líneas con `.to(dispositivo)`:
# es **todo** lo que cambia respecto a entrenar en CPU.

# %%
red = MLPTabular(entradas=2, ocultas=16).to(dispositivo)   # paso 3: el modelo
X_d, y_d = X_tab.to(dispositivo), y_tab.to(dispositivo)     # paso 4: los datos
criterio_binario = nn.BCEWithLogitsLoss()
optimizador = torch.optim.Adam(red.parameters(), lr=0.02)

for epoca in range(1, 201):                                  # paso 5: entrenar como siempre
    logits = red(X_d)
    perdida = criterio_binario(logits, y_d)
    optimizador.zero_grad()
    perdida.backward()
    optimizador.step()
    if epoca == 1 or epoca % 50 == 0:
        acierto = ((logits > 0).float() == y_d).float().mean()
        print(f"época {epoca:3d}: pérdida {perdida.item():.4f} · accuracy {acierto.item():.3f}")

# %% [markdown]
# El mismo patrón sirve para cualquier modelo. Ahora lo aplicamos a la aplicación final
# de la lección: una CNN que reconoce líneas dibujadas.
#
# ### 2. Los datos: líneas de 8×8
#
# Cada imagen es una cuadrícula de 8×8 con una línea **vertical**, **horizontal** u
# **oblicua**, más un poco de ruido (`0.10 · U(0, 1)`, recortado a [0, 1]).
# `generar_dataset(n_por_clase)` devuelve `X` con forma `[N, 1, 8, 8]` (un canal, como una
# imagen en escala de grises) e `y` con la clase (0, 1 o 2).
#
# Hay dos recetas:
#
# - `receta="semilla"`: la más sencilla. Solo columnas y filas de la 1 a la 6 y las dos
#   diagonales principales.
# - `receta="variada"` (por defecto): también líneas en los bordes, más cortas, con huecos
#   y diagonales desplazadas. Es lo que de verdad dibuja una persona.

# %%
X_ent, y_ent = generar_dataset(120, semilla=1)   # 360 imágenes de entrenamiento
X_val, y_val = generar_dataset(60, semilla=2)    # 180 de validación
print("X_ent:", tuple(X_ent.shape), X_ent.dtype, "· y_ent:", tuple(y_ent.shape), y_ent.dtype)
print("Clases:", dict(enumerate(NOMBRES_CLASES)))
print(f"Valores entre {X_ent.min().item():.2f} y {X_ent.max().item():.2f} (0 = celda en blanco, 1 = trazo)")

# %%
graficos.muestras_por_clase(X_ent, y_ent, por_clase=6, titulo="Receta «variada» (por defecto)");

# %%
X_sem, y_sem = generar_dataset(120, semilla=1, receta="semilla")
graficos.muestras_por_clase(X_sem, y_sem, por_clase=6, titulo="Receta «semilla» (la más sencilla)");

# %% [markdown]
# ### 3. El modelo: una CNN pequeña
#
# Una arquitectura clásica en miniatura:
#
# | capa | entrada → salida | forma tras la capa |
# |---|---|---|
# | `conv1` 3×3, *padding* 1 + ReLU + *max-pool* 2 | 1 → 8 canales | `[N, 8, 4, 4]` |
# | `conv2` 3×3, *padding* 1 + ReLU + *max-pool* 2 | 8 → 16 canales | `[N, 16, 2, 2]` |
# | aplanar | | `[N, 64]` |
# | `fc1` + ReLU | 64 → 16 | `[N, 16]` |
# | `fc2` | 16 → 3 | `[N, 3]` (un *logit* por clase) |

# %%
torch.manual_seed(24)  # una semilla fija: los mismos pesos iniciales en cada ejecución
modelo = CNNPequena()
print(modelo)
print("Parámetros entrenables:", contar_parametros_entrenables(modelo))
print("Salida para 2 imágenes:", tuple(modelo(X_ent[:2]).shape))

# %% [markdown]
# ### 4. Entrenar en el dispositivo elegido, primero a mano
#
# El bucle de la CNN es el mismo del calentamiento tabular: modelo y datos al dispositivo
# **una sola vez**, y en cada época un paso de Adam (`lr=0.01`) con todo el conjunto. Esta
# vez la pérdida es `CrossEntropyLoss` (tres clases). Lo escribimos a mano una vez:

# %%
torch.manual_seed(24)                                        # los mismos pesos iniciales que `modelo`
cnn_a_mano = CNNPequena().to(dispositivo)                    # paso 3: el modelo
X_ent_d, y_ent_d = X_ent.to(dispositivo), y_ent.to(dispositivo)  # paso 4: los datos, una vez
criterio = nn.CrossEntropyLoss()
optimizador = torch.optim.Adam(cnn_a_mano.parameters(), lr=0.01)

for epoca in range(1, 121):                                  # paso 5: entrenar
    cnn_a_mano.train()
    perdida = criterio(cnn_a_mano(X_ent_d), y_ent_d)
    optimizador.zero_grad()
    perdida.backward()
    optimizador.step()
    if epoca == 1 or epoca % 40 == 0:                        # .item() espera a la GPU: solo a veces
        print(f"época {epoca:3d}: pérdida de entrenamiento {perdida.item():.4f}")

# %% [markdown]
# `entrenar(...)` hace exactamente esto por ti (pasos 3 a 5), y además mide la validación. En la época 1 y cada 10 mide la pérdida y la *accuracy* de
# entrenamiento y de validación. Entre esos puntos no le pide ningún número a la GPU
# (nada de `.item()`), así la GPU nunca espera a Python.
#
# La barra avanza en cada época; `al_registrar` recibe las métricas en cada punto de
# registro (aquí las imprimimos).

# %%
def mostrar(registro):
    print(f"época {registro.epoca:3d}/{registro.epocas_totales}: pérdida ent. {registro.perdida_entrenamiento:.4f} · "
          f"pérdida val. {registro.perdida_validacion:.4f} · acc. val. {registro.accuracy_validacion:.3f}")


historial = entrenar(modelo, (X_ent, y_ent), (X_val, y_val), dispositivo, epocas=120, lr=0.01,
                     al_registrar=mostrar)

# %%
historial

# %% [markdown]
# ¿Hace `entrenar` lo mismo que nuestro bucle? Partieron de los mismos pesos (semilla 24),
# con los mismos datos y el mismo optimizador: los pesos finales deben coincidir (en una GPU,
# hasta los últimos decimales, porque la GPU puede sumar en otro orden).

# %%
iguales = all(torch.allclose(p_mano, p_entrenar, atol=1e-5)
              for p_mano, p_entrenar in zip(cnn_a_mano.parameters(), modelo.parameters()))
print("¿Los mismos pesos que el bucle a mano?", "sí" if iguales else "no")

# %% [markdown]
# ### 5. Las curvas
#
# La pérdida baja y la *accuracy* sube hasta casi 1. Si la curva de validación se separara
# mucho de la de entrenamiento, el modelo estaría memorizando (*sobreajuste*).

# %%
graficos.curvas_entrenamiento(historial);

# %% [markdown]
# La pérdida va en escala logarítmica (cada marca, diez veces menos): baja de 1.1 a unas
# milésimas, y en escala normal todo lo que pasa tras la época 30 parecería una línea en cero.
# Entrenamiento y validación van juntas hasta la época 20 porque salen del mismo generador: las
# mismas tres clases de líneas con el mismo tipo de ruido, así que lo que el modelo aprende de unas
# imágenes vale para las otras. Después se separan: la de entrenamiento sigue bajando y la de
# validación se queda en unas milésimas. El modelo ya acierta todo (accuracy 1.0 en las dos) y solo
# gana confianza en las imágenes que ve al entrenar; como la accuracy de validación no baja, no es
# un sobreajuste que haga daño.

# %% [markdown]
# ### 6. Evaluar: `eval()` y `no_grad()`
#
# Para evaluar se usa el mismo patrón que ya conoces:
#
# - `modelo.eval()`: pone capas como *dropout* o *batch norm* en modo de evaluación.
# - `torch.no_grad()`: no guarda lo necesario para los gradientes (menos memoria, más rápido).
#
# En la GPU, lo único que cambia es **dónde** se hace el cálculo.

# %%
modelo.eval()
with torch.no_grad():
    logits_val = modelo(X_val.to(dispositivo))
    perdida_val = nn.functional.cross_entropy(logits_val, y_val.to(dispositivo))
    acc_val = (logits_val.argmax(dim=1) == y_val.to(dispositivo)).float().mean()
print(f"A mano:        pérdida {perdida_val.item():.4f} · accuracy {acc_val.item():.3f}")
print("Con evaluar(): pérdida {:.4f} · accuracy {:.3f}".format(*evaluar(modelo, X_val, y_val, dispositivo)))

# %% [markdown]
# **La GPU no cambia la lógica del aprendizaje.** La pérdida es la misma, Adam es el mismo
# y *backpropagation* calcula los mismos gradientes. Cambia el hardware que hace las
# cuentas y, por tanto, la velocidad. Los números pueden diferir en los últimos decimales,
# porque la GPU suma en otro orden, pero el modelo aprende lo mismo.

# %%
if dispositivo.type != "cpu":
    torch.manual_seed(24)
    en_cpu = CNNPequena()
    h_cpu = entrenar(en_cpu, (X_ent, y_ent), (X_val, y_val), "cpu", epocas=120, silencioso=True)
    print(f"CPU:            acc. val. {h_cpu.final.accuracy_validacion:.3f} · pérdida val. {h_cpu.final.perdida_validacion:.5f}")
    print(f"{str(dispositivo):<15} acc. val. {historial.final.accuracy_validacion:.3f} · pérdida val. {historial.final.perdida_validacion:.5f}")
else:
    print("Estás en CPU. En una T4 verías casi los mismos números: la misma accuracy y una "
          "pérdida que solo cambia en los últimos decimales.")

# %% [markdown]
# ### 7. ¿Por qué importa la receta de los datos?
#
# Un modelo solo aprende lo que ve. Vamos a probar dos modelos con 35 líneas «dibujadas a
# mano»: en los bordes, cortas, con huecos y diagonales desplazadas (sin ruido, como las
# de la cuadrícula). Uno se entrena con la receta «semilla» y el otro con la variada.

# %%
X_mano, y_mano = lineas_dibujadas()
graficos.muestras_por_clase(X_mano, y_mano, por_clase=8,
                            titulo=f"Líneas dibujadas a mano (para probar): 8 de cada clase, de las {len(X_mano)}");

# %%
torch.manual_seed(24)
modelo_semilla = CNNPequena()
entrenar(modelo_semilla, (X_sem, y_sem), generar_dataset(60, semilla=2, receta="semilla"), dispositivo,
         silencioso=True)
_, acc_semilla = evaluar(modelo_semilla, X_mano, y_mano, dispositivo)
_, acc_variada = evaluar(modelo, X_mano, y_mano, dispositivo)
print(f"Accuracy en las líneas dibujadas a mano:")
print(f"  entrenado con la receta «semilla»: {formatear_numero(100 * acc_semilla, 1, '%')}")
print(f"  entrenado con la receta «variada»: {formatear_numero(100 * acc_variada, 1, '%')}")

# %% [markdown]
# ¿Cuáles falla cada uno? Los dibujos mal clasificados, enmarcados en rojo, con lo que eran y lo
# que dijo el modelo:

# %%
with torch.no_grad():
    predichas = {
        "receta «semilla»": modelo_semilla.eval()(X_mano.to(dispositivo)).argmax(dim=1).cpu(),
        "receta «variada»": modelo.eval()(X_mano.to(dispositivo)).argmax(dim=1).cpu(),
    }
graficos.dibujos_fallados(X_mano, y_mano, predichas);

# %% [markdown]
# Los dos modelos sacan casi un 100 % en su propia validación, pero el de la receta
# «semilla» falla más con lo que dibuja una persona: nunca vio una línea en el borde ni
# una diagonal desplazada. **Una validación buena no sirve si los datos de validación no se
# parecen a los de verdad.** Por eso la pizarra usa el modelo de la receta variada.
#
# ### 8. La pizarra: dibuja una línea
#
# La cuadrícula se crea desactivada y se activa cuando termina el entrenamiento: así nadie
# pide una predicción a un modelo a medio entrenar. Haz clic en las celdas para pintarlas (otro clic las borra) y pulsa
# «Predecir». «Limpiar» vacía la cuadrícula.

# %%
tablero = pizarra()
tablero

# %%
tablero.habilitar(modelo, dispositivo)  # el entrenamiento ya terminó: ahora sí

# %% [markdown]
# Para que veas el resultado sin hacer clic, esta celda «dibuja» una línea vertical en la
# columna 2 con las mismas funciones que usan los clics, y pide la predicción. Mira la
# cuadrícula de arriba: la línea aparece allí.

# %%
for fila in range(8):
    tablero.pintar(fila, 2)
print(tablero.predecir())

# %% [markdown]
# Por dentro, `predecir(modelo, imagen_8x8, dispositivo)` convierte la cuadrícula en un
# tensor `[1, 1, 8, 8]` **en el mismo dispositivo que el modelo**, aplica `softmax` a los
# *logits* y devuelve la clase y las tres probabilidades. También la puedes llamar tú:

# %%
diagonal = torch.eye(8).flip(1)  # la diagonal secundaria
predecir(modelo, diagonal, dispositivo)

# %% [markdown]
# ### 9. Laboratorio: los cinco errores comunes
#
# Cada error se provoca **de verdad** y después se arregla. Con GPU usamos `cuda`; sin GPU
# usamos el dispositivo `meta` de PyTorch, que es un dispositivo de verdad distinto de la
# CPU (sus tensores tienen forma pero no datos). El error es del mismo tipo, pero PyTorch lo
# escribe con otras palabras: debajo te enseñamos también el texto exacto que verías en una GPU.
# La T4 simulada (`CURSO_GPU_SIMULAR=T4`) cuenta como GPU: sus tensores de `cuda` viven en la
# CPU, pero se niega a mezclarlos con los de la CPU con el mismo texto que una T4.

# %%
otro = torch.device("cuda") if torch.cuda.is_available() else torch.device("meta")
print("Dispositivo «distinto de la CPU» para el laboratorio:", otro)


def provocar(titulo, funcion):
    """Ejecuta funcion() y muestra el error que da, si lo da."""
    try:
        resultado = funcion()
    except Exception as error:
        print(f"{titulo}\n  → {type(error).__name__}: {str(error).splitlines()[0]}")
    else:
        print(f"{titulo}\n  → sin error: {resultado}")


# %% [markdown]
# **Error 1: olvidar mover el modelo al mismo dispositivo que los datos.** Los datos están en
# `otro`, pero el modelo se quedó en la CPU.

# %%
modelo_cpu = CNNPequena()                # se nos olvidó .to(otro)
X_otro = X_val[:4].to(otro)
provocar("Modelo en cpu, datos en " + str(otro), lambda: modelo_cpu(X_otro))
provocar("Arreglado: modelo.to(otro)", lambda: tuple(modelo_cpu.to(otro)(X_otro).shape))
if otro.type == "meta":
    print("\nEn una GPU el error sería:\n  → RuntimeError:", mensajes_torch.MEZCLA_CONVOLUCION_MODELO_EN_CPU)
    print("Y al revés (modelo en la GPU, datos en la CPU):\n  → RuntimeError:", mensajes_torch.MEZCLA_CONVOLUCION)

# %% [markdown]
# Dentro del paquete, `evaluar` y `predecir` comprueban el dispositivo antes de calcular y
# te dicen dónde está cada cosa y cómo arreglarlo:

# %%
provocar("evaluar() con el modelo en " + str(otro), lambda: evaluar(modelo_cpu, X_val, y_val, "cpu"))

# %% [markdown]
# **Error 2: mezclar tensores en CPU con tensores en GPU.** Una suma entre un tensor de la
# CPU y uno del otro dispositivo.

# %%
a = torch.ones(3)
b = torch.ones(3, device=otro)
provocar("cpu + " + str(otro), lambda: a + b)
if otro.type == "meta":
    print("En una GPU:\n  → RuntimeError:", mensajes_torch.MEZCLA_SUMA)
provocar("Arreglado: a.to(b.device) + b", lambda: (a.to(b.device) + b).device)

# %% [markdown]
# **Error 3: suponer que la GPU siempre acelera cualquier ejemplo por igual.** Con 360
# imágenes de 8×8 y 2 339 parámetros hay muy poco trabajo que repartir: lanzar cada
# operación en la GPU cuesta unos microsegundos fijos que aquí pesan tanto como el cálculo.
# Lo medimos de verdad en la sección 10.
#
# **Error 4: no comprobar si CUDA está disponible antes de usarla.** Pedir `"cuda"` a ciegas:

# %%
provocar('torch.zeros(3, device="cuda") sin comprobar', lambda: torch.zeros(3, device="cuda").device)
provocar("Arreglado: elegir_dispositivo()", lambda: torch.zeros(3, device=elegir_dispositivo()).device)

# %% [markdown]
# En una máquina con GPU la primera línea funciona, y por eso el error pasa desapercibido
# hasta que alguien ejecuta tu notebook sin GPU. Sin GPU, según tu PyTorch:

# %%
print("PyTorch solo para CPU:          AssertionError:", mensajes_torch.SIN_CUDA_COMPILADA)
print("PyTorch con CUDA y sin driver:  RuntimeError:", mensajes_torch.SIN_DRIVER)

# %% [markdown]
# El segundo es el de Colab con un entorno de ejecución sin GPU: su PyTorch trae CUDA, pero
# la máquina no tiene GPU ni driver de NVIDIA.
#
#
# **Error 5: crear tensores nuevos durante el flujo sin moverlos al dispositivo.** Aquí las
# etiquetas se crean «sobre la marcha» con `torch.tensor(...)`, que las deja en la CPU.

# %%
modelo_otro = CNNPequena().to(otro)
logits_otro = modelo_otro(X_val[:4].to(otro))
etiquetas_nuevas = torch.tensor([0, 1, 2, 0])  # ¡nace en la CPU!
provocar("cross_entropy(logits en " + str(otro) + ", etiquetas en cpu)",
         lambda: nn.functional.cross_entropy(logits_otro, etiquetas_nuevas))
etiquetas_bien = torch.tensor([0, 1, 2, 0], device=logits_otro.device)
provocar("Arreglado: torch.tensor(..., device=logits.device)",
         lambda: nn.functional.cross_entropy(logits_otro, etiquetas_bien).device)

# %% [markdown]
# ### 10. CPU frente a GPU: ¿cuándo compensa?
#
# La diferencia se nota más cuando el modelo es más grande, hay más datos, el lote es más
# grande y hay muchas convoluciones o multiplicaciones de matrices. Medimos el tiempo por
# época de dos modelos:
#
# - el pequeño de la lección (2 339 parámetros, 360 imágenes);
# - uno ampliado: la misma forma con 16 veces más canales (64 y 128) y 256 neuronas ocultas
#   (unos 200 000 parámetros), con 1 200 imágenes.
#
# `entrenar` sincroniza con la GPU antes de parar el reloj, así que el tiempo es real.

# %%
def segundos_por_epoca(crear_modelo, datos_ent, datos_val, donde, epocas):
    torch.manual_seed(0)
    h = entrenar(crear_modelo(), datos_ent, datos_val, donde, epocas=epocas, silencioso=True)
    return h.segundos / epocas


def ampliado():
    return CNNPequena(canales=(64, 128), ocultas=256)


grande_ent, grande_val = generar_dataset(400, semilla=5), generar_dataset(40, semilla=6)
print("Parámetros del modelo ampliado:", formatear_numero(contar_parametros_entrenables(ampliado())))
donde = ["cpu"] + ([str(dispositivo)] if dispositivo.type != "cpu" else [])
tiempos = {}
for d in donde:
    calcula_en_la_cpu = d == "cpu" or simulacion_activa()  # la T4 simulada también calcula en la CPU
    tiempos[("pequeño", d)] = segundos_por_epoca(CNNPequena, (X_ent, y_ent), (X_val, y_val), d, 30)
    tiempos[("ampliado", d)] = segundos_por_epoca(ampliado, grande_ent, grande_val, d, 3 if calcula_en_la_cpu else 30)
for (nombre, d), s in tiempos.items():
    simulada = " (T4 simulada: es un tiempo de la CPU)" if d != "cpu" and simulacion_activa() else ""
    print(f"{nombre:<9} en {d:<7}: {1000 * s:8.2f} ms por época{simulada}")
graficos.grafico_tiempos_epoca(tiempos);

# %%
if len(donde) > 1:
    # En la T4 simulada las dos columnas se midieron en esta CPU: ese cociente no es de ninguna GPU.
    en = "en la T4 simulada (medida en esta CPU, no en una GPU)" if simulacion_activa() else f"en {donde[1]}"
    for nombre in ("pequeño", "ampliado"):
        print(f"Aceleración del modelo {nombre} {en}: {tiempos[(nombre, 'cpu')] / tiempos[(nombre, donde[1])]:.1f}x")
else:
    print("Sin GPU solo medimos la CPU. En una T4 de Colab, lo habitual es que el modelo pequeño\n"
          "vaya más o menos igual de rápido que en la CPU (o incluso más lento): casi todo el tiempo\n"
          "se va en lanzar operaciones diminutas. El ampliado, en cambio, suele ir del orden de\n"
          "diez veces más rápido o más. Ábrelo en Colab con GPU T4 y compruébalo tú.")

# %% [markdown]
# ### 11. Checkpoints: que una desconexión de Colab no te cueste el entrenamiento
#
# Colab gratis se desconecta tras un rato de inactividad o al agotar su cuota, y se pierde
# todo lo que había en la máquina. La solución: guardar **checkpoints** (el modelo, el
# optimizador, la época, el historial y el estado de los generadores aleatorios) cada pocas
# épocas en un sitio que sobreviva, como **Google Drive**, y reanudar desde el último.
#
# `carpeta_checkpoints(nombre, cada=10)` elige el sitio y cada cuántas épocas se guarda: por
# defecto, la carpeta local `checkpoints/<nombre>`; con `drive=True` (solo en Colab), además
# Google Drive. Montar Drive pide permisos amplios sobre tu Drive, así que solo se hace si tú
# lo eliges: cambia `GUARDAR_EN_DRIVE` a `True` en Colab. La carpeta lleva sus opciones
# (`cada`, `reanudar`, `conservar`): `entrenar` las lee de ella.

# %%
GUARDAR_EN_DRIVE = False  # en Colab, ponlo a True para que los checkpoints sobrevivan a una desconexión
carpeta = carpeta_checkpoints("cnn_lineas", cada=10, drive=GUARDAR_EN_DRIVE)

# %% [markdown]
# Cada checkpoint se escribe primero en un archivo temporal con un nombre único y después se
# renombra con `os.replace`: o está entero o no está. Lleva además su suma SHA-256: si un
# solo bit cambia (un disco o una copia que fallan), se nota al cargarlo. En Drive, además,
# se escribe en local y luego se copia, porque Drive sincroniza tarde. Se conservan los 3
# últimos. Si el último está dañado, se avisa y se usa el anterior. (El apéndice, lección 99,
# provoca cada uno de esos fallos y enseña qué queda.)
#
# Simulamos una desconexión: el entrenamiento se corta en la época 37 de 60. Como esta
# celda quizá ya la ejecutaste, pedimos empezar de cero con `carpeta.con(reanudar=False)` (la
# misma carpeta con esa opción cambiada): los checkpoints que hubiera **no se borran**, se
# apartan a `anteriores/<fecha>/`.

# %%
class Desconexion(Exception):
    """Hace de «Colab se ha desconectado»."""


def desconectar_en_37(epoca, total):
    if epoca == 37:
        raise Desconexion(f"Colab se desconectó en la época {epoca} de {total}")


torch.manual_seed(24)
antes_del_corte = []  # los puntos de registro (época 1, 10, 20, 30) que se vieron antes del corte
try:
    entrenar(CNNPequena(), (X_ent, y_ent), (X_val, y_val), dispositivo, epocas=60,
             checkpoints=carpeta.con(reanudar=False), al_avanzar=desconectar_en_37, silencioso=True,
             al_registrar=antes_del_corte.append)
except Desconexion as error:
    print("¡Ay!", error)
print("Checkpoints guardados:", [p.name for p in carpeta.archivos()])

# %% [markdown]
# Tras reconectar, se vuelven a ejecutar las celdas de arriba (los datos, el modelo) y la
# misma llamada a `entrenar`, sin cambiar nada. Como la carpeta tiene checkpoints de este
# entrenamiento, **sigue desde el último** (la época 30) y lo anota en `historial.avisos`.
# Es lo normal: no hace falta pedirlo.

# %%
torch.manual_seed(24)
reanudado = CNNPequena()
h_reanudado = entrenar(reanudado, (X_ent, y_ent), (X_val, y_val), dispositivo, epocas=60,
                       checkpoints=carpeta)
print(*h_reanudado.avisos, sep="\n")  # «Reanudo desde…»: entrenar no imprime, lo anota en el historial
print(h_reanudado.final)

# %% [markdown]
# ¿Es el mismo modelo que sin interrupción? En el mismo dispositivo, sí: pesos idénticos,
# número a número (el checkpoint guarda también el estado de Adam y de los generadores
# aleatorios).
#
# Al reanudar, `entrenar` compara lo que pides ahora con lo que guardó el checkpoint (`lr`,
# `tamano_lote`, `epocas`, el modelo, el dispositivo) y te avisa de cada diferencia: usa el
# valor nuevo o, si no tiene arreglo (otro modelo, menos épocas de las ya hechas), se niega y
# te dice qué hacer. Y si lanzas dos entrenamientos en la misma carpeta, el segundo se niega
# y nombra al primero (un candado, `.entrenando.lock`, con su número de proceso).

# %%
torch.manual_seed(24)
seguido = CNNPequena()
h_seguido = entrenar(seguido, (X_ent, y_ent), (X_val, y_val), dispositivo, epocas=60, silencioso=True)
iguales = all(torch.equal(a, b) for a, b in zip(seguido.state_dict().values(), reanudado.state_dict().values()))
print("¿Pesos idénticos al entrenamiento sin cortes?", iguales)

# %% [markdown]
# En una gráfica: la pérdida del entrenamiento cortado (hasta la desconexión) y la del reanudado
# (desde el último checkpoint), encima de la del entrenamiento sin cortes. Caen justo encima:
# no se perdió nada. Lo que se entrenó entre el checkpoint y la desconexión (épocas 31 a 37) sí se
# repite: por eso conviene guardar a menudo.

# %%
desde = h_reanudado.reanudado_desde
reanudado_puntos = [(e, p) for e, p in zip(h_reanudado.epocas_registradas, h_reanudado.perdida_entrenamiento) if e >= desde]
graficos.grafico_reanudacion(
    h_seguido,
    ([r.epoca for r in antes_del_corte], [r.perdida_entrenamiento for r in antes_del_corte]),
    ([e for e, _ in reanudado_puntos], [p for _, p in reanudado_puntos]),
    desconexion=37, reanudado_desde=desde);

# %% [markdown]
# Los checkpoints se cargan con `torch.load(..., weights_only=True, map_location=dispositivo)`:
# `weights_only=True` impide que un archivo ejecute código al cargarse, y `map_location`
# pone los tensores en el dispositivo actual, así que un checkpoint guardado en la T4 de
# Colab se carga en tu computadora portátil sin GPU, y al revés.

# %%
ultimo = carpeta.cargar_ultimo(torch.device("cpu"))
print("Época:", ultimo["epoca"], "· dispositivo de los pesos:", ultimo["modelo"]["conv1.weight"].device)

# %% [markdown]
# Para quedarte solo con el modelo entrenado (sin optimizador ni historial), guarda sus pesos
# con `guardar_pesos`: también llevan su suma SHA-256. `cargar_pesos(ruta, modelo)` la
# comprueba **antes** de tocar el modelo: un archivo con un byte cambiado da `CheckpointDanado`
# y tu modelo queda como estaba.

# %%
ruta_pesos = guardar_pesos(reanudado, carpeta.local.parent / "cnn_lineas_pesos.pt")
copia = CNNPequena()
cargar_pesos(ruta_pesos, copia)  # la copia vive en la CPU; «reanudado», en el dispositivo
print("Pesos cargados de", ruta_pesos.name, "· ¿iguales?",  # se comparan en el mismo dispositivo: .cpu()
      all(torch.equal(a, b.cpu()) for a, b in zip(copia.state_dict().values(), reanudado.state_dict().values())))

# %% [markdown]
# ## Pruébalo
#
# - Dibuja en la pizarra una línea en el borde, una corta y una diagonal desplazada. ¿Acierta?
# - Cambia `tablero.habilitar(modelo, dispositivo)` por `tablero.habilitar(modelo_semilla, dispositivo)`
#   y dibuja las mismas líneas. ¿Cuál falla?
# - En Colab con GPU T4, ejecuta la sección 10 y anota la aceleración de cada modelo.
#
# ## Errores comunes
#
# | error | qué pasa | cómo se arregla |
# |---|---|---|
# | Olvidar mover el modelo (una CNN) | `Input type (torch.cuda.FloatTensor) and weight type (torch.FloatTensor) should be the same` | `modelo.to(dispositivo)` |
# | Olvidar mover los datos (una CNN) | `Input type (torch.FloatTensor) and weight type (torch.cuda.FloatTensor) should be the same` | `datos.to(dispositivo)` |
# | Mezclar tensores de CPU y GPU | `Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!` | `.to(dispositivo)` en los dos |
# | Suponer que la GPU siempre acelera | un modelo diminuto no va más rápido | mide: la GPU gana con modelos y lotes grandes |
# | Usar `"cuda"` sin comprobar | `Torch not compiled with CUDA enabled` o `Found no NVIDIA driver on your system` | `torch.cuda.is_available()` o `elegir_dispositivo()` |
# | Crear tensores nuevos en la CPU | el mismo error de dispositivos, a mitad del bucle | `torch.tensor(..., device=dispositivo)` |
# | Volver a ejecutar la celda de entrenar queriendo empezar de cero | sigue desde el último checkpoint | `carpeta_checkpoints(..., reanudar=False)` o `carpeta.con(reanudar=False)` (los viejos van a `anteriores/`) |
# | Un `lr` tan alto que la pérdida se vuelve NaN | `PerdidaNoFinita`: se para en esa época | baja el `lr` o normaliza los datos; lo entrenado está en `error.historial` |
#
# ## Buenas prácticas
#
# - Define el `device` **una vez**, al principio del programa.
# - Mueve **siempre** el modelo y los tensores a ese mismo dispositivo.
# - Comprueba primero que el código funciona bien en CPU, con pocos datos.
# - Usa el mismo patrón una y otra vez hasta que te salga solo.
# - Guarda checkpoints cuando un entrenamiento dure más que unos minutos.
# - Recuerda que la GPU acelera el cálculo, pero no sustituye entender el modelo.
#
# ## Qué debes recordar
#
# - La GPU puede acelerar mucho el entrenamiento de modelos de *deep learning*.
# - En PyTorch se trabaja con la idea de **device** (dispositivo).
# - El modelo y los tensores deben estar en el mismo dispositivo.
# - La forma habitual: `torch.device("cuda" if torch.cuda.is_available() else "cpu")`.
# - Usar GPU no cambia la teoría del entrenamiento, solo el hardware que hace los cálculos.
#
# ## Retos
#
# 1. Entrena con `tamano_lote=32` (`entrenar(..., tamano_lote=32)`). ¿Cambian las curvas? ¿Y el tiempo?
# 2. Añade a `generar_dataset` una cuarta clase, «cruz» (una vertical y una horizontal), cambia
#    `CNNPequena(clases=4)` y entrena. ¿Qué le pasa a la pizarra?
# 3. Busca el tamaño del modelo ampliado a partir del cual la GPU de Colab gana a la CPU.
# 4. Corta un entrenamiento a mano (botón ■ de Colab) con checkpoints en Drive, reinicia el
#    entorno de ejecución y reanúdalo.
# 5. Entrena con la receta «semilla» y 10 veces más datos. ¿Acierta ahora las líneas de los bordes? ¿Por qué?
#
# ## Glosario
#
# - **Dispositivo (*device*)**: dónde viven un tensor o un modelo y dónde se calcula: `cpu`, `cuda`, `mps`.
# - **`.to(dispositivo)`**: devuelve el tensor (o mueve el modelo) al dispositivo indicado.
# - **CNN**: red neuronal convolucional; aprende filtros que detectan patrones locales en imágenes.
# - **Época**: una pasada completa por los datos de entrenamiento.
# - **Lote (*batch*)**: el grupo de ejemplos con el que se da un paso del optimizador.
# - **Logit**: la salida del modelo antes de `softmax`; `softmax` la convierte en probabilidades.
# - **Accuracy**: la fracción de ejemplos bien clasificados.
# - **`model.eval()` / `torch.no_grad()`**: modo de evaluación y cálculo sin gradientes.
# - **Checkpoint**: una foto del entrenamiento (pesos, optimizador, época...) para poder seguir después.
# - **Escritura atómica**: guardar en un archivo temporal y renombrarlo, para no dejar nunca un archivo a medias.
# - **`map_location`**: al cargar, en qué dispositivo poner los tensores.
# - **`weights_only=True`**: cargar solo tensores y datos simples, sin ejecutar código del archivo.
# - **Dispositivo `meta`**: tensores con forma pero sin datos; útil para probar sin memoria ni GPU.

# %%
# Comprobación final: la CNN aprende, la receta variada generaliza mejor y reanudar da los mismos pesos.
# Ejecútala tras cambiar algo: si deja de ser cierto, falla y dice qué.
assert historial.accuracy_validacion[-1] > 0.95, historial.accuracy_validacion  # la CNN distingue las líneas
assert acc_variada > acc_semilla  # la receta variada acierta más líneas dibujadas a mano
assert iguales  # reanudar desde el checkpoint da los mismos pesos que entrenar sin cortes
print("Comprobado: la CNN aprende, la receta variada generaliza mejor y reanudar no cambia el resultado.")
