"""Confidence intervals of point measures, per cell, from the counts alone.

Resampling the items of a cell with replacement is a multinomial draw over its ``m x m``
counts: ``counts* ~ Multinomial(n, counts / n)``. So a bootstrap interval of any point measure
needs no pass over the data -- every cell's replicates come from its counts, and the measure's
kernel runs on them like on any counts.

The cells of ``n`` items share draws of the weights of ``n`` items: :data:`_TABLES` independent
tables (:func:`._resample_kernels.item_prefix`), each replicate of a table drawing ``n``
positions uniformly with replacement, kept as prefix sums; a hash of a cell's counts picks its
table. The cell's items are laid out on the positions by category (row-major: ``tn, fp, fn,
tp`` for binary counts), and each count of a replicate is the weight of its category's run of
positions -- two loads, where a multinomial per cell draws a binomial per category. Each
cell's replicates are
still exactly ``Multinomial(n, counts / n)``; what follows from sharing:

- on this path a cell's replicates depend on its counts, ``resamples`` and ``seed`` only:
  equal cells have equal intervals (and are computed once). Which path a size takes depends on
  the call (how many of its cells it holds, how many replicates in all), so a slice evaluated
  alone may take the other path and get other -- equally exact -- intervals;
- the Monte-Carlo errors of the cells of one table are dependent (common random numbers; two
  cells laid out as complements move in opposite directions): each interval is its cell's
  bootstrap interval, but a sum over many cells rests on :data:`_TABLES` independent draws of
  the weights, not one a cell.

Cells whose size too few cells share for the tables to pay (``_TABLES * n`` beyond
:data:`_SHARED_DRAWS_PER_CELL` times their number and ``m * m - 1``), whose table would
exceed :data:`_PREFIX_VALUES` values (``(n + 1) * resamples``), weighted counts, and calls of
fewer than :data:`_SHARED_VALUES` replicates in all draw a multinomial per cell instead
(numpy's ``Generator.multinomial``; chunks of cells, each with its own random stream). Either
way, chunks of cells run on every thread, and the result does not depend on how many there are.

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

Weighted counts (items with weights) do not say how many items they hold, and an interval must
not depend on the weights' unit. ``fm.count(..., weight=)`` keeps each count's sum of squared
weights (``ConfusionTensor.squares``), and a weighted cell stands for Kish's effective number of
items ``n_eff = (Σw)² / Σw²``: the bootstrap resamples ``n_eff`` (rounded) items with the weighted
shares (:func:`effective_counts`), Wilson and Jeffreys take the weighted proportion ``p̂`` of
``n_eff`` trials over the denominator's items (``proportion_confint(p̂ · n_eff, n_eff)``). Equal
weights give the unweighted intervals; weighted counts without their squares (read back from a
file, merged, weights in a separate gold table) are refused.
"""

from __future__ import annotations

import warnings
from statistics import NormalDist

import numpy as np

from .. import _memory
from .._errors import InputError, ParameterError, parameter_error
from .._numbers import count
from .._seeding import rng_of
from .._threads import on_threads, thread_count
from . import _resample_kernels, api, registry

METHODS = ("bootstrap", "wilson", "jeffreys", "delong")
INTERVALS = ("percentile", "basic")
_CELLS = registry.MATRIX_CELLS
_CHUNK_VALUES = 2_000_000  # resampled matrices per chunk and thread: ~64 MB of counts each
_MIN_CHUNK_VALUES = 100_000  # below this, a chunk is not worth a thread
_SHARED_CHUNK_VALUES = 250_000  # replicates of shared binary cells per chunk: ~8 MB of counts, near the cache
# a shared table costs a few loads an item and replicate, a multinomial per cell a binomial
# draw a category (tens of times more): beyond this many items in the tables per cell and
# category, the cells draw their own (measured: docs/guides/performance.md)
_SHARED_DRAWS_PER_CELL = 75
_MAX_ITEMS = 2.0**62  # a cell's total, drawn as int64 without overflow
_PREFIX_VALUES = 1 << 25  # a table of shared weights: at most 128 MB
# independent tables of a size: the Monte-Carlo errors of cells sharing one average out across them
_TABLES = 64
# a call with fewer replicates than this draws per cell: faster than compiling the shared draw's
# kernels in a fresh environment (a leaderboard's micro intervals, a report)
_SHARED_VALUES = 1 << 20
_KERNEL_QUANTILES = 1 << 20  # replicate values from which the quantile kernel beats numpy with its compile


