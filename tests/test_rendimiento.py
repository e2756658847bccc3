"""Lección 06: el diagnóstico de los tres cuellos de botella y la comparación de DataLoader."""

from __future__ import annotations

import multiprocessing
import time

import pytest
import torch
from torch.utils.data import DataLoader, Dataset

from curso_gpu import graficos
from curso_gpu.rendimiento import ImagenesSinteticas
from curso_gpu.rendimiento import (
    ComparacionCargadores,
    Diagnostico,
    PasoFallido,
    comparar_cargadores,
    diagnosticar,
)


class Dormilon(Dataset):
    """Cada ejemplo tarda 3 ms en «leerse»: la CPU no calcula nada, solo espera."""

    def __len__(self):
        return 96

    def __getitem__(self, i):
        time.sleep(0.003)
        return torch.ones(4), i % 2


def _lotes_en_memoria(n=10):
    return [(torch.randn(8, 8), torch.zeros(8)) for _ in range(n)]


def paso_trivial(xb, yb):
    return (xb * 2).sum()


def paso_de_operaciones_diminutas(xb, yb):
    x = xb[0]
    for _ in range(100):  # 200 operaciones sobre 8 números
        x = x * 1.0001 + 0.0001
    return x


GRANDE = torch.randn(384, 384)


def paso_de_matmuls_grandes(xb, yb):
    for _ in range(3):
        y = GRANDE @ GRANDE
    return y


# --- Los tres cuellos de botella ----------------------------------------------------------------

def test_un_conjunto_que_duerme_es_cuello_de_datos():
    d = diagnosticar(paso_trivial, DataLoader(Dormilon(), batch_size=8), "cpu", pasos=5)
    assert d.cuello == "datos"
    assert d.fraccion_datos > 0.8
    assert d.pasos == 5
    assert "num_workers" in d.consejo


def test_cientos_de_operaciones_diminutas_es_cuello_de_lanzamientos():
    d = diagnosticar(paso_de_operaciones_diminutas, _lotes_en_memoria(), "cpu", pasos=4)
    assert d.cuello == "lanzamientos"
    assert d.fraccion_lanzamientos > 2 * d.fraccion_calculo
    assert d.fraccion_datos < 0.2
    assert 150 <= d.operaciones_por_paso <= 260
    assert "torch.compile" in d.consejo and "lote" in d.consejo


def test_multiplicaciones_grandes_es_cuello_de_calculo():
    d = diagnosticar(paso_de_matmuls_grandes, _lotes_en_memoria(), "cpu", pasos=4)
    assert d.cuello == "calculo"
    assert d.fraccion_calculo > 2 * d.fraccion_lanzamientos
    assert d.operaciones_por_paso == 3
    assert "precisión mixta" in d.consejo


def test_el_diagnostico_suma_uno_y_se_lee_en_texto_y_html():
    d = diagnosticar(paso_de_matmuls_grandes, _lotes_en_memoria(4), torch.device("cpu"), pasos=2)
    assert isinstance(d, Diagnostico)
    assert d.fraccion_datos + d.fraccion_lanzamientos + d.fraccion_calculo == pytest.approx(1.0)
    assert d.muestras_por_segundo > 0 and d.segundos_por_paso > 0
    assert len(d.tiempos_paso) == d.pasos == 2
    texto = str(d)
    assert texto.startswith("Cuello de botella en cpu: el CÁLCULO") and "Consejo:" in texto
    assert "<table>" in d._repr_html_() and "CÁLCULO" in d._repr_html_()


def test_cuenta_las_sincronizaciones_ocultas():
    def con_item(xb, yb):
        perdida = (xb * 2).sum()
        perdida.item()
        return perdida

    assert diagnosticar(con_item, _lotes_en_memoria(3), "cpu", pasos=1).sincronizaciones_por_paso == 1
    assert diagnosticar(paso_trivial, _lotes_en_memoria(3), "cpu", pasos=1).sincronizaciones_por_paso == 0


def test_un_cargador_mas_corto_que_pasos_mide_lo_que_hay():
    assert diagnosticar(paso_trivial, _lotes_en_memoria(3), "cpu", pasos=20).pasos == 2
    assert diagnosticar(paso_trivial, _lotes_en_memoria(1), "cpu", pasos=20).pasos >= 1


