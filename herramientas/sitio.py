"""Herramienta de mantenimiento: el sitio web del curso, construido sin red.

    python herramientas/sitio.py                      # escribe _build/sitio/
    python herramientas/sitio.py --salida CARPETA     # en otra carpeta
    python herramientas/sitio.py --sin-ejecutar       # solo lo que ya está en la caché
    python herramientas/sitio.py --copias-de-las-pruebas   # también las copias de las pruebas (para probarlo)

No forma parte del paquete que importa quien sigue el curso. Necesita lo de
``requirements-sitio.txt`` (Sphinx, myst-nb y sphinx-book-theme). Ejecuta cada lección de
``notebooks/`` (las que haya, ``NN_nombre.ipynb``) de forma limpia (una tras otra, en orden, en una
carpeta de trabajo aparte: la 10 encuentra el adaptador de la 09), o reutiliza su copia limpia de la
caché (``herramientas/lecciones_ejecutadas.py``), y escribe un sitio estático: la portada con la
descripción y la tabla de lecciones del README, una página por lección con sus salidas y
figuras, en orden, con buscador, en español, con la insignia «Abrir en Colab» y un pie que dice
dónde y cuándo se produjeron las salidas. Las cifras medidas en una GPU de verdad
(``benchmarks/validar_en_gpu.py --json``, guardadas en ``benchmarks/resultados_gpu/``) tienen su
página y aparecen junto a lo que cada lección dice de la T4; si no hay ninguna, se dice.

Los widgets (la calculadora de la lección 04, la pizarra de la 05) y las barras de progreso se
ven como su copia fija en HTML: el sitio no guarda el estado de los widgets ni carga su
JavaScript (que vendría de internet).
"""

from __future__ import annotations

import copy
import html
import json
import re
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # para usarla sin instalar el paquete
import insignias  # noqa: E402  (herramientas/, la carpeta de este archivo)
import lecciones_ejecutadas as ejecutadas  # noqa: E402
from curso_gpu.base import AnalizadorArgumentos  # noqa: E402

RAIZ = Path(__file__).resolve().parent.parent
README = RAIZ / "README.md"
RESULTADOS_GPU = RAIZ / "benchmarks" / "resultados_gpu"
SALIDA = RAIZ / "_build" / "sitio"
MARCA = ".sitio_curso_gpu"  # un archivo en la carpeta de salida: solo se reemplaza una carpeta con él
INSIGNIA_LOCAL = "abrir-en-colab.svg"
PAGINA_GPU = "comprobado_en_gpu"
TITULO_GPU = "Comprobado en una GPU de verdad"
# La insignia «Abrir en Colab», dibujada aquí: la de Colab vive en internet y el sitio no usa la red.
SVG_COLAB = """<svg xmlns="http://www.w3.org/2000/svg" width="117" height="20" role="img" aria-label="Abrir en Colab">
<title>Abrir en Colab</title>
<rect width="117" height="20" rx="3" fill="#555"/>
<rect x="56" width="61" height="20" rx="3" fill="#f9ab00"/><rect x="56" width="6" height="20" fill="#f9ab00"/>
<g fill="#fff" font-family="DejaVu Sans,Verdana,Geneva,sans-serif" font-size="11">
<text x="7" y="14">Abrir en</text><text x="64" y="14">Colab</text></g></svg>
"""
# Lo que Sphinx escribe cuando falta un dato de conf.py: nunca debe llegar a una página.
MARCADORES_SPHINX = ("Author name not set", "Project name not set", "&lt;no title&gt;", "<no title>")
# Sin red ni estado de los widgets, la vista de un widget sería un hueco: gana su copia fija (HTML).
CONF_PY = """# Generado por herramientas/sitio.py: no lo edites a mano.
project = {proyecto!r}
language = "es"
html_show_copyright = False
extensions = ["myst_nb"]
nb_execution_mode = "off"
nb_mime_priority_overrides = [
    (constructor, "application/vnd.jupyter.widget-view+json", None) for constructor in ("html", "dirhtml", "singlehtml")
]
nb_ipywidgets_js = {{}}
html_theme = "sphinx_book_theme"
html_title = {proyecto!r}
html_copy_source = False
html_show_sourcelink = False
html_last_updated_fmt = None
html_theme_options = {{
    # Solo nuestro pie: el del tema empieza por «Por <autor>», y el curso no firma con un autor
    # (sin esto, Sphinx pone «Author name not set»).
    "footer_content_items": ["extra-footer.html"],
    "extra_footer": {pie!r},
    "show_toc_level": 2,
    "use_download_button": False,
    "use_fullscreen_button": False,
    "home_page_in_toc": True,
    "search_bar_text": "Buscar...",  # el tema no lo traduce
}}
exclude_patterns = ["_build", "**.ipynb_checkpoints"]
"""


