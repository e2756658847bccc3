"""La CNN de líneas de la lección 05, entrenada con varios procesos (DDP). Lección 08.

``entrenar_ddp`` es el entrenador; la orden que escribe quien sigue el curso es
``torchrun --nproc_per_node=2 -m curso_gpu.entrenar_ddp --tamano-lote 16`` (el módulo
``curso_gpu.entrenar_ddp`` lee los argumentos y llama a esta función).

Solo (``python -m curso_gpu.entrenar_ddp --tamano-lote 32``) es un mundo de uno con el mismo
muestreador: con la misma semilla y las mismas épocas acaba con los mismos pesos (salvo
redondeo) que los dos procesos con lotes de 16, porque el lote global es el mismo.

Candado, reanudación y checkpoints son los de ``entrenar`` (``nucleo``): una carpeta de uno la
sigue el otro. Con ``estrategia="fsdp"`` (lección 12) el mismo bucle reparte el modelo con
``fully_shard`` y el núcleo guarda checkpoints repartidos (``fragmentado=True``). El bucle se lee de arriba abajo; los puntos donde los procesos se esperan entre
sí (o la CPU espera a la GPU) están marcados con «espera».
"""

from __future__ import annotations

import os
import time
import warnings
from dataclasses import dataclass, field

import torch
from torch import nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

from .. import distribuido
from ..guardado import AvisoCheckpoint, cargar_fragmentado, comprobar_destino, como_carpeta, guardar_pesos, huella_de_datos
from .datos import generar_dataset
from ..base import ESTRATEGIAS, contar, leer_numero, mostrar_valor
from .entradas import SEMILLA_MAXIMA, modo_evaluacion, validar_semilla
from .modelos import CNNPequena
from .nucleo import NucleoCheckpoints, configuracion_de_entrenamiento, parar_si_no_finita
from .resultados import Historial, Registro

__all__ = ["EJEMPLOS_POR_CLASE", "FALLO", "LR", "ResultadoDDP", "entrenar_ddp"]

EJEMPLOS_POR_CLASE = 64   # 192 imágenes: divisible por el lote global 32 y por 1, 2, 3, 4, 6 y 8 procesos
LR = 0.01                 # Adam, como en la lección 05
FALLO = 3                 # código de salida del proceso que simula un fallo


@dataclass
class ResultadoDDP:
    """Lo que devuelve ``entrenar_ddp`` en cada proceso. Lección 08.

    ``historial``: el mismo ``Historial`` que ``entrenar`` (una fila por época; la pérdida de
    entrenamiento es la media de los pasos de la época, promediada entre procesos).
    """

    rango: int
    tamano_mundo: int
    epocas: int
    historial: Historial = field(default_factory=Historial)
    accuracy_validacion: float = 0.0
    huella_de_pesos: str = ""   # la de este proceso (distribuido.huella_de_pesos)
    copias_identicas: bool = False
    segundos: float = 0.0

    @property
    def perdidas(self) -> list[float]:
        """La pérdida de entrenamiento de cada época registrada (también las de antes de reanudar)."""
        return list(self.historial.perdida_entrenamiento)

    @property
    def reanudado_desde(self) -> int | None:
        return self.historial.reanudado_desde

    def __str__(self) -> str:
        reanudado = f" (reanudado tras la época {self.reanudado_desde})" if self.reanudado_desde else ""
        final = f"{self.perdidas[-1]:.4f}" if self.perdidas else "—"
        return (f"{contar(self.tamano_mundo, 'proceso')}, {contar(self.epocas, 'época')} en {self.segundos:.2f} s{reanudado} · "
                f"pérdida final {final} · acc. val. {self.accuracy_validacion:.3f} · "
                f"huella {self.huella_de_pesos} · copias idénticas: {'sí' if self.copias_identicas else 'NO'}")


def _decir(proceso: distribuido.Proceso, texto: str, todos: bool = False) -> None:
    """Imprime en el rango 0 (o en todos, con el rango delante)."""
    if todos:
        print(f"[rango {proceso.rango}/{proceso.tamano_mundo}] {texto}", flush=True)
    elif proceso.principal:
        print(texto, flush=True)


