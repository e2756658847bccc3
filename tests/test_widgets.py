"""Lección 05: la pizarra de 8×8 y el selector de dispositivo, con ipywidgets 8 y 7.7.1 (Colab)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))  # comprobar_widgets.py vive al lado
import comprobar_widgets as cw  # noqa: E402
from curso_gpu.entrenamiento import lineas_dibujadas
from curso_gpu.interactivo import AVISO_INACTIVA, AVISO_VACIA, LogicaPizarra
from ipywidgets_colab import RAIZ, instalar_ipywidgets7


@pytest.fixture(scope="module")
def modelo():
    return cw.modelo_entrenado()


# --- La lógica, sin widgets ---------------------------------------------------------------

def test_logica_empieza_vacia_e_inactiva():
    logica = LogicaPizarra()
    assert logica.vacia and not logica.activa
    assert logica.como_tensor().shape == (8, 8)
    assert logica.predecir() == AVISO_INACTIVA


def test_pintar_alternar_y_limpiar():
    logica = LogicaPizarra()
    logica.pintar(0, 7)
    assert logica.celdas[0][7] == 1 and not logica.vacia
    logica.pintar(0, 7)  # pintar dos veces no borra
    assert logica.celdas[0][7] == 1
    assert logica.alternar(0, 7) == 0
    assert logica.alternar(3, 3) == 1
    assert logica.como_tensor().sum().item() == 1
    logica.limpiar()
    assert logica.vacia


@pytest.mark.parametrize("fila, col", [(8, 0), (-1, 2), (0, 8), (1.5, 2), ("3", 3)])
def test_celda_fuera_de_la_cuadricula_da_error_claro(fila, col):
    with pytest.raises(ValueError, match="(fila|col) debe ser un entero entre 0 y 7"):
        LogicaPizarra().pintar(fila, col)


def test_cuadricula_vacia_avisa_en_vez_de_predecir(modelo):
    logica = LogicaPizarra()
    logica.habilitar(modelo, "cpu")
    assert logica.activa
    assert logica.predecir() == AVISO_VACIA


@pytest.mark.parametrize("clase, celdas", [
    ("vertical", [(f, 3) for f in range(8)]),
    ("horizontal", [(5, c) for c in range(8)]),
    ("oblicua", [(i, i) for i in range(8)]),
])
def test_dibujar_una_linea_predice_su_clase(modelo, clase, celdas):
    logica = LogicaPizarra(modelo, torch.device("cpu"))
    for fila, col in celdas:
        logica.pintar(fila, col)
    prediccion = logica.predecir()
    assert prediccion.clase == clase
    assert set(prediccion.probabilidades) == {"vertical", "horizontal", "oblicua"}
    assert abs(sum(prediccion.probabilidades.values()) - 1) < 1e-5
    assert max(prediccion.probabilidades, key=prediccion.probabilidades.get) == clase


def test_la_pizarra_acierta_las_lineas_dibujadas_a_mano(modelo):
    X, y = lineas_dibujadas()
    aciertos = 0
    for imagen, etiqueta in zip(X, y):
        logica = LogicaPizarra(modelo, "cpu")
        for fila, col in (imagen[0] == 1).nonzero().tolist():
            logica.pintar(fila, col)
        aciertos += logica.predecir().clase == ("vertical", "horizontal", "oblicua")[int(etiqueta)]
    assert aciertos / len(y) >= 0.9


# --- Los widgets de verdad, con el ipywidgets del entorno ---------------------------------

def test_pizarra_desactivada_hasta_terminar_el_entrenamiento():
    cw.comprobar_pizarra_desactivada_hasta_habilitar()


def test_dibujar_vertical_con_clics_predice_vertical(modelo):
    cw.comprobar_dibujar_vertical_predice_vertical(modelo)


def test_cuadricula_vacia_avisa_y_limpiar_borra(modelo):
    cw.comprobar_cuadricula_vacia_avisa_y_limpiar_borra(modelo)


def test_selector_aparece_solo_con_gpu():
    cw.comprobar_selector_con_gpu_falsa()
    cw.comprobar_selector_sin_gpu()


def test_selector_sin_gpu_no_muestra_botones(monkeypatch, capsys):
    from curso_gpu.interactivo import widgets

    monkeypatch.setattr(widgets, "dispositivos_disponibles", lambda: ["cpu"])
    monkeypatch.setattr(widgets, "elegir_dispositivo", lambda preferencia="auto": torch.device("cpu"))
    selector = widgets.selector_dispositivo()
    assert selector.widget is None and selector.dispositivo == torch.device("cpu")
    assert "se usará la CPU" in capsys.readouterr().out
    with pytest.raises(ValueError, match="no disponible"):
        selector.elegir("cuda:0")


# --- Los mismos widgets con ipywidgets 7.7.1, el de Google Colab ---------------------------

@pytest.mark.lento  # instala ipywidgets 7.7.1 y lo prueba en otro proceso
def test_widgets_funcionan_con_ipywidgets_7_7_1_de_colab(modelo, tmp_path):
    carpeta = instalar_ipywidgets7()
    pesos = tmp_path / "modelo.pt"  # el mismo modelo ya entrenado: el subproceso no entrena otro
    torch.save(modelo.state_dict(), pesos)
    entorno = dict(os.environ, PYTHONPATH=os.pathsep.join([str(carpeta), str(RAIZ)]))
    resultado = subprocess.run(
        [sys.executable, str(Path(__file__).with_name("comprobar_widgets.py")), str(pesos)],
        capture_output=True, text=True, env=entorno, cwd=RAIZ, timeout=300)
    salida = resultado.stdout + resultado.stderr
    assert resultado.returncode == 0, salida
    assert "ipywidgets 7.7.1: todas las comprobaciones pasan" in salida, salida


@pytest.mark.parametrize("malo", ["gpu", "cuda:٠", 5])
def test_un_dispositivo_que_no_existe_en_la_pizarra_se_explica_con_las_opciones(modelo, malo):
    logica = LogicaPizarra()
    with pytest.raises(ValueError, match=r"Dispositivo no válido.*Usa uno de: auto, cpu, cuda"):
        logica.habilitar(modelo, malo)
    assert not logica.activa, "tras el error la pizarra sigue desactivada"
    assert LogicaPizarra(modelo, "cpu").dispositivo == torch.device("cpu")
