"""La carpeta de checkpoints: dónde, cada cuánto, si se reanuda, cuántos se conservan. Lección 05.

- ``carpeta_checkpoints(nombre, cada=10, reanudar=None)``: ``checkpoints/<nombre>`` en la carpeta
  actual; con ``drive=True`` (solo en Colab, y solo si tú lo eliges), una carpeta en Google Drive.
  La carpeta lleva sus opciones: ``entrenar``, ``entrenar_ddp`` y ``ajustar`` las leen de ella.
- Cada checkpoint se escribe de forma atómica (``escritura_segura``) y se conservan los últimos
  ``conservar``. Si el más nuevo está dañado, se avisa y se usa el anterior.
- Un candado (``.entrenando.lock``, con el pid) impide que dos entrenamientos usen la misma
  carpeta; si alguien borra la carpeta o el candado a mitad, el siguiente guardado para con
  ``CarpetaDesaparecida`` en vez de recrearla. Nada se borra sin pedirlo: empezar de cero
  (``reanudacion``) aparta los viejos a ``anteriores/<fecha>/``.
- En Drive (un montaje FUSE que sincroniza tarde) se escribe primero en local y después se
  copia a Drive con un nombre temporal y ``os.replace``.
"""

from __future__ import annotations

import dataclasses
import errno
import os
import shutil
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import torch

from ..dispositivo import como_dispositivo
from ..base import formatear_bytes, leer_numero
from .destino import comprobar_destino
from .escritura_segura import (
    AvisoCheckpoint, Candado, CarpetaDesaparecida, CheckpointNoGuardado, copiar_atomico, crear_exclusivo, fsync_carpeta,
)
from .fragmentado import leer_indice
from .formato import (
    ANTERIORES, PRUEBA, RESTOS, CheckpointDanado, cargar_checkpoint, epoca_de, guardar_atomico, nombre_archivo,
)

__all__ = ["CarpetaCheckpoints", "CarpetaNoEscribible", "borrar_checkpoint", "carpeta_checkpoints", "como_carpeta"]

_SIN_ESPACIO = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)


def borrar_checkpoint(ruta: Path) -> None:
    """Borra un checkpoint: el archivo (o el enlace), o la carpeta de uno repartido (nunca la que apunta un enlace)."""
    if ruta.is_dir() and not ruta.is_symlink():
        shutil.rmtree(ruta)
    else:
        ruta.unlink()


class CarpetaNoEscribible(ValueError):
    """La carpeta de checkpoints no se puede crear o no deja escribir."""


