"""ConfusionTensor and Scores: counts and measure values with named batch axes.

A *coordinate* is a column of labels laid along one batch axis. A dense axis has one coordinate
of the same name (``system``, ``topic``, ``threshold``); the ``cell`` axis of an exact threshold
sweep carries several coordinates (``system``, ``topic``, ``threshold`` per cell), because each
group has its own thresholds.
"""

from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np
import pyarrow as pa

from ._errors import InputError, ParameterError


def _check_layout(shape, axes, coords, coord_axes) -> None:
    if len(axes) != len(shape):
        raise InputError(f"{len(axes)} axis names given for {len(shape)} batch axes of shape {shape}.")
    for name, values in coords.items():
        axis = coord_axes.get(name, name)
        if axis not in axes:
            raise InputError(f"Coordinate '{name}' lies along unknown axis '{axis}'.")
        if len(values) != shape[axes.index(axis)]:
            raise InputError(
                f"Coordinate '{name}' has {len(values)} labels for axis '{axis}' of length {shape[axes.index(axis)]}."
            )


class _Labelled:
    """Shared by ConfusionTensor and Scores: batch axes with labelled coordinates."""

    axes: tuple[str, ...]
    coords: dict[str, np.ndarray]
    coord_axes: dict[str, str]

    def _coord_columns(self, repeat: int = 1) -> dict[str, pa.Array]:
        """Every coordinate expanded to one value per cell, in C order of the batch axes, the
        whole block repeated ``repeat`` times. String labels become dictionary-encoded columns:
        a tidy table of 10M rows then costs integer indices, not 10M Python strings."""
        shape = self.batch_shape
        n = int(np.prod(shape, dtype=np.int64))
        grids = np.unravel_index(np.arange(n), shape) if shape else ()
        out = {}
        for name, values in self.coords.items():
            axis = self.axes.index(self.coord_axes.get(name, name))
            labels = np.asarray(values)
            index = grids[axis]
            if repeat > 1:
                index = np.tile(index, repeat)
            if labels.dtype == object:
                # labels may repeat (per-cell coordinates of an exact sweep): encode them first
                encoded = pa.array(labels.tolist()).dictionary_encode()
                codes = encoded.indices.to_numpy(zero_copy_only=False)[index]
                out[name] = pa.DictionaryArray.from_arrays(pa.array(codes.astype(np.int32)), encoded.dictionary)
            else:
                out[name] = pa.array(labels[index])
        return out

    def _select(self, labels: Mapping[str, object]):
        """Index tuple and new (axes, coords, coord_axes) for selection by label."""
        index: list = [slice(None)] * len(self.axes)
        axes = list(self.axes)
        coords = dict(self.coords)
        for name, wanted in labels.items():
            if name not in self.axes:
                raise ParameterError(f"Cannot select on '{name}': the axes are {', '.join(self.axes)}.")
            values = np.asarray(self.coords[name])
            scalar = np.ndim(wanted) == 0
            wanted_list = [wanted] if scalar else list(wanted)
            positions = []
            for w in wanted_list:
                hit = np.flatnonzero(values == w)
                if hit.size == 0:
                    raise ParameterError(f"No {name} labelled {w!r}; known: {', '.join(map(str, values[:10]))}"
                                         + (" ..." if values.size > 10 else "") + ".")
                positions.append(int(hit[0]))
            i = self.axes.index(name)
            if scalar:
                index[i] = positions[0]
            else:
                index[i] = np.asarray(positions)
                coords[name] = values[positions]
        for name, wanted in labels.items():
            if np.ndim(wanted) == 0:
                axes.remove(name)
                coords.pop(name)
        return tuple(index), tuple(axes), coords


