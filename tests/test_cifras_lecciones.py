"""Las cifras de las lecciones: lo que dice la prosa sale de lo que midió la ejecución, y todos los
números siguen el formato del curso (issue 34).

Primero las comprobaciones sobre notebooks hechos a mano (rápidas); luego, sobre las lecciones
ejecutadas de verdad (``leccion_ejecutada``, marcadas «lento»).
"""

from pathlib import Path

import nbformat
import pytest

from cifras_de_lecciones import (
    Afirmacion,
    comprobar_afirmaciones,
    numeros_mal_escritos,
    prosa_mal_escrita,
    salidas_mal_escritas,
)

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"


def _cuaderno(markdown: str, *salidas):
    """Un notebook con una celda de texto y una de código con estas salidas (texto o dict de datos)."""
    hechas = [nbformat.v4.new_output("stream", name="stdout", text=s) if isinstance(s, str)
              else nbformat.v4.new_output("display_data", data=s) for s in salidas]
    return nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell(markdown),
                                           nbformat.v4.new_code_cell("x", outputs=hechas)])


# ---------------------------------------------------------------------------
# El formato de los números
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("texto, malos", [
    ("12288 bytes", ["12288"]),
    ("medido 153600 bytes, calculado 153600 bytes", ["153600", "153600"]),
    ("1039243 tokens/s", ["1039243"]),
    ("0,99 GB", ["0,99"]),
    ("1,000 tokens", ["1,000"]),
    ("12345.6 s", ["12345"]),
    ("-12345 de diferencia", ["12345"]),
])
def test_un_numero_sin_separador_o_con_coma_decimal_se_encuentra(texto, malos):
    assert numeros_mal_escritos(texto) == malos


@pytest.mark.parametrize("texto", [
    "12 288 bytes", "1 557 092 tokens/s", "0.99 GB", "384 MiB", "9999 pasos",
    "0.06262694600013674 s",           # cifras tras el punto decimal
    "arXiv:2208.07339", "PB-09256",    # referencias, no cantidades
    "hash 433ebc8a9f5ed17b5df8", "PyTorch 2.13.0+cpu", "2026-12-03",
    "[0, 0, 36, 17]", "(1, 2, 300, 16)", "salida (1, 16, 50257)",  # listas y formas: código
    "por ejemplo n=42752.", "--rdzv-endpoint=127.0.0.1:48177", "El puerto 53241 ya está en uso",
    "local_rank: 1 (pid: 17143)", "vllm-project/vllm#47549 y #24224", "E1204 18:15:29.876000 17125 torch/distributed/elastic/multiprocessing/api.py:882]",
])
def test_lo_bien_escrito_y_el_codigo_no_cuentan(texto):
    assert numeros_mal_escritos(texto) == []


def test_las_salidas_se_leen_como_las_ve_el_alumno_y_la_prosa_sin_su_codigo():
    cuaderno = _cuaderno(
        "Son 12 288 bytes; en código, `x = 12288` y\n```\nn = 200000\n```\npero aquí 40960 sueltos.",
        "medido 153600 bytes\n",
        {"text/html": "<td style='width:12345px'>1 024</td><td>2,5 GB</td>", "text/plain": "Tabla(...)"},
        {"text/plain": "caché al terminar: 745472 bytes"},  # sin HTML, el texto plano
    )
    assert [m.split(":")[1].split(" en ")[0].strip() for m in salidas_mal_escritas(cuaderno)] == \
        ["'153600'", "'2,5'", "'745472'"]
    assert [m.split(" en ")[0] for m in prosa_mal_escrita(cuaderno)] == ["celda 0: '40960'"]


# ---------------------------------------------------------------------------
# La prosa frente a lo medido
# ---------------------------------------------------------------------------

CACHE = Afirmacion("caché", r"la caché ganó entre (?P<minimo>[\d.]+) y (?P<maximo>[\d.]+) veces",
                   r"con caché fue (?P<medido>[\d.]+)× más rápido")


def test_una_cifra_medida_dentro_de_lo_que_dice_la_prosa_pasa():
    cuaderno = _cuaderno("Aquí la caché ganó entre 1.5 y 4 veces.", "con caché fue 2.44× más rápido que sin caché\n")
    assert comprobar_afirmaciones(cuaderno, [CACHE]) == []


def test_una_cifra_medida_fuera_de_lo_que_dice_la_prosa_falla_y_dice_cual():
    cuaderno = _cuaderno("Aquí la caché ganó entre 1.7 y 2.3 veces.", "con caché fue 2.44× más rápido que sin caché\n")
    [problema] = comprobar_afirmaciones(cuaderno, [CACHE])
    assert "entre 1.7 y 2.3 veces" in problema and "2.44" in problema


