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
first row (:func:`_run`, one comparison a row) have their group decoded and checked once; a
run's binary gold and predictions held as bitmaps are counted by popcounts; its items are
checked for duplicates a 64-bit word at a time, or as a whole when they repeat the items of the
topic's last run (:func:`_new_keys`). Rows in any order are counted all the same, a run of one
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
from numba.extending import intrinsic, overload

from .. import _threads

GROUP_A, GROUP_B, GOLD, VALUE, WEIGHT = 0, 1, 2, 3, 4
N_KINDS = 5
# the item arguments of the counting kernels when items are not checked in their pass: no item
# column, no bitmap, no templates (see _new_keys)
NO_MARKS = (None, 0, np.zeros(0, np.uint8), np.zeros((0, 0, 3), np.int64), np.zeros((0, 0, 0), np.uint64))


def _chunks(n: int, n_chunks: int) -> list:
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
def _note(err, kind, r):
    if err[kind] < 0:
        err[kind] = r


@njit(cache=True)
def _row_codes(a, b, stride_a, gold, r, err):
    """(group, gold class) of row r, or (-1, -1) after noting which column was bad."""
    ga = code_of(a, r)
    gb = code_of(b, r)
    i = code_of(gold, r)
    if ga < 0:
        _note(err, GROUP_A, r)
    elif gb < 0:
        _note(err, GROUP_B, r)
    elif i < 0:
        _note(err, GOLD, r)
    else:
        return ga * stride_a + gb, i
    return np.int64(-1), np.int64(-1)


@njit(cache=True, inline="always")
def _weight_ok(weight, r, err):
    w = weight[r]
    if w >= 0.0 and w < np.inf:  # weight 0: the row's labels are classes, it adds nothing
        return True
    _note(err, WEIGHT, r)
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
def _run(a, b, stride_a, s, stop, err):
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
        _note(err, GROUP_A, s)
    elif gb < 0:
        _note(err, GROUP_B, s)
    else:
        return e, ga * stride_a + gb
    return e, np.int64(-1)


@njit(cache=True, inline="always")
def _new_keys(item, n_items, words, g, slot, s, e, templates, patterns, err):
    """Mark the keys ``g * n_items + item`` of rows ``s:e`` (one group) in the bitmap ``words``;
    False when one was marked before (a duplicated item) or an item is outside the plan (noted).

    Items repeat across the systems of a topic: a run whose stored items are those of the last
    run of its ``slot`` (the code of the second grouping column: the topic) in this chunk -- a
    *template*, whose keys were marked one by one, so its items are distinct and valid -- ORs
    the template's item set into its own bits a word at a time (:func:`_or_pattern`); the set is
    built once a template (:func:`_pattern`). Otherwise a run's keys are gathered a 64-bit word
    at a time and each word ORed in once. Every OR is atomic (another thread may mark the same
    word), and a bit it finds already set is a duplicate, so two threads cannot both take one
    key for new. ``item`` None: compiled without marking; ``templates`` empty: no templates.
    """
    if item is None:
        return True
    if templates.shape[0]:
        first, last = templates[slot, 0], templates[slot, 1]
        if last - first == e - s and _same_items(item, first, s, e - s):
            if templates[slot, 2] == 0:
                _pattern(item, first, last, patterns[slot])
                templates[slot, 2] = 1
            return _or_pattern(words, g * n_items, patterns[slot])
        templates[slot, 0] = s
        templates[slot, 1] = e
        templates[slot, 2] = 0
    base = g * n_items
    word = np.int64(-1)
    gathered = np.uint64(0)
    for r in range(s, e):
        i = code_of(item, r)
        if i < 0:
            _note(err, VALUE, r)
            return False
        key = base + i
        bit = np.uint64(1) << np.uint64(key & 63)
        if key >> 6 != word:
            if word >= 0 and _atomic_or(words, word, gathered) & gathered:
                return False
            word = key >> 6
            gathered = np.uint64(0)
        if gathered & bit:
            return False
        gathered |= bit
    return not (word >= 0 and _atomic_or(words, word, gathered) & gathered)


