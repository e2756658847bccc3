"""comparar_tiempos: alternar, juzgar con un intervalo y decir «sin diferencia clara» cuando toca.

Las dos pruebas de verdad (A/A y una diferencia de 2×) se hacen con la CPU cargada a propósito
por otro proceso, como en Colab o en un portátil con el navegador abierto.
"""

from __future__ import annotations

import subprocess
import sys

import pytest
from lentas import fixture_lenta
import torch

from curso_gpu.medicion import comparar
from curso_gpu.medicion import Comparacion, comparar_tiempos


@fixture_lenta  # quita un núcleo entero al otro proceso de xdist mientras dura
def cpu_cargada():
    """Otro proceso que gasta un núcleo entero mientras dura la prueba (siempre se termina)."""
    carga = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        yield carga
    finally:
        carga.kill()
        carga.wait(timeout=10)


def _trabajo(veces: int):
    """Trabajo de Python puro (un solo hilo): ``veces`` sumas iguales, así 8 tarda el doble que 4."""
    def hacer():
        for _ in range(veces):
            sum(i * i for i in range(300))
    return hacer


def test_a_a_con_la_cpu_cargada_casi_nunca_declara_ganador(cpu_cargada):
    f = _trabajo(4)
    comparaciones = [comparar_tiempos(f, f, nombres=("uno", "otro"), presupuesto_s=0.15, semilla=i)
                     for i in range(6)]
    assert cpu_cargada.poll() is None, "la carga debía seguir viva durante las medidas"
    falsos = [c.veredicto for c in comparaciones if c.concluyente]
    assert len(falsos) <= 1, falsos
    for c in comparaciones:
        if not c.concluyente:
            assert c.ganador is None and c.veredicto.startswith("Sin diferencia clara en esta máquina")


def test_una_diferencia_de_2x_con_la_cpu_cargada_se_encuentra_con_su_ganador(cpu_cargada):
    c = comparar_tiempos(_trabajo(8), _trabajo(4), nombres=("doble", "simple"), presupuesto_s=0.3)
    assert cpu_cargada.poll() is None
    assert c.concluyente and c.ganador == "simple", c.veredicto
    assert 1.5 < c.veces < 2.7
    bajo, alto = c.intervalo
    assert bajo <= c.veces <= alto
    assert c.veredicto.startswith("En esta máquina, simple fue ")


# --- Con un reloj falso: el orden de las medidas y el juicio, exactos ---------------------------

class Reloj:
    def __init__(self):
        self.ahora = 0.0
        self.llamadas: list[str] = []

    def __call__(self) -> float:
        return self.ahora

    def funcion(self, nombre: str, segundos: list[float] | float):
        def hacer():
            self.llamadas.append(nombre)
            self.ahora += segundos if isinstance(segundos, float) else segundos.pop(0)
        return hacer


def test_se_alternan_los_pares_y_cada_funcion_se_calienta_antes(monkeypatch):
    monkeypatch.setattr(comparar, "sincronizar", lambda d: None)
    reloj = Reloj()
    c = comparar_tiempos(reloj.funcion("a", 0.004), reloj.funcion("b", 0.002), repeticiones=4,
                         presupuesto_s=None, reloj=reloj)
    # a en frío y caliente, b en frío y caliente; luego a b, b a, a b, b a.
    assert reloj.llamadas == ["a", "a", "b", "b"] + list("abbaabba")
    assert c.pares == 4 and (c.primera_a, c.primera_b) == pytest.approx((0.004, 0.002))
    assert (c.mediana_a, c.mediana_b) == pytest.approx((0.004, 0.002))
    assert c.veces == pytest.approx(2.0) and c.intervalo == pytest.approx((2.0, 2.0))
    assert not c.concluyente, "con menos de 5 pares no se declara ganador"
    assert "Solo hubo 4 pares" in c.veredicto


def test_el_ganador_puede_ser_el_primero_y_el_intervalo_va_en_su_sentido(monkeypatch):
    monkeypatch.setattr(comparar, "sincronizar", lambda d: None)
    reloj = Reloj()
    lentos = [0.003, 0.003] + [0.003, 0.0036, 0.0024, 0.003, 0.0033, 0.0027, 0.003, 0.003]
    c = comparar_tiempos(reloj.funcion("rápida", 0.001), reloj.funcion("lenta", lentos),
                         nombres=("rápida", "lenta"), repeticiones=8, presupuesto_s=None, reloj=reloj)
    assert c.concluyente and c.ganador == "rápida"
    assert c.veces == pytest.approx(3.0)
    bajo, alto = c.intervalo
    assert 2.3 < bajo <= 3.0 <= alto < 3.7
    assert c.veredicto.startswith("En esta máquina, rápida fue 3.00× más rápido que lenta (intervalo del 95 %: ")


def test_una_diferencia_menor_del_5_por_ciento_no_es_concluyente(monkeypatch):
    monkeypatch.setattr(comparar, "sincronizar", lambda d: None)
    reloj = Reloj()
    c = comparar_tiempos(reloj.funcion("a", 0.00103), reloj.funcion("b", 0.001), repeticiones=10,
                         presupuesto_s=None, reloj=reloj)
    assert not c.concluyente and c.ganador is None
    assert c.veredicto == ("Sin diferencia clara en esta máquina: a tardó entre 1.03 y 1.03 veces lo que b "
                           "(intervalo del 95 %, 10 pares alternados). Repite con la máquina en reposo o "
                           "con más repeticiones.")


