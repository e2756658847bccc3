"""Lo que comparten las órdenes del curso (``python -m curso_gpu`` y la aplicación de la lección 05).

- ``AnalizadorArgumentos``: argparse con la ayuda y los errores en español.
- ``ejecutar_orden``: una salida que no se rompe en una consola sin UTF-8 (cambia «›» por «>»
  y «á» por «a» si hace falta), ni cuando quien lee la salida se va (``| head -1``), ni cuando
  no se puede escribir (``> /dev/full``, un disco lleno): un mensaje en español y código 1.

No importa torch: la ayuda y los errores de argumentos salen al instante.
"""

from __future__ import annotations

import argparse
import codecs
import errno
import os
import sys
import unicodedata

from .numeros import leer_numero


CODIGO_TUBERIA_CERRADA = 141
"""Código de salida cuando quien leía la salida la cerró (128 + SIGPIPE, como ``yes | head``)."""

CODIGO_SALIDA_ROTA = 1
"""Código de salida cuando la salida no admite más texto (``> /dev/full``, disco lleno)."""

DEGRADAR = "curso_gpu.degradar"
"""Nombre del manejador de errores de codificación que cambia cada carácter por el más parecido."""

_PARECIDOS = {
    "›": ">", "‹": "<", "→": "->", "←": "<-", "×": "x", "«": '"', "»": '"', "“": '"', "”": '"',
    "‘": "'", "’": "'", "—": "-", "–": "-", "…": "...", "≈": "~", "≤": "<=", "≥": ">=", "·": ".",
    "•": "*", "✓": "v", "✗": "x", "⚠": "!", "€": "EUR", "¿": "", "¡": "",
}
_SUPERINDICES = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789-")
_PRUEBA = "áéíóúñü¿¡«»›→×—…≈¹"  # si la salida sabe escribir esto, no hace falta degradar nada


def _parecido(caracter: str) -> str:
    if caracter in _PARECIDOS:
        return _PARECIDOS[caracter]
    sin_tildes = "".join(c for c in unicodedata.normalize("NFKD", caracter) if not unicodedata.combining(c))
    return sin_tildes.encode("ascii", "replace").decode("ascii") or "?"


def _degradar(error: UnicodeError) -> tuple[str, int]:
    if not isinstance(error, UnicodeEncodeError):
        raise error
    trozo, partes, en_exponente = error.object[error.start:error.end], [], False
    for caracter in trozo:
        exponente = caracter in "⁰¹²³⁴⁵⁶⁷⁸⁹⁻"
        if exponente:  # 10¹⁵ → 10^15, no 1015
            partes.append(("" if en_exponente else "^") + caracter.translate(_SUPERINDICES))
        else:
            partes.append(_parecido(caracter))
        en_exponente = exponente
    return "".join(partes), error.end


codecs.register_error(DEGRADAR, _degradar)


def sabe_escribir(texto: str, flujo=None) -> bool:
    """True si ``flujo`` (por defecto, la salida estándar) puede escribir ``texto`` sin perder nada."""
    flujo = sys.stdout if flujo is None else flujo
    try:
        texto.encode(getattr(flujo, "encoding", None) or "utf-8")
    except (UnicodeEncodeError, LookupError):
        return False
    return True


def preparar_salida(*flujos) -> None:
    """Si la consola no sabe escribir «á» o «›» (ascii, latin-1, cp850...), los cambia por lo más
    parecido («a», «>») en vez de fallar con ``UnicodeEncodeError``. Por defecto, stdout y stderr."""
    for flujo in flujos or (sys.stdout, sys.stderr):
        if flujo is None or sabe_escribir(_PRUEBA, flujo):
            continue
        try:
            flujo.reconfigure(errors=DEGRADAR)
        except (AttributeError, ValueError, OSError):  # un flujo que no es de texto normal
            pass


_MOTIVOS = {errno.ENOSPC: "no queda espacio", errno.EIO: "error de entrada/salida",
            errno.EDQUOT: "se agotó la cuota de disco", errno.EFBIG: "el archivo es demasiado grande"}


def _tapar_salida() -> None:
    """Que la salida estándar escriba en /dev/null: Python no volverá a fallar (ni a escribir una
    traza) al vaciarla cuando termine."""
    try:
        nulo = os.open(os.devnull, os.O_WRONLY)
        os.dup2(nulo, sys.stdout.fileno())
        os.close(nulo)
    except (OSError, ValueError, AttributeError):
        pass


