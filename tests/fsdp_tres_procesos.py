"""Lo lanza tests/test_fsdp.py con torchrun y 3 procesos: filas que no se dividen entre 3.

Cada rango reparte con ``fragmentar`` un modelo con capas de 5 y 33 salidas (ni 5 ni 33 se
dividen entre 3 con trozos iguales), mide su trozo, da un paso de entrenamiento y escribe su
resultado, de forma atómica, en ``<carpeta>/rango_N.json``.
"""

import json
import sys
import warnings
from pathlib import Path

import torch
from torch import nn

from curso_gpu import distribuido
from curso_gpu.guardado import escribir_atomico
from curso_gpu.memoria import bytes_de_fragmento

carpeta = Path(sys.argv[1])
warnings.filterwarnings("ignore")
proceso = distribuido.iniciar()
try:
    torch.manual_seed(0)
    modelo = nn.Sequential(nn.Linear(16, 33), nn.ReLU(), nn.Linear(33, 5))
    prevision = bytes_de_fragmento(modelo, proceso.tamano_mundo, proceso.rango)
    distribuido.fragmentar(modelo, proceso=proceso)
    medido = distribuido.fragmento_medido(modelo)
    torch.manual_seed(1)
    X, y = torch.randn(6, 16), torch.randint(0, 5, (6,))
    propios = X[proceso.rango::proceso.tamano_mundo], y[proceso.rango::proceso.tamano_mundo]
    optimizador = torch.optim.SGD(modelo.parameters(), lr=0.1)
    nn.functional.cross_entropy(modelo(propios[0]), propios[1]).backward()
    optimizador.step()
    pesos = distribuido.pesos_completos(modelo)
    resultado = {"rango": proceso.rango, "mundo": proceso.tamano_mundo,
                 "prevision": [prevision.parametros, prevision.bytes, prevision.relleno],
                 "medido": [medido.parametros, medido.bytes, medido.relleno]}
    if proceso.principal:
        escribir_atomico(carpeta / "pesos.pt", lambda archivo: torch.save(pesos, archivo))
    escribir_atomico(carpeta / f"rango_{proceso.rango}.json", lambda archivo: archivo.write(json.dumps(resultado).encode()))
finally:
    distribuido.terminar()