def test_una_operacion_de_microsegundos_se_mide_en_bloques(monkeypatch):
    monkeypatch.setattr(comparar, "sincronizar", lambda d: None)
    reloj = Reloj()
    c = comparar_tiempos(reloj.funcion("a", 1e-6), reloj.funcion("b", 2e-6), repeticiones=5,
                         presupuesto_s=None, reloj=reloj)
    assert reloj.llamadas.count("a") > 100 * 5, "cada muestra debe juntar muchas llamadas"
    assert c.mediana_a == pytest.approx(1e-6) and c.mediana_b == pytest.approx(2e-6)
    assert c.ganador == "a"


def test_en_una_gpu_se_sincroniza_antes_de_cada_lectura_del_reloj(monkeypatch):
    eventos = []
    monkeypatch.setattr(torch.cuda, "synchronize", lambda d=None: eventos.append("sincronizar"))
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)  # una máquina falsa con 1 GPU
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 1)

    def reloj():
        eventos.append("reloj")
        return float(len(eventos))

    comparar_tiempos(lambda: eventos.append("trabajo"), lambda: eventos.append("trabajo"), repeticiones=3,
                     presupuesto_s=None, dispositivo=torch.device("cuda"), reloj=reloj)
    lecturas = [i for i, e in enumerate(eventos) if e == "reloj"]
    assert len(lecturas) > 2 * 6
    assert all(eventos[i - 1] == "sincronizar" for i in lecturas), eventos


def test_el_presupuesto_anade_pares_hasta_gastarse(monkeypatch):
    monkeypatch.setattr(comparar, "sincronizar", lambda d: None)
    reloj = Reloj()
    c = comparar_tiempos(reloj.funcion("a", 0.01), reloj.funcion("b", 0.01), repeticiones=3,
                         presupuesto_s=0.5, reloj=reloj)
    assert c.pares == 25  # 0.5 s entre 0.02 s por par


def test_se_ve_como_tabla_en_texto_y_en_html(monkeypatch):
    monkeypatch.setattr(comparar, "sincronizar", lambda d: None)
    reloj = Reloj()
    c = comparar_tiempos(reloj.funcion("a", 0.002), reloj.funcion("b", 0.001), nombres=("bucle", "NumPy"),
                         presupuesto_s=None, reloj=reloj, descripcion="producto 64×64")
    assert isinstance(c, Comparacion)
    texto = str(c)
    assert texto.splitlines()[0] == "Comparación: producto 64×64 (cpu)"
    assert "bucle" in texto and "2.000 ms" in texto and c.veredicto in texto
    html = c._repr_html_()
    assert "<table>" in html and "NumPy fue 2.00× más rápido que bucle" in html
    assert c.a_dict()["ganador"] == "NumPy"


@pytest.mark.parametrize("argumentos, mensaje", [
    (dict(a=3), "dos funciones sin argumentos"),
    (dict(nombres=("x", "x")), "dos textos distintos"),
    (dict(nombres="ab"), "dos textos distintos"),
    (dict(repeticiones=0), "repeticiones"),
    (dict(presupuesto_s=-1), "presupuesto_s"),
    (dict(repeticiones=2.5), "repeticiones .*debe ser un entero.*no es un número entero"),
    (dict(presupuesto_s=float("nan")), "presupuesto_s debe ser un número mayor que 0.*; recibí nan"),
])
def test_entradas_malas_dan_un_error_en_espanol(argumentos, mensaje):
    datos = dict(a=lambda: None, b=lambda: None)
    datos.update(argumentos)
    with pytest.raises((TypeError, ValueError), match=mensaje):
        comparar_tiempos(datos.pop("a"), datos.pop("b"), **datos)


def test_pares_de_ejecuciones_distintas_no_se_llaman_alternados():
    from curso_gpu.medicion import comparar_muestras

    c = comparar_muestras([0.02] * 6, [0.01] * 6, nombres=("1 proceso", "2 procesos"), alternados=False)
    assert c.ganador == "2 procesos" and "alternados" not in c.veredicto and "6 pares" in c.veredicto


def test_comparar_muestras_rechaza_listas_de_distinto_largo():
    from curso_gpu.medicion import comparar_muestras

    with pytest.raises(ValueError, match="mismo largo"):
        comparar_muestras([1.0, 2.0], [1.0])


def test_hilos_cpu_deja_los_hilos_como_estaban_aunque_falle():
    from curso_gpu.medicion import hilos_cpu

    # Bajo xdist cada proceso ya tiene un solo hilo (conftest.py): se parte de 3 y se piden 2,
    # así hilos_cpu tiene que cambiarlos y devolverlos, y no basta con no tocarlos.
    antes = torch.get_num_threads()
    torch.set_num_threads(3)
    try:
        with pytest.raises(RuntimeError, match="algo falló dentro"):
            with hilos_cpu(2):
                assert torch.get_num_threads() == 2
                raise RuntimeError("algo falló dentro")
        assert torch.get_num_threads() == 3
    finally:
        torch.set_num_threads(antes)


def test_acepta_los_numeros_de_numpy_y_decimal_como_el_resto_del_curso():
    import numpy as np
    from decimal import Decimal

    c = comparar_tiempos(lambda: None, lambda: None, repeticiones=np.int64(5), presupuesto_s=np.float64(0.05))
    assert c.pares >= 5
    assert comparar_tiempos(lambda: None, lambda: None, presupuesto_s=Decimal("0.05")).pares >= 1
