"""Los falsos compartidos de las pruebas, en la frontera con el hardware: ``nvidia-smi`` y Colab.

- ``nvidia_smi_falso``: escribe un programa ``nvidia-smi`` (bash) y lo pone el primero del PATH.
  Como el de verdad, ``--query-gpu=a,b,c`` responde esos campos, en ese orden, una línea por GPU;
  un campo que no conoce da el error de ``nvidia-smi`` y el código 2. Sin argumentos imprime la
  cabecera (la tabla con «Driver Version» y «CUDA Version»).
- ``colab_falso``: un kernel de Colab (``google.colab`` importado, con un ``drive`` falso).
- ``sin_colab``: fuera de Colab, pase lo que pase en la máquina que ejecuta las pruebas.
- ``chromium``: un solo Chromium sin pantalla (Playwright) para todas las pruebas con navegador
  del proceso: el sitio, las páginas exportadas y JupyterLab. Cada prueba abre su contexto.
- ``t4``: la T4 simulada encendida durante la prueba (``simular_gpu("T4")``).
- ``falta``: ``falta(motivo)`` salta la prueba con un motivo claro; en la integración continua
  (``CI=true``), donde nada puede faltar, la hace fallar. ``falta.en_ci()`` dice si es CI.
"""

import os
import shlex
import stat
import sys
import types
from pathlib import Path

import pytest
from chromium import chromium_sin_pantalla
from lentas import fixture_lenta

from curso_gpu.dispositivo.nvidia_smi import _CAMPOS

_SCRIPT = r"""#!/bin/bash
cd {carpeta}
echo "$*" >> llamadas.txt
{antes}
case "$1" in
  --query-gpu=*)
    if [ -f crudo.txt ]; then
      cat crudo.txt
    else
      awk -F'\t' -v pedidos="${{1#--query-gpu=}}" '
        NR == 1 {{
          for (i = 1; i <= NF; i++) columna[$i] = i
          n = split(pedidos, campo, ",")
          for (j = 1; j <= n; j++) if (!(campo[j] in columna)) {{
            print "Field \"" campo[j] "\" is not a valid field to query." > "/dev/stderr"; exit 2
          }}
          next
        }}
        {{ linea = ""; for (j = 1; j <= n; j++) linea = linea (j > 1 ? ", " : "") $columna[campo[j]]; print linea }}
      ' gpus.tsv || exit $?
    fi ;;
  *) cat cabecera.txt ;;
esac
exit {codigo}
"""


def _poner_nvidia_smi(carpeta: Path, monkeypatch, consulta="", cabecera="", codigo=0, antes="", path_minimo=False):
    campos = _CAMPOS.split(",")
    filas = [linea.split(", ") for linea in consulta.splitlines() if linea.strip()]
    if filas and all(len(f) == len(campos) for f in filas):
        (carpeta / "gpus.tsv").write_text("\n".join("\t".join(f) for f in [campos] + filas) + "\n")
    elif consulta:
        (carpeta / "crudo.txt").write_text(consulta)  # lo que no es una tabla de GPU sale tal cual
    else:
        (carpeta / "gpus.tsv").write_text("\t".join(campos) + "\n")
    (carpeta / "cabecera.txt").write_text(cabecera)
    script = carpeta / "nvidia-smi"
    script.write_text(_SCRIPT.format(carpeta=shlex.quote(str(carpeta)), antes=antes, codigo=codigo))
    script.chmod(script.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    resto = f"/usr/bin{os.pathsep}/bin" if path_minimo else os.environ.get("PATH", "")
    monkeypatch.setenv("PATH", f"{carpeta}{os.pathsep}{resto}")
    return carpeta / "llamadas.txt"


@pytest.fixture
def nvidia_smi_falso(tmp_path, monkeypatch):
    """``nvidia_smi_falso(consulta, cabecera, codigo=0, antes="")`` → la ruta de ``llamadas.txt``.

    ``consulta``: las GPU como las da ``--query-gpu`` con los campos de ``nvidia_smi._CAMPOS``
    (``"0, Tesla T4, 580.82.07, 15360, 0, 15101"``); si no es una tabla así, se imprime tal cual.
    ``antes``: bash que se ejecuta primero (p. ej. para colgarse). ``path_minimo=True`` deja en
    el PATH solo el falso, /usr/bin y /bin.
    """
    carpeta = tmp_path / "nvidia_smi_falso"
    carpeta.mkdir()

    def poner(consulta="", cabecera="", codigo=0, antes="", path_minimo=False):
        return _poner_nvidia_smi(carpeta, monkeypatch, consulta, cabecera, codigo, antes, path_minimo)

    poner.carpeta = carpeta
    return poner


class DriveFalso:
    """``google.colab.drive`` falso: ``mount(punto)`` crea ``<punto>/MyDrive`` y lo apunta."""

    def __init__(self, falla: Exception | None = None, crea: bool = True):
        self.montajes: list[str] = []
        self.falla = falla
        self.crea = crea

    def mount(self, punto):
        self.montajes.append(punto)
        if self.falla:
            raise self.falla
        if self.crea:
            (Path(punto) / "MyDrive").mkdir(parents=True)


@pytest.fixture
def sin_colab(monkeypatch):
    """Fuera de Colab: ni ``google.colab`` importado ni ``COLAB_RELEASE_TAG``."""
    monkeypatch.delenv("COLAB_RELEASE_TAG", raising=False)
    monkeypatch.delitem(sys.modules, "google.colab", raising=False)


@pytest.fixture
def colab_falso(monkeypatch):
    """Un kernel de Colab: ``google.colab`` importado, con su ``drive`` (un ``DriveFalso``)."""
    drive = DriveFalso()
    paquete = types.ModuleType("google")
    modulo = types.ModuleType("google.colab")
    modulo.drive = drive
    paquete.colab = modulo
    monkeypatch.setitem(sys.modules, "google", paquete)
    monkeypatch.setitem(sys.modules, "google.colab", modulo)
    monkeypatch.setitem(sys.modules, "google.colab.drive", drive)
    return drive


class _Falta:
    """``falta(motivo)``: salta con el motivo; en CI (variable ``CI=true``) falla."""

    @staticmethod
    def en_ci() -> bool:
        return os.environ.get("CI", "").strip().lower() in ("1", "true", "yes")

    def __call__(self, motivo: str):
        if self.en_ci():
            pytest.fail(f"{motivo} (en CI=true esto es un error, no un salto)", pytrace=False)
        pytest.skip(motivo)


@pytest.fixture(scope="session")
def falta():
    """Saltar (o, en CI, fallar) cuando falta algo del sistema: Tk, Xvfb, JupyterLab, Chromium..."""
    return _Falta()


@fixture_lenta(scope="session")
def chromium(falta):
    """El Chromium sin pantalla de toda la sesión (``tests/chromium.py``); se cierra al final."""
    with chromium_sin_pantalla(falta) as navegador:
        yield navegador


@pytest.fixture
def t4():
    """La T4 simulada encendida durante la prueba (y apagada después); se salta con una GPU de verdad."""
    import torch

    from curso_gpu.dispositivo import simulacion_activa, simular_gpu

    if torch.cuda.is_available():
        pytest.skip("esta máquina tiene una GPU de verdad: la simulación no se enciende")
    with simular_gpu("T4") as perfil:
        yield perfil
    assert not simulacion_activa()
