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
# [![Abrir en Colab](https://colab.research.google.com/assets/colab-badge.svg)](https://colab.research.google.com/github/curso-gpu/curso_gpu/blob/main/notebooks/11_primer_kernel_triton.ipynb)
#
# # Lección 11 — Tu primer kernel de GPU con Triton

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
# - Cómo se reparte el trabajo en una GPU, con las palabras de Triton: **programas**, **bloques**,
#   `tl.arange`, **máscaras**, `tl.load` y `tl.store`.
# - A escribir tres kernels y comprobarlos contra PyTorch: una **suma** de vectores, un **softmax
#   por filas** fusionado y estable, y una **multiplicación de matrices por teselas**.
# - Por qué fusionar ahorra memoria, con los bytes contados uno a uno.
# - Qué genera `torch.compile` por dentro (en una GPU, kernels de Triton como los tuyos).
# - A medir un kernel en una GPU: GB/s y TFLOP/s frente al máximo de la ficha, y cuál es ese máximo
#   (en una T4, `tl.dot` no usa los Tensor Cores: su techo es el de fp32).
#
# ## Por qué importa
#
# Hasta ahora has usado la GPU a través de PyTorch: `x @ w`, `torch.softmax`... Cada una de esas
# operaciones es un **kernel**, un programa que corre *en* la GPU, escrito por otros. Saber
# escribir uno te explica por qué unas operaciones van a la velocidad de la memoria y otras a la
# del cálculo, qué hace `torch.compile` y cómo se escriben las piezas rápidas de los modelos
# modernos. FlashAttention (Dao et al., 2022, [arXiv:2205.14135](https://arxiv.org/abs/2205.14135))
# se escribió en CUDA; el tutorial de Triton
# [«Fused Attention»](https://triton-lang.org/main/getting-started/tutorials/06-fused-attention.html)
# la reescribe en Triton con las mismas ideas que verás aquí: teselas, fusión y un softmax estable.
#
# **Triton** es un lenguaje dentro de Python para escribir kernels de GPU por bloques, sin C++.
# Y trae un **intérprete** (`TRITON_INTERPRET=1`) que ejecuta el mismo kernel en la CPU con
# NumPy: puedes escribirlo, depurarlo con `print` y comprobarlo **sin GPU**, y luego ejecutarlo
# compilado en una T4 sin cambiar una línea. Eso haremos aquí.
#
# ## Antes de empezar: Triton en tu máquina
#
# Triton solo tiene versión para **Linux** (también WSL2 en Windows). El PyTorch con CUDA de
# Linux ya lo instala; en Colab está siempre, también en el entorno de CPU. En un Linux con el
# PyTorch de CPU, instala el curso desde su repositorio con su grupo «kernels»:
# `pip install "curso_gpu[kernels] @ git+https://github.com/curso-gpu/curso_gpu"`. En macOS o Windows sin WSL2 no hay Triton:
# la lección te lo dice y ejecuta igualmente todo lo que no lo necesita. En Linux, Triton es parte
# del curso (`requirements.txt`): si falta, la última celda falla y te dice cómo instalarlo.
#
# El intérprete se activa con una variable de entorno **antes** de importar `triton`: Triton la
# lee al definir cada kernel. Sin GPU, la ponemos nosotros:

# %%
import os
import time

import torch

from curso_gpu.base import contar
from curso_gpu.kernels import COMO_INSTALAR, INTERPRETE, modo_triton, triton_declarado, triton_instalado

HAY_GPU = torch.cuda.is_available()
DISPOSITIVO = torch.device("cuda" if HAY_GPU else "cpu")
if not HAY_GPU:
    os.environ.setdefault("TRITON_INTERPRET", "1")  # antes de importar triton: kernels en la CPU
HAY_TRITON = triton_instalado()
# ¿Corren los kernels en el intérprete (NumPy en la CPU)? Sin GPU, sí; también en la T4 simulada del
# curso (CURSO_GPU_SIMULAR=T4), aunque torch.cuda diga que hay GPU. Lo sabe curso_gpu.kernels.
INTERPRETADO = HAY_TRITON and modo_triton() == INTERPRETE


def si_hay_triton(lo_que_verias: str) -> bool:
    """¿Hay Triton? Si no, la celda dice lo que verías con él y se salta su código."""
    if not HAY_TRITON:
        print(f"Sin Triton: {lo_que_verias}")
    return HAY_TRITON


if si_hay_triton(f"{COMO_INSTALAR}\nSigue leyendo: las celdas que necesitan Triton lo dicen y no hacen nada."):
    import triton
    import triton.language as tl
    print(f"Triton {triton.__version__} con PyTorch {torch.__version__} en {DISPOSITIVO}",
          "(intérprete: correcto pero lento)" if INTERPRETADO else "(compilado)")
torch.manual_seed(0);  # el «;» calla lo que devuelve (el generador de números aleatorios)

