"""Ajustar un modelo de lenguaje con LoRA y QLoRA en una T4 sin quedarse sin memoria (lección 09).

- ``diminuto``: ``modelo_diminuto()``, un Qwen2 de 64 de ancho y un tokenizador de caracteres,
  hechos en memoria (sin red), y ``TEXTO_ENTRENAMIENTO``, el texto en español que aprende.
- ``arquitecturas``: Qwen2.5-0.5B y Qwen2.5-7B escritos a mano (valores de su ``config.json``) y
  ``modelo_en_meta``: el modelo entero en el dispositivo ``meta``, sin ocupar memoria.
- ``lora``: ``LoRALineal`` (LoRA a mano), ``parametros_lora`` (cuántos se entrenan) y
  ``aplicar_lora`` (lo mismo con peft; también el ``Conv1D`` de GPT-2), con errores en español;
  ``tiene_adaptador`` dice si un modelo ya lleva LoRA (un segundo ``aplicar_lora`` se rechaza).
- ``memoria_metodos``: ``memoria_ajuste``, pesos, gradientes, optimizador y activaciones de ajustar entero, con LoRA
  o con QLoRA, con el desglose de la lección 07.
- ``cuantizacion``: ``config_4_bits`` (NF4 con bitsandbytes) y sus comprobaciones.
- ``entrenar_lora``: ``ajustar``, el bucle de entrenamiento del adaptador con checkpoints
  atómicos y reanudación, y ``guardar_adaptador``.

``transformers`` y ``peft`` se importan solo dentro de las funciones que los usan: importar este
subpaquete no los carga.
"""

from ..base import cargar_perezoso

# Cada nombre público y el módulo donde vive. Se importa al usarlo por primera vez.
CASAS = {
    "ARQUITECTURAS": "arquitecturas",
    "config_de": "arquitecturas",
    "modelo_en_meta": "arquitecturas",
    "CuantizacionNoDisponible": "cuantizacion",
    "bitsandbytes_instalado": "cuantizacion",
    "comprobar_4_bits": "cuantizacion",
    "config_4_bits": "cuantizacion",
    "ALFABETO": "diminuto",
    "TEXTO_ENTRENAMIENTO": "diminuto",
    "modelo_diminuto": "diminuto",
    "tokenizador_diminuto": "diminuto",
    "ResultadoAjuste": "entrenar_lora",
    "ajustar": "entrenar_lora",
    "estado_adaptador": "entrenar_lora",
    "guardar_adaptador": "entrenar_lora",
    "trozos_de_texto": "entrenar_lora",
    "LoRALineal": "lora",
    "aplicar_lora": "lora",
    "capas_lineales": "lora",
    "elegir_capas": "lora",
    "parametros_lora": "lora",
    "tiene_adaptador": "lora",
    "validar_r": "lora",
    "BYTES_NF4": "memoria_metodos",
    "DesgloseAjuste": "memoria_metodos",
    "METODOS": "memoria_metodos",
    "memoria_ajuste": "memoria_metodos",
    "tabla_metodos": "memoria_metodos",
}

__all__ = sorted(CASAS)


def __getattr__(nombre: str):
    return cargar_perezoso(__name__, CASAS, nombre, globals())


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(CASAS))
