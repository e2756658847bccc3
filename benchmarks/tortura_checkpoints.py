"""Tortura de los checkpoints de la lección 05: ¿se pierde o se rompe algo?

Lo que haría un alumno descuidado, dos procesos a la vez o una carpeta hostil:

1. **SIGKILL** en momentos al azar de un entrenamiento con un checkpoint por época (también a
   mitad de guardar o de tomar el candado); se vuelve a lanzar la misma llamada hasta que
   termina y se compara con un entrenamiento sin cortes: pesos idénticos bit a bit.
2. **Dos escritores y un lector** sobre el mismo archivo, y **dos entrenamientos** en la misma
   carpeta (el segundo debe ser rechazado).
3. **Un bit cambiado** en cualquier byte del último checkpoint: se detecta (y se usa el
   anterior) o no cambia nada; nunca carga pesos distintos sin avisar.
4. **Enlaces simbólicos plantados** en todos los nombres previsibles de la carpeta.
5. **Disco lleno**: un disco pequeño simulado (``write`` devuelve ENOSPC al pasarse de la
   capacidad) y un límite de tamaño de archivo real del núcleo (``RLIMIT_FSIZE`` → EFBIG),
   a mitad del entrenamiento.

Y al final, que ningún archivo fuera de las carpetas de prueba cambió. Solo Linux/macOS
(usa ``fork`` y señales POSIX).

    python benchmarks/tortura_checkpoints.py [--segundos 120] [--semilla 0]
"""

from __future__ import annotations

import argparse
import errno
import hashlib
import json
import multiprocessing
import os
import random
import resource
import shutil
import signal
import tempfile
import time
import warnings
from collections import Counter
from pathlib import Path

import torch

from curso_gpu.guardado import (
    ANTERIORES,
    CANDADO,
    FORMATO,
    AvisoCheckpoint,
    CarpetaCheckpoints,
    CarpetaNoEscribible,
    CarpetaOcupada,
    CheckpointDanado,
    CheckpointNoGuardado,
    cargar_checkpoint,
    como_carpeta,
    guardar_atomico,
)
from curso_gpu.entrenamiento import generar_dataset
from curso_gpu.entrenamiento import entrenar
from curso_gpu.entrenamiento import CNNPequena

EPOCAS = 12
DATOS = None  # se generan una vez, antes de los fork


def _datos():
    global DATOS
    if DATOS is None:
        DATOS = generar_dataset(8, semilla=1), generar_dataset(4, semilla=2)
    return DATOS


def _entrenar(carpeta: Path, reanudar: bool | None = None, **opciones):
    """El entrenamiento que se tortura: siempre la misma llamada, como una celda que se repite."""
    torch.manual_seed(0)
    modelo = CNNPequena()
    ent, val = _datos()
    carpeta = como_carpeta(carpeta, cada=1, reanudar=reanudar)
    historial = entrenar(modelo, ent, val, "cpu", epocas=EPOCAS, semilla=3, tamano_lote=8,
                         checkpoints=carpeta, silencioso=True, **opciones)
    return modelo, historial


