"""Ajustar un modelo de lenguaje con LoRA y QLoRA en una T4 sin quedarse sin memoria (lección 09).

- ``diminuto``: ``modelo_diminuto()``, un Qwen2 de 64 de ancho y un tokenizador de caracteres,
  hechos en memoria (sin red), y ``TEXTO_ENTRENAMIENTO``, el texto en español que aprende.
- ``arquitecturas``: Qwen2.5-0.5B y Qwen2.5-7B escritos a mano (valores de su ``config.json``) y
  ``modelo_en_meta``: el modelo entero en el dispositivo ``meta``, sin ocupar memoria.
- ``lora``: ``LoRALineal`` (LoRA a mano), ``parametros_lora`` (cuántos se entrenan) y
  ``aplicar_lora`` (lo mismo con peft), con errores en español.
- ``memoria_ajuste``: pesos, gradientes, optimizador y activaciones de ajustar entero, con LoRA
  o con QLoRA, con el desglose de la lección 07.
- ``cuantizacion``: ``config_4_bits`` (NF4 con bitsandbytes) y sus comprobaciones.
- ``entrenar_lora``: ``ajustar``, el bucle de entrenamiento del adaptador con checkpoints
  atómicos y reanudación, y ``guardar_adaptador``.

``transformers`` y ``peft`` se importan solo dentro de las funciones que los usan: importar este
subpaquete no los carga.
"""

from .arquitecturas import ARQUITECTURAS, config_de, modelo_en_meta
from .cuantizacion import CuantizacionNoDisponible, bitsandbytes_instalado, comprobar_4_bits, config_4_bits
from .diminuto import ALFABETO, TEXTO_ENTRENAMIENTO, modelo_diminuto, tokenizador_diminuto
from .entrenar_lora import ResultadoAjuste, ajustar, estado_adaptador, guardar_adaptador, trozos_de_texto
from .lora import LoRALineal, aplicar_lora, capas_lineales, elegir_capas, parametros_lora, validar_r
from .memoria_ajuste import BYTES_NF4, METODOS, DesgloseAjuste, memoria_ajuste, tabla_metodos

__all__ = [
    "ALFABETO", "ARQUITECTURAS", "BYTES_NF4", "METODOS", "TEXTO_ENTRENAMIENTO",
    "CuantizacionNoDisponible", "DesgloseAjuste", "LoRALineal", "ResultadoAjuste",
    "ajustar", "aplicar_lora", "bitsandbytes_instalado", "capas_lineales", "comprobar_4_bits", "config_4_bits",
    "config_de", "elegir_capas", "estado_adaptador", "guardar_adaptador", "memoria_ajuste", "modelo_diminuto",
    "modelo_en_meta", "parametros_lora", "tabla_metodos", "tokenizador_diminuto", "trozos_de_texto", "validar_r",
]
