"""De la lección 09 a la 10: dónde queda el adaptador entrenado y cómo cargar un modelo para generar.

- ``ADAPTADOR_DIMINUTO``: la carpeta donde la lección 09 guarda el adaptador del modelo diminuto
  (relativa a la carpeta de trabajo: ``notebooks/`` en tu equipo, ``/content`` en Colab).
- ``ADAPTADOR_QWEN``: donde la celda de la T4 de la lección 09 guarda el adaptador de QLoRA de
  Qwen2.5-0.5B.
- ``buscar_adaptador(carpeta)``: la carpeta si tiene un adaptador completo de ``peft``; si no, None.
- ``cargar_adaptador(modelo_base, carpeta)``: ``PeftModel.from_pretrained``, sin el aviso entre
  ``peft`` y ``transformers`` que no depende de ti.
- ``adaptador_diminuto(tokenizador)``: el modelo diminuto con el adaptador de la lección 09, o con
  uno igual entrenado en el momento si no está (o no se puede cargar).
- ``cargar_para_generar(nombre, dispositivo, adaptador)``: un modelo de ``transformers`` en fp16
  listo para generar, con el adaptador ya fusionado si lo hay (igual de rápido que el base).
"""

from __future__ import annotations

import os
import warnings
from pathlib import Path

import torch

from ..base import mostrar_ruta, mostrar_valor
from ..dispositivo import como_dispositivo

__all__ = ["ADAPTADOR_DIMINUTO", "ADAPTADOR_QWEN", "adaptador_diminuto", "buscar_adaptador", "cargar_adaptador",
           "cargar_para_generar"]

ADAPTADOR_DIMINUTO = Path("checkpoints") / "lora_diminuto" / "adaptador"
ADAPTADOR_QWEN = Path("checkpoints") / "qlora_qwen" / "adaptador"
_ARCHIVOS_ADAPTADOR = ("adapter_config.json", "adapter_model.safetensors")
"""Lo que escribe ``save_pretrained`` de ``peft``: sin los dos, el adaptador está a medias."""


def _ruta(carpeta) -> Path:
    """La ``Path`` de ``carpeta`` (un texto o un Path con algo escrito), o un error en español."""
    if isinstance(carpeta, bool) or not isinstance(carpeta, (str, os.PathLike)) or not str(carpeta).strip() \
            or "\0" in str(carpeta):
        raise ValueError(f"carpeta debe ser la ruta de la carpeta del adaptador (un texto o un Path), p. ej. "
                         f"carpeta=ADAPTADOR_DIMINUTO; recibí {mostrar_valor(carpeta)}.")
    return Path(carpeta)


def buscar_adaptador(carpeta: str | os.PathLike = ADAPTADOR_DIMINUTO) -> Path | None:
    """``carpeta`` si guarda un adaptador completo de ``peft`` (sus dos archivos); si no, None. Lección 10."""
    ruta = _ruta(carpeta)
    return ruta if all((ruta / archivo).is_file() for archivo in _ARCHIVOS_ADAPTADOR) else None


def cargar_adaptador(modelo_base, carpeta: str | os.PathLike):
    """``PeftModel.from_pretrained(modelo_base, carpeta)``: el modelo con el adaptador guardado. Lección 10.

    Es la llamada de ``peft`` tal cual; solo calla el ``FutureWarning`` de ``is_gradient_checkpointing``
    (peft 0.21 pregunta por un nombre que transformers 5 marca como obsoleto: no depende de ti).
    """
    if not isinstance(modelo_base, torch.nn.Module):
        raise ValueError(f"modelo_base debe ser el modelo de transformers sin adaptador (p. ej. el de "
                         f"modelo_diminuto()); recibí {mostrar_valor(modelo_base)} (de tipo {type(modelo_base).__name__}).")
    if buscar_adaptador(carpeta) is None:
        raise ValueError(f"carpeta {str(carpeta)!r}: no tiene un adaptador completo de peft ({' y '.join(_ARCHIVOS_ADAPTADOR)}). "
                         "Guárdalo antes con guardar_adaptador(modelo_lora, carpeta) (lección 09) o da la carpeta "
                         "donde lo guardaste.")
    from peft import PeftModel

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r"`is_gradient_checkpointing` is deprecated", category=FutureWarning)
        return PeftModel.from_pretrained(modelo_base, str(carpeta))


