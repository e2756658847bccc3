"""Comprueba en una GPU CUDA de verdad lo que las lecciones dicen de las GPU.

Para quien mantiene el curso: ejecútalo cada vez que tengas una máquina con GPU NVIDIA.

    python benchmarks/validar_en_gpu.py            # todas las comprobaciones (unos minutos)
    python benchmarks/validar_en_gpu.py --rapido   # matrices y épocas más pequeñas
    python benchmarks/validar_en_gpu.py --json benchmarks/resultados_gpu/t4_colab.json

Con ``--json RUTA`` escribe además lo mismo como datos (la GPU, la fecha, las versiones y una
entrada por afirmación): guárdalo en ``benchmarks/resultados_gpu/`` y el sitio del curso
(``herramientas/sitio.py``) lo muestra. Sin GPU no escribe nada: nunca hay cifras inventadas.

Imprime una línea por afirmación, con la cifra medida y PASS o FAIL. Sale con 0 si todas
pasan y con 1 si alguna falla. Sin GPU CUDA lo dice en una línea y sale con 0.

Los textos y rangos que se comprueban salen de los mismos sitios que leen las lecciones
(``curso_gpu/base/mensajes_torch.py``, ``curso_gpu/base/catalogo.py``): si una comprobación falla, se corrige
el dato allí y la lección cambia sola.

Las lecciones 06 a 09 tienen su punto marcado «GANCHO» (``comprobar_leccion_06``,
``comprobar_leccion_07``, ``comprobar_leccion_08``, ``comprobar_leccion_09``): cada uno llama a la comprobación en GPU
de su lección (``comprobar_en_gpu``) y convierte sus líneas en resultados. La lección 10
(``comprobar_leccion_10``) comprueba aquí mismo la caché KV, el lote y el techo del ancho de banda,
y ``comprobar_leccion_10_qwen`` mide Qwen2.5-0.5B como la sección 6 de la lección (lotes 1, 4 y 16,
con y sin caché, caché estática compilada) frente al techo de la GPU.
La lección 11 (``comprobar_leccion_11``): los kernels de Triton ≡ PyTorch en la GPU y su fracción
del ancho de banda y del pico de la ficha. La lección 12 (``comprobar_leccion_12``): FSDP2 con nccl,
la política fp16 y la memoria de cada GPU frente a ``memoria_por_gpu`` (``benchmarks/fsdp_benchmark.py``).
La lección 13 (``comprobar_leccion_13``): sirve el modelo diminuto con ``transformers serve`` en la GPU (y
con vLLM si está instalado) y hace el mismo barrido de 1, 2, 4 y 8 usuarios
(``benchmarks/servir_benchmark.py``).

Con ``--cuadernos CARPETA`` ejecuta además cada lección entera en la GPU (nbclient, como las
pruebas) y guarda en CARPETA cada notebook ejecutado con sus salidas: una línea PASS/FAIL por
lección, con sus segundos. Con la GPU simulada (``CURSO_GPU_SIMULAR=T4``) no mide nada: sus
cifras no salen de una GPU.
"""

from __future__ import annotations

import argparse
import ast
import datetime as dt
import json
import re
import statistics
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

RAIZ = Path(__file__).resolve().parent.parent
if str(RAIZ) not in sys.path:  # para ejecutarlo sin instalar el paquete
    sys.path.insert(0, str(RAIZ))

import torch  # noqa: E402
from torch import nn  # noqa: E402

SIN_GPU = "Sin GPU CUDA: nada que validar aquí (torch.cuda.is_available() es False)."
CON_SIMULADA = ("GPU simulada (CURSO_GPU_SIMULAR): nada que validar aquí; estas comprobaciones "
                "solo valen en una GPU de verdad.")


# ---------------------------------------------------------------------------
# Resultados (funciones puras: las prueba tests/test_validar_en_gpu.py en CPU)
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Resultado:
    """Una afirmación de una lección, lo que se midió y si se cumple."""

    leccion: str
    afirmacion: str
    medido: str
    pasa: bool

    def linea(self) -> str:
        return f"{'PASS' if self.pasa else 'FAIL'}  [{self.leccion}] {self.afirmacion}: {self.medido}"


def dentro(valor: float, rango: tuple[float, float]) -> bool:
    """¿Está ``valor`` en el rango cerrado ``(mínimo, máximo)``?"""
    minimo, maximo = rango
    return minimo <= valor <= maximo


def porcentaje(valor: float, pico: float) -> float:
    """``valor`` como % de ``pico`` (los dos en las mismas unidades)."""
    if pico <= 0:
        raise ValueError(f"el pico debe ser positivo; recibí {pico!r}")
    return 100.0 * valor / pico


def tflops_matmul(n: int, segundos: float) -> float:
    """TFLOP/s de una multiplicación n×n por n×n (2·n³ operaciones) que tardó ``segundos``."""
    if segundos <= 0:
        raise ValueError(f"los segundos deben ser positivos; recibí {segundos!r}")
    return 2 * n**3 / segundos / 1e12


def informe(resultados: list[Resultado]) -> tuple[str, int]:
    """El texto de todas las líneas más un resumen, y el código de salida (0 si todo pasa)."""
    lineas = [r.linea() for r in resultados]
    fallos = sum(not r.pasa for r in resultados)
    lineas.append(f"{len(resultados) - fallos} de {len(resultados)} afirmaciones se cumplen.")
    return "\n".join(lineas), 1 if fallos else 0


