"""Robustness across topics (seed 004 §6.4) against scipy.stats.spearmanr in a loop."""

import functools
import importlib
import io
import warnings

import numpy as np
import pytest
from scipy import stats

import fastmetrics as fm
from fastmetrics import meta
from fastmetrics._progress import Progress

from ._data import awkward_values, random_scores, values_scores

robustness_module = importlib.import_module("fastmetrics.meta.robustness")  # the package exports the function


def _reference(values_a, values_b):
    keep = ~(np.isnan(values_a) | np.isnan(values_b))
    a, b = values_a[keep], values_b[keep]
    if a.size < 2 or np.all(a == a[0]) or np.all(b == b[0]):
        return np.nan
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return stats.spearmanr(a, b).statistic


@pytest.mark.parametrize("seed", [0, 5])
def test_all_pairs_against_spearmanr(seed):
    scores = random_scores(seed, systems=9, topics=10)
    result = meta.robustness(scores, pairs="all")
    detail = result.detail.to_pylist()
    topics = list(scores.coords["topic"])
    assert len(detail) == 4 * 45
    for row in detail:
        a, b = topics.index(row["topic_a"]), topics.index(row["topic_b"])
        expected = _reference(scores[row["measure"]][:, a], scores[row["measure"]][:, b])
        if np.isnan(expected):
            assert np.isnan(row["value"])
        else:
            assert row["value"] == pytest.approx(expected, abs=1e-12)
    for row in result.summary.to_pylist():
        values = np.array([r["value"] for r in detail if r["measure"] == row["measure"]])
        ok = values[~np.isnan(values)]
        assert row["pairs"] == ok.size and row["undefined"] == values.size - ok.size
        assert row["mean"] == pytest.approx(ok.mean()) and row["std"] == pytest.approx(ok.std(ddof=1))


def test_sampled_pairs_are_distinct_and_seeded():
    scores = random_scores(1, systems=6, topics=30)
    one = meta.robustness(scores, pairs=100, seed=7).detail
    again = meta.robustness(scores, pairs=100, seed=7).detail
    other = meta.robustness(scores, pairs=100, seed=8).detail
    assert one.equals(again) and not one.equals(other)
    pairs = [(r["topic_a"], r["topic_b"]) for r in one.to_pylist() if r["measure"] == "f1"]
    assert len(pairs) == len(set(pairs)) == 100 and all(a != b for a, b in pairs)
    # more pairs than exist: every pair once
    assert meta.robustness(scores, pairs=10_000).params["pairs_drawn"] == 30 * 29 // 2


def test_constant_side_is_counted_not_averaged():
    counts = np.zeros((3, 2, 2, 2), np.int64)
    counts[:, :, 1, 1] = [[1, 2], [1, 3], [1, 1]]  # topic 0: every system equal
    counts[:, :, 0, 0] = 2
    counts[:, :, 1, 0] = 1
    scores = fm.ConfusionTensor(counts, ("system", "topic")).evaluate(["recall"])
    row = meta.robustness(scores, pairs="all").summary.to_pylist()[0]
    assert row["pairs"] == 0 and row["undefined"] == 1 and np.isnan(row["mean"])
    with pytest.raises(fm.ParameterError, match="pairs"):
        meta.robustness(scores, pairs=0)
    with pytest.raises(fm.ParameterError, match="two topics"):
        meta.robustness(scores.sel(topic=0), pairs="all")


