"""Conventions users take on trust from scikit-learn (issue 29): ``undefined=`` without groups, weight 0,
the positive label, NaN labels, integer ``k``, ``@none`` with one class."""

from __future__ import annotations

import json

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from sklearn import metrics as skm
from sklearn.dummy import DummyClassifier

import fastmetrics as fm
from tests._program import run_fastmetrics


@pytest.mark.parametrize("fill", [0.0, 1.0])
@pytest.mark.parametrize("measure", ["precision", "recall", "f1"])
def test_undefined_replaces_nan_without_groups(measure, fill):
    y_true, y_pred = ([0, 1], [0, 0]) if measure != "recall" else ([0, 0], [0, 1])
    sk = {"precision": skm.precision_score, "recall": skm.recall_score, "f1": skm.f1_score}[measure]
    expected = sk(y_true, y_pred, zero_division=fill)
    value = fm.score(y_true, y_pred, measures=[measure], undefined=fill)[measure]
    assert np.ndim(value) == 0 and float(value) == expected
    grouped = fm.score(y_true, y_pred, measures=[measure], undefined=fill, groups={"g": [1, 1]})[measure]
    assert grouped.tolist() == [expected]


# -- item 4: which label is positive, as scikit-learn's pos_label=1 ------------------------------
SK = {"precision": skm.precision_score, "recall": skm.recall_score, "f1": skm.f1_score}
PAIRS = {"1,2": [1, 2], "-1,1": [-1, 1], "0,1": [0, 1], "bool": [False, True], "2,1 float": [2.0, 1.0]}


def _labels(pair, seed=0, n=60):
    rng = np.random.default_rng(seed)
    y_true = np.asarray(pair)[rng.integers(0, 2, n)]
    y_pred = np.where(rng.random(n) < 0.7, y_true, np.asarray(pair)[rng.integers(0, 2, n)])
    return y_true, y_pred


def _table(y_true, y_pred):
    return pa.table({"gold": pa.array(list(y_true)), "pred": pa.array(list(y_pred))})


@pytest.mark.parametrize("pair", sorted(PAIRS))
def test_positive_label_is_scikit_learns_pos_label_1(pair):
    y_true, y_pred = _labels(PAIRS[pair])
    expected = [SK[m](y_true, y_pred) for m in SK]
    assert fm.score(y_true, y_pred, measures=list(SK)).values.tolist() == pytest.approx(expected, abs=1e-15)
    assert fm.count(_table(y_true, y_pred), by=()).evaluate(list(SK)).values.tolist() == pytest.approx(expected)
    other = [x for x in PAIRS[pair] if x != 1][0]
    flipped = [SK[m](y_true, y_pred, pos_label=other) for m in SK]
    assert fm.score(y_true, y_pred, measures=list(SK), pos_label=other).values.tolist() == pytest.approx(flipped)
    tensor = fm.count(_table(y_true, y_pred), by=())
    assert tensor.evaluate(list(SK), pos_label=other).values.tolist() == pytest.approx(flipped)
    # measures that read no positive class are untouched
    assert float(fm.score(y_true, y_pred, measures="mcc")["mcc"]) == pytest.approx(
        skm.matthews_corrcoef(y_true, y_pred)
    )


@pytest.mark.parametrize("pair", [["ham", "spam"], ["abnormal", "normal"], [0, 2]])
def test_two_labels_without_1_need_pos_label(pair):
    y_true, y_pred = _labels(pair)
    with pytest.raises(ValueError, match="pos_label"):
        skm.precision_score(y_true, y_pred)
    for call in (
        lambda: fm.score(y_true, y_pred, measures=["accuracy", "precision"]),
        lambda: fm.count(_table(y_true, y_pred), by=()).evaluate("recall"),
    ):
        with pytest.raises(fm.InputError, match=r"pos_label.*--pos-label") as err:
            call()
        assert repr(pair[0]) in str(err.value) and repr(pair[1]) in str(err.value)
    for m, sk in SK.items():
        value = float(fm.score(y_true, y_pred, measures=m, pos_label=pair[1])[m])
        assert value == pytest.approx(sk(y_true, y_pred, pos_label=pair[1]))
    # no positive class read: accuracy, mcc, macro F1 -- and the default measures are those
    s = fm.score(y_true, y_pred, measures=["accuracy", "mcc", "f1@macro"])
    expected = [skm.accuracy_score(y_true, y_pred), skm.matthews_corrcoef(y_true, y_pred)]
    expected.append(skm.f1_score(y_true, y_pred, average="macro"))
    assert s.values.tolist() == pytest.approx(expected)
    assert "precision" not in fm.score(y_true, y_pred).measures


@pytest.mark.parametrize("label", [2, "dog", 1, 0, True])
def test_one_label_present_is_scikit_learns_value(label):
    y = [label] * 4
    for m, sk in SK.items():
        expected = sk(y, y, zero_division=0.0)
        assert float(fm.score(y, y, measures=m, undefined=0.0)[m]) == expected, m


