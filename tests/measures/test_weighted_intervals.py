"""Intervals of weighted counts do not depend on the weights' unit (issue 29, item 8).

The number of items a cell stands for is Kish's effective number ``(Σw)² / Σw²``, which
``fm.count(..., weight=)`` keeps as each count's sum of squared weights: Wilson and Jeffreys
equal statsmodels' ``proportion_confint`` on it, the bootstrap resamples that many items, unit
weights give the unweighted intervals and rescaling the weights changes nothing.
"""

import numpy as np
import pyarrow as pa
import pytest

import fastmetrics as fm

statsmodels_proportion = pytest.importorskip("statsmodels.stats.proportion")


def _items(seed=0, n=300):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    p = np.where(rng.random(n) < 0.8, y, 1 - y)
    return y, p, rng.uniform(0.1, 3.0, n)


def _bounds(y, p, w, measures, **options):
    s = fm.score(y, p, measures=measures, sample_weight=w, ci=0.95, **options)
    return np.stack([s.low, s.high])


@pytest.mark.parametrize("method", ["wilson", "jeffreys", "bootstrap"])
def test_rescaled_weights_give_the_same_intervals(method):
    y, p, w = _items()
    measures = ["accuracy", "recall", "precision"] + (["f1", "mcc"] if method == "bootstrap" else [])
    base = _bounds(y, p, w, measures, method=method)
    assert np.isfinite(base).all()
    for scale in (1000.0, 0.01):
        np.testing.assert_allclose(_bounds(y, p, w * scale, measures, method=method), base, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("method", ["wilson", "jeffreys", "bootstrap"])
def test_equal_weights_give_the_unweighted_intervals(method):
    y, p, _ = _items(1)
    measures = ["accuracy", "recall"] + (["f1"] if method == "bootstrap" else [])
    unweighted = fm.score(y, p, measures=measures, ci=0.95, method=method)
    for weight in (1.0, 7.0, 0.003):
        np.testing.assert_allclose(
            _bounds(y, p, np.full(y.size, weight), measures, method=method),
            np.stack([unweighted.low, unweighted.high]),
            rtol=1e-12,
        )


@pytest.mark.parametrize("method", ["wilson", "jeffreys"])
def test_analytic_intervals_are_statsmodels_on_kish_effective_items(method):
    y, p, w = _items(2)
    got = _bounds(y, p, w, ["accuracy", "recall", "precision"], method=method)
    for k, items in enumerate([np.ones(y.size, bool), y == 1, p == 1]):  # each proportion's denominator
        hits = (y == p)[items]
        wk = w[items]
        n_eff = wk.sum() ** 2 / (wk**2).sum()
        x = (wk * hits).sum() / wk.sum() * n_eff
        expected = statsmodels_proportion.proportion_confint(x, n_eff, alpha=0.05, method=method)
        np.testing.assert_allclose(got[:, k], expected, rtol=1e-10)


def test_very_unequal_weights_count_as_their_kish_effective_items():
    """Weights that make 10 effective items out of 100 give the interval of 10 items."""
    y = np.r_[np.ones(50, int), np.zeros(50, int)]
    p = np.r_[np.ones(40, int), np.zeros(10, int), np.zeros(45, int), np.ones(5, int)]
    w = np.r_[np.full(5, 100.0), np.full(45, 1e-9), np.full(5, 100.0), np.full(45, 1e-9)]  # ~10 items count
    got = fm.score(y, p, measures=["accuracy"], sample_weight=w, ci=0.95, method="wilson")
    expected = statsmodels_proportion.proportion_confint(10, 10, alpha=0.05, method="wilson")  # the 10 are right
    np.testing.assert_allclose([got.low[0], got.high[0]], expected, atol=1e-6)


def test_counts_and_cli_keep_the_squares(tmp_path):
    """fm.count(table, weight=) keeps Σw² per count (a numpy loop's), through sum and sel."""
    y, p, w = _items(3, n=200)
    system = np.repeat(["a", "b"], 100)
    t = fm.count(pa.table({"system": system, "item": np.arange(200), "gold": y, "pred": p, "w": w}), weight="w")
    for label in ("a", "b"):
        mine = system == label
        expected = [[(w[mine & (y == i) & (p == j)] ** 2).sum() for j in (0, 1)] for i in (0, 1)]
        np.testing.assert_allclose(t.sel(system=label).squares.reshape(2, 2), expected)
    np.testing.assert_allclose(t.sum("system").squares.reshape(2, 2), t.squares.reshape(-1, 2, 2).sum(axis=0))


def test_weighted_counts_without_squares_are_refused():
    """Weighted counts read back from a file lose Σw²: intervals are refused, naming the way out."""
    weighted = fm.ConfusionTensor(np.array([[10.5, 2.25], [1.5, 30.75]]), ())
    for method in ("bootstrap", "wilson"):
        with pytest.raises(fm.InputError, match=r"sum of squared weights.*weight=COL"):
            weighted.evaluate(["accuracy"], ci=0.95, method=method)


def test_a_weight_of_zero_keeps_the_intervals_of_the_other_items():
    """Rows of weight 0 are items of no weight: the Wilson interval on Kish's effective count of
    the others, as without those rows (statsmodels on the same effective count)."""
    from statsmodels.stats.proportion import proportion_confint

    gold, pred, weight = [1, 0, 1, 1, 0], [1, 0, 0, 1, 1], [0.0, 1.0, 2.0, 3.0, 1.0]
    with_zero = fm.score(gold, pred, sample_weight=weight, measures=["accuracy"], ci=0.95, method="wilson")
    without = fm.score(gold[1:], pred[1:], sample_weight=weight[1:], measures=["accuracy"], ci=0.95, method="wilson")
    w = np.array(weight[1:])
    n_eff = w.sum() ** 2 / (w**2).sum()
    share = float(without.values[0])
    low, high = proportion_confint(share * n_eff, n_eff, alpha=0.05, method="wilson")
    assert float(with_zero.low[0]) == pytest.approx(low) and float(with_zero.high[0]) == pytest.approx(high)
    assert float(without.low[0]) == pytest.approx(low)


@pytest.mark.parametrize("scale", [0.01, 1000.0])
def test_bootstrap_draws_do_not_see_the_last_bits_of_the_weights_unit(scale):
    """Effective counts that differ in their last bits between two units of the same weights
    (found by the differential check) give the same bootstrap draws."""
    gold = [0, 1, 0, 1, 1, 0, 0, 1, 0, 0, 1, 1, 0, 1, 0, 1, 0, 1, 1]
    pred = [0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 1, 1, 1, 1, 0, 0, 0, 0, 1]
    w = np.array([0.5, 0.5, 1, 1, 4, 1, 0.5, 1, 0.5, 4, 0.5, 4, 1, 1, 4, 1, 4, 1, 0.5])
    options = dict(measures=["accuracy", "f1"], ci=0.9, resamples=300, seed=1)
    one = fm.score(gold, pred, sample_weight=w, **options)
    other = fm.score(gold, pred, sample_weight=w * scale, **options)
    np.testing.assert_array_equal(one.low, other.low)
    np.testing.assert_array_equal(one.high, other.high)
