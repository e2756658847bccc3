"""¿Cuánta memoria necesita un modelo? ¿Me cabe en la GPU? Lección 04.

La regla rápida del curso:

- memoria de los pesos = número de parámetros × bytes por parámetro;
- para usar el modelo (inferencia), un margen de +20 % para activaciones y caché de atención;
- para entrenarlo entero con Adam y precisión mixta, unos 16 bytes por parámetro.

Las funciones devuelven bytes. ``a_gb`` y ``a_gib`` los pasan a GB (10⁹) y GiB (2³⁰).
"""

from __future__ import annotations

import math
import numbers
import re
from dataclasses import dataclass, field
from decimal import Decimal

import torch

from ..base import PRECISIONES, Celda, ComoTabla, Tabla, catalogo, formatear_bytes, leer_numero, mostrar_valor, precisiones

PRECISIONES_MODELO = ("fp32", "fp16", "bf16", "int8", "int4")
"""Las precisiones en que se guarda un modelo, de la más a la menos precisa."""

BYTES_POR_PARAMETRO: dict[str, float] = {p: PRECISIONES[p].bytes for p in PRECISIONES_MODELO}
"""Bytes que ocupa cada parámetro según la precisión en que se guarda."""

BYTES_ENTRENAMIENTO = 16
"""Bytes por parámetro para entrenar con Adam y precisión mixta: pesos en fp16 (2),
gradientes en fp16 (2), copia maestra de los pesos en fp32 (4) y los dos estados de Adam
en fp32 (4 + 4)."""

MARGEN_INFERENCIA = 1.2
"""+20 % sobre los pesos para activaciones y caché de atención al usar el modelo."""

GB = 10**9
"""Un gigabyte: 10⁹ bytes (lo que anuncian los fabricantes)."""

GIB = 2**30
"""Un gibibyte: 2³⁰ bytes = 1 073 741 824 (lo que cuentan nvidia-smi y los sistemas operativos)."""

MINIMO_SIN_SUFIJO = 1000
"""Un número sin sufijo menor que esto casi siempre es un error («8» en vez de «8B»)."""

PARAMETROS_MAXIMOS = 10**15
"""Más parámetros que esto (mil billones) es un error de escritura («1e9999B»), no un modelo."""

VRAM_MAXIMA_GB = 10**6
"""Más memoria que esto (un millón de GB) es un error de escritura, no una GPU."""

MARGEN_MAXIMO = 100
"""Un margen mayor (×100) es un error de escritura: el habitual es 1.2."""

BYTES_POR_PARAMETRO_MAXIMO = 1000
"""Más bytes por parámetro que esto es un error de escritura: entrenar con Adam pide unos 16."""

_SUFIJOS = {"": 0, "k": 3, "m": 6, "b": 9, "t": 12}
_PATRON_NUMERO = re.compile(r"^([0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:e([+-]?[0-9]+))?\s*([kmbt]?)$")


# ---------------------------------------------------------------------------
# Entradas: precisiones y número de parámetros
# ---------------------------------------------------------------------------

def precision_de_modelo(precision: str | torch.dtype) -> str:
    """Devuelve el nombre de la precisión ("fp32", "fp16", "bf16", "int8", "int4"). Lección 04.

    Acepta esos nombres en mayúsculas o minúsculas, "float16"/"bfloat16"/"float32", o el
    ``torch.dtype`` correspondiente (``torch.float16``...).
    """
    return precisiones.normalizar_precision(precision, PRECISIONES_MODELO)


def bytes_por_parametro(precision: str | torch.dtype) -> float:
    """Bytes de un parámetro en esa precisión: fp32 4, fp16 2, bf16 2, int8 1, int4 0.5. Lección 04."""
    return BYTES_POR_PARAMETRO[precision_de_modelo(precision)]


def _error_parametros(valor, motivo: str) -> ValueError:
    return ValueError(
        f"parametros debe ser un número con sufijo como '124M', '8B' o '1.5B' (K = mil, M = millón, B = mil "
        "millones), un número entero de parámetros como 124_000_000, un modelo de PyTorch o un modelo del catálogo "
        f"(p. ej. 'Llama 3 8B'); recibí {mostrar_valor(valor)} ({motivo})."
    )


_EJEMPLO_PARAMETROS = "parametros='8B' (8 mil millones), 124_000_000 o 'Llama 3 8B'"


