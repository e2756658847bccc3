"""Lanzar los kernels de Triton del curso con tensores de PyTorch, comprobados. Lección 11.

Cada lanzador hace lo que hace el de los tutoriales de Triton: comprueba las entradas, reserva
la salida, calcula la rejilla (cuántos programas) y lanza el kernel. Aquí además dice en
español lo que no puede hacer. Funcionan en una GPU CUDA (compilados) y en la CPU (con el
intérprete de Triton: correctos, pero lentos; ver ``carga``). No calculan gradientes.
"""

from __future__ import annotations

import contextlib

import torch

from ..base import leer_numero
from ..dispositivo import VARIABLE_SIMULAR, simulacion_activa
from .carga import COMPILADO, INTERPRETE, TRITON_MINIMO, cargar_programas, modo_triton, version_suficiente

__all__ = [
    "BLOQUES_MATMUL", "BLOQUE_SOFTMAX_MAXIMO", "BLOQUE_SUMA", "TIPOS_KERNELS", "matmul_teselas",
    "siguiente_potencia_de_dos", "softmax_filas", "suma"
]

TIPOS_KERNELS = (torch.float32, torch.float16)
"""Los tipos de dato que aceptan los kernels del curso (el intérprete no tiene bfloat16)."""

BLOQUE_SUMA = 1024
"""Elementos por programa en ``suma`` si no dices otro."""

BLOQUE_SOFTMAX_MAXIMO = 8192
"""Columnas que ``softmax_filas`` lee de una vez como mucho; las filas más largas van a trozos."""

BLOQUES_MATMUL = {"cpu": (32, 32, 32), "cuda": (64, 64, 32)}
"""Las teselas (M, N, K) de ``matmul_teselas`` por defecto. En la CPU, pequeñas: el intérprete
hace una operación de NumPy por tesela y programa, y con teselas grandes sobra casi todo en
matrices pequeñas. ``tl.dot`` pide al menos 16 en cada lado."""


def suma(x: torch.Tensor, y: torch.Tensor, *, bloque: int = BLOQUE_SUMA) -> torch.Tensor:
    """``x + y`` con el kernel ``kernel_suma``: un programa por cada ``bloque`` elementos. Lección 11.

    ``x`` e ``y``: la misma forma, el mismo dispositivo y el mismo tipo (float32 o float16),
    contiguos. ``bloque``: una potencia de dos entre 16 y 65536.
    """
    _tensores("suma", x=x, y=y)
    if x.shape != y.shape:
        raise ValueError(f"suma necesita dos tensores de la misma forma; x es {tuple(x.shape)} e y es "
                         f"{tuple(y.shape)}. Este kernel no hace broadcasting: usa x + y.expand_as(x).contiguous().")
    _contiguos("suma", x=x, y=y)
    bloque = _potencia_de_dos(bloque, "bloque", 16, 65536)
    programas = _programas(x)
    salida = torch.empty_like(x)
    n = x.numel()
    if n == 0:
        return salida  # una rejilla de 0 programas no se puede lanzar: no hay nada que sumar
    rejilla = (_division_hacia_arriba(n, bloque),)
    with _sin_avisos_de_numpy(x):
        programas.kernel_suma[rejilla](x, y, salida, n, BLOQUE=bloque)
    return salida


def softmax_filas(x: torch.Tensor, *, bloque: int | None = None) -> torch.Tensor:
    """``torch.softmax(x, dim=1)`` de una matriz con un programa por fila. Lección 11.

    Estable: resta el máximo de cada fila antes de ``exp``. Si la fila cabe en un bloque (por
    defecto, la potencia de dos ≥ columnas, hasta ``BLOQUE_SOFTMAX_MAXIMO``), la lee una sola
    vez (``kernel_softmax_filas``); si no, a trozos de ``bloque`` columnas, en dos vueltas
    (``kernel_softmax_filas_largas``). Como PyTorch, una fila toda ``-inf`` da NaN.
    ``x``: float32 o float16, de dos dimensiones, con las columnas seguidas en memoria.
    """
    _tensores("softmax_filas", x=x)
    if x.dim() != 2:
        raise ValueError(f"softmax_filas necesita una matriz (2 dimensiones: filas × columnas); x tiene "
                         f"{x.dim()} ({tuple(x.shape)}). Con un vector usa x.unsqueeze(0); con más, "
                         "x.reshape(-1, x.shape[-1]).")
    filas, columnas = x.shape
    if filas and columnas and x.stride(1) != 1:
        raise ValueError(f"softmax_filas necesita las columnas seguidas en memoria (x.stride(1) == 1); x tiene "
                         f"pasos {x.stride()} (¿una traspuesta?). Usa x.contiguous().")
    if bloque is None:
        bloque = min(max(16, siguiente_potencia_de_dos(columnas)), BLOQUE_SOFTMAX_MAXIMO)
    bloque = _potencia_de_dos(bloque, "bloque", 16, 65536)
    programas = _programas(x)
    salida = torch.empty_like(x, memory_format=torch.contiguous_format)
    if filas == 0 or columnas == 0:
        return salida  # nada que normalizar (torch.softmax también devuelve un tensor vacío)
    kernel = programas.kernel_softmax_filas if columnas <= bloque else programas.kernel_softmax_filas_largas
    with _sin_avisos_de_numpy(x):
        kernel[(filas,)](x, salida, x.stride(0), salida.stride(0), columnas, BLOQUE=bloque,
                         **_hilos(x, 4 if bloque < 2048 else 8 if bloque < 4096 else 16))
    return salida


