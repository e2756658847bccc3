"""Entradas malas en la generación (lección 10): un error en español que nombra el dato, o el valor bueno.

Con el modelo diminuto (512 tokens de contexto) hecho en memoria: nada se descarga.
"""

from __future__ import annotations

import math
from decimal import Decimal

import numpy as np
import pytest
import torch

from curso_gpu.ajuste import modelo_diminuto
from curso_gpu.generacion import (
    ancho_de_banda_de,
    bytes_cache_kv,
    bytes_de_cache,
    cache_de,
    forma_de_atencion,
    medir_ancho_de_banda,
    medir_generacion,
    preparar_lote,
    techo_tokens_por_segundo,
)


@pytest.fixture(scope="module")
def diminuto():
    return modelo_diminuto()


def _generar(modelo, tokenizador, **opciones):
    with torch.inference_mode():
        return modelo.generate(**tokenizador(["La GPU"], return_tensors="pt"), max_new_tokens=3, do_sample=False,
                               pad_token_id=tokenizador.pad_token_id, **opciones)


# --- techo y caché: números de NumPy y Decimal valen; inf y nan no -------------------------

def test_techo_y_cache_aceptan_numpy_y_decimal(diminuto):
    config = diminuto[0].config
    assert techo_tokens_por_segundo(np.int64(10**9), np.float32(320)) == pytest.approx(320)
    assert techo_tokens_por_segundo(Decimal("1e9"), 320, lote=np.int64(2), bytes_cache=Decimal(0)) == pytest.approx(640)
    assert bytes_cache_kv(config, np.int64(16), bytes_por_valor=np.float32(4)) == bytes_cache_kv(config, 16, bytes_por_valor=4)
    assert bytes_cache_kv(config, 16, lote=np.int64(2), bytes_por_valor=Decimal(2)) == bytes_cache_kv(config, 16, 2, "fp16")


@pytest.mark.parametrize("llamada, mensaje", [
    (lambda: techo_tokens_por_segundo(math.inf, 320), r"bytes_pesos .*debe ser un número mayor que 0; recibí inf \(es infinito\)"),
    (lambda: techo_tokens_por_segundo(1e9, 320, bytes_cache=math.nan), r"bytes_cache .*recibí nan \(es NaN"),
    (lambda: techo_tokens_por_segundo(1e9, 320, bytes_cache=-1), r"bytes_cache .*mayor o igual que 0; recibí -1"),
    (lambda: techo_tokens_por_segundo(1e9, math.inf), r"ancho_de_banda .*recibí inf"),
    (lambda: techo_tokens_por_segundo(1e9, "T5"), r"ancho_de_banda: GPU desconocida 'T5'.*NVIDIA T4"),
    (lambda: techo_tokens_por_segundo(1e9, 320, lote=True), r"lote .*debe ser un entero.*es un booleano"),
    (lambda: ancho_de_banda_de(None), r"nombre_gpu: GPU desconocida None"),
    (lambda: bytes_cache_kv(modelo_diminuto()[0].config, 16, bytes_por_valor=math.nan),
     r"bytes_por_valor .*recibí nan \(es NaN: no es un número\)"),
    (lambda: bytes_cache_kv(modelo_diminuto()[0].config, 16, bytes_por_valor="fp7"),
     r"bytes_por_valor: precision desconocida 'fp7'"),
    (lambda: bytes_cache_kv(None, 16), r"config: la configuración no tiene num_hidden_layers"),
    (lambda: forma_de_atencion("Qwen"), r"config_o_modelo: la configuración no tiene"),
    (lambda: medir_ancho_de_banda(megabytes=10**6), r"megabytes .*entre 1 y 4096; recibí 1000000"),
    (lambda: medir_ancho_de_banda(repeticiones=10**9), r"repeticiones debe ser un entero entre 1 y 1000"),
])
def test_errores_en_espanol(llamada, mensaje):
    with pytest.raises(ValueError, match=mensaje):
        llamada()


# --- bytes_de_cache: sin caché no es 0 -------------------------------------------------------

def test_bytes_de_cache_sin_cache_es_un_error_y_no_un_cero(diminuto):
    modelo, tokenizador = diminuto
    sin_cache = _generar(modelo, tokenizador, return_dict_in_generate=True, use_cache=False)
    with pytest.raises(ValueError, match=r"cache es None: no hay caché KV que medir.*return_dict_in_generate=True"):
        bytes_de_cache(cache_de(sin_cache))
    with pytest.raises(ValueError, match=r"cache es None"):
        bytes_de_cache(sin_cache)  # la salida entera, sin caché dentro
    solo_tokens = _generar(modelo, tokenizador)
    with pytest.raises(ValueError, match=r"cache debe ser la caché KV, no un tensor suelto \(recibí uno de forma \[1, 9\]"):
        bytes_de_cache(solo_tokens)


def test_bytes_de_cache_de_la_salida_entera_es_el_de_su_cache(diminuto):
    modelo, tokenizador = diminuto
    salida = _generar(modelo, tokenizador, return_dict_in_generate=True)
    medido = bytes_de_cache(cache_de(salida))
    assert medido > 0 and bytes_de_cache(salida) == medido


# --- medir_generacion y preparar_lote ----------------------------------------------------------

