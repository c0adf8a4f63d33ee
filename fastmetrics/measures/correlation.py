"""Gösgens et al.'s (2021) measures: Generalized Means GM_r, Symmetric Balanced Accuracy, Correlation
Distance (CD, CD') and Confusion Entropy, binary forms.

Notation of Gösgens et al. (2021): ``a_i`` = size of class i in the true labeling (a1 = AP, a0 = AN), ``b_i``
= size in the predicted labeling (b1 = PP, b0 = PN).
"""

from __future__ import annotations

import math

from . import _multiclass_kernels as _mc
from ._binary_kernels import mcc_kernel
from ._kernels import NAN, binary_ufunc, safe_div
from .binary import CLASS_SYMMETRIC, GOESGENS_2021, JOINT, SCALE_INVARIANT, TRANSPOSE_SYMMETRIC
from .registry import Measure, Param, register


@binary_ufunc(1)
def _gm_kernel(tp, fp, fn, tn, r):
    a1 = tp + fn
    a0 = fp + tn
    b1 = tp + fp
    b0 = fn + tn
    x = a1 * a0
    y = b1 * b0
    num = tp * tn - fp * fn  # = n c11 - a1 b1
    if r == 0.0:
        # the r -> 0 limit: geometric mean sqrt(x y), i.e. the Matthews coefficient
        return mcc_kernel(tp, fp, fn, tn)
    hi = max(x, y)
    if hi == 0.0:
        return NAN
    lo = min(x, y)
    if lo == 0.0 and r < 0.0:
        return NAN  # a power mean of order r < 0 with a zero argument is 0
    # scaled power mean: stays finite for large counts and large |r|
    mean = hi * (0.5 * (1.0 + (lo / hi) ** r)) ** (1.0 / r)
    return safe_div(num, mean)


@binary_ufunc()
def _sba_kernel(tp, fp, fn, tn):
    a1 = tp + fn
    a0 = fp + tn
    b1 = tp + fp
    b0 = fn + tn
    if a1 == 0.0 or a0 == 0.0 or b1 == 0.0 or b0 == 0.0:
        return NAN
    return 0.25 * (tp / a1 + tn / a0 + tp / b1 + tn / b0)


@binary_ufunc()
def _cd_kernel(tp, fp, fn, tn):
    # clamp: rounding can put MCC a few ulps outside [-1, 1], where acos is undefined; NaN passes
    c = mcc_kernel(tp, fp, fn, tn)
    return math.acos(min(1.0, max(-1.0, c))) / math.pi if c == c else NAN


@binary_ufunc()
def _cd_prime_kernel(tp, fp, fn, tn):
    c = mcc_kernel(tp, fp, fn, tn)
    return math.sqrt(max(0.0, 2.0 * (1.0 - c))) if c == c else NAN


@binary_ufunc()
def _confusion_entropy_kernel(tp, fp, fn, tn):
    n = tp + fp + fn + tn
    if n == 0.0:
        return NAN
    # Gösgens et al. (2021, Table 1) with m = 2: log base 2(m - 1) = 2; off-diagonal cells c01 = fp, c10 = fn,
    # normalised by a_j + b_j of each class j.
    total = 0.0
    s1 = (tp + fn) + (tp + fp)
    s0 = (fp + tn) + (fn + tn)
    for c in (fp, fn):
        if c > 0.0:
            total += c * math.log2(c / s1) + c * math.log2(c / s0)
    return -total / (2.0 * n)