def matmul_teselas(a: torch.Tensor, b: torch.Tensor, *, bloques: tuple[int, int, int] | None = None) -> torch.Tensor:
    """``a @ b`` por teselas con ``kernel_matmul_teselas``, acumulando en fp32. Lección 11.

    ``a`` (M × K) y ``b`` (K × N): el mismo dispositivo y tipo (float32 o float16); pueden no ser
    contiguas (una traspuesta vale: el kernel usa sus pasos). ``bloques``: las teselas
    (M, N, K), potencias de dos entre 16 y 256; por defecto ``BLOQUES_MATMUL``.
    En una GPU con TF32 (A100, H100...), ``tl.dot`` en float32 usa TF32, como PyTorch con
    ``torch.backends.cuda.matmul.allow_tf32 = True``: unas 3 cifras decimales.
    """
    _tensores("matmul_teselas", a=a, b=b)
    if a.dim() != 2 or b.dim() != 2:
        raise ValueError(f"matmul_teselas necesita dos matrices (2 dimensiones); a es {tuple(a.shape)} y b es "
                         f"{tuple(b.shape)}. Para lotes de matrices usa torch.matmul.")
    (m, k), (k_b, n) = a.shape, b.shape
    if k != k_b:
        raise ValueError(f"matmul_teselas: las columnas de a ({k}) deben ser las filas de b ({k_b}); "
                         f"a es {tuple(a.shape)} y b es {tuple(b.shape)}. ¿Querías b.T?")
    if bloques is None:
        bloques = BLOQUES_MATMUL["cpu" if _interpretado() else "cuda"]  # «cpu»: los del intérprete
    if not isinstance(bloques, (tuple, list)) or len(bloques) != 3:
        raise ValueError(f"bloques debe ser tres potencias de dos (M, N, K), p. ej. (32, 32, 32); recibí {bloques!r}.")
    bm, bn, bk = (_potencia_de_dos(v, f"bloques[{i}]", 16, 256, ejemplo="bloques=(32, 32, 32)")
                  for i, v in enumerate(bloques))
    programas = _programas(a)
    c = torch.empty((m, n), device=a.device, dtype=a.dtype)
    if m == 0 or n == 0:
        return c
    if k == 0:
        return c.zero_()  # una suma de ningún producto es 0, como en PyTorch
    rejilla = (_division_hacia_arriba(m, bm), _division_hacia_arriba(n, bn))
    with _sin_avisos_de_numpy(a):
        programas.kernel_matmul_teselas[rejilla](a, b, c, m, n, k, a.stride(0), a.stride(1), b.stride(0),
                                                 b.stride(1), c.stride(0), c.stride(1),
                                                 BLOQUE_M=bm, BLOQUE_N=bn, BLOQUE_K=bk, **_hilos(a, 4))
    return c


def siguiente_potencia_de_dos(n: int) -> int:
    """La menor potencia de dos ≥ ``n`` (1 para 0 y 1), como ``triton.next_power_of_2``. Lección 11."""
    n = leer_numero(n, "n", entero=True, minimo=0, ejemplo="n=781")
    return 1 if n <= 1 else 1 << (n - 1).bit_length()


# --- Comprobaciones comunes ----------------------------------------------------------------------

def _tensores(funcion: str, **tensores) -> None:
    """Tipo, tipo de dato, dispositivo y gradiente de cada tensor, con el error que dice qué hacer."""
    for nombre, t in tensores.items():
        if not isinstance(t, torch.Tensor):
            raise TypeError(f"{funcion} necesita tensores de PyTorch; {nombre} es de tipo {type(t).__name__}. "
                            f"Conviértelo con torch.tensor({nombre}, dtype=torch.float32).")
        if t.dtype not in TIPOS_KERNELS:
            raise ValueError(f"{funcion} trabaja con float32 y float16; {nombre} es {t.dtype}. "
                             f"Conviértelo con {nombre}.float() (o {nombre}.half()).")
        if t.device.type not in ("cpu", "cuda"):
            raise ValueError(f"{funcion}: {nombre} está en {t.device}, y Triton solo corre en GPU CUDA (compilado) "
                             f"o en la CPU (intérprete). Usa {nombre}.cpu() o {nombre}.cuda().")
        if t.requires_grad and torch.is_grad_enabled():
            raise ValueError(f"{funcion} no calcula gradientes (el kernel no tiene pasada hacia atrás) y {nombre} "
                             f"los pide (requires_grad=True). Usa {nombre}.detach() o with torch.no_grad():.")
    dispositivos = {nombre: t.device for nombre, t in tensores.items()}
    if len(set(dispositivos.values())) > 1:
        donde = " y ".join(f"{n} en {d}" for n, d in dispositivos.items())
        raise ValueError(f"{funcion} necesita los tensores en el mismo dispositivo; tienes {donde}. "
                         "Pásalos al mismo con .to(dispositivo).")
    tipos = {nombre: t.dtype for nombre, t in tensores.items()}
    if len(set(tipos.values())) > 1:
        cuales = " y ".join(f"{n} es {d}" for n, d in tipos.items())
        raise ValueError(f"{funcion} necesita el mismo tipo de dato en todos los tensores; {cuales}. "
                         "Convierte uno con .to(otro.dtype).")


