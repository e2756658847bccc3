"""Lección 06: entrenar con precisión mixta (fp16 y bf16) en la CPU, y qué puede cada dispositivo."""

from __future__ import annotations

import pytest
import torch
from torch import nn

from curso_gpu.guardado import CarpetaCheckpoints, cargar_checkpoint, como_carpeta, guardar_atomico
from curso_gpu.entrenamiento import generar_dataset
from curso_gpu.entrenamiento import entrenar
from curso_gpu.entrenamiento import CNNPequena
from curso_gpu.rendimiento import (
    PrecisionNoDisponible,
    comprobar_precision,
    preparar_precision,
    soporte_bf16_cpu,
)
from interrupciones import Desconexion, cortar_en

ENT = generar_dataset(40, semilla=1)
VAL = generar_dataset(20, semilla=2)
CPU = torch.device("cpu")


def _modelo(semilla=0):
    torch.manual_seed(semilla)
    return CNNPequena()


def _iguales(a: nn.Module, b: nn.Module) -> bool:
    return all(torch.equal(x, y) for x, y in zip(a.state_dict().values(), b.state_dict().values()))


class PerdidaEnorme(nn.Module):
    """La entropía cruzada por 1000: con la escala inicial de GradScaler (65 536), fp16 desborda."""

    def forward(self, logits, y):
        return 1000 * nn.functional.cross_entropy(logits, y)


# --- Entrenar con precisión mixta -------------------------------------------------------------

@pytest.fixture(scope="module")
def fp32():
    modelo = _modelo()
    return modelo, entrenar(modelo, ENT, VAL, "cpu", epocas=40, silencioso=True)


@pytest.mark.parametrize("precision", ["bf16", "fp16"])
def test_bf16_y_fp16_aprenden_lo_mismo_que_fp32(precision, fp32):
    modelo_32, h32 = fp32
    modelo = _modelo()
    h = entrenar(modelo, ENT, VAL, "cpu", epocas=40, silencioso=True, precision=precision)
    assert h.final.accuracy_validacion >= 0.95
    assert abs(h.final.accuracy_validacion - h32.final.accuracy_validacion) <= 0.05
    assert h.final.perdida_entrenamiento < h.perdida_entrenamiento[0] / 10
    # Los pesos siguen en fp32 (autocast solo cambia las cuentas) y no son los de fp32: sí cambió algo.
    assert all(p.dtype == torch.float32 for p in modelo.parameters())
    assert not _iguales(modelo, modelo_32)


def test_fp32_por_defecto_no_cambia_nada(fp32):
    modelo_32, _ = fp32
    otro = _modelo()
    entrenar(otro, ENT, VAL, "cpu", epocas=40, silencioso=True, precision="fp32")
    assert _iguales(otro, modelo_32)


@pytest.mark.lento  # entrenamientos en fp16
@pytest.mark.parametrize("acumular", [1, 2])
def test_fp16_con_lotes_y_acumulando_tambien_entrena(acumular):
    h = entrenar(_modelo(), ENT, VAL, "cpu", epocas=12, tamano_lote=40 // acumular, acumular=acumular, semilla=0,
                 silencioso=True, precision="fp16")
    assert h.final.accuracy_validacion > 0.6


# --- El escalador en los checkpoints -----------------------------------------------------------

def _entrenar_fp16(carpeta, reanudar=None, **kw):
    modelo = _modelo(3)
    entrenar(modelo, ENT, VAL, "cpu", epocas=20, silencioso=True, precision="fp16", criterio=PerdidaEnorme(),
             checkpoints=como_carpeta(carpeta, cada=10, reanudar=reanudar), **kw)
    return modelo


@pytest.fixture(scope="module")
def seguido(tmp_path_factory):
    """20 épocas en fp16 sin cortes, y su último checkpoint."""
    carpeta = tmp_path_factory.mktemp("seguido")
    modelo = _entrenar_fp16(carpeta)
    return modelo, cargar_checkpoint(CarpetaCheckpoints(carpeta, carpeta).archivos()[0])


def test_reanudar_en_fp16_restaura_el_escalador(tmp_path, seguido):
    seguido, final_seguido = seguido
    with pytest.raises(Desconexion):
        _entrenar_fp16(tmp_path / "cortado", al_avanzar=cortar_en(15))
    carpeta = CarpetaCheckpoints(tmp_path / "cortado", tmp_path / "cortado")
    a_medias = cargar_checkpoint(carpeta.archivos()[0])
    assert a_medias["epoca"] == 10 and a_medias["configuracion"]["precision"] == "fp16"
    assert a_medias["escalador"]["scale"] < 65536  # desbordó y bajó la escala
    reanudado = _entrenar_fp16(tmp_path / "cortado", reanudar=True)
    final = cargar_checkpoint(carpeta.archivos()[0])
    assert final["escalador"] == final_seguido["escalador"]
    assert _iguales(reanudado, seguido)


@pytest.mark.lento  # otro entrenamiento entero
def test_sin_el_estado_del_escalador_el_resultado_seria_otro(tmp_path, seguido):
    """La prueba de arriba puede fallar: si el escalador vuelve a empezar, los pesos cambian."""
    seguido, _ = seguido
    with pytest.raises(Desconexion):
        _entrenar_fp16(tmp_path / "cortado", al_avanzar=cortar_en(15))
    carpeta = CarpetaCheckpoints(tmp_path / "cortado", tmp_path / "cortado")
    ruta = carpeta.archivos()[0]
    estado = cargar_checkpoint(ruta)
    del estado["escalador"]
    guardar_atomico(estado, ruta)
    reanudado = _entrenar_fp16(tmp_path / "cortado", reanudar=True)
    assert not _iguales(reanudado, seguido)


