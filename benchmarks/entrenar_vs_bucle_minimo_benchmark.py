"""¿Cuánto cuesta usar ``curso_gpu.entrenamiento.entrenar`` en vez de un bucle mínimo de PyTorch?

Mismo modelo (CNNPequena), mismos datos (120/60 por clase), mismas 120 épocas de Adam con
todo el conjunto. ``entrenar`` (silencioso) además mide las métricas en 13 puntos; el bucle
mínimo solo hace forward, pérdida, backward y step. Se alternan las dos versiones y se
comparan medianas. Objetivo: razón ≤ 1.10 en CPU.

    .venv/bin/python benchmarks/entrenar_vs_bucle_minimo_benchmark.py [--repeticiones 7] [--dispositivo auto]
"""

from __future__ import annotations

import argparse
import statistics
import time

import torch
from torch import nn

from curso_gpu.entrenamiento import generar_dataset
from curso_gpu.dispositivo import elegir_dispositivo, sincronizar
from curso_gpu.entrenamiento import entrenar
from curso_gpu.entrenamiento import CNNPequena

OBJETIVO = 1.10


def bucle_minimo(modelo, X, y, epocas: int, lr: float, dispositivo) -> None:
    """Lo mínimo: modelo y datos al dispositivo, y forward/backward/step en cada época."""
    modelo.to(dispositivo)
    X, y = X.to(dispositivo), y.to(dispositivo)
    criterio = nn.CrossEntropyLoss()
    optimizador = torch.optim.Adam(modelo.parameters(), lr=lr)
    for _ in range(epocas):
        perdida = criterio(modelo(X), y)
        optimizador.zero_grad(set_to_none=True)
        perdida.backward()
        optimizador.step()
    sincronizar(dispositivo)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeticiones", type=int, default=7)
    parser.add_argument("--epocas", type=int, default=120)
    parser.add_argument("--dispositivo", default="auto")
    args = parser.parse_args()
    dispositivo = elegir_dispositivo(args.dispositivo)

    entrenamiento = generar_dataset(120, semilla=1)
    validacion = generar_dataset(60, semilla=2)
    tiempos = {"bucle mínimo": [], "entrenar": []}

    def medir(nombre: str) -> None:
        torch.manual_seed(0)
        modelo = CNNPequena()
        inicio = time.perf_counter()
        if nombre == "entrenar":
            entrenar(modelo, entrenamiento, validacion, dispositivo, epocas=args.epocas, silencioso=True)
        else:
            bucle_minimo(modelo, *entrenamiento, args.epocas, 0.01, dispositivo)
        tiempos[nombre].append(time.perf_counter() - inicio)

    medir("bucle mínimo")  # calentamiento
    medir("entrenar")
    for lista in tiempos.values():
        lista.clear()
    for _ in range(args.repeticiones):
        medir("bucle mínimo")
        medir("entrenar")

    print(f"Dispositivo: {dispositivo} · hilos de CPU: {torch.get_num_threads()} · "
          f"{args.epocas} épocas · {args.repeticiones} repeticiones alternadas")
    for nombre, lista in tiempos.items():
        print(f"  {nombre:<13} mediana {statistics.median(lista):.3f} s  (mín. {min(lista):.3f}, máx. {max(lista):.3f})")
    razon = statistics.median(tiempos["entrenar"]) / statistics.median(tiempos["bucle mínimo"])
    veredicto = "cumple" if razon <= OBJETIVO else "NO cumple"
    print(f"Razón entrenar / bucle mínimo: {razon:.3f} ({veredicto} el objetivo ≤ {OBJETIVO:.2f})")


if __name__ == "__main__":
    main()
