"""Lo que la lección 11 imprime, en la misma ejecución que la prueba de la lección (``leccion_ejecutada``)."""

import re

import pytest
from dependencias import exigir_triton

pytestmark = pytest.mark.lento  # ejecuta la lección (una vez por sesión, compartida)


def _texto(cuaderno) -> str:
    return "\n".join(salida.get("text", "") for celda in cuaderno.cells if celda.cell_type == "code"
                     for salida in celda.get("outputs", []) if salida.get("output_type") == "stream")


def test_la_leccion_11_comprueba_sus_kernels_contra_pytorch(leccion_ejecutada, falta):
    # Sin triton la lección solo explica (lo prueba test_kernels_sin_triton.py); en Linux está
    # declarado, así que faltar es un error, y se dice antes de ejecutar la lección.
    exigir_triton(falta)
    texto = _texto(leccion_ejecutada("11"))
    comprobaciones = re.findall(r"igual que (?:x \+ y|torch\.softmax): (True|False)", texto)
    assert len(comprobaciones) == 4 + 1 + 5 and set(comprobaciones) == {"True"}, comprobaciones  # suma, curso, softmax
    assert "softmax_triton igual que torch.softmax en 200 × 781" in texto
    assert "Paso a paso mueve 4.00 veces los bytes del fusionado" in texto
    error16, error32 = map(float, re.search(r"error acumulando en fp16 ([\d.]+); acumulando en fp32 "
                                            r"\(el kernel\) ([\d.]+)", texto).groups())
    assert error32 <= 0.5 < 2 < error16
    assert "filas[:, None] * 5 + ks[None, :] * 1 = [[10, 11, 12], [15, 16, 17]]" in texto  # punteros en 2-D
    assert "todas corren a la vez" not in texto.lower()
    if "en cuda" in texto:  # una GPU (o la T4 simulada): la matmul se compara con el pico de tl.dot en esa GPU
        medidas = re.findall(r"^(suma|softmax|matmul) \(.*\): igual que PyTorch \(al 1 % del mayor valor\): (True|False)\.", texto, re.MULTILINE)
        assert [m[0] for m in medidas] == ["suma", "softmax", "matmul"] and {m[1] for m in medidas} == {"True"}
        if "(intérprete: correcto pero lento)" in texto:  # la T4 simulada: tamaños pequeños, tiempos sin valor
            assert texto.count("Son tiempos de la CPU: no dicen nada de una GPU.") == 3
            assert "matmul (64³ fp16)" in texto
        if "Tesla T4: capacidad 7.5" in texto:
            assert "tl.dot en fp16 no usa los Tensor Cores" in texto and "techo 8.1 TFLOP/s (fp32 de la ficha" in texto
    if "en cpu" in texto:  # sin GPU: el intérprete, el print del kernel y el código C++ de torch.compile
        assert "(intérprete: correcto pero lento)" in texto
        assert "programa [2] posiciones [ 8  9 10 11] máscara [ True  True False False]" in texto
        assert re.search(r"1 kernel en C\+\+: cpp_fused_\w+", texto) or "No hay compilador de C" in texto
        # Lo que verías en una T4: la matmul de Triton frente al pico fp32 (8.1), no al de los Tensor Cores (65).
        assert ("- matmul 4096³ fp16: 0.14 TFLOP. NVIDIA T4 (capacidad 7.5): tl.dot en fp16 no usa los Tensor Cores"
                in texto)
        assert "techo 8.1 TFLOP/s (fp32 de la ficha, NVIDIA T4 datasheet). Tu kernel tarda al menos 17 ms." in texto
        assert "- a @ b (cuBLAS) sí usa los Tensor Cores en una T4: sostiene unos 20–26 TFLOP/s" in texto
