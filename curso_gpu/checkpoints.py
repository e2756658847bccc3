"""Checkpoints que sobreviven a una desconexión de Colab. Lección 05.

- ``carpeta_checkpoints(nombre)``: en Colab, una carpeta en Google Drive (lo monta solo
  entonces); fuera de Colab, ``checkpoints/<nombre>`` en la carpeta actual.
- Cada checkpoint se escribe de forma atómica (un temporal con nombre único creado en
  exclusiva, flush, fsync, ``os.replace``): o está entero o no está, aunque escriban dos
  procesos a la vez; nunca se sigue un enlace simbólico. Se conservan los últimos K.
- Cada checkpoint lleva su suma SHA-256 (de sus tensores y datos) y se comprueba al cargar.
- Se cargan con ``weights_only=True`` y se llevan al dispositivo actual: uno escrito en una
  GPU se carga en una CPU y al revés. Si el más nuevo está dañado, se avisa y se usa el anterior.
- Un candado (``.entrenando.lock``, con el pid) impide que dos entrenamientos usen la misma
  carpeta. Nada se borra sin pedirlo: empezar de cero aparta los viejos a ``anteriores/<fecha>/``.
- En Drive (un montaje FUSE que sincroniza tarde) se escribe primero en local y después se
  copia a Drive con un nombre temporal y ``os.replace``.
"""

from __future__ import annotations

import errno
import hashlib
import os
import random
import re
import shutil
import socket
import stat
import tempfile
import threading
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from .dispositivo import como_dispositivo

PATRON = re.compile(r"^checkpoint_epoca_(\d{6})\.pt$")
TEMPORAL = re.compile(r"^\.checkpoint_epoca_\d{6}\.pt(\..+)?\.tmp$")  # los que deja un proceso muerto
PRUEBA = ".prueba_de_escritura"
CANDADO = ".entrenando.lock"
ANTERIORES = "anteriores"
CLAVE_SUMA = "sha256"
# Sin espacio, sin permiso o en una carpeta de solo lectura: lo que le puede pasar a un disco.
ERRORES_DE_DISCO = {errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EROFS, errno.EACCES, errno.EPERM}


class CarpetaNoEscribible(ValueError):
    """La carpeta de checkpoints no se puede crear o no deja escribir."""


class CarpetaOcupada(ValueError):
    """Otro entrenamiento (otro proceso, o este mismo) está usando la carpeta de checkpoints."""


class CheckpointDanado(ValueError):
    """El checkpoint no se puede leer o no pasa la suma de verificación SHA-256."""


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


class AvisoCheckpoint(UserWarning):
    """Un checkpoint dañado, una copia a Drive que falló o un cambio al reanudar (se sigue)."""


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


def _legible(n: float) -> str:
    for unidad in ("bytes", "KB", "MB", "GB"):
        if n < 1000 or unidad == "GB":
            return f"{n:.0f} {unidad}" if unidad == "bytes" else f"{n:.1f} {unidad}"
        n /= 1000


def _no_guardado(error: OSError, destino: Path, necesario: int | None) -> CheckpointNoGuardado:
    """El ``OSError`` de disco traducido a un mensaje que dice qué pasa y qué hacer."""
    carpeta = destino.parent
    if error.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG):
        try:
            libre = f"; quedan {_legible(shutil.disk_usage(carpeta).free)} libres"
        except OSError:
            libre = ""
        cuanto = f"hacen falta unos {_legible(necesario)}" if necesario else "no cabe"
        motivo = f"No queda espacio en {carpeta} para guardar {destino.name}: {cuanto}{libre}."
        arreglo = "Libera espacio o elige otra carpeta con carpeta_checkpoints(nombre, base=...)"
    else:
        motivo = f"La carpeta {carpeta} ya no deja escribir {destino.name} (solo lectura o sin permiso)."
        arreglo = "Revisa los permisos (en Colab, que Google Drive siga montado) o elige otra carpeta"
    return CheckpointNoGuardado(
        f"{motivo} Los checkpoints anteriores siguen intactos. {arreglo} y vuelve a ejecutar: "
        f"se reanuda desde el último. ({os.strerror(error.errno) if error.errno else error})",
        carpeta, necesario, error.errno)


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
    return _escribir_atomico(destino, lambda archivo: torch.save(estado, archivo), necesario)


