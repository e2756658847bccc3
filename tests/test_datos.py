"""Lección 05: las imágenes de líneas de 8×8 y el problema tabular."""

from __future__ import annotations

import pytest
import torch

from curso_gpu.entrenamiento import NOMBRES_CLASES, generar_dataset, generar_datos_tabulares, lineas_dibujadas


# La receta «semilla», escrita aparte tal cual: la referencia con la que comparar.
def _vertical_original():
    col = torch.randint(1, 7, (1,)).item()
    matriz = [[0 for _ in range(8)] for _ in range(8)]
    for fila in range(8):
        matriz[fila][col] = 1
    img = torch.tensor(matriz, dtype=torch.float32)
    img += 0.10 * torch.rand(8, 8)
    return img.clamp(0.0, 1.0)


def _horizontal_original():
    fila = torch.randint(1, 7, (1,)).item()
    matriz = [[0 for _ in range(8)] for _ in range(8)]
    for col in range(8):
        matriz[fila][col] = 1
    img = torch.tensor(matriz, dtype=torch.float32)
    img += 0.10 * torch.rand(8, 8)
    return img.clamp(0.0, 1.0)


def _oblicua_original():
    matriz = [[0 for _ in range(8)] for _ in range(8)]
    tipo = torch.randint(0, 2, (1,)).item()
    if tipo == 0:
        for i in range(8):
            matriz[i][i] = 1
    else:
        for i in range(8):
            matriz[i][7 - i] = 1
    img = torch.tensor(matriz, dtype=torch.float32)
    img += 0.10 * torch.rand(8, 8)
    return img.clamp(0.0, 1.0)


def _dataset_original(n_por_clase):
    imagenes, etiquetas = [], []
    for _ in range(n_por_clase):
        imagenes.append(_vertical_original())
        etiquetas.append(0)
        imagenes.append(_horizontal_original())
        etiquetas.append(1)
        imagenes.append(_oblicua_original())
        etiquetas.append(2)
    return torch.stack(imagenes).unsqueeze(1), torch.tensor(etiquetas, dtype=torch.long)


def _lineas(X):
    """Las celdas de la línea (sin el ruido, que es < 0.1 + 0.1)."""
    return X[:, 0] > 0.5


def test_nombres_de_las_clases():
    assert NOMBRES_CLASES == ("vertical", "horizontal", "oblicua")


@pytest.mark.parametrize("receta", ["variada", "semilla"])
def test_forma_tipo_y_rango(receta):
    X, y = generar_dataset(7, semilla=0, receta=receta)
    assert X.shape == (21, 1, 8, 8) and X.dtype == torch.float32
    assert y.shape == (21,) and y.dtype == torch.long
    assert X.min() >= 0 and X.max() <= 1
    assert y.tolist() == [0, 1, 2] * 7  # clases intercaladas


@pytest.mark.parametrize("receta", ["variada", "semilla"])
def test_ruido_de_0_10_por_uniforme_recortado(receta):
    X, _ = generar_dataset(50, semilla=3, receta=receta)
    linea = _lineas(X)
    fondo = X[:, 0][~linea]
    assert fondo.max() <= 0.10 and fondo.min() >= 0
    assert 0.04 < fondo.mean() < 0.06  # la media de 0.10·U(0, 1)
    assert torch.all(X[:, 0][linea] == 1.0)  # 1 + ruido, recortado a 1


def test_receta_semilla_es_la_del_texto_base_numero_a_numero():
    X, y = generar_dataset(30, semilla=24, receta="semilla")
    torch.manual_seed(24)
    X_original, y_original = _dataset_original(30)
    assert torch.equal(X, X_original)
    assert torch.equal(y, y_original)


def test_receta_semilla_solo_usa_filas_y_columnas_1_a_6_y_dos_diagonales():
    X, y = generar_dataset(200, semilla=1, receta="semilla")
    linea = _lineas(X)
    columnas = {int(linea[i].any(dim=0).nonzero()[0]) for i in range(len(y)) if y[i] == 0}
    filas = {int(linea[i].any(dim=1).nonzero()[0]) for i in range(len(y)) if y[i] == 1}
    assert columnas == set(range(1, 7)) and filas == set(range(1, 7))
    principal, secundaria = torch.eye(8, dtype=torch.bool), torch.eye(8, dtype=torch.bool).flip(1)
    for i in (i for i in range(len(y)) if y[i] == 2):
        assert torch.equal(linea[i], principal) or torch.equal(linea[i], secundaria)


