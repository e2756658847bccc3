"""La cobertura de líneas de una lección, medida dentro de su kernel de Jupyter.

``ejecucion_compartida`` arranca el kernel con ``cobertura_kernel.iniciar()`` cuando la variable
``CURSO_GPU_COBERTURA`` dice dónde guardar. Antes de compilar cada celda, un transformador del
árbol de sintaxis (``ast_transformers`` de IPython) pone delante de cada sentencia una marca que
anota su línea; tras cada celda se guarda, de forma atómica, un JSON con el texto de cada celda
ejecutada y sus líneas ejecutadas.

No usa un trazador (``sys.settrace``, como coverage.py en Python 3.11): un trazador recibe cada
llamada de función de torch y transformers, y hacía la lección entre un 30 y un 50 % más lenta.
Una marca solo cuesta cuando se ejecuta una sentencia de la lección.

El intérprete de Triton vuelve a compilar cada kernel desde su texto, sin las marcas: en cuanto
triton está importado (antes de cada celda se mira), su ``FunctionRewriter`` las pone también. Un
kernel lanzado en la misma celda que importa triton por primera vez quedaría sin marcar (la prueba
de cobertura lo diría: sus líneas saldrían como no ejecutadas).

Las líneas que anota son las que coverage.py cuenta como sentencias (``tests/cobertura.py``): la
primera línea de cada sentencia, las de sus decoradores, la del ``except`` y la del ``case`` en
cuanto se entra en ellos; los docstrings no cuentan. La marca vive en ``builtins``: no deja ningún
nombre en el espacio de la lección, y las líneas de un error siguen siendo las de la celda.
"""

from __future__ import annotations

import ast
import builtins
import json
import os
import sys

VARIABLE = "CURSO_GPU_COBERTURA"
MARCA = "__cobertura_curso_gpu__"  # en builtins: marca(celda, línea)

_DEFINICIONES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _es_docstring(sentencia: ast.stmt) -> bool:
    return (isinstance(sentencia, ast.Expr) and isinstance(sentencia.value, ast.Constant)
            and isinstance(sentencia.value.value, str))


def _es_futuro(sentencia: ast.stmt) -> bool:
    return isinstance(sentencia, ast.ImportFrom) and sentencia.module == "__future__"


class Marcador(ast.NodeTransformer):
    """Pone ``marca(celda, línea)`` delante de cada sentencia de una celda (y de sus funciones y clases)."""

    def __init__(self, celda: int):
        self.celda = celda

    def _marca(self, linea: int, donde: ast.AST) -> ast.stmt:
        llamada = ast.Call(ast.Name(MARCA, ast.Load()), [ast.Constant(self.celda), ast.Constant(linea)], [])
        return ast.copy_location(ast.Expr(llamada), donde)

    def _marcar(self, sentencias: list, con_docstring: bool, al_entrar: int | None = None) -> list:
        nuevas = []
        if al_entrar is not None and sentencias:  # la línea del except o del case
            nuevas.append(self._marca(al_entrar, sentencias[0]))
        for i, sentencia in enumerate(sentencias):
            self.visit(sentencia)
            if (i == 0 and con_docstring and _es_docstring(sentencia)) or _es_futuro(sentencia):
                nuevas.append(sentencia)  # ni se cuenta ni se puede mover
                continue
            for decorador in getattr(sentencia, "decorator_list", []):
                nuevas.append(self._marca(decorador.lineno, sentencia))
            nuevas.extend([self._marca(sentencia.lineno, sentencia), sentencia])
        return nuevas

    def generic_visit(self, nodo):
        con_docstring = isinstance(nodo, (ast.Module, *_DEFINICIONES))
        for campo in ("body", "orelse", "finalbody"):
            valor = getattr(nodo, campo, None)
            if isinstance(valor, list) and valor and isinstance(valor[0], ast.stmt):
                setattr(nodo, campo, self._marcar(valor, con_docstring and campo == "body"))
        for manejador in getattr(nodo, "handlers", []):  # try / except
            manejador.body = self._marcar(manejador.body, False, al_entrar=manejador.lineno)
        for caso in getattr(nodo, "cases", []):  # match / case
            caso.body = self._marcar(caso.body, False, al_entrar=caso.pattern.lineno)
        return nodo

    def visit(self, nodo):  # dentro de una expresión no hay sentencias que marcar
        if isinstance(nodo, (ast.Module, ast.stmt)):
            return self.generic_visit(nodo)
        return nodo


class _Transformador:
    """El ``ast_transformer`` de IPython: marca la celda que se está ejecutando ahora.

    Solo el primer árbol tras cada ``pre_run_cell`` es la celda; los que pasan después por aquí
    (el código de ``%time`` o ``%timeit`` dentro de ella) tienen otras líneas y no se marcan.
    """

    def __init__(self, celdas: list):
        self.celdas = celdas
        self.pendiente = False  # lo pone ``antes`` para la celda que va a compilarse

    def visit(self, arbol):
        if not self.pendiente:
            return arbol
        self.pendiente = False
        return ast.fix_missing_locations(Marcador(len(self.celdas) - 1).visit(arbol))


def _marcar_kernels_de_triton(archivos: dict) -> None:
    """Pone las marcas en el árbol de cada kernel que el intérprete de Triton vuelve a compilar."""
    interprete = sys.modules.get("triton.runtime.interpreter")
    reescritor = getattr(interprete, "FunctionRewriter", None)
    if reescritor is None or getattr(reescritor, MARCA, False):
        return
    original = reescritor._transform_ast

    def con_marcas(self, fuente):
        arbol = original(self, fuente)  # ya con las líneas de la celda
        celda = archivos.get(self.filename)
        return arbol if celda is None else ast.fix_missing_locations(Marcador(celda).visit(arbol))

    reescritor._transform_ast = con_marcas
    setattr(reescritor, MARCA, True)


def iniciar() -> None:
    destino = os.environ.get(VARIABLE)
    if not destino:
        return
    from IPython import get_ipython

    shell = get_ipython()
    celdas: list[dict] = []  # {"fuente": la celda como la compila IPython, "ejecutadas": set de líneas}

    def marca(celda: int, linea: int) -> None:
        celdas[celda]["ejecutadas"].add(linea)

    archivos: dict[str, int] = {}  # el archivo con el que IPython compila cada celda → su número
    transformador = _Transformador(celdas)

    def antes(info) -> None:
        fuente = shell.transform_cell(info.raw_cell)
        archivos[shell.compile.get_code_name(info.raw_cell, fuente, shell.execution_count)] = len(celdas)
        celdas.append({"fuente": fuente, "ejecutadas": set()})
        transformador.pendiente = True
        _marcar_kernels_de_triton(archivos)

    def guardar(*_args) -> None:
        temporal = f"{destino}.{os.getpid()}.tmp"
        with open(temporal, "w", encoding="utf-8") as archivo_json:
            json.dump({"celdas": [{"fuente": c["fuente"], "ejecutadas": sorted(c["ejecutadas"])}
                                  for c in celdas]}, archivo_json)
        os.replace(temporal, destino)

    setattr(builtins, MARCA, marca)
    shell.events.register("pre_run_cell", antes)
    shell.events.register("post_run_cell", guardar)
    shell.ast_transformers.append(transformador)