def _desde_numero(valor) -> int:
    """Un número de parámetros escrito como número: un entero de 1000 a 10¹⁵ («8» es un error: ¿8B?)."""
    numero = leer_numero(valor, "parametros", minimo=0, minimo_incluido=False, maximo=PARAMETROS_MAXIMOS,
                         ejemplo=_EJEMPLO_PARAMETROS)
    if numero < MINIMO_SIN_SUFIJO:
        raise _error_parametros(
            valor, f"¿querías decir '{numero:g}B'? Un número sin sufijo es la cantidad exacta de parámetros")
    return leer_numero(valor, "parametros", entero=True, ejemplo=_EJEMPLO_PARAMETROS)


def _desde_texto(texto: str) -> int:
    modelo = catalogo.buscar_modelo(texto)
    if modelo is not None:
        return modelo.parametros
    limpio = texto.strip().lower().replace("_", "").replace(" ", "")
    if (limpio.count(",") == 1 and "." not in limpio and limpio[-1:] in "kmbt"
            and _PATRON_NUMERO.match(limpio.replace(",", "."))):
        limpio = limpio.replace(",", ".")  # coma decimal: "1,5B"
    encontrado = _PATRON_NUMERO.match(limpio)
    if not encontrado or limpio in ("", "."):
        if "," in texto:
            raise _error_parametros(texto, "no sé leer las comas; escribe el número sin separadores de miles")
        raise _error_parametros(texto, "no lo entiendo")
    cifra, exponente, sufijo = encontrado.groups()
    if exponente is not None and len(exponente.lstrip("+-0")) > 3:  # «1e9999B»: ni un número razonable
        motivo = "es menos de un parámetro" if exponente.startswith("-") else "es demasiado grande"
        raise _error_parametros(texto, f"{motivo}: el máximo es 10¹⁵, mil billones de parámetros")
    try:
        valor = Decimal(cifra).scaleb(int(exponente or 0) + _SUFIJOS[sufijo])
    except (ArithmeticError, ValueError):
        raise _error_parametros(texto, "no lo entiendo") from None
    if not sufijo:  # «124000000»: el número exacto
        return _desde_numero(int(valor) if valor == valor.to_integral_value() else valor)
    if valor <= 0:
        raise _error_parametros(texto, "debe ser mayor que cero")
    if valor < 1:
        raise _error_parametros(texto, "es menos de un parámetro")
    if valor > PARAMETROS_MAXIMOS:
        raise _error_parametros(texto, "es demasiado grande: el máximo es 10¹⁵, mil billones de parámetros")
    return int(valor.to_integral_value())


def contar_parametros(parametros) -> int:
    """Número de parámetros, venga como venga. Lección 04.

    - un número: la cantidad exacta (``124_000_000``, ``8e9``);
    - un texto con sufijo: ``"124M"``, ``"8B"``, ``"70b"``, ``"1.5B"``, ``"50K"``
      (K = mil, M = millón, B = mil millones, como en inglés: «8B» son 8 000 millones);
    - el nombre de un modelo del catálogo (``"Llama 3 8B"``) o un ``catalogo.Modelo``;
    - un ``torch.nn.Module``: se cuentan sus parámetros exactos (los compartidos, una vez).

    Cualquier otra cosa (negativo, cero, NaN, infinito, booleano, texto ilegible) lanza
    ``ValueError`` con una explicación en español.
    """
    if isinstance(parametros, torch.nn.Module):
        total = sum(p.numel() for p in parametros.parameters())
        if total == 0:
            raise _error_parametros(type(parametros).__name__, "el modelo no tiene parámetros")
        return int(total)
    if isinstance(parametros, catalogo.Modelo):
        return parametros.parametros
    if isinstance(parametros, str):
        return _desde_texto(parametros)
    if isinstance(parametros, (numbers.Real, Decimal)):
        return _desde_numero(parametros)
    raise _error_parametros(parametros, f"es de tipo {type(parametros).__name__}")


def nombre_del_modelo(parametros) -> str:
    """Cómo llamar a ``parametros`` en un texto: el nombre del catálogo o «8B parámetros». Lección 04."""
    if isinstance(parametros, catalogo.Modelo):
        return parametros.nombre
    if isinstance(parametros, str) and catalogo.buscar_modelo(parametros) is not None:
        return catalogo.buscar_modelo(parametros).nombre
    if isinstance(parametros, torch.nn.Module):
        return f"{type(parametros).__name__} ({formatear_parametros(contar_parametros(parametros))} parámetros)"
    return f"un modelo de {formatear_parametros(contar_parametros(parametros))} parámetros"