# ---------------------------------------------------------------------------
# Cifras medidas en una GPU (benchmarks/validar_en_gpu.py --json)
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class ResultadoGPU:
    """Una afirmación de una lección comprobada en una GPU: lo medido y si se cumple."""

    leccion: str
    afirmacion: str
    medido: str
    pasa: bool


@dataclass(frozen=True)
class ValidacionGPU:
    """Un archivo de ``validar_en_gpu.py --json``: en qué GPU, cuándo y qué se comprobó."""

    archivo: str
    gpu: str
    fecha: str
    torch: str
    cuda: str
    resultados: list[ResultadoGPU] = field(default_factory=list)

    def de_leccion(self, numero: str) -> list[ResultadoGPU]:
        return [r for r in self.resultados if r.leccion == numero]


def leer_validaciones(carpeta: str | Path = RESULTADOS_GPU) -> list[ValidacionGPU]:
    """Las validaciones en GPU guardadas en ``carpeta`` (``*.json``), de la más nueva a la más vieja.

    Un archivo que no es de ``validar_en_gpu.py --json`` es un error que dice cuál y qué falta:
    nunca se muestra una cifra a medias.
    """
    validaciones = []
    for ruta in sorted(Path(carpeta).glob("*.json")):
        try:
            datos = json.loads(ruta.read_text(encoding="utf-8"))
            resultados = [ResultadoGPU(str(r["leccion"]), str(r["afirmacion"]), str(r["medido"]), bool(r["pasa"]))
                          for r in datos["resultados"]]
            validaciones.append(ValidacionGPU(ruta.name, str(datos["gpu"]), str(datos["fecha"]),
                                              str(datos.get("torch", "?")), str(datos.get("cuda", "?")), resultados))
        except (ValueError, KeyError, TypeError) as error:
            raise ValueError(
                f"{ruta} no es un resultado de `benchmarks/validar_en_gpu.py --json` ({type(error).__name__}: "
                f"{error}). Vuelve a generarlo en la GPU o quítalo de {Path(carpeta).name}/.") from error
    return sorted(validaciones, key=lambda v: v.fecha, reverse=True)


def _celda_tabla(texto: str) -> str:
    return html.escape(texto).replace("|", "\\|").replace("\n", " ")


def _tabla_resultados(resultados: list[ResultadoGPU], con_leccion: bool = True) -> list[str]:
    cabecera = ["Lección"] * con_leccion + ["Afirmación", "Medido", "Resultado"]
    filas = [f"| {' | '.join(cabecera)} |", f"|{'---|' * len(cabecera)}"]
    for r in resultados:
        columnas = [r.leccion] * con_leccion + [r.afirmacion, r.medido, "✅ PASS" if r.pasa else "❌ FAIL"]
        filas.append(f"| {' | '.join(_celda_tabla(c) for c in columnas)} |")
    return filas


def pagina_gpu(validaciones: list[ValidacionGPU]) -> str:
    """La página «Comprobado en una GPU de verdad» (MyST): cada validación, o que no hay ninguna."""
    lineas = [f"# {TITULO_GPU}", "",
              "Las lecciones se ejecutan en CPU y cuentan qué verías en una GPU T4. Lo que dicen de las GPU",
              "se comprueba en una de verdad con `python benchmarks/validar_en_gpu.py --json "
              "benchmarks/resultados_gpu/NOMBRE.json`: una línea PASS o FAIL por afirmación, con la cifra medida.", ""]
    if not validaciones:
        return "\n".join(lineas + [
            "```{important}",
            "Todavía no se ha registrado ninguna validación en una GPU de verdad: no hay ningún archivo en",
            "`benchmarks/resultados_gpu/`. Cuando alguien la ejecute en una máquina con GPU NVIDIA y guarde",
            "el archivo en el repositorio, aquí aparecerán la GPU, la fecha y el resultado de cada afirmación.",
            "```", ""])
    for v in validaciones:
        pasan = sum(r.pasa for r in v.resultados)
        lineas += [f"## {html.escape(v.gpu)}, {v.fecha}", "",
                   f"PyTorch {html.escape(v.torch)} · CUDA {html.escape(v.cuda)} · archivo `{v.archivo}` · "
                   f"**{pasan} de {len(v.resultados)}** afirmaciones se cumplen.", "",
                   *_tabla_resultados(v.resultados), ""]
    return "\n".join(lineas)


