"""Lección 07: acumular gradientes da lo mismo que un lote grande, con la memoria de uno pequeño."""

from __future__ import annotations

import pytest
import torch

from curso_gpu.entrenamiento import bucle as entrenamiento  # se parchea en el módulo que lo usa
from curso_gpu.guardado import como_carpeta
from curso_gpu.entrenamiento import generar_dataset
from curso_gpu.entrenamiento import entrenar
from curso_gpu.entrenamiento import CNNPequena
from interrupciones import Desconexion, cortar_en

VAL = generar_dataset(10, semilla=2)


def _datos(n):
    X, y = generar_dataset((n + 2) // 3, semilla=1)
    return X[:n], y[:n]


def _entrenado(datos, epocas=3, **opciones):
    torch.manual_seed(0)
    modelo = CNNPequena()
    entrenar(modelo, datos, VAL, "cpu", epocas=epocas, semilla=5, silencioso=True, **opciones)
    return modelo


def _casi_iguales(a, b, tolerancia=1e-5):
    return all(torch.allclose(x, y, atol=tolerancia, rtol=0) for x, y in zip(a.state_dict().values(), b.state_dict().values()))


def _iguales(a, b):
    return all(torch.equal(x, y) for x, y in zip(a.state_dict().values(), b.state_dict().values()))


def test_8_por_4_acumulados_igual_que_lotes_de_32():
    datos = _datos(96)  # múltiplo de 32
    grande = _entrenado(datos, tamano_lote=32)
    acumulado = _entrenado(datos, tamano_lote=8, acumular=4)
    assert _casi_iguales(grande, acumulado)
    assert not _casi_iguales(grande, _entrenado(datos, tamano_lote=8))  # sin acumular, otro resultado


def test_el_ultimo_grupo_incompleto_pesa_lo_que_sus_ejemplos(monkeypatch):
    datos = _datos(84)  # 2 lotes de 32 y uno de 20: el último grupo son micro-lotes de 8, 8 y 4
    grande = _entrenado(datos, tamano_lote=32)
    assert _casi_iguales(grande, _entrenado(datos, tamano_lote=8, acumular=4))
    # Si cada micro-lote pesara 1/4 (como si el grupo estuviera lleno), el resultado cambiaría:
    monkeypatch.setattr(entrenamiento, "_ejemplos_del_grupo", lambda i, b, k, n: b * k)
    assert not _casi_iguales(grande, _entrenado(datos, tamano_lote=8, acumular=4))


def test_acumular_1_es_lo_de_siempre():
    datos = _datos(48)
    assert _iguales(_entrenado(datos, tamano_lote=16), _entrenado(datos, tamano_lote=16, acumular=1))


def test_acumulando_se_guarda_y_se_reanuda(tmp_path):
    datos = _datos(60)
    seguido = _entrenado(datos, epocas=4, tamano_lote=8, acumular=3)

    carpeta = tmp_path / "ck"
    with pytest.raises(Desconexion):
        _entrenado(datos, epocas=4, tamano_lote=8, acumular=3, checkpoints=como_carpeta(carpeta, cada=2),
                   al_avanzar=cortar_en(3))
    assert como_carpeta(carpeta).cargar_ultimo(torch.device("cpu"))["configuracion"]["acumular"] == 3
    reanudado = _entrenado(datos, epocas=4, tamano_lote=8, acumular=3,
                           checkpoints=como_carpeta(carpeta, cada=2, reanudar=True))
    assert _iguales(seguido, reanudado)


@pytest.mark.parametrize("acumular", [0, -2, 1.5, "4", True])
def test_acumular_no_valido_da_error_claro(acumular):
    with pytest.raises(ValueError, match="acumular debe ser un entero mayor o igual que 1"):
        entrenar(CNNPequena(), _datos(12), VAL, "cpu", epocas=1, tamano_lote=4, acumular=acumular)


def test_acumular_sin_tamano_de_lote_da_error_claro():
    with pytest.raises(ValueError, match="tamano_lote=8, acumular=4"):
        entrenar(CNNPequena(), _datos(12), VAL, "cpu", epocas=1, acumular=4)
