"""Cómo se ven los informes (entorno, Colab) en la terminal y en el notebook."""

from curso_gpu.base import informe_html, informe_texto

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

from curso_gpu.base import formatear_numero  # noqa: E402


@pytest.mark.parametrize("valor, argumentos, esperado", [
    (124_439_808, {}, "124 439 808"),
    (16e9, {"decimales": 0, "unidad": "bytes"}, "16 000 000 000 bytes"),
    (1024, {}, "1 024"),  # cuatro cifras: también con separador, como «1 130 GB» (issue 24)
    (1130, {"unidad": "GB"}, "1 130 GB"),
    (15360, {"unidad": "MiB"}, "15 360 MiB"),
    (22, {"unidad": "%"}, "22 %"),
    (999, {}, "999"),
    (12345, {}, "12 345"),
    (12.6, {"decimales": 2, "unidad": "$"}, "12.60 $"),
    (15.84, {"decimales": 1, "unidad": "GB"}, "15.8 GB"),
    (0.0015349, {"cifras": 3}, "0.00153"),
    (0.743, {"decimales": 1, "unidad": "%"}, "0.7 %"),
    (-12345.678, {"decimales": 2}, "-12 345.68"),
])
def test_punto_decimal_espacio_de_millares_desde_cuatro_cifras_y_unidad_con_espacio(valor, argumentos, esperado):
    assert formatear_numero(valor, **argumentos) == esperado


def test_nunca_coma_decimal_ni_notacion_cientifica():
    for valor in (6.514787855849136e-06, 1e-9 * 3, 123456789.123):
        texto = formatear_numero(valor, cifras=3)
        assert "," not in texto and "e" not in texto


def test_lo_que_no_es_un_numero_da_un_error_claro():
    with pytest.raises(ValueError, match="espera un número"):
        formatear_numero("doce")


# --- Tablas de varias columnas: todas las del paquete salen de Tabla ----------------------------

from curso_gpu.base import Celda, Tabla  # noqa: E402

MEMORIA = Tabla("Memoria <de> entrenar", ["parte", "memoria", "%"],
                [["pesos", "1.20 MB", "40 %"], ["activaciones", "300.0 kB", "10 %"], ["<otra>", 12345, "50 %"]],
                notas=["16.0 bytes por parámetro"], total=["total", "3.00 MB", ""])


def test_la_tabla_de_texto_tiene_cabecera_y_alinea_los_numeros_a_la_derecha():
    # El texto, a la izquierda; los números (12345 se escribe con formatear_numero), a la derecha.
    assert str(MEMORIA).splitlines() == [
        "Memoria <de> entrenar",
        "  parte          memoria     %",
        "  pesos          1.20 MB  40 %",
        "  activaciones  300.0 kB  10 %",
        "  <otra>          12 345  50 %",
        "  total          3.00 MB",
        "  16.0 bytes por parámetro",
    ]


def test_la_tabla_html_escapa_y_alinea_igual_que_el_texto():
    codigo = MEMORIA._repr_html_()
    assert "&lt;otra&gt;" in codigo and "<otra>" not in codigo and "&lt;de&gt;" in codigo
    assert "<th style='text-align:left'>parte</th><th style='text-align:right'>memoria</th>" in codigo
    assert "<td style='text-align:left'>pesos</td><td style='text-align:right'>1.20 MB</td>" in codigo
    assert codigo.count("<tr>") == 5 and "<th style='text-align:left'>total</th>" in codigo
    assert "<p>16.0 bytes por parámetro</p>" in codigo and codigo.index("</table>") < codigo.index("<p>")


def test_sin_cabecera_una_columna_de_texto_queda_a_la_izquierda():
    tabla = Tabla("Diagnóstico", [], [["calculando", "80 %"], ["operaciones", "12 (≈ 3.1 µs cada una)"]])
    assert str(tabla).splitlines() == ["Diagnóstico", "  calculando   80 %", "  operaciones  12 (≈ 3.1 µs cada una)"]
    assert "<th" not in tabla._repr_html_()


