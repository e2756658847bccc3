"""LoRA: una capa lineal congelada más ``B @ A`` escalado por ``alpha / r`` (lección 09).

- ``LoRALineal``: la capa de la lección, escrita a mano en PyTorch.
- ``parametros_lora``: cuántos parámetros entrena LoRA, exacto, desde una configuración de
  ``transformers`` (el modelo se construye en ``meta``, sin memoria) o desde un modelo.
- ``aplicar_lora``: lo mismo con ``peft`` (``LoraConfig`` + ``get_peft_model``), con errores
  en español para un ``r`` imposible o unos ``target_modules`` que no existen en el modelo.
"""

from __future__ import annotations

import math
import warnings

import torch
from torch import nn

from ..base import leer_numero, mostrar_valor

__all__ = ["LoRALineal", "aplicar_lora", "capas_lineales", "elegir_capas", "parametros_lora", "tiene_adaptador",
           "validar_r"]


def validar_r(r) -> int:
    """El rango ``r`` (cuántas columnas tiene B y cuántas filas A) como entero ≥ 1, o un error en español. Lección 09."""
    return leer_numero(r, "r", entero=True, minimo=0, minimo_incluido=False, ejemplo="r=8 (o r=16)")


def _validar_alpha(alpha) -> float:
    """``alpha`` > 0 (la escala es alpha / r); lo habitual, 2·r."""
    return leer_numero(alpha, "alpha", minimo=0, minimo_incluido=False, ejemplo="alpha=16 (lo habitual: 2·r)")


def _comprobar_modelo(modelo, funcion: str) -> None:
    """Un ``nn.Module`` de PyTorch (un modelo de ``transformers``), o un error que dice cómo conseguirlo."""
    if not isinstance(modelo, nn.Module):
        raise ValueError(f"{funcion} necesita un modelo de PyTorch (un nn.Module, p. ej. el de "
                         f"modelo, tokenizador = modelo_diminuto()); recibí {mostrar_valor(modelo)} "
                         f"(de tipo {type(modelo).__name__}).")


def tiene_adaptador(modelo) -> bool:
    """¿Tiene ya ``modelo`` capas LoRA (de ``aplicar_lora``/``get_peft_model`` o ``LoRALineal``)? Lección 09.

    ``get_peft_model`` cambia el modelo base **en su sitio**: tras ``aplicar_lora(modelo)``, también
    ``modelo`` lleva las capas ``lora_A``/``lora_B``.
    """
    return isinstance(modelo, nn.Module) and any(
        hasattr(m, "lora_A") or isinstance(m, LoRALineal) for m in modelo.modules())


class LoRALineal(nn.Module):
    """Una ``nn.Linear`` congelada más un atajo entrenable ``B @ A``. Lección 09.

    ``salida = capa(x) + (x @ Aᵀ @ Bᵀ) · alpha / r``. ``A`` (r × entradas) empieza aleatoria,
    como los pesos de ``nn.Linear``; ``B`` (salidas × r) empieza en cero, así que al principio la
    capa da exactamente lo mismo que ``capa``. Solo ``A`` y ``B`` se entrenan.
    """

    def __init__(self, capa: nn.Linear, r: int, alpha: float):
        super().__init__()
        if not isinstance(capa, nn.Linear):
            raise ValueError(f"capa debe ser una nn.Linear (la capa que LoRALineal envuelve), p. ej. "
                             f"LoRALineal(nn.Linear(64, 64), r=8, alpha=16); recibí {mostrar_valor(capa)} "
                             f"(de tipo {type(capa).__name__}).")
        self.r = validar_r(r)
        self.alpha = _validar_alpha(alpha)
        self.escala = self.alpha / self.r
        self.base = capa.requires_grad_(False)  # congelada: no se entrena ni cambia
        opciones = {"device": capa.weight.device, "dtype": capa.weight.dtype}
        self.A = nn.Parameter(torch.empty(self.r, capa.in_features, **opciones))
        self.B = nn.Parameter(torch.zeros(capa.out_features, self.r, **opciones))
        nn.init.kaiming_uniform_(self.A, a=math.sqrt(5))  # la inicialización de nn.Linear (y de peft)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        entradas = self.base.in_features
        if not isinstance(x, torch.Tensor) or x.ndim == 0 or x.shape[-1] != entradas:
            forma = list(x.shape) if isinstance(x, torch.Tensor) else type(x).__name__
            raise ValueError(f"Esta LoRALineal envuelve una nn.Linear de {entradas} entradas: x debe ser un tensor "
                             f"cuya última dimensión sea {entradas} (p. ej. de forma [lote, {entradas}]); recibí "
                             f"{forma}. Usa datos de ese ancho, o envuelve una capa con in_features="
                             f"{x.shape[-1] if isinstance(x, torch.Tensor) and x.ndim else 'el ancho de tus datos'}.")
        return self.base(x) + (x @ self.A.T @ self.B.T) * self.escala

    def extra_repr(self) -> str:
        return f"r={self.r}, alpha={self.alpha:g}"


