"""Muchos usuarios a la vez contra un servidor compatible con OpenAI: ``medir_carga``. Lección 13.

Cada petición pide la respuesta en *streaming* (eventos del servidor, SSE: líneas ``data: {...}``) y se
cronometra trozo a trozo. Dos formas de generar la carga:

- **lazo cerrado** (``llegadas=None``): ``usuarios`` usuarios; cada uno manda su petición, espera la
  respuesta entera y manda la siguiente. Nunca hay más de ``usuarios`` en curso.
- **llegadas de Poisson** (``llegadas=λ`` peticiones por segundo, con ``semilla``): las peticiones
  llegan al azar, como las de gente que no se conoce; ``usuarios`` sigue siendo el tope en curso.

El cliente HTTP es ``aiohttp``, el mismo que usa el banco de pruebas de vLLM (``vllm bench serve``):
asíncrono, con un solo hilo para cientos de conexiones. No usamos el cliente ``openai``: con mucha
concurrencia el cuello de botella pasa a ser el propio cliente y no el servidor (lo midió Stas Bekman en
vllm-project/vllm#7935), y entonces medirías tu cliente, no tu servidor.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import errno
import json
import random
import time
from urllib.parse import urlsplit

from ..base import barra, leer_numero, mostrar_valor
from .resultados import Peticion, ResultadoCarga

__all__ = ["PROMPT", "base_de", "medir_carga", "modelos_del_servidor"]

PROMPT = "La GPU hace muchas cuentas a la vez. "
"""La entrada por defecto: una frase del texto de la lección 09."""

_BARRA_DESDE = 64  # con tantas peticiones o más, una barra de progreso
_ESPERA_CONEXION_S = 10.0


def base_de(url) -> str:
    """``http://127.0.0.1:8000`` a partir de esa dirección con o sin ``/v1`` (y sin la barra final)."""
    if not isinstance(url, str) or not url.strip():
        raise ValueError(f"url debe ser la dirección del servidor como texto, p. ej. 'http://127.0.0.1:8000' "
                         f"(o servidor.url); recibí {mostrar_valor(url)}.")
    texto = url.strip().rstrip("/")
    partes = urlsplit(texto)
    if partes.scheme not in ("http", "https") or not partes.netloc:
        raise ValueError(f"url debe empezar por http:// y tener anfitrión y puerto, p. ej. 'http://127.0.0.1:8000'; "
                         f"recibí {url!r}.")
    return texto[: -len("/v1")] if texto.endswith("/v1") else texto


