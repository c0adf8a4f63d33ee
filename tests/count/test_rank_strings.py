"""The ranks sweep of TREC runs on codes (:mod:`fastmetrics.count._ranks`) against the general path.

Every case is counted twice -- by the path on codes and by the general one (Arrow sort and joins),
the first switched off -- and the tensors must be equal: counts, per-cell coordinates and their
types. The cases have ties, unjudged documents, topics without relevant documents, topics only
the qrels or only a run has, several tags in one file, several files, rows out of score order.
"""

from __future__ import annotations

import numpy as np
import pytest

import fastmetrics as fm
from fastmetrics._errors import InputError
from fastmetrics.cli import main
from fastmetrics.count import _ranks, api
from fastmetrics.tensor import group_starts
from tests.test_string_hash import colliding

MEASURES = ["ranked_ap", "reciprocal_rank(cutoff=10)", "precision_at_k(k=10)"]


def _write_case(tmp_path, seed: int, files: int = 2, tags: int = 2):
    """TREC runs (``files`` files of ``tags`` tags each) and graded qrels, at random."""
    rng = np.random.default_rng(seed)
    topics = [f"q{t}" for t in rng.permutation(12)[: rng.integers(3, 9)]]
    docs = {t: [f"d{d:03d}" for d in rng.choice(400, 40, replace=False)] for t in topics}
    qrels = []
    for i, t in enumerate(topics[:-1]):  # the last topic: no judgement, all its documents unjudged
        judged = rng.choice(docs[t], rng.integers(1, 25), replace=False)
        grades = rng.integers(0, 3, judged.size) * (i % 3 != 1)  # every third topic: nothing relevant
        qrels += [f"{t} 0 {d} {g}\n" for d, g in zip(judged, grades)]
    qrels.append("q99 0 dx 1\n")  # a topic no run has
    rng.shuffle(qrels)
    (tmp_path / "qrels.txt").write_text("".join(qrels))
    paths = []
    for f in range(files):
        lines = []
        for g in range(tags):
            for t in rng.permutation(topics)[: rng.integers(1, len(topics) + 1)]:
                returned = rng.choice(docs[t], rng.integers(1, 30), replace=False)
                scores = rng.integers(0, 6, returned.size) / 2  # many ties
                if rng.random() < 0.5:
                    order = np.argsort(-scores, kind="stable")
                    returned, scores = returned[order], scores[order]
                lines += [f"{t} Q0 {d} {r} {s} run{f}{g}\n" for r, (d, s) in enumerate(zip(returned, scores), 1)]
        paths.append(tmp_path / f"run{f}.txt")
        paths[-1].write_text("".join(lines))
    return [str(p) for p in paths], str(tmp_path / "qrels.txt")


def _general(monkeypatch, *args, **kwargs):
    with monkeypatch.context() as m:
        m.setattr(api, "_rank_sweep_of_strings", lambda *a, **k: None)
        return fm.count(*args, **kwargs)


def _same(a, b):
    assert a.axes == b.axes and a.coord_axes == b.coord_axes
    assert a.counts.dtype == b.counts.dtype and np.array_equal(a.counts, b.counts)
    assert list(a.coords) == list(b.coords)
    for c in b.coords:
        assert a.coords[c].dtype == b.coords[c].dtype and np.array_equal(a.coords[c], b.coords[c]), c
    assert np.array_equal(a.classes, b.classes)


@pytest.fixture
def spy(monkeypatch):
    """Counts the tensors the path on codes returns (so a test knows it was not bypassed)."""
    made = []

    def counting(*args, **kwargs):
        tensor = original(*args, **kwargs)
        made.append(tensor is not None)
        return tensor

    original = _ranks.rank_sweep_of_strings
    monkeypatch.setattr(api, "rank_sweep_of_strings", counting)
    return made


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("missing", ["negative", "drop"])
def test_equal_to_the_general_path(tmp_path, monkeypatch, spy, seed, missing):
    runs, qrels = _write_case(tmp_path, seed)
    fast = fm.count(runs, qrels, thresholds="ranks", missing=missing, unjudged="negative")
    assert spy == [True]
    slow = _general(monkeypatch, runs, qrels, thresholds="ranks", missing=missing, unjudged="negative")
    _same(fast, slow)
    assert np.array_equal(fast.evaluate(MEASURES).values, slow.evaluate(MEASURES).values, equal_nan=True)


def test_one_file_one_tag_and_graded_qrels(tmp_path, monkeypatch, spy):
    runs, qrels = _write_case(tmp_path, 11, files=1, tags=1)
    gold = fm.read_gold(qrels, relevance_level=2)
    _same(
        fm.count(runs, gold, thresholds="ranks", missing="negative", unjudged="negative", format="trec"),
        _general(monkeypatch, runs, gold, thresholds="ranks", missing="negative", unjudged="negative", format="trec"),
    )
    assert spy == [True]


def test_every_judged_item_returned_under_the_error_policies(tmp_path, monkeypatch, spy):
    (tmp_path / "qrels").write_text("1 0 a 1\n1 0 b 0\n2 0 c 0\n2 0 a 1\n")
    (tmp_path / "run").write_text("1 Q0 b 1 2 x\n1 Q0 a 2 2 x\n2 Q0 a 1 5 x\n2 Q0 c 2 7 x\n")
    args = ([str(tmp_path / "run")], str(tmp_path / "qrels"))
    fast = fm.count(*args, thresholds="ranks")
    assert spy == [True]
    _same(fast, _general(monkeypatch, *args, thresholds="ranks"))
    assert fast.coords["rank"].tolist() == [1, 2, 1, 2]
    assert fast.counts[:, 1, 1].tolist() == [0, 1, 0, 1]  # b before a (a tie in file order); c before a


