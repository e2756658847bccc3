"""Lección 10: la caché KV calculada y medida, el techo del ancho de banda y generar por lotes."""

import pytest
import torch

from curso_gpu.ajuste import config_de, modelo_diminuto
from curso_gpu.base import tabla_picos
from curso_gpu.generacion import (
    MedicionGeneracion,
    avisos_de_transformers,
    bytes_cache_kv,
    bytes_de_cache,
    cache_de,
    medir_generacion,
    preparar_lote,
    techo_tokens_por_segundo,
)

TEXTOS = ["La GPU hace muchas cuentas", "Hola", "Una T4 tiene dieciséis gigas"]


def config_qwen25_05b():
    """La arquitectura de Qwen2.5-0.5B de la lección 09 (valores de su config.json, con su fuente)."""
    return config_de("Qwen2.5-0.5B")


@pytest.fixture(scope="module", autouse=True)
def un_hilo():
    """Un solo hilo: en una CPU de 2 núcleos compartida, dos hilos por paso diminuto van mucho más lentos."""
    antes = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(antes)


@pytest.fixture(scope="module")
def diminuto():
    return modelo_diminuto(semilla=0)


def _voraz(modelo, tokenizador, entrada, **opciones):
    with torch.inference_mode():
        return modelo.generate(**entrada, max_new_tokens=12, do_sample=False,
                               pad_token_id=tokenizador.pad_token_id, **opciones)


def test_qwen25_05b_en_fp16_guarda_12288_bytes_por_token():
    config = config_qwen25_05b()
    assert bytes_cache_kv(config, tokens=1) == 12_288  # 2 · 24 · 2 · 64 · 2 bytes: 12 KiB
    assert bytes_cache_kv(config, tokens=32_768) == 384 * 2**20  # 384 MiB con 32 k tokens
    assert bytes_cache_kv(config, tokens=1, lote=8, bytes_por_valor="fp32") == 8 * 2 * 12_288


def test_la_cuenta_es_la_cache_real_del_modelo_diminuto(diminuto):
    modelo, tokenizador = diminuto
    entrada = tokenizador("La GPU hace muchas cuentas", return_tensors="pt")
    with torch.inference_mode():
        salida = modelo(**entrada, use_cache=True)
    tokens = entrada["input_ids"].shape[1]
    assert bytes_de_cache(cache_de(salida)) == bytes_cache_kv(modelo.config, tokens, bytes_por_valor=4) > 0

    # Tras generar un lote, la caché tiene la entrada con relleno y todos los pasos menos el último.
    lote = preparar_lote(tokenizador, TEXTOS)
    with torch.inference_mode():
        salida = modelo.generate(**lote, max_new_tokens=7, min_new_tokens=7, do_sample=False,
                                 pad_token_id=tokenizador.pad_token_id, return_dict_in_generate=True)
    largo = lote["input_ids"].shape[1] + 7 - 1
    assert bytes_de_cache(cache_de(salida)) == bytes_cache_kv(modelo.config, largo, lote=3, bytes_por_valor=4)


def test_voraz_con_y_sin_cache_da_el_mismo_texto(diminuto):
    modelo, tokenizador = diminuto
    entrada = tokenizador("Con LoRA entrenas pocas matrices", return_tensors="pt")
    con = _voraz(modelo, tokenizador, entrada, use_cache=True)
    sin = _voraz(modelo, tokenizador, entrada, use_cache=False)
    assert torch.equal(con, sin)


def test_lote_con_relleno_a_la_izquierda_da_lo_mismo_que_uno_a_uno(diminuto):
    modelo, tokenizador = diminuto
    uno_a_uno = [tokenizador.decode(_voraz(modelo, tokenizador, tokenizador(t, return_tensors="pt"))[0],
                                    skip_special_tokens=True) for t in TEXTOS]
    lote = preparar_lote(tokenizador, TEXTOS)
    assert lote["input_ids"][1, 0] == tokenizador.pad_token_id  # el corto, rellenado por delante
    en_lote = tokenizador.batch_decode(_voraz(modelo, tokenizador, lote), skip_special_tokens=True)
    assert en_lote == uno_a_uno

    # Con relleno a la derecha, los textos cortos siguen tras el relleno: salen otros (el error clásico),
    # y transformers lo avisa.
    assert tokenizador.padding_side == "right"  # preparar_lote no cambia el tokenizador
    derecha = tokenizador(TEXTOS, return_tensors="pt", padding=True)
    with avisos_de_transformers() as avisos:
        mal = tokenizador.batch_decode(_voraz(modelo, tokenizador, derecha), skip_special_tokens=True)
    assert mal[0] != uno_a_uno[0] and mal[2] == uno_a_uno[2]  # el más largo no lleva relleno
    assert any("right-padding" in aviso for aviso in avisos)


