"""Los widgets de las lecciones 04 y 05 en un navegador de verdad: JupyterLab y Chromium sin pantalla.

Las dos pruebas van en un mismo archivo para que ``--dist loadfile`` las dé al mismo proceso:
comparten un solo JupyterLab (``servidor_jupyter``) y un solo Chromium (``chromium``), que se
arrancan una vez (cada arranque cuesta varios segundos de CPU).

**Lección 04.** Se abre en JupyterLab (Chromium sin pantalla) una copia de ``04_estimar_vram.ipynb`` con solo
la celda de la calculadora (la suite ya ejecuta la lección entera, una vez), se ejecuta desde el menú y se
cambian los controles como lo haría una persona: escribir los parámetros,
elegir la precisión, escribir la VRAM, mover el margen y elegir otra GPU. La tabla y la frase
de la página deben cambiar y decir lo que dice la lección.

**Lección 05.** Se abre en JupyterLab (Chromium sin pantalla) una copia de ``05_entrenamiento_portable.ipynb``
con solo las celdas que la pizarra necesita (imports, dispositivo, datos, entrenar el modelo y
la pizarra; la suite ya ejecuta la lección entera, una vez), se ejecuta desde el menú, se espera a que
termine el entrenamiento («Predecir» se activa) y se hace lo que haría una persona: pulsar
las celdas de una línea vertical, «Predecir», leer la clase y las tres probabilidades;
«Limpiar», y «Predecir» con la cuadrícula vacía.
"""

from __future__ import annotations

import re
import time

import pytest

from curso_gpu.base import formatear_bytes
from curso_gpu.entrenamiento import LADO, NOMBRES_CLASES
from curso_gpu.interactivo.widgets import _AVISO_VACIA
from curso_gpu.memoria import tabla_vram

pytestmark = pytest.mark.e2e


# --- Lección 04: la calculadora de VRAM responde a los controles --------------------------------

NOTEBOOK_04 = "04_estimar_vram.ipynb"
CELDAS_04 = ("calculadora_vram(",)  # la celda de la lección que crea la calculadora


def _tabla_en_pagina(calculadora) -> dict[str, tuple[str, str]]:
    """{precisión: (memoria necesaria, ¿cabe?)} tal como se lee en la tabla de la página."""
    filas = {}
    for fila in calculadora.locator(".curso-vram-tabla tr[data-precision]").all():
        celdas = [c.strip() for c in fila.locator("td").all_inner_texts()]
        filas[fila.get_attribute("data-precision")] = (celdas[2], celdas[3])
    return filas


def _esperar_tabla(calculadora, esperada: dict, espera_s: float = 15.0) -> dict[str, tuple[str, str]]:
    """La tabla de la página cuando ya dice ``esperada`` (o la última leída, pasados ``espera_s``).

    La frase y la tabla son dos widgets: el navegador recibe sus cambios uno detrás de otro, así
    que la tabla puede llegar un instante después de la frase (con la máquina cargada, se nota).
    """
    limite = time.monotonic() + espera_s
    while (leida := _tabla_en_pagina(calculadora)) != esperada and time.monotonic() < limite:
        time.sleep(0.1)
    return leida


def _tabla_esperada(parametros: str, vram_gb: float, margen: float) -> dict[str, tuple[str, str]]:
    tabla = tabla_vram(parametros, vram_gb, margen)
    esperada = {f.precision: (formatear_bytes(f.necesaria_bytes), f.veredicto) for f in tabla.filas}
    esperada["entrenamiento"] = (formatear_bytes(tabla.entrenamiento.necesaria_bytes), tabla.entrenamiento.veredicto)
    return esperada