def adaptador_diminuto(tokenizador, carpeta: str | os.PathLike = ADAPTADOR_DIMINUTO, *, epocas: int = 10,
                       avisar=print):
    """El modelo diminuto con el adaptador de la lección 09, listo para generar. Lección 10.

    Si ``carpeta`` tiene el adaptador, lo carga con ``cargar_adaptador`` sobre un ``modelo_diminuto(semilla=0)``
    nuevo. Si no está (no ejecutaste la 09, o guardaste en Drive) o no se puede cargar (a medias
    porque la 09 lo está escribiendo, o de otro modelo), entrena uno igual que el de la 09:
    ``aplicar_lora(r=8, alpha=16)`` con semilla 0 y ``ajustar`` durante ``epocas`` épocas, con
    ``tokenizador``. Dice con ``avisar`` qué hizo. El modelo queda en modo evaluación.
    """
    from safetensors import SafetensorError  # un archivo a medias: «Error while deserializing header»

    from ..ajuste import ajustar, aplicar_lora, modelo_diminuto

    ruta = buscar_adaptador(carpeta)
    if ruta is not None:
        try:
            modelo = cargar_adaptador(modelo_diminuto(semilla=0)[0], ruta)
            avisar(f"Cargué el adaptador de la lección 09 ({mostrar_ruta(ruta)}).")
            return modelo.eval()
        except (OSError, ValueError, RuntimeError, SafetensorError) as error:
            avisar(f"No pude cargar el adaptador de {mostrar_ruta(ruta)} ({type(error).__name__}: {str(error).splitlines()[0][:120]}).")
    with torch.random.fork_rng(devices=[]):  # el mismo adaptador inicial que la lección 09, sin tocar tu semilla
        torch.manual_seed(0)
        modelo = aplicar_lora(modelo_diminuto(semilla=0)[0], r=8, alpha=16)
    entrenado = ajustar(modelo, tokenizador, epocas=epocas, avisar=lambda *a: None)
    avisar(f"Sin el adaptador de la lección 09 en {mostrar_ruta(carpeta)}: entrené uno igual aquí "
           f"(pérdida {entrenado.perdidas[0]:.2f} → {entrenado.perdidas[-1]:.2f}).")
    return modelo.eval()


def cargar_para_generar(nombre: str = "Qwen/Qwen2.5-0.5B", dispositivo="cuda", adaptador=None,
                        dtype=torch.float16):
    """``(modelo, tokenizador)`` para generar: pesos en ``dtype`` (fp16) en ``dispositivo``. Lección 10.

    ``nombre``: el modelo en el Hub de Hugging Face (se descarga la primera vez: ~1 GB para
    Qwen2.5-0.5B). ``adaptador``: una carpeta de ``peft`` (``ADAPTADOR_QWEN``) o None; si la das, el
    adaptador se carga y se **fusiona** (``merge_and_unload``): queda un modelo normal, igual de
    rápido que el original. El modelo queda en modo evaluación.
    """
    if not isinstance(nombre, str) or not nombre.strip():
        raise ValueError(f"nombre debe ser el nombre de un modelo del Hub como texto, p. ej. nombre='Qwen/Qwen2.5-0.5B'; "
                         f"recibí {mostrar_valor(nombre)}.")
    if not isinstance(dtype, torch.dtype) or not dtype.is_floating_point:
        raise ValueError(f"dtype debe ser un tipo de coma flotante de torch (torch.float16, torch.bfloat16 o "
                         f"torch.float32); recibí {mostrar_valor(dtype)}.")
    if adaptador is not None and buscar_adaptador(adaptador) is None:
        raise ValueError(f"adaptador {str(adaptador)!r}: no tiene un adaptador completo de peft "
                         f"({' y '.join(_ARCHIVOS_ADAPTADOR)}). Da la carpeta donde lo guardó la lección 09 o None.")
    d = como_dispositivo(dispositivo)
    import transformers
    from transformers import AutoModelForCausalLM, AutoTokenizer

    clave = "dtype" if int(transformers.__version__.split(".")[0]) >= 5 else "torch_dtype"
    modelo = AutoModelForCausalLM.from_pretrained(nombre, **{clave: dtype}).to(d)
    tokenizador = AutoTokenizer.from_pretrained(nombre)
    if adaptador is not None:
        modelo = cargar_adaptador(modelo, adaptador).merge_and_unload()
    return modelo.eval(), tokenizador
