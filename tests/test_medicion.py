"""Lección 03: medir bien (sincronizar, calentar, mediana), GFLOP/s, memoria y errores."""

from __future__ import annotations

import json
import statistics

import sys

import pytest
import torch

from curso_gpu.medicion import cronometro
from curso_gpu.dispositivo import primitivas as dispositivo  # se parchea en el módulo que lo usa
from curso_gpu.medicion import cpu_gpu as medicion
from curso_gpu.interactivo.cli import _resumen_velocidad
from curso_gpu.medicion import (
    MemoriaInsuficiente,
    Medicion,
    ResultadoMatmul,
    bucle_python_vs_numpy,
    comparar_cpu_gpu,
    cronometrar,
    medir_matmul,
    medir_sin_sincronizar,
)
from curso_gpu.dispositivo import memoria_dispositivo, sincronizar
from ram_falsa import poner_ram

CPU = torch.device("cpu")
GPU_FALSA = torch.device("cuda")  # nunca se usa de verdad: sincronizar está sustituido


class RelojFalso:
    """Un reloj que avanza lo que el test diga y apunta cuándo se lee."""

    def __init__(self, pasos):
        self.pasos = list(pasos)
        self.ahora = 0.0
        self.lecturas = 0

    def __call__(self) -> float:
        self.lecturas += 1
        return self.ahora

    def trabajar(self):
        self.ahora += self.pasos.pop(0)


# --- sincronizar --------------------------------------------------------------------------

def _hay_gpu(monkeypatch):
    """Una máquina falsa con dos GPU CUDA y un Mac: las preguntas de disponibilidad dicen que sí."""
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 2)
    monkeypatch.setattr(torch.backends.mps, "is_available", lambda: True)


def test_sincronizar_en_cuda_espera_a_la_gpu(monkeypatch):
    _hay_gpu(monkeypatch)  # como_dispositivo pregunta si esta máquina la tiene
    llamadas = []
    monkeypatch.setattr(torch.cuda, "synchronize", lambda d=None: llamadas.append(d))
    sincronizar(torch.device("cuda:1"))
    assert llamadas == [torch.device("cuda:1")]


def test_sincronizar_en_mps_espera_a_la_gpu_del_mac(monkeypatch):
    _hay_gpu(monkeypatch)  # como_dispositivo pregunta si esta máquina la tiene
    llamadas = []
    monkeypatch.setattr(torch.mps, "synchronize", lambda: llamadas.append("mps"))
    sincronizar(torch.device("mps"))
    assert llamadas == ["mps"]


def test_sincronizar_en_cpu_no_hace_nada(monkeypatch):
    llamadas = []
    for modulo in (torch.cuda, torch.mps, torch.xpu):
        monkeypatch.setattr(modulo, "synchronize", lambda *a, m=modulo.__name__: llamadas.append(m))
    for cpu in (CPU, "cpu", torch.device("cpu", 0)):
        assert sincronizar(cpu) is None
    assert llamadas == [], f"en CPU no hay nada que esperar, y se llamó a {llamadas}"


# --- cronometrar --------------------------------------------------------------------------

def test_se_sincroniza_antes_de_cada_lectura_del_reloj_en_una_gpu_falsa(monkeypatch):
    _hay_gpu(monkeypatch)  # como_dispositivo pregunta si esta máquina la tiene
    eventos = []
    monkeypatch.setattr(cronometro, "sincronizar", lambda d: eventos.append(("sincronizar", str(d))))

    def reloj():
        eventos.append(("reloj", None))
        return float(len(eventos))

    cronometrar(lambda: eventos.append(("trabajo", None)), GPU_FALSA, repeticiones=4, calentamiento=2, reloj=reloj)
    lecturas = [i for i, (tipo, _) in enumerate(eventos) if tipo == "reloj"]
    assert len(lecturas) == 2 * (1 + 4)  # la primera en frío y 4 muestras, dos lecturas cada una
    for i in lecturas:
        assert eventos[i - 1] == ("sincronizar", "cuda"), f"lectura del reloj sin sincronizar antes: {eventos[:i + 1]}"
    assert sum(1 for tipo, _ in eventos if tipo == "trabajo") == 1 + 2 + 4


