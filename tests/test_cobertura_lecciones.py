"""Cada línea de cada lección la ejecuta alguien antes que un alumno: en la CPU o en la T4 simulada.

Usa las dos ejecuciones de la orden del README (``leccion_ejecutada``), con la cobertura que mide
el kernel (``tests/cobertura_kernel.py``). Meta y marcas: ``tests/cobertura.py``. El detalle por
línea lo imprime ``benchmarks/cobertura_lecciones.py``.
"""

from pathlib import Path

import pytest
from cobertura import MARCADAS_MAX, OBJETIVO, cobertura_de, leer_registros
from ejecucion_compartida import ruta_de_leccion

LECCIONES = sorted(r.name[:2] for r in (Path(__file__).resolve().parent.parent / "notebooks").glob("[0-9][0-9]_*.ipynb"))


@pytest.mark.parametrize("numero", LECCIONES)
def test_cada_linea_de_la_leccion_se_ejecuta_en_la_cpu_o_en_la_t4_simulada(numero, leccion_ejecutada):
    registros = leer_registros([leccion_ejecutada.cobertura(numero), leccion_ejecutada.cobertura(numero, simulada=True)])
    resultado = cobertura_de(ruta_de_leccion(numero), registros)
    assert resultado.total > 0 and registros, f"la lección {numero} no dejó su cobertura"
    assert not resultado.marcas_sin_motivo, str(resultado)
    assert resultado.fraccion_marcadas < MARCADAS_MAX, f"demasiadas líneas marcadas «solo en una GPU real»:\n{resultado}"
    assert resultado.fraccion >= OBJETIVO, f"líneas que no ejecutó ninguna de las dos ejecuciones:\n{resultado}"


def test_una_linea_que_nadie_ejecuta_cuenta_como_no_ejecutada(tmp_path):
    import json

    import nbformat

    cuaderno = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        "x = 1\nif x > 5:\n    print('nunca')\ndescargar = 0  # solo en una GPU real: una descarga")])
    ruta = tmp_path / "99_prueba.ipynb"
    nbformat.write(cuaderno, ruta)
    fuente = cuaderno.cells[0].source + "\n"
    (tmp_path / "c.json").write_text(json.dumps({"celdas": [{"fuente": fuente, "ejecutadas": [1, 2]}]}))
    resultado = cobertura_de(ruta, leer_registros([tmp_path / "c.json", tmp_path / "no_existe.json"]))
    assert (resultado.total, resultado.ejecutadas, resultado.marcadas) == (3, 2, 1)
    assert [(c, n) for c, n, _ in resultado.sin_ejecutar] == [(0, 3)] and not resultado.cumple
