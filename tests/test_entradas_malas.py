"""Entradas malas: cada una recibe un error en español que nombra el dato, nunca una traza de torch.

Una tabla: (qué se prueba, la llamada, el texto que debe salir). Las llamadas que arrancan procesos
(las órdenes de la línea de órdenes, torchrun) van aparte y llevan la marca ``lento``.
"""

from __future__ import annotations

import math
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from torch import nn
from torch.utils.data import Dataset, TensorDataset

from curso_gpu.base import formatear_bytes, leer_numero
from curso_gpu.guardado import cargar_checkpoint
from curso_gpu.dispositivo import DispositivoNoDisponible, como_dispositivo, memoria_dispositivo
from curso_gpu.distribuido import ejecutar, orden_torchrun, promediar, puerto_en_uso, tiempo_allreduce
from curso_gpu.entrenamiento import CNNPequena, entrenar, generar_dataset
from curso_gpu.memoria import lote_maximo
from curso_gpu.rendimiento import comparar_cargadores, comprobar_precision, diagnosticar

RAIZ = Path(__file__).resolve().parent.parent
SIN_CUDA = pytest.mark.skipif(torch.cuda.is_available(), reason="aquí sí hay CUDA")
CUDA = torch.device("cuda")
DATOS = generar_dataset(4, semilla=0)
VALIDACION = generar_dataset(2, semilla=1)


def _entrenar(modelo=None, **opciones):
    opciones = {"dispositivo": "cpu", "epocas": 1, "silencioso": True, **opciones}
    dispositivo = opciones.pop("dispositivo")
    return entrenar(modelo if modelo is not None else CNNPequena(), DATOS, VALIDACION, dispositivo, **opciones)


def _congelado():
    return CNNPequena().requires_grad_(False)


class _UnTensor(Dataset):
    def __len__(self):
        return 32

    def __getitem__(self, i):
        return torch.zeros(3)


class _Texto(Dataset):
    def __len__(self):
        return 32

    def __getitem__(self, i):
        return "una frase", 1


def _mlp():
    return nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))


def _perdida_que_no_encaja(salida, y):
    return (salida * y).mean()  # [2, 3] por [2]: no se pueden multiplicar


def _paso(xb, yb):
    return None


