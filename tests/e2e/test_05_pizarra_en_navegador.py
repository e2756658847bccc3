"""Lección 05 en un navegador de verdad: entrenar y dibujar una línea en la cuadrícula.

Se abre en JupyterLab (Chromium sin pantalla) una copia de ``05_entrenamiento_portable.ipynb``
con solo las celdas que la pizarra necesita (imports, dispositivo, datos, entrenar el modelo y
la pizarra; nbval ya ejecuta la lección entera), se ejecuta desde el menú, se espera a que
termine el entrenamiento («Predecir» se activa) y se hace lo que haría una persona: pulsar
las celdas de una línea vertical, «Predecir», leer la clase y las tres probabilidades;
«Limpiar», y «Predecir» con la cuadrícula vacía.
"""

from __future__ import annotations

import re

import pytest

from curso_gpu.entrenamiento import LADO, NOMBRES_CLASES
from curso_gpu.interactivo.widgets import _AVISO_VACIA

pytestmark = pytest.mark.e2e

NOTEBOOK = "05_entrenamiento_portable.ipynb"
# Las celdas de la lección que la pizarra necesita, cada una por un fragmento de su código.
CELDAS = (
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

    pagina = lab.abrir(lab.recortar(NOTEBOOK, CELDAS))
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
