"""Multiclass measures: registry-driven checks of every record, and differential tests of the
native definitions and of one-vs-rest averaging against scikit-learn and PyCM on random matrices
(classes absent from gold, from predictions, or from both included)."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import fastmetrics as fm
from fastmetrics.measures import registry
from tests.conftest import examples

ALL = registry.names(kind="point")  # curve and ranking measures: tests/measures/test_curves.py
NATIVE = [n for n in ALL if registry.get(n).multiclass is not None]
AVERAGED_ONLY = [n for n in ALL if registry.get(n).multiclass is None]


def quiet(*args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fm.compute(*args, **kw)


def labels_of(c):
    """y_true, y_pred realising the matrix c[i, j] (an independent view for the oracles)."""
    m = c.shape[0]
    true = np.repeat(np.repeat(np.arange(m), m), c.reshape(-1))
    pred = np.repeat(np.tile(np.arange(m), m), c.reshape(-1))
    return true, pred


def random_matrices(seed, m, size=50, high=6, p_zero_class=0.3):
    """Random m x m matrices where whole rows/columns are zeroed now and then (absent classes)."""
    rng = np.random.default_rng(seed)
    c = rng.integers(0, high, size=(size, m, m))
    rows = rng.random((size, m)) < p_zero_class
    cols = rng.random((size, m)) < p_zero_class
    c[rows] = 0
    c.transpose(0, 2, 1)[cols] = 0
    c[c.sum(axis=(1, 2)) == 0, 0, 0] = 1  # keep n > 0
    return c


# --- registry-driven checks ----------------------------------------------------------------------


@pytest.mark.parametrize("name", NATIVE)
def test_native_definition_equals_binary_kernel_on_two_classes(name):
    """Each native gufunc, fed 2x2 matrices, gives the binary kernel's value (same convention)."""
    measure = registry.get(name)
    c = random_matrices(1, 2, size=300).astype(np.float64)
    extra = [1.0 - np.eye(2)] if measure.matrix_params else []
    params = [p.default for p in measure.params]
    with np.errstate(all="ignore"):
        native = measure.multiclass(c, *extra, *params)
    binary = quiet(name, counts=c)
    assert np.allclose(native, binary, rtol=1e-12, atol=1e-12, equal_nan=True)


@pytest.mark.parametrize("name", AVERAGED_ONLY)
def test_no_native_definition_asks_for_an_average(name):
    with pytest.raises(fm.ParameterError, match="no native multiclass definition.*average="):
        fm.compute(name, counts=np.ones((3, 3)))


@pytest.mark.parametrize("name", ALL)
@pytest.mark.parametrize("average", ["micro", "macro", "weighted"])
def test_one_vs_rest_averages_written_out(name, average):
    """Seed 003 §2 with the documented absent-class policy, written out class by class."""
    c = random_matrices(2, 4, size=40)
    got = quiet(name, counts=c, average=average)
    for cell in range(c.shape[0]):
        m = c[cell]
        n = m.sum()
        per = []
        for i in range(4):
            tp = m[i, i]
            fn = m[i].sum() - tp
            fp = m[:, i].sum() - tp
            tn = n - tp - fn - fp
            per.append((tp, fp, fn, tn, m[i].sum(), m[:, i].sum()))
        per = np.array(per, dtype=np.float64)
        if average == "micro":
            expected = quiet(name, *per[:, :4].sum(axis=0))
        else:
            values = np.array([quiet(name, *row[:4]) for row in per])
            if average == "macro":
                keep = (per[:, 4] + per[:, 5]) > 0
                expected = values[keep].mean()
            else:
                keep = per[:, 4] > 0
                expected = (values[keep] * per[keep, 4]).sum() / per[keep, 4].sum()
        assert np.allclose(got[cell], expected, rtol=1e-10, atol=1e-12, equal_nan=True), (cell, got[cell], expected)


def test_average_errors():
    with pytest.raises(fm.ParameterError, match="average"):
        fm.compute("f1", counts=np.ones((3, 3)), average="mean")
    with pytest.raises(fm.ParameterError, match="tp/fp/fn/tn"):
        fm.compute("f1", tp=1, fp=1, fn=1, tn=1, average="macro")
    with pytest.raises(fm.InputError, match=r"\(\.\.\., m, m\)"):
        fm.compute("accuracy", counts=np.ones((3, 4)))
    with pytest.raises(fm.ParameterError, match="Smoothing"):
        fm.compute("mcc", counts=np.ones((3, 3)), smoothing="laplace")


def test_smoothing_applies_to_one_vs_rest():
    c = np.array([[5, 0, 0, 0], [0, 3, 1, 0], [0, 0, 0, 0], [0, 0, 0, 0]])
    per_class = [
        quiet(
            "f1",
            tp=c[i, i],
            fp=c[:, i].sum() - c[i, i],
            fn=c[i].sum() - c[i, i],
            tn=c.sum() - c[i].sum() - c[:, i].sum() + c[i, i],
            smoothing="laplace",
        )
        for i in range(4)
    ]
    got = fm.compute("f1", counts=c, average="macro", smoothing="laplace")
    assert got == pytest.approx(np.mean(per_class[:3]))  # class 3 is in neither labeling


# --- differential tests against scikit-learn ----------------------------------------------------

matrices = st.integers(2, 6).flatmap(
    lambda m: arrays(np.int64, (m, m), elements=st.integers(0, 7)).filter(lambda c: c.sum() > 0)
)


def sk(fn, *args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kw)


