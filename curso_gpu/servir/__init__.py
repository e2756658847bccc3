"""Servir un modelo a muchos usuarios a la vez, con la API de OpenAI. Lección 13.

- ``servidor``: ``Servidor``, un ``transformers serve`` (o ``vllm serve``) de verdad como proceso hijo,
  en 127.0.0.1, que nunca queda huérfano.
- ``carga``: ``medir_carga``, muchos usuarios a la vez en streaming, cronometrados trozo a trozo.
- ``preparar``: ``guardar_para_servir``, el modelo (con su adaptador fusionado) en una carpeta para servirlo.
- ``resultados``: ``ResultadoCarga``: TTFT, TPOT, ITL y latencia (p50/p90/p99), tokens/s y goodput.
- ``barrido``: ``barrer_concurrencia`` (1, 2, 4, 8… usuarios y la rodilla de la curva) y
  ``comparar_servidores`` (dos servidores medidos alternados, con el veredicto de los datos).
- ``python -m curso_gpu.servir --modelo CARPETA --usuarios 1,2,4,8``: arranca, barre y para.
"""

from typing import TYPE_CHECKING

from ..base._puerta import abrir

# CASAS (cada nombre y su módulo) y __all__ salen de los __all__ de los módulos; cada nombre
# se importa al usarlo por primera vez.
abrir(globals())

if TYPE_CHECKING:  # para los editores y los comprobadores de tipos; al ejecutar no se importa nada
    from .barrido import *  # noqa: F403
    from .carga import *  # noqa: F403
    from .preparar import *  # noqa: F403
    from .resultados import *  # noqa: F403
    from .servidor import *  # noqa: F403
