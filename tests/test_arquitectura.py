"""La forma del paquete: subpaquetes por capas, una sola casa por nombre, imports en un solo sentido.

Las capas son las del mapa de ``curso_gpu/__init__.py``. Cada fila de ``CAPAS`` es una entrada de
``curso_gpu/`` (un subpaquete o un módulo suelto). Una entrada solo importa de su capa o de las
de abajo; dentro de un subpaquete, sus módulos se importan entre sí; desde fuera, solo por la
puerta del subpaquete (su ``__init__.py``).
"""

import ast
import functools
import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest
from dependencias import declarada

import curso_gpu

PAQUETE = Path(curso_gpu.__file__).resolve().parent
RAIZ = PAQUETE.parent

CAPAS = {
    "base": 0,           # hechos con su fuente (GPU, picos, precisiones, ruedas, mensajes, precios) y formato
    "dispositivo": 1,    # elegir el dispositivo, nvidia-smi, el informe del entorno, Colab y Drive
    "kernels": 2,        # kernels de Triton (lección 11): solo necesitan torch y el dispositivo
    "medicion": 3,       # cronometrar, CPU frente a GPU, comparar tiempos
    "memoria": 3,        # la regla de memoria, la memoria medida al entrenar, el lote que cabe
    "guardado": 3,       # escritura segura, checkpoints, reanudar
    "rendimiento": 3,    # precisión mixta, DataLoader, diagnóstico
    "distribuido": 3,    # DDP y torchrun
    "entrenamiento": 4,  # datos, modelos, entrenar
    "ajuste": 5,         # LoRA y QLoRA (lección 09)
    "generacion": 5,     # generar texto (lección 10)
    "servir": 5,         # servir un modelo a muchos usuarios (lección 13)
    "graficos": 6,       # las figuras
    "interactivo": 7,    # widgets, calculadora, la CLI
    "app_lineas": 8,     # python -m curso_gpu.app_lineas
    "entrenar_ddp": 8,   # python -m curso_gpu.entrenar_ddp
    "__main__": 8,       # python -m curso_gpu
    "__init__": 8,
}
LECCIONES_NUEVAS = {"ajuste", "generacion", "kernels", "servir"}  # llegaron después de fijar el límite de 14 entradas
ATAJOS = ["describir_entorno", "elegir_dispositivo", "sincronizar", "cronometrar", "comparar_tiempos",
          "calculadora_vram", "entrenar"]
"""Lo único que se ofrece en ``curso_gpu`` además de en su subpaquete: lo que un alumno busca primero."""


def _entrada(ruta: Path) -> str:
    """La entrada de ``curso_gpu/`` a la que pertenece un archivo: ``medicion/cronometro.py`` → ``medicion``."""
    partes = ruta.relative_to(PAQUETE).parts
    return partes[0] if len(partes) > 1 else ruta.stem


def _nombre(ruta: Path) -> str:
    """``curso_gpu/medicion/cronometro.py`` → ``medicion.cronometro``; ``__init__.py`` → el paquete."""
    partes = list(ruta.relative_to(PAQUETE).with_suffix("").parts)
    if partes[-1] == "__init__" and len(partes) > 1:
        partes.pop()
    return ".".join(partes)


@functools.cache
def _archivos() -> dict[str, tuple[Path, ast.Module]]:
    return {_nombre(r): (r, ast.parse(r.read_text(encoding="utf-8"))) for r in sorted(PAQUETE.rglob("*.py"))}


def _destino(nombre: str, es_paquete: bool, nodo: ast.ImportFrom) -> str | None:
    """El nombre con puntos (``medicion.cronometro``) del que importa un ``from ... import``."""
    if nodo.level == 0:
        modulo = nodo.module or ""
        return modulo[len("curso_gpu."):] if modulo.startswith("curso_gpu.") else None
    base = nombre.split(".") if es_paquete else nombre.split(".")[:-1]
    base = base[: len(base) - (nodo.level - 1)]
    return ".".join(base + ([nodo.module] if nodo.module else [])) or None


