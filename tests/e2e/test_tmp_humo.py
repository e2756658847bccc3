import pytest
pytestmark = pytest.mark.e2e
def test_humo(lab):
    p = lab.abrir("00_prueba.ipynb")
    lab.ejecutar_todo()
    print(p.locator(".jp-OutputArea-output").all_inner_texts())
    lab.captura("humo.png")
