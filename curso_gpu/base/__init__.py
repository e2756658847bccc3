"""Hechos con su fuente y formato: la capa de abajo, que no habla con la GPU.

- ``catalogo``, ``picos``: GPU (memoria, picos en TFLOP/s) y modelos, con sus fuentes (lecciones 03 y 04).
- ``precisiones``: fp32, tf32, fp16, bf16, fp64, int8, int4: bytes y ``torch.dtype`` (lecciones 03 y 04).
- ``ruedas_cuda``: qué PyTorch con CUDA instalar según el driver y la GPU (lección 01).
- ``mensajes_torch``: los mensajes de error reales de PyTorch que enseñan las lecciones.
- ``proyecto``: la dirección del repositorio para las insignias y la celda de arranque.
- ``presentacion``: tablas (``Tabla``, ``ComoTabla``), números y bytes legibles (``formatear_numero``,
  ``formatear_bytes``) en la terminal y en el notebook.
- ``numeros``: leer lo que escribes: ``3``, ``np.int64(3)``, ``0.8``: ``leer_numero``, el único lector de números.
- ``terminal``: ayuda en español y una salida que no falla en consolas sin UTF-8 ni con tuberías.
- ``progreso``: barras de progreso que dejan una copia fija al cerrarse.
- ``puerta``: la carga perezosa de cada subpaquete.
"""

from .puerta import cargar_perezoso

# Cada nombre público y el módulo donde vive. Se importa al usarlo por primera vez.
CASAS = {
    "GPU": "catalogo",
    "GPUS": "catalogo",
    "MODELOS": "catalogo",
    "MODOS_PICO": "catalogo",
    "Modelo": "catalogo",
    "PicoGPU": "catalogo",
    "RANGOS_PORCENTAJE": "catalogo",
    "ancho_de_banda_conocido": "catalogo",
    "buscar_gpu": "catalogo",
    "buscar_modelo": "catalogo",
    "picos_de": "catalogo",
    "tabla_picos": "catalogo",
    "MENSAJE_OOM_CPU": "mensajes_torch",
    "MENSAJE_OOM_CUDA": "mensajes_torch",
    "MEZCLA_CONVOLUCION": "mensajes_torch",
    "MEZCLA_CONVOLUCION_MODELO_EN_CPU": "mensajes_torch",
    "MEZCLA_LINEAL": "mensajes_torch",
    "MEZCLA_SUMA": "mensajes_torch",
    "SIN_CUDA_COMPILADA": "mensajes_torch",
    "SIN_DRIVER": "mensajes_torch",
    "UNSCALE_FP16": "mensajes_torch",
    "coincide": "mensajes_torch",
    "formato_pytorch": "mensajes_torch",
    "mensaje_sin_memoria": "mensajes_torch",
    "ENTERO_MAXIMO": "numeros",
    "NoEsUnNumero": "numeros",
    "leer_entero": "numeros",
    "leer_numero": "numeros",
    "leer_positivo": "numeros",
    "mostrar_valor": "numeros",
    "MODOS": "picos",
    "normalizar_modo": "picos",
    "pico_teorico": "picos",
    "rango_porcentaje": "picos",
    "PRECISIONES": "precisiones",
    "PRECISIONES_ENTRENAR": "precisiones",
    "Precision": "precisiones",
    "dtype_de": "precisiones",
    "normalizar_precision": "precisiones",
    "Celda": "presentacion",
    "ComoTabla": "presentacion",
    "Tabla": "presentacion",
    "UNIDADES_BYTES": "presentacion",
    "formatear_bytes": "presentacion",
    "formatear_numero": "presentacion",
    "formatear_tiempo": "presentacion",
    "informe_html": "presentacion",
    "informe_texto": "presentacion",
    "tabla_html": "presentacion",
    "tabla_texto": "presentacion",
    "BarraEpocas": "progreso",
    "COLORES_BARRA": "progreso",
    "VISTA_WIDGET": "progreso",
    "barra": "progreso",
    "html_barra": "progreso",
    "PROPIETARIO": "proyecto",
    "RAMA": "proyecto",
    "REPOSITORIO": "proyecto",
    "URL_GITHUB": "proyecto",
    "cargar_perezoso": "puerta",
    "DRIVER_MINIMO_TORCH_PYPI": "ruedas_cuda",
    "INDICE_RUEDAS": "ruedas_cuda",
    "VERSIONES_CUDA": "ruedas_cuda",
    "VersionCUDA": "ruedas_cuda",
    "admite_arquitectura": "ruedas_cuda",
    "comando_instalacion": "ruedas_cuda",
    "cuda_maxima_del_driver": "ruedas_cuda",
    "motivo_sin_rueda": "ruedas_cuda",
    "rueda_para": "ruedas_cuda",
    "AnalizadorArgumentos": "terminal",
    "CODIGO_SALIDA_ROTA": "terminal",
    "CODIGO_TUBERIA_CERRADA": "terminal",
    "DEGRADAR": "terminal",
    "FormatoAyuda": "terminal",
    "TRADUCCIONES": "terminal",
    "ejecutar_orden": "terminal",
    "preparar_salida": "terminal",
    "sabe_escribir": "terminal",
    "salida_rota": "terminal",
    "tipo_entero": "terminal",
}

__all__ = sorted(CASAS)


def __getattr__(nombre: str):
    return cargar_perezoso(__name__, CASAS, nombre, globals())


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(CASAS))