def _ejecutar(corrutina):
    """Ejecuta ``corrutina`` y devuelve su resultado, también dentro de Jupyter (que ya tiene su bucle)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(corrutina)
    with concurrent.futures.ThreadPoolExecutor(1) as hilo:  # un bucle propio, en otro hilo
        return hilo.submit(asyncio.run, corrutina).result()


async def _modelos(base: str) -> list[str] | None:
    import aiohttp

    tiempo = aiohttp.ClientTimeout(total=_ESPERA_CONEXION_S)
    try:
        async with aiohttp.ClientSession(timeout=tiempo) as sesion:
            async with sesion.get(base + "/v1/models") as respuesta:
                if respuesta.status != 200:
                    return None  # sin la lista no se puede comprobar el nombre: lo dirá cada petición
                datos = await respuesta.json(content_type=None)
    except (aiohttp.ClientConnectorError, ConnectionError, OSError, asyncio.TimeoutError) as error:
        raise ConnectionError(f"No hay ningún servidor que responda en {base} ({type(error).__name__}). Arráncalo "
                              "antes (with Servidor(carpeta) as servidor: …) y usa servidor.url, o revisa el puerto.") from None
    return [m.get("id") for m in datos.get("data", []) if isinstance(m, dict)]


def modelos_del_servidor(url) -> list[str] | None:
    """Los nombres de modelo que acepta el servidor (``GET /v1/models``); None si no da la lista."""
    return _ejecutar(_modelos(base_de(url)))


def _texto_del_trozo(trozo: dict) -> str:
    """El texto de un trozo: ``choices[0].text`` (completions) o ``choices[0].delta.content`` (chat)."""
    opciones = trozo.get("choices") or []
    if not opciones:
        return ""
    primera = opciones[0]
    texto = primera.get("text")
    if texto is None:
        texto = (primera.get("delta") or {}).get("content")  # el primer trozo del chat solo trae el rol
    return texto or ""


async def _una(sesion, direccion: str, cuerpo: dict, inicio_carga: float, limite_s: float, al_recibir=None) -> Peticion:
    import aiohttp

    enviada = time.perf_counter()
    peticion = Peticion(inicio=enviada - inicio_carga)

    async def leer() -> bool:
        """Lee la respuesta trozo a trozo; True si llegó su final (``finish_reason`` o ``[DONE]``)."""
        ultimo, terminada = None, False
        async with sesion.post(direccion, json=cuerpo) as respuesta:
            if respuesta.status != 200:
                peticion.error = f"HTTP {respuesta.status}"
                peticion.detalle = (await respuesta.text())[:300]
                return True
            async for linea in respuesta.content:  # una línea SSE por vuelta
                linea = linea.strip()
                if not linea.startswith(b"data:"):
                    continue
                datos = linea[5:].strip()
                if datos == b"[DONE]":
                    return True
                trozo = json.loads(datos)
                ahora = time.perf_counter()
                if trozo.get("usage"):
                    peticion.tokens_usage = trozo["usage"].get("completion_tokens")
                if any(o.get("finish_reason") for o in trozo.get("choices") or []):
                    terminada = True
                texto = _texto_del_trozo(trozo)
                if texto:
                    if al_recibir is not None:
                        al_recibir(texto)
                    if ultimo is None:
                        peticion.ttft = ahora - enviada
                    else:
                        peticion.huecos.append(ahora - ultimo)
                    ultimo = ahora
                    peticion.tokens_contados += 1
        return terminada

    try:
        terminada = await asyncio.wait_for(leer(), limite_s)
        if peticion.error is None:
            peticion.latencia = time.perf_counter() - enviada
            if not terminada:
                peticion.error, peticion.detalle = "corte", "el servidor cerró la respuesta antes de terminarla"
    except asyncio.TimeoutError:
        peticion.error, peticion.detalle = "tiempo", f"sin terminar en {limite_s:g} s"
    except (aiohttp.ClientPayloadError, aiohttp.ServerDisconnectedError, ConnectionResetError) as error:
        peticion.error, peticion.detalle = "corte", f"{type(error).__name__}: {error}"[:300]
    except (aiohttp.ClientConnectorError, ConnectionRefusedError) as error:
        peticion.error, peticion.detalle = "conexión", f"{type(error).__name__}: {error}"[:300]
    except aiohttp.ClientOSError as error:  # un RST (el proceso murió con datos sin leer) también es un corte
        cortada = error.errno in (errno.ECONNRESET, errno.EPIPE)
        peticion.error = "corte" if cortada else type(error).__name__
        peticion.detalle = f"{type(error).__name__}: {error}"[:300]
    except (aiohttp.ClientError, json.JSONDecodeError, UnicodeDecodeError) as error:
        peticion.error, peticion.detalle = type(error).__name__, str(error)[:300]
    return peticion


async def _carga(base, modelo, usuarios, peticiones, max_tokens, prompt, llegadas, semilla, chat, limite_s,
                 mostrar_barra, al_recibir=None) -> tuple[list[Peticion], float, int]:
    import aiohttp

    if chat:
        direccion = base + "/v1/chat/completions"
        cuerpo = {"model": modelo, "messages": [{"role": "user", "content": prompt}]}
    else:
        direccion = base + "/v1/completions"
        cuerpo = {"model": modelo, "prompt": prompt}
    cuerpo.update(max_tokens=max_tokens, stream=True, stream_options={"include_usage": True})
    en_curso = maximo = 0
    resultados: list[Peticion] = []
    progreso = barra(peticiones, "Peticiones", silenciosa=not mostrar_barra)

    async def una(sesion, inicio) -> None:
        nonlocal en_curso, maximo
        en_curso += 1
        maximo = max(maximo, en_curso)
        try:
            resultados.append(await _una(sesion, direccion, cuerpo, inicio, limite_s, al_recibir))
        finally:
            en_curso -= 1
            progreso.update(1)

    conector = aiohttp.TCPConnector(limit=usuarios, force_close=False)
    try:
        async with aiohttp.ClientSession(connector=conector, timeout=aiohttp.ClientTimeout(total=None)) as sesion:
            inicio = time.perf_counter()
            if llegadas is None:  # lazo cerrado: cada usuario, una petición tras otra
                pendientes = iter(range(peticiones))

                async def usuario() -> None:
                    for _ in pendientes:
                        await una(sesion, inicio)

                await asyncio.gather(*(usuario() for _ in range(min(usuarios, peticiones))))
            else:  # llegadas de Poisson: huecos exponenciales de media 1/λ, con semilla
                azar = random.Random(semilla)
                puertas = asyncio.Semaphore(usuarios)
                tareas, momento = [], 0.0

                async def llegar(t: float) -> None:
                    await asyncio.sleep(max(0.0, inicio + t - time.perf_counter()))
                    async with puertas:
                        await una(sesion, inicio)

                for _ in range(peticiones):
                    tareas.append(asyncio.ensure_future(llegar(momento)))
                    momento += azar.expovariate(llegadas)
                await asyncio.gather(*tareas)
            duracion = time.perf_counter() - inicio
    finally:
        progreso.close()
    resultados.sort(key=lambda p: p.inicio)
    return resultados, duracion, maximo


def medir_carga(url, modelo, *, usuarios: int, peticiones: int, max_tokens: int, prompt: str = PROMPT,
                llegadas: float | None = None, semilla: int = 0, chat: bool = False, limite_s: float = 120,
                barra_progreso: bool | None = None, nota: str = "", al_recibir=None) -> ResultadoCarga:
    """Manda ``peticiones`` peticiones en streaming al servidor de ``url`` y las mide. Lección 13.

    ``url``: la dirección base (``servidor.url``), con o sin ``/v1``. ``modelo``: el nombre que el
    servidor acepta (``servidor.modelo``). ``usuarios``: cuántas en curso a la vez, como mucho.
    ``llegadas``: None (lazo cerrado) o peticiones por segundo de Poisson, con ``semilla``. ``chat``:
    ``/v1/chat/completions`` en vez de ``/v1/completions``. ``limite_s``: cada petición que tarde más
    cuenta como error «tiempo» (nunca se queda colgada). ``barra_progreso``: None la muestra con 64
    peticiones o más. ``nota``: una frase para la tabla (p. ej. dónde se midió). ``al_recibir``: una
    función que recibe cada trozo de texto en cuanto llega (para verlo en vivo: ``al_recibir=print``);
    corre dentro del bucle que mide, así que debe ser rápida.
    """
    base = base_de(url)
    if not isinstance(modelo, str) or not modelo.strip():
        raise ValueError(f"modelo debe ser el nombre del modelo que sirve el servidor (servidor.modelo, o uno de "
                         f"modelos_del_servidor(url)); recibí {mostrar_valor(modelo)}.")
    usuarios = leer_numero(usuarios, "usuarios", entero=True, minimo=1, maximo=4096,
                           ejemplo="usuarios=4 (cuántas peticiones a la vez, como mucho)")
    peticiones = leer_numero(peticiones, "peticiones", entero=True, minimo=1, maximo=100_000, ejemplo="peticiones=16")
    max_tokens = leer_numero(max_tokens, "max_tokens", entero=True, minimo=1, ejemplo="max_tokens=32")
    if llegadas is not None:
        llegadas = leer_numero(llegadas, "llegadas", minimo=0, minimo_incluido=False,
                               ejemplo="llegadas=2.0 (peticiones por segundo) o None (lazo cerrado)")
    semilla = leer_numero(semilla, "semilla", entero=True, minimo=0, ejemplo="semilla=0")
    limite_s = leer_numero(limite_s, "limite_s", minimo=0, minimo_incluido=False, ejemplo="limite_s=60")
    if not isinstance(prompt, str) or not prompt:
        raise ValueError(f"prompt debe ser un texto no vacío; recibí {mostrar_valor(prompt)}.")
    for nombre, valor in (("chat", chat), ("barra_progreso", barra_progreso)):
        if not isinstance(valor, bool) and not (nombre == "barra_progreso" and valor is None):
            raise ValueError(f"{nombre} debe ser True o False; recibí {mostrar_valor(valor)}.")
    if al_recibir is not None and not callable(al_recibir):
        raise ValueError(f"al_recibir debe ser una función que recibe un texto (p. ej. print) o None; "
                         f"recibí {mostrar_valor(al_recibir)}.")
    conocidos = _ejecutar(_modelos(base))
    if conocidos is not None and modelo not in conocidos:
        raise ValueError(f"El servidor de {base} no conoce el modelo {modelo!r}. Usa uno de estos: "
                         f"{', '.join(map(repr, conocidos)) or '(ninguno)'} (con Servidor, servidor.modelo).")
    mostrar = peticiones >= _BARRA_DESDE if barra_progreso is None else barra_progreso
    resultados, duracion, maximo = _ejecutar(_carga(base, modelo, usuarios, peticiones, max_tokens, prompt,
                                                    llegadas, semilla, chat, limite_s, mostrar, al_recibir))
    return ResultadoCarga(resultados, duracion, usuarios, llegadas, max_tokens, maximo, base, modelo, nota)