@njit(cache=True, inline="always")
def _same_items(item, first, s, n):
    """Whether rows ``first:first + n`` and ``s:s + n`` store the same items, in order."""
    for k in range(n):
        if raw_of(item, first + k) != raw_of(item, s + k):
            return False
    return True


@njit(cache=True)
def _pattern(item, first, last, pattern):
    """``pattern`` = the set of the item codes of rows ``first:last``, bit ``code`` set."""
    pattern[:] = 0
    for r in range(first, last):
        i = code_of(item, r)
        pattern[i >> 6] |= np.uint64(1) << np.uint64(i & 63)


@njit(cache=True)
def _or_pattern(words, base, pattern):
    """OR ``pattern`` (bit ``c``: item code ``c``) into ``words`` from bit ``base`` on; False
    when one of its bits was set there already."""
    shift = np.uint64(base & 63)
    at = base >> 6
    for k in range(pattern.size):
        bits = pattern[k]
        if bits == 0:
            continue
        low = bits << shift
        if _atomic_or(words, at + k, low) & low:
            return False
        if shift:
            high = bits >> (np.uint64(64) - shift)
            if high and _atomic_or(words, at + k + 1, high) & high:
                return False
    return True


def bit_counts(gold, pred, s, e):
    """``(ok, gold positives, predicted positives, both)`` of rows ``s:e`` when gold and
    predictions are both bitmaps, counted 8 rows a step; ``ok`` False (and nothing counted)
    for any other forms."""
    raise NotImplementedError("bit_counts is only callable from numba kernels")


@overload(bit_counts)
def _bit_counts(gold, pred, s, e):
    if len(gold) != 2 or len(pred) != 2:
        return lambda gold, pred, s, e: (False, np.int64(0), np.int64(0), np.int64(0))

    def count(gold, pred, s, e):
        x_bits, y_bits = gold[0], pred[0]
        x0, y0 = gold[1] + s, pred[1] + s
        n = e - s
        ones_x = np.int64(0)
        ones_y = np.int64(0)
        both = np.int64(0)
        r = 0
        while r < n and (x0 + r) & 7:  # to a byte boundary of the gold's bitmap
            x = (x_bits[(x0 + r) >> 3] >> ((x0 + r) & 7)) & 1
            y = (y_bits[(y0 + r) >> 3] >> ((y0 + r) & 7)) & 1
            ones_x += x
            ones_y += y
            both += x & y
            r += 1
        shift = (y0 + r) & 7
        while r + 8 <= n:
            x = np.uint32(x_bits[(x0 + r) >> 3])
            at = (y0 + r) >> 3
            y = np.uint32(y_bits[at]) >> shift
            if shift:
                y = (y | (np.uint32(y_bits[at + 1]) << (8 - shift))) & np.uint32(255)
            ones_x += _popcount8(x)
            ones_y += _popcount8(y)
            both += _popcount8(x & y)
            r += 8
        while r < n:
            x = (x_bits[(x0 + r) >> 3] >> ((x0 + r) & 7)) & 1
            y = (y_bits[(y0 + r) >> 3] >> ((y0 + r) & 7)) & 1
            ones_x += x
            ones_y += y
            both += x & y
            r += 1
        return True, ones_x, ones_y, both

    return count


@njit(cache=True, inline="always")
def _popcount8(x):
    x = x - ((x >> 1) & np.uint32(0x55))
    x = (x & np.uint32(0x33)) + ((x >> 2) & np.uint32(0x33))
    return np.int64((x + (x >> 4)) & np.uint32(0x0F))


