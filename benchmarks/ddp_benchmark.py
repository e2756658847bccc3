"""DDP con nccl en una GPU de verdad: la comprobación de la lección 08.

``comprobar_en_gpu()`` entrena con ``torchrun`` y nccl en las GPU de la máquina y devuelve
líneas «PASS …» / «FAIL …» (sin GPU, una sola línea «SKIP …»). La llama
``benchmarks/validar_en_gpu.py`` (gancho de la lección 08).

Uso:  python benchmarks/ddp_benchmark.py
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import torch

from curso_gpu.guardado import cargar_pesos
from curso_gpu.distribuido import ejecutar, orden_torchrun


def comprobar_en_gpu(timeout_s: float = 300) -> list[str]:
    """Entrena con nccl en las GPU de esta máquina y devuelve líneas «PASS …» / «FAIL …». Lección 08.

    Con CUDA y al menos una GPU: un proceso por GPU (como mucho 2) con ``torchrun`` y
    nccl; pesos idénticos entre procesos; mismos pesos (salvo redondeo) que un solo proceso
    con el lote global; y, con una sola GPU, que pedir 2 procesos con nccl da el error en
    español y no se cuelga. Sin GPU devuelve una sola línea «SKIP …».
    """
    if not torch.cuda.is_available() or torch.cuda.device_count() < 1:
        return ["SKIP entrenar_ddp con nccl: no hay GPU con CUDA"]
    gpus = min(2, torch.cuda.device_count())
    lineas = []

    def anotar(ok: bool, texto: str) -> None:
        lineas.append(f"{'PASS' if ok else 'FAIL'} {texto}")

    with tempfile.TemporaryDirectory() as carpeta:
        varios, solo = Path(carpeta) / "varios.pt", Path(carpeta) / "solo.pt"
        comun = ["--epocas", "3", "--semilla", "0", "--backend", "nccl"]
        (r,) = ejecutar(orden_torchrun(["-m", "curso_gpu.entrenar_ddp", *comun, "--tamano-lote", "16",
                                        "--guardar-pesos", varios], procesos=gpus), timeout_s=timeout_s)
        anotar(r.bien, f"torchrun con nccl en {gpus} GPU termina bien ({r.segundos:.1f} s) {r.explicacion()}")
        anotar("copias idénticas" in r.salida.lower() and "? sí" in r.salida,
               "pesos idénticos en todos los procesos (huellas iguales)")
        (s,) = ejecutar([sys.executable, "-m", "curso_gpu.entrenar_ddp", *comun, "--tamano-lote", str(16 * gpus),
                         "--guardar-pesos", solo], timeout_s=timeout_s)
        anotar(s.bien, f"un solo proceso con nccl termina bien ({s.segundos:.1f} s) {s.explicacion()}")
        if varios.exists() and solo.exists():
            a, b = cargar_pesos(varios), cargar_pesos(solo)  # --guardar-pesos lleva su SHA-256
            diferencia = max((a[k].float() - b[k].float()).abs().max().item() for k in a)
            anotar(diferencia < 1e-3, f"{gpus} procesos × lote 16 ≈ 1 proceso × lote {16 * gpus} "
                                      f"(máxima diferencia {diferencia:.2e})")
        if torch.cuda.device_count() == 1:
            (m,) = ejecutar(orden_torchrun(["-m", "curso_gpu.entrenar_ddp", *comun], procesos=2), timeout_s=120)
            anotar(not m.bien and not m.agotado and "solo 1 GPU" in m.salida,
                   "2 procesos con nccl en 1 GPU: error en español y sin colgarse")
    return lineas


if __name__ == "__main__":
    lineas = comprobar_en_gpu()
    print("\n".join(lineas))
    sys.exit(1 if any(linea.startswith("FAIL") for linea in lineas) else 0)