# %% [markdown]
# ## La idea clave: muchos programas, cada uno con un bloque
#
# Una GPU no ejecuta un bucle `for i in range(n)`. Lanza **muchas copias del mismo programa**, y
# cada copia sabe qué número es. No corren todas a la vez: la GPU las reparte entre sus
# **multiprocesadores** (SM; una T4 tiene 40). Cada SM ejecuta unas pocas a la vez y, cuando una
# acaba, empieza otra. Miles de programas pasan así por oleadas, **sin un orden garantizado**: un
# programa nunca puede contar con que otro haya terminado. En Triton:
#
# - La **rejilla** (*grid*) dice cuántos programas lanzar: `kernel[(4,)](...)` lanza 4.
# - Cada programa pregunta su número con `tl.program_id(0)`: 0, 1, 2 o 3.
# - Cada programa trabaja con un **bloque** de posiciones seguidas: `tl.arange(0, BLOQUE)` es el
#   vector `[0, 1, ..., BLOQUE-1]`, y `programa * BLOQUE + tl.arange(0, BLOQUE)` son *sus* posiciones.
#   `BLOQUE` debe ser una potencia de dos y conocerse al compilar (`tl.constexpr`).
# - `tl.load(puntero + posiciones, mask=...)` lee todo el bloque de la memoria de la GPU de una vez;
#   `tl.store(...)` lo escribe.
# - La **máscara** dice qué posiciones existen de verdad. Con 10 elementos y bloques de 4, hacen
#   falta 3 programas, y el último tiene 2 posiciones de sobra: sin máscara, leería y escribiría
#   fuera del tensor (en la GPU, basura o un fallo; en el intérprete, memoria ajena).
#
# Lo mismo en Python puro, para verlo (esto no necesita Triton):

