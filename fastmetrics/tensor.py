"""ConfusionTensor and Scores: counts and measure values with named batch axes.

A *coordinate* is a column of labels laid along one batch axis. A dense axis has one coordinate
of the same name (``system``, ``topic``, ``threshold``); the ``cell`` axis of an exact threshold
sweep carries several coordinates (``system``, ``topic``, ``threshold`` per cell), because each
group has its own thresholds.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence

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

    def rename(self, names: Mapping[str, str]):
        """A copy with axes and coordinates renamed (the arrays are shared, not copied).

        Parameters
        ----------
        names : mapping of str to str
            Old name -> new name; a permutation (``{"a": "b", "b": "a"}``) renames at once.

        Returns
        -------
        ConfusionTensor, MultilabelTensor or Scores
            Of the same class.
        """
        out = copy.copy(self)
        out.axes = tuple(names.get(a, a) for a in self.axes)
        out.coords = {names.get(k, k): v for k, v in self.coords.items()}
        out.coord_axes = {names.get(k, k): names.get(a, a) for k, a in self.coord_axes.items()}
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
                    raise ParameterError(
                        f"No {name} labelled {w!r}; known: {', '.join(map(str, values[:10]))}"
                        + (" ..." if values.size > 10 else "")
                        + "."
                    )
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


def role_names(system: str = "system", topic: str = "topic") -> dict[str, str]:
    """The renaming that gives the columns playing the system and topic parts those names.

    Stages that read ``system`` and ``topic`` axes run on any columns through it: rename the
    input with it, and the output with its inverse. It is a permutation, so a column already
    called ``system`` that does not play the system takes the freed name and nothing collides.

    Parameters
    ----------
    system, topic : str
        The columns (axes) playing the system and the topic.

    Returns
    -------
    dict
        Old name -> new name; empty when the names are already ``system`` and ``topic``.
    """
    if system == topic:
        raise ParameterError(f"One column cannot play both the system and the topic: '{system}'.")
    return renaming({system: "system", topic: "topic"})


def renaming(wanted: Mapping[str, str]) -> dict[str, str]:
    """The permutation of names that gives each name in ``wanted`` its new name.

    A name taken by another one keeps existing under the name freed (``{"annotator": "system"}``
    also renames ``system`` to ``annotator``), so renaming a table's columns never collides.

    Parameters
    ----------
    wanted : mapping of str to str
        Old name -> new name, the new names distinct.

    Returns
    -------
    dict
        Old name -> new name, identities left out.
    """
    displaced = [new for new in wanted.values() if new not in wanted]
    freed = [old for old in wanted if old not in wanted.values()]
    names = {**wanted, **dict(zip(displaced, freed))}
    return {old: new for old, new in names.items() if old != new}


def inverse(names: Mapping[str, str]) -> dict[str, str]:
    """The renaming that undoes ``names`` (a permutation, see :func:`role_names`).

    Parameters
    ----------
    names : mapping of str to str

    Returns
    -------
    dict
    """
    return {new: old for old, new in names.items()}


_EVALUATORS: dict[str, Callable] = {}


def bind_evaluator(function: Callable) -> None:
    """Install the function that :meth:`ConfusionTensor.evaluate` runs.

    The tensor module holds the labelled containers and imports no stage; the measures stage
    (:mod:`fastmetrics.measures.evaluation`) binds its ``evaluate`` here when it is imported, which
    ``import fastmetrics`` always does.

    Parameters
    ----------
    function : callable
        ``function(tensor, measures, **options) -> Scores``.
    """
    _EVALUATORS["evaluate"] = function


def _evaluator() -> Callable:
    if "evaluate" not in _EVALUATORS:
        raise RuntimeError("No evaluator bound: import fastmetrics (the measures stage binds it).")
    return _EVALUATORS["evaluate"]


def group_starts(tensor: ConfusionTensor, skip=("threshold", "rank")) -> tuple[np.ndarray, tuple[str, ...]]:
    """Where each group of a ``cell`` tensor starts (its cells are contiguous), and the group axes.

    Parameters
    ----------
    tensor : ConfusionTensor or Scores
        With a ``cell`` axis and per-cell coordinates.
    skip : sequence of str
        The coordinates that vary inside a group.

    Returns
    -------
    starts : ndarray of int64
        ``starts[g]:starts[g + 1]`` are group ``g``'s cells; the last entry is the cell count.
    axes : tuple of str
        The coordinates that name a group.
    """
    axes = tuple(c for c in tensor.coords if c not in skip)
    n = tensor.batch_shape[0]
    first = np.zeros(n, bool)
    first[:1] = True
    for a in axes:
        labels = np.asarray(tensor.coords[a])
        first[1:] |= labels[1:] != labels[:-1]
    return np.append(np.flatnonzero(first), n).astype(np.int64), axes


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

    def __init__(
        self,
        counts,
        axes: Sequence[str],
        coords: Mapping[str, object] | None = None,
        *,
        coord_axes: Mapping[str, str] | None = None,
        classes=None,
    ):
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
        """Shape of the batch axes: ``counts.shape[:-2]``."""
        return self.counts.shape[:-2]

    @property
    def m(self) -> int:
        """Number of classes (the size of the last two axes of ``counts``)."""
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

    def sum(self, axis: str | Sequence[str]) -> ConfusionTensor:
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

    def sel(self, **labels) -> ConfusionTensor:
        """Select by label: a scalar drops the axis, a list keeps it (``t.sel(system="a")``)."""
        index, axes, coords = self._select(labels)
        return ConfusionTensor(self.counts[index], axes, coords, coord_axes=self.coord_axes, classes=self.classes)

    def evaluate(
        self, measures, *, smoothing=None, average=None, undefined=None, warn=False, **matrix_params
    ) -> Scores:
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
        return _evaluator()(
            self, measures, smoothing=smoothing, average=average, undefined=undefined, warn=warn, **matrix_params
        )

    def to_arrow(self) -> pa.Table:
        """Tidy counts: one row per cell with ``tp, fp, fn, tn`` (binary) or per (cell, true, pred)."""
        columns = self._coord_columns()
        if self.m == 2:
            for name, (i, j) in {"tp": (1, 1), "fp": (0, 1), "fn": (1, 0), "tn": (0, 0)}.items():
                columns[name] = pa.array(self.counts[..., i, j].reshape(-1))
            return pa.table(columns)
        m = self.m
        n_cells = int(np.prod(self.batch_shape, dtype=np.int64))
        rep = {
            k: pa.array(np.repeat(np.asarray(v.to_pylist(), dtype=object), m * m).tolist()) for k, v in columns.items()
        }
        rep["true"] = pa.array(np.tile(np.repeat(self.classes, m), n_cells))
        rep["pred"] = pa.array(np.tile(np.tile(self.classes, m), n_cells))
        rep["count"] = pa.array(self.counts.reshape(-1))
        return pa.table(rep)


class Scores(_Labelled):
    """Measure values ``values[measure, ...]`` over the batch axes of a ConfusionTensor.

    Parameters
    ----------
    values : array_like, shape (n_measures, ...)
        One row per measure over the batch axes; stored as float64.
    measures : sequence of str
        The measure labels, one per row of ``values``.
    axes : sequence of str
        Names of the batch axes (the axes of ``values`` after the first).
    coords : mapping of str to array_like
        Labels along the axes (see the module docstring).
    coord_axes : mapping of str to str, optional
        The axis each coordinate lies along, where it differs from the coordinate's name.
    low, high : array_like, optional
        Confidence interval bounds, the shape of ``values`` (``evaluate(..., ci=0.95)``).
    """

    def __init__(self, values, measures: Sequence[str], axes, coords, *, coord_axes=None, low=None, high=None):
        self.values = np.asarray(values, dtype=np.float64)
        self.low = None if low is None else np.asarray(low, dtype=np.float64)
        self.high = None if high is None else np.asarray(high, dtype=np.float64)
        self.measures = tuple(measures)
        self.axes = tuple(axes)
        self.coords = {k: np.asarray(v) for k, v in coords.items()}
        self.coord_axes = dict(coord_axes or {})
        if self.values.shape[0] != len(self.measures):
            raise InputError(f"{len(self.measures)} measure names for {self.values.shape[0]} value rows.")
        _check_layout(self.values.shape[1:], self.axes, self.coords, self.coord_axes)

    @property
    def batch_shape(self) -> tuple[int, ...]:
        """Shape of the batch axes: ``values.shape[1:]``."""
        return self.values.shape[1:]

    def __repr__(self) -> str:
        dims = ", ".join(f"{a}={n}" for a, n in zip(self.axes, self.batch_shape))
        return f"Scores(measures={list(self.measures)}; {dims})"

    def __getitem__(self, measure: str) -> np.ndarray:
        """Values of one measure, shape = batch shape."""
        if measure not in self.measures:
            raise ParameterError(f"No measure {measure!r} in these scores; they hold {', '.join(self.measures)}.")
        return self.values[self.measures.index(measure)]

    def sel(self, **labels) -> Scores:
        """Select by label: a scalar drops the axis, a list keeps it (``s.sel(topic="t1")``)."""
        index, axes, coords = self._select(labels)
        full = (slice(None),) + index
        bounds = {k: None if v is None else v[full] for k, v in (("low", self.low), ("high", self.high))}
        return Scores(self.values[full], self.measures, axes, coords, coord_axes=self.coord_axes, **bounds)

    def to_arrow(self, wide: bool = False) -> pa.Table:
        """Tidy table: the batch coordinate columns, then ``measure`` and ``value``.

        One row per (measure, cell), measures outermost. String columns are dictionary-encoded.
        With confidence intervals, ``ci_low`` and ``ci_high`` follow ``value``.

        Parameters
        ----------
        wide : bool, default False
            One row per cell and one column per measure instead (``f1``, then ``f1 ci_low``,
            ``f1 ci_high`` with intervals).

        Returns
        -------
        pyarrow.Table
        """
        if wide:
            out = self._coord_columns()
            for i, measure in enumerate(self.measures):
                out[measure] = pa.array(self.values[i].reshape(-1), pa.float64())
                if self.low is not None:
                    out[f"{measure} ci_low"] = pa.array(self.low[i].reshape(-1), pa.float64())
                    out[f"{measure} ci_high"] = pa.array(self.high[i].reshape(-1), pa.float64())
            return pa.table(out)
        n_cells = int(np.prod(self.batch_shape, dtype=np.int64))
        out = self._coord_columns(repeat=len(self.measures))
        index = np.repeat(np.arange(len(self.measures), dtype=np.int32), n_cells)
        out["measure"] = pa.DictionaryArray.from_arrays(pa.array(index), pa.array(list(self.measures), pa.string()))
        out["value"] = pa.array(self.values.reshape(-1), pa.float64())
        if self.low is not None:
            out["ci_low"] = pa.array(self.low.reshape(-1), pa.float64())
            out["ci_high"] = pa.array(self.high.reshape(-1), pa.float64())
        return pa.table(out)

    def to_pandas(self, wide: bool = False):
        """The table of :meth:`to_arrow` as a pandas DataFrame (pandas must be installed).

        Parameters
        ----------
        wide : bool, default False

        Returns
        -------
        pandas.DataFrame
        """
        return self.to_arrow(wide).to_pandas()

    def to_polars(self, wide: bool = False):
        """The table of :meth:`to_arrow` as a polars DataFrame (polars must be installed).

        Parameters
        ----------
        wide : bool, default False

        Returns
        -------
        polars.DataFrame
        """
        try:
            import polars
        except ImportError:
            raise ParameterError("to_polars needs polars: pip install polars.") from None
        return polars.from_arrow(self.to_arrow(wide))


class MultilabelTensor(ConfusionTensor):
    """Multilabel counts: per-category binary matrices plus the statistics set-based measures need.

    Parameters
    ----------
    cooccurrence : ndarray, shape (..., K, K)
        ``cooccurrence[..., g, p]`` = items with category ``g`` in gold and ``p`` predicted; its
        diagonal is each category's true positives.
    gold_size, pred_size : ndarray, shape (..., K)
        Items with each category in gold / in the prediction.
    n : ndarray, shape (...)
        Items per group.
    object_sums, object_counts : ndarray, shape (..., 3)
        Sums of the per-object precision, recall and F1, and the number of objects where each is
        defined (seed 001 §4.4).
    axes : sequence of str
        The group axes (the leading axes of every statistic).
    coords : mapping of str to array_like, optional
        Labels along the group axes.
    categories : array_like
        The K category labels.

    Notes
    -----
    ``counts[..., category, 2, 2]`` holds, for each category ``c``, the binary matrix of the
    variables "c in gold" and "c in the prediction" over the items (seed 001 §4.3), built from
    the statistics by the constructor, so every ``MultilabelTensor`` has all of them (see
    :mod:`fastmetrics.count.multilabel`).

    :meth:`evaluate` defaults to ``average="micro"``: precision, recall and F1 pooled over
    categories, seed 001 §4.1; ``proficiency`` and ``permuted_proficiency`` use their multilabel
    definitions (§4.3); ``average="samples"`` gives the per-object means of §4.4.
    """

    _STATISTICS = ("cooccurrence", "gold_size", "pred_size", "n", "object_sums", "object_counts")

    def __init__(
        self,
        cooccurrence,
        gold_size,
        pred_size,
        n,
        object_sums,
        object_counts,
        axes,
        coords: Mapping[str, object] | None = None,
        *,
        categories,
    ):
        self.cooccurrence = np.asarray(cooccurrence)
        self.gold_size = np.asarray(gold_size)
        self.pred_size = np.asarray(pred_size)
        self.n = np.asarray(n)
        self.object_sums = np.asarray(object_sums, np.float64)
        self.object_counts = np.asarray(object_counts)
        tp = np.diagonal(self.cooccurrence, axis1=-2, axis2=-1)
        counts = np.empty(tp.shape + (2, 2), np.result_type(self.cooccurrence, self.n))
        counts[..., 1, 1] = tp
        counts[..., 1, 0] = self.gold_size - tp
        counts[..., 0, 1] = self.pred_size - tp
        counts[..., 0, 0] = self.n[..., None] - self.gold_size - self.pred_size + tp
        super().__init__(
            counts, tuple(axes) + ("category",), {**(coords or {}), "category": categories}, classes=[0, 1]
        )

    @classmethod
    def from_statistics(
        cls, cooccurrence, gold_size, pred_size, n, object_sums, object_counts, axes, coords, categories
    ) -> MultilabelTensor:
        """The constructor with every argument positional (kept for callers of 0.1).

        Parameters
        ----------
        cooccurrence, gold_size, pred_size, n, object_sums, object_counts, axes, coords, categories
            As in :class:`MultilabelTensor`.

        Returns
        -------
        MultilabelTensor
        """
        return cls(
            cooccurrence, gold_size, pred_size, n, object_sums, object_counts, axes, coords, categories=categories
        )

    @property
    def group_axes(self) -> tuple[str, ...]:
        """The axes of the groups (every axis but ``category``)."""
        return self.axes[:-1]

    @property
    def categories(self) -> np.ndarray:
        """The category labels."""
        return self.coords["category"]

    def __repr__(self) -> str:
        dims = ", ".join(f"{a}={n}" for a, n in zip(self.axes, self.batch_shape))
        return f"MultilabelTensor({dims}; dtype={self.counts.dtype})"

    def _group_coords(self, coords) -> dict:
        return {k: v for k, v in coords.items() if k != "category"}

    def sel(self, **labels) -> MultilabelTensor:
        """Select groups by label: a scalar drops the axis, a list keeps it.

        Parameters
        ----------
        **labels
            Labels per group axis (categories cannot be selected: the set-based measures need
            all of them).

        Returns
        -------
        MultilabelTensor
        """
        if "category" in labels:
            raise ParameterError(
                "Select categories on the scores of evaluate(average=None), not on the tensor: "
                "the set-based measures need every category."
            )
        index, axes, coords = self._select(labels)
        stats = [getattr(self, a)[tuple(index[:-1])] for a in self._STATISTICS]
        return MultilabelTensor(*stats, axes[:-1], self._group_coords(coords), categories=self.categories)

    def sum(self, axis) -> MultilabelTensor:
        """Pool the statistics over one or more group axes.

        Parameters
        ----------
        axis : str or sequence of str
            Group axes (to pool over categories, sum :meth:`per_category` instead).

        Returns
        -------
        MultilabelTensor
        """
        names = [axis] if isinstance(axis, str) else list(axis)
        for name in names:
            if name == "category":
                raise ParameterError(
                    "Summing over 'category' pools the categories into one binary matrix: "
                    "use tensor.per_category().sum('category')."
                )
            if name not in self.group_axes:
                raise ParameterError(f"Cannot sum over '{name}': the axes are {', '.join(self.axes)}.")
        positions = tuple(self.group_axes.index(n) for n in names)
        stats = [getattr(self, a).sum(axis=positions) for a in self._STATISTICS]
        axes = [a for a in self.group_axes if a not in names]
        return MultilabelTensor(
            *stats, axes, {k: v for k, v in self.coords.items() if k in axes}, categories=self.categories
        )

    def per_category(self) -> ConfusionTensor:
        """The per-category binary matrices as a plain :class:`ConfusionTensor`.

        Returns
        -------
        ConfusionTensor
            Over the group axes and ``category``.
        """
        return ConfusionTensor(self.counts, self.axes, self.coords, classes=self.classes)

    def evaluate(self, measures, *, smoothing=None, average="micro", undefined=None, warn=False) -> Scores:
        """Evaluate measures on multilabel input.

        Parameters
        ----------
        measures : str or sequence of str
            Names or specs, as in :meth:`ConfusionTensor.evaluate`.
        smoothing, undefined, warn
            As in :meth:`ConfusionTensor.evaluate`.
        average : {"micro", "macro", "weighted", "samples", None}, default "micro"
            See :func:`fastmetrics.measures.evaluation.evaluate_multilabel`.

        Returns
        -------
        Scores
        """
        return _evaluator()(self, measures, smoothing=smoothing, average=average, undefined=undefined, warn=warn)
