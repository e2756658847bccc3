"""Herramienta de mantenimiento: las insignias «Abrir en Colab» y la celda de arranque de cada notebook.

No forma parte del paquete que importa quien sigue el curso. Desde la raíz del repositorio,
``python herramientas/insignias.py`` escribe ``colab_badges.md`` a partir de ``notebooks/``;
con ``--comprobar`` no escribe nada y termina con error si el archivo está desactualizado
o si algún notebook no empieza con su insignia y su celda de arranque.
La dirección del repositorio sale siempre de ``curso_gpu.base.proyecto``.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # para usarla sin instalar el paquete
from curso_gpu.base import proyecto  # noqa: E402
from curso_gpu.base import MENU_COLAB, AnalizadorArgumentos  # noqa: E402

RAIZ = Path(__file__).resolve().parent.parent  # la raíz del repositorio: esta herramienta vive en herramientas/
NOTEBOOKS = RAIZ / "notebooks"
ARCHIVO_INSIGNIAS = RAIZ / "colab_badges.md"
IMAGEN_COLAB = "https://colab.research.google.com/assets/colab-badge.svg"
IMAGEN_BINDER = "https://mybinder.org/badge_logo.svg"
PATRON_NOTEBOOK = "[0-9][0-9]_*.ipynb"
_URL_COLAB = re.compile(r"https://colab\.research\.google\.com/github/([^)\s]+)")
_NOMBRE = re.compile(r"^(\d\d)_[a-z0-9_]+\.ipynb$")


# ---------------------------------------------------------------------------
# El texto canónico
# ---------------------------------------------------------------------------

def _validar_nombre(nombre: str) -> str:
    if not isinstance(nombre, str) or not _NOMBRE.match(nombre):
        raise ValueError(
            f"Nombre de notebook no válido: {nombre!r}. Debe ser NN_nombre.ipynb, con dos cifras "
            "y letras minúsculas sin acentos, por ejemplo '02_colab_t4_y_nube.ipynb'."
        )
    return nombre


def url_colab(nombre: str) -> str:
    """La dirección que abre ``notebooks/<nombre>`` en Google Colab, desde GitHub. Lección 02."""
    _validar_nombre(nombre)
    return (
        f"https://colab.research.google.com/github/{proyecto.PROPIETARIO}/{proyecto.REPOSITORIO}"
        f"/blob/{proyecto.RAMA}/notebooks/{nombre}"
    )


def linea_insignia(nombre: str) -> str:
    """La primera línea de cada notebook: su insignia «Abrir en Colab». Lección 02."""
    return f"[![Abrir en Colab]({IMAGEN_COLAB})]({url_colab(nombre)})"


def url_binder() -> str:
    """La dirección que abre los notebooks en Binder (JupyterLab, solo CPU) con ``environment.yml``."""
    return (
        f"https://mybinder.org/v2/gh/{proyecto.PROPIETARIO}/{proyecto.REPOSITORIO}/{proyecto.RAMA}"
        "?urlpath=lab/tree/notebooks"
    )


def insignia_binder() -> str:
    """La insignia «Abrir en Binder» del README y de ``colab_badges.md``."""
    return f"[![Abrir en Binder]({IMAGEN_BINDER})]({url_binder()})"


MARCA_ARRANQUE = "# solo se ejecuta en Colab o Kaggle"
"""La instalación solo corre en Colab o Kaggle: la cobertura de las lecciones (tests/cobertura.py) no la cuenta."""

VARIABLE_KAGGLE = "KAGGLE_KERNEL_RUN_TYPE"
"""La variable de entorno que define todo notebook de Kaggle. Fuente: kagglehub, la biblioteca de Kaggle,
que la usa para saber si corre en un notebook de Kaggle (``KAGGLE_NOTEBOOK_ENV_VAR_NAME`` en
https://github.com/Kaggle/kagglehub/blob/main/src/kagglehub/env.py, leído el 7-12-2026). ``google.colab``
no sirve para Kaggle: su imagen parte de la de Colab, pero no importa ese módulo al arrancar."""


def celda_arranque() -> str:
    """El código exacto de la primera celda de código de cada notebook. Lección 02.

    En Colab o en Kaggle, y solo si ``curso_gpu`` no se puede importar, instala el paquete del curso
    desde GitHub. No nombra torch: el paquete pide solo cotas inferiores (``torch>=2.1``) y el
    torch de Colab y de Kaggle ya las cumple, así que pip lo deja como está.
    """
    return (
        "# Arranque: en Google Colab o en Kaggle, instala el paquete del curso si falta (en Kaggle,\n"
        "# activa antes Internet en las opciones del notebook). En tu computadora no hace nada:\n"
        "# allí lo instalas tú una vez, como dice el README del curso.\n"
        "import importlib.util, os, subprocess, sys\n"
        f'REPOSITORIO_CURSO = "{proyecto.URL_GITHUB}"\n'
        f'EN_COLAB_O_KAGGLE = "google.colab" in sys.modules or "{VARIABLE_KAGGLE}" in os.environ\n'
        'if EN_COLAB_O_KAGGLE and importlib.util.find_spec("curso_gpu") is None:\n'
        '    subprocess.run([sys.executable, "-m", "pip", "install", "-q", f"git+{REPOSITORIO_CURSO}"], check=True)'
        f"  {MARCA_ARRANQUE}"
    )


# ---------------------------------------------------------------------------
# Leer y comprobar notebooks
# ---------------------------------------------------------------------------

def leer_celdas(ruta: str | Path) -> list[tuple[str, str]]:
    """Las celdas de un notebook como pares (tipo, texto): de un ``.ipynb`` o de su ``.py`` (jupytext)."""
    ruta = Path(ruta)
    if ruta.suffix == ".py":
        import jupytext  # solo para quien mantiene el curso

        cuaderno = jupytext.read(ruta)
        return [(c.cell_type, c.source) for c in cuaderno.cells]
    datos = json.loads(ruta.read_text(encoding="utf-8"))
    celdas = []
    for celda in datos.get("cells", []):
        texto = celda.get("source", "")
        celdas.append((celda.get("cell_type", ""), "".join(texto) if isinstance(texto, list) else texto))
    return celdas


def titulo(celdas: list[tuple[str, str]]) -> str | None:
    """El título de la lección: el primer encabezado ``# ...`` de la primera celda de texto."""
    for tipo, texto in celdas:
        if tipo == "markdown":
            for linea in texto.splitlines():
                if linea.startswith("# "):
                    return linea[2:].strip()
            return None
    return None


def problemas_del_notebook(nombre: str, celdas: list[tuple[str, str]], carpeta: str | Path = NOTEBOOKS) -> list[str]:
    """Qué le falta a un notebook para abrirse bien en Colab (lista vacía: nada). Lección 02.

    La primera celda debe ser de texto y empezar con su insignia, que apunta a un archivo que
    existe en ``carpeta``, y con el título ``# Lección NN — ...``; la segunda, la celda de arranque.
    """
    nombre = _validar_nombre(nombre)
    problemas = []
    if not celdas or celdas[0][0] != "markdown":
        return [f"{nombre}: la primera celda debe ser de texto y empezar con {linea_insignia(nombre)}"]
    primera = celdas[0][1].splitlines()[0].strip() if celdas[0][1].strip() else ""
    if primera != linea_insignia(nombre):
        problemas.append(f"{nombre}: la primera línea debe ser su insignia {linea_insignia(nombre)}, y es {primera!r}")
    problemas += [f"{nombre}: {p}" for p in enlaces_rotos(celdas[0][1], carpeta)]
    leccion = titulo(celdas[:1])
    if not leccion or not leccion.startswith(f"Lección {nombre[:2]} — "):
        problemas.append(f"{nombre}: la primera celda debe tener el título '# Lección {nombre[:2]} — ...', y tiene {leccion!r}")
    if len(celdas) < 2 or celdas[1][0] != "code" or celdas[1][1].strip() != celda_arranque():
        problemas.append(f"{nombre}: la segunda celda debe ser la celda de arranque exacta (herramientas/insignias.py: celda_arranque())")
    return problemas


def enlaces_rotos(texto: str, carpeta: str | Path = NOTEBOOKS) -> list[str]:
    """Los enlaces a Colab de ``texto`` que no apuntan a un notebook que exista en ``carpeta``."""
    carpeta = Path(carpeta)
    prefijo = f"{proyecto.PROPIETARIO}/{proyecto.REPOSITORIO}/blob/{proyecto.RAMA}/notebooks/"
    rotos = []
    for destino in _URL_COLAB.findall(texto):
        if not destino.startswith(prefijo):
            rotos.append(f"el enlace a Colab {destino!r} no apunta a {prefijo}")
        elif not (carpeta / destino[len(prefijo):]).is_file():
            rotos.append(f"el enlace a Colab apunta a notebooks/{destino[len(prefijo):]}, que no existe")
    return rotos


# ---------------------------------------------------------------------------
# colab_badges.md
# ---------------------------------------------------------------------------

def notebooks(carpeta: str | Path = NOTEBOOKS) -> list[Path]:
    """Los notebooks de las lecciones (``NN_nombre.ipynb``), en orden."""
    return sorted(Path(carpeta).glob(PATRON_NOTEBOOK))


def generar_insignias(carpeta: str | Path = NOTEBOOKS) -> str:
    """El contenido de ``colab_badges.md``: una insignia por notebook, con su título. Lección 02."""

    filas = []
    for ruta in notebooks(carpeta):
        leccion = titulo(leer_celdas(ruta)) or ruta.stem
        numero, _, nombre = leccion.partition(" — ")
        filas.append(f"| {ruta.name[:2]} | {nombre or numero} | {linea_insignia(ruta.name)} |")
    if not filas:
        raise ValueError(f"No hay notebooks NN_nombre.ipynb en {carpeta}: no puedo generar las insignias.")
    return "\n".join([
        "# Abrir las lecciones en Google Colab",
        "",
        "<!-- Generado con `python herramientas/insignias.py` a partir de notebooks/. No lo edites a mano. -->",
        "",
        "Haz clic en la insignia de una lección para abrirla en Google Colab. Después elige el menú",
        f"**{MENU_COLAB}** y ejecuta las celdas en orden.",
        "La primera instala el paquete del curso (también en Kaggle), sin tocar el PyTorch que ya traen.",
        "",
        "| # | Lección | Abrir |",
        "|---|---------|-------|",
        *filas,
        "",
        "Sin cuenta de Google, ábrelas en Binder (JupyterLab en el navegador, solo CPU, con `environment.yml`):",
        "",
        insignia_binder(),
        "",
    ])


def comprobar(carpeta: str | Path = NOTEBOOKS, archivo: str | Path = ARCHIVO_INSIGNIAS) -> list[str]:
    """Todo lo que está mal (lista vacía: nada): notebooks sin insignia o sin arranque,
    enlaces rotos en ``archivo`` y ``archivo`` desactualizado. Lección 02."""
    archivo = Path(archivo)
    problemas = []
    for ruta in notebooks(carpeta):
        problemas += problemas_del_notebook(ruta.name, leer_celdas(ruta), carpeta)
    if not archivo.is_file():
        return problemas + [f"No existe {archivo}: ejecuta `python herramientas/insignias.py`."]
    texto = archivo.read_text(encoding="utf-8")
    problemas += [f"{archivo.name}: {p}" for p in enlaces_rotos(texto, carpeta)]
    if texto != generar_insignias(carpeta):
        problemas.append(f"{archivo.name} está desactualizado: ejecuta `python herramientas/insignias.py`.")
    return problemas


def main(argv: list[str] | None = None) -> int:
    """``python herramientas/insignias.py [--comprobar]``. Devuelve el código de salida."""
    analizador = AnalizadorArgumentos(
        prog="python herramientas/insignias.py",
        description="Escribe colab_badges.md (una insignia «Abrir en Colab» por notebook) a partir de notebooks/.",
    )
    analizador.add_argument("--comprobar", action="store_true",
                            help="no escribe nada; termina con error si algo está mal o desactualizado")
    analizador.add_argument("--notebooks", metavar="CARPETA", default=str(NOTEBOOKS), help="carpeta de los notebooks")
    analizador.add_argument("--salida", metavar="ARCHIVO", default=str(ARCHIVO_INSIGNIAS), help="archivo a escribir")
    args = analizador.parse_args(argv)

    carpeta, salida = Path(args.notebooks), Path(args.salida)
    if not notebooks(carpeta):
        print(f"Error: no hay notebooks NN_nombre.ipynb en {carpeta}.", file=sys.stderr)
        return 2
    if args.comprobar:
        problemas = comprobar(carpeta, salida)
        for problema in problemas:
            print(f"- {problema}", file=sys.stderr)
        if problemas:
            print(f"{len(problemas)} problema(s). Corrige los notebooks y ejecuta `python herramientas/insignias.py`.", file=sys.stderr)
            return 1
        print(f"{salida.name} está al día y los {len(notebooks(carpeta))} notebooks abren bien en Colab.")
        return 0
    salida.write_text(generar_insignias(carpeta), encoding="utf-8")
    print(f"Escrito {salida} con {len(notebooks(carpeta))} insignias.")
    for problema in comprobar(carpeta, salida):
        print(f"Aviso: {problema}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
