"""Intervals of curve areas: DeLong's variance of ROC AUC, DeLong's covariance of several systems'
AUCs on the same items, and the bootstrap of a sweep's groups for any curve measure.

**DeLong.** For a group with ``M`` positives and ``N`` negatives, the placement value of a positive
is the share of negatives it outscores, ``V10_i = (#{negatives below} + #{tied} / 2) / N``, and of a
negative the share of positives that outscore it, ``V01_j = (#{positives above} + #{tied} / 2) / M``;
the AUC is the mean of either, and DeLong, DeLong & Clarke-Pearson (1988) estimate its variance as
``S10 / M + S01 / N``, the sample variances (``n - 1``) of the placement values. Sun & Xu (2014) get the
placement values from midranks in ``O(n log n)``: ``V10_i = (Tz_i - Tx_i) / N`` and
``V01_j = 1 - (Tz_j - Ty_j) / M``, ``Tz`` the midranks among all the group's scores and ``Tx``, ``Ty``
among the positives' and the negatives'. A sweep already holds the scores sorted: items of one
cell (one distinct score of an exact sweep) share their placement value, which the cumulative
counts give directly (``V10 = (N - fp + neg / 2) / N`` at a cell with ``neg`` negatives), so the
variance of every group is one pass over its cells (:func:`delong_variance_curve`), for every
group of the sweep at once. The interval is ``AUC ± z sqrt(var)``, cut to [0, 1] (as R's pROC).
On a grid the cells are the grid's bins: the variance of the binned classifier's AUC, which is
the area the grid gives. A group whose items all share one class has none.

Two systems scored on the same items (:func:`delong_covariance`): the covariances of their
placement values give ``Var(AUC_a - AUC_b) = (S10_aa + S10_bb - 2 S10_ab) / M + (S01_aa + S01_bb -
2 S01_ab) / N``, DeLong's paired test (``z = (AUC_a - AUC_b) / sqrt(var)``, two-sided normal p-value).

**Bootstrap.** Any curve measure (ROC AUC, average precision, PR AUC, partial AUC, operating points):
each replicate draws the group's ``n`` items with replacement -- the items laid out by cell and class,
a uniform position a draw -- and the measure's own kernel reads the replicate's cumulative counts;
percentile (or basic) intervals of the replicates, NaN ones left out. Each group's random stream is
seeded by the seed and the group's position, so the intervals do not depend on the threads.
"""

from __future__ import annotations

import math
import warnings
from statistics import NormalDist

import numba
import numpy as np
from numba import types

from .. import _memory
from .._errors import ParameterError
from .._threads import on_threads, thread_count
from ..tensor import Scores
from ._groups import over_groups
from ._kernels import group_kernel
from .sweeps import curve_scores, sweep_cells

NAN = np.nan
_BLOCK_VALUES = 1 << 22  # replicate values of a block of groups held at once: 32 MiB


@group_kernel
def delong_variance_curve(tp, fp, fn, tn, params):
    """DeLong's variance of one group's ROC AUC from its cells in decreasing threshold order.

    Items below the last cell's threshold (a grid's bottom bin) form a last level of their own."""
    positives = tp[0] + fn[0]
    negatives = fp[0] + tn[0]
    if positives <= 0 or negatives <= 0:
        return NAN
    m = float(positives)
    n = float(negatives)
    auc = 0.0
    previous_tp, previous_fp = 0.0, 0.0
    for i in range(tp.size + 1):  # the first pass: the AUC as the positives' mean placement
        at_tp = float(tp[i]) if i < tp.size else m
        at_fp = float(fp[i]) if i < tp.size else n
        pos, neg = at_tp - previous_tp, at_fp - previous_fp
        auc += pos * (n - at_fp + 0.5 * neg) / n
        previous_tp, previous_fp = at_tp, at_fp
    auc /= m
    s10, s01 = 0.0, 0.0
    previous_tp, previous_fp = 0.0, 0.0
    for i in range(tp.size + 1):
        at_tp = float(tp[i]) if i < tp.size else m
        at_fp = float(fp[i]) if i < tp.size else n
        pos, neg = at_tp - previous_tp, at_fp - previous_fp
        v10 = (n - at_fp + 0.5 * neg) / n - auc
        v01 = (previous_tp + 0.5 * pos) / m - auc
        s10 += pos * v10 * v10
        s01 += neg * v01 * v01
        previous_tp, previous_fp = at_tp, at_fp
    var10 = s10 / (m - 1.0) if m > 1 else 0.0
    var01 = s01 / (n - 1.0) if n > 1 else 0.0
    return var10 / m + var01 / n


