"""``consultar_nvidia_smi`` con programas ``nvidia-smi`` falsos en el PATH (lección 01).

Cada prueba escribe un pequeño script de bash llamado ``nvidia-smi`` en una carpeta
temporal y la pone la primera del PATH: el código del curso lo ejecuta de verdad.
"""

import sys
import time
import tracemalloc
from pathlib import Path

import pytest

from curso_gpu.dispositivo import SALIDA_EJEMPLO_T4, consultar_nvidia_smi, consultar_nvidia_smi_con_problema
from curso_gpu.dispositivo.nvidia_smi import _LIMITE_SALIDA, _analizar_cabecera, _analizar_consulta

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="los nvidia-smi falsos son scripts de bash")

CONSULTA_T4 = "0, Tesla T4, 580.82.07, 15360, 0, 15101\n"
CONSULTA_DOS_GPU = (
    "0, NVIDIA GeForce RTX 4090, 565.57.01, 24564, 1024, 23128\n"
    "1, NVIDIA GeForce RTX 3060, 565.57.01, 12288, 0, 12036\n"
)
CABECERA_SIN_CUDA = SALIDA_EJEMPLO_T4.replace("CUDA Version: 13.0", "                 ")


# --- lo que se lee de la salida ---------------------------------------------------------------

def test_una_t4_de_colab_tiene_15360_mib_y_el_driver_admite_cuda_13_0(nvidia_smi_falso, tmp_path, monkeypatch):
    llamadas = nvidia_smi_falso(CONSULTA_T4, SALIDA_EJEMPLO_T4)
    informe = consultar_nvidia_smi(timeout_s=5)
    assert informe is not None
    assert informe.driver == "580.82.07"
    assert informe.cuda_del_driver == (13, 0)
    assert informe.cuda_de_cabecera is True
    assert len(informe.gpus) == 1
    gpu = informe.gpus[0]
    assert (gpu.indice, gpu.nombre) == (0, "Tesla T4")
    assert (gpu.memoria_total_mib, gpu.memoria_usada_mib, gpu.memoria_libre_mib) == (15360, 0, 15101)
    primera = llamadas.read_text().splitlines()[0]
    assert primera.startswith("--query-gpu=index,name,driver_version,memory.total")
    assert "--format=csv,noheader,nounits" in primera


def test_dos_gpu_salen_las_dos_en_orden(nvidia_smi_falso, tmp_path, monkeypatch):
    cabecera = SALIDA_EJEMPLO_T4.replace("580.82.07", "565.57.01").replace("CUDA Version: 13.0", "CUDA Version: 12.7")
    nvidia_smi_falso(CONSULTA_DOS_GPU, cabecera)
    informe = consultar_nvidia_smi(timeout_s=5)
    assert [g.indice for g in informe.gpus] == [0, 1]
    assert [g.nombre for g in informe.gpus] == ["NVIDIA GeForce RTX 4090", "NVIDIA GeForce RTX 3060"]
    assert [g.memoria_total_mib for g in informe.gpus] == [24564, 12288]
    assert informe.gpus[0].memoria_usada_mib == 1024
    assert informe.cuda_del_driver == (12, 7)  # lo que dice la cabecera, aunque la tabla no tenga 12.7


def test_sin_cuda_version_en_la_cabecera_se_deduce_del_driver(nvidia_smi_falso, tmp_path, monkeypatch):
    consulta = "0, NVIDIA L4, 570.124.06, 23034, 0, 22563\n"
    nvidia_smi_falso(consulta, CABECERA_SIN_CUDA)
    informe = consultar_nvidia_smi(timeout_s=5)
    assert informe.cuda_de_cabecera is False
    assert informe.cuda_del_driver == (12, 8)  # driver 570.124 ≥ 570.26: CUDA 12.8


def test_si_la_cabecera_falla_tambien_se_deduce_del_driver(nvidia_smi_falso, tmp_path, monkeypatch):
    # La consulta funciona; el nvidia-smi sin argumentos, no (código 0 pero salida vacía).
    nvidia_smi_falso("0, Tesla T4, 560.35.03, 15360, 0, 15101\n", "")
    informe = consultar_nvidia_smi(timeout_s=5)
    assert informe.cuda_de_cabecera is False
    assert informe.cuda_del_driver == (12, 6)


# --- cuando nvidia-smi no está, falla o se cuelga: None, sin excepciones -------------------

def test_sin_nvidia_smi_devuelve_none(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))  # una carpeta vacía: no hay nvidia-smi
    assert consultar_nvidia_smi() is None


