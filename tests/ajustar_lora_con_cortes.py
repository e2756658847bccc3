"""Un ajuste LoRA del modelo diminuto con checkpoints que test_ajuste.py lanza y mata con SIGKILL.

    python tests/ajustar_lora_con_cortes.py --carpeta DIR --salida adaptador.pt [--parar-en 3 --marca listo.txt] [--objeto]

Con ``--parar-en N`` escribe ``--marca`` al terminar la época N (ya guardada) y se queda
esperando a que lo maten, como una sesión de Colab que se desconecta. Sin ``--parar-en``,
reanuda desde el último checkpoint que haya en ``--carpeta`` y guarda el adaptador final (la
prueba reanuda con ``ajustar_con_cortes`` en su propio proceso; esta forma queda para probar a mano). Con
``--objeto``, ``ajustar`` recibe un objeto ``carpeta_checkpoints(...)`` (sin ``cada``, como en la
lección 09) en vez de la ruta.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import torch

from curso_gpu.ajuste import ajustar, aplicar_lora, estado_adaptador, modelo_diminuto
from curso_gpu.guardado import carpeta_checkpoints

EPOCAS = 6


def ajustar_con_cortes(carpeta, al_terminar_epoca=None):
    """Siempre el mismo ajuste (semillas fijas, un hilo); devuelve (adaptador, resultado)."""
    hilos = torch.get_num_threads()
    torch.set_num_threads(1)  # mismas sumas en el mismo orden en todos los procesos
    try:
        with torch.random.fork_rng(devices=[]):
            modelo, tokenizador = modelo_diminuto(semilla=0)
            torch.manual_seed(1)  # lora_A empieza aleatoria
            modelo = aplicar_lora(modelo, r=4, alpha=8)
            resultado = ajustar(modelo, tokenizador, epocas=EPOCAS, checkpoints=carpeta, avisar=lambda _: None,
                                al_terminar_epoca=al_terminar_epoca)
        return estado_adaptador(modelo), resultado
    finally:
        torch.set_num_threads(hilos)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--carpeta", required=True)
    parser.add_argument("--salida", required=True)
    parser.add_argument("--parar-en", type=int, default=None)
    parser.add_argument("--marca", default=None)
    parser.add_argument("--objeto", action="store_true")
    args = parser.parse_args()
    carpeta = Path(args.carpeta)
    if args.objeto:  # como en la lección 09: un objeto de carpeta sin cada
        carpeta = carpeta_checkpoints(carpeta.name, base=carpeta.parent, silenciosa=True)

    def al_terminar_epoca(epoca: int, total: int) -> None:
        if args.parar_en is not None and epoca == args.parar_en:
            Path(args.marca).write_text(str(epoca))
            time.sleep(600)  # aquí llega el SIGKILL

    adaptador, resultado = ajustar_con_cortes(carpeta, al_terminar_epoca)
    torch.save({"adaptador": adaptador, "perdidas": resultado.perdidas,
                "reanudado_desde": resultado.reanudado_desde}, args.salida)


if __name__ == "__main__":
    main()
