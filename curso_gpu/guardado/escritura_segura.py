"""Escribir sin perder nada: archivos atómicos y un solo escritor por carpeta. Lección 05.

Lo que usa ``guardado`` para que un corte no deje nada a medias:

- ``escribir_atomico`` y ``copiar_atomico``: un temporal con nombre único creado en exclusiva
  junto al destino, flush, fsync y ``os.replace``; nunca se sigue un enlace simbólico. Sin
  espacio o sin permiso, ``CheckpointNoGuardado`` dice qué pasa y qué hacer.
- ``Candado``: el archivo ``.entrenando.lock`` que impide que dos entrenamientos escriban en la
  misma carpeta (``CarpetaOcupada``) y que nota si alguien borró la carpeta o el candado.

Los nombres de los checkpoints (y de sus temporales) son de ``formato``: aquí no se conoce ninguno.
"""

from __future__ import annotations

import errno
import os
import re
import shutil
import socket
import stat
import tempfile
import threading
import time
import warnings
from pathlib import Path

from ..base import formatear_bytes
from .destino import DestinoNoValido, comprobar_destino

__all__ = ["AvisoCheckpoint", "CANDADO", "Candado", "CarpetaDesaparecida", "CarpetaOcupada", "CheckpointNoGuardado",
           "comprobar_destino_atomico", "copiar_atomico", "crear_exclusivo", "escribir_atomico",
           "fsync_carpeta"]

CANDADO = ".entrenando.lock"
# Sin espacio, sin permiso o en una carpeta de solo lectura: lo que le puede pasar a un disco.
_ERRORES_DE_DISCO = {errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EROFS, errno.EACCES, errno.EPERM}


class CarpetaOcupada(ValueError):
    """Otro entrenamiento (otro proceso, o este mismo) está usando la carpeta de checkpoints."""


class CheckpointNoGuardado(OSError):
    """No se pudo guardar un checkpoint: disco lleno, carpeta de solo lectura o sin permiso.

    ``carpeta``: dónde se intentó; ``necesario``: bytes que hacen falta (aprox.);
    ``historial``: lo entrenado hasta ese momento (lo pone ``entrenar``). Los checkpoints
    anteriores quedan intactos.
    """

    def __init__(self, mensaje: str, carpeta: Path, necesario: int | None = None, codigo: int | None = None):
        super().__init__(mensaje)
        self.errno = codigo
        self.carpeta, self.necesario, self.historial = carpeta, necesario, None

    def __str__(self) -> str:
        return self.args[0]


class CarpetaDesaparecida(CheckpointNoGuardado):
    """La carpeta de checkpoints o su candado desaparecieron mientras se entrenaba: se para sin recrearla."""


class AvisoCheckpoint(UserWarning):
    """Un checkpoint dañado, una copia a Drive que falló o un cambio al reanudar (se sigue)."""


def fsync_carpeta(carpeta: Path) -> None:
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


def _no_guardado(error: OSError, destino: Path, necesario) -> CheckpointNoGuardado:
    """El ``OSError`` de disco traducido a un mensaje que dice qué pasa y qué hacer.

    ``necesario``: bytes, o una función que los calcula (solo se llama si falta espacio).
    """
    carpeta = destino.parent
    if callable(necesario):
        necesario = necesario() if error.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG) else None
    if error.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG):
        try:
            libre = f"; quedan {formatear_bytes(shutil.disk_usage(carpeta).free)} libres"
        except OSError:
            libre = ""
        cuanto = f"hacen falta unos {formatear_bytes(necesario)}" if necesario else "no cabe"
        motivo = f"No queda espacio en {carpeta} para guardar {destino.name}: {cuanto}{libre}."
        arreglo = "Libera espacio o elige otra carpeta con carpeta_checkpoints(nombre, base=...)"
    else:
        motivo = f"La carpeta {carpeta} ya no deja escribir {destino.name} (solo lectura o sin permiso)."
        arreglo = "Revisa los permisos (en Colab, que Google Drive siga montado) o elige otra carpeta"
    return CheckpointNoGuardado(
        f"{motivo} Los checkpoints anteriores siguen intactos. {arreglo} y vuelve a ejecutar: "
        f"se reanuda desde el último. ({os.strerror(error.errno) if error.errno else error})",
        carpeta, necesario, error.errno)


