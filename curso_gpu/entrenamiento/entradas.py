"""Comprobar lo que recibe ``entrenar`` antes de gastar un segundo de cálculo. Lección 05.

Cada comprobación da un ``ValueError`` en español que dice qué estaba mal, el valor recibido y
qué hacer: el modelo, los datos (forma, tipo, NaN, etiquetas en rango, pérdida que encaja con la
salida), el dispositivo y los números (``epocas``, ``lr``, ``semilla``...). Las usan
``entrenamiento`` (``entrenar``, ``evaluar``, ``predecir``) y ``entrenar_ddp``.
"""

from __future__ import annotations

import contextlib
import warnings

import torch
from torch import nn

from ..base import contar, leer_numero, mostrar_valor
from ..dispositivo import como_dispositivo, dispositivo_del_modelo
from .modelos import CNNPequena

__all__ = [
    "DispositivosDistintos", "SEMILLA_MAXIMA", "comprobar_con_modelo", "comprobar_mismo_dispositivo",
    "modo_evaluacion", "validar_datos", "validar_modelo", "validar_modelo_con_pesos", "validar_semilla",
]

_PERDIDAS_DE_REGRESION = (nn.MSELoss, nn.L1Loss, nn.SmoothL1Loss, nn.HuberLoss)


class DispositivosDistintos(ValueError):
    """El modelo y los datos están en dispositivos distintos."""



@contextlib.contextmanager
def modo_evaluacion(modelo: nn.Module):
    """``eval()`` y ``no_grad()`` mientras dura el ``with``; después, el modelo vuelve a su modo."""
    entrenando = modelo.training
    modelo.eval()
    try:
        with torch.no_grad():
            yield
    finally:
        modelo.train(entrenando)




def _mismo_dispositivo(a: torch.device, b: torch.device) -> bool:
    return a.type == b.type and (a.index is None or b.index is None or a.index == b.index)


def comprobar_mismo_dispositivo(modelo: nn.Module, dispositivo) -> None:
    """Lanza ``DispositivosDistintos`` (en español) si el modelo no está en ``dispositivo``."""
    dispositivo = como_dispositivo(dispositivo)
    del_modelo = dispositivo_del_modelo(modelo)
    if not _mismo_dispositivo(del_modelo, dispositivo):
        raise DispositivosDistintos(
            f"El modelo está en '{del_modelo}' pero los datos van a '{dispositivo}': PyTorch no mezcla "
            f"dispositivos. Mueve el modelo al mismo dispositivo que los datos con "
            f"modelo.to(torch.device('{dispositivo}')) (o los datos con .to('{del_modelo}'))."
        )


def validar_modelo(modelo) -> None:
    if not isinstance(modelo, nn.Module):
        raise ValueError(f"modelo debe ser una red de PyTorch (un nn.Module, por ejemplo CNNPequena()); "
                         f"recibí {modelo!r:.80}.")


def validar_modelo_con_pesos(modelo: nn.Module) -> None:
    """Un modelo con valores en sus pesos: uno en ``meta`` no se puede mover a otro dispositivo para entrenar."""
    if any(t.is_meta for t in (*modelo.parameters(), *modelo.buffers())):
        raise ValueError(f"modelo ({type(modelo).__name__}) tiene sus pesos en el dispositivo 'meta': solo formas, "
                         "sin valores (sirve para contar memoria, no para calcular). Crea el modelo sin 'meta' "
                         f"({type(modelo).__name__}() a secas), o dale pesos de verdad: "
                         "modelo.to_empty(device='cpu') y después modelo.load_state_dict(...). Tu modelo no se ha tocado.")


def validar_datos(datos, nombre: str):
    """Comprobaciones que no necesitan el modelo: tupla (X, y), mismo largo, X de números reales."""
    if datos is None:
        raise ValueError(f"{nombre} es None: pasa una tupla (X, y) de tensores, por ejemplo generar_dataset(120).")
    if not (isinstance(datos, (tuple, list)) and len(datos) == 2
            and all(isinstance(t, torch.Tensor) for t in datos)):
        raise ValueError(f"{nombre} debe ser una tupla (X, y) de tensores; recibí {type(datos).__name__}.")
    X, y = datos
    if X.ndim == 0 or y.ndim == 0:
        raise ValueError(f"{nombre}: X e y deben tener una fila por ejemplo; recibí X con forma {list(X.shape)} "
                         f"e y con forma {list(y.shape)}.")
    if X.shape[0] != y.shape[0] or X.shape[0] == 0:
        raise ValueError(
            f"{nombre}: X e y deben tener el mismo número de ejemplos (y al menos uno); "
            f"recibí X con {X.shape[0]} e y con {y.shape[0]}.")
    if not X.is_floating_point():
        raise ValueError(f"{nombre}: X es de tipo {X.dtype} y la red necesita números reales (torch.float32). "
                         "Conviértelo con X.float().")
    return X, y


