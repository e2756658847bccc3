"""El informe del entorno: sistema, versiones, GPU, nvidia-smi y un diagnóstico en español. Lección 01.

``describir_entorno()`` reúne lo que dicen PyTorch (``dispositivo``), ``nvidia-smi`` y Colab, y
``avisos_del_entorno`` explica qué pasa y qué hacer. ``InformeEntorno`` se ve como tabla en un notebook
y como texto en una terminal (``presentacion``).
"""

from __future__ import annotations

import os
import platform
import re
import sys
from dataclasses import asdict, dataclass, field

import torch

from ..base import MENU_COLAB, ruedas_cuda
from .primitivas import (
    VARIABLE_ENTORNO,
    DispositivoNoDisponible,
    InfoGPU,
    cuda_disponible,
    elegir_dispositivo,
    gpus_cuda,
    mps_disponible,
    xpu_disponible,
)
from .nvidia_smi import InformeNvidiaSmi, consultar_capacidades, consultar_nvidia_smi_con_problema
from .simulacion import gpu_simulada
from ..base import informe_html, informe_texto

__all__ = ["InformeEntorno", "avisos_del_entorno", "describir_entorno", "en_colab"]


def en_colab() -> bool:
    """True solo dentro de Google Colab. Lección 02.

    Dentro de un notebook de Colab el kernel ya ha importado ``google.colab``; en un
    ``!python script.py`` lanzado desde él existe la variable de entorno ``COLAB_RELEASE_TAG``.
    Tener el paquete ``google-colab`` instalado en tu computadora no basta: hay que importarlo.
    """
    return sys.modules.get("google.colab") is not None or bool(os.environ.get("COLAB_RELEASE_TAG"))


@dataclass
class InformeEntorno:
    """Todo lo que importa para usar una GPU en esta máquina. Lo crea ``describir_entorno()``."""

    sistema: str
    python: str
    torch: str
    cuda_compilado: str | None  # versión de CUDA con la que se compiló torch (None: sin CUDA)
    rocm_compilado: str | None  # versión de ROCm (HIP) con la que se compiló torch
    cudnn: int | None  # como lo da torch.backends.cudnn.version() (92400: cuDNN 9.24.0)
    cuda_disponible: bool
    mps_disponible: bool
    xpu_disponible: bool
    en_colab: bool
    gpus: list[InfoGPU] = field(default_factory=list)
    nvidia_smi: InformeNvidiaSmi | None = None
    dispositivo: str = "cpu"  # el que elegiría elegir_dispositivo("auto")
    avisos: list[str] = field(default_factory=list)
    problema_nvidia_smi: str = ""  # p. ej. «nvidia-smi respondió algo que no se entiende»
    gpu_simulada: str | None = None  # «Tesla T4» con CURSO_GPU_SIMULAR=T4: la GPU y nvidia-smi son simulados

    def filas(self) -> list[tuple[str, str]]:
        """El informe como pares (qué, valor), para presentarlo como tabla."""
        no = "no"
        filas = [
            ("Sistema", self.sistema),
            ("Python", self.python),
            ("PyTorch", self.torch),
            ("CUDA de PyTorch", self.cuda_compilado or no),
        ]
        if self.rocm_compilado:
            filas.append(("ROCm de PyTorch", self.rocm_compilado))
        filas += [
            ("cuDNN", _version_cudnn(self.cudnn) if self.cudnn else no),
            ("CUDA disponible", "sí" if self.cuda_disponible else no),
            ("MPS (Apple) disponible", "sí" if self.mps_disponible else no),
            ("XPU (Intel) disponible", "sí" if self.xpu_disponible else no),
            ("Google Colab", "sí" if self.en_colab else no),
        ]
        for gpu in self.gpus:
            cc = f", capacidad {gpu.capacidad_computo[0]}.{gpu.capacidad_computo[1]}" if gpu.capacidad_computo else ""
            filas.append((f"GPU {gpu.indice}", f"{gpu.nombre} ({gpu.memoria_total_bytes / 1e9:.1f} GB{cc})"))
        if self.nvidia_smi is None:
            filas.append(("nvidia-smi", self.problema_nvidia_smi or "no encontrado o sin respuesta"))
        else:
            smi = self.nvidia_smi
            cuda = ".".join(map(str, smi.cuda_del_driver)) if smi.cuda_del_driver else "desconocida"
            origen = "" if smi.cuda_de_cabecera else " (deducida del driver)"
            filas.append(("Driver NVIDIA", f"{smi.driver} (admite CUDA hasta {cuda}{origen})"))
            for g in smi.gpus:
                if g.memoria_total_mib is None:
                    memoria = "memoria desconocida"
                else:
                    usada = "?" if g.memoria_usada_mib is None else g.memoria_usada_mib
                    memoria = f"{usada} de {g.memoria_total_mib} MiB usados"
                filas.append((f"nvidia-smi GPU {g.indice}", f"{g.nombre}: {memoria}"))
        if self.gpu_simulada:
            filas.append(("GPU simulada", f"{self.gpu_simulada}: torch.cuda y nvidia-smi responden como ella; "
                                          "todo se calcula en la CPU"))
        filas.append(("Dispositivo elegido", self.dispositivo))
        return filas

    def a_dict(self) -> dict:
        """El informe como diccionario (para ``--json``)."""
        return asdict(self)

    def __str__(self) -> str:
        return informe_texto("Informe del entorno", self.filas(), "Diagnóstico", self.avisos)

    def _repr_html_(self) -> str:
        return informe_html("Informe del entorno", self.filas(), "Diagnóstico", self.avisos)


