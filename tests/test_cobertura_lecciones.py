"""Cada línea de cada lección la ejecuta alguien antes que un alumno: en la CPU o en la T4 simulada.

Usa las dos ejecuciones de la orden del README (``leccion_ejecutada``), con la cobertura que mide
el kernel (``tests/cobertura_kernel.py``). Meta y marcas: ``tests/cobertura.py``. El detalle por
línea lo imprime ``benchmarks/cobertura_lecciones.py``.
"""

from pathlib import Path

import pytest
from cobertura import CONVERTIR_MARCAS, MARCA, MARCADAS_MAX, OBJETIVO, cobertura_de, leer_registros, marcas_antiguas_en
from ejecucion_compartida import ruta_de_leccion

LECCIONES = sorted(r.name[:2] for r in (Path(__file__).resolve().parent.parent / "notebooks").glob("[0-9][0-9]_*.ipynb"))


@pytest.mark.parametrize("numero", LECCIONES)
def test_cada_linea_de_la_leccion_se_ejecuta_en_la_cpu_o_en_la_t4_simulada(numero, leccion_ejecutada):
    registros = leer_registros([leccion_ejecutada.cobertura(numero), leccion_ejecutada.cobertura(numero, simulada=True)])
    resultado = cobertura_de(ruta_de_leccion(numero), registros)
    assert resultado.total > 0 and registros, f"la lección {numero} no dejó su cobertura"
    assert not resultado.marcas_sin_motivo and not resultado.marcas_antiguas, str(resultado)
    assert resultado.fraccion_marcadas < MARCADAS_MAX, f"demasiadas líneas marcadas «{MARCA}»:\n{resultado}"
    assert resultado.fraccion >= OBJETIVO, f"líneas que no ejecutó ninguna de las dos ejecuciones:\n{resultado}"


def test_una_linea_que_nadie_ejecuta_cuenta_como_no_ejecutada(tmp_path):
    import json

    import nbformat

    cuaderno = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        "x = 1\nif x > 5:\n    print('nunca')\ndescargar = 0  # solo se ejecuta con red: una descarga")])
    ruta = tmp_path / "99_prueba.ipynb"
    nbformat.write(cuaderno, ruta)
    fuente = cuaderno.cells[0].source + "\n"
    (tmp_path / "c.json").write_text(json.dumps({"celdas": [{"fuente": fuente, "ejecutadas": [1, 2]}]}))
    resultado = cobertura_de(ruta, leer_registros([tmp_path / "c.json", tmp_path / "no_existe.json"]))
    assert (resultado.total, resultado.ejecutadas, resultado.marcadas) == (3, 2, 1)
    assert [(c, n) for c, n, _ in resultado.sin_ejecutar] == [(0, 3)] and not resultado.cumple


def test_ninguna_leccion_lleva_la_marca_antigua_que_el_alumno_leia_como_una_nota_de_las_pruebas():
    """``# solo en una GPU real: en Colab`` junto a un pip install no le dice nada a quien sigue el curso."""
    carpeta = Path(__file__).resolve().parent.parent / "notebooks"
    antiguas = [f"{ruta.name}:{n}: {linea.strip()}" for ruta in sorted(carpeta.glob("[0-9][0-9]_*.py"))
                for n, linea in marcas_antiguas_en(ruta.read_text(encoding="utf-8"))]
    assert not antiguas, f"conviértelas con: {CONVERTIR_MARCAS}\n" + "\n".join(antiguas)


def test_una_marca_antigua_no_cuenta_como_marca_y_dice_como_convertirla(tmp_path):
    import nbformat

    cuaderno = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        "x = 1\ndescargar = 0  # solo en una GPU real: una descarga")])
    ruta = tmp_path / "99_prueba.ipynb"
    nbformat.write(cuaderno, ruta)
    resultado = cobertura_de(ruta, {})
    assert resultado.marcadas == 0 and [(c, n) for c, n, _ in resultado.marcas_antiguas] == [(0, 2)]
    assert not resultado.cumple and CONVERTIR_MARCAS in str(resultado)


