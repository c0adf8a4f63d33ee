"""Precomputed counts as input: ``tp, fp, fn, tn`` per group, or multiclass cells ``true, pred, count``.

These are the tables :meth:`ConfusionTensor.to_arrow` (and ``fastmetrics count --out``) writes, so
counts saved once are read back into the same tensor:

- one column per grouping column, and a ``threshold`` column for a grid (every group at every
  threshold: the threshold axis);
- a ``cell`` column for a sweep whose groups have thresholds of their own (an exact sweep, a
  grid per system, ranks): the rows are the cells, in ``cell`` order, every other column a
  per-cell coordinate;
- the class order of multiclass counts in the schema metadata (a CSV file loses it: the classes
  are then sorted, unless given).
"""

from __future__ import annotations

import dataclasses
import json
import re

import numpy as np
import pyarrow as pa

from .._errors import InputError, ParameterError
from ..io import labels as enc
from ..io.labels import empty_input
from ..tensor import LAYOUT_KEY, ConfusionTensor, combine, group_starts, pool_cells
from .assemble import labels_to_numpy as _labels_to_numpy

MATRIX_COLUMNS = ("true", "pred", "count")  # precomputed multiclass cells, as ConfusionTensor.to_arrow writes


def _label_codes(array, class_array, column: str, part: str) -> np.ndarray:
    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks()
    enc.no_nulls(array, column, part)
    return enc.encode_with(
        array.cast(class_array.type), class_array, column, part, unknown="which is not among the classes"
    )


SWEEP_COLUMNS = ("threshold", "rank")  # per-cell coordinates inside a group of a sweep


def from_count_table(src, group_cols, thresholds=None) -> ConfusionTensor:
    """A ConfusionTensor from a table of precomputed ``tp, fp, fn, tn`` per group.

    Parameters
    ----------
    src : Source
        The table (see the module docstring for its layouts).
    group_cols : tuple of str
        The grouping columns asked for; a ``threshold`` column is an axis of its own.
    thresholds : optional
        The ``thresholds`` given to :func:`~fastmetrics.count.count`: a table without
        thresholds cannot be swept (the table's own thresholds are used otherwise).

    Returns
    -------
    ConfusionTensor
        Over ``group_cols`` (and ``threshold``), or ``counts[cell, 2, 2]`` for a ``cell`` table;
        the table's other columns pooled over.

    Raises
    ------
    InputError
        Nulls, negative or non-numeric counts, a duplicated group, a grid missing some
        (group, threshold), a ``cell`` column that does not number the rows.
    """
    if len(src.parts) > 1:
        return _per_file(src, lambda part: from_count_table(part, group_cols, thresholds))
    columns = src.column_names
    group_cols = _kept_axes(src, group_cols)
    sweep = [c for c in SWEEP_COLUMNS if c in columns and c not in group_cols]
    if thresholds is not None and not sweep:
        raise ParameterError(
            f"The input {src.names[0]} is a table of counts without thresholds: it cannot be swept. "
            "Count the runs with thresholds (fastmetrics count --thresholds ...) and save those counts."
        )
    if thresholds is not None and sweep:
        raise ParameterError(
            f"The input {src.names[0]} is a table of counts saved with its own {sweep[0]}s: it is read as "
            "saved. Drop thresholds (--thresholds), or count the runs again with the thresholds you want."
        )
    if "cell" in columns:
        return _cells(src, group_cols)
    # every other column names groups: those not asked for are pooled, as count() pools the runs
    pooled = tuple(c for c in columns if c not in (*group_cols, *enc.COUNT_COLUMNS, *SWEEP_COLUMNS))
    axes = tuple(group_cols) + tuple(c for c in sweep if c == "threshold") + pooled
    table = src.read_all(list(axes) + list(enc.COUNT_COLUMNS))
    if table.num_rows == 0:
        raise empty_input(src)
    codes, coords = _dense_axes(table, axes, src.names[0])
    counts = {name: _count_values(table, name, src.names[0]) for name in enc.COUNT_COLUMNS}
    dtype = np.int64 if all(np.issubdtype(v.dtype, np.integer) for v in counts.values()) else np.float64
    out = np.zeros(tuple(len(coords[c]) for c in axes) + (2, 2), dtype)
    idx = tuple(codes)
    out[idx + (1, 1)] = counts["tp"]
    out[idx + (0, 1)] = counts["fp"]
    out[idx + (1, 0)] = counts["fn"]
    out[idx + (0, 0)] = counts["tn"]
    tensor = ConfusionTensor(out, axes, coords, classes=[0, 1])
    return tensor.sum(list(pooled)) if pooled else tensor


