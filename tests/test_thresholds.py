"""Grids that fit each system, best thresholds on every kind of sweep, and thresholds chosen
without leakage (cross-topic folds, split halves) -- against loops over the raw scores."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv
import pytest
from sklearn.metrics import f1_score

import fastmetrics as fm
from fastmetrics.board import best_thresholds, held_out_scores
from fastmetrics.cli import main
from fastmetrics.count.grid import threshold_grid
from fastmetrics.count.halves import halves_sweep


def _runs(seed=0, systems=3, topics=6, items=40, signal=1.0):
    rng = np.random.default_rng(seed)
    gold = rng.random((topics, items)) < 0.35
    rows = {"system": [], "topic": [], "item": [], "gold": [], "score": []}
    for s in range(systems):
        # each system on its own scale and offset
        score = (rng.normal(size=gold.shape) + signal * gold) * (1 + 2 * s) + 10 * s
        for t in range(topics):
            rows["system"] += [f"s{s}"] * items
            rows["topic"] += [t] * items
            rows["item"] += list(range(items))
            rows["gold"] += gold[t].tolist()
            rows["score"] += score[t].tolist()
    return pa.table(rows), gold


@pytest.mark.parametrize("path", ["numpy", "kernels"])  # numpy: a small sweep; kernels: a large one
@pytest.mark.parametrize("grid", ["system", "quantile"])
def test_fitted_grids_count_like_a_loop(grid, path, monkeypatch):
    from fastmetrics.count import assemble, fitted

    if path == "kernels":
        monkeypatch.setattr(assemble, "SMALL_EXACT", 0)
        monkeypatch.setattr(fitted, "SMALL_EXACT", 0)
    table, _ = _runs()
    tensor = fm.count(table, thresholds=7, grid=grid)
    data = table.to_pydict()
    system, topic = np.array(data["system"]), np.array(data["topic"])
    score, gold = np.array(data["score"]), np.array(data["gold"])
    for label in np.unique(system):
        mine = score[system == label]
        expected = (
            threshold_grid(7, mine.min(), mine.max())
            if grid == "system"
            else np.unique(np.quantile(mine, np.linspace(0, 1, 7), method="inverted_cdf"))
        )
        cells = np.flatnonzero(tensor.coords["system"] == label)
        assert np.array_equal(np.unique(tensor.coords["threshold"][cells]), expected)
    for c in range(tensor.counts.shape[0]):
        keep = (system == tensor.coords["system"][c]) & (topic == tensor.coords["topic"][c])
        pred = score[keep] >= tensor.coords["threshold"][c]
        g = gold[keep]
        assert (tensor.tp[c], tensor.fp[c], tensor.fn[c], tensor.tn[c]) == (
            (pred & g).sum(),
            (pred & ~g).sum(),
            (~pred & g).sum(),
            (~pred & ~g).sum(),
        )


def test_best_threshold_of_an_exact_sweep_is_the_best_score():
    table, _ = _runs(1)
    best = best_thresholds(fm.count(table, by="system", thresholds="exact").evaluate("f1")).summary.to_pylist()
    data = table.to_pydict()
    for row in best:
        keep = np.array(data["system"]) == row["system"]
        score, gold = np.array(data["score"])[keep], np.array(data["gold"])[keep]
        values = [f1_score(gold, score >= t) for t in np.unique(score)]
        assert row["value"] == pytest.approx(max(values), abs=1e-12)
        assert row["threshold"] == np.unique(score)[int(np.argmax(values))]  # the lowest on ties


def test_cross_topic_selection_equals_a_leave_one_out_loop():
    table, _ = _runs(2, topics=8)
    scores = fm.count(table, thresholds=15).evaluate(["f1", "error_rate"])  # error rate: lower is better
    result = best_thresholds(scores, select="cross-topic")
    held = held_out_scores(scores, "cross-topic")
    grid = scores.coords["threshold"]
    for m, measure in enumerate(scores.measures):
        sign = 1 if measure == "f1" else -1
        for s in range(len(scores.coords["system"])):
            v = scores.values[m, s]  # [topic, threshold]
            expected = []
            for t in range(v.shape[0]):
                others = np.nanmean(np.delete(v, t, axis=0), axis=0)
                expected.append(v[t, int(np.argmax(sign * others))])
            np.testing.assert_allclose(held.values[m, s], expected)
            row = [r for r in result.summary.to_pylist() if r["measure"] == measure][s]
            assert row["held_out"] == pytest.approx(np.nanmean(expected))
            assert row["in_sample"] == pytest.approx(np.max(sign * np.nanmean(v, axis=0)) * sign)
            assert row["threshold"] == grid[int(np.argmax(sign * np.nanmean(v, axis=0)))]
            assert row["optimism"] == pytest.approx(sign * (row["in_sample"] - row["held_out"]))
            assert row["folds"] == v.shape[0]


def test_choosing_on_the_test_data_flatters_and_held_out_does_not():
    """Scores independent of gold: the in-sample best F1 beats predicting everything positive,
    the threshold chosen on other topics does not, on average."""
    table, gold = _runs(3, systems=30, topics=12, items=30, signal=0.0)
    for select in ("cross-topic", "split-half"):
        if select == "split-half":
            scores = halves_sweep(table, thresholds=31, seed=0).evaluate("f1")
        else:
            scores = fm.count(table, thresholds=31).evaluate("f1")
            prevalence = gold.mean(axis=1)
            assert np.nanmean(scores.values[..., 0]) == pytest.approx(np.mean(2 * prevalence / (1 + prevalence)))
        all_positive = np.nanmean(scores.values[..., 0])  # the lowest threshold: everything positive
        summary = best_thresholds(scores, select=select).summary
        in_sample = np.mean(summary.column("in_sample").to_numpy())
        held_out = np.mean(summary.column("held_out").to_numpy())
        assert in_sample > all_positive, select
        assert held_out <= all_positive + 1e-3 and held_out < in_sample, select


def test_halves_split_each_topic_the_same_way_for_every_system():
    table, gold = _runs(4, topics=3, items=11)
    tensor = halves_sweep(table, thresholds=5, seed=7)
    assert tensor.axes == ("system", "topic", "half", "threshold")
    n = tensor.counts.sum(axis=(-1, -2))  # items per (system, topic, half, threshold)
    assert np.all(n[..., 0, :] + n[..., 1, :] == 11) and np.all(np.abs(n[..., 0, :] - n[..., 1, :]) <= 1)
    positives = tensor.counts[..., 1, :].sum(-1)[..., 0]  # [system, topic, half]
    assert np.all(positives == positives[0])  # the same items in each half for every system
    fitted = halves_sweep(table, thresholds=5, grid="system", seed=7)
    assert fitted.axes == ("cell",) and set(fitted.coords["half"].tolist()) == {0, 1}


def test_command_line_selection(tmp_path, capsys):
    table, _ = _runs(5)
    path = tmp_path / "runs.parquet"
    import pyarrow.parquet as pq

    pq.write_table(table, path)
    out = tmp_path / "best.csv"
    argv = ["sweep", str(path), "--measures", "f1", "--thresholds", "11", "--select", "cross-topic"]
    assert main(argv + ["--folds", "3", "--out", str(out)]) == 0
    rows = pacsv.read_csv(out).to_pylist()
    assert {"held_out_macro", "in_sample_macro", "optimism", "threshold_std"} <= set(rows[0]) and rows[0]["folds"] == 3
    board = tmp_path / "board.csv"
    assert (
        main(
            [
                "leaderboard",
                str(path),
                "--measures",
                "f1",
                "--thresholds",
                "11",
                "--select",
                "split-half",
                "--long",
                "--out",
                str(board),
                "--quiet",
            ]
        )
        == 0
    )
    ranked = pacsv.read_csv(board).to_pylist()
    assert [r["kind"] for r in ranked] == ["system"] * 3 and all(r["macro"] == r["macro"] for r in ranked)
    capsys.readouterr()
    assert main(["leaderboard", str(path), "--measures", "f1", "--select", "cross-topic"]) == 2
    assert "--thresholds k" in capsys.readouterr().err
    assert main(["sweep", str(path), "--thresholds", "0.5", "--grid", "system"]) == 2
