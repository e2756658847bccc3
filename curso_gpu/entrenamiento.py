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
import math
import numbers
import random
import time
from dataclasses import asdict, dataclass, field
from typing import Callable

import torch
from torch import nn

from .datos import NOMBRES_CLASES
from .dispositivo import como_dispositivo as _como_dispositivo
from .dispositivo import sincronizar
from .modelos import dispositivo_del_modelo
from .numeros import leer_numero, mostrar_valor
from .precision_mixta import preparar_precision
from .presentacion import Celda, Tabla

CADA_REGISTRO = 10


class DispositivosDistintos(ValueError):
    """El modelo y los datos están en dispositivos distintos."""


class PerdidaNoFinita(ValueError):
    """La pérdida se volvió NaN o infinita; ``historial`` guarda lo entrenado hasta entonces."""

    def __init__(self, mensaje: str, historial: "Historial | None" = None):
        super().__init__(mensaje)
        self.historial = historial


# ---------------------------------------------------------------------------
# Datos que se devuelven
# ---------------------------------------------------------------------------

@dataclass
class Registro:
    """Las métricas de un punto de registro (época 1, cada 10 y la última)."""

    epoca: int
    epocas: int
    perdida_entrenamiento: float
    perdida_validacion: float
    accuracy_entrenamiento: float
    accuracy_validacion: float
    segundos: float

    def __str__(self) -> str:
        return (
            f"Época: {self.epoca:3d}/{self.epocas}\n"
            f"Pérdida de entrenamiento: {self.perdida_entrenamiento:.4f}\n"
            f"Pérdida de validación:    {self.perdida_validacion:.4f}\n"
            f"Accuracy de entrenamiento: {self.accuracy_entrenamiento:.3f}\n"
            f"Accuracy de validación:    {self.accuracy_validacion:.3f}\n"
            f"Segundos: {self.segundos:.2f}"
        )


@dataclass
class Historial:
    """Lo que pasó en un entrenamiento: métricas por punto de registro y tiempo total. Lección 05."""

    epocas: list[int] = field(default_factory=list)
    perdida_entrenamiento: list[float] = field(default_factory=list)
    perdida_validacion: list[float] = field(default_factory=list)
    accuracy_entrenamiento: list[float] = field(default_factory=list)
    accuracy_validacion: list[float] = field(default_factory=list)
    segundos: float = 0.0
    dispositivo: str = "cpu"
    epocas_totales: int = 0
    reanudado_desde: int | None = None  # última época del checkpoint del que se siguió
    avisos: list[str] = field(default_factory=list)  # p. ej. «Reanudo desde…»: entrenar no imprime

    def agregar(self, registro: Registro) -> None:
        self.epocas.append(registro.epoca)
        self.perdida_entrenamiento.append(registro.perdida_entrenamiento)
        self.perdida_validacion.append(registro.perdida_validacion)
        self.accuracy_entrenamiento.append(registro.accuracy_entrenamiento)
        self.accuracy_validacion.append(registro.accuracy_validacion)

    def registros(self) -> list[Registro]:
        return [
            Registro(e, self.epocas_totales, pe, pv, ae, av, self.segundos)
            for e, pe, pv, ae, av in zip(self.epocas, self.perdida_entrenamiento, self.perdida_validacion,
                                         self.accuracy_entrenamiento, self.accuracy_validacion)
        ]

    @property
    def final(self) -> Registro | None:
        """Las métricas al terminar (el último punto de registro)."""
        registros = self.registros()
        return registros[-1] if registros else None

    def a_dict(self) -> dict:
        """Solo listas, números y texto: se guarda en un checkpoint con ``weights_only=True``."""
        return asdict(self)

    @classmethod
    def desde_dict(cls, datos: dict) -> "Historial":
        return cls(**datos)

    def tabla(self) -> Tabla:
        """Las métricas como ``Tabla``: una fila por punto de registro; los avisos, debajo."""
        reanudado = f" (reanudado tras la época {self.reanudado_desde})" if self.reanudado_desde else ""
        titulo = (f"Entrenamiento en {self.dispositivo}: {self.epocas_totales} épocas en {self.segundos:.2f} s"
                  f"{reanudado}")
        filas = [[r.epoca, f"{r.perdida_entrenamiento:.4f}", f"{r.perdida_validacion:.4f}",
                  f"{r.accuracy_entrenamiento:.3f}", f"{r.accuracy_validacion:.3f}"] for r in self.registros()]
        return Tabla(titulo, ["época", "pérdida ent.", "pérdida val.", "acc. ent.", "acc. val."], filas,
                     notas=list(self.avisos))

    def __str__(self) -> str:
        return str(self.tabla())

    def _repr_html_(self) -> str:
        return self.tabla()._repr_html_()


