"""Lección 05: la versión rápida de benchmarks/tortura_checkpoints.py (unos segundos).

SIGKILL a mitad de entrenar, dos escritores y un lector, dos entrenamientos en una carpeta,
bits cambiados, enlaces plantados y disco lleno: nada perdido, nada roto, nada de fuera tocado.
"""

import importlib.util
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.lento  # SIGKILL a procesos y bytes cambiados

RUTA = Path(__file__).resolve().parent.parent / "benchmarks" / "tortura_checkpoints.py"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="usa fork y señales de Linux")
def test_tortura_rapida_nada_perdido_nada_roto_nada_de_fuera_tocado(tmp_path):
    especificacion = importlib.util.spec_from_file_location("tortura_checkpoints", RUTA)
    tortura = importlib.util.module_from_spec(especificacion)
    especificacion.loader.exec_module(tortura)
    cuenta = tortura.torturar(segundos=1.5, raiz=tmp_path)
    assert tortura.malas(cuenta) == {}
    assert cuenta["entrenamientos completados a trozos"] >= 1
    assert cuenta["bits detectados (se usó el anterior)"] >= 1
    assert cuenta["lecturas sanas (escritores)"] >= 1
    assert cuenta["segundo entrenamiento rechazado"] + cuenta["no coincidieron en el tiempo"] == 1
    assert cuenta["«anteriores» plantado rechazado"] == 1
    assert cuenta["disco lleno (simulado): error claro, historial y 3 anteriores intactos"] == 1
    assert cuenta["disco lleno (rlimit): error claro, historial y 3 anteriores intactos"] == 1
    assert cuenta["enlaces plantados"] == 15 and cuenta["víctimas de enlaces cambiadas"] == 0
    assert cuenta["archivos de fuera cambiados"] == 0
