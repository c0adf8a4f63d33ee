"""The exact sweep's radix sort of scores by their bits, against a numpy loop over thresholds.

The kernel packs the key's high 32 bits with the row's place in its group (float64 keys sharing a
high half are then ordered by the low half) and skips the counting sort when rows arrive grouped;
a small unweighted sweep runs in numpy instead. Every path is checked on ties, signed zeros,
infinities and subnormals, groups in any order and empty groups, with and without weights.
"""

from __future__ import annotations

from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fastmetrics as fm
from fastmetrics.count import assemble, exact_counts
from tests.conftest import examples

SPECIAL = [0.0, -0.0, 1.0, -1.0, 0.5, -np.inf, 1e-45, -1e-45, 3.4e38, -3.4e38, 2.0**-126, 7.0]


def _reference(group, gold, score, n_groups, weight):
    """Counts at every distinct score of every group by a loop over the thresholds."""
    w = np.ones(score.size) if weight is None else weight
    out_group, out_threshold, out_counts = [], [], []
    for g in range(n_groups):
        mine = group == g
        values = score[mine].astype(np.float64)
        for t in np.unique(values)[::-1]:
            predicted = values >= t
            truth = gold[mine] == 1
            matrix = [
                [w[mine][~truth & ~predicted].sum(), w[mine][~truth & predicted].sum()],
                [w[mine][truth & ~predicted].sum(), w[mine][truth & predicted].sum()],
            ]
            out_group.append(g)
            out_threshold.append(t)
            out_counts.append(matrix)
    return np.array(out_group, np.int64), np.array(out_threshold), np.array(out_counts).reshape(-1, 2, 2)


@st.composite
def _rows(draw):
    n = draw(st.integers(1, 300))
    n_groups = draw(st.integers(1, 6))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    group = rng.integers(0, n_groups, n)
    if draw(st.booleans()):
        group = np.sort(group)  # rows already grouped: no counting sort
    near = 1.0 + np.arange(draw(st.sampled_from([3, 40]))) * 2.0**-52  # one high half, many low ones
    pool = np.array(SPECIAL + list(rng.normal(size=8)) + list(rng.integers(-3, 4, 8)) + list(near))
    score = rng.choice(pool, n) if draw(st.booleans()) else rng.normal(size=n) * 10.0 ** rng.integers(-40, 30)
    dtype = draw(st.sampled_from([np.float32, np.float64]))
    with np.errstate(over="ignore"):
        score = score.astype(dtype)
    score[~np.isfinite(score) & (score > 0)] = np.finfo(dtype).max
    weight = rng.uniform(0.1, 3.0, n) if draw(st.booleans()) else None
    return group, rng.integers(0, 2, n).astype(np.int8), score, n_groups, weight


@pytest.mark.parametrize("path", ["kernels", "numpy"])  # numpy: a small unweighted sweep
@settings(max_examples=examples(150), deadline=None)
@given(rows=_rows())
def test_exact_counts_equal_a_loop_over_thresholds(path, rows):
    group, gold, score, n_groups, weight = rows
    with mock.patch.object(assemble, "SMALL_EXACT", 0 if path == "kernels" else 1 << 16):
        out_group, out_threshold, out_counts = exact_counts(group, gold, score, n_groups, weight=weight)
    ref_group, ref_threshold, ref_counts = _reference(group, gold, score, n_groups, weight)
    np.testing.assert_array_equal(out_group, ref_group)
    np.testing.assert_array_equal(out_threshold, ref_threshold)
    if weight is None:
        assert out_counts.dtype == np.int64
        np.testing.assert_array_equal(out_counts, ref_counts)
    else:
        assert out_counts.min() >= 0  # weighted totals never fall below a partial sum
        np.testing.assert_allclose(out_counts, ref_counts, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("small", [0, 1 << 16])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_signed_zeros_are_one_threshold(dtype, small, monkeypatch):
    monkeypatch.setattr(assemble, "SMALL_EXACT", small)
    score = np.array([0.0, -0.0, -0.0, 0.0, 1.0, -1.0], dtype)
    gold = np.array([1, 0, 1, 0, 1, 0], np.int8)
    _, threshold, counts = exact_counts(np.zeros(6, np.int64), gold, score, 1)
    assert threshold.tolist() == [1.0, 0.0, -1.0]
    assert counts[1].tolist() == [[1, 2], [0, 3]]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_nan_scores_are_refused(dtype):
    # NaN has no place in the order of the keys: refused, not swept (it overran the output)
    score = np.full(50, np.nan, dtype)
    score[0] = 0.5
    with pytest.raises(fm.InputError, match="NaN.*row 1"):
        exact_counts(np.zeros(50, np.int64), np.ones(50, np.int8), score, 1)
