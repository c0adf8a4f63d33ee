"""Numba kernels of the meta-evaluation jobs: arrays in, arrays out, no validation.

Each kernel reproduces a per-pair definition of its job exactly (same integer counts, same float
operations where the result is a ratio); the jobs' modules say which definition.

The kernels over rows, pairs or topics take a range ``start, stop`` of them, release the GIL and
run on Python threads (:func:`fastmetrics._threads.in_ranges`), not in a ``prange``: a parallel
kernel compiles several times slower (seconds, paid on a first call in every fresh environment,
where a report's meta-evaluation of a few systems takes milliseconds) and the threads share the
work as evenly.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def _subset_ranks(x, order, keep, ranks):
    """Average ranks (1-based) of ``x`` among the entries with ``keep``, written into ``ranks``;
    ``order`` sorts ``x`` ascending (NaN last). Returns the number ranked and whether they tie."""
    n = 0
    i = 0
    size = order.size
    distinct = 0
    while i < size:
        k = order[i]
        if not keep[k]:
            i += 1
            continue
        value = x[k]
        j = i
        members = 0
        while j < size and (x[order[j]] == value or not keep[order[j]]):
            if keep[order[j]]:
                members += 1
            j += 1
        average = n + 0.5 * (members + 1)
        for q in range(i, j):
            if keep[order[q]]:
                ranks[order[q]] = average
        n += members
        distinct += 1
        i = j
    return n, distinct < 2


@njit(cache=True, nogil=True)
def spearman_pairs(start, stop, values, order, first, second, out):
    """out[p] for start <= p < stop = Spearman (average ranks) of the rows first[p], second[p]
    of ``values[topic, system]`` over the systems defined on both; NaN when fewer than two
    remain or a side is constant. ``order[t]`` sorts row t ascending, NaN last."""
    n_systems = values.shape[1]
    # a pair reads back only the ranks of the systems it keeps, which it has just written
    keep = np.empty(n_systems, np.bool_)
    ra = np.empty(n_systems)
    rb = np.empty(n_systems)
    for p in range(start, stop):
        a = values[first[p]]
        b = values[second[p]]
        for s in range(n_systems):
            keep[s] = not (np.isnan(a[s]) or np.isnan(b[s]))
        n, flat_a = _subset_ranks(a, order[first[p]], keep, ra)
        _, flat_b = _subset_ranks(b, order[second[p]], keep, rb)
        if n < 2 or flat_a or flat_b:
            out[p] = np.nan
            continue
        mean = 0.5 * (n + 1)
        sxy = 0.0
        sxx = 0.0
        syy = 0.0
        for s in range(n_systems):
            if keep[s]:
                dx = ra[s] - mean
                dy = rb[s] - mean
                sxy += dx * dy
                sxx += dx * dx
                syy += dy * dy
        out[p] = sxy / np.sqrt(sxx * syy)


@njit(cache=True, nogil=True)
def unit_ranks(start, stop, values, order, z):
    """z[r] for start <= r < stop = the average ranks of ``values[r]`` centred and scaled to unit
    length (so that the Spearman correlation of two rows is their dot product); NaN where the row
    has an undefined entry, is constant or has fewer than two entries. ``order[r]`` sorts row r
    ascending."""
    size = values.shape[1]
    keep = np.empty(size, np.bool_)
    for r in range(start, stop):
        clean = True
        for s in range(size):
            keep[s] = not np.isnan(values[r, s])
            clean = clean and keep[s]
        n, flat = _subset_ranks(values[r], order[r], keep, z[r])
        if not clean or flat or n < 2:
            for s in range(size):
                z[r, s] = np.nan
            continue
        mean = 0.5 * (n + 1)
        sxx = 0.0
        for s in range(size):
            z[r, s] -= mean
            sxx += z[r, s] * z[r, s]
        norm = np.sqrt(sxx)
        for s in range(size):
            z[r, s] /= norm


TILE = 64  # outputs a job of last_axis_first copies: one cache line of reads per slice


@njit(cache=True, nogil=True)
def last_axis_first(start, stop, values, first, signs, out, holes, count):
    """``out[k, m, o] = signs[m] * values[m, o, first + k]`` for the ``out.shape[0]`` slices from
    ``first``, and with ``count`` ``holes[k, job]`` the NaN among them, for the jobs start <= job
    < stop: a job is a tile of :data:`TILE` outputs ``o`` of row ``m = job // tiles``, so that
    reads and writes stay in cache lines (numpy's copy of the transposed view walks memory with
    the last axis' stride) and the threads share even a few rows evenly. The one transpose of the
    meta jobs: every slice of the values at once (:func:`fastmetrics.meta._common.slices_first`)
    or a block of slices at a time (strictness, which counts the NaN). Counting is a loop of its
    own: the running count in the copy's loop slows the copy even where nothing asks for it."""
    size = values.shape[1]
    tiles = (size + TILE - 1) // TILE
    for job in range(start, stop):
        m = job // tiles
        lo = (job % tiles) * TILE
        hi = min(size, lo + TILE)
        sign = signs[m]
        for k in range(out.shape[0]):
            if count:
                nan = 0
                for o in range(lo, hi):
                    v = sign * values[m, o, first + k]
                    out[k, m, o] = v
                    nan += v != v
                holes[k, job] = nan
            else:
                for o in range(lo, hi):
                    out[k, m, o] = sign * values[m, o, first + k]


@njit(cache=True, nogil=True)
def nanmean_rows(start, stop, values, out):
    """``out[i]`` for start <= i < stop: the mean of the values of row ``i`` that are not NaN
    (NaN if none is)."""
    for i in range(start, stop):
        total = 0.0
        n = 0
        for v in values[i]:
            if not np.isnan(v):
                total += v
                n += 1
        out[i] = total / n if n else np.nan


@njit(cache=True, nogil=True)
def half_swaps(values, tolerance):
    """``(swaps, comparisons)`` of ``values[replicate, half, system]`` (higher is better): the
    (replicate, system pair) where both halves' differences are numbers, and among them those
    the two halves order differently (differences within ``tolerance`` are ties)."""
    swaps = 0
    comparisons = 0
    n_systems = np.uint64(values.shape[2])
    for r in range(values.shape[0]):
        a, b = values[r, 0], values[r, 1]
        for i in range(n_systems):
            # without a branch, and unsigned (numba wraps a signed index, a gather a lane), so
            # that the loop over j is a vector loop
            for j in range(i + np.uint64(1), n_systems):
                d0 = a[i] - a[j]
                d1 = b[i] - b[j]
                both = (d0 == d0) & (d1 == d1)
                up0, down0 = d0 > tolerance, d0 < -tolerance
                up1, down1 = d1 > tolerance, d1 < -tolerance
                comparisons += both
                swaps += both & ((up0 != up1) | (down0 != down1))
    return swaps, comparisons


@njit(cache=True, nogil=True)
def upper_rows(block, start, out):
    """``out`` = the cells of ``block`` (rows ``start, start + 1, ...`` of a square matrix)
    right of the matrix's diagonal, row after row: its upper triangle's order."""
    at = np.uint64(0)
    n = np.uint64(block.shape[1])
    for i in range(block.shape[0]):
        # unsigned indices: a signed one numba would wrap, which made this copy a gather
        first = np.uint64(start + i + 1)
        for j in range(first, n):
            out[at + j - first] = block[i, j]
        at += n - first if n > first else np.uint64(0)
