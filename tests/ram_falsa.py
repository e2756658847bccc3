"""La RAM de una máquina falsa, puesta en la frontera: ``psutil.virtual_memory``, lo que lee ``memoria_ram``."""

from __future__ import annotations

import types

import psutil


def poner_ram(monkeypatch, total: int, disponible: int) -> None:
    """``psutil.virtual_memory()`` dirá ``total`` bytes y ``disponible`` libres (su «available»)."""
    monkeypatch.setattr(psutil, "virtual_memory", lambda: types.SimpleNamespace(total=total, available=disponible))


def sin_ram_de_psutil(monkeypatch) -> None:
    """``psutil.virtual_memory()`` falla como en un sistema sin /proc/meminfo que leer."""
    def falla():
        raise FileNotFoundError(2, "No such file or directory", "/proc/meminfo")

    monkeypatch.setattr(psutil, "virtual_memory", falla)