# %%
n, BLOQUE = 10, 4
programas = -(-n // BLOQUE)  # división hacia arriba: triton.cdiv(n, BLOQUE)
print(f"{n} elementos en bloques de {BLOQUE}: {contar(programas, 'programa')}")
for programa in range(programas):  # en la GPU, repartidos por oleadas entre los SM, sin orden fijo
    posiciones = [programa * BLOQUE + i for i in range(BLOQUE)]
    mascara = [p < n for p in posiciones]
    print(f"programa {programa}: posiciones {posiciones} máscara {[int(m) for m in mascara]}")

# %% [markdown]
# ## Paso a paso
#
# ### 1. La suma de dos vectores
#
# El kernel es la traducción directa de lo anterior. Lo que recibe no son tensores sino
# **punteros**: la dirección de su primer elemento. Por eso hace falta saber `n` y usar la máscara.

# %%
if HAY_TRITON:
    @triton.jit
    def suma_kernel(x_ptr, y_ptr, salida_ptr, n, BLOQUE: tl.constexpr):
        programa = tl.program_id(axis=0)                         # ¿qué copia soy?
        posiciones = programa * BLOQUE + tl.arange(0, BLOQUE)    # mis BLOQUE posiciones
        mascara = posiciones < n                                 # las que existen
        x = tl.load(x_ptr + posiciones, mask=mascara)            # leer un bloque de x...
        y = tl.load(y_ptr + posiciones, mask=mascara)            # ...y uno de y
        tl.store(salida_ptr + posiciones, x + y, mask=mascara)   # escribir el bloque de la suma

    def suma_triton(x, y, bloque=1024):
        salida = torch.empty_like(x)                 # la salida se reserva fuera del kernel
        n = x.numel()
        rejilla = (triton.cdiv(n, bloque),)          # cuántos programas
        suma_kernel[rejilla](x, y, salida, n, BLOQUE=bloque)
        return salida

# %% [markdown]
# Comprobamos contra PyTorch con tamaños que **no** son múltiplos del bloque: 1, el bloque − 1, el
# bloque + 1 y un número primo. Si la máscara estuviera mal, fallarían justo estos.

# %%
from curso_gpu.base import formatear_numero

if si_hay_triton("aquí verías la suma comprobada contra x + y con n = 1, 1023, 1025 y 10 007."):
    for n in [1, 1023, 1025, 10_007]:
        x = torch.randn(n, device=DISPOSITIVO)
        y = torch.randn(n, device=DISPOSITIVO)
        iguales = torch.equal(suma_triton(x, y), x + y)
        print(f"n = {formatear_numero(n):>6}: {contar(triton.cdiv(n, 1024), 'programa'):>12} → igual que x + y: {iguales}")

# %% [markdown]
# **Depurar con `print`.** En el intérprete, el kernel es Python que corre en la CPU: un `print`
# dentro del kernel escribe lo que ve cada programa, y un `breakpoint()` lo para para mirar con
# `pdb` (compilado en la GPU habría que usar `tl.device_print`). Con `n = 10` y bloques de 4:

# %%
if INTERPRETADO:
    @triton.jit
    def suma_que_habla(x_ptr, y_ptr, salida_ptr, n, BLOQUE: tl.constexpr):
        programa = tl.program_id(axis=0)
        posiciones = programa * BLOQUE + tl.arange(0, BLOQUE)
        mascara = posiciones < n
        print("programa", programa, "posiciones", posiciones, "máscara", mascara)
        x = tl.load(x_ptr + posiciones, mask=mascara)
        y = tl.load(y_ptr + posiciones, mask=mascara)
        tl.store(salida_ptr + posiciones, x + y, mask=mascara)

    x = torch.arange(10.0)
    salida = torch.empty_like(x)
    suma_que_habla[(3,)](x, x, salida, 10, BLOQUE=4)
    print("salida:", salida.tolist())
else:
    print("El print dentro del kernel solo funciona con el intérprete (TRITON_INTERPRET=1).")

# %% [markdown]
# El paquete del curso tiene el mismo kernel con un lanzador que comprueba las entradas y dice en
# español lo que no puede hacer:

# %%
from curso_gpu.kernels import matmul_teselas, softmax_filas, suma

if HAY_TRITON:
    x, y = torch.randn(1000, device=DISPOSITIVO), torch.randn(1000, device=DISPOSITIVO)
    print("suma del curso igual que x + y:", torch.equal(suma(x, y), x + y))
for llamada in [lambda: suma(torch.ones(3), torch.ones(4)),
                lambda: suma(torch.arange(3), torch.arange(3)),
                lambda: suma(torch.ones(4, 3).T, torch.ones(3, 4))]:
    try:
        llamada()
    except (ValueError, ModuleNotFoundError) as error:
        print(f"{type(error).__name__}: {error}\n")

# %% [markdown]
# ### 2. Softmax por filas: estable y fusionado
#
# El softmax de una fila es `exp(x) / suma(exp(x))`. Escrito así, **se desborda**: `exp(1000)` no
# cabe en un float32 y da `inf`, e `inf / inf` es NaN. El truco: restar antes el máximo de la fila.
# El resultado es el mismo (el factor `exp(-máximo)` se va arriba y abajo) y el mayor exponente
# pasa a ser 0:

# %%
fila = torch.tensor([1000.0, 999.0, 0.0])
print("ingenuo:", [round(v, 4) for v in (fila.exp() / fila.exp().sum()).tolist()])  # 4 decimales bastan para verlo
estable = (fila - fila.max()).exp()
print("estable:", [round(v, 4) for v in (estable / estable.sum()).tolist()])
print("PyTorch:", [round(v, 4) for v in torch.softmax(fila, dim=0).tolist()])

# %% [markdown]
# Ahora la memoria. En PyTorch, paso a paso, cada línea es un kernel que lee su entrada de la
# memoria de la GPU y escribe su salida en ella. Con una matriz de `F` filas y `C` columnas:

# %%
def softmax_paso_a_paso(x):
    m = x.max(dim=1, keepdim=True).values  # lee F·C, escribe F
    z = x - m                              # lee F·C + F, escribe F·C
    e = z.exp()                            # lee F·C, escribe F·C
    s = e.sum(dim=1, keepdim=True)         # lee F·C, escribe F
    return e / s                           # lee F·C + F, escribe F·C

# %% [markdown]
# Un kernel **fusionado** carga la fila una vez, hace las cinco cuentas sin salir de la GPU (en sus
# registros) y escribe el resultado una vez. Las cuentas son baratas; lo caro es mover bytes.
# `trafico_softmax` suma los bytes de cada paso, con la matriz de 1823 × 781 del tutorial de Triton:

# %%
from curso_gpu.kernels import trafico_softmax

paso_a_paso = trafico_softmax(1823, 781, bytes_por_elemento=4, fusionado=False)
fusionado = trafico_softmax(1823, 781, bytes_por_elemento=4)
print(paso_a_paso, "\n")
print(fusionado, "\n")
print(f"Paso a paso mueve {paso_a_paso.total / fusionado.total:.2f} veces los bytes del fusionado "
      "(8·C + 4 frente a 2·C elementos por fila).")

# %% [markdown]
# Como el tiempo de estos kernels lo pone la memoria, el fusionado puede ir **hasta unas 4 veces**
# más rápido. Es un techo, no una promesa: con matrices pequeñas los pasos intermedios caben en la
# caché L2 de la GPU y cuestan menos. El kernel: un programa por fila, un bloque que cubre la fila
# entera (la potencia de dos siguiente a `C`), y lo que sobra del bloque vale `-inf`, que no cambia
# el máximo y cuyo `exp` es 0.

# %%
if HAY_TRITON:
    @triton.jit
    def softmax_kernel(x_ptr, salida_ptr, paso_x, paso_salida, columnas, BLOQUE: tl.constexpr):
        fila = tl.program_id(axis=0)                  # un programa por fila
        cols = tl.arange(0, BLOQUE)
        mascara = cols < columnas
        x = tl.load(x_ptr + fila * paso_x + cols, mask=mascara, other=-float("inf"))  # 1 lectura
        x = x - tl.max(x, axis=0)                     # estable
        numerador = tl.exp(x)
        y = numerador / tl.sum(numerador, axis=0)
        tl.store(salida_ptr + fila * paso_salida + cols, y, mask=mascara)             # 1 escritura

    def softmax_triton(x):
        filas, columnas = x.shape
        salida = torch.empty_like(x)
        softmax_kernel[(filas,)](x, salida, x.stride(0), salida.stride(0), columnas,
                                 BLOQUE=triton.next_power_of_2(columnas))
        return salida

    x = torch.randn(200, 781, device=DISPOSITIVO) * 5
    torch.testing.assert_close(softmax_triton(x), torch.softmax(x, dim=1))
    print("softmax_triton igual que torch.softmax en 200 × 781 (bloque de", triton.next_power_of_2(781), "columnas)")

# %% [markdown]
# `x.stride(0)` es el **paso** entre filas: cuántos elementos hay que saltar para ir de una fila a
# la siguiente. Con él, el kernel sirve también para un corte de una matriz mayor.
#
# Los casos difíciles, con el `softmax_filas` del curso: filas con `-inf` (las máscaras de
# atención), valores enormes, una sola columna, y filas con **más columnas que el bloque** (con
# `bloque=16` recorre la fila a trozos, en dos vueltas: máximo y suma primero, resultado después):

# %%
casos = {
    "media fila a -inf": torch.cat([torch.full((2, 8), -float("inf")), torch.randn(2, 8)], dim=1),
    "toda la fila a -inf": torch.full((2, 16), -float("inf")),
    "valores enormes": torch.tensor([[1000.0, 999.0, -1000.0], [3e38, 1.0, 0.0]]),
    "una columna": torch.randn(4, 1),
    "100 columnas, bloque de 16": torch.randn(3, 100) * 4,
}
sin_kernel = torch.softmax(casos["toda la fila a -inf"], dim=1)[0, :3].tolist()
if si_hay_triton(f"no hay kernel que probar; torch.softmax de una fila toda -inf da: {sin_kernel}"):
    for nombre, x in casos.items():
        bloque = 16 if "bloque" in nombre else None
        nuestro = softmax_filas(x.to(DISPOSITIVO), bloque=bloque).cpu()
        esperado = torch.softmax(x, dim=1)
        igual = torch.allclose(nuestro, esperado, equal_nan=True)
        print(f"{nombre:<28} igual que torch.softmax: {igual}   primera fila: "
              f"{[round(v, 3) for v in nuestro[0, :4].tolist()]}")

# %% [markdown]
# Una fila toda `-inf` da NaN, igual que PyTorch: no hay ninguna posición que tenga probabilidad.
#
# ### 3. Multiplicar matrices por teselas
#
# `C = A @ B` con A de M × K y B de K × N. Cada programa calcula una **tesela** de C de
# `BLOQUE_M × BLOQUE_N`: recorre K de `BLOQUE_K` en `BLOQUE_K`, carga una tesela de A y una de B y
# suma su producto con `tl.dot`. La rejilla tiene dos ejes: `(cdiv(M, BLOQUE_M), cdiv(N, BLOQUE_N))`.
#
# ¿Usa `tl.dot` los **Tensor Cores** (las unidades que multiplican matrices pequeñas de una vez)?
# Depende de la capacidad de cómputo de la GPU. Desde la 8.0 (A100, L4, H100), sí. En una T4 (7.5),
# no: desde Triton 3.3, por debajo de la 8.0 `tl.dot` multiplica y suma (FMA) en fp32 en los núcleos
# CUDA normales. Lo cambió el [PR #5066 de Triton](https://github.com/triton-lang/triton/pull/5066)
# («fallback to FMA for computeCapability < 80»), y su README pide «Compute Capability 8.0+».
# `matmul_teselas` te da el resultado correcto en una T4, pero sin Tensor Cores.
#
# **Teselas de punteros en 2-D.** En la suma, `x_ptr + posiciones` era un vector de direcciones.
# Una tesela necesita una *tabla* de direcciones. El elemento `A[i, k]` está en
# `a_ptr + i·paso_am + k·paso_ak` (los pasos de la matriz). `filas[:, None]` pone las filas de la
# tesela en una columna (`BLOQUE_M × 1`), y `ks[None, :]` pone sus columnas en una fila
# (`1 × BLOQUE_K`). Al sumarlas, el *broadcasting* (como en NumPy y PyTorch) combina cada fila con
# cada columna: sale la tabla `BLOQUE_M × BLOQUE_K` con la dirección de cada elemento. Así lo explica
# el [tutorial 03 de Triton](https://triton-lang.org/main/getting-started/tutorials/03-matrix-multiplication.html)
# («Pointer Arithmetic»). Las máscaras se construyen igual, con `<`. En
# PyTorch, para una matriz de 4 × 5 (pasos 5 y 1) y la tesela de 2 × 3 que empieza en la fila 2:

# %%
filas_tesela, columnas_tesela = torch.arange(2, 4), torch.arange(0, 3)
print("filas[:, None] =", filas_tesela[:, None].tolist(), "  ks[None, :] =", columnas_tesela[None, :].tolist())
direcciones = filas_tesela[:, None] * 5 + columnas_tesela[None, :] * 1
print("filas[:, None] * 5 + ks[None, :] * 1 =", direcciones.tolist())
print("los elementos de esa tesela:", torch.arange(20.0)[direcciones].tolist())

# %% [markdown]
# Dos detalles importan:
#
# - **Acumular en fp32** aunque A y B sean fp16: en fp16, 2048 + 1 es 2048 (no hay un número entre
#   2048 y 2050), y una suma larga se atasca.
# - **Tamaños impares**: las máscaras cargan 0 fuera de la matriz, que no cambia la suma.

# %%
dos_mil = torch.tensor(2048.0, dtype=torch.float16)
print("En fp16, 2048 + 1 =", (dos_mil + 1).item())

if si_hay_triton("aquí verías 97×89 @ 89×83 igual que a @ b, y el error de acumular en fp16 frente a fp32."):
    @triton.jit
    def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, paso_am, paso_ak, paso_bk, paso_bn, paso_cm, paso_cn,
                      BLOQUE_M: tl.constexpr, BLOQUE_N: tl.constexpr, BLOQUE_K: tl.constexpr):
        filas = tl.program_id(0) * BLOQUE_M + tl.arange(0, BLOQUE_M)
        cols = tl.program_id(1) * BLOQUE_N + tl.arange(0, BLOQUE_N)
        acumulado = tl.zeros((BLOQUE_M, BLOQUE_N), dtype=tl.float32)      # en fp32
        for inicio in range(0, K, BLOQUE_K):
            ks = inicio + tl.arange(0, BLOQUE_K)
            a = tl.load(a_ptr + filas[:, None] * paso_am + ks[None, :] * paso_ak,
                        mask=(filas[:, None] < M) & (ks[None, :] < K), other=0.0)
            b = tl.load(b_ptr + ks[:, None] * paso_bk + cols[None, :] * paso_bn,
                        mask=(ks[:, None] < K) & (cols[None, :] < N), other=0.0)
            acumulado += tl.dot(a, b)
        tl.store(c_ptr + filas[:, None] * paso_cm + cols[None, :] * paso_cn,
                 acumulado.to(c_ptr.dtype.element_ty), mask=(filas[:, None] < M) & (cols[None, :] < N))

    def matmul_triton(a, b, bloques=(32, 32, 32)):
        (M, K), (_, N) = a.shape, b.shape
        c = torch.empty((M, N), device=a.device, dtype=a.dtype)
        rejilla = (triton.cdiv(M, bloques[0]), triton.cdiv(N, bloques[1]))
        matmul_kernel[rejilla](a, b, c, M, N, K, *a.stride(), *b.stride(), *c.stride(),
                               BLOQUE_M=bloques[0], BLOQUE_N=bloques[1], BLOQUE_K=bloques[2])
        return c

    a, b = torch.randn(97, 89, device=DISPOSITIVO), torch.randn(89, 83, device=DISPOSITIVO)
    print(f"97×89 @ 89×83, máxima diferencia con a @ b: {(matmul_triton(a, b) - a @ b).abs().max().item():.1e}")
    a16, b16 = torch.rand(16, 4096).half(), torch.rand(4096, 16).half()  # resultados de unos 1000
    exacto = a16.double() @ b16.double()
    en_fp16 = torch.zeros(16, 16, dtype=torch.float16)
    for k in range(0, 4096, 32):  # lo que haría el kernel con un acumulador fp16, tesela a tesela
        en_fp16 += (a16[:, k:k + 32].float() @ b16[k:k + 32].float()).half()
    nuestro = matmul_triton(a16.to(DISPOSITIVO), b16.to(DISPOSITIVO)).cpu()
    print(f"fp16 con K = 4096: error acumulando en fp16 {(en_fp16.double() - exacto).abs().max():.2f}; "
          f"acumulando en fp32 (el kernel) {(nuestro.double() - exacto).abs().max():.2f} "
          "(cerca de 1000, fp16 va de 1 en 1: solo queda el redondeo final, como mucho 0.5)")