def test_celda_con_estilo_barra_e_identificadores_de_fila():
    tabla = Tabla("¿Cabe?", ["precisión", "veredicto"], [["fp16", Celda("NO cabe", "color:#cf222e", barra=0.5)]],
                  subtitulo="(margen +20 %)", ids_filas=["fp16"], nombre_id="precision")
    codigo = tabla._repr_html_()
    assert "<tr data-precision='fp16'>" in codigo and "<span>(margen +20 %)</span>" in codigo
    assert "<td style='text-align:left;color:#cf222e'>NO cabe<span" in codigo and "width:50px" in codigo
    assert str(tabla).splitlines() == ["¿Cabe? (margen +20 %)", "  precisión  veredicto", "  fp16       NO cabe"]


def test_una_dataclass_como_tabla_se_imprime_y_se_ve_en_el_notebook_con_su_tabla():
    from dataclasses import dataclass

    from curso_gpu.base import ComoTabla

    @dataclass
    class Partes(ComoTabla):
        pesos: int

        def tabla(self) -> Tabla:
            return Tabla("Partes", ["parte", "bytes"], [["pesos", self.pesos]])

    partes = Partes(12345)
    assert str(partes) == str(partes.tabla()) == "Partes\n  parte   bytes\n  pesos  12 345"
    assert partes._repr_html_() == partes.tabla()._repr_html_() and repr(partes).endswith("Partes(pesos=12345)")
    # el text/plain de Jupyter y la consola de IPython (IPython.lib.pretty): la tabla, no el repr
    from IPython.core.formatters import PlainTextFormatter
    from IPython.lib.pretty import pretty

    assert pretty(partes) == PlainTextFormatter()(partes) == str(partes)


def test_formatear_tiempo_rechaza_lo_que_no_es_un_tiempo():
    from curso_gpu.base import formatear_tiempo

    assert formatear_tiempo(0.0123) == "12.300 ms"
    for malo in (float("nan"), float("inf"), -1.0, True, None, "1"):
        with pytest.raises((TypeError, ValueError), match=r"^segundos debe ser"):
            formatear_tiempo(malo)


# --- contar y mostrar_ruta -----------------------------------------------------------------

@pytest.mark.parametrize("cantidad, singular, esperado", [
    (1, "hilo", "1 hilo"), (2, "hilo", "2 hilos"), (0, "proceso", "0 procesos"), (1, "programa", "1 programa"),
    (3, "canción", "3 canciones"), (2, "vez", "2 veces"), (2, "tensor", "2 tensores"), (2, "GPU", "2 GPU"),
    (1024, "hilo", "1 024 hilos"),
])
def test_contar_concuerda_el_nombre_con_la_cantidad(cantidad, singular, esperado):
    from curso_gpu.base import contar

    assert contar(cantidad, singular) == esperado


def test_contar_acepta_un_plural_irregular_y_rechaza_lo_que_no_es_un_numero():
    from curso_gpu.base import contar

    assert contar(1, "proceso lanzado", "procesos lanzados") == "1 proceso lanzado"
    assert contar(2, "proceso lanzado", "procesos lanzados") == "2 procesos lanzados"
    with pytest.raises(ValueError, match="cantidad"):
        contar("dos", "hilo")
    with pytest.raises(ValueError, match="singular"):
        contar(2, "")


def test_mostrar_ruta_es_relativa_a_la_carpeta_de_trabajo_y_entera_fuera_de_ella(tmp_path, monkeypatch):
    from curso_gpu.base import mostrar_ruta

    monkeypatch.chdir(tmp_path)
    assert mostrar_ruta(tmp_path / "checkpoints" / "lora") == "checkpoints/lora"
    assert mostrar_ruta("checkpoints/lora") == "checkpoints/lora"
    fuera = tmp_path.parent / "otra"
    assert mostrar_ruta(fuera) == str(fuera)