def nota_gpu(numero: str, validaciones: list[ValidacionGPU]) -> str:
    """El recuadro que va junto a lo que la lección ``numero`` dice de la T4 (MyST)."""
    enlace = f"[{TITULO_GPU}](../{PAGINA_GPU}.md)"
    if not validaciones:
        cuerpo = ["Todavía no se ha registrado ninguna validación en una GPU de verdad: las cifras de la GPU que",
                  f"ves en esta lección no se han medido aquí. Más en {enlace}."]
    else:
        con = next((v for v in validaciones if v.de_leccion(numero)), None)
        if con is None:
            v = validaciones[0]
            cuerpo = [f"La última validación en GPU ({html.escape(v.gpu)}, {v.fecha}) no comprueba nada de esta "
                      f"lección. Más en {enlace}."]
        else:
            cuerpo = [f"Medido en **{html.escape(con.gpu)}** el {con.fecha} (PyTorch {html.escape(con.torch)}):", "",
                      *_tabla_resultados(con.de_leccion(numero), con_leccion=False), "", f"Más en {enlace}."]
    return "\n".join(["````{admonition} Medido en una GPU de verdad", ":class: tip", "", *cuerpo, "````"])


# ---------------------------------------------------------------------------
# La portada, desde el README
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Leccion:
    """Una lección del sitio: su notebook, su página, su título y qué se aprende en ella."""

    ruta: Path
    titulo: str
    resumen: str

    @property
    def numero(self) -> str:
        return self.ruta.name[:2]

    @property
    def pagina(self) -> str:
        return f"lecciones/{self.ruta.stem}"


def partes_del_readme(texto: str) -> tuple[str, str, dict[str, tuple[str, str]]]:
    """Del README: el título, la descripción del curso y {notebook: (título, qué aprendes)} de su tabla."""
    titulo, descripcion, filas, seccion = "", [], {}, None
    for linea in texto.splitlines():
        if linea.startswith("# ") and not titulo:
            titulo, seccion = linea[2:].strip(), "descripcion"
        elif linea.startswith("## "):
            seccion = "lecciones" if linea[3:].strip() == "Lecciones" else "otra"
        elif seccion == "descripcion":
            descripcion.append(linea)
        elif seccion == "lecciones":
            fila = re.match(r"^\|\s*\d\d\s*\|\s*\[([^\]]+)\]\(notebooks/([^)]+\.ipynb)\)\s*\|\s*(.*?)\s*\|\s*$", linea)
            if fila:
                filas[fila.group(2)] = (fila.group(1), fila.group(3))
    return titulo, "\n".join(descripcion).strip(), filas


def lecciones_del_sitio(carpeta: str | Path = ejecutadas.NOTEBOOKS, readme: str | Path = README) -> list[Leccion]:
    """Las lecciones que hay en ``carpeta``, con el título y el resumen de la tabla del README.

    Una lección que el README aún no lista sale con el título de su notebook.
    """
    _, _, filas = partes_del_readme(Path(readme).read_text(encoding="utf-8"))
    lecciones = []
    for ruta in ejecutadas.lecciones(carpeta):
        titulo, resumen = filas.get(ruta.name, (None, ""))
        if titulo is None:
            propio = insignias.titulo(insignias.leer_celdas(ruta)) or ruta.stem
            titulo = propio.partition(" — ")[2] or propio
        lecciones.append(Leccion(ruta, titulo, resumen))
    return lecciones


