"""TODO docstring de graficos."""

from .curvas import (
    curvas_entrenamiento,
    dibujos_fallados,
    grafico_cargadores,
    grafico_memoria_entrenamiento,
    grafico_reanudacion,
    grafico_tiempos_epoca,
    muestras_por_clase,
)
from .estilo import COLORES, TAMANO, dar_estilo, figura_a_png, leyenda_fuera, nueva_figura, pyplot
from .velocidad_memoria import (
    curva_referencia,
    grafico_barrido,
    grafico_entrenamiento_gpus,
    grafico_modelos_vram,
    grafico_muestras,
    grafico_picos,
    grafico_vram,
)

__all__ = [
    "COLORES",
    "TAMANO",
    "curva_referencia",
    "curvas_entrenamiento",
    "dar_estilo",
    "dibujos_fallados",
    "figura_a_png",
    "grafico_barrido",
    "grafico_cargadores",
    "grafico_entrenamiento_gpus",
    "grafico_memoria_entrenamiento",
    "grafico_modelos_vram",
    "grafico_muestras",
    "grafico_picos",
    "grafico_reanudacion",
    "grafico_tiempos_epoca",
    "grafico_vram",
    "leyenda_fuera",
    "muestras_por_clase",
    "nueva_figura",
    "pyplot",
]