def test_mediana_y_dispersion_de_muestras_conocidas(monkeypatch):
    _hay_gpu(monkeypatch)  # como_dispositivo pregunta si esta máquina la tiene
    monkeypatch.setattr(cronometro, "sincronizar", lambda d: None)
    reloj = RelojFalso([9.0, 1.0, 1.0, 5.0, 2.0, 4.0, 3.0])  # 9 es la primera (en frío); 1 es calentamiento
    m = cronometrar(reloj.trabajar, GPU_FALSA, repeticiones=5, calentamiento=1, reloj=reloj)
    # El calentamiento no lee el reloj pero sí trabaja: las muestras son 1, 5, 2, 4, 3.
    assert m.primera == 9.0
    assert m.muestras == [1.0, 5.0, 2.0, 4.0, 3.0]
    assert m.mediana == 3.0
    assert (m.minimo, m.maximo) == (1.0, 5.0)
    assert (m.cuartil_1, m.cuartil_3) == (2.0, 4.0)
    assert m.rango_intercuartilico == 2.0


def test_una_medida_con_mucha_dispersion_avisa_en_texto_y_en_html():
    ruidosa = Medicion([1.0, 1.0, 1.5, 2.0, 2.0], None, "cpu")  # IQR 1.0: 67 % de la mediana 1.5
    assert ruidosa.avisos and "67 %" in ruidosa.avisos[0] and "10 %" in ruidosa.avisos[0]
    assert "¡Ojo! La dispersión es grande" in str(ruidosa)
    assert "La dispersión es grande" in ruidosa._repr_html_()
    estable = Medicion([1.0, 1.01, 1.02, 1.03, 1.04], None, "cpu")  # IQR 0.02: 2 % de la mediana
    assert estable.avisos == []
    assert "¡Ojo!" not in str(estable) and "dispersión es grande" not in estable._repr_html_()


def test_la_primera_llamada_en_frio_no_cuenta_en_la_mediana(monkeypatch):
    _hay_gpu(monkeypatch)  # como_dispositivo pregunta si esta máquina la tiene
    monkeypatch.setattr(cronometro, "sincronizar", lambda d: None)
    reloj = RelojFalso([100.0, 1.0, 1.0, 1.0])
    m = cronometrar(reloj.trabajar, GPU_FALSA, repeticiones=3, calentamiento=0, reloj=reloj)
    assert m.primera == 100.0 and m.mediana == 1.0 and m.maximo == 1.0


def test_rango_intercuartilico_con_numero_par_de_muestras():
    m = Medicion([4.0, 1.0, 3.0, 2.0], None, "cpu")
    assert m.mediana == statistics.median([1, 2, 3, 4]) == 2.5
    assert m.cuartil_1 == pytest.approx(1.75) and m.cuartil_3 == pytest.approx(3.25)


def test_la_medicion_se_lee_en_espanol():
    m = Medicion([0.002, 0.001, 0.003], 0.5, "cpu", calentamiento=1, hilos_cpu=2, descripcion="prueba")
    texto = str(m)
    assert "mediana" in texto and "2.000 ms" in texto and "en frío" in texto and "500.000 ms" in texto
    assert "2 hilos" in texto
    assert "<table>" in m._repr_html_()


def test_cronometrar_en_cpu_usa_todos_los_hilos():
    m = cronometrar(lambda: None, CPU, repeticiones=2, calentamiento=0)
    assert m.hilos_cpu == torch.get_num_threads()


# --- la forma mal hecha -------------------------------------------------------------------

def test_sin_sincronizar_el_reloj_se_lee_sin_esperar_a_la_gpu(monkeypatch):
    eventos = []
    from curso_gpu.medicion import sin_sincronizar  # el módulo que define medir_sin_sincronizar

    monkeypatch.setattr(sin_sincronizar, "sincronizar", lambda d: eventos.append("sincronizar"))
    monkeypatch.setattr(sin_sincronizar, "_multiplicar", lambda a, b: eventos.append("trabajo"))

    def reloj():
        eventos.append("reloj")
        return float(len(eventos))

    comparacion = medir_sin_sincronizar(8, CPU, repeticiones=2, calentamiento=0, reloj=reloj)
    assert comparacion.con_sincronizar.sincronizada and not comparacion.sin_sincronizar.sincronizada
    bien = ["sincronizar", "reloj", "trabajo", "sincronizar", "reloj"]
    # La parte mal hecha: reloj, trabajo, reloj sin esperar; la cola se vacía después, fuera del reloj.
    mal = ["reloj", "trabajo", "reloj", "sincronizar"]
    assert eventos == ["trabajo", "sincronizar"] + bien + mal + mal + bien
    assert comparacion.con_sincronizar.muestras == [3.0, 3.0] and comparacion.sin_sincronizar.muestras == [2.0, 2.0]