def delong_bounds(auc, variance, ci: float):
    """``AUC ± z sqrt(var)`` at level ``ci``, cut to [0, 1]; NaN where either is undefined.

    Parameters
    ----------
    auc, variance : ndarray
    ci : float

    Returns
    -------
    low, high : ndarray of float64
    """
    z = NormalDist().inv_cdf(0.5 + ci / 2)
    with np.errstate(invalid="ignore"):
        half = z * np.sqrt(variance)
        low, high = np.clip(auc - half, 0.0, 1.0), np.clip(auc + half, 0.0, 1.0)
    undefined = np.isnan(auc) | np.isnan(variance)
    return np.where(undefined, np.nan, low), np.where(undefined, np.nan, high)


def placements(scores, gold):
    """Sun & Xu's placement values of several systems scored on the same items.

    Parameters
    ----------
    scores : ndarray of float64, shape (systems, items)
    gold : ndarray of bool, shape (items,)

    Returns
    -------
    auc : ndarray, shape (systems,)
    v10 : ndarray, shape (systems, positives)
    v01 : ndarray, shape (systems, negatives)
    """
    from scipy.stats import rankdata

    scores = np.asarray(scores, np.float64)
    gold = np.asarray(gold, bool)
    x, y = scores[:, gold], scores[:, ~gold]
    m, n = x.shape[1], y.shape[1]
    if m == 0 or n == 0:
        raise ParameterError(f"DeLong's test needs positive and negative items; these have {m} and {n}.")
    tz = rankdata(np.concatenate([x, y], axis=1), axis=1)  # midranks among all items
    tx, ty = rankdata(x, axis=1), rankdata(y, axis=1)
    v10 = (tz[:, :m] - tx) / n
    v01 = 1.0 - (tz[:, m:] - ty) / m
    return v10.mean(axis=1), v10, v01


def delong_covariance(scores, gold):
    """The AUCs of several systems on the same items and DeLong's covariance matrix of them.

    Parameters
    ----------
    scores : ndarray of float64, shape (systems, items)
    gold : ndarray of bool, shape (items,)

    Returns
    -------
    auc : ndarray, shape (systems,)
    covariance : ndarray, shape (systems, systems)
        ``S10 / M + S01 / N`` (:mod:`fastmetrics.measures.area_intervals`).
    """
    auc, v10, v01 = placements(scores, gold)
    m, n = v10.shape[1], v01.shape[1]
    s10 = np.cov(v10) if m > 1 else np.zeros((len(auc), len(auc)))
    s01 = np.cov(v01) if n > 1 else np.zeros((len(auc), len(auc)))
    return auc, np.atleast_2d(s10) / m + np.atleast_2d(s01) / n


def delong_test(auc, covariance, first, second, ci: float = 0.95):
    """DeLong's paired test of ROC AUCs: the difference, its interval and two-sided p-value.

    Parameters
    ----------
    auc : ndarray, shape (systems,)
    covariance : ndarray, shape (systems, systems)
        :func:`delong_covariance`.
    first, second : ndarray of int
        The pairs.
    ci : float, default 0.95

    Returns
    -------
    difference, low, high, p_value : ndarray of float64
        NaN p-value where the difference has no variance (identical scores).
    """
    difference = auc[first] - auc[second]
    variance = covariance[first, first] + covariance[second, second] - 2 * covariance[first, second]
    z = NormalDist().inv_cdf(0.5 + ci / 2)
    with np.errstate(invalid="ignore", divide="ignore"):
        sd = np.sqrt(np.maximum(variance, 0.0))
        p = np.array([math.erfc(abs(d) / s / math.sqrt(2.0)) if s > 0 else math.nan for d, s in zip(difference, sd)])
    return difference, difference - z * sd, difference + z * sd, p


# -- the bootstrap of a sweep's groups ------------------------------------------------------------


