"""Plugin de pytest que se carga antes que los demás (``-p arranque_rapido`` en pyproject.toml).

Las pruebas de las lecciones importan nbformat, nbformat importa jsonschema, y jsonschema, si encuentra el paquete
``rfc3987_syntax`` (llega con jupyterlab), construye al importarse su gramática Lark: unos 3 s
de CPU en cada proceso de pytest (el principal y cada trabajador de xdist). Ese paquete solo
sirve para el formato «iri» de los esquemas JSON, que nbformat no usa. Ponerlo a ``None`` en
``sys.modules`` (la forma documentada de Python de que un import falle) hace que jsonschema se
salte ese comprobador, como si no estuviera instalado. Solo afecta a los procesos de pytest:
nada de lo que se prueba cambia.
"""

import sys

sys.modules.setdefault("rfc3987_syntax", None)
