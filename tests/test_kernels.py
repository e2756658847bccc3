"""Los kernels de Triton de la lección 11 frente a PyTorch, en la CPU con el intérprete de Triton.

Tamaños de borde (1, bloque − 1, bloque + 1, primos), float32 y float16, los casos difíciles del
softmax (filas con -inf, valores enormes, una columna, más columnas que el bloque) y los errores
en español. Sin GPU: el intérprete ejecuta el mismo kernel con NumPy. Lo que pasa sin triton
instalado, en otro proceso (tests/test_kernels_sin_triton.py).
"""

import math
import warnings

import pytest
import torch

from curso_gpu.kernels import (
    INTERPRETE,
    flops_matmul,
    matmul_teselas,
    modo_triton,
    softmax_filas,
    suma,
    trafico_softmax,
    trafico_suma,
    version_suficiente,
)
from curso_gpu.kernels import lanzadores
from dependencias import exigir_triton


@pytest.fixture(autouse=True, scope="module")
def _con_triton(falta):
    """Sin triton, en Linux (donde está declarado) cada prueba falla; donde no hay versión, se salta.

    Sin importar triton aquí: el primer kernel decide el modo (importarlo antes lo dejaría compilado).
    """
    exigir_triton(falta)


GENERADOR = torch.Generator().manual_seed(11)


def aleatorio(*forma, dtype=torch.float32, escala=1.0):
    return (torch.randn(*forma, generator=GENERADOR) * escala).to(dtype)


def test_sin_gpu_los_kernels_van_por_el_interprete():
    if torch.cuda.is_available():
        pytest.skip("con GPU CUDA los kernels se compilan")
    assert modo_triton() == INTERPRETE


def test_version_minima_del_interprete():
    assert version_suficiente("3.9.0") and version_suficiente("3.7.0") and version_suficiente("4.0.0+git1a2b")
    assert not version_suficiente("3.6.0") and not version_suficiente("3.1.0")


def _interprete_3_6(monkeypatch):
    """Una triton 3.6.0 (la versión se cambia; el intérprete que corre es el instalado, que sí funciona)."""
    from curso_gpu.kernels import cargar_programas

    if modo_triton() != INTERPRETE:
        pytest.skip("compilado en una GPU, la versión del intérprete no importa")
    monkeypatch.setattr(cargar_programas().triton, "__version__", "3.6.0")


def test_un_interprete_demasiado_antiguo_con_una_numpy_estricta_se_rechaza_con_el_arreglo(monkeypatch):
    _interprete_3_6(monkeypatch)
    monkeypatch.setattr(lanzadores, "_numpy_estricta", lambda: True)
    with pytest.raises(RuntimeError, match=r'triton 3.6.0 .* pip install -U "triton>=3.7.0"'):
        suma(torch.ones(3), torch.ones(3))


def test_un_interprete_antiguo_con_una_numpy_que_solo_avisa_se_acepta(monkeypatch):
    _interprete_3_6(monkeypatch)  # Colab: una triton anterior a 3.7 con una NumPy que solo avisa
    monkeypatch.setattr(lanzadores, "_numpy_estricta", lambda: False)
    assert torch.equal(suma(torch.ones(3), torch.ones(3)), torch.full((3,), 2.0))


class _VectorDeUno:
    """Lo que ``numpy.zeros(1)`` da al pasarlo a ``int``: un error (NumPy ≥ 2.x estricta) o un aviso."""

    def __init__(self, estricta: bool):
        self.estricta = estricta

    def __int__(self):
        if self.estricta:
            raise TypeError("only 0-dimensional arrays can be converted to Python scalars")
        warnings.warn("Conversion of an array with ndim > 0 to a scalar is deprecated", DeprecationWarning)
        return 0


@pytest.mark.parametrize("estricta", [True, False])
def test_se_sabe_si_la_numpy_instalada_es_estricta(estricta, monkeypatch):
    import numpy

    monkeypatch.setattr(numpy, "zeros", lambda *a, **k: _VectorDeUno(estricta))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # el aviso de una NumPy que solo avisa no se escapa
        assert lanzadores._numpy_estricta() is estricta


