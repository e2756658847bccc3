"""Los datos de la lección 05: imágenes de líneas de 8×8 y un problema tabular pequeño.

- ``generar_dataset``: imágenes sintéticas de líneas verticales, horizontales y oblicuas.
- ``lineas_dibujadas``: líneas como las que dibuja una persona en la cuadrícula (para probar).
- ``generar_datos_tabulares``: dos columnas de números y una etiqueta 0/1 (el calentamiento).
"""

from __future__ import annotations

import torch

from ..base import leer_numero

NOMBRES_CLASES = ("vertical", "horizontal", "oblicua")
RECETAS = ("variada", "semilla")
LADO = 8
RUIDO = 0.10  # imagen + 0.10·U(0, 1), recortada a [0, 1]


def _validar_n(n, nombre: str) -> int:
    return leer_numero(n, nombre, entero=True, minimo=1, maximo=10**7, ejemplo=f"{nombre}=120")


def _generador(semilla) -> torch.Generator | None:
    """Un generador propio si hay semilla (reproducible); si no, el global de torch."""
    if semilla is None:
        return None
    semilla = leer_numero(semilla, "semilla", entero=True, minimo=0, ejemplo="semilla=0 (o None)")
    return torch.Generator().manual_seed(semilla)


def _entero(bajo: int, alto: int, g) -> int:
    """Un entero al azar en [bajo, alto), siempre con la misma llamada (así la receta «semilla» es reproducible)."""
    return int(torch.randint(bajo, alto, (1,), generator=g).item())


def _con_ruido(matriz: torch.Tensor, g) -> torch.Tensor:
    return (matriz + RUIDO * torch.rand(LADO, LADO, generator=g)).clamp(0.0, 1.0)


# ---------------------------------------------------------------------------
# La receta «semilla»: columnas y filas 1-6, las dos diagonales principales
# ---------------------------------------------------------------------------

def _semilla(clase: int, g) -> torch.Tensor:
    matriz = torch.zeros(LADO, LADO)
    if clase == 0:
        matriz[:, _entero(1, 7, g)] = 1
    elif clase == 1:
        matriz[_entero(1, 7, g), :] = 1
    else:
        diagonal = torch.arange(LADO)
        columnas = diagonal if _entero(0, 2, g) == 0 else LADO - 1 - diagonal
        matriz[diagonal, columnas] = 1
    return _con_ruido(matriz, g)


# ---------------------------------------------------------------------------
# La receta variada: lo que de verdad dibuja una persona
# ---------------------------------------------------------------------------

def _recortar(celdas: list[tuple[int, int]], g) -> list[tuple[int, int]]:
    """Entera (1/3), más corta (1/3) o con huecos (1/3); siempre quedan 3 celdas o más."""
    tipo = _entero(0, 3, g)
    if tipo == 1 and len(celdas) > 3:
        largo = _entero(3, len(celdas), g)
        inicio = _entero(0, len(celdas) - largo + 1, g)
        celdas = celdas[inicio:inicio + largo]
    elif tipo == 2 and len(celdas) > 4:
        huecos = _entero(1, 3, g)
        for _ in range(huecos):
            if len(celdas) > 4:
                del celdas[_entero(1, len(celdas) - 1, g)]  # nunca los extremos
    return celdas


def _variada(clase: int, g) -> torch.Tensor:
    if clase == 0:
        columna = _entero(0, LADO, g)
        celdas = [(fila, columna) for fila in range(LADO)]
    elif clase == 1:
        fila = _entero(0, LADO, g)
        celdas = [(fila, columna) for columna in range(LADO)]
    else:
        desplazamiento = _entero(-3, 4, g)  # diagonales desplazadas, de 5 a 8 celdas
        invertida = _entero(0, 2, g) == 1
        celdas = []
        for fila in range(LADO):
            columna = fila + desplazamiento
            if 0 <= columna < LADO:
                celdas.append((fila, LADO - 1 - columna if invertida else columna))
    matriz = torch.zeros(LADO, LADO)
    for fila, columna in _recortar(celdas, g):
        matriz[fila, columna] = 1
    return _con_ruido(matriz, g)


def generar_dataset(n_por_clase: int, semilla: int | None = None, receta: str = "variada"):
    """Imágenes de líneas de 8×8 y sus etiquetas. Lección 05.

    Devuelve ``(X, y)``: ``X`` float32 de forma ``[N, 1, 8, 8]`` con valores en [0, 1] y
    ``y`` long con 0 = vertical, 1 = horizontal, 2 = oblicua (``NOMBRES_CLASES``), con
    ``N = 3 · n_por_clase`` y las clases intercaladas.

    - ``receta="variada"`` (por defecto): líneas en cualquier fila o columna (también en
      los bordes), más cortas o con huecos, y diagonales desplazadas: lo que dibuja una
      persona en la cuadrícula.
    - ``receta="semilla"``: la receta más sencilla (columnas y filas 1 a 6 y las
      dos diagonales principales). Con ``semilla=s`` da siempre los mismos tensores,
      los mismos que un bucle con ``torch.randint`` tras ``torch.manual_seed(s)``.

    Las dos suman ruido ``0.10·U(0, 1)`` y recortan a [0, 1]. Con ``semilla`` el resultado
    es siempre el mismo y no toca el generador global de torch.
    """
    _validar_n(n_por_clase, "n_por_clase")
    if receta not in RECETAS:
        raise ValueError(f"Receta desconocida {receta!r}; usa una de: {', '.join(RECETAS)}.")
    g = _generador(semilla)
    dibujar = _semilla if receta == "semilla" else _variada
    imagenes, etiquetas = [], []
    for _ in range(n_por_clase):
        for clase in range(len(NOMBRES_CLASES)):
            imagenes.append(dibujar(clase, g))
            etiquetas.append(clase)
    X = torch.stack(imagenes).unsqueeze(1).to(torch.float32)
    y = torch.tensor(etiquetas, dtype=torch.long)
    return X, y


