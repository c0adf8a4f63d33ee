"""Numba counting kernels. Private: arrays in, arrays out; bad rows are reported, never written.

A column reaches a kernel *encoded* as a small tuple (see :func:`code_of` and
:mod:`fastmetrics.count.encoders`) and :func:`code_of` turns row ``r`` into its integer code, or -1
when the value is outside the plan. So reading Arrow's buffers, validating and counting are one
pass: no intermediate code arrays, no per-row Python. A row with a bad value is skipped and its
index recorded in ``errors[chunk, kind]`` (kinds: 0/1 grouping columns, 2 gold, 3 prediction or
score, 4 weight); the caller turns the first one into a message. No index can leave its array:
every code is range-checked before use and every bucket is clamped to ``[0, k]``.

Rows usually come grouped (a run's topics one after the other, a topic's items together), so
the counting kernels walk *runs*: rows whose grouping columns store the values of the run's
first row (:func:`run_of`, one comparison a row) have their group decoded and checked once; a
run's binary gold and predictions held as bitmaps are counted by popcounts; its items are
checked for duplicates a 64-bit word at a time, or as a whole when they repeat the items of the
topic's last run (:func:`new_keys`). Rows in any order are counted all the same, a run of one
row at a time.

The batch functions count one chunk of rows a thread into per-chunk partial arrays and sum
them at the end, so both cores count without atomics (only the item bitmap is shared) and the
result does not depend on the thread count. The chunk kernels release the GIL and run on Python threads
(:func:`fastmetrics._threads.on_threads`) rather than in a ``prange``: a parallel kernel is
compiled anew for every combination of its columns' forms, at several times the cost of the
serial one, and a batch of a few rows calls that same serial kernel. Counts are additive:
callers call a kernel once per record batch and add.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange, types
from numba.extending import overload

from .. import _threads

GROUP_A, GROUP_B, GOLD, VALUE, WEIGHT = 0, 1, 2, 3, 4


N_KINDS = 5


# the item arguments of the counting kernels when items are not checked in their pass: no item
# column, no bitmap, no templates (see new_keys)
NO_MARKS = (None, 0, np.zeros(0, np.uint8), np.zeros((0, 0, 3), np.int64), np.zeros((0, 0, 0), np.uint64))


def chunk_bounds(n: int, n_chunks: int) -> list:
    """``(start, stop)`` of ``n_chunks`` near-equal chunks of ``n`` rows, one a thread."""
    size = (n + n_chunks - 1) // max(n_chunks, 1)
    return [(c * size, min(n, (c + 1) * size)) for c in range(n_chunks)]


def code_of(col, r):
    """Code of row ``r`` of an encoded column, -1 when the value is outside the plan.

    The column's form is part of its numba type, so each kernel is compiled for the forms it
    meets and no row pays for a branch on the form:

    - ``(0,)``: absent axis, code 0;
    - ``(bitmap, bit_offset)``: a boolean column, code = the bit;
    - ``(values, lo, size)``: integers over a contiguous range, code = value - lo;
    - ``(values, lut, lo)``: a table over the values' range (or a dictionary's indices).

    Rows are indexed unsigned: numba wraps a signed index that might be negative, which costs
    instructions on every row and turns a vectorised loop's loads into gathers.
    """
    raise NotImplementedError("code_of is only callable from numba kernels")


@overload(code_of)
def _code_of(col, r):
    if len(col) == 1:
        return lambda col, r: np.int64(0)
    if len(col) == 2:

        def bit(col, r):
            b = np.uint64(col[1] + r)
            return np.int64((col[0][b >> np.uint64(3)] >> (b & np.uint64(7))) & np.uint8(1))

        return bit
    if isinstance(col[1], types.Array):

        def lookup(col, r):
            # one unsigned comparison checks both ends of the range
            i = np.uint64(np.int64(col[0][np.uint64(r)]) - col[2])
            return np.int64(col[1][i]) if i < np.uint64(col[1].size) else np.int64(-1)

        return lookup

    def offset(col, r):
        i = np.uint64(np.int64(col[0][np.uint64(r)]) - col[1])
        return np.int64(i) if i < np.uint64(col[2]) else np.int64(-1)

    return offset


@njit(cache=True, inline="always")
def note_error(err, kind, r):
    if err[kind] < 0:
        err[kind] = r


@njit(cache=True)
def row_codes(a, b, stride_a, gold, r, err):
    """(group, gold class) of row r, or (-1, -1) after noting which column was bad."""
    ga = code_of(a, r)
    gb = code_of(b, r)
    i = code_of(gold, r)
    if ga < 0:
        note_error(err, GROUP_A, r)
    elif gb < 0:
        note_error(err, GROUP_B, r)
    elif i < 0:
        note_error(err, GOLD, r)
    else:
        return ga * stride_a + gb, i
    return np.int64(-1), np.int64(-1)


@njit(cache=True, inline="always")
def weight_ok(weight, r, err):
    w = weight[r]
    if w >= 0.0 and w < np.inf:  # weight 0: the row's labels are classes, it adds nothing
        return True
    note_error(err, WEIGHT, r)
    return False


def raw_of(col, r):
    """The stored value of row ``r`` of an encoded column (before any table): equal stored
    values have equal codes, so a run of them is decoded and checked once."""
    raise NotImplementedError("raw_of is only callable from numba kernels")


@overload(raw_of)
def _raw_of(col, r):
    if len(col) == 1:
        return lambda col, r: np.int64(0)
    if len(col) == 2:
        return lambda col, r: code_of(col, r)
    return lambda col, r: np.int64(col[0][np.uint64(r)])


@njit(cache=True, inline="always")
def run_of(a, b, stride_a, s, stop, err):
    """``(end, group)`` of the run of rows from ``s`` whose grouping columns hold the stored
    values of row ``s`` (rows usually come grouped: one decode a run, not a row); group -1 after
    noting the bad column at row ``s`` -- the first bad row, as every row of the run is bad."""
    va = raw_of(a, s)
    vb = raw_of(b, s)
    e = s + 1
    while e < stop and raw_of(a, e) == va and raw_of(b, e) == vb:
        e += 1
    ga = code_of(a, s)
    gb = code_of(b, s)
    if ga < 0:
        note_error(err, GROUP_A, s)
    elif gb < 0:
        note_error(err, GROUP_B, s)
    else:
        return e, ga * stride_a + gb
    return e, np.int64(-1)


@njit(cache=True, nogil=True)
def rows_chunk(start, stop, a, b, stride_a, gold, pred, group_out, gold_out, pred_out, err):
    for r in range(start, stop):
        g, i = row_codes(a, b, stride_a, gold, r, err)
        group_out[r] = g
        gold_out[r] = i
        if pred_out.size:
            j = code_of(pred, r)
            if j < 0:
                note_error(err, VALUE, r)
            pred_out[r] = j


def rows_batch(n, a, b, stride_a, gold, pred, group_out, gold_out, pred_out, errors):
    """The codes themselves, for jobs that need the rows (exact sweeps, split halves, joins):
    group_out[r], gold_out[r] and (unless ``pred_out`` is empty) pred_out[r]."""
    calls = [
        (lo, hi, a, b, stride_a, gold, pred, group_out, gold_out, pred_out, errors[c])
        for c, (lo, hi) in enumerate(chunk_bounds(n, errors.shape[0]))
    ]
    _threads.on_threads(rows_chunk, calls)


@njit(cache=True, parallel=True)
def check_scores(score, errors):
    """Note the first non-finite score (a sweep needs finite scores) and return the range."""
    n = score.size
    n_chunks = errors.shape[0]
    chunk = (n + n_chunks - 1) // max(n_chunks, 1)
    lows = np.full(n_chunks, np.inf)
    highs = np.full(n_chunks, -np.inf)
    for c in prange(n_chunks):
        low = np.inf
        high = -np.inf
        for r in range(c * chunk, min(n, (c + 1) * chunk)):
            s = np.float64(score[r])
            if not (s > -np.inf and s < np.inf):
                note_error(errors[c], VALUE, r)
                continue
            low = min(low, s)
            high = max(high, s)
        lows[c] = low
        highs[c] = high
    return lows.min(), highs.max()


@njit(cache=True)
def int_range(values):
    """(min, max) of an integer array with at least one value."""
    low = values[0]
    high = values[0]
    for v in values:
        if v < low:
            low = v
        elif v > high:
            high = v
    return np.int64(low), np.int64(high)


@njit(cache=True, nogil=True)
def mark_present(values, lo, present):
    """present[v - lo] = True for every value (the distinct values of an integer column). A
    value equal to the one before is not stored again: grouped columns are mostly repeats."""
    if values.size == 0:
        return
    last = values[0]
    present[np.int64(last) - lo] = True
    for v in values:
        if v != last:
            present[np.int64(v) - lo] = True
            last = v


def run_codes(group, stride, n_topics):
    """A group code (or an array of them) with its topic digit removed: the run (system and other
    axes) it belongs to; the code itself where no topic is in it (``stride == 0``)."""
    if stride == 0:
        return group
    return (group // (stride * n_topics)) * stride + group % stride