# (qué, llamada, excepciones, texto que nombra el dato y lo que pasa)
CASOS = [
    ("entrenar con un modelo sin parámetros entrenables", lambda: _entrenar(_congelado()), ValueError,
     "modelo no tiene parámetros entrenables"),
    ("entrenar con criterio='mse' (un texto)", lambda: _entrenar(criterio="mse"), ValueError,
     "criterio debe ser una función de pérdida.*'mse'"),
    ("entrenar con MSELoss y etiquetas de clase", lambda: _entrenar(criterio=nn.MSELoss()), ValueError,
     "criterio MSELoss.*forma"),
    ("entrenar con un criterio cuyas formas no encajan", lambda: _entrenar(criterio=_perdida_que_no_encaja),
     ValueError, "criterio _perdida_que_no_encaja no encaja con la salida del modelo \\(forma \\[2, 3\\]\\)"),
    ("entrenar con épocas 2**70", lambda: _entrenar(epocas=2**70), ValueError, "epocas debe ser un entero"),
    ("entrenar con épocas True", lambda: _entrenar(epocas=True), ValueError, "epocas debe ser un entero"),
    ("entrenar en 'meta'", lambda: _entrenar(dispositivo=torch.device("meta")), ValueError,
     "dispositivo no puede ser 'meta'"),
    ("entrenar en 'tpu'", lambda: _entrenar(dispositivo="tpu"), ValueError, "Dispositivo no válido: 'tpu'"),
    ("entrenar en 42", lambda: _entrenar(dispositivo=42), ValueError, "dispositivo no válido: 42"),
    ("comparar_cargadores con un conjunto que da un tensor", lambda: comparar_cargadores(_UnTensor(), 8, (0,)),
     ValueError, "no es un par \\(xb, yb\\).*conjunto"),
    ("comparar_cargadores con un conjunto de texto", lambda: comparar_cargadores(_Texto(), 8, (0,)),
     ValueError, "conjunto: cada ejemplo debe ser un par \\(x, y\\) con x un tensor"),
    ("comparar_cargadores con tamano_lote ≥ len(conjunto)",
     lambda: comparar_cargadores(TensorDataset(torch.zeros(10, 2), torch.zeros(10)), 10, (0,)), ValueError,
     "tamano_lote=10 con un conjunto de 10 ejemplos da un solo lote"),
    ("comparar_cargadores con num_workers=2**70",
     lambda: comparar_cargadores(TensorDataset(torch.zeros(10, 2), torch.zeros(10)), 2, (2**70,)), ValueError,
     "num_workers debe ser un entero"),
    ("comprobar_precision en 'tpu'", lambda: comprobar_precision("fp16", "tpu"), ValueError,
     "Dispositivo no válido: 'tpu'"),
    ("comprobar_precision con None", lambda: comprobar_precision("fp16", None), ValueError,
     "dispositivo no puede ser None"),
    ("comprobar_precision con 42", lambda: comprobar_precision("fp16", 42), ValueError, "dispositivo no válido: 42"),
    ("promediar un complejo", lambda: promediar(torch.tensor(1 + 2j)), ValueError, "promediar: el tensor es complejo"),
    ("ejecutar con timeout_s=-1", lambda: ejecutar([sys.executable, "-c", "1"], timeout_s=-1), ValueError,
     r"timeout_s debe ser un número mayor que 0; recibí -1 .*timeout_s=120 \(segundos\)"),
    ("ejecutar con timeout_s=nan", lambda: ejecutar([sys.executable, "-c", "1"], timeout_s=math.nan), ValueError,
     "timeout_s debe ser .*NaN"),
    ("ejecutar un programa que no existe", lambda: ejecutar(["no_existe"]), ValueError,
     "No encuentro el programa 'no_existe'"),
    ("puerto_en_uso(70000)", lambda: puerto_en_uso(70000), ValueError, "puerto debe ser un entero entre 1 y 65535"),
    ("orden_torchrun con programa vacío", lambda: orden_torchrun(""), ValueError, "programa no válido"),
    ("orden_torchrun con procesos=2**70", lambda: orden_torchrun("x.py", procesos=2**70), ValueError,
     "procesos debe ser un entero"),
    ("lote_maximo con memoria_bytes=10**400",
     lambda: lote_maximo(_mlp(), (4,), "cpu", memoria_bytes=10**400), ValueError,
     "memoria_bytes debe ser un número mayor que 0 y menor o igual que 10\\*\\*18; recibí un entero de unas 401 cifras"),
    ("lote_maximo con maximo=2**70", lambda: lote_maximo(_mlp(), (4,), "cpu", memoria_bytes=10**6, maximo=2**70),
     ValueError, "maximo debe ser un entero"),
    ("tiempo_allreduce con gpus=True", lambda: tiempo_allreduce(10, True, 16.0), ValueError, "gpus debe ser un entero"),
    ("diagnosticar con 'tpu'", lambda: diagnosticar(_paso, [(torch.zeros(2), torch.zeros(2))], "tpu"), ValueError,
     "Dispositivo no válido: 'tpu'"),
    ("formatear_bytes de un negativo", lambda: formatear_bytes(-1), ValueError, "n_bytes debe ser un número mayor o igual que 0; recibí -1"),
]

# torch.device("cuda") en una máquina sin GPU: el error dice que falta la GPU, no «Torch not compiled with CUDA».
CASOS_SIN_GPU = [
    ("entrenar", lambda: _entrenar(dispositivo=CUDA)),
    ("diagnosticar", lambda: diagnosticar(_paso, [(torch.zeros(2), torch.zeros(2))], CUDA)),
    ("cargar_checkpoint", lambda: cargar_checkpoint("no_importa.pt", CUDA)),
    ("comprobar_precision", lambda: comprobar_precision("fp16", "cuda")),
    ("memoria_dispositivo", lambda: memoria_dispositivo(CUDA)),
    ("lote_maximo sin memoria_bytes", lambda: lote_maximo(_mlp(), (4,), CUDA)),
    ("comparar_cargadores", lambda: comparar_cargadores(TensorDataset(torch.zeros(8, 2), torch.zeros(8)), 2, (0,),
                                                        dispositivo=CUDA)),
]


