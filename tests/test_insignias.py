"""Lección 02: cada notebook se abre en Colab con un clic y se prepara solo.

Cada notebook empieza con su insignia «Abrir en Colab» y con la celda de arranque canónica;
``colab_badges.md`` está al día; la celda de arranque instala el curso solo en Colab o Kaggle, solo si
falta, y sin tocar el torch de Colab.
"""

import functools
import importlib.util
import json
import subprocess
import sys
import types
from pathlib import Path

import pytest

from curso_gpu.base import proyecto

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "herramientas"))
import insignias  # noqa: E402  (la herramienta de mantenimiento vive fuera del paquete)

RAIZ = Path(__file__).resolve().parent.parent
NOTEBOOKS = RAIZ / "notebooks"
PY = sorted(NOTEBOOKS.glob("[0-9][0-9]_*.py"))
IPYNB = sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))


def _ids(rutas):
    return [r.name for r in rutas]


@functools.cache
def _celdas(py: Path) -> list[tuple[str, str]]:
    """Las celdas de un ``.py`` (jupytext), leídas una sola vez por proceso y al usarlas, no al
    recoger las pruebas: leer los ocho notebooks con jupytext cuesta segundos de CPU."""
    return insignias.leer_celdas(py)


# --- El texto canónico ----------------------------------------------------------------------

def test_la_url_de_colab_sigue_el_formato_de_colab_para_github():
    assert insignias.url_colab("02_colab_t4_y_nube.ipynb") == (
        "https://colab.research.google.com/github/curso-gpu/curso_gpu/blob/main/notebooks/02_colab_t4_y_nube.ipynb"
    )


def test_la_insignia_es_un_enlace_markdown_con_la_imagen_de_colab():
    assert insignias.linea_insignia("01_deteccion_gpu.ipynb") == (
        "[![Abrir en Colab](https://colab.research.google.com/assets/colab-badge.svg)]"
        "(https://colab.research.google.com/github/curso-gpu/curso_gpu/blob/main/notebooks/01_deteccion_gpu.ipynb)"
    )


@pytest.mark.parametrize("nombre", ["02_colab.py", "2_colab.ipynb", "02 Colab.ipynb", "", None])
def test_un_nombre_de_notebook_raro_es_un_error_claro(nombre):
    with pytest.raises(ValueError, match="Nombre de notebook no válido") as error:
        insignias.url_colab(nombre)
    assert repr(nombre) in str(error.value)


def test_insignias_y_arranque_leen_la_direccion_de_proyecto(monkeypatch):
    """proyecto.py es el único sitio con la dirección: si cambia, cambian la insignia y la celda."""
    monkeypatch.setattr(proyecto, "PROPIETARIO", "otra-org")
    monkeypatch.setattr(proyecto, "REPOSITORIO", "otro_repo")
    monkeypatch.setattr(proyecto, "URL_GITHUB", "https://github.com/otra-org/otro_repo")
    assert "/github/otra-org/otro_repo/blob/main/notebooks/03_x.ipynb" in insignias.linea_insignia("03_x.ipynb")
    assert 'REPOSITORIO_CURSO = "https://github.com/otra-org/otro_repo"' in insignias.celda_arranque()
    assert "/v2/gh/otra-org/otro_repo/main?" in insignias.url_binder()


def test_la_celda_de_arranque_es_codigo_python_valido():
    compile(insignias.celda_arranque(), "<arranque>", "exec")


# --- Cada notebook del repositorio ----------------------------------------------------------

def test_hay_notebooks_de_lecciones():
    assert PY, "notebooks/ no tiene ningún NN_nombre.py"


@pytest.mark.parametrize("py", PY, ids=_ids(PY))
def test_cada_notebook_empieza_con_su_insignia_y_su_celda_de_arranque(py):
    problemas = insignias.problemas_del_notebook(py.with_suffix(".ipynb").name, _celdas(py))
    assert not problemas, "\n".join(problemas)


@pytest.mark.parametrize("ipynb", IPYNB, ids=_ids(IPYNB))
def test_el_ipynb_que_abre_colab_tambien(ipynb):
    problemas = insignias.problemas_del_notebook(ipynb.name, insignias.leer_celdas(ipynb))
    assert not problemas, "\n".join(problemas)