def test_entrena_de_verdad_la_cnn_de_la_leccion_05():
    from curso_gpu.entrenamiento import generar_dataset
    from curso_gpu.entrenamiento import CNNPequena

    torch.manual_seed(0)
    modelo = CNNPequena()
    antes = [p.detach().clone() for p in modelo.parameters()]

    def paso(xb, yb):  # descenso de gradiente a mano (un optimizador de torch tarda en arrancar la 1.ª vez)
        perdida = torch.nn.functional.cross_entropy(modelo(xb), yb)
        modelo.zero_grad()
        perdida.backward()
        with torch.no_grad():
            for p in modelo.parameters():
                p -= 0.05 * p.grad

    X, y = generar_dataset(20, semilla=1)
    d = diagnosticar(paso, DataLoader(torch.utils.data.TensorDataset(X, y), batch_size=12), "cpu", pasos=3)
    fracciones = {"datos": d.fraccion_datos, "lanzamientos": d.fraccion_lanzamientos, "calculo": d.fraccion_calculo}
    assert sum(fracciones.values()) == pytest.approx(1) and min(fracciones.values()) >= 0, fracciones
    assert d.cuello == max(fracciones, key=fracciones.get), (d.cuello, fracciones)
    assert d.operaciones_por_paso > 5
    assert any(not torch.equal(a, b) for a, b in zip(antes, modelo.parameters()))


# --- Entradas malas --------------------------------------------------------------------------

@pytest.mark.parametrize("pasos", [0, -1, 2.5, True, "20"])
def test_pasos_no_validos(pasos):
    with pytest.raises(ValueError, match="pasos debe ser un entero mayor o igual que 1"):
        diagnosticar(paso_trivial, _lotes_en_memoria(2), "cpu", pasos=pasos)


def test_un_cargador_vacio_es_un_error_claro():
    with pytest.raises(ValueError, match="El cargador está vacío"):
        diagnosticar(paso_trivial, [], "cpu")
    vacio = DataLoader(torch.utils.data.TensorDataset(torch.zeros(3, 2), torch.zeros(3)), batch_size=8, drop_last=True)
    with pytest.raises(ValueError, match="vacío"):
        diagnosticar(paso_trivial, vacio, "cpu")


def test_lotes_que_no_son_pares_y_cargadores_que_no_se_recorren():
    with pytest.raises(ValueError, match=r"no es un par \(xb, yb\)"):
        diagnosticar(paso_trivial, [torch.zeros(3)], "cpu")
    with pytest.raises(ValueError, match="cargador debe ser"):
        diagnosticar(paso_trivial, 42, "cpu")
    with pytest.raises(ValueError, match="paso debe ser una función"):
        diagnosticar("paso", _lotes_en_memoria(2), "cpu")


def test_un_paso_que_falla_dice_en_que_lote_y_por_que():
    def roto(xb, yb):
        raise KeyError("capa3")

    with pytest.raises(PasoFallido, match=r"lote 1 \(calentamiento\) con KeyError") as info:
        diagnosticar(roto, _lotes_en_memoria(3), "cpu")
    assert isinstance(info.value.__cause__, KeyError)


def test_un_paso_que_falla_con_procesos_no_deja_procesos_vivos():
    def roto(xb, yb):
        raise RuntimeError("forma incorrecta")

    cargador = DataLoader(ImagenesSinteticas(n=64, lado=16, recorte=12), batch_size=8, num_workers=2, timeout=30)
    with pytest.raises(PasoFallido, match="forma incorrecta"):
        diagnosticar(roto, cargador, "cpu")
    _sin_procesos_hijos()


# --- comparar_cargadores ---------------------------------------------------------------------

def _sin_procesos_hijos():
    limite = time.monotonic() + 5
    while multiprocessing.active_children() and time.monotonic() < limite:
        time.sleep(0.05)
    assert multiprocessing.active_children() == []


