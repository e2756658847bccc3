"""``medir_carga`` contra un servidor falso con tiempos programados: lo que mide es lo que pasó.

Todo el tráfico va a 127.0.0.1, en este proceso (sin subprocesos: es la vuelta rápida), con un número
acotado de peticiones y un tiempo límite en cada una.
"""

import math
import socket
import time

import pytest
from servidor_falso import Guion, ServidorFalso

from curso_gpu.servir import (
    BarridoCarga,
    Peticion,
    ResultadoCarga,
    Servidor,
    barrer_concurrencia,
    base_de,
    comparar_servidores,
    medir_carga,
    percentil,
)

TOLERANCIA_S = 0.03  # el reloj de asyncio con la máquina cargada (dos hilos, un GIL)


def test_ttft_y_huecos_programados_se_miden_dentro_de_la_tolerancia():
    with ServidorFalso(Guion(ttft_s=0.08, hueco_s=0.03, tokens=6)) as falso:
        r = medir_carga(falso.url, "falso", usuarios=2, peticiones=4, max_tokens=6)
    assert not r.errores
    assert 0.08 <= r.ttft.p50 <= 0.08 + TOLERANCIA_S
    assert 0.03 - 0.005 <= r.itl.p50 <= 0.03 + TOLERANCIA_S
    assert 0.03 - 0.005 <= r.tpot.p50 <= 0.03 + TOLERANCIA_S
    assert all(len(p.huecos) == 5 for p in r.peticiones)
    esperada = 0.08 + 5 * 0.03
    assert esperada <= r.latencia.p50 <= esperada + 2 * TOLERANCIA_S


def test_cuenta_los_tokens_exactos_y_coinciden_con_usage():
    with ServidorFalso(Guion(ttft_s=0.005, hueco_s=0.001, tokens=10)) as falso:
        r = medir_carga(falso.url, "falso", usuarios=3, peticiones=7, max_tokens=4)
    assert [p.tokens_contados for p in r.peticiones] == [4] * 7
    assert [p.tokens_usage for p in r.peticiones] == [4] * 7
    assert r.tokens_salida == 28 and r.desajustes_usage == 0
    assert r.tokens_por_segundo == pytest.approx(28 / r.duracion_s)
    assert r.peticiones_por_segundo == pytest.approx(7 / r.duracion_s)


def test_sin_usage_cuenta_los_trozos_y_el_rol_del_chat_no_es_el_primer_token():
    with ServidorFalso(Guion(ttft_s=0.06, hueco_s=0.001, tokens=5, usage=False)) as falso:
        r = medir_carga(falso.url, "falso", usuarios=1, peticiones=2, max_tokens=5, chat=True)
    assert all(p.tokens_usage is None and p.tokens == 5 for p in r.peticiones)
    assert r.ttft.p50 >= 0.06  # el trozo del rol llega antes, pero no trae texto


def test_al_recibir_ve_cada_trozo_de_texto_en_cuanto_llega():
    llegados = []
    with ServidorFalso(Guion(ttft_s=0.005, hueco_s=0.02, tokens=4)) as falso:
        inicio = time.perf_counter()
        r = medir_carga(falso.url, "falso", usuarios=1, peticiones=1, max_tokens=4,
                        al_recibir=lambda texto: llegados.append((texto, time.perf_counter() - inicio)))
    assert [t for t, _ in llegados] and len(llegados) == r.peticiones[0].tokens_contados == 4
    assert llegados[-1][1] - llegados[0][1] >= 3 * 0.02 - 0.005  # uno a uno, no todos al final
    with pytest.raises(ValueError, match="al_recibir debe ser una función"):
        medir_carga("http://127.0.0.1:9", "falso", usuarios=1, peticiones=1, max_tokens=1, al_recibir="print")


@pytest.mark.parametrize("usuarios", [1, 3])
def test_nunca_hay_mas_de_usuarios_en_curso(usuarios):
    with ServidorFalso(Guion(ttft_s=0.02, hueco_s=0.005, tokens=3)) as falso:
        r = medir_carga(falso.url, "falso", usuarios=usuarios, peticiones=9, max_tokens=3)
        assert falso.maximo == usuarios
    assert r.concurrencia_maxima == usuarios and len(r.bien) == 9


