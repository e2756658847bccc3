"""Comprobaciones de una lección ya ejecutada: sus cifras y su formato de números (issue 34).

Cada función recibe un notebook de ``nbformat`` con sus salidas y devuelve la lista de problemas
(vacía si no hay ninguno), para que la prueba diga todos a la vez:

- ``numeros_mal_escritos(texto)``: enteros de cinco cifras o más sin separador de millares
  («12288 bytes») y comas decimales («0,99 GB»). El formato del curso es el de
  ``curso_gpu.base.formatear_numero``: punto decimal y un espacio cada tres cifras («12 288»).
- ``salidas_mal_escritas(cuaderno)`` y ``prosa_mal_escrita(cuaderno)``: lo mismo en lo que el
  alumno ve al ejecutar (salidas) y en el texto de la lección (fuera del código).
- ``comprobar_afirmaciones(cuaderno, afirmaciones)``: cada ``Afirmacion`` une una frase de la prosa
  que da una cifra medida (o un intervalo) con la línea de la salida que la mide; falla si la
  cifra medida queda fuera de lo que dice la prosa, o si falta la frase o la salida.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

# Un entero «suelto» de cinco cifras o más: ni dentro de una palabra (ids, hashes), ni tras un punto
# decimal (0.0626269), ni con un cero delante (códigos como PB-09256).
_ENTERO_LARGO = re.compile(r"(?<![\w.])[1-9]\d{4,}(?!\w)")
# Una coma entre cifras sin espacio detrás: «0,99 GB» o «1,000» (las listas de Python llevan «, »).
_COMA_DECIMAL = re.compile(r"(?<![\w.,])\d+,\d+(?![\w,])")
_ETIQUETAS = re.compile(r"<(script|style)\b.*?</\1>|<[^>]+>", re.S | re.I)
_CODIGO_MARKDOWN = re.compile(r"```.*?```|`[^`\n]*`", re.S)


# Lo que es código y no una cifra para leer: una tupla o lista de enteros (la forma de un tensor,
# ``(1, 16, 50257)``), un valor tras «=» o «:» sin espacio (``n=200000``, ``127.0.0.1:48177``) y un
# número de puerto o de proceso, también en el registro de torchrun («E1204 18:15:29.876000 17125 …»), y
# el número de un issue o de un pull request citado como fuente (``vllm-project/vllm#47549``).
_CODIGO = re.compile(r"[(\[]\s*-?\d+(?:\s*,\s*-?\d+)+\s*,?\s*[)\]]|[=:#]-?\d+|\b(?:puerto|port|pid:?|process)\s+\d+"
                     r"|\b[EWIF]\d{4} \d\d:\d\d:\d\d\.\d+ +\d+", re.I)


def numeros_mal_escritos(texto: str) -> list[str]:
    """Los números de ``texto`` que no siguen el formato del curso, tal como aparecen.

    No cuenta lo que es código (la forma de un tensor, ``n=200000``, un puerto): se escribe como
    lo escribirías en Python.
    """
    texto = _CODIGO.sub(" ", texto)
    malos = [m.group(0) for m in _ENTERO_LARGO.finditer(texto)]
    malos += [m.group(0) for m in _COMA_DECIMAL.finditer(texto)]
    return malos


def texto_visible(salida) -> str:
    """Lo que el alumno lee de una salida: el texto de un ``print``, el HTML sin etiquetas o el texto plano."""
    if salida.get("output_type") == "stream":
        return salida.get("text", "")
    if salida.get("output_type") == "error":
        return "\n".join(salida.get("traceback", []))
    datos = salida.get("data", {})
    if "text/html" in datos:
        return html.unescape(_ETIQUETAS.sub(" ", datos["text/html"]))
    if "text/markdown" in datos:
        return datos["text/markdown"]
    return datos.get("text/plain", "")


def salidas(cuaderno) -> list[tuple[int, str]]:
    """``(número de celda, texto visible)`` de cada salida de código del notebook."""
    return [(i, texto_visible(s)) for i, celda in enumerate(cuaderno.cells) if celda.cell_type == "code"
            for s in celda.get("outputs", [])]


def salidas_mal_escritas(cuaderno) -> list[str]:
    """Cada número mal escrito de las salidas, con su celda: ``"celda 13: '12288'"``."""
    return [f"celda {i}: {malo!r} en «{_contexto(texto, malo)}»" for i, texto in salidas(cuaderno)
            for malo in numeros_mal_escritos(texto)]


def prosa(cuaderno) -> list[tuple[int, str]]:
    """``(número de celda, texto)`` de cada celda de Markdown, sin el código que lleve (``…`` y bloques)."""
    return [(i, _CODIGO_MARKDOWN.sub(" ", celda.source)) for i, celda in enumerate(cuaderno.cells)
            if celda.cell_type == "markdown"]


def prosa_mal_escrita(cuaderno) -> list[str]:
    """Cada número mal escrito del texto de la lección (fuera del código), con su celda."""
    return [f"celda {i}: {malo!r} en «{_contexto(texto, malo)}»" for i, texto in prosa(cuaderno)
            for malo in numeros_mal_escritos(texto)]


def _contexto(texto: str, trozo: str, ancho: int = 30) -> str:
    i = texto.find(trozo)
    return " ".join(texto[max(0, i - ancho): i + len(trozo) + ancho].split())


def leer_cifra(texto: str) -> float:
    """Una cifra escrita como el curso («12 288», «2.44», «1.7×») como ``float``."""
    return float(texto.replace("\u202f", "").replace("\u00a0", "").replace(" ", "").rstrip("×x"))


@dataclass(frozen=True)
class Afirmacion:
    """Una cifra medida que la prosa afirma, y dónde la lección la mide.

    ``prosa``: expresión regular sobre el Markdown con los grupos ``minimo`` y/o ``maximo`` (las
    cotas que afirma el texto), o ``aprox`` («unos 4 MiB»: vale ± ``tolerancia``). ``salida``: expresión regular sobre las salidas con el grupo
    ``medido``. Se comprueba ``minimo ≤ medido ≤ maximo`` para cada vez que la salida lo mide.
    """

    que: str
    prosa: str
    salida: str
    tolerancia: float = 0.25  # con el grupo ``aprox`` en vez de cotas: medido dentro de aprox ± 25 %


def comprobar_afirmaciones(cuaderno, afirmaciones) -> list[str]:
    """Los problemas de ``afirmaciones`` en ``cuaderno``: cifra fuera de lo dicho, frase o medida ausente."""
    problemas = []
    texto_prosa = "\n".join(t for _, t in prosa(cuaderno))
    texto_salidas = "\n".join(t for _, t in salidas(cuaderno))
    for a in afirmaciones:
        dicho = re.search(a.prosa, texto_prosa, re.S)
        medidos = [leer_cifra(m.group("medido")) for m in re.finditer(a.salida, texto_salidas)]
        if dicho is None:
            problemas.append(f"{a.que}: la prosa ya no dice /{a.prosa}/ (¿cambió la frase? cambia también la prueba)")
            continue
        if not medidos:
            problemas.append(f"{a.que}: ninguna salida mide /{a.salida}/")
            continue
        cotas = dicho.groupdict()
        minimo = leer_cifra(cotas["minimo"]) if cotas.get("minimo") else float("-inf")
        maximo = leer_cifra(cotas["maximo"]) if cotas.get("maximo") else float("inf")
        if cotas.get("aprox"):
            aprox = leer_cifra(cotas["aprox"])
            minimo, maximo = aprox * (1 - a.tolerancia), aprox * (1 + a.tolerancia)
        for medido in medidos:
            if not minimo <= medido <= maximo:
                problemas.append(f"{a.que}: la prosa dice «{dicho.group(0).strip()}» y la salida midió {medido:g}")
    return problemas
