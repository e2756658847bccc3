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


# --- la regla del dispositivo: los errores de una T4, con los textos de PyTorch -------------------

def test_mezclar_un_tensor_de_la_gpu_y_uno_de_la_cpu_da_el_error_de_pytorch(t4):
    from curso_gpu.base import MEZCLA_LINEAL, MEZCLA_SUMA, coincide

    a, b = torch.ones(3, device="cuda"), torch.ones(3)
    with pytest.raises(RuntimeError) as error:
        a + b
    assert str(error.value) == MEZCLA_SUMA
    with pytest.raises(RuntimeError, match="found at least two devices, cpu and cuda:0!"):
        b * a
    with pytest.raises(RuntimeError) as error:
        torch.nn.Linear(3, 2).cuda()(b.reshape(1, 3))  # un modelo en la GPU con la entrada en la CPU
    assert coincide(str(error.value), MEZCLA_LINEAL)


def test_una_convolucion_con_la_entrada_en_la_cpu_da_el_error_de_tipos(t4):
    from curso_gpu.base import MEZCLA_CONVOLUCION, MEZCLA_CONVOLUCION_MODELO_EN_CPU

    with pytest.raises(RuntimeError, match=MEZCLA_CONVOLUCION.replace("(", r"\(").replace(")", r"\)")):
        torch.nn.Conv2d(1, 2, 3).cuda()(torch.ones(1, 1, 5, 5))
    with pytest.raises(RuntimeError) as error:
        torch.nn.Conv2d(1, 2, 3)(torch.ones(1, 1, 5, 5, device="cuda"))
    assert str(error.value) == MEZCLA_CONVOLUCION_MODELO_EN_CPU


def test_comparar_pesos_de_la_cpu_y_de_la_gpu_con_torch_equal_falla_como_en_cuda(t4):
    # el texto que cita pytorch/pytorch#163529 (wrapper_CUDA__equal)
    with pytest.raises(RuntimeError, match=r"but got other is on cuda:0, different from other tensors on cpu "
                                           r"\(when checking argument in method wrapper_CUDA__equal\)"):
        torch.equal(torch.ones(3), torch.ones(3, device="cuda"))
    assert torch.equal(torch.ones(3), torch.ones(3, device="cuda").cpu())


def test_las_etiquetas_en_la_cpu_tambien_fallan(t4):
    with pytest.raises(RuntimeError, match="but got target is on cpu, different from other tensors on cuda:0"):
        torch.nn.functional.cross_entropy(torch.ones(2, 3, device="cuda"), torch.tensor([0, 1]))


def test_escalares_copias_e_indices_de_la_cpu_pasan_como_en_cuda(t4):
    a = torch.arange(4.0, device="cuda")
    assert (a * torch.tensor(2.0)).device.type == "cuda"  # un tensor de 0 dimensiones de la CPU
    assert (torch.tensor(2.0) + a).is_cuda
    assert a[torch.tensor([0, 2])].tolist() == [0.0, 2.0]  # índices de la CPU para un tensor de la GPU
    assert a[torch.tensor([True, False, True, False])].is_cuda
    a[torch.tensor([1])] = 7.0
    destino = torch.zeros(4)
    destino.copy_(a)  # copiar entre dispositivos
    assert destino.tolist() == [0.0, 7.0, 2.0, 3.0] and not destino.is_cuda
    assert a.to("cpu").device.type == "cpu" and torch.ones(4).to(a.device).is_cuda
    with pytest.raises(RuntimeError, match=r"indices should be either on cpu or on the same device as the indexed tensor \(cpu\)"):
        destino[torch.tensor([0], device="cuda")]


def test_numpy_de_un_tensor_de_la_gpu_da_el_error_de_pytorch(t4):
    import numpy as np

    from curso_gpu.base import NUMPY_EN_GPU

    a = torch.ones(3, device="cuda")
    for convertir in (lambda: a.numpy(), lambda: np.asarray(a)):
        with pytest.raises(TypeError) as error:
            convertir()
        assert str(error.value) == NUMPY_EN_GPU.format(dispositivo="cuda:0")
        assert str(error.value).startswith("can't convert cuda:0 device type tensor to numpy. Use Tensor.cpu()")
    assert a.cpu().numpy().tolist() == [1.0, 1.0, 1.0]