# --- suma ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("n", [1, 15, 16, 17, 97, 1023, 1024, 1025, 4099])
def test_suma_igual_que_torch_en_tamanos_de_borde(n):
    x, y = aleatorio(n), aleatorio(n)
    bloque = 16 if n < 100 else 1024  # 15, 16, 17: bloque − 1, bloque, bloque + 1
    assert torch.equal(suma(x, y, bloque=bloque), x + y)


def test_suma_en_float16_y_con_varias_dimensiones():
    x, y = aleatorio(3, 5, 7, dtype=torch.float16), aleatorio(3, 5, 7, dtype=torch.float16)
    resultado = suma(x, y)
    assert resultado.dtype == torch.float16 and resultado.shape == (3, 5, 7)
    assert torch.equal(resultado, x + y)


def test_suma_de_tensores_vacios_da_un_tensor_vacio():
    resultado = suma(torch.empty(0), torch.empty(0))
    assert resultado.shape == (0,)


def test_la_mascara_no_escribe_fuera_del_tensor():
    """El kernel escribe en los 17 primeros elementos de un tensor mayor: lo de detrás no se toca."""
    from curso_gpu.kernels import kernel_suma

    grande = torch.full((40,), 7.0)
    x, y = aleatorio(17), aleatorio(17)
    kernel_suma[(2,)](x, y, grande, 17, BLOQUE=16)  # 2 programas; el segundo tiene 15 posiciones de sobra
    assert torch.equal(grande[:17], x + y)
    assert torch.equal(grande[17:], torch.full((23,), 7.0))


# --- softmax_filas ---------------------------------------------------------------------------------

@pytest.mark.parametrize("filas, columnas", [(1, 1), (5, 1), (3, 15), (3, 17), (7, 97), (4, 781)])
def test_softmax_igual_que_torch(filas, columnas):
    x = aleatorio(filas, columnas, escala=3.0)
    torch.testing.assert_close(softmax_filas(x), torch.softmax(x, dim=1), rtol=1e-5, atol=1e-6)


def test_softmax_con_una_columna_da_unos():
    assert torch.equal(softmax_filas(aleatorio(6, 1)), torch.ones(6, 1))


def test_softmax_de_valores_enormes_no_se_desborda():
    """Sin restar el máximo, exp(1000) es inf y inf/inf es NaN."""
    x = torch.tensor([[1000.0, 999.0, -1000.0], [3e38, 1.0, 0.0]])
    resultado = softmax_filas(x)
    assert torch.isfinite(resultado).all()
    torch.testing.assert_close(resultado, torch.softmax(x, dim=1))
    grande16 = torch.tensor([[60000.0, 59990.0, 0.0]], dtype=torch.float16)
    torch.testing.assert_close(softmax_filas(grande16), torch.softmax(grande16.float(), dim=1).half())


def test_softmax_con_menos_infinito_como_en_una_mascara_de_atencion():
    x = aleatorio(4, 50)
    x[0, :25] = -math.inf   # media fila enmascarada
    x[1, 1:] = -math.inf    # solo queda una posición: vale 1
    x[2, :] = -math.inf     # toda la fila: NaN, igual que PyTorch
    esperado = torch.softmax(x, dim=1)
    for bloque in (None, 16):  # de una vez, y a trozos (el primer trozo de la fila 0 es todo -inf)
        resultado = softmax_filas(x, bloque=bloque)
        torch.testing.assert_close(resultado, esperado, equal_nan=True)
        assert torch.isnan(resultado[2]).all() and resultado[1, 0] == 1.0


@pytest.mark.parametrize("columnas", [17, 100, 257])
def test_softmax_con_mas_columnas_que_el_bloque(columnas):
    x = aleatorio(5, columnas, escala=4.0)
    torch.testing.assert_close(softmax_filas(x, bloque=16), torch.softmax(x, dim=1), rtol=1e-5, atol=1e-6)


def test_softmax_en_float16():
    x = aleatorio(6, 300, dtype=torch.float16, escala=3.0)
    resultado = softmax_filas(x)
    assert resultado.dtype == torch.float16
    torch.testing.assert_close(resultado, torch.softmax(x.float(), dim=1).half(), rtol=1e-3, atol=1e-4)


