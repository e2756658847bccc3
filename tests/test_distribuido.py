"""Lección 08: DDP con torchrun de verdad, en CPU (gloo, 2 procesos), sin dejar procesos vivos.

torchrun solo se lanza en la lección 08 (una vez por sesión de pruebas, ``leccion_ejecutada``):
2 procesos con el guion de DDP puro, ``entrenar_ddp`` con un rango que muere y un reinicio, y dos
«nodos» en 127.0.0.1. La última celda de la lección comprueba con ``assert`` los pesos (2×16 ≈
1×32, idénticos tras el fallo y con 2 nodos) y que no queda ningún proceso vivo; aquí se lee lo
que imprimió, como lo lee quien sigue el curso. Lo que solo torchrun puede mostrar aparte (SIGKILL
a un grupo) está en ``test_torchrun_sigkill.py``; el resto de este archivo, en el mismo proceso.
"""

import os
import re
import signal
import socket
import sys
import time
from pathlib import Path

import pytest
import torch

from curso_gpu import distribuido
from curso_gpu.guardado import cargar_pesos, como_carpeta
from curso_gpu.entrenar_ddp import main
from curso_gpu.distribuido import PuertoOcupado, ejecutar, orden_torchrun, sigue_vivo
from curso_gpu.entrenamiento import CNNPequena

COMUN = ["--epocas", "3", "--semilla", "0"]


def _pesos(ruta):
    return cargar_pesos(ruta)  # --guardar-pesos lleva su SHA-256: se comprueba al cargar


def _un_proceso(ruta, tamano_lote):
    """Entrena aquí mismo, en un mundo de uno, con un hilo (como cada trabajador de torchrun)."""
    hilos = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        assert main([*COMUN, "--tamano-lote", str(tamano_lote), "--guardar-pesos", str(ruta), "--silencioso"]) == 0
    finally:
        torch.set_num_threads(hilos)
    return _pesos(ruta)


@pytest.fixture(scope="module")
def leccion_08(leccion_ejecutada):
    """Todo lo que imprimió la lección 08 al ejecutarse entera (una vez por sesión)."""
    cuaderno = leccion_ejecutada("08")
    return "\n".join(s.get("text", "") for c in cuaderno.cells if c.cell_type == "code"
                     for s in c.get("outputs", []) if s.get("output_type") == "stream")


def test_la_leccion_08_comprueba_sus_resultados_al_final(leccion_08):
    assert "Comprobado: DDP con torchrun da el mismo modelo con 1 o 2 nodos, tras un fallo, y sin procesos vivos." \
        in leccion_08


def test_dos_procesos_con_lote_16_dan_el_mismo_modelo_que_uno_con_lote_32(leccion_08):
    diferencia = float(re.search(r"Máxima diferencia entre 2×16 y 1×32: (\S+)", leccion_08).group(1))
    assert diferencia < 1e-5, leccion_08


def test_otro_lote_global_da_otros_pesos(tmp_path):
    """Y no por casualidad: con un proceso, lote 16 y lote 32 acaban lejos (aquí mismo, sin torchrun)."""
    lote_16, lote_32 = _un_proceso(tmp_path / "16.pt", 16), _un_proceso(tmp_path / "32.pt", 32)
    assert (lote_16["fc2.weight"] - lote_32["fc2.weight"]).abs().max() > 1e-3


def test_las_copias_de_los_dos_rangos_acaban_identicas(leccion_08):
    huellas = re.findall(r"\[rango (\d)\] huella de los pesos: (\w+)", leccion_08)  # 1 nodo y 2 nodos
    assert {r for r, _ in huellas} == {"0", "1"} and len({h for _, h in huellas}) == 1, huellas
    assert "→ ¿idénticas? True" in leccion_08
    assert "¿Copias idénticas en los 2 procesos? sí" in leccion_08  # lo dice entrenar_ddp tras el fallo