def test_llegadas_de_poisson_con_semilla_y_tope_de_usuarios():
    with ServidorFalso(Guion(ttft_s=0.03, hueco_s=0.005, tokens=3)) as falso:
        a = medir_carga(falso.url, "falso", usuarios=2, peticiones=8, max_tokens=3, llegadas=200.0, semilla=1)
        assert falso.maximo <= 2
    assert a.concurrencia_maxima <= 2 and len(a.bien) == 8
    with ServidorFalso(Guion(ttft_s=0.001, hueco_s=0.001, tokens=2)) as falso:
        b = medir_carga(falso.url, "falso", usuarios=50, peticiones=6, max_tokens=2, llegadas=20.0, semilla=3)
        c = medir_carga(falso.url, "falso", usuarios=50, peticiones=6, max_tokens=2, llegadas=20.0, semilla=3)
    # Misma semilla, mismos momentos de llegada (al ritmo de 20/s, unos 50 ms entre una y otra).
    for x, y in zip(b.peticiones, c.peticiones):
        assert x.inicio == pytest.approx(y.inicio, abs=0.03)
    assert b.peticiones[-1].inicio > 0.05


def test_un_corte_a_mitad_de_respuesta_es_un_error_y_no_se_cuelga():
    with ServidorFalso(Guion(ttft_s=0.01, hueco_s=0.01, tokens=8, cortar={1}, cortar_tras=3)) as falso:
        inicio = time.perf_counter()
        r = medir_carga(falso.url, "falso", usuarios=2, peticiones=4, max_tokens=8, limite_s=10)
        assert time.perf_counter() - inicio < 5
    assert r.errores == {"corte": 1}
    assert len(r.bien) == 3 and r.tokens_salida == 24  # la cortada no cuenta
    assert "corte: 1" in str(r)


@pytest.mark.parametrize("cortar_tras", [-1, 3], ids=["antes_de_las_cabeceras", "a_mitad"])
def test_un_reset_de_la_conexion_tambien_es_un_corte(cortar_tras):
    """Un proceso que muere con datos sin leer manda un RST, no un cierre: aiohttp da ClientOSError
    (errno ECONNRESET), que también es un corte, no un error de otro tipo."""
    guion = Guion(ttft_s=0.01, hueco_s=0.01, tokens=8, cortar={0}, cortar_tras=cortar_tras, con_rst=True)
    with ServidorFalso(guion) as falso:
        r = medir_carga(falso.url, "falso", usuarios=1, peticiones=2, max_tokens=8, limite_s=10)
    assert r.errores == {"corte": 1} and len(r.bien) == 1
    cortada = r.peticiones[0]
    assert cortada.tokens_contados == max(cortar_tras, 0)
    assert "ClientOSError" in cortada.detalle or "ClientPayloadError" in cortada.detalle


def test_un_500_cuenta_por_su_tipo_y_el_goodput_lo_descuenta():
    with ServidorFalso(Guion(ttft_s=0.01, hueco_s=0.002, tokens=4, errores_http={0})) as falso:
        r = medir_carga(falso.url, "falso", usuarios=1, peticiones=4, max_tokens=4)
    assert r.errores == {"HTTP 500": 1}
    assert r.goodput({"ttft": 10.0, "tpot": 10.0}) == pytest.approx(0.75)
    assert r.goodput({"ttft": 1e-6}) == 0.0


def test_una_respuesta_que_no_termina_a_tiempo_cuenta_como_tiempo():
    with ServidorFalso(Guion(ttft_s=0.01, hueco_s=0.5, tokens=20)) as falso:
        inicio = time.perf_counter()
        r = medir_carga(falso.url, "falso", usuarios=1, peticiones=1, max_tokens=20, limite_s=0.3)
        assert time.perf_counter() - inicio < 3
    assert r.errores == {"tiempo": 1}


def test_percentiles_y_goodput_a_mano():
    assert percentil([1, 2, 3, 4], 50) == 2.5
    assert percentil([5], 99) == 5 and math.isnan(percentil([], 50))
    peticiones = [Peticion(0, ttft=0.1, huecos=[0.01] * 9, latencia=0.19, tokens_contados=10),
                  Peticion(0, ttft=0.5, huecos=[0.05] * 9, latencia=0.95, tokens_contados=10)]
    r = ResultadoCarga(peticiones, 1.0, 2, None, 10, 2, "http://127.0.0.1:1", "m")
    assert r.tpot.p50 == pytest.approx(0.03)
    assert r.goodput({"ttft": 0.2, "tpot": 0.02}) == 0.5
    assert r.goodput({"ttft": 1, "tpot": 1}) == 1.0


def test_barrido_y_rodilla_contra_el_falso():
    with ServidorFalso(Guion(ttft_s=0.02, hueco_s=0.005, tokens=4)) as falso:
        b = barrer_concurrencia(falso.url, "falso", usuarios=(1, 2, 4), peticiones_por_usuario=2, max_tokens=4)
    assert isinstance(b, BarridoCarga) and b.usuarios == [1, 2, 4]
    # El falso no se satura (cada petición espera, no calcula): doblar usuarios dobla los tokens/s.
    assert b.resultados[2].tokens_por_segundo > 2.5 * b.resultados[0].tokens_por_segundo
    assert b.rodilla == 4 and "más allá de lo medido" in b.frase()
    assert "usuarios" in str(b)