@pytest.mark.parametrize(
    "options, match",
    [
        (dict(missing="error", unjudged="negative"), r"lacks .* gold item"),
        (dict(missing="negative", unjudged="error"), r"which the gold does not have"),
    ],
)
def test_the_general_path_names_the_errors(tmp_path, monkeypatch, options, match):
    runs, qrels = _write_case(tmp_path, 3)
    with pytest.raises(InputError, match=match) as fast:
        fm.count(runs, qrels, thresholds="ranks", **options)
    with pytest.raises(InputError, match=match) as slow:
        _general(monkeypatch, runs, qrels, thresholds="ranks", **options)
    assert str(fast.value) == str(slow.value)


def test_a_duplicated_run_line_is_named_as_before(tmp_path, monkeypatch):
    (tmp_path / "qrels").write_text("1 0 a 1\n1 0 b 0\n")
    (tmp_path / "run").write_text("1 Q0 a 1 2 x\n1 Q0 b 2 1 x\n1 Q0 a 3 0 x\n")
    args = (str(tmp_path / "run"), str(tmp_path / "qrels"))
    with pytest.raises(InputError, match=r"Duplicated .*item='a'.*row 0 .*row 2 ") as fast:
        fm.count(*args, thresholds="ranks", missing="negative", unjudged="negative")
    with pytest.raises(InputError) as slow:
        _general(monkeypatch, *args, thresholds="ranks", missing="negative", unjudged="negative")
    assert str(fast.value) == str(slow.value)


def test_a_duplicated_qrels_line_is_one_error_line(tmp_path, monkeypatch, capsys):
    (tmp_path / "qrels").write_text("q1 0 d1 1\nq1 0 d2 0\nq2 0 d1 1\nq1 0 d1 0\n")
    (tmp_path / "run").write_text("q1 Q0 d1 1 3.0 A\nq1 Q0 d2 2 2.0 A\nq2 Q0 d1 1 1.0 A\n")
    run, qrels = str(tmp_path / "run"), str(tmp_path / "qrels")
    message = "The gold has (topic, item) = (topic='q1', item='d1') more than once (rows 0, 3 of '" + qrels + "')."
    for count in (fm.count, lambda *a, **k: _general(monkeypatch, *a, **k)):
        with pytest.raises(InputError) as error:
            count(run, qrels, thresholds="ranks", missing="negative", unjudged="negative")
        assert str(error.value) == message
    argv = ["leaderboard", run, "--gold", qrels, "--thresholds", "ranks", "--missing", "negative"]
    assert main(argv + ["--unjudged", "negative", "--measures", "ranked_ap", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err == f"fastmetrics: error: {message}\n"


def test_scores_out_of_order_are_sorted_stably(tmp_path, spy):
    (tmp_path / "qrels").write_text("t 0 a 1\nt 0 b 0\nt 0 c 1\nt 0 d 0\n")
    (tmp_path / "run").write_text("t Q0 a 1 1 x\nt Q0 b 2 3 x\nt Q0 c 3 1 x\nt Q0 d 4 3 x\n")
    tensor = fm.count(str(tmp_path / "run"), str(tmp_path / "qrels"), thresholds="ranks")
    assert spy == [True]
    # b, d (3, in file order), then a, c (1)
    assert tensor.counts[:, 1, 1].tolist() == [0, 0, 1, 2]
    assert tensor.counts[:, 0, 1].tolist() == [1, 2, 2, 2]


def test_the_groups_it_leaves_for_the_measures(tmp_path):
    runs, qrels = _write_case(tmp_path, 4)
    tensor = fm.count(runs, qrels, thresholds="ranks", missing="negative", unjudged="negative")
    known = tensor._group_starts
    del tensor._group_starts
    starts, axes = group_starts(tensor)
    assert axes == known[0] and np.array_equal(starts, known[2])
    tensor._group_starts = known
    assert group_starts(tensor)[0] is known[2]
    tensor.coords["topic"] = tensor.coords["topic"].copy()  # other coordinates: the groups are found again
    again = group_starts(tensor)[0]
    assert again is not known[2] and np.array_equal(again, known[2])


def test_documents_of_one_slot_are_joined_as_by_the_general_path(tmp_path, monkeypatch):
    """A topic's 200 documents whose hashes share their low 12 bits: every probe of the topic's
    table would run through all of them; the table grows, and the counts are the general path's."""
    docs = colliding(200, 12, "doc")
    rng = np.random.default_rng(3)
    (tmp_path / "qrels").write_text("".join(f"t1 0 {d} {int(rng.random() < 0.3)}\n" for d in docs[::2]))
    lines = [f"t1 Q0 {d} {r} {200 - r} {tag}\n" for tag in ("a", "b") for r, d in enumerate(rng.permutation(docs), 1)]
    (tmp_path / "run").write_text("".join(lines))
    args = (str(tmp_path / "run"), str(tmp_path / "qrels"))
    options = dict(thresholds="ranks", missing="negative", unjudged="negative")
    _same(fm.count(*args, **options), _general(monkeypatch, *args, **options))