@pytest.mark.parametrize("llamada, error, texto", [c[1:] for c in CASOS], ids=[c[0] for c in CASOS])
def test_cada_entrada_mala_tiene_su_error_en_espanol(llamada, error, texto):
    with pytest.raises(error, match=f"(?s){texto}"):
        llamada()


@SIN_CUDA
@pytest.mark.parametrize("llamada", [c[1] for c in CASOS_SIN_GPU], ids=[c[0] for c in CASOS_SIN_GPU])
def test_cuda_sin_gpu_culpa_a_la_gpu_que_falta(llamada):
    with pytest.raises(DispositivoNoDisponible, match="'cuda', pero no está disponible en esta máquina") as error:
        llamada()
    assert "not compiled" not in str(error.value)


def test_el_modelo_no_se_toca_si_el_dispositivo_no_vale():
    modelo = CNNPequena()
    antes = {k: v.clone() for k, v in modelo.state_dict().items()}
    for malo in (torch.device("meta"), "tpu", 42):
        with pytest.raises(ValueError):
            _entrenar(modelo, dispositivo=malo)
    assert all(v.device.type == "cpu" and torch.equal(antes[k], v) for k, v in modelo.state_dict().items())


# --- np.int64 en cada sitio donde se pide una cantidad ------------------------------------------

def test_np_int64_vale_donde_se_pide_una_cantidad():
    tres, dos = np.int64(3), np.int32(2)
    historial = _entrenar(epocas=tres, tamano_lote=np.int64(4))
    assert historial.epocas_totales == 3 and type(historial.epocas_totales) is int
    assert tiempo_allreduce(np.int64(1_000_000), np.int64(8), np.float32(16)).gpus == 8
    orden = orden_torchrun("guion.py", procesos=dos, reinicios=np.int64(1))
    assert "--nproc_per_node=2" in orden and "--max-restarts=1" in orden
    assert lote_maximo(_mlp(), (np.int64(4),), "cpu", memoria_bytes=np.int64(10**7), maximo=tres) == 3
    medida = comparar_cargadores(TensorDataset(torch.zeros(16, 2), torch.zeros(16)), np.int64(4), (np.int64(0),),
                                 lotes=dos, dispositivo="cpu")
    assert medida.tamano_lote == 4 and type(medida.tamano_lote) is int
    assert leer_numero(np.uint8(7), "n", entero=True, minimo=1) == 7


def test_leer_numero_es_el_unico_lector_y_rechaza_en_espanol():
    for malo, motivo in ((True, "booleano"), (3.5, "no es un número entero"), ("3", "tipo str"),
                         (2**70, "demasiado grande"), (10**400, "unas 401 cifras"), (0, "demasiado pequeño")):
        with pytest.raises(ValueError, match=f"^cantidad debe ser un entero.*{motivo}"):
            leer_numero(malo, "cantidad", entero=True, minimo=1)
    assert como_dispositivo("CPU ") == torch.device("cpu")


def test_un_solo_formateador_de_bytes():
    import curso_gpu.memoria as memoria

    assert (formatear_bytes(128e9), formatear_bytes(297.6e6), formatear_bytes(40_000), formatear_bytes(512)) == \
        ("128.0 GB", "298 MB", "40.0 kB", "512 bytes")
    assert "formatear_bytes" not in memoria.CASAS and "formatear_megas" not in memoria.CASAS
    codigo = "\n".join(p.read_text(encoding="utf-8") for p in (RAIZ / "curso_gpu").rglob("*.py"))
    assert codigo.count("def formatear_bytes(") == 1 and "def formatear_megas(" not in codigo
    assert "def _legible(" not in codigo


# --- la línea de órdenes: rutas, semilla, torchrun ---------------------------------------------