def como_json(gpu: str, resultados: list[Resultado], rapido: bool, fecha: str | None = None) -> dict:
    """Las mismas líneas que imprime ``main``, como datos: lo que escribe ``--json`` y lee el sitio."""
    return {
        "formato": 1,
        "gpu": gpu,
        "fecha": fecha or dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        "rapido": rapido,
        "resultados": [asdict(r) for r in resultados],
        "resumen": informe(resultados)[0].splitlines()[-1],
    }


def guardar_json(ruta: str | Path, datos: dict) -> Path:
    """Escribe ``datos`` en ``ruta`` (JSON legible) de forma atómica: nunca queda un archivo a medias."""
    from curso_gpu.guardado import escribir_atomico

    ruta = Path(ruta)
    ruta.parent.mkdir(parents=True, exist_ok=True)
    texto = json.dumps(datos, ensure_ascii=False, indent=2) + "\n"
    return escribir_atomico(ruta, lambda archivo: archivo.write(texto.encode("utf-8")))


def desde_lineas(leccion: str, lineas: list[str]) -> list[Resultado]:
    """Convierte líneas «PASS texto» / «FAIL texto» de otra comprobación en resultados.

    Las líneas «SKIP …» (algo que no aplica en esta máquina) no cuentan.
    """
    resultados = []
    for linea in lineas:
        estado, _, texto = linea.strip().partition(" ")
        if estado in ("PASS", "FAIL"):
            afirmacion, _, medido = texto.partition(": ")
            resultados.append(Resultado(leccion, afirmacion, medido or "-", estado == "PASS"))
    return resultados


def clase_del_notebook(ruta: Path, nombre: str):
    """Carga una clase definida en un notebook (su ``.py`` de jupytext) sin ejecutar el resto."""
    arbol = ast.parse(ruta.read_text(encoding="utf-8"))
    for nodo in arbol.body:
        if isinstance(nodo, ast.ClassDef) and nodo.name == nombre:
            espacio = {"torch": torch, "nn": nn}
            exec(compile(ast.Module([nodo], []), str(ruta), "exec"), espacio)  # noqa: S102
            return espacio[nombre]
    raise LookupError(f"{ruta.name} no define la clase {nombre}")


def _error_de(funcion) -> str:
    try:
        funcion()
    except Exception as error:  # queremos el texto del error, sea cual sea
        return str(error)
    return "(sin error)"


def _medir(funcion, repeticiones: int = 5) -> float:
    """Mediana de segundos de ``funcion()``, con calentamiento y sincronizando la GPU."""
    funcion()
    torch.cuda.synchronize()
    muestras = []
    for _ in range(repeticiones):
        torch.cuda.synchronize()
        inicio = time.perf_counter()
        funcion()
        torch.cuda.synchronize()
        muestras.append(time.perf_counter() - inicio)
    return statistics.median(muestras)


# ---------------------------------------------------------------------------
# Comprobaciones (necesitan una GPU CUDA)
# ---------------------------------------------------------------------------

def comprobar_mensajes(gpu: torch.device) -> list[Resultado]:
    """Los errores de dispositivo que imprimen las lecciones 01 y 05 son los de PyTorch."""
    from curso_gpu.base import mensajes_torch as m
    from curso_gpu.entrenamiento import CNNPequena

    x_cpu = torch.randn(2, 1, 8, 8)
    casos = [
        ("01", "nn.Linear en la GPU con datos en la CPU", m.MEZCLA_LINEAL,
         lambda: nn.Linear(4, 2).to(gpu)(torch.randn(3, 4))),
        ("05", "CNN en la GPU con datos en la CPU", m.MEZCLA_CONVOLUCION,
         lambda: CNNPequena().to(gpu)(x_cpu)),
        ("05", "CNN en la CPU con datos en la GPU", m.MEZCLA_CONVOLUCION_MODELO_EN_CPU,
         lambda: CNNPequena()(x_cpu.to(gpu))),
        ("05", "suma de un tensor de la CPU y uno de la GPU", m.MEZCLA_SUMA,
         lambda: torch.ones(3) + torch.ones(3, device=gpu)),
    ]
    resultados = []
    for leccion, caso, esperado, funcion in casos:
        real = _error_de(funcion)
        resultados.append(Resultado(leccion, f"mensaje: {caso}", repr(real.splitlines()[0][:160]),
                                    m.coincide(real, esperado)))
    return resultados


# --- Los textos y la memoria que imita la T4 simulada (dispositivo.maquina_simulada) ----------------

_TAMANO = r"([\d.]+ (?:bytes|KiB|MiB|GiB))"
_PATRON_OOM = re.compile(
    rf"CUDA out of memory\. Tried to allocate {_TAMANO}\. GPU \d+ has a total capacity of {_TAMANO} of which "
    rf"{_TAMANO} is free\. (?:(Including non-PyTorch memory, this process has)|Process (\d+) has) {_TAMANO} "
    rf"memory in use\. (?:{_TAMANO} allowed; )?Of the allocated memory {_TAMANO} is allocated by PyTorch, and "
    rf"{_TAMANO} is reserved by PyTorch but unallocated\.")
_UNIDADES = {"bytes": 1, "KiB": 2**10, "MiB": 2**20, "GiB": 2**30}


def bytes_de(texto: str) -> float:
    """«14.74 GiB» → bytes (como los escribe PyTorch en sus mensajes)."""
    numero, unidad = texto.split()
    return float(numero) * _UNIDADES[unidad]


