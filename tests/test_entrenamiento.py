"""Lección 05: entrenar, evaluar y predecir en el dispositivo elegido."""

from __future__ import annotations

import math
import sys

import pytest
import torch
from torch import nn

from curso_gpu.guardado import CarpetaCheckpoints, CarpetaNoEscribible
from curso_gpu.entrenamiento import generar_dataset, generar_datos_tabulares, lineas_dibujadas
from curso_gpu.entrenamiento import (
    DispositivosDistintos,
    Historial,
    Prediccion,
    Registro,
    calcular_accuracy,
    entrenar,
    evaluar,
    predecir,
)
from curso_gpu.entrenamiento import CNNPequena, MLPTabular

ENT = generar_dataset(40, semilla=1)
VAL = generar_dataset(20, semilla=2)


def _modelo(semilla=0, **kw):
    torch.manual_seed(semilla)
    return CNNPequena(**kw)


def _iguales(a: nn.Module, b: nn.Module) -> bool:
    return all(torch.equal(x, y) for x, y in zip(a.state_dict().values(), b.state_dict().values()))


@pytest.fixture(scope="module")
def entrenado():
    modelo = _modelo()
    historial = entrenar(modelo, ENT, VAL, "cpu", epocas=80, silencioso=True)
    return modelo, historial


# --- Entrenar ---------------------------------------------------------------------------------

def test_la_cnn_aprende_a_distinguir_las_lineas(entrenado):
    modelo, historial = entrenado
    assert historial.accuracy_validacion[0] < 0.6  # al principio, casi al azar (1/3)
    assert historial.final.accuracy_validacion >= 0.95
    assert historial.final.perdida_entrenamiento < historial.perdida_entrenamiento[0] / 10


def test_metricas_en_la_epoca_1_cada_10_y_la_ultima():
    registros, avances = [], []
    historial = entrenar(_modelo(), ENT, VAL, "cpu", epocas=25, silencioso=True,
                         al_registrar=registros.append, al_avanzar=lambda e, t: avances.append((e, t)))
    assert historial.epocas_registradas == [1, 10, 20, 25]
    assert [r.epoca for r in registros] == [1, 10, 20, 25]
    assert all(isinstance(r, Registro) and r.epocas_totales == 25 for r in registros)
    assert avances == [(e, 25) for e in range(1, 26)]
    assert historial.final.epoca == 25 and historial.final == historial.registros()[-1]
    assert historial.segundos > 0 and historial.dispositivo == "cpu"
    segundos = [r.segundos for r in registros]
    assert segundos == sorted(segundos) and segundos[-1] <= historial.segundos


def test_historial_se_lee_como_un_informe(entrenado):
    _, historial = entrenado
    texto = str(historial)
    assert texto.startswith("Entrenamiento en cpu: 80 épocas en")
    assert "pérdida val." in texto and len(texto.splitlines()) == 2 + len(historial.epocas_registradas)
    assert "<table>" in historial._repr_html_()
    assert "Accuracy de validación" in str(historial.final)
    assert Historial.desde_dict(historial.a_dict()) == historial


def test_misma_semilla_y_dispositivo_mismo_resultado():
    a, b = _modelo(3), _modelo(3)
    ha = entrenar(a, ENT, VAL, "cpu", epocas=15, semilla=7, silencioso=True)
    hb = entrenar(b, ENT, VAL, "cpu", epocas=15, semilla=7, silencioso=True)
    assert _iguales(a, b)
    assert ha.perdida_validacion == hb.perdida_validacion


def test_con_lotes_misma_semilla_mismo_resultado_y_otra_semilla_otro():
    a, b, c = _modelo(3), _modelo(3), _modelo(3)
    for modelo, semilla in ((a, 7), (b, 7), (c, 8)):
        entrenar(modelo, ENT, VAL, "cpu", epocas=4, tamano_lote=16, semilla=semilla, silencioso=True)
    assert _iguales(a, b)
    assert not _iguales(a, c)  # otra semilla, otro orden de lotes


def test_con_lotes_tambien_aprende():
    historial = entrenar(_modelo(), ENT, VAL, "cpu", epocas=20, tamano_lote=32, semilla=0, silencioso=True)
    assert historial.final.accuracy_validacion >= 0.9


