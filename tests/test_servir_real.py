"""``transformers serve`` de verdad con el modelo diminuto, de principio a fin (lento: arranca servidores).

Sin descargas: el modelo se guarda en una carpeta temporal. Todo en 127.0.0.1, con tiempos límite.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from lentas import fixture_lenta

from curso_gpu.distribuido import sigue_vivo
from curso_gpu.servir import Servidor, ServidorNoArranca, guardar_para_servir, medir_carga

RAIZ = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.lento  # cada prueba arranca un servidor de verdad


@fixture_lenta(scope="module")
def carpeta(tmp_path_factory):
    from curso_gpu.ajuste import modelo_diminuto

    modelo, tokenizador = modelo_diminuto()
    return guardar_para_servir(modelo, tokenizador, tmp_path_factory.mktemp("servir") / "diminuto")


@fixture_lenta(scope="module")
def servidor(carpeta):
    with Servidor(carpeta, lotes_continuos=True, dispositivo="cpu", espera_s=240) as s:
        registro = s.registro
        yield s
    assert not s.vivo
    assert not registro.parent.exists()  # su carpeta temporal, borrada al parar


def test_sirve_el_modelo_diminuto_y_mide_la_carga(servidor):
    assert servidor.modelos() == [servidor.modelo]
    r = medir_carga(servidor.url + "/v1", servidor.modelo, usuarios=2, peticiones=4, max_tokens=8, limite_s=60)
    assert not r.errores, [p.detalle for p in r.peticiones]
    assert all(p.tokens_usage == 8 for p in r.peticiones)  # «usage» del servidor: lo pedido
    assert all(p.tokens_contados >= 1 for p in r.peticiones)
    assert 0 < r.ttft.p50 < r.latencia.p50 and r.tokens_por_segundo > 0
    chat = medir_carga(servidor.url, servidor.modelo, usuarios=1, peticiones=2, max_tokens=6, chat=True, limite_s=60)
    assert not chat.errores, [p.detalle for p in chat.peticiones]


def test_un_modelo_que_no_sirve_lo_dice_en_espanol(servidor):
    with pytest.raises(ValueError, match="no conoce el modelo 'Qwen/otro'"):
        medir_carga(servidor.url, "Qwen/otro", usuarios=1, peticiones=1, max_tokens=1)


def test_un_segundo_servidor_en_el_mismo_puerto_se_rechaza(servidor, carpeta):
    with pytest.raises(ValueError, match="ya está en uso"):
        Servidor(carpeta, puerto=servidor.puerto).iniciar()


def test_un_servidor_que_muere_al_arrancar_ensena_su_registro(tmp_path):
    roto = tmp_path / "roto"
    roto.mkdir()
    (roto / "config.json").write_text(json.dumps({"model_type": "no_existe"}))
    inicio = time.perf_counter()
    with pytest.raises(ServidorNoArranca, match="terminó al arrancar") as error:
        with Servidor(roto, dispositivo="cpu", espera_s=240):
            pass
    assert "no_existe" in str(error.value)  # las últimas líneas de su registro
    registro = Path(re.search(r"\((/[^)]*servidor\.log)\)", str(error.value))[1])
    assert "no_existe" in registro.read_text()  # y el registro que cita sigue ahí para leerlo entero
    shutil.rmtree(registro.parent)
    assert time.perf_counter() - inicio < 240


_DUENO = """
import sys, time
from curso_gpu.servir import Servidor
s = Servidor(sys.argv[1], dispositivo="cpu", registro=sys.argv[2]).iniciar()  # en tmp_path: nada queda en /tmp
print(s.proceso.pid, flush=True)
s.esperar()
print("listo", flush=True)
time.sleep(600)
"""


def test_sigkill_al_dueno_no_deja_ningun_servidor(carpeta, tmp_path):
    import psutil

    entorno = dict(os.environ, PYTHONPATH=str(RAIZ))
    dueno = subprocess.Popen([sys.executable, "-c", _DUENO, str(carpeta), str(tmp_path / "servidor.log")],
                             stdout=subprocess.PIPE, text=True, env=entorno, start_new_session=True)
    arbol = []
    try:
        pid = int(dueno.stdout.readline())
        assert dueno.stdout.readline().strip() == "listo"
        arbol = [psutil.Process(pid)] + psutil.Process(pid).children(recursive=True)  # con el proceso del modelo
        assert len(arbol) >= 2, "transformers serve 5.25 carga el modelo en un proceso hijo"
        os.kill(dueno.pid, signal.SIGKILL)
        dueno.wait(10)
        limite = time.monotonic() + 15  # prctl avisa al instante; el hilo de vigilar_padre, en 0.5 s + 3 s
        while time.monotonic() < limite and any(sigue_vivo(p) for p in arbol):
            time.sleep(0.2)
        assert not any(sigue_vivo(p) for p in arbol)
    finally:
        if dueno.poll() is None:
            dueno.kill()
            dueno.wait(10)
        for p in arbol:  # por si la prueba falló: nada queda vivo
            if sigue_vivo(p):
                p.kill()
