"""Lección 05: un checkpoint no se pierde nunca (reanudar por defecto, candado, sumas, disco lleno).

Cada prueba reproduce un caso en el que antes se perdían o se estropeaban checkpoints.
Los fallos de disco se simulan en la frontera con el sistema operativo (``os.fsync`` que
devuelve ENOSPC o EROFS, como un disco lleno o una carpeta de solo lectura).
"""

from __future__ import annotations

import dataclasses
import errno
import os
import subprocess
import sys
import textwrap
import threading
import time
import types
import zipfile
from pathlib import Path

import pytest
import torch

from curso_gpu.base import formatear_bytes
from curso_gpu import guardado as ck
from curso_gpu.dispositivo import colab
from curso_gpu.guardado import (
    FORMATO,
    AvisoCheckpoint,
    CarpetaCheckpoints,
    CarpetaOcupada,
    CheckpointNoGuardado,
    cargar_checkpoint,
    carpeta_checkpoints,
    como_carpeta,
    guardar_atomico,
)
from curso_gpu.entrenamiento import generar_dataset
from curso_gpu.entrenamiento import PerdidaNoFinita, entrenar
from curso_gpu.entrenamiento import CNNPequena, MLPTabular
from interrupciones import Desconexion, cortar_en

ENT, VAL = generar_dataset(10, semilla=1), generar_dataset(5, semilla=2)


def _modelo():
    torch.manual_seed(0)
    return CNNPequena()


def _nombres(carpeta: Path) -> list[str]:
    return sorted(p.name for p in carpeta.iterdir())


def _con_opciones(carpeta, cada=5, reanudar=None) -> CarpetaCheckpoints:
    """La carpeta (una ruta o una ``CarpetaCheckpoints``) con sus opciones de guardar y reanudar."""
    return dataclasses.replace(como_carpeta(carpeta), cada=cada, reanudar=reanudar)


def _entrenar(carpeta, cada=5, reanudar=None, datos=ENT, **kw):
    opciones = dict(epocas=10, semilla=3, checkpoints=_con_opciones(carpeta, cada, reanudar), silencioso=True)
    opciones.update(kw)
    return entrenar(_modelo(), datos, VAL, "cpu", **opciones)


# --- 1. Volver a ejecutar la celda reanuda; empezar de cero se pide y no borra -------------------

@pytest.mark.parametrize("silencioso", [False, True])
def test_volver_a_ejecutar_la_celda_sin_reanudar_sigue_desde_el_ultimo(tmp_path, silencioso):
    """Lo que hace quien pierde la conexión con Colab: vuelve a ejecutar la misma celda."""
    with pytest.raises(Desconexion):
        _entrenar(tmp_path, al_avanzar=cortar_en(7))
    guardado = (tmp_path / "checkpoint_epoca_000005.pt").read_bytes()
    historial = _entrenar(tmp_path, silencioso=silencioso)  # la misma llamada, sin reanudar=True
    assert historial.reanudado_desde == 5
    (aviso,) = historial.avisos  # el canal de entrenar: lo anota en el historial, también si es silencioso
    assert aviso.startswith("Reanudo desde") and "época 5 de 10" in aviso and aviso in str(historial)
    assert _nombres(tmp_path) == ["checkpoint_epoca_000005.pt", "checkpoint_epoca_000010.pt"]
    assert (tmp_path / "checkpoint_epoca_000005.pt").read_bytes() == guardado


def test_un_entrenamiento_terminado_se_carga_sin_volver_a_entrenar(tmp_path):
    _entrenar(tmp_path)
    epocas = []
    modelo = CNNPequena()
    historial = entrenar(modelo, ENT, VAL, "cpu", epocas=10, checkpoints=tmp_path,
                         al_avanzar=lambda e, t: epocas.append(e))
    assert epocas == []
    assert "ya había terminado (época 10 de 10)" in historial.avisos[0]
    guardado = cargar_checkpoint(tmp_path / "checkpoint_epoca_000010.pt")["modelo"]
    assert all(torch.equal(guardado[k], v) for k, v in modelo.state_dict().items())


def test_menos_epocas_de_las_ya_hechas_da_error_con_el_arreglo(tmp_path):
    _entrenar(tmp_path)
    with pytest.raises(ValueError, match=r"ya va por la época 10 y ahora pides epocas=5. Pide epocas=10 o más"):
        _entrenar(tmp_path, epocas=5)
    assert _nombres(tmp_path) == ["checkpoint_epoca_000005.pt", "checkpoint_epoca_000010.pt"]


