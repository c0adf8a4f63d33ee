"""Numba kernels of :mod:`fastmetrics.meta.strictness`: the levels every output reaches, the
lowest value of every measure at each level of another in one pass over the outputs, and the
ranks of those lowest values -- without sorting any measure's values.

With ``n`` outputs, output ``o`` reaches level ``th`` of measure ``a`` when at least ``c`` of the
values of ``a`` are at or below ``a(o)``, ``c`` the smallest count with ``c / n >= th``: when
``a(o)`` is at least the ``c``-th smallest value of ``a``, the level's *cut*. The strictness of
``a`` against ``b`` at ``th`` is the rank of the lowest value of ``b`` over the outputs reaching
``th`` (ranks grow with the value): the number of values of ``b`` at or below it, over ``n``.

Every row (a measure's values on the outputs) is counted into buckets of equal width over its
range. A value's bucket never decreases with the value, so the ``c``-th smallest value lies in
the bucket where the running count reaches ``c``, and the rank of a value is the count of the
buckets before its own plus the values of its bucket at or below it. Only the buckets holding a
cut or a value whose rank is asked are gathered and sorted (a few dozen of thousands); an
output's level is the number of cuts in the buckets below its own, plus those of its own bucket
at or below its value.

The kernels called from Python take a range ``begin, end`` of their rows (or chunks), release the
GIL and run on Python threads (:func:`fastmetrics._threads.in_ranges`), not in a ``prange``: a
parallel kernel compiles several times slower, paid on a first call in every fresh environment.
"""

from __future__ import annotations

import numpy as np
from numba import njit

# outputs a block of level_minima turns to one row of values each
_TILE = 256


@njit(cache=True, inline="always")
def _bucket(v, lo, scale, top):
    """The bucket of ``v``: ``floor((v - lo) * scale)``, at most ``top`` (0 when ``scale`` is 0)."""
    return np.int64(min((v - lo) * scale, top)) if scale > 0.0 else np.int64(0)


@njit(cache=True, inline="always")
def _scale(x, buckets):
    """``(lo, scale)`` of the buckets of ``x`` (no NaN): one bucket where the range is infinite
    (infinite values) or too small for a finite scale."""
    lo = hi = x[0]
    for v in x:
        lo = min(lo, v)
        hi = max(hi, v)
    span = hi - lo
    scale = buckets / span if 0.0 < span < np.inf else 0.0
    return lo, (scale if scale < np.inf else 0.0)


@njit(cache=True, nogil=True)
def _bucket_counts(x, lo, scale, where, start):
    """Count the values of ``x`` into buckets: ``where[o]`` is the bucket of ``x[o]``; bucket
    ``b`` holds the values of ranks ``start[b] + 1 .. start[b + 1]``."""
    buckets = start.size - 1
    top = buckets - 1.0
    start[:] = 0
    for o in range(x.size):
        b = _bucket(x[o], lo, scale, top)
        where[o] = b
        start[b + 1] += 1
    for b in range(buckets):
        start[b + 1] += start[b]


@njit(cache=True, nogil=True)
def _sort_buckets(x, where, start, wanted, members):
    """Put the values of the ``wanted`` buckets at ``members[start[b]:start[b + 1]]``, sorted, and
    forget the wish: one pass over the outputs, however many buckets are wanted. A bucket of one
    distinct value (coarse scores: thousands of equal values) is left as it is."""
    fill = start[:-1].copy()
    for o in range(x.size):
        b = where[o]
        if wanted[b]:
            members[fill[b]] = x[o]
            fill[b] += 1
    for b in range(wanted.size):
        if wanted[b]:
            inside = members[start[b] : start[b + 1]]
            for v in inside:
                if v != inside[0]:
                    inside.sort()
                    break
            wanted[b] = False


@njit(cache=True, inline="always")
def _one_value(b, start, members):
    """Whether bucket ``b`` (sorted, or of one distinct value) holds a single distinct value."""
    return members[start[b]] == members[start[b + 1] - 1]


