"""Lección 06 medida en una sola corrida: cargadores, precisión mixta y coste del perfilador.

1. Muestras por segundo de un ``DataLoader`` de ``ImagenesSinteticas`` según ``num_workers``
   y ``pin_memory`` (este solo con CUDA), sin disco lento y con uno lento (``latencia``).
2. Pasos por segundo de las CNN de la lección 05 (la pequeña y la ampliada) en fp32 y bf16
   (y fp16 en GPU), con ``autocast`` y ``GradScaler`` como ``entrenar(precision=...)``.
3. Lo que cuesta perfilar: un paso con y sin ``torch.autograd.profiler``.

Imprime razones medidas en la misma corrida (lo que cuenta en una máquina ruidosa).
``comprobar_en_gpu()`` devuelve líneas PASS/FAIL para validar en una GPU de verdad.

    .venv/bin/python benchmarks/rendimiento_benchmark.py [--dispositivo auto] [--rapido] [--hilos 1] [--gpu]
"""

from __future__ import annotations

import argparse
import statistics
import time

import torch
from torch import nn

from curso_gpu.rendimiento import ImagenesSinteticas
from curso_gpu.dispositivo import elegir_dispositivo, sincronizar
from curso_gpu.entrenamiento import CNNPequena
from curso_gpu.rendimiento import PrecisionNoDisponible, preparar_precision
from curso_gpu.rendimiento import comparar_cargadores


def modelos() -> dict:
    """Los dos modelos de la lección 05, con su lote de imágenes de 8×8."""
    return {
        "pequeña (2 339 parámetros, lote 360)": (CNNPequena, 360),
        "ampliada (~200 000 parámetros, lote 256)": (lambda: CNNPequena(canales=(64, 128), ocultas=256), 256),
    }


def pasos_por_segundo(crear, lote: int, precision: str, dispositivo: torch.device, segundos: float) -> float:
    """Pasos de Adam por segundo (1 / mediana de cada paso) con la precisión pedida.

    Tras dos pasos de calentamiento, mide pasos hasta gastar ``segundos`` (al menos 3).
    """
    torch.manual_seed(0)
    modelo = crear().to(dispositivo)
    optimizador = torch.optim.Adam(modelo.parameters(), lr=0.01)
    X = torch.rand(lote, 1, 8, 8, device=dispositivo)
    y = torch.randint(0, 3, (lote,), device=dispositivo)
    autocast, escalador = preparar_precision(precision, dispositivo)
    criterio = nn.CrossEntropyLoss()

    def paso():
        with autocast():
            perdida = criterio(modelo(X), y)
        optimizador.zero_grad(set_to_none=True)
        escalador.scale(perdida).backward()
        escalador.step(optimizador)
        escalador.update()

    for _ in range(2):
        paso()
    tiempos, comienzo = [], time.perf_counter()
    while len(tiempos) < 3 or time.perf_counter() - comienzo < segundos:
        sincronizar(dispositivo)
        inicio = time.perf_counter()
        paso()
        sincronizar(dispositivo)
        tiempos.append(time.perf_counter() - inicio)
    return 1 / statistics.median(tiempos)


def precisiones(dispositivo: torch.device) -> list[str]:
    return ["fp32", "bf16"] + (["fp16"] if dispositivo.type != "cpu" else [])


def medir_precision(dispositivo: torch.device, segundos: float) -> dict:
    """{(modelo, precisión): pasos/s}; las precisiones que no puede el dispositivo quedan fuera."""
    resultado = {}
    for nombre, (crear, lote) in modelos().items():
        for precision in precisiones(dispositivo):
            try:
                resultado[(nombre, precision)] = pasos_por_segundo(crear, lote, precision, dispositivo, segundos)
            except PrecisionNoDisponible as error:
                print(f"  {nombre} en {precision}: no se mide ({error})")
    return resultado


def medir_perfilador(dispositivo: torch.device, repeticiones: int = 10) -> tuple[float, float]:
    """(segundos por paso sin perfilar, con perfilador) de la CNN pequeña."""
    torch.manual_seed(0)
    modelo = CNNPequena().to(dispositivo)
    optimizador = torch.optim.SGD(modelo.parameters(), lr=0.01)
    X = torch.rand(360, 1, 8, 8, device=dispositivo)
    y = torch.randint(0, 3, (360,), device=dispositivo)

    def paso():
        perdida = nn.functional.cross_entropy(modelo(X), y)
        optimizador.zero_grad()
        perdida.backward()
        optimizador.step()

    def tanda():
        sincronizar(dispositivo)
        inicio = time.perf_counter()
        for _ in range(repeticiones):
            paso()
        sincronizar(dispositivo)
        return (time.perf_counter() - inicio) / repeticiones

    tanda()
    sin, con = [], []
    opciones = {"use_device": dispositivo.type, "use_kineto": True} if dispositivo.type == "cuda" else {}
    for _ in range(3):
        sin.append(tanda())
        with torch.autograd.profiler.profile(**opciones):
            con.append(tanda())
    return statistics.median(sin), statistics.median(con)


