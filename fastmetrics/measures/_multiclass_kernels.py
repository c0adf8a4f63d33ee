"""Native multiclass definitions: numba gufuncs over ``counts[..., m, m]`` (private).

``c[i, j]`` = items of true class ``i`` predicted as ``j``; ``a_i = sum_j c[i, j]`` (true class
sizes), ``b_j = sum_i c[i, j]`` (predicted class sizes), ``n = sum a_i`` -- Gösgens et al.'s (2021) notation.
Each kernel writes one float64 per matrix and returns NaN exactly where the measure's record
says it is undefined. The loops recompute marginals instead of allocating per matrix, because a
leaderboard evaluates millions of small matrices.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from ._kernels import LazyUfunc

NAN = np.nan


def matrix_gufunc(extra_core: str = "", extra_types: tuple[str, ...] = ()):
    """Decorate ``f(c, *extra, out)`` into a float64 gufunc with layout ``(m,m)[extra]->()``,
    built on first use (:class:`~fastmetrics.measures._kernels.LazyUfunc`)."""
    types = ["float64[:, :]", *extra_types, "float64[:]"]
    layout = "(m,m)" + extra_core + "->()"
    return lambda f: LazyUfunc(f, [f"void({', '.join(types)})"], layout)


@njit(cache=True, inline="always")
def _row(c, i):
    s = 0.0
    for j in range(c.shape[1]):
        s += c[i, j]
    return s


@njit(cache=True, inline="always")
def _col(c, j):
    return _row(c.T, j)


@njit(cache=True, inline="always")
def _sums(c):
    """(n, trace, sum a_i b_i, sum a_i^2, sum b_i^2)."""
    n = 0.0
    trace = 0.0
    ab = 0.0
    aa = 0.0
    bb = 0.0
    for i in range(c.shape[0]):
        a = _row(c, i)
        b = _col(c, i)
        n += a
        trace += c[i, i]
        ab += a * b
        aa += a * a
        bb += b * b
    return n, trace, ab, aa, bb


@matrix_gufunc()
def accuracy_mc(c, out):
    """Accuracy: trace / n."""
    n, trace, _, _, _ = _sums(c)
    out[0] = trace / n if n > 0.0 else NAN


@njit(cache=True, inline="always")
def _mean_recall(c):
    """Mean of c_ii / a_i over the classes present in gold (NaN when none is)."""
    total = 0.0
    present = 0
    for i in range(c.shape[0]):
        a = _row(c, i)
        if a > 0.0:
            total += c[i, i] / a
            present += 1
    return total / present if present > 0 else NAN


@njit(cache=True, inline="always")
def _k_from_mean_recall(mean, m):
    """Sebastiani (2015, eq. 10): m/(m-1) * mean recall over classes present in gold - 1/(m-1)."""
    return m / (m - 1.0) * mean - 1.0 / (m - 1.0)


@matrix_gufunc()
def balanced_accuracy_mc(c, out):
    """Balanced accuracy: mean of c_ii / a_i over the classes present in gold."""
    out[0] = _mean_recall(c)


@matrix_gufunc()
def k_mc(c, out):
    """Sebastiani's K (Sebastiani 2015, eq. 10): m/(m-1) * mean recall over present classes - 1/(m-1)."""
    out[0] = _k_from_mean_recall(_mean_recall(c), c.shape[0])


@matrix_gufunc(",(m,m),()", ("float64[:, :]", "float64"))
def k_cost_mc(c, cost, power, out):
    """K with cost-sensitive recall (Sebastiani 2015, eq. 11): item credit 1 - E_ij / max_j E_ij, E = cost^power."""
    # Sebastiani (2015, eq. 11): recall of class i credits each item 1 - E/max(E_i), E = cost^power.
    m = c.shape[0]
    total = 0.0
    present = 0
    for i in range(m):
        a = _row(c, i)
        if a > 0.0:
            worst = 0.0
            for j in range(m):
                worst = max(worst, cost[i, j] ** power)
            credit = 0.0
            for j in range(m):
                credit += c[i, j] * (1.0 - cost[i, j] ** power / worst)
            total += credit / a
            present += 1
    out[0] = _k_from_mean_recall(total / present, m) if present > 0 else NAN


