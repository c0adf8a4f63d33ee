"""A small batch is counted by numpy (fastmetrics.count._small) and a large one by the kernels:
on the same encoded columns both give the same counts, note the same first bad row of each kind,
and find the same duplicated item -- checked here on random batches with bad rows of every kind,
weights (bad ones too), both label forms and items repeated within a batch and across batches."""

import numpy as np
import pytest

from fastmetrics.count import _codes, _hard, _marks, _small, _sweep
from fastmetrics.count.grid import bucket_guide

N_GROUPS_A, N_GROUPS_B, N_ITEMS = 3, 4, 25


def _column(values, size):
    """An encoded column as the kernels take it: (int64 codes, 0, size)."""
    return (np.asarray(values, np.int64), 0, size)


def _batch(seed, n=400, bad=0.02, weighted=False):
    rng = np.random.default_rng(seed)

    def codes(size):
        values = rng.integers(0, size, n)
        values[rng.random(n) < bad] = rng.choice([-1, size, size + 3])  # outside the plan
        return values

    weight = None
    if weighted:
        weight = rng.random(n) * 3
        weight[rng.random(n) < bad] = rng.choice([-1.0, np.inf, np.nan])
    score = np.round(rng.normal(size=n), 1)
    score[rng.random(n) < bad] = rng.choice([np.nan, np.inf, -np.inf])
    return {
        "a": _column(codes(N_GROUPS_A), N_GROUPS_A),
        "b": _column(codes(N_GROUPS_B), N_GROUPS_B),
        "gold": _column(codes(2), 2),
        "pred": _column(codes(2), 2),
        "item": _column(codes(N_ITEMS), N_ITEMS),
        "score": score,
        "weight": weight,
        "n": n,
    }


def _errors():
    return np.full(_codes.N_KINDS, -1, np.int64)


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("bad", [0.0, 0.01, 0.2])
def test_hard_and_sweep_counts_and_errors_equal_the_kernels(seed, weighted, bad):
    d = _batch(seed, bad=bad, weighted=weighted)
    n, a, b, gold, weight = d["n"], d["a"], d["b"], d["gold"], d["weight"]
    dtype = np.float64 if weighted else np.int64
    stride, groups = N_GROUPS_B, N_GROUPS_A * N_GROUPS_B
    no_marks = _hard.chunk_marks(_codes.NO_MARKS, 0)
    p_kernel, p_numpy = np.ones((groups, 2, 2), dtype), np.ones((groups, 2, 2), dtype)
    e_kernel, e_numpy = _errors(), _errors()
    _hard.hard_chunk(0, n, a, b, stride, gold, d["pred"], weight, *no_marks, p_kernel, e_kernel)
    _small.hard(n, a, b, stride, gold, d["pred"], weight, p_numpy, e_numpy)
    np.testing.assert_array_equal(p_numpy, p_kernel)
    np.testing.assert_array_equal(e_numpy, e_kernel)
    grid = np.array([-1.0, -0.2, 0.0, 0.5, 1.5])
    s_kernel, s_numpy = np.zeros((groups, 2, grid.size + 1), dtype), np.zeros((groups, 2, grid.size + 1), dtype)
    e_kernel, e_numpy = _errors(), _errors()
    args = (a, b, stride, gold, d["score"], weight)
    _sweep.sweep_chunk(0, n, *args, *no_marks, (grid, *bucket_guide(grid)), s_kernel, e_kernel)
    _small.sweep(n, *args, grid, s_numpy, e_numpy)
    np.testing.assert_array_equal(s_numpy, s_kernel)
    np.testing.assert_array_equal(e_numpy, e_kernel)


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("bad", [0.0, 0.003, 0.05])
def test_rows_equal_the_kernel(seed, bad):
    d = _batch(seed, bad=bad)
    n = d["n"]
    out_kernel = (np.empty(n, np.int64), np.empty(n, np.int64), np.empty(n, np.int64))
    out_numpy = (np.empty(n, np.int64), np.empty(n, np.int64), np.empty(n, np.int64))
    e_kernel, e_numpy = _errors(), _errors()
    args = (d["a"], d["b"], N_GROUPS_B, d["gold"], d["pred"])
    _codes.rows_chunk(0, n, *args, *out_kernel, e_kernel)
    _small.rows(n, *args, *out_numpy, e_numpy)
    for got, want in zip(out_numpy, out_kernel):
        np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(e_numpy, e_kernel)


@pytest.mark.parametrize("seed", range(20))
@pytest.mark.parametrize("bad", [0.0, 0.004])
@pytest.mark.parametrize("bitmap", [True, False])
def test_duplicate_items_and_bad_rows_are_found_as_the_kernel_finds_them(seed, bad, bitmap):
    """Two batches: keys marked by the first are duplicates in the second; within a batch the
    second of two equal keys is the duplicate; the scan stops at a bad row."""
    rng = np.random.default_rng(seed)
    key_space = N_GROUPS_A * N_GROUPS_B * N_ITEMS
    seen_kernel = np.zeros((key_space + 63) // 64 * 8 if bitmap else 0, np.uint8)
    seen_numpy = seen_kernel.copy()
    for batch in range(2):
        d = _batch(seed * 7 + batch, n=int(rng.integers(5, 60)), bad=bad)
        n = d["n"]
        args = (n, d["a"], d["b"], N_GROUPS_B, d["gold"], d["item"], N_ITEMS)
        keys_kernel, keys_numpy = np.zeros(n, np.int64), np.zeros(n, np.int64)
        e_kernel, e_numpy = _errors(), _errors()
        dup_kernel = _marks.mark_items(*args, seen_kernel, keys_kernel, e_kernel)
        dup_numpy = _small.mark(*args, seen_numpy, keys_numpy, e_numpy)
        assert dup_numpy == dup_kernel
        np.testing.assert_array_equal(e_numpy, e_kernel)
        if not bitmap:
            stop = n if e_kernel.max() < 0 else int(e_kernel[e_kernel >= 0].min())
            np.testing.assert_array_equal(keys_numpy[:stop], keys_kernel[:stop])
        elif dup_kernel < 0:
            np.testing.assert_array_equal(seen_numpy, seen_kernel)
        if dup_kernel >= 0 or e_kernel.max() >= 0:
            break
