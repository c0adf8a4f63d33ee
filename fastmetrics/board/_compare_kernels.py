"""Numba kernels of the many-system comparisons (:mod:`fastmetrics.board.friedman`,
:mod:`fastmetrics.board.bayes`): arrays in, arrays out, no validation; each takes a range
``start, stop`` of its rows, releases the GIL and runs on Python threads
(:func:`fastmetrics._threads.in_ranges`)."""

from __future__ import annotations

import math

import numpy as np
from numba import njit

_SQRT2 = math.sqrt(2.0)
_LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)


@njit(cache=True, inline="always")
def _log_cdf(z):
    """log Φ(z), accurate near 1 (z > 0) and down to z = -37 (below, -inf)."""
    if z > 0:
        return math.log1p(-0.5 * math.erfc(z / _SQRT2))
    tail = 0.5 * math.erfc(-z / _SQRT2)
    return math.log(tail) if tail > 0 else -np.inf


@njit(cache=True, nogil=True)
def range_sf(start, stop, q, k, nodes, weights, low, high, out):
    """``out[i] = P(Q > q[i])`` for ``start <= i < stop``: the studentized range of ``k`` standard
    normals, ``k ∫ φ(z) Φ(z)^(k-1) [1 - (1 - Φ(z - q) / Φ(z))^(k-1)] dz`` by Gauss-Legendre
    ``nodes``/``weights`` on ``[low, max(high, q / 2 + 9)]`` (capped at 40): every term is positive,
    so the tail keeps its relative accuracy."""
    for i in range(start, stop):
        top = min(max(high, q[i] / 2.0 + 9.0), 40.0)
        half = (top - low) / 2.0
        total = 0.0
        for j in range(nodes.size):
            z = low + (nodes[j] + 1.0) * half
            log_cdf = _log_cdf(z)
            density = math.exp(math.log(k) - 0.5 * z * z - _LOG_SQRT_2PI + (k - 1) * log_cdf)
            if density == 0.0:
                continue
            ratio = math.exp(_log_cdf(z - q[i]) - log_cdf)
            inner = 1.0 if ratio >= 1.0 else -math.expm1((k - 1) * math.log1p(-ratio))
            total += weights[j] * half * density * inner
        out[i] = min(total, 1.0)


@njit(cache=True, nogil=True)
def piecewise_polynomial(start, stop, x, breaks, coefficients, out):
    """``out[i]`` for ``start <= i < stop``: the piecewise polynomial with ``breaks`` (ascending)
    and ``coefficients[power, piece]`` (highest power first) at ``x[i]``, by Horner's rule on
    the piece holding it (the last piece whose first break is at most ``x[i]``, as
    ``numpy.searchsorted(breaks, x, side="right") - 1``, clipped to the pieces); NaN at NaN."""
    last = breaks.size - 2
    for i in range(start, stop):
        v = x[i]
        if v != v:
            out[i] = np.nan
            continue
        lo, hi = 0, breaks.size
        while lo < hi:
            mid = (lo + hi) // 2
            if breaks[mid] <= v:
                lo = mid + 1
            else:
                hi = mid
        piece = min(max(lo - 1, 0), last)
        h = v - breaks[piece]
        total = coefficients[0, piece]
        for c in range(1, coefficients.shape[0]):
            total = total * h + coefficients[c, piece]
        out[i] = total


@njit(cache=True, nogil=True)
def topic_ranks(start, stop, values, order, ranks, ties):
    """Per topic ``t`` (row of ``values[topic, system]``, higher better, ``order[t]`` its systems
    best first): each system's rank, 1 the best, tied systems sharing their average rank
    (``ranks[system, t]``), and ``sum(t^3 - t)`` over the topic's groups of tied systems
    (``ties[t]``). The topic's values are gathered in their order first, so the runs of ties are
    found in a contiguous array."""
    k = values.shape[1]
    ordered = np.empty(k)
    for t in range(start, stop):
        row = values[t]
        best = order[t]
        for q in range(k):
            ordered[q] = row[best[q]]
        total = 0.0
        i = 0
        while i < k:
            j = i
            while j + 1 < k and ordered[j + 1] == ordered[i]:
                j += 1
            rank = 0.5 * (i + j) + 1.0
            for q in range(i, j + 1):
                ranks[best[q], t] = rank
            size = j - i + 1
            total += size * size * size - size
            i = j + 1
        ties[t] = total