@dataclass
class CarpetaCheckpoints:
    """Dónde y cómo se guardan los checkpoints de un entrenamiento. Lección 05.

    ``ruta`` es el destino final (en Drive, si ``en_drive``); ``local`` es donde se escribe
    primero (la misma carpeta si no hay Drive). Se conservan los últimos ``conservar``.
    ``cada``: guardar cada N épocas (0: solo al final; siempre se guarda la última; None: lo decide
    el entrenador, ``entrenar`` solo al final y ``entrenar_ddp``/``ajustar`` cada época).
    ``reanudar``: None (sigue si hay checkpoints), True (igual, y dice si no hay) o False
    (empieza de cero y aparta los viejos a ``anteriores/``).
    """

    ruta: Path
    local: Path
    en_drive: bool = False
    conservar: int = 3
    cada: int | None = None
    reanudar: bool | None = None
    _candado: Candado | None = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self):
        self.ruta, self.local = Path(self.ruta), Path(self.local)
        self.conservar = leer_numero(self.conservar, "conservar", entero=True, minimo=1, ejemplo="conservar=3")
        if self.cada is not None:
            self.cada = leer_numero(self.cada, "cada", entero=True, minimo=0,
                                    ejemplo="cada=10 (un checkpoint cada 10 épocas)")
        if self.reanudar is not None and not isinstance(self.reanudar, bool):
            raise ValueError(f"reanudar debe ser None (sigue si hay checkpoints), True o False (empieza de cero); "
                             f"recibí {self.reanudar!r}.")

    def __str__(self) -> str:
        cada = (f"cada {self.cada} épocas y al final" if self.cada else "al final" if self.cada == 0
                else "cuando diga el entrenador: entrenar, al final; entrenar_ddp y ajustar, cada época")
        if self.en_drive:
            return (f"Los checkpoints se guardan en Google Drive: {self.ruta} "
                    f"(primero en {self.local}; {cada}; se conservan los últimos {self.conservar}).")
        return f"Los checkpoints se guardan en la carpeta local {self.ruta} ({cada}; se conservan los últimos {self.conservar})."

    def con(self, **opciones) -> "CarpetaCheckpoints":
        """La misma carpeta con otras opciones: ``carpeta.con(reanudar=False)``, ``carpeta.con(cada=5)``."""
        otras = set(opciones) - {"cada", "reanudar", "conservar"}
        if otras:
            raise ValueError(f"carpeta.con() solo cambia cada, reanudar o conservar; recibí {sorted(otras)}.")
        return dataclasses.replace(self, **opciones)

    def toca_guardar(self, epoca: int, epocas: int) -> bool:
        """¿Se guarda un checkpoint al terminar ``epoca``? Cada ``cada`` épocas y siempre la última."""
        return epoca == epocas or bool(self.cada and epoca % self.cada == 0)

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
                    epoca = epoca_de(ruta)
                    if epoca is not None:
                        encontrados.append((-epoca, orden, ruta))
        return [ruta for _, _, ruta in sorted(encontrados)]

    def guardar(self, estado: dict, epoca: int) -> Path:
        """Guarda el checkpoint de ``epoca`` (local y, si toca, Drive) y borra los viejos.

        Con el candado tomado, si la carpeta o el candado desaparecieron, ``CarpetaDesaparecida``
        (no se vuelve a crear: otro entrenamiento podría estar usándola ya). Si queda poco
        espacio, borra antes el más viejo de los que sobrarían (nunca deja menos de uno sano).
        """
        if self._candado is not None:
            self._comprobar_candado()
        else:
            self.local.mkdir(parents=True, exist_ok=True)
        destino = self.local / nombre_archivo(epoca)
        self._hacer_sitio(estado)
        try:
            local = guardar_atomico(estado, destino)
        except CheckpointNoGuardado as error:
            if error.errno in _SIN_ESPACIO:
                raise self._sin_espacio(error, destino) from error
            raise
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

    def comprobar_candado(self) -> None:
        """Con el candado tomado: ``CarpetaDesaparecida`` si la carpeta o el candado ya no están (antes de escribir)."""
        if self._candado is not None:
            self._comprobar_candado()

    def borrar_viejos(self) -> None:
        """Borra los checkpoints que sobran (se conservan los últimos ``conservar``)."""
        self._borrar_viejos()

    def _comprobar_candado(self) -> None:
        if self._candado.sigue_tomado():
            return
        que = "La carpeta de checkpoints" if not self.local.is_dir() else "El candado (.entrenando.lock) de la carpeta"
        raise CarpetaDesaparecida(
            f"{que} {self.local} desapareció mientras entrenabas (¿la borraste?). Paro sin volver a crearla: "
            "otro entrenamiento podría estar usándola ya y los dos se pisarían los checkpoints. Lo entrenado "
            "sigue en el modelo en memoria y en error.historial. Vuelve a ejecutar cuando nadie más use la "
            "carpeta: se reanuda desde el último checkpoint que quede, o empieza de cero si no queda ninguno.",
            self.local, None, errno.ENOENT)

    def _propios(self, carpeta: Path) -> list[Path]:
        """Los checkpoints de ``carpeta``, del más nuevo al más viejo."""
        if not carpeta.is_dir():
            return []
        return sorted((r for r in carpeta.iterdir() if epoca_de(r) is not None), key=epoca_de, reverse=True)

    def _hacer_sitio(self, estado: dict) -> None:
        """Con poco espacio, borra antes el más viejo que de todos modos se borraría al guardar este.

        Solo si ya hay ``conservar`` (o más) y quedan al menos dos: nunca queda menos de uno sano.
        """
        propios = self._propios(self.local)
        if len(propios) < max(2, self.conservar):
            return
        try:
            libre = shutil.disk_usage(self.local).free
            necesario = propios[0].stat().st_size  # el más nuevo: lo que ocupará este, más o menos
        except OSError:
            return
        if libre >= 1.1 * necesario:
            return
        viejo = propios[-1]
        warnings.warn(f"Queda poco espacio en {self.local} ({formatear_bytes(libre)} libres y cada checkpoint ocupa unos "
                      f"{formatear_bytes(necesario)}): borro antes {viejo.name}, el más viejo, que se iba a borrar "
                      f"igualmente al guardar este. Quedan {len(propios) - 1} checkpoint(s) sanos.",
                      AvisoCheckpoint, stacklevel=3)
        borrar_checkpoint(viejo)
        fsync_carpeta(self.local)

    def _sin_espacio(self, error: CheckpointNoGuardado, destino: Path) -> CheckpointNoGuardado:
        """El mensaje de disco lleno con lo que ocupa de verdad el checkpoint y cuántos deben caber."""
        tamano = error.necesario
        try:
            libre = f"; quedan {formatear_bytes(shutil.disk_usage(self.local).free)} libres"
        except OSError:
            libre = ""
        cuanto = f"hacen falta unos {formatear_bytes(tamano)} para este checkpoint{libre}" if tamano else f"no cabe{libre}"
        caben = self.conservar + 1
        total = f" (unos {formatear_bytes(caben * tamano)} en total)" if tamano else ""
        return CheckpointNoGuardado(
            f"No queda espacio en {self.local} para guardar {destino.name}: {cuanto}. El más viejo se borra solo "
            f"después de guardar el nuevo, así que tienen que caber conservar + 1 = {caben} checkpoints{total}. "
            "Los checkpoints anteriores siguen intactos. Libera espacio, usa un conservar menor o elige otra "
            "carpeta con carpeta_checkpoints(nombre, base=...) y vuelve a ejecutar: se reanuda desde el último. "
            f"({os.strerror(error.errno)})", self.local, tamano, error.errno)

    def copiar_pendientes_a_drive(self) -> None:
        """Copia a Drive los checkpoints locales que falten (al terminar el entrenamiento)."""
        if not self.en_drive or not self.local.is_dir():
            return
        for ruta in sorted(self.local.iterdir()):
            if epoca_de(ruta) is not None and ruta.is_file() and not (self.ruta / ruta.name).exists():
                try:
                    copiar_atomico(ruta, self.ruta / ruta.name)
                except OSError as error:
                    warnings.warn(f"No pude copiar {ruta.name} a Google Drive ({error}).", AvisoCheckpoint, stacklevel=2)
        self._borrar_viejos()

    def _borrar_viejos(self) -> None:
        for carpeta in self._carpetas():
            for viejo in self._propios(carpeta)[self.conservar:]:
                try:
                    borrar_checkpoint(viejo)
                except OSError:
                    pass

    def apartar(self) -> tuple[Path | None, int]:
        """Mueve los checkpoints a ``anteriores/<fecha>/`` dentro de la carpeta (no borra nada).

        Es lo que hace ``entrenar`` con ``carpeta_checkpoints(..., reanudar=False)`` antes de empezar de cero. Devuelve la
        carpeta nueva (la de ``ruta``) y cuántos archivos movió.
        """
        fecha = time.strftime("%Y-%m-%d_%H-%M-%S")
        destino_principal, movidos = None, 0
        for carpeta in self._carpetas():
            propios = [r for r in carpeta.iterdir() if epoca_de(r) is not None] if carpeta.is_dir() else []
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

    def candado(self) -> "_CandadoDeCarpeta":
        """El candado de la carpeta (``with carpeta.candado(): ...``): un solo entrenamiento a la vez.

        Mientras está tomado, ``guardar`` comprueba antes de cada checkpoint que sigue en su sitio.
        """
        return _CandadoDeCarpeta(self)

    def borrar_todo(self) -> int:
        """Borra los checkpoints de esta carpeta (solo los del curso). Devuelve cuántos.

        Nunca se llama sola: ``entrenar`` aparta los viejos a ``anteriores/`` en vez de borrarlos.
        """
        borrados = 0
        for carpeta in self._carpetas():
            if carpeta.is_dir():
                for ruta in carpeta.iterdir():
                    if epoca_de(ruta) is not None:
                        borrar_checkpoint(ruta)
                        borrados += 1
        return borrados

    def cargar_ultimo(self, dispositivo: str | torch.device = "cpu") -> dict | None:
        """El checkpoint sano más nuevo, con sus tensores en ``dispositivo``; None si no hay.

        Si el más nuevo está dañado, incompleto o no pasa su suma SHA-256, avisa y prueba con
        el anterior.
        """
        dispositivo = como_dispositivo(dispositivo, meta=True)  # un dispositivo mal escrito falla aquí, no en cada archivo
        for ruta in self.archivos():
            try:  # una carpeta .dcp es un checkpoint repartido (FSDP): su índice, con cada archivo comprobado
                estado = leer_indice(ruta) if ruta.is_dir() else cargar_checkpoint(ruta, dispositivo)
            except Exception as error:  # zip roto, archivo truncado, suma que no cuadra, contenido no permitido...
                motivo = str(error) if isinstance(error, (CheckpointDanado, ValueError)) else (
                    f"El checkpoint {ruta.name} está dañado o incompleto ({type(error).__name__}).")
                warnings.warn(f"{motivo} Uso el anterior (el archivo se queda donde está).",
                              AvisoCheckpoint, stacklevel=2)
                continue
            estado["ruta"] = str(ruta)
            return estado
        return None