def _entrenar_mutado(monkeypatch, funcion: str, linea: str):
    """``entrenar`` con la línea ``linea`` quitada de ``bucle.<funcion>`` (una mutación del núcleo)."""
    import inspect
    import textwrap

    from curso_gpu.entrenamiento import bucle

    fuente = textwrap.dedent(inspect.getsource(getattr(bucle, funcion)))
    assert linea in fuente, f"la línea ya no está en bucle.{funcion}: actualiza la mutación"
    espacio = dict(vars(bucle))
    exec(compile(fuente.replace(linea, "pass"), bucle.__file__, "exec"), espacio)  # noqa: S102
    monkeypatch.setattr(bucle, funcion, espacio[funcion])


@pytest.mark.parametrize("mutacion", [
    None,
    ("_una_epoca", "xb = xb.to(s.dispositivo, non_blocking=True)"),
    ("_preparar", "X_ent, y_ent = X_ent.to(dispositivo), y_ent.to(dispositivo)"),
])
def test_sin_mover_las_entradas_a_la_gpu_entrenar_falla_como_en_una_t4(t4, monkeypatch, mutacion):
    from curso_gpu.entrenamiento import CNNPequena, entrenar

    torch.manual_seed(0)
    X, y = torch.randn(32, 1, 8, 8), torch.randint(0, 3, (32,))
    if mutacion is not None:
        _entrenar_mutado(monkeypatch, *mutacion)
    lote = 8 if mutacion is None or mutacion[0] == "_una_epoca" else None
    entrenar_ = lambda: entrenar(CNNPequena(), (X, y), (X[:8], y[:8]), "cuda", epocas=1, tamano_lote=lote)  # noqa: E731
    if mutacion is None:
        assert entrenar_().epocas_registradas == [1]  # sin mutar, entrena en la GPU simulada
    else:
        with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device|should be the same"):
            entrenar_()


# --- las esperas de la CPU: set_sync_debug_mode y los eventos --------------------------------------

@pytest.mark.parametrize("espera", [
    lambda a: a.sum().item(), lambda a: a.cpu(), lambda a: a.tolist(), lambda a: a.nonzero(), lambda a: repr(a),
    lambda a: torch.tensor([1.0, 2.0], device="cuda"), lambda a: torch.ones(2).to("cuda"), lambda a: a[a > 0],
    lambda a: bool(a.sum() > 0), lambda a: torch.cuda.current_stream().synchronize(),
], ids=["item", "cpu", "tolist", "nonzero", "imprimir", "tensor_en_cuda", "to_cuda", "mascara", "bool", "stream"])
def test_en_modo_error_cada_espera_de_la_cpu_lanza_el_error_de_pytorch(t4, espera):
    from curso_gpu.base import SINCRONIZACION

    a = torch.arange(3.0, device="cuda")
    torch.cuda.set_sync_debug_mode("error")
    assert torch.cuda.get_sync_debug_mode() == 2
    with pytest.raises(RuntimeError, match=f"^{SINCRONIZACION}$"):
        espera(a)
    torch.cuda.set_sync_debug_mode("default")
    espera(a)  # sin el modo, lo mismo no lanza nada


def test_en_modo_error_lo_que_no_espera_no_lanza_y_en_modo_warn_avisa(t4):
    a = torch.arange(3.0, device="cuda")
    torch.cuda.set_sync_debug_mode("error")
    b = torch.ones(3).to("cuda", non_blocking=True) * a + 1  # copia sin espera y cálculo en la GPU
    b.to("cpu", non_blocking=True)
    torch.cuda.synchronize()  # la espera explícita no avisa (como en PyTorch)
    torch.cuda.set_sync_debug_mode("warn")
    with pytest.warns(UserWarning, match="called a synchronizing CUDA operation"):
        b.sum().item()
    torch.cuda.set_sync_debug_mode(0)
    with pytest.raises(RuntimeError, match="invalid value of debug_mode, expected one of `default`, `warn`, `error`"):
        torch.cuda.set_sync_debug_mode("siempre")


def test_elapsed_time_sin_sincronizar_da_device_not_ready(t4):
    from curso_gpu.base import EVENTO_SIN_TERMINAR

    inicio, fin = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    a = torch.randn(64, 64, device="cuda")
    inicio.record()
    a @ a
    fin.record()
    assert not fin.query()
    with pytest.raises(torch.AcceleratorError, match=f"^{EVENTO_SIN_TERMINAR}$"):
        inicio.elapsed_time(fin)  # el cronómetro que olvida torch.cuda.synchronize()
    fin.synchronize()
    assert fin.query() and inicio.elapsed_time(fin) >= 0
    inicio.record()
    fin.record()
    torch.cuda.synchronize()  # también vale esperar a toda la GPU
    assert inicio.elapsed_time(fin) >= 0


