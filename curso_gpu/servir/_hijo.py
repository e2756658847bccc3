"""El proceso del servidor: vigila a su padre y se convierte en ``transformers serve`` o ``vllm serve``.

``Servidor`` no arranca ``transformers serve`` directamente, sino ``python -m curso_gpu.servir._hijo
transformers serve ...``. Este módulo pide primero el aviso de la muerte del padre
(``curso_gpu.distribuido.vigilar_padre``, el de la lección 08: ``prctl`` en Linux y un hilo que mira
``os.getppid()``) y luego ejecuta la orden de verdad **en el mismo proceso**. Si el notebook o el
programa que lo arrancó muere (incluso con SIGKILL), el servidor recibe SIGTERM y se apaga: nunca
queda un servidor huérfano ocupando el puerto y la memoria.
"""

from __future__ import annotations

import sys

__all__: list[str] = []


def main(argumentos: list[str]) -> int:
    from ..distribuido import vigilar_padre

    vigilar_padre()
    if argumentos[:1] == ["vllm"]:  # vLLM necesita una GPU de NVIDIA (o AMD)
        from vllm.entrypoints.cli.main import main as principal
    else:
        from transformers.cli.transformers import main as principal
    sys.argv = argumentos
    return principal() or 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
