"""Numba kernels of threshold sweeps on a grid: each row's score bucketed against the stored
threshold values into a (group, gold, bucket) histogram, then cumulated into counts at every
threshold."""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from .. import _threads
from ._codes import GOLD, VALUE, chunk_bounds, code_of, note_error, run_of, weight_ok
from ._hard import chunk_marks, new_keys


@njit(cache=True, nogil=True)
def _sweep_rows(gold, score, weight, start, stop, hist, grid, err):
    """hist[gold class, bucket] += 1 (or the weight) for rows ``start:stop`` of one group.

    A multiplication finds the score's cell of a fine even grid and one load of ``guide``
    (:func:`~fastmetrics.count.grid.bucket_guide`) its bucket; only a score in a cell that a
    threshold splits walks up the thresholds from the cell's first bucket, so ties count as
    positive (score >= t). A call a group's run, not inlined: the loop keeps its few values in
    registers, where the whole kernel's spill to the stack. ``grid``: ``(thresholds, guide, cells,
    lo, inv_step)`` (:func:`~fastmetrics.count.grid.bucket_guide`).
    """
    thresholds, guide, cells, lo, inv_step = grid
    k = thresholds.size
    for r in range(start, stop):
        i = code_of(gold, r)
        s = np.float64(score[np.uint64(r)])
        if i < 0 or not (s > -np.inf and s < np.inf):
            note_error(err, GOLD if i < 0 else VALUE, r)
            continue
        x = (s - lo) * inv_step + 1.0
        # written so that a NaN (inf * 0: bucket_guide then makes every cell a walk) becomes 0:
        # a float -> int cast of NaN is undefined, and min/max pass NaN through
        bucket = np.int64(guide[np.int64(min(x, cells)) if x > 0.0 else np.int64(0)])
        if bucket < 0:
            bucket = -bucket - 1
            while bucket < k and thresholds[bucket] <= s:
                bucket += 1
        if weight is None:
            hist[i, bucket] += 1
        elif weight_ok(weight, r, err):
            hist[i, bucket] += weight[r]


@njit(cache=True, nogil=True)
def sweep_chunk(start, stop, a, b, stride_a, gold, score, weight, item, keys, grid, p, err):
    """Histogram rows ``start:stop`` by the number of thresholds <= score (0 ... k), a run of
    one group at a time (:func:`run_of`, :func:`_sweep_rows`). ``item`` and ``keys``: the chunk's
    item marks (:func:`~._hard.chunk_marks`); ``grid``: as :func:`sweep_batch`'s."""
    n_items, seen, templates, patterns = keys
    words = seen.view(np.uint64)
    r = start
    while r < stop:
        run_end, g = run_of(a, b, stride_a, r, stop, err)
        if g >= 0:
            if not new_keys(item, n_items, words, g, g % stride_a, r, run_end, templates, patterns, err):
                return False
            _sweep_rows(gold, score, weight, r, run_end, p[g], grid, err)
        r = run_end
    return True


def sweep_batch(n, a, b, stride_a, gold, score, weight, marks, grid, partial, errors):
    """partial[c, g, i, k] += rows of group g with gold class i whose score passes exactly the k
    lowest thresholds; cumulative sums of this histogram give the counts at every threshold.
    ``marks``: as :func:`~._hard.hard_batch`'s; ``grid``: ``(thresholds, guide, cells, lo,
    inv_step)``, the thresholds and :func:`~fastmetrics.count.grid.bucket_guide` of them."""
    calls = [
        (start, stop, a, b, stride_a, gold, score, weight, *chunk_marks(marks, c), grid, partial[c], errors[c])
        for c, (start, stop) in enumerate(chunk_bounds(n, partial.shape[0]))
    ]
    return all(_threads.on_threads(sweep_chunk, calls))


@njit(cache=True, parallel=True)
def histogram_to_counts(hist, out):
    """out[g, t] = the 2x2 counts at threshold t from hist[g, gold, b] (rows passing exactly b
    thresholds): a row is predicted positive at t iff it passes at least t + 1 thresholds."""
    n_groups = hist.shape[0]
    k = hist.shape[2] - 1
    # both sides summed from their own end: with float weights, total - above can fall below 0
    for g in prange(n_groups):
        for cls in range(2):
            below = 0
            for t in range(k):
                below += hist[g, cls, t]
                out[g, t, cls, 0] = below
            above = 0
            for t in range(k - 1, -1, -1):
                above += hist[g, cls, t + 1]
                out[g, t, cls, 1] = above


@njit(cache=True, parallel=True)
def partials_to_counts(partial, out, rows):
    """:func:`histogram_to_counts` of ``partial.sum(axis=0)`` (the per-thread histograms summed on
    the fly), and rows[g] = the number of rows of group g."""
    n_parts, n_groups = partial.shape[0], partial.shape[1]
    k = partial.shape[3] - 1
    for g in prange(n_groups):
        rows[g] = 0
        for cls in range(2):
            below = 0
            for t in range(k):
                for c in range(n_parts):
                    below += partial[c, g, cls, t]
                out[g, t, cls, 0] = below
            above = 0
            for t in range(k - 1, -1, -1):
                for c in range(n_parts):
                    above += partial[c, g, cls, t + 1]
                out[g, t, cls, 1] = above
            for c in range(n_parts):
                below += partial[c, g, cls, k]
            rows[g] += below