def test_softmax_de_un_corte_usa_el_paso_de_las_filas():
    grande = aleatorio(6, 40)
    corte = grande[:, 5:30]  # filas separadas 40 elementos: no contiguo, pero columnas seguidas
    torch.testing.assert_close(softmax_filas(corte), torch.softmax(corte, dim=1))


@pytest.mark.parametrize("forma", [(0, 5), (3, 0)])
def test_softmax_de_matrices_vacias(forma):
    assert softmax_filas(torch.empty(forma)).shape == forma


# --- matmul_teselas --------------------------------------------------------------------------------

@pytest.mark.parametrize("m, k, n", [(1, 1, 1), (31, 33, 17), (97, 89, 83), (64, 64, 64)])
def test_matmul_igual_que_torch_en_tamanos_impares(m, k, n):
    a, b = aleatorio(m, k), aleatorio(k, n)
    torch.testing.assert_close(matmul_teselas(a, b), a @ b, rtol=1e-5, atol=1e-5)


def test_matmul_con_teselas_de_16_y_traspuestas():
    a, b = aleatorio(40, 50), aleatorio(30, 50)
    torch.testing.assert_close(matmul_teselas(a, b.T, bloques=(16, 16, 16)), a @ b.T, rtol=1e-5, atol=1e-5)


def test_matmul_en_float16_acumula_en_float32():
    """K = 4096 sumas de productos en [0, 1): el resultado ronda 1000, donde fp16 va de 1 en 1.
    Acumulando en fp32 solo queda el redondeo final (≤ 0.5); acumulando en fp16, unas 3.6."""
    g = torch.Generator().manual_seed(0)
    a = torch.rand(16, 4096, generator=g).half()
    b = torch.rand(4096, 16, generator=g).half()
    exacto = a.double() @ b.double()
    resultado = matmul_teselas(a, b)
    assert resultado.dtype == torch.float16
    assert (resultado.double() - exacto).abs().max() <= 0.51
    a, b = aleatorio(33, 65, dtype=torch.float16), aleatorio(65, 47, dtype=torch.float16)
    torch.testing.assert_close(matmul_teselas(a, b), (a.float() @ b.float()).half(), rtol=2e-3, atol=2e-3)


def test_matmul_vacias_como_torch():
    assert matmul_teselas(torch.empty(0, 4), torch.empty(4, 3)).shape == (0, 3)
    assert torch.equal(matmul_teselas(torch.empty(2, 0), torch.empty(0, 3)), torch.zeros(2, 3))


# --- Lo que no pueden hacer, en español ------------------------------------------------------------

@pytest.mark.parametrize("llamada, tipo, texto", [
    (lambda: suma([1.0], torch.ones(1)), TypeError, "necesita tensores de PyTorch; x es de tipo list"),
    (lambda: suma(torch.ones(3), torch.ones(4)), ValueError, "misma forma; x es (3,) e y es (4,)"),
    (lambda: suma(torch.ones(3), torch.ones(3, device="meta")), ValueError, "y está en meta"),
    (lambda: suma(torch.ones(3), torch.ones(3, dtype=torch.float16)), ValueError, "mismo tipo de dato"),
    (lambda: suma(torch.arange(3), torch.arange(3)), ValueError, "float32 y float16; x es torch.int64"),
    (lambda: suma(torch.ones(3, dtype=torch.bfloat16), torch.ones(3, dtype=torch.bfloat16)), ValueError,
     "x es torch.bfloat16"),
    (lambda: suma(torch.ones(4, 3).T, torch.ones(3, 4)), ValueError, "no es contiguo"),
    (lambda: suma(torch.ones(3), torch.ones(3), bloque=100), ValueError, "potencia de dos"),
    (lambda: suma(torch.ones(3), torch.ones(3), bloque=True), ValueError, "booleano"),
    (lambda: suma(torch.ones(3), torch.ones(3), bloque=8), ValueError, "entre 16 y 65536"),
    (lambda: suma(torch.ones(3, requires_grad=True), torch.ones(3)), ValueError, "no calcula gradientes"),
    (lambda: softmax_filas(torch.ones(5)), ValueError, "necesita una matriz"),
    (lambda: softmax_filas(torch.ones(4, 3).T), ValueError, "columnas seguidas en memoria"),
    (lambda: matmul_teselas(torch.ones(2, 3), torch.ones(2, 3)), ValueError, "columnas de a (3) deben ser las filas de b (2)"),
    (lambda: matmul_teselas(torch.ones(2, 3), torch.ones(3, 2), bloques=(8, 16, 16)), ValueError, "bloques[0]"),
    (lambda: matmul_teselas(torch.ones(2, 3), torch.ones(3, 2), bloques=32), ValueError, "tres potencias de dos"),
])
def test_rechaza_en_espanol_lo_que_no_puede_hacer(llamada, tipo, texto):
    with pytest.raises(tipo) as error:
        llamada()
    assert texto in str(error.value)