def _measure_entries(measures, average):
    """``(spec, average, label)`` per requested measure; ``name@avg`` overrides ``average``."""
    from .measures import registry

    if isinstance(measures, str):
        measures = registry.split_specs(measures)
    if not isinstance(measures, (list, tuple)) and hasattr(measures, "__iter__"):
        measures = list(measures)
    if not isinstance(measures, (list, tuple)) or not all(isinstance(m, (str, registry.MeasureSpec)) for m in measures):
        raise ParameterError("measures must be a name, a comma-separated string of names or specs, or a list "
                             f"of them (e.g. ['f1', 'mcc']); got {measures!r}.")
    entries = []
    for m in measures:
        avg = average
        if isinstance(m, str) and "@" in m:
            m, _, suffix = m.rpartition("@")
            avg = None if suffix.strip().lower() == "none" else suffix.strip().lower()
        spec = registry.make_spec(m)
        label = spec.label if avg == average else f"{spec.label}@{avg}"
        entries.append((spec, avg, label))
    if not entries:
        raise ParameterError("At least one measure is needed.")
    return entries


class ConfusionTensor(_Labelled):
    """Confusion counts over named batch axes.

    Parameters
    ----------
    counts : ndarray, shape (..., m, m)
        ``counts[..., i, j]`` = number (or weight) of items of true class ``i`` predicted as
        ``j``. Binary is ``m = 2`` with class 1 positive: ``tn = c00, fp = c01, fn = c10,
        tp = c11``. int64, or float64 when items carry weights.
    axes : sequence of str
        Names of the leading (batch) axes.
    coords : mapping of str to array_like
        Labels along the axes (see the module docstring).
    coord_axes : mapping of str to str, optional
        The axis each coordinate lies along, where it differs from the coordinate's name.
    classes : array_like, optional
        Class labels of the last two axes; ``[0, 1]`` for binary.
    """

    def __init__(self, counts, axes: Sequence[str], coords: Mapping[str, object] | None = None, *,
                 coord_axes: Mapping[str, str] | None = None, classes=None):
        counts = np.asarray(counts)
        if counts.ndim < 2 or counts.shape[-1] != counts.shape[-2]:
            raise InputError(f"Counts must have shape (..., m, m); got {counts.shape}.")
        self.counts = counts
        self.axes = tuple(axes)
        self.coords = {k: np.asarray(v) for k, v in (coords or {}).items()}
        self.coord_axes = dict(coord_axes or {})
        for axis, size in zip(self.axes, counts.shape[:-2]):
            if not any(self.coord_axes.get(c, c) == axis for c in self.coords):
                self.coords[axis] = np.arange(size)
        _check_layout(counts.shape[:-2], self.axes, self.coords, self.coord_axes)
        self.classes = np.arange(counts.shape[-1]) if classes is None else np.asarray(classes)

    @property
    def batch_shape(self) -> tuple[int, ...]:
        return self.counts.shape[:-2]

    @property
    def m(self) -> int:
        return self.counts.shape[-1]

    def _binary(self, i: int, j: int) -> np.ndarray:
        if self.m != 2:
            raise ParameterError(f"tp/fp/fn/tn need binary counts; these have {self.m} classes.")
        return self.counts[..., i, j]

    tp = property(lambda self: self._binary(1, 1), doc="True positives, counts[..., 1, 1].")
    fp = property(lambda self: self._binary(0, 1), doc="False positives, counts[..., 0, 1].")
    fn = property(lambda self: self._binary(1, 0), doc="False negatives, counts[..., 1, 0].")
    tn = property(lambda self: self._binary(0, 0), doc="True negatives, counts[..., 0, 0].")

    def __repr__(self) -> str:
        dims = ", ".join(f"{a}={n}" for a, n in zip(self.axes, self.batch_shape))
        return f"ConfusionTensor({dims}; m={self.m}, dtype={self.counts.dtype})"

    def sum(self, axis: str | Sequence[str]) -> "ConfusionTensor":
        """Pool counts over one or more axes (micro averaging over, e.g., topics)."""
        names = [axis] if isinstance(axis, str) else list(axis)
        for name in names:
            if name not in self.axes:
                raise ParameterError(f"Cannot sum over '{name}': the axes are {', '.join(self.axes)}.")
            if any(self.coord_axes.get(c, c) == name and c != name for c in self.coords):
                raise ParameterError(f"Cannot sum over '{name}': it carries per-cell coordinates.")
        positions = tuple(self.axes.index(n) for n in names)
        counts = self.counts.sum(axis=positions)
        axes = [a for a in self.axes if a not in names]
        coords = {k: v for k, v in self.coords.items() if self.coord_axes.get(k, k) in axes}
        return ConfusionTensor(counts, axes, coords, coord_axes=self.coord_axes, classes=self.classes)

    def sel(self, **labels) -> "ConfusionTensor":
        """Select by label: a scalar drops the axis, a list keeps it (``t.sel(system="a")``)."""
        index, axes, coords = self._select(labels)
        return ConfusionTensor(self.counts[index], axes, coords, coord_axes=self.coord_axes, classes=self.classes)

    def evaluate(self, measures, *, smoothing=None, average=None, undefined=None, warn=False,
                 **matrix_params) -> "Scores":
        """Evaluate measures on every cell.

        Parameters
        ----------
        measures : str or sequence of str
            Names, aliases or specs (``"fbeta(beta=0.5)"``). A suffix ``@micro``, ``@macro`` or
            ``@weighted`` sets the averaging of that measure alone (``"f1@macro"``), so native
            and averaged multiclass values fit in one table.
        smoothing, average, undefined
            As in :func:`fastmetrics.compute` (``average`` is the default for measures
            without a suffix).
        warn : bool, default False
            Issue :class:`UndefinedMeasureWarning` for undefined cells (off: leaderboards of
            many topics routinely contain undefined cells, and the NaNs are in the output).
        **matrix_params
            Array parameters of multiclass measures, e.g. ``cost=`` for ``k_cost``.

        Returns
        -------
        Scores
        """
        from .measures import api

        entries = _measure_entries(measures, average)
        values = np.empty((len(entries),) + self.batch_shape, np.float64)
        for i, (spec, avg, _) in enumerate(entries):
            extra = {k: v for k, v in matrix_params.items() if k in spec.measure.matrix_params}
            api.compute(spec, counts=self.counts, smoothing=smoothing, average=avg,
                        undefined=undefined, out=values[i, ...], warn=warn, **extra)
        return Scores(values, [e[2] for e in entries], self.axes, self.coords, coord_axes=self.coord_axes)

    def to_arrow(self) -> pa.Table:
        """Tidy counts: one row per cell with ``tp, fp, fn, tn`` (binary) or per (cell, true, pred)."""
        columns = self._coord_columns()
        if self.m == 2:
            for name, (i, j) in {"tp": (1, 1), "fp": (0, 1), "fn": (1, 0), "tn": (0, 0)}.items():
                columns[name] = pa.array(self.counts[..., i, j].reshape(-1))
            return pa.table(columns)
        m = self.m
        n_cells = int(np.prod(self.batch_shape, dtype=np.int64))
        rep = {k: pa.array(np.repeat(np.asarray(v.to_pylist(), dtype=object), m * m).tolist())
               for k, v in columns.items()}
        rep["true"] = pa.array(np.tile(np.repeat(self.classes, m), n_cells))
        rep["pred"] = pa.array(np.tile(np.tile(self.classes, m), n_cells))
        rep["count"] = pa.array(self.counts.reshape(-1))
        return pa.table(rep)