def juzgar_oom(texto: str) -> Resultado:
    """El «CUDA out of memory» de esta GPU: ¿tiene la forma de ``MENSAJE_OOM_CUDA``? Dice qué forma
    («Process N has», la de un contenedor como Colab, que imita la T4 simulada; o «this process has») y
    cuánto ocupa el proceso fuera de PyTorch (en uso − asignada − caché: el contexto de CUDA)."""
    encontrado = _PATRON_OOM.search(texto)
    if encontrado is None:
        return Resultado("07", "el OOM tiene la forma de MENSAJE_OOM_CUDA", repr(texto[:200]), False)
    propio, uso, asignada, cache = encontrado.group(4), encontrado.group(6), encontrado.group(8), encontrado.group(9)
    forma = "«this process has» (fuera de un contenedor)" if propio else "«Process N has» (contenedor, como Colab)"
    contexto = bytes_de(uso) - bytes_de(asignada) - bytes_de(cache)
    return Resultado("07", "el OOM tiene la forma de MENSAJE_OOM_CUDA",
                     f"forma {forma}; fuera de PyTorch {contexto / 2**20:.0f} MiB", True)


def juzgar_contexto(total: int, libre: int, reservada: int, nombre_gpu: str) -> Resultado:
    """``mem_get_info`` justo tras el primer tensor: lo ocupado que PyTorch no reservó es el contexto de
    CUDA. En una T4 se compara con el de la T4 simulada (``PerfilGPU.contexto_cuda_bytes``: entre la mitad
    y el doble); en otra GPU basta con que haya contexto."""
    from curso_gpu.base import GPUS_SIMULABLES

    contexto = total - libre - reservada
    simulado = GPUS_SIMULABLES["T4"].contexto_cuda_bytes
    medido = f"{contexto / 2**20:.0f} MiB fuera de PyTorch (la T4 simulada cuenta {simulado / 2**20:.0f} MiB)"
    if "T4" in nombre_gpu:
        return Resultado("04", "contexto de CUDA tras el primer tensor ≈ el de la T4 simulada", medido,
                         simulado / 2 <= contexto <= 2 * simulado)
    return Resultado("04", "hay un contexto de CUDA tras el primer tensor", medido, contexto > 0)


def juzgar_numpy(texto: str) -> Resultado:
    """``.numpy()`` de un tensor de la GPU: el texto que da la T4 simulada (``NUMPY_EN_GPU``)."""
    from curso_gpu.base import NUMPY_EN_GPU

    esperado = NUMPY_EN_GPU.format(dispositivo="cuda:0")
    return Resultado("05", "mensaje: .numpy() de un tensor de la GPU", repr(texto[:160]), texto.strip() == esperado)


def comprobar_textos_simulados(gpu: torch.device) -> list[Resultado]:
    """Lo que imita la T4 simulada, en una GPU de verdad. Va la primera: mide el contexto recién creado."""
    primero = torch.ones(1, device=gpu)
    libre, total = torch.cuda.mem_get_info(gpu)
    resultados = [juzgar_contexto(total, libre, torch.cuda.memory_reserved(gpu), torch.cuda.get_device_name(gpu)),
                  juzgar_numpy(_error_de(lambda: primero.numpy()))]
    temporal = torch.empty(3 * 2**20, dtype=torch.uint8, device=gpu)
    del temporal  # deja memoria en la caché, que el OOM cuenta como «reserved but unallocated»
    resultados.append(juzgar_oom(_error_de(lambda: torch.empty(2 * total, dtype=torch.uint8, device=gpu))))
    del primero
    torch.cuda.empty_cache()
    return resultados


def comprobar_matmul(gpu: torch.device, rapido: bool) -> list[Resultado]:
    """% del pico por tipo de dato, dentro de los rangos que citan la lección 03 y ``picos``."""
    from curso_gpu.base import picos

    nombre = torch.cuda.get_device_name(gpu)
    n = 4096 if rapido else 8192
    resultados = []
    for modo, dtype in (("fp32", torch.float32), ("fp16", torch.float16), ("bf16", torch.bfloat16)):
        pico = picos.pico_teorico(nombre, modo)
        rango = picos.rango_porcentaje(nombre, modo)
        if pico is None or rango is None:
            continue  # esta GPU no tiene ese modo, o la lección no cita un rango para ella
        a = torch.randn(n, n, device=gpu, dtype=dtype)
        b = torch.randn(n, n, device=gpu, dtype=dtype)
        segundos = _medir(lambda: a @ b)
        medido = tflops_matmul(n, segundos)
        por_ciento = porcentaje(medido, pico)
        resultados.append(Resultado(
            "03", f"matmul {modo} n={n} en {nombre} entre el {rango[0]:g} y el {rango[1]:g} % del pico",
            f"{medido:.1f} TFLOP/s = {por_ciento:.0f} % de {pico:g}", dentro(por_ciento, rango)))
        del a, b
    torch.cuda.empty_cache()
    return resultados


def comprobar_sin_sincronizar(gpu: torch.device) -> list[Resultado]:
    """Sin sincronizar, la medida sale muchísimo más corta (la lección 03 habla de miles de veces)."""
    from curso_gpu.medicion import medir_sin_sincronizar

    r = medir_sin_sincronizar(4096, gpu, repeticiones=5)
    mal, bien = r.sin_sincronizar.mediana, r.con_sincronizar.mediana
    razon = bien / max(mal, 1e-9)
    return [Resultado("03", "medir sin sincronizar da un tiempo al menos 10 veces menor",
                      f"{mal * 1e3:.3f} ms frente a {bien * 1e3:.2f} ms ({razon:.0f}x)", razon >= 10)]


