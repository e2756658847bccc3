"""Lección 02: detectar Colab, montar Google Drive y comprobar el entorno.

Colab y Drive se simulan en la frontera: un módulo ``google.colab`` falso en ``sys.modules``
cuyo ``drive.mount`` crea ``MyDrive`` dentro de una carpeta temporal, y ``torch.cuda``
parcheado. Nunca se finge que Drive está montado sin que el falso ``mount`` lo haya montado.
"""

import sys
import types

import pytest
import torch

from curso_gpu.dispositivo import InformeColab, colab, comprobar_entorno_colab, montar_drive
from curso_gpu.dispositivo import en_colab
from curso_gpu.base import MENU_COLAB


@pytest.fixture(autouse=True)
def fuera_de_colab(monkeypatch, tmp_path):
    """Cada prueba empieza fuera de Colab, en una carpeta temporal."""
    monkeypatch.delenv("COLAB_RELEASE_TAG", raising=False)
    monkeypatch.delitem(sys.modules, "google.colab", raising=False)
    monkeypatch.chdir(tmp_path)


def _gpu_falsa(monkeypatch, nombre: str | None, memoria_bytes: int = 15_828_320_256):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: nombre is not None)
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda i=0: nombre)
    monkeypatch.setattr(torch.cuda, "get_device_properties", lambda i=0: types.SimpleNamespace(total_memory=memoria_bytes))


# --- en_colab -------------------------------------------------------------------------------

def test_en_tu_ordenador_no_estas_en_colab():
    assert en_colab() is False


def test_el_kernel_de_colab_importa_google_colab(colab_falso):
    assert en_colab() is True


def test_un_python_lanzado_desde_colab_lo_sabe_por_colab_release_tag(monkeypatch):
    monkeypatch.setenv("COLAB_RELEASE_TAG", "release-colab_20260101-060000_RC00")
    assert en_colab() is True


def test_colab_release_tag_vacia_no_cuenta(monkeypatch):
    monkeypatch.setenv("COLAB_RELEASE_TAG", "")
    assert en_colab() is False


# --- montar_drive ---------------------------------------------------------------------------

def test_fuera_de_colab_montar_drive_no_monta_ni_crea_nada(tmp_path, capsys):
    punto = tmp_path / "drive"
    assert montar_drive(punto) is None
    assert not punto.exists()
    assert not (tmp_path / "checkpoints").exists()
    mensaje = capsys.readouterr().out
    assert "No estás en Google Colab" in mensaje
    assert "checkpoints/" in mensaje and str(tmp_path / "checkpoints") in mensaje


def test_en_colab_monta_drive_y_devuelve_la_carpeta_del_curso_en_mydrive(colab_falso, tmp_path, capsys):
    punto = tmp_path / "content" / "drive"
    carpeta = montar_drive(punto)
    assert colab_falso.montajes == [str(punto)]
    assert carpeta == punto / "MyDrive" / "curso_gpu"
    assert carpeta.is_dir()
    assert str(carpeta) in capsys.readouterr().out


def test_el_punto_por_defecto_es_el_de_colab():
    assert montar_drive.__defaults__[0] == "/content/drive"


def test_si_drive_ya_esta_montado_no_lo_vuelve_a_montar(colab_falso, tmp_path):
    punto = tmp_path / "drive"
    montar_drive(punto)
    (punto / "MyDrive" / "curso_gpu" / "modelo.pt").write_bytes(b"pesos")
    carpeta = montar_drive(punto)
    assert colab_falso.montajes == [str(punto)]
    assert (carpeta / "modelo.pt").read_bytes() == b"pesos"


def test_puedes_elegir_otra_carpeta_dentro_de_mydrive(colab_falso, tmp_path):
    carpeta = montar_drive(tmp_path / "drive", carpeta="experimentos/cnn")
    assert carpeta == tmp_path / "drive" / "MyDrive" / "experimentos" / "cnn"
    assert carpeta.is_dir()


@pytest.mark.parametrize("carpeta", ["", "   ", "/etc", "../fuera", None])
def test_una_carpeta_fuera_de_mydrive_es_un_error_claro(colab_falso, tmp_path, carpeta):
    with pytest.raises(ValueError, match="Carpeta del curso no válida") as error:
        montar_drive(tmp_path / "drive", carpeta=carpeta)
    assert repr(carpeta) in str(error.value)
    assert colab_falso.montajes == []


def test_si_no_das_permiso_a_drive_devuelve_none_y_dice_donde_iran_los_checkpoints(colab_falso, tmp_path, capsys):
    colab_falso.falla = ValueError("mount failed")
    assert montar_drive(tmp_path / "drive") is None
    mensaje = capsys.readouterr().out
    assert "No se pudo montar Google Drive" in mensaje and "mount failed" in mensaje
    assert str(tmp_path / "checkpoints") in mensaje


def test_si_drive_no_aparece_tras_montar_devuelve_none(colab_falso, tmp_path, capsys):
    colab_falso.crea = False
    assert montar_drive(tmp_path / "drive") is None
    assert "no apareció" in capsys.readouterr().out
    assert not (tmp_path / "drive" / "MyDrive").exists()


