"""Confidence intervals of point measures, per cell, from the counts alone.

Resampling the items of a cell with replacement is a multinomial draw over its ``m x m``
counts: ``counts* ~ Multinomial(n, counts / n)``. So a bootstrap interval of any point measure
needs no pass over the data -- every cell's replicates are drawn from its counts at once
(numpy's ``Generator.multinomial``; chunks of cells so memory stays bounded, each with its own
random stream, on every thread) and the measure's kernel runs on them like on any counts.

- ``method="bootstrap"``: ``resamples`` replicates per cell; ``interval="percentile"`` (the
  ``(1 - ci) / 2`` and ``(1 + ci) / 2`` quantiles of the replicates) or ``"basic"``
  (``2·θ - `` those quantiles, reversed). Replicates where the measure is undefined are left out;
  a cell whose estimate is undefined has no interval. The same ``seed`` gives the same intervals,
  and the measures of one call read the same replicates (drawn once).
- ``method="wilson"`` and ``"jeffreys"``: the analytic intervals of a proportion (accuracy,
  error rate, precision, recall, specificity, npv and the complementary rates -- the measures
  whose record has ``proportion``): Wilson's score interval, and the equal-tailed Jeffreys
  interval (the Beta(x + 1/2, n - x + 1/2) quantiles, without Brown, Cai & DasGupta's
  0 / 1 ends at x = 0 and x = n), as ``statsmodels.stats.proportion.proportion_confint``
  computes them. Jeffreys needs scipy (the ``assignment`` extra).
"""

from __future__ import annotations

import warnings
from statistics import NormalDist

import numpy as np

from .._errors import ParameterError, parameter_error
from .._seeding import rng_of
from .._threads import on_threads
from . import api, registry

METHODS = ("bootstrap", "wilson", "jeffreys")
INTERVALS = ("percentile", "basic")
_CELLS = {"tn": (0, 0), "fp": (0, 1), "fn": (1, 0), "tp": (1, 1)}
_CHUNK_VALUES = 2_000_000  # resampled matrices per chunk and thread: ~64 MB of counts each
_MIN_CHUNK_VALUES = 100_000  # below this, a chunk is not worth a thread


def check(ci, method, resamples, interval) -> None:
    """Refuse options no interval takes, before anything is computed.

    Parameters
    ----------
    ci : float
        The confidence level, in (0, 1).
    method : {"bootstrap", "wilson", "jeffreys"}
    resamples : int
    interval : {"percentile", "basic"}
    """
    if isinstance(ci, bool) or not isinstance(ci, (int, float)) or not 0 < ci < 1:
        raise parameter_error("ci", "evaluate", "a confidence level strictly between 0 and 1 (e.g. 0.95)", ci)
    if method not in METHODS:
        raise parameter_error("method", "evaluate", "'bootstrap', 'wilson' or 'jeffreys'", method)
    if interval not in INTERVALS:
        raise parameter_error("interval", "evaluate", "'percentile' or 'basic'", interval)
    if isinstance(resamples, bool) or not isinstance(resamples, (int, np.integer)) or resamples < 10:
        raise parameter_error("resamples", "evaluate", "an integer >= 10", resamples)


def interval(
    spec,
    counts: np.ndarray,
    estimate: np.ndarray,
    *,
    ci=0.95,
    method="bootstrap",
    resamples=2000,
    seed=0,
    interval="percentile",
    average=None,
    smoothing=None,
    matrix_args=None,
):
    """The confidence interval of one measure on every cell.

    Parameters
    ----------
    spec : MeasureSpec
    counts : ndarray, shape (..., m, m)
        Checked counts (:func:`fastmetrics.measures.api.checked_counts`).
    estimate : ndarray
        The measure on ``counts`` (the centre of a ``basic`` interval).
    ci, method, resamples, seed, interval
        See the module docstring.
    average, smoothing, matrix_args
        As the measure was evaluated.

    Returns
    -------
    low, high : ndarray of float64
        Of the batch shape; NaN where there is no interval.
    """
    if method != "bootstrap":
        return _proportion_interval(spec, counts, ci, method)
    low, high = bootstrap_intervals(
        [spec],
        counts,
        estimate[None],
        ci=ci,
        resamples=resamples,
        seed=seed,
        interval=interval,
        averages=[average],
        smoothing=smoothing,
        matrix_args=[matrix_args],
    )
    return low[0], high[0]