@functools.cache
def _importaciones():
    """(archivo, entrada, destino con puntos, nombres importados, línea) de cada import del paquete."""
    salida = []
    for nombre, (ruta, arbol) in _archivos().items():
        es_paquete = ruta.name == "__init__.py"
        for nodo in ast.walk(arbol):
            if isinstance(nodo, ast.ImportFrom):
                destino = _destino(nombre, es_paquete, nodo)
                if destino is None and nodo.level:  # from . import x
                    destino = ""
                if destino is None:
                    continue
                nombres = [a.name for a in nodo.names]
                if destino == "":
                    salida += [(nombre, ruta, n, [], nodo.lineno) for n in nombres]
                else:
                    salida.append((nombre, ruta, destino, nombres, nodo.lineno))
            elif isinstance(nodo, ast.Import):
                salida += [(nombre, ruta, a.name[len("curso_gpu."):], [], nodo.lineno)
                           for a in nodo.names if a.name.startswith("curso_gpu.")]
    return salida


def test_cada_entrada_tiene_su_capa_y_esta_en_el_mapa():
    entradas = {p.name if p.is_dir() else p.stem for p in PAQUETE.iterdir()
                if (p.is_dir() and (p / "__init__.py").exists()) or p.suffix == ".py"}
    assert entradas == set(CAPAS), f"pon la entrada en CAPAS y en el mapa de __init__.py: {entradas ^ set(CAPAS)}"
    mapa = curso_gpu.__doc__
    faltan = [e for e in entradas - {"__init__", "__main__"} - LECCIONES_NUEVAS if f"``{e}``" not in mapa]
    assert not faltan, f"el docstring de curso_gpu/__init__.py no nombra: {faltan}"
    sin_dunder = entradas - {"__init__", "__main__"}
    assert len(sin_dunder - LECCIONES_NUEVAS) <= 12, sorted(sin_dunder)


def test_ninguna_entrada_importa_de_una_capa_superior():
    subidas = [f"{ruta.relative_to(RAIZ)}:{linea} ({CAPAS[nombre.split('.')[0]]}) importa {destino}"
               for nombre, ruta, destino, _, linea in _importaciones()
               if CAPAS[destino.split(".")[0]] > CAPAS[_entrada(ruta)]]
    assert not subidas


def test_desde_fuera_de_un_subpaquete_solo_se_entra_por_su_puerta():
    """``from ..medicion import cronometrar`` sí; ``from ..medicion.cronometro import cronometrar``, no.

    La excepción es la puerta misma (``base._puerta``), que usa cada ``__init__.py``."""
    por_dentro = [f"{ruta.relative_to(RAIZ)}:{linea} importa {destino}"
                  for nombre, ruta, destino, _, linea in _importaciones()
                  if "." in destino and destino.split(".")[0] != _entrada(ruta) and ruta.name != "__main__.py"
                  and not (destino == "base._puerta" and ruta.name == "__init__.py")]
    assert not por_dentro


def test_no_hay_ciclos_de_importacion():
    grafo: dict[str, set[str]] = {}
    archivos = _archivos()
    for nombre, ruta, destino, nombres, _ in _importaciones():
        # «from .x import y» puede ser el módulo x.y: se cuenta el archivo que existe
        candidatos = [f"{destino}.{n}" for n in nombres if f"{destino}.{n}" in archivos]
        for d in candidatos or [destino]:
            if d != nombre:
                grafo.setdefault(nombre, set()).add(d)
    visitando, hecho = set(), set()

    def visitar(m, camino):
        assert m not in visitando, "ciclo: " + " → ".join(camino + [m])
        if m in hecho:
            return
        visitando.add(m)
        for o in sorted(grafo.get(m, ())):
            visitar(o, camino + [m])
        visitando.discard(m)
        hecho.add(m)

    for m in sorted(grafo):
        visitar(m, [])


def test_ningun_modulo_importa_nombres_privados_de_otro():
    privados = [f"{ruta.relative_to(RAIZ)}:{linea} importa {n} de {destino}"
                for _, ruta, destino, nombres, linea in _importaciones() for n in nombres
                if n.startswith("_") and not n.startswith("__")]
    assert not privados