def _contiguos(funcion: str, **tensores) -> None:
    for nombre, t in tensores.items():
        if not t.is_contiguous():
            raise ValueError(f"{funcion} lee {nombre} como un bloque seguido de memoria, y {nombre} no es contiguo "
                             f"(pasos {t.stride()}, p. ej. una traspuesta o un corte). Usa {nombre}.contiguous().")


def _potencia_de_dos(valor, nombre: str, minimo: int, maximo: int, ejemplo: str | None = None) -> int:
    numero = leer_numero(valor, nombre, entero=True, minimo=minimo, maximo=maximo,
                         ejemplo=ejemplo or (minimo * 4 if minimo * 4 <= maximo else minimo))
    if numero & (numero - 1):
        raise ValueError(f"{nombre} debe ser una potencia de dos (tl.arange lo exige); recibí {numero}. "
                         f"Prueba, por ejemplo, {ejemplo or f'{nombre}={siguiente_potencia_de_dos(numero)}'}.")
    return numero


def _programas(tensor: torch.Tensor):
    """El módulo de kernels, y un error claro si el modo de Triton no sirve para ``tensor``."""
    programas = cargar_programas()
    if simulacion_activa() and modo_triton() == COMPILADO:
        raise RuntimeError(
            f"La GPU es simulada ({VARIABLE_SIMULAR}): tus tensores viven en la CPU, pero Triton ya estaba importado "
            "sin su intérprete (lo importaste tú, o torch.compile, antes de encender la simulación), así que sus "
            f"kernels solo correrían en una GPU de verdad. Reinicia el kernel y pon {VARIABLE_SIMULAR}=T4 antes de "
            "importar nada: la simulación enciende el intérprete (TRITON_INTERPRET=1) si triton aún no está importado.")
    if tensor.device.type == "cpu" and modo_triton() == COMPILADO:
        if torch.cuda.is_available():
            raise RuntimeError(
                "Tus tensores están en la CPU, y en esta máquina hay GPU CUDA: los kernels del curso se compilan "
                "para ella. Pasa los tensores con .cuda(). Para usar el intérprete en la CPU, reinicia el kernel "
                "y, antes de importar nada, ejecuta import os; os.environ['TRITON_INTERPRET'] = '1'.")
        raise RuntimeError(
            "Tus tensores están en la CPU, pero Triton ya estaba importado sin su intérprete (lo importaste tú, "
            "o torch.compile, antes que el curso), así que sus kernels solo correrían en una GPU, y aquí no hay. "
            "Reinicia el kernel y, antes de importar nada, ejecuta import os; os.environ['TRITON_INTERPRET'] = '1' "
            "(o lanza antes un kernel del curso: lo pone él).")
    version = programas.triton.__version__
    if modo_triton() == INTERPRETE and not version_suficiente(version) and _numpy_estricta():
        import numpy

        raise RuntimeError(
            f"El intérprete de triton {version} no ejecuta bien estos kernels con NumPy {numpy.__version__}: "
            f"sus bucles fallan («only 0-dimensional arrays can be converted to Python scalars»). Actualízalo: "
            f"pip install -U \"triton>={TRITON_MINIMO}\".")
    return programas


def _numpy_estricta() -> bool:
    """¿Se niega esta NumPy a convertir un vector de un elemento en un número? (Las antiguas solo avisaban.)"""
    import warnings

    import numpy

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            int(numpy.zeros(1, dtype=numpy.int64))
        except TypeError:
            return True
    return False


def _interpretado() -> bool:
    """¿Corren los kernels en el intérprete? Lo decide ``carga`` (también con la T4 simulada,
    donde los tensores dicen «cuda» pero viven en la CPU)."""
    return modo_triton() == INTERPRETE


def _hilos(tensor: torch.Tensor, hilos: int) -> dict:
    """``num_warps`` para la GPU (grupos de 32 hilos por programa); el intérprete no lo usa."""
    return {} if _interpretado() else {"num_warps": hilos}


def _sin_avisos_de_numpy(tensor: torch.Tensor):
    """En el intérprete los kernels calculan con NumPy, que avisa en stderr de lo que la GPU hace en
    silencio según IEEE 754 (``-inf - (-inf)`` es NaN, ``exp(1000)`` es inf). Los resultados son
    los mismos; los avisos sobran."""
    if not _interpretado():
        return contextlib.nullcontext()
    import numpy

    return numpy.errstate(all="ignore")


def _division_hacia_arriba(a: int, b: int) -> int:
    return -(-a // b)