# ---------------------------------------------------------------------------
# Qué capas adapta LoRA
# ---------------------------------------------------------------------------

def _clases_lineales() -> tuple[type, ...]:
    """``nn.Linear`` y el ``Conv1D`` de transformers (GPT-2: una lineal con el peso traspuesto), como peft."""
    try:
        from transformers.pytorch_utils import Conv1D
    except ImportError:  # sin transformers no hay Conv1D que buscar
        return (nn.Linear,)
    return (nn.Linear, Conv1D)


def _dimensiones(capa: nn.Module) -> tuple[int, int]:
    """(entradas, salidas) de una lineal: ``nn.Linear`` o ``Conv1D`` (peso de forma entradas × salidas)."""
    if isinstance(capa, nn.Linear):
        return capa.in_features, capa.out_features
    entradas, salidas = capa.weight.shape
    return int(entradas), int(salidas)


def capas_lineales(modelo: nn.Module) -> dict[str, nn.Module]:
    """Las capas lineales de los bloques: todas las ``nn.Linear`` (y ``Conv1D`` de GPT-2) menos la cabeza.

    Es lo que ``peft`` llama ``target_modules="all-linear"``: la cabeza (``lm_head``) no se
    adapta. Las capas cuantizadas en 4 bits de bitsandbytes también son ``nn.Linear``; el
    ``Conv1D`` de GPT-2 es una lineal con el peso traspuesto, y peft también lo adapta.
    """
    _comprobar_modelo(modelo, "capas_lineales")
    salida = modelo.get_output_embeddings() if hasattr(modelo, "get_output_embeddings") else None
    clases = _clases_lineales()
    return {nombre: m for nombre, m in modelo.named_modules() if isinstance(m, clases) and m is not salida}


def _coincide(nombre: str, objetivo: str) -> bool:
    """La regla de ``peft`` para una lista de nombres: el nombre entero o su final tras un punto."""
    return nombre == objetivo or nombre.endswith("." + objetivo)


def _lista_de_modulos(modulos, existentes: list[str]) -> list[str] | None:
    """``None`` (todas) o la lista de nombres de ``modulos``; un error en español si no es eso."""
    if modulos is None or (isinstance(modulos, str) and modulos.strip().lower() == "all-linear"):
        return None
    if isinstance(modulos, str):
        nombres = [modulos]
    elif isinstance(modulos, (list, tuple, set, frozenset)):
        nombres = list(modulos)
    else:
        nombres = []
    if not nombres or not all(isinstance(n, str) and n.strip() for n in nombres):
        raise ValueError(f"modulos (los target_modules de peft) debe ser una lista de nombres de capas, p. ej. "
                         f"modulos={existentes[:2] or ['q_proj', 'v_proj']}, o None para todas las lineales; recibí {mostrar_valor(modulos)}.")
    return nombres


def elegir_capas(modelo: nn.Module, modulos=None) -> dict[str, nn.Module]:
    """Las capas lineales que adaptaría LoRA con ``target_modules=modulos``. Lección 09.

    ``modulos=None`` (o ``"all-linear"``): todas las de los bloques. Si no, nombres como
    ``["q_proj", "v_proj"]`` (en GPT-2, ``["c_attn"]``). Un nombre que no coincide con ninguna
    capa lineal da un ``ValueError`` que lista los nombres que sí existen.
    """
    candidatas = capas_lineales(modelo)
    existentes = sorted({n.rsplit(".", 1)[-1] for n in candidatas})
    if not candidatas:
        raise ValueError(f"El modelo ({type(modelo).__name__}) no tiene capas lineales en sus bloques (nn.Linear "
                         "ni Conv1D): LoRA no tendría nada que adaptar. Usa un modelo de lenguaje de transformers, "
                         "p. ej. modelo, tokenizador = modelo_diminuto().")
    nombres = _lista_de_modulos(modulos, existentes)
    if nombres is None:
        return candidatas
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

        modelo = modelo_en_meta(config_o_modelo, argumento="config_o_modelo")
    return sum(r * sum(_dimensiones(capa)) for capa in elegir_capas(modelo, modulos).values())