def test_en_cpu_se_explica_que_sincronizar_no_cambia_nada():
    comparacion = medir_sin_sincronizar(32, CPU, repeticiones=6, calentamiento=1)
    assert "síncrona" in comparacion.explicacion and "sincronizar no cambia nada" in comparacion.explicacion
    assert comparacion.explicacion.startswith(comparacion.comparacion.veredicto)
    assert comparacion.sin_sincronizar.repeticiones == 6 and comparacion.comparacion.pares == 6


# --- medir_matmul -------------------------------------------------------------------------

def _medicion_fija(segundos):
    return Medicion([segundos] * 3, segundos * 10, "cuda:0")


def test_gflops_son_2_n_al_cubo_entre_el_tiempo():
    r = ResultadoMatmul(1000, "fp32", "fp32", "cpu", "CPU", _medicion_fija(0.5), None, "highest", False)
    assert r.operaciones == 2_000_000_000
    assert r.gflops == pytest.approx(4.0)


def test_medir_matmul_con_reloj_falso_da_los_gflops_exactos(monkeypatch):
    reloj = RelojFalso([])
    monkeypatch.setattr(medicion, "_multiplicar", lambda a, b: setattr(reloj, "ahora", reloj.ahora + 0.002))
    r = medir_matmul(100, CPU, repeticiones=4, calentamiento=1, reloj=reloj)
    assert r.segundos == pytest.approx(0.002)
    assert r.gflops == pytest.approx(2 * 100 ** 3 / 0.002 / 1e9)  # 1 GFLOP/s
    assert r.transferencia is None and r.hilos_cpu == torch.get_num_threads()


def test_porcentaje_del_pico_y_aviso_por_encima_del_100():
    t4 = ResultadoMatmul(4096, "fp32", "fp32", "cuda:0", "Tesla T4", _medicion_fija(2 * 4096 ** 3 / 4.05e12),
                         None, "highest", False, pico_tflops=8.1)
    assert t4.porcentaje_pico == pytest.approx(50.0)
    assert not t4.supera_pico
    imposible = ResultadoMatmul(4096, "fp32", "fp32", "cuda:0", "Tesla T4", _medicion_fija(1e-5),
                                None, "highest", False, pico_tflops=8.1)
    assert imposible.supera_pico


def test_medir_matmul_en_gpu_falsa_avisa_si_supera_el_pico(monkeypatch):
    _hay_gpu(monkeypatch)  # como_dispositivo pregunta si esta máquina la tiene
    """Una GPU «T4» que tarda casi nada: más del 100 % del pico, luego la medida está mal."""
    monkeypatch.setattr(cronometro, "sincronizar", lambda d: None)
    monkeypatch.setattr(medicion, "comprobar_que_cabe", lambda n, d, t: None)
    monkeypatch.setattr(medicion, "nombre_dispositivo", lambda d: "Tesla T4")
    monkeypatch.setattr(medicion, "_tf32_posible", lambda d: False)
    monkeypatch.setattr(medicion, "_copiar", lambda t, d: t)  # la «copia a la GPU» se queda en la CPU
    reloj = RelojFalso([])
    monkeypatch.setattr(medicion, "_multiplicar", lambda a, b: setattr(reloj, "ahora", reloj.ahora + 1e-6))
    r = medir_matmul(512, GPU_FALSA, repeticiones=3, reloj=reloj)
    assert r.pico_tflops == 8.1 and r.supera_pico
    assert any("sincronizar" in aviso for aviso in r.avisos)
    assert r.transferencia is not None and r.transferencia.repeticiones == 3
    assert "¡Ojo!" in str(r)