def test_receta_variada_cubre_lo_que_dibuja_una_persona():
    X, y = generar_dataset(300, semilla=2)
    linea = _lineas(X)
    verticales = [linea[i] for i in range(len(y)) if y[i] == 0]
    oblicuas = [linea[i] for i in range(len(y)) if y[i] == 2]
    columnas = {int(m.any(dim=0).nonzero()[0]) for m in verticales}
    assert {0, 7} <= columnas  # bordes
    assert all(int(m.any(dim=0).sum()) == 1 for m in verticales)  # siempre una sola columna
    largos = {int(m.sum()) for m in verticales}
    assert min(largos) == 3 and 8 in largos  # cortas y enteras
    con_huecos = sum(1 for m in verticales if int(m.sum()) < (m.any(dim=1).nonzero().max() - m.any(dim=1).nonzero().min() + 1))
    assert con_huecos > 0
    desplazadas = 0
    for m in oblicuas:
        filas, cols = m.nonzero(as_tuple=True)
        diferencias = set((cols - filas).tolist()) if len(set((cols - filas).tolist())) == 1 else set((cols + filas).tolist())
        assert len(diferencias) == 1  # todas las celdas en la misma diagonal
        assert len(filas) >= 3
        desplazadas += diferencias not in ({0}, {7})
    assert desplazadas > 0


def test_misma_semilla_mismo_dataset_y_no_toca_el_generador_global():
    torch.manual_seed(5)
    esperado = torch.rand(3)
    torch.manual_seed(5)
    a = generar_dataset(10, semilla=11)
    b = generar_dataset(10, semilla=11)
    assert torch.equal(torch.rand(3), esperado)
    assert torch.equal(a[0], b[0]) and torch.equal(a[1], b[1])
    assert not torch.equal(a[0], generar_dataset(10, semilla=12)[0])


def test_sin_semilla_usa_el_generador_global():
    torch.manual_seed(9)
    a = generar_dataset(4, receta="semilla")
    torch.manual_seed(9)
    assert torch.equal(a[0], generar_dataset(4, receta="semilla")[0])


@pytest.mark.parametrize("n", [0, -3, 2.5, "10", True])
def test_n_por_clase_menor_que_1_da_error_claro(n):
    with pytest.raises(ValueError, match=r"n_por_clase debe ser un entero entre 1 y .*; recibí"):
        generar_dataset(n)


def test_receta_desconocida():
    with pytest.raises(ValueError, match="variada, semilla"):
        generar_dataset(3, receta="aleatoria")


def test_lineas_dibujadas_como_las_de_la_pizarra():
    X, y = lineas_dibujadas()
    assert X.shape == (35, 1, 8, 8) and X.dtype == torch.float32
    assert set(X.unique().tolist()) == {0.0, 1.0}  # sin ruido: celdas pintadas o vacías
    assert [int((y == c).sum()) for c in range(3)] == [11, 11, 13]
    assert (X.sum(dim=(1, 2, 3)) >= 3).all()
    bordes = X[y == 0][:, 0, :, 0].sum() + X[y == 0][:, 0, :, 7].sum()
    assert bordes > 0  # hay verticales en los bordes, que la receta «semilla» nunca genera


def test_datos_tabulares_binarios():
    X, y = generar_datos_tabulares(2000, semilla=0)
    assert X.shape == (2000, 2) and X.dtype == torch.float32 and y.dtype == torch.float32
    assert set(y.unique().tolist()) == {0.0, 1.0}
    assert 0.4 < y.mean().item() < 0.6
    dentro = (X ** 2).sum(dim=1) < 1.6 ** 2
    assert torch.equal(dentro.float(), y)
    with pytest.raises(ValueError, match="n debe ser un entero"):
        generar_datos_tabulares(0)
