"""Entrenar, evaluar y predecir en cualquier dispositivo (CPU, CUDA, MPS). Lección 05.

El bucle es el de la lección 05: Adam con todo el conjunto en cada paso, métricas
en la época 1 y cada 10, y el tiempo total. Lo que añade el curso: lotes con
``DataLoader`` (opcional), una barra de progreso, checkpoints para reanudar y errores
claros cuando modelo y datos están en dispositivos distintos.

Entre dos puntos de registro no se sincroniza nunca con la CPU (ningún ``.item()``): así
la GPU trabaja sin esperas.
"""

from __future__ import annotations

import contextlib
import random
import time
from dataclasses import dataclass
from typing import Callable

import torch
from torch import nn

from .datos import NOMBRES_CLASES
from ..dispositivo import como_dispositivo as _como_dispositivo
from ..base import leer_numero
from ..dispositivo import sincronizar
from .entradas import (
    comprobar_con_modelo,
    comprobar_mismo_dispositivo,
    modo_evaluacion,
    validar_datos,
    validar_modelo,
    validar_modelo_con_pesos,
    validar_semilla,
)
from ..guardado import CheckpointNoGuardado, huella_de_datos
from ..memoria import validar_modelo_entrenable
from .nucleo import NucleoCheckpoints, configuracion_de_entrenamiento, parar_si_no_finita, vigilar_perdida
from ..rendimiento import preparar_precision
from .resultados import Historial, Prediccion, Registro

__all__ = ["CADA_REGISTRO", "calcular_accuracy", "entrenar", "evaluar", "fijar_semilla", "predecir"]

CADA_REGISTRO = 10


# ---------------------------------------------------------------------------
# Métricas
# ---------------------------------------------------------------------------

