"""La forma del paquete: imports en un solo sentido, sin ciclos y sin nombres privados ajenos.

Las capas son las del mapa de ``curso_gpu/__init__.py``: datos → dispositivo → medir, memoria y
entrenar → presentación (gráficas, widgets) → lecciones, CLI y app. Un módulo solo importa de
su capa o de las de abajo.
"""

import ast
import json
import subprocess
import sys
from pathlib import Path

import curso_gpu

PAQUETE = Path(curso_gpu.__file__).resolve().parent

CAPAS = {
    # 0. Datos y formato: tablas con sus fuentes, vocabulario, texto/HTML. Sin torch.cuda.
    "proyecto": 0, "ruedas_cuda": 0, "precisiones": 0, "catalogo": 0, "picos": 0, "nube": 0,
    "mensajes_torch": 0,
    "presentacion": 0, "numeros": 0, "terminal": 0,
    # 1. El dispositivo: primitivas, nvidia-smi, Colab y el informe del entorno.
    "nvidia_smi": 1, "dispositivo": 1, "colab": 1, "entorno": 1,
    # 2. Medir, estimar memoria y entrenar.
    "cronometro": 2, "comparar": 2, "memoria_libre": 2, "bucle_python": 2, "medicion": 2, "memoria": 2, "progreso": 2, "datos": 2,
    "modelos": 2, "escritura_segura": 2, "checkpoints": 2, "reanudacion": 2,
    "entradas_entrenamiento": 2, "resultados_entrenamiento": 2, "entrenamiento": 2, "memoria_entrenamiento": 2,
    "lote_que_cabe": 2,
    "precision_mixta": 2, "conjuntos": 2, "cargadores": 2, "rendimiento": 2,
    "distribuido": 2, "lanzador": 2,
    "ajuste": 2, "generacion": 2,  # subpaquetes: cada uno cuenta como un módulo
    # 3. Presentación interactiva: gráficas y widgets.
    "estilo_graficos": 3, "graficos_entrenamiento": 3, "graficos": 3, "widgets": 3, "calculadora": 3,
    # 4. Lecciones, línea de órdenes y app.
    "cli": 4, "__main__": 4, "app_lineas": 4, "__init__": 4, "entrenar_ddp": 4,
}


SUBPAQUETES = sorted(p.parent.name for p in PAQUETE.glob("*/__init__.py"))


def _modulos() -> dict[str, ast.Module]:
    """Cada módulo del paquete, y cada subpaquete como un solo módulo (todos sus archivos juntos).

    Dentro de un subpaquete, ``from .x import`` es el propio subpaquete y ``from ..x import``
    un módulo del paquete: se reescriben como ``from x import`` (nivel 0) y ``from .x import``.
    """
    modulos = {ruta.stem: ast.parse(ruta.read_text(encoding="utf-8")) for ruta in PAQUETE.glob("*.py")}
    return modulos | {nombre: _unir(nombre) for nombre in SUBPAQUETES}


def _unir(nombre: str) -> ast.Module:
    cuerpo = []
    for ruta in sorted((PAQUETE / nombre).glob("*.py")):
        arbol = ast.parse(ruta.read_text(encoding="utf-8"))
        for nodo in ast.walk(arbol):
            if isinstance(nodo, ast.ImportFrom) and nodo.level:
                nodo.level -= 1  # .x (el propio subpaquete) → nivel 0, que no cuenta; ..x → .x
        cuerpo += arbol.body
    return ast.Module(cuerpo, [])


