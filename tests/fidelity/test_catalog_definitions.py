"""The remaining catalog measures against their papers' definitions, evaluated per item or from
scikit-learn's scores (never from fastmetrics' own kernels)."""

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn import metrics as skm

import fastmetrics as fm
from tests.conftest import examples, labels_from_counts

both_classes = st.tuples(*(st.integers(0, 15) for _ in range(4))).filter(
    lambda c: 0 not in (c[0] + c[2], c[1] + c[3], c[0] + c[1], c[2] + c[3])
)


def q(name, c, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", fm.UndefinedMeasureWarning)
        return float(fm.compute(name, *c, **kw))


def sk(fn, t, p, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(t, p, **kw)


def logit(x):
    return math.log(x / (1 - x))


@settings(max_examples=examples(300), deadline=None)
@given(c=both_classes, alpha=st.floats(0.05, 0.95), lam=st.floats(0.1, 10))
def test_definitions(c, alpha, lam):
    tp, fp, fn, tn = c
    t, p = labels_from_counts(*c)
    prec, rec = sk(skm.precision_score, t, p), sk(skm.recall_score, t, p)
    npv, spec = sk(skm.precision_score, 1 - t, 1 - p), sk(skm.recall_score, 1 - t, 1 - p)
    mcc = sk(skm.matthews_corrcoef, t, p)
    assert q("asp", c) == pytest.approx(prec * rec, abs=1e-12)
    assert q("reliability", c) == pytest.approx(prec * npv, abs=1e-12)
    assert q("sensitivity_rs", c) == pytest.approx(rec * spec, abs=1e-12)
    r, s = prec * npv, rec * spec
    expected_frs = 0.0 if r * s == 0 else 1 / (alpha / r + (1 - alpha) / s)
    assert q("f_rs", c, alpha=alpha) == pytest.approx(expected_frs, abs=1e-12)
    # F_alpha with alpha on precision is F_beta with alpha = 1 / (1 + beta^2)
    beta = math.sqrt(1 / alpha - 1)
    f_beta = sk(skm.fbeta_score, t, p, beta=beta, zero_division=0)
    assert q("f_alpha", c, alpha=alpha) == pytest.approx(f_beta, abs=1e-12)
    assert q("e_alpha", c, alpha=alpha) == pytest.approx(1 - f_beta, abs=1e-12)
    assert q("markedness", c) == pytest.approx(prec + npv - 1, abs=1e-12)
    assert q("chi", c) == pytest.approx((rec * spec - (1 - spec) * (1 - rec) + 1) / 2, abs=1e-12)
    assert q("cd_prime", c) == pytest.approx(math.sqrt(max(0.0, 2 * (1 - mcc))), abs=1e-7)
    # weighted accuracy: positives weigh lambda (per-item sample weights)
    w = np.where(t == 1, lam, 1.0)
    assert q("weighted_accuracy", c, lam=lam) == pytest.approx(skm.accuracy_score(t, p, sample_weight=w), abs=1e-12)
    # utility as a per-item sum of rewards and penalties
    per_item = np.select([(t == 1) & (p == 1), (t == 0) & (p == 0), (t == 0) & (p == 1)], [3.0, 0.5, -1.5], -0.25)
    assert q("utility", c, a1=3, a2=0.5, a3=1.5, a4=0.25) == pytest.approx(per_item.sum(), abs=1e-9)
    # LAM%: inverse logit of the mean logit of the two error rates (seed 004 §4.2)
    x, y = fn / (tp + fn), fp / (fp + tn)
    if 0 < x < 1 and 0 < y < 1:
        z = (logit(x) + logit(y)) / 2
        assert q("lam", c) == pytest.approx(math.exp(z) / (1 + math.exp(z)), abs=1e-12)
    # DOR and its relation to LAM%: lam odds = 1 / sqrt(DOR)
    if fp * fn > 0 and tp * tn > 0:
        lam_value = q("lam", c)
        assert lam_value / (1 - lam_value) == pytest.approx(1 / math.sqrt(q("dor", c)), rel=1e-9)


@pytest.mark.parametrize(
    "c, expected",
    [
        ((10, 5, 10, 100), (max((20 - 5) / 40, -0.5) + 0.5) / 1.5),
        ((0, 50, 10, 100), 0.0),  # T11NU = -50/20 floored at -0.5
        ((10, 0, 0, 3), 1.0),
        ((3, 4, 7, 0), (max((6 - 4) / 20, -0.5) + 0.5) / 1.5),
    ],
)
def test_t11su_trec2002(c, expected):
    assert q("t11su", c) == pytest.approx(expected, abs=1e-12)


def test_descriptive_counts_and_priors():
    assert [q(n, (1, 2, 3, 4)) for n in ("tp", "fp", "fn", "tn", "n")] == [1, 2, 3, 4, 10]
    assert q("prevalence", (1, 2, 3, 4)) == pytest.approx(0.4)
    assert q("predicted_positive_rate", (1, 2, 3, 4)) == pytest.approx(0.3)