def entrenar_ddp(epocas: int = 10, tamano_lote: int = 16, semilla: int = 0, *, checkpoints=None,
                 destino_pesos=None, simular_fallo: int | None = None, backend: str | None = None,
                 silencioso: bool = False, estrategia: str = "ddp") -> ResultadoDDP:
    """Entrena ``CNNPequena`` con ``DistributedDataParallel`` (o FSDP) en este proceso. Lecciones 08 y 12.

    - ``tamano_lote``: el de cada proceso (el global es ``tamano_lote × procesos``).
    - ``checkpoints``: ``carpeta_checkpoints(...)`` (con sus opciones ``cada`` y ``reanudar``; sin
      ``cada``, uno por época) o una ruta (uno por época). El rango 0 toma el candado, decide si se
      reanuda y guarda, con el núcleo de ``entrenar`` (lección 05): una carpeta de uno la sigue el otro.
    - ``destino_pesos``: el rango 0 guarda ahí el ``state_dict`` final del modelo sin envolver
      (sin el prefijo ``module.``), con su SHA-256 (``cargar_pesos`` lo comprueba al cargar).
    - ``simular_fallo=E``: en el primer intento (``TORCHELASTIC_RESTART_COUNT`` = 0), el
      proceso de rango 1 muere en la época E, para practicar ``torchrun --max-restarts``.
    - ``estrategia="fsdp"`` (lección 12): el modelo se reparte con ``fully_shard`` en vez de copiarse
      entero; cada checkpoint es una carpeta ``.dcp`` donde cada rango escribe su trozo, y se sigue
      con cualquier número de procesos. ``destino_pesos`` guarda lo mismo que con DDP (el modelo entero).
    """
    if estrategia not in ESTRATEGIAS:
        raise ValueError(f"estrategia desconocida {mostrar_valor(estrategia)}; usa una de: {', '.join(ESTRATEGIAS)}.")
    fsdp = estrategia == "fsdp"
    epocas = leer_numero(epocas, "epocas", entero=True, minimo=1, ejemplo="epocas=10")
    tamano_lote = leer_numero(tamano_lote, "tamano_lote", entero=True, minimo=1, ejemplo="tamano_lote=16")
    semilla = validar_semilla(semilla if semilla is not None else 0)
    if simular_fallo is not None:
        simular_fallo = leer_numero(simular_fallo, "simular_fallo", entero=True, minimo=1, ejemplo="simular_fallo=3")
    # Las rutas, antes de formar el grupo y de tomar el candado.
    carpeta = como_carpeta(checkpoints, cada_por_defecto=1) if checkpoints is not None else None
    if destino_pesos is not None:
        destino_pesos = comprobar_destino(destino_pesos, "destino_pesos", sobrescribir=True)
    proceso = distribuido.iniciar(backend)
    torch.manual_seed(semilla)
    modelo = CNNPequena().to(proceso.dispositivo)  # el mismo modelo inicial en todos
    configuracion = configuracion_de_entrenamiento(
        modelo, lr=LR, tamano_lote=tamano_lote * proceso.tamano_mundo, epocas=epocas,
        dispositivo=proceso.dispositivo, semilla=semilla, criterio="CrossEntropyLoss",
        procesos=proceso.tamano_mundo, **({"estrategia": "fsdp"} if fsdp else {}))
    if fsdp:
        distribuido.fragmentar(modelo, proceso=proceso)  # cada rango se queda con su trozo de cada capa
    X, y = generar_dataset(EJEMPLOS_POR_CLASE, semilla=semilla)  # los mismos datos en todos los procesos
    nucleo = NucleoCheckpoints(carpeta, entrenador="entrenar_ddp", configuracion=configuracion,
                               datos=huella_de_datos(X, y) if carpeta is not None else None, cada=1,
                               escribe=proceso.principal, fragmentado=fsdp)
    with nucleo:  # el rango 0 comprueba la carpeta y toma su candado: un solo entrenamiento a la vez
        return _entrenar(proceso, nucleo, modelo, (X, y), epocas, tamano_lote, semilla, destino_pesos,
                         simular_fallo, silencioso)


def _reanudar(proceso: distribuido.Proceso, nucleo: NucleoCheckpoints, modelo: nn.Module) -> dict | None:
    """El rango 0 decide (la política única) y reparte el checkpoint a los demás."""
    respuesta = [None]
    if proceso.principal:
        try:
            dichos: list[str] = []

            def avisar(texto: str) -> None:
                dichos.append(texto)
                _decir(proceso, texto)

            with warnings.catch_warnings(record=True) as avisos:  # cada aviso, una vez y por la salida
                warnings.simplefilter("always", AvisoCheckpoint)
                estado = nucleo.decidir(modelo.state_dict(), "cpu", avisar)
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


