"""Paired tests, Holm's correction and discriminative power."""

import itertools

import numpy as np
import pytest

import fastmetrics as fm
from fastmetrics import meta
from fastmetrics.meta.significance import paired_p_values

from ._data import random_scores


def test_holm_written_out():
    p = np.array([0.01, 0.04, 0.03, 0.005, np.nan])
    # sorted 0.005, 0.01, 0.03, 0.04 with multipliers 4, 3, 2, 1, then running maximum
    expected = [0.03, 0.06, 0.06, 0.02, np.nan]
    assert np.allclose(meta.holm(p), expected, equal_nan=True)


def _exact_permutation_p(d):
    observed = abs(d.mean())
    flips = [abs((np.array(s) * d).mean()) >= observed - 1e-12 for s in itertools.product((-1, 1), repeat=d.size)]
    return np.mean(flips)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_fisher_randomization_converges_to_the_exact_test(seed):
    d = np.random.default_rng(seed).normal(0.3, 1.0, size=10)
    _, p = paired_p_values(d[None, :], "fisher", 40_000, np.random.default_rng(seed))
    assert p[0] == pytest.approx(_exact_permutation_p(d), abs=0.01)


def _reference_bootstrap(d, resamples, rng):
    centred = d - d.mean()
    hits = sum(abs(rng.choice(centred, size=d.size).mean()) >= abs(d.mean()) for _ in range(resamples))
    return (1 + hits) / (resamples + 1)


def test_bootstrap_agrees_with_a_loop():
    d = np.random.default_rng(3).normal(0.25, 1.0, size=25)
    _, p = paired_p_values(d[None, :], "bootstrap", 20_000, np.random.default_rng(0))
    assert p[0] == pytest.approx(_reference_bootstrap(d, 20_000, np.random.default_rng(1)), abs=0.01)


def test_significance_table_and_nan_topics():
    scores = random_scores(4, systems=4, topics=15)
    table = meta.significance(scores, method="fisher", resamples=200, seed=1, correction="holm").summary
    assert table.num_rows == 4 * 6
    rows = table.to_pylist()
    f1 = scores["f1"]
    for row in rows:
        if row["measure"] != "f1":
            continue
        a = list(scores.coords["system"]).index(row["system_a"])
        b = list(scores.coords["system"]).index(row["system_b"])
        d = f1[a] - f1[b]
        assert row["topics"] == int(np.sum(~np.isnan(d)))
        assert row["diff"] == pytest.approx(np.nanmean(d))
        assert row["p_adjusted"] >= row["p_value"]
    again = meta.significance(scores, method="fisher", resamples=200, seed=1, correction="holm").summary
    assert again.equals(table)
    with pytest.raises(fm.ParameterError, match="method"):
        meta.significance(scores, method="t-test")


def test_power_is_the_share_of_significant_pairs():
    scores = random_scores(6, systems=6, topics=30)
    result = meta.power(scores, alpha=0.1, resamples=300, seed=2)
    tests = result.detail.to_pylist()
    for row in result.summary.to_pylist():
        p = [t["p_value"] for t in tests if t["measure"] == row["measure"] and t["p_value"] == t["p_value"]]
        assert row["pairs"] == len(p) and row["significant"] == sum(x < 0.1 for x in p)
        assert row["value"] == pytest.approx(row["significant"] / row["pairs"])
