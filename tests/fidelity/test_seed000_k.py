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
    assert fm.compute("k", tp=ap, fp=0, fn=0, tn=an) == 1.0  # perfect
    assert fm.compute("k", tp=0, fp=an, fn=ap, tn=0) == -1.0  # pervert
    assert fm.compute("k", tp=ap, fp=an, fn=0, tn=0) == 0.0  # trivial acceptor
    assert fm.compute("k", tp=0, fp=0, fn=ap, tn=an) == 0.0  # trivial rejector


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


# --- §6: single-label, cost-sensitive and ordinal K -----------------------------------------------


def _recall_from_k(k, m):
    """With one class present in gold, eq. 10 is K = m/(m-1) rho - 1/(m-1): solve for rho."""
    return ((m - 1) * k + 1) / m


@pytest.mark.parametrize(
    "true, pred, contribution",
    [
        (2, 2, 1.0),  # d1: c3 classified c3
        (2, 1, 0.5),  # d2: c3 into c2, AE 1 of max 2
        (2, 0, 0.0),  # d3: c3 into c1, the maximum error
        (3, 2, 2 / 3),  # d4: c4 into c3, AE 1 of max 3
    ],
)
def test_example_6_1_contributions(true, pred, contribution):
    c = np.zeros((5, 5))
    c[true, pred] = 1
    k = fm.compute("k_cost", counts=c, cost=fm.ordinal_costs(5))
    assert _recall_from_k(k, 5) == pytest.approx(contribution)


def test_example_6_1_whole():
    c = np.zeros((5, 5))
    c[2, 2] = c[2, 1] = c[2, 0] = c[3, 2] = 1
    rho3, rho4 = (1 + 0.5 + 0) / 3, 2 / 3
    expected = 5 / 4 * (rho3 + rho4) / 2 - 1 / 4
    assert fm.compute("k_cost", counts=c, cost=fm.ordinal_costs(5)) == pytest.approx(expected)
    # squared error: d2 credits 1 - 1/4, d4 credits 1 - 1/9
    rho3, rho4 = (1 + 0.75 + 0) / 3, 8 / 9
    assert fm.compute("k_cost", counts=c, cost=fm.ordinal_costs(5), power=2) == pytest.approx(
        5 / 4 * (rho3 + rho4) / 2 - 1 / 4
    )


def k_eq10_reference(c):
    m = c.shape[0]
    recalls = [c[j, j] / c[j].sum() for j in range(m) if c[j].sum() > 0]
    return m / (m - 1) * np.mean(recalls) - 1 / (m - 1)


@pytest.mark.parametrize("seed", range(5))
def test_k_cost_with_unit_costs_is_eq_10(seed):
    rng = np.random.default_rng(seed)
    for m in (3, 4, 7):
        c = rng.integers(0, 5, size=(m, m))
        c[rng.integers(m)] = 0  # a class absent from gold: xi_j = 0
        expected = k_eq10_reference(c)
        assert fm.compute("k", counts=c) == pytest.approx(expected)
        assert fm.compute("k_cost", counts=c) == pytest.approx(expected)
        assert fm.compute("k_cost", counts=c, cost=3.0 * (1 - np.eye(m)), power=2) == pytest.approx(expected)


@pytest.mark.parametrize("counts", [(3, 1, 2, 7), (0, 4, 0, 6), (5, 0, 2, 0), (1, 1, 1, 1)])
def test_k_cost_with_two_classes_is_eq_5(counts):
    tp, fp, fn, tn = counts
    c = np.array([[tn, fp], [fn, tp]])
    for cost in (None, np.array([[0, 2.0], [5.0, 0]])):
        kw = {} if cost is None else {"cost": cost}
        assert fm.compute("k_cost", counts=c, **kw) == pytest.approx(k_reference(*counts))


def test_ordinal_costs_follow_eq_7():
    cost = fm.ordinal_costs(["bad", "fair", "good", "great"], steps=[1, 2, 0.5])
    assert cost[0, 3] == cost[3, 0] == 3.5
    assert cost[1, 3] == cost[1, 2] + cost[2, 3]
    assert np.all(np.diag(cost) == 0)


@pytest.mark.parametrize(
    "cost, message",
    [
        (np.ones((3, 3)), "0 on the diagonal"),
        (np.zeros((3, 3)), "all zero"),
        (-(1 - np.eye(3)), ">= 0"),
        (np.ones((2, 2)) - np.eye(2), r"shape \(3, 3\)"),
    ],
)
def test_bad_cost_matrices_are_refused(cost, message):
    with pytest.raises(fm.InputError, match=message):
        fm.compute("k_cost", counts=np.ones((3, 3)), cost=cost)