@njit(cache=True, nogil=True)
def _hard_chunk(start, stop, a, b, stride_a, gold, pred, weight, item, n_items, seen, templates, patterns, p, err):
    """Count rows ``start:stop`` (see :func:`hard_batch`) a run of one group at a time; False
    when a row's item key was marked before, at which the chunk stops. Binary gold and
    predictions held as bitmaps are counted by popcounts, 8 rows a step."""
    m = np.uint64(p.shape[1])
    flat = p.reshape(-1)  # unsigned flat indices: no negative-index wraparound code per row
    words = seen.view(np.uint64)
    s = start
    while s < stop:
        e, g = _run(a, b, stride_a, s, stop, err)
        if g >= 0:
            if not _new_keys(item, n_items, words, g, g % stride_a, s, e, templates, patterns, err):
                return False
            base = np.uint64(g) * m
            bits, ones_x, ones_y, both = bit_counts(gold, pred, s, e)
            if weight is None and bits:  # compiled without this branch for other forms
                flat[(base + 1) * m + 1] += both
                flat[(base + 1) * m] += ones_x - both
                flat[base * m + 1] += ones_y - both
                flat[base * m] += (e - s) - ones_x - ones_y + both
            else:
                for r in range(s, e):
                    i = code_of(gold, r)
                    j = code_of(pred, r)
                    cell = (base + np.uint64(i)) * m + np.uint64(j)
                    if i < 0:
                        _note(err, GOLD, r)
                    elif j < 0:
                        _note(err, VALUE, r)
                    elif weight is None:
                        flat[cell] += 1
                    elif _weight_ok(weight, r, err):
                        flat[cell] += weight[r]
        s = e
    return True


def hard_batch(n, a, b, stride_a, gold, pred, weight, item, n_items, seen, templates, patterns, partial, errors):
    """partial[c, g, i, j] += rows (or weight) of group g with gold class i and predicted class
    j. Rows are split in one chunk per partial array; each chunk counts into its own, and the
    partials are summed once, after the last batch. With an ``item`` column (see :func:`_new_keys`)
    each row's item is checked in the same pass; returns whether every key was new (False: the
    caller finds the first duplicate with :func:`mark_items` from its copy of the bitmap).
    ``templates`` and ``patterns``: a chunk's scratch of :func:`_new_keys` each (see
    :func:`item_scratch`), or empty."""
    calls = [
        (lo, hi, a, b, stride_a, gold, pred, weight, item, n_items, seen, *_scratch_of(templates, patterns, c))
        + (partial[c], errors[c])
        for c, (lo, hi) in enumerate(_chunks(n, partial.shape[0]))
    ]
    return all(_threads.on_threads(_hard_chunk, calls))


def item_scratch(chunks: int, slots: int, n_items: int, budget: int = 1 << 22):
    """``(templates, patterns)``: each chunk's template runs (start, stop, whether the pattern is
    built) per slot, all unset, and the item sets of their patterns (see :func:`_new_keys`);
    empty when the patterns would take more than ``budget`` bytes a chunk."""
    n_words = (n_items + 63) // 64
    if slots * n_words * 8 > budget:
        return NO_MARKS[3], NO_MARKS[4]
    return np.full((chunks, slots, 3), -1, np.int64), np.empty((chunks, slots, n_words), np.uint64)


_NO_TEMPLATES = (np.zeros((0, 3), np.int64), np.zeros((0, 0), np.uint64))


def _scratch_of(templates, patterns, c):
    """Chunk ``c``'s templates and patterns (both empty where there are none)."""
    if templates.shape[0] == 0:
        return _NO_TEMPLATES
    return templates[c], patterns[c]


@njit(cache=True, nogil=True)
def _sweep_rows(gold, score, weight, start, stop, hist, thresholds, guide, cells, lo, inv_step, err):
    """hist[gold class, bucket] += 1 (or the weight) for rows ``start:stop`` of one group.

    A multiplication finds the score's cell of a fine even grid and one load of ``guide``
    (:func:`~fastmetrics.count.grid.bucket_guide`) its bucket; only a score in a cell that a
    threshold splits walks up the thresholds from the cell's first bucket, so ties count as
    positive (score >= t). A call a group's run, not inlined: the loop keeps its few values in
    registers, where the whole kernel's spill to the stack.
    """
    k = thresholds.size
    for r in range(start, stop):
        i = code_of(gold, r)
        s = np.float64(score[np.uint64(r)])
        if i < 0 or not (s > -np.inf and s < np.inf):
            _note(err, GOLD if i < 0 else VALUE, r)
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
        elif _weight_ok(weight, r, err):
            hist[i, bucket] += weight[r]


