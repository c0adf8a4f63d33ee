"""The draw of split halves (Steingold & Laclavík n.d., §5): which items of a topic are in half 0 of a replicate.

For a seed, a topic ``t`` (its code: its place among the plan's topic labels, 0 without a topic
axis) and a replicate ``r``, the ``n`` items of the topic -- in the order of their keys: the
item labels, or the rows of a separate gold -- are split into half 0 of ``k = floor(n/2)``
items and half 1 of the other ``ceil(n/2)``:

1. A SplitMix64 stream (Steele, Lea & Flood 2014) of 64-bit words starts at
   ``state = mix(mix(key + t) + r)``, where ``key`` is the seed's key
   (:func:`fastmetrics._seeding.seed_key`), and gives ``mix(state := state + 0x9E3779B97F4A7C15)``
   a word (arithmetic modulo 2^64). ``mix(z)``: ``z ^= z >> 30; z *= 0xBF58476D1CE4E5B9;
   z ^= z >> 27; z *= 0x94D049BB133111EB; z ^= z >> 31``.
2. The first ``ceil(n/64)`` words are the first guess: item ``i`` is in half 0 when bit
   ``i mod 64`` of word ``i // 64`` is 1.
3. While half 0 holds more than ``k`` items, a position ``j`` is drawn from the next words and
   item ``j`` moves to half 1 if it is in half 0; while it holds fewer, item ``j`` moves to half 0
   if it is in half 1. ``j = floor(u n / 2^32)``, ``u`` the word's upper 32 bits; a word with
   ``u n mod 2^32 < 2^32 mod n`` is skipped (Lemire 2019), so every position has probability
   ``1/n``.

Every step treats the items alike, so each of the ``C(n, k)`` halves is equally likely (a
distribution over the sets of ``k`` items that no permutation of the items changes is uniform).
A topic of fewer than two items puts them in half 1. A replicate's halves depend on the seed, the
topic code and ``r`` alone: the same whichever replicates are drawn, in whatever blocks, on
whatever threads. About ``n/64 + 2 sqrt(n/2pi)`` words a topic and replicate (15 for 200 items),
against ``n`` uniform draws and a selection for a sort of random keys.

References
----------
G. L. Steele, D. Lea, C. H. Flood. Fast splittable pseudorandom number generators. OOPSLA 2014.
D. Lemire. Fast random integer generation in an interval. ACM TOMACS 29(1), 2019.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types, uint64
from numba.extending import intrinsic

from .._threads import on_threads, thread_count

_GAMMA = uint64(0x9E3779B97F4A7C15)
_LOW = uint64(0xFFFFFFFF)


@njit(cache=True, inline="always")
def _mix(z):
    """SplitMix64's output function of a 64-bit word."""
    z = (z ^ (z >> uint64(30))) * uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> uint64(27))) * uint64(0x94D049BB133111EB)
    return z ^ (z >> uint64(31))


@njit(cache=True, inline="always")
def _position(state, n, reject):
    """``(state, j)``: the stream advanced past the words it read, and ``j`` uniform in ``[0, n)``."""
    while True:
        state += _GAMMA
        m = (_mix(state) >> uint64(32)) * n
        if (m & _LOW) >= reject:
            return state, np.int64(m >> uint64(32))


@intrinsic
def popcount(typingctx, word):
    """The number of bits set in a uint64 (LLVM's ctpop: one instruction, or a vector of them)."""

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return types.uint64(types.uint64), codegen


@njit(cache=True, nogil=True)
def _draw(key, topic, replicate, n, words, column):
    """Half 0 of ``n >= 2`` items of ``(topic, replicate)`` as bits of ``words[w, column]``."""
    count = (n + 63) // 64
    state = _mix(_mix(key + uint64(topic)) + uint64(replicate))
    inside = 0
    for w in range(count):
        state += _GAMMA
        x = _mix(state)
        if w == count - 1 and n % 64:
            x &= (uint64(1) << uint64(n % 64)) - uint64(1)
        words[w, column] = x
        inside += np.int64(popcount(x))
    k = n // 2
    nn = uint64(n)
    reject = uint64((1 << 32) % n)
    while inside != k:
        state, j = _position(state, nn, reject)
        bit = uint64(1) << uint64(j & 63)
        held = (words[j >> 6, column] & bit) != uint64(0)
        # moved when in half 0 while it has too many, in half 1 while too few; without a branch
        # (taken half the time at random)
        moved = held == (inside > k)
        words[j >> 6, column] ^= bit if moved else uint64(0)
        inside += (1 - 2 * np.int64(held)) * np.int64(moved)