# --- ningún paso de entrenamiento espera a la GPU (set_sync_debug_mode("error")) ------------------

@pytest.mark.parametrize("tamano_lote", [None, 8])
def test_los_pasos_de_entrenar_no_esperan_a_la_gpu(t4, tamano_lote):
    from curso_gpu.entrenamiento import CNNPequena, bucle

    torch.manual_seed(0)
    X, y = torch.randn(32, 1, 8, 8), torch.randint(0, 3, (32,))
    s = bucle._preparar(CNNPequena(), (X, y), (X[:8], y[:8]), torch.device("cuda"), 2, 1e-3, tamano_lote, 0,
                        None, None, 1, "fp32")
    no_finita = torch.zeros((), device="cuda")
    torch.cuda.set_sync_debug_mode("error")
    for epoca in (1, 2):
        no_finita = bucle._una_epoca(s, epoca, no_finita)  # un error «called a synchronizing CUDA operation» si espera
    torch.cuda.set_sync_debug_mode("default")
    assert no_finita.item() == 0.0


def test_el_guardian_de_la_perdida_no_copia_nada_a_la_gpu(t4):
    from curso_gpu.entrenamiento import vigilar_perdida

    torch.cuda.set_sync_debug_mode("error")
    no_finita = vigilar_perdida(torch.zeros((), device="cuda"), torch.tensor(float("nan")).cuda(non_blocking=True), 3)
    no_finita = vigilar_perdida(no_finita, torch.ones((), device="cuda"), 4)
    torch.cuda.set_sync_debug_mode("default")
    assert no_finita.is_cuda and no_finita.item() == 3.0  # la primera época mala, sin esperar


def _esperas(funcion) -> int:
    """Cuántas veces espera la CPU a la GPU mientras corre ``funcion`` (``set_sync_debug_mode("warn")``)."""
    import warnings

    torch.cuda.set_sync_debug_mode("warn")
    with warnings.catch_warnings(record=True) as avisos:
        warnings.simplefilter("always")
        funcion()
    torch.cuda.set_sync_debug_mode("default")
    return sum("called a synchronizing CUDA operation" in str(a.message) for a in avisos)


def test_los_pasos_de_ajustar_solo_esperan_lo_que_espera_transformers(t4):
    """El forward de Qwen2 en transformers espera una vez (mira la máscara de atención:
    ``_ignore_causal_mask_sdpa``, también en una GPU); el paso de ``ajustar`` no añade ninguna."""
    from curso_gpu.ajuste import aplicar_lora, entrenar_lora, modelo_diminuto
    from curso_gpu.rendimiento import preparar_precision

    modelo, _ = modelo_diminuto()
    modelo = aplicar_lora(modelo).to("cuda")
    contexto, escalador = preparar_precision("fp32", torch.device("cuda"))
    optimizador = torch.optim.AdamW([p for p in modelo.parameters() if p.requires_grad], lr=1e-2)
    lotes = [torch.randint(0, 20, (4, 16)) for _ in range(3)]
    ids = lotes[0].to("cuda", non_blocking=True)
    del_modelo = _esperas(lambda: modelo(input_ids=ids, labels=ids, use_cache=False).loss.backward())
    resultado = {}
    del_paso = _esperas(lambda: resultado.update(zip(("suma", "no_finita"), entrenar_lora._una_epoca(
        modelo, lotes, 1, torch.device("cuda"), contexto, escalador, optimizador))))
    assert del_paso == len(lotes) * del_modelo
    assert resultado["suma"].is_cuda and resultado["no_finita"].item() == 0.0


def test_los_pasos_de_ddp_no_esperan_a_la_gpu(t4):
    from curso_gpu.entrenamiento import CNNPequena, ddp

    cnn = CNNPequena().to("cuda")
    datos = torch.utils.data.TensorDataset(torch.randn(16, 1, 8, 8), torch.randint(0, 3, (16,)))
    cargador = torch.utils.data.DataLoader(datos, batch_size=4)
    optimizador = torch.optim.Adam(cnn.parameters(), lr=1e-3)
    torch.cuda.set_sync_debug_mode("error")
    suma, pasos = ddp._una_epoca(cnn, cargador, torch.nn.CrossEntropyLoss(), optimizador, torch.device("cuda"))
    torch.cuda.set_sync_debug_mode("default")
    assert pasos == 4 and suma.is_cuda