def copiar_atomico(origen: str | os.PathLike, destino: str | os.PathLike) -> Path:
    """Copia ``origen`` a ``destino`` con un nombre temporal y ``os.replace`` (para Drive)."""
    origen, destino = Path(origen), Path(destino)
    with open(origen, "rb") as entrada:
        tamano = os.fstat(entrada.fileno()).st_size
        return _escribir_atomico(destino, lambda salida: shutil.copyfileobj(entrada, salida), tamano)


def _crear_exclusivo(carpeta: Path, prefijo: str) -> tuple[int, Path]:
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


def _escribir_atomico(destino: Path, escribir, necesario: int | None = None) -> Path:
    """Escribe en un temporal único junto a ``destino``, fsync y ``os.replace``: nunca queda a medias."""
    temporal, escritor = None, None
    try:
        fd, temporal = _crear_exclusivo(destino.parent, f".{destino.name}.")
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
        if isinstance(error, OSError) and error.errno in ERRORES_DE_DISCO:
            raise _no_guardado(error, destino, necesario) from error
        raise
    finally:
        if temporal is not None and os.path.lexists(temporal):
            temporal.unlink()
    _fsync_carpeta(destino.parent)
    return destino


_UMASCARA = os.umask(0o022)
os.umask(_UMASCARA)


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
    Al tomarlo se borran los temporales que dejó un proceso muerto a mitad de guardar.
    """

    def __init__(self, carpeta: str | os.PathLike):
        self.carpeta = Path(carpeta)
        self.ruta = self.carpeta / CANDADO
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
        self.carpeta.mkdir(parents=True, exist_ok=True)
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
            except OSError as error:
                if os.path.islink(self.ruta):  # un enlace plantado: se quita el enlace, nunca se sigue
                    os.unlink(self.ruta)
                    continue
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

    def _limpiar_temporales(self) -> None:
        for ruta in self.carpeta.iterdir():
            if TEMPORAL.match(ruta.name) or ruta.name.startswith(PRUEBA + "."):
                try:
                    ruta.unlink()  # unlink quita el archivo o el enlace, nunca lo que apunta
                except OSError:
                    pass

    def soltar(self) -> None:
        """Suelta el candado y borra su archivo (se puede llamar dos veces)."""
        if self._fd is None:
            return
        fd, self._fd = self._fd, None
        for _ in range(2):  # en POSIX se borra sin soltarlo; en Windows, tras cerrarlo
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
                fd, prueba = _crear_exclusivo(carpeta, PRUEBA + ".")
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
            _fsync_carpeta(carpeta)
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
    if not isinstance(nombre, str) or not nombre.strip() or any(s in nombre for s in ("/", "\\", "\0")) or nombre in (".", ".."):
        raise ValueError(
            f"El nombre de la carpeta de checkpoints no vale: {nombre!r}. "
            "Usa un nombre sencillo sin barras, por ejemplo 'cnn_lineas'.")
    if base is not None and (not isinstance(base, (str, os.PathLike)) or "\0" in os.fspath(base)):
        raise ValueError(f"base debe ser una carpeta (un texto o un Path sin caracteres nulos); recibí {base!r}. "
                         "Por ejemplo, base=Path.home() / 'checkpoints'.")
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


# ---------------------------------------------------------------------------
# Reanudar o empezar de cero
# ---------------------------------------------------------------------------

def configuracion_de(estado: dict) -> dict:
    """La configuración con la que se guardó un checkpoint (los de la versión 1 no la traen entera)."""
    if isinstance(estado.get("configuracion"), dict):
        return dict(estado["configuracion"])
    return {clave: estado[clave] for clave in ("lr", "epocas", "tamano_lote", "acumular", "precision") if clave in estado}


def formas_distintas(guardado: dict, actual: dict) -> list[str]:
    """Qué parámetros cambian de nombre o de forma entre dos ``state_dict`` (vacía si encajan)."""
    distintas = [f"{k}: {tuple(guardado[k].shape)} → {tuple(v.shape)}"
                 for k, v in actual.items() if k in guardado and tuple(guardado[k].shape) != tuple(v.shape)]
    distintas += [f"{k}: falta en el checkpoint" for k in actual if k not in guardado]
    distintas += [f"{k}: sobra en el checkpoint" for k in guardado if k not in actual]
    return distintas


def _empezar_de_cero(carpeta: CarpetaCheckpoints, motivo: str, avisar) -> None:
    destino, movidos = carpeta.apartar()
    if movidos:
        avisar(f"{motivo}: empiezo de cero. Muevo {movidos} checkpoint(s) anteriores a {destino} "
               "(no se borra nada).")


def _cambio(clave: str, antes, ahora) -> str:
    if clave == "semilla":
        return f"semilla {antes!r} → {ahora!r} (sigo con el estado aleatorio guardado en el checkpoint)"
    if clave == "dispositivo":
        return (f"dispositivo {antes} → {ahora} (sigo en {ahora}; el resultado ya no será idéntico bit a bit "
                "al de un entrenamiento sin cortes)")
    return f"{clave} {antes!r} → {ahora!r} (uso {ahora!r})"


def preparar_reanudacion(carpeta: CarpetaCheckpoints, reanudar: bool | None, configuracion: dict,
                         dispositivo, avisar=print, modelo: dict | None = None) -> dict | None:
    """Decide si se sigue desde un checkpoint o se empieza de cero. Lección 05.

    - ``reanudar=None`` (por defecto en ``entrenar``) o ``True``: si la carpeta tiene un
      checkpoint sano, lo devuelve para seguir desde él y lo dice con ``avisar``. Compara su
      configuración con ``configuracion`` (lr, tamano_lote, epocas, modelo, dispositivo, ...):
      avisa de cada diferencia y usa el valor nuevo, o da un error que dice cómo arreglarlo
      (otro modelo, o menos épocas de las ya hechas). ``modelo``: el ``state_dict`` actual,
      para comprobar que los parámetros tienen la misma forma. Si ningún checkpoint se puede leer,
      aparta los dañados y empieza de cero.
    - ``reanudar=False``: empieza de cero y mueve los checkpoints que hubiera a
      ``anteriores/<fecha>/``. Nunca se borra nada.

    Devuelve el estado cargado (con ``ruta``) o ``None`` si se empieza de cero.
    """
    if reanudar is False:
        _empezar_de_cero(carpeta, "reanudar=False", avisar)
        return None
    estado = carpeta.cargar_ultimo(dispositivo)
    if estado is None:
        if carpeta.archivos():
            _empezar_de_cero(carpeta, "Ningún checkpoint se puede leer", avisar)
        elif reanudar:
            avisar(f"No hay checkpoints en {carpeta.ruta}: empiezo desde la época 1.")
        return None
    guardada, epoca, ruta = configuracion_de(estado), int(estado["epoca"]), estado["ruta"]
    arreglo = ("Usa otra carpeta, o reanudar=False para empezar de cero (los checkpoints actuales se "
               "guardan en anteriores/).")
    if guardada.get("modelo", configuracion.get("modelo")) != configuracion.get("modelo"):
        raise ValueError(f"El checkpoint {ruta} no corresponde a este modelo: es de un {guardada['modelo']} y "
                         f"ahora entrenas un {configuracion['modelo']}. {arreglo}")
    distintas = formas_distintas(estado["modelo"], modelo) if modelo is not None else []
    if distintas:
        raise ValueError(f"El checkpoint {ruta} no corresponde a este modelo (cambian {len(distintas)} "
                         f"parámetros: {'; '.join(distintas[:3])}). {arreglo}")
    if epoca > configuracion["epocas"]:
        raise ValueError(f"El checkpoint {ruta} ya va por la época {epoca} y ahora pides epocas="
                         f"{configuracion['epocas']}. Pide epocas={epoca} o más para seguir, o reanudar=False "
                         "para empezar de cero (los checkpoints actuales se guardan en anteriores/).")
    cambios = [_cambio(clave, guardada[clave], valor) for clave, valor in configuracion.items()
               if clave in guardada and guardada[clave] != valor and not (clave == "semilla" and valor is None)]
    if cambios:
        texto = f"Reanudo desde {ruta} con cambios respecto al checkpoint: " + "; ".join(cambios) + "."
        warnings.warn(texto, AvisoCheckpoint, stacklevel=3)
        avisar(texto)
    if epoca == configuracion["epocas"]:
        avisar(f"El entrenamiento de {ruta} ya había terminado (época {epoca} de {epoca}): cargo ese modelo "
               "y no entreno más. Para volver a entrenar desde cero, usa reanudar=False.")
    else:
        avisar(f"Reanudo desde {ruta} (época {epoca} de {configuracion['epocas']}).")
    return estado
