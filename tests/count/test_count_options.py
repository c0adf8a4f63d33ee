"""The count options as one frozen, checked object (issue 43, item 2): each invalid option is
refused by name before any reading, equal options compare equal however they were spelled, and
fm.count, fastmetrics.dask.count and the command line build the same object for the same request."""

from __future__ import annotations

import dataclasses
import importlib

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import fastmetrics as fm
from fastmetrics import ParameterError
from fastmetrics.count import CountOptions

plan_module = importlib.import_module("fastmetrics.count.plan")  # the module: the package's `plan` is its function

BAD = [
    ("missing", "maybe"),
    ("unjudged", "yes"),
    ("task", "regression"),
    ("grid", "local"),
    ("ties", "random"),
    ("multiclass", "ova"),
    ("thresholds", 0),
    ("thresholds", -3),
    ("thresholds", "all"),
    ("thresholds", [0.1, float("nan")]),
    ("thresholds", [[0.1, 0.2]]),
    ("thresholds", []),
    ("thresholds", 0.5),
    ("by", 3),
    ("by", ["system", 2]),
    ("pred", 1),
    ("item", None),
    ("weight", 2.0),
    ("category", 5),
    ("classes", "abc"),
    ("classes", 3),
    ("classes", [[1], [2]]),
    ("coords", ["a", "b"]),
    ("coords", {1: ["a"]}),
    ("score", ["only"]),
    ("score", 7),
]


@pytest.mark.parametrize(("option", "value"), BAD, ids=[f"{o}={v!r}" for o, v in BAD])
def test_an_invalid_option_is_refused_by_name(option, value):
    with pytest.raises(ParameterError, match=f"'{option}' parameter of count"):
        CountOptions(**{option: value})


@pytest.mark.parametrize(("option", "value"), BAD[:8], ids=[f"{o}={v!r}" for o, v in BAD[:8]])
def test_fm_count_refuses_it_before_reading(option, value, tmp_path):
    # the file does not exist: the options are checked first, and the error names the option
    with pytest.raises(ParameterError, match=f"'{option}' parameter of count"):
        fm.count(tmp_path / "absent.parquet", **{option: value})


@pytest.mark.parametrize(
    ("options", "words"),
    [
        (dict(grid="system"), "grid='system'.*thresholds"),
        (dict(grid="quantile", thresholds="exact"), "grid='quantile'.*thresholds"),
        (dict(system="run", topic="run"), "both the system and the topic: 'run'"),
        (dict(category="item"), "category='item'"),
        (dict(category="lang", by=("system", "lang")), "category='lang'"),
        (dict(score=["p", "p"]), "score="),
        (dict(score=["pred", "q"]), "score="),
    ],
)
def test_options_that_do_not_go_together(options, words):
    with pytest.raises(ParameterError, match=words):
        CountOptions(**options)


def test_defaults_and_normal_forms():
    options = CountOptions()
    assert options.by == ("system", "topic")
    assert CountOptions(system="run", topic="query").by == ("run", "query")
    assert CountOptions(by="lang").by == ("lang",)
    assert CountOptions(thresholds=np.int32(5)).thresholds == 5
    assert type(CountOptions(thresholds=np.int32(5)).thresholds) is int
    assert CountOptions(thresholds=np.array([0.5, 0.25], np.float32)).thresholds == (0.5, 0.25)
    assert CountOptions(classes=pa.array(["lo", "hi"])).classes == ("lo", "hi")
    assert CountOptions(coords={"system": np.array([2, 1])}).coord_labels == {"system": [2, 1]}
    assert CountOptions().coord_labels == {}


def test_equal_however_spelled_and_hashable():
    a = CountOptions(by=["system"], thresholds=np.array([0.2, 0.5]), classes=np.array([1, 2]), coords={"system": ["a"]})
    b = CountOptions(by=("system",), thresholds=[0.2, 0.5], classes=(1, 2), coords={"system": ("a",)})
    assert a == b and hash(a) == hash(b)
    assert len({a, b, CountOptions()}) == 2
    assert a != dataclasses.replace(a, thresholds=[0.2, 0.6])