@dataclass
class Prediccion:
    """La clase que predice el modelo y la probabilidad de cada una. Lección 05."""

    clase: str
    probabilidades: dict[str, float]

    def tabla(self) -> Tabla:
        """La clase predicha y una fila por clase con su probabilidad (una barra en el notebook)."""
        filas = [[n, Celda(f"{p:.2f}", barra=p)] for n, p in self.probabilidades.items()]
        return Tabla(f"Predicción: {self.clase}", [], filas)

    def __str__(self) -> str:
        return str(self.tabla())

    def _repr_html_(self) -> str:
        return self.tabla()._repr_html_()


# ---------------------------------------------------------------------------
# Comprobaciones con mensajes claros
# ---------------------------------------------------------------------------

def _mismo_dispositivo(a: torch.device, b: torch.device) -> bool:
    return a.type == b.type and (a.index is None or b.index is None or a.index == b.index)


def comprobar_mismo_dispositivo(modelo: nn.Module, dispositivo) -> None:
    """Lanza ``DispositivosDistintos`` (en español) si el modelo no está en ``dispositivo``."""
    dispositivo = _como_dispositivo(dispositivo)
    del_modelo = dispositivo_del_modelo(modelo)
    if not _mismo_dispositivo(del_modelo, dispositivo):
        raise DispositivosDistintos(
            f"El modelo está en '{del_modelo}' pero los datos van a '{dispositivo}': PyTorch no mezcla "
            f"dispositivos. Mueve el modelo al mismo dispositivo que los datos con "
            f"modelo.to(torch.device('{dispositivo}')) (o los datos con .to('{del_modelo}'))."
        )


def _validar_modelo(modelo) -> None:
    if not isinstance(modelo, nn.Module):
        raise ValueError(f"modelo debe ser una red de PyTorch (un nn.Module, por ejemplo CNNPequena()); "
                         f"recibí {modelo!r:.80}.")


def _validar_datos(datos, nombre: str):
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
    from .modelos import CNNPequena

    for capa in modelo.modules():
        if isinstance(capa, nn.Conv2d):
            forma = "[N, 1, 8, 8]" if isinstance(modelo, CNNPequena) else f"[N, {capa.in_channels}, alto, ancho]"
            canal = " Añade el canal con X.unsqueeze(1)." if X.ndim == 3 else ""
            return f" Espera X con forma {forma}.{canal}"
        if isinstance(capa, nn.Linear):
            return f" Espera X con forma [N, {capa.in_features}]."
    return ""


def _comprobar_con_modelo(modelo: nn.Module, criterio, X: torch.Tensor, y: torch.Tensor, nombre: str,
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
    with _modo_evaluacion(modelo):
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
            f"{rango[1]} (el modelo da {salida.shape[1] if salida.ndim == 2 and rango[1] > 1 else 1} salida(s) "
            "por ejemplo). Revisa las etiquetas o usa un modelo con tantas salidas como clases.")
    return criterio, y


def _como_numero(valor, entero: bool):
    """El número como int o float de Python (también los de NumPy y, si no es entero, Decimal); None si no vale."""
    if entero:
        return int(valor) if isinstance(valor, numbers.Integral) and not isinstance(valor, bool) else None
    try:
        return leer_numero(valor)  # rechaza booleanos, textos, NaN e infinitos
    except ValueError:
        return None


