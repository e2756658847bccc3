"""Las lecciones ejecutadas una vez por sesión (``tests/ejecucion_compartida.py``, fixture ``leccion_ejecutada``).

Con notebooks diminutos en una carpeta temporal: la lección se ejecuta una sola vez aunque la
pidan dos procesos a la vez, un fallo se anota y lo reciben todos sin ejecutarla otra vez, y una
celda que escribe en stderr desde C (como el perfilador de PyTorch) se detecta.
"""

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import nbformat
import pytest
from ejecucion_compartida import (Ejecutadas, LeccionFallida, comprobar_sin_stderr, ejecutar_notebook, gestor_de_kernel,
                                  salidas_en_stderr)


TESTS = Path(__file__).resolve().parent


def _notebook(ruta: Path, celdas: list[str], etiquetas: list[list[str]] | None = None) -> Path:
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells = [nbformat.v4.new_code_cell(c, metadata={"tags": t}) for c, t in
                zip(celdas, etiquetas or [[] for _ in celdas])]
    nbformat.write(nb, ruta)
    return ruta


@pytest.mark.lento  # arranca un kernel de Jupyter
def test_una_celda_que_escribe_en_stderr_desde_c_se_detecta_y_la_etiquetada_no(tmp_path):
    ruta = _notebook(tmp_path / "01_leccion.ipynb", [
        "import os\nos.write(2, b'USDT: ruido de C\\n')",   # como el perfilador de torch 2.13
        "import sys\nsys.stdout.write('igual: '); sys.stdout.flush()\nprint(True)",  # dos mensajes del kernel
        "import sys\nprint('aviso que se enseña', file=sys.stderr)",
    ], [[], [], ["stderr-esperado"]])
    cuaderno = ejecutar_notebook(ruta)
    assert cuaderno.cells[1].outputs == [{"output_type": "stream", "name": "stdout", "text": "igual: True\n"}]
    assert salidas_en_stderr(cuaderno) == [(0, "USDT: ruido de C\n")]
    with pytest.raises(LeccionFallida, match="(?s)celda de código 0.*USDT: ruido de C"):
        comprobar_sin_stderr(cuaderno, ruta.name)


def _pedir_en_otro_proceso(carpeta: Path, notebooks: Path, numero: str) -> subprocess.Popen:
    codigo = ("import sys\nfrom ejecucion_compartida import Ejecutadas\n"
              f"nb = Ejecutadas({str(carpeta)!r}, {str(notebooks)!r}, guardar_en_cache_del_sitio=False)({numero!r})\n"
              "print(nb.cells[-1].outputs[0]['text'], end='')")
    return subprocess.Popen([sys.executable, "-c", codigo], cwd=TESTS, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


@pytest.mark.lento  # arranca un kernel de Jupyter
def test_dos_procesos_piden_la_misma_leccion_y_se_ejecuta_una_sola_vez(tmp_path):
    notebooks, sesion = tmp_path / "notebooks", tmp_path / "sesion"
    notebooks.mkdir()
    contador = tmp_path / "ejecuciones.txt"
    _notebook(notebooks / "01_contar.ipynb", [f"open({str(contador)!r}, 'a').write('una\\n')", "print(6 * 7)"])
    procesos = [_pedir_en_otro_proceso(sesion, notebooks, "01") for _ in range(2)]
    try:
        salidas = [p.communicate(timeout=120) for p in procesos]
    finally:
        for p in procesos:
            p.kill()
    assert [p.returncode for p in procesos] == [0, 0], salidas
    assert [s for s, _ in salidas] == ["42\n", "42\n"]
    assert contador.read_text() == "una\n", "la lección se ejecutó más de una vez"
    # Y en este proceso, con la misma carpeta de sesión: la lee, no la ejecuta.
    ejecutadas = Ejecutadas(sesion, notebooks, guardar_en_cache_del_sitio=False)
    copia = ejecutadas(1)
    copia.cells.clear()  # cada llamada da una copia: cambiarla no cambia la siguiente
    assert ejecutadas("01").cells[-1].outputs[0]["text"] == "42\n"
    assert contador.read_text() == "una\n"


@pytest.mark.lento  # arranca un kernel de Jupyter
def test_una_leccion_que_falla_se_ejecuta_una_vez_y_todas_las_peticiones_fallan_con_su_error(tmp_path):
    notebooks, sesion = tmp_path / "notebooks", tmp_path / "sesion"
    notebooks.mkdir()
    contador = tmp_path / "ejecuciones.txt"
    _notebook(notebooks / "03_falla.ipynb", [f"open({str(contador)!r}, 'a').write('una\\n')",
                                            "assert 1 + 1 == 3, 'la suma salió mal'"])
    ejecutadas = Ejecutadas(sesion, notebooks, guardar_en_cache_del_sitio=False)
    for _ in range(2):
        with pytest.raises(LeccionFallida, match="(?s)03_falla.ipynb: falló la celda de código 1.*la suma salió mal"):
            ejecutadas("03")
    with pytest.raises(LeccionFallida, match="la suma salió mal"):  # también otro proceso de la sesión
        Ejecutadas(sesion, notebooks, guardar_en_cache_del_sitio=False)("03")
    assert contador.read_text() == "una\n"


@pytest.mark.lento  # arranca un kernel de Jupyter
@pytest.mark.skipif(os.name != "posix", reason="los sockets de Unix son de Linux y macOS")
def test_el_kernel_no_usa_puertos_tcp_que_otro_proceso_pueda_quitarle():
    """En CI, el latido de otro kernel llegó al canal de control de una lección por un puerto repetido."""
    import psutil

    with gestor_de_kernel() as km:
        km.start_kernel()
        cliente = km.client()
        cliente.start_channels()
        try:
            cliente.wait_for_ready(timeout=60)
            info, carpeta = km.get_connection_info(), Path(km.ip).parent
            assert info["transport"] == "ipc" and carpeta.is_relative_to(tempfile.gettempdir())
            # shell, iopub, stdin, control y latido: cinco sockets de Unix, uno por canal, en su carpeta
            sockets = {str(carpeta / f"k-{info[canal]}") for canal in
                       ("shell_port", "iopub_port", "stdin_port", "control_port", "hb_port")}
            del_kernel = {c.laddr for c in psutil.Process(km.provisioner.process.pid).net_connections(kind="unix")}
            assert len(sockets) == 5 and sockets <= del_kernel, (sockets, del_kernel)
        finally:
            cliente.stop_channels()
    assert not km.has_kernel and not carpeta.exists()  # apagado, y su carpeta borrada


def test_una_leccion_que_no_existe_dice_cuales_hay(tmp_path):
    (tmp_path / "01_a.ipynb").write_text("{}")
    with pytest.raises(ValueError, match=r"no hay una lección '07' en notebooks/ \(hay: 01\)"):
        Ejecutadas(tmp_path / "sesion", tmp_path)("07")
