"""Los mensajes de error que enseñan las lecciones 01 y 05 salen de un solo sitio."""

import importlib
import importlib.util
import logging
import sys
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


def test_el_aviso_de_cuda_home_es_el_de_la_torch_instalada():
    """Se descarta por su comienzo, y solo si torch lo da por ``logging`` (un ``print`` no se filtraría)."""
    fuente = Path(importlib.util.find_spec("torch.utils.cpp_extension").origin).read_text(encoding="utf-8")
    assert f"logger.warning(\"{mensajes_torch.SIN_RUNTIME_CUDA}'%s'\", cuda_home)" in fuente


class _Recogidos(logging.Handler):
    def __init__(self):
        super().__init__()
        self.textos: list[str] = []

    def emit(self, registro):
        self.textos.append(registro.getMessage())


def test_preparar_torch_compile_descarta_solo_el_aviso_de_cuda_home(monkeypatch, tmp_path):
    """Un PyTorch con CUDA en una máquina sin GPU, fingido en su frontera (``torch.cuda`` y
    ``torch.version``) para que pase también con el PyTorch para CPU: el import de
    ``torch.utils.cpp_extension`` avisa de su CUDA_HOME, y tras ``preparar_torch_compile`` no."""
    from curso_gpu.kernels import preparar_torch_compile

    nombre = "torch.utils.cpp_extension"
    monkeypatch.setattr(torch.cuda, "_is_compiled", lambda: True)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr(torch.version, "cuda", "13.0")
    monkeypatch.setenv("CUDA_HOME", str(tmp_path))  # las herramientas de CUDA, en el disco
    registro = logging.getLogger(nombre)
    recogidos = _Recogidos()
    registro.addHandler(recogidos)
    antes = sys.modules.pop(nombre, None), torch.utils.__dict__.pop("cpp_extension", None)
    try:
        importlib.import_module(nombre)  # sin prepararlo: el aviso en inglés
        assert recogidos.textos == [f"{mensajes_torch.SIN_RUNTIME_CUDA}'{tmp_path}'"]
        del sys.modules[nombre]
        preparar_torch_compile()
        assert nombre in sys.modules and recogidos.textos == [recogidos.textos[0]]  # ni uno más
        registro.warning("otro aviso")  # el filtro era solo para ese import
        assert recogidos.textos[-1] == "otro aviso"
    finally:
        registro.removeHandler(recogidos)
        for diccionario, clave, valor in ((sys.modules, nombre, antes[0]), (torch.utils.__dict__, "cpp_extension", antes[1])):
            diccionario.pop(clave, None)
            if valor is not None:
                diccionario[clave] = valor
