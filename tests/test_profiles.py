"""Scorer profiles: trec_eval's conventions in one word, checked against trec_eval (pytrec_eval)."""

from __future__ import annotations

import math

import numpy as np
import pyarrow as pa
import pytest

import fastmetrics as fm
from fastmetrics.measures.profiles import PROFILES, with_profile
from fastmetrics.pipeline import count_ranked

pytrec_eval = pytest.importorskip("pytrec_eval")

TREC_MEASURES = ["map", "P_5", "P_10", "recip_rank", "Rprec", "bpref", "ndcg", "ndcg_cut_10", "recall_10"]
ASKED = {"map", "P.5,10", "recip_rank", "Rprec", "bpref", "ndcg", "ndcg_cut.10", "recall.10"}


def _write(tmp_path, run_lines, qrels_lines):
    tmp_path.joinpath("run").write_text("".join(f"{line}\n" for line in run_lines))
    tmp_path.joinpath("qrels").write_text("".join(f"{line}\n" for line in qrels_lines))
    return str(tmp_path / "run"), str(tmp_path / "qrels")


def _mean(profile, run, qrels, measure, **options):
    ranks, conventions = count_ranked(run, qrels, profile=profile, measures=[measure], **options)
    return float(np.mean(ranks.evaluate([measure], undefined=conventions["undefined"]).values))


def test_finding_1_complete_scores_a_topic_no_run_returns(tmp_path):
    # trec_eval -c -m map: 0.5 (q2, judged, returned by no run, scores 0 in the mean)
    run, qrels = _write(tmp_path, ["q1 Q0 d1 1 1.0 r"], ["q1 0 d1 1", "q2 0 d2 1"])
    assert _mean("trec_eval", run, qrels, "map", complete=True) == 0.5
    assert _mean("trec_eval", run, qrels, "P_5", complete=True) == pytest.approx(0.1)
    assert _mean("trec_eval", run, qrels, "ndcg", complete=True) == 0.5
    assert _mean("trec_eval", run, qrels, "map") == 1.0  # without -c: the topics of both


def test_finding_2_a_run_topic_absent_from_the_qrels_is_ignored(tmp_path):
    # trec_eval -m P.5: 0.2; -m map: 1.0 (q9 has no judgements: not evaluated)
    run, qrels = _write(tmp_path, ["q1 Q0 d1 1 1.0 r", "q9 Q0 x 1 1.0 r"], ["q1 0 d1 1"])
    assert _mean("trec_eval", run, qrels, "P_5") == pytest.approx(0.2)
    assert _mean("trec_eval", run, qrels, "map") == 1.0
    assert _mean("trec_eval", run, qrels, "ndcg") == 1.0
    # the explicit keyword wins over the profile: the run's topics kept, q9 scoring 0
    assert _mean("trec_eval", run, qrels, "P_5", topics="runs") == pytest.approx(0.1)


def _generated(tmp_path, seed, near_ties):
    """Runs whose lines come in a random order (the rank column contradicting the scores), equal
    scores, and with ``near_ties`` scores equal in 32 bits only."""
    rng = np.random.default_rng(seed)
    run, qrels, run_lines, qrels_lines = {}, {}, [], []
    for t in range(6):
        topic = f"t{t}"
        docs = [f"doc{i}" for i in rng.choice(30, size=int(rng.integers(2, 20)), replace=False)]
        base = rng.integers(0, 5, size=len(docs)) / 4.0
        scores = base + (rng.integers(0, 3, size=len(docs)) * 1e-9 if near_ties else 0.0)
        judged = rng.choice(40, size=15, replace=False)
        qrels[topic] = {f"doc{d}": int(g) for d, g in zip(judged, rng.choice([0, 1, 2], size=15))}
        qrels_lines += [f"{topic} 0 doc{d} {g}" for d, g in zip(judged, qrels[topic].values())]
        run[topic] = {d: float(s) for d, s in zip(docs, scores)}
        run_lines += [f"{topic} Q0 {d} {rng.integers(1, 99)} {float(s)!r} sys" for d, s in zip(docs, scores)]
    run_lines.append("t99 Q0 docX 1 1.0 sys")  # a topic without judgements
    run["t99"] = {"docX": 1.0}
    order = rng.permutation(len(run_lines))
    paths = _write(tmp_path, [run_lines[i] for i in order], qrels_lines)
    return paths, run, qrels


