"""Numba kernels of hard predictions: each chunk of rows counted by runs of one group, binary gold
and predictions held as bitmaps counted by popcounts, a run's items checked for duplicates a
64-bit word at a time (or as a whole when they repeat the topic's last run)."""

from __future__ import annotations

import numpy as np
from numba import njit
from numba.extending import overload

from .. import _threads
from ._codes import GOLD, NO_MARKS, VALUE, chunk_bounds, code_of, note_error, raw_of, run_of, weight_ok
from ._marks import atomic_or


@njit(cache=True, inline="always")
def new_keys(item, n_items, words, g, slot, s, e, templates, patterns, err):
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
            note_error(err, VALUE, r)
            return False
        key = base + i
        bit = np.uint64(1) << np.uint64(key & 63)
        if key >> 6 != word:
            if word >= 0 and atomic_or(words, word, gathered) & gathered:
                return False
            word = key >> 6
            gathered = np.uint64(0)
        if gathered & bit:
            return False
        gathered |= bit
    return not (word >= 0 and atomic_or(words, word, gathered) & gathered)


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
        if atomic_or(words, at + k, low) & low:
            return False
        if shift:
            high = bits >> (np.uint64(64) - shift)
            if high and atomic_or(words, at + k + 1, high) & high:
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
def hard_chunk(start, stop, a, b, stride_a, gold, pred, weight, item, keys, p, err):
    """Count rows ``start:stop`` (see :func:`hard_batch`) a run of one group at a time; False
    when a row's item key was marked before, at which the chunk stops. Binary gold and
    predictions held as bitmaps are counted by popcounts, 8 rows a step. ``item`` and ``keys``:
    the chunk's item marks (:func:`chunk_marks`)."""
    n_items, seen, templates, patterns = keys
    m = np.uint64(p.shape[1])
    flat = p.reshape(-1)  # unsigned flat indices: no negative-index wraparound code per row
    words = seen.view(np.uint64)
    s = start
    while s < stop:
        e, g = run_of(a, b, stride_a, s, stop, err)
        if g >= 0:
            if not new_keys(item, n_items, words, g, g % stride_a, s, e, templates, patterns, err):
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
                        note_error(err, GOLD, r)
                    elif j < 0:
                        note_error(err, VALUE, r)
                    elif weight is None:
                        flat[cell] += 1
                    elif weight_ok(weight, r, err):
                        flat[cell] += weight[r]
        s = e
    return True


def hard_batch(n, a, b, stride_a, gold, pred, weight, marks, partial, errors):
    """partial[c, g, i, j] += rows (or weight) of group g with gold class i and predicted class
    j. Rows are split in one chunk per partial array; each chunk counts into its own, and the
    partials are summed once, after the last batch. With an ``item`` column (see :func:`new_keys`)
    each row's item is checked in the same pass; returns whether every key was new (False: the
    caller finds the first duplicate with :func:`mark_items` from its copy of the bitmap).
    ``marks``: ``(item, n_items, seen, templates, patterns)``, the last two a chunk's scratch of
    :func:`new_keys` each (see :func:`item_scratch`), or empty."""
    calls = [
        (lo, hi, a, b, stride_a, gold, pred, weight, *chunk_marks(marks, c), partial[c], errors[c])
        for c, (lo, hi) in enumerate(chunk_bounds(n, partial.shape[0]))
    ]
    return all(_threads.on_threads(hard_chunk, calls))


def item_scratch(chunks: int, slots: int, n_items: int, budget: int = 1 << 22):
    """``(templates, patterns)``: each chunk's template runs (start, stop, whether the pattern is
    built) per slot, all unset, and the item sets of their patterns (see :func:`new_keys`);
    empty when the patterns would take more than ``budget`` bytes a chunk."""
    n_words = (n_items + 63) // 64
    if slots * n_words * 8 > budget:
        return NO_MARKS[3], NO_MARKS[4]
    return np.full((chunks, slots, 3), -1, np.int64), np.empty((chunks, slots, n_words), np.uint64)


_NO_TEMPLATES = (np.zeros((0, 3), np.int64), np.zeros((0, 0), np.uint64))


def chunk_marks(marks, c):
    """Chunk ``c``'s item marks: ``(item, (n_items, seen, templates, patterns))``, its own templates
    and patterns (both empty where there are none).

    The keys travel to the kernels as one tuple, passed by value and unpacked once a chunk. The
    item column stays an argument of its own: a None there is what lets numba compile the
    kernels without the marking code (it prunes ``item is None`` on arguments only)."""
    item, n_items, seen, templates, patterns = marks
    if templates.shape[0] == 0:
        return item, (n_items, seen) + _NO_TEMPLATES
    return item, (n_items, seen, templates[c], patterns[c])
