"""Checkpoints repartidos entre procesos (FSDP): cada rango escribe su trozo. Lección 12.

Con ``torch.distributed.checkpoint`` (DCP) cada proceso guarda su trozo de los pesos y del
optimizador en un archivo propio de una carpeta (``__0_0.distcp``, ``__1_0.distcp``…) y el rango 0
el índice de DCP (``.metadata``). Al cargar, DCP reparte los trozos entre los procesos que haya
ahora: se guarda con 2 y se sigue con 1, o con 4.

Con la disciplina de siempre (``carpeta``, ``escritura_segura``, ``formato``):

- **Completo o ausente.** Todos escriben en una carpeta temporal con nombre único
  (``.checkpoint_epoca_000003.dcp.<azar>.tmp``); cuando todos terminaron, el rango 0 calcula el
  SHA-256 de cada archivo, escribe el índice del curso (``curso.pt``, el formato único, con esas
  sumas) y renombra la carpeta a ``checkpoint_epoca_000003.dcp`` (``rename``: atómico). Un proceso
  muerto a mitad deja solo la temporal, que se borra al tomar el candado.
- **Un solo escritor**: el candado de la carpeta (lo toma el rango 0 para todo el grupo).
- **Comprobado al leer**: ``leer_indice`` comprueba la suma de cada archivo antes de usarlo.
"""

from __future__ import annotations

import hashlib
import os
import secrets
import shutil
from pathlib import Path

import torch.distributed as dist

from .escritura_segura import fsync_carpeta
from .formato import CheckpointDanado, cargar_checkpoint, guardar_atomico, nombre_archivo

__all__ = ["INDICE", "cargar_fragmentado", "guardar_fragmentado", "leer_indice"]

INDICE = "curso.pt"
_BLOQUE = 1 << 20


def _suma(ruta: Path) -> str:
    suma = hashlib.sha256()
    with open(ruta, "rb") as archivo:
        while bloque := archivo.read(_BLOQUE):
            suma.update(bloque)
    return suma.hexdigest()


def _rango_y_mundo() -> tuple[int, int]:
    if dist.is_available() and dist.is_initialized():
        return dist.get_rank(), dist.get_world_size()
    return 0, 1


def guardar_fragmentado(carpeta, epoca: int, tensores: dict, indice: dict) -> Path | None:
    """Guarda el checkpoint repartido de ``epoca``: todos los procesos la llaman a la vez. Lección 12.

    ``carpeta``: la ``CarpetaCheckpoints`` del entrenamiento (el rango 0 tiene su candado).
    ``tensores``: ``{"modelo": get_model_state_dict(m), "optimizador": get_optimizer_state_dict(m, opt)}``
    (los trozos de cada rango); ``indice``: el checkpoint del curso sin pesos (``nuevo_checkpoint``
    con ``pesos={"modelo": {}}``), que guarda el rango 0. Devuelve la carpeta en el rango 0.
    """
    import torch.distributed.checkpoint as dcp

    rango, mundo = _rango_y_mundo()
    nombre = nombre_archivo(epoca, fragmentado=True)
    respuesta: list = [None]
    if rango == 0:
        try:
            carpeta.comprobar_candado()  # nadie borró la carpeta ni el candado
            carpeta.local.mkdir(parents=True, exist_ok=True)
            respuesta = [("ruta", str(carpeta.local / f".{nombre}.{secrets.token_hex(6)}.tmp"))]
        except Exception as error:
            respuesta = [("error", str(error))]
            if mundo > 1:
                dist.broadcast_object_list(respuesta, src=0)  # espera: todos saben que no se guarda
            raise
    if mundo > 1:
        dist.broadcast_object_list(respuesta, src=0)  # espera: todos escriben en la misma carpeta temporal
    tipo, valor = respuesta[0]
    if tipo == "error":
        raise CheckpointDanado(f"el rango 0 no pudo preparar el checkpoint {nombre}: {valor}")
    temporal = Path(valor)
    dcp.save(tensores, checkpoint_id=temporal)  # espera: cada rango escribe su trozo (con fsync)
    if rango != 0:
        return None
    archivos = {r.name: _suma(r) for r in sorted(temporal.iterdir()) if r.is_file()}
    fragmentos = {**indice.get("fragmentos", {}), "procesos": mundo, "archivos": archivos}
    guardar_atomico({**indice, "fragmentos": fragmentos}, temporal / INDICE)
    fsync_carpeta(temporal)
    final = carpeta.local / nombre
    viejo = None
    if os.path.lexists(final):  # la misma época otra vez: se aparta la anterior y se borra al final
        viejo = carpeta.local / f".{nombre}.{secrets.token_hex(6)}.viejo.tmp"
        os.rename(final, viejo)
    os.rename(temporal, final)  # atómico: el checkpoint aparece completo o no aparece
    fsync_carpeta(carpeta.local)
    if viejo is not None:
        shutil.rmtree(viejo, ignore_errors=True)
    carpeta.borrar_viejos()
    return final


def leer_indice(ruta: str | os.PathLike) -> dict:
    """El índice (``curso.pt``) de un checkpoint repartido, con la suma de cada archivo comprobada. Lección 12.

    Devuelve el checkpoint del curso (sin pesos: están en los archivos de DCP) con su clave
    ``fragmentos`` (procesos que lo escribieron y SHA-256 de cada archivo). Un archivo que falta
    o que no pasa su suma: ``CheckpointDanado``.
    """
    ruta = Path(ruta)
    indice = ruta / INDICE
    if not indice.is_file():
        raise CheckpointDanado(f"El checkpoint repartido {ruta.name} está incompleto: falta su índice {INDICE}.")
    estado = cargar_checkpoint(indice)
    fragmentos = estado.get("fragmentos")
    if not isinstance(fragmentos, dict) or not fragmentos.get("archivos"):
        raise CheckpointDanado(f"El índice de {ruta.name} no dice qué archivos tiene: está dañado.")
    for nombre, suma in fragmentos["archivos"].items():
        archivo = ruta / nombre
        if not archivo.is_file():
            raise CheckpointDanado(f"Al checkpoint repartido {ruta.name} le falta el archivo {nombre}: está incompleto.")
        if _suma(archivo) != suma:
            raise CheckpointDanado(f"El archivo {nombre} de {ruta.name} no pasa su suma SHA-256: algún byte cambió "
                                   "desde que se guardó. Está dañado.")
    return estado


def cargar_fragmentado(ruta: str | os.PathLike, tensores: dict) -> None:
    """Carga en ``tensores`` (los trozos de este rango) el checkpoint repartido ``ruta``. Lección 12.

    Todos los procesos la llaman a la vez; DCP reparte los trozos entre los procesos que hay ahora,
    sean los mismos que lo guardaron o no. ``tensores`` se rellena en su sitio.
    """
    import torch.distributed.checkpoint as dcp

    dcp.load(tensores, checkpoint_id=Path(ruta))  # espera: todos leen a la vez
