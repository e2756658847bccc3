"""Cuánta memoria necesita un modelo. Lecciones 04 y 07.

- ``regla``: la regla rápida (inferencia y los 16 bytes por parámetro de entrenar) y si cabe en tu GPU.
- ``medida``: la memoria de entrenar medida por partes: pesos, gradientes, optimizador y activaciones.
- ``lote``: ``lote_maximo``, el mayor lote que cabe, probado o calculado.
"""

from ..base import cargar_perezoso

# Cada nombre público y el módulo donde vive. Se importa al usarlo por primera vez.
CASAS = {
    "MEMORIA_MAXIMA": "lote",
    "lote_maximo": "lote",
    "DesgloseMemoria": "medida",
    "ESTADOS_OPTIMIZADOR": "medida",
    "LOTE_MAXIMO_A_PROBAR": "medida",
    "TIPO_MIXTA": "medida",
    "medir_memoria_entrenamiento": "medida",
    "normalizar_optimizador": "medida",
    "normalizar_precision_entrenamiento": "medida",
    "tensores_de": "medida",
    "validar_entrada_ejemplo": "medida",
    "validar_modelo_entrenable": "medida",
    "BYTES_ENTRENAMIENTO": "regla",
    "BYTES_POR_PARAMETRO": "regla",
    "BYTES_POR_PARAMETRO_MAXIMO": "regla",
    "FilaVRAM": "regla",
    "GB": "regla",
    "GIB": "regla",
    "MARGEN_INFERENCIA": "regla",
    "MARGEN_MAXIMO": "regla",
    "MINIMO_SIN_SUFIJO": "regla",
    "PARAMETROS_MAXIMOS": "regla",
    "PRECISIONES_MODELO": "regla",
    "TablaVRAM": "regla",
    "VRAM_MAXIMA_GB": "regla",
    "a_gb": "regla",
    "a_gib": "regla",
    "bytes_por_parametro": "regla",
    "contar_parametros": "regla",
    "formatear_parametros": "regla",
    "memoria_entrenamiento": "regla",
    "memoria_inferencia": "regla",
    "memoria_pesos": "regla",
    "modelo_mas_grande": "regla",
    "nombre_del_modelo": "regla",
    "precision_de_modelo": "regla",
    "tabla_vram": "regla",
}

__all__ = sorted(CASAS)


def __getattr__(nombre: str):
    return cargar_perezoso(__name__, CASAS, nombre, globals())


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(CASAS))
