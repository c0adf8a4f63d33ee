"""Distributed counting on a Dask cluster: map (count each partition) and reduce (sum tensors).

Confusion counts are additive, so a dataset split into partitions is counted partition by
partition with the same Numba kernels as :func:`fastmetrics.count`, and the tensors are summed in
a tree. Encodings must agree across partitions; they are fixed by a **first pass** that collects,
per partition, the distinct values of the grouping columns (and the labels, to tell binary from
multiclass, and the score range when a threshold count ``k`` needs a global grid), merged on the
client. The second pass counts every partition against those coordinates
(``fastmetrics.count(..., coords=...)``), so every partition tensor has the same shape.

Exact sweeps (``thresholds="exact"``) need all scores of a group in one place; rather than a
shuffle by group this module refuses them with a clear error: use a grid (an int ``k`` or an
array), or run :func:`fastmetrics.count` on one machine.

Dask is an optional dependency (``pip install 'fastmetrics[dask]'``); importing fastmetrics never
imports it.
"""

from __future__ import annotations

import numbers

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ._errors import InputError, ParameterError
from .tensor import ConfusionTensor


def _require_dask():
    try:
        import dask  # noqa: F401
        import distributed  # noqa: F401
    except ImportError:  # pragma: no cover - exercised only without the extra
        raise ParameterError("Distributed counting needs Dask: pip install 'fastmetrics[dask]'.") from None


def _as_arrow(part) -> pa.Table:
    """A partition as Arrow: a Parquet file path is read straight into Arrow on the worker (no
    pandas round trip); a pandas partition of a Dask DataFrame is converted."""
    if isinstance(part, tuple):
        path, columns = part
        import pyarrow.parquet as pq

        return pq.read_table(path, columns=columns)
    return pa.Table.from_pandas(part, preserve_index=False)


def _optional(columns, names):
    """``system`` and ``topic`` may be absent (one system, one topic), as in fastmetrics.count."""
    return [c for c in columns if c in names or c not in ("system", "topic")]


def _frame(source, columns):
    import dask.dataframe as dd

    try:
        frame = source if isinstance(source, dd.DataFrame) else dd.read_parquet(source)
    except (ValueError, OSError, FileNotFoundError) as exc:
        raise InputError(f"Cannot read the Parquet dataset {source!r}: {exc}") from None
    columns = _optional(columns, frame.columns)
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise InputError(f"The input lacks the column(s) {', '.join(missing)}; it has "
                         f"{', '.join(map(str, frame.columns))}.")
    return frame[columns]


def _parquet_files(source, columns):
    """(path, columns) partitions of a Parquet dataset pyarrow can open itself (local paths,
    s3://, gs://, hdfs://) and the columns read, or None for anything else."""
    if not isinstance(source, str):
        return None
    import pyarrow.dataset as pads

    try:
        dataset = pads.dataset(source, format="parquet")
    except (pa.ArrowInvalid, OSError, ValueError):
        return None
    names = dataset.schema.names
    columns = _optional(columns, names)
    missing = [c for c in columns if c not in names]
    if missing:
        raise InputError(f"The Parquet dataset {source!r} lacks the column(s) {', '.join(missing)}; it has "
                         f"{', '.join(names)}.")
    files = dataset.files
    if dataset.filesystem.type_name != "local":
        files = [f"{dataset.filesystem.type_name}://{f}" for f in files]
    return [(f, columns) for f in files], columns


def _survey(part, group_cols, label_cols, score):
    """Pass 1 on one partition: distinct values per column and the score range."""
    table = _as_arrow(part)
    out = {c: table.column(c).unique() for c in group_cols + label_cols}
    if score is not None and table.num_rows:
        values = table.column(score).to_numpy()
        out["__range__"] = (float(np.min(values)), float(np.max(values)))
    return out, table.num_rows


def _count_partition(part, options):
    from .count import count

    table = _as_arrow(part)
    if table.num_rows == 0:
        return None
    return count(table, **options).counts


def _tree_sum(items):
    from dask import delayed

    add = delayed(_add, pure=True)
    while len(items) > 1:
        items = [add(items[i], items[i + 1]) if i + 1 < len(items) else items[i] for i in range(0, len(items), 2)]
    return items[0]


def _add(a, b):
    if a is None:
        return b
    if b is None:
        return a
    return a + b


