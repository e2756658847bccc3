"""Un conjunto de imágenes con una transformación en la CPU, como los de verdad. Lección 06.

Vive en el paquete, no en el notebook, porque los procesos del ``DataLoader``
(``num_workers > 0``) tienen que poder importarlo: en macOS y Windows esos procesos se
crean con *spawn* (un Python nuevo que importa el módulo), no con *fork* (una copia del
proceso), y una clase definida en un notebook no se puede importar desde fuera.
"""

from __future__ import annotations

import time

import torch
from torch.nn import functional as F
from torch.utils.data import Dataset

from ..base import leer_numero


class ImagenesSinteticas(Dataset):
    """Imágenes RGB inventadas, con el aumento de datos típico hecho en la CPU. Lección 06.

    Cada ``conjunto[i]`` «decodifica» una imagen ``uint8`` de ``3×lado×lado`` (siempre la
    misma para el mismo ``i`` y la misma ``semilla``) y le aplica lo que hace un
    ``transforms.Compose`` habitual: recorte aleatorio redimensionado, volteo horizontal,
    brillo y contraste, y normalización. Devuelve ``(imagen float32 [3, recorte, recorte],
    etiqueta)``.

    - Crearlo no cuesta nada: no guarda imágenes, las fabrica al pedirlas.
    - ``latencia`` (segundos por imagen) simula leer de un disco lento, como Google Drive
      montado en Colab.
    """

    MEDIA = (0.485, 0.456, 0.406)
    DESVIACION = (0.229, 0.224, 0.225)

    def __init__(self, n: int = 2048, lado: int = 64, recorte: int = 56, clases: int = 10,
                 semilla: int = 0, latencia: float = 0.0):
        n, lado, recorte, clases = (leer_numero(valor, nombre, entero=True, minimo=1, maximo=10**6, ejemplo=defecto)
                                    for nombre, valor, defecto in (("n", n, 2048), ("lado", lado, 64),
                                                                   ("recorte", recorte, 56), ("clases", clases, 10)))
        semilla = leer_numero(semilla, "semilla", entero=True, minimo=0)
        if recorte > lado:
            raise ValueError(f"recorte ({recorte}) no puede ser mayor que lado ({lado}).")
        latencia = leer_numero(latencia, "latencia", minimo=0, maximo=10, ejemplo="latencia=0.01 (segundos por imagen)")
        self.n, self.lado, self.recorte, self.clases = n, lado, recorte, clases
        self.semilla, self.latencia = int(semilla), float(latencia)

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, indice: int):
        if not -self.n <= indice < self.n:
            raise IndexError(f"índice {indice} fuera de rango: el conjunto tiene {self.n} imágenes.")
        indice %= self.n
        if self.latencia:
            time.sleep(self.latencia)  # leer el archivo de un disco lento
        g = torch.Generator().manual_seed(self.semilla * 1_000_003 + indice)
        etiqueta = indice % self.clases
        # «Decodificar»: un degradado que depende de la clase, más ruido, en uint8 como un JPEG leído.
        base = torch.linspace(0, 1, self.lado).outer(torch.linspace(0, 1, self.lado))
        canales = torch.stack([base.roll(etiqueta * 3, dims=c % 2) for c in range(3)])
        imagen = ((0.7 * canales + 0.3 * torch.rand(3, self.lado, self.lado, generator=g)) * 255).to(torch.uint8)
        # Aumento de datos, como un transforms.Compose típico.
        x = imagen.float() / 255
        lado_recorte = int(torch.randint(self.recorte, self.lado + 1, (1,), generator=g))
        fila, columna = (int(v) for v in torch.randint(0, self.lado - lado_recorte + 1, (2,), generator=g))
        x = x[:, fila:fila + lado_recorte, columna:columna + lado_recorte]
        x = F.interpolate(x.unsqueeze(0), size=(self.recorte, self.recorte), mode="bilinear",
                          align_corners=False).squeeze(0)
        if torch.rand(1, generator=g) < 0.5:
            x = x.flip(-1)
        brillo, contraste = (0.8 + 0.4 * torch.rand(2, generator=g)).tolist()
        x = ((x - x.mean()) * contraste + x.mean() * brillo).clamp(0, 1)
        media = torch.tensor(self.MEDIA).view(3, 1, 1)
        desviacion = torch.tensor(self.DESVIACION).view(3, 1, 1)
        return (x - media) / desviacion, etiqueta
