"""Numba kernels of the meta-evaluation jobs: arrays in, arrays out, no validation.

Each kernel reproduces a per-pair definition of its job exactly (same integer counts, same float
operations where the result is a ratio); the jobs' modules say which definition.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange


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


@njit(cache=True, parallel=True)
def _spearman_pairs(values, order, first, second, out):
    """out[p] = Spearman (average ranks) of the rows first[p], second[p] of ``values[topic,
    system]`` over the systems defined on both; NaN when fewer than two remain or a side is
    constant. ``order[t]`` sorts row t ascending, NaN last."""
    n_systems = values.shape[1]
    for p in prange(first.size):
        a = values[first[p]]
        b = values[second[p]]
        keep = np.empty(n_systems, np.bool_)
        for s in range(n_systems):
            keep[s] = not (np.isnan(a[s]) or np.isnan(b[s]))
        ra = np.zeros(n_systems)
        rb = np.zeros(n_systems)
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


@njit(cache=True, parallel=True)
def _unit_ranks(values, order, z):
    """z[r] = the average ranks of ``values[r]`` centred and scaled to unit length (so that the
    Spearman correlation of two rows is their dot product); NaN where the row has an undefined
    entry, is constant or has fewer than two entries. ``order[r]`` sorts row r ascending."""
    n_rows, size = values.shape
    for r in prange(n_rows):
        keep = np.empty(size, np.bool_)
        clean = True
        for s in range(size):
            keep[s] = not np.isnan(values[r, s])
            clean = clean and keep[s]
        n, flat = _subset_ranks(values[r], order[r], keep, z[r])
        if not clean or flat or n < 2:
            z[r, :] = np.nan
            continue
        mean = 0.5 * (n + 1)
        sxx = 0.0
        for s in range(size):
            z[r, s] -= mean
            sxx += z[r, s] * z[r, s]
        norm = np.sqrt(sxx)
        for s in range(size):
            z[r, s] /= norm


@njit(cache=True)
def _kept_fraction_ranks(x, order, keep, n, ranks):
    """ranks[o] = (number of kept entries with x <= x[o]) / n, for the kept entries; ``order``
    sorts ``x`` ascending, NaN last."""
    seen = 0
    i = 0
    while i < order.size:
        value = x[order[i]]
        j = i
        while j < order.size and (x[order[j]] == value or not keep[order[j]]):
            seen += keep[order[j]]
            j += 1
        for q in range(i, j):
            ranks[order[q]] = seen / n
        i = j


@njit(cache=True)
def _strictness_pair(a, b, order_a, order_b, thresholds, out):
    """out[k] = min of rank_b over the outputs with rank_a >= thresholds[k] (NaN if none), the
    fraction ranks taken among the outputs where both ``a`` and ``b`` are defined."""
    keep = ~(np.isnan(a) | np.isnan(b))
    n = keep.sum()
    out[:] = np.nan
    if n == 0:
        return
    rank_b = np.empty(a.size)
    _kept_fraction_ranks(b, order_b, keep, n, rank_b)
    # walk a from the top: each tie group's rank and the running minimum of rank_b down to it
    levels = np.empty(n)
    minima = np.empty(n)
    groups = 0
    larger = 0
    running = np.inf
    i = order_a.size - 1
    while i >= 0:
        if not keep[order_a[i]]:
            i -= 1
            continue
        value = a[order_a[i]]
        members = 0
        while i >= 0 and (a[order_a[i]] == value or not keep[order_a[i]]):
            if keep[order_a[i]]:
                members += 1
                running = min(running, rank_b[order_a[i]])
            i -= 1
        levels[groups] = (n - larger) / n
        minima[groups] = running
        larger += members
        groups += 1
    for k in range(thresholds.size):
        # levels fall: the last group at or above the threshold
        lo, hi = 0, groups
        while lo < hi:
            mid = (lo + hi) // 2
            if levels[mid] >= thresholds[k]:
                lo = mid + 1
            else:
                hi = mid
        if lo > 0:
            out[k] = minima[lo - 1]


@njit(cache=True, parallel=True)
def _strictness_pairs(flat, order, first, second, thresholds, out):
    """out[p] = strictness at each threshold of measure first[p] against second[p] over the
    outputs (columns) of ``flat[measure, output]``; ``order[m]`` sorts ``flat[m]``."""
    for p in prange(first.size):
        a, b = first[p], second[p]
        _strictness_pair(flat[a], flat[b], order[a], order[b], thresholds, out[p])


@njit(cache=True)
def _sign_codes(values, tolerance, code):
    """code[m, k] for the k-th system pair (i < j, row by row) of ``values[measure, system]``:
    0, 1, 2 for a difference below -tolerance, within it, above it; 3 when undefined."""
    n_measures, n_systems = values.shape
    for m in range(n_measures):
        k = 0
        for i in range(n_systems):
            for j in range(i + 1, n_systems):
                d = values[m, i] - values[m, j]
                code[m, k] = 3 if np.isnan(d) else 1 + (d > tolerance) - (d < -tolerance)
                k += 1


@njit(cache=True, parallel=True)
def _inconsistency_counts(values, tolerance, n_chunks, bad, both):
    """bad[c, a, b], both[c, a, b]: over the comparisons (system pairs of one topic of
    ``values[topic, measure, system]``) of chunk c of the topics, those where measures a and b
    are both defined, and those where they also order the pair differently (sign of the
    difference beyond ``tolerance``, 0 within it)."""
    n_topics, n_measures, n_systems = values.shape
    per = (n_topics + n_chunks - 1) // n_chunks
    pairs = n_systems * (n_systems - 1) // 2
    for c in prange(n_chunks):
        code = np.empty((n_measures, pairs), np.int8)
        for t in range(c * per, min(n_topics, (c + 1) * per)):
            _sign_codes(values[t], tolerance, code)
            for a in range(n_measures):
                x = code[a]
                for b in range(a + 1, n_measures):
                    y = code[b]
                    defined = 0
                    differ = 0
                    for k in range(pairs):
                        ok = (x[k] != 3) & (y[k] != 3)
                        defined += ok
                        differ += ok & (x[k] != y[k])
                    both[c, a, b] += defined
                    bad[c, a, b] += differ


@njit(cache=True, parallel=True)
def nanmean_rows(values, out):
    """``out[i]``: the mean of the values of row ``i`` that are not NaN (NaN if none is)."""
    for i in prange(values.shape[0]):
        total = 0.0
        n = 0
        for v in values[i]:
            if not np.isnan(v):
                total += v
                n += 1
        out[i] = total / n if n else np.nan
