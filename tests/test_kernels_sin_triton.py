"""Lección 11 sin triton (macOS, Windows) y el modo de Triton que elige el curso, en procesos nuevos.

Cada caso corre en un Python limpio: el modo (intérprete o compilado) se decide una vez por
proceso, al lanzar el primer kernel, y depende de si ``triton`` ya estaba importado. Para no
importar torch cuatro veces (~1,5 s de CPU cada una), un solo Python nuevo importa torch (y nada
de curso_gpu ni de triton) y crea con ``os.fork`` un proceso hijo por caso: cada hijo empieza
como quien acaba de hacer ``import torch``, con su propio entorno, y su salida se lee aparte.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

RAIZ = Path(__file__).resolve().parent.parent
OCULTAR_TRITON = "import sys; sys.modules['triton'] = None  # como si no estuviera instalado\n"


def entorno_limpio(entorno: dict | None = None) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("TRITON_INTERPRET", "PYTEST_CURRENT_TEST")}
    env.update(entorno or {})
    return env


# El Python nuevo: importa torch y, por cada caso, un hijo con os.fork que pone su entorno, ejecuta
# su código con la salida y los errores en archivos propios y termina con os._exit.
MADRE = r"""
import json, os, sys, tempfile, traceback
import torch
assert "triton" not in sys.modules and not any(m.startswith("curso_gpu") for m in sys.modules)
casos, resultados = json.loads(sys.stdin.read()), {}
for nombre, (codigo, entorno) in casos.items():
    salida, errores = tempfile.TemporaryFile(), tempfile.TemporaryFile()
    sys.stdout.flush(); sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        codigo_salida = 0
        try:
            os.dup2(salida.fileno(), 1); os.dup2(errores.fileno(), 2)
            os.environ.pop("TRITON_INTERPRET", None); os.environ.update(entorno)
            exec(compile(codigo, nombre, "exec"), {"__name__": "__main__"})
        except BaseException:
            traceback.print_exc(); codigo_salida = 1
        finally:
            sys.stdout.flush(); sys.stderr.flush()
            os._exit(codigo_salida)
    _, estado = os.waitpid(pid, 0)
    leer = lambda f: (f.seek(0), f.read().decode("utf-8", "replace"))[1]
    resultados[nombre] = {"codigo": os.waitstatus_to_exitcode(estado), "salida": leer(salida), "errores": leer(errores)}
