"""Dónde vive el curso en GitHub. Es el único sitio del repositorio con esta dirección:
las insignias «Open in Colab» y la celda de arranque de cada notebook la leen de aquí."""

__all__ = ["PROPIETARIO", "RAMA", "REPOSITORIO", "URL_GITHUB"]

PROPIETARIO = "curso-gpu"
REPOSITORIO = "curso_gpu"
RAMA = "main"
URL_GITHUB = f"https://github.com/{PROPIETARIO}/{REPOSITORIO}"