def _bootstrap_loop(curve, counts, starts, params, resamples, seed, first_group, out):
    """``out[g, r]``: the curve measure on replicate ``r`` of group ``first_group + g``."""
    for g in range(starts.size - 1):
        lo, hi = starts[g], starts[g + 1]
        if hi <= lo:
            for r in range(resamples):
                out[g, r] = NAN
            continue
        c = counts[lo:hi]
        cells = hi - lo
        positives = c[0, 1, 1] + c[0, 1, 0]
        negatives = c[0, 0, 1] + c[0, 0, 0]
        items = positives + negatives
        # the items laid out by level (the cells, then the bottom bin) and class: category 2 l + class
        size = np.zeros(2 * cells + 2, np.int64)
        before_tp, before_fp = 0, 0
        for i in range(cells):
            size[2 * i + 1] = c[i, 1, 1] - before_tp
            size[2 * i] = c[i, 0, 1] - before_fp
            before_tp, before_fp = c[i, 1, 1], c[i, 0, 1]
        size[2 * cells + 1] = positives - before_tp
        size[2 * cells] = negatives - before_fp
        category = np.empty(items, np.int64)
        k = 0
        for j in range(2 * cells + 2):
            for _ in range(size[j]):
                category[k] = j
                k += 1
        # numba's own generator (per thread, seeded here per group): Generator objects do not enter the loop
        np.random.seed((seed * 1_000_003 + first_group + g) % 4294967296)  # noqa: NPY002
        drawn = np.zeros(2 * cells + 2, np.int64)
        tp = np.empty(cells, np.int64)
        fp = np.empty(cells, np.int64)
        fn = np.empty(cells, np.int64)
        tn = np.empty(cells, np.int64)
        for r in range(resamples):
            drawn[:] = 0
            for _ in range(items):
                drawn[category[np.random.randint(0, items)]] += 1  # noqa: NPY002
            total_pos = 0
            total_neg = 0
            for j in range(cells + 1):
                total_pos += drawn[2 * j + 1]
                total_neg += drawn[2 * j]
            run_tp, run_fp = 0, 0
            for i in range(cells):
                run_tp += drawn[2 * i + 1]
                run_fp += drawn[2 * i]
                tp[i], fp[i] = run_tp, run_fp
                fn[i], tn[i] = total_pos - run_tp, total_neg - run_fp
            out[g, r] = curve(tp, fp, fn, tn, params)


_LOOP: list = []


def _loop():
    """The bootstrap loop, compiled (or read from the cache) on first use, the measure's kernel a
    first-class function of a fixed type (one loop for every curve measure)."""
    if not _LOOP:
        side = types.Array(types.int64, 1, "A")
        vector = types.Array(types.float64, 1, "C")
        kernel = types.FunctionType(types.float64(side, side, side, side, vector))
        signature = types.void(
            kernel,
            types.Array(types.int64, 3, "C"),
            types.Array(types.int64, 1, "C"),
            vector,
            types.int64,
            types.int64,
            types.int64,
            types.Array(types.float64, 2, "C"),
        )
        _LOOP.append(numba.njit(signature, cache=True, nogil=True)(_bootstrap_loop))
    return _LOOP[0]


