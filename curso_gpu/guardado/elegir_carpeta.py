"""Elegir la carpeta de checkpoints: por su nombre (local o Drive) o a partir de una ruta. Lección 05.

- ``carpeta_checkpoints(nombre, cada=10, reanudar=None)``: ``checkpoints/<nombre>`` en la carpeta
  actual; con ``drive=True`` (solo en Colab, y solo si tú lo eliges), una carpeta en Google Drive.
- ``como_carpeta(checkpoints)``: lo que reciben los entrenadores (una carpeta o una ruta), como
  ``CarpetaCheckpoints``.
"""

from __future__ import annotations

import os
import warnings
from pathlib import Path

from ..base import leer_numero
from .carpeta import CarpetaCheckpoints
from .destino import comprobar_destino
from .escritura_segura import AvisoCheckpoint

__all__ = ["carpeta_checkpoints", "como_carpeta"]


def carpeta_checkpoints(
    nombre: str,
    *,
    cada: int | None = None,
    reanudar: bool | None = None,
    drive: bool = False,
    base: str | os.PathLike | None = None,
    conservar: int = 3,
    silenciosa: bool = False,
) -> CarpetaCheckpoints:
    """La carpeta donde guardar los checkpoints del entrenamiento ``nombre``. Lección 05.

    - ``cada=10``: un checkpoint cada 10 épocas; ``cada=0``: solo al final. Sin ``cada`` (None),
      lo decide el entrenador: ``entrenar`` guarda al final; ``entrenar_ddp`` y ``ajustar``, cada época.
    - ``reanudar``: None (por defecto) sigue desde el último checkpoint si lo hay; False empieza
      de cero y aparta los viejos a ``anteriores/<fecha>/`` (nunca se borran).

    - ``drive=False`` (por defecto): la carpeta local ``checkpoints/<nombre>``. Montar Drive
      pide permisos amplios sobre tu Drive, así que nunca se hace sin que lo pidas.
    - ``drive=True``: Google Drive (solo dentro de Colab; lo monta ahora y te pide permiso).
    - ``base``: la carpeta local donde crear ``<nombre>`` (por defecto ``./checkpoints``).

    Dice en español dónde quedan y comprueba ya que se puede escribir allí.
    """
    if not isinstance(nombre, str) or not nombre.strip() or any(s in nombre for s in ("/", "\\", "\0")) or nombre in (".", ".."):
        raise ValueError(
            f"El nombre de la carpeta de checkpoints no vale: {nombre!r}. "
            "Usa un nombre sencillo sin barras, por ejemplo 'cnn_lineas'.")
    from ..dispositivo import en_colab

    base = comprobar_destino(base if base is not None else Path.cwd() / "checkpoints", "base", carpeta=True)
    local = comprobar_destino(base / nombre, "carpeta_checkpoints", carpeta=True) if base.is_dir() else base / nombre
    quiere_drive = bool(drive)
    opciones = {"conservar": conservar, "cada": cada, "reanudar": reanudar}
    carpeta = CarpetaCheckpoints(ruta=local, local=local, en_drive=False, **opciones)
    if quiere_drive:
        if not en_colab():
            raise ValueError(
                "drive=True solo funciona dentro de Google Colab: aquí no hay Google Drive que montar. "
                "Usa drive=False (carpeta local) o abre el notebook en Colab.")
        from ..dispositivo import montar_drive

        montado = montar_drive(local=local)
        if montado is None:
            warnings.warn(
                "No se pudo montar Google Drive: los checkpoints se guardarán solo en local "
                f"({local}) y se perderán si Colab se desconecta.", AvisoCheckpoint, stacklevel=2)
        else:
            carpeta = CarpetaCheckpoints(
                ruta=Path(montado) / "checkpoints" / nombre, local=local, en_drive=True, **opciones)
    carpeta.comprobar_escritura()
    if not silenciosa:
        print(carpeta)
    return carpeta


def como_carpeta(checkpoints, *, cada_por_defecto: int = 0, **opciones) -> CarpetaCheckpoints:
    """Una ``CarpetaCheckpoints`` o una ruta, como ``CarpetaCheckpoints``. Lecciones 05, 08 y 09.

    - ``opciones`` (``cada``, ``reanudar``, ``conservar``): una ruta las toma; una carpeta las toma
      si coinciden con las suyas o si no eligió ``cada``; si dicen otra cosa que la carpeta, un error
      que dice cómo cambiarla (``carpeta.con(cada=1)``): nunca se ignora lo que pides.
    - ``cada_por_defecto``: cada cuántas épocas guarda el entrenador si nadie eligió ``cada``
      (``entrenar``: 0, al final; ``entrenar_ddp`` y ``ajustar``: 1, cada época).

    La ruta se comprueba con ``comprobar_destino`` (una carpeta donde se puede escribir).
    """
    otras = set(opciones) - {"cada", "reanudar", "conservar"}
    if otras:
        raise ValueError(f"como_carpeta solo acepta cada, reanudar o conservar; recibí {sorted(otras)}.")
    if isinstance(checkpoints, CarpetaCheckpoints):
        carpeta = checkpoints
        distintas = {k: v for k, v in opciones.items()
                     if getattr(carpeta, k) != v and not (k == "cada" and carpeta.cada is None)}
        if distintas:
            pedido = ", ".join(f"{k}={v!r}" for k, v in distintas.items())
            tiene = ", ".join(f"{k}={getattr(carpeta, k)!r}" for k in distintas)
            raise ValueError(f"La carpeta de checkpoints ya dice {tiene} y aquí se pide {pedido}: no sé cuál "
                             f"quieres. Pasa la carpeta cambiada, carpeta.con({pedido}), o créala así: "
                             f"carpeta_checkpoints('nombre', {pedido}).")
        if opciones:
            carpeta = carpeta.con(**opciones)
    elif isinstance(checkpoints, (str, os.PathLike)):
        ruta = comprobar_destino(checkpoints, "checkpoints", carpeta=True)
        carpeta = CarpetaCheckpoints(ruta=ruta, local=ruta, **opciones)
    else:
        raise ValueError(f"checkpoints debe ser una carpeta (carpeta_checkpoints('nombre') o una ruta como "
                         f"'checkpoints/mi_modelo'); recibí {checkpoints!r}.")
    if carpeta.cada is None:
        carpeta = carpeta.con(cada=leer_numero(cada_por_defecto, "cada_por_defecto", entero=True, minimo=0))
    return carpeta