def portada(readme: str, lecciones: list[Leccion]) -> str:
    """La página de inicio (MyST): el título y la descripción del README y la tabla de lecciones."""
    titulo, descripcion, _ = partes_del_readme(readme)
    filas = [f"| {l.numero} | [{_celda_tabla(l.titulo)}]({l.pagina}.ipynb) | {l.resumen} |"
             for l in lecciones]
    return "\n".join([
        f"# {titulo}", "", descripcion, "", "## Lecciones", "",
        "Cada lección se lee aquí con sus salidas y sus figuras, y se abre en Google Colab con su insignia.", "",
        "| # | Lección | Qué aprendes |", "|---|---------|--------------|", *filas, "",
        f"¿Qué se ha comprobado en una GPU de verdad? Míralo en [{TITULO_GPU}]({PAGINA_GPU}.md).", "",
        "```{toctree}", ":hidden:", ":caption: Lecciones", "", *[l.pagina for l in lecciones], "```", "",
        "```{toctree}", ":hidden:", ":caption: Para quien mantiene el curso", "", PAGINA_GPU, "```", "",
    ])


# ---------------------------------------------------------------------------
# Cada lección
# ---------------------------------------------------------------------------

def _donde_va_la_nota(cuaderno) -> int:
    """Tras qué celda va el recuadro de la GPU: la primera que cuenta qué verías en una T4."""
    texto = [(i, c.source) for i, c in enumerate(cuaderno.cells) if c.cell_type == "markdown" and i > 0]
    for condicion in (lambda s: "T4" in s and re.search(r"\bver[íi]as?\b|\bverás\b", s), lambda s: "T4" in s):
        for i, fuente in texto:
            if condicion(fuente):
                return i
    return 0


def pie_leccion(metadatos: dict | None) -> str:
    """La última celda de la página: dónde y cuándo se produjeron sus salidas."""
    if not metadatos:
        return ("---\n\n*Esta lección se muestra sin salidas: no había una ejecución guardada "
                "(el sitio se construyó con `--sin-ejecutar`).*")
    quien = "al ejecutar las pruebas" if metadatos.get("origen") == "pruebas" else "al construir el sitio"
    return (f"---\n\n*Salidas producidas el {metadatos['fecha']} en {metadatos['dispositivo']} "
            f"({quien}).*")


def preparar_leccion(cuaderno, ruta: Path, validaciones: list[ValidacionGPU]):
    """La copia de la lección que lee el sitio: insignia local, recuadro de la GPU, pie y sin widgets vivos."""
    import nbformat

    cuaderno = copy.deepcopy(cuaderno)
    cuaderno.metadata.pop("widgets", None)
    ejecutadas.sin_vistas_de_widget(cuaderno)
    for celda in cuaderno.cells:  # un print() vacío entre dos tablas sería un recuadro gris sin nada
        if "outputs" in celda:
            celda.outputs = [s for s in celda.outputs if s.get("output_type") != "stream" or s.get("text", "").strip()]
    primera = cuaderno.cells[0]
    if primera.cell_type == "markdown":
        primera.source = primera.source.replace(insignias.IMAGEN_COLAB, INSIGNIA_LOCAL)
    posicion = _donde_va_la_nota(cuaderno) + 1
    cuaderno.cells.insert(posicion, nbformat.v4.new_markdown_cell(nota_gpu(ruta.name[:2], validaciones)))
    cuaderno.cells.append(nbformat.v4.new_markdown_cell(pie_leccion(cuaderno.metadata.get(ejecutadas.METADATOS))))
    for celda in cuaderno.cells:  # ids únicos tras insertar celdas (nbformat 4.5)
        celda.pop("id", None)
    cuaderno.nbformat_minor = 4
    return cuaderno


def pie_del_sitio(metadatos: list[dict]) -> str:
    """El pie de todas las páginas (HTML): en qué dispositivos y fechas se produjeron las salidas."""
    if not metadatos:
        return "<p>Las lecciones se muestran sin salidas: ninguna se ejecutó para este sitio.</p>"
    dispositivos = sorted({m["dispositivo"] for m in metadatos})
    fechas = sorted(m["fecha"] for m in metadatos)
    cuando = fechas[0] if fechas[0] == fechas[-1] else f"entre el {fechas[0]} y el {fechas[-1]}"
    return (f"<p class='curso-pie'>Salidas de las lecciones producidas en {html.escape(' y '.join(dispositivos))}, "
            f"{'el ' if cuando == fechas[0] else ''}{cuando}. Sitio construido con Sphinx, myst-nb y "
            "sphinx-book-theme.</p>")