@matrix_gufunc()
def cohen_kappa_mc(c, out):
    """Cohen's kappa: (n trace - sum_i a_i b_i) / (n^2 - sum_i a_i b_i)."""
    n, trace, ab, _, _ = _sums(c)
    den = n * n - ab
    out[0] = (n * trace - ab) / den if den != 0.0 else NAN


@matrix_gufunc()
def mcc_mc(c, out):
    """Gorodkin's R_K: (n trace - sum a_i b_i) / sqrt((n^2 - sum b_i^2)(n^2 - sum a_i^2))."""
    n, trace, ab, aa, bb = _sums(c)
    # Gorodkin's R_K; the two factors are computed apart so neither product overflows.
    x = n * n - bb
    y = n * n - aa
    out[0] = (n * trace - ab) / (math.sqrt(x) * math.sqrt(y)) if x > 0.0 and y > 0.0 else NAN


@matrix_gufunc()
def sba_mc(c, out):
    """Symmetric balanced accuracy: (1/2m) sum_i (c_ii/a_i + c_ii/b_i), NaN if a class is absent."""
    # Gösgens et al. (2021, Table 1) literally: every class of the class set enters 1/(2m), so a class absent
    # from gold or prediction leaves c_ii/a_i or c_ii/b_i undefined -- as in the binary form.
    m = c.shape[0]
    total = 0.0
    for i in range(m):
        a = _row(c, i)
        b = _col(c, i)
        if a == 0.0 or b == 0.0:
            out[0] = NAN
            return
        total += c[i, i] / a + c[i, i] / b
    out[0] = total / (2.0 * m)


@matrix_gufunc()
def confusion_entropy_mc(c, out):
    """Wei et al.'s confusion entropy of the off-diagonal cells, log base 2(m - 1)."""
    m = c.shape[0]
    n = 0.0
    total = 0.0
    for j in range(m):
        s = _row(c, j) + _col(c, j)
        n += _row(c, j)
        for k in range(m):
            if k != j:
                if c[j, k] > 0.0:
                    total += c[j, k] * math.log(c[j, k] / s)
                if c[k, j] > 0.0:
                    total += c[k, j] * math.log(c[k, j] / s)
    out[0] = -total / (2.0 * n * math.log(2.0 * (m - 1))) if n > 0.0 else NAN


@njit(cache=True)
def _mutual_information_bits(c):
    m = c.shape[0]
    a = np.zeros(m)
    b = np.zeros(m)
    for i in range(m):
        for j in range(m):
            a[i] += c[i, j]
            b[j] += c[i, j]
    n = a.sum()
    total = 0.0
    for i in range(m):
        for j in range(m):
            if c[i, j] > 0.0:
                total += (c[i, j] / n) * math.log2(c[i, j] * n / (a[i] * b[j]))
    return n, total


@matrix_gufunc()
def mutual_information_mc(c, out):
    """Mutual information of gold and prediction in bits: sum_ij p_ij log2(p_ij / (p_i. p_.j))."""
    n, total = _mutual_information_bits(c)
    out[0] = max(0.0, total) if n > 0.0 else NAN


@matrix_gufunc()
def proficiency_mc(c, out):
    """Steingold's proficiency (Steingold & Laclavík n.d., §3): I(A; P) / H(A), clipped to [0, 1]."""
    n, info = _mutual_information_bits(c)
    h = 0.0
    for i in range(c.shape[0]):
        a = _row(c, i)
        if a > 0.0:
            h -= (a / n) * math.log2(a / n)
    # H(A) = 0 when gold has one class: nothing to learn, the ratio is undefined (Steingold & Laclavík n.d., eq. 1)
    out[0] = min(1.0, max(0.0, info) / h) if n > 0.0 and h > 0.0 else NAN
