"""La única comprobación de rutas: cada ruta mala se rechaza en español, antes de escribir nada."""

import os
from pathlib import Path

import pytest

from curso_gpu.guardado import DestinoNoValido, comprobar_destino


def test_una_ruta_buena_se_devuelve_como_path(tmp_path):
    assert comprobar_destino(str(tmp_path / "pesos.pt"), "pesos") == tmp_path / "pesos.pt"
    assert comprobar_destino(tmp_path / "ck", "checkpoints", carpeta=True) == tmp_path / "ck"
    (tmp_path / "ck").mkdir()
    assert comprobar_destino(tmp_path / "ck", "checkpoints", carpeta=True) == tmp_path / "ck"  # reanudar: ya existe


@pytest.mark.parametrize("ruta, mensaje", [
    (None, r"pesos debe ser la ruta de un archivo \(un texto o un Path\); recibí None\. Por ejemplo, 'pesos.pt'"),
    (42, r"pesos debe ser la ruta de un archivo .*recibí 42"),
    (b"pesos.pt", r"pesos debe ser la ruta de un archivo .*recibí b'pesos.pt'"),
    ("", r"pesos está vacío: escribiría en la carpeta actual"),
    ("   ", r"pesos está vacío"),
    ("pe\0sos.pt", r"pesos 'pe\\x00sos.pt' tiene un carácter nulo"),
])
def test_rutas_que_no_son_rutas(ruta, mensaje):
    with pytest.raises(DestinoNoValido, match=mensaje):
        comprobar_destino(ruta, "pesos")


def test_un_enlace_simbolico_nunca_se_sigue(tmp_path):
    real = tmp_path / "real.pt"
    real.write_text("mío")
    enlace = tmp_path / "enlace.pt"
    enlace.symlink_to(real)
    with pytest.raises(DestinoNoValido, match=r"pesos .*enlace.pt: es un enlace simbólico y nunca escribo a través"):
        comprobar_destino(enlace, "pesos", sobrescribir=True)
    roto = tmp_path / "roto"
    roto.symlink_to(tmp_path / "no_existe")
    with pytest.raises(DestinoNoValido, match="es un enlace simbólico"):
        comprobar_destino(roto, "checkpoints", carpeta=True)
    assert real.read_text() == "mío"


def test_archivo_donde_va_una_carpeta_y_al_reves(tmp_path):
    archivo = tmp_path / "soy_un_archivo"
    archivo.write_text("x")
    with pytest.raises(DestinoNoValido, match=r"--checkpoints .*soy_un_archivo: es un archivo, no una carpeta"):
        comprobar_destino(archivo, "--checkpoints", carpeta=True)
    with pytest.raises(DestinoNoValido, match=r"--guardar-pesos .*: es una carpeta; da la ruta de un archivo"):
        comprobar_destino(tmp_path, "--guardar-pesos")
    with pytest.raises(DestinoNoValido, match=r"soy_un_archivo es un archivo, no una carpeta"):
        comprobar_destino(archivo / "pesos.pt", "--guardar-pesos")


def test_un_archivo_que_ya_existe_no_se_pisa_sin_pedirlo(tmp_path):
    ruta = tmp_path / "pesos.pt"
    ruta.write_text("lo de ayer")
    with pytest.raises(DestinoNoValido, match=r"pesos .*pesos.pt: ya existe y no lo piso"):
        comprobar_destino(ruta, "pesos")
    assert comprobar_destino(ruta, "pesos", sobrescribir=True) == ruta
    assert ruta.read_text() == "lo de ayer"  # comprobar no escribe nada


def test_archivo_en_una_carpeta_que_no_existe(tmp_path):
    with pytest.raises(DestinoNoValido, match=r"pesos .*: la carpeta .*no_existe no existe\. Créala antes"):
        comprobar_destino(tmp_path / "no_existe" / "pesos.pt", "pesos")
    assert not (tmp_path / "no_existe").exists()


def test_carpeta_nueva_con_carpetas_de_encima_que_faltan(tmp_path, monkeypatch):
    """--checkpoints a/b/c con «a» sin crear vale (se crea al guardar), salvo bajo una carpeta de solo lectura."""
    assert comprobar_destino(tmp_path / "a" / "b" / "c", "checkpoints", carpeta=True) == tmp_path / "a" / "b" / "c"
    assert not (tmp_path / "a").exists()  # comprobar no crea nada
    acceso = os.access
    monkeypatch.setattr(os, "access", lambda ruta, modo: False if Path(ruta) == tmp_path else acceso(ruta, modo))
    with pytest.raises(DestinoNoValido, match=r"no tengo permiso para escribir en la carpeta"):
        comprobar_destino(tmp_path / "a" / "b" / "c", "checkpoints", carpeta=True)


def test_carpeta_de_solo_lectura(tmp_path, monkeypatch):
    solo_lectura = tmp_path / "solo_lectura"
    solo_lectura.mkdir()
    acceso = os.access  # quien corre las pruebas puede ser root (que escribe en todo): la respuesta se finge
    monkeypatch.setattr(os, "access", lambda ruta, modo: False if Path(ruta) == solo_lectura else acceso(ruta, modo))
    with pytest.raises(DestinoNoValido, match=r"no tengo permiso para escribir en la carpeta .*solo_lectura \(¿es de solo lectura\?\)"):
        comprobar_destino(solo_lectura / "pesos.pt", "pesos")
    with pytest.raises(DestinoNoValido, match=r"checkpoints .*solo_lectura: no tengo permiso para escribir en esa carpeta"):
        comprobar_destino(solo_lectura, "checkpoints", carpeta=True)


def test_una_ruta_que_el_sistema_no_admite(tmp_path):
    with pytest.raises(DestinoNoValido, match=r"pesos .*: no puedo usar esa ruta \(File name too long\)"):
        comprobar_destino(tmp_path / ("x" * 300) / "pesos.pt", "pesos")


def test_una_ruta_de_la_que_leer_se_comprueba_igual(tmp_path):
    from curso_gpu.guardado import cargar_pesos, comprobar_origen

    assert comprobar_origen(str(tmp_path / "a.pt"), "ruta") == tmp_path / "a.pt"
    for ruta, texto in [(None, r"ruta de los pesos debe ser la ruta de un archivo .*recibí None"),
                        ("", r"ruta de los pesos está vacío: no dice qué leer"), ("a\0b", r"tiene un carácter nulo")]:
        with pytest.raises(DestinoNoValido, match=texto):
            cargar_pesos(ruta)
