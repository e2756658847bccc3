"""Presentar datos como texto o como HTML: números, informes de pares (qué, valor), tablas y tiempos.

Toda tabla del curso, en la terminal o en el notebook, sale de aquí: ``tabla_texto``/``tabla_html``
para pares (qué, valor) y ``Tabla`` para varias columnas con cabecera.

Lo usan las dataclasses del paquete (``InformeEntorno``, ``InformeColab``, ``Medicion``,
``ResultadoMatmul``...) en su ``__str__`` y su ``_repr_html_``: los datos viven en ellas y aquí
solo se decide cómo se ven en la terminal y en el notebook. Del paquete solo usa ``numeros``.

``formatear_numero`` es la única forma de escribir un número en el curso: punto decimal,
espacio de millares desde cuatro cifras y la unidad tras un espacio («1 130 GB», «22 %»).
``formatear_bytes``, la única de escribir un tamaño (memoria, archivos, checkpoints).
``contar`` escribe una cantidad con su nombre en singular o plural («1 hilo», «2 hilos»), y
``mostrar_ruta``, una ruta como la ve quien sigue la lección (relativa a su carpeta de trabajo).
"""

from __future__ import annotations

import html
import math
import re
from dataclasses import dataclass, field
from pathlib import Path

from .numeros import leer_numero

__all__ = [
    "Celda", "ComoTabla", "Tabla", "contar", "formatear_bytes", "formatear_numero", "formatear_tiempo",
    "informe_html", "informe_texto", "mostrar_ruta", "tabla_html", "tabla_texto",
    "AVISO_SIMULADA", "MARCA_SIMULADA", "marcar_simulada",
]


def formatear_numero(valor: float, decimales: int | None = None, unidad: str = "",
                     cifras: int | None = None) -> str:
    """Un número como lo escribe el curso, en las salidas y en el texto de las lecciones.

    Punto decimal (como lo escribe Python), un espacio como separador de millares desde cuatro
    cifras y la unidad tras un espacio, también el «%»:

    >>> formatear_numero(124439808)
    '124 439 808'
    >>> formatear_numero(15360, unidad="MiB")
    '15 360 MiB'
    >>> formatear_numero(1130, unidad="GB")
    '1 130 GB'
    >>> formatear_numero(22, unidad="%")
    '22 %'
    >>> formatear_numero(12.6, 2, "$")
    '12.60 $'
    >>> formatear_numero(0.0015349, cifras=3, unidad="GFLOP/s")
    '0.00153 GFLOP/s'

    ``decimales``: cuántos decimales; ``cifras``: cuántas cifras significativas (sin notación
    científica). Sin ninguno de los dos, un entero se escribe entero y un decimal con hasta 6
    cifras significativas (``1000.5`` → ``'1000.5'``).
    """
    if isinstance(valor, bool) or not isinstance(valor, (int, float)):
        try:
            valor = float(valor)  # numpy, un tensor de un elemento...
        except (TypeError, ValueError):
            raise ValueError(f"formatear_numero espera un número; recibí {valor!r}.") from None
    if isinstance(valor, float) and not math.isfinite(valor):
        texto = "∞" if valor > 0 else "−∞" if valor < 0 else "—"
        return f"{texto} {unidad}" if unidad else texto
    if decimales is None and cifras is None and isinstance(valor, float) and not valor.is_integer():
        corto = f"{valor:.6g}"
        if "e" in corto:
            cifras = 3
        else:
            decimales = len(corto.partition(".")[2])
    if cifras is not None and decimales is None:
        decimales = 0 if valor == 0 else max(0, cifras - 1 - math.floor(math.log10(abs(valor))))
    texto = f"{valor:.{decimales}f}" if decimales is not None else str(int(valor))
    signo = "-" if texto.startswith("-") else ""
    entero, _, fraccion = texto.lstrip("-").partition(".")
    if len(entero) >= 4:
        grupos = []
        while entero:
            grupos.insert(0, entero[-3:])
            entero = entero[:-3]
        entero = " ".join(grupos)
    texto = signo + entero + (f".{fraccion}" if fraccion else "")
    return f"{texto} {unidad}" if unidad else texto


_UNIDADES_BYTES = (("GB", 10**9), ("MB", 10**6), ("kB", 10**3))
"""Potencias de 10, como los fabricantes de GPU y de discos (1 GB = 10⁹ bytes; nvidia-smi usa MiB)."""