def medir_cargadores(dispositivo: torch.device, rapido: bool):
    lotes = 3 if rapido else 8
    sin_latencia = comparar_cargadores(ImagenesSinteticas(n=1024), 32, (0, 1, 2), lotes=lotes, dispositivo=dispositivo)
    con_latencia = comparar_cargadores(ImagenesSinteticas(n=1024, latencia=0.003), 32, (0, 1, 2), lotes=lotes,
                                       dispositivo=dispositivo)
    return sin_latencia, con_latencia


def _razon(resultado: dict, nombre: str, precision: str) -> float | None:
    if (nombre, precision) not in resultado or (nombre, "fp32") not in resultado:
        return None
    return resultado[(nombre, precision)] / resultado[(nombre, "fp32")]


def comprobar_en_gpu(dispositivo=None, segundos: float = 2.0) -> list[str]:
    """Líneas PASS/FAIL de lo que la lección 06 dice de una GPU. Pensado para una GPU de verdad.

    - fp16 (autocast + GradScaler) da más pasos por segundo que fp32 en la CNN ampliada
      (en una T4 y más nuevas, por los núcleos tensor).
    - La CNN pequeña no gana con precisión mixta (razón < 1.3): su tiempo es de lanzamientos.
    - bf16: en Ampere o más nueva, más rápido que fp32 en la ampliada; en una T4 (capacidad 7.x),
      ``entrenar`` lo rechaza con un error que propone fp16.
    """
    d = elegir_dispositivo("auto" if dispositivo is None else dispositivo)
    if d.type != "cuda":
        return [f"FAIL comprobar_en_gpu necesita CUDA; el dispositivo es {d}"]
    lineas = []
    nombres = list(modelos())
    pequena, ampliada = nombres
    resultado = medir_precision(d, segundos)
    razon = _razon(resultado, ampliada, "fp16")
    lineas.append(f"{'PASS' if razon and razon > 1.0 else 'FAIL'} fp16/fp32 en la CNN ampliada: {razon or 0:.2f}x (debe ser > 1)")
    razon_p = _razon(resultado, pequena, "fp16")
    lineas.append(f"{'PASS' if razon_p and razon_p < 1.3 else 'FAIL'} fp16/fp32 en la CNN pequeña: {razon_p or 0:.2f}x "
                  "(debe ser < 1.3: no gana)")
    mayor = torch.cuda.get_device_capability(d)[0]
    if mayor >= 8:
        razon_b = _razon(resultado, ampliada, "bf16")
        lineas.append(f"{'PASS' if razon_b and razon_b > 1.0 else 'FAIL'} bf16/fp32 en la CNN ampliada "
                      f"(capacidad {mayor}.x): {razon_b or 0:.2f}x (debe ser > 1)")
    else:
        rechazado = (ampliada, "bf16") not in resultado
        lineas.append(f"{'PASS' if rechazado else 'FAIL'} bf16 rechazado en capacidad {mayor}.x (sin núcleos tensor bf16)")
    return lineas


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dispositivo", default="auto")
    parser.add_argument("--rapido", action="store_true", help="menos lotes y pasos (para probar el script)")
    parser.add_argument("--hilos", type=int, default=None,
                        help="hilos de PyTorch en la CPU (en una máquina compartida, 1 evita que se estorben)")
    parser.add_argument("--gpu", action="store_true", help="solo las comprobaciones PASS/FAIL de comprobar_en_gpu()")
    args = parser.parse_args()
    dispositivo = elegir_dispositivo(args.dispositivo)
    if args.hilos:
        torch.set_num_threads(args.hilos)
    if args.gpu:
        print("\n".join(comprobar_en_gpu(dispositivo)))
        return
    segundos = 0.5 if args.rapido else 2.0
    print(f"Dispositivo: {dispositivo} · hilos de CPU: {torch.get_num_threads()} · PyTorch {torch.__version__}")

    print("\n1. DataLoader (ImagenesSinteticas 64×64 → 56×56, lotes de 32)")
    sin_latencia, con_latencia = medir_cargadores(dispositivo, args.rapido)
    for titulo, comparacion in (("sin disco lento", sin_latencia), ("con disco lento (3 ms por imagen)", con_latencia)):
        print(f"  {titulo}:")
        for linea in str(comparacion).splitlines()[1:]:
            print("  " + linea)

    print("\n2. Pasos por segundo según la precisión (Adam, un lote fijo)")
    resultado = medir_precision(dispositivo, segundos)
    for (nombre, precision), valor in resultado.items():
        razon = _razon(resultado, nombre, precision)
        print(f"  {nombre:<42} {precision:<5} {valor:8.1f} pasos/s  ({razon:.2f}x fp32)")

    print("\n3. Coste del perfilador (CNN pequeña, lote 360)")
    sin, con = medir_perfilador(dispositivo)
    print(f"  sin perfilar {sin * 1e3:.2f} ms/paso · perfilando {con * 1e3:.2f} ms/paso → {con / sin:.2f}x")

    if dispositivo.type == "cuda":
        print("\n4. Comprobaciones en GPU")
        print("\n".join("  " + linea for linea in comprobar_en_gpu(dispositivo)))


if __name__ == "__main__":
    main()
