"""Dejar un modelo listo para servir: ``guardar_para_servir``. Lección 13.

Un servidor carga el modelo de una carpeta, como ``from_pretrained``. Esta función escribe ahí el
modelo (con el adaptador LoRA de la lección 09 ya **fusionado**: un servidor carga un modelo normal) y
su tokenizador, con una plantilla de chat mínima si no trae una (sin ella, ``/v1/chat/completions``
responde 400).
"""

from __future__ import annotations

import os
from pathlib import Path

from ..base import mostrar_valor

__all__ = ["PLANTILLA_CHAT", "guardar_para_servir"]

PLANTILLA_CHAT = ("{% for m in messages %}{{ m['content'] }}\n{% endfor %}")
"""Una plantilla de chat mínima (Jinja): el texto de cada mensaje, uno por línea."""


def guardar_para_servir(modelo, tokenizador, carpeta) -> Path:
    """Guarda ``modelo`` (fusionando su adaptador de ``peft`` si lo tiene) y ``tokenizador`` en ``carpeta``. Lección 13.

    ``carpeta`` no debe existir o debe estar vacía: nunca se pisa un modelo guardado. Devuelve la ruta.
    """
    if isinstance(carpeta, bool) or not isinstance(carpeta, (str, os.PathLike)) or not str(carpeta).strip():
        raise ValueError(f"carpeta debe ser una ruta (texto o Path) nueva o vacía; recibí {mostrar_valor(carpeta)}.")
    ruta = Path(carpeta)
    if ruta.exists() and (not ruta.is_dir() or any(ruta.iterdir())):
        raise FileExistsError(f"{str(ruta)!r} ya existe y no está vacía: no piso lo que hay. Elige otra carpeta.")
    if not hasattr(modelo, "save_pretrained") or not hasattr(tokenizador, "save_pretrained"):
        raise ValueError("modelo y tokenizador deben ser de transformers (tienen save_pretrained); recibí "
                         f"{type(modelo).__name__} y {type(tokenizador).__name__}.")
    if hasattr(modelo, "merge_and_unload"):  # un PeftModel: el adaptador se suma a los pesos
        modelo = modelo.merge_and_unload()
    if getattr(tokenizador, "chat_template", None) is None:
        tokenizador.chat_template = PLANTILLA_CHAT
    from transformers.utils import logging as registro

    ruta.mkdir(parents=True, exist_ok=True)
    barras = registro.is_progress_bar_enabled()
    registro.disable_progress_bar()  # «Writing model shards» iría a stderr: un archivo pequeño no la necesita
    try:
        modelo.save_pretrained(ruta)
        tokenizador.save_pretrained(ruta)
    finally:
        if barras:
            registro.enable_progress_bar()
    return ruta
