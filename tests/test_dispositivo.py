"""``elegir_dispositivo`` y ``describir_entorno`` (lección 01) con hardware falso.

La disponibilidad de CUDA, MPS y XPU se finge con ``monkeypatch`` sobre las funciones de
torch; ``nvidia-smi`` es un script falso en el PATH; Colab, un módulo ``google.colab``
falso en ``sys.modules``. Así las pruebas dan lo mismo en un portátil y en una GPU.
"""

import json
import sys
import types

import pytest
import torch

from curso_gpu.dispositivo import primitivas as modulo  # se parchea en el módulo que lo usa
from curso_gpu.dispositivo import DispositivoNoDisponible, dispositivos_disponibles, elegir_dispositivo
from curso_gpu.dispositivo import InformeEntorno, describir_entorno, avisos_del_entorno
from curso_gpu.dispositivo import SALIDA_EJEMPLO_T4, GPUNvidiaSmi, InformeNvidiaSmi
from ram_falsa import poner_ram

INDICE = "https://download.pytorch.org/whl"


class Maquina:
    """Lo que la prueba dice que hay: cuántas GPU CUDA/XPU y si hay MPS."""

    def __init__(self, monkeypatch):
        self.cuda = 0
        self.xpu = 0
        self.mps = False
        mp = monkeypatch
        mp.setattr(torch.cuda, "is_available", lambda: self.cuda > 0)
        mp.setattr(torch.cuda, "device_count", lambda: self.cuda)
        mp.setattr(torch.backends.mps, "is_available", lambda: self.mps)
        if hasattr(torch, "xpu"):
            mp.setattr(torch.xpu, "is_available", lambda: self.xpu > 0)
            mp.setattr(torch.xpu, "device_count", lambda: self.xpu)


@pytest.fixture(autouse=True)
def maquina(monkeypatch, tmp_path):
    """Por defecto: solo CPU, PyTorch sin CUDA, sin nvidia-smi, fuera de Colab, sin variable."""
    monkeypatch.delenv(modulo.VARIABLE_ENTORNO, raising=False)
    monkeypatch.delenv("COLAB_RELEASE_TAG", raising=False)
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    monkeypatch.delitem(sys.modules, "google.colab", raising=False)
    monkeypatch.setattr(torch.version, "cuda", None)
    monkeypatch.setattr(torch.version, "hip", None, raising=False)
    vacia = tmp_path / "sin_nvidia_smi"
    vacia.mkdir()
    monkeypatch.setenv("PATH", str(vacia))
    return Maquina(monkeypatch)


def cabecera_con(driver, cuda):
    return SALIDA_EJEMPLO_T4.replace("580.82.07", driver).replace("CUDA Version: 13.0", f"CUDA Version: {cuda}")


requiere_bash = pytest.mark.skipif(sys.platform == "win32", reason="el nvidia-smi falso es un script de bash")


# --- "auto": cuda, luego mps, luego xpu, luego cpu -------------------------------------------

@pytest.mark.parametrize(
    ("cuda", "mps", "xpu", "esperado"),
    [
        (1, True, 1, "cuda"),
        (0, True, 1, "mps"),
        (0, False, 1, "xpu"),
        (0, False, 0, "cpu"),
        (2, False, 0, "cuda"),
    ],
)
def test_auto_prefiere_cuda_luego_mps_luego_xpu_luego_cpu(maquina, cuda, mps, xpu, esperado):
    maquina.cuda, maquina.mps, maquina.xpu = cuda, mps, xpu
    assert elegir_dispositivo() == torch.device(esperado)
    assert elegir_dispositivo("auto") == torch.device(esperado)
    assert elegir_dispositivo(" AUTO ") == torch.device(esperado)


def test_sin_gpu_auto_es_cpu_y_el_tensor_vive_alli():
    dispositivo = elegir_dispositivo()
    assert dispositivo.type == "cpu"
    assert torch.ones(2, device=dispositivo).device.type == "cpu"


# --- la variable de entorno CURSO_GPU_DISPOSITIVO ------------------------------------------

def test_la_variable_de_entorno_manda_sobre_auto(maquina, monkeypatch):
    maquina.cuda = 1
    monkeypatch.setenv("CURSO_GPU_DISPOSITIVO", "cpu")
    assert elegir_dispositivo() == torch.device("cpu")


