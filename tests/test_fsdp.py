"""Lección 12: FSDP2 (``fully_shard``) con gloo en procesos de CPU, sin dejar procesos vivos.

La lección 12 se ejecuta una vez por sesión (``leccion_ejecutada``): su última celda comprueba con
``assert`` lo que enseña, y aquí se lee lo que imprimió (2 procesos × lote 16 ≈ 1 × 32, bytes de
cada trozo = calculadora, guardado con 2 y cargado con 1). Aparte, con torchrun de verdad: un
``SIGKILL`` a mitad de un guardado y 3 procesos con filas que no se dividen. Los errores en
español, en el mismo proceso (un mundo de uno).
"""

from __future__ import annotations

import json
import os
import re
import signal
import time
import warnings
from pathlib import Path

import pytest
import torch
from torch import nn

from curso_gpu import distribuido
from curso_gpu.distribuido import ejecutar, orden_torchrun, sigue_vivo
from curso_gpu.entrenamiento import CNNPequena, NucleoCheckpoints, configuracion_de_entrenamiento
from curso_gpu.entrenar_ddp import main
from curso_gpu.guardado import AvisoCheckpoint, cargar_pesos, como_carpeta, leer_indice
from curso_gpu.memoria import DesgloseMemoria, bytes_de_fragmento, memoria_por_gpu, trafico_descarga_cpu
from ejecucion_compartida import texto_impreso
from interrupciones import TorchrunVigilado, esperar_que_paren

RAIZ = Path(__file__).resolve().parent.parent
PLAZO_S = 10  # vigilar_padre: aviso del núcleo al instante, sondeo cada 0.5 s y 3 s de gracia


@pytest.fixture(scope="module")
def leccion_12(leccion_ejecutada):
    """Todo lo que imprimió la lección 12 al ejecutarse entera (una vez por sesión)."""
    return texto_impreso(leccion_ejecutada("12"))


def test_la_leccion_12_comprueba_sus_resultados_al_final(leccion_12):
    assert ("Comprobado: FSDP reparte, cuenta, coincide con un proceso, guarda, sobrevive a un SIGKILL y se sigue "
            "con 1 proceso.") in leccion_12


def test_fsdp_con_dos_procesos_da_el_mismo_modelo_que_uno_con_el_doble_de_lote(leccion_12):
    diferencia = float(re.search(r"Máxima diferencia entre FSDP 2×16 y 1×32: (\S+)", leccion_12).group(1))
    assert diferencia < 1e-5, leccion_12


def test_los_bytes_de_cada_trozo_son_los_de_la_calculadora(leccion_12):
    filas = re.findall(r"rango (\d): 16 544 de 33 088 parámetros · medido (.+?) · calculado (.+?) → (\w+)", leccion_12)
    assert [r for r, *_ in filas] == ["0", "1"], leccion_12
    assert all(medido == calculado and veredicto == "iguales" for _, medido, calculado, veredicto in filas), filas


def test_fsdp_comunica_una_vez_y_media_lo_de_ddp(leccion_12):
    assert re.search(r"FSDP, primer paso: 6 all-gather \(.+?\) · 3 reduce-scatter \(", leccion_12), leccion_12
    assert "Envía cada rango: FSDP 198 528 bytes; DDP 132 352 bytes → 1.50 veces" in leccion_12


def test_guardado_con_dos_procesos_se_carga_con_uno_identico(leccion_12):
    assert "Guardado con 2 procesos, cargado con 1: ¿pesos idénticos, número a número? True" in leccion_12
    assert "Reanudo desde checkpoint_epoca_" in leccion_12 and "procesos 2 → 1" in leccion_12


# ---------------------------------------------------------------------------
# La calculadora, sin procesos
# ---------------------------------------------------------------------------

def test_bytes_de_fragmento_cuenta_el_relleno_cuando_las_filas_no_se_dividen():
    capa = nn.Linear(33, 5)  # 5 filas entre 3: trozos de 2, 2 y 1 (+1 de relleno)
    trozos = [bytes_de_fragmento(capa, 3, r) for r in range(3)]
    assert [t.parametros for t in trozos] == [2 * 33 + 2, 2 * 33 + 2, 33 + 1]
    assert {t.bytes for t in trozos} == {4 * (2 * 33 + 2)}  # todos reservan el trozo entero
    assert [t.relleno for t in trozos] == [0, 0, 4 * (33 + 1)]
    assert "de relleno" in str(trozos[2]) and "de relleno" not in str(trozos[0])
    with torch.device("meta"):  # también sin memoria: solo cuenta formas
        assert bytes_de_fragmento(nn.Linear(33, 5), 3, 2) == trozos[2]


