"""FSDP2 en GPU de verdad: nccl, la política fp16 y la memoria de cada GPU frente a la calculadora. Lección 12.

    python benchmarks/fsdp_benchmark.py          # en una máquina con 1 o 2 GPU NVIDIA

Lo llama ``benchmarks/validar_en_gpu.py`` (``comprobar_leccion_12``). ``torchrun`` lanza este mismo
archivo como trabajador (``--trabajador CARPETA``): un MLP de 8 capas de 4096 repartido con
``fragmentar(precision="fp16")``, tres pasos con ``escalador_de_perdida`` y, en
``CARPETA/rango_N.json`` (escrito de forma atómica), lo que vio cada rango. Es el código de la
lección: en una CPU el trabajador corre igual con gloo (``tests/test_validar_en_gpu.py``), solo que
allí no hay nccl ni memoria de GPU que medir.
"""

from __future__ import annotations

import json
import sys
import tempfile
import warnings
from pathlib import Path

RAIZ = Path(__file__).resolve().parent.parent
if str(RAIZ) not in sys.path:  # para ejecutarlo sin instalar el paquete
    sys.path.insert(0, str(RAIZ))

import torch  # noqa: E402
from torch import nn  # noqa: E402

CAPAS, ANCHO, LOTE = 8, 4096, 64
MARGEN_MEMORIA = (0.8, 1.3)
"""Medido / calculado aceptable. Sin medir aún en una GPU: FSDP2 reúne por adelantado el bloque
siguiente (un segundo bloque a la vez) y usa búferes para el reduce-scatter que la calculadora no
cuenta. Ajústalo con la primera medida de una T4 o una H100."""


def modelo_de_prueba(dispositivo="cpu", ancho: int = ANCHO) -> nn.Module:
    with torch.device(dispositivo):  # los pesos nacen ya en su sitio (en meta, sin memoria)
        capas = []
        for _ in range(CAPAS):
            capas += [nn.Linear(ancho, ancho), nn.ReLU()]
        return nn.Sequential(*capas[:-1])


def memoria_prevista(procesos: int):
    """``memoria_por_gpu`` del modelo de prueba, con su desglose medido en ``meta`` (lección 07)."""
    from curso_gpu.memoria import medir_memoria_entrenamiento, memoria_por_gpu

    modelo = modelo_de_prueba("meta")
    desglose = medir_memoria_entrenamiento(modelo, torch.empty(LOTE, ANCHO, device="meta"), "adam", "fp16")
    unidad = ANCHO * ANCHO + ANCHO
    return memoria_por_gpu(desglose, procesos, "fsdp", unidad_parametros=unidad, bytes_unidad=2)


def juzgar_memoria(medido: int, previsto: int, margen=MARGEN_MEMORIA) -> tuple[bool, str]:
    """(¿dentro del margen?, texto) de la memoria medida frente a la calculada."""
    if previsto <= 0:
        raise ValueError(f"la memoria calculada debe ser positiva; recibí {previsto!r}")
    cociente = medido / previsto
    return margen[0] <= cociente <= margen[1], (f"medido {medido / 2**20:.0f} MiB, calculado {previsto / 2**20:.0f} MiB "
                                                f"({cociente:.2f}×, margen {margen[0]}–{margen[1]})")