def test_en_cpu_se_mide_fp32_sin_tf32_y_se_dice_el_modo():
    r = medir_matmul(64, CPU, repeticiones=2)
    assert r.modo == "fp32" and r.precision_fp32 == torch.get_float32_matmul_precision()
    assert r.medicion.primera is not None and r.medicion.repeticiones == 2


def test_pedir_tf32_en_cpu_avisa_y_deja_la_precision_como_estaba():
    antes = torch.get_float32_matmul_precision()
    r = medir_matmul(32, CPU, dtype="tf32", repeticiones=1)
    assert r.modo == "fp32" and any("TF32" in a for a in r.avisos)
    assert torch.get_float32_matmul_precision() == antes


@pytest.mark.parametrize("dtype, esperado", [(torch.bfloat16, "bf16"), ("fp64", "fp64"), ("bf16", "bf16"),
                                             (torch.float64, "fp64")])
def test_otros_tipos_de_dato_en_cpu(dtype, esperado, monkeypatch):
    multiplicadas = set()
    original = medicion._multiplicar

    def multiplicar(a, b):
        multiplicadas.add((a.dtype, b.dtype))
        return original(a, b)

    monkeypatch.setattr(medicion, "_multiplicar", multiplicar)
    r = medir_matmul(32, CPU, dtype=dtype, repeticiones=1)
    assert (r.dtype, r.modo) == (esperado, esperado) and r.gflops > 0
    tipo = {"bf16": torch.bfloat16, "fp64": torch.float64}[esperado]
    assert multiplicadas == {(tipo, tipo)}  # lo medido es a @ b en ese tipo, no solo la etiqueta


def test_el_resultado_se_puede_guardar_en_json():
    r = medir_matmul(32, CPU, repeticiones=2)
    datos = json.loads(json.dumps(r.a_dict()))
    assert datos["n"] == 32 and datos["medicion"]["mediana"] == r.segundos


# --- entradas malas -----------------------------------------------------------------------

@pytest.mark.parametrize("n", [0, -5, 2.5, "100", True, None])
def test_n_que_no_es_entero_positivo_da_error_en_espanol(n):
    with pytest.raises(ValueError, match=r"entero mayor o igual que 1; recibí"):
        medir_matmul(n, CPU)


@pytest.mark.parametrize("repeticiones", [0, -1, 1.5])
def test_repeticiones_menores_que_1_dan_error(repeticiones):
    with pytest.raises(ValueError, match="repeticiones debe ser un entero"):
        cronometrar(lambda: None, CPU, repeticiones=repeticiones)


def test_calentamiento_negativo_da_error():
    with pytest.raises(ValueError, match="calentamiento"):
        cronometrar(lambda: None, CPU, calentamiento=-1)


@pytest.mark.parametrize("dtype", ["fp8", torch.int8, "entero", 32])
def test_tipo_de_dato_desconocido_da_error_con_las_opciones(dtype):
    with pytest.raises(ValueError, match=r"precision desconocida.*fp32, tf32, fp16, bf16"):
        medir_matmul(16, CPU, dtype=dtype)


def test_dispositivo_que_no_es_texto_ni_device_da_error():
    with pytest.raises(ValueError, match="(?i)dispositivo no válido"):
        cronometrar(lambda: None, 3.5)


def test_barrido_sin_tamanos_da_error():
    with pytest.raises(ValueError, match="vacío"):
        medicion.barrido([], silenciosa=True)


# --- memoria ------------------------------------------------------------------------------

def ram_falsa(libre_bytes: int) -> dispositivo.MemoriaDispositivo:
    return dispositivo.MemoriaDispositivo("cpu", 2 * libre_bytes, libre_bytes, "prueba")


def test_3_n_cuadrado_por_bytes():
    assert medicion.memoria_necesaria(1000) == 12_000_000
    assert medicion.memoria_necesaria(1000, torch.float16) == 6_000_000


