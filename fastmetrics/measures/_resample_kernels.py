"""Numba kernels of the per-cell bootstrap (:mod:`fastmetrics.measures.intervals`).

- :func:`item_prefix`: the bootstrap weights of ``n`` items (one multinomial draw over the
  positions a replicate), as prefix sums, from which every cell of ``n`` items reads its
  replicates.
- :func:`cell_tables`: which of the shared tables a cell reads, by a hash of its counts.
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
def _draw_positions(hist, n, s0, s1, s2, s3, bits):
    """``n`` positions drawn uniformly from ``[0, n)`` with replacement, each counted: ``hist``.

    xoshiro256++ gives 64 bits a step, cut into ``64 // bits`` uniform integers below ``2**bits``;
    Lemire's multiply-shift maps each onto ``[0, n)`` and rejects the few that would bias it, so
    every position has probability exactly ``1 / n``.
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
                hist[m >> uint64(bits)] += kept
                drawn += kept
        else:
            for k in range(chunks):
                m = ((x >> uint64(k * bits)) & mask) * nn
                if (m & mask) >= reject and drawn < n:
                    hist[m >> uint64(bits)] += 1
                    drawn += 1
    return s0, s1, s2, s3


@njit(nogil=True, cache=True)
def item_prefix(key, out):
    """Bootstrap weights of ``n`` items, as prefix sums: the common draw of every cell of ``n``.

    Parameters
    ----------
    key : uint64
        The seed's key. Replicate ``r`` has its own xoshiro256++ stream, seeded by SplitMix64
        from the key, ``n`` and ``r``: the weights depend on nothing else.
    out : int32 array, shape (n + 1, resamples)
        ``out[k, r]``: how many of replicate ``r``'s ``n`` draws (uniform over the positions
        ``0 .. n-1``, with replacement) fell below position ``k``.

    Notes
    -----
    Lay a cell's items out on the positions by category -- its first ``c_0`` items in category
    0, the next ``c_1`` in category 1, and so on -- and the count of category ``j`` in
    replicate ``r`` is ``out[b_j+1, r] - out[b_j, r]`` (``b_j = c_0 + ... + c_j-1``), which is
    ``Multinomial(n, counts / n)``: the cell's bootstrap. Any cell of ``n`` items reads its
    replicates from the same table, at the cost of two loads a count.
    """
    n = out.shape[0] - 1
    hist = np.zeros(max(n, 1), np.int32)
    for r in range(out.shape[1]):
        x = key ^ (uint64(n) * uint64(0xD1B54A32D192ED03)) ^ (uint64(r) * uint64(0x8CB92BA72F3D8DD7))
        x, s0 = _splitmix(x)
        x, s1 = _splitmix(x)
        x, s2 = _splitmix(x)
        x, s3 = _splitmix(x)
        hist[:] = 0
        if n > 0:
            if n <= 65536:
                _draw_positions(hist, n, s0, s1, s2, s3, 21)
            else:
                _draw_positions(hist, n, s0, s1, s2, s3, 32)
        total = 0
        out[0, r] = 0
        for k in range(n):
            total += hist[k]
            out[k + 1, r] = total


@njit(nogil=True, cache=True)
def cell_tables(rows, tables, out):
    """A hash of each row of counts onto ``0 .. tables - 1``: SplitMix64 after each count.

    Parameters
    ----------
    rows : int64 array, shape (cells, m * m)
    tables : int
    out : int64 array, shape (cells,)
    """
    for i in range(rows.shape[0]):
        h = uint64(0)
        for j in range(rows.shape[1]):
            _, h = _splitmix(h ^ uint64(rows[i, j]))
        out[i] = h % uint64(tables)


@njit(nogil=True, cache=True)
def _select(a, lo, hi, k):
    """The ``k``-th smallest of ``a[lo:hi]`` (NaN-free), left at ``a[k]`` with nothing larger
    before it and nothing smaller after it.

    Quickselect whose partitions are branch-free (every value swapped, the boundary moved by
    the comparison): replicates are in random order, so a branch on each comparison would be
    mispredicted half the time, which cost more than the swaps. Two passes a level -- below the pivot, then equal
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
