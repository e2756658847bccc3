"""Lección 05: checkpoints atómicos, en Drive o en local, que sobreviven a una desconexión."""

from __future__ import annotations

import os
import random
import re
import signal
import subprocess
import sys
import types
import zipfile
from pathlib import Path

import numpy as np
import pytest
import torch

from curso_gpu import dispositivo as colab  # montar_drive se toma de la puerta de dispositivo
from curso_gpu.guardado import carpeta as modulo_carpeta  # donde se usa copiar_atomico
from curso_gpu.guardado import (
    FORMATO,
    AvisoCheckpoint,
    CarpetaCheckpoints,
    CarpetaNoEscribible,
    carpeta_checkpoints,
    como_carpeta,
    estado_aleatorio,
    guardar_atomico,
    preparar_reanudacion,
    restaurar_estado_aleatorio,
)
from curso_gpu.entrenamiento import generar_dataset
from curso_gpu.entrenamiento import entrenar
from curso_gpu.entrenamiento import CNNPequena
from entrenar_con_checkpoints import entrenar_con_checkpoints
from interrupciones import Desconexion, cortar_en, matar_al_llegar

SCRIPT = Path(__file__).with_name("entrenar_con_checkpoints.py")
RAIZ = Path(__file__).resolve().parent.parent
ENT, VAL = generar_dataset(20, semilla=1), generar_dataset(10, semilla=2)


def _modelo():
    torch.manual_seed(0)
    return CNNPequena()


def _estado(epoca: int) -> dict:
    return {"formato": FORMATO, "epoca": epoca, "modelo": {"w": torch.full((3,), float(epoca))}}


def _local(tmp_path, conservar=3) -> CarpetaCheckpoints:
    return CarpetaCheckpoints(ruta=tmp_path / "ck", local=tmp_path / "ck", conservar=conservar)


@pytest.fixture
def en_colab(colab_falso, monkeypatch, tmp_path):
    """Un Colab de mentira (``colab_falso``, con su ``drive.mount`` falso) con Drive en una carpeta temporal.

    ``montar_drive`` es el de verdad, con la misma firma; solo cambia ``/content/drive`` por una
    carpeta temporal. Anota con qué argumentos se llamó (``llamadas``) para comprobar ``local=``.
    """
    llamadas = []
    raiz = tmp_path / "content" / "drive"
    real = colab.montar_drive

    def montar_drive(punto=colab.PUNTO_DRIVE, carpeta=colab.CARPETA_CURSO, *, espera=None, local=None):
        llamadas.append({"punto": str(punto), "carpeta": carpeta, "local": local})
        return real(raiz if str(punto) == colab.PUNTO_DRIVE else punto, carpeta, espera=espera, local=local)

    monkeypatch.setattr(colab, "montar_drive", montar_drive)
    return types.SimpleNamespace(llamadas=llamadas, drive=colab_falso, mi_drive=raiz / "MyDrive" / colab.CARPETA_CURSO)


# --- Dónde se guardan -------------------------------------------------------------------------

def test_fuera_de_colab_usa_la_carpeta_local_checkpoints(tmp_path, monkeypatch, capsys):
    monkeypatch.delitem(sys.modules, "google.colab", raising=False)
    monkeypatch.delenv("COLAB_RELEASE_TAG", raising=False)
    monkeypatch.chdir(tmp_path)
    carpeta = carpeta_checkpoints("cnn_lineas")
    assert carpeta.ruta == tmp_path / "checkpoints" / "cnn_lineas" and not carpeta.en_drive
    assert carpeta.ruta.is_dir() and not any(carpeta.ruta.iterdir())  # sin restos de la prueba de escritura
    assert "carpeta local" in capsys.readouterr().out


def test_en_colab_con_drive_true_guarda_en_google_drive_y_lo_monta(en_colab, tmp_path, capsys):
    carpeta = carpeta_checkpoints("cnn_lineas", drive=True, base=tmp_path / "local")
    assert en_colab.llamadas == [{"punto": colab.PUNTO_DRIVE, "carpeta": colab.CARPETA_CURSO,
                                  "local": tmp_path / "local" / "cnn_lineas"}]
    assert en_colab.drive.montajes == [str(tmp_path / "content" / "drive")]  # google.colab.drive.mount
    assert carpeta.en_drive and carpeta.ruta == en_colab.mi_drive / "checkpoints" / "cnn_lineas"
    assert carpeta.local == tmp_path / "local" / "cnn_lineas"
    assert "Google Drive" in capsys.readouterr().out


