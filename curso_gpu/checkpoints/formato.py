"""Checkpoints que sobreviven a una desconexión de Colab. Lección 05.

- ``carpeta_checkpoints(nombre)``: ``checkpoints/<nombre>`` en la carpeta actual; con
  ``drive=True`` (solo en Colab, y solo si tú lo eliges), una carpeta en Google Drive.
- Cada checkpoint se escribe de forma atómica (un temporal con nombre único creado en
  exclusiva, flush, fsync, ``os.replace``): o está entero o no está, aunque escriban dos
  procesos a la vez; nunca se sigue un enlace simbólico (``escritura_segura``). Se conservan
  los últimos K.
- Cada checkpoint lleva su suma SHA-256 (de sus tensores y datos) y se comprueba al cargar.
- Se cargan con ``weights_only=True`` y se llevan al dispositivo actual: uno escrito en una
  GPU se carga en una CPU y al revés. Si el más nuevo está dañado, se avisa y se usa el anterior.
- Un candado (``.entrenando.lock``, con el pid) impide que dos entrenamientos usen la misma
  carpeta. Nada se borra sin pedirlo: empezar de cero (``reanudacion``) aparta los viejos a
  ``anteriores/<fecha>/``.
- En Drive (un montaje FUSE que sincroniza tarde) se escribe primero en local y después se
  copia a Drive con un nombre temporal y ``os.replace``.
"""

from __future__ import annotations

import hashlib
import os
import random
import re
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from ..dispositivo import como_dispositivo
# Lo de escribir sin perder nada vive en escritura_segura; se reexporta porque las lecciones,
# las pruebas y los benchmarks lo importan desde aquí.
from .escritura_segura import (
    PRUEBA,
    AvisoCheckpoint,
    Candado,
    copiar_atomico,
    crear_exclusivo,
    escribir_atomico,
    fsync_carpeta,
)

PATRON = re.compile(r"^checkpoint_epoca_(\d{6})\.pt$")
ANTERIORES = "anteriores"
CLAVE_SUMA = "sha256"


class CarpetaNoEscribible(ValueError):
    """La carpeta de checkpoints no se puede crear o no deja escribir."""


class CheckpointDanado(ValueError):
    """El checkpoint no se puede leer o no pasa la suma de verificación SHA-256."""


def nombre_archivo(epoca: int) -> str:
    """``checkpoint_epoca_000040.pt`` para la época 40."""
    return f"checkpoint_epoca_{int(epoca):06d}.pt"


def _epoca_de(ruta: Path) -> int | None:
    coincide = PATRON.match(ruta.name)
    return int(coincide.group(1)) if coincide else None


def _huella(estado) -> tuple[str, int]:
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

    visitar({k: v for k, v in estado.items() if k != CLAVE_SUMA})
    return suma.hexdigest(), total


def guardar_atomico(estado: dict, destino: str | os.PathLike) -> Path:
    """Guarda ``estado`` con ``torch.save`` en ``destino`` sin dejar nunca un archivo a medias.

    A un checkpoint (con ``epoca`` y ``modelo``) le añade la suma SHA-256 de su contenido
    (clave ``sha256``). Escribe en un temporal con
    nombre único de la misma carpeta, hace flush y fsync, y lo renombra con ``os.replace``
    (atómico): si el proceso muere a mitad, ``destino`` sigue como estaba. Sin espacio o sin
    permiso, ``CheckpointNoGuardado`` en español.
    """
    destino = Path(destino)
    necesario = None
    if isinstance(estado, dict) and "epoca" in estado and "modelo" in estado:  # un checkpoint (no un state_dict suelto)
        suma, necesario = _huella(estado)
        estado = {**estado, CLAVE_SUMA: suma}
    return escribir_atomico(destino, lambda archivo: torch.save(estado, archivo), necesario)


def _mover(valor, dispositivo: torch.device):
    if isinstance(valor, torch.Tensor):
        return valor.to(dispositivo)
    if isinstance(valor, dict):
        return {k: _mover(v, dispositivo) for k, v in valor.items()}
    if isinstance(valor, list):
        return [_mover(v, dispositivo) for v in valor]
    return valor