def _trozos(modelo: nn.Module, optimizador) -> dict:
    """Los trozos de este rango (pesos y optimizador, como DTensor) que guarda un checkpoint de FSDP."""
    from torch.distributed.checkpoint.state_dict import get_model_state_dict, get_optimizer_state_dict

    return {"modelo": get_model_state_dict(modelo), "optimizador": get_optimizer_state_dict(modelo, optimizador)}


def _cargador_fragmentado(modelo: nn.Module, optimizador):
    """La función que lee un checkpoint de FSDP (con cualquier número de procesos) en ``modelo`` y ``optimizador``."""
    from torch.distributed.checkpoint.state_dict import set_model_state_dict, set_optimizer_state_dict

    def cargar(estado: dict) -> None:
        trozos = _trozos(modelo, optimizador)  # la forma de destino: los trozos de este rango ahora
        cargar_fragmentado(estado["ruta"], trozos)  # espera: todos leen a la vez; DCP reparte de nuevo
        set_model_state_dict(modelo, trozos["modelo"])
        set_optimizer_state_dict(modelo, optimizador, trozos["optimizador"])

    return cargar


def _medir(modelo: nn.Module, criterio, X, y, dispositivo) -> tuple[float, float]:
    """(pérdida, accuracy) de ``modelo`` sobre ``(X, y)``, sin gradientes. Aquí la CPU espera a la GPU."""
    with modo_evaluacion(modelo):
        logits = modelo(X.to(dispositivo))
        y = y.to(dispositivo)
        perdida, acierto = torch.stack([criterio(logits, y), (logits.argmax(1) == y).float().mean()]).tolist()
    return perdida, acierto


def _una_epoca(ddp, cargador, criterio, optimizador, dispositivo, fallar_en_la_epoca: int | None = None):
    """Una pasada por el trozo de datos de este proceso. Sin esperas de la CPU a la GPU: devuelve la
    suma de las pérdidas (en el dispositivo) y los pasos. ``fallar_en_la_epoca``: --simular-fallo."""
    suma, pasos = torch.zeros((), device=dispositivo), 0
    for paso, (xb, yb) in enumerate(cargador):
        if fallar_en_la_epoca is not None and paso == 1:
            print(f"[rango 1] Simulo un fallo en la época {fallar_en_la_epoca}: este proceso muere ahora.", flush=True)
            os._exit(FALLO)
        xb, yb = xb.to(dispositivo, non_blocking=True), yb.to(dispositivo, non_blocking=True)
        perdida = criterio(ddp(xb), yb)   # la media de los ejemplos de ESTE proceso
        optimizador.zero_grad(set_to_none=True)
        perdida.backward()                # espera: DDP promedia los gradientes de todos (all-reduce)
        optimizador.step()                # todos aplican el mismo gradiente: las copias siguen iguales
        suma += perdida.detach()
        pasos += 1
    return suma, pasos


