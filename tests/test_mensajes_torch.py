"""Los mensajes de error que enseñan las lecciones 01 y 05 salen de un solo sitio."""

from pathlib import Path

import pytest
import torch

from curso_gpu.base import mensajes_torch

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"


def _cadenas_de(libreria: str) -> bytes:
    return (Path(torch.__file__).parent / "lib" / libreria).read_bytes()


def test_los_trozos_fijos_estan_en_la_libreria_de_pytorch_instalada():
    if not (Path(torch.__file__).parent / "lib" / "libtorch_cpu.so").exists():
        pytest.skip("la librería tiene otro nombre fuera de Linux")
    cpu = _cadenas_de("libtorch_cpu.so")
    for trozo in (b"Expected all tensors to be on the same device, but got ",
                  b", different from other tensors on ", b" (when checking argument in method ",
                  b"Expected all tensors to be on the same device, but found at least two devices, ",
                  b"Input type (", b") and weight type (", b") should be the same"):
        assert trozo in cpu, trozo


def test_coincide_ignora_el_prefijo_y_lo_que_sigue():
    real = "RuntimeError: " + mensajes_torch.MEZCLA_CONVOLUCION + " or input should be a MKLDNN tensor"
    assert mensajes_torch.coincide(real, mensajes_torch.MEZCLA_CONVOLUCION)
    assert not mensajes_torch.coincide(real, mensajes_torch.MEZCLA_CONVOLUCION_MODELO_EN_CPU)


def test_la_tabla_de_errores_de_la_leccion_05_usa_los_mensajes_reales():
    texto = (NOTEBOOKS / "05_entrenamiento_portable.py").read_text(encoding="utf-8")
    for mensaje in (mensajes_torch.MEZCLA_CONVOLUCION, mensajes_torch.MEZCLA_CONVOLUCION_MODELO_EN_CPU,
                    mensajes_torch.MEZCLA_SUMA):
        assert mensaje in texto
    assert "No CUDA GPUs are available" not in texto
    assert "is not on the expected device" not in texto  # el texto del dispositivo meta, no el de la GPU