def comprobar_memoria_leccion04(gpu: torch.device) -> list[Resultado]:
    """Los pesos fp16 medidos = la estimación; y el pico con 1024 tokens, frente al +20 %."""
    from curso_gpu.memoria import memoria_inferencia, memoria_pesos

    GPT2Pequeno = clase_del_notebook(RAIZ / "notebooks" / "04_estimar_vram.py", "GPT2Pequeno")
    torch.manual_seed(0)
    modelo = GPT2Pequeno().to(gpu, torch.float16).eval()
    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()
    pesos = torch.cuda.memory_allocated()
    with torch.no_grad():
        modelo(torch.randint(0, 50257, (1, 1024), device=gpu))
    torch.cuda.synchronize()
    pico = torch.cuda.max_memory_allocated()
    estimado_pesos = memoria_pesos(modelo, "fp16")
    estimado_uso = memoria_inferencia(modelo, "fp16")
    del modelo
    torch.cuda.empty_cache()
    return [
        Resultado("04", "los pesos fp16 de GPT2Pequeno ocupan lo que dice memoria_pesos (±2 %)",
                  f"medido {pesos / 1e6:.0f} MB, estimado {estimado_pesos / 1e6:.0f} MB",
                  abs(pesos - estimado_pesos) <= 0.02 * estimado_pesos),
        Resultado("04", "con 1024 tokens el pico supera los pesos: en un modelo pequeño las activaciones pesan",
                  f"pico {pico / 1e6:.0f} MB = {pico / pesos:.2f} × los pesos; estimación +20 %: "
                  f"{estimado_uso / 1e6:.0f} MB", pico > pesos),
    ]


def comprobar_tiempos_leccion05(gpu: torch.device, rapido: bool) -> list[Resultado]:
    """El modelo pequeño apenas gana en la GPU; el ampliado gana del orden de 10 veces."""
    from curso_gpu.entrenamiento import generar_dataset
    from curso_gpu.entrenamiento import entrenar
    from curso_gpu.entrenamiento import CNNPequena

    def por_epoca(crear, ent, val, donde, epocas):
        torch.manual_seed(0)
        return entrenar(crear(), ent, val, donde, epocas=epocas, silencioso=True).segundos / epocas

    def ampliado():
        return CNNPequena(canales=(64, 128), ocultas=256)

    pequeno = (generar_dataset(120, semilla=1), generar_dataset(60, semilla=2))
    grande = (generar_dataset(400, semilla=5), generar_dataset(40, semilla=6))
    epocas = 10 if rapido else 30
    acel_pequeno = por_epoca(CNNPequena, *pequeno, "cpu", epocas) / por_epoca(CNNPequena, *pequeno, gpu, epocas)
    acel_grande = por_epoca(ampliado, *grande, "cpu", 3) / por_epoca(ampliado, *grande, gpu, epocas)
    return [
        Resultado("05", "el modelo pequeño no va mucho más rápido en la GPU (menos de 3x)",
                  f"{acel_pequeno:.1f}x (CPU de {torch.get_num_threads()} hilos)", acel_pequeno < 3),
        Resultado("05", "el modelo ampliado va del orden de 10 veces más rápido o más (al menos 5x)",
                  f"{acel_grande:.1f}x (CPU de {torch.get_num_threads()} hilos)", acel_grande >= 5),
    ]


def comprobar_checkpoints_leccion05(gpu: torch.device) -> list[Resultado]:
    """Un checkpoint escrito en la GPU se carga en la CPU; cortar y reanudar da el mismo modelo."""
    from curso_gpu.guardado import carpeta_checkpoints
    from curso_gpu.entrenamiento import generar_dataset
    from curso_gpu.entrenamiento import entrenar
    from curso_gpu.entrenamiento import CNNPequena

    ent, val = generar_dataset(60, semilla=1), generar_dataset(20, semilla=2)

    class Corte(Exception):
        pass

    def cortar_en_7(registro):
        if registro.epoca >= 7:
            raise Corte

    with tempfile.TemporaryDirectory() as temporal:
        opciones = dict(base=temporal, cada=5, silenciosa=True)
        torch.manual_seed(24)
        entero = CNNPequena()
        entrenar(entero, ent, val, gpu, epocas=20, lr=0.01, silencioso=True, semilla=24)

        torch.manual_seed(24)
        cortado = CNNPequena()
        try:
            entrenar(cortado, ent, val, gpu, epocas=20, lr=0.01, silencioso=True, semilla=24,
                     checkpoints=carpeta_checkpoints("validar", reanudar=False, **opciones), al_registrar=cortar_en_7)
        except Corte:
            pass
        carpeta = carpeta_checkpoints("validar", reanudar=True, **opciones)
        en_cpu = carpeta.cargar_ultimo(torch.device("cpu"))
        dispositivos = {t.device.type for t in en_cpu["modelo"].values()} if en_cpu else set()

        torch.manual_seed(24)
        reanudado = CNNPequena()
        entrenar(reanudado, ent, val, gpu, epocas=20, lr=0.01, silencioso=True, semilla=24,
                 checkpoints=carpeta)
    diferencia = max((a - b).abs().max().item() for a, b in zip(entero.parameters(), reanudado.parameters()))
    return [
        Resultado("05", "un checkpoint escrito en la GPU se carga en la CPU",
                  f"tensores en {sorted(dispositivos) or 'ninguno'}", dispositivos == {"cpu"}),
        Resultado("05", "cortar y reanudar en CUDA da el mismo modelo que sin cortar",
                  f"diferencia máxima de pesos {diferencia:.2e}", diferencia <= 1e-5),
    ]


def _comprobacion_de_benchmark(archivo: str):
    """La función ``comprobar_en_gpu`` de otro guion de ``benchmarks/`` (líneas PASS/FAIL)."""
    import importlib.util

    ruta = RAIZ / "benchmarks" / archivo
    spec = importlib.util.spec_from_file_location(ruta.stem, ruta)
    modulo = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = modulo  # las dataclasses del guion lo buscan ahí
    spec.loader.exec_module(modulo)
    return modulo.comprobar_en_gpu


