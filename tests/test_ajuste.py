"""Lección 09: LoRA a mano y con peft, cuántos parámetros entrena, la memoria de ajustar, el
bucle con checkpoints del adaptador, la fusión y los errores en español.

Todo en la CPU con el modelo diminuto (sin red); Qwen2.5 se construye en ``meta``.
"""

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from ajustar_lora_con_cortes import EPOCAS, ajustar_con_cortes
from curso_gpu.ajuste import (
    ARQUITECTURAS,
    BYTES_NF4,
    TEXTO_ENTRENAMIENTO,
    CuantizacionNoDisponible,
    DesgloseAjuste,
    LoRALineal,
    ajustar,
    aplicar_lora,
    config_4_bits,
    config_de,
    cuantizacion,
    elegir_capas,
    estado_adaptador,
    guardar_adaptador,
    memoria_ajuste,
    modelo_diminuto,
    modelo_en_meta,
    parametros_lora,
    tabla_metodos,
)
from curso_gpu.base import UNSCALE_FP16
from curso_gpu.guardado import AvisoCheckpoint, carpeta_checkpoints, como_carpeta
from curso_gpu.memoria import DesgloseMemoria, medir_memoria_entrenamiento
from curso_gpu.rendimiento import PrecisionNoDisponible
from interrupciones import Desconexion, cortar_en, matar_al_llegar

RAIZ = Path(__file__).resolve().parent.parent
SCRIPT = RAIZ / "tests" / "ajustar_lora_con_cortes.py"


@pytest.fixture(autouse=True)
def un_hilo():
    """Con un modelo de 64 de ancho, repartir cada operación entre hilos cuesta más que hacerla."""
    hilos = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(hilos)


def _iguales(a: dict, b: dict) -> bool:
    return a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


def _con_lora(r=4, alpha=8, modulos=None, semilla_lora=1):
    modelo, tokenizador = modelo_diminuto(semilla=0)
    torch.manual_seed(semilla_lora)
    return aplicar_lora(modelo, r=r, alpha=alpha, modulos=modulos), tokenizador


# --- El modelo diminuto ---------------------------------------------------------------------

def test_modelo_diminuto_es_reproducible_y_genera_por_lotes_con_relleno_a_la_izquierda():
    modelo, tokenizador = modelo_diminuto(semilla=0)
    otro, _ = modelo_diminuto(semilla=0)
    distinto, _ = modelo_diminuto(semilla=1)
    assert _iguales(modelo.state_dict(), otro.state_dict())
    assert not torch.equal(modelo.lm_head.weight, distinto.lm_head.weight)
    assert modelo.config.hidden_size == 64 and modelo.config.num_hidden_layers == 2
    assert modelo.config.num_key_value_heads < modelo.config.num_attention_heads  # GQA, como Qwen2.5
    # El texto de la lección se tokeniza sin caracteres desconocidos y vuelve igual.
    ids = tokenizador(TEXTO_ENTRENAMIENTO)["input_ids"]
    assert tokenizador.unk_token_id not in ids
    assert tokenizador.decode(ids) == TEXTO_ENTRENAMIENTO
    tokenizador.padding_side = "left"
    lote = tokenizador(["Hola GPU.", "La"], padding=True, return_tensors="pt")
    assert lote["input_ids"][1, 0] == tokenizador.pad_token_id and lote["attention_mask"][1, 0] == 0
    salida = modelo.generate(**lote, max_new_tokens=4, do_sample=False)
    assert salida.shape == (2, lote["input_ids"].shape[1] + 4)
    assert tokenizador.batch_decode(salida, skip_special_tokens=True)[1].startswith("La")


# --- LoRA a mano y con peft -----------------------------------------------------------------

def test_lora_a_mano_empieza_dando_lo_mismo_que_la_capa_y_solo_entrena_a_y_b():
    torch.manual_seed(0)
    capa = torch.nn.Linear(16, 8)
    lora = LoRALineal(capa, r=2, alpha=4)
    x = torch.randn(3, 16)
    assert torch.equal(lora(x), capa(x))  # B = 0: al principio no cambia nada
    assert [n for n, p in lora.named_parameters() if p.requires_grad] == ["A", "B"]
    assert lora.escala == 2.0


