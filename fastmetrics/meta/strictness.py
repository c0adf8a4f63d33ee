"""Strictness of measures (seed 004 §6.3, after Amigó et al. 2013).

Outputs are the (system, topic) pairs. With every measure oriented so that higher is better::

    rank(m, o)               = fraction of outputs o' with m(o) >= m(o')    (top 1, bottom ~0)
    top(m, th)               = {o : rank(m, o) >= th}
    strictness_th(m, m')     = min over o in top(m, th) of rank(m', o)
    strictness_th(m)         = min over m' != m of strictness_th(m, m')

A strict measure ranks an output high only if every other measure does too. For each pair
(m, m') the outputs where m or m' is undefined are left out, and ranks are taken among the rest.
"""

from __future__ import annotations

import math

import numpy as np
import pyarrow as pa

from .._errors import ParameterError
from .._progress import Progress
from .._threads import in_ranges
from . import _common
from ._common import MetaResult, in_roles, sliced_values
from ._kernels import _strictness_shared, _strictness_tops

DEFAULT_THRESHOLDS = np.round(np.arange(0.50, 0.995, 0.01), 2)


def _pairs_by_outputs(flat: np.ndarray):
    """The ordered pairs of distinct measures grouped by the outputs both define.

    Yields
    ------
    outputs : ndarray of int64 or None
        The columns both measures of the group define (None: all of them).
    first, second : ndarray of int64
        The group's pairs.
    """
    holes = np.isnan(flat)
    first, second = np.nonzero(~np.eye(flat.shape[0], dtype=bool))
    if not holes.any():
        yield None, first, second
        return
    groups: list = []
    for a, b in zip(first, second):
        keep = ~(holes[a] | holes[b])
        for group in groups:
            if np.array_equal(group[0], keep):
                group[1].append((a, b))
                break
        else:
            groups.append((keep, [(a, b)]))
    for keep, pairs in groups:
        yield np.flatnonzero(keep), *np.array(pairs, np.int64).reshape(-1, 2).T


def pairwise_strictness(
    flat: np.ndarray, thresholds: np.ndarray, bar: Progress | None = None, by_numpy: bool = False
) -> np.ndarray:
    """Strictness of every measure against every other at each threshold.

    The pairs are taken by the outputs both measures define (usually all of them, or those of the
    measures undefined on the same outputs). On those outputs each measure is sorted once and the
    outputs reaching each level of it are grouped once; a pair (a, b) then takes the running
    minimum of b over a's groups, from the top down, and that minimum's rank is the count of b's
    values at or below it (ranks grow with the value, so the lowest rank is the lowest value's).
    Kernels do this on ranges of rows and pairs over the threads; numpy, on a few outputs
    (:func:`_group_numpy`).

    Parameters
    ----------
    flat : ndarray of float64, shape (n_measures, n_outputs)
        Oriented values (higher is better for every measure).
    thresholds : ndarray of float64
        The levels ``th``, in (0, 1].
    bar : Progress, optional
        Advanced once, when done.
    by_numpy : bool, default False
        Compute by numpy (:func:`_group_numpy`), not by the kernels.

    Returns
    -------
    ndarray of float64, shape (n_measures, n_measures, n_thresholds)
        ``out[a, b, k]`` = strictness at ``thresholds[k]`` of ``a`` against ``b``; NaN on the
        diagonal and where no output defines both.
    """
    n = flat.shape[0]
    rise = np.argsort(thresholds, kind="stable")
    th = np.ascontiguousarray(thresholds[rise], np.float64)
    out = np.full((n, n, th.size), np.nan)
    for outputs, first, second in _pairs_by_outputs(flat):
        rows, local = np.unique(np.concatenate([first, second]), return_inverse=True)
        kept = flat[rows] if outputs is None else flat[rows][:, outputs]
        kept = np.ascontiguousarray(kept, np.float64)
        pairs = (local[: first.size], local[first.size :])
        n = kept.shape[1]
        counts = level_counts(th, n) if n else np.ones(th.size, np.int64)  # no values: the counts go unread
        if by_numpy:
            out[first, second] = _group_numpy(kept, counts, *pairs)
            continue
        ordered = np.sort(kept, axis=1)
        defined = np.full(rows.size, n, np.int64)
        members = np.empty(kept.shape, np.int64)
        starts = np.empty((rows.size, th.size + 1), np.int64)
        in_ranges(_strictness_tops, rows.size, kept, ordered, defined, counts, members, starts)
        values = np.empty((first.size, th.size))
        in_ranges(_strictness_shared, first.size, kept, ordered, defined, members, starts, *pairs, values)
        out[first, second] = values
    if bar is not None:
        bar.update(1)
    result = np.empty_like(out)
    result[..., rise] = out
    return result


def level_counts(th: np.ndarray, n: int) -> np.ndarray:
    """The smallest count of values at or below an output that makes its rank reach each level.

    An output's rank is the fraction ``count / n`` of the ``n`` values at or below its own; it
    reaches ``th`` when that fraction is ``>= th``, compared in floats as the per-pair walk
    compares it.

    Parameters
    ----------
    th : ndarray of float64
        The levels, in (0, 1].
    n : int
        The number of values, at least 1.

    Returns
    -------
    ndarray of int64
        One count per level, in 1 .. n.
    """
    counts = np.empty(th.size, np.int64)
    for k, level in enumerate(th.tolist()):
        count = max(1, math.ceil(level * n) - 2)  # counts two below level * n fail in floats
        while count / n < level:
            count += 1
        counts[k] = count
    return counts


