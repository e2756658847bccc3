"""Guardar sin perder nada y seguir donde lo dejaste. Lecciones 05, 08 y 09.

- ``escritura_segura``: archivos atómicos y un candado por carpeta.
- ``formato``: el único formato de checkpoint (el de ``entrenar``, ``entrenar_ddp`` y ``ajustar``), con
  su SHA-256; los pesos sueltos (``guardar_pesos``/``cargar_pesos``) y la huella de los datos.
- ``destino``: la única comprobación de rutas: ``comprobar_destino`` antes de escribir y
  ``comprobar_origen`` antes de leer.
- ``carpeta``: la carpeta de checkpoints con sus opciones (cada cuánto, reanudar, conservar).
- ``reanudacion``: una sola política para seguir desde el último checkpoint o empezar de cero.
"""

from ..base import cargar_perezoso

# Cada nombre público y el módulo donde vive. Se importa al usarlo por primera vez.
CASAS = {
    "AvisoCheckpoint": "escritura_segura",
    "CANDADO": "escritura_segura",
    "Candado": "escritura_segura",
    "CarpetaDesaparecida": "escritura_segura",
    "CarpetaOcupada": "escritura_segura",
    "CheckpointNoGuardado": "escritura_segura",
    "comprobar_destino_atomico": "escritura_segura",
    "copiar_atomico": "escritura_segura",
    "crear_exclusivo": "escritura_segura",
    "escribir_atomico": "escritura_segura",
    "fsync_carpeta": "escritura_segura",
    "ANTERIORES": "formato",
    "CLAVE_DE_PESOS": "formato",
    "CheckpointDanado": "formato",
    "ENTRENADORES": "formato",
    "FORMATO": "formato",
    "PRUEBA": "formato",
    "RESTOS": "formato",
    "cargar_checkpoint": "formato",
    "cargar_pesos": "formato",
    "epoca_de": "formato",
    "estado_aleatorio": "formato",
    "formas_distintas": "formato",
    "guardar_atomico": "formato",
    "guardar_pesos": "formato",
    "huella_de_datos": "formato",
    "nombre_archivo": "formato",
    "nuevo_checkpoint": "formato",
    "quien_lo_escribio": "formato",
    "restaurar_estado_aleatorio": "formato",
    "DestinoNoValido": "destino",
    "comprobar_destino": "destino",
    "comprobar_origen": "destino",
    "CarpetaCheckpoints": "carpeta",
    "CarpetaNoEscribible": "carpeta",
    "carpeta_checkpoints": "carpeta",
    "como_carpeta": "carpeta",
    "preparar_reanudacion": "reanudacion",
}

__all__ = sorted(CASAS)


def __getattr__(nombre: str):
    return cargar_perezoso(__name__, CASAS, nombre, globals())


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(CASAS))
