"""Lección 05: entrenar, evaluar y predecir comprueban lo que reciben antes de calcular.

Cada caso daba antes un número sin sentido o un error de las tripas de torch, en inglés.
"""

from __future__ import annotations

import math
from decimal import Decimal

import numpy as np
import pytest
import torch
from torch import nn

from curso_gpu.entrenamiento import generar_dataset, generar_datos_tabulares
from curso_gpu.entrenamiento import entrenar, evaluar, fijar_semilla, predecir
from curso_gpu.entrenamiento import CNNPequena, MLPTabular

ENT, VAL = generar_dataset(6, semilla=1), generar_dataset(3, semilla=2)


def _modelo():
    torch.manual_seed(0)
    return CNNPequena()


def _con_X(X, y=None):
    return (X, ENT[1] if y is None else y)


# --- Tensores de entrada ---------------------------------------------------------------------------

@pytest.mark.parametrize("datos, patron", [
    (_con_X(ENT[0][:, 0]), r"datos_entrenamiento: el modelo CNNPequena no acepta X con forma \[18, 8, 8\] "
                           r"\(torch.float32\)\. Espera X con forma \[N, 1, 8, 8\]\. Añade el canal con X.unsqueeze\(1\)"),
    (_con_X(ENT[0].double()), r"X es torch.float64 y el modelo usa torch.float32.*X.float\(\)"),
    (_con_X((ENT[0] > 0.5).long()), r"X es de tipo torch.int64.*X.float\(\)"),
    (_con_X(ENT[0], ENT[1].float()), r"y debe ser un vector de etiquetas enteras de 0 a 2.*torch.float32.*y.long\(\)"),
    (_con_X(ENT[0], ENT[1] + 1), r"y tiene etiquetas de 1 a 3, pero deben ir de 0 a 2"),
    (_con_X(ENT[0], ENT[1] - 1), r"y tiene etiquetas de -1 a 1"),
    (_con_X(ENT[0].masked_fill(torch.arange(18).reshape(18, 1, 1, 1) == 4, math.nan)), r"X tiene valores NaN o infinitos"),
    (_con_X(ENT[0].masked_fill(torch.arange(18).reshape(18, 1, 1, 1) == 4, math.inf)), r"X tiene valores NaN o infinitos"),
    (_con_X(ENT[0], ENT[1][:5]), r"mismo número de ejemplos"),
    (_con_X(ENT[0][0, 0, 0, 0]), r"una fila por ejemplo"),
    (None, r"datos_entrenamiento es None: pasa una tupla \(X, y\)"),
])
def test_datos_mal_formados_dan_un_error_que_dice_que_tensor_y_como_arreglarlo(datos, patron):
    with pytest.raises(ValueError, match=patron):
        entrenar(_modelo(), datos, VAL, "cpu", epocas=1, silencioso=True)


def test_los_datos_de_validacion_tambien_se_comprueban():
    with pytest.raises(ValueError, match=r"datos_validacion: y tiene etiquetas de 1 a 5"):
        entrenar(_modelo(), ENT, (VAL[0], VAL[1] * 2 + 1), "cpu", epocas=1, silencioso=True)


def test_entrenar_sin_modelo():
    with pytest.raises(ValueError, match=r"modelo debe ser una red de PyTorch \(un nn.Module.*recibí None"):
        entrenar(None, ENT, VAL, "cpu", epocas=1)


def test_un_logit_con_entropia_cruzada_da_error_claro():
    ent = generar_datos_tabulares(20, semilla=1)
    with pytest.raises(ValueError, match=r"salidas de forma \[2\].*un logit por clase.*BCEWithLogitsLoss"):
        entrenar(MLPTabular(), ent, ent, "cpu", epocas=1, criterio=nn.CrossEntropyLoss(), silencioso=True)