def test_si_ningun_checkpoint_se_lee_los_aparta_en_vez_de_dejarlos_pisar(tmp_path):
    (tmp_path / "checkpoint_epoca_000050.pt").write_bytes(b"roto")
    with pytest.warns(AvisoCheckpoint, match="dañado"):
        _entrenar(tmp_path)
    assert _nombres(tmp_path) == ["anteriores", "checkpoint_epoca_000005.pt", "checkpoint_epoca_000010.pt"]
    (apartada,) = (tmp_path / "anteriores").iterdir()
    assert (apartada / "checkpoint_epoca_000050.pt").read_bytes() == b"roto"


def test_reanudar_debe_ser_booleano_o_none(tmp_path):
    with pytest.raises(ValueError, match="reanudar debe ser None"):
        _entrenar(tmp_path, reanudar="no")


# --- 5. Reanudar compara la configuración ---------------------------------------------------------

def test_reanudar_con_otro_lr_avisa_y_usa_el_nuevo(tmp_path):
    with pytest.raises(Desconexion):
        _entrenar(tmp_path, lr=0.01, al_avanzar=cortar_en(7))
    with pytest.warns(AvisoCheckpoint, match=r"lr 0\.01 → 0\.5 \(uso 0\.5\)"):
        historial = _entrenar(tmp_path, lr=0.5)
    assert any("lr 0.01 → 0.5" in aviso for aviso in historial.avisos)  # también queda anotado
    final = cargar_checkpoint(tmp_path / "checkpoint_epoca_000010.pt")
    assert final["optimizador"]["param_groups"][0]["lr"] == 0.5  # antes seguía con 0.01 sin decir nada
    assert final["configuracion"]["lr"] == 0.5


def test_reanudar_con_otro_lote_otras_epocas_y_otro_dispositivo_lo_dice_todo(tmp_path):
    with pytest.raises(Desconexion):
        _entrenar(tmp_path, al_avanzar=cortar_en(7))
    ruta = tmp_path / "checkpoint_epoca_000005.pt"
    estado = cargar_checkpoint(ruta)
    estado["configuracion"]["dispositivo"] = "cuda"  # como si se hubiera entrenado en la T4 de Colab
    guardar_atomico(estado, ruta)
    with pytest.warns(AvisoCheckpoint) as avisos:
        historial = _entrenar(tmp_path, epocas=12, tamano_lote=8)
    texto = " ".join(str(a.message) for a in avisos)
    assert "tamano_lote None → 8" in texto and "epocas 10 → 12" in texto
    assert "dispositivo cuda → cpu" in texto and "no será idéntico bit a bit" in texto
    assert historial.epocas_registradas[-1] == 12


def test_reanudar_con_otro_modelo_lo_rechaza_con_el_arreglo(tmp_path):
    _entrenar(tmp_path)
    with pytest.raises(ValueError, match=r"no corresponde a este modelo.*conv1.weight.*reanudar=False"):
        entrenar(CNNPequena(canales=(4, 8)), ENT, VAL, "cpu", epocas=12, checkpoints=tmp_path, silencioso=True)


# --- 2. Candado: un solo entrenamiento por carpeta ------------------------------------------------

def test_segundo_entrenamiento_en_la_misma_carpeta_y_proceso_se_rechaza(tmp_path):
    errores = []

    def a_mitad(epoca, total):
        if epoca == 2:
            with pytest.raises(CarpetaOcupada, match=rf"este mismo proceso, pid {os.getpid()}") as error:
                _entrenar(tmp_path)
            errores.append(error.value)

    _entrenar(tmp_path, al_avanzar=a_mitad)
    assert len(errores) == 1
    assert _nombres(tmp_path) == ["checkpoint_epoca_000005.pt", "checkpoint_epoca_000010.pt"]  # candado suelto
    _entrenar(tmp_path, reanudar=False)  # y se puede volver a usar


def _proceso_con_candado(carpeta: Path, marca: Path) -> subprocess.Popen:
    """Otro proceso que toma el candado como lo hace curso_gpu (flock + su pid) y se queda esperando."""
    codigo = textwrap.dedent(f"""
        import fcntl, os, socket, time
        fd = os.open({str(carpeta / ck.CANDADO)!r}, os.O_RDWR | os.O_CREAT, 0o644)
        fcntl.flock(fd, fcntl.LOCK_EX)
        os.write(fd, f"pid {{os.getpid()}} en {{socket.gethostname()}}, desde hoy".encode())
        open({str(marca)!r}, "w").close()
        time.sleep(60)
    """)
    proceso = subprocess.Popen([sys.executable, "-c", codigo])
    limite = time.monotonic() + 30
    while not marca.exists():
        assert proceso.poll() is None and time.monotonic() < limite
        time.sleep(0.02)
    return proceso