def _definidos(arbol: ast.Module) -> set[str]:
    nombres = set()
    for nodo in arbol.body:
        if isinstance(nodo, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            nombres.add(nodo.name)
        elif isinstance(nodo, ast.Assign):
            nombres |= {t.id for t in nodo.targets if isinstance(t, ast.Name)}
        elif isinstance(nodo, ast.AnnAssign) and isinstance(nodo.target, ast.Name):
            nombres.add(nodo.target.id)
    return nombres


def _all_literal(arbol: ast.Module) -> list[str] | None:
    """El ``__all__`` de un módulo si es una lista escrita tal cual (la puerta la lee sin importar)."""
    for nodo in arbol.body:
        if isinstance(nodo, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in nodo.targets):
            return list(ast.literal_eval(nodo.value))
    return None


def _modulos() -> dict[str, ast.Module]:
    """Cada módulo que ofrece nombres: los de los subpaquetes y las órdenes sueltas (no ``__init__``, ``_privados``)."""
    return {nombre: arbol for nombre, (ruta, arbol) in _archivos().items()
            if not ruta.name.startswith("_") and ruta.parent != PAQUETE or ruta.stem in ("app_lineas", "entrenar_ddp")}


def test_cada_modulo_declara_su_all_y_lo_que_no_esta_en_el_es_privado():
    """``__all__`` es lo público; lo demás lleva guion bajo (``_ESPERA_S``), así nada interno es API."""
    sin_all, distintos = [], []
    for nombre, arbol in _modulos().items():
        publico = _all_literal(arbol)
        if publico is None:
            sin_all.append(nombre)
            continue
        definidos = {n for n in _definidos(arbol) if not n.startswith("_") and n != "main"}
        if set(publico) - {"main"} != definidos or len(publico) != len(set(publico)):  # main: la orden
            distintos.append(f"{nombre}: en __all__ y no definidos, o definidos sin guion bajo y fuera: "
                             f"{sorted(set(publico) ^ definidos)}")
    assert not sin_all, f"declara __all__ en: {sin_all}"
    assert not distintos


def _subpaquetes():
    return sorted(p for p in PAQUETE.iterdir() if (p / "__init__.py").exists())


def test_las_casas_de_cada_subpaquete_son_los_all_de_sus_modulos():
    """``CASAS`` y ``__all__`` de un subpaquete salen de los módulos: nada que mantener a mano."""
    import importlib

    casas: dict[str, list[str]] = {}
    for paquete in _subpaquetes():
        subpaquete = importlib.import_module(f"curso_gpu.{paquete.name}")
        esperado = {}
        for ruta in sorted(paquete.glob("*.py")):
            if ruta.name.startswith("_"):
                continue
            modulo = f"{paquete.name}.{ruta.stem}"
            publico = _all_literal(_archivos()[modulo][1])
            assert publico is not None, f"{modulo} no declara __all__"
            if paquete.name not in LECCIONES_NUEVAS:  # lo leído sin importar es lo que Python ve al importar
                assert importlib.import_module(f"curso_gpu.{modulo}").__all__ == publico, modulo
            esperado |= {n: ruta.stem for n in publico}
            assert ruta.stem not in publico, f"{modulo}: un nombre igual a su módulo se taparía al importarlo"
        assert subpaquete.CASAS == esperado, paquete.name
        assert subpaquete.__all__ == sorted(esperado)
        for n in subpaquete.__all__:
            casas.setdefault(n, []).append(paquete.name)
    repetidos = {n: c for n, c in casas.items() if len(c) > 1}
    assert not repetidos


def test_los_editores_ven_los_nombres_de_cada_subpaquete():
    """Cada ``__init__.py`` importa, solo para los comprobadores de tipos, todo módulo público con ``*``."""
    faltan = []
    for paquete in _subpaquetes():
        arbol = _archivos()[paquete.name][1]
        bloques = [n for n in arbol.body if isinstance(n, ast.If) and getattr(n.test, "id", "") == "TYPE_CHECKING"]
        vistos = {n.module for b in bloques for n in b.body
                  if isinstance(n, ast.ImportFrom) and n.level == 1 and [a.name for a in n.names] == ["*"]}
        modulos = {r.stem for r in paquete.glob("*.py") if not r.name.startswith("_")}
        if vistos != modulos:
            faltan.append(f"{paquete.name}: {sorted(vistos ^ modulos)}")
    assert not faltan


def test_un_editor_completa_e_infiere_los_nombres_perezosos():
    """Lo que ve Jupyter al completar (jedi): los nombres perezosos y los atajos, con su casa."""
    jedi = __import__("pytest").importorskip("jedi")
    proyecto = jedi.Project(str(RAIZ), sys_path=[str(RAIZ)], added_sys_path=[])

    def completar(codigo: str) -> set[str]:
        return {c.name for c in jedi.Script(codigo, path=str(RAIZ / "x.py"), project=proyecto).complete()}

    assert {"cronometrar", "cronometrar_con_presupuesto"} <= completar("from curso_gpu.medicion import cronom")
    assert "tabla_vram" in completar("from curso_gpu.memoria import tabla_v")
    assert "describir_entorno" in completar("import curso_gpu\ncurso_gpu.describir_en")
    script = jedi.Script("from curso_gpu.memoria import tabla_vram\ntabla_vram", path=str(RAIZ / "x.py"), project=proyecto)
    assert [d.full_name for d in script.infer(2, 5)] == ["curso_gpu.memoria.regla.tabla_vram"]


def test_arriba_solo_los_atajos_de_lo_primero_que_se_busca():
    """``curso_gpu`` ofrece solo los atajos; cada uno es el mismo objeto que en su subpaquete (una casa,
    una puerta más), y ``help(curso_gpu)`` los nombra con la lección que los enseña."""
    import importlib
    import pydoc
    import re

    assert curso_gpu.__all__ == ["__version__", *ATAJOS]
    assert list(curso_gpu.ATAJOS) == ATAJOS
    for nombre, paquete in curso_gpu.ATAJOS.items():
        assert getattr(curso_gpu, nombre) is getattr(importlib.import_module(f"curso_gpu.{paquete}"), nombre)
        assert re.search(rf"``{nombre}\(.*lección 0\d", pydoc.render_doc(curso_gpu, renderer=pydoc.plaintext)), nombre
    assert set(ATAJOS) <= set(dir(curso_gpu))


def test_import_curso_gpu_no_carga_torch_ni_con_los_atajos_a_la_vista(importar_en_limpio):
    # dir() enseña los atajos sin importarlos (torch sigue fuera); usar uno lo trae de su casa.
    r = importar_en_limpio
    assert r["torch_tras_dir"] is False and r["atajo_a_la_vista"] is True
    assert r["atajo"] == "curso_gpu.dispositivo.entorno"


def test_no_hay_reexportaciones_fuera_de_los_init():
    """Un módulo que no es ``__init__`` no importa del curso nombres que no usa."""
    malas = []
    for ruta in PAQUETE.rglob("*.py"):
        if ruta.name in ("__init__.py", "__main__.py"):
            continue
        arbol = ast.parse(ruta.read_text(encoding="utf-8"))
        usados = {n.id for n in ast.walk(arbol) if isinstance(n, ast.Name)}
        usados |= {n.value.id for n in ast.walk(arbol) if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)}
        for nodo in ast.walk(arbol):
            if isinstance(nodo, ast.ImportFrom) and (nodo.level or (nodo.module or "").startswith("curso_gpu")):
                malas += [f"{ruta.relative_to(RAIZ)}: {a.asname or a.name}" for a in nodo.names
                          if (a.asname or a.name) not in usados and a.name != "annotations"]
    assert not malas, malas