def comprobar_destino_atomico(destino, nombre: str = "destino") -> Path:
    """``comprobar_destino`` para una escritura atómica: se puede reemplazar un archivo que ya existe, y
    un enlace simbólico en el destino también (``os.replace`` renombra el enlace, nunca lo sigue)."""
    try:
        return comprobar_destino(destino, nombre, sobrescribir=True)
    except DestinoNoValido:
        texto = os.fspath(destino) if isinstance(destino, (str, os.PathLike)) else None
        if isinstance(texto, str) and texto.strip() and "\0" not in texto and os.path.islink(texto):
            comprobar_destino(Path(texto).parent, nombre, carpeta=True)
            return Path(texto)
        raise


def copiar_atomico(origen: str | os.PathLike, destino: str | os.PathLike) -> Path:
    """Copia ``origen`` a ``destino`` con un nombre temporal y ``os.replace`` (para Drive)."""
    destino = comprobar_destino_atomico(destino)
    texto = os.fspath(origen) if isinstance(origen, (str, os.PathLike)) else None
    if not isinstance(texto, str) or not texto.strip() or "\0" in texto:
        raise DestinoNoValido(f"origen debe ser la ruta de un archivo (un texto o un Path sin caracteres nulos); "
                              f"recibí {origen!r}.")
    origen = Path(texto)
    if not origen.is_file():
        que = "es una carpeta" if origen.is_dir() else "no existe"
        raise DestinoNoValido(f"No puedo copiar {origen}: {que}. Da la ruta de un archivo que exista.")
    with open(origen, "rb") as entrada:
        tamano = os.fstat(entrada.fileno()).st_size
        return escribir_atomico(destino, lambda salida: shutil.copyfileobj(entrada, salida), tamano)


def crear_exclusivo(carpeta: Path, prefijo: str) -> tuple[int, Path]:
    """Un archivo nuevo con nombre único en ``carpeta`` (O_EXCL, O_NOFOLLOW): nunca pisa nada."""
    fd, nombre = tempfile.mkstemp(prefix=prefijo, suffix=".tmp", dir=carpeta)
    return fd, Path(nombre)


class _Escritor:
    """Un archivo que recuerda el ``OSError`` de ``write``: ``torch.save`` lo convierte en un
    ``RuntimeError`` de C++ («unexpected pos ...») y así no se pierde qué pasó (disco lleno)."""

    def __init__(self, archivo):
        self.archivo, self.error = archivo, None

    def write(self, datos) -> int:
        try:
            return self.archivo.write(datos)
        except OSError as error:
            self.error = error
            raise

    def flush(self) -> None:
        self.archivo.flush()


def escribir_atomico(destino: Path, escribir, necesario=None) -> Path:
    """Escribe en un temporal único junto a ``destino``, fsync y ``os.replace``: nunca queda a medias.

    ``necesario``: los bytes del archivo (o una función que los calcula) para el mensaje de disco lleno.
    """
    destino = comprobar_destino_atomico(destino)
    temporal, escritor = None, None
    try:
        fd, temporal = crear_exclusivo(destino.parent, f".{destino.name}.")
        if hasattr(os, "fchmod"):
            os.fchmod(fd, 0o666 & ~_UMASCARA)  # mkstemp lo crea solo para ti (0600)
        with os.fdopen(fd, "wb") as archivo:
            escritor = _Escritor(archivo)
            escribir(escritor)
            archivo.flush()
            os.fsync(archivo.fileno())
        os.replace(temporal, destino)  # renombra el enlace, nunca lo sigue
    except (OSError, RuntimeError) as error:
        if not isinstance(error, OSError):
            error = escritor.error if escritor is not None and escritor.error is not None else error
        if isinstance(error, OSError) and error.errno in _ERRORES_DE_DISCO:
            raise _no_guardado(error, destino, necesario) from error
        if isinstance(error, (FileNotFoundError, NotADirectoryError, IsADirectoryError)):
            raise DestinoNoValido(f"No pude escribir {destino}: la carpeta {destino.parent} o el propio destino "
                                  f"cambió mientras escribía ({os.strerror(error.errno)}). Comprueba la ruta y "
                                  "vuelve a intentarlo.") from None
        raise
    finally:
        if temporal is not None and os.path.lexists(temporal):
            temporal.unlink()
    fsync_carpeta(destino.parent)
    return destino


