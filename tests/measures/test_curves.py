"""Curve and ranking measures against scikit-learn and an independent loop: exact sweeps with
ties, weights and one-class groups; grids within their documented bound; ranked lists."""

from __future__ import annotations

import warnings

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import auc, average_precision_score, precision_recall_curve, roc_auc_score, roc_curve

import fastmetrics as fm
from fastmetrics.measures import registry

CURVES = registry.names(kind="curve")
RANKINGS = registry.names(kind="ranking")


def _groups(draw_seed, n_groups=4, n_items=30, levels=5, weighted=False):
    rng = np.random.default_rng(draw_seed)
    group = rng.integers(0, n_groups, n_items)
    gold = rng.random(n_items) < rng.uniform(0.05, 0.95)
    score = rng.integers(0, levels, n_items) + 0.5 * gold * rng.integers(0, 2, n_items)  # ties, some signal
    weight = rng.uniform(0.1, 3.0, n_items) if weighted else None
    columns = {"system": group, "item": np.arange(n_items), "gold": gold, "score": score}
    if weighted:
        columns["w"] = weight
    return pa.table(columns), group, gold, score, weight


def _sk(fn, gold, score, weight, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(gold, score, sample_weight=weight, **kw)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), weighted=st.booleans(), levels=st.integers(1, 8))
def test_exact_sweep_areas_equal_scikit_learn(seed, weighted, levels):
    table, group, gold, score, weight = _groups(seed, weighted=weighted, levels=levels)
    tensor = fm.count(table, by="system", thresholds="exact", weight="w" if weighted else None)
    scores = tensor.evaluate(["roc_auc", "roc_auc(max_fpr=0.25)", "average_precision", "pr_auc"])
    for k, system in enumerate(scores.coords["system"]):
        m = group == system
        g, s, w = gold[m], score[m], None if weight is None else weight[m]
        if g.all() or not g.any():  # one class: no ROC curve
            assert np.isnan(scores["roc_auc"][k]) and np.isnan(scores["roc_auc(max_fpr=0.25)"][k])
        else:
            assert scores["roc_auc"][k] == pytest.approx(_sk(roc_auc_score, g, s, w), abs=1e-12)
            assert scores["roc_auc(max_fpr=0.25)"][k] == pytest.approx(
                _sk(roc_auc_score, g, s, w, max_fpr=0.25), abs=1e-12
            )
        if not g.any():
            assert np.isnan(scores["average_precision"][k]) and np.isnan(scores["pr_auc"][k])
            continue
        assert scores["average_precision"][k] == pytest.approx(_sk(average_precision_score, g, s, w), abs=1e-12)
        precision, recall, _ = _sk(precision_recall_curve, g, s, w)
        assert scores["pr_auc"][k] == pytest.approx(auc(recall, precision), abs=1e-12)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), level=st.sampled_from([0.0, 0.1, 0.3, 0.5, 0.8, 1.0]))
def test_operating_points_read_from_scikit_learn_curves(seed, level):
    table, group, gold, score, _ = _groups(seed)
    specs = [
        f"precision_at_recall(recall={level})",
        f"recall_at_precision(precision={level})",
        f"tpr_at_fpr(fpr={level})",
    ]
    scores = fm.count(table, by="system", thresholds="exact").evaluate(specs)
    for k, system in enumerate(scores.coords["system"]):
        m = group == system
        g, s = gold[m], score[m]
        if not g.any():
            assert np.isnan(scores.values[:, k]).all()
            continue
        precision, recall, _ = precision_recall_curve(g, s, drop_intermediate=False)
        precision, recall = precision[:-1], recall[:-1]  # the last point (recall 0, precision 1) is no operating point
        assert scores.values[0, k] == pytest.approx(precision[recall >= level].max(), abs=1e-12)
        reach = recall[precision >= level]
        assert scores.values[1, k] == pytest.approx(reach.max() if reach.size else 0.0, abs=1e-12)
        if g.all():
            assert np.isnan(scores.values[2, k])
        else:
            fpr, tpr, _ = roc_curve(g, s, drop_intermediate=False)
            assert scores.values[2, k] == pytest.approx(tpr[fpr <= level].max(), abs=1e-12)


