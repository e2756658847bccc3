"""Lección 05: la CNN pequeña y la red tabular."""

from __future__ import annotations

import torch
from torch import nn

from curso_gpu.entrenamiento import (
    CNNPequena,
    MLPTabular,
    contar_parametros_entrenables,
)
from curso_gpu.dispositivo import dispositivo_del_modelo


def test_cnn_pequena_tiene_la_arquitectura_del_texto_base():
    m = CNNPequena()
    assert (m.conv1.in_channels, m.conv1.out_channels, m.conv1.kernel_size, m.conv1.padding) == (1, 8, (3, 3), (1, 1))
    assert (m.conv2.in_channels, m.conv2.out_channels, m.conv2.kernel_size, m.conv2.padding) == (8, 16, (3, 3), (1, 1))
    assert isinstance(m.relu, nn.ReLU) and m.pool.kernel_size == 2
    assert (m.fc1.in_features, m.fc1.out_features) == (64, 16)
    assert (m.fc2.in_features, m.fc2.out_features) == (16, 3)


def test_mismos_nombres_de_pesos_que_el_texto_base():
    """Un state_dict de la aplicación original se carga en CNNPequena y viceversa."""
    assert list(CNNPequena().state_dict()) == [
        "conv1.weight", "conv1.bias", "conv2.weight", "conv2.bias",
        "fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias",
    ]


def test_cnn_pequena_tiene_2339_parametros():
    # conv1 8·9+8, conv2 16·8·9+16, fc1 64·16+16, fc2 16·3+3
    assert contar_parametros_entrenables(CNNPequena()) == 80 + 1168 + 1040 + 51 == 2339


def test_de_8x8_a_tres_logits():
    salida = CNNPequena()(torch.rand(5, 1, 8, 8))
    assert salida.shape == (5, 3)


def test_version_ampliada_misma_forma_mas_ancha():
    grande = CNNPequena(canales=(64, 128), ocultas=256)
    assert grande(torch.rand(2, 1, 8, 8)).shape == (2, 3)
    assert contar_parametros_entrenables(grande) > 80 * contar_parametros_entrenables(CNNPequena())


def test_mlp_tabular_da_un_logit_por_fila():
    m = MLPTabular(entradas=2)
    assert m(torch.rand(7, 2)).shape == (7,)


def test_dispositivo_del_modelo():
    assert dispositivo_del_modelo(CNNPequena()) == torch.device("cpu")
    assert dispositivo_del_modelo(CNNPequena().to("meta")).type == "meta"
    assert dispositivo_del_modelo(nn.ReLU()) == torch.device("cpu")
