"""The rows of a binary hard-label input as item bit masks, for split halves (Steingold & Laclavík n.d., §5).

A group's rows are one bit an item of its topic in three masks: the items it has, those whose
gold is class 1 and those it predicts class 1. Read in the pass that counts (beside
:class:`~fastmetrics.count.tally.Tally`, which checks every row), they take 24 bits an item
of a group where the kept rows took about 30 bytes a row. A half's counts are then popcounts:
with ``H`` the half's item mask (:func:`fastmetrics.count.draws.half_masks`),

    c11 = |gold & pred & H|, c10 = |gold & H| - c11, c01 = |pred & H| - c11,
    c00 = |present & H| - c11 - c10 - c01

for cells ``c_ij`` (gold ``i``, predicted ``j``) -- 64 items a word, and a vector of words for as
many replicates at once.

While reading, an item's bit is its code (:attr:`CountPlan.item`); afterwards each topic's
items -- those some group of the topic has -- are renumbered by their place among them, in the
order of their codes: the places the halves are drawn on (:mod:`fastmetrics.count.draws`).
"""

from __future__ import annotations

import numpy as np
from numba import njit, uint64
from numba.extending import overload

from .._threads import on_threads, thread_count
from ._codes import N_KINDS, chunk_bounds, code_of, run_of
from ._marks import atomic_or
from .draws import half_masks, popcount
from .encoders import ABSENT_COLUMN

# the masks' bytes may reach this, or 16 bytes a row of the input if more (the kept rows: ~30)
_BUDGET = 1 << 26
_BYTES_A_ROW = 16


@njit(cache=True, inline="always")
def _or_word(words, at, present, gold, pred):
    """``words[k, at] |= ...`` for the three masks, atomically (a group may span two threads'
    chunks of rows)."""
    if present:
        atomic_or(words[0], at, present)
    if gold:
        atomic_or(words[1], at, gold)
    if pred:
        atomic_or(words[2], at, pred)


def _bit_runs(gold, pred, s, n, gold_words, pred_words):
    """Whether gold and predictions are both bitmaps; if so, their bits of rows ``s:s + n`` as
    words (bit ``j`` of word ``w``: row ``s + 64 w + j``). Compiled for each pair of column forms."""
    raise NotImplementedError("_bit_runs is only callable from numba kernels")


@njit(cache=True, inline="always")
def _bits64(bitmap, at, count):
    """``count <= 64`` bits of ``bitmap`` (bytes, least significant bit first) from bit ``at``."""
    first, shift = at >> 3, at & 7
    size = (shift + count + 7) >> 3  # bytes holding them: at most 9
    x = uint64(0)
    for q in range(min(size, 8)):
        x |= uint64(bitmap[first + q]) << uint64(8 * q)
    x >>= uint64(shift)
    if size == 9:
        x |= uint64(bitmap[first + 8]) << uint64(64 - shift)
    return x if count == 64 else x & ((uint64(1) << uint64(count)) - uint64(1))


