"""¿Mide bien ``curso_gpu.medicion.cronometrar``? Comparación con ``torch.utils.benchmark``. Lección 03.

Mide las mismas multiplicaciones ``a @ b`` con nuestro ``cronometrar`` y con
``torch.utils.benchmark.Timer(..., num_threads=torch.get_num_threads()).blocked_autorange()``
(el de PyTorch, con todos los hilos, como el nuestro) e imprime las dos medianas y su cociente.
En CPU las dos deben coincidir con un margen del 10 %; si hay GPU, la mide también.

Uso:  python benchmarks/medicion_vs_torch_benchmark.py [--tamanos 256 512 1024] [--tiempo 1.0]
Sale con código 1 si en CPU alguna diferencia supera el 10 %.
"""

from __future__ import annotations

import argparse
import statistics
import sys

import torch
from torch.utils import benchmark

from curso_gpu.dispositivo import elegir_dispositivo
from curso_gpu.medicion import cronometrar

TOLERANCIA = 0.10


def medir(n: int, dispositivo: torch.device, tiempo: float, rondas: int = 3) -> tuple[float, float, int]:
    """(mediana nuestra, mediana de PyTorch, repeticiones nuestras por ronda) para a @ b de n×n.

    Los dos métodos se turnan en ``rondas`` rondas, para que los dos sufran el mismo ruido (otras
    tareas usando la CPU); de cada uno se da la mediana de sus medianas por ronda.
    """
    a = torch.randn(n, n, device=dispositivo)
    b = torch.randn(n, n, device=dispositivo)
    tanteo = cronometrar(lambda: a @ b, dispositivo, repeticiones=3, calentamiento=2)
    por_ronda = tiempo / rondas
    repeticiones = max(10, min(2000, int(por_ronda / max(tanteo.mediana, 1e-7))))
    temporizador = benchmark.Timer(stmt="a @ b", globals={"a": a, "b": b}, num_threads=torch.get_num_threads())
    nuestras, de_torch = [], []
    for _ in range(rondas):
        nuestras.append(cronometrar(lambda: a @ b, dispositivo, repeticiones=repeticiones, calentamiento=3).mediana)
        # El mismo tiempo de medida para los dos (con matrices grandes, 10 muestras duran más).
        de_torch.append(temporizador.blocked_autorange(min_run_time=max(por_ronda, repeticiones * tanteo.mediana)).median)
    return statistics.median(nuestras), statistics.median(de_torch), repeticiones


def main(argv=None) -> int:
    analizador = argparse.ArgumentParser(description="cronometrar frente a torch.utils.benchmark")
    analizador.add_argument("--tamanos", type=int, nargs="+", default=[256, 512, 1024])
    analizador.add_argument("--tiempo", type=float, default=1.5, help="segundos de medida por tamaño y método")
    args = analizador.parse_args(argv)

    dispositivos = [torch.device("cpu")]
    acelerador = elegir_dispositivo("auto")
    if acelerador.type != "cpu":
        dispositivos.append(acelerador)
        args.tamanos = sorted(set(args.tamanos) | {2048, 4096})

    print(f"torch {torch.__version__}, {torch.get_num_threads()} hilos de CPU")
    print(f"{'dispositivo':<12}{'n':>6}{'nuestra (ms)':>15}{'torch (ms)':>13}{'cociente':>10}{'repet.':>8}  veredicto")
    fallos = 0
    for d in dispositivos:
        for n in args.tamanos:
            nuestra, de_torch, repeticiones = medir(n, d, args.tiempo)
            cociente = nuestra / de_torch
            dentro = abs(cociente - 1) <= TOLERANCIA
            if d.type == "cpu" and not dentro:
                fallos += 1
            veredicto = "dentro del 10 %" if dentro else "FUERA del 10 %"
            print(f"{str(d):<12}{n:>6}{nuestra * 1e3:>15.3f}{de_torch * 1e3:>13.3f}{cociente:>10.3f}"
                  f"{repeticiones:>8}  {veredicto}")
    if fallos:
        print(f"{fallos} medidas de CPU difieren más del 10 % (¿otra tarea usando la CPU?).")
    return 1 if fallos else 0


if __name__ == "__main__":
    sys.exit(main())