def test_cada_rango_recibe_su_mitad_de_los_ejemplos(leccion_08):
    # el guion de DDP puro («[rango 0] me tocan 96 ejemplos: [...]») y entrenar_ddp («[rango 0/2] época 1: ...»)
    for patron in (r"\[rango (\d)\] me tocan (\d+) ejemplos: (\[.*?\])", r"\[rango (\d)/2\] época 1: me tocan (\d+) ejemplos; los primeros: (\[.*?\])"):
        repartos = {rango: (n, primeros) for rango, n, primeros in re.findall(patron, leccion_08)}
        assert set(repartos) == {"0", "1"} and {n for n, _ in repartos.values()} == {"96"}, repartos
        assert repartos["0"][1] != repartos["1"][1], repartos  # mitades distintas


def test_un_fallo_con_un_reinicio_acaba_igual_que_sin_fallo(leccion_08):
    assert "[rango 1] Simulo un fallo en la época 2" in leccion_08
    assert "otro proceso del grupo falló" in leccion_08        # lo cuenta el rango 0, en español
    assert "failed (exitcode: 3)" in leccion_08                # y el que murió salió con error (torchrun lo anota)
    assert "Reanudo desde checkpoint_epoca_000001.pt" in leccion_08
    # solo escribe el rango 0, de forma atómica: ni temporales ni checkpoints de más
    assert ("checkpoints: ['checkpoint_epoca_000001.pt', 'checkpoint_epoca_000002.pt', "
            "'checkpoint_epoca_000003.pt']") in leccion_08
    assert "¿Pesos idénticos, número a número, al entrenamiento sin fallo? True" in leccion_08


def test_dos_nodos_simulados_en_loopback_dan_los_mismos_pesos_que_un_nodo(leccion_08):
    assert "--nnodes=2" in leccion_08 and "--node-rank=1" in leccion_08
    assert "¿Mismos pesos que un nodo con 2 procesos? True" in leccion_08


# ---------------------------------------------------------------------------
# Errores: en español, con código distinto de 0 y sin colgarse
# ---------------------------------------------------------------------------

@pytest.mark.skipif(torch.cuda.is_available(), reason="aquí sí hay CUDA")
def test_nccl_sin_cuda_da_un_error_en_espanol(capsys):
    inicio = time.perf_counter()
    assert main([*COMUN, "--backend", "nccl"]) == 1
    assert time.perf_counter() - inicio < 5
    error = capsys.readouterr().err
    assert "nccl" in error and "no hay ninguna GPU con CUDA" in error and "gloo" in error


def test_mas_procesos_que_gpu_con_nccl(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)   # una máquina falsa con 1 GPU
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 1)
    monkeypatch.setattr(torch.distributed, "is_nccl_available", lambda: True)  # y un PyTorch con NCCL
    for variable, valor in {"RANK": "1", "LOCAL_RANK": "1", "WORLD_SIZE": "2", "LOCAL_WORLD_SIZE": "2"}.items():
        monkeypatch.setenv(variable, valor)
    with pytest.raises(distribuido.ErrorDistribuido, match="2 procesos en esta máquina pero solo 1 GPU"):
        distribuido.iniciar("nccl")


@pytest.mark.parametrize("entorno, texto", [
    ({"WORLD_SIZE": "0"}, r"La variable de entorno WORLD_SIZE debe ser un entero mayor o igual que 1; vale '0'\. "
                          r"La pone torchrun"),
    ({"WORLD_SIZE": "dos"}, r"WORLD_SIZE debe ser un entero mayor o igual que 1; vale 'dos'"),
    ({"RANK": "-1"}, r"RANK debe ser un entero mayor o igual que 0; vale '-1'"),
    ({"RANK": "2", "WORLD_SIZE": "2"}, r"RANK=2 y LOCAL_RANK=0 deben ser menores que WORLD_SIZE=2"),
])
def test_variables_de_torchrun_imposibles_se_dicen_en_espanol(monkeypatch, entorno, texto):
    for variable, valor in entorno.items():
        monkeypatch.setenv(variable, valor)
    with pytest.raises(distribuido.ErrorDistribuido, match=texto):
        distribuido.iniciar("gloo")
    assert not torch.distributed.is_initialized()


@pytest.fixture
def puerto_ocupado():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        yield s.getsockname()[1]