def _aciertos(logits: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """Fracción de aciertos como tensor (sin sincronizar). Multiclase: argmax; binaria: logit > 0."""
    if logits.ndim == 2 and logits.shape[1] > 1:
        prediccion = logits.argmax(dim=1)
    else:
        prediccion = (logits.reshape(y.shape) > 0).to(y.dtype)
    return (prediccion == y).float().mean()


def calcular_accuracy(logits: torch.Tensor, y: torch.Tensor) -> float:
    """Fracción de aciertos (de 0 a 1). Lección 05."""
    return float(_aciertos(logits, y).item())


def _medir(modelo, X, y, criterio, tamano_lote, dispositivo):
    """(pérdida, accuracy) como tensores en el dispositivo; en trozos si hay tamaño de lote."""
    if tamano_lote is None:
        logits = modelo(X.to(dispositivo, non_blocking=True))
        y = y.to(dispositivo, non_blocking=True)
        return criterio(logits, y), _aciertos(logits, y)
    perdida = torch.zeros((), device=dispositivo)
    aciertos = torch.zeros((), device=dispositivo)
    for inicio in range(0, X.shape[0], tamano_lote):
        xb = X[inicio:inicio + tamano_lote].to(dispositivo, non_blocking=True)
        yb = y[inicio:inicio + tamano_lote].to(dispositivo, non_blocking=True)
        logits = modelo(xb)
        perdida = perdida + criterio(logits, yb) * xb.shape[0]
        aciertos = aciertos + _aciertos(logits, yb) * xb.shape[0]
    return perdida / X.shape[0], aciertos / X.shape[0]


def evaluar(modelo: nn.Module, X: torch.Tensor, y: torch.Tensor, dispositivo, *, criterio=None,
            tamano_lote: int | None = None) -> tuple[float, float]:
    """Pérdida y accuracy de ``modelo`` sobre ``(X, y)``, con ``eval()`` y ``no_grad()``. Lección 05.

    Mueve ``X`` e ``y`` a ``dispositivo``; el modelo ya debe estar allí (si no, un error
    en español que dice dónde está cada cosa). Sin ``criterio``, la misma pérdida que elige
    ``entrenar``. Comprueba antes los datos (forma, tipo, NaN, etiquetas en rango).
    """
    validar_modelo(modelo)
    dispositivo = _como_dispositivo(dispositivo)
    if tamano_lote is not None:
        tamano_lote = leer_numero(tamano_lote, "tamano_lote", entero=True, minimo=1, ejemplo="tamano_lote=64")
    X, y = validar_datos((X, y), "Los datos a evaluar")
    comprobar_mismo_dispositivo(modelo, dispositivo)
    criterio, y = comprobar_con_modelo(modelo, criterio, X, y, "Los datos a evaluar", dispositivo)
    with modo_evaluacion(modelo):
        perdida, acierto = _medir(modelo, X, y, criterio, tamano_lote, dispositivo)
        perdida, acierto = torch.stack([perdida.float(), acierto]).tolist()
    return perdida, acierto


def _como_imagen(imagen) -> torch.Tensor:
    tipo = getattr(imagen, "dtype", None)
    if (isinstance(imagen, torch.Tensor) and imagen.is_complex()) or getattr(tipo, "kind", "") == "c":
        raise ValueError("imagen_8x8 tiene números complejos: la imagen debe ser una cuadrícula de 8×8 números "
                         "reales entre 0 y 1 (la parte imaginaria se perdería sin aviso). Usa imagen.real si es lo que quieres.")
    try:
        tensor = torch.as_tensor(imagen, dtype=torch.float32).detach().cpu()
    except (TypeError, ValueError, RuntimeError) as error:
        raise ValueError(f"La imagen debe ser una cuadrícula de 8×8 números entre 0 y 1; no pude leerla ({error}).") from None
    if tensor.numel() != 64 or tensor.shape[-2:] != (8, 8):
        raise ValueError(
            f"La imagen debe ser de 8×8 (forma [8, 8], [1, 8, 8] o [1, 1, 8, 8]); recibí la forma {tuple(tensor.shape)}.")
    if not torch.isfinite(tensor).all() or tensor.min() < 0 or tensor.max() > 1:
        raise ValueError(
            f"Los valores de la imagen deben estar entre 0 y 1; recibí valores de {tensor.min().item():g} "
            f"a {tensor.max().item():g}. Divide por el máximo o usa 0 (vacío) y 1 (pintado).")
    return tensor.reshape(1, 1, 8, 8)


def predecir(modelo: nn.Module, imagen_8x8, dispositivo) -> Prediccion:
    """La clase de una imagen de 8×8 (lista, array o tensor con valores en [0, 1]). Lección 05."""
    validar_modelo(modelo)
    dispositivo = _como_dispositivo(dispositivo)
    entrada = _como_imagen(imagen_8x8)
    comprobar_mismo_dispositivo(modelo, dispositivo)
    with modo_evaluacion(modelo):
        try:
            salida = modelo(entrada.to(dispositivo))
        except (RuntimeError, ValueError, TypeError, IndexError) as error:
            raise ValueError(f"El modelo {type(modelo).__name__} no acepta una imagen [1, 1, 8, 8]: la pizarra "
                             f"necesita una CNN de imágenes de 8×8 como CNNPequena(). (PyTorch dice: "
                             f"{str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__})") from None
        if salida.ndim != 2:
            raise ValueError(f"El modelo da salidas de forma {list(salida.shape)}; la pizarra espera "
                             f"[1, {len(NOMBRES_CLASES)}] (un logit por clase).")
        probabilidades = torch.softmax(salida, dim=1)[0].tolist()
    if len(probabilidades) != len(NOMBRES_CLASES):
        raise ValueError(f"El modelo da {len(probabilidades)} salidas; la pizarra espera {len(NOMBRES_CLASES)} clases.")
    mejor = max(range(len(probabilidades)), key=probabilidades.__getitem__)
    return Prediccion(NOMBRES_CLASES[mejor], dict(zip(NOMBRES_CLASES, probabilidades)))


# ---------------------------------------------------------------------------
# Entrenar
# ---------------------------------------------------------------------------

def fijar_semilla(semilla: int) -> None:
    """Fija las semillas de torch (CPU y GPU), NumPy y ``random``. Lección 05.

    ``semilla``: un entero entre 0 y 2**63 - 1 (también un entero de NumPy).
    """
    import numpy as np

    semilla = validar_semilla(semilla)
    if semilla is None:
        raise ValueError("fijar_semilla necesita un entero, por ejemplo fijar_semilla(0); recibí None.")
    torch.manual_seed(semilla)
    np.random.seed(semilla % 2**32)
    random.seed(semilla)


@contextlib.contextmanager
def _determinista(activar: bool):
    """En CUDA, algoritmos de cuDNN deterministas mientras dura el entrenamiento."""
    if not activar:
        yield
        return
    antes = (torch.backends.cudnn.deterministic, torch.backends.cudnn.benchmark)
    torch.backends.cudnn.deterministic, torch.backends.cudnn.benchmark = True, False
    try:
        yield
    finally:
        torch.backends.cudnn.deterministic, torch.backends.cudnn.benchmark = antes


def _ejemplos_del_grupo(micro_lote: int, tamano_lote: int, acumular: int, n: int) -> int:
    """Ejemplos del grupo de ``acumular`` micro-lotes al que pertenece el micro-lote ``micro_lote``."""
    inicio = (micro_lote // acumular) * acumular * tamano_lote
    return min(acumular * tamano_lote, n - inicio)


@dataclass
class _Sesion:
    """Lo que el bucle necesita, ya comprobado y en su dispositivo (lo prepara ``_preparar``)."""

    modelo: nn.Module
    dispositivo: torch.device
    epocas: int
    lr: float
    tamano_lote: int | None
    acumular: int
    precision: str
    criterio: nn.Module
    optimizador: torch.optim.Optimizer
    autocast: Callable
    escalador: object
    X_ent: torch.Tensor
    y_ent: torch.Tensor
    X_val: torch.Tensor
    y_val: torch.Tensor
    semilla: int | None
    semilla_lotes: int
    nucleo: NucleoCheckpoints
    cargador: object = None                # DataLoader barajado (con tamano_lote)
    generador: torch.Generator | None = None


def _preparar(modelo, datos_entrenamiento, datos_validacion, dispositivo, epocas, lr, tamano_lote, semilla,
              checkpoints, criterio, acumular, precision) -> _Sesion:
    """Comprueba todo antes de gastar un segundo de cálculo y lo lleva al dispositivo, una sola vez."""

    # 1. Comprobar todo (el modelo del alumno no se toca hasta que todo está bien).
    validar_modelo(modelo)
    validar_modelo_con_pesos(modelo)  # en 'meta': sin valores que mover al dispositivo
    validar_modelo_entrenable(modelo)  # congelado entero: nada que entrenar
    epocas = leer_numero(epocas, "epocas", entero=True, minimo=1, ejemplo="epocas=120")
    lr = leer_numero(lr, "lr", minimo=0, minimo_incluido=False, ejemplo="lr=0.01")
    if tamano_lote is not None:
        tamano_lote = leer_numero(tamano_lote, "tamano_lote", entero=True, minimo=1, ejemplo="tamano_lote=64")
    semilla = validar_semilla(semilla)
    acumular = leer_numero(acumular, "acumular", entero=True, minimo=1, ejemplo="acumular=4")
    if acumular > 1 and tamano_lote is None:
        raise ValueError(f"acumular={acumular} necesita un tamaño de micro-lote: entrenar(..., tamano_lote=8, "
                         f"acumular={acumular}) da pasos con {acumular} × 8 ejemplos.")
    X_ent, y_ent = validar_datos(datos_entrenamiento, "datos_entrenamiento")
    X_val, y_val = validar_datos(datos_validacion, "datos_validacion")
    dispositivo = _como_dispositivo(dispositivo)
    if dispositivo.type == "meta":
        raise ValueError("dispositivo='meta' no sirve para entrenar: en 'meta' los tensores no tienen valores, "
                         "y mover ahí el modelo borraría sus pesos. Usa 'cpu', 'cuda' o 'mps' "
                         "(o elegir_dispositivo()). Tu modelo no se ha tocado.")
    autocast, escalador = preparar_precision(precision, dispositivo)
    nucleo = NucleoCheckpoints(checkpoints, entrenador="entrenar", configuracion={"epocas": epocas})
    nucleo.comprobar()  # una carpeta sin permisos falla ahora, no tras una hora (y solo se comprueba aquí)
    if semilla is not None:
        fijar_semilla(semilla)

    # 2. Todo al mismo dispositivo, una sola vez.
    modelo.to(dispositivo)
    criterio, y_ent = comprobar_con_modelo(modelo, criterio, X_ent, y_ent, "datos_entrenamiento", dispositivo)
    criterio, y_val = comprobar_con_modelo(modelo, criterio, X_val, y_val, "datos_validacion", dispositivo)
    optimizador = torch.optim.Adam(modelo.parameters(), lr=lr)
    if tamano_lote is None:
        X_ent, y_ent = X_ent.to(dispositivo), y_ent.to(dispositivo)
        X_val, y_val = X_val.to(dispositivo), y_val.to(dispositivo)
    else:
        X_ent, y_ent, X_val, y_val = X_ent.cpu(), y_ent.cpu(), X_val.cpu(), y_val.cpu()
    semilla_lotes = semilla if semilla is not None else 0
    if semilla is None and tamano_lote is not None:
        semilla_lotes = int(torch.randint(0, 2**31 - 1, (1,)).item())  # se guarda en el checkpoint
    nucleo.configuracion = configuracion_de_entrenamiento(
        modelo, lr=lr, tamano_lote=tamano_lote, epocas=epocas, dispositivo=dispositivo, semilla=semilla,
        criterio=type(criterio).__name__, acumular=acumular, precision=precision)
    if nucleo.activo:
        nucleo.datos = huella_de_datos(X_ent, y_ent)
    sesion = _Sesion(modelo, dispositivo, epocas, lr, tamano_lote, acumular, precision, criterio, optimizador,
                     autocast, escalador, X_ent, y_ent, X_val, y_val, semilla, semilla_lotes, nucleo)
    if tamano_lote is not None:
        sesion.generador = torch.Generator()
        sesion.cargador = torch.utils.data.DataLoader(
            torch.utils.data.TensorDataset(X_ent, y_ent), batch_size=tamano_lote, shuffle=True,
            generator=sesion.generador, pin_memory=dispositivo.type == "cuda")
    return sesion


def _una_epoca(s: _Sesion, epoca: int, no_finita: torch.Tensor) -> torch.Tensor:
    """Un paso de Adam con todo el conjunto, o una pasada por los lotes. Sin esperas a la GPU."""
    s.modelo.train()
    if s.cargador is None:
        with s.autocast():
            perdida = s.criterio(s.modelo(s.X_ent), s.y_ent)
        no_finita = vigilar_perdida(no_finita, perdida, epoca)
        s.optimizador.zero_grad(set_to_none=True)
        s.escalador.scale(perdida).backward()
        s.escalador.step(s.optimizador)
        s.escalador.update()
        return no_finita
    s.generador.manual_seed(s.semilla_lotes + epoca)  # mismo orden de lotes al reanudar
    for i, (xb, yb) in enumerate(s.cargador):
        xb = xb.to(s.dispositivo, non_blocking=True)
        yb = yb.to(s.dispositivo, non_blocking=True)
        with s.autocast():
            perdida = s.criterio(s.modelo(xb), yb)
        no_finita = vigilar_perdida(no_finita, perdida, epoca)
        if i % s.acumular == 0:
            s.optimizador.zero_grad(set_to_none=True)
        if s.acumular > 1:  # cada micro-lote pesa lo que sus ejemplos en el grupo
            perdida = perdida * (xb.shape[0] / _ejemplos_del_grupo(i, s.tamano_lote, s.acumular, len(s.X_ent)))
        s.escalador.scale(perdida).backward()
        if (i + 1) % s.acumular == 0 or i + 1 == len(s.cargador):
            s.escalador.step(s.optimizador)
            s.escalador.update()
    return no_finita


def _registrar(s: _Sesion, epoca: int, no_finita: torch.Tensor, historial: Historial, segundos: float) -> Registro:
    """Mide entrenamiento y validación y lo anota en ``historial``. Aquí la CPU espera a la GPU."""
    with modo_evaluacion(s.modelo):
        pe, ae = _medir(s.modelo, s.X_ent, s.y_ent, s.criterio, s.tamano_lote, s.dispositivo)
        pv, av = _medir(s.modelo, s.X_val, s.y_val, s.criterio, s.tamano_lote, s.dispositivo)
        valores = torch.stack([pe.float(), pv.float(), ae, av, no_finita]).tolist()  # la única espera
    parar_si_no_finita(valores.pop(), valores[:2], s.lr, historial, epoca)
    historial.segundos = segundos
    registro = Registro(epoca, s.epocas, *valores[:2], *valores[2:], segundos)
    historial.agregar(registro)
    return registro


def _guardar(s: _Sesion, epoca: int, no_finita: torch.Tensor, historial: Historial) -> None:
    """Escribe el checkpoint de ``epoca`` si toca (el formato único, con el núcleo)."""
    if not s.nucleo.activo or not s.nucleo.carpeta.toca_guardar(epoca, s.epocas):
        return
    parar_si_no_finita(no_finita.item(), None, s.lr, historial)  # nunca se guarda un modelo con pesos NaN
    try:
        s.nucleo.guardar(epoca, pesos=s.modelo.state_dict(), optimizador=s.optimizador, historial=historial,
                         escalador=s.escalador, semilla_lotes=s.semilla_lotes)
    except CheckpointNoGuardado as error:
        error.historial = historial  # lo entrenado no se pierde
        raise


def entrenar(
    modelo: nn.Module,
    datos_entrenamiento,
    datos_validacion,
    dispositivo,
    epocas: int = 120,
    lr: float = 0.01,
    *,
    tamano_lote: int | None = None,
    semilla: int | None = None,
    silencioso: bool = False,
    al_registrar: Callable[[Registro], None] | None = None,
    al_avanzar: Callable[[int, int], None] | None = None,
    checkpoints=None,
    criterio: nn.Module | None = None,
    acumular: int = 1,
    precision: str = "fp32",
) -> Historial:
    """Entrena ``modelo`` en ``dispositivo`` con Adam y devuelve su ``Historial``. Lección 05.

    - Mueve el modelo y los datos al dispositivo una sola vez. Sin ``tamano_lote``, cada
      época es un paso de Adam con todo el conjunto (como el bucle a mano); con
      ``tamano_lote``, usa un ``DataLoader`` barajado (``pin_memory``/``non_blocking`` en CUDA).
    - Mide pérdida y accuracy de entrenamiento y validación en la época 1, cada 10 y la
      última; llama a ``al_registrar(registro)`` en esos puntos.
    - El progreso va por un solo canal: ``al_avanzar(epoca, total)`` en cada época (no
      sincroniza). Por defecto es una barra de ``tqdm`` (``progreso.BarraEpocas``); con
      ``silencioso=True`` no hay barra. ``entrenar`` no imprime nada: los avisos (p. ej.
      «Reanudo desde…») quedan en ``historial.avisos``.
    - ``semilla``: fija las semillas (misma semilla y dispositivo ⇒ mismo resultado).
    - ``checkpoints``: ``carpeta_checkpoints('nombre', cada=10)`` (o una ruta: solo al final).
      La carpeta dice cada cuánto se guarda y si se reanuda. Si ya tiene checkpoints de este
      entrenamiento (o de ``entrenar_ddp``), **sigue desde el último** y lo dice (si cambiaste
      lr, tamano_lote, epocas, los datos..., avisa de cada cambio). Con ``reanudar=False`` en la
      carpeta empieza de cero y aparta los viejos a ``anteriores/<fecha>/`` (nunca se borran).
      Un segundo entrenamiento en la misma carpeta se rechaza (``CarpetaOcupada``).
    - ``criterio``: la pérdida; sin ella, entropía cruzada (un logit por clase) o
      ``BCEWithLogitsLoss`` (un logit por ejemplo).
    - Errores que no pierden nada: ``PerdidaNoFinita`` si la pérdida se vuelve NaN/inf y
      ``CheckpointNoGuardado`` si el disco se llena o la carpeta desaparece; los dos traen
      ``error.historial``.
    - ``acumular=k`` (con ``tamano_lote``): suma los gradientes de k micro-lotes antes de cada
      paso de Adam. Da lo mismo que un lote de k·tamano_lote con la memoria de uno de
      tamano_lote (lección 07); supone un ``criterio`` que promedia (el de por defecto).
    - ``precision``: ``"fp32"`` (por defecto), ``"fp16"`` (autocast + ``GradScaler``, cuyo
      estado va en el checkpoint) o ``"bf16"`` (autocast, sin escalador). Lección 06.
    """
    for nombre, funcion in (("al_registrar", al_registrar), ("al_avanzar", al_avanzar)):
        if funcion is not None and not callable(funcion):
            raise ValueError(f"{nombre} debe ser una función (o None); recibí {funcion!r}. Por ejemplo, "
                             f"{nombre}=print.")
    s = _preparar(modelo, datos_entrenamiento, datos_validacion, dispositivo, epocas, lr, tamano_lote, semilla,
                  checkpoints, criterio, acumular, precision)
    historial = Historial(dispositivo=str(s.dispositivo), epocas_totales=s.epocas)
    avisos: list[str] = []  # acaban en historial.avisos: entrenar no imprime
    inicio = 1

    # 3. El bucle (con el candado de la carpeta: un solo entrenamiento a la vez).
    no_finita = torch.zeros((), device=s.dispositivo)  # la época en que la pérdida dejó de ser finita (0: nunca)
    with s.nucleo, _determinista(s.dispositivo.type == "cuda" and s.semilla is not None):
        estado = s.nucleo.decidir(s.modelo.state_dict(), s.dispositivo, avisos.append)
        if estado is not None:
            historial = s.nucleo.restaurar(estado, cargar_pesos=s.modelo.load_state_dict,
                                           optimizador=s.optimizador, escalador=s.escalador, lr=s.lr)
            historial.continuar_en(s.dispositivo, s.epocas)
            s.semilla_lotes = int(estado["semilla_lotes"])
            inicio = int(estado["epoca"]) + 1
        historial.avisos += avisos
        previos = historial.segundos
        if al_avanzar is None and not silencioso:
            from ..base import BarraEpocas

            al_avanzar = BarraEpocas(f"Entrenando en {s.dispositivo}")
        comienzo = time.perf_counter()
        for epoca in range(inicio, s.epocas + 1):
            no_finita = _una_epoca(s, epoca, no_finita)
            if epoca == 1 or epoca % CADA_REGISTRO == 0 or epoca == s.epocas:
                registro = _registrar(s, epoca, no_finita, historial, previos + time.perf_counter() - comienzo)
                if al_registrar is not None:
                    al_registrar(registro)
            historial.segundos = previos + time.perf_counter() - comienzo
            _guardar(s, epoca, no_finita, historial)
            if al_avanzar is not None:
                al_avanzar(epoca, s.epocas)
        sincronizar(s.dispositivo)
    historial.segundos = previos + time.perf_counter() - comienzo
    s.nucleo.terminar()
    return historial