def bootstrap_intervals(
    specs, counts, estimates, *, ci, resamples, seed, interval, averages, smoothing=None, matrix_args=None
):
    """Bootstrap intervals of several measures on every cell, from one set of replicates.

    Each chunk of cells is resampled once and every measure read from the same replicates (so
    the intervals of, say, precision and F1 come from the same resampled test sets, and the
    draws -- most of the time -- are made once).

    Parameters
    ----------
    specs : list of MeasureSpec
    counts : ndarray, shape (..., m, m)
        Checked counts.
    estimates : ndarray, shape (len(specs), ...)
        Each measure on ``counts``.
    ci, resamples, seed, interval
        See the module docstring.
    averages : list
        The averaging of each measure.
    smoothing : optional
        As the measures were evaluated.
    matrix_args : list of mapping, optional
        Array parameters of each measure's multiclass kernel.

    Returns
    -------
    low, high : ndarray of float64, shape (len(specs), ...)
        NaN where there is no interval.
    """
    m = counts.shape[-1]
    flat = counts.reshape(-1, m * m)
    n = flat.sum(axis=1)
    low, high = np.full((len(specs), n.size), np.nan), np.full((len(specs), n.size), np.nan)
    rng_of(seed)  # refuses a bad seed
    q = np.array([(1 - ci) / 2, (1 + ci) / 2])
    # 16 chunks for the threads to share, however many there are (the chunks fix the streams), unless
    # that makes chunks too small to be worth a thread
    step = max(1, min(_CHUNK_VALUES // resamples, max(-(-n.size // 16), -(-_MIN_CHUNK_VALUES // resamples))))
    starts = range(0, n.size, step)
    # one stream per chunk of cells: the same seed gives the same intervals on any number of threads
    streams = np.random.SeedSequence(int(seed)).spawn(len(starts))

    def chunk(j: int, start: int, stop: int) -> None:
        rng = np.random.default_rng(streams[j] if j >= 0 else 0)
        draws = _multinomial(rng, flat[start:stop], n[start:stop], resamples).reshape(stop - start, resamples, m, m)
        for i, spec in enumerate(specs):
            args = (matrix_args or [None] * len(specs))[i]
            values = api.values_of(spec, draws, average=averages[i], smoothing=smoothing, matrix_args=args)
            if j >= 0:
                low[i, start:stop], high[i, start:stop] = _quantiles(values, q)

    # warnings filters are process-wide and not thread-safe: set once here, not in the threads
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a cell without a defined replicate: no interval
        if len(starts) == 1:
            chunk(0, 0, n.size)
        elif len(starts) > 1:
            chunk(-1, 0, 1)  # one cell first, alone: it compiles the kernels the measures need
            on_threads(chunk, ((j, start, min(start + step, n.size)) for j, start in enumerate(starts)))
    shape = (len(specs),) + counts.shape[:-2]
    low, high = low.reshape(shape), high.reshape(shape)
    if interval == "basic":
        low, high = 2 * estimates - high, 2 * estimates - low
    undefined = np.isnan(estimates)
    return np.where(undefined, np.nan, low), np.where(undefined, np.nan, high)


def _quantiles(values: np.ndarray, q: np.ndarray) -> np.ndarray:
    """``np.nanpercentile(values, 100 * q, axis=1)`` (linear interpolation), by a partition
    around the order statistics it reads instead of a sort of every row; rows with an undefined
    replicate (NaN) take numpy's path, whose count of defined values differs by row."""
    rows, count = values.shape
    out = np.full((q.size, rows), np.nan)
    nan_rows = np.isnan(values).any(axis=1)
    if nan_rows.any():  # (its all-NaN RuntimeWarning is silenced by the caller, outside the threads)
        with np.errstate(all="ignore"):
            out[:, nan_rows] = np.nanpercentile(values[nan_rows], 100 * q, axis=1)
        values = values[~nan_rows]
    if values.size:
        position = q * (count - 1)
        below = np.floor(position).astype(np.int64)
        above = np.minimum(below + 1, count - 1)
        ordered = np.partition(values, np.unique(np.r_[below, above]), axis=1)
        a, b, t = ordered[:, below].T, ordered[:, above].T, (position - below)[:, None]
        with np.errstate(invalid="ignore"):  # inf - inf: NaN, as numpy gives
            # numpy's lerp: from the nearer end, so that t = 0 and t = 1 give a and b exactly
            out[:, ~nan_rows] = np.where(t < 0.5, a + (b - a) * t, b - (b - a) * (1 - t))
    return out


def _multinomial(rng, counts, n, resamples) -> np.ndarray:
    """``resamples`` multinomial draws per row: Multinomial(n, counts / n); empty rows stay 0."""
    with np.errstate(invalid="ignore", divide="ignore"):
        p = np.where(n[:, None] > 0, counts / np.maximum(n, 1)[:, None], 0.0)
    p = p / np.maximum(p.sum(axis=1, keepdims=True), 1e-300)  # exact sums for numpy's check
    draws = rng.multinomial(n[:, None].astype(np.int64), p[:, None, :], size=(n.size, resamples))
    return draws if np.issubdtype(counts.dtype, np.integer) else draws.astype(np.float64)


def _proportion_interval(spec, counts, ci, method):
    record = spec.measure
    if record.proportion is None:
        names = ", ".join(sorted(n for n in _proportion_names()))
        raise ParameterError(
            f"method={method!r} is the interval of a proportion ({names}); {record.name} is not one: "
            "use method='bootstrap'."
        )
    if counts.shape[-1] != 2:
        raise ParameterError(f"method={method!r} reads binary counts; these have {counts.shape[-1]} classes.")
    numerator, denominator = ([counts[(..., *_CELLS[c])] for c in part] for part in record.proportion)
    x, n = sum(numerator).astype(np.float64), sum(denominator).astype(np.float64)
    alpha = 1 - ci
    with np.errstate(invalid="ignore", divide="ignore"):
        if method == "wilson":
            z = NormalDist().inv_cdf(1 - alpha / 2)
            centre = (x + z * z / 2) / (n + z * z)
            half = z / (n + z * z) * np.sqrt(x * (n - x) / n + z * z / 4)
            low, high = centre - half, centre + half
        else:
            low, high = _jeffreys(x, n, alpha)
    empty = n <= 0
    return np.where(empty, np.nan, low), np.where(empty, np.nan, high)


def _jeffreys(x, n, alpha):
    try:
        from scipy.stats import beta
    except ImportError:  # pragma: no cover - scipy is a test dependency
        raise ParameterError("method='jeffreys' needs scipy: pip install 'fastmetrics[assignment]'.") from None
    return beta.ppf(alpha / 2, x + 0.5, n - x + 0.5), beta.ppf(1 - alpha / 2, x + 0.5, n - x + 0.5)


def _proportion_names():
    return [m.name for m in registry.all_measures() if m.proportion is not None]