def trabajador(carpeta: Path, ancho: int = ANCHO) -> None:
    """Un rango: reparte en fp16, entrena tres pasos y escribe lo que vio."""
    from curso_gpu import distribuido
    from curso_gpu.guardado import escribir_atomico

    warnings.filterwarnings("ignore", message="Found a non-scalar tensor with numel=1")
    proceso = distribuido.iniciar()
    try:
        dispositivo = proceso.dispositivo
        torch.manual_seed(0)
        modelo = modelo_de_prueba(dispositivo, ancho)
        distribuido.fragmentar(modelo, precision="fp16", proceso=proceso)
        tipos = {}

        def anotar(bloque, _):
            tipos.setdefault("al calcular", str(bloque.weight.dtype))

        modelo[0].register_forward_pre_hook(anotar)
        optimizador = torch.optim.Adam(modelo.parameters(), lr=1e-3)
        escalador = distribuido.escalador_de_perdida("fp16", dispositivo)
        if dispositivo.type == "cuda":
            torch.cuda.reset_peak_memory_stats(dispositivo)
        generador = torch.Generator().manual_seed(proceso.rango)
        for _ in range(3):
            x = torch.randn(LOTE, ancho, generator=generador).to(dispositivo)
            perdida = modelo(x).float().pow(2).mean()
            optimizador.zero_grad(set_to_none=True)
            escalador.scale(perdida).backward()
            escalador.step(optimizador)
            escalador.update()
        tipos["guardado (trozo)"] = str(modelo[0].weight.dtype)
        tipos["gradiente (trozo)"] = str(modelo[0].weight.grad.dtype)
        resultado = {"rango": proceso.rango, "mundo": proceso.tamano_mundo, "backend": proceso.backend,
                     "tipos": tipos, "escala": escalador.get_scale(), "perdida": perdida.item(),
                     "memoria": torch.cuda.max_memory_allocated(dispositivo) if dispositivo.type == "cuda" else None}
        escribir_atomico(carpeta / f"rango_{proceso.rango}.json",
                         lambda archivo: archivo.write(json.dumps(resultado).encode()))
    finally:
        distribuido.terminar()


def lanzar(carpeta: Path, procesos: int, timeout_s: float = 300, ancho: int = ANCHO):
    """torchrun con ``procesos`` trabajadores de este archivo; devuelve la ``Ejecucion`` y los resultados."""
    from curso_gpu.distribuido import ejecutar, orden_torchrun

    programa = [str(Path(__file__).resolve()), "--trabajador", str(carpeta), str(ancho)]
    (r,) = ejecutar(orden_torchrun(programa, procesos=procesos),
                    timeout_s=timeout_s, entorno={"OMP_NUM_THREADS": "1", "PYTHONPATH": str(RAIZ)})
    rangos = [json.loads(p.read_text()) for p in sorted(carpeta.glob("rango_*.json"))]
    return r, rangos


def comprobar_en_gpu(timeout_s: float = 300) -> list[str]:
    """Líneas «PASS …» / «FAIL …» de FSDP2 en las GPU de esta máquina (como mucho 2). Lección 12."""
    if not torch.cuda.is_available() or torch.cuda.device_count() < 1:
        return ["SKIP FSDP con nccl: no hay GPU con CUDA"]
    gpus = min(2, torch.cuda.device_count())
    lineas = []

    def anotar(ok: bool, texto: str) -> None:
        lineas.append(f"{'PASS' if ok else 'FAIL'} {texto}")

    with tempfile.TemporaryDirectory() as carpeta:
        r, rangos = lanzar(Path(carpeta), gpus, timeout_s)
        anotar(r.bien and len(rangos) == gpus, f"fully_shard con torchrun en {gpus} GPU termina bien "
                                               f"({r.segundos:.1f} s) {r.explicacion()}")
        if len(rangos) != gpus:
            return lineas + [f"FAIL salida de torchrun: {r.salida[-1500:]}"]
        anotar(all(x["backend"] == "nccl" for x in rangos), f"backend nccl en cada rango: {[x['backend'] for x in rangos]}")
        bien = all(x["tipos"] == {"al calcular": "torch.float16", "guardado (trozo)": "torch.float32",
                                  "gradiente (trozo)": "torch.float32"} for x in rangos)
        anotar(bien, f"MixedPrecisionPolicy fp16: calcula en fp16, guarda y reduce en fp32: {rangos[0]['tipos']}")
        anotar(all(x["escala"] > 0 and x["perdida"] == x["perdida"] for x in rangos),
               f"GradScaler (FSDP2): escala {rangos[0]['escala']:g}, pérdida finita")
        previsto = memoria_prevista(gpus).total
        for x in rangos:
            ok, texto = juzgar_memoria(x["memoria"], previsto)
            anotar(ok, f"memoria de la GPU del rango {x['rango']} (max_memory_allocated) frente a memoria_por_gpu: {texto}")
    return lineas


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--trabajador":
        trabajador(Path(sys.argv[2]), int(sys.argv[3]))
    else:
        print("\n".join(comprobar_en_gpu()))