def check(ci, method, resamples, interval) -> None:
    """Refuse options no interval takes, before anything is computed.

    Parameters
    ----------
    ci : float
        The confidence level, in (0, 1).
    method : {"bootstrap", "wilson", "jeffreys", "delong"}
        ``delong``: ROC AUC's (:mod:`fastmetrics.measures.area_intervals`).
    resamples : int
    interval : {"percentile", "basic"}
    """
    if isinstance(ci, bool) or not isinstance(ci, (int, float)) or not 0 < ci < 1:
        raise parameter_error("ci", "evaluate", "a confidence level strictly between 0 and 1 (e.g. 0.95)", ci)
    if method not in METHODS:
        raise parameter_error("method", "evaluate", "'bootstrap', 'wilson', 'jeffreys' or 'delong'", method)
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
    squares=None,
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
    squares : ndarray, optional
        Weighted counts' sums of squared weights (:attr:`ConfusionTensor.squares`).

    Returns
    -------
    low, high : ndarray of float64
        Of the batch shape; NaN where there is no interval.
    """
    if method != "bootstrap":
        return _proportion_interval(spec, counts, ci, method, squares)
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
        squares=squares,
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
    squares=None,
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
    squares : ndarray, optional
        Weighted counts' sums of squared weights (:attr:`ConfusionTensor.squares`): each cell is
        resampled as its :func:`effective_counts`.

    Returns
    -------
    low, high : ndarray of float64, shape (len(specs), ...)
        NaN where there is no interval.
    """
    rng_of(seed)  # refuses a bad seed
    counts = effective_counts(counts, squares)
    m = counts.shape[-1]
    totals = counts.sum(axis=(-2, -1), dtype=np.float64)
    if totals.size and totals.max() >= _MAX_ITEMS:
        cell = np.unravel_index(int(np.argmax(totals)), totals.shape)
        raise InputError(
            f"A bootstrap resamples a cell's items: cell {tuple(int(i) for i in cell)} holds {count(totals.max())} "
            f"(at most 2**62); use method='wilson' or 'jeffreys' for proportions of counts this large."
        )
    rows, back = _distinct_rows(_as_integers(counts.reshape(-1, m * m)))
    check_memory(len(specs), len(rows), m, resamples)
    options = dict(
        averages=averages,
        smoothing=smoothing,
        matrix_args=matrix_args or [None] * len(specs),
        q=np.array([(1 - ci) / 2, (1 + ci) / 2]),
        kernel=len(specs) * resamples * len(rows) >= _KERNEL_QUANTILES,
    )
    # warnings filters are process-wide and not thread-safe: set once here, not in the threads
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a cell without a defined replicate: no interval
        low, high = _row_bounds(specs, rows, m, resamples, seed, options)
    shape = (len(specs),) + counts.shape[:-2]
    low, high = low[:, back].reshape(shape), high[:, back].reshape(shape)
    if interval == "basic":
        low, high = 2 * estimates - high, 2 * estimates - low
    undefined = np.isnan(estimates)
    return np.where(undefined, np.nan, low), np.where(undefined, np.nan, high)


