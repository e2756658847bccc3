"""Servir un modelo en una T4: qué vLLM la admite, qué le falta y qué error verás. Lección 13.

Es el único sitio del curso con estos hechos; la lección 13 los lee de aquí. Cada uno lleva su
fuente; todas leídas el 7 de diciembre de 2026.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["HECHOS_VLLM_T4", "HechoServir", "MENSAJE_VLLM_BF16_T4", "MENSAJE_VLLM_FP8_KV_T4", "ORDEN_VLLM_T4",
           "VLLM_V1_TURING_DESDE", "VLLM_SOLO_TRITON_ATTN_DESDE"]

_LEIDO = "2026-12-07"


@dataclass(frozen=True)
class HechoServir:
    """Un hecho sobre servir en una T4, con su fuente y el día en que se leyó."""

    clave: str
    texto: str
    fuente: str
    leido: str = _LEIDO


VLLM_V1_TURING_DESDE = "0.10.2"
"""Desde vLLM 0.10.2, el motor V1 funciona en GPU con capacidad de cómputo < 8.0, como la T4.
Fuente: notas de la versión v0.10.2 («V1 engine maturation: Extended V1 support to compute capability
< 8.0», vllm-project/vllm#23614 y #24022), citadas en sasha0552/pascal-pkgs-ci#48 (2025-09-15). Antes,
V1 no admitía la T4 (vllm-project/vllm#12568, WoosukKwon, 2025-02-04; #15853)."""

VLLM_SOLO_TRITON_ATTN_DESDE = "0.24.0"
"""Desde vLLM 0.24.0 FlashInfer pide capacidad 8.0 o más: en una T4 la atención es TRITON_ATTN.
Fuente: vllm-project/vllm#45375 («FlashInfer … supports_compute_capability() lower bound 7.5 → 8.0 …
SM75 auto-selects … TRITON_ATTN») y vllm-project/vllm#47549 (la regresión vista en v0.24.0)."""

MENSAJE_VLLM_BF16_T4 = (
    "ValueError: Bfloat16 is only supported on GPUs with compute capability of at least 8.0. Your Tesla T4 GPU "
    "has compute capability 7.5. You can use float16 instead by explicitly setting the `dtype` flag in CLI, for "
    "example: --dtype=half.")
"""Lo que dice ``vllm serve MODELO_BF16`` en una T4 sin ``--dtype half``. Fuente: vllm-project/vllm#1157 y
#1153 (el texto de la T4), y el mismo texto completo en substratusai/vllm-docker#37 y xming521/WeClone#85."""

MENSAJE_VLLM_FP8_KV_T4 = (
    "ValueError: FP8 KV cache is not supported by the Triton attention backend on Tesla T4 (compute capability "
    "7.5); native FP8 (fp8e4nv) requires SM89+. Re-run with --kv-cache-dtype float16.")
"""Lo que dice vLLM ≥ 0.24 con ``--kv-cache-dtype fp8`` en una GPU de capacidad 7.5. Fuente:
vllm-project/vllm#47549 (el texto, visto en una Quadro RTX 8000, también 7.5; aquí con el nombre de la T4)."""

ORDEN_VLLM_T4 = ["vllm", "serve", "Qwen/Qwen2.5-0.5B-Instruct", "--dtype", "half", "--max-model-len", "4096",
                 "--gpu-memory-utilization", "0.85", "--max-num-seqs", "64", "--host", "127.0.0.1", "--port", "8000"]
"""La orden de la lección para una T4: fp16 (los pesos bf16 de Qwen2.5 se convierten), un largo máximo
que deja sitio a la caché KV y solo la propia máquina (127.0.0.1)."""

HECHOS_VLLM_T4 = [
    HechoServir("capacidad", "vLLM pide una GPU de NVIDIA de capacidad de cómputo 7.5 o más (la T4 es 7.5 justa).",
                "docs.vllm.ai/en/v0.31.0/getting_started/installation/gpu/ («compute capability 7.5 or higher "
                "(e.g., T4, RTX20xx, A100…)»; en v0.14.0 decía 7.0)"),
    HechoServir("v1", f"El motor V1 funciona en la T4 desde vLLM {VLLM_V1_TURING_DESDE}; antes, solo el V0.",
                "notas de vLLM v0.10.2 (vllm-project/vllm#23614, #24022), citadas en sasha0552/pascal-pkgs-ci#48"),
    HechoServir("atencion", "Sin FlashAttention (pide Ampere) y, desde vLLM "
                f"{VLLM_SOLO_TRITON_ATTN_DESDE}, sin FlashInfer: la atención es TRITON_ATTN.",
                "vllm-project/vllm#14071 («Cannot use Flash Attention backend for Turing GPUs»), #45375 y #47549"),
    HechoServir("fp8_kv", "Sin caché KV en FP8: la T4 no tiene FP8; la caché va en fp16 (2 bytes por número).",
                "vllm-project/vllm#47549 (el error de --kv-cache-dtype fp8 con TRITON_ATTN en capacidad 7.5)"),
    HechoServir("dtype", "Sin bf16 nativo: con un modelo en bf16 (Qwen2.5) hay que pedir --dtype half.",
                "vllm-project/vllm#1157 (el error de bf16 en una T4)"),
    HechoServir("sglang", "SGLang ya no admite la T4 (sm75): anunció su fin en v0.5 y hoy falla al arrancar en ella.",
                "sgl-project/sglang#6006 («[RFC] sm75 EOL», 2025-05-04), gpustack/gpustack#3932 (2025-12-17: «SGLang "
                "cannot run on GPUs with compute capability < 8.0 like T4») y sgl-project/sglang#24224 (2026-05-01)"),
    HechoServir("cliente", "Para medir con mucha concurrencia, el cliente openai se vuelve el cuello de botella: "
                "usa un cliente asíncrono como aiohttp.",
                "vllm-project/vllm#7935 (Stas Bekman: «5x slower throughput with openAI client/server than native one»)"),
]
"""Los hechos de la sección «En una T4, con vLLM» de la lección 13, en orden."""
