"""TODO docstring de entrenamiento."""

from .bucle import (
    CADA_REGISTRO,
    PerdidaNoFinita,
    calcular_accuracy,
    entrenar,
    evaluar,
    fijar_semilla,
    predecir,
)
from .datos import (
    LADO,
    NOMBRES_CLASES,
    RECETAS,
    RUIDO,
    generar_dataset,
    generar_datos_tabulares,
    lineas_dibujadas,
)
from .entradas import (
    DispositivosDistintos,
    SEMILLA_MAXIMA,
    comprobar_con_modelo,
    comprobar_mismo_dispositivo,
    modo_evaluacion,
    validar_datos,
    validar_modelo,
    validar_positivo,
    validar_semilla,
)
from .modelos import (
    CNNPequena,
    GPT2Pequeno,
    MLPTabular,
    contar_parametros_entrenables,
)
from .resultados import Historial, Prediccion, Registro

__all__ = [
    "CADA_REGISTRO",
    "CNNPequena",
    "DispositivosDistintos",
    "GPT2Pequeno",
    "Historial",
    "LADO",
    "MLPTabular",
    "NOMBRES_CLASES",
    "PerdidaNoFinita",
    "Prediccion",
    "RECETAS",
    "RUIDO",
    "Registro",
    "SEMILLA_MAXIMA",
    "calcular_accuracy",
    "comprobar_con_modelo",
    "comprobar_mismo_dispositivo",
    "contar_parametros_entrenables",
    "entrenar",
    "evaluar",
    "fijar_semilla",
    "generar_dataset",
    "generar_datos_tabulares",
    "lineas_dibujadas",
    "modo_evaluacion",
    "predecir",
    "validar_datos",
    "validar_modelo",
    "validar_positivo",
    "validar_semilla",
]
