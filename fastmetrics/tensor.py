"""ConfusionTensor and Scores: counts and measure values with named batch axes.

A *coordinate* is a column of labels laid along one batch axis. A dense axis has one coordinate
of the same name (``system``, ``topic``, ``threshold``); the ``cell`` axis of an exact threshold
sweep carries several coordinates (``system``, ``topic``, ``threshold`` per cell), because each
group has its own thresholds.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from ._errors import InputError, ParameterError
from ._html import table_html


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


@dataclass(frozen=True)
class Roles:
    """The columns playing the system, the topic and the item, by the user's names.

    Counting reads these columns where they are and names the count axes after them (the plan
    carries one ``Roles``); the stages after it find the system and topic axes of a tensor or of
    scores by the same names and give their output columns those names, so nothing is renamed on
    the way in or out.

    Parameters
    ----------
    system, topic, item : str, default "system", "topic", "item"
        The columns (axes) playing each part.

    Raises
    ------
    ParameterError
        One column named to play both the system and the topic.
    """

    system: str = "system"
    topic: str = "topic"
    item: str = "item"

    def __post_init__(self):
        if self.system == self.topic:
            raise ParameterError(f"One column cannot play both the system and the topic: '{self.system}'.")

    @property
    def identity(self) -> tuple:
        """The columns identifying a run's ranking: (system, topic)."""
        return (self.system, self.topic)

    def pair(self, part: str) -> tuple[str, str]:
        """The columns of a pair of systems (``part="system"``) or topics: ``<name>_a, <name>_b``.

        Parameters
        ----------
        part : {"system", "topic"}

        Returns
        -------
        tuple of str
            E.g. ``("annotator_a", "annotator_b")`` when ``annotator`` plays the system.
        """
        name = getattr(self, part)
        return f"{name}_a", f"{name}_b"


_EVALUATORS: dict[str, Callable] = {}


def bind_evaluator(function: Callable) -> None:
    """Install the function that :meth:`ConfusionTensor.evaluate` runs.

    The tensor module holds the labelled containers and imports no stage; the measures stage
    (:mod:`fastmetrics.measures.evaluation`) binds its ``evaluate`` here when it is imported --
    by the first :meth:`ConfusionTensor.evaluate` call if nothing imported it before, since
    ``import fastmetrics`` loads its stages on first use.

    Parameters
    ----------
    function : callable
        ``function(tensor, measures, **options) -> Scores``.
    """
    _EVALUATORS["evaluate"] = function


