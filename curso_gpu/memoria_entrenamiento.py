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
import gc
import math
import numbers
from dataclasses import dataclass
from typing import Callable

import torch
from torch import nn

from .dispositivo import memoria_dispositivo
from .modelos import dispositivo_del_modelo
from .precisiones import normalizar_precision
from .presentacion import Tabla, formatear_numero

ESTADOS_OPTIMIZADOR: dict[str, int] = {"adam": 2, "adamw": 2, "sgd_momento": 1, "sgd": 0}
"""Números que guarda el optimizador por cada parámetro entrenable: Adam y AdamW, la media de
los gradientes y la de sus cuadrados; SGD con momento, la velocidad; SGD sin momento, nada."""

TIPO_MIXTA: dict[str, torch.dtype] = {"fp16": torch.float16, "bf16": torch.bfloat16}
"""Las precisiones mixtas y el tipo de 16 bits con que calcula ``torch.autocast``."""

PRECISIONES = ("fp32", *TIPO_MIXTA)

LOTE_MAXIMO_A_PROBAR = 65536
"""El lote más grande que ``lote_maximo`` prueba en una GPU (la búsqueda se detiene ahí)."""

# El mensaje de CUDA al quedarse sin memoria, tal como lo escribe PyTorch. Fuente: las cadenas
# de torch/lib/libc10_cuda.so de la rueda torch 2.14.1+cu130 (``strings libc10_cuda.so``), que
# salen de c10/cuda/CUDACachingAllocator.cpp. El PyTorch para CPU no trae ese archivo: su
# mensaje es el de libc10.so, más abajo. Los huecos {…} los rellena ``mensaje_sin_memoria``.
MENSAJE_OOM_CUDA = (
    "CUDA out of memory. Tried to allocate {pedido}. GPU {gpu} has a total capacity of {total} "
    "of which {libre} is free. Including non-PyTorch memory, this process has {proceso} memory in use. "
    "Of the allocated memory {asignada} is allocated by PyTorch, and {reservada_libre} is reserved by "
    "PyTorch but unallocated. If reserved but unallocated memory is large try setting "
    "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for "
    "Memory Management  (https://docs.pytorch.org/docs/stable/notes/cuda.html"
    "#optimizing-memory-usage-with-pytorch-cuda-alloc-conf)"
)
# En la CPU, la RAM que falta. Fuente: ``strings torch/lib/libc10.so`` de torch 2.13.0+cpu.
MENSAJE_OOM_CPU = "DefaultCPUAllocator: can't allocate memory: you tried to allocate {pedido} bytes."


def formato_pytorch(n_bytes: int) -> str:
    """Un tamaño escrito como en los mensajes de PyTorch: «20.00 MiB», «14.75 GiB». Lección 07."""
    if n_bytes <= 1024:
        return f"{n_bytes} bytes"
    for limite, divisor, unidad in ((2**20, 2**10, "KiB"), (2**30, 2**20, "MiB")):
        if n_bytes <= limite:
            return f"{n_bytes / divisor:.2f} {unidad}"
    return f"{n_bytes / 2**30:.2f} GiB"


def mensaje_sin_memoria(pedido: int, total: int, libre: int, asignada: int, reservada: int,
                        gpu: int = 0) -> str:
    """El texto de «CUDA out of memory» con estos números (en bytes). Lección 07.

    ``asignada`` es lo que ocupan los tensores (``memory_allocated``); ``reservada``, lo que el
    asignador de PyTorch tiene pedido a CUDA (``memory_reserved``), siempre ≥ ``asignada``.
    """
    return MENSAJE_OOM_CUDA.format(
        pedido=formato_pytorch(pedido), gpu=gpu, total=formato_pytorch(total), libre=formato_pytorch(libre),
        proceso=formato_pytorch(total - libre), asignada=formato_pytorch(asignada),
        reservada_libre=formato_pytorch(reservada - asignada))


# ---------------------------------------------------------------------------
# El desglose
# ---------------------------------------------------------------------------