class _CandadoDeCarpeta(Candado):
    """El candado de una ``CarpetaCheckpoints``: al tomarlo, la carpeta sabe que debe vigilarlo."""

    def __init__(self, carpeta: CarpetaCheckpoints):
        super().__init__(carpeta.local, temporales=RESTOS)
        self._de = carpeta

    def tomar(self) -> None:
        super().tomar()
        self._de._candado = self

    def soltar(self) -> None:
        if self._de._candado is self:
            self._de._candado = None
        super().soltar()


def carpeta_checkpoints(
    nombre: str,
    *,
    cada: int | None = None,
    reanudar: bool | None = None,
    drive: bool = False,
    base: str | os.PathLike | None = None,
    conservar: int = 3,
    silenciosa: bool = False,
) -> CarpetaCheckpoints:
    """La carpeta donde guardar los checkpoints del entrenamiento ``nombre``. Lección 05.

    - ``cada=10``: un checkpoint cada 10 épocas; ``cada=0``: solo al final. Sin ``cada`` (None),
      lo decide el entrenador: ``entrenar`` guarda al final; ``entrenar_ddp`` y ``ajustar``, cada época.
    - ``reanudar``: None (por defecto) sigue desde el último checkpoint si lo hay; False empieza
      de cero y aparta los viejos a ``anteriores/<fecha>/`` (nunca se borran).

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
    from ..dispositivo import en_colab

    base = comprobar_destino(base if base is not None else Path.cwd() / "checkpoints", "base", carpeta=True)
    local = comprobar_destino(base / nombre, "carpeta_checkpoints", carpeta=True) if base.is_dir() else base / nombre
    quiere_drive = bool(drive)
    opciones = {"conservar": conservar, "cada": cada, "reanudar": reanudar}
    carpeta = CarpetaCheckpoints(ruta=local, local=local, en_drive=False, **opciones)
    if quiere_drive:
        if not en_colab():
            raise ValueError(
                "drive=True solo funciona dentro de Google Colab: aquí no hay Google Drive que montar. "
                "Usa drive=False (carpeta local) o abre el notebook en Colab.")
        from ..dispositivo import montar_drive

        montado = montar_drive(local=local)
        if montado is None:
            warnings.warn(
                "No se pudo montar Google Drive: los checkpoints se guardarán solo en local "
                f"({local}) y se perderán si Colab se desconecta.", AvisoCheckpoint, stacklevel=2)
        else:
            carpeta = CarpetaCheckpoints(
                ruta=Path(montado) / "checkpoints" / nombre, local=local, en_drive=True, **opciones)
    carpeta.comprobar_escritura()
    if not silenciosa:
        print(carpeta)
    return carpeta


def como_carpeta(checkpoints, *, cada_por_defecto: int = 0, **opciones) -> CarpetaCheckpoints:
    """Una ``CarpetaCheckpoints`` o una ruta, como ``CarpetaCheckpoints``. Lecciones 05, 08 y 09.

    - ``opciones`` (``cada``, ``reanudar``, ``conservar``): una ruta las toma; una carpeta las toma
      si coinciden con las suyas o si no eligió ``cada``; si dicen otra cosa que la carpeta, un error
      que dice cómo cambiarla (``carpeta.con(cada=1)``): nunca se ignora lo que pides.
    - ``cada_por_defecto``: cada cuántas épocas guarda el entrenador si nadie eligió ``cada``
      (``entrenar``: 0, al final; ``entrenar_ddp`` y ``ajustar``: 1, cada época).

    La ruta se comprueba con ``comprobar_destino`` (una carpeta donde se puede escribir).
    """
    otras = set(opciones) - {"cada", "reanudar", "conservar"}
    if otras:
        raise ValueError(f"como_carpeta solo acepta cada, reanudar o conservar; recibí {sorted(otras)}.")
    if isinstance(checkpoints, CarpetaCheckpoints):
        carpeta = checkpoints
        distintas = {k: v for k, v in opciones.items()
                     if getattr(carpeta, k) != v and not (k == "cada" and carpeta.cada is None)}
        if distintas:
            pedido = ", ".join(f"{k}={v!r}" for k, v in distintas.items())
            tiene = ", ".join(f"{k}={getattr(carpeta, k)!r}" for k in distintas)
            raise ValueError(f"La carpeta de checkpoints ya dice {tiene} y aquí se pide {pedido}: no sé cuál "
                             f"quieres. Pasa la carpeta cambiada, carpeta.con({pedido}), o créala así: "
                             f"carpeta_checkpoints('nombre', {pedido}).")
        if opciones:
            carpeta = carpeta.con(**opciones)
    elif isinstance(checkpoints, (str, os.PathLike)):
        ruta = comprobar_destino(checkpoints, "checkpoints", carpeta=True)
        carpeta = CarpetaCheckpoints(ruta=ruta, local=ruta, **opciones)
    else:
        raise ValueError(f"checkpoints debe ser una carpeta (carpeta_checkpoints('nombre') o una ruta como "
                         f"'checkpoints/mi_modelo'); recibí {checkpoints!r}.")
    if carpeta.cada is None:
        carpeta = carpeta.con(cada=leer_numero(cada_por_defecto, "cada_por_defecto", entero=True, minimo=0))
    return carpeta