# --- autocast("cuda"): las listas de operaciones de CUDA ------------------------------------------

def test_con_autocast_cuda_softmax_normas_y_perdidas_calculan_en_fp32(t4):
    from curso_gpu.base import AUTOCAST_CUDA_FP32

    assert {"softmax", "log_softmax", "layer_norm", "exp", "sum", "cross_entropy", "mse_loss"} <= AUTOCAST_CUDA_FP32
    x = torch.randn(4, 8, device="cuda", requires_grad=True)
    lineal, norma = torch.nn.Linear(8, 8).cuda(), torch.nn.LayerNorm(8).cuda()
    etiquetas = torch.zeros(4, dtype=torch.long, device="cuda")
    with torch.autocast("cuda", torch.float16):
        h = lineal(x)
        assert h.dtype == torch.float16  # las multiplicaciones de matrices, en fp16
        for resultado in (h.softmax(-1), torch.nn.functional.log_softmax(h, -1), norma(h), h.exp(), h.sum(),
                          torch.nn.functional.cross_entropy(h, etiquetas), torch.nn.functional.mse_loss(h, h)):
            assert resultado.dtype == torch.float32
        assert h.sum(dtype=torch.float16).dtype == torch.float16  # con dtype explícito, autocast no toca nada
        assert (h + 1).dtype == torch.float16
        with torch.autocast("cuda", enabled=False):
            assert h.softmax(-1).dtype == torch.float16
        perdida = torch.nn.functional.cross_entropy(h, etiquetas)
    perdida.backward()
    assert x.grad.dtype == torch.float32
    assert torch.ones(2, dtype=torch.float16, device="cuda").softmax(-1).dtype == torch.float16  # fuera del bloque


def test_exp_de_fp16_no_desborda_con_autocast_cuda(t4):
    grande = torch.full((2,), 20.0, dtype=torch.float16, device="cuda")  # e^20 ≈ 4.9e8 > 65504, el máximo de fp16
    assert torch.isinf(grande.exp()).all()
    with torch.autocast("cuda", torch.float16):
        assert torch.isfinite(grande.exp()).all()  # en una T4, exp calcula en fp32


# --- el asignador con caché y el contexto de CUDA -------------------------------------------------

MiB = 2**20


def test_reservada_sigue_las_reglas_del_asignador_de_cuda_y_la_cache_queda_hasta_empty_cache(t4):
    torch.cuda.empty_cache()
    diminuto = torch.ones(1, device="cuda")  # 4 bytes → un bloque de 512, en un segmento pequeño de 2 MiB
    assert torch.cuda.memory_allocated() == 512 and torch.cuda.memory_reserved() == 2 * MiB
    mediano = torch.empty(3 * MiB, dtype=torch.uint8, device="cuda")  # > 1 MiB y < 10 MiB: un segmento de 20 MiB
    assert torch.cuda.memory_reserved() == 22 * MiB
    otro = torch.empty(3 * MiB, dtype=torch.uint8, device="cuda")  # cabe en el hueco del segmento de 20 MiB
    assert torch.cuda.memory_reserved() == 22 * MiB
    grande = torch.empty(15 * MiB + 1, dtype=torch.uint8, device="cuda")  # no cabe en los 14 MiB que quedan; ≥ 10 MiB:
    assert torch.cuda.memory_reserved() == 38 * MiB                      # un segmento redondeado a 2 MiB → 16 MiB
    assert torch.cuda.memory_allocated() == 512 + 6 * MiB + 15 * MiB + 512
    del mediano, otro, grande
    assert torch.cuda.memory_allocated() == 512
    assert torch.cuda.memory_reserved() == 38 * MiB  # la caché: reservada pero sin usar
    assert torch.cuda.max_memory_reserved() >= torch.cuda.memory_reserved() >= torch.cuda.memory_allocated()
    torch.cuda.empty_cache()
    assert torch.cuda.memory_reserved() == 2 * MiB  # solo el segmento del tensor que sigue vivo
    del diminuto


