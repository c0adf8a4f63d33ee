"""The end of counting: a finished :class:`~fastmetrics.count.tally.Tally` -> ConfusionTensor.

Items a run lacks are added here under ``missing="negative"`` (predicted negative: in the hard
counts' column 0, in the histogram's bucket 0, as a -inf score in an exact sweep), the sweep
histogram becomes counts at every threshold, and the hidden identity axes are summed away.
"""

from __future__ import annotations

import numba
import numpy as np
import pyarrow as pa

from .. import _memory
from .._errors import InputError
from .._threads import on_threads
from ..tensor import ConfusionTensor
from . import _sweep
from ._exact import exact_sweep_groups, rows_by_group, sort_groups
from .tally import Tally, missing_rows

SMALL_EXACT = 1 << 16  # rows: an exact sweep of fewer, unweighted, runs in numpy


def assemble(tally: Tally) -> ConfusionTensor:
    """Turn a finished tally into the :class:`ConfusionTensor` the caller asked for.

    Adds the items a run lacks under ``missing="negative"``, drops the labels of whole-range
    integer axes no row used, turns sweep histograms into counts per threshold, and sums the
    hidden identity axes away.
    """
    tally.check_complete()
    plan = tally.plan
    extra = missing_rows(tally) if plan.join is not None else None
    coords = {c: labels_to_numpy(plan.encoders[c].labels) for c in plan.axes}
    if plan.mode == "exact":
        return _exact(tally, extra, coords)
    if extra is not None:
        groups, classes, _ = extra
        acc = tally.acc
        one = 1.0 if acc.dtype == np.float64 else 1
        # a missing item is negative at every threshold: it passes none of them (bucket 0)
        np.add.at(acc, (groups, classes.astype(np.int64), 0), one)
    if plan.mode == "hard":
        acc = tally.acc.reshape(plan.sizes + tally.acc.shape[1:])
        acc, coords = compact(plan, acc, kept_labels(plan, acc.any(axis=(-2, -1))), coords)
        classes = [0, 1] if plan.classes is None else labels_to_numpy(plan.classes)
        tensor = ConfusionTensor(acc, plan.axes, coords, classes=classes)
    else:
        # the per-thread histograms are summed inside the cumulative sums: one pass, no copy
        counts, rows = _partials_to_counts(tally.partial)
        counts = counts.reshape(plan.sizes + counts.shape[1:])
        counts, coords = compact(plan, counts, kept_labels(plan, rows.reshape(plan.sizes) > 0), coords)
        tensor = ConfusionTensor(counts, plan.axes + ("threshold",), {**coords, "threshold": plan.grid}, classes=[0, 1])
    return tensor.sum(list(plan.hidden)) if plan.hidden else tensor


def _keep(plan, axis: str, used: np.ndarray) -> np.ndarray:
    """Labels of a whole-range axis to keep: those with rows, and the gold's topics."""
    keep = used.copy()
    if axis == plan.request.roles.topic and plan.join is not None and plan.join.topic_axis is not None:
        keep[plan.join.topic_codes] = True
    return keep


def kept_labels(plan, used: np.ndarray) -> dict:
    """Return, per whole-range integer axis, the mask of the labels some row (or the gold) used.

    ``used`` holds one bool per group, shaped as the plan's axes.
    """
    keep = {}
    for i, c in enumerate(plan.axes):
        if plan.encoders[c].compact:
            other = tuple(j for j in range(used.ndim) if j != i)
            keep[c] = _keep(plan, c, used.any(axis=other))
    return keep


def compact(plan, acc, keep: dict, coords: dict, lead: int = 0):
    """Drop the labels ``keep`` leaves out (count axes start at axis ``lead`` of ``acc``)."""
    for i, c in enumerate(plan.axes):
        if c in keep and not keep[c].all():
            acc = np.compress(keep[c], acc, axis=lead + i)
            coords = {**coords, c: coords[c][keep[c]]}
    return acc, coords


