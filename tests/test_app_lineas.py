"""La aplicación de escritorio de la lección 05 (``python -m curso_gpu.app_lineas``).

Las pruebas de ventana corren en una pantalla virtual (Xvfb) que arrancan ellas mismas: la
ventana de verdad, manejada con eventos de ratón de verdad (xdotool; si falta, eventos de Tk).
Sin Tk o sin Xvfb se saltan con el motivo; en CI (``CI=true``) faltar es un error.
"""

from __future__ import annotations

import io
import os
import re
import select
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch
from lentas import fixture_lenta

from curso_gpu import app_lineas
from curso_gpu.app_lineas import TAMANO_CELDA, TITULO, AplicacionLineas, elegir_dispositivo_app
from curso_gpu.dispositivo import VARIABLE_ENTORNO
from curso_gpu.entrenamiento import LADO, NOMBRES_CLASES
from curso_gpu.interactivo.widgets import _AVISO_VACIA

RAIZ = Path(__file__).resolve().parents[1]
COLUMNA = 3  # la vertical que dibujamos


def entorno_sin_pantalla() -> dict:
    entorno = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    entorno.pop(VARIABLE_ENTORNO, None)
    return entorno


# ---------------------------------------------------------------------------
# Pantalla virtual y ratón
# ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def tk(falta):
    try:
        import tkinter
    except ImportError:
        falta("falta Tkinter: en Debian/Ubuntu `sudo apt-get install python3-tk`")
    return tkinter


@fixture_lenta(scope="module")  # Xvfb, la ventana Tk y sus entrenamientos
def pantalla(tk, falta):
    """Una pantalla X virtual (Xvfb) en un número libre; devuelve p. ej. ':3'."""
    if not sys.platform.startswith("linux"):
        pytest.skip("la pantalla virtual Xvfb es de Linux; en tu escritorio abre la app a mano")
    xvfb = shutil.which("Xvfb")
    if xvfb is None:
        falta("falta Xvfb (pantalla virtual): en Debian/Ubuntu `sudo apt-get install xvfb`")
    lectura, escritura = os.pipe()
    proceso = subprocess.Popen(
        [xvfb, "-displayfd", str(escritura), "-screen", "0", "1024x900x24", "-nolisten", "tcp", "-noreset"],
        pass_fds=(escritura,), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )
    os.close(escritura)
    numero = b""
    limite = time.monotonic() + 20
    while not numero.endswith(b"\n") and time.monotonic() < limite:
        listo, _, _ = select.select([lectura], [], [], 0.5)
        if listo:
            trozo = os.read(lectura, 16)
            if not trozo:
                break
            numero += trozo
    os.close(lectura)
    if not numero.strip().isdigit():
        proceso.kill()
        pytest.fail(f"Xvfb no arrancó: {proceso.stderr.read().decode(errors='replace')[-1000:]}", pytrace=False)
    yield f":{numero.decode().strip()}"
    proceso.terminate()
    proceso.wait(timeout=10)


class Raton:
    """Clics y arrastres sobre la ventana: con xdotool (eventos X de verdad) o, si falta, con Tk."""

    def __init__(self, ventana, pantalla: str, en_ci: bool):
        self.ventana = ventana
        self.pantalla = pantalla
        self.xdotool = shutil.which("xdotool")
        if self.xdotool is None and en_ci:
            pytest.fail("falta xdotool (en CI=true esto es un error): `apt-get install xdotool`", pytrace=False)
        self.modo = "xdotool" if self.xdotool else "eventos de Tk"

    def _xdotool(self, *ordenes: str) -> None:
        entorno = dict(os.environ, DISPLAY=self.pantalla)
        proceso = subprocess.Popen([self.xdotool, *ordenes], env=entorno, stderr=subprocess.PIPE)
        while proceso.poll() is None:  # la ventana sigue atendiendo mientras xdotool mueve el ratón
            self.ventana.update()
            time.sleep(0.005)
        assert proceso.returncode == 0, proceso.stderr.read().decode(errors="replace")
        for _ in range(20):
            self.ventana.update()
            time.sleep(0.01)

    def arrastrar(self, widget, puntos: list[tuple[int, int]]) -> None:
        """Botón izquierdo pulsado en el primer punto, movido por los demás, soltado en el último."""
        if self.xdotool:
            x0, y0 = widget.winfo_rootx(), widget.winfo_rooty()
            ordenes = ["mousemove", str(x0 + puntos[0][0]), str(y0 + puntos[0][1]), "sleep", "0.05", "mousedown", "1"]
            for x, y in puntos[1:]:
                ordenes += ["sleep", "0.03", "mousemove", str(x0 + x), str(y0 + y)]
            ordenes += ["sleep", "0.05", "mouseup", "1"]
            self._xdotool(*ordenes)
            return
        widget.event_generate("<ButtonPress-1>", x=puntos[0][0], y=puntos[0][1], warp=True)
        for x, y in puntos[1:]:
            widget.event_generate("<B1-Motion>", x=x, y=y, state=0x100)
        widget.event_generate("<ButtonRelease-1>", x=puntos[-1][0], y=puntos[-1][1])
        self.ventana.update()

    def clic(self, widget) -> None:
        if self.xdotool:
            x = widget.winfo_rootx() + widget.winfo_width() // 2
            y = widget.winfo_rooty() + widget.winfo_height() // 2
            self._xdotool("mousemove", str(x), str(y), "sleep", "0.05", "click", "1")
            return
        widget.event_generate("<Enter>")
        widget.event_generate("<ButtonPress-1>", x=5, y=5)
        widget.event_generate("<ButtonRelease-1>", x=5, y=5)
        self.ventana.update()