def formatear_bytes(n_bytes) -> str:
    """Un tamaño en bytes escrito como lo lee una persona. Lecciones 04 y 07.

    >>> formatear_bytes(128e9), formatear_bytes(297.6e6), formatear_bytes(40_000), formatear_bytes(512)
    ('128.0 GB', '298 MB', '40.0 kB', '512 bytes')

    Unidades de potencias de 10 (kB, MB, GB). GB siempre con un decimal (como las tablas de la
    lección 04: «19.2 GB», «128.0 GB»); kB y MB con un decimal por debajo de 100 y ninguno desde
    100 («1.2 MB», «298 MB»). Acepta enteros y decimales de NumPy y ``Decimal``; rechaza en español lo negativo, NaN,
    lo infinito y lo que no es un número.
    """
    numero = leer_numero(n_bytes, "n_bytes", minimo=0, ejemplo="n_bytes=19.2e9")
    for unidad, tamano in _UNIDADES_BYTES:
        valor = numero / tamano
        if round(valor, 1) >= 1:  # 999 960 bytes son «1.0 MB», no «1000.0 kB»
            return formatear_numero(valor, 1 if unidad == "GB" or round(valor, 1) < 100 else 0, unidad)
    return f"{round(numero)} bytes"


def informe_texto(titulo: str, filas: list[tuple[str, str]], titulo_avisos: str, avisos: list[str]) -> str:
    """El informe como texto: título subrayado, una fila alineada por par y los avisos con guiones."""
    ancho = max((len(k) for k, _ in filas), default=0)
    lineas = [titulo, "=" * len(titulo)]
    lineas += [f"{k:<{ancho}}  {v}" for k, v in filas]
    if avisos:
        lineas += ["", f"{titulo_avisos}:"] + [f"- {a}" for a in avisos]
    return "\n".join(lineas)


def _celdas(filas: list[tuple[str, str]]) -> str:
    return "".join(
        f"<tr><th style='text-align:left'>{html.escape(k)}</th>"
        f"<td style='text-align:left'>{html.escape(v)}</td></tr>"
        for k, v in filas
    )


def informe_html(titulo: str, filas: list[tuple[str, str]], titulo_avisos: str, avisos: list[str]) -> str:
    """El informe como tabla HTML para el notebook; los saltos de línea de un aviso se respetan."""
    celdas = _celdas(filas)
    lista = "".join(f"<li>{html.escape(a).replace(chr(10), '<br>')}</li>" for a in avisos)
    return (
        f"<div><b>{html.escape(titulo)}</b><table>{celdas}</table>"
        + (f"<b>{html.escape(titulo_avisos)}</b><ul>{lista}</ul>" if avisos else "")
        + "</div>"
    )


def tabla_texto(titulo: str, filas: list[tuple[str, str]], avisos: list[str] = ()) -> str:
    """Una tabla corta como texto: el título, una fila sangrada y alineada por par y los avisos («¡Ojo!»)."""
    ancho = max((len(k) for k, _ in filas), default=0)
    return "\n".join([titulo] + [f"  {k:<{ancho}}  {v}" for k, v in filas] + [f"  ¡Ojo! {a}" for a in avisos])


def tabla_html(titulo: str, filas: list[tuple[str, str]], avisos: list[str] = ()) -> str:
    """La misma tabla en HTML, con los avisos en rojo debajo."""
    lista = "".join(f"<p style='color:#b00'>¡Ojo! {html.escape(a)}</p>" for a in avisos)
    return f"<div><b>{html.escape(titulo)}</b><table>{_celdas(filas)}</table>{lista}</div>"


def formatear_tiempo(segundos: float) -> str:
    """Segundos (0 o más, finitos) en la unidad que se lee bien: «1.234 s», «12.345 ms» o «56.7 µs»."""
    segundos = leer_numero(segundos, "segundos", minimo=0, ejemplo="segundos=0.0123")
    if segundos >= 1:
        return f"{segundos:.3f} s"
    if segundos >= 1e-3:
        return f"{segundos * 1e3:.3f} ms"
    return f"{segundos * 1e6:.1f} µs"


def _plural(singular: str) -> str:
    """El plural regular en español: vocal sin tilde + «s»; lo demás + «es» (la «z» pasa a «c»).
    Las siglas no cambian: «2 GPU», «2 CPU» (la RAE: las siglas son invariables por escrito)."""
    ultima = singular.split()[-1]
    if ultima.isupper():
        return singular
    if singular[-1] in "aeiouáéó":
        return singular + "s"
    if singular.endswith("z"):
        return singular[:-1] + "ces"
    sin_tilde = singular.translate(str.maketrans("áéíóú", "aeiou")) if singular[-2:-1] in "áéíóú" else singular
    return sin_tilde + "es"