def test_si_falta_la_frase_o_la_medida_tambien_falla():
    sin_frase = _cuaderno("Otra cosa.", "con caché fue 2.44× más rápido\n")
    sin_medida = _cuaderno("la caché ganó entre 1.5 y 4 veces", "no hay una diferencia clara\n")
    assert "la prosa ya no dice" in comprobar_afirmaciones(sin_frase, [CACHE])[0]
    assert "ninguna salida mide" in comprobar_afirmaciones(sin_medida, [CACHE])[0]


def test_una_cifra_aproximada_admite_su_tolerancia_y_lee_el_formato_del_curso():
    unos = Afirmacion("grafo", r"son unos (?P<aprox>[\d.]+) MiB", r"guarda (?P<medido>[\d .]+) MiB")
    assert comprobar_afirmaciones(_cuaderno("Aquí son unos 4 MiB.", "autograd guarda 4.1 MiB\n"), [unos]) == []
    assert comprobar_afirmaciones(_cuaderno("Aquí son unos 4 MiB.", "autograd guarda 1 024 MiB\n"), [unos])


# ---------------------------------------------------------------------------
# Las lecciones ejecutadas
# ---------------------------------------------------------------------------

# Lo que afirman en su prosa las lecciones 09 y 10 sobre cantidades que miden.
AFIRMACIONES = {
    "09": [
        Afirmacion("activaciones del ajuste completo frente a LoRA",
                   r"entre un (?P<minimo>\d+) y un (?P<maximo>\d+) % más que LoRA",
                   r"el ajuste completo guarda un (?P<medido>-?\d+) % más que LoRA"),
    ],
    "10": [
        Afirmacion("grafo de autograd", r"Aquí son unos (?P<aprox>[\d.]+) MiB",
                   r"autograd guarda (?P<medido>[\d .]+) MiB"),
        Afirmacion("caché KV de 32 768 tokens", r"Con 32 768 tokens son (?P<aprox>[\d ]+) MiB",
                   r"32 768 tokens × lote  1:\s+(?P<medido>[\d ]+) MiB", tolerancia=0.01),
        Afirmacion("caché frente a sin caché", CACHE.prosa, CACHE.salida),
        Afirmacion("coste de un paso con 16 textos",
                   r"mucho menos que 16 veces: menos de (?P<maximo>[\d.]+)\.",  # por debajo de 1 es ruido: sin mínimo
                   r"un paso con 16 textos costó (?P<medido>[\d.]+) veces"),
        Afirmacion("techo int8 con lm_head en 16 bits",
                   r"\*\*int8\*\* con bitsandbytes[^|]*\| (?P<aprox>\d+) tokens/s",
                   r"int8 \(lm_head en fp16\)\s+[\d.]+ GB por paso → techo en una T4: (?P<medido>[\d ]+) tokens/s",
                   tolerancia=0.005),
        Afirmacion("techo fp16", r"pesos en \*\*fp16\*\* \(0.99 GB\) \| (?P<aprox>\d+) tokens/s",
                   r"fp16\s+0.99 GB por paso → techo en una T4: (?P<medido>[\d ]+) tokens/s", tolerancia=0.005),
    ],
}


@pytest.mark.lento
@pytest.mark.parametrize("numero", sorted(AFIRMACIONES))
def test_lo_que_la_prosa_dice_de_lo_medido_lo_confirma_la_salida(numero, leccion_ejecutada):
    problemas = comprobar_afirmaciones(leccion_ejecutada(numero), AFIRMACIONES[numero])
    assert not problemas, "\n".join(problemas)


# Todas las lecciones que existen (``notebooks/NN_nombre.py``): una lección nueva entra sola.
LECCIONES = sorted(ruta.name[:2] for ruta in NOTEBOOKS.glob("[0-9][0-9]_*.py"))


def test_el_formato_se_comprueba_en_todas_las_lecciones():
    emparejadas = sorted(ruta.name[:2] for ruta in NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))
    assert LECCIONES == emparejadas and len(LECCIONES) >= 11, (LECCIONES, emparejadas)


@pytest.mark.lento
@pytest.mark.parametrize("numero", LECCIONES)
def test_los_numeros_de_las_salidas_y_de_la_prosa_siguen_el_formato_del_curso(numero, leccion_ejecutada):
    cuaderno = leccion_ejecutada(numero)
    problemas = salidas_mal_escritas(cuaderno) + [f"(prosa) {p}" for p in prosa_mal_escrita(cuaderno)]
    assert not problemas, (f"Lección {numero}: escribe los números con formatear_numero (12 288, 0.99):\n"
                           + "\n".join(problemas))

