"""Numba kernels of exact sweeps: rows sorted by group and score (a radix sort of packed keys),
then counts at every distinct score of each group."""

from __future__ import annotations

import numpy as np
from numba import njit, prange


@njit(cache=True)
def rows_by_group(group, n_groups):
    """A stable counting sort of the rows by group: (row order, group offsets). The order is
    empty when the rows come in group order already (then group g is rows offsets[g] to
    offsets[g + 1]), as a run file written system by system and topic by topic does: no
    scatter of every row. Serial: one pass when the rows are grouped, and a parallel kernel
    costs seconds to compile on the first call."""
    offsets = np.zeros(n_groups + 1, np.int64)
    grouped = True
    for r in range(group.size):
        offsets[group[r] + 1] += 1
        if r > 0 and group[r] < group[r - 1]:
            grouped = False
    for g in range(n_groups):
        offsets[g + 1] += offsets[g]
    if grouped:
        return np.empty(0, np.int64), offsets
    cursor = np.empty(n_groups, np.int64)
    for g in range(n_groups):
        cursor[g] = offsets[g]
    order = np.empty(group.size, np.int64)
    for r in range(group.size):
        g = group[r]
        order[cursor[g]] = r
        cursor[g] += 1
    return order, offsets


_U8 = np.uint64(8)


_U32 = np.uint64(32)


_U255 = np.uint64(255)


_LOW32 = np.uint64(0xFFFFFFFF)


@njit(cache=True)
def _radix_sort(keys, lo, n, tmp, hist):
    """Stable LSD radix sort of ``keys[lo:lo + n]`` (uint64) by their high 32 bits, one byte a
    pass, bytes equal in every key skipped; ``tmp`` holds ``n`` keys, ``hist`` is (4, 256)."""
    for b in range(4):  # loops, not slice assignments: those take seconds to compile
        for d in range(256):
            hist[b, d] = 0
    for b in range(4):
        shift = _U8 * np.uint64(4 + b)
        for i in range(lo, lo + n):
            hist[b, np.int64((keys[i] >> shift) & _U255)] += 1
    in_tmp = False
    for b in range(4):
        shift = _U8 * np.uint64(4 + b)
        if hist[b, np.int64((keys[lo] >> shift) & _U255)] == n:
            continue
        total = 0
        for d in range(256):
            c = hist[b, d]
            hist[b, d] = total
            total += c
        if in_tmp:
            for i in range(n):
                d = np.int64((tmp[i] >> shift) & _U255)
                keys[lo + hist[b, d]] = tmp[i]
                hist[b, d] += 1
        else:
            for i in range(lo, lo + n):
                d = np.int64((keys[i] >> shift) & _U255)
                tmp[hist[b, d]] = keys[i]
                hist[b, d] += 1
        in_tmp = not in_tmp
    if in_tmp:
        for i in range(n):
            keys[lo + i] = tmp[i]


@njit(cache=True, nogil=True)
def sort_groups(g0, g1, order, offsets, bits, sign, gold, sorted_rows, sizes, totals):
    """Groups ``g0`` to ``g1``: each group's rows by descending score into ``sorted_rows``, its
    distinct scores into ``sizes[g]`` and its negative and positive rows into ``totals[g]``. Rows
    of group g are ``order[offsets[g]:offsets[g + 1]]`` (those rows themselves when ``order`` is
    empty).

    ``bits`` is the float score column viewed as unsigned integers of its width and ``sign`` its
    sign bit: flipping the other bits of a positive float and keeping a negative one gives keys
    whose unsigned order is the descending order of the floats (-0.0 read as 0.0), so a radix
    sort does in a few passes what a comparison sort does in log2(rows) (issue 16: the sort was
    the floor of an exact sweep). Four passes: the key's high 32 bits travel with the row's place
    in its group in one 64-bit word; a 64-bit key's rows that share the high half are then ordered
    by the low half (:func:`_order_ties`). Callers run chunks of groups on threads (it releases
    the GIL): a numba ``parallel`` loop around it took seconds to compile on every first call."""
    wide = bits.itemsize == 8
    high = _U32 if wide else np.uint64(0)
    largest = 1
    for g in range(g0, g1):
        largest = max(largest, offsets[g + 1] - offsets[g])
    keys = np.empty(largest, np.uint64)
    packed = np.empty(largest, np.uint64)
    tmp = np.empty(largest, np.uint64)
    hist = np.empty((4, 256), np.int64)
    for g in range(g0, g1):
        start = offsets[g]
        n = offsets[g + 1] - start
        positives = _gather_keys(order, start, n, bits, sign, gold, keys)
        totals[g, 0] = n - positives
        totals[g, 1] = positives
        for i in range(n):
            packed[i] = ((keys[i] >> high) << _U32) | np.uint64(i)
        _radix_sort(packed, 0, n, tmp, hist)
        if wide:
            _order_ties(packed, keys, tmp, hist, n)
        if order.size:
            for i in range(n):
                sorted_rows[start + i] = order[start + np.int64(packed[i] & _LOW32)]
        else:
            for i in range(n):
                sorted_rows[start + i] = start + np.int64(packed[i] & _LOW32)
        sizes[g] = _distinct(packed, keys, n, wide)