def _validar_positivo(valor, nombre: str, entero: bool, ejemplo: str, minimo_cero: bool = False):
    """Comprueba un número positivo y lo devuelve como int o float de Python."""
    numero = _como_numero(valor, entero)
    if numero is None or numero < 0 or (numero == 0 and not minimo_cero):
        cota = "mayor o igual que 0" if minimo_cero else ("mayor o igual que 1" if entero else "mayor que 0")
        raise ValueError(f"{nombre} debe ser {'un entero' if entero else 'un número'} {cota}; recibí "
                         f"{mostrar_valor(valor)}. Prueba, por ejemplo, {ejemplo}.")
    return numero


SEMILLA_MAXIMA = 2**63 - 1


def _validar_semilla(semilla) -> int | None:
    if semilla is None:
        return None
    numero = _como_numero(semilla, True)
    if numero is None or not 0 <= numero <= SEMILLA_MAXIMA:
        raise ValueError(f"semilla debe ser un entero entre 0 y 2**63 - 1, o None; recibí {mostrar_valor(semilla)}. "
                         "Prueba, por ejemplo, semilla=0.")
    return numero


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


@contextlib.contextmanager
def _modo_evaluacion(modelo: nn.Module):
    entrenando = modelo.training
    modelo.eval()
    try:
        with torch.no_grad():
            yield
    finally:
        modelo.train(entrenando)


def evaluar(modelo: nn.Module, X: torch.Tensor, y: torch.Tensor, dispositivo, *, criterio=None,
            tamano_lote: int | None = None) -> tuple[float, float]:
    """Pérdida y accuracy de ``modelo`` sobre ``(X, y)``, con ``eval()`` y ``no_grad()``. Lección 05.

    Mueve ``X`` e ``y`` a ``dispositivo``; el modelo ya debe estar allí (si no, un error
    en español que dice dónde está cada cosa). Sin ``criterio``, la misma pérdida que elige
    ``entrenar``. Comprueba antes los datos (forma, tipo, NaN, etiquetas en rango).
    """
    _validar_modelo(modelo)
    dispositivo = _como_dispositivo(dispositivo)
    if tamano_lote is not None:
        tamano_lote = _validar_positivo(tamano_lote, "tamano_lote", True, "tamano_lote=64")
    X, y = _validar_datos((X, y), "Los datos a evaluar")
    comprobar_mismo_dispositivo(modelo, dispositivo)
    criterio, y = _comprobar_con_modelo(modelo, criterio, X, y, "Los datos a evaluar", dispositivo)
    with _modo_evaluacion(modelo):
        perdida, acierto = _medir(modelo, X, y, criterio, tamano_lote, dispositivo)
        perdida, acierto = torch.stack([perdida.float(), acierto]).tolist()
    return perdida, acierto


def _como_imagen(imagen) -> torch.Tensor:
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
    _validar_modelo(modelo)
    dispositivo = _como_dispositivo(dispositivo)
    entrada = _como_imagen(imagen_8x8)
    comprobar_mismo_dispositivo(modelo, dispositivo)
    with _modo_evaluacion(modelo):
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

    semilla = _validar_semilla(semilla)
    if semilla is None:
        raise ValueError("fijar_semilla necesita un entero, por ejemplo fijar_semilla(0); recibí None.")
    torch.manual_seed(semilla)
    np.random.seed(semilla % 2**32)
    random.seed(semilla)


def _vigilar(no_finita: torch.Tensor, perdida: torch.Tensor, epoca: int) -> torch.Tensor:
    """Anota (sin sincronizar) la primera época en que la pérdida deja de ser finita."""
    return torch.where((no_finita == 0) & ~torch.isfinite(perdida.detach().float()),
                       torch.tensor(float(epoca), device=no_finita.device), no_finita)


