"""FSDP2 en GPU de verdad: nccl, la política fp16 y el pico de cada GPU frente a la calculadora. Lección 12.

    python benchmarks/fsdp_benchmark.py          # en una máquina con 1 o 2 GPU NVIDIA

Lo llama ``benchmarks/validar_en_gpu.py`` (``comprobar_leccion_12``). ``torchrun`` lanza este mismo
archivo como trabajador (``--trabajador CARPETA ANCHO MODO``): un MLP de 8 capas de 4096 repartido
con ``fragmentar(precision="fp16")`` (modo ``fsdp``) o entrenado en una GPU con ``autocast`` (modo
``una``), tres pasos con ``torch.amp.GradScaler`` y Adam (``foreach``, lo normal en GPU) y, en
``CARPETA/rango_N.json`` (escrito de forma atómica), lo que vio cada rango: ``max_memory_allocated``
y ``max_memory_reserved``. El pico medido se divide por el de ``memoria_por_gpu`` (sin el contexto de
CUDA, que ``max_memory_allocated`` no ve) y debe quedar en ``MARGEN_MEMORIA``.

Con 2 GPU se miden las filas de 2 GPU; con 1, las de una GPU (FSDP con N=1 y una GPU sin FSDP), y la
de 2 GPU queda sin medir (se dice). En una CPU el trabajador corre igual con gloo
(``tests/test_validar_en_gpu.py``), solo que allí no hay nccl ni memoria de GPU que medir.
"""

from __future__ import annotations

import contextlib
import json
import sys
import tempfile
from pathlib import Path

RAIZ = Path(__file__).resolve().parent.parent
if str(RAIZ) not in sys.path:  # para ejecutarlo sin instalar el paquete
    sys.path.insert(0, str(RAIZ))

import torch  # noqa: E402
from torch import nn  # noqa: E402

CAPAS, ANCHO, LOTE = 8, 4096, 64
MARGEN_MEMORIA = (0.9, 1.15)
"""Medido / calculado aceptable (``max_memory_allocated`` / ``pico_pytorch``). La calculadora cuenta
el temporal de Adam, los búferes del reduce-scatter, la raíz y el bloque siguiente; sin medir aún en
una GPU de verdad."""


def modelo_de_prueba(dispositivo="cpu", ancho: int = ANCHO) -> nn.Module:
    with torch.device(dispositivo):  # los pesos nacen ya en su sitio (en meta, sin memoria)
        capas = []
        for _ in range(CAPAS):
            capas += [nn.Linear(ancho, ancho), nn.ReLU()]
        return nn.Sequential(*capas[:-1])


def memoria_prevista(procesos: int, modo: str = "fsdp"):
    """``memoria_por_gpu`` del modelo de prueba, con su desglose medido en ``meta`` (lección 07).

    ``modo``: ``"fsdp"`` (repartido entre ``procesos``) o ``"una"`` (una GPU sin FSDP). La raíz (el
    ``Sequential``) no tiene parámetros propios; cada capa es una unidad.
    """
    from curso_gpu.memoria import medir_memoria_entrenamiento, memoria_por_gpu

    modelo = modelo_de_prueba("meta")
    desglose = medir_memoria_entrenamiento(modelo, torch.empty(LOTE, ANCHO, device="meta"), "adam", "fp16")
    if modo == "una":
        return memoria_por_gpu(desglose, 1, "una", mayor_parametro=ANCHO * ANCHO)
    return memoria_por_gpu(desglose, procesos, "fsdp", unidad_parametros=ANCHO * ANCHO + ANCHO,
                           mayor_parametro=ANCHO * ANCHO, bytes_unidad=2)


def juzgar_memoria(medido: int, previsto: int, margen=MARGEN_MEMORIA) -> tuple[bool, str]:
    """(¿dentro del margen?, texto) de la memoria medida frente a la calculada."""
    if previsto <= 0:
        raise ValueError(f"la memoria calculada debe ser positiva; recibí {previsto!r}")
    cociente = medido / previsto
    return margen[0] <= cociente <= margen[1], (f"medido {medido / 2**20:.0f} MiB, calculado {previsto / 2**20:.0f} MiB "
                                                f"({cociente:.2f}×, margen {margen[0]}–{margen[1]})")


