"""¿Cuánto cuesta la T4 simulada? Pasos de entrenamiento en la CPU, con y sin simulación.

La T4 simulada (``CURSO_GPU_SIMULAR=T4``) pasa cada llamada a torch por un modo de funciones y
cada operación por un modo de despacho que cuenta la memoria: ese trabajo en Python es lo que
hace más lentas las lecciones simuladas de la orden de pruebas del README. Aquí se mide en la
misma ejecución, alternando: pasos de ``CNNPequena`` (lote 64) con Adam, en la CPU sin simular
y en la «GPU» simulada, y también una mezcla de operaciones sueltas pequeñas (lo peor para la
simulación: poco cálculo por operación). Imprime la mediana de cada una, su dispersión (percentiles
10 y 90) y la razón simulada / sin simular.

    .venv/bin/python benchmarks/simulacion_benchmark.py
    .venv/bin/python benchmarks/simulacion_benchmark.py --repeticiones 30
"""

from __future__ import annotations

import argparse
import statistics
import time

import torch

from curso_gpu.dispositivo import simular_gpu
from curso_gpu.entrenamiento import CNNPequena


def _pasos_cnn(dispositivo: str, pasos: int = 5):
    torch.manual_seed(0)
    modelo = CNNPequena().to(dispositivo)
    optimizador = torch.optim.Adam(modelo.parameters(), lr=1e-3)
    x = torch.randn(64, 1, 8, 8, device=dispositivo)
    y = torch.randint(0, 3, (64,), device=dispositivo)

    def medir() -> float:
        inicio = time.perf_counter()
        for _ in range(pasos):
            perdida = torch.nn.functional.cross_entropy(modelo(x), y)
            optimizador.zero_grad()
            perdida.backward()
            optimizador.step()
        return (time.perf_counter() - inicio) / pasos
    return medir


def _operaciones_sueltas(dispositivo: str, veces: int = 200):
    a = torch.randn(16, 16, device=dispositivo)

    def medir() -> float:
        inicio = time.perf_counter()
        for _ in range(veces):
            b = (a @ a).relu().sum(dim=0) + 1
            b.max().item()
        return (time.perf_counter() - inicio) / veces
    return medir


def _resumen(muestras: list[float]) -> str:
    cuantiles = statistics.quantiles(muestras, n=10)
    return f"{1e3 * statistics.median(muestras):7.3f} ms (p10 {1e3 * cuantiles[0]:.3f} · p90 {1e3 * cuantiles[-1]:.3f})"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeticiones", type=int, default=15)
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    for nombre, preparar in (("un paso de CNNPequena (lote 64, Adam)", _pasos_cnn),
                             ("matmul 16×16 + relu + suma + max (sueltas)", _operaciones_sueltas)):
        sin = preparar("cpu")
        sin()  # calentar
        tiempos = {"sin": [], "con": []}
        for _ in range(args.repeticiones):  # alternadas: la carga de la máquina afecta igual a las dos
            tiempos["sin"].append(sin())
            # Cada vez, una simulación con sus tensores: lo preparado en otra ya no sería de la GPU simulada.
            with simular_gpu("T4"):
                con = preparar("cuda")
                con()  # calentar
                tiempos["con"].append(con())
                con = None  # sus tensores no salen del bloque
        razon = statistics.median(tiempos["con"]) / statistics.median(tiempos["sin"])
        print(f"{nombre}:\n  CPU sin simular: {_resumen(tiempos['sin'])}\n"
              f"  T4 simulada:     {_resumen(tiempos['con'])}\n  razón simulada / sin simular: {razon:.2f}×")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
