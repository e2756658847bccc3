"""¿Qué líneas de una lección no ejecutó nadie? La cobertura de sus dos ejecuciones, juntas.

Cada lección se ejecuta dos veces (en la CPU y en la T4 simulada, ``CURSO_GPU_SIMULAR=T4``) y cada
ejecución deja sus líneas ejecutadas (``cobertura_kernel``). Aquí se juntan y se comparan con las
líneas de código de cada celda, contadas como las cuenta coverage.py (sus sentencias, sin docstrings).

Una línea que solo puede correr en una GPU de verdad (una descarga real, montar Drive de verdad) se
marca con ``# solo en una GPU real: <motivo>``: no cuenta, pero las marcadas deben ser menos del
``MARCADAS_MAX`` del código de la lección. El objetivo: ``OBJETIVO`` de las líneas, ejecutadas.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

OBJETIVO = 0.98
MARCADAS_MAX = 0.02
MARCA = "# solo en una GPU real:"
_PATRON_MARCA = r"#\s*solo en una GPU real:"


@dataclass
class CoberturaLeccion:
    """La cobertura de una lección: líneas de código, ejecutadas, marcadas y las que nadie ejecutó."""

    nombre: str
    total: int
    ejecutadas: int
    marcadas: int
    sin_ejecutar: list[tuple[int, int, str]] = field(default_factory=list)  # (celda, línea, texto)
    marcas_sin_motivo: list[tuple[int, int, str]] = field(default_factory=list)

    @property
    def fraccion(self) -> float:
        return self.ejecutadas / self.total if self.total else 1.0

    @property
    def fraccion_marcadas(self) -> float:
        return self.marcadas / (self.total + self.marcadas) if (self.total + self.marcadas) else 0.0

    @property
    def cumple(self) -> bool:
        return self.fraccion >= OBJETIVO and self.fraccion_marcadas < MARCADAS_MAX and not self.marcas_sin_motivo

    def __str__(self) -> str:
        cabecera = (f"{self.nombre}: {self.ejecutadas}/{self.total} líneas ejecutadas ({100 * self.fraccion:.1f} %), "
                    f"{self.marcadas} marcadas «solo en una GPU real» ({100 * self.fraccion_marcadas:.1f} %)")
        lineas = [cabecera] + [f"    celda {c}, línea {n}: {t.strip()}" for c, n, t in self.sin_ejecutar]
        lineas += [f"    celda {c}, línea {n}: marca sin motivo: {t.strip()}" for c, n, t in self.marcas_sin_motivo]
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
    sin_ejecutar, sin_motivo = [], []
    codigo = [c for c in cuaderno.cells if c.cell_type == "code"]
    for numero, celda in enumerate(codigo):
        fuente = _transformar(celda.source)
        analizador = PythonParser(text=fuente, exclude=_PATRON_MARCA)
        analizador.parse_source()
        lineas = fuente.splitlines()
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
    return CoberturaLeccion(Path(notebook).stem, total, ejecutadas, marcadas, sin_ejecutar, sin_motivo)
