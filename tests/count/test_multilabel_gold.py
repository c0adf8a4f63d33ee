"""Multilabel runs joined to a separate gold (issue 18, point 7): the counts equal those of the
table joined by hand, under every ``missing`` and ``unjudged`` policy and in both forms (a list
of categories per item, or one row per (item, category) with flags)."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import fastmetrics as fm
from fastmetrics.cli import main

CATEGORIES = ["a", "b", "c", "d"]
KEYS = [(t, i) for t in ("t1", "t2") for i in range(8)]
SYSTEMS = ["A", "B"]


def _data(seed=0):
    """Gold sets per (topic, item) and predicted sets per (system, topic, item), as Python dicts."""
    rng = np.random.default_rng(seed)

    def some():
        return [c for c in CATEGORIES if rng.random() < 0.4]

    gold = {k: some() for k in KEYS}
    pred = {(s, *k): some() for s in SYSTEMS for k in KEYS}
    return gold, pred


def _gold_table(gold: dict) -> pa.Table:
    return pa.table({"topic": [k[0] for k in gold], "item": [k[1] for k in gold], "gold": list(gold.values())})


def _runs_table(pred: dict) -> pa.Table:
    columns = ("system", "topic", "item")
    table = {c: [k[j] for k in pred] for j, c in enumerate(columns)}
    return pa.table({**table, "pred": list(pred.values())})


def _joined_by_hand(gold: dict, pred: dict) -> pa.Table:
    return _runs_table(pred).append_column("gold", pa.array([gold[k[1:]] for k in pred]))


def _same(a, b):
    for name in fm.MultilabelTensor._STATISTICS:
        np.testing.assert_allclose(getattr(a, name), getattr(b, name), rtol=1e-12)
    assert list(a.categories) == list(b.categories)


def test_lists_joined_to_a_gold_table_equal_the_joined_table():
    gold, pred = _data()
    _same(fm.count(_runs_table(pred), gold=_gold_table(gold)), fm.count(_joined_by_hand(gold, pred)))


def test_long_forms_on_either_side():
    gold, pred = _data(1)
    expected = fm.count(_joined_by_hand(gold, pred))
    long_gold = pa.table(
        {
            "topic": [k[0] for k in gold for _ in CATEGORIES],
            "item": [k[1] for k in gold for _ in CATEGORIES],
            "category": [c for _ in gold for c in CATEGORIES],
            "gold": [c in g for g in gold.values() for c in CATEGORIES],
        }
    )
    long_runs = pa.table(
        {
            "system": [k[0] for k in pred for _ in CATEGORIES],
            "topic": [k[1] for k in pred for _ in CATEGORIES],
            "item": [k[2] for k in pred for _ in CATEGORIES],
            "category": [c for _ in pred for c in CATEGORIES],
            "pred": [c in p for p in pred.values() for c in CATEGORIES],
        }
    )
    _same(fm.count(_runs_table(pred), gold=long_gold, category="category"), expected)
    _same(fm.count(long_runs, gold=_gold_table(gold), category="category"), expected)
    _same(fm.count(long_runs, gold=long_gold, category="category"), expected)
    # without flags every row of the long gold is a category of its item (items without any: none)
    memberships = long_gold.filter(long_gold.column("gold")).drop_columns(["gold"])
    lost = {k: g for k, g in gold.items() if g}
    _same(
        fm.count(_runs_table({k: p for k, p in pred.items() if k[1:] in lost}), gold=memberships, category="category"),
        fm.count(_joined_by_hand(lost, {k: p for k, p in pred.items() if k[1:] in lost})),
    )


@pytest.mark.parametrize("missing", ["negative", "drop"])
def test_items_a_run_lacks(missing):
    gold, pred = _data(2)
    lacking = [("A", "t1", 3), ("B", "t2", 0), ("B", "t2", 5)]
    short = {k: p for k, p in pred.items() if k not in lacking}
    by_hand = dict(short)
    if missing == "negative":
        by_hand.update({k: [] for k in lacking})  # predicted with no category
    _same(
        fm.count(_runs_table(short), gold=_gold_table(gold), missing=missing), fm.count(_joined_by_hand(gold, by_hand))
    )
    with pytest.raises(fm.InputError, match=r"(?s)system='A'.*lacks gold items.*'t1'.*\b3\b.*3 \(run, item\) pairs"):
        fm.count(_runs_table(short), gold=_gold_table(gold))


def test_items_the_gold_lacks():
    gold, pred = _data(3)
    judged = {k: g for k, g in gold.items() if k != ("t2", 7)}
    with pytest.raises(fm.InputError, match=r"gold lacks the run item \(system='A', topic='t2', item=7\) and 1 more"):
        fm.count(_runs_table(pred), gold=_gold_table(judged))
    unjudged = {**judged, ("t2", 7): []}  # no gold category
    _same(
        fm.count(_runs_table(pred), gold=_gold_table(judged), unjudged="negative"),
        fm.count(_joined_by_hand(unjudged, pred)),
    )


def test_weights_follow_the_runs():
    gold, pred = _data(4)
    weights = np.random.default_rng(0).uniform(0.5, 2, len(pred))
    runs = _runs_table(pred).append_column("w", pa.array(weights))
    by_hand = _joined_by_hand(gold, pred).append_column("w", pa.array(weights))
    _same(fm.count(runs, gold=_gold_table(gold), weight="w"), fm.count(by_hand, weight="w"))


def test_command_line_gold(tmp_path):
    gold, pred = _data(5)
    pq.write_table(_runs_table(pred), tmp_path / "runs.parquet")
    pq.write_table(_gold_table(gold), tmp_path / "gold.parquet")
    pq.write_table(_joined_by_hand(gold, pred), tmp_path / "joined.parquet")
    out = [tmp_path / "a.csv", tmp_path / "b.csv"]
    assert (
        main(
            ["evaluate", str(tmp_path / "runs.parquet"), "--gold", str(tmp_path / "gold.parquet"), "--out", str(out[0])]
        )
        == 0
    )
    assert main(["evaluate", str(tmp_path / "joined.parquet"), "--out", str(out[1])]) == 0
    assert out[0].read_text() == out[1].read_text()


def test_the_gold_label_column_is_named_by_gold_column():
    gold, pred = _data(3)
    table = _gold_table(gold)
    expected = fm.count(_runs_table(pred), table).evaluate(["f1", "proficiency"]).values
    renamed = table.rename_columns(["topic", "item", "labels"])
    got = fm.count(_runs_table(pred), renamed, gold_column="labels").evaluate(["f1", "proficiency"]).values
    np.testing.assert_array_equal(got, expected)
