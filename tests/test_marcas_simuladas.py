"""Lo medido en la GPU simulada lo dice donde se imprime (issue «La T4 simulada, fiel»).

La T4 simulada calcula en la CPU: un tiempo, un ritmo o una aceleración medidos en ella son de la
CPU. Cada dato que lo presenta (``Medicion``, ``Comparacion``, ``Diagnostico``,
``BarridoGeneracion``, las gráficas) lleva la marca, y el % del pico o del techo de una T4 no se
calcula con tiempos de la CPU. Al final, la prueba de las lecciones ejecutadas en la T4 simulada:
ninguna línea con una unidad medida junto a cuda/GPU/T4 sin decir que es simulada.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest
import torch

from curso_gpu.base import AVISO_SIMULADA, MARCA_SIMULADA



# --- Los datos llevan la marca -----------------------------------------------------------------

def test_cronometrar_en_la_gpu_simulada_marca_el_titulo_la_fila_y_los_avisos(t4):
    from curso_gpu.medicion import cronometrar

    x = torch.ones(8, 8, device="cuda")
    medida = cronometrar(lambda: x @ x, "cuda", repeticiones=3, calentamiento=0, descripcion="a @ b")
    assert medida.simulada
    texto = str(medida)
    assert texto.splitlines()[0] == f"Medición: a @ b [{MARCA_SIMULADA}]"
    assert AVISO_SIMULADA in texto and AVISO_SIMULADA in medida._repr_html_()
    en_cpu = cronometrar(lambda: x.cpu() @ x.cpu(), "cpu", repeticiones=3, calentamiento=0)
    assert not en_cpu.simulada and "simulada" not in str(en_cpu)


def test_comparar_tiempos_en_la_gpu_simulada_lo_dice_en_el_titulo_y_el_veredicto(t4):
    from curso_gpu.medicion import comparar_muestras, comparar_tiempos

    x = torch.ones(16, 16, device="cuda")
    comparacion = comparar_tiempos(lambda: x @ x, lambda: x + x, nombres=("matmul", "suma"), repeticiones=5,
                                   presupuesto_s=None, dispositivo="cuda")
    assert comparacion.simulada and comparacion.veredicto.endswith(AVISO_SIMULADA)
    assert MARCA_SIMULADA in str(comparacion).splitlines()[0]
    # medida en la CPU (la lección 08 compara procesos de la CPU) no lleva la marca, aunque la simulación esté encendida
    en_cpu = comparar_muestras([1.0, 1.1, 1.0, 1.2, 1.0], [2.0, 2.1, 2.0, 2.2, 2.0], dispositivo="cpu")
    assert not en_cpu.simulada and "simulada" not in str(en_cpu)


def test_en_la_gpu_simulada_no_se_da_el_porcentaje_del_pico_de_una_t4(t4):
    from curso_gpu.medicion import comparar_cpu_gpu, medir_matmul

    r = medir_matmul(64, "cuda", repeticiones=1)
    assert r.simulada and r.pico_tflops == 8.1  # el dato de la ficha se conserva...
    assert r.porcentaje_pico is None and not r.supera_pico  # ...pero no se divide un tiempo de la CPU por él
    texto = str(r)
    assert "% del pico" not in texto and MARCA_SIMULADA in texto.splitlines()[0]
    comparacion = comparar_cpu_gpu(64, "cuda", repeticiones=1)
    tabla = str(comparacion)
    assert "% del pico" not in tabla and MARCA_SIMULADA in tabla.splitlines()[0]
    fila_gpu = next(linea for linea in tabla.splitlines() if "Tesla T4" in linea)
    assert MARCA_SIMULADA in fila_gpu


def test_el_barrido_marca_cada_linea_de_la_gpu_simulada_y_su_grafica(t4):
    import matplotlib

    matplotlib.use("Agg")
    from curso_gpu import graficos
    from curso_gpu.medicion import barrido

    resultado = barrido([16, 32], silenciosa=True, segundos_por_tamano=None, repeticiones=1)
    lineas = str(resultado).splitlines()
    assert MARCA_SIMULADA in lineas[0]
    assert all(MARCA_SIMULADA in l for l in lineas if l.strip().startswith("cuda"))
    assert not any(MARCA_SIMULADA in l for l in lineas if l.strip().startswith("cpu"))
    assert f"cuda [{MARCA_SIMULADA}]" in resultado.conclusion
    figura = graficos.grafico_barrido(resultado)
    assert MARCA_SIMULADA in figura.axes[0].get_title()
    x = torch.ones(4, device="cuda")
    from curso_gpu.medicion import cronometrar

    figura = graficos.grafico_muestras(cronometrar(lambda: x + x, "cuda", repeticiones=2))
    assert MARCA_SIMULADA in figura.axes[0].get_title()
    assert any(MARCA_SIMULADA in t.get_text() for t in figura.axes[0].get_legend().get_texts())


def test_el_diagnostico_en_la_gpu_simulada_lo_dice_y_explica_el_coste_de_lanzar(t4):
    from curso_gpu.rendimiento import diagnosticar

    modelo = torch.nn.Linear(4, 2).to("cuda")
    perdida = torch.nn.CrossEntropyLoss()

    def paso(xb, yb):
        perdida(modelo(xb), yb).backward()

    lotes = [(torch.randn(8, 4), torch.randint(0, 2, (8,))) for _ in range(6)]
    diagnostico = diagnosticar(paso, lotes, "cuda", pasos=3)
    assert diagnostico.simulada
    texto = str(diagnostico)
    assert MARCA_SIMULADA in texto.splitlines()[0] and "simulador" in texto


def test_la_generacion_en_la_gpu_simulada_no_da_el_porcentaje_del_techo():
    from curso_gpu.generacion import BarridoGeneracion, FilaBarrido

    fila = FilaBarrido("con caché", 1, 32, 32, [0.5, 0.6, 0.55])
    datos = dict(dispositivo="cuda:0", nombre_gpu="Tesla T4", ancho_de_banda_gb_s=320.0, bytes_pesos=10**6,
                 filas=[fila], repeticiones=3, tokens_entrada=8)
    real, simulada = BarridoGeneracion(**datos), BarridoGeneracion(**datos, simulada=True)
    assert real.del_techo(fila) is not None and simulada.del_techo(fila) is None
    assert "% del techo" in " ".join(real.frases())
    assert "% del techo" not in " ".join(simulada.frases()) and simulada.frases()[0] == AVISO_SIMULADA
    tabla = str(simulada)
    assert MARCA_SIMULADA in tabla.splitlines()[0] and "no se da el % del techo" in tabla
    assert simulada.techo(1) == real.techo(1)  # el techo es la ficha de la T4: se puede enseñar


# --- Las lecciones ejecutadas en la T4 simulada --------------------------------------------------

# Una cifra con su unidad: «3.2 ms», «120 GFLOP/s», «31×», «1.77x» (pegado al número: «2 × T4» es un recuento).
UNIDAD_MEDIDA = re.compile(
    r"\d(?:\s?(?:ms|µs|s|segundos|GB/s|GFLOP/s|TFLOP/s|tokens/s|veces)|[×x])(?![\w/])", re.IGNORECASE)
DE_LA_GPU = re.compile(r"\bcuda(?::\d)?\b|\bGPU\b|\bT4\b")
MARCA = re.compile(r"simulad|tiempos? de la CPU", re.IGNORECASE)  # «Son tiempos de la CPU» (lección 11)
# Una línea que dice que su cifra no es una medida (un ejemplo, la ficha, una cifra publicada) no es
# una medida de la GPU simulada.
NO_ES_MEDIDA = re.compile(r"ejemplo|ficha|publicad|teóric|no medid|verías", re.IGNORECASE)
TECHO = re.compile(r"techo", re.IGNORECASE)  # un techo (ancho de banda ÷ bytes) es una cuenta...
DEL_TECHO = re.compile(r"%\s*del\s*techo", re.IGNORECASE)  # ...pero «el 12 % del techo» compara una medida con él


def _es_referencia(linea: str) -> bool:
    """La línea da una cifra que no se midió: un ejemplo, la ficha, una cifra publicada o un techo calculado."""
    return bool(NO_ES_MEDIDA.search(linea) or (TECHO.search(linea) and not DEL_TECHO.search(linea)))


def _texto_de_html(fragmento: str) -> str:
    """El texto de un HTML con una línea por fila, párrafo o título (como se lee en la pantalla)."""
    fragmento = re.sub(r"(?i)</(?:tr|p|div|li|h\d|b|caption)>|<br\s*/?>", "\n", fragmento)
    return html.unescape(re.sub(r"<[^>]+>", " ", fragmento))


def _bloques(cuaderno):
    """(celda, texto) de cada salida de las celdas de código: lo impreso, el texto y el HTML."""
    codigo = [c for c in cuaderno.cells if c.cell_type == "code"]
    for numero, celda in enumerate(codigo):
        for salida in celda.get("outputs", []):
            if salida.get("output_type") == "stream":
                yield numero, salida.get("text", "")
            datos = salida.get("data", {})
            if "text/html" in datos:
                yield numero, _texto_de_html("".join(datos["text/html"]))
            elif "text/plain" in datos:
                yield numero, "".join(datos["text/plain"])


def lineas_sin_marca(texto: str) -> list[str]:
    """Las líneas de ``texto`` con una unidad medida junto a cuda/GPU/T4 que no dicen que es simulada.

    Un bloque (una tabla, un informe) cuyo título, su primera línea, dice que es simulado marca todas
    sus líneas.
    """
    lineas = [l for l in texto.splitlines() if l.strip()]
    if lineas and MARCA.search(lineas[0]):
        return []
    return [l.strip() for l in lineas if UNIDAD_MEDIDA.search(l) and DE_LA_GPU.search(l) and not MARCA.search(l)
            and not _es_referencia(l)]


def test_la_prueba_encuentra_una_cifra_de_cpu_con_nombre_de_gpu_y_respeta_la_marca():
    assert lineas_sin_marca("GPU: 0.0123 s\nCPU: 0.5 s") == ["GPU: 0.0123 s"]
    assert lineas_sin_marca("pequeño en cuda: 12.5 ms por época") == ["pequeño en cuda: 12.5 ms por época"]
    assert lineas_sin_marca("Aceleración en la T4: 31×") == ["Aceleración en la T4: 31×"]
    assert lineas_sin_marca("cuda:0 rindió 120 GFLOP/s") == ["cuda:0 rindió 120 GFLOP/s"]
    assert lineas_sin_marca("GPU: 0.0123 s (GPU simulada: tiempos de la CPU)") == []
    assert lineas_sin_marca("Triton 0.3 GB/s. Son tiempos de la CPU: no dicen nada de una GPU.") == []
    assert lineas_sin_marca(f"Medición: a @ b [{MARCA_SIMULADA}]\n  mediana  3 ms\n  dispositivo cuda, 3 ms") == []
    assert lineas_sin_marca("CPU: 0.5 s\nUsando: cuda") == []  # ni unidad junto a la GPU, ni GPU junto a la unidad
    assert lineas_sin_marca("matrices de 4096×4096 en cuda") == []  # un tamaño no es una medida
    assert lineas_sin_marca("DDP en 2 × T4: 29.6 GB por GPU") == []  # ni un recuento de GPU
    assert lineas_sin_marca("Un ejemplo: 8 h en CPU frente a 10 min en GPU: 48 veces") == []  # ni un ejemplo
    assert lineas_sin_marca("Tesla T4: pico teórico de 65 TFLOP/s") == []  # ni la ficha
    assert lineas_sin_marca("techo en una T4: 324 tokens/s") == []  # ni un techo calculado
    assert lineas_sin_marca("cuda: 40 tokens/s, el 12 % del techo") == ["cuda: 40 tokens/s, el 12 % del techo"]


LECCIONES = sorted(r.name[:2] for r in (Path(__file__).resolve().parent.parent / "notebooks").glob("[0-9][0-9]_*.ipynb"))


@pytest.mark.parametrize("numero", LECCIONES)
def test_cada_cifra_de_la_t4_simulada_dice_que_es_simulada(leccion_ejecutada, numero):
    cuaderno = leccion_ejecutada(numero, simulada=True)
    assert any(MARCA.search(texto) for _, texto in _bloques(cuaderno)), "la lección no dice en ninguna salida que es simulada"
    problemas = [f"celda de código {celda}: {linea}" for celda, texto in _bloques(cuaderno)
                 for linea in lineas_sin_marca(texto)]
    assert not problemas, ("Cifras medidas en la T4 simulada que no dicen que son de la CPU:\n  "
                           + "\n  ".join(problemas))


# --- El nvidia-smi simulado dice que lo es, con los datos de Colab que constan -------------------

def test_la_tabla_del_nvidia_smi_simulado_dice_que_es_simulada(t4):
    import subprocess

    from curso_gpu.dispositivo import NOTA_SIMULADA, consultar_nvidia_smi

    tabla = subprocess.run(["nvidia-smi"], capture_output=True, text=True, timeout=30).stdout
    lineas = tabla.splitlines()
    assert lineas[0].endswith("(nvidia-smi simulado)")  # la fecha, como en el de verdad, y la marca
    assert NOTA_SIMULADA in tabla and len(next(l for l in lineas if NOTA_SIMULADA in l)) == 91
    assert f"Driver Version: {t4.driver.version}" in tabla and f"CUDA Version: {t4.driver.cuda}" in tabla
    informe = consultar_nvidia_smi()  # el lector del paquete sigue entendiendo la tabla marcada
    assert informe.driver == t4.driver.version and informe.cuda_del_driver == (13, 0)


def test_la_tabla_sigue_el_formato_de_cada_rama_del_driver():
    from curso_gpu.dispositivo import tabla_nvidia_smi

    nueva = tabla_nvidia_smi("580.82.07", "13.0", "Tesla T4", 15360).splitlines()
    vieja = tabla_nvidia_smi("550.54.15", "12.4", "Tesla T4", 15360).splitlines()
    # rama 580 (Colab, 31-8-2026): la línea bajo la cabecera empieza por «+---» y el PID va más a la derecha
    assert nueva[2] == "+-----------------------------------------+------------------------+----------------------+"
    assert vieja[2] == "|-----------------------------------------+------------------------+----------------------|"
    assert nueva[14].index("PID") == vieja[14].index("PID") + 6
    assert {len(l) for l in nueva + vieja if l} == {91}


def test_driver_torch_de_colab_y_comando_de_instalacion_cuentan_la_misma_historia():
    from pathlib import Path

    from curso_gpu.base import GPUS_SIMULABLES, comando_instalacion, cuda_maxima_del_driver, rueda_para

    t4 = GPUS_SIMULABLES["T4"]
    driver = t4.driver
    cuda = tuple(int(x) for x in driver.cuda.split("."))
    assert cuda_maxima_del_driver(driver.version) == cuda  # la tabla de drivers y el nvidia-smi simulado coinciden
    rueda = rueda_para(cuda, t4.capacidad_computo)
    assert rueda is not None and rueda.version <= cuda
    assert comando_instalacion(cuda, t4.capacidad_computo).endswith(f"/{rueda.rueda}")
    # el torch que traía Colab (cu128) funciona con ese driver: CUDA 12.8 ≤ 13.0
    assert driver.torch_colab.startswith("2.") and "+cu" in driver.torch_colab
    cuda_torch = driver.torch_colab.split("+cu")[1]
    assert (int(cuda_torch[:-1]), int(cuda_torch[-1])) <= cuda
    # la lección 01 cuenta lo mismo: driver, CUDA y torch de Colab, con su fecha
    leccion = Path(__file__).resolve().parent.parent.joinpath("notebooks", "01_deteccion_gpu.py").read_text("utf-8")
    assert driver.version in leccion and f"CUDA Version: {driver.cuda}" in leccion
    assert driver.torch_colab in leccion and f"Versión de CUDA: {cuda_torch[:-1]}.{cuda_torch[-1]}" in leccion


def test_reanudar_en_la_gpu_simulada_lo_empezado_en_la_cpu_lo_dice(tmp_path):
    """Los segundos de un historial reanudado suman los de esta sesión: si es la T4 simulada, son de la CPU."""
    from curso_gpu.dispositivo import simular_gpu
    from curso_gpu.entrenamiento import CNNPequena, entrenar, generar_dataset
    from curso_gpu.guardado import como_carpeta

    if torch.cuda.is_available():
        pytest.skip("esta máquina tiene una GPU de verdad: la simulación no se enciende")
    datos, carpeta = generar_dataset(8, semilla=1), tmp_path / "ck"
    en_cpu = entrenar(CNNPequena(), datos, datos, "cpu", epocas=1, checkpoints=como_carpeta(carpeta, cada=1),
                      silencioso=True)
    assert not en_cpu.simulada and MARCA_SIMULADA not in str(en_cpu)
    with simular_gpu("T4"), pytest.warns(UserWarning, match="dispositivo cpu → cuda"):
        seguido = entrenar(CNNPequena(), datos, datos, "cuda", epocas=2, silencioso=True,
                           checkpoints=como_carpeta(carpeta, cada=1, reanudar=True))
    assert seguido.reanudado_desde == 1 and seguido.dispositivo.startswith("cuda")
    assert seguido.simulada and MARCA_SIMULADA in str(seguido).splitlines()[0]


def test_ajustar_en_la_gpu_simulada_marca_sus_segundos(t4):
    from curso_gpu.ajuste import ajustar, aplicar_lora, modelo_diminuto

    modelo, tokenizador = modelo_diminuto(semilla=0)
    en_gpu = ajustar(aplicar_lora(modelo, r=2).to("cuda"), tokenizador, epocas=1, avisar=lambda _: None)
    assert en_gpu.simulada and f"[{MARCA_SIMULADA}]" in str(en_gpu)
    modelo, tokenizador = modelo_diminuto(semilla=0)
    en_cpu = ajustar(aplicar_lora(modelo, r=2), tokenizador, epocas=1, avisar=lambda _: None)
    assert not en_cpu.simulada and MARCA_SIMULADA not in str(en_cpu)


def test_el_historial_y_las_barras_de_la_gpu_simulada_lo_dicen_y_el_checkpoint_lo_guarda(t4):
    import matplotlib

    matplotlib.use("Agg")
    from curso_gpu import graficos
    from curso_gpu.entrenamiento import CNNPequena, Historial, entrenar, generar_dataset

    datos = generar_dataset(8, semilla=1)
    historial = entrenar(CNNPequena(), datos, datos, "cuda", epocas=1, silencioso=True)
    assert historial.simulada and MARCA_SIMULADA in str(historial).splitlines()[0]
    assert Historial.desde_dict(historial.a_dict()).simulada  # el checkpoint guarda la marca
    assert not Historial.desde_dict({"dispositivo": "cpu"}).simulada  # los de antes, sin ella: la deduce
    assert not Historial(dispositivo="cpu").simulada
    figura = graficos.grafico_tiempos_epoca({("pequeño", "cpu"): 0.01, ("pequeño", "cuda"): 0.02})
    etiquetas = [t.get_text() for t in figura.axes[0].get_legend().get_texts()]
    assert etiquetas == ["cpu", f"cuda [{MARCA_SIMULADA}]"] and MARCA_SIMULADA in figura.axes[0].get_title()
    assert MARCA_SIMULADA in graficos.curvas_entrenamiento(historial)._suptitle.get_text()


def test_lo_empezado_en_la_gpu_simulada_y_reanudado_sin_ella_dice_cuantos_segundos_son_de_la_cpu():
    """Un checkpoint de la T4 simulada reanudado en una GPU de verdad: el título ya no lleva la marca (esta
    sesión es real), pero sus segundos suman los de antes, de la CPU: un aviso lo dice, con la cifra."""
    from curso_gpu.dispositivo import dispositivo_simulado
    from curso_gpu.entrenamiento import Historial

    simulado = Historial(dispositivo="cuda:0", epocas_totales=2, segundos=1.25, simulada=True)
    de_vuelta = Historial.desde_dict(simulado.a_dict())
    assert not dispositivo_simulado("cuda:0")  # esta sesión no simula: cuda:0 sería una GPU de verdad
    de_vuelta.continuar_en("cuda:0", 4)
    assert not de_vuelta.simulada and MARCA_SIMULADA not in str(de_vuelta).splitlines()[0]
    assert de_vuelta.avisos == ["Los primeros 1.25 s se midieron en la GPU simulada: son tiempos de la CPU."]
    assert de_vuelta.avisos[0] in str(de_vuelta)  # se ve debajo de la tabla
    real = Historial(dispositivo="cuda:0", segundos=1.0, simulada=False)
    real.continuar_en("cuda:0", 4)
    assert real.avisos == []  # de una GPU de verdad a otra: nada que avisar