def test_colab_badges_md_esta_al_dia_y_sin_enlaces_rotos():
    problemas = insignias.comprobar(NOTEBOOKS, RAIZ / "colab_badges.md")
    assert not problemas, "\n".join(problemas)


def test_colab_badges_md_tiene_una_insignia_por_notebook():
    texto = (RAIZ / "colab_badges.md").read_text(encoding="utf-8")
    for ipynb in IPYNB:
        assert insignias.linea_insignia(ipynb.name) in texto


def test_el_readme_enlaza_las_insignias_y_ofrece_binder():
    readme = (RAIZ / "README.md").read_text(encoding="utf-8")
    seccion = readme.split("## Abrir en Google Colab", 1)[1].split("\n## ", 1)[0]
    assert "(colab_badges.md)" in seccion
    assert insignias.insignia_binder() in seccion
    assert "environment.yml" in seccion
    assert "<!-- colab -->" not in readme


def test_binder_construye_el_entorno_con_environment_yml():
    assert (RAIZ / "environment.yml").is_file()
    assert insignias.url_binder() == "https://mybinder.org/v2/gh/curso-gpu/curso_gpu/main?urlpath=lab/tree/notebooks"


# --- El detector, sobre copias temporales ---------------------------------------------------

def _notebook(carpeta: Path, nombre: str, primera: str | None = None, arranque: str | None = None, titulo="Prueba"):
    """Escribe un .ipynb mínimo; por defecto, correcto."""
    if primera is None:
        primera = insignias.linea_insignia(nombre) + f"\n\n# Lección {nombre[:2]} — {titulo}"
    celdas = [
        {"cell_type": "markdown", "metadata": {}, "source": primera.splitlines(keepends=True)},
        {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [],
         "source": insignias.celda_arranque() if arranque is None else arranque},
        {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [], "source": "print('hola')"},
    ]
    ruta = carpeta / nombre
    ruta.write_text(json.dumps({"cells": celdas, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}), encoding="utf-8")
    return ruta


@pytest.fixture
def copia(tmp_path):
    """Una carpeta notebooks/ temporal con dos lecciones correctas y su colab_badges.md."""
    carpeta = tmp_path / "notebooks"
    carpeta.mkdir()
    _notebook(carpeta, "01_uno.ipynb", titulo="La primera")
    _notebook(carpeta, "02_dos.ipynb", titulo="La segunda")
    archivo = tmp_path / "colab_badges.md"
    archivo.write_text(insignias.generar_insignias(carpeta), encoding="utf-8")
    return carpeta, archivo


def test_sobre_una_copia_correcta_no_hay_problemas(copia):
    assert insignias.comprobar(*copia) == []


def test_el_archivo_generado_tiene_el_titulo_de_cada_leccion_y_su_insignia(copia):
    carpeta, archivo = copia
    texto = archivo.read_text(encoding="utf-8")
    assert f"| 01 | La primera | {insignias.linea_insignia('01_uno.ipynb')} |" in texto
    assert f"| 02 | La segunda | {insignias.linea_insignia('02_dos.ipynb')} |" in texto
    assert insignias.insignia_binder() in texto


def test_un_notebook_sin_insignia_falla(copia):
    carpeta, archivo = copia
    _notebook(carpeta, "02_dos.ipynb", primera="# Lección 02 — La segunda")
    problemas = insignias.comprobar(carpeta, archivo)
    assert any("02_dos.ipynb: la primera línea debe ser su insignia" in p for p in problemas)


def test_una_insignia_que_apunta_a_otro_notebook_falla(copia):
    carpeta, archivo = copia
    ajena = insignias.linea_insignia("02_antiguo.ipynb")
    _notebook(carpeta, "02_dos.ipynb", primera=ajena + "\n\n# Lección 02 — La segunda")
    problemas = insignias.comprobar(carpeta, archivo)
    assert any("notebooks/02_antiguo.ipynb, que no existe" in p for p in problemas)


