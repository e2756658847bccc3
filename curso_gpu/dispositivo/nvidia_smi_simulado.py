"""El ``nvidia-smi`` de la GPU simulada: un programa en una carpeta propia, al principio del PATH.

Lo pone la T4 simulada (``simulacion``) mientras está encendida. Responde como el de una T4 de
Google Colab: la tabla, con «Driver Version» y «CUDA Version», y ``--query-gpu=…``
(``curso_gpu.base.DriverSimulado``, con su fuente). La tabla dice que es simulada (en la línea de la
fecha y en una línea propia, ``NOTA_SIMULADA``). Lo que no simula lo dice en español.
"""

from __future__ import annotations

import os

__all__ = ["NOTA_SIMULADA", "NvidiaSmiSimulado"]

NOTA_SIMULADA = "GPU simulada por curso_gpu: nada de esta tabla sale de una GPU (calcula la CPU)."
"""La línea con la que la tabla del ``nvidia-smi`` simulado dice que lo es (quien la vea en una captura lo sabe)."""


_UNIDADES = {"memory.total": "MiB", "memory.used": "MiB", "memory.free": "MiB", "memory.reserved": "MiB",
            "power.limit": "W"}


def _campos(perfil, usada_mib: int = 0) -> dict[str, str]:
    """Los campos de ``nvidia-smi --query-gpu`` que responde la GPU simulada, con su valor (sin unidad).
    ``usada_mib``: el contexto de CUDA y lo reservado por PyTorch (0 antes del primer uso)."""
    driver = perfil.driver
    libre = perfil.memoria_total_bytes // 2**20 - usada_mib  # lo que CUDA da a PyTorch: el resto lo reserva el driver
    mayor, menor = perfil.capacidad_computo
    return {
        "index": "0", "count": "1", "name": perfil.nombre, "driver_version": driver.version,
        "memory.total": str(driver.memoria_mib), "memory.used": str(usada_mib), "memory.free": str(libre),
        "memory.reserved": str(driver.memoria_mib - perfil.memoria_total_bytes // 2**20), "compute_cap": f"{mayor}.{menor}",
        "pci.bus_id": driver.bus, "power.limit": f"{driver.limite_w:.2f}",
    }


def _guion(perfil, origen: str, usada_mib: int = 0) -> str:
    """El programa (``sh``) que responde como ``nvidia-smi`` en la GPU simulada ``perfil``.

    Sin argumentos imprime la tabla (con «Driver Version» y «CUDA Version»); con
    ``--query-gpu=CAMPOS --format=csv[,noheader][,nounits]``, los campos pedidos, como el de verdad.
    Lo que no simula (otro campo, otra opción) lo dice en español y sale con el código 2.
    """
    from shlex import quote

    from .nvidia_smi import tabla_nvidia_smi

    driver = perfil.driver
    tabla = tabla_nvidia_smi(driver.version, driver.cuda, perfil.nombre, driver.memoria_mib, usada_mib, driver.bus,
                             driver.temperatura_c, driver.consumo_w, driver.limite_w, nota=NOTA_SIMULADA)
    campos = _campos(perfil, usada_mib)
    valores = "\n".join(f"    {campo}) v={quote(valor)}; u={quote(_UNIDADES.get(campo, ''))} ;;"
                        for campo, valor in campos.items())
    simulados = ",".join(campos)
    return f"""#!/bin/sh
# nvidia-smi de la GPU simulada de curso_gpu ({origen}): responde como el de una
# {perfil.nombre} de Google Colab ({driver.fuente}). Nada de lo que dice sale de una GPU.
set -f
campos=""; formato=""; otra=""
for argumento in "$@"; do
  case "$argumento" in
    --query-gpu=*) campos="${{argumento#--query-gpu=}}" ;;
    --format=*) formato="${{argumento#--format=}}" ;;
    *) otra="$argumento" ;;
  esac
done
if [ -n "$otra" ] || {{ [ -n "$formato" ] && [ -z "$campos" ]; }}; then
  echo "nvidia-smi simulado (curso_gpu): la opción «$otra$formato» no está simulada. Usa «nvidia-smi» o «nvidia-smi --query-gpu=name,memory.total --format=csv»." >&2
  exit 2
fi
if [ -z "$campos" ]; then
  date '+%a %b %e %H:%M:%S %Y       (nvidia-smi simulado)'
  cat <<'FIN_DE_LA_TABLA'
{tabla}FIN_DE_LA_TABLA
  exit 0
fi
case ",$formato," in
  *,csv,*) ;;
  *) echo "nvidia-smi simulado (curso_gpu): con --query-gpu hace falta --format=csv (como en el de verdad)." >&2; exit 2 ;;
esac
cabecera=""; linea=""; separador=""
IFS=,
for campo in $campos; do
  case "$campo" in
{valores}
    *) echo "nvidia-smi simulado (curso_gpu): el campo «$campo» no está simulado; los simulados son: {simulados}." >&2; exit 2 ;;
  esac
  nombre="$campo"; [ -n "$u" ] && nombre="$campo [$u]"
  case ",$formato," in *,nounits,*) ;; *) [ -n "$u" ] && v="$v $u" ;; esac
  cabecera="$cabecera$separador$nombre"; linea="$linea$separador$v"; separador=", "
done
case ",$formato," in *,noheader,*) ;; *) echo "$cabecera" ;; esac
echo "$linea"
"""


class NvidiaSmiSimulado:
    """Pone el ``nvidia-smi`` simulado en una carpeta temporal propia, al principio del PATH.

    Así lo ven ``shutil.which("nvidia-smi")``, ``subprocess.run(["nvidia-smi"])`` en una celda y
    ``!nvidia-smi``. Al apagarse quita su carpeta del PATH y la borra. En Windows no se pone.
    """

    def __init__(self) -> None:
        self.carpeta: str | None = None
        self.proceso = os.getpid()  # un hijo hecho con fork no borra la carpeta de su padre al salir

    def poner(self, perfil, origen: str = "") -> None:
        """Escribe el programa de ``perfil`` (un ``GPUS_SIMULABLES[...]``) y pone su carpeta en el PATH.
        ``origen``: quién lo pide, para el comentario del programa (``CURSO_GPU_SIMULAR=T4``)."""
        if perfil.driver is None or os.name == "nt":
            return
        import atexit
        import tempfile

        carpeta = tempfile.mkdtemp(prefix="curso_gpu_nvidia_smi_")
        programa = os.path.join(carpeta, "nvidia-smi")
        with open(programa, "w", encoding="utf-8") as archivo:
            archivo.write(_guion(perfil, origen or f"GPU simulada {perfil.clave}"))
        os.chmod(programa, 0o755)
        self.carpeta, self.proceso = carpeta, os.getpid()
        self.perfil, self.origen = perfil, origen or f"GPU simulada {perfil.clave}"
        os.environ["PATH"] = carpeta + os.pathsep + os.environ.get("PATH", "")
        atexit.register(self.quitar)  # también si el kernel termina sin apagar la simulación

    def usar(self, usada_mib: int) -> None:
        """Reescribe el programa con la memoria usada de ahora (contexto de CUDA y lo reservado por PyTorch)."""
        if self.carpeta is None or os.getpid() != self.proceso:
            return
        programa = os.path.join(self.carpeta, "nvidia-smi")
        temporal = f"{programa}.{os.getpid()}.tmp"
        with open(temporal, "w", encoding="utf-8") as archivo:
            archivo.write(_guion(self.perfil, self.origen, usada_mib))
        os.chmod(temporal, 0o755)
        os.replace(temporal, programa)

    def quitar(self) -> None:
        """Quita su carpeta del PATH y la borra (solo en el proceso que la puso)."""
        if self.carpeta is None or os.getpid() != self.proceso:
            return
        import shutil

        carpeta, self.carpeta = self.carpeta, None
        os.environ["PATH"] = os.pathsep.join(p for p in os.environ.get("PATH", "").split(os.pathsep) if p != carpeta)
        shutil.rmtree(carpeta, ignore_errors=True)