def test_bytes_de_fragmento_con_rango_imposible_da_un_error_en_espanol():
    with pytest.raises(ValueError, match="rango"):
        bytes_de_fragmento(nn.Linear(4, 4), 2, 2)
    with pytest.raises(ValueError, match="nn.Module"):
        bytes_de_fragmento({"peso": torch.ones(2)}, 2)


def test_memoria_por_gpu_cuenta_cada_termino_en_su_momento_y_el_pico_es_el_mayor():
    desglose = DesgloseMemoria(pesos=18_000, gradientes=16_000, optimizador=32_000, activaciones=5_000,
                               parametros=4_000, lote=1, precision="fp16", pesos_16_bits=2_000)
    una = memoria_por_gpu(desglose, 1, "una", contexto=0)
    # una GPU: en el paso, pesos fp32 + gradientes + Adam + el temporal de foreach (4 bytes por parámetro)
    assert una.en("paso del optimizador") == 16_000 + 16_000 + 32_000 + 16_000 == una.total
    ddp = memoria_por_gpu(desglose, 2, "ddp", contexto=0)
    assert ddp.total == una.total + 16_000  # + los cubos de DDP, del tamaño de los gradientes
    fsdp = memoria_por_gpu(desglose, 2, "fsdp", unidad_parametros=100, raiz_parametros=300, contexto=7)
    assert (fsdp.parte("pesos"), fsdp.parte("gradientes"), fsdp.parte("estado de Adam")) == (8_000, 8_000, 16_000)
    # al comenzar la pasada atrás no hay gradientes repartidos (zero_grad) pero sí todo lo reunido
    assert fsdp.en("comienzo de la pasada atrás") == 8_000 + 16_000 + 300 * 2 * 2 + 100 * 2 * 3 + 100 * 4 + 5_000
    assert fsdp.en("final de la pasada atrás") == 8_000 * 2 + 16_000 + 300 * 2 + 300 * 4  # el búfer fp32 de la raíz
    assert fsdp.en("paso del optimizador") == 32_000 + 8_000 == fsdp.pico_pytorch  # foreach: un trozo más
    assert fsdp.momento_pico == "paso del optimizador" and fsdp.total == 40_007
    assert fsdp.cabe_en(fsdp.total) and not fsdp.cabe_en(fsdp.total - 1)
    sin_foreach = memoria_por_gpu(desglose, 2, "fsdp", unidad_parametros=100, raiz_parametros=300, foreach=False,
                                  mayor_parametro=1_000, contexto=0)
    assert sin_foreach.parte("temporal de Adam") == 2 * 500 * 4  # dos temporales del mayor trozo
    descarga = memoria_por_gpu(desglose, 2, "fsdp", unidad_parametros=100, raiz_parametros=300, descarga_cpu=True,
                               contexto=0)
    assert descarga.en("paso del optimizador") == 0 and descarga.momento_pico == "comienzo de la pasada atrás"
    texto = str(fsdp)
    assert "temporal de Adam" in texto and "GiB = 2³⁰ bytes" in texto and "contexto de CUDA" in texto
    with pytest.raises(ValueError, match="estrategia desconocida 'zero'"):
        memoria_por_gpu(desglose, 2, "zero")
    with pytest.raises(ValueError, match="una sola GPU"):
        memoria_por_gpu(desglose, 2, "una")
    with pytest.raises(ValueError, match="foreach debe ser True o False"):
        memoria_por_gpu(desglose, 2, "fsdp", foreach="no")
    with pytest.raises(ValueError, match="CPUOffloadPolicy"):
        memoria_por_gpu(desglose, 2, "ddp", descarga_cpu=True)
    # CPUOffloadPolicy: dos copias del trozo fp32 a la GPU (delante y atrás) y el gradiente de vuelta
    assert trafico_descarga_cpu(1_000, 2) == 3 * 4 * 500


def test_un_modelo_en_meta_da_un_error_en_espanol():
    with torch.device("meta"):
        modelo = nn.Linear(4, 4)
    with pytest.raises(ValueError, match="dispositivo meta.*to_empty"):
        distribuido.fragmentar(modelo)


# ---------------------------------------------------------------------------
# Carpetas: en un mundo de uno, en este mismo proceso
# ---------------------------------------------------------------------------

def _entrenar(*argumentos) -> int:
    hilos = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        return main(["--semilla", "0", "--silencioso", *argumentos])
    finally:
        torch.set_num_threads(hilos)