def bootstrap_curve_bounds(kernel, counts, starts, params, *, ci, resamples, seed, interval, estimates):
    """Bootstrap intervals of one curve measure on every group of a sweep.

    Parameters
    ----------
    kernel : numba dispatcher
        The measure's curve kernel ``(tp, fp, fn, tn, params) -> float``.
    counts : ndarray of int64, shape (cells, 2, 2)
        The sweep's cells in decreasing threshold order.
    starts : ndarray of int64
        Where each group's cells start; the last entry is the cell count.
    params : ndarray of float64
    ci : float
    resamples : int
    seed : int
    interval : {"percentile", "basic"}
    estimates : ndarray of float64, shape (groups,)
        The measure on each group (the centre of a basic interval).

    Returns
    -------
    low, high : ndarray of float64, shape (groups,)
    """
    if counts.dtype.kind == "f":
        raise ParameterError(
            "Bootstrap intervals of curve measures resample items: weighted counts do not say how many a cell "
            "holds; count without weights."
        )
    counts = np.ascontiguousarray(counts, np.int64)
    starts = np.ascontiguousarray(starts, np.int64)
    params = np.ascontiguousarray(params, np.float64)
    n_groups = starts.size - 1
    _memory.check_replicates(resamples, 8 * min(n_groups, _BLOCK_VALUES // max(resamples, 1)) * 2, "Curve bootstrap")
    q = [100 * (1 - ci) / 2, 100 * (1 + ci) / 2]
    low, high = np.full(n_groups, np.nan), np.full(n_groups, np.nan)
    block = max(1, _BLOCK_VALUES // max(resamples, 1))
    loop = _loop()
    for start in range(0, n_groups, block):
        stop = min(n_groups, start + block)
        out = np.empty((stop - start, resamples))
        parts = max(1, min(thread_count(), stop - start))
        cuts = [start + (stop - start) * i // parts for i in range(parts + 1)]
        calls = [
            (kernel, counts, starts[a : b + 1], params, resamples, int(seed), a, out[a - start : b - start])
            for a, b in zip(cuts[:-1], cuts[1:])
            if b > a
        ]
        on_threads(loop, calls)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # a group without a defined replicate
            low[start:stop], high[start:stop] = np.nanpercentile(out, q, axis=1)
    if interval == "basic":
        low, high = 2 * estimates - high, 2 * estimates - low
    undefined = np.isnan(estimates)
    return np.where(undefined, np.nan, low), np.where(undefined, np.nan, high)


def curve_intervals(tensor, specs, *, ci, method, resamples, seed, interval, undefined=None, warn=False):
    """Curve measures of a sweep with their intervals: what ``evaluate(..., ci=)`` returns for them.

    Parameters
    ----------
    tensor : ConfusionTensor
        A threshold sweep (exact or a grid).
    specs : list of MeasureSpec
        Curve measures (kind ``curve``), not averaged over classes.
    ci, method, resamples, seed, interval
        As :func:`fastmetrics.measures.evaluation.evaluate` takes them: ``method`` ``"delong"``
        (ROC AUC only) or ``"bootstrap"``.
    undefined, warn
        As :func:`fastmetrics.measures.sweeps.curve_scores`.

    Returns
    -------
    Scores
        With ``low`` and ``high``.
    """
    _check_curve_intervals(specs, method)
    scores = curve_scores(tensor, specs, undefined=undefined, warn=warn)
    cells, starts, _, _, place = sweep_cells(tensor)
    low, high = np.full(scores.values.shape, np.nan), np.full(scores.values.shape, np.nan)
    for i, spec in enumerate(specs):
        flat = scores.values[i].reshape(-1)[place]
        params = np.asarray(spec.params, np.float64)
        if method == "delong":
            variance = np.empty(starts.size - 1)
            with np.errstate(invalid="ignore", divide="ignore"):
                over_groups(delong_variance_curve, cells, starts, params, variance)
            lo, hi = delong_bounds(flat, variance, ci)
        else:
            options = dict(ci=ci, resamples=resamples, seed=seed, interval=interval, estimates=flat)
            lo, hi = bootstrap_curve_bounds(spec.measure.kernel, cells, starts, params, **options)
        low.reshape(len(specs), -1)[i, place], high.reshape(len(specs), -1)[i, place] = lo, hi
    return Scores(scores.values, scores.measures, scores.axes, scores.coords, low=low, high=high)


def _check_curve_intervals(specs, method) -> None:
    """Refuse what has no interval here: ranking and calibration measures, class averages, DeLong's
    interval of anything but the full ROC AUC, the intervals of a proportion."""
    other = [s.base_label for s in specs if s.measure.kind != "curve"]
    if other:
        raise ParameterError(
            f"Intervals are computed for point measures (from the counts) and curve measures of a threshold sweep; "
            f"not for {', '.join(other)}: evaluate them without ci (or in a separate call)."
        )
    averaged = [s.label for s in specs if s.average not in (None, "none")]
    if averaged:
        raise ParameterError(
            f"{', '.join(averaged)}: intervals of curve measures averaged over classes are not computed (the classes "
            "share the items); ask per class (@none) or drop ci=."
        )
    if method in ("wilson", "jeffreys"):
        raise ParameterError(
            f"method={method!r} is the interval of a proportion; curve measures take method='delong' (ROC AUC) "
            "or 'bootstrap'."
        )
    if method == "delong":
        wrong = [s.label for s in specs if s.measure.name != "roc_auc" or (s.params and s.params[0] < 1.0)]
        if wrong:
            raise ParameterError(
                f"DeLong's interval is the full ROC AUC's; {', '.join(wrong)} take(s) method='bootstrap'."
            )
