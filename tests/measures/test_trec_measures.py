"""trec_eval's ranking measures, per topic, against trec_eval itself through pytrec_eval.

Generated TREC runs and graded qrels hold ties in score, unjudged retrieved documents, judged
documents no run retrieves, topics without a relevant document and short lists. pytrec_eval ranks
by 32-bit float scores, documents of equal score by decreasing document id: the scores are
multiples of 1/8 (exact in 32 bits) and each run's lines are written in that order, so both tools
read the same ranking. A topic without a relevant document is NaN here and 0 in trec_eval
(``undefined=0`` gives trec_eval's 0).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import fastmetrics as fm
from fastmetrics.measures import parse_spec

pytrec_eval = pytest.importorskip("pytrec_eval")

# trec_eval's name (as pytrec_eval keys it) -> the name a user types here
MEASURES = {
    "map": "map",
    "map_cut_5": "map_cut_5",
    "P_5": "P_5",
    "P_10": "P.10",
    "recall_5": "recall_5",
    "recip_rank": "recip_rank",
    "Rprec": "Rprec",
    "success_1": "success_1",
    "success_5": "Success@5",
    "num_ret": "num_ret",
    "num_rel": "num_rel",
    "num_rel_ret": "NumRelRet",
    "gm_map": "log_ap",
    # pytrec_eval is trec_eval 9.x: the recall level r is floor(r R + 0.9) relevant items there
    **{f"iprec_at_recall_{r:.2f}": f"interpolated_precision(recall={r:.2f}, carry=0.9)" for r in np.linspace(0, 1, 11)},
}
# as pytrec_eval takes them (trec_eval's -m)
ASKED = {"map", "map_cut.5", "P.5,10", "recall.5", "recip_rank", "Rprec", "success.1,5", "num_ret", "num_rel"}
ASKED |= {"num_rel_ret", "gm_map", "iprec_at_recall"}


def _generate(rng, path):
    """A run file and a qrels file; returns ``(run dict, qrels dict)`` as pytrec_eval reads them."""
    run, qrels, run_lines, qrels_lines = {}, {}, [], []
    for t in range(int(rng.integers(3, 9))):
        topic = f"q{t}"
        docs = [f"d{i}" for i in rng.choice(40, size=int(rng.integers(1, 25)), replace=False)]
        judged = rng.choice(60, size=int(rng.integers(1, 20)), replace=False)
        grades = rng.choice([0, 0, 1, 2, 3], size=judged.size) * (rng.random() > 0.15)  # some topics: none relevant
        qrels[topic] = {f"d{d}": int(g) for d, g in zip(judged, grades)}
        qrels_lines += [f"{topic} 0 d{d} {g}" for d, g in zip(judged, grades)]
        scores = rng.integers(0, 6, size=len(docs)) / 8.0  # ties in score, exact in float32
        order = sorted(range(len(docs)), key=lambda i: (scores[i], docs[i]), reverse=True)  # trec_eval's order
        run[topic] = {docs[i]: float(scores[i]) for i in order}
        run_lines += [f"{topic} Q0 {docs[i]} {n + 1} {scores[i]} sys" for n, i in enumerate(order)]
    path.joinpath("run").write_text("\n".join(run_lines) + "\n")
    path.joinpath("qrels").write_text("\n".join(qrels_lines) + "\n")
    return run, qrels


@pytest.mark.parametrize("seed", range(6))
def test_per_topic_values_equal_trec_eval(tmp_path, seed):
    rng = np.random.default_rng(seed)
    run, qrels = _generate(rng, tmp_path)
    tensor = fm.count(
        str(tmp_path / "run"),
        gold=str(tmp_path / "qrels"),
        thresholds="ranks",
        unjudged="negative",
        missing="negative",
        format="trec",
    )
    scores = tensor.evaluate(list(MEASURES.values()), undefined=0.0)
    expected = pytrec_eval.RelevanceEvaluator(qrels, ASKED).evaluate(run)
    topics = list(scores.coords["topic"])
    compared = 0
    for trec_name, ours in MEASURES.items():
        values = scores[ours].reshape(-1)
        assert scores.measures[list(MEASURES.values()).index(ours)] == parse_spec(ours).label
        for topic in run:
            if topic not in qrels:
                continue
            theirs = expected[topic][trec_name]
            got = values[topics.index(topic)]
            assert math.isclose(got, theirs, rel_tol=1e-12, abs_tol=1e-12), (seed, topic, trec_name, got, theirs)
            compared += 1
    assert compared >= len(MEASURES) * 3


GRADED = {"ndcg": "ndcg", "ndcg_cut_5": "ndcg(k=5)", "ndcg_cut_10": "nDCG@10", "bpref": "bpref"}


@pytest.mark.parametrize("seed", range(4))
def test_graded_measures_equal_trec_eval_per_topic(tmp_path, seed):
    run, qrels = _generate(np.random.default_rng(100 + seed), tmp_path)
    ranks = fm.count_graded(
        str(tmp_path / "run"), str(tmp_path / "qrels"), unjudged="negative", missing="negative", format="trec"
    )
    asked = {**GRADED, **MEASURES}
    scores = ranks.evaluate(list(asked.values()), undefined=0.0)
    expected = pytrec_eval.RelevanceEvaluator(qrels, ASKED | {"ndcg", "ndcg_cut.5,10", "bpref"}).evaluate(run)
    topics = list(scores.coords["topic"])
    for trec_name, ours in asked.items():
        values = scores[ours].reshape(-1)
        for topic in set(run) & set(qrels):
            got, theirs = values[topics.index(topic)], expected[topic][trec_name]
            assert math.isclose(got, theirs, rel_tol=1e-12, abs_tol=1e-12), (seed, topic, trec_name, got, theirs)


def test_judged_at_k_and_exponential_gains(tmp_path):
    run, qrels = _generate(np.random.default_rng(11), tmp_path)
    ranks = fm.count_graded(str(tmp_path / "run"), str(tmp_path / "qrels"), unjudged="negative", missing="negative")
    scores = ranks.evaluate(["judged_at_k(k=5)", "Judged@100", "ndcg(k=5, exponential=1)"])
    topics = list(scores.coords["topic"])
    for topic, docs in run.items():
        ranking = list(docs)  # in trec_eval's order (see _generate)
        for label, k in (("judged_at_k(k=5)", 5), ("judged_at_k(k=100)", 100)):
            top = ranking[:k]
            expected = sum(d in qrels[topic] for d in top) / len(top)  # ir_measures' Judged@k
            assert scores[label].reshape(-1)[topics.index(topic)] == pytest.approx(expected)
        gains = [2.0 ** qrels[topic].get(d, 0) - 1 for d in ranking[:5]]
        ideal = sorted((2.0**g - 1 for g in qrels[topic].values()), reverse=True)[:5]
        dcg = sum(g / math.log2(i + 2) for i, g in enumerate(gains))
        idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
        got = scores["ndcg(k=5, exponential=1)"].reshape(-1)[topics.index(topic)]
        if idcg > 0:
            assert got == pytest.approx(dcg / idcg)
        else:
            assert math.isnan(got)


def test_interpolated_precision_rounds_the_recall_level_as_trec_eval_10(tmp_path):
    # m_iprec_at_recall.c (10.0): cutoff = lround(r R); 9.x: (long) (r R + 0.9). R = 11, r = 0.1:
    # 10.0 needs 1 relevant item (the first, at rank 1: precision 1), 9.x needs 2 (rank 8: 2/8)
    tmp_path.joinpath("run").write_text("".join(f"q1 Q0 d{i} {i + 1} {10 - i} s\n" for i in range(8)))
    relevant = ["d0", "d7"] + [f"x{i}" for i in range(9)]
    tmp_path.joinpath("qrels").write_text("".join(f"q1 0 {d} 1\n" for d in relevant))
    tensor = fm.count(
        str(tmp_path / "run"), gold=str(tmp_path / "qrels"), thresholds="ranks", unjudged="negative", missing="negative"
    )
    scores = tensor.evaluate(["iprec_at_recall_0.10", "interpolated_precision(recall=0.1, carry=0.9)"])
    np.testing.assert_allclose(scores.values.reshape(-1), [1.0, 0.25])


def test_trec_eval_and_ir_measures_names_resolve_to_the_registry():
    expected = {
        "map": "ranked_ap",
        "AP": "ranked_ap",
        "AP@100": "ranked_ap(cutoff=100)",
        "map_cut_100": "ranked_ap(cutoff=100)",
        "P_10": "precision_at_k",
        "P.5": "precision_at_k(k=5)",
        "P@5": "precision_at_k(k=5)",
        "recall_100": "recall_at_k(k=100)",
        "R@100": "recall_at_k(k=100)",
        "recip_rank": "reciprocal_rank",
        "RR@10": "reciprocal_rank(cutoff=10)",
        "Rprec": "r_precision",
        "success_1": "success_at_k(k=1)",
        "Success@10": "success_at_k",
        "iprec_at_recall_0.50": "interpolated_precision(recall=0.5)",
        "IPrec@0.3": "interpolated_precision(recall=0.3)",
        "num_rel_ret": "num_rel_ret",
        "NumRet": "num_ret",
        "ndcg": "ndcg",
        "ndcg_cut_10": "ndcg(k=10)",
        "nDCG@10": "ndcg(k=10)",
        "nDCG": "ndcg",
        "bpref": "bpref",
        "Bpref": "bpref",
        "Judged@10": "judged_at_k",
        "gm_map": "gmap",
    }
    for name, label in expected.items():
        assert parse_spec(name).label == label, name
    # scikit-learn's spelling keeps its meaning; a lone P or R is no measure
    assert parse_spec("ap").label == "average_precision"
    assert parse_spec("recall").label == "recall"
    for bad in ("P", "R", "Success", "P_x", "map_cut"):
        with pytest.raises(fm.FastmetricsError):
            parse_spec(bad)


def test_every_spelling_of_a_spec_finds_its_values(tmp_path):
    _generate(np.random.default_rng(7), tmp_path)
    tensor = fm.count(
        str(tmp_path / "run"), gold=str(tmp_path / "qrels"), thresholds="ranks", unjudged="negative", missing="negative"
    )
    scores = tensor.evaluate(["precision_at_k(k=5)", "precision_at_k(k=10)", "map"])
    assert scores.measures == ("precision_at_k(k=5)", "precision_at_k", "ranked_ap")
    np.testing.assert_array_equal(scores["precision_at_k(k=10)"], scores.values[1])
    np.testing.assert_array_equal(scores["P_10"], scores.values[1])
    np.testing.assert_array_equal(scores["P@5"], scores.values[0])
    np.testing.assert_array_equal(scores["AP"], scores.values[2])
    assert not np.array_equal(scores["P_5"], scores["P_10"])
    with pytest.raises(fm.ParameterError, match="P_20"):
        scores["P_20"]