def trabajador(carpeta: Path, ancho: int = ANCHO, modo: str = "fsdp") -> None:
    """Un rango: reparte en fp16 (o, con ``modo="una"``, autocast sin FSDP), entrena tres pasos y escribe lo que vio."""
    from curso_gpu import distribuido
    from curso_gpu.guardado import escribir_atomico

    proceso = distribuido.iniciar()
    try:
        dispositivo = proceso.dispositivo
        torch.manual_seed(0)
        modelo = modelo_de_prueba(dispositivo, ancho)
        if modo == "fsdp":
            distribuido.fragmentar(modelo, precision="fp16", proceso=proceso)
        calcular = (torch.autocast(dispositivo.type, dtype=torch.float16) if modo == "una"
                    else contextlib.nullcontext())
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
            with calcular:
                perdida = modelo(x).float().pow(2).mean()
            optimizador.zero_grad(set_to_none=True)
            escalador.scale(perdida).backward()
            escalador.step(optimizador)
            escalador.update()
        if modo == "una":  # autocast: el peso guardado es fp32; lo que se calcula, fp16
            tipos["al calcular"] = "torch.float16"
        tipos["guardado (trozo)"] = str(modelo[0].weight.dtype)
        tipos["gradiente (trozo)"] = str(modelo[0].weight.grad.dtype)
        resultado = {"rango": proceso.rango, "mundo": proceso.tamano_mundo, "backend": proceso.backend,
                     "tipos": tipos, "escala": escalador.get_scale(), "perdida": perdida.item(),
                     "modo": modo, "escalador": type(escalador).__name__,
                     "memoria": torch.cuda.max_memory_allocated(dispositivo) if dispositivo.type == "cuda" else None,
                     "reservada": torch.cuda.max_memory_reserved(dispositivo) if dispositivo.type == "cuda" else None}
        escribir_atomico(carpeta / f"rango_{proceso.rango}.json",
                         lambda archivo: archivo.write(json.dumps(resultado).encode()))
    finally:
        distribuido.terminar()


def lanzar(carpeta: Path, procesos: int, timeout_s: float = 300, ancho: int = ANCHO, modo: str = "fsdp"):
    """torchrun con ``procesos`` trabajadores de este archivo; devuelve la ``Ejecucion`` y los resultados."""
    from curso_gpu.distribuido import ejecutar, orden_torchrun

    programa = [str(Path(__file__).resolve()), "--trabajador", str(carpeta), str(ancho), modo]
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
    filas = [("fsdp", gpus)] + ([("una", 1)] if gpus == 1 else [])
    for modo, procesos in filas:
        with tempfile.TemporaryDirectory() as carpeta:
            lineas += _medir_fila(Path(carpeta), modo, procesos, timeout_s)
    if gpus < 2:
        lineas.append("SKIP la fila de FSDP en 2 GPU sigue sin medir: esta máquina tiene una sola GPU")
    return lineas


def _medir_fila(carpeta: Path, modo: str, procesos: int, timeout_s: float) -> list[str]:
    """PASS/FAIL de una fila: ``modo`` («fsdp» o «una») en ``procesos`` GPU, frente a la calculadora."""
    lineas = []

    def anotar(ok: bool, texto: str) -> None:
        lineas.append(f"{'PASS' if ok else 'FAIL'} {texto}")

    fila = f"FSDP en {procesos} GPU" if modo == "fsdp" else "una GPU sin FSDP"
    r, rangos = lanzar(carpeta, procesos, timeout_s, modo=modo)
    anotar(r.bien and len(rangos) == procesos, f"{fila}: torchrun termina bien ({r.segundos:.1f} s) {r.explicacion()}")
    if len(rangos) != procesos:
        return lineas + [f"FAIL salida de torchrun: {r.salida[-1500:]}"]
    anotar(all(x["backend"] == "nccl" for x in rangos), f"{fila}: backend nccl en cada rango: {[x['backend'] for x in rangos]}")
    bien = all(x["tipos"] == {"al calcular": "torch.float16", "guardado (trozo)": "torch.float32",
                              "gradiente (trozo)": "torch.float32"} for x in rangos)
    anotar(bien, f"{fila}: calcula en fp16, guarda y reduce en fp32: {rangos[0]['tipos']}")
    anotar(all(x["escala"] > 0 and x["perdida"] == x["perdida"] for x in rangos),
           f"{fila}: {rangos[0]['escalador']}: escala {rangos[0]['escala']:g}, pérdida finita")
    prevista = memoria_prevista(procesos, modo)
    for x in rangos:
        ok, texto = juzgar_memoria(x["memoria"], prevista.pico_pytorch)
        anotar(ok, f"{fila}, rango {x['rango']}: max_memory_allocated frente a memoria_por_gpu "
                   f"({prevista.momento_pico}): {texto}; max_memory_reserved {x['reservada'] / 2**20:.0f} MiB")
    return lineas


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "--trabajador":
        trabajador(Path(sys.argv[2]), int(sys.argv[3]), sys.argv[4])
    else:
        print("\n".join(comprobar_en_gpu()))
