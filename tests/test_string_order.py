"""The byte order of :func:`fastmetrics._strings.compare_bytes` is Python's (``memcmp``, then length).

It orders equal scores as trec_eval does (C's ``strcmp`` of the document ids), eight bytes a step:
every pair of a family of strings that share prefixes of every length, differ in any byte (bytes
from 0x80 included: they compare as unsigned) and end anywhere, the buffer's last bytes too.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from fastmetrics import _strings
from fastmetrics.count._ties import trec_order


@njit(cache=True)
def _all_pairs(offsets, data, out):
    n = offsets.size - 1
    for i in range(n):
        for j in range(n):
            out[i, j] = _strings.compare_bytes(
                data,
                np.int64(offsets[i]),
                np.int64(offsets[i + 1]),
                data,
                np.int64(offsets[j]),
                np.int64(offsets[j + 1]),
            )


def _family(seed: int) -> list[bytes]:
    rng = np.random.default_rng(seed)
    prefix = bytes(rng.integers(0, 256, 40, dtype=np.uint8))
    out = [b"", prefix]
    for _ in range(150):
        shared = int(rng.integers(0, 41))
        tail = bytes(rng.choice([0x30, 0x31, 0x7F, 0x80, 0xFF, 0x00], int(rng.integers(0, 12))))
        out.append(prefix[:shared] + tail)
    return out


def test_pairs_compare_as_python_compares_bytes():
    for seed in range(3):
        strings = _family(seed)
        # the last string ends the buffer: its last word cannot be loaded past it
        offsets = np.cumsum([0] + [len(s) for s in strings]).astype(np.int64)
        data = np.frombuffer(b"".join(strings), np.uint8).copy()
        got = np.empty((len(strings), len(strings)), np.int64)
        _all_pairs(offsets, data, got)
        expected = np.array([[(a > b) - (a < b) for b in strings] for a in strings])
        assert (got == expected).all()


def test_trec_order_is_a_sort_by_score_then_item_descending():
    """trec_eval's order (decreasing score, then decreasing id) from rows in score order and
    shuffled, with runs of ties short (sorted by insertion) and long (merged)."""
    rng = np.random.default_rng(7)
    ids = [f"http://site{k % 7}.example.com/{k}".encode() for k in range(300)]
    offsets = np.cumsum([0] + [len(s) for s in ids]).astype(np.int64)
    data = np.frombuffer(b"".join(ids), np.uint8).copy()
    for levels in (3, 40, 300):
        score = rng.integers(0, levels, len(ids)).astype(np.float64)
        expected = sorted(range(len(ids)), key=lambda r: (score[r], ids[r]), reverse=True)
        by_score = np.argsort(-score, kind="stable").astype(np.int64)
        for rows in (by_score, rng.permutation(len(ids)).astype(np.int64)):
            assert trec_order(rows, score, offsets, data).tolist() == expected
