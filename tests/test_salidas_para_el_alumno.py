"""Las salidas de cada lección ejecutada se leen como un curso, no como el registro de una máquina (issue 53).

Sin rutas de la máquina que la ejecutó, sin direcciones ``0x…``, sin números de más de 6 cifras
significativas, sin «1 hilos» y sin líneas de registro en inglés. Primero el detector, sobre textos
hechos a mano (rápido); luego las lecciones ejecutadas (``leccion_ejecutada``, «lento»).
"""

import os
from pathlib import Path

import pytest

from salidas_para_el_alumno import problemas_de_texto, problemas_de_salidas

RAIZ = Path(__file__).resolve().parent.parent
LECCIONES = sorted(ruta.name[:2] for ruta in (RAIZ / "notebooks").glob("[0-9][0-9]_*.py"))


@pytest.mark.parametrize("texto", [
    "Guardado en /home/ana/curso_gpu/notebooks/checkpoints/lora",
    "<torch._C.Generator at 0x7f3a2c1b5e90>",
    "accuracy 0.9545339941978455",
    "diferencia 1.049041748046875e-05",
    "CPU (1 hilos)",
    "los 1 procesos terminaron",
    "3 proceso(s) vivos",
    "E1207 18:15:29.876000 17125 torch/distributed/elastic/multiprocessing/api.py:882] failed (exitcode: 3)",
])
def test_cada_resto_de_la_maquina_se_detecta(texto):
    assert problemas_de_texto(texto, ("/home/ana/curso_gpu",)) != []


@pytest.mark.parametrize("texto", [
    "Guardado en checkpoints/lora_diminuto/adaptador",
    "PyTorch 2.13.0 · 127.0.0.1:29500",
    "accuracy 0.954 · pérdida 0.0312 · 1 024 hilos · 1 hilo · 2 hilos",
    "1 más que antes; época 1 después del fallo",
    "123456 bytes; 1.5x; 12.345 ms",
    "RuntimeError: Given groups=1, expected input[4, 3, 8, 8] to have 1 channels, but got 3 channels instead",
])
def test_lo_que_es_para_el_alumno_no_se_confunde(texto):
    assert problemas_de_texto(texto, ("/home/ana/curso_gpu",)) == []


@pytest.mark.lento
@pytest.mark.parametrize("numero", LECCIONES)
@pytest.mark.parametrize("simulada", [False, True], ids=["cpu", "t4_simulada"])
def test_las_salidas_de_la_leccion_no_ensenan_la_maquina_que_la_ejecuto(numero, simulada, leccion_ejecutada):
    rutas = tuple(r for r in (str(RAIZ), os.path.expanduser("~") + os.sep) if len(r) > 2)  # la carpeta temporal sí vale
    problemas = problemas_de_salidas(leccion_ejecutada(numero, simulada=simulada), rutas)
    assert not problemas, f"Lección {numero}{' (T4 simulada)' if simulada else ''}:\n" + "\n".join(problemas)