def test_las_rutas_de_entrenar_ddp_se_comprueban_antes_de_entrenar(tmp_path, monkeypatch, capsys):
    from curso_gpu.entrenar_ddp import main

    archivo = tmp_path / "soy_un_archivo"
    archivo.write_text("x")
    for argumentos, texto in [(["--checkpoints", str(archivo)], r"--checkpoints .*es un archivo, no una carpeta"),
                              (["--guardar-pesos", str(tmp_path)], r"--guardar-pesos .*es una carpeta"),
                              (["--guardar-pesos", str(archivo / "pesos.pt")], r"--guardar-pesos .*soy_un_archivo es "
                                                                             r"un archivo, no una carpeta"),
                              (["--guardar-pesos", str(tmp_path / "no" / "pesos.pt")], r"la carpeta .*no no existe")]:
        assert main(["--epocas", "1", *argumentos]) == 1
        assert re.search(texto, capsys.readouterr().err)
    solo_lectura = tmp_path / "solo_lectura"
    solo_lectura.mkdir()
    acceso = os.access  # quien corre las pruebas puede ser root (que escribe en todo): la respuesta se finge
    monkeypatch.setattr(os, "access", lambda ruta, modo: False if Path(ruta) == solo_lectura else acceso(ruta, modo))
    assert main(["--epocas", "1", "--checkpoints", str(solo_lectura / "ck")]) == 1
    assert re.search(r"--checkpoints .*no tengo permiso para escribir .*solo lectura", capsys.readouterr().err)


def _orden(modulo: str, *argumentos, entorno=None, tuberia: str = "", timeout: int = 120):
    variables = {**os.environ, "PYTHONPATH": str(RAIZ), **(entorno or {})}
    variables.pop("PYTEST_CURRENT_TEST", None)
    linea = " ".join([sys.executable, "-m", modulo, *argumentos]) + tuberia
    return subprocess.run(["bash", "-c", linea], capture_output=True, text=True, env=variables, timeout=timeout,
                          cwd=RAIZ)


ORDENES = [("curso_gpu", ["--rapido", "--dispositivo", "cpu"]), ("curso_gpu.entrenar_ddp", ["--epocas", "1"]),
           ("curso_gpu.app_lineas", ["--help"])]


@pytest.mark.lento
@pytest.mark.parametrize("modulo, argumentos", ORDENES, ids=[m for m, _ in ORDENES])
def test_cada_orden_aguanta_ascii_tuberia_cerrada_y_disco_lleno(modulo, argumentos):
    if modulo == "curso_gpu.app_lineas":  # entrenar_ddp: la consola ASCII, en este proceso (abajo)
        ascii_ = _orden(modulo, *argumentos, entorno={"PYTHONIOENCODING": "ascii"})
        assert ascii_.returncode == 0 and ascii_.stderr == "", ascii_.stderr  # --help termina bien, sin quejas
        ayuda = " ".join(ascii_.stdout.split())  # argparse parte las líneas según el ancho
        assert ayuda.isascii(), ayuda
        # La ayuda entera, con las tildes degradadas (no cortada en la primera «í»):
        for trozo in ("Entrena la CNN de lineas de la leccion 05", "epocas de entrenamiento (por defecto 120)",
                      "semilla para repetir el mismo resultado"):
            assert trozo in ayuda, ayuda
    if modulo != "curso_gpu":  # python -m curso_gpu: la consola ASCII y la tubería cerrada, en test_cli.py
        cerrada = _orden(modulo, *argumentos, tuberia=" | head -1; exit ${PIPESTATUS[0]}")
        assert "Traceback" not in cerrada.stderr and "Broken pipe" not in cerrada.stderr
        assert len(cerrada.stdout.splitlines()) == 1
    lleno = _orden(modulo, *argumentos, tuberia=" > /dev/full")
    assert "Traceback" not in lleno.stderr and "OSError" not in lleno.stderr
    if modulo != "curso_gpu.app_lineas":  # la ayuda de argparse se calla sola si no puede escribir
        assert lleno.returncode == 1 and "no pude escribir la salida (no queda espacio)" in lleno.stderr


