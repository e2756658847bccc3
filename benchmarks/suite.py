"""Cuánto tarda la suite de pruebas: la orden del README y la vuelta rápida, medidas, no supuestas.

Ejecuta, una tras otra:

1. la orden de pruebas de «### Probar» del README (``python -m pytest -n auto --dist loadfile``),
   con todas las lecciones;
2. la vuelta rápida, la misma con ``-m "not lento"``.

De cada una imprime el tiempo de reloj, el tiempo de CPU (usuario + sistema de pytest y de todos
sus procesos: trabajadores de xdist, kernels, torchrun...), la carga de la máquina antes y después
(``os.getloadavg``) y las diez pruebas más lentas. En una máquina compartida el reloj engaña: los
segundos de CPU son la cifra que se puede comparar entre máquinas; el reloj en una máquina
tranquila de 2 núcleos es, como mucho, la CPU dividida entre 2 más lo que nada puede repartirse.

Metas (máquina de 2 núcleos, tranquila): la orden del README ≤ 180 s (cada lección dos veces: en la CPU
y en la T4 simulada); la vuelta rápida ≤ 30 s.

    .venv/bin/python benchmarks/suite.py                 # las dos
    .venv/bin/python benchmarks/suite.py --solo-rapida   # solo la vuelta rápida
    .venv/bin/python benchmarks/suite.py -- -x           # pasa «-x» a pytest

Como en CI, se ejecuta sin ``PYTHONDONTWRITEBYTECODE``: pytest guarda las pruebas ya reescritas.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

RAIZ = Path(__file__).resolve().parent.parent
META_README_S = 180  # con cada lección dos veces: en la CPU y en la T4 simulada
META_RAPIDA_S = 30
LENTAS = re.compile(r"^\s*(\d+(?:\.\d+)?)s\s+(call|setup|teardown)\s+(\S+)")


def orden_del_readme(readme: Path = RAIZ / "README.md") -> list[str]:
    """Los argumentos de pytest de la orden de «### Probar» (lo que va tras ``-m pytest``)."""
    texto = readme.read_text(encoding="utf-8")
    bloque = texto.split("### Probar", 1)[1].split("```bash", 1)[1].split("```", 1)[0]
    linea = next(l for l in bloque.splitlines() if "-m pytest" in l)
    return linea.split("-m pytest", 1)[1].split()


@dataclass
class Corrida:
    nombre: str
    orden: list[str]
    reloj_s: float = 0.0
    cpu_s: float = 0.0
    carga_antes: tuple = ()
    carga_despues: tuple = ()
    codigo: int = 0
    resumen: str = ""
    lentas: list[tuple[float, str, str]] = field(default_factory=list)

    def __str__(self) -> str:
        carga = lambda c: " ".join(f"{x:.2f}" for x in c)  # noqa: E731
        lineas = [
            f"== {self.nombre}: {' '.join(self.orden)}",
            f"   reloj {self.reloj_s:.1f} s · CPU {self.cpu_s:.1f} s (usuario + sistema, con los subprocesos)"
            f" · código de salida {self.codigo}",
            f"   carga (1, 5, 15 min) antes: {carga(self.carga_antes)} · después: {carga(self.carga_despues)}",
            f"   {self.resumen}",
            "   las diez pruebas más lentas:",
        ]
        lineas += [f"   {s:7.2f} s  {fase:<8} {prueba}" for s, fase, prueba in self.lentas[:10]]
        return "\n".join(lineas)


def medir(nombre: str, argumentos: list[str]) -> Corrida:
    """Ejecuta pytest con ``argumentos`` y mide reloj, CPU y las pruebas más lentas."""
    orden = [sys.executable, "-m", "pytest", *argumentos, "--durations=10", "-q", "-p", "no:cacheprovider"]
    entorno = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    entorno["PYTHONPATH"] = str(RAIZ) + (os.pathsep + entorno["PYTHONPATH"] if entorno.get("PYTHONPATH") else "")
    corrida = Corrida(nombre, ["pytest", *argumentos])
    antes = resource.getrusage(resource.RUSAGE_CHILDREN)
    corrida.carga_antes = os.getloadavg()
    inicio = time.monotonic()
    resultado = subprocess.run(orden, cwd=RAIZ, env=entorno, capture_output=True, text=True)
    corrida.reloj_s = time.monotonic() - inicio
    despues = resource.getrusage(resource.RUSAGE_CHILDREN)
    corrida.carga_despues = os.getloadavg()
    corrida.cpu_s = (despues.ru_utime - antes.ru_utime) + (despues.ru_stime - antes.ru_stime)
    corrida.codigo = resultado.returncode
    salida = resultado.stdout.splitlines()
    corrida.resumen = next((l.strip("= ") for l in reversed(salida) if re.search(r"\d+ (passed|failed|error)", l)),
                           "(sin resumen de pytest)")
    corrida.lentas = sorted(((float(m[1]), m[2], m[3]) for m in map(LENTAS.match, salida) if m), reverse=True)
    if resultado.returncode not in (0,):
        fallos = [l for l in salida if l.startswith(("FAILED", "ERROR"))]
        corrida.resumen += "\n   " + "\n   ".join(fallos[:20] or resultado.stderr.splitlines()[-20:])
    return corrida


def main(argv: list[str] | None = None) -> int:
    analizador = argparse.ArgumentParser(description="Mide la orden de pruebas del README y la vuelta rápida.")
    analizador.add_argument("--solo-rapida", action="store_true", help="solo la vuelta rápida (-m \"not lento\")")
    analizador.add_argument("extra", nargs="*", help="argumentos de más para pytest (tras «--»)")
    args = analizador.parse_args(argv)
    readme = orden_del_readme()
    corridas = []
    if not args.solo_rapida:
        corridas.append(("orden del README", readme + args.extra, META_README_S))
    corridas.append(("vuelta rápida", readme + ["-m", "not lento"] + args.extra, META_RAPIDA_S))
    print(f"{os.cpu_count()} núcleos · Python {sys.version.split()[0]}", flush=True)
    codigo = 0
    for nombre, argumentos, meta in corridas:
        corrida = medir(nombre, argumentos)
        print(corrida, flush=True)
        dentro = "dentro" if corrida.reloj_s <= meta else "FUERA"
        print(f"   meta ≤ {meta} s de reloj en una máquina tranquila de 2 núcleos: {dentro} "
              f"(CPU / 2 = {corrida.cpu_s / 2:.1f} s)\n", flush=True)
        codigo = codigo or corrida.codigo
    return codigo


if __name__ == "__main__":
    sys.exit(main())
