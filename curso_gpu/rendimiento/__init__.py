"""¿Por qué va lenta mi GPU? Lección 06.

- ``precision_mixta``: ``autocast`` y ``GradScaler`` según lo que pueda cada dispositivo.
- ``conjuntos``: imágenes con aumento de datos en la CPU, para el ``DataLoader``.
- ``cargadores``: ``comparar_cargadores``: muestras por segundo según ``num_workers`` y ``pin_memory``.
- ``diagnostico``: ``diagnosticar``: ¿datos, lanzamientos o cálculo?
"""

from ..base import cargar_perezoso

# Cada nombre público y el módulo donde vive. Se importa al usarlo por primera vez.
CASAS = {
    "ComparacionCargadores": "cargadores",
    "ESPERA_MAXIMA": "cargadores",
    "MedicionCargador": "cargadores",
    "cerrar_iterador": "cargadores",
    "comparar_cargadores": "cargadores",
    "entero_minimo": "cargadores",
    "ImagenesSinteticas": "conjuntos",
    "CONSEJOS": "diagnostico",
    "CUELLOS": "diagnostico",
    "Diagnostico": "diagnostico",
    "FIJO_EN_DESPACHOS": "diagnostico",
    "PasoFallido": "diagnostico",
    "diagnosticar": "diagnostico",
    "BANDERAS_BF16": "precision_mixta",
    "PrecisionNoDisponible": "precision_mixta",
    "SoporteBF16": "precision_mixta",
    "TIPOS": "precision_mixta",
    "comprobar_precision": "precision_mixta",
    "preparar_precision": "precision_mixta",
    "soporte_bf16_cpu": "precision_mixta",
}

__all__ = sorted(CASAS)


def __getattr__(nombre: str):
    return cargar_perezoso(__name__, CASAS, nombre, globals())


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(CASAS))