def cargar_checkpoint(ruta: str | os.PathLike, dispositivo: str | torch.device = "cpu") -> dict:
    """Carga un checkpoint con ``weights_only=True``, comprueba su SHA-256 y lleva sus tensores a ``dispositivo``.

    Si no existe, ``ValueError``; si está dañado (truncado, basura o un byte cambiado),
    ``CheckpointDanado``.
    """
    dispositivo = como_dispositivo(dispositivo)
    if not isinstance(ruta, (str, os.PathLike)) or "\0" in os.fspath(ruta):
        raise ValueError(f"La ruta del checkpoint debe ser un texto o un Path sin caracteres nulos; recibí {ruta!r}.")
    ruta = Path(ruta)
    if not ruta.is_file():
        raise ValueError(
            f"No existe el checkpoint {ruta}. Mira cuáles hay con carpeta.archivos() "
            "o usa carpeta.cargar_ultimo(dispositivo).")
    try:
        estado = torch.load(ruta, map_location="cpu", weights_only=True)
    except Exception as error:  # zip roto, archivo truncado, contenido no permitido...
        raise CheckpointDanado(
            f"El checkpoint {ruta.name} está dañado o incompleto ({type(error).__name__}).") from None
    if not isinstance(estado, dict) or "epoca" not in estado or "modelo" not in estado:
        raise ValueError(f"{ruta} no tiene la forma de un checkpoint del curso (faltan 'epoca' o 'modelo').")
    if CLAVE_SUMA in estado and _huella(estado)[0] != estado[CLAVE_SUMA]:
        raise CheckpointDanado(
            f"El checkpoint {ruta.name} no pasa la suma de verificación SHA-256: algún byte cambió "
            "desde que se guardó (disco, copia o sincronización).")
    return _mover(estado, dispositivo) if dispositivo.type != "cpu" else estado


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


# ---------------------------------------------------------------------------
# La carpeta
# ---------------------------------------------------------------------------

