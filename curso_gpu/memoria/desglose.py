"""¿Cuánta memoria pide entrenar? Pesos, gradientes, optimizador y activaciones. Lección 07.

La lección 04 cuenta los pesos. Al entrenar hay más:

- **pesos**: los parámetros del modelo (y sus *buffers*, como las medias de BatchNorm);
- **gradientes**: uno por parámetro entrenable, del mismo tipo que el parámetro;
- **optimizador**: Adam y AdamW guardan dos números por parámetro, SGD con momento uno,
  SGD sin momento ninguno;
- **activaciones**: los resultados intermedios que autograd guarda para la pasada hacia
  atrás. Crecen con el tamaño del lote (y, en un Transformer, con la longitud del texto).

Las activaciones no se adivinan: se **miden**. ``medir_memoria_entrenamiento`` hace una pasada
hacia delante con ``torch.autograd.graph.saved_tensors_hooks`` y suma los bytes de cada tensor
que autograd guarda, contando cada almacenamiento (*storage*) una sola vez: una vista no es
memoria nueva, y un parámetro guardado por referencia tampoco. Funciona también en el
dispositivo ``meta`` (tensores sin datos), así que un modelo de 7B se mide sin ocupar su RAM.

La precisión mixta (``precision="fp16"`` o ``"bf16"``) es la de ``torch.autocast``: los pesos,
los gradientes y los estados del optimizador siguen en fp32 (4 + 4 + 8 bytes por parámetro
con Adam), y las operaciones que autocast pasa a 16 bits guardan sus activaciones en 16 bits
y una copia en 16 bits de sus pesos (2 bytes más por parámetro, que se suman a ``pesos``).
Son los 18 bytes por parámetro de la guía de memoria de Hugging Face; los 16 del artículo de
ZeRO guardan el modelo en fp16 y la copia en fp32 dentro del optimizador.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass

import torch
from torch import nn

from ..dispositivo import dispositivo_del_modelo
from ..base import PRECISIONES_ENTRENAR, normalizar_precision
from ..base import ComoTabla, Tabla, formatear_bytes, formatear_numero

__all__ = [
    "DesgloseMemoria", "ESTADOS_OPTIMIZADOR", "LOTE_MAXIMO_A_PROBAR", "TIPO_MIXTA",
    "medir_memoria_entrenamiento", "normalizar_optimizador", "normalizar_precision_entrenamiento",
    "tensores_de", "validar_entrada_ejemplo", "validar_modelo_entrenable",
]

ESTADOS_OPTIMIZADOR: dict[str, int] = {"adam": 2, "adamw": 2, "sgd_momento": 1, "sgd": 0}
"""Números que guarda el optimizador por cada parámetro entrenable: Adam y AdamW, la media de
los gradientes y la de sus cuadrados; SGD con momento, la velocidad; SGD sin momento, nada."""

TIPO_MIXTA: dict[str, torch.dtype] = {"fp16": torch.float16, "bf16": torch.bfloat16}
"""Las precisiones mixtas y el tipo de 16 bits con que calcula ``torch.autocast``."""


LOTE_MAXIMO_A_PROBAR = 65536
"""El lote más grande que ``lote_maximo`` prueba en una GPU (la búsqueda se detiene ahí)."""

# ---------------------------------------------------------------------------
# El desglose
# ---------------------------------------------------------------------------

@dataclass
class DesgloseMemoria(ComoTabla):
    """La memoria de un paso de entrenamiento, por partes, en bytes. Lección 07.

    La crea ``medir_memoria_entrenamiento``. ``pesos_16_bits`` es la parte de ``pesos`` que son
    copias en 16 bits hechas por autocast (0 en fp32). ``total`` no incluye el contexto de CUDA
    ni los búferes temporales de cada operación.
    """

    pesos: int
    gradientes: int
    optimizador: int
    activaciones: int
    parametros: int
    lote: int
    precision: str = "fp32"
    nombre_optimizador: str = "adam"
    dispositivo: str = "cpu"
    pesos_16_bits: int = 0
    aproximado: bool = False

    @property
    def total(self) -> int:
        return self.pesos + self.gradientes + self.optimizador + self.activaciones

    @property
    def bytes_por_parametro(self) -> float:
        """Pesos + gradientes + optimizador por parámetro (sin activaciones)."""
        return (self.pesos + self.gradientes + self.optimizador) / max(self.parametros, 1)

    def partes(self) -> dict[str, int]:
        """Las cuatro partes en orden: pesos, gradientes, optimizador, activaciones."""
        return {"pesos": self.pesos, "gradientes": self.gradientes, "optimizador": self.optimizador,
                "activaciones": self.activaciones}

    def titulo(self) -> str:
        nota = " (aproximado: en meta no hay autocast)" if self.aproximado else ""
        return (f"Memoria para entrenar con {self.nombre_optimizador} en {self.precision}, lote de {self.lote}, "
                f"en {self.dispositivo}{nota}")

    def tabla(self) -> Tabla:
        """Las cuatro partes con su peso en el total, la fila del total y los bytes por parámetro."""
        total = max(self.total, 1)
        filas = [[nombre, formatear_bytes(valor), f"{100 * valor / total:.0f} %"] for nombre, valor in self.partes().items()]
        nota = (f"{self.bytes_por_parametro:.1f} bytes por parámetro sin activaciones; "
                f"{formatear_numero(self.parametros)} parámetros")
        return Tabla(self.titulo(), ["parte", "memoria", "%"], filas, notas=[nota],
                     total=["total", formatear_bytes(self.total), ""])


# ---------------------------------------------------------------------------
# Entradas
# ---------------------------------------------------------------------------

def normalizar_optimizador(optimizador: str) -> str:
    """El nombre del optimizador en minúsculas, o ``ValueError`` con los válidos. Lección 07."""
    if isinstance(optimizador, str):
        texto = optimizador.strip().lower().replace("-", "_").replace(" ", "_")
        texto = {"sgd_momentum": "sgd_momento", "sgd+momento": "sgd_momento"}.get(texto, texto)
        if texto in ESTADOS_OPTIMIZADOR:
            return texto
    raise ValueError(f"optimizador desconocido {optimizador!r}; usa uno de: {', '.join(ESTADOS_OPTIMIZADOR)} "
                     "('sgd_momento' es SGD con momentum=0.9).")


def normalizar_precision_entrenamiento(precision) -> str:
    """"fp32", "fp16" o "bf16" (acepta el ``torch.dtype``), o ``ValueError``. Lección 07."""
    try:
        return normalizar_precision(precision, PRECISIONES_ENTRENAR)
    except ValueError:
        raise ValueError(f"precision desconocida {precision!r} para entrenar; usa una de: {', '.join(PRECISIONES_ENTRENAR)} "
                         "(fp16 y bf16 son precisión mixta con torch.autocast).") from None


def validar_modelo_entrenable(modelo) -> None:
    """``ValueError`` si no es un ``nn.Module`` o no tiene nada que entrenar."""
    if not isinstance(modelo, nn.Module):
        raise ValueError(f"modelo debe ser un torch.nn.Module; recibí {type(modelo).__name__}.")
    if not any(p.requires_grad for p in modelo.parameters()):
        raise ValueError("El modelo no tiene parámetros entrenables: no hay nada que entrenar "
                         "(¿congelaste todo con requires_grad_(False)?).")


def validar_entrada_ejemplo(entrada) -> torch.Tensor:
    """``ValueError`` si no es un tensor con un lote de al menos un ejemplo; si lo es, lo devuelve."""
    if not isinstance(entrada, torch.Tensor):
        raise ValueError(f"entrada_ejemplo debe ser un tensor con un lote de ejemplos (p. ej. X[:8]); "
                         f"recibí {type(entrada).__name__}. Usa torch.as_tensor(...) o toma un trozo de tus datos.")
    if entrada.ndim == 0 or entrada.shape[0] == 0:
        raise ValueError(f"entrada_ejemplo debe tener un lote de al menos un ejemplo en la primera dimensión; "
                         f"recibí la forma {tuple(entrada.shape)}. Por ejemplo X[:8] (8 ejemplos).")
    return entrada


# ---------------------------------------------------------------------------
# Medir las activaciones: lo que autograd guarda para la pasada hacia atrás
# ---------------------------------------------------------------------------

def _clave(tensor: torch.Tensor):
    """Quién es el almacenamiento de ``tensor``: el mismo para un tensor y todas sus vistas.

    ``untyped_storage()._cdata`` es la dirección del objeto *storage* de C++; sirve también en
    ``meta``, donde ``data_ptr()`` vale 0 para todos. Solo identifica mientras el tensor vive:
    por eso se guardan los tensores hasta terminar de contar.
    """
    try:
        almacen = tensor.untyped_storage()
        return almacen._cdata, almacen.nbytes()
    except (RuntimeError, NotImplementedError, AttributeError):  # tensores sin almacenamiento propio
        return id(tensor), tensor.numel() * tensor.element_size()


def _es_copia_de_parametro(tensor: torch.Tensor, de_parametros: set) -> bool:
    """¿Es la copia en 16 bits de un parámetro que hizo autocast (o una vista de ella)?"""
    base = tensor._base if tensor._base is not None else tensor
    funcion = base.grad_fn
    if funcion is None or type(funcion).__name__ != "ToCopyBackward0":
        return False
    hojas = [f.variable for f, _ in funcion.next_functions if f is not None and hasattr(f, "variable")]
    return any(_clave(h)[0] in de_parametros for h in hojas)


def tensores_de(salida):
    if isinstance(salida, torch.Tensor):
        yield salida
    elif isinstance(salida, dict):
        for valor in salida.values():
            yield from tensores_de(valor)
    elif isinstance(salida, (list, tuple)):
        for valor in salida:
            yield from tensores_de(valor)


def _atencion_fusionada(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None,
                        enable_gqa=False):
    """``scaled_dot_product_attention`` como la calcula la CPU: sin guardar la matriz s×s."""
    if enable_gqa or query.dim() != 4:
        return None
    salida, _ = torch.ops.aten._scaled_dot_product_flash_attention_for_cpu(
        query, key, value, dropout_p, is_causal, attn_mask=attn_mask, scale=scale)
    return salida


@contextlib.contextmanager
def _atencion_como_en_cpu():
    """En ``meta``, ``F.scaled_dot_product_attention`` elige la versión matemática, que guarda la
    matriz de atención entera (crece con s²). En CPU y GPU PyTorch usa una atención fusionada
    (*flash*) que no la guarda. Mientras dura, en ``meta`` se usa la de la CPU: mide lo mismo."""
    funcional = torch.nn.functional
    original = funcional.scaled_dot_product_attention

    def atencion(query, key, value, *args, **kwargs):
        if query.device.type == "meta":
            try:
                salida = _atencion_fusionada(query, key, value, *args, **kwargs)
            except (RuntimeError, TypeError):
                salida = None
            if salida is not None:
                return salida
        return original(query, key, value, *args, **kwargs)

    funcional.scaled_dot_product_attention = atencion
    try:
        yield
    finally:
        funcional.scaled_dot_product_attention = original


@dataclass
class _Guardado:
    activaciones: int = 0
    copias: int = 0
    parametros_por_referencia: int = 0


def _medir_guardado(modelo: nn.Module, entrada: torch.Tensor, precision: str) -> tuple[_Guardado, bool]:
    """Una pasada hacia delante contando lo que autograd guarda. Devuelve (bytes, aproximado)."""
    dispositivo = entrada.device
    de_parametros = {_clave(t)[0] for t in (*modelo.parameters(), *modelo.buffers())}
    vistos: dict = {}
    vivos: list[torch.Tensor] = []  # mantiene vivos los tensores: sus claves no se reutilizan
    resultado = _Guardado()
    autocast_posible = (precision != "fp32" and dispositivo.type != "meta"
                        and torch.amp.is_autocast_available(dispositivo.type))
    aproximado = precision != "fp32" and not autocast_posible
    medio = 2 if precision != "fp32" else None

    def contar(tensor: torch.Tensor) -> None:
        clave, n_bytes = _clave(tensor)
        if clave in de_parametros:
            if aproximado and tensor.is_floating_point() and clave not in vistos:
                vistos[clave] = True  # sin autocast: la copia de 16 bits que autocast habría hecho
                resultado.copias += n_bytes // tensor.element_size() * medio
            return
        if clave in vistos:
            return
        vistos[clave] = True
        vivos.append(tensor)
        if aproximado and tensor.dtype == torch.float32:
            n_bytes = n_bytes // 4 * medio
        if _es_copia_de_parametro(tensor, de_parametros):
            resultado.copias += n_bytes
        else:
            resultado.activaciones += n_bytes

    def empaquetar(tensor):
        contar(tensor)
        return tensor

    entrenando = modelo.training
    buffers = [(b, b.detach().clone()) for b in modelo.buffers()]  # BatchNorm los cambia al entrenar
    try:
        modelo.train()
        en_meta = _atencion_como_en_cpu() if dispositivo.type == "meta" else contextlib.nullcontext()
        gpus = [dispositivo.index if dispositivo.index is not None else torch.cuda.current_device()] \
            if dispositivo.type == "cuda" else []
        guardar = torch.autograd.graph.saved_tensors_hooks(empaquetar, lambda t: t)
        with torch.random.fork_rng(devices=gpus), en_meta, guardar:
            if autocast_posible:
                with torch.autocast(dispositivo.type, dtype=TIPO_MIXTA[precision]):
                    salida = modelo(entrada)
            else:
                salida = modelo(entrada)
        for tensor in tensores_de(salida):  # la salida vive hasta calcular la pérdida
            contar(tensor)
    finally:
        modelo.train(entrenando)
        with torch.no_grad():
            for buffer, copia in buffers:
                buffer.copy_(copia)
    del vivos
    return resultado, aproximado


def medir_memoria_entrenamiento(modelo: nn.Module, entrada_ejemplo: torch.Tensor, optimizador: str = "adam",
                                precision: str = "fp32") -> DesgloseMemoria:
    """Cuánta memoria pide un paso de entrenamiento de ``modelo`` con ``entrada_ejemplo``. Lección 07.

    - ``entrada_ejemplo``: un lote de entradas (la primera dimensión es el lote), p. ej. ``X[:32]``;
      se mueve al dispositivo del modelo. Con un modelo en ``meta``, la entrada también puede ser
      de ``meta``: nada ocupa memoria.
    - ``optimizador``: "adam", "adamw" (2 estados por parámetro), "sgd_momento" (1) o "sgd" (0).
    - ``precision``: "fp32", o "fp16"/"bf16" para precisión mixta con ``torch.autocast``.

    Pesos, gradientes y optimizador se cuentan con el tipo real de cada parámetro; las
    activaciones se miden en una pasada hacia delante (ver el módulo). No entrena: los pesos,
    los *buffers* y el generador aleatorio quedan como estaban. La función de pérdida no se mide:
    ``cross_entropy`` guarda además una matriz del tamaño de la salida (mucho, con un vocabulario
    grande), y la pasada hacia atrás crea temporales. En ``meta`` no existe autocast:
    en precisión mixta las activaciones de 32 bits se cuentan a 2 bytes por número
    (``aproximado=True``).
    """
    validar_modelo_entrenable(modelo)
    entrada = validar_entrada_ejemplo(entrada_ejemplo)
    nombre_optimizador = normalizar_optimizador(optimizador)
    precision = normalizar_precision_entrenamiento(precision)
    dispositivo = dispositivo_del_modelo(modelo)
    entrada = entrada.to(dispositivo)
    try:
        guardado, aproximado = _medir_guardado(modelo, entrada, precision)
    except torch.OutOfMemoryError:
        raise  # sin memoria de verdad: que lo vea quien llama (lote_maximo lo captura)
    except (RuntimeError, TypeError, IndexError) as error:
        raise ValueError(
            f"El modelo no acepta una entrada de forma {tuple(entrada.shape)} y tipo {entrada.dtype}: "
            f"{str(error).splitlines()[0]}. Pasa un lote con la forma que espera el modelo "
            "(la primera dimensión es el lote), p. ej. X[:8] de tus datos de entrenamiento.") from None

    entrenables = [p for p in modelo.parameters() if p.requires_grad]
    bytes_entrenables = sum(p.numel() * p.element_size() for p in entrenables)
    pesos = sum(t.numel() * t.element_size() for t in (*modelo.parameters(), *modelo.buffers()))
    return DesgloseMemoria(
        pesos=pesos + guardado.copias,
        gradientes=bytes_entrenables,
        optimizador=ESTADOS_OPTIMIZADOR[nombre_optimizador] * bytes_entrenables,
        activaciones=guardado.activaciones,
        parametros=sum(p.numel() for p in entrenables),
        lote=int(entrada.shape[0]),
        precision=precision,
        nombre_optimizador=nombre_optimizador,
        dispositivo=str(dispositivo),
        pesos_16_bits=guardado.copias,
        aproximado=aproximado,
    )