def _importados(arbol: ast.Module, solo_arriba: bool) -> list[tuple[str, list[str]]]:
    """(módulo del paquete importado, nombres importados de él)."""
    nodos = arbol.body if solo_arriba else list(ast.walk(arbol))
    salida = []
    for nodo in nodos:
        if isinstance(nodo, ast.ImportFrom):
            if nodo.level == 1 and nodo.module:
                salida.append((nodo.module.split(".")[0], [a.name for a in nodo.names]))
            elif nodo.level == 1:
                salida += [(a.name, []) for a in nodo.names]
            elif nodo.module and nodo.module.startswith("curso_gpu."):
                salida.append((nodo.module.split(".")[1], [a.name for a in nodo.names]))
        elif isinstance(nodo, ast.Import):
            salida += [(a.name.split(".")[1], []) for a in nodo.names if a.name.startswith("curso_gpu.")]
    return salida


def test_cada_modulo_tiene_su_capa_y_esta_en_el_mapa():
    modulos = set(_modulos())
    assert modulos == set(CAPAS), f"añade el módulo a CAPAS y al mapa de __init__.py: {modulos ^ set(CAPAS)}"
    mapa = curso_gpu.__doc__
    faltan = [m for m in modulos - {"__init__", "__main__"} if f"``{m}``" not in mapa]
    assert not faltan, f"el docstring de curso_gpu/__init__.py no nombra: {faltan}"


def test_ningun_modulo_importa_de_una_capa_superior():
    subidas = [f"{m} (capa {CAPAS[m]}) importa {o} (capa {CAPAS[o]})"
               for m, arbol in _modulos().items() for o, _ in _importados(arbol, solo_arriba=False)
               if CAPAS[o] > CAPAS[m]]
    assert not subidas


def test_no_hay_ciclos_de_importacion():
    grafo = {m: {o for o, _ in _importados(a, solo_arriba=False) if o != m} for m, a in _modulos().items()}
    visitando, hecho = set(), set()

    def visitar(m, camino):
        assert m not in visitando, "ciclo: " + " → ".join(camino + [m])
        if m in hecho:
            return
        visitando.add(m)
        for o in sorted(grafo[m]):
            visitar(o, camino + [m])
        visitando.discard(m)
        hecho.add(m)

    for m in sorted(grafo):
        visitar(m, [])


def test_ningun_modulo_importa_nombres_privados_de_otro():
    privados = [f"{m} importa {n} de {o}" for m, arbol in _modulos().items()
                for o, nombres in _importados(arbol, solo_arriba=False) for n in nombres
                if n.startswith("_") and not n.startswith("__")]
    assert not privados


# Ningún módulo carga gráficas ni widgets al importarse: los que los usan los importan dentro de
# sus funciones. Un solo proceso para todos: arrancar Python con torch cuesta segundos.
LIGEROS = tuple(sorted([p.stem for p in PAQUETE.glob("*.py") if p.stem not in {"__init__", "__main__"}]
                      + SUBPAQUETES))
PESADOS = {"matplotlib", "ipywidgets", "transformers", "peft"}


def test_import_curso_gpu_no_carga_matplotlib_ipywidgets_ni_tqdm():
    # torch ya importa tqdm por su cuenta: se mira lo que añade curso_gpu, y luego cada módulo.
    # transformers y peft (lecciones 09 y 10) tampoco: solo dentro de las funciones que los usan.
    codigo = ("import importlib, json, sys, torch\n"
              "def pesados(antes, nombres):\n"
              "    return sorted(m for m in set(sys.modules) - antes if m.split('.')[0] in nombres)\n"
              "antes = set(sys.modules); import curso_gpu\n"
              f"r = {{'curso_gpu': pesados(antes, {PESADOS | {'tqdm'}!r})}}\n"
              f"for m in {LIGEROS!r}:\n"
              "    antes = set(sys.modules); importlib.import_module('curso_gpu.' + m)\n"
              f"    r[m] = pesados(antes, {PESADOS!r})\n"
              "print(json.dumps(r))")
    salida = subprocess.run([sys.executable, "-c", codigo], capture_output=True, text=True, timeout=120,
                            cwd=PAQUETE.parent)
    assert salida.returncode == 0, salida.stderr
    assert json.loads(salida.stdout) == {"curso_gpu": [], **{m: [] for m in LIGEROS}}
