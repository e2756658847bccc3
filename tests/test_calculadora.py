"""Lección 04: la calculadora de VRAM (lógica sin navegador, widgets) y su gráfico de barras."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

from curso_gpu.base import catalogo
from curso_gpu import graficos  # noqa: E402
from curso_gpu.interactivo import (
    CLASES_CSS,
    OPCION_A_MANO,
    OPCION_ESCRIBIR,
    CalculadoraVRAM,
    calculadora_vram,
)
from curso_gpu.memoria import BYTES_POR_PARAMETRO, tabla_vram  # noqa: E402

VERDE, ROJO = matplotlib.colors.to_rgba("#2da44e"), matplotlib.colors.to_rgba("#cf222e")


@pytest.fixture(autouse=True)
def _cerrar_figuras():
    yield
    plt.close("all")


# --- el gráfico ----------------------------------------------------------------------------------

def test_grafico_una_barra_por_precision_y_la_vram_como_linea():
    figura = graficos.grafico_vram(tabla_vram("8B", 16), destacar="fp16")
    ax = figura.axes[0]
    barras = {b.get_label(): b for b in ax.patches}
    assert list(barras) == list(BYTES_POR_PARAMETRO)
    assert {p: round(b.get_height(), 1) for p, b in barras.items()} == {
        "fp32": 38.4, "fp16": 19.2, "bf16": 19.2, "int8": 9.6, "int4": 4.8}
    assert [ax.lines[0].get_ydata()[0]] == [16]
    assert barras["int8"].get_facecolor() == VERDE and barras["fp16"].get_facecolor() == ROJO
    assert barras["fp16"].get_linewidth() > barras["fp32"].get_linewidth()
    assert "memoria necesaria (GB)" == ax.get_ylabel()


def test_grafico_puede_incluir_la_barra_de_entrenar():
    ax = graficos.grafico_vram(tabla_vram("1B", 24), incluir_entrenamiento=True).axes[0]
    assert [b.get_label() for b in ax.patches][-1] == "entrenamiento"
    assert ax.patches[-1].get_height() == 16.0


# --- la lógica, sin widgets ---------------------------------------------------------------------

def test_por_defecto_llama_3_8b_en_una_t4_no_cabe_en_fp16():
    calc = CalculadoraVRAM()
    assert (calc.gpu, calc.vram_gb, calc.precision) == ("NVIDIA T4", 16.0, "fp16")
    assert calc.estado.veredicto == "Llama 3 8B en fp16 necesita 19.3 GB: NO cabe en 16 GB"
    assert calc.estado.cabe is False


def test_cambiar_la_precision_a_int8_hace_que_quepa():
    calc = CalculadoraVRAM("8B")
    calc.precision = "int8"
    estado = calc.actualizar()
    assert estado.cabe is True
    assert estado.veredicto.startswith("Un modelo de 8B parámetros en int8 necesita 9.6 GB: cabe en 16 GB")


def test_elegir_una_gpu_pone_su_memoria():
    calc = CalculadoraVRAM("8B")
    calc.elegir_gpu("NVIDIA RTX 4090")
    assert calc.vram_gb == 24.0
    assert calc.actualizar().cabe is True


def test_escribir_la_vram_a_mano_suelta_la_gpu_elegida():
    calc = CalculadoraVRAM("8B", gpu="NVIDIA T4")
    calc.fijar_vram(16.0)
    assert calc.gpu == "NVIDIA T4"
    calc.fijar_vram(12.0)
    assert calc.gpu == OPCION_A_MANO
    assert calc.actualizar().tabla.vram_gb == 12.0


def test_elegir_un_modelo_del_catalogo_lo_pone_en_parametros():
    calc = CalculadoraVRAM("8B")
    assert calc.modelo_elegido() == OPCION_ESCRIBIR
    calc.elegir_modelo("Mistral 7B")
    assert calc.parametros == "Mistral 7B" and calc.modelo_elegido() == "Mistral 7B"
    assert calc.actualizar().tabla.parametros == catalogo.MODELOS["Mistral 7B"].parametros


def test_el_margen_cambia_la_tabla():
    calc = CalculadoraVRAM("10B", vram_gb=24, gpu=None)
    assert calc.actualizar().tabla.fila("fp16").cabe is True  # 20 GB × 1.2 = 24 GB
    calc.margen = 1.5
    assert calc.actualizar().tabla.fila("fp16").cabe is False


@pytest.mark.parametrize("texto, pista", [("ocho", "no lo entiendo"), ("-3B", "no lo entiendo"),
                                          ("", "Escribe el número de parámetros"), ("8", "¿querías decir '8B'?")])
def test_texto_malo_en_parametros_da_el_error_sin_excepcion(texto, pista):
    calc = CalculadoraVRAM()
    calc.parametros = texto
    estado = calc.actualizar()
    assert estado.tabla is None and estado.cabe is None
    assert pista in estado.error and pista in estado.veredicto
    assert calc.figura() is None
    assert "⚠" in estado.html_veredicto()


def test_vram_cero_o_margen_menor_que_1_dan_el_error_en_la_calculadora():
    calc = CalculadoraVRAM()
    calc.fijar_vram(0.0)
    assert "vram_gb debe ser un número mayor que 0" in calc.actualizar().error
    calc.fijar_vram(16.0)
    calc.margen = 0.5
    assert "margen debe ser un número entre 1 y 100" in calc.actualizar().error


def test_la_figura_de_la_calculadora_destaca_la_precision_elegida():
    calc = CalculadoraVRAM("8B")
    calc.precision = "int4"
    calc.actualizar()
    ax = calc.figura().axes[0]
    anchos = {b.get_label(): b.get_linewidth() for b in ax.patches}
    assert max(anchos, key=anchos.get) == "int4"


def test_gpu_desconocida_al_crear_la_calculadora_da_error():
    with pytest.raises(ValueError, match="GPU desconocida"):
        CalculadoraVRAM(gpu="GTX 9999")


# --- los widgets, sin navegador ----------------------------------------------------------------

@pytest.fixture
def caja():
    return calculadora_vram()  # ipywidgets está en requirements.txt: si falta, es un error, no un salto


def test_cada_control_lleva_su_clase_css(caja):
    for clave, clase in CLASES_CSS.items():
        assert clase in caja.controles[clave]._dom_classes, clave
    for clase in ("curso-vram-parametros", "curso-vram-gpu", "curso-vram-vram", "curso-vram-precision",
                  "curso-vram-margen", "curso-vram-tabla", "curso-vram-veredicto"):
        assert clase in CLASES_CSS.values()


def test_el_widget_arranca_con_la_tabla_y_el_grafico(caja):
    c = caja.controles
    assert "Llama 3 8B en fp16 necesita 19.3 GB: NO cabe en 16 GB" in c["veredicto"].value
    assert c["tabla"].value.count("<tr data-precision=") == 6
    assert c["grafico"].value[:8] == b"\x89PNG\r\n\x1a\n"


def test_escribir_8b_actualiza_el_veredicto_y_suelta_el_modelo(caja):
    c = caja.controles
    c["parametros"].value = "8B"
    assert c["modelo"].value == OPCION_ESCRIBIR
    assert "Un modelo de 8B parámetros en fp16 necesita 19.2 GB: NO cabe en 16 GB" in c["veredicto"].value


def test_elegir_modelo_en_el_desplegable_escribe_su_nombre(caja):
    c = caja.controles
    c["modelo"].value = "GPT-2"
    assert c["parametros"].value == "GPT-2"
    assert "GPT-2 en fp16 necesita 298 MB: cabe en 16 GB" in c["veredicto"].value


def test_elegir_gpu_cambia_la_vram_y_escribir_vram_suelta_la_gpu(caja):
    c = caja.controles
    c["gpu"].value = "NVIDIA A100 40 GB"
    assert c["vram"].value == 40.0
    assert "cabe en 40 GB" in c["veredicto"].value
    c["vram"].value = 18.0
    assert c["gpu"].value == OPCION_A_MANO
    assert "NO cabe en 18 GB" in c["veredicto"].value


def test_precision_y_margen_actualizan_la_tabla(caja):
    c = caja.controles
    c["precision"].value = "int4"
    assert "Llama 3 8B en int4 necesita 4.8 GB: cabe en 16 GB" in c["veredicto"].value
    c["margen"].value = 1.0
    assert ">32.1 GB</td>" in c["tabla"].value  # fp32 sin margen: 8.03B × 4


def test_texto_malo_muestra_el_error_en_el_widget_y_oculta_el_grafico(caja):
    c = caja.controles
    c["parametros"].value = "muchos"
    assert "parametros debe ser un número con sufijo" in c["veredicto"].value
    assert c["tabla"].value == "", "el error sale una sola vez, en el veredicto"
    assert c["grafico"].layout.display == "none"
    c["parametros"].value = "7B"
    assert c["grafico"].layout.display is None and "NO cabe en 16 GB" in c["veredicto"].value


def test_la_calculadora_sin_grafico_no_dibuja(caja):
    sin = calculadora_vram("1B", grafico=False)
    assert sin.controles["grafico"].value == b""
    assert "cabe en 16 GB" in sin.controles["veredicto"].value
