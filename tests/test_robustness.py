"""Unit checks behind the command line's one rule (issue 15): atomic output that survives
interruption, memory refused before it is spent, fastmetrics' own errors from the Python API,
and degenerate inputs (one class) that give the values an independent implementation gives."""

from __future__ import annotations

import os

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from sklearn.metrics import accuracy_score, balanced_accuracy_score

import fastmetrics as fm
from fastmetrics import _memory
from fastmetrics.report.tables import write_bytes, write_table


def test_output_has_no_name_until_complete(tmp_path):
    """While the data is written the folder holds no file at all (Linux O_TMPFILE): a SIGKILL then
    leaves nothing behind; elsewhere a hidden temp file that every other exit removes."""
    seen = []

    target = tmp_path / "out.bin"
    payload = b"x" * 1000
    from fastmetrics.report import tables

    def write(fh):
        seen.append(sorted(os.listdir(tmp_path)))
        fh.write(payload)

    tables._atomic_write(target, tmp_path, write)
    assert target.read_bytes() == payload
    if hasattr(os, "O_TMPFILE"):
        assert seen == [[]]
    assert sorted(os.listdir(tmp_path)) == ["out.bin"]


@pytest.mark.parametrize("exc", [KeyboardInterrupt, SystemExit, RuntimeError])
def test_interrupted_write_leaves_nothing(tmp_path, exc):
    from fastmetrics.report import tables

    def write(fh):
        fh.write(b"partial")
        raise exc()

    with pytest.raises(exc):
        tables._atomic_write(tmp_path / "out.csv", tmp_path, write)
    assert os.listdir(tmp_path) == []


def test_existing_target_is_replaced_whole(tmp_path):
    target = tmp_path / "out.csv"
    target.write_text("old")
    write_table(pa.table({"a": [1, 2]}), target)
    assert target.read_text().splitlines() == ['"a"', "1", "2"]
    assert os.listdir(tmp_path) == ["out.csv"]


def test_folder_as_output_is_refused(tmp_path):
    with pytest.raises(fm.ParameterError, match=r"it is a folder"):
        write_bytes(b"x", tmp_path)


@pytest.mark.parametrize(
    "text, expected",
    [
        ("123", 123),
        ("1K", 1024),
        ("512M", 512 << 20),
        ("40G", 40 << 30),
        ("1.5T", int(1.5 * (1 << 40))),
        ("2GiB", 2 << 30),
        ("3 gb", 3 << 30),
    ],
)
def test_memory_sizes(text, expected):
    assert _memory.parse_size(text) == expected


@pytest.mark.parametrize("text", ["", "x", "-1G", "1Q", "G"])
def test_bad_memory_sizes(text):
    with pytest.raises(fm.ParameterError, match="memory size"):
        _memory.parse_size(text)


def _runs(n_systems=3, n_items=50, seed=0):
    rng = np.random.default_rng(seed)
    return pa.table(
        {
            "system": np.repeat(np.arange(n_systems), n_items),
            "item": np.tile(np.arange(n_items), n_systems),
            "gold": np.tile(rng.random(n_items) < 0.4, n_systems),
            "score": rng.random(n_systems * n_items),
        }
    )


def test_tensor_too_large_is_refused_before_allocation(monkeypatch):
    monkeypatch.setenv(_memory.ENV, "1M")
    # 3 groups x 100,000 thresholds x (2 x 8 + 4 x 8) bytes + the grid = 14.5 MiB > 1 MiB
    with pytest.raises(
        fm.ParameterError, match=r"(?s)3 groups.*100,000 thresholds.*14\.5 MiB.*1\.0 MiB.*fewer thresholds"
    ):
        fm.count(_runs(), by=("system",), thresholds=100_000)
    monkeypatch.setenv(_memory.ENV, "64M")
    assert fm.count(_runs(), by=("system",), thresholds=100_000).counts.shape == (3, 100_000, 2, 2)


def test_many_classes_refused_with_the_size(monkeypatch):
    monkeypatch.setenv(_memory.ENV, "1M")
    labels = np.arange(1000).astype(str)
    table = pa.table({"system": ["a"] * 1000, "item": np.arange(1000), "gold": labels, "pred": labels})
    with pytest.raises(fm.ParameterError, match=r"1,000 x 1,000 classes.*15\.3 MiB"):
        fm.count(table, by=("system",))


def test_classes_of_the_wrong_type():
    table = pa.table({"system": ["a"] * 4, "item": [1, 2, 3, 4], "gold": [1, 2, 3, 1], "pred": [1, 2, 2, 3]})
    with pytest.raises(fm.InputError, match=r"classes given \(a, b\).*type int64.*gold"):
        fm.count(table, by=("system",), classes=["a", "b"])
    # strings that parse as the labels' type are fine (the command line passes strings)
    assert fm.count(table, by=("system",), classes=["3", "2", "1"]).classes.tolist() == [3, 2, 1]


@pytest.mark.parametrize("measures", [None, 3, 2.5, [1, 2], {"f1": 1}.values()])
def test_evaluate_rejects_what_is_not_a_measure_list(measures):
    t = fm.count(
        pa.table({"system": ["a"] * 4, "item": [1, 2, 3, 4], "gold": [1, 0, 1, 0], "pred": [1, 0, 0, 0]}),
        by=("system",),
    )
    with pytest.raises(fm.ParameterError, match="measures must be"):
        t.evaluate(measures)


def test_compute_out_and_dtype_errors():
    c = np.ones((3, 2, 2))
    with pytest.raises(fm.ParameterError, match=r"float64 array of shape \(3,\).*shape \(2,\)"):
        fm.compute("f1", counts=c, out=np.empty(2))
    with pytest.raises(fm.ParameterError, match=r"float64 array of shape \(3,\).*int64"):
        fm.compute("f1", counts=c, out=np.empty(3, int))
    with pytest.raises(fm.ParameterError, match=r"float64 array of shape \(2,\)"):
        fm.compute("f1", tp=[1, 2], fp=1, fn=1, tn=1, out=np.empty(3))
    with pytest.raises(fm.InputError, match="real numeric counts.*complex"):
        fm.compute("f1", counts=np.ones((2, 2), complex))
    out = np.empty(3)
    assert fm.compute("f1", counts=c, out=out) is out and np.allclose(out, 0.5)


def test_one_class_binary_and_multiclass_match_scikit_learn():
    y = ["x"] * 7
    t = fm.count(pd.DataFrame({"system": ["a"] * 7, "item": range(7), "gold": y, "pred": y}))
    assert t.m == 1
    s = t.evaluate(["accuracy", "balanced_accuracy"])
    assert s["accuracy"][0] == accuracy_score(y, y) == 1.0
    with np.errstate(all="ignore"):
        assert s["balanced_accuracy"][0] == balanced_accuracy_score(y, y)
    b = fm.count(pd.DataFrame({"system": ["a"] * 5, "item": range(5), "gold": [1] * 5, "pred": [1] * 5}))
    assert b.evaluate("accuracy")["accuracy"][0] == 1.0


def test_leaderboard_of_a_sweep_says_what_to_do():
    from fastmetrics.board import leaderboard

    t = fm.count(_runs(), by=("system",))  # scores only: an exact sweep
    with pytest.raises(fm.ParameterError, match=r"threshold sweep.*'pred' column"):
        leaderboard(t, ["f1"])


def test_negative_seed_is_refused():
    from fastmetrics._seeding import rng_of

    with pytest.raises(fm.ParameterError, match=r"integer >= 0.*-1"):
        rng_of(-1)