def _per_file(src, read) -> ConfusionTensor:
    """Counts saved in several files, each read alone and then merged as
    :meth:`ConfusionTensor.merge` does: the files may hold other groups, or other items of the
    same groups (two halves of a test set: their counts are summed), counted the same way and at
    the same thresholds (an exact sweep's groups get the cells of every file)."""
    tensors = [read(dataclasses.replace(src, parts=[p], names=[n])) for p, n in zip(src.parts, src.names)]
    try:
        return combine(tensors, along=None)
    except ParameterError as exc:
        reason = re.sub(r"\b[Pp]art (\d+)", lambda m: f"{src.names[int(m.group(1))]!r}", str(exc))
        reason = reason.replace("the first", repr(src.names[0]))
        raise ParameterError(f"The counts files do not fit together: {reason}") from None


def _dense_axes(table: pa.Table, axes: tuple, part: str):
    """Codes of each row along each axis (sorted labels) and the labels; every (group,
    threshold) of a grid must be present."""
    if axes:
        enc.check_unique_items(table, list(axes), part)
    labels = {c: enc.sorted_labels([table.column(c).combine_chunks()], c) for c in axes}
    codes = [enc.encode_with(table.column(c), labels[c], c, part) for c in axes]
    if "threshold" in axes:
        cells = int(np.prod([len(v) for v in labels.values()], dtype=np.int64))
        if table.num_rows != cells:
            groups = cells // len(labels["threshold"])
            raise InputError(
                f"The counts table {part} has {table.num_rows} rows for {groups} group(s) at "
                f"{len(labels['threshold'])} thresholds: a grid needs a row per group and threshold. "
                "Counts at each group's own thresholds need a 'cell' column numbering the rows, as "
                "ConfusionTensor.to_arrow and 'fastmetrics count' write."
            )
    return codes, {c: _labels_to_numpy(labels[c]) for c in axes}


def _cells(src, group_cols) -> ConfusionTensor:
    """A sweep of per-cell coordinates: one row per cell, in ``cell`` order."""
    names = [c for c in src.column_names if c != "cell" and c not in enc.COUNT_COLUMNS]
    pooled = [c for c in names if c not in group_cols and c not in SWEEP_COLUMNS]
    table = src.read_all(["cell", *names, *enc.COUNT_COLUMNS])
    if table.num_rows == 0:
        raise empty_input(src)
    cell = _count_values(table, "cell", src.names[0])
    order = np.argsort(cell, kind="stable")
    if not np.array_equal(cell[order], np.arange(table.num_rows)):
        raise InputError(
            f"Column 'cell' of the counts table {src.names[0]} must number its {table.num_rows} rows "
            "0, 1, 2, ... once each."
        )
    table = table.take(pa.array(order))
    coords = {}
    for c in names:
        column = table.column(c).combine_chunks()
        enc.no_nulls(column, c, src.names[0])
        coords[c] = _labels_to_numpy(column)
    _check_cell_order(coords, src.names[0])
    counts = {name: _count_values(table, name, src.names[0]) for name in enc.COUNT_COLUMNS}
    dtype = np.int64 if all(np.issubdtype(v.dtype, np.integer) for v in counts.values()) else np.float64
    out = np.empty((table.num_rows, 2, 2), dtype)
    for name, (i, j) in {"tp": (1, 1), "fp": (0, 1), "fn": (1, 0), "tn": (0, 0)}.items():
        out[:, i, j] = counts[name]
    tensor = ConfusionTensor(out, ("cell",), coords, coord_axes={c: "cell" for c in coords}, classes=[0, 1])
    return pool_cells(tensor, pooled) if pooled else tensor


def _check_cell_order(coords: dict, part: str) -> None:
    """A sweep's groups must be contiguous runs of cells, each in sweep order (thresholds
    decreasing, ranks increasing), as a counter writes them: curve measures read them so."""
    named = [c for c in coords if c not in SWEEP_COLUMNS]
    inside = [c for c in SWEEP_COLUMNS if c in coords]
    if not coords:
        return
    n = len(next(iter(coords.values())))
    probe = ConfusionTensor(np.zeros((n, 2, 2)), ("cell",), coords, coord_axes={c: "cell" for c in coords})
    starts, _ = group_starts(probe)
    keys = pa.table({c: pa.array(np.asarray(coords[c])[starts[:-1]]) for c in named}) if named else None
    wrong = None
    if keys is not None and keys.group_by(named).aggregate([]).num_rows < keys.num_rows:
        firsts = keys.append_column("_g", pa.array(np.arange(keys.num_rows)))
        first = firsts.group_by(named).aggregate([("_g", "min")]).column("_g_min").to_numpy()
        wrong = (int(np.setdiff1d(np.arange(keys.num_rows), first)[0]), "not contiguous")
    elif inside:
        step = np.diff(np.asarray(coords[inside[0]], dtype=np.float64)) * (-1 if inside[0] == "threshold" else 1)
        bad = step < 0
        bad[starts[1:-1] - 1] = False  # a new group starts: no order across groups
        if bad.any():
            order = "decreasing threshold" if inside[0] == "threshold" else "increasing rank"
            wrong = (int(np.searchsorted(starts, np.argmax(bad), side="right") - 1), f"not in {order} order")
    if wrong is not None:
        shown = ", ".join(f"{c}={keys.column(c)[wrong[0]].as_py()!r}" for c in named) if named else "the one group"
        raise InputError(
            f"The counts table {part} is not a sweep as saved: the cells of {shown} are {wrong[1]} in 'cell' "
            "order. Keep each file's cells as 'fastmetrics count' wrote them (give several files together: "
            "their counts are merged)."
        )


