"""Qué versión de CUDA admite cada driver de NVIDIA y qué rueda de PyTorch instalar. Lección 01.

Es la única tabla del curso con estos números: el diagnóstico de ``describir_entorno``
y el mensaje de ``DispositivoNoDisponible`` la leen de aquí.

Fuentes (leídas el 3 de diciembre de 2026):

- NVIDIA, «CUDA Toolkit Release Notes», tabla «CUDA Toolkit and Corresponding Driver
  Versions» (https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/): el driver mínimo
  de la versión GA de cada toolkit (Linux x86_64 y Windows). Desde CUDA 13.1 la tabla ya
  no da un driver de Windows: allí usamos el de Linux, que es de la misma rama.
  CUDA 11.0: el GA (11.0.2) pide 450.51.05 / 451.48; 450.36.06 era el de la RC.
  CUDA 13.3 GA: 610.43.02 (notas de CUDA 13.3). Desde CUDA 13.4 el driver de Linux ya no
  viene con el toolkit; las notas de 13.3 dicen que 13.4 pide la rama R616 (616.00 o más
  nuevo). CUDA 13.5 existe, pero no hemos podido leer su driver mínimo: falta su fila (hasta
  entonces, un driver más nuevo cuenta como «al menos 13.4», lo prudente).
- NVIDIA, «CUDA Minor Version Compatibility»
  (https://docs.nvidia.com/deploy/cuda-compatibility/minor-version-compatibility.html):
  cualquier 13.x funciona con un driver ≥ 580, cualquier 12.x con uno ≥ 525.
- PyTorch, ``RELEASE.md`` (matriz de compatibilidad y «PyTorch CUDA Support Matrix» de
  las versiones 2.9 a 2.14) y los RFC de matriz CUDA de cada versión (pytorch/pytorch
  #172352, #178665, #190385): qué índices ``https://download.pytorch.org/whl/cuXYZ`` tiene
  cada torch y para qué arquitecturas trae kernels.

  * torch 2.15 publica cu130 y cu132 (cu132 es el de PyPI). cu126 dejó de publicarse en
    2.15 (#190385): su última torch es 2.14.1, la última de 2.14, que sí lo tenía.
  * cu128 se retiró en 2.12: su última torch es 2.11.0 (pytorch/FBGEMM #5976: «cu128's
    last version was 2.11»). En 2.11 cu128 dejó de traer Volta (#172352).
  * cu129 (solo Linux) siguió publicándose aunque PyTorch ya no lo daba por admitido desde
    2.10 (pytorch/pytorch #187834): hay ruedas ``torch==2.10.0+cu129`` (rapidsai/rmm #2279),
    para 2.11 y 2.12.1 (pytorch/pytorch #185269) y para 2.13.0: el anuncio de 2.13.0 a Colab
    (googlecolab/colabtools #6053, 2026-07-09) da «pip3 install torch torchvision --index-url
    https://download.pytorch.org/whl/cu129». Fijamos 2.13.0, la última que consta. Qué
    arquitecturas trae desde 2.11 no lo hemos podido leer: contamos las de cu128 2.11 (sin
    Volta), lo prudente; una Volta va a cu126, que sí la trae.
  * Las ruedas cu13x no traen kernels para capacidad de cómputo < 7.5 (CUDA 13 ya no
    compila para Maxwell, Pascal ni Volta); las anteriores a cu128 no traen Blackwell
    (sm_100, sm_120).

Regla prudente: proponemos una rueda cuya CUDA no supere la que admite el driver. Es una
regla práctica, no un muro: gracias a la compatibilidad de versión menor, un driver de la
rama 580 ejecuta cualquier rueda 13.x (aunque ``nvidia-smi`` diga «CUDA Version: 13.0»),
pero la prudente funciona siempre.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "DRIVER_MINIMO_TORCH_PYPI", "INDICE_RUEDAS", "VERSIONES_CUDA", "VersionCUDA", "admite_arquitectura",
    "comando_instalacion", "cuda_maxima_del_driver", "motivo_sin_rueda", "rueda_para",
]

INDICE_RUEDAS = "https://download.pytorch.org/whl"

# Arquitecturas con kernels en cada familia de ruedas (RELEASE.md, «PyTorch CUDA Support
# Matrix»; release notes de torch 2.8: cu128/cu129 sin Maxwell ni Pascal).
_ARQ_CU13 = ("sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120")
_ARQ_CU128_211 = ("sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120")  # 2.11: sin Volta (y cu129, ver arriba)
_ARQ_CU12_ANTIGUAS = ("sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90")
_ARQ_CU118 = ("sm_37", "sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90")


@dataclass(frozen=True)
class VersionCUDA:
    """Una versión de CUDA, el driver mínimo que la admite y su rueda de PyTorch (si existe)."""

    version: tuple[int, int]
    driver_linux: str
    driver_windows: str | None = None  # None: NVIDIA no lo publica; vale el de Linux
    rueda: str | None = None  # "cu130": índice de ruedas de PyTorch
    torch_maximo: str | None = None  # rueda retirada: última versión de torch publicada con ella
    arquitecturas: tuple[str, ...] = ()  # "sm_75": capacidades de cómputo con kernels en la rueda


# De la más nueva a la más antigua.
VERSIONES_CUDA: tuple[VersionCUDA, ...] = (
    VersionCUDA((13, 4), "616.00"),
    VersionCUDA((13, 3), "610.43.02"),
    VersionCUDA((13, 2), "595.45.04", None, "cu132", arquitecturas=_ARQ_CU13),
    VersionCUDA((13, 1), "590.44.01"),
    VersionCUDA((13, 0), "580.65.06", None, "cu130", arquitecturas=_ARQ_CU13),
    VersionCUDA((12, 9), "575.51.03", "576.02", "cu129", "2.13.0", _ARQ_CU128_211),
    VersionCUDA((12, 8), "570.26", "570.65", "cu128", "2.11.0", _ARQ_CU128_211),
    VersionCUDA((12, 6), "560.28.03", "560.76", "cu126", "2.14.1", _ARQ_CU12_ANTIGUAS),
    VersionCUDA((12, 5), "555.42.02", "555.85"),
    VersionCUDA((12, 4), "550.54.14", "551.61", "cu124", "2.6.0", _ARQ_CU12_ANTIGUAS),
    VersionCUDA((12, 3), "545.23.06", "545.84"),
    VersionCUDA((12, 2), "535.54.03", "536.25"),
    VersionCUDA((12, 1), "530.30.02", "531.14", "cu121", "2.5.1", _ARQ_CU12_ANTIGUAS),
    VersionCUDA((12, 0), "525.60.13", "527.41"),
    VersionCUDA((11, 8), "520.61.05", "520.06", "cu118", "2.7.1", _ARQ_CU118),
    VersionCUDA((11, 0), "450.51.05", "451.48"),
)

# Desde torch 2.11, ``pip install torch`` desde PyPI en Linux trae CUDA 13 (13.0; 13.2 desde
# 2.14), que pide un driver de la rama 580 o más nueva (RFC pytorch/pytorch #172663 y #190385).
DRIVER_MINIMO_TORCH_PYPI = "580.65.06"


def _numeros(version: str) -> tuple[int, ...]:
    partes = []
    for trozo in str(version).strip().split("."):
        if not trozo.isdigit():
            break
        partes.append(int(trozo))
    return tuple(partes)


def cuda_maxima_del_driver(driver: str, sistema: str = "linux") -> tuple[int, int] | None:
    """La versión de CUDA más alta que admite un driver (p. ej. "560.35.03" → (12, 6)).

    Sirve cuando ``nvidia-smi`` no imprime «CUDA Version» en su cabecera. ``sistema`` es
    "linux" o "windows" (los números de driver difieren un poco). None si el driver no se
    entiende o es más antiguo que todos los de la tabla.
    """
    actual = _numeros(driver)
    if not actual:
        return None
    windows = str(sistema).lower().startswith("win")
    for fila in VERSIONES_CUDA:
        minimo = (fila.driver_windows or fila.driver_linux) if windows else fila.driver_linux
        if actual >= _numeros(minimo):
            return fila.version
    return None


def _lista_de_capacidades(capacidad) -> list[tuple[int, int]]:
    """Acepta (7, 5), "7.5" o una lista de ellas (una por GPU)."""
    if capacidad is None:
        return []
    if isinstance(capacidad, str) or (
        isinstance(capacidad, tuple) and len(capacidad) == 2 and all(isinstance(x, int) for x in capacidad)
    ):
        capacidad = [capacidad]
    resultado = []
    for una in capacidad:
        if isinstance(una, str):
            numeros = _numeros(una)
            if len(numeros) != 2:
                raise ValueError(
                    f"capacidad de cómputo no válida: {una!r}; escribe algo como '7.5' "
                    "(lo que imprime nvidia-smi --query-gpu=compute_cap)"
                )
            una = numeros
        resultado.append((int(una[0]), int(una[1])))
    return resultado


def admite_arquitectura(fila: VersionCUDA, capacidad: tuple[int, int]) -> bool:
    """¿Trae la rueda kernels que corren en una GPU de esa capacidad de cómputo?

    Un kernel compilado para sm_XY corre en una GPU X.Z con Z ≥ Y (misma versión mayor):
    sm_86 sirve para una RTX 4090 (8.9), pero sm_90 no sirve para Blackwell (10.0, 12.0).
    """
    mayor, menor = capacidad
    for arquitectura in fila.arquitecturas:
        numero = arquitectura.removeprefix("sm_")
        if int(numero[:-1]) == mayor and int(numero[-1]) <= menor:
            return True
    return False


def _clave_torch(fila: VersionCUDA) -> tuple[float, ...]:
    return (float("inf"),) if fila.torch_maximo is None else tuple(map(float, _numeros(fila.torch_maximo)))


def rueda_para(
    cuda_del_driver: tuple[int, int] | None, capacidad=None
) -> VersionCUDA | None:
    """La rueda de PyTorch que conviene con ese driver y esa GPU. Lección 01.

    ``cuda_del_driver``: la CUDA más alta que admite el driver (la de ``nvidia-smi``).
    ``capacidad``: la capacidad de cómputo de la GPU, p. ej. (7, 5) para una T4
    (``nvidia-smi --query-gpu=compute_cap`` o ``torch.cuda.get_device_capability()``).

    Entre las ruedas que el driver y la GPU admiten, elige la de torch más nueva (las
    actuales siguen recibiendo versiones); si empatan, la de CUDA más nueva. Sin saber
    el driver, la de CUDA más antigua entre las de torch más nueva (cu130 si la GPU lo
    admite). None si ninguna sirve: ``motivo_sin_rueda`` dice por qué.
    """
    capacidades = _lista_de_capacidades(capacidad)
    candidatas = [
        fila for fila in VERSIONES_CUDA
        if fila.rueda
        and (cuda_del_driver is None or fila.version <= tuple(cuda_del_driver))
        and all(admite_arquitectura(fila, c) for c in capacidades)
    ]
    if not candidatas:
        return None
    if cuda_del_driver is None:
        return max(candidatas, key=lambda fila: (_clave_torch(fila), tuple(-x for x in fila.version)))
    return max(candidatas, key=lambda fila: (_clave_torch(fila), fila.version))


def motivo_sin_rueda(cuda_del_driver: tuple[int, int] | None, capacidad=None) -> str:
    """Por qué ninguna rueda sirve, en español, con qué hacer. "" si alguna sirve."""
    if rueda_para(cuda_del_driver, capacidad) is not None:
        return ""
    capacidades = _lista_de_capacidades(capacidad)
    cuda = ".".join(map(str, cuda_del_driver)) if cuda_del_driver else "desconocida"
    para_la_gpu = [
        fila for fila in VERSIONES_CUDA
        if fila.rueda and all(admite_arquitectura(fila, c) for c in capacidades)
    ]
    texto_cc = ", ".join(f"{m}.{n}" for m, n in capacidades)
    if not para_la_gpu:
        return (
            f"Ninguna rueda publicada de PyTorch trae kernels para una GPU de capacidad de cómputo "
            f"{texto_cc}: es demasiado antigua. Usa la CPU, Google Colab o Kaggle."
        )
    mas_antigua = min(para_la_gpu, key=lambda fila: fila.version)
    if capacidades:
        inicio = (
            f"Tu GPU (capacidad de cómputo {texto_cc}) necesita una rueda {mas_antigua.rueda} "
            f"o más nueva"
        )
    else:
        inicio = f"La rueda más antigua de PyTorch es {mas_antigua.rueda}"
    return (
        f"{inicio}, que pide un driver {mas_antigua.driver_linux} o más nuevo "
        f"(CUDA {mas_antigua.version[0]}.{mas_antigua.version[1]}); tu driver solo admite "
        f"CUDA {cuda}. Actualiza el driver de NVIDIA."
    )


def comando_instalacion(cuda_del_driver: tuple[int, int] | None = None, capacidad=None) -> str:
    """El comando ``pip`` exacto que instala PyTorch con CUDA para ese driver y esa GPU. Lección 01.

    ``--force-reinstall`` hace falta: si ya tienes la versión «+cpu», pip daría por
    buena la instalación y no cambiaría nada.

    >>> comando_instalacion((13, 0), capacidad=(7, 5))
    'python -m pip install --force-reinstall torch --index-url https://download.pytorch.org/whl/cu130'

    Lanza ``ValueError`` con el motivo si ninguna rueda sirve (driver demasiado antiguo
    o GPU sin kernels en las ruedas que ese driver admite).
    """
    fila = rueda_para(cuda_del_driver, capacidad)
    if fila is None:
        raise ValueError(motivo_sin_rueda(cuda_del_driver, capacidad))
    paquete = f"torch=={fila.torch_maximo}" if fila.torch_maximo else "torch"
    return (
        f"python -m pip install --force-reinstall {paquete} "
        f"--index-url {INDICE_RUEDAS}/{fila.rueda}"
    )
