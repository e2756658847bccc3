"""La aplicación de escritorio de la lección 05: entrenar y dibujar líneas en una ventana Tk.

Ejecútala en tu computadora (no en Colab: allí no hay ventanas)::

    python -m curso_gpu.app_lineas                 # pregunta por la GPU solo si hay una
    python -m curso_gpu.app_lineas --epocas 60 --dispositivo cpu

Está construida sobre el paquete: los datos
(``datos.generar_dataset``), el modelo (``modelos.CNNPequena``), el entrenamiento
(``entrenamiento.entrenar``) y la lógica de la cuadrícula (``widgets.LogicaPizarra``) son los
mismos que usa el notebook 05. El entrenamiento corre en un hilo aparte y manda sus avances a la ventana por una cola, así la ventana nunca se
congela; y el aviso de «cuadrícula vacía» aparece en la propia ventana.
"""

from __future__ import annotations

import argparse
import os
import queue
import sys
import threading

from .base import AnalizadorArgumentos, ejecutar_orden, tipo_entero

# torch, el modelo y la pizarra se importan al abrir la ventana, no antes: así la ayuda y los
# errores de argumentos (``--help``, ``--epocas 0``) responden al momento, sin cargar torch.

TITULO = "Entrenamiento y predicción de líneas con PyTorch"
TAMANO_CELDA = 45
CADA_MS = 40  # cada cuánto mira la ventana si el entrenamiento mandó algo

SIN_TKINTER = (
    "No se puede abrir la aplicación: falta Tkinter (la biblioteca de ventanas de Python).\n"
    "Instálala y vuelve a probar:\n"
    "  - Debian/Ubuntu: sudo apt-get install python3-tk\n"
    "  - Fedora: sudo dnf install python3-tkinter\n"
    "  - macOS con Homebrew: brew install python-tk\n"
    "  - Windows: vuelve a instalar Python desde python.org marcando «tcl/tk and IDLE»."
)
SIN_PANTALLA = (
    "No se puede abrir la ventana: no hay pantalla ({detalle}).\n"
    "Esta aplicación necesita un escritorio. Ejecútala en tu computadora, no en Colab ni por SSH\n"
    "sin reenvío de X (usa `ssh -X`). En un servidor sin pantalla puedes usar una virtual:\n"
    "  xvfb-run python -m curso_gpu.app_lineas"
)


class _Cancelado(Exception):
    """Se cerró la ventana mientras entrenaba: el hilo termina en la época siguiente."""


# ---------------------------------------------------------------------------
# Elegir el dispositivo (con pregunta solo si hay GPU)
# ---------------------------------------------------------------------------

def elegir_dispositivo_app(preferencia: str = "auto", preguntar=None) -> torch.device:
    """El dispositivo de la aplicación. Lección 05.

    Con ``preferencia="auto"`` y una GPU en la máquina, llama a ``preguntar(texto)`` (en la
    aplicación, un cuadro «sí/no» de Tk) y usa la GPU solo si responde que sí. Sin GPU, o
    si la variable ``CURSO_GPU_DISPOSITIVO`` o ``preferencia`` ya deciden, no pregunta.
    """
    import torch

    from .dispositivo import VARIABLE_ENTORNO, elegir_dispositivo

    candidato = elegir_dispositivo(preferencia)
    decidido = preferencia != "auto" or os.environ.get(VARIABLE_ENTORNO, "").strip()
    if candidato.type == "cpu" or decidido or preguntar is None:
        return candidato
    texto = (f"Se detectó una GPU ({candidato}).\n\n"
             "¿Deseas usar la GPU para el entrenamiento?\n"
             "Si respondes «No», se entrenará en la CPU.")
    return candidato if preguntar(texto) else torch.device("cpu")


# ---------------------------------------------------------------------------
# La ventana
# ---------------------------------------------------------------------------