def effective_counts(counts, squares):
    """Weighted counts in units of Kish's effective number of items, for the bootstrap.

    A cell of weighted counts ``c`` (total ``W``, squared weights summing to ``Q``) stands for
    ``n_eff = W² / Q`` items (Kish's effective sample size, rounded to a whole number): its
    counts become ``c · n_eff / W``, whose shares are the weighted shares and whose total is
    ``n_eff``. Equal weights give the item counts themselves, and rescaling the weights changes
    nothing (up to rounding). Counts without ``squares`` are returned as they are, unless they are
    not whole numbers (weighted counts whose squares are unknown): those are refused.

    Parameters
    ----------
    counts : ndarray, shape (..., m, m)
    squares : ndarray or None
        Each count's sum of squared weights, the shape of ``counts``; NaN where unknown.

    Returns
    -------
    ndarray
        ``counts`` itself, or float64 effective counts (whole numbers made exact).

    Raises
    ------
    InputError
        Weighted counts without (known) sums of squared weights.
    """
    unknown = squares is None or bool(np.isnan(squares).any())
    if unknown:
        whole = not np.issubdtype(counts.dtype, np.floating) or bool((counts == np.floor(counts)).all())
        if squares is None and whole:
            return counts
        raise InputError(_WEIGHTED_WITHOUT_SQUARES)
    total = counts.sum(axis=(-2, -1), dtype=np.float64)[..., None, None]
    q = np.asarray(squares, np.float64).sum(axis=(-2, -1))[..., None, None]
    with np.errstate(invalid="ignore", divide="ignore"):
        n = np.where(q > 0, np.round(total * total / np.where(q > 0, q, 1.0)), 0.0)
        out = np.where(total > 0, counts * (n / np.where(total > 0, total, 1.0)), 0.0)
    near = np.abs(out - np.rint(out)) <= 1e-9 * np.maximum(n, 1.0)
    # to 1e-9 of an item, so that the draws do not see the last bits of the weights' unit
    return np.where(near, np.rint(out), np.round(out, 9))


_WEIGHTED_WITHOUT_SQUARES = (
    "Intervals of weighted counts need each count's sum of squared weights (Kish's effective number of "
    "items), which these counts lack (weights in a separate gold table or beyond float64's range squared, or "
    "weighted counts read from a file, merged or concatenated): count the runs with their weight column, "
    "fm.count(..., weight=COL) or fm.score(..., sample_weight=w), and evaluate that tensor."
)


def check_memory(n_specs: int, n_rows: int, m: int, resamples: int, options: str = "--resamples, resamples=") -> None:
    """Refuse replicates that cannot fit, before any is drawn.

    The cells the threads hold at once, each replicate the values of the measures (and a copy the
    quantiles partition); the counts of a cell's replicates are drawn in bounded parts
    (:func:`_one_cell_bounds`), those of several cells together only while they stay under
    :data:`_CHUNK_VALUES` matrices."""
    if n_rows == 0:
        return
    _, step = _chunk_starts(n_rows, resamples, _CHUNK_VALUES)
    held = min(n_rows, step * thread_count())
    _memory.check_replicates(
        resamples,
        held * 8 * (n_specs + 1) + (m * m * 16 * min(_CHUNK_VALUES, step * resamples) * thread_count()) / resamples,
        f"Bootstrap intervals of {n_specs} measure(s) on {n_rows:,} distinct cell(s)",
        options,
    )


def _as_integers(flat):
    """Counts of whole items as int64 (booleans, or floats without a fraction -- counts read
    through pandas): they have positions to lay out on a shared draw. Weighted counts stay."""
    if flat.dtype == np.bool_:
        return flat.astype(np.int64)
    if not np.issubdtype(flat.dtype, np.floating) or flat.size == 0:
        return flat
    if float(flat.max()) < 2**53 and (flat == np.floor(flat)).all():
        return flat.astype(np.int64)
    return flat


