"""The count stage: encoded columns in, :class:`~fastmetrics.tensor.ConfusionTensor` out."""

from __future__ import annotations

import numbers

import numba
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .._errors import InputError, ParameterError, parameter_error
from ..io import encode as enc
from ..io.readers import gold_table as load_gold, open_source
from ..tensor import ConfusionTensor
from . import _kernels

# Per-thread partial counts are merged at the end; beyond this size one shared array is cheaper.
_PARTIAL_BYTES = 256 << 20


def threshold_grid(thresholds, lo: float, hi: float) -> np.ndarray:
    """The sorted threshold values: ``k`` evenly spaced over ``[lo, hi]``, or the given values."""
    if isinstance(thresholds, numbers.Integral) and not isinstance(thresholds, bool):
        if thresholds < 1:
            raise parameter_error("thresholds", "count", "None, 'exact', an int >= 1 or an array of floats", thresholds)
        return np.linspace(lo, hi, int(thresholds)) if thresholds > 1 else np.array([lo], np.float64)
    try:
        grid = np.asarray(thresholds, dtype=np.float64)
    except (TypeError, ValueError):
        raise parameter_error("thresholds", "count", "None, 'exact', an int >= 1 or an array of floats", thresholds) from None
    if grid.ndim != 1 or grid.size == 0 or not np.all(np.isfinite(grid)):
        raise parameter_error("thresholds", "count", "a non-empty 1-D array of finite floats", thresholds)
    return np.unique(grid)


def _even_grid(grid: np.ndarray) -> tuple[bool, float, float]:
    if grid.size < 2:
        return False, 0.0, 0.0
    step = (grid[-1] - grid[0]) / (grid.size - 1)
    if step <= 0:
        return False, 0.0, 0.0
    ideal = grid[0] + step * np.arange(grid.size)
    even = bool(np.max(np.abs(grid - ideal)) <= 1e-6 * step)
    return even, float(grid[0]), float(1.0 / step)


