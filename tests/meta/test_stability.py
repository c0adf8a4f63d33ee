"""Split-half stability (seed 001 §5): the resampling kernel and the job's aggregation."""

import itertools
import warnings

import numpy as np
import pyarrow as pa
import pytest

import fastmetrics as fm
from fastmetrics import meta
from fastmetrics.count.resample import split_half_counts


def _runs(seed=0, systems=4, topics=3, items=(9, 10, 4)):
    rng = np.random.default_rng(seed)
    rows = {k: [] for k in ("system", "topic", "item", "gold", "pred")}
    for t, n in zip(range(topics), items):
        gold = rng.random(n) < 0.4
        for s in range(systems):
            pred = np.where(rng.random(n) < 0.7, gold, ~gold)
            for i in range(n):
                for k, v in (
                    ("system", f"s{s}"),
                    ("topic", f"t{t}"),
                    ("item", i),
                    ("gold", bool(gold[i])),
                    ("pred", bool(pred[i])),
                ):
                    rows[k].append(v)
    return pa.table(rows)


def test_halves_partition_the_items_the_same_way_for_every_system():
    runs = _runs()
    whole = fm.count(runs)
    halves = split_half_counts(runs, replicates=40, seed=3)
    assert halves.axes == ("replicate", "half", "system", "topic")
    assert np.array_equal(halves.counts.sum(axis=1), np.broadcast_to(whole.counts, (40,) + whole.counts.shape))
    n = halves.counts.sum(axis=(-1, -2))  # items per (replicate, half, system, topic)
    assert np.array_equal(n[:, 0], np.broadcast_to([[4, 5, 2]] * 4, n[:, 0].shape))  # floor(n/2)
    gold_pos = halves.counts[..., 1, :].sum(-1)
    assert np.all(gold_pos == gold_pos[:, :, :1, :])  # same split: every system sees the same gold
    again = split_half_counts(runs, replicates=40, seed=3)
    assert np.array_equal(again.counts, halves.counts)
    assert not np.array_equal(split_half_counts(runs, replicates=40, seed=4).counts, halves.counts)


def test_each_item_lands_in_either_half_evenly():
    runs = _runs(items=(50, 50, 50), systems=1)
    halves = split_half_counts(runs, replicates=2000, seed=0)
    share = halves.counts[:, 0].sum(axis=(-1, -2)) / 25.0
    assert np.allclose(share, 1.0)
    positives = halves.counts[:, 0, 0, :, 1, :].sum(-1)  # gold positives in half 0, per topic
    total = fm.count(runs).counts[0, :, 1, :].sum(-1)
    assert np.allclose(positives.mean(axis=0), total / 2, rtol=0.05)  # hypergeometric mean


def _reference(halves, name, tolerance=1e-5):
    scores = halves.evaluate([name])[name]  # [R, 2, S, T]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        macro = np.nanmean(scores, axis=-1)  # [R, 2, S]
    sign = 1.0 if name != "error_rate" else -1.0
    swaps = comparisons = 0
    for r in range(macro.shape[0]):
        for i, j in itertools.combinations(range(macro.shape[2]), 2):
            d0, d1 = sign * (macro[r, 0, i] - macro[r, 0, j]), sign * (macro[r, 1, i] - macro[r, 1, j])
            if np.isnan(d0) or np.isnan(d1):
                continue
            s0 = 0 if abs(d0) <= tolerance else np.sign(d0)
            s1 = 0 if abs(d1) <= tolerance else np.sign(d1)
            comparisons += 1
            swaps += s0 != s1
    std = [np.nanstd(macro[:, :, s].reshape(-1), ddof=1) for s in range(macro.shape[2])]
    return swaps, comparisons, std


@pytest.mark.parametrize("name", ["accuracy", "mcc", "error_rate"])
def test_job_against_a_loop(name):
    runs = _runs(seed=2)
    result = meta.stability(runs, measures=[name], replicates=30, seed=5)
    halves = split_half_counts(runs, replicates=30, seed=5)
    swaps, comparisons, std = _reference(halves, name)
    row = result.summary.to_pylist()[0]
    assert (row["swaps"], row["comparisons"]) == (swaps, comparisons)
    assert row["swap_rate"] == pytest.approx(swaps / comparisons)
    assert [r["std"] for r in result.detail.to_pylist()] == pytest.approx(std, nan_ok=True)


def test_stability_errors():
    scores_only = pa.table({"system": ["a", "a"], "item": [1, 2], "gold": [True, False], "score": [0.2, 0.8]})
    with pytest.raises(fm.InputError, match="hard predictions"):
        meta.stability(scores_only, measures=["f1"], replicates=2)
    with pytest.raises(fm.ParameterError, match="replicates"):
        meta.stability(_runs(), measures=["f1"], replicates=0)


def test_split_halves_count_lacking_items_as_negative():
    """--missing negative: the gold defines the items; a run's lacking items are predicted
    negative in whichever half they fall, so the halves still add up to fm.count's counts."""
    gold = pa.table({"topic": ["t"] * 6, "item": list(range(6)), "gold": [True, False, True, True, False, False]})
    runs = pa.table(
        {
            "system": ["a"] * 6 + ["b"] * 4,
            "topic": ["t"] * 10,
            "item": list(range(6)) + [0, 1, 2, 3],
            "pred": [True, True, False, True, False, True, True, False, True, True],
        }
    )
    halves = split_half_counts(runs, gold, replicates=7, seed=3, missing="negative")
    whole = fm.count(runs, gold, missing="negative")
    np.testing.assert_array_equal(halves.counts.sum(axis=1), np.broadcast_to(whole.counts, (7,) + whole.counts.shape))
    assert whole.counts[1, 0, 0, 0] == 3  # item 1, and the lacking items 4 and 5 (gold negative)
    result = meta.stability(runs, gold, measures=["accuracy"], replicates=3, missing="negative")
    assert result.summary.num_rows == 1
