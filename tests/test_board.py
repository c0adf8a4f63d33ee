"""The leaderboard against a Python loop over the raw rows (K from seed 000 eq. 5 written here)."""

import math

import numpy as np
import pytest

import fastmetrics as fm
from fastmetrics.board import macro_leaderboard
from fastmetrics.demo import generate


def k_eq5(gold, pred):
    tp = np.sum(gold & pred)
    fn = np.sum(gold & ~pred)
    fp = np.sum(~gold & pred)
    tn = np.sum(~gold & ~pred)
    ap, an = tp + fn, fp + tn
    if ap and an:
        return tp / ap + tn / an - 1
    return 2 * tn / an - 1 if an else 2 * tp / ap - 1


def test_macro_leaderboard_equals_loop():
    raw = generate().to_pandas()
    table = macro_leaderboard(fm.count(generate()).evaluate(["k", "mcc"])).to_pylist()
    expected = {}
    for system, rows in raw.groupby("system"):
        ks = [k_eq5(g.gold.to_numpy(), g.pred.to_numpy()) for _, g in rows.groupby("topic")]
        expected[system] = float(np.mean(ks))
    assert [r["rank"] for r in table] == list(range(1, 21))
    for r in table:
        assert r["mean_k"] == pytest.approx(expected[r["system"]], abs=1e-12)
    means = [r["mean_k"] for r in table]
    assert means == sorted(means, reverse=True)
    # the two topics with no positive leave MCC undefined, K is defined there (eq. 5)
    assert all(r["undefined_topics"] == 2 for r in table)
    assert all(not math.isnan(r["mean_mcc"]) for r in table)


def test_macro_leaderboard_needs_system_and_topic():
    scores = fm.count(generate(), by=("system",)).evaluate("k")
    with pytest.raises(fm.ParameterError, match="system, topic"):
        macro_leaderboard(scores)
