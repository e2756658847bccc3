"""``python -m curso_gpu`` (o ``comprobar_gpu``): el informe del entorno en la terminal (lección 01).

Dos procesos de verdad (el informe en texto y un ``import curso_gpu`` limpio) se lanzan a
la vez al empezar el módulo, para que las pruebas sigan siendo rápidas; el resto llama a
``main()`` en el mismo proceso.
"""

import json
import os
import subprocess
import sys

import pytest
import torch

from curso_gpu import cli
from curso_gpu.nvidia_smi import SALIDA_EJEMPLO_T4

RAIZ = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SIN_VARIABLES = {k: v for k, v in os.environ.items() if k not in ("CURSO_GPU_DISPOSITIVO", "COLAB_RELEASE_TAG")}
COMPROBAR_IMPORTS = (
    "import sys, curso_gpu; "
    "print(sorted(m for m in sys.modules if m.split('.')[0] in ('matplotlib', 'ipywidgets')))"
)


@pytest.fixture(scope="module")
def procesos():
    """Lanza los dos subprocesos en paralelo y devuelve sus resultados."""
    ordenes = {
        "texto": [sys.executable, "-m", "curso_gpu"],
        "import": [sys.executable, "-c", COMPROBAR_IMPORTS],
    }
    lanzados = {
        nombre: subprocess.Popen(orden, cwd=RAIZ, env=SIN_VARIABLES, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True, encoding="utf-8")
        for nombre, orden in ordenes.items()
    }
    resultados = {}
    for nombre, proceso in lanzados.items():
        salida, error = proceso.communicate(timeout=60)
        resultados[nombre] = subprocess.CompletedProcess(ordenes[nombre], proceso.returncode, salida, error)
    return resultados


# --- como proceso, igual que lo ejecuta quien sigue el curso ------------------------------

def test_python_m_curso_gpu_termina_bien_e_imprime_el_informe_en_espanol(procesos):
    resultado = procesos["texto"]
    assert resultado.returncode == 0, resultado.stderr
    assert "Informe del entorno" in resultado.stdout
    assert "PyTorch" in resultado.stdout and torch.__version__ in resultado.stdout
    assert "Dispositivo elegido" in resultado.stdout
    assert "Diagnóstico:" in resultado.stdout
    assert "Traceback" not in resultado.stderr


def test_json_es_valido_y_dice_lo_mismo_que_el_texto(procesos, monkeypatch, capsys):
    for variable in ("CURSO_GPU_DISPOSITIVO", "COLAB_RELEASE_TAG"):  # como en el proceso de texto
        monkeypatch.delenv(variable, raising=False)
    assert cli.main(["--json"]) == 0
    salida = capsys.readouterr().out
    datos = json.loads(salida)
    entorno = datos["entorno"]
    assert entorno["torch"] == torch.__version__
    assert entorno["python"] == "{}.{}.{}".format(*sys.version_info[:3])
    assert datos["dispositivo"] == entorno["dispositivo"]
    texto = procesos["texto"].stdout
    for clave in ("sistema", "python", "torch", "dispositivo"):
        assert entorno[clave] in texto, clave
    for aviso in entorno["avisos"]:
        assert aviso in texto
    assert "Informe del entorno" not in salida, "--json imprime solo JSON"


def test_import_curso_gpu_no_carga_matplotlib_ni_ipywidgets(procesos):
    resultado = procesos["import"]
    assert resultado.returncode == 0, resultado.stderr
    assert resultado.stdout.strip() == "[]"


# --- en el mismo proceso --------------------------------------------------------------------

@pytest.fixture
def sin_gpu(monkeypatch, tmp_path):
    monkeypatch.delenv("CURSO_GPU_DISPOSITIVO", raising=False)
    monkeypatch.delenv("COLAB_RELEASE_TAG", raising=False)
    monkeypatch.delitem(sys.modules, "google.colab", raising=False)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr(torch.backends.mps, "is_available", lambda: False)
    monkeypatch.setattr(torch.version, "cuda", None)
    vacia = tmp_path / "vacia"
    vacia.mkdir()
    monkeypatch.setenv("PATH", str(vacia))


def test_dispositivo_cpu_forzado_sale_en_el_informe(sin_gpu, capsys):
    assert cli.main(["--dispositivo", "cpu", "--json"]) == 0
    datos = json.loads(capsys.readouterr().out)
    assert datos["dispositivo"] == "cpu"
    assert cli.main(["--dispositivo", "cpu:0"]) == 0
    assert "cpu:0 (forzado con --dispositivo)" in capsys.readouterr().out


def test_la_variable_de_entorno_tambien_fuerza_el_dispositivo(sin_gpu, monkeypatch, capsys):
    monkeypatch.setenv("CURSO_GPU_DISPOSITIVO", "cuda")
    assert cli.main([]) == 2
    assert "CURSO_GPU_DISPOSITIVO" in capsys.readouterr().err


def test_dispositivo_gpu_sale_con_codigo_2_y_un_mensaje_en_espanol(sin_gpu, capsys):
    assert cli.main(["--dispositivo", "gpu"]) == 2
    salida = capsys.readouterr()
    assert salida.out == ""
    assert "no válido: 'gpu'" in salida.err and "escribe 'cuda'" in salida.err
    assert "Traceback" not in salida.err


def test_dispositivo_cuda_sin_gpu_sale_con_codigo_2_y_dice_como_conseguirla(sin_gpu, capsys):
    assert cli.main(["--dispositivo", "cuda"]) == 2
    error = capsys.readouterr().err
    assert "no está disponible" in error and "GPU T4" in error and "pip install" in error


def test_ayuda_en_espanol(capsys):
    with pytest.raises(SystemExit) as salida:
        cli.main(["--help"])
    assert salida.value.code == 0
    ayuda = capsys.readouterr().out
    assert ayuda.startswith("uso: ")
    assert "opciones:" in ayuda and "muestra esta ayuda" in ayuda
    assert "--dispositivo" in ayuda and "--json" in ayuda
    for ingles in ("usage:", "options:", "show this help"):
        assert ingles not in ayuda


def test_una_opcion_que_no_existe_da_error_en_espanol(capsys):
    with pytest.raises(SystemExit) as salida:
        cli.main(["--no-existe"])
    assert salida.value.code == 2
    error = capsys.readouterr().err
    assert "argumentos que no conozco: --no-existe" in error and "--help" in error
    assert "unrecognized" not in error


@pytest.mark.skipif(sys.platform == "win32", reason="el nvidia-smi falso es un script de bash")
def test_un_nvidia_smi_en_el_path_sale_en_el_informe(sin_gpu, nvidia_smi_falso, capsys):
    nvidia_smi_falso(
        "0, Tesla T4, 560.35.03, 15360, 0, 15101\n",
        SALIDA_EJEMPLO_T4.replace("580.82.07", "560.35.03").replace("CUDA Version: 13.0", "CUDA Version: 12.6"),
        path_minimo=True,
    )
    assert cli.main([]) == 0
    salida = capsys.readouterr().out
    assert "Tesla T4: 0 de 15360 MiB usados" in salida
    assert "560.35.03 (admite CUDA hasta 12.6)" in salida
    assert "solo para CPU" in salida
    assert "--index-url https://download.pytorch.org/whl/cu126" in salida