_UMASCARA = os.umask(0o022)
os.umask(_UMASCARA)


# ---------------------------------------------------------------------------
# El candado: un solo entrenamiento por carpeta
# ---------------------------------------------------------------------------

_TOMADOS: set[str] = set()  # candados que tiene este proceso (también desde otros hilos)
_CERROJO = threading.Lock()


def _proceso_vivo(pid: int) -> bool:
    if os.name == "nt":
        return True  # en Windows no se puede preguntar sin riesgo; se confía en el bloqueo del archivo
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _bloquear(fd: int) -> bool | None:
    """True si este proceso consigue el bloqueo, False si otro lo tiene, None si no se puede bloquear."""
    try:
        import fcntl
    except ImportError:
        try:
            import msvcrt

            os.lseek(fd, 1 << 20, os.SEEK_SET)  # se bloquea un byte lejos del texto, que así se puede leer
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
            return True
        except ImportError:
            return None
        except OSError:
            return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except BlockingIOError:
        return False
    except OSError:  # un sistema de archivos sin bloqueos (algunos montajes de red)
        return None


class Candado:
    """Un archivo ``.entrenando.lock`` con el pid de quien entrena en la carpeta. Lección 05.

    El sistema operativo lo suelta si el proceso muere (``flock``): uno que quedó de un proceso
    muerto se toma con un aviso. Si otro proceso vivo lo tiene, ``CarpetaOcupada`` con su pid.
    Al tomarlo se borran los temporales que dejó un proceso muerto a mitad de guardar (los
    nombres que casan con ``temporales``). ``sigue_tomado()`` dice si el candado sigue en su
    sitio (nadie borró la carpeta ni el archivo).
    """

    def __init__(self, carpeta: str | os.PathLike, temporales: re.Pattern | None = None):
        self.carpeta = comprobar_destino(carpeta, "carpeta del candado", carpeta=True)
        self.ruta = self.carpeta / CANDADO
        self.temporales = temporales
        self._fd: int | None = None
        self._clave = ""

    def __enter__(self) -> "Candado":
        self.tomar()
        return self

    def __exit__(self, *excepcion) -> None:
        self.soltar()

    def _ocupada(self, quien: str) -> CarpetaOcupada:
        return CarpetaOcupada(
            f"Otro entrenamiento ({quien}) está usando la carpeta {self.carpeta}. Dos entrenamientos en "
            "la misma carpeta se pisarían los checkpoints. Espera a que termine o páralo, o usa otra "
            "carpeta: checkpoints=carpeta_checkpoints('otro_nombre').")

    def tomar(self) -> None:
        try:
            self.carpeta.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise DestinoNoValido(f"No puedo crear la carpeta {self.carpeta} para su candado "
                                  f"({os.strerror(error.errno) if error.errno else error}). Elige otra carpeta o "
                                  "revisa los permisos.") from None
        self._clave = os.path.join(os.path.realpath(self.carpeta), CANDADO)  # sin seguir un enlace plantado
        with _CERROJO:
            if self._clave in _TOMADOS:
                raise self._ocupada(f"en este mismo proceso, pid {os.getpid()}")
            _TOMADOS.add(self._clave)
        try:
            anterior = self._abrir()
        except BaseException:
            with _CERROJO:
                _TOMADOS.discard(self._clave)
            raise
        datos = f"pid {os.getpid()} en {socket.gethostname()}, desde {time.strftime('%Y-%m-%d %H:%M:%S')}"
        try:  # el texto solo informa: con el disco lleno, el candado vale igual
            os.ftruncate(self._fd, 0)
            os.lseek(self._fd, 0, os.SEEK_SET)
            os.write(self._fd, datos.encode())
        except OSError:
            pass
        if anterior:
            warnings.warn(
                f"La carpeta {self.carpeta} tenía el candado de un entrenamiento que ya no existe "
                f"({anterior}); lo tomo yo.", AvisoCheckpoint, stacklevel=3)
        self._limpiar_temporales()

    def _abrir(self) -> str:
        """Abre y bloquea el archivo; devuelve lo que decía (de un proceso muerto) o ''."""
        banderas = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
        for _ in range(5):
            try:
                fd = os.open(self.ruta, banderas, 0o644)
            except OSError:
                if os.path.islink(self.ruta):  # un enlace plantado: se quita el enlace, nunca se sigue
                    os.unlink(self.ruta)
                    continue
                if os.path.isdir(self.ruta):  # una carpeta con su nombre: puede tener algo tuyo, no se borra
                    raise CarpetaOcupada(
                        f"{self.ruta} es una carpeta, y ese nombre es el del candado de la carpeta de checkpoints "
                        "(un archivo que impide que dos entrenamientos escriban a la vez). No la borro por si "
                        "tiene algo tuyo: muévela o bórrala, o usa otra carpeta: "
                        "checkpoints=carpeta_checkpoints('otro_nombre').") from None
                raise
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                os.close(fd)
                raise CarpetaOcupada(f"{self.ruta} no es un archivo normal: bórralo y vuelve a empezar.")
            anterior = os.read(fd, 300).decode("utf-8", "replace").strip()
            bloqueado = _bloquear(fd)
            if bloqueado is False:
                os.close(fd)
                raise self._ocupada(anterior or "otro proceso")
            if bloqueado is None:  # sin bloqueos: se mira si el pid anotado sigue vivo
                pid = re.match(r"pid (\d+) en (\S+),", anterior)
                if pid and pid.group(2) == socket.gethostname() and _proceso_vivo(int(pid.group(1))):
                    os.close(fd)
                    raise self._ocupada(anterior)
            try:  # ¿sigue siendo el mismo archivo? (otro pudo soltarlo y borrarlo mientras tanto)
                mismo = os.stat(self.ruta, follow_symlinks=False).st_ino == os.fstat(fd).st_ino
            except FileNotFoundError:
                mismo = False
            if mismo:
                self._fd = fd
                return anterior
            os.close(fd)
        raise self._ocupada("no pude tomar su candado")

    def sigue_tomado(self) -> bool:
        """True si el archivo del candado sigue en la carpeta y es el que se tomó (mismo inodo)."""
        if self._fd is None:
            return False
        try:
            ahora, tomado = os.stat(self.ruta, follow_symlinks=False), os.fstat(self._fd)
        except OSError:
            return False
        return (ahora.st_ino, ahora.st_dev) == (tomado.st_ino, tomado.st_dev)

    def _limpiar_temporales(self) -> None:
        if self.temporales is None:
            return
        for ruta in self.carpeta.iterdir():
            if self.temporales.match(ruta.name):
                try:
                    if ruta.is_dir() and not ruta.is_symlink():  # una carpeta a medias (un checkpoint repartido)
                        shutil.rmtree(ruta)
                    else:
                        ruta.unlink()  # unlink quita el archivo o el enlace, nunca lo que apunta
                except OSError:
                    pass

    def soltar(self) -> None:
        """Suelta el candado y borra su archivo (se puede llamar dos veces).

        Si el archivo ya no es el suyo (lo borraron y otro entrenamiento puso el suyo), no lo toca.
        """
        if self._fd is None:
            return
        mio = self.sigue_tomado()
        fd, self._fd = self._fd, None
        for _ in range(2 if mio else 0):  # en POSIX se borra sin soltarlo; en Windows, tras cerrarlo
            try:
                os.unlink(self.ruta)
                break
            except OSError:
                if fd is not None:
                    os.close(fd)
                    fd = None
        if fd is not None:
            os.close(fd)
        with _CERROJO:
            _TOMADOS.discard(self._clave)