def test_immutable():
    options = CountOptions()
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.thresholds = 11


def test_replace_makes_a_checked_variant():
    base = CountOptions(by="lang", coords={"lang": ["en", "fr"]}, missing="drop")
    variant = dataclasses.replace(base, thresholds=11)
    assert variant.thresholds == 11 and base.thresholds is None
    assert (variant.by, variant.coords, variant.missing) == (base.by, base.coords, base.missing)
    assert variant.coord_labels == {"lang": ["en", "fr"]}
    with pytest.raises(ParameterError, match="'missing' parameter"):
        dataclasses.replace(base, missing="sometimes")


def test_from_preset():
    preset = {"missing": "negative", "unjudged": "negative", "thresholds": "ranks"}
    options = CountOptions.from_preset(preset, thresholds=5)
    assert options == CountOptions(missing="negative", unjudged="negative", thresholds=5)
    assert preset["thresholds"] == "ranks"  # the preset is not changed
    with pytest.raises(ParameterError, match="'treshold' is no count option. Did you mean: thresholds"):
        CountOptions.from_preset({"treshold": 3})
    with pytest.raises(ParameterError, match="'ties' parameter"):
        CountOptions.from_preset({}, ties="both")


def _runs():
    rng = np.random.default_rng(4)
    n = 60
    return pa.table(
        {
            "system": np.array(["a", "b", "c"])[np.arange(n) % 3],
            "topic": np.arange(n) // 3 % 4,
            "doc": np.arange(n) // 12,
            "gold": rng.random(n) < 0.4,
            "pred": rng.random(n) < 0.5,
            "score": rng.random(n),
        }
    )


def test_options_equal_keywords():
    runs = _runs()
    given = fm.count(runs, options=CountOptions(thresholds=5, by="system"))
    assert np.array_equal(given.counts, fm.count(runs, thresholds=5, by="system").counts)
    with pytest.raises(ParameterError, match="thresholds= and options= together"):
        fm.count(runs, thresholds=5, options=CountOptions())
    with pytest.raises(ParameterError, match="'options' parameter"):
        fm.count(runs, options={"thresholds": 5})


@pytest.fixture
def built(monkeypatch):
    """The options pass 1 receives, however the count was asked for."""
    pytest.importorskip("fastmetrics.dask")  # before the patch: it keeps its own name of the real prepare
    seen = []
    prepare = plan_module.prepare

    def record(columns, schema, part, gold, options):
        seen.append(options)
        return prepare(columns, schema, part, gold, options)

    monkeypatch.setattr(plan_module, "prepare", record)
    return seen


def test_fm_count_dask_and_cli_build_the_same_options(built, tmp_path, monkeypatch):
    path = tmp_path / "runs.parquet"
    pq.write_table(_runs(), path)
    asked = CountOptions(by="system", thresholds=5, item="doc", task="binary")
    fm.count(str(path), by="system", thresholds=5, item="doc", task="binary")
    fm.count(str(path), options=asked)
    from fastmetrics.cli import main

    argv = ["count", str(path), "--by", "system", "--thresholds", "5", "--item", "doc", "--task", "binary"]
    assert main([*argv, "--quiet", "--out", str(tmp_path / "counts.parquet")]) == 0
    import fastmetrics.dask as fmd

    dask_prepare = fmd.prepare

    def record(columns, schema, part, gold, options):
        built.append(options)
        return dask_prepare(columns, schema, part, gold, options)

    monkeypatch.setattr(fmd, "prepare", record)
    fmd.count(str(path), by="system", thresholds=5, item="doc", task="binary")
    assert len(built) == 4
    assert all(options == asked and type(options) is CountOptions for options in built), built
