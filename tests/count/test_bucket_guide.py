"""The sweep kernel's bucket of a score: one table load, or a walk in a cell a threshold splits.

Every bucket is checked against ``np.searchsorted(grid, score, side="right")`` (the number of
thresholds <= score) on the values where a table could go wrong: each threshold, the floats
just above and below it, the ends of the float range and random scores, over grids that are
even, uneven, clustered, a single value, subnormal, wider than a finite step and longer than an
int16 table holds.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fastmetrics as fm
from fastmetrics.count.grid import bucket_guide, threshold_grid

MAX = np.finfo(np.float64).max
RNG = np.random.default_rng(7)

GRIDS = {
    "even 11 on [0, 1]": threshold_grid(11, 0.0, 1.0),
    "even 101 on a normal range": threshold_grid(101, -4.98, 5.25),
    "uneven": np.sort(RNG.normal(size=200)),
    "clustered": np.unique(np.r_[np.linspace(0, 1, 50), 0.5 + np.arange(30) * 1e-15]),
    "one value": np.array([0.3]),
    "two adjacent floats": np.array([1.0, np.nextafter(1.0, 2.0)]),
    "subnormal": np.array([0.0, 5e-324, 1e-323, 1.5e-323]),
    "wider than a finite step": np.array([-MAX, -1.0, 0.0, 1.0, MAX]),
    "plus-minus 1e308": threshold_grid(7, -1e308, 1e308),
    "longer than int16": np.unique(RNG.random(40_000)),
}


def _probes(grid):
    ends = np.array([-MAX, -1e300, -1.0, 0.0, 1.0, 1e300, MAX])
    with np.errstate(over="ignore"):
        wide = not np.isfinite(grid[-1] - grid[0])
        inside = RNG.normal(size=2000) if wide else RNG.uniform(grid[0], grid[-1], 2000)
        near = [np.nextafter(grid, np.inf), np.nextafter(grid, -np.inf), grid[:1] - 1, grid[-1:] + 1]
    scores = np.concatenate([grid, ends, inside, *near])
    return scores[np.isfinite(scores)]  # a sweep refuses a non-finite score


def _check(grid, scores):
    """The kernel's histogram against searchsorted's buckets, each score in a group of its own
    (or, on a long grid, one of a few thousand groups: the histogram must stay small)."""
    n_groups = min(scores.size, max(1, 4_000_000 // (grid.size + 1)))
    group = np.arange(scores.size, dtype=np.int64) % n_groups
    hist = fm.count.sweep_histogram(group, np.zeros(scores.size, np.int8), scores, grid, n_groups)
    expected = np.zeros((n_groups, grid.size + 1), np.int64)
    np.add.at(expected, (group, np.searchsorted(grid, scores.astype(np.float64), side="right")), 1)
    np.testing.assert_array_equal(hist[:, 0], expected)


@pytest.mark.parametrize("name", sorted(GRIDS))
def test_kernel_bucket_is_the_number_of_thresholds_at_or_below(name):
    grid = GRIDS[name]
    _check(grid, _probes(grid))


def test_the_table_is_a_lookup_for_almost_every_score():
    # the point of the table: on 101 even thresholds, under 2 % of the cells need a walk
    guide, cells, _, _ = bucket_guide(GRIDS["even 101 on a normal range"])
    assert guide.dtype == np.int16 and cells >= 64 * 101
    assert 0 < (guide < 0).mean() < 0.02


def test_float32_scores_are_compared_as_float64():
    grid = threshold_grid(11, 0.0, 1.0)
    _check(grid, np.array([0.3, 0.7, np.nextafter(np.float32(0.3), np.float32(1))], np.float32))


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.floats(-1e6, 1e6, allow_nan=False, allow_subnormal=True), min_size=1, max_size=40),
    st.integers(0, 2**32 - 1),
)
def test_any_grid(values, seed):
    grid = np.unique(np.asarray(values, np.float64))
    rng = np.random.default_rng(seed)
    _check(grid, np.concatenate([_probes(grid), rng.choice(grid, 50) + rng.normal(scale=1e-9, size=50)]))
