"""El sitio del curso, construido entero y leído en Chromium sin red (issue 27).

``python herramientas/sitio.py`` escribe el sitio en una carpeta temporal. No ejecuta las lecciones
otra vez: usa las de esta sesión de pruebas (``leccion_ejecutada``), que al ejecutarse quedan en la
caché del sitio. Las pide de la última a la primera: las pruebas de las lecciones empiezan por la
08 y la 05, así rara vez esperan una a otra.

Chromium abre el sitio servido en 127.0.0.1 y toda petición a otro sitio se corta: cada lección
carga con su título y sus figuras, los widgets se ven como su copia fija, los enlaces entre
lecciones funcionan y el buscador encuentra «torchrun».
"""

from __future__ import annotations

import functools
import os
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

RAIZ = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(RAIZ / "herramientas"))

import lecciones_ejecutadas as ejecutadas  # noqa: E402
import sitio  # noqa: E402

pytestmark = pytest.mark.lento

LIMITE_SITIO_S = 1200  # construir el sitio, ejecutando lo que falte (dos lecciones a la vez)
TEXTOS_PROHIBIDOS = ("Widget Javascript not detected", "Loading", "(children=", "Traceback")


@pytest.fixture(scope="session", autouse=True)  # de sesión: antes que Chromium y que las lecciones
def _lo_del_sitio_instalado():
    """La orden del README instala lo del sitio (``requirements-sitio.txt``): si falta, cada prueba
    de este archivo falla (como en ``test_sitio.py``), antes de buscar Chromium o esperar lecciones."""
    for modulo, paquete in (("sphinx", "sphinx"), ("myst_nb", "myst-nb"), ("sphinx_book_theme", "sphinx-book-theme")):
        try:
            __import__(modulo)
        except ImportError as error:
            pytest.fail(f"falta {paquete} ({error}), y la orden de pruebas del README lo instala: "
                        "`.venv/bin/pip install -r requirements-sitio.txt`", pytrace=False)


@pytest.fixture(scope="module")
def sitio_construido(request, tmp_path_factory, leccion_ejecutada):
    """La carpeta del sitio recién construido y lo que dijo ``sitio.py``."""
    captura = request.node.config.pluginmanager.getplugin("capturemanager")
    inicio = time.monotonic()
    for leccion in reversed(ejecutadas.lecciones()):  # las de esta sesión (ya ejecutadas o por ejecutar, una vez)
        leccion_ejecutada(leccion.name[:2])  # y, al ejecutarse, guardadas en la caché del sitio
    espera = time.monotonic() - inicio
    salida = tmp_path_factory.mktemp("sitio") / "sitio"
    entorno = {k: v for k, v in os.environ.items() if k != "PYTEST_CURRENT_TEST"}
    entorno["PYTHONPATH"] = str(RAIZ)
    inicio = time.monotonic()
    resultado = subprocess.run([sys.executable, str(RAIZ / "herramientas" / "sitio.py"), "--salida", str(salida),
                                "--copias-de-las-pruebas"],  # las de esta sesión: no se ejecutan dos veces
                               cwd=RAIZ, env=entorno, capture_output=True, text=True, timeout=LIMITE_SITIO_S)
    with captura.global_and_fixture_disabled():
        print(f"\n[tiempo] lecciones ejecutadas (o esperadas): {espera:.1f} s"
              f"\n[tiempo] construir el sitio: {time.monotonic() - inicio:.1f} s\n{resultado.stdout}")
    assert resultado.returncode == 0, resultado.stdout + resultado.stderr
    return salida


class Servidor(SimpleHTTPRequestHandler):
    """Sirve el sitio en silencio y anota las direcciones que no existen (enlaces rotos)."""

    rotas: list[str] = []

    def log_message(self, formato, *args):  # sin ruido en la salida de pytest
        pass

    def send_error(self, code, message=None, explain=None):
        if code == 404:
            Servidor.rotas.append(self.path)
        super().send_error(code, message, explain)


class ServidorSilencioso(ThreadingHTTPServer):
    """Un navegador que cambia de página corta las descargas a medias: eso no es un error que contar."""

    def handle_error(self, request, client_address):
        if not isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            super().handle_error(request, client_address)


@pytest.fixture(scope="module")
def web(sitio_construido):
    """La dirección del sitio servido en 127.0.0.1 (como lo vería quien lo publica)."""
    Servidor.rotas = []
    servidor = ServidorSilencioso(("127.0.0.1", 0),
                                  functools.partial(Servidor, directory=str(sitio_construido)))
    hilo = threading.Thread(target=servidor.serve_forever, daemon=True)
    hilo.start()
    try:
        yield f"http://127.0.0.1:{servidor.server_address[1]}"
    finally:
        servidor.shutdown()
        servidor.server_close()