# ---------------------------------------------------------------------------
# Construir
# ---------------------------------------------------------------------------

@dataclass
class Informe:
    """Lo que hizo ``construir``: dónde, cuántas lecciones, de dónde salió cada una y cuánto tardó."""

    salida: Path
    lecciones: list[str]
    de_cache: list[str]
    ejecutadas: list[str]
    sin_salidas: list[str]
    segundos: float
    bytes: int

    def __str__(self) -> str:
        partes = [f"{len(self.de_cache)} de la caché", f"{len(self.ejecutadas)} ejecutadas ahora"]
        if self.sin_salidas:
            partes.append(f"{len(self.sin_salidas)} sin salidas ({', '.join(self.sin_salidas)})")
        return (f"Sitio escrito en {self.salida} en {self.segundos:.0f} s: {len(self.lecciones)} lecciones "
                f"({', '.join(partes)}), {self.bytes / 1e6:.1f} MB.\n"
                f"Ábrelo en el navegador: {self.salida / 'index.html'}")


def _comprobar_salida(salida: Path) -> None:
    if salida.is_symlink():
        raise ValueError(f"{salida} es un enlace simbólico: elige una carpeta de verdad con --salida.")
    if salida.exists() and (not salida.is_dir() or (any(salida.iterdir()) and not (salida / MARCA).is_file())):
        raise ValueError(f"{salida} ya existe y no es un sitio del curso: no la borro. Elige otra carpeta con "
                         "--salida o vacíala tú.")


def marcadores_en_paginas(carpeta: str | Path) -> dict[str, list[str]]:
    """Las páginas HTML de ``carpeta`` que muestran un marcador de Sphinx (``MARCADORES_SPHINX``), y cuáles."""
    encontrados = {}
    for pagina in sorted(Path(carpeta).rglob("*.html")):
        texto = pagina.read_text(encoding="utf-8", errors="replace")
        if hallados := [m for m in MARCADORES_SPHINX if m in texto]:
            encontrados[pagina.relative_to(carpeta).as_posix()] = hallados
    return encontrados


def _tamano(carpeta: Path) -> int:
    return sum(r.stat().st_size for r in carpeta.rglob("*") if r.is_file())


