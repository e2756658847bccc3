"""benchmarks/validar_en_gpu.py: sin GPU dice una línea y sale con 0; sus cuentas, en CPU."""

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

RAIZ = Path(__file__).resolve().parent.parent
GUION = RAIZ / "benchmarks" / "validar_en_gpu.py"


def _modulo():
    spec = importlib.util.spec_from_file_location("validar_en_gpu", GUION)
    modulo = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = modulo  # las dataclasses lo buscan ahí
    spec.loader.exec_module(modulo)
    return modulo


validar = _modulo()


def test_sin_gpu_dice_una_linea_y_sale_con_0():
    resultado = subprocess.run(
        [sys.executable, str(GUION)], capture_output=True, text=True, timeout=120,
        env={"CUDA_VISIBLE_DEVICES": "", "PATH": "/usr/bin:/bin", "PYTHONPATH": str(RAIZ)},
    )
    assert resultado.returncode == 0, resultado.stderr
    assert resultado.stdout.strip().splitlines() == [validar.SIN_GPU]


def test_tflops_de_una_matmul():
    # 2·4096³ operaciones en 34,4 ms: unos 4 TFLOP/s (la T4 en fp32).
    assert validar.tflops_matmul(4096, 0.0344) == pytest.approx(4.0, rel=0.01)
    with pytest.raises(ValueError):
        validar.tflops_matmul(4096, 0)


def test_porcentaje_y_rango():
    assert validar.porcentaje(24, 65) == pytest.approx(36.9, abs=0.1)
    assert validar.dentro(36.9, (30, 40)) and not validar.dentro(41, (30, 40))
    with pytest.raises(ValueError):
        validar.porcentaje(1, 0)


def test_el_informe_da_una_linea_por_afirmacion_y_falla_si_alguna_falla():
    bien = validar.Resultado("03", "algo que se cumple", "1 ms", True)
    mal = validar.Resultado("05", "algo que no", "2x", False)
    texto, codigo = validar.informe([bien, mal])
    lineas = texto.splitlines()
    assert lineas[0] == "PASS  [03] algo que se cumple: 1 ms"
    assert lineas[1] == "FAIL  [05] algo que no: 2x"
    assert codigo == 1
    assert validar.informe([bien])[1] == 0


def test_carga_el_modelo_de_la_leccion_04_desde_el_notebook():
    import torch

    GPT2Pequeno = validar.clase_del_notebook(RAIZ / "notebooks" / "04_estimar_vram.py", "GPT2Pequeno")
    with torch.device("meta"):
        modelo = GPT2Pequeno()
    assert sum(p.numel() for p in modelo.parameters()) == 124_439_808
    with pytest.raises(LookupError):
        validar.clase_del_notebook(RAIZ / "notebooks" / "04_estimar_vram.py", "NoExiste")


def test_los_ganchos_de_las_lecciones_06_a_10_existen():
    for nombre in ("comprobar_leccion_06", "comprobar_leccion_07", "comprobar_leccion_08", "comprobar_leccion_09",
                   "comprobar_leccion_10", "comprobar_leccion_10_qwen"):
        assert callable(getattr(validar, nombre))
    lecciones = [nombre for nombre, _ in validar.comprobaciones(rapido=True) if nombre.startswith("lección")]
    assert lecciones[:7] == ["lección 06", "lección 07", "lección 08", "lección 09", "lección 10",
                             "lección 10 con Qwen2.5-0.5B", "lección 11"]
    assert callable(validar.comprobar_leccion_11)


def test_el_gancho_de_la_leccion_09_sin_gpu_salta_y_no_cuenta(monkeypatch):
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert validar.comprobar_leccion_09(torch.device("cuda"), rapido=True) == []  # SKIP no es PASS ni FAIL


def test_el_veredicto_de_la_leccion_09_compara_con_memoria_ajuste():
    comprobar = validar._comprobacion_de_benchmark("ajuste_lora_benchmark.py")
    veredicto = comprobar.__globals__["veredicto"]
    assert veredicto("QLoRA", 2_200_000_000, 2_000_000_000).startswith("PASS QLoRA: pico real 2200 MB")
    assert veredicto("QLoRA", 3_000_000_000, 2_000_000_000).startswith("FAIL")
    assert "+50.0 %" in veredicto("QLoRA", 3_000_000_000, 2_000_000_000)
    with pytest.raises(ValueError):
        veredicto("QLoRA", 1, 0)


def test_las_lineas_de_las_lecciones_07_y_08_se_convierten_en_resultados():
    resultados = validar.desde_lineas("08", [
        "PASS torchrun con nccl en 1 GPU termina bien (3.1 s)",
        "FAIL GPT-2 pequeño, 8 × 1024: medido 10.0 MB, pico real 12.0 MB",
        "SKIP entrenar_ddp con nccl: no hay GPU con CUDA",
    ])
    assert [(r.leccion, r.pasa) for r in resultados] == [("08", True), ("08", False)]
    assert resultados[1].afirmacion == "GPT-2 pequeño, 8 × 1024"
    assert resultados[1].medido == "medido 10.0 MB, pico real 12.0 MB"


