"""La única comprobación de rutas del curso: ¿se puede escribir ahí? Lecciones 05, 08 y 09.

``comprobar_destino(ruta, nombre)`` mira una ruta antes de escribir en ella y, si no vale, lo
dice en español con el arreglo: vacía, ``None``, con un carácter nulo, un enlace simbólico, una
carpeta padre que no existe o no deja escribir, un archivo donde se espera una carpeta (o al
revés), o un archivo que ya existe y no se debe pisar. No crea ni borra nada.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["DestinoNoValido", "comprobar_destino", "comprobar_origen"]


class DestinoNoValido(ValueError):
    """Una ruta donde no se puede (o no se debe) escribir: el mensaje dice por qué y qué hacer."""


def _escribible(carpeta: Path) -> bool:
    return os.access(carpeta, os.W_OK | os.X_OK)


def _texto(ruta, nombre: str, que: str, ejemplo: str, escribir: bool = True) -> str:
    """El texto de ``ruta``, o ``DestinoNoValido`` si no es una ruta (None, bytes, vacía, con un nulo)."""
    if ruta is None or isinstance(ruta, bool) or not isinstance(ruta, (str, os.PathLike)):
        raise DestinoNoValido(f"{nombre} debe ser la ruta de {que} (un texto o un Path); recibí {ruta!r}. "
                              f"Por ejemplo, {ejemplo}.")
    try:
        texto = os.fspath(ruta)
    except TypeError:
        texto = None
    if not isinstance(texto, str):
        raise DestinoNoValido(f"{nombre} debe ser la ruta de {que} como texto o Path (no bytes); recibí {ruta!r}. "
                              f"Por ejemplo, {ejemplo}.")
    if not texto.strip():
        motivo = "escribiría en la carpeta actual, mezclado con tus archivos" if escribir else "no dice qué leer"
        raise DestinoNoValido(f"{nombre} está vacío: {motivo}. Da {que} con nombre, por ejemplo {ejemplo}.")
    if "\0" in texto:
        raise DestinoNoValido(f"{nombre} {texto!r} tiene un carácter nulo (\\0), que ningún sistema de archivos "
                              f"admite. Escribe la ruta sin él, por ejemplo {ejemplo}.")
    return texto


def comprobar_origen(ruta, nombre: str) -> Path:
    """Una ruta de la que leer, como ``Path`` (que exista lo mira quien la lee). Lecciones 05 y 08.

    Rechaza con ``DestinoNoValido`` lo mismo que ``comprobar_destino`` antes de mirar el disco:
    ``None`` u otro tipo, una ruta vacía o con un carácter nulo.
    """
    return Path(_texto(ruta, nombre, "un archivo", "'checkpoints/mi_modelo/checkpoint_epoca_000010.pt'",
                       escribir=False))


def comprobar_destino(ruta, nombre: str, *, carpeta: bool = False, sobrescribir: bool = False) -> Path:
    """Comprueba que se puede escribir en ``ruta`` y la devuelve como ``Path``. Lecciones 05, 08 y 09.

    - ``nombre``: cómo se llama la ruta para quien la escribió (``"checkpoints"``, ``"--guardar-pesos"``);
      encabeza cada mensaje.
    - ``carpeta=True``: se espera una carpeta (que ya exista o que se pueda crear, con las carpetas
      de encima que falten); si no, un archivo, en una carpeta que ya exista.
    - ``sobrescribir=False``: un archivo que ya existe se rechaza (nada se pierde sin pedirlo).

    Rechaza con ``DestinoNoValido`` (un ``ValueError``): ``None`` u otro tipo, una ruta vacía o
    con un carácter nulo, un enlace simbólico (nunca se escribe a través de uno), un archivo donde
    se espera una carpeta y al revés, y una carpeta padre que es de solo lectura o que no existe
    (para un archivo; una carpeta nueva puede crear las de encima).
    """
    ejemplo = "'checkpoints/mi_modelo'" if carpeta else "'pesos.pt'"
    que = "una carpeta" if carpeta else "un archivo"
    texto = _texto(ruta, nombre, que, ejemplo)
    destino = Path(texto)
    try:
        if destino.is_symlink():
            raise DestinoNoValido(
                f"{nombre} {destino}: es un enlace simbólico y nunca escribo a través de uno (podría acabar "
                f"pisando otro archivo). Usa la ruta real a la que apunta ({os.path.realpath(destino)}) u otra.")
        if destino.exists():
            if carpeta and not destino.is_dir():
                raise DestinoNoValido(f"{nombre} {destino}: es un archivo, no una carpeta. Da una carpeta (nueva o "
                                      f"de este mismo entrenamiento), por ejemplo {ejemplo}.")
            if not carpeta and destino.is_dir():
                raise DestinoNoValido(f"{nombre} {destino}: es una carpeta; da la ruta de un archivo dentro de "
                                      f"ella, por ejemplo {destino / 'pesos.pt'}.")
            if carpeta:
                if not _escribible(destino):
                    raise DestinoNoValido(
                        f"{nombre} {destino}: no tengo permiso para escribir en esa carpeta (¿es de solo lectura?). "
                        "Usa una carpeta tuya, por ejemplo una dentro de tu carpeta de trabajo.")
                return destino
            if not sobrescribir:
                raise DestinoNoValido(f"{nombre} {destino}: ya existe y no lo piso (nada se borra sin pedirlo). "
                                      "Elige otro nombre, o borra ese archivo tú si ya no lo quieres.")
        padre = destino.parent
        if carpeta:  # una carpeta nueva se crea con sus padres: basta con que el primero que existe deje escribir
            while not padre.exists() and not padre.is_symlink() and padre != padre.parent:
                padre = padre.parent
            if padre.is_symlink() and not padre.exists():
                raise DestinoNoValido(f"{nombre} {destino}: {padre} es un enlace simbólico roto. Usa otra ruta.")
        if not padre.exists():
            raise DestinoNoValido(f"{nombre} {destino}: la carpeta {padre} no existe. Créala antes "
                                  f"(Path({str(padre)!r}).mkdir(parents=True)) o elige una ruta en una carpeta "
                                  "que ya exista.")
        if not padre.is_dir():
            raise DestinoNoValido(f"{nombre} {destino}: {padre} es un archivo, no una carpeta. Usa otra ruta.")
        if not _escribible(padre):
            raise DestinoNoValido(
                f"{nombre} {destino}: no tengo permiso para escribir en la carpeta {padre} (¿es de solo lectura?). "
                "Usa una carpeta tuya, por ejemplo una dentro de tu carpeta de trabajo.")
    except OSError as error:  # un nombre demasiado largo, un bucle de enlaces, una carpeta sin permiso de paso...
        raise DestinoNoValido(f"{nombre} {texto!r}: no puedo usar esa ruta ({os.strerror(error.errno) if error.errno else error}). "
                              f"Elige otra, por ejemplo {ejemplo}.") from None
    return destino
