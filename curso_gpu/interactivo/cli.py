"""``python -m curso_gpu`` (o ``comprobar_gpu``): qué dispositivo tienes, cuánto más rápido
es que la CPU y qué modelo te cabe en la memoria. Es el ``comprobar_gpu.py`` de la lección,
ampliado."""

from __future__ import annotations

import argparse
import json
import math
import sys

from ..base import Tabla
from ..base import AnalizadorArgumentos, ejecutar_orden, sabe_escribir

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
    from ..dispositivo import describir_entorno

    informe = describir_entorno()
    elegido = getattr(args, "dispositivo", None)
    if elegido is not None and str(elegido) != informe.dispositivo:
        informe.dispositivo = f"{elegido} (forzado con --dispositivo)"
    return informe.a_dict(), str(informe)


def seccion_velocidad(args) -> tuple[dict, str]:
    """Lección 03: cuánto más rápido que la CPU es el dispositivo (mediana tras calentar)."""
    return resumen_velocidad(args.dispositivo, rapido=args.rapido)


def seccion_memoria(args) -> tuple[dict, str]:
    """Lección 04: el modelo más grande que cabe en la memoria del dispositivo, por precisión."""
    return resumen_memoria(args.dispositivo)


def resumen_velocidad(dispositivo, rapido: bool) -> tuple[dict, str]:
    """La línea de aceleración medida para ``python -m curso_gpu``: (datos JSON, texto). Lección 03.

    Mediana de 5 medidas tras calentar, con matrices 2048×2048 (1024×1024 con ``rapido``). Sin
    acelerador, solo la CPU, con todos sus hilos. Tarda unos pocos segundos en una CPU de 2 núcleos.
    """
    import torch

    from ..dispositivo import como_dispositivo
    from ..medicion import comparar_cpu_gpu
    from ..medicion import MemoriaInsuficiente

    d = como_dispositivo(dispositivo)
    n = 1024 if rapido else 2048
    repeticiones = 5
    try:
        comparacion = comparar_cpu_gpu(n, d, torch.float32, repeticiones, 1)
    except MemoriaInsuficiente as error:
        return {"n": n, "error": str(error)}, f"Medición CPU frente a GPU\n  No se pudo medir: {error}"
    datos = comparacion.a_dict()
    return datos, "Medición CPU frente a GPU\n" + str(comparacion)


def _mayor_del_catalogo(parametros_max: int):
    from ..base import catalogo

    caben = [m for m in catalogo.MODELOS.values() if m.parametros <= parametros_max]
    return max(caben, key=lambda m: m.parametros, default=None)


def resumen_memoria(dispositivo) -> tuple[dict, str]:
    """«Qué modelo te cabe» para ``python -m curso_gpu``: (datos para JSON, texto). Lección 04.

    Usa la memoria del dispositivo (``dispositivo.memoria_dispositivo``; sin GPU, la RAM del equipo) y da
    el mayor modelo por precisión con un margen de +20 % y el mayor que se puede entrenar entero.
    """
    from ..memoria import (
        BYTES_ENTRENAMIENTO,
        BYTES_POR_PARAMETRO,
        MARGEN_INFERENCIA,
        a_gib,
        formatear_parametros,
        modelo_mas_grande,
    )
    from ..dispositivo import memoria_dispositivo, memoria_ram

    try:
        memoria = memoria_dispositivo(dispositivo)
    except Exception as error:  # un driver roto no debe tumbar el informe
        memoria, aviso = None, f"No pude leer la memoria de {dispositivo} ({error}). "
    else:
        aviso = ""
    en_ram = memoria is None or memoria.dispositivo == "cpu"
    if memoria is None:
        memoria = memoria_ram()
    titulo = "Qué modelo te cabe\n=================="
    if memoria is None:
        datos = {"dispositivo": str(dispositivo), "memoria": None, "fuente": None, "total_gb": None,
                 "libre_gb": None, "margen": MARGEN_INFERENCIA, "modelo_mas_grande": {}, "entrenamiento_completo": None}
        return datos, f"{titulo}\n{aviso}No pude saber cuánta memoria tiene este equipo."

    total_gb = memoria.total_gb
    por_precision = {p: modelo_mas_grande(total_gb, p) for p in BYTES_POR_PARAMETRO}
    entrenar = int(math.floor(memoria.total_bytes / BYTES_ENTRENAMIENTO))
    ejemplos = {p: getattr(_mayor_del_catalogo(n), "nombre", None) for p, n in por_precision.items()}
    datos = {
        "dispositivo": str(dispositivo),
        "memoria": "ram" if en_ram else "gpu",
        "fuente": memoria.fuente,
        "total_gb": round(total_gb, 2),
        "libre_gb": None if memoria.libre_gb is None else round(memoria.libre_gb, 2),
        "margen": MARGEN_INFERENCIA,
        "modelo_mas_grande": por_precision,
        "ejemplo_del_catalogo": ejemplos,
        "entrenamiento_completo": entrenar,
    }
    if en_ram:
        cabeza = (f"{aviso}No hay GPU: cuento con la memoria RAM del equipo, {total_gb:.1f} GB"
                  f" ({a_gib(memoria.total_bytes):.1f} GiB). Es lo que cabría al usar el modelo en la CPU "
                  "(posible, pero lento).")
    else:
        libre = "" if memoria.libre_gb is None else f", {memoria.libre_gb:.1f} GB libres"
        quien = f"{memoria.dispositivo} ({memoria.nombre})" if memoria.nombre else memoria.dispositivo
        cabeza = (f"Memoria de la GPU {quien}: {total_gb:.1f} GB en total{libre} "
                  f"(dato de {memoria.fuente}).")
    tabla = Tabla("Para usar un modelo (inferencia, margen +20 %), el mayor que te cabe:",
                  ["precisión", "parámetros", "p. ej."],
                  [[p, formatear_parametros(n), ejemplos[p] or "—"] for p, n in por_precision.items()])
    lineas = [titulo, cabeza, str(tabla)]
    lineas.append(f"Para entrenarlo entero (~{BYTES_ENTRENAMIENTO} bytes/parámetro): hasta "
                  f"{formatear_parametros(entrenar)} parámetros.")
    return datos, "\n".join(lineas)


SECCIONES = [("entorno", seccion_entorno), ("velocidad", seccion_velocidad), ("memoria", seccion_memoria)]


def main(argv: list[str] | None = None) -> int:
    """Punto de entrada de ``python -m curso_gpu``. Devuelve el código de salida.

    La ayuda y los errores de argumentos salen sin importar torch; la salida se adapta a
    una consola sin UTF-8 y termina en silencio si se cierra la tubería (``| head``).
    """
    return ejecutar_orden(_informe, argv)


def _informe(argv: list[str] | None) -> int:
    args = crear_analizador().parse_args(argv)
    from ..dispositivo import DispositivoNoDisponible, elegir_dispositivo

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
