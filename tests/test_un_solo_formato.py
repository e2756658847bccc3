"""Lecciones 05 y 08: un solo formato de checkpoint y las últimas formas de perder trabajo.

- Una carpeta escrita por ``entrenar`` la sigue ``entrenar_ddp`` (un mundo de uno, en este
  proceso, como en test_distribuido.py) y al revés; lo que no encaja se rechaza diciendo quién
  la escribió.
- ``dispositivo='meta'`` y ``checkpoints=""`` se rechazan sin tocar nada.
- Los pesos sueltos llevan su SHA-256 y ``cargar_pesos`` la comprueba antes de tocar el modelo.
- Reanudar con otros datos se avisa; borrar la carpeta o su candado a mitad para el entrenamiento.
- Disco lleno: el tamaño real y ``conservar + 1``; con poco espacio se rota antes, nunca por debajo de uno.
- Bytes cambiados dicen «dañado», nunca «no tiene la forma de un checkpoint».
"""

from __future__ import annotations

import random
import shutil
from collections import namedtuple
from pathlib import Path

import pytest
import torch

from curso_gpu.guardado import (
    CANDADO,
    AvisoCheckpoint,
    CarpetaCheckpoints,
    CarpetaDesaparecida,
    CheckpointDanado,
    cargar_checkpoint,
    cargar_pesos,
    como_carpeta,
    estado_aleatorio,
    guardar_atomico,
    guardar_pesos,
    huella_de_datos,
)
from curso_gpu.guardado import carpeta as modulo_carpeta  # donde se mira el espacio libre
from curso_gpu.entrenamiento import CNNPequena, MLPTabular, entrenar, generar_dataset, generar_datos_tabulares
from curso_gpu.entrenamiento import EJEMPLOS_POR_CLASE
from curso_gpu.entrenar_ddp import main as entrenar_ddp

# Los mismos datos que usa entrenar_ddp (semilla 0): así la huella de los datos coincide.
ENT_DDP, VAL = generar_dataset(EJEMPLOS_POR_CLASE, semilla=0), generar_dataset(5, semilla=1)
ENT = generar_dataset(10, semilla=1)


def _modelo():
    torch.manual_seed(0)
    return CNNPequena()


def _pesos(modelo) -> dict:
    return {k: v.clone() for k, v in modelo.state_dict().items()}


def _iguales(a: dict, b: dict) -> bool:
    return list(a) == list(b) and all(torch.equal(a[k], b[k]) for k in a)


def _ddp(carpeta, epocas: int, *extra) -> int:
    """``python -m curso_gpu.entrenar_ddp`` en este proceso (un mundo de uno), con un hilo."""
    hilos = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        return entrenar_ddp(["--epocas", str(epocas), "--tamano-lote", "32", "--semilla", "0",
                             "--checkpoints", str(carpeta), *extra])
    finally:
        torch.set_num_threads(hilos)


# --- Un formato, dos entrenadores ------------------------------------------------------------------

def test_una_carpeta_de_entrenar_la_sigue_entrenar_ddp(tmp_path, capsys):
    entrenar(_modelo(), ENT_DDP, VAL, "cpu", epocas=2, tamano_lote=32, semilla=0, checkpoints=tmp_path,
             silencioso=True)
    assert _ddp(tmp_path, 3) == 0
    salida = capsys.readouterr()
    assert "Reanudo desde checkpoint_epoca_000002.pt" in salida.out
    assert "escrito por entrenar (lección 05)" in salida.out
    assert "datos de entrenamiento" not in salida.out  # los mismos datos: nada que avisar
    ultimo = cargar_checkpoint(tmp_path / "checkpoint_epoca_000003.pt")
    assert ultimo["entrenador"] == "entrenar_ddp" and "perdidas" not in ultimo
    # el historial de entrenar (épocas 1 y 2) sigue ahí, y entrenar_ddp añadió la 3
    assert ultimo["historial"]["epocas_registradas"] == [1, 2, 3] and ultimo["historial"]["reanudado_desde"] == 2
    assert not torch.distributed.is_initialized()


