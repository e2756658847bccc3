"""TODO docstring de rendimiento."""

from .cargadores import (
    ComparacionCargadores,
    ESPERA_MAXIMA,
    MedicionCargador,
    cerrar_iterador,
    comparar_cargadores,
    entero_minimo,
)
from .conjuntos import ImagenesSinteticas
from .diagnostico import CONSEJOS, CUELLOS, Diagnostico, FIJO_EN_DESPACHOS, PasoFallido, diagnosticar
from .precision_mixta import (
    BANDERAS_BF16,
    PrecisionNoDisponible,
    SoporteBF16,
    TIPOS,
    comprobar_precision,
    preparar_precision,
    soporte_bf16_cpu,
)

__all__ = [
    "BANDERAS_BF16",
    "CONSEJOS",
    "CUELLOS",
    "ComparacionCargadores",
    "Diagnostico",
    "ESPERA_MAXIMA",
    "FIJO_EN_DESPACHOS",
    "ImagenesSinteticas",
    "MedicionCargador",
    "PasoFallido",
    "PrecisionNoDisponible",
    "SoporteBF16",
    "TIPOS",
    "cerrar_iterador",
    "comparar_cargadores",
    "comprobar_precision",
    "diagnosticar",
    "entero_minimo",
    "preparar_precision",
    "soporte_bf16_cpu",
]
