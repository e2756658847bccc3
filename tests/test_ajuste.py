"""Lección 09: LoRA a mano y con peft, el modelo diminuto, la memoria de ajustar y el adaptador."""

import torch

from curso_gpu.ajuste import TEXTO_ENTRENAMIENTO, modelo_diminuto


def test_modelo_diminuto_es_reproducible_y_genera_por_lotes_con_relleno_a_la_izquierda():
    modelo, tokenizador = modelo_diminuto(semilla=0)
    otro, _ = modelo_diminuto(semilla=0)
    distinto, _ = modelo_diminuto(semilla=1)
    assert all(torch.equal(a, b) for a, b in zip(modelo.state_dict().values(), otro.state_dict().values()))
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
