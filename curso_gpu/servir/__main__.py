"""``python -m curso_gpu.servir``: arranca un servidor, barre 1, 2, 4, 8… usuarios, imprime la tabla y lo para. Lección 13.

    python -m curso_gpu.servir --modelo CARPETA --usuarios 1,2,4,8
    python -m curso_gpu.servir --url http://127.0.0.1:8000 --usuarios 1,4,16

Con ``--url`` mide un servidor que ya está encendido (cualquiera compatible con OpenAI: vLLM,
``transformers serve``, SGLang…) y no lo para.
"""

from __future__ import annotations

import sys

from ..base import AnalizadorArgumentos, ejecutar_orden

__all__: list[str] = []


def _usuarios(texto: str) -> list[int]:
    import argparse

    try:
        lista = [int(x) for x in texto.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"usuarios debe ser una lista de enteros separados por comas, como 1,2,4,8; "
                                         f"recibí {texto!r}") from None
    if not lista or min(lista) < 1:
        raise argparse.ArgumentTypeError(f"cada número de usuarios debe ser 1 o más, como 1,2,4,8; recibí {texto!r}")
    return lista


def _analizador() -> AnalizadorArgumentos:
    a = AnalizadorArgumentos(prog="python -m curso_gpu.servir",
                             description="Sirve un modelo con la API de OpenAI y mide cuántos usuarios aguanta.",
                             epilog="Ejemplos:\n  python -m curso_gpu.servir --modelo mi_modelo --usuarios 1,2,4,8\n"
                                    "  python -m curso_gpu.servir --url http://127.0.0.1:8000 --usuarios 1,4")
    donde = a.add_mutually_exclusive_group(required=True)
    donde.add_argument("--modelo", metavar="CARPETA", help="la carpeta del modelo (save_pretrained) o un nombre del Hub")
    donde.add_argument("--url", help="la dirección de un servidor ya encendido, como http://127.0.0.1:8000")
    a.add_argument("--nombre", help="con --url: el nombre del modelo en el servidor (por defecto, el primero que ofrece)")
    a.add_argument("--usuarios", type=_usuarios, default=[1, 2, 4, 8], help="usuarios a la vez, separados por comas (1,2,4,8)")
    a.add_argument("--peticiones-por-usuario", type=int, default=4, help="peticiones de cada usuario (4)")
    a.add_argument("--max-tokens", type=int, default=32, help="tokens de cada respuesta (32)")
    a.add_argument("--lotes-continuos", action="store_true", help="transformers serve --continuous-batching")
    a.add_argument("--motor", choices=["transformers", "vllm"], help="con --modelo: quién sirve (por defecto, vLLM si hay GPU y vLLM)")
    a.add_argument("--espera", type=float, default=180, help="segundos para que el servidor responda (180)")
    return a


def main(argv=None) -> int:
    def cuerpo(argv) -> int:
        args = _analizador().parse_args(argv)
        from . import Servidor, barrer_concurrencia, modelos_del_servidor

        opciones = dict(usuarios=args.usuarios, peticiones_por_usuario=args.peticiones_por_usuario,
                        max_tokens=args.max_tokens)
        try:
            if args.url:
                nombre = args.nombre or (modelos_del_servidor(args.url) or [None])[0]
                if nombre is None:
                    print("El servidor no dice qué modelos sirve: da el nombre con --nombre.", file=sys.stderr)
                    return 2
                print(barrer_concurrencia(args.url, nombre, **opciones))
                return 0
            with Servidor(args.modelo, lotes_continuos=args.lotes_continuos, motor=args.motor,
                          espera_s=args.espera) as servidor:
                print(f"Servidor listo en {servidor.url} en {servidor.segundos_arranque:.1f} s "
                      f"({' '.join(servidor.orden())}).")
                print(barrer_concurrencia(servidor.url, servidor.modelo, **opciones))
            return 0
        except (ValueError, OSError, RuntimeError, ModuleNotFoundError) as error:
            print(f"Error: {error}", file=sys.stderr)
            return 1
        except KeyboardInterrupt:  # el with ya paró el servidor
            print("Interrumpido: el servidor está parado.", file=sys.stderr)
            return 130

    return ejecutar_orden(cuerpo, argv)


if __name__ == "__main__":
    sys.exit(main())
