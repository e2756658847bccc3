"""Lo que comparten las órdenes del curso (``python -m curso_gpu`` y la aplicación de la lección 05).

- ``AnalizadorArgumentos``: argparse con la ayuda y los errores en español.
- ``ejecutar_orden``: una salida que no se rompe en una consola sin UTF-8 (cambia «›» por «>»
  y «á» por «a» si hace falta) ni cuando quien lee la salida se va (``| head -1``).

No importa torch: la ayuda y los errores de argumentos salen al instante.
"""

from __future__ import annotations

import argparse
import codecs
import os
import sys
import unicodedata

CODIGO_TUBERIA_CERRADA = 141
"""Código de salida cuando quien leía la salida la cerró (128 + SIGPIPE, como ``yes | head``)."""

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


def ejecutar_orden(funcion, argv=None) -> int:
    """Ejecuta ``funcion(argv)`` (el cuerpo de una orden) con una salida que no se rompe.

    Prepara la consola (``preparar_salida``) y, si quien leía la salida la cierra
    (``python -m curso_gpu | head -1``), termina en silencio con ``CODIGO_TUBERIA_CERRADA``.
    """
    preparar_salida()
    try:
        try:
            return funcion(argv)
        finally:  # vaciar aquí: si la tubería está cerrada, lo sabemos ahora y no al salir
            if sys.stdout is not None:
                sys.stdout.flush()
    except BrokenPipeError:
        try:  # que Python no vuelva a intentarlo al salir y escriba una traza
            nulo = os.open(os.devnull, os.O_WRONLY)
            os.dup2(nulo, sys.stdout.fileno())
        except (OSError, ValueError, AttributeError):
            pass
        return CODIGO_TUBERIA_CERRADA


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
