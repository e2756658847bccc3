# ---
# jupyter:
#   accelerator: GPU
#   colab:
#     gpuType: T4
#     provenance: []
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Prueba
#
# Texto.

# %%
import curso_gpu
print(curso_gpu.elegir_dispositivo())