def _evaluator() -> Callable:
    if "evaluate" not in _EVALUATORS:
        # fastmetrics loads its stages on first use: the measures stage binds its evaluator as it
        # loads (a name, not an import: the tensor stage does not depend on the measures)
        importlib.import_module("fastmetrics.measures")
    if "evaluate" not in _EVALUATORS:
        raise RuntimeError("No evaluator bound: import fastmetrics.measures (the measures stage binds it).")
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
    known = getattr(tensor, "_group_starts", None)
    # a counter that knows its groups leaves them here, with the coordinates they were found for
    if known is not None and known[0] == axes and all(tensor.coords[a] is c for a, c in zip(axes, known[1])):
        return known[2], axes
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
    squares : ndarray, optional
        With weighted counts, the sum of the squared weights of each count's items (the shape of
        ``counts``; NaN where unknown): confidence intervals take Kish's effective number of
        items from it (:mod:`fastmetrics.measures.intervals`). ``fm.count(..., weight=)`` sets it.
    present : ndarray of bool, shape (..., m), optional
        Which classes each cell's labelling holds, where counts cannot tell: a class seen only
        in items of weight 0 is a class (scikit-learn's ``sample_weight``), counted in the macro
        mean. Default: the classes with items in the cell's counts.
    """

    def __init__(
        self,
        counts,
        axes: Sequence[str],
        coords: Mapping[str, object] | None = None,
        *,
        coord_axes: Mapping[str, str] | None = None,
        classes=None,
        squares=None,
        present=None,
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
        self.squares = None if squares is None else np.asarray(squares, dtype=np.float64)
        self.present = present

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
        """Pool counts over one or more axes (micro averaging over, e.g., topics).

        On a threshold sweep of per-cell coordinates, ``axis`` names group coordinates
        (``"topic"``): see :func:`pool_cells`.
        """
        names = [axis] if isinstance(axis, str) else list(axis)
        if self.cells and all(n in self.coords and n not in self.axes for n in names):
            return pool_cells(self, names)
        for name in names:
            if name not in self.axes:
                raise ParameterError(f"Cannot sum over '{name}': the axes are {', '.join(self.axes)}.")
            if any(self.coord_axes.get(c, c) == name and c != name for c in self.coords):
                raise ParameterError(f"Cannot sum over '{name}': it carries per-cell coordinates.")
        positions = tuple(self.axes.index(n) for n in names)
        counts = self.counts.sum(axis=positions)
        axes = [a for a in self.axes if a not in names]
        coords = {k: v for k, v in self.coords.items() if self.coord_axes.get(k, k) in axes}
        squares = None if self.squares is None else self.squares.sum(axis=positions)
        present = None if self.present is None else self.present.any(axis=positions)
        return ConfusionTensor(
            counts, axes, coords, coord_axes=self.coord_axes, classes=self.classes, squares=squares, present=present
        )

    def sel(self, **labels) -> ConfusionTensor:
        """Select by label: a scalar drops the axis, a list keeps it (``t.sel(system="a")``)."""
        index, axes, coords = self._select(labels)
        squares = None if self.squares is None else self.squares[index]
        present = None if self.present is None else self.present[index]
        return ConfusionTensor(
            self.counts[index],
            axes,
            coords,
            coord_axes=self.coord_axes,
            classes=self.classes,
            squares=squares,
            present=present,
        )

    def evaluate(
        self,
        measures,
        *,
        smoothing=None,
        average="default",
        undefined=None,
        warn=False,
        pos_label=None,
        **matrix_params,
    ) -> Scores:
        """Evaluate measures on every cell.

        Parameters
        ----------
        measures : str or sequence of str
            Names, aliases or specs (``"fbeta(beta=0.5)"``). A suffix ``@micro``, ``@macro`` or
            ``@weighted`` sets the averaging of that measure alone (``"f1@macro"``), so native
            and averaged multiclass values fit in one table.
        smoothing, average, undefined
            As in :func:`fastmetrics.evaluate` (``average`` is the default for measures
            without a suffix; by default native multiclass values, ``None`` or ``"none"``
            asks for per-class values -- a ``class`` axis -- of measures without a native one).
        warn : bool, default False
            Issue :class:`UndefinedMeasureWarning` for undefined cells (off: leaderboards of
            many topics routinely contain undefined cells, and the NaNs are in the output).
        pos_label : scalar, optional
            The positive class of binary measures, scikit-learn's ``pos_label`` (default 1 where
            it is a class; two classes without 1 need it).
        **matrix_params
            Array parameters of multiclass measures, e.g. ``cost=`` for ``k_cost``.

        Returns
        -------
        Scores
        """
        options = dict(smoothing=smoothing, average=average, undefined=undefined, warn=warn, pos_label=pos_label)
        return _evaluator()(self, measures, **options, **matrix_params)

    def to_arrow(self) -> pa.Table:
        """Tidy counts: one row per cell with ``tp, fp, fn, tn`` (binary) or per (cell, true, pred).

        :func:`fastmetrics.count` reads the table back into the same tensor (see
        :func:`fastmetrics.count.tables.read_counts`): dense axes become one column each (a
        threshold grid its ``threshold`` column), a sweep whose groups have thresholds of their
        own (``counts[cell, 2, 2]``) gets a ``cell`` column numbering its cells, and the class
        order is kept in the schema's metadata (key ``fastmetrics.counts``).

        Returns
        -------
        pyarrow.Table
            The coordinate columns (a ``cell`` column first for a sweep of per-cell thresholds),
            then ``tp, fp, fn, tn`` or ``true, pred, count``; int64 counts, float64 with weights.
        """
        columns = self._coord_columns()
        if self.cells:
            columns = {"cell": pa.array(np.arange(self.batch_shape[0], dtype=np.int64)), **columns}
        if self.m == 2:
            for name, (i, j) in {"tp": (1, 1), "fp": (0, 1), "fn": (1, 0), "tn": (0, 0)}.items():
                columns[name] = pa.array(self.counts[..., i, j].reshape(-1))
            return _with_layout(pa.table(columns), self)
        m = self.m
        n_cells = int(np.prod(self.batch_shape, dtype=np.int64))
        rep = {
            k: pa.array(np.repeat(np.asarray(v.to_pylist(), dtype=object), m * m).tolist()) for k, v in columns.items()
        }
        rep["true"] = pa.array(np.tile(np.repeat(self.classes, m), n_cells))
        rep["pred"] = pa.array(np.tile(np.tile(self.classes, m), n_cells))
        rep["count"] = pa.array(self.counts.reshape(-1))
        return _with_layout(pa.table(rep), self)

    @property
    def cells(self) -> bool:
        """Whether the tensor is a sweep of per-cell coordinates (``counts[cell, 2, 2]``)."""
        return any(self.coord_axes.get(c, c) != c for c in self.coords)

    def merge(self, other: ConfusionTensor) -> ConfusionTensor:
        """Add the counts of more items of the same cells (e.g. a second half of the test set).

        Counts are additive: the counts of all items are the cell-wise sums of the counts of any
        partition of the items. Axes are aligned by label; a label only one tensor has gets the
        other's zeros there, which is right for counts (that part had no items of that cell).

        Parameters
        ----------
        other : ConfusionTensor
            Counts of other items, with the same axes (in any order) and the same classes (in
            any order; the result keeps this tensor's). A ``threshold`` axis must hold the same
            thresholds. An exact sweep (``thresholds="exact"``) merges with an exact sweep:
            each group then has a cell at every threshold of either part.

        Returns
        -------
        ConfusionTensor
            The union of the labels of each axis (this tensor's first, in order, then the new
            ones), counts summed; float64 if either tensor's counts are.

        Raises
        ------
        ParameterError
            Different axes, classes or thresholds, a sweep of ranks, or a multilabel tensor.

        Examples
        --------
        >>> import fastmetrics as fm, pyarrow as pa
        >>> runs = pa.table({"system": ["a"] * 4, "topic": ["t"] * 4, "item": [1, 2, 3, 4],
        ...                  "gold": [True, False, True, False], "pred": [True, True, False, False]})
        >>> first, second = fm.count(runs.slice(0, 2)), fm.count(runs.slice(2))
        >>> bool((first.merge(second).counts == fm.count(runs).counts).all())
        True
        """
        return combine([self, other], along=None)

    def concat(self, others, axis: str) -> ConfusionTensor:
        """Add new labels along one axis: counts of new systems (or new topics).

        Parameters
        ----------
        others : ConfusionTensor or sequence of ConfusionTensor
            Counts with the same axes and classes (see :meth:`merge` for the alignment of the
            other axes by label), none of whose ``axis`` labels this tensor (or another of
            ``others``) has.
        axis : str
            The axis along which the labels are new, e.g. ``"system"``. For a sweep of per-cell
            thresholds, the per-cell coordinate (``"system"``, ``"topic"``).

        Returns
        -------
        ConfusionTensor
            This tensor's labels along ``axis`` first, then each of ``others``' in turn; the other
            axes hold the union of the labels, with zero counts where a part has no cell.

        Raises
        ------
        ParameterError
            A label along ``axis`` held twice, no such axis, or the mismatches of :meth:`merge`.

        Examples
        --------
        >>> import fastmetrics as fm, pyarrow as pa
        >>> runs = pa.table({"system": ["a", "a", "b", "b"], "topic": ["t"] * 4, "item": [1, 2, 1, 2],
        ...                  "gold": [True, False] * 2, "pred": [True, True, False, False]})
        >>> a, b = fm.count(runs.slice(0, 2)), fm.count(runs.slice(2))
        >>> a.concat(b, axis="system").coords["system"].tolist()
        ['a', 'b']
        """
        parts = [self, others] if isinstance(others, ConfusionTensor) else [self, *others]
        return combine(parts, along=axis)


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

    def _repr_html_(self) -> str:
        """A notebook's view: the first cells, one column per measure, each interval beside its
        value (see :meth:`to_arrow`, ``wide=True``)."""
        return table_html(self.to_arrow(wide=True), repr(self))

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

    def evaluate(self, measures, *, smoothing=None, average="micro", undefined=None, warn=False, **options) -> Scores:
        """Evaluate measures on multilabel input.

        Parameters
        ----------
        measures : str or sequence of str
            Names or specs, as in :meth:`ConfusionTensor.evaluate`.
        smoothing, undefined, warn
            As in :meth:`ConfusionTensor.evaluate`.
        average : {"micro", "macro", "weighted", "samples", None}, default "micro"
            See :func:`fastmetrics.measures.evaluation.evaluate_multilabel`.
        **options
            The other options of :func:`fastmetrics.evaluate`, refused as it refuses them
            (``ci=``: multilabel counts have no items to resample).

        Returns
        -------
        Scores
        """
        return _evaluator()(
            self, measures, smoothing=smoothing, average=average, undefined=undefined, warn=warn, **options
        )


# -- concat and merge ---------------------------------------------------------------------------
LAYOUT_KEY = b"fastmetrics.counts"  # schema metadata of a counts table: the class order


def _with_layout(table: pa.Table, tensor: ConfusionTensor) -> pa.Table:
    """The counts table with the class order in its schema metadata (CSV loses it: sorted)."""
    layout = {"classes": np.asarray(tensor.classes).tolist()}
    # the axes of class-probability counts (one-vs-rest, one-vs-one, top-k): pooled, they would
    # turn into other numbers (a micro average), so a reader keeps them
    keep = [a for a in ("class", "versus", "top_k") if a in tensor.axes or a in tensor.coords]
    if keep:
        layout["keep"] = keep
    if tensor.squares is not None or np.issubdtype(np.asarray(tensor.counts).dtype, np.floating):
        # read back, weighted counts have no sums of squared weights: no interval may take them for items
        layout["weighted"] = True
    return table.replace_schema_metadata({LAYOUT_KEY: json.dumps(layout, default=str).encode()})


def combine(parts: Sequence[ConfusionTensor], along: str | None) -> ConfusionTensor:
    """The counts of ``parts`` summed cell by cell over the union of their labels.

    The work of :meth:`ConfusionTensor.merge` (``along=None``) and :meth:`ConfusionTensor.concat`
    (``along`` = the axis whose labels must be new in each part).

    Parameters
    ----------
    parts : sequence of ConfusionTensor
        The first fixes the order of the axes, the classes and the labels it holds.
    along : str or None
        The axis whose labels may not repeat across parts.

    Returns
    -------
    ConfusionTensor
        A :class:`MultilabelTensor` when the parts are.

    Raises
    ------
    ParameterError
        See :meth:`ConfusionTensor.merge` and :meth:`ConfusionTensor.concat`.
    """
    for i, part in enumerate(parts):
        if not isinstance(part, ConfusionTensor):
            raise ParameterError(f"Part {i} is a {type(part).__name__}; concat and merge take ConfusionTensors.")
    multilabel = [isinstance(p, MultilabelTensor) for p in parts]
    if any(multilabel):
        if not all(multilabel):
            raise ParameterError("Multilabel counts combine only with multilabel counts (MultilabelTensor).")
        return _combine_multilabel(parts, along)
    orders = _class_orders([p.classes for p in parts], "classes")
    counts = [p.counts[..., o, :][..., :, o] for p, o in zip(parts, orders)]
    if any(p.cells for p in parts):
        return _combine_cells(parts, counts, along)
    own_axes = [p.axes for p in parts]
    for i, part in enumerate(parts):
        if set(part.coords) != set(part.axes):
            raise ParameterError(
                f"Part {i} has coordinates ({', '.join(part.coords)}) besides its axes: merge and concat "
                "take counts with one coordinate per axis."
            )
    labels, positions = _aligned_axes(parts, own_axes, along)
    out = _scatter(own_axes, counts, labels, positions)
    return ConfusionTensor(out, parts[0].axes, labels, classes=parts[0].classes)


def _class_orders(classes: list, what: str) -> list[np.ndarray]:
    """For each part, the positions of the first part's classes among its own."""
    first = np.asarray(classes[0]).tolist()
    orders = []
    for i, own in enumerate(classes):
        own = np.asarray(own).tolist()
        if sorted(map(str, own)) != sorted(map(str, first)) or len(own) != len(first):
            raise ParameterError(
                f"Part {i} has {what} ({', '.join(map(str, own))}); the first has ({', '.join(map(str, first))}): "
                f"merge and concat need the same {what} (count every part with classes=[...])."
            )
        where = {str(c): k for k, c in enumerate(own)}
        orders.append(np.array([where[str(c)] for c in first], dtype=np.intp))
    return orders


def _aligned_axes(parts, own_axes: list, along: str | None):
    """Union of the labels of each axis (first part's order, then new labels in order) and each
    part's positions in it; thresholds must be equal and labels along ``along`` new.

    ``own_axes[i]`` are part ``i``'s axes (its group axes for multilabel counts)."""
    axes = own_axes[0]
    for i, own in enumerate(own_axes):
        if set(own) != set(axes):
            raise ParameterError(
                f"Part {i} has axes ({', '.join(own)}); the first has ({', '.join(axes)}): merge and concat "
                "need the same axes (count every part with the same by=)."
            )
    if along is not None and along not in axes:
        raise ParameterError(f"Cannot concatenate along '{along}': the axes are {', '.join(axes) or 'none'}.")
    labels, positions = {}, [[] for _ in parts]
    for axis in axes:
        per_part = [np.asarray(p.coords[axis]) for p in parts]
        if axis == "threshold":
            _same_thresholds(per_part)
        if axis == along:
            _disjoint(axis, per_part)
        labels[axis] = _union(axis, per_part)
        index = {v: k for k, v in enumerate(labels[axis].tolist())}
        for k, values in enumerate(per_part):
            positions[k].append(np.array([index[v] for v in values.tolist()], dtype=np.intp))
    return labels, positions


def _union(axis: str, arrays: list) -> np.ndarray:
    kinds = {"text" if a.dtype.kind in "OSU" else "number" for a in arrays if a.size}
    if len(kinds) > 1:
        raise ParameterError(
            f"The labels of '{axis}' are text in one part and numbers in another: give them one type "
            "(e.g. read every part with the same column types)."
        )
    labels = list(dict.fromkeys(v for a in arrays for v in a.tolist()))
    return np.asarray(labels, dtype=object if kinds == {"text"} else None)


def _layout(part: ConfusionTensor) -> str:
    """How a part was counted, for messages: a sweep of per-cell coordinates, a grid, or plain counts."""
    if part.cells:
        inside = [c for c in ("threshold", "rank") if c in part.coords]
        named = [c for c in part.coords if c not in inside]
        return f"a sweep with a {' and '.join(inside) or 'coordinate'} per cell (groups {', '.join(named) or 'none'})"
    at = " at thresholds" if "threshold" in part.axes else " without thresholds"
    return f"counts over ({', '.join(a for a in part.axes if a != 'threshold') or 'no axis'}){at}"


def _same_thresholds(per_part: list) -> None:
    for i, grid in enumerate(per_part[1:], 1):
        if grid.shape != per_part[0].shape or not np.array_equal(grid, per_part[0]):
            raise ParameterError(
                f"Part {i} was swept at other thresholds ({_shown(grid)}) than the first ({_shown(per_part[0])}): "
                "count every part at the same thresholds, e.g. thresholds=[0.1, 0.2, ...] (a grid of k "
                "thresholds spans each input's own score range)."
            )


def _disjoint(axis: str, per_part: list) -> None:
    seen: set = set()
    for i, values in enumerate(per_part):
        again = [v for v in dict.fromkeys(values.tolist()) if v in seen]
        if again:
            raise ParameterError(
                f"Part {i} holds {axis} {', '.join(map(repr, again[:5]))}{' ...' if len(again) > 5 else ''} "
                f"already held by an earlier part: concat adds new {axis} labels; use merge to add the "
                "counts of more items of the same cells."
            )
        seen.update(values.tolist())


def _shown(values: np.ndarray, n: int = 4) -> str:
    return ", ".join(f"{v:g}" if isinstance(v, float) else str(v) for v in values.tolist()[:n]) + (
        " ..." if values.size > n else ""
    )


def _scatter(own_axes: list, arrays: list, labels: dict, positions: list) -> np.ndarray:
    """Each part's arrays (leading axes in the part's own order) added at its positions."""
    axes = own_axes[0]
    trailing = arrays[0].shape[len(axes) :]
    out = np.zeros(tuple(len(labels[a]) for a in axes) + trailing, np.result_type(*arrays))
    for own, array, pos in zip(own_axes, arrays, positions):
        order = [own.index(a) for a in axes]
        array = np.transpose(array, order + list(range(len(axes), array.ndim)))
        out[np.ix_(*pos)] += array
    return out


def _combine_cells(parts, counts: list, along: str | None) -> ConfusionTensor:
    """Sweeps of per-cell thresholds: new groups are appended, shared groups merged."""
    j = next(k for k, p in enumerate(parts) if p.cells)  # a sweep: the parts are compared with it
    names = list(parts[j].coords)
    for i, part in enumerate(parts):
        if not part.cells or set(part.coords) != set(names):
            raise ParameterError(
                f"Part {i} is {_layout(part)}; part {j} is {_layout(parts[j])}: merge and concat take parts "
                "counted the same way (the same thresholds= and by=)."
            )
    groups = [c for c in names if c not in ("threshold", "rank")]
    if along is not None:
        if along not in groups:
            raise ParameterError(
                f"Cannot concatenate along '{along}': the groups of this sweep are named by {', '.join(groups)}."
            )
        _disjoint(along, [np.asarray(p.coords[along]) for p in parts])
    if "rank" in names:
        if along is None:
            raise ParameterError(
                "Sweeps of ranks (thresholds='ranks') do not merge: a rank depends on every item of a "
                "topic. Combine the runs and count them again."
            )
        for c in groups:
            _union(c, [np.asarray(p.coords[c]) for p in parts])  # one kind of label per coordinate
        coords = {c: np.concatenate([np.asarray(p.coords[c]) for p in parts]) for c in names}
        return ConfusionTensor(
            np.concatenate(counts), ("cell",), coords, coord_axes={c: "cell" for c in coords}, classes=parts[0].classes
        )
    pieces = _group_pieces(parts, counts, groups)
    labels = {c: [np.asarray(p.coords[c]) for p in parts] for c in groups}
    return _from_pieces(pieces, groups, labels, parts[0].classes)


def pool_cells(tensor: ConfusionTensor, over: Sequence[str]) -> ConfusionTensor:
    """A threshold sweep of per-cell coordinates pooled over some of its group coordinates.

    Each new group has a cell at every threshold of the groups pooled into it, with their
    counts summed (see :func:`_merge_sweeps`): pooling an exact sweep over topics gives the exact
    sweep of the topics' items together.

    Parameters
    ----------
    tensor : ConfusionTensor
        ``counts[cell, 2, 2]`` with per-cell ``threshold`` and group coordinates.
    over : sequence of str
        Group coordinates to pool over (e.g. ``["topic"]``).

    Returns
    -------
    ConfusionTensor
        The same layout without the ``over`` coordinates.

    Raises
    ------
    ParameterError
        A sweep of ranks, or ``over`` naming no group coordinate.
    """
    if "rank" in tensor.coords or "threshold" not in tensor.coords:
        raise ParameterError(
            f"Cannot pool a sweep of ranks over {', '.join(over)}: a rank depends on every item of a topic. "
            "Count the runs again, grouped as wanted."
        )
    unknown = [c for c in over if c not in tensor.coords or c == "threshold"]
    if unknown:
        raise ParameterError(f"Cannot pool over '{unknown[0]}': the groups are named by {', '.join(tensor.coords)}.")
    groups = [c for c in tensor.coords if c not in over and c != "threshold"]
    pieces = _group_pieces([tensor], [tensor.counts], groups)
    return _from_pieces(pieces, groups, {c: [np.asarray(tensor.coords[c])] for c in groups}, tensor.classes)


def _group_pieces(parts, counts: list, groups: list) -> dict:
    """Each group's cells ``(thresholds, counts)``, per part, keyed by its ``groups`` labels."""
    pieces: dict = {}
    for part, array in zip(parts, counts):
        starts, _ = group_starts(part, skip=("threshold",))
        for a, b in zip(starts[:-1], starts[1:]):
            key = tuple(part.coords[c][a] for c in groups)
            pieces.setdefault(key, []).append((np.asarray(part.coords["threshold"][a:b], np.float64), array[a:b]))
    return pieces


def _from_pieces(pieces: dict, groups: list, labels: dict, classes) -> ConfusionTensor:
    """The cells of every group, the pieces of each merged, groups in the order of ``pieces``."""
    merged = [(key, *_merge_sweeps(p)) for key, p in pieces.items()]
    sizes = [len(thresholds) for _, thresholds, _ in merged]
    kinds = {c: _union(c, labels[c]).dtype for c in groups}
    coords = {c: np.repeat(np.array([key[i] for key, _, _ in merged], kinds[c]), sizes) for i, c in enumerate(groups)}
    coords["threshold"] = np.concatenate([t for _, t, _ in merged])
    out = np.concatenate([c for _, _, c in merged])
    return ConfusionTensor(out, ("cell",), coords, coord_axes={c: "cell" for c in coords}, classes=classes)


def _merge_sweeps(pieces: list) -> tuple[np.ndarray, np.ndarray]:
    """One group's cells from several parts: a cell at every threshold of any part."""
    if len(pieces) == 1:
        return pieces[0]
    thresholds = np.unique(np.concatenate([t for t, _ in pieces]))[::-1]  # decreasing, as count() orders them
    return thresholds, sum(counts_at(own, counts, thresholds) for own, counts in pieces)


def counts_at(own: np.ndarray, counts: np.ndarray, thresholds: np.ndarray) -> np.ndarray:
    """One group's counts at any ``thresholds`` from its exact-sweep cells.

    At a threshold ``t`` the items with ``score >= t`` are predicted positive: the counts are those
    of the group's lowest own threshold ``>= t``, or, when it has none, every item negative.

    Parameters
    ----------
    own : ndarray of float64
        The group's own thresholds, decreasing (as an exact sweep orders its cells).
    counts : ndarray, shape (len(own), 2, 2)
        The counts at each of them.
    thresholds : ndarray of float64
        Where to read the counts.

    Returns
    -------
    ndarray, shape (len(thresholds), 2, 2)
    """
    at_or_above = own.size - np.searchsorted(own[::-1], thresholds, side="left")
    reached = at_or_above > 0
    out = np.zeros((thresholds.size, 2, 2), counts.dtype)
    out[reached] = counts[at_or_above[reached] - 1]
    if counts.shape[0]:
        out[~reached, 0, 0] = counts[0, 0].sum()  # nothing predicted positive: every negative a tn,
        out[~reached, 1, 0] = counts[0, 1].sum()  # every positive a fn
    return out


def _combine_multilabel(parts, along: str | None) -> MultilabelTensor:
    """Multilabel statistics are additive: summed over the union of the group labels."""
    order = _class_orders([p.categories for p in parts], "categories")
    own_axes = [p.group_axes for p in parts]
    labels, positions = _aligned_axes(parts, own_axes, along)
    stats = []
    for name in MultilabelTensor._STATISTICS:
        arrays = [getattr(p, name) for p in parts]
        if name == "cooccurrence":
            arrays = [a[..., o, :][..., :, o] for a, o in zip(arrays, order)]
        elif name in ("gold_size", "pred_size"):
            arrays = [a[..., o] for a, o in zip(arrays, order)]
        stats.append(_scatter(own_axes, arrays, labels, positions))
    return MultilabelTensor(*stats, own_axes[0], labels, categories=parts[0].categories)