def _parar_si_no_finita(epoca_mala: float, perdidas, lr: float, historial: Historial, epoca: int | None = None) -> None:
    """Lanza ``PerdidaNoFinita`` si la pérdida se volvió NaN/inf (en el paso o al medir)."""
    if not epoca_mala and (perdidas is None or all(math.isfinite(p) for p in perdidas)):
        return
    cuando = int(epoca_mala) if epoca_mala else epoca
    raise PerdidaNoFinita(
        f"La pérdida dejó de ser un número finito (NaN o infinito) en la época {cuando}: paro el entrenamiento. "
        f"Suele ser un lr demasiado alto (prueba lr={lr / 10:g}) o datos con valores enormes, NaN o infinitos "
        "(normalízalos). Lo entrenado hasta aquí está en error.historial; los checkpoints guardados siguen intactos.",
        historial)


def _seguir_desde(estado: dict, modelo: nn.Module, optimizador, escalador, lr: float, epocas: int,
                  dispositivo: torch.device) -> tuple[Historial, int]:
    """Carga modelo, optimizador, escalador e historial de un checkpoint; el lr es el que pides ahora."""
    try:
        modelo.load_state_dict(estado["modelo"])
        optimizador.load_state_dict(estado["optimizador"])
    except (RuntimeError, ValueError, KeyError) as error:
        raise ValueError(
            f"El checkpoint {estado['ruta']} no corresponde a este modelo ({error}). "
            "Usa otra carpeta, o reanudar=False para empezar de cero.") from None
    if estado.get("escalador"):
        escalador.load_state_dict(estado["escalador"])
    for grupo in optimizador.param_groups:
        grupo["lr"] = lr  # si cambiaste lr, manda el nuevo (preparar_reanudacion ya lo avisó)
    historial = Historial.desde_dict(estado["historial"])
    historial.epocas_totales, historial.dispositivo = epocas, str(dispositivo)
    historial.avisos = []  # los de la sesión anterior ya se vieron entonces
    historial.reanudado_desde = int(estado["epoca"])
    return historial, int(estado["semilla_lotes"])


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
    cada_checkpoint: int = 0,
    reanudar: bool | None = None,
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
    - ``checkpoints`` (``carpeta_checkpoints(...)`` o una ruta) y ``cada_checkpoint=N``:
      guarda cada N épocas y al final. Si la carpeta ya tiene checkpoints de este
      entrenamiento, **sigue desde el último** y lo dice (si cambiaste lr, tamano_lote,
      epocas..., avisa de cada cambio). ``reanudar=False`` empieza de cero y aparta los
      viejos a ``anteriores/<fecha>/`` (nunca se borran). Un segundo entrenamiento en la
      misma carpeta se rechaza (``CarpetaOcupada``).
    - ``criterio``: la pérdida; sin ella, entropía cruzada (un logit por clase) o
      ``BCEWithLogitsLoss`` (un logit por ejemplo).
    - Errores que no pierden nada: ``PerdidaNoFinita`` si la pérdida se vuelve NaN/inf y
      ``CheckpointNoGuardado`` si el disco se llena; los dos traen ``error.historial``.
    - ``acumular=k`` (con ``tamano_lote``): suma los gradientes de k micro-lotes antes de cada
      paso de Adam. Da lo mismo que un lote de k·tamano_lote con la memoria de uno de
      tamano_lote (lección 07); supone un ``criterio`` que promedia (el de por defecto).
    - ``precision``: ``"fp32"`` (por defecto), ``"fp16"`` (autocast + ``GradScaler``, cuyo
      estado va en el checkpoint) o ``"bf16"`` (autocast, sin escalador). Lección 06.
    """
    from .checkpoints import CheckpointNoGuardado, como_carpeta, estado_aleatorio, restaurar_estado_aleatorio
    from .reanudacion import preparar_reanudacion

    # 1. Comprobar todo antes de gastar un segundo de cálculo.
    _validar_modelo(modelo)
    epocas = _validar_positivo(epocas, "epocas", True, "epocas=120")
    lr = _validar_positivo(lr, "lr", False, "lr=0.01")
    if tamano_lote is not None:
        tamano_lote = _validar_positivo(tamano_lote, "tamano_lote", True, "tamano_lote=64")
    cada_checkpoint = _validar_positivo(cada_checkpoint, "cada_checkpoint", True, "cada_checkpoint=10", minimo_cero=True)
    semilla = _validar_semilla(semilla)
    if reanudar is not None and not isinstance(reanudar, bool):
        raise ValueError(f"reanudar debe ser None (sigue si hay checkpoints), True o False (empieza de cero); "
                         f"recibí {reanudar!r}.")
    acumular = _validar_positivo(acumular, "acumular", True, "acumular=4")
    if acumular > 1 and tamano_lote is None:
        raise ValueError(f"acumular={acumular} necesita un tamaño de micro-lote: entrenar(..., tamano_lote=8, "
                         f"acumular={acumular}) da pasos con {acumular} × 8 ejemplos.")
    X_ent, y_ent = _validar_datos(datos_entrenamiento, "datos_entrenamiento")
    X_val, y_val = _validar_datos(datos_validacion, "datos_validacion")
    dispositivo = _como_dispositivo(dispositivo)
    autocast, escalador = preparar_precision(precision, dispositivo)
    carpeta = None
    if checkpoints is not None:
        carpeta = como_carpeta(checkpoints)
        carpeta.comprobar_escritura()  # una carpeta sin permisos falla ahora, no tras una hora
    elif reanudar or cada_checkpoint:
        raise ValueError("Para guardar o reanudar hace falta una carpeta: checkpoints=carpeta_checkpoints('nombre').")
    if semilla is not None:
        fijar_semilla(semilla)

    # 2. Todo al mismo dispositivo, una sola vez.
    modelo.to(dispositivo)
    criterio, y_ent = _comprobar_con_modelo(modelo, criterio, X_ent, y_ent, "datos_entrenamiento", dispositivo)
    criterio, y_val = _comprobar_con_modelo(modelo, criterio, X_val, y_val, "datos_validacion", dispositivo)
    optimizador = torch.optim.Adam(modelo.parameters(), lr=lr)
    en_cuda = dispositivo.type == "cuda"
    if tamano_lote is None:
        X_ent, y_ent = X_ent.to(dispositivo), y_ent.to(dispositivo)
        X_val, y_val = X_val.to(dispositivo), y_val.to(dispositivo)
    else:
        X_ent, y_ent, X_val, y_val = X_ent.cpu(), y_ent.cpu(), X_val.cpu(), y_val.cpu()
    semilla_lotes = semilla if semilla is not None else 0
    if semilla is None and tamano_lote is not None:
        semilla_lotes = int(torch.randint(0, 2**31 - 1, (1,)).item())  # se guarda en el checkpoint

    historial = Historial(dispositivo=str(dispositivo), epocas_totales=epocas)
    inicio = 1
    # Lo que se compara al reanudar (quien añada una opción a entrenar, que la añada aquí).
    configuracion = {"lr": lr, "tamano_lote": tamano_lote, "epocas": epocas, "modelo": type(modelo).__name__,
                     "criterio": type(criterio).__name__, "dispositivo": dispositivo.type, "semilla": semilla,
                     "acumular": acumular, "precision": precision}
    avisos: list[str] = []  # acaban en historial.avisos: entrenar no imprime

    cargador = None
    if tamano_lote is not None:
        generador = torch.Generator()
        cargador = torch.utils.data.DataLoader(
            torch.utils.data.TensorDataset(X_ent, y_ent), batch_size=tamano_lote, shuffle=True,
            generator=generador, pin_memory=en_cuda)

    def guardar(epoca: int) -> None:
        _parar_si_no_finita(no_finita.item(), None, lr, historial)  # nunca se guarda un modelo con pesos NaN
        try:
            carpeta.guardar({
                "formato": 2, "epoca": epoca, "epocas": epocas, "lr": float(lr), "configuracion": configuracion,
                "modelo": modelo.state_dict(), "optimizador": optimizador.state_dict(),
                "historial": historial.a_dict(), "aleatorio": estado_aleatorio(),
                "semilla_lotes": semilla_lotes, "tamano_lote": tamano_lote, "acumular": acumular,
                "precision": precision, "escalador": escalador.state_dict(),
            }, epoca)
        except CheckpointNoGuardado as error:
            error.historial = historial  # lo entrenado no se pierde
            raise

    # 3. El bucle (con el candado de la carpeta: un solo entrenamiento a la vez).
    candado = carpeta.candado() if carpeta is not None else contextlib.nullcontext()
    no_finita = torch.zeros((), device=dispositivo)  # la época en que la pérdida dejó de ser finita (0: nunca)
    with candado, _determinista(en_cuda and semilla is not None):
        if carpeta is not None:
            estado = preparar_reanudacion(carpeta, reanudar, configuracion, dispositivo, avisos.append,
                                          modelo.state_dict())
            if estado is not None:
                historial, semilla_lotes = _seguir_desde(estado, modelo, optimizador, escalador, lr, epocas,
                                                         dispositivo)
                inicio = int(estado["epoca"]) + 1
                restaurar_estado_aleatorio(estado["aleatorio"])
        historial.avisos += avisos
        segundos_previos = historial.segundos
        if al_avanzar is None and not silencioso:
            from .progreso import BarraEpocas

            al_avanzar = BarraEpocas(f"Entrenando en {dispositivo}")
        comienzo = time.perf_counter()
        for epoca in range(inicio, epocas + 1):
            modelo.train()
            if cargador is None:
                with autocast():
                    perdida = criterio(modelo(X_ent), y_ent)
                no_finita = _vigilar(no_finita, perdida, epoca)
                optimizador.zero_grad(set_to_none=True)
                escalador.scale(perdida).backward()
                escalador.step(optimizador)
                escalador.update()
            else:
                generador.manual_seed(semilla_lotes + epoca)  # mismo orden de lotes al reanudar
                for i, (xb, yb) in enumerate(cargador):
                    xb = xb.to(dispositivo, non_blocking=True)
                    yb = yb.to(dispositivo, non_blocking=True)
                    with autocast():
                        perdida = criterio(modelo(xb), yb)
                    no_finita = _vigilar(no_finita, perdida, epoca)
                    if i % acumular == 0:
                        optimizador.zero_grad(set_to_none=True)
                    if acumular > 1:  # cada micro-lote pesa lo que sus ejemplos en el grupo
                        perdida = perdida * (xb.shape[0] / _ejemplos_del_grupo(i, tamano_lote, acumular, len(X_ent)))
                    escalador.scale(perdida).backward()
                    if (i + 1) % acumular == 0 or i + 1 == len(cargador):
                        escalador.step(optimizador)
                        escalador.update()

            if epoca == 1 or epoca % CADA_REGISTRO == 0 or epoca == epocas:
                with _modo_evaluacion(modelo):
                    pe, ae = _medir(modelo, X_ent, y_ent, criterio, tamano_lote, dispositivo)
                    pv, av = _medir(modelo, X_val, y_val, criterio, tamano_lote, dispositivo)
                    valores = torch.stack([pe.float(), pv.float(), ae, av, no_finita]).tolist()  # la única espera
                _parar_si_no_finita(valores.pop(), valores[:2], lr, historial, epoca)
                historial.segundos = segundos_previos + time.perf_counter() - comienzo
                registro = Registro(epoca, epocas, *valores[:2], *valores[2:], historial.segundos)
                historial.agregar(registro)
                if al_registrar is not None:
                    al_registrar(registro)
            if carpeta is not None and (epoca == epocas or (cada_checkpoint and epoca % cada_checkpoint == 0)):
                historial.segundos = segundos_previos + time.perf_counter() - comienzo
                guardar(epoca)
            if al_avanzar is not None:
                al_avanzar(epoca, epocas)
        sincronizar(dispositivo)
    historial.segundos = segundos_previos + time.perf_counter() - comienzo
    if carpeta is not None:
        carpeta.copiar_pendientes_a_drive()
    return historial