def salida_rota() -> bool:
    """True si la salida estándar ya no admite texto (vaciarla vuelve a fallar)."""
    try:
        if sys.stdout is not None:
            sys.stdout.flush()
            os.write(sys.stdout.fileno(), b"")  # /dev/full falla hasta con cero bytes
    except OSError:
        return True
    except (ValueError, AttributeError):  # una salida sin descriptor (un notebook)
        return False
    return False


def ejecutar_orden(funcion, argv=None) -> int:
    """Ejecuta ``funcion(argv)`` (el cuerpo de una orden) con una salida que no se rompe.

    Prepara la consola (``preparar_salida``); si quien leía la salida la cierra
    (``python -m curso_gpu | head -1``), termina en silencio con ``CODIGO_TUBERIA_CERRADA``; si la
    salida no admite más texto (``> /dev/full``, disco lleno), lo dice en español por stderr y
    termina con ``CODIGO_SALIDA_ROTA``, sin traza.
    """
    preparar_salida()
    try:
        try:
            return funcion(argv)
        finally:  # vaciar aquí: si la tubería está cerrada, lo sabemos ahora y no al salir
            if sys.stdout is not None:
                sys.stdout.flush()
    except BrokenPipeError:
        _tapar_salida()
        return CODIGO_TUBERIA_CERRADA
    except OSError as error:
        if error.errno not in (errno.ENOSPC, errno.EIO, errno.EDQUOT, errno.EFBIG) or not salida_rota():
            raise
        _tapar_salida()
        try:
            motivo = _MOTIVOS.get(error.errno, error.strerror or str(error))
            print(f"Error: no pude escribir la salida ({motivo}). ¿Está lleno el disco o el "
                  "archivo al que la rediriges? Prueba sin redirigir o con otro destino.", file=sys.stderr, flush=True)
        except (OSError, ValueError):
            pass
        return CODIGO_SALIDA_ROTA


def tipo_entero(minimo: int | None, maximo: int | None):
    """Un ``type=`` de argparse: un entero de ``minimo`` a ``maximo`` leído con ``leer_numero``
    («--semilla 1180591620717411303424» es un error de argumentos en español, no un ``OverflowError``)."""
    def leer(texto: str) -> int:
        try:
            valor = int(texto.strip().replace("_", ""))
        except ValueError:
            raise argparse.ArgumentTypeError(f"no es un número entero: {texto!r}") from None
        try:
            return leer_numero(valor, "el valor", entero=True, minimo=minimo, maximo=maximo)
        except ValueError as error:
            raise argparse.ArgumentTypeError(str(error).replace("el valor ", "", 1).rstrip(".")) from None
    return leer


class FormatoAyuda(argparse.RawDescriptionHelpFormatter):
    """La ayuda de argparse con «uso:» en vez de «usage:»."""

    def add_usage(self, usage, actions, groups, prefix=None):
        return super().add_usage(usage, actions, groups, prefix="uso: ")


TRADUCCIONES = (  # los mensajes de argparse (Python 3.9-3.13) que puede ver quien usa el curso
    ("unrecognized arguments:", "argumentos que no conozco:"),
    ("expected one argument", "falta su valor"),
    ("expected at least one argument", "falta al menos un valor"),
    ("ignored explicit argument", "no admite valor"),
    ("ambiguous option:", "opción ambigua:"),
    ("could match", "puede ser"),
    ("the following arguments are required:", "faltan estos argumentos:"),
    ("not allowed with argument", "no se puede usar con"),
    ("invalid int value:", "no es un número entero:"),
    ("invalid float value:", "no es un número:"),
    ("invalid choice:", "valor no válido:"),
    ("choose from", "elige entre"),
    ("argument ", "la opción "),
)
"""Pares (inglés, español) que ``AnalizadorArgumentos`` aplica, en orden, a cada error."""


class AnalizadorArgumentos(argparse.ArgumentParser):
    """Un ``argparse.ArgumentParser`` en español: «uso:», «opciones», ``-h`` y los errores.

    Un error de argumentos sale por stderr con el uso, el motivo traducido y «Usa --help»,
    y termina con código 2, como argparse.
    """

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("formatter_class", FormatoAyuda)
        kwargs["add_help"] = False
        super().__init__(*args, **kwargs)
        self._optionals.title = "opciones"
        self._positionals.title = "argumentos"
        self.add_argument("-h", "--help", action="help", help="muestra esta ayuda y termina")

    def error(self, message):  # argparse habla inglés: lo decimos en español
        for ingles, espanol in TRADUCCIONES:
            message = message.replace(ingles, espanol)
        self.print_usage(sys.stderr)
        self.exit(2, f"{self.prog}: error en los argumentos ({message}). Usa --help para ver las opciones.\n")
