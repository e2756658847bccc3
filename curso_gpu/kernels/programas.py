"""Los kernels de Triton del curso, tal como se escriben: sin comprobaciones ni PyTorch. Lección 11.

Cada kernel es un **programa**: la GPU lanza muchas copias (la *rejilla*) y las reparte por oleadas
entre sus multiprocesadores (SM), sin un orden garantizado; cada copia sabe cuál es con
``tl.program_id(eje)``. Cada copia trabaja con un **bloque** de posiciones
(``tl.arange(0, BLOQUE)``, siempre una potencia de dos) y una **máscara** dice cuáles existen de
verdad: con 1000 elementos y bloques de 256, el cuarto bloque tiene 24 posiciones de sobra.

Importar este módulo importa ``triton`` (antes, ``carga.preparar_interprete`` decide si hace
falta el intérprete). Quien los lanza con tensores de PyTorch, comprobados, es ``lanzadores``.
"""

from __future__ import annotations

from .carga import preparar_interprete

preparar_interprete()  # antes de importar triton: sin CUDA, el intérprete (ver carga.py)

import triton  # noqa: E402
import triton.language as tl  # noqa: E402

__all__ = ["kernel_matmul_teselas", "kernel_softmax_filas", "kernel_softmax_filas_largas", "kernel_suma"]


@triton.jit
def kernel_suma(x_ptr, y_ptr, salida_ptr, n, BLOQUE: tl.constexpr):
    """salida = x + y, elemento a elemento. Cada programa suma BLOQUE elementos seguidos."""
    programa = tl.program_id(axis=0)
    posiciones = programa * BLOQUE + tl.arange(0, BLOQUE)
    mascara = posiciones < n  # el último bloque puede salirse del tensor
    x = tl.load(x_ptr + posiciones, mask=mascara)
    y = tl.load(y_ptr + posiciones, mask=mascara)
    tl.store(salida_ptr + posiciones, x + y, mask=mascara)


@triton.jit
def kernel_softmax_filas(x_ptr, salida_ptr, paso_x, paso_salida, columnas, BLOQUE: tl.constexpr):
    """softmax de una fila entera (columnas ≤ BLOQUE) por programa: lee la fila una vez, escribe una vez."""
    fila = tl.program_id(axis=0)
    cols = tl.arange(0, BLOQUE)
    mascara = cols < columnas
    # Lo que sobra del bloque vale -inf: no cambia el máximo y exp(-inf) = 0 no cambia la suma.
    x = tl.load(x_ptr + fila * paso_x + cols, mask=mascara, other=-float("inf")).to(tl.float32)
    x = x - tl.max(x, axis=0)  # estable: el mayor exponente es 0, exp nunca pasa de 1
    numerador = tl.exp(x)
    y = numerador / tl.sum(numerador, axis=0)
    tl.store(salida_ptr + fila * paso_salida + cols, y.to(salida_ptr.dtype.element_ty), mask=mascara)


@triton.jit
def kernel_softmax_filas_largas(x_ptr, salida_ptr, paso_x, paso_salida, columnas, BLOQUE: tl.constexpr):
    """softmax de filas con más columnas que BLOQUE: recorre la fila dos veces, a trozos.

    1.ª vuelta: el máximo y la suma «en línea» (cada trozo corrige la suma de los anteriores si
    el máximo sube). 2.ª vuelta: escribe exp(x - máximo) / suma. Lee la fila dos veces.
    """
    fila = tl.program_id(axis=0)
    maximos = tl.full([BLOQUE], -float("inf"), tl.float32)
    sumas = tl.zeros([BLOQUE], tl.float32)
    for inicio in range(0, columnas, BLOQUE):
        cols = inicio + tl.arange(0, BLOQUE)
        x = tl.load(x_ptr + fila * paso_x + cols, mask=cols < columnas, other=-float("inf")).to(tl.float32)
        nuevos = tl.maximum(maximos, x)
        # Mientras un carril solo ha visto -inf, exp(-inf - (-inf)) sería NaN: su suma sigue en 0.
        sumas = tl.where(nuevos == -float("inf"), 0.0, sumas * tl.exp(maximos - nuevos) + tl.exp(x - nuevos))
        maximos = nuevos
    maximo = tl.max(maximos, axis=0)
    suma = tl.sum(tl.where(maximos == -float("inf"), 0.0, sumas * tl.exp(maximos - maximo)), axis=0)
    for inicio in range(0, columnas, BLOQUE):
        cols = inicio + tl.arange(0, BLOQUE)
        mascara = cols < columnas
        x = tl.load(x_ptr + fila * paso_x + cols, mask=mascara, other=-float("inf")).to(tl.float32)
        y = tl.exp(x - maximo) / suma
        tl.store(salida_ptr + fila * paso_salida + cols, y.to(salida_ptr.dtype.element_ty), mask=mascara)


@triton.jit
def kernel_matmul_teselas(a_ptr, b_ptr, c_ptr, M, N, K,
                          paso_am, paso_ak, paso_bk, paso_bn, paso_cm, paso_cn,
                          BLOQUE_M: tl.constexpr, BLOQUE_N: tl.constexpr, BLOQUE_K: tl.constexpr):
    """C = A @ B por teselas: cada programa calcula una tesela BLOQUE_M × BLOQUE_N de C.

    Recorre K de BLOQUE_K en BLOQUE_K: carga una tesela de A y una de B y acumula su producto
    (``tl.dot``) en fp32, aunque A y B sean fp16. Los pasos (*strides*) dicen dónde está cada
    elemento: A[i, k] está en a_ptr + i·paso_am + k·paso_ak.
    """
    programa_m = tl.program_id(axis=0)
    programa_n = tl.program_id(axis=1)
    filas = programa_m * BLOQUE_M + tl.arange(0, BLOQUE_M)
    cols = programa_n * BLOQUE_N + tl.arange(0, BLOQUE_N)
    acumulado = tl.zeros((BLOQUE_M, BLOQUE_N), dtype=tl.float32)
    for inicio in range(0, K, BLOQUE_K):
        ks = inicio + tl.arange(0, BLOQUE_K)
        # Fuera de la matriz se carga 0: no cambia la suma de productos.
        a = tl.load(a_ptr + filas[:, None] * paso_am + ks[None, :] * paso_ak,
                    mask=(filas[:, None] < M) & (ks[None, :] < K), other=0.0)
        b = tl.load(b_ptr + ks[:, None] * paso_bk + cols[None, :] * paso_bn,
                    mask=(ks[:, None] < K) & (cols[None, :] < N), other=0.0)
        acumulado += tl.dot(a, b)
    c = acumulado.to(c_ptr.dtype.element_ty)
    tl.store(c_ptr + filas[:, None] * paso_cm + cols[None, :] * paso_cn, c,
             mask=(filas[:, None] < M) & (cols[None, :] < N))