CELDA_QUE_LO_EJECUTA_TODO = '''"""docstring de la celda"""
import functools
@functools.lru_cache
@functools.wraps(print)
def f(x,
      y):
    """docstring"""
    return (x +
            y)
class A:
    """docstring"""
    z = f(1, 2)
if A.z == 3:
    pass
elif A.z:
    pass
for i in range(2):
    if i == 0:
        continue
    else:
        [j for j in
         range(i)]
while False:
    pass
try:
    raise ValueError("a")
except KeyError:
    pass
except ValueError as error:
    mensaje = str(error)
finally:
    hecho = True
with open(__file__ if False else "/dev/null") as archivo:
    leido = archivo.read()
match mensaje:
    case "b":
        pass
    case "a":
        pass
g = lambda: (
    1)
'''


def test_las_marcas_del_kernel_cuentan_las_mismas_sentencias_que_coverage():
    """Lo que anota ``cobertura_kernel`` (marcas en el árbol de sintaxis) frente a lo que coverage.py
    cuenta como sentencias: las ejecutadas son sentencias, y lo que no se ejecutó, no se anota."""
    import ast
    import builtins

    from cobertura_kernel import MARCA, Marcador
    from coverage.parser import PythonParser

    analizador = PythonParser(text=CELDA_QUE_LO_EJECUTA_TODO)
    analizador.parse_source()
    anotadas: set[int] = set()
    setattr(builtins, MARCA, lambda celda, linea: anotadas.add(linea))
    try:
        arbol = ast.fix_missing_locations(Marcador(0).visit(ast.parse(CELDA_QUE_LO_EJECUTA_TODO)))
        exec(compile(arbol, "<celda>", "exec"), {"__file__": "<celda>"})
    finally:
        delattr(builtins, MARCA)
    lineas = CELDA_QUE_LO_EJECUTA_TODO.splitlines()
    assert anotadas <= analizador.statements, sorted(anotadas - analizador.statements)
    # Sin ejecutar, y por tanto sin anotar: la rama elif y su pass, el except KeyError (coverage lo
    # contaría al comparar el tipo; la marca, solo al entrar) y su pass, y el case "b" y su pass.
    no_tomadas = [lineas.index(texto) + 1 for texto in ("elif A.z:", "except KeyError:", '    case "b":')]
    assert analizador.statements - anotadas == {n + d for n in no_tomadas for d in (0, 1)}


@pytest.mark.lento  # arranca un kernel de Jupyter
def test_el_kernel_anota_cada_celda_con_sus_lineas_aunque_se_ejecuten_desde_otra(tmp_path):
    """Una función de la celda 0 que se ejecuta en la celda 1 cuenta para la celda 0; una rama no
    tomada no cuenta; una línea con ``%time`` (IPython transforma también su código) cuenta como
    una sentencia; y la lección ve los mismos nombres que sin medir."""
    import nbformat
    from ejecucion_compartida import ejecutar_notebook

    celdas = ["def f(x):\n    if x:\n        return 1\n    return 2",
              "import builtins\nnuevos = [n for n in dir() if not n.startswith('_')]\nf(0)\n%time y = 1\nz = 2",
              "print(sorted(nuevos))"]
    ruta = tmp_path / "99_cobertura.ipynb"
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in celdas]), ruta)
    destino = tmp_path / "cobertura.json"
    medida, sin_medir = ejecutar_notebook(ruta, cobertura=destino), ejecutar_notebook(ruta)
    nombres = [c.cells[2].outputs[0]["text"] for c in (medida, sin_medir)]
    assert nombres[0] == nombres[1] and "'f'" in nombres[0], nombres
    resultado = cobertura_de(ruta, leer_registros([destino]))
    assert resultado.total == 4 + 5 + 1
    assert [(c, n) for c, n, _ in resultado.sin_ejecutar] == [(0, 3)]  # «return 1»: f(0) no entra en el if
