"""La T4 simulada (``curso_gpu.dispositivo.simulacion``): torch.cuda responde como una T4 de Colab,
los tensores de «cuda» viven en la CPU y la memoria cuenta lo que vive en la GPU simulada."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from curso_gpu.base import GPUS_SIMULABLES
from curso_gpu.dispositivo import (
    AVISO_SIMULACION, VARIABLE_SIMULAR, activar_simulacion, desactivar_simulacion, elegir_dispositivo,
    gpu_simulada, simulacion_activa, simular_gpu,
)

T4 = GPUS_SIMULABLES["T4"]
MB = 1000 * 1000
MB_EN_BLOQUES = 4_000_256 // 4  # el asignador de CUDA redondea cada bloque a múltiplos de 512 bytes: 4 MB → 4 000 256



def test_torch_cuda_responde_como_una_t4_de_colab(t4):
    assert torch.cuda.is_available() and torch.cuda.device_count() == 1
    assert torch.cuda.get_device_name(0) == "Tesla T4" == t4.nombre
    assert torch.cuda.get_device_capability() == (7, 5)
    propiedades = torch.cuda.get_device_properties(0)
    assert propiedades.multi_processor_count == 40 and propiedades.major == 7 and propiedades.minor == 5
    assert propiedades.total_memory == 15095 * 2**20
    assert "total_memory=15095MB" in repr(propiedades)
    assert elegir_dispositivo() == torch.device("cuda")
    assert gpu_simulada() is t4


def test_una_t4_no_tiene_bf16_nativo_pero_torch_lo_emula(t4):
    assert torch.cuda.is_bf16_supported() is True  # como en una T4 de verdad: emulado
    assert torch.cuda.is_bf16_supported(including_emulation=False) is False


def test_otra_gpu_que_no_existe_es_un_error(t4):
    with pytest.raises(RuntimeError, match="invalid device ordinal"):
        torch.cuda.get_device_name(1)
    with pytest.raises(RuntimeError, match="invalid device ordinal"):
        torch.ones(2).to("cuda:1")


def test_los_tensores_de_cuda_viven_en_la_cpu_pero_dicen_cuda(t4):
    x = torch.randn(4, 4, device="cuda")
    assert x.device == torch.device("cuda", 0) and x.is_cuda and not x.is_cpu
    assert "device='cuda:0'" in repr(x)
    assert x.untyped_storage().device.type == "cpu"  # de verdad, en la CPU
    y = x @ x + 1
    assert y.is_cuda
    z = y.cpu()
    assert z.device.type == "cpu" and not z.is_cuda and torch.equal(z, y.cpu())
    z.add_(1)  # .cpu() es una copia, como en una GPU
    assert not torch.equal(z, y.cpu())
    assert torch.ones(3).cuda().is_cuda and torch.ones(3).to("cuda").is_cuda
    assert torch.ones(3).to(torch.device("cuda:0"), torch.float16).dtype == torch.float16
    assert torch.ones(3).to(x).is_cuda and torch.ones(3).to(z).device.type == "cpu"
    assert torch.tensor([1, 2], device="cuda").is_cuda and torch.zeros_like(x).is_cuda


def test_to_cuda_copia_y_no_toca_el_original(t4):
    original = torch.zeros(3)
    en_gpu = original.to("cuda")
    en_gpu.add_(1)
    assert original.device.type == "cpu" and original.sum().item() == 0
    assert en_gpu.to("cuda") is en_gpu  # ya estaba en la GPU: el mismo tensor


def test_un_modelo_movido_a_la_gpu_entrena_alli(t4):
    modelo = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 2)).to("cuda")
    assert all(p.is_cuda for p in modelo.parameters())
    optimizador = torch.optim.AdamW(modelo.parameters(), lr=1e-2)
    x, y = torch.randn(32, 8, device="cuda"), torch.randint(0, 2, (32,), device="cuda")
    for _ in range(3):
        perdida = torch.nn.functional.cross_entropy(modelo(x), y)
        optimizador.zero_grad()
        perdida.backward()
        optimizador.step()
    assert all(p.grad.is_cuda for p in modelo.parameters())
    assert modelo.cpu()[0].weight.device.type == "cpu"


def test_la_memoria_cuenta_los_bytes_de_la_gpu_simulada(t4):
    torch.cuda.reset_peak_memory_stats()
    antes = torch.cuda.memory_allocated()
    x = torch.empty(1000, 1000, device="cuda")  # 4 MB en fp32
    assert torch.cuda.memory_allocated() - antes == 4 * MB_EN_BLOQUES
    y = x.cpu()  # en la CPU: no cuenta
    assert torch.cuda.memory_allocated() - antes == 4 * MB_EN_BLOQUES
    z = x @ x
    assert torch.cuda.memory_allocated() - antes == 8 * MB_EN_BLOQUES
    del z
    assert torch.cuda.memory_allocated() - antes == 4 * MB_EN_BLOQUES
    assert torch.cuda.max_memory_allocated() - antes == 8 * MB_EN_BLOQUES
    torch.cuda.reset_peak_memory_stats()
    assert torch.cuda.max_memory_allocated() == torch.cuda.memory_allocated()
    libre, total = torch.cuda.mem_get_info()
    assert total == T4.memoria_total_bytes
    assert libre == total - T4.contexto_cuda_bytes - torch.cuda.memory_reserved()  # el contexto de CUDA también ocupa
    del x, y
    assert torch.cuda.memory_allocated() == antes


def test_gradientes_y_estado_del_optimizador_tambien_cuentan(t4):
    antes = torch.cuda.memory_allocated()
    capa = torch.nn.Linear(1000, 1000, bias=False).to("cuda")  # 4 MB de pesos
    assert torch.cuda.memory_allocated() - antes == 4 * MB_EN_BLOQUES
    optimizador = torch.optim.Adam(capa.parameters(), foreach=False)
    capa(torch.randn(10, 1000, device="cuda")).sum().backward()
    optimizador.step()
    # pesos + gradientes + dos momentos de Adam (más el escalar «step» en la CPU)
    assert torch.cuda.memory_allocated() - antes == 16 * MB_EN_BLOQUES
    del capa, optimizador
    assert torch.cuda.memory_allocated() == antes


def test_los_eventos_miden_con_el_reloj_y_sincronizar_no_hace_nada(t4):
    inicio, fin = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    inicio.record()
    torch.randn(200, 200, device="cuda").sum()
    fin.record()
    torch.cuda.synchronize()
    assert fin.query() and inicio.elapsed_time(fin) >= 0
    with pytest.raises(RuntimeError, match="enable_timing"):
        torch.cuda.Event().elapsed_time(torch.cuda.Event())


def test_fp16_con_autocast_y_gradscaler_como_en_una_t4(t4):
    capa = torch.nn.Linear(8, 8).to("cuda")
    escalador = torch.amp.GradScaler("cuda")
    with torch.autocast("cuda", dtype=torch.float16):
        salida = capa(torch.randn(4, 8, device="cuda"))
    assert salida.dtype == torch.float16 and salida.is_cuda
    escalador.scale(salida.float().sum()).backward()
    optimizador = torch.optim.SGD(capa.parameters(), lr=0.1)
    escalador.step(optimizador)
    escalador.update()
    assert escalador.get_scale() > 0


def test_torch_compile_corre_con_el_backend_eager(t4):
    compilada = torch.compile(lambda a: torch.sin(a) + 1, mode="max-autotune")
    x = torch.randn(5, device="cuda")
    assert torch.allclose(compilada(x), torch.sin(x) + 1)


def test_torch_compile_con_fullgraph_tambien_corre(t4):
    # medir_barrido (lección 10) compila el forward del modelo con fullgraph=True y mode="reduce-overhead"
    compilada = torch.compile(lambda a: torch.cos(a) * 2, mode="reduce-overhead", fullgraph=True)
    x = torch.randn(5, device="cuda")
    assert torch.allclose(compilada(x), torch.cos(x) * 2)


@pytest.mark.lento  # un Python nuevo con torch
def test_compilar_una_funcion_de_muchas_operaciones_no_avisa_en_stderr():
    # En un Python nuevo: dynamo cuenta sus recompilaciones por proceso. Antes compilaba el modo de
    # memoria una vez por operación y, a la novena, escribía «hit config.recompile_limit» en stderr.
    codigo = (
        "import torch\n"
        "from curso_gpu.dispositivo import activar_simulacion\n"
        "activar_simulacion(anunciar=False)\n"
        "def f(x):\n"
        "    return (torch.sigmoid(torch.tanh(torch.exp(torch.cos(torch.sin(x))))) * 2 - 1).relu().neg().abs().sqrt().log1p()\n"
        "g = torch.compile(f, fullgraph=True)\n"
        "x = torch.randn(5, device='cuda')\n"
        "assert all(torch.allclose(g(x), f(x)) for _ in range(3))\n"
        "print('igual')\n")
    entorno = {k: v for k, v in os.environ.items() if k != VARIABLE_SIMULAR}
    entorno["PYTHONPATH"] = os.pathsep.join(filter(None, [str(Path(__file__).resolve().parent.parent),
                                                          entorno.get("PYTHONPATH")]))
    salida = subprocess.run([sys.executable, "-c", codigo], capture_output=True, text=True, env=entorno, timeout=300)
    assert (salida.returncode, salida.stdout.strip(), salida.stderr) == (0, "igual", "")


def test_copiar_de_la_gpu_a_un_tensor_de_la_cpu_lo_deja_en_la_cpu(t4):
    # load_state_dict (peft al cargar un adaptador) copia así pesos de la GPU en un modelo de la CPU
    en_gpu = torch.ones(1000, device="cuda")
    en_cpu = torch.zeros(1000)
    antes = torch.cuda.memory_allocated()
    en_cpu.copy_(en_gpu)
    assert en_cpu.device == torch.device("cpu") and torch.equal(en_cpu, torch.ones(1000))
    assert torch.cuda.memory_allocated() == antes == 4096  # 4000 bytes, en un bloque de múltiplos de 512
    assert (en_gpu + en_cpu.cuda()).device == torch.device("cuda", 0)


def test_safetensors_carga_en_la_gpu_simulada(t4, tmp_path):
    # peft carga así un adaptador (lección 10) cuando hay CUDA: torch.empty(..., pin_memory=True) y .to("cuda")
    from safetensors.torch import load_file, save_file

    save_file({"a": torch.arange(6.0).reshape(2, 3)}, tmp_path / "pesos.safetensors")
    assert torch.empty(3, pin_memory=True).shape == (3,)
    cargados = load_file(tmp_path / "pesos.safetensors", device="cuda")
    assert cargados["a"].device == torch.device("cuda", 0)
    assert torch.equal(cargados["a"].cpu(), torch.arange(6.0).reshape(2, 3))


def test_un_dataloader_con_pin_memory_no_avisa(t4, recwarn):
    datos = torch.utils.data.TensorDataset(torch.randn(8, 3))
    for (lote,) in torch.utils.data.DataLoader(datos, batch_size=4, pin_memory=True):
        assert lote.to("cuda", non_blocking=True).is_cuda
    assert not [w for w in recwarn if "pin_memory" in str(w.message)]


def test_cargar_con_map_location_cuda(t4, tmp_path):
    torch.save({"w": torch.arange(3.0)}, tmp_path / "pesos.pt")
    cargado = torch.load(tmp_path / "pesos.pt", map_location="cuda")
    assert cargado["w"].is_cuda and torch.equal(cargado["w"].cpu(), torch.arange(3.0))


def test_al_apagarla_torch_queda_como_estaba():
    if torch.cuda.is_available():
        pytest.skip("esta máquina tiene una GPU de verdad")
    originales = (torch.cuda.is_available, torch.compile, torch.load, torch.Tensor.__dict__.get("device"))
    with pytest.raises(RuntimeError, match="Al salir de simular_gpu\\(\\) quedan 1 tensor en la GPU simulada"):
        with simular_gpu("T4"):
            assert torch.cuda.is_available()
            x = torch.ones(2, device="cuda")  # sigue vivo al salir: se dice, no se cambia de sitio en silencio
    assert not simulacion_activa() and not torch.cuda.is_available()
    assert (torch.cuda.is_available, torch.compile, torch.load, torch.Tensor.__dict__.get("device")) == originales
    assert x.device.type == "cpu"  # ya no hay GPU simulada a la que pertenecer
    with simular_gpu("T4"):
        y = torch.ones(2, device="cuda").cpu()  # lo que se lleva a la CPU antes de salir, sale sin error
    assert y.device.type == "cpu"
    with pytest.raises((AssertionError, RuntimeError)):
        torch.ones(2, device="cuda")  # el error de siempre sin GPU


def test_una_gpu_que_no_se_sabe_simular_da_un_error_claro():
    with pytest.raises(ValueError, match="no sé simular la GPU 'T5'.*T4"):
        activar_simulacion("T5")
    assert not simulacion_activa()


def test_con_una_gpu_de_verdad_no_se_enciende(monkeypatch, capsys):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)  # como si la máquina tuviera una GPU
    assert activar_simulacion("T4") is False
    assert not simulacion_activa()
    assert torch.cuda.is_available.__name__ == "<lambda>"  # nadie la cambió por la simulada
    assert "GPU de verdad" in capsys.readouterr().out


@pytest.mark.lento  # otro Python con torch
def test_la_variable_la_enciende_al_importar_curso_gpu_y_se_anuncia_una_vez():
    codigo = ("import curso_gpu, torch; import curso_gpu.dispositivo as d; d.activar_simulacion('T4'); "
              "print(torch.cuda.get_device_name(0), torch.ones(1, device='cuda').device)")
    entorno = {**os.environ, VARIABLE_SIMULAR: "T4"}
    salida = subprocess.run([sys.executable, "-c", codigo], env=entorno, capture_output=True, text=True, timeout=120)
    assert salida.returncode == 0, salida.stderr
    anuncio = AVISO_SIMULACION.format(variable=VARIABLE_SIMULAR, clave="T4", nombre="Tesla T4")
    assert salida.stdout.count(anuncio) == 1
    assert salida.stdout.strip().endswith("Tesla T4 cuda:0") and salida.stderr == ""
    sin = subprocess.run([sys.executable, "-c", "import curso_gpu, sys; print('torch' in sys.modules)"],
                         env={k: v for k, v in os.environ.items() if k != VARIABLE_SIMULAR},
                         capture_output=True, text=True, timeout=120)
    assert sin.stdout.strip() == "False"  # sin la variable, ni siquiera se importa torch


# --- nvidia-smi simulado y lo que se mide en la GPU simulada (lecciones 01–04) ---------------------

def test_nvidia_smi_simulado_responde_como_en_una_t4_de_colab(t4):
    import shutil

    from curso_gpu.dispositivo import consultar_capacidades, consultar_nvidia_smi

    programa = shutil.which("nvidia-smi")
    assert programa is not None
    tabla = subprocess.run(["nvidia-smi"], capture_output=True, text=True, timeout=30)  # como una celda de la 01
    assert tabla.returncode == 0 and tabla.stderr == ""
    assert "Driver Version: 580.82.07      CUDA Version: 13.0" in tabla.stdout
    assert "Tesla T4" in tabla.stdout and "0MiB /  15360MiB" in tabla.stdout and "10W /   70W" in tabla.stdout
    informe = consultar_nvidia_smi()
    assert (informe.driver, informe.cuda_del_driver, informe.cuda_de_cabecera) == ("580.82.07", (13, 0), True)
    gpu = informe.gpus[0]
    # memory.free en reposo: lo que CUDA da a PyTorch (15095 MiB); el driver reserva el resto
    assert (gpu.indice, gpu.nombre, gpu.memoria_total_mib, gpu.memoria_usada_mib, gpu.memoria_libre_mib) == (
        0, "Tesla T4", 15360, 0, T4.memoria_total_bytes // 2**20)
    assert consultar_capacidades() == [(7, 5)]
    con_cabecera = subprocess.run(["nvidia-smi", "--query-gpu=name,memory.total,compute_cap", "--format=csv"],
                                  capture_output=True, text=True, timeout=30)
    assert con_cabecera.stdout == "name, memory.total [MiB], compute_cap\nTesla T4, 15360 MiB, 7.5\n"


def test_nvidia_smi_simulado_dice_lo_que_no_simula(t4):
    for argumentos in (["--query-gpu=clocks.sm", "--format=csv"], ["-L"], ["--query-gpu=name"]):
        salida = subprocess.run(["nvidia-smi", *argumentos], capture_output=True, text=True, timeout=30)
        assert salida.returncode == 2 and salida.stdout == "", argumentos
        assert salida.stderr.startswith("nvidia-smi simulado (curso_gpu): "), salida.stderr
        assert "no está simulad" in salida.stderr or "hace falta --format=csv" in salida.stderr, salida.stderr


def test_al_apagarla_nvidia_smi_desaparece_del_path():
    import shutil

    if torch.cuda.is_available():
        pytest.skip("esta máquina tiene una GPU de verdad")
    path_antes, antes = os.environ["PATH"], shutil.which("nvidia-smi")
    with simular_gpu("T4"):
        programa = shutil.which("nvidia-smi")
        assert programa and programa != antes
        carpeta = os.path.dirname(programa)
        assert os.environ["PATH"].split(os.pathsep)[0] == carpeta
    assert os.environ["PATH"] == path_antes and shutil.which("nvidia-smi") == antes
    assert not os.path.exists(carpeta)


def test_la_tabla_de_ejemplo_y_la_simulada_salen_de_la_misma_plantilla():
    from curso_gpu.dispositivo import SALIDA_EJEMPLO_T4, tabla_nvidia_smi

    assert SALIDA_EJEMPLO_T4 == tabla_nvidia_smi("580.82.07", "13.0", "Tesla T4", 15360, temperatura_c=37, consumo_w=10)
    lineas = tabla_nvidia_smi("550.54.15", "12.4", "Tesla T4", 15360, temperatura_c=41, consumo_w=10).splitlines()
    assert {len(linea) for linea in lineas if linea} == {91}  # todas las filas del mismo ancho, como la de verdad
    assert lineas[1] == "| NVIDIA-SMI 550.54.15              Driver Version: 550.54.15      CUDA Version: 12.4     |"
    assert lineas[8] == "| N/A   41C    P8             10W /   70W |       0MiB /  15360MiB |      0%      Default |"


def test_describir_entorno_dice_que_la_gpu_es_simulada_y_no_receta_reinstalar(t4):
    from curso_gpu.dispositivo import describir_entorno

    informe = describir_entorno()
    assert informe.gpu_simulada == "Tesla T4" and informe.cuda_disponible
    assert informe.nvidia_smi.driver == T4.driver.version
    filas = dict(informe.filas())
    assert "todo se calcula en la CPU" in filas["GPU simulada"]
    assert len(informe.avisos) == 1 and informe.avisos[0].startswith("GPU simulada: PyTorch responde como una Tesla T4")
    assert not any("error clásico" in aviso or "Reinstala" in aviso for aviso in informe.avisos)


def test_lo_medido_en_la_gpu_simulada_dice_que_salio_de_la_cpu(t4):
    from curso_gpu.medicion import barrido, comparar_cpu_gpu, medir_sin_sincronizar

    comparacion = comparar_cpu_gpu(64, "cuda", repeticiones=2)
    gpu = comparacion.acelerador
    assert gpu.simulada and not comparacion.cpu.simulada and gpu.porcentaje_pico is None  # no con tiempos de la CPU
    assert any("simulada: se calculó en la CPU" in aviso for aviso in gpu.avisos)
    texto = str(comparacion)
    assert "no es la aceleración de una GPU" in texto and "sin contar la copia" not in texto
    sincronizacion = medir_sin_sincronizar(64, "cuda", repeticiones=3)
    assert sincronizacion.simulada and "La GPU simulada calcula en la CPU" in sincronizacion.explicacion
    resultado = barrido([16, 32], silenciosa=True, segundos_por_tamano=None, repeticiones=1)
    assert "es la GPU simulada" in resultado.conclusion


def test_sin_simulacion_nada_dice_simulada():
    from curso_gpu.medicion import medir_matmul

    r = medir_matmul(32, "cpu", repeticiones=1)
    assert not r.simulada and not any("simulada" in aviso for aviso in r.avisos)


def test_un_hijo_hecho_con_fork_no_borra_el_nvidia_smi_de_su_padre(t4):
    import shutil

    programa = shutil.which("nvidia-smi")
    hijo = os.fork()
    if hijo == 0:  # el hijo apaga la simulación heredada y sale como un programa normal (con atexit)
        try:
            desactivar_simulacion()
        finally:
            os._exit(0)
    os.waitpid(hijo, 0)
    assert os.path.exists(programa) and shutil.which("nvidia-smi") == programa


# --- Sin memoria, NCCL y el perfilador (lecciones 06, 07 y 08) ------------------------------------

def test_un_pedido_que_no_cabe_da_el_oom_de_cuda_antes_de_reservar(t4):
    with pytest.raises(torch.OutOfMemoryError, match=r"^CUDA out of memory\. Tried to allocate 20\.00 GiB\. GPU 0"):
        torch.empty(20 * 2**30, dtype=torch.uint8, device="cuda")  # 20 GiB: si se reservara, la RAM lo notaría
    assert torch.cuda.memory_allocated() == 0
    pequeno = torch.zeros(1000, device="cuda")
    assert torch.cuda.memory_allocated() == 4096 and pequeno.is_cuda  # 4000 bytes redondeados a 512


def test_la_fraccion_por_proceso_limita_como_en_torch_y_lo_dice_el_mensaje(t4):
    total = torch.cuda.get_device_properties(0).total_memory
    torch.cuda.set_per_process_memory_fraction(0.1)
    try:
        assert torch.cuda.get_per_process_memory_fraction() == 0.1
        with pytest.raises(torch.OutOfMemoryError) as error:
            torch.empty(int(0.2 * total), dtype=torch.uint8, device="cuda")
        assert "1.47 GiB allowed; Of the allocated memory 0 bytes is allocated by PyTorch" in str(error.value)
        torch.cuda.set_per_process_memory_fraction(4 * 2**20 / total)  # 4 MiB
        de_la_cpu = torch.ones(750_000)  # 3 MB en la CPU, que no tiene ese límite
        with pytest.raises(torch.OutOfMemoryError, match="Tried to allocate 2.86 MiB"):
            de_la_cpu.to("cuda")  # más de 1 MiB: pide un segmento de 20 MiB
        medio = torch.zeros(MB // 4, device="cuda")  # 1 MB: cabe en un segmento pequeño de 2 MiB
        with pytest.raises(torch.OutOfMemoryError):  # el resultado de una operación (2 MB más) no cabe
            torch.cat([medio, medio])
        assert torch.cuda.memory_allocated() == 1_000_448 and torch.cuda.memory_reserved() == 2 * 2**20  # 1 MB en bloques de 512
    finally:
        torch.cuda.set_per_process_memory_fraction(1.0)
    with pytest.raises(ValueError, match="Allowed range: 0~1"):
        torch.cuda.set_per_process_memory_fraction(1.5)
    with pytest.raises(TypeError, match="must be `float`"):
        torch.cuda.set_per_process_memory_fraction(1)


def test_memory_summary_dice_lo_que_cuenta_la_simulacion(t4):
    x = torch.zeros(250_000, device="cuda")  # 1 MB
    texto = torch.cuda.memory_summary(abbreviated=True)
    assert "Tesla T4" in texto and "asignada 1.0 MB" in texto and "solo sale en una GPU real" in texto
    assert torch.cuda.memory.memory_summary is torch.cuda.memory_summary
    del x


def test_sin_nccl_el_backend_es_gloo(t4):
    import torch.distributed as dist

    from curso_gpu.distribuido import ErrorDistribuido, elegir_backend

    assert not dist.is_nccl_available()
    assert elegir_backend() == "gloo"
    with pytest.raises(ErrorDistribuido, match="no trae NCCL"):
        elegir_backend("nccl")


def test_el_perfilador_solo_ve_la_cpu_y_diagnosticar_no_escribe_en_stderr(t4, capfd):
    from curso_gpu.rendimiento import diagnosticar, perfilador_ve

    assert not perfilador_ve("cuda")
    A = torch.randn(64, 64, device="cuda")
    d = diagnosticar(lambda xb, yb: A @ A, [(torch.zeros(2), torch.zeros(2))] * 4, "cuda", pasos=2)
    assert d.dispositivo.startswith("cuda") and abs(d.fraccion_datos + d.fraccion_lanzamientos + d.fraccion_calculo - 1) < 1e-6
    assert "CUDA used in profiler" not in capfd.readouterr().err


class _QueVeElHijo(torch.utils.data.Dataset):
    """Cada ejemplo dice si el proceso que lo preparó veía la GPU simulada."""

    def __len__(self):
        return 4

    def __getitem__(self, indice):
        return torch.tensor([float(simulacion_activa()), float(os.getpid())])


def test_los_procesos_del_dataloader_preparan_en_la_cpu_sin_la_simulacion(t4):
    from torch.utils.data import DataLoader

    from curso_gpu.rendimiento import ImagenesSinteticas, comparar_cargadores

    lotes = list(DataLoader(_QueVeElHijo(), batch_size=2, num_workers=2, pin_memory=True, timeout=60))
    assert all(not lote[:, 0].any() for lote in lotes)  # los hijos (fork) no heredan la simulación
    assert all((lote[:, 1] != os.getpid()).all() for lote in lotes)
    assert simulacion_activa() and torch.cat(lotes).to("cuda").is_cuda  # el padre sigue con ella
    c = comparar_cargadores(ImagenesSinteticas(n=16, lado=8, recorte=8), 8, num_workers=0, lotes=1)
    assert c.dispositivo.startswith("cuda") and [m.pin_memory for m in c.mediciones] == [False]  # nada que fijar


def test_cuda_visible_devices_vacia_esconde_la_gpu_simulada(monkeypatch):
    if torch.cuda.is_available():
        pytest.skip("esta máquina tiene una GPU de verdad")
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")
    assert activar_simulacion("T4") is False and not simulacion_activa() and not torch.cuda.is_available()
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "0")
    with simular_gpu("T4"):
        assert torch.cuda.is_available()