def captura(ventana, pantalla: str, ruta: Path, capsys) -> Path:
    """PNG de la ventana (Pillow lee la pantalla X) y dice dónde quedó."""
    from PIL import ImageGrab

    ventana.update()
    x, y = ventana.winfo_rootx(), ventana.winfo_rooty()
    caja = (x, y, x + ventana.winfo_width(), y + ventana.winfo_height())
    ImageGrab.grab(bbox=caja, xdisplay=pantalla).save(ruta)
    with capsys.disabled():
        print(f"\n[captura] {ruta}")
    return ruta


def titulos_de_ventanas(pantalla: str) -> set[str]:
    """Los títulos (WM_NAME) de las ventanas que se ven en la pantalla X ``pantalla``.

    Se leen con libX11 por ctypes: es la biblioteca sobre la que corre Tk, así que está donde
    haya Tk y pantalla, sin depender de xdotool ni de xwininfo.
    """
    import ctypes
    import ctypes.util

    ruta = ctypes.util.find_library("X11")
    assert ruta is not None, "no encuentro libX11, y Tk la necesita para abrir ventanas"
    x11 = ctypes.CDLL(ruta)
    ventana = ctypes.c_ulong
    x11.XOpenDisplay.restype = ctypes.c_void_p
    x11.XOpenDisplay.argtypes = [ctypes.c_char_p]
    x11.XDefaultRootWindow.restype = ventana
    x11.XDefaultRootWindow.argtypes = [ctypes.c_void_p]
    x11.XQueryTree.argtypes = [ctypes.c_void_p, ventana, ctypes.POINTER(ventana), ctypes.POINTER(ventana),
                               ctypes.POINTER(ctypes.POINTER(ventana)), ctypes.POINTER(ctypes.c_uint)]

    class PropiedadDeTexto(ctypes.Structure):  # XTextProperty
        _fields_ = [("value", ctypes.c_void_p), ("encoding", ctypes.c_ulong), ("format", ctypes.c_int),
                    ("nitems", ctypes.c_ulong)]

    class Atributos(ctypes.Structure):  # XWindowAttributes; solo se lee map_state
        _fields_ = [("x", ctypes.c_int), ("y", ctypes.c_int), ("width", ctypes.c_int), ("height", ctypes.c_int),
                    ("border_width", ctypes.c_int), ("depth", ctypes.c_int), ("visual", ctypes.c_void_p),
                    ("root", ventana), ("class_", ctypes.c_int), ("bit_gravity", ctypes.c_int),
                    ("win_gravity", ctypes.c_int), ("backing_store", ctypes.c_int),
                    ("backing_planes", ctypes.c_ulong), ("backing_pixel", ctypes.c_ulong),
                    ("save_under", ctypes.c_int), ("colormap", ctypes.c_ulong), ("map_installed", ctypes.c_int),
                    ("map_state", ctypes.c_int), ("all_event_masks", ctypes.c_long),
                    ("your_event_mask", ctypes.c_long), ("do_not_propagate_mask", ctypes.c_long),
                    ("override_redirect", ctypes.c_int), ("screen", ctypes.c_void_p)]

    x11.XGetWindowAttributes.argtypes = [ctypes.c_void_p, ventana, ctypes.POINTER(Atributos)]
    x11.XGetWMName.argtypes = [ctypes.c_void_p, ventana, ctypes.POINTER(PropiedadDeTexto)]
    x11.XFree.argtypes = [ctypes.c_void_p]
    x11.XCloseDisplay.argtypes = [ctypes.c_void_p]

    conexion = x11.XOpenDisplay(pantalla.encode())
    assert conexion, f"no puedo abrir la pantalla {pantalla}"
    titulos: set[str] = set()
    try:
        pendientes = [x11.XDefaultRootWindow(conexion)]
        while pendientes:
            actual = pendientes.pop()
            propiedad, atributos = PropiedadDeTexto(), Atributos()
            visible = (x11.XGetWindowAttributes(conexion, actual, ctypes.byref(atributos))
                       and atributos.map_state == 2)  # IsViewable: en pantalla, no retirada ni sin mostrar
            if visible and x11.XGetWMName(conexion, actual, ctypes.byref(propiedad)) and propiedad.value:
                crudo = ctypes.string_at(propiedad.value, propiedad.nitems)
                x11.XFree(propiedad.value)
                for codificacion in ("utf-8", "latin-1"):  # UTF8_STRING o STRING (Latin-1), según quién la puso
                    try:
                        titulos.add(crudo.decode(codificacion))
                    except UnicodeDecodeError:
                        pass
            raiz, padre, hijos, cuantos = ventana(), ventana(), ctypes.POINTER(ventana)(), ctypes.c_uint()
            if x11.XQueryTree(conexion, actual, ctypes.byref(raiz), ctypes.byref(padre), ctypes.byref(hijos),
                              ctypes.byref(cuantos)):
                pendientes += [hijos[i] for i in range(cuantos.value)]
                if hijos:
                    x11.XFree(hijos)
    finally:
        x11.XCloseDisplay(conexion)
    return titulos


