"""Entradas hostiles: ¿qué responde cada función pública a lo que escribiría un alumno descuidado?

Para cada función de las lecciones 01–08, aparte las de las lecciones 09–10 (con las ayudas de
medir que comparten, ``comparar_tiempos`` y ``comparar_muestras``) y aparte los lanzadores de la
lección 11 (``curso_gpu.kernels``, con el intérprete de Triton si no hay GPU) se parte de una llamada que
funciona y se cambia **un** argumento por un valor hostil: un tipo equivocado, un booleano, NaN o
infinito, un negativo, un cero, un número enorme, algo vacío, ``None`` y, en las rutas, una vacía,
un archivo donde va una carpeta, un enlace simbólico, una carpeta de solo lectura o un carácter
nulo. Cada llamada tiene un tiempo límite. La respuesta se clasifica en:

- **clara**: una excepción cuyo mensaje está en español y nombra el argumento;
- **traza**: una excepción en inglés o de las tripas (torch, transformers, peft, NumPy...);
- **silenciosa**: la función devolvió algo como si nada;
- **colgada**: pasó el tiempo límite sin terminar.

    python benchmarks/entradas_hostiles.py [--limite-s 20] [--grupo 01-08|09-10|11] [--detalle]

Además, al principio de cada grupo, los casos que encontró la sonda oculta del issue 48 (un modelo en
``meta``, ``MASTER_PORT=99999``, ``WORLD_SIZE=2`` sin ``torchrun``, ``torch.matmul`` donde va una función
sin argumentos, ``lr=1e10``, el ``GPT2Pequeno`` del curso en ``aplicar_lora``...).

Imprime, por grupo, cuántas de cada clase y el porcentaje de claras, y la lista de las que no lo
fueron. Solo Linux/macOS (el tiempo límite usa ``SIGALRM``). Como superusuario, una carpeta de
solo lectura no lo es (root escribe en ella): esos casos se saltan y se dice.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import re
import signal
import sys
import tempfile
import time
import warnings
from collections import Counter
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path

RAIZ = Path(__file__).resolve().parent.parent
if str(RAIZ) not in sys.path:
    sys.path.insert(0, str(RAIZ))

import torch  # noqa: E402


class _Colgada(BaseException):
    """El tiempo límite de una llamada (BaseException: ningún ``except Exception`` la atrapa)."""


def _alarma(signum, frame):
    raise _Colgada()


# ---------------------------------------------------------------------------
# Valores hostiles por clase de argumento
# ---------------------------------------------------------------------------

class _Raro:
    def __repr__(self):
        return "<objeto raro>"


NAN, INF = float("nan"), float("inf")
ENTERO = [("texto", "3"), ("decimal", 2.5), ("bool", True), ("None", None), ("NaN", NAN), ("inf", INF),
          ("negativo", -1), ("cero", 0), ("enorme", 10**30), ("lista", [3]), ("objeto", _Raro())]
ENTERO0 = [v for v in ENTERO if v[0] != "cero"]
SEMILLA = [v for v in ENTERO0 if v[0] != "None"]  # None es «sin semilla» donde se acepta
REAL = [("texto", "0.1"), ("bool", True), ("None", None), ("NaN", NAN), ("inf", INF), ("-inf", -INF),
        ("negativo", -1.0), ("cero", 0), ("complejo", 1j), ("lista", [1.0]), ("Decimal NaN", Decimal("NaN"))]
REAL0 = [v for v in REAL if v[0] != "cero"]
PROB = [("texto", "0.1"), ("bool", True), ("None", None), ("NaN", NAN), ("inf", INF), ("negativo", -0.1),
        ("uno", 1.0), ("enorme", 1e300), ("lista", [0.1])]
TEXTO = [("número", 42), ("None", None), ("bool", True), ("vacío", ""), ("desconocido", "no-existe-esto"),
         ("lista", ["x"])]
FUNCION = [("número", 42), ("texto", "lambda: 1"), ("con argumento", lambda x: x), ("None", None)]
MODELO = [("None", None), ("número", 42), ("texto", "modelo"), ("objeto", _Raro()), ("lista", [])]
TENSOR = [("None", None), ("texto", "datos"), ("número", 3), ("vacío", torch.empty(0))]
DISPOSITIVO = [("número", 42), ("desconocido", "gpu9"), ("bool", True), ("vacío", ""), ("lista", ["cpu"])]
MUESTRAS = [("vacía", []), ("ceros", [0.0, 0.0, 0.0]), ("negativos", [-1.0, -1.0, -1.0]), ("NaN", [NAN] * 3),
            ("inf", [INF] * 3), ("texto", "0.1"), ("None", None), ("mezcla", [0.1, "x", 0.1]),
            ("bools", [True, True, True])]


def _rutas(tmp: Path, carpeta: bool) -> list[tuple[str, object]]:
    archivo = tmp / "ya_existe.txt"
    archivo.write_text("no me pises")
    objetivo = tmp / "objetivo"
    objetivo.mkdir(exist_ok=True)
    enlace = tmp / f"enlace_{'c' if carpeta else 'a'}"
    if not enlace.exists():
        enlace.symlink_to(objetivo if carpeta else archivo)
    solo_lectura = tmp / "solo_lectura"
    solo_lectura.mkdir(exist_ok=True)
    os.chmod(solo_lectura, 0o555)
    valores = [("vacía", ""), ("None", None), ("número", 42), ("nulo", str(tmp / "a\0b")),
               ("enlace", str(enlace)),
               ("bool", True)]
    valores.append(("archivo existente", str(archivo)) if carpeta else ("carpeta", str(objetivo)))
    if not carpeta:  # una carpeta nueva puede crear las de encima (comprobar_destino); un archivo, no
        valores.append(("sin carpeta padre", str(tmp / "no" / "existe" / "x")))
    if not carpeta:
        valores.append(("archivo existente", str(archivo)))
    if os.geteuid() != 0:
        valores.append(("solo lectura", str(solo_lectura / "dentro")))
    return valores


# ---------------------------------------------------------------------------
# Clasificar una respuesta
# ---------------------------------------------------------------------------

# Palabras sin tilde: el mensaje se compara sin tildes.
_ESPANOL = re.compile(r"\b(debe|deben|recibi|necesita|usa|prueba|ejemplo|numero|entero|texto|carpeta|archivo|ruta|"
                      r"modelo|funcion|desconocid[oa]|tiene|puedo|esta|vacio|vacia|lista|mayor|menor|valido|"
                      r"dispositivo|nombre|como mucho|no es|no hay|sin|da|escribe|elige|trabaja|conviertelo)\b", re.IGNORECASE)
_INGLES = re.compile(r"\b(must|expected|got|should|cannot|invalid|argument|object|unsupported|takes|"
                     r"positional|required|not supported|is not)\b")


def _sin_tildes(texto: str) -> str:
    import unicodedata

    return "".join(c for c in unicodedata.normalize("NFD", texto) if unicodedata.category(c) != "Mn")


# Cómo nombra un mensaje a un argumento cuando no escribe su nombre de Python: la palabra que lee
# el alumno («dispositivo» por ``preferencia``, «imagen» por ``imagen_8x8``, «hilos» por ``n``).
ALIAS = {"preferencia": ["dispositivo"], "imagen_8x8": ["imagen"], "nombre_gpu": ["GPU"], "nombre": ["GPU"],
         "parametros": ["parametros"], "n": ["hilos", "lado", "matriz", "n"], "funcion": ["funcion"],
         "config_o_modelo": ["config"], "desgloses": ["desgloses"], "programa": ["programa"],
         "vram_gb": ["vram_gb", "memoria de la GPU"], "modelo_base": ["modelo_base"], "n_bytes": ["bytes"], "ancho_de_banda_gb_s": ["enlace", "GB/s"], "X": ["X", "datos"], "y": ["y", "etiquetas"],
         "datos_entrenamiento": ["datos_entrenamiento", "datos de entrenamiento"],
         "entorno": ["MASTER_PORT", "WORLD_SIZE", "MASTER_ADDR", "RANK"]}


def _es_clara(mensaje: str, argumento: str, valor=None) -> bool:
    if isinstance(valor, str) and len(valor) >= 3 and "\0" not in valor and valor in mensaje and _ESPANOL.search(
            _sin_tildes(mensaje)):
        return True  # «No existe el archivo de pesos /tmp/x/nada.pt»: señala lo que se escribió
    mensaje = _sin_tildes(mensaje)
    if not _ESPANOL.search(mensaje):
        return False
    # Un mensaje en español puede citar a torch entre paréntesis: cuenta lo que hay fuera.
    fuera = re.sub(r"\([^()]*\)", "", mensaje)
    if len(_INGLES.findall(fuera)) > len(_ESPANOL.findall(fuera)):
        return False
    claves = {argumento, argumento.replace("_", " "), *ALIAS.get(argumento, [])}
    return any(re.search(rf"(?<![A-Za-z_]){re.escape(c)}(?![A-Za-z_])", mensaje, re.IGNORECASE) for c in claves)


@dataclass
class Caso:
    grupo: str
    funcion: str
    argumento: str
    clase: str
    respuesta: str = ""
    detalle: str = ""
    segundos: float = 0.0
    nucleo: bool = False


def _llamar(funcion, argumentos: dict, limite_s: float) -> tuple[str, str, float]:
    """(respuesta, detalle, segundos) de una llamada con tiempo límite, sin dejar que escriba."""
    argumentos = {k: (v() if isinstance(v, _Fresco) else v) for k, v in argumentos.items()}
    posicionales = [argumentos.pop(k) for k in sorted(k for k in argumentos if isinstance(k, int))]
    anterior = signal.signal(signal.SIGALRM, _alarma)
    signal.setitimer(signal.ITIMER_REAL, limite_s)
    inicio = time.perf_counter()
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()), \
                warnings.catch_warnings():
            warnings.simplefilter("ignore")
            resultado = funcion(*posicionales, **argumentos)
            if hasattr(resultado, "__enter__") and hasattr(resultado, "__exit__"):
                with resultado:
                    pass
        return "silenciosa", repr(resultado)[:120], time.perf_counter() - inicio
    except _Colgada:
        return "colgada", f"más de {limite_s:g} s", time.perf_counter() - inicio
    except Exception as error:  # noqa: BLE001 — clasificar cualquier error es el objetivo
        return "excepcion", f"{type(error).__name__}: {error}", time.perf_counter() - inicio
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, anterior)


class _Fresco:
    """Un valor que se construye de nuevo en cada llamada (un modelo que la llamada modifica)."""

    def __init__(self, hacer):
        self.hacer = hacer

    def __call__(self):
        return self.hacer()


@dataclass
class Funcion:
    nombre: str
    funcion: object
    validos: dict
    hostiles: dict = field(default_factory=dict)  # argumento -> lista de (clase, valor)
    nucleo: bool = False  # del núcleo de entrenar y checkpoints: se cuenta aparte
    probar_valida: bool = True  # False si la llamada válida descargaría algo (aquí no hay red)


def _probar(grupo: str, especificaciones: list[Funcion], limite_s: float, aviso) -> list[Caso]:
    casos = []
    for esp in especificaciones:
        respuesta, detalle, _ = ("silenciosa", "", 0) if not esp.probar_valida else _llamar(
            esp.funcion, dict(esp.validos), limite_s * 3)
        if respuesta != "silenciosa":
            aviso(f"  ¡la llamada válida de {esp.nombre} falla!: {detalle[:200]}")
        for argumento, valores in esp.hostiles.items():
            for clase, valor in valores:
                llamada = dict(esp.validos)
                llamada[argumento] = valor
                respuesta, detalle, segundos = _llamar(esp.funcion, llamada, limite_s)
                nombre_arg = argumento if isinstance(argumento, str) else _posicional(esp.funcion, argumento)
                if respuesta == "excepcion":
                    respuesta = "clara" if _es_clara(detalle.split(": ", 1)[-1], nombre_arg, valor) else "traza"
                casos.append(Caso(grupo, esp.nombre, nombre_arg, clase, respuesta, detalle, segundos, esp.nucleo))
    return casos


def _posicional(funcion, indice: int) -> str:
    import inspect

    try:
        return list(inspect.signature(funcion).parameters)[indice]
    except (TypeError, ValueError, IndexError):
        return f"arg{indice}"


# ---------------------------------------------------------------------------
# Las funciones de cada grupo
# ---------------------------------------------------------------------------

class _FormasDistintas(torch.utils.data.Dataset):
    """Ejemplos de largo 3 y 4 alternados: el DataLoader no los puede apilar en un lote."""

    def __len__(self):
        return 8

    def __getitem__(self, i):
        return torch.zeros(3 + i % 2), 0


def iniciar_con(entorno: dict):
    """``distribuido.iniciar()`` con estas variables de entorno (las de torchrun), y lo deja todo como estaba."""
    from curso_gpu import distribuido

    antes = {k: os.environ.get(k) for k in ("RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT", *entorno)}
    for k in antes:
        os.environ.pop(k, None)
    os.environ.update(entorno)
    try:
        return distribuido.iniciar()
    finally:
        distribuido.terminar()
        for k, v in antes.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def lora_lineal(capa, x):
    """Una ``LoRALineal`` aplicada a ``x`` (su ``forward``)."""
    return capa(x)


def _modelo_en_meta():
    from curso_gpu.entrenamiento import CNNPequena

    return CNNPequena().to("meta")


def lecciones_01_08(tmp: Path) -> list[Funcion]:
    from curso_gpu.base import buscar_gpu, formatear_bytes, formatear_tiempo
    from curso_gpu.guardado import (
        cargar_checkpoint, cargar_pesos, carpeta_checkpoints, copiar_atomico, guardar_atomico, guardar_pesos,
    )
    from curso_gpu.dispositivo import como_dispositivo, elegir_dispositivo, nombre_dispositivo, sincronizar
    from curso_gpu.distribuido import orden_torchrun, puerto_en_uso, tiempo_allreduce
    from curso_gpu.entrenamiento import (
        CNNPequena, entrenar, evaluar, fijar_semilla, generar_dataset, generar_datos_tabulares, predecir,
    )
    from curso_gpu.medicion import (
        bucle_python_vs_numpy, comprobar_que_cabe, cronometrar, hilos_cpu, medir_matmul, memoria_necesaria,
    )
    from curso_gpu.memoria import (
        bytes_por_parametro, lote_maximo, medir_memoria_entrenamiento, memoria_entrenamiento, memoria_inferencia,
        memoria_pesos, modelo_mas_grande, tabla_vram,
    )
    from curso_gpu.distribuido import huella_de_pesos
    from curso_gpu.guardado import Candado
    from curso_gpu.rendimiento import comparar_cargadores, comprobar_precision, soporte_bf16_cpu

    datos, validacion = generar_dataset(4, semilla=0), generar_dataset(2, semilla=1)
    X, y = validacion
    origen = tmp / "origen.bin"
    origen.write_bytes(b"datos")
    entrenar(CNNPequena(), datos, validacion, "cpu", epocas=1, silencioso=True, checkpoints=str(tmp / "ck"))
    guardado = sorted((tmp / "ck").glob("*.pt"))[-1]
    pesos = tmp / "pesos_validos.pt"
    guardar_pesos(CNNPequena(), pesos)
    contador = iter(range(10**9))
    nuevo = _Fresco(lambda: str(tmp / f"nuevo_{next(contador)}.pt"))
    con_candado_carpeta = tmp / "candado_carpeta"
    (con_candado_carpeta / ".entrenando.lock").mkdir(parents=True)  # una carpeta con el nombre del candado
    libre = _Fresco(lambda: str(tmp / f"libre_{next(contador)}"))
    en_meta = _Fresco(_modelo_en_meta)
    de_c = ("de C con argumentos", torch.matmul)
    return [
        # Lo que encontró la sonda (issue 48): cada caso, un error claro.
        Funcion("iniciar", iniciar_con, {0: {}},
                {0: [("MASTER_PORT=99999", {"RANK": "0", "WORLD_SIZE": "1", "MASTER_ADDR": "127.0.0.1",
                                            "MASTER_PORT": "99999"}),
                     ("WORLD_SIZE=2 sin torchrun", {"RANK": "0", "WORLD_SIZE": "2"})]}),
        Funcion("huella_de_pesos", huella_de_pesos, {0: CNNPequena()}, {0: MODELO + [("en meta", en_meta)]}),
        Funcion("soporte_bf16_cpu", soporte_bf16_cpu, {}, {0: [("None", None), ("número", 42), ("bool", True)]}),
        Funcion("comparar_cargadores", comparar_cargadores,
                {0: torch.utils.data.TensorDataset(*datos), 1: 4, "num_workers": 0, "lotes": 1, "dispositivo": "cpu"},
                {0: [("formas distintas", _FormasDistintas())]}),
        Funcion("Candado", Candado, {0: libre}, {0: [("con una carpeta de candado", str(con_candado_carpeta))]},
                nucleo=True),
        Funcion("elegir_dispositivo", elegir_dispositivo, {}, {"preferencia": DISPOSITIVO}),
        Funcion("como_dispositivo", como_dispositivo, {0: "cpu"}, {0: DISPOSITIVO}),
        Funcion("nombre_dispositivo", nombre_dispositivo, {0: "cpu"}, {0: DISPOSITIVO}),
        Funcion("sincronizar", sincronizar, {0: "cpu"}, {0: DISPOSITIVO}),
        Funcion("cronometrar", cronometrar, {0: lambda: None, 1: "cpu", "repeticiones": 3},
                {0: FUNCION + [de_c], 1: DISPOSITIVO, "repeticiones": ENTERO, "calentamiento": ENTERO0}),
        Funcion("medir_matmul", medir_matmul, {0: 32, "dispositivo": "cpu", "repeticiones": 2},
                {0: ENTERO, "dispositivo": DISPOSITIVO, "repeticiones": ENTERO, "calentamiento": ENTERO0,
                 "presupuesto_s": [v for v in REAL if v[0] != "None"]}),
        Funcion("bucle_python_vs_numpy", bucle_python_vs_numpy, {"n": 8, "presupuesto_s": 0.05},
                {"n": ENTERO, "semilla": SEMILLA, "presupuesto_s": [v for v in REAL if v[0] != "None"]}),
        Funcion("comprobar_que_cabe", comprobar_que_cabe, {0: 64, 1: "cpu"}, {0: ENTERO, 1: DISPOSITIVO}),
        Funcion("memoria_necesaria", memoria_necesaria, {0: 64}, {0: ENTERO}),
        Funcion("hilos_cpu", hilos_cpu, {0: 1}, {0: ENTERO}),
        Funcion("memoria_pesos", memoria_pesos, {0: 7e9}, {0: REAL, "precision": TEXTO}),
        Funcion("memoria_inferencia", memoria_inferencia, {0: 7e9}, {0: REAL, "precision": TEXTO, "margen": REAL}),
        Funcion("memoria_entrenamiento", memoria_entrenamiento, {0: 7e9}, {0: REAL, "bytes_por_parametro": REAL}),
        Funcion("modelo_mas_grande", modelo_mas_grande, {0: 16}, {0: REAL, "precision": TEXTO, "margen": REAL}),
        Funcion("tabla_vram", tabla_vram, {0: "7B", 1: 16}, {0: TEXTO + [("vacía", [])], 1: REAL, "margen": REAL}),
        Funcion("bytes_por_parametro", bytes_por_parametro, {0: "fp16"}, {0: TEXTO}),
        Funcion("lote_maximo", lote_maximo, {0: CNNPequena(), 1: (1, 8, 8), 2: "cpu", 3: 10**9, "maximo": 64},
                {0: MODELO, 1: TEXTO, 2: DISPOSITIVO, 3: [v for v in ENTERO if v[0] != "None"], "maximo": ENTERO, "optimizador": TEXTO,
                 "precision": TEXTO}),
        Funcion("medir_memoria_entrenamiento", medir_memoria_entrenamiento, {0: CNNPequena(), 1: X[:2]},
                {0: MODELO, 1: TENSOR, "optimizador": TEXTO, "precision": TEXTO}),
        Funcion("generar_dataset", generar_dataset, {0: 2, "semilla": 0}, {0: ENTERO, "semilla": SEMILLA,
                                                                         "receta": TEXTO}),
        Funcion("generar_datos_tabulares", generar_datos_tabulares, {0: 8, "semilla": 0},
                {0: ENTERO, "semilla": SEMILLA}),
        Funcion("fijar_semilla", fijar_semilla, {0: 0}, {0: SEMILLA}),
        Funcion("entrenar", entrenar, {0: _Fresco(CNNPequena), 1: datos, 2: validacion, 3: "cpu", "epocas": 1,
                                       "silencioso": True},
                {0: MODELO + [("en meta", en_meta)], 1: TENSOR, 3: DISPOSITIVO, "epocas": ENTERO,
                 "lr": REAL + [("enorme", 1e10)], "tamano_lote": [v for v in ENTERO if v[0] != "None"],
                 "semilla": SEMILLA, "al_registrar": FUNCION[:2], "acumular": ENTERO, "precision": TEXTO,
                 "checkpoints": [v for v in _rutas(tmp, carpeta=True) if v[0] != "None"]}),
        Funcion("evaluar", evaluar, {0: CNNPequena(), 1: X, 2: y, 3: "cpu"},
                {0: MODELO, 1: TENSOR, 2: TENSOR, 3: DISPOSITIVO, "tamano_lote": [v for v in ENTERO if v[0] != "None"]}),
        Funcion("predecir", predecir, {0: CNNPequena(), 1: X[0, 0], 2: "cpu"},
                {0: MODELO, 1: TENSOR + [("NaN", torch.full((8, 8), NAN)), ("complejo", torch.ones(8, 8) * 1j)],
                 2: DISPOSITIVO}),
        Funcion("comprobar_precision", comprobar_precision, {0: "fp32", 1: torch.device("cpu")},
                {0: TEXTO, 1: DISPOSITIVO}),
        Funcion("buscar_gpu", buscar_gpu, {0: "T4"}, {0: TEXTO}),
        Funcion("formatear_bytes", formatear_bytes, {0: 1024}, {0: REAL0}),
        Funcion("formatear_tiempo", formatear_tiempo, {0: 0.5}, {0: REAL0}),
        Funcion("carpeta_checkpoints", carpeta_checkpoints, {0: "prueba", "base": str(tmp)},
                {0: [v for v in TEXTO if v[0] != "desconocido"], "cada": [v for v in ENTERO0 if v[0] != "None"],
                 "conservar": ENTERO, "base": [v for v in _rutas(tmp, carpeta=True) if v[0] != "None"]}),
        Funcion("guardar_atomico", guardar_atomico, {0: {"a": 1}, 1: nuevo},
                {0: [("función", lambda: 1)], 1: _rutas(tmp, carpeta=False)}),
        Funcion("guardar_pesos", guardar_pesos, {0: CNNPequena(), 1: nuevo},
                {0: MODELO, 1: _rutas(tmp, carpeta=False)}),
        Funcion("cargar_checkpoint", cargar_checkpoint, {0: str(guardado)},
                {0: [("vacía", ""), ("None", None), ("número", 42), ("no existe", str(tmp / "nada.pt")),
                     ("carpeta", str(tmp)), ("nulo", "a\0b")], "dispositivo": DISPOSITIVO}),
        Funcion("cargar_pesos", cargar_pesos, {0: str(pesos)},
                {0: [("vacía", ""), ("None", None), ("no existe", str(tmp / "nada.pt")), ("carpeta", str(tmp)),
                     ("nulo", "a\0b")], "modelo": MODELO[1:]}),
        Funcion("copiar_atomico", copiar_atomico, {0: str(origen), 1: nuevo},
                {0: [("vacía", ""), ("None", None), ("no existe", str(tmp / "nada")), ("nulo", "a\0b")],
                 1: _rutas(tmp, carpeta=False)}),
        Funcion("orden_torchrun", orden_torchrun, {0: "programa.py"},
                {0: [("None", None), ("número", 42), ("vacío", "")], "procesos": ENTERO, "nodos": ENTERO,
                 "rango_nodo": ENTERO0, "puerto": [v for v in ENTERO if v[0] != "None"], "reinicios": ENTERO0}),
        Funcion("puerto_en_uso", puerto_en_uso, {0: 29500}, {0: ENTERO}),
        Funcion("tiempo_allreduce", tiempo_allreduce, {0: 25_000_000, 1: 2, 2: 300},
                {0: ENTERO, 1: ENTERO, 2: REAL, "bytes_por_parametro": ENTERO}),
    ]


def lecciones_09_10(tmp: Path) -> list[Funcion]:
    from transformers import GPT2Config

    from curso_gpu.ajuste import (
        LoRALineal, ajustar, aplicar_lora, config_4_bits, config_de, elegir_capas, guardar_adaptador, memoria_ajuste,
        modelo_diminuto, modelo_en_meta, parametros_lora, tabla_metodos, tokenizador_diminuto, validar_r,
    )
    from curso_gpu.generacion import (
        buscar_adaptador, cargar_adaptador, cargar_para_generar, medir_barrido,
        ancho_de_banda_de, bytes_cache_kv, bytes_de_cache, forma_de_atencion, medir_ancho_de_banda,
        cache_de, medir_generacion, preparar_lote, techo_tokens_por_segundo,
    )
    from curso_gpu.entrenamiento import CNNPequena, GPT2Pequeno
    from curso_gpu.medicion import comparar_muestras, comparar_tiempos

    modelo, tokenizador = modelo_diminuto()
    adaptado = _Fresco(lambda: aplicar_lora(modelo_diminuto()[0]))
    base = _Fresco(lambda: modelo_diminuto()[0])
    with torch.inference_mode():
        salida = modelo.generate(**tokenizador(["La GPU"], return_tensors="pt"), max_new_tokens=3,
                                 return_dict_in_generate=True, do_sample=False,
                                 pad_token_id=tokenizador.pad_token_id)
        sin_cache = modelo.generate(**tokenizador(["La GPU"], return_tensors="pt"), max_new_tokens=3,
                                    return_dict_in_generate=True, do_sample=False, use_cache=False,
                                    pad_token_id=tokenizador.pad_token_id)
    gpt2 = GPT2Config(n_layer=2, n_embd=32, n_head=2, vocab_size=64, n_positions=64, bos_token_id=0, eos_token_id=0)
    pequena = GPT2Config(n_layer=2, n_embd=32, n_head=2, vocab_size=64, n_positions=64, bos_token_id=0,
                         eos_token_id=0)
    contador = iter(range(10**9))
    nueva = _Fresco(lambda: str(tmp / f"adaptador_{next(contador)}"))
    desglose = memoria_ajuste(pequena, "lora", lote=1, secuencia=16, r=4)
    gpt2_del_curso = _Fresco(lambda: GPT2Pequeno(vocabulario=50, contexto=16, dimension=32, capas=1, cabezas=2))
    return [
        Funcion("aplicar_lora", aplicar_lora, {0: base},
                {0: MODELO + [("ya adaptado", adaptado), ("CNN del curso", _Fresco(CNNPequena)),
                     ("GPT2Pequeno del curso", gpt2_del_curso)], "r": ENTERO, "alpha": REAL, "dropout": PROB,
                 "modulos": [("número", 42), ("lista vacía", []), ("vacío", ""), ("no existe", ["query"]),
                             ("lista de números", [1, 2]), ("None en lista", [None])]}),
        Funcion("parametros_lora", parametros_lora, {0: gpt2, 1: 4},
                {0: MODELO + [("lista", ["Qwen2.5-0.5B"])], 1: ENTERO,
                 "modulos": [("número", 42), ("lista vacía", []), ("no existe", ["q_proj"])]}),
        Funcion("elegir_capas", elegir_capas, {0: modelo}, {0: MODELO, "modulos": [("número", 42), ("vacío", "")]}),
        Funcion("validar_r", validar_r, {0: 8}, {0: ENTERO}),
        Funcion("LoRALineal", LoRALineal, {0: torch.nn.Linear(4, 4), 1: 2, 2: 4},
                {0: MODELO, 1: ENTERO, 2: REAL}),
        Funcion("LoRALineal(x)", lora_lineal, {0: LoRALineal(torch.nn.Linear(4, 3), 2, 4), 1: torch.randn(2, 4)},
                {1: [("otro ancho", torch.randn(2, 5)), ("escalar", torch.tensor(1.0)), ("None", None)]}),
        Funcion("config_de", config_de, {0: "Qwen2.5-0.5B"}, {0: TEXTO + [("lista", ["Qwen2.5-0.5B"])]}),
        Funcion("modelo_en_meta", modelo_en_meta, {0: gpt2}, {0: MODELO + [("dict", {"a": 1})]}),
        Funcion("memoria_ajuste", memoria_ajuste, {0: pequena, "metodo": "lora", "secuencia": 16, "r": 4},
                {0: MODELO, "metodo": TEXTO, "precision": TEXTO, "lote": ENTERO, "secuencia": ENTERO, "r": ENTERO,
                 "optimizador": TEXTO, "nombre": [("número", 42), ("None", None)],
                 "modulos": [("número", 42), ("no existe", ["q_proj"])]}),
        Funcion("tabla_metodos", tabla_metodos, {0: [desglose]}, {0: MODELO, "gpu": TEXTO}),
        Funcion("config_4_bits", config_4_bits, {}, {"precision": TEXTO}),
        Funcion("modelo_diminuto", modelo_diminuto, {}, {"semilla": SEMILLA}),
        Funcion("tokenizador_diminuto", tokenizador_diminuto, {}, {"padding_side": TEXTO}),
        Funcion("guardar_adaptador", guardar_adaptador, {0: adaptado, 1: nueva},
                {0: MODELO + [("sin adaptador", base)], 1: _rutas(tmp, carpeta=True)}),
        Funcion("ajustar", ajustar, {0: adaptado, 1: tokenizador, "epocas": 1, "avisar": lambda texto: None},
                {0: MODELO + [("sin adaptador", base)], 1: MODELO, "texto": TEXTO[:5] + [("sin alfabeto", "§§§§" * 40)],
                 "epocas": ENTERO, "tamano_lote": ENTERO, "secuencia": ENTERO + [("uno", 1)],
                 "lr": REAL + [("enorme", 1e10)],
                 "semilla": SEMILLA, "precision": TEXTO,
                 "checkpoints": [v for v in _rutas(tmp, carpeta=True) if v[0] != "None"],
                 "al_terminar_epoca": FUNCION[:2]}, nucleo=True),
        Funcion("bytes_cache_kv", bytes_cache_kv, {0: modelo.config, 1: 16},
                {0: MODELO, 1: ENTERO, "lote": ENTERO, "bytes_por_valor": [v for v in REAL if v[0] != "texto"]
                 + [("precisión desconocida", "fp7")]}),
        Funcion("bytes_de_cache", bytes_de_cache, {0: cache_de(salida)},
                {0: [("None", None), ("número", 42), ("texto", "caché"), ("tensor de tokens", salida.sequences),
                     ("salida sin caché", sin_cache)]}),
        Funcion("forma_de_atencion", forma_de_atencion, {0: modelo.config}, {0: MODELO}),
        Funcion("techo_tokens_por_segundo", techo_tokens_por_segundo, {0: 1e9, 1: 320},
                {0: REAL, 1: [v for v in REAL if v[0] != "texto"] + [("GPU desconocida", "GPU inventada")],
                 "lote": ENTERO, "bytes_cache": REAL0}),
        Funcion("ancho_de_banda_de", ancho_de_banda_de, {0: "T4"}, {0: TEXTO}),
        Funcion("medir_ancho_de_banda", medir_ancho_de_banda, {"megabytes": 1, "repeticiones": 2},
                {"dispositivo": DISPOSITIVO, "megabytes": ENTERO, "repeticiones": ENTERO}),
        Funcion("medir_generacion", medir_generacion, {0: modelo, 1: tokenizador, 2: ["La GPU"], 3: 2,
                                                       "repeticiones": 1},
                {0: MODELO, 1: MODELO, 2: TEXTO[:3] + [("vacía", []), ("lista con vacío", [""])],
                 3: ENTERO + [("más que el contexto", 100_000)], "repeticiones": ENTERO,
                 "dispositivo": DISPOSITIVO}),
        Funcion("medir_barrido", medir_barrido, {0: modelo, 1: tokenizador, 2: ["La GPU"], "lotes": (1, 2),
                                                 "max_tokens_nuevos": 2, "repeticiones": 1},
                {0: MODELO, 1: MODELO, 2: TEXTO[:3] + [("vacía", [])], "lotes": [v for v in ENTERO if v[0] != "lista"] + [("vacía", ()), ("con un cero", (1, 0))],
                 "max_tokens_nuevos": ENTERO + [("más que el contexto", 100_000)], "repeticiones": ENTERO,
                 "variantes": [("desconocida", ("rápida",)), ("vacía", ()), ("número", 42)],
                 "ancho_de_banda_gb_s": [v for v in REAL if v[0] != "None"], "bytes_pesos": [v for v in ENTERO if v[0] != "None"],
                 "nombre_gpu": [("número", 42)], "compilar": [("número", 42)], "dispositivo": DISPOSITIVO}),
        Funcion("buscar_adaptador", buscar_adaptador, {0: str(tmp)},
                {0: [("None", None), ("número", 42), ("vacía", ""), ("nulo", "a\0b"), ("bool", True)]}),
        Funcion("cargar_adaptador", cargar_adaptador, {0: base, 1: str(tmp)},
                {0: MODELO, 1: [("None", None), ("vacía", ""), ("sin adaptador", str(tmp)), ("no existe", str(tmp / "nada"))]},
                probar_valida=False),
        Funcion("cargar_para_generar", cargar_para_generar, {"dispositivo": "cpu"},
                {"nombre": [("None", None), ("número", 42), ("vacío", "")], "dtype": [("texto", "fp16"), ("entero", torch.int8)],
                 "adaptador": [("no existe", str(tmp / "nada")), ("número", 42)], "dispositivo": DISPOSITIVO},
                probar_valida=False),
        Funcion("preparar_lote", preparar_lote, {0: tokenizador, 1: ["La GPU", "Hola"]},
                {0: MODELO, 1: TEXTO[:3] + [("vacía", [])], "dispositivo": DISPOSITIVO}),
        Funcion("comparar_tiempos", comparar_tiempos, {0: lambda: None, 1: lambda: None, "presupuesto_s": 0.02,
                                                       "repeticiones": 3},
                {0: FUNCION + [("de C con argumentos", torch.matmul)], 1: FUNCION + [("de C con argumentos", torch.matmul)],
                 "repeticiones": ENTERO, "presupuesto_s": [v for v in REAL if v[0] != "None"],
                 "semilla": SEMILLA, "nombres": [("iguales", ("x", "x")), ("texto", "ab"), ("None", None)],
                 "dispositivo": DISPOSITIVO, "reloj": [("número", 42)], "descripcion": [("número", 42)]}),
        Funcion("comparar_muestras", comparar_muestras, {0: [0.02] * 5, 1: [0.01] * 5},
                {0: MUESTRAS, 1: MUESTRAS, "semilla": SEMILLA, "nombres": [("iguales", ("x", "x")), ("None", None)],
                 "primera_a": [v for v in REAL0 if v[0] != "None"], "alternados": [("texto", "sí")]}),
    ]


def leccion_11(tmp: Path) -> list[Funcion]:
    """Los lanzadores de ``curso_gpu.kernels`` (en la CPU, con el intérprete de Triton) y sus cuentas."""
    from curso_gpu.kernels import (
        flops_matmul, matmul_teselas, siguiente_potencia_de_dos, softmax_filas, suma, trafico_softmax, trafico_suma,
        triton_instalado,
    )

    if not triton_instalado():
        print("  (triton no está instalado: la lección 11 se salta)")
        return []
    x, y = torch.randn(37), torch.randn(37)
    a, b = torch.randn(9, 7), torch.randn(7, 5)
    tensores = TENSOR + [("de otro tipo", torch.arange(37)), ("forma distinta", torch.randn(5)),
                         ("complejo", torch.ones(37) * 1j)]  # un NaN dentro da NaN, como en PyTorch: no es hostil
    return [
        Funcion("suma", suma, {0: x, 1: y}, {0: tensores, 1: tensores, "bloque": ENTERO + [("no potencia de 2", 100)]}),
        Funcion("softmax_filas", softmax_filas, {0: torch.randn(4, 9)},
                {0: TENSOR + [("una dimensión", torch.randn(9)), ("enteros", torch.ones(4, 9, dtype=torch.long))],
                 "bloque": [v for v in ENTERO if v[0] != "None"] + [("no potencia de 2", 100)]}),
        Funcion("matmul_teselas", matmul_teselas, {0: a, 1: b},
                {0: TENSOR + [("no encaja", torch.randn(9, 6))], 1: TENSOR + [("una dimensión", torch.randn(7))],
                 "bloques": [("número", 16), ("texto", "16"), ("dos", (16, 16)), ("ceros", (0, 0, 0)),
                             ("no potencias", (10, 10, 10))]}),
        # 0 elementos son 0 bytes y 0 FLOP: una respuesta exacta, no hostil.
        Funcion("trafico_suma", trafico_suma, {0: 1000}, {0: ENTERO0, "bytes_por_elemento": ENTERO}),
        Funcion("trafico_softmax", trafico_softmax, {0: 8, 1: 16},
                {0: ENTERO0, 1: ENTERO0, "bytes_por_elemento": ENTERO, "vueltas": ENTERO}),
        Funcion("flops_matmul", flops_matmul, {0: 8, 1: 8, 2: 8}, {0: ENTERO0, 1: ENTERO0, 2: ENTERO0}),
        Funcion("siguiente_potencia_de_dos", siguiente_potencia_de_dos, {0: 100}, {0: ENTERO}),
    ]


_DEL_NUCLEO = {"entrenar", "ajustar", "Candado", "carpeta_checkpoints", "guardar_atomico", "guardar_pesos", "cargar_checkpoint",
               "cargar_pesos", "copiar_atomico"}
"""El núcleo de entrenar y los checkpoints (otra parte del curso): sus cifras se dan también aparte."""


def resumen(casos: list[Caso], titulo: str, detalle: bool) -> float:
    cuenta = Counter(c.respuesta for c in casos)
    total = len(casos)
    claras = cuenta["clara"]
    print(f"\n== {titulo}: {total} entradas hostiles en {len({c.funcion for c in casos})} funciones ==")
    for clase in ("clara", "traza", "silenciosa", "colgada"):
        print(f"  {clase:<11} {cuenta[clase]:>4}  ({100 * cuenta[clase] / max(total, 1):.1f} %)")
    malos = [c for c in casos if c.respuesta != "clara"]
    if malos:
        print("  No claras:")
        for c in malos if detalle else malos[:60]:
            print(f"    [{c.respuesta}] {c.funcion}({c.argumento}={c.clase}): {c.detalle[:160]!s}".replace("\n", " "))
        if not detalle and len(malos) > 60:
            print(f"    ... y {len(malos) - 60} más (--detalle para verlas todas)")
    propios = [c for c in casos if not c.nucleo]
    if len(propios) != len(casos):
        ajenas = sorted({c.funcion for c in casos if c.nucleo})
        print(f"  Sin las del núcleo de entrenar y checkpoints ({', '.join(ajenas)}): "
              f"{sum(c.respuesta == 'clara' for c in propios)} de {len(propios)} claras "
              f"({100 * sum(c.respuesta == 'clara' for c in propios) / max(len(propios), 1):.1f} %)")
    lentos = sorted(casos, key=lambda c: -c.segundos)[:3]
    print("  Las más lentas: " + ", ".join(f"{c.funcion}({c.argumento}={c.clase}) {c.segundos:.1f} s" for c in lentos))
    return 100 * claras / max(total, 1)


def main(argv=None) -> int:
    analizador = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    analizador.add_argument("--limite-s", type=float, default=20, help="segundos por llamada (20)")
    analizador.add_argument("--grupo", choices=("01-08", "09-10", "11", "todos"), default="todos")
    analizador.add_argument("--detalle", action="store_true", help="lista todas las respuestas no claras")
    args = analizador.parse_args(argv)
    torch.set_num_threads(1)
    try:  # sin GPU, los kernels de la lección 11 van por el intérprete: decidirlo antes de que nada importe triton
        from curso_gpu.kernels import preparar_interprete

        preparar_interprete()
    except ImportError:
        pass
    if os.geteuid() == 0:
        print("Aviso: como superusuario, una carpeta de solo lectura no lo es: esos casos se saltan.")
    inicio = time.perf_counter()
    porcentajes = {}
    with tempfile.TemporaryDirectory(prefix="hostiles.") as carpeta:
        tmp = Path(carpeta)
        antes = Path.cwd()
        os.chdir(tmp)  # lo que se escriba «en la carpeta actual» queda aquí, y se ve
        try:
            grupos = [("01-08", "Lecciones 01–08", lecciones_01_08), ("09-10", "Lecciones 09–10 y comparar", lecciones_09_10),
                      ("11", "Lección 11 (kernels)", leccion_11)]
            for clave, titulo, hacer in grupos:
                if args.grupo not in (clave, "todos"):
                    continue
                sub = tmp / clave
                sub.mkdir()
                especificaciones = hacer(sub)
                for esp in especificaciones:
                    esp.nucleo = esp.nucleo or esp.nombre in _DEL_NUCLEO
                casos = _probar(clave, especificaciones, args.limite_s, print)
                porcentajes[clave] = resumen(casos, titulo, args.detalle)
            sueltos = [p.name for p in tmp.iterdir() if p.name not in ("01-08", "09-10", "11")]
            if sueltos:
                print(f"\n¡Archivos escritos en la carpeta actual!: {sueltos}")
        finally:
            os.chdir(antes)
            for raiz, carpetas, _ in os.walk(carpeta):
                for c in carpetas:
                    with contextlib.suppress(OSError):
                        os.chmod(os.path.join(raiz, c), 0o755)
    print(f"\n{', '.join(f'{k}: {v:.1f} % claras' for k, v in porcentajes.items())} "
          f"(en {time.perf_counter() - inicio:.0f} s; objetivo ≥ 97 %)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