def _version_cudnn(numero: int) -> str:
    """El número de ``torch.backends.cudnn.version()`` escrito como versión: 92400 → «9.24.0».

    Es la macro ``CUDNN_VERSION`` de ``cudnn_version.h``. Desde cuDNN 9 vale
    ``MAJOR * 10000 + MINOR * 100 + PATCHLEVEL`` (leído en el ``cudnn_version.h`` de
    nvidia-cudnn-cu13 9.24.0.43, el que instala torch 2.14.1+cu130: 92400); hasta cuDNN 8,
    ``MAJOR * 1000 + MINOR * 100 + PATCHLEVEL`` (el ``cudnn_version.h`` de cuDNN 8.9: 8907 es
    8.9.7). La cuenta antigua nunca llega a 10000; la nueva empieza en 90000.
    """
    mayor = 10000 if numero >= 10000 else 1000
    return f"{numero // mayor}.{numero % mayor // 100}.{numero % 100}"


def _cudnn() -> int | None:
    try:
        return torch.backends.cudnn.version() if torch.backends.cudnn.is_available() else None
    except Exception:
        return None


def _comando_o_aviso(cuda_del_driver: tuple[int, int] | None) -> str:
    try:  # la rueda tiene que servir al driver y a la arquitectura de la GPU
        return "\n    " + ruedas_cuda.comando_instalacion(cuda_del_driver, consultar_capacidades(timeout_s=3))
    except ValueError as error:  # ninguna rueda sirve a ese driver y esa GPU
        return " " + str(error)


