"""Lección 07: la memoria al entrenar (pesos, gradientes, optimizador y activaciones medidas)."""

from __future__ import annotations

import pytest
import torch
from torch import nn

from curso_gpu import memoria
from curso_gpu.memoria import DesgloseMemoria, lote_maximo, medir_memoria_entrenamiento
from curso_gpu.memoria.lote import _buscar_lote
from curso_gpu.memoria import ESTADOS_OPTIMIZADOR
from curso_gpu.base import MENSAJE_OOM_CUDA, mensaje_sin_memoria
from curso_gpu.base.mensajes_torch import _formato_pytorch
from curso_gpu.entrenamiento import CNNPequena, GPT2Pequeno

ENTRADAS, OCULTAS, SALIDAS = 10, 20, 3
GPT_CHICO = dict(vocabulario=97, contexto=64, dimension=16, capas=2, cabezas=2)


def _mlp(dispositivo="cpu"):
    torch.manual_seed(0)
    with torch.device(dispositivo):
        return nn.Sequential(nn.Linear(ENTRADAS, OCULTAS), nn.ReLU(), nn.Linear(OCULTAS, SALIDAS))


def _parametros(modelo):
    return sum(p.numel() for p in modelo.parameters())


# --- Pesos, gradientes y optimizador: cuentas exactas -----------------------------------------

def test_mlp_fp32_adam_4_4_y_8_bytes_por_parametro():
    modelo = _mlp()
    d = medir_memoria_entrenamiento(modelo, torch.randn(4, ENTRADAS))
    n = _parametros(modelo)
    assert (d.pesos, d.gradientes, d.optimizador) == (4 * n, 4 * n, 8 * n)
    assert d.bytes_por_parametro == 16
    assert d.total == d.pesos + d.gradientes + d.optimizador + d.activaciones


@pytest.mark.parametrize("optimizador, estados", [("adamw", 2), ("sgd_momento", 1), ("sgd", 0), ("SGD", 0)])
def test_estados_segun_el_optimizador(optimizador, estados):
    modelo = _mlp()
    d = medir_memoria_entrenamiento(modelo, torch.randn(2, ENTRADAS), optimizador=optimizador)
    assert d.optimizador == estados * 4 * _parametros(modelo)


def test_los_parametros_congelados_no_tienen_gradiente_ni_estado():
    modelo = _mlp()
    modelo[0].requires_grad_(False)
    d = medir_memoria_entrenamiento(modelo, torch.randn(2, ENTRADAS))
    entrenables = OCULTAS * SALIDAS + SALIDAS
    assert d.parametros == entrenables
    assert (d.pesos, d.gradientes, d.optimizador) == (4 * _parametros(modelo), 4 * entrenables, 8 * entrenables)


# --- Activaciones: medidas -----------------------------------------------------------------------

def test_activaciones_del_mlp_igual_que_a_mano():
    # Linear 1 guarda su entrada (N×10), ReLU su salida (N×20), que Linear 2 guarda otra vez
    # (el mismo almacenamiento: una vez), y la salida (N×3) vive hasta la pérdida. Los pesos
    # que guardan las dos Linear son parámetros: no cuentan.
    n = 5
    d = medir_memoria_entrenamiento(_mlp(), torch.randn(n, ENTRADAS))
    assert d.activaciones == 4 * n * (ENTRADAS + OCULTAS + SALIDAS)


def test_una_vista_guardada_no_es_memoria_nueva():
    class ConVista(nn.Module):
        def __init__(self):
            super().__init__()
            self.peso = nn.Parameter(torch.ones(8))

        def forward(self, x):
            y = x * self.peso      # guarda x
            return y[:, :4] * x[:, :4].sin()  # guarda y[:, :4] (vista de y), x[:, :4] (vista de x) y su seno

    d = medir_memoria_entrenamiento(ConVista(), torch.randn(3, 8, requires_grad=True))
    # x (3×8), y (3×8), el seno (3×4) y la salida (3×4): las vistas no suman
    assert d.activaciones == 4 * (3 * 8 + 3 * 8 + 3 * 4 + 3 * 4)