def test_un_tamano_que_no_cabe_en_la_ram_se_rechaza_antes_de_reservar(monkeypatch):
    monkeypatch.setattr(dispositivo, "memoria_ram", lambda: ram_falsa(1_000_000_000))  # 1 GB libre
    monkeypatch.setattr(torch, "randn", lambda *a, **k: pytest.fail("reservó memoria antes de comprobar"))
    with pytest.raises(MemoriaInsuficiente, match=r"n=20000 no cabe.*4.80 GB.*1.00 GB libres.*n=") as error:
        medir_matmul(20000, CPU)
    # Lo sugerido cabe de verdad.
    assert medicion.memoria_necesaria(error.value.n_sugerido) <= 1_000_000_000
    assert isinstance(error.value, ValueError)


def test_en_una_gpu_se_mira_la_memoria_libre_de_la_gpu(monkeypatch):
    _hay_gpu(monkeypatch)  # como_dispositivo pregunta si esta máquina la tiene
    monkeypatch.setattr(torch.cuda, "mem_get_info", lambda d=None: (2 * 1024 ** 3, 16 * 1024 ** 3))
    monkeypatch.setattr(dispositivo, "memoria_ram", lambda: ram_falsa(100 * 1024 ** 3))
    medicion.comprobar_que_cabe(8000, GPU_FALSA)  # 0,77 GB: cabe
    with pytest.raises(MemoriaInsuficiente, match="memoria de cuda"):
        medicion.comprobar_que_cabe(20000, GPU_FALSA)  # 4,8 GB: no cabe en 2 GiB


def test_ram_disponible_se_lee_de_psutil(monkeypatch):
    poner_ram(monkeypatch, 8_000_000 * 1024, 3_000_000 * 1024)
    ram = memoria_dispositivo(CPU)
    assert (ram.total_bytes, ram.libre_bytes, ram.fuente) == (8_000_000 * 1024, 3_000_000 * 1024, "psutil.virtual_memory")
    monkeypatch.undo()  # y la de esta máquina, de verdad
    ram = memoria_dispositivo(CPU)
    assert ram.fuente == "psutil.virtual_memory"
    assert isinstance(ram.libre_bytes, int) and 0 < ram.libre_bytes <= ram.total_bytes
    monkeypatch.setitem(sys.modules, "psutil", None)  # «import psutil» falla: el total sale de os.sysconf
    sin_psutil = memoria_dispositivo(CPU)
    assert sin_psutil.fuente == "os.sysconf" and sin_psutil.total_bytes == pytest.approx(ram.total_bytes, rel=0.05)


def test_sin_memoria_de_cuda_al_medir_se_libera_y_se_sugiere_un_tamano(monkeypatch):
    vaciados = []
    monkeypatch.setattr(torch.cuda, "empty_cache", lambda: vaciados.append(True))

    def sin_memoria(a, b):
        raise torch.cuda.OutOfMemoryError("CUDA out of memory. Tried to allocate 4.00 GiB")

    monkeypatch.setattr(medicion, "_multiplicar", sin_memoria)
    with pytest.raises(MemoriaInsuficiente, match=r"Se agotó la memoria.*n=1024.*liberó.*n=512") as error:
        medir_matmul(1024, CPU, repeticiones=2)
    assert vaciados, "no se llamó a torch.cuda.empty_cache()"
    assert error.value.n_sugerido == 512
    assert error.value.__context__ is None  # sin el traceback de torch, que retiene los tensores


def test_otros_errores_no_se_disfrazan_de_falta_de_memoria(monkeypatch):
    def roto(a, b):
        raise RuntimeError("otra cosa")

    monkeypatch.setattr(medicion, "_multiplicar", roto)
    with pytest.raises(RuntimeError, match="otra cosa"):
        medir_matmul(16, CPU, repeticiones=1)


def test_el_barrido_apunta_lo_que_no_cabe_y_sigue(monkeypatch):
    real = medicion.comprobar_que_cabe

    def cabe_hasta_64(n, d, t=torch.float32):
        if n > 64:
            raise MemoriaInsuficiente(f"n={n} no cabe", 0, 0, 64)
        return real(n, d, t)

    monkeypatch.setattr(medicion, "comprobar_que_cabe", cabe_hasta_64)
    resultado = medicion.barrido([128, 32, 64, 256], dispositivos=["cpu"], repeticiones=1, silenciosa=True)
    assert [r.n for r in resultado.resultados["cpu"]] == [32, 64]
    assert [n for _, n, _ in resultado.omitidos] == [128, 256]


