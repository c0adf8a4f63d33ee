"""Column roles read by the user's names (issue 27, point 4): every form of count takes the
columns playing the system, the topic and the item where they are, and its result and errors
carry those names; a column literally called ``system`` or ``topic`` that plays another part is
just a column."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import fastmetrics as fm
from fastmetrics._errors import InputError
from fastmetrics.count.halves import halves_sweep
from fastmetrics.count.resample import split_half_counts

ROLES = dict(system="model", topic="query", item="doc")


def _default(seed: int = 3) -> pa.Table:
    rng = np.random.default_rng(seed)
    s, t, i = np.indices((3, 4, 25)).reshape(3, -1)
    gold = (rng.random((4, 25)) < 0.4)[t, i]
    score = np.round(gold * 0.5 + rng.random(i.size), 2)  # rounded: ties
    return pa.table(
        {
            "system": [f"run{x}" for x in s],
            "topic": [f"q{x}" for x in t],
            "item": [f"d{x}" for x in i],
            "gold": gold,
            "pred": score > 0.7,
            "score": score,
        }
    )


def _ours(table: pa.Table) -> pa.Table:
    """The same rows under the user's names, with columns called ``system`` and ``topic`` that
    play no part (they must neither be read as the parts nor get in the way)."""
    names = {"system": ROLES["system"], "topic": ROLES["topic"], "item": ROLES["item"]}
    ours = table.rename_columns([names.get(c, c) for c in table.column_names])
    ours = ours.append_column("system", pa.array(["batch-1"] * ours.num_rows))
    return ours.append_column("topic", pa.array(np.arange(ours.num_rows) % 7))


def _gold(table: pa.Table, topic: str) -> pa.Table:
    one = table.filter(pa.compute.equal(table.column("system"), "run0"))
    return pa.table({topic: one.column("topic"), "item": one.column("item"), "gold": one.column("gold")})


def _same(tensor, reference):
    np.testing.assert_array_equal(tensor.counts, reference.counts)
    back = {ROLES["system"]: "system", ROLES["topic"]: "topic"}
    assert tuple(back.get(a, a) for a in tensor.axes) == reference.axes
    assert {back.get(c, c) for c in tensor.coords} == set(reference.coords)
    for name, values in tensor.coords.items():
        np.testing.assert_array_equal(values, reference.coords[back.get(name, name)])


MODES = {
    "hard": dict(),
    "grid": dict(thresholds=5),
    "exact": dict(thresholds="exact"),
    "ranks": dict(thresholds="ranks"),
}


@pytest.mark.parametrize("mode", sorted(MODES))
@pytest.mark.parametrize("gold_key", [None, "query", "topic"])
def test_every_mode_reads_the_users_columns(tmp_path, mode, gold_key):
    table = _default()
    ours = _ours(table)
    pq.write_table(ours, tmp_path / "ours.parquet")
    drop = ["score"] if mode == "hard" else ["pred"]
    options = dict(MODES[mode], missing="negative") if gold_key else MODES[mode]
    gold, own_gold = (None, None) if gold_key is None else (_gold(table, "topic"), _gold(table, gold_key))
    runs = table.drop_columns(drop + (["gold"] if gold_key else []))
    reference = fm.count(runs, gold, **options)
    mine = ours.drop_columns(drop + (["gold"] if gold_key else []))
    for source in (mine, str(tmp_path / "ours.parquet")) if not gold_key else (mine,):
        _same(fm.count(source, own_gold, **ROLES, **options), reference)


def test_a_swap_of_the_default_names_is_no_collision():
    table = _default()
    swapped = fm.count(table, system="topic", topic="system")
    reference = fm.count(table)
    assert swapped.axes == ("topic", "system")
    np.testing.assert_array_equal(swapped.counts, reference.counts.transpose(1, 0, 2, 3))


def test_a_grid_fitted_to_each_system_and_the_halves(tmp_path):
    table = _default().drop_columns(["pred"])
    ours = _ours(table)
    _same(fm.count(ours, thresholds=4, grid="quantile", **ROLES), fm.count(table, thresholds=4, grid="quantile"))
    _same(halves_sweep(ours, thresholds=4, seed=2, **ROLES), halves_sweep(table, thresholds=4, seed=2))


def test_split_halves_read_the_users_columns():
    table = _default().drop_columns(["score"])
    mine = split_half_counts(_ours(table), replicates=3, seed=4, **ROLES)
    _same(mine, split_half_counts(table, replicates=3, seed=4))


def test_class_probabilities_and_multilabel_take_the_roles():
    rng = np.random.default_rng(8)
    n = 60
    base = pa.table(
        {
            "system": ["a", "b"] * (n // 2),
            "topic": [f"q{(k // 2) % 3}" for k in range(n)],
            "item": np.arange(n) // 2,
            "gold": rng.choice(["x", "y", "z"], n),
            "p": [list(row) for row in rng.dirichlet(np.ones(3), n)],
        }
    )
    # one gold per item: the first system's
    base = base.set_column(3, "gold", pa.array(np.repeat(base.column("gold").to_numpy(zero_copy_only=False)[::2], 2)))
    gold = base.filter(pa.compute.equal(base.column("system"), "a")).select(["topic", "item", "gold"])
    reference = fm.count(base.drop_columns(["gold"]), gold, score="p", thresholds=3, classes=["x", "y", "z"])
    ours = _ours(base.drop_columns(["gold"]))
    mine = fm.count(
        ours, gold.rename_columns(["query", "doc", "gold"]), score="p", thresholds=3, classes=["x", "y", "z"], **ROLES
    )
    _same(mine, reference)

    lists = pa.table(
        {
            "system": ["a", "a", "b", "b"],
            "topic": ["q1", "q1", "q1", "q1"],
            "item": [1, 2, 1, 2],
            "pred": [["x"], ["y", "z"], [], ["y"]],
        }
    )
    gold_lists = pa.table({"topic": ["q1", "q1"], "item": [1, 2], "gold": [["x"], ["y"]]})
    reference = fm.count(lists, gold_lists)
    mine = fm.count(_ours(lists), gold_lists.rename_columns(["query", "doc", "gold"]), **ROLES)
    np.testing.assert_array_equal(mine.counts, reference.counts)
    assert mine.axes == tuple({"system": "model", "topic": "query"}.get(a, a) for a in reference.axes)


def test_errors_name_the_users_columns():
    table = _ours(_default())
    twice = pa.concat_tables([table, table.slice(5, 1)])
    with pytest.raises(InputError, match=r"Duplicated \(model, query, doc\).*once per \(model, query\)\."):
        fm.count(twice.drop_columns(["score"]), **ROLES)
    gold = _gold(_default(), "query").rename_columns(["query", "doc", "gold"]).slice(1)
    with pytest.raises(InputError, match=r"\(query 'q0', doc 'd0'\) at row 0, which the gold does not have"):
        fm.count(table.drop_columns(["score", "gold"]), gold, **ROLES)
    with pytest.raises(InputError, match="'team' to play the system"):
        fm.count(table, system="team", topic="query", item="doc")


def test_grouping_by_topic_against_a_gold_without_topics_names_the_columns_it_looks_for():
    runs = pa.table({"system": ["a", "a"], "topic": ["q1", "q2"], "item": ["d1", "d2"], "pred": [True, False]})
    gold = pa.table({"item": ["d1", "d2"], "gold": [True, True]})
    with pytest.raises(InputError, match=r"a topic column \('topic'\) in the gold: the gold has none"):
        fm.count(runs, gold, by=["system", "topic"])
    renamed = runs.rename_columns(["system", "query", "item", "pred"])
    with pytest.raises(InputError, match=r"a topic column \('query' or 'topic'\) in the gold"):
        fm.count(renamed, gold, by=["system", "query"], topic="query")
