"""Precomputed counts as input: ``tp, fp, fn, tn`` per group, or multiclass cells ``true, pred, count``."""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from .._errors import InputError
from ..io import labels as enc
from ..io.labels import empty_input
from ..tensor import ConfusionTensor
from .assemble import labels_to_numpy as _labels_to_numpy

MATRIX_COLUMNS = ("true", "pred", "count")  # precomputed multiclass cells, as ConfusionTensor.to_arrow writes


def _label_codes(array, class_array, column: str, part: str) -> np.ndarray:
    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks()
    enc.no_nulls(array, column, part)
    return enc.encode_with(
        array.cast(class_array.type), class_array, column, part, unknown="which is not among the classes"
    )


def from_count_table(src, group_cols) -> ConfusionTensor:
    """A ConfusionTensor from a table of precomputed ``tp, fp, fn, tn`` per group."""
    table = src.read_all(list(group_cols) + list(enc.COUNT_COLUMNS))
    if table.num_rows == 0:
        raise empty_input(src)
    if group_cols:
        enc.check_unique_items(table, list(group_cols), src.names[0])
    labels = {c: enc.sorted_labels([table.column(c).combine_chunks()], c) for c in group_cols}
    sizes = tuple(len(labels[c]) for c in group_cols)
    codes = [enc.encode_with(table.column(c), labels[c], c, src.names[0]) for c in group_cols]
    counts = {name: _count_values(table, name, src.names[0]) for name in enc.COUNT_COLUMNS}
    dtype = np.int64 if all(np.issubdtype(v.dtype, np.integer) for v in counts.values()) else np.float64
    out = np.zeros(sizes + (2, 2), dtype)
    idx = tuple(codes)
    out[idx + (1, 1)] = counts["tp"]
    out[idx + (0, 1)] = counts["fp"]
    out[idx + (1, 0)] = counts["fn"]
    out[idx + (0, 0)] = counts["tn"]
    coords = {c: _labels_to_numpy(labels[c]) for c in group_cols}
    return ConfusionTensor(out, group_cols, coords, classes=[0, 1])


def from_matrix_table(src, group_cols, classes) -> ConfusionTensor:
    """A multiclass ConfusionTensor from cells ``true, pred, count`` per group (absent cells are 0)."""
    table = src.read_all(list(group_cols) + list(MATRIX_COLUMNS))
    if table.num_rows == 0:
        raise empty_input(src)
    enc.check_unique_items(table, list(group_cols) + ["true", "pred"], src.names[0])
    class_array = enc.class_labels(
        [table.column("true").combine_chunks(), table.column("pred").combine_chunks()], ["true", "pred"], classes
    )
    labels = {c: enc.sorted_labels([table.column(c).combine_chunks()], c) for c in group_cols}
    sizes = tuple(len(labels[c]) for c in group_cols)
    codes = [enc.encode_with(table.column(c), labels[c], c, src.names[0]) for c in group_cols]
    true = _label_codes(table.column("true"), class_array, "true", src.names[0])
    predicted = _label_codes(table.column("pred"), class_array, "pred", src.names[0])
    values = _count_values(table, "count", src.names[0])
    m = len(class_array)
    out = np.zeros(sizes + (m, m), np.int64 if np.issubdtype(values.dtype, np.integer) else np.float64)
    out[tuple(codes) + (true, predicted)] = values
    coords = {c: _labels_to_numpy(labels[c]) for c in group_cols}
    return ConfusionTensor(out, group_cols, coords, classes=_labels_to_numpy(class_array))


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