def _iguales(a, b) -> bool:
    if isinstance(a, torch.Tensor):
        return isinstance(b, torch.Tensor) and a.dtype == b.dtype and a.shape == b.shape and torch.equal(a, b)
    if isinstance(a, dict):
        return isinstance(b, dict) and list(a) == list(b) and all(_iguales(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(_iguales(x, y) for x, y in zip(a, b))
    return a == b or (a != a and b != b)  # NaN == NaN aquí


def _huella_de_arbol(raiz: Path, excluir: Path | None = None) -> dict[str, str]:
    """Contenido (o destino de enlace) y modo de cada entrada bajo ``raiz``."""
    huella = {}
    for ruta in sorted(raiz.rglob("*")):
        if excluir is not None and (ruta == excluir or excluir in ruta.parents):
            continue
        info = os.lstat(ruta)
        if ruta.is_symlink():
            huella[str(ruta)] = "enlace→" + os.readlink(ruta)
        elif ruta.is_file():
            huella[str(ruta)] = f"{info.st_mode:o}:{info.st_mtime_ns}:" + hashlib.sha256(ruta.read_bytes()).hexdigest()
        else:
            huella[str(ruta)] = f"carpeta {info.st_mode:o}"
    return huella


# ---------------------------------------------------------------------------
# Procesos hijo (fork: heredan torch ya importado, con un solo hilo)
# ---------------------------------------------------------------------------

def _hijo_entrenar(carpeta: str, salida: str) -> None:
    warnings.simplefilter("ignore")
    try:
        modelo, historial = _entrenar(Path(carpeta))
    except CarpetaOcupada:
        os._exit(3)
    guardar_atomico({"formato": FORMATO, "epoca": EPOCAS, "modelo": modelo.state_dict(), "historial": historial.a_dict()}, salida)
    os._exit(0)


def _hijo_escritor(destino: str, ident: int, segundos: float) -> None:
    fin, i = time.monotonic() + segundos, 0
    try:
        while time.monotonic() < fin:
            i += 1
            guardar_atomico({"formato": FORMATO, "epoca": i, "modelo": {"w": torch.full((4096,), float(ident * 1_000_000 + i))}}, destino)
    except Exception:
        os._exit(1)
    os._exit(0)


class _DiscoPequeno:
    """Un archivo en un «disco» de ``capacidad`` bytes: ``write`` da ENOSPC al pasarse (como el núcleo)."""

    def __init__(self, archivo, carpeta: Path, capacidad: int):
        self._archivo, self._carpeta, self._capacidad = archivo, carpeta, capacidad

    def _usado(self) -> int:  # lo que ocupan los demás archivos (solo escribe este)
        return sum(p.stat().st_size for p in self._carpeta.iterdir() if p.is_file() and not p.name.endswith(".tmp"))

    def write(self, datos) -> int:
        if self._usado() + self._archivo.tell() + len(datos) > self._capacidad:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return self._archivo.write(datos)

    def __getattr__(self, nombre):
        return getattr(self._archivo, nombre)

    def __enter__(self):
        return self

    def __exit__(self, *excepcion):
        self._archivo.close()


def _hijo_disco_lleno(carpeta: str, resultado: str, modo: str, desde_epoca: int) -> None:
    warnings.simplefilter("ignore")
    carpeta_ruta = Path(carpeta)

    def al_avanzar(epoca, total):
        if epoca != desde_epoca:
            return
        if modo == "rlimit":  # el núcleo devuelve EFBIG al pasar de 2 KB por archivo
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            resource.setrlimit(resource.RLIMIT_FSIZE, (2048, resource.getrlimit(resource.RLIMIT_FSIZE)[1]))
        else:  # un disco con sitio justo para lo que ya hay y medio checkpoint más
            ocupado = sum(p.stat().st_size for p in carpeta_ruta.iterdir() if p.is_file())
            capacidad = ocupado + max(p.stat().st_size for p in carpeta_ruta.iterdir() if p.is_file()) // 2
            fdopen = os.fdopen
            os.fdopen = lambda fd, *a, **k: _DiscoPequeno(fdopen(fd, *a, **k), carpeta_ruta, capacidad)

    try:
        _entrenar(carpeta_ruta, al_avanzar=al_avanzar)
        informe = {"fallo": None}
    except CheckpointNoGuardado as error:
        informe = {"fallo": "CheckpointNoGuardado", "errno": error.errno, "mensaje": str(error),
                   "historial": error.historial.epocas_registradas if error.historial else None}
    except Exception as error:  # cualquier otro error cuenta como fallo de la prueba
        informe = {"fallo": type(error).__name__, "mensaje": str(error)}
    limite = resource.getrlimit(resource.RLIMIT_FSIZE)[1]
    resource.setrlimit(resource.RLIMIT_FSIZE, (limite, limite))
    Path(resultado).write_text(json.dumps(informe))
    os._exit(0)


# ---------------------------------------------------------------------------
# Las pruebas
# ---------------------------------------------------------------------------

def _esperar(hijo, segundos: float = 120) -> int | None:
    """Espera a un hijo como mucho ``segundos``; si no termina, lo mata (nunca queda colgado)."""
    hijo.join(segundos)
    if hijo.exitcode is None:
        hijo.kill()
        hijo.join()
        return None
    return hijo.exitcode


def _revisar_carpeta(carpeta: Path, cuenta: Counter) -> int:
    """Cada checkpoint de la carpeta se carga y pasa su SHA-256; devuelve la época más nueva."""
    mas_nueva = 0
    for ruta in carpeta.glob("checkpoint_epoca_*.pt"):
        try:
            estado = cargar_checkpoint(ruta)
            mas_nueva = max(mas_nueva, int(estado["epoca"]))
        except Exception:
            cuenta["checkpoints rotos tras un SIGKILL"] += 1
    cuenta["temporales a medias tras un SIGKILL"] += sum(1 for p in carpeta.iterdir() if p.name.endswith(".tmp"))
    return mas_nueva


def sigkills(contexto, raiz: Path, referencia: dict, segundos: float, azar: random.Random, cuenta: Counter) -> None:
    """Entrenamientos matados al azar y relanzados hasta terminar; el resultado debe ser idéntico."""
    fin = time.monotonic() + segundos
    ronda = 0
    duracion = referencia["segundos"]
    while time.monotonic() < fin:
        ronda += 1
        carpeta, salida = raiz / f"sigkill_{ronda}", raiz / f"sigkill_{ronda}.pt"
        progreso = 0
        for _ in range(200):
            hijo = contexto.Process(target=_hijo_entrenar, args=(str(carpeta), str(salida)))
            hijo.start()
            hijo.join(azar.uniform(0, duracion * 0.6))
            if hijo.exitcode is None:
                hijo.kill()
                hijo.join()
                cuenta["SIGKILL"] += 1
                nueva = _revisar_carpeta(carpeta, cuenta) if carpeta.is_dir() else 0
                if nueva < progreso:
                    cuenta["épocas perdidas tras un SIGKILL"] += progreso - nueva
                progreso = max(progreso, nueva)
                continue
            if hijo.exitcode != 0:
                cuenta[f"entrenamientos que fallaron (código {hijo.exitcode})"] += 1
            break
        final = cargar_checkpoint(salida)
        cuenta["entrenamientos completados a trozos"] += 1
        if not (_iguales(final["modelo"], referencia["modelo"])
                and final["historial"]["perdida_validacion"] == referencia["historial"]["perdida_validacion"]):
            cuenta["resultados distintos del entrenamiento sin cortes"] += 1
        shutil.rmtree(carpeta)
        salida.unlink()


def escritores(contexto, raiz: Path, segundos: float, cuenta: Counter) -> None:
    """Dos procesos escriben el mismo archivo sin parar mientras otro lo lee."""
    destino = raiz / "compartido" / "checkpoint_epoca_000001.pt"
    destino.parent.mkdir()
    guardar_atomico({"formato": FORMATO, "epoca": 0, "modelo": {"w": torch.zeros(4096)}}, destino)
    hijos = [contexto.Process(target=_hijo_escritor, args=(str(destino), i, segundos)) for i in (1, 2)]
    for hijo in hijos:
        hijo.start()
    fin = time.monotonic() + segundos
    while time.monotonic() < fin:
        try:
            w = cargar_checkpoint(destino)["modelo"]["w"]
        except CheckpointDanado:
            cuenta["lecturas rotas (escritores)"] += 1
            continue
        except Exception as error:
            cuenta[f"lecturas con error {type(error).__name__} (escritores)"] += 1
            continue
        cuenta["lecturas sanas (escritores)"] += 1
        if not bool((w == w[0]).all()):
            cuenta["lecturas mezcladas (escritores)"] += 1
    for hijo in hijos:
        if _esperar(hijo, segundos + 60) != 0:
            cuenta["escritores que fallaron"] += 1
    restos = [p.name for p in destino.parent.iterdir() if p != destino]
    cuenta["temporales que quedaron (escritores)"] += len(restos)


def dos_entrenamientos(contexto, raiz: Path, cuenta: Counter) -> None:
    """Dos entrenamientos a la vez en la misma carpeta: uno entrena y el otro se rechaza."""
    carpeta = raiz / "dos_a_la_vez"
    hijos = [contexto.Process(target=_hijo_entrenar, args=(str(carpeta), str(raiz / f"dos_{i}.pt"))) for i in (1, 2)]
    for hijo in hijos:
        hijo.start()
    codigos = sorted(-1 if c is None else c for c in (_esperar(h) for h in hijos))
    if codigos == [0, 3]:
        cuenta["segundo entrenamiento rechazado"] += 1
    elif codigos == [0, 0]:
        cuenta["no coincidieron en el tiempo"] += 1
    else:
        cuenta[f"dos entrenamientos: códigos {codigos}"] += 1


def bits_cambiados(raiz: Path, veces: int, azar: random.Random, cuenta: Counter) -> None:
    """Un bit al azar del último checkpoint: detectado o inocuo, nunca pesos distintos sin aviso."""
    origen = raiz / "bits_origen"
    _entrenar(origen)
    ultimo = max(origen.glob("checkpoint_epoca_*.pt"))
    original = cargar_checkpoint(ultimo)
    datos = ultimo.read_bytes()
    for i in range(veces):
        carpeta = raiz / f"bits_{i}"
        shutil.copytree(origen, carpeta)
        copia = carpeta / ultimo.name
        posicion = azar.randrange(len(datos) * 8)
        cambiado = bytearray(datos)
        cambiado[posicion // 8] ^= 1 << (posicion % 8)
        copia.write_bytes(bytes(cambiado))
        with warnings.catch_warnings(record=True) as avisos:
            warnings.simplefilter("always")
            estado = CarpetaCheckpoints(ruta=carpeta, local=carpeta).cargar_ultimo()
        avisado = any(issubclass(a.category, AvisoCheckpoint) for a in avisos)
        if avisado and estado is not None and estado["epoca"] < original["epoca"]:
            cuenta["bits detectados (se usó el anterior)"] += 1
        elif not avisado and estado is not None and _iguales(
                {k: v for k, v in estado.items() if k != "ruta"}, original):
            cuenta["bits inocuos (mismo contenido)"] += 1
        else:
            cuenta["bits que cambiaron pesos sin avisar"] += 1
        shutil.rmtree(carpeta)
    shutil.rmtree(origen)


def plantar_enlaces(raiz: Path, fuera: Path, cuenta: Counter) -> Path:
    """Enlaces simbólicos en cada nombre previsible de una carpeta, apuntando a archivos de fuera."""
    carpeta = raiz / "enlaces"
    carpeta.mkdir()
    nombres = [".prueba_de_escritura", CANDADO, "checkpoint_epoca_000099.pt"]
    nombres += [f".checkpoint_epoca_{e:06d}.pt.tmp" for e in range(1, EPOCAS + 1)]
    for nombre in nombres:
        victima = fuera / f"victima{nombre}"
        victima.write_text("no me toques")
        (carpeta / nombre).symlink_to(victima)
        cuenta["enlaces plantados"] += 1
    (fuera / "anteriores_plantado").mkdir()
    return carpeta


def enlaces(contexto, carpeta: Path, fuera: Path, cuenta: Counter) -> None:
    """Entrena en la carpeta con enlaces plantados; luego planta un «anteriores» que apunta fuera."""
    raiz = carpeta.parent
    hijo = contexto.Process(target=_hijo_entrenar, args=(str(carpeta), str(raiz / "enlaces.pt")))
    hijo.start()
    cuenta["entrenamientos con enlaces plantados que terminaron" if _esperar(hijo) == 0
           else "entrenamientos con enlaces plantados que fallaron"] += 1
    # Y un «anteriores» que apunta fuera: empezar de cero debe negarse a mover nada allí.
    if (carpeta / ANTERIORES).exists():
        (carpeta / ANTERIORES).rename(carpeta / "anteriores_de_verdad")
    destino_fuera = fuera / "anteriores_plantado"
    (carpeta / ANTERIORES).symlink_to(destino_fuera)
    try:
        _entrenar(carpeta, reanudar=False)
        cuenta["«anteriores» plantado seguido"] += 1
    except CarpetaNoEscribible:
        cuenta["«anteriores» plantado rechazado"] += 1
    if any(destino_fuera.iterdir()):
        cuenta["archivos movidos fuera por un enlace"] += 1


def disco_lleno(contexto, raiz: Path, veces: int, azar: random.Random, cuenta: Counter) -> None:
    """Disco lleno (simulado) o límite de tamaño del núcleo a mitad: error claro, nada perdido."""
    for i in range(veces):
        modo = ("simulado", "rlimit")[i % 2]
        carpeta, resultado = raiz / f"lleno_{i}", raiz / f"lleno_{i}.json"
        hijo = contexto.Process(target=_hijo_disco_lleno, args=(str(carpeta), str(resultado), modo,
                                                                 azar.randrange(4, EPOCAS - 1)))
        hijo.start()
        _esperar(hijo)
        if not resultado.exists():
            cuenta[f"disco lleno ({modo}): algo falló (el hijo no terminó)"] += 1
            continue
        informe = json.loads(resultado.read_text())
        sanos = 0
        for ruta in carpeta.glob("checkpoint_epoca_*.pt"):
            try:
                cargar_checkpoint(ruta)
                sanos += 1
            except Exception:
                cuenta["checkpoints rotos tras disco lleno"] += 1
        restos = [p.name for p in carpeta.iterdir() if p.name.startswith(".")]
        bien = (informe["fallo"] == "CheckpointNoGuardado" and informe["historial"] and sanos == 3 and not restos
                and str(carpeta) in informe["mensaje"])
        cuenta[f"disco lleno ({modo}): error claro, historial y 3 anteriores intactos" if bien
               else f"disco lleno ({modo}): algo falló {informe} {restos}"] += 1
        shutil.rmtree(carpeta)


def torturar(segundos: float = 120, semilla: int = 0, raiz: Path | None = None) -> Counter:
    """Ejecuta todas las pruebas; ``segundos`` es sobre todo para los SIGKILL. Devuelve las cuentas.

    Con ``segundos`` pequeño (1-2) es la versión rápida que corre en las pruebas.
    """
    torch.set_num_threads(1)  # mismas sumas en todos los procesos, y fork seguro
    contexto = multiprocessing.get_context("fork")
    azar = random.Random(semilla)
    cuenta: Counter = Counter()
    propia = raiz is None
    raiz = Path(tempfile.mkdtemp(prefix="tortura_")) if propia else Path(raiz)
    try:
        pruebas, fuera = raiz / "pruebas", raiz / "fuera"
        pruebas.mkdir()
        fuera.mkdir()
        (fuera / "vecino.txt").write_text("un archivo del alumno fuera de la carpeta de checkpoints")
        _datos()
        _entrenar(pruebas / "calentar")
        inicio = time.perf_counter()
        modelo, historial = _entrenar(pruebas / "referencia")
        referencia = {"modelo": modelo.state_dict(), "historial": historial.a_dict(),
                      "segundos": time.perf_counter() - inicio}
        plantada = plantar_enlaces(pruebas, fuera, cuenta)
        antes = _huella_de_arbol(raiz, excluir=pruebas)
        enlaces(contexto, plantada, fuera, cuenta)
        sigkills(contexto, pruebas, referencia, segundos * 0.75, azar, cuenta)
        escritores(contexto, pruebas, max(0.5, segundos * 0.1), cuenta)
        dos_entrenamientos(contexto, pruebas, cuenta)
        bits_cambiados(pruebas, max(5, int(segundos)), azar, cuenta)
        disco_lleno(contexto, pruebas, max(2, int(segundos / 20)), azar, cuenta)
        despues = _huella_de_arbol(raiz, excluir=pruebas)
        cuenta["archivos de fuera cambiados"] += sum(1 for k in antes.keys() | despues.keys()
                                                     if antes.get(k) != despues.get(k))
        cuenta["víctimas de enlaces cambiadas"] += sum(1 for p in fuera.glob("victima*")
                                                      if p.read_text() != "no me toques")
        for clave in ("checkpoints rotos tras un SIGKILL", "épocas perdidas tras un SIGKILL",
                      "resultados distintos del entrenamiento sin cortes", "lecturas rotas (escritores)",
                      "lecturas mezcladas (escritores)", "bits que cambiaron pesos sin avisar"):
            cuenta[clave] += 0  # que el informe muestre los ceros que importan
    finally:
        if propia:
            shutil.rmtree(raiz, ignore_errors=True)
    return cuenta


MALAS = ("rotos", "perdidas", "distintos", "mezcladas", "rotas", "sin avisar", "cambiad", "fallaron",
         "fuera por", "seguido", "algo falló", "con error", "códigos", "quedaron")


def malas(cuenta: Counter) -> dict[str, int]:
    """Las cuentas que deben ser cero (nada perdido, nada roto, nada de fuera tocado)."""
    return {k: v for k, v in cuenta.items() if v and any(m in k for m in MALAS)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--segundos", type=float, default=120)
    parser.add_argument("--semilla", type=int, default=0)
    args = parser.parse_args()
    inicio = time.perf_counter()
    cuenta = torturar(args.segundos, args.semilla)
    ancho = max(len(k) for k in cuenta)
    for clave, valor in sorted(cuenta.items()):
        print(f"{clave:<{ancho}}  {valor:>6}")
    print(f"\nDuración: {time.perf_counter() - inicio:.0f} s")
    problemas = malas(cuenta)
    print("Nada perdido, nada roto, nada de fuera tocado." if not problemas else f"PROBLEMAS: {problemas}")
    raise SystemExit(1 if problemas else 0)


if __name__ == "__main__":
    main()
