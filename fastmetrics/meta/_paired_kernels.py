"""Numba kernels of the paired tests across topics (:mod:`fastmetrics.meta.paired`): one pass over
the topics of each system pair, no difference matrix, no validation.

A pair ``p`` compares the rows ``first[p]`` and ``second[p]`` of ``values[system, topic]``
(``second[p] < 0``: the row against 0, for a matrix of differences); a topic counts where both
values are defined (not NaN), and its difference is ``values[first] - values[second]`` in float64,
as ``scipy.stats`` computes ``x - y``. The kernels take a range ``start, stop`` of pairs, release
the GIL and run on Python threads (:func:`fastmetrics._threads.in_ranges`).
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def pair_moments(start, stop, values, first, second, n_out, mean_out, m2_out, positive, negative):
    """Per pair: the defined topics, the mean difference, the sum of squared deviations from it
    (two passes, as ``numpy.var``), and the numbers of positive and negative differences.

    The loops select rather than branch (an undefined topic adds 0), so LLVM vectorises them."""
    n_topics = values.shape[1]
    zeros = np.zeros(n_topics)
    for p in range(start, stop):
        a = values[first[p]]
        b = values[second[p]] if second[p] >= 0 else zeros
        n = 0
        total = 0.0
        up = 0
        down = 0
        for t in range(n_topics):
            d = a[t] - b[t]
            ok = d == d  # NaN when either value is undefined
            n += ok
            total += d if ok else 0.0
            up += d > 0
            down += d < 0
        mean = total / n if n > 0 else np.nan
        m2 = 0.0
        for t in range(n_topics):
            r = a[t] - b[t] - mean
            m2 += r * r if r == r else 0.0
        n_out[p] = n
        mean_out[p] = mean
        m2_out[p] = m2 if n > 0 else np.nan
        positive[p] = up
        negative[p] = down


@njit(cache=True, nogil=True)
def pair_signed_ranks(start, stop, values, first, second, t_plus, tie_term, nonzero, defined, tied):
    """Per pair, Wilcoxon's signed-rank statistic as ``scipy.stats.wilcoxon`` computes it with
    ``zero_method="wilcox"``: zero differences dropped, the others ranked by absolute value
    (average ranks for ties), ``T+`` the sum of the ranks of the positive ones; the ties' term
    ``sum(t^3 - t)`` over groups of equal absolute values, the numbers of nonzero and defined
    differences, and whether two nonzero absolute values tie."""
    n_topics = values.shape[1]
    magnitude = np.empty(n_topics)
    sign = np.empty(n_topics)
    for p in range(start, stop):
        a = values[first[p]]
        b_row = second[p]
        k = 0
        seen = 0
        for t in range(n_topics):
            x = a[t]
            y = values[b_row, t] if b_row >= 0 else 0.0
            if np.isnan(x) or np.isnan(y):
                continue
            seen += 1
            d = x - y
            if d != 0:
                magnitude[k] = abs(d)
                sign[k] = 1.0 if d > 0 else -1.0
                k += 1
        order = np.argsort(magnitude[:k], kind="mergesort")
        total = 0.0
        ties = 0.0
        any_tie = False
        i = 0
        while i < k:
            j = i
            while j + 1 < k and magnitude[order[j + 1]] == magnitude[order[i]]:
                j += 1
            size = j - i + 1
            rank = 0.5 * (i + j) + 1.0
            if size > 1:
                any_tie = True
                ties += size * size * size - size
            for q in range(i, j + 1):
                if sign[order[q]] > 0:
                    total += rank
            i = j + 1
        t_plus[p] = total
        tie_term[p] = ties
        nonzero[p] = k
        defined[p] = seen
        tied[p] = any_tie


@njit(cache=True, nogil=True)
def pair_doubled_ranks(values, first, second, p, out):
    """Twice the average ranks of the nonzero absolute differences of pair ``p`` (integers even
    with ties), in ``out[:k]``; returns ``k``."""
    n_topics = values.shape[1]
    a = values[first[p]]
    b_row = second[p]
    magnitude = np.empty(n_topics)
    k = 0
    for t in range(n_topics):
        x = a[t]
        y = values[b_row, t] if b_row >= 0 else 0.0
        if np.isnan(x) or np.isnan(y) or x - y == 0:
            continue
        magnitude[k] = abs(x - y)
        k += 1
    order = np.argsort(magnitude[:k], kind="mergesort")
    i = 0
    while i < k:
        j = i
        while j + 1 < k and magnitude[order[j + 1]] == magnitude[order[i]]:
            j += 1
        for q in range(i, j + 1):
            out[q] = i + j + 2  # twice the average rank (i + j) / 2 + 1
        i = j + 1
    return k


@njit(cache=True, nogil=True)
def row_sums(values, sums, magnitudes):
    """Per row of ``values`` (no NaN): its sum, compensated (Neumaier 1974: within two roundings of
    the exact sum, whatever the number of terms), and the sum of its absolute values."""
    for r in range(values.shape[0]):
        total = 0.0
        lost = 0.0
        size = 0.0
        for t in range(values.shape[1]):
            x = values[r, t]
            s = total + x
            if abs(total) >= abs(x):
                lost += (total - s) + x
            else:
                lost += (x - s) + total
            total = s
            size += abs(x)
        sums[r] = total + lost
        magnitudes[r] = size


@njit(cache=True, nogil=True, fastmath={"reassoc", "contract"})
def gram_rows(start, stop, rows, gram):
    """``gram[i, j] = sum_t rows[i, t] rows[j, t]`` for ``start <= i < stop`` and ``j >= i``
    (the upper triangle), four ``j`` a pass (each ``rows[i, t]`` read once for four sums).

    The sums may be reordered and their products fused (LLVM vectorises them so): the rounding
    bound the caller checks, ``n u / (1 - n u) sum_t |x_i x_j|``, holds for any order of
    summation, and a fused multiply-add rounds once where a product and a sum round twice."""
    k = rows.shape[0]
    n = rows.shape[1]
    for i in range(start, stop):
        x = rows[i]
        j = i
        while j + 3 < k:
            y0, y1, y2, y3 = rows[j], rows[j + 1], rows[j + 2], rows[j + 3]
            s0 = s1 = s2 = s3 = 0.0
            for t in range(n):
                v = x[t]
                s0 += v * y0[t]
                s1 += v * y1[t]
                s2 += v * y2[t]
                s3 += v * y3[t]
            gram[i, j], gram[i, j + 1], gram[i, j + 2], gram[i, j + 3] = s0, s1, s2, s3
            j += 4
        while j < k:
            y = rows[j]
            s = 0.0
            for t in range(n):
                s += x[t] * y[t]
            gram[i, j] = s
            j += 1


@njit(cache=True, nogil=True)
def gram_pairs(sums, magnitudes, gram, a, b, size, eps, tolerance, ok, mean, m2):
    """Per pair ``(a[p], b[p])`` of rows: the sum of squared deviations of the differences
    ``C_aa + C_bb - 2 C_ab`` (``gram``'s upper triangle), the mean difference from the compensated
    row sums, and whether both are within ``tolerance`` of their values by the rounding bounds of
    :func:`fastmetrics.meta.paired._gram_moments` (unit roundoff ``eps``, ``size`` columns)."""
    slack = size * size * eps
    for p in range(a.size):
        i = a[p]
        j = b[p]
        low = min(i, j)
        high = max(i, j)
        squares = gram[i, i] + gram[j, j] - 2.0 * gram[low, high]
        difference = sums[i] - sums[j]
        scale = (abs(sums[i]) + slack * magnitudes[i]) + (abs(sums[j]) + slack * magnitudes[j])
        mean_bound = eps * (2.0 * scale + abs(difference))
        squares_bound = 2.0 * (size + 3.0) * eps * (gram[i, i] + gram[j, j])
        ok[p] = mean_bound < tolerance * abs(difference) and squares_bound < tolerance * squares
        mean[p] = difference / size
        m2[p] = squares
