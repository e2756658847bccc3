"""Más de una GPU con DDP y ``torchrun``. Lección 08.

- ``grupo``: ``iniciar``, ``promediar``, ``terminar`` y el cálculo del all-reduce.
- ``lanzador``: lanzar ``torchrun`` con tiempo límite y sin dejar procesos huérfanos.
- ``padre``: que cada trabajador pare si ``torchrun`` muere (``vigilar_padre``).
"""

from ..base import cargar_perezoso

# Cada nombre público y el módulo donde vive. Se importa al usarlo por primera vez.
CASAS = {
    "ANCHOS_DE_BANDA_GB_S": "grupo",
    "EFICIENCIA_PUBLICADA": "grupo",
    "ErrorDistribuido": "grupo",
    "Proceso": "grupo",
    "TiempoAllReduce": "grupo",
    "bajo_torchrun": "grupo",
    "elegir_backend": "grupo",
    "es_principal": "grupo",
    "huella_de_pesos": "grupo",
    "iniciar": "grupo",
    "proceso_actual": "grupo",
    "promediar": "grupo",
    "terminar": "grupo",
    "tiempo_allreduce": "grupo",
    "Ejecucion": "lanzador",
    "PuertoOcupado": "lanzador",
    "descendientes": "lanzador",
    "ejecutar": "lanzador",
    "orden_torchrun": "lanzador",
    "puerto_en_uso": "lanzador",
    "puerto_libre": "lanzador",
    "sigue_vivo": "lanzador",
    "padre_muerto": "padre",
    "terminar_lanzador": "padre",
    "vigilar_padre": "padre",
}

__all__ = sorted(CASAS)


def __getattr__(nombre: str):
    return cargar_perezoso(__name__, CASAS, nombre, globals())


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(CASAS))