@pytest.mark.lento  # importa fully_shard (torch._dynamo): segundos de CPU
def test_fsdp_no_sigue_una_carpeta_de_ddp_ni_al_reves(tmp_path, capsys):
    de_ddp, de_fsdp = tmp_path / "ddp", tmp_path / "fsdp"
    assert _entrenar("--epocas", "1", "--checkpoints", str(de_ddp)) == 0
    assert _entrenar("--estrategia", "fsdp", "--epocas", "1", "--checkpoints", str(de_fsdp)) == 0
    capsys.readouterr()
    assert _entrenar("--estrategia", "fsdp", "--epocas", "2", "--checkpoints", str(de_ddp)) == 1
    error = capsys.readouterr().err
    assert "tiene checkpoints de un entrenamiento DDP" in error and "--estrategia ddp" in error, error
    assert _entrenar("--epocas", "2", "--checkpoints", str(de_fsdp)) == 1
    error = capsys.readouterr().err
    assert "de un entrenamiento FSDP" in error and "--estrategia fsdp" in error, error
    assert sorted(p.name for p in de_ddp.iterdir()) == ["checkpoint_epoca_000001.pt"]  # nada se tocó
    assert sorted(p.name for p in de_fsdp.iterdir()) == ["checkpoint_epoca_000001.dcp"]


@pytest.mark.lento
def test_un_checkpoint_repartido_de_otro_modelo_se_rechaza_en_espanol(tmp_path):
    ck = tmp_path / "ck"
    assert _entrenar("--estrategia", "fsdp", "--epocas", "1", "--checkpoints", str(ck)) == 0
    otro = CNNPequena(canales=(4, 8))  # el mismo nombre de clase, otras formas
    configuracion = configuracion_de_entrenamiento(otro, lr=0.01, tamano_lote=16, epocas=2, dispositivo="cpu",
                                                   semilla=0, criterio="CrossEntropyLoss", estrategia="fsdp")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", AvisoCheckpoint)
        with NucleoCheckpoints(ck, entrenador="entrenar_ddp", configuracion=configuracion, cada=1,
                               fragmentado=True) as nucleo:
            with pytest.raises(ValueError, match="no corresponde a este modelo.*conv1.weight"):
                nucleo.decidir(otro.state_dict(), "cpu", avisar=lambda _: None)


@pytest.mark.lento
def test_guardar_pesos_con_fsdp_da_el_mismo_archivo_que_con_ddp(tmp_path):
    assert _entrenar("--estrategia", "fsdp", "--epocas", "2", "--guardar-pesos", str(tmp_path / "fsdp.pt")) == 0
    assert _entrenar("--epocas", "2", "--guardar-pesos", str(tmp_path / "ddp.pt")) == 0
    fsdp, ddp = cargar_pesos(tmp_path / "fsdp.pt", CNNPequena()), cargar_pesos(tmp_path / "ddp.pt")
    assert list(fsdp) == list(ddp)  # las mismas claves (sin «module.»), en el mismo orden
    assert max((fsdp[k] - ddp[k]).abs().max().item() for k in ddp) < 1e-5


# ---------------------------------------------------------------------------
# Con torchrun de verdad
# ---------------------------------------------------------------------------

@pytest.mark.lento
def test_sigkill_durante_un_guardado_no_pierde_nada_ni_deja_huerfanos(tmp_path):
    ck = tmp_path / "ck"
    orden = orden_torchrun(["-m", "curso_gpu.entrenar_ddp", "--estrategia", "fsdp", "--epocas", "100000",
                            "--checkpoints", str(ck), "--silencioso"], procesos=2)
    with TorchrunVigilado(orden, RAIZ) as torchrun:
        limite, a_medias = time.monotonic() + 180, []
        while time.monotonic() < limite and torchrun.proceso.poll() is None:
            torchrun.mirar()
            # Un guardado en curso: su carpeta temporal (sin el índice del curso todavía).
            a_medias = list(ck.glob(".checkpoint_epoca_*.dcp.*.tmp")) if ck.is_dir() else []
            if a_medias and como_carpeta(ck).archivos():
                break
            time.sleep(0.002)
        assert torchrun.proceso.poll() is None and a_medias, torchrun.salida()
        os.kill(torchrun.proceso.pid, signal.SIGKILL)  # a mitad de un guardado
        torchrun.proceso.wait(timeout=10)
        tardanza = esperar_que_paren(torchrun.vistos, 3 * PLAZO_S)
        assert not [p for p in torchrun.vistos if sigue_vivo(p)], f"siguen vivos {tardanza:.1f} s después del SIGKILL"
        assert tardanza < PLAZO_S, f"los trabajadores tardaron {tardanza:.1f} s en parar"

    completos = como_carpeta(ck).archivos()
    assert completos and all(leer_indice(r)["epoca"] >= 1 for r in completos)  # cada uno, completo y sano
    ultima = int(leer_indice(completos[0])["epoca"])
    # Seguir con 1 proceso (reparto 2 → 1): sin avisos de checkpoints dañados, y la temporal desaparece.
    with warnings.catch_warnings(record=True) as avisos:
        warnings.simplefilter("always")
        assert _entrenar("--estrategia", "fsdp", "--epocas", str(ultima + 1), "--tamano-lote", "32",
                         "--checkpoints", str(ck), "--guardar-pesos", str(tmp_path / "w.pt")) == 0
    assert not [a for a in avisos if "dañado" in str(a.message) or "incompleto" in str(a.message)], \
        [str(a.message) for a in avisos]
    assert not list(ck.glob(".*.tmp")), sorted(p.name for p in ck.iterdir())
    assert leer_indice(como_carpeta(ck).archivos()[0])["epoca"] == ultima + 1
    assert set(cargar_pesos(tmp_path / "w.pt", CNNPequena()))


