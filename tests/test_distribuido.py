"""Lección 08: DDP con torchrun de verdad, en CPU (gloo, 2 procesos), sin dejar procesos vivos.

torchrun solo se lanza en la lección 08 (una vez por sesión de pruebas, ``leccion_ejecutada``):
2 procesos con el guion de DDP puro, ``entrenar_ddp`` con un rango que muere y un reinicio, y dos
«nodos» en 127.0.0.1. La última celda de la lección comprueba con ``assert`` los pesos (2×16 ≈
1×32, idénticos tras el fallo y con 2 nodos) y que no queda ningún proceso vivo; aquí se lee lo
que imprimió, como lo lee quien sigue el curso. Lo que solo torchrun puede mostrar aparte (SIGKILL
a un grupo) está en ``test_torchrun_sigkill.py``; el resto de este archivo, en el mismo proceso.
"""

import contextlib
import os
import re
import signal
import socket
import subprocess
import sys
import time
import types
from pathlib import Path

import pytest
import torch

from curso_gpu import distribuido
from curso_gpu.guardado import cargar_pesos, como_carpeta
from curso_gpu.entrenar_ddp import main
from curso_gpu.distribuido import PuertoOcupado, ejecutar, orden_torchrun, sigue_vivo
from curso_gpu.entrenamiento import CNNPequena
from ejecucion_compartida import texto_impreso

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
    return texto_impreso(leccion_ejecutada("08"))


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
    assert sorted(r for r, _ in huellas) == ["0", "0", "1", "1"] and len({h for _, h in huellas}) == 1, huellas
    # con 1 nodo, cada rango escribe en su propio archivo (--log-dir, --redirects=3), que la lección muestra
    assert re.findall(r"── rango (\d) \(\w+/attempt_0/(\d)/stdout\.log\) ──", leccion_08) == [("0", "0"), ("1", "1")]
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
    # torchrun anota en inglés el primer proceso que vio terminar con error (el que murió, con 3, o el
    # rango 0, que lo notó, con 1: depende de cuál acabe antes); la lección lo traduce
    assert re.search(r"\[torchrun\] el rango [01] terminó con el código [13]: paro el grupo", leccion_08)
    assert "failed (exitcode" not in leccion_08 and "node_rank is only used" not in leccion_08
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

# Un aviso de torchrun con la traza de C++ de c10d, como el que dejó una máquina de CI ocupada al cerrar
# la reunión de dos nodos (direcciones y rutas de ejemplo).
_SALIDA_CON_AVISO = """\
node_rank is only used for static rdzv_backend. It will be ignored for rdzv_backend=c10d.
[rango 0] me tocan 64 ejemplos: [3, 7, 12] ...
W1207 21:38:02.641000 4242 /check/.venv/lib/python3.11/site-packages/torch/distributed/elastic/agent/server/api.py:1012] Error waiting on exit barrier. Elapsed: 0.01 seconds
Traceback (most recent call last):
  File "/check/.venv/lib/python3.11/site-packages/torch/distributed/elastic/agent/server/api.py", line 994, in _exit_barrier
    store_util.barrier(
torch.distributed.DistNetworkError: failed to recv, got 0 bytes
Exception raised from recvBytes at /pytorch/torch/csrc/distributed/c10d/Utils.hpp:678 (most recent call first):
frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x98 (0x7fed8655e60d in /check/.venv/lib/libc10.so)
frame #1: <unknown function> + 0x5f5e2 (0x7fed8655f5e2 in /check/.venv/lib/libc10.so)

[E1207 21:38:02.700000000 socket.cpp:1019] [c10d] The client socket has failed to connect to [localhost]:29500.
[rango 0] huella de los pesos: 0123456789abcdef
"""


def test_el_registro_en_ingles_de_torchrun_se_separa_de_lo_que_escribe_el_guion():
    from curso_gpu.distribuido import Ejecucion

    ejecucion = Ejecucion(orden=["torchrun"], codigo=0, salida=_SALIDA_CON_AVISO, segundos=1.0)
    assert ejecucion.propias == [
        "node_rank is only used for static rdzv_backend. It will be ignored for rdzv_backend=c10d.",
        "[rango 0] me tocan 64 ejemplos: [3, 7, 12] ...", "[rango 0] huella de los pesos: 0123456789abcdef"]
    assert len(ejecucion.registro) == 2
    primero, segundo = ejecucion.registro
    assert primero.startswith("W1207 21:38:02.641000 4242") and "frame #1:" in primero and "0x7fed8655f5e2" in primero
    assert segundo.startswith("[E1207") and "huella" not in segundo
    sin_avisos = Ejecucion(orden=["torchrun"], codigo=0, salida="[rango 1] hola\n", segundos=1.0)
    assert sin_avisos.propias == ["[rango 1] hola"] and sin_avisos.registro == []


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
    """Los procesos vivos (no zombis) cuya orden contiene ``marca``, leídos con psutil."""
    import psutil

    vivos = []
    for proceso in psutil.process_iter(["cmdline"]):
        if marca in (proceso.info.get("cmdline") or []) and sigue_vivo(proceso):
            vivos.append(proceso.pid)
    return vivos