def test_la_calculadora_de_vram_responde_a_los_controles(lab):
    from playwright.sync_api import expect

    pagina = lab.abrir(lab.recortar(NOTEBOOK_04, CELDAS_04))
    lab.ejecutar_todo()
    calculadora = pagina.locator(".curso-vram").first
    calculadora.scroll_into_view_if_needed()
    veredicto = calculadora.locator(".curso-vram-veredicto")
    expect(veredicto).to_contain_text("Llama 3 8B en fp16")
    lab.comprobar_copia_fija_oculta("curso-vram-estatica")  # el widget se ve una sola vez

    # 1. Escribir los parámetros: 8B en fp16 no cabe en la T4 de 16 GB (19.2 GB con +20 %).
    calculadora.locator(".curso-vram-parametros input").fill("8B")
    expect(veredicto).to_have_text("Un modelo de 8B parámetros en fp16 necesita 19.2 GB: NO cabe en 16 GB")
    expect(calculadora.locator(".curso-vram-modelo select")).to_have_value("(escribe los parámetros)")
    esperada = _tabla_esperada("8B", 16, 1.2)
    assert _esperar_tabla(calculadora, esperada) == esperada
    assert _tabla_en_pagina(calculadora)["int8"] == ("9.6 GB", "cabe")
    lab.captura("04_calculadora_fp16.png", calculadora)

    # 2. Elegir int4: ahora cabe (4.8 GB) y sobran 11.2 GB.
    calculadora.locator(".curso-vram-precision select").select_option("int4")
    expect(veredicto).to_have_text(
        "Un modelo de 8B parámetros en int4 necesita 4.8 GB: cabe en 16 GB (sobran 11.2 GB)")

    # 3. Escribir la VRAM a mano (4 GB): ya no cabe, y la GPU pasa a «memoria a mano».
    vram = calculadora.locator(".curso-vram-vram input")
    vram.fill("4")
    vram.press("Enter")
    expect(veredicto).to_have_text("Un modelo de 8B parámetros en int4 necesita 4.8 GB: NO cabe en 4 GB")
    expect(calculadora.locator(".curso-vram-gpu select")).to_have_value("(memoria a mano)")

    # 4. Mover el margen con el teclado (un paso: 1.20 → 1.25): la memoria sube a 5.0 GB.
    deslizador = calculadora.locator(".curso-vram-margen")
    deslizador.locator(".noUi-handle, .ui-slider-handle").first.focus()
    pagina.keyboard.press("ArrowRight")
    expect(deslizador.locator(".widget-readout")).to_have_text("1.25")
    expect(veredicto).to_have_text("Un modelo de 8B parámetros en int4 necesita 5.0 GB: NO cabe en 4 GB")
    expect(calculadora.locator(".curso-vram-tabla")).to_contain_text("margen +25 %")
    esperada = _tabla_esperada("8B", 4, 1.25)
    assert _esperar_tabla(calculadora, esperada) == esperada

    # 5. Elegir una RTX 4090 (24 GB): su memoria aparece en la VRAM y int4 vuelve a caber.
    calculadora.locator(".curso-vram-gpu select").select_option("NVIDIA RTX 4090")
    expect(vram).to_have_value(re.compile(r"^24(\.0)?$"))
    expect(veredicto).to_have_text("Un modelo de 8B parámetros en int4 necesita 5.0 GB: cabe en 24 GB (sobran 19.0 GB)")
    esperada = _tabla_esperada("8B", 24, 1.25)
    assert _esperar_tabla(calculadora, esperada) == esperada
    lab.captura("04_calculadora.png", calculadora)

    # 6. Un texto que no se entiende: el error en español en la página, no una traza.
    calculadora.locator(".curso-vram-parametros input").fill("muchos")
    expect(veredicto).to_contain_text("muchos")
    assert "Traceback" not in calculadora.inner_text()
    lab.captura("04_calculadora_error.png", calculadora)
    assert not lab.errores_js, f"errores de JavaScript en la página: {lab.errores_js}"


# --- Lección 05: dibujar una vertical en la cuadrícula predice «vertical» ----------------------

