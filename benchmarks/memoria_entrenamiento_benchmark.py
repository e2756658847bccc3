"""¿Acierta ``medir_memoria_entrenamiento``? Activaciones medidas frente a estimadas. Lección 07.

En cualquier máquina, para varios modelos y tamaños de lote, imprime:

- las activaciones **medidas** (``saved_tensors_hooks``) en la CPU y en ``meta`` (deben coincidir);
- cuánto crecen al doblar el lote (deben doblarse);
- dos **estimaciones** sin medir: la regla de la lección 04 (+20 % de los pesos, pensada para
  usar el modelo, no para entrenarlo) y, para los Transformers, la fórmula de Korthikanti et al.
  (2022, «Reducing Activation Recomputation in Large Transformer Models»): por capa,
  s·b·h·(34 + 5·a·s/h) bytes con activaciones de 16 bits, *dropout* y la atención clásica, que
  guarda la matriz s × s. Se compara con lo medido en bf16 (autocast). Nuestro GPT no tiene
  *dropout* y usa atención fusionada (sin s²), pero la fórmula no cuenta la salida (una
  puntuación por token y palabra del vocabulario) ni lo que autocast deja en fp32.

Con una GPU CUDA, ``comprobar_en_gpu()`` compara además ``medir_memoria_entrenamiento(...).total``
con el pico real de un paso de entrenamiento (``torch.cuda.max_memory_allocated``; objetivo: a
menos del 10 %) y comprueba que ``lote_maximo`` sobrevive a un ``torch.OutOfMemoryError`` real y
deja la memoria como estaba. Devuelve líneas «PASS ...» / «FAIL ...».

Uso:  python benchmarks/memoria_entrenamiento_benchmark.py
Sale con código 1 si alguna comprobación falla.
"""

from __future__ import annotations

import gc
import sys
import time

import torch
from torch import nn

from curso_gpu.memoria import lote_maximo, medir_memoria_entrenamiento
from curso_gpu.entrenamiento import CNNPequena, GPT2Pequeno

TOLERANCIA_GPU = 0.10
GPT_BENCH = dict(vocabulario=2000, contexto=512, dimension=128, capas=4, cabezas=4)


def _mlp():
    return nn.Sequential(nn.Linear(256, 1024), nn.ReLU(), nn.Linear(1024, 1024), nn.ReLU(), nn.Linear(1024, 10))


def _casos_cpu():
    """(nombre, constructor del modelo, entrada para un lote b, config GPT o None)."""
    return [
        ("MLP 256-1024-1024-10", _mlp, lambda b: torch.randn(b, 256), None),
        ("CNN de la lección 05", CNNPequena, lambda b: torch.rand(b, 1, 8, 8), None),
        ("CNN ancha (64, 128)", lambda: CNNPequena(canales=(64, 128), ocultas=256), lambda b: torch.rand(b, 1, 8, 8), None),
        ("GPT reducido, 128 tokens", lambda: GPT2Pequeno(**GPT_BENCH), lambda b: torch.randint(0, 2000, (b, 128)), 128),
        ("GPT reducido, 512 tokens", lambda: GPT2Pequeno(**GPT_BENCH), lambda b: torch.randint(0, 2000, (b, 512)), 512),
    ]


def korthikanti(lote: int, tokens: int, dimension: int, capas: int, cabezas: int) -> int:
    """Bytes de activaciones de los bloques según Korthikanti et al. (2022), ecuación (2), sin recomputar."""
    return capas * tokens * lote * dimension * (34 + 5 * cabezas * tokens / dimension)


