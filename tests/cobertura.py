"""¿Qué líneas de una lección no ejecutó nadie? La cobertura de sus dos ejecuciones, juntas.

Cada lección se ejecuta dos veces (en la CPU y en la T4 simulada, ``CURSO_GPU_SIMULAR=T4``) y cada
ejecución deja sus líneas ejecutadas (``cobertura_kernel``). Aquí se juntan y se comparan con las
líneas de código de cada celda, contadas como las cuenta coverage.py (sus sentencias, sin docstrings).

Una línea que solo puede correr en una GPU de verdad, en Colab o en Kaggle (una descarga real, montar
Drive de verdad) lleva al final un comentario que el alumno lee como lo que es:
``# solo se ejecuta <dónde o por qué>`` (``# solo se ejecuta en Colab o Kaggle``, ``# solo se ejecuta
en una GPU real: TF32 pide capacidad 8.0+``). No cuenta, pero las marcadas deben ser menos del
``MARCADAS_MAX`` del código de la lección. El objetivo: ``OBJETIVO`` de las líneas, ejecutadas.

La marca de antes, ``# solo en una GPU real: <motivo>``, ya no vale (se leía como una nota de las
pruebas): una lección que aún la lleve falla y dice cómo convertirla (``CONVERTIR_MARCAS``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

OBJETIVO = 0.98
MARCADAS_MAX = 0.02
MARCA = "# solo se ejecuta"
_PATRON_MARCA = r"#\s*solo se ejecuta\b"
_PATRON_ANTIGUO = r"#\s*solo en una GPU real:"
CONVERTIR_MARCAS = "sed -i 's/# solo en una GPU real:/# solo se ejecuta en una GPU real:/' notebooks/[0-9][0-9]_*.py"
"""La orden que pasa las marcas antiguas a la de ahora (después, ``jupytext --sync``)."""


@dataclass
class CoberturaLeccion:
    """La cobertura de una lección: líneas de código, ejecutadas, marcadas y las que nadie ejecutó."""

    nombre: str
    total: int
    ejecutadas: int
    marcadas: int
    sin_ejecutar: list[tuple[int, int, str]] = field(default_factory=list)  # (celda, línea, texto)
    marcas_sin_motivo: list[tuple[int, int, str]] = field(default_factory=list)
    marcas_antiguas: list[tuple[int, int, str]] = field(default_factory=list)

    @property
    def fraccion(self) -> float:
        return self.ejecutadas / self.total if self.total else 1.0

    @property
    def fraccion_marcadas(self) -> float:
        return self.marcadas / (self.total + self.marcadas) if (self.total + self.marcadas) else 0.0

    @property
    def cumple(self) -> bool:
        return (self.fraccion >= OBJETIVO and self.fraccion_marcadas < MARCADAS_MAX and not self.marcas_sin_motivo
                and not self.marcas_antiguas)

    def __str__(self) -> str:
        cabecera = (f"{self.nombre}: {self.ejecutadas}/{self.total} líneas ejecutadas ({100 * self.fraccion:.1f} %), "
                    f"{self.marcadas} marcadas «{MARCA}» ({100 * self.fraccion_marcadas:.1f} %)")
        lineas = [cabecera] + [f"    celda {c}, línea {n}: {t.strip()}" for c, n, t in self.sin_ejecutar]
        lineas += [f"    celda {c}, línea {n}: marca sin motivo: {t.strip()}" for c, n, t in self.marcas_sin_motivo]
        lineas += [f"    celda {c}, línea {n}: marca antigua (conviértela: {CONVERTIR_MARCAS}): {t.strip()}"
                   for c, n, t in self.marcas_antiguas]
        return "\n".join(lineas)


def _normalizar(fuente: str) -> str:
    return "\n".join(linea.rstrip() for linea in fuente.strip("\n").splitlines())


def _transformar(fuente: str) -> str:
    """La celda como la compila IPython (``!orden`` y ``%magia`` pasan a Python; las líneas no cambian)."""
    from IPython.core.inputtransformer2 import TransformerManager

    return TransformerManager().transform_cell(fuente)


def leer_registros(rutas) -> dict[str, set[int]]:
    """Las líneas ejecutadas de cada celda (por su texto), juntando los JSON de ``cobertura_kernel``."""
    ejecutadas: dict[str, set[int]] = {}
    for ruta in rutas:
        ruta = Path(ruta)
        if not ruta.is_file():
            continue
        for celda in json.loads(ruta.read_text(encoding="utf-8"))["celdas"]:
            ejecutadas.setdefault(_normalizar(celda["fuente"]), set()).update(celda["ejecutadas"])
    return ejecutadas


def cobertura_de(notebook: str | Path, registros: dict[str, set[int]]) -> CoberturaLeccion:
    """Compara las celdas de código de ``notebook`` (.ipynb) con las líneas ejecutadas de ``registros``."""
    import nbformat
    from coverage.parser import PythonParser

    cuaderno = nbformat.read(notebook, as_version=4)
    total = ejecutadas = marcadas = 0
    sin_ejecutar, sin_motivo, antiguas = [], [], []
    codigo = [c for c in cuaderno.cells if c.cell_type == "code"]
    for numero, celda in enumerate(codigo):
        fuente = _transformar(celda.source)
        analizador = PythonParser(text=fuente, exclude=_PATRON_MARCA)
        analizador.parse_source()
        lineas = fuente.splitlines()
        antiguas += [(numero, n, texto) for n, texto in enumerate(lineas, 1) if re.search(_PATRON_ANTIGUO, texto)]
        for n in sorted(analizador.raw_excluded):
            texto = lineas[n - 1] if n - 1 < len(lineas) else ""
            if re.search(_PATRON_MARCA + r"\s*\S", texto) is None and re.search(_PATRON_MARCA, texto):
                sin_motivo.append((numero, n, texto))
        marcadas += len(analizador.raw_statements & analizador.excluded)
        vistas = registros.get(_normalizar(fuente), set())
        for n in sorted(analizador.statements):
            total += 1
            if n in vistas:
                ejecutadas += 1
            else:
                sin_ejecutar.append((numero, n, lineas[n - 1] if n - 1 < len(lineas) else ""))
    return CoberturaLeccion(Path(notebook).stem, total, ejecutadas, marcadas, sin_ejecutar, sin_motivo, antiguas)


def marcas_antiguas_en(texto: str) -> list[tuple[int, str]]:
    """Las líneas (número, texto) de ``texto`` con la marca antigua ``# solo en una GPU real:``."""
    return [(n, linea) for n, linea in enumerate(texto.splitlines(), 1) if re.search(_PATRON_ANTIGUO, linea)]
