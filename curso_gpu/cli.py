"""``python -m curso_gpu`` (o ``comprobar_gpu``): qué dispositivo tienes, cuánto más rápido
es que la CPU y qué modelo te cabe en la memoria. Es el ``comprobar_gpu.py`` de la lección,
ampliado."""

from __future__ import annotations

import argparse
import json
import sys

from .terminal import AnalizadorArgumentos, ejecutar_orden, sabe_escribir

DESCRIPCION = (
    "Comprueba tu GPU para el curso: qué dispositivo tienes (NVIDIA, AMD, Apple o solo CPU), "
    "qué dicen PyTorch y nvidia-smi, cuánto más rápida es que la CPU y qué modelo te cabe."
)


def crear_analizador() -> argparse.ArgumentParser:
    """Las opciones de la línea de órdenes, con la ayuda en español."""
    analizador = AnalizadorArgumentos(
        prog="python -m curso_gpu", description=DESCRIPCION,
        epilog="Ejemplos:\n  python -m curso_gpu\n  python -m curso_gpu --rapido --json\n"
               "  python -m curso_gpu --dispositivo cpu",
    )
    analizador.add_argument("--json", action="store_true", help="imprime el mismo informe en JSON")
    analizador.add_argument(
        "--dispositivo", metavar="X", default="auto",
        help="fuerza un dispositivo: auto, cpu, cuda, cuda:N, mps o xpu (por defecto: auto)",
    )
    analizador.add_argument("--rapido", action="store_true", help="mide con matrices más pequeñas y menos repeticiones")
    return analizador


# --- Secciones del informe: cada una devuelve (datos para JSON, texto para la terminal) ------

def seccion_entorno(args) -> tuple[dict, str]:
    """Lección 01: el informe del entorno y su diagnóstico."""
    from .dispositivo import describir_entorno

    informe = describir_entorno()
    elegido = getattr(args, "dispositivo", None)
    if elegido is not None and str(elegido) != informe.dispositivo:
        informe.dispositivo = f"{elegido} (forzado con --dispositivo)"
    return informe.a_dict(), str(informe)


def seccion_velocidad(args) -> tuple[dict, str]:
    """Lección 03: cuánto más rápido que la CPU es el dispositivo (mediana tras calentar)."""
    from .medicion import resumen_para_cli

    return resumen_para_cli(args.dispositivo, rapido=args.rapido)


def seccion_memoria(args) -> tuple[dict, str]:
    """Lección 04: el modelo más grande que cabe en la memoria del dispositivo, por precisión."""
    from .memoria import resumen_para_cli

    return resumen_para_cli(args.dispositivo)


SECCIONES = [("entorno", seccion_entorno), ("velocidad", seccion_velocidad), ("memoria", seccion_memoria)]


def main(argv: list[str] | None = None) -> int:
    """Punto de entrada de ``python -m curso_gpu``. Devuelve el código de salida.

    La ayuda y los errores de argumentos salen sin importar torch; la salida se adapta a
    una consola sin UTF-8 y termina en silencio si se cierra la tubería (``| head``).
    """
    return ejecutar_orden(_informe, argv)


def _informe(argv: list[str] | None) -> int:
    args = crear_analizador().parse_args(argv)
    from .dispositivo import DispositivoNoDisponible, elegir_dispositivo

    try:
        args.dispositivo = elegir_dispositivo(args.dispositivo)
    except (ValueError, DispositivoNoDisponible) as error:
        print(f"Error: {error}", file=sys.stderr)
        return 2
    datos: dict = {"dispositivo": str(args.dispositivo)}
    for nombre, seccion in SECCIONES:
        valor, texto = seccion(args)
        datos[nombre] = valor
        if not args.json:
            print(texto)
            print()
    if args.json:
        texto = json.dumps(datos, ensure_ascii=False, indent=2, default=str)
        if not sabe_escribir(texto):  # consola sin UTF-8: JSON válido con \u00e1 en vez de «á»
            texto = json.dumps(datos, ensure_ascii=True, indent=2, default=str)
        print(texto)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