def test_el_puerto_en_uso_se_dice_antes_de_lanzar(puerto_ocupado):
    with pytest.raises(PuertoOcupado, match=f"El puerto {puerto_ocupado} ya está en uso"):
        orden_torchrun(["-m", "curso_gpu.entrenar_ddp"], puerto=puerto_ocupado)


def test_el_puerto_en_uso_al_reunirse_da_un_error_en_espanol(puerto_ocupado, monkeypatch, capsys):
    entorno = {"RANK": "0", "LOCAL_RANK": "0", "WORLD_SIZE": "2", "MASTER_ADDR": "127.0.0.1",
               "MASTER_PORT": str(puerto_ocupado), "TORCHELASTIC_USE_AGENT_STORE": "False"}
    for variable, valor in entorno.items():
        monkeypatch.setenv(variable, valor)
    inicio = time.perf_counter()
    assert main([*COMUN]) == 1
    assert time.perf_counter() - inicio < 10
    assert f"El puerto {puerto_ocupado} ya está en uso" in capsys.readouterr().err


@pytest.mark.lento  # espera a que venza el plazo y mata procesos
def test_un_proceso_colgado_se_para_y_no_deja_hijos():
    codigo = ("import subprocess, sys, time; "
              "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'], start_new_session=True); "
              "time.sleep(60)")
    (r,) = ejecutar([sys.executable, "-c", codigo], timeout_s=1.5)
    assert r.agotado and not r.bien and "lo paré" in r.explicacion()
    assert len(r.procesos) == 2, r.procesos   # el padre y el nieto en otra sesión
    assert not [pid for pid in r.procesos if sigue_vivo(pid)]


def _con_marca(marca: str) -> list[int]:
    """Los procesos vivos (no zombis) cuya orden contiene ``marca``, leídos de /proc."""
    vivos = []
    for entrada in Path("/proc").iterdir():
        try:
            if entrada.name.isdigit() and marca.encode() in (entrada / "cmdline").read_bytes() and sigue_vivo(int(entrada.name)):
                vivos.append(int(entrada.name))
        except OSError:
            continue
    return vivos


@pytest.mark.lento  # espera a que venza el plazo y mata procesos
@pytest.mark.skipif(not Path("/proc").is_dir(), reason="los descendientes se leen de /proc (Linux)")
def test_un_proceso_que_no_para_de_crear_nietos_no_deja_ninguno_vivo():
    # Un nieto nacido entre la última lectura de /proc y la señal se escaparía colgando de init:
    # ejecutar congela el árbol (SIGSTOP) hasta que no aparece nadie nuevo, y después lo para.
    marca = f"curso_gpu_nieto_{os.getpid()}_{time.monotonic_ns()}"
    codigo = ("import subprocess, sys\n"
              "while True:\n"
              f"    subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(30)', {marca!r}], start_new_session=True)")
    try:
        (r,) = ejecutar([sys.executable, "-c", codigo], timeout_s=1.5)
        assert r.agotado and len(r.procesos) > 2, r.procesos
        time.sleep(0.2)
        assert _con_marca(marca) == []
    finally:
        for pid in _con_marca(marca):  # si falla, que no queden dormidos 30 s
            os.kill(pid, signal.SIGKILL)


# ---------------------------------------------------------------------------
# Piezas pequeñas
# ---------------------------------------------------------------------------

def test_una_carpeta_en_uso_por_otro_entrenamiento_se_rechaza(tmp_path, capsys):
    """El rango 0 toma el candado de la carpeta, como entrenar en la lección 05: nadie escribe a la vez."""
    carpeta = tmp_path / "ck"
    with como_carpeta(carpeta).candado():
        assert main([*COMUN, "--tamano-lote", "32", "--checkpoints", str(carpeta), "--silencioso"]) == 1
    assert "Otro entrenamiento" in capsys.readouterr().err
    assert not list(carpeta.glob("checkpoint_*.pt"))
    assert not torch.distributed.is_initialized()


