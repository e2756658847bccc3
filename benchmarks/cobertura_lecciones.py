"""¿Qué líneas de cada lección no se ejecutan nunca? La cobertura de sus dos ejecuciones.

Ejecuta cada lección dos veces, como la orden de pruebas del README: en la CPU y en la T4 simulada
(``CURSO_GPU_SIMULAR=T4``), con el kernel anotando las líneas que ejecuta de cada celda
(``tests/cobertura_kernel.py``). Por lección imprime cuántas líneas de código ejecutó al menos una de
las dos, cuántas llevan la marca ``# solo se ejecuta <dónde o por qué>`` y cuáles no ejecutó ninguna.

Meta (``tests/cobertura.py``): ≥ 98 % de las líneas ejecutadas; las marcadas, menos del 2 %.
Sale con 1 si alguna lección no la cumple. La prueba ``tests/test_cobertura_lecciones.py`` mira lo
mismo con las ejecuciones de la orden del README.

    .venv/bin/python benchmarks/cobertura_lecciones.py           # todas
    .venv/bin/python benchmarks/cobertura_lecciones.py 03 11     # solo esas
    .venv/bin/python benchmarks/cobertura_lecciones.py --carpeta /tmp/cob   # guarda (y reutiliza) las ejecuciones
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

RAIZ = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(RAIZ / "tests"))

from cobertura import cobertura_de, leer_registros  # noqa: E402
from ejecucion_compartida import Ejecutadas, LeccionFallida, ruta_de_leccion  # noqa: E402


def main(argumentos: list[str] | None = None) -> int:
    lector = argparse.ArgumentParser(description="Cobertura de líneas de las lecciones (CPU + T4 simulada).")
    lector.add_argument("lecciones", nargs="*", help="números de lección (por defecto, todas)")
    lector.add_argument("--carpeta", help="dónde guardar las ejecuciones (por defecto, una temporal)")
    opciones = lector.parse_args(argumentos)
    numeros = opciones.lecciones or sorted(r.name[:2] for r in (RAIZ / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    carpeta = Path(opciones.carpeta or tempfile.mkdtemp(prefix="curso_gpu_cobertura_"))
    ejecutadas = Ejecutadas(carpeta, guardar_en_cache_del_sitio=False)
    todas_cumplen = True
    for numero in numeros:
        registros = []
        for simulada in (False, True):
            donde = "T4 simulada" if simulada else "CPU"
            inicio = time.monotonic()
            try:
                registros.append(ejecutadas.cobertura(numero, simulada))
                print(f"{numero} en la {donde}: {time.monotonic() - inicio:.1f} s", flush=True)
            except LeccionFallida as error:
                print(f"{numero} en la {donde}: FALLÓ\n{error}", flush=True)
                todas_cumplen = False
        resultado = cobertura_de(ruta_de_leccion(numero), leer_registros(registros))
        print(resultado, flush=True)
        todas_cumplen &= resultado.cumple
    print(f"Ejecuciones en {carpeta}")
    return 0 if todas_cumplen else 1


if __name__ == "__main__":
    sys.exit(main())
