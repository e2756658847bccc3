"""Checkpoints que sobreviven a una desconexión de Colab. Lección 05.

- ``carpeta_checkpoints(nombre)``: en Colab, una carpeta en Google Drive (lo monta solo
  entonces); fuera de Colab, ``checkpoints/<nombre>`` en la carpeta actual.
- Cada checkpoint se escribe de forma atómica (archivo temporal, flush, fsync,
  ``os.replace``): o está entero o no está. Se conservan los últimos K.
- Se cargan con ``weights_only=True`` y ``map_location`` = el dispositivo actual: uno
  escrito en una GPU se carga en una CPU y al revés. Si el más nuevo está dañado, se avisa
  y se usa el anterior.
- En Drive (un montaje FUSE que sincroniza tarde) se escribe primero en local y después se
  copia a Drive con un nombre temporal y ``os.replace``.
"""

from __future__ import annotations

import os
import random
import re
import shutil
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

PATRON = re.compile(r"^checkpoint_epoca_(\d{6})\.pt$")
PRUEBA = ".prueba_de_escritura"


class CarpetaNoEscribible(ValueError):
    """La carpeta de checkpoints no se puede crear o no deja escribir."""


class AvisoCheckpoint(UserWarning):
    """Un checkpoint dañado o una copia a Drive que falló (se sigue con lo que hay)."""


def nombre_archivo(epoca: int) -> str:
    """``checkpoint_epoca_000040.pt`` para la época 40."""
    return f"checkpoint_epoca_{int(epoca):06d}.pt"


def _epoca_de(ruta: Path) -> int | None:
    coincide = PATRON.match(ruta.name)
    return int(coincide.group(1)) if coincide else None


def _fsync_carpeta(carpeta: Path) -> None:
    """Asegura en disco el cambio de nombre (en Windows no se puede abrir una carpeta)."""
    try:
        fd = os.open(carpeta, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def guardar_atomico(estado: dict, destino: str | os.PathLike) -> Path:
    """Guarda ``estado`` con ``torch.save`` en ``destino`` sin dejar nunca un archivo a medias.

    Escribe en ``.<nombre>.tmp`` de la misma carpeta, hace flush y fsync, y lo renombra con
    ``os.replace`` (atómico): si el proceso muere a mitad, ``destino`` sigue como estaba.
    """
    destino = Path(destino)
    return _escribir_atomico(destino, lambda archivo: torch.save(estado, archivo))


def copiar_atomico(origen: str | os.PathLike, destino: str | os.PathLike) -> Path:
    """Copia ``origen`` a ``destino`` con un nombre temporal y ``os.replace`` (para Drive)."""
    origen, destino = Path(origen), Path(destino)
    with open(origen, "rb") as entrada:
        return _escribir_atomico(destino, lambda salida: shutil.copyfileobj(entrada, salida))


def _escribir_atomico(destino: Path, escribir) -> Path:
    """Escribe en un temporal junto a ``destino``, fsync y ``os.replace``: nunca queda a medias."""
    temporal = destino.with_name(f".{destino.name}.tmp")
    try:
        with open(temporal, "wb") as archivo:
            escribir(archivo)
            archivo.flush()
            os.fsync(archivo.fileno())
        os.replace(temporal, destino)
    finally:
        if temporal.exists():
            temporal.unlink()
    _fsync_carpeta(destino.parent)
    return destino


def cargar_checkpoint(ruta: str | os.PathLike, dispositivo: str | torch.device = "cpu") -> dict:
    """Carga un checkpoint con ``weights_only=True`` y sus tensores en ``dispositivo``."""
    estado = torch.load(Path(ruta), map_location=torch.device(dispositivo), weights_only=True)
    if not isinstance(estado, dict) or "epoca" not in estado or "modelo" not in estado:
        raise ValueError(f"{ruta} no tiene la forma de un checkpoint del curso (faltan 'epoca' o 'modelo').")
    return estado


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
        """Crea las carpetas y escribe un archivo de prueba; si no se puede, ``CarpetaNoEscribible``."""
        for carpeta in self._carpetas():
            prueba = carpeta / PRUEBA
            try:
                carpeta.mkdir(parents=True, exist_ok=True)
                with open(prueba, "wb") as archivo:
                    archivo.write(b"ok")
                    archivo.flush()
                    os.fsync(archivo.fileno())
                prueba.unlink()
            except OSError as error:
                raise CarpetaNoEscribible(
                    f"No puedo escribir checkpoints en {carpeta} ({type(error).__name__}: {error}). "
                    "Elige otra carpeta, por ejemplo carpeta_checkpoints('mi_modelo', base='/tmp/checkpoints'), "
                    "o revisa los permisos (en Colab, que Google Drive siga montado)."
                ) from None

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

    def borrar_todo(self) -> int:
        """Borra los checkpoints de esta carpeta (solo los del curso). Devuelve cuántos."""
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

        Si el más nuevo está dañado o incompleto, avisa y prueba con el anterior.
        """
        for ruta in self.archivos():
            try:
                estado = cargar_checkpoint(ruta, dispositivo)
            except Exception as error:  # zip roto, archivo truncado, contenido no permitido...
                warnings.warn(
                    f"El checkpoint {ruta.name} está dañado o incompleto ({type(error).__name__}); "
                    "uso el anterior.", AvisoCheckpoint, stacklevel=2)
                continue
            estado["ruta"] = str(ruta)
            return estado
        return None


def carpeta_checkpoints(
    nombre: str,
    *,
    drive: bool | None = None,
    base: str | os.PathLike | None = None,
    conservar: int = 3,
    silenciosa: bool = False,
) -> CarpetaCheckpoints:
    """La carpeta donde guardar los checkpoints del entrenamiento ``nombre``. Lección 05.

    - ``drive=None`` (por defecto): en Google Colab, Google Drive (lo monta ahora y te pide
      permiso); fuera de Colab, la carpeta local ``checkpoints/<nombre>``.
    - ``drive=True``: Google Drive (solo dentro de Colab). ``drive=False``: siempre local.
    - ``base``: la carpeta local donde crear ``<nombre>`` (por defecto ``./checkpoints``).

    Dice en español dónde quedan y comprueba ya que se puede escribir allí.
    """
    if not isinstance(nombre, str) or not nombre.strip() or any(s in nombre for s in ("/", "\\")) or nombre in (".", ".."):
        raise ValueError(
            f"El nombre de la carpeta de checkpoints no vale: {nombre!r}. "
            "Usa un nombre sencillo sin barras, por ejemplo 'cnn_lineas'.")
    from .colab import en_colab

    local = Path(base) if base is not None else Path.cwd() / "checkpoints"
    local = local / nombre
    quiere_drive = en_colab() if drive is None else bool(drive)
    carpeta = CarpetaCheckpoints(ruta=local, local=local, en_drive=False, conservar=conservar)
    if quiere_drive:
        if not en_colab():
            raise ValueError(
                "drive=True solo funciona dentro de Google Colab: aquí no hay Google Drive que montar. "
                "Usa drive=False (carpeta local) o abre el notebook en Colab.")
        from . import colab

        montado = colab.montar_drive()
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
