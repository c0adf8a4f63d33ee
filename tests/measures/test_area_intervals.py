"""DeLong's variance of ROC AUC (Sun & Xu's fast algorithm, from a sweep) against an O(n^2)
implementation from the definitions, Hanley & McNeil's (1982) published rating data and
scikit-learn; DeLong's paired test; bootstrap intervals of curve measures."""

from statistics import NormalDist

import numpy as np
import pyarrow as pa
import pytest
from sklearn.metrics import average_precision_score, roc_auc_score

import fastmetrics as fm
from fastmetrics.measures import area_intervals
from fastmetrics.meta import item_tests


def _delong_by_definition(gold, score):
    """DeLong et al. (1988) written out: ψ(x, y) = 1, 1/2, 0 over every (positive, negative) pair,
    placement values as the row and column means, variance S10 / m + S01 / n."""
    x, y = score[gold], score[~gold]
    psi = (x[:, None] > y[None, :]) + 0.5 * (x[:, None] == y[None, :])
    v10, v01 = psi.mean(axis=1), psi.mean(axis=0)
    return psi.mean(), v10.var(ddof=1) / x.size + v01.var(ddof=1) / y.size, v10, v01


def _groups(seed, n_groups=12):
    rng = np.random.default_rng(seed)
    rows = {"system": [], "topic": [], "gold": [], "score": []}
    for g in range(n_groups):
        n = int(rng.integers(5, 120))
        gold = rng.random(n) < rng.uniform(0.1, 0.6)
        gold[:2] = [True, False]
        score = gold * rng.uniform(0, 2) + rng.normal(0, 1, n)
        if g % 2:
            score = np.round(score, 1)  # ties
        rows["system"] += [f"s{g % 3}"] * n
        rows["topic"] += [f"t{g // 3}"] * n
        rows["gold"] += gold.tolist()
        rows["score"] += score.tolist()
    return pa.table(rows)


@pytest.mark.parametrize("thresholds", ["exact", 7])
def test_delong_interval_of_every_group_equals_the_definition(thresholds):
    table = _groups(0)
    t = fm.count(table, thresholds=thresholds)
    s = t.evaluate("roc_auc", ci=0.9, method="delong")
    z = NormalDist().inv_cdf(0.95)
    checked = 0
    for system in s.coords["system"]:
        for topic in s.coords["topic"]:
            mask = (np.array(table["system"]) == system) & (np.array(table["topic"]) == topic)
            gold = np.array(table["gold"])[mask]
            score = np.array(table["score"])[mask]
            if thresholds != "exact":  # a grid's bins: the classifier that reports its bin
                grid = np.asarray(t.coords["threshold"])
                score = np.searchsorted(grid, score, side="right").astype(float)
            auc, var, _, _ = _delong_by_definition(gold, score)
            got = s.sel(system=system, topic=topic)
            assert float(got["roc_auc"]) == pytest.approx(auc, abs=1e-12)
            if thresholds == "exact":
                assert auc == pytest.approx(roc_auc_score(gold, score), abs=1e-12)
            assert float(got.low[0]) == pytest.approx(max(0.0, auc - z * np.sqrt(var)), abs=1e-12)
            assert float(got.high[0]) == pytest.approx(min(1.0, auc + z * np.sqrt(var)), abs=1e-12)
            checked += 1
    assert checked == 12


def test_hanley_mcneil_ratings():
    """Hanley & McNeil (1982), Table 1: five-point ratings of 58 normal and 51 abnormal CT images;
    the published area is 0.893 (standard error 0.032 by their own approximation)."""
    normal, abnormal = [33, 6, 6, 11, 2], [3, 2, 2, 11, 33]
    score = np.r_[np.repeat(np.arange(1.0, 6.0), normal), np.repeat(np.arange(1.0, 6.0), abnormal)]
    gold = np.r_[np.zeros(58, bool), np.ones(51, bool)]
    t = fm.count(pa.table({"gold": gold, "score": score}), by=(), thresholds="exact")
    s = t.evaluate("roc_auc", ci=0.95, method="delong")
    auc, var, _, _ = _delong_by_definition(gold, score)
    assert float(s["roc_auc"]) == pytest.approx(0.893, abs=5e-4)
    assert float(s.high[0] - s.low[0]) / (2 * NormalDist().inv_cdf(0.975)) == pytest.approx(np.sqrt(var), abs=1e-12)
    assert np.sqrt(var) == pytest.approx(0.032, rel=0.1)  # DeLong's and Hanley & McNeil's estimates agree