# %% [markdown]
# En la CPU la diferencia con `a @ b` es de millonésimas: las sumas se hacen en otro orden. En una
# GPU con TF32 (A100, H100), `tl.dot` en float32 usa TF32 y la diferencia sube a milésimas; una T4
# no tiene TF32.
#
# ### 4. Las medidas del intérprete no significan nada
#
# El intérprete ejecuta cada programa, uno tras otro, con NumPy: sirve para saber si el kernel es
# **correcto**, no si es **rápido**. Mira cuánto tarda la suma frente a `x + y` en esta CPU:

# %%
from curso_gpu.medicion import comparar_tiempos

if INTERPRETADO:
    x, y = torch.randn(100_000), torch.randn(100_000)
    comparacion = comparar_tiempos(lambda: suma(x, y), lambda: x + y, nombres=("Triton interpretado", "x + y"),
                                   repeticiones=5, presupuesto_s=None, descripcion="100 000 elementos en la CPU")
    print(comparacion.veredicto)
    print("Ese número no dice nada de la GPU: allí el kernel va compilado, y la suma espera a la memoria, no a Python.")
else:
    print("En esta GPU el kernel está compilado: las medidas de abajo sí significan algo." if HAY_TRITON else
          "Sin Triton no hay kernel que medir (y en la CPU, con el intérprete, la medida no diría nada).")

