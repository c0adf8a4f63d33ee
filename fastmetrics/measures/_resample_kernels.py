"""Numba kernels of the per-cell bootstrap (:mod:`fastmetrics.measures.intervals`).

- :func:`sweep_replicates`: the replicates of a binary threshold sweep, drawn once per group
  for all its thresholds -- the group's items resampled with replacement, as resampling the test
  set does, and every threshold's counts read from the same draw.
- :func:`row_quantiles`: two quantiles of every row of replicates, as ``np.nanquantile``
  (linear) gives them, from the candidates beyond a pilot's bounds instead of a partition of the
  whole row.
"""

from __future__ import annotations

import numpy as np
from numba import njit, uint64

_PILOT = 128  # replicates that place a row's filter bounds
_PILOT_Z = 3.5  # the bounds' margin, in the pilot quantile's standard errors


@njit(inline="always")
def _rotl(x, k):
    return (x << uint64(k)) | (x >> uint64(64 - k))


@njit(inline="always")
def _splitmix(x):
    """SplitMix64: the next counter and its output (Vigna's seeding of xoshiro states)."""
    x = x + uint64(0x9E3779B97F4A7C15)
    z = (x ^ (x >> uint64(30))) * uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> uint64(27))) * uint64(0x94D049BB133111EB)
    return x, z ^ (z >> uint64(31))


@njit(inline="always")
def _draw_items(hist, table, n, s0, s1, s2, s3, bits):
    """``n`` items drawn uniformly with replacement, each counted in its bin: ``hist[table[i]]``.

    xoshiro256++ gives 64 bits a step, cut into ``64 // bits`` uniform integers below ``2**bits``;
    Lemire's multiply-shift maps each onto ``[0, n)`` and rejects the few that would bias it, so
    every item has probability exactly ``1 / n``.
    """
    mask = uint64((1 << bits) - 1)
    nn = uint64(n)
    reject = uint64((1 << bits) % n)
    chunks = 64 // bits
    drawn = 0
    while drawn < n:
        x = _rotl(s0 + s3, 23) + s0
        t = s1 << uint64(17)
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = _rotl(s3, 45)
        if drawn + chunks <= n:  # branch-free: a rejected draw adds 0 (its index is still < n)
            for k in range(chunks):
                m = ((x >> uint64(k * bits)) & mask) * nn
                kept = (m & mask) >= reject
                hist[table[m >> uint64(bits)]] += kept
                drawn += kept
        else:
            for k in range(chunks):
                m = ((x >> uint64(k * bits)) & mask) * nn
                if (m & mask) >= reject and drawn < n:
                    hist[table[m >> uint64(bits)]] += 1
                    drawn += 1
    return s0, s1, s2, s3


@njit(nogil=True, cache=True)
def sweep_replicates(counts, cell_index, key, first_group, out):
    """Bootstrap replicates of every distinct cell of binary threshold sweeps.

    Parameters
    ----------
    counts : int64 array, shape (groups, thresholds, 2, 2)
        Nested counts: along the threshold axis ``tp`` and ``fp`` do not increase and the
        positives and negatives stay the same (one set of items at rising thresholds).
    cell_index : int64 array, shape (groups, thresholds)
        The replicate row of each cell in ``out``; -1 for a cell equal to the one before it
        (no item between the two thresholds: their replicates are equal too).
    key : uint64
        The seed's key; group ``first_group + g`` has its own xoshiro256++ stream seeded by
        SplitMix64 from the key and its index, so a group's replicates do not depend on how
        the groups are chunked.
    first_group : int
    out : float64 array, shape (2, 2, rows, resamples)
        ``out[i, j, row, r]``: replicate ``r`` of the cell's count of true ``i`` predicted ``j``.

    Notes
    -----
    Resampling a group's ``n`` items and counting each threshold's cell from the same draw
    gives every cell the replicates ``Multinomial(n, counts / n)`` -- the per-cell bootstrap --
    at the cost of ``n`` draws a replicate for all thresholds, instead of one multinomial draw a
    cell and threshold.
    """
    groups, cells = counts.shape[0], counts.shape[1]
    resamples = out.shape[3]
    hist = np.empty(2 * (cells + 1), np.int64)
    table = np.empty(0, np.int32)
    for g in range(groups):
        positives = counts[g, 0, 1, 1] + counts[g, 0, 1, 0]
        negatives = counts[g, 0, 0, 1] + counts[g, 0, 0, 0]
        n = positives + negatives
        if table.size < n:
            table = np.empty(n, np.int32)
        # bin b of a class: its items above b of the thresholds (b = 0 .. cells)
        item = 0
        for side in range(2):
            above_before = positives if side else negatives
            for b in range(cells + 1):
                above = counts[g, b, side, 1] if b < cells else 0
                for _ in range(above_before - above):
                    table[item] = side * (cells + 1) + b
                    item += 1
                above_before = above
        x = key ^ (uint64(first_group + g) * uint64(0xD1B54A32D192ED03))
        x, s0 = _splitmix(x)
        x, s1 = _splitmix(x)
        x, s2 = _splitmix(x)
        x, s3 = _splitmix(x)
        for r in range(resamples):
            for b in range(hist.size):
                hist[b] = 0
            if n > 0:
                if n <= 65536:
                    s0, s1, s2, s3 = _draw_items(hist, table, n, s0, s1, s2, s3, 21)
                else:
                    s0, s1, s2, s3 = _draw_items(hist, table, n, s0, s1, s2, s3, 32)
            drawn_negatives, drawn_positives = 0, 0
            for b in range(cells + 1):
                drawn_negatives += hist[b]
                drawn_positives += hist[cells + 1 + b]
            tp, fp = 0, 0
            for j in range(cells - 1, -1, -1):
                fp += hist[j + 1]
                tp += hist[cells + 2 + j]
                row = cell_index[g, j]
                if row >= 0:
                    out[1, 1, row, r] = tp
                    out[0, 1, row, r] = fp
                    out[1, 0, row, r] = drawn_positives - tp
                    out[0, 0, row, r] = drawn_negatives - fp