class AplicacionLineas:
    """La ventana: barra de progreso, métricas en vivo y la cuadrícula de 8×8. Lección 05.

    ``iniciar()`` lanza el entrenamiento en un hilo; la ventana recoge sus avances con
    ``after()`` y, al terminar, activa la cuadrícula y los botones «Predecir» y «Limpiar».
    """

    def __init__(self, ventana, dispositivo: torch.device, epocas: int = 120, lr: float = 0.01,
                 n_entrenamiento: int = 120, n_validacion: int = 60, semilla: int | None = None,
                 salida=None):
        import tkinter as tk
        from tkinter import ttk

        self.tk, self.ttk = tk, ttk
        self.ventana = ventana
        self.dispositivo = dispositivo
        self.epocas = epocas
        self.lr = lr
        self.n_entrenamiento = n_entrenamiento
        self.n_validacion = n_validacion
        self.semilla = semilla
        self.salida = salida if salida is not None else sys.stdout
        from .interactivo import LogicaPizarra

        self.pizarra = LogicaPizarra()
        self.cola: queue.Queue = queue.Queue()
        self.hilo: threading.Thread | None = None
        self.historial = None
        self.error: BaseException | None = None
        self.terminado = False
        self._cancelar = threading.Event()
        ventana.title(TITULO)
        ventana.protocol("WM_DELETE_WINDOW", self.cerrar)
        self._crear_interfaz()

    # -- la interfaz ------------------------------------------------------------------

    def _crear_interfaz(self) -> None:
        tk, ttk, v = self.tk, self.ttk, self.ventana
        tk.Label(v, text="Clasificador de líneas con CNN", font=("Arial", 18, "bold")).pack(pady=(10, 5))
        self.etiqueta_estado = tk.Label(v, text=f"Dispositivo seleccionado: {self.dispositivo}", font=("Arial", 12))
        self.etiqueta_estado.pack(pady=5)
        self.barra = ttk.Progressbar(v, orient="horizontal", length=500, mode="determinate", maximum=self.epocas)
        self.barra.pack(pady=10)
        self.etiqueta_metricas = tk.Label(v, text="Métricas aún no disponibles", font=("Courier", 11),
                                          justify="left")
        self.etiqueta_metricas.pack(pady=5)
        tk.Frame(v, height=2, bd=1, relief="sunken").pack(fill="x", padx=10, pady=10)
        self.etiqueta_dibujo = tk.Label(
            v, text="La cuadrícula se activará al terminar el entrenamiento", font=("Arial", 12, "italic"))
        self.etiqueta_dibujo.pack(pady=5)
        from .entrenamiento import LADO

        lado = LADO * TAMANO_CELDA
        self.canvas = tk.Canvas(v, width=lado, height=lado, bg="white", highlightthickness=0)
        self.canvas.pack(padx=10, pady=10)
        self.rectangulos = [
            [self.canvas.create_rectangle(c * TAMANO_CELDA, f * TAMANO_CELDA, (c + 1) * TAMANO_CELDA,
                                          (f + 1) * TAMANO_CELDA, fill="white", outline="gray")
             for c in range(LADO)]
            for f in range(LADO)
        ]
        botones = tk.Frame(v)
        botones.pack(pady=10)
        self.boton_predecir = tk.Button(botones, text="Predecir", width=15, command=self.predecir, state="disabled")
        self.boton_predecir.grid(row=0, column=0, padx=5)
        self.boton_limpiar = tk.Button(botones, text="Limpiar", width=15, command=self.limpiar, state="disabled")
        self.boton_limpiar.grid(row=0, column=1, padx=5)
        self.etiqueta_resultado = tk.Label(v, text="Esperando el fin del entrenamiento...", font=("Arial", 13),
                                           justify="left")
        self.etiqueta_resultado.pack(pady=10)

    # -- el entrenamiento, en otro hilo -------------------------------------------------

    def iniciar(self) -> None:
        """Empieza a entrenar en un hilo aparte y a recoger sus avances."""
        self.etiqueta_estado.config(text=f"Generando los datos y entrenando en {self.dispositivo}...")
        self.hilo = threading.Thread(target=self._entrenar, name="entrenamiento", daemon=True)
        self.hilo.start()
        self.ventana.after(CADA_MS, self._revisar_cola)

    def _entrenar(self) -> None:
        """Lo que corre en el hilo: nada de Tk aquí, solo mensajes a la cola."""
        from .entrenamiento import CNNPequena, entrenar, generar_dataset

        def al_avanzar(epoca: int, total: int) -> None:
            if self._cancelar.is_set():
                raise _Cancelado()
            self.cola.put(("avance", epoca, total))

        try:
            semilla_val = None if self.semilla is None else self.semilla + 1
            datos = generar_dataset(self.n_entrenamiento, semilla=self.semilla)
            validacion = generar_dataset(self.n_validacion, semilla=semilla_val)
            modelo = CNNPequena()
            historial = entrenar(
                modelo, datos, validacion, self.dispositivo, epocas=self.epocas, lr=self.lr,
                semilla=self.semilla, silencioso=True,
                al_registrar=lambda registro: self.cola.put(("registro", registro)),
                al_avanzar=al_avanzar,
            )
            self.cola.put(("fin", modelo, historial))
        except _Cancelado:
            self.cola.put(("cancelado",))
        except BaseException as error:  # se muestra en la ventana, no se pierde en el hilo
            self.cola.put(("error", error))

    def _revisar_cola(self) -> None:
        """En el hilo de Tk: aplica lo que mandó el entrenamiento y vuelve a mirar."""
        try:
            while True:
                mensaje = self.cola.get_nowait()
                tipo = mensaje[0]
                if tipo == "avance":
                    _, epoca, total = mensaje
                    self.barra["value"] = epoca
                    self.etiqueta_estado.config(text=f"Entrenando en {self.dispositivo}: época {epoca} de {total}")
                elif tipo == "registro":
                    self.etiqueta_metricas.config(text=str(mensaje[1]))
                elif tipo == "fin":
                    self._al_terminar(mensaje[1], mensaje[2])
                    return
                elif tipo == "error":
                    self._al_fallar(mensaje[1])
                    return
                else:
                    return
        except queue.Empty:
            pass
        self.ventana.after(CADA_MS, self._revisar_cola)

    def _al_terminar(self, modelo, historial) -> None:
        self.historial = historial
        self.terminado = True
        self.pizarra.habilitar(modelo, self.dispositivo)
        final = historial.final
        self.etiqueta_estado.config(
            text=f"Entrenamiento terminado en {self.dispositivo}. Tiempo: {historial.segundos:.2f} segundos")
        if final is not None:
            self.etiqueta_metricas.config(text="FINAL\n" + str(final))
        self.etiqueta_dibujo.config(text="Ahora puedes dibujar una línea y pedir la predicción")
        self.canvas.bind("<Button-1>", self.pintar)
        self.canvas.bind("<B1-Motion>", self.pintar)
        self.boton_predecir.config(state="normal")
        self.boton_limpiar.config(state="normal")
        self.etiqueta_resultado.config(text="Modelo listo para predecir", fg="black")
        acierto = f", accuracy de validación {final.accuracy_validacion:.3f}" if final else ""
        self._escribir(f"Entrenamiento terminado en {self.dispositivo}: {historial.epocas_totales} épocas "
                       f"en {historial.segundos:.2f} s{acierto}.")

    def _al_fallar(self, error: BaseException) -> None:
        from tkinter import messagebox

        self.error = error
        self.terminado = True
        texto = f"El entrenamiento falló: {error}"
        self.etiqueta_estado.config(text="El entrenamiento falló")
        self.etiqueta_resultado.config(text=texto, fg="#b00000")
        self._escribir(texto)
        messagebox.showerror("Error", texto, parent=self.ventana)

    # -- la cuadrícula ------------------------------------------------------------------

    def pintar(self, evento) -> None:
        """Pinta la celda bajo el puntero (clic o arrastre con el botón pulsado)."""
        from .entrenamiento import LADO

        col, fila = evento.x // TAMANO_CELDA, evento.y // TAMANO_CELDA
        if 0 <= fila < LADO and 0 <= col < LADO:
            self.pizarra.pintar(fila, col)
            self.canvas.itemconfig(self.rectangulos[fila][col], fill="black")

    def limpiar(self) -> None:
        self.pizarra.limpiar()
        for fila in self.rectangulos:
            for rectangulo in fila:
                self.canvas.itemconfig(rectangulo, fill="white")
        self.etiqueta_resultado.config(text="Cuadrícula limpia", fg="black")

    def predecir(self):
        """Muestra la clase y las tres probabilidades; con la cuadrícula vacía, un aviso."""
        resultado = self.pizarra.predecir()
        if isinstance(resultado, str):
            self.etiqueta_resultado.config(text=f"⚠ {resultado}", fg="#b00000")
            self._escribir(resultado)
            return resultado
        from .entrenamiento import NOMBRES_CLASES

        lineas = [f"Predicción: {resultado.clase}"]
        lineas += [f"{nombre} = {resultado.probabilidades[nombre]:.2f}" for nombre in NOMBRES_CLASES]
        self.etiqueta_resultado.config(text="\n".join(lineas), fg="black")
        self._escribir(" · ".join(lineas))
        return resultado

    # -- cerrar -------------------------------------------------------------------------

    def cerrar(self) -> None:
        """Cierra la ventana; si aún entrena, el hilo se detiene en la época siguiente."""
        self._cancelar.set()
        self.ventana.destroy()

    def _escribir(self, texto: str) -> None:
        try:
            print(texto, file=self.salida, flush=True)
        except (OSError, ValueError):
            pass