class Navegador:
    """Una pestaña de Chromium sin red: solo el sitio local; lo demás se corta y se anota."""

    def __init__(self, browser, base: str):
        self.base = base
        self.bloqueadas: list[str] = []
        self.errores_js: list[str] = []
        self.contexto = browser.new_context(viewport={"width": 1300, "height": 900}, locale="es-ES")
        self.contexto.set_default_timeout(20_000)
        self.contexto.route("**/*", self._filtrar)
        self.pagina = self.contexto.new_page()
        self.pagina.on("pageerror", lambda e: self.errores_js.append(str(e)))

    def _filtrar(self, ruta):
        url = ruta.request.url
        if url.startswith((self.base + "/", "file:", "data:", "blob:")):
            ruta.continue_()
        else:
            self.bloqueadas.append(url)
            ruta.abort()

    def ir(self, ruta: str):
        respuesta = self.pagina.goto(f"{self.base}/{ruta}")
        assert respuesta is not None and respuesta.ok, f"{ruta}: {respuesta and respuesta.status}"
        self.pagina.wait_for_load_state("load")
        return self.pagina


@pytest.fixture(scope="module")
def navegador(web, chromium):
    """Una pestaña del Chromium de la sesión (fixture ``chromium``) sobre el sitio servido."""
    navegador = Navegador(chromium, web)
    try:
        yield navegador
    finally:
        navegador.contexto.close()


@pytest.fixture(scope="module")
def capturas(tmp_path_factory):
    return tmp_path_factory.mktemp("capturas_sitio")


def _capturar(pagina, carpeta: Path, nombre: str, capsys) -> Path:
    ruta = carpeta / nombre
    pagina.screenshot(path=str(ruta))
    with capsys.disabled():
        print(f"\n[captura] {ruta}")
    return ruta


def _figuras_del_notebook(ruta: Path) -> int:
    cuaderno = ejecutadas.leer(ruta)
    assert cuaderno is not None, f"{ruta.name} no está en la caché tras construir el sitio"
    return sum("image/png" in s.get("data", {}) for c in cuaderno.cells for s in c.get("outputs", []))


LECCIONES = sitio.lecciones_del_sitio()


def test_el_sitio_no_muestra_marcadores_de_sphinx_ni_su_pie(sitio_construido):
    """Sin navegador: el HTML que escribió Sphinx, página a página (el sitio se construye una vez)."""
    assert sitio.marcadores_en_paginas(sitio_construido) == {}  # ni «Por Author name not set» ni otros huecos
    for leccion in LECCIONES:
        pagina = (sitio_construido / f"{leccion.pagina}.html").read_text(encoding="utf-8")
        assert "component-author" not in pagina and "curso-pie" in pagina, leccion.pagina


def test_la_portada_tiene_la_descripcion_y_la_tabla_de_lecciones_en_espanol(navegador, capturas, capsys):
    pagina = navegador.ir("index.html")
    assert pagina.locator("html").get_attribute("lang") == "es"
    assert pagina.locator("h1").first.inner_text().startswith("Curso: usar una GPU con PyTorch")
    assert "No necesitas una GPU" in pagina.locator("article").inner_text()
    enlaces = pagina.locator("article table a").evaluate_all("as => as.map(a => a.getAttribute('href'))")
    assert enlaces == [f"{l.pagina}.html" for l in LECCIONES]
    assert "Salidas de las lecciones producidas en CPU" in pagina.locator(".extra_footer .curso-pie").inner_text()
    assert pagina.get_by_placeholder("Buscar").count() > 0  # la interfaz, en español
    _capturar(pagina, capturas, "portada.png", capsys)
    assert navegador.bloqueadas == [] and navegador.errores_js == []


@pytest.mark.parametrize("leccion", LECCIONES, ids=lambda l: l.numero)
def test_cada_leccion_carga_con_su_titulo_sus_figuras_y_sin_huecos_de_widget(navegador, leccion):
    pagina = navegador.ir(f"{leccion.pagina}.html")
    titulo = pagina.locator("article h1").first.inner_text()
    assert titulo.startswith(f"Lección {leccion.numero} — ") and titulo.split(" — ", 1)[1] in pagina.title()
    insignia = pagina.locator("article img[alt='Abrir en Colab']")
    assert insignia.count() == 1
    assert insignia.locator("xpath=..").get_attribute("href") == sitio.insignias.url_colab(leccion.ruta.name)
    imagenes = pagina.locator("article img").evaluate_all(
        "is => is.map(i => ({src: i.getAttribute('src'), ok: i.complete && i.naturalWidth > 0 && i.naturalHeight > 0}))")
    assert [i["src"] for i in imagenes if not i["ok"]] == []
    assert pagina.locator("article .cell_output img").count() == _figuras_del_notebook(leccion.ruta)
    texto = pagina.locator("body").inner_text()
    assert [t for t in TEXTOS_PROHIBIDOS if t in texto] == []
    assert pagina.locator("script[type='application/vnd.jupyter.widget-view+json']").count() == 0
    vacias = pagina.locator("article .cell_output > .output").evaluate_all(
        "os => os.filter(o => !o.innerText.trim() && !o.querySelector('img,svg,table,canvas')).length")
    assert vacias == 0
    assert "Salidas producidas el" in pagina.locator("article").inner_text()  # dónde y cuándo
    assert "Medido en una GPU de verdad" in texto
    assert navegador.bloqueadas == [] and navegador.errores_js == []


