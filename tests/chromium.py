"""El Chromium del sistema para las pruebas con navegador (tests/e2e y el sitio del curso).

Playwright lo maneja; no descarga ningún navegador. En Debian: ``/usr/bin/chromium``.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
from pathlib import Path

# Lo que este entorno necesita: sin caja de arena (somos root), sin GPU y sin red de fondo
# (la red está cerrada: sin estas opciones Chromium intenta conectarse una y otra vez).
OPCIONES_CHROMIUM = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
    "--disable-dev-shm-usage",
]
COMO_INSTALAR_CHROMIUM = (
    "instala Chromium: en Debian/Ubuntu `sudo apt-get install chromium` "
    "(o, con el navegador de Playwright, `.venv/bin/playwright install chromium`)"
)


def buscar_chromium() -> str | None:
    """La ruta del Chromium del sistema, o None. ``CURSO_GPU_CHROMIUM`` manda si está puesta."""
    propia = os.environ.get("CURSO_GPU_CHROMIUM")
    if propia:
        return propia if Path(propia).exists() else None
    for nombre in ("/usr/bin/chromium", "chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        ruta = shutil.which(nombre)
        if ruta:
            return ruta
    return None


def comprobar_sin_bucle_asyncio() -> None:
    """Playwright síncrono no arranca en un hilo con un bucle de asyncio en marcha: lo dice claro."""
    import pytest

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return  # lo normal: ningún bucle en marcha en este hilo
    pytest.fail("Hay un bucle de asyncio en marcha en este hilo: Playwright síncrono no puede arrancar "
                "Chromium aquí. Busca qué prueba o fixture lo dejó en marcha.", pytrace=False)


@contextlib.contextmanager
def chromium_sin_pantalla(falta):
    """Chromium sin pantalla manejado por Playwright; al salir, se cierra.

    Usa el Chromium del sistema o, si no hay, el de ``playwright install chromium``. Si falta
    Playwright o Chromium, llama a ``falta`` (la prueba se salta; en CI, falla). ``launch`` crea
    un perfil (user-data-dir) nuevo y vacío en una carpeta temporal cada vez.
    """
    import pytest

    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        falta("falta Playwright para Python: `.venv/bin/pip install playwright`; y " + COMO_INSTALAR_CHROMIUM)
    ejecutable = buscar_chromium()
    comprobar_sin_bucle_asyncio()
    with sync_playwright() as p:
        if ejecutable is None and not Path(p.chromium.executable_path).exists():
            falta("no encuentro Chromium: " + COMO_INSTALAR_CHROMIUM)
        try:
            navegador = p.chromium.launch(executable_path=ejecutable, headless=True, args=OPCIONES_CHROMIUM)
        except Exception as error:  # un Chromium que no arranca no es un Chromium que falta
            pytest.fail(f"Chromium ({ejecutable or 'de Playwright'}) no arrancó: {error}", pytrace=False)
        try:
            yield navegador
        finally:
            navegador.close()
