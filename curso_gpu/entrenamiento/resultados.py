"""Lo que devuelven ``entrenar`` y ``predecir``: ``Registro``, ``Historial`` y ``Prediccion``. Lección 05.

Solo datos y cómo se ven (una ``Tabla`` de ``presentacion``): así una prueba mira los números
sin pantalla, y el historial se guarda en un checkpoint con ``weights_only=True``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from ..base import Celda, ComoTabla, Tabla, contar, marcar_simulada
from ..dispositivo import dispositivo_simulado

__all__ = ["Historial", "Prediccion", "Registro"]



@dataclass
class Registro:
    """Las métricas de un punto de registro (época 1, cada 10 y la última).

    ``epoca``: la de este registro; ``epocas_totales``: las del entrenamiento entero.
    """

    epoca: int
    epocas_totales: int
    perdida_entrenamiento: float
    perdida_validacion: float
    accuracy_entrenamiento: float
    accuracy_validacion: float
    segundos: float

    def __str__(self) -> str:
        return (
            f"Época: {self.epoca:3d}/{self.epocas_totales}\n"
            f"Pérdida de entrenamiento: {self.perdida_entrenamiento:.4f}\n"
            f"Pérdida de validación:    {self.perdida_validacion:.4f}\n"
            f"Accuracy de entrenamiento: {self.accuracy_entrenamiento:.3f}\n"
            f"Accuracy de validación:    {self.accuracy_validacion:.3f}\n"
            f"Segundos: {self.segundos:.2f}"
        )


@dataclass
class Historial(ComoTabla):
    """Lo que pasó en un entrenamiento: métricas por punto de registro y tiempo total. Lección 05.

    ``epocas_registradas``: las épocas en que se midió (1, 10, 20...), una por elemento de las
    listas de métricas; ``epocas_totales``: cuántas épocas tiene el entrenamiento.
    """

    epocas_registradas: list[int] = field(default_factory=list)
    perdida_entrenamiento: list[float] = field(default_factory=list)
    perdida_validacion: list[float] = field(default_factory=list)
    accuracy_entrenamiento: list[float] = field(default_factory=list)
    accuracy_validacion: list[float] = field(default_factory=list)
    segundos: float = 0.0
    dispositivo: str = "cpu"
    epocas_totales: int = 0
    reanudado_desde: int | None = None  # última época del checkpoint del que se siguió
    avisos: list[str] = field(default_factory=list)  # p. ej. «Reanudo desde…»: entrenar no imprime
    # Entrenado en la GPU simulada: el tiempo es de la CPU (lo dicen el título y la gráfica). Lo decide
    # el dispositivo al crearlo, y va al checkpoint: quien lo reanude en una GPU de verdad lo sabrá.
    simulada: bool | None = None

    def __post_init__(self) -> None:
        if self.simulada is None:
            self.simulada = dispositivo_simulado(self.dispositivo)

    def continuar_en(self, dispositivo, epocas_totales: int) -> None:
        """Al reanudar un checkpoint: el dispositivo y las épocas de esta sesión. Si esta sesión es la GPU
        simulada, el historial lo dice (sus segundos suman tiempo de la CPU), aunque empezara en la CPU;
        si lo fue la anterior y esta no, un aviso dice cuántos segundos son de la GPU simulada."""
        self.dispositivo, self.epocas_totales = str(dispositivo), epocas_totales
        ahora = dispositivo_simulado(self.dispositivo)
        if self.simulada and not ahora and self.segundos > 0:
            self.avisos.append(f"Los primeros {self.segundos:.2f} s se midieron en la GPU simulada: "
                               "son tiempos de la CPU.")
        self.simulada = ahora

    def agregar(self, registro: Registro) -> None:
        self.epocas_registradas.append(registro.epoca)
        self.perdida_entrenamiento.append(registro.perdida_entrenamiento)
        self.perdida_validacion.append(registro.perdida_validacion)
        self.accuracy_entrenamiento.append(registro.accuracy_entrenamiento)
        self.accuracy_validacion.append(registro.accuracy_validacion)

    def registros(self) -> list[Registro]:
        return [
            Registro(e, self.epocas_totales, pe, pv, ae, av, self.segundos)
            for e, pe, pv, ae, av in zip(self.epocas_registradas, self.perdida_entrenamiento, self.perdida_validacion,
                                         self.accuracy_entrenamiento, self.accuracy_validacion)
        ]

    @property
    def final(self) -> Registro | None:
        """Las métricas al terminar (el último punto de registro)."""
        registros = self.registros()
        return registros[-1] if registros else None

    def a_dict(self) -> dict:
        """Solo listas, números y texto: se guarda en un checkpoint con ``weights_only=True``."""
        return asdict(self)

    @classmethod
    def desde_dict(cls, datos: dict) -> "Historial":
        datos = dict(datos)
        if "epocas" in datos:  # los checkpoints de antes llamaban «epocas» a la lista de épocas registradas
            datos["epocas_registradas"] = datos.pop("epocas")
        return cls(**datos)

    def tabla(self) -> Tabla:
        """Las métricas como ``Tabla``: una fila por punto de registro; los avisos, debajo."""
        reanudado = f" (reanudado tras la época {self.reanudado_desde})" if self.reanudado_desde else ""
        titulo = marcar_simulada(f"Entrenamiento en {self.dispositivo}: {contar(self.epocas_totales, 'época')} en "
                                 f"{self.segundos:.2f} s{reanudado}", self.simulada)
        filas = [[r.epoca, f"{r.perdida_entrenamiento:.4f}", f"{r.perdida_validacion:.4f}",
                  f"{r.accuracy_entrenamiento:.3f}", f"{r.accuracy_validacion:.3f}"] for r in self.registros()]
        return Tabla(titulo, ["época", "pérdida ent.", "pérdida val.", "acc. ent.", "acc. val."], filas,
                     notas=list(self.avisos))


@dataclass
class Prediccion(ComoTabla):
    """La clase que predice el modelo y la probabilidad de cada una. Lección 05."""

    clase: str
    probabilidades: dict[str, float]

    def tabla(self) -> Tabla:
        """La clase predicha y una fila por clase con su probabilidad (una barra en el notebook)."""
        filas = [[n, Celda(f"{p:.2f}", barra=p)] for n, p in self.probabilidades.items()]
        return Tabla(f"Predicción: {self.clase}", [], filas)
