"""Google Colab: detectarlo, montar Google Drive y comprobar el entorno. Lección 02."""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass, field
from pathlib import Path

from ..base import MENU_COLAB, informe_html, informe_texto
from .entorno import en_colab
from .primitivas import info_gpu
from .simulacion import VARIABLE_SIMULAR, gpu_simulada

__all__ = [
    "AVISO_INACTIVIDAD", "AVISO_LIMITES", "CARPETA_CURSO", "CARPETA_LOCAL", "ESPERA_DRIVE", "InformeColab",
    "PUNTO_DRIVE", "comprobar_entorno_colab", "montar_drive",
]

PUNTO_DRIVE = "/content/drive"  # donde Colab monta Google Drive
CARPETA_CURSO = "curso_gpu"  # la carpeta del curso dentro de «Mi unidad» (MyDrive)
CARPETA_LOCAL = "checkpoints"  # donde van los checkpoints fuera de Colab (relativa a la carpeta actual)
# Cuánto se espera a Drive (s). Más que los 120 s que espera el propio drive.mount de Colab
# (su timeout_ms por defecto), para que su mensaje llegue primero si es él quien se rinde.
ESPERA_DRIVE = 180.0

AVISO_INACTIVIDAD = (
    "Colab gratis desconecta la sesión tras un rato de inactividad, y una sesión dura como "
    "mucho unas 12 horas. Al desconectarse se borra todo lo que hay en /content."
)
AVISO_LIMITES = (
    "El plan gratuito tiene límites de uso: si usas mucho la GPU, Colab puede dejarte sin ella "
    "durante unas horas. Apaga el entorno cuando acabes (Entorno de ejecución › Desconectar y "
    "eliminar entorno de ejecución) para no gastar tu cuota."
)


def _validar_punto(punto) -> Path:
    ruta = os.fspath(punto) if isinstance(punto, (str, os.PathLike)) else None
    if not isinstance(ruta, str) or "\0" in ruta or not ruta.strip():
        raise ValueError(
            f"Punto de montaje no válido: {punto!r}. Escribe una ruta de carpeta sin caracteres nulos, "
            f"como {PUNTO_DRIVE!r} (la de Colab)."
        )
    return Path(punto)


def _validar_carpeta(carpeta: str) -> str:
    if not isinstance(carpeta, str) or not carpeta.strip():
        raise ValueError(
            f"Carpeta del curso no válida: {carpeta!r}. Escribe un nombre de carpeta, "
            f"por ejemplo {CARPETA_CURSO!r}."
        )
    if "\0" in carpeta:
        raise ValueError(
            f"Carpeta del curso no válida: {carpeta!r}. Tiene un carácter nulo (\\x00), que ningún "
            f"sistema admite en un nombre de carpeta. Escribe un nombre normal, por ejemplo {CARPETA_CURSO!r}."
        )
    partes = Path(carpeta).parts
    if Path(carpeta).is_absolute() or ".." in partes:
        raise ValueError(
            f"Carpeta del curso no válida: {carpeta!r}. Debe ser un nombre dentro de «Mi unidad», "
            f"sin '/' al principio ni '..', por ejemplo {CARPETA_CURSO!r}."
        )
    return carpeta.strip()


def montar_drive(punto: str | os.PathLike = PUNTO_DRIVE, carpeta: str = CARPETA_CURSO, *,
                 espera: float | None = None, local: str | os.PathLike | None = None) -> Path | None:
    """Monta Google Drive en Colab y devuelve la carpeta del curso en «Mi unidad». Lección 02.

    En Colab llama a ``google.colab.drive.mount(punto)`` (Colab te pide permiso la primera
    vez), crea ``<punto>/MyDrive/<carpeta>`` y devuelve esa ruta: lo que guardes ahí sobrevive
    a una desconexión. Si Drive ya estaba montado, no lo vuelve a montar.

    Fuera de Colab no hace nada: no monta ni crea nada, devuelve ``None`` y te dice que los
    checkpoints irán a la carpeta local ``checkpoints/`` (o ``local``, si se da). También
    devuelve ``None`` (y te dice por qué) si en Colab no se pudo montar Drive, o si Drive no
    responde en ``espera`` segundos (por defecto ``ESPERA_DRIVE``): el notebook no se queda
    colgado.
    """
    punto = _validar_punto(punto)
    carpeta = _validar_carpeta(carpeta)
    local = Path(local) if local is not None else Path.cwd() / CARPETA_LOCAL
    if not en_colab():
        print(
            "No estás en Google Colab: no hace falta montar Google Drive. "
            f"Los checkpoints se guardarán en la carpeta local {CARPETA_LOCAL}/ ({local})."
        )
        return None

    mi_unidad = Path(punto) / "MyDrive"
    espera = ESPERA_DRIVE if espera is None else espera
    resultado: dict = {}

    def montar() -> None:  # en un hilo: un montaje (o un Drive ya montado) que no responde no cuelga el notebook
        try:
            if not mi_unidad.is_dir():
                from google.colab import drive

                drive.mount(str(punto))
                if not mi_unidad.is_dir():
                    resultado["no_aparecio"] = True
                    return
            destino = mi_unidad / carpeta
            destino.mkdir(parents=True, exist_ok=True)
            resultado["destino"] = destino
        except Exception as error:  # permiso denegado, o un !python sin kernel de Colab
            resultado["error"] = error

    hilo = threading.Thread(target=montar, name="montar_drive", daemon=True)
    hilo.start()
    hilo.join(espera)
    mientras = f"Mientras tanto, los checkpoints se guardarán en {local}, que se borra al desconectarse."
    if hilo.is_alive():
        print(f"Google Drive no respondió en {espera:g} s: lo dejo estar. Vuelve a intentarlo más tarde "
              f"(o reinicia el entorno de ejecución). {mientras}")
        return None
    if "error" in resultado:
        error = resultado["error"]
        print(
            f"No se pudo montar Google Drive en {punto} ({type(error).__name__}: {error}). "
            f"Ejecuta montar_drive() en una celda del notebook y acepta el permiso que pide Colab. {mientras}"
        )
        return None
    if "no_aparecio" in resultado:
        print(f"Google Drive no apareció en {mi_unidad}. Vuelve a ejecutar la celda. {mientras}")
        return None

    destino = resultado["destino"]
    print(f"Google Drive listo. Tus checkpoints se guardarán en {destino}")
    return destino


