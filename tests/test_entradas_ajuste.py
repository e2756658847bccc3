"""Entradas malas en el ajuste con LoRA (lección 09): cada una, un error en español que nombra el dato.

Modelos diminutos hechos desde una configuración (Qwen2 de ``modelo_diminuto`` y un GPT-2 de 2
capas), nunca descargas. Cada prueba comprueba el mensaje, no solo el tipo de la excepción.
"""

from __future__ import annotations

import math
import os
from decimal import Decimal
from pathlib import Path

import numpy as np
import pytest
import torch

from curso_gpu.ajuste import (
    LoRALineal,
    aplicar_lora,
    config_de,
    guardar_adaptador,
    memoria_ajuste,
    modelo_diminuto,
    modelo_en_meta,
    parametros_lora,
    tabla_metodos,
    tiene_adaptador,
    tokenizador_diminuto,
)


def _gpt2_config():
    from transformers import GPT2Config

    return GPT2Config(n_layer=2, n_embd=32, n_head=2, vocab_size=64, n_positions=64, bos_token_id=0, eos_token_id=0)


@pytest.fixture
def base():
    return modelo_diminuto()[0]


# --- aplicar_lora ----------------------------------------------------------------------------

@pytest.mark.parametrize("modelo, mensaje", [
    (None, r"aplicar_lora necesita un modelo de PyTorch \(un nn.Module.*recibí None"),
    ("Qwen2.5-0.5B", r"aplicar_lora necesita un modelo.*de tipo str"),
])
def test_aplicar_lora_sin_modelo(modelo, mensaje):
    with pytest.raises(ValueError, match=mensaje):
        aplicar_lora(modelo)


@pytest.mark.parametrize("opciones, mensaje", [
    (dict(modulos=42), r"modulos \(los target_modules de peft\) debe ser una lista de nombres de capas.*recibí 42"),
    (dict(modulos=[]), r"modulos .*debe ser una lista de nombres.*recibí \[\]"),
    (dict(modulos=[1, 2]), r"modulos .*debe ser una lista de nombres.*recibí \[1, 2\]"),
    (dict(dropout="0.1"), r"dropout debe ser un número mayor o igual que 0 y menor que 1; recibí '0.1'"),
    (dict(dropout=-0.1), r"dropout debe ser un número .*; recibí -0.1 \(es demasiado pequeño\)"),
    (dict(dropout=1.0), r"dropout .*menor que 1; recibí 1.0 \(es demasiado grande\)"),
    (dict(dropout=math.nan), r"dropout .*recibí nan \(es NaN"),
    (dict(r=2.5), r"r debe ser un entero mayor que 0; recibí 2.5 \(no es un número entero\).*r=8"),
    (dict(r=True), r"r debe ser un entero.*es un booleano"),
    (dict(alpha=math.inf), r"alpha debe ser un número mayor que 0; recibí inf \(es infinito\)"),
])
def test_aplicar_lora_explica_cada_opcion_mala(base, opciones, mensaje):
    with pytest.raises(ValueError, match=mensaje):
        aplicar_lora(base, **opciones)
    assert not tiene_adaptador(base), "nada se toca antes de comprobar"


def test_aplicar_lora_dos_veces_se_niega_y_explica_por_que(base):
    adaptado = aplicar_lora(base, r=4)
    for otra_vez in (base, adaptado):  # get_peft_model cambió también el base, en su sitio
        with pytest.raises(ValueError, match=r"ya tiene un adaptador LoRA \(¿ejecutaste otra vez la celda"):
            aplicar_lora(otra_vez, r=4)
    assert sum("lora_A" in n for n, _ in adaptado.named_parameters()) == 2 * 7  # 7 lineales × 2 bloques


def test_aplicar_lora_admite_numpy_y_decimal(base):
    modelo = aplicar_lora(base, r=np.int64(4), alpha=Decimal("8"), dropout=np.float32(0.05))
    assert modelo.peft_config["default"].r == 4 and modelo.peft_config["default"].lora_dropout == pytest.approx(0.05)