def construir(salida: str | Path = SALIDA, sin_ejecutar: bool = False, cache: str | Path = ejecutadas.CACHE,
              copias_de_las_pruebas: bool = False, avisar=print) -> Informe:
    """Ejecuta (o toma de la caché) las lecciones y escribe el sitio en ``salida``; devuelve un ``Informe``.

    Publica solo copias limpias (``lecciones_ejecutadas.ejecutar``: una lección tras otra, en orden,
    en una carpeta neutral). Las que guardan las pruebas (en paralelo, en una máquina ocupada) se
    usan solo con ``copias_de_las_pruebas`` (para comprobar el sitio, no para publicarlo).

    ``salida`` solo se reemplaza si es un sitio anterior (tiene el archivo ``.sitio_curso_gpu``) o
    está vacía. El sitio nuevo se escribe al lado y se pone en su sitio al final: si algo falla,
    el anterior queda como estaba.
    """
    import nbformat
    from sphinx.cmd.build import build_main

    inicio = time.monotonic()
    salida = Path(salida).resolve()
    _comprobar_salida(salida)
    lecciones = lecciones_del_sitio()
    if not lecciones:
        raise ValueError(f"No hay lecciones NN_nombre.ipynb en {ejecutadas.NOTEBOOKS}: no hay sitio que construir.")
    validaciones = leer_validaciones()
    paquete = ejecutadas.huella_paquete()
    solo_limpias = not copias_de_las_pruebas
    faltan = [l.ruta for l in lecciones if ejecutadas.leer(l.ruta, cache, paquete, solo_limpias) is None]
    if faltan and not sin_ejecutar:
        faltan = ejecutadas.con_previas(faltan, [l.ruta for l in lecciones])
    de_cache = [l.ruta.name for l in lecciones if l.ruta not in faltan]
    if de_cache:
        avisar(f"En la caché ({cache}): {', '.join(n[:2] for n in de_cache)}.")
    if faltan and not sin_ejecutar:
        avisar(f"Ejecutando {len(faltan)} lecciones, una tras otra y en orden, en una carpeta aparte: "
               f"{', '.join(r.name for r in faltan)}")
        ejecutadas.ejecutar(faltan, cache, avisar=avisar)

    salida.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".sitio-", dir=salida.parent) as temporal:
        fuente, nuevo = Path(temporal) / "fuente", Path(temporal) / "html"
        (fuente / "lecciones").mkdir(parents=True)
        (fuente / "lecciones" / INSIGNIA_LOCAL).write_text(SVG_COLAB, encoding="utf-8")
        metadatos, sin_salidas = [], []
        for leccion in lecciones:
            cuaderno = ejecutadas.leer(leccion.ruta, cache, paquete, solo_limpias)
            if cuaderno is None:
                sin_salidas.append(leccion.ruta.name)
                cuaderno = nbformat.read(leccion.ruta, as_version=4)
            else:
                metadatos.append(cuaderno.metadata[ejecutadas.METADATOS])
            nbformat.write(preparar_leccion(cuaderno, leccion.ruta, validaciones),
                           fuente / "lecciones" / leccion.ruta.name)
        readme = README.read_text(encoding="utf-8")
        (fuente / "index.md").write_text(portada(readme, lecciones), encoding="utf-8")
        (fuente / f"{PAGINA_GPU}.md").write_text(pagina_gpu(validaciones), encoding="utf-8")
        titulo = partes_del_readme(readme)[0]
        (fuente / "conf.py").write_text(CONF_PY.format(proyecto=titulo, pie=pie_del_sitio(metadatos)),
                                        encoding="utf-8")
        avisar(f"Escribiendo las páginas con Sphinx ({len(lecciones)} lecciones)...")
        codigo = build_main(["-b", "html", "-q", "-E", "-d", str(Path(temporal) / "doctrees"),
                             str(fuente), str(nuevo)])
        if codigo != 0:
            raise RuntimeError(f"Sphinx terminó con el código {codigo}: mira los mensajes de arriba.")
        if marcadores := marcadores_en_paginas(nuevo):
            raise RuntimeError("Sphinx dejó marcadores de datos que faltan en conf.py: "
                               + "; ".join(f"{p}: {', '.join(m)}" for p, m in list(marcadores.items())[:5]))
        (nuevo / MARCA).write_text("Sitio del curso (herramientas/sitio.py): se reemplaza entero.\n", encoding="utf-8")
        (nuevo / ".buildinfo").unlink(missing_ok=True)
        if salida.exists():
            viejo = Path(temporal) / "anterior"
            salida.rename(viejo)
        nuevo.rename(salida)
    return Informe(salida, [l.ruta.name for l in lecciones], de_cache, [r.name for r in faltan if not sin_ejecutar],
                   sin_salidas, time.monotonic() - inicio, _tamano(salida))


def main(argv: list[str] | None = None) -> int:
    """``python herramientas/sitio.py [--salida CARPETA] [--sin-ejecutar]``. Devuelve el código de salida."""
    analizador = AnalizadorArgumentos(
        prog="python herramientas/sitio.py",
        description="Construye el sitio web del curso (sin red) con las lecciones ejecutadas.",
    )
    analizador.add_argument("--salida", metavar="CARPETA", default=str(SALIDA),
                            help="dónde escribir el sitio (por defecto _build/sitio)")
    analizador.add_argument("--sin-ejecutar", action="store_true",
                            help="no ejecuta nada: usa la caché y muestra sin salidas las lecciones que falten")
    analizador.add_argument("--cache", metavar="CARPETA", default=str(ejecutadas.CACHE),
                            help="las lecciones ya ejecutadas (por defecto _build/ejecuciones)")
    analizador.add_argument("--copias-de-las-pruebas", action="store_true",
                            help="usa también las copias que guardan las pruebas (en paralelo, en una máquina "
                                 "ocupada): para comprobar el sitio, no para publicarlo")
    args = analizador.parse_args(argv)
    try:
        informe = construir(args.salida, args.sin_ejecutar, args.cache, args.copias_de_las_pruebas)
    except ModuleNotFoundError as error:
        print(f"Error: falta {error.name}. Instala lo del sitio: "
              "`.venv/bin/pip install -r requirements-sitio.txt`.", file=sys.stderr)
        return 2
    except (ValueError, ejecutadas.LeccionFallida, RuntimeError) as error:
        print(f"Error: {error}", file=sys.stderr)
        return 1
    print(informe)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
