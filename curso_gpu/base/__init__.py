"""Hechos con su fuente y formato: la capa de abajo, que no habla con la GPU.

- ``catalogo``, ``picos``: GPU (memoria, picos en TFLOP/s) y modelos, con sus fuentes (lecciones 03 y 04).
- ``precisiones``: fp32, tf32, fp16, bf16, fp64, int8, int4: bytes y ``torch.dtype`` (lecciones 03 y 04).
- ``ruedas_cuda``: qué PyTorch con CUDA instalar según el driver y la GPU (lección 01).
- ``mensajes_torch``: los mensajes de error reales de PyTorch que enseñan las lecciones.
- ``proyecto``: la dirección del repositorio para las insignias y la celda de arranque.
- ``presentacion``: tablas (``Tabla``, ``ComoTabla``), números y bytes legibles (``formatear_numero``,
  ``formatear_bytes``) en la terminal y en el notebook.
- ``numeros``: leer lo que escribes: ``3``, ``np.int64(3)``, ``0.8``: ``leer_numero``, el único lector de números.
- ``terminal``: ayuda en español y una salida que no falla en consolas sin UTF-8 ni con tuberías.
- ``progreso``: barras de progreso que dejan una copia fija al cerrarse.
- ``gpu_simulada``: los datos de la Tesla T4 que simula ``CURSO_GPU_SIMULAR=T4``.
- ``nube``: el menú de Colab que da una T4, lo que cuesta una GPU alquilada y olvidarse de apagarla, con los precios y su fuente (lección 02).
- ``servir_t4``: servir en una T4: qué vLLM la admite, qué le falta, sus errores y SGLang (lección 13).
- ``fsdp``: ZeRO-3 frente a DDP (comunicación), Kaggle con dos T4, desde dónde hay bf16 (lección 12).
- ``_puerta`` (privado): la carga perezosa de cada subpaquete a partir de los ``__all__`` de sus módulos.
"""

from typing import TYPE_CHECKING

from ._puerta import abrir

# CASAS (cada nombre y su módulo) y __all__ salen de los __all__ de los módulos; cada nombre
# se importa al usarlo por primera vez.
abrir(globals())

if TYPE_CHECKING:  # para los editores y los comprobadores de tipos; al ejecutar no se importa nada
    from .catalogo import *  # noqa: F403
    from .fsdp import *  # noqa: F403
    from .mensajes_torch import *  # noqa: F403
    from .servir_t4 import *  # noqa: F403
    from .nube import *  # noqa: F403
    from .numeros import *  # noqa: F403
    from .picos import *  # noqa: F403
    from .precisiones import *  # noqa: F403
    from .presentacion import *  # noqa: F403
    from .progreso import *  # noqa: F403
    from .proyecto import *  # noqa: F403
    from .gpu_simulada import *  # noqa: F403
    from .ruedas_cuda import *  # noqa: F403
    from .terminal import *  # noqa: F403
