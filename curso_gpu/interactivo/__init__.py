"""Lo que se usa con las manos: widgets, la calculadora y la línea de órdenes.

- ``widgets``: la pizarra y el selector de dispositivo (lección 05), con su foto HTML fija.
- ``calculadora``: la calculadora de VRAM (lección 04).
- ``cli``: ``python -m curso_gpu``: entorno, velocidad y qué modelo te cabe (lecciones 01 a 04).
"""

from ..base import cargar_perezoso

# Cada nombre público y el módulo donde vive. Se importa al usarlo por primera vez.
CASAS = {
    "CLASES_CSS": "calculadora",
    "CalculadoraVRAM": "calculadora",
    "EstadoCalculadora": "calculadora",
    "OPCION_A_MANO": "calculadora",
    "OPCION_ESCRIBIR": "calculadora",
    "calculadora_vram": "calculadora",
    "DESCRIPCION": "cli",
    "SECCIONES": "cli",
    "crear_analizador": "cli",
    "resumen_memoria": "cli",
    "resumen_velocidad": "cli",
    "seccion_entorno": "cli",
    "seccion_memoria": "cli",
    "seccion_velocidad": "cli",
    "AVISO_INACTIVA": "widgets",
    "AVISO_VACIA": "widgets",
    "CLASE_COPIA_FIJA": "widgets",
    "COLOR_PINTADA": "widgets",
    "COLOR_VACIA": "widgets",
    "LISTA": "widgets",
    "LogicaPizarra": "widgets",
    "Pizarra": "widgets",
    "SelectorDispositivo": "widgets",
    "con_respaldo_html": "widgets",
    "pizarra": "widgets",
    "selector_dispositivo": "widgets",
}

__all__ = sorted(CASAS)


def __getattr__(nombre: str):
    return cargar_perezoso(__name__, CASAS, nombre, globals())


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(CASAS))