@pytest.mark.lento  # espera a que venza el plazo y mata procesos
@pytest.mark.skipif(os.name == "nt", reason="SIGSTOP y SIGCONT son de POSIX")
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


@contextlib.contextmanager
def _durmiente_con_un_hijo():
    """Un programa (en su propia sesión: encabeza su grupo) con un hijo; los dos duermen 30 s. Da (Popen, hijo)."""
    import psutil

    codigo = ("import subprocess, sys, time; "
              "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(30)']); time.sleep(30)")
    proceso = subprocess.Popen([sys.executable, "-c", codigo], start_new_session=True)
    hijos = []
    try:
        limite = time.monotonic() + 10
        while not hijos and time.monotonic() < limite:
            time.sleep(0.05)
            hijos = psutil.Process(proceso.pid).children()
        (hijo,) = hijos
        yield proceso, hijo
    finally:
        for resto in hijos:  # psutil comprueba que sigue siendo el mismo antes de la señal
            with contextlib.suppress(psutil.Error):
                resto.kill()
        if proceso.poll() is None:  # sin recoger, su pid (y su grupo) siguen siendo suyos
            os.killpg(proceso.pid, signal.SIGKILL)
        proceso.wait()


def test_un_pid_reutilizado_nunca_recibe_una_senal(monkeypatch):
    """ejecutar recuerda cada proceso por su pid y su hora de creación. Si aquel murió y otro programa tomó
    su pid, la limpieza no para ni mata a ese programa, ni a su grupo, ni a sus hijos."""
    import psutil

    from curso_gpu.distribuido import lanzador

    with _durmiente_con_un_hijo() as (ajeno, hijo):
        # La frontera: el sistema operativo dijo otra hora de creación cuando se vio este pid (era otro proceso).
        with monkeypatch.context() as m:
            m.setattr(psutil._psplatform.Process, "create_time", lambda self, *a, **k: 1.0)
            visto_antes = psutil.Process(ajeno.pid)
        assert visto_antes.pid == ajeno.pid and not visto_antes.is_running()  # psutil lo reconoce: es otro
        lanzador._limpiar([], [{visto_antes}])  # lo que hace ejecutar al terminar, con ese recuerdo
        time.sleep(0.2)
        for pid in (ajeno.pid, hijo.pid):
            assert psutil.Process(pid).status() in (psutil.STATUS_SLEEPING, psutil.STATUS_RUNNING), pid  # ni parado
        assert ajeno.poll() is None


def test_la_limpieza_para_el_arbol_entero_de_un_proceso_reconocido():
    """El mismo árbol, reconocido (misma hora de creación): la limpieza lo para entero, con su grupo."""
    import psutil

    from curso_gpu.distribuido import lanzador

    with _durmiente_con_un_hijo() as (propio, hijo):
        lanzador._limpiar([propio], [{psutil.Process(propio.pid)}])
        limite = time.monotonic() + 5
        while sigue_vivo(hijo) and time.monotonic() < limite:
            time.sleep(0.05)
        assert propio.poll() is not None and not sigue_vivo(hijo)


def test_las_ordenes_dejan_sus_temporales_en_una_carpeta_propia_que_se_borra(tmp_path):
    # torchrun crea /tmp/torchelastic_* con tempfile.mkdtemp y no la borra: ejecutar le da su TMPDIR.
    codigo = "import tempfile; print(tempfile.mkdtemp(prefix='torchelastic_'))"
    (r,) = ejecutar([sys.executable, "-c", codigo], timeout_s=30)
    creada = Path(r.salida.strip())
    assert r.bien and creada.name.startswith("torchelastic_"), r.salida
    assert creada.parent.name.startswith("curso_gpu_ejecutar_") and not creada.parent.exists(), creada
    # Con un TMPDIR propio en «entorno», se usa ese y no se borra nada.
    (r,) = ejecutar([sys.executable, "-c", codigo], timeout_s=30, entorno={"TMPDIR": str(tmp_path)})
    creada = Path(r.salida.strip())
    assert creada.parent == tmp_path and creada.is_dir(), r.salida


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


