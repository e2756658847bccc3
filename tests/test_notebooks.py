"""Los notebooks del curso: emparejados con su .py, sincronizados, sin salidas y pidiendo GPU T4 a Colab.

Que cada notebook se ejecuta entero lo comprueba su propia prueba (``conftest.py`` recoge ``notebooks/NN_*.ipynb``).
"""

import json
from pathlib import Path

import jupytext
import pytest

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
IPYNB = sorted(NOTEBOOKS.glob("*.ipynb"))
PY = sorted(NOTEBOOKS.glob("[0-9][0-9]_*.py"))


def _ids(rutas):
    return [r.name for r in rutas]


def test_hay_notebooks():
    assert IPYNB, "notebooks/ no tiene ningún .ipynb"


@pytest.mark.parametrize("ipynb", IPYNB, ids=_ids(IPYNB))
def test_cada_notebook_tiene_su_py(ipynb):
    assert ipynb.with_suffix(".py").exists(), f"{ipynb.name} no tiene pareja {ipynb.stem}.py"


@pytest.mark.parametrize("py", PY, ids=_ids(PY))
def test_cada_py_tiene_su_notebook(py):
    assert py.with_suffix(".ipynb").exists(), f"{py.name} no tiene pareja {py.stem}.ipynb"


@pytest.mark.parametrize("ipynb", IPYNB, ids=_ids(IPYNB))
def test_pareja_sincronizada(ipynb):
    """El .ipynb convertido a texto es igual al .py (las fechas de los archivos no cuentan)."""
    config = jupytext.config.load_jupytext_config(str(ipynb))
    texto = jupytext.writes(jupytext.read(ipynb), fmt="py:percent", config=config)
    py = ipynb.with_suffix(".py").read_text(encoding="utf-8")
    assert texto.strip() == py.strip(), (
        f"{ipynb.name} y {ipynb.stem}.py no coinciden: ejecuta `jupytext --sync notebooks/{ipynb.stem}.py`"
    )


@pytest.mark.parametrize("ipynb", IPYNB, ids=_ids(IPYNB))
def test_notebook_sin_salidas(ipynb):
    datos = json.loads(ipynb.read_text(encoding="utf-8"))
    con_salidas = [i for i, c in enumerate(datos["cells"]) if c["cell_type"] == "code" and (c.get("outputs") or c.get("execution_count"))]
    assert not con_salidas, f"{ipynb.name} guarda salidas en las celdas {con_salidas}: bórralas antes de subirlo"


@pytest.mark.parametrize("ipynb", IPYNB, ids=_ids(IPYNB))
def test_metadatos_piden_gpu_t4_en_colab(ipynb):
    meta = json.loads(ipynb.read_text(encoding="utf-8"))["metadata"]
    assert meta.get("kernelspec", {}).get("name") == "python3"
    assert meta.get("accelerator") == "GPU"
    assert meta.get("colab", {}).get("gpuType") == "T4"


@pytest.mark.parametrize("py", PY, ids=_ids(PY))
def test_el_py_conserva_los_metadatos_de_colab(py):
    """Si el filtro de metadatos los perdiera, un `jupytext --sync` los borraría del .ipynb."""
    nb = jupytext.read(py)
    assert nb.metadata.get("accelerator") == "GPU"
    assert nb.metadata.get("colab", {}).get("gpuType") == "T4"
    assert "kernelspec" in nb.metadata