# %% [markdown]
# ### 5. Lo que genera `torch.compile`
#
# `torch.compile` hace lo mismo que tú: **fusiona** operaciones en kernels. En una GPU, el código
# que escribe es Triton, con `tl.program_id`, `tl.arange`, máscaras y `tl.load`, como el tuyo; en la
# CPU escribe C++. Para verlo: `TORCH_LOGS="output_code" python programa.py`, o desde el notebook,
# `torch._logging.set_logs(output_code=True)`. Lo recogemos en un texto, para leer solo el kernel:

# %%
import io
import logging
import shutil

from curso_gpu.kernels import preparar_torch_compile

compilador_c = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang") or shutil.which("cl")
puede_compilar = HAY_TRITON if HAY_GPU else bool(compilador_c)  # para la GPU escribe Triton; para la CPU, C++
if puede_compilar:
    preparar_torch_compile()  # un PyTorch con CUDA sin GPU (Colab con CPU) no avisa en inglés de su CUDA_HOME
    texto = io.StringIO()
    inductor = logging.getLogger("torch._inductor")  # el registro del compilador de torch.compile
    torch._logging.set_logs(output_code=True)          # lo mismo que TORCH_LOGS="output_code"
    suyos = inductor.handlers[:]
    inductor.handlers = [logging.StreamHandler(texto)]  # a nuestro texto, no a la salida de errores
    try:
        compilado = torch.compile(softmax_paso_a_paso)
        x = torch.randn(64, 100, device=DISPOSITIVO)
        inicio = time.perf_counter()
        torch.testing.assert_close(compilado(x), torch.softmax(x, dim=1))
        segundos = time.perf_counter() - inicio
    finally:
        inductor.handlers = suyos
        torch._logging.set_logs()            # los registros como estaban
    codigo = texto.getvalue()
    lineas = codigo.splitlines()
    kernels = [i for i, l in enumerate(lineas) if " = async_compile." in l]  # un kernel generado en cada una
    lenguaje = "Triton" if "@triton.jit" in codigo else "C++"
    if lineas:
        print(f"Compilado en {segundos:.1f} s: {len(lineas)} líneas de código generado, "
              f"{len(kernels)} kernel{'s' if len(kernels) != 1 else ''} en {lenguaje}:",
              ", ".join(lineas[i].split(" = ")[0] for i in kernels), "\n")
        print("\n".join(lineas[kernels[0]:kernels[0] + 30] if kernels else lineas[:30]))
    else:  # el backend «eager» (el de la T4 simulada del curso) ejecuta sin generar código
        print(f"torch.compile corrió en {segundos:.1f} s sin escribir código: aquí usa un backend que no genera "
              "kernels (el «eager» de la T4 simulada). En una T4 de verdad verías aquí un kernel de Triton.")