def _distinct_rows(flat):
    """The distinct rows of ``flat`` (cells' counts), in order of their total, and the index of
    each row of ``flat`` among them: equal cells have equal replicates, read once."""
    if flat.shape[0] == 0:
        return flat, np.zeros(0, np.int64)
    n = flat.sum(axis=1)
    if np.issubdtype(flat.dtype, np.integer):
        bits = max(1, int(n.max()).bit_length())
        if bits * flat.shape[1] <= 63:  # the total and all counts but the last packed in one int64
            key = n.astype(np.int64)
            for column in flat.T[:-1]:
                key = (key << bits) | column.astype(np.int64)
            _, first, back = np.unique(key, return_index=True, return_inverse=True)
            return flat[first], back.reshape(-1)
    order = np.lexsort(list(flat.T[::-1]) + [n])  # by the total first
    ordered = flat[order]
    new = np.ones(order.size, bool)
    new[1:] = (ordered[1:] != ordered[:-1]).any(axis=1)
    back = np.empty(order.size, np.int64)
    back[order] = np.cumsum(new) - 1
    return ordered[new], back


def _row_bounds(specs, rows, m, resamples, seed, options):
    """``low, high`` (``[measure, row]``) of distinct cells sorted by their total ``n``: the cells
    of an ``n`` shared by enough of them read their replicates from one draw of ``n`` items'
    weights (:func:`_shared_bounds`), the others each draw a multinomial (:func:`_cell_bounds`)."""
    low, high = np.full((len(specs), len(rows)), np.nan), np.full((len(specs), len(rows)), np.nan)
    n = rows.sum(axis=1)
    sizes, starts, cells = np.unique(n, return_index=True, return_counts=True)
    shared = (
        np.issubdtype(rows.dtype, np.integer)
        & ((sizes + 1) * resamples <= _PREFIX_VALUES)
        & (_TABLES * sizes <= _SHARED_DRAWS_PER_CELL * cells * max(m * m - 1, 1))
        & (len(rows) * resamples >= _SHARED_VALUES)
    )
    alone = np.flatnonzero(np.repeat(~shared, cells))
    if alone.size:
        low[:, alone], high[:, alone] = _cell_bounds(specs, rows[alone], m, resamples, seed, options)
    keys = np.random.SeedSequence(int(seed)).generate_state(_TABLES, np.uint64)
    for i in np.flatnonzero(shared):
        part = slice(starts[i], starts[i] + cells[i])
        low[:, part], high[:, part] = _shared_bounds(specs, rows[part], int(sizes[i]), m, resamples, keys, options)
    return low, high


