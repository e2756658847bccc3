"""Entrenar el adaptador LoRA: un bucle corto de PyTorch sobre un modelo de peft (lección 09).

``ajustar`` es el bucle de la lección, con el núcleo de ``entrenar`` (lección 05): un checkpoint
por época con solo el adaptador y el optimizador (no el modelo base), escrito de forma atómica con
su SHA-256, un candado por carpeta y reanudación desde el último. ``guardar_adaptador``
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

from ..base import (ComoTabla, Tabla, formatear_bytes, formatear_numero, formatear_tiempo, leer_numero, marcar_simulada,
                    mostrar_ruta)
from ..guardado import CarpetaCheckpoints, comprobar_destino, copiar_atomico, huella_de_datos
from ..dispositivo import dispositivo_del_modelo, dispositivo_simulado
from ..entrenamiento import (
    Historial, NucleoCheckpoints, configuracion_de_entrenamiento, parar_si_no_finita, vigilar_perdida,
)
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
    simulada: bool = False  # ajustado en la GPU simulada: los segundos son de la CPU, y la nota lo dice

    def tabla(self) -> Tabla:
        filas = [[i + 1, formatear_numero(p, 4)] for i, p in enumerate(self.perdidas)]
        notas = [marcar_simulada(f"{formatear_numero(self.pasos)} pasos en {formatear_tiempo(self.segundos)}",
                                 self.simulada)]
        if self.reanudado_desde:
            notas.append(f"reanudado desde la época {self.reanudado_desde} (las anteriores, del checkpoint)")
        if self.ruta_checkpoint:
            notas.append(f"último checkpoint: {mostrar_ruta(self.ruta_checkpoint)} ({formatear_bytes(self.bytes_checkpoint)})")
        return Tabla("Pérdida media por época (entropía cruzada)", ["época", "pérdida"], filas, notas=notas)

    def __repr__(self) -> str:  # una celda que acaba en «resultado» lo muestra como la tabla, no como la dataclass
        return str(self)


def _comprobar_modelo(modelo) -> None:
    """Un modelo de peft con su adaptador LoRA (lo que da ``aplicar_lora``)."""
    if not isinstance(modelo, torch.nn.Module):
        raise ValueError(f"ajustar necesita un modelo de transformers con adaptador LoRA; recibí "
                         f"{type(modelo).__name__}. Por ejemplo: modelo, tokenizador = modelo_diminuto(); "
                         "modelo = aplicar_lora(modelo).")
    if not callable(getattr(modelo, "get_base_model", None)) or not any("lora_" in n for n, _ in modelo.named_parameters()):
        raise ValueError(f"El modelo ({type(modelo).__name__}) no tiene adaptador LoRA: ajustar solo entrena el "
                         "adaptador. Pónselo antes con modelo = aplicar_lora(modelo, r=8, alpha=16).")


def _comprobar_funcion(funcion, nombre: str, ejemplo: str) -> None:
    if funcion is not None and not callable(funcion):
        raise ValueError(f"{nombre} debe ser una función (o None); recibí {funcion!r}. Por ejemplo, {ejemplo}.")


def _trozos(tokenizador, texto, secuencia: int) -> torch.Tensor:
    """Los trozos de ``texto``, con un texto que el tokenizador entiende (no solo ``<unk>``)."""
    if not isinstance(texto, str) or not texto.strip():
        raise ValueError(f"texto debe ser un texto (str) con algo escrito; recibí {texto!r}. Por ejemplo, "
                         "texto=TEXTO_ENTRENAMIENTO, o el contenido de un archivo: Path('datos.txt').read_text().")
    if not callable(tokenizador):
        raise ValueError(f"tokenizador debe ser el tokenizador del modelo (el segundo valor de modelo_diminuto() "
                         f"o AutoTokenizer.from_pretrained(...)); recibí {type(tokenizador).__name__}.")
    trozos = trozos_de_texto(tokenizador, texto, secuencia)
    desconocido = getattr(tokenizador, "unk_token_id", None)
    fraccion = float((trozos == desconocido).float().mean()) if desconocido is not None else 0.0
    if fraccion == 1.0:
        raise ValueError(f"Ningún carácter del texto ({texto[:40]!r}...) está en el alfabeto del modelo: entrenaría "
                         "solo con <unk> (desconocido) y no aprendería nada. Usa un texto en el alfabeto del "
                         "tokenizador, por ejemplo texto=TEXTO_ENTRENAMIENTO.")
    if fraccion >= 0.5:
        raise ValueError(f"El {fraccion:.0%} de los tokens del texto ({texto[:40]!r}...) son <unk>: caracteres que el "
                         "alfabeto del modelo no tiene. Entrenaría sobre todo a predecir <unk>. Usa un texto en el "
                         "alfabeto del tokenizador, por ejemplo texto=TEXTO_ENTRENAMIENTO.")
    return trozos


def ajustar(modelo, tokenizador, texto: str = TEXTO_ENTRENAMIENTO, *, epocas: int = 8, tamano_lote: int = 4,
            secuencia: int = 32, lr: float = 1e-2, semilla: int = 0, precision: str = "fp32",
            checkpoints: CarpetaCheckpoints | str | os.PathLike | None = None,
            avisar=print, al_terminar_epoca=None) -> ResultadoAjuste:
    """Entrena el adaptador LoRA de ``modelo`` (un modelo de peft) con ``texto``. Lección 09.

    Modelado de lenguaje: cada trozo de ``secuencia`` tokens predice su siguiente token
    (``labels=input_ids``; transformers desplaza las etiquetas). El orden de los trozos de cada
    época sale de ``semilla`` y de la época, así que cortar y reanudar da el mismo resultado,
    bit a bit. Solo se entrenan los parámetros con ``requires_grad`` (el adaptador).

    - ``tamano_lote``: trozos por paso (el mismo nombre que en ``entrenar``).
    - ``precision``: ``"fp32"``, o ``"fp16"``/``"bf16"`` con autocast (``precision_mixta``, lección 06).
    - ``checkpoints``: ``carpeta_checkpoints("lora")`` o una ruta. Sin ``cada`` en la carpeta, un
      checkpoint por época, con solo el adaptador (clave ``adaptador``) y el optimizador. La carpeta
      dice si se reanuda: ``carpeta.con(reanudar=False)`` empieza de cero (como en ``entrenar``).
    - ``avisar``: la función que recibe cada mensaje (por defecto ``print``); ``None``, en silencio.
    - ``al_terminar_epoca(epoca, epocas)``: se llama tras guardar cada época.

    Todo se comprueba antes de empezar: un valor que no vale da un ``ValueError`` que dice qué escribir.
    Si la pérdida se vuelve NaN o infinita (un ``lr`` demasiado alto), para con ``PerdidaNoFinita``
    (como ``entrenar``): lo entrenado está en ``error.historial`` y los checkpoints siguen intactos.
    """
    _comprobar_modelo(modelo)
    epocas = leer_numero(epocas, "epocas", entero=True, minimo=1, ejemplo="epocas=8")
    tamano_lote = leer_numero(tamano_lote, "tamano_lote", entero=True, minimo=1, ejemplo="tamano_lote=4")
    maximo = getattr(getattr(modelo, "config", None), "max_position_embeddings", None)
    secuencia = leer_numero(secuencia, "secuencia", entero=True, minimo=2, maximo=maximo if isinstance(maximo, int) else None,
                            ejemplo="secuencia=32 (con 1 token no hay ningún siguiente token que predecir)")
    lr = leer_numero(lr, "lr", minimo=0, minimo_incluido=False, ejemplo="lr=0.01")
    semilla = leer_numero(semilla, "semilla", entero=True, minimo=0, ejemplo="semilla=0")
    _comprobar_funcion(avisar, "avisar", "avisar=print")
    _comprobar_funcion(al_terminar_epoca, "al_terminar_epoca", "al_terminar_epoca=lambda epoca, total: None")
    dispositivo = dispositivo_del_modelo(modelo)
    contexto, escalador = preparar_precision(precision, dispositivo)
    trozos = _trozos(tokenizador, texto, secuencia)
    entrenables = [p for p in modelo.parameters() if p.requires_grad]
    if not entrenables:
        raise ValueError("El modelo no tiene nada que entrenar: ¿le pusiste el adaptador con aplicar_lora?")
    configuracion = configuracion_de_entrenamiento(
        modelo, lr=lr, tamano_lote=tamano_lote, epocas=epocas, dispositivo=dispositivo, semilla=semilla,
        criterio="entropía cruzada del siguiente token", precision=precision, secuencia=secuencia)
    nucleo = NucleoCheckpoints(checkpoints, entrenador="ajustar", configuracion=configuracion, cada=1,
                               datos=huella_de_datos(trozos, trozos) if checkpoints is not None else None)
    optimizador = torch.optim.AdamW(entrenables, lr=lr)
    avisos: list[str] = []

    def decir(texto: str) -> None:
        avisos.append(texto)
        if avisar is not None:  # None: en silencio, como al_terminar_epoca=None
            avisar(texto)

    historial = Historial(dispositivo=str(dispositivo), epocas_totales=epocas)
    ruta, tamano = None, 0
    with nucleo:
        try:
            estado = nucleo.decidir(estado_adaptador(modelo), dispositivo, decir)
            if estado is not None:
                from peft import set_peft_model_state_dict

                historial = nucleo.restaurar(estado, cargar_pesos=lambda pesos: set_peft_model_state_dict(modelo, pesos),
                                             optimizador=optimizador, escalador=escalador, lr=lr)
                historial.continuar_en(dispositivo, epocas)
                ruta = estado["ruta"]
            inicio_epoca = historial.reanudado_desde or 0
            modelo.train()
            pasos, comienzo = 0, time.perf_counter()
            for epoca in range(inicio_epoca + 1, epocas + 1):
                orden = torch.randperm(len(trozos), generator=torch.Generator().manual_seed(semilla * 100_003 + epoca))
                lotes = [trozos[orden[i:i + tamano_lote]] for i in range(0, len(trozos), tamano_lote)]
                suma, no_finita = _una_epoca(modelo, lotes, epoca, dispositivo, contexto, escalador, optimizador)
                media, mala = torch.stack([suma / len(lotes), no_finita]).tolist()  # ← la CPU espera a la GPU: una vez por época
                parar_si_no_finita(mala, [media], lr, historial, epoca)  # NaN o infinito: para, sin guardar
                pasos += len(lotes)
                historial.epocas_registradas.append(epoca)
                historial.perdida_entrenamiento.append(media)
                guardado = nucleo.guardar(epoca, pesos=estado_adaptador(modelo), optimizador=optimizador,
                                          historial=historial, escalador=escalador, semilla_lotes=semilla)
                if guardado is not None:
                    ruta, tamano = str(guardado), guardado.stat().st_size
                if al_terminar_epoca is not None:
                    al_terminar_epoca(epoca, epocas)
            segundos = time.perf_counter() - comienzo
        finally:
            modelo.eval()
    nucleo.terminar()
    if ruta and not tamano and Path(ruta).exists():
        tamano = Path(ruta).stat().st_size
    return ResultadoAjuste(perdidas=list(historial.perdida_entrenamiento), epocas=epocas, pasos=pasos,
                           segundos=segundos, reanudado_desde=historial.reanudado_desde, ruta_checkpoint=ruta,
                           bytes_checkpoint=tamano, avisos=avisos, simulada=dispositivo_simulado(dispositivo))


def _una_epoca(modelo, lotes, epoca: int, dispositivo, contexto, escalador, optimizador):
    """Una pasada por ``lotes`` (trozos en la CPU). Sin esperas a la GPU: devuelve la suma de las
    pérdidas y la época en que dejó de ser finita (0: nunca), las dos en el dispositivo."""
    suma = torch.zeros((), device=dispositivo)
    no_finita = torch.zeros((), device=dispositivo)
    for lote in lotes:
        ids = lote.to(dispositivo, non_blocking=True)
        with contexto():
            perdida = modelo(input_ids=ids, labels=ids, use_cache=False).loss
        optimizador.zero_grad(set_to_none=True)
        escalador.scale(perdida).backward()
        escalador.step(optimizador)
        escalador.update()
        no_finita = vigilar_perdida(no_finita, perdida, epoca)
        suma += perdida.detach().float()
    return suma, no_finita


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
