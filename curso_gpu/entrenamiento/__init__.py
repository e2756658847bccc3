"""Entrenar en cualquier dispositivo. Lección 05.

- ``datos``: las imágenes de líneas de 8×8.
- ``modelos``: la CNN pequeña, la red tabular y el Transformer de las lecciones 04 y 07.
- ``entradas``: comprobar modelo, datos y números antes de entrenar, con errores claros.
- ``resultados``: ``Registro``, ``Historial`` y ``Prediccion``.
- ``ddp``: ``entrenar_ddp``, la CNN de la lección 05 con varios procesos (lección 08).
- ``nucleo``: lo que comparten los tres entrenadores (candado, reanudar, guardar el checkpoint).
- ``bucle``: ``entrenar``, ``evaluar`` y ``predecir``.
"""

from ..base import cargar_perezoso

# Cada nombre público y el módulo donde vive. Se importa al usarlo por primera vez.
CASAS = {
    "CADA_REGISTRO": "bucle",
    "PerdidaNoFinita": "bucle",
    "calcular_accuracy": "bucle",
    "entrenar": "bucle",
    "evaluar": "bucle",
    "fijar_semilla": "bucle",
    "predecir": "bucle",
    "LADO": "datos",
    "NOMBRES_CLASES": "datos",
    "RECETAS": "datos",
    "RUIDO": "datos",
    "generar_dataset": "datos",
    "generar_datos_tabulares": "datos",
    "lineas_dibujadas": "datos",
    "DispositivosDistintos": "entradas",
    "PERDIDAS_DE_REGRESION": "entradas",
    "SEMILLA_MAXIMA": "entradas",
    "comprobar_con_modelo": "entradas",
    "comprobar_mismo_dispositivo": "entradas",
    "modo_evaluacion": "entradas",
    "validar_datos": "entradas",
    "validar_modelo": "entradas",
    "validar_positivo": "entradas",
    "validar_semilla": "entradas",
    "CNNPequena": "modelos",
    "GPT2Pequeno": "modelos",
    "MLPTabular": "modelos",
    "contar_parametros_entrenables": "modelos",
    "EJEMPLOS_POR_CLASE": "ddp",
    "FALLO": "ddp",
    "LR": "ddp",
    "ResultadoDDP": "ddp",
    "entrenar_ddp": "ddp",
    "NucleoCheckpoints": "nucleo",
    "configuracion_de_entrenamiento": "nucleo",
    "Historial": "resultados",
    "Prediccion": "resultados",
    "Registro": "resultados",
}

__all__ = sorted(CASAS)


def __getattr__(nombre: str):
    return cargar_perezoso(__name__, CASAS, nombre, globals())


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(CASAS))