# --- comparativa y CLI --------------------------------------------------------------------

def test_sin_acelerador_solo_se_mide_la_cpu():
    comparacion = comparar_cpu_gpu(64, "cpu", repeticiones=2)
    assert comparacion.acelerador is None and comparacion.aceleracion is None
    assert "No hay GPU" in str(comparacion)


def test_aceleracion_con_y_sin_transferencia():
    cpu = ResultadoMatmul(1000, "fp32", "fp32", "cpu", "CPU", Medicion([1.0] * 3, 1.0, "cpu"), None, "highest", False)
    gpu = ResultadoMatmul(1000, "fp32", "fp32", "cuda:0", "Tesla T4", Medicion([0.01] * 3, 1.0, "cuda:0"),
                          Medicion([0.04] * 3, 0.5, "cuda:0"), "highest", False)
    comparacion = medicion.ComparacionCpuGpu(1000, cpu, gpu)
    assert comparacion.aceleracion == pytest.approx(100)
    assert comparacion.aceleracion_con_transferencia == pytest.approx(20)
    assert "100.0x sin contar la copia" in str(comparacion)


def test_resumen_para_cli_mide_5_veces_y_se_guarda_en_json():
    datos, texto = _resumen_velocidad(CPU, rapido=True)
    datos = json.loads(json.dumps(datos))
    assert len(datos["cpu"]["medicion"]["muestras"]) >= 5
    assert datos["acelerador"] is None
    assert "GFLOP/s" in texto and "CPU" in texto


def test_resumen_para_cli_cuenta_la_falta_de_memoria(monkeypatch):
    monkeypatch.setattr(dispositivo, "memoria_ram", lambda: ram_falsa(1000))
    datos, texto = _resumen_velocidad(CPU, rapido=True)
    assert "error" in datos and "No se pudo medir" in texto and "no cabe" in texto


# --- bucle de Python ----------------------------------------------------------------------

def test_el_bucle_de_python_da_lo_mismo_que_numpy():
    r = bucle_python_vs_numpy(20, presupuesto_s=0.2)
    assert r.iguales and r.segundos_bucle > r.segundos_numpy > 0
    bajo, alto = r.intervalo
    assert bajo <= r.aceleracion <= alto and r.comparacion.ganador == "NumPy"
    assert "¿Mismo resultado?  sí" in str(r) and r.comparacion.veredicto in str(r)


def test_bucle_con_n_malo_da_error():
    with pytest.raises(ValueError, match="entero"):
        bucle_python_vs_numpy(0)


# --- gráficos -----------------------------------------------------------------------------

def test_grafico_barrido_dibuja_gflops_en_log_log():
    import matplotlib

    matplotlib.use("Agg")
    from curso_gpu import graficos

    resultado = medicion.barrido([16, 32, 64], dispositivos=["cpu"], repeticiones=1, silenciosa=True)
    figura = graficos.grafico_barrido(resultado)
    ejes = figura.axes[0]
    assert ejes.get_xscale() == "log" and ejes.get_yscale() == "log"
    linea = ejes.get_lines()[0]
    assert list(linea.get_xdata()) == [16, 32, 64]
    assert list(linea.get_ydata()) == pytest.approx([r.gflops for r in resultado.resultados["cpu"]])
    assert "GFLOP/s" in ejes.get_ylabel()


def test_grafico_muestras_separa_la_llamada_en_frio():
    import matplotlib

    matplotlib.use("Agg")
    from curso_gpu import graficos

    m = Medicion([0.001, 0.002, 0.003], 0.05, "cpu")
    ejes = graficos.grafico_muestras(m).axes[0]
    alturas = [barra.get_height() for barra in ejes.patches]
    assert alturas == pytest.approx([50.0, 1.0, 2.0, 3.0])
    assert [t.get_text() for t in ejes.get_xticklabels()][0] == "en frío"


def test_fp64_en_mps_da_error_en_espanol(monkeypatch):
    _hay_gpu(monkeypatch)  # como_dispositivo pregunta si esta máquina la tiene
    with pytest.raises(ValueError, match="mps.*no admite fp64"):
        medir_matmul(16, torch.device("mps"), dtype="fp64")


