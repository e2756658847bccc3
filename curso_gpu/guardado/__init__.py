"""Guardar sin perder nada y seguir donde lo dejaste. Lecciones 05, 08, 09 y 12.

- ``escritura_segura``: archivos atómicos y un candado por carpeta.
- ``formato``: el único formato de checkpoint (el de ``entrenar``, ``entrenar_ddp`` y ``ajustar``), con
  su SHA-256; los pesos sueltos (``guardar_pesos``/``cargar_pesos``) y la huella de los datos.
- ``destino``: la única comprobación de rutas: ``comprobar_destino`` antes de escribir y
  ``comprobar_origen`` antes de leer.
- ``carpeta``: la carpeta de checkpoints con sus opciones (cada cuánto, reanudar, conservar).
- ``elegir_carpeta``: crearla por su nombre (``carpeta_checkpoints``, local o Drive) o desde una ruta (``como_carpeta``).
- ``reanudacion``: una sola política para seguir desde el último checkpoint o empezar de cero.
- ``fragmentado``: checkpoints repartidos entre procesos (FSDP, lección 12): cada rango escribe su trozo.
"""

from typing import TYPE_CHECKING

from ..base._puerta import abrir

# CASAS (cada nombre y su módulo) y __all__ salen de los __all__ de los módulos; cada nombre
# se importa al usarlo por primera vez.
abrir(globals())

if TYPE_CHECKING:  # para los editores y los comprobadores de tipos; al ejecutar no se importa nada
    from .carpeta import *  # noqa: F403
    from .destino import *  # noqa: F403
    from .elegir_carpeta import *  # noqa: F403
    from .escritura_segura import *  # noqa: F403
    from .formato import *  # noqa: F403
    from .fragmentado import *  # noqa: F403
    from .reanudacion import *  # noqa: F403