@pytest.mark.lento
def test_tres_procesos_con_filas_que_no_se_dividen_rellenan_y_entrenan_igual(tmp_path):
    """No es un error: fully_shard rellena el último trozo. Lo medido es lo que dice la calculadora y
    el paso es el de un proceso con los 6 ejemplos."""
    orden = orden_torchrun([str(RAIZ / "tests" / "fsdp_tres_procesos.py"), str(tmp_path)], procesos=3)
    (resultado,) = ejecutar(orden, timeout_s=180, entorno={"OMP_NUM_THREADS": "1", "PYTHONPATH": str(RAIZ)})
    assert resultado.bien, resultado.salida[-3000:]
    assert not [p for p in resultado.procesos if sigue_vivo(p)]
    rangos = [json.loads((tmp_path / f"rango_{r}.json").read_text()) for r in range(3)]
    assert all(r["medido"] == r["prevision"] for r in rangos), rangos
    assert rangos[2]["medido"][2] > 0 and rangos[0]["medido"][2] == 0  # solo el último lleva relleno
    # Un proceso con los 6 ejemplos: la media de los gradientes de los tres trozos de 2.
    torch.manual_seed(0)
    modelo = nn.Sequential(nn.Linear(16, 33), nn.ReLU(), nn.Linear(33, 5))
    torch.manual_seed(1)
    X, y = torch.randn(6, 16), torch.randint(0, 5, (6,))
    orden_ejemplos = torch.cat([torch.arange(r, 6, 3) for r in range(3)])
    nn.functional.cross_entropy(modelo(X[orden_ejemplos]), y[orden_ejemplos]).backward()
    torch.optim.SGD(modelo.parameters(), lr=0.1).step()
    repartidos = torch.load(tmp_path / "pesos.pt", weights_only=True)
    assert max((repartidos[k] - v).abs().max().item() for k, v in modelo.state_dict().items()) < 1e-6


@pytest.mark.lento
def test_un_segundo_escritor_en_una_carpeta_repartida_se_rechaza(tmp_path, capsys):
    ck = tmp_path / "ck"
    assert _entrenar("--estrategia", "fsdp", "--epocas", "1", "--checkpoints", str(ck)) == 0
    antes = sorted(p.name for p in ck.iterdir())
    with como_carpeta(ck).candado():
        capsys.readouterr()
        assert _entrenar("--estrategia", "fsdp", "--epocas", "2", "--checkpoints", str(ck)) == 1
    assert "Otro entrenamiento" in capsys.readouterr().err
    assert sorted(p.name for p in ck.iterdir()) == antes


@pytest.mark.lento
def test_gradscaler_con_fully_shard_un_inf_en_un_rango_hace_saltar_el_paso_a_todos(tmp_path):
    """FSDP2: torch.amp.GradScaler basta (DTensor reúne el inf entre rangos); ShardedGradScaler es de FSDP1."""
    orden = orden_torchrun([str(RAIZ / "tests" / "fsdp_escalador.py"), str(tmp_path)], procesos=2)
    (resultado,) = ejecutar(orden, timeout_s=180, entorno={"OMP_NUM_THREADS": "1", "PYTHONPATH": str(RAIZ)})
    assert resultado.bien, resultado.salida[-3000:]
    assert not [p for p in resultado.procesos if sigue_vivo(p)]
    rangos = [json.loads((tmp_path / f"rango_{r}.json").read_text()) for r in range(2)]
    assert [r["clase"] for r in rangos] == ["GradScaler"] * 2
    con_inf, limpio = zip(*(r["pasos"] for r in rangos))
    # el paso del inf: los DOS saltan (el rango 1 no vio ningún inf) y la escala baja a la mitad en los dos
    assert [p["cambiaron"] for p in con_inf] == [False, False] and [p["escala"] for p in con_inf] == [2.0**15] * 2
    assert all(p["gradiente"] == "DTensor" for p in con_inf)
    assert [p["cambiaron"] for p in limpio] == [True, True]  # el siguiente, sin inf, sí actualiza
