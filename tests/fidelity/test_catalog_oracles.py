"""The binary catalog against PyCM, per-distribution definitions written here, and the papers'
stated facts (seeds 002, 003, 004)."""

import itertools
import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fastmetrics as fm
from tests.conftest import examples

pycm = pytest.importorskip("pycm")

counts_st = st.tuples(*(st.integers(0, 15) for _ in range(4))).filter(lambda c: sum(c) > 0)

# PyCM class statistic of class 1 -> fastmetrics measure (PyCM verified-case oracle)
PYCM_CLASS = {
    "TPR": "recall",
    "TNR": "specificity",
    "PPV": "precision",
    "NPV": "npv",
    "FNR": "fnr",
    "FPR": "fallout",
    "FDR": "fdr",
    "FOR": "elusion",
    "ACC": "accuracy",
    "ERR": "error_rate",
    "DOR": "dor",
    "MCC": "mcc",
    "BM": "informedness",
    "MK": "markedness",
    "F1": "f1",
    "J": "jaccard",
}


def q(name, c, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", fm.UndefinedMeasureWarning)
        return float(fm.compute(name, *c, **kw))


def pycm_matrix(tp, fp, fn, tn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return pycm.ConfusionMatrix(matrix={1: {1: tp, 0: fn}, 0: {1: fp, 0: tn}})


def as_float(value):
    # PyCM reports undefined statistics as the string "None" (the pattern STYLE.md avoids)
    return math.nan if isinstance(value, str) else float(value)


@settings(max_examples=examples(200), deadline=None)
@given(c=counts_st.filter(lambda c: (c[0] + c[2]) > 0 and (c[1] + c[3]) > 0))
def test_against_pycm(c):
    tp, fp, fn, tn = c
    cm = pycm_matrix(tp, fp, fn, tn)
    for stat, name in PYCM_CLASS.items():
        ours = q(name, c)
        theirs = as_float(cm.class_stat[stat][1])
        if math.isnan(ours):
            continue  # fastmetrics' NaN cases are checked against its own table in test_common
        if not math.isnan(theirs):
            assert ours == pytest.approx(theirs, rel=1e-9, abs=1e-12), (stat, c)
    for stat, beta in (("F0.5", 0.5), ("F2", 2.0)):
        theirs = as_float(cm.class_stat[stat][1])
        ours = q("fbeta", c, beta=beta)
        if not (math.isnan(theirs) or math.isnan(ours)):
            assert ours == pytest.approx(theirs, rel=1e-9, abs=1e-12)
    assert q("confusion_entropy", c) == pytest.approx(float(cm.Overall_CEN), rel=1e-9, abs=1e-12)
    kappa = as_float(cm.Kappa)
    if not math.isnan(kappa):
        assert q("cohen_kappa", c) == pytest.approx(kappa, rel=1e-9, abs=1e-12)


def wei_confusion_entropy(tp, fp, fn, tn):
    """Wei et al.'s CEN from per-class misclassification probabilities (m = 2, base 2(m-1) = 2)."""
    c = np.array([[tn, fp], [fn, tp]], dtype=float)
    n, m = c.sum(), 2
    total = 0.0
    for j in range(m):
        denom = c[j, :].sum() + c[:, j].sum()
        if denom == 0:
            continue
        weight = denom / (2 * n)
        cen_j = 0.0
        for k in range(m):
            if k == j:
                continue
            for p in (c[j, k] / denom, c[k, j] / denom):
                if p > 0:
                    cen_j -= p * math.log(p, 2 * (m - 1))
        total += weight * cen_j
    return total


def mutual_information_bits(tp, fp, fn, tn):
    joint = np.array([[tn, fp], [fn, tp]], dtype=float) / (tp + fp + fn + tn)
    rows, cols = joint.sum(1), joint.sum(0)
    return sum(
        joint[i, j] * math.log2(joint[i, j] / (rows[i] * cols[j]))
        for i in range(2)
        for j in range(2)
        if joint[i, j] > 0
    )


@settings(max_examples=examples(300), deadline=None)
@given(c=counts_st)
def test_per_distribution_definitions(c):
    assert q("confusion_entropy", c) == pytest.approx(wei_confusion_entropy(*c), rel=1e-9, abs=1e-12)
    assert q("mutual_information", c) == pytest.approx(mutual_information_bits(*c), rel=1e-9, abs=1e-12)


# --- seed 004 §4: non-informative outputs (tp tn = fp fn) -----------------------------------


def noninformative_outputs():
    """Counts with P(S and G) = P(S) P(G), both classes in gold and both in the output."""
    out = []
    for ap, an, frac in itertools.product(range(1, 12), range(1, 12), (0.25, 0.5, 0.75, 1 / 3)):
        tp, fp = ap * frac, an * frac
        out.append((tp, fp, ap - tp, an - fp))
    return np.array(out).T


@pytest.mark.parametrize(
    "name, value",
    [
        ("lam", 0.5),
        ("mcc", 0.0),
        ("dor", 1.0),
        ("balanced_accuracy", 0.5),
        ("cohen_kappa", 0.0),
        ("chi", 0.5),
        ("mutual_information", 0.0),
    ],
)
def test_seed004_fixed_value_on_noninformative_outputs(name, value):
    np.testing.assert_allclose(fm.compute(name, *noninformative_outputs()), value, atol=1e-12)


def test_seed004_f_rs_at_most_a_quarter_on_noninformative_outputs():
    values = fm.compute("f_rs", *noninformative_outputs())
    assert np.all(values <= 0.25 + 1e-12) and np.isclose(values.max(), 0.25)


# --- seed 003 Statement 2 and seed 002 --------------------------------------------------------


@settings(max_examples=examples(300), deadline=None)
@given(c=counts_st.filter(lambda c: 0 not in (c[0] + c[2], c[1] + c[3], c[0] + c[1], c[2] + c[3])))
def test_seed003_statement2(c):
    tp, fp, fn, tn = c
    mcc = q("mcc", c)
    assert q("gm", c, r=1e-7) == pytest.approx(mcc, abs=1e-6)
    assert q("gm", c, r=0) == pytest.approx(mcc, abs=1e-15)
    ba = q("balanced_accuracy", c)
    ba_transposed = q("balanced_accuracy", (tp, fn, fp, tn))  # C^T: gold and prediction swapped
    assert q("gm", c, r=-1) == pytest.approx(ba + ba_transposed - 1, abs=1e-12)
    assert q("sba", c) == pytest.approx((ba + ba_transposed) / 2, abs=1e-12)
    assert q("cd", c) == pytest.approx(math.acos(min(1.0, max(-1.0, mcc))) / math.pi, abs=1e-12)


@settings(max_examples=examples(300), deadline=None)
@given(c=counts_st.filter(lambda c: c[0] + c[1] + c[2] > 0))
def test_seed002_f_star(c):
    tp, fp, fn, tn = c
    f1 = q("f1", c)
    assert q("f_star", c) == pytest.approx(f1 / (2 - f1), abs=1e-12)
    assert q("f_star", c) == pytest.approx(tp / ((tp + fp + fn + tn) - tn), abs=1e-12)
    if fp + fn > 0:
        assert q("f_prime", c) == pytest.approx(f1 / (2 * (1 - f1)), abs=1e-12)


# --- seed 004 §5: smoothing ---------------------------------------------------------------


def test_noninformative_smoothing_keeps_precision_at_prior():
    c = noninformative_outputs()
    prior = (c[0] + c[2]) / c.sum(0)
    np.testing.assert_allclose(fm.compute("precision", *c, smoothing="noninformative"), prior, rtol=1e-12)
    np.testing.assert_allclose(fm.compute("lam", *c, smoothing="noninformative"), 0.5, atol=1e-12)
    np.testing.assert_allclose(fm.compute("mcc", *c, smoothing="noninformative"), 0.0, atol=1e-12)


@settings(max_examples=examples(200), deadline=None)
@given(c=counts_st)
def test_noninformative_smoothing_written_out(c):
    """seed 004 §5.2's smoothed estimates, written here from the paper's four formulas."""
    tp, fp, fn, tn = c
    n = tp + fp + fn + tn
    g, s_prior = (tp + fn) / n, (tp + fp) / n
    recall = (tp + 2 * s_prior) / (tp + fn + 2)
    specificity = 1 - (fp + 2 * s_prior) / (fp + tn + 2)
    precision = (tp + 2 * g) / (tp + fp + 2)
    npv = 1 - (fn + 2 * g) / (fn + tn + 2)
    assert q("recall", c, smoothing="noninformative") == pytest.approx(recall, abs=1e-12)
    assert q("precision", c, smoothing="noninformative") == pytest.approx(precision, abs=1e-12)
    f1 = 0.0 if precision * recall == 0 else 2 * precision * recall / (precision + recall)
    assert q("f1", c, smoothing="noninformative") == pytest.approx(f1, abs=1e-12)
    assert q("markedness", c, smoothing="noninformative") == pytest.approx(precision + npv - 1, abs=1e-12)
    assert q("specificity", c, smoothing="noninformative") == pytest.approx(specificity, abs=1e-12)
    assert q("k", c, smoothing="noninformative") == pytest.approx(recall + specificity - 1, abs=1e-12)
    assert q("balanced_accuracy", c, smoothing="noninformative") == pytest.approx((recall + specificity) / 2, abs=1e-12)


def test_laplace_breaks_the_noninformative_properties():
    # seed 004 §5.1: the zero output gets precision 1/2, not P(G); LAM% leaves 0.5
    zero = (0, 0, 3, 17)
    assert q("precision", zero, smoothing="laplace") == 0.5
    c = noninformative_outputs()
    assert not np.allclose(fm.compute("lam", *c, smoothing="laplace"), 0.5)
    assert not np.allclose(fm.compute("precision", *c, smoothing="laplace"), (c[0] + c[2]) / c.sum(0))


def _moves(limit=7):
    """Pairs (worse, better): one item moved from fp to tn or from fn to tp, both classes in gold."""
    for tp, fp, fn, tn in itertools.product(range(limit), repeat=4):
        if tp + fn == 0 or fp + tn == 0:
            continue
        if fp:
            yield (tp, fp, fn, tn), (tp, fp - 1, fn, tn + 1)
        if fn:
            yield (tp, fp, fn, tn), (tp + 1, fp, fn - 1, tn)


def _move_cells(keep=lambda worse, better: True):
    """The moves of :func:`_moves` that ``keep`` keeps, and their worse and better counts as four
    arrays each (every measure evaluated over all of them in one call)."""
    moves = [(worse, better) for worse, better in _moves() if keep(worse, better)]
    return moves, np.array([w for w, _ in moves]).T, np.array([b for _, b in moves]).T


def qs(name, cells, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", fm.UndefinedMeasureWarning)
        return np.asarray(fm.compute(name, *cells, **kw), dtype=float)


def test_laplace_makes_f1_and_lam_strictly_monotone():
    moves, worse, better = _move_cells()
    rises = qs("f1", better, smoothing="laplace") > qs("f1", worse, smoothing="laplace")
    falls = qs("lam", better, smoothing="laplace") < qs("lam", worse, smoothing="laplace")
    assert rises.all(), [moves[i] for i in np.flatnonzero(~rises)[:5]]
    assert falls.all(), [moves[i] for i in np.flatnonzero(~falls)[:5]]
    # raw f1 and lam are not: tp = 0 pins f1 at 0
    assert q("f1", (0, 0, 1, 2)) == q("f1", (0, 1, 1, 1)) == 0


def test_noninformative_smoothing_monotonicity_findings():
    """Checked exhaustively here (counts 0..6): non-informative smoothing makes LAM% strictly
    monotone except at the zero and placebo outputs (left undefined), but not F1, contrary to
    seed 004 §5.2: smoothed recall (tp + 2 P(S))/(AP + 2) falls when a false positive becomes a
    true negative (P(S) shrinks), and can outweigh the gain in precision."""
    moves, worse, better = _move_cells(
        lambda worse, better: not any(c[0] + c[1] in (0, sum(c)) for c in (worse, better))
    )
    falls = qs("lam", better, smoothing="noninformative") < qs("lam", worse, smoothing="noninformative")
    assert falls.all(), [moves[i] for i in np.flatnonzero(~falls)[:5]]
    rises = qs("f1", better, smoothing="noninformative") > qs("f1", worse, smoothing="noninformative")
    f1_failures = [moves[i] for i in np.flatnonzero(~rises)]
    assert ((0, 2, 1, 0), (0, 1, 1, 1)) in f1_failures  # tp = 0
    assert ((1, 1, 1, 0), (1, 0, 1, 1)) in f1_failures  # tp > 0: 0.5833 -> 0.5426
    assert q("f1", (1, 0, 1, 1), smoothing="noninformative") == pytest.approx(0.5426356589147286)
    assert math.isnan(q("lam", (0, 0, 1, 1), smoothing="noninformative"))
    # at the placebo output smoothing adds nothing: F1 ties across the move
    assert q("f1", (1, 1, 0, 0), smoothing="noninformative") == q("f1", (1, 0, 0, 1), smoothing="noninformative")
    # no positive in gold: P(G) = 0 keeps smoothed precision at 0
    assert q("precision", (0, 3, 0, 5), smoothing="noninformative") == 0.0
