"""GPU en la nube: el menú de Colab que da una T4, lo que cuesta una alquilada y olvidarse de apagarla. Lección 02."""

from __future__ import annotations

from dataclasses import dataclass

from .numeros import leer_numero
from .presentacion import formatear_numero

__all__ = [
    "CosteNube", "HORAS_FIN_DE_SEMANA", "HORAS_TOPE", "MENU_COLAB", "PRECIOS_2026", "PRECIO_HORA_MAXIMO",
    "PRECIO_HORA_MINIMO", "PRECIO_HORA_TOPE", "RangoPrecio", "calcular_coste", "coste_olvido",
]

# El camino del menú de Google Colab (interfaz en español) para pedir la T4 gratis. Lo citan
# los avisos del dispositivo, el error de QLoRA sin GPU y la guía de las insignias.
MENU_COLAB = "Entorno de ejecución › Cambiar tipo de entorno de ejecución › GPU T4"
HORAS_FIN_DE_SEMANA = 63  # del viernes a las 18:00 al lunes a las 9:00
HORAS_TOPE = 100 * 365 * 24  # cien años: más es un error de escritura
PRECIO_HORA_TOPE = 1000.0  # $/h: muy por encima de cualquier máquina con GPU; más es un error


@dataclass(frozen=True)
class RangoPrecio:
    """Lo que cuesta por hora, bajo demanda, una clase de GPU en la nube (dólares por hora)."""

    clase: str
    minimo: float
    maximo: float
    fuente: str


# Precios bajo demanda (sin reserva ni instancias interrumpibles), en dólares por hora, de
# una GPU suelta. Cambian cada mes: son rangos para hacer cuentas, no un presupuesto.
PRECIOS_2026: tuple[RangoPrecio, ...] = (
    RangoPrecio(
        "Pequeña o de consumo, 16–24 GB (T4, L4, RTX 3090, RTX 4090)", 0.39, 2.10,
        # RunPod bajo demanda: RTX 3090 0,39; RTX 4090 0,60; L4 0,78 (deploybase.ai,
        # «RunPod GPU Pricing», datos de marzo de 2026). RTX 4090: 0,50–2,10 según proveedor
        # (promptcost.org, «GPU rental pricing… 2026», abril de 2026). Leídos el 3-12-2026.
        "RunPod (marzo de 2026) y promptcost.org (abril de 2026)",
    ),
    RangoPrecio(
        "A100 de 80 GB", 0.80, 4.50,
        # 0,80–3,00 de los proveedores pequeños a los grandes (mercatus-ai.com, «Cloud GPU
        # pricing», mayo de 2026); 2,49–4,50 (promptcost.org, abril de 2026). Leídos el 3-12-2026.
        "mercatus-ai.com (mayo de 2026) y promptcost.org (abril de 2026)",
    ),
    RangoPrecio(
        "H100 de 80 GB", 1.99, 7.20,
        # 1,99–5,00 (mercatus-ai.com, mayo de 2026); 4,29–7,20 (promptcost.org, abril de
        # 2026); RunPod 3,51–4,76 (deploybase.ai, marzo de 2026). Leídos el 3-12-2026.
        "mercatus-ai.com (mayo de 2026), promptcost.org (abril de 2026) y RunPod (marzo de 2026)",
    ),
    RangoPrecio(
        "H200 de 141 GB", 2.50, 7.00,
        # 2,50–7,00 (mercatus-ai.com, mayo de 2026); RunPod 6,35 (deploybase.ai, marzo de 2026).
        "mercatus-ai.com (mayo de 2026) y RunPod (marzo de 2026)",
    ),
)
PRECIO_HORA_MINIMO = min(rango.minimo for rango in PRECIOS_2026)  # 0,39 $/h: la GPU más modesta
PRECIO_HORA_MAXIMO = max(rango.maximo for rango in PRECIOS_2026)  # 7,20 $/h: una H100 en un proveedor caro


def _dolares(valor: float) -> str:
    return formatear_numero(valor, 2, "$")


@dataclass(frozen=True)
class CosteNube:
    """Lo que cobra una GPU en la nube: precio por hora × horas encendida. Lección 02."""

    precio_hora: float  # dólares por hora
    horas: float

    @property
    def total(self) -> float:
        """El coste en dólares."""
        return self.precio_hora * self.horas

    def __str__(self) -> str:
        precio = _dolares(self.precio_hora).replace(" $", " $/h")
        horas = formatear_numero(self.horas)
        return f"{precio} × {horas} h = {_dolares(self.total)}"


def calcular_coste(precio_hora: float, horas: float) -> CosteNube:
    """Cuánto cuesta tener encendida una GPU en la nube: precio por hora × horas. Lección 02.

    La nube cobra por hora de máquina encendida, la uses o no. Por ejemplo,
    ``calcular_coste(0.80, HORAS_FIN_DE_SEMANA)`` es una máquina olvidada un fin de semana.
    """
    return CosteNube(
        leer_numero(precio_hora, "precio_hora", minimo=0, maximo=PRECIO_HORA_TOPE,
                    ejemplo="precio_hora=0.8 (dólares por hora)"),
        leer_numero(horas, "horas", minimo=0, maximo=HORAS_TOPE, ejemplo="horas=2.5 (el tope, 876000 h, son cien años)"),
    )


def coste_olvido(precio_hora: float, horas_usadas: float, horas_olvidada: float = HORAS_FIN_DE_SEMANA) -> tuple[CosteNube, CosteNube]:
    """El coste de lo que usaste y el de lo que pagas por no apagar la máquina. Lección 02.

    Devuelve ``(usado, olvidado)``. Con ``horas_olvidada`` por defecto: un fin de semana.
    """
    return calcular_coste(precio_hora, horas_usadas), calcular_coste(precio_hora, horas_olvidada)
