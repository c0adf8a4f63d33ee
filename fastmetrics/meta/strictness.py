"""Strictness of measures (Amigó et al. 2019, §6.3, after Amigó et al. 2013).

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
import threading

import numpy as np
import pyarrow as pa

from .._errors import ParameterError
from .._progress import Progress
from .._threads import in_ranges, on_threads, thread_count
from . import _common
from . import _strictness_kernels as _kernels
from ._common import MetaResult, measure_rows, slices_first, transpose_slices

DEFAULT_THRESHOLDS = np.round(np.arange(0.50, 0.995, 0.01), 2)
# bytes of the block of slices transposed at a time (a sweep's thresholds)
_SLICE_BYTES = 1 << 28


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
    # measures undefined on the same outputs make one pattern; a pair's outputs are those of its
    # two patterns
    seen: dict = {}
    pattern = [seen.setdefault(row.tobytes(), m) for m, row in enumerate(np.packbits(holes, axis=1))]
    groups: dict = {}
    for a, b in zip(first, second):
        groups.setdefault(tuple(sorted((pattern[a], pattern[b]))), []).append((a, b))
    for (i, j), pairs in groups.items():
        yield np.flatnonzero(~(holes[i] | holes[j])), *np.array(pairs, np.int64).reshape(-1, 2).T


def pairwise_strictness(
    flat: np.ndarray,
    thresholds: np.ndarray,
    bar: Progress | None = None,
    space: Workspace | None = None,
    whole: bool = False,
    by_numpy: bool = False,
) -> np.ndarray:
    """Strictness of every measure against every other at each threshold.

    The pairs are taken by the outputs both measures define (usually all of them, or those of the
    measures undefined on the same outputs). On those outputs each measure's values are counted
    into buckets (:mod:`fastmetrics.meta._strictness_kernels`), from which come the levels each
    output reaches; a pair (a, b) takes the lowest value of ``b`` over the outputs reaching each
    level of ``a``, from the top level down, and that value's rank is the count of ``b``'s values
    at or below it (ranks grow with the value, so the lowest rank is the lowest value's). The
    kernels run on ranges of rows over the threads; numpy computes the same on a few outputs
    (:func:`_group_numpy`).

    Parameters
    ----------
    flat : ndarray of float64, shape (n_measures, n_outputs)
        Oriented values (higher is better for every measure).
    thresholds : ndarray of float64
        The levels ``th``, in (0, 1].
    bar : Progress, optional
        Advanced once, when done.
    space : Workspace, optional
        Arrays for ``flat``'s shape, reused from one call to the next.
    whole : bool, default False
        The caller knows that ``flat`` holds no NaN (it is not looked for).
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
    space = None if by_numpy else space or Workspace(*flat.shape)
    groups = [(None, *np.nonzero(~np.eye(n, dtype=bool)))] if whole else _pairs_by_outputs(flat)
    for outputs, first, second in groups:
        if by_numpy:
            rows, local = np.unique(np.concatenate([first, second]), return_inverse=True)
            kept = flat[rows] if outputs is None else flat[rows][:, outputs]
            out[first, second] = _group_numpy(kept, th, local[: first.size], local[first.size :])
            continue
        if outputs is None and first.size == n * (n - 1):
            local, kept = np.concatenate([first, second]), np.ascontiguousarray(flat, np.float64)
        else:
            rows, local = np.unique(np.concatenate([first, second]), return_inverse=True)
            kept = space.kept(flat, rows, np.arange(flat.shape[1]) if outputs is None else outputs)
        out[first, second] = space.strictness(kept, th, local[: first.size], local[first.size :])
    if bar is not None:
        bar.update(1)
    result = np.empty_like(out)
    result[..., rise] = out
    return result


class Workspace:
    """The arrays of the strictness kernels for up to ``n_rows`` measures on ``n_outputs`` outputs.

    Made once for every slice of a sweep (fresh pages are slow to fault in); see
    :mod:`fastmetrics.meta._strictness_kernels`.
    """

    def __init__(self, n_rows: int, n_outputs: int):
        # about sixteen outputs a bucket, at most 2^13 buckets (a row's stay in cache)
        buckets = int(min(1 << 13, max(16, 1 << int(max(n_outputs // 16, 1) - 1).bit_length())))
        shape = (n_rows, n_outputs)
        self.where, self.levels, self.members = np.empty(shape, np.int32), np.empty(shape, np.int32), np.empty(shape)
        self.start = np.empty((n_rows, buckets + 1), np.int64)
        self.sorted, self.wanted = np.empty((n_rows, buckets), np.bool_), np.empty((n_rows, buckets), np.bool_)
        self.values = None
        self.counts: dict = {}

    def kept(self, flat: np.ndarray, rows: np.ndarray, outputs: np.ndarray) -> np.ndarray:
        """``flat[rows][:, outputs]``, in an array of the workspace."""
        if self.values is None:
            self.values = np.empty(self.members.shape)
        out = self.values[: rows.size, : outputs.size]
        in_ranges(_kernels.gather_outputs, rows.size, flat, rows.astype(np.int64), outputs.astype(np.int64), out)
        return out

    def strictness(self, kept: np.ndarray, th: np.ndarray, first: np.ndarray, second: np.ndarray) -> np.ndarray:
        """Strictness of rows ``first`` of ``kept`` against rows ``second``, on all its outputs.

        ``out[p, k]``: strictness at ``th[k]`` (ascending) of row ``first[p]`` against row
        ``second[p]``; ``kept`` holds no NaN.
        """
        n_rows, size = kept.shape
        if size == 0:
            return np.full((first.size, th.size), np.nan)
        where, members, levels = (a[:n_rows, :size] for a in (self.where, self.members, self.levels))
        buckets = (self.start[:n_rows], members, self.sorted[:n_rows], self.wanted[:n_rows])
        key = (size, th.tobytes())
        if key not in self.counts:
            self.counts[key] = level_counts(th, size)
        counts = self.counts[key]
        in_ranges(_kernels.row_levels, n_rows, kept, counts, where, *buckets, levels)
        chunks = max(1, min(4 * thread_count(), size // 4096))
        minima = np.full((chunks, n_rows, th.size + 1, n_rows), np.inf)
        in_ranges(_kernels.level_minima, chunks, kept, levels, minima)
        # from the top level down: the lowest value over the outputs reaching each level or more
        lowest = np.ascontiguousarray(np.minimum.accumulate(minima.min(axis=0)[:, :0:-1], axis=1)[:, ::-1])
        out = np.empty((first.size, th.size), np.int64)
        pairs = (first.astype(np.int64), second.astype(np.int64))
        in_ranges(_kernels.lowest_ranks, n_rows, lowest, kept, where, *buckets, *pairs, out)
        return out / size


def level_counts(th: np.ndarray, n: int) -> np.ndarray:
    """The smallest count of values at or below an output that makes its rank reach each level.

    An output's rank is the fraction ``count / n`` of the ``n`` values at or below its own; it
    reaches ``th`` when that fraction is ``>= th``, compared in floats as the definition reads.
    The level's cut is the value of that rank; the kernels and numpy read the same counts.

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


def _group_numpy(kept: np.ndarray, th: np.ndarray, first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """``values[p, k]``: strictness at the k-th ascending level ``th[k]`` of row first[p] of
    ``kept[row, output]`` (every value defined) against row second[p], by numpy, as the kernels
    compute it: an output reaches the levels whose cut (the value at the level's
    :func:`level_counts`) it is at or above; for each level, the lowest value of b over a's
    outputs reaching it, and the count of b's values at or below that (all of them when no
    output reaches the level)."""
    n = kept.shape[1]
    if n == 0:
        return np.full((first.size, th.size), np.nan)
    ordered = np.sort(kept, axis=1)
    cuts = ordered[:, level_counts(th, n) - 1]
    out = np.empty((first.size, th.size))
    levels = np.arange(1, th.size + 1)
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
    th = DEFAULT_THRESHOLDS if thresholds is None else np.asarray(thresholds, np.float64)
    if th.ndim != 1 or th.size == 0 or np.any(~((th > 0) & (th <= 1))):
        raise ParameterError("Strictness thresholds must be values in (0, 1].")
    names = list(scores.measures)
    if len(names) < 2:
        raise ParameterError("Strictness compares measures: give at least two.")
    rows, signs, slices = measure_rows(scores, system=system, topic=topic)
    n_measures, n_systems, n_topics, n_slices = rows.shape
    bar = Progress(n_slices, "strictness", quiet=not progress)
    pairwise = np.empty((n_slices, n_measures, n_measures, th.size))
    if rows.size * n_measures <= _common.NUMPY_VALUES:  # numpy's work: each pair's running minima
        for k, flat in enumerate(slices_first(rows, signs).reshape(n_slices, n_measures, -1)):
            pairwise[k] = pairwise_strictness(flat, th, by_numpy=True)
            bar.update(k + 1)
    else:
        _judge_slices(rows.reshape(n_measures, n_systems * n_topics, n_slices), signs, th, pairwise, bar)
    bar.close()
    masked = np.where(np.isnan(pairwise), np.inf, pairwise)
    masked[:, np.arange(len(names)), np.arange(len(names))] = np.inf
    overall = masked.min(axis=2)
    overall[np.isinf(overall)] = np.nan
    first, second = np.nonzero(~np.eye(len(names), dtype=bool))
    summary = _levels_table(slices, {"measure": np.arange(len(names))}, names, th, overall)
    detail = _levels_table(slices, {"measure_a": first, "measure_b": second}, names, th, pairwise[:, first, second])
    outputs = int(n_systems * n_topics)
    return MetaResult(summary, detail, {"thresholds": th.tolist(), "outputs": outputs})


def _judge_slices(rows: np.ndarray, signs: np.ndarray, th: np.ndarray, pairwise: np.ndarray, bar: Progress) -> None:
    """``pairwise[k]`` = :func:`pairwise_strictness` of every slice ``k`` of ``rows[measure,
    output, slice]`` by the kernels, a block of slices at a time (:func:`_blocks`).

    The slices of a block go over the threads, each judged by serial kernels in its thread with
    the thread's :class:`Workspace` (a sweep's 101 thresholds: one handover to the threads a
    block, not three a slice); a block of one slice is judged here, its kernels on ranges of rows
    over the threads.
    """
    n_measures, n_outputs, _ = rows.shape
    spaces: dict = {}

    def judge(k, flat, whole):
        thread = threading.get_ident()
        if thread not in spaces:  # one a thread, reused by its slices: fresh pages are slow to fault in
            spaces[thread] = Workspace(n_measures, n_outputs)
        pairwise[k] = pairwise_strictness(flat, th, space=spaces[thread], whole=whole)

    for first, part, whole in _blocks(rows, signs):
        on_threads(judge, [(first + i, part[i], bool(whole[i])) for i in range(part.shape[0])])
        bar.update(first + part.shape[0])


def _blocks(rows: np.ndarray, signs: np.ndarray):
    """The slices of ``rows[measure, output, slice]`` as blocks ``(first, part, whole)``:
    ``part[i]`` is slice ``first + i`` as ``flat[measure, output]``, oriented (times ``signs``),
    ``whole[i]`` whether it holds no NaN. A block of slices is transposed at a time into one
    buffer of at most ``_SLICE_BYTES`` (blocks of more slices read the rows in longer runs), so
    that no transposed copy of every slice is made; a block is valid until the next is asked."""
    n_measures, n_outputs, n_slices = rows.shape
    block = int(np.clip(_SLICE_BYTES // max(8 * n_measures * n_outputs, 1), 1, min(32, n_slices)))
    buffer = np.empty((block, n_measures, n_outputs))
    for first in range(0, n_slices, block):
        part = buffer[: min(block, n_slices - first)]
        yield first, part, transpose_slices(rows, first, signs, part)


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
