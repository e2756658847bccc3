"""Lección 11 sin triton (macOS, Windows) y el modo de Triton que elige el curso, en procesos nuevos.

Cada prueba arranca un Python limpio: el modo (intérprete o compilado) se decide una vez por
proceso, al lanzar el primer kernel, y depende de si ``triton`` ya estaba importado.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

RAIZ = Path(__file__).resolve().parent.parent
OCULTAR_TRITON = "import sys; sys.modules['triton'] = None  # como si no estuviera instalado\n"


def ejecutar(codigo: str, entorno: dict | None = None, timeout: int = 120) -> dict:
    """Ejecuta ``codigo`` en otro Python (que imprime un JSON en su última línea) y lo devuelve."""
    env = {k: v for k, v in os.environ.items() if k not in ("TRITON_INTERPRET", "PYTEST_CURRENT_TEST")}
    env.update(entorno or {})
    salida = subprocess.run([sys.executable, "-c", codigo], capture_output=True, text=True, timeout=timeout,
                            cwd=RAIZ, env=env)
    assert salida.returncode == 0, salida.stderr
    assert salida.stderr == "", salida.stderr
    return json.loads(salida.stdout.strip().splitlines()[-1])


def test_importar_no_carga_triton_y_sin_gpu_el_primer_kernel_pone_el_interprete():
    r = ejecutar("import json, os, sys, torch\n"
                 "import curso_gpu, curso_gpu.kernels\n"
                 "from curso_gpu.kernels import modo_triton, suma, softmax_filas, trafico_softmax, triton_instalado\n"
                 "import curso_gpu.kernels.lanzadores, curso_gpu.kernels.cuentas, curso_gpu.kernels.carga\n"
                 "antes = {'triton': 'triton' in sys.modules, 'variable': os.environ.get('TRITON_INTERPRET')}\n"
                 "ok = torch.equal(suma(torch.ones(5), torch.ones(5)), torch.full((5,), 2.0))\n"
                 "print(json.dumps({'antes': antes, 'instalado': triton_instalado(), 'cuda': torch.cuda.is_available(),\n"
                 "                  'modo': modo_triton(), 'ok': ok, 'variable': os.environ.get('TRITON_INTERPRET')}))")
    assert r["antes"] == {"triton": False, "variable": None} and r["instalado"]
    if r["cuda"]:
        pytest.skip("con GPU CUDA el curso compila")
    assert (r["modo"], r["ok"], r["variable"]) == ("intérprete", True, "1")


def test_sin_triton_los_kernels_dicen_como_instalarlo_y_lo_demas_funciona():
    r = ejecutar(OCULTAR_TRITON +
                 "import json, torch\n"
                 "from curso_gpu.kernels import COMO_INSTALAR, suma, trafico_softmax, triton_instalado\n"
                 "try:\n"
                 "    suma(torch.ones(3), torch.ones(3))\n"
                 "except ModuleNotFoundError as e:\n"
                 "    error = str(e)\n"
                 "try:\n"
                 "    suma(torch.arange(3), torch.arange(3))\n"
                 "except ValueError as e:\n"
                 "    tipo = str(e)\n"
                 "print(json.dumps({'instalado': triton_instalado(), 'error': error, 'como': COMO_INSTALAR,\n"
                 "                  'tipo': tipo, 'bytes': trafico_softmax(2, 3).total}))")
    assert r["instalado"] is False
    assert r["error"] == r["como"] and 'pip install "curso_gpu[kernels]"' in r["error"] and "Colab" in r["error"]
    assert "float32 y float16" in r["tipo"]  # lo que se puede comprobar sin triton, se comprueba
    assert r["bytes"] == 2 * 2 * 3 * 4


@pytest.mark.parametrize("antes, entorno", [("import triton\n", {}), ("", {"TRITON_INTERPRET": "0"})],
                         ids=["triton-ya-importado", "TRITON_INTERPRET=0"])
def test_si_tu_decidiste_sin_interprete_no_se_toca_y_el_error_dice_que_hacer(antes, entorno):
    r = ejecutar(antes +
                 "import json, os, torch\n"
                 "from curso_gpu.kernels import modo_triton, suma\n"
                 "try:\n"
                 "    suma(torch.ones(5), torch.ones(5)); error = ''\n"
                 "except RuntimeError as e:\n"
                 "    error = str(e)\n"
                 "print(json.dumps({'cuda': torch.cuda.is_available(), 'modo': modo_triton(), 'error': error,\n"
                 "                  'variable': os.environ.get('TRITON_INTERPRET')}))", entorno)
    if r["cuda"]:
        pytest.skip("con GPU CUDA el mensaje es otro")
    assert r["modo"] == "compilado"
    assert r["variable"] == entorno.get("TRITON_INTERPRET")  # el curso no la puso
    assert "Reinicia el kernel" in r["error"] and "os.environ['TRITON_INTERPRET'] = '1'" in r["error"]


@pytest.mark.lento
def test_la_leccion_11_sin_triton_ni_compilador_de_c_se_ejecuta_entera():
    """Como en un Mac: sin triton (y aquí también sin compilador de C, para no compilar con torch.compile)."""
    import jupytext

    leccion = jupytext.read(RAIZ / "notebooks" / "11_primer_kernel_triton.py")
    codigo = "\n\n".join(c.source for c in leccion.cells if c.cell_type == "code")
    vacia = RAIZ / "notebooks"  # una carpeta sin programas: PATH sin cc, gcc ni clang
    r = subprocess.run([sys.executable, "-c", OCULTAR_TRITON + codigo], capture_output=True, text=True,
                       timeout=240, cwd=RAIZ / "notebooks",
                       env={**{k: v for k, v in os.environ.items() if k not in ("TRITON_INTERPRET", "PYTEST_CURRENT_TEST")},
                            "PATH": str(vacia)})
    assert r.returncode == 0, r.stderr
    assert r.stderr == ""
    from curso_gpu.kernels import COMO_INSTALAR

    assert COMO_INSTALAR in r.stdout
    assert "No hay compilador de C" in r.stdout and "Lección ejecutada en" in r.stdout