def contar(cantidad, singular: str, plural: str | None = None) -> str:
    """Una cantidad con su nombre concordado: «1 hilo», «2 hilos», «1 proceso», «0 procesos». Lección 01.

    El plural se forma solo (``hilo`` → ``hilos``, ``capa`` → ``capas``, ``rango`` → ``rangos``,
    ``canción`` → ``canciones``); para uno irregular, dalo en ``plural``. El número sale de
    ``formatear_numero`` («1 024 hilos»). Varias palabras concuerdan todas si das ``plural``:
    ``contar(n, "programa lanzado", "programas lanzados")``.
    """
    numero = leer_numero(cantidad, "cantidad", ejemplo="contar(2, 'hilo')")
    if not isinstance(singular, str) or not singular.strip():
        raise ValueError(f"singular debe ser la palabra en singular, p. ej. 'hilo'; recibí {singular!r}.")
    palabra = singular if numero == 1 else (plural if plural is not None else _plural(singular))
    return f"{formatear_numero(numero)} {palabra}"


def mostrar_ruta(ruta) -> str:
    """Una ruta como la ve quien sigue la lección: relativa a la carpeta de trabajo si está dentro de
    ella (``checkpoints/lora_diminuto/adaptador``), y entera si no (``/content/drive/MyDrive/...``)."""
    ruta = Path(ruta)
    if not ruta.is_absolute():
        return str(ruta)
    try:
        return str(ruta.relative_to(Path.cwd()))
    except ValueError:
        return str(ruta)


# ---------------------------------------------------------------------------
# Tablas de varias columnas
# ---------------------------------------------------------------------------

# «38.4 GB», «0.9876», «12 %», «1.25x», «6.67B», «~16», «124 439 808»: un número con, como mucho, una unidad corta.
_NUMERO = re.compile(r"^[~≈+\-−]?\d[\d .]*(?:\s?[^\s\d()]{1,8})?$")


@dataclass
class Celda:
    """Una celda con algo más que texto: un estilo CSS (p. ej. un veredicto en rojo) o una barra.

    ``barra``: una fracción entre 0 y 1 que el HTML dibuja como barra tras el texto (la
    terminal muestra solo el texto).
    """

    texto: str
    estilo: str = ""
    barra: float | None = None


def _texto_de(celda) -> str:
    if isinstance(celda, Celda):
        return celda.texto
    if isinstance(celda, (int, float)) and not isinstance(celda, bool):
        return formatear_numero(celda)
    return str(celda)


def _es_numero(celda) -> bool:
    return bool(_NUMERO.match(_texto_de(celda)))