def _shared_bounds(specs, rows, n, m, resamples, keys, options):
    """The intervals of cells of ``n`` items each, from :data:`_TABLES` tables of ``n`` items'
    bootstrap weights (:func:`~._resample_kernels.item_prefix`), a cell's table chosen by a hash
    of its counts: its items laid out on the positions by category, each count of a replicate
    is the weight of its run of positions -- two loads -- and ``Multinomial(n, counts / n)`` as a
    draw per cell would give it."""
    ends = np.zeros((len(rows), m * m + 1), np.int64)
    np.cumsum(rows, axis=1, out=ends[:, 1:])
    low, high = np.full((len(specs), len(rows)), np.nan), np.full((len(specs), len(rows)), np.nan)
    table = _table_of(rows)
    order = np.argsort(table, kind="stable")
    bounds = np.searchsorted(table[order], np.arange(_TABLES + 1))
    prefix = np.empty((n + 1, resamples), np.int32)
    scratch = (np.empty((len(specs), 1)), np.empty((len(specs), 1)))
    for t in range(_TABLES):
        cells = order[bounds[t] : bounds[t + 1]]
        if cells.size == 0:
            continue
        _resample_kernels.item_prefix(keys[t], prefix)
        starts, step = _chunk_starts(cells.size, resamples * max(1, m * m // 4), _SHARED_CHUNK_VALUES)

        def chunk(j: int, start: int, stop: int, cells=cells) -> None:
            draws = _shared_draws(prefix, ends[cells[start:stop]], m)
            _bounds_of(
                specs,
                draws,
                options,
                *((low, high) if j >= 0 else scratch),
                cells[start:stop] if j >= 0 else slice(0, 1),
            )

        _run_chunks(chunk, starts, step, cells.size)
    return low, high


def _table_of(rows):
    """The shared table of each cell (:func:`~._resample_kernels.cell_tables`): a hash of its
    counts, so that a cell's replicates depend on its counts alone and cells with similar counts
    -- the cells an interval is compared with -- mostly read different tables."""
    out = np.empty(len(rows), np.int64)
    _resample_kernels.cell_tables(np.ascontiguousarray(rows, dtype=np.int64), _TABLES, out)
    return out


def _shared_draws(prefix, ends, m):
    """Replicates ``[cell, resample, m, m]`` of cells whose category ``k`` holds the positions
    ``ends[cell, k] .. ends[cell, k + 1] - 1``, read from the prefix sums of shared weights."""
    draws = np.empty((m * m, len(ends), prefix.shape[1]))
    for k in range(m * m):
        np.subtract(prefix[ends[:, k + 1]], prefix[ends[:, k]], out=draws[k], casting="unsafe")
    return draws.reshape(m, m, len(ends), -1).transpose(2, 3, 0, 1)  # each count contiguous


def _bounds_of(specs, draws, options, low, high, rows) -> None:
    """Every measure on ``draws`` (``[rows, resamples, m, m]``), its quantiles written to
    ``low[:, rows]`` and ``high[:, rows]``."""
    for i in range(len(specs)):
        low[i, rows], high[i, rows] = _quantiles(
            _replicate_values(specs, i, draws, options), options["q"], options["kernel"]
        )


def _replicate_values(specs, i: int, draws, options) -> np.ndarray:
    """Measure ``i`` on every replicate of ``draws``, as it was evaluated."""
    return api.values_of(
        specs[i],
        draws,
        average=options["averages"][i],
        smoothing=options["smoothing"],
        matrix_args=options["matrix_args"][i],
    )


def _chunk_starts(rows, resamples, chunk_values):
    """Chunk starts over ``rows`` rows of ``resamples`` replicates: 16 chunks for the threads to
    share, however many threads there are (the chunks fix the random streams), unless that
    makes chunks too small to be worth a thread."""
    step = max(1, min(chunk_values // resamples, max(-(-rows // 16), -(-_MIN_CHUNK_VALUES // resamples))))
    return range(0, rows, step), step


def _cell_bounds(specs, flat, m, resamples, seed, options):
    """Each cell's replicates drawn from its own multinomial; ``low, high`` of shape
    ``[measure, cell]`` for ``flat`` counts ``[cell, m * m]``."""
    n = flat.sum(axis=1)
    low, high = np.full((len(specs), n.size), np.nan), np.full((len(specs), n.size), np.nan)
    starts, step = _chunk_starts(n.size, resamples, _CHUNK_VALUES)
    # one stream per chunk of cells: the same seed gives the same intervals on any number of threads
    streams = np.random.SeedSequence(int(seed)).spawn(len(starts))
    scratch = (np.empty((len(specs), 1)), np.empty((len(specs), 1)))

    def chunk(j: int, start: int, stop: int) -> None:
        rng = np.random.default_rng(streams[j] if j >= 0 else 0)
        into = (*((low, high) if j >= 0 else scratch), slice(start, stop) if j >= 0 else slice(0, 1))
        if stop - start == 1 and resamples * m * m > _CHUNK_VALUES:  # one cell's replicates, drawn in parts
            _one_cell_bounds(specs, rng, flat[start:stop], n[start:stop], m, resamples, options, *into)
            return
        draws = _multinomial(rng, flat[start:stop], n[start:stop], resamples).reshape(stop - start, resamples, m, m)
        _bounds_of(specs, draws, options, *into)

    _run_chunks(chunk, starts, step, n.size)
    return low, high


def _one_cell_bounds(specs, rng, counts, n, m, resamples, options, low, high, rows) -> None:
    """:func:`_bounds_of` for one cell of many replicates, drawn in parts of :data:`_CHUNK_VALUES`
    matrices: only the measures' values are held whole (the quantiles read them), not every
    replicate's counts. One row's multinomial draws in parts are the draws of one call."""
    values = np.empty((len(specs), 1, resamples))
    part = max(1, _CHUNK_VALUES // (m * m))
    for begin in range(0, resamples, part):
        end = min(begin + part, resamples)
        draws = _multinomial(rng, counts, n, end - begin).reshape(1, end - begin, m, m)
        for i in range(len(specs)):
            values[i, :, begin:end] = _replicate_values(specs, i, draws, options)
    for i in range(len(specs)):
        low[i, rows], high[i, rows] = _quantiles(values[i], options["q"], options["kernel"])


def _run_chunks(chunk, starts, step, size) -> None:
    if len(starts) == 1:
        chunk(0, 0, size)
    elif len(starts) > 1:
        chunk(-1, 0, 1)  # one row first, alone, into scratch: it compiles the kernels the measures need
        on_threads(chunk, ((j, start, min(start + step, size)) for j, start in enumerate(starts)))


def _quantiles(values: np.ndarray, q: np.ndarray, kernel: bool) -> np.ndarray:
    """``np.nanquantile(values, q, axis=1)`` (linear interpolation) for ``q[0] <= q[1]``.

    With ``kernel`` (a call with many replicates in all) by
    :func:`~._resample_kernels.row_quantiles`, which reads each row's ends only (numpy's
    partition moves every value); otherwise by numpy, so that a call on a few cells -- a
    leaderboard's micro intervals, a report -- does not pay for compiling the kernel in a fresh
    environment.
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
    draws = rng.multinomial(np.rint(n)[:, None].astype(np.int64), p[:, None, :], size=(n.size, resamples))
    return draws if np.issubdtype(counts.dtype, np.integer) else draws.astype(np.float64)


def _proportion_interval(spec, counts, ci, method, squares=None):
    record = spec.measure
    if record.proportion is None:
        names = ", ".join(sorted(n for n in _proportion_names()))
        raise ParameterError(
            f"method={method!r} is the interval of a proportion ({names}); {record.name} is not one: "
            "use method='bootstrap'."
        )
    if counts.shape[-1] != 2:
        raise ParameterError(f"method={method!r} reads binary counts; these have {counts.shape[-1]} classes.")
    x, n = _proportion_parts(record, counts, squares)
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


def _proportion_parts(record, counts, squares):
    """The successes ``x`` and trials ``n`` of a proportion; of weighted counts, Kish's effective
    number of trials ``n = (Σw)² / Σw²`` over the denominator's items and ``x = p̂ · n``."""
    numerator, denominator = ([counts[(..., *_CELLS[c])] for c in part] for part in record.proportion)
    x, n = sum(numerator).astype(np.float64), sum(denominator).astype(np.float64)
    if effective_counts(counts, squares) is counts:  # item counts (refuses weighted ones without squares)
        return x, n
    q = sum(squares[(..., *_CELLS[c])] for c in record.proportion[1])
    with np.errstate(invalid="ignore", divide="ignore"):
        effective = np.where(q > 0, n * n / np.where(q > 0, q, 1.0), 0.0)
        return np.where(n > 0, x / np.where(n > 0, n, 1.0), 0.0) * effective, effective


def _jeffreys(x, n, alpha):
    try:
        from scipy.stats import beta
    except ImportError:  # pragma: no cover - scipy is a test dependency
        raise ParameterError("method='jeffreys' needs scipy: pip install 'fastmetrics[assignment]'.") from None
    return beta.ppf(alpha / 2, x + 0.5, n - x + 0.5), beta.ppf(1 - alpha / 2, x + 0.5, n - x + 0.5)


def _proportion_names():
    return [m.name for m in registry.all_measures() if m.proportion is not None]
