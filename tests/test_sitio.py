"""El sitio del curso, pieza a pieza y sin navegador: la caché de lecciones ejecutadas, las salidas
que se rehacen desde nbval, la portada, la página de la GPU y ``validar_en_gpu.py --json``.

La prueba que construye el sitio entero y lo abre en Chromium es ``test_sitio_navegador.py``.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import nbformat
import pytest

RAIZ = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(RAIZ / "herramientas"))

import lecciones_ejecutadas as ejecutadas  # noqa: E402
import sitio  # noqa: E402

VISTA = ejecutadas.VISTA_WIDGET


def _validar():
    spec = importlib.util.spec_from_file_location("validar_en_gpu", RAIZ / "benchmarks" / "validar_en_gpu.py")
    modulo = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = modulo  # las dataclasses lo buscan ahí
    spec.loader.exec_module(modulo)
    return modulo


def _mensaje(tipo, contenido, padre="m0"):
    return {"msg_type": tipo, "content": contenido, "parent_header": {"msg_id": padre}}


def _cuaderno(*fuentes):
    celdas = [nbformat.v4.new_markdown_cell("# Lección 99 — Prueba")]
    celdas += [nbformat.v4.new_code_cell(f) for f in fuentes]
    return nbformat.v4.new_notebook(cells=celdas)


# ---------------------------------------------------------------------------
# Las salidas de nbval, rehechas como las guardaría Jupyter
# ---------------------------------------------------------------------------

def test_una_salida_actualizada_desde_otra_celda_queda_con_su_ultimo_estado():
    """La pizarra se muestra en una celda y se activa en otra; la barra se cierra y deja su copia fija."""
    registro = ejecutadas.RegistroNbval(_cuaderno("pizarra", "entrenar()"))
    registro.empezar(0)
    registro.ejecutada(0, "a")
    registro.mensaje(_mensaje("execute_input", {"execution_count": 1}, "a"))
    registro.mensaje(_mensaje("display_data", {"data": {VISTA: {"model_id": "x"}, "text/html": "inactiva",
                                                        "text/plain": "Pizarra"},
                                               "metadata": {}, "transient": {"display_id": "p"}}, "a"))
    registro.empezar(1)
    registro.ejecutada(1, "b")
    registro.mensaje(_mensaje("execute_input", {"execution_count": 1}, "b"))  # nbval: siempre 1
    registro.mensaje(_mensaje("stream", {"name": "stdout", "text": "época 1\n"}, "b"))
    registro.mensaje(_mensaje("stream", {"name": "stdout", "text": "época 2\n"}, "b"))
    registro.mensaje(_mensaje("update_display_data", {"data": {"text/html": "Modelo listo", "text/plain": "P"},
                                                      "metadata": {}, "transient": {"display_id": "p"}}, "b"))
    cuaderno = registro.resultado()
    primera, segunda = cuaderno.cells[1], cuaderno.cells[2]
    assert primera.outputs[0]["data"] == {"text/html": "Modelo listo", "text/plain": "P"}
    assert segunda.outputs == [nbformat.v4.new_output("stream", name="stdout", text="época 1\népoca 2\n")]
    assert (primera.execution_count, segunda.execution_count) == (1, 2)
    assert registro.completo()


def test_como_jupyter_un_punto_y_coma_final_oculta_el_resultado_y_clear_output_borra():
    registro = ejecutadas.RegistroNbval(_cuaderno("grafico(x);  # figura", "print(1)"))
    registro.empezar(0)
    registro.ejecutada(0, "a")
    registro.mensaje(_mensaje("execute_result", {"data": {"text/plain": "<Figure>"}, "metadata": {},
                                                 "execution_count": 1}, "a"))
    registro.mensaje(_mensaje("display_data", {"data": {"image/png": "iVBOR"}, "metadata": {}}, "a"))
    assert [s["output_type"] for s in registro.resultado().cells[1].outputs] == ["display_data"]
    registro.mensaje(_mensaje("clear_output", {"wait": True}, "a"))
    registro.mensaje(_mensaje("display_data", {"data": {"image/png": "otra"}, "metadata": {}}, "a"))
    assert [s["data"]["image/png"] for s in registro.resultado().cells[1].outputs] == ["otra"]
    assert not registro.completo()  # la segunda celda no se ejecutó: no se guarda
    assert ejecutadas.termina_en_punto_y_coma("f(x);\n# fin\n")
    assert not ejecutadas.termina_en_punto_y_coma("a = 'x;'")


def test_una_celda_fallida_no_deja_una_copia_completa():
    registro = ejecutadas.RegistroNbval(_cuaderno("1/0"))
    registro.empezar(0)
    registro.ejecutada(0, "a")
    registro.fallida = True
    assert not registro.completo()


# ---------------------------------------------------------------------------
# La caché
# ---------------------------------------------------------------------------

def test_la_clave_cambia_con_el_notebook_y_con_el_codigo_del_paquete(tmp_path):
    paquete = tmp_path / "curso_gpu"
    paquete.mkdir()
    (paquete / "a.py").write_text("x = 1\n")
    notebook = tmp_path / "01_prueba.ipynb"
    nbformat.write(_cuaderno("print(1)"), notebook)
    antes = ejecutadas.clave(notebook, ejecutadas.huella_paquete(paquete))
    assert ejecutadas.clave(notebook, ejecutadas.huella_paquete(paquete)) == antes
    (paquete / "a.py").write_text("x = 2\n")
    otro_paquete = ejecutadas.clave(notebook, ejecutadas.huella_paquete(paquete))
    nbformat.write(_cuaderno("print(2)"), notebook)
    otro_notebook = ejecutadas.clave(notebook, ejecutadas.huella_paquete(paquete))
    assert len({antes, otro_paquete, otro_notebook}) == 3


def test_guardar_anota_donde_y_cuando_quita_los_widgets_y_reemplaza_la_version_anterior(tmp_path):
    notebook = tmp_path / "01_prueba.ipynb"
    nbformat.write(_cuaderno("print(1)"), notebook)
    cache = tmp_path / "cache"
    ejecutado = _cuaderno("print(1)")
    ejecutado.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": {"state": {"x": {}}}}
    vieja = ejecutadas.guardar(ejecutado, notebook, cache, "pruebas", 3.0, dispositivo="CPU: prueba")
    nbformat.write(_cuaderno("print(2)"), notebook)  # otra versión del notebook
    nueva = ejecutadas.guardar(ejecutado, notebook, cache, "sitio", 4.0, dispositivo="CPU: prueba")
    assert nueva != vieja and not vieja.exists()
    leido = ejecutadas.leer(notebook, cache)
    assert "widgets" not in leido.metadata
    datos = leido.metadata[ejecutadas.METADATOS]
    assert datos["dispositivo"] == "CPU: prueba" and datos["origen"] == "sitio" and datos["fecha"].endswith("UTC")


def test_esperar_no_espera_a_un_notebook_que_fallo_y_devuelve_los_que_faltan(tmp_path):
    notebook = tmp_path / "01_prueba.ipynb"
    nbformat.write(_cuaderno("1/0"), notebook)
    cache = tmp_path / "cache"
    ejecutadas.marcar_fallo(notebook, "una celda falló", cache)
    assert ejecutadas.esperar([notebook], cache, espera_s=60) == [notebook]  # sin esperar 60 s
    assert ejecutadas.fallo(notebook, cache) == "una celda falló"


def test_el_sitio_publica_solo_copias_limpias_y_las_de_las_pruebas_solo_si_se_le_pide(tmp_path):
    notebook = tmp_path / "01_prueba.ipynb"
    nbformat.write(_cuaderno("print(1)"), notebook)
    cache = tmp_path / "cache"
    ejecutadas.guardar(_cuaderno("print(1)"), notebook, cache, "pruebas", 3.0, dispositivo="CPU: prueba")
    assert ejecutadas.leer(notebook, cache) is not None
    assert ejecutadas.leer(notebook, cache, solo_limpias=True) is None  # en paralelo, en notebooks/: no
    ejecutadas.guardar(_cuaderno("print(1)"), notebook, cache, "sitio", 3.0, dispositivo="CPU: prueba", limpia=True)
    assert ejecutadas.es_limpia(ejecutadas.leer(notebook, cache, solo_limpias=True))


def test_ejecutar_la_10_de_forma_limpia_ejecuta_antes_la_09():
    todas = [Path(f"notebooks/{n}_x.ipynb") for n in ("08", "09", "10", "11")]
    assert ejecutadas.con_previas([todas[2]], todas) == [todas[1], todas[2]]
    assert ejecutadas.con_previas([todas[3], todas[0]], todas) == [todas[0], todas[3]]  # en orden de lección


@pytest.mark.lento  # arranca dos kernels de Jupyter
def test_las_lecciones_limpias_van_en_orden_en_una_carpeta_aparte_que_comparten(tmp_path):
    """Lo que guarda una lección lo encuentra la siguiente (09 → 10), y ninguna corre en el repositorio."""
    carpeta = tmp_path / "notebooks"
    carpeta.mkdir()
    nbformat.write(_cuaderno("from pathlib import Path\nPath('adaptador.txt').write_text('de la 01')"),
                   carpeta / "01_guarda.ipynb")
    nbformat.write(_cuaderno("import os\nfrom pathlib import Path\nprint(Path('adaptador.txt').read_text())\n"
                             f"print({str(RAIZ)!r} in os.getcwd(), {str(carpeta)!r} in os.getcwd())"),
                   carpeta / "02_lee.ipynb")
    cache = tmp_path / "cache"
    dichas = []
    hechas = ejecutadas.ejecutar([carpeta / "02_lee.ipynb", carpeta / "01_guarda.ipynb"], cache, avisar=dichas.append)
    assert [r.name for r in hechas] == ["01_guarda.ipynb", "02_lee.ipynb"]  # en orden, aunque se pidan al revés
    assert [d.split(":")[0].strip() for d in dichas] == ["01_guarda.ipynb", "02_lee.ipynb"]
    leida = ejecutadas.leer(carpeta / "02_lee.ipynb", cache, solo_limpias=True)
    assert leida.cells[1].outputs[0]["text"] == "de la 01\nFalse False\n"


def test_el_entorno_de_los_kernels_importa_el_paquete_y_no_hereda_pytest_ni_la_t4_simulada(monkeypatch):
    monkeypatch.setenv("PYTEST_CURRENT_TEST", "x.py::y (call)")
    monkeypatch.setenv("PYTHONPATH", "/otra")
    monkeypatch.setenv("CURSO_GPU_SIMULAR", "T4")
    entorno = ejecutadas.entorno_kernel(paralelo=2)
    assert "PYTEST_CURRENT_TEST" not in entorno
    assert "CURSO_GPU_SIMULAR" not in entorno  # el sitio nunca publica la T4 simulada
    assert entorno["PYTHONPATH"].split(":")[:2] == [str(RAIZ), "/otra"]


# ---------------------------------------------------------------------------
# La portada y las lecciones
# ---------------------------------------------------------------------------

def test_la_portada_sale_del_readme_y_recoge_lecciones_que_el_readme_aun_no_lista(tmp_path):
    carpeta = tmp_path / "notebooks"
    carpeta.mkdir()
    for nombre, titulo in (("01_deteccion_gpu.ipynb", "Detectar"), ("11_leccion_nueva.ipynb", "Una lección nueva")):
        nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell(
            f"# Lección {nombre[:2]} — {titulo}")]), carpeta / nombre)
    lecciones = sitio.lecciones_del_sitio(carpeta, RAIZ / "README.md")
    assert [(l.numero, l.titulo) for l in lecciones] == [("01", "Detectar la GPU"), ("11", "Una lección nueva")]
    texto = sitio.portada((RAIZ / "README.md").read_text(encoding="utf-8"), lecciones)
    assert texto.startswith("# Curso: usar una GPU con PyTorch")
    assert "No necesitas una GPU" in texto  # la descripción del curso
    assert "[Detectar la GPU](lecciones/01_deteccion_gpu.ipynb)" in texto
    assert "lecciones/11_leccion_nueva\n" in texto  # en la navegación, en orden
    assert "02_colab" not in texto  # el README la lista, pero aquí no existe


def test_cada_leccion_lleva_su_insignia_local_el_recuadro_de_la_gpu_y_su_pie():
    cuaderno = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell(f"{sitio.insignias.linea_insignia('03_benchmark_cpu_gpu.ipynb')}\n\n# Lección 03 — X"),
        nbformat.v4.new_markdown_cell("## Sin GPU"),
        nbformat.v4.new_markdown_cell("En una T4 verías 4000 GFLOP/s."),
        nbformat.v4.new_code_cell("calculadora", outputs=[nbformat.v4.new_output(
            "display_data", data={VISTA: {"model_id": "x"}, "text/html": "<b>tabla</b>", "text/plain": "VBox"}),
            nbformat.v4.new_output("stream", name="stdout", text="\n")]),
    ])
    cuaderno.metadata[ejecutadas.METADATOS] = {"fecha": "2026-12-03 22:00 UTC", "dispositivo": "CPU: X",
                                               "origen": "pruebas"}
    hecho = sitio.preparar_leccion(cuaderno, Path("03_benchmark_cpu_gpu.ipynb"), [])
    fuentes = [c.source for c in hecho.cells]
    assert sitio.INSIGNIA_LOCAL in fuentes[0] and sitio.insignias.IMAGEN_COLAB not in fuentes[0]
    assert "colab.research.google.com/github/" in fuentes[0]  # el enlace sigue llevando a Colab
    assert "T4 verías" in fuentes[2] and "Todavía no se ha registrado" in fuentes[3]  # junto al texto de la T4
    assert "2026-12-03 22:00 UTC" in fuentes[-1] and "CPU: X" in fuentes[-1]
    assert VISTA not in hecho.cells[4].outputs[0]["data"]  # gana la copia fija
    assert len(hecho.cells[4].outputs) == 1  # sin el recuadro vacío de un print() en blanco
    assert VISTA in cuaderno.cells[3].outputs[0]["data"]  # sin tocar el original


def test_los_marcadores_de_sphinx_se_encuentran_en_las_paginas(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "uno.html").write_text("<p class='component-author'>Por Author name not set</p>")
    (tmp_path / "dos.html").write_text("<title>&lt;no title&gt;</title>")
    (tmp_path / "bien.html").write_text("<p>Curso: usar una GPU con PyTorch</p>")
    assert sitio.marcadores_en_paginas(tmp_path) == {"a/uno.html": ["Author name not set"],
                                                     "dos.html": ["&lt;no title&gt;"]}


def test_no_borra_una_carpeta_de_salida_que_no_es_un_sitio(tmp_path):
    (tmp_path / "mis_cosas.txt").write_text("importante")
    with pytest.raises(ValueError, match="no es un sitio del curso"):
        sitio._comprobar_salida(tmp_path)
    assert (tmp_path / "mis_cosas.txt").read_text() == "importante"
    sitio._comprobar_salida(tmp_path / "nueva")  # una que no existe, sí


# ---------------------------------------------------------------------------
# Las cifras de la GPU: validar_en_gpu.py --json y lo que muestra el sitio
# ---------------------------------------------------------------------------

def test_sin_resultados_de_gpu_el_sitio_dice_que_no_hay_ninguno(tmp_path):
    assert sitio.leer_validaciones(tmp_path) == []
    assert "Todavía no se ha registrado ninguna validación" in sitio.pagina_gpu([])
    assert "Todavía no se ha registrado ninguna validación" in sitio.nota_gpu("03", [])


def test_validar_en_gpu_con_json_escribe_lo_que_imprime_y_el_sitio_lo_muestra(tmp_path, monkeypatch, capsys):
    validar = _validar()
    falsos = [validar.Resultado("03", "fp32 llega al 30-70 % del pico", "52.1 %", True),
              validar.Resultado("05", "la GPU es más rápida | por época", "1.1x", False)]
    monkeypatch.setattr(validar.torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(validar.torch.cuda, "get_device_name", lambda *a: "Tesla T4 (falsa)")
    monkeypatch.setattr(validar, "comprobaciones", lambda rapido: [("falsas", lambda gpu: falsos)])
    ruta = tmp_path / "resultados_gpu" / "t4.json"
    assert validar.main(["--rapido", "--json", str(ruta)]) == 1  # una falla
    impreso = capsys.readouterr().out
    datos = json.loads(ruta.read_text(encoding="utf-8"))
    assert datos["gpu"] == "Tesla T4 (falsa)" and datos["rapido"] is True
    assert [r["pasa"] for r in datos["resultados"]] == [True, False]
    assert datos["resumen"] == "1 de 2 afirmaciones se cumplen." and datos["resumen"] in impreso
    for resultado in falsos:
        assert resultado.linea() in impreso

    validaciones = sitio.leer_validaciones(ruta.parent)
    pagina = sitio.pagina_gpu(validaciones)
    assert "Tesla T4 (falsa)" in pagina and datos["fecha"] in pagina and "**1 de 2**" in pagina
    assert "✅ PASS" in pagina and "❌ FAIL" in pagina and "más rápida \\| por época" in pagina
    assert "52.1 %" in sitio.nota_gpu("03", validaciones) and "1.1x" not in sitio.nota_gpu("03", validaciones)
    assert "no comprueba nada de esta lección" in sitio.nota_gpu("01", validaciones)


def test_sin_gpu_validar_con_json_no_escribe_nada(tmp_path, monkeypatch):
    validar = _validar()
    monkeypatch.setattr(validar.torch.cuda, "is_available", lambda: False)
    assert validar.main(["--json", str(tmp_path / "x.json")]) == 0
    assert not (tmp_path / "x.json").exists()


def test_un_archivo_de_resultados_roto_es_un_error_que_dice_cual(tmp_path):
    (tmp_path / "roto.json").write_text('{"gpu": "T4"}', encoding="utf-8")
    with pytest.raises(ValueError, match="roto.json no es un resultado"):
        sitio.leer_validaciones(tmp_path)




def test_sin_ejecutar_no_ejecuta_nada_y_dice_que_lecciones_van_sin_salidas(tmp_path, monkeypatch):
    """Todo ``construir`` menos Sphinx (que lo construye una sola vez por sesión, con las lecciones
    ejecutadas, en ``test_sitio_navegador.py``): aquí se mira lo que se le entrega."""
    import nbformat
    import sphinx.cmd.build  # la orden del README lo instala (requirements-sitio.txt): faltar es un error

    def no_ejecutar(*args, **kwargs):
        raise AssertionError("con --sin-ejecutar no se ejecuta ninguna lección")

    entregadas, conf_py = {}, ""

    def sphinx_falso(argumentos):
        fuente, html = Path(argumentos[-2]), Path(argumentos[-1])
        for ruta in sorted((fuente / "lecciones").glob("*.ipynb")):
            entregadas[ruta.name] = nbformat.read(ruta, as_version=4)
        nonlocal conf_py
        conf_py = (fuente / "conf.py").read_text(encoding="utf-8")
        html.mkdir(parents=True)
        (html / "index.html").write_text((fuente / "index.md").read_text(encoding="utf-8"), encoding="utf-8")
        return 0

    monkeypatch.setattr(ejecutadas, "ejecutar", no_ejecutar)
    monkeypatch.setattr(sphinx.cmd.build, "build_main", sphinx_falso)
    salida = tmp_path / "sitio"  # un sitio anterior (con su marca): se reemplaza entero
    salida.mkdir()
    (salida / sitio.MARCA).write_text("sitio anterior\n", encoding="utf-8")
    (salida / "pagina_vieja.html").write_text("vieja", encoding="utf-8")
    informe = sitio.construir(salida, sin_ejecutar=True, cache=tmp_path / "cache_vacia", avisar=lambda *a: None)
    nombres = [r.name for r in ejecutadas.lecciones()]
    assert informe.sin_salidas == informe.lecciones == nombres
    assert list(entregadas) == nombres
    for nombre, cuaderno in entregadas.items():
        assert cuaderno.cells[-1].source == sitio.pie_leccion(None), nombre  # «se muestra sin salidas»
        assert not any(c.get("outputs") for c in cuaderno.cells if c.cell_type == "code"), nombre
    assert "ninguna se ejecutó para este sitio" in conf_py  # el pie del sitio, el nuestro
    assert (salida / sitio.MARCA).is_file() and (salida / "index.html").is_file()
    assert not (salida / "pagina_vieja.html").exists()