def test_medir_generacion_respeta_el_contexto_del_modelo_y_lo_dice_antes(diminuto):
    modelo, tokenizador = diminuto
    with pytest.raises(ValueError, match=r"max_tokens_nuevos=100000 no cabe: el modelo ve como mucho 512 tokens .*"
                                         r"la entrada ya ocupa 6\. Pide como mucho max_tokens_nuevos=506"):
        medir_generacion(modelo, tokenizador, ["La GPU"], max_tokens_nuevos=100_000)


@pytest.mark.parametrize("argumentos, mensaje", [
    (dict(modelo=None), r"modelo debe ser un modelo de lenguaje de transformers, que sabe generar"),
    (dict(modelo=torch.nn.Linear(2, 2)), r"modelo debe ser un modelo de lenguaje.*de tipo Linear"),
    (dict(tokenizador="tok"), r"tokenizador debe ser el tokenizador de transformers del modelo"),
    (dict(textos=[]), r"textos debe ser un texto o una lista de textos no vacíos; recibí \[\]"),
    (dict(textos=["La GPU", ""]), r"textos debe ser .*no vacíos"),
    (dict(max_tokens_nuevos=2.5), r"max_tokens_nuevos .*debe ser un entero.*no es un número entero"),
    (dict(repeticiones=10**9), r"repeticiones debe ser un entero entre 1 y 100"),
    (dict(dispositivo="gpu9"), r"gpu9"),
])
def test_medir_generacion_comprueba_todo_antes_de_generar(diminuto, argumentos, mensaje):
    modelo, tokenizador = diminuto
    datos = dict(modelo=modelo, tokenizador=tokenizador, textos=["La GPU"], max_tokens_nuevos=2, repeticiones=1)
    datos.update(argumentos)
    with pytest.raises(ValueError, match=mensaje):
        medir_generacion(**datos)


def test_preparar_lote_sin_tokenizador(diminuto):
    with pytest.raises(ValueError, match=r"tokenizador debe ser el tokenizador de transformers.*recibí None"):
        preparar_lote(None, ["La GPU"])


def test_medir_generacion_sigue_midiendo_lo_valido(diminuto):
    modelo, tokenizador = diminuto
    medida = medir_generacion(modelo, tokenizador, ["La GPU"], max_tokens_nuevos=np.int64(4), repeticiones=1)
    assert medida.pasos == 4 and medida.bytes_cache > 0


# --- medir_barrido y el adaptador de la lección 09 -----------------------------------------------

@pytest.mark.parametrize("argumentos, mensaje", [
    (dict(textos=[]), r"textos debe ser un texto o una lista de textos no vacíos; recibí \[\]"),
    (dict(lotes=4), r"lotes debe ser una lista de tamaños de lote, p. ej. lotes=\(1, 4, 16\); recibí 4"),
    (dict(lotes=(1, 0)), r"lote \(cada uno de lotes\) debe ser un entero entre 1 y 4096; recibí 0"),
    (dict(max_tokens_nuevos=100_000), r"max_tokens_nuevos=100000 no cabe: el modelo ve como mucho 512 tokens"),
    (dict(repeticiones=10**9), r"repeticiones debe ser un entero entre 1 y 100"),
    (dict(ancho_de_banda_gb_s=math.nan), r"ancho_de_banda_gb_s debe ser un número mayor que 0; recibí nan"),
    (dict(compilar=42), r"compilar debe ser una función como torch.compile"),
    (dict(modelo="Qwen"), r"modelo debe ser un modelo de lenguaje de transformers"),
])
def test_medir_barrido_comprueba_todo_antes_de_generar(diminuto, argumentos, mensaje):
    from curso_gpu.generacion import medir_barrido

    modelo, tokenizador = diminuto
    datos = dict(modelo=modelo, tokenizador=tokenizador, textos=["La GPU"], lotes=(1,), max_tokens_nuevos=2,
                 repeticiones=1)
    datos.update(argumentos)
    with pytest.raises(ValueError, match=mensaje):
        medir_barrido(datos.pop("modelo"), datos.pop("tokenizador"), datos.pop("textos"), **datos)


def test_cargar_un_adaptador_que_no_esta_lo_dice(diminuto, tmp_path):
    from curso_gpu.generacion import buscar_adaptador, cargar_adaptador, cargar_para_generar

    with pytest.raises(ValueError, match=r"carpeta .*: no tiene un adaptador completo de peft.*guardar_adaptador"):
        cargar_adaptador(modelo_diminuto()[0], tmp_path)
    with pytest.raises(ValueError, match=r"modelo_base debe ser el modelo de transformers"):
        cargar_adaptador(None, tmp_path)
    with pytest.raises(ValueError, match=r"carpeta debe ser la ruta de la carpeta del adaptador"):
        buscar_adaptador(None)
    # Antes de descargar nada:
    with pytest.raises(ValueError, match=r"nombre debe ser el nombre de un modelo del Hub como texto"):
        cargar_para_generar(None, "cpu")
    with pytest.raises(ValueError, match=r"dtype debe ser un tipo de coma flotante de torch"):
        cargar_para_generar(dtype="fp16", dispositivo="cpu")
    with pytest.raises(ValueError, match=r"adaptador .*no tiene un adaptador completo de peft"):
        cargar_para_generar(adaptador=tmp_path, dispositivo="cpu")
