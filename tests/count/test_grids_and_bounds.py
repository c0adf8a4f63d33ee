"""Threshold grids over hostile score ranges, and every counting kernel run with bounds checks.

Each case checks that every item is counted at every threshold and that the counts at each
threshold equal ``score >= threshold`` computed here with numpy, against the thresholds the
tensor reports (which must be exactly the values used)."""

import subprocess
import sys
import textwrap

import numpy as np
import pyarrow as pa
import pytest
from sklearn.metrics import confusion_matrix_at_thresholds

import fastmetrics as fm
from fastmetrics.count.grid import threshold_grid
from tests.conftest import boundscheck_env

MAX = np.finfo(np.float64).max
HOSTILE = {
    "subnormal": [0.0, 5e-324, 1e-323, 5e-324, 0.0],
    "plus-minus-1e308": [-1e308, 0.0, 1e308, 1e308, -1e308],
    "plus-minus-max": [-MAX, MAX, 0.0, MAX, -MAX],
    "all-equal": [0.42] * 50,
    "one-row": [3.0],
    "tiny-range-near-max": [MAX, np.nextafter(MAX, 0), MAX],
}


def _table(scores, dtype=np.float64):
    scores = np.asarray(scores, dtype)
    gold = np.arange(scores.size) % 2 == 0
    return pa.table({"system": ["a"] * scores.size, "gold": gold, "score": scores}), scores, gold


def _check_against_numpy(tensor, scores, gold):
    grid = tensor.coords["threshold"]
    assert np.all(np.isfinite(grid)) and np.all(np.diff(grid) > 0), grid
    counts = tensor.counts[0]
    assert np.all(counts.sum(axis=(-1, -2)) == scores.size), "an item was lost at some threshold"
    for j, threshold in enumerate(grid):
        positive = scores.astype(np.float64) >= threshold
        expected = [
            [np.sum(~gold & ~positive), np.sum(~gold & positive)],
            [np.sum(gold & ~positive), np.sum(gold & positive)],
        ]
        np.testing.assert_array_equal(counts[j], expected, err_msg=f"threshold {threshold!r}")


@pytest.mark.parametrize("k", [1, 3, 5, 11, 101])
@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_grid_over_hostile_ranges(case, k):
    table, scores, gold = _table(HOSTILE[case])
    tensor = fm.count(table, by=("system",), thresholds=k)
    _check_against_numpy(tensor, scores, gold)
    grid = tensor.coords["threshold"]
    assert grid[0] == scores.min() and (k == 1 or grid[-1] == scores.max())
    assert grid.size <= k


def test_a_constant_score_gives_one_threshold():
    table, scores, gold = _table([0.42] * 50)
    tensor = fm.count(table, by=("system",), thresholds=101)
    assert tensor.coords["threshold"].tolist() == [0.42]


def test_subnormal_range_has_as_many_thresholds_as_values():
    assert threshold_grid(101, 0.0, 1e-323).tolist() == [0.0, 5e-324, 1e-323]


def test_eleven_thresholds_over_the_unit_interval_are_the_decimals():
    scores = np.array([0.0, 0.3, 0.3, 0.7, 1.0, 0.1, 0.2])
    table, scores, gold = _table(scores)
    tensor = fm.count(table, by=("system",), thresholds=11)
    grid = tensor.coords["threshold"]
    assert grid.tolist() == [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]
    assert grid[3] == 0.3  # not 0.30000000000000004: a score of exactly 0.3 is positive there
    assert tensor.counts[0, 3, :, 1].sum() == 4
    _check_against_numpy(tensor, scores, gold)


@pytest.mark.parametrize(
    "thresholds",
    [
        [-MAX, -1.0, 1e-300, 0.5, MAX],
        [0.0, 5e-324, 1e-323, 3.0],
        [0.1, 0.1000001, 0.2, 50.0, 51.0],
        list(np.geomspace(1e-9, 1e9, 37)),
    ],
)
def test_uneven_explicit_grids(thresholds):
    rng = np.random.default_rng(3)
    scores = np.concatenate([np.asarray(thresholds), rng.normal(scale=10, size=200), [0.0, 5e-324, -MAX, MAX]])
    table, scores, gold = _table(scores)
    _check_against_numpy(fm.count(table, by=("system",), thresholds=thresholds), scores, gold)


