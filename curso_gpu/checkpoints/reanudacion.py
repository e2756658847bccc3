"""Reanudar un entrenamiento desde su último checkpoint o empezar de cero. Lección 05.

``preparar_reanudacion`` lo decide (y lo dice); nunca se borra nada: empezar de cero aparta
los checkpoints viejos a ``anteriores/<fecha>/``.
"""

from __future__ import annotations

import warnings

from .escritura_segura import AvisoCheckpoint
from .formato import CarpetaCheckpoints

def configuracion_de(estado: dict) -> dict:
    """La configuración con la que se guardó un checkpoint (los de la versión 1 no la traen entera)."""
    if isinstance(estado.get("configuracion"), dict):
        return dict(estado["configuracion"])
    return {clave: estado[clave] for clave in ("lr", "epocas", "tamano_lote", "acumular", "precision") if clave in estado}


def formas_distintas(guardado: dict, actual: dict) -> list[str]:
    """Qué parámetros cambian de nombre o de forma entre dos ``state_dict`` (vacía si encajan)."""
    distintas = [f"{k}: {tuple(guardado[k].shape)} → {tuple(v.shape)}"
                 for k, v in actual.items() if k in guardado and tuple(guardado[k].shape) != tuple(v.shape)]
    distintas += [f"{k}: falta en el checkpoint" for k in actual if k not in guardado]
    distintas += [f"{k}: sobra en el checkpoint" for k in guardado if k not in actual]
    return distintas


def _empezar_de_cero(carpeta: CarpetaCheckpoints, motivo: str, avisar) -> None:
    destino, movidos = carpeta.apartar()
    if movidos:
        avisar(f"{motivo}: empiezo de cero. Muevo {movidos} checkpoint(s) anteriores a {destino} "
               "(no se borra nada).")


def _cambio(clave: str, antes, ahora) -> str:
    if clave == "semilla":
        return f"semilla {antes!r} → {ahora!r} (sigo con el estado aleatorio guardado en el checkpoint)"
    if clave == "dispositivo":
        return (f"dispositivo {antes} → {ahora} (sigo en {ahora}; el resultado ya no será idéntico bit a bit "
                "al de un entrenamiento sin cortes)")
    return f"{clave} {antes!r} → {ahora!r} (uso {ahora!r})"


def preparar_reanudacion(carpeta: CarpetaCheckpoints, reanudar: bool | None, configuracion: dict,
                         dispositivo, avisar=print, modelo: dict | None = None) -> dict | None:
    """Decide si se sigue desde un checkpoint o se empieza de cero. Lección 05.

    - ``reanudar=None`` (por defecto en ``entrenar``) o ``True``: si la carpeta tiene un
      checkpoint sano, lo devuelve para seguir desde él y lo dice con ``avisar``. Compara su
      configuración con ``configuracion`` (lr, tamano_lote, epocas, modelo, dispositivo, ...):
      avisa de cada diferencia y usa el valor nuevo, o da un error que dice cómo arreglarlo
      (otro modelo, o menos épocas de las ya hechas). ``modelo``: el ``state_dict`` actual,
      para comprobar que los parámetros tienen la misma forma. Si ningún checkpoint se puede leer,
      aparta los dañados y empieza de cero.
    - ``reanudar=False``: empieza de cero y mueve los checkpoints que hubiera a
      ``anteriores/<fecha>/``. Nunca se borra nada.

    Devuelve el estado cargado (con ``ruta``) o ``None`` si se empieza de cero.
    """
    if reanudar is False:
        _empezar_de_cero(carpeta, "reanudar=False", avisar)
        return None
    estado = carpeta.cargar_ultimo(dispositivo)
    if estado is None:
        if carpeta.archivos():
            _empezar_de_cero(carpeta, "Ningún checkpoint se puede leer", avisar)
        elif reanudar:
            avisar(f"No hay checkpoints en {carpeta.ruta}: empiezo desde la época 1.")
        return None
    guardada, epoca, ruta = configuracion_de(estado), int(estado["epoca"]), estado["ruta"]
    arreglo = ("Usa otra carpeta, o reanudar=False para empezar de cero (los checkpoints actuales se "
               "guardan en anteriores/).")
    if guardada.get("modelo", configuracion.get("modelo")) != configuracion.get("modelo"):
        raise ValueError(f"El checkpoint {ruta} no corresponde a este modelo: es de un {guardada['modelo']} y "
                         f"ahora entrenas un {configuracion['modelo']}. {arreglo}")
    distintas = formas_distintas(estado["modelo"], modelo) if modelo is not None else []
    if distintas:
        raise ValueError(f"El checkpoint {ruta} no corresponde a este modelo (cambian {len(distintas)} "
                         f"parámetros: {'; '.join(distintas[:3])}). {arreglo}")
    if epoca > configuracion["epocas"]:
        raise ValueError(f"El checkpoint {ruta} ya va por la época {epoca} y ahora pides epocas="
                         f"{configuracion['epocas']}. Pide epocas={epoca} o más para seguir, o reanudar=False "
                         "para empezar de cero (los checkpoints actuales se guardan en anteriores/).")
    cambios = [_cambio(clave, guardada[clave], valor) for clave, valor in configuracion.items()
               if clave in guardada and guardada[clave] != valor and not (clave == "semilla" and valor is None)]
    if cambios:
        texto = f"Reanudo desde {ruta} con cambios respecto al checkpoint: " + "; ".join(cambios) + "."
        warnings.warn(texto, AvisoCheckpoint, stacklevel=3)
        avisar(texto)
    if epoca == configuracion["epocas"]:
        avisar(f"El entrenamiento de {ruta} ya había terminado (época {epoca} de {epoca}): cargo ese modelo "
               "y no entreno más. Para volver a entrenar desde cero, usa reanudar=False.")
    else:
        avisar(f"Reanudo desde {ruta} (época {epoca} de {configuracion['epocas']}).")
    return estado