def test_lora_a_mano_da_lo_mismo_que_peft_con_los_mismos_pesos():
    modelo_peft, tokenizador = _con_lora(r=4, alpha=8)
    with torch.no_grad():  # B ≠ 0, para que el adaptador cuente
        for nombre, p in modelo_peft.named_parameters():
            if "lora_B" in nombre:
                p.copy_(torch.randn_like(p) * 0.1)
    # El mismo modelo base con LoRALineal en cada capa que adaptó peft, con sus A y B.
    a_mano, _ = modelo_diminuto(semilla=0)
    for nombre, capa in elegir_capas(a_mano).items():
        de_peft = modelo_peft.get_submodule("base_model.model." + nombre)
        propia = LoRALineal(capa, r=4, alpha=8)
        with torch.no_grad():
            propia.A.copy_(de_peft.lora_A["default"].weight)
            propia.B.copy_(de_peft.lora_B["default"].weight)
        padre, _, hijo = nombre.rpartition(".")
        setattr(a_mano.get_submodule(padre), hijo, propia)
    ids = tokenizador(["La GPU hace muchas cuentas."], return_tensors="pt")["input_ids"]
    with torch.no_grad():
        esperado = modelo_peft(input_ids=ids).logits
        obtenido = a_mano(input_ids=ids).logits
    assert (esperado - obtenido).abs().max().item() <= 1e-6
    # Y el adaptador sí cambia la salida: la comparación no es trivial.
    base, _ = modelo_diminuto(semilla=0)
    with torch.no_grad():
        assert (base(input_ids=ids).logits - esperado).abs().max().item() > 1e-3


# --- Cuántos parámetros entrena LoRA --------------------------------------------------------

def test_qwen25_05b_en_meta_tiene_494_millones_y_lora_r16_entrena_8_798_208():
    config = config_de("Qwen2.5-0.5B")
    modelo = modelo_en_meta(config)
    assert all(p.device.type == "meta" for p in modelo.parameters())
    total = sum(p.numel() for p in modelo.parameters())
    assert total == 494_032_768  # la ficha: «0.49B»
    assert parametros_lora(config, r=16) == 8_798_208
    assert parametros_lora(modelo, r=16) == 8_798_208
    assert round(100 * 8_798_208 / total, 1) == 1.8
    # r·(entradas + salidas) por capa: q y v de 896 → 896 y 896 → 128, en 24 bloques.
    assert parametros_lora(config, r=16, modulos=["q_proj", "v_proj"]) == 24 * 16 * ((896 + 896) + (896 + 128))


def test_qwen25_7b_en_meta_tiene_7610_millones():
    assert sum(p.numel() for p in modelo_en_meta("Qwen2.5-7B").parameters()) == 7_615_616_512  # «7.61B»


@pytest.mark.parametrize("modulos", [None, ["q_proj", "v_proj"], ["down_proj"]])
def test_parametros_lora_coincide_con_lo_que_cuenta_peft(modulos):
    modelo, _ = modelo_diminuto()
    esperado = parametros_lora(modelo, r=4, modulos=modulos)
    entrenables, _ = aplicar_lora(modelo, r=4, modulos=modulos).get_nb_trainable_parameters()
    assert entrenables == esperado > 0


# --- Errores en español ---------------------------------------------------------------------

@pytest.mark.parametrize("r", [0, -4, 2.5, True, "8"])
def test_un_r_imposible_da_un_error_en_espanol(r):
    modelo, _ = modelo_diminuto()
    for llamada in (lambda: parametros_lora(modelo, r), lambda: LoRALineal(torch.nn.Linear(4, 4), r, 8),
                    lambda: aplicar_lora(modelo, r=r)):
        with pytest.raises(ValueError, match="r debe ser un entero mayor que 0"):
            llamada()


def test_target_modules_que_no_existe_da_un_error_que_dice_los_nombres_validos():
    modelo, _ = modelo_diminuto()
    with pytest.raises(ValueError) as error:
        aplicar_lora(modelo, r=4, modulos=["q_proj", "query"])  # «query» es de BERT, no de Qwen2
    texto = str(error.value)
    assert "'query' no coincide con ninguna capa lineal" in texto
    assert "q_proj" in texto and "down_proj" in texto
    with pytest.raises(ValueError, match="no coincide"):
        parametros_lora(modelo, 4, modulos="mlp")  # un bloque, no una capa lineal


def test_cuatro_bits_sin_cuda_dice_que_hace_falta_una_gpu(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with pytest.raises(CuantizacionNoDisponible, match="necesita una GPU NVIDIA con CUDA"):
        config_4_bits()


def test_cuatro_bits_sin_bitsandbytes_dice_como_instalarlo(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(cuantizacion, "bitsandbytes_instalado", lambda: False)
    with pytest.raises(CuantizacionNoDisponible, match="pip install bitsandbytes"):
        config_4_bits()


def _gpu_falsa(monkeypatch, capacidad, nombre):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "is_bf16_supported", lambda *a, **k: True)
    monkeypatch.setattr(torch.cuda, "get_device_capability", lambda *a: capacidad)
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda *a: nombre)
    monkeypatch.setattr(cuantizacion, "bitsandbytes_instalado", lambda: True)


