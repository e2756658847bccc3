"""Lección 10 en una GPU: el barrido de lotes alternado, el techo de cualquier GPU (conocida o no)
y el modelo de la lección 09 cargado para generar. La GPU y el Hub se sustituyen en la frontera:
el modelo diminuto en la CPU hace de Qwen2.5-0.5B y un nombre de GPU hace de la tarjeta."""

import pytest
import torch

from curso_gpu.ajuste import TEXTO_ENTRENAMIENTO, aplicar_lora, guardar_adaptador, modelo_diminuto
from curso_gpu.base import ancho_de_banda_conocido
from curso_gpu.generacion import (
    ADAPTADOR_DIMINUTO,
    VARIANTES,
    BarridoGeneracion,
    FilaBarrido,
    adaptador_diminuto,
    buscar_adaptador,
    cargar_para_generar,
    medir_barrido,
)


FRASES = [f.strip() + "." for f in TEXTO_ENTRENAMIENTO.split(".") if f.strip()]


@pytest.fixture(scope="module")
def diminuto():
    torch.manual_seed(0)
    return modelo_diminuto(semilla=0)


# ---------------------------------------------------------------------------
# El ancho de banda de cualquier GPU
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("nombre, gb_s", [("Tesla T4", 320.0), ("NVIDIA L4", 300.0),
                                          ("NVIDIA H100 80GB HBM3", 3350.0), ("NVIDIA GeForce RTX 4090", 1008.0)])
def test_el_ancho_de_banda_de_una_gpu_de_la_tabla_sale_de_su_ficha(nombre, gb_s):
    assert ancho_de_banda_conocido(nombre) == gb_s


@pytest.mark.parametrize("nombre", ["NVIDIA GeForce RTX 4070", "NVIDIA A10G", "NVIDIA GeForce RTX 4090 Laptop GPU",
                                    "NVIDIA GeForce RTX 3060 Laptop GPU", "", None])
def test_una_gpu_fuera_de_la_tabla_no_es_un_error_sino_un_ancho_desconocido(nombre):
    assert ancho_de_banda_conocido(nombre) is None


# ---------------------------------------------------------------------------
# medir_barrido: alterna, cuenta bien y habla de los datos
# ---------------------------------------------------------------------------

def _registrar_generate(modelo, monkeypatch):
    """Anota (lote, use_cache, cache_implementation) de cada generate, y lo deja hacer su trabajo."""
    llamadas = []
    original = modelo.generate

    def generate(*args, generation_config=None, **kwargs):
        llamadas.append((kwargs["input_ids"].shape[0], generation_config.use_cache,
                         getattr(generation_config, "cache_implementation", None)))
        return original(*args, generation_config=generation_config, **kwargs)

    monkeypatch.setattr(modelo, "generate", generate)
    return llamadas


def test_el_barrido_alterna_las_combinaciones_en_cada_ronda(diminuto, monkeypatch):
    modelo, tokenizador = diminuto
    llamadas = _registrar_generate(modelo, monkeypatch)
    barrido = medir_barrido(modelo, tokenizador, FRASES, lotes=(4, 1), variantes=VARIANTES[:2],
                            max_tokens_nuevos=3, repeticiones=3)
    orden = [(1, True, None), (4, True, None), (1, False, None), (4, False, None)]
    assert llamadas == orden + orden + orden[::-1] + orden  # calentamiento, y rondas que cambian de sentido
    assert [(f.variante, f.lote, len(f.segundos)) for f in barrido.filas] == \
        [("con caché", 1, 3), ("con caché", 4, 3), ("sin caché", 1, 3), ("sin caché", 4, 3)]
    assert barrido.fila("con caché", 4).tokens_nuevos == 12  # 3 tokens por texto, exactos


def test_en_una_gpu_que_no_conozco_mide_igual_y_dice_que_no_conoce_su_ancho_de_banda(diminuto):
    modelo, tokenizador = diminuto
    barrido = medir_barrido(modelo, tokenizador, FRASES, lotes=(1, 4), max_tokens_nuevos=2, repeticiones=1,
                            nombre_gpu="NVIDIA GeForce RTX 4070 Laptop GPU")
    assert barrido.ancho_de_banda_gb_s is None and barrido.techo(1) is None
    assert any("No conozco su ancho de banda (NVIDIA GeForce RTX 4070 Laptop GPU" in f for f in barrido.frases())
    assert "sin techo" in str(barrido) and barrido.fila("con caché", 4).tokens_por_segundo > 0


