"""Scores that break counting kernels: subnormals, ranges spanning +-1e308 and the largest double,
a constant score, one single row, float32 scores against float64 thresholds, non-finite values.

Every case checks, for every (system, topic, threshold) cell: every item is counted, the thresholds
are finite, strictly increasing and unique, and the counts equal ``score >= threshold`` computed
here with numpy against the thresholds the tensor reports (a float32 score compared as its float64
value). A last test runs every counting kernel with numba's bounds checks in a fresh process."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import fastmetrics as fm
from fastmetrics._errors import InputError
from tests.conftest import boundscheck_env

MAX = np.finfo(np.float64).max  # 1.7976931348623157e308
ADVERSARIAL = {
    "subnormal": [0.0, 5e-324, 1e-323, 5e-324, 0.0, 1e-323, 1e-323],
    "negative-subnormal": [-5e-324, 0.0, 5e-324, -1e-323],
    "plus-minus-1e308": [-1e308, 0.0, 1e308, 1e308, -1e308, 0.0],
    "plus-minus-max": [
        -1.7976931348623157e308,
        1.7976931348623157e308,
        1.7976931348623157e308,
        -1.7976931348623157e308,
    ],
    "max-and-zero": [-MAX, 0.0, MAX, 1.0, -1.0],
    "near-max": [MAX, np.nextafter(MAX, 0), MAX, np.nextafter(MAX, 0)],
    "all-identical": [0.42] * 50,
}
KS = (3, 5, 11, 101)
SYSTEMS = ("s0", "s1")


def _table(scores, dtype=np.float64):
    """Two systems and one topic; every system scores every item with ``scores`` (system s1 in
    reverse order), gold alternating per item."""
    scores = np.asarray(scores, dtype)
    n = scores.size
    per_system = [scores, scores[::-1].copy()]
    score = np.concatenate(per_system)
    gold = np.tile(np.arange(n) % 2 == 0, 2)
    table = pa.table(
        {
            "system": np.repeat(np.array(SYSTEMS, object), n),
            "topic": ["T"] * (2 * n),
            "item": np.tile(np.arange(n), 2),
            "gold": gold,
            "score": pa.array(score),
        }
    )
    return table, per_system, np.arange(n) % 2 == 0


def _matrix(gold, positive):
    return np.array(
        [[np.sum(~gold & ~positive), np.sum(~gold & positive)], [np.sum(gold & ~positive), np.sum(gold & positive)]]
    )


def _check_grid(tensor, per_system, gold):
    assert tensor.axes == ("system", "topic", "threshold"), tensor.axes
    assert list(tensor.coords["system"]) == list(SYSTEMS)
    grid = np.asarray(tensor.coords["threshold"])
    assert grid.dtype == np.float64, grid.dtype
    assert grid.size >= 1
    assert np.all(np.isfinite(grid)), grid
    assert np.all(np.diff(grid) > 0), f"thresholds not strictly increasing / unique: {grid!r}"
    assert np.unique(grid).size == grid.size
    n = gold.size
    totals = tensor.counts.sum(axis=(-1, -2))
    assert np.all(totals == n), f"an item was lost at some (group, threshold): {totals!r}"
    for s, scores in enumerate(per_system):
        values = scores.astype(np.float64)  # a float32 score compared as its float64 value
        for j, threshold in enumerate(grid):
            np.testing.assert_array_equal(
                tensor.counts[s, 0, j],
                _matrix(gold, values >= threshold),
                err_msg=f"system {SYSTEMS[s]}, threshold {threshold!r}",
            )
    return grid


# -- grids over adversarial ranges ------------------------------------------------------------------
@pytest.mark.parametrize("k", KS)
@pytest.mark.parametrize("case", sorted(ADVERSARIAL))
def test_grid_counts_every_item_at_every_threshold(case, k):
    table, per_system, gold = _table(ADVERSARIAL[case])
    grid = _check_grid(fm.count(table, thresholds=k), per_system, gold)
    assert grid.size <= k
    if case in ("subnormal", "negative-subnormal", "near-max", "all-identical"):
        # the range holds no double besides the observed ones: every threshold is an observed score
        assert set(grid.tolist()) <= set(np.unique(per_system[0]).tolist()), grid


@pytest.mark.parametrize("k", KS)
@pytest.mark.parametrize("case", sorted(ADVERSARIAL))
def test_grid_ends_are_the_observed_extremes(case, k):
    """README: the two ends of a ``thresholds=k`` grid are the exact observed extremes."""
    table, per_system, _ = _table(ADVERSARIAL[case])
    grid = fm.count(table, thresholds=k).coords["threshold"]
    scores = np.concatenate(per_system)
    assert grid[0] == scores.min() and grid[-1] == scores.max(), grid


@pytest.mark.parametrize("k", KS)
def test_a_constant_score_gives_exactly_one_threshold(k):
    table, per_system, gold = _table([0.42] * 50)
    grid = _check_grid(fm.count(table, thresholds=k), per_system, gold)
    assert grid.tolist() == [0.42]


@pytest.mark.parametrize("k", KS)
def test_subnormal_scores_give_one_threshold_per_distinct_value(k):
    table, per_system, gold = _table(ADVERSARIAL["subnormal"])
    grid = _check_grid(fm.count(table, thresholds=k), per_system, gold)
    assert grid.tolist() == [0.0, 5e-324, 1e-323]  # k >= 3 thresholds over three representable values


# -- one single row --------------------------------------------------------------------------------
@pytest.mark.parametrize("thresholds", [None, "exact", *KS, [2.0, 3.0, 4.0]])
def test_one_single_row(thresholds):
    table = pa.table({"system": ["s"], "topic": ["T"], "item": [0], "gold": [True], "score": [3.0], "pred": [True]})
    tensor = fm.count(table, thresholds=thresholds)
    assert tensor.counts.sum(axis=(-1, -2)).min() == 1
    if thresholds is None:
        assert tensor.counts.reshape(2, 2).tolist() == [[0, 0], [0, 1]]
    elif thresholds == "exact":
        assert tensor.coords["threshold"].tolist() == [3.0]
        assert tensor.counts.reshape(2, 2).tolist() == [[0, 0], [0, 1]]
    elif isinstance(thresholds, int):
        assert tensor.coords["threshold"].tolist() == [3.0]
        assert tensor.counts.reshape(2, 2).tolist() == [[0, 0], [0, 1]]
    else:
        assert tensor.coords["threshold"].tolist() == [2.0, 3.0, 4.0]
        assert tensor.counts.reshape(3, 2, 2).tolist() == [[[0, 0], [0, 1]], [[0, 0], [0, 1]], [[0, 0], [1, 0]]]


# -- float32 scores against float64 thresholds -------------------------------------------------------
FLOAT32_SCORES = [0.1, 0.7, 0.3, 0.2, 0.7, 0.1, 0.9, 0.0, 1.0, 0.55]


def test_float32_scores_against_a_float64_grid():
    table, per_system, gold = _table(FLOAT32_SCORES, np.float32)
    assert table.schema.field("score").type == pa.float32()
    tensor = fm.count(table, thresholds=[0.1, 0.7])
    _check_grid(tensor, per_system, gold)
    # float32(0.1) = 0.10000000149... >= 0.1 (positive); float32(0.7) = 0.69999998807... < 0.7 (negative)
    assert np.float64(np.float32(0.1)) >= 0.1 and not np.float64(np.float32(0.7)) >= 0.7
    at_01 = (np.float64(np.float32(FLOAT32_SCORES)) >= 0.1).sum()
    at_07 = (np.float64(np.float32(FLOAT32_SCORES)) >= 0.7).sum()
    assert tensor.counts[0, 0, 0, :, 1].sum() == at_01 == 9
    assert tensor.counts[0, 0, 1, :, 1].sum() == at_07 == 2


@pytest.mark.parametrize("k", KS)
def test_float32_scores_with_an_int_grid(k):
    table, per_system, gold = _table(FLOAT32_SCORES, np.float32)
    _check_grid(fm.count(table, thresholds=k), per_system, gold)


def test_float32_scores_exact_sweep_uses_their_float64_values():
    table, per_system, gold = _table(FLOAT32_SCORES, np.float32)
    _check_exact(fm.count(table, thresholds="exact"), per_system, gold)


# -- 11 thresholds over [0, 1] are the written decimals ----------------------------------------------
def test_eleven_thresholds_over_the_unit_interval_are_exact_decimals():
    scores = [0.0, 0.3, 1.0, 0.3, 0.7, 0.05, 0.29999999999999993, 0.95]
    table, per_system, gold = _table(scores)
    tensor = fm.count(table, thresholds=11)
    grid = _check_grid(tensor, per_system, gold)
    assert grid.tolist() == [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]
    assert tensor.coords["threshold"][3] == 0.3  # not 0.30000000000000004
    # the two scores of exactly 0.3 are positive at threshold 0.3 (the one just below is not)
    positive_at_03 = sum(s >= 0.3 for s in scores)
    assert tensor.counts[0, 0, 3, :, 1].sum() == positive_at_03 == 5


def test_a_hundred_and_one_thresholds_over_the_unit_interval_are_exact_decimals():
    scores = [0.0, 0.07, 0.29, 0.3, 0.57, 1.0]
    table, per_system, gold = _table(scores)
    grid = _check_grid(fm.count(table, thresholds=101), per_system, gold)
    assert grid.tolist() == [float(f"0.{k:02d}") if k < 100 else 1.0 for k in range(101)]


# -- exact sweeps against scikit-learn and a numpy loop ----------------------------------------------
def _check_exact(tensor, per_system, gold):
    assert tensor.axes == ("cell",), tensor.axes
    system = np.asarray(tensor.coords["system"])
    threshold = np.asarray(tensor.coords["threshold"], np.float64)
    assert np.all(np.isfinite(threshold))
    for s, scores in enumerate(per_system):
        values = scores.astype(np.float64)
        mine = system == SYSTEMS[s]
        thresholds = threshold[mine]
        order = np.argsort(thresholds)
        assert np.array_equal(thresholds[order], np.unique(values)), (thresholds, np.unique(values))
        counts = tensor.counts[mine][order]
        assert np.all(counts.sum(axis=(-1, -2)) == values.size)
        for thr, matrix in zip(thresholds[order], counts):
            np.testing.assert_array_equal(matrix, _matrix(gold, values >= thr), err_msg=f"threshold {thr!r}")


@pytest.mark.parametrize("case", sorted(ADVERSARIAL))
def test_exact_sweep_equals_a_numpy_loop(case):
    table, per_system, gold = _table(ADVERSARIAL[case])
    _check_exact(fm.count(table, thresholds="exact"), per_system, gold)


@pytest.mark.parametrize("case", sorted(ADVERSARIAL))
def test_exact_sweep_equals_scikit_learn(case):
    from sklearn.metrics import confusion_matrix_at_thresholds

    table, per_system, gold = _table(ADVERSARIAL[case])
    tensor = fm.count(table, thresholds="exact")
    for s, scores in enumerate(per_system):
        with np.errstate(over="ignore", invalid="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            tns, fps, fns, tps, thresholds = confusion_matrix_at_thresholds(gold, scores)
        mine = np.asarray(tensor.coords["system"]) == SYSTEMS[s]
        order = np.argsort(-np.asarray(tensor.coords["threshold"])[mine], kind="stable")  # sklearn: decreasing
        np.testing.assert_array_equal(np.asarray(tensor.coords["threshold"])[mine][order], thresholds)
        counts = tensor.counts[mine][order]
        np.testing.assert_array_equal(counts[:, 0, 0], tns)
        np.testing.assert_array_equal(counts[:, 0, 1], fps)
        np.testing.assert_array_equal(counts[:, 1, 0], fns)
        np.testing.assert_array_equal(counts[:, 1, 1], tps)


# -- non-finite scores -------------------------------------------------------------------------------
NON_FINITE = r"(?s)(?=.*'score')(?=.*\brow 2\b)"


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf], ids=["nan", "inf", "-inf"])
@pytest.mark.parametrize("thresholds", [None, "exact", 5, [0.5]], ids=["default", "exact", "k", "array"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_non_finite_scores_are_refused_naming_column_and_row(bad, thresholds, dtype):
    table = pa.table(
        {
            "system": ["a"] * 4,
            "topic": ["T"] * 4,
            "item": [0, 1, 2, 3],
            "gold": [True, False] * 2,
            "score": pa.array(np.array([0.1, 0.2, bad, 0.4], dtype)),
        }
    )
    with pytest.raises(InputError, match=NON_FINITE):
        fm.count(table, thresholds=thresholds)


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf], ids=["nan", "inf", "-inf"])
@pytest.mark.parametrize("thresholds", ["exact", 5, [0.5]], ids=["exact", "k", "array"])
def test_non_finite_score_in_a_later_row_group_is_refused(tmp_path, bad, thresholds):
    n = 40
    score = np.linspace(0, 1, n)
    score[2] = bad  # row 2 of the second system, in a later row group than the first rows
    table = pa.table(
        {
            "system": ["a"] * n + ["b"] * n,
            "topic": ["T"] * (2 * n),
            "item": list(range(n)) * 2,
            "gold": [True, False] * n,
            "score": np.concatenate([np.linspace(0, 1, n), score]),
        }
    )
    path = tmp_path / "runs.parquet"
    pq.write_table(table, path, row_group_size=16)
    # rows are numbered in their file (row 42 sits in the third row group, at its row 10)
    with pytest.raises(InputError, match=r"(?s)(?=.*'score')(?=.*\brow 42\b)"):
        fm.count(str(path), thresholds=thresholds)
    with pytest.raises(InputError, match=r"(?s)(?=.*'score')(?=.*\brow 42\b)"):
        fm.count(table, thresholds=thresholds)


# -- every kernel with numba's bounds checks ---------------------------------------------------------
BOUNDSCHECK_SCRIPT = textwrap.dedent("""
    import sys
    import numpy as np, pyarrow as pa
    import fastmetrics as fm
    from fastmetrics._errors import InputError

    FULL = sys.argv[1] == "full"
    MAX = np.finfo(np.float64).max
    cases = [[0.0, 5e-324, 1e-323], [-1e308, 0.0, 1e308], [-MAX, MAX], [-MAX, 0.0, MAX], [0.42] * 50, [3.0],
             [MAX, np.nextafter(MAX, 0)], [0.1, 0.7, 0.3, 0.0, 1.0]]
    if not FULL:
        cases = cases[:1]

    def runs(scores, dtype):
        s = np.asarray(scores, dtype)
        n = s.size
        return pa.table({"system": ["a"] * n + ["b"] * n, "topic": [1] * (2 * n), "item": list(range(n)) * 2,
                         "gold": [i % 2 == 0 for i in range(n)] * 2, "score": np.concatenate([s, s[::-1]]),
                         "pred": [i % 3 == 0 for i in range(2 * n)], "weight": np.linspace(0.5, 2.0, 2 * n),
                         "label": [i % 3 for i in range(2 * n)], "guess": [(i * 2) % 3 for i in range(2 * n)]})

    options = [{"thresholds": 5}]
    if FULL:
        options = [{}, {"thresholds": 3}, {"thresholds": 5}, {"thresholds": 11}, {"thresholds": 101},
                   {"thresholds": "exact"}, {"thresholds": [0.0, 1.0]}, {"thresholds": [-MAX, -1.0, 1e-300, 0.5, MAX]},
                   {"thresholds": [0.0, 5e-324, 2.0]}, {"thresholds": [0.1, 0.7]},
                   {"weight": "weight"}, {"thresholds": 5, "weight": "weight"},
                   {"thresholds": "exact", "weight": "weight"}, {"thresholds": [0.5], "weight": "weight"}]
    for scores in cases:
        for dtype in ((np.float64, np.float32) if FULL else (np.float64,)):
            if not np.all(np.isfinite(np.asarray(scores, dtype))):
                continue  # MAX overflows float32
            table = runs(scores, dtype)
            for option in options:
                tensor = fm.count(table, **option)
                totals = tensor.counts.sum(axis=(-1, -2))
                assert np.all(totals > 0), (scores, option)
                if "weight" not in option and option.get("thresholds") != "exact":
                    assert np.all(totals == len(scores)), (scores, option, totals)
    if FULL:
        labels = runs([0.1, 0.2, 0.3, 0.4, 0.5, 0.6], np.float64)
        for option in ({}, {"weight": "weight"}, {"classes": [0, 1, 2, 3]}):
            tensor = fm.count(labels, pred="guess", gold_column="label", **option)
            assert tensor.counts.shape[-1] == (4 if "classes" in option else 3)
        one = pa.table({"system": ["a"], "item": [0], "gold": [2], "pred": [0]})
        fm.count(one, task="multiclass")
        gold = pa.table({"topic": [1] * 6, "item": list(range(6)), "gold": [True, False] * 3})
        run = pa.table({"system": ["a"] * 4 + ["b"] * 6, "topic": [1] * 10, "item": [0, 1, 2, 3] + list(range(6)),
                        "pred": [True] * 10, "score": np.linspace(0, 1, 10)})
        for missing in ("negative", "drop"):
            for option in ({}, {"thresholds": 3}, {"thresholds": [0.5]}, {"thresholds": "exact"}):
                fm.count(run, gold=gold, missing=missing, **option)
        from fastmetrics.count.resample import split_half_counts
        split_half_counts(labels, replicates=3, seed=0)
        split_half_counts(labels, replicates=3, seed=0, pred="guess", gold_column="label")
        split_half_counts(run.drop_columns(["score"]), gold, replicates=3, seed=0, missing="drop")
    for bad in (np.nan, np.inf):
        try:
            fm.count(pa.table({"system": ["a"] * 3, "gold": [True, False, True], "score": [0.1, bad, 0.3]}),
                     thresholds=5)
        except InputError:
            pass
        else:
            raise AssertionError("a non-finite score was counted")
    print("ok")
""")


def _run_with_boundscheck(tmp_path, scope):
    env = boundscheck_env()
    proc = subprocess.run(
        [sys.executable, "-c", BOUNDSCHECK_SCRIPT, scope],
        capture_output=True,
        text=True,
        env=env,
        timeout=900,
        cwd=tmp_path,
    )
    assert "IndexError" not in proc.stderr, proc.stderr[-4000:]
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert proc.stdout.strip().endswith("ok"), proc.stdout[-2000:]


def test_grid_kernel_with_bounds_checks(tmp_path):
    """The small default variant: thresholds=5 on the subnormal input, kernels compiled with the checks."""
    _run_with_boundscheck(tmp_path, "small")


@pytest.mark.slow
def test_every_counting_kernel_with_bounds_checks(tmp_path):
    """NUMBA_BOUNDSCHECK=1 turns an index outside an array into an IndexError; the checks' own cache
    folder (:func:`tests.conftest.boundscheck_env`) holds only kernels compiled with them."""
    _run_with_boundscheck(tmp_path, "full")
