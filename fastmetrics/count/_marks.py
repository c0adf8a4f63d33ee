"""Numba kernels of item marks: which (topic, item) keys a run or a gold holds, in bitmaps shared by
the threads (an atomic or), and the join of runs to a separate gold by those keys."""

from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.extending import intrinsic

from .. import _threads
from ._codes import VALUE, chunk_bounds, code_of, note_error, row_codes


@njit(cache=True, inline="always")
def mark_key(seen, key):
    """Set bit ``key``; False when it was set already (the key was seen before)."""
    byte = key >> 3
    bit = np.uint8(1 << (key & 7))
    if seen[byte] & bit:
        return False
    seen[byte] |= bit
    return True


@njit(cache=True, nogil=True)
def unmarked(seen, n_rows, n_cols):
    """``(rows, cols)`` of the bits of ``seen`` not set among the first ``n_rows * n_cols`` (bit
    ``row * n_cols + col``), in order, as int64: bytes whose bits are all set, as in a run that
    holds every gold item, are passed over a byte at a time instead of unpacked."""
    n = np.int64(n_rows) * np.int64(n_cols)
    full = n >> 3
    lacking = 0
    for at in range(full):
        if seen[at] != 0xFF:
            for bit in range(8):
                lacking += (seen[at] >> bit) & 1 == 0
    for key in range(full << 3, n):
        lacking += (seen[key >> 3] >> (key & 7)) & 1 == 0
    rows, cols = np.empty(lacking, np.int64), np.empty(lacking, np.int64)
    k = 0
    for at in range((n + 7) >> 3):
        if seen[at] == 0xFF and at < full:
            continue
        for bit in range(8):
            key = (np.int64(at) << 3) + bit
            if key < n and (seen[at] >> bit) & 1 == 0:
                rows[k], cols[k] = key // n_cols, key % n_cols
                k += 1
    return rows, cols


@njit(cache=True)
def mark_items(n, a, b, stride_a, gold, item, n_items, seen, keys, err):
    """Mark key (group, item) of every row in the bitmap ``seen``; return the first row whose
    key was already marked -- a duplicated item, in this batch or an earlier one -- or -1.
    With an empty ``seen`` (a key space too large for a bitmap) write the keys to ``keys`` for a
    check by sorting instead. Serial: two threads setting bits of one byte would lose a mark
    (:func:`mark_items_threads` marks with atomic ORs).
    (``gold`` is read as the counting kernels read it, so both share one compiled ``row_codes``.)"""
    return _mark_range(0, n, a, b, stride_a, gold, item, n_items, seen, keys, err)


@njit(cache=True, nogil=True)
def _mark_range(start, stop, a, b, stride_a, gold, item, n_items, seen, keys, err):
    for r in range(start, stop):
        g, _ = row_codes(a, b, stride_a, gold, r, err)
        i = code_of(item, r)
        if g < 0:
            return -1
        if i < 0:
            note_error(err, VALUE, r)
            return -1
        if seen.size == 0:
            keys[r] = g * n_items + i
        elif not mark_key(seen, g * n_items + i):
            return r
    return -1


@intrinsic
def atomic_or(typingctx, array, index, value):
    """``array[index] |= value`` as one atomic operation; returns the value it held before."""
    signature = array.dtype(array, types.int64, array.dtype)

    def codegen(context, builder, signature, args):
        data = context.make_array(signature.args[0])(context, builder, args[0])
        return builder.atomic_rmw("or", builder.gep(data.data, [args[1]]), args[2], "monotonic")

    return signature, codegen


@njit(cache=True, nogil=True)
def _mark_shared_range(start, stop, a, b, stride_a, gold, item, n_items, seen, err):
    for r in range(start, stop):
        g, _ = row_codes(a, b, stride_a, gold, r, err)
        i = code_of(item, r)
        if g < 0:
            return False
        if i < 0:
            note_error(err, VALUE, r)
            return False
        key = g * n_items + i
        bit = np.uint8(1 << (key & 7))
        if atomic_or(seen, key >> 3, bit) & bit:
            return False
    return True


def mark_items_threads(n, a, b, stride_a, gold, item, n_items, seen, errors):
    """:func:`mark_items` on one chunk of rows per thread, all marking the one bitmap ``seen``
    with atomic ORs (a byte's bits may belong to two threads' keys). Returns whether every key
    was new; when one was not, ``seen`` holds some of the batch's marks, and the caller puts
    back its copy from before the batch for :func:`mark_items` to find the first duplicated row."""
    calls = [
        (lo, hi, a, b, stride_a, gold, item, n_items, seen, errors[c])
        for c, (lo, hi) in enumerate(chunk_bounds(n, errors.shape[0]))
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
        g, _ = row_codes(a, b, stride_a, (0,), r, err)
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
        if not mark_key(seen, run * n_gold + row):
            return r
    return -1


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
