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

from typing import TYPE_CHECKING

from ..base._puerta import abrir

# CASAS (cada nombre y su módulo) y __all__ salen de los __all__ de los módulos; cada nombre
# se importa al usarlo por primera vez.
abrir(globals())

if TYPE_CHECKING:  # para los editores y los comprobadores de tipos; al ejecutar no se importa nada
    from .arquitecturas import *  # noqa: F403
    from .cuantizacion import *  # noqa: F403
    from .diminuto import *  # noqa: F403
    from .entrenar_lora import *  # noqa: F403
    from .lora import *  # noqa: F403
    from .memoria_metodos import *  # noqa: F403
