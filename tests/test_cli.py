"""``python -m curso_gpu`` (o ``comprobar_gpu``): el informe del entorno en la terminal (lección 01).

Dos procesos de verdad con torch (el informe completo y el mismo con la tubería cerrada) se
lanzan a la vez, solo en las pruebas ``lento``; el resto llama a ``main()`` en el mismo proceso,
con ``--rapido`` (matrices más pequeñas) cuando lo que se comprueba no es la medición. La ayuda
y los errores de argumentos sí van en un proceso aparte: no importan torch y tardan milisegundos.
Que ``import curso_gpu`` no carga torch, matplotlib ni ipywidgets lo comprueba ``test_arquitectura.py``.
"""

import io
import json
import os
import subprocess
import sys

import pytest
import torch

from curso_gpu.interactivo import cli
from lentas import fixture_lenta
from curso_gpu.dispositivo import SALIDA_EJEMPLO_T4

RAIZ = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SIN_VARIABLES = {k: v for k, v in os.environ.items() if k not in ("CURSO_GPU_DISPOSITIVO", "COLAB_RELEASE_TAG")}


@fixture_lenta(scope="module")  # dos procesos que importan torch y miden
def procesos():
    """Lanza los subprocesos en paralelo y devuelve sus resultados.

    «tuberia» escribe en una tubería cuyo lector ya se fue, como ``python -m curso_gpu | head -1``.
    """
    ordenes = {
        "texto": [sys.executable, "-m", "curso_gpu", "--rapido"],  # lo mismo, con matrices de 1024
        "tuberia": [sys.executable, "-m", "curso_gpu", "--rapido", "--dispositivo", "cpu"],
    }
    leer, cerrada = os.pipe()
    os.close(leer)
    try:
        lanzados = {
            nombre: subprocess.Popen(orden, cwd=RAIZ, env=SIN_VARIABLES,
                                     stdout=cerrada if nombre == "tuberia" else subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, encoding="utf-8")
            for nombre, orden in ordenes.items()
        }
    finally:
        os.close(cerrada)
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


def test_json_es_valido_y_dice_lo_mismo_que_el_texto(monkeypatch, capsys):
    for variable in ("CURSO_GPU_DISPOSITIVO", "COLAB_RELEASE_TAG"):  # como quien lo ejecuta sin nada puesto
        monkeypatch.delenv(variable, raising=False)
    assert cli.main(["--json", "--rapido"]) == 0
    salida = capsys.readouterr().out
    datos = json.loads(salida)
    entorno = datos["entorno"]
    assert entorno["torch"] == torch.__version__
    assert entorno["python"] == "{}.{}.{}".format(*sys.version_info[:3])
    assert datos["dispositivo"] == entorno["dispositivo"]
    assert cli.main(["--rapido"]) == 0
    texto = capsys.readouterr().out
    assert "Informe del entorno" in texto
    for clave in ("sistema", "python", "torch", "dispositivo"):
        assert entorno[clave] in texto, clave
    for aviso in entorno["avisos"]:
        assert aviso in texto
    assert "Informe del entorno" not in salida, "--json imprime solo JSON"


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
    assert cli.main(["--dispositivo", "cpu", "--json", "--rapido"]) == 0
    datos = json.loads(capsys.readouterr().out)
    assert datos["dispositivo"] == "cpu"
    assert cli.main(["--dispositivo", "cpu:0", "--rapido"]) == 0
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
    assert cli.main(["--rapido"]) == 0
    salida = capsys.readouterr().out
    assert "Tesla T4: 0 de 15360 MiB usados" in salida
    assert "560.35.03 (admite CUDA hasta 12.6)" in salida
    assert "solo para CPU" in salida
    assert "--index-url https://download.pytorch.org/whl/cu126" in salida


# --- la ayuda sin torch, consolas sin UTF-8 y tuberías cerradas ---------------------------------

def _orden(*argumentos, env=SIN_VARIABLES, stdout=subprocess.PIPE, **opciones):
    return subprocess.run([sys.executable, *argumentos], cwd=RAIZ, env=env, stdout=stdout,
                          stderr=subprocess.PIPE, timeout=60, **opciones)


def _modulos_importados(importtime: str) -> set[str]:
    """Los módulos que lista ``python -X importtime`` («import time: ... | torch»)."""
    return {linea.rsplit("|", 1)[1].strip() for linea in importtime.splitlines() if linea.startswith("import time:")}


@pytest.mark.parametrize("modulo, argumentos, codigo, texto", [
    ("curso_gpu", ["--help"], 0, "uso: python -m curso_gpu"),
    ("curso_gpu", ["--no-existe"], 2, "argumentos que no conozco: --no-existe"),
    ("curso_gpu.app_lineas", ["--help"], 0, "uso: python -m curso_gpu.app_lineas"),
    ("curso_gpu.app_lineas", ["--epocas", "0"], 2, "--epocas: debe ser un entero mayor o igual que 1"),
    ("curso_gpu.entrenar_ddp", ["--help"], 0, "uso: "),
    ("curso_gpu.entrenar_ddp", ["--epocas", "0"], 2, "--epocas"),
    ("curso_gpu.entrenar_ddp", ["--semilla", str(2**70)], 2, "--semilla: debe ser un entero entre 0 y 2**63 - 1"),
])
def test_la_ayuda_y_los_errores_de_argumentos_no_importan_torch(modulo, argumentos, codigo, texto):
    resultado = _orden("-X", "importtime", "-m", modulo, *argumentos, text=True)
    assert resultado.returncode == codigo, resultado.stderr[-2000:]
    assert texto in resultado.stdout + resultado.stderr
    modulos = _modulos_importados(resultado.stderr)
    assert "curso_gpu.base" in modulos, "la medida de importtime no funcionó"
    assert "torch" not in modulos and "numpy" not in modulos


