"""Calibration measures: how well binary scores read as probabilities of the positive class.

They read the same exact sweep as the curve measures (``thresholds="exact"``: one cell per
distinct score ``f`` of a group, cumulative counts of the items scoring ``>= f``, highest first).
Differencing neighbouring cells gives, for every distinct score ``f_k``, the weight ``n_k`` of the
items scoring exactly ``f_k`` and the weight ``o_k`` of the positive ones among them -- all a
calibration measure needs, exactly, without a second pass over the items:

- **Brier score** (Brier 1950): ``BS = Σ_k [o_k (1 − f_k)² + (n_k − o_k) f_k²] / N``, equal to
  scikit-learn's ``brier_score_loss``.
- **Murphy's decomposition** (Murphy 1973), with one bin per distinct score, so it is exact
  (on continuous scores, all distinct, it is exact but degenerate: REL = BS and RES = UNC):
  ``BS = REL − RES + UNC``, ``REL = Σ n_k (f_k − ō_k)² / N``, ``RES = Σ n_k (ō_k − ō)² / N``,
  ``UNC = ō (1 − ō)`` (``ō_k = o_k / n_k``, ``ō`` the share of positives).
- **Expected and maximum calibration error** (Naeini et al. 2015; Guo et al. 2017) over ``B``
  bins: ``ECE = Σ_b |O_b − F_b| / N`` and ``MCE = max_b |O_b − F_b| / n_b`` over the non-empty
  bins, where ``O_b`` is the positives' weight and ``F_b`` the sum of the scores in bin ``b``
  (``|O_b − F_b| / n_b`` = |observed frequency − mean score|). Equal-width bins: bin ``b`` holds
  the scores in ``[b/B, (b+1)/B)`` and the last one ``[(B-1)/B, 1]`` -- ``B`` bins, a score of
  exactly 1 in the last, as Naeini et al. and Guo et al. bin. The edges are the exact fractions
  ``b/B``. torchmetrics' ``binary_calibration_error`` differs in two ways: a score of exactly 1
  falls in a bin of its own beyond the ``B`` (on gold ``[0, 1]``, scores ``[1.0, 0.95]`` and 2
  bins its ECE is 0.525, here 0.475), and it compares with ``linspace``'s rounded edges, so a
  score sitting on an edge (0.3 with 10 bins) may fall in the bin below. On scores below 1 and
  off the edges the two agree. Equal-mass
  bins: with the items sorted by increasing score, an item goes to bin ``⌊B · r / N⌋`` where
  ``r`` is the weight of the items scoring strictly below it -- so tied items share a bin and
  bins hold ``N / B`` items each up to ties.

Scores must lie in [0, 1]; :func:`fastmetrics.evaluate` refuses others. The positive class is
gold 1 (binary counts).
"""

from __future__ import annotations

import numba
import numpy as np

from ._kernels import group_kernel
from .registry import Measure, Param, register

NAN = np.nan


@numba.njit(cache=True, inline="always")  # no module of its own to compile
def _level(tp, fp, k):
    """(weight, positives' weight) of the items scoring exactly the k-th highest distinct score."""
    if k == 0:
        return tp[0] + fp[0], tp[0]
    return tp[k] + fp[k] - tp[k - 1] - fp[k - 1], tp[k] - tp[k - 1]


@numba.njit(cache=True, inline="always")  # no module of its own to compile
def _total(tp, fp, fn, tn):
    return tp[0] + fp[0] + fn[0] + tn[0]


@numba.njit(cache=True, inline="always")  # no module of its own to compile
def _squared_errors(n, o, f):
    """The squared differences between the score f and the labels of the n items scoring it, o of
    them positive (Brier's sum, shared by the measure and the reliability diagram)."""
    return o * (1.0 - f) ** 2 + (n - o) * f * f


@group_kernel
def brier(tp, fp, fn, tn, scores, params):
    """Mean squared difference between the score and the gold label (1 positive, 0 negative)."""
    total = _total(tp, fp, fn, tn)
    if total <= 0:
        return NAN
    s = 0.0
    for k in range(tp.size):
        n, o = _level(tp, fp, k)
        s += _squared_errors(n, o, scores[k])
    return s / total


@group_kernel
def _murphy(tp, fp, fn, tn, scores, part):
    """Reliability (part 0) or resolution (part 1) of Murphy's decomposition, one bin per score."""
    total = _total(tp, fp, fn, tn)
    if total <= 0:
        return NAN
    base = (tp[0] + fn[0]) / total
    s = 0.0
    for k in range(tp.size):
        n, o = _level(tp, fp, k)
        if n > 0:
            s += n * ((scores[k] - o / n) ** 2 if part == 0 else (o / n - base) ** 2)
    return s / total