def test_comparar_cargadores_mide_cada_configuracion_y_cierra_los_procesos():
    conjunto = ImagenesSinteticas(n=96, lado=8, recorte=8, latencia=0.005)
    c = comparar_cargadores(conjunto, 8, num_workers=(0, 2), pin_memory=False, lotes=5, dispositivo="cpu")
    assert isinstance(c, ComparacionCargadores)
    assert [(m.num_workers, m.pin_memory) for m in c.mediciones] == [(0, False), (2, False)]
    assert all(m.muestras_por_segundo > 0 and m.lotes == 5 for m in c.mediciones)
    # Leer de un disco lento no gasta CPU: dos procesos esperan a la vez y dan más muestras por segundo.
    assert c.mediciones[1].muestras_por_segundo > 1.3 * c.mediciones[0].muestras_por_segundo
    assert c.mejor.num_workers == 2
    assert "num_workers" in str(c) and "<table>" in c._repr_html_()
    _sin_procesos_hijos()
    figura = graficos.grafico_cargadores(c)
    linea = figura.axes[0].lines[0]
    assert list(linea.get_xdata()) == [0, 2]
    assert list(linea.get_ydata()) == [m.muestras_por_segundo for m in c.mediciones]


def test_sin_cuda_pin_memory_por_defecto_solo_prueba_false():
    c = comparar_cargadores(ImagenesSinteticas(n=16, lado=8, recorte=8), 8, num_workers=0, lotes=1, dispositivo="cpu")
    assert [m.pin_memory for m in c.mediciones] == [False]


@pytest.mark.parametrize("num_workers", [-1, (0, -2), 1.5, (), ("dos",)])
def test_num_workers_no_valido(num_workers):
    with pytest.raises(ValueError, match="num_workers"):
        comparar_cargadores(ImagenesSinteticas(n=8), 4, num_workers=num_workers, dispositivo="cpu")


def test_otras_entradas_no_validas():
    with pytest.raises(ValueError, match="tamano_lote"):
        comparar_cargadores(ImagenesSinteticas(n=8), 0, dispositivo="cpu")
    with pytest.raises(ValueError, match="vacío"):
        comparar_cargadores([], 4, dispositivo="cpu")
    with pytest.raises(ValueError, match="pin_memory"):
        comparar_cargadores(ImagenesSinteticas(n=8), 4, pin_memory="sí", dispositivo="cpu")


class _FormasDistintas(torch.utils.data.Dataset):
    """Ejemplos de largo 3 y 4 alternados: el DataLoader no los puede apilar en un lote."""

    def __len__(self):
        return 8

    def __getitem__(self, i):
        return torch.zeros(3 + i % 2), 0


@pytest.mark.parametrize("num_workers", [0, 1])
def test_ejemplos_de_formas_distintas_lo_dicen_en_espanol(num_workers):
    with pytest.raises(ValueError, match=r"conjunto: los ejemplos no tienen todos la misma forma: en un mismo lote, el "
                                         r"ejemplo 0 tiene forma \[3\] y el 1, \[4\].*Recórtalos o rellénalos"):
        comparar_cargadores(_FormasDistintas(), 2, num_workers=num_workers, dispositivo="cpu")
    _sin_procesos_hijos()


# --- El conjunto con transformación ----------------------------------------------------------

def test_imagenes_sinteticas_son_deterministas_y_con_la_forma_pedida():
    conjunto = ImagenesSinteticas(n=20, lado=32, recorte=24, clases=4, semilla=3)
    x, etiqueta = conjunto[7]
    assert x.shape == (3, 24, 24) and x.dtype == torch.float32 and etiqueta == 3
    assert torch.equal(conjunto[7][0], ImagenesSinteticas(n=20, lado=32, recorte=24, clases=4, semilla=3)[7][0])
    assert not torch.equal(conjunto[7][0], ImagenesSinteticas(n=20, lado=32, recorte=24, clases=4, semilla=4)[7][0])
    assert len(conjunto) == 20
    with pytest.raises(IndexError):
        conjunto[20]


@pytest.mark.parametrize("kwargs", [{"n": 0}, {"lado": 8, "recorte": 9}, {"latencia": -1}, {"clases": True}])
def test_imagenes_sinteticas_rechazan_parametros_malos(kwargs):
    with pytest.raises(ValueError):
        ImagenesSinteticas(**kwargs)


def test_el_perfilador_dice_que_dispositivos_puede_ver():
    from curso_gpu.rendimiento import perfilador_ve

    assert perfilador_ve("cpu")
    assert perfilador_ve("cuda") == (torch.profiler.ProfilerActivity.CUDA in torch.profiler.supported_activities())
    assert not perfilador_ve("nada")