@njit(nogil=True, cache=True)
def _select(a, lo, hi, k):
    """The ``k``-th smallest of ``a[lo:hi]`` (NaN-free), left at ``a[k]`` with nothing larger
    before it and nothing smaller after it.

    Quickselect whose partitions are branch-free (every value swapped, the boundary moved by
    the comparison): replicates are in random order, so a branch on each comparison would be
    mispredicted half the time, which cost 3x. Two passes a level -- below the pivot, then equal
    to it -- keep long runs of ties linear.
    """
    while hi - lo > 1:
        x, y, z = a[lo], a[(lo + hi) // 2], a[hi - 1]
        pivot = max(min(x, y), min(max(x, y), z))
        below = lo
        for i in range(lo, hi):
            v = a[i]
            a[i] = a[below]
            a[below] = v
            below += v < pivot
        if k < below:
            hi = below
            continue
        equal = below
        for i in range(below, hi):
            v = a[i]
            a[i] = a[equal]
            a[equal] = v
            equal += v <= pivot
        if k < equal:
            return pivot
        lo = equal
    return a[k]


@njit(inline="always")
def _lerp(a, b, t):
    """numpy's linear interpolation: from the nearer end, so t = 0 and t = 1 give a and b."""
    if t < 0.5:
        return a + (b - a) * t
    return b - (b - a) * (1 - t)


@njit(nogil=True, cache=True)
def _order_pair(a, lo, hi, k, last):
    """Order statistics ``k`` and ``min(k + 1, last)`` of ``a[lo:hi]`` (absolute indices)."""
    below = _select(a, lo, hi, k)
    if k + 1 > last:
        return below, below
    above = a[k + 1]
    for i in range(k + 2, hi):  # nothing after k is smaller than a[k]: the next is their least
        above = min(above, a[i])
    return below, above


@njit(nogil=True, cache=True)
def row_quantiles(values, q, out):
    """``np.nanquantile(values, q, axis=1)`` (linear) for two levels ``q[0] <= q[1]``.

    Parameters
    ----------
    values : float64 array, shape (rows, count)
        Replicates per row; NaN = undefined (left out, as nanquantile leaves it out).
    q : float64 array, shape (2,)
    out : float64 array, shape (2, rows)
        NaN for a row without a defined value.

    Notes
    -----
    The replicates of a row are exchangeable, so its first :data:`_PILOT` defined values are a
    random sample of it: their quantiles beyond ``q`` by :data:`_PILOT_Z` standard errors bound
    a filter that keeps the few values at either end. When those candidates hold the order
    statistics asked for (checked against the defined count, not assumed), the quantiles are
    read from them; otherwise from the whole row. Either way the result is exact.
    """
    rows, count = values.shape
    low = np.empty(count)
    high = np.empty(count)
    pilot = np.empty(_PILOT)
    for i in range(rows):
        row = values[i]
        lower, upper = -np.inf, np.inf  # bounds that keep everything: the whole row
        taken = 0
        for j in range(count):
            if taken == _PILOT:
                break
            if row[j] == row[j]:
                pilot[taken] = row[j]
                taken += 1
        if taken == _PILOT and count >= 4 * _PILOT:
            for side in range(2):
                p = q[side] if side == 0 else 1 - q[side]
                reach = min(_PILOT - 1, int((p + _PILOT_Z * np.sqrt(p * (1 - p) / _PILOT)) * _PILOT) + 1)
                if side == 0:
                    lower = _select(pilot, 0, _PILOT, reach)
                else:
                    upper = _select(pilot, 0, _PILOT, _PILOT - 1 - reach)
        n_low, n_high, defined = 0, 0, 0
        for j in range(count):  # branch-free: every value written, the count moved on when kept
            v = row[j]
            low[n_low] = v
            n_low += v <= lower
            high[n_high] = v
            n_high += v >= upper
            defined += v == v
        if defined == 0:
            out[0, i] = np.nan
            out[1, i] = np.nan
            continue
        for side in range(2):
            position = q[side] * (defined - 1)
            k = int(np.floor(position))
            k_next = min(k + 1, defined - 1)
            outside = defined - n_high  # the index, among all defined values, of high[0]
            if side == 0 and k_next < n_low:
                a, b = _order_pair(low, 0, n_low, k, defined - 1)
            elif side == 1 and k >= outside:
                a, b = _order_pair(high, 0, n_high, k - outside, defined - 1 - outside)
            else:  # the candidates miss an order statistic: the whole row
                kept = 0
                for j in range(count):
                    if row[j] == row[j]:
                        low[kept] = row[j]
                        kept += 1
                a, b = _order_pair(low, 0, defined, k, defined - 1)
            out[side, i] = _lerp(a, b, position - k)