def test_make_scorer_and_cli_follow_pos_label(tmp_path):
    X = np.zeros((8, 1))
    y = np.array(["ham", "spam", "spam", "ham", "spam", "ham", "spam", "spam"])
    model = DummyClassifier(strategy="constant", constant="spam").fit(X, y)
    with pytest.raises(fm.InputError, match="pos_label"):
        fm.sklearn.make_scorer("precision")(model, X, y)
    ours = fm.sklearn.make_scorer("precision", pos_label="spam")(model, X, y)
    assert ours == skm.make_scorer(skm.precision_score, pos_label="spam")(model, X, y)

    path = tmp_path / "labels.csv"
    path.write_text("gold,pred\n" + "".join(f"{g},{p}\n" for g, p in zip(y, ["spam", "ham"] * 4)))
    proc = _cli("evaluate", path, "--measures", "precision")
    assert proc.returncode == 2 and "--pos-label" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    out = tmp_path / "p.json"
    proc = _cli("evaluate", path, "--measures", "precision", "--pos-label", "ham", "--out", out)
    assert proc.returncode == 0, proc.stderr
    expected = skm.precision_score(y, ["spam", "ham"] * 4, pos_label="ham")
    assert json.loads(out.read_text())[0]["value"] == pytest.approx(expected)
    ints = tmp_path / "ints.csv"
    ints.write_text("gold,pred\n1,1\n2,2\n2,1\n1,1\n1,2\n")
    proc = _cli("evaluate", ints, "--out", out)
    assert proc.returncode == 0, proc.stderr
    values = {r["measure"]: r["value"] for r in json.loads(out.read_text())}
    assert values["precision"] == pytest.approx(skm.precision_score([1, 2, 2, 1, 1], [1, 2, 1, 1, 2]))


def _cli(*args):
    return run_fastmetrics(args, module="fastmetrics.cli")


# -- item 7: @none with one class -------------------------------------------------------------------
@pytest.mark.parametrize("y", [["dog"], ["dog", "dog", "dog"], [3, 3], [1], [0, 0], [True]])
def test_none_average_with_one_class(y):
    s = fm.score(y, y, measures=["precision@none", "recall@none", "f1@none"])
    expected = [SK[m](y, y, average=None) for m in SK]
    assert s.values.tolist() == [list(e) for e in expected]
    assert s.coords["class"].tolist() == sorted(set(y))


def test_none_average_with_two_classes_gives_both():
    y_true, y_pred = _labels([0, 1])
    s = fm.score(y_true, y_pred, measures=["precision@none", "recall@none"])
    expected = [skm.precision_score(y_true, y_pred, average=None), skm.recall_score(y_true, y_pred, average=None)]
    np.testing.assert_allclose(s.values, expected)


# -- item 3: weight 0, as scikit-learn's sample_weight: the row's labels are classes ----------------
@pytest.mark.parametrize("seed", range(4))
def test_zero_weights_keep_their_labels_as_classes(seed):
    rng = np.random.default_rng(seed)
    n = 40
    y_true, y_pred = rng.integers(0, 3, n), rng.integers(0, 3, n)
    y_true[:3], y_pred[:3] = 3, 4  # classes 3 and 4 only on rows of weight 0
    w = rng.uniform(0.5, 2.0, n)
    w[:3] = 0.0
    w[rng.random(n) < 0.2] = 0.0
    specs = ["precision@macro", "recall@macro", "f1@macro", "precision@weighted", "f1@micro", "accuracy"]
    expected = [
        skm.precision_score(y_true, y_pred, average="macro", sample_weight=w, zero_division=0),
        skm.recall_score(y_true, y_pred, average="macro", sample_weight=w, zero_division=0),
        skm.f1_score(y_true, y_pred, average="macro", sample_weight=w, zero_division=0),
        skm.precision_score(y_true, y_pred, average="weighted", sample_weight=w, zero_division=0),
        skm.f1_score(y_true, y_pred, average="micro", sample_weight=w),
        skm.accuracy_score(y_true, y_pred, sample_weight=w),
    ]
    ours = fm.score(y_true, y_pred, measures=specs, sample_weight=w, undefined=0.0)
    np.testing.assert_allclose(ours.values, expected, atol=1e-12)
    table = pa.table({"gold": y_true, "pred": y_pred, "w": w})
    counted = fm.count(table, by=(), weight="w").evaluate(specs, undefined=0.0)
    np.testing.assert_allclose(counted.values, expected, atol=1e-12)
    # per group, each group's own labels, as scikit-learn per group
    g = rng.integers(0, 2, n)
    grouped = fm.count(table.append_column("g", pa.array(g)), by="g", weight="w").evaluate(specs[:1], undefined=0.0)
    for j in (0, 1):
        m = g == j
        sk = skm.precision_score(y_true[m], y_pred[m], average="macro", sample_weight=w[m], zero_division=0)
        assert grouped.values[0, j] == pytest.approx(sk)