def test_un_titulo_con_otro_numero_de_leccion_falla(copia):
    carpeta, archivo = copia
    _notebook(carpeta, "02_dos.ipynb", primera=insignias.linea_insignia("02_dos.ipynb") + "\n\n# Lección 03 — Copia")
    assert any("título '# Lección 02 — ...'" in p for p in insignias.comprobar(carpeta, archivo))


@pytest.mark.parametrize("arranque", [
    "",
    "import curso_gpu",
    insignias.celda_arranque().replace('"-q", ', ""),
    insignias.celda_arranque().replace("curso-gpu/curso_gpu", "alguien/otro"),
])
def test_un_notebook_sin_la_celda_de_arranque_exacta_falla(copia, arranque):
    carpeta, archivo = copia
    _notebook(carpeta, "01_uno.ipynb", titulo="La primera", arranque=arranque)
    problemas = insignias.comprobar(carpeta, archivo)
    assert problemas == ["01_uno.ipynb: la segunda celda debe ser la celda de arranque exacta (herramientas/insignias.py: celda_arranque())"]


def test_una_insignia_de_colab_badges_que_apunta_a_un_archivo_que_no_existe_falla(copia):
    carpeta, archivo = copia
    (carpeta / "02_dos.ipynb").rename(carpeta / "02_renombrado.ipynb")
    problemas = insignias.comprobar(carpeta, archivo)
    assert "colab_badges.md: el enlace a Colab apunta a notebooks/02_dos.ipynb, que no existe" in problemas


def test_un_notebook_nuevo_deja_desactualizado_colab_badges(copia):
    carpeta, archivo = copia
    _notebook(carpeta, "03_tres.ipynb")
    assert insignias.comprobar(carpeta, archivo) == [
        "colab_badges.md está desactualizado: ejecuta `python herramientas/insignias.py`."
    ]


def test_cambiar_un_titulo_deja_desactualizado_colab_badges(copia):
    carpeta, archivo = copia
    _notebook(carpeta, "01_uno.ipynb", titulo="Otro título")
    assert any("desactualizado" in p for p in insignias.comprobar(carpeta, archivo))


def test_sin_colab_badges_md_lo_dice(copia):
    carpeta, archivo = copia
    archivo.unlink()
    assert insignias.comprobar(carpeta, archivo) == [f"No existe {archivo}: ejecuta `python herramientas/insignias.py`."]


def test_la_orden_escribe_el_archivo_y_comprobar_sale_con_error_si_esta_viejo(copia, capsys):
    carpeta, archivo = copia
    args = ["--notebooks", str(carpeta), "--salida", str(archivo)]
    _notebook(carpeta, "03_tres.ipynb")
    assert insignias.main(args + ["--comprobar"]) == 1
    assert "desactualizado" in capsys.readouterr().err
    assert insignias.main(args) == 0
    assert "03_tres.ipynb" in archivo.read_text(encoding="utf-8")
    assert insignias.main(args + ["--comprobar"]) == 0
    assert "está al día" in capsys.readouterr().out


def test_la_herramienta_comprobar_sale_con_error(copia):
    carpeta, archivo = copia
    archivo.write_text("viejo\n", encoding="utf-8")
    resultado = subprocess.run(
        [sys.executable, str(Path(insignias.__file__)), "--comprobar", "--notebooks", str(carpeta), "--salida", str(archivo)],
        capture_output=True, text=True, timeout=120,
    )
    assert resultado.returncode == 1
    assert "desactualizado" in resultado.stderr
    assert archivo.read_text(encoding="utf-8") == "viejo\n"


def test_la_orden_sin_notebooks_da_un_error_en_espanol(tmp_path, capsys):
    assert insignias.main(["--notebooks", str(tmp_path), "--salida", str(tmp_path / "x.md")]) == 2
    assert "no hay notebooks" in capsys.readouterr().err
    assert not (tmp_path / "x.md").exists()


# --- La decisión de la celda de arranque ----------------------------------------------------