@njit(cache=True, nogil=True)
def _row_levels(x, counts, where, start, members, sorted_, wanted, levels):
    """``levels[o]``: how many of the ascending ``counts`` (the levels' cuts as counts of values)
    ``x[o]`` reaches, after :func:`_bucket_counts`; the buckets holding a cut get sorted."""
    buckets = start.size - 1
    below = np.zeros(buckets + 1, np.int64)  # below[b]: cuts in the buckets before b
    holders = np.searchsorted(start, counts, side="left") - 1  # start[b] < count <= start[b + 1]
    for b in holders:
        wanted[b] = True
        sorted_[b] = True
        below[b + 1] += 1
    _sort_buckets(x, where, start, wanted, members)
    cut = members[counts - 1]
    for b in range(buckets):
        below[b + 1] += below[b]
    # the level of a bucket's values: the cuts below it, or with them its own where it holds one
    # value; only the outputs of buckets holding several values and a cut compare (a branch that
    # is rarely taken, where one taken for every other output would be mispredicted)
    reached = below[1:].copy()
    compare = np.zeros(buckets, np.bool_)
    for b in holders:
        compare[b] = not _one_value(b, start, members)
    for b in range(buckets):
        reached[b] = below[b] if compare[b] or below[b + 1] == below[b] else below[b + 1]
    for o in range(x.size):
        b = where[o]
        level = reached[b]
        if compare[b]:
            for k in range(below[b], below[b + 1]):
                level += cut[k] <= x[o]
        levels[o] = level


@njit(cache=True, nogil=True)
def row_levels(begin, end, values, counts, where, start, members, sorted_, wanted, levels):
    """:func:`_bucket_counts` and :func:`_row_levels` of the rows begin <= m < end of
    ``values[m, o]``; each row's arrays stay for :func:`lowest_ranks`."""
    for m in range(begin, end):
        lo, scale = _scale(values[m], start.shape[1] - 1)
        _bucket_counts(values[m], lo, scale, where[m], start[m])
        sorted_[m, :] = False
        wanted[m, :] = False
        _row_levels(values[m], counts, where[m], start[m], members[m], sorted_[m], wanted[m], levels[m])


@njit(cache=True, nogil=True)
def level_minima(begin, end, values, levels, minima):
    """``minima[chunk, a, L, b]`` for the chunks begin <= chunk < end and ``L >= 1``: the lowest
    ``values[b, o]`` over the outputs ``o`` of the chunk that reach exactly ``L`` levels of ``a``
    (``levels[a, o]``); the chunks' outputs are one run each (the caller takes the minimum over
    chunks). ``L = 0`` (outputs below every level, which no strictness reads) is left as it is.
    A tile of outputs at a time is turned into a row of values each, so that one output lowers
    the minima of every measure ``b`` as one vector."""
    n_rows, n = values.shape
    n_chunks = minima.shape[0]
    per = (n + n_chunks - 1) // n_chunks
    for c in range(begin, end):
        tile = np.empty((_TILE, n_rows))
        tile_levels = np.empty((_TILE, n_rows), np.int64)
        for first in range(c * per, min(n, (c + 1) * per), _TILE):
            stop = min(n, first + _TILE, (c + 1) * per)
            for o in range(first, stop):
                for m in range(n_rows):
                    tile[o - first, m] = values[m, o]
                    tile_levels[o - first, m] = levels[m, o]
            for q in range(stop - first):
                for a in range(n_rows):
                    level = tile_levels[q, a]
                    if level == 0:  # about half the outputs of a measure: below its lowest level
                        continue
                    for b in range(n_rows):
                        minima[c, a, level, b] = min(minima[c, a, level, b], tile[q, b])


@njit(cache=True, nogil=True)
def lowest_ranks(begin, end, lowest, values, where, start, members, sorted_, wanted, first, second, out):
    """``out[p, k]`` for the pairs whose ``second[p]`` is a row begin <= row < end: the number of
    values of that row at or below ``lowest[first[p], k, second[p]]`` (one of the row's values),
    from the row's buckets; the buckets asked about are sorted first, in one pass."""
    buckets = start.shape[1] - 1
    for row in range(begin, end):
        lo, scale = _scale(values[row], buckets)
        bucket_of = np.full(out.shape, -1, np.int64)
        for p in range(first.size):
            if second[p] == row:
                for k in range(out.shape[1]):
                    b = _bucket(lowest[first[p], k, row], lo, scale, buckets - 1.0)
                    bucket_of[p, k] = b
                    wanted[row, b] |= not sorted_[row, b]
                    sorted_[row, b] = True
        _sort_buckets(values[row], where[row], start[row], wanted[row], members[row])
        for p in range(first.size):
            for k in range(out.shape[1]):
                b = bucket_of[p, k]
                if b >= 0:
                    inside = members[row, start[row, b] : start[row, b + 1]]
                    out[p, k] = start[row, b] + np.searchsorted(inside, lowest[first[p], k, row], side="right")


@njit(cache=True, nogil=True)
def gather_outputs(begin, end, flat, rows, outputs, out):
    """``out[i, j] = flat[rows[i], outputs[j]]`` for begin <= i < end."""
    for i in range(begin, end):
        source = flat[rows[i]]
        for j in range(outputs.size):
            out[i, j] = source[outputs[j]]
