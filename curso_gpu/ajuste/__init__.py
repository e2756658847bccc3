"""Ajustar un modelo de lenguaje con LoRA y QLoRA (lección 09).

``transformers`` y ``peft`` se importan solo dentro de las funciones que los usan: importar este
subpaquete no los carga.
"""

from .diminuto import ALFABETO, TEXTO_ENTRENAMIENTO, modelo_diminuto, tokenizador_diminuto

__all__ = ["ALFABETO", "TEXTO_ENTRENAMIENTO", "modelo_diminuto", "tokenizador_diminuto"]