def test_en_una_t4_el_techo_sale_de_su_ficha_y_de_los_bytes_de_los_pesos(diminuto):
    modelo, tokenizador = diminuto
    barrido = medir_barrido(modelo, tokenizador, FRASES, lotes=(1, 4), max_tokens_nuevos=2, repeticiones=1,
                            nombre_gpu="Tesla T4")
    pesos = sum(p.numel() * p.element_size() for p in modelo.parameters())
    assert barrido.bytes_pesos == pesos
    assert barrido.techo(4) == pytest.approx(4 * 320e9 / pesos)
    assert any("% del techo de" in f and "320 GB/s" in f for f in barrido.frases())


def test_la_cache_estatica_compila_el_forward_y_lo_devuelve_como_estaba(diminuto, monkeypatch):
    modelo, tokenizador = diminuto
    llamadas = _registrar_generate(modelo, monkeypatch)
    compilados = []

    def compilar(funcion, **opciones):  # torch.compile de verdad tarda minutos en la CPU
        compilados.append(opciones)
        return funcion

    antes = modelo.forward
    barrido = medir_barrido(modelo, tokenizador, FRASES, lotes=(1, 4), variantes=VARIANTES,
                            max_tokens_nuevos=2, repeticiones=1, compilar=compilar)
    assert compilados == [{"mode": "reduce-overhead", "fullgraph": True}]
    assert modelo.forward == antes
    assert (1, True, "static") in llamadas and (4, True, "static") not in llamadas  # solo con el lote pequeño
    assert [f.variante for f in barrido.filas].count(VARIANTES[2]) == 1
    assert any("caché estática con torch.compile" in f for f in barrido.frases())


def test_si_compilar_falla_mide_lo_demas_y_lo_dice(diminuto):
    def compilar(funcion, **opciones):
        def roto(*args, **kwargs):
            raise RuntimeError("Dynamo no sabe compilar esto")
        return roto

    barrido = medir_barrido(*diminuto, FRASES, lotes=(1,), variantes=VARIANTES, max_tokens_nuevos=2,
                            repeticiones=1, compilar=compilar)
    assert [f.variante for f in barrido.filas] == ["con caché", "sin caché"]
    assert any("no funcionó aquí (RuntimeError: Dynamo no sabe compilar esto)" in f for f in barrido.frases())


def test_una_variante_desconocida_se_rechaza_en_espanol(diminuto):
    with pytest.raises(ValueError, match="variantes desconocidas.*usa algunas de: con caché"):
        medir_barrido(*diminuto, FRASES, variantes=("turbo",))


def _barrido(segundos: dict, ancho=None) -> BarridoGeneracion:
    filas = [FilaBarrido(v, l, l * 10, 10, [s]) for (v, l), s in segundos.items()]
    return BarridoGeneracion("cuda:0", "Tesla T4", ancho, 1_000_000_000, filas, 1, 20)


def test_las_frases_salen_de_los_datos():
    frases = _barrido({("con caché", 1): 1.0, ("con caché", 16): 1.75, ("sin caché", 1): 2.44}).frases()
    assert frases[0].startswith("Con lote 16, 9.1 veces los tokens/s del lote 1: un paso con 16 textos costó 1.75 veces")
    assert "no 16 veces" in frases[0]
    assert frases[1] == "Con lote 1, la caché dio 2.44 veces los tokens/s de sin caché."
    igual = _barrido({("con caché", 1): 1.0, ("con caché", 16): 15.5, ("sin caché", 1): 1.01}).frases()
    assert "aquí el lote no ayudó" in igual[0] and "no hay una diferencia clara" in igual[1]
    ruido = _barrido({("con caché", 1): 1.0, ("con caché", 16): 0.64}).frases()  # lo que midió una CI ocupada
    assert ruido[0].endswith("costó 0.64 veces lo que uno con 1 (menos: con la máquina ocupada, el ruido pesa más que el lote).")
    assert not any("se movieron mucho" in f for f in frases)  # una sola muestra: nada que decir
    movido = _barrido({("con caché", 1): 1.0, ("con caché", 16): 1.75})
    movido.filas[1].segundos = [1.0, 1.75, 2.5]
    assert any("hasta un 86 % en «con caché, lote 16»" in f for f in movido.frases())
    con_techo = _barrido({("con caché", 1): 1.0}, ancho=320.0).frases()
    assert con_techo[-1] == ("Con lote 1 y caché: 10 tokens/s, el 3.1 % del techo de 320 tokens/s "
                             "(320 GB/s ÷ 1 000 MB de pesos).")