def from_matrix_table(src, group_cols, classes) -> ConfusionTensor:
    """A multiclass ConfusionTensor from cells ``true, pred, count`` per group (absent cells are 0).

    Parameters
    ----------
    src : Source
    group_cols : tuple of str
    classes : sequence or None
        The class order; default the order kept in the table's metadata (see the module
        docstring), else the sorted labels.

    Returns
    -------
    ConfusionTensor
    """
    if len(src.parts) > 1:
        return _per_file(src, lambda part: from_matrix_table(part, group_cols, classes))
    group_cols = _kept_axes(src, group_cols)
    pooled = tuple(c for c in src.column_names if c not in (*group_cols, *MATRIX_COLUMNS))
    axes = tuple(group_cols) + pooled
    table = src.read_all(list(axes) + list(MATRIX_COLUMNS))
    if table.num_rows == 0:
        raise empty_input(src)
    enc.check_unique_items(table, list(axes) + ["true", "pred"], src.names[0])
    class_array = enc.class_labels(
        [table.column("true").combine_chunks(), table.column("pred").combine_chunks()],
        ["true", "pred"],
        _saved_classes(src.schema) if classes is None else classes,
    )
    labels = {c: enc.sorted_labels([table.column(c).combine_chunks()], c) for c in axes}
    sizes = tuple(len(labels[c]) for c in axes)
    codes = [enc.encode_with(table.column(c), labels[c], c, src.names[0]) for c in axes]
    true = _label_codes(table.column("true"), class_array, "true", src.names[0])
    predicted = _label_codes(table.column("pred"), class_array, "pred", src.names[0])
    values = _count_values(table, "count", src.names[0])
    m = len(class_array)
    out = np.zeros(sizes + (m, m), np.int64 if np.issubdtype(values.dtype, np.integer) else np.float64)
    out[tuple(codes) + (true, predicted)] = values
    coords = {c: _labels_to_numpy(labels[c]) for c in axes}
    tensor = ConfusionTensor(out, axes, coords, classes=_labels_to_numpy(class_array))
    return tensor.sum(list(pooled)) if pooled else tensor


def saved_layout(schema: pa.Schema) -> dict:
    """What a counts table written by fastmetrics keeps in its schema metadata (empty if none).

    Parameters
    ----------
    schema : pyarrow.Schema

    Returns
    -------
    dict
        ``classes`` (the class order), ``keep`` (axes of class-probability counts -- ``class``,
        ``versus``, ``top_k`` -- that are never pooled) and, for counts saved by ``fastmetrics count
        --system COL --topic COL``, ``roles``: the columns playing the system and the topic.
    """
    raw = (schema.metadata or {}).get(LAYOUT_KEY)
    try:
        layout = json.loads(raw) if raw else {}
    except (ValueError, TypeError):
        return {}
    return layout if isinstance(layout, dict) else {}


def _saved_classes(schema: pa.Schema):
    """The class order :meth:`ConfusionTensor.to_arrow` keeps in the schema metadata, or None."""
    return saved_layout(schema).get("classes")


def _kept_axes(src, group_cols) -> tuple:
    """The grouping columns plus the class-probability axes the counts were saved with."""
    keep = [c for c in saved_layout(src.schema).get("keep", []) if c in src.column_names and c not in group_cols]
    return tuple(group_cols) + tuple(keep)


def _count_values(table: pa.Table, name: str, part: str) -> np.ndarray:
    """A column of precomputed counts as numpy: no nulls, numeric, finite, non-negative."""
    col = table.column(name).combine_chunks()
    enc.no_nulls(col, name, part)
    values = col.to_numpy(zero_copy_only=False)
    if not np.issubdtype(values.dtype, np.number):
        raise InputError(f"Column '{name}'{enc.where(part)} has type {col.type}; expected counts (numbers >= 0).")
    bad = ~np.isfinite(values) | (values < 0)
    if bad.any():
        row = int(np.argmax(bad))
        raise InputError(
            f"Column '{name}'{enc.where(part)} must hold non-negative finite counts; found "
            f"{values[row].item()!r} at row {row}."
        )
    return values