@pytest.mark.skipif(os.name == "nt", reason="flock no existe en Windows")
def test_otro_proceso_entrenando_se_nombra_y_su_candado_muerto_se_toma(tmp_path):
    carpeta = tmp_path / "ck"
    carpeta.mkdir()
    otro = _proceso_con_candado(carpeta, tmp_path / "listo")
    try:
        with pytest.raises(CarpetaOcupada, match=rf"Otro entrenamiento \(pid {otro.pid} en .*\) está usando la carpeta"):
            _entrenar(carpeta)
        assert _nombres(carpeta) == [ck.CANDADO]  # no tocó nada
    finally:
        otro.kill()
        otro.wait(timeout=30)
    with pytest.warns(AvisoCheckpoint, match=rf"candado de un entrenamiento que ya no existe \(pid {otro.pid}"):
        _entrenar(carpeta)
    assert _nombres(carpeta) == ["checkpoint_epoca_000005.pt", "checkpoint_epoca_000010.pt"]


def test_al_tomar_el_candado_se_limpian_los_temporales_de_un_proceso_muerto(tmp_path):
    restos = [".checkpoint_epoca_000005.pt.tmp", ".checkpoint_epoca_000005.pt.abc123.tmp", ".prueba_de_escritura.x1.tmp"]
    for nombre in restos:
        (tmp_path / nombre).write_bytes(b"a medias")
    (tmp_path / "mis_notas.txt").write_text("esto es del alumno")
    _entrenar(tmp_path)
    assert _nombres(tmp_path) == ["checkpoint_epoca_000005.pt", "checkpoint_epoca_000010.pt", "mis_notas.txt"]


def test_dos_escritores_y_un_lector_en_el_mismo_archivo_no_rompen_nada(tmp_path):
    destino = tmp_path / "checkpoint_epoca_000001.pt"
    guardar_atomico({"formato": FORMATO, "epoca": 0, "modelo": {"w": torch.zeros(2000)}}, destino)
    fallos, leidos = [], []

    def escritor(valor):
        try:
            for i in range(25):
                guardar_atomico({"formato": FORMATO, "epoca": i, "modelo": {"w": torch.full((2000,), float(valor))}}, destino)
        except Exception as error:  # antes: FileNotFoundError al compartir el temporal
            fallos.append(error)

    def lector():
        for _ in range(40):
            try:
                w = cargar_checkpoint(destino)["modelo"]["w"]
            except Exception as error:
                fallos.append(error)
                continue
            leidos.append(bool((w == w[0]).all()) and float(w[0]) in (0.0, 1.0, 2.0))

    hilos = [threading.Thread(target=escritor, args=(1,)), threading.Thread(target=escritor, args=(2,)),
             threading.Thread(target=lector)]
    for hilo in hilos:
        hilo.start()
    for hilo in hilos:
        hilo.join(timeout=60)
    assert fallos == [] and len(leidos) == 40 and all(leidos)  # nada roto, nada mezclado
    assert _nombres(tmp_path) == [destino.name]


def test_un_candado_que_es_una_carpeta_se_dice_y_no_se_borra(tmp_path):
    """Antes: IsADirectoryError. La carpeta puede tener algo del alumno: no se toca."""
    (tmp_path / ck.CANDADO).mkdir()
    (tmp_path / ck.CANDADO / "mio.txt").write_text("no me borres")
    with pytest.raises(CarpetaOcupada, match=r"\.entrenando\.lock es una carpeta, y ese nombre es el del candado.*"
                                             r"No la borro por si tiene algo tuyo"):
        _entrenar(tmp_path)
    assert (tmp_path / ck.CANDADO / "mio.txt").read_text() == "no me borres"
    assert _nombres(tmp_path) == [ck.CANDADO]


# --- 3. Nunca se sigue un enlace simbólico --------------------------------------------------------