@dataclass
class CarpetaCheckpoints:
    """Dónde se guardan los checkpoints de un entrenamiento. Lección 05.

    ``ruta`` es el destino final (en Drive, si ``en_drive``); ``local`` es donde se escribe
    primero (la misma carpeta si no hay Drive). Se conservan los últimos ``conservar``.
    """

    ruta: Path
    local: Path
    en_drive: bool = False
    conservar: int = 3

    def __post_init__(self):
        self.ruta, self.local = Path(self.ruta), Path(self.local)
        if isinstance(self.conservar, bool) or not isinstance(self.conservar, int) or self.conservar < 1:
            raise ValueError(f"conservar debe ser un entero mayor o igual que 1; recibí {self.conservar!r}.")

    def __str__(self) -> str:
        if self.en_drive:
            return (f"Los checkpoints se guardan en Google Drive: {self.ruta} "
                    f"(primero en {self.local}; se conservan los últimos {self.conservar}).")
        return f"Los checkpoints se guardan en la carpeta local {self.ruta} (se conservan los últimos {self.conservar})."

    def _carpetas(self) -> list[Path]:
        return [self.ruta] if self.local == self.ruta else [self.local, self.ruta]

    def comprobar_escritura(self) -> None:
        """Crea las carpetas y escribe un archivo de prueba; si no se puede, ``CarpetaNoEscribible``.

        El archivo de prueba tiene un nombre único y se crea en exclusiva: un enlace simbólico
        plantado en la carpeta nunca se sigue.
        """
        for carpeta in self._carpetas():
            prueba = None
            try:
                carpeta.mkdir(parents=True, exist_ok=True)
                fd, prueba = crear_exclusivo(carpeta, PRUEBA + ".")
                with os.fdopen(fd, "wb") as archivo:
                    archivo.write(b"ok")
                    archivo.flush()
                    os.fsync(archivo.fileno())
            except OSError as error:
                raise CarpetaNoEscribible(
                    f"No puedo escribir checkpoints en {carpeta} ({type(error).__name__}: {error}). "
                    "Elige otra carpeta tuya, por ejemplo carpeta_checkpoints('mi_modelo', base=Path.home() / 'checkpoints'), "
                    "o revisa los permisos (en Colab, que Google Drive siga montado)."
                ) from None
            finally:
                if prueba is not None and os.path.lexists(prueba):
                    prueba.unlink()

    def archivos(self) -> list[Path]:
        """Los checkpoints que hay, del más nuevo al más viejo (de una época, primero el local)."""
        encontrados = []
        for orden, carpeta in enumerate(self._carpetas()):
            if carpeta.is_dir():
                for ruta in carpeta.iterdir():
                    epoca = _epoca_de(ruta)
                    if epoca is not None:
                        encontrados.append((-epoca, orden, ruta))
        return [ruta for _, _, ruta in sorted(encontrados)]

    def guardar(self, estado: dict, epoca: int) -> Path:
        """Guarda el checkpoint de ``epoca`` (local y, si toca, Drive) y borra los viejos."""
        self.local.mkdir(parents=True, exist_ok=True)
        local = guardar_atomico(estado, self.local / nombre_archivo(epoca))
        final = local
        if self.en_drive:
            try:
                self.ruta.mkdir(parents=True, exist_ok=True)
                final = copiar_atomico(local, self.ruta / local.name)
            except OSError as error:
                warnings.warn(
                    f"No pude copiar {local.name} a Google Drive ({error}); queda en {local}. "
                    "Se volverá a intentar con el siguiente checkpoint.", AvisoCheckpoint, stacklevel=2)
        self._borrar_viejos()
        return final

    def copiar_pendientes_a_drive(self) -> None:
        """Copia a Drive los checkpoints locales que falten (al terminar el entrenamiento)."""
        if not self.en_drive or not self.local.is_dir():
            return
        for ruta in sorted(self.local.iterdir()):
            if _epoca_de(ruta) is not None and not (self.ruta / ruta.name).exists():
                try:
                    copiar_atomico(ruta, self.ruta / ruta.name)
                except OSError as error:
                    warnings.warn(f"No pude copiar {ruta.name} a Google Drive ({error}).", AvisoCheckpoint, stacklevel=2)
        self._borrar_viejos()

    def _borrar_viejos(self) -> None:
        for carpeta in self._carpetas():
            if not carpeta.is_dir():
                continue
            propios = sorted((r for r in carpeta.iterdir() if _epoca_de(r) is not None), key=_epoca_de, reverse=True)
            for viejo in propios[self.conservar:]:
                try:
                    viejo.unlink()
                except OSError:
                    pass

    def apartar(self) -> tuple[Path | None, int]:
        """Mueve los checkpoints a ``anteriores/<fecha>/`` dentro de la carpeta (no borra nada).

        Es lo que hace ``entrenar(..., reanudar=False)`` antes de empezar de cero. Devuelve la
        carpeta nueva (la de ``ruta``) y cuántos archivos movió.
        """
        fecha = time.strftime("%Y-%m-%d_%H-%M-%S")
        destino_principal, movidos = None, 0
        for carpeta in self._carpetas():
            propios = [r for r in carpeta.iterdir() if _epoca_de(r) is not None] if carpeta.is_dir() else []
            if not propios:
                continue
            anteriores = carpeta / ANTERIORES
            if not os.path.lexists(anteriores):
                anteriores.mkdir()
            if anteriores.is_symlink() or not anteriores.is_dir():  # un enlace plantado sacaría los archivos fuera
                raise CarpetaNoEscribible(
                    f"{anteriores} no es una carpeta normal (¿un enlace simbólico?): no muevo nada ahí. "
                    "Bórralo o renómbralo y vuelve a ejecutar.")
            destino = anteriores / fecha
            sufijo = 1
            while os.path.lexists(destino):
                sufijo += 1
                destino = anteriores / f"{fecha}_{sufijo}"
            destino.mkdir()
            for ruta in propios:
                os.rename(ruta, destino / ruta.name)  # misma carpeta: mueve el archivo (o el enlace), no copia
                movidos += 1
            fsync_carpeta(carpeta)
            if carpeta == self.ruta or destino_principal is None:
                destino_principal = destino
        return destino_principal, movidos

    def candado(self) -> "Candado":
        """El candado de la carpeta (``with carpeta.candado(): ...``): un solo entrenamiento a la vez."""
        return Candado(self.local)

    def borrar_todo(self) -> int:
        """Borra los checkpoints de esta carpeta (solo los del curso). Devuelve cuántos.

        Nunca se llama sola: ``entrenar`` aparta los viejos a ``anteriores/`` en vez de borrarlos.
        """
        borrados = 0
        for carpeta in self._carpetas():
            if carpeta.is_dir():
                for ruta in carpeta.iterdir():
                    if _epoca_de(ruta) is not None:
                        ruta.unlink()
                        borrados += 1
        return borrados

    def cargar_ultimo(self, dispositivo: str | torch.device = "cpu") -> dict | None:
        """El checkpoint sano más nuevo, con sus tensores en ``dispositivo``; None si no hay.

        Si el más nuevo está dañado, incompleto o no pasa su suma SHA-256, avisa y prueba con
        el anterior.
        """
        dispositivo = como_dispositivo(dispositivo)  # un dispositivo mal escrito falla aquí, no en cada archivo
        for ruta in self.archivos():
            try:
                estado = cargar_checkpoint(ruta, dispositivo)
            except Exception as error:  # zip roto, archivo truncado, suma que no cuadra, contenido no permitido...
                motivo = str(error) if isinstance(error, CheckpointDanado) else (
                    f"El checkpoint {ruta.name} está dañado o incompleto ({type(error).__name__}).")
                warnings.warn(f"{motivo} Uso el anterior (el archivo se queda donde está).",
                              AvisoCheckpoint, stacklevel=2)
                continue
            estado["ruta"] = str(ruta)
            return estado
        return None