class Scores(_Labelled):
    """Measure values ``values[measure, ...]`` over the batch axes of a ConfusionTensor."""

    def __init__(self, values, measures: Sequence[str], axes, coords, *, coord_axes=None):
        self.values = np.asarray(values, dtype=np.float64)
        self.measures = tuple(measures)
        self.axes = tuple(axes)
        self.coords = {k: np.asarray(v) for k, v in coords.items()}
        self.coord_axes = dict(coord_axes or {})
        if self.values.shape[0] != len(self.measures):
            raise InputError(f"{len(self.measures)} measure names for {self.values.shape[0]} value rows.")
        _check_layout(self.values.shape[1:], self.axes, self.coords, self.coord_axes)

    @property
    def batch_shape(self) -> tuple[int, ...]:
        return self.values.shape[1:]

    def __repr__(self) -> str:
        dims = ", ".join(f"{a}={n}" for a, n in zip(self.axes, self.batch_shape))
        return f"Scores(measures={list(self.measures)}; {dims})"

    def __getitem__(self, measure: str) -> np.ndarray:
        """Values of one measure, shape = batch shape."""
        if measure not in self.measures:
            raise ParameterError(f"No measure {measure!r} in these scores; they hold {', '.join(self.measures)}.")
        return self.values[self.measures.index(measure)]

    def sel(self, **labels) -> "Scores":
        index, axes, coords = self._select(labels)
        return Scores(self.values[(slice(None),) + index], self.measures, axes, coords, coord_axes=self.coord_axes)

    def to_arrow(self) -> pa.Table:
        """Tidy table: the batch coordinate columns, then ``measure`` and ``value``; one row per
        (measure, cell), measures outermost. String columns are dictionary-encoded."""
        n_cells = int(np.prod(self.batch_shape, dtype=np.int64))
        out = self._coord_columns(repeat=len(self.measures))
        index = np.repeat(np.arange(len(self.measures), dtype=np.int32), n_cells)
        out["measure"] = pa.DictionaryArray.from_arrays(pa.array(index), pa.array(list(self.measures), pa.string()))
        out["value"] = pa.array(self.values.reshape(-1), pa.float64())
        return pa.table(out)