def test_la_variable_no_cambia_una_eleccion_explicita(maquina, monkeypatch):
    maquina.cuda = 1
    monkeypatch.setenv("CURSO_GPU_DISPOSITIVO", "cpu")
    assert elegir_dispositivo("cuda") == torch.device("cuda")


def test_la_variable_en_auto_deja_elegir_solo(maquina, monkeypatch):
    maquina.mps = True
    monkeypatch.setenv("CURSO_GPU_DISPOSITIVO", "auto")
    assert elegir_dispositivo() == torch.device("mps")


def test_la_variable_vacia_cuenta_como_auto(maquina, monkeypatch):
    maquina.cuda = 1
    monkeypatch.setenv("CURSO_GPU_DISPOSITIVO", "  ")
    assert elegir_dispositivo() == torch.device("cuda")


def test_la_variable_admite_mayusculas_y_numero(maquina, monkeypatch):
    maquina.cuda = 2
    monkeypatch.setenv("CURSO_GPU_DISPOSITIVO", " CUDA:1 ")
    assert elegir_dispositivo() == torch.device("cuda:1")


def test_la_variable_con_un_valor_invalido_da_valueerror_que_la_nombra(monkeypatch):
    monkeypatch.setenv("CURSO_GPU_DISPOSITIVO", "gpu")
    with pytest.raises(ValueError) as error:
        elegir_dispositivo()
    mensaje = str(error.value)
    assert "CURSO_GPU_DISPOSITIVO" in mensaje and "'gpu'" in mensaje
    assert "cpu, cuda, cuda:N, mps, xpu" in mensaje


def test_la_variable_pide_cuda_sin_gpu_y_el_error_lo_dice(monkeypatch):
    monkeypatch.setenv("CURSO_GPU_DISPOSITIVO", "cuda")
    with pytest.raises(DispositivoNoDisponible, match="CURSO_GPU_DISPOSITIVO"):
        elegir_dispositivo()


# --- elecciones explícitas ------------------------------------------------------------------

@pytest.mark.parametrize(
    ("pedido", "esperado"),
    [
        ("cpu", "cpu"),
        ("cuda", "cuda"),
        ("cuda:0", "cuda:0"),
        ("cuda:1", "cuda:1"),
        ("mps", "mps"),
        ("xpu", "xpu"),
        ("xpu:0", "xpu:0"),
        (torch.device("cuda", 1), "cuda:1"),
        (torch.device("cpu"), "cpu"),
    ],
)
def test_un_dispositivo_explicito_disponible_se_respeta(maquina, pedido, esperado):
    maquina.cuda, maquina.mps, maquina.xpu = 2, True, 1
    assert elegir_dispositivo(pedido) == torch.device(esperado)


def test_cpu_siempre_esta_disponible():
    assert elegir_dispositivo("cpu") == torch.device("cpu")


@pytest.mark.parametrize("pedido", ["cuda", "cuda:0", "mps", "xpu"])
def test_un_dispositivo_que_no_hay_lanza_dispositivo_no_disponible(pedido):
    with pytest.raises(DispositivoNoDisponible) as error:
        elegir_dispositivo(pedido)
    assert isinstance(error.value, RuntimeError)
    assert f"'{pedido}'" in str(error.value)
    assert "Disponibles: cpu." in str(error.value)


def test_dispositivo_no_disponible_es_un_runtimeerror():
    assert issubclass(DispositivoNoDisponible, RuntimeError)


def test_pedir_cuda_sin_gpu_explica_colab_y_el_comando_de_reinstalacion():
    with pytest.raises(DispositivoNoDisponible) as error:
        elegir_dispositivo("cuda")
    mensaje = str(error.value)
    assert "Google Colab" in mensaje
    assert "Entorno de ejecución › Cambiar tipo de entorno de ejecución › GPU T4" in mensaje
    assert "solo para CPU" in mensaje
    # Sin nvidia-smi no sabemos el driver: la rueda más prudente de las actuales.
    assert f"python -m pip install --force-reinstall torch --index-url {INDICE}/cu130" in mensaje
    assert "funciona igual en CPU" in mensaje


@requiere_bash
def test_el_comando_del_error_sirve_para_el_driver_que_ve_nvidia_smi(nvidia_smi_falso, tmp_path, monkeypatch):
    nvidia_smi_falso("0, Tesla T4, 550.54.15, 15360, 0, 15101\n", cabecera_con("550.54.15", "12.4"), path_minimo=True)
    with pytest.raises(DispositivoNoDisponible) as error:
        elegir_dispositivo("cuda")
    assert f"torch==2.7.1 --index-url {INDICE}/cu118" in str(error.value)