def _importaciones_de_fuera():
    """(archivo, línea, módulo, nombre) de cada ``from curso_gpu... import`` en lecciones, pruebas y benchmarks."""
    salida = []
    for carpeta in ("notebooks", "tests", "benchmarks", "herramientas"):
        for ruta in sorted((RAIZ / carpeta).rglob("*.py")):
            for nodo in ast.walk(ast.parse(ruta.read_text(encoding="utf-8"))):
                if isinstance(nodo, ast.ImportFrom) and nodo.level == 0 and (nodo.module or "").startswith("curso_gpu"):
                    salida += [(ruta, nodo.lineno, nodo.module, a.name) for a in nodo.names]
    return salida


def test_lecciones_pruebas_y_benchmarks_importan_cada_nombre_de_su_casa():
    """``from curso_gpu.medicion import cronometrar``: el nombre está en el ``__all__`` del subpaquete
    (o es un submódulo); lo público nunca se toma de un módulo interno (``curso_gpu.medicion.cronometro``)."""
    import importlib

    malas = []
    for ruta, linea, modulo, nombre in _importaciones_de_fuera():
        donde = f"{ruta.relative_to(RAIZ)}:{linea}"
        if nombre.startswith("_"):
            continue  # una prueba puede mirar un detalle privado, en el módulo que lo define
        objeto = importlib.import_module(modulo)
        es_submodulo = (PAQUETE.joinpath(*modulo.split(".")[1:], f"{nombre}.py").exists()
                        or PAQUETE.joinpath(*modulo.split(".")[1:], nombre, "__init__.py").exists())
        if es_submodulo:
            continue
        publico = getattr(objeto, "__all__", None)
        if modulo.count(".") >= 2:
            malas.append(f"{donde}: {nombre} desde el módulo interno {modulo}")
        elif publico is not None and nombre not in publico:
            malas.append(f"{donde}: {nombre} no es de {modulo}")
    assert not malas, malas


