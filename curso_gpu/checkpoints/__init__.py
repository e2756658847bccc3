"""Guardar sin perder nada y seguir donde lo dejaste. Lecciones 05 y 08.

- ``escritura_segura``: archivos atómicos y un candado por carpeta.
- ``formato``: el único formato de checkpoint, con su SHA-256, y la carpeta de checkpoints.
- ``reanudacion``: seguir desde el último checkpoint o empezar de cero sin borrar nada.
"""

from ..base import cargar_perezoso

# Cada nombre público y el módulo donde vive. Se importa al usarlo por primera vez.
CASAS = {
    "AvisoCheckpoint": "escritura_segura",
    "CANDADO": "escritura_segura",
    "Candado": "escritura_segura",
    "CarpetaOcupada": "escritura_segura",
    "CheckpointNoGuardado": "escritura_segura",
    "ERRORES_DE_DISCO": "escritura_segura",
    "PRUEBA": "escritura_segura",
    "TEMPORAL": "escritura_segura",
    "copiar_atomico": "escritura_segura",
    "crear_exclusivo": "escritura_segura",
    "escribir_atomico": "escritura_segura",
    "fsync_carpeta": "escritura_segura",
    "ANTERIORES": "formato",
    "CLAVE_SUMA": "formato",
    "CarpetaCheckpoints": "formato",
    "CarpetaNoEscribible": "formato",
    "CheckpointDanado": "formato",
    "PATRON": "formato",
    "cargar_checkpoint": "formato",
    "carpeta_checkpoints": "formato",
    "como_carpeta": "formato",
    "estado_aleatorio": "formato",
    "guardar_atomico": "formato",
    "nombre_archivo": "formato",
    "restaurar_estado_aleatorio": "formato",
    "configuracion_de": "reanudacion",
    "formas_distintas": "reanudacion",
    "preparar_reanudacion": "reanudacion",
}

__all__ = sorted(CASAS)


def __getattr__(nombre: str):
    return cargar_perezoso(__name__, CASAS, nombre, globals())


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(CASAS))