@requiere_bash
def test_el_comando_del_error_mira_tambien_la_arquitectura_de_la_gpu(nvidia_smi_falso):
    # Una P100 (6.0) con driver de CUDA 13: las ruedas cu13x no traen kernels para ella.
    nvidia_smi_falso("0, Tesla P100-PCIE-16GB, 580.82.07, 16384, 0, 16280\n", cabecera_con("580.82.07", "13.0"),
                     path_minimo=True)
    tabla = nvidia_smi_falso.carpeta / "gpus.tsv"  # el falso responde también compute_cap
    cabecera, fila = tabla.read_text().splitlines()
    tabla.write_text(f"{cabecera}\tcompute_cap\n{fila}\t6.0\n")
    with pytest.raises(DispositivoNoDisponible) as error:
        elegir_dispositivo("cuda")
    assert f"torch==2.14.1 --index-url {INDICE}/cu126" in str(error.value)


def test_pedir_cuda_con_pytorch_cuda_pero_sin_gpu_no_manda_reinstalar(monkeypatch):
    monkeypatch.setattr(torch.version, "cuda", "12.6")
    with pytest.raises(DispositivoNoDisponible) as error:
        elegir_dispositivo("cuda")
    mensaje = str(error.value)
    assert "ya trae CUDA 12.6" in mensaje and "nvidia-smi" in mensaje
    assert "pip install" not in mensaje


def test_pedir_mps_fuera_de_un_mac_explica_que_es_de_apple():
    with pytest.raises(DispositivoNoDisponible, match="Apple Silicon"):
        elegir_dispositivo("mps")


def test_cuda_n_mas_alla_de_las_gpu_que_hay(maquina):
    maquina.cuda = 2
    with pytest.raises(DispositivoNoDisponible) as error:
        elegir_dispositivo("cuda:2")
    mensaje = str(error.value)
    assert "solo hay 2 GPU" in mensaje and "cuda:0 a cuda:1" in mensaje
    assert "Disponibles: cuda:0, cuda:1, cpu." in mensaje


def test_cpu_con_numero_distinto_de_cero_no_existe():
    assert elegir_dispositivo("cpu:0") == torch.device("cpu:0")
    with pytest.raises(DispositivoNoDisponible, match="sin número"):
        elegir_dispositivo("cpu:1")


# --- valores que no son un dispositivo: ValueError con las opciones -------------------------

@pytest.mark.parametrize("malo", ["gpu", 3, "", "   ", None, "tpu", "cuda:x", "cuda0", 1.5, True])
def test_un_valor_que_no_es_un_dispositivo_da_valueerror_con_las_opciones(malo):
    with pytest.raises(ValueError) as error:
        elegir_dispositivo(malo)
    mensaje = str(error.value)
    assert repr(malo) in mensaje, "el mensaje dice qué valor recibió"
    assert "auto, cpu, cuda, cuda:N, mps, xpu" in mensaje, "y qué valores valen"


def test_gpu_sugiere_escribir_cuda_o_mps():
    with pytest.raises(ValueError, match="escribe 'cuda'"):
        elegir_dispositivo("gpu")


def test_dispositivos_disponibles_lista_cada_gpu_y_siempre_cpu(maquina):
    assert dispositivos_disponibles() == ["cpu"]
    maquina.cuda, maquina.mps, maquina.xpu = 2, True, 1
    assert dispositivos_disponibles() == ["cuda:0", "cuda:1", "mps", "xpu:0", "cpu"]


# --- describir_entorno y avisos_del_entorno ---------------------------------------------------------