@njit(cache=True, nogil=True)
def _sweep_chunk(
    start,
    stop,
    a,
    b,
    stride_a,
    gold,
    score,
    weight,
    item,
    n_items,
    seen,
    templates,
    patterns,
    thresholds,
    guide,
    cells,
    lo,
    inv_step,
    p,
    err,
):
    """Histogram rows ``start:stop`` by the number of thresholds <= score (0 ... k), a run of
    one group at a time (:func:`_run`, :func:`_sweep_rows`)."""
    words = seen.view(np.uint64)
    r = start
    while r < stop:
        run_end, g = _run(a, b, stride_a, r, stop, err)
        if g >= 0:
            if not _new_keys(item, n_items, words, g, g % stride_a, r, run_end, templates, patterns, err):
                return False
            _sweep_rows(gold, score, weight, r, run_end, p[g], thresholds, guide, cells, lo, inv_step, err)
        r = run_end
    return True


def sweep_batch(
    n,
    a,
    b,
    stride_a,
    gold,
    score,
    weight,
    item,
    n_items,
    seen,
    templates,
    patterns,
    thresholds,
    guide,
    cells,
    lo,
    inv_step,
    partial,
    errors,
):
    """partial[c, g, i, k] += rows of group g with gold class i whose score passes exactly the k
    lowest thresholds; cumulative sums of this histogram give the counts at every threshold.
    ``item``, ``n_items``, ``seen``, ``templates``, ``patterns``: as :func:`hard_batch`'s."""
    grid = (thresholds, guide, cells, lo, inv_step)
    calls = [
        (start, stop, a, b, stride_a, gold, score, weight, item, n_items, seen, *_scratch_of(templates, patterns, c))
        + (*grid, partial[c], errors[c])
        for c, (start, stop) in enumerate(_chunks(n, partial.shape[0]))
    ]
    return all(_threads.on_threads(_sweep_chunk, calls))


@njit(cache=True, nogil=True)
def _rows_chunk(start, stop, a, b, stride_a, gold, pred, group_out, gold_out, pred_out, err):
    for r in range(start, stop):
        g, i = _row_codes(a, b, stride_a, gold, r, err)
        group_out[r] = g
        gold_out[r] = i
        if pred_out.size:
            j = code_of(pred, r)
            if j < 0:
                _note(err, VALUE, r)
            pred_out[r] = j


def rows_batch(n, a, b, stride_a, gold, pred, group_out, gold_out, pred_out, errors):
    """The codes themselves, for jobs that need the rows (exact sweeps, split halves, joins):
    group_out[r], gold_out[r] and (unless ``pred_out`` is empty) pred_out[r]."""
    calls = [
        (lo, hi, a, b, stride_a, gold, pred, group_out, gold_out, pred_out, errors[c])
        for c, (lo, hi) in enumerate(_chunks(n, errors.shape[0]))
    ]
    _threads.on_threads(_rows_chunk, calls)


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
                _note(errors[c], VALUE, r)
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


@njit(cache=True, inline="always")
def _mark(seen, key):
    """Set bit ``key``; False when it was set already (the key was seen before)."""
    byte = key >> 3
    bit = np.uint8(1 << (key & 7))
    if seen[byte] & bit:
        return False
    seen[byte] |= bit
    return True


@njit(cache=True)
def mark_items(n, a, b, stride_a, gold, item, n_items, seen, keys, err):
    """Mark key (group, item) of every row in the bitmap ``seen``; return the first row whose
    key was already marked -- a duplicated item, in this batch or an earlier one -- or -1.
    With an empty ``seen`` (a key space too large for a bitmap) write the keys to ``keys`` for a
    check by sorting instead. Serial: two threads setting bits of one byte would lose a mark
    (:func:`mark_items_threads` marks with atomic ORs).
    (``gold`` is read as the counting kernels read it, so both share one compiled ``_row_codes``.)"""
    return _mark_range(0, n, a, b, stride_a, gold, item, n_items, seen, keys, err)


