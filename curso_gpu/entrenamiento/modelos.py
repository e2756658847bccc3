"""Los modelos de la lección 05: una CNN pequeña para líneas de 8×8 y una red tabular mínima."""

from __future__ import annotations

import torch
from torch import nn

__all__ = ["CNNPequena", "GPT2Pequeno", "MLPTabular", "contar_parametros_entrenables"]


class CNNPequena(nn.Module):
    """Una CNN pequeña para imágenes de 8×8 con 3 clases. Lección 05.

    conv 1→8 (3×3, padding 1) → ReLU → max-pool 2 → conv 8→16 (3×3, padding 1) → ReLU →
    max-pool 2 → aplanar (16·2·2 = 64) → lineal 64→16 → ReLU → lineal 16→3.

    ``canales`` y ``ocultas`` permiten una versión más grande (la misma forma, más ancha)
    para ver cuándo compensa la GPU; por defecto es la de la lección.
    """

    def __init__(self, canales: tuple[int, int] = (8, 16), ocultas: int = 16, clases: int = 3):
        super().__init__()
        c1, c2 = canales
        self.conv1 = nn.Conv2d(1, c1, kernel_size=3, padding=1)
        self.conv2 = nn.Conv2d(c1, c2, kernel_size=3, padding=1)
        self.relu = nn.ReLU()
        self.pool = nn.MaxPool2d(kernel_size=2)
        self.fc1 = nn.Linear(c2 * 2 * 2, ocultas)
        self.fc2 = nn.Linear(ocultas, clases)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.pool(self.relu(self.conv1(x)))  # [N, 8, 4, 4]
        x = self.pool(self.relu(self.conv2(x)))  # [N, 16, 2, 2]
        x = torch.flatten(x, start_dim=1)        # [N, 64]
        x = self.relu(self.fc1(x))
        return self.fc2(x)                       # logits [N, 3]


class MLPTabular(nn.Module):
    """Una red pequeña para clasificación binaria tabular. Lección 05.

    entradas → ocultas → ReLU → ocultas → ReLU → 1 logit (usa ``nn.BCEWithLogitsLoss``).
    """

    def __init__(self, entradas: int = 2, ocultas: int = 16):
        super().__init__()
        self.red = nn.Sequential(
            nn.Linear(entradas, ocultas),
            nn.ReLU(),
            nn.Linear(ocultas, ocultas),
            nn.ReLU(),
            nn.Linear(ocultas, 1),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.red(x).squeeze(-1)  # un logit por fila


def contar_parametros_entrenables(modelo: nn.Module) -> int:
    """Cuántos números aprende el modelo: solo los parámetros entrenables (``requires_grad``). Lección 05.

    Para la memoria cuentan todos, también los congelados: eso es ``memoria.contar_parametros``.
    """
    return sum(p.numel() for p in modelo.parameters() if p.requires_grad)


class GPT2Pequeno(nn.Module):
    """Un Transformer con la forma de GPT-2 pequeño (124M parámetros), con pesos al azar. Lecciones 04 y 07.

    El de la lección 04: ``TransformerEncoder`` con máscara causal y la salida que comparte los
    pesos con la tabla de tokens. La lección 07 lo usa reducido (``dimension``, ``capas``...)
    para medir la memoria de entrenarlo; con ``with torch.device("meta"):`` se crea sin memoria.
    """

    def __init__(self, vocabulario: int = 50257, contexto: int = 1024, dimension: int = 768, capas: int = 12,
                 cabezas: int = 12):
        super().__init__()
        self.tokens = nn.Embedding(vocabulario, dimension)
        self.posiciones = nn.Embedding(contexto, dimension)
        capa = nn.TransformerEncoderLayer(
            dimension, cabezas, dim_feedforward=4 * dimension, dropout=0.0,
            activation="gelu", batch_first=True, norm_first=True,
        )
        self.bloques = nn.TransformerEncoder(capa, capas, enable_nested_tensor=False)
        self.norma_final = nn.LayerNorm(dimension)
        self.salida = nn.Linear(dimension, vocabulario, bias=False)
        self.salida.weight = self.tokens.weight  # pesos compartidos, como en GPT-2

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        n = ids.shape[1]
        x = self.tokens(ids) + self.posiciones(torch.arange(n, device=ids.device))
        causal = nn.Transformer.generate_square_subsequent_mask(n, device=ids.device)
        x = self.bloques(x, mask=causal, is_causal=True)
        return self.salida(self.norma_final(x))  # una puntuación por token del vocabulario