# ---------------------------------------------------------------------------
# La orden
# ---------------------------------------------------------------------------

def crear_analizador() -> argparse.ArgumentParser:
    analizador = AnalizadorArgumentos(
        prog="python -m curso_gpu.app_lineas",
        description="Entrena la CNN de líneas de la lección 05 y dibuja líneas para que las clasifique.",
    )
    analizador.add_argument("--epocas", type=tipo_entero(1, None), default=120, help="épocas de entrenamiento (por defecto 120)")
    analizador.add_argument("--dispositivo", default="auto",
                            help="auto (pregunta si hay GPU), cpu, cuda, cuda:N o mps (por defecto auto)")
    analizador.add_argument("--semilla", type=tipo_entero(0, 2**63 - 1), default=None, help="semilla para repetir el mismo resultado")
    return analizador


def main(argv: list[str] | None = None) -> int:
    """Punto de entrada de ``python -m curso_gpu.app_lineas``. Devuelve el código de salida."""
    return ejecutar_orden(_abrir, argv)


def _abrir(argv: list[str] | None) -> int:
    args = crear_analizador().parse_args(argv)
    try:
        import tkinter as tk
        from tkinter import messagebox
    except ImportError:
        print(SIN_TKINTER, file=sys.stderr)
        return 2
    try:
        ventana = tk.Tk()
    except tk.TclError as error:
        print(SIN_PANTALLA.format(detalle=str(error).strip() or "Tk no pudo abrirla"), file=sys.stderr)
        return 2
    from .dispositivo import DispositivoNoDisponible  # con la ventana ya abierta: aquí sí hace falta torch

    try:
        ventana.withdraw()  # la pregunta sale antes que la ventana
        dispositivo = elegir_dispositivo_app(
            args.dispositivo,
            preguntar=lambda texto: messagebox.askyesno("Seleccionar dispositivo", texto, parent=ventana),
        )
    except (ValueError, DispositivoNoDisponible) as error:
        ventana.destroy()
        print(f"Error: {error}", file=sys.stderr)
        return 2
    ventana.deiconify()
    app = AplicacionLineas(ventana, dispositivo, epocas=args.epocas, semilla=args.semilla)
    app.iniciar()
    ventana.mainloop()
    return 1 if app.error is not None else 0


if __name__ == "__main__":
    raise SystemExit(main())
