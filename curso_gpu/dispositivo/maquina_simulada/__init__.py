"""La maquinaria de la T4 simulada: solo se importa cuando se enciende (``CURSO_GPU_SIMULAR=T4``).

Lo público está en ``curso_gpu.dispositivo.simulacion`` (sin torch). Aquí, una idea por módulo:

- ``memoria``: los bytes de la GPU simulada y el modelo del asignador con caché de PyTorch.
- ``modos``: los dos modos de torch: el de funciones (dispositivos) y el de despacho (memoria).
- ``respuestas``: lo que contesta ``torch.cuda`` (propiedades, eventos, flujos, memoria).
- ``parches``: el registro que cambia torch y lo deja como estaba al apagar.
- ``simulador``: el simulador que junta todo: mover tensores, reservar, encender y apagar.
"""
