"""El núcleo que comparten los tres entrenadores del curso: ``entrenar`` (lección 05), el de DDP
(lección 08) y ``ajustar`` (lección 09).

Un solo sitio para lo que no debe hacerse de tres maneras:

- ``configuracion_de_entrenamiento(...)``: lo que se compara al reanudar (las mismas claves para
  los tres, con el nombre del modelo leído del modelo, nunca escrito a mano).
- ``NucleoCheckpoints``: la carpeta de un entrenamiento. Se usa con ``with``: comprueba una vez que
  se puede escribir, toma el candado (un solo entrenamiento por carpeta) y lo suelta al salir.
  ``decidir`` sigue desde el último checkpoint o empieza de cero (la política única de
  ``preparar_reanudacion``); ``restaurar`` devuelve pesos, optimizador, escalador, estados
  aleatorios e historial; ``guardar`` escribe el checkpoint (el formato único), nunca con pesos
  NaN o infinitos.
- ``PerdidaNoFinita``: la pérdida se volvió NaN o infinita. ``vigilar_perdida`` la anota sin
  sincronizar y ``parar_si_no_finita`` para el entrenamiento; los tres entrenadores la usan igual.

En un checkpoint, ``modelo`` es siempre el ``state_dict`` entero; ``adaptador``, solo los pesos de
LoRA (los escribe ``ajustar``); ``historial`` es siempre un ``Historial.a_dict()``.
"""

from __future__ import annotations

import math
from pathlib import Path

import torch

from ..guardado import (
    CLAVE_DE_PESOS,
    como_carpeta,
    guardar_fragmentado,
    nuevo_checkpoint,
    preparar_reanudacion,
    restaurar_estado_aleatorio,
)
from .resultados import Historial

__all__ = ["NucleoCheckpoints", "PerdidaNoFinita", "configuracion_de_entrenamiento", "parar_si_no_finita",
           "vigilar_perdida"]


class PerdidaNoFinita(ValueError):
    """La pérdida (o los pesos) se volvió NaN o infinita; ``historial`` guarda lo entrenado hasta entonces."""

    def __init__(self, mensaje: str, historial: "Historial | None" = None):
        super().__init__(mensaje)
        self.historial = historial


def vigilar_perdida(no_finita: torch.Tensor, perdida: torch.Tensor, epoca: int) -> torch.Tensor:
    """Anota (sin sincronizar) la primera época en que la pérdida deja de ser finita (0: nunca).

    La época va como número de Python: llega al kernel como argumento, sin copia. Un
    ``torch.tensor(epoca, device=...)`` en cada paso sería una copia a la GPU que la espera."""
    return torch.where((no_finita == 0) & ~torch.isfinite(perdida.detach().float()), float(epoca), no_finita)


def parar_si_no_finita(epoca_mala: float, perdidas, lr: float, historial: Historial, epoca: int | None = None) -> None:
    """Lanza ``PerdidaNoFinita`` si la pérdida se volvió NaN/inf (en el paso o al medir). Lecciones 05, 08 y 09.

    ``epoca_mala``: la época que anotó ``vigilar_perdida`` (0: ninguna); ``perdidas``: números ya
    leídos (o None); ``epoca``: la época de esos números.
    """
    if not epoca_mala and (perdidas is None or all(math.isfinite(p) for p in perdidas)):
        return
    cuando = int(epoca_mala) if epoca_mala else epoca
    raise PerdidaNoFinita(
        f"La pérdida dejó de ser un número finito (NaN o infinito) en la época {cuando}: paro el entrenamiento. "
        f"Suele ser un lr demasiado alto (prueba lr={lr / 10:g}) o datos con valores enormes, NaN o infinitos "
        "(normalízalos). Lo entrenado hasta aquí está en error.historial; los checkpoints guardados siguen intactos.",
        historial)