# ---------------------------------------------------------------------------
# Líneas "a mano" para comparar recetas
# ---------------------------------------------------------------------------

def _vertical(columna: int, filas) -> list[tuple[int, int]]:
    return [(f, columna) for f in filas]


def _horizontal(fila: int, columnas) -> list[tuple[int, int]]:
    return [(fila, c) for c in columnas]


def _diagonal(desplazamiento: int, invertida: bool = False, quitar=()) -> list[tuple[int, int]]:
    celdas = [(f, f + desplazamiento) for f in range(LADO) if 0 <= f + desplazamiento < LADO]
    if invertida:
        celdas = [(f, LADO - 1 - c) for f, c in celdas]
    return [c for i, c in enumerate(celdas) if i not in quitar]


_TODAS = range(LADO)
_DIBUJOS = (
    # verticales: bordes, cortas y con huecos
    (0, _vertical(0, _TODAS)),
    (0, _vertical(7, _TODAS)),
    (0, _vertical(3, range(1, 6))),
    (0, _vertical(5, [0, 1, 2, 4, 5, 6, 7])),
    (0, _vertical(2, range(2, 8))),
    (0, _vertical(6, range(0, 5))),
    (0, _vertical(1, _TODAS)),
    (0, _vertical(4, [0, 1, 3, 4, 6, 7])),
    (0, _vertical(0, range(2, 6))),
    (0, _vertical(7, range(0, 4))),
    (0, _vertical(3, range(3, 6))),
    # horizontales
    (1, _horizontal(0, _TODAS)),
    (1, _horizontal(7, _TODAS)),
    (1, _horizontal(3, range(1, 6))),
    (1, _horizontal(5, [0, 1, 2, 4, 5, 6, 7])),
    (1, _horizontal(2, range(2, 8))),
    (1, _horizontal(6, range(0, 5))),
    (1, _horizontal(1, _TODAS)),
    (1, _horizontal(4, [0, 1, 3, 4, 6, 7])),
    (1, _horizontal(0, range(2, 6))),
    (1, _horizontal(7, range(4, 8))),
    (1, _horizontal(4, range(0, 3))),
    # oblicuas: desplazadas, cortas y con huecos
    (2, _diagonal(0)),
    (2, _diagonal(0, invertida=True)),
    (2, _diagonal(1)),
    (2, _diagonal(-2)),
    (2, _diagonal(1, invertida=True)),
    (2, _diagonal(0, quitar=(0, 1, 7))),
    (2, _diagonal(0, quitar=(3,))),
    (2, _diagonal(-2, invertida=True)),
    (2, _diagonal(3)),
    (2, _diagonal(-3, invertida=True)),
    (2, _diagonal(2, quitar=(0, 5))),
    (2, [(1, 1), (2, 2), (3, 3), (4, 4)]),
    (2, [(5, 2), (4, 3), (3, 4)]),
)


def lineas_dibujadas():
    """35 líneas como las que dibuja una persona en la cuadrícula. Lección 05.

    11 verticales, 11 horizontales y 13 oblicuas, con valores exactos 0 y 1 (sin ruido),
    como los de la pizarra: líneas en los bordes, más cortas (desde 3 celdas), con huecos
    y diagonales desplazadas. Devuelve ``(X, y)`` con la misma
    forma que ``generar_dataset``.
    """
    imagenes, etiquetas = [], []
    for clase, celdas in _DIBUJOS:
        matriz = torch.zeros(LADO, LADO)
        for fila, columna in celdas:
            matriz[fila, columna] = 1
        imagenes.append(matriz)
        etiquetas.append(clase)
    return torch.stack(imagenes).unsqueeze(1), torch.tensor(etiquetas, dtype=torch.long)


# ---------------------------------------------------------------------------
# Calentamiento tabular
# ---------------------------------------------------------------------------

def generar_datos_tabulares(n: int, semilla: int | None = None):
    """Un problema tabular de clasificación binaria: ¿está el punto dentro del círculo? Lección 05.

    Devuelve ``(X, y)``: ``X`` float32 ``[n, 2]`` con dos columnas (coordenadas en
    [-2, 2]) e ``y`` float32 ``[n]`` con 1.0 si el punto cae dentro del círculo de radio
    1.6 y 0.0 si no (más o menos la mitad de cada clase).
    """
    _validar_n(n, "n")
    g = _generador(semilla)
    X = 4 * torch.rand(n, 2, generator=g) - 2
    y = ((X ** 2).sum(dim=1) < 1.6 ** 2).to(torch.float32)
    return X, y