def test_one_class_group_warns():
    table = pa.table(
        {
            "system": ["a"] * 4 + ["b"] * 4,
            "item": list(range(8)),
            "gold": [1, 1, 1, 1, 0, 1, 0, 1],
            "score": [0.1, 0.2, 0.3, 0.4, 0.1, 0.2, 0.3, 0.4],
        }
    )
    tensor = fm.count(table, by="system", thresholds="exact")
    with pytest.warns(fm.UndefinedMeasureWarning, match=r"roc_auc is undefined in 1 of 2"):
        scores = tensor.evaluate("roc_auc", warn=True)
    assert np.isnan(scores["roc_auc"][0]) and scores["roc_auc"][1] == 0.75


@pytest.mark.parametrize("k", [3, 11, 41])
def test_grid_auc_within_its_bound(k):
    rng = np.random.default_rng(k)
    gold = rng.random(400) < 0.3
    score = rng.normal(size=400) + gold
    table = pa.table({"system": np.zeros(400, int), "item": np.arange(400), "gold": gold, "score": score})
    grid = fm.count(table, by="system", thresholds=k)
    approx = grid.evaluate("roc_auc")["roc_auc"][0]
    exact = roc_auc_score(gold, score)
    tpr = np.concatenate([[0.0], grid.tp[0, ::-1] / gold.sum(), [1.0]])
    fpr = np.concatenate([[0.0], grid.fp[0, ::-1] / (~gold).sum(), [1.0]])
    bound = 0.5 * np.sum(np.diff(tpr) * np.diff(fpr))
    assert abs(approx - exact) <= bound + 1e-12
    # a grid through every distinct score is the exact sweep
    every = fm.count(table, by="system", thresholds=np.unique(score))
    assert every.evaluate("roc_auc")["roc_auc"][0] == pytest.approx(exact, abs=1e-12)


def _ranked_oracle(gold, score, cutoff, k):
    order = np.argsort(-score, kind="stable")  # equal scores keep the input order
    rel = gold[order]
    top = rel[: int(min(cutoff, rel.size))]
    hits = np.flatnonzero(top)
    precisions = np.arange(1, hits.size + 1) / (hits + 1)
    r = gold.sum()
    return {
        "ranked_ap": precisions.sum() / r if r else np.nan,
        "ranked_ap_retrieved": precisions.mean() if hits.size else np.nan,
        "precision_at_k": rel[:k].sum() / k,
        "recall_at_k": rel[:k].sum() / r if r else np.nan,
        "reciprocal_rank": 1.0 / (hits[0] + 1) if hits.size else (0.0 if r else np.nan),
    }


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), cutoff=st.sampled_from([1, 3, 10, np.inf]), k=st.integers(1, 12))
def test_ranking_measures_equal_a_loop(seed, cutoff, k):
    table, group, gold, score, _ = _groups(seed, levels=3)
    cut = "inf" if np.isinf(cutoff) else int(cutoff)
    specs = [
        f"ranked_ap(cutoff={cut})",
        f"ranked_ap_retrieved(cutoff={cut})",
        f"precision_at_k(k={k})",
        f"recall_at_k(k={k})",
        f"reciprocal_rank(cutoff={cut})",
    ]
    scores = fm.count(table, by="system", thresholds="ranks").evaluate(specs)
    for j, system in enumerate(scores.coords["system"]):
        m = group == system
        expected = _ranked_oracle(gold[m], score[m], cutoff, k)
        for i, name in enumerate(expected):
            assert scores.values[i, j] == pytest.approx(expected[name], abs=1e-12, nan_ok=True), (name, system)


def test_rank_sweep_orders_ties_and_counts_unreturned_relevant_items():
    runs = pa.table({"system": ["s"] * 3, "topic": [1, 1, 1], "item": ["c", "a", "b"], "score": [1.0, 1.0, 0.5]})
    gold = pa.table({"topic": [1, 1, 1, 1], "item": ["a", "b", "c", "d"], "gold": [True, False, False, True]})
    by_input = fm.count(runs, gold, thresholds="ranks", missing="negative")
    assert by_input.coords["rank"].tolist() == [1, 2, 3]
    # input order: c (0), a (1), b (0); d relevant but not returned: R = 2
    assert by_input.evaluate("ranked_ap")["ranked_ap"][0, 0] == pytest.approx(0.5 / 2)
    by_item = fm.count(runs, gold, thresholds="ranks", missing="negative", ties="item")
    assert by_item.evaluate("ranked_ap,reciprocal_rank").values[:, 0, 0] == pytest.approx([1 / 2, 1.0])