def _pesos_finitos(pesos: dict) -> bool:
    """¿Son finitos todos los pesos (de coma flotante) de ``pesos``? Una sola espera por dispositivo.

    De un tensor repartido entre procesos (``DTensor``) se mira el trozo de este proceso.
    """
    marcas: dict[torch.device, list[torch.Tensor]] = {}
    for tensor in pesos.values():
        local = tensor.to_local() if callable(getattr(tensor, "to_local", None)) else tensor
        if isinstance(local, torch.Tensor) and (local.is_floating_point() or local.is_complex()) and local.numel():
            marcas.setdefault(local.device, []).append(torch.isfinite(local.detach()).all())
    return all(bool(torch.stack(delas).all()) for delas in marcas.values())  # espera: aquí la CPU mira los pesos


def _pesos_finitos_en_todos(pesos: dict) -> bool:
    """``_pesos_finitos`` de los trozos de todos los procesos (un all-reduce): todos dicen lo mismo."""
    import torch.distributed as dist

    finitos = _pesos_finitos(pesos)
    if not (dist.is_available() and dist.is_initialized()):
        return finitos
    locales = [t.to_local() if callable(getattr(t, "to_local", None)) else t for t in pesos.values()]
    donde = next((t.device for t in locales if isinstance(t, torch.Tensor)), torch.device("cpu"))
    marca = torch.tensor(1.0 if finitos else 0.0, device=donde)
    dist.all_reduce(marca, op=dist.ReduceOp.MIN)  # espera: los demás procesos
    return bool(marca.item())


def _nombre_del_modelo(modelo: torch.nn.Module) -> str:
    """«CNNPequena», o «GPT2LMHeadModel con LoRA» para un modelo de peft: lo que se compara al reanudar."""
    base = getattr(modelo, "get_base_model", None)
    if callable(base):
        return f"{type(base()).__name__} con LoRA"
    return type(modelo).__name__


def configuracion_de_entrenamiento(modelo: torch.nn.Module, *, lr: float, tamano_lote: int | None, epocas: int,
                                   dispositivo: torch.device, semilla: int | None, criterio: str,
                                   acumular: int = 1, precision: str = "fp32", procesos: int = 1,
                                   **otras) -> dict:
    """Lo que se compara al reanudar, con las mismas claves en los tres entrenadores.

    ``tamano_lote``: el global (el de cada proceso × procesos en DDP). ``otras``: lo propio de un
    entrenador (``secuencia`` en ``ajustar``). Si añades una opción a un entrenador, añádela aquí.
    """
    return {"lr": lr, "tamano_lote": tamano_lote, "epocas": epocas, "modelo": _nombre_del_modelo(modelo),
            "criterio": criterio, "dispositivo": torch.device(dispositivo).type, "semilla": semilla,
            "acumular": acumular, "precision": precision, "procesos": procesos, **otras}


