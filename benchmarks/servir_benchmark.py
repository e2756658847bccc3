"""¿Mide bien ``medir_carga``? Nuestras cifras frente a las de otra herramienta, en el mismo servidor y
en la misma ejecución. Lección 13.

    python benchmarks/servir_benchmark.py                   # transformers serve con el modelo diminuto
    python benchmarks/servir_benchmark.py --guidellm RUTA   # el ejecutable de GuideLLM (p. ej. de otro venv)

Arranca ``transformers serve`` con el modelo diminuto (guardado en una carpeta temporal: nada se
descarga), y mide la misma carga (``usuarios`` a la vez, ``peticiones`` peticiones de ``max_tokens``
tokens) **alternando** nuestra medida y la de la referencia, dos rondas cada una. Imprime las razones
nuestra / referencia de TTFT, TPOT y tokens/s (objetivo: entre 0.9 y 1.1).

La referencia, por orden:

1. **GuideLLM** (vllm-project/guidellm), si das su ejecutable con ``--guidellm`` o está en el PATH: la
   herramienta de carga de vLLM para servidores compatibles con OpenAI. Se le da la carpeta del modelo
   como tokenizador (cuenta tokens sin red) y la misma concurrencia. No va en ``requirements.txt``:
   instalarla en el entorno del curso bajaría versiones que el curso usa (multidict); va en su propio
   entorno (``python -m venv /tmp/guidellm && /tmp/guidellm/bin/pip install guidellm``). Probado el 7 de
   diciembre de 2026 con GuideLLM 0.8.1 contra ``transformers serve`` 5.25. Con ``output_tokens`` en sus
   datos, GuideLLM añade ``"ignore_eos": true`` (una extensión de vLLM) y ``transformers serve`` lo
   rechaza: «422 Unprocessable Entity», «Unexpected fields in the request: {'ignore_eos'}». Por eso el
   largo de la respuesta va en el backend (``max_tokens=…``), que GuideLLM envía como ``max_tokens`` solo.
2. Si no hay GuideLLM (o no da cifras): el **cliente oficial ``openai``** (el SDK que usa cualquier programa para la API),
   en streaming, un hilo por usuario, cronometrando el primer trozo con texto y el último. No es una
   herramienta de carga, pero es una implementación independiente de la nuestra (otro cliente HTTP,
   otro lector de SSE) y, con pocos usuarios, no es un cuello de botella (lo es con cientos:
   vllm-project/vllm#7935). Así la razón compara dos formas de medir lo mismo, no dos servidores.

Medido aquí (7 de diciembre de 2026, CPU de 2 núcleos compartida, ``transformers serve`` con lotes
continuos, 4 usuarios, 16 peticiones). Con **GuideLLM 0.8.1** (ronda alternada, tres ejecuciones): tokens/s
0.93, 0.97 y 1.22; TPOT 1.03 con 64 tokens (1.66 con 32); TTFT 0.63–0.66 siempre. El TTFT es de unos 8 ms
y GuideLLM lo cuenta desde antes de preparar la petición en su planificador: unos 4 ms más que nosotros,
que es toda la diferencia a esta escala. Con el **cliente openai**: 4 usuarios, TTFT 0.70, TPOT 0.75,
tokens/s 1.30; 1 usuario, 0.59, 1.32 y 1.11 (el cliente tarda unos 9 ms más en entregar el primer
trozo: construye la petición y valida cada trozo con pydantic). Con tiempos de milisegundos, unos pocos
ms de cliente sacan la razón de 0.9–1.1; con un modelo de verdad en una GPU (TTFT de decenas de ms y más)
pesan mucho menos. Las pruebas con el servidor falso (``tests/test_servir.py``) son las que demuestran
que nuestros tiempos son los programados.

En una GPU, ``comprobar_en_gpu`` (el gancho de ``validar_en_gpu.py``) sirve el modelo con
``transformers serve`` en CUDA y, si vLLM está instalado, también con ``vllm serve``, y hace el barrido de
1, 2, 4 y 8 usuarios de la lección.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

RAIZ = Path(__file__).resolve().parent.parent
if str(RAIZ) not in sys.path:  # para ejecutarlo sin instalar el paquete
    sys.path.insert(0, str(RAIZ))

from curso_gpu.servir import PROMPT, Servidor, barrer_concurrencia, guardar_para_servir, hay_vllm, medir_carga  # noqa: E402

OBJETIVO = (0.9, 1.1)


def guardar_diminuto(carpeta: Path) -> Path:
    from curso_gpu.ajuste import modelo_diminuto

    modelo, tokenizador = modelo_diminuto(semilla=0)
    return guardar_para_servir(modelo, tokenizador, carpeta / "diminuto")


# --- Nuestra medida ------------------------------------------------------------------------------
def medir_nuestro(url: str, modelo: str, usuarios: int, peticiones: int, max_tokens: int) -> dict:
    r = medir_carga(url, modelo, usuarios=usuarios, peticiones=peticiones, max_tokens=max_tokens, barra_progreso=False)
    if r.errores:
        raise RuntimeError(f"medir_carga tuvo errores: {r.errores}")
    return {"ttft": r.ttft.p50, "tpot": r.tpot.p50, "tokens_s": r.tokens_por_segundo}


# --- Referencia 1: el cliente openai, un hilo por usuario ----------------------------------------
def medir_con_openai(url: str, modelo: str, usuarios: int, peticiones: int, max_tokens: int) -> dict:
    from openai import OpenAI

    cliente = OpenAI(base_url=url + "/v1", api_key="x", timeout=120, max_retries=0)
    pendientes = list(range(peticiones))
    candado = threading.Lock()
    medidas: list[tuple[float, float, int]] = []  # (ttft, latencia, tokens)

    def usuario() -> None:
        while True:
            with candado:
                if not pendientes:
                    return
                pendientes.pop()
            inicio = time.perf_counter()
            primero, tokens = None, None
            flujo = cliente.completions.create(model=modelo, prompt=PROMPT, max_tokens=max_tokens, stream=True,
                                               stream_options={"include_usage": True})
            for trozo in flujo:
                if trozo.choices and trozo.choices[0].text and primero is None:
                    primero = time.perf_counter() - inicio
                if trozo.usage is not None:
                    tokens = trozo.usage.completion_tokens
            with candado:
                medidas.append((primero, time.perf_counter() - inicio, tokens))

    hilos = [threading.Thread(target=usuario) for _ in range(usuarios)]
    inicio = time.perf_counter()
    for h in hilos:
        h.start()
    for h in hilos:
        h.join(300)
    duracion = time.perf_counter() - inicio
    return {"ttft": statistics.median(m[0] for m in medidas),
            "tpot": statistics.median((m[1] - m[0]) / (m[2] - 1) for m in medidas if m[2] and m[2] > 1),
            "tokens_s": sum(m[2] for m in medidas) / duracion}


# --- Referencia 2: GuideLLM ----------------------------------------------------------------------
def medir_con_guidellm(ejecutable: str, url: str, modelo: str, carpeta_modelo: Path, usuarios: int, peticiones: int,
                       max_tokens: int) -> dict:
    entrada = len(PROMPT)  # el tokenizador diminuto: un token por carácter
    with tempfile.TemporaryDirectory() as carpeta:
        salida = Path(carpeta) / "guidellm.json"
        orden = [ejecutable, "run",  # la sintaxis de GuideLLM 0.8 («kind=…,clave=valor»)
                 # max_tokens en el backend, no output_tokens en los datos: así no envía ignore_eos (ver arriba)
                 "--backend", f"kind=openai_http,target={url},model={modelo},request_format=/v1/completions,"
                              f"max_tokens={max_tokens}",
                 "--profile", f"kind=concurrent,streams={usuarios}",
                 "--constraint", f"kind=max_requests,count={peticiones}",
                 "--tokenizer", f"kind=hf_auto,model={carpeta_modelo}",
                 "--data", f"kind=synthetic_text,prompt_tokens={entrada}",
                 "--output", f"kind=json,path={salida}", "--disable-console-interactive"]
        hecho = subprocess.run(orden, capture_output=True, text=True, timeout=600,
                               env={"HF_HUB_OFFLINE": "1", "PATH": "/usr/bin:/bin", "HOME": carpeta})
        if hecho.returncode != 0 or not salida.is_file():
            raise RuntimeError(f"GuideLLM falló ({hecho.returncode}): {(hecho.stderr or hecho.stdout)[-1500:]}")
        resultado = leer_guidellm(json.loads(salida.read_text()))
        if resultado is None:
            raise RuntimeError("GuideLLM contó todas las peticiones como error: mira el registro del servidor "
                               "(¿un 422 por un campo que no conoce?). Usa la referencia del cliente openai (sin --guidellm).")
        return resultado


def leer_guidellm(datos: dict) -> dict:
    """TTFT y TPOT (mediana, en segundos) y tokens/s de salida del primer benchmark del JSON de GuideLLM."""
    metricas = datos["benchmarks"][0]["metrics"]
    if not metricas["request_totals"].get("successful"):
        return None

    def mediana(nombre: str) -> float:
        m = metricas[nombre]
        m = m.get("successful", m)
        return m["median"]

    # TPOT como el nuestro (y el de vllm bench serve): sin el primer token. En GuideLLM es
    # inter_token_latency_ms; su time_per_output_token_ms reparte también el TTFT entre los tokens.
    return {"ttft": mediana("time_to_first_token_ms") / 1000, "tpot": mediana("inter_token_latency_ms") / 1000,
            "tokens_s": metricas["output_tokens_per_second"].get("successful", metricas["output_tokens_per_second"])["mean"]}


# --- La comparación ------------------------------------------------------------------------------
def razones(nuestro: list[dict], referencia: list[dict]) -> dict[str, float]:
    return {k: statistics.median(n[k] for n in nuestro) / statistics.median(r[k] for r in referencia)
            for k in ("ttft", "tpot", "tokens_s")}


def comparar(url: str, modelo: str, carpeta_modelo: Path, usuarios: int, peticiones: int, max_tokens: int,
             guidellm: str | None, rondas: int = 2) -> tuple[str, dict]:
    if guidellm:
        nombre = "GuideLLM"

        def referencia():
            return medir_con_guidellm(guidellm, url, modelo, carpeta_modelo, usuarios, peticiones, max_tokens)
    else:
        nombre = "el cliente openai (sin GuideLLM: ver el docstring)"

        def referencia():
            return medir_con_openai(url, modelo, usuarios, peticiones, max_tokens)
    medir_nuestro(url, modelo, usuarios, peticiones, max_tokens)  # calentar
    nuestro, suyo = [], []
    for ronda in range(rondas):  # alternados: nuestro, suyo; suyo, nuestro
        pasos = [("n", None), ("r", None)] if ronda % 2 == 0 else [("r", None), ("n", None)]
        for clave, _ in pasos:
            if clave == "n":
                nuestro.append(medir_nuestro(url, modelo, usuarios, peticiones, max_tokens))
            else:
                suyo.append(referencia())
    return nombre, {"nuestro": nuestro, "referencia": suyo, "razones": razones(nuestro, suyo)}


def main(argv=None) -> int:
    analizador = argparse.ArgumentParser(description="medir_carga frente a otra herramienta, en el mismo servidor.")
    analizador.add_argument("--guidellm", help="el ejecutable de GuideLLM (por defecto, el del PATH si lo hay)")
    analizador.add_argument("--usuarios", type=int, default=4)
    analizador.add_argument("--peticiones", type=int, default=16)
    analizador.add_argument("--max-tokens", type=int, default=32)
    args = analizador.parse_args(argv)
    guidellm = args.guidellm or shutil.which("guidellm")
    with tempfile.TemporaryDirectory() as carpeta:
        modelo = guardar_diminuto(Path(carpeta))
        inicio = time.perf_counter()
        with Servidor(modelo, lotes_continuos=True, dispositivo="cpu", espera_s=300) as servidor:
            print(f"transformers serve listo en {servidor.segundos_arranque:.1f} s (CPU, lotes continuos)")
            nombre, datos = comparar(servidor.url, servidor.modelo, modelo, args.usuarios, args.peticiones,
                                     args.max_tokens, guidellm)
    print(f"Referencia: {nombre}. {args.usuarios} usuarios, {args.peticiones} peticiones de {args.max_tokens} tokens, "
          f"2 rondas alternadas ({time.perf_counter() - inicio:.0f} s en total).")
    for clave, titulo in (("ttft", "TTFT p50"), ("tpot", "TPOT p50"), ("tokens_s", "tokens/s")):
        n = statistics.median(x[clave] for x in datos["nuestro"])
        r = statistics.median(x[clave] for x in datos["referencia"])
        razon = datos["razones"][clave]
        dentro = OBJETIVO[0] <= razon <= OBJETIVO[1]
        unidad = "tokens/s" if clave == "tokens_s" else "ms"
        escala = 1 if clave == "tokens_s" else 1000
        print(f"  {titulo:<9} nuestro {n * escala:9.2f} {unidad}, referencia {r * escala:9.2f} {unidad}: "
              f"razón {razon:.2f} {'(dentro de 0.9–1.1)' if dentro else '(fuera de 0.9–1.1)'}")
    return 0


# --- El gancho de validar_en_gpu.py --------------------------------------------------------------
def comprobar_en_gpu(gpu=None, rapido: bool = True) -> list[str]:
    """Líneas «PASS …» / «FAIL …»: el diminuto servido en la GPU con transformers serve (y vLLM si está). Lección 13."""
    import torch

    if not torch.cuda.is_available():
        return ["SKIP servir en la GPU: no hay GPU con CUDA"]
    lineas = []
    motores = ["transformers"] + (["vllm"] if hay_vllm() else [])
    with tempfile.TemporaryDirectory() as carpeta:
        modelo = guardar_diminuto(Path(carpeta))
        for motor in motores:
            extra = ["--dtype", "half"] if motor == "vllm" else []
            try:
                with Servidor(modelo, motor=motor, dispositivo="cuda" if motor == "transformers" else None,
                              lotes_continuos=True, extra=extra, espera_s=600) as servidor:
                    barrido = barrer_concurrencia(servidor.url, servidor.modelo, usuarios=(1, 2, 4, 8),
                                                  peticiones_por_usuario=2 if rapido else 8, max_tokens=32)
            except (RuntimeError, OSError, ValueError) as error:
                lineas.append(f"FAIL {motor} serve en la GPU arranca: {str(error)[-800:]}")
                continue
            errores = sum(sum(r.errores.values()) for r in barrido.resultados)
            lineas.append(f"PASS {motor} serve en la GPU arranca: {servidor.segundos_arranque:.1f} s")
            lineas.append(f"{'PASS' if not errores else 'FAIL'} {motor}: barrido 1, 2, 4, 8 usuarios sin errores: "
                          f"{errores} errores; tokens/s " +
                          ", ".join(f"{r.usuarios}→{r.tokens_por_segundo:.0f}" for r in barrido.resultados) +
                          f"; rodilla {barrido.rodilla}")
            uno, ocho = barrido.resultados[0], barrido.resultados[-1]
            lineas.append(f"{'PASS' if ocho.tokens_por_segundo > uno.tokens_por_segundo else 'FAIL'} {motor}: 8 "
                          f"usuarios dan más tokens/s que 1: {uno.tokens_por_segundo:.0f} → {ocho.tokens_por_segundo:.0f}")
    return lineas


if __name__ == "__main__":
    sys.exit(main())
