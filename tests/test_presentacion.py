"""Cómo se ven los informes (entorno, Colab) en la terminal y en el notebook."""

from curso_gpu.presentacion import informe_html, informe_texto

FILAS = [("GPU", "Tesla T4"), ("Memoria total", "15.0 GB")]


def test_el_texto_alinea_las_filas_y_subraya_el_titulo():
    texto = informe_texto("Entorno", FILAS, "Qué hacer", ["Guarda en Drive."])
    lineas = texto.splitlines()
    assert lineas[:2] == ["Entorno", "======="]
    assert lineas[2] == "GPU            Tesla T4"
    assert lineas[3] == "Memoria total  15.0 GB"
    assert lineas[-2:] == ["Qué hacer:", "- Guarda en Drive."]


def test_sin_avisos_no_hay_seccion_de_avisos():
    assert "Qué hacer" not in informe_texto("Entorno", FILAS, "Qué hacer", [])
    assert "Qué hacer" not in informe_html("Entorno", FILAS, "Qué hacer", [])


def test_el_html_escapa_el_texto_y_respeta_los_saltos_de_linea():
    html = informe_html("Entorno", [("GPU", "<ninguna>")], "Diagnóstico", ["pip install\n  torch"])
    assert "&lt;ninguna&gt;" in html and "<ninguna>" not in html
    assert "<li>pip install<br>  torch</li>" in html


# --- Números: una sola convención ----------------------------------------------------------

import pytest  # noqa: E402

from curso_gpu.presentacion import formatear_numero  # noqa: E402


@pytest.mark.parametrize("valor, argumentos, esperado", [
    (124_439_808, {}, "124 439 808"),
    (16e9, {"decimales": 0, "unidad": "bytes"}, "16 000 000 000 bytes"),
    (1024, {}, "1024"),  # cuatro cifras: sin separador
    (12345, {}, "12 345"),
    (12.6, {"decimales": 2, "unidad": "$"}, "12.60 $"),
    (15.84, {"decimales": 1, "unidad": "GB"}, "15.8 GB"),
    (0.0015349, {"cifras": 3}, "0.00153"),
    (0.743, {"decimales": 1, "unidad": "%"}, "0.7 %"),
    (-12345.678, {"decimales": 2}, "-12 345.68"),
])
def test_punto_decimal_espacio_de_millares_desde_cinco_cifras_y_unidad_con_espacio(valor, argumentos, esperado):
    assert formatear_numero(valor, **argumentos) == esperado


def test_nunca_coma_decimal_ni_notacion_cientifica():
    for valor in (6.514787855849136e-06, 1e-9 * 3, 123456789.123):
        texto = formatear_numero(valor, cifras=3)
        assert "," not in texto and "e" not in texto


def test_lo_que_no_es_un_numero_da_un_error_claro():
    with pytest.raises(ValueError, match="espera un número"):
        formatear_numero("doce")