@pytest.mark.parametrize("seed", range(3))
def test_trec_eval9_equals_pytrec_eval_per_topic_and_in_the_mean(tmp_path, seed):
    (run_path, qrels_path), run, qrels = _generated(tmp_path, seed, near_ties=True)
    ranks, conventions = count_ranked(run_path, qrels_path, profile="trec_eval9", measures=TREC_MEASURES)
    scores = ranks.evaluate(TREC_MEASURES, undefined=conventions["undefined"])
    expected = pytrec_eval.RelevanceEvaluator(qrels, ASKED).evaluate(run)
    assert sorted(scores.coords["topic"]) == sorted(expected)  # t99 ignored, as trec_eval does
    topics = list(scores.coords["topic"])
    for name in TREC_MEASURES:
        got = scores[name].reshape(-1)
        for topic, values in expected.items():
            assert math.isclose(got[topics.index(topic)], values[name], abs_tol=1e-12), (topic, name)
        assert np.mean(got) == pytest.approx(np.mean([v[name] for v in expected.values()]), abs=1e-12)


def test_trec_eval_ranks_by_double_scores_and_trec_eval9_by_float32(tmp_path):
    # 0.50000002 and 0.50000001 tie in 32 bits: trec_eval 9.x (and pytrec_eval) then order by
    # decreasing document id, putting the non-relevant d2 first; trec_eval 10.0 keeps d1 first
    run, qrels = _write(tmp_path, ["q1 Q0 d1 1 0.50000002 r", "q1 Q0 d2 2 0.50000001 r"], ["q1 0 d1 1"])
    assert _mean("trec_eval", run, qrels, "recip_rank") == 1.0
    assert _mean("trec_eval9", run, qrels, "recip_rank") == 0.5
    oracle = pytrec_eval.RelevanceEvaluator({"q1": {"d1": 1}}, {"recip_rank"})
    assert oracle.evaluate({"q1": {"d1": 0.50000002, "d2": 0.50000001}})["q1"]["recip_rank"] == 0.5


def test_profiles_merge_under_explicit_keywords():
    options, conventions = with_profile("trec_eval", {"unjudged": "error", "undefined": None, "format": "trec"})
    assert options == {**PROFILES["trec_eval"]["count"], "unjudged": "error", "format": "trec"}
    assert conventions["undefined"] is None and conventions["topics"] == "gold"
    assert with_profile(None, {"ties": "item"}) == ({"ties": "item"}, {})
    with pytest.raises(fm.ParameterError, match="trec_eval9"):
        with_profile("trec_eval_9", {})


def _board_rows(tmp_path, run, qrels, measures, *extra):
    import pyarrow.csv as pacsv

    from fastmetrics.cli import main

    out = tmp_path / "board.csv"
    argv = ["leaderboard", run, "--format", "trec", "--gold", qrels, "--measures", measures, "--no-baselines"]
    assert main([*argv, *extra, "--long", "--out", str(out), "--quiet"]) == 0
    return {r["measure"]: r for r in pacsv.read_csv(out).to_pylist()}


def _board_macro(tmp_path, run, qrels, measures, *extra):
    return {m: (r["macro"], r["topics"]) for m, r in _board_rows(tmp_path, run, qrels, measures, *extra).items()}


def test_the_command_line_profile_fixes_findings_1_and_2(tmp_path):
    run, qrels = _write(tmp_path, ["q1 Q0 d1 1 1.0 r"], ["q1 0 d1 1", "q2 0 d2 1"])
    board = _board_macro(tmp_path, run, qrels, "map,P_5", "--profile", "trec_eval", "--complete")
    assert board == {"ranked_ap": (0.5, 2), "precision_at_k(k=5)": (pytest.approx(0.1), 2)}
    run, qrels = _write(tmp_path, ["q1 Q0 d1 1 1.0 r", "q9 Q0 x 1 1.0 r"], ["q1 0 d1 1"])
    board = _board_macro(tmp_path, run, qrels, "map,P_5", "--profile", "trec_eval")
    assert board == {"ranked_ap": (1.0, 1), "precision_at_k(k=5)": (pytest.approx(0.2), 1)}


