"""Medir la generación de texto: tokens por segundo, tiempo hasta el primer token y caché. Lección 10.

``medir_generacion`` usa el ``generate`` de ``transformers`` tal cual, con búsqueda voraz
(``do_sample=False``), relleno a la izquierda y máscara de atención: lo que harías tú.
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass, field

import torch
from torch import nn

from ..base import ComoTabla, Tabla, contar, formatear_numero, formatear_tiempo, leer_numero, mostrar_valor
from ..dispositivo import como_dispositivo, sincronizar
from .cache_kv import bytes_de_cache, cache_de

__all__ = ["MedicionGeneracion", "comprobar_contexto", "comprobar_para_generar", "medir_generacion", "preparar_lote"]

_REPETICIONES_MAXIMAS = 100
"""Más generaciones iguales no cambian la mediana: solo alargan la espera."""

@dataclass
class MedicionGeneracion(ComoTabla):
    """Lo que midió ``medir_generacion``: medianas de varias generaciones iguales. Lección 10."""

    lote: int
    tokens_entrada: int          # longitud de la entrada, con relleno (igual en todo el lote)
    tokens_nuevos: int           # tokens generados en total, sumando las secuencias del lote
    pasos: int                   # llamadas al modelo tras leer la entrada (uno por token nuevo)
    segundos: float              # mediana de lo que tarda generate entero
    segundos_primer_token: float  # mediana de lo que tarda en salir el primer token (leer la entrada)
    bytes_cache: int             # la caché KV al terminar, medida en sus tensores
    dispositivo: str
    repeticiones: int = 1
    textos: list[str] = field(default_factory=list)

    @property
    def tokens_por_segundo(self) -> float:
        """Tokens nuevos por segundo, contando todo (también leer la entrada)."""
        return self.tokens_nuevos / self.segundos

    @property
    def tokens_por_segundo_generando(self) -> float:
        """Tokens por segundo tras el primero: el ritmo de la fase de generar, la que limita la memoria."""
        resto = self.segundos - self.segundos_primer_token
        return (self.tokens_nuevos - self.lote) / resto if resto > 0 and self.tokens_nuevos > self.lote else float("nan")

    def tabla(self) -> Tabla:
        filas = [
            ["lote (secuencias a la vez)", formatear_numero(self.lote)],
            ["tokens de entrada (con relleno)", formatear_numero(self.tokens_entrada)],
            ["tokens nuevos (todo el lote)", formatear_numero(self.tokens_nuevos)],
            ["tiempo total", formatear_tiempo(self.segundos)],
            ["hasta el primer token", formatear_tiempo(self.segundos_primer_token)],
            ["tokens/s (total)", formatear_numero(self.tokens_por_segundo, cifras=3)],
            ["tokens/s tras el primero", formatear_numero(self.tokens_por_segundo_generando, cifras=3)],
            ["caché KV al terminar", formatear_numero(self.bytes_cache / 2**10, cifras=3, unidad="KiB")],
        ]
        return Tabla(f"Generación en {self.dispositivo}", [], filas,
                     notas=[f"{'Mediana de ' + contar(self.repeticiones, 'generación') if self.repeticiones > 1 else 'Una generación'} tras una de calentamiento; "
                            "búsqueda voraz, relleno a la izquierda."])


def _lista_de_textos(textos) -> list[str]:
    if isinstance(textos, str):
        textos = [textos]
    if not isinstance(textos, (list, tuple)) or not textos or not all(isinstance(t, str) and t for t in textos):
        raise ValueError(f"textos debe ser un texto o una lista de textos no vacíos; recibí {mostrar_valor(textos)}. "
                         "Por ejemplo, textos=['La GPU', 'Con LoRA'].")
    return list(textos)


def _comprobar_tokenizador(tokenizador) -> None:
    if not callable(tokenizador) or not hasattr(tokenizador, "padding_side") or not hasattr(tokenizador, "batch_decode"):
        raise ValueError(f"tokenizador debe ser el tokenizador de transformers del modelo (el segundo valor de "
                         f"modelo_diminuto(), o AutoTokenizer.from_pretrained(...)); recibí {mostrar_valor(tokenizador)} "
                         f"(de tipo {type(tokenizador).__name__}).")


def _comprobar_modelo(modelo) -> None:
    if not isinstance(modelo, nn.Module) or not callable(getattr(modelo, "generate", None)) \
            or getattr(modelo, "generation_config", None) is None:
        raise ValueError(f"modelo debe ser un modelo de lenguaje de transformers, que sabe generar (tiene .generate), "
                         f"p. ej. el primer valor de modelo_diminuto(); recibí {mostrar_valor(modelo)} "
                         f"(de tipo {type(modelo).__name__}).")
    if next(modelo.parameters(), None) is None:
        raise ValueError(f"modelo ({type(modelo).__name__}) no tiene parámetros: no hay pesos con los que generar.")


def _contexto(modelo) -> int | None:
    """Cuántos tokens ve el modelo de una vez (``max_position_embeddings``; ``n_positions`` en GPT-2), o None."""
    config = getattr(modelo, "config", None)
    if config is not None and hasattr(config, "get_text_config"):
        config = config.get_text_config()
    for nombre in ("max_position_embeddings", "n_positions"):
        valor = getattr(config, nombre, None)
        if isinstance(valor, int) and not isinstance(valor, bool) and valor > 0:
            return valor
    return None


def comprobar_para_generar(modelo, tokenizador, textos) -> list[str]:
    """Comprueba el modelo (sabe generar), el tokenizador y los textos; devuelve los textos en una lista. Lección 10.

    Lo que mira ``medir_generacion`` antes de generar nada, para quien mide a su manera
    (``medir_barrido``): cada problema, un ``ValueError`` en español que dice qué escribir.
    """
    _comprobar_modelo(modelo)
    _comprobar_tokenizador(tokenizador)
    return _lista_de_textos(textos)


def comprobar_contexto(modelo, tokens_entrada: int, max_tokens_nuevos: int) -> None:
    """``ValueError`` en español si la entrada y los tokens nuevos no caben en el contexto del modelo. Lección 10.

    El contexto es ``max_position_embeddings`` (``n_positions`` en GPT-2): más allá, el modelo no
    tiene posiciones y generaría texto sin sentido (o fallaría tras mucho rato).
    """
    contexto = _contexto(modelo)
    if contexto is not None and tokens_entrada + max_tokens_nuevos > contexto:
        libres = contexto - tokens_entrada
        arreglo = (f"Pide como mucho max_tokens_nuevos={libres}" if libres >= 1 else
                   "Acorta los textos")
        raise ValueError(
            f"max_tokens_nuevos={max_tokens_nuevos} no cabe: el modelo ve como mucho {contexto} tokens de una vez "
            f"(su contexto, max_position_embeddings) y la entrada ya ocupa {tokens_entrada}. {arreglo}: más allá "
            "de su contexto el modelo no tiene posiciones y generaría texto sin sentido (o fallaría).")


def preparar_lote(tokenizador, textos, dispositivo=None) -> dict:
    """Los textos como un lote para ``generate``: relleno a la **izquierda** y máscara de atención. Lección 10.

    Un lote de varios textos necesita un token de relleno: si el tokenizador no tiene
    (``pad_token`` es None), da un ``ValueError`` que dice cómo ponerlo.
    """
    _comprobar_tokenizador(tokenizador)
    textos = _lista_de_textos(textos)
    if len(textos) > 1 and getattr(tokenizador, "pad_token", None) is None:
        raise ValueError(
            f"el tokenizador no tiene token de relleno (pad_token es None) y el lote tiene {len(textos)} textos "
            "de distinta longitud que hay que igualar. Ponle uno antes, por ejemplo "
            "tokenizador.pad_token = tokenizador.eos_token, o genera los textos de uno en uno."
        )
    lado = tokenizador.padding_side
    try:
        tokenizador.padding_side = "left"  # los modelos que solo decodifican siguen por la derecha
        lote = tokenizador(textos, return_tensors="pt", padding=True)
    finally:
        tokenizador.padding_side = lado
    d = como_dispositivo(dispositivo) if dispositivo is not None else None
    return {"input_ids": lote["input_ids"].to(d) if d else lote["input_ids"],
            "attention_mask": lote["attention_mask"].to(d) if d else lote["attention_mask"]}


class _RelojPrimerToken:
    """Un «streamer» para ``generate``: anota cuándo sale el primer token nuevo."""

    def __init__(self, dispositivo: torch.device):
        self.dispositivo = dispositivo
        self.llamadas = 0
        self.instante_primer_token: float | None = None

    def put(self, valor) -> None:
        self.llamadas += 1
        if self.llamadas == 2:  # la primera llamada trae la entrada; la segunda, el primer token nuevo
            sincronizar(self.dispositivo)
            self.instante_primer_token = time.perf_counter()

    def end(self) -> None:
        pass


def _contar_nuevos(nuevos: torch.Tensor, eos) -> int:
    """Tokens generados de verdad: en cada fila, hasta el primer fin de texto (incluido)."""
    if eos is None:
        return nuevos.numel()
    fines = torch.tensor(eos if isinstance(eos, (list, tuple)) else [eos], device=nuevos.device)
    total = 0
    for fila in nuevos:
        posiciones = torch.isin(fila, fines).nonzero()
        total += int(posiciones[0]) + 1 if len(posiciones) else fila.numel()
    return total


def medir_generacion(modelo, tokenizador, textos, max_tokens_nuevos: int, dispositivo=None,
                     repeticiones: int = 3) -> MedicionGeneracion:
    """Genera ``max_tokens_nuevos`` tokens para cada texto con ``generate`` y mide. Lección 10.

    Los textos van en un solo lote (relleno a la izquierda y máscara de atención). Una generación
    corta de calentamiento y luego ``repeticiones`` iguales; da las medianas. El modelo se pone
    en modo evaluación y todo va dentro de ``torch.inference_mode()``. ``dispositivo``: donde
    están los pesos (por defecto, el del modelo).
    """
    from transformers import GenerationConfig

    comprobar_para_generar(modelo, tokenizador, textos)
    max_tokens_nuevos = leer_numero(max_tokens_nuevos, "max_tokens_nuevos (cuántos tokens generar)", entero=True,
                                    minimo=1, ejemplo="max_tokens_nuevos=32")
    repeticiones = leer_numero(repeticiones, "repeticiones", entero=True, minimo=1, maximo=_REPETICIONES_MAXIMAS,
                               ejemplo="repeticiones=3")
    d = como_dispositivo(dispositivo) if dispositivo is not None else next(modelo.parameters()).device
    entrada = preparar_lote(tokenizador, textos, d)
    lote, tokens_entrada = entrada["input_ids"].shape
    comprobar_contexto(modelo, tokens_entrada, max_tokens_nuevos)
    eos = modelo.generation_config.eos_token_id
    relleno = tokenizador.pad_token_id if tokenizador.pad_token_id is not None else (
        eos[0] if isinstance(eos, (list, tuple)) else eos)
    # Una configuración propia: sin los ajustes de muestreo del modelo (temperature, top_p...),
    # que con do_sample=False solo darían avisos.
    configuracion = dict(do_sample=False, pad_token_id=relleno, eos_token_id=eos,
                         return_dict_in_generate=True)
    modelo.eval()
    with torch.inference_mode():
        modelo.generate(**entrada, generation_config=GenerationConfig(max_new_tokens=2, **configuracion))
        segundos, primeros = [], []
        for _ in range(repeticiones):
            reloj = _RelojPrimerToken(d)
            sincronizar(d)
            inicio = time.perf_counter()
            salida = modelo.generate(**entrada, streamer=reloj,
                                     generation_config=GenerationConfig(max_new_tokens=max_tokens_nuevos,
                                                                        **configuracion))
            sincronizar(d)
            segundos.append(time.perf_counter() - inicio)
            primeros.append((reloj.instante_primer_token or time.perf_counter()) - inicio)
    nuevos = salida.sequences[:, tokens_entrada:]
    return MedicionGeneracion(
        lote=lote, tokens_entrada=tokens_entrada, tokens_nuevos=_contar_nuevos(nuevos, eos),
        pasos=nuevos.shape[1], segundos=statistics.median(segundos),
        segundos_primer_token=statistics.median(primeros), bytes_cache=bytes_de_cache(cache_de(salida)),
        dispositivo=str(d), repeticiones=repeticiones,
        textos=tokenizador.batch_decode(salida.sequences, skip_special_tokens=True))
