"""Strictness (seed 004 §6.3) against a Python loop written from the paper's formulas."""

import importlib
import itertools

import numpy as np
import pyarrow as pa
import pytest

import fastmetrics as fm
from fastmetrics import meta
from fastmetrics.tensor import Scores

from ._data import awkward_values, oriented, random_scores, take_path, values_scores


def _rank(values, o):
    """rank(m, o) = P_{o'}(m(o) >= m(o'))."""
    return sum(values[o] >= v for v in values) / len(values)


def _reference(scores, a, b, th):
    va, vb = oriented(scores, a).reshape(-1), oriented(scores, b).reshape(-1)
    keep = ~(np.isnan(va) | np.isnan(vb))
    va, vb = va[keep], vb[keep]
    top = [o for o in range(len(va)) if _rank(va, o) >= th]
    return min(_rank(vb, o) for o in top)


@pytest.mark.parametrize("seed", [0, 3])
def test_pairwise_and_overall_against_a_loop(seed):
    scores = random_scores(seed, systems=5, topics=8)
    levels = [0.5, 0.75, 0.9, 0.99, 1.0]
    result = meta.strictness(scores, thresholds=levels)
    detail = {(r["measure_a"], r["measure_b"], r["level"]): r["value"] for r in result.detail.to_pylist()}
    names = list(scores.measures)
    for a in names:
        for th in levels:
            per = [_reference(scores, a, b, th) for b in names if b != a]
            for b, value in zip([n for n in names if n != a], per):
                assert detail[(a, b, th)] == pytest.approx(value)
            overall = [r["value"] for r in result.summary.to_pylist() if r["measure"] == a and r["level"] == th]
            assert overall == [pytest.approx(min(per))]


def test_default_levels_and_self_consistency():
    scores = random_scores(1)
    result = meta.strictness(scores)
    levels = sorted({r["level"] for r in result.summary.to_pylist()})
    assert levels[0] == 0.5 and levels[-1] == 0.99 and len(levels) == 50
    # against an identical copy (F_beta with beta = 1) the top outputs keep their ranks: the
    # strictness at th is the lowest rank at or above th
    dup = random_scores(1, measures=("f1", "fbeta"))
    values = dup["f1"].reshape(-1)
    values = values[~np.isnan(values)]
    ranks = np.array([_rank(values, o) for o in range(values.size)])
    for row in meta.strictness(dup, thresholds=[0.5, 0.9]).summary.to_pylist():
        assert row["value"] == pytest.approx(ranks[ranks >= row["level"]].min())


@pytest.mark.parametrize("seed", range(8))
def test_undefined_ties_and_constant_columns_against_the_loop(seed):
    """Coarse values (many ties), undefined cells, a constant topic and a system NaN or constant
    everywhere; thresholds unsorted, below 0.5 and at 1: each pair's value is the formula's."""
    values = awkward_values(seed, systems=3 + seed % 4, topics=4 + seed, measures=3)
    scores = values_scores(values)
    levels = [0.9, 0.2, 1.0, 0.5, 0.66]
    result = meta.strictness(scores, thresholds=levels)
    names = list(scores.measures)
    flat = values.reshape(values.shape[0], -1)
    got = {(r["measure_a"], r["measure_b"], r["level"]): r["value"] for r in result.detail.to_pylist()}
    for a, b in itertools.permutations(range(len(names)), 2):
        keep = ~(np.isnan(flat[a]) | np.isnan(flat[b]))
        va, vb = flat[a][keep], flat[b][keep]
        for th in levels:
            top = [o for o in range(va.size) if _rank(va, o) >= th]
            expected = min(_rank(vb, o) for o in top) if top else np.nan
            value = got[(names[a], names[b], th)]
            assert value == expected or (np.isnan(value) and np.isnan(expected))


def _loop_detail(flat, names, levels):
    """Every ordered pair's strictness at each level, from the formula (ranks among the outputs
    both measures define)."""
    expected = {}
    for a, b in itertools.permutations(range(len(names)), 2):
        keep = ~(np.isnan(flat[a]) | np.isnan(flat[b]))
        va, vb = flat[a][keep], flat[b][keep]
        for th in levels:
            top = [o for o in range(va.size) if _rank(va, o) >= th]
            expected[(names[a], names[b], th)] = min(_rank(vb, o) for o in top) if top else np.nan
    return expected


@pytest.mark.parametrize("seed", range(6))
def test_measures_undefined_on_the_same_outputs_against_the_loop(seed):
    """The shared-outputs path: coarse values (ties everywhere), no undefined cell in two measures
    and the same undefined cells in the other two; levels unsorted and repeated."""
    rng = np.random.default_rng(seed)
    values = rng.integers(0, 3 + seed, size=(4, 4 + seed % 3, 5 + seed)).astype(np.float64) / 2
    holes = rng.random(values.shape[1:]) < 0.2
    values[2][holes] = np.nan
    values[3][holes] = np.nan
    scores = values_scores(values)
    levels = [0.75, 0.5, 1.0, 0.1, 0.5, 0.33]
    result = meta.strictness(scores, thresholds=levels)
    got = {(r["measure_a"], r["measure_b"], r["level"]): r["value"] for r in result.detail.to_pylist()}
    for key, expected in _loop_detail(values.reshape(4, -1), list(scores.measures), levels).items():
        assert got[key] == expected or (np.isnan(got[key]) and np.isnan(expected)), key