@group_kernel
def brier_reliability(tp, fp, fn, tn, scores, params):
    """Σ n_k (f_k − ō_k)² / N: how far each score is from the frequency it is followed by."""
    return _murphy(tp, fp, fn, tn, scores, 0)


@group_kernel
def brier_resolution(tp, fp, fn, tn, scores, params):
    """Σ n_k (ō_k − ō)² / N: how far the frequencies after each score are from the base rate."""
    return _murphy(tp, fp, fn, tn, scores, 1)


@group_kernel
def brier_uncertainty(tp, fp, fn, tn, scores, params):
    """ō (1 − ō): the Brier score of always forecasting the base rate."""
    total = _total(tp, fp, fn, tn)
    if total <= 0:
        return NAN
    base = (tp[0] + fn[0]) / total
    return base * (1.0 - base)


@numba.njit(cache=True, inline="always")  # no module of its own to compile
def _width_bin(f, bins):
    """The equal-width bin of score f: the largest b with b / bins <= f, at most bins - 1."""
    b = min(int(f * bins), bins - 1)
    while b < bins - 1 and (b + 1) / bins <= f:
        b += 1
    while b > 0 and b / bins > f:
        b -= 1
    return b


@group_kernel
def _binned_gaps(tp, fp, fn, tn, scores, bins, mass, worst):
    """ECE (worst False) or MCE (worst True) over equal-width (mass False) or equal-mass bins.

    The cells run from the highest score down, so each bin is a run of neighbouring cells."""
    total = _total(tp, fp, fn, tn)
    if total <= 0:
        return NAN
    result, current = 0.0, -1
    n_bin, o_bin, f_bin = 0.0, 0.0, 0.0
    for k in range(tp.size + 1):
        if k < tp.size:
            n, o = _level(tp, fp, k)
            below = total - (tp[k] + fp[k])
            b = min(int(bins * below / total), bins - 1) if mass else _width_bin(scores[k], bins)
        if (k == tp.size or b != current) and n_bin > 0:
            gap = abs(o_bin - f_bin)
            result = max(result, gap / n_bin) if worst else result + gap / total
            n_bin, o_bin, f_bin = 0.0, 0.0, 0.0
        if k < tp.size:
            current = b
            n_bin += n
            o_bin += o
            f_bin += n * scores[k]
    return result


@group_kernel
def ece(tp, fp, fn, tn, scores, params):
    """Expected calibration error over equal-width bins."""
    return _binned_gaps(tp, fp, fn, tn, scores, int(params[0]), False, False)


@group_kernel
def mce(tp, fp, fn, tn, scores, params):
    """Maximum calibration error over equal-width bins."""
    return _binned_gaps(tp, fp, fn, tn, scores, int(params[0]), False, True)


@group_kernel
def ece_mass(tp, fp, fn, tn, scores, params):
    """Expected calibration error over equal-mass bins."""
    return _binned_gaps(tp, fp, fn, tn, scores, int(params[0]), True, False)


@group_kernel
def mce_mass(tp, fp, fn, tn, scores, params):
    """Maximum calibration error over equal-mass bins."""
    return _binned_gaps(tp, fp, fn, tn, scores, int(params[0]), True, True)


@numba.njit(cache=True)
def _reliability_bins(tp, fp, scores, bins, scored, positives, weight):
    """Per equal-width bin, the items' weight, their scores' and their positives' sums; returns
    the sum of the squared errors (Brier's, in :func:`brier`'s order)."""
    squares = 0.0
    for k in range(tp.size):
        n, o = _level(tp, fp, k)
        b = _width_bin(scores[k], bins)
        weight[b] += n
        scored[b] += n * scores[k]
        positives[b] += o
        squares += _squared_errors(n, o, scores[k])
    return squares