def test_wrong_sweep_or_mix_is_a_clear_error():
    table, *_ = _groups(1)
    hard = fm.count(table.append_column("pred", table.column("gold")), by="system")
    with pytest.raises(fm.ParameterError, match=r"threshold sweep.*'exact'"):
        hard.evaluate("roc_auc")
    exact = fm.count(table, by="system", thresholds="exact")
    with pytest.raises(fm.ParameterError, match=r"thresholds='ranks'"):
        exact.evaluate("ranked_ap")
    with pytest.raises(fm.ParameterError, match=r"separate calls"):
        exact.evaluate("roc_auc,f1")
    with pytest.raises(fm.ParameterError, match=r"ties"):
        fm.count(table, by="system", thresholds="ranks", ties="random")
    with pytest.raises(fm.ParameterError, match=r"cutoff.*>= 1"):
        exact.evaluate("reciprocal_rank(cutoff=0)")


def test_leaderboard_of_curve_measures():
    rng = np.random.default_rng(5)
    n = 600
    table = pa.table(
        {
            "system": rng.integers(0, 3, n),
            "topic": rng.integers(0, 4, n),
            "item": np.arange(n),
            "gold": rng.random(n) < 0.4,
            "score": rng.normal(size=n),
        }
    )
    tensor = fm.count(table, thresholds="exact")
    board = fm.board.leaderboard(tensor, ["roc_auc", "average_precision"]).summary.to_pylist()
    per_topic = tensor.evaluate(["roc_auc", "average_precision"])
    for row in board:
        s = list(per_topic.coords["system"]).index(row["system"])
        assert row["macro"] == pytest.approx(np.nanmean(per_topic[row["measure"]][s]))
        assert np.isnan(row["micro"]) and row["kind"] == "system"


def test_every_curve_and_ranking_measure_has_a_record():
    catalog = fm.measures().to_pylist()
    kinds = {r["name"]: r["kind"] for r in catalog}
    assert {kinds[n] for n in CURVES} == {"curve"} and {kinds[n] for n in RANKINGS} == {"ranking"}
    for name in CURVES + RANKINGS:
        record = registry.get(name)
        assert record.summary and record.formula and record.reference and record.undefined_when
        # trec_eval's counts (num_ret ...) and gm_map's log AP are the ranking measures on another scale
        unbounded = {"num_ret", "num_rel", "num_rel_ret", "log_ap"}
        assert (record.range == (0.0, 1.0) or name in unbounded) and record.higher_is_better


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), level=st.sampled_from([0.05, 0.3, 0.7, 0.95]), grid=st.booleans())
def test_operating_points_name_the_threshold_reaching_them(seed, level, grid):
    from fastmetrics.measures.evaluation import operating_points

    table, group, gold, score, _ = _groups(seed, levels=6)
    tensor = fm.count(table, by="system", thresholds=5 if grid else "exact")
    specs = [
        f"precision_at_recall(recall={level})",
        f"recall_at_precision(precision={level})",
        f"tpr_at_fpr(fpr={level})",
    ]
    for row in operating_points(tensor, specs).to_pylist():
        m = group == row["system"]
        g, s = gold[m], score[m]
        if row["value"] is None:
            assert row["threshold"] is None
            continue
        pred = s >= row["threshold"]  # inf: nothing positive, -inf: everything
        tp, fp = (pred & g).sum(), (pred & ~g).sum()
        recall, fpr = tp / g.sum(), (fp / (~g).sum() if (~g).any() else np.nan)
        precision = tp / (tp + fp) if tp + fp else np.nan
        name = row["measure"].split("(")[0]
        if name == "precision_at_recall":
            assert recall >= level and precision == pytest.approx(row["value"])
        elif name == "recall_at_precision":
            assert recall == pytest.approx(row["value"]) and (row["value"] == 0 or precision >= level)
        else:
            assert fpr <= level and recall == pytest.approx(row["value"])