def test_bf16_en_una_t4_da_error_y_propone_fp16(monkeypatch):
    _gpu_falsa(monkeypatch, (7, 5), "Tesla T4")
    with pytest.raises(PrecisionNoDisponible, match="Usa precision='fp16'"):
        config_4_bits("bf16")
    config = config_4_bits("fp16")
    assert config.load_in_4bit and config.bnb_4bit_quant_type == "nf4"
    assert config.bnb_4bit_compute_dtype == torch.float16


def test_bf16_en_una_a100_vale(monkeypatch):
    _gpu_falsa(monkeypatch, (8, 0), "NVIDIA A100-SXM4-40GB")
    assert config_4_bits("bf16").bnb_4bit_compute_dtype == torch.bfloat16


def test_la_t4_simulada_no_carga_en_4_bits_aunque_haya_bitsandbytes(monkeypatch):
    from curso_gpu.dispositivo import simular_gpu

    monkeypatch.setattr(cuantizacion, "bitsandbytes_instalado", lambda: True)
    with simular_gpu("T4"):
        with pytest.raises(CuantizacionNoDisponible, match="Tesla T4 es simulada .*GPU NVIDIA de verdad"):
            config_4_bits("fp16")
        assert "simulada" in cuantizacion.motivo_sin_qlora()


def test_bf16_en_una_t4_se_rechaza_antes_de_pedir_bitsandbytes(monkeypatch):
    from curso_gpu.dispositivo import simular_gpu

    monkeypatch.setattr(cuantizacion, "bitsandbytes_instalado", lambda: False)
    with simular_gpu("T4"), pytest.raises(PrecisionNoDisponible, match=r"Tesla T4 \(capacidad 7.5\).*precision='fp16'"):
        config_4_bits("bf16")