@pytest.mark.lento  # entrena de verdad varias épocas
def test_sin_sincronizar_con_la_cpu_en_cada_paso(monkeypatch):
    """Nuestro código solo lee números (``.item()``/``.tolist()``) en los puntos de registro:
    4 lecturas en 25 épocas (1, 10, 20, 25), más una por conjunto de datos al comprobarlos,
    antes del bucle. Las de torch.optim sobre su contador de pasos (un tensor de CPU) no
    esperan a la GPU y no cuentan."""
    lecturas = []
    item, tolist = torch.Tensor.item, torch.Tensor.tolist

    def desde_curso_gpu():
        return sys._getframe(2).f_globals.get("__name__", "").startswith("curso_gpu")

    def contar_item(self):
        if desde_curso_gpu():
            lecturas.append("item")
        return item(self)

    def contar_tolist(self):
        if desde_curso_gpu():
            lecturas.append("tolist")
        return tolist(self)

    modelo = _modelo()
    monkeypatch.setattr(torch.Tensor, "item", contar_item)
    monkeypatch.setattr(torch.Tensor, "tolist", contar_tolist)
    entrenar(modelo, ENT, VAL, "cpu", epocas=25, silencioso=True)
    entrenar(modelo, ENT, VAL, "cpu", epocas=25, tamano_lote=30, silencioso=True)
    monkeypatch.undo()
    assert lecturas.count("tolist") == 2 * (4 + 2)  # dos entrenamientos: 4 registros + 2 comprobaciones
    assert lecturas.count("item") == 1  # con lotes: la semilla del barajado, una vez antes del bucle


def test_barra_de_progreso_en_terminal(capsys):
    entrenar(_modelo(), ENT, VAL, "cpu", epocas=3)
    error = capsys.readouterr().err
    assert "Entrenando en cpu" in error and "3/3" in error


def test_entrenar_no_imprime_y_un_al_avanzar_propio_sustituye_a_la_barra(capsys):
    pasos = []
    entrenar(_modelo(), ENT, VAL, "cpu", epocas=3, al_avanzar=lambda e, t: pasos.append((e, t)))
    assert pasos == [(1, 3), (2, 3), (3, 3)]
    assert capsys.readouterr() == ("", "")


def test_silencioso_no_escribe_nada(capsys):
    entrenar(_modelo(), ENT, VAL, "cpu", epocas=3, silencioso=True)
    assert capsys.readouterr() == ("", "")


def test_la_misma_funcion_entrena_la_red_tabular_binaria():
    torch.manual_seed(0)
    ent, val = generar_datos_tabulares(400, semilla=1), generar_datos_tabulares(200, semilla=2)
    modelo = MLPTabular()
    historial = entrenar(modelo, ent, val, "cpu", epocas=150, lr=0.02, criterio=nn.BCEWithLogitsLoss(),
                         silencioso=True)
    assert historial.final.accuracy_validacion >= 0.9


@pytest.mark.lento  # dos entrenamientos largos
def test_receta_variada_acierta_mas_lineas_dibujadas_que_la_del_texto_base():
    """Por qué importa la receta: la receta «semilla» nunca vio bordes, líneas cortas ni diagonales desplazadas."""
    X, y = lineas_dibujadas()
    accuracy = {}
    for receta in ("semilla", "variada"):
        modelo = _modelo(0)
        entrenar(modelo, generar_dataset(120, semilla=10, receta=receta),
                 generar_dataset(60, semilla=100, receta=receta), "cpu", silencioso=True)
        accuracy[receta] = evaluar(modelo, X, y, "cpu")[1]
    assert accuracy["variada"] >= 0.97
    assert accuracy["semilla"] <= accuracy["variada"] - 0.05


# --- Errores claros ---------------------------------------------------------------------------

@pytest.mark.parametrize("epocas", [0, -5, 2.5, True])
def test_epocas_menor_que_1_da_error_claro(epocas):
    with pytest.raises(ValueError, match=r"epocas debe ser un entero mayor o igual que 1; recibí"):
        entrenar(_modelo(), ENT, VAL, "cpu", epocas=epocas)


@pytest.mark.parametrize("lr", [0, -0.01, math.nan, math.inf, "0.01"])
def test_lr_no_positivo_da_error_claro(lr):
    with pytest.raises(ValueError, match=r"lr debe ser un número mayor que 0; recibí"):
        entrenar(_modelo(), ENT, VAL, "cpu", lr=lr)


def test_tamano_de_lote_y_datos_mal_formados():
    with pytest.raises(ValueError, match="tamano_lote"):
        entrenar(_modelo(), ENT, VAL, "cpu", tamano_lote=0)
    with pytest.raises(ValueError, match="mismo número de ejemplos"):
        entrenar(_modelo(), (ENT[0], ENT[1][:5]), VAL, "cpu")
    with pytest.raises(ValueError, match="tupla"):
        entrenar(_modelo(), ENT[0], VAL, "cpu")


def test_carpeta_de_checkpoints_sin_permiso_falla_antes_de_entrenar(tmp_path):
    archivo = tmp_path / "no_soy_carpeta"
    archivo.write_text("x")
    pasos = []
    with pytest.raises(ValueError, match=r"checkpoints .*no_soy_carpeta: es un archivo, no una carpeta"):
        entrenar(_modelo(), ENT, VAL, "cpu", checkpoints=archivo, al_avanzar=lambda e, t: pasos.append(e),
                 silencioso=True)
    malo = CarpetaCheckpoints(archivo / "ckpt", archivo / "ckpt", cada=5)  # sin pasar por comprobar_destino
    with pytest.raises(CarpetaNoEscribible, match="No puedo escribir checkpoints"):
        entrenar(_modelo(), ENT, VAL, "cpu", checkpoints=malo, al_avanzar=lambda e, t: pasos.append(e),
                 silencioso=True)
    assert pasos == []  # ni una época


