"""Ninguna lección escribe en stderr: el gancho de ``conftest.py`` hace fallar la celda que lo haga.

nbval ejecuta cada lección como prueba; el gancho mira las salidas de cada celda. Aquí se
comprueba el gancho mismo con un notebook de dos celdas, en un pytest aparte: una escribe en
stderr desde C (como el perfilador de PyTorch), la otra no.
"""

import shutil
import subprocess
import sys
from pathlib import Path

import nbformat

RAIZ = Path(__file__).resolve().parent.parent


def _notebook(ruta: Path, celdas: list[str], etiquetas: list[list[str]] | None = None) -> None:
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells = [nbformat.v4.new_code_cell(c, metadata={"tags": t}) for c, t in
                zip(celdas, etiquetas or [[] for _ in celdas])]
    nbformat.write(nb, ruta)


def test_una_celda_que_escribe_en_stderr_desde_c_falla_y_las_demas_no(tmp_path):
    shutil.copy(RAIZ / "conftest.py", tmp_path / "conftest.py")
    _notebook(tmp_path / "leccion.ipynb", [
        "import os\nos.write(2, b'USDT: ruido de C\\n')",   # como el perfilador de torch 2.13
        "print('hola')",
        "import sys\nprint('aviso que se enseña', file=sys.stderr)",
    ], [[], [], ["stderr-esperado"]])
    salida = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--nbval-lax",
                             "--nbval-current-env", "leccion.ipynb"], cwd=tmp_path, capture_output=True, text=True,
                            timeout=120)
    assert "1 failed, 2 passed" in salida.stdout, salida.stdout + salida.stderr
    assert "La celda 0 escribió en stderr" in salida.stdout and "USDT: ruido de C" in salida.stdout
