"""Cuántos bytes mueve y cuántas operaciones hace cada kernel: la razón para fusionar. Lección 11.

Un kernel como la suma o el softmax hace muy pocas cuentas por byte: su tiempo lo pone la
memoria. Contar los bytes que lee y escribe da su techo (bytes ÷ ancho de banda) y explica por
qué un kernel fusionado gana: el softmax de PyTorch paso a paso (``x - x.max()``, ``exp``,
``sum``, división) lanza cinco kernels y cada uno lee y escribe la matriz entera.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..base import ComoTabla, Tabla, formatear_bytes, leer_numero

__all__ = ["Paso", "Trafico", "flops_matmul", "trafico_softmax", "trafico_suma"]


@dataclass(frozen=True)
class Paso:
    """Un kernel: qué hace y cuántos bytes lee y escribe en la memoria de la GPU."""

    descripcion: str
    leidos: int
    escritos: int


@dataclass(frozen=True)
class Trafico(ComoTabla):
    """Los bytes que un cálculo mueve, kernel a kernel. Lo devuelven ``trafico_softmax`` y ``trafico_suma``."""

    nombre: str
    pasos: tuple[Paso, ...]

    @property
    def leidos(self) -> int:
        return sum(p.leidos for p in self.pasos)

    @property
    def escritos(self) -> int:
        return sum(p.escritos for p in self.pasos)

    @property
    def total(self) -> int:
        """Bytes leídos más escritos: lo que cuesta en ancho de banda."""
        return self.leidos + self.escritos

    def tabla(self) -> Tabla:
        filas = [[p.descripcion, p.leidos, p.escritos] for p in self.pasos]
        kernels = f"{len(self.pasos)} kernel{'s' if len(self.pasos) > 1 else ''}"
        return Tabla(self.nombre, ["kernel", "bytes leídos", "bytes escritos"], filas,
                     total=[f"total ({kernels})", self.leidos, self.escritos],
                     notas=[f"{formatear_bytes(self.total)} movidos en total."])


def _tamano(filas, columnas, bytes_por_elemento, nombre_filas: str = "filas") -> tuple[int, int, int]:
    return (leer_numero(filas, nombre_filas, entero=True, minimo=0, ejemplo=f"{nombre_filas}=1823"),
            leer_numero(columnas, "columnas", entero=True, minimo=0, ejemplo="columnas=781"),
            leer_numero(bytes_por_elemento, "bytes_por_elemento", entero=True, minimo=1, maximo=8,
                        ejemplo="bytes_por_elemento=4"))


def trafico_softmax(filas: int, columnas: int, bytes_por_elemento: int = 4, *, fusionado: bool = True,
                    vueltas: int = 1) -> Trafico:
    """Bytes que mueve el softmax por filas de una matriz ``filas × columnas``. Lección 11.

    ``fusionado=True``: el kernel del curso lee cada fila ``vueltas`` veces (1 si cabe en un
    bloque, 2 si va a trozos) y la escribe una vez. ``fusionado=False``: PyTorch paso a paso,
    ``m = x.max(dim=1)``, ``z = x - m``, ``e = z.exp()``, ``s = e.sum(dim=1)``, ``e / s``: cinco
    kernels; el máximo y la suma por fila (``filas`` valores) también van y vuelven.
    """
    f, c, b = _tamano(filas, columnas, bytes_por_elemento)
    vueltas = leer_numero(vueltas, "vueltas", entero=True, minimo=1, maximo=2, ejemplo="vueltas=1")
    matriz, columna = f * c * b, f * b
    if fusionado:
        pasos = (Paso(f"softmax fusionado ({vueltas} lectura{'s' if vueltas > 1 else ''} de x)", vueltas * matriz, matriz),)
        return Trafico("softmax fusionado (Triton)", pasos)
    pasos = (
        Paso("m = x.max(dim=1)", matriz, columna),
        Paso("z = x - m", matriz + columna, matriz),
        Paso("e = z.exp()", matriz, matriz),
        Paso("s = e.sum(dim=1)", matriz, columna),
        Paso("e / s", matriz + columna, matriz),
    )
    return Trafico("softmax paso a paso (PyTorch sin fusionar)", pasos)


def trafico_suma(n: int, bytes_por_elemento: int = 4) -> Trafico:
    """Bytes que mueve ``x + y`` con ``n`` elementos: lee dos vectores y escribe uno. Lección 11."""
    n, _, b = _tamano(n, 1, bytes_por_elemento, nombre_filas="n")
    return Trafico("suma", (Paso("salida = x + y", 2 * n * b, n * b),))


def flops_matmul(m: int, n: int, k: int) -> int:
    """Operaciones de ``(m × k) @ (k × n)``: una multiplicación y una suma por cada uno de los
    ``m·n·k`` productos, ``2·m·n·k``. Lección 11 (y 03)."""
    m = leer_numero(m, "m", entero=True, minimo=0, ejemplo="m=1024")
    n = leer_numero(n, "n", entero=True, minimo=0, ejemplo="n=1024")
    k = leer_numero(k, "k", entero=True, minimo=0, ejemplo="k=1024")
    return 2 * m * n * k
