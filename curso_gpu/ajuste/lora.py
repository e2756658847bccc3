"""LoRA: una capa lineal congelada más ``B @ A`` escalado por ``alpha / r`` (lección 09).

- ``LoRALineal``: la capa de la lección, escrita a mano en PyTorch.
- ``parametros_lora``: cuántos parámetros entrena LoRA, exacto, desde una configuración de
  ``transformers`` (el modelo se construye en ``meta``, sin memoria) o desde un modelo.
- ``aplicar_lora``: lo mismo con ``peft`` (``LoraConfig`` + ``get_peft_model``), con errores
  en español para un ``r`` imposible o unos ``target_modules`` que no existen en el modelo.
"""

from __future__ import annotations

import math
import numbers
import warnings

import torch
from torch import nn

__all__ = ["LoRALineal", "aplicar_lora", "capas_lineales", "elegir_capas", "parametros_lora", "validar_r"]


def validar_r(r) -> int:
    """El rango ``r`` como entero ≥ 1, o ``ValueError`` en español. Lección 09."""
    if isinstance(r, bool) or not isinstance(r, numbers.Integral) or r <= 0:
        raise ValueError(
            f"r debe ser un entero mayor que 0 (es el rango de B·A: cuántas columnas tiene B y "
            f"cuántas filas A); recibí {r!r}. Prueba r=8 o r=16.")
    return int(r)


def _validar_alpha(alpha) -> float:
    if isinstance(alpha, bool) or not isinstance(alpha, numbers.Real) or not math.isfinite(alpha) or alpha <= 0:
        raise ValueError(f"alpha debe ser un número mayor que 0 (la escala es alpha / r); recibí {alpha!r}. "
                         "Lo habitual es alpha = 2·r, p. ej. r=8 y alpha=16.")
    return float(alpha)


class LoRALineal(nn.Module):
    """Una ``nn.Linear`` congelada más un atajo entrenable ``B @ A``. Lección 09.

    ``salida = capa(x) + (x @ Aᵀ @ Bᵀ) · alpha / r``. ``A`` (r × entradas) empieza aleatoria,
    como los pesos de ``nn.Linear``; ``B`` (salidas × r) empieza en cero, así que al principio la
    capa da exactamente lo mismo que ``capa``. Solo ``A`` y ``B`` se entrenan.
    """

    def __init__(self, capa: nn.Linear, r: int, alpha: float):
        super().__init__()
        if not isinstance(capa, nn.Linear):
            raise ValueError(f"LoRALineal envuelve una nn.Linear; recibí {type(capa).__name__}.")
        self.r = validar_r(r)
        self.alpha = _validar_alpha(alpha)
        self.escala = self.alpha / self.r
        self.base = capa.requires_grad_(False)  # congelada: no se entrena ni cambia
        opciones = {"device": capa.weight.device, "dtype": capa.weight.dtype}
        self.A = nn.Parameter(torch.empty(self.r, capa.in_features, **opciones))
        self.B = nn.Parameter(torch.zeros(capa.out_features, self.r, **opciones))
        nn.init.kaiming_uniform_(self.A, a=math.sqrt(5))  # la inicialización de nn.Linear (y de peft)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.base(x) + (x @ self.A.T @ self.B.T) * self.escala

    def extra_repr(self) -> str:
        return f"r={self.r}, alpha={self.alpha:g}"


# ---------------------------------------------------------------------------
# Qué capas adapta LoRA
# ---------------------------------------------------------------------------

def capas_lineales(modelo: nn.Module) -> dict[str, nn.Linear]:
    """Las capas lineales de los bloques: todas las ``nn.Linear`` menos la cabeza de salida.

    Es lo que ``peft`` llama ``target_modules="all-linear"``: la cabeza (``lm_head``) no se
    adapta. Las capas cuantizadas en 4 bits de bitsandbytes también son ``nn.Linear``.
    """
    salida = modelo.get_output_embeddings() if hasattr(modelo, "get_output_embeddings") else None
    return {nombre: m for nombre, m in modelo.named_modules() if isinstance(m, nn.Linear) and m is not salida}