def test_con_torch_no_grad_acepta_tensores_que_piden_gradiente():
    x = torch.ones(3, requires_grad=True)
    with torch.no_grad():
        assert torch.equal(suma(x, x), torch.full((3,), 2.0))


# --- Los bytes y las operaciones -------------------------------------------------------------------

def _bytes_contados(funcion, x):
    """Los bytes que leen y escriben los kernels de ATen que lanza ``funcion(x)``, contados uno a uno."""
    from torch.utils._python_dispatch import TorchDispatchMode
    from torch.utils._pytree import tree_leaves

    class Contar(TorchDispatchMode):
        leidos = escritos = kernels = 0

        def __torch_dispatch__(self, op, tipos, args=(), kwargs=None):
            salida = op(*args, **(kwargs or {}))
            Contar.kernels += 1
            Contar.leidos += sum(t.numel() * t.element_size() for t in tree_leaves((args, kwargs))
                                 if isinstance(t, torch.Tensor))
            Contar.escritos += sum(t.numel() * t.element_size() for t in tree_leaves(salida)
                                   if isinstance(t, torch.Tensor))
            return salida

    with Contar():
        funcion(x)
    return Contar.kernels, Contar.leidos, Contar.escritos


def test_el_trafico_del_softmax_sin_fusionar_es_el_de_sus_cinco_kernels():
    x = aleatorio(37, 53)

    def paso_a_paso(x):
        m = x.max(dim=1, keepdim=True).values
        e = (x - m).exp()
        return e / e.sum(dim=1, keepdim=True)

    kernels, leidos, escritos = _bytes_contados(paso_a_paso, x)
    calculado = trafico_softmax(37, 53, 4, fusionado=False)
    # max devuelve también los índices (int64, 8 bytes por fila): PyTorch los escribe aunque no los uses
    assert (kernels, leidos, escritos) == (5, calculado.leidos, calculado.escritos + 37 * 8)
    fusionado = trafico_softmax(37, 53, 4)
    assert (fusionado.leidos, fusionado.escritos) == (37 * 53 * 4, 37 * 53 * 4)
    assert calculado.total / fusionado.total == pytest.approx((8 * 53 + 4) / (2 * 53))


def test_trafico_de_la_suma_y_flops_de_la_matmul():
    assert trafico_suma(1000, 2).total == 3 * 1000 * 2
    assert flops_matmul(3, 5, 7) == 2 * 3 * 5 * 7
    assert trafico_softmax(10, 20, 4, vueltas=2).leidos == 2 * 10 * 20 * 4
    with pytest.raises(ValueError, match="filas debe ser un entero"):
        trafico_softmax(-1, 3)


def test_las_cuentas_nombran_el_argumento_malo():
    from curso_gpu.kernels import siguiente_potencia_de_dos, trafico_suma

    assert [siguiente_potencia_de_dos(n) for n in (0, 1, 2, 3, 781, 1024)] == [1, 1, 2, 4, 1024, 1024]
    with pytest.raises(ValueError, match=r"n debe ser un entero .*recibí -3"):
        siguiente_potencia_de_dos(-3)
    with pytest.raises(TypeError, match=r"^n debe ser .*Prueba, por ejemplo, n=781"):
        siguiente_potencia_de_dos("8")
    with pytest.raises(TypeError, match=r"^n debe ser"):
        trafico_suma(None)
