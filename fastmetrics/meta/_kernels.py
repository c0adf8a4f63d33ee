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
from numba import njit, types
from numba.extending import intrinsic


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
def _spearman_pairs(start, stop, values, order, first, second, out):
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
def _unit_ranks(start, stop, values, order, z):
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


@njit(cache=True, inline="always")
def _cuts_at_or_below(v, cuts):
    """The number of ``cuts`` (ascending, padded with +inf to a power of two >= 128) at or below
    ``v``; 0 for NaN. The first seven halvings are written out: a search loop whose step the
    compiler cannot see runs about six times slower."""
    position = 0
    step = cuts.size // 2
    while step > 64:
        position += step if v >= cuts[position + step - 1] else 0
        step //= 2
    position += 64 if v >= cuts[position + 63] else 0
    position += 32 if v >= cuts[position + 31] else 0
    position += 16 if v >= cuts[position + 15] else 0
    position += 8 if v >= cuts[position + 7] else 0
    position += 4 if v >= cuts[position + 3] else 0
    position += 2 if v >= cuts[position + 1] else 0
    position += 1 if v >= cuts[position] else 0
    return position


@njit(cache=True, nogil=True)
def _strictness_tops(start, stop, flat, ordered, defined, counts, members, starts):
    """For each row start <= m < stop of ``flat[measure, output]``: the defined outputs at or
    above the lowest level, grouped by the number of levels they reach (``members[m,
    starts[m, j]:starts[m, j + 1]]`` reach exactly j + 1 of the ascending levels, highest group
    first). ``ordered[m]`` is row m sorted (NaN last), ``defined[m]`` its number of values. An
    output reaches a level when its value is at least the level's cut, the value at position
    ``counts[k] - 1`` of the sorted row (the count of values at or below an output that brings its
    rank to the level, :func:`fastmetrics.meta.strictness.level_counts`)."""
    size = flat.shape[1]
    levels = counts.size
    # padded to a power of two (128 at least) with +inf for the search below; a row writes
    # cuts[:levels] only
    width = 128
    while width < levels + 1:
        width *= 2
    cuts = np.full(width, np.inf)
    reach = np.empty(size, np.int64)
    sizes = np.empty(levels + 1, np.int64)
    for m in range(start, stop):
        n = defined[m]
        for j in range(levels + 1):
            starts[m, j] = 0
            sizes[j] = 0
        if n == 0:
            continue
        for k in range(levels):
            cuts[k] = ordered[m, counts[k] - 1]
        for o in range(size):
            position = _cuts_at_or_below(flat[m, o], cuts)
            reach[o] = position
            sizes[position] += 1
        # highest group first: starts[m, j] for j = levels .. 1 laid out in that order
        position = 0
        for j in range(levels, 0, -1):
            starts[m, j] = position
            position += sizes[j]
        starts[m, 0] = position
        fill = starts[m].copy()
        for o in range(size):
            j = reach[o]
            if j > 0:
                members[m, fill[j]] = o
                fill[j] += 1


@njit(cache=True, nogil=True)
def _strictness_shared(start, stop, flat, ordered, defined, members, starts, first, second, out):
    """out[p, k] for start <= p < stop = strictness at the k-th ascending level of measure first[p] against second[p],
    two measures defined on the same outputs: the lowest value of b over the outputs reaching the
    level, as the fraction of b's values at or below it (the lowest rank, ranks being monotone in
    the value). Groups from :func:`_strictness_tops`."""
    levels = out.shape[1]
    for p in range(start, stop):
        a, b = first[p], second[p]
        n = defined[a]
        if n == 0:
            for k in range(levels):
                out[p, k] = np.nan
            continue
        running = np.inf
        for j in range(levels, 0, -1):
            end = starts[a, 0] if j == 1 else starts[a, j - 1]
            for q in range(starts[a, j], end):
                running = min(running, flat[b, members[a, q]])
            # the number of b's values at or below the running minimum
            lo, hi = 0, n
            while lo < hi:
                mid = (lo + hi) // 2
                if ordered[b, mid] <= running:
                    lo = mid + 1
                else:
                    hi = mid
            out[p, j - 1] = lo / n


@intrinsic
def _popcount(typingctx, word):
    """The number of bits set in a uint64 (LLVM's ctpop: one instruction)."""

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return types.uint64(types.uint64), codegen


