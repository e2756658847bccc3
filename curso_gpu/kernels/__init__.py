"""Tus primeros kernels de GPU con Triton: suma, softmax por filas y matmul por teselas. Lección 11.

- ``carga``: importar ``triton`` en el modo que toca (compilado con CUDA, intérprete en la CPU),
  ``modo_triton()`` y qué hacer si falta (``COMO_INSTALAR``).
- ``programas``: los kernels, tal como se escriben en Triton (importarlo importa ``triton``).
- ``lanzadores``: ``suma``, ``softmax_filas`` y ``matmul_teselas`` con tensores de PyTorch, comprobados.
- ``cuentas``: los bytes que mueve cada kernel (``trafico_softmax``) y los FLOP de una matmul.

``triton`` se importa al lanzar el primer kernel, nunca al importar este subpaquete.
"""

from ..base import cargar_perezoso

# Cada nombre público y el módulo donde vive. Se importa al usarlo por primera vez.
CASAS = {
    "COMO_INSTALAR": "carga",
    "COMPILADO": "carga",
    "INTERPRETE": "carga",
    "TRITON_MINIMO": "carga",
    "cargar_programas": "carga",
    "interprete_pedido": "carga",
    "modo_triton": "carga",
    "preparar_interprete": "carga",
    "triton_instalado": "carga",
    "version_suficiente": "carga",
    "Paso": "cuentas",
    "Trafico": "cuentas",
    "flops_matmul": "cuentas",
    "trafico_softmax": "cuentas",
    "trafico_suma": "cuentas",
    "BLOQUES_MATMUL": "lanzadores",
    "BLOQUE_SOFTMAX_MAXIMO": "lanzadores",
    "BLOQUE_SUMA": "lanzadores",
    "TIPOS_KERNELS": "lanzadores",
    "matmul_teselas": "lanzadores",
    "siguiente_potencia_de_dos": "lanzadores",
    "softmax_filas": "lanzadores",
    "suma": "lanzadores",
    "kernel_matmul_teselas": "programas",
    "kernel_softmax_filas": "programas",
    "kernel_softmax_filas_largas": "programas",
    "kernel_suma": "programas",
}

__all__ = sorted(CASAS)


def __getattr__(nombre: str):
    return cargar_perezoso(__name__, CASAS, nombre, globals())


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(CASAS))
