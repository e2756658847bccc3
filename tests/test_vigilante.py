"""La vuelta rápida (``-m "not lento"``) vigilada: una prueba sin «lento» que arranca torchrun, un
kernel, un navegador o un entrenamiento en otro proceso falla y dice qué arrancó (``conftest.py``).

Se comprueba con un pytest aparte sobre un archivo de pruebas de mentira, con el ``conftest.py``
de la raíz: los procesos que arranca son ``python -c`` que no hacen nada (o que gastan CPU).
"""

import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

RAIZ = Path(__file__).resolve().parent.parent

PRUEBAS = '''
import subprocess, sys
import pytest
from lentas import fixture_lenta

NADA = [sys.executable, "-c", "pass"]

def test_rapida_que_lanza_torchrun():
    subprocess.run(NADA + ["-m", "torch.distributed.run", "--nproc_per_node=2"], check=True)

def test_rapida_que_arranca_un_kernel():
    subprocess.run(NADA + ["-m", "ipykernel_launcher", "-f", "x.json"], check=True)

def test_rapida_que_gasta_cpu_en_un_hijo():
    subprocess.run([sys.executable, "-c",
                    "import time\\nt = time.process_time()\\nwhile time.process_time() - t < 0.8: pass"], check=True)

@fixture_lenta
def torchrun():
    subprocess.run(NADA + ["torchrun"], check=True)

def test_con_una_fixture_lenta(torchrun):
    pass

@pytest.mark.lento
def test_lenta_que_lanza_torchrun():
    subprocess.run(NADA + ["-m", "torch.distributed.run"], check=True)

def test_rapida_con_un_proceso_corto():
    subprocess.run(NADA + ["--help"], check=True)
'''


@pytest.mark.lento  # otro pytest y un hijo que gasta 0,8 s de CPU
def test_una_prueba_rapida_que_arranca_algo_caro_falla_y_lo_dice(tmp_path):
    # El conftest.py de la raíz tal cual, con el límite de CPU de los hijos en 0,5 s en vez de
    # CPU_HIJOS_MAX_S: el mismo vigilante, y el hijo que lo pasa gasta 0,8 s, no más de 4.
    raiz = (RAIZ / "conftest.py").read_text(encoding="utf-8")
    limite = re.compile(r"^CPU_HIJOS_MAX_S = [\d.]+", re.MULTILINE)
    assert len(limite.findall(raiz)) == 1, "conftest.py ya no define CPU_HIJOS_MAX_S en una línea: actualiza esta prueba"
    (tmp_path / "conftest.py").write_text(limite.sub("CPU_HIJOS_MAX_S = 0.5", raiz), encoding="utf-8")
    (tmp_path / "test_falsas.py").write_text(textwrap.dedent(PRUEBAS), encoding="utf-8")
    entorno = {"PATH": "/usr/bin:/bin", "PYTHONPATH": f"{RAIZ / 'tests'}:{RAIZ}"}
    salida = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:nbval",
                             "-rA", "test_falsas.py"], cwd=tmp_path, env=entorno, capture_output=True, text=True,
                            timeout=120)
    texto = salida.stdout + salida.stderr
    assert "3 failed, 3 passed" in texto, texto
    for prueba, motivo in (("test_rapida_que_lanza_torchrun", "torchrun: "),
                           ("test_rapida_que_arranca_un_kernel", "un kernel de Jupyter: "),
                           ("test_rapida_que_gasta_cpu_en_un_hijo", "subprocesos que gastaron")):
        assert f"FAILED test_falsas.py::{prueba}" in texto, texto
        bloque = texto.split(f"_ {prueba} _", 1)[1].split("\n_", 1)[0]
        assert "no lleva la marca «lento» y arrancó" in bloque and motivo in bloque, bloque
    for prueba in ("test_con_una_fixture_lenta", "test_lenta_que_lanza_torchrun", "test_rapida_con_un_proceso_corto"):
        assert f"PASSED test_falsas.py::{prueba}" in texto, texto


# --- Qué deja fuera «-m "not lento"» ---------------------------------------------------------------
#
# Se recoge (sin ejecutar) un proyecto de mentira en este mismo proceso, con ``pytester``: dos
# archivos con un fixture ``ejecutado`` cada uno, uno declarado con ``fixture_lenta`` y otro normal
# (como tests/test_progreso_estatico.py y tests/test_widgets_exportados.py), y el mismo
# ``marcar_lentas`` que usa el conftest.py de la raíz.
pytest_plugins = ["pytester"]

CONFTEST_DE_MENTIRA = '''
from lentas import fixture_lenta, marcar_lentas

def pytest_collection_modifyitems(items):
    marcar_lentas(items)

@fixture_lenta
def base():
    return "torchrun"
'''
LENTA = '''
from lentas import fixture_lenta

@fixture_lenta(scope="module")
def ejecutado():
    return "un kernel de Jupyter"

def test_usa_la_lenta(ejecutado):
    pass
'''
RAPIDA = '''
import pytest

@pytest.fixture
def ejecutado():
    return "nada caro"

@pytest.fixture
def otra(ejecutado):
    return ejecutado

def test_usa_su_propio_ejecutado(ejecutado):
    pass

def test_lo_usa_a_traves_de_otra(otra):
    pass
'''
ENVUELVE = '''
import pytest

@pytest.fixture
def base(base):  # envuelve a la lenta del conftest.py: sigue siendo lenta
    return base

def test_envuelta(base):
    pass
'''


def test_solo_quien_usa_el_fixture_lento_sale_de_la_vuelta_rapida_aunque_otro_se_llame_igual(pytester):
    pytester.makeconftest(CONFTEST_DE_MENTIRA)
    pytester.makepyfile(test_lenta=LENTA, test_rapida=RAPIDA, test_envuelve=ENVUELVE)
    resultado = pytester.runpytest_inprocess("--collect-only", "-q", "-m", "not lento", "-p", "no:cacheprovider")
    elegidas = {linea for linea in resultado.outlines if "::" in linea}
    assert elegidas == {"test_rapida.py::test_usa_su_propio_ejecutado",
                        "test_rapida.py::test_lo_usa_a_traves_de_otra"}, resultado.outlines
    assert "2/4 tests collected (2 deselected)" in resultado.stdout.str(), resultado.outlines
