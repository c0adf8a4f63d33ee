"""Multilabel counting: items carrying sets of gold and predicted categories (seed 001 §4).

One pass over the items accumulates, per group, the sufficient statistics of every multilabel
measure -- all additive, so batches and partitions sum:

- ``cooccurrence[g, i, j]`` = items with category ``i`` in gold and ``j`` in the prediction.
  Its diagonal is the per-category tp; with the category sizes it gives every pairwise 2x2
  matrix (Ac_i, Pc_j) that permuted proficiency assigns over.
- ``gold_size[g, i]``, ``pred_size[g, i]``, ``n[g]`` (items), and
- ``object_sums[g, k]`` / ``object_counts[g, k]``: sums of per-object precision, recall and F1
  (seed 001 §4.4) over the objects where each is defined, and the number of those objects.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from numba import njit

from .._errors import InputError
from ..io import labels as enc
from ..io.labels import empty_input
from ..tensor import MultilabelTensor
from .encoders import Encoder
from .plan import column_codes


@njit(cache=True)
def _multilabel_kernel(
    group,
    gold_offsets,
    gold_codes,
    pred_offsets,
    pred_codes,
    weight,
    gold_mark,
    pred_mark,
    gold_buf,
    cooc,
    gold_size,
    pred_size,
    n,
    object_sums,
    object_counts,
):
    """Accumulate the statistics of the module docstring for every item row.

    Category codes < 0 are absent values (nulls of the long form) and are skipped; a category
    repeated inside one item's list counts once. ``gold_mark``/``pred_mark`` (size K, zeroed)
    remember the last row a category was seen in; ``gold_buf`` holds the row's gold categories.
    """
    weighted = weight.size > 0
    for r in range(group.size):
        g = group[r]
        w = weight[r] if weighted else 1.0
        stamp = r + 1
        n[g] += w
        n_gold = 0
        for k in range(gold_offsets[r], gold_offsets[r + 1]):
            i = gold_codes[k]
            if i >= 0 and gold_mark[i] != stamp:
                gold_mark[i] = stamp
                gold_buf[n_gold] = i
                n_gold += 1
                gold_size[g, i] += w
        n_pred = 0
        n_both = 0
        for k in range(pred_offsets[r], pred_offsets[r + 1]):
            j = pred_codes[k]
            if j < 0 or pred_mark[j] == stamp:
                continue
            pred_mark[j] = stamp
            n_pred += 1
            pred_size[g, j] += w
            if gold_mark[j] == stamp:
                n_both += 1
            for q in range(n_gold):
                cooc[g, gold_buf[q], j] += w
        if n_pred > 0:
            object_sums[g, 0] += w * n_both / n_pred
            object_counts[g, 0] += w
        if n_gold > 0:
            object_sums[g, 1] += w * n_both / n_gold
            object_counts[g, 1] += w
        if n_gold + n_pred > 0:
            object_sums[g, 2] += w * 2.0 * n_both / (n_gold + n_pred)
            object_counts[g, 2] += w


def _list_parts(column, categories: pa.Array, name: str, part: str):
    """Offsets and category codes (-1 for null values) of a list column."""
    if isinstance(column, pa.ChunkedArray):
        column = column.combine_chunks()
    if not (pa.types.is_list(column.type) or pa.types.is_large_list(column.type)):
        raise InputError(
            f"Column '{name}'{enc.where(part)} has type {column.type}; multilabel input needs a "
            "list of categories per item."
        )
    if column.null_count:
        row = pc.index(pc.is_null(column), True).as_py()
        raise InputError(
            f"Column '{name}'{enc.where(part)} has a missing (null) list at row {row}; "
            "use an empty list for an item without categories."
        )
    if column.offset:
        column = pa.concat_arrays([column])  # a sliced list array: rebase offsets at 0
    offsets = column.offsets.to_numpy(zero_copy_only=False).astype(np.int64)
    flat = column.values.slice(int(offsets[0]), int(offsets[-1] - offsets[0]))
    offsets = offsets - offsets[0]
    index = pc.index_in(flat.cast(categories.type), value_set=categories)
    codes = pc.fill_null(index, -1).to_numpy(zero_copy_only=False).astype(np.int64)
    return offsets, codes


def _long_to_lists(table: pa.Table, keys: list[str], category: str, gold: str, pred: str) -> pa.Table:
    """One row per (item, category) with boolean flags -> one row per item with two list columns."""
    flags = {}
    for name in (gold, pred):
        codes = enc.binary_codes(table.column(name), name, "<table>").astype(bool)
        flags[name] = pc.if_else(
            pa.array(codes), table.column(category), pa.nulls(table.num_rows, table.column(category).type)
        )
    wide = pa.table({**{k: table.column(k) for k in keys}, "_g": flags[gold], "_p": flags[pred]})
    grouped = wide.group_by(keys, use_threads=False).aggregate([("_g", "list"), ("_p", "list")])
    return grouped.rename_columns(keys + [gold, pred])


def _survey(src, batches, read, group_cols, gold_column, pred, classes):
    """The sorted labels of each grouping column and the categories (pass 1)."""
    labels = {c: [] for c in group_cols}
    found = []
    n_rows = 0
    for part, table in batches(read):
        n_rows += table.num_rows
        for c in group_cols:
            labels[c].append(pc.unique(table.column(c)))
        for name in (gold_column, pred):
            col = table.column(name)
            if not (pa.types.is_list(col.type) or pa.types.is_large_list(col.type)):
                raise InputError(
                    f"Column '{name}'{enc.where(part)} has type {col.type}; multilabel input needs "
                    "a list of categories per item (or pass category=... for one row per category)."
                )
            found.append(pc.drop_null(pc.unique(pc.list_flatten(col))))
    if n_rows == 0:
        raise empty_input(src)
    labels = {c: enc.sorted_labels([a.cast(v[0].type) for a in v], c) for c, v in labels.items()}
    found = [a for a in found if len(a)] or [pa.array([], pa.string())]
    categories = enc.class_labels(found, [gold_column, pred], classes)
    if len(categories) == 0:
        raise InputError("No item has any gold or predicted category.")
    return labels, categories


def count_multilabel(
    src, group_cols, *, gold_column="gold", pred="pred", item="item", weight=None, classes=None, category=None
) -> MultilabelTensor:
    """Count multilabel statistics per group (see the module docstring).

    Parameters
    ----------
    src : Source
        Opened input (:func:`fastmetrics.io.readers.open_source`). Either list columns
        ``gold_column`` and ``pred`` (one row per item), or -- with ``category`` -- one row per
        (item, category) with boolean ``gold_column`` and ``pred`` flags (read whole).
    group_cols : tuple of str
        Grouping columns (batch axes); the category axis is added last.
    classes : sequence, optional
        The categories, in order; default the sorted union of all gold and predicted categories.

    Returns
    -------
    MultilabelTensor
    """
    columns = src.column_names
    if category is not None:
        enc.require_columns(columns, [category, gold_column, pred, item], src.names[0], " (long multilabel form)")
        table = _long_to_lists(
            src.read_all(list(group_cols) + [item, category, gold_column, pred]),
            list(group_cols) + [item],
            category,
            gold_column,
            pred,
        )
        batches = lambda cols: iter([("<table>", table.select(cols))])  # noqa: E731
        if weight is not None:
            raise InputError("Item weights are not supported with the long multilabel form.")
    else:
        enc.require_columns(columns, [gold_column, pred], src.names[0], " (multilabel lists)")
        batches = src.batches
    read = list(group_cols) + [gold_column, pred] + ([weight] if weight else [])
    labels, categories = _survey(src, batches, read, group_cols, gold_column, pred, classes)
    encoders = [Encoder(c, labels[c]) for c in group_cols]
    sizes = tuple(len(labels[c]) for c in group_cols)
    n_groups, k = int(np.prod(sizes, dtype=np.int64)), len(categories)
    # cooccurrence, gold_size, pred_size, n, object_sums, object_counts (the MultilabelTensor's order)
    stats = tuple(np.zeros((n_groups,) + shape) for shape in ((k, k), (k,), (k,), (), (3,), (3,)))
    for part, table in batches(read):
        codes = [column_codes(e, table.column(e.column).combine_chunks(), part) for e in encoders]
        group = np.ravel_multi_index(codes, sizes).astype(np.int64) if codes else np.zeros(table.num_rows, np.int64)
        g_off, g_codes = _list_parts(table.column(gold_column), categories, gold_column, part)
        p_off, p_codes = _list_parts(table.column(pred), categories, pred, part)
        w = enc.weight_values(table.column(weight), weight, part) if weight else np.empty(0)
        scratch = np.zeros(k, np.int64), np.zeros(k, np.int64), np.empty(k, np.int64)
        _multilabel_kernel(group, g_off, g_codes, p_off, p_codes, w, *scratch, *stats)
    # counts stay integers without weights; per-object sums of precision/recall/F1 are fractions
    shaped = [x.reshape(sizes + x.shape[1:]) for x in stats]
    if weight is None:
        shaped = [x if i == 4 else x.astype(np.int64) for i, x in enumerate(shaped)]
    coords = {c: _labels(labels[c]) for c in group_cols}
    return MultilabelTensor(*shaped, group_cols, coords, categories=_labels(categories))


def _labels(array: pa.Array) -> np.ndarray:
    return np.asarray(array.to_pylist(), dtype=object if pa.types.is_string(array.type) else None)
