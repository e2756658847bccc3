"""¿Qué lote me cabe? ``lote_maximo``, probado en la GPU o calculado con las activaciones medidas. Lección 07.

En CUDA se prueba con pasos de entrenamiento de verdad (doblando el lote hasta quedarse sin
memoria y buscando después por bisección); en los demás casos se calcula con dos medidas de
``medir_memoria_entrenamiento`` (lotes de 1 y de 2).
"""

from __future__ import annotations

import gc
from typing import Callable

import torch
from torch import nn

from ..base import formatear_bytes, formatear_numero, leer_numero
from ..dispositivo import DispositivoNoDisponible, como_dispositivo, memoria_dispositivo
from .medida import (
    LOTE_MAXIMO_A_PROBAR,
    TIPO_MIXTA,
    medir_memoria_entrenamiento,
    normalizar_optimizador,
    normalizar_precision_entrenamiento,
    tensores_de,
    validar_entrada_ejemplo,
    validar_modelo_entrenable,
)
from ..dispositivo import dispositivo_del_modelo


MEMORIA_MAXIMA = 10**18  # 1 EB: ninguna máquina tiene tanta; 10**400 es un error de quien escribe


def _lote_de(forma_ejemplo, lote: int, dispositivo: torch.device) -> torch.Tensor:
    if isinstance(forma_ejemplo, torch.Tensor):
        uno = forma_ejemplo[:1].to(dispositivo)
        return uno.expand(lote, *uno.shape[1:]).clone()
    return torch.randn(lote, *forma_ejemplo, device=dispositivo)


def _validar_forma(forma_ejemplo):
    if isinstance(forma_ejemplo, torch.Tensor):
        return validar_entrada_ejemplo(forma_ejemplo)
    if isinstance(forma_ejemplo, (tuple, list, torch.Size)) and len(forma_ejemplo) > 0:
        try:
            return tuple(leer_numero(d, "forma_ejemplo", entero=True, minimo=1, maximo=2**31 - 1) for d in forma_ejemplo)
        except ValueError:
            pass
    raise ValueError(
        f"forma_ejemplo no válida: {forma_ejemplo!r}. Da la forma de UN ejemplo, sin la dimensión del lote, "
        "como una tupla de enteros positivos, p. ej. (1, 8, 8) para una imagen de 8×8; o un tensor con un "
        "lote de ejemplos (p. ej. ids de tokens) del que se copia el primero.")


def _validar_memoria(memoria_bytes) -> int:
    return int(leer_numero(memoria_bytes, "memoria_bytes", minimo=0, minimo_incluido=False, maximo=MEMORIA_MAXIMA,
                           ejemplo="memoria_bytes=16 * 10**9 (una T4 de 16 GB)"))


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
    validar_modelo_entrenable(modelo)
    forma = _validar_forma(forma_ejemplo)
    optimizador = normalizar_optimizador(optimizador)
    precision = normalizar_precision_entrenamiento(precision)
    maximo = leer_numero(maximo, "maximo", entero=True, minimo=1, ejemplo="maximo=4096")
    if memoria_bytes is not None:  # un cálculo: vale también para una GPU que esta máquina no tiene
        presupuesto = _validar_memoria(memoria_bytes)
        dispositivo = como_dispositivo(dispositivo, auto=False, meta=True, aqui=False)
    else:
        try:
            dispositivo = como_dispositivo(dispositivo, auto=False, meta=True)
        except DispositivoNoDisponible as error:
            raise DispositivoNoDisponible(
                f"{error}\nPara calcular el lote de otra máquina, da su memoria con memoria_bytes=..., "
                "p. ej. memoria_bytes=16 * 10**9 para una T4.") from None

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
            f"No cabe ni un ejemplo: el presupuesto es de {formatear_bytes(presupuesto)} y un paso con lote 1 pide "
            f"{formatear_bytes(uno.total)} ({formatear_numero(uno.total)} bytes). Da al menos memoria_bytes={uno.total}, o reduce el "
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
                perdida = sum(t.float().sum() for t in tensores_de(salida) if t.is_floating_point())
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
