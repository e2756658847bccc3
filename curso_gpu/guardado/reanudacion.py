"""Reanudar un entrenamiento desde su último checkpoint o empezar de cero. Lecciones 05 y 08.

Una sola política para ``entrenar``, ``entrenar_ddp`` y ``ajustar``: ``preparar_reanudacion`` lo decide (y
lo dice). Otro modelo o menos épocas de las ya hechas se rechazan con el arreglo; cualquier otro
cambio (lr, lote, dispositivo, datos...) se avisa y manda el valor nuevo. Un checkpoint escrito
por el otro entrenador se reanuda igual, o se rechaza diciendo quién lo escribió. Nunca se borra
nada: empezar de cero aparta los checkpoints viejos a ``anteriores/<fecha>/``.
"""

from __future__ import annotations

import warnings
from pathlib import Path

from ..base import contar, formatear_numero, leer_numero, mostrar_ruta
from .carpeta import CarpetaCheckpoints
from .escritura_segura import AvisoCheckpoint
from .formato import CLAVE_DE_PESOS, ENTRENADORES, formas_distintas, quien_lo_escribio

__all__ = ["preparar_reanudacion"]


def _configuracion_de(estado: dict) -> dict:
    """La configuración con la que se guardó un checkpoint (vacía si no trae ninguna)."""
    configuracion = estado.get("configuracion") if isinstance(estado, dict) else None
    return dict(configuracion) if isinstance(configuracion, dict) else {}


def _describir_datos(huella: dict) -> str:
    """«192 ejemplos [1, 8, 8] float32, etiquetas int64» a partir de ``huella_de_datos``."""
    return (f"{huella['ejemplos']} ejemplos {huella['forma_x']} {huella['tipo_x']}, "
            f"etiquetas {huella['forma_y'] or ''} {huella['tipo_y']}".replace("  ", " "))


def _cambio_de_datos(guardada: dict | None, actual: dict | None) -> str | None:
    """Qué cambió entre dos ``huella_de_datos`` (None si son iguales o falta alguna)."""
    if not guardada or not actual or guardada.get("sha256") == actual.get("sha256"):
        return None
    antes, ahora = _describir_datos(guardada), _describir_datos(actual)
    if antes != ahora:
        return f"datos de entrenamiento {antes} → {ahora}"
    return f"datos de entrenamiento: mismos tamaños ({ahora}) pero otros valores (¿otra semilla u otro archivo?)"


def _empezar_de_cero(carpeta: CarpetaCheckpoints, motivo: str, avisar) -> None:
    destino, movidos = carpeta.apartar()
    if movidos:
        avisar(f"{motivo}: empiezo de cero. Muevo {contar(movidos, 'checkpoint anterior', 'checkpoints anteriores')} a {mostrar_ruta(destino)} "
               "(no se borra nada).")


def _cambio(clave: str, antes, ahora) -> str:
    if clave == "semilla":
        return f"semilla {antes!r} → {ahora!r} (sigo con el estado aleatorio guardado en el checkpoint)"
    if clave == "dispositivo":
        return (f"dispositivo {antes} → {ahora} (sigo en {ahora}; el resultado ya no será idéntico bit a bit "
                "al de un entrenamiento sin cortes)")
    return f"{clave} {_valor(antes)} → {_valor(ahora)} (uso {_valor(ahora)})"


def _valor(valor) -> str:
    """Un valor de la configuración como lo lee una persona: los enteros con el formato del curso (100 000)."""
    if isinstance(valor, int) and not isinstance(valor, bool):
        return formatear_numero(valor)
    return repr(valor)


def _comprobar_entradas(carpeta, configuracion, entrenador, avisar, modelo, datos) -> None:
    """Lo que recibe ``preparar_reanudacion``, comprobado antes de tocar la carpeta."""
    if not isinstance(carpeta, CarpetaCheckpoints):
        raise ValueError(f"carpeta debe ser una CarpetaCheckpoints (carpeta_checkpoints('nombre') o "
                         f"como_carpeta(ruta)); recibí {type(carpeta).__name__}.")
    if entrenador not in ENTRENADORES:
        raise ValueError(f"entrenador debe ser uno de: {', '.join(ENTRENADORES)}; recibí {entrenador!r}.")
    faltan = [c for c in ("epocas", "modelo") if not isinstance(configuracion, dict) or c not in configuracion]
    if faltan:
        raise ValueError(f"configuracion debe ser un diccionario con, al menos, {', '.join(faltan)} (por ejemplo "
                         "{'epocas': 10, 'modelo': 'CNNPequena', 'lr': 0.01}); recibí "
                         f"{configuracion!r}.")
    leer_numero(configuracion["epocas"], "configuracion['epocas']", entero=True, minimo=1)
    if not callable(avisar):
        raise ValueError(f"avisar debe ser una función que recibe un texto (print, o lista.append); recibí {avisar!r}.")
    for nombre, valor in (("modelo", modelo), ("datos", datos)):
        if valor is not None and not isinstance(valor, dict):
            raise ValueError(f"{nombre} debe ser un diccionario (un state_dict o huella_de_datos(X, y)) o None; "
                             f"recibí {type(valor).__name__}.")


