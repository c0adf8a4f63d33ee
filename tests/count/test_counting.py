"""Counting kernels against brute-force numpy counts written in the test."""

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import confusion_matrix_at_thresholds

import fastmetrics as fm


def random_runs(seed, n_systems=3, n_topics=4, n_items=50, ties=True):
    rng = np.random.default_rng(seed)
    s, t, i = np.indices((n_systems, n_topics, n_items)).reshape(3, -1)
    score = rng.integers(0, 8, s.size) / 4.0 if ties else rng.normal(size=s.size)
    gold = rng.random(s.size) < 0.3
    return pa.table(
        {
            "system": [f"s{x}" for x in s],
            "topic": t.astype(np.int64),
            "item": i,
            "gold": gold,
            "score": score,
            "pred": score >= 1.0,
        }
    ), (s, t, gold, score)


def brute_force(s, t, gold, positive, n_systems, n_topics):
    out = np.zeros((n_systems, n_topics, 2, 2), np.int64)
    for a in range(n_systems):
        for b in range(n_topics):
            m = (s == a) & (t == b)
            g, p = gold[m], positive[m]
            out[a, b] = [[np.sum(~g & ~p), np.sum(~g & p)], [np.sum(g & ~p), np.sum(g & p)]]
    return out


def test_hard_counts_equal_brute_force():
    table, (s, t, gold, score) = random_runs(1)
    tensor = fm.count(table)
    assert tensor.axes == ("system", "topic")
    np.testing.assert_array_equal(tensor.counts, brute_force(s, t, gold, score >= 1.0, 3, 4))


@pytest.mark.parametrize("thresholds", [9, [0.0, 0.25, 1.0, 1.75], [0.3, 0.1, 2.0], 1])
def test_sweep_counts_equal_brute_force_with_ties(thresholds):
    table, (s, t, gold, score) = random_runs(2)
    tensor = fm.count(table, thresholds=thresholds)
    grid = tensor.coords["threshold"]
    if isinstance(thresholds, int):
        # k evenly spaced values over the observed score range of the whole input
        np.testing.assert_allclose(grid, np.linspace(score.min(), score.max(), thresholds))
    for k, thr in enumerate(grid):
        np.testing.assert_array_equal(
            tensor.counts[:, :, k], brute_force(s, t, gold, score >= thr, 3, 4), err_msg=f"threshold {thr}"
        )


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10_000), k=st.integers(1, 40), n=st.integers(1, 300))
def test_sweep_random_grids_and_scores(seed, k, n):
    rng = np.random.default_rng(seed)
    score = np.round(rng.normal(size=n), 1)  # many ties, also on grid points
    gold = rng.random(n) < 0.4
    table = pa.table({"system": ["a"] * n, "gold": gold, "score": score})
    grid = np.unique(np.round(rng.normal(size=k), 1))
    for thresholds in (k, grid):
        tensor = fm.count(table, by=("system",), thresholds=thresholds)
        for j, thr in enumerate(tensor.coords["threshold"]):
            positive = score >= thr
            expected = [
                [np.sum(~gold & ~positive), np.sum(~gold & positive)],
                [np.sum(gold & ~positive), np.sum(gold & positive)],
            ]
            np.testing.assert_array_equal(tensor.counts[0, j], expected)


def test_exact_sweep_equals_sklearn_per_group():
    table, (s, t, gold, score) = random_runs(3, ties=True)
    tensor = fm.count(table, thresholds="exact")
    cells = tensor.to_arrow().to_pandas()
    for (system, topic), group in cells.groupby(["system", "topic"], sort=False):
        m = (s == int(system[1:])) & (t == topic)
        tns, fps, fns, tps, thr = confusion_matrix_at_thresholds(gold[m], score[m])
        np.testing.assert_array_equal(group["threshold"].to_numpy(), thr)
        np.testing.assert_array_equal(group[["tn", "fp", "fn", "tp"]].to_numpy().T, [tns, fps, fns, tps])


def test_weighted_counts():
    table, (s, t, gold, score) = random_runs(4)
    w = np.random.default_rng(0).uniform(0.5, 2.0, len(s))
    tensor = fm.count(table.append_column("weight", pa.array(w)), weight="weight")
    assert tensor.counts.dtype == np.float64
    positive = score >= 1.0
    for a in range(3):
        for b in range(4):
            m = (s == a) & (t == b)
            assert tensor.counts[a, b, 1, 1] == pytest.approx(w[m & gold & positive].sum())
            assert tensor.counts[a, b, 0, 0] == pytest.approx(w[m & ~gold & ~positive].sum())


def test_batches_add_up_over_a_parquet_dataset(tmp_path, monkeypatch):
    import pyarrow.parquet as pq

    from fastmetrics.io import readahead

    table, _ = random_runs(5, n_systems=4, n_topics=5, n_items=40)
    folder = tmp_path / "runs"
    folder.mkdir()
    for i in range(4):  # each file holds a different slice of systems and topics
        pq.write_table(table.slice(i * 200, 200), folder / f"part{i}.parquet", row_group_size=37)
    monkeypatch.setattr(readahead, "BATCH_ROWS", 50)
    whole = fm.count(table, thresholds=7)
    streamed = fm.count(str(folder), thresholds=7)
    np.testing.assert_array_equal(streamed.counts, whole.counts)
    np.testing.assert_array_equal(streamed.coords["threshold"], whole.coords["threshold"])


def test_sum_over_topics_is_micro_pooling():
    table, (s, t, gold, score) = random_runs(6)
    tensor = fm.count(table)
    pooled = tensor.sum("topic")
    assert pooled.axes == ("system",)
    by_system = fm.count(table, by=("system",))
    np.testing.assert_array_equal(pooled.counts, by_system.counts)
    one = tensor.sel(system="s1")
    np.testing.assert_array_equal(one.counts, tensor.counts[1])