def _coincide(nombre: str, objetivo: str) -> bool:
    """La regla de ``peft`` para una lista de nombres: el nombre entero o su final tras un punto."""
    return nombre == objetivo or nombre.endswith("." + objetivo)


def elegir_capas(modelo: nn.Module, modulos=None) -> dict[str, nn.Linear]:
    """Las capas lineales que adaptaría LoRA con ``target_modules=modulos``. Lección 09.

    ``modulos=None`` (o ``"all-linear"``): todas las de los bloques. Si no, nombres como
    ``["q_proj", "v_proj"]``. Un nombre que no coincide con ninguna capa lineal da un
    ``ValueError`` que lista los nombres que sí existen.
    """
    candidatas = capas_lineales(modelo)
    if modulos is None or modulos == "all-linear":
        return candidatas
    nombres = [modulos] if isinstance(modulos, str) else list(modulos)
    existentes = sorted({n.rsplit(".", 1)[-1] for n in candidatas})
    if not nombres or not all(isinstance(n, str) and n for n in nombres):
        raise ValueError(f"target_modules debe ser una lista de nombres de capas, p. ej. {existentes[:2]}, "
                         f"o None para todas; recibí {modulos!r}.")
    sueltos = [n for n in nombres if not any(_coincide(c, n) for c in candidatas)]
    if sueltos:
        raise ValueError(
            f"target_modules: {', '.join(repr(n) for n in sueltos)} no coincide con ninguna capa lineal del "
            f"modelo, así que LoRA no adaptaría nada ahí. Las capas lineales de sus bloques se llaman: "
            f"{', '.join(existentes)}. Usa esos nombres, o modulos=None para adaptarlas todas.")
    return {c: m for c, m in candidatas.items() if any(_coincide(c, n) for n in nombres)}


def parametros_lora(config_o_modelo, r: int, modulos=None) -> int:
    """Cuántos parámetros entrena LoRA: ``r · (entradas + salidas)`` por capa adaptada. Lección 09.

    ``config_o_modelo``: una configuración de ``transformers`` (el modelo se construye en el
    dispositivo ``meta``: nada ocupa memoria) o un modelo (también uno en ``meta``).
    ``modulos=None``: todas las capas lineales de los bloques (``"all-linear"`` de peft).
    """
    r = validar_r(r)
    if isinstance(config_o_modelo, nn.Module):
        modelo = config_o_modelo
    else:
        from .arquitecturas import modelo_en_meta

        modelo = modelo_en_meta(config_o_modelo)
    return sum(r * (capa.in_features + capa.out_features) for capa in elegir_capas(modelo, modulos).values())


# ---------------------------------------------------------------------------
# Con peft
# ---------------------------------------------------------------------------

def aplicar_lora(modelo: nn.Module, r: int = 8, alpha: float = 16, modulos=None, dropout: float = 0.0):
    """El modelo con adaptadores LoRA de ``peft`` (``LoraConfig`` + ``get_peft_model``). Lección 09.

    Congela el modelo base y añade ``lora_A`` y ``lora_B`` (en fp32) a las capas de ``modulos``
    (None: todas las lineales de los bloques). Comprueba antes ``r`` y ``modulos`` y da el error
    en español.
    """
    from peft import LoraConfig, get_peft_model

    r, alpha = validar_r(r), _validar_alpha(alpha)
    elegir_capas(modelo, modulos)  # un nombre que no existe falla aquí, en español
    objetivo = "all-linear" if modulos is None or modulos == "all-linear" else (
        [modulos] if isinstance(modulos, str) else list(modulos))  # peft compara igual que elegir_capas
    config = LoraConfig(r=r, lora_alpha=alpha, target_modules=objetivo, lora_dropout=dropout,
                        bias="none", task_type="CAUSAL_LM")
    with warnings.catch_warnings():
        # peft 0.21 pregunta por ``is_gradient_checkpointing``, que transformers 5 marca como
        # obsoleto: un aviso entre las dos bibliotecas que no depende de nada que hagas tú.
        warnings.filterwarnings("ignore", message=r"`is_gradient_checkpointing` is deprecated", category=FutureWarning)
        return get_peft_model(modelo, config)