else:
    print(f"Sin Triton, torch.compile no puede escribir kernels para la GPU. {COMO_INSTALAR}" if HAY_GPU else
          "No hay compilador de C: torch.compile no funcionaría en esta CPU. En una GPU escribiría Triton.")

# %% [markdown]
# Fíjate en el nombre del kernel: lleva `fused` y las operaciones que juntó (`max`, `sub`, `exp`,
# `sum`, `div`). Las cinco líneas de `softmax_paso_a_paso` se han convertido en el número de kernels
# que dice la celda (en la CPU, uno): el mismo ahorro de memoria que el tuyo, sin escribirlo.
# Compilar la primera vez tarda lo que dice la celda: de segundos a decenas de segundos (en una T4
# de Colab recién abierta, decenas de segundos); las siguientes llamadas reutilizan el kernel.
#
# En una T4, el código sale en Triton: una función como `triton_per_fused_div_exp_max_sub_sum_0` con
# `@triton.jit`, un `xoffset = tl.program_id(0) * XBLOCK`, `tl.arange`, una máscara `xmask` y
# `tl.load(..., xmask, other=...)`. Ya sabes leerlo.
#
# ### 6. En una GPU: GB/s y TFLOP/s
#
# La suma y el softmax hacen muy pocas cuentas por byte: su techo es el **ancho de banda** de la
# memoria. Se mide en GB/s: bytes movidos ÷ tiempo. La matmul hace muchas cuentas por byte: su
# techo son los **TFLOP/s** (2·M·N·K operaciones ÷ tiempo). Cada kernel se mide **alternado** con
# el de PyTorch (`comparar_tiempos`), y se compara con la ficha de la GPU (la tabla del curso).
#
# ¿Con qué pico de la ficha se compara la matmul? Con el de las unidades que usa `tl.dot`.
# `techo_tl_dot` lo decide con la capacidad de cómputo que da `torch.cuda.get_device_capability()`:
# desde la 8.0, el de los Tensor Cores en ese tipo de dato; por debajo (la T4), el de fp32 en los
# núcleos CUDA. Compararla con los 65 TFLOP/s de los Tensor Cores de la T4 sería compararla con
# algo que no usa.
#
# Con los kernels en el intérprete (sin GPU, o en la T4 simulada del curso), los tamaños son
# pequeños y los tiempos son de NumPy en la CPU: no dicen nada de una GPU.

# %%
from curso_gpu.base import picos_de, rango_porcentaje
from curso_gpu.kernels import flops_matmul, techo_tl_dot, trafico_suma

if HAY_GPU and HAY_TRITON:
    nombre = torch.cuda.get_device_name(DISPOSITIVO)
    capacidad = torch.cuda.get_device_capability(DISPOSITIVO)
    ficha = picos_de(nombre)
    ancho = ficha.ancho_de_banda_gb_s if ficha else None
    sm = torch.cuda.get_device_properties(DISPOSITIVO).multi_processor_count
    en_ficha = f" (la ficha: {ficha.multiprocesadores})" if ficha and ficha.multiprocesadores else ""
    print(f"{nombre}: capacidad {capacidad[0]}.{capacidad[1]}, {sm} SM{en_ficha}.")
    techo_dot = techo_tl_dot(nombre, torch.float16, capacidad, version_triton=triton.__version__)
    print(techo_dot if techo_dot else f"{nombre} no está en la tabla del curso: se mide sin techo.", "\n")
    # Interpretados, los kernels son NumPy en la CPU: con los tamaños de una GPU tardarían horas.
    n, lado_s, lado = (2**14, 128, 64) if INTERPRETADO else (2**24, 4096, 4096)
    x, y = torch.randn(n, device=DISPOSITIVO), torch.randn(n, device=DISPOSITIVO)
    s = torch.randn(lado_s, lado_s, device=DISPOSITIVO)
    a, b = (torch.randn(lado, lado, device=DISPOSITIVO, dtype=torch.float16) for _ in range(2))
    pruebas = [(f"suma ({n:,} fp32)".replace(",", " "), lambda: suma(x, y), lambda: x + y, trafico_suma(n).total, "GB/s", ancho),
               (f"softmax ({lado_s} × {lado_s} fp32)", lambda: softmax_filas(s), lambda: torch.softmax(s, dim=1),
                trafico_softmax(lado_s, lado_s).total, "GB/s", ancho),
               (f"matmul ({lado}³ fp16)", lambda: matmul_teselas(a, b), lambda: a @ b,
                flops_matmul(lado, lado, lado), "TFLOP/s", techo_dot.tflops if techo_dot else None)]
    iguales_en_gpu = {}
    for titulo, con_triton, de_torch, cantidad, unidad, techo in pruebas:
        r_t, r_p = con_triton().float(), de_torch().float()  # otro orden de las sumas: no idénticos, parecidos
        iguales_en_gpu[titulo] = bool((r_t - r_p).abs().max() <= 1e-2 * r_p.abs().max())
        medida = {"repeticiones": 3, "presupuesto_s": None} if INTERPRETADO else {}
        c = comparar_tiempos(con_triton, de_torch, nombres=("Triton", "PyTorch"), dispositivo=DISPOSITIVO,
                             descripcion=titulo, **medida)
        escala = 1e9 if unidad == "GB/s" else 1e12
        ritmo_t, ritmo_p = cantidad / c.mediana_a / escala, cantidad / c.mediana_b / escala
        if INTERPRETADO:
            print(f"{titulo}: igual que PyTorch (al 1 % del mayor valor): {iguales_en_gpu[titulo]}. Triton interpretado {ritmo_t:.3g} {unidad}; "
                  f"PyTorch {ritmo_p:.3g} {unidad}. Son tiempos de la CPU: no dicen nada de una GPU.")
        else:
            fraccion = f" = {ritmo_t / techo:.2f} del techo ({techo:g} {unidad})" if techo else ""  # solo se ejecuta en una GPU real, con Triton compilado
            print(f"{titulo}: igual que PyTorch (al 1 % del mayor valor): {iguales_en_gpu[titulo]}. Triton {ritmo_t:.1f} {unidad}{fraccion}; "  # solo se ejecuta en una GPU real, con Triton compilado
                  f"PyTorch {ritmo_p:.1f} {unidad}.\n  {c.veredicto}")