# --- GANCHO lección 06: rendimiento y precisión mixta -------------------------------------
def comprobar_leccion_06(gpu: torch.device, rapido: bool) -> list[Resultado]:
    """GANCHO de la lección 06: ganancia de la precisión mixta y del cargador de datos.

    Llama a ``comprobar_en_gpu`` de ``benchmarks/rendimiento_benchmark.py``.
    """
    comprobar = _comprobacion_de_benchmark("rendimiento_benchmark.py")
    return desde_lineas("06", comprobar(gpu, segundos=1.0 if rapido else 2.0))


# --- GANCHO lección 07: memoria al entrenar ---------------------------------------------------
def comprobar_leccion_07(gpu: torch.device, rapido: bool) -> list[Resultado]:
    """GANCHO de la lección 07: la memoria de entrenar medida frente al pico real y ``lote_maximo``.

    Llama a ``comprobar_en_gpu`` de ``benchmarks/memoria_entrenamiento_benchmark.py``.
    """
    comprobar = _comprobacion_de_benchmark("memoria_entrenamiento_benchmark.py")
    return desde_lineas("07", comprobar(str(gpu)))


# --- GANCHO lección 08: varias GPU --------------------------------------------------------------
def comprobar_leccion_08(gpu: torch.device, rapido: bool) -> list[Resultado]:
    """GANCHO de la lección 08: DDP con el backend ``nccl`` (con una o varias GPU).

    Llama a ``comprobar_en_gpu`` de ``benchmarks/ddp_benchmark.py`` (``torchrun`` con tiempo límite).
    """
    comprobar = _comprobacion_de_benchmark("ddp_benchmark.py")
    return desde_lineas("08", comprobar(timeout_s=300))


# --- GANCHO lección 12: FSDP2 ---------------------------------------------------------------------
def comprobar_leccion_12(gpu: torch.device, rapido: bool) -> list[Resultado]:
    """GANCHO de la lección 12: ``fully_shard`` con nccl en 1 o 2 GPU, la política fp16 (calcula en fp16,
    guarda y reduce en fp32, con ``torch.amp.GradScaler``) y la memoria de cada GPU frente a la calculadora.

    Llama a ``comprobar_en_gpu`` de ``benchmarks/fsdp_benchmark.py`` (``torchrun`` con tiempo límite).
    """
    comprobar = _comprobacion_de_benchmark("fsdp_benchmark.py")
    return desde_lineas("12", comprobar(timeout_s=300))


# --- GANCHO lección 09: LoRA y QLoRA -------------------------------------------------------------
def comprobar_leccion_09(gpu: torch.device, rapido: bool) -> list[Resultado]:
    """GANCHO de la lección 09: cargar en 4 bits, unos pasos de LoRA/QLoRA y la memoria frente a
    ``memoria_ajuste``.

    Llama a ``comprobar_en_gpu`` de ``benchmarks/ajuste_lora_benchmark.py`` (sin red: Qwen2.5-0.5B
    con pesos al azar).
    """
    comprobar = _comprobacion_de_benchmark("ajuste_lora_benchmark.py")
    return desde_lineas("09", comprobar(gpu))


# --- GANCHO lección 13: servir un modelo -----------------------------------------------------------
def comprobar_leccion_13(gpu: torch.device, rapido: bool) -> list[Resultado]:
    """GANCHO de la lección 13: el modelo diminuto servido por ``transformers serve`` en la GPU (y por
    vLLM donde está instalado), con el barrido de 1, 2, 4 y 8 usuarios de la lección.

    Llama a ``comprobar_en_gpu`` de ``benchmarks/servir_benchmark.py`` (sin red: el modelo se guarda en
    una carpeta temporal; todo en 127.0.0.1).
    """
    comprobar = _comprobacion_de_benchmark("servir_benchmark.py")
    return desde_lineas("13", comprobar(gpu, rapido))