def test_en_fp32_el_checkpoint_no_lleva_escalador(tmp_path):
    entrenar(_modelo(), ENT, VAL, "cpu", epocas=2, silencioso=True, checkpoints=como_carpeta(tmp_path, cada=1))
    estado = cargar_checkpoint(CarpetaCheckpoints(tmp_path, tmp_path).archivos()[0])
    assert estado["configuracion"]["precision"] == "fp32" and estado["escalador"] == {}


# --- Qué puede cada dispositivo ----------------------------------------------------------------

@pytest.mark.parametrize("precision", ["fp8", "int8", "tf32", None, 16])
def test_precision_desconocida_es_un_error_en_espanol(precision):
    with pytest.raises(ValueError, match="precision desconocida .*usa una de: fp32, fp16, bf16"):
        entrenar(_modelo(), ENT, VAL, "cpu", epocas=1, silencioso=True, precision=precision)


def test_acepta_los_alias_del_vocabulario_comun():
    assert comprobar_precision("float16", CPU) is torch.float16
    assert comprobar_precision(torch.bfloat16, CPU) is torch.bfloat16
    assert preparar_precision("half", CPU)[1].is_enabled()


def test_en_cpu_las_tres_precisiones_tienen_su_autocast():
    assert comprobar_precision("fp32", CPU) is None
    assert comprobar_precision("fp16", CPU) is torch.float16
    assert comprobar_precision("bf16", CPU) is torch.bfloat16
    contexto, escalador = preparar_precision("fp16", CPU)
    assert escalador.is_enabled()
    with contexto():
        assert (torch.ones(2, 2) @ torch.ones(2, 2)).dtype == torch.float16
    contexto, escalador = preparar_precision("bf16", CPU)
    assert not escalador.is_enabled()
    with contexto():
        assert (torch.ones(2, 2) @ torch.ones(2, 2)).dtype == torch.bfloat16


class _GPUFalsa:
    """Lo que responde torch.cuda de una GPU concreta (solo las preguntas que se hacen)."""

    def __init__(self, nombre, capacidad, bf16):
        self.nombre, self.capacidad, self.bf16 = nombre, capacidad, bf16

    def aplicar(self, monkeypatch):
        monkeypatch.setattr(torch.version, "hip", None)
        monkeypatch.setattr(torch.cuda, "is_available", lambda: True)  # como_dispositivo pregunta si existe
        monkeypatch.setattr(torch.cuda, "is_bf16_supported", lambda *a, **k: self.bf16)
        monkeypatch.setattr(torch.cuda, "get_device_capability", lambda *a, **k: self.capacidad)
        monkeypatch.setattr(torch.cuda, "get_device_name", lambda *a, **k: self.nombre)


def test_bf16_en_una_t4_propone_fp16(monkeypatch):
    # La T4 (Turing, capacidad 7.5) dice que sí a is_bf16_supported() porque lo emula.
    _GPUFalsa("Tesla T4", (7, 5), True).aplicar(monkeypatch)
    with pytest.raises(PrecisionNoDisponible, match=r"Tesla T4 \(capacidad 7.5\).*precision='fp16'"):
        comprobar_precision("bf16", torch.device("cuda"))


def test_bf16_en_una_gpu_sin_bf16_es_un_error_claro(monkeypatch):
    _GPUFalsa("Tesla P100", (6, 0), False).aplicar(monkeypatch)
    with pytest.raises(PrecisionNoDisponible, match="no puede trabajar en bf16.*'fp16'"):
        comprobar_precision("bf16", torch.device("cuda"))


def test_mps_sin_macos_14_no_hace_bf16(monkeypatch):
    monkeypatch.setattr(torch.backends.mps, "is_macos_or_newer", lambda mayor, menor: False)
    monkeypatch.setattr(torch.backends.mps, "is_available", lambda: True)
    with pytest.raises(PrecisionNoDisponible, match="macOS 14"):
        comprobar_precision("bf16", torch.device("mps"))


@pytest.mark.parametrize("cpuinfo", [None, 42, True])
def test_soporte_bf16_sin_una_ruta_lo_dice_en_espanol(cpuinfo):
    with pytest.raises(ValueError, match=r"cpuinfo debe ser la ruta del archivo con las banderas de la CPU.*"
                                         r"soporte_bf16_cpu\(\) sin nada"):
        soporte_bf16_cpu(cpuinfo)


def test_soporte_bf16_lee_las_banderas_de_la_cpu(tmp_path):
    con_amx = tmp_path / "amx"
    con_amx.write_text("processor : 0\nflags : fpu sse avx2 avx512f avx512_bf16 amx_tile amx_bf16\n")
    sin = tmp_path / "sin"
    sin.write_text("processor : 0\nflags : fpu sse avx2\n")
    assert soporte_bf16_cpu(con_amx).acelera is True
    assert soporte_bf16_cpu(con_amx).banderas == ["avx512_bf16", "amx_bf16", "amx_tile"]
    assert soporte_bf16_cpu(sin).acelera is False and "no tiene AVX-512-BF16 ni AMX" in str(soporte_bf16_cpu(sin))
    assert soporte_bf16_cpu(tmp_path / "no_existe").acelera is None
    arm = tmp_path / "arm"
    arm.write_text("processor : 0\nFeatures : fp asimd sve bf16\n")
    assert soporte_bf16_cpu(arm).banderas == ["bf16"]