def test_comparar_servidores_dice_cual_es_mas_rapido_con_sus_datos():
    with ServidorFalso(Guion(ttft_s=0.005, hueco_s=0.002, tokens=4)) as rapido, \
            ServidorFalso(Guion(ttft_s=0.06, hueco_s=0.02, tokens=4)) as lento:
        c = comparar_servidores(lento.url, "falso", rapido.url, "falso", nombres=("lento", "rápido"),
                                usuarios=2, peticiones=2, max_tokens=4, rondas=5)
    assert c.pares == 5 and "rápido" in c.veredicto
    assert c.veces > 2


# --- Entradas malas: errores en español --------------------------------------------------------

def test_usuarios_cero_se_rechaza_en_espanol():
    with pytest.raises(ValueError, match="usuarios"):
        medir_carga("http://127.0.0.1:9", "m", usuarios=0, peticiones=1, max_tokens=1)
    with pytest.raises(ValueError, match="de menos a más"):
        barrer_concurrencia("http://127.0.0.1:9", "m", usuarios=(4, 2))


def test_una_url_que_rechaza_conexiones_lo_dice_en_espanol():
    with socket.socket() as s:  # un puerto que nadie escucha
        s.bind(("127.0.0.1", 0))
        puerto = s.getsockname()[1]
    inicio = time.perf_counter()
    with pytest.raises(ConnectionError, match="No hay ningún servidor que responda"):
        medir_carga(f"http://127.0.0.1:{puerto}/v1", "m", usuarios=1, peticiones=1, max_tokens=1)
    assert time.perf_counter() - inicio < 5
    with pytest.raises(ValueError, match="http://"):
        medir_carga("127.0.0.1:8000", "m", usuarios=1, peticiones=1, max_tokens=1)


def test_un_modelo_que_el_servidor_no_conoce_lo_dice_y_da_los_que_hay():
    with ServidorFalso() as falso:
        with pytest.raises(ValueError, match="no conoce el modelo 'otro'.*'falso'"):
            medir_carga(falso.url, "otro", usuarios=1, peticiones=1, max_tokens=1)


def test_base_de_quita_v1_y_la_barra():
    assert base_de("http://127.0.0.1:8000/v1/") == "http://127.0.0.1:8000"
    assert base_de(" http://127.0.0.1:8000 ") == "http://127.0.0.1:8000"


def test_servidor_carpeta_inexistente_o_sin_config(tmp_path):
    with pytest.raises(FileNotFoundError, match="No existe la carpeta"):
        Servidor(tmp_path / "no_esta")
    with pytest.raises(FileNotFoundError, match="no tiene config.json"):
        Servidor(tmp_path)
    with pytest.raises(ValueError, match="motor"):
        Servidor("Qwen/Qwen2.5-0.5B-Instruct", motor="tgi")


def test_servidor_puerto_ocupado_se_rechaza_antes_de_arrancar(tmp_path):
    (tmp_path / "config.json").write_text("{}")
    with socket.socket() as ocupado:
        ocupado.bind(("127.0.0.1", 0))
        ocupado.listen()
        servidor = Servidor(tmp_path, puerto=ocupado.getsockname()[1], motor="transformers")
        with pytest.raises(ValueError, match="ya está en uso"):
            servidor.iniciar()
    assert servidor.proceso is None


def test_servidor_sin_transformers_serving_lo_dice(tmp_path, monkeypatch):
    import importlib.util

    (tmp_path / "config.json").write_text("{}")
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda n, *a: None if n == "fastapi" else real(n, *a))
    with pytest.raises(ModuleNotFoundError, match=r"pip install \"transformers\[serving\]\""):
        Servidor(tmp_path, motor="transformers").iniciar()


def test_la_orden_es_la_de_transformers_serve_en_loopback(tmp_path):
    (tmp_path / "config.json").write_text("{}")
    orden = Servidor(tmp_path, lotes_continuos=True, dispositivo="cpu", max_model_len=128, puerto=8123).orden()
    assert orden[:3] == ["transformers", "serve", str(tmp_path.resolve())]
    assert "--continuous-batching" in orden and orden[orden.index("--host") + 1] == "127.0.0.1"
    assert orden[orden.index("--cb-num-blocks") + 1] == "128"  # en la CPU, sin esto reserva 14 GB
    propio = Servidor(tmp_path, lotes_continuos=True, dispositivo="cpu", extra=["--cb-num-blocks", "8"]).orden()
    assert propio.count("--cb-num-blocks") == 1
    assert orden[orden.index("--max-model-len") + 1] == "128"
    vllm = Servidor(tmp_path, motor="vllm", puerto=8123, extra=["--dtype", "half"]).orden()
    assert vllm[:2] == ["vllm", "serve"] and vllm[-2:] == ["--dtype", "half"]