NOTEBOOK_05 = "05_entrenamiento_portable.ipynb"
# Las celdas de la lección que la pizarra necesita, cada una por un fragmento de su código.
CELDAS_05 = (
    "from curso_gpu.interactivo import pizarra",  # los imports
    "selector = selector_dispositivo()",
    "dispositivo = selector.dispositivo",
    "X_ent, y_ent = generar_dataset(",
    "modelo = CNNPequena()",
    "historial = entrenar(modelo",  # el modelo de la receta variada, el que usa la pizarra
    "tablero = pizarra()",
    "tablero.habilitar(",
    "tablero.pintar(",  # la vertical de ejemplo en la columna 2
)
COLUMNA = 3  # la vertical que dibujamos
NEGRO, BLANCO = "rgb(0, 0, 0)", "rgb(255, 255, 255)"


def _colores(celdas) -> list[str]:
    """El color de fondo de las 64 celdas, por filas, tal como lo pinta el navegador."""
    return celdas.evaluate_all("els => els.map(e => getComputedStyle(e).backgroundColor)")


def _probabilidades(texto: str) -> dict[str, float]:
    return {n: float(p) for n, p in re.findall(r"\b(vertical|horizontal|oblicua)\s+(\d+\.\d+)", texto)}


def test_dibujar_una_vertical_en_la_cuadricula_predice_vertical(lab):
    from playwright.sync_api import expect

    pagina = lab.abrir(lab.recortar(NOTEBOOK_05, CELDAS_05))
    lab.ejecutar_todo(espera_s=120)

    # La pizarra es la caja más cercana que contiene el botón «Predecir».
    predecir = pagina.locator(".curso-predecir").first
    pizarra = predecir.locator("xpath=ancestor::div[contains(concat(' ', @class, ' '), ' widget-vbox ')][1]")
    limpiar = pizarra.locator(".curso-limpiar")
    resultado = pizarra.locator(".curso-resultado")
    aviso = pizarra.locator(".curso-aviso")
    celdas = pizarra.locator(".curso-celda")
    pizarra.scroll_into_view_if_needed()
    expect(predecir).to_be_enabled(timeout=60_000)  # el entrenamiento terminó
    expect(celdas).to_have_count(LADO * LADO)
    lab.comprobar_copia_fija_oculta("curso-pizarra-estatica")  # el widget se ve una sola vez
    # El notebook dibuja una vertical de ejemplo (columna 2): la persona empieza limpiando.
    assert NEGRO in _colores(celdas), "el ejemplo del notebook debería verse en la cuadrícula"
    limpiar.click()
    pagina.wait_for_function(
        """els => els.every(e => getComputedStyle(e).backgroundColor === 'rgb(255, 255, 255)')""",
        arg=celdas.element_handles(),
    )
    assert set(_colores(celdas)) == {BLANCO}, "«Limpiar» debería dejar la cuadrícula vacía"

    # Pulsar las 8 celdas de la columna 3, de arriba abajo.
    for fila in range(LADO):
        celdas.nth(fila * LADO + COLUMNA).click()
    esperados = [NEGRO if i % LADO == COLUMNA else BLANCO for i in range(LADO * LADO)]
    pagina.wait_for_function(
        """([els, esperados]) => els.every((e, i) => getComputedStyle(e).backgroundColor === esperados[i])""",
        arg=[celdas.element_handles(), esperados],
    )

    predecir.click()
    expect(resultado).to_contain_text("Predicción: vertical")
    texto = resultado.inner_text()
    probabilidades = _probabilidades(texto)
    assert list(probabilidades) == list(NOMBRES_CLASES), texto
    assert abs(sum(probabilidades.values()) - 1) < 0.02, texto
    assert max(probabilidades, key=probabilidades.get) == "vertical", texto
    lab.captura("05_pizarra_vertical.png", pizarra)

    # «Limpiar» deja la cuadrícula vacía; «Predecir» vacía muestra el aviso.
    limpiar.click()
    expect(resultado).to_contain_text("Cuadrícula limpia")
    pagina.wait_for_function(
        """els => els.every(e => getComputedStyle(e).backgroundColor === 'rgb(255, 255, 255)')""",
        arg=celdas.element_handles(),
    )
    predecir.click()
    expect(aviso).to_contain_text(_AVISO_VACIA)
    lab.captura("05_pizarra_vacia.png", pizarra)
    assert not lab.errores_js, f"errores de JavaScript en la página: {lab.errores_js}"