@requiere_bash
@pytest.mark.parametrize(
    ("driver", "cuda", "comando"),
    [
        ("560.35.03", "12.6", f"python -m pip install --force-reinstall torch==2.14.1 --index-url {INDICE}/cu126"),
        ("575.57.08", "12.9", f"python -m pip install --force-reinstall torch==2.14.1 --index-url {INDICE}/cu126"),
        ("580.95.05", "13.0", f"python -m pip install --force-reinstall torch --index-url {INDICE}/cu130"),
        ("550.54.15", "12.4", f"python -m pip install --force-reinstall torch==2.7.1 --index-url {INDICE}/cu118"),
        ("525.147.05", "12.0", f"python -m pip install --force-reinstall torch==2.7.1 --index-url {INDICE}/cu118"),
    ],
    ids=["driver-560-cu126", "driver-575-cu126", "driver-580-cu130", "driver-550-cu118", "driver-525-cu118"],
)
def test_gpu_nvidia_con_pytorch_solo_cpu_da_el_comando_de_la_rueda_del_driver(nvidia_smi_falso, tmp_path, monkeypatch, driver, cuda, comando):
    nvidia_smi_falso(f"0, Tesla T4, {driver}, 15360, 0, 15101\n", cabecera_con(driver, cuda), path_minimo=True)
    informe = describir_entorno()
    assert informe.nvidia_smi is not None and informe.nvidia_smi.driver == driver
    aviso = informe.avisos[0]
    assert "solo para CPU" in aviso and "Tesla T4" in aviso and driver in aviso
    assert aviso.endswith(comando)
    assert comando in str(informe)
    assert not any("sin problema" in a for a in informe.avisos)


@requiere_bash
def test_gpu_nvidia_con_driver_sin_cuda_en_cabecera_deduce_la_rueda(nvidia_smi_falso, tmp_path, monkeypatch):
    cabecera = SALIDA_EJEMPLO_T4.replace("CUDA Version: 13.0", "                 ")
    nvidia_smi_falso("0, NVIDIA L4, 595.45.04, 23034, 0, 22563\n", cabecera, path_minimo=True)
    informe = describir_entorno()
    assert informe.nvidia_smi.cuda_del_driver == (13, 2)
    assert informe.avisos[0].endswith(f"--index-url {INDICE}/cu132")
    assert "(deducida del driver)" in str(informe)


def test_driver_demasiado_antiguo_pide_actualizarlo():
    smi = InformeNvidiaSmi("470.82.01", (11, 4), True, [GPUNvidiaSmi(0, "Tesla K80", 11441, 0, 11441)])
    avisos = avisos_del_entorno(_informe(nvidia_smi=smi))
    assert "solo para CPU" in avisos[0] and "Actualiza el driver de NVIDIA" in avisos[0]
    assert "pip install" not in avisos[0]


def test_pytorch_cuda_sin_gpu_en_colab_dice_como_pasar_a_t4(monkeypatch):
    monkeypatch.setattr(torch.version, "cuda", "12.8")
    monkeypatch.setitem(sys.modules, "google.colab", types.ModuleType("google.colab"))
    informe = describir_entorno()
    assert informe.en_colab is True and informe.cuda_compilado == "12.8"
    assert len(informe.avisos) == 1
    assert "Colab" in informe.avisos[0]
    assert "Entorno de ejecución › Cambiar tipo de entorno de ejecución › GPU T4" in informe.avisos[0]
    assert ("Google Colab", "sí") in informe.filas()


def test_pytorch_cuda_sin_gpu_fuera_de_colab_manda_mirar_nvidia_smi(monkeypatch):
    monkeypatch.setattr(torch.version, "cuda", "12.8")
    informe = describir_entorno()
    assert informe.en_colab is False
    assert "CUDA 12.8" in informe.avisos[0] and "nvidia-smi" in informe.avisos[0]


def test_driver_que_no_llega_a_la_cuda_de_pytorch():
    smi = InformeNvidiaSmi("535.104.05", (12, 2), True, [GPUNvidiaSmi(0, "Tesla T4", 15360, 0, 15101)])
    avisos = avisos_del_entorno(_informe(cuda_compilado="12.8", nvidia_smi=smi))
    assert "solo admite hasta CUDA 12.2" in avisos[0]
    assert avisos[0].endswith(f"torch==2.7.1 --index-url {INDICE}/cu118")


def test_nvidia_smi_ve_la_gpu_pero_cuda_visible_devices_la_oculta(monkeypatch):
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")
    smi = InformeNvidiaSmi("560.35.03", (12, 6), True, [GPUNvidiaSmi(0, "Tesla T4", 15360, 0, 15101)])
    avisos = avisos_del_entorno(_informe(cuda_compilado="12.6", nvidia_smi=smi))
    assert "CUDA_VISIBLE_DEVICES" in avisos[0] and "Tesla T4" in avisos[0]


def test_mac_con_mps(maquina):
    maquina.mps = True
    informe = describir_entorno()
    assert informe.mps_disponible is True and informe.dispositivo == "mps"
    assert any("'mps'" in a and "Apple Silicon" in a for a in informe.avisos)
    assert not any("sin problema" in a for a in informe.avisos)
    assert ("MPS (Apple) disponible", "sí") in informe.filas()


