"""El dispositivo: elegir CPU, CUDA, MPS o XPU y conocer la máquina. Lecciones 01 y 02.

- ``primitivas``: ``elegir_dispositivo``, ``como_dispositivo``, ``sincronizar``, nombre y memoria de la GPU.
- ``nvidia_smi``: preguntar a ``nvidia-smi`` por el driver y las GPU.
- ``entorno``: ``describir_entorno()``, sus avisos en español y ``en_colab()``.
- ``colab``: Google Colab: montar Google Drive y comprobar el entorno (lección 02).
- ``simulacion``: la T4 simulada (``CURSO_GPU_SIMULAR=T4``): las ramas de GPU, en una máquina sin GPU.
  Sin torch; su maquinaria (``maquina_simulada``) solo se importa al encenderla.
- ``nvidia_smi_simulado``: el ``nvidia-smi`` de la T4 simulada, al principio del PATH mientras está encendida.
"""

from typing import TYPE_CHECKING

from ..base._puerta import abrir

# CASAS (cada nombre y su módulo) y __all__ salen de los __all__ de los módulos; cada nombre
# se importa al usarlo por primera vez.
abrir(globals())

if TYPE_CHECKING:  # para los editores y los comprobadores de tipos; al ejecutar no se importa nada
    from .colab import *  # noqa: F403
    from .entorno import *  # noqa: F403
    from .nvidia_smi import *  # noqa: F403
    from .nvidia_smi_simulado import *  # noqa: F403
    from .primitivas import *  # noqa: F403
    from .simulacion import *  # noqa: F403