def test_la_calculadora_la_pizarra_y_las_barras_muestran_su_copia_fija(navegador, capturas, capsys):
    pagina = navegador.ir("lecciones/03_benchmark_cpu_gpu.html")
    pagina.locator("article .cell_output img").first.scroll_into_view_if_needed()
    _capturar(pagina, capturas, "leccion_03.png", capsys)

    pagina = navegador.ir("lecciones/04_estimar_vram.html")
    calculadora = pagina.locator(".curso-vram-estatica").filter(visible=True)
    assert calculadora.count() == 1 and "Calculadora de VRAM" in calculadora.inner_text()

    pagina = navegador.ir("lecciones/05_entrenamiento_portable.html")
    pizarra = pagina.locator(".curso-pizarra-estatica").filter(visible=True)
    assert pizarra.count() == 1 and pizarra.bounding_box()["height"] > 100  # una vez: su copia aparte sigue oculta
    assert "Copia fija" in pizarra.inner_text() and "Modelo listo" in pizarra.inner_text()
    barra = pagina.locator(".curso-barra").first
    assert barra.is_visible() and "100%" in barra.inner_text()
    pizarra.scroll_into_view_if_needed()
    _capturar(pagina, capturas, "leccion_05_pizarra.png", capsys)
    assert navegador.bloqueadas == [] and navegador.errores_js == []


def test_los_enlaces_llevan_de_cada_leccion_a_la_siguiente(navegador):
    # Cada <a href> de este sitio en la portada y en cada lección: se anotan al pasar por ellas.
    internos = "as => as.map(a => a.href)"
    pagina = navegador.ir("index.html")
    hrefs = pagina.eval_on_selector_all("a[href]", internos)
    pagina.locator("article table a").first.click()
    visitadas = []
    for leccion in LECCIONES:
        pagina.wait_for_load_state("load")
        assert pagina.url == f"{navegador.base}/{leccion.pagina}.html"
        assert pagina.locator("article h1").first.inner_text().startswith(f"Lección {leccion.numero}")
        visitadas.append(leccion.numero)
        hrefs += pagina.eval_on_selector_all("a[href]", internos)
        pagina.locator("a.right-next").click()
    pagina.wait_for_load_state("load")
    assert pagina.url == f"{navegador.base}/{sitio.PAGINA_GPU}.html"
    pagina.locator("a.left-prev").click()
    pagina.wait_for_load_state("load")
    assert pagina.url == f"{navegador.base}/{LECCIONES[-1].pagina}.html"
    assert visitadas == [l.numero for l in LECCIONES]
    # y todos los enlaces internos de esas páginas llevan a algo que existe
    enlaces = {h.split("#", 1)[0] for h in hrefs if h.startswith(navegador.base + "/")}
    assert {f"{navegador.base}/{l.pagina}.html" for l in LECCIONES} <= enlaces, sorted(enlaces)
    sin_proxy = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    rotos = []
    for url in sorted(enlaces):
        try:
            with sin_proxy.open(url, timeout=20) as respuesta:
                if respuesta.status != 200:
                    rotos.append(f"{url}: {respuesta.status}")
        except urllib.error.HTTPError as error:
            rotos.append(f"{url}: {error.code}")
    assert rotos == [], rotos
    assert Servidor.rotas == []
    assert navegador.bloqueadas == []


def test_el_buscador_encuentra_torchrun(navegador):
    pagina = navegador.ir("search.html?q=torchrun")
    resultados = pagina.locator("#search-results li a")
    resultados.first.wait_for(state="visible")
    destinos = resultados.evaluate_all("as => as.map(a => a.getAttribute('href'))")
    assert any("08_varias_gpu_ddp" in d for d in destinos), destinos
    assert navegador.bloqueadas == [] and navegador.errores_js == []


def test_la_pagina_de_la_gpu_muestra_lo_medido_o_dice_que_no_hay_nada(navegador):
    pagina = navegador.ir(f"{sitio.PAGINA_GPU}.html")
    texto = pagina.locator("article").inner_text()
    validaciones = sitio.leer_validaciones()
    if not validaciones:
        assert "Todavía no se ha registrado ninguna validación en una GPU de verdad" in texto
    for validacion in validaciones:
        assert validacion.gpu in texto and validacion.fecha in texto
