"""Los kernels de la lección 11 en la T4 simulada: los tensores dicen ``cuda``, los kernels se interpretan.

En la T4 simulada (``CURSO_GPU_SIMULAR=T4``) los tensores viven en la CPU aunque digan ``cuda:0``:
los lanzadores deciden por el modo de Triton (intérprete o compilado), no por el dispositivo.
"""

import os
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
import torch

from curso_gpu.dispositivo import simular_gpu
from curso_gpu.kernels import INTERPRETE, matmul_teselas, modo_triton, softmax_filas, suma, triton_instalado

RAIZ = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.skipif(not triton_instalado(), reason="sin triton (macOS, Windows)")


def test_en_la_t4_simulada_los_kernels_dan_lo_de_pytorch_sin_avisos_de_numpy():
    with simular_gpu("T4"):
        fila_menos_inf = torch.full((2, 16), -float("inf")).cuda()
        enormes = torch.tensor([[1000.0, 999.0, -1000.0], [3e38, 1.0, 0.0]]).cuda()
        a, b = torch.randn(37, 29).cuda(), torch.randn(29, 23).cuda()
        with warnings.catch_warnings(record=True) as avisos:
            warnings.simplefilter("always")
            nan = softmax_filas(fila_menos_inf)
            grandes = softmax_filas(enormes)
            producto = matmul_teselas(a, b)
            sumados = suma(a, a)
        assert modo_triton() == INTERPRETE
        numpy_avisa = [str(a.message) for a in avisos if issubclass(a.category, RuntimeWarning)]
        assert numpy_avisa == []  # NumPy no escribe «invalid value» en stderr (otros avisos, de otras pruebas, no cuentan)
        assert nan.device == torch.device("cuda", 0) and torch.isnan(nan).all()
        torch.testing.assert_close(grandes, torch.softmax(enormes, dim=1))
        torch.testing.assert_close(producto, a @ b)
        assert torch.equal(sumados, a + a)
        del fila_menos_inf, enormes, a, b, nan, grandes, producto, sumados  # ninguno sale del bloque (simular_gpu)


@pytest.mark.lento  # un Python nuevo con torch y triton
def test_con_triton_ya_compilado_la_t4_simulada_dice_como_arreglarlo():
    codigo = ("import triton, os\n"
              "os.environ['CURSO_GPU_SIMULAR'] = 'T4'\n"
              "import curso_gpu, torch\n"
              "from curso_gpu.kernels import suma\n"
              "try:\n"
              "    suma(torch.ones(5).cuda(), torch.ones(5).cuda())\n"
              "except RuntimeError as error:\n"
              "    print('ERROR:', error)\n")
    entorno = {k: v for k, v in os.environ.items() if k not in ("TRITON_INTERPRET", "CURSO_GPU_SIMULAR")}
    entorno["PYTHONPATH"] = str(RAIZ)
    salida = subprocess.run([sys.executable, "-c", codigo], capture_output=True, text=True, env=entorno, timeout=180)
    assert salida.returncode == 0, salida.stderr
    assert "ERROR: La GPU es simulada (CURSO_GPU_SIMULAR)" in salida.stdout
    assert "TRITON_INTERPRET=1" in salida.stdout and salida.stderr == ""
