"""Un entrenamiento con checkpoints que test_checkpoints.py lanza y mata con SIGKILL (y reanuda en su proceso).

    python tests/entrenar_con_checkpoints.py --carpeta DIR --salida pesos.pt [--reanudar]
        [--parar-en 23 --marca listo.txt] [--lote 16]

Con ``--parar-en N`` escribe ``--marca`` al terminar la época N y se queda esperando a que
lo maten (como una sesión de Colab que se desconecta a mitad).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import torch

from curso_gpu.guardado import como_carpeta
from curso_gpu.entrenamiento import generar_dataset
from curso_gpu.entrenamiento import entrenar
from curso_gpu.entrenamiento import CNNPequena


def entrenar_con_checkpoints(carpeta, salida, epocas: int = 40, cada: int = 5, lote: int | None = None,
                             reanudar: bool = False, al_avanzar=None) -> None:
    """Entrena siempre la misma CNN (semillas fijas, un hilo) y guarda pesos e historial en ``salida``.

    La prueba la llama también dentro de su proceso (el entrenamiento de referencia): el hilo y
    el generador aleatorio del proceso quedan como estaban.
    """
    hilos = torch.get_num_threads()
    torch.set_num_threads(1)  # mismas sumas en el mismo orden en todos los procesos
    try:
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(0)
            modelo = CNNPequena()
            entrenamiento, validacion = generar_dataset(20, semilla=1), generar_dataset(10, semilla=2)
            historial = entrenar(modelo, entrenamiento, validacion, "cpu", epocas=epocas, semilla=3,
                                 tamano_lote=lote, checkpoints=como_carpeta(carpeta, cada=cada, reanudar=reanudar),
                                 al_avanzar=al_avanzar, silencioso=True)
        torch.save({"modelo": modelo.state_dict(), "historial": historial.a_dict()}, salida)
    finally:
        torch.set_num_threads(hilos)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--carpeta", required=True)
    parser.add_argument("--salida", required=True)
    parser.add_argument("--epocas", type=int, default=40)
    parser.add_argument("--cada", type=int, default=5)
    parser.add_argument("--lote", type=int, default=None)
    parser.add_argument("--reanudar", action="store_true")
    parser.add_argument("--parar-en", type=int, default=None)
    parser.add_argument("--marca", default=None)
    args = parser.parse_args()

    def al_avanzar(epoca: int, total: int) -> None:
        if args.parar_en is not None and epoca == args.parar_en:
            Path(args.marca).write_text(str(epoca))
            time.sleep(600)  # aquí llega el SIGKILL

    entrenar_con_checkpoints(args.carpeta, args.salida, args.epocas, args.cada, args.lote, args.reanudar, al_avanzar)


if __name__ == "__main__":
    main()