@pytest.mark.parametrize("path", ["numpy", "kernels"])
@pytest.mark.parametrize("bands", [None, 1, 2])
@pytest.mark.parametrize("block", [None, 1, 7])
@pytest.mark.parametrize("seed", range(6))
def test_matrix_products_equal_spearmanr_per_pair(monkeypatch, seed, block, bands, path):
    """All pairs from blocked products (one row, a few rows, one block), each block multiplied in
    bands of rows (one band, bands of one or two rows), by numpy's mask or the kernels, undefined
    systems, ties and constant topics included: each value is scipy's on the systems both topics
    define."""
    if block is not None:
        monkeypatch.setattr(robustness_module, "_BLOCK_CELLS", block * (5 + seed))
    if bands is not None:
        monkeypatch.setattr(robustness_module, "_BAND_ROWS", bands)
        monkeypatch.setattr(robustness_module, "_BANDS", 1 << 20)
    if path == "kernels":
        monkeypatch.setattr(robustness_module._common, "NUMPY_VALUES", -1)
    values = awkward_values(seed, systems=2 + seed, topics=5 + seed)
    result = meta.robustness(values_scores(values), pairs="all")
    rows = result.detail.to_pylist()
    first, second = np.triu_indices(values.shape[2], 1)
    assert [(r["topic_a"], r["topic_b"]) for r in rows] == list(zip(first, second)) * 2
    for row, (m, a, b) in zip(rows, [(m, a, b) for m in range(2) for a, b in zip(first, second)]):
        expected = _reference(values[m, :, a], values[m, :, b])
        assert np.isnan(row["value"]) == np.isnan(expected)
        if not np.isnan(expected):
            assert abs(row["value"] - expected) <= 1e-12


@pytest.mark.parametrize("seed", range(4))
def test_drawn_pairs_equal_spearmanr_and_summary_without_detail(seed):
    values = awkward_values(seed, systems=6, topics=40)
    scores = values_scores(values)
    result = meta.robustness(scores, pairs=50, seed=seed)
    for row in result.detail.to_pylist():
        m = ("f1", "accuracy").index(row["measure"])
        expected = _reference(values[m, :, row["topic_a"]], values[m, :, row["topic_b"]])
        assert np.isnan(row["value"]) == np.isnan(expected)
        if not np.isnan(expected):
            assert abs(row["value"] - expected) <= 1e-12
    for pairs in (50, "all"):
        full = meta.robustness(scores, pairs=pairs, seed=seed)
        short = meta.robustness(scores, pairs=pairs, seed=seed, detail=False)
        assert short.detail is None
        for column in ("pairs", "undefined"):
            assert short.summary.column(column).equals(full.summary.column(column))
        for column in ("mean", "std"):
            np.testing.assert_allclose(short.summary.column(column), full.summary.column(column), atol=1e-12)


def test_every_pair_drawn_in_the_order_of_triu_indices():
    """Drawn pairs are positions in np.triu_indices, decoded without building it."""
    for n in (2, 3, 10, 57):
        first, second = np.triu_indices(n, 1)
        k = np.arange(first.size)
        got = robustness_module._pair_of_index(k, n)
        assert np.array_equal(got[0], first) and np.array_equal(got[1], second)


def test_progress_bar_over_blocks(monkeypatch):
    class Terminal(io.StringIO):
        def isatty(self):
            return True

    terminal = Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    monkeypatch.setattr(robustness_module, "Progress", functools.partial(Progress, delay=0.0))
    monkeypatch.setattr(robustness_module, "_BLOCK_CELLS", 10)
    meta.robustness(random_scores(0, topics=20), pairs="all", progress=True)
    assert "robustness [" in terminal.getvalue() and "100%" in terminal.getvalue()
    quiet = Terminal()
    monkeypatch.setattr("sys.stderr", quiet)
    meta.robustness(random_scores(0, topics=20), pairs="all")
    assert quiet.getvalue() == ""


@pytest.mark.parametrize("rows", [1, 3, 7])
def test_the_measure_column_repeats_one_array(monkeypatch, rows):
    """The per-pair table's measure column is one array of a few copies used as every chunk
    (here 1, 3 or 7 copies a chunk): the table reads as the pairs' measure, row by row."""
    monkeypatch.setattr(robustness_module, "_REPEAT_ROWS", rows)
    values = awkward_values(1, systems=4, topics=6)
    detail = meta.robustness(values_scores(values), pairs="all").detail
    measures = list(values_scores(values).measures)
    assert detail.column("measure").to_pylist() == [m for m in measures for _ in range(15)]
    for text, n in (("f1", 0), ("é", 8), ("", 5)):
        chunks = robustness_module._repeated(text, n)
        assert all(len(c) <= rows for c in chunks)
        assert [v for c in chunks for v in c.to_pylist()] == [text] * n