@dataclass
class DesgloseMemoria:
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
        filas = [[nombre, _megas(valor), f"{100 * valor / total:.0f} %"] for nombre, valor in self.partes().items()]
        nota = (f"{self.bytes_por_parametro:.1f} bytes por parámetro sin activaciones; "
                f"{formatear_numero(self.parametros)} parámetros")
        return Tabla(self.titulo(), ["parte", "memoria", "%"], filas, notas=[nota],
                     total=["total", _megas(self.total), ""])

    def __str__(self) -> str:
        return str(self.tabla())

    def _repr_html_(self) -> str:
        return self.tabla()._repr_html_()


def _megas(n_bytes: int) -> str:
    if n_bytes >= 10**9:
        return f"{n_bytes / 10**9:.2f} GB"
    if n_bytes >= 10**6:
        return f"{n_bytes / 10**6:.2f} MB"
    return f"{n_bytes / 10**3:.1f} kB"


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
        return normalizar_precision(precision, PRECISIONES)
    except ValueError:
        raise ValueError(f"precision desconocida {precision!r} para entrenar; usa una de: {', '.join(PRECISIONES)} "
                         "(fp16 y bf16 son precisión mixta con torch.autocast).") from None


def _validar_modelo(modelo) -> None:
    if not isinstance(modelo, nn.Module):
        raise ValueError(f"modelo debe ser un torch.nn.Module; recibí {type(modelo).__name__}.")
    if not any(p.requires_grad for p in modelo.parameters()):
        raise ValueError("El modelo no tiene parámetros entrenables: no hay nada que entrenar "
                         "(¿congelaste todo con requires_grad_(False)?).")


def _validar_entrada(entrada) -> torch.Tensor:
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


def _tensores(salida):
    if isinstance(salida, torch.Tensor):
        yield salida
    elif isinstance(salida, dict):
        for valor in salida.values():
            yield from _tensores(valor)
    elif isinstance(salida, (list, tuple)):
        for valor in salida:
            yield from _tensores(valor)


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
        for tensor in _tensores(salida):  # la salida vive hasta calcular la pérdida
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
    _validar_modelo(modelo)
    entrada = _validar_entrada(entrada_ejemplo)
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


# ---------------------------------------------------------------------------
# ¿Qué lote me cabe?
# ---------------------------------------------------------------------------

def _lote_de(forma_ejemplo, lote: int, dispositivo: torch.device) -> torch.Tensor:
    if isinstance(forma_ejemplo, torch.Tensor):
        uno = forma_ejemplo[:1].to(dispositivo)
        return uno.expand(lote, *uno.shape[1:]).clone()
    return torch.randn(lote, *forma_ejemplo, device=dispositivo)


def _validar_forma(forma_ejemplo):
    if isinstance(forma_ejemplo, torch.Tensor):
        return _validar_entrada(forma_ejemplo)
    if (isinstance(forma_ejemplo, (tuple, list, torch.Size)) and len(forma_ejemplo) > 0
            and all(isinstance(d, numbers.Integral) and not isinstance(d, bool) and d > 0 for d in forma_ejemplo)):
        return tuple(int(d) for d in forma_ejemplo)
    raise ValueError(
        f"forma_ejemplo no válida: {forma_ejemplo!r}. Da la forma de UN ejemplo, sin la dimensión del lote, "
        "como una tupla de enteros positivos, p. ej. (1, 8, 8) para una imagen de 8×8; o un tensor con un "
        "lote de ejemplos (p. ej. ids de tokens) del que se copia el primero.")


def _validar_memoria(memoria_bytes) -> int:
    if (isinstance(memoria_bytes, bool) or not isinstance(memoria_bytes, numbers.Real)
            or not math.isfinite(memoria_bytes) or memoria_bytes <= 0):
        raise ValueError(f"memoria_bytes no válido: {memoria_bytes!r}. Da la memoria disponible en bytes, "
                         "mayor que 0, p. ej. 16 * 10**9 para una T4 de 16 GB.")
    return int(memoria_bytes)


def _memoria_del_dispositivo(dispositivo: torch.device) -> int:
    """La memoria libre (bytes) donde se entrenará, si no la da quien llama."""
    try:
        libre = _memoria_libre(dispositivo)
    except (RuntimeError, AttributeError, AssertionError):  # un dispositivo que esta máquina no tiene
        libre = None
    if not libre or libre <= 0:
        raise ValueError(f"No sé cuánta memoria hay en '{dispositivo}'. Dásela con memoria_bytes=..., "
                         "p. ej. memoria_bytes=16 * 10**9.")
    return int(libre)


