"""Numba counting kernels. Private: arrays in, arrays out, no validation, no warnings.

Every kernel accumulates into per-chunk partial arrays inside a ``prange`` over row chunks and
sums them at the end, so both cores work without atomics and the result does not depend on the
thread count. Counts are additive, so the caller may call a kernel once per record batch and add.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange


@njit(cache=True, parallel=True)
def _hard_counts_parallel(group, gold, pred, weight, n_groups, m, partial, out):
    """out[g, i, j] += number (or weight) of rows of group g with gold i and prediction j."""
    n = group.size
    n_chunks = partial.shape[0]
    partial[:] = 0  # scratch reused across record batches
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
                         partial, out):
    """out[g, gold, b] += rows whose score passes exactly the b lowest thresholds.

    A row with b passed thresholds is predicted positive at thresholds[0..b-1] and negative at
    the rest; cumulative sums of this histogram give the confusion counts at every threshold.
    """
    n = group.size
    n_chunks = partial.shape[0]
    partial[:] = 0  # scratch reused across record batches: no allocation per batch
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


@njit(cache=True, parallel=True)
def _histogram_to_counts(hist, out):
    """out[g, t] = the 2x2 counts at threshold t from hist[g, gold, b] (rows passing exactly b
    thresholds): a row is predicted positive at t iff it passes at least t + 1 thresholds."""
    n_groups = hist.shape[0]
    k = hist.shape[2] - 1
    for g in prange(n_groups):
        for cls in range(2):
            total = 0
            for b in range(k + 1):
                total += hist[g, cls, b]
            above = 0
            for t in range(k - 1, -1, -1):
                above += hist[g, cls, t + 1]
                if cls == 1:
                    out[g, t, 1, 1] = above
                    out[g, t, 1, 0] = total - above
                else:
                    out[g, t, 0, 1] = above
                    out[g, t, 0, 0] = total - above


@njit(cache=True)
def _rows_by_group(group, n_groups):
    """A stable counting sort of the rows by group: (row order, group offsets)."""
    offsets = np.zeros(n_groups + 1, np.int64)
    for r in range(group.size):
        offsets[group[r] + 1] += 1
    for g in range(n_groups):
        offsets[g + 1] += offsets[g]
    cursor = offsets[:-1].copy()
    order = np.empty(group.size, np.int64)
    for r in range(group.size):
        g = group[r]
        order[cursor[g]] = r
        cursor[g] += 1
    return order, offsets


@njit(cache=True, parallel=True)
def _sort_groups_by_score(order, offsets, score, sizes):
    """Within each group's segment of ``order``, sort rows by descending score (in place) and
    count the distinct scores into ``sizes[g]``."""
    n_groups = offsets.size - 1
    for g in prange(n_groups):
        start = offsets[g]
        stop = offsets[g + 1]
        if stop == start:
            sizes[g] = 0
            continue
        rows = order[start:stop].copy()
        keys = np.empty(stop - start, np.float64)
        for i in range(stop - start):
            keys[i] = -np.float64(score[rows[i]])
        idx = np.argsort(keys)
        distinct = 0
        for i in range(stop - start):
            order[start + i] = rows[idx[i]]
            if i == 0 or keys[idx[i]] != keys[idx[i - 1]]:
                distinct += 1
        sizes[g] = distinct


@njit(cache=True, parallel=True)
def _exact_sweep_groups(order, offsets, out_offsets, gold, score, weight, out_group, out_threshold, out_counts):
    """Confusion counts at every distinct score of every group, from rows sorted per group by
    descending score: after the last row with a given score, the counts are those at threshold
    = that score (score >= t). Groups are independent, so they run in parallel."""
    n_groups = offsets.size - 1
    weighted = weight.size > 0
    for g in prange(n_groups):
        start = offsets[g]
        stop = offsets[g + 1]
        total_pos = 0.0
        total_neg = 0.0
        for i in range(start, stop):
            w = weight[order[i]] if weighted else 1.0
            if gold[order[i]] == 1:
                total_pos += w
            else:
                total_neg += w
        pos = 0.0
        neg = 0.0
        o = out_offsets[g]
        for i in range(start, stop):
            r = order[i]
            w = weight[r] if weighted else 1.0
            if gold[r] == 1:
                pos += w
            else:
                neg += w
            if i == stop - 1 or score[order[i + 1]] != score[r]:
                out_group[o] = g
                out_threshold[o] = score[r]
                out_counts[o, 1, 1] = pos
                out_counts[o, 0, 1] = neg
                out_counts[o, 1, 0] = total_pos - pos
                out_counts[o, 0, 0] = total_neg - neg
                o += 1