def test_huella_de_pesos_sin_modelo_o_en_meta_lo_dice_en_espanol():
    with pytest.raises(ValueError, match=r"huella_de_pesos necesita un modelo de PyTorch.*recibí None"):
        distribuido.huella_de_pesos(None)
    with pytest.raises(ValueError, match=r"El modelo \(CNNPequena\) tiene sus pesos en el dispositivo 'meta'.*no hay "
                                         r"bytes de los que sacar una huella"):
        distribuido.huella_de_pesos(CNNPequena().to("meta"))


@pytest.mark.parametrize("puerto", ["99999", "0", "-5", "veinte"])
def test_un_master_port_imposible_lo_dice_antes_de_reunirse(monkeypatch, puerto):
    for variable, valor in {"RANK": "0", "WORLD_SIZE": "1", "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": puerto}.items():
        monkeypatch.setenv(variable, valor)
    with pytest.raises(distribuido.ErrorDistribuido, match=rf"MASTER_PORT debe ser un entero entre 1 y 65535; vale "
                                                         rf"'{puerto}'"):
        distribuido.iniciar()
    assert not torch.distributed.is_initialized()


def test_un_mundo_de_dos_sin_torchrun_se_dice_enseguida(monkeypatch, capsys):
    """RANK=0 WORLD_SIZE=2 sin MASTER_ADDR ni MASTER_PORT: antes, 60 s de espera y después el error."""
    for variable in ("MASTER_ADDR", "MASTER_PORT", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "TORCHELASTIC_RUN_ID"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("RANK", "0")
    monkeypatch.setenv("WORLD_SIZE", "2")
    inicio = time.perf_counter()
    assert main([*COMUN, "--silencioso"]) == 1
    assert time.perf_counter() - inicio < 10
    assert ("WORLD_SIZE=2 dice que hay 2 procesos, pero falta MASTER_ADDR y MASTER_PORT" in capsys.readouterr().err)
    monkeypatch.setenv("MASTER_ADDR", "127.0.0.1")  # solo una de las dos: también falta algo
    with pytest.raises(distribuido.ErrorDistribuido, match=r"falta MASTER_PORT: sin eso"):
        distribuido.iniciar()
    monkeypatch.delenv("RANK")
    monkeypatch.setenv("MASTER_PORT", "29500")  # y sin RANK, este no sabe quién es
    with pytest.raises(distribuido.ErrorDistribuido, match=r"falta RANK: sin eso"):
        distribuido.iniciar()
    assert not torch.distributed.is_initialized()


@pytest.mark.lento  # dos procesos con torch, lanzados a mano
def test_dos_procesos_lanzados_a_mano_con_todas_las_variables_se_reunen(tmp_path):
    """Quien lanza sin torchrun, con RANK, WORLD_SIZE, MASTER_ADDR y MASTER_PORT en cada proceso, sigue pudiendo."""
    puerto = distribuido.puerto_libre()
    orden = [sys.executable, "-m", "curso_gpu.entrenar_ddp", "--epocas", "1", "--tamano-lote", "16", "--silencioso"]
    comun = {"WORLD_SIZE": "2", "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(puerto),
             "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    r0, r1 = _dos_a_la_vez(orden, comun)
    assert r0.bien and r1.bien, (r0.salida, r1.salida)


def _dos_a_la_vez(orden, comun):
    """Los dos rangos a la vez (ejecutar lanza varias órdenes juntas con un mismo entorno: aquí, uno por rango)."""
    de_torchrun = ("LOCAL_RANK", "LOCAL_WORLD_SIZE", "TORCHELASTIC_RUN_ID", "TORCHELASTIC_USE_AGENT_STORE")
    entorno = {k: v for k, v in os.environ.items() if k not in de_torchrun}
    procesos = [subprocess.Popen(orden, env={**entorno, **comun, "RANK": str(rango)}, stdout=subprocess.PIPE,
                                 stderr=subprocess.STDOUT, text=True, start_new_session=True) for rango in (0, 1)]
    resultados = []
    try:
        for proceso in procesos:
            salida, _ = proceso.communicate(timeout=120)
            resultados.append(types.SimpleNamespace(bien=proceso.returncode == 0, salida=salida))
    finally:
        for proceso in procesos:
            if proceso.poll() is None:
                proceso.kill()
                proceso.wait()
    return resultados


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
