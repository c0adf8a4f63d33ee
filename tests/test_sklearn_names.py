"""scikit-learn's habits: its metric function names and scorer strings name fastmetrics measures
and give scikit-learn's numbers (its own functions and scorers are the oracles); ``zero_division=``
points to ``undefined=``; an undefined value warns once per call, as ``UndefinedMetricWarning``."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import sklearn.metrics as skm
from sklearn.linear_model import LogisticRegression

import fastmetrics as fm
from fastmetrics.measures import registry
from fastmetrics.sklearn import make_scorer

RNG = np.random.default_rng(46)
N = 300
Y_BIN = RNG.integers(0, 2, N)
P_BIN = np.where(RNG.random(N) < 0.75, Y_BIN, 1 - Y_BIN)
S_BIN = np.clip(Y_BIN * 0.3 + RNG.random(N) * 0.7, 0, 1)
Y_MC = RNG.integers(0, 4, N)
P_MC = np.where(RNG.random(N) < 0.6, Y_MC, RNG.integers(0, 4, N))

# scikit-learn's metric function -> (the registry measure it names, what fm.score is given)
FUNCTIONS = {
    "accuracy_score": ("accuracy", "pred"),
    "balanced_accuracy_score": ("balanced_accuracy", "pred"),
    "cohen_kappa_score": ("cohen_kappa", "pred"),
    "f1_score": ("f1", "pred"),
    "fbeta_score": ("fbeta", "pred"),
    "hamming_loss": ("error_rate", "pred"),
    "jaccard_score": ("jaccard", "pred"),
    "matthews_corrcoef": ("mcc", "pred"),
    "precision_score": ("precision", "pred"),
    "recall_score": ("recall", "pred"),
    "zero_one_loss": ("error_rate", "pred"),
    "roc_auc_score": ("roc_auc", "score"),
    "average_precision_score": ("average_precision", "score"),
    "brier_score_loss": ("brier", "score"),
}


@pytest.mark.parametrize("function", sorted(FUNCTIONS))
def test_a_metric_function_name_is_an_alias_with_scikit_learns_value(function):
    measure, given = FUNCTIONS[function]
    assert registry.get(function).name == measure
    oracle = getattr(skm, function)
    if given == "pred":
        kwargs = {"beta": 2.0} if function == "fbeta_score" else {}
        spec = "fbeta_score(beta=2)" if function == "fbeta_score" else function
        ours = fm.score(Y_BIN, P_BIN, measures=[spec])
        expected = oracle(Y_BIN, P_BIN, **kwargs)
    else:
        ours = fm.score(Y_BIN, y_score=S_BIN, measures=[function])
        expected = oracle(Y_BIN, S_BIN)
    assert float(ours.values.reshape(-1)[0]) == pytest.approx(expected, abs=1e-12)


def test_every_metric_function_that_names_a_measure_is_an_alias():
    """scikit-learn's classification metric functions of one number per set of predictions: each
    maps to the registry (a new one in scikit-learn is added here, with its measure, or below)."""
    without = {  # not a measure of the catalog: clustering, regression, ranking, or several numbers
        "hinge_loss",
        "log_loss",
        "d2_log_loss_score",
        "d2_brier_score",
        "class_likelihood_ratios",
        "dcg_score",
        "ndcg_score",
        "coverage_error",
        "label_ranking_average_precision_score",
        "label_ranking_loss",
    }
    classification = [n for n in dir(skm) if n in FUNCTIONS or n in without or n == "top_k_accuracy_score"]
    for name in classification:
        if name not in without:
            assert registry.is_known(name), name
    assert registry.get("top_k_accuracy_score").name == "top_k_accuracy"


SCORERS = [
    "accuracy",
    "balanced_accuracy",
    "matthews_corrcoef",
    *(f"{m}_{a}" for m in ("f1", "precision", "recall", "jaccard") for a in ("macro", "micro", "weighted")),
]


@pytest.mark.parametrize("name", SCORERS)
def test_a_scorer_string_of_hard_predictions_gives_scikit_learns_score(name):
    """Multiclass predictions through the estimator API: our scorer and scikit-learn's of the
    same string agree (the averaging is read from the string)."""
    X = np.column_stack([Y_MC + RNG.normal(0, 1.2, N), RNG.normal(size=N)])
    model = LogisticRegression(max_iter=500).fit(X, Y_MC)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", fm.UndefinedMeasureWarning)
        ours = make_scorer(name, undefined=0.0)(model, X, Y_MC)
    assert ours == pytest.approx(skm.get_scorer(name)(model, X, Y_MC), abs=1e-12)
    assert fm.score(Y_MC, P_MC, measures=[name], undefined=0).values[0] == pytest.approx(
        skm.get_scorer(name)._score_func(Y_MC, P_MC, **skm.get_scorer(name)._kwargs), abs=1e-12
    )


@pytest.mark.parametrize("name", ["roc_auc", "average_precision", "neg_brier_score"])
def test_a_binary_scorer_string_gives_scikit_learns_score(name):
    X = np.column_stack([S_BIN, RNG.normal(size=N)])
    model = LogisticRegression().fit(X, Y_BIN)
    assert make_scorer(name)(model, X, Y_BIN) == pytest.approx(skm.get_scorer(name)(model, X, Y_BIN), abs=1e-12)


@pytest.mark.parametrize("name", ["roc_auc_ovr", "roc_auc_ovr_weighted", "roc_auc_ovo", "roc_auc_ovo_weighted"])
def test_a_multiclass_roc_auc_scorer_string_gives_scikit_learns_score(name):
    X = np.column_stack([Y_MC + RNG.normal(0, 1.5, N), RNG.normal(size=N)])
    model = LogisticRegression(max_iter=500).fit(X, Y_MC)
    expected = skm.get_scorer(name)(model, X, Y_MC)
    assert make_scorer(name)(model, X, Y_MC) == pytest.approx(expected, abs=1e-9)


def test_scorer_strings_that_are_more_than_a_spec_say_what_to_write():
    with pytest.raises(fm.ParameterError, match=r"reports brier itself.*ask for 'brier'"):
        fm.score(Y_BIN, y_score=S_BIN, measures=["neg_brier_score"])
    with pytest.raises(fm.ParameterError, match="multiclass='ovo'"):
        fm.score(Y_BIN, y_score=S_BIN, measures=["roc_auc_ovo"])
    with pytest.raises(fm.UnknownMeasureError, match="no_such_macro"):
        fm.score(Y_BIN, P_BIN, measures=["no_such_macro"])


@pytest.mark.parametrize(
    "call",
    [
        lambda: fm.score([0, 1, 1], [0, 1, 0], measures=["f1"], zero_division=0),
        lambda: fm.compute("f1", 1, 0, 0, 1, zero_division=0),
        lambda: fm.count(
            __import__("pyarrow").table({"system": ["a"], "topic": ["t"], "item": [1], "gold": [1], "pred": [1]})
        ).evaluate(["f1"], zero_division=0),
    ],
)
def test_zero_division_points_to_undefined(call):
    with pytest.raises(fm.ParameterError, match=r"zero_division= \(scikit-learn's option\).*undefined=0"):
        call()


def test_an_undefined_value_warns_once_per_call_with_counts_measures_and_the_way_out():
    y_true = [0, 0, 1, 1, 0, 1]
    y_pred = [0, 0, 0, 0, 0, 0]  # nothing predicted positive: precision is 0/0 in both groups
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        s = fm.score(y_true, y_pred, measures=["precision", "npv", "f1"], groups={"g": [1, 1, 1, 2, 2, 2]})
    undefined = [w for w in caught if issubclass(w.category, fm.UndefinedMeasureWarning)]
    assert len(undefined) == 1, [str(w.message) for w in caught]
    message = str(undefined[0].message)
    assert "precision in 2 of 2 cell(s)" in message and "tp + fp = 0" in message
    assert "npv" not in message and "undefined=0" in message and "zero_division=0" in message
    assert np.isnan(s["precision"]).all()
    assert undefined[0].filename == __file__  # points at the caller's line


def test_no_warning_where_a_number_is_chosen_or_nothing_is_undefined():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert float(fm.score([0, 1], [0, 0], measures=["precision"], undefined=0)["precision"]) == 0.0
        fm.score([0, 1], [0, 1], measures=["precision", "f1"])
        fm.score([0, 1], [0, 0], measures=["precision"], warn=False)