def probabilidades(texto: str) -> dict[str, float]:
    return {n: float(p) for n, p in re.findall(r"^(\w+) = (\d+\.\d+)$", texto, flags=re.MULTILINE)}


# ---------------------------------------------------------------------------
# La ventana de verdad
# ---------------------------------------------------------------------------

@pytest.mark.e2e
def test_entrena_sin_congelarse_y_una_vertical_dibujada_con_el_raton_se_predice_vertical(
        tk, pantalla, falta, tmp_path, capsys):
    ventana = tk.Tk(screenName=pantalla)
    try:
        salida = io.StringIO()
        app = AplicacionLineas(ventana, torch.device("cpu"), epocas=120, semilla=0, salida=salida)
        ventana.update()
        assert str(app.boton_predecir["state"]) == "disabled"
        assert str(app.boton_limpiar["state"]) == "disabled"

        # Mientras entrena, la ventana atiende eventos y la barra y las métricas avanzan.
        app.iniciar()
        barras, metricas, vueltas = set(), set(), 0
        limite = time.monotonic() + 120
        while not app.terminado and time.monotonic() < limite:
            ventana.update()
            vueltas += 1
            barras.add(float(app.barra["value"]))
            metricas.add(app.etiqueta_metricas["text"])
            time.sleep(0.005)
        assert app.terminado, "el entrenamiento no terminó en 120 s"
        assert app.error is None, f"el entrenamiento falló: {app.error}"
        assert any(0 < v < 120 for v in barras), f"la barra no mostró avances intermedios: {sorted(barras)}"
        assert len([m for m in metricas if m.startswith("Época:")]) >= 2, "las métricas no se actualizaron en vivo"
        assert float(app.barra["value"]) == 120
        assert app.etiqueta_metricas["text"].startswith("FINAL")
        assert str(app.boton_predecir["state"]) == "normal"
        assert "Entrenamiento terminado en cpu" in app.etiqueta_estado["text"]

        # Dibujar una vertical arrastrando el ratón por la columna 3, de arriba abajo.
        raton = Raton(ventana, pantalla, falta.en_ci())
        centro = TAMANO_CELDA // 2
        puntos = [(COLUMNA * TAMANO_CELDA + centro, fila * TAMANO_CELDA + centro) for fila in range(LADO)]
        raton.arrastrar(app.canvas, puntos)
        esperadas = [[1 if c == COLUMNA else 0 for c in range(LADO)] for _ in range(LADO)]
        assert app.pizarra.celdas == esperadas, f"celdas pintadas ({raton.modo}): {app.pizarra.celdas}"
        negras = [app.canvas.itemcget(app.rectangulos[f][COLUMNA], "fill") for f in range(LADO)]
        assert negras == ["black"] * LADO

        raton.clic(app.boton_predecir)
        texto = app.etiqueta_resultado["text"]
        assert texto.startswith("Predicción: vertical"), texto
        p = probabilidades(texto)
        assert list(p) == list(NOMBRES_CLASES), texto
        assert abs(sum(p.values()) - 1) < 0.02, texto
        assert max(p, key=p.get) == "vertical"
        assert "Predicción: vertical" in salida.getvalue()
        ruta = captura(ventana, pantalla, tmp_path / "app_lineas.png", capsys)
        assert ruta.stat().st_size > 1000

        # Limpiar deja la cuadrícula vacía; «Predecir» vacía avisa en la ventana.
        raton.clic(app.boton_limpiar)
        assert app.pizarra.vacia
        assert {app.canvas.itemcget(r, "fill") for fila in app.rectangulos for r in fila} == {"white"}
        assert app.etiqueta_resultado["text"] == "Cuadrícula limpia"
        raton.clic(app.boton_predecir)
        assert _AVISO_VACIA in app.etiqueta_resultado["text"]
        captura(ventana, pantalla, tmp_path / "app_lineas_aviso.png", capsys)
    finally:
        ventana.destroy()