def _memoria_libre(dispositivo: torch.device) -> int | None:
    """La memoria libre de ``dispositivo`` según ``dispositivo.memoria_dispositivo`` (en CPU, la RAM)."""
    info = memoria_dispositivo(dispositivo)
    if info is None:
        return None
    return info.libre_bytes if info.libre_bytes is not None else (info.total_bytes if dispositivo.type == "cpu" else None)


def lote_maximo(modelo: nn.Module, forma_ejemplo, dispositivo, memoria_bytes: int | None = None, *,
                optimizador: str = "adam", precision: str = "fp32",
                maximo: int = LOTE_MAXIMO_A_PROBAR) -> int:
    """El mayor tamaño de lote con el que un paso de entrenamiento cabe en memoria. Lección 07.

    - ``forma_ejemplo``: la forma de un ejemplo sin el lote, p. ej. ``(1, 8, 8)`` (se usan
      números al azar), o un tensor con ejemplos de verdad (ids de tokens) del que se copia el primero.
    - En CUDA y sin ``memoria_bytes``: lo **prueba** con pasos de entrenamiento reales (con lr=0:
      los pesos no cambian), doblando el lote hasta un ``torch.OutOfMemoryError`` y buscando
      después entre el último que cupo y el primero que no. Tras cada fallo libera la memoria
      (``del``, ``gc.collect()``, ``torch.cuda.empty_cache()``) y al terminar la deja como estaba.
    - En los demás casos (o con ``memoria_bytes``): lo **calcula**. Mide las activaciones con
      lotes de 1 y de 2 (``medir_memoria_entrenamiento``); lo que crece entre los dos es lo que
      pide cada ejemplo, y el resto es fijo. Sin ``memoria_bytes`` usa la memoria libre del
      dispositivo (la RAM en CPU). Es una cota: deja margen para el contexto y los temporales.
    - ``maximo``: el resultado nunca pasa de ahí (65 536 por defecto).
    """
    _validar_modelo(modelo)
    forma = _validar_forma(forma_ejemplo)
    optimizador = normalizar_optimizador(optimizador)
    precision = normalizar_precision_entrenamiento(precision)
    if isinstance(maximo, bool) or not isinstance(maximo, numbers.Integral) or maximo < 1:
        raise ValueError(f"maximo debe ser un entero mayor o igual que 1; recibí {maximo!r}.")
    try:
        dispositivo = torch.device(dispositivo)
    except (RuntimeError, TypeError):
        raise ValueError(f"Dispositivo no válido: {dispositivo!r}. Usa 'cpu', 'cuda', 'cuda:0', 'mps' o 'meta'.") from None

    if memoria_bytes is None and dispositivo.type == "cuda":
        del_modelo = dispositivo_del_modelo(modelo)
        if del_modelo.type != "cuda":
            raise ValueError(f"Para probar lotes en '{dispositivo}' el modelo debe estar allí, y está en '{del_modelo}'. "
                             f"Muévelo con modelo.to('{dispositivo}'), o da memoria_bytes=... para calcularlo sin probar.")
        return _buscar_lote(modelo, lambda b: _lote_de(forma, b, del_modelo), optimizador, precision, int(maximo))

    if memoria_bytes is None:
        if dispositivo.type == "meta":
            raise ValueError("En 'meta' no hay memoria que medir: da el presupuesto con memoria_bytes=..., "
                             "p. ej. memoria_bytes=16 * 10**9 para una T4.")
        presupuesto = _memoria_del_dispositivo(dispositivo)
    else:
        presupuesto = _validar_memoria(memoria_bytes)
    del_modelo = dispositivo_del_modelo(modelo)
    uno = medir_memoria_entrenamiento(modelo, _lote_de(forma, 1, del_modelo), optimizador, precision)
    dos = medir_memoria_entrenamiento(modelo, _lote_de(forma, 2, del_modelo), optimizador, precision)
    por_ejemplo = dos.total - uno.total
    fijo = uno.total - por_ejemplo
    if por_ejemplo <= 0:
        raise ValueError("Las activaciones de este modelo no crecen con el lote, así que no puedo calcular "
                         "el lote máximo. ¿Usa el modelo la primera dimensión como lote?")
    lote = (presupuesto - fijo) // por_ejemplo
    if lote < 1:
        raise ValueError(
            f"No cabe ni un ejemplo: el presupuesto es de {_megas(presupuesto)} y un paso con lote 1 pide "
            f"{_megas(uno.total)} ({uno.total} bytes). Da al menos memoria_bytes={uno.total}, o reduce el "
            "modelo, usa precisión mixta o un optimizador con menos estados (sgd).")
    return int(min(lote, maximo))