class NucleoCheckpoints:
    """La carpeta de checkpoints de un entrenamiento, tomada mientras dura el ``with``. Lecciones 05, 08 y 09.

    - ``checkpoints``: ``carpeta_checkpoints(...)``, una ruta o None (sin checkpoints: todo es no-op).
    - ``entrenador``: ``"entrenar"``, ``"entrenar_ddp"`` o ``"ajustar"``.
    - ``cada``: cada cuántas épocas guardar si la carpeta no lo dice (``entrenar``: 0, solo al final;
      los otros dos: 1).
    - ``escribe``: False en los procesos de DDP que no son el rango 0 (ni candado ni escritura).
    - ``fragmentado``: True con FSDP (lección 12): cada checkpoint es una carpeta ``.dcp`` donde cada
      rango escribe su trozo (``guardado.guardar_fragmentado``); el candado y la decisión, del rango 0.
    """

    def __init__(self, checkpoints, *, entrenador: str, configuracion: dict, datos: dict | None = None,
                 cada: int = 0, escribe: bool = True, fragmentado: bool = False):
        self.carpeta = como_carpeta(checkpoints, cada_por_defecto=cada) if checkpoints is not None else None
        self.entrenador, self.configuracion, self.datos = entrenador, dict(configuracion), datos
        self.escribe = escribe
        self.fragmentado = fragmentado
        self.clave = CLAVE_DE_PESOS[entrenador]
        self._comprobada = False
        self._candado = None

    @property
    def activo(self) -> bool:
        """True si hay carpeta y este proceso escribe en ella."""
        return self.carpeta is not None and self.escribe

    def comprobar(self) -> None:
        """Comprueba (una sola vez por entrenamiento) que se puede escribir en la carpeta."""
        if self.activo and not self._comprobada:
            self.carpeta.comprobar_escritura()
            self._comprobada = True

    def __enter__(self) -> "NucleoCheckpoints":
        if self.activo:
            self.comprobar()
            self._candado = self.carpeta.candado()
            self._candado.tomar()
        return self

    def __exit__(self, *excepcion) -> None:
        if self._candado is not None:
            self._candado.soltar()
            self._candado = None

    def decidir(self, pesos: dict, dispositivo, avisar=print) -> dict | None:
        """El checkpoint desde el que seguir (con ``ruta``), o None para empezar de cero.

        ``pesos``: el ``state_dict`` actual (o el del adaptador), para comprobar las formas.
        """
        if not self.activo:
            return None
        if self.carpeta.reanudar is not False:
            self._comprobar_estrategia()
        if self.fragmentado:  # las formas se comparan con las del índice: los pesos están en los archivos de DCP
            estado = preparar_reanudacion(self.carpeta, self.configuracion, dispositivo, entrenador=self.entrenador,
                                          avisar=avisar, modelo=None, datos=self.datos)
            self._comprobar_formas(estado, pesos)
            return estado
        return preparar_reanudacion(self.carpeta, self.configuracion, dispositivo, entrenador=self.entrenador,
                                    avisar=avisar, modelo=pesos, datos=self.datos)

    def _comprobar_estrategia(self) -> None:
        """Una carpeta de DDP (archivos ``.pt``) no la sigue FSDP (carpetas ``.dcp``), ni al revés."""
        ajenos = [r for r in self.carpeta.archivos() if (r.suffix == ".pt") == self.fragmentado]
        if ajenos:
            de, mio = ("DDP (archivos .pt con el modelo entero)", "FSDP") if self.fragmentado else (
                "FSDP (carpetas .dcp repartidas entre procesos)", "DDP")
            otra = "ddp" if self.fragmentado else "fsdp"
            raise ValueError(f"La carpeta {self.carpeta.ruta} tiene checkpoints de un entrenamiento {de}, como "
                             f"{ajenos[0].name}, y ahora entrenas con {mio}. Síguelo con --estrategia {otra}, usa "
                             "otra carpeta, o empieza de cero con carpeta_checkpoints(..., reanudar=False) (los "
                             "actuales se apartan a anteriores/, no se borran).")

    def _comprobar_formas(self, estado: dict | None, pesos: dict) -> None:
        formas = (estado or {}).get("fragmentos", {}).get("formas", {})
        if estado is None or not formas:
            return
        actuales = {k: list(v.shape) for k, v in pesos.items()}
        distintas = [f"{k}: {formas.get(k, 'falta')} → {v}" for k, v in actuales.items() if formas.get(k) != v]
        distintas += [f"{k}: sobra en el checkpoint" for k in formas if k not in actuales]
        if distintas:
            raise ValueError(f"El checkpoint {estado.get('ruta')} no corresponde a este modelo (cambian "
                             f"{len(distintas)} parámetros: {'; '.join(distintas[:3])}). Usa otra carpeta, o "
                             "carpeta_checkpoints(..., reanudar=False) para empezar de cero.")

    def restaurar(self, estado: dict, *, cargar_pesos, optimizador: torch.optim.Optimizer, escalador=None,
                  lr: float | None = None) -> Historial:
        """Deja pesos, optimizador, escalador y estados aleatorios como en ``estado``; devuelve su historial.

        ``cargar_pesos(state_dict)``: ``modelo.load_state_dict`` (o ``set_peft_model_state_dict`` para un
        adaptador). ``lr``: si lo das, manda sobre el del checkpoint (``preparar_reanudacion`` ya avisó
        del cambio). El historial vuelve con ``reanudado_desde`` y sin los avisos de la sesión anterior.
        """
        arreglo = "Usa otra carpeta, o carpeta_checkpoints(..., reanudar=False) para empezar de cero."
        try:
            if self.fragmentado:
                cargar_pesos(estado)  # DCP: cada rango lee su trozo de los pesos y del optimizador
            else:
                cargar_pesos(estado[self.clave])
                optimizador.load_state_dict(estado["optimizador"])
        except (RuntimeError, ValueError, KeyError) as error:
            raise ValueError(f"El checkpoint {estado.get('ruta')} no corresponde a este modelo ({error}). "
                             f"{arreglo}") from None
        if estado.get("escalador") and escalador is not None and escalador.is_enabled():
            escalador.load_state_dict(estado["escalador"])
        if lr is not None:
            for grupo in optimizador.param_groups:
                grupo["lr"] = lr
        restaurar_estado_aleatorio(estado["aleatorio"])
        historial = Historial.desde_dict(estado["historial"])
        historial.avisos = []  # los de la sesión anterior ya se vieron entonces
        historial.reanudado_desde = int(estado["epoca"])
        return historial

    def guardar(self, epoca: int, *, pesos: dict, optimizador: torch.optim.Optimizer, historial: Historial,
                escalador=None, semilla_lotes: int = 0) -> Path | None:
        """Escribe el checkpoint de ``epoca`` si toca (cada ``cada`` épocas y la última); si no, None.

        Unos pesos con NaN o infinitos nunca se escriben: ``PerdidaNoFinita``, y los checkpoints
        anteriores siguen intactos.
        """
        if self.fragmentado and self.carpeta is not None:  # todos los rangos escriben su trozo
            if not self.carpeta.toca_guardar(epoca, self.configuracion["epocas"]):
                return None
            if not _pesos_finitos_en_todos(pesos[self.clave]):  # todos paran a la vez: nadie espera en el guardado
                parar_si_no_finita(epoca, None, self.configuracion.get("lr", 0.0), historial)
            indice = nuevo_checkpoint(
                entrenador=self.entrenador, epoca=epoca, epocas=self.configuracion["epocas"],
                configuracion=self.configuracion, datos=self.datos, pesos={self.clave: {}}, optimizador={},
                semilla_lotes=semilla_lotes, historial=historial.a_dict())
            indice["fragmentos"] = {"formas": {k: list(v.shape) for k, v in pesos[self.clave].items()}}
            return guardar_fragmentado(self.carpeta, epoca, pesos, indice)
        if not self.activo or not self.carpeta.toca_guardar(epoca, self.configuracion["epocas"]):
            return None
        if not _pesos_finitos(pesos):
            parar_si_no_finita(epoca, None, self.configuracion.get("lr", 0.0), historial)
        escala = escalador.state_dict() if escalador is not None and escalador.is_enabled() else {}
        return self.carpeta.guardar(nuevo_checkpoint(
            entrenador=self.entrenador, epoca=epoca, epocas=self.configuracion["epocas"],
            configuracion=self.configuracion, datos=self.datos, pesos={self.clave: pesos},
            optimizador=optimizador.state_dict(), escalador=escala, semilla_lotes=semilla_lotes,
            historial=historial.a_dict()), epoca)

    def terminar(self) -> None:
        """Al acabar: copia a Drive lo que falte (si la carpeta está en Drive)."""
        if self.activo:
            self.carpeta.copiar_pendientes_a_drive()
