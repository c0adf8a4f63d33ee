"""The pipeline computes once: each measure evaluated once per count array, each figure drawn
once, and the curves of every system from one count -- with the values an independent loop gives."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pyarrow as pa
import pytest
from sklearn.metrics import average_precision_score, roc_auc_score, roc_curve

import fastmetrics as fm
from fastmetrics.measures import api
from fastmetrics.pipeline import report_data, threshold_curves
from fastmetrics.report import figures, html

N_SYSTEMS, N_TOPICS, N_ITEMS = 4, 5, 60


def _runs(seed=0) -> pa.Table:
    rng = np.random.default_rng(seed)
    rows = {"system": [], "topic": [], "item": [], "gold": [], "score": [], "pred": []}
    gold = rng.random((N_TOPICS, N_ITEMS)) < 0.3
    for s in range(N_SYSTEMS):
        # each system on its own scale: a shared grid would flatten most curves
        score = (gold + rng.normal(0, 1.0, gold.shape)) * (s + 1) * 3 - 5 * s
        for t in range(N_TOPICS):
            for i in range(N_ITEMS):
                rows["system"].append(f"sys{s}")
                rows["topic"].append(t)
                rows["item"].append(i)
                rows["gold"].append(bool(gold[t, i]))
                rows["score"].append(float(score[t, i]))
                rows["pred"].append(bool(score[t, i] >= 0))
    return pa.table(rows)


@pytest.fixture()
def calls(monkeypatch):
    """Every (measure, count-array shape) the measures stage evaluates."""
    seen = Counter()
    original = api.values_of

    def counting(spec, c, **kw):
        seen[(spec.base_label, c.shape[:-2])] += 1
        return original(spec, c, **kw)

    monkeypatch.setattr(api, "values_of", counting)
    return seen


def test_report_evaluates_each_measure_once(calls):
    runs = _runs()
    tensor = fm.count(runs)
    measures = ["f1", "mcc", "k", "accuracy"]
    data = report_data(tensor, measures, runs=runs, thresholds=11, resamples=50, pairs=20)
    board_cells = (N_SYSTEMS * N_TOPICS + N_SYSTEMS + 2 * (N_TOPICS + 1),)  # per topic, pooled, baselines
    grid_cells = (N_SYSTEMS * 11,)  # each system's own 11 thresholds, topics pooled
    exact_cells = (len(set(zip(runs.column("system").to_pylist(), runs.column("score").to_pylist()))),)
    expected = Counter({(m, board_cells): 1 for m in measures})
    expected.update({(m, grid_cells): 1 for m in measures[:2]})
    expected.update({(m, exact_cells): 1 for m in ("recall", "fallout", "precision")})  # the ROC and PR points
    expected.update({(m, (N_SYSTEMS, 50)): 1 for m in measures})  # micro intervals: 50 resampled pooled matrices
    assert calls == expected
    assert data.scores.measures == tuple(measures)


def test_leaderboard_values_equal_separate_evaluations():
    runs = _runs(1)
    tensor = fm.count(runs)
    board = fm.board.leaderboard(tensor, ["f1", "mcc"]).summary.to_pylist()
    per_topic = tensor.evaluate(["f1", "mcc"])
    pooled = tensor.sum("topic").evaluate(["f1", "mcc"])
    for row in (r for r in board if r["kind"] == "system"):
        s = list(tensor.coords["system"]).index(row["system"])
        values = per_topic[row["measure"]][s]
        assert row["macro"] == pytest.approx(np.nanmean(values))
        assert row["micro"] == pytest.approx(pooled[row["measure"]][s])
    ap = tensor.counts[0, :, 1, :].sum(-1)
    an = tensor.counts[0, :, 0, :].sum(-1)
    placebo = [r for r in board if r["system"] == "placebo" and r["measure"] == "f1"][0]
    zeros = np.zeros_like(ap)
    assert placebo["macro"] == pytest.approx(np.nanmean(fm.compute("f1", tp=ap, fp=an, fn=zeros, tn=zeros, warn=False)))


def test_curves_are_each_systems_own_grid():
    runs = _runs(2)
    systems = ["sys3", "sys0"]
    result = threshold_curves(runs, None, systems, ["f1", "accuracy"], 7)
    curves, best = result.grid, result.best
    assert [c[0] for c in curves] == systems
    table = runs.to_pydict()
    for system, grid, values in curves:
        keep = [i for i, s in enumerate(table["system"]) if s == system]
        score = np.array(table["score"])[keep]
        gold = np.array(table["gold"])[keep]
        assert grid[0] == score.min() and grid[-1] == score.max()
        np.testing.assert_allclose(np.diff(grid), (score.max() - score.min()) / 6)
        pred = score[:, None] >= grid
        tp = (pred & gold[:, None]).sum(0)
        fp = (pred & ~gold[:, None]).sum(0)
        fn = (~pred & gold[:, None]).sum(0)
        np.testing.assert_allclose(values["f1"], 2 * tp / (2 * tp + fp + fn))
        np.testing.assert_allclose(values["accuracy"], (pred == gold[:, None]).mean(0))
        rows = [r for r in best.to_pylist() if r["system"] == system]
        assert [r["measure"] for r in rows] == ["f1", "accuracy"]
        f1_best = int(np.argmax(values["f1"]))
        assert rows[0]["threshold"] == grid[f1_best] and rows[0]["value"] == values["f1"][f1_best]
    assert [r["system"] for r in best.to_pylist()] == ["sys3", "sys3", "sys0", "sys0"]
    table = runs.to_pydict()
    for (system, fpr, tpr, area), (_, _recall, _precision, ap) in zip(result.roc, result.pr):
        keep = np.array(table["system"]) == system
        gold, score = np.array(table["gold"])[keep], np.array(table["score"])[keep]
        assert area == pytest.approx(roc_auc_score(gold, score), abs=1e-12)
        assert ap == pytest.approx(average_precision_score(gold, score), abs=1e-12)
        sk_fpr, sk_tpr, _ = roc_curve(gold, score, drop_intermediate=False)
        np.testing.assert_allclose(fpr, sk_fpr[1:]) and np.testing.assert_allclose(tpr, sk_tpr[1:])


def test_curves_refuse_non_finite_scores():
    runs = _runs(3)
    score = np.array(runs.column("score").to_pylist())
    score[5] = np.nan
    runs = runs.set_column(runs.column_names.index("score"), "score", pa.array(score))
    with pytest.raises(fm.InputError, match=r"(?i)score.*(nan|finite)"):
        threshold_curves(runs, None, ["sys0"], ["f1"], 5)


@pytest.mark.parametrize("name, formats", [("r.html", ["png"]), ("r.md", ["png", "svg"])])
def test_each_figure_drawn_once_in_every_format(tmp_path, monkeypatch, name, formats):
    runs = _runs(4)
    data = report_data(fm.count(runs), ["f1", "mcc", "k"], runs=runs, thresholds=5, resamples=20, pairs=10)
    saved = []
    original = figures.save

    def counting(fig, fmts=("png",)):
        saved.append(tuple(fmts))
        return original(fig, fmts)

    monkeypatch.setattr(figures, "save", counting)
    drawn = html.write_report(data, tmp_path / name)
    # curves, ranks, ROC, PR, the critical-difference diagram, 2 scatters, strictness, robustness, inconsistency
    assert len(saved) == len(drawn) == 10
    assert "critical_difference" in [f.name for f in drawn]
    assert all(list(f) == formats for f in saved)
    assert all(sorted(f.files) == sorted(formats) for f in drawn)


@pytest.mark.parametrize("weighted", [False, True])
def test_reliability_ece_is_the_measure_over_the_same_bins(weighted):
    """The reliability diagram's ECE, read off its bins, is ``ece(bins=10)`` to the last bit:
    scores on the bin edges, at 0 and 1, ties and a system without positives."""
    rng = np.random.default_rng(4)
    n = 300
    gold = rng.random(n) < 0.35
    scores = {
        "smooth": np.clip(0.3 * gold + 0.7 * rng.random(n), 0, 1),
        "edges": rng.integers(0, 11, n) / 10,  # every score on an edge b / 10 (1.0 in the last bin)
        "coarse": np.round(rng.random(n), 1) * 0.999,
    }
    runs = pa.table(
        {
            "system": np.repeat(list(scores), n),
            "item": np.tile(np.arange(n), len(scores)),
            "gold": np.tile(gold, len(scores)),
            "score": np.concatenate(list(scores.values())),
            **({"weight": rng.random(n * len(scores)) + 0.5} if weighted else {}),
        }
    )
    weight = "weight" if weighted else None
    curves = threshold_curves(runs, None, list(scores), ["f1", "mcc"], 5, weight=weight)
    exact = fm.count(runs, by=("system",), thresholds="exact", weight=weight)
    measured = exact.evaluate(["ece(bins=10)", "brier"])
    systems = [str(s) for s in measured.coords["system"]]
    assert [r[0] for r in curves.reliability] == list(scores)
    for system, _, frequency, mass, ece, brier in curves.reliability:
        at = systems.index(system)
        assert ece == measured.values[0, at] and brier == measured.values[1, at]
        items = runs.filter(pa.compute.equal(runs.column("system"), system))
        assert mass.sum() == pytest.approx(pa.compute.sum(items.column("weight")).as_py() if weighted else n)
        assert np.isnan(frequency[mass == 0]).all()