# Ningún módulo carga gráficas ni widgets al importarse: los que los usan los importan dentro de
# sus funciones. Un solo proceso para todos: arrancar Python con torch cuesta segundos.
# kernels.programas importa triton (los @triton.jit). Donde triton está declarado (Linux), se importa
# como los demás y, si falta, la prueba falla; donde no tiene versión, no se puede importar.
_SIN_TRITON = set() if declarada("triton") or importlib.util.find_spec("triton") else {"kernels.programas"}
LIGEROS = tuple(sorted(n for n in _archivos() if n not in {"__init__", "__main__"} | _SIN_TRITON))
PESADOS_DE_LECCIONES = {"transformers", "peft", "bitsandbytes", "accelerate"}


@pytest.fixture(scope="module")
def importar_en_limpio():
    """Un Python limpio (un solo proceso, un solo ``import torch``) que importa el paquete y cuenta.

    ``import curso_gpu`` y ``dir()``: ni torch ni tqdm (torch importa tqdm por su cuenta, así que
    tqdm solo se puede mirar antes de torch). Luego, con torch ya cargado, cada módulo por separado;
    y al final un atajo (``describir_entorno``), que se trae de su casa al usarlo.
    """
    codigo = ("import importlib, json, sys\n"
              "def pesados(antes, nombres):\n"
              "    return sorted(m for m in set(sys.modules) - antes if m.split('.')[0] in nombres)\n"
              "assert 'tqdm' not in sys.modules and 'torch' not in sys.modules\n"
              "antes = set(sys.modules); import curso_gpu\n"
              "r = {'curso_gpu': pesados(antes, {'matplotlib', 'ipywidgets', 'tqdm', 'torch'})}\n"
              "r['atajo_a_la_vista'] = 'describir_entorno' in dir(curso_gpu)\n"
              "r['torch_tras_dir'] = 'torch' in sys.modules\n"
              "import torch\n"
              f"for m in {LIGEROS!r}:\n"
              "    antes = set(sys.modules); importlib.import_module('curso_gpu.' + m)\n"
              f"    extra = set() if m.split('.')[0] in {sorted(LECCIONES_NUEVAS)!r} else set({sorted(PESADOS_DE_LECCIONES)!r})\n"
              "    r[m] = pesados(antes, {'matplotlib', 'ipywidgets'} | extra)\n"
              "from curso_gpu import describir_entorno\n"
              "r['atajo'] = describir_entorno.__module__\n"
              "print(json.dumps(r))")
    salida = subprocess.run([sys.executable, "-c", codigo], capture_output=True, text=True, timeout=120,
                            cwd=RAIZ)
    assert salida.returncode == 0, salida.stderr
    return json.loads(salida.stdout)


def test_import_curso_gpu_no_carga_matplotlib_ipywidgets_ni_tqdm(importar_en_limpio):
    r = {k: v for k, v in importar_en_limpio.items() if k == "curso_gpu" or k in LIGEROS}
    assert r == {"curso_gpu": [], **{m: [] for m in LIGEROS}}