register(
    Measure(
        name="gm",
        kernel=_gm_kernel,
        aliases=("generalized_means", "gm_r"),
        params=(Param("r", 1.0, "order of the power mean in the denominator (r = 0: MCC, r = -1: SBA-like)"),),
        summary="Gösgens et al.'s Generalized Means: n c11 - a1 b1 over the power mean of a1 a0 and b1 b0.",
        formula="(tp tn - fp fn) / M_r(AP AN, PP PN), M_r(x, y) = ((x^r + y^r)/2)^(1/r), M_0 = sqrt(x y)",
        latex=r"GM_r = \frac{n c_{11} - a_1 b_1}{\sqrt[r]{\frac{1}{2}(a_1^r a_0^r + b_1^r b_0^r)}}",
        range=(-1.0, 1.0),
        higher_is_better=True,
        family="informativeness",
        undefined_when="the power mean is 0: a class is absent from gold and prediction (r > 0), or from "
        "either (r <= 0)",
        reference=GOESGENS_2021 + ", Definition 10",
        smoothed=JOINT,
        properties=frozenset({CLASS_SYMMETRIC, TRANSPOSE_SYMMETRIC, SCALE_INVARIANT}),
    )
)
register(
    Measure(
        name="sba",
        kernel=_sba_kernel,
        multiclass=_mc.sba_mc,
        multiclass_formula="(1/2m) sum_i (c_ii/a_i + c_ii/b_i); undefined when a class is absent from gold or from "
        "prediction",
        aliases=("symmetric_balanced_accuracy",),
        summary="Symmetric Balanced Accuracy: mean of balanced accuracy of C and of its transpose.",
        formula="(tp/AP + tn/AN + tp/PP + tn/PN) / 4",
        latex=r"SBA = \frac{1}{2m}\sum_i \left(\frac{c_{ii}}{a_i} + \frac{c_{ii}}{b_i}\right)",
        range=(0.0, 1.0),
        higher_is_better=True,
        family="informativeness",
        undefined_when="a class is absent from gold or from prediction (AP, AN, PP or PN is 0)",
        reference=GOESGENS_2021 + ", Table 1 and Statement 2",
        smoothed=JOINT,
        properties=frozenset({CLASS_SYMMETRIC, TRANSPOSE_SYMMETRIC, SCALE_INVARIANT}),
    )
)
register(
    Measure(
        name="cd",
        kernel=_cd_kernel,
        aliases=("correlation_distance",),
        summary="Correlation Distance arccos(MCC)/pi: a metric; lower is better.",
        formula="arccos(mcc) / pi",
        latex=r"CD = \frac{1}{\pi}\arccos(CC)",
        range=(0.0, 1.0),
        higher_is_better=False,
        family="informativeness",
        undefined_when="as mcc",
        reference=GOESGENS_2021 + ", Statement 4",
        smoothed=JOINT,
        properties=frozenset({CLASS_SYMMETRIC, TRANSPOSE_SYMMETRIC, SCALE_INVARIANT}),
    )
)
register(
    Measure(
        name="cd_prime",
        kernel=_cd_prime_kernel,
        aliases=("cd_sqrt",),
        summary="CD' = sqrt(2(1 - MCC)): a metric; lower is better.",
        formula="sqrt(2 (1 - mcc))",
        latex=r"CD' = \sqrt{2(1 - CC)}",
        range=(0.0, 2.0),
        higher_is_better=False,
        family="informativeness",
        undefined_when="as mcc",
        reference=GOESGENS_2021 + ", Statement 4",
        smoothed=JOINT,
        properties=frozenset({CLASS_SYMMETRIC, TRANSPOSE_SYMMETRIC, SCALE_INVARIANT}),
    )
)
register(
    Measure(
        name="confusion_entropy",
        kernel=_confusion_entropy_kernel,
        multiclass=_mc.confusion_entropy_mc,
        multiclass_formula="-(1/2n) sum_{i != j} [c_ji log_b(c_ji/(a_j + b_j)) + c_ij log_b(c_ij/(a_j + b_j))], "
        "b = 2(m - 1)",
        aliases=("ce", "cen"),
        summary="Wei et al.'s Confusion Entropy of the misclassifications; lower is better.",
        formula="-(1/2n) sum_{i != j} [c_ji log_b(c_ji/(a_j + b_j)) + c_ij log_b(c_ij/(a_j + b_j))], b = 2(m - 1)",
        latex=r"CE = -\frac{1}{2n}\sum_{i \ne j}\left(c_{ji}\log_{2(m-1)}\frac{c_{ji}}{a_j+b_j} + "
        r"c_{ij}\log_{2(m-1)}\frac{c_{ij}}{a_j+b_j}\right)",
        # Not bounded by 1 in the binary case: the supremum, found numerically here, is 1.061476 at
        # tp = tn = 0.132 n, fp = fn = 0.368 n (e.g. counts (4, 11, 11, 4) give 1.0615).
        range=(0.0, 1.061476),
        higher_is_better=False,
        family="none",
        undefined_when="n = 0",
        reference=GOESGENS_2021 + ", Table 1 (Wei et al. 2010)",
        smoothed=JOINT,
        properties=frozenset({CLASS_SYMMETRIC, TRANSPOSE_SYMMETRIC, SCALE_INVARIANT}),
    )
)