def histogram_to_counts(hist: np.ndarray) -> np.ndarray:
    """Turn a sweep histogram into confusion counts at every threshold.

    Bucket ``b`` of the histogram holds the rows whose score passes exactly the ``b`` lowest
    thresholds (``score >= t``, see :func:`~fastmetrics.count.sweep_histogram`), so a row is
    predicted positive at threshold ``t`` iff it is in a bucket ``b >= t + 1``:

        counts[..., t, gold, 1] = sum_{b > t} hist[..., gold, b]
        counts[..., t, gold, 0] = sum_{b <= t} hist[..., gold, b]

    Parameters
    ----------
    hist : numpy.ndarray of shape (..., 2, k + 1)
        Rows per leading index, gold class (0 negative, 1 positive) and bucket, over a grid of
        ``k`` thresholds. Integer counts or float weights.

    Returns
    -------
    numpy.ndarray of shape (..., k, 2, 2)
        ``counts[..., t, true, pred]`` at the ``t``-th lowest threshold: ``[1, 1]`` is tp,
        ``[0, 1]`` fp, ``[1, 0]`` fn and ``[0, 0]`` tn. Same dtype as ``hist``.
    """
    hist = np.ascontiguousarray(hist)
    flat = hist.reshape(-1, 2, hist.shape[-1])
    out = np.empty((flat.shape[0], hist.shape[-1] - 1, 2, 2), hist.dtype)
    if flat.size > (1 << 16):
        _sweep.histogram_to_counts(flat, out)
    else:  # small: numpy, no parallel kernel to compile
        # each side summed from its own end: with float weights, total - above can fall below 0
        above = np.cumsum(flat[:, :, :0:-1], axis=-1)[:, :, ::-1]  # rows passing > t thresholds
        out[..., 1] = above.transpose(0, 2, 1)
        out[..., 0] = np.cumsum(flat[:, :, :-1], axis=-1).transpose(0, 2, 1)
    return out.reshape(hist.shape[:-2] + out.shape[1:])


