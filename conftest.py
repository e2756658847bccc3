"""Configuración común de pytest para las pruebas y los notebooks.

La orden de pruebas del README reparte los archivos entre varios procesos con pytest-xdist
(``-n auto --dist loadfile``). Cada proceso usa entonces un solo hilo de cálculo: si cada uno
abriera tantos hilos como núcleos, competirían por la CPU y todo iría varias veces más lento.
La variable de entorno también llega a los kernels de nbval y a los subprocesos de las pruebas.
"""

import os
import sys

HILOS = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")


def pytest_configure(config):
    if os.environ.get("PYTEST_XDIST_WORKER"):
        for variable in HILOS:
            os.environ.setdefault(variable, "1")
        if "torch" in sys.modules:  # por si un plugin ya lo importó
            sys.modules["torch"].set_num_threads(1)