class MultilabelTensor(ConfusionTensor):
    """Multilabel counts: per-category binary matrices plus the statistics set-based measures need.

    ``counts[..., category, 2, 2]`` holds, for each category ``c``, the binary matrix of the
    variables "c in gold" and "c in the prediction" over the items (seed 001 §4.3). The extra
    arrays, over the group axes only (see :mod:`fastmetrics.count.multilabel`):
    ``cooccurrence[..., K, K]``, ``gold_size[..., K]``, ``pred_size[..., K]``, ``n[...]``,
    ``object_sums[..., 3]`` and ``object_counts[..., 3]`` (per-object precision, recall, F1).

    :meth:`evaluate` defaults to ``average="micro"``: precision, recall and F1 pooled over
    categories, seed 001 §4.1; ``proficiency`` and ``permuted_proficiency`` use their multilabel
    definitions (§4.3); ``average="samples"`` gives the per-object means of §4.4.
    """

    AVERAGES = (None, "micro", "macro", "weighted", "samples")

    @classmethod
    def from_statistics(cls, cooccurrence, gold_size, pred_size, n, object_sums, object_counts, axes, coords,
                        categories) -> "MultilabelTensor":
        tp = np.diagonal(cooccurrence, axis1=-2, axis2=-1)
        counts = np.empty(tp.shape + (2, 2), np.result_type(cooccurrence, n))
        counts[..., 1, 1] = tp
        counts[..., 1, 0] = gold_size - tp
        counts[..., 0, 1] = pred_size - tp
        counts[..., 0, 0] = np.asarray(n)[..., None] - gold_size - pred_size + tp
        obj = cls(counts, tuple(axes) + ("category",), {**coords, "category": categories}, classes=[0, 1])
        obj.cooccurrence = np.asarray(cooccurrence)
        obj.gold_size = np.asarray(gold_size)
        obj.pred_size = np.asarray(pred_size)
        obj.n = np.asarray(n)
        obj.object_sums = np.asarray(object_sums, np.float64)
        obj.object_counts = np.asarray(object_counts)
        return obj

    @property
    def group_axes(self) -> tuple[str, ...]:
        return self.axes[:-1]

    @property
    def categories(self) -> np.ndarray:
        return self.coords["category"]

    def __repr__(self) -> str:
        dims = ", ".join(f"{a}={n}" for a, n in zip(self.axes, self.batch_shape))
        return f"MultilabelTensor({dims}; dtype={self.counts.dtype})"

    def _rebuild(self, index, axes, coords) -> "MultilabelTensor":
        group_index = tuple(index[:-1])
        stats = [getattr(self, a)[group_index] for a in
                 ("cooccurrence", "gold_size", "pred_size", "n", "object_sums", "object_counts")]
        group_coords = {k: v for k, v in coords.items() if k != "category"}
        return MultilabelTensor.from_statistics(*stats, axes[:-1], group_coords, self.categories)

    def sel(self, **labels) -> "MultilabelTensor":
        if "category" in labels:
            raise ParameterError("Select categories on the scores of evaluate(average=None), not on the tensor: "
                                 "the set-based measures need every category.")
        index, axes, coords = self._select(labels)
        return self._rebuild(index, axes, coords)

    def sum(self, axis) -> ConfusionTensor:
        """Pool over group axes (a MultilabelTensor), or over ``"category"`` (the pooled binary
        ConfusionTensor of the micro averages)."""
        names = [axis] if isinstance(axis, str) else list(axis)
        if "category" in names:
            pooled = ConfusionTensor(self.counts, self.axes, self.coords, classes=self.classes)
            return pooled.sum(names)
        for name in names:
            if name not in self.group_axes:
                raise ParameterError(f"Cannot sum over '{name}': the axes are {', '.join(self.axes)}.")
        positions = tuple(self.group_axes.index(n) for n in names)
        stats = [getattr(self, a).sum(axis=positions) for a in
                 ("cooccurrence", "gold_size", "pred_size", "n", "object_sums", "object_counts")]
        axes = [a for a in self.group_axes if a not in names]
        coords = {k: v for k, v in self.coords.items() if k in axes}
        return MultilabelTensor.from_statistics(*stats, axes, coords, self.categories)

    def evaluate(self, measures, *, smoothing=None, average="micro", undefined=None, warn=False) -> Scores:
        """Evaluate measures on multilabel input.

        Parameters
        ----------
        average : {"micro", "macro", "weighted", "samples", None}, default "micro"
            ``micro``: pool the per-category counts (seed 001 §4.1); proficiency measures use
            their §4.3 definitions. ``macro``/``weighted``: mean over categories present in gold
            or prediction / weighted by gold size (:mod:`fastmetrics.measures.averaging`).
            ``samples``: per-object precision, recall or F1 averaged over the objects where
            each is defined (§4.4; objects with no predicted category have no precision, with
            no gold category no recall). ``None``: one value per category (a ``category`` axis).
        """
        from .measures import api, averaging

        entries = _measure_entries(measures, average)
        for _, avg, label in entries:
            if avg not in self.AVERAGES:
                raise ParameterError(f"average must be one of {', '.join(map(str, self.AVERAGES))} for multilabel "
                                     f"input; got {avg!r} (for {label}).")
        per_category = [avg is None for _, avg, _ in entries]
        if any(per_category) and not all(per_category):
            raise ParameterError("Per-category values (average=None) and averaged values cannot share one "
                                 "Scores: evaluate them separately.")
        average = entries[0][1] if all(per_category) else "micro"
        axes = self.axes if average is None else self.group_axes
        shape = self.batch_shape if average is None else self.batch_shape[:-1]
        values = np.empty((len(entries),) + shape, np.float64)
        c = self.counts
        for i, (spec, avg, _) in enumerate(entries):
            kw = dict(smoothing=smoothing, undefined=undefined, warn=warn)
            if avg is None:
                api.compute(spec, counts=c, out=values[i, ...], **kw)
            elif avg == "samples":
                values[i, ...] = self._per_object(spec, undefined)
            elif avg == "micro" and spec.measure.multilabel is not None:
                values[i, ...] = api.apply_undefined(spec.measure.multilabel(self, spec), undefined, spec.label, warn)
            elif avg == "micro":
                api.compute(spec, counts=c.sum(axis=-3), out=values[i, ...], **kw)
            else:
                per = api.compute(spec, counts=c, smoothing=smoothing, undefined=undefined, warn=False)
                mean = averaging.average_classes(per, c[..., 1, :].sum(-1), c[..., :, 1].sum(-1), avg)
                values[i, ...] = api.apply_undefined(mean, undefined, f"{spec.label} ({avg})", warn)
        return Scores(values, [e[2] for e in entries], axes,
                      {k: v for k, v in self.coords.items() if k in axes})

    _SAMPLE_MEASURES = ("precision", "recall", "f1")

    def _per_object(self, spec, undefined) -> np.ndarray:
        name = spec.measure.name
        if name not in self._SAMPLE_MEASURES:
            raise ParameterError(f"average='samples' (per-object means, seed 001 §4.4) is defined for "
                                 f"{', '.join(self._SAMPLE_MEASURES)}; not for '{name}'.")
        k = self._SAMPLE_MEASURES.index(name)
        with np.errstate(invalid="ignore", divide="ignore"):
            out = self.object_sums[..., k] / self.object_counts[..., k]
        if undefined is not None:
            out = np.where(self.object_counts[..., k] > 0, out, float(undefined))
        return out