# ---------------------------------------------------------------------------
# El adaptador de la lección 09 y el modelo en fp16
# ---------------------------------------------------------------------------

def test_un_adaptador_a_medias_no_se_encuentra(tmp_path):
    assert buscar_adaptador(tmp_path / "no_existe") is None
    (tmp_path / "adapter_config.json").write_text("{}")
    assert buscar_adaptador(tmp_path) is None  # falta adapter_model.safetensors
    (tmp_path / "adapter_model.safetensors").write_bytes(b"")
    assert buscar_adaptador(tmp_path) == tmp_path
    assert ADAPTADOR_DIMINUTO.parts == ("checkpoints", "lora_diminuto", "adaptador")  # donde lo deja la 09


def test_adaptador_diminuto_carga_el_de_la_09_o_entrena_uno_igual(tmp_path, diminuto):
    _, tokenizador = diminuto
    dichos = []
    entrenado = adaptador_diminuto(tokenizador, tmp_path / "no_esta", epocas=1, avisar=dichos.append)
    assert dichos[-1].startswith("Sin el adaptador de la lección 09") and not entrenado.training
    assert any("lora_A" in nombre for nombre, _ in entrenado.named_parameters())
    guardar_adaptador(entrenado, tmp_path / "adaptador")
    cargado = adaptador_diminuto(tokenizador, tmp_path / "adaptador", avisar=dichos.append)
    assert dichos[-1] == f"Cargué el adaptador de la lección 09 ({tmp_path / 'adaptador'})."
    ids = tokenizador(["La GPU"], return_tensors="pt")["input_ids"]
    with torch.no_grad():
        assert torch.equal(cargado(input_ids=ids).logits, entrenado(input_ids=ids).logits)
    (tmp_path / "adaptador" / "adapter_model.safetensors").write_bytes(b"a medias")  # la 09 lo está escribiendo
    torch.manual_seed(123)  # otra semilla: el adaptador inicial sale siempre de la semilla 0
    otra_vez = adaptador_diminuto(tokenizador, tmp_path / "adaptador", epocas=1, avisar=dichos.append)
    assert dichos[-2].startswith(f"No pude cargar el adaptador de {tmp_path / 'adaptador'} (SafetensorError")
    assert dichos[-1].startswith("Sin el adaptador de la lección 09")
    with torch.no_grad():  # el mismo adaptador que la primera vez
        assert torch.equal(otra_vez(input_ids=ids).logits, entrenado(input_ids=ids).logits)


def test_cargar_para_generar_pide_fp16_y_fusiona_el_adaptador_de_la_09(tmp_path, monkeypatch):
    import transformers

    torch.manual_seed(0)
    base, tokenizador = modelo_diminuto(semilla=0)
    entrenado = aplicar_lora(base, r=8, alpha=16)
    with torch.no_grad():
        for nombre, p in entrenado.named_parameters():
            if "lora_B" in nombre:
                p.normal_(0, 0.1)  # un adaptador que cambia algo
    guardar_adaptador(entrenado, tmp_path / "adaptador")
    ids = tokenizador(["La GPU hace muchas cuentas"], return_tensors="pt")["input_ids"]
    with torch.no_grad():
        esperado = entrenado(input_ids=ids).logits

    pedidos = []

    def del_hub(nombre, **opciones):  # el Hub, sustituido: el mismo modelo base, recién hecho
        pedidos.append((nombre, opciones))
        return modelo_diminuto(semilla=0)[0].to(opciones.get("dtype", opciones.get("torch_dtype")))

    monkeypatch.setattr(transformers.AutoModelForCausalLM, "from_pretrained", del_hub)
    monkeypatch.setattr(transformers.AutoTokenizer, "from_pretrained", lambda nombre, **o: tokenizador)
    modelo, _ = cargar_para_generar("Qwen/Qwen2.5-0.5B", "cpu", adaptador=tmp_path / "adaptador",
                                    dtype=torch.float32)
    assert pedidos[0][0] == "Qwen/Qwen2.5-0.5B" and torch.float32 in pedidos[0][1].values()
    assert type(modelo).__name__ == "Qwen2ForCausalLM" and not modelo.training  # fusionado: sin peft
    with torch.no_grad():
        assert torch.allclose(modelo(input_ids=ids).logits, esperado, atol=1e-5)

    pedidos.clear()
    modelo, _ = cargar_para_generar("Qwen/Qwen2.5-0.5B", "cpu")
    assert torch.float16 in pedidos[0][1].values() and next(modelo.parameters()).dtype == torch.float16