def test_binary_zero_weight_label_and_bad_weights():
    value = fm.score([0, 1], [0, 0], measures="precision@macro", sample_weight=[1, 0], undefined=0.0)
    assert float(value["precision@macro"]) == skm.precision_score(
        [0, 1], [0, 0], average="macro", sample_weight=[1, 0], zero_division=0
    )
    table = pa.table({"gold": [0, 1, 1], "pred": [0, 1, 0], "w": [1.0, 0.0, 2.0]})
    assert fm.count(table, by=(), weight="w").counts.tolist() == [[1.0, 0.0], [2.0, 0.0]]
    for bad, shown in ((-1.0, "-1.0"), (np.nan, "nan")):
        with pytest.raises(fm.InputError, match=rf"'w'.*>= 0.*{shown} at row 1"):
            fm.count(pa.table({"gold": [0, 1], "pred": [0, 1], "w": [1.0, bad]}), by=(), weight="w")
        with pytest.raises(fm.InputError, match=rf"sample_weight.*>= 0; item 1 has {shown}"):
            fm.score([0, 1], [0, 1], sample_weight=[1.0, bad])


# -- item 6: k and cutoff are whole numbers of positions -----------------------------------------
def _ranked():
    rng = np.random.default_rng(0)
    table = pa.table({"item": np.arange(20), "gold": rng.random(20) < 0.4, "score": rng.normal(size=20)})
    return fm.count(table, by=(), thresholds="ranks"), table


@pytest.mark.parametrize("spec", ["precision_at_k(k={})", "recall_at_k(k={})", "reciprocal_rank(cutoff={})"])
@pytest.mark.parametrize("value", [2.5, 0.5, 0, -3])
def test_non_integer_or_small_k_is_refused(spec, value):
    tensor, _ = _ranked()
    name = spec.split("(")[1].split("=")[0]
    with pytest.raises(fm.ParameterError, match=rf"'{name}' parameter .* whole number >= 1.*Got '{value}'"):
        tensor.evaluate(spec.format(value))


def test_integer_k_equals_a_loop(tmp_path):
    tensor, table = _ranked()
    gold, score = table["gold"].to_numpy(zero_copy_only=False), table["score"].to_numpy()
    ranked = gold[np.argsort(-score, kind="stable")]
    s = tensor.evaluate(["precision_at_k(k=3)", "precision_at_k(k=3.0)", "recall_at_k(k=inf)"])
    assert s.values.tolist() == [ranked[:3].sum() / 3, ranked[:3].sum() / 3, 1.0]
    path = tmp_path / "ranked.parquet"
    pq.write_table(table, path)
    proc = _cli("evaluate", path, "--thresholds", "ranks", "--measures", "precision_at_k(k=2.5)")
    assert proc.returncode == 2 and "whole number" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


# -- item 5: a NaN label is refused, naming the NaN, the column and the first row ---------------------
@pytest.mark.parametrize(
    "y_true, y_pred, column, row",
    [
        ([0.0, 1.0, np.nan], [0.0, 1.0, 1.0], "y_true", 2),
        ([0.0, 1.0, np.nan, np.nan], [0, 1, 1, 0], "y_true", 2),  # integer predictions: still about the NaN
        ([0, 2, 1], [0.0, np.nan, 1.0], "y_pred", 1),
        (pa.array([0.5, np.nan, 2.0]), pa.array([0.5, 1.0, 2.0]), "y_true", 1),
    ],
)
def test_nan_labels_are_refused(y_true, y_pred, column, row):
    with pytest.raises(ValueError, match="NaN"):  # scikit-learn refuses them too
        skm.accuracy_score(np.asarray(y_true, dtype=float), np.asarray(y_pred, dtype=float))
    with pytest.raises(fm.InputError, match=rf"^Column '{column}' has a NaN label at row {row}:"):
        fm.score(y_true, y_pred, measures="accuracy")
    names = {"y_true": "gold", "y_pred": "pred"}
    table = pa.table({"gold": pa.array(y_true), "pred": pa.array(y_pred)})
    with pytest.raises(fm.InputError, match=rf"^Column '{names[column]}' has a NaN label at row {row}:"):
        fm.count(table, by=())


@pytest.mark.parametrize("y_true", [["a", float("nan"), "b"], np.array(["a", np.nan, "b"], dtype=object)])
def test_a_nan_among_text_labels_is_refused(y_true):
    """numpy would make it the text 'nan', a class of its own."""
    with pytest.raises(fm.InputError, match=r"^Column 'y_true' has a NaN label at row 1:"):
        fm.score(y_true, ["a", "b", "b"], measures="accuracy")


def test_nan_labels_in_a_csv_file(tmp_path):
    path = tmp_path / "labels.csv"
    path.write_text("gold,pred\n0,0\n1,1\n1,NaN\n2,1\n")
    proc = _cli("evaluate", path)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.strip() == (
        f"fastmetrics: error: Column 'pred' in '{path}' has a NaN label at row 2: labels are classes; "
        "drop the row or give it a class."
    )
    # whole-number floats against integers are the same classes (scikit-learn's 1 == 1.0)
    y_true, y_pred = [0, 1, 2, 2], [0.0, 1.0, 2.0, 1.0]
    assert float(fm.score(y_true, y_pred, measures="accuracy")["accuracy"]) == skm.accuracy_score(y_true, y_pred)