@pytest.mark.parametrize("path, block_bytes", [("kernels", 1 << 28), ("kernels", 1), ("numpy", 1 << 28)])
def test_a_threshold_sweep_is_judged_at_each_threshold_in_one_call(path, block_bytes, monkeypatch):
    """Scores of a threshold grid: one block of rows per threshold, each the formula's on the
    (system, topic) outputs at that threshold; the kernels take the thresholds all at once or one
    a block."""
    take_path(monkeypatch, path)
    monkeypatch.setattr(importlib.import_module("fastmetrics.meta.strictness"), "_SLICE_BYTES", block_bytes)
    rng = np.random.default_rng(7)
    n = 5 * 6 * 12
    runs = pa.table(
        {
            "system": np.repeat([f"s{i}" for i in range(5)], 6 * 12),
            "topic": np.tile(np.repeat([f"t{j}" for j in range(6)], 12), 5),
            "item": np.tile(np.arange(12), 30),
            "gold": rng.random(n) < 0.4,
            "score": rng.random(n),
        }
    )
    grid = [0.2, 0.5, 0.8]
    names = ["f1", "accuracy", "mcc", "precision"]
    scores = fm.count(runs, thresholds=grid).evaluate(names)
    levels = [0.5, 0.8, 1.0]
    result = meta.strictness(scores, thresholds=levels)
    assert result.summary.column_names == ["threshold", "measure", "level", "value"]
    rows = result.detail.to_pylist()
    assert len(rows) == len(grid) * 12 * len(levels)
    for t in grid:
        flat = np.stack([scores.sel(threshold=t)[m].reshape(-1) for m in names])
        expected = _loop_detail(flat, names, levels)
        got = {(r["measure_a"], r["measure_b"], r["level"]): r["value"] for r in rows if r["threshold"] == t}
        assert got.keys() == expected.keys()
        for key, value in expected.items():
            assert got[key] == value or (np.isnan(got[key]) and np.isnan(value)), (t, key)


def test_an_exact_sweep_has_no_shared_threshold_and_is_refused():
    runs = pa.table(
        {
            "system": ["a"] * 4 + ["b"] * 4,
            "item": list(range(4)) * 2,
            "gold": [True, False, True, False] * 2,
            "score": [0.9, 0.1, 0.4, 0.6, 0.3, 0.2, 0.8, 0.7],
        }
    )
    scores = fm.count(runs, thresholds="exact").evaluate(["f1", "accuracy"])
    with pytest.raises(fm.ParameterError, match="no labels of its own"):
        meta.strictness(scores)


def _sorted_reference(flat, levels):
    """Every ordered pair's strictness from ranks taken by sorting (numpy), on the outputs both
    measures define: rank(m, o) = #{values of m at or below m(o)} / n."""
    out = {}
    for a, b in itertools.permutations(range(flat.shape[0]), 2):
        keep = ~(np.isnan(flat[a]) | np.isnan(flat[b]))
        va, vb = flat[a][keep], flat[b][keep]
        rank_a = np.searchsorted(np.sort(va), va, side="right") / va.size
        rank_b = np.searchsorted(np.sort(vb), vb, side="right") / vb.size
        for th in levels:
            top = rank_a >= th
            out[a, b, th] = rank_b[top].min() if top.any() else np.nan
    return out


@pytest.mark.parametrize("path", ["kernels", "numpy"])
@pytest.mark.parametrize("seed", range(4))
def test_many_outputs_against_sorted_ranks(seed, path, monkeypatch):
    """Thousands of outputs (thousands of buckets a measure): fine values (buckets of several
    values), coarse ones (thousands of equal values at a cut), infinities (one bucket for the
    row), a constant measure and undefined cells shared by some measures but not all; by the
    kernels and by numpy."""
    take_path(monkeypatch, path)
    rng = np.random.default_rng(seed)
    n = 3000 + 1000 * seed
    fine = rng.normal(size=n) ** 3
    coarse = rng.integers(0, 7, n) / 6.0
    infinite = np.where(rng.random(n) < 0.01, np.inf, rng.random(n))
    infinite[rng.random(n) < 0.01] = -np.inf
    values = np.stack([fine, coarse, infinite, np.full(n, 0.25), fine.round(1)]).reshape(5, 1, n)
    values[3:, 0, rng.random(n) < 0.1 * seed] = np.nan
    values[0, 0, rng.random(n) < 0.05] = np.nan
    scores = Scores(
        values,
        ("f1", "accuracy", "mcc", "recall", "precision"),
        ("system", "topic"),
        {"system": ["s"], "topic": np.arange(n)},
    )
    levels = [0.5, 0.51, 0.75, 0.9, 0.99, 1.0, 0.1]
    got = meta.strictness(scores, thresholds=levels).detail.to_pylist()
    names = list(scores.measures)
    expected = _sorted_reference(values.reshape(5, -1), levels)
    for row in got:
        want = expected[names.index(row["measure_a"]), names.index(row["measure_b"]), row["level"]]
        assert row["value"] == want or (np.isnan(row["value"]) and np.isnan(want)), row


def test_level_counts_are_the_smallest_counts_reaching_each_level():
    """The cuts' counts, against the definition: the smallest count c with c / n >= th in floats
    (levels such as 0.29 * 100, whose product rounds below the count, included)."""
    from fastmetrics.meta.strictness import DEFAULT_THRESHOLDS, level_counts

    levels = np.concatenate([DEFAULT_THRESHOLDS, [0.01, 0.1, 0.29, 0.57, 1 / 3, 0.7, 1.0]])
    for n in [1, 2, 3, 7, 10, 100, 101, 1000, 12345]:
        expected = [min(c for c in range(1, n + 1) if c / n >= th) for th in levels]
        assert level_counts(levels, n).tolist() == expected