def test_en_colab_no_monta_drive_si_eliges_local(en_colab, tmp_path):
    carpeta = carpeta_checkpoints("cnn_lineas", drive=False, base=tmp_path, silenciosa=True)
    assert en_colab.llamadas == [] and en_colab.drive.montajes == [] and not carpeta.en_drive


def test_drive_fuera_de_colab_da_error_claro(monkeypatch, tmp_path):
    monkeypatch.delitem(sys.modules, "google.colab", raising=False)
    monkeypatch.delenv("COLAB_RELEASE_TAG", raising=False)
    with pytest.raises(ValueError, match="solo funciona dentro de Google Colab"):
        carpeta_checkpoints("x", drive=True, base=tmp_path)


def test_si_drive_no_se_monta_avisa_y_guarda_en_local(en_colab, tmp_path, capsys):
    en_colab.drive.falla = PermissionError("el usuario no dio permiso")  # google.colab.drive.mount falla
    with pytest.warns(AvisoCheckpoint, match="No se pudo montar Google Drive"):
        carpeta = carpeta_checkpoints("x", drive=True, base=tmp_path, silenciosa=True)
    assert not carpeta.en_drive and carpeta.ruta == tmp_path / "x"
    assert [l["local"] for l in en_colab.llamadas] == [tmp_path / "x"]
    # montar_drive dice dónde quedan mientras tanto: la carpeta local que recibió, no otra
    assert f"los checkpoints se guardarán en {tmp_path / 'x'}," in capsys.readouterr().out


def test_en_colab_no_monta_drive_si_no_lo_pides(en_colab, monkeypatch, tmp_path):
    monkeypatch.setattr(colab, "montar_drive", lambda *a, **k: pytest.fail("montó Drive sin pedirlo"))
    carpeta = carpeta_checkpoints("x", base=tmp_path, silenciosa=True)
    assert not carpeta.en_drive and carpeta.ruta == tmp_path / "x"


def test_carpeta_sin_permiso_de_escritura_da_error_claro(tmp_path):
    archivo = tmp_path / "soy_un_archivo"
    archivo.write_text("x")
    with pytest.raises(ValueError, match=r"base .*soy_un_archivo: es un archivo, no una carpeta"):
        carpeta_checkpoints("x", base=archivo, silenciosa=True)
    (tmp_path / "ro").mkdir()
    (tmp_path / "ro" / "x").write_text("un archivo donde iría la carpeta")
    with pytest.raises(CarpetaNoEscribible, match=r"No puedo escribir checkpoints en .*ro"):
        CarpetaCheckpoints(tmp_path / "ro" / "x", tmp_path / "ro" / "x").comprobar_escritura()


@pytest.mark.parametrize("nombre", ["", "a/b", "..", 3])
def test_nombre_no_valido(nombre, tmp_path):
    with pytest.raises(ValueError, match="nombre"):
        carpeta_checkpoints(nombre, base=tmp_path, silenciosa=True)


# --- Guardar de forma atómica -----------------------------------------------------------------

def test_guardar_es_atomico_temporal_unico_y_os_replace(tmp_path, monkeypatch):
    renombres = []
    replace = os.replace
    monkeypatch.setattr(os, "replace", lambda a, b: (renombres.append((Path(a).name, Path(b).name)), replace(a, b)))
    guardar_atomico(_estado(1), tmp_path / "a.pt")
    guardar_atomico(_estado(2), tmp_path / "a.pt")
    assert [b for _, b in renombres] == ["a.pt", "a.pt"]
    temporales = [a for a, _ in renombres]
    assert all(re.fullmatch(r"\.a\.pt\..+\.tmp", t) for t in temporales)
    assert temporales[0] != temporales[1]  # un nombre nuevo cada vez: dos escritores no comparten temporal
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.pt"]


def test_si_falla_a_mitad_el_checkpoint_anterior_queda_intacto(tmp_path):
    destino = tmp_path / "a.pt"
    guardar_atomico(_estado(1), destino)
    with pytest.raises(Exception):
        guardar_atomico({"epoca": 2, "modelo": {}, "roto": lambda: None}, destino)  # no se puede serializar
    assert torch.load(destino, weights_only=True)["epoca"] == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.pt"]


