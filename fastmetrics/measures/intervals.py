"""Confidence intervals of point measures, per cell, from the counts alone.

Resampling the items of a cell with replacement is a multinomial draw over its ``m x m``
counts: ``counts* ~ Multinomial(n, counts / n)``. So a bootstrap interval of any point measure
needs no pass over the data -- every cell's replicates are drawn from its counts at once
(numpy's ``Generator.multinomial``; chunks of cells so memory stays bounded, each with its own
random stream, on every thread) and the measure's kernel runs on them like on any counts.

On a binary threshold sweep (a ``threshold`` axis whose cells are nested counts of one set of
items, as :func:`fastmetrics.count` makes them) the draw is made per group instead: its items
are resampled with replacement once per replicate and every threshold's counts read from that
draw (:func:`._resample_kernels.sweep_replicates`). Each cell's replicates are the same
``Multinomial(n, counts / n)``; what changes is that the thresholds of a replicate come from one
resampled test set, as the item bootstrap makes them, and that ``n`` draws serve all the
thresholds. Thresholds with equal counts (no item between them) share their replicates and
their interval. Intervals on other tensors are unchanged.

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
from . import _resample_kernels, api, registry

METHODS = ("bootstrap", "wilson", "jeffreys")
INTERVALS = ("percentile", "basic")
_CELLS = {"tn": (0, 0), "fp": (0, 1), "fn": (1, 0), "tp": (1, 1)}
_CHUNK_VALUES = 2_000_000  # resampled matrices per chunk and thread: ~64 MB of counts each
_MIN_CHUNK_VALUES = 100_000  # below this, a chunk is not worth a thread
_SWEEP_CHUNK_VALUES = 250_000  # replicates of a sweep's cells per chunk: ~8 MB, near the cache
# a replicate of a sweep draws its group's items (~0.7 ns each) where a multinomial per cell
# costs ~230 ns: items beyond this many per cell make the per-cell draws cheaper
_SWEEP_DRAWS_PER_CELL = 200
_KERNEL_QUANTILES = 1 << 20  # replicate values from which the quantile kernel beats numpy with its compile


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
    specs,
    counts,
    estimates,
    *,
    ci,
    resamples,
    seed,
    interval,
    averages,
    smoothing=None,
    matrix_args=None,
    sweep_axis=None,
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
    sweep_axis : int, optional
        The batch axis of a threshold sweep. When the cells along it are nested binary counts
        of one set of items (as :func:`fastmetrics.count` makes them), each group's items are
        resampled once per replicate for all its thresholds (:func:`_sweep_bounds`): every
        cell's replicates are still ``Multinomial(n, counts / n)``, drawn for a fraction of the
        cost.

    Returns
    -------
    low, high : ndarray of float64, shape (len(specs), ...)
        NaN where there is no interval.
    """
    rng_of(seed)  # refuses a bad seed
    q = np.array([(1 - ci) / 2, (1 + ci) / 2])
    options = dict(
        averages=averages,
        smoothing=smoothing,
        matrix_args=matrix_args or [None] * len(specs),
        q=q,
        kernel=len(specs) * resamples * (counts.size // counts.shape[-1] ** 2) >= _KERNEL_QUANTILES,
    )
    sweep = _sweep_layout(counts, sweep_axis, resamples)
    # warnings filters are process-wide and not thread-safe: set once here, not in the threads
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a cell without a defined replicate: no interval
        if sweep is None:
            low, high = _cell_bounds(specs, counts, resamples, seed, options)
        else:
            low, high = _sweep_bounds(specs, sweep, resamples, seed, options)
    shape = (len(specs),) + counts.shape[:-2]
    low, high = low.reshape(shape), high.reshape(shape)
    if interval == "basic":
        low, high = 2 * estimates - high, 2 * estimates - low
    undefined = np.isnan(estimates)
    return np.where(undefined, np.nan, low), np.where(undefined, np.nan, high)


def _bounds_of(specs, draws, options, low, high, rows) -> None:
    """Every measure on ``draws`` (``[rows, resamples, m, m]``), its quantiles written to
    ``low[:, rows]`` and ``high[:, rows]``."""
    for i, spec in enumerate(specs):
        values = api.values_of(
            spec,
            draws,
            average=options["averages"][i],
            smoothing=options["smoothing"],
            matrix_args=options["matrix_args"][i],
        )
        low[i, rows], high[i, rows] = _quantiles(values, options["q"], options["kernel"])


def _chunk_starts(rows, resamples, chunk_values):
    """Chunk starts over ``rows`` rows of ``resamples`` replicates: 16 chunks for the threads to
    share, however many threads there are (the chunks fix the random streams), unless that
    makes chunks too small to be worth a thread."""
    step = max(1, min(chunk_values // resamples, max(-(-rows // 16), -(-_MIN_CHUNK_VALUES // resamples))))
    return range(0, rows, step), step


def _cell_bounds(specs, counts, resamples, seed, options):
    """Each cell's replicates drawn from its own multinomial; ``low, high`` of shape
    ``[measure, cell]``."""
    m = counts.shape[-1]
    flat = counts.reshape(-1, m * m)
    n = flat.sum(axis=1)
    low, high = np.full((len(specs), n.size), np.nan), np.full((len(specs), n.size), np.nan)
    starts, step = _chunk_starts(n.size, resamples, _CHUNK_VALUES)
    # one stream per chunk of cells: the same seed gives the same intervals on any number of threads
    streams = np.random.SeedSequence(int(seed)).spawn(len(starts))
    scratch = (np.empty((len(specs), 1)), np.empty((len(specs), 1)))

    def chunk(j: int, start: int, stop: int) -> None:
        rng = np.random.default_rng(streams[j] if j >= 0 else 0)
        draws = _multinomial(rng, flat[start:stop], n[start:stop], resamples).reshape(stop - start, resamples, m, m)
        _bounds_of(
            specs, draws, options, *((low, high) if j >= 0 else scratch), slice(start, stop) if j >= 0 else slice(0, 1)
        )

    _run_chunks(chunk, starts, step, n.size)
    return low, high


def _run_chunks(chunk, starts, step, size) -> None:
    if len(starts) == 1:
        chunk(0, 0, size)
    elif len(starts) > 1:
        chunk(-1, 0, 1)  # one row first, alone, into scratch: it compiles the kernels the measures need
        on_threads(chunk, ((j, start, min(start + step, size)) for j, start in enumerate(starts)))


def _sweep_layout(counts, axis, resamples):
    """``counts`` as ``[group, threshold, 2, 2]`` nested sweeps (``tp`` and ``fp`` falling along
    the thresholds, the positives and negatives fixed), or None when they are not one, when
    drawing a group's items would cost more than a multinomial per cell, or when one group's
    replicates would not fit a chunk (the per-cell path bounds memory for any number of cells).

    Returns
    -------
    dict or None
        ``groups`` (the nested counts), ``distinct`` (``[group, threshold]``: the cell differs
        from the one below it), ``back`` (a function of ``[measure, group, threshold]``
        arrays to the batch shape of ``counts``).
    """
    if axis is None or counts.shape[-1] != 2 or not np.issubdtype(counts.dtype, np.integer):
        return None
    last = counts.ndim - 3  # the last batch axis
    moved = np.moveaxis(counts, axis, last)
    cells = moved.shape[last]
    if cells < 2 or moved.size == 0:
        return None
    groups = np.ascontiguousarray(moved.reshape(-1, cells, 2, 2), dtype=np.int64)
    positives, negatives = groups[:, :, 1].sum(axis=2), groups[:, :, 0].sum(axis=2)
    if (positives != positives[:, :1]).any() or (negatives != negatives[:, :1]).any():
        return None
    rising = np.diff(groups[:, :, :, 1], axis=1)  # of fp and tp
    reverse = bool((rising >= 0).all() and (rising != 0).any())
    if not reverse and (rising > 0).any():
        return None
    if reverse:
        groups = np.ascontiguousarray(groups[:, ::-1])
    items = positives[:, 0] + negatives[:, 0]
    if items.max() > _SWEEP_DRAWS_PER_CELL * cells or items.max() >= 2**31:
        return None
    distinct = np.ones((groups.shape[0], cells), bool)
    distinct[:, 1:] = (groups[:, 1:] != groups[:, :-1]).any(axis=(2, 3))
    if distinct.sum(axis=1).max() * resamples > _CHUNK_VALUES:  # a group is a chunk: memory stays bounded
        return None

    def back(values):
        values = values[:, :, ::-1] if reverse else values
        return np.moveaxis(values.reshape((values.shape[0],) + moved.shape[:-2]), last + 1, axis + 1)

    return {"groups": groups, "distinct": distinct, "back": back}


def _sweep_bounds(specs, sweep, resamples, seed, options):
    """The intervals of nested sweeps (:func:`_sweep_layout`): each group's items resampled
    once per replicate (:func:`~._resample_kernels.sweep_replicates`), the measures read on the
    replicates of its distinct cells only -- a cell equal to the one below it has an empty bin
    between them, so equal replicates -- and the bounds given back to every cell."""
    groups, distinct = sweep["groups"], sweep["distinct"]
    n_groups, cells = groups.shape[:2]
    row_of = np.cumsum(distinct.reshape(-1)).reshape(n_groups, cells) - 1  # each cell's distinct row
    cell_index = np.where(distinct, row_of, -1)
    first_row = row_of[:, 0]
    rows = int(row_of[-1, -1]) + 1
    low, high = np.full((len(specs), rows), np.nan), np.full((len(specs), rows), np.nan)
    per_group = max(1, rows // n_groups)
    starts, step = _chunk_starts(n_groups, resamples * per_group, _SWEEP_CHUNK_VALUES)
    key = np.uint64(np.random.SeedSequence(int(seed)).generate_state(1, np.uint64)[0])

    def chunk(j: int, start: int, stop: int) -> None:
        top = int(first_row[stop]) if stop < n_groups else rows
        bottom = int(first_row[start])
        out = np.empty((2, 2, top - bottom, resamples))
        local = np.where(cell_index[start:stop] >= 0, cell_index[start:stop] - bottom, -1)
        _resample_kernels.sweep_replicates(groups[start:stop], local, key, start, out)
        draws = out.transpose(2, 3, 0, 1)  # [row, replicate, 2, 2], each count contiguous
        if j >= 0:
            _bounds_of(specs, draws, options, low, high, slice(bottom, top))
        else:  # the compiling first call: into scratch
            _bounds_of(specs, draws, options, *np.empty((2, len(specs), top - bottom)), slice(None))

    _run_chunks(chunk, starts, step, n_groups)
    return sweep["back"](low[:, row_of]), sweep["back"](high[:, row_of])


def _quantiles(values: np.ndarray, q: np.ndarray, kernel: bool) -> np.ndarray:
    """``np.nanquantile(values, q, axis=1)`` (linear interpolation) for ``q[0] <= q[1]``.

    With ``kernel`` (a call with many replicates in all) by
    :func:`~._resample_kernels.row_quantiles`, which reads each row's ends (1.6 ns a value
    against numpy's partition's 11); otherwise by numpy, so that a call on a few cells -- a
    leaderboard's micro intervals, a report -- does not pay the kernel's 1.4 s compile in a
    fresh environment.
    """
    if not kernel:
        return _partition_quantiles(values, q)
    out = np.empty((2, values.shape[0]))
    _resample_kernels.row_quantiles(np.ascontiguousarray(values, dtype=np.float64), np.asarray(q, np.float64), out)
    return out


def _partition_quantiles(values: np.ndarray, q: np.ndarray) -> np.ndarray:
    """:func:`_quantiles` by numpy: a partition around the order statistics it reads instead of
    a sort of every row; rows with an undefined replicate (NaN) take numpy's nanquantile,
    whose count of defined values differs by row."""
    rows, count = values.shape
    out = np.full((q.size, rows), np.nan)
    nan_rows = np.isnan(values).any(axis=1)
    if nan_rows.any():  # (its all-NaN RuntimeWarning is silenced by the caller, outside the threads)
        with np.errstate(all="ignore"):
            out[:, nan_rows] = np.nanquantile(values[nan_rows], q, axis=1)
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
