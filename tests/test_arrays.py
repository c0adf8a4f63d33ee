"""``fm.score(y_true, y_pred | y_score)`` and ``fm.sklearn.make_scorer`` against scikit-learn."""

from __future__ import annotations

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest
from sklearn import metrics as skm
from sklearn.datasets import load_breast_cancer, load_iris
from sklearn.dummy import DummyClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import fastmetrics as fm


def _binary(seed=0, n=300):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    score = y * 0.6 + rng.random(n)
    return y, (score > 0.8).astype(int), score, rng.uniform(0.2, 2.0, n)


@pytest.mark.parametrize("weighted", [False, True])
def test_binary_measures_equal_scikit_learn(weighted):
    y, pred, _, w = _binary()
    w = w if weighted else None
    s = fm.score(y, pred, measures=["precision", "recall", "f1", "fbeta(beta=2)", "accuracy", "mcc"], sample_weight=w)
    assert float(s["precision"]) == pytest.approx(skm.precision_score(y, pred, sample_weight=w), abs=1e-12)
    assert float(s["recall"]) == pytest.approx(skm.recall_score(y, pred, sample_weight=w), abs=1e-12)
    assert float(s["f1"]) == pytest.approx(skm.f1_score(y, pred, sample_weight=w), abs=1e-12)
    assert float(s["fbeta(beta=2)"]) == pytest.approx(skm.fbeta_score(y, pred, beta=2, sample_weight=w), abs=1e-12)
    assert float(s["accuracy"]) == pytest.approx(skm.accuracy_score(y, pred, sample_weight=w), abs=1e-12)
    assert float(s["mcc"]) == pytest.approx(skm.matthews_corrcoef(y, pred, sample_weight=w), abs=1e-12)


def test_scores_give_exact_areas():
    y, _, score, w = _binary(1)
    s = fm.score(y, y_score=score, sample_weight=w)
    assert s.measures == ("roc_auc", "average_precision")
    assert float(s["roc_auc"]) == pytest.approx(skm.roc_auc_score(y, score, sample_weight=w), abs=1e-12)
    assert float(s["average_precision"]) == pytest.approx(
        skm.average_precision_score(y, score, sample_weight=w), abs=1e-12
    )


def test_multiclass_measures_equal_scikit_learn():
    rng = np.random.default_rng(2)
    y = rng.choice(["cat", "dog", "eel"], 400)
    pred = np.where(rng.random(400) < 0.6, y, rng.choice(["cat", "dog", "eel"], 400))
    s = fm.score(y, pred)
    assert float(s["accuracy"]) == pytest.approx(skm.accuracy_score(y, pred))
    assert float(s["balanced_accuracy"]) == pytest.approx(skm.balanced_accuracy_score(y, pred))
    assert float(s["f1@macro"]) == pytest.approx(skm.f1_score(y, pred, average="macro"))
    assert float(s["cohen_kappa"]) == pytest.approx(skm.cohen_kappa_score(y, pred))
    assert float(s["mcc"]) == pytest.approx(skm.matthews_corrcoef(y, pred))
    weighted = fm.score(y, pred, measures="f1", average="weighted")
    assert float(weighted["f1"]) == pytest.approx(skm.f1_score(y, pred, average="weighted"))


def test_every_array_form_and_groups_as_axes():
    y, pred, _, _ = _binary(3, n=120)
    fold = np.repeat(["a", "b", "c"], 40)
    expected = [skm.f1_score(y[fold == f], pred[fold == f]) for f in "abc"]
    for yt, yp in [
        (y.tolist(), pred.tolist()),
        (pd.Series(y), pd.Series(pred)),
        (pl.Series(y), pl.Series(pred)),
        (pa.array(y), pa.chunked_array([pa.array(pred)])),
    ]:
        s = fm.score(yt, yp, measures="f1", groups={"fold": fold})
        assert s.axes == ("fold",) and list(s.coords["fold"]) == ["a", "b", "c"]
        np.testing.assert_allclose(s["f1"], expected, atol=1e-12)
    frame = pd.DataFrame({"fold": fold, "half": np.tile([0, 1], 60)})
    s = fm.score(y, pred, measures="f1", groups=frame)
    assert s.axes == ("fold", "half")
    m = (fold == "b") & (frame["half"].to_numpy() == 1)
    assert s["f1"][1, 1] == pytest.approx(skm.f1_score(y[m], pred[m]))