def comparar_en_cpu(lotes=(4, 8, 16)) -> list[str]:
    """Imprime la tabla de medidas y estimaciones; devuelve las comprobaciones que fallan."""
    fallos = []
    print(f"{'modelo':<26} {'lote':>4} {'medido CPU':>12} {'meta/CPU':>8} {'×2 lote':>7} "
          f"{'regla +20 %':>12} {'medido bf16':>12} {'Korthikanti':>12} {'medir (s)':>9}")
    for nombre, construir, entrada, tokens in _casos_cpu():
        torch.manual_seed(0)
        modelo = construir()
        with torch.device("meta"):
            en_meta = construir()
        anterior = None
        for lote in lotes:
            x = entrada(lote)
            inicio = time.perf_counter()
            cpu = medir_memoria_entrenamiento(modelo, x)
            segundos = time.perf_counter() - inicio
            meta = medir_memoria_entrenamiento(en_meta, x)
            regla = 0.2 * cpu.pesos
            kort = korthikanti(lote, tokens, GPT_BENCH["dimension"], GPT_BENCH["capas"],
                               GPT_BENCH["cabezas"]) if tokens else None
            bf16 = medir_memoria_entrenamiento(modelo, x, precision="bf16").activaciones if tokens else None
            crece = "" if anterior is None else f"{cpu.activaciones / anterior:.2f}"
            print(f"{nombre:<26} {lote:>4} {cpu.activaciones / 1e6:>9.2f} MB {meta.activaciones / cpu.activaciones:>8.3f} "
                  f"{crece:>7} {regla / 1e6:>9.2f} MB {'' if bf16 is None else f'{bf16 / 1e6:9.2f} MB':>12} "
                  f"{'' if kort is None else f'{kort / 1e6:9.2f} MB':>12} {segundos:>9.3f}")
            if meta.partes() != cpu.partes():
                fallos.append(f"FAIL {nombre}, lote {lote}: meta {meta.partes()} ≠ CPU {cpu.partes()}")
            if anterior is not None and abs(cpu.activaciones / anterior - 2) > 0.01:
                fallos.append(f"FAIL {nombre}: al doblar el lote las activaciones se multiplican por {cpu.activaciones / anterior:.3f}")
            anterior = cpu.activaciones
    with torch.device("meta"):
        gpt2 = GPT2Pequeno()
    inicio = time.perf_counter()
    d = medir_memoria_entrenamiento(gpt2, torch.randint(0, 50257, (8, 1024)))
    print(f"\nGPT-2 pequeño (124M) en meta, lote 8 × 1024 tokens: {d.total / 1e9:.2f} GB en total, "
          f"activaciones {d.activaciones / 1e9:.2f} GB, medido en {time.perf_counter() - inicio:.2f} s sin reservar memoria.")
    return fallos


# ---------------------------------------------------------------------------
# En una GPU
# ---------------------------------------------------------------------------

def _pico_de_un_paso(construir, entrada, precision: str, dispositivo: torch.device) -> tuple[int, int]:
    """(pico de memoria de un paso de entrenamiento con Adam, total medido). El primer paso calienta."""
    gc.collect()
    torch.cuda.empty_cache()
    base = torch.cuda.memory_allocated(dispositivo)
    torch.manual_seed(0)
    modelo = construir().to(dispositivo)
    optimizador = torch.optim.Adam(modelo.parameters(), lr=1e-4)
    x = entrada().to(dispositivo)
    tipo = {"fp16": torch.float16, "bf16": torch.bfloat16}.get(precision, torch.float32)

    def paso():
        with torch.autocast("cuda", dtype=tipo, enabled=precision != "fp32"):
            perdida = modelo(x).float().mean()
        perdida.backward()
        optimizador.step()
        optimizador.zero_grad(set_to_none=True)

    paso()  # crea los estados de Adam y los espacios de trabajo de cuBLAS
    torch.cuda.synchronize(dispositivo)
    torch.cuda.reset_peak_memory_stats(dispositivo)
    paso()
    torch.cuda.synchronize(dispositivo)
    pico = torch.cuda.max_memory_allocated(dispositivo) - base
    medido = medir_memoria_entrenamiento(modelo, x, "adam", precision).total
    del modelo, optimizador, x
    gc.collect()
    torch.cuda.empty_cache()
    return pico, medido