def test_conserva_solo_los_ultimos_k(tmp_path):
    carpeta = _local(tmp_path, conservar=2)
    for epoca in (5, 10, 15, 20, 25):
        carpeta.guardar(_estado(epoca), epoca)
    assert [p.name for p in carpeta.archivos()] == ["checkpoint_epoca_000025.pt", "checkpoint_epoca_000020.pt"]


def test_en_drive_escribe_en_local_y_copia_con_nombre_temporal(tmp_path, monkeypatch):
    carpeta = CarpetaCheckpoints(ruta=tmp_path / "drive", local=tmp_path / "local", en_drive=True)
    carpeta.comprobar_escritura()
    renombres = []
    replace = os.replace
    monkeypatch.setattr(os, "replace", lambda a, b: (renombres.append((Path(a).parent.name, Path(a).name)), replace(a, b)))
    carpeta.guardar(_estado(10), 10)
    nombre = "checkpoint_epoca_000010.pt"
    assert [d for d, _ in renombres] == ["local", "drive"]  # primero local, luego Drive
    assert all(t.startswith(f".{nombre}.") and t.endswith(".tmp") for _, t in renombres)
    assert (tmp_path / "local" / nombre).read_bytes() == (tmp_path / "drive" / nombre).read_bytes()


def test_si_la_copia_a_drive_falla_avisa_y_sincroniza_al_final(tmp_path, monkeypatch):
    carpeta = CarpetaCheckpoints(ruta=tmp_path / "drive", local=tmp_path / "local", en_drive=True)
    carpeta.comprobar_escritura()
    copiar = modulo_carpeta.copiar_atomico

    def drive_caido(origen, destino):
        raise OSError("Transport endpoint is not connected")

    monkeypatch.setattr(modulo_carpeta, "copiar_atomico", drive_caido)
    with pytest.warns(AvisoCheckpoint, match="No pude copiar"):
        carpeta.guardar(_estado(10), 10)
    assert not (tmp_path / "drive" / "checkpoint_epoca_000010.pt").exists()
    monkeypatch.setattr(modulo_carpeta, "copiar_atomico", copiar)
    carpeta.copiar_pendientes_a_drive()
    assert (tmp_path / "drive" / "checkpoint_epoca_000010.pt").exists()


def test_ignora_duplicados_y_temporales_que_deja_drive(tmp_path):
    carpeta = _local(tmp_path)
    carpeta.guardar(_estado(10), 10)
    (carpeta.ruta / "checkpoint_epoca_000020 (1).pt").write_bytes(b"duplicado de Drive")
    (carpeta.ruta / ".checkpoint_epoca_000030.pt.tmp").write_bytes(b"a medias")
    assert carpeta.cargar_ultimo()["epoca"] == 10


# --- Cargar -----------------------------------------------------------------------------------

