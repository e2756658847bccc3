"""Entrenar el adaptador LoRA: un bucle corto de PyTorch sobre un modelo de peft (lección 09).

``ajustar`` es el bucle de la lección, con las reglas de checkpoints del curso (lección 05): un
checkpoint por época con solo el adaptador y el optimizador (no el modelo base), escrito de forma
atómica con su SHA-256, un candado por carpeta y reanudación desde el último. ``guardar_adaptador``
deja el adaptador en el formato de peft (``PeftModel.from_pretrained`` lo carga), también sin
archivos a medias.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import torch

from ..base import ComoTabla, Tabla
from ..checkpoints import (
    CarpetaCheckpoints,
    como_carpeta,
    comprobar_destino,
    copiar_atomico,
    huella_de_datos,
    nuevo_checkpoint,
    preparar_reanudacion,
    restaurar_estado_aleatorio,
)
from ..dispositivo import dispositivo_del_modelo
from ..rendimiento import preparar_precision
from .diminuto import TEXTO_ENTRENAMIENTO

__all__ = ["ResultadoAjuste", "ajustar", "estado_adaptador", "guardar_adaptador", "trozos_de_texto"]


def trozos_de_texto(tokenizador, texto: str, secuencia: int) -> torch.Tensor:
    """El texto en tokens, cortado en trozos seguidos de ``secuencia`` tokens: forma (n, secuencia)."""
    ids = tokenizador(texto)["input_ids"]
    n = len(ids) // secuencia
    if n == 0:
        raise ValueError(f"El texto tiene {len(ids)} tokens: no llega a un trozo de secuencia={secuencia}. "
                         "Usa un texto más largo o una secuencia más corta.")
    return torch.tensor(ids[: n * secuencia]).reshape(n, secuencia)


def estado_adaptador(modelo) -> dict[str, torch.Tensor]:
    """Solo los pesos del adaptador (``lora_A``, ``lora_B``), copiados: lo que se guarda."""
    from peft import get_peft_model_state_dict

    return {k: v.detach().clone() for k, v in get_peft_model_state_dict(modelo).items()}


@dataclass
class ResultadoAjuste(ComoTabla):
    """Lo que devuelve ``ajustar``: la pérdida media de cada época y cómo fue. Lección 09."""

    perdidas: list[float]
    epocas: int
    pasos: int
    segundos: float
    reanudado_desde: int | None = None
    ruta_checkpoint: str | None = None
    bytes_checkpoint: int = 0
    avisos: list[str] = field(default_factory=list)

    def tabla(self) -> Tabla:
        filas = [[i + 1, f"{p:.4f}"] for i, p in enumerate(self.perdidas)]
        notas = [f"{self.pasos} pasos en {self.segundos:.2f} s"]
        if self.reanudado_desde:
            notas.append(f"reanudado desde la época {self.reanudado_desde} (las anteriores, del checkpoint)")
        if self.ruta_checkpoint:
            notas.append(f"último checkpoint: {self.ruta_checkpoint} ({self.bytes_checkpoint / 1000:.1f} kB)")
        return Tabla("Pérdida media por época (entropía cruzada)", ["época", "pérdida"], filas, notas=notas)


def ajustar(modelo, tokenizador, texto: str = TEXTO_ENTRENAMIENTO, *, epocas: int = 8, lote: int = 4,
            secuencia: int = 32, lr: float = 1e-2, semilla: int = 0, precision: str = "fp32",
            checkpoints: CarpetaCheckpoints | str | os.PathLike | None = None, reanudar: bool | None = None,
            avisar=print, al_terminar_epoca=None) -> ResultadoAjuste:
    """Entrena el adaptador LoRA de ``modelo`` (un modelo de peft) con ``texto``. Lección 09.

    Modelado de lenguaje: cada trozo de ``secuencia`` tokens predice su siguiente token
    (``labels=input_ids``; transformers desplaza las etiquetas). El orden de los trozos de cada
    época sale de ``semilla`` y de la época, así que cortar y reanudar da el mismo resultado,
    bit a bit. Solo se entrenan los parámetros con ``requires_grad`` (el adaptador).

    - ``precision``: ``"fp32"``, o ``"fp16"``/``"bf16"`` con autocast (``precision_mixta``, lección 06).
    - ``checkpoints``: una carpeta (``carpeta_checkpoints("lora")`` o una ruta) para guardar un
      checkpoint por época (si es una ruta), en el formato único de ``checkpoints``; ``reanudar``
      (si no es None) cambia esa opción de la carpeta, como ``carpeta.con(reanudar=...)``.
    - ``al_terminar_epoca(epoca, epocas)``: se llama tras guardar cada época.
    """
    dispositivo = dispositivo_del_modelo(modelo)
    contexto, escalador = preparar_precision(precision, dispositivo)
    trozos = trozos_de_texto(tokenizador, texto, secuencia)
    entrenables = [p for p in modelo.parameters() if p.requires_grad]
    if not entrenables:
        raise ValueError("El modelo no tiene nada que entrenar: ¿le pusiste el adaptador con aplicar_lora?")
    optimizador = torch.optim.AdamW(entrenables, lr=lr)
    carpeta = como_carpeta(checkpoints, cada=1) if checkpoints is not None else None
    if carpeta is not None and reanudar is not None:
        carpeta = carpeta.con(reanudar=reanudar)
    datos = huella_de_datos(trozos, trozos) if carpeta is not None else None  # labels = input_ids
    configuracion = {"modelo": f"{type(modelo.get_base_model()).__name__} con LoRA", "epocas": epocas,
                     "lr": lr, "lote": lote, "secuencia": secuencia, "semilla": semilla,
                     "precision": precision, "dispositivo": str(dispositivo)}
    avisos: list[str] = []

    def decir(texto: str) -> None:
        avisos.append(texto)
        avisar(texto)

    perdidas: list[float] = []
    inicio_epoca, reanudado, ruta, tamano = 0, None, None, 0
    candado = carpeta.candado() if carpeta is not None else None
    if candado is not None:
        carpeta.comprobar_escritura()
        candado.tomar()
    try:
        if carpeta is not None:
            estado = preparar_reanudacion(carpeta, configuracion, dispositivo, entrenador="ajustar", avisar=decir,
                                          modelo=estado_adaptador(modelo), datos=datos)
            if estado is not None:
                from peft import set_peft_model_state_dict

                set_peft_model_state_dict(modelo, estado["modelo"])
                optimizador.load_state_dict(estado["optimizador"])
                if estado.get("escalador"):
                    escalador.load_state_dict(estado["escalador"])
                restaurar_estado_aleatorio(estado["aleatorio"])
                perdidas = list(estado["perdidas"])
                inicio_epoca = reanudado = int(estado["epoca"])
                ruta = estado["ruta"]
        modelo.train()
        pasos, comienzo = 0, time.perf_counter()
        for epoca in range(inicio_epoca + 1, epocas + 1):
            orden = torch.randperm(len(trozos), generator=torch.Generator().manual_seed(semilla * 100_003 + epoca))
            suma, n = 0.0, 0
            for i in range(0, len(trozos), lote):
                ids = trozos[orden[i:i + lote]].to(dispositivo)
                with contexto():
                    perdida = modelo(input_ids=ids, labels=ids, use_cache=False).loss
                optimizador.zero_grad(set_to_none=True)
                escalador.scale(perdida).backward()
                escalador.step(optimizador)
                escalador.update()
                suma += perdida.item()  # ← aquí la CPU espera a la GPU: una vez por paso
                n += 1
                pasos += 1
            perdidas.append(suma / n)
            if carpeta is not None and carpeta.toca_guardar(epoca, epocas):
                estado = nuevo_checkpoint(
                    entrenador="ajustar", epoca=epoca, epocas=epocas, configuracion=configuracion, datos=datos,
                    modelo=estado_adaptador(modelo), optimizador=optimizador.state_dict(),
                    escalador=escalador.state_dict() if escalador.is_enabled() else {}, semilla_lotes=semilla,
                    perdidas=perdidas)
                ruta = str(carpeta.guardar(estado, epoca))
                tamano = Path(ruta).stat().st_size
            if al_terminar_epoca is not None:
                al_terminar_epoca(epoca, epocas)
        segundos = time.perf_counter() - comienzo
    finally:
        modelo.eval()
        if candado is not None:
            candado.soltar()
    if carpeta is not None:
        carpeta.copiar_pendientes_a_drive()
        if ruta and not tamano and Path(ruta).exists():
            tamano = Path(ruta).stat().st_size
    return ResultadoAjuste(perdidas=perdidas, epocas=epocas, pasos=pasos, segundos=segundos,
                           reanudado_desde=reanudado, ruta_checkpoint=ruta, bytes_checkpoint=tamano, avisos=avisos)


def guardar_adaptador(modelo, carpeta: str | os.PathLike) -> list[Path]:
    """Guarda solo el adaptador en el formato de peft, sin dejar archivos a medias. Lección 09.

    peft lo escribe (``save_pretrained``: ``adapter_config.json`` y ``adapter_model.safetensors``)
    en una carpeta temporal, y cada archivo se copia a ``carpeta`` con ``copiar_atomico``: o está
    entero o no está. Se carga con ``PeftModel.from_pretrained(modelo_base, carpeta)``.

    Antes de escribir nada rechaza un modelo sin adaptador (se guardaría el modelo entero como si
    fuera uno) y un destino vacío, que es un archivo, un enlace simbólico o de solo lectura.
    """
    from .lora import tiene_adaptador

    if not (callable(getattr(modelo, "save_pretrained", None)) and getattr(modelo, "peft_config", None)
            and tiene_adaptador(modelo)):
        raise ValueError(f"guardar_adaptador necesita un modelo con adaptador LoRA (el que da aplicar_lora); "
                         f"recibí un {type(modelo).__name__} sin él, y guardaría el modelo entero como si fuera "
                         "un adaptador. Pónselo antes: modelo_lora = aplicar_lora(modelo, r=8, alpha=16).")
    destino = comprobar_destino(carpeta, "carpeta (donde guardar el adaptador)", carpeta=True)
    destino.mkdir(parents=True, exist_ok=True)
    temporal = Path(tempfile.mkdtemp(prefix=".adaptador.", dir=destino))
    try:
        modelo.save_pretrained(temporal)
        return [copiar_atomico(archivo, destino / archivo.name) for archivo in sorted(temporal.iterdir())
                if archivo.is_file()]
    finally:
        shutil.rmtree(temporal, ignore_errors=True)