def test_entrenar_ddp_en_una_consola_ascii_entrena_y_escribe_sin_acentos(monkeypatch):
    """Como ``PYTHONIOENCODING=ascii python -m curso_gpu.entrenar_ddp``, sin importar torch otra vez:
    la misma ``main`` con una salida estándar que solo sabe ASCII (estricta, como la de Python)."""
    import io

    from curso_gpu.entrenar_ddp import main

    crudo = io.BytesIO()
    consola = io.TextIOWrapper(crudo, encoding="ascii", errors="strict", write_through=True)
    monkeypatch.setattr(sys, "stdout", consola)
    assert main(["--epocas", "1"]) == 0
    texto = crudo.getvalue().decode("ascii")  # ni un byte que no sea ASCII
    assert re.search(r"^epoca +1/1 \. perdida media", texto, re.MULTILINE), texto  # «época 1/1 · pérdida»
    assert "copias identicas: si" in texto  # el resumen del final también llegó


def test_entrenar_ddp_rechaza_semilla_enorme_y_rutas_malas_antes_de_entrenar(tmp_path, capsys):
    """La misma ``main`` que ``python -m curso_gpu.entrenar_ddp``, en este proceso: sin importar torch
    otra vez en un subproceso solo para llegar a un error de argumentos."""
    from curso_gpu.entrenar_ddp import main

    with pytest.raises(SystemExit) as salida:
        main(["--semilla", str(2**70)])
    error = capsys.readouterr().err
    assert salida.value.code == 2 and "--semilla: debe ser un entero entre 0 y 2**63 - 1" in error
    assert "Overflow" not in error
    assert main(["--guardar-pesos", str(tmp_path), "--epocas", "1"]) == 1
    carpeta = capsys.readouterr()
    assert "--guardar-pesos" in carpeta.err and "es una carpeta" in carpeta.err
    assert "época" not in carpeta.out  # no entrenó nada antes de decirlo
    archivo = tmp_path / "f"
    archivo.write_text("x")
    assert main(["--checkpoints", str(archivo), "--epocas", "1"]) == 1
    ck = capsys.readouterr().err
    assert "--checkpoints" in ck and "Errno" not in ck


# Para el rango 0: llega 7 s tarde al error y, recién escrito el mensaje, recibe el SIGTERM que
# torchrun manda cuando otro rango sale antes. Es lo que pasó con la suite entera en 2 núcleos y el
# PyTorch con CUDA: el rango 1 se cansaba de esperar (5 s) y el mensaje salía dos veces, con una
# traza de _Parado. Python importa sitecustomize al arrancar, antes que nada del curso.
_RANGO_0_TARDE = """
import os, signal, sys, time
if os.environ.get("RANK") == "0":
    time.sleep(7)
    class _Stderr:
        def __init__(self, real):
            self.real = real
        def write(self, texto):
            escritos = self.real.write(texto)
            if "Pediste el backend nccl" in texto:
                self.real.flush()
                os.kill(os.getpid(), signal.SIGTERM)
            return escritos
        def __getattr__(self, nombre):
            return getattr(self.real, nombre)
    sys.stderr = _Stderr(sys.stderr)
"""


@pytest.mark.lento
@SIN_CUDA
def test_nccl_en_cpu_con_torchrun_un_solo_mensaje_en_espanol(tmp_path):
    """Aunque el rango 0 llegue tarde y le llegue SIGTERM al escribir: el peor orden posible."""
    (tmp_path / "sitecustomize.py").write_text(_RANGO_0_TARDE, encoding="utf-8")
    orden = orden_torchrun(["-m", "curso_gpu.entrenar_ddp", "--backend", "nccl", "--epocas", "1"], procesos=2)
    (r,) = ejecutar(orden, timeout_s=120, entorno={"PYTHONPATH": os.pathsep.join([str(tmp_path), str(RAIZ)])})
    assert not r.agotado and r.codigo != 0
    assert r.salida.count("Pediste el backend nccl") == 1, r.salida
    assert "ChildFailedError" not in r.salida and "Traceback" not in r.salida and "Root Cause" not in r.salida, r.salida


@pytest.mark.lento
def test_el_mismo_puerto_dos_veces_se_dice_antes_de_lanzar():
    from curso_gpu.distribuido import PuertoOcupado

    orden = orden_torchrun("guion_que_no_llega_a_correr.py")
    with pytest.raises(PuertoOcupado, match="mismo puerto de reunión"):
        ejecutar(orden, list(orden), timeout_s=30)