def test_solo_cpu_dice_sin_problema_y_como_probar_una_gpu_gratis():
    informe = describir_entorno()
    assert informe.dispositivo == "cpu"
    assert informe.gpus == [] and informe.nvidia_smi is None
    assert len(informe.avisos) == 1
    assert "sin problema" in informe.avisos[0] and "Colab" in informe.avisos[0]
    assert ("nvidia-smi", "no encontrado o sin respuesta") in informe.filas()


def test_gpu_cuda_lista_para_usar(maquina, monkeypatch):
    maquina.cuda = 1
    monkeypatch.setattr(torch.version, "cuda", "12.6")
    propiedades = types.SimpleNamespace(name="Tesla T4", total_memory=15_828_320_256, major=7, minor=5)
    monkeypatch.setattr(torch.cuda, "get_device_properties", lambda i: propiedades)
    informe = describir_entorno(consultar_smi=False)
    assert informe.dispositivo == "cuda"
    assert [(g.indice, g.nombre, g.memoria_total_bytes, g.capacidad_computo) for g in informe.gpus] == [
        (0, "Tesla T4", 15_828_320_256, (7, 5))
    ]
    assert ("GPU 0", "Tesla T4 (15.8 GB, capacidad 7.5)") in informe.filas()
    assert informe.avisos == ["Todo listo: PyTorch usa la GPU Tesla T4 (15.8 GB)."]


def test_variable_de_entorno_invalida_no_rompe_el_informe(monkeypatch):
    monkeypatch.setenv("CURSO_GPU_DISPOSITIVO", "gpu")
    informe = describir_entorno()
    assert informe.dispositivo.startswith("ninguno")
    assert "CURSO_GPU_DISPOSITIVO" in informe.avisos[0]


# --- cómo se presenta: texto y HTML ---------------------------------------------------------

@requiere_bash
def test_el_texto_y_el_html_tienen_las_filas_clave(nvidia_smi_falso, tmp_path, monkeypatch):
    nvidia_smi_falso("0, Tesla T4, 560.35.03, 15360, 0, 15101\n", cabecera_con("560.35.03", "12.6"), path_minimo=True)
    informe = describir_entorno()
    texto = str(informe)
    html = informe._repr_html_()
    claves = [
        ("PyTorch", torch.__version__),
        ("Python", informe.python),
        ("CUDA de PyTorch", "no"),
        ("Driver NVIDIA", "560.35.03 (admite CUDA hasta 12.6)"),
        ("nvidia-smi GPU 0", "Tesla T4: 0 de 15360 MiB usados"),
        ("Dispositivo elegido", "cpu"),
    ]
    for clave, valor in claves:
        assert (clave, valor) in informe.filas()
        assert any(linea.startswith(clave) and linea.rstrip().endswith(valor) for linea in texto.splitlines()), clave
        assert f"<th style='text-align:left'>{clave}</th><td style='text-align:left'>{valor}</td>" in html
    assert texto.startswith("Informe del entorno")
    assert "Diagnóstico:" in texto and "<b>Diagnóstico</b><ul><li>" in html
    assert html.count("<tr>") == len(informe.filas())


@pytest.mark.parametrize("numero, version", [
    (92400, "9.24.0"),  # torch 2.14.1+cu130 (cuDNN 9.24.0): MAJOR·10000 + MINOR·100 + PATCH
    (90100, "9.1.0"),
    (8907, "8.9.7"),    # cuDNN 8: MAJOR·1000 + MINOR·100 + PATCH
    (None, "no"),       # el PyTorch para CPU no trae cuDNN
])
def test_cudnn_se_lee_como_version_y_no_como_numero_crudo(numero, version):
    assert ("cuDNN", version) in _informe(cudnn=numero).filas()


def test_el_html_escapa_lo_que_viene_de_fuera():
    smi = InformeNvidiaSmi("560.35.03", (12, 6), True, [GPUNvidiaSmi(0, "GPU <script>", 1, 0, 1)])
    informe = _informe(nvidia_smi=smi)
    informe.avisos = avisos_del_entorno(informe)
    html = informe._repr_html_()
    assert "<script>" not in html and "GPU &lt;script&gt;" in html