def _forma_esperada(modelo: nn.Module, X: torch.Tensor) -> str:
    """Qué forma de entrada espera la primera capa del modelo, y cómo llegar a ella."""
    for capa in modelo.modules():
        if isinstance(capa, nn.Conv2d):
            forma = "[N, 1, 8, 8]" if isinstance(modelo, CNNPequena) else f"[N, {capa.in_channels}, alto, ancho]"
            canal = " Añade el canal con X.unsqueeze(1)." if X.ndim == 3 else ""
            return f" Espera X con forma {forma}.{canal}"
        if isinstance(capa, nn.Linear):
            return f" Espera X con forma [N, {capa.in_features}]."
    return ""


def comprobar_con_modelo(modelo: nn.Module, criterio, X: torch.Tensor, y: torch.Tensor, nombre: str,
                          dispositivo: torch.device):
    """Prueba el modelo con dos ejemplos y comprueba que X, y y la pérdida encajan con su salida.

    Devuelve ``(criterio, y)``: sin criterio, entropía cruzada si el modelo da un logit por
    clase y ``BCEWithLogitsLoss`` si da uno solo por ejemplo; ``y`` en el tipo que pide la pérdida.
    Lee los datos una sola vez (NaN/inf, rango de etiquetas), antes de entrenar.
    """
    parametro = next(modelo.parameters(), None)
    if parametro is not None and parametro.is_floating_point() and X.dtype != parametro.dtype:
        raise ValueError(f"{nombre}: X es {X.dtype} y el modelo usa {parametro.dtype}. "
                         f"Convierte X con X.to({parametro.dtype}) (lo normal: X.float()).")
    n = min(2, X.shape[0])
    with modo_evaluacion(modelo):
        try:
            salida = modelo(X[:n].to(dispositivo))
        except (RuntimeError, ValueError, TypeError, IndexError) as error:
            linea = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
            raise ValueError(
                f"{nombre}: el modelo {type(modelo).__name__} no acepta X con forma {list(X.shape)} ({X.dtype})."
                f"{_forma_esperada(modelo, X)} (PyTorch dice: {linea})") from None
    if not isinstance(salida, torch.Tensor) or salida.ndim == 0 or salida.shape[0] != n:
        forma = list(salida.shape) if isinstance(salida, torch.Tensor) else type(salida).__name__
        raise ValueError(f"El modelo {type(modelo).__name__} debe devolver un tensor con una fila por ejemplo; "
                         f"con {n} ejemplos devolvió {forma}.")
    un_logit = salida.ndim == 1 or (salida.ndim == 2 and salida.shape[1] == 1)
    if criterio is not None and not callable(criterio):
        raise ValueError(f"criterio debe ser una función de pérdida de PyTorch, p. ej. nn.CrossEntropyLoss() o "
                         f"nn.MSELoss(); recibí {mostrar_valor(criterio)}. Sin criterio se elige solo.")
    if criterio is None:
        criterio = nn.BCEWithLogitsLoss() if un_logit else nn.CrossEntropyLoss()
    rango = None
    if isinstance(criterio, nn.CrossEntropyLoss):
        if un_logit or salida.ndim != 2:
            raise ValueError(
                f"El modelo {type(modelo).__name__} da salidas de forma {list(salida.shape)} y la entropía cruzada "
                "(nn.CrossEntropyLoss) necesita un logit por clase: forma [N, clases], con 2 clases o más. "
                "Con un solo logit por ejemplo (clasificación binaria) usa criterio=nn.BCEWithLogitsLoss(), "
                "o no pases criterio y se elige solo.")
        clases = salida.shape[1]
        if not (y.is_floating_point() and list(y.shape) == [X.shape[0], clases]):  # probabilidades por clase: valen
            if y.is_floating_point() or y.is_complex() or y.ndim != 1:
                raise ValueError(
                    f"{nombre}: y debe ser un vector de etiquetas enteras de 0 a {clases - 1} (forma [N]); "
                    f"recibí {y.dtype} con forma {list(y.shape)}. Conviértelo con y.long().")
            y, rango = y.long(), (0, clases - 1)
    elif isinstance(criterio, (nn.BCEWithLogitsLoss, nn.BCELoss)):
        por_ejemplo = salida[0].numel()
        if y.numel() != X.shape[0] * por_ejemplo:
            raise ValueError(f"{nombre}: el modelo da {por_ejemplo} valor(es) por ejemplo y y tiene forma "
                             f"{list(y.shape)}: hace falta una etiqueta 0/1 por cada uno.")
        y, rango = y.to(salida.dtype).reshape(X.shape[0], *salida.shape[1:]), (0, 1)
    elif isinstance(criterio, _PERDIDAS_DE_REGRESION):
        if not y.is_floating_point() or list(y.shape[1:]) != list(salida.shape[1:]):
            raise ValueError(
                f"{nombre}: el criterio {type(criterio).__name__} compara la salida del modelo (forma "
                f"{list(salida.shape)}) con y valor a valor, y y es {y.dtype} con forma {list(y.shape)}. Da y "
                f"con forma [N{''.join(', ' + str(d) for d in salida.shape[1:])}] y números reales (y.float()), o, "
                "para clasificar, usa nn.CrossEntropyLoss() (o no pases criterio).")
    # Una sola lectura de los datos (antes del bucle): valores finitos y rango de las etiquetas.
    comprobar = [torch.isfinite(X).all().float().cpu()]
    if y.is_floating_point():
        comprobar.append(torch.isfinite(y).all().float().cpu())
    if rango is not None:
        comprobar += [y.min().float().cpu(), y.max().float().cpu()]
    valores = torch.stack(comprobar).tolist()
    if not valores[0]:
        raise ValueError(f"{nombre}: X tiene valores NaN o infinitos. Revisa cómo generaste los datos o "
                         "límpialos antes de entrenar (por ejemplo, con torch.nan_to_num(X)).")
    if y.is_floating_point() and not valores[1]:
        raise ValueError(f"{nombre}: y tiene valores NaN o infinitos. Revisa las etiquetas.")
    if rango is not None and (valores[-2] < rango[0] or valores[-1] > rango[1]):
        raise ValueError(
            f"{nombre}: y tiene etiquetas de {valores[-2]:g} a {valores[-1]:g}, pero deben ir de {rango[0]} a "
            f"{rango[1]} (el modelo da {contar(salida.shape[1] if salida.ndim == 2 and rango[1] > 1 else 1, 'salida')} "
            "por ejemplo). Revisa las etiquetas o usa un modelo con tantas salidas como clases.")
    _probar_criterio(criterio, salida, y[:n].to(salida.device), nombre)
    return criterio, y