def test_aplicar_lora_al_gpt2pequeno_del_curso_se_niega_en_espanol():
    """peft fallaba con «AttributeError: prepare_inputs_for_generation»; y con task_type=None, el camino
    rápido de nn.TransformerEncoder en eval() se saltaría el adaptador sin avisar."""
    from curso_gpu.entrenamiento import GPT2Pequeno

    modelo = GPT2Pequeno(vocabulario=50, contexto=16, dimension=32, capas=1, cabezas=2)
    with pytest.raises(ValueError, match=r"aplicar_lora adapta modelos de lenguaje de transformers.*GPT2Pequeno no "
                                         r"es uno de ellos.*nn.TransformerEncoder.*se saltaría el adaptador.*"
                                         r"modelo_diminuto\(\)"):
        aplicar_lora(modelo)
    assert not tiene_adaptador(modelo), "nada se toca antes de comprobar"
    with pytest.raises(ValueError, match=r"CNNPequena no es uno de ellos.*envuélvelas con LoRALineal"):
        from curso_gpu.entrenamiento import CNNPequena

        aplicar_lora(CNNPequena())


def test_lora_lineal_con_datos_de_otro_ancho_lo_dice_en_espanol():
    capa = LoRALineal(torch.nn.Linear(4, 3), r=2, alpha=4)
    with pytest.raises(ValueError, match=r"nn.Linear de 4 entradas: x debe ser un tensor cuya última dimensión sea 4 "
                                         r"\(p. ej. de forma \[lote, 4\]\); recibí \[2, 5\].*in_features=5"):
        capa(torch.randn(2, 5))  # antes: «mat1 and mat2 shapes cannot be multiplied (2x5 and 4x3)»
    assert capa(torch.randn(2, 4)).shape == (2, 3)
    assert capa(torch.randn(6, 2, 4)).shape == (6, 2, 3)  # cualquier forma que acabe en 4


# --- GPT-2: Conv1D -----------------------------------------------------------------------------

def test_parametros_lora_y_memoria_ajuste_cuentan_el_conv1d_de_gpt2():
    from transformers import GPT2LMHeadModel

    config = _gpt2_config()
    # c_attn 32→96, c_proj 32→32, c_fc 32→128, mlp.c_proj 128→32, en 2 bloques, r=4
    esperado = 2 * 4 * ((32 + 96) + (32 + 32) + (32 + 128) + (128 + 32))
    assert parametros_lora(config, r=4) == esperado
    assert parametros_lora(config, r=4, modulos=["c_attn"]) == 2 * 4 * (32 + 96)
    modelo = aplicar_lora(GPT2LMHeadModel(config), r=4, modulos=["c_attn"])
    assert modelo.get_nb_trainable_parameters()[0] == parametros_lora(config, r=4, modulos=["c_attn"])
    assert memoria_ajuste(config, "lora", secuencia=16, r=4).parametros == esperado


def test_un_nombre_que_no_existe_en_gpt2_lista_los_que_si():
    from transformers import GPT2LMHeadModel

    with pytest.raises(ValueError, match=r"se llaman: c_attn, c_fc, c_proj\. Usa esos nombres"):
        aplicar_lora(GPT2LMHeadModel(_gpt2_config()), r=4, modulos=["q_proj"])


def test_un_modelo_sin_capas_lineales_lo_dice_en_vez_de_una_lista_vacia():
    with pytest.raises(ValueError, match=r"no tiene capas lineales en sus bloques.*LoRA no tendría nada que adaptar"):
        parametros_lora(torch.nn.Sequential(torch.nn.ReLU()), r=4)


# --- config_de, modelo_en_meta, memoria_ajuste, tabla_metodos ---------------------------------

@pytest.mark.parametrize("llamada, mensaje", [
    (lambda: config_de(["Qwen2.5-0.5B"]), r"nombre debe ser el nombre de un modelo como texto.*de tipo list"),
    (lambda: config_de("Llama-3"), r"nombre: no tengo la arquitectura de 'Llama-3'; conozco: 'Qwen2.5-0.5B'"),
    (lambda: modelo_en_meta(42), r"config debe ser una configuración de transformers.*recibí 42"),
    (lambda: parametros_lora(None, r=8), r"config_o_modelo debe ser una configuración de transformers"),
    (lambda: parametros_lora("Llama-3", r=8), r"config_o_modelo: no tengo la arquitectura de 'Llama-3'"),
    (lambda: memoria_ajuste("Llama-3"), r"config: no tengo la arquitectura"),
    (lambda: memoria_ajuste(_gpt2_config(), metodo="lora-4"), r"metodo desconocido 'lora-4'; usa uno de: completo"),
    (lambda: memoria_ajuste(_gpt2_config(), metodo=None), r"metodo desconocido None"),
    (lambda: memoria_ajuste(_gpt2_config(), r=0, metodo="lora"), r"r debe ser un entero mayor que 0; recibí 0"),
    (lambda: memoria_ajuste(_gpt2_config(), secuencia=65), r"secuencia debe ser un entero entre 1 y 64; recibí 65"),
    (lambda: memoria_ajuste(_gpt2_config(), nombre=3), r"nombre debe ser un texto"),
    (lambda: tabla_metodos(None), r"desgloses debe ser una lista de resultados de memoria_ajuste"),
    (lambda: LoRALineal(None, 4, 8), r"capa debe ser una nn.Linear \(la capa que LoRALineal envuelve\)"),
    (lambda: modelo_diminuto(semilla=-1), r"semilla debe ser un entero mayor o igual que 0; recibí -1"),
    (lambda: tokenizador_diminuto("arriba"), r"padding_side debe ser 'right' \(entrenar\) o 'left'"),
])
def test_errores_en_espanol(llamada, mensaje):
    with pytest.raises(ValueError, match=mensaje):
        llamada()


