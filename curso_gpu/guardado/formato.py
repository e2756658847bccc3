"""El único formato de checkpoint del curso: el de ``entrenar``, ``entrenar_ddp`` y ``ajustar``. Lecciones 05, 08 y 09.

- Los nombres: ``checkpoint_epoca_000040.pt`` (``nombre_archivo``), sus temporales y ``anteriores/``.
- ``nuevo_checkpoint(...)``: el diccionario que escriben los tres entrenadores (``FORMATO``): quién
  lo escribió, la época, la configuración, la huella de los datos, el modelo entero (``modelo``) o
  solo el adaptador LoRA (``adaptador``), el optimizador, el escalador, los estados aleatorios y el
  historial. Se escribe en un solo sitio y se lee en uno
  (``cargar_checkpoint``), como el ``ckpt.pt`` de nanoGPT.
- Cada checkpoint lleva su suma SHA-256 (de sus tensores y datos) y se comprueba al cargar: uno
  con bytes cambiados se llama dañado (``CheckpointDanado``). Se cargan con ``weights_only=True``
  y se llevan al dispositivo actual: uno escrito en una GPU se carga en una CPU y al revés.
- ``guardar_pesos`` y ``cargar_pesos``: solo los pesos del modelo (``--guardar-pesos``), con la
  misma suma; ``cargar_pesos`` la comprueba antes de tocar el modelo.
- ``huella_de_datos``: tamaños, tipos y SHA-256 de los datos de entrenamiento (de todos si son
  pocos, de una muestra si no), para notar al reanudar que los datos cambiaron.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import random
import re
import warnings
from pathlib import Path

import numpy as np
import torch

from ..base import leer_numero
from ..dispositivo import como_dispositivo
from .destino import comprobar_destino, comprobar_origen
from .escritura_segura import AvisoCheckpoint, comprobar_destino_atomico, escribir_atomico

__all__ = ["ANTERIORES", "CLAVE_DE_PESOS", "CheckpointDanado", "ENTRENADORES", "FORMATO", "PRUEBA", "RESTOS",
           "cargar_checkpoint", "cargar_pesos", "epoca_de", "estado_aleatorio", "formas_distintas",
           "guardar_atomico", "guardar_pesos", "huella_de_datos", "nombre_archivo", "nuevo_checkpoint",
           "quien_lo_escribio", "restaurar_estado_aleatorio"]

# Un checkpoint es un archivo (.pt) o, repartido entre procesos (FSDP, lección 12), una carpeta (.dcp).
_PATRON = re.compile(r"^checkpoint_epoca_(\d{6})\.(?:pt|dcp)$")
_TEMPORAL = re.compile(r"^\.checkpoint_epoca_\d{6}\.(?:pt|dcp)(\..+)?\.tmp$")  # los que deja un proceso muerto
PRUEBA = ".prueba_de_escritura"
# Lo que se borra al tomar el candado: temporales de checkpoints y pruebas de escritura a medias.
RESTOS = re.compile(rf"{_TEMPORAL.pattern}|^{re.escape(PRUEBA)}\..+")
ANTERIORES = "anteriores"
_CLAVE_SUMA = "sha256"
FORMATO = 4  # uno solo para los tres entrenadores; los de antes (1 a 3) no se leen: no hay alumnos con ellos
_CLAVES_DE_PESOS = ("modelo", "adaptador")  # el state_dict entero, o solo el adaptador LoRA (ajustar)
CLAVE_DE_PESOS = {"entrenar": "modelo", "entrenar_ddp": "modelo", "ajustar": "adaptador"}  # qué guarda cada uno
ENTRENADORES = {"entrenar": "entrenar (lección 05)", "entrenar_ddp": "entrenar_ddp (lección 08)",
                "ajustar": "ajustar (lección 09)"}
_DATOS_ENTEROS = 16 * 2**20  # hasta 16 MiB de datos se resume todo; más, una muestra de _MUESTRA filas
_MUESTRA = 1024
# Las claves que solo tiene un archivo del curso: si aparecen pero falta algo, el archivo está dañado.
_CLAVES_PROPIAS = {"formato", "entrenador", "epoca", "epocas", "modelo", "adaptador", "optimizador", "configuracion",
                   "aleatorio", "historial", "pesos", _CLAVE_SUMA}


class CheckpointDanado(ValueError):
    """El checkpoint no se puede leer o no pasa la suma de verificación SHA-256."""


def nombre_archivo(epoca: int, fragmentado: bool = False) -> str:
    """``checkpoint_epoca_000040.pt`` para la época 40 (``.dcp``, una carpeta, si está repartido entre procesos)."""
    return f"checkpoint_epoca_{int(epoca):06d}.{'dcp' if fragmentado else 'pt'}"


def epoca_de(ruta: Path) -> int | None:
    """La época de un archivo ``checkpoint_epoca_000040.pt`` (40); None si no es un checkpoint."""
    coincide = _PATRON.match(Path(ruta).name)
    return int(coincide.group(1)) if coincide else None


def quien_lo_escribio(estado: dict) -> str:
    """«entrenar (lección 05)», «entrenar_ddp (lección 08)» o «ajustar (lección 09)»: quién escribió el checkpoint."""
    return ENTRENADORES.get(estado.get("entrenador"), f"otro programa ({estado.get('entrenador')!r})")


def _suma_de_contenido(estado) -> tuple[str, int]:
    """(SHA-256 en hexadecimal, bytes de tensores) del contenido de ``estado``.

    Recorre el diccionario (claves, números, textos y los bytes de cada tensor, con su tipo y
    forma), sin la clave ``sha256``: no depende del dispositivo, así que un checkpoint de GPU
    se comprueba igual en una CPU.
    """
    suma, total = hashlib.sha256(), 0

    def visitar(valor) -> None:
        nonlocal total
        if isinstance(valor, torch.Tensor):
            plano = valor.detach().cpu().contiguous().reshape(-1)
            suma.update(f"T{plano.dtype}{tuple(valor.shape)}:".encode())
            suma.update(plano.view(torch.uint8).numpy().tobytes())
            total += plano.numel() * plano.element_size()
        elif isinstance(valor, dict):
            suma.update(f"D{len(valor)}:".encode())
            for clave, interno in valor.items():
                visitar(clave)
                visitar(interno)
        elif isinstance(valor, (list, tuple)):
            suma.update(f"{type(valor).__name__}{len(valor)}:".encode())
            for interno in valor:
                visitar(interno)
        else:
            suma.update(f"{type(valor).__name__}:{valor!r};".encode())

    visitar({k: v for k, v in estado.items() if k != _CLAVE_SUMA})
    return suma.hexdigest(), total


class _Contador:
    """Un archivo que solo cuenta bytes: cuánto ocupará de verdad un ``torch.save``."""

    def __init__(self):
        self.bytes = 0

    def write(self, datos) -> int:
        n = memoryview(datos).nbytes
        self.bytes += n
        return n

    def flush(self) -> None:
        pass


def _tamano_en_disco(estado) -> int:
    """Los bytes que ocupa ``torch.save(estado)`` (sin escribir nada en disco)."""
    contador = _Contador()
    torch.save(estado, contador)
    return contador.bytes


def _lleva_suma(estado) -> bool:
    """Un checkpoint (``epoca`` y sus pesos) o unos pesos (``pesos``) del curso: llevan su SHA-256."""
    return isinstance(estado, dict) and ("epoca" in estado or "pesos" in estado)


def guardar_atomico(estado: dict, destino: str | os.PathLike) -> Path:
    """Guarda ``estado`` con ``torch.save`` en ``destino`` sin dejar nunca un archivo a medias.

    A un checkpoint (con ``epoca`` y ``modelo``) o a unos pesos (``pesos``) le añade la suma
    SHA-256 de su contenido (clave ``sha256``). Escribe en un temporal con nombre único de la
    misma carpeta, hace flush y fsync, y lo renombra con ``os.replace`` (atómico): si el proceso
    muere a mitad, ``destino`` sigue como estaba. Sin espacio o sin permiso,
    ``CheckpointNoGuardado`` en español, con lo que ocupa de verdad el archivo.
    """
    destino = comprobar_destino_atomico(destino)
    if _lleva_suma(estado):
        estado = {**estado, _CLAVE_SUMA: _suma_de_contenido(estado)[0]}
    try:
        return escribir_atomico(destino, lambda archivo: torch.save(estado, archivo), lambda: _tamano_en_disco(estado))
    except (pickle.PicklingError, AttributeError, TypeError) as error:
        if "pickle" not in str(error).lower():
            raise
        raise ValueError(f"No puedo guardar {destino.name}: contiene algo que torch.save no sabe guardar "
                         f"({error}). Guarda solo tensores, números, textos, listas y diccionarios: por ejemplo "
                         "modelo.state_dict() en vez del modelo con funciones dentro. No se escribió nada.") from None


def nuevo_checkpoint(*, entrenador: str, epoca: int, epocas: int, configuracion: dict, datos: dict | None,
                     pesos: dict, optimizador: dict, historial: dict, escalador: dict | None = None,
                     semilla_lotes: int = 0) -> dict:
    """El checkpoint que escriben ``entrenar``, ``entrenar_ddp`` y ``ajustar`` (el único formato del curso).

    ``pesos``: ``{"modelo": state_dict}`` (el modelo entero) o ``{"adaptador": ...}`` (solo LoRA,
    ``ajustar``); ``configuracion``: lo que se compara al reanudar (lr, tamano_lote global, modelo...);
    ``datos``: ``huella_de_datos(X, y)``; ``historial``: ``Historial.a_dict()``. Los estados
    aleatorios se toman aquí.
    """
    if entrenador not in ENTRENADORES:
        raise ValueError(f"entrenador debe ser uno de: {', '.join(ENTRENADORES)}; recibí {entrenador!r}.")
    if len(pesos) != 1 or next(iter(pesos)) not in _CLAVES_DE_PESOS:
        raise ValueError(f"pesos debe ser {{'modelo': state_dict}} o {{'adaptador': state_dict}}; recibí las claves "
                         f"{sorted(pesos)}.")
    return {"formato": FORMATO, "entrenador": entrenador, "epoca": int(epoca), "epocas": int(epocas),
            "configuracion": dict(configuracion), "datos": datos, **pesos, "optimizador": optimizador,
            "escalador": escalador or {}, "aleatorio": estado_aleatorio(), "semilla_lotes": int(semilla_lotes),
            "historial": dict(historial)}


def _mover(valor, dispositivo: torch.device):
    if isinstance(valor, torch.Tensor):
        return valor.to(dispositivo)
    if isinstance(valor, dict):
        return {k: _mover(v, dispositivo) for k, v in valor.items()}
    if isinstance(valor, list):
        return [_mover(v, dispositivo) for v in valor]
    return valor


def _leer(ruta: Path, que: str):
    """``torch.load`` con ``weights_only=True``; un archivo que no se puede leer es ``CheckpointDanado``."""
    try:
        return torch.load(ruta, map_location="cpu", weights_only=True)
    except Exception as error:  # zip roto, archivo truncado, contenido no permitido...
        raise CheckpointDanado(f"{que} {ruta.name} está dañado o incompleto ({type(error).__name__}).") from None


def _comprobar_suma(estado: dict, ruta: Path, que: str) -> None:
    if _CLAVE_SUMA not in estado:
        raise CheckpointDanado(f"{que} {ruta.name} está dañado: no trae su suma de verificación SHA-256 "
                               "(faltan datos o algún byte cambió), así que no puedo comprobarlo.")
    if _suma_de_contenido(estado)[0] != estado[_CLAVE_SUMA]:
        raise CheckpointDanado(
            f"{que} {ruta.name} no pasa la suma de verificación SHA-256: algún byte cambió "
            "desde que se guardó (disco, copia o sincronización). Está dañado.")


def cargar_checkpoint(ruta: str | os.PathLike, dispositivo: str | torch.device = "cpu") -> dict:
    """Carga un checkpoint con ``weights_only=True``, comprueba su SHA-256 y lleva sus tensores a ``dispositivo``.

    Vale para los de ``entrenar``, ``entrenar_ddp`` y ``ajustar`` (el formato ``FORMATO``). Si no existe, ``ValueError``; si está dañado
    (truncado, basura, un byte cambiado o una clave perdida), ``CheckpointDanado``.
    """
    dispositivo = como_dispositivo(dispositivo, meta=True)  # meta: mirar formas sin memoria
    ruta = comprobar_origen(ruta, "ruta del checkpoint")
    if not ruta.is_file():
        raise ValueError(
            f"No existe el checkpoint {ruta}. Mira cuáles hay con carpeta.archivos() "
            "o usa carpeta.cargar_ultimo(dispositivo).")
    estado = _leer(ruta, "El checkpoint")
    if not isinstance(estado, dict) or "epoca" not in estado or not any(c in estado for c in _CLAVES_DE_PESOS):
        propio = isinstance(estado, dict) and any(isinstance(k, str) and k in _CLAVES_PROPIAS for k in estado)
        if propio or epoca_de(ruta) is not None:  # lo escribió el curso: si le falta algo, está dañado
            raise CheckpointDanado(f"El checkpoint {ruta.name} está dañado: le faltan partes ('epoca' o "
                                   "'modelo'), seguramente por bytes cambiados en el disco o en una copia.")
        raise ValueError(f"{ruta} no tiene la forma de un checkpoint del curso (faltan 'epoca' o 'modelo'): "
                         "¿son unos pesos sueltos? Cárgalos con cargar_pesos(ruta, modelo).")
    _comprobar_suma(estado, ruta, "El checkpoint")
    formato = estado.get("formato")
    if formato != FORMATO:
        try:  # base.numeros, el único lector de números (un booleano o un texto no son un formato)
            numero = leer_numero(formato, "formato", entero=True)
        except (TypeError, ValueError):
            numero = None
        if numero is not None and numero > FORMATO:
            raise ValueError(f"El checkpoint {ruta.name} es del formato {formato}, más nuevo que el de esta "
                             f"versión del curso ({FORMATO}): actualiza curso_gpu para cargarlo.")
        raise ValueError(f"El checkpoint {ruta.name} es de una versión anterior del curso (formato {formato!r}; "
                         f"esta escribe el {FORMATO}) y no sé seguirlo. Empieza de cero con "
                         "carpeta_checkpoints(..., reanudar=False): se aparta a anteriores/, no se borra.")
    return _mover(estado, dispositivo) if dispositivo.type != "cpu" else estado


# ---------------------------------------------------------------------------
# Solo los pesos
# ---------------------------------------------------------------------------

def formas_distintas(guardado: dict, actual: dict) -> list[str]:
    """Qué parámetros cambian de nombre o de forma entre dos ``state_dict`` (vacía si encajan)."""
    distintas = [f"{k}: {tuple(guardado[k].shape)} → {tuple(v.shape)}"
                 for k, v in actual.items() if k in guardado and tuple(guardado[k].shape) != tuple(v.shape)]
    distintas += [f"{k}: falta en el checkpoint" for k in actual if k not in guardado]
    distintas += [f"{k}: sobra en el checkpoint" for k in guardado if k not in actual]
    return distintas


def guardar_pesos(modelo, ruta: str | os.PathLike) -> Path:
    """Guarda los pesos de ``modelo`` (un ``nn.Module`` o su ``state_dict``) con su SHA-256. Lecciones 05 y 08.

    Escritura atómica, como un checkpoint. Se cargan con ``cargar_pesos(ruta, modelo)``.
    """
    ruta = comprobar_destino(ruta, "ruta de los pesos", sobrescribir=True)
    estado = modelo.state_dict() if isinstance(modelo, torch.nn.Module) else modelo
    if not isinstance(estado, dict) or not all(isinstance(v, torch.Tensor) for v in estado.values()):
        raise ValueError(f"guardar_pesos necesita un modelo (nn.Module) o su state_dict; recibí {type(modelo).__name__}.")
    estado = {k: v.detach().cpu() for k, v in estado.items()}
    return guardar_atomico({"formato": FORMATO, "pesos": estado}, ruta)


def cargar_pesos(ruta: str | os.PathLike, modelo: torch.nn.Module | None = None) -> dict:
    """Los pesos de ``ruta`` (en la CPU), comprobados con su SHA-256 antes de usarlos. Lecciones 05 y 08.

    Vale para un archivo de ``guardar_pesos`` (``--guardar-pesos``) y para un checkpoint (toma su
    modelo). Con ``modelo``, además los carga en él (si las formas no encajan, un error que dice
    cuáles). Un archivo dañado da ``CheckpointDanado`` y el modelo queda como estaba; un
    ``state_dict`` guardado con ``torch.save`` a secas se carga con un aviso (no trae suma).
    """
    ruta = comprobar_origen(ruta, "ruta de los pesos")
    if modelo is not None and not isinstance(modelo, torch.nn.Module):
        raise ValueError(f"modelo debe ser una red de PyTorch (un nn.Module) o None; recibí {type(modelo).__name__}.")
    if not ruta.is_file():
        raise ValueError(f"No existe el archivo de pesos {ruta}.")
    estado = _leer(ruta, "El archivo de pesos")
    if isinstance(estado, dict) and "pesos" in estado:
        _comprobar_suma(estado, ruta, "El archivo de pesos")
        pesos = estado["pesos"]
    elif isinstance(estado, dict) and ("epoca" in estado or _CLAVE_SUMA in estado or "modelo" in estado):
        checkpoint = cargar_checkpoint(ruta)
        if "modelo" not in checkpoint:
            raise ValueError(f"{ruta.name} es un checkpoint de ajustar (lección 09): guarda solo el adaptador LoRA, "
                             "no los pesos de un modelo entero. Sigue ese entrenamiento con ajustar(..., "
                             "checkpoints=esa_carpeta).")
        pesos = checkpoint["modelo"]
    elif isinstance(estado, dict) and estado and all(isinstance(v, torch.Tensor) for v in estado.values()):
        warnings.warn(f"{ruta.name} es un state_dict guardado con torch.save, sin suma SHA-256: no puedo "
                      "comprobar que esté sano. Guárdalo con guardar_pesos para que lleve su suma.",
                      AvisoCheckpoint, stacklevel=2)
        pesos = estado
    else:
        raise CheckpointDanado(f"El archivo de pesos {ruta.name} está dañado o no son pesos de un modelo "
                               "(ni guardar_pesos ni un checkpoint del curso).")
    if modelo is not None:
        distintas = formas_distintas(pesos, modelo.state_dict())
        if distintas:
            raise ValueError(f"Los pesos de {ruta.name} no son de este modelo ({type(modelo).__name__}: cambian "
                             f"{len(distintas)} parámetros: {'; '.join(distintas[:3])}). Crea el mismo modelo "
                             "con el que se guardaron.")
        modelo.load_state_dict(pesos)
    return pesos


# ---------------------------------------------------------------------------
# La huella de los datos de entrenamiento
# ---------------------------------------------------------------------------

def huella_de_datos(X: torch.Tensor, y: torch.Tensor) -> dict:
    """Tamaños, tipos y SHA-256 de ``(X, y)``: de todo si ocupan poco, de una muestra de filas si no.

    Se guarda en cada checkpoint para notar al reanudar que los datos cambiaron (más ejemplos,
    otra semilla). Cuesta poco: como mucho ``_MUESTRA`` filas copiadas a la CPU.
    """
    n = int(X.shape[0])
    total = X.numel() * X.element_size() + y.numel() * y.element_size()
    if total <= _DATOS_ENTEROS or n <= _MUESTRA:
        filas = None
    else:
        filas = torch.linspace(0, n - 1, _MUESTRA, dtype=torch.float64).round().long()
    suma = hashlib.sha256()
    for tensor in (X, y):
        parte = tensor if filas is None else tensor.index_select(0, filas.to(tensor.device))
        plano = parte.detach().cpu().contiguous().reshape(-1)
        suma.update(f"{plano.dtype}{tuple(parte.shape)}:".encode())
        suma.update(plano.view(torch.uint8).numpy().tobytes())
    return {"ejemplos": n, "forma_x": list(X.shape[1:]), "tipo_x": str(X.dtype).replace("torch.", ""),
            "forma_y": list(y.shape[1:]), "tipo_y": str(y.dtype).replace("torch.", ""),
            "filas_resumidas": n if filas is None else _MUESTRA, "sha256": suma.hexdigest()}


# ---------------------------------------------------------------------------
# Estados de los generadores aleatorios, en tipos que admite weights_only=True
# ---------------------------------------------------------------------------

def estado_aleatorio() -> dict:
    """Los estados de torch, CUDA, NumPy y ``random`` como tensores, enteros y listas.

    El estado clásico de NumPy trae un ``ndarray`` que ``weights_only=True`` no carga:
    aquí se guarda como lista de enteros.
    """
    algoritmo, claves, posicion, tiene_gauss, gauss = np.random.get_state()
    version, interno, gauss_python = random.getstate()
    estado = {
        "torch": torch.get_rng_state(),
        "numpy": {
            "algoritmo": str(algoritmo),
            "claves": [int(c) for c in claves],
            "posicion": int(posicion),
            "tiene_gauss": int(tiene_gauss),
            "gauss": float(gauss),
        },
        "python": {"version": int(version), "interno": list(interno), "gauss": gauss_python},
        "cuda": [],
    }
    if torch.cuda.is_available() and torch.cuda.is_initialized():
        estado["cuda"] = list(torch.cuda.get_rng_state_all())
    return estado


def restaurar_estado_aleatorio(estado: dict) -> None:
    """Deja los generadores como los guardó ``estado_aleatorio()``."""
    torch.set_rng_state(estado["torch"].cpu())
    n = estado["numpy"]
    np.random.set_state(
        (n["algoritmo"], np.array(n["claves"], dtype=np.uint32), n["posicion"], n["tiene_gauss"], n["gauss"])
    )
    p = estado["python"]
    random.setstate((p["version"], tuple(p["interno"]), p["gauss"]))
    if estado.get("cuda") and torch.cuda.is_available():
        torch.cuda.set_rng_state_all([s.cpu() for s in estado["cuda"]])


