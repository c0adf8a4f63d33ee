"""trec_eval's order of a ranked list: decreasing score, equal scores by decreasing document id.

trec_eval sorts each topic's documents with ``qsort`` by score, then by ``strcmp`` of the
document ids, both descending; its rank column is not read. The ids are compared as bytes
(unsigned, a prefix before any longer string), in the kernels of :mod:`._ranks`, so that the
order needs no sort of the whole table.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .._strings import compare_bytes


@njit(cache=True, nogil=True, inline="always")
def _after(off, data, a, b):
    """Whether string ``a`` sorts after string ``b`` (bytes compared as unsigned, a prefix first:
    C's ``strcmp``, by which trec_eval orders equal scores)."""
    a0, a1, b0, b1 = np.int64(off[a]), np.int64(off[a + 1]), np.int64(off[b]), np.int64(off[b + 1])
    return compare_bytes(data, a0, a1, data, b0, b1) > 0


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


_FEW = 16  # ties ordered by insertion: a run's ties are mostly pairs and triples


@njit(cache=True, nogil=True, inline="always")
def _few_by_item_descending(rows, lo, hi, off, data):
    """Sort ``rows[lo:hi]`` (a few equal scores) by decreasing item: an insertion sort."""
    for x in range(lo + 1, hi):
        v = rows[x]
        y = x
        while y > lo and _after(off, data, v, rows[y - 1]):
            rows[y] = rows[y - 1]
            y -= 1
        rows[y] = v


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
        The rows reordered (a new array). Rows already by decreasing score, as a run file's
        usually are, are only checked, and only their runs of equal scores sorted.
    """
    n = rows.size
    by_score = True
    for i in range(1, n):
        if score[rows[i]] > score[rows[i - 1]]:
            by_score = False
            break
    if by_score:
        rows = rows.copy()
    else:
        keys = np.empty(n, np.float64)
        for i in range(n):
            keys[i] = -score[rows[i]]
        rows = rows[np.argsort(keys, kind="mergesort")]
    tmp = np.empty(0, np.int64)
    lo = 0
    for i in range(1, n + 1):
        if i == n or score[rows[i]] != score[rows[lo]]:
            if i - lo > _FEW:
                if tmp.size == 0:
                    tmp = np.empty(n, np.int64)
                _by_item_descending(rows, lo, i, off, data, tmp)
            elif i - lo > 1:
                _few_by_item_descending(rows, lo, i, off, data)
            lo = i
    return rows
