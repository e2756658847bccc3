"""Lección 08: DDP con torchrun de verdad, en CPU (gloo, 2 procesos), sin dejar procesos vivos.

Lo que más cuesta es arrancar Python e importar torch (y torch._dynamo, que importa el
constructor de DistributedDataParallel) en cada proceso: unos 5 s de CPU por trabajador. Por
eso hay solo dos escenarios, lanzados a la vez una sola vez para todo el archivo:

- «nodos»: dos ``torchrun`` con ``--nnodes=2`` en 127.0.0.1, un proceso cada uno. Es la
  ejecución de referencia sin fallos (2 procesos × lote 16).
- «fallo»: un ``torchrun`` con 2 procesos en un nodo, ``--max-restarts=1`` y un rango que muere.

Se comparan entre sí (un nodo con 2 procesos frente a dos nodos; con fallo frente a sin fallo)
y los dos con un solo proceso con lote 32, que se ejecuta aquí mismo mientras tanto (con un
hilo, como cada trabajador): así no espera a que terminen los de torchrun.
"""

import socket
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from lentas import fixture_lenta
import torch

from curso_gpu import distribuido
from curso_gpu.checkpoints import cargar_pesos, como_carpeta
from curso_gpu.entrenar_ddp import main
from curso_gpu.distribuido import PuertoOcupado, ejecutar, orden_torchrun, sigue_vivo
from curso_gpu.entrenamiento import CNNPequena

COMUN = ["--epocas", "3", "--semilla", "0"]
ENTORNO = {"OMP_NUM_THREADS": "1"}


def _pesos(ruta):
    return cargar_pesos(ruta)  # --guardar-pesos lleva su SHA-256: se comprueba al cargar


def _puertos_distintos(n):
    """n puertos libres y distintos entre sí (se piden todos antes de soltar ninguno)."""
    enchufes = [socket.socket(socket.AF_INET, socket.SOCK_STREAM) for _ in range(n)]
    try:
        for enchufe in enchufes:
            enchufe.bind(("127.0.0.1", 0))
        return [enchufe.getsockname()[1] for enchufe in enchufes]
    finally:
        for enchufe in enchufes:
            enchufe.close()


def _un_proceso(ruta, tamano_lote):
    """Entrena aquí mismo, en un mundo de uno, con un hilo (como cada trabajador de torchrun)."""
    hilos = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        assert main([*COMUN, "--tamano-lote", str(tamano_lote), "--guardar-pesos", str(ruta), "--silencioso"]) == 0
    finally:
        torch.set_num_threads(hilos)
    return _pesos(ruta)


@fixture_lenta(scope="module")  # torchrun
def corridas(tmp_path_factory):
    """Lanza los dos escenarios con torchrun y, mientras corren, los de un solo proceso (lotes 32 y 16)."""
    carpeta = tmp_path_factory.mktemp("ddp")

    def programa(nombre, *extra):
        return ["-m", "curso_gpu.entrenar_ddp", *COMUN, "--tamano-lote", "16",
                "--guardar-pesos", str(carpeta / f"{nombre}.pt"), *extra]

    fallo, nodos = _puertos_distintos(2)
    ordenes = {
        "fallo": orden_torchrun(programa("fallo", "--checkpoints", str(carpeta / "ck"), "--simular-fallo", "2"),
                                procesos=2, reinicios=1, puerto=fallo),
        "nodo0": orden_torchrun(programa("nodos"), procesos=1, nodos=2, rango_nodo=0, puerto=nodos),
        "nodo1": orden_torchrun(programa("nodos"), procesos=1, nodos=2, rango_nodo=1, puerto=nodos),
    }
    with ThreadPoolExecutor(max_workers=1) as hilo:  # ejecutar espera (y limpia) en otro hilo
        en_marcha = hilo.submit(ejecutar, *ordenes.values(), timeout_s=180, entorno=ENTORNO)
        try:
            solos = {lote: _un_proceso(carpeta / f"solo_{lote}.pt", lote) for lote in (32, 16)}
        finally:
            resultados = en_marcha.result()
    return carpeta, dict(zip(ordenes, resultados)), solos


@pytest.fixture(scope="module")
def solo_32(corridas):
    """Un solo proceso (mundo de uno, aquí mismo) con el lote global de 32."""
    return corridas[2][32]


def _sin_fallo(r):
    """La salida de los dos «nodos» juntos: la ejecución de referencia, sin fallos, con 2 procesos."""
    _bien(r["nodo0"])
    _bien(r["nodo1"])
    return r["nodo0"].salida + "\n" + r["nodo1"].salida


def _bien(ejecucion):
    assert ejecucion.bien, f"{ejecucion.explicacion()}\n{ejecucion.salida[-3000:]}"