def count(source, *, gold=None, by=("system", "topic"), pred="pred", score="score", thresholds=None,
          client=None, gold_column="gold", item="item", weight=None, missing="error", task="auto", classes=None,
          retries: int = 2) -> ConfusionTensor:
    """Count on a Dask cluster; the result equals :func:`fastmetrics.count` on the whole data.

    Parameters
    ----------
    source : str or dask.dataframe.DataFrame
        A Parquet dataset path (local or any fsspec URL) or a Dask DataFrame in the long input
        schema.
    gold : path or pyarrow.Table, optional
        A separate gold table keyed by (topic, item), broadcast to the workers. Items a run lacks
        are found on the client from the summed counts: ``missing="error"`` reports them,
        ``"negative"`` counts them as predicted negative, ``"drop"`` ignores them.
    thresholds : None, int or array_like
        Hard predictions (None), a grid of ``k`` thresholds over the global score range (an int;
        computed in the first pass) or explicit thresholds. ``"exact"`` is refused (see module).
    client : distributed.Client, optional
        Default: the current client if one exists, else Dask's default scheduler.
    retries : int, default 2
        Times a failed partition task is retried (a worker lost mid-job reruns its tasks).

    Returns
    -------
    ConfusionTensor
    """
    _require_dask()
    import dask

    if isinstance(thresholds, str):
        raise ParameterError(
            "Exact threshold sweeps need every score of a (system, topic) group in one place, which a "
            "partitioned dataset does not give; pass thresholds=k (a grid over the global score range) or an "
            "array of thresholds, or count exact sweeps with fastmetrics.count on one machine.")
    if task == "multilabel":
        raise ParameterError("Multilabel input is counted in one process: use fastmetrics.count.")
    client = client if client is not None else _current_client()
    hard = thresholds is None
    gold_table = None
    if gold is not None:
        from .io.readers import gold_table as load_gold
        gold_table = load_gold(gold)
    needed = list(dict.fromkeys(list(by) + ([pred] if hard else [score]) + ([gold_column] if gold is None else [item])
                                + (["topic"] if gold is not None and "topic" in by else []) + ([weight] if weight else [])))
    parts, present = _partitions(source, needed)
    group_cols = [c for c in by if c in present]
    label_cols = ([pred] if hard else []) + ([gold_column] if gold is None else [])
    need_range = isinstance(thresholds, numbers.Integral) and not isinstance(thresholds, bool)

    # pass 1: labels of every grouping column (and of the classes, and the score range)
    surveys = _run([dask.delayed(_survey)(p, group_cols, label_cols, score if need_range else None) for p in parts],
                   client, retries)
    surveys = [s for s, n in surveys if n]
    if not surveys:
        raise InputError("The input has no rows.")
    coords = {c: _sorted_union([s[c] for s in surveys]) for c in group_cols}
    if gold_table is not None and "topic" in group_cols:
        coords["topic"] = _sorted_union([pa.array(coords["topic"]), gold_table.column("topic").combine_chunks()])
    options = dict(by=tuple(group_cols), pred=pred, score=score, gold_column=gold_column, item=item, weight=weight,
                   coords=coords)
    if hard:
        from .io import encode as enc

        found = [pa.chunked_array([s[c] for s in surveys]).combine_chunks() for c in label_cols]
        names = list(label_cols)
        if gold_table is not None:
            found.append(gold_table.column("gold").combine_chunks().unique())
            names.append("gold")
        if task == "multiclass" or classes is not None or (task == "auto" and not all(map(enc.is_binary_like, found))):
            if missing == "negative" and gold is not None:
                raise ParameterError("missing='negative' has no meaning for multiclass labels; use 'error' or 'drop'.")
            options.update(task="multiclass", classes=enc.class_labels(found, names, classes).to_pylist())
        else:
            options.update(task="binary")
    elif need_range:
        from .count import threshold_grid

        lo = min(s["__range__"][0] for s in surveys)
        hi = max(s["__range__"][1] for s in surveys)
        options["thresholds"] = threshold_grid(int(thresholds), lo, hi)
    else:
        options["thresholds"] = np.asarray(thresholds, np.float64)
    if gold_table is not None:
        options.update(gold=gold_table, missing="drop")  # items a run lacks are settled on the client

    # pass 2: count every partition against the same coordinates, tree-sum the tensors
    counts = _run(_tree_sum([dask.delayed(_count_partition)(p, options) for p in parts]), client, retries)
    return _assemble(counts, options, coords, group_cols, gold_table, missing)


def _partitions(source, columns):
    """The partitions to count and the columns read: Parquet files read by pyarrow on the
    workers when pyarrow can open the dataset, else the partitions of a Dask DataFrame (or of
    Dask's Parquet reader, for fsspec URLs pyarrow does not know)."""
    files = _parquet_files(source, columns)
    if files is not None:
        return files
    frame = _frame(source, columns)
    return frame.to_delayed(), list(frame.columns)