@dataclass
class Tabla:
    """Una tabla de varias columnas que se ve bien en la terminal (``str``) y en el notebook (HTML).

    >>> print(Tabla("Memoria", ["parte", "memoria"], [["pesos", "1.20 MB"], ["activaciones", "300.0 kB"]]))
    Memoria
      parte          memoria
      pesos          1.20 MB
      activaciones  300.0 kB

    ``columnas``: la cabecera (vacía: sin cabecera). ``filas``: listas de celdas (texto, número,
    que se escribe con ``formatear_numero``, o ``Celda``). Una columna de números se alinea a la
    derecha; una de texto, a la izquierda. ``total``: una última fila destacada. ``notas``: frases
    debajo de la tabla. ``subtitulo``: una aclaración tras el título. ``ids_filas``: un nombre por
    fila que el HTML guarda en ``data-<nombre_id>`` (para buscar una fila desde una prueba o un
    widget). ``grafico_html``: HTML ya hecho (una barra) que va entre el título y la tabla.
    """

    titulo: str
    columnas: list[str]
    filas: list[list]
    notas: list[str] = field(default_factory=list)
    total: list | None = None
    subtitulo: str = ""
    ids_filas: list[str] | None = None
    nombre_id: str = "fila"
    grafico_html: str = ""

    def _todas(self) -> list[list]:
        return self.filas + ([self.total] if self.total is not None else [])

    def _a_la_derecha(self) -> list[bool]:
        ancho = max((len(f) for f in [self.columnas] + self._todas()), default=0)
        return [any(i < len(f) and _texto_de(f[i]) for f in self._todas())
                and all(_es_numero(f[i]) for f in self._todas() if i < len(f) and _texto_de(f[i]))
                for i in range(ancho)]

    def __str__(self) -> str:
        derecha = self._a_la_derecha()
        filas = ([self.columnas] if self.columnas else []) + self._todas()
        textos = [[_texto_de(c) for c in f] + [""] * (len(derecha) - len(f)) for f in filas]
        anchos = [max(len(f[i]) for f in textos) for i in range(len(derecha))]
        lineas = [self.titulo + (f" {self.subtitulo}" if self.subtitulo else "")]
        for f in textos:
            celdas = [t.rjust(a) if d else t.ljust(a) for t, a, d in zip(f, anchos, derecha)]
            lineas.append(("  " + "  ".join(celdas)).rstrip())
        return "\n".join(lineas + [f"  {n}" for n in self.notas])

    def _repr_html_(self) -> str:
        derecha = self._a_la_derecha()

        def celda(c, etiqueta: str, i: int) -> str:
            estilo = "text-align:" + ("right" if derecha[i] else "left")
            barra = ""
            if isinstance(c, Celda):
                estilo += f";{c.estilo}" if c.estilo else ""
                if c.barra is not None:
                    ancho = 100 * min(max(c.barra, 0.0), 1.0)
                    barra = (f"<span style='display:inline-block;vertical-align:middle;margin-left:6px;"
                             f"width:{ancho:.0f}px;height:0.9em;background:#4c72b0'></span>")
            return f"<{etiqueta} style='{estilo}'>{html.escape(_texto_de(c))}{barra}</{etiqueta}>"

        def fila(celdas, etiqueta: str, id_fila: str | None = None) -> str:
            atributo = f" data-{self.nombre_id}='{html.escape(id_fila, quote=True)}'" if id_fila is not None else ""
            return f"<tr{atributo}>" + "".join(celda(c, etiqueta, i) for i, c in enumerate(celdas)) + "</tr>"

        ids = self.ids_filas or [None] * len(self.filas)
        cuerpo = "".join(fila(f, "td", i) for f, i in zip(self.filas, ids))
        cabecera = fila(self.columnas, "th") if self.columnas else ""
        pie = fila(self.total, "th") if self.total is not None else ""
        subtitulo = f" <span>{html.escape(self.subtitulo)}</span>" if self.subtitulo else ""
        notas = "".join(f"<p>{html.escape(n)}</p>" for n in self.notas)
        return (f"<div><b>{html.escape(self.titulo)}</b>{subtitulo}{self.grafico_html}"
                f"<table>{cabecera}{cuerpo}{pie}</table>{notas}</div>")


class ComoTabla:
    """Para las dataclasses que se ven como una ``Tabla``: definen ``tabla()`` y de ahí salen
    su texto (``print``) y su HTML (el notebook)."""

    def tabla(self) -> Tabla:
        raise NotImplementedError

    def __str__(self) -> str:
        return str(self.tabla())

    def _repr_html_(self) -> str:
        return self.tabla()._repr_html_()

    def _repr_pretty_(self, p, ciclo: bool) -> None:
        """El texto de IPython (una consola, o el ``text/plain`` del notebook): la tabla, con sus cifras
        redondeadas y la marca de la GPU simulada, no el ``repr`` de la dataclass con los números en crudo."""
        p.text(str(self))

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        # IPython prefiere el __repr__ que @dataclass escribe en la subclase a un _repr_pretty_ heredado:
        # cada subclase lleva el suyo.
        if "_repr_pretty_" not in cls.__dict__:
            cls._repr_pretty_ = ComoTabla._repr_pretty_


# La marca de lo medido en la GPU simulada (``CURSO_GPU_SIMULAR``): la GPU «calcula» en la CPU, así que
# cada tiempo, ritmo o aceleración medido en ella es de la CPU. Quien lo imprime lo dice donde lo imprime
# (como la lección 11 con el intérprete de Triton), para que nadie lo tome por una cifra de una GPU.
MARCA_SIMULADA = "GPU simulada: tiempos de la CPU"
AVISO_SIMULADA = "Medido en la GPU simulada: son tiempos de la CPU, no dicen nada de una GPU."


def marcar_simulada(texto: str, simulada: bool) -> str:
    """``texto`` con la marca «[GPU simulada: tiempos de la CPU]» detrás si ``simulada``; si no, tal cual."""
    return f"{texto} [{MARCA_SIMULADA}]" if simulada else texto