def _entrenar(proceso: distribuido.Proceso, nucleo: NucleoCheckpoints, modelo: nn.Module, datos, epocas: int,
              tamano_lote: int, semilla: int, destino_pesos, simular_fallo: int | None,
              silencioso: bool) -> ResultadoDDP:
    """El cuerpo de ``entrenar_ddp``, con el grupo de procesos ya iniciado."""
    dispositivo = proceso.dispositivo
    _decir(proceso, f"{proceso}", todos=not silencioso and proceso.tamano_mundo > 1)

    # El muestreador reparte un trozo distinto de los mismos datos a cada proceso.
    X, y = datos
    X_val, y_val = generar_dataset(20, semilla=(semilla + 1) % (SEMILLA_MAXIMA + 1))
    conjunto = TensorDataset(X, y)
    muestreador = DistributedSampler(conjunto, num_replicas=proceso.tamano_mundo, rank=proceso.rango,
                                     shuffle=True, seed=semilla)
    cargador = DataLoader(conjunto, batch_size=tamano_lote, sampler=muestreador)

    # DDP además copia los pesos del rango 0 al envolver el modelo. FSDP ya lo repartió (fragmentar).
    if nucleo.fragmentado:
        ddp = modelo
    else:
        ddp = DistributedDataParallel(modelo, device_ids=[dispositivo.index] if dispositivo.type == "cuda" else None)
    optimizador = torch.optim.Adam(ddp.parameters(), lr=LR)
    criterio = nn.CrossEntropyLoss()

    resultado = ResultadoDDP(proceso.rango, proceso.tamano_mundo, epocas)
    historial = Historial(dispositivo=str(dispositivo), epocas_totales=epocas)
    inicio = 1
    if nucleo.carpeta is not None:
        estado = _reanudar(proceso, nucleo, modelo)
        if estado is not None:
            cargar = _cargador_fragmentado(modelo, optimizador) if nucleo.fragmentado else modelo.load_state_dict
            historial = nucleo.restaurar(estado, cargar_pesos=cargar, optimizador=optimizador, lr=LR)
            historial.continuar_en(dispositivo, epocas)
            inicio = int(estado["epoca"]) + 1
    resultado.historial = historial

    reinicio = int(os.environ.get("TORCHELASTIC_RESTART_COUNT", "0") or 0)
    if simular_fallo is not None and proceso.tamano_mundo == 1:
        _decir(proceso, "--simular-fallo: en un mundo de uno no hay rango 1; no se simula ningún fallo.")
    previos, comienzo = historial.segundos, time.perf_counter()
    for epoca in range(inicio, epocas + 1):
        muestreador.set_epoch(epoca)  # sin esto, todas las épocas reparten los mismos ejemplos
        if epoca == inicio and not silencioso and proceso.tamano_mundo > 1:
            indices = list(muestreador)
            _decir(proceso, f"época {epoca}: me tocan {len(indices)} ejemplos; los primeros: {indices[:6]}", todos=True)
        ddp.train()
        fallar = simular_fallo == epoca and proceso.rango == 1 and reinicio == 0
        suma, pasos = _una_epoca(ddp, cargador, criterio, optimizador, dispositivo, epoca if fallar else None)
        media = distribuido.promediar(suma / max(pasos, 1)).item()  # espera: un all-reduce y .item()
        parar_si_no_finita(0, [media], LR, historial, epoca)  # la misma media en todos: todos paran a la vez
        # Las copias son idénticas: cada proceso mide lo mismo, sin hablar con los demás.
        acierto_ent = _medir(modelo, criterio, X, y, dispositivo)[1]
        perdida_val, acierto_val = _medir(modelo, criterio, X_val, y_val, dispositivo)
        historial.segundos = previos + time.perf_counter() - comienzo
        historial.agregar(Registro(epoca, epocas, media, perdida_val, acierto_ent, acierto_val, historial.segundos))
        if not silencioso:
            _decir(proceso, f"época {epoca:3d}/{epocas} · pérdida media {media:.4f}")
        pesos = _trozos(modelo, optimizador) if nucleo.fragmentado else modelo.state_dict()
        nucleo.guardar(epoca, pesos=pesos, optimizador=optimizador, historial=historial,
                       semilla_lotes=semilla)  # DDP: solo el rango 0 escribe; FSDP: cada rango, su trozo
    resultado.segundos = time.perf_counter() - comienzo

    # ¿Siguen idénticas las copias? Cada proceso calcula su huella y el rango 0 las compara.
    # Con FSDP no hay copias: cada rango reúne el modelo entero (un all-gather) y calcula la huella de eso.
    completos = None
    if nucleo.fragmentado:
        completos = distribuido.pesos_completos(modelo, todos=True)  # espera: todos
        entero = CNNPequena()
        entero.load_state_dict(completos)
        resultado.huella_de_pesos = distribuido.huella_de_pesos(entero)
    else:
        resultado.huella_de_pesos = distribuido.huella_de_pesos(modelo)
    huellas = [None] * proceso.tamano_mundo
    torch.distributed.all_gather_object(huellas, resultado.huella_de_pesos)  # espera: todos
    resultado.copias_identicas = len(set(huellas)) == 1
    if not silencioso:
        _decir(proceso, f"huella de mis pesos: {resultado.huella_de_pesos}", todos=proceso.tamano_mundo > 1)
    resultado.accuracy_validacion = _medir(modelo, criterio, X_val, y_val, dispositivo)[1]
    if proceso.principal and destino_pesos is not None:
        # el modelo sin envolver (sin «module.») o, con FSDP, reunido: el mismo archivo, con su SHA-256
        guardar_pesos(completos if completos is not None else modelo, destino_pesos)
    nucleo.terminar()
    if not silencioso:
        pregunta = f"¿Copias idénticas en los {proceso.tamano_mundo} procesos?" if proceso.tamano_mundo > 1 else "¿Copias idénticas?"
        _decir(proceso, f"{pregunta} {'sí' if resultado.copias_identicas else 'NO'} · {resultado}")
    return resultado