def test_mem_get_info_y_nvidia_smi_cuentan_el_contexto_de_cuda(t4):
    import subprocess

    def usada_smi() -> int:
        salida = subprocess.run(["nvidia-smi", "--query-gpu=memory.used", "--format=csv,noheader,nounits"],
                                capture_output=True, text=True, check=True).stdout
        return int(salida)

    assert usada_smi() == 0  # antes de usar la GPU no hay contexto
    libre, total = torch.cuda.mem_get_info()  # como en CUDA, preguntar crea el contexto
    assert total - libre == t4.contexto_cuda_bytes > 0 and torch.cuda.memory_reserved() == 0
    x = torch.empty(3 * MiB, dtype=torch.uint8, device="cuda")
    libre, _ = torch.cuda.mem_get_info()
    assert total - libre == t4.contexto_cuda_bytes + 20 * MiB
    assert usada_smi() == (t4.contexto_cuda_bytes + 20 * MiB) // MiB
    assert "106MiB" not in subprocess.run(["nvidia-smi"], capture_output=True, text=True).stdout
    assert f"{(t4.contexto_cuda_bytes + 20 * MiB) // MiB}MiB /" in subprocess.run(
        ["nvidia-smi"], capture_output=True, text=True).stdout
    del x


def test_el_oom_tiene_la_forma_de_colab_con_el_contexto_y_la_cache(t4):
    import re

    x = torch.empty(3 * MiB, dtype=torch.uint8, device="cuda")
    del x  # deja 20 MiB en la caché
    with pytest.raises(torch.OutOfMemoryError) as error:
        torch.empty(16 * 2**30, dtype=torch.uint8, device="cuda")
    texto = str(error.value)
    assert "this process has" not in texto  # la forma de un contenedor (Colab): «Process N has …»
    encontrado = re.search(r"of which ([\d.]+) GiB is free\. Process \d+ has ([\d.]+) MiB memory in use\. Of the "
                           r"allocated memory 0 bytes is allocated by PyTorch, and 20\.00 MiB is reserved by PyTorch "
                           r"but unallocated\.", texto)
    assert encontrado, texto
    assert float(encontrado.group(2)) == round((t4.contexto_cuda_bytes + 20 * MiB) / MiB, 2)


# --- el generador de la GPU, los hilos y lo que sobrevive al bloque ---------------------------------

def test_la_gpu_simulada_tiene_su_propio_generador(t4):
    torch.manual_seed(0)  # siembra la CPU y la GPU, como en PyTorch
    de_la_gpu = torch.randn(4, device="cuda").cpu()
    de_la_cpu = torch.randn(4)
    torch.manual_seed(0)
    assert torch.equal(torch.randn(4), de_la_cpu)  # la GPU no gastó números del generador de la CPU
    torch.cuda.manual_seed(0)
    assert torch.equal(torch.randn(4, device="cuda").cpu(), de_la_gpu)
    torch.cuda.manual_seed(1)
    primero = torch.nn.functional.dropout(torch.ones(64, device="cuda"), 0.5).cpu()
    estado = torch.cuda.get_rng_state()
    segundo = torch.nn.functional.dropout(torch.ones(64, device="cuda"), 0.5).cpu()
    torch.cuda.manual_seed(1)
    assert torch.equal(torch.nn.functional.dropout(torch.ones(64, device="cuda"), 0.5).cpu(), primero)
    torch.cuda.set_rng_state(estado)
    assert torch.equal(torch.nn.functional.dropout(torch.ones(64, device="cuda"), 0.5).cpu(), segundo)
    assert torch.cuda.initial_seed() == 1


def test_otro_hilo_ve_la_misma_gpu_simulada(t4):
    import threading
    from concurrent.futures import ThreadPoolExecutor

    resultado = {}

    def en_otro_hilo():
        x = torch.ones(3, device="cuda")
        resultado["x"] = (x * 2).cpu()
        resultado["dispositivo"] = x.device
        with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
            x + torch.ones(3)

    hilo = threading.Thread(target=en_otro_hilo)
    hilo.start()
    hilo.join()
    assert resultado["dispositivo"] == torch.device("cuda", 0) and resultado["x"].tolist() == [2.0, 2.0, 2.0]
    with ThreadPoolExecutor(1) as grupo:
        assert grupo.submit(lambda: torch.zeros(2, device="cuda").is_cuda).result()


def test_un_tensor_que_sobrevive_al_bloque_es_un_error_y_no_un_cambio_silencioso():
    if torch.cuda.is_available():
        pytest.skip("esta máquina tiene una GPU de verdad")
    modelo = torch.nn.Linear(2, 2)
    with pytest.raises(RuntimeError, match=r"quedan 2 tensores en la GPU simulada.*\.cpu\(\)"):
        with simular_gpu("T4"):
            modelo.cuda()  # peso y sesgo
    assert not torch.cuda.is_available()