def test_nvidia_smi_que_termina_con_error_devuelve_none(nvidia_smi_falso, tmp_path, monkeypatch):
    # Lo que pasa con un driver roto: imprime algo y sale con código distinto de cero.
    nvidia_smi_falso("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\n", codigo=9,
    )
    assert consultar_nvidia_smi(timeout_s=5) is None


def test_nvidia_smi_sin_gpu_devuelve_none(nvidia_smi_falso, tmp_path, monkeypatch):
    nvidia_smi_falso("No devices were found\n", codigo=6)
    assert consultar_nvidia_smi(timeout_s=5) is None


def test_salida_que_no_se_entiende_devuelve_none(nvidia_smi_falso, tmp_path, monkeypatch):
    nvidia_smi_falso("esto no es un CSV\n", SALIDA_EJEMPLO_T4)
    assert consultar_nvidia_smi(timeout_s=5) is None


def test_archivo_sin_permiso_de_ejecucion_devuelve_none(nvidia_smi_falso, tmp_path, monkeypatch):
    nvidia_smi_falso(CONSULTA_T4, SALIDA_EJEMPLO_T4)
    (nvidia_smi_falso.carpeta / "nvidia-smi").chmod(0o644)
    assert consultar_nvidia_smi(timeout_s=5) is None


def _sigue_vivo(pid: int) -> bool:
    try:
        estado = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return estado not in ("Z", "X")  # un zombi ya no hace nada


def test_nvidia_smi_colgado_devuelve_none_enseguida_y_no_deja_procesos(nvidia_smi_falso, tmp_path, monkeypatch):
    # Se cuelga con un proceso hijo, como un driver bloqueado; anota el PID del hijo.
    nvidia_smi_falso(CONSULTA_T4, SALIDA_EJEMPLO_T4,
        antes="sleep 60 & echo $! > hijo.pid\nwait",
    )
    inicio = time.monotonic()
    assert consultar_nvidia_smi(timeout_s=0.5) is None
    assert time.monotonic() - inicio < 3
    pid = int((nvidia_smi_falso.carpeta / "hijo.pid").read_text())
    limite = time.monotonic() + 2
    while _sigue_vivo(pid) and time.monotonic() < limite:
        time.sleep(0.02)
    assert not _sigue_vivo(pid), "el sleep del nvidia-smi colgado sigue vivo"


def test_nvidia_smi_que_se_cuelga_solo_en_la_cabecera_usa_el_driver(nvidia_smi_falso, tmp_path, monkeypatch):
    nvidia_smi_falso(CONSULTA_T4, SALIDA_EJEMPLO_T4,
        antes='[ -z "$1" ] && exec sleep 60',
    )
    inicio = time.monotonic()
    informe = consultar_nvidia_smi(timeout_s=0.8)
    assert time.monotonic() - inicio < 3  # el límite es para las dos llamadas juntas
    assert informe is not None and informe.cuda_de_cabecera is False
    assert informe.cuda_del_driver == (13, 0)  # 580.82.07 según la tabla


def test_salida_con_bytes_que_no_son_utf8_no_lanza(nvidia_smi_falso, tmp_path, monkeypatch):
    nvidia_smi_falso("", SALIDA_EJEMPLO_T4)
    (nvidia_smi_falso.carpeta / "crudo.txt").write_bytes(b"0, Tesla T4 \xff\xfe, 550.54.15, 15360, 0, 15101\n")
    informe = consultar_nvidia_smi(timeout_s=5)
    assert informe is not None and informe.gpus[0].memoria_total_mib == 15360


# --- los analizadores, sin programa ---------------------------------------------------------

def test_memoria_no_disponible_queda_en_none():
    driver, gpus = _analizar_consulta("0, NVIDIA GH200 480GB, 580.65.06, [N/A], [N/A], [N/A]\n")
    assert driver == "580.65.06"
    assert gpus[0].memoria_total_mib is None


def test_un_nombre_con_coma_no_descoloca_los_campos():
    _, gpus = _analizar_consulta("0, GPU rara, edición 2, 560.35.03, 8192, 10, 8182\n")
    assert gpus[0].nombre == "GPU rara, edición 2"
    assert gpus[0].memoria_total_mib == 8192


@pytest.mark.parametrize(("texto", "esperado"), [
    ("| NVIDIA-SMI 580.65.06   Driver Version: 580.65.06   CUDA Version: 13.0 |", (13, 0)),
    ("CUDA Version : 12.9", (12, 9)),
    ("Driver Version: 575.51.03", None),
    ("", None),
])
def test_analizar_cabecera(texto, esperado):
    assert _analizar_cabecera(texto) == esperado


