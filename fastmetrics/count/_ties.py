"""trec_eval's order of a ranked list: decreasing score, equal scores by decreasing document id.

trec_eval sorts each topic's documents with ``qsort`` by score, then by ``strcmp`` of the
document ids, both descending; its rank column is not read. The ids are compared as bytes
(unsigned, a prefix before any longer string), in the kernels of :mod:`._ranks`, so that the
order needs no sort of the whole table.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True, inline="always")
def _after(off, data, a, b):
    """Whether string ``a`` sorts after string ``b`` (bytes compared as unsigned, a prefix first:
    C's ``strcmp``, by which trec_eval orders equal scores)."""
    a0, a1, b0, b1 = np.int64(off[a]), np.int64(off[a + 1]), np.int64(off[b]), np.int64(off[b + 1])
    for k in range(min(a1 - a0, b1 - b0)):
        if data[a0 + k] != data[b0 + k]:
            return data[a0 + k] > data[b0 + k]
    return a1 - a0 > b1 - b0


@njit(cache=True, nogil=True)
def _by_item_descending(rows, lo, hi, off, data, tmp):
    """Sort ``rows[lo:hi]`` (equal scores) by decreasing item string: a merge sort, any number of ties."""
    width = 1
    while width < hi - lo:
        for left in range(lo, hi, 2 * width):
            mid, right = min(left + width, hi), min(left + 2 * width, hi)
            i, j, k = left, mid, left
            while i < mid and j < right:
                if _after(off, data, rows[j], rows[i]):
                    tmp[k] = rows[j]
                    j += 1
                else:
                    tmp[k] = rows[i]
                    i += 1
                k += 1
            tmp[k : k + mid - i] = rows[i:mid]
            k += mid - i
            tmp[k : k + right - j] = rows[j:right]
        rows[lo:hi] = tmp[lo:hi]
        width *= 2


@njit(cache=True, nogil=True)
def trec_order(rows, score, off, data):
    """``rows`` by decreasing score, equal scores by decreasing item (trec_eval's qsort).

    Parameters
    ----------
    rows : ndarray of int64
        A ranked list's rows.
    score : ndarray of float64
        The rows' scores (finite).
    off, data : ndarray
        The items' string offsets and bytes (:func:`fastmetrics._strings.string_buffers`).

    Returns
    -------
    ndarray of int64
        ``rows`` itself when already in that order (as a run file's usually is; only checked),
        else the rows reordered.
    """
    n = rows.size
    ordered = True
    for i in range(1, n):
        a, b = rows[i - 1], rows[i]
        if score[b] > score[a] or (score[b] == score[a] and not _after(off, data, a, b)):
            ordered = False
            break
    if ordered:
        return rows
    keys = np.empty(n, np.float64)
    for i in range(n):
        keys[i] = -score[rows[i]]
    rows = rows[np.argsort(keys, kind="mergesort")]
    tmp = np.empty(n, np.int64)
    lo = 0
    for i in range(1, n + 1):
        if i == n or score[rows[i]] != score[rows[lo]]:
            if i - lo > 1:
                _by_item_descending(rows, lo, i, off, data, tmp)
            lo = i
    return rows
