"""Leaderboard intervals: macro means with topics resampled (paired across systems), micro values
with items resampled, rank intervals and the group tied with the leader."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
from scipy import stats

import fastmetrics as fm
from fastmetrics.board import leaderboard


def _runs(skills, topics=40, items=60, seed=0):
    rng = np.random.default_rng(seed)
    gold = rng.random((topics, items)) < 0.4
    rows = {"system": [], "topic": [], "item": [], "gold": [], "pred": []}
    for s, skill in enumerate(skills):
        correct = rng.random(gold.shape) < skill
        pred = np.where(correct, gold, ~gold)
        rows["system"] += [f"s{s}"] * gold.size
        rows["topic"] += np.repeat(np.arange(topics), items).tolist()
        rows["item"] += np.tile(np.arange(items), topics).tolist()
        rows["gold"] += gold.reshape(-1).tolist()
        rows["pred"] += pred.reshape(-1).tolist()
    return pa.table(rows)


def test_macro_and_micro_intervals_agree_with_scipy():
    tensor = fm.count(_runs([0.9, 0.8, 0.7]))
    board = leaderboard(tensor, ["accuracy"], baselines=False, ci=0.9, resamples=4000, seed=1).summary.to_pylist()
    per_topic = tensor.evaluate("accuracy").values[0]  # [system, topic]
    for s, row in enumerate(board):
        ref = stats.bootstrap(
            (per_topic[s],), np.mean, n_resamples=4000, confidence_level=0.9, method="percentile", random_state=2
        ).confidence_interval
        se = per_topic[s].std() / np.sqrt(per_topic.shape[1])
        assert abs(row["macro_low"] - ref.low) < 0.15 * se and abs(row["macro_high"] - ref.high) < 0.15 * se
        pooled = tensor.sum("topic").counts[s]
        n, correct = pooled.sum(), pooled[0, 0] + pooled[1, 1]
        items = np.repeat([1.0, 0.0], [correct, n - correct])
        ref = stats.bootstrap(
            (items,), np.mean, n_resamples=4000, confidence_level=0.9, method="percentile", random_state=3
        ).confidence_interval
        se = items.std() / np.sqrt(n)
        assert abs(row["micro_low"] - ref.low) < 0.15 * se and abs(row["micro_high"] - ref.high) < 0.15 * se
        assert row["macro_low"] <= row["macro"] <= row["macro_high"]


def test_rank_intervals_and_the_tie_group():
    tensor = fm.count(_runs([0.95, 0.80, 0.80, 0.60]))
    rows = leaderboard(tensor, ["accuracy"], ci=0.95, resamples=1000, seed=0).summary.to_pylist()
    systems = {r["system"]: r for r in rows if r["kind"] == "system"}
    assert (systems["s0"]["rank_low"], systems["s0"]["rank_high"]) == (1, 1)
    assert systems["s0"]["tied_with_leader"] and not systems["s1"]["tied_with_leader"]
    assert systems["s1"]["rank_low"] == 2 and systems["s2"]["rank_high"] == 3  # the two equal systems swap
    assert (systems["s3"]["rank_low"], systems["s3"]["rank_high"]) == (4, 4)
    baselines = [r for r in rows if r["kind"] == "baseline"]
    assert baselines and all(r["macro_low"] is None and r["rank_low"] is None for r in baselines)
    again = leaderboard(tensor, ["accuracy"], ci=0.95, resamples=1000, seed=0).summary
    assert again.equals(leaderboard(tensor, ["accuracy"], ci=0.95, resamples=1000, seed=0).summary)


def test_cli_leaderboard_intervals(tmp_path):
    import pyarrow.csv as pacsv

    from fastmetrics.cli import main

    path = tmp_path / "runs.csv"
    pacsv.write_csv(_runs([0.9, 0.7], topics=10, items=20), path)
    out = tmp_path / "board.csv"
    assert (
        main(
            [
                "leaderboard",
                str(path),
                "--measures",
                "accuracy,f1",
                "--ci",
                "0.9",
                "--resamples",
                "200",
                "--no-baselines",
                "--long",
                "--out",
                str(out),
                "--quiet",
            ]
        )
        == 0
    )
    table = pacsv.read_csv(out)
    assert {"macro_low", "macro_high", "rank_low", "rank_high", "tied_with_leader"} <= set(table.column_names)
    assert main(["leaderboard", str(path), "--ci", "2"]) == 2