@pytest.mark.skipif(os.name == "nt", reason="enlaces simbólicos de POSIX")
def test_enlaces_plantados_en_la_carpeta_nunca_se_siguen(tmp_path):
    fuera = tmp_path / "fuera"
    fuera.mkdir()
    victimas = {nombre: fuera / nombre for nombre in ("prueba", "candado", "temporal", "final")}
    for victima in victimas.values():
        victima.write_text("no me toques")
    carpeta = tmp_path / "ck"
    carpeta.mkdir()
    (carpeta / ".prueba_de_escritura").symlink_to(victimas["prueba"])
    (carpeta / ck.CANDADO).symlink_to(victimas["candado"])
    (carpeta / ".checkpoint_epoca_000005.pt.tmp").symlink_to(victimas["temporal"])
    (carpeta / "checkpoint_epoca_000010.pt").symlink_to(victimas["final"])
    with pytest.warns(AvisoCheckpoint, match="dañado"):  # el enlace con nombre de checkpoint no se carga
        _entrenar(carpeta, reanudar=None)
    assert all(v.read_text() == "no me toques" for v in victimas.values())
    assert _nombres(fuera) == ["candado", "final", "prueba", "temporal"]
    assert (carpeta / ".prueba_de_escritura").is_symlink()  # ni se siguió ni se borró


# --- 4. Suma SHA-256 --------------------------------------------------------------------------------

