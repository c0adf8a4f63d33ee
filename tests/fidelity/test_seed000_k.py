"""Seed 000 eq. 5: K on perfect, pervert, trivial and one-class test sets."""

import numpy as np
import pytest

import fastmetrics as fm


def k_reference(tp, fp, fn, tn):
    """Eq. 5 written out independently from the kernel."""
    ap, an = tp + fn, fp + tn
    if ap > 0 and an > 0:
        return tp / ap + tn / an - 1
    if ap == 0:
        return 2 * tn / an - 1
    return 2 * tp / ap - 1


@pytest.mark.parametrize("ap, an", [(1, 1), (5, 45), (300, 2), (7, 7)])
def test_k_special_classifiers(ap, an):
    assert fm.compute("k", tp=ap, fp=0, fn=0, tn=an) == 1.0        # perfect
    assert fm.compute("k", tp=0, fp=an, fn=ap, tn=0) == -1.0       # pervert
    assert fm.compute("k", tp=ap, fp=an, fn=0, tn=0) == 0.0        # trivial acceptor
    assert fm.compute("k", tp=0, fp=0, fn=ap, tn=an) == 0.0        # trivial rejector


@pytest.mark.parametrize("tn, fp", [(10, 0), (7, 3), (0, 10), (1, 2)])
def test_k_no_positives_is_rescaled_specificity(tn, fp):
    assert fm.compute("k", tp=0, fp=fp, fn=0, tn=tn) == pytest.approx(2 * tn / (tn + fp) - 1)


@pytest.mark.parametrize("tp, fn", [(10, 0), (7, 3), (0, 10), (1, 2)])
def test_k_no_negatives_is_rescaled_recall(tp, fn):
    assert fm.compute("k", tp=tp, fp=0, fn=fn, tn=0) == pytest.approx(2 * tp / (tp + fn) - 1)


def test_k_matches_eq5_on_random_counts():
    rng = np.random.default_rng(0)
    c = rng.integers(0, 6, size=(4, 2000))
    c = c[:, c.sum(axis=0) > 0]
    got = fm.compute("k", tp=c[0], fp=c[1], fn=c[2], tn=c[3])
    expected = [k_reference(*col) for col in c.T]
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-15)


def test_k_empty_test_set_is_undefined():
    with pytest.warns(fm.UndefinedMeasureWarning, match="1 of 1"):
        assert np.isnan(fm.compute("k", tp=0, fp=0, fn=0, tn=0))