def test_un_python_lanzado_desde_colab_no_puede_montar_drive(monkeypatch, tmp_path, capsys):
    """En un ``!python`` no hay kernel de Colab: ``google.colab`` no se puede importar aquí."""
    monkeypatch.setenv("COLAB_RELEASE_TAG", "release-colab")
    monkeypatch.setitem(sys.modules, "google.colab", None)  # import google.colab falla
    assert montar_drive(tmp_path / "drive") is None
    assert "Ejecuta montar_drive() en una celda del notebook" in capsys.readouterr().out


# --- comprobar_entorno_colab ----------------------------------------------------------------

def test_fuera_de_colab_la_comprobacion_lo_dice(monkeypatch, tmp_path):
    _gpu_falsa(monkeypatch, None)
    informe = comprobar_entorno_colab(tmp_path / "drive")
    assert isinstance(informe, InformeColab)
    assert not informe.en_colab and not informe.listo
    assert "No estás en Google Colab" in informe.avisos[0]
    assert "describir_entorno()" in informe.avisos[0]
    assert MENU_COLAB in informe.avisos[1]


def test_en_colab_sin_gpu_da_el_menu_exacto_para_pedir_la_t4(colab_falso, monkeypatch, tmp_path):
    _gpu_falsa(monkeypatch, None)
    informe = comprobar_entorno_colab(tmp_path / "drive")
    assert informe.en_colab and informe.gpu is None and not informe.listo
    assert "Entorno de ejecución › Cambiar tipo de entorno de ejecución › GPU T4" in informe.avisos[0]
    assert MENU_COLAB in informe.avisos[0]


def test_en_colab_gratis_la_gpu_es_una_t4(colab_falso, monkeypatch, tmp_path):
    _gpu_falsa(monkeypatch, "Tesla T4")
    informe = comprobar_entorno_colab(tmp_path / "drive")
    assert informe.listo and informe.es_t4
    assert informe.gpu == "Tesla T4"
    assert informe.memoria_gpu_gb == pytest.approx(15.8, abs=0.05)
    assert "plan gratuito" in informe.avisos[0]
    assert ("GPU", "Tesla T4 (15.8 GB)") in informe.filas()


def test_otra_gpu_de_colab_se_nombra_y_no_se_confunde_con_la_t4(colab_falso, monkeypatch, tmp_path):
    _gpu_falsa(monkeypatch, "NVIDIA A100-SXM4-40GB", 42_505_273_344)
    informe = comprobar_entorno_colab(tmp_path / "drive")
    assert informe.listo and not informe.es_t4
    assert "NVIDIA A100-SXM4-40GB" in informe.avisos[0] and "No es la T4" in informe.avisos[0]


def test_en_colab_avisa_de_la_inactividad_y_los_limites(colab_falso, monkeypatch, tmp_path):
    _gpu_falsa(monkeypatch, "Tesla T4")
    avisos = comprobar_entorno_colab(tmp_path / "drive").avisos
    assert colab.AVISO_INACTIVIDAD in avisos and "inactividad" in colab.AVISO_INACTIVIDAD
    assert colab.AVISO_LIMITES in avisos and "límites de uso" in colab.AVISO_LIMITES


def test_sin_drive_montado_recomienda_guardar_checkpoints_en_drive(colab_falso, monkeypatch, tmp_path):
    _gpu_falsa(monkeypatch, "Tesla T4")
    informe = comprobar_entorno_colab(tmp_path / "drive")
    assert not informe.drive_montado
    assert "checkpoints en Google Drive" in informe.avisos[-1] and "montar_drive()" in informe.avisos[-1]


def test_tras_montar_drive_la_comprobacion_lo_ve(colab_falso, monkeypatch, tmp_path):
    _gpu_falsa(monkeypatch, "Tesla T4")
    punto = tmp_path / "drive"
    montar_drive(punto)
    informe = comprobar_entorno_colab(punto)
    assert informe.drive_montado
    assert "Google Drive está montado" in informe.avisos[-1]


def test_el_informe_se_lee_como_tabla_en_texto_y_en_html(colab_falso, monkeypatch, tmp_path):
    _gpu_falsa(monkeypatch, None)
    informe = comprobar_entorno_colab(tmp_path / "drive")
    texto, pagina = str(informe), informe._repr_html_()
    assert "Google Colab" in texto and "GPU" in texto and "ninguna" in texto
    assert "<table>" in pagina and "Cambiar tipo de entorno de ejecución" in pagina
    assert all(aviso in texto for aviso in informe.avisos)


def test_describir_entorno_usa_la_misma_deteccion_de_colab(colab_falso):
    from curso_gpu.dispositivo import describir_entorno

    assert describir_entorno(consultar_smi=False).en_colab is True


def test_una_carpeta_con_un_caracter_nulo_es_un_error_claro(colab_falso, tmp_path):
    with pytest.raises(ValueError, match=r"Carpeta del curso no válida: 'a\\x00b'\. Tiene un carácter nulo"):
        montar_drive(tmp_path / "drive", carpeta="a\0b")
    assert colab_falso.montajes == []


@pytest.mark.parametrize("punto", ["/content/dri\0ve", 5, b"/content/drive", ""])
def test_un_punto_de_montaje_que_no_es_una_ruta_es_un_error_claro(colab_falso, punto):
    for llamada in (lambda: montar_drive(punto), lambda: comprobar_entorno_colab(punto)):
        with pytest.raises(ValueError, match="Punto de montaje no válido") as error:
            llamada()
        assert repr(punto) in str(error.value)
    assert colab_falso.montajes == []
