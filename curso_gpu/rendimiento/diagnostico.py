"""¿Por qué va lento mi entrenamiento? Los tres cuellos de botella, medidos. Lección 06.

- ``diagnosticar(paso, cargador, dispositivo)``: mide dónde se va el tiempo de unos pasos de
  entrenamiento —esperando **datos**, **lanzando** operaciones pequeñas o **calculando**— y
  dice cuál manda y qué hacer.
- ``comparar_cargadores(conjunto, tamano_lote)``: muestras por segundo de un ``DataLoader``
  según ``num_workers`` y ``pin_memory``.

Los procesos de los ``DataLoader`` que se crean aquí siempre se cierran (``finally``) y
tienen un tiempo máximo de espera: nunca se quedan colgados.
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass, field
from typing import Callable, Iterable

import torch

# comparar_cargadores vive en cargadores; la lección 06 lo importa desde aquí.
from .cargadores import cerrar_iterador, separar_lote
from ..dispositivo import como_dispositivo, dispositivo_simulado, sincronizar
from ..base import AVISO_SIMULADA, ComoTabla, Tabla, contar, formatear_numero, formatear_tiempo, leer_numero, marcar_simulada

__all__ = ["Diagnostico", "PasoFallido", "diagnosticar", "perfilador_ve"]

_CUELLOS = ("datos", "lanzamientos", "calculo")
_TIPOS_DISPOSITIVO = ("CUDA", "XPU", "PrivateUse1")  # eventos del perfilador que ocurren en la GPU
_FIJO_EN_DESPACHOS = 4  # una operación diminuta (reservar, copiar un escalar...) cuesta unos 4 despachos

_CONSEJOS = {
    "datos": (
        "El dispositivo espera a los datos. Sube num_workers en el DataLoader (2, 4... hasta los "
        "núcleos de tu CPU), con persistent_workers=True; en CUDA añade pin_memory=True y "
        ".to(dispositivo, non_blocking=True). En Colab, copia los datos de Drive al disco local "
        "antes de entrenar. Si la transformación es cara, hazla una vez y guarda el resultado."),
    "lanzamientos": (
        "El tiempo se va en lanzar muchas operaciones pequeñas: cada una cuesta unos microsegundos "
        "fijos, haga mucho o poco trabajo. Sube el tamaño del lote para que cada operación haga "
        "más, quita las sincronizaciones ocultas (.item(), print(perdida), .cpu() en cada paso: "
        "regístralas cada N pasos) y prueba torch.compile para fusionar operaciones."),
    "calculo": (
        "El dispositivo está ocupado calculando: es el buen caso. Para ir más rápido, usa precisión "
        "mixta (entrenar(..., precision='fp16') en una T4, 'bf16' en Ampere o más nueva), TF32 en "
        "Ampere, torch.compile, o un dispositivo más potente."),
}


# ---------------------------------------------------------------------------
# diagnosticar
# ---------------------------------------------------------------------------

@dataclass
class Diagnostico(ComoTabla):
    """Dónde se va el tiempo de un paso de entrenamiento y qué hacer. Lección 06.

    Las tres fracciones suman 1: ``fraccion_datos`` (esperando el siguiente lote),
    ``fraccion_lanzamientos`` (Python y el coste fijo de lanzar cada operación) y
    ``fraccion_calculo`` (el dispositivo haciendo cuentas). ``cuello`` es la mayor.
    """

    cuello: str
    fraccion_datos: float
    fraccion_lanzamientos: float
    fraccion_calculo: float
    muestras_por_segundo: float
    pasos: int
    segundos_por_paso: float          # mediana de cada paso completo (esperar datos + calcular)
    operaciones_por_paso: float       # operaciones de PyTorch de primer nivel, según el perfilador
    microsegundos_por_operacion: float  # coste fijo de lanzar una operación diminuta aquí
    sincronizaciones_por_paso: float  # .item(), print(perdida)...: la CPU espera al dispositivo
    dispositivo: str
    tiempos_datos: list[float] = field(default_factory=list, repr=False)
    tiempos_paso: list[float] = field(default_factory=list, repr=False)
    simulada: bool = False  # medido en la GPU simulada: los tiempos (y el coste de lanzar) son de la CPU

    @property
    def nombre_cuello(self) -> str:
        """El cuello de botella como se escribe: «datos», «lanzamientos» o «cálculo» (``cuello`` es la clave, sin tilde)."""
        return {"calculo": "cálculo"}.get(self.cuello, self.cuello)

    @property
    def consejo(self) -> str:
        """Qué hacer, en español, según el cuello de botella."""
        texto = _CONSEJOS[self.cuello]
        if self.sincronizaciones_por_paso >= 1 and self.dispositivo != "cpu":
            texto += (f" Ojo: cada paso espera al dispositivo {contar(round(self.sincronizaciones_por_paso), 'vez')} "
                      "(.item(), print, .cpu()): haz esas lecturas cada N pasos.")
        return texto

    def _filas(self) -> list[tuple[str, str]]:
        return [
            ("esperando datos", formatear_numero(100 * self.fraccion_datos, 0, "%")),
            ("lanzando operaciones", formatear_numero(100 * self.fraccion_lanzamientos, 0, "%")),
            ("calculando", formatear_numero(100 * self.fraccion_calculo, 0, "%")),
            ("muestras por segundo", formatear_numero(self.muestras_por_segundo, 0)),
            ("tiempo por paso (mediana)", f"{self.segundos_por_paso * 1e3:.2f} ms"),
            ("operaciones por paso", formatear_numero(self.operaciones_por_paso, 0)),
            ("lanzarlas, por paso", self._lanzar_por_paso()),
        ]

    def _lanzar_por_paso(self) -> str:
        """El tiempo de lanzar las operaciones de un paso, y por operación: la misma cuenta que el «%» de arriba
        (la fracción de lanzamientos por el tiempo del paso), con Python entre una y otra incluido."""
        segundos = self.fraccion_lanzamientos * self.segundos_por_paso
        texto = f"≈ {formatear_tiempo(segundos)}"
        if self.operaciones_por_paso >= 1:
            texto += (f" (≈ {formatear_tiempo(segundos / self.operaciones_por_paso)} cada una; la más diminuta, "
                      f"sola, cuesta {formatear_tiempo(self.microsegundos_por_operacion * 1e-6)})")
        return texto

    def _titulo(self) -> str:
        nombres = {"datos": "los DATOS", "lanzamientos": "los LANZAMIENTOS", "calculo": "el CÁLCULO"}
        return marcar_simulada(f"Cuello de botella en {self.dispositivo}: {nombres[self.cuello]} "
                               f"({self.pasos} pasos medidos)", self.simulada)

    def tabla(self) -> Tabla:
        """El diagnóstico como ``Tabla`` de pares (qué, valor), con la barra de las tres fracciones en HTML."""
        barra = "".join(
            f"<div title='{t}' style='width:{100 * f:.1f}%;background:{c}'></div>"
            for t, f, c in (("datos", self.fraccion_datos, "#cf222e"),
                            ("lanzamientos", self.fraccion_lanzamientos, "#bf8700"),
                            ("cálculo", self.fraccion_calculo, "#2da44e")))
        notas = [f"Consejo: {self.consejo}"]
        if self.simulada:  # lanzar una operación aquí cuesta el Python del simulador, no el de una GPU
            notas.insert(0, f"{AVISO_SIMULADA} El coste de lanzar cada operación es el del simulador, en Python.")
        return Tabla(self._titulo(), [], [list(fila) for fila in self._filas()], notas=notas,
                     grafico_html=f"<div style='display:flex;height:1em;width:24em;margin:4px 0'>{barra}</div>")


class PasoFallido(RuntimeError):
    """El ``paso`` que se pasó a ``diagnosticar`` lanzó una excepción."""


def _mover(valor, dispositivo: torch.device):
    return valor.to(dispositivo, non_blocking=True) if isinstance(valor, torch.Tensor) else valor


def _tamano(xb) -> int:
    if isinstance(xb, torch.Tensor) and xb.ndim > 0:
        return int(xb.shape[0])
    try:
        return len(xb)
    except TypeError:
        return 1


def _llamar(paso, xb, yb, numero: int, que: str):
    try:
        return paso(xb, yb)
    except Exception as error:
        raise PasoFallido(
            f"El paso de entrenamiento falló en el lote {numero} ({que}) con {type(error).__name__}: "
            f"{error}. Pruébalo a mano con un lote, paso(xb, yb), antes de diagnosticar.") from error


def perfilador_ve(tipo: str) -> bool:
    """¿Puede ``torch.profiler`` medir los kernels de ``tipo`` (``"cuda"``, ``"xpu"``) aquí? Lección 06.

    Lo dice ``torch.profiler.supported_activities()``: un PyTorch solo para CPU (o la T4
    simulada, que calcula en la CPU) solo ve ``ProfilerActivity.CPU``.
    """
    actividad = getattr(torch.profiler.ProfilerActivity, str(tipo).upper(), None)
    return actividad is not None and actividad in torch.profiler.supported_activities()


def _perfilar(funcion, dispositivo: torch.device):
    """Ejecuta ``funcion()`` con el perfilador de autograd y devuelve sus eventos.

    Se usa ``torch.autograd.profiler.profile`` (el motor de ``torch.profiler``): arranca en
    milisegundos y da lo mismo que hace falta aquí. En CUDA/XPU registra también los kernels,
    si este PyTorch puede verlos (``torch.profiler.supported_activities()``): uno sin CUPTI, o
    la T4 simulada, solo ve la CPU, y pedirle la GPU llenaría stderr de avisos.
    """
    en_gpu = dispositivo.type in ("cuda", "xpu") and perfilador_ve(dispositivo.type)
    opciones = {"use_device": dispositivo.type, "use_kineto": True} if en_gpu else {}
    with torch.autograd.profiler.profile(**opciones) as perfil:
        funcion()
    return perfil.function_events


def _primer_nivel(eventos, marca: str) -> list:
    """Las operaciones de primer nivel dentro de ``marca``.

    También las del hilo de autograd (en CUDA, el backward corre en otro hilo): las que no
    tienen padre y empiezan mientras dura ``marca``.
    """
    marcas = [e for e in eventos if e.name == marca]
    def en_cpu(e):
        return getattr(e.device_type, "name", "CPU") == "CPU" and not e.is_async and e.name != marca
    def dentro(e):
        return any(m.thread != e.thread and m.time_range.start <= e.time_range.start <= m.time_range.end
                   for m in marcas)
    return [e for e in eventos if en_cpu(e) and (
        (e.cpu_parent is not None and e.cpu_parent.name == marca) or (e.cpu_parent is None and dentro(e)))]


def _despachos(evento) -> int:
    """Cuántas operaciones de PyTorch despacha ``evento``: ella y todas las que llama dentro."""
    return 1 + sum(_despachos(hijo) for hijo in evento.cpu_children)


def _coste_por_operacion(dispositivo: torch.device) -> float:
    """Microsegundos que cuesta una operación diminuta aquí (con el perfilador puesto)."""
    x = torch.zeros(4, device=dispositivo)

    def diminutas():
        with torch.autograd.profiler.record_function("calibrar"):
            for _ in range(60):
                torch.neg(x)

    diminutas()
    sincronizar(dispositivo)
    eventos = _perfilar(diminutas, dispositivo)
    operaciones = _primer_nivel(eventos, "calibrar")
    duraciones = [e.time_range.elapsed_us() for e in operaciones] or [5.0]
    return statistics.median(duraciones)


_ESPERAS_CUDA = ("cudaStreamSynchronize", "cudaDeviceSynchronize", "cudaEventSynchronize")


def _dentro_de(evento, prefijos: tuple[str, ...]) -> bool:
    padre = evento.cpu_parent
    while padre is not None:
        if padre.name.startswith(prefijos):
            return True
        padre = padre.cpu_parent
    return False


def _sincronizaciones(eventos) -> int:
    """Las veces que la CPU espera al dispositivo dentro del paso (fuera de nuestra espera final).

    En CUDA, las esperas del runtime; en los demás, cada lectura de un número de un tensor
    (``.item()``, ``float(t)``...), que en una GPU es una espera. No cuentan las del optimizador:
    PyTorch guarda sus contadores en la CPU precisamente para no esperar.
    """
    esperas = [e for e in eventos if e.name in _ESPERAS_CUDA]
    if not esperas:
        esperas = [e for e in eventos if e.name == "aten::_local_scalar_dense"]
    return sum(1 for e in esperas if not _dentro_de(e, ("esperar_al_dispositivo", "Optimizer.step")))


def _reparto_del_paso(paso, xb, yb, dispositivo: torch.device, numero: int):
    """(fracción de lanzamientos, fracción de cálculo, operaciones, sincronizaciones, µs por operación).

    Perfila dos pasos más y se queda, de cada operación y del tiempo entre operaciones, con
    el menor de los dos: así una pausa del sistema operativo (una máquina cargada) no cuenta.
    """
    def un_paso():
        with torch.autograd.profiler.record_function("paso"):
            _llamar(paso, xb, yb, numero, "perfilado")
            with torch.autograd.profiler.record_function("esperar_al_dispositivo"):
                sincronizar(dispositivo)

    corridas = []
    for _ in range(2):
        eventos = _perfilar(un_paso, dispositivo)
        total = sum(e.time_range.elapsed_us() for e in eventos if e.name == "paso")
        operaciones = _primer_nivel(eventos, "paso")
        duraciones = [e.time_range.elapsed_us() for e in operaciones]
        de_gpu = sum(e.time_range.elapsed_us() for e in eventos
                     if getattr(e.device_type, "name", "CPU") in _TIPOS_DISPOSITIVO)
        corridas.append((eventos, operaciones, duraciones, total - sum(duraciones), total, de_gpu))
    eventos, operaciones, duraciones, entre, total, de_gpu = min(corridas, key=lambda c: c[4])
    otra = corridas[0] if corridas[1][0] is eventos else corridas[1]
    if [e.name for e in otra[1]] == [e.name for e in operaciones]:
        duraciones = [min(a, b) for a, b in zip(duraciones, otra[2])]
        entre = min(entre, otra[3])
    coste = _coste_por_operacion(dispositivo)
    sincronizaciones = _sincronizaciones(eventos)
    propias = [(e, d) for e, d in zip(operaciones, duraciones) if e.name != "esperar_al_dispositivo"]
    total = max(entre + sum(duraciones), 1e-3)
    if de_gpu:
        # Con tiempos de la GPU: calcula mientras corren sus kernels; el resto del paso, espera a la CPU.
        calculo = de_gpu
    else:
        # Sin ellos (CPU, MPS): una operación diminuta cuesta unas veces el fijo de despachar (el
        # suyo y el de las que llama por dentro), haga poco o nada; lo que pasa de ahí es calcular.
        # El tiempo entre operaciones es Python (lanzar). Esperar al dispositivo es calcular.
        espera = sum(d for e, d in zip(operaciones, duraciones) if e.name == "esperar_al_dispositivo")
        calculo = espera + sum(max(0.0, d - _FIJO_EN_DESPACHOS * coste * _despachos(e)) for e, d in propias)
    calculo = min(calculo, total)
    return (total - calculo) / total, calculo / total, len(propias), sincronizaciones, coste


def diagnosticar(paso: Callable, cargador: Iterable, dispositivo, pasos: int = 20) -> Diagnostico:
    """¿Espera a los datos, a los lanzamientos o calcula? Mide ``pasos`` pasos de entrenamiento. Lección 06.

    ``paso(xb, yb)`` da un paso de entrenamiento con un lote (forward, pérdida, backward,
    step). ``cargador`` da lotes ``(xb, yb)`` (un ``DataLoader`` o una lista de pares); cada
    lote se mueve a ``dispositivo`` con ``non_blocking=True``.

    1. Un paso de calentamiento, que no cuenta.
    2. ``pasos`` pasos cronometrados: cuánto se espera al siguiente lote y cuánto dura el paso
       (sincronizando con el dispositivo al final de cada uno, para que el tiempo sea real).
       Si el cargador se acaba antes, se mide lo que haya.
    3. Dos pasos más con el perfilador (``torch.autograd.profiler``) sobre el último lote:
       cuántas operaciones lanza cada paso, cuánto dura cada una frente al coste fijo de una
       operación diminuta en este dispositivo y, en CUDA, cuánto trabajan sus kernels.

    Devuelve un ``Diagnostico`` con el cuello de botella (``"datos"``, ``"lanzamientos"`` o
    ``"calculo"``), las fracciones de tiempo, las muestras por segundo y un consejo.
    """
    if not callable(paso):
        raise ValueError(f"paso debe ser una función paso(xb, yb); recibí {type(paso).__name__}.")
    pasos = leer_numero(pasos, "pasos", entero=True, minimo=1, ejemplo="pasos=20")
    dispositivo = como_dispositivo(dispositivo)
    try:
        iterador = iter(cargador)
    except TypeError:
        raise ValueError(
            f"cargador debe ser un DataLoader o una lista de lotes (xb, yb); recibí {type(cargador).__name__}.") from None
    tiempos_datos, tiempos_paso, muestras = [], [], 0
    try:
        lote = next(iterador, None)
        if lote is None:
            raise ValueError("El cargador está vacío: no dio ningún lote. Revisa el conjunto de datos "
                             "y el tamaño del lote (con drop_last=True, un conjunto más pequeño que el lote no da ninguno).")
        xb, yb = (_mover(v, dispositivo) for v in separar_lote(lote, 1, "diagnosticar llama a paso(xb, yb)"))
        _llamar(paso, xb, yb, 1, "calentamiento")
        sincronizar(dispositivo)
        for numero in range(2, pasos + 2):
            inicio = time.perf_counter()
            lote = next(iterador, None)          # aquí se espera al cargador
            if lote is None:
                break
            xb, yb = (_mover(v, dispositivo) for v in separar_lote(lote, numero, "diagnosticar llama a paso(xb, yb)"))
            listo = time.perf_counter()
            _llamar(paso, xb, yb, numero, "medido")
            sincronizar(dispositivo)             # la CPU espera a que el dispositivo termine el paso
            fin = time.perf_counter()
            tiempos_datos.append(listo - inicio)
            tiempos_paso.append(fin - listo)
            muestras += _tamano(xb)
    finally:
        cerrar_iterador(iterador, cargador)
    if not tiempos_paso:  # el cargador solo tenía un lote: se mide ese
        for _ in range(min(pasos, 3)):
            listo = time.perf_counter()
            _llamar(paso, xb, yb, 1, "medido")
            sincronizar(dispositivo)
            tiempos_datos.append(0.0)
            tiempos_paso.append(time.perf_counter() - listo)
            muestras += _tamano(xb)

    lanzar, calcular, operaciones, sincronizaciones, coste = _reparto_del_paso(
        paso, xb, yb, dispositivo, len(tiempos_paso) + 2)
    total = sum(tiempos_datos) + sum(tiempos_paso)
    # Las fracciones salen de las medianas: una pausa del sistema en un solo paso no cambia el veredicto.
    datos_mediana, paso_mediana = statistics.median(tiempos_datos), statistics.median(tiempos_paso)
    fraccion_datos = datos_mediana / (datos_mediana + paso_mediana) if datos_mediana + paso_mediana > 0 else 0.0
    fracciones = {"datos": fraccion_datos,
                  "lanzamientos": (1 - fraccion_datos) * lanzar,
                  "calculo": (1 - fraccion_datos) * calcular}
    cuello = max(_CUELLOS, key=fracciones.__getitem__)
    por_paso = [d + p for d, p in zip(tiempos_datos, tiempos_paso)]
    return Diagnostico(
        cuello=cuello, fraccion_datos=fracciones["datos"], fraccion_lanzamientos=fracciones["lanzamientos"],
        fraccion_calculo=fracciones["calculo"], muestras_por_segundo=muestras / total if total > 0 else 0.0,
        pasos=len(tiempos_paso), segundos_por_paso=statistics.median(por_paso),
        operaciones_por_paso=operaciones, microsegundos_por_operacion=coste,
        sincronizaciones_por_paso=sincronizaciones, dispositivo=str(dispositivo),
        tiempos_datos=tiempos_datos, tiempos_paso=tiempos_paso, simulada=dispositivo_simulado(dispositivo))
