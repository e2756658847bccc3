"""Un servidor falso compatible con OpenAI, en este mismo proceso, para probar ``medir_carga``.

Responde ``/health``, ``/v1/models`` y ``/v1/completions`` y ``/v1/chat/completions`` en streaming
(SSE) con tiempos programados: espera ``ttft_s`` antes del primer trozo y ``hueco_s`` entre trozos;
cada trozo lleva un token («t»). Anota cuántas peticiones tuvo en curso a la vez (``maximo``) y puede
fallar a propósito: ``cortar_tras`` tokens corta la conexión a mitad de respuesta en las peticiones
cuyo número está en ``cortar``; ``errores_http`` responde 500 a esas. Corre en un hilo con su propio
bucle de asyncio, solo en 127.0.0.1, y se para al salir del ``with``.
"""

from __future__ import annotations

import asyncio
import json
import socket
import struct
import threading
from dataclasses import dataclass, field


@dataclass
class Guion:
    ttft_s: float = 0.05
    hueco_s: float = 0.02
    tokens: int = 8  # por respuesta (si max_tokens pide menos, menos)
    modelo: str = "falso"
    usage: bool = True
    rol_primero: bool = True  # en el chat, un primer trozo solo con el rol (sin texto), como OpenAI
    cortar: set = field(default_factory=set)  # números de petición (desde 0) que se cortan a mitad
    cortar_tras: int = 3  # -1: antes de mandar las cabeceras
    con_rst: bool = False  # el corte es un RST (como un proceso que muere con datos sin leer), no un cierre
    errores_http: set = field(default_factory=set)


class ServidorFalso:
    def __init__(self, guion: Guion | None = None):
        self.guion = guion or Guion()
        self.en_curso = 0
        self.maximo = 0
        self.recibidas = 0
        self.puerto: int | None = None
        self._bucle: asyncio.AbstractEventLoop | None = None
        self._listo = threading.Event()
        self._hilo = threading.Thread(target=self._correr, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.puerto}"

    # --- las rutas -------------------------------------------------------------------------------
    async def _salud(self, peticion):
        from aiohttp import web

        return web.json_response({"status": "ok"})

    async def _modelos(self, peticion):
        from aiohttp import web

        return web.json_response({"object": "list", "data": [{"id": self.guion.modelo, "object": "model"}]})

    async def _completar(self, peticion):
        from aiohttp import web

        g = self.guion
        numero = self.recibidas
        self.recibidas += 1
        cuerpo = await peticion.json()
        chat = peticion.path.endswith("/chat/completions")
        if cuerpo.get("model") != g.modelo:
            return web.json_response({"error": f"modelo desconocido {cuerpo.get('model')}"}, status=404)
        if numero in g.errores_http:
            return web.json_response({"error": "fallo programado"}, status=500)
        self.en_curso += 1
        self.maximo = max(self.maximo, self.en_curso)
        try:
            if numero in g.cortar and g.cortar_tras < 0:
                self._cortar(peticion)
                return web.Response()  # no llega a mandarse: la conexión ya no existe
            respuesta = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
            await respuesta.prepare(peticion)

            async def enviar(trozo: dict) -> None:
                await respuesta.write(b"data: " + json.dumps(trozo).encode() + b"\n\n")

            if chat and g.rol_primero:
                await enviar({"choices": [{"index": 0, "delta": {"role": "assistant"}}]})
            n = min(g.tokens, int(cuerpo.get("max_tokens", g.tokens)))
            for i in range(n):
                await asyncio.sleep(g.ttft_s if i == 0 else g.hueco_s)
                if numero in g.cortar and i == g.cortar_tras:
                    self._cortar(peticion)  # la conexión se corta a mitad de respuesta
                    return respuesta
                opcion = {"index": 0, "delta": {"content": "t"}} if chat else {"index": 0, "text": "t"}
                if i == n - 1:
                    opcion["finish_reason"] = "length"
                await enviar({"choices": [opcion]})
            if g.usage:
                await enviar({"choices": [], "usage": {"completion_tokens": n, "prompt_tokens": 3}})
            await respuesta.write(b"data: [DONE]\n\n")
            await respuesta.write_eof()
            return respuesta
        finally:
            self.en_curso -= 1

    def _cortar(self, peticion) -> None:
        """Corta la conexión: un cierre normal (FIN) o, con ``con_rst``, un RST (SO_LINGER a 0)."""
        if self.guion.con_rst:
            zocalo = peticion.transport.get_extra_info("socket")
            zocalo.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            peticion.transport.abort()
        else:
            peticion.transport.close()

    # --- arrancar y parar --------------------------------------------------------------------------
    def _correr(self) -> None:
        from aiohttp import web

        async def principal():
            app = web.Application()
            app.router.add_get("/health", self._salud)
            app.router.add_get("/v1/models", self._modelos)
            app.router.add_post("/v1/completions", self._completar)
            app.router.add_post("/v1/chat/completions", self._completar)
            corredor = web.AppRunner(app, access_log=None)
            await corredor.setup()
            sitio = web.TCPSite(corredor, "127.0.0.1", 0)
            await sitio.start()
            self.puerto = sitio._server.sockets[0].getsockname()[1]
            self._parar = asyncio.Event()
            self._listo.set()
            await self._parar.wait()
            await corredor.cleanup()

        self._bucle = asyncio.new_event_loop()
        self._bucle.run_until_complete(principal())
        self._bucle.close()

    def __enter__(self) -> "ServidorFalso":
        self._hilo.start()
        assert self._listo.wait(10), "el servidor falso no arrancó en 10 s"
        return self

    def __exit__(self, *excepcion) -> None:
        self._bucle.call_soon_threadsafe(self._parar.set)
        self._hilo.join(10)