# ---------------------------------------------------------------------------
# Comprobar el entorno de Colab
# ---------------------------------------------------------------------------

@dataclass
class InformeColab:
    """Qué tiene tu entorno de Colab y qué conviene hacer. Lo crea ``comprobar_entorno_colab()``."""

    en_colab: bool
    gpu: str | None = None  # nombre de la GPU que ve PyTorch, p. ej. "Tesla T4"
    memoria_gpu_gb: float | None = None
    es_t4: bool = False
    drive_montado: bool = False
    avisos: list[str] = field(default_factory=list)

    @property
    def listo(self) -> bool:
        """True si estás en Colab con una GPU."""
        return self.en_colab and self.gpu is not None

    def filas(self) -> list[tuple[str, str]]:
        """El informe como pares (qué, valor), para presentarlo como tabla."""
        if self.gpu:
            memoria = f" ({self.memoria_gpu_gb:.1f} GB)" if self.memoria_gpu_gb else ""
            gpu = self.gpu + memoria
        else:
            gpu = "ninguna"
        return [
            ("Google Colab", "sí" if self.en_colab else "no"),
            ("GPU", gpu),
            ("Es la T4 del plan gratuito", "sí" if self.es_t4 else "no"),
            ("Google Drive montado", "sí" if self.drive_montado else "no"),
        ]

    def __str__(self) -> str:
        return informe_texto("Entorno de Colab", self.filas(), "Qué hacer", self.avisos)

    def _repr_html_(self) -> str:
        return informe_html("Entorno de Colab", self.filas(), "Qué hacer", self.avisos)


def comprobar_entorno_colab(punto: str | os.PathLike = PUNTO_DRIVE) -> InformeColab:
    """Comprueba que tu entorno de Colab está listo para el curso. Lección 02.

    Dice si el entorno tiene GPU y cuál (en el plan gratuito, una T4) y, si no la tiene, el
    menú exacto para pedirla. Avisa de las desconexiones por inactividad y de los límites de
    uso, y recomienda guardar los checkpoints en Google Drive (``montar_drive()``). Fuera de
    Colab te lo dice y te remite a ``describir_entorno()`` (lección 01).
    """
    punto = _validar_punto(punto)
    colab = en_colab()
    gpu = info_gpu(0)
    nombre, memoria = (gpu.nombre, gpu.memoria_total_bytes / 1e9) if gpu else (None, None)
    es_t4 = bool(nombre and "T4" in nombre.upper())
    drive = (Path(punto) / "MyDrive").is_dir()
    informe = InformeColab(colab, nombre, memoria, es_t4, drive)

    if not colab:
        donde = f"Tu máquina tiene la GPU {nombre}." if nombre else "Tu máquina no tiene GPU CUDA: el curso funciona igual en CPU."
        if nombre and gpu_simulada() is not None:
            donde = f"Tu máquina simula la GPU {nombre} ({VARIABLE_SIMULAR}): todo se calcula en su CPU."
        informe.avisos = [
            "No estás en Google Colab: esta comprobación es para Colab. " + donde
            + " Para ver todo tu equipo usa describir_entorno() (lección 01).",
            "Para probar una GPU T4 gratis, abre el notebook en Colab con su insignia «Abrir en Colab» "
            "y elige el menú " + MENU_COLAB + ".",
        ]
        return informe

    if nombre is None:
        informe.avisos.append(
            "Este entorno de Colab no tiene GPU. Cámbialo en el menú " + MENU_COLAB
            + " y vuelve a ejecutar el notebook desde el principio (cambiar de entorno borra las variables)."
        )
    elif es_t4:
        informe.avisos.append(f"Tienes la GPU {nombre}, la del plan gratuito: todo listo.")
    else:
        informe.avisos.append(
            f"Tienes la GPU {nombre}. No es la T4 del plan gratuito (quizás tienes un plan de pago): "
            "el curso funciona igual."
        )
    informe.avisos += [AVISO_INACTIVIDAD, AVISO_LIMITES]
    if drive:
        informe.avisos.append(
            "Google Drive está montado: guarda ahí tus checkpoints (montar_drive() te da la carpeta "
            "del curso) y, si se corta la sesión, retoma el entrenamiento desde el último."
        )
    else:
        informe.avisos.append(
            "Guarda tus checkpoints en Google Drive para no perder un entrenamiento a medias: "
            "ejecuta carpeta = montar_drive() y guarda en esa carpeta."
        )
    return informe
