"""Binary measures against independent implementations (scikit-learn, scipy), hypothesis-driven.

Counts are turned into per-item label vectors and scored by the oracle; degenerate count vectors
(zeros in any cell, one class only) are part of the strategy. Where fastmetrics defines NaN and
the oracle returns a replacement value, the test asserts NaN exactly at the documented cases.
"""

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from sklearn import metrics as skm

import fastmetrics as fm
from tests.conftest import examples, labels_from_counts

counts_st = st.tuples(*(st.integers(0, 12) for _ in range(4))).filter(lambda c: sum(c) > 0)


def _sk(fn, y_true, y_pred, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(y_true, y_pred, **kw)


def _ours(name, c, **params):
    tp, fp, fn, tn = c
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", fm.UndefinedMeasureWarning)
        return float(fm.compute(name, tp=tp, fp=fp, fn=fn, tn=tn, **params))


def _nan_sklearn(value):
    return np.nan if value is None else value


ORACLES = {
    # name: (oracle(y_true, y_pred), undefined(tp, fp, fn, tn))
    "accuracy": (lambda t, p: skm.accuracy_score(t, p), lambda tp, fp, fn, tn: False),
    "precision": (lambda t, p: skm.precision_score(t, p, zero_division=np.nan), lambda tp, fp, fn, tn: tp + fp == 0),
    "recall": (lambda t, p: skm.recall_score(t, p, zero_division=np.nan), lambda tp, fp, fn, tn: tp + fn == 0),
    "specificity": (
        lambda t, p: skm.recall_score(1 - t, 1 - p, zero_division=np.nan),
        lambda tp, fp, fn, tn: fp + tn == 0,
    ),
    "npv": (lambda t, p: skm.precision_score(1 - t, 1 - p, zero_division=np.nan), lambda tp, fp, fn, tn: fn + tn == 0),
    "f1": (lambda t, p: skm.f1_score(t, p, zero_division=np.nan), lambda tp, fp, fn, tn: tp + fp + fn == 0),
    "jaccard": (lambda t, p: skm.jaccard_score(t, p, zero_division=0), lambda tp, fp, fn, tn: tp + fp + fn == 0),
    "mcc": (lambda t, p: skm.matthews_corrcoef(t, p), lambda tp, fp, fn, tn: 0 in (tp + fp, tp + fn, tn + fp, tn + fn)),
    "cohen_kappa": (
        lambda t, p: skm.cohen_kappa_score(t, p),
        lambda tp, fp, fn, tn: (tp + fp) * (fp + tn) + (tp + fn) * (fn + tn) == 0,
    ),
    "balanced_accuracy": (lambda t, p: skm.balanced_accuracy_score(t, p), lambda tp, fp, fn, tn: False),
    "informedness": (
        lambda t, p: skm.balanced_accuracy_score(t, p, adjusted=True),
        lambda tp, fp, fn, tn: tp + fn == 0 or fp + tn == 0,
    ),
}


@pytest.mark.parametrize("name", sorted(ORACLES))
@settings(max_examples=examples(300), deadline=None)
@given(c=counts_st)
def test_binary_measure_against_oracle(name, c):
    oracle, undefined = ORACLES[name]
    got = _ours(name, c)
    if undefined(*c):
        assert np.isnan(got), f"{name}{c} should be undefined"
        return
    y_true, y_pred = labels_from_counts(*c)
    expected = _sk(oracle, y_true, y_pred)
    assert got == pytest.approx(expected, rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("beta", [0.5, 2.0, 0.1, 3.7])
@settings(max_examples=examples(150), deadline=None)
@given(c=counts_st)
def test_fbeta_against_sklearn(beta, c):
    got = _ours("fbeta", c, beta=beta)
    if c[0] + c[1] + c[2] == 0:
        assert np.isnan(got)
        return
    y_true, y_pred = labels_from_counts(*c)
    expected = _sk(skm.fbeta_score, y_true, y_pred, beta=beta, zero_division=np.nan)
    assert got == pytest.approx(expected, rel=1e-12, abs=1e-12)


@settings(max_examples=examples(300), deadline=None)
@given(c=counts_st)
def test_proficiency_from_joint_distribution(c):
    """alpha = I(A;P)/H(A), with I from scikit-learn (nats) and H from scipy, converted to bits."""
    got = _ours("proficiency", c)
    tp, fp, fn, tn = c
    if tp + fn == 0 or fp + tn == 0:
        assert np.isnan(got)
        return
    y_true, y_pred = labels_from_counts(*c)
    mutual = skm.mutual_info_score(y_true, y_pred)
    entropy = stats.entropy(np.bincount(y_true, minlength=2))
    assert got == pytest.approx(mutual / entropy, rel=1e-9, abs=1e-12)


def test_balanced_accuracy_with_one_gold_class_is_recall_of_that_class():
    # Documented convention: macro recall over the classes present in gold (scikit-learn's).
    assert _ours("balanced_accuracy", (0, 3, 0, 7)) == pytest.approx(0.7)
    assert _ours("balanced_accuracy", (4, 0, 1, 0)) == pytest.approx(0.8)
    assert np.isnan(_ours("informedness", (0, 3, 0, 7)))


def test_mcc_and_k_keep_their_float_operations_over_vectors_of_cells():
    """MCC takes one root of the four-fold product of the counts scaled by a power of two (n s in
    [1, 2): the same bits as unscaled where the product is finite, and finite beyond float64's
    range); K's one-class cases are 2 sigma - 1 or 2 rho - 1 with sigma = (2 tn) / an rounded once.
    Over thousands of cells (the ufunc's vector loop, where both sides of a branch are computed),
    each value is those float operations to the bit."""
    rng = np.random.default_rng(0)
    cells = rng.integers(0, 40, (6000, 4)).astype(float)
    cells[::3, 0] = cells[::3, 2] = 0.0  # AP = 0
    cells[1::5, 1] = cells[1::5, 3] = 0.0  # AN = 0
    cells[2::7] *= 1e77  # marginals whose four-fold product overflows
    tp, fp, fn, tn = cells.T
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mcc = fm.compute("mcc", tp=tp, fp=fp, fn=fn, tn=tn)
        k = fm.compute("k", tp=tp, fp=fp, fn=fn, tn=tn)
    for i, (a, b, c, d) in enumerate(cells.tolist()):
        unscaled = ((a + b) * (c + d)) * ((a + c) * (b + d))
        scale = math.ldexp(1.0, 1 - math.frexp(a + b + c + d)[1]) if a + b + c + d else math.ldexp(1.0, 1023)
        a, b, c, d = a * scale, b * scale, c * scale, d * scale
        den = math.sqrt(((a + b) * (c + d)) * ((a + c) * (b + d)))
        want = (a * d - b * c) / den if den else math.nan
        if unscaled < math.inf and den:  # in range: the unscaled operations, to the bit
            assert want == (cells[i, 0] * cells[i, 3] - cells[i, 1] * cells[i, 2]) / math.sqrt(unscaled)
        assert mcc[i] == want or (math.isnan(mcc[i]) and math.isnan(want)), (i, cells[i])
        a, b, c, d = cells[i].tolist()
        ap, an = a + c, b + d
        if ap and an:
            want = a / ap + d / an - 1.0
        else:
            want = 2.0 * d / an - 1.0 if an else (2.0 * a / ap - 1.0 if ap else math.nan)
        assert k[i] == want or (math.isnan(k[i]) and math.isnan(want)), (i, cells[i])


@pytest.mark.parametrize("name", ["mcc", "lam", "f_rs", "informedness", "k", "balanced_accuracy", "f1"])
@pytest.mark.parametrize("factor", [1e-160, 1e-20, 1e40, 1e77, 1e150])
def test_scale_invariant_measures_hold_at_any_magnitude(name, factor):
    """Counts (weighted sums) multiplied by any factor give the same value: products of two or
    four marginals neither overflow past 1e77 nor underflow for tiny weights."""
    rng = np.random.default_rng(3)
    tp, fp, fn, tn = rng.integers(1, 60, (4, 500)).astype(float)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plain = fm.compute(name, tp=tp, fp=fp, fn=fn, tn=tn)
        scaled = fm.compute(name, tp=tp * factor, fp=fp * factor, fn=fn * factor, tn=tn * factor)
    np.testing.assert_allclose(scaled, plain, rtol=1e-12)
