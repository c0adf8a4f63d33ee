"""Multiclass counting: class labels (strings or ints) into counts[system, topic, m, m]."""

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from sklearn.metrics import confusion_matrix

import fastmetrics as fm

CLASSES = np.array(["neg", "neu", "pos", "mixed"])


def _table(seed=0, n=600, systems=3, topics=4, weights=False):
    rng = np.random.default_rng(seed)
    gold = CLASSES[rng.integers(0, 3, n)]  # 'mixed' only ever predicted
    pred = np.where(rng.random(n) < 0.6, gold, CLASSES[rng.integers(0, 4, n)])
    data = {
        "system": [f"s{i}" for i in rng.integers(0, systems, n)],
        "topic": rng.integers(0, topics, n),
        "item": np.arange(n),
        "gold": gold,
        "pred": pred,
    }
    if weights:
        data["weight"] = rng.uniform(0.5, 2.0, n)
    return pa.table(data)


def test_counts_equal_scikit_learn_per_group():
    table = _table()
    t = fm.count(table)
    assert list(t.classes) == sorted(CLASSES)  # the union, sorted: includes the predicted-only class
    assert t.axes == ("system", "topic") and t.counts.shape == (3, 4, 4, 4)
    df = table.to_pandas()
    for (system, topic), group in df.groupby(["system", "topic"]):
        expected = confusion_matrix(group.gold, group.pred, labels=list(t.classes))
        got = t.sel(system=system, topic=topic).counts
        assert np.array_equal(got, expected)


def test_given_class_order_is_kept_and_checked():
    table = _table()
    order = ["neg", "neu", "pos", "mixed"]
    t = fm.count(table, classes=order)
    assert list(t.classes) == order
    assert np.array_equal(
        t.sum(["system", "topic"]).counts,
        confusion_matrix(
            table["gold"].to_numpy(zero_copy_only=False), table["pred"].to_numpy(zero_copy_only=False), labels=order
        ),
    )
    with pytest.raises(fm.InputError, match="'mixed', which is not among the classes given"):
        fm.count(table, classes=["neg", "neu", "pos"])


def test_weighted_counts():
    table = _table(weights=True)
    t = fm.count(table, weight="weight", by=("system",))
    df = table.to_pandas()
    for system, group in df.groupby("system"):
        expected = confusion_matrix(group.gold, group.pred, labels=list(t.classes), sample_weight=group.weight)
        assert np.allclose(t.sel(system=system).counts, expected)


def test_integer_labels_and_streamed_parquet_agree(tmp_path):
    rng = np.random.default_rng(3)
    n = 5000
    table = pa.table(
        {
            "system": rng.integers(0, 4, n),
            "topic": rng.integers(0, 3, n),
            "item": np.arange(n),
            "gold": rng.integers(0, 5, n),
            "pred": rng.integers(0, 6, n),
        }
    )
    folder = tmp_path / "runs"
    folder.mkdir()
    for i in range(4):
        pq.write_table(table.slice(i * 1250, 1250), folder / f"part{i}.parquet")
    whole = fm.count(table)
    streamed = fm.count(str(folder))
    assert list(whole.classes) == list(range(6))
    assert np.array_equal(whole.counts, streamed.counts)
    assert whole.counts.sum() == n


def test_separate_gold_with_classes():
    gold = pa.table({"topic": ["t"] * 4, "item": [1, 2, 3, 4], "gold": ["a", "b", "c", "a"]})
    runs = pa.table({"system": ["x"] * 4, "topic": ["t"] * 4, "item": [4, 3, 2, 1], "pred": ["a", "c", "c", "b"]})
    t = fm.count(runs, gold=gold, by=("system",))
    assert np.array_equal(t.counts[0], [[1, 1, 0], [0, 0, 1], [0, 0, 1]])
    with pytest.raises(fm.ParameterError, match="no meaning for multiclass"):
        fm.count(runs, gold=gold, missing="negative")
    lacking = runs.slice(0, 3)
    t = fm.count(lacking, gold=gold, by=("system",), missing="drop")
    assert t.counts.sum() == 3


def test_task_choice_and_errors():
    binary_looking = pa.table({"gold": [0, 1, 1, 0], "pred": [1, 1, 0, 0]})
    assert fm.count(binary_looking).classes.tolist() == [0, 1]
    t = fm.count(binary_looking, task="multiclass", classes=[1, 0])
    assert np.array_equal(t.counts, [[1, 1], [1, 1]]) and t.classes.tolist() == [1, 0]
    scores = pa.table({"gold": ["a", "b", "c"], "score": [0.1, 0.5, 0.9]})
    with pytest.raises(fm.InputError, match="scores and thresholds need binary gold"):
        fm.count(scores, thresholds=3)
    with pytest.raises(fm.ParameterError, match="hard predictions"):
        fm.count(scores, task="multiclass")
    mixed = pa.table({"gold": ["a", "b"], "pred": [1, 2]})
    with pytest.raises(fm.InputError, match="one type across columns"):
        fm.count(mixed)
    with pytest.raises(fm.ParameterError, match="task"):
        fm.count(binary_looking, task="ordinal")


def test_matrix_table_round_trip():
    t = fm.count(_table())
    back = fm.count(t.to_arrow())
    assert back.axes == t.axes and list(back.classes) == list(t.classes)
    assert np.array_equal(back.counts, t.counts)


def test_evaluate_mixes_native_and_averaged_measures():
    t = fm.count(_table())
    s = t.evaluate(["accuracy", "f1@macro", "mcc", "mcc@macro", "k_cost"], cost=fm.ordinal_costs(4))
    assert s.measures == ("accuracy", "f1@macro", "mcc", "mcc@macro", "k_cost")
    cell = t.counts[1, 2]
    assert s["f1@macro"][1, 2] == pytest.approx(fm.compute("f1", counts=cell, average="macro"))
    assert s["k_cost"][1, 2] == pytest.approx(fm.compute("k_cost", counts=cell, cost=fm.ordinal_costs(4)))