def test_checkpoint_truncado_se_salta_con_aviso_y_usa_el_anterior(tmp_path):
    carpeta = _local(tmp_path)
    carpeta.guardar(_estado(10), 10)
    ultimo = carpeta.guardar(_estado(20), 20)
    datos = ultimo.read_bytes()
    ultimo.write_bytes(datos[: len(datos) // 2])  # como si se hubiera cortado a mitad de escritura
    with pytest.warns(AvisoCheckpoint, match="checkpoint_epoca_000020.pt está dañado"):
        estado = carpeta.cargar_ultimo("cpu")
    assert estado["epoca"] == 10 and torch.equal(estado["modelo"]["w"], torch.full((3,), 10.0))


def test_checkpoint_con_basura_o_codigo_no_permitido_se_salta(tmp_path):
    carpeta = _local(tmp_path)
    carpeta.guardar(_estado(10), 10)
    (carpeta.ruta / "checkpoint_epoca_000020.pt").write_bytes(b"esto no es un zip")
    guardar_atomico({"epoca": 30, "modelo": {}, "objeto": AvisoCheckpoint("x")},
                    carpeta.ruta / "checkpoint_epoca_000030.pt")  # weights_only=True lo rechaza
    with pytest.warns(AvisoCheckpoint) as avisos:
        assert carpeta.cargar_ultimo()["epoca"] == 10
    assert len(avisos) == 2


def test_sin_checkpoints_cargar_ultimo_da_none(tmp_path):
    assert _local(tmp_path).cargar_ultimo() is None


def _como_si_fuera_de_gpu(ruta: Path) -> None:
    """Reescribe un checkpoint para que sus tensores digan vivir en 'cuda:0' (como uno guardado en Colab)."""
    with zipfile.ZipFile(ruta) as zin:
        entradas = [(info, zin.read(info)) for info in zin.infolist()]
    with zipfile.ZipFile(ruta, "w", zipfile.ZIP_STORED) as zout:
        for info, datos in entradas:
            if info.filename.endswith("data.pkl"):
                datos = datos.replace(b"X\x03\x00\x00\x00cpu", b"X\x06\x00\x00\x00cuda:0")
            zout.writestr(info, datos)


@pytest.mark.skipif(torch.cuda.is_available(), reason="necesita una máquina sin CUDA")
def test_checkpoint_de_gpu_se_carga_en_cpu(tmp_path):
    carpeta = _local(tmp_path)
    ruta = carpeta.guardar(_estado(7), 7)
    _como_si_fuera_de_gpu(ruta)
    with pytest.raises(RuntimeError, match="CUDA"):
        torch.load(ruta, weights_only=True)  # sin map_location falla en una máquina sin GPU
    estado = carpeta.cargar_ultimo(torch.device("cpu"))
    assert estado["epoca"] == 7 and estado["modelo"]["w"].device.type == "cpu"
    assert torch.equal(estado["modelo"]["w"], torch.full((3,), 7.0))


def test_checkpoint_de_cpu_se_carga_en_otro_dispositivo(tmp_path):
    carpeta = _local(tmp_path)
    carpeta.guardar(_estado(7), 7)
    estado = carpeta.cargar_ultimo(torch.device("meta"))  # map_location: el dispositivo actual
    assert estado["modelo"]["w"].device.type == "meta"


def test_estados_aleatorios_se_cargan_con_weights_only(tmp_path):
    torch.manual_seed(1), np.random.seed(1), random.seed(1)
    np.random.standard_normal()  # deja un gaussiano en caché en el estado de NumPy
    guardar_atomico({"aleatorio": estado_aleatorio()}, tmp_path / "rng.pt")
    esperado = (torch.rand(3), np.random.rand(3), [random.random() for _ in range(3)], np.random.standard_normal())
    torch.manual_seed(99), np.random.seed(99), random.seed(99)
    restaurar_estado_aleatorio(torch.load(tmp_path / "rng.pt", weights_only=True)["aleatorio"])
    obtenido = (torch.rand(3), np.random.rand(3), [random.random() for _ in range(3)], np.random.standard_normal())
    assert torch.equal(esperado[0], obtenido[0])
    assert np.array_equal(esperado[1], obtenido[1])
    assert esperado[2] == obtenido[2] and esperado[3] == obtenido[3]


# --- Reanudar un entrenamiento ----------------------------------------------------------------

def _iguales(a: dict, b: dict) -> bool:
    return list(a) == list(b) and all(torch.equal(a[k], b[k]) for k in a)


@pytest.mark.lento  # reanuda en otro proceso
@pytest.mark.parametrize("lote", [None, 16])
def test_interrumpido_y_reanudado_acaba_igual_que_sin_interrumpir(tmp_path, lote):
    seguido = _modelo()
    h_seguido = entrenar(seguido, ENT, VAL, "cpu", epocas=30, semilla=3, tamano_lote=lote, silencioso=True)

    carpeta = tmp_path / "ck"
    with pytest.raises(Desconexion):
        entrenar(_modelo(), ENT, VAL, "cpu", epocas=30, semilla=3, tamano_lote=lote,
                 checkpoints=como_carpeta(carpeta, cada=5), al_avanzar=cortar_en(17), silencioso=True)
    otro = CNNPequena()  # pesos distintos: todo tiene que salir del checkpoint
    h_reanudado = entrenar(otro, ENT, VAL, "cpu", epocas=30, semilla=3, tamano_lote=lote,
                           checkpoints=como_carpeta(carpeta, cada=5, reanudar=True), silencioso=True)
    assert _iguales(seguido.state_dict(), otro.state_dict())
    assert h_reanudado.reanudado_desde == 15
    assert h_reanudado.epocas_registradas == h_seguido.epocas_registradas == [1, 10, 20, 30]
    assert h_reanudado.perdida_validacion == h_seguido.perdida_validacion


@pytest.mark.lento  # SIGKILL a un entrenamiento en otro proceso
def test_matado_con_sigkill_y_reanudado_acaba_con_los_mismos_pesos(tmp_path):
    """Como una sesión de Colab que se desconecta: el proceso muere sin avisar en la época 13.

    El entrenamiento sin cortes, la referencia, corre en este mismo proceso mientras tanto; el
    que muere es un proceso aparte, como en Colab, y el que reanuda es este: solo lo que quedó en
    el disco pasa de uno a otro (la misma función, con un modelo recién creado).
    """
    if not hasattr(signal, "SIGKILL"):
        pytest.skip("SIGKILL no existe en Windows")
    entorno = dict(os.environ, PYTHONPATH=str(RAIZ))
    orden = [sys.executable, str(SCRIPT), "--epocas", "16", "--cada", "5"]
    marca = tmp_path / "en_la_epoca_13"
    victima = subprocess.Popen(orden + ["--carpeta", str(tmp_path / "b"), "--salida", str(tmp_path / "b.pt"),
                                        "--parar-en", "13", "--marca", str(marca)], env=entorno)
    try:
        entrenar_con_checkpoints(tmp_path / "a", tmp_path / "a.pt", epocas=16, cada=5)
        matar_al_llegar(victima, marca, 120, "el entrenamiento llegara a la época 13")
    finally:
        if victima.poll() is None:
            victima.kill()
            victima.wait(timeout=30)
    assert not (tmp_path / "b.pt").exists()
    guardados = sorted(p.name for p in (tmp_path / "b").iterdir())
    assert guardados[-1] == "checkpoint_epoca_000010.pt"

    # el candado del proceso muerto sigue en la carpeta: se ve que nadie lo tiene y se toma, avisando
    with pytest.warns(AvisoCheckpoint, match=r"tenía el candado de un entrenamiento que ya no existe \(pid "
                                             rf"{victima.pid} "):
        entrenar_con_checkpoints(tmp_path / "b", tmp_path / "b.pt", epocas=16, cada=5, reanudar=True)
    a = torch.load(tmp_path / "a.pt", weights_only=True)
    b = torch.load(tmp_path / "b.pt", weights_only=True)
    assert _iguales(a["modelo"], b["modelo"])
    assert b["historial"]["reanudado_desde"] == 10
    assert a["historial"]["perdida_validacion"] == b["historial"]["perdida_validacion"]


def test_reanudar_sin_checkpoints_empieza_de_cero(tmp_path, capsys):
    historial = entrenar(_modelo(), ENT, VAL, "cpu", epocas=3, checkpoints=como_carpeta(tmp_path / "vacia", reanudar=True),
                         silencioso=True)
    assert "empiezo desde la época 1" in historial.avisos[0]
    assert historial.reanudado_desde is None
    assert [p.name for p in (tmp_path / "vacia").iterdir()] == ["checkpoint_epoca_000003.pt"]  # guarda al final


def test_reanudar_con_un_checkpoint_de_otro_modelo_da_error_claro(tmp_path):
    entrenar(_modelo(), ENT, VAL, "cpu", epocas=2, checkpoints=tmp_path, silencioso=True)
    with pytest.raises(ValueError, match="no corresponde a este modelo"):
        entrenar(CNNPequena(canales=(4, 8)), ENT, VAL, "cpu", epocas=4,
                 checkpoints=como_carpeta(tmp_path, reanudar=True), silencioso=True)


def test_empezar_de_cero_aparta_los_viejos_sin_borrar_nada(tmp_path, capsys):
    entrenar(_modelo(), ENT, VAL, "cpu", epocas=10, checkpoints=como_carpeta(tmp_path, cada=5), silencioso=True)
    antes = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    historial = entrenar(_modelo(), ENT, VAL, "cpu", epocas=3, checkpoints=como_carpeta(tmp_path, reanudar=False),
                         silencioso=True)
    (aviso,) = historial.avisos
    assert "reanudar=False: empiezo de cero. Muevo 2 checkpoints anteriores a" in aviso
    assert "no se borra nada" in aviso and aviso in str(historial)
    assert capsys.readouterr().out == ""  # entrenar no imprime: lo anota en el historial
    assert sorted(p.name for p in tmp_path.iterdir()) == ["anteriores", "checkpoint_epoca_000003.pt"]
    (apartada,) = (tmp_path / "anteriores").iterdir()
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}_\d{2}-\d{2}-\d{2}", apartada.name)
    assert {p.name: p.read_bytes() for p in apartada.iterdir()} == antes  # byte a byte


# --- Escribir: ninguna ruta mala deja escapar un error de Python en inglés ---------------------

def test_escribir_guardar_copiar_y_candado_responden_en_espanol(tmp_path):
    from curso_gpu.guardado import Candado, DestinoNoValido, copiar_atomico, escribir_atomico

    archivo = tmp_path / "archivo.txt"
    archivo.write_text("hola")
    malos = {
        "None": (None, r"destino debe ser la ruta de un archivo .*recibí None"),
        "nulo": (str(tmp_path / "a\0b.pt"), r"tiene un carácter nulo"),
        "sin carpeta": (tmp_path / "no_existe" / "x.pt", r"la carpeta .*no_existe no existe"),
        "carpeta": (tmp_path, r"es una carpeta; da la ruta de un archivo"),
    }
    for nombre, (destino, texto) in malos.items():
        with pytest.raises(DestinoNoValido, match=texto):
            escribir_atomico(destino, lambda f: f.write(b"x"))
        with pytest.raises(DestinoNoValido, match=texto):
            guardar_atomico({"w": torch.ones(2)}, destino)
        with pytest.raises(DestinoNoValido, match=texto):
            copiar_atomico(archivo, destino)
    with pytest.raises(DestinoNoValido, match=r"No puedo copiar .*no_esta: no existe"):
        copiar_atomico(tmp_path / "no_esta", tmp_path / "copia")
    with pytest.raises(DestinoNoValido, match=r"No puedo copiar .*: es una carpeta"):
        copiar_atomico(tmp_path, tmp_path / "copia")
    with pytest.raises(ValueError, match=r"No puedo guardar raro.pt: contiene algo que torch.save no sabe guardar "
                                         r"\(.*\)\. Guarda solo tensores"):
        guardar_atomico({"f": lambda x: x}, tmp_path / "raro.pt")
    assert not list(tmp_path.glob("*raro*"))  # ni el archivo ni su temporal
    for carpeta, texto in [(None, r"carpeta del candado debe ser la ruta de una carpeta .*recibí None"),
                           (str(tmp_path / "a\0b"), r"tiene un carácter nulo"),
                           (archivo, r"archivo.txt: es un archivo, no una carpeta")]:
        with pytest.raises(DestinoNoValido, match=texto):
            Candado(carpeta)
    assert archivo.read_text() == "hola"
    with Candado(tmp_path / "no" / "hay" / "tal"):  # una carpeta nueva se crea con las de encima
        assert (tmp_path / "no" / "hay" / "tal").is_dir()


def test_preparar_reanudacion_explica_lo_que_le_falta(tmp_path):
    carpeta = como_carpeta(tmp_path / "ck")
    for configuracion, texto in [({}, r"configuracion debe ser un diccionario con, al menos, epocas, modelo"),
                                 ({"epocas": 3}, r"al menos, modelo \(por ejemplo"),
                                 (None, r"configuracion debe ser un diccionario"),
                                 ({"epocas": 0, "modelo": "CNNPequena"}, r"configuracion\['epocas'\] debe ser un entero")]:
        with pytest.raises(ValueError, match=texto):
            preparar_reanudacion(carpeta, configuracion, "cpu", entrenador="entrenar")
    with pytest.raises(ValueError, match=r"carpeta debe ser una CarpetaCheckpoints .*recibí PosixPath"):
        preparar_reanudacion(tmp_path, {"epocas": 1, "modelo": "x"}, "cpu", entrenador="entrenar")
    with pytest.raises(ValueError, match=r"entrenador debe ser uno de: entrenar, entrenar_ddp, ajustar; recibí 'yo'"):
        preparar_reanudacion(carpeta, {"epocas": 1, "modelo": "x"}, "cpu", entrenador="yo")


def test_una_carpeta_con_nombre_de_checkpoint_se_salta_y_carga_el_anterior(tmp_path):
    """La sonda hostil: checkpoint_epoca_000005.pt/ (una carpeta) junto a un checkpoint_epoca_000001.pt sano."""
    from curso_gpu.guardado import como_carpeta

    _local(tmp_path).guardar(_estado(1), 1)
    intrusa = tmp_path / "ck" / "checkpoint_epoca_000005.pt"
    intrusa.mkdir()
    (intrusa / "curso.pt").write_bytes(b"no soy un indice")
    with pytest.warns(AvisoCheckpoint, match=r"checkpoint_epoca_000005\.pt se llama como un checkpoint pero es una "
                                              r"carpeta, no un archivo: lo salto") as avisos:
        estado = como_carpeta(tmp_path / "ck").cargar_ultimo()
    assert estado["epoca"] == 1 and len(avisos) == 1
    assert intrusa.is_dir() and (intrusa / "curso.pt").read_bytes() == b"no soy un indice"  # nada se toca