def _validar_margen(margen) -> float:
    """El factor que multiplica la memoria de los pesos: de 1 (sin margen) a ``MARGEN_MAXIMO``."""
    return leer_numero(margen, "margen", minimo=1, maximo=MARGEN_MAXIMO, ejemplo="margen=1.2 (+20 %) o 1.0 (sin margen)")


def _validar_vram(vram_gb) -> float:
    """La memoria de la GPU en GB: mayor que 0 y hasta ``VRAM_MAXIMA_GB``."""
    return leer_numero(vram_gb, "vram_gb", minimo=0, minimo_incluido=False, maximo=VRAM_MAXIMA_GB,
                       ejemplo="vram_gb=16 (una T4) u 80 (una H100)")


def _validar_bytes(bytes_por_param) -> float:
    """Bytes por parámetro: mayor que 0 y hasta ``BYTES_POR_PARAMETRO_MAXIMO``."""
    return leer_numero(bytes_por_param, "bytes_por_parametro", minimo=0, minimo_incluido=False,
                       maximo=BYTES_POR_PARAMETRO_MAXIMO,
                       ejemplo="bytes_por_parametro=16 (entrenar con Adam y precisión mixta)")


# ---------------------------------------------------------------------------
# La regla
# ---------------------------------------------------------------------------

def memoria_pesos(parametros, precision: str | torch.dtype = "fp16") -> float:
    """Bytes que ocupan los pesos: parámetros × bytes por parámetro. Lección 04.

    >>> a_gb(memoria_pesos("8B", "fp16"))
    16.0
    """
    return contar_parametros(parametros) * bytes_por_parametro(precision)


def memoria_inferencia(parametros, precision: str | torch.dtype = "fp16", margen: float = MARGEN_INFERENCIA) -> float:
    """Bytes para usar el modelo: pesos × margen (1.2 = +20 % de activaciones y caché). Lección 04.

    >>> round(a_gb(memoria_inferencia("8B", "fp16")), 1)
    19.2
    """
    margen = _validar_margen(margen)
    return memoria_pesos(parametros, precision) * margen


def memoria_entrenamiento(parametros, bytes_por_parametro: float = BYTES_ENTRENAMIENTO) -> float:
    """Bytes para entrenar el modelo entero: ~16 por parámetro con Adam y precisión mixta. Lección 04.

    Pesos fp16 (2) + gradientes fp16 (2) + copia fp32 de los pesos (4) + dos estados de Adam
    en fp32 (8). Sin contar las activaciones, que dependen del tamaño del lote.
    """
    return contar_parametros(parametros) * _validar_bytes(bytes_por_parametro)


def a_gb(n_bytes: float) -> float:
    """Bytes a GB (10⁹ bytes), la unidad de los fabricantes. Lección 04."""
    return n_bytes / GB


def a_gib(n_bytes: float) -> float:
    """Bytes a GiB (2³⁰ bytes), la unidad de nvidia-smi y del sistema operativo. Lección 04."""
    return n_bytes / GIB


def formatear_parametros(n: int) -> str:
    """Un número de parámetros corto: 124000000 → "124M", 8030000000 → "8.03B". Lección 04."""
    n = leer_numero(n, "n", minimo=0, ejemplo="n=124000000")
    for exponente, sufijo in ((12, "T"), (9, "B"), (6, "M"), (3, "K")):
        if n >= 10**exponente:
            return f"{n / 10**exponente:.3g}{sufijo}"
    return str(int(n))


def modelo_mas_grande(vram_gb: float, precision: str | torch.dtype = "fp16", margen: float = MARGEN_INFERENCIA) -> int:
    """La pregunta inversa: el mayor número de parámetros que cabe en ``vram_gb`` GB. Lección 04.

    >>> formatear_parametros(modelo_mas_grande(16, "fp16"))  # una T4
    '6.67B'
    """
    vram_gb = _validar_vram(vram_gb)
    margen = _validar_margen(margen)
    return int(math.floor(vram_gb * GB / (bytes_por_parametro(precision) * margen)))


# ---------------------------------------------------------------------------
# La tabla: ¿cabe o no cabe?
# ---------------------------------------------------------------------------

@dataclass
class FilaVRAM:
    """Una fila de la tabla: una precisión, la memoria que pide y si cabe."""

    precision: str
    bytes_por_parametro: float
    necesaria_bytes: float
    cabe: bool

    @property
    def necesaria_gb(self) -> float:
        return a_gb(self.necesaria_bytes)

    @property
    def veredicto(self) -> str:
        return "cabe" if self.cabe else "NO cabe"