@njit(cache=True, inline="always")
def _sign_word(vi, padded, start, tolerance):
    """Bits b of three words for the systems j = start + b: vi - padded[j] > tolerance, <
    -tolerance, undefined (NaN)."""
    above = np.uint64(0)
    below = np.uint64(0)
    undefined = np.uint64(0)
    for b in range(64):
        d = vi - padded[start + b]
        above |= np.uint64(d > tolerance) << np.uint64(b)
        below |= np.uint64(d < -tolerance) << np.uint64(b)
        undefined |= np.uint64(d != d) << np.uint64(b)
    return above, below, undefined


@njit(cache=True)
def _sign_bits(row, tolerance, padded, above, below, undefined):
    """The comparisons (i, j > i) of one measure's ``row[system]`` as bits: word w of row i holds
    systems 64 w .. 64 w + 63; j <= i and NaN differences are marked undefined."""
    n_systems = row.size
    words = padded.size // 64
    # element by element: a slice assignment compiles numba's shape-mismatch error message,
    # formatting and all (1.8 s of a first call)
    for j in range(n_systems):
        padded[j] = row[j]
    for i in range(n_systems):
        for w in range(words):
            k = i * words + w
            first = i + 1 - w * 64  # the first bit of this word with j > i
            if first >= 64:
                above[k] = 0
                below[k] = 0
                undefined[k] = ~np.uint64(0)
                continue
            keep = ~np.uint64(0) if first <= 0 else ~((np.uint64(1) << np.uint64(first)) - np.uint64(1))
            up, down, unknown = _sign_word(row[i], padded, w * 64, tolerance)
            above[k] = up & keep
            below[k] = down & keep
            undefined[k] = unknown | ~keep


@njit(cache=True, nogil=True)
def _inconsistency_counts(start, stop, values, tolerance):
    """``(bad, both)``: ``both[a, b]`` counts the comparisons (system pairs of one topic of
    ``values[topic, measure, system]``, topics start <= t < stop) where measures a < b are both
    defined, ``bad[a, b]`` those where they also order the pair differently (sign of the
    difference beyond ``tolerance``, 0 within it). Each measure's signs are packed 64 to a word,
    so that a pair of measures compares 64 comparisons in a few instructions."""
    n_measures, n_systems = values.shape[1], values.shape[2]
    words = (n_systems + 63) // 64
    size = n_systems * words
    bad = np.zeros((n_measures, n_measures), np.int64)
    both = np.zeros((n_measures, n_measures), np.int64)
    above = np.empty((n_measures, size), np.uint64)
    below = np.empty((n_measures, size), np.uint64)
    undefined = np.empty((n_measures, size), np.uint64)
    padded = np.full(words * 64, np.nan)
    for t in range(start, stop):
        for m in range(n_measures):
            _sign_bits(values[t, m], tolerance, padded, above[m], below[m], undefined[m])
        for a in range(n_measures):
            for b in range(a + 1, n_measures):
                defined = 0
                differ = 0
                for k in range(size):
                    ok = ~(undefined[a, k] | undefined[b, k])
                    defined += _popcount(ok)
                    differ += _popcount(((above[a, k] ^ above[b, k]) | (below[a, k] ^ below[b, k])) & ok)
                both[a, b] += defined
                bad[a, b] += differ
    return bad, both


@njit(cache=True, nogil=True)
def _last_axis_first(start, stop, values, out):
    """out[k, m, o] = values[m, o, k] for the tiles start <= job < stop of 64 outputs (row
    ``job // tiles``), so that reads and writes stay in cache lines (numpy's copy of the
    transposed view walks memory with the last axis' stride)."""
    size, n_last = values.shape[1], values.shape[2]
    tiles = (size + 63) // 64
    for job in range(start, stop):
        m = job // tiles
        start = (job % tiles) * 64
        stop = min(size, start + 64)
        for k in range(n_last):
            for o in range(start, stop):
                out[k, m, o] = values[m, o, k]


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
    n_systems = values.shape[2]
    for r in range(values.shape[0]):
        a, b = values[r, 0], values[r, 1]
        for i in range(n_systems):
            for j in range(i + 1, n_systems):
                d0 = a[i] - a[j]
                d1 = b[i] - b[j]
                if d0 != d0 or d1 != d1:
                    continue
                comparisons += 1
                sign0 = (d0 > tolerance) - (d0 < -tolerance)
                sign1 = (d1 > tolerance) - (d1 < -tolerance)
                swaps += sign0 != sign1
    return swaps, comparisons
