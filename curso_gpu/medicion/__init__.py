"""TODO docstring de medicion."""

from .bucle_python import ResultadoBucle, bucle_python_vs_numpy
from .comparar import Comparacion, comparar_muestras, comparar_tiempos, formatear_veces
from .cpu_gpu import (
    ComparacionCpuGpu,
    ComparacionSincronizacion,
    ResultadoBarrido,
    ResultadoMatmul,
    barrido,
    comparar_cpu_gpu,
    medir_matmul,
    medir_sin_sincronizar,
)
from .cronometro import (
    DISPERSION_MAXIMA,
    Medicion,
    cronometrar,
    cronometrar_con_presupuesto,
    entero_positivo,
    hilos_cpu,
)
from .memoria_libre import (
    MemoriaInsuficiente,
    PRECISIONES_MATMUL,
    comprobar_que_cabe,
    es_falta_de_memoria,
    liberar_memoria,
    memoria_disponible,
    memoria_necesaria,
    tipo_de_dato,
)

__all__ = [
    "Comparacion",
    "ComparacionCpuGpu",
    "ComparacionSincronizacion",
    "DISPERSION_MAXIMA",
    "Medicion",
    "MemoriaInsuficiente",
    "PRECISIONES_MATMUL",
    "ResultadoBarrido",
    "ResultadoBucle",
    "ResultadoMatmul",
    "barrido",
    "bucle_python_vs_numpy",
    "comparar_cpu_gpu",
    "comparar_muestras",
    "comparar_tiempos",
    "comprobar_que_cabe",
    "cronometrar",
    "cronometrar_con_presupuesto",
    "entero_positivo",
    "es_falta_de_memoria",
    "formatear_veces",
    "hilos_cpu",
    "liberar_memoria",
    "medir_matmul",
    "medir_sin_sincronizar",
    "memoria_disponible",
    "memoria_necesaria",
    "tipo_de_dato",
]