# --- GANCHO lección 10: generar texto -------------------------------------------------------------
def comprobar_leccion_10(gpu: torch.device, rapido: bool) -> list[Resultado]:
    """GANCHO de la lección 10: la caché KV, el techo del ancho de banda y el lote, en la GPU.

    Con el modelo diminuto de la lección 09 (sin descargas): la caché medida en fp16 es la de
    ``bytes_cache_kv``; el texto voraz con y sin caché es el mismo; el ancho de banda medido no
    pasa del de la ficha (si lo pasa, la tabla está mal); los tokens/s con lote 1 no pasan de su
    techo, y el lote 16 da al menos 4 veces los tokens/s del lote 1.
    """
    from curso_gpu.ajuste import modelo_diminuto
    from curso_gpu.base import picos_de
    from curso_gpu.generacion import (bytes_cache_kv, medir_ancho_de_banda, medir_generacion,
                                      techo_tokens_por_segundo)

    nombre = torch.cuda.get_device_name(gpu)
    modelo, tokenizador = modelo_diminuto(semilla=0)
    modelo.to(gpu)
    entrada = tokenizador("La GPU hace muchas cuentas a la vez.", return_tensors="pt").to(gpu)
    opciones = dict(max_new_tokens=40, do_sample=False, pad_token_id=tokenizador.pad_token_id)
    con = modelo.generate(**entrada, use_cache=True, **opciones)
    sin = modelo.generate(**entrada, use_cache=False, **opciones)
    resultados = [Resultado("10", "voraz con y sin caché da el mismo texto en la GPU (fp32)",
                            f"{con.shape[1]} tokens", torch.equal(con, sin))]

    modelo.to(gpu, torch.float16)
    textos = ["La GPU hace muchas cuentas a la vez.", "Hola", "Mide antes de creer."]
    nuevos = 16 if rapido else 64
    uno = medir_generacion(modelo, tokenizador, textos[:1], max_tokens_nuevos=nuevos, dispositivo=gpu)
    lote = medir_generacion(modelo, tokenizador, [textos[i % 3] for i in range(16)],
                            max_tokens_nuevos=nuevos, dispositivo=gpu)
    esperado = bytes_cache_kv(modelo.config, lote.tokens_entrada + lote.pasos - 1, lote=16, bytes_por_valor=2)
    resultados.append(Resultado("10", "la caché KV medida en fp16 es la de bytes_cache_kv",
                                f"medida {lote.bytes_cache} B, calculada {esperado} B", lote.bytes_cache == esperado))
    veces = lote.tokens_por_segundo / uno.tokens_por_segundo
    resultados.append(Resultado("10", "el lote 16 da al menos 4 veces los tokens/s del lote 1",
                                f"{uno.tokens_por_segundo:.0f} → {lote.tokens_por_segundo:.0f} tokens/s ({veces:.1f}x)",
                                veces >= 4))
    fila = picos_de(nombre)
    if fila is None or fila.ancho_de_banda_gb_s is None:
        return resultados  # la GPU no está en la tabla: no hay cifra de ficha con la que comparar
    medido = medir_ancho_de_banda(gpu, megabytes=256 if rapido else 1024)
    resultados.append(Resultado("10", f"el ancho de banda medido (copiar) no pasa del de la ficha de {fila.nombre}",
                                f"{medido:.0f} GB/s = {porcentaje(medido, fila.ancho_de_banda_gb_s):.0f} % de "
                                f"{fila.ancho_de_banda_gb_s:g}", medido <= fila.ancho_de_banda_gb_s))
    bytes_pesos = sum(p.numel() * p.element_size() for p in modelo.parameters())
    techo = techo_tokens_por_segundo(bytes_pesos, nombre)
    resultados.append(Resultado("10", "los tokens/s con lote 1 no pasan del techo del ancho de banda",
                                f"{uno.tokens_por_segundo_generando:.0f} tokens/s generando; techo {techo:.0f}",
                                uno.tokens_por_segundo_generando <= techo))
    del modelo
    torch.cuda.empty_cache()
    return resultados


# --- Lección 11: kernels de Triton -----------------------------------------------------------------
def comprobar_leccion_11(gpu: torch.device, rapido: bool) -> list[Resultado]:
    """Lección 11: los kernels de Triton del curso, compilados en la GPU, dan lo mismo que PyTorch, y
    su ritmo medido (alternado con PyTorch, ``comparar_tiempos``) como fracción de la ficha.

    suma y softmax: GB/s (bytes de ``trafico_suma`` / ``trafico_softmax``) ÷ ancho de banda de la
    ficha; matmul fp16: TFLOP/s ÷ el pico de ``tl.dot`` en esa GPU (``techo_tl_dot``: el fp16 de los
    Tensor Cores desde la capacidad 8.0; en una T4, el fp32, 8.1). Pasar de 1 es imposible (la
    medida o la tabla están mal).
    """
    from curso_gpu.base import picos_de
    from curso_gpu.kernels import (COMPILADO, flops_matmul, matmul_teselas, modo_triton, softmax_filas, suma,
                                   techo_tl_dot, trafico_softmax, trafico_suma, triton_instalado)
    from curso_gpu.medicion import comparar_tiempos

    if not triton_instalado():
        return [Resultado("11", "triton está instalado (el PyTorch con CUDA de Linux lo trae)", "no está", False)]
    modo = modo_triton()
    resultados = [Resultado("11", "con GPU CUDA los kernels del curso se compilan", modo, modo == COMPILADO)]
    generador = torch.Generator(device=gpu).manual_seed(0)

    def aleatorio(*forma, dtype=torch.float32):
        return torch.randn(*forma, device=gpu, generator=generador).to(dtype)

    x, y = aleatorio(98_765), aleatorio(98_765)
    iguales = torch.equal(suma(x, y), x + y)
    resultados.append(Resultado("11", "suma ≡ x + y en la GPU (98 765 elementos, fp32)",
                                "idénticos" if iguales else "distintos", iguales))
    s = aleatorio(1823, 781) * 5
    s[0, :400] = -float("inf")
    s[1] = -float("inf")
    for bloque, cuando in ((None, "de una vez"), (64, "a trozos de 64")):
        resultado = softmax_filas(s, bloque=bloque)
        diferencia = (resultado - torch.softmax(s, dim=1)).nan_to_num(0.0).abs().max().item()
        nan_igual = bool(torch.isnan(resultado[1]).all())  # una fila toda -inf: NaN, como PyTorch
        resultados.append(Resultado("11", f"softmax_filas ≡ torch.softmax (1823 × 781 con -inf, {cuando})",
                                    f"máxima diferencia {diferencia:.1e}", diferencia <= 1e-5 and nan_igual))
    for dtype, tolerancia in ((torch.float16, 1e-2), (torch.float32, 1e-2)):  # fp32: TF32 en A100/H100
        a, b = aleatorio(257, 129, dtype=dtype), aleatorio(129, 383, dtype=dtype)
        esperado = (a.float() @ b.float())
        diferencia = ((matmul_teselas(a, b).float() - esperado).abs().max() / esperado.abs().max()).item()
        resultados.append(Resultado("11", f"matmul_teselas ≡ a @ b (257×129 @ 129×383, {str(dtype)[6:]})",
                                    f"diferencia relativa {diferencia:.1e}", diferencia <= tolerancia))

    ficha = picos_de(torch.cuda.get_device_name(gpu))
    import triton

    techo_dot = techo_tl_dot(torch.cuda.get_device_name(gpu), torch.float16, torch.cuda.get_device_capability(gpu),
                             version_triton=triton.__version__)
    n = 2**22 if rapido else 2**26
    filas = 2048 if rapido else 8192
    lado = 2048 if rapido else 4096
    x, y = aleatorio(n), aleatorio(n)
    m = aleatorio(filas, 4096)
    a, b = aleatorio(lado, lado, dtype=torch.float16), aleatorio(lado, lado, dtype=torch.float16)
    medidas = [("suma", lambda: suma(x, y), lambda: x + y, trafico_suma(n).total / 1e9, "GB/s",
                ficha.ancho_de_banda_gb_s if ficha else None),
               ("softmax_filas", lambda: softmax_filas(m), lambda: torch.softmax(m, dim=1),
                trafico_softmax(filas, 4096).total / 1e9, "GB/s", ficha.ancho_de_banda_gb_s if ficha else None),
               ("matmul_teselas fp16", lambda: matmul_teselas(a, b), lambda: a @ b,
                flops_matmul(lado, lado, lado) / 1e12, "TFLOP/s", techo_dot.tflops if techo_dot else None)]
    for nombre, nuestro, de_torch, cantidad, unidad, techo in medidas:
        c = comparar_tiempos(nuestro, de_torch, nombres=("Triton", "PyTorch"), dispositivo=gpu,
                             presupuesto_s=1.0 if rapido else 3.0)
        ritmo, ritmo_torch = cantidad / c.mediana_a, cantidad / c.mediana_b
        if techo is None:
            resultados.append(Resultado("11", f"{nombre}: ritmo medido (GPU sin ficha en la tabla)",
                                        f"{ritmo:.1f} {unidad}; PyTorch {ritmo_torch:.1f}", True))
            continue
        resultados.append(Resultado("11", f"{nombre}: fracción de la ficha ({techo:g} {unidad}) ≤ 1",
                                    f"{ritmo:.1f} {unidad} = {ritmo / techo:.2f} de la ficha; PyTorch "
                                    f"{ritmo_torch / techo:.2f}; Triton/PyTorch {ritmo / ritmo_torch:.2f}",
                                    ritmo <= techo))
    return resultados