def test_sun_xu_placements_equal_the_definition():
    rng = np.random.default_rng(3)
    gold = rng.random(80) < 0.4
    scores = np.round(rng.normal(gold * np.array([[0.5], [1.0], [0.0]]), 1), 1)
    auc, v10, v01 = area_intervals.placements(scores, gold)
    auc_c, covariance = area_intervals.delong_covariance(scores, gold)
    for k in range(3):
        a, _, p10, p01 = _delong_by_definition(gold, scores[k])
        assert auc[k] == pytest.approx(a, abs=1e-12)
        np.testing.assert_allclose(v10[k], p10, atol=1e-12)
        np.testing.assert_allclose(v01[k], p01, atol=1e-12)
    # the paired test's variance from the definitions: Var(A_a - A_b) over both placement values
    _, _, a10, a01 = _delong_by_definition(gold, scores[0])
    _, _, b10, b01 = _delong_by_definition(gold, scores[1])
    var = np.var(a10 - b10, ddof=1) / a10.size + np.var(a01 - b01, ddof=1) / a01.size
    assert covariance[0, 0] + covariance[1, 1] - 2 * covariance[0, 1] == pytest.approx(var, rel=1e-10)
    assert auc_c[1] == pytest.approx(auc[1])


def test_paired_delong_over_items():
    rng = np.random.default_rng(5)
    gold = rng.random(200) < 0.5
    rows = {"system": [], "item": [], "gold": [], "score": []}
    for k, shift in enumerate((0.3, 1.0)):
        rows["system"] += [f"s{k}"] * 200
        rows["item"] += list(range(200))
        rows["gold"] += gold.tolist()
        rows["score"] += (gold * shift + rng.normal(0, 1, 200)).tolist()
    table = pa.table(rows)
    result = item_tests(table, method="delong", pred="score", correction=None).summary.to_pylist()[0]
    scores = np.array(rows["score"]).reshape(2, 200)
    a, _, a10, a01 = _delong_by_definition(gold, scores[0])
    b, _, b10, b01 = _delong_by_definition(gold, scores[1])
    sd = np.sqrt(np.var(a10 - b10, ddof=1) / a10.size + np.var(a01 - b01, ddof=1) / a01.size)
    assert result["difference"] == pytest.approx(a - b, abs=1e-12)
    assert result["p_value"] == pytest.approx(2 * NormalDist().cdf(-abs(a - b) / sd), rel=1e-9)
    with pytest.raises(fm.InputError, match="finite scores"):
        item_tests(table.set_column(3, "score", pa.array([None] + rows["score"][1:])), method="delong", pred="score")


def test_bootstrap_intervals_of_curve_measures():
    rng = np.random.default_rng(1)
    gold = rng.random(150) < 0.3
    score = gold + rng.normal(0, 1, 150)
    t = fm.count(pa.table({"gold": gold, "score": score}), by=(), thresholds="exact")
    s = t.evaluate(["roc_auc", "average_precision"], ci=0.95, resamples=400, seed=2)
    assert float(s["roc_auc"]) == pytest.approx(roc_auc_score(gold, score))
    assert float(s["average_precision"]) == pytest.approx(average_precision_score(gold, score))
    # the same resampled items, by numpy: the intervals agree within the Monte-Carlo error
    draws = np.random.default_rng(9).integers(0, 150, size=(400, 150))
    reference = [roc_auc_score(gold[d], score[d]) for d in draws if gold[d].any() and not gold[d].all()]
    low, high = np.percentile(reference, [2.5, 97.5])
    assert float(s.low[0]) == pytest.approx(low, abs=0.02) and float(s.high[0]) == pytest.approx(high, abs=0.02)
    again = t.evaluate(["roc_auc", "average_precision"], ci=0.95, resamples=400, seed=2)
    np.testing.assert_array_equal(again.low, s.low)


def test_what_has_no_interval_is_refused():
    t = fm.count(pa.table({"gold": [True, False, True], "score": [0.9, 0.1, 0.4]}), by=(), thresholds="exact")
    with pytest.raises(fm.ParameterError, match="full ROC AUC"):
        t.evaluate("average_precision", ci=0.95, method="delong")
    with pytest.raises(fm.ParameterError, match="proportion"):
        t.evaluate("roc_auc", ci=0.95, method="wilson")
    hard = fm.count(pa.table({"gold": [True, False], "pred": [True, True]}), by=())
    with pytest.raises(fm.ParameterError, match="ROC AUC's interval"):
        hard.evaluate("f1", ci=0.95, method="delong")