else:
    t4 = picos_de("Tesla T4")  # la ficha de la T4 en el catálogo del curso, con su fuente
    techo_t4 = techo_tl_dot("Tesla T4", torch.float16)
    cublas = [p / 100 * t4.fp16 for p in rango_porcentaje("Tesla T4", "fp16")]  # lo que sostiene de verdad
    tflop = flops_matmul(4096, 4096, 4096) / 1e12
    print(f"Sin GPU no hay nada que medir. En una T4 (ficha: {t4.ancho_de_banda_gb_s:g} GB/s; {t4.fp32:g} TFLOP/s "
          f"en fp32 y {t4.fp16:g} en fp16 con sus Tensor Cores; {t4.fuente}):")
    for titulo, trafico in [("suma de 2²⁴ fp32", trafico_suma(2**24)), ("softmax 4096 × 4096 fp32", trafico_softmax(4096, 4096))]:
        print(f"- {titulo}: mueve {trafico.total / 1e6:.0f} MB → al menos "
              f"{trafico.total / (t4.ancho_de_banda_gb_s * 1e9) * 1e3:.2f} ms.")
    print(f"- matmul 4096³ fp16: {tflop:.2f} TFLOP. {techo_t4} Tu kernel tarda al menos "
          f"{tflop / techo_t4.tflops * 1e3:.0f} ms.")
    print(f"- a @ b (cuBLAS) sí usa los Tensor Cores en una T4: sostiene unos {cublas[0]:.0f}–{cublas[1]:.0f} TFLOP/s "
          f"(lección 03), unos {tflop / cublas[1] * 1e3:.1f}–{tflop / cublas[0] * 1e3:.1f} ms.")

# %% [markdown]
# Qué verás en una T4 (y por qué):
#
# - **suma y softmax**: ninguno llega a los 320 GB/s de la ficha; un kernel limitado por la memoria
#   se queda en una fracción (la celda te la da como razón), y el tuyo y el de PyTorch, parecidos:
#   los dos esperan a la misma memoria. Con el softmax, el tuyo lee la matriz una vez, como
#   `torch.softmax` (que también es un kernel fusionado); frente a `softmax_paso_a_paso` ganaría
#   hasta las 4 veces de los bytes contados arriba.
# - **matmul en fp16**: cuBLAS (PyTorch) gana, y por mucho. En una T4, tu `tl.dot` calcula en fp32
#   con FMA en los núcleos CUDA: su techo es el pico fp32 de la ficha, 8.1 TFLOP/s, y en la práctica
#   llega a una fracción (la T4 está limitada a 70 W, lección 03). cuBLAS usa los Tensor Cores y
#   sostiene un 30–40 % de sus 65 TFLOP/s. `triton.autotune` (probar varias teselas, `num_warps` y
#   `num_stages`, y quedarse con la más rápida) acerca tu kernel a **su** techo de 8.1, no al de
#   cuBLAS. En una GPU con capacidad 8.0 o más (A100, L4, H100), `tl.dot` sí usa los Tensor Cores, y
#   allí el autotune del tutorial 03 de Triton lo pone cerca de cuBLAS.
#
# <!-- Estas cifras las comprueba benchmarks/validar_en_gpu.py en una GPU de verdad. -->
#
# ## Pruébalo
#
# - Cambia `bloque` en `suma_triton` a 256 y a 4096: ¿cambia el resultado? ¿Y el número de programas?
# - Quita la máscara de `softmax_kernel` (`mask=` y `other=`) y pruébalo con 781 columnas: ¿qué sale?
#   (En el intérprete, vuelve a ponerla enseguida: se lee memoria ajena.)
# - Llama a `softmax_filas(x, bloque=16)` con 1000 columnas y compáralo con `torch.softmax`.
# - Con `trafico_softmax`, calcula los bytes de una matriz de 4096 × 4096 en fp16. ¿Cambia la razón?
#
# ## Errores comunes
#
# | error | qué pasa | cómo se arregla |
# |---|---|---|
# | Olvidar la máscara | con tamaños que no son múltiplos del bloque, se lee y escribe fuera del tensor | `mask=posiciones < n` en cada `tl.load` y `tl.store` |
# | Un bloque que no es potencia de dos | `tl.arange` lo rechaza al compilar | `triton.next_power_of_2(n)` |
# | `TRITON_INTERPRET=1` después de `import triton` (o de definir el kernel) | los kernels ya definidos siguen compilados y fallan con tensores de la CPU | ponla antes; si no, reinicia el kernel |
# | Tensores en la CPU con el kernel compilado | error de Triton: el puntero no está en la GPU | `.cuda()`, o el intérprete |
# | Un tensor no contiguo (una traspuesta) | el kernel lee los elementos en otro orden: resultado mal, sin error | `.contiguous()` o pasar los pasos (`stride`) |
# | Medir con el intérprete | tiempos de NumPy, un programa tras otro: no dicen nada de la GPU | mide en una GPU |
# | Acumular en fp16 | la suma se atasca (2048 + 1 = 2048) | `tl.zeros(..., dtype=tl.float32)` |
# | Comparar tu matmul en una T4 con los 65 TFLOP/s de su ficha | en una T4, `tl.dot` no usa los Tensor Cores: ese pico no es el suyo | compárala con el de fp32 (8.1): `techo_tl_dot` |
#
# Los lanzadores del curso comprueban lo que el kernel no puede:

