"""``python -m curso_gpu``: la comprobación completa de tu GPU (la orden vive en ``curso_gpu.interactivo.cli``)."""

from .interactivo.cli import main

raise SystemExit(main())