def test_the_command_line_ranks_graded_and_binary_measures_in_one_board(tmp_path):
    # graded qrels (the board reads the grades, not the gold binarised at the relevance level)
    run, qrels = _write(
        tmp_path,
        ["q1 Q0 d1 1 1.0 r", "q1 Q0 d2 2 0.5 r", "q1 Q0 d4 3 0.2 r", "q2 Q0 d3 1 0.9 r", "q2 Q0 d5 2 0.8 r"],
        ["q1 0 d1 1", "q1 0 d2 2", "q1 0 d3 0", "q2 0 d3 0", "q2 0 d5 2", "q2 0 d6 1"],
    )
    board = _board_macro(tmp_path, run, qrels, "ndcg,map,bpref,P_5", "--profile", "trec_eval")
    runs = {"q1": {"d1": 1.0, "d2": 0.5, "d4": 0.2}, "q2": {"d3": 0.9, "d5": 0.8}}
    judged = {"q1": {"d1": 1, "d2": 2, "d3": 0}, "q2": {"d3": 0, "d5": 2, "d6": 1}}
    oracle = pytrec_eval.RelevanceEvaluator(judged, {"ndcg", "map", "bpref", "P_5"}).evaluate(runs)
    for name, label in (("ndcg", "ndcg"), ("map", "ranked_ap"), ("bpref", "bpref"), ("P_5", "precision_at_k(k=5)")):
        assert board[label] == (pytest.approx(np.mean([oracle[q][name] for q in oracle]), abs=1e-12), 2), name


def test_written_tables_record_how_their_numbers_were_made(tmp_path):
    import hashlib
    import json

    import pyarrow.parquet as pq

    from fastmetrics import __version__
    from fastmetrics.cli import main

    run, qrels = _write(tmp_path, ["q1 Q0 d1 1 1.0 r", "q9 Q0 x 1 1.0 r"], ["q1 0 d1 1"])
    argv = ["leaderboard", run, "--gold", qrels, "--profile", "trec_eval9", "--measures", "map", "--quiet"]
    for out in (tmp_path / "board.csv", tmp_path / "board.parquet"):
        assert main([*argv, "--out", str(out)]) == 0
        if out.suffix == ".csv":
            record = json.loads((tmp_path / "board.csv.provenance.json").read_text())
        else:
            record = json.loads(pq.read_schema(out).metadata[b"fastmetrics.provenance"])
        assert record["fastmetrics"] == __version__ and record["profile"] == "trec_eval9"
        assert record["options"]["measures"] == "map" and record["options"]["undefined"] == 0.0
        hashes = {r["name"]: r["sha256"] for r in record["inputs"]}
        assert hashes == {p: hashlib.sha256(open(p, "rb").read()).hexdigest() for p in (run, qrels)}


@pytest.mark.parametrize("seed", range(2))
def test_gm_map_on_the_board_is_trec_eval_gmap(tmp_path, seed):
    # trec_eval prints gm_map as exp of the mean of its per-topic log AP (pytrec_eval's per-topic
    # values are the logs): the board's micro column of gm_map is that GMAP
    (run_path, qrels_path), run, qrels = _generated(tmp_path, seed, near_ties=False)
    board = _board_rows(tmp_path, run_path, qrels_path, "gm_map,map", "--profile", "trec_eval9")
    expected = pytrec_eval.RelevanceEvaluator(qrels, {"gm_map"}).evaluate(run)
    gmap = pytrec_eval.compute_aggregated_measure("gm_map", [v["gm_map"] for v in expected.values()])
    assert board["gmap"]["micro"] == pytest.approx(gmap, rel=1e-12)


def test_a_mixed_table_under_trec_eval_leaves_out_the_run_topics_absent_from_the_qrels(tmp_path):
    # q9 is judged nowhere: trec_eval ignores it, for the hard labels' measures as for the ranking ones
    runs = pa.table(
        {
            "system": ["s"] * 3,
            "topic": ["q1", "q1", "q9"],
            "item": ["d1", "d2", "x"],
            "score": [2.0, 1.0, 1.0],
            "pred": [True, True, True],
        }
    )
    qrels = pa.table({"topic": ["q1", "q1"], "item": ["d1", "d2"], "gold": [True, False]})
    mixed, conventions = count_ranked(runs, qrels, profile="trec_eval", measures=["map", "precision"])
    scores = mixed.evaluate(["map", "precision"], undefined=conventions["undefined"])
    assert scores.coords["topic"].tolist() == ["q1"]
    assert scores.values.ravel().tolist() == [1.0, 0.5]
