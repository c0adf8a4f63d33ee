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

    def _coord_columns(self) -> dict[str, np.ndarray]:
        """Every coordinate expanded to one value per cell, in C order of the batch axes."""
        shape = self.batch_shape
        n = int(np.prod(shape, dtype=np.int64))
        grids = np.unravel_index(np.arange(n), shape) if shape else ()
        out = {}
        for name, values in self.coords.items():
            axis = self.axes.index(self.coord_axes.get(name, name))
            out[name] = np.asarray(values)[grids[axis]]
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

    def evaluate(self, measures, *, smoothing=None, average=None, undefined=None, warn=False) -> "Scores":
        """Evaluate measures on every cell.

        Parameters
        ----------
        measures : str or sequence of str
            Names, aliases or specs (``"fbeta(beta=0.5)"``).
        smoothing, average, undefined
            As in :func:`fastmetrics.compute`.
        warn : bool, default False
            Issue :class:`UndefinedMeasureWarning` for undefined cells (off: leaderboards of
            many topics routinely contain undefined cells, and the NaNs are in the output).

        Returns
        -------
        Scores
        """
        from .measures import api, registry

        if isinstance(measures, str):
            measures = registry.split_specs(measures)
        specs = [registry.make_spec(m) for m in measures]
        if not specs:
            raise ParameterError("At least one measure is needed.")
        values = np.empty((len(specs),) + self.batch_shape, np.float64)
        for i, spec in enumerate(specs):
            api.compute(spec, counts=self.counts, smoothing=smoothing, average=average,
                        undefined=undefined, out=values[i], warn=warn)
        return Scores(values, [s.label for s in specs], self.axes, self.coords, coord_axes=self.coord_axes)

    def to_arrow(self) -> pa.Table:
        """Tidy counts: one row per cell with ``tp, fp, fn, tn`` (binary) or per (cell, true, pred)."""
        columns = {k: pa.array(v) for k, v in self._coord_columns().items()}
        if self.m == 2:
            for name, (i, j) in {"tp": (1, 1), "fp": (0, 1), "fn": (1, 0), "tn": (0, 0)}.items():
                columns[name] = pa.array(self.counts[..., i, j].reshape(-1))
            return pa.table(columns)
        m = self.m
        n_cells = int(np.prod(self.batch_shape, dtype=np.int64))
        rep = {k: pa.array(np.repeat(np.asarray(v.to_numpy(zero_copy_only=False)), m * m)) for k, v in columns.items()}
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
        (measure, cell), measures outermost."""
        n_cells = int(np.prod(self.batch_shape, dtype=np.int64))
        cols = self._coord_columns()
        out = {k: pa.array(np.tile(v, len(self.measures))) for k, v in cols.items()}
        out["measure"] = pa.array(np.repeat(np.asarray(self.measures, dtype=object), n_cells), pa.string())
        out["value"] = pa.array(self.values.reshape(-1), pa.float64())
        return pa.table(out)