def test_dos_procesos_con_lote_16_dan_el_mismo_modelo_que_uno_con_lote_32(corridas, solo_32):
    carpeta, r, solos = corridas
    _sin_fallo(r)
    dos, uno = _pesos(carpeta / "nodos.pt"), solo_32
    assert list(dos) == list(uno) and not any(k.startswith("module.") for k in dos)
    for nombre in dos:
        torch.testing.assert_close(dos[nombre], uno[nombre], rtol=0, atol=1e-5)
    # y no por casualidad: otro lote global (un proceso con lote 16) da otros pesos
    assert (solos[16]["fc2.weight"] - dos["fc2.weight"]).abs().max() > 1e-3


def test_las_copias_de_los_dos_rangos_acaban_identicas(corridas):
    _, r, _ = corridas
    salida = _sin_fallo(r)
    huellas = {rango: linea.rsplit(" ", 1)[1] for linea in salida.splitlines()
               for rango in ("0", "1") if linea.startswith(f"[rango {rango}/2] huella de mis pesos:")}
    assert set(huellas) == {"0", "1"} and huellas["0"] == huellas["1"], salida
    assert "¿Copias idénticas en los 2 procesos? sí" in salida


def test_cada_rango_recibe_su_mitad_de_los_ejemplos(corridas):
    _, r, _ = corridas
    lineas = sorted(linea for linea in _sin_fallo(r).splitlines() if "me tocan" in linea)
    assert len(lineas) == 2 and all("me tocan 96 ejemplos" in linea for linea in lineas)
    assert [linea[:11] for linea in lineas] == ["[rango 0/2]", "[rango 1/2]"]
    assert lineas[0].split("primeros:")[1] != lineas[1].split("primeros:")[1]


def test_un_fallo_con_un_reinicio_acaba_igual_que_sin_fallo(corridas, solo_32):
    carpeta, r, _ = corridas
    _bien(r["fallo"])
    _sin_fallo(r)
    salida = r["fallo"].salida
    assert "[rango 1] Simulo un fallo en la época 2" in salida
    assert "otro proceso del grupo falló" in salida        # lo cuenta el rango 0, en español
    assert "failed (exitcode: 3)" in salida                 # y el que murió salió con error (torchrun lo anota)
    assert "Reanudo desde checkpoint_epoca_000001.pt" in salida
    # número a número igual que la ejecución sin fallos (los dos «nodos», también 2 procesos × 16)
    fallo, sin_fallo = _pesos(carpeta / "fallo.pt"), _pesos(carpeta / "nodos.pt")
    assert all(torch.equal(fallo[k], sin_fallo[k]) for k in sin_fallo)
    for nombre in solo_32:  # y casi igual que un proceso con lote 32: el reinicio no lo estropeó
        torch.testing.assert_close(fallo[nombre], solo_32[nombre], rtol=0, atol=1e-5)
    # solo escribe el rango 0, de forma atómica: ni temporales ni checkpoints de más
    archivos = sorted(p.name for p in (carpeta / "ck").iterdir())
    assert archivos == ["checkpoint_epoca_000001.pt", "checkpoint_epoca_000002.pt", "checkpoint_epoca_000003.pt"]


def test_dos_nodos_simulados_en_loopback_dan_los_mismos_pesos_que_un_nodo(corridas):
    carpeta, r, _ = corridas
    _sin_fallo(r)
    _bien(r["fallo"])   # el de un nodo con 2 procesos (tras su reinicio, sigue siendo un nodo)
    nodos, un_nodo = _pesos(carpeta / "nodos.pt"), _pesos(carpeta / "fallo.pt")
    for nombre in un_nodo:
        torch.testing.assert_close(nodos[nombre], un_nodo[nombre], rtol=0, atol=1e-6)
    assert "--nnodes=2" in " ".join(r["nodo0"].orden) and "--nnodes=1" in " ".join(r["fallo"].orden)


def test_no_queda_ningun_proceso_vivo(corridas):
    _, r, _ = corridas
    for nombre, ejecucion in r.items():
        assert len(ejecucion.procesos) >= 2, f"{nombre}: no se vieron los trabajadores de torchrun"
        vivos = [pid for pid in ejecucion.procesos if sigue_vivo(pid)]
        assert not vivos, f"{nombre}: siguen vivos {vivos}"


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
    for variable, valor in {"RANK": "1", "LOCAL_RANK": "1", "WORLD_SIZE": "2", "LOCAL_WORLD_SIZE": "2"}.items():
        monkeypatch.setenv(variable, valor)
    with pytest.raises(distribuido.ErrorDistribuido, match="2 procesos en esta máquina pero solo 1 GPU"):
        distribuido.iniciar("nccl")


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