@dataclass
class TablaVRAM(ComoTabla):
    """¿Cabe este modelo en esta GPU? Una fila por precisión y la línea de entrenamiento.

    La crea ``tabla_vram()``. En un notebook se ve como tabla; en una terminal, ``print(tabla)``.
    """

    parametros: int
    vram_gb: float
    margen: float
    filas: list[FilaVRAM] = field(default_factory=list)
    entrenamiento: FilaVRAM | None = None
    nombre: str = ""

    def fila(self, precision: str | torch.dtype) -> FilaVRAM:
        """La fila de esa precisión (acepta lo mismo que ``precision_de_modelo``)."""
        nombre = precision_de_modelo(precision)
        return next(f for f in self.filas if f.precision == nombre)

    def titulo(self) -> str:
        return f"{self.nombre or formatear_parametros(self.parametros)} en una GPU de {self.vram_gb:g} GB"

    def veredicto(self, precision: str | torch.dtype = "fp16") -> str:
        """Una frase: «Llama 3 8B en fp16 necesita 19.2 GB: NO cabe en 16 GB»."""
        fila = self.fila(precision)
        quien = self.nombre or f"Un modelo de {formatear_parametros(self.parametros)} parámetros"
        frase = f"{quien} en {fila.precision} necesita {formatear_bytes(fila.necesaria_bytes)}: {fila.veredicto} en {self.vram_gb:g} GB"
        if fila.cabe:
            frase += f" (sobran {formatear_bytes(max(self.vram_gb * GB - fila.necesaria_bytes, 0))})"
        return frase

    def tabla(self) -> Tabla:
        """La tabla: una fila por precisión y, si la hay, la de entrenar el modelo entero."""
        def veredicto(fila: FilaVRAM) -> Celda:
            color = "#1a7f37" if fila.cabe else "#cf222e"
            return Celda(fila.veredicto, f"color:{color};font-weight:bold;white-space:nowrap")

        filas = [[f.precision, f"{f.bytes_por_parametro:g}", formatear_bytes(f.necesaria_bytes), veredicto(f)]
                 for f in self.filas]
        ids = [f.precision for f in self.filas]
        if self.entrenamiento is not None:
            e = self.entrenamiento
            filas.append(["entrenar entero", f"~{e.bytes_por_parametro:g}", formatear_bytes(e.necesaria_bytes),
                          veredicto(e)])
            ids.append("entrenamiento")
        return Tabla(self.titulo(), ["Precisión", "Bytes/parámetro", "Memoria necesaria", "¿Cabe?"], filas,
                     subtitulo=f"(inferencia con margen +{(self.margen - 1) * 100:.0f} %)",
                     ids_filas=ids, nombre_id="precision")


def _cabe(necesaria_bytes: float, vram_gb: float) -> bool:
    return round(necesaria_bytes) <= round(vram_gb * GB)


def tabla_vram(parametros, vram_gb: float, margen: float = MARGEN_INFERENCIA) -> TablaVRAM:
    """La tabla de la lección: memoria por precisión y si cabe en ``vram_gb`` GB. Lección 04.

    ``parametros`` acepta lo mismo que ``contar_parametros``. La última línea es entrenar el
    modelo entero (~16 bytes por parámetro, sin margen).
    """
    n = contar_parametros(parametros)
    vram_gb = _validar_vram(vram_gb)
    margen = _validar_margen(margen)
    filas = []
    for precision, b in BYTES_POR_PARAMETRO.items():
        necesaria = n * b * margen
        filas.append(FilaVRAM(precision, b, necesaria, _cabe(necesaria, vram_gb)))
    entrenar = memoria_entrenamiento(n)
    nombre = nombre_del_modelo(parametros) if isinstance(parametros, (str, catalogo.Modelo)) else ""
    if nombre.startswith("un modelo de"):
        nombre = ""
    return TablaVRAM(
        parametros=n, vram_gb=vram_gb, margen=margen, filas=filas,
        entrenamiento=FilaVRAM("entrenamiento", BYTES_ENTRENAMIENTO, entrenar, _cabe(entrenar, vram_gb)),
        nombre=nombre,
    )


# ---------------------------------------------------------------------------
# Lección 07: la memoria al entrenar (vive en memoria_entrenamiento y lote_que_cabe)
# ---------------------------------------------------------------------------