def test_el_techo_de_una_t4_con_qwen25_05b_en_fp16():
    bytes_pesos = 494_032_768 * 2  # parámetros de Qwen2.5-0.5B (embeddings atados) en fp16: 0.99 GB
    techo = techo_tokens_por_segundo(bytes_pesos, "Tesla T4")
    assert techo == pytest.approx(320e9 / bytes_pesos) == pytest.approx(323.9, abs=0.1)
    assert techo_tokens_por_segundo(bytes_pesos, 320, lote=4) == pytest.approx(4 * techo)
    # Leer además la caché (1000 tokens de 12 KiB) baja el techo.
    assert techo_tokens_por_segundo(bytes_pesos, 320, bytes_cache=12_288_000) < techo


def test_la_tabla_de_gpu_da_el_ancho_de_banda_de_su_ficha():
    for fila in tabla_picos():
        assert fila.ancho_de_banda_gb_s and fila.ancho_de_banda_gb_s > 0, fila.nombre
    assert techo_tokens_por_segundo(1e9, "NVIDIA A100-SXM4-80GB") == pytest.approx(2039)
    assert techo_tokens_por_segundo(1e9, "NVIDIA A100-PCIE-40GB") == pytest.approx(1555)
    assert techo_tokens_por_segundo(1e9, "NVIDIA H100 80GB HBM3") == pytest.approx(3350)


def test_medir_generacion_cuenta_tokens_tiempos_y_cache(diminuto):
    modelo, tokenizador = diminuto
    medida = medir_generacion(modelo, tokenizador, TEXTOS, max_tokens_nuevos=6, repeticiones=1)
    assert isinstance(medida, MedicionGeneracion)
    assert medida.lote == 3 and medida.pasos <= 6 and 3 <= medida.tokens_nuevos <= 18
    assert 0 < medida.segundos_primer_token < medida.segundos
    assert medida.tokens_por_segundo == pytest.approx(medida.tokens_nuevos / medida.segundos)
    largo = medida.tokens_entrada + medida.pasos - 1
    assert medida.bytes_cache == bytes_cache_kv(modelo.config, largo, lote=3, bytes_por_valor=4)
    texto = str(medida)
    assert "tokens/s" in texto and "primer token" in texto
    assert "<table>" in medida._repr_html_()
    assert [t[:len(o)] for t, o in zip(medida.textos, TEXTOS)] == TEXTOS


@pytest.mark.parametrize("llamada, mensaje", [
    (lambda: bytes_cache_kv(config_qwen25_05b(), tokens=0), "tokens .* mayor o igual que 1; recibí 0"),
    (lambda: bytes_cache_kv(config_qwen25_05b(), tokens=10, lote=0), "lote .* recibí 0"),
    (lambda: bytes_cache_kv(config_qwen25_05b(), tokens=10, bytes_por_valor=0), "bytes_por_valor .* fp16"),
    (lambda: bytes_cache_kv({"capas": 2}, tokens=10), "configuración no tiene num_hidden_layers"),
    (lambda: techo_tokens_por_segundo(1e9, "GPU inventada"), "GPU desconocida .*NVIDIA T4.*NVIDIA H100 SXM"),
    (lambda: techo_tokens_por_segundo(0, 320), r"bytes_pesos .*debe ser un número mayor que 0; recibí 0"),
    (lambda: techo_tokens_por_segundo(1e9, -5), "ancho_de_banda .* mayor que 0; recibí -5"),
    (lambda: techo_tokens_por_segundo(1e9, 320, lote=0), "lote .* recibí 0"),
])
def test_errores_en_espanol(llamada, mensaje):
    with pytest.raises(ValueError, match=mensaje):
        llamada()


def test_un_lote_sin_token_de_relleno_da_un_error_que_dice_que_hacer(diminuto):
    modelo, tokenizador = diminuto
    import copy

    otro = copy.deepcopy(tokenizador)
    otro.pad_token = None
    with pytest.raises(ValueError, match="no tiene token de relleno.*pad_token = tokenizador.eos_token"):
        medir_generacion(modelo, otro, TEXTOS, max_tokens_nuevos=2)
    with pytest.raises(ValueError, match="max_tokens_nuevos .* recibí 0"):
        medir_generacion(modelo, tokenizador, TEXTOS, max_tokens_nuevos=0)
    with pytest.raises(ValueError, match="textos debe ser"):
        medir_generacion(modelo, tokenizador, [], max_tokens_nuevos=2)
