"""Multiclass probabilities: one score per class and item, counted four ways.

A run gives each item an ``m``-vector of class scores -- a list column (``score`` holding
``[p_1, ..., p_m]``) or one column per class (``score=["p_cat", "p_dog", ...]``), the columns in
the order of ``classes``. Every form is built here as rows the one count plan reads, so gold
joins, duplicate checks, weights and grouping behave as for any input:

- ``thresholds=None``: the argmax prediction (the first of tied maxima, as ``numpy.argmax`` and
  scikit-learn's ``predict`` pick) -- a multiclass ``counts[..., m, m]``;
- ``thresholds="exact"`` or a grid, ``multiclass="ovr"``: one binary sweep per class (gold ``==
  c`` against the score of ``c``), a ``class`` coordinate on every cell -- ROC AUC, average
  precision, best thresholds per class; ``@macro`` / ``@weighted`` average over the classes;
- ``multiclass="ovo"``: one sweep per ordered pair ``(class, versus)`` of distinct classes over
  the items of those two classes, scored by the score of ``class`` -- Hand & Till's (2001) ``A(j|k)``;
  ``roc_auc@macro`` over the pairs is their multiclass AUC ``M``;
- ``thresholds="topk"``: the rank of each item's gold class among its scores, as
  ``counts[..., top_k, 2, 2]`` for ``top_k = 1..m``: ``tp`` the weight of the items whose gold class is
  among their ``k`` highest scores, ``fn`` the others (``fp = tn = 0``). Ties rank the higher
  class index first, as scikit-learn's ``top_k_accuracy_score`` does.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .._errors import InputError, ParameterError
from ..io import labels as enc
from .goldkeys import gold_keys_like, normalised_gold


def is_probability_input(columns: Sequence[str], schema: pa.Schema, score) -> bool:
    """Whether ``score`` names several score columns or one list-typed column."""
    if not isinstance(score, str):
        return True
    if score not in columns:
        return False
    kind = schema.field(score).type
    return pa.types.is_list(kind) or pa.types.is_large_list(kind) or pa.types.is_fixed_size_list(kind)


def probability_rows(
    src, gold, *, group_cols, score, gold_column, item, weight, classes, thresholds, multiclass, missing, topic="topic"
):
    """The rows of the asked form and how to count them.

    ``topic`` names the runs' column playing the topic: a separate gold is joined on it (and the
    item) when the rows are grouped by it.

    Returns
    -------
    rows : pyarrow.Table
        Group columns, ``item``, ``gold`` and ``pred`` or ``score`` (and ``weight``), plus
        ``class`` (and ``versus``) for one-vs-rest / one-vs-one sweeps.
    by : tuple of str
        The grouping columns to count them by.
    options : dict
        ``thresholds`` and ``classes`` for :func:`fastmetrics.count`.
    """
    score_cols = [score] if isinstance(score, str) else list(score)
    table = _read(src, gold, group_cols, score_cols, (gold_column, item, weight, topic), missing)
    class_array = _classes(table.column(gold_column), score_cols, classes, gold_column)
    inferred = None if classes is not None else class_array.to_pylist()
    matrix = _score_matrix(table, score_cols, len(class_array), src.names[0], inferred)
    gold_codes = enc.encode_with(
        table.column(gold_column), class_array, gold_column, src.names[0], unknown="which is not among the classes"
    )
    base = {c: table.column(c) for c in group_cols}
    base["item"] = table.column(item)
    if weight is not None:
        base["weight"] = table.column(weight)
    labels = class_array.to_pylist()
    if thresholds is None:
        rows = dict(base, gold=table.column(gold_column), pred=class_array.take(pa.array(np.argmax(matrix, axis=1))))
        return pa.table(rows), tuple(group_cols), {"thresholds": None, "classes": labels}
    if isinstance(thresholds, str) and thresholds == "topk":
        m = len(labels)
        rows = dict(base, gold=pa.array(np.ones(len(gold_codes), bool)), score=-_gold_ranks(matrix, gold_codes))
        return pa.table(rows), tuple(group_cols), {"thresholds": -np.arange(m, 0, -1.0), "classes": None}
    if isinstance(thresholds, str) and thresholds == "ranks":
        raise ParameterError(
            "Class probabilities are ranked per item with thresholds='topk' (--thresholds topk), not 'ranks'."
        )
    rows = (
        _one_vs_rest(base, matrix, gold_codes, labels)
        if multiclass == "ovr"
        else _one_vs_one(base, matrix, gold_codes, labels)
    )
    axes = ("class",) if multiclass == "ovr" else ("class", "versus")
    return rows, tuple(group_cols) + axes, {"thresholds": thresholds, "classes": None}


def _read(src, gold, group_cols, score_cols, columns, missing) -> pa.Table:
    gold_column, item, weight, topic = columns
    # without a separate gold, as for any input, an item column is optional: each row is an item
    numbered = gold is None and item not in src.column_names
    wanted = [*group_cols, *([] if numbered else [item]), *score_cols] + ([weight] if weight else [])
    if gold is None:
        wanted.append(gold_column)
    enc.require_columns(src.column_names, wanted, src.names[0], " (class probabilities)")
    table = src.read_all(wanted)
    if numbered:
        table = table.append_column(item, pa.array(np.arange(table.num_rows, dtype=np.int64)))
    if gold is None:
        return table
    truth = normalised_gold(gold, item, gold_column, topic=topic)  # [topic,] item, gold: no nulls, unique keys
    on_topic = topic in group_cols and "topic" in truth.column_names
    keys, run_keys = (["topic"], [topic]) if on_topic else ([], [])
    truth = gold_keys_like(truth.select([*keys, "item", "gold"]), table, [*keys, "item"], [*run_keys, item])
    truth = truth.rename_columns([*run_keys, item, gold_column])
    # Arrow joins no list columns (a list of class scores): the keys are joined with row numbers
    keys = table.select([*run_keys, item]).append_column("_row", pa.array(np.arange(table.num_rows)))
    found = keys.join(truth, keys=[*run_keys, item], join_type="left outer").sort_by("_row")
    joined = table.append_column(gold_column, found.column(gold_column))
    lacking = joined.column(gold_column).null_count
    if lacking and missing != "drop":
        row = int(np.argmax(joined.column(gold_column).is_null().to_numpy(zero_copy_only=False)))
        raise InputError(
            f"{lacking} run item(s) have no gold label, e.g. item {joined.column(item)[row].as_py()!r}: class "
            "probabilities are scored against gold, so the gold must cover every item (or missing='drop')."
        )
    joined = joined.filter(pc.is_valid(joined.column(gold_column))) if lacking else joined
    if missing != "drop":
        _every_gold_item(joined, truth, [c for c in group_cols if c not in run_keys])
    return joined


def _every_gold_item(joined: pa.Table, truth: pa.Table, run_cols: list) -> None:
    """Refuse a run that lacks gold items: with class probabilities no prediction can be assumed
    for them (``missing='negative'`` has no meaning), so they are an error unless dropped."""
    if not run_cols:
        held = joined.num_rows
        if held < truth.num_rows:
            raise InputError(
                f"The runs score {held} of the gold's {truth.num_rows} items: class probabilities have no "
                "prediction to assume for the others; give them, or missing='drop' (--missing drop)."
            )
        return
    per_run = joined.group_by(run_cols).aggregate([([], "count_all")])
    short = pc.less(per_run.column("count_all"), truth.num_rows)
    if pc.any(short).as_py():
        row = pc.index(short, True).as_py()
        run = ", ".join(f"{c}={per_run.column(c)[row].as_py()!r}" for c in run_cols)
        raise InputError(
            f"The run ({run}) scores {per_run.column('count_all')[row].as_py()} of the gold's {truth.num_rows} "
            "items: class probabilities have no prediction to assume for the others; give them, or "
            "missing='drop' (--missing drop)."
        )


def _classes(gold: pa.ChunkedArray, score_cols, given, name: str) -> pa.Array:
    enc.no_nulls(gold.combine_chunks(), name, None)  # a null is itself the error, not a class mismatch
    if given is not None or len(score_cols) == 1:
        return enc.class_labels([gold.combine_chunks()], ["gold"], given)
    try:  # one column per class: without classes=, the columns name the classes
        return enc.class_labels([gold.combine_chunks()], ["gold"], score_cols)
    except InputError:
        example = gold.drop_null()[0].as_py() if len(gold.drop_null()) else None
        raise InputError(
            f"One score column per class ({', '.join(score_cols)}) names the classes unless classes= (--classes) "
            f"gives them in the columns' order; the gold holds {example!r}. Give e.g. --classes with the gold's labels."
        ) from None


def _score_matrix(table: pa.Table, score_cols, m: int, where: str, inferred=None) -> np.ndarray:
    """The (n, m) float64 scores: finite, one per class, no nulls (``inferred``: the classes,
    when the gold's labels gave them)."""
    if len(score_cols) > 1:
        if len(score_cols) != m:
            raise InputError(f"{len(score_cols)} score columns for {m} classes: give one score column per class.")
        columns = [_floats(table.column(c), c, where) for c in score_cols]
        matrix = np.column_stack(columns) if columns else np.empty((0, m))
    else:
        name = score_cols[0]
        lists = table.column(name).combine_chunks()
        enc.no_nulls(lists, name, where)
        lengths = pc.list_value_length(lists).to_numpy(zero_copy_only=False)
        bad = np.flatnonzero(lengths != m)
        if bad.size and inferred is not None and np.all(lengths == lengths[0]) and lengths[0] < m:
            raise InputError(
                f"Column '{name}' has {int(lengths[0])} class scores a row, and the gold {m} labels "
                f"({', '.join(map(str, inferred))}): a gold label is not among the scores' classes. Give the "
                f"classes in the order of the scores (classes=, --classes); a gold label outside them is then named."
            )
        if bad.size:
            raise InputError(
                f"Column '{name}' row {int(bad[0])} has {int(lengths[bad[0]])} class scores; the classes are {m} "
                f"(give classes= in the order of the scores)."
            )
        flat = pc.list_flatten(lists)
        if flat.null_count:
            at = int(np.flatnonzero(flat.is_null().to_numpy(zero_copy_only=False))[0])
            raise InputError(
                f"Column '{name}'{enc.where(where)} has a missing (null) class score at row {at // m} "
                f"(score {at % m} of its list); class scores must be numbers."
            )
        matrix = _floats(flat, name, where).reshape(-1, m)
    broken = ~np.isfinite(matrix)
    if broken.any():
        row, col = np.argwhere(broken)[0]
        raise InputError(f"Class score {col} of row {row} is {matrix[row, col]}; scores must be finite numbers.")
    return matrix


def _floats(array, name: str, where: str) -> np.ndarray:
    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks()
    enc.no_nulls(array, name, where)
    if not (pa.types.is_floating(array.type) or pa.types.is_integer(array.type)):
        raise InputError(f"Column '{name}'{enc.where(where)} has type {array.type}; expected class scores (numbers).")
    return array.cast(pa.float64()).to_numpy(zero_copy_only=False)


def _gold_ranks(matrix: np.ndarray, gold: np.ndarray) -> np.ndarray:
    """1 + the classes scored above the gold one, ties to a higher class index counted above."""
    n, m = matrix.shape
    own = matrix[np.arange(n), gold][:, None]
    later = np.arange(m)[None, :] > gold[:, None]
    return (1 + (matrix > own).sum(axis=1) + ((matrix == own) & later).sum(axis=1)).astype(np.float64)


def _one_vs_rest(base: dict, matrix: np.ndarray, gold: np.ndarray, labels: list) -> pa.Table:
    n, m = matrix.shape
    index = np.tile(np.arange(n), m)
    cls = np.repeat(np.arange(m), n)
    rows = {k: v.take(pa.array(index)) for k, v in base.items()}
    rows.update(
        {
            "class": pa.array(labels).take(pa.array(cls)),
            "gold": pa.array(gold[index] == cls),
            "score": pa.array(matrix[index, cls]),
        }
    )
    return pa.table(rows)


def _one_vs_one(base: dict, matrix: np.ndarray, gold: np.ndarray, labels: list) -> pa.Table:
    """Each item twice per other class: positive for (its class, versus k), negative for (k, versus its class)."""
    n, m = matrix.shape
    index, cls, versus = [], [], []
    for other in range(m):
        keep = np.flatnonzero(gold != other)
        index += [keep, keep]
        cls += [gold[keep], np.full(keep.size, other)]
        versus += [np.full(keep.size, other), gold[keep]]
    index, cls, versus = (np.concatenate(a) if a else np.empty(0, np.int64) for a in (index, cls, versus))
    rows = {k: v.take(pa.array(index)) for k, v in base.items()}
    take = pa.array(labels)
    rows.update(
        {
            "class": take.take(pa.array(cls)),
            "versus": take.take(pa.array(versus)),
            "gold": pa.array(gold[index] == cls),
            "score": pa.array(matrix[index, cls]),
        }
    )
    return pa.table(rows)
