"""Robustness across topics (seed 004 §6.4) against scipy.stats.spearmanr in a loop."""

import warnings

import numpy as np
import pytest
from scipy import stats

import fastmetrics as fm
from fastmetrics import meta

from ._data import random_scores


def _reference(values_a, values_b):
    keep = ~(np.isnan(values_a) | np.isnan(values_b))
    a, b = values_a[keep], values_b[keep]
    if a.size < 2 or np.all(a == a[0]) or np.all(b == b[0]):
        return np.nan
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return stats.spearmanr(a, b).statistic


@pytest.mark.parametrize("seed", [0, 5])
def test_all_pairs_against_spearmanr(seed):
    scores = random_scores(seed, systems=9, topics=10)
    result = meta.robustness(scores, pairs="all")
    detail = result.detail.to_pylist()
    topics = list(scores.coords["topic"])
    assert len(detail) == 4 * 45
    for row in detail:
        a, b = topics.index(row["topic_a"]), topics.index(row["topic_b"])
        expected = _reference(scores[row["measure"]][:, a], scores[row["measure"]][:, b])
        if np.isnan(expected):
            assert np.isnan(row["value"])
        else:
            assert row["value"] == pytest.approx(expected, abs=1e-12)
    for row in result.summary.to_pylist():
        values = np.array([r["value"] for r in detail if r["measure"] == row["measure"]])
        ok = values[~np.isnan(values)]
        assert row["pairs"] == ok.size and row["undefined"] == values.size - ok.size
        assert row["mean"] == pytest.approx(ok.mean()) and row["std"] == pytest.approx(ok.std(ddof=1))


def test_sampled_pairs_are_distinct_and_seeded():
    scores = random_scores(1, systems=6, topics=30)
    one = meta.robustness(scores, pairs=100, seed=7).detail
    again = meta.robustness(scores, pairs=100, seed=7).detail
    other = meta.robustness(scores, pairs=100, seed=8).detail
    assert one.equals(again) and not one.equals(other)
    pairs = [(r["topic_a"], r["topic_b"]) for r in one.to_pylist() if r["measure"] == "f1"]
    assert len(pairs) == len(set(pairs)) == 100 and all(a != b for a, b in pairs)
    # more pairs than exist: every pair once
    assert meta.robustness(scores, pairs=10_000).params["pairs_drawn"] == 30 * 29 // 2


def test_constant_side_is_counted_not_averaged():
    counts = np.zeros((3, 2, 2, 2), np.int64)
    counts[:, :, 1, 1] = [[1, 2], [1, 3], [1, 1]]  # topic 0: every system equal
    counts[:, :, 0, 0] = 2
    counts[:, :, 1, 0] = 1
    scores = fm.ConfusionTensor(counts, ("system", "topic")).evaluate(["recall"])
    row = meta.robustness(scores, pairs="all").summary.to_pylist()[0]
    assert row["pairs"] == 0 and row["undefined"] == 1 and np.isnan(row["mean"])
    with pytest.raises(fm.ParameterError, match="pairs"):
        meta.robustness(scores, pairs=0)
    with pytest.raises(fm.ParameterError, match="two topics"):
        meta.robustness(scores.sel(topic=0), pairs="all")