@njit(cache=True, nogil=True)
def _masks_of_topics(key, sizes, offsets, t_lo, t_hi, lo, out):
    """``out[offsets[t] + w, r - lo]``: word ``w`` of topic ``t``'s half 0 in replicate ``r``."""
    for t in range(t_lo, t_hi):
        n = sizes[t]
        words = out[offsets[t] : offsets[t + 1]]
        for c in range(out.shape[1]):
            if n < 2:
                words[:, c] = 0
            else:
                _draw(key, t, lo + c, n, words, c)


@njit(cache=True, nogil=True)
def _bytes_of_topics(key, topics, order, bounds, lo, chosen):
    """``chosen[order[bounds[i] + j], r - lo] = 1`` where item ``j`` of ``topics[i]`` is in half 0."""
    largest = 0
    for i in range(topics.size):
        largest = max(largest, bounds[i + 1] - bounds[i])
    scratch = np.zeros((largest // 64 + 1, 1), np.uint64)
    for i in range(topics.size):
        n = bounds[i + 1] - bounds[i]
        for c in range(chosen.shape[1]):
            if n < 2:
                for j in range(n):
                    chosen[order[bounds[i] + j], c] = 0
                continue
            _draw(key, topics[i], lo + c, n, scratch, 0)
            for j in range(n):
                chosen[order[bounds[i] + j], c] = (scratch[j >> 6, 0] >> uint64(j & 63)) & uint64(1)


def _cuts(sizes: np.ndarray, parts: int) -> np.ndarray:
    """Topic bounds of ``parts`` runs of topics with about equal items each."""
    work = np.cumsum(np.maximum(sizes, 1))
    ends = np.searchsorted(work, work[-1] * np.arange(1, parts) / parts) if sizes.size else []
    return np.unique(np.concatenate([[0], ends, [sizes.size]]).astype(np.int64))


def half_masks(key, sizes: np.ndarray, lo: int, hi: int) -> tuple[np.ndarray, np.ndarray]:
    """Half 0 of replicates ``lo`` to ``hi - 1`` of every topic, as bit masks.

    Parameters
    ----------
    key : int
        The seed's key (:func:`fastmetrics._seeding.seed_key`).
    sizes : ndarray of int64, shape (n_topics,)
        Items of each topic (by topic code).
    lo, hi : int
        The replicates.

    Returns
    -------
    words : ndarray of uint64, shape (offsets[-1], hi - lo)
        ``words[offsets[t] + w, r - lo]``: word ``w`` of topic ``t`` in replicate ``r``, bit ``b``
        set when the item at place ``64 w + b`` of the topic is in half 0 (replicates innermost:
        a kernel reads one word of every replicate as a vector).
    offsets : ndarray of int64, shape (n_topics + 1,)
        Where each topic's ``ceil(n/64)`` words start.
    """
    sizes = np.asarray(sizes, np.int64)
    offsets = np.concatenate([[0], np.cumsum((sizes + 63) // 64)]).astype(np.int64)
    words = np.empty((int(offsets[-1]), hi - lo), np.uint64)
    cuts = _cuts(sizes, 4 * thread_count())
    on_threads(_masks_of_topics, [(np.uint64(key), sizes, offsets, a, b, lo, words) for a, b in zip(cuts, cuts[1:])])
    return words, offsets


def half_bytes(key, item_topic: np.ndarray, lo: int, hi: int) -> np.ndarray:
    """Half 0 of replicates ``lo`` to ``hi - 1``, one byte an item.

    Parameters
    ----------
    key : int
        The seed's key (:func:`fastmetrics._seeding.seed_key`).
    item_topic : ndarray of int64
        The topic code of each item; a topic's items are taken in their order here (the order of
        their keys), so that the halves are those :func:`half_masks` gives the topic's places.
    lo, hi : int
        The replicates.

    Returns
    -------
    ndarray of uint8, shape (n_items, hi - lo)
        ``chosen[item, r - lo]``: 1 when the item is in half 0 of replicate ``r``.
    """
    order = np.argsort(item_topic, kind="stable")
    topics, starts = np.unique(item_topic[order], return_index=True)
    bounds = np.append(starts, item_topic.size).astype(np.int64)
    chosen = np.empty((item_topic.size, hi - lo), np.uint8)
    cuts = _cuts(np.diff(bounds), 4 * thread_count())
    topics = topics.astype(np.int64)
    calls = [(np.uint64(key), topics[a:b], order, bounds[a : b + 1], lo, chosen) for a, b in zip(cuts, cuts[1:])]
    on_threads(_bytes_of_topics, calls)
    return chosen
