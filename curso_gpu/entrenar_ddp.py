"""La CNN de líneas de la lección 05, entrenada con varios procesos (DDP). Lección 08.

Con ``torchrun`` (dos procesos en CPU con gloo, o uno por GPU con nccl)::

    torchrun --nproc_per_node=2 -m curso_gpu.entrenar_ddp --tamano-lote 16

Solo (``python -m curso_gpu.entrenar_ddp --tamano-lote 32``) es un mundo de uno con el
mismo muestreador: con la misma semilla y las mismas épocas acaba con los mismos pesos
(salvo redondeo) que los dos procesos con lotes de 16, porque el lote global es el mismo.

El bucle se lee de arriba abajo. Los puntos donde los procesos se esperan entre sí (o la
CPU espera a la GPU) están marcados con «espera».
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import gc
import os
import signal
import sys
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import torch
from torch import nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

from . import distribuido
from .checkpoints import (
    AvisoCheckpoint,
    como_carpeta,
    guardar_pesos,
    huella_de_datos,
    nuevo_checkpoint,
    preparar_reanudacion,
    restaurar_estado_aleatorio,
)
from .entrenamiento import SEMILLA_MAXIMA, CNNPequena, generar_dataset, validar_positivo, validar_semilla
from .base import AnalizadorArgumentos, ejecutar_orden, salida_rota, tipo_entero

EJEMPLOS_POR_CLASE = 64   # 192 imágenes: divisible por el lote global 32 y por 1, 2, 3, 4, 6 y 8 procesos
LR = 0.01                 # Adam, como en la lección 05
FALLO = 3                 # código de salida del proceso que simula un fallo


@dataclass
class ResultadoDDP:
    """Lo que devuelve ``entrenar_ddp`` en cada proceso. Lección 08."""

    rango: int
    tamano_mundo: int
    epocas: int
    perdidas: list[float] = field(default_factory=list)  # pérdida media de cada época (promediada entre procesos)
    accuracy_validacion: float = 0.0
    huella: str = ""            # huella de los pesos de este proceso
    copias_identicas: bool = False
    segundos: float = 0.0
    reanudado_desde: int | None = None

    def __str__(self) -> str:
        reanudado = f" (reanudado tras la época {self.reanudado_desde})" if self.reanudado_desde else ""
        final = f"{self.perdidas[-1]:.4f}" if self.perdidas else "—"
        return (f"{self.tamano_mundo} proceso(s), {self.epocas} épocas en {self.segundos:.2f} s{reanudado} · "
                f"pérdida final {final} · acc. val. {self.accuracy_validacion:.3f} · "
                f"huella {self.huella} · copias idénticas: {'sí' if self.copias_identicas else 'NO'}")


def _decir(proceso: distribuido.Proceso, texto: str, todos: bool = False) -> None:
    """Imprime en el rango 0 (o en todos, con el rango delante)."""
    if todos:
        print(f"[rango {proceso.rango}/{proceso.tamano_mundo}] {texto}", flush=True)
    elif proceso.principal:
        print(texto, flush=True)


def _configuracion(semilla: int, tamano_lote: int, tamano_mundo: int, epocas: int, dispositivo) -> dict:
    """Lo que se compara al reanudar: las mismas claves que ``entrenar`` (lección 05), con el lote global."""
    return {"lr": LR, "tamano_lote": tamano_lote * tamano_mundo, "epocas": epocas, "modelo": "CNNPequena",
            "criterio": "CrossEntropyLoss", "dispositivo": dispositivo.type, "semilla": semilla, "acumular": 1,
            "precision": "fp32", "procesos": tamano_mundo}


def entrenar_ddp(epocas: int = 10, tamano_lote: int = 16, semilla: int = 0, *, checkpoints=None,
                 guardar_pesos=None, simular_fallo: int | None = None, backend: str | None = None,
                 silencioso: bool = False) -> ResultadoDDP:
    """Entrena ``CNNPequena`` con ``DistributedDataParallel`` en este proceso. Lección 08.

    - ``tamano_lote``: el de cada proceso (el global es ``tamano_lote × procesos``).
    - ``checkpoints``: ``carpeta_checkpoints(...)`` (con sus opciones ``cada`` y ``reanudar``) o
      una ruta (un checkpoint por época). El rango 0 guarda (escritura atómica) y decide si se
      reanuda, con la misma política y el mismo formato que ``entrenar`` (lección 05): una carpeta
      de uno la sigue el otro, o se rechaza diciendo quién la escribió.
    - ``guardar_pesos``: el rango 0 guarda el ``state_dict`` final del modelo sin envolver
      (sin el prefijo ``module.``), con su SHA-256 (``cargar_pesos`` lo comprueba al cargar).
    - ``simular_fallo=E``: en el primer intento (``TORCHELASTIC_RESTART_COUNT`` = 0), el
      proceso de rango 1 muere en la época E, para practicar ``torchrun --max-restarts``.
    """
    epocas = validar_positivo(epocas, "epocas", True, "epocas=10")
    tamano_lote = validar_positivo(tamano_lote, "tamano_lote", True, "tamano_lote=16")
    semilla = validar_semilla(semilla if semilla is not None else 0)
    if simular_fallo is not None:
        simular_fallo = validar_positivo(simular_fallo, "simular_fallo", True, "simular_fallo=3")
    comprobar_rutas(checkpoints, guardar_pesos)  # antes de formar el grupo y de tomar el candado
    carpeta = como_carpeta(checkpoints, cada=1) if checkpoints is not None else None
    proceso = distribuido.iniciar(backend)
    # Como en la lección 05: un solo entrenamiento a la vez en la carpeta (el rango 0 es quien escribe).
    candado = carpeta.candado() if carpeta is not None and proceso.principal else contextlib.nullcontext()
    with candado:
        return _entrenar(proceso, epocas, tamano_lote, semilla, carpeta, guardar_pesos, simular_fallo,
                         silencioso)


class RutaNoValida(ValueError):
    """Una carpeta de checkpoints o un archivo de pesos donde no se puede escribir."""


def _carpeta_escribible(carpeta: Path, que: str) -> None:
    """La carpeta más cercana que ya existe debe ser una carpeta con permiso de escritura."""
    existente = carpeta
    while not existente.exists() and existente != existente.parent:
        if existente.is_symlink():  # un enlace roto: no se sigue
            break
        existente = existente.parent
    if not existente.is_dir():
        raise RutaNoValida(f"{que}: {existente} es un archivo, no una carpeta. Usa otra ruta.")
    if not os.access(existente, os.W_OK | os.X_OK):
        raise RutaNoValida(f"{que}: no tengo permiso para escribir en la carpeta {existente} (¿es de solo lectura?). "
                           "Usa una carpeta tuya, p. ej. una dentro de tu carpeta de trabajo.")


def comprobar_rutas(checkpoints=None, guardar_pesos=None) -> None:
    """Comprueba ``--checkpoints`` y ``--guardar-pesos`` antes de entrenar: un error ahora, no tras la última época. Lección 08.

    ``checkpoints`` debe ser una carpeta (o no existir aún) donde se pueda escribir; ``guardar_pesos``,
    un archivo (no una carpeta) en una carpeta donde se pueda escribir.
    """
    if checkpoints is not None:
        if isinstance(checkpoints, (str, os.PathLike)):
            ruta = Path(checkpoints)
            if not str(checkpoints).strip():
                raise RutaNoValida("--checkpoints está vacío: da una carpeta, p. ej. --checkpoints ck_ddp.")
            if ruta.exists() and not ruta.is_dir():
                raise RutaNoValida(f"--checkpoints {ruta}: es un archivo, no una carpeta. Da una carpeta (nueva o de "
                                   "checkpoints de este entrenamiento), p. ej. --checkpoints ck_ddp.")
            _carpeta_escribible(ruta, f"--checkpoints {ruta}")
    if guardar_pesos is not None:
        ruta = Path(guardar_pesos)
        if not str(guardar_pesos).strip():
            raise RutaNoValida("--guardar-pesos está vacío: da un archivo, p. ej. --guardar-pesos pesos.pt.")
        if ruta.is_dir():
            raise RutaNoValida(f"--guardar-pesos {ruta}: es una carpeta; da la ruta de un archivo dentro de ella, "
                               f"p. ej. --guardar-pesos {ruta / 'pesos.pt'}.")
        _carpeta_escribible(ruta.parent if str(ruta.parent) else Path("."), f"--guardar-pesos {ruta}")
        if ruta.exists() and not os.access(ruta, os.W_OK):
            raise RutaNoValida(f"--guardar-pesos {ruta}: el archivo ya existe y no tengo permiso para reemplazarlo.")


def _reanudar(proceso: distribuido.Proceso, carpeta, configuracion: dict, modelo: nn.Module,
              datos: dict) -> dict | None:
    """El rango 0 decide (la política única de ``checkpoints``) y reparte el checkpoint a los demás."""
    respuesta = [None]
    if proceso.principal:
        try:
            carpeta.comprobar_escritura()
            dichos: list[str] = []

            def avisar(texto: str) -> None:
                dichos.append(texto)
                _decir(proceso, texto)

            with warnings.catch_warnings(record=True) as avisos:  # cada aviso, una vez y por la salida
                warnings.simplefilter("always", AvisoCheckpoint)
                estado = preparar_reanudacion(carpeta, configuracion, "cpu", entrenador="entrenar_ddp",
                                              avisar=avisar, modelo=modelo.state_dict(), datos=datos)
            for aviso in avisos:
                if str(aviso.message) not in dichos:
                    _decir(proceso, str(aviso.message))
            respuesta = [("estado", estado)]
        except Exception as error:
            if proceso.tamano_mundo > 1:
                torch.distributed.broadcast_object_list([("error", str(error))], src=0)  # espera: todos
            raise
    if proceso.tamano_mundo > 1:
        torch.distributed.broadcast_object_list(respuesta, src=0)  # espera: todos reciben lo que decidió el 0
    tipo, valor = respuesta[0]
    if tipo == "error":
        raise distribuido.ErrorDistribuido(f"el rango 0 no pudo preparar los checkpoints: {valor}")
    return valor


def _entrenar(proceso: distribuido.Proceso, epocas: int, tamano_lote: int, semilla: int, carpeta,
              destino_pesos, simular_fallo: int | None, silencioso: bool) -> ResultadoDDP:
    """El cuerpo de ``entrenar_ddp``, con el grupo de procesos ya iniciado."""
    dispositivo = proceso.dispositivo
    _decir(proceso, f"{proceso}", todos=not silencioso and proceso.tamano_mundo > 1)

    # Los mismos datos en todos los procesos; el muestreador reparte un trozo distinto a cada uno.
    X, y = generar_dataset(EJEMPLOS_POR_CLASE, semilla=semilla)
    X_val, y_val = generar_dataset(20, semilla=(semilla + 1) % (SEMILLA_MAXIMA + 1))
    conjunto = TensorDataset(X, y)
    muestreador = DistributedSampler(conjunto, num_replicas=proceso.tamano_mundo, rank=proceso.rango,
                                     shuffle=True, seed=semilla)
    cargador = DataLoader(conjunto, batch_size=tamano_lote, sampler=muestreador)

    # El mismo modelo inicial en todos (DDP además copia los pesos del rango 0 al envolverlo).
    torch.manual_seed(semilla)
    modelo = CNNPequena().to(dispositivo)
    ddp = DistributedDataParallel(modelo, device_ids=[dispositivo.index] if dispositivo.type == "cuda" else None)
    optimizador = torch.optim.Adam(ddp.parameters(), lr=LR)
    criterio = nn.CrossEntropyLoss()

    configuracion = _configuracion(semilla, tamano_lote, proceso.tamano_mundo, epocas, dispositivo)
    datos = huella_de_datos(X, y)
    resultado = ResultadoDDP(proceso.rango, proceso.tamano_mundo, epocas)
    inicio = 1
    if carpeta is not None:
        estado = _reanudar(proceso, carpeta, configuracion, modelo, datos)
        if estado is not None:
            modelo.load_state_dict(estado["modelo"])
            optimizador.load_state_dict(estado["optimizador"])
            for grupo in optimizador.param_groups:
                grupo["lr"] = LR
            restaurar_estado_aleatorio(estado["aleatorio"])
            resultado.perdidas = list(estado["perdidas"])
            resultado.reanudado_desde = int(estado["epoca"])
            inicio = int(estado["epoca"]) + 1

    reinicio = int(os.environ.get("TORCHELASTIC_RESTART_COUNT", "0") or 0)
    if simular_fallo is not None and proceso.tamano_mundo == 1:
        _decir(proceso, "--simular-fallo: en un mundo de uno no hay rango 1; no se simula ningún fallo.")
    comienzo = time.perf_counter()
    for epoca in range(inicio, epocas + 1):
        muestreador.set_epoch(epoca)  # sin esto, todas las épocas reparten los mismos ejemplos
        if epoca == inicio and not silencioso and proceso.tamano_mundo > 1:
            indices = list(muestreador)
            _decir(proceso, f"época {epoca}: me tocan {len(indices)} ejemplos; los primeros: {indices[:6]}", todos=True)
        ddp.train()
        suma, pasos = torch.zeros((), device=dispositivo), 0
        for paso, (xb, yb) in enumerate(cargador):
            if (simular_fallo == epoca and paso == 1 and proceso.rango == 1 and reinicio == 0):
                print(f"[rango 1] Simulo un fallo en la época {epoca}: este proceso muere ahora.", flush=True)
                os._exit(FALLO)
            xb, yb = xb.to(dispositivo, non_blocking=True), yb.to(dispositivo, non_blocking=True)
            perdida = criterio(ddp(xb), yb)   # la media de los ejemplos de ESTE proceso
            optimizador.zero_grad(set_to_none=True)
            perdida.backward()                # espera: DDP promedia los gradientes de todos (all-reduce)
            optimizador.step()                # todos aplican el mismo gradiente: las copias siguen iguales
            suma += perdida.detach()
            pasos += 1
        media = distribuido.promediar(suma / max(pasos, 1)).item()  # espera: un all-reduce y .item()
        resultado.perdidas.append(media)
        if not silencioso:
            _decir(proceso, f"época {epoca:3d}/{epocas} · pérdida media {media:.4f}")
        if carpeta is not None and proceso.principal and carpeta.toca_guardar(epoca, epocas):  # solo el rango 0
            carpeta.guardar(nuevo_checkpoint(
                entrenador="entrenar_ddp", epoca=epoca, epocas=epocas, configuracion=configuracion, datos=datos,
                modelo=modelo.state_dict(), optimizador=optimizador.state_dict(), semilla_lotes=semilla,
                perdidas=resultado.perdidas), epoca)
    resultado.segundos = time.perf_counter() - comienzo

    # ¿Siguen idénticas las copias? Cada proceso calcula su huella y el rango 0 las compara.
    resultado.huella = distribuido.huella_de_pesos(modelo)
    huellas = [None] * proceso.tamano_mundo
    torch.distributed.all_gather_object(huellas, resultado.huella)  # espera: todos
    resultado.copias_identicas = len(set(huellas)) == 1
    if not silencioso:
        _decir(proceso, f"huella de mis pesos: {resultado.huella}", todos=proceso.tamano_mundo > 1)
    modelo.eval()
    with torch.no_grad():
        logits = modelo(X_val.to(dispositivo))
        resultado.accuracy_validacion = (logits.argmax(1) == y_val.to(dispositivo)).float().mean().item()
    if proceso.principal and destino_pesos is not None:
        destino = Path(destino_pesos)
        destino.parent.mkdir(parents=True, exist_ok=True)
        guardar_pesos(modelo, destino)  # el modelo sin envolver (sin «module.»), con su SHA-256
    if not silencioso:
        _decir(proceso, f"¿Copias idénticas en los {proceso.tamano_mundo} procesos? "
                        f"{'sí' if resultado.copias_identicas else 'NO'} · {resultado}")
    return resultado


# ---------------------------------------------------------------------------
# Línea de órdenes
# ---------------------------------------------------------------------------

_entero_positivo = tipo_entero(1, SEMILLA_MAXIMA)


def _analizador() -> argparse.ArgumentParser:
    analizador = AnalizadorArgumentos(  # argparse en español, como python -m curso_gpu
        prog="python -m curso_gpu.entrenar_ddp",
        description="Entrena la CNN de líneas de la lección 05 con varios procesos (DistributedDataParallel). "
                    "Lánzalo con: torchrun --nproc_per_node=2 -m curso_gpu.entrenar_ddp. "
                    "Solo, es un mundo de un proceso.")
    analizador.add_argument("--epocas", type=_entero_positivo, default=10, help="épocas de entrenamiento (10)")
    analizador.add_argument("--tamano-lote", type=_entero_positivo, default=16,
                            help="ejemplos por paso en CADA proceso (16); el lote global es este × procesos")
    analizador.add_argument("--semilla", type=tipo_entero(0, SEMILLA_MAXIMA), default=0,
                            help="semilla de datos, modelo y reparto (0); de 0 a 2**63 - 1")
    analizador.add_argument("--checkpoints", metavar="CARPETA",
                            help="guarda un checkpoint por época (solo el rango 0) y reanuda desde el último, "
                                 "también uno de entrenar (lección 05)")
    analizador.add_argument("--guardar-pesos", metavar="RUTA",
                            help="el rango 0 guarda aquí los pesos finales (state_dict con su SHA-256; "
                                 "se cargan con cargar_pesos)")
    analizador.add_argument("--simular-fallo", type=_entero_positivo, metavar="EPOCA",
                            help="en el primer intento, el proceso de rango 1 muere en esa época")
    analizador.add_argument("--backend", choices=("auto", "nccl", "gloo"), default="auto",
                            help="auto: nccl si hay GPU con CUDA, gloo si no")
    analizador.add_argument("--silencioso", action="store_true", help="no imprime el progreso")
    return analizador


class _Parado(Exception):
    """torchrun pidió a este proceso que terminara (SIGTERM): otro del grupo falló."""


def _parar(numero, _marco):
    raise _Parado(numero)


def main(argv=None) -> int:
    """``python -m curso_gpu.entrenar_ddp``: 0 si todo fue bien; 1 y un mensaje en español si no.

    La salida aguanta una consola sin UTF-8, ``| head -1`` y ``> /dev/full`` (``ejecutar_orden``).
    """
    return ejecutar_orden(_principal, argv)


def _principal(argv=None) -> int:
    argumentos = _analizador().parse_args(argv)
    bajo_torchrun = distribuido.bajo_torchrun()
    anterior = signal.signal(signal.SIGTERM, _parar) if bajo_torchrun else None
    empezado = False
    try:
        if bajo_torchrun:  # dentro del try: su SIGTERM puede llegar ya aquí (_Parado, abajo)
            distribuido.vigilar_padre()  # si torchrun muere (SIGKILL), este proceso para en segundos
        comprobar_rutas(argumentos.checkpoints, argumentos.guardar_pesos)
        distribuido.elegir_backend(argumentos.backend)  # nccl sin GPU: ahora, igual en todos los procesos
        empezado = True
        entrenar_ddp(argumentos.epocas, argumentos.tamano_lote, argumentos.semilla,
                     checkpoints=argumentos.checkpoints, guardar_pesos=argumentos.guardar_pesos,
                     simular_fallo=argumentos.simular_fallo, backend=argumentos.backend,
                     silencioso=argumentos.silencioso)
    except BrokenPipeError:  # quien leía la salida se fue (| head -1): lo resuelve ejecutar_orden
        raise
    except (distribuido.ErrorDistribuido, ValueError, OSError) as error:
        if isinstance(error, OSError) and error.errno in (errno.ENOSPC, errno.EIO) and salida_rota():
            raise  # la salida (> /dev/full), no un checkpoint: lo explica ejecutar_orden
        _avisar(f"Error: {error}")
        if not empezado and bajo_torchrun:
            _sin_resumen_de_torchrun()
        return 1
    except RuntimeError as error:  # un compañero murió a mitad de una operación colectiva
        original = f"\nEl mensaje original de PyTorch ({type(error).__name__}), completo y en inglés:\n{str(error).strip()}"
        _avisar("Error: otro proceso del grupo falló o dejó de responder a mitad del entrenamiento. Mira arriba "
                "el mensaje del rango que falló; con torchrun --max-restarts=1 el grupo se reinicia y sigue desde "
                "el último checkpoint." + (original if str(error).strip() else ""))
        return 1
    except _Parado:
        if distribuido.padre_muerto():
            _avisar("Error: torchrun terminó (¿lo mataron?) y este proceso para con él. El último checkpoint "
                    "completo está intacto: vuelve a lanzar la misma orden para seguir desde él.")
        else:
            _avisar("Error: torchrun paró este proceso porque otro proceso del grupo falló. Mira arriba el mensaje "
                    "del rango que falló; con torchrun --max-restarts=1 el grupo se reinicia y sigue desde el último "
                    "checkpoint.")
        return 1
    finally:
        if anterior is not None:
            signal.signal(signal.SIGTERM, anterior)
        distribuido.terminar()
    return 0


def _sin_resumen_de_torchrun() -> None:
    """Un error de configuración (igual en todos los procesos, antes de entrenar) bajo ``torchrun``.

    ``torchrun`` no sabe terminar sin su resumen en inglés (``ChildFailedError`` y una traza) cuando
    un trabajador sale con error. Para que se lea solo el mensaje en español: el rango 0 lo
    acaba de escribir y termina a ``torchrun`` (sin nada que guardar: no se ha entrenado); los
    demás esperan a que eso pase y se van con él.
    """
    if os.environ.get("RANK", "0") == "0":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)  # el aviso de vigilar_padre llegará: ya nos vamos
        distribuido.terminar_lanzador()
    else:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        limite = time.monotonic() + 5
        while time.monotonic() < limite and not distribuido.padre_muerto():
            time.sleep(0.1)


def _avisar(texto: str, todos: bool = False) -> None:
    """Los errores los cuenta el rango 0 (los demás salen con el mismo código, sin repetirlo)."""
    rango = os.environ.get("RANK", "0")
    if rango == "0" or todos:
        try:
            print(texto if rango == "0" else f"[rango {rango}] {texto}", file=sys.stderr, flush=True)
        except OSError:  # stderr cerrado o lleno: el código de salida ya lo dice
            pass


if __name__ == "__main__":
    codigo = main()
    # Al salir, Python pasa el recolector de basura por los cientos de miles de objetos que torch
    # creó al importarse: unos 0.6 s de CPU en cada proceso, y torchrun arranca varios. Con todo
    # ya guardado y cerrado, gc.freeze() los aparta de esas pasadas
    # (https://docs.python.org/3/library/gc.html#gc.freeze).
    gc.freeze()
    sys.exit(codigo)
