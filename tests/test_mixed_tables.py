"""Ranking, curve and point measures in one evaluate / leaderboard call (MixedCounts), and AvgRec.

Point measures are checked against scikit-learn, ranking ones against trec_eval (pytrec_eval),
AvgRec against values worked by hand from the SemEval-2016 scorer's definition (the whole
official tables are reproduced in tests/fidelity/test_semeval2016_profile.py).
"""

import numpy as np
import pyarrow as pa
import pytest
from sklearn.metrics import f1_score

import fastmetrics as fm
from fastmetrics.board import leaderboard
from fastmetrics.cli import main
from fastmetrics.tensor import MixedCounts

pytrec_eval = pytest.importorskip("pytrec_eval")

# two systems, two topics; scores distinct within a list, a hard label per item
ROWS = [
    ("a", "q1", "d1", 0.9, True, True),
    ("a", "q1", "d2", 0.8, False, False),
    ("a", "q1", "d3", 0.7, True, True),
    ("a", "q2", "d4", 0.6, False, True),
    ("a", "q2", "d5", 0.5, True, False),
    ("b", "q1", "d1", 0.2, False, True),
    ("b", "q1", "d2", 0.9, True, False),
    ("b", "q1", "d3", 0.4, True, True),
    ("b", "q2", "d4", 0.3, False, True),
    ("b", "q2", "d5", 0.8, True, False),
]
RUNS = pa.table(dict(zip(("system", "topic", "item", "score", "pred", "gold"), map(list, zip(*ROWS)))))
ASKED = ["precision_at_k(k=2)", "f1", "reciprocal_rank", "precision_at_k(k=1)", "accuracy"]


def _mixed():
    hard = fm.count(RUNS, by=("system", "topic"))
    ranks = fm.count(RUNS, by=("system", "topic"), thresholds="ranks")
    return MixedCounts(hard, ranks)


