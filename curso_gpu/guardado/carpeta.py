"""La carpeta de checkpoints: dónde, cada cuánto, si se reanuda, cuántos se conservan. Lección 05.

- ``CarpetaCheckpoints`` (la crean ``carpeta_checkpoints`` y ``como_carpeta``, en ``elegir_carpeta``)
  lleva sus opciones: ``entrenar``, ``entrenar_ddp`` y ``ajustar`` las leen de ella.
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
from ..base import contar, formatear_bytes, leer_numero, mostrar_ruta
from .escritura_segura import (
    AvisoCheckpoint, Candado, CarpetaDesaparecida, CheckpointNoGuardado, copiar_atomico, crear_exclusivo, fsync_carpeta,
)
from .fragmentado import leer_indice
from .formato import (
    ANTERIORES, PRUEBA, RESTOS, CheckpointDanado, cargar_checkpoint, epoca_de, guardar_atomico, nombre_archivo,
)

__all__ = ["CarpetaCheckpoints", "CarpetaNoEscribible", "borrar_checkpoint"]

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
            return (f"Los checkpoints se guardan en Google Drive: {mostrar_ruta(self.ruta)} "
                    f"(primero en {mostrar_ruta(self.local)}; {cada}; se conservan los últimos {self.conservar}).")
        return (f"Los checkpoints se guardan en la carpeta local {mostrar_ruta(self.ruta)} ({cada}; "
                f"se conservan los últimos {self.conservar}).")

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
                      f"igualmente al guardar este. Quedan {contar(len(propios) - 1, 'checkpoint sano', 'checkpoints sanos')}.",
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
        el anterior. Lo que solo se llama como un checkpoint (una carpeta ``….pt``, un archivo
        ``….dcp``) se salta, con un aviso.
        """
        dispositivo = como_dispositivo(dispositivo, meta=True)  # un dispositivo mal escrito falla aquí, no en cada archivo
        for ruta in self.archivos():
            if ruta.is_dir() != (ruta.suffix == ".dcp"):  # un .pt es un archivo; un .dcp, una carpeta
                warnings.warn(f"{ruta.name} se llama como un checkpoint pero es {'una carpeta' if ruta.is_dir() else 'otra cosa'}, "
                              f"no {'una carpeta' if ruta.suffix == '.dcp' else 'un archivo'}: lo salto y uso el anterior "
                              "(no lo toco).", AvisoCheckpoint, stacklevel=2)
                continue
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