def _group_numpy(kept: np.ndarray, counts: np.ndarray, first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """``values[p, k]``: strictness at the k-th ascending level (its :func:`level_counts`
    ``counts[k]``) of row first[p] of ``kept[row, output]`` (every value defined) against row
    second[p], as the kernels compute it: an output reaches the levels whose cut (the value at the
    level's count) it is at or above; for each level, the lowest value of b over a's outputs
    reaching it, and the count of b's values at or below that (all of them when no output
    reaches the level)."""
    n = kept.shape[1]
    if n == 0:
        return np.full((first.size, counts.size), np.nan)
    ordered = np.sort(kept, axis=1)
    cuts = ordered[:, counts - 1]
    out = np.empty((first.size, counts.size))
    levels = np.arange(1, counts.size + 1)
    for a in np.unique(first):
        reach = np.searchsorted(cuts[a], kept[a], side="right")
        top_down = np.argsort(-reach, kind="stable")
        reaching = np.searchsorted(-reach[top_down], -levels, side="right")  # outputs reaching each level
        for p in np.flatnonzero(first == a):
            running = np.minimum.accumulate(kept[second[p], top_down])
            lowest = np.where(reaching > 0, running[np.maximum(reaching, 1) - 1], np.inf)
            out[p] = np.searchsorted(ordered[second[p]], lowest, side="right") / n
    return out


def strictness(
    scores, *, thresholds=None, progress: bool = False, system: str = "system", topic: str = "topic"
) -> MetaResult:
    """Strictness of every measure against every other, and overall, at each level ``th``.

    Scores with other axes than system and topic (a threshold sweep's ``threshold``) are judged
    once per label of those axes, in one call: the outputs are the (system, topic) pairs at that
    label.

    Parameters
    ----------
    scores : Scores
        Values over ``(system, topic)`` for two or more measures, and optionally other labelled
        axes (``fm.count(table, thresholds=101).evaluate(...)``).
    thresholds : array_like, optional
        The levels ``th``, in (0, 1]; default 0.50, 0.51, ..., 0.99.
    progress : bool, default False
        Show a progress bar on a terminal when the job runs longer than about a second.
    system, topic : str, default "system", "topic"
        The axes of ``scores`` playing the system and the topic (e.g. ``system="annotator"`` for
        scores of ``fm.count(..., system="annotator")``); the output columns keep their names.

    Returns
    -------
    MetaResult
        ``summary``: ``measure, level, value`` (strictness_th(m) at th = level); ``detail``:
        ``measure_a, measure_b, level, value`` (strictness_th(m, m')). With other axes, their
        columns come first, one block of rows per label.
    """
    scores = in_roles(scores, system, topic)
    th = DEFAULT_THRESHOLDS if thresholds is None else np.asarray(thresholds, np.float64)
    if th.ndim != 1 or th.size == 0 or np.any(~((th > 0) & (th <= 1))):
        raise ParameterError("Strictness thresholds must be values in (0, 1].")
    names = list(scores.measures)
    if len(names) < 2:
        raise ParameterError("Strictness compares measures: give at least two.")
    values, slices = sliced_values(scores)
    bar = Progress(len(values), "strictness", quiet=not progress)
    by_numpy = values.size * len(names) <= _common.NUMPY_VALUES  # numpy's work: each pair's running minima
    pairwise = np.stack(
        [pairwise_strictness(v.reshape(len(names), -1), th, by_numpy=by_numpy) for v in _advancing(values, bar)]
    )
    bar.close()
    masked = np.where(np.isnan(pairwise), np.inf, pairwise)
    masked[:, np.arange(len(names)), np.arange(len(names))] = np.inf
    overall = masked.min(axis=2)
    overall[np.isinf(overall)] = np.nan
    first, second = np.nonzero(~np.eye(len(names), dtype=bool))
    summary = _levels_table(slices, {"measure": np.arange(len(names))}, names, th, overall)
    detail = _levels_table(slices, {"measure_a": first, "measure_b": second}, names, th, pairwise[:, first, second])
    outputs = int(values.shape[2] * values.shape[3])
    return MetaResult(summary, detail, {"thresholds": th.tolist(), "outputs": outputs}).in_names(system, topic)


def _advancing(values, bar: Progress):
    """The slices of ``values`` one at a time, advancing ``bar`` after each."""
    for i, v in enumerate(values):
        yield v
        bar.update(i + 1)


def _levels_table(slices, measures: dict, names: list, th: np.ndarray, values: np.ndarray) -> pa.Table:
    """Rows (slice labels, measure columns, level, value) of ``values[slice, row, level]``."""
    n_slices, n_rows, n_levels = values.shape
    per = n_rows * n_levels
    columns = (
        {}
        if slices is None
        else {k: slices.column(k).take(np.repeat(np.arange(n_slices), per)) for k in slices.column_names}
    )
    labels = np.asarray(names, dtype=object)
    for key, index in measures.items():
        columns[key] = pa.array(np.tile(np.repeat(labels[index], n_levels), n_slices).tolist(), pa.string())
    columns["level"] = pa.array(np.tile(th, n_slices * n_rows), pa.float64())
    columns["value"] = pa.array(values.reshape(-1), pa.float64())
    return pa.table(columns)