# --- Lección 10 con Qwen2.5-0.5B: lo medido en la GPU frente a lo que dice la lección ---------

def _barrido_qwen(segundos: dict, nombre="Tesla T4", ancho=320.0):
    from curso_gpu.generacion import BarridoGeneracion
    from curso_gpu.generacion import FilaBarrido

    filas = [FilaBarrido(variante, lote, lote * 64, 64, [s]) for (variante, lote), s in segundos.items()]
    return BarridoGeneracion("cuda:0", nombre, ancho, 988_065_536, filas, 3, 12)


QWEN_EN_T4 = {("con caché", 1): 1.6, ("con caché", 16): 2.0, ("sin caché", 16): 9.0,
              ("caché estática + torch.compile", 1): 0.5}


def test_qwen_en_una_t4_razonable_pasa_todas_las_comprobaciones():
    resultados = validar.resultados_de_barrido(_barrido_qwen(QWEN_EN_T4))
    assert len(resultados) == 5 and all(r.pasa for r in resultados), [r.linea() for r in resultados]
    assert "40 tokens/s = 12 % de 324" in resultados[2].medido


def test_qwen_mas_rapido_que_su_techo_o_sin_ganar_con_el_lote_falla():
    imposible = {**QWEN_EN_T4, ("con caché", 1): 0.1, ("con caché", 16): 1.5}  # 640 tokens/s > 324
    fallan = [r.afirmacion for r in validar.resultados_de_barrido(_barrido_qwen(imposible)) if not r.pasa]
    assert any("el lote 16 da al menos 4 veces" in f for f in fallan)
    assert any("generate tal cual: no pasa del techo" in f for f in fallan)


def test_qwen_en_una_gpu_fuera_de_la_tabla_se_mide_sin_techo():
    resultados = validar.resultados_de_barrido(_barrido_qwen(QWEN_EN_T4, "NVIDIA A10G", None))
    assert [r.pasa for r in resultados] == [True, True, True]
    assert "fuera de la tabla" in resultados[-1].afirmacion and "40 tokens/s" in resultados[-1].medido


def test_con_la_gpu_simulada_no_mide_nada(capsys):
    from curso_gpu.dispositivo import simular_gpu

    with simular_gpu("T4"):
        assert validar.main([]) == 0
    assert capsys.readouterr().out.strip().splitlines() == [validar.CON_SIMULADA]


@pytest.mark.lento  # arranca dos kernels de Jupyter
def test_el_pase_de_cuadernos_ejecuta_cada_leccion_y_guarda_sus_salidas(tmp_path):
    import nbformat

    notebooks, salida = tmp_path / "notebooks", tmp_path / "ejecutados"
    notebooks.mkdir()
    for nombre, codigo in (("01_bien.ipynb", "print('hola desde la GPU')"), ("02_mal.ipynb", "1 / 0")):
        nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(codigo)]), notebooks / nombre)
    resultados = validar.comprobar_cuadernos(salida, notebooks)
    assert [(r.leccion, r.pasa) for r in resultados] == [("01", True), ("02", False)]
    assert "ZeroDivisionError" in resultados[1].medido or "celda" in resultados[1].medido
    guardado = nbformat.read(salida / "01_bien.ipynb", as_version=4)
    assert "hola desde la GPU" in guardado.cells[0].outputs[0]["text"]


# --- Lección 12: FSDP2 en GPU -------------------------------------------------------------------

def test_el_gancho_de_la_leccion_12_existe_y_sin_gpu_salta():
    import torch

    assert [n for n, _ in validar.comprobaciones(rapido=True)][-2:] == ["lección 12", "lección 13"]
    comprobar = validar._comprobacion_de_benchmark("fsdp_benchmark.py")
    if not torch.cuda.is_available():
        assert comprobar() == ["SKIP FSDP con nccl: no hay GPU con CUDA"]
        assert validar.comprobar_leccion_12(torch.device("cuda"), rapido=True) == []  # SKIP no cuenta


def test_la_memoria_de_la_leccion_12_se_juzga_frente_a_la_calculadora():
    comprobar = validar._comprobacion_de_benchmark("fsdp_benchmark.py")
    juzgar = comprobar.__globals__["juzgar_memoria"]
    assert juzgar(1100 * 2**20, 1000 * 2**20)[0] and "1.10×" in juzgar(1100 * 2**20, 1000 * 2**20)[1]
    assert not juzgar(2000 * 2**20, 1000 * 2**20)[0] and not juzgar(500 * 2**20, 1000 * 2**20)[0]
    with pytest.raises(ValueError):
        juzgar(1, 0)
    # La calculadora del modelo de prueba: con 2 GPU, los estados repartidos son la mitad que con 1.
    prevista = comprobar.__globals__["memoria_prevista"]
    una, dos = prevista(1), prevista(2)
    assert dos.parte("estado de Adam") * 2 == una.parte("estado de Adam")
    assert dos.parte("bloque que se calcula") == una.parte("bloque que se calcula") > 0
    # el pico que se compara con max_memory_allocated no lleva el contexto de CUDA; el de la GPU, sí
    assert dos.total - dos.pico_pytorch == dos.contexto > 0 and dos.momento_pico == "paso del optimizador"
    sin_fsdp = prevista(1, "una")
    assert sin_fsdp.estrategia == "una" and sin_fsdp.parte("copia de 16 bits") > 0