def test_evaluar_la_red_tabular_usa_la_perdida_binaria():
    torch.manual_seed(0)
    modelo, ent = MLPTabular(), generar_datos_tabulares(30, semilla=1)
    perdida, accuracy = evaluar(modelo, *ent, "cpu")
    esperada = nn.functional.binary_cross_entropy_with_logits(modelo(ent[0]), ent[1].float()).item()
    assert perdida == pytest.approx(esperada, rel=1e-6) and 0 <= accuracy <= 1


def test_evaluar_comprueba_tambien_los_datos():
    with pytest.raises(ValueError, match=r"Los datos a evaluar: y tiene etiquetas de 1 a 7"):
        evaluar(_modelo(), VAL[0], VAL[1] * 3 + 1, "cpu")
    with pytest.raises(ValueError, match="modelo debe ser una red"):
        evaluar("modelo", *VAL, "cpu")


@pytest.mark.parametrize("lote", [-1, 0, 2.5, "8"])
def test_evaluar_con_tamano_de_lote_no_valido(lote):
    with pytest.raises(ValueError, match=r"tamano_lote debe ser un entero mayor o igual que 1; recibí"):
        evaluar(_modelo(), *VAL, "cpu", tamano_lote=lote)


def test_predecir_con_un_modelo_que_no_es_de_imagenes():
    with pytest.raises(ValueError, match=r"El modelo MLPTabular no acepta una imagen \[1, 1, 8, 8\]"):
        predecir(MLPTabular(), torch.zeros(8, 8), "cpu")
    with pytest.raises(ValueError, match="modelo debe ser una red"):
        predecir(None, torch.zeros(8, 8), "cpu")


def test_un_modelo_en_meta_se_rechaza_sin_tocarlo():
    """Antes: «NotImplementedError: Cannot copy out of meta tensor; no data!» desde modelo.to(dispositivo)."""
    modelo = _modelo().to("meta")
    with pytest.raises(ValueError, match=r"modelo \(CNNPequena\) tiene sus pesos en el dispositivo 'meta'.*"
                                         r"Crea el modelo sin 'meta'.*to_empty\(device='cpu'\)"):
        entrenar(modelo, ENT, VAL, "cpu", epocas=1, silencioso=True)
    assert all(p.is_meta for p in modelo.parameters())


# --- Números ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("semilla", ["0", 1.5, 2**70, -1, True])
def test_semilla_no_valida_da_error_claro(semilla):
    with pytest.raises(ValueError, match=r"^semilla debe ser un entero .*; recibí .*Prueba, por ejemplo, semilla=0 \(o None\)\.$"):
        entrenar(_modelo(), ENT, VAL, "cpu", epocas=1, semilla=semilla, silencioso=True)
    with pytest.raises(ValueError, match="semilla debe ser un entero"):
        fijar_semilla(semilla)


@pytest.mark.parametrize("lr", [10**400, Decimal("NaN"), Decimal("-1"), np.float64("inf")])
def test_lr_enorme_o_raro_da_error_claro_sin_overflow(lr):
    with pytest.raises(ValueError, match="lr debe ser un número mayor que 0"):
        entrenar(_modelo(), ENT, VAL, "cpu", epocas=1, lr=lr, silencioso=True)


def test_numeros_de_numpy_y_decimal_valen_como_los_de_python():
    normal, numpy = _modelo(), _modelo()
    h1 = entrenar(normal, ENT, VAL, "cpu", epocas=3, lr=0.01, tamano_lote=8, semilla=4, silencioso=True)
    h2 = entrenar(numpy, ENT, VAL, "cpu", epocas=np.int64(3), lr=Decimal("0.01"), tamano_lote=np.int32(8),
                  semilla=np.int64(4), silencioso=True)
    assert h1.epocas_registradas == h2.epocas_registradas == [1, 3]
    assert all(torch.equal(a, b) for a, b in zip(normal.state_dict().values(), numpy.state_dict().values()))
    assert evaluar(normal, *VAL, "cpu", tamano_lote=np.int64(4)) == evaluar(normal, *VAL, "cpu", tamano_lote=4)
    fijar_semilla(np.uint32(7))
    a = torch.rand(2)
    fijar_semilla(7)
    assert torch.equal(a, torch.rand(2))