@pytest.mark.parametrize("modelo, entrada", [
    (lambda: _mlp(), lambda n: torch.randn(n, ENTRADAS)),
    (lambda: CNNPequena(), lambda n: torch.rand(n, 1, 8, 8)),
])
def test_activaciones_se_duplican_al_duplicar_el_lote(modelo, entrada):
    m = modelo()
    con_16 = medir_memoria_entrenamiento(m, entrada(16)).activaciones
    con_32 = medir_memoria_entrenamiento(m, entrada(32)).activaciones
    assert con_16 > 0 and con_32 == 2 * con_16


def test_en_meta_mide_lo_mismo_que_en_cpu():
    d_cpu = medir_memoria_entrenamiento(_mlp(), torch.randn(8, ENTRADAS))
    d_meta = medir_memoria_entrenamiento(_mlp("meta"), torch.randn(8, ENTRADAS))
    assert d_meta.partes() == d_cpu.partes()
    torch.manual_seed(0)
    cnn = CNNPequena()
    with torch.device("meta"):
        cnn_meta = CNNPequena()
    x = torch.rand(8, 1, 8, 8)
    assert medir_memoria_entrenamiento(cnn_meta, x).partes() == medir_memoria_entrenamiento(cnn, x).partes()


def test_gpt_en_meta_igual_que_en_cpu_y_la_atencion_fusionada_no_es_cuadratica():
    torch.manual_seed(0)
    gpt = GPT2Pequeno(**GPT_CHICO)
    with torch.device("meta"):
        gpt_meta = GPT2Pequeno(**GPT_CHICO)
    cortas, largas = torch.randint(0, 97, (2, 16)), torch.randint(0, 97, (2, 64))
    cpu_16 = medir_memoria_entrenamiento(gpt, cortas)
    assert medir_memoria_entrenamiento(gpt_meta, cortas).partes() == cpu_16.partes()
    cpu_64 = medir_memoria_entrenamiento(gpt, largas)
    assert medir_memoria_entrenamiento(gpt_meta, largas).partes() == cpu_64.partes()
    # scaled_dot_product_attention no guarda la matriz s×s: ×4 tokens ⇒ unas ×4 activaciones (+ la máscara)
    assert 4 <= cpu_64.activaciones / cpu_16.activaciones < 4.5


def test_la_atencion_explicita_crece_con_el_cuadrado_de_la_longitud():
    class Atencion(nn.Module):
        def forward(self, x):  # x: [lote, s, d]
            pesos = torch.softmax(x @ x.transpose(1, 2) / x.shape[-1] ** 0.5, dim=-1)  # [lote, s, s]
            return pesos @ x

    x_corto, x_largo = torch.randn(1, 32, 4, requires_grad=True), torch.randn(1, 64, 4, requires_grad=True)
    corto = medir_memoria_entrenamiento(nn.Sequential(nn.Linear(4, 4), Atencion()), x_corto).activaciones
    largo = medir_memoria_entrenamiento(nn.Sequential(nn.Linear(4, 4), Atencion()), x_largo).activaciones
    assert largo / corto > 3.3  # el doble de tokens, más del triple de memoria (→ 4 con textos largos)


def test_medir_no_cambia_el_modelo_ni_el_generador_aleatorio():
    modelo = nn.Sequential(nn.Linear(4, 4), nn.BatchNorm1d(4), nn.Dropout(0.5))
    modelo.eval()
    antes = {k: v.clone() for k, v in modelo.state_dict().items()}
    x = torch.randn(6, 4)
    estado = torch.get_rng_state()
    medir_memoria_entrenamiento(modelo, x)
    assert not modelo.training
    assert all(torch.equal(antes[k], v) for k, v in modelo.state_dict().items())
    assert torch.equal(torch.get_rng_state(), estado)
    assert all(p.grad is None for p in modelo.parameters())


# --- Precisión mixta ---------------------------------------------------------------------------