def resultados_de_barrido(barrido) -> list[Resultado]:
    """Lo que la lección 10 dice de Qwen2.5-0.5B en una GPU, frente a un ``BarridoGeneracion`` medido.

    Función pura (la prueba ``tests/test_validar_en_gpu.py`` en CPU con un barrido hecho a mano).
    """
    from curso_gpu.generacion import VARIANTES

    CON_CACHE, SIN_CACHE, ESTATICA = VARIANTES

    resultados = []
    uno, dieciseis = barrido.fila(CON_CACHE, 1), barrido.fila(CON_CACHE, 16)
    if uno is not None and dieciseis is not None:
        veces = dieciseis.tokens_por_segundo / uno.tokens_por_segundo
        resultados.append(Resultado("10", "Qwen2.5-0.5B: el lote 16 da al menos 4 veces los tokens/s del lote 1",
                                    f"{uno.tokens_por_segundo:.0f} → {dieciseis.tokens_por_segundo:.0f} tokens/s "
                                    f"({veces:.1f}x)", veces >= 4))
    sin = barrido.fila(SIN_CACHE, 16)
    if dieciseis is not None and sin is not None:
        veces = dieciseis.tokens_por_segundo / sin.tokens_por_segundo
        resultados.append(Resultado("10", "Qwen2.5-0.5B: con lote 16, la caché da más tokens/s que sin caché",
                                    f"{veces:.2f}x", veces > 1))
    estatica = next((f for f in barrido.filas if f.variante == ESTATICA), None)
    techo = barrido.techo(1)
    if techo is None:
        resultados.append(Resultado("10", "una GPU fuera de la tabla: la lección mide sin techo y lo dice",
                                    f"{uno.tokens_por_segundo:.0f} tokens/s con lote 1" if uno else "sin medida",
                                    uno is not None and any("No conozco su ancho de banda" in f for f in barrido.frases())))
        return resultados
    for fila, que in ((uno, "generate tal cual"), (estatica, "caché estática + torch.compile")):
        if fila is not None:
            resultados.append(Resultado("10", f"Qwen2.5-0.5B en fp16, lote 1, {que}: no pasa del techo del ancho de banda",
                                        f"{fila.tokens_por_segundo:.0f} tokens/s = "
                                        f"{porcentaje(fila.tokens_por_segundo, techo):.0f} % de {techo:.0f}",
                                        fila.tokens_por_segundo <= techo))
    if uno is not None:
        resultados.append(Resultado("10", "Qwen2.5-0.5B: generate tal cual queda muy por debajo del techo (< 70 %)",
                                    f"{porcentaje(uno.tokens_por_segundo, techo):.0f} %",
                                    porcentaje(uno.tokens_por_segundo, techo) < 70))
    return resultados