def test_una_carpeta_de_entrenar_ddp_la_sigue_entrenar(tmp_path):
    assert _ddp(tmp_path, 2, "--silencioso") == 0
    de_ddp = cargar_checkpoint(tmp_path / "checkpoint_epoca_000002.pt")
    assert de_ddp["entrenador"] == "entrenar_ddp" and de_ddp["formato"] == 4

    modelo = _modelo()
    cargados = []
    with pytest.warns(AvisoCheckpoint, match=r"escrito por entrenar_ddp \(lección 08\) con cambios.*epocas 2 → 3"):
        historial = entrenar(modelo, ENT_DDP, VAL, "cpu", epocas=3, tamano_lote=32, semilla=0, checkpoints=tmp_path,
                             silencioso=True, al_avanzar=lambda e, t: cargados.append(e))
    assert historial.reanudado_desde == 2 and cargados == [3]  # solo se entrena la época 3
    assert historial.epocas_registradas == [1, 2, 3]  # las dos de entrenar_ddp no se pierden
    assert historial.perdida_entrenamiento[:2] == de_ddp["historial"]["perdida_entrenamiento"]
    assert len(historial.accuracy_validacion) == 3 and historial.tabla().filas[0][0] == 1
    assert "escrito por entrenar_ddp (lección 08)" in " ".join(historial.avisos)
    final = cargar_checkpoint(tmp_path / "checkpoint_epoca_000003.pt")
    assert final["entrenador"] == "entrenar"
    assert not _iguales(final["modelo"], de_ddp["modelo"])  # siguió entrenando desde los pesos de DDP


def test_lo_que_no_encaja_se_rechaza_diciendo_quien_lo_escribio(tmp_path, capsys):
    assert _ddp(tmp_path / "ddp", 1, "--silencioso") == 0
    tabular = generar_datos_tabulares(40, semilla=0)
    torch.manual_seed(0)
    with pytest.raises(ValueError, match=r"escrito por entrenar_ddp \(lección 08\)\) no corresponde a este modelo"):
        entrenar(MLPTabular(tabular[0].shape[1]), tabular, tabular, "cpu", epocas=2, checkpoints=tmp_path / "ddp",
                 silencioso=True)

    torch.manual_seed(0)
    entrenar(CNNPequena(canales=(4, 8)), ENT_DDP, VAL, "cpu", epocas=1, checkpoints=tmp_path / "otra",
             silencioso=True)
    capsys.readouterr()
    antes = sorted(p.name for p in (tmp_path / "otra").iterdir())
    assert _ddp(tmp_path / "otra", 2, "--silencioso") == 1
    error = capsys.readouterr().err
    assert "escrito por entrenar (lección 05)" in error and "no corresponde a este modelo" in error
    assert sorted(p.name for p in (tmp_path / "otra").iterdir()) == antes  # nada tocado


def test_un_checkpoint_de_un_formato_anterior_se_aparta_sin_perderse(tmp_path):
    modelo = _modelo()
    optimizador = torch.optim.Adam(modelo.parameters(), lr=0.01)
    guardar_atomico({"formato": 3, "epoca": 1, "epocas": 3, "modelo": modelo.state_dict(),
                     "optimizador": optimizador.state_dict(), "aleatorio": estado_aleatorio(), "perdidas": [0.5]},
                    tmp_path / "checkpoint_epoca_000001.pt")
    with pytest.raises(ValueError, match=r"es de una versión anterior del curso \(formato 3; esta escribe el 4\)"):
        cargar_checkpoint(tmp_path / "checkpoint_epoca_000001.pt")
    with pytest.warns(AvisoCheckpoint, match="versión anterior del curso"):
        historial = entrenar(_modelo(), ENT_DDP, VAL, "cpu", epocas=2, tamano_lote=32, checkpoints=tmp_path,
                             silencioso=True)
    assert historial.reanudado_desde is None  # empezó de cero...
    assert list(tmp_path.glob("anteriores/*/checkpoint_epoca_000001.pt"))  # ...y el viejo se apartó, no se borró


# --- Entradas que perderían el modelo o escribirían donde no toca ----------------------------------

def test_dispositivo_meta_se_rechaza_sin_tocar_el_modelo():
    modelo = _modelo()
    antes = _pesos(modelo)
    with pytest.raises(ValueError, match="dispositivo no puede ser 'meta'"):
        entrenar(modelo, ENT, VAL, torch.device("meta"), epocas=2, silencioso=True)
    assert all(p.device.type == "cpu" for p in modelo.parameters())
    assert _iguales(antes, modelo.state_dict())


