"""Lo lanza tests/test_fsdp.py con torchrun y 2 procesos: un inf en el gradiente de UN rango.

Cada rango reparte un MLP con ``fully_shard``, escala la pérdida con ``escalador_de_perdida``
(``torch.amp.GradScaler``), y solo el rango 0 pone un inf en su trozo del gradiente. Escribe, de
forma atómica, en ``<carpeta>/rango_N.json`` si sus pesos cambiaron y la escala que quedó.
"""

import json
import sys
from pathlib import Path

import torch
from torch import nn

from curso_gpu import distribuido
from curso_gpu.guardado import escribir_atomico

carpeta = Path(sys.argv[1])
proceso = distribuido.iniciar()
try:
    torch.manual_seed(0)
    modelo = nn.Sequential(nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 4))
    distribuido.fragmentar(modelo, proceso=proceso)
    optimizador = torch.optim.Adam(modelo.parameters(), lr=0.1)
    escalador = distribuido.escalador_de_perdida("fp16", proceso.dispositivo)  # escala inicial 2**16
    resultado = {"rango": proceso.rango, "clase": type(escalador).__name__, "pasos": []}
    for paso in range(2):  # el paso 0 con el inf en el rango 0; el 1, limpio en los dos
        antes = [p.to_local().clone() for p in modelo.parameters()]
        perdida = modelo(torch.randn(4, 8, generator=torch.Generator().manual_seed(paso))).pow(2).mean()
        optimizador.zero_grad()
        escalador.scale(perdida).backward()
        if paso == 0 and proceso.rango == 0:
            modelo[0].weight.grad.to_local()[0, 0] = float("inf")  # solo en el trozo de este rango
        escalador.step(optimizador)
        escalador.update()
        cambiaron = any(not torch.equal(a, p.to_local()) for a, p in zip(antes, modelo.parameters()))
        resultado["pasos"].append({"cambiaron": cambiaron, "escala": escalador.get_scale(),
                                   "gradiente": type(modelo[0].weight.grad).__name__})
    escribir_atomico(carpeta / f"rango_{proceso.rango}.json", lambda f: f.write(json.dumps(resultado).encode()))
finally:
    distribuido.terminar()