def carpeta_checkpoints(
    nombre: str,
    *,
    drive: bool = False,
    base: str | os.PathLike | None = None,
    conservar: int = 3,
    silenciosa: bool = False,
) -> CarpetaCheckpoints:
    """La carpeta donde guardar los checkpoints del entrenamiento ``nombre``. Lección 05.

    - ``drive=False`` (por defecto): la carpeta local ``checkpoints/<nombre>``. Montar Drive
      pide permisos amplios sobre tu Drive, así que nunca se hace sin que lo pidas.
    - ``drive=True``: Google Drive (solo dentro de Colab; lo monta ahora y te pide permiso).
    - ``base``: la carpeta local donde crear ``<nombre>`` (por defecto ``./checkpoints``).

    Dice en español dónde quedan y comprueba ya que se puede escribir allí.
    """
    if not isinstance(nombre, str) or not nombre.strip() or any(s in nombre for s in ("/", "\\", "\0")) or nombre in (".", ".."):
        raise ValueError(
            f"El nombre de la carpeta de checkpoints no vale: {nombre!r}. "
            "Usa un nombre sencillo sin barras, por ejemplo 'cnn_lineas'.")
    if base is not None and (not isinstance(base, (str, os.PathLike)) or "\0" in os.fspath(base)):
        raise ValueError(f"base debe ser una carpeta (un texto o un Path sin caracteres nulos); recibí {base!r}. "
                         "Por ejemplo, base=Path.home() / 'checkpoints'.")
    from ..dispositivo import en_colab

    local = Path(base) if base is not None else Path.cwd() / "checkpoints"
    local = local / nombre
    quiere_drive = bool(drive)
    carpeta = CarpetaCheckpoints(ruta=local, local=local, en_drive=False, conservar=conservar)
    if quiere_drive:
        if not en_colab():
            raise ValueError(
                "drive=True solo funciona dentro de Google Colab: aquí no hay Google Drive que montar. "
                "Usa drive=False (carpeta local) o abre el notebook en Colab.")
        from .. import colab

        montado = colab.montar_drive(local=local)
        if montado is None:
            warnings.warn(
                "No se pudo montar Google Drive: los checkpoints se guardarán solo en local "
                f"({local}) y se perderán si Colab se desconecta.", AvisoCheckpoint, stacklevel=2)
        else:
            carpeta = CarpetaCheckpoints(
                ruta=Path(montado) / "checkpoints" / nombre, local=local, en_drive=True, conservar=conservar)
    carpeta.comprobar_escritura()
    if not silenciosa:
        print(carpeta)
    return carpeta


def como_carpeta(checkpoints) -> CarpetaCheckpoints:
    """Acepta una ``CarpetaCheckpoints`` o una ruta (carpeta local)."""
    if isinstance(checkpoints, CarpetaCheckpoints):
        return checkpoints
    if isinstance(checkpoints, (str, os.PathLike)):
        return CarpetaCheckpoints(ruta=Path(checkpoints), local=Path(checkpoints))
    raise ValueError(
        f"checkpoints debe ser una carpeta (carpeta_checkpoints('nombre') o una ruta); recibí {checkpoints!r}.")


