"""Las figuras de las lecciones: mismos datos que los módulos, un mismo estilo, leyendas que no tapan."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import pytest  # noqa: E402
import torch  # noqa: E402

from curso_gpu.base import catalogo
from curso_gpu import graficos, medicion  # noqa: E402
from curso_gpu.entrenamiento import Historial  # noqa: E402
from curso_gpu.memoria import memoria_entrenamiento, memoria_inferencia, tabla_vram  # noqa: E402
from curso_gpu.base import pico_teorico  # noqa: E402


def _leyenda_fuera_de_los_ejes(figura, ejes) -> bool:
    figura.canvas.draw()
    leyenda = ejes.get_legend() or figura.legends[0]
    caja = leyenda.get_window_extent()
    return not caja.overlaps(ejes.get_window_extent())


def test_el_barrido_marca_los_tamanos_y_sin_gpu_dibuja_la_referencia_de_la_t4():
    resultado = medicion.barrido([16, 32, 64], dispositivos=["cpu"], repeticiones=1, silenciosa=True,
                                 segundos_por_tamano=None)
    figura = graficos.grafico_barrido(resultado)
    ejes = figura.axes[0]
    assert [t.get_text() for t in ejes.get_xticklabels()] == ["16", "32", "64"]
    referencia = [linea for linea in ejes.get_lines() if "T4" in linea.get_label()]
    assert len(referencia) == 1 and "no medido" in referencia[0].get_label()
    pico = pico_teorico("Tesla T4", "fp32") * 1000
    y = list(referencia[0].get_ydata())
    assert y == sorted(y) and max(y) < pico  # sube con n y nunca pasa del pico de la ficha
    assert _leyenda_fuera_de_los_ejes(figura, ejes)


def test_sin_referencia_solo_las_lineas_medidas():
    resultado = medicion.barrido([16, 32], dispositivos=["cpu"], repeticiones=1, silenciosa=True,
                                 segundos_por_tamano=None)
    ejes = graficos.grafico_barrido(resultado, referencia=None).axes[0]
    assert len(ejes.get_lines()) == 1


def test_los_picos_van_en_escala_log_y_la_t4_no_tiene_barra_de_bf16():
    figura = graficos.grafico_picos(["Tesla T4", "NVIDIA A100-SXM4-40GB"], modos=("fp32", "bf16"))
    ejes = figura.axes[0]
    assert ejes.get_yscale() == "log"
    alturas = [b.get_height() for b in ejes.patches]
    assert alturas[:2] == [8.1, 19.5]
    assert alturas[2] != alturas[2]  # NaN: la T4 no tiene bf16 en Tensor Cores
    assert alturas[3] == 312.0


def test_memoria_por_modelo_con_la_gpu_como_linea_y_lo_que_no_cabe_rayado():
    modelos = [catalogo.MODELOS["Llama 3 8B"], catalogo.MODELOS["GPT-2"]]
    figura = graficos.grafico_modelos_vram(modelos, 16, "NVIDIA T4", precisiones=("fp16", "int4"))
    ejes = figura.axes[0]
    barras = ejes.patches[:4]
    # ordenados de menor a mayor: GPT-2 primero
    assert [t.get_text() for t in ejes.get_xticklabels()] == ["GPT-2", "Llama 3 8B"]
    assert barras[1].get_height() == pytest.approx(memoria_inferencia(8_030_000_000, "fp16") / 1e9)
    assert barras[1].get_hatch() == "///" and not barras[3].get_hatch()  # fp16 no cabe; int4 sí
    assert any(linea.get_ydata()[0] == 16 for linea in ejes.get_lines())
    assert _leyenda_fuera_de_los_ejes(figura, ejes)


def test_memoria_de_entrenamiento_frente_a_gpu_comunes():
    figura = graficos.grafico_entrenamiento_gpus([catalogo.MODELOS["GPT-2"], catalogo.MODELOS["Llama 3 8B"]],
                                                 [catalogo.GPUS["NVIDIA T4"], catalogo.GPUS["NVIDIA H200"]])
    ejes = figura.axes[0]
    assert ejes.patches[1].get_height() == pytest.approx(memoria_entrenamiento(8_030_000_000) / 1e9)
    textos = [t.get_text() for t in ejes.texts]
    assert any("cabe en: T4" in t for t in textos) and any("cabe en: H200" in t for t in textos)


def test_las_curvas_de_perdida_van_en_escala_log():
    h = Historial([1, 10, 20], [1.1, 0.1, 0.0001], [1.1, 0.2, 0.001], [0.3, 0.9, 1.0], [0.3, 0.8, 1.0], 1.0, "cpu", 20)
    figura = graficos.curvas_entrenamiento(h)
    assert figura.axes[0].get_yscale() == "log" and figura.axes[1].get_yscale() == "linear"


def test_la_reanudacion_marca_la_desconexion_y_el_checkpoint():
    epocas = list(range(1, 11))
    perdidas = [1 / e for e in epocas]
    figura = graficos.grafico_reanudacion((epocas, perdidas), (epocas[:7], perdidas[:7]), (epocas[4:], perdidas[4:]),
                                          desconexion=7, reanudado_desde=5)
    ejes = figura.axes[0]
    textos = " ".join(t.get_text() for t in ejes.texts)
    assert "desconexión" in textos and "reanudado desde" in textos
    verticales = sorted(linea.get_xdata()[0] for linea in ejes.get_lines() if len(set(linea.get_xdata())) == 1)
    assert verticales == [5, 7]


def test_los_dibujos_fallados_se_enmarcan_y_dicen_que_era():
    X = torch.zeros(4, 1, 8, 8)
    y = torch.tensor([0, 1, 2, 0])
    figura = graficos.dibujos_fallados(X, y, {"A": torch.tensor([0, 2, 2, 1]), "B": y}, maximo=3)
    fila_a = figura.axes[:3]
    assert [e.get_xlabel() for e in fila_a[:2]] == ["es horizontal\ndijo oblicua", "es vertical\ndijo horizontal"]
    assert fila_a[0].spines["left"].get_visible() and not fila_a[2].spines["left"].get_visible()
    assert "0 de 4 mal" in figura.axes[3].get_ylabel()


def test_tiempos_por_epoca_en_milisegundos():
    figura = graficos.grafico_tiempos_epoca({("pequeño", "cpu"): 0.5, ("ampliado", "cpu"): 2.0})
    ejes = figura.axes[0]
    assert [b.get_height() for b in ejes.patches] == [500.0, 2000.0]
    assert "(ms)" in ejes.get_ylabel()


def test_la_tabla_de_vram_lleva_la_leyenda_fuera():
    figura = graficos.grafico_vram(tabla_vram("8B", 16))
    assert _leyenda_fuera_de_los_ejes(figura, figura.axes[0])


def test_la_referencia_usa_lo_que_la_gpu_sostiene_si_la_tabla_lo_da(monkeypatch):
    from curso_gpu.base import picos

    monkeypatch.setattr(picos, "rango_porcentaje", lambda nombre, modo: (40.0, 60.0), raising=False)
    n = 8192
    (_, gflops), = picos.gflops_de_referencia([n], "Tesla T4", "fp32")
    assert gflops == pytest.approx(0.5 * pico_teorico("Tesla T4", "fp32") * 1000, rel=0.01)
    resultado = medicion.ResultadoBarrido([n], {"cpu": []})
    etiquetas = [linea.get_label() for linea in graficos.grafico_barrido(resultado).axes[0].get_lines()]
    assert any("sostenidos, 40–60 %" in e for e in etiquetas)
