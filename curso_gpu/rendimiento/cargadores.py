"""¿Cuántas muestras por segundo da mi ``DataLoader``? ``comparar_cargadores``. Lección 06.

Prueba ``num_workers`` y ``pin_memory``: cuenta aparte el arranque (crear los procesos y el
primer lote) y mide unos lotes más. Los procesos se cierran siempre (``finally``) y uno que no
da un lote en ``_ESPERA_MAXIMA`` segundos es un error, no una espera eterna. Se importa también
desde ``rendimiento``.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass

import torch

from ..dispositivo import como_dispositivo, simulacion_activa, sincronizar
from ..base import PILA_DE_FORMAS_DISTINTAS, ComoTabla, Tabla, formatear_numero, leer_numero

__all__ = [
    "ComparacionCargadores", "MedicionCargador", "cerrar_iterador", "comparar_cargadores", "separar_lote",
]

_PARA_COMPARAR = "comparar_cargadores mide lotes (xb, yb) de conjunto"
_ESPERA_MAXIMA = 60  # segundos que un proceso del DataLoader puede tardar en dar un lote


def separar_lote(lote, numero: int, para: str) -> tuple:
    """``(xb, yb)`` de un lote del cargador, o ``ValueError`` en español si no es un par. Lección 06.

    ``para``: quién necesita el par y para qué (p. ej. «diagnosticar llama a paso(xb, yb)»).
    """
    if not (isinstance(lote, (tuple, list)) and len(lote) == 2):
        raise ValueError(
            f"El lote {numero} del cargador no es un par (xb, yb); es {type(lote).__name__}. "
            f"{para}: usa un DataLoader de un conjunto que devuelva (x, y).")
    return tuple(lote)


def cerrar_iterador(iterador, cargador) -> None:
    """Cierra los procesos del DataLoader si los abrió este iterador (y no son persistentes)."""
    if iterador is None or getattr(cargador, "persistent_workers", False):
        return
    cerrar = getattr(iterador, "_shutdown_workers", None)  # lo que hace PyTorch al destruir el iterador
    if cerrar is not None:
        cerrar()


@dataclass
class MedicionCargador:
    """Lo rápido que da lotes un ``DataLoader`` con una configuración. Lección 06."""

    num_workers: int
    pin_memory: bool
    muestras_por_segundo: float   # en marcha, sin contar el arranque
    segundos_arranque: float      # hasta el primer lote (crear los procesos incluido)
    lotes: int


@dataclass
class ComparacionCargadores(ComoTabla):
    """Muestras por segundo de cada configuración de ``DataLoader``. Lección 06."""

    mediciones: list[MedicionCargador]
    tamano_lote: int
    dispositivo: str

    @property
    def mejor(self) -> MedicionCargador:
        return max(self.mediciones, key=lambda m: m.muestras_por_segundo)

    def _filas(self) -> list[tuple[str, str, str, str]]:
        base = self.mediciones[0].muestras_por_segundo or 1.0
        return [(str(m.num_workers), "sí" if m.pin_memory else "no", formatear_numero(m.muestras_por_segundo, 0),
                 f"{m.muestras_por_segundo / base:.2f}x", f"{m.segundos_arranque:.2f} s") for m in self.mediciones]

    def _titulo(self) -> str:
        return f"DataLoader con lotes de {self.tamano_lote} hacia {self.dispositivo}: muestras por segundo"

    def tabla(self) -> Tabla:
        """Una fila por configuración; debajo, la mejor."""
        mejor = self.mejor
        return Tabla(self._titulo(), ["num_workers", "pin_memory", "muestras/s", "vs. 1.ª", "arranque"],
                     [list(fila) for fila in self._filas()],
                     notas=[f"La mejor: num_workers={mejor.num_workers}, pin_memory={mejor.pin_memory}."])


def _lista(valor, nombre: str, convertir) -> tuple:
    valores = valor if isinstance(valor, (tuple, list)) else (valor,)
    if not valores:
        raise ValueError(f"{nombre} no puede estar vacío; prueba, por ejemplo, {nombre}=(0, 2).")
    return tuple(convertir(v) for v in valores)


def _medir_cargador(conjunto, tamano_lote, num_workers, pin_memory, lotes, dispositivo):
    cargador = torch.utils.data.DataLoader(
        conjunto, batch_size=tamano_lote, shuffle=False, num_workers=num_workers, pin_memory=pin_memory,
        timeout=_ESPERA_MAXIMA if num_workers > 0 else 0)
    iterador = None
    try:
        inicio = time.perf_counter()
        iterador = iter(cargador)
        xb, _ = separar_lote(next(iterador), 1, _PARA_COMPARAR)   # arrancar los procesos y el primer lote
        if not isinstance(xb, torch.Tensor):
            raise ValueError(f"conjunto: cada ejemplo debe ser un par (x, y) con x un tensor; el DataLoader juntó "
                             f"los x en un {type(xb).__name__}. Convierte x a tensor en el __getitem__ del conjunto "
                             "(p. ej. con torch.as_tensor o una transformación ToTensor).")
        xb.to(dispositivo, non_blocking=pin_memory)
        sincronizar(dispositivo)
        arranque = time.perf_counter() - inicio
        inicio, muestras, contados = time.perf_counter(), 0, 0
        for numero, lote in enumerate(iterador, 2):
            xb, _ = separar_lote(lote, numero, _PARA_COMPARAR)
            xb.to(dispositivo, non_blocking=pin_memory)
            muestras += xb.shape[0]
            contados += 1
            if contados >= lotes:
                break
        sincronizar(dispositivo)
        segundos = time.perf_counter() - inicio
    except RuntimeError as error:
        if PILA_DE_FORMAS_DISTINTAS in str(error):  # en un proceso del DataLoader o en este
            formas = re.search(r"got (\[[^\]]*\]) at entry (\d+) and (\[[^\]]*\]) at entry (\d+)", str(error))
            cuales = (f": en un mismo lote, el ejemplo {formas.group(2)} tiene forma {formas.group(1)} y el "
                      f"{formas.group(4)}, {formas.group(3)}" if formas else "")
            raise ValueError(
                f"conjunto: los ejemplos no tienen todos la misma forma{cuales}. El DataLoader apila los x de "
                f"cada lote en un solo tensor, y eso pide formas iguales. Recórtalos o rellénalos a una misma "
                f"forma en el __getitem__ del conjunto, o usa tamano_lote=1 (PyTorch dice: "
                f"{str(error).strip().splitlines()[-1][:200]})") from None
        if "timed out" in str(error):
            raise RuntimeError(
                f"Un proceso del DataLoader (num_workers={num_workers}) tardó más de {_ESPERA_MAXIMA} s en "
                "dar un lote; lo he cerrado. Revisa que el conjunto no se quede esperando.") from error
        raise
    finally:
        cerrar_iterador(iterador, cargador)
    return MedicionCargador(num_workers, pin_memory, muestras / segundos if segundos > 0 else 0.0, arranque, contados)


def comparar_cargadores(conjunto, tamano_lote: int, num_workers=(0, 1, 2), pin_memory=None, *,
                        lotes: int = 10, dispositivo=None) -> ComparacionCargadores:
    """Muestras por segundo de un ``DataLoader`` según ``num_workers`` y ``pin_memory``. Lección 06.

    Para cada combinación crea un ``DataLoader`` de ``conjunto``, cuenta aparte el arranque
    (crear los procesos y el primer lote) y mide ``lotes`` lotes más, copiándolos a
    ``dispositivo`` (por defecto, el que elige ``elegir_dispositivo()``).

    ``pin_memory=None`` prueba ``False`` y ``True`` si hay CUDA (sin CUDA no sirve de nada) y
    solo ``False`` si no, ni en la T4 simulada (allí no hay memoria que fijar: todo vive en la CPU). Los procesos se cierran siempre, y un proceso que no da un lote en
    60 s es un error, no una espera eterna. Dibújalo con ``graficos.grafico_cargadores``.
    """
    try:
        largo = len(conjunto)
    except TypeError:
        raise ValueError(f"conjunto debe ser un Dataset con len(); recibí {type(conjunto).__name__}.") from None
    if largo == 0:
        raise ValueError("El conjunto está vacío: no hay nada que cargar.")
    tamano_lote = leer_numero(tamano_lote, "tamano_lote", entero=True, minimo=1, ejemplo="tamano_lote=64")
    if -(-largo // tamano_lote) < 2:  # el primer lote es el del arranque: hace falta al menos otro
        raise ValueError(
            f"tamano_lote={tamano_lote} con un conjunto de {largo} ejemplos da un solo lote, y ese se cuenta como "
            f"arranque: no queda nada que medir. Usa tamano_lote={max(1, largo // 2)} o menos "
            f"(mejor, unas {lotes if isinstance(lotes, int) and not isinstance(lotes, bool) else 10} veces menos que el conjunto).")
    lotes = leer_numero(lotes, "lotes", entero=True, minimo=1, ejemplo="lotes=10")
    trabajadores = _lista(num_workers, "num_workers", lambda v: leer_numero(v, "num_workers", entero=True, minimo=0, maximo=256,
                                                                                      ejemplo="num_workers=(0, 1, 2)"))
    dispositivo = como_dispositivo(dispositivo)
    if pin_memory is None:
        pin_memory = (False, True) if dispositivo.type == "cuda" and not simulacion_activa() else (False,)

    def como_bool(v):
        if not isinstance(v, bool):
            raise ValueError(f"pin_memory debe ser True, False o una tupla de ellos; recibí {v!r}.")
        return v

    fijar = _lista(pin_memory, "pin_memory", como_bool)
    mediciones = [_medir_cargador(conjunto, tamano_lote, n, p, lotes, dispositivo)
                  for n in trabajadores for p in fijar]
    return ComparacionCargadores(mediciones, tamano_lote, str(dispositivo))