def test_pos_label_for_string_labels():
    y = np.array(["spam", "ham", "spam", "ham", "spam"])
    pred = np.array(["spam", "spam", "ham", "ham", "spam"])
    s = fm.score(y, pred, measures="recall", pos_label="spam")
    assert float(s["recall"]) == pytest.approx(skm.recall_score(y, pred, pos_label="spam"))
    with pytest.raises(fm.InputError, match="pos_label='eggs'"):
        fm.score(y, pred, pos_label="eggs")


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"y_true": [0, 1]}, fm.ParameterError, "exactly one"),
        ({"y_true": [0, 1], "y_pred": [0, 1], "y_score": [0.1, 0.2]}, fm.ParameterError, "exactly one"),
        ({"y_true": [0, 1, 1], "y_pred": [0, 1]}, fm.InputError, "y_pred has 2 values; y_true has 3"),
        ({"y_true": [0, 1], "y_pred": [0, 1], "sample_weight": [1.0]}, fm.InputError, "sample_weight has 1"),
        ({"y_true": [0, 1], "y_pred": [0, 1], "groups": {"g": [1]}}, fm.InputError, r"groups\['g'\] has 1"),
        ({"y_true": [0, 1], "y_pred": [0, 1], "groups": {"y_true": [1, 1]}}, fm.ParameterError, "y_true"),
        ({"y_true": [0, 1], "y_pred": [0, 1], "measures": "nope"}, fm.UnknownMeasureError, "nope"),
    ],
)
def test_bad_calls_say_what_is_wrong(kwargs, error, match):
    y_true = kwargs.pop("y_true")
    with pytest.raises(error, match=match):
        fm.score(y_true, **kwargs)


def test_make_scorer_in_grid_search_matches_scikit_learn():
    X, y = load_breast_cancer(return_X_y=True)
    X = X[:, :5]
    # standardised features: lbfgs converges in a few dozen iterations instead of thousands
    model = make_pipeline(StandardScaler(), LogisticRegression())
    ours = cross_val_score(model, X, y, cv=3, scoring=fm.sklearn.make_scorer("mcc"))
    theirs = cross_val_score(model, X, y, cv=3, scoring="matthews_corrcoef")
    np.testing.assert_allclose(ours, theirs, atol=1e-12)
    auc = cross_val_score(model, X, y, cv=3, scoring=fm.sklearn.make_scorer("roc_auc"))
    np.testing.assert_allclose(auc, cross_val_score(model, X, y, cv=3, scoring="roc_auc"), atol=1e-12)
    grid = {"logisticregression__C": [0.001, 0.01, 1.0]}
    search = GridSearchCV(model, grid, cv=3, scoring=fm.sklearn.make_scorer("mcc")).fit(X, y)
    reference = GridSearchCV(model, grid, cv=3, scoring="matthews_corrcoef").fit(X, y)
    np.testing.assert_allclose(
        search.cv_results_["mean_test_score"], reference.cv_results_["mean_test_score"], atol=1e-12
    )
    assert search.best_params_ == reference.best_params_


def test_make_scorer_direction_and_undefined_policy():
    X, y = load_iris(return_X_y=True)
    model = LogisticRegression(max_iter=2000).fit(X, y)
    y01 = (y == 1).astype(int)
    binary = LogisticRegression(max_iter=2000).fit(X, y01)
    error_rate = fm.sklearn.make_scorer("error_rate")  # lower is better: scikit-learn negates it
    assert error_rate(binary, X, y01) == pytest.approx(-(1 - skm.accuracy_score(y01, binary.predict(X))))
    macro = fm.sklearn.make_scorer("f1@macro")
    assert macro(model, X, y) == pytest.approx(skm.f1_score(y, model.predict(X), average="macro"))

    constant = DummyClassifier(strategy="constant", constant=0).fit(X, y01)  # MCC undefined
    with pytest.warns(fm.UndefinedMeasureWarning, match="mcc in 1 of 1 cell"):  # NaN, said once, as scikit-learn does
        assert np.isnan(fm.sklearn.make_scorer("mcc")(constant, X, y01))
    assert fm.sklearn.make_scorer("mcc", undefined=-1.0)(constant, X, y01) == -1.0
    with pytest.raises(fm.ParameterError, match="one measure"):
        fm.sklearn.make_scorer("f1,mcc")
    with pytest.raises(fm.ParameterError, match="ranked lists"):
        fm.sklearn.make_scorer("ranked_ap")


def test_make_scorer_reads_probabilities_where_the_measure_needs_them():
    from sklearn.datasets import make_classification
    from sklearn.metrics import get_scorer

    X, y = load_iris(return_X_y=True)
    model = LogisticRegression(max_iter=2000)
    for ours, theirs in (("roc_auc@macro", "roc_auc_ovr"), ("roc_auc@weighted", "roc_auc_ovr_weighted")):
        np.testing.assert_allclose(
            cross_val_score(model, X, y, cv=3, scoring=fm.sklearn.make_scorer(ours)),
            cross_val_score(model, X, y, cv=3, scoring=get_scorer(theirs)),
            atol=1e-12,
        )
    Xb, yb = make_classification(300, random_state=0)
    np.testing.assert_allclose(
        cross_val_score(model, Xb, yb, cv=3, scoring=fm.sklearn.make_scorer("brier")),
        cross_val_score(model, Xb, yb, cv=3, scoring="neg_brier_score"),
        atol=1e-12,
    )