def test_mundo_de_uno_fuera_de_torchrun():
    proceso = distribuido.iniciar()
    try:
        assert (proceso.rango, proceso.tamano_mundo, proceso.backend) == (0, 1, "gloo")
        assert distribuido.es_principal()
        t = torch.tensor([1.0, 3.0])
        media = distribuido.promediar(t)
        assert torch.equal(media, t) and media is not t
    finally:
        distribuido.terminar()
    assert not torch.distributed.is_initialized()


def test_errores_claros_de_las_piezas():
    with pytest.raises(ValueError, match="necesita un tensor"):
        distribuido.promediar(3.0)
    with pytest.raises(distribuido.ErrorDistribuido, match="Backend desconocido 'mpi'"):
        distribuido.elegir_backend("mpi")
    with pytest.raises(ValueError, match="timeout_s"):
        distribuido.iniciar(timeout_s=0)


def test_la_huella_cambia_si_cambia_un_solo_peso():
    torch.manual_seed(0)
    a = CNNPequena()
    b = CNNPequena()
    b.load_state_dict(a.state_dict())
    assert distribuido.huella_de_pesos(a) == distribuido.huella_de_pesos(b)
    with torch.no_grad():
        b.fc2.bias[0] += 1e-7
    assert distribuido.huella_de_pesos(a) != distribuido.huella_de_pesos(b)


def test_allreduce_en_anillo_envia_2_n_menos_1_entre_n_del_gradiente():
    t = distribuido.tiempo_allreduce(25_000_000, 8, 16.0)
    assert t.bytes_gradiente == 100_000_000
    assert t.bytes_por_gpu == pytest.approx(2 * 7 / 8 * 100e6)
    assert t.segundos == pytest.approx(175e6 / 16e9)
    assert distribuido.tiempo_allreduce(25_000_000, 1, 16.0).segundos == 0
    assert distribuido.tiempo_allreduce(25_000_000, 8, 16.0, bytes_por_parametro=2).segundos == pytest.approx(t.segundos / 2)
    assert "8 GPU" in str(t) and "ms por paso" in str(t)


def test_8_t4_por_pcie_escalan_peor_que_8_h100_con_nvlink():
    t4 = distribuido.tiempo_allreduce(25_000_000, 8, "PCIe 3.0 x16")
    h100 = distribuido.tiempo_allreduce(25_000_000, 8, "NVLink H100")
    assert t4.segundos / h100.segundos == pytest.approx(450 / 15.75)
    # con 50 ms de cálculo por paso: PCIe se come parte de la ganancia, NVLink casi nada
    assert t4.aceleracion(0.05) < 7 < h100.aceleracion(0.05) < 8
    assert h100.aceleracion(0.05, solapar=True) == pytest.approx(8)
    assert t4.eficiencia(0.05) == pytest.approx(t4.aceleracion(0.05) / 8)


@pytest.mark.parametrize("argumentos, texto", [
    ((0, 8, 16.0), "parametros"), ((10, 0, 16.0), "gpus"), ((10, 8, 0), "ancho_de_banda_gb_s"),
    ((10, 8, "NVLink T4"), "Enlace desconocido"), ((10, 8, float("nan")), "ancho_de_banda_gb_s"),
])
def test_la_calculadora_rechaza_entradas_sin_sentido(argumentos, texto):
    with pytest.raises(ValueError, match=texto):
        distribuido.tiempo_allreduce(*argumentos)


@pytest.mark.skipif(torch.cuda.is_available(), reason="aquí sí hay CUDA")
def test_la_comprobacion_en_gpu_sin_gpu_se_salta():
    import importlib.util

    from pathlib import Path

    ruta = Path(__file__).resolve().parents[1] / "benchmarks" / "ddp_benchmark.py"
    spec = importlib.util.spec_from_file_location("ddp_benchmark", ruta)
    modulo = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(modulo)
    assert modulo.comprobar_en_gpu() == ["SKIP entrenar_ddp con nccl: no hay GPU con CUDA"]


def test_la_ayuda_y_los_errores_de_la_linea_de_ordenes_en_espanol(capsys):
    with pytest.raises(SystemExit) as salida:
        main(["--epocas", "0"])
    assert salida.value.code == 2
    assert "debe ser un entero mayor o igual que 1" in capsys.readouterr().err
