"""La cobertura de líneas de una lección, medida dentro de su kernel de Jupyter.

``ejecucion_compartida`` arranca el kernel con ``cobertura_kernel.iniciar()`` cuando la variable
``CURSO_GPU_COBERTURA`` dice dónde guardar. coverage.py (su trazador en C) mide solo el código de
las celdas (ipykernel las compila como archivos de ``<tmp>/ipykernel_<pid>/``); tras cada celda se
guarda, de forma atómica, un JSON con el texto de cada celda ejecutada y sus líneas ejecutadas.
No deja ningún nombre en el espacio de la lección.
"""

from __future__ import annotations

import json
import linecache
import os
import tempfile

VARIABLE = "CURSO_GPU_COBERTURA"


def iniciar() -> None:
    destino = os.environ.get(VARIABLE)
    if not destino:
        return
    import coverage
    from IPython import get_ipython

    carpeta = os.path.join(tempfile.gettempdir(), f"ipykernel_{os.getpid()}")
    medidor = coverage.Coverage(data_file=None, include=[os.path.join(carpeta, "*")], config_file=False)
    # sin avisos en stderr (una lección no escribe ahí): el código de las celdas no es un archivo de verdad
    medidor.set_option("run:disable_warnings", ["no-data-collected", "module-not-measured", "couldnt-parse",
                                                "no-ctracer", "module-not-imported"])
    medidor.start()

    def guardar(*_args) -> None:
        medidor.stop()
        try:
            datos = medidor.get_data()
            celdas = []
            for archivo in datos.measured_files():
                lineas = linecache.cache.get(archivo)
                if lineas:
                    celdas.append({"fuente": "".join(lineas[2]), "ejecutadas": sorted(datos.lines(archivo) or ())})
            temporal = f"{destino}.{os.getpid()}.tmp"
            with open(temporal, "w", encoding="utf-8") as archivo_json:
                json.dump({"celdas": celdas}, archivo_json)
            os.replace(temporal, destino)
        finally:
            medidor.start()

    get_ipython().events.register("post_run_cell", guardar)