def avisos_del_entorno(informe: InformeEntorno) -> list[str]:
    """Los avisos en español que explican qué pasa y qué hacer. Lección 01."""
    avisos: list[str] = []
    smi = informe.nvidia_smi
    smi_ve_gpu = bool(smi and smi.gpus)
    torch_sin_gpu = informe.cuda_compilado is None and informe.rocm_compilado is None

    if informe.problema_nvidia_smi:  # sin informe: no sacamos conclusiones de una respuesta rara
        avisos.append(informe.problema_nvidia_smi + ("" if smi else (
            " No saco conclusiones de esa respuesta: ejecuta nvidia-smi en una terminal y mira si "
            "aparece tu GPU y la versión del driver.")))
    if smi_ve_gpu and torch_sin_gpu and not informe.cuda_disponible:
        nombres = ", ".join(g.nombre for g in smi.gpus)
        cuda = ".".join(map(str, smi.cuda_del_driver)) if smi.cuda_del_driver else "desconocida"
        avisos.append(
            f"nvidia-smi ve una GPU NVIDIA ({nombres}), pero tu PyTorch ({informe.torch}) es una "
            "versión solo para CPU: es el error clásico. Reinstala PyTorch con CUDA, compatible con "
            f"tu driver {smi.driver} (admite CUDA hasta {cuda}):" + _comando_o_aviso(smi.cuda_del_driver)
        )
    elif informe.cuda_compilado and not informe.cuda_disponible:
        if informe.en_colab:
            avisos.append(
                "Estás en Google Colab con un entorno de ejecución sin GPU. Cámbialo en el menú "
                + MENU_COLAB + " y vuelve a ejecutar el notebook desde el principio."
            )
        elif smi_ve_gpu and smi.cuda_del_driver and _tupla(informe.cuda_compilado) > smi.cuda_del_driver:
            avisos.append(
                f"Tu PyTorch usa CUDA {informe.cuda_compilado}, pero el driver {smi.driver} solo "
                "admite hasta CUDA " + ".".join(map(str, smi.cuda_del_driver)) + ". Actualiza el "
                "driver de NVIDIA o instala una rueda compatible:" + _comando_o_aviso(smi.cuda_del_driver)
            )
        elif smi_ve_gpu:
            visibles = os.environ.get("CUDA_VISIBLE_DEVICES")
            pista = (f" La variable CUDA_VISIBLE_DEVICES vale {visibles!r} y puede ocultarla."
                     if visibles is not None else "")
            avisos.append(
                f"nvidia-smi ve la GPU {smi.gpus[0].nombre}, pero tu PyTorch (con CUDA "
                f"{informe.cuda_compilado}) no la ve.{pista} Reinicia el kernel (o la computadora, "
                "si acabas de instalar el driver) y vuelve a probar."
            )
        else:
            avisos.append(
                f"Tu PyTorch trae CUDA {informe.cuda_compilado}, pero no ve ninguna GPU. "
                "Comprueba con nvidia-smi que hay una GPU NVIDIA y un driver instalado. "
                "En Google Colab: menú " + MENU_COLAB + "."
            )
    if informe.mps_disponible:
        avisos.append(
            "Tienes un Mac con Apple Silicon: PyTorch usa su GPU con el dispositivo 'mps'. "
            "Algunas operaciones aún no existen en MPS; PYTORCH_ENABLE_MPS_FALLBACK=1 las hace en CPU."
        )
    if informe.xpu_disponible:
        avisos.append("Tienes una GPU de Intel: PyTorch la usa con el dispositivo 'xpu'.")
    if informe.cuda_disponible and informe.gpus and informe.gpu_simulada:
        gpu = informe.gpus[0]
        avisos.append(
            f"GPU simulada: PyTorch responde como una {gpu.nombre} ({gpu.memoria_total_bytes / 1e9:.1f} GB), "
            "pero todo se calcula en la CPU de esta máquina. Para una GPU de verdad, abre el notebook en "
            "Google Colab y elige " + MENU_COLAB + "."
        )
    elif informe.cuda_disponible and informe.gpus:
        gpu = informe.gpus[0]
        avisos.append(
            f"Todo listo: PyTorch usa la GPU {gpu.nombre} ({gpu.memoria_total_bytes / 1e9:.1f} GB)."
        )
    elif not (informe.mps_disponible or informe.xpu_disponible or avisos):
        avisos.append(
            "No hay GPU: sin problema. Todo el curso funciona en CPU, solo que algunos "
            "entrenamientos tardan más. Para probar una GPU gratis, abre el notebook en Google "
            "Colab y elige " + MENU_COLAB + "."
        )
    return avisos


def _nombre_gpu_simulada() -> str | None:
    perfil = gpu_simulada()
    return perfil.nombre if perfil else None


def _tupla(version: str) -> tuple[int, ...]:
    return tuple(int(p) for p in re.findall(r"\d+", version)[:2])


def describir_entorno(consultar_smi: bool = True) -> InformeEntorno:
    """Reúne sistema, versiones, GPU, nvidia-smi y un diagnóstico en español. Lección 01.

    En un notebook se ve como una tabla; en una terminal, ``print(describir_entorno())``.
    """
    aviso_variable = None
    try:
        dispositivo = str(elegir_dispositivo("auto"))
    except (ValueError, DispositivoNoDisponible) as error:
        valor = os.environ.get(VARIABLE_ENTORNO, "")
        dispositivo = f"ninguno ({VARIABLE_ENTORNO}={valor!r} no sirve aquí)"
        aviso_variable = (
            str(error).splitlines()[0]
            + f" Borra la variable {VARIABLE_ENTORNO} (o ponla en 'auto') para que el curso elija solo."
        )
    smi, problema_smi = consultar_nvidia_smi_con_problema() if consultar_smi else (None, "")
    informe = InformeEntorno(
        sistema=platform.platform(),
        python=sys.version.split()[0],
        torch=torch.__version__,
        cuda_compilado=torch.version.cuda,
        rocm_compilado=getattr(torch.version, "hip", None),
        cudnn=_cudnn(),
        cuda_disponible=cuda_disponible(),
        mps_disponible=mps_disponible(),
        xpu_disponible=xpu_disponible(),
        en_colab=en_colab(),
        gpus=gpus_cuda(),
        nvidia_smi=smi,
        dispositivo=dispositivo,
        problema_nvidia_smi=problema_smi,
        gpu_simulada=_nombre_gpu_simulada(),
    )
    informe.avisos = avisos_del_entorno(informe)
    if aviso_variable:
        informe.avisos.insert(0, aviso_variable)
    return informe