def test_float32_scores_against_float64_thresholds():
    scores = np.array([0.1, 0.2, 0.3, 0.1], np.float32)
    table, scores, gold = _table(scores, np.float32)
    tensor = fm.count(table, by=("system",), thresholds=[0.1, 0.2, 0.30000001])
    # float32(0.1) = 0.100000001490116... >= 0.1: compared as the float64 value of the float32
    _check_against_numpy(tensor, scores, gold)
    assert tensor.counts[0, 0, :, 1].sum() == 4


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_exact_sweep_over_hostile_ranges_equals_scikit_learn(case):
    table, scores, gold = _table(HOSTILE[case])
    tensor = fm.count(table, by=("system",), thresholds="exact")
    tns, fps, fns, tps, thresholds = confusion_matrix_at_thresholds(gold, scores)
    np.testing.assert_array_equal(tensor.coords["threshold"], thresholds)
    np.testing.assert_array_equal(tensor.counts[:, 1, 1], tps)
    np.testing.assert_array_equal(tensor.counts[:, 0, 1], fps)


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("thresholds", [5, "exact", [0.5]])
def test_non_finite_scores_are_refused_before_any_kernel(bad, thresholds):
    table, _, _ = _table([0.1, 0.2, bad, 0.4])
    with pytest.raises(fm.InputError, match=r"Column 'score' has the non-finite value .* at row 2"):
        fm.count(table, thresholds=thresholds)


BOUNDSCHECK = textwrap.dedent("""
    import numpy as np, pyarrow as pa, fastmetrics as fm
    MAX = np.finfo(np.float64).max
    cases = [[0.0, 5e-324, 1e-323], [-1e308, 0.0, 1e308], [-MAX, MAX, 0.0], [0.42] * 20, [3.0]]
    for scores in cases:
        n = len(scores)
        for dtype in (np.float64, np.float32):
            s = np.asarray(scores, dtype)
            if not np.all(np.isfinite(s)):
                continue
            t = pa.table({"system": ["a", "b"] * n, "topic": [1] * (2 * n), "item": list(range(2 * n)),
                          "gold": [True, False] * n, "score": np.repeat(s, 2), "pred": [True] * (2 * n),
                          "weight": np.ones(2 * n)})
            for k in ({}, {"thresholds": 3}, {"thresholds": 101}, {"thresholds": [0.0, 1.0]},
                      {"thresholds": [-MAX, -1.0, 1e-300, 0.5, MAX]}, {"thresholds": [0.0, 5e-324, 2.0]},
                      {"thresholds": "exact"}, {"weight": "weight"}, {"thresholds": 5, "weight": "weight"}):
                tensor = fm.count(t, **k)
                assert tensor.counts.sum() > 0
    labels = pa.table({"system": ["a"] * 6, "item": list(range(6)), "gold": [0, 1, 2, 2, 1, 0],
                       "pred": [2, 1, 0, 2, 2, 0]})
    fm.count(labels)
    gold = pa.table({"item": list(range(6)), "gold": [True, False] * 3})
    for missing in ("negative", "drop"):
        fm.count(pa.table({"system": ["a"] * 4, "item": [0, 1, 2, 3], "pred": [True] * 4}), gold=gold,
                 missing=missing)
    print("ok")
""")


def test_every_counting_kernel_with_bounds_checks(tmp_path):
    """NUMBA_BOUNDSCHECK=1 turns an index outside an array into an IndexError; the checks' own cache
    folder (:func:`tests.conftest.boundscheck_env`) holds only kernels compiled with them."""
    env = boundscheck_env()
    proc = subprocess.run([sys.executable, "-c", BOUNDSCHECK], capture_output=True, text=True, env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.strip() == "ok" and "IndexError" not in proc.stderr