def reliability_bins(counts, scores, bins: int = 10):
    """The points of a reliability diagram from one group's exact sweep, and its ECE and Brier score.

    Parameters
    ----------
    counts : ndarray, shape (cells, 2, 2)
        One group's cells of an exact sweep, highest score first.
    scores : ndarray, shape (cells,)
        Their scores (thresholds), in [0, 1].
    bins : int, default 10
        Equal-width bins ``[b/B, (b+1)/B)``, as :func:`ece`.

    Returns
    -------
    mean_score, frequency, weight : ndarray, shape (bins,)
        Per bin the mean score, the share of positives (NaN for an empty bin) and the weight of
        its items.
    ece, brier : float
        The expected calibration error over these bins and the Brier score: :func:`ece` with
        ``bins`` and :func:`brier`, the same numbers (ece's bins are these, their gaps added in
        the same order, highest bin first; Brier's squared errors summed as it sums them), taken
        in the pass that bins the scores rather than by two more kernels to compile on a first
        call. NaN for a group without items.
    """
    scored, positives, weight = np.zeros(bins), np.zeros(bins), np.zeros(bins)
    c = np.asarray(counts, np.float64)
    squares = _reliability_bins(c[:, 1, 1], c[:, 0, 1], np.asarray(scores, np.float64), bins, scored, positives, weight)
    total = c[0, 1, 1] + c[0, 0, 1] + c[0, 1, 0] + c[0, 0, 0] if c.shape[0] else 0.0
    ece = brier = NAN
    if total > 0:
        ece = 0.0
        for b in range(bins - 1, -1, -1):
            if weight[b] > 0:
                ece += abs(positives[b] - scored[b]) / total
        brier = squares / total
    with np.errstate(invalid="ignore", divide="ignore"):
        return scored / weight, positives / weight, weight, float(ece), float(brier)


# -- the records -------------------------------------------------------------------------------
_CAL = dict(family="none", kind="calibration", undefined_when="the group has no item")
_BINS = Param("bins", 15.0, "number of bins", low=1.0, high=1e6, integer=True)  # a bound: 1e19 overflowed int64
_BRIER = "Brier (1950), Monthly Weather Review 78(1); scikit-learn's brier_score_loss"
_MURPHY = "Murphy (1973), J. Applied Meteorology 12(4): BS = REL - RES + UNC, one bin per distinct score"
_ECE = "Naeini, Cooper & Hauskrecht (AAAI 2015); Guo et al. (ICML 2017)"
register(
    Measure(
        name="brier",
        kernel=brier,
        aliases=("brier_score", "brier_score_loss"),
        summary="Brier score: the mean squared difference between the score and the gold label.",
        formula="sum_i (s_i - y_i)^2 / N",
        latex=r"\frac{1}{N}\sum_i (s_i - y_i)^2",
        range=(0.0, 1.0),
        higher_is_better=False,
        reference=_BRIER,
        **_CAL,
    )
)
register(
    Measure(
        name="brier_reliability",
        kernel=brier_reliability,
        summary="Reliability part of the Brier score: the gap between each score and the frequency after it.",
        formula="sum_k n_k (f_k - o_k/n_k)^2 / N over the distinct scores f_k",
        latex=r"\frac{1}{N}\sum_k n_k (f_k - \bar o_k)^2",
        range=(0.0, 1.0),
        higher_is_better=False,
        reference=_MURPHY,
        **_CAL,
    )
)
register(
    Measure(
        name="brier_resolution",
        kernel=brier_resolution,
        summary="Resolution part of the Brier score: how far the frequencies after each score are from the base rate.",
        formula="sum_k n_k (o_k/n_k - o/N)^2 / N over the distinct scores f_k",
        latex=r"\frac{1}{N}\sum_k n_k (\bar o_k - \bar o)^2",
        range=(0.0, 0.25),
        higher_is_better=True,
        reference=_MURPHY,
        **_CAL,
    )
)
register(
    Measure(
        name="brier_uncertainty",
        kernel=brier_uncertainty,
        summary="Uncertainty part of the Brier score: the base rate's variance, a property of the gold "
        "labels alone (the same for every system).",
        formula="(P / N) (1 - P / N)",
        latex=r"\bar o (1 - \bar o)",
        range=(0.0, 0.25),
        higher_is_better=False,
        reference=_MURPHY,
        **_CAL,
    )
)
for _name, _kernel, _what, _mass in (
    ("ece", ece, "Expected", False),
    ("mce", mce, "Maximum", False),
    ("ece_mass", ece_mass, "Expected", True),
    ("mce_mass", mce_mass, "Maximum", True),
):
    _expected = _what == "Expected"
    register(
        Measure(
            name=_name,
            kernel=_kernel,
            summary=f"{_what} calibration error over {'equal-mass' if _mass else 'equal-width'} bins of the "
            "score: the " + ("weighted mean" if _expected else "largest") + " gap between the mean score and "
            "the frequency of positives in a bin.",
            formula=("sum_b |O_b - F_b| / N" if _expected else "max_b |O_b - F_b| / n_b")
            + (
                ", bin of an item = floor(B r / N), r the weight scoring below it" if _mass else ", bins [b/B, (b+1)/B)"
            ),
            latex=r"\sum_b \frac{n_b}{N} |\bar o_b - \bar s_b|" if _expected else r"\max_b |\bar o_b - \bar s_b|",
            range=(0.0, 1.0),
            higher_is_better=False,
            reference=_ECE,
            params=(_BINS,),
            **_CAL,
        )
    )
