"""Medir bien: sincronizar, calentar, medianas y comparaciones honestas. Lección 03.

- ``cronometro``: ``cronometrar``, las mediciones con presupuesto de tiempo y ``comprobar_sin_argumentos``.
- ``cpu_gpu``: ``a @ b`` en CPU y GPU: GFLOP/s, % del pico, el barrido por tamaños.
- ``memoria_libre``: ¿caben las matrices antes de crearlas?
- ``bucle_python``: el bucle triple de Python frente a NumPy.
- ``comparar``: ``comparar_tiempos``, dos funciones medidas alternadas con su intervalo y su veredicto.
"""

from ..base import cargar_perezoso

# Cada nombre público y el módulo donde vive. Se importa al usarlo por primera vez.
CASAS = {
    "ResultadoBucle": "bucle_python",
    "bucle_python_vs_numpy": "bucle_python",
    "BLOQUE_ACELERADOR_S": "comparar",
    "BLOQUE_CPU_S": "comparar",
    "Comparacion": "comparar",
    "DURACION_MAXIMA_S": "comparar",
    "MARGEN": "comparar",
    "NIVEL": "comparar",
    "PARES_MAXIMOS": "comparar",
    "PARES_MINIMOS": "comparar",
    "REMUESTREOS": "comparar",
    "comparar_muestras": "comparar",
    "comparar_tiempos": "comparar",
    "formatear_veces": "comparar",
    "ComparacionCpuGpu": "cpu_gpu",
    "ComparacionSincronizacion": "cpu_gpu",
    "ResultadoBarrido": "cpu_gpu",
    "ResultadoMatmul": "cpu_gpu",
    "barrido": "cpu_gpu",
    "comparar_cpu_gpu": "cpu_gpu",
    "medir_matmul": "cpu_gpu",
    "medir_sin_sincronizar": "cpu_gpu",
    "DISPERSION_MAXIMA": "cronometro",
    "Medicion": "cronometro",
    "comprobar_sin_argumentos": "cronometro",
    "cronometrar": "cronometro",
    "cronometrar_con_presupuesto": "cronometro",
    "hilos_cpu": "cronometro",
    "entero_positivo": "cronometro",
    "MemoriaInsuficiente": "memoria_libre",
    "PRECISIONES_MATMUL": "memoria_libre",
    "comprobar_que_cabe": "memoria_libre",
    "es_falta_de_memoria": "memoria_libre",
    "liberar_memoria": "memoria_libre",
    "memoria_necesaria": "memoria_libre",
    "tipo_de_dato": "memoria_libre",
}

__all__ = sorted(CASAS)


def __getattr__(nombre: str):
    return cargar_perezoso(__name__, CASAS, nombre, globals())


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(CASAS))