# --- barrido con presupuesto de tiempo ------------------------------------------------------

def test_con_presupuesto_repite_en_bloques_hasta_gastar_el_tiempo():
    reloj = RelojFalso([0.5] + [1e-5] * 200_000)  # la primera, en frío; luego 10 µs cada una
    m = medicion.cronometrar_con_presupuesto(reloj.trabajar, CPU, 0.1, 3, 0, reloj, "x")
    assert m.primera == pytest.approx(0.5)
    assert m.mediana == pytest.approx(1e-5)
    assert "bloques de 100 llamadas" in m.descripcion  # 1, 10, 100 llamadas: bloques de ~1 ms
    assert 95 <= m.repeticiones <= 101
    assert reloj.ahora == pytest.approx(0.6, abs=0.005)  # en frío + el presupuesto, no más


def test_con_presupuesto_una_llamada_interrumpida_no_cambia_la_mediana():
    reloj = RelojFalso([0.5, 0.2] + [1e-5] * 200_000)  # la segunda, interrumpida: 200 ms
    m = medicion.cronometrar_con_presupuesto(reloj.trabajar, CPU, 0.1, 3, 0, reloj, "x")
    assert m.mediana == pytest.approx(1e-5)
    assert m.maximo == pytest.approx(0.2)  # queda como muestra, pero la mediana no la ve


def test_con_presupuesto_una_operacion_lenta_da_al_menos_el_minimo_de_muestras():
    reloj = RelojFalso([0.5] * 20)
    m = medicion.cronometrar_con_presupuesto(reloj.trabajar, CPU, 0.1, 3, 0, reloj, "x")
    assert m.repeticiones == 3 and m.mediana == pytest.approx(0.5)


def test_el_barrido_gasta_su_presupuesto_en_cada_tamano():
    import time

    inicio = time.perf_counter()
    resultado = medicion.barrido([16, 32], dispositivos=["cpu"], repeticiones=3, silenciosa=True,
                                 segundos_por_tamano=0.05)
    assert time.perf_counter() - inicio >= 2 * 0.05  # no se queda corto...
    assert all(r.medicion.repeticiones >= 3 for r in resultado.resultados["cpu"])
    assert "n=16:" in str(resultado) and "e-" not in str(resultado)


@pytest.mark.parametrize("presupuesto", [0, -1, "1", float("inf")])
def test_presupuesto_no_valido_da_error(presupuesto):
    with pytest.raises(ValueError, match="presupuesto_s debe ser"):
        medir_matmul(8, CPU, presupuesto_s=presupuesto)


def _resultado_con_muestras(n, muestras):
    m = Medicion(list(muestras), None, "cpu", 0, True, 1, "")
    return ResultadoMatmul(n, "fp32", "fp32", "cpu", "CPU", m, None, "highest", False, 1)


def test_la_conclusion_del_barrido_sale_de_las_bandas():
    from curso_gpu.medicion import ResultadoBarrido

    sube = ResultadoBarrido([32, 512], {"cpu": [_resultado_con_muestras(32, [1e-5, 1.1e-5]),
                                                 _resultado_con_muestras(512, [3e-3, 3.1e-3])]})
    assert "rindió más con matrices grandes" in sube.conclusion
    n0, bajo, mediana, alto = sube.banda("cpu")[0]
    assert n0 == 32 and bajo < mediana < alto
    solapa = ResultadoBarrido([32, 512], {"cpu": [_resultado_con_muestras(32, [1e-6, 1e-3]),
                                                   _resultado_con_muestras(512, [1e-2, 5e-1])]})
    assert "no muestra una tendencia clara" in solapa.conclusion


def test_el_barrido_mide_la_cpu_con_un_hilo_y_deja_los_que_habia():
    # Bajo xdist cada proceso ya tiene un solo hilo (conftest.py): se parte de 2, así el barrido
    # tiene que bajarlos a 1 y devolverlos a 2, y no basta con no tocarlos.
    antes = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        r = medicion.barrido([16, 32], silenciosa=True, segundos_por_tamano=None, repeticiones=2)
        assert [x.hilos_cpu for x in r.resultados["cpu"]] == [1, 1]
        assert torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(antes)