def _sorted_union(arrays) -> list:
    values = pa.chunked_array([a.cast(arrays[0].type) for a in arrays]).combine_chunks().unique()
    return values.take(pc.sort_indices(values)).to_pylist()


def _current_client():
    try:
        from distributed import default_client

        return default_client()
    except (ImportError, ValueError):
        return None


def _run(graph, client, retries):
    """Compute a delayed object (or a list of them) on the client, retrying failed tasks, or on
    Dask's default scheduler without one."""
    import dask

    if client is None:
        return dask.compute(graph)[0]
    with dask.config.set({"distributed.scheduler.allowed-failures": max(retries, 0) + 1}):
        return client.compute(graph, retries=retries, sync=True)


def _assemble(counts, options, coords, group_cols, gold, missing) -> ConfusionTensor:
    if counts is None:
        raise InputError("The input has no rows.")
    thresholds = options.get("thresholds")
    axes = tuple(group_cols) + (("threshold",) if thresholds is not None else ())
    tensor_coords = {c: np.asarray(coords[c], dtype=object if isinstance(coords[c][0], str) else None)
                     for c in group_cols}
    if thresholds is not None:
        tensor_coords["threshold"] = np.asarray(thresholds)
    classes = options.get("classes", [0, 1])
    tensor = ConfusionTensor(counts, axes, tensor_coords,
                             classes=np.asarray(classes, dtype=object if isinstance(classes[0], str) else None))
    if gold is not None:
        tensor = _apply_missing(tensor, gold, missing, group_cols)
    return tensor


def _apply_missing(tensor, gold_table, missing, group_cols):
    """Compare each (system, topic)'s counted gold items with the gold's, then apply ``missing``."""
    from .io import encode as enc

    if missing == "drop":
        return tensor
    c = tensor.counts
    has_threshold = "threshold" in tensor.axes
    counted = c[..., 0, :, :] if has_threshold else c
    counted_pos = counted[..., 1, :].sum(-1)
    counted_neg = counted[..., 0, :].sum(-1)
    gold_codes = enc.binary_codes(gold_table.column("gold"), "gold", "gold")
    if "topic" in group_cols:
        topic_labels = list(tensor.coords["topic"])
        topic_of = pa.array(topic_labels)
        codes = enc.encode_with(gold_table.column("topic").cast(topic_of.type), topic_of, "topic", "gold")
        pos = np.bincount(codes, weights=gold_codes, minlength=len(topic_labels))
        neg = np.bincount(codes, weights=1 - gold_codes, minlength=len(topic_labels))
        axis = group_cols.index("topic")
        shape = [1] * len(group_cols)
        shape[axis] = -1
        pos, neg = pos.reshape(shape), neg.reshape(shape)
    else:
        pos, neg = np.sum(gold_codes), np.sum(1 - gold_codes)
    lack_pos = np.broadcast_to(pos, counted_pos.shape) - counted_pos
    lack_neg = np.broadcast_to(neg, counted_neg.shape) - counted_neg
    if (lack_pos < 0).any() or (lack_neg < 0).any():
        raise InputError("A run has more items than the gold for some topic: duplicated (system, topic, item) rows?")
    if not (lack_pos.any() or lack_neg.any()):
        return tensor
    if missing == "error":
        idx = np.unravel_index(int(np.argmax((lack_pos + lack_neg) > 0)), lack_pos.shape)
        where = ", ".join(f"{a}={np.asarray(tensor.coords[a]).tolist()[i]!r}" for a, i in zip(group_cols, idx))
        raise InputError(f"Run cell {where} lacks {int(lack_pos[idx] + lack_neg[idx])} gold item(s). Use "
                         "missing='negative' to count them as predicted negative, or 'drop' to ignore them.")
    counts = tensor.counts.copy()
    if has_threshold:
        counts[..., 1, 0] += lack_pos[..., None].astype(counts.dtype)
        counts[..., 0, 0] += lack_neg[..., None].astype(counts.dtype)
    else:
        counts[..., 1, 0] += lack_pos.astype(counts.dtype)
        counts[..., 0, 0] += lack_neg.astype(counts.dtype)
    return ConfusionTensor(counts, tensor.axes, tensor.coords, classes=tensor.classes)


def client_for(scheduler: str):
    """A distributed Client for ``local``, ``local:N`` (N worker processes) or a scheduler ADDRESS."""
    _require_dask()
    from distributed import Client, LocalCluster

    if scheduler == "local" or scheduler.startswith("local:"):
        n = int(scheduler.split(":", 1)[1]) if ":" in scheduler else None
        cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True, dashboard_address=":0")
        return Client(cluster)
    return Client(scheduler)
