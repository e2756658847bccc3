"""``python -m curso_gpu``: la comprobación completa de tu GPU (ver ``curso_gpu.cli``)."""

from .interactivo.cli import main

raise SystemExit(main())