def _n_chunks(n_rows: int, cell_bytes: int) -> int:
    threads = numba.get_num_threads()
    if n_rows < 100_000:
        return 1
    return max(1, min(threads, _PARTIAL_BYTES // max(cell_bytes, 1)))


def _scratch(scratch, group, out):
    """Per-thread partial counts: the caller's scratch when it fits, else a new array."""
    chunks = _n_chunks(group.size, out.nbytes)
    if scratch is not None and scratch.shape == (chunks,) + out.shape and scratch.dtype == out.dtype:
        return scratch
    return np.empty((chunks,) + out.shape, out.dtype)


def hard_counts(group, gold, pred, n_groups: int, m: int, weight=None, out=None, scratch=None) -> np.ndarray:
    """``counts[g, i, j]`` from group codes, gold and predicted class codes (one pass).
    ``scratch``: per-thread partials to reuse across calls (see :func:`sweep_histogram`)."""
    weight = np.empty(0) if weight is None else np.asarray(weight, np.float64)
    if out is None:
        out = np.zeros((n_groups, m, m), np.float64 if weight.size else np.int64)
    _kernels._hard_counts_parallel(group, gold, pred, weight, n_groups, m, _scratch(scratch, group, out), out)
    return out


def sweep_histogram(group, gold, score, grid, n_groups: int, weight=None, out=None, scratch=None) -> np.ndarray:
    """``hist[g, gold, b]``: rows passing exactly the ``b`` lowest thresholds of ``grid``.

    ``scratch`` (from a previous call with the same ``out``) holds the per-thread partial counts;
    reusing it across the record batches of a stream keeps memory flat.
    """
    weight = np.empty(0) if weight is None else np.asarray(weight, np.float64)
    if out is None:
        out = np.zeros((n_groups, 2, grid.size + 1), np.float64 if weight.size else np.int64)
    even, lo, inv_step = _even_grid(grid)
    _kernels._sweep_hist_parallel(group, gold, score, weight, grid, even, lo, inv_step, n_groups,
                                  _scratch(scratch, group, out), out)
    return out


def histogram_to_counts(hist: np.ndarray) -> np.ndarray:
    """``counts[g, k, 2, 2]`` at every threshold from the sweep histogram ``hist[g, gold, b]``."""
    hist = np.ascontiguousarray(hist)
    flat = hist.reshape(-1, 2, hist.shape[-1])
    out = np.empty((flat.shape[0], hist.shape[-1] - 1, 2, 2), hist.dtype)
    _kernels._histogram_to_counts(flat, out)
    return out.reshape(hist.shape[:-2] + out.shape[1:])


def exact_counts(group, gold, score, n_groups: int, weight=None):
    """Counts at every distinct score of every group: ``(group, threshold, counts[cell, 2, 2])``.

    Rows are put in group order by a counting sort, each group is sorted by score on its own
    (in parallel), and one walk per group emits the counts: O(n log(rows per group)).
    """
    group = np.asarray(group, np.int64)
    w = np.empty(0) if weight is None else np.asarray(weight, np.float64)
    order, offsets = _kernels._rows_by_group(group, n_groups)
    sizes = np.empty(n_groups, np.int64)
    _kernels._sort_groups_by_score(order, offsets, score, sizes)
    out_offsets = np.zeros(n_groups + 1, np.int64)
    np.cumsum(sizes, out=out_offsets[1:])
    n_out = int(out_offsets[-1])
    out_group = np.empty(n_out, np.int64)
    out_threshold = np.empty(n_out, np.float64)
    out_counts = np.empty((n_out, 2, 2), np.float64 if w.size else np.int64)
    _kernels._exact_sweep_groups(order, offsets, out_offsets, gold, score, w, out_group, out_threshold, out_counts)
    return out_group, out_threshold, out_counts


def _labels_to_numpy(labels: pa.Array) -> np.ndarray:
    return np.asarray(labels.to_pylist(), dtype=object if pa.types.is_string(labels.type) else None)


def _mode(columns, pred, score, thresholds) -> str:
    if isinstance(thresholds, str):
        if thresholds != "exact":
            raise parameter_error("thresholds", "count", "None, 'exact', an int >= 1 or an array of floats", thresholds)
        return "exact"
    if thresholds is not None:
        return "sweep"
    if pred in columns:
        return "hard"
    if score in columns:
        return "exact"
    raise InputError(
        f"The input has neither a '{pred}' column (hard predictions) nor a '{score}' column (scores); "
        f"columns present: {', '.join(columns)}."
    )


TASKS = ("auto", "binary", "multiclass", "multilabel")
MATRIX_COLUMNS = ("true", "pred", "count")  # precomputed multiclass cells, as ConfusionTensor.to_arrow writes


def count(source, gold=None, *, by=("system", "topic"), pred="pred", score="score", thresholds=None,
          gold_column="gold", item="item", weight=None, missing="error", format="auto", task="auto",
          classes=None, category=None, coords=None) -> ConfusionTensor:
    """Count confusion matrices per group (and per threshold) in one pass over the rows.

    Parameters
    ----------
    source : path, list of paths, glob, pyarrow.Table or DataFrame
        Runs in the long input schema (``system, topic, item, gold, pred | score[, weight]``),
        SemEval-style run files, or a table of precomputed counts ``system, topic, tp, fp, fn, tn``.
        Parquet datasets are streamed by record batch.
    gold : path or table, optional
        Separate gold labels keyed by ``(topic, item)``. Without it the input needs a gold column.
    by : sequence of str, default ("system", "topic")
        Grouping columns, one batch axis each. ``system`` and ``topic`` may be absent from the
        input (one system, one topic); other grouping columns must exist.
    pred, score : str
        Names of the hard-prediction and score columns.
    thresholds : None, "exact", int or array_like, default None
        ``None``: hard predictions from ``pred`` (or an exact sweep if there is only a score);
        ``"exact"``: every distinct score of each group; an int ``k``: ``k`` evenly spaced
        thresholds over the score range of the whole input; an array: those thresholds. An item
        is predicted positive iff ``score >= threshold``.
    gold_column, item, weight : str or None
        Column names; ``weight`` (item costs λ_i, seed 000 §2.1) gives float64 counts.
    missing : {"error", "negative", "drop"}, default "error"
        What happens to gold items a run lacks (with a separate gold only).
    format : str, default "auto"
        Input format, see :func:`fastmetrics.read_runs`.
    task : {"auto", "binary", "multiclass", "multilabel"}, default "auto"
        ``auto`` decides from the labels: list-typed gold (or a ``category`` column) is
        multilabel; gold and predictions that are all bool, 0/1 or true/false are binary;
        anything else is multiclass. Scores and thresholds need binary gold.
    classes : sequence, optional
        Multiclass/multilabel: the classes (categories) in the order of the last two axes, e.g.
        the order of an ordinal scale. Default: the sorted union of gold and predicted values.
    category : str, optional
        Multilabel input in long form: one row per (item, category) with boolean ``gold`` and
        ``pred`` flags; see :func:`fastmetrics.count.multilabel.count_multilabel`.
    coords : mapping of str to sequence, optional
        Fixed labels (in order) for grouping columns, instead of the sorted labels found in the
        input: tensors counted from parts of one dataset then line up and add (this is how
        :mod:`fastmetrics.dask` counts partitions). A value outside them is an error.

    Returns
    -------
    ConfusionTensor
        ``counts[system, topic, 2, 2]``, ``counts[system, topic, threshold, 2, 2]`` for a grid,
        or ``counts[cell, 2, 2]`` with per-cell ``system, topic, threshold`` for an exact sweep;
        ``counts[system, topic, m, m]`` (``classes`` = the class labels) for multiclass; a
        :class:`~fastmetrics.tensor.MultilabelTensor` for multilabel input.

    Raises
    ------
    InputError
        Missing columns, non-binary gold with scores, non-finite scores, duplicated
        ``(system, topic, item)``, gold items missing from a run, empty input, unreadable files.
    """
    if missing not in enc.MISSING_POLICIES:
        raise parameter_error("missing", "count", "one of " + ", ".join(enc.MISSING_POLICIES), missing)
    if task not in TASKS:
        raise parameter_error("task", "count", "one of " + ", ".join(TASKS), task)
    src = open_source(source, format=format)
    columns = src.column_names
    by = tuple(by)
    group_cols = tuple(c for c in by if c in columns or c not in ("system", "topic"))
    enc.require_columns(columns, group_cols, src.names[0], " to group by")
    if all(c in columns for c in enc.COUNT_COLUMNS) and pred not in columns and score not in columns:
        return _from_count_table(src, group_cols)
    if all(c in columns for c in MATRIX_COLUMNS) and gold_column not in columns and gold is None:
        return _from_matrix_table(src, group_cols, classes)
    if task == "multilabel" or category is not None or (task == "auto" and _list_typed(src, gold_column)):
        from .multilabel import count_multilabel
        if gold is not None:
            raise InputError("Multilabel input needs its gold categories in the runs table (a list column "
                             f"'{gold_column}', or one row per (item, category)); a separate gold is not joined.")
        return count_multilabel(src, group_cols, gold_column=gold_column, pred=pred, item=item,
                                weight=weight, classes=classes, category=category)
    mode = _mode(columns, pred, score, thresholds)
    if mode != "hard" and task == "multiclass":
        raise ParameterError("Multiclass counting needs hard predictions (a 'pred' column of class labels); "
                             "thresholds and scores apply to binary gold.")
    value_col = pred if mode == "hard" else score
    enc.require_columns(columns, [value_col], src.names[0])

    gold_idx, join_on_topic = None, False
    if gold is not None:
        gold_idx, join_on_topic = _open_gold(gold, src, group_cols, item, gold_column)
    else:
        enc.require_columns(columns, [gold_column], src.names[0], " (or pass a separate gold)")

    need_range = mode == "sweep" and isinstance(thresholds, numbers.Integral)
    label_cols = ([pred] if mode == "hard" else []) + ([gold_column] if gold_idx is None else [])
    labels, lo, hi, label_values = _collect_labels(src, group_cols, score if need_range else None, gold_idx,
                                                   label_cols)
    if gold_idx is not None:
        label_values[gold_column] = pc.unique(gold_idx.values)
    for c, given in (coords or {}).items():
        if c in labels:
            labels[c] = _fixed_labels(labels[c], given, c)
    class_array = _decide_classes(task, mode, label_values, classes)
    m = 2 if class_array is None else len(class_array)
    if class_array is not None and missing == "negative":
        raise ParameterError("missing='negative' has no meaning for multiclass labels (there is no negative "
                             "class); use 'error' or 'drop'.")
    if gold_idx is not None:
        gold_idx.gold = _label_codes(gold_idx.values, class_array, gold_column, "gold")
    sizes = tuple(len(labels[c]) for c in group_cols)
    n_groups = int(np.prod(sizes, dtype=np.int64))
    grid = threshold_grid(thresholds, lo, hi) if mode == "sweep" else None

    # Pass 2: encode each batch and count it.
    if gold_idx is not None and "topic" in group_cols:
        gold_idx.topic_codes = enc.encode_with(gold_idx.topic.cast(labels["topic"].type), labels["topic"], "topic", "gold")
    weighted = weight is not None
    dtype = np.float64 if weighted else np.int64
    system_axis = group_cols.index("system") if "system" in group_cols else None
    seen = None
    if gold_idx is not None:
        n_systems = sizes[system_axis] if system_axis is not None else 1
        seen = np.zeros((n_systems, len(gold_idx.keys)), np.bool_)
    if mode == "hard":
        acc = np.zeros((n_groups, m, m), dtype)
    elif mode == "sweep":
        acc = np.zeros((n_groups, 2, grid.size + 1), dtype)
    else:
        pieces = []
    scratch = None if mode == "exact" else np.empty((_n_chunks(1 << 30, acc.nbytes),) + acc.shape, dtype)
    read_cols = list(group_cols) + [value_col]
    read_cols += [gold_column] if gold_idx is None else [item] + (["topic"] if join_on_topic else [])
    if weighted:
        enc.require_columns(columns, [weight], src.names[0])
        read_cols.append(weight)
    identity = list(dict.fromkeys([c for c in ("system", "topic") if c in columns] + list(group_cols)))
    check_cols = identity + [item] if item in columns else None
    for part, table in src.batches(list(dict.fromkeys(read_cols + (check_cols or [])))):
        if check_cols and gold_idx is None:
            enc.check_unique_items(table, check_cols, part)
        codes = [enc.encode_with(table.column(c).cast(labels[c].type), labels[c], c, part) for c in group_cols]
        group = np.ravel_multi_index(codes, sizes).astype(np.int64) if codes else np.zeros(table.num_rows, np.int64)
        if gold_idx is not None:
            topic = table.column("topic") if join_on_topic else pa.array(["-"] * table.num_rows)
            key = enc.join_key(topic, table.column(item))
            index = pc.index_in(key, value_set=gold_idx.keys)
            if index.null_count:
                row = int(np.argmax(pc.is_null(index).to_numpy(zero_copy_only=False)))
                t, i = key[row].as_py().split("\x1f", 1)
                raise InputError(f"The run{enc._where(part)} has (topic {t!r}, item {i!r}) at row {row}, "
                                 "which the gold does not have.")
            index = index.to_numpy(zero_copy_only=False).astype(np.int64)
            sys_codes = codes[system_axis] if system_axis is not None else np.zeros(len(index), np.int64)
            _mark_seen(seen, sys_codes, index, labels, system_axis, gold_idx, part)
            gold_codes = gold_idx.gold[index]
        else:
            gold_codes = _label_codes(table.column(gold_column), class_array, gold_column, part)
        w = enc.weight_values(table.column(weight), weight, part) if weighted else None
        if mode == "hard":
            pred_codes = _label_codes(table.column(pred), class_array, pred, part)
            hard_counts(group, gold_codes, pred_codes, n_groups, m, weight=w, out=acc, scratch=scratch)
        else:
            values = enc.score_values(table.column(score), score, part)
            if mode == "sweep":
                sweep_histogram(group, gold_codes, values, grid, n_groups, weight=w, out=acc, scratch=scratch)
            else:
                pieces.append((group, gold_codes, values, w))

    if seen is not None:
        extra = _missing_rows(seen, gold_idx, labels, group_cols, sizes, system_axis, missing)
        if extra is not None:
            group, gold_codes = extra
            if mode == "hard":
                hard_counts(group, gold_codes, np.zeros_like(gold_codes), n_groups, 2,
                            weight=np.ones(group.size) if weighted else None, out=acc)
            elif mode == "sweep":
                # A missing item is negative at every threshold: it passes none of them.
                np.add.at(acc, (group, gold_codes, 0), 1)
            else:
                pieces.append((group, gold_codes, np.full(group.size, -np.inf),
                               np.ones(group.size) if weighted else None))

    coords = {c: _labels_to_numpy(labels[c]) for c in group_cols}
    if mode == "hard":
        class_coords = [0, 1] if class_array is None else _labels_to_numpy(class_array)
        return ConfusionTensor(acc.reshape(sizes + (m, m)), group_cols, coords, classes=class_coords)
    if mode == "sweep":
        counts = histogram_to_counts(acc).reshape(sizes + (grid.size, 2, 2))
        return ConfusionTensor(counts, group_cols + ("threshold",), {**coords, "threshold": grid}, classes=[0, 1])
    group = np.concatenate([p[0] for p in pieces])
    gold_codes = np.concatenate([p[1] for p in pieces])
    values = np.concatenate([np.asarray(p[2], np.float64) for p in pieces])
    w = np.concatenate([p[3] for p in pieces]) if weighted else None
    out_group, out_threshold, out_counts = exact_counts(group, gold_codes, values, n_groups, weight=w)
    keep = np.isfinite(out_threshold)  # -inf marks the padding of missing items, not a real score
    out_group, out_threshold, out_counts = out_group[keep], out_threshold[keep], out_counts[keep]
    cell_codes = np.unravel_index(out_group, sizes)
    cell_coords = {c: coords[c][cell_codes[i]] for i, c in enumerate(group_cols)}
    cell_coords["threshold"] = out_threshold
    return ConfusionTensor(out_counts, ("cell",), cell_coords,
                           coord_axes={c: "cell" for c in cell_coords}, classes=[0, 1])


def _open_gold(gold, src, group_cols, item, gold_column):
    """Index a separate gold by (topic, item); join on item alone when either side has no topic."""
    columns = src.column_names
    gold_table = load_gold(gold)
    join_on_topic = "topic" in columns and "topic" in gold_table.column_names
    if not join_on_topic:
        if "topic" in group_cols:
            raise InputError("Grouping by topic needs a 'topic' column in both the runs and the gold.")
        if "topic" in gold_table.column_names:
            gold_table = gold_table.drop_columns(["topic"])
        gold_table = gold_table.append_column("topic", pa.array(["-"] * gold_table.num_rows))
    enc.require_columns(columns, [item], src.names[0], " to join the gold")
    gold_idx = enc.gold_index(gold_table, topic="topic", item=item if item in gold_table.column_names else "item",
                              gold="gold" if "gold" in gold_table.column_names else gold_column)
    return gold_idx, join_on_topic


def _collect_labels(src, group_cols, score, gold_idx, label_cols=()):
    """Pass 1: the sorted labels of every grouping column over the whole input (plus the gold's
    topics), the score range when ``score`` is given, and the distinct values of the label
    columns (to tell binary from multiclass). Reads only those columns."""
    chunks: dict[str, list] = {c: [] for c in group_cols}
    label_chunks: dict[str, list] = {c: [] for c in label_cols}
    lo, hi, n_rows = np.inf, -np.inf, 0
    read = list(dict.fromkeys(list(group_cols) + ([score] if score else []) + list(label_cols)))
    for part, table in src.batches(read):
        n_rows += table.num_rows
        for c in group_cols:
            chunks[c].append(pc.unique(table.column(c)))
        for c in label_cols:
            label_chunks[c].append(pc.unique(table.column(c)))
        if score and table.num_rows:
            values = enc.score_values(table.column(score), score, part)
            lo, hi = min(lo, float(values.min())), max(hi, float(values.max()))
    if n_rows == 0:
        raise InputError("The input has no rows.")
    labels = {}
    for c in group_cols:
        arrays = [a.combine_chunks() if isinstance(a, pa.ChunkedArray) else a for a in chunks[c]]
        if c == "topic" and gold_idx is not None:
            arrays.append(pc.unique(gold_idx.topic))
        arrays = [a.cast(arrays[0].type) for a in arrays]
        labels[c] = enc.sorted_labels(arrays, c)
        if labels[c].null_count:
            raise InputError(f"Column '{c}' has missing (null) values.")
    label_values = {c: pc.unique(pa.chunked_array(v).combine_chunks()) for c, v in label_chunks.items()}
    return labels, lo, hi, label_values


def _fixed_labels(found: pa.Array, given, column: str) -> pa.Array:
    fixed = pa.array(list(given)).cast(found.type)
    unknown = pc.filter(found, pc.invert(pc.is_in(found, value_set=fixed)))
    if len(unknown):
        raise InputError(f"Column '{column}' has the value {unknown[0].as_py()!r}, which is not among the "
                         "coordinates given.")
    return fixed


def _list_typed(src, column: str) -> bool:
    if column not in src.column_names:
        return False
    field_type = src.parts[0].schema.field(column).type
    return pa.types.is_list(field_type) or pa.types.is_large_list(field_type)


def _decide_classes(task, mode, label_values, classes):
    """None for binary labels; otherwise the class labels (a pyarrow Array) of a multiclass task."""
    binary = all(enc.is_binary_like(v) for v in label_values.values())
    if mode != "hard" or task == "binary" or (task == "auto" and binary and classes is None):
        if not binary:
            col, bad = next((c, v) for c, v in label_values.items() if not enc.is_binary_like(v))
            what = "scores and thresholds need binary gold" if mode != "hard" else "task='binary' was asked"
            raise InputError(f"Column '{col}' has non-binary values (e.g. {enc.non_binary_example(bad)!r}) but {what}; "
                             "multiclass labels need a 'pred' column of classes (task='multiclass').")
        return None
    names = list(label_values)
    return enc.class_labels([label_values[c] for c in names], names, classes)


def _label_codes(array, class_array, column: str, part: str) -> np.ndarray:
    """Binary (int8 0/1) or class codes (int32 positions in ``class_array``) of a label column."""
    if class_array is None:
        return enc.binary_codes(array, column, part)
    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks()
    enc._no_nulls(array, column, part)
    return enc.encode_with(array.cast(class_array.type), class_array, column, part,
                           unknown="which is not among the classes")


def _mark_seen(seen, sys_codes, index, labels, system_axis, gold_idx, part) -> None:
    """Record which gold items each system covered; a second sighting is a duplicated item."""
    flat = sys_codes.astype(np.int64) * seen.shape[1] + index
    _, first, cnt = np.unique(flat, return_index=True, return_counts=True)
    before = seen[sys_codes, index]
    if before.any() or (cnt > 1).any():
        row = int(first[np.argmax(cnt > 1)]) if (cnt > 1).any() else int(np.argmax(before))
        system = labels["system"][int(sys_codes[row])].as_py() if system_axis is not None else "-"
        g = int(index[row])
        raise InputError(
            f"Duplicated (system, topic, item){enc._where(part)}: system={system!r}, "
            f"topic={gold_idx.topic[g].as_py()!r}, item={gold_idx.item[g].as_py()!r} appears more than once; "
            "each item may appear once per system and topic."
        )
    seen[sys_codes, index] = True


def _missing_rows(seen, gold_idx, labels, group_cols, sizes, system_axis, missing):
    lacking = ~seen
    if not lacking.any():
        return None
    sys_codes, gold_rows = np.nonzero(lacking)
    if missing == "error":
        s = int(sys_codes[0])
        g = int(gold_rows[0])
        system = labels["system"][s].as_py() if system_axis is not None else "the run"
        n_lacking = int(lacking[s].sum())
        raise InputError(
            f"Run {system!r} lacks {n_lacking} of the {seen.shape[1]} gold item(s), e.g. topic "
            f"{gold_idx.topic[g].as_py()!r}, item {gold_idx.item[g].as_py()!r}. Use missing='negative' "
            "(--missing negative) to count them as predicted negative, or 'drop' to ignore them."
        )
    if missing == "drop":
        return None
    axis_codes = []
    for c in group_cols:
        if c == "system":
            axis_codes.append(sys_codes)
        elif c == "topic":
            axis_codes.append(gold_idx.topic_codes[gold_rows])
        else:
            raise ParameterError(f"missing='negative' needs the grouping to be system/topic only; got {c!r}.")
    group = np.ravel_multi_index(axis_codes, sizes).astype(np.int64)
    return group, gold_idx.gold[gold_rows]


def _from_count_table(src, group_cols) -> ConfusionTensor:
    """A ConfusionTensor from a table of precomputed ``tp, fp, fn, tn`` per group."""
    table = src.read_all(list(group_cols) + list(enc.COUNT_COLUMNS))
    if table.num_rows == 0:
        raise InputError("The input has no rows.")
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


def _from_matrix_table(src, group_cols, classes) -> ConfusionTensor:
    """A multiclass ConfusionTensor from cells ``true, pred, count`` per group (absent cells are 0)."""
    table = src.read_all(list(group_cols) + list(MATRIX_COLUMNS))
    if table.num_rows == 0:
        raise InputError("The input has no rows.")
    enc.check_unique_items(table, list(group_cols) + ["true", "pred"], src.names[0])
    class_array = enc.class_labels([table.column("true").combine_chunks(), table.column("pred").combine_chunks()],
                                   ["true", "pred"], classes)
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
    enc._no_nulls(col, name, part)
    values = col.to_numpy(zero_copy_only=False)
    if not np.issubdtype(values.dtype, np.number) or (values < 0).any() or not np.isfinite(values).all():
        raise InputError(f"Column '{name}' must hold non-negative finite counts.")
    return values