def _partials_to_counts(partial: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(counts[g, k, 2, 2], rows[g])`` from per-thread sweep histograms ``partial[c, g, gold, b]``."""
    n_groups, width = partial.shape[1], partial.shape[-1]
    # in Arrow's pool (fastmetrics._memory.empty): a sweep's counts are tens of MiB a call
    counts = _memory.empty((n_groups, width - 1, 2, 2), partial.dtype)
    if partial.size > (1 << 16) or partial.dtype.kind == "f":
        rows = np.empty(n_groups, partial.dtype)
        _sweep.partials_to_counts(partial, counts, rows)
        return counts, rows
    # small integer counts: numpy, exact as the kernel, and no parallel kernel to compile (seconds)
    hist = partial.sum(axis=0)
    counts[..., 0] = np.cumsum(hist[:, :, :-1], axis=-1).transpose(0, 2, 1)
    counts[..., 1] = np.cumsum(hist[:, :, :0:-1], axis=-1)[:, :, ::-1].transpose(0, 2, 1)
    return counts, hist.sum(axis=(1, 2)).astype(partial.dtype, copy=False)


def exact_counts(group, gold, score, n_groups: int, weight=None):
    """Count every group's confusion matrix at each distinct score it has, used as a threshold.

    An item is predicted positive at threshold ``t`` iff ``score >= t``. Rows are put in group
    order by a counting sort (skipped when they come grouped), each group is sorted by score on
    its own (in parallel, by a radix sort of the scores' bits), and one walk per group emits the
    counts: O(n) time, one output cell per distinct (group, score).

    Parameters
    ----------
    group : array_like of int
        Group code of each row, ``0 <= group < n_groups``.
    gold : numpy.ndarray of int
        Gold label of each row: 1 positive, 0 negative.
    score : numpy.ndarray of float
        Score of each row.
    n_groups : int
        Number of groups.
    weight : array_like of float, optional
        Weight of each row; without it every row counts 1 and the counts are integers.

    Returns
    -------
    group : numpy.ndarray of int64
        Group of each output cell, in increasing order.
    threshold : numpy.ndarray of float64
        The threshold (a distinct score) of each cell, decreasing within a group.
    counts : numpy.ndarray of shape (cells, 2, 2)
        ``counts[cell, true, pred]`` (``[1, 1]`` tp, ``[0, 1]`` fp, ``[1, 0]`` fn, ``[0, 0]`` tn);
        int64 without weights, float64 with.
    """
    score = np.asarray(score)
    if np.issubdtype(score.dtype, np.floating) and np.isnan(score).any():
        raise InputError(
            f"Scores must not be NaN (an exact sweep has no threshold for them); row {_first_nan(score)} is."
        )
    out_offsets, threshold, counts = _exact_sweep(group, gold, score, n_groups, weight)
    return np.repeat(np.arange(n_groups, dtype=np.int64), np.diff(out_offsets)), threshold, counts


def _first_nan(score: np.ndarray) -> int:
    return int(np.flatnonzero(np.isnan(score))[0])


def _exact_sweep(group, gold, score, n_groups: int, weight=None, grouped=None):
    """:func:`exact_counts` with the cells of group g at ``out_offsets[g]:out_offsets[g + 1]``
    instead of a group per cell; ``grouped`` is ``(order, offsets)`` of the rows by group when
    known already."""
    group = np.asarray(group, np.int64)
    if group.size < SMALL_EXACT and weight is None:
        return _small_exact_sweep(group, gold, score, n_groups)
    w = np.empty(0) if weight is None else np.asarray(weight, np.float64)
    order, offsets = rows_by_group(group, n_groups) if grouped is None else grouped
    score = np.asarray(score)
    if score.dtype != np.float32:
        score = np.asarray(score, np.float64)
    width = np.uint32 if score.dtype == np.float32 else np.uint64
    sorted_rows = np.empty(group.size, np.int64)
    sizes = np.empty(n_groups, np.int64)
    totals = np.empty((n_groups, 2), np.int64)
    sign = width(1 << (8 * score.itemsize - 1))
    bounds = _chunks(offsets)
    args = (order, offsets, score.view(width), sign, gold, sorted_rows, sizes, totals)
    on_threads(sort_groups, ((bounds[c], bounds[c + 1], *args) for c in range(bounds.size - 1)))
    out_offsets = np.zeros(n_groups + 1, np.int64)
    np.cumsum(sizes, out=out_offsets[1:])
    n_out = int(out_offsets[-1])
    out_threshold = np.empty(n_out, np.float64)
    out_counts = np.empty((n_out, 2, 2), np.float64 if w.size else np.int64)
    exact_sweep_groups(sorted_rows, offsets, out_offsets, gold, score, w, totals, out_threshold, out_counts)
    return out_offsets, out_threshold, out_counts


def _small_exact_sweep(group, gold, score, n_groups: int):
    """:func:`_exact_sweep` of a few unweighted rows by numpy: the first call of a process that
    sweeps a small file (a report) does not wait for the sort kernels to compile. Integer
    counts, so the order of the sums does not matter; weights take the kernels."""
    score = np.asarray(score, np.float64) + 0.0  # -0.0 is 0.0
    order = np.lexsort((-score, group))
    group, score, positive = group[order], score[order], np.asarray(gold)[order] == 1
    last = np.ones(group.size, bool)  # the last row of each (group, score) run: a cell
    last[:-1] = (group[1:] != group[:-1]) | (score[1:] != score[:-1])
    first = np.searchsorted(group, np.arange(n_groups))
    counts = np.empty((int(last.sum()), 2, 2), np.int64)
    for side, rows in ((1, positive), (0, ~positive)):
        above = np.cumsum(rows)
        before = np.r_[0, above][first]  # rows of the earlier groups
        total = np.bincount(group, rows, minlength=n_groups).astype(np.int64)
        counts[:, side, 1] = above[last] - before[group[last]]
        counts[:, side, 0] = total[group[last]] - counts[:, side, 1]
    out_offsets = np.zeros(n_groups + 1, np.int64)
    np.cumsum(np.bincount(group[last], minlength=n_groups), out=out_offsets[1:])
    return out_offsets, score[last], counts


def _chunks(offsets: np.ndarray, per_thread: int = 16) -> np.ndarray:
    """Group bounds of chunks holding about equal numbers of rows, several per thread so that
    threads finishing early take another."""
    n_chunks = max(1, min(offsets.size - 1, per_thread * numba.get_num_threads()))
    bounds = np.searchsorted(offsets, np.arange(n_chunks + 1) * (offsets[-1] / n_chunks), "left")
    bounds[-1] = offsets.size - 1
    return np.maximum.accumulate(np.minimum(bounds, offsets.size - 1)).astype(np.int64)


def _exact(tally, extra, coords) -> ConfusionTensor:
    plan = tally.plan
    pieces = list(tally.pieces)
    weighted = plan.request.weight is not None
    if extra is not None:
        groups, classes, _ = extra
        pieces.append(
            (
                groups,
                classes.astype(np.int8),
                np.full(groups.size, -np.inf),
                np.ones(groups.size) if weighted else np.zeros(0),
            )
        )
    group, gold, score = (_joined([p[i] for p in pieces]) for i in range(3))
    weight = _joined([p[3] for p in pieces]) if weighted else None
    group, sizes, axes, grouped = _exact_groups(plan, group, coords)
    n_groups = int(np.prod(sizes, dtype=np.int64))
    out_offsets, out_threshold, out_counts = _exact_sweep(group, gold, score, n_groups, weight, grouped)
    runs = np.diff(out_offsets)
    if extra is not None:  # -inf marks the padding of missing items, not a real score
        keep = np.isfinite(out_threshold)
        runs = np.bincount(np.repeat(np.arange(n_groups), runs)[keep], minlength=n_groups)
        out_threshold, out_counts = out_threshold[keep], out_counts[keep]
    # cells come grouped: each group's labels repeated over its cells (no gather over every cell)
    present = np.flatnonzero(runs)
    group_codes = np.unravel_index(present, sizes) if sizes else ()
    cell_coords = {c: np.repeat(coords[c][group_codes[i]], runs[present]) for i, c in enumerate(axes)}
    cell_coords["threshold"] = out_threshold
    return ConfusionTensor(
        out_counts, ("cell",), cell_coords, coord_axes={c: "cell" for c in cell_coords}, classes=[0, 1]
    )


def _joined(arrays: list) -> np.ndarray:
    """The arrays end to end, without a copy when there is only one (a single record batch)."""
    return arrays[0] if len(arrays) == 1 else np.concatenate(arrays)


def _exact_groups(plan, group, coords):
    """Group codes renumbered for the result: labels of whole-range axes no row used dropped,
    hidden axes pooled away (``coords`` is updated in place). Untouched when neither applies;
    then the rows' ``(order, offsets)`` by group come along when they were needed to see it."""
    n_groups = int(np.prod(plan.sizes, dtype=np.int64))
    grouped = None
    if not any(plan.encoders[c].compact for c in plan.axes):
        keep = {}
    elif group.size < SMALL_EXACT:
        keep = kept_labels(plan, np.bincount(group, minlength=n_groups).reshape(plan.sizes) > 0)
    elif n_groups <= 4 * group.size + (1 << 20):  # the rows grouped once: what the sweep needs too
        grouped = rows_by_group(group, n_groups)
        keep = kept_labels(plan, (np.diff(grouped[1]) > 0).reshape(plan.sizes))
    else:  # a sparse group space (hidden axes): one bincount per axis, bounded by its labels
        strides = [int(np.prod(plan.sizes[i + 1 :], dtype=np.int64)) for i in range(len(plan.axes))]
        keep = {
            c: _keep(plan, c, np.bincount(group // strides[i] % plan.sizes[i], minlength=plan.sizes[i]) > 0)
            for i, c in enumerate(plan.axes)
            if plan.encoders[c].compact
        }
    if not plan.hidden and all(k.all() for k in keep.values()):
        return group, plan.sizes, plan.axes, grouped
    codes = list(np.unravel_index(group, plan.sizes))
    sizes, axes, kept = [], [], []
    for i, c in enumerate(plan.axes):
        if c in keep:
            codes[i] = (np.cumsum(keep[c]) - 1)[codes[i]]
            coords[c] = coords[c][keep[c]]
        if c not in plan.hidden:
            axes.append(c)
            sizes.append(len(coords[c]))
            kept.append(codes[i])
    group = np.ravel_multi_index(kept, sizes) if kept else np.zeros_like(group)
    return group, tuple(sizes), tuple(axes), None


def labels_to_numpy(labels: pa.Array) -> np.ndarray:
    """Convert Arrow labels to the numpy coordinates of a tensor (strings become an object array)."""
    return np.asarray(
        labels.to_pylist(),
        dtype=object if pa.types.is_string(labels.type) or pa.types.is_large_string(labels.type) else None,
    )