def preparar_reanudacion(carpeta: CarpetaCheckpoints, configuracion: dict, dispositivo, *, entrenador: str,
                         avisar=print, modelo: dict | None = None, datos: dict | None = None) -> dict | None:
    """Decide si se sigue desde un checkpoint o se empieza de cero. Lecciones 05 y 08.

    - ``carpeta.reanudar`` None (por defecto) o True: si la carpeta tiene un checkpoint sano
      (de ``entrenar`` o de ``entrenar_ddp``), lo devuelve para seguir desde él y lo dice con
      ``avisar``. Compara su configuración con ``configuracion`` (lr, tamano_lote, epocas,
      modelo, dispositivo, ...) y sus datos con ``datos`` (``huella_de_datos``): avisa de cada
      diferencia y usa el valor nuevo, o da un error que dice quién escribió el checkpoint y cómo
      arreglarlo (otro modelo, o menos épocas de las ya hechas). ``modelo``: el ``state_dict``
      actual, para comprobar que los parámetros tienen la misma forma. Si ningún checkpoint se
      puede leer, aparta los dañados y empieza de cero.
    - ``carpeta.reanudar`` False: empieza de cero y mueve los checkpoints que hubiera a
      ``anteriores/<fecha>/``. Nunca se borra nada.

    ``entrenador``: quién reanuda (``"entrenar"``, ``"entrenar_ddp"`` o ``"ajustar"``). Devuelve el estado
    cargado (con ``ruta``) o ``None`` si se empieza de cero.
    """
    _comprobar_entradas(carpeta, configuracion, entrenador, avisar, modelo, datos)
    if carpeta.reanudar is False:
        _empezar_de_cero(carpeta, "reanudar=False", avisar)
        return None
    estado = carpeta.cargar_ultimo(dispositivo)
    if estado is None:
        if carpeta.archivos():
            _empezar_de_cero(carpeta, "Ningún checkpoint se puede leer", avisar)
        elif carpeta.reanudar:
            avisar(f"No hay checkpoints en {carpeta.ruta}: empiezo desde la época 1.")
        return None
    guardada, epoca, ruta = _configuracion_de(estado), int(estado["epoca"]), estado["ruta"]
    quien = quien_lo_escribio(estado)
    yo = ENTRENADORES.get(entrenador, entrenador)
    de_quien = f"El checkpoint {ruta} (escrito por {quien})"
    arreglo = ("Usa otra carpeta, o carpeta_checkpoints(..., reanudar=False) para empezar de cero (los "
               "checkpoints actuales se guardan en anteriores/).")
    if guardada.get("modelo", configuracion.get("modelo")) != configuracion.get("modelo"):
        raise ValueError(f"{de_quien} no corresponde a este modelo: es de un {guardada['modelo']} y ahora "
                         f"{yo} entrena un {configuracion['modelo']}. {arreglo}")
    clave = CLAVE_DE_PESOS[entrenador]
    if clave not in estado:
        guarda = "solo un adaptador LoRA" if "adaptador" in estado else "un modelo entero"
        raise ValueError(f"{de_quien} guarda {guarda} y {yo} necesita {'un adaptador' if clave == 'adaptador' else 'un modelo entero'}. "
                         f"{arreglo}")
    distintas = formas_distintas(estado[clave], modelo) if modelo is not None else []
    if distintas:
        raise ValueError(f"{de_quien} no corresponde a este modelo (cambian {len(distintas)} "
                         f"parámetros: {'; '.join(distintas[:3])}). {arreglo}")
    if epoca > configuracion["epocas"]:
        raise ValueError(f"{de_quien} ya va por la época {epoca} y ahora pides epocas={configuracion['epocas']}. "
                         f"Pide epocas={epoca} o más para seguir, o carpeta_checkpoints(..., reanudar=False) "
                         "para empezar de cero (los checkpoints actuales se guardan en anteriores/).")
    cambios = [_cambio(clave, guardada[clave], valor) for clave, valor in configuracion.items()
               if clave in guardada and guardada[clave] != valor and not (clave == "semilla" and valor is None)]
    cambio_datos = _cambio_de_datos(estado.get("datos"), datos)
    if cambio_datos:
        cambios.append(f"{cambio_datos} (sigo con los datos nuevos; si no querías esto, vuelve a los datos de "
                       "antes o empieza de cero con reanudar=False)")
    otro = estado.get("entrenador") != entrenador
    if cambios or otro:
        desde = f"Reanudo desde {mostrar_ruta(ruta)}, escrito por {quien}" if otro else f"Reanudo desde {mostrar_ruta(ruta)}"
        texto = desde + (" con cambios respecto al checkpoint: " + "; ".join(cambios) if cambios else "") + "."
        warnings.warn(texto, AvisoCheckpoint, stacklevel=3)
        avisar(texto)
    if epoca == configuracion["epocas"]:
        avisar(f"El entrenamiento de {mostrar_ruta(ruta)} ya había terminado (época {epoca} de {epoca}): cargo ese modelo "
               "y no entreno más. Para volver a entrenar desde cero, usa carpeta_checkpoints(..., reanudar=False).")
    else:
        avisar(f"Reanudo desde {Path(ruta).name} (época {epoca} de {configuracion['epocas']}), en {mostrar_ruta(Path(ruta).parent)}.")
    return estado