def test_capacidades_de_computo_una_por_gpu():
    from curso_gpu.dispositivo.nvidia_smi import _analizar_capacidades
    assert _analizar_capacidades("7.5\n12.0\n") == [(7, 5), (12, 0)]
    assert _analizar_capacidades("") == []
    # Un nvidia-smi antiguo que no conoce el campo: mejor no saber que adivinar.
    assert _analizar_capacidades("Field \"compute_cap\" is not a valid field to query.\n") == []


# --- respuestas hostiles: basura, enormes, un nieto que no suelta la salida --------------------

@pytest.mark.parametrize("basura", [
    "0, ¡hola!, mundo, x, y, z\n", "0, Tesla T4, 580.82.07, mucha, poca, nada\n",
    "0, Tesla T4, driver, 15360, 0, 15101\n", "²,Tesla T4, 580.82.07, 15360, 0, 15101\n",
])
def test_una_fila_sin_driver_ni_memorias_que_se_entiendan_no_cuenta(basura):
    assert _analizar_consulta(basura) is None


def test_basura_devuelve_none_y_dice_que_no_se_entiende(nvidia_smi_falso):
    nvidia_smi_falso("0, ¡hola!, mundo, x, y, z\n", SALIDA_EJEMPLO_T4)
    informe, problema = consultar_nvidia_smi_con_problema(timeout_s=5)
    assert informe is None
    assert problema == "nvidia-smi respondió algo que no se entiende ('0, ¡hola!, mundo, x, y, z')."
    assert consultar_nvidia_smi(timeout_s=5) is None


def test_sin_nvidia_smi_o_con_error_no_hay_problema_que_contar(nvidia_smi_falso):
    nvidia_smi_falso("No devices were found\n", codigo=6)
    assert consultar_nvidia_smi_con_problema(timeout_s=5) == (None, "")


def test_un_nieto_que_deja_la_salida_abierta_no_estropea_una_respuesta_valida(nvidia_smi_falso):
    # nvidia-smi responde bien y termina, pero deja un proceso que hereda su salida.
    nvidia_smi_falso(CONSULTA_T4, SALIDA_EJEMPLO_T4, antes="sleep 60 & echo $! >> nieto.pid")
    inicio = time.monotonic()
    informe = consultar_nvidia_smi(timeout_s=5)
    assert time.monotonic() - inicio < 3, "esperó al nieto hasta agotar el tiempo"
    assert informe is not None and informe.gpus[0].nombre == "Tesla T4"
    assert informe.cuda_del_driver == (13, 0) and informe.cuda_de_cabecera
    for linea in (nvidia_smi_falso.carpeta / "nieto.pid").read_text().split():
        limite = time.monotonic() + 2
        while _sigue_vivo(int(linea)) and time.monotonic() < limite:
            time.sleep(0.02)
        assert not _sigue_vivo(int(linea)), "el nieto sigue vivo"


def test_una_respuesta_de_200_mb_se_corta_en_1_mib_sin_gastar_memoria(nvidia_smi_falso):
    # La tabla de una T4 (crudo.txt sale tal cual) y detrás 200 MB de «x».
    nvidia_smi_falso(CONSULTA_T4, SALIDA_EJEMPLO_T4,
                     antes='[ "${1#--query-gpu}" != "$1" ] && { cat crudo.txt; head -c 200000000 /dev/zero | tr "\\0" x; exit 0; }')
    (nvidia_smi_falso.carpeta / "crudo.txt").write_text(CONSULTA_T4)
    tracemalloc.start()
    try:
        inicio = time.monotonic()
        informe, problema = consultar_nvidia_smi_con_problema(timeout_s=10)
        duracion = time.monotonic() - inicio
        pico = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert pico < 10 * _LIMITE_SALIDA, f"pico de memoria de {pico / 2**20:.0f} MiB"
    assert duracion < 5
    assert informe is not None and [g.nombre for g in informe.gpus] == ["Tesla T4"]
    assert "más de 1 MiB" in problema


def test_la_memoria_con_unidades_tambien_se_lee():
    _, gpus = _analizar_consulta("0, Tesla T4, 580.82.07, 15360 MiB, 0 MiB, 15101 MiB\n")
    assert (gpus[0].memoria_total_mib, gpus[0].memoria_usada_mib, gpus[0].memoria_libre_mib) == (15360, 0, 15101)