print(json.dumps(resultados))
"""


def ejecutar_casos(casos: dict[str, tuple[str, dict]], timeout: int = 120) -> dict[str, dict]:
    """{nombre: (código, entorno)} → {nombre: el JSON que imprimió el código en su última línea}.

    Cada código corre en su propio proceso hijo (ver ``MADRE``); si falla o escribe en stderr,
    la prueba falla con lo que escribió.
    """
    r = subprocess.run([sys.executable, "-c", MADRE], input=json.dumps(casos), capture_output=True, text=True,
                       timeout=timeout, cwd=RAIZ, env=entorno_limpio())
    assert r.returncode == 0 and r.stderr == "", r.stderr
    return json.loads(r.stdout.strip().splitlines()[-1])


def resultado(resultados: dict, nombre: str) -> dict:
    caso = resultados[nombre]
    assert caso["codigo"] == 0, caso["errores"]
    assert caso["errores"] == "", caso["errores"]
    return json.loads(caso["salida"].strip().splitlines()[-1])


CASO_INTERPRETE = ("import json, os, sys, torch\n"
                   "import curso_gpu, curso_gpu.kernels\n"
                   "from curso_gpu.kernels import modo_triton, suma, softmax_filas, trafico_softmax, triton_instalado\n"
                   "import curso_gpu.kernels.lanzadores, curso_gpu.kernels.cuentas, curso_gpu.kernels.carga\n"
                   "antes = {'triton': 'triton' in sys.modules, 'variable': os.environ.get('TRITON_INTERPRET')}\n"
                   "ok = torch.equal(suma(torch.ones(5), torch.ones(5)), torch.full((5,), 2.0))\n"
                   "print(json.dumps({'antes': antes, 'instalado': triton_instalado(), 'cuda': torch.cuda.is_available(),\n"
                   "                  'modo': modo_triton(), 'ok': ok, 'variable': os.environ.get('TRITON_INTERPRET')}))")

CASO_SIN_TRITON = (OCULTAR_TRITON +
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

CASO_COMPILADO = ("import json, os, torch\n"
                  "from curso_gpu.kernels import modo_triton, suma\n"
                  "try:\n"
                  "    suma(torch.ones(5), torch.ones(5)); error = ''\n"
                  "except RuntimeError as e:\n"
                  "    error = str(e)\n"
                  "print(json.dumps({'cuda': torch.cuda.is_available(), 'modo': modo_triton(), 'error': error,\n"
                  "                  'variable': os.environ.get('TRITON_INTERPRET')}))")
DECIDIDO = {"triton-ya-importado": ("import triton\n", {}), "TRITON_INTERPRET=0": ("", {"TRITON_INTERPRET": "0"})}


@pytest.fixture(scope="module")
def casos():
    """Los cuatro casos, cada uno en su proceso, con un solo ``import torch``."""
    return ejecutar_casos({"intérprete": (CASO_INTERPRETE, {}), "sin triton": (CASO_SIN_TRITON, {}),
                           **{n: (antes + CASO_COMPILADO, e) for n, (antes, e) in DECIDIDO.items()}})


def test_importar_no_carga_triton_y_sin_gpu_el_primer_kernel_pone_el_interprete(casos):
    r = resultado(casos, "intérprete")
    assert r["antes"] == {"triton": False, "variable": None} and r["instalado"]
    if r["cuda"]:
        pytest.skip("con GPU CUDA el curso compila")
    assert (r["modo"], r["ok"], r["variable"]) == ("intérprete", True, "1")


def test_sin_triton_los_kernels_dicen_como_instalarlo_y_lo_demas_funciona(casos):
    r = resultado(casos, "sin triton")
    assert r["instalado"] is False
    assert r["error"] == r["como"] and 'pip install "curso_gpu[kernels] @ git+https://' in r["error"] and "Colab" in r["error"]
    assert "float32 y float16" in r["tipo"]  # lo que se puede comprobar sin triton, se comprueba
    assert r["bytes"] == 2 * 2 * 3 * 4


@pytest.mark.parametrize("decision", list(DECIDIDO))
def test_si_tu_decidiste_sin_interprete_no_se_toca_y_el_error_dice_que_hacer(casos, decision):
    r = resultado(casos, decision)
    entorno = DECIDIDO[decision][1]
    if r["cuda"]:
        pytest.skip("con GPU CUDA el mensaje es otro")
    assert r["modo"] == "compilado"
    assert r["variable"] == entorno.get("TRITON_INTERPRET")  # el curso no la puso
    assert "Reinicia el kernel" in r["error"] and "os.environ['TRITON_INTERPRET'] = '1'" in r["error"]


COMO_EN_UN_MAC = ("import curso_gpu.kernels.carga as carga\n"
                  "carga.PLATAFORMAS_CON_TRITON = ()  # la plataforma, falseada: aquí el curso no declara triton\n")
DONDE_SE_DECLARA = ("import sys, curso_gpu.kernels.carga as carga\n"
                    "carga.PLATAFORMAS_CON_TRITON = (sys.platform,)  # como en Linux, también en otra máquina\n")


@pytest.fixture(scope="module")
def leccion_sin_triton():
    """La lección 11 entera sin triton y sin compilador de C (para no compilar con torch.compile), dos veces:
    como en un Mac (donde el curso no declara triton) y como en Linux (donde sí)."""
    import jupytext

    leccion = jupytext.read(RAIZ / "notebooks" / "11_primer_kernel_triton.py")
    codigo = "\n\n".join(c.source for c in leccion.cells if c.cell_type == "code")
    vacia = str(RAIZ / "notebooks")  # una carpeta sin programas: PATH sin cc, gcc ni clang
    return ejecutar_casos({"como en un Mac": (OCULTAR_TRITON + COMO_EN_UN_MAC + codigo, {"PATH": vacia}),
                           "Linux": (OCULTAR_TRITON + DONDE_SE_DECLARA + codigo, {"PATH": vacia})}, timeout=240)


@pytest.mark.lento
def test_la_leccion_11_sin_triton_ni_compilador_de_c_se_ejecuta_entera_donde_triton_no_existe(leccion_sin_triton):
    from curso_gpu.kernels import COMO_INSTALAR

    r = leccion_sin_triton["como en un Mac"]
    assert r["codigo"] == 0 and r["errores"] == "", r["errores"]
    assert COMO_INSTALAR in r["salida"]
    assert "No hay compilador de C" in r["salida"]
    assert "Sin Triton: aquí verías la suma comprobada" in r["salida"]  # dice lo que haría cada kernel


@pytest.mark.lento
def test_en_linux_la_leccion_11_sin_triton_falla_y_dice_como_instalarlo(leccion_sin_triton):
    from curso_gpu.kernels import COMO_INSTALAR

    r = leccion_sin_triton["Linux"]
    assert r["codigo"] == 1, r["salida"][-500:]
    assert "AssertionError: Falta triton, y en Linux el curso lo necesita." in r["errores"]
    assert COMO_INSTALAR in r["errores"] and "Comprobado:" not in r["salida"]  # se para antes del final
