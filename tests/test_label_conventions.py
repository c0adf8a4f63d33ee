"""Conventions users take on trust from scikit-learn (issue 29): ``undefined=`` without groups, weight 0,
the positive label, NaN labels, integer ``k``, ``@none`` with one class."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pyarrow as pa
import pytest
from sklearn import metrics as skm

import fastmetrics as fm


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
    from sklearn.dummy import DummyClassifier

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
    return subprocess.run([sys.executable, "-m", "fastmetrics.cli", *map(str, args)], capture_output=True, text=True)


# -- item 7: @none with one class -------------------------------------------------------------------
@pytest.mark.parametrize("y", [["dog"], ["dog", "dog", "dog"], [3, 3]])
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