@njit(cache=True, nogil=True)
def _mark_range(start, stop, a, b, stride_a, gold, item, n_items, seen, keys, err):
    for r in range(start, stop):
        g, _ = _row_codes(a, b, stride_a, gold, r, err)
        i = code_of(item, r)
        if g < 0:
            return -1
        if i < 0:
            _note(err, VALUE, r)
            return -1
        if seen.size == 0:
            keys[r] = g * n_items + i
        elif not _mark(seen, g * n_items + i):
            return r
    return -1


@intrinsic
def _atomic_or(typingctx, array, index, value):
    """``array[index] |= value`` as one atomic operation; returns the value it held before."""
    signature = array.dtype(array, types.int64, array.dtype)

    def codegen(context, builder, signature, args):
        data = context.make_array(signature.args[0])(context, builder, args[0])
        return builder.atomic_rmw("or", builder.gep(data.data, [args[1]]), args[2], "monotonic")

    return signature, codegen


@njit(cache=True, nogil=True)
def _mark_shared_range(start, stop, a, b, stride_a, gold, item, n_items, seen, err):
    for r in range(start, stop):
        g, _ = _row_codes(a, b, stride_a, gold, r, err)
        i = code_of(item, r)
        if g < 0:
            return False
        if i < 0:
            _note(err, VALUE, r)
            return False
        key = g * n_items + i
        bit = np.uint8(1 << (key & 7))
        if _atomic_or(seen, key >> 3, bit) & bit:
            return False
    return True


def mark_items_threads(n, a, b, stride_a, gold, item, n_items, seen, errors):
    """:func:`mark_items` on one chunk of rows per thread, all marking the one bitmap ``seen``
    with atomic ORs (a byte's bits may belong to two threads' keys). Returns whether every key
    was new; when one was not, ``seen`` holds some of the batch's marks, and the caller puts
    back its copy from before the batch for :func:`mark_items` to find the first duplicated row."""
    calls = [
        (lo, hi, a, b, stride_a, gold, item, n_items, seen, errors[c])
        for c, (lo, hi) in enumerate(_chunks(n, errors.shape[0]))
    ]
    return all(_threads.on_threads(_mark_shared_range, calls)) and errors.max() < 0


@njit(cache=True)
def join_gold(
    n, a, b, stride_a, item, topic_stride, n_topics, dense, keys, key_rows, n_items, seen, n_gold, gold_rows, err
):
    """Join each row to its gold row and mark (run, gold row) seen; return the first row seen
    before (a duplicated item) or -1. ``gold_rows[r]`` = -1 when the gold lacks the row.

    The topic code is a digit of the group code (``topic_stride``; 0 when the join is on the
    item alone); a run is the group code without that digit. The gold is looked up in a dense
    (topic, item) table when it is small, else by binary search over its sorted keys."""
    for r in range(n):
        g, _ = _row_codes(a, b, stride_a, (0,), r, err)
        i = code_of(item, r)
        if g < 0:
            return -1
        gold_rows[r] = -1
        if i < 0:
            continue
        t = (g // topic_stride) % n_topics if topic_stride > 0 else 0
        key = t * n_items + i
        if dense.size:
            row = np.int64(dense[key])
        else:
            low = np.searchsorted(keys, key)
            row = np.int64(key_rows[low]) if low < keys.size and keys[low] == key else np.int64(-1)
        gold_rows[r] = row
        if row < 0 or seen.size == 0:
            continue
        run = (g // (topic_stride * n_topics)) * topic_stride + g % topic_stride if topic_stride > 0 else g
        if not _mark(seen, run * n_gold + row):
            return r
    return -1


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
    the GIL): a numba ``parallel`` loop around it took 2 s to compile on every first call."""
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


@njit(cache=True, nogil=True)
def topic_item_keys(group, items, t_stride, n_topics, n_keys):
    """``topic * n_keys + items``, the topic the digit of ``group`` at ``t_stride`` (none when 0):
    an item's key among the items of every topic, in one pass (numpy's four made three
    temporaries of every row)."""
    out = np.empty(group.size, np.int64)
    for k in range(group.size):
        topic = (group[k] // t_stride) % n_topics if t_stride else 0
        out[k] = topic * n_keys + items[k]
    return out
