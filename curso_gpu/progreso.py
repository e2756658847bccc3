"""Barras de progreso con ``tqdm.auto``: un widget en Jupyter y Colab, una línea en una terminal.

``tqdm`` es la barra estándar del ecosistema (la usan PyTorch y Hugging Face, y ya viene en
Colab). ``tqdm.auto`` elige sola la versión del notebook o la de la terminal. Se importa
dentro de las funciones: ``import curso_gpu`` no la carga.
"""

from __future__ import annotations


def barra(total: int, descripcion: str = "", silenciosa: bool = False, inicial: int = 0):
    """Una barra de ``tqdm.auto`` de ``total`` pasos; con ``silenciosa=True`` no muestra nada.

    Se usa como ``with barra(10, "Barrido") as b: ... b.update(1)``.
    """
    from tqdm.auto import tqdm

    return tqdm(total=max(int(total), 1), desc=descripcion, initial=inicial, disable=silenciosa,
                dynamic_ncols=True)


class BarraEpocas:
    """La barra por defecto de ``entrenar``: se llama como ``al_avanzar(epoca, total)``. Lección 05.

    Crea la barra en la primera llamada (si se reanuda en la época 31, empieza en 30 de 60) y
    la cierra al llegar a la última época.
    """

    def __init__(self, descripcion: str):
        self.descripcion = descripcion
        self._barra = None

    def __call__(self, epoca: int, total: int) -> None:
        if self._barra is None:
            self._barra = barra(total, self.descripcion, inicial=epoca - 1)
        self._barra.update(epoca - self._barra.n)
        if epoca >= total:
            self.cerrar()

    def cerrar(self) -> None:
        """Cierra la barra (en una terminal, pasa a la línea siguiente)."""
        if self._barra is not None:
            self._barra.close()