# ---------------------------------------------------------------------------
# Con peft
# ---------------------------------------------------------------------------

def _comprobar_modelo_de_lenguaje(modelo: nn.Module) -> None:
    """Un modelo de lenguaje de ``transformers`` (lo que ``peft`` adapta con ``task_type="CAUSAL_LM"``).

    peft lo reconoce por ``prepare_inputs_for_generation``; sin ella fallaba con un
    ``AttributeError`` en inglés. El ``GPT2Pequeno`` de las lecciones 04 y 07 (un
    ``nn.TransformerEncoder``) no se puede adaptar bien: en ``eval()`` y sin gradientes, PyTorch usa
    un camino rápido que lee los pesos de sus capas directamente y se salta el adaptador (medido:
    la salida es idéntica a la del modelo sin adaptador).
    """
    if callable(getattr(modelo, "prepare_inputs_for_generation", None)):
        return
    nombre = type(modelo).__name__
    codificador = any(isinstance(m, nn.TransformerEncoderLayer) for m in modelo.modules())
    motivo = (f" {nombre} usa nn.TransformerEncoder, que en eval() y sin gradientes lee los pesos de sus capas "
              "directamente y se saltaría el adaptador sin avisar." if codificador else
              " Para poner LoRA a mano en las nn.Linear de tu propio modelo, envuélvelas con LoRALineal(capa, r=8, "
              "alpha=16).")
    raise ValueError(f"aplicar_lora adapta modelos de lenguaje de transformers (los que generan texto, como el de "
                     f"modelo, tokenizador = modelo_diminuto() o AutoModelForCausalLM.from_pretrained(...)); {nombre} "
                     f"no es uno de ellos (no tiene prepare_inputs_for_generation, lo que peft necesita).{motivo} "
                     "Usa modelo_diminuto() para practicar LoRA con peft.")


def aplicar_lora(modelo: nn.Module, r: int = 8, alpha: float = 16, modulos=None, dropout: float = 0.0):
    """El modelo con adaptadores LoRA de ``peft`` (``LoraConfig`` + ``get_peft_model``). Lección 09.

    Congela el modelo base y añade ``lora_A`` y ``lora_B`` (en fp32) a las capas de ``modulos``
    (None: todas las lineales de los bloques; en GPT-2 también sus ``Conv1D``). ``dropout``: la
    probabilidad de apagar la entrada del atajo al entrenar, en [0, 1). Comprueba antes todo y da
    el error en español. Un modelo que ya tiene adaptador se rechaza: ``get_peft_model`` cambia el
    modelo base en su sitio, y otro adaptador quedaría anidado dentro del primero.
    """
    _comprobar_modelo(modelo, "aplicar_lora")
    r, alpha = validar_r(r), _validar_alpha(alpha)
    dropout = leer_numero(dropout, "dropout", minimo=0, maximo=1, maximo_incluido=False,
                          ejemplo="dropout=0.05 (o 0.0, sin dropout)")
    _comprobar_modelo_de_lenguaje(modelo)
    if tiene_adaptador(modelo):
        raise ValueError(
            "Este modelo ya tiene un adaptador LoRA (¿ejecutaste otra vez la celda de aplicar_lora?): "
            "get_peft_model cambia el modelo base en su sitio, y un segundo adaptador quedaría dentro del "
            "primero. Usa el modelo adaptado que ya tienes, o crea el base de nuevo "
            "(modelo, tokenizador = modelo_diminuto()) y llama a aplicar_lora una sola vez.")
    capas = elegir_capas(modelo, modulos)  # un nombre que no existe falla aquí, en español
    nombres = _lista_de_modulos(modulos, [])
    # El Conv1D de GPT-2 guarda el peso traspuesto (entradas × salidas): peft lo sabe con fan_in_fan_out.
    traspuesto = any(not isinstance(capa, nn.Linear) for capa in capas.values())
    from peft import LoraConfig, get_peft_model

    objetivo = "all-linear" if nombres is None else nombres  # peft compara igual que elegir_capas
    config = LoraConfig(r=r, lora_alpha=alpha, target_modules=objetivo, lora_dropout=dropout,
                        bias="none", task_type="CAUSAL_LM", fan_in_fan_out=traspuesto)
    with warnings.catch_warnings():
        # peft 0.21 pregunta por ``is_gradient_checkpointing``, que transformers 5 marca como
        # obsoleto: un aviso entre las dos bibliotecas que no depende de nada que hagas tú.
        warnings.filterwarnings("ignore", message=r"`is_gradient_checkpointing` is deprecated", category=FutureWarning)
        return get_peft_model(modelo, config)