@pytest.mark.parametrize("nombre", ["al_registrar", "al_avanzar"])
def test_una_funcion_que_no_es_funcion_falla_al_entrar(nombre):
    modelo = _modelo()
    antes = {k: v.clone() for k, v in modelo.state_dict().items()}
    with pytest.raises(ValueError, match=rf"{nombre} debe ser una función \(o None\); recibí 42\. Por ejemplo, {nombre}=print"):
        entrenar(modelo, ENT, VAL, "cpu", epocas=1, silencioso=True, **{nombre: 42})
    assert all(torch.equal(antes[k], v) for k, v in modelo.state_dict().items())


# --- Evaluar y predecir -----------------------------------------------------------------------

class _Espia(nn.Module):
    """Recuerda en qué modo y con qué gradientes se le llamó."""

    def __init__(self):
        super().__init__()
        self.lineal = nn.Linear(64, 3)
        self.visto = []

    def forward(self, x):
        self.visto.append((self.training, torch.is_grad_enabled()))
        return self.lineal(x.flatten(1))


def test_evaluar_usa_eval_y_no_grad_y_devuelve_el_modo():
    espia = _Espia()
    espia.train()
    perdida, accuracy = evaluar(espia, VAL[0], VAL[1], "cpu")
    assert espia.visto and set(espia.visto) == {(False, False)}  # también la prueba con dos ejemplos
    assert espia.training  # vuelve al modo de entrenamiento
    assert espia.lineal.weight.grad is None
    esperada = nn.functional.cross_entropy(espia.lineal(VAL[0].flatten(1)), VAL[1]).item()
    assert perdida == pytest.approx(esperada, rel=1e-6)
    assert 0 <= accuracy <= 1


def test_evaluar_coincide_con_el_historial(entrenado):
    modelo, historial = entrenado
    perdida, accuracy = evaluar(modelo, *VAL, "cpu")
    assert perdida == pytest.approx(historial.final.perdida_validacion, rel=1e-5)
    assert accuracy == pytest.approx(historial.final.accuracy_validacion)


def test_modelo_y_datos_en_dispositivos_distintos_dice_cuales_y_como_arreglarlo():
    modelo = _modelo().to("meta")  # un dispositivo de verdad distinto de la CPU, sin GPU
    with pytest.raises(DispositivosDistintos) as error:
        evaluar(modelo, *VAL, "cpu")
    mensaje = str(error.value)
    assert "'meta'" in mensaje and "'cpu'" in mensaje and "modelo.to(" in mensaje
    assert isinstance(error.value, ValueError)
    with pytest.raises(DispositivosDistintos, match="'meta'"):
        predecir(modelo, torch.zeros(8, 8), "cpu")


def test_calcular_accuracy():
    logits = torch.tensor([[2.0, 0.1, 0.0], [0.0, 3.0, 0.0], [0.0, 0.0, -1.0]])
    assert calcular_accuracy(logits, torch.tensor([0, 1, 1])) == pytest.approx(2 / 3)
    assert calcular_accuracy(torch.tensor([1.5, -0.2, 0.3]), torch.tensor([1.0, 0.0, 0.0])) == pytest.approx(2 / 3)


def test_predecir_una_linea_vertical(entrenado):
    modelo, _ = entrenado
    imagen = [[1 if c == 4 else 0 for c in range(8)] for _ in range(8)]  # lista de listas
    prediccion = predecir(modelo, imagen, "cpu")
    assert isinstance(prediccion, Prediccion) and prediccion.clase == "vertical"
    assert list(prediccion.probabilidades) == ["vertical", "horizontal", "oblicua"]
    assert sum(prediccion.probabilidades.values()) == pytest.approx(1)
    assert str(prediccion).startswith("Predicción: vertical\n  vertical ")
    assert predecir(modelo, torch.eye(8)[None, None], "cpu").clase == "oblicua"


@pytest.mark.parametrize("forma", [(8,), (7, 8), (2, 8, 8), (1, 1, 8, 9)])
def test_predecir_con_forma_incorrecta_da_error_claro(entrenado, forma):
    with pytest.raises(ValueError, match=r"8×8.*recibí la forma"):
        predecir(entrenado[0], torch.zeros(forma), "cpu")


@pytest.mark.parametrize("valor", [1.5, -0.1, math.nan, 255.0])
def test_predecir_con_valores_fuera_de_0_a_1_da_error_claro(entrenado, valor):
    imagen = torch.zeros(8, 8)
    imagen[0, 0] = valor
    with pytest.raises(ValueError, match="entre 0 y 1"):
        predecir(entrenado[0], imagen, "cpu")


def test_predecir_con_algo_que_no_es_una_imagen(entrenado):
    with pytest.raises(ValueError, match="8×8"):
        predecir(entrenado[0], "vertical", "cpu")
