"""Evaluation of threshold sweeps: curve, ranking and calibration measures, one value per group,
and the operating points with the threshold reaching each.

A sweep's groups are read where the counts are: a ``threshold`` axis (a grid, read from the top),
or the ``cell`` axis of an exact sweep or of a ranked list, whose groups are contiguous runs of
cells (:func:`fastmetrics.tensor.group_starts`). :func:`fastmetrics.measures.evaluation.evaluate`
sends curve measures here.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from .._errors import ParameterError, plain
from ..tensor import ConfusionTensor, Scores, group_starts
from . import _groups, api, curves, registry


def curve_scores(tensor: ConfusionTensor, specs, *, undefined=None, warn=False) -> Scores:
    """Curve and ranking measures: one value per group of a threshold sweep.

    Parameters
    ----------
    tensor : ConfusionTensor
        Binary counts of a sweep: a ``threshold`` axis (a grid), or the ``cell`` axis of an exact
        sweep (``thresholds="exact"``) or of a ranked list (``thresholds="ranks"``).
    specs : list of MeasureSpec
        Curve, ranking and calibration measures only (see :mod:`fastmetrics.measures.curves`,
        :mod:`fastmetrics.measures.calibration`; the latter need an exact sweep).
    undefined, warn
        As in :func:`evaluate`.

    Returns
    -------
    Scores
        Over the group axes (the sweep's axes without ``threshold``; for a ``cell`` axis, its
        coordinates without ``threshold`` / ``rank``), NaN for a group without items.
    """
    point = [s.base_label for s in specs if s.measure.kind == "point"]
    if point:
        raise ParameterError(
            f"Curve and ranking measures give one value per group, {', '.join(point)} one per "
            "threshold: evaluate them in separate calls."
        )
    graded = [s.base_label for s in specs if s.measure.kind == "graded"]
    if graded:
        raise ParameterError(
            f"{', '.join(graded)} read(s) graded judgements: count the runs with fastmetrics.count_graded (or "
            "fastmetrics.pipeline.count_ranked) and evaluate that; a leaderboard takes binary ranking measures."
        )
    if tensor.m != 2:
        raise ParameterError(f"Curve and ranking measures need binary counts; these have {tensor.m} classes.")
    ranked = tensor.coord_axes.get("rank") == "cell"
    needs_ranks = [s.base_label for s in specs if s.measure.kind == "ranking"]
    if needs_ranks and not ranked:
        raise ParameterError(
            f"{', '.join(needs_ranks)} read(s) a ranked list: count with thresholds='ranks' "
            "(--thresholds ranks; one position per item, ties broken by the input order)."
        )
    flat, starts, axes, coords, place = _curve_groups(tensor)
    scores = _calibration_scores(tensor, specs, starts)
    shape = tuple(len(coords[a]) for a in axes)
    values = np.full((len(specs), int(np.prod(shape, dtype=np.int64))), np.nan)
    for i, spec in enumerate(specs):
        out = np.empty(starts.size - 1)
        params = np.asarray(spec.params, np.float64)
        with np.errstate(invalid="ignore", divide="ignore"):
            calibrated = spec.measure.kind == "calibration"
            _groups.over_groups(spec.measure.kernel, flat, starts, params, out, scores if calibrated else None)
        values[i, place] = api.apply_undefined(out, undefined, spec.base_label, warn)
    values = values.reshape((len(specs),) + shape)
    if any(spec.average not in (None, "none") for spec in specs):
        return _class_averages(values, specs, flat, starts, place, axes, coords)
    return Scores(values, [s.label if s.average == "none" else s.base_label for s in specs], axes, coords)


def _class_averages(values, specs, flat, starts, place, axes, coords) -> Scores:
    """Curve measures of class probabilities averaged over their classes (``roc_auc@macro``).

    One-vs-rest (a ``class`` axis): the mean over the classes, or weighted by each class's gold
    share (``@weighted``), as scikit-learn's ``roc_auc_score(multi_class="ovr")``. One-vs-one
    (``class`` and ``versus``): the mean over ordered pairs, which is Hand & Till's ``M`` (each
    pair's ``(A(j|k) + A(k|j)) / 2`` averaged), or weighted by the pair's share of the items
    (``multi_class="ovo", average="weighted"``). Classes (pairs) where the measure is undefined
    -- no item of the class in the group -- are left out of the mean.
    """
    wrong = [s.label for s in specs if s.average not in ("macro", "weighted")]
    if wrong or "class" not in axes:
        raise ParameterError(
            f"{', '.join(wrong or [s.label for s in specs])}: curve measures average over the classes "
            "(@macro, @weighted) of class probabilities swept one-vs-rest or one-vs-one; every spec of "
            "the call needs one of them."
        )
    over = tuple(i for i, a in enumerate(axes) if a in ("class", "versus"))
    first = flat[starts[:-1]]
    size = first[:, 1, 1] + first[:, 1, 0] if "versus" not in axes else first.sum(axis=(1, 2))
    weight = np.zeros(values.shape[1:]).reshape(-1)
    weight[place] = size
    weight = weight.reshape(values.shape[1:])
    out = []
    for i, spec in enumerate(specs):
        w = np.where(np.isnan(values[i]), 0.0, 1.0 if spec.average == "macro" else weight)
        with np.errstate(invalid="ignore", divide="ignore"):
            out.append(np.nansum(values[i] * w, axis=over) / w.sum(axis=over))
    kept = tuple(a for a in axes if a not in ("class", "versus"))
    return Scores(np.stack(out), [s.label for s in specs], kept, {a: coords[a] for a in kept})


def _calibration_scores(tensor, specs, starts) -> np.ndarray | None:
    """The score of every cell of an exact sweep, checked to be probabilities, if a calibration
    measure is asked for."""
    asked = [s.base_label for s in specs if s.measure.kind == "calibration"]
    if not asked:
        return None
    if tensor.axes != ("cell",) or tensor.coord_axes.get("threshold") != "cell":
        raise ParameterError(
            f"{', '.join(asked)} read(s) every item's score: count with thresholds='exact' (--thresholds exact; a "
            "grid or a ranked list keeps only counts above each threshold, not the scores)."
        )
    scores = _cell_thresholds(tensor, starts)
    outside = (scores < 0.0) | (scores > 1.0)
    if outside.any():
        raise ParameterError(
            f"{', '.join(asked)} read(s) scores as probabilities of the positive class, in [0, 1]; these "
            f"counts have a score {plain(scores[np.argmax(outside)])!r}. Calibrate or rescale the scores first."
        )
    return scores


def sweep_cells(tensor):
    """A sweep's cells as the curve kernels read them (:func:`curve_scores`).

    Parameters
    ----------
    tensor : ConfusionTensor
        A threshold sweep.

    Returns
    -------
    cells : ndarray, shape (cells, 2, 2)
        In decreasing threshold order within each group.
    starts : ndarray of int64
        Where each group's cells start (the last entry is the number of cells).
    axes : tuple of str
        The group axes.
    coords : dict
        Their labels.
    place : ndarray of int64
        Each group's position in the dense result over ``axes``.
    """
    return _curve_groups(tensor)


def _curve_groups(tensor):
    """The sweep's cells in decreasing threshold order, where each group starts, and the groups'
    axes, labels and positions in the dense result."""
    if "threshold" in tensor.axes and tensor.coord_axes.get("threshold", "threshold") == "threshold":
        at = tensor.axes.index("threshold")
        counts = np.moveaxis(tensor.counts, at, -3)[..., ::-1, :, :]  # grids ascend: read them from the top
        n_thresholds = counts.shape[-3]
        axes = tuple(a for a in tensor.axes if a != "threshold")
        coords = {a: tensor.coords[a] for a in axes}
        n_groups = int(np.prod(counts.shape[:-3], dtype=np.int64))
        starts = np.arange(n_groups + 1, dtype=np.int64) * n_thresholds
        return counts.reshape(-1, 2, 2), starts, axes, coords, np.arange(n_groups)
    if tensor.axes != ("cell",):
        raise ParameterError(
            f"Curve measures read a threshold sweep (a 'threshold' axis, or thresholds='exact' / "
            f"'ranks', --thresholds exact|ranks); these counts have the axes {', '.join(tensor.axes)}."
        )
    starts, axes = group_starts(tensor)
    codes, coords = [], {}
    for a in axes:
        coords[a], inverse = np.unique(np.asarray(tensor.coords[a])[starts[:-1]], return_inverse=True)
        codes.append(inverse)
    shape = tuple(len(coords[a]) for a in axes)
    place = np.ravel_multi_index(codes, shape) if axes else np.zeros(starts.size - 1, np.int64)
    return tensor.counts, starts, axes, coords, place


def operating_points(tensor: ConfusionTensor, measures) -> pa.Table:
    """Operating-point measures with the threshold reaching each, per group of a sweep.

    Parameters
    ----------
    tensor : ConfusionTensor
        A sweep (see :func:`curve_scores`).
    measures : str or sequence of str
        Among ``precision_at_recall``, ``recall_at_precision``, ``tpr_at_fpr`` (with their
        parameters).

    Returns
    -------
    pyarrow.Table
        The group columns, then ``measure, value, threshold``: the threshold of the operating
        point (``-inf`` where it is "everything positive" and no threshold of the sweep gives it,
        ``inf`` for "nothing positive"; null where the measure is undefined). On ties the highest
        threshold reaching the value.
    """
    specs = registry.parse_specs(measures)
    other = [s.base_label for s in specs if s.measure.name not in curves.POINTS]
    if other:
        raise ParameterError(f"Operating points are read for {', '.join(curves.POINTS)}; not for {', '.join(other)}.")
    scores = curve_scores(tensor, specs)
    flat, starts, axes, coords, place = _curve_groups(tensor)
    thresholds = _cell_thresholds(tensor, starts)
    columns = {a: [] for a in axes}
    columns.update(measure=[], value=[], threshold=[])
    present = np.unravel_index(place, tuple(len(coords[a]) for a in axes)) if axes else ()
    for i, spec in enumerate(specs):
        cell = np.empty(starts.size - 1, np.int64)
        params = np.asarray(spec.params, np.float64)
        _groups.over_groups(curves.POINTS[spec.measure.name], flat, starts, params, cell, kind="point")
        value = scores.values[i].reshape(-1)[place]
        at = np.where(
            cell >= 0,
            thresholds[starts[:-1] + np.maximum(cell, 0)],
            np.where(cell == curves.ALL_POSITIVE, -np.inf, np.inf),
        )
        for a, codes in zip(axes, present):
            columns[a] += np.asarray(coords[a])[codes].tolist()
        columns["measure"] += [spec.base_label] * place.size
        columns["value"] += value.tolist()
        columns["threshold"] += np.where(np.isnan(value), np.nan, at).tolist()
    return pa.table(
        {
            k: pa.array(v, pa.float64(), from_pandas=True) if k in ("value", "threshold") else v
            for k, v in columns.items()
        }
    )


def _cell_thresholds(tensor, starts) -> np.ndarray:
    """The threshold of every cell in the order :func:`_curve_groups` lays them out."""
    if tensor.axes == ("cell",):
        return np.asarray(tensor.coords["threshold"], np.float64)
    grid = np.asarray(tensor.coords["threshold"], np.float64)[::-1]
    return np.tile(grid, starts.size - 1)
