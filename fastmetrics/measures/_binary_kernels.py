"""The binary kernels other kernels build on: the four conditional rates (recall, precision,
specificity, NPV), the Matthews coefficient, Sebastiani's K and the mutual information of gold and
prediction. Each is the kernel of its measure's record (``binary.py``, ``combined.py``) and is
called inside other measures' kernels (informedness, markedness, chi, CD, the power means of
Gösgens et al. (2021), k_cost, the multilabel proficiency), so it lives here, beside the building
blocks of :mod:`fastmetrics.measures._kernels`, not in one family's module.
"""

from __future__ import annotations

import math

from ._kernels import NAN, binary_ufunc, mutual_information2, safe_div, unit_scale


@binary_ufunc()
def recall_kernel(tp, fp, fn, tn):
    return safe_div(tp, tp + fn)


@binary_ufunc()
def precision_kernel(tp, fp, fn, tn):
    return safe_div(tp, tp + fp)


@binary_ufunc()
def specificity_kernel(tp, fp, fn, tn):
    return safe_div(tn, fp + tn)


@binary_ufunc()
def npv_kernel(tp, fp, fn, tn):
    return safe_div(tn, fn + tn)


@binary_ufunc()
def mcc_kernel(tp, fp, fn, tn):
    # One square root of the four-fold product: a single rounding, so a perfect classifier scores
    # exactly 1 (arccos-based CD amplifies a 1e-16 error to 1e-8). The counts are scaled by a power
    # of two first (unit_scale: the same bits), so the product stays finite at any magnitude.
    s = unit_scale(tp + fp + fn + tn)
    tp, fp, fn, tn = tp * s, fp * s, fn * s, tn * s
    return safe_div(tp * tn - fp * fn, math.sqrt(((tp + fp) * (fn + tn)) * ((tp + fn) * (fp + tn))))


@binary_ufunc()
def k_kernel(tp, fp, fn, tn):
    ap = tp + fn
    an = fp + tn
    # 2 (tn / an) is (2 tn) / an to the bit (doubling is exact): the branches share two quotients,
    # so a vector of cells divides twice, not four times
    if ap > 0.0 and an > 0.0:
        return tp / ap + tn / an - 1.0
    if an > 0.0:  # AP = 0: recall undefined, K defaults to rescaled specificity (eq. 5)
        return 2.0 * (tn / an) - 1.0
    if ap > 0.0:  # AN = 0: specificity undefined, K defaults to rescaled recall
        return 2.0 * (tp / ap) - 1.0
    return NAN


@binary_ufunc()
def mutual_information_kernel(tp, fp, fn, tn):
    if tp + fp + fn + tn == 0.0:
        return NAN
    return mutual_information2(tp, fp, fn, tn)