def test_bf16_activaciones_a_la_mitad_y_copia_de_16_bits_de_los_pesos():
    modelo = _mlp()
    n = _parametros(modelo)
    x = torch.randn(64, ENTRADAS, requires_grad=True)  # que también se guarde la copia del peso de la 1.ª capa
    fp32 = medir_memoria_entrenamiento(modelo, x)
    bf16 = medir_memoria_entrenamiento(modelo, x, precision="bf16")
    assert (bf16.gradientes, bf16.optimizador) == (4 * n, 8 * n)  # siguen en fp32
    assert 0 < bf16.pesos_16_bits <= 2 * n and bf16.pesos == 4 * n + bf16.pesos_16_bits
    assert bf16.activaciones < 0.6 * fp32.activaciones
    assert not bf16.aproximado


def test_bf16_en_meta_es_aproximado_pero_cerca_de_la_cpu():
    x = torch.rand(32, 1, 8, 8)
    torch.manual_seed(0)
    cpu = medir_memoria_entrenamiento(CNNPequena(), x, precision=torch.bfloat16)
    with torch.device("meta"):
        meta = medir_memoria_entrenamiento(CNNPequena(), x, precision="bf16")
    assert meta.aproximado and "aproximado" in str(meta)
    assert abs(meta.total - cpu.total) / cpu.total < 0.15


# --- Presentación ------------------------------------------------------------------------------

def test_el_desglose_se_lee_como_tabla():
    d = medir_memoria_entrenamiento(CNNPequena(), torch.rand(32, 1, 8, 8))
    texto, tabla = str(d), d._repr_html_()
    for parte in ("pesos", "gradientes", "optimizador", "activaciones", "total", "lote de 32"):
        assert parte in texto and parte in tabla
    assert "16.0 bytes por parámetro" in texto


def test_se_reexporta_desde_memoria():
    assert memoria.medir_memoria_entrenamiento is medir_memoria_entrenamiento
    assert memoria.DesgloseMemoria is DesgloseMemoria and memoria.lote_maximo is lote_maximo
    assert set(ESTADOS_OPTIMIZADOR) == {"adam", "adamw", "sgd_momento", "sgd"}


def test_mensaje_de_cuda_sin_memoria_como_el_de_pytorch():
    texto = mensaje_sin_memoria(pedido=20 * 2**20, total=15_835_660_288, libre=3 * 2**20,
                                asignada=int(14.5 * 2**30), reservada=int(14.6 * 2**30))
    assert texto.startswith("CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total capacity of 14.75 GiB")
    assert "expandable_segments:True" in texto and "102.40 MiB is reserved by PyTorch but unallocated" in texto
    assert "{" not in texto and MENSAJE_OOM_CUDA.count("{") == 8
    assert "memory in use. Of the allocated memory" in texto  # sin límite por proceso, sin «allowed»


def test_mensaje_sin_memoria_con_limite_por_proceso_dice_lo_permitido():
    texto = mensaje_sin_memoria(pedido=3 * 2**30, total=15_835_660_288, libre=15_835_660_288,
                                asignada=0, reservada=0, permitida=int(0.1 * 15_835_660_288))
    assert "this process has 0 bytes memory in use. 1.47 GiB allowed; Of the allocated memory 0 bytes" in texto
    assert _formato_pytorch(512) == "512 bytes" and _formato_pytorch(1536) == "1.50 KiB"


# --- lote_maximo ---------------------------------------------------------------------------------

def test_lote_maximo_en_cpu_con_un_presupuesto():
    modelo = _mlp()
    n = _parametros(modelo)
    por_ejemplo = 4 * (ENTRADAS + OCULTAS + SALIDAS)  # la cuenta a mano de arriba
    fijo = 16 * n
    presupuesto = fijo + 37 * por_ejemplo + 5
    assert lote_maximo(modelo, (ENTRADAS,), "cpu", memoria_bytes=presupuesto) == 37
    # y el lote que da de verdad cabe: medido, no pasa del presupuesto; uno más, sí
    assert medir_memoria_entrenamiento(modelo, torch.randn(37, ENTRADAS)).total <= presupuesto
    assert medir_memoria_entrenamiento(modelo, torch.randn(38, ENTRADAS)).total > presupuesto