def test_checkpoints_vacio_se_rechaza_sin_escribir_en_la_carpeta_actual(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    for vacio in ("", "   "):
        with pytest.raises(ValueError, match="checkpoints está vacío: escribiría en la carpeta actual"):
            entrenar(_modelo(), ENT, VAL, "cpu", epocas=1, checkpoints=vacio, silencioso=True)
    assert entrenar_ddp(["--epocas", "1", "--checkpoints", "", "--silencioso"]) == 1
    assert "--checkpoints está vacío" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


# --- Pesos con su suma ----------------------------------------------------------------------------

def test_pesos_de_guardar_pesos_con_bytes_cambiados_nunca_se_cargan_distintos(tmp_path):
    """Cada byte cambiado se detecta (el modelo queda igual) o no cambia los pesos."""
    ruta = tmp_path / "pesos.pt"
    assert entrenar_ddp(["--epocas", "1", "--tamano-lote", "32", "--guardar-pesos", str(ruta), "--silencioso"]) == 0
    buenos = cargar_pesos(ruta)
    crudo = ruta.read_bytes()
    azar = random.Random(0)
    detectados = 0
    for _ in range(40):
        posicion = azar.randrange(len(crudo))
        roto = bytearray(crudo)
        roto[posicion] ^= 1 << azar.randrange(8)
        ruta.write_bytes(bytes(roto))
        modelo = _modelo()
        antes = _pesos(modelo)
        try:
            cargados = cargar_pesos(ruta, modelo)
        except CheckpointDanado as error:
            assert "dañado" in str(error)
            assert _iguales(antes, modelo.state_dict())  # se comprueba antes de tocar el modelo
            detectados += 1
        else:
            assert _iguales(cargados, buenos) and _iguales(modelo.state_dict(), buenos)
    assert detectados >= 30


def test_cargar_pesos_de_un_checkpoint_y_de_un_state_dict_a_secas(tmp_path):
    entrenar(_modelo(), ENT, VAL, "cpu", epocas=1, checkpoints=tmp_path, silencioso=True)
    checkpoint = tmp_path / "checkpoint_epoca_000001.pt"
    modelo = CNNPequena()
    assert _iguales(cargar_pesos(checkpoint, modelo), cargar_checkpoint(checkpoint)["modelo"])
    torch.save(modelo.state_dict(), tmp_path / "a_secas.pt")
    with pytest.warns(AvisoCheckpoint, match="sin suma SHA-256"):
        cargar_pesos(tmp_path / "a_secas.pt", CNNPequena())
    guardar_pesos(modelo, tmp_path / "buenos.pt")
    with pytest.raises(ValueError, match=r"no son de este modelo \(CNNPequena: cambian"):
        cargar_pesos(tmp_path / "buenos.pt", CNNPequena(canales=(4, 8)))
    with pytest.raises(ValueError, match="es una carpeta"):
        guardar_pesos(modelo, tmp_path)


# --- Otros datos al reanudar ----------------------------------------------------------------------

def test_reanudar_con_otros_datos_lo_avisa(tmp_path):
    entrenar(_modelo(), ENT, VAL, "cpu", epocas=2, semilla=3, checkpoints=tmp_path, silencioso=True)
    with pytest.warns(AvisoCheckpoint, match=r"datos de entrenamiento 30 ejemplos \[1, 8, 8\] float32.* → "
                                             r"60 ejemplos \[1, 8, 8\] float32"):
        entrenar(_modelo(), generar_dataset(20, semilla=1), VAL, "cpu", epocas=4, semilla=3,
                 checkpoints=tmp_path, silencioso=True)
    with pytest.warns(AvisoCheckpoint, match="mismos tamaños .* pero otros valores"):
        historial = entrenar(_modelo(), generar_dataset(20, semilla=7), VAL, "cpu", epocas=6, semilla=3,
                             checkpoints=tmp_path, silencioso=True)
    assert any("otros valores" in aviso for aviso in historial.avisos)


def test_la_huella_de_muchos_datos_mira_una_muestra_y_nota_un_cambio_en_ella():
    X, y = torch.zeros(5000, 1024), torch.zeros(5000, dtype=torch.long)  # 20 MB: se resume una muestra
    huella = huella_de_datos(X, y)
    assert huella["filas_resumidas"] == 1024 and huella["ejemplos"] == 5000
    X[-1, 0] = 1.0  # la última fila siempre está en la muestra
    assert huella_de_datos(X, y)["sha256"] != huella["sha256"]
    pequenos = huella_de_datos(*ENT)
    assert pequenos["filas_resumidas"] == 30  # pocos datos: todos


# --- La carpeta o su candado desaparecen a mitad ----------------------------------------------------

def test_borrar_la_carpeta_a_mitad_para_sin_volver_a_crearla(tmp_path):
    carpeta = tmp_path / "ck"

    def borrar_en_2(epoca, total):
        if epoca == 2:
            shutil.rmtree(carpeta)

    with pytest.raises(CarpetaDesaparecida, match="desapareció mientras entrenabas") as error:
        entrenar(_modelo(), ENT, VAL, "cpu", epocas=5, checkpoints=como_carpeta(carpeta, cada=1),
                 al_avanzar=borrar_en_2, silencioso=True)
    assert not carpeta.exists()  # no la recreó
    assert error.value.historial.epocas_registradas == [1]  # lo entrenado no se pierde


def test_si_otro_toma_la_carpeta_tras_borrar_el_candado_el_primero_para(tmp_path):
    carpeta = tmp_path / "ck"
    del_segundo = "pid 999999 en otra_maquina, desde hoy"

    def otro_entra_en_2(epoca, total):
        if epoca == 2:
            (carpeta / CANDADO).unlink()  # alguien borra el candado...
            (carpeta / CANDADO).write_text(del_segundo)  # ...y un segundo entrenamiento pone el suyo

    with pytest.raises(CarpetaDesaparecida, match=r"El candado \(\.entrenando\.lock\)"):
        entrenar(_modelo(), ENT, VAL, "cpu", epocas=5, checkpoints=como_carpeta(carpeta, cada=1),
                 al_avanzar=otro_entra_en_2, silencioso=True)
    assert (carpeta / CANDADO).read_text() == del_segundo  # el candado del segundo sigue ahí, intacto
    assert sorted(p.name for p in carpeta.glob("checkpoint_*")) == ["checkpoint_epoca_000001.pt",
                                                                    "checkpoint_epoca_000002.pt"]


# --- Disco lleno: rotar antes, nunca por debajo de uno -------------------------------------------

def _poco_espacio(monkeypatch, libres: int):
    real = shutil.disk_usage
    Uso = namedtuple("Uso", "total used free")
    monkeypatch.setattr(modulo_carpeta.shutil, "disk_usage",
                        lambda ruta: Uso(real(ruta).total, real(ruta).used, libres))


def test_con_poco_espacio_rota_antes_y_deja_al_menos_uno(tmp_path, monkeypatch):
    carpeta = CarpetaCheckpoints(tmp_path, tmp_path, conservar=3)
    estado = lambda e: {"epoca": e, "modelo": {"w": torch.full((1000,), float(e))}}  # noqa: E731
    for epoca in (1, 2, 3):
        carpeta.guardar(estado(epoca), epoca)
    _poco_espacio(monkeypatch, 100)
    with pytest.warns(AvisoCheckpoint, match="borro antes checkpoint_epoca_000001.pt, el más viejo"):
        carpeta.guardar(estado(4), 4)
    assert [p.name for p in carpeta.archivos()] == [f"checkpoint_epoca_00000{e}.pt" for e in (4, 3, 2)]

    sola = CarpetaCheckpoints(tmp_path / "sola", tmp_path / "sola", conservar=1)
    sola.guardar(estado(1), 1)
    sola.guardar(estado(2), 2)  # con conservar=1 nunca se borra el único que hay antes de tener otro
    assert [p.name for p in sola.archivos()] == ["checkpoint_epoca_000002.pt"]


# --- Bytes cambiados: dañado, no «de otra forma» ------------------------------------------------------

def test_un_checkpoint_con_bytes_cambiados_se_llama_danado(tmp_path):
    entrenar(_modelo(), ENT, VAL, "cpu", epocas=1, checkpoints=tmp_path, silencioso=True)
    ruta = tmp_path / "checkpoint_epoca_000001.pt"
    crudo = ruta.read_bytes()
    roto = crudo.replace(b"epoca", b"epocb", 1)  # el nombre de una clave, cambiado en el disco
    assert roto != crudo
    ruta.write_bytes(roto)
    with pytest.raises(CheckpointDanado, match="dañado"):
        cargar_checkpoint(ruta)
    azar = random.Random(1)
    for _ in range(15):  # 12 bytes cambiados al azar, varias veces
        roto = bytearray(crudo)
        for posicion in azar.sample(range(len(crudo)), 12):
            roto[posicion] ^= 0xFF
        ruta.write_bytes(bytes(roto))
        with pytest.raises(CheckpointDanado, match="dañado"):
            cargar_checkpoint(ruta)


def test_un_archivo_ajeno_sigue_diciendo_que_no_es_un_checkpoint(tmp_path):
    torch.save({"hola": torch.zeros(2)}, tmp_path / "ajeno.pt")
    with pytest.raises(ValueError, match="no tiene la forma de un checkpoint del curso") as error:
        cargar_checkpoint(tmp_path / "ajeno.pt")
    assert not isinstance(error.value, CheckpointDanado)
    assert Path(tmp_path / "ajeno.pt").exists()
