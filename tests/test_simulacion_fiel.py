"""La T4 simulada, fiel: falla donde falla una T4, con los textos de PyTorch, y lo deja todo como estaba.

(Issue 52.) Cada prueba enciende la simulación con ``simular_gpu("T4")`` en este proceso.
"""

import atexit
import os
import subprocess
import sys

import pytest
import torch

from curso_gpu.dispositivo import VARIABLE_SIMULAR, activar_simulacion, desactivar_simulacion, simular_gpu


@pytest.fixture
def t4():
    if torch.cuda.is_available():
        pytest.skip("esta máquina tiene una GPU de verdad: la simulación no se enciende")
    with simular_gpu("T4") as perfil:
        yield perfil


# --- la maquinaria solo se importa con la variable; al apagarla, todo vuelve --------------------

@pytest.mark.lento  # otro Python con torch
def test_sin_la_variable_nadie_importa_la_maquinaria_de_la_simulacion():
    codigo = ("import sys, curso_gpu.dispositivo.entorno, curso_gpu.dispositivo.colab, curso_gpu.medicion\n"
              "from curso_gpu.dispositivo import gpu_simulada, simulacion_activa, dispositivo_simulado\n"
              "assert gpu_simulada() is None and not simulacion_activa() and not dispositivo_simulado('cuda')\n"
              "print(sorted(m for m in sys.modules if 'maquina_simulada' in m))")
    entorno = {k: v for k, v in os.environ.items() if k != VARIABLE_SIMULAR}
    salida = subprocess.run([sys.executable, "-c", codigo], env=entorno, capture_output=True, text=True, timeout=120)
    assert salida.returncode == 0, salida.stderr
    assert salida.stdout.strip() == "[]"


def test_apagarla_deshace_el_cambio_de_despacho_la_constante_sin_red_y_las_funciones_de_salida(t4, monkeypatch):
    from curso_gpu.dispositivo.maquina_simulada import modos

    ModoMemoria, anotar_resultados = modos.ModoMemoria, modos.anotar_resultados

    import huggingface_hub.constants as constantes
    import torch._dynamo  # noqa: F401  (dynamo pone sus propias funciones de salida al importarse)

    desactivar_simulacion()
    puestas = []
    registrar, quitar = atexit.register, atexit.unregister
    monkeypatch.setattr(atexit, "register", lambda f, *a, **k: puestas.append(f) or registrar(f, *a, **k))
    monkeypatch.setattr(atexit, "unregister", lambda f: [puestas.remove(p) for p in list(puestas) if p == f]
                        and quitar(f) or quitar(f))
    entorno = {v: os.environ.get(v) for v in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")}

    sin_red = constantes.HF_HUB_OFFLINE
    activar_simulacion("T4", anunciar=False)
    assert constantes.HF_HUB_OFFLINE is True and any(f.__module__.startswith("curso_gpu") for f in puestas)
    torch.compile(lambda x: x + 1)(torch.ones(2, device="cuda"))  # cambia el __torch_dispatch__ del modo
    assert ModoMemoria.__dict__["__torch_dispatch__"] is not anotar_resultados
    desactivar_simulacion()
    assert ModoMemoria.__dict__["__torch_dispatch__"] is anotar_resultados
    assert constantes.HF_HUB_OFFLINE == sin_red
    assert {v: os.environ.get(v) for v in entorno} == entorno
    assert [f for f in puestas if f.__module__.startswith("curso_gpu")] == []  # ninguna de las nuestras queda


@pytest.mark.parametrize("valor", ["1", "true", "True", " t4 "])
def test_uno_o_true_en_la_variable_quieren_decir_la_t4(valor):
    if torch.cuda.is_available():
        pytest.skip("esta máquina tiene una GPU de verdad")
    with simular_gpu(valor) as perfil:
        assert perfil.clave == "T4" and torch.cuda.get_device_name(0) == "Tesla T4"


def test_otro_valor_en_la_variable_dice_los_aceptados():
    with pytest.raises(ValueError, match=r"no sé simular la GPU 'sí, por favor'; usa una de: T4, o 1 / true"):
        activar_simulacion("sí, por favor")