def test_lote_maximo_para_gpu_calculado_en_meta_y_con_tokens():
    with torch.device("meta"):
        gpt = GPT2Pequeno(**GPT_CHICO)
    ids = torch.randint(0, 97, (1, 32))
    lote = lote_maximo(gpt, ids, "cuda", memoria_bytes=4 * 10**6)
    assert medir_memoria_entrenamiento(gpt, ids.expand(lote, 32)).total <= 4 * 10**6
    assert medir_memoria_entrenamiento(gpt, ids.expand(lote + 1, 32)).total > 4 * 10**6


def test_presupuesto_demasiado_pequeno_dice_el_minimo():
    modelo = _mlp()
    minimo = medir_memoria_entrenamiento(modelo, torch.randn(1, ENTRADAS)).total
    with pytest.raises(ValueError, match=f"memoria_bytes={minimo}"):
        lote_maximo(modelo, (ENTRADAS,), "cpu", memoria_bytes=minimo - 1)
    assert lote_maximo(modelo, (ENTRADAS,), "cpu", memoria_bytes=minimo) == 1


def test_busqueda_real_sobrevive_al_oom_y_deja_el_modelo_igual():
    """La búsqueda de la GPU, con un «asignador» que se queda sin memoria a partir de 45 ejemplos."""
    class SinMemoriaDesde(nn.Module):
        def __init__(self, limite):
            super().__init__()
            self.capa, self.limite, self.lotes = nn.Linear(3, 2), limite, []

        def forward(self, x):
            self.lotes.append(x.shape[0])
            if x.shape[0] > self.limite:
                raise torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 2.00 GiB.")
            return self.capa(x)

    modelo = SinMemoriaDesde(45)
    antes = {k: v.clone() for k, v in modelo.state_dict().items()}
    assert _buscar_lote(modelo, lambda b: torch.randn(b, 3), "adam", "fp32", 1000) == 45
    assert modelo.lotes[:7] == [1, 2, 4, 8, 16, 32, 64]  # dobla y después bisección
    assert all(torch.equal(antes[k], v) for k, v in modelo.state_dict().items())  # lr=0: pesos intactos
    assert all(p.grad is None for p in modelo.parameters())
    with pytest.raises(ValueError, match="ni un ejemplo"):
        _buscar_lote(SinMemoriaDesde(0), lambda b: torch.randn(b, 3), "sgd", "fp32", 1000)


# --- Errores claros ------------------------------------------------------------------------------

@pytest.mark.parametrize("entrada, texto", [
    ([[1.0] * ENTRADAS], "debe ser un tensor"),
    (torch.randn(0, ENTRADAS), "al menos un ejemplo"),
    (torch.tensor(1.0), "al menos un ejemplo"),
    (torch.randn(4, 7), "no acepta una entrada de forma \\(4, 7\\)"),
])
def test_entrada_mala_da_error_claro(entrada, texto):
    with pytest.raises(ValueError, match=texto):
        medir_memoria_entrenamiento(_mlp(), entrada)


def test_optimizador_o_precision_desconocidos():
    with pytest.raises(ValueError, match="optimizador desconocido 'lion'.*adam, adamw"):
        medir_memoria_entrenamiento(_mlp(), torch.randn(2, ENTRADAS), optimizador="lion")
    with pytest.raises(ValueError, match="precision desconocida 'int8'.*fp32, fp16, bf16"):
        medir_memoria_entrenamiento(_mlp(), torch.randn(2, ENTRADAS), precision="int8")
    with pytest.raises(ValueError, match="torch.nn.Module"):
        medir_memoria_entrenamiento("gpt2", torch.randn(2, ENTRADAS))


@pytest.mark.parametrize("memoria_bytes", [0, -5, float("nan"), "16GB", True])
def test_presupuesto_no_valido(memoria_bytes):
    with pytest.raises(ValueError, match="^memoria_bytes debe ser un número mayor que 0"):
        lote_maximo(_mlp(), (ENTRADAS,), "cpu", memoria_bytes=memoria_bytes)


@pytest.mark.parametrize("forma", [(), (0, 3), (2.5,), "10", None])
def test_forma_no_valida(forma):
    with pytest.raises(ValueError, match="forma_ejemplo no válida"):
        lote_maximo(_mlp(), forma, "cpu", memoria_bytes=10**6)


