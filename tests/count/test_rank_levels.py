"""trec_eval's order of equal scores and the sweep of every grade in one pass, on codes
(:mod:`fastmetrics.count._ranks`), against the general path and a count per grade.

The document ids share prefixes (``d1``, ``d10``, ``d1a``), differ in case and carry bytes above
0x7f, so that the order of equal scores is decided by C's ``strcmp`` on every kind of pair; the
scores take a few values (most items tie) and the lines come in any order.
"""

from __future__ import annotations

import numpy as np
import pytest

import fastmetrics as fm
from fastmetrics.count import api
from fastmetrics.count import graded as graded_module
from tests.count.test_rank_strings import spy  # noqa: F401 -- the fixture: whether the path on codes counted

IDS = ["d1", "d10", "d1a", "D1", "d2", "dé", "d\u00ff", "a"]


def _write(tmp_path, seed: int):
    rng = np.random.default_rng(seed)
    pool = sorted({f"{p}{n}" for p in IDS for n in ("", "0", "x", "é")} | {"z" * 40})
    topics = [f"q{t}" for t in range(rng.integers(2, 6))]
    qrels, lines = [], []
    for t in topics:
        docs = rng.choice(pool, rng.integers(3, 25), replace=False)
        judged = rng.choice(docs, rng.integers(1, docs.size + 1), replace=False)
        qrels += [f"{t} 0 {d} {g}\n" for d, g in zip(judged, rng.integers(-1, 4, judged.size))]
        for tag in ("runA", "runB"):
            returned = rng.permutation(docs)[: rng.integers(1, docs.size + 1)]
            scores = rng.integers(0, 3, returned.size) / 4
            lines += [f"{t} Q0 {d} {r} {s} {tag}\n" for r, (d, s) in enumerate(zip(returned, scores), 1)]
    rng.shuffle(lines)
    (tmp_path / "qrels").write_text("".join(qrels), encoding="utf-8")
    (tmp_path / "run").write_text("".join(lines), encoding="utf-8")
    return str(tmp_path / "run"), str(tmp_path / "qrels")


def _same(a, b):
    assert np.array_equal(a.counts, b.counts)
    assert list(a.coords) == list(b.coords)
    for c in b.coords:
        assert np.array_equal(a.coords[c], b.coords[c]), c


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("missing", ["negative", "drop"])
def test_trec_ties_equal_the_general_paths_sort(tmp_path, monkeypatch, spy, seed, missing):  # noqa: F811
    run, qrels = _write(tmp_path, seed)
    options = dict(format="trec", thresholds="ranks", missing=missing, unjudged="negative", ties="trec")
    fast = fm.count(run, qrels, **options)
    assert spy == [True]
    with monkeypatch.context() as m:
        m.setattr(api, "_rank_sweep_of_strings", lambda *a, **k: None)
        slow = fm.count(run, qrels, **options)  # an Arrow sort: score, then item descending
    _same(fast, slow)


def test_trec_ties_order_by_bytes_as_strcmp(tmp_path):
    (tmp_path / "run").write_text("".join(f"q Q0 {d} 1 1.0 r\n" for d in ("d1", "d10", "dé", "D9", "d1a")))
    (tmp_path / "qrels").write_text("q 0 d10 1\n")
    ranks = fm.count(str(tmp_path / "run"), str(tmp_path / "qrels"), format="trec", thresholds="ranks",
                     missing="negative", unjudged="negative", ties="trec")  # fmt: skip
    # strcmp descending: "dé" (0xc3) > "d1a" > "d10" > "d1" > "D9": d10 third
    assert ranks.counts[:, 1, 1].tolist() == [0, 0, 1, 1, 1]


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("ties", ["input", "trec"])
def test_every_grade_in_one_pass_equals_a_count_per_grade(tmp_path, monkeypatch, spy, seed, ties):  # noqa: F811
    run, qrels = _write(tmp_path, 100 + seed)
    options = dict(format="trec", missing="negative", unjudged="negative", ties=ties)
    one = fm.count_graded(run, qrels, relevance_level=2, **options)
    assert spy == [True]
    with monkeypatch.context() as m:
        m.setattr(graded_module, "rank_sweeps_at_levels", lambda *a, **k: None)
        each = fm.count_graded(run, qrels, relevance_level=2, **options)
    assert np.array_equal(one.grades, each.grades) and len(one.tensors) == len(each.tensors)
    for a, b in zip((*one.tensors, one.judged), (*each.tensors, each.judged)):
        _same(a, b)
    measures = ["ndcg(k=10)", "bpref", "map", "P_5"]
    assert np.array_equal(one.evaluate(measures).values, each.evaluate(measures).values, equal_nan=True)
