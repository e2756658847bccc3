"""Infraestructura de las pruebas de extremo a extremo: JupyterLab real y Chromium sin pantalla.

- ``servidor_jupyter``: un JupyterLab de verdad en 127.0.0.1, en un puerto libre al azar y
  con un token, sirviendo una COPIA de los notebooks en una carpeta temporal (el repositorio
  nunca recibe salidas). Uno para toda la sesión de pruebas; se apaga al final.
- ``navegador``: el Chromium del sistema (Debian: ``/usr/bin/chromium``; ver ``tests/chromium.py``)
  manejado por Playwright, uno para toda la sesión. Playwright no descarga ningún navegador.
- ``lab``: abre un notebook en una pestaña nueva, lo ejecuta entero desde el menú y guarda
  capturas de pantalla. ``lab.recortar(nombre, fragmentos)`` prepara antes una copia con solo
  las celdas de código que la prueba necesita (las que contienen esos fragmentos): la suite ya
  ejecuta cada lección entera, una vez; aquí se prueba el widget en el navegador, no la lección otra vez.

Si falta Chromium o Playwright en el ordenador de quien aprende, las pruebas se saltan con un
motivo que dice cómo instalarlos. En CI (``CI=true``) faltar es un error, no un salto.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from pathlib import Path

import pytest
from lentas import fixture_lenta

RAIZ = Path(__file__).resolve().parents[2]
NOTEBOOKS = RAIZ / "notebooks"


def puerto_libre() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# ---------------------------------------------------------------------------
# JupyterLab
# ---------------------------------------------------------------------------

class ServidorJupyter:
    """Un JupyterLab lanzado para las pruebas (ver ``servidor_jupyter``)."""

    def __init__(self, carpeta: Path, origen: Path | None = None):
        self.carpeta = carpeta
        self.origen = origen or NOTEBOOKS
        self.notebooks = carpeta / "notebooks"
        self.puerto = puerto_libre()
        self.token = secrets.token_hex(16)
        self.url = f"http://127.0.0.1:{self.puerto}"
        self.registro = carpeta / "jupyterlab.log"
        self.proceso: subprocess.Popen | None = None

    def _preparar(self) -> dict:
        self.notebooks.mkdir(parents=True)
        for ipynb in self.origen.glob("*.ipynb"):
            shutil.copy2(ipynb, self.notebooks / ipynb.name)
        ajustes = self.carpeta / "ajustes"
        # Todas las celdas en el DOM (sin "windowing") y sin noticias ni avisos de versiones.
        preferencias = {
            "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {
                "windowingMode": "none",
                "autoStartDefaultKernel": True,
            },
            "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {
                "fetchNews": "false",
                "checkForUpdates": False,
            },
        }
        for nombre, valor in preferencias.items():
            ruta = ajustes / nombre
            ruta.parent.mkdir(parents=True, exist_ok=True)
            ruta.write_text(json.dumps(valor), encoding="utf-8")
        entorno = dict(os.environ)
        # Carpetas de Jupyter propias: ni la configuración ni los kernels de quien prueba cuentan.
        for variable, sub in (
            ("JUPYTER_CONFIG_DIR", "config"),
            ("JUPYTER_DATA_DIR", "datos"),
            ("JUPYTER_RUNTIME_DIR", "runtime"),
            ("IPYTHONDIR", "ipython"),
        ):
            entorno[variable] = str(self.carpeta / sub)
        entorno["JUPYTERLAB_SETTINGS_DIR"] = str(ajustes)
        entorno["JUPYTERLAB_WORKSPACES_DIR"] = str(self.carpeta / "espacios")
        entorno["JUPYTER_PLATFORM_DIRS"] = "1"
        entorno.pop("CURSO_GPU_DISPOSITIVO", None)
        return entorno

    def arrancar(self, espera: float = 90.0) -> None:
        entorno = self._preparar()
        orden = [
            sys.executable, "-m", "jupyterlab",
            "--no-browser",
            "--ServerApp.ip=127.0.0.1",
            f"--ServerApp.port={self.puerto}",
            "--ServerApp.port_retries=0",
            f"--IdentityProvider.token={self.token}",
            f"--ServerApp.root_dir={self.notebooks}",
            "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
            "--LabApp.news_url=",
            "--LabApp.extension_manager=readonly",  # no pregunta a PyPI por extensiones
            "--ServerApp.terminals_enabled=False",
            "--ServerApp.jpserver_extensions=jupyter_lsp=False",
        ]
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            orden.append("--allow-root")  # en CI y en contenedores somos root
        with open(self.registro, "wb") as salida:
            self.proceso = subprocess.Popen(
                orden, cwd=self.notebooks, env=entorno, stdout=salida, stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL, start_new_session=True,
            )
        limite = time.monotonic() + espera
        while time.monotonic() < limite:
            if self.proceso.poll() is not None:
                raise RuntimeError(f"JupyterLab terminó al arrancar (código {self.proceso.returncode}):\n{self.cola()}")
            try:
                with urllib.request.urlopen(f"{self.url}/api/status?token={self.token}", timeout=2) as r:
                    if r.status == 200:
                        return
            except (urllib.error.URLError, OSError):
                pass
            time.sleep(0.3)
        self.parar()
        raise RuntimeError(f"JupyterLab no respondió en {espera:.0f} s:\n{self.cola()}")

    def cola(self, caracteres: int = 4000) -> str:
        try:
            return self.registro.read_text(encoding="utf-8", errors="replace")[-caracteres:]
        except OSError:
            return ""

    def parar(self) -> None:
        """Apaga el servidor (y sus kernels): SIGTERM al grupo, SIGKILL si no basta."""
        if self.proceso is None or self.proceso.poll() is not None:
            return
        try:
            os.killpg(self.proceso.pid, signal.SIGTERM)
            self.proceso.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(self.proceso.pid, signal.SIGKILL)
            self.proceso.wait(timeout=5)
        except ProcessLookupError:
            pass
        try:  # kernels huérfanos del mismo grupo
            os.killpg(self.proceso.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

    def api(self, ruta: str, metodo: str = "GET"):
        """Llama a la API REST del servidor (p. ej. ``api("sessions")``); devuelve el JSON o None."""
        peticion = urllib.request.Request(
            f"{self.url}/api/{ruta}", method=metodo, headers={"Authorization": f"token {self.token}"})
        with urllib.request.urlopen(peticion, timeout=10) as r:
            cuerpo = r.read().decode("utf-8")
        return json.loads(cuerpo) if cuerpo else None

    def cerrar_sesiones(self) -> None:
        """Apaga los kernels abiertos (cada prueba deja libre la CPU para las siguientes)."""
        try:
            for sesion in self.api("sessions"):
                self.api(f"sessions/{sesion['id']}", metodo="DELETE")
        except (urllib.error.URLError, OSError):
            pass

    def url_notebook(self, nombre: str) -> str:
        return f"{self.url}/lab/tree/{nombre}?token={self.token}"


@fixture_lenta(scope="session")  # JupyterLab
def servidor_jupyter(tmp_path_factory, falta):
    """Un JupyterLab real en 127.0.0.1 (puerto libre, token) con una copia de notebooks/."""
    try:
        import jupyterlab  # noqa: F401
    except ImportError:
        falta("falta JupyterLab: instala los requisitos con `.venv/bin/pip install -r requirements.txt`")
    servidor = ServidorJupyter(tmp_path_factory.mktemp("jupyterlab"))
    servidor.arrancar()
    yield servidor
    servidor.parar()


# ---------------------------------------------------------------------------
# Chromium con Playwright
# ---------------------------------------------------------------------------

@pytest.fixture(scope="session")
def navegador(chromium):
    """El Chromium de la sesión (fixture ``chromium`` de ``tests/conftest.py``): uno para todas
    las pruebas con navegador del proceso, también el sitio y las páginas exportadas."""
    return chromium


def recortar_notebook(origen: Path, destino: Path, fragmentos: Sequence[str]) -> None:
    """Escribe en ``destino`` una copia de ``origen`` con solo algunas celdas de código.

    Cada fragmento debe aparecer en exactamente una celda de código; las elegidas conservan el
    orden del notebook. Si la lección cambia y un fragmento ya no se encuentra (o se repite),
    la prueba falla diciendo cuál: hay que actualizar su lista de celdas.
    """
    datos = json.loads(origen.read_text(encoding="utf-8"))
    codigo = [c for c in datos["cells"] if c.get("cell_type") == "code"]
    elegidas = set()
    for fragmento in fragmentos:
        con = [i for i, c in enumerate(codigo) if fragmento in "".join(c.get("source", ""))]
        if len(con) != 1:
            pytest.fail(f"{origen.name}: {len(con)} celdas de código contienen {fragmento!r}; la prueba "
                        "necesita exactamente una. Actualiza la lista de celdas de la prueba.", pytrace=False)
        elegidas.add(con[0])
    datos["cells"] = [codigo[i] for i in sorted(elegidas)]
    destino.write_text(json.dumps(datos, ensure_ascii=False, indent=1), encoding="utf-8")


class Lab:
    """Lo que hace una persona en JupyterLab: abrir un notebook, ejecutarlo todo, mirar."""

    def __init__(self, servidor: ServidorJupyter, navegador, carpeta: Path, capsys):
        self.servidor = servidor
        self.navegador = navegador
        self.carpeta = carpeta
        self.capsys = capsys
        self.contexto = navegador.new_context(viewport={"width": 1400, "height": 1000}, locale="es-ES")
        self.contexto.set_default_timeout(30_000)
        self.pagina = None
        self.errores_js: list[str] = []

    def recortar(self, nombre: str, fragmentos: Sequence[str]) -> str:
        """Una copia de ``nombre`` con solo las celdas que contienen ``fragmentos``; devuelve su nombre."""
        origen = self.servidor.notebooks / nombre
        if not origen.exists():
            pytest.fail(f"No existe notebooks/{nombre}: esta prueba abre ese notebook.", pytrace=False)
        recorte = f"{origen.stem}_recorte.ipynb"
        recortar_notebook(origen, self.servidor.notebooks / recorte, fragmentos)
        return recorte

    def abrir(self, nombre: str):
        """Abre ``nombre`` y espera a que su kernel esté listo."""
        if not (self.servidor.notebooks / nombre).exists():
            pytest.fail(f"No existe notebooks/{nombre}: esta prueba abre ese notebook.", pytrace=False)
        inicio = time.monotonic()
        pagina = self.contexto.new_page()
        pagina.on("pageerror", lambda e: self.errores_js.append(str(e)))
        pagina.goto(self.servidor.url_notebook(nombre))
        pagina.locator(".jp-NotebookPanel .jp-Notebook").first.wait_for(state="visible", timeout=60_000)
        self.pagina = pagina
        self._esperar_kernel(nombre)
        self._tiempo(f"abrir {nombre} y arrancar su kernel", inicio)
        return pagina

    def _tiempo(self, que: str, inicio: float) -> None:
        with self.capsys.disabled():
            print(f"\n[tiempo] {que}: {time.monotonic() - inicio:.1f} s")

    def _esperar_kernel(self, nombre: str, espera_s: float = 90.0) -> None:
        """Espera a que el servidor tenga un kernel libre para ``nombre``.

        Si JupyterLab pregunta qué kernel usar, acepta el que propone (Python 3), como haría
        una persona.
        """
        dialogo = self.pagina.locator(".jp-Dialog .jp-mod-accept")
        limite = time.monotonic() + espera_s
        while time.monotonic() < limite:
            if dialogo.count() and dialogo.first.is_visible():
                dialogo.first.click()
            for sesion in self.servidor.api("sessions"):
                if sesion.get("path", "").endswith(nombre) and sesion.get("kernel", {}).get("execution_state") == "idle":
                    self.pagina.locator(".jp-Notebook-ExecutionIndicator[data-status='idle']").first.wait_for(
                        state="attached"
                    )
                    return
            time.sleep(0.3)
        pytest.fail(f"El kernel de {nombre} no quedó listo en {espera_s:.0f} s:\n{self.servidor.cola()}", pytrace=False)

    def ejecutar_todo(self, espera_s: float = 120.0) -> None:
        """Menú Run › Run All Cells, y espera a que el kernel termine la última celda."""
        p = self.pagina
        inicio = time.monotonic()
        p.locator(".lm-MenuBar-itemLabel", has_text=re.compile(r"^Run$")).click()
        p.locator(".lm-Menu-itemLabel", has_text=re.compile(r"^Run All Cells$")).click()
        # Terminado: ninguna celda en cola ([*]) y la primera ya tiene número; si una celda
        # falla, JupyterLab cancela las siguientes (vuelven a [ ]) y se ve abajo.
        try:
            self._esperar_fin(espera_s)
        except Exception:
            prompts = p.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-CodeCell .jp-InputArea-prompt").all_text_contents()
            pytest.fail(f"Las celdas no terminaron en {espera_s:.0f} s. Indicadores: {prompts}", pytrace=False)
        self._tiempo("ejecutar todas las celdas", inicio)
        self._comprobar_todas_ejecutadas()

    def _esperar_fin(self, espera_s: float) -> None:
        p = self.pagina
        p.wait_for_function(
            """() => {
                const prompts = [...document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-CodeCell .jp-InputArea-prompt')]
                    .map(e => e.textContent.trim());
                if (!prompts.length || !/^\\[\\d+\\]:$/.test(prompts[0])) return false;
                return !prompts.some(t => t.includes('*'));
            }""",
            timeout=espera_s * 1000,
            polling=250,
        )

    def _comprobar_todas_ejecutadas(self) -> None:
        p = self.pagina
        prompts = p.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-CodeCell .jp-InputArea-prompt").all_text_contents()
        sin_ejecutar = [i for i, t in enumerate(prompts) if not re.fullmatch(r"\[\d+\]:", t.strip())]
        if sin_ejecutar:
            errores = p.locator('.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]')
            texto = "\n---\n".join(errores.all_inner_texts())[-3000:]
            pytest.fail(
                f"No se ejecutaron todas las celdas (sin número: {sin_ejecutar}). Salida de error:\n{texto}",
                pytrace=False,
            )

    def comprobar_copia_fija_oculta(self, clase_estatica: str) -> None:
        """La copia fija para las páginas exportadas está en la página, pero oculta con su salida
        entera: en JupyterLab el widget se ve una sola vez y no deja un hueco debajo."""
        from playwright.sync_api import expect

        from curso_gpu.interactivo.widgets import _CLASE_COPIA_FIJA

        copia = self.pagina.locator(f".{_CLASE_COPIA_FIJA}")
        expect(copia).to_have_count(1)
        assert copia.filter(visible=True).count() == 0
        assert self.pagina.locator(f".{clase_estatica}").filter(visible=True).count() == 0
        salida = self.pagina.locator(".jp-OutputArea-child").filter(has=copia)
        assert salida.evaluate_all("es => es.map(e => getComputedStyle(e).display)") == ["none"]

    def captura(self, nombre: str, elemento=None) -> Path:
        """Guarda una captura PNG en la carpeta temporal de la prueba y dice dónde."""
        ruta = self.carpeta / nombre
        if elemento is not None:
            elemento.scroll_into_view_if_needed()
        self.pagina.screenshot(path=str(ruta))
        with self.capsys.disabled():
            print(f"\n[captura] {ruta}")
        return ruta

    def cerrar(self) -> None:
        self.contexto.close()
        self.servidor.cerrar_sesiones()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Guarda el resultado de cada fase en el item, para la captura en caso de fallo."""
    resultado = yield
    informe = resultado.get_result()
    setattr(item, f"informe_{informe.when}", informe)


@pytest.fixture
def lab(navegador, servidor_jupyter, tmp_path, capsys, request):  # sin Chromium, ni se arranca JupyterLab
    """Una pestaña de JupyterLab para la prueba; capturas en su carpeta temporal.

    Si la prueba falla, guarda además ``fallo.png``: lo que se veía en ese momento.
    """
    sesion = Lab(servidor_jupyter, navegador, tmp_path, capsys)
    yield sesion
    informe = getattr(request.node, "informe_call", None)
    if informe is not None and informe.failed and sesion.pagina is not None:
        try:
            sesion.captura("fallo.png")
        except Exception:
            pass
    sesion.cerrar()
