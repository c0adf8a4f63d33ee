"""Numba counting kernels. Private: arrays in, arrays out, no validation, no warnings.

Every kernel accumulates into per-chunk partial arrays inside a ``prange`` over row chunks and
sums them at the end, so both cores work without atomics and the result does not depend on the
thread count. Counts are additive, so the caller may call a kernel once per record batch and add.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange


@njit(cache=True, parallel=True)
def _hard_counts_parallel(group, gold, pred, weight, n_groups, m, n_chunks, out):
    """out[g, i, j] += number (or weight) of rows of group g with gold i and prediction j."""
    n = group.size
    partial = np.zeros((n_chunks, n_groups, m, m), out.dtype)
    chunk = (n + n_chunks - 1) // n_chunks
    weighted = weight.size > 0
    for c in prange(n_chunks):
        start = c * chunk
        stop = min(n, start + chunk)
        p = partial[c]
        if weighted:
            for r in range(start, stop):
                p[group[r], gold[r], pred[r]] += weight[r]
        else:
            for r in range(start, stop):
                p[group[r], gold[r], pred[r]] += 1
    for c in range(n_chunks):
        out += partial[c]


@njit(cache=True, inline="always")
def _bucket_even(score, thresholds, lo, inv_step):
    """Number of thresholds <= score, for a sorted grid that is (nearly) evenly spaced.

    The multiply gives the bucket up to rounding; the two short loops settle it exactly against
    the stored threshold values, so ties on a threshold are counted as positive (score >= t).
    """
    k = thresholds.size
    x = (score - lo) * inv_step
    if x < 0.0:
        b = 0
    elif x >= k:
        b = k
    else:
        b = int(x) + 1
    while b < k and thresholds[b] <= score:
        b += 1
    while b > 0 and thresholds[b - 1] > score:
        b -= 1
    return b


@njit(cache=True, inline="always")
def _bucket_search(score, thresholds):
    """Number of thresholds <= score by binary search (any sorted grid)."""
    lo = 0
    hi = thresholds.size
    while lo < hi:
        mid = (lo + hi) >> 1
        if thresholds[mid] <= score:
            lo = mid + 1
        else:
            hi = mid
    return lo


@njit(cache=True, parallel=True)
def _sweep_hist_parallel(group, gold, score, weight, thresholds, even, lo, inv_step, n_groups,
                         n_chunks, out):
    """out[g, gold, b] += rows whose score passes exactly the b lowest thresholds.

    A row with b passed thresholds is predicted positive at thresholds[0..b-1] and negative at
    the rest; cumulative sums of this histogram give the confusion counts at every threshold.
    """
    n = group.size
    k = thresholds.size
    partial = np.zeros((n_chunks, n_groups, 2, k + 1), out.dtype)
    chunk = (n + n_chunks - 1) // n_chunks
    weighted = weight.size > 0
    for c in prange(n_chunks):
        start = c * chunk
        stop = min(n, start + chunk)
        p = partial[c]
        for r in range(start, stop):
            s = np.float64(score[r])
            if even:
                b = _bucket_even(s, thresholds, lo, inv_step)
            else:
                b = _bucket_search(s, thresholds)
            if weighted:
                p[group[r], gold[r], b] += weight[r]
            else:
                p[group[r], gold[r], b] += 1
    for c in range(n_chunks):
        out += partial[c]


@njit(cache=True)
def _exact_sweep_sizes(group_sorted, score_sorted):
    """Number of distinct scores in each run of equal group codes (input sorted by group)."""
    n = group_sorted.size
    n_out = 0
    for r in range(n):
        if r == 0 or group_sorted[r] != group_sorted[r - 1] or score_sorted[r] != score_sorted[r - 1]:
            n_out += 1
    return n_out


@njit(cache=True)
def _exact_sweep_fill(group_sorted, gold_sorted, score_sorted, weight_sorted, totals, n_out, out_group,
                      out_threshold, out_counts):
    """Confusion counts at every distinct score of every group.

    Rows are sorted by group, then by descending score. Walking down a group, the counts after
    the last row with a given score are the counts at threshold = that score (score >= t).
    ``totals[g, c]`` holds the number (or weight) of rows of group g with gold class c.
    """
    n = group_sorted.size
    weighted = weight_sorted.size > 0
    o = -1
    pos = 0.0
    neg = 0.0
    for r in range(n):
        g = group_sorted[r]
        new_group = r == 0 or g != group_sorted[r - 1]
        if new_group:
            pos = 0.0
            neg = 0.0
        w = weight_sorted[r] if weighted else 1.0
        if gold_sorted[r] == 1:
            pos += w
        else:
            neg += w
        last_of_score = r == n - 1 or group_sorted[r + 1] != g or score_sorted[r + 1] != score_sorted[r]
        if last_of_score:
            o += 1
            out_group[o] = g
            out_threshold[o] = score_sorted[r]
            out_counts[o, 1, 1] = pos
            out_counts[o, 0, 1] = neg
            out_counts[o, 1, 0] = totals[g, 1] - pos
            out_counts[o, 0, 0] = totals[g, 0] - neg