@overload(_bit_runs)
def _bit_runs_forms(gold, pred, s, n, gold_words, pred_words):
    if len(gold) != 2 or len(pred) != 2:
        return lambda gold, pred, s, n, gold_words, pred_words: False

    def words(gold, pred, s, n, gold_words, pred_words):
        for w in range((n + 63) // 64):
            count = min(64, n - 64 * w)
            gold_words[w] = _bits64(gold[0], gold[1] + s + 64 * w, count)
            pred_words[w] = _bits64(pred[0], pred[1] + s + 64 * w, count)
        return True

    return words


@njit(cache=True, inline="always")
def _consecutive(item, s, e):
    """Whether rows ``s:e`` hold the item codes ``c, c + 1, ...`` (a topic's rows in item order)."""
    first = code_of(item, s)
    same = True
    for r in range(s + 1, e):
        same &= code_of(item, r) == first + (r - s)
    return same


@njit(cache=True, inline="always")
def _deposit(mask, at, x):
    """OR the 64 bits ``x`` into the bit string ``mask`` from bit ``at`` (atomically)."""
    shift = uint64(at & 63)
    if x:
        atomic_or(mask, at >> 6, x << shift)
        if shift and x >> (uint64(64) - shift):
            atomic_or(mask, (at >> 6) + 1, x >> (uint64(64) - shift))


@njit(cache=True, inline="always")
def _mark_run(s, e, key, gold, pred, item, words, gold_words, pred_words):
    """Set the bits of the run ``s:e`` (one group) whose first item's bit is ``key``: 64 rows a
    step where the items are consecutive codes and gold and predictions bitmaps, else a row at
    a time, a word's bits gathered before they are ORed in."""
    if e - s >= 16 and _bit_runs(gold, pred, s, e - s, gold_words, pred_words) and _consecutive(item, s, e):
        for w in range((e - s + 63) // 64):
            count = min(64, e - s - 64 * w)
            ones = ~uint64(0) if count == 64 else (uint64(1) << uint64(count)) - uint64(1)
            _deposit(words[0], key + 64 * w, ones)
            _deposit(words[1], key + 64 * w, gold_words[w])
            _deposit(words[2], key + 64 * w, pred_words[w])
        return
    base = key - code_of(item, s)
    word = np.int64(-1)
    present = gold_bits = pred_bits = uint64(0)
    for r in range(s, e):
        at = base + code_of(item, r)
        if at >> 6 != word:
            if word >= 0:
                _or_word(words, word, present, gold_bits, pred_bits)
            word = at >> 6
            present = gold_bits = pred_bits = uint64(0)
        bit = uint64(1) << uint64(at & 63)
        present |= bit
        gold_bits |= bit if code_of(gold, r) == 1 else uint64(0)
        pred_bits |= bit if code_of(pred, r) == 1 else uint64(0)
    if word >= 0:
        _or_word(words, word, present, gold_bits, pred_bits)


@njit(cache=True, nogil=True)
def _mark_rows(start, stop, a, b, stride_a, gold, pred, item, width, words, err):
    """Set the bits of rows ``start:stop`` (checked by the tally's pass) in ``words[mask, g *
    width + code // 64]``, a run of one group at a time (:func:`_mark_run`)."""
    gold_words = np.empty(width + 1, np.uint64)
    pred_words = np.empty(width + 1, np.uint64)
    s = start
    while s < stop:
        e, g = run_of(a, b, stride_a, s, stop, err)
        _mark_run(s, e, g * width * 64 + code_of(item, s), gold, pred, item, words, gold_words, pred_words)
        s = e


@njit(cache=True, inline="always")
def _topic_of(g, t_stride, n_topics):
    return (g // t_stride) % n_topics if t_stride else 0


@njit(cache=True)
def _topic_items(present, width, t_stride, n_topics, union):
    """``union[t]``: the items (bits by code) some group of topic ``t`` has."""
    for g in range(present.size // width):
        t = _topic_of(g, t_stride, n_topics)
        for w in range(width):
            union[t, w] |= present[g * width + w]


@njit(cache=True, nogil=True)
def _to_places(words, width, union, moved, t_stride, n_topics, g_lo, g_hi):
    """Renumber the bits of groups ``g_lo:g_hi`` whose topic is ``moved`` from item codes to
    places among ``union[topic]``, in place (a place is never above its code)."""
    scratch = np.zeros(width, np.uint64)
    for g in range(g_lo, g_hi):
        t = _topic_of(g, t_stride, n_topics)
        if not moved[t]:
            continue
        for k in range(words.shape[0]):
            row = words[k, g * width : (g + 1) * width]
            scratch[:] = 0
            p = 0
            for w in range(width):
                u = union[t, w]
                x = row[w]
                while u:
                    low = u & (~u + uint64(1))
                    if x & low:
                        scratch[p >> 6] |= uint64(1) << uint64(p & 63)
                    p += 1
                    u ^= low
            row[:] = scratch


@njit(cache=True, inline="always")
def _add_ones(ones, mask, half):
    """``ones[r] += |mask & half[r]|`` for every replicate ``r`` (int32: twice the lanes of a vector)."""
    for r in range(half.size):
        ones[r] += np.int32(popcount(mask & half[r]))


@njit(cache=True, inline="always")
def _cells(both, gold, pred, present, row):
    """``row[2 i + j]``: the cells from the counts of gold & pred, gold, pred and present
    items; one plain loop a row (numba's slice copies and 2-D rows were not vectorized)."""
    c00, c01, c10, c11 = row[0], row[1], row[2], row[3]
    for r in range(both.size):
        c11[r] = both[r]
    for r in range(both.size):
        c01[r] = pred[r] - both[r]
    for r in range(both.size):
        c10[r] = gold[r] - both[r]
    for r in range(both.size):
        c00[r] = present[r] - gold[r] - pred[r] + both[r]


@njit(cache=True, nogil=True)
def count_halves(words, width, t_stride, n_topics, shared, offsets, halves, g_lo, g_hi, out):
    """Count the cells of half 0 of groups ``g_lo:g_hi`` by popcounts (module docstring).

    ``out[g - g_lo, 2 i + j, r]``: items of group ``g`` with gold ``i`` and prediction ``j`` in
    half 0 of replicate ``r`` (``halves[offsets[t] + w, r]``, word ``w`` of the group's topic
    ``t``). Replicates are innermost, so that each word is ANDed and counted for a vector of
    replicates at once. ``shared[t, :, r]``: the gold and present items of topic ``t`` in half 0
    where every group of the topic has the same (:meth:`ItemMasks.halves`), or -1.
    """
    size = halves.shape[1]
    both, pred = np.zeros(size, np.int32), np.zeros(size, np.int32)
    gold, present = np.zeros(size, np.int32), np.zeros(size, np.int32)
    for g in range(g_lo, g_hi):
        t = _topic_of(g, t_stride, n_topics)
        alike = shared[t, 0, 0] >= 0
        both[:] = 0
        pred[:] = 0
        gold[:] = 0
        present[:] = 0
        for w in range(offsets[t + 1] - offsets[t]):
            at = g * width + w
            half = halves[offsets[t] + w]
            _add_ones(both, words[1, at] & words[2, at], half)
            _add_ones(pred, words[2, at], half)
            if not alike:
                _add_ones(gold, words[1, at], half)
                _add_ones(present, words[0, at], half)
        if alike:
            _cells(both, shared[t, 0], pred, shared[t, 1], out[g - g_lo])
        else:
            _cells(both, gold, pred, present, out[g - g_lo])


@njit(cache=True)
def _alike(words, width, t_stride, n_topics, first):
    """``first[t]``: a group of topic ``t`` if every group of the topic has the same present and
    gold items, else -1 (and -1 for a topic of no group)."""
    first[:] = -1
    differ = np.zeros(n_topics, np.bool_)
    for g in range(words.shape[1] // width):
        t = _topic_of(g, t_stride, n_topics)
        if first[t] < 0:
            first[t] = g
            continue
        f = first[t]
        for w in range(width):
            if words[0, g * width + w] != words[0, f * width + w] or words[1, g * width + w] != words[1, f * width + w]:
                differ[t] = True
    for t in range(n_topics):
        if differ[t]:
            first[t] = -1


@njit(cache=True)
def _shared_ones(words, width, first, offsets, halves, out):
    """``out[t, 0, r]``, ``out[t, 1, r]``: the gold and present items in half 0 of topic ``t``
    whose groups have the same (group ``first[t]``), -1 for the other topics."""
    for t in range(first.size):
        out[t] = -1 if first[t] < 0 else 0
        if first[t] < 0:
            continue
        for w in range(offsets[t + 1] - offsets[t]):
            at = first[t] * width + w
            _add_ones(out[t, 0], words[1, at], halves[offsets[t] + w])
            _add_ones(out[t, 1], words[0, at], halves[offsets[t] + w])


class ItemMasks:
    """The present, gold-positive and predicted-positive items of every group, a bit an item.

    Parameters
    ----------
    plan : CountPlan
        A hard binary plan with an item column and no separate gold (:meth:`fits`).

    Attributes
    ----------
    words : ndarray of uint64, shape (3, n_groups * width)
        Group ``g``'s masks at ``[:, g * width : (g + 1) * width]``: after :meth:`finish`, bit
        ``p`` is the item at place ``p`` of its topic.
    sizes : ndarray of int64, shape (n_topics,)
        Items of each topic (set by :meth:`finish`).
    """

    def __init__(self, plan):
        self.plan = plan
        self.width = (plan.item.size + 63) // 64
        self.words = np.zeros((3, plan.n_groups * self.width), np.uint64)
        self.t_stride, self.n_topics = plan.topic_stride()
        self.sizes = None

    @staticmethod
    def fits(plan, rows: int) -> bool:
        """Whether ``plan``'s ``rows`` can be kept as masks.

        They can for binary hard labels of at most two count axes, with an item column and
        neither a separate gold nor weights, in no more than ``_BUDGET`` bytes or 16 a row.
        """
        if plan.mode != "hard" or plan.m != 2 or plan.join is not None or plan.item is None:
            return False
        if plan.request.weight or len(plan.axes) > 2:
            return False
        size = 3 * 8 * plan.n_groups * ((plan.item.size + 63) // 64)
        return size <= max(_BUDGET, _BYTES_A_ROW * rows)

    def add(self, batch, part) -> None:
        """Set the bits of a batch's rows (which the tally has counted and checked)."""
        plan, request = self.plan, self.plan.request
        columns = [plan.encoders[c].encode(batch.column(c), part) for c in plan.axes] + [ABSENT_COLUMN] * 2
        stride = plan.sizes[1] if len(plan.axes) == 2 else 1
        gold = plan.gold.encode(batch.column(request.gold_column), part)
        pred = plan.pred.encode(batch.column(request.pred), part)
        item = plan.item.encode(batch.column(request.item), part)
        err = np.full((thread_count(), N_KINDS), -1, np.int64)
        calls = [
            (lo, hi, columns[0], columns[1], stride, gold, pred, item, self.width, self.words, err[c])
            for c, (lo, hi) in enumerate(chunk_bounds(batch.num_rows, thread_count()))
        ]
        on_threads(_mark_rows, calls)

    def finish(self) -> None:
        """Number each topic's items by their place among the items its groups have."""
        union = np.zeros((self.n_topics, self.width), np.uint64)
        _topic_items(self.words[0], self.width, self.t_stride, self.n_topics, union)
        self.sizes = np.array([int(np.bitwise_count(u).sum()) for u in union], np.int64)
        # a topic whose items are the codes 0 .. n-1 keeps its bits where they are
        word = np.arange(self.width)[None, :]
        full, rest = (self.sizes // 64)[:, None], (self.sizes % 64).astype(np.uint64)[:, None]
        ones = np.where(word < full, ~np.uint64(0), np.where(word == full, (np.uint64(1) << rest) - np.uint64(1), 0))
        moved = np.any(union != ones, axis=1)
        if moved.any():
            cuts = np.linspace(0, self.plan.n_groups, 4 * thread_count() + 1).astype(np.int64)
            calls = [
                (self.words, self.width, union, moved, self.t_stride, self.n_topics, a, b)
                for a, b in zip(cuts[:-1], cuts[1:])
                if b > a
            ]
            on_threads(_to_places, calls)
        self.first = np.empty(self.n_topics, np.int64)
        _alike(self.words, self.width, self.t_stride, self.n_topics, self.first)

    def halves(self, key, lo: int, hi: int):
        """Draw half 0 of replicates ``lo:hi`` of every topic, in the form :meth:`count` reads.

        The masks of :func:`~fastmetrics.count.draws.half_masks` and, for the topics whose
        groups have the same gold and present items (most inputs: a topic has one gold, and
        every run has every item), those items' counts in half 0, counted once for all the
        topic's groups.
        """
        halves, offsets = half_masks(key, self.sizes, lo, hi)
        shared = np.empty((self.n_topics, 2, hi - lo), np.int32)
        _shared_ones(self.words, self.width, self.first, offsets, halves, shared)
        return halves, offsets, shared

    def count(self, halves, g_lo: int, g_hi: int, out) -> None:
        """Half 0's cells of groups ``g_lo:g_hi`` (:func:`count_halves`) for :meth:`halves`."""
        words, offsets, shared = halves
        count_halves(self.words, self.width, self.t_stride, self.n_topics, shared, offsets, words, g_lo, g_hi, out)
