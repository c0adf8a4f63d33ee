"""Scalar building blocks shared by the measure kernels (numba, no validation, no warnings)."""

from __future__ import annotations

import math

import numpy as np
from numba import njit, vectorize

NAN = np.nan


def binary_ufunc(n_params: int = 0):
    """Decorate a scalar function of ``(tp, fp, fn, tn, *params)`` into a float64 numba ufunc.

    Counts arrive as float64 (int64 counts are cast safely by the ufunc machinery), so products
    of marginals cannot overflow: the weather matrices of seed 003 reach 6.6e7 per cell.
    """
    sig = "float64(" + ", ".join(["float64"] * (4 + n_params)) + ")"
    return vectorize([sig], cache=True)


def prob_ufunc(n_params: int = 0):
    """Decorate a scalar function of the smoothed probabilities ``(r, s, p, v, g, q, *params)``
    -- recall P(S|G), specificity P(¬S|¬G), precision P(G|S), npv P(¬G|¬S), P(G), P(S) -- into
    a float64 numba ufunc (seed 004 §5)."""
    sig = "float64(" + ", ".join(["float64"] * (6 + n_params)) + ")"
    return vectorize([sig], cache=True)


@njit(cache=True, inline="always")
def harmonic(x, y, wx):
    """Weighted harmonic mean 1 / (wx/x + (1-wx)/y): 0 if either is 0, NaN if either is NaN."""
    if x != x or y != y:
        return NAN
    if x == 0.0 or y == 0.0:
        return 0.0
    return 1.0 / (wx / x + (1.0 - wx) / y)


@njit(cache=True, inline="always")
def safe_div(num, den):
    """num / den, NaN when den == 0 (the undefined case), never a silent 0."""
    if den == 0.0:
        return NAN
    return num / den


@njit(cache=True, inline="always")
def plogp_ratio(joint, row, col, n):
    """One term of the mutual information in bits: p_ij log2(p_ij / (p_i. p_.j)), 0 when c_ij = 0."""
    if joint <= 0.0:
        return 0.0
    return (joint / n) * math.log2(joint * n / (row * col))


@njit(cache=True, inline="always")
def entropy2(a, b, n):
    """Entropy in bits of the two-valued distribution (a/n, b/n), with 0 log 0 = 0."""
    h = 0.0
    if a > 0.0:
        h -= (a / n) * math.log2(a / n)
    if b > 0.0:
        h -= (b / n) * math.log2(b / n)
    return h


@njit(cache=True, inline="always")
def mutual_information2(tp, fp, fn, tn):
    """I(Actual; Predicted) in bits of a binary confusion matrix."""
    n = tp + fp + fn + tn
    ap = tp + fn
    an = fp + tn
    pp = tp + fp
    pn = fn + tn
    return (
        plogp_ratio(tp, ap, pp, n)
        + plogp_ratio(fn, ap, pn, n)
        + plogp_ratio(fp, an, pp, n)
        + plogp_ratio(tn, an, pn, n)
    )
