"""Reciprocal rank with a cutoff: 0 for a topic whose relevant items all lie beyond it (issue 29).

trec_eval's ``recip_rank`` (``m_recip_rank.c``) starts every topic at 0 and sets ``1 / rank`` only
when a relevant document is retrieved; ranx's ``mrr@k`` scores a query without a relevant item in
its top k 0. A topic without any relevant item has no reciprocal rank (NaN; ``undefined=0`` gives
the 0 both tools report for it).
"""

import numpy as np
import pyarrow as pa
import pytest

import fastmetrics as fm


def _trec_like(seed, topics=60, depth=30):
    """Runs of distinct scores and qrels with relevant items inside, beyond or absent from the run."""
    rng = np.random.default_rng(seed)
    run_rows, qrels_rows = [], []
    for t in range(topics):
        items = [f"d{t}_{i}" for i in range(depth + 5)]
        returned = items[:depth]
        scores = rng.permutation(depth) + rng.random(depth) / 2
        run_rows += [(f"q{t}", d, float(s)) for d, s in zip(returned, scores)]
        kind = t % 4  # 0: random relevant, 1: only low-ranked, 2: only unreturned, 3: none relevant
        if kind == 0:
            relevant = [d for d in returned if rng.random() < 0.2]
        elif kind == 1:
            relevant = [d for d, s in zip(returned, scores) if s < depth - 15]
        elif kind == 2:
            relevant = items[depth:]
        else:
            relevant = []
        qrels_rows += [(f"q{t}", d, d in relevant) for d in items]
    return run_rows, qrels_rows


def _ours(run_rows, qrels_rows, spec, **options):
    runs = pa.table(
        {
            "system": ["s"] * len(run_rows),
            "topic": [r[0] for r in run_rows],
            "item": [r[1] for r in run_rows],
            "score": [r[2] for r in run_rows],
        }
    )
    gold = pa.table(
        {"topic": [r[0] for r in qrels_rows], "item": [r[1] for r in qrels_rows], "gold": [r[2] for r in qrels_rows]}
    )
    tensor = fm.count(runs, gold, thresholds="ranks", missing="negative")
    scores = tensor.evaluate(spec, **options)
    return dict(zip(scores.coords["topic"], scores[spec][0]))


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("k", [1, 3, 10])
def test_mrr_at_k_equals_ranx(seed, k):
    ranx = pytest.importorskip("ranx", reason="ranx (the bench extra) is the oracle of this test")
    Qrels, Run, evaluate = ranx.Qrels, ranx.Run, ranx.evaluate
    run_rows, qrels_rows = _trec_like(seed)
    qrels = Qrels.from_dict(
        {q: {d: 1 for q2, d, rel in qrels_rows if q2 == q and rel} for q in {r[0] for r in qrels_rows}}
    )
    run = Run.from_dict({q: {d: s for q2, d, s in run_rows if q2 == q} for q in {r[0] for r in run_rows}})
    theirs = evaluate(qrels, run, f"mrr@{k}", return_mean=False, make_comparable=True)
    with pytest.warns(fm.UndefinedMeasureWarning):
        ours = _ours(run_rows, qrels_rows, f"reciprocal_rank(cutoff={k})", warn=True)
    with_relevant = {q for q, d, rel in qrels_rows if rel}
    topics = sorted(ours)
    assert len(with_relevant) < len(topics)
    for i, topic in enumerate(sorted(run.get_query_ids())):
        if topic in with_relevant:
            assert ours[topic] == pytest.approx(theirs[i], abs=1e-12), topic
        else:
            assert np.isnan(ours[topic]), topic  # no relevant item: undefined (ranx: 0)
    beyond = [q for q in with_relevant if ours[q] == 0.0]
    assert beyond  # the case of the issue occurs


def test_trec_eval_convention_and_undefined_zero():
    # one topic, relevant items at ranks 4 and 7 (trec_eval: recip_rank 1/4; at cutoff 3: 0)
    run_rows = [("q1", f"d{i}", float(10 - i)) for i in range(1, 9)]
    qrels_rows = [("q1", f"d{i}", i in (4, 7)) for i in range(1, 9)] + [("q2", "x", False)]
    run_rows.append(("q2", "x", 1.0))
    full = _ours(run_rows, qrels_rows, "reciprocal_rank", undefined=0.0)
    assert full == {"q1": 0.25, "q2": 0.0}
    cut = _ours(run_rows, qrels_rows, "reciprocal_rank(cutoff=3)", undefined=0.0)
    assert cut == {"q1": 0.0, "q2": 0.0}
    nan = _ours(run_rows, qrels_rows, "reciprocal_rank(cutoff=3)", warn=False)
    assert nan["q1"] == 0.0 and np.isnan(nan["q2"])