@njit(cache=True)
def _order_ties(packed, keys, tmp, hist, n):
    """Order the runs of ``packed`` (sorted by the high halves of 64-bit keys) by the low halves:
    continuous scores rarely share a high half, so runs are short and a few passes over the rows
    find them; a long run takes a radix sort of its own."""
    i = 0
    while i < n:
        top = packed[i] >> _U32
        j = i + 1
        while j < n and (packed[j] >> _U32) == top:
            j += 1
        if j - i > 1:
            for r in range(i, j):
                at = packed[r] & _LOW32
                packed[r] = ((keys[np.int64(at)] & _LOW32) << _U32) | at
            if j - i <= 16:
                for r in range(i + 1, j):  # insertion sort: stable, cheapest for a few
                    value = packed[r]
                    q = r - 1
                    while q >= i and (packed[q] >> _U32) > (value >> _U32):
                        packed[q + 1] = packed[q]
                        q -= 1
                    packed[q + 1] = value
            else:
                _radix_sort(packed, i, j - i, tmp, hist)
        i = j


@njit(cache=True)
def _distinct(packed, keys, n, wide):
    """Distinct keys among ``keys[packed[:n] & LOW32]``, in sorted order (a 32-bit key is the
    high half of ``packed`` itself)."""
    distinct = 1 if n else 0
    if wide:
        for i in range(1, n):
            distinct += keys[np.int64(packed[i] & _LOW32)] != keys[np.int64(packed[i - 1] & _LOW32)]
    else:
        for i in range(1, n):
            distinct += (packed[i] >> _U32) != (packed[i - 1] >> _U32)
    return distinct


@njit(cache=True)
def _gather_keys(order, start, n, bits, sign, gold, keys):
    """The sort keys of a group's rows into ``keys[:n]``; return its positive rows. The branch
    on ``order`` stays out of the loops: rows read in place vectorise, and that halves the sort."""
    low = ~sign
    positives = 0
    if order.size:
        for i in range(n):
            u = bits[order[start + i]]
            keys[i] = np.uint64(u if u > sign else (low if u == sign else u ^ low))
            positives += gold[order[start + i]] == 1
    else:
        for i in range(n):
            u = bits[start + i]
            keys[i] = np.uint64(u if u > sign else (low if u == sign else u ^ low))
            positives += gold[start + i] == 1
    return positives


@njit(cache=True, parallel=True)
def exact_sweep_groups(order, offsets, out_offsets, gold, score, weight, totals, out_threshold, out_counts):
    """Confusion counts at every distinct score of every group, from rows sorted per group by
    descending score and each group's (negative, positive) totals: after the last row with a
    given score, the counts are those at threshold = that score (score >= t). Weighted totals
    are summed again here in the order ``pos`` and ``neg`` are, so that ``total - pos`` never
    falls below 0. Groups are independent, so they run in parallel."""
    n_groups = offsets.size - 1
    weighted = weight.size > 0
    for g in prange(n_groups):
        start = offsets[g]
        stop = offsets[g + 1]
        total_neg = np.float64(totals[g, 0])
        total_pos = np.float64(totals[g, 1])
        if weighted:
            total_neg = 0.0
            total_pos = 0.0
            for i in range(start, stop):
                if gold[order[i]] == 1:
                    total_pos += weight[order[i]]
                else:
                    total_neg += weight[order[i]]
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
                out_threshold[o] = score[r]
                out_counts[o, 1, 1] = pos
                out_counts[o, 0, 1] = neg
                out_counts[o, 1, 0] = total_pos - pos
                out_counts[o, 0, 0] = total_neg - neg
                o += 1