def _oracles():
    runs = {(s, q): {} for s, q, *_ in ROWS}
    qrels: dict = {}
    for s, q, d, score, _, gold in ROWS:
        runs[(s, q)][d] = score
        qrels.setdefault(q, {})[d] = int(gold)
    trec = {s: pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank", "P_1", "P_2"}) for s in "ab"}
    out = {}
    for s in "ab":
        values = trec[s].evaluate({q: runs[(s, q)] for q in ("q1", "q2")})
        for q in ("q1", "q2"):
            rows = [r for r in ROWS if r[0] == s and r[1] == q]
            gold, pred = [r[5] for r in rows], [r[4] for r in rows]
            out[(s, q)] = {
                "precision_at_k(k=2)": values[q]["P_2"],
                "f1": f1_score(gold, pred, zero_division=np.nan),
                "reciprocal_rank": values[q]["recip_rank"],
                "precision_at_k(k=1)": values[q]["P_1"],
                "accuracy": np.mean(np.equal(gold, pred)),
            }
    return out


def test_one_evaluate_gives_each_measure_on_the_counts_it_reads_keyed_by_its_spec():
    scores = _mixed().evaluate(ASKED)
    assert scores.measures == tuple(ASKED)  # the order asked; two cutoffs of P@k side by side
    expected = _oracles()
    for i, system in enumerate(scores.coords["system"].tolist()):
        for j, topic in enumerate(scores.coords["topic"].tolist()):
            for measure in ASKED:
                got = scores[measure][i, j]
                assert got == pytest.approx(expected[(system, topic)][measure], nan_ok=True), (system, topic, measure)


def test_one_leaderboard_ranks_point_and_ranking_measures_with_the_point_baselines():
    board = leaderboard(_mixed(), ["reciprocal_rank", "f1"], significance="t").summary.to_pylist()
    rows = {(r["system"], r["measure"]): r for r in board}
    expected = _oracles()
    for s in "ab":
        assert rows[(s, "reciprocal_rank")]["macro"] == pytest.approx(
            np.mean([expected[(s, q)]["reciprocal_rank"] for q in ("q1", "q2")])
        )
        gold = [r[5] for r in ROWS if r[0] == s]
        assert rows[(s, "f1")]["micro"] == pytest.approx(f1_score(gold, [r[4] for r in ROWS if r[0] == s]))
    assert rows[("placebo", "f1")]["micro"] == pytest.approx(f1_score([r[5] for r in ROWS[:5]], [True] * 5))
    assert np.isnan(rows[("placebo", "reciprocal_rank")]["macro"])  # a baseline ranks nothing


def test_a_topic_one_part_lacks_is_nan_for_its_measures():
    ranks = fm.count(RUNS, by=("system", "topic"), thresholds="ranks")
    hard = fm.count(RUNS.filter(pa.compute.equal(RUNS["topic"], "q1")), by=("system", "topic"))
    scores = MixedCounts(hard, ranks).evaluate(["f1", "reciprocal_rank"])
    assert scores.coords["topic"].tolist() == ["q1", "q2"]
    assert np.isnan(scores["f1"][:, 1]).all() and not np.isnan(scores["reciprocal_rank"]).any()


def test_what_makes_no_sense_together_is_refused_with_the_reason():
    ranks = fm.count(RUNS, by=("system", "topic"), thresholds="ranks")
    with pytest.raises(fm.ParameterError, match="f1 read.s. hard predictions"):
        MixedCounts(None, ranks).evaluate(["reciprocal_rank", "f1"])
    with pytest.raises(fm.ParameterError, match="need the items"):
        _mixed().evaluate(["reciprocal_rank", "f1"], ci=0.95)
    grid = fm.count(RUNS, by=("system", "topic"), thresholds=3)  # f1 at every threshold, AUC per group
    with pytest.raises(fm.ParameterError, match="cannot share one table"):
        MixedCounts(grid, fm.count(RUNS, by=("system", "topic"), thresholds="ranks")).evaluate(["f1", "ranked_ap"])


def test_avgrec_per_question_and_pooled_as_the_semeval_scorer():
    # q1 ranks its items relevant-wise [0, 1, 1] (R = 2), q2 [1, 0, 0] (R = 1); depths 1..3:
    # q1: (0/1 + 1/2 + 2/2) / 3 = 0.5, q2: 1; pooled: (1/2 + 2/3 + 3/3) / 3 = 13/18
    rows = pa.table(
        {
            "system": ["s"] * 6,
            "topic": ["q1"] * 3 + ["q2"] * 3,
            "item": list("abcdef"),
            "score": [3.0, 2.0, 1.0] * 2,
            "gold": [False, True, True, True, False, False],
        }
    )
    ranks = fm.count(rows, by=("system", "topic"), thresholds="ranks")
    assert ranks.evaluate(["avgrec(cutoff=3)"]).values.ravel().tolist() == pytest.approx([0.5, 1.0])
    board = {r["measure"]: r for r in leaderboard(ranks, ["avgrec(cutoff=3)"], baselines=False).summary.to_pylist()}
    assert board["avgrec(cutoff=3)"]["macro"] == pytest.approx(0.75)
    assert board["avgrec(cutoff=3)"]["micro"] == pytest.approx(13 / 18)


def test_the_command_line_mixes_a_sweep_and_hard_labels_read_once(tmp_path, capsys):
    path = tmp_path / "runs.csv"
    pa.csv.write_csv(RUNS, path)
    out = tmp_path / "board.csv"
    argv = ["leaderboard", str(path), "--thresholds", "ranks", "--measures", "reciprocal_rank,f1", "--long"]
    assert main([*argv, "--no-baselines", "--out", str(out), "--quiet"]) == 0
    rows = {(r["system"], r["measure"]): r for r in pa.csv.read_csv(out).to_pylist()}
    expected = _oracles()
    assert rows[("b", "f1")]["macro"] == pytest.approx(np.nanmean([expected[("b", q)]["f1"] for q in ("q1", "q2")]))
    assert rows[("b", "reciprocal_rank")]["macro"] == pytest.approx(
        np.mean([expected[("b", q)]["reciprocal_rank"] for q in ("q1", "q2")])
    )
    assert main([*argv, "--pred", "label", "--quiet"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("fastmetrics: error:") and "'label'" in err[-1]