# %%
for llamada in [lambda: softmax_filas(torch.ones(4, 3).T),
                lambda: matmul_teselas(torch.ones(2, 3), torch.ones(2, 3)),
                lambda: suma(torch.ones(3), torch.ones(3), bloque=100)]:
    try:
        llamada()
    except (ValueError, ModuleNotFoundError) as error:
        print(f"{type(error).__name__}: {error}\n")

# %% [markdown]
# ## Retos
#
# 1. Escribe un kernel `relu_kernel` (`tl.maximum(x, 0.0)`) y compruébalo contra `torch.relu` con
#    n = 1, 1023 y 1025.
# 2. Fusiona `y = relu(x) * 2 + 1` en un solo kernel. Cuenta los bytes frente a PyTorch paso a paso.
# 3. Escribe `suma_filas_kernel`, que suma cada fila de una matriz (`tl.sum`), con filas de más
#    columnas que el bloque (un bucle `for` como el de la matmul).
# 4. En Colab con una T4: mide `matmul_teselas` en fp16 y en fp32 (4096 × 4096) con `comparar_tiempos`.
#    ¿Cambian mucho los TFLOP/s? (En una T4, `tl.dot` calcula en fp32 en los dos casos.) Pruébalo con
#    `bloques=(32, 32, 32)` y `(64, 64, 32)`: ¿qué fracción de los 8.1 TFLOP/s de fp32 alcanzas? Y
#    `a @ b` en fp16, con los Tensor Cores: ¿cuántas veces más rápido va?
# 5. Con `torch.compile` en una T4, compila `lambda x: torch.relu(x) * 2 + 1` y lee el kernel de Triton
#    que genera: ¿dónde están el `program_id`, la máscara y el `tl.load`?
#
# ## Glosario
#
# - **Kernel**: un programa que corre en la GPU; cada operación de PyTorch lanza uno o varios.
# - **Programa** (en CUDA, *bloque de hilos*): una copia del kernel. Se reparten por oleadas entre
#   los SM, sin un orden garantizado.
# - **SM** (*streaming multiprocessor*, multiprocesador): cada uno de los bloques de núcleos de la
#   GPU; ejecuta unos pocos programas a la vez. Una T4 tiene 40.
# - **Warp**: un grupo de 32 hilos que ejecutan la misma instrucción a la vez dentro de un SM;
#   `num_warps` dice cuántos warps usa cada programa.
# - **Rejilla** (*grid*): cuántos programas se lanzan, en uno, dos o tres ejes.
# - **Bloque**: las posiciones que trata cada programa; una potencia de dos (`tl.constexpr`).
# - **Máscara**: qué posiciones del bloque existen de verdad.
# - **Puntero**: la dirección en memoria del primer elemento de un tensor.
# - **Paso** (*stride*): cuántos elementos saltar para ir a la fila (o columna) siguiente.
# - **Fusionar**: hacer varias operaciones en un kernel, sin escribir los resultados intermedios.
# - **Tesela** (*tile*): un trozo rectangular de una matriz que un programa carga de una vez.
# - **Tensor Core**: una unidad de la GPU que multiplica teselas pequeñas de matrices de una vez.
#   Una T4 los tiene (fp16), pero `tl.dot` (Triton 3.3 o más nuevo) solo los usa desde la capacidad 8.0.
# - **Autotune** (`triton.autotune`): probar varias configuraciones de un kernel (teselas,
#   `num_warps`, `num_stages`) y quedarse con la más rápida en tu GPU.
# - **Caché L2**: una memoria pequeña y rápida dentro de la GPU, compartida por todos los SM, entre
#   la memoria de la GPU y los núcleos. Si los datos caben en ella, leerlos cuesta menos.
# - **Intérprete de Triton**: ejecuta el kernel en la CPU con NumPy (`TRITON_INTERPRET=1`).
# - **Ancho de banda**: bytes por segundo entre la memoria de la GPU y sus núcleos.

# %%
# Comprobación final: fusionar lee 4 veces menos bytes, restar el máximo evita los NaN y los kernels dan lo
# mismo que PyTorch. Ejecútala tras cambiar un kernel: si deja de ser cierto, falla y dice qué.
assert round(paso_a_paso.total / fusionado.total, 2) == 4.0            # fusionar: 4 veces menos bytes
assert torch.isnan(fila.exp() / fila.exp().sum()).any() and not torch.isnan(estable).any()  # restar el máximo
# En Linux el curso instala triton (requirements.txt): si falta, la instalación está incompleta.
assert HAY_TRITON or not triton_declarado(), f"Falta triton, y en Linux el curso lo necesita. {COMO_INSTALAR}"
if HAY_TRITON:
    assert (nuestro.double() - exacto).abs().max() <= 0.5 < (en_fp16.double() - exacto).abs().max()  # fp32
    if HAY_GPU:
        assert all(iguales_en_gpu.values()), iguales_en_gpu  # los kernels medidos dan lo mismo que PyTorch
print("Comprobado: fusionar ahorra bytes, el softmax es estable y los kernels dan lo mismo que PyTorch.")
