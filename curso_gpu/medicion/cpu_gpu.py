"""Medir CPU frente a GPU sin trampas: la multiplicación de matrices y sus comparaciones. Lección 03.

Usa las tres reglas de ``cronometro`` (sincronizar, calentar, mediana) y la comprobación de
memoria de ``memoria_libre``. En CPU se usan todos los hilos que PyTorch tiene
(``torch.get_num_threads()``), para que la comparación con la GPU sea justa. La forma mal
hecha (sin sincronizar) vive en ``sin_sincronizar``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Callable

import torch

from .cronometro import (
    Medicion,
    cronometrar,
    cronometrar_con_presupuesto,
    hilos_cpu,
)
from ..dispositivo import como_dispositivo, dispositivo_simulado, elegir_dispositivo, info_gpu, nombre_dispositivo
from .memoria_libre import (
    MemoriaInsuficiente,
    comprobar_que_cabe,
    es_falta_de_memoria,
    liberar_memoria,
    memoria_necesaria,
    tipo_de_dato,
)
from ..base import (
    ComoTabla, Tabla, contar, formatear_numero, formatear_tiempo, leer_numero, marcar_simulada, normalizar_precision,
    pico_teorico, tabla_html, tabla_texto,
)
from ..base import barra as barra_progreso

__all__ = [
    "ComparacionCpuGpu", "ResultadoBarrido", "ResultadoMatmul", "barrido", "comparar_cpu_gpu", "medir_matmul",
]

# ---------------------------------------------------------------------------
# Multiplicación de matrices
# ---------------------------------------------------------------------------

def _tf32_posible(d: torch.device) -> bool:
    """True si la GPU tiene TF32 (NVIDIA Ampere, capacidad 8.0, o posterior)."""
    if d.type != "cuda" or getattr(torch.version, "hip", None):
        return False
    gpu = info_gpu(d.index or 0)
    return bool(gpu and gpu.capacidad_computo and gpu.capacidad_computo[0] >= 8)


def _multiplicar(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return a @ b


def _copiar(t: torch.Tensor, d: torch.device) -> torch.Tensor:
    return t.to(d)


@dataclass
class ResultadoMatmul:
    """Una multiplicación ``a @ b`` de n×n medida con ``medir_matmul``. Lección 03."""

    n: int
    dtype: str  # "fp32", "fp16", "bf16", "fp64"
    modo: str  # lo que se midió de verdad: "fp32", "tf32", "fp16", "bf16" o "fp64"
    dispositivo: str
    nombre_dispositivo: str
    medicion: Medicion
    transferencia: Medicion | None  # copiar a y b de la CPU al dispositivo (None en cpu)
    precision_fp32: str  # torch.get_float32_matmul_precision() durante la medida
    tf32_permitido: bool  # torch.backends.cuda.matmul.allow_tf32 durante la medida
    hilos_cpu: int | None = None
    pico_tflops: float | None = None
    avisos: list[str] = field(default_factory=list)
    simulada: bool = False  # medida en la GPU simulada (CURSO_GPU_SIMULAR): en realidad, en la CPU

    @property
    def operaciones(self) -> int:
        """2·n³: n³ multiplicaciones y n³ sumas."""
        return 2 * self.n ** 3

    @property
    def segundos(self) -> float:
        """Mediana de las muestras (sin la transferencia)."""
        return self.medicion.mediana

    @property
    def gflops(self) -> float:
        """GFLOP/s = 2·n³ / segundos / 10⁹, con la mediana."""
        return self.operaciones / self.segundos / 1e9

    @property
    def segundos_transferencia(self) -> float:
        return self.transferencia.mediana if self.transferencia else 0.0

    @property
    def segundos_con_transferencia(self) -> float:
        return self.segundos + self.segundos_transferencia

    @property
    def porcentaje_pico(self) -> float | None:
        """El % del pico teórico de la GPU; None sin pico, y en la GPU simulada (el tiempo es de la CPU)."""
        return None if not self.pico_tflops or self.simulada else 100 * self.gflops / (self.pico_tflops * 1000)

    @property
    def supera_pico(self) -> bool:
        """Más del 100 % del pico teórico: imposible, así que la medida está mal."""
        return self.porcentaje_pico is not None and self.porcentaje_pico > 100

    def a_dict(self) -> dict:
        datos = asdict(self)
        datos["medicion"] = self.medicion.a_dict()
        datos["transferencia"] = self.transferencia.a_dict() if self.transferencia else None
        datos.update(segundos=self.segundos, gflops=self.gflops, porcentaje_pico=self.porcentaje_pico,
                     segundos_transferencia=self.segundos_transferencia)
        return datos

    def _filas(self) -> list[tuple[str, str]]:
        hilos = f" ({contar(self.hilos_cpu, 'hilo')})" if self.hilos_cpu else ""
        filas = [
            ("dispositivo", marcar_simulada(f"{self.dispositivo}: {self.nombre_dispositivo}{hilos}", self.simulada)),
            ("operación", f"a @ b, {self.n}×{self.n}, {self.modo}"),
            ("tiempo (mediana)", f"{formatear_tiempo(self.segundos)} de {self.medicion.repeticiones} muestras"),
            ("primera llamada (en frío)", formatear_tiempo(self.medicion.primera or 0.0)),
            ("rendimiento", formatear_numero(self.gflops, 1, "GFLOP/s")),
        ]
        if self.porcentaje_pico is not None:
            filas.append(("% del pico teórico", f"{self.porcentaje_pico:.0f} % de {self.pico_tflops:g} TFLOP/s"))
        if self.transferencia:
            filas.append(("copia CPU → dispositivo", formatear_tiempo(self.segundos_transferencia)))
        if self.dtype == "fp32" and self.dispositivo.startswith("cuda"):
            filas.append(("TF32", f"{'permitido' if self.tf32_permitido else 'desactivado'} "
                                  f"(precisión fp32: '{self.precision_fp32}')"))
        return filas

    def __str__(self) -> str:
        return tabla_texto(marcar_simulada("Multiplicación de matrices", self.simulada), self._filas(), self.avisos)

    def _repr_html_(self) -> str:
        return tabla_html(marcar_simulada("Multiplicación de matrices", self.simulada), self._filas(), self.avisos)


def medir_matmul(n: int, dispositivo=None, dtype=torch.float32, repeticiones: int = 5, calentamiento: int = 1,
                 medir_transferencia: bool = True, reloj: Callable[[], float] | None = None,
                 semilla: int = 0, presupuesto_s: float | None = None) -> ResultadoMatmul:
    """Mide ``a @ b`` con matrices n×n que ya están en el dispositivo. Lección 03.

    Devuelve segundos (mediana), GFLOP/s = 2·n³/t, la primera llamada en frío, el tiempo de
    copiar ``a`` y ``b`` de la CPU al dispositivo (aparte: mover datos también cuesta), el
    modo TF32 en vigor y, si se conoce la GPU, el % del pico teórico.

    ``dtype``: ``torch.float32`` (por defecto), ``torch.float16``, ``torch.bfloat16``,
    ``torch.float64`` o los textos ``"fp32"``, ``"tf32"`` (fp32 permitiendo TF32 solo durante
    la medida), ``"fp16"``, ``"bf16"``. Antes de reservar comprueba que 3·n²·bytes caben.

    ``presupuesto_s``: en lugar de ``repeticiones`` fijas, repite (en bloques) hasta gastar esos
    segundos, con al menos ``repeticiones`` muestras: la mediana sale estable también con n pequeño.
    """
    n = leer_numero(n, "n (el lado de la matriz)", entero=True, minimo=1)
    if presupuesto_s is not None:
        presupuesto_s = leer_numero(presupuesto_s, "presupuesto_s", minimo=0, minimo_incluido=False, ejemplo="presupuesto_s=2 (segundos)")
    leer_numero(repeticiones, "repeticiones", entero=True, minimo=1)
    leer_numero(calentamiento, "calentamiento", entero=True, minimo=0)
    tipo, pide_tf32 = tipo_de_dato(dtype)
    d = como_dispositivo(dispositivo)
    if d.type == "mps" and tipo == torch.float64:
        raise ValueError("La GPU de un Mac (mps) no admite fp64; recibí dtype=fp64. Usa fp32, fp16 o bf16.")
    comprobar_que_cabe(n, d, tipo)

    avisos: list[str] = []
    if pide_tf32 and not _tf32_posible(d):
        avisos.append(f"Pediste TF32, pero {d} no lo tiene (solo GPU NVIDIA Ampere o posteriores): "
                      "se midió fp32 normal.")
    precision_antes = torch.get_float32_matmul_precision()
    if pide_tf32:
        torch.set_float32_matmul_precision("high")
    a = b = None
    sin_memoria = error_de_cuda = False
    try:
        precision = torch.get_float32_matmul_precision()
        tf32_permitido = bool(torch.backends.cuda.matmul.allow_tf32)
        generador = torch.Generator().manual_seed(semilla)
        a_cpu = torch.randn(n, n, generator=generador, dtype=tipo)
        b_cpu = torch.randn(n, n, generator=generador, dtype=tipo)
        transferencia = None
        if d.type == "cpu":
            a, b = a_cpu, b_cpu
        else:
            destino: list[torch.Tensor] = []

            def copiar() -> None:
                destino.clear()  # suelta la copia anterior antes de hacer la nueva
                destino.extend([_copiar(a_cpu, d), _copiar(b_cpu, d)])

            if medir_transferencia:
                transferencia = cronometrar(copiar, d, repeticiones=3, calentamiento=0, reloj=reloj,
                                            descripcion=f"copiar a y b ({n}×{n}) de la CPU a {d}")
            else:
                copiar()
            a, b = destino
            destino.clear()
            del a_cpu, b_cpu
        descripcion = f"a @ b, {n}×{n}, {normalizar_precision(tipo)}, en {d}"
        if presupuesto_s is None:
            medicion = cronometrar(lambda: _multiplicar(a, b), d, repeticiones, calentamiento, reloj, descripcion)
        else:
            medicion = cronometrar_con_presupuesto(lambda: _multiplicar(a, b), d, float(presupuesto_s),
                                                    repeticiones, calentamiento, reloj, descripcion)
    except Exception as error:
        if not es_falta_de_memoria(error):
            raise
        sin_memoria, error_de_cuda = True, isinstance(error, torch.cuda.OutOfMemoryError)
    finally:
        if pide_tf32:
            torch.set_float32_matmul_precision(precision_antes)
    if sin_memoria:
        # Fuera del except: el traceback ya no retiene a, b ni los resultados intermedios.
        a = b = None
        liberar_memoria(d, error_de_cuda)
        sugerido = max(n // 2, 1)
        raise MemoriaInsuficiente(
            f"Se agotó la memoria de {d} al medir n={n} (a, b y c necesitan "
            f"{memoria_necesaria(n, tipo) / 1e9:.2f} GB, más lo que ya estuviera ocupado). "
            f"Ya se liberó la memoria reservada. Prueba con un tamaño menor, por ejemplo n={sugerido}.",
            memoria_necesaria(n, tipo), None, sugerido,
        )

    modo = normalizar_precision(tipo)
    if tipo == torch.float32 and tf32_permitido and _tf32_posible(d):
        modo = "tf32"
    nombre = nombre_dispositivo(d)
    pico = pico_teorico(nombre, modo) if d.type in ("cuda", "mps") and modo != "fp64" else None
    resultado = ResultadoMatmul(n, normalizar_precision(tipo), modo, str(d), nombre, medicion, transferencia,
                                precision, tf32_permitido, medicion.hilos_cpu, pico, avisos, dispositivo_simulado(d))
    if resultado.simulada:
        avisos.append(f"{nombre} simulada: se calculó en la CPU. El tiempo y los GFLOP/s no dicen nada de una "
                      "GPU, y el % de su pico no se calcula.")
    if resultado.supera_pico:
        avisos.append(f"{resultado.porcentaje_pico:.0f} % del pico teórico es imposible: la medida está "
                      "mal. Casi siempre falta sincronizar (torch.cuda.synchronize()) antes de parar el reloj.")
    return resultado


# ---------------------------------------------------------------------------
# CPU frente a acelerador
# ---------------------------------------------------------------------------

def _acelerador(dispositivo) -> torch.device | None:
    d = elegir_dispositivo("auto") if dispositivo is None or dispositivo == "auto" else como_dispositivo(dispositivo)
    return None if d.type == "cpu" else d


@dataclass
class ComparacionCpuGpu(ComoTabla):
    """La comparativa de la lección como datos: CPU, acelerador (o None) y aceleración. Lección 03."""

    n: int
    cpu: ResultadoMatmul
    acelerador: ResultadoMatmul | None

    @property
    def aceleracion(self) -> float | None:
        """Cuántas veces más rápido es el acelerador, sin contar la copia de datos."""
        return self.cpu.segundos / self.acelerador.segundos if self.acelerador else None

    @property
    def aceleracion_con_transferencia(self) -> float | None:
        """Lo mismo contando también la copia de a y b de la CPU al acelerador."""
        return self.cpu.segundos / self.acelerador.segundos_con_transferencia if self.acelerador else None

    def a_dict(self) -> dict:
        return {"n": self.n, "cpu": self.cpu.a_dict(),
                "acelerador": self.acelerador.a_dict() if self.acelerador else None,
                "aceleracion": self.aceleracion, "aceleracion_con_transferencia": self.aceleracion_con_transferencia}

    def tabla(self) -> Tabla:
        """Una fila por dispositivo (tiempo, GFLOP/s y % del pico); debajo, la aceleración y los avisos."""
        c = self.cpu
        titulo = (f"a @ b con matrices {self.n}×{self.n} ({c.dtype}), mediana de {c.medicion.repeticiones} "
                  f"medidas tras {c.medicion.calentamiento + 1} de calentamiento:")
        if self.acelerador is not None and self.acelerador.simulada:
            titulo = marcar_simulada(titulo, True)
        columnas = ["dispositivo", "tiempo", "GFLOP/s"]
        filas = [[f"CPU ({contar(c.hilos_cpu, 'hilo')})" if c.hilos_cpu else "CPU", formatear_tiempo(c.segundos), f"{c.gflops:.1f}"]]
        g = self.acelerador
        if g is None:
            return Tabla(titulo, columnas, filas,
                         notas=["No hay GPU: solo se midió la CPU. En una T4 de Colab esta misma cuenta va "
                                "decenas de veces más rápida."])
        filas.append([marcar_simulada(f"{g.dispositivo} ({g.nombre_dispositivo})", g.simulada), formatear_tiempo(g.segundos),
                      f"{g.gflops:.1f}"])
        if g.porcentaje_pico is not None:
            columnas.append("% del pico")
            filas = [filas[0] + [""], filas[1] + [f"{g.porcentaje_pico:.0f} % ({g.modo})"]]
        notas = [f"Aceleración: {self.aceleracion:.1f}x sin contar la copia; "
                 f"{self.aceleracion_con_transferencia:.1f}x contando la copia CPU → {g.dispositivo} "
                 f"({formatear_tiempo(g.segundos_transferencia)})."]
        if g.simulada:  # las dos filas son de la CPU: ninguna aceleración de GPU que contar
            notas = [f"Las dos filas se midieron en la CPU ({g.nombre_dispositivo} simulada): "
                     f"{self.aceleracion:.1f}x no es la aceleración de una GPU."]
        return Tabla(titulo, columnas, filas, notas=notas + [f"¡Ojo! {a}" for a in g.avisos])


def comparar_cpu_gpu(n: int = 5000, dispositivo=None, dtype=torch.float32, repeticiones: int = 5,
                     calentamiento: int = 1) -> ComparacionCpuGpu:
    """La comparativa de la lección: ``a @ b`` n×n en CPU y en el acelerador. Lección 03.

    ``dispositivo``: el acelerador (por defecto, el de ``elegir_dispositivo()``); si no hay,
    ``acelerador`` es None y solo se mide la CPU, con todos sus hilos.
    """
    n = leer_numero(n, "n (el lado de la matriz)", entero=True, minimo=1)
    acelerador = _acelerador(dispositivo)
    cpu = medir_matmul(n, torch.device("cpu"), dtype, repeticiones, calentamiento)
    gpu = medir_matmul(n, acelerador, dtype, repeticiones, calentamiento) if acelerador else None
    return ComparacionCpuGpu(n, cpu, gpu)


@dataclass
class ResultadoBarrido:
    """``medir_matmul`` para varios tamaños y dispositivos (para la gráfica log-log). Lección 03."""

    tamanos: list[int]
    resultados: dict[str, list[ResultadoMatmul]]  # dispositivo -> un resultado por tamaño medido
    omitidos: list[tuple[str, int, str]] = field(default_factory=list)  # (dispositivo, n, motivo)

    def banda(self, dispositivo: str) -> list[tuple[int, float, float, float]]:
        """(n, GFLOP/s mínimo, mediana, máximo) por tamaño: el mínimo sale de la muestra más lenta."""
        return [(r.n, r.operaciones / r.medicion.maximo / 1e9, r.gflops, r.operaciones / r.medicion.minimo / 1e9)
                for r in self.resultados.get(dispositivo, [])]

    @property
    def conclusion(self) -> str:
        """Lo que dicen las bandas de esta ejecución, en una frase por dispositivo (no lo que «debería» salir)."""
        frases = []
        for disp in self.resultados:
            banda = self.banda(disp)
            if len(banda) < 2:
                continue
            (n0, bajo0, med0, alto0), (n1, bajo1, med1, alto1) = banda[0], banda[-1]
            disp = marcar_simulada(disp, any(r.simulada for r in self.resultados[disp]))
            cifras = f"de {formatear_numero(med0, cifras=3)} GFLOP/s con n={n0} a {formatear_numero(med1, cifras=3)} con n={n1}"
            if bajo1 > alto0:
                frases.append(f"En esta ejecución, {disp} rindió más con matrices grandes: {cifras}.")
            elif alto1 < bajo0:
                frases.append(f"En esta ejecución, {disp} rindió menos con matrices grandes: {cifras}.")
            else:
                frases.append(f"En esta ejecución, {disp} no muestra una tendencia clara ({cifras}): "
                              "las bandas de los dos extremos se solapan.")
        cpu = next((d for d in self.resultados if d.startswith("cpu")), None)
        for disp in (d for d in self.resultados if d != cpu and cpu):
            por_n = {n: (bajo, alto) for n, bajo, _, alto in self.banda(cpu)}
            gana = [n for n, bajo, _, _ in self.banda(disp) if n in por_n and bajo > por_n[n][1]]
            frases.append(f"{disp} superó a la CPU sin solaparse desde n={gana[0]}." if gana else
                          f"{disp} no superó a la CPU con claridad en ningún tamaño medido.")
            if any(r.simulada for r in self.resultados[disp]):
                frases.append(f"Pero {disp} es la GPU simulada: sus medidas también son de la CPU y no dicen "
                              "nada de una GPU.")
        return " ".join(frases)

    def __str__(self) -> str:
        simulada = any(r.simulada for rs in self.resultados.values() for r in rs)
        lineas = [marcar_simulada("GFLOP/s de a @ b según el tamaño (mediana y, entre paréntesis, de la muestra más lenta a la más rápida)", simulada)]
        for disp in self.resultados:
            hilos = self.resultados[disp][0].hilos_cpu if self.resultados[disp] else None
            simulada = any(r.simulada for r in self.resultados[disp])
            lineas.append(f"  {marcar_simulada(disp, simulada)}{f' ({hilos} hilo' + ('s' if hilos != 1 else '') + ')' if hilos else ''}: " + ", ".join(
                f"n={n}: {formatear_numero(med, cifras=3)} ({formatear_numero(bajo, cifras=3)}–{formatear_numero(alto, cifras=3)})"
                for n, bajo, med, alto in self.banda(disp)))
        lineas += [f"  {disp}, n={n}: no medido ({motivo})" for disp, n, motivo in self.omitidos]
        return "\n".join(lineas)


def barrido(tamanos, dispositivos=None, dtype=torch.float32, repeticiones: int = 3, calentamiento: int = 1,
            silenciosa: bool = False, segundos_por_tamano: float | None = 0.3, hilos: int | None = 1) -> ResultadoBarrido:
    """Mide ``a @ b`` para cada tamaño en CPU y en el acelerador, con barra de progreso. Lección 03.

    Cada punto repite la medida hasta gastar ``segundos_por_tamano`` (al menos ``repeticiones``
    muestras; con ``None``, exactamente ``repeticiones``): así la mediana es estable y la curva
    no cambia de forma de una ejecución a otra.

    ``dispositivos``: por defecto la CPU y, si hay, el acelerador. Un tamaño que no cabe se
    apunta en ``omitidos`` y no se prueban los mayores en ese dispositivo.

    ``hilos``: con cuántos hilos mide la CPU (1 por defecto, con ``hilos_cpu``, que deja después
    los que había; ``None``: los que tenga PyTorch). Con un hilo la curva tiene la misma forma de
    una ejecución a otra aunque la máquina esté ocupada. ``conclusion`` resume lo que salió.
    """
    try:
        tamanos = list(tamanos)
    except TypeError:
        raise ValueError(f"tamanos debe ser una lista de enteros positivos; recibí {tamanos!r}.") from None
    tamanos = [leer_numero(t, "cada tamaño", entero=True, minimo=1, ejemplo="tamanos=[256, 512, 1024]") for t in tamanos]
    if not tamanos:
        raise ValueError("tamanos está vacío: pasa al menos un tamaño, p. ej. [256, 512, 1024].")
    tamanos = sorted(set(tamanos))
    if dispositivos is None:
        lista = [torch.device("cpu")] + ([a] if (a := _acelerador(None)) else [])
    else:
        lista = [como_dispositivo(x) for x in dispositivos]
    resultado = ResultadoBarrido(tamanos, {str(d): [] for d in lista})
    with hilos_cpu(hilos or torch.get_num_threads()), \
            barra_progreso(len(tamanos) * len(lista), "Barrido", silenciosa=silenciosa) as barra:
        for d in lista:
            agotado = False
            for n in tamanos:
                if agotado:
                    resultado.omitidos.append((str(d), n, "no cabe un tamaño menor"))
                else:
                    try:
                        resultado.resultados[str(d)].append(
                            medir_matmul(n, d, dtype, repeticiones, calentamiento,
                                         presupuesto_s=segundos_por_tamano))
                    except MemoriaInsuficiente as error:
                        resultado.omitidos.append((str(d), n, str(error)))
                        agotado = True
                barra.set_postfix_str(f"{d}, n={n}", refresh=False)
                barra.update(1)
    return resultado
