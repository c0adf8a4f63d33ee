"""Multilabel counting: items carrying sets of gold and predicted categories (Steingold & Laclavík n.d., §4).

One pass over the items accumulates, per group, the sufficient statistics of every multilabel
measure -- all additive, so batches and partitions sum:

- ``cooccurrence[g, i, j]`` = items with category ``i`` in gold and ``j`` in the prediction.
  Its diagonal is the per-category tp; with the category sizes it gives every pairwise 2x2
  matrix (Ac_i, Pc_j) that permuted proficiency assigns over.
- ``gold_size[g, i]``, ``pred_size[g, i]``, ``n[g]`` (items), and
- ``object_sums[g, k]`` / ``object_counts[g, k]``: sums of per-object precision, recall and F1
  (Steingold & Laclavík n.d., §4.4) over the objects where each is defined, and the number of those objects.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from numba import njit

from .._errors import InputError, ParameterError
from ..io import labels as enc
from ..io.gold import gold_table as load_gold
from ..io.labels import empty_input
from ..tensor import MultilabelTensor
from .encoders import Encoder
from .goldkeys import check_unique_gold, column_codes, gold_keys_like


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


def _long_to_lists(table: pa.Table, keys: list[str], category: str, flags: list[str]) -> pa.Table:
    """One row per (item, category) with boolean flags -> one row per item with a list column per
    flag (the categories whose flag is set; an item with none gets an empty list)."""
    lists = {}
    for k, name in enumerate(flags):
        codes = enc.binary_codes(table.column(name), name, "<table>").astype(bool)
        lists[f"_{k}"] = pc.if_else(
            pa.array(codes), table.column(category), pa.nulls(table.num_rows, table.column(category).type)
        )
    wide = pa.table({**{k: table.column(k) for k in keys}, **lists})
    grouped = wide.group_by(keys, use_threads=False).aggregate([(k, "list") for k in lists])
    return grouped.rename_columns(keys + flags)


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
        Opened input (:func:`fastmetrics.io.open_source`). Either list columns
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
            [gold_column, pred],
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


def join_gold(
    src,
    gold,
    group_cols,
    *,
    pred="pred",
    item="item",
    weight=None,
    category=None,
    missing="error",
    unjudged="error",
    gold_column="gold",
    topic="topic",
) -> pa.Table:
    """Multilabel runs joined on ``(topic, item)`` to a separate gold of category sets.

    Parameters
    ----------
    src : Source
        Runs: a list column ``pred`` (one row per item), or -- with ``category`` -- one row per
        (item, category) with boolean ``pred`` flags.
    gold : path or table
        ``[topic,] item`` and a list column ``gold`` (one row per item), or one row per (item,
        category) with a ``category`` column (named as in the runs) and, optionally, boolean
        ``gold`` flags (without them every row is a gold category of its item).
    group_cols : sequence of str
        The runs' grouping columns; those other than the topic name a run.
    pred, item, weight, category : str
        Column names of the runs.
    missing : {"error", "negative", "drop"}, default "error"
        Gold items a run lacks: an error, predicted with no category, or left out of that run.
    unjudged : {"error", "negative"}, default "error"
        Run items the gold lacks: an error, or items with no gold category.
    gold_column : str, default "gold"
        The gold's label column (``gold`` is read when the gold has no column of that name).
    topic : str, default "topic"
        The runs' column playing the topic; the gold's is the column of that name, else its
        ``topic``.

    Returns
    -------
    pyarrow.Table
        One row per (run, item): ``group_cols``, ``item``, list columns ``gold`` and ``pred``
        (and ``weight``), as :func:`count_multilabel` reads it.

    Raises
    ------
    InputError
        Missing columns, labels that are not category lists, duplicated items in the runs or
        the gold, run items the gold lacks, gold items a run lacks (``missing="error"``).
    """
    gold = _gold_lists(gold, (topic, item), category, gold_column)
    keys = [c for c in ("topic", "item") if c in gold.column_names]
    run_keys = [topic if k == "topic" else item for k in keys]
    enc.require_columns(src.column_names, run_keys, src.names[0], " to join the gold")
    runs = _run_lists(src, list(dict.fromkeys([*group_cols, *run_keys])), pred, weight, category)
    gold = gold_keys_like(gold, runs, keys, run_keys)
    joined = _left_join(runs, gold, run_keys, keys)
    joined = _unjudged(joined, unjudged, [*group_cols, item])
    lacking = _lacking(runs, gold, group_cols, (keys, run_keys, topic), missing)
    if lacking is not None:  # predicted with no category, weight 1 (as the binary counts do)
        lacking = lacking.append_column(pred, pa.repeat(pa.scalar([], runs.schema.field(pred).type), lacking.num_rows))
        if weight is not None:
            lacking = lacking.append_column(weight, pa.array(np.ones(lacking.num_rows)))
        joined = pa.concat_tables([joined, lacking.select(joined.column_names).cast(joined.schema)])
    return joined


def _left_join(runs: pa.Table, gold: pa.Table, run_keys: list, keys: list) -> pa.Table:
    """The runs with the gold's ``gold`` list of each row's key (null where the gold lacks it).

    Arrow joins no list columns: the keys are joined with row numbers, the lists then taken."""
    left = runs.select(run_keys).append_column("_run_row", pa.array(np.arange(runs.num_rows)))
    right = gold.select(keys).append_column("_gold_row", pa.array(np.arange(gold.num_rows)))
    rows = left.join(right, keys=run_keys, right_keys=keys, join_type="left outer", use_threads=False)
    joined = runs.take(rows.column("_run_row"))
    return joined.append_column("gold", gold.column("gold").take(rows.column("_gold_row")))


def _gold_lists(gold, columns: tuple, category: str | None, gold_column: str = "gold") -> pa.Table:
    """The gold as ``[topic,] item, gold`` with one category list per item (its label column
    named ``gold_column`` if it has one, else ``gold``); ``columns``: the runs' (topic, item)."""
    table = load_gold(gold)
    names = table.column_names
    topic, item = columns
    topic_of = topic if topic in names else "topic" if "topic" in names else None
    item_of = item if item in names else "item"
    label = gold_column if gold_column in names else "gold"
    long = category is not None and category in names
    enc.require_columns(names, [item_of] + ([] if long else [label]), "gold", " of a multilabel gold table")
    keys = ([topic_of] if topic_of else []) + [item_of]
    for name in keys:
        enc.no_nulls(table.column(name).combine_chunks(), name, "gold")
    if long:
        if label not in names:
            table = table.append_column(label, pa.array(np.ones(table.num_rows, bool)))
        table = _long_to_lists(table, keys, category, [label])
    elif not (
        pa.types.is_list(table.schema.field(label).type) or pa.types.is_large_list(table.schema.field(label).type)
    ):
        raise InputError(
            f"Column '{label}' of the gold has type {table.schema.field(label).type}; multilabel runs need a list "
            "of categories per item in the gold (or one row per (item, category) with a category column)."
        )
    table = table.select(keys + [label])
    enc.no_nulls(table.column(label).combine_chunks(), label, "gold")
    check_unique_gold(table, keys)  # in the gold's own names
    return table.rename_columns((["topic"] if topic_of else []) + ["item", "gold"])