@pytest.mark.e2e
def test_la_orden_abre_la_ventana_y_entrena(pantalla):
    """``python -m curso_gpu.app_lineas`` de verdad: la ventana aparece y el entrenamiento termina."""
    entorno = dict(entorno_sin_pantalla(), DISPLAY=pantalla)
    proceso = subprocess.Popen(
        [sys.executable, "-m", "curso_gpu.app_lineas", "--epocas", "20", "--dispositivo", "cpu", "--semilla", "1"],
        cwd=RAIZ, env=entorno, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        linea = ""
        limite = time.monotonic() + 90
        while time.monotonic() < limite and proceso.poll() is None:
            listo, _, _ = select.select([proceso.stdout], [], [], 0.5)
            if listo:
                linea = proceso.stdout.readline()
                if linea.startswith("Entrenamiento terminado"):
                    break
        assert linea.startswith("Entrenamiento terminado en cpu: 20 épocas"), (
            f"salida: {linea!r}; errores: {proceso.stderr.read() if proceso.poll() is not None else ''}")
        titulos = titulos_de_ventanas(pantalla)
        assert TITULO in titulos, f"no hay ninguna ventana con el título de la aplicación; hay: {sorted(titulos)}"
        assert proceso.poll() is None, "la aplicación se cerró sola"
    finally:
        proceso.terminate()
        proceso.wait(timeout=10)


# ---------------------------------------------------------------------------
# Sin pantalla o sin Tk: un mensaje claro y un código de salida distinto de 0
# ---------------------------------------------------------------------------

def test_sin_pantalla_explica_en_espanol_y_sale_con_error(tk):
    if not sys.platform.startswith("linux"):
        pytest.skip("sin DISPLAY solo falla en Linux; en Windows y macOS Tk no lo necesita")
    resultado = subprocess.run([sys.executable, "-m", "curso_gpu.app_lineas"], cwd=RAIZ, env=entorno_sin_pantalla(),
                               capture_output=True, text=True, timeout=60)
    assert resultado.returncode != 0
    assert "No se puede abrir la ventana: no hay pantalla" in resultado.stderr
    assert "xvfb-run python -m curso_gpu.app_lineas" in resultado.stderr
    assert "Traceback" not in resultado.stderr


# Los dos errores siguientes salen antes de abrir ninguna ventana: se prueban llamando a ``main()``
# en este mismo proceso (un subproceso más solo añadiría importar torch otra vez).

def _sin_pantalla(monkeypatch) -> None:
    for variable in ("DISPLAY", "WAYLAND_DISPLAY", VARIABLE_ENTORNO):
        monkeypatch.delenv(variable, raising=False)


def test_sin_tkinter_dice_como_instalarlo_y_sale_con_error(monkeypatch, capsys):
    # Una falta honesta: `import tkinter` falla igual que en un Python sin Tk. El módulo se
    # importa de nuevo así, sin Tk: importarlo tampoco debe necesitarlo.
    import importlib

    import curso_gpu

    _sin_pantalla(monkeypatch)
    monkeypatch.setitem(sys.modules, "tkinter", None)
    monkeypatch.delitem(sys.modules, "curso_gpu.app_lineas")
    monkeypatch.setattr(curso_gpu, "app_lineas", app_lineas)  # vuelve a ser el de antes al terminar
    sin_tk = importlib.import_module("curso_gpu.app_lineas")
    assert sin_tk is not app_lineas
    assert sin_tk.main([]) == 2
    error = capsys.readouterr().err
    assert "falta Tkinter" in error
    assert "sudo apt-get install python3-tk" in error
    assert "Traceback" not in error


def test_epocas_invalidas_se_explican(monkeypatch, capsys):
    _sin_pantalla(monkeypatch)
    with pytest.raises(SystemExit) as salida:  # un error de argumentos, como los demás (argparse)
        app_lineas.main(["--epocas", "0"])
    assert salida.value.code == 2
    assert "la opción --epocas: debe ser un entero mayor o igual que 1; recibí 0" in capsys.readouterr().err


@pytest.mark.parametrize("argumentos, motivo", [
    (["--epocas", "abc"], "la opción --epocas: no es un número entero: 'abc'"),
    (["--semilla", "1.5"], "la opción --semilla: no es un número entero: '1.5'"),
    (["--epocas"], "la opción --epocas: falta su valor"),
    (["--ventana"], "argumentos que no conozco: --ventana"),
])
def test_los_errores_de_argumentos_salen_en_espanol_como_en_la_orden_principal(argumentos, motivo, capsys):
    with pytest.raises(SystemExit) as salida:
        app_lineas.main(argumentos)
    assert salida.value.code == 2
    error = capsys.readouterr().err
    assert error.startswith("uso: python -m curso_gpu.app_lineas")
    assert motivo in error and "Usa --help para ver las opciones." in error
    assert "invalid" not in error and "argument " not in error and "usage" not in error


def test_la_ayuda_de_la_aplicacion_esta_en_espanol(capsys):
    with pytest.raises(SystemExit) as salida:
        app_lineas.main(["--help"])
    assert salida.value.code == 0
    ayuda = capsys.readouterr().out
    assert "opciones:" in ayuda and "muestra esta ayuda y termina" in ayuda and "épocas" in ayuda


# ---------------------------------------------------------------------------
# La pregunta por la GPU
# ---------------------------------------------------------------------------

class Preguntas:
    """Hace de cuadro «sí/no»: apunta lo que se pregunta y responde lo indicado."""

    def __init__(self, respuesta: bool):
        self.respuesta = respuesta
        self.textos: list[str] = []

    def __call__(self, texto: str) -> bool:
        self.textos.append(texto)
        return self.respuesta


@pytest.fixture
def sin_gpu(monkeypatch):
    monkeypatch.delenv(VARIABLE_ENTORNO, raising=False)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    if getattr(torch.backends, "mps", None) is not None:
        monkeypatch.setattr(torch.backends.mps, "is_available", lambda: False)
    if getattr(torch, "xpu", None) is not None:
        monkeypatch.setattr(torch.xpu, "is_available", lambda: False)
    return monkeypatch


def test_sin_gpu_no_pregunta_y_usa_la_cpu(sin_gpu):
    preguntas = Preguntas(True)
    assert elegir_dispositivo_app("auto", preguntas) == torch.device("cpu")
    assert preguntas.textos == []


def test_con_gpu_pregunta_y_respeta_el_no(sin_gpu):
    sin_gpu.setattr(torch.cuda, "is_available", lambda: True)
    preguntas = Preguntas(False)
    assert elegir_dispositivo_app("auto", preguntas) == torch.device("cpu")
    assert len(preguntas.textos) == 1 and "¿Deseas usar la GPU" in preguntas.textos[0]


def test_con_gpu_y_respuesta_si_entrena_en_la_gpu(sin_gpu):
    sin_gpu.setattr(torch.cuda, "is_available", lambda: True)
    assert elegir_dispositivo_app("auto", Preguntas(True)).type == "cuda"


def test_con_dispositivo_elegido_en_la_orden_no_pregunta(sin_gpu):
    sin_gpu.setattr(torch.cuda, "is_available", lambda: True)
    preguntas = Preguntas(True)
    assert elegir_dispositivo_app("cpu", preguntas) == torch.device("cpu")
    assert preguntas.textos == []