def comprobar_en_gpu(dispositivo: str = "cuda") -> list[str]:
    """Compara lo medido con el pico real en una GPU CUDA y prueba ``lote_maximo``. Líneas PASS/FAIL."""
    if not torch.cuda.is_available():
        return ["FAIL comprobar_en_gpu: no hay GPU CUDA en esta máquina"]
    dispositivo = torch.device(dispositivo)
    lineas = []
    casos = [
        ("MLP, lote 8192", _mlp, lambda: torch.randn(8192, 256), "fp32"),
        ("CNN ancha, lote 16384", lambda: CNNPequena(canales=(64, 128), ocultas=256), lambda: torch.rand(16384, 1, 8, 8), "fp32"),
        ("GPT reducido, 32 × 512", lambda: GPT2Pequeno(**GPT_BENCH), lambda: torch.randint(0, 2000, (32, 512)), "fp32"),
        ("GPT reducido, 32 × 512, bf16", lambda: GPT2Pequeno(**GPT_BENCH), lambda: torch.randint(0, 2000, (32, 512)), "bf16"),
        ("GPT-2 pequeño, 8 × 1024", GPT2Pequeno, lambda: torch.randint(0, 50257, (8, 1024)), "fp32"),
    ]
    for nombre, construir, entrada, precision in casos:
        try:
            pico, medido = _pico_de_un_paso(construir, entrada, precision, dispositivo)
        except torch.OutOfMemoryError:
            lineas.append(f"FAIL {nombre}: no cupo en esta GPU")
            gc.collect()
            torch.cuda.empty_cache()
            continue
        error = medido / pico - 1
        estado = "PASS" if abs(error) <= TOLERANCIA_GPU else "FAIL"
        lineas.append(f"{estado} {nombre}: medido {medido / 1e6:.1f} MB, pico real {pico / 1e6:.1f} MB "
                      f"({100 * error:+.1f} %; objetivo ±{100 * TOLERANCIA_GPU:.0f} %)")

    # lote_maximo con OOM de verdad: limitamos este proceso a 2 GB de la GPU.
    total = torch.cuda.get_device_properties(dispositivo).total_memory
    fraccion = min(1.0, 2 * 10**9 / total)
    gc.collect()
    torch.cuda.empty_cache()
    modelo = GPT2Pequeno(**GPT_BENCH).to(dispositivo)
    antes = torch.cuda.memory_allocated(dispositivo)
    pesos_antes = [p.detach().cpu().clone() for p in modelo.parameters()]  # en la CPU: no cuentan en la GPU
    torch.cuda.set_per_process_memory_fraction(fraccion, dispositivo)
    try:
        inicio = time.perf_counter()
        lote = lote_maximo(modelo, torch.randint(0, 2000, (1, 512)), dispositivo)
        segundos = time.perf_counter() - inicio
        despues = torch.cuda.memory_allocated(dispositivo)
        calculado = lote_maximo(modelo, torch.randint(0, 2000, (1, 512)), dispositivo,
                                memoria_bytes=int(fraccion * total) - antes + sum(p.numel() * p.element_size() for p in pesos_antes))
    finally:
        torch.cuda.set_per_process_memory_fraction(1.0, dispositivo)
    limpio = despues == antes
    iguales = all(torch.equal(a, b.detach().cpu()) for a, b in zip(pesos_antes, modelo.parameters()))
    lineas.append(f"{'PASS' if limpio else 'FAIL'} lote_maximo deja la memoria como estaba "
                  f"({antes} → {despues} bytes asignados)")
    lineas.append(f"{'PASS' if iguales else 'FAIL'} lote_maximo no cambia los pesos")
    lineas.append(f"{'PASS' if lote >= 1 else 'FAIL'} lote_maximo en {fraccion * total / 1e9:.1f} GB: probado {lote}, "
                  f"calculado {calculado} (cociente {calculado / max(lote, 1):.2f}), búsqueda en {segundos:.1f} s")
    del modelo, pesos_antes
    gc.collect()
    torch.cuda.empty_cache()
    return lineas


def main() -> int:
    fallos = comparar_en_cpu()
    print()
    if torch.cuda.is_available():
        lineas = comprobar_en_gpu()
        print("\n".join(lineas))
        fallos += [linea for linea in lineas if linea.startswith("FAIL")]
    else:
        print("Sin GPU CUDA: comprobar_en_gpu() se ejecuta en una máquina con GPU (benchmarks/validar_en_gpu.py).")
    for fallo in fallos:
        print(fallo)
    print("Todo bien." if not fallos else f"{len(fallos)} comprobación(es) fallida(s).")
    return 1 if fallos else 0


if __name__ == "__main__":
    sys.exit(main())
