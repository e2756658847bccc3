"""¿Acierta ``memoria_ajuste``? LoRA y QLoRA de Qwen2.5-0.5B en una GPU de verdad. Lección 09.

Sin red: la arquitectura de Qwen2.5-0.5B (``curso_gpu.ajuste.config_de``) se construye con pesos
aleatorios, se guarda en safetensors en una carpeta temporal y se carga desde ahí como se carga
el modelo de verdad: en fp16 para LoRA y en 4 bits (NF4, bitsandbytes) para QLoRA. Con cada uno
da unos pasos de entrenamiento en fp16 con ``GradScaler`` (lote 1 × 512 tokens al azar) y compara
el pico de memoria (``torch.cuda.max_memory_allocated``) con el total de ``memoria_ajuste``.

``comprobar_en_gpu()`` devuelve líneas «PASS …» / «FAIL …» / «SKIP …» (lo que no aplica en esta
máquina: sin bitsandbytes no hay 4 bits; con una GPU Ampere o más nueva, bf16 sí vale).
``benchmarks/validar_en_gpu.py`` la llama desde su gancho de la lección 09.

Uso:  python benchmarks/ajuste_lora_benchmark.py      (sin GPU CUDA lo dice y sale con 0)
"""

from __future__ import annotations

import gc
import sys
import tempfile
import time
from pathlib import Path

RAIZ = Path(__file__).resolve().parent.parent
if str(RAIZ) not in sys.path:  # para ejecutarlo sin instalar el paquete
    sys.path.insert(0, str(RAIZ))

import torch  # noqa: E402

from curso_gpu.ajuste import (  # noqa: E402
    aplicar_lora,
    bitsandbytes_instalado,
    config_4_bits,
    config_de,
    memoria_ajuste,
)
from curso_gpu.base import UNSCALE_FP16  # noqa: E402
from curso_gpu.rendimiento import PrecisionNoDisponible, preparar_precision  # noqa: E402

MODELO = "Qwen2.5-0.5B"
LOTE, SECUENCIA, PASOS = 1, 512, 3
TOLERANCIA = 0.25
"""Objetivo del pico real frente a ``memoria_ajuste``: ±25 %. Más holgado que el ±10 % de la lección
07 porque aquí el pico suma la entropía cruzada sobre 151 936 palabras (``memoria_ajuste`` no la
mide) y los búferes de bitsandbytes; se ajustará con las primeras medidas en una T4."""
SIN_GPU = "SKIP lección 09: no hay GPU CUDA en esta máquina"


def veredicto(nombre: str, pico: int, estimado: int, tolerancia: float = TOLERANCIA) -> str:
    """Una línea PASS/FAIL: el pico real frente a la estimación, con el error relativo."""
    if estimado <= 0:
        raise ValueError(f"la estimación debe ser positiva; recibí {estimado!r}")
    error = pico / estimado - 1
    estado = "PASS" if abs(error) <= tolerancia else "FAIL"
    return (f"{estado} {nombre}: pico real {pico / 1e6:.0f} MB, memoria_ajuste {estimado / 1e6:.0f} MB "
            f"({100 * error:+.1f} %; objetivo ±{100 * tolerancia:.0f} %)")


def _guardar_modelo_aleatorio(carpeta: Path) -> None:
    """Qwen2.5-0.5B con pesos al azar, en fp16 y safetensors: lo que se descargaría, sin red."""
    from transformers import AutoModelForCausalLM

    torch.manual_seed(0)
    modelo = AutoModelForCausalLM.from_config(config_de(MODELO), dtype=torch.float16)
    modelo.save_pretrained(carpeta, safe_serialization=True)
    del modelo
    gc.collect()


def _pasos(modelo, gpu: torch.device) -> tuple[int, float]:
    """(pico de memoria en bytes, segundos por paso) de PASOS pasos en fp16 con GradScaler."""
    vocabulario = modelo.config.vocab_size
    ids = torch.randint(0, vocabulario, (LOTE, SECUENCIA), device=gpu, generator=torch.Generator(gpu).manual_seed(0))
    entrenables = [p for p in modelo.parameters() if p.requires_grad]
    optimizador = torch.optim.AdamW(entrenables, lr=1e-4)
    contexto, escalador = preparar_precision("fp16", gpu)
    modelo.train()
    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()
    inicio = time.perf_counter()
    for _ in range(PASOS):
        with contexto():
            perdida = modelo(input_ids=ids, labels=ids, use_cache=False).loss
        optimizador.zero_grad(set_to_none=True)
        escalador.scale(perdida).backward()
        escalador.step(optimizador)  # ← con el adaptador en fp16 aquí saltaría UNSCALE_FP16
        escalador.update()
    torch.cuda.synchronize()
    return torch.cuda.max_memory_allocated(), (time.perf_counter() - inicio) / PASOS