def _run_lists(src, read: list, pred: str, weight, category) -> pa.Table:
    """The runs as one row per (run, item) -- the ``read`` columns -- with a list column ``pred``,
    checked for duplicates."""
    if category is not None and category in src.column_names:
        if weight is not None:
            raise InputError("Item weights are not supported with the long multilabel form.")
        enc.require_columns(src.column_names, [category, pred], src.names[0], " (long multilabel form)")
        runs = _long_to_lists(src.read_all([*read, category, pred]), read, category, [pred])
    else:
        enc.require_columns(src.column_names, [pred], src.names[0], " (multilabel lists)")
        runs = src.read_all([*read, pred] + ([weight] if weight else []))
        enc.check_unique_items(runs, read, src.names[0])
    if runs.num_rows == 0:
        raise empty_input(src)
    return runs


def _unjudged(joined: pa.Table, unjudged: str, shown: list) -> pa.Table:
    """Run items the gold lacks (null gold after the join): an error, or no gold category."""
    lacking = pc.is_null(joined.column("gold"))
    if not pc.any(lacking).as_py():
        return joined
    if unjudged == "error":
        row = pc.index(lacking, True).as_py()
        where_ = ", ".join(f"{c}={joined.column(c)[row].as_py()!r}" for c in dict.fromkeys(shown))
        raise InputError(
            f"The gold lacks the run item ({where_}) and {pc.sum(lacking).as_py() - 1} more: give every item a gold "
            "category list (an empty one for none), or use unjudged='negative' (--unjudged negative)."
        )
    empty = pa.repeat(pa.scalar([], joined.schema.field("gold").type), joined.num_rows)
    filled = pc.if_else(lacking, empty, joined.column("gold"))
    return joined.set_column(joined.column_names.index("gold"), "gold", filled)


def _lacking(runs: pa.Table, gold: pa.Table, group_cols, keys: tuple, missing: str):
    """The (run, gold item) pairs a run lacks as rows predicted with no category (``"negative"``),
    None when there are none or ``missing="drop"``; ``"error"`` names the first.

    ``keys``: the gold's key columns, the runs' and the runs' topic column."""
    keys, run_keys, topic = keys
    ids = [c for c in group_cols if c not in run_keys]
    if topic in group_cols and "topic" not in keys and missing != "drop":
        raise ParameterError(
            "The gold has no topic column: the items a run lacks cannot be placed in a topic. Add the topic "
            "to the gold, or use missing='drop'."
        )
    runs_of = runs.select(ids).group_by(ids, use_threads=False).aggregate([]) if ids else pa.table({})
    expected = gold.select(keys).rename_columns(run_keys)
    expected = expected.append_column("_gold_row", pa.array(np.arange(gold.num_rows)))
    if ids:
        one = "_one"
        left = runs_of.append_column(one, pa.array(np.zeros(runs_of.num_rows, np.int8)))
        right = expected.append_column(one, pa.array(np.zeros(expected.num_rows, np.int8)))
        expected = left.join(right, keys=one).drop_columns([one])
    lacking = expected.join(runs.select([*ids, *run_keys]), keys=[*ids, *run_keys], join_type="left anti")
    lacking = lacking.append_column("gold", gold.column("gold").take(lacking.column("_gold_row")))
    lacking = lacking.drop_columns(["_gold_row"])
    if lacking.num_rows == 0 or missing == "drop":
        return None
    if missing == "error":
        run = ", ".join(f"{c}={lacking.column(c)[0].as_py()!r}" for c in ids) or "the run"
        item = ", ".join(f"{c} {lacking.column(c)[0].as_py()!r}" for c in run_keys)
        raise InputError(
            f"Run ({run}) lacks gold items, e.g. {item} ({lacking.num_rows} (run, item) pairs in all). Use "
            "missing='negative' (--missing negative) to count them as predicted with no category, or 'drop' to "
            "ignore them."
        )
    return lacking