def _crear_optimizador(modelo: nn.Module, optimizador: str) -> torch.optim.Optimizer:
    """El optimizador con lr=0: reserva sus estados de verdad pero no cambia los pesos."""
    parametros = [p for p in modelo.parameters() if p.requires_grad]
    if optimizador in ("adam", "adamw"):
        clase = torch.optim.Adam if optimizador == "adam" else torch.optim.AdamW
        return clase(parametros, lr=0.0, weight_decay=0.0)
    return torch.optim.SGD(parametros, lr=0.0, momentum=0.9 if optimizador == "sgd_momento" else 0.0)


def _buscar_lote(modelo: nn.Module, hacer_lote: Callable[[int], torch.Tensor], optimizador: str,
                 precision: str, maximo: int) -> int:
    """Busca el mayor lote que entrena sin ``torch.OutOfMemoryError``, probándolo de verdad.

    Dobla el lote (1, 2, 4...) hasta el primer fallo y después busca por bisección. Después de
    cada intento borra la entrada, la salida y los gradientes; tras un fallo, además, llama a
    ``gc.collect()`` y a ``torch.cuda.empty_cache()``. Al terminar, los pesos y los *buffers* son los de antes y el
    optimizador (con sus estados) ya no existe.
    """
    dispositivo = dispositivo_del_modelo(modelo)
    en_cuda = dispositivo.type == "cuda"
    entrenando = modelo.training
    buffers = [(b, b.detach().clone()) for b in modelo.buffers()]
    optim = _crear_optimizador(modelo, optimizador)

    def cabe(lote: int) -> bool:
        entrada = salida = perdida = None
        sin_memoria = False
        try:
            entrada = hacer_lote(lote)
            with torch.autocast(dispositivo.type, dtype=TIPO_MIXTA.get(precision, torch.float32),
                                enabled=precision != "fp32"):
                salida = modelo(entrada)
                perdida = sum(t.float().sum() for t in _tensores(salida) if t.is_floating_point())
            perdida.backward()
            optim.step()
            if en_cuda:
                torch.cuda.synchronize(dispositivo)
            return True
        except torch.OutOfMemoryError:
            sin_memoria = True
            return False
        finally:
            del entrada, salida, perdida  # sin referencias, la memoria vuelve al asignador
            optim.zero_grad(set_to_none=True)
            if sin_memoria:  # lo que quedó a medias (y el traceback) se libera ya, no más tarde
                gc.collect()
                if en_cuda:
                    torch.cuda.empty_cache()

    try:
        modelo.train()
        if not cabe(1):
            raise ValueError("No cabe ni un ejemplo en la memoria de la GPU. Prueba con precisión mixta "
                             "(precision='bf16' o 'fp16'), un optimizador con menos estados (sgd) o un modelo menor.")
        bueno, malo = 1, None
        while bueno < maximo:
            siguiente = min(bueno * 2, maximo)
            if cabe(siguiente):
                bueno = siguiente
            else:
                malo = siguiente
                break
        while malo is not None and malo - bueno > 1:
            medio = (bueno + malo) // 2
            if cabe(medio):
                bueno = medio
            else:
                malo = medio
        return bueno
    finally:
        modelo.train(entrenando)
        with torch.no_grad():
            for buffer, copia in buffers:
                buffer.copy_(copia)
        optim.state.clear()
        del optim
        gc.collect()
        if en_cuda:
            torch.cuda.empty_cache()