@njit(cache=True, inline="always")
def _first_above(sorted_values, shift, bound, strict):
    """The first position ``p`` of ascending ``sorted_values`` with ``shift + sorted_values[p]``
    above ``bound`` (``>``, or ``>=`` when not ``strict``): the sums are monotone in ``p``."""
    lo, hi = 0, sorted_values.size
    while lo < hi:
        mid = (lo + hi) // 2
        total = shift + sorted_values[mid]
        if total > bound or (not strict and total == bound):
            hi = mid
        else:
            lo = mid + 1
    return lo


@njit(cache=True, nogil=True)
def rope_positions(start, stop, z, order, lo_right, hi_right, lo_left, hi_left, rope):
    """For each row of differences ``z[row, :]`` (the first entry the prior's 0) and each entry ``i``:
    where, in ascending order (``order[row]``), the sums ``z_i + z_j`` start to exceed ``2 rope``
    (``hi_right``: ``>``; ``lo_right``: ``>=``) and to reach ``-2 rope`` from below (``lo_left``:
    the first ``>= -2 rope``; ``hi_left``: the first ``> -2 rope``)."""
    n = z.shape[1]
    s = np.empty(n)
    for row in range(start, stop):
        for p in range(n):
            s[p] = z[row, order[row, p]]
        for i in range(n):
            v = z[row, i]
            lo_right[row, i] = _first_above(s, v, 2.0 * rope, False)
            hi_right[row, i] = _first_above(s, v, 2.0 * rope, True)
            lo_left[row, i] = _first_above(s, v, -2.0 * rope, False)
            hi_left[row, i] = _first_above(s, v, -2.0 * rope, True)


@njit(cache=True, inline="always")
def _thetas(w, order_row, lo_right, hi_right, lo_left, hi_left, cumulative):
    """θ_left and θ_right of one posterior sample of weights ``w`` (Benavoli et al. 2017):
    ``Σ_i Σ_j w_i w_j H(z_i + z_j - 2r)`` and ``H(-z_i - z_j - 2r)``, ``H`` 1 above 0 and 1/2 at 0."""
    n = w.size
    cumulative[0] = 0.0
    for p in range(n):
        cumulative[p + 1] = cumulative[p] + w[order_row[p]]
    total = cumulative[n]
    right = 0.0
    left = 0.0
    for i in range(n):
        above = total - cumulative[hi_right[i]]
        at = cumulative[hi_right[i]] - cumulative[lo_right[i]]
        right += w[i] * (above + 0.5 * at)
        below = cumulative[lo_left[i]]
        at_left = cumulative[hi_left[i]] - cumulative[lo_left[i]]
        left += w[i] * (below + 0.5 * at_left)
    return left, right


@njit(cache=True, nogil=True)
def signed_rank_wins(start, stop, weights, order, lo_right, hi_right, lo_left, hi_left, wins):
    """Per row, how often each of θ_left, θ_rope = 1 - θ_left - θ_right and θ_right is the largest
    over the samples ``weights[sample, :]`` (the first largest on ties, as ``numpy.argmax``)."""
    n = weights.shape[1]
    cumulative = np.empty(n + 1)
    for row in range(start, stop):
        for sample in range(weights.shape[0]):
            left, right = _thetas(
                weights[sample], order[row], lo_right[row], hi_right[row], lo_left[row], hi_left[row], cumulative
            )
            rope = 1.0 - left - right
            if left >= rope and left >= right:
                wins[row, 0] += 1
            elif rope >= right:
                wins[row, 1] += 1
            else:
                wins[row, 2] += 1


@njit(cache=True, nogil=True)
def signed_rank_thetas(weights, order, lo_right, hi_right, lo_left, hi_left, row, out):
    """θ_left and θ_right of row ``row`` for every sample of ``weights`` (``out[sample, 0:2]``)."""
    n = weights.shape[1]
    cumulative = np.empty(n + 1)
    for sample in range(weights.shape[0]):
        left, right = _thetas(
            weights[sample], order[row], lo_right[row], hi_right[row], lo_left[row], hi_left[row], cumulative
        )
        out[sample, 0] = left
        out[sample, 1] = right