def test_cada_subpaquete_se_carga_al_usarlo_y_sus_nombres_tambien():
    import importlib

    import curso_gpu
    from curso_gpu.dispositivo import elegir_dispositivo

    assert elegir_dispositivo is importlib.import_module("curso_gpu.dispositivo.primitivas").elegir_dispositivo
    assert curso_gpu.__all__ == ["__version__"]  # arriba no hay atajos: cada nombre, en su subpaquete
    assert curso_gpu.memoria.GB == 10**9  # un subpaquete, sin importarlo antes
    assert "elegir_dispositivo" in dir(curso_gpu.dispositivo)
    with pytest.raises(AttributeError, match="no_existe"):
        curso_gpu.no_existe  # noqa: B018
    with pytest.raises(AttributeError, match="no_existe"):
        curso_gpu.dispositivo.no_existe  # noqa: B018
    with pytest.raises(AttributeError, match="cronometrar"):
        curso_gpu.dispositivo.cronometrar  # noqa: B018  (vive en medicion)


def test_la_ayuda_en_una_consola_ascii_no_falla_y_se_lee():
    resultado = _orden("-m", "curso_gpu", "--help", env={**SIN_VARIABLES, "PYTHONIOENCODING": "ascii"})
    assert resultado.returncode == 0, resultado.stderr.decode("utf-8", "replace")
    ayuda = resultado.stdout.decode("ascii")  # falla si se coló un byte que no es ASCII
    assert "Comprueba tu GPU para el curso: que dispositivo tienes" in ayuda
    assert "mide con matrices mas pequenas" in ayuda
    assert resultado.stderr == b""


def test_con_la_tuberia_cerrada_termina_en_silencio(procesos):
    """``python -m curso_gpu | head -1``: quien lee se va y el informe termina sin traza."""
    resultado = procesos["tuberia"]
    assert resultado.returncode == 141  # 128 + SIGPIPE, como `yes | head`
    assert resultado.stderr == ""


def _consola(monkeypatch, codificacion: str) -> io.TextIOWrapper:
    consola = io.TextIOWrapper(io.BytesIO(), encoding=codificacion, errors="strict")
    monkeypatch.setattr(sys, "stdout", consola)
    return consola


def _escrito(consola: io.TextIOWrapper, codificacion: str) -> str:
    consola.flush()
    return consola.buffer.getvalue().decode(codificacion)


def test_el_informe_en_una_consola_ascii_cambia_cada_caracter_por_el_mas_parecido(sin_gpu, monkeypatch):
    consola = _consola(monkeypatch, "ascii")
    assert cli.main(["--dispositivo", "cpu", "--rapido"]) == 0
    texto = _escrito(consola, "ascii")
    assert "Diagnostico:" in texto and "No hay GPU: sin problema" in texto
    assert "Entorno de ejecucion > Cambiar tipo de entorno de ejecucion > GPU T4" in texto
    assert "?" not in texto.replace("¿", "")


def test_el_json_en_una_consola_ascii_sigue_siendo_json_valido_y_completo(sin_gpu, monkeypatch):
    consola = _consola(monkeypatch, "ascii")
    assert cli.main(["--dispositivo", "cpu", "--rapido", "--json"]) == 0
    texto = _escrito(consola, "ascii")
    datos = json.loads(texto)
    assert "\\u00f3" in texto  # «ó» escrita como \u00f3, no cambiada por «o»
    assert any("Entorno de ejecución › Cambiar tipo" in aviso for aviso in datos["entorno"]["avisos"])


def test_una_consola_latin_1_conserva_los_acentos_y_cambia_lo_demas(sin_gpu, monkeypatch):
    consola = _consola(monkeypatch, "latin-1")
    assert cli.main(["--dispositivo", "cpu", "--rapido"]) == 0
    texto = _escrito(consola, "latin-1")
    assert "Diagnóstico:" in texto and "Entorno de ejecución > Cambiar tipo" in texto


class TuberiaCerrada(io.TextIOBase):
    """Una salida cuyo lector se fue: cada escritura da ``BrokenPipeError``."""

    encoding = "utf-8"

    def write(self, texto):
        raise BrokenPipeError(32, "Broken pipe")


def test_el_informe_con_la_tuberia_cerrada_sale_con_141_sin_traza(sin_gpu, monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdout", TuberiaCerrada())
    assert cli.main(["--dispositivo", "cpu", "--rapido"]) == 141
    assert capsys.readouterr().err == ""