def test_a_dict_se_puede_guardar_como_json():
    informe = describir_entorno()
    datos = json.loads(json.dumps(informe.a_dict()))
    assert datos["torch"] == torch.__version__
    assert datos["dispositivo"] == "cpu"
    assert datos["avisos"] == informe.avisos


def _informe(**cambios) -> InformeEntorno:
    """Un informe de una máquina Linux sin GPU para PyTorch, con los campos que cambie la prueba."""
    base = dict(
        sistema="Linux", python="3.11.7", torch="2.13.0+cpu", cuda_compilado=None, rocm_compilado=None,
        cudnn=None, cuda_disponible=False, mps_disponible=False, xpu_disponible=False, en_colab=False,
    )
    base.update(cambios)
    return InformeEntorno(**base)


# --- las primitivas que usa todo el paquete ----------------------------------------------------

def test_como_dispositivo_trata_none_como_auto_y_respeta_un_device(maquina):
    assert modulo.como_dispositivo(None) == torch.device("cpu")
    assert modulo.como_dispositivo("auto") == torch.device("cpu")
    with pytest.raises(DispositivoNoDisponible):  # un torch.device también se comprueba: no hay GPU aquí
        modulo.como_dispositivo(torch.device("cuda:1"))
    with pytest.raises(DispositivoNoDisponible):
        modulo.como_dispositivo("cuda")
    with pytest.raises(ValueError, match="dispositivo no válido: 3"):
        modulo.como_dispositivo(3)


@pytest.mark.skipif(not hasattr(torch, "xpu"), reason="este PyTorch no tiene torch.xpu")
def test_sincronizar_tambien_espera_a_una_gpu_de_intel(monkeypatch):
    llamadas = []
    monkeypatch.setattr(torch.xpu, "synchronize", lambda d=None: llamadas.append(str(d)))
    monkeypatch.setattr(torch.xpu, "is_available", lambda: True)  # como_dispositivo pregunta si existe
    monkeypatch.setattr(torch.xpu, "device_count", lambda: 1)
    modulo.sincronizar(torch.device("xpu:0"))
    assert llamadas == ["xpu:0"]


def test_info_gpu_da_nombre_memoria_y_capacidad_de_la_gpu(maquina, monkeypatch):
    assert modulo.info_gpu(0) is None  # sin GPU
    maquina.cuda = 1
    propiedades = types.SimpleNamespace(name="Tesla T4", total_memory=15_828_320_256, major=7, minor=5)
    monkeypatch.setattr(torch.cuda, "get_device_properties", lambda i: propiedades)
    assert modulo.info_gpu(0) == modulo.InfoGPU(0, "Tesla T4", 15_828_320_256, (7, 5))
    assert modulo.gpus_cuda() == [modulo.info_gpu(0)]


def test_la_memoria_de_la_cpu_es_la_ram(monkeypatch):
    poner_ram(monkeypatch, 16_384_000_000, 8_192_000_000)
    memoria = modulo.memoria_dispositivo("cpu")
    assert (memoria.total_bytes, memoria.libre_bytes) == (16_384_000_000, 8_192_000_000)


@pytest.mark.parametrize("nombre", ["cpu:٠", "cuda:١", "cuda:１", "xpu:²"])
def test_solo_cifras_ascii_en_el_numero_del_dispositivo(nombre):
    with pytest.raises(ValueError, match=r"no válido.*cifras normales \(0-9\)"):
        elegir_dispositivo(nombre)


@requiere_bash
@pytest.mark.parametrize("basura", [
    "0, ¡hola!, mundo, x, y, z\n",  # seis campos, pero ni driver ni memorias
    "0, Tesla T4, 580.82.07, mucha, poca, nada\n",
    "²,Tesla T4, 580.82.07, 15360, 0, 15101\n",  # un índice que no es una cifra ASCII
])
def test_un_nvidia_smi_que_responde_basura_no_manda_reinstalar_pytorch(nvidia_smi_falso, basura):
    nvidia_smi_falso(basura, SALIDA_EJEMPLO_T4, path_minimo=True)
    informe = describir_entorno()
    assert informe.nvidia_smi is None
    texto = str(informe)
    assert "Reinstala" not in texto and "pip install" not in texto
    assert "nvidia-smi respondió algo que no se entiende" in informe.avisos[0]
    assert "No saco conclusiones" in informe.avisos[0]
    assert "sin problema" not in texto  # tampoco «no hay GPU»: no lo sabemos
    assert informe.a_dict()["problema_nvidia_smi"].startswith("nvidia-smi respondió algo")