def _probar_criterio(criterio, salida: torch.Tensor, y: torch.Tensor, nombre: str) -> None:
    """Calcula la pérdida con dos ejemplos: si no encaja con la salida o con y, un error en español ahora."""
    quien = type(criterio).__name__ if isinstance(criterio, nn.Module) else getattr(criterio, "__name__", "criterio")
    with torch.no_grad(), warnings.catch_warnings(record=True) as avisos:
        warnings.simplefilter("always")
        try:
            perdida = criterio(salida, y)
        except (RuntimeError, ValueError, TypeError, IndexError) as error:
            linea = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
            raise ValueError(
                f"{nombre}: el criterio {quien} no encaja con la salida del modelo (forma "
                f"{list(salida.shape)}) y las etiquetas y ({y.dtype}, forma [N{''.join(', ' + str(d) for d in y.shape[1:])}]). "
                f"Usa una pérdida que acepte esas formas, o no pases criterio. (PyTorch dice: {linea})") from None
    difusion = [a for a in avisos if "target size" in str(a.message).lower()]
    if difusion:
        raise ValueError(f"{nombre}: el criterio {quien} recibiría la salida con forma "
                         f"{list(salida.shape)} e y con otra forma ({list(y.shape)}): PyTorch las «difundiría» y "
                         "la pérdida saldría mal sin avisar. Da y con la misma forma que la salida.")
    if not isinstance(perdida, torch.Tensor) or perdida.numel() != 1 or not perdida.is_floating_point():
        raise ValueError(f"{nombre}: el criterio debe devolver un solo número real (un tensor de un elemento); "
                         f"devolvió {mostrar_valor(perdida)}. ¿Falta reduction='mean'?")


SEMILLA_MAXIMA = 2**63 - 1


def validar_semilla(semilla) -> int | None:
    if semilla is None:
        return None
    return leer_numero(semilla, "semilla", entero=True, minimo=0, maximo=SEMILLA_MAXIMA, ejemplo="semilla=0 (o None)")