@settings(max_examples=examples(150), deadline=None)
@given(matrices)
def test_native_measures_match_scikit_learn(c):
    from sklearn import metrics

    y, p = labels_of(c)
    assert fm.compute("accuracy", counts=c) == pytest.approx(metrics.accuracy_score(y, p))
    assert quiet("balanced_accuracy", counts=c) == pytest.approx(sk(metrics.balanced_accuracy_score, y, p))
    kappa = sk(metrics.cohen_kappa_score, y, p)
    ours = quiet("cohen_kappa", counts=c)
    assert (np.isnan(ours) and np.isnan(kappa)) or ours == pytest.approx(kappa, abs=1e-12)
    mcc = quiet("mcc", counts=c)
    # scikit-learn returns 0 where R_K is 0/0; fastmetrics documents NaN there
    assert (
        mcc == pytest.approx(sk(metrics.matthews_corrcoef, y, p), abs=1e-12)
        if np.isfinite(mcc)
        else sk(metrics.matthews_corrcoef, y, p) == 0.0
    )
    mi = metrics.mutual_info_score(y, p) / np.log(2)
    assert quiet("mutual_information", counts=c) == pytest.approx(mi, abs=1e-12)
    entropy_gold = sk(metrics.mutual_info_score, y, y) / np.log(2)
    prof = quiet("proficiency", counts=c)
    assert np.isnan(prof) if entropy_gold < 1e-12 else prof == pytest.approx(mi / entropy_gold, abs=1e-12)


@settings(max_examples=examples(150), deadline=None)
@given(matrices, st.sampled_from(["micro", "macro", "weighted"]), st.sampled_from([0.0, 1.0]))
def test_averaged_measures_match_scikit_learn(c, average, fill):
    """f1/jaccard/precision/recall one-vs-rest; ``undefined=x`` is scikit-learn's ``zero_division=x``."""
    from sklearn import metrics

    y, p = labels_of(c)
    for name, oracle in (
        ("f1", metrics.f1_score),
        ("jaccard", metrics.jaccard_score),
        ("precision", metrics.precision_score),
        ("recall", metrics.recall_score),
    ):
        expected = sk(oracle, y, p, average=average, zero_division=fill)
        got = fm.compute(name, counts=c, average=average, undefined=fill)
        assert got == pytest.approx(expected, abs=1e-12), (name, average)


def test_f1_and_jaccard_macro_need_no_fill():
    """Over the classes present in gold or prediction tp + fp + fn > 0: always defined."""
    c = np.array([[3, 0, 0], [2, 0, 0], [0, 0, 0]])  # class 1 never predicted, class 2 absent
    with warnings.catch_warnings():
        warnings.simplefilter("error", fm.UndefinedMeasureWarning)
        assert fm.compute("f1", counts=c, average="macro") == pytest.approx((6 / 8 + 0) / 2)
    with pytest.warns(fm.UndefinedMeasureWarning):
        assert np.isnan(fm.compute("precision", counts=c, average="macro"))


# --- differential tests against PyCM ------------------------------------------------------------


def _pycm_overall(c):
    pycm = pytest.importorskip("pycm")
    m = c.shape[0]
    matrix = {i: {j: int(c[i, j]) for j in range(m)} for i in range(m)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cm = pycm.ConfusionMatrix(matrix=matrix)
    return cm.overall_stat


def _num(v):
    return float(v) if isinstance(v, (int, float, np.floating)) else np.nan


@settings(max_examples=80, deadline=None)
@given(st.integers(3, 6).flatmap(lambda m: arrays(np.int64, (m, m), elements=st.integers(1, 9))))
def test_overall_statistics_match_pycm(c):
    """Matrices with every class present (PyCM drops empty classes from its own class set)."""
    stats = _pycm_overall(c)
    assert fm.compute("accuracy", counts=c) == pytest.approx(_num(stats["Overall ACC"]), abs=1e-12)
    assert quiet("cohen_kappa", counts=c) == pytest.approx(_num(stats["Kappa"]), abs=1e-9)
    assert quiet("mcc", counts=c) == pytest.approx(_num(stats["Overall MCC"]), abs=1e-9)
    assert quiet("confusion_entropy", counts=c) == pytest.approx(_num(stats["Overall CEN"]), abs=1e-9)
    assert quiet("mutual_information", counts=c) == pytest.approx(_num(stats["Mutual Information"]), abs=1e-9)


def test_confusion_entropy_of_wei_example():
    """Wei et al.'s CEN on a hand-checkable matrix, written out from Table 1 of seed 003."""
    c = np.array([[2, 1, 0], [0, 3, 1], [1, 0, 2]], dtype=float)
    n, m = c.sum(), 3
    a, b = c.sum(1), c.sum(0)
    total = 0.0
    for j in range(m):
        for k in range(m):
            if k != j:
                for v in (c[j, k], c[k, j]):
                    if v:
                        total += v * np.log(v / (a[j] + b[j])) / np.log(2 * (m - 1))
    assert fm.compute("confusion_entropy", counts=c) == pytest.approx(-total / (2 * n))


def test_sba_is_undefined_when_a_class_is_missing_as_in_the_binary_form():
    c = np.array([[3, 1, 0], [1, 2, 0], [0, 0, 4]])
    expected = (3 / 4 + 3 / 4 + 2 / 3 + 2 / 3 + 1 + 1) / 6
    assert fm.compute("sba", counts=c) == pytest.approx(expected)
    c[2, 2] = 0  # class 2 now in neither labeling: c_22/a_2 is 0/0 in Table 1's formula
    assert np.isnan(quiet("sba", counts=c))