def _ejecutar_arranque(codigo: str, monkeypatch, *, colab: bool, instalado: bool, kaggle: bool = False) -> list:
    """Ejecuta la celda con Colab (o Kaggle) y pip falsos; devuelve las órdenes que habría lanzado.

    Kaggle se reconoce como lo hace kagglehub: por su variable de entorno (``insignias.VARIABLE_KAGGLE``)."""
    ordenes = []
    monkeypatch.setattr(subprocess, "run", lambda orden, **opciones: ordenes.append((orden, opciones)))
    buscar = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec",
        lambda nombre, *resto: None if nombre == "curso_gpu" and not instalado else buscar(nombre, *resto),
    )
    if colab:
        monkeypatch.setitem(sys.modules, "google.colab", types.ModuleType("google.colab"))
    else:
        monkeypatch.delitem(sys.modules, "google.colab", raising=False)
    if kaggle:
        monkeypatch.setenv(insignias.VARIABLE_KAGGLE, "Interactive")
    else:
        monkeypatch.delenv(insignias.VARIABLE_KAGGLE, raising=False)
    exec(compile(codigo, "<celda de arranque>", "exec"), {})
    return ordenes


ARRANQUES = ["canónica", *_ids(PY)]  # la celda que genera la herramienta y la de cada notebook


def _arranque(nombre: str) -> str:
    """El código de la celda de arranque: la canónica o la segunda celda del notebook ``nombre``."""
    return insignias.celda_arranque() if nombre == "canónica" else _celdas(NOTEBOOKS / nombre)[1][1]


@pytest.mark.parametrize("arranque", ARRANQUES)
def test_en_colab_sin_el_curso_lo_instala_desde_github_sin_nombrar_torch(arranque, monkeypatch):
    ordenes = _ejecutar_arranque(_arranque(arranque), monkeypatch, colab=True, instalado=False)
    assert ordenes == [([sys.executable, "-m", "pip", "install", "-q", f"git+{proyecto.URL_GITHUB}"], {"check": True})]
    orden = ordenes[0][0]
    assert not any("torch" in parte for parte in orden)
    assert not {"-U", "--upgrade", "--force-reinstall"} & set(orden)


@pytest.mark.parametrize("arranque", ARRANQUES)
def test_en_kaggle_sin_el_curso_tambien_lo_instala_desde_github(arranque, monkeypatch):
    """Lección 08 («Pruébalo» con torchrun) y 12 (2 × T4) se siguen en Kaggle: la primera celda instala allí."""
    ordenes = _ejecutar_arranque(_arranque(arranque), monkeypatch, colab=False, kaggle=True, instalado=False)
    assert ordenes == [([sys.executable, "-m", "pip", "install", "-q", f"git+{proyecto.URL_GITHUB}"], {"check": True})]


@pytest.mark.parametrize("arranque", ARRANQUES)
def test_en_tu_computadora_la_celda_de_arranque_no_hace_nada(arranque, monkeypatch):
    assert _ejecutar_arranque(_arranque(arranque), monkeypatch, colab=False, instalado=False) == []


@pytest.mark.parametrize("arranque", ARRANQUES)
@pytest.mark.parametrize("colab, kaggle", [(True, False), (False, True)], ids=["colab", "kaggle"])
def test_en_colab_o_kaggle_con_el_curso_ya_instalado_no_reinstala(arranque, colab, kaggle, monkeypatch):
    assert _ejecutar_arranque(_arranque(arranque), monkeypatch, colab=colab, kaggle=kaggle, instalado=True) == []


def test_instalar_el_curso_no_reemplaza_el_torch_de_colab():
    """pip solo reinstala torch si no cumple lo pedido: el paquete pide solo cotas inferiores."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # Python 3.10 (lo permite requires-python): tomli, que requirements.txt instala allí
        import tomli as tomllib
    dependencias = tomllib.loads((RAIZ / "pyproject.toml").read_text(encoding="utf-8"))["project"]["dependencies"]
    torch = [d for d in dependencias if d.replace(" ", "").startswith("torch")]
    assert torch == ["torch>=2.1"]
    for dependencia in dependencias:
        assert not any(signo in dependencia for signo in ("==", "<", "~=", "===")), dependencia