def _voltear_un_bit_de_los_pesos(ruta: Path) -> None:
    """Cambia un bit dentro de los datos de un tensor, sin romper el zip (torch no mira el CRC)."""
    with zipfile.ZipFile(ruta) as archivo:
        info = max((i for i in archivo.infolist() if "/data/" in i.filename), key=lambda i: i.file_size)
        inicio = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra)
    with open(ruta, "r+b") as f:
        f.seek(inicio + info.file_size // 2)
        byte = f.read(1)[0]
        f.seek(-1, os.SEEK_CUR)
        f.write(bytes([byte ^ 0x10]))


def test_un_bit_cambiado_se_detecta_y_se_usa_el_anterior(tmp_path):
    carpeta = CarpetaCheckpoints(ruta=tmp_path, local=tmp_path)
    carpeta.guardar({"formato": FORMATO, "epoca": 5, "modelo": {"w": torch.arange(1000.0)}}, 5)
    ultimo = carpeta.guardar({"formato": FORMATO, "epoca": 10, "modelo": {"w": torch.arange(1000.0) * 2}}, 10)
    _voltear_un_bit_de_los_pesos(ultimo)
    torch.load(ultimo, weights_only=True)  # torch lo carga sin quejarse: con un peso cambiado
    with pytest.warns(AvisoCheckpoint, match="checkpoint_epoca_000010.pt no pasa la suma de verificación SHA-256"):
        estado = carpeta.cargar_ultimo()
    assert estado["epoca"] == 5 and torch.equal(estado["modelo"]["w"], torch.arange(1000.0))
    with pytest.raises(ck.CheckpointDanado, match="SHA-256"):
        cargar_checkpoint(ultimo)


def test_cargar_checkpoint_que_no_existe_o_con_dispositivo_mal_escrito(tmp_path):
    with pytest.raises(ValueError, match=r"No existe el checkpoint .*no_esta\.pt"):
        cargar_checkpoint(tmp_path / "no_esta.pt")
    ruta = guardar_atomico({"epoca": 1, "modelo": {}}, tmp_path / "a.pt")
    with pytest.raises(ValueError, match=r"Dispositivo no válido: 'gpu'"):
        cargar_checkpoint(ruta, "gpu")
    with pytest.raises(ValueError, match=r"Dispositivo no válido: 'gpu'"):
        CarpetaCheckpoints(ruta=tmp_path, local=tmp_path).cargar_ultimo("gpu")


@pytest.mark.parametrize("llamada, patron", [
    (lambda base: carpeta_checkpoints("a\0b", base=base, silenciosa=True), "nombre de la carpeta de checkpoints no vale"),
    (lambda base: carpeta_checkpoints("x", base=5, silenciosa=True), r"base debe ser la ruta de una carpeta \(un texto o un Path\); recibí 5"),
    (lambda base: carpeta_checkpoints("x", base=str(base) + "\0", silenciosa=True), r"base .* tiene un carácter nulo"),
    (lambda base: cargar_checkpoint(str(base) + "/a\0.pt"), r"ruta del checkpoint .* tiene un carácter nulo"),
    (lambda base: cargar_checkpoint(None), r"ruta del checkpoint debe ser la ruta de un archivo .*recibí None"),
])
def test_rutas_con_nulos_o_que_no_son_rutas(tmp_path, llamada, patron):
    with pytest.raises(ValueError, match=patron):
        llamada(tmp_path)


# --- 6. Disco lleno o de solo lectura a mitad del entrenamiento -----------------------------------

@pytest.mark.parametrize("codigo, texto", [(errno.ENOSPC, "No queda espacio en"),
                                           (errno.EROFS, "ya no deja escribir")])
def test_disco_lleno_a_mitad_conserva_los_anteriores_y_el_historial(tmp_path, monkeypatch, codigo, texto):
    carpeta = CarpetaCheckpoints(ruta=tmp_path, local=tmp_path, conservar=3)
    _entrenar(carpeta, epocas=6, cada=2)
    antes = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    assert len(antes) == 3
    fsync = os.fsync

    def disco_lleno(fd):
        if Path(os.readlink(f"/proc/self/fd/{fd}")).name.startswith(".checkpoint_epoca_000008"):
            raise OSError(codigo, os.strerror(codigo))
        return fsync(fd)

    if not Path("/proc/self/fd").is_dir():
        pytest.skip("necesita /proc")
    monkeypatch.setattr(os, "fsync", disco_lleno)
    with pytest.raises(CheckpointNoGuardado) as error, pytest.warns(AvisoCheckpoint, match="epocas 6 → 10"):
        _entrenar(carpeta, epocas=10, cada=2)
    mensaje = str(error.value)
    assert texto in mensaje and str(tmp_path) in mensaje and "checkpoints anteriores siguen intactos" in mensaje
    if codigo == errno.ENOSPC:
        assert "hacen falta unos" in mensaje and error.value.necesario > 0
    assert error.value.historial.epocas_registradas == [1, 6]  # lo entrenado no se pierde
    assert isinstance(error.value, OSError) and error.value.errno == codigo
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == antes  # ni temporales ni borrados


def test_disco_lleno_dentro_de_torch_save_tambien_da_el_error_claro(tmp_path, monkeypatch):
    """torch.save convierte el OSError de write en un RuntimeError de C++ («unexpected pos»)."""
    carpeta = CarpetaCheckpoints(ruta=tmp_path, local=tmp_path)
    carpeta.guardar({"formato": FORMATO, "epoca": 5, "modelo": {"w": torch.zeros(10)}}, 5)
    fdopen = os.fdopen

    class DiscoLleno:
        def __init__(self, archivo):
            self.archivo = archivo

        def write(self, datos):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

        def __getattr__(self, nombre):
            return getattr(self.archivo, nombre)

        def __enter__(self):
            return self

        def __exit__(self, *excepcion):
            self.archivo.close()

    estado = {"epoca": 10, "modelo": {"w": torch.zeros(10_000)}}
    de_verdad = guardar_atomico(estado, tmp_path.parent / f"{tmp_path.name}_referencia.pt").stat().st_size
    monkeypatch.setattr(os, "fdopen", lambda fd, *a, **k: DiscoLleno(fdopen(fd, *a, **k)))
    with pytest.raises(CheckpointNoGuardado) as error:
        carpeta.guardar(estado, 10)
    # Lo que ocupa el archivo de verdad (no solo sus tensores, 40.0 kB), y que deben caber conservar + 1.
    assert error.value.necesario == de_verdad and de_verdad > 40_000
    assert f"hacen falta unos {formatear_bytes(de_verdad)} para este checkpoint" in str(error.value)
    assert "tienen que caber conservar + 1 = 4 checkpoints" in str(error.value)
    assert _nombres(tmp_path) == ["checkpoint_epoca_000005.pt"]


# --- 7. Drive que no responde ------------------------------------------------------------------------

def test_drive_que_no_responde_se_abandona_y_se_usa_la_carpeta_local(monkeypatch, tmp_path, capsys):
    soltar = threading.Event()

    class DriveColgado:
        def mount(self, punto):
            soltar.wait(30)  # como un montaje que no vuelve nunca

    google, modulo = types.ModuleType("google"), types.ModuleType("google.colab")
    modulo.drive = DriveColgado()
    google.colab = modulo
    monkeypatch.setitem(sys.modules, "google", google)
    monkeypatch.setitem(sys.modules, "google.colab", modulo)
    monkeypatch.setattr(colab, "ESPERA_DRIVE", 0.3)
    try:
        inicio = time.monotonic()
        with pytest.warns(AvisoCheckpoint, match="No se pudo montar Google Drive"):
            carpeta = carpeta_checkpoints("cnn", base=tmp_path, silenciosa=True, drive=True)
        assert time.monotonic() - inicio < 10
    finally:
        soltar.set()
    salida = capsys.readouterr().out
    assert "no respondió en 0.3 s" in salida and str(tmp_path / "cnn") in salida
    assert not carpeta.en_drive and carpeta.ruta == tmp_path / "cnn"


# --- La pérdida NaN para el entrenamiento y no se guarda -------------------------------------------

class PerdidaQueExplota(torch.nn.Module):
    """Entropía cruzada que da NaN desde la llamada ``desde`` (como un lr que diverge)."""

    def __init__(self, desde):
        super().__init__()
        self.llamadas, self.desde = 0, desde

    def forward(self, logits, y):
        self.llamadas += 1
        perdida = torch.nn.functional.cross_entropy(logits, y)
        return perdida * float("nan") if self.llamadas >= self.desde else perdida


def test_perdida_nan_para_con_el_historial_y_sin_guardar_pesos_rotos(tmp_path):
    # Antes de entrenar se prueba el criterio con dos ejemplos de ent. y de val. (llamadas 1, 2).
    # Época 1: paso (3) + medir ent. y val. (4, 5). Época 2: paso (6). Época 3: paso (7) → NaN.
    with pytest.raises(PerdidaNoFinita, match=r"en la época 3: paro el entrenamiento.*prueba lr=0.001") as error:
        _entrenar(tmp_path, criterio=PerdidaQueExplota(desde=7), cada=1, lr=0.01)
    assert error.value.historial.epocas_registradas == [1]
    assert _nombres(tmp_path) == ["checkpoint_epoca_000001.pt", "checkpoint_epoca_000002.pt"]  # la 3 no
    assert all(torch.isfinite(v).all() for v in cargar_checkpoint(tmp_path / "checkpoint_epoca_000002.pt")["modelo"].values())


def test_perdida_nan_entre_registros_tambien_para_sin_checkpoints():
    with pytest.raises(PerdidaNoFinita, match="época 4") as error:
        entrenar(_modelo(), ENT, VAL, "cpu", epocas=9, criterio=PerdidaQueExplota(desde=8), silencioso=True)  # 2 llamadas de prueba antes
    assert error.value.historial.epocas_registradas == [1]


def test_entrenar_ddp_con_una_perdida_nan_para_y_no_guarda(tmp_path, monkeypatch, capsys):
    """Lección 08: el entrenador distribuido usa el mismo núcleo (aquí, un mundo de uno)."""
    from curso_gpu.entrenamiento import ddp
    from curso_gpu.entrenar_ddp import main

    monkeypatch.setattr(ddp, "LR", 1e10)  # el lr de la lección 08 es fijo: aquí, uno que diverge
    carpeta = tmp_path / "ddp"
    for checkpoints in ([], ["--checkpoints", str(carpeta)]):
        assert main(["--epocas", "3", "--tamano-lote", "32", *checkpoints, "--silencioso"]) == 1
        assert "La pérdida dejó de ser un número finito (NaN o infinito) en la época 1" in capsys.readouterr().err
        assert not torch.distributed.is_initialized()
    assert not list(carpeta.glob("checkpoint_*.pt"))


def test_el_nucleo_nunca_escribe_pesos_nan(tmp_path):
    """La última defensa, en el único sitio donde se escribe un checkpoint (los tres entrenadores)."""
    from curso_gpu.entrenamiento import Historial, NucleoCheckpoints

    modelo = _modelo()
    optimizador = torch.optim.Adam(modelo.parameters())
    configuracion = {"epocas": 2, "lr": 0.5}
    with NucleoCheckpoints(tmp_path, entrenador="entrenar", configuracion=configuracion, cada=1) as nucleo:
        assert nucleo.guardar(1, pesos=modelo.state_dict(), optimizador=optimizador, historial=Historial()).exists()
        pesos = modelo.state_dict()
        next(iter(pesos.values()))[0] = float("inf")
        with pytest.raises(PerdidaNoFinita, match=r"época 2.*prueba lr=0.05"):
            nucleo.guardar(2, pesos=pesos, optimizador=optimizador, historial=Historial())
    assert _nombres(tmp_path) == ["checkpoint_epoca_000001.pt"]


def test_red_tabular_sin_criterio_elige_la_perdida_binaria():
    from curso_gpu.entrenamiento import generar_datos_tabulares

    torch.manual_seed(0)
    ent, val = generar_datos_tabulares(200, semilla=1), generar_datos_tabulares(100, semilla=2)
    historial = entrenar(MLPTabular(), ent, val, "cpu", epocas=60, lr=0.02, silencioso=True)
    assert historial.final.accuracy_validacion >= 0.85  # con entropía cruzada de 1 clase no aprendía nada