def test_zero_weights_binary_probability_matrices_and_string_targets_as_scikit_learn():
    y, pred = [0, 1, 1, 0, 1], [1, 1, 0, 0, 1]
    s = fm.score(y, pred, measures=["f1", "accuracy", "precision"], sample_weight=[0, 1, 1, 0, 2])
    w = [0, 1, 1, 0, 2]
    assert float(s["f1"]) == pytest.approx(skm.f1_score(y, pred, sample_weight=w))
    assert float(s["accuracy"]) == pytest.approx(skm.accuracy_score(y, pred, sample_weight=w))
    assert float(s["precision"]) == pytest.approx(skm.precision_score(y, pred, sample_weight=w))
    with pytest.raises(fm.InputError, match="sample_weight must be finite and >= 0; item 1"):
        fm.score(y, pred, sample_weight=[1, -1, 1, 1, 1])
    yb, _, score, _ = _binary(4)
    proba = np.column_stack([1 - score / 2, score / 2])
    both = fm.score(yb, y_score=proba, measures=["roc_auc", "brier"])
    assert float(both["roc_auc"]) == pytest.approx(skm.roc_auc_score(yb, proba[:, 1]))
    assert float(both["brier"]) == pytest.approx(skm.brier_score_loss(yb, proba[:, 1]))
    names = np.where(yb == 1, "spam", "ham")
    assert float(fm.score(names, y_score=score, measures="roc_auc").values[0]) == pytest.approx(
        skm.roc_auc_score(names, score)
    )
    with pytest.raises(fm.InputError, match="3 labels"):
        fm.score(["a", "b", "c"], y_score=[0.1, 0.2, 0.3])
    with pytest.raises(fm.InputError, match="ragged"):
        fm.score([0, 1], y_score=[[0.1, 0.9], [0.2]])
    wide = pl.DataFrame({"a": [0.7, 0.2, 0.1], "b": [0.2, 0.5, 0.1], "c": [0.1, 0.3, 0.8]})
    assert float(fm.score([0, 1, 2], y_score=wide, measures="accuracy").values[0]) == 1.0


def test_make_scorer_on_string_targets_and_per_class_specs():
    X, y = load_breast_cancer(return_X_y=True)
    X, names = X[:, :5], np.where(y == 1, "benign", "malignant")
    model = LogisticRegression(max_iter=2000)
    np.testing.assert_allclose(
        cross_val_score(model, X, names, cv=3, scoring=fm.sklearn.make_scorer("roc_auc")),
        cross_val_score(model, X, names, cv=3, scoring="roc_auc"),
        atol=1e-12,
    )
    Xi, yi = load_iris(return_X_y=True)
    with pytest.raises(fm.ParameterError, match="one number"):
        fm.sklearn.make_scorer("f1@none")(LogisticRegression(max_iter=2000).fit(Xi, yi), Xi, yi)


@pytest.mark.parametrize("average", ["macro", "weighted"])
def test_class_probabilities_take_the_evaluate_options(average):
    from sklearn.metrics import roc_auc_score

    rng = np.random.default_rng(5)
    y, proba = rng.integers(0, 3, 300), rng.dirichlet(np.ones(3), 300)
    value = fm.score(y, y_score=proba, measures=["roc_auc"], average=average)
    assert float(value.values.ravel()[0]) == pytest.approx(roc_auc_score(y, proba, multi_class="ovr", average=average))
    with pytest.raises(fm.ParameterError, match="ci="):  # a class average's interval is refused, not dropped
        fm.score(y, y_score=proba, measures=["roc_auc"], average=average, ci=0.95)
    # per class, each one-vs-rest AUC carries its interval, around scikit-learn's value
    per_class = fm.score(y, y_score=proba, measures=["roc_auc"], ci=0.95, resamples=200)
    for c in range(3):
        auc = roc_auc_score(y == c, proba[:, c])
        assert float(per_class.values[0, c]) == pytest.approx(auc)
        assert per_class.low[0, c] <= auc <= per_class.high[0, c]


def test_an_option_no_measure_takes_is_refused():
    with pytest.raises(fm.ParameterError, match="'avreage'.*Did you mean: average"):
        fm.score([0, 1, 1, 0], [0, 1, 0, 0], measures=["f1"], avreage="macro")
    with pytest.raises(fm.ParameterError, match="'cost'"):
        fm.score([0, 1, 1, 0], [0, 1, 0, 0], measures=["f1"], cost=np.eye(2))