def test_meta_sin_presupuesto_y_cuda_con_el_modelo_en_cpu(monkeypatch):
    with pytest.raises(ValueError, match="memoria_bytes="):
        lote_maximo(_mlp("meta"), (ENTRADAS,), "meta")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)  # una GPU falsa: el modelo sigue en la CPU
    with pytest.raises(ValueError, match="modelo.to\\('cuda'\\)"):
        lote_maximo(_mlp(), (ENTRADAS,), "cuda")


def test_cuda_sin_gpu_y_sin_presupuesto_lo_dice_y_propone_memoria_bytes(monkeypatch):
    from curso_gpu.dispositivo import DispositivoNoDisponible

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with pytest.raises(DispositivoNoDisponible, match="(?s)'cuda', pero no está disponible.*memoria_bytes="):
        lote_maximo(_mlp(), (ENTRADAS,), torch.device("cuda"))


def test_grafico_de_barras_apiladas_por_lote():
    from curso_gpu import graficos

    cnn = CNNPequena()
    desgloses = [medir_memoria_entrenamiento(cnn, torch.rand(b, 1, 8, 8)) for b in (8, 16)]
    figura = graficos.grafico_memoria_entrenamiento(desgloses)
    ax = figura.axes[0]
    assert [c.get_label() for c in ax.containers] == ["pesos", "gradientes", "optimizador", "activaciones"]
    alturas = {c.get_label(): [barra.get_height() for barra in c] for c in ax.containers}
    assert alturas["pesos"][0] == alturas["pesos"][1] == pytest.approx(desgloses[0].pesos / 1e6)
    assert alturas["activaciones"][1] == pytest.approx(2 * alturas["activaciones"][0])
    assert [t.get_text() for t in ax.get_xticklabels()] == ["8", "16"]


def test_el_gpt2_del_paquete_es_el_que_se_construye_en_la_leccion_04():
    """La lección 04 lo escribe a mano; la 07 lo importa. Mismos pesos y misma salida."""
    from pathlib import Path

    texto = (Path(__file__).resolve().parent.parent / "notebooks" / "04_estimar_vram.py").read_text(encoding="utf-8")
    inicio = texto.index("class GPT2Pequeno")
    espacio = {"nn": nn, "torch": torch}
    exec(texto[inicio:texto.index("# %%", inicio)], espacio)
    torch.manual_seed(0)
    de_la_leccion = espacio["GPT2Pequeno"](**GPT_CHICO)
    torch.manual_seed(0)
    del_paquete = GPT2Pequeno(**GPT_CHICO)
    assert [(k, v.shape) for k, v in de_la_leccion.state_dict().items()] == \
        [(k, v.shape) for k, v in del_paquete.state_dict().items()]
    ids = torch.randint(0, 97, (2, 12))
    assert torch.equal(de_la_leccion.eval()(ids), del_paquete.eval()(ids))


@pytest.mark.parametrize("dispositivo", ["mps", "xpu"])
def test_sin_saber_la_memoria_del_dispositivo_pide_el_presupuesto(dispositivo, monkeypatch):
    """Un Mac (MPS) o una GPU de Intel (XPU) que sí está, pero cuya memoria no se puede leer."""
    def no_se_sabe(*argumentos):
        raise RuntimeError(f"sin memoria que leer en {dispositivo}")

    if dispositivo == "mps":  # la frontera: lo que responde torch en una máquina así
        monkeypatch.setattr(torch.backends.mps, "is_available", lambda: True)
        monkeypatch.setattr(torch.mps, "recommended_max_memory", no_se_sabe, raising=False)
    else:
        monkeypatch.setattr(torch.xpu, "is_available", lambda: True)
        monkeypatch.setattr(torch.xpu, "device_count", lambda: 1)
        monkeypatch.setattr(torch.xpu, "mem_get_info", no_se_sabe, raising=False)
    with pytest.raises(ValueError, match=rf"No sé cuánta memoria hay en '{dispositivo}.*memoria_bytes="):
        lote_maximo(_mlp(), (ENTRADAS,), dispositivo)