class _Conexion:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def test_motivo_sin_qlora_dice_que_falta_gpu_descargas_o_red(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert "necesita una GPU NVIDIA con CUDA" in cuantizacion.motivo_sin_qlora()
    _gpu_falsa(monkeypatch, (7, 5), "Tesla T4")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    assert cuantizacion.motivo_sin_qlora().startswith("HF_HUB_OFFLINE=1")
    monkeypatch.delenv("HF_HUB_OFFLINE")
    pedidas = []

    def sin_red(direccion, timeout):
        pedidas.append((direccion, timeout))
        raise OSError("Name or service not known")

    monkeypatch.setattr(cuantizacion.socket, "create_connection", sin_red)
    motivo = cuantizacion.motivo_sin_qlora(segundos=0.5)
    assert motivo.startswith("no hay conexión con huggingface.co") and "Name or service not known" in motivo
    assert pedidas == [(("huggingface.co", 443), 0.5)]
    monkeypatch.setattr(cuantizacion.socket, "create_connection", lambda direccion, timeout: _Conexion())
    assert cuantizacion.motivo_sin_qlora() is None  # GPU, bitsandbytes y red: se puede


def test_cargar_en_4_bits_pide_nf4_directo_a_la_gpu_en_fp16(monkeypatch):
    import transformers

    _gpu_falsa(monkeypatch, (7, 5), "Tesla T4")
    llamadas = {}

    def modelo_falso(nombre, **opciones):
        llamadas["modelo"] = (nombre, opciones)
        return "modelo"

    monkeypatch.setattr(transformers.AutoModelForCausalLM, "from_pretrained", modelo_falso)
    monkeypatch.setattr(transformers.AutoTokenizer, "from_pretrained", lambda nombre: f"tokenizador de {nombre}")
    assert cuantizacion.cargar_en_4_bits("Qwen/Qwen2.5-0.5B") == ("modelo", "tokenizador de Qwen/Qwen2.5-0.5B")
    nombre, opciones = llamadas["modelo"]
    assert nombre == "Qwen/Qwen2.5-0.5B" and opciones["device_map"] == {"": 0}
    assert opciones["quantization_config"].load_in_4bit and opciones["quantization_config"].bnb_4bit_use_double_quant
    assert opciones["dtype" if int(transformers.__version__.split(".")[0]) >= 5 else "torch_dtype"] == torch.float16
    with pytest.raises(PrecisionNoDisponible):  # una T4 no calcula en bf16: nada se descarga
        cuantizacion.cargar_en_4_bits("Qwen/Qwen2.5-0.5B", "bf16")
    with pytest.raises(ValueError, match="nombre debe ser el nombre de un modelo del Hub"):
        cuantizacion.cargar_en_4_bits("  ")
    assert list(llamadas) == ["modelo"]


def test_el_error_de_unscale_con_un_adaptador_en_fp16_es_el_de_torch():
    capa = torch.nn.Linear(4, 4).half()  # el adaptador en fp16: el error de la lección
    optimizador = torch.optim.SGD(capa.parameters(), lr=0.1)
    escalador = torch.amp.GradScaler("cpu")
    escalador.scale(capa(torch.randn(2, 4, dtype=torch.float16)).float().sum()).backward()
    with pytest.raises(ValueError) as error:
        escalador.step(optimizador)
    assert str(error.value) == UNSCALE_FP16


# --- Memoria de ajustar ---------------------------------------------------------------------

def test_medir_por_bloques_da_lo_mismo_que_medir_el_modelo_entero():
    from transformers import Qwen2Config

    config = Qwen2Config(**{**ARQUITECTURAS["Qwen2.5-0.5B"], "num_hidden_layers": 4})
    for metodo in ("completo", "lora"):
        d = memoria_ajuste(config, metodo, "fp16", lote=2, secuencia=64)
        modelo = modelo_en_meta(config)
        if metodo == "lora":
            modelo = aplicar_lora(modelo, r=16, alpha=32)
        entero = medir_memoria_entrenamiento(modelo, torch.zeros(2, 64, dtype=torch.long, device="meta"),
                                             "adamw", "fp16")
        assert d.activaciones == entero.activaciones
        assert d.gradientes == entero.gradientes and d.optimizador == entero.optimizador
        if metodo == "completo":
            assert d.pesos == entero.pesos  # la regla de la lección 07, la misma cuenta


def test_memoria_ajuste_sigue_las_reglas_de_las_lecciones_04_y_07():
    config = config_de("Qwen2.5-0.5B")
    total = 494_032_768
    completo = memoria_ajuste(config, "completo", "fp32", lote=1, secuencia=32)
    assert isinstance(completo, DesgloseMemoria)  # el mismo tipo de tabla que la lección 07
    assert completo.gradientes == 4 * total and completo.optimizador == 8 * total  # Adam: 2 estados fp32
    assert completo.pesos >= 4 * total
    lora = memoria_ajuste(config, "lora", "fp16", lote=1, secuencia=32, r=16)
    assert lora.parametros == 8_798_208
    assert lora.gradientes == 4 * 8_798_208 and lora.optimizador == 8 * 8_798_208  # adaptador en fp32
    buffers = sum(b.numel() * b.element_size() for b in modelo_en_meta(config).buffers())  # RoPE
    assert lora.pesos == 2 * total + 4 * 8_798_208 + 2 * 8_798_208 + buffers  # base fp16 + adaptador + copia
    qlora = memoria_ajuste(config, "qlora", "fp16", lote=1, secuencia=32, r=16)
    assert qlora.pesos < lora.pesos and qlora.activaciones == lora.activaciones
    assert BYTES_NF4 == pytest.approx(0.5 + 0.127 / 8, abs=1e-4)  # QLoRA, sección 3
    mas_largo = memoria_ajuste(config, "lora", "fp16", lote=1, secuencia=64, r=16)
    assert mas_largo.activaciones > lora.activaciones and mas_largo.pesos == lora.pesos


def test_la_tabla_de_metodos_dice_que_7b_entero_no_cabe_en_una_t4_y_con_qlora_si():
    d7 = [memoria_ajuste("Qwen2.5-7B", m, "fp16", lote=1, secuencia=16) for m in ("completo", "qlora")]
    tabla = tabla_metodos(d7)
    veredictos = [fila[-1].texto for fila in tabla.filas]
    assert veredictos == ["NO cabe", "cabe"]
    assert isinstance(d7[1], DesgloseAjuste) and "QLoRA" in str(d7[1])


@pytest.mark.parametrize("argumentos, texto", [
    (dict(metodo="prefijo"), "metodo desconocido"),
    (dict(metodo="qlora", precision="fp32"), "QLoRA calcula en 16 bits"),
    (dict(lote=0), "lote debe ser un entero mayor o igual que 1"),
    (dict(secuencia=-1), "secuencia debe ser"),
    (dict(precision="fp8"), "precision desconocida"),
])
def test_memoria_ajuste_explica_lo_que_esta_mal(argumentos, texto):
    with pytest.raises(ValueError, match=texto):
        memoria_ajuste("Qwen2.5-0.5B", **argumentos)


# --- Entrenar el adaptador ------------------------------------------------------------------

def test_ajustar_con_un_lr_enorme_para_y_deja_intacto_el_ultimo_checkpoint(tmp_path):
    """lr=1e10 daba perdidas=[nan, nan, nan] sin decir nada, y guardaba pesos NaN. Ahora para como entrenar."""
    from curso_gpu.entrenamiento import PerdidaNoFinita

    carpeta = tmp_path / "lora"
    ajustar(*_con_lora(), epocas=1, checkpoints=carpeta, avisar=lambda _: None)
    antes = {p.name: p.read_bytes() for p in carpeta.glob("checkpoint_*.pt")}
    assert sorted(antes) == ["checkpoint_epoca_000001.pt"]
    with pytest.raises(PerdidaNoFinita, match=r"época 2: paro el entrenamiento.*prueba lr=1e\+09") as error:
        with pytest.warns(AvisoCheckpoint, match="lr 0.01 → 10000000000.0"):  # sigue desde la 1 y lo dice
            ajustar(*_con_lora(), epocas=2, lr=1e10, checkpoints=carpeta, avisar=lambda _: None)
    assert error.value.historial.epocas_registradas == [1]  # la del checkpoint; la 2 no acabó
    assert {p.name: p.read_bytes() for p in carpeta.glob("checkpoint_*.pt")} == antes  # byte a byte, y sin la 2
    with pytest.raises(PerdidaNoFinita, match="época 1"):  # y sin checkpoints, igual
        ajustar(*_con_lora(), epocas=1, lr=1e10, avisar=lambda _: None)


def test_el_resultado_de_ajustar_se_lee_como_una_tabla_tambien_sin_print():
    """La celda de reanudar de la lección 09 acaba en «resultado»: se veía la dataclass en bruto."""
    from curso_gpu.ajuste import ResultadoAjuste

    resultado = ResultadoAjuste(perdidas=[4.35352098941803, 3.1], epocas=2, pasos=1200, segundos=0.20003531199927238,
                                reanudado_desde=1, ruta_checkpoint="lora/checkpoint_epoca_000002.pt",
                                bytes_checkpoint=243357, avisos=["Reanudo desde la época 1"])
    texto = repr(resultado)
    assert texto == str(resultado) and "ResultadoAjuste(" not in texto
    assert texto.splitlines()[0] == "Pérdida media por época (entropía cruzada)"
    assert [linea.split() for linea in texto.splitlines()[2:4]] == [["1", "4.3535"], ["2", "3.1000"]]
    assert "1 200 pasos en 200.035 ms" in texto  # el formato de la casa (formatear_numero y formatear_tiempo)
    assert "último checkpoint: lora/checkpoint_epoca_000002.pt (243 kB)" in texto  # formatear_bytes
    assert "Reanudo" not in texto  # ajustar ya lo dijo por avisar: no se repite
    assert "<table>" in resultado._repr_html_() and "4.3535" in resultado._repr_html_()


def test_ajustar_baja_la_perdida_y_no_toca_el_modelo_base(tmp_path):
    modelo, tokenizador = _con_lora(r=8, alpha=16)
    base_antes = {k: v.clone() for k, v in modelo.get_base_model().state_dict().items() if "lora_" not in k}
    resultado = ajustar(modelo, tokenizador, epocas=6, checkpoints=tmp_path / "lora", avisar=lambda _: None)
    assert resultado.perdidas[-1] < 0.8 * resultado.perdidas[0]
    base_despues = {k: v for k, v in modelo.get_base_model().state_dict().items() if "lora_" not in k}
    assert _iguales(base_antes, base_despues)  # bit a bit
    # El checkpoint lleva solo el adaptador (y el optimizador), no el modelo base.
    estado = torch.load(resultado.ruta_checkpoint, weights_only=True)
    assert set(estado["adaptador"]) == set(estado_adaptador(modelo)) and "modelo" not in estado
    assert all("lora_" in k for k in estado["adaptador"])
    assert len(list((tmp_path / "lora").glob("checkpoint_epoca_*.pt"))) == 3  # se conservan los últimos 3


def test_el_modelo_fusionado_da_los_mismos_logits_que_base_mas_adaptador():
    modelo, tokenizador = _con_lora()
    ajustar(modelo, tokenizador, epocas=2, avisar=lambda _: None)
    ids = tokenizador(["Con LoRA entrenas pocas matrices."], return_tensors="pt")["input_ids"]
    with torch.no_grad():
        con_adaptador = modelo(input_ids=ids).logits
        fusionado = modelo.merge_and_unload()
        assert not any("lora_" in n for n, _ in fusionado.named_parameters())
        assert (fusionado(input_ids=ids).logits - con_adaptador).abs().max().item() <= 1e-5


@pytest.mark.filterwarnings("ignore:`is_gradient_checkpointing` is deprecated:FutureWarning")  # peft 0.21 y transformers 5
def test_el_adaptador_guardado_se_carga_con_peft_y_da_lo_mismo(tmp_path):
    from peft import PeftModel

    modelo, tokenizador = _con_lora()
    ajustar(modelo, tokenizador, epocas=2, avisar=lambda _: None)
    archivos = guardar_adaptador(modelo, tmp_path / "adaptador")
    assert {a.name for a in archivos} >= {"adapter_config.json", "adapter_model.safetensors"}
    assert not [p for p in (tmp_path / "adaptador").iterdir() if p.name.startswith(".")]  # sin temporales
    tamano = (tmp_path / "adaptador" / "adapter_model.safetensors").stat().st_size
    n = sum(p.numel() for p in modelo.parameters() if p.requires_grad)
    assert 4 * n <= tamano < 4 * n + 20_000  # fp32, más la cabecera de safetensors
    base, _ = modelo_diminuto(semilla=0)
    cargado = PeftModel.from_pretrained(base, tmp_path / "adaptador")
    ids = tokenizador(["Mide antes de creer."], return_tensors="pt")["input_ids"]
    with torch.no_grad():
        assert torch.equal(cargado(input_ids=ids).logits, modelo(input_ids=ids).logits)


@pytest.mark.parametrize("como", ["ruta", "objeto"])
def test_cortar_y_reanudar_en_el_mismo_proceso_da_el_mismo_adaptador_bit_a_bit(tmp_path, como):
    seguido, r_seguido = ajustar_con_cortes(tmp_path / "a")
    # Como la lección 09: una carpeta_checkpoints(...) sin cada guarda un checkpoint por época.
    carpeta = tmp_path / "b" if como == "ruta" else carpeta_checkpoints("b", base=tmp_path, silenciosa=True)
    with pytest.raises(Desconexion):
        ajustar_con_cortes(carpeta, al_terminar_epoca=cortar_en(3))
    assert sorted(p.name for p in (tmp_path / "b").glob("checkpoint_*.pt")) == [
        f"checkpoint_epoca_00000{e}.pt" for e in (1, 2, 3)]
    reanudado, r_reanudado = ajustar_con_cortes(carpeta)
    assert r_reanudado.reanudado_desde == 3
    assert _iguales(seguido, reanudado)
    assert r_reanudado.perdidas == r_seguido.perdidas and len(r_reanudado.perdidas) == EPOCAS


def test_una_carpeta_con_su_cada_lo_conserva_y_la_contradiccion_se_rechaza(tmp_path):
    sin_cada = carpeta_checkpoints("x", base=tmp_path, silenciosa=True)
    assert sin_cada.cada is None and como_carpeta(sin_cada, cada_por_defecto=1).cada == 1  # la toma
    con_cada = carpeta_checkpoints("y", base=tmp_path, cada=2, silenciosa=True)
    assert como_carpeta(con_cada, cada_por_defecto=1).cada == 2  # la conserva
    with pytest.raises(ValueError, match=r"ya dice cada=2 y aquí se pide cada=1: no sé cuál quieres\. Pasa la "
                                         r"carpeta cambiada, carpeta\.con\(cada=1\)"):
        como_carpeta(con_cada, cada=1)
    modelo, tokenizador = _con_lora()
    resultado = ajustar(modelo, tokenizador, epocas=4, checkpoints=con_cada, avisar=lambda _: None)
    assert resultado.ruta_checkpoint.endswith("checkpoint_epoca_000004.pt")
    assert sorted(p.name for p in (tmp_path / "y").glob("checkpoint_*.pt")) == [
        "checkpoint_epoca_000002.pt", "checkpoint_epoca_000004.pt"]


@pytest.mark.lento
def test_matado_con_sigkill_y_reanudado_da_el_mismo_adaptador_bit_a_bit(tmp_path):
    """Como una sesión de Colab que se desconecta: el proceso muere sin avisar tras la época 3.

    El que muere es otro proceso; el que reanuda es este, con un modelo recién creado: solo lo
    que quedó en el disco pasa de uno a otro (un tercer proceso solo volvería a importar torch,
    transformers y peft).
    """
    if not hasattr(signal, "SIGKILL"):
        pytest.skip("SIGKILL no existe en Windows")
    entorno = dict(os.environ, PYTHONPATH=os.pathsep.join([str(RAIZ), str(RAIZ / "tests")]))
    marca = tmp_path / "en_la_epoca_3"
    # --objeto: ajustar recibe carpeta_checkpoints(...) sin cada, como en la lección 09
    orden = [sys.executable, str(SCRIPT), "--carpeta", str(tmp_path / "b"), "--salida", str(tmp_path / "b.pt"),
             "--objeto"]
    victima = subprocess.Popen(orden + ["--parar-en", "3", "--marca", str(marca)], env=entorno)
    try:
        seguido, r_seguido = ajustar_con_cortes(tmp_path / "a")  # la referencia, mientras tanto
        matar_al_llegar(victima, marca, 180, "el ajuste llegara a la época 3")
    finally:
        if victima.poll() is None:
            victima.kill()
            victima.wait(timeout=30)
    assert not (tmp_path / "b.pt").exists()
    assert sorted(p.name for p in (tmp_path / "b").glob("checkpoint_*.pt"))[-1] == "checkpoint_epoca_000003.pt"
    # como la lección 09 (y el guion con --objeto): carpeta_checkpoints(...) sin cada
    with pytest.warns(AvisoCheckpoint, match=rf"tenía el candado de un entrenamiento que ya no existe \(pid {victima.pid} "):
        reanudado, r_reanudado = ajustar_con_cortes(carpeta_checkpoints("b", base=tmp_path, silenciosa=True))
    assert r_reanudado.reanudado_desde == 3
    assert _iguales(seguido, reanudado)
    assert r_reanudado.perdidas == r_seguido.perdidas and len(r_reanudado.perdidas) == EPOCAS


# --- ajustar comprueba todo antes de empezar ---------------------------------------------------

@pytest.mark.parametrize("argumentos, texto", [
    (dict(epocas=1.5), r"epocas debe ser un entero mayor o igual que 1; recibí 1\.5 \(no es un número entero\)\. "
                       r"Prueba, por ejemplo, epocas=8"),
    (dict(epocas=0), r"epocas debe ser un entero mayor o igual que 1; recibí 0"),
    (dict(tamano_lote=0), r"tamano_lote debe ser un entero mayor o igual que 1; recibí 0 .*tamano_lote=4"),
    (dict(secuencia=-5), r"secuencia debe ser un entero entre 2 y \d+; recibí -5 .*secuencia=32"),
    (dict(secuencia=1), r"secuencia debe ser un entero entre 2 y \d+; recibí 1 .*ningún siguiente token"),
    (dict(secuencia=10**6), r"secuencia debe ser un entero entre 2 y 512; recibí 1000000"),
    (dict(lr=-0.01), r"lr debe ser un número mayor que 0; recibí -0\.01 \(es demasiado pequeño\)\. Prueba, por ejemplo, lr=0\.01"),
    (dict(lr=float("inf")), r"lr debe ser un número mayor que 0; recibí inf"),
    (dict(semilla=-1), r"semilla debe ser un entero mayor o igual que 0; recibí -1"),
    (dict(texto=None), r"texto debe ser un texto \(str\) con algo escrito; recibí None\. Por ejemplo, "
                       r"texto=TEXTO_ENTRENAMIENTO"),
    (dict(texto="   "), r"texto debe ser un texto \(str\) con algo escrito"),
    (dict(texto="€€€∑∑∑☃☃☃" * 20), r"Ningún carácter del texto .* está en el alfabeto del modelo: entrenaría "
                                   r"solo con <unk>"),
    (dict(texto="€€€ ∑∑∑ ☃☃☃ " * 20), r"El 75% de los tokens del texto .* son <unk>"),
    (dict(avisar=42), r"avisar debe ser una función \(o None\); recibí 42\. Por ejemplo, avisar=print"),
    (dict(al_terminar_epoca="no"), r"al_terminar_epoca debe ser una función"),
    (dict(reanudar=False), r"unexpected keyword argument 'reanudar'"),
    (dict(lote=2), r"unexpected keyword argument 'lote'"),
])
def test_ajustar_rechaza_lo_que_no_vale_antes_de_empezar(argumentos, texto, tmp_path):
    modelo, tokenizador = _con_lora()
    antes = estado_adaptador(modelo)
    with pytest.raises((ValueError, TypeError), match=texto):
        ajustar(modelo, tokenizador, epocas=argumentos.pop("epocas", 2), checkpoints=tmp_path / "ck",
                avisar=argumentos.pop("avisar", lambda _: None), **argumentos)
    assert _iguales(antes, estado_adaptador(modelo))  # nada entrenado
    assert not (tmp_path / "ck").exists() or not list((tmp_path / "ck").iterdir())  # nada escrito


def test_ajustar_sin_adaptador_dice_como_ponerlo():
    modelo, tokenizador = modelo_diminuto(semilla=0)
    with pytest.raises(ValueError, match=r"El modelo \(Qwen2ForCausalLM\) no tiene adaptador LoRA: ajustar solo "
                                         r"entrena el adaptador\. Pónselo antes con modelo = aplicar_lora\(modelo"):
        ajustar(modelo, tokenizador, epocas=1)
    with pytest.raises(ValueError, match=r"ajustar necesita un modelo de transformers con adaptador LoRA; recibí NoneType"):
        ajustar(None, tokenizador, epocas=1)


def test_una_carpeta_de_adaptador_y_una_de_cnn_no_se_cruzan(tmp_path):
    from curso_gpu.entrenamiento import CNNPequena, entrenar, generar_dataset

    modelo, tokenizador = _con_lora()
    ajustar(modelo, tokenizador, epocas=1, checkpoints=tmp_path / "lora", avisar=lambda _: None)
    datos = generar_dataset(4, semilla=0)
    with pytest.raises(ValueError, match=r"escrito por ajustar \(lección 09\)\) no corresponde a este modelo: es de "
                                         r"un Qwen2ForCausalLM con LoRA y ahora entrenar \(lección 05\) entrena un CNNPequena"):
        entrenar(CNNPequena(), datos, datos, "cpu", epocas=2, checkpoints=tmp_path / "lora", silencioso=True)
    entrenar(CNNPequena(), datos, datos, "cpu", epocas=1, checkpoints=tmp_path / "cnn", silencioso=True)
    with pytest.raises(ValueError, match=r"escrito por entrenar \(lección 05\)\) no corresponde a este modelo: es de "
                                         r"un CNNPequena y ahora ajustar \(lección 09\) entrena un Qwen2ForCausalLM con LoRA"):
        ajustar(modelo, tokenizador, epocas=2, checkpoints=tmp_path / "cnn", avisar=lambda _: None)


def test_avisar_none_es_silencio_tambien_al_reanudar(tmp_path, capsys):
    """avisar=None pasaba la comprobación y el mensaje de reanudar lo llamaba: TypeError de entrenar_lora.py."""
    carpeta = tmp_path / "lora"
    ajustar(*_con_lora(), epocas=1, checkpoints=carpeta, avisar=None)
    with pytest.warns(AvisoCheckpoint, match="Reanudo desde"):  # sigue desde la época 1 (el aviso, aparte)
        resultado = ajustar(*_con_lora(), epocas=2, checkpoints=carpeta, avisar=None)
    assert resultado.reanudado_desde == 1 and len(resultado.perdidas) == 2
    assert any("época 1" in aviso for aviso in resultado.avisos)  # el mensaje existe, guardado, sin imprimirse
    assert capsys.readouterr().out == ""  # nada impreso: None es silencio, como al_terminar_epoca=None


def test_con_activation_checkpointing_cada_bloque_guarda_su_entrada_y_uno_se_recalcula():
    from transformers import Qwen2Config

    config = Qwen2Config(**{**ARQUITECTURAS["Qwen2.5-0.5B"], "num_hidden_layers": 4})
    uno = Qwen2Config(**{**ARQUITECTURAS["Qwen2.5-0.5B"], "num_hidden_layers": 1})
    sin = memoria_ajuste(config, "completo", "fp16", lote=2, secuencia=64)
    con = memoria_ajuste(config, "completo", "fp16", lote=2, secuencia=64, checkpointing=True)
    entrada = 2 * 64 * config.hidden_size * 4  # la corriente residual de un bloque, en fp32
    un_bloque = medir_memoria_entrenamiento(modelo_en_meta(uno), torch.zeros(2, 64, dtype=torch.long, device="meta"),
                                            "adamw", "fp16")
    assert con.activaciones == un_bloque.activaciones + 4 * entrada
    assert con.activaciones < sin.activaciones and con.pesos == sin.pesos
    with pytest.raises(ValueError, match="checkpointing debe ser True o False"):
        memoria_ajuste(config, checkpointing="sí")