def test_nombres_y_metodos_sin_mirar_mayusculas():
    assert config_de(" qwen2.5-0.5b ").hidden_size == 896
    minusculas = memoria_ajuste(_gpt2_config(), "lora", secuencia=16, r=4)
    assert memoria_ajuste(_gpt2_config(), "LoRA", secuencia=16, r=4).total == minusculas.total


def test_config_4_bits_rechaza_una_precision_que_no_es_de_16_bits_antes_de_mirar_la_gpu():
    from curso_gpu.ajuste import config_4_bits

    with pytest.raises(ValueError, match=r"precision debe ser 'fp16' \(T4\) o 'bf16'.*recibí 'fp32'"):
        config_4_bits("fp32")


# --- guardar_adaptador -----------------------------------------------------------------------

def test_guardar_adaptador_de_un_modelo_sin_lora_se_niega(base, tmp_path):
    with pytest.raises(ValueError, match=r"necesita un modelo con adaptador LoRA.*guardaría el modelo entero"):
        guardar_adaptador(base, tmp_path / "adaptador")
    assert not (tmp_path / "adaptador").exists()


def test_guardar_adaptador_en_una_ruta_vacia_no_escribe_en_la_carpeta_actual(base, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValueError, match=r"carpeta \(donde guardar el adaptador\) está vacío: escribiría en la carpeta actual"):
        guardar_adaptador(aplicar_lora(base, r=4), "")
    assert list(tmp_path.iterdir()) == []


def test_guardar_adaptador_a_un_archivo_o_un_enlace_se_niega_sin_tocar_nada(base, tmp_path):
    adaptado = aplicar_lora(base, r=4)
    archivo = tmp_path / "notas.txt"
    archivo.write_text("mío")
    with pytest.raises(ValueError, match=r"es un archivo, no una carpeta"):
        guardar_adaptador(adaptado, archivo)
    assert archivo.read_text() == "mío"
    real = tmp_path / "real"
    real.mkdir()
    enlace = tmp_path / "enlace"
    enlace.symlink_to(real)
    with pytest.raises(ValueError, match=r"es un enlace simbólico y nunca escribo a través de uno"):
        guardar_adaptador(adaptado, enlace)
    assert list(real.iterdir()) == []


def test_guardar_adaptador_en_una_carpeta_de_solo_lectura_se_niega(base, tmp_path, monkeypatch):
    cerrada = tmp_path / "cerrada"
    cerrada.mkdir()
    cerrada.chmod(0o555)
    if os.geteuid() == 0:  # root escribe igual: se finge lo que vería un alumno sin permiso
        acceso = os.access
        monkeypatch.setattr(os, "access", lambda ruta, modo, **k: False if Path(ruta) == cerrada else acceso(ruta, modo, **k))
    try:
        with pytest.raises(ValueError, match=r"no tengo permiso para escribir en la carpeta .*cerrada"):
            guardar_adaptador(aplicar_lora(base, r=4), cerrada / "adaptador")
    finally:
        cerrada.chmod(0o755)
    assert list(cerrada.iterdir()) == []


def test_guardar_adaptador_sigue_guardando_lo_de_siempre(base, tmp_path):
    archivos = guardar_adaptador(aplicar_lora(base, r=4), tmp_path / "adaptador")
    assert {"adapter_config.json", "adapter_model.safetensors"} <= {a.name for a in archivos}
    # Guardar otra vez en la misma carpeta (la celda que se vuelve a ejecutar) sigue valiendo.
    otra_vez = guardar_adaptador(aplicar_lora(modelo_diminuto()[0], r=4), tmp_path / "adaptador")
    assert {a.name for a in otra_vez} == {a.name for a in archivos}
