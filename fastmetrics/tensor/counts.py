"""ConfusionTensor and MultilabelTensor: confusion counts over named batch axes.

The containers hold counts and labels. What they do beyond selecting and summing is another
module's: combining the counts of several tensors (:meth:`ConfusionTensor.merge`,
:meth:`ConfusionTensor.concat`) is :mod:`fastmetrics.tensor.combining`, evaluating measures
(:meth:`ConfusionTensor.evaluate`) the measures stage's, reached through
:func:`fastmetrics._stages.evaluator`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

import numpy as np
import pyarrow as pa

from .._errors import InputError, ParameterError
from .._stages import evaluator
from .combining import combined_counts, combined_statistics, pooled_cells
from .labels import Labelled, check_layout
from .scores import Scores

LAYOUT_KEY = b"fastmetrics.counts"  # schema metadata of a counts table: the class order


class ConfusionTensor(Labelled):
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
        Labels along the axes (see :mod:`fastmetrics.tensor.labels`).
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
        check_layout(counts.shape[:-2], self.axes, self.coords, self.coord_axes)
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
        """Shape, axes and a few labels of each (not the counts: :meth:`to_arrow` holds them)."""
        dims = " x ".join(f"{a}={n:,}" for a, n in zip(self.axes, self.batch_shape)) or "one cell"
        head = f"ConfusionTensor: {dims}; {self.m} classes, {self.counts.dtype} counts"
        return "\n".join([head, *self._labels_lines()])

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
        return evaluator()(self, measures, **options, **matrix_params)

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
        defined (Steingold & Laclavík n.d., §4.4).
    axes : sequence of str
        The group axes (the leading axes of every statistic).
    coords : mapping of str to array_like, optional
        Labels along the group axes.
    categories : array_like
        The K category labels.

    Notes
    -----
    ``counts[..., category, 2, 2]`` holds, for each category ``c``, the binary matrix of the
    variables "c in gold" and "c in the prediction" over the items (Steingold & Laclavík n.d., §4.3), built from
    the statistics by the constructor, so every ``MultilabelTensor`` has all of them (see
    :mod:`fastmetrics.count.multilabel`).

    :meth:`evaluate` defaults to ``average="micro"``: precision, recall and F1 pooled over
    categories, Steingold & Laclavík (n.d., §4.1); ``proficiency`` and ``permuted_proficiency`` use their multilabel
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
        """Shape, axes and a few labels of each (not the counts)."""
        dims = " x ".join(f"{a}={n:,}" for a, n in zip(self.axes, self.batch_shape))
        return "\n".join([f"MultilabelTensor: {dims}; {self.counts.dtype} counts", *self._labels_lines()])

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
        return evaluator()(
            self, measures, smoothing=smoothing, average=average, undefined=undefined, warn=warn, **options
        )


# -- counts tables, concat and merge --------------------------------------------------------------


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
        stats, axes, labels = combined_statistics(parts, along, MultilabelTensor._STATISTICS)
        return MultilabelTensor(*stats, axes, labels, categories=parts[0].categories)
    return ConfusionTensor(**combined_counts(parts, along))


def pool_cells(tensor: ConfusionTensor, over: Sequence[str]) -> ConfusionTensor:
    """A threshold sweep of per-cell coordinates pooled over some of its group coordinates.

    Each new group has a cell at every threshold of the groups pooled into it, with their
    counts summed (see :func:`fastmetrics.tensor.combining.counts_at`): pooling an exact sweep
    over topics gives the exact sweep of the topics' items together.

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
    return ConfusionTensor(**pooled_cells(tensor, over))
