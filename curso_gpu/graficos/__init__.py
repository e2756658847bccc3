"""Las figuras del curso (matplotlib se importa al dibujar).

- ``estilo``: el estilo común (``nueva_figura``, ``dar_estilo``, ``leyenda_fuera``).
- ``velocidad_memoria``: velocidad y memoria de un modelo (lecciones 02 a 04).
- ``curvas``: entrenar: curvas, reanudación, memoria, cargadores (lecciones 05 a 07).
"""

from ..base import cargar_perezoso

# Cada nombre público y el módulo donde vive. Se importa al usarlo por primera vez.
CASAS = {
    "curvas_entrenamiento": "curvas",
    "dibujos_fallados": "curvas",
    "grafico_cargadores": "curvas",
    "grafico_memoria_entrenamiento": "curvas",
    "grafico_reanudacion": "curvas",
    "grafico_tiempos_epoca": "curvas",
    "muestras_por_clase": "curvas",
    "COLORES": "estilo",
    "TAMANO": "estilo",
    "dar_estilo": "estilo",
    "figura_a_png": "estilo",
    "leyenda_fuera": "estilo",
    "nueva_figura": "estilo",
    "pyplot": "estilo",
    "curva_referencia": "velocidad_memoria",
    "grafico_barrido": "velocidad_memoria",
    "grafico_entrenamiento_gpus": "velocidad_memoria",
    "grafico_modelos_vram": "velocidad_memoria",
    "grafico_muestras": "velocidad_memoria",
    "grafico_picos": "velocidad_memoria",
    "grafico_vram": "velocidad_memoria",
}

__all__ = sorted(CASAS)


def __getattr__(nombre: str):
    return cargar_perezoso(__name__, CASAS, nombre, globals())


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(CASAS))