def comprobar_leccion_10_qwen(gpu: torch.device, rapido: bool) -> list[Resultado]:
    """La sección 6 de la lección 10: Qwen2.5-0.5B en fp16 (con el adaptador de la 09 si está), lotes
    de 1, 4 y 16 con y sin caché y la caché estática compilada, frente al techo de esta GPU.

    Descarga el modelo (~1 GB) la primera vez; sin red ni copia guardada, lo dice y no comprueba nada.
    """
    from curso_gpu.generacion import (ADAPTADOR_QWEN, VARIANTES, buscar_adaptador, cargar_para_generar,
                                      medir_barrido)

    try:
        modelo, tokenizador = cargar_para_generar("Qwen/Qwen2.5-0.5B", gpu, adaptador=buscar_adaptador(ADAPTADOR_QWEN))
    except OSError as error:
        print(f"(lección 10: no pude cargar Qwen2.5-0.5B, sin comprobar: {error})")
        return []
    frases = ["La GPU hace muchas cuentas a la vez.", "Una T4 tiene dieciséis gigas de memoria.",
              "Mide antes de creer y anota lo que ves."]
    barrido = medir_barrido(modelo, tokenizador, frases, lotes=(1, 4, 16), variantes=VARIANTES,
                            max_tokens_nuevos=32 if rapido else 64, repeticiones=3,
                            nombre_gpu=torch.cuda.get_device_name(gpu))
    print(barrido)
    print(*barrido.frases(), sep="\n")
    del modelo
    torch.cuda.empty_cache()
    return resultados_de_barrido(barrido)


def comprobar_cuadernos(carpeta: str | Path, notebooks: Path = RAIZ / "notebooks") -> list[Resultado]:
    """Cada lección, ejecutada entera en esta GPU; los notebooks con sus salidas quedan en ``carpeta``."""
    import nbformat

    sys.path.insert(0, str(RAIZ / "tests"))
    from ejecucion_compartida import LeccionFallida, comprobar_sin_stderr, ejecutar_notebook

    carpeta = Path(carpeta)
    carpeta.mkdir(parents=True, exist_ok=True)
    resultados = []
    for ruta in sorted(Path(notebooks).glob("[0-9][0-9]_*.ipynb")):
        inicio = time.monotonic()
        try:
            cuaderno = ejecutar_notebook(ruta)
            nbformat.write(cuaderno, carpeta / ruta.name)
            comprobar_sin_stderr(cuaderno, ruta.name)
            medido, pasa = f"{time.monotonic() - inicio:.1f} s, sin errores ni stderr", True
        except LeccionFallida as error:
            medido, pasa = str(error).splitlines()[0][:300], False
        resultados.append(Resultado(ruta.name[:2], "la lección se ejecuta entera en esta GPU", medido, pasa))
        print(resultados[-1].linea(), flush=True)
    return resultados


def comprobaciones(rapido: bool):
    """Las comprobaciones en orden: (nombre, función que recibe el dispositivo)."""
    return [
        ("textos y memoria de la T4 simulada", comprobar_textos_simulados),  # la primera: el contexto recién creado
        ("mensajes de error", comprobar_mensajes),
        ("matmul y % del pico", lambda g: comprobar_matmul(g, rapido)),
        ("medir sin sincronizar", comprobar_sin_sincronizar),
        ("memoria de la lección 04", comprobar_memoria_leccion04),
        ("CPU frente a GPU de la lección 05", lambda g: comprobar_tiempos_leccion05(g, rapido)),
        ("checkpoints de la lección 05", comprobar_checkpoints_leccion05),
        ("lección 06", lambda g: comprobar_leccion_06(g, rapido)),
        ("lección 07", lambda g: comprobar_leccion_07(g, rapido)),
        ("lección 08", lambda g: comprobar_leccion_08(g, rapido)),
        ("lección 09", lambda g: comprobar_leccion_09(g, rapido)),
        ("lección 10", lambda g: comprobar_leccion_10(g, rapido)),
        ("lección 10 con Qwen2.5-0.5B", lambda g: comprobar_leccion_10_qwen(g, rapido)),
        ("lección 11", lambda g: comprobar_leccion_11(g, rapido)),
        ("lección 12", lambda g: comprobar_leccion_12(g, rapido)),
        ("lección 13", lambda g: comprobar_leccion_13(g, rapido)),
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Comprueba en una GPU CUDA lo que dicen las lecciones.")
    parser.add_argument("--rapido", action="store_true", help="matrices y épocas más pequeñas")
    parser.add_argument("--json", metavar="RUTA", help="escribe además los resultados como datos en RUTA "
                        "(por ejemplo benchmarks/resultados_gpu/t4_colab.json)")
    parser.add_argument("--cuadernos", metavar="CARPETA", help="ejecuta además cada lección entera en la GPU "
                        "y guarda en CARPETA los notebooks con sus salidas")
    args = parser.parse_args(argv)
    from curso_gpu.dispositivo import simulacion_activa

    if simulacion_activa():
        print(CON_SIMULADA)
        return 0
    if not torch.cuda.is_available():
        print(SIN_GPU)
        return 0
    gpu = torch.device("cuda:0")
    nombre_gpu = torch.cuda.get_device_name(gpu)
    print(f"GPU: {nombre_gpu} · torch {torch.__version__} · CUDA {torch.version.cuda}")
    resultados: list[Resultado] = []
    for nombre, funcion in comprobaciones(args.rapido):
        try:
            nuevos = funcion(gpu)
        except Exception as error:  # una comprobación rota es un FAIL, no el fin de las demás
            nuevos = [Resultado("--", f"{nombre} no se pudo ejecutar", f"{type(error).__name__}: {error}", False)]
        for r in nuevos:
            print(r.linea(), flush=True)
        resultados += nuevos
    if args.cuadernos:
        resultados += comprobar_cuadernos(args.cuadernos)
    texto, codigo = informe(resultados)
    print(texto.splitlines()[-1])
    if args.json:
        print(f"Resultados guardados en {guardar_json(args.json, como_json(nombre_gpu, resultados, args.rapido))}")
    return codigo


if __name__ == "__main__":
    sys.exit(main())