@pytest.mark.lento  # torchrun con 2 procesos
def test_el_trabajador_de_la_leccion_12_corre_en_cpu_con_gloo(tmp_path):
    """El mismo código que en la GPU, con un modelo estrecho: gloo, fp16 al calcular y fp32 guardado."""
    comprobar = validar._comprobacion_de_benchmark("fsdp_benchmark.py")
    r, rangos = comprobar.__globals__["lanzar"](tmp_path, 2, timeout_s=180, ancho=64)
    assert r.bien, r.salida[-3000:]
    assert [x["backend"] for x in rangos] == ["gloo", "gloo"] and all(x["memoria"] is None for x in rangos)
    assert all(x["tipos"] == {"al calcular": "torch.float16", "guardado (trozo)": "torch.float32",
                              "gradiente (trozo)": "torch.float32"} for x in rangos), rangos
    assert [x["escalador"] for x in rangos] == ["GradScaler"] * 2
    (tmp_path / "una").mkdir()
    r, (sola,) = comprobar.__globals__["lanzar"](tmp_path / "una", 1, timeout_s=180, ancho=64, modo="una")
    assert r.bien and sola["modo"] == "una" and sola["tipos"]["al calcular"] == "torch.float16", r.salida[-3000:]


# --- los textos y la memoria que imita la T4 simulada -------------------------------------------------

def test_el_oom_de_colab_y_el_de_otra_maquina_tienen_la_forma_del_mensaje():
    from curso_gpu.base import mensaje_sin_memoria

    colab = ("CUDA out of memory. Tried to allocate 30.00 MiB. GPU 0 has a total capacity of 14.75 GiB of which "
             "7.06 MiB is free. Process 16497 has 14.74 GiB memory in use. Of the allocated memory 14.19 GiB is "
             "allocated by PyTorch, and 456.84 MiB is reserved by PyTorch but unallocated. If reserved but ...")
    r = validar.juzgar_oom(colab)  # NUS-HPC-AI-Lab/VideoSys#192, en una T4 de Colab
    assert r.pasa and "Process N has" in r.medido and "fuera de PyTorch 106 MiB" in r.medido
    propio = mensaje_sin_memoria(pedido=2**30, total=15 * 2**30, libre=2**20, asignada=14 * 2**30,
                                 reservada=14 * 2**30 + 2**29, permitida=2**33)
    r = validar.juzgar_oom(propio)
    assert r.pasa and "this process has" in r.medido
    assert not validar.juzgar_oom("RuntimeError: otra cosa").pasa


def test_el_contexto_de_una_t4_se_compara_con_el_simulado():
    MiB = 2**20
    total = 15095 * MiB
    assert validar.juzgar_contexto(total, total - 2 * MiB - 110 * MiB, 2 * MiB, "Tesla T4").pasa
    assert not validar.juzgar_contexto(total, total - 2 * MiB - 900 * MiB, 2 * MiB, "Tesla T4").pasa
    assert not validar.juzgar_contexto(total, total - 2 * MiB, 2 * MiB, "NVIDIA A100-SXM4-40GB").pasa
    assert validar.juzgar_contexto(total, total - 2 * MiB - 500 * MiB, 2 * MiB, "NVIDIA A100-SXM4-40GB").pasa


def test_el_texto_de_numpy_se_compara_entero():
    bueno = "can't convert cuda:0 device type tensor to numpy. Use Tensor.cpu() to copy the tensor to host memory first."
    assert validar.juzgar_numpy(bueno).pasa
    assert not validar.juzgar_numpy(bueno.replace("cuda:0", "cuda")).pasa


def test_la_comprobacion_de_los_textos_simulados_va_la_primera():
    assert validar.comprobaciones(True)[0][1] is validar.comprobar_textos_simulados


def test_la_t4_simulada_pasa_las_comprobaciones_de_sus_textos():
    import torch

    from curso_gpu.dispositivo import simular_gpu

    if torch.cuda.is_available():
        pytest.skip("esta máquina tiene una GPU de verdad")
    with simular_gpu("T4"):
        resultados = validar.comprobar_textos_simulados(torch.device("cuda:0"))
    assert [r.pasa for r in resultados] == [True, True, True], [r.linea() for r in resultados]
    assert "Process N has" in resultados[2].medido and "fuera de PyTorch 106 MiB" in resultados[2].medido
