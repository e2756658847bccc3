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