def _liberar() -> None:
    gc.collect()
    torch.cuda.empty_cache()


def comprobar_en_gpu(gpu: str | torch.device = "cuda") -> list[str]:
    """Las comprobaciones de la lección 09 en una GPU CUDA. Líneas PASS/FAIL/SKIP."""
    if not torch.cuda.is_available():
        return [SIN_GPU]
    from transformers import AutoModelForCausalLM

    gpu = torch.device(gpu)
    lineas = []
    # El texto de «Attempting to unscale FP16 gradients.» en CUDA, como en la CPU de la lección.
    capa = torch.nn.Linear(8, 8, device=gpu, dtype=torch.float16)
    escalador = torch.amp.GradScaler("cuda")
    escalador.scale(capa(torch.randn(2, 8, device=gpu, dtype=torch.float16)).float().sum()).backward()
    try:
        escalador.step(torch.optim.SGD(capa.parameters(), lr=0.1))
        texto = "(sin error)"
    except ValueError as error:
        texto = str(error)
    lineas.append(f"{'PASS' if texto == UNSCALE_FP16 else 'FAIL'} GradScaler con pesos fp16 en CUDA: {texto!r}")
    # bf16 en una GPU anterior a Ampere: error en español que propone fp16.
    mayor, _ = torch.cuda.get_device_capability(gpu)
    if mayor < 8:
        try:
            config_4_bits("bf16")
            lineas.append("FAIL bf16 en una GPU anterior a Ampere: no dio error")
        except PrecisionNoDisponible as error:
            lineas.append(f"PASS bf16 en una GPU anterior a Ampere da un error que propone fp16: {error}")
    else:
        lineas.append(f"SKIP bf16 anterior a Ampere: esta GPU tiene capacidad {mayor}.x y sí admite bf16")

    with tempfile.TemporaryDirectory(prefix="qwen_aleatorio_") as carpeta:
        _guardar_modelo_aleatorio(Path(carpeta))
        # LoRA: el modelo base en fp16, el adaptador en fp32 (lo que hace peft).
        try:
            modelo = AutoModelForCausalLM.from_pretrained(carpeta, dtype=torch.float16, device_map={"": gpu.index or 0})
            modelo = aplicar_lora(modelo, r=16, alpha=32)
            pico, segundos = _pasos(modelo, gpu)
            estimado = memoria_ajuste(MODELO, "lora", "fp16", lote=LOTE, secuencia=SECUENCIA, r=16).total
            lineas.append(veredicto(f"{MODELO} con LoRA r=16, {LOTE} × {SECUENCIA} ({segundos:.2f} s por paso)",
                                    pico, estimado))
        except Exception as error:  # una comprobación rota es un FAIL, no el fin de las demás
            lineas.append(f"FAIL {MODELO} con LoRA: {type(error).__name__}: {error}")
        finally:
            modelo = None
            _liberar()
        # QLoRA: las capas lineales en NF4; sin activation checkpointing, como memoria_ajuste.
        if not bitsandbytes_instalado():
            lineas.append("SKIP QLoRA: bitsandbytes no está instalado (pip install bitsandbytes)")
            return lineas
        try:
            from peft import prepare_model_for_kbit_training

            modelo = AutoModelForCausalLM.from_pretrained(carpeta, quantization_config=config_4_bits("fp16"),
                                                          dtype=torch.float16, device_map={"": gpu.index or 0})
            cargado = torch.cuda.memory_allocated()
            modelo = prepare_model_for_kbit_training(modelo, use_gradient_checkpointing=False)
            modelo = aplicar_lora(modelo, r=16, alpha=32)
            pesos = torch.cuda.memory_allocated()
            pico, segundos = _pasos(modelo, gpu)
            desglose = memoria_ajuste(MODELO, "qlora", "fp16", lote=LOTE, secuencia=SECUENCIA, r=16)
            lineas.append(f"PASS {MODELO} cargado en 4 bits: {cargado / 1e6:.0f} MB en la GPU "
                          f"(tras preparar y el adaptador: {pesos / 1e6:.0f} MB; memoria_ajuste: pesos "
                          f"{desglose.pesos / 1e6:.0f} MB)")
            lineas.append(veredicto(f"{MODELO} con QLoRA r=16, {LOTE} × {SECUENCIA} ({segundos:.2f} s por paso)",
                                    pico, desglose.total))
            lineas.append(veredicto(f"{MODELO} con QLoRA: pesos tras preparar", pesos, desglose.pesos, 0.10))
        except Exception as error:
            lineas.append(f"FAIL {MODELO} con QLoRA: {type(error).__name__}: {error}")
        finally:
            modelo = None
            _liberar()
    return lineas


if __name__ == "__main__":
    resultado = comprobar_en_gpu()
    print("\n".join(resultado))
    sys.exit(1 if any(linea.startswith("FAIL") for linea in resultado) else 0)
