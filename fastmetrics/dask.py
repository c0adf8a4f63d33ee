"""Distributed counting on a Dask cluster: the count stage's plan, one tally per partition.

Counting is two passes (:mod:`fastmetrics.count.plan`, :mod:`fastmetrics.count.tally`), and both
distribute:

1. every partition is *surveyed* (distinct values of the grouping and label columns, the score
   range when ``thresholds=k`` needs a grid over it) and the surveys are merged on the client
   into one :class:`~fastmetrics.count.plan.CountPlan` -- the same plan ``fastmetrics.count``
   builds, so codes, classes and grid agree everywhere;
2. every partition is counted against that plan by the same kernels into a
   :class:`~fastmetrics.count.tally.Tally` -- its counts and the (run, item) keys it saw -- and
   the tallies are merged in a tree. Two tallies holding the same key are a duplicated item,
   whichever partitions the copies sit in; items a run lacks are settled on the client from the
   merged keys with the same missing policy as in one process.

Exact sweeps (``thresholds="exact"``) need all scores of a group in one place; rather than a
shuffle by group this module refuses them with a clear error: use a grid (an int ``k`` or an
array), or run :func:`fastmetrics.count` on one machine.

Dask is an optional dependency (``pip install 'fastmetrics[dask]'``); importing fastmetrics never
imports it.
"""

from __future__ import annotations

import logging
from dataclasses import replace

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ._errors import InputError, ParameterError
from .count.api import check_roles
from .count.api import count as local_count
from .count.assemble import assemble
from .count.goldkeys import column_codes
from .count.options import CountOptions, given_options
from .count.plan import build, prepare
from .count.probabilities import is_probability_input
from .count.survey import NeedValues, Survey
from .count.tally import Tally
from .tensor import ConfusionTensor


def _require_dask():
    try:
        import dask  # noqa: F401
        import distributed  # noqa: F401
    except ImportError:  # pragma: no cover - exercised only without the extra
        raise ParameterError("Distributed counting needs Dask: pip install 'fastmetrics[dask]'.") from None


def _as_arrow(part, columns) -> pa.Table:
    """A partition as Arrow: a Parquet file path is read straight into Arrow on the worker (no
    pandas round trip); a pandas partition of a Dask DataFrame is converted."""
    if isinstance(part, str):
        import pyarrow.parquet as pq

        return pq.read_table(part, columns=columns)
    return pa.Table.from_pandas(part[columns], preserve_index=False)


def _name(part, i) -> str:
    return part if isinstance(part, str) else f"partition {i}"


def _survey_partition(part, i, columns, ranged, score, exact):
    facts = Survey(ranged=ranged, exact=exact)
    offset = 0
    for batch in _as_arrow(part, columns).to_batches():
        facts.add(batch, _name(part, i), score, offset)
        offset += batch.num_rows
    return facts


def _count_partition(part, i, plan):
    tally = Tally(plan)
    offset = 0
    for batch in _as_arrow(part, plan.read_columns).to_batches():
        tally.add(batch, _name(part, i), offset)
        offset += batch.num_rows
    return tally


def _merge(a, b):
    return a.merge(b)


def _tree(items, combine):
    from dask import delayed

    step = delayed(combine, pure=True)
    while len(items) > 1:
        items = [step(items[i], items[i + 1]) if i + 1 < len(items) else items[i] for i in range(0, len(items), 2)]
    return items[0]


def count(
    source,
    *,
    gold=None,
    by=None,
    system="system",
    topic="topic",
    pred="pred",
    score="score",
    thresholds=None,
    client=None,
    gold_column="gold",
    item="item",
    weight=None,
    missing="error",
    task="auto",
    classes=None,
    retries: int = 2,
    options=None,
) -> ConfusionTensor:
    """Count on a Dask cluster; the result equals :func:`fastmetrics.count` on the whole data.

    Parameters
    ----------
    source : str or dask.dataframe.DataFrame
        A Parquet dataset path (local or any fsspec URL pyarrow can open) or a Dask DataFrame in
        the long input schema.
    gold : path or pyarrow.Table, optional
        A separate gold table keyed by (topic, item), shipped to the workers inside the plan.
        ``missing`` applies to the items a run lacks, as in one process.
    thresholds : None, int or array_like
        Hard predictions (None), a grid of ``k`` thresholds over the global score range (an int;
        computed in the first pass), explicit thresholds, or ``"exact"`` (every distinct score of
        each group, after a shuffle by topic; see the module).
    by : sequence of str, optional
        The grouping columns (default: the system and the topic).
    system, topic : str, default "system", "topic"
        The columns playing the system and the topic, as in :func:`fastmetrics.count`; the
        result keeps their names.
    client : distributed.Client, optional
        Default: the current client if one exists, else Dask's default scheduler.
    retries : int, default 2
        Times a failed partition task is retried (a worker lost mid-job reruns its tasks).
    options : CountOptions, optional
        The count options above (``by`` to ``classes``) as one object, as in
        :func:`fastmetrics.count`; the keywords it holds are then left at their defaults.

    Returns
    -------
    ConfusionTensor

    Raises
    ------
    InputError
        As :func:`fastmetrics.count`, including a (system, topic, item) repeated in two
        partitions.
    """
    _require_dask()
    asked = dict(
        by=by,
        system=system,
        topic=topic,
        pred=pred,
        score=score,
        thresholds=thresholds,
        gold_column=gold_column,
        item=item,
        weight=weight,
        missing=missing,
        task=task,
        classes=classes,
    )
    options = given_options(options, asked)
    if (options.system, options.topic) != ("system", "topic"):
        check_roles(list(_frame(source).columns), str(source), options.system, options.topic)
    return _count(source, gold, options, client, retries)


def _frame(source):
    """A Dask DataFrame of the source (a Parquet dataset read lazily)."""
    import dask.dataframe as dd

    try:
        return source if isinstance(source, dd.DataFrame) else dd.read_parquet(source)
    except (ValueError, OSError) as exc:
        raise InputError(f"Cannot read the Parquet dataset {source!r}: {exc}") from None


def _count(source, gold, options: CountOptions, client, retries) -> ConfusionTensor:
    import dask

    if isinstance(options.thresholds, str) and options.thresholds != "exact":
        raise ParameterError(f"On Dask, thresholds is 'exact', an int k or an array; got {options.thresholds!r}.")
    if options.task == "multilabel":
        raise ParameterError("Multilabel input is counted in one process: use fastmetrics.count.")
    client = client if client is not None else _current_client()
    parts, schema, name = _partitions(source)
    if is_probability_input(schema.names, schema, options.score):
        raise ParameterError(
            f"Class probabilities (score {options.score!r}: one list of class scores per row, or one score "
            "column per class) are counted in one process: drop --scheduler (use fastmetrics.count)."
        )
    request, types, gold_table = prepare(schema.names, schema, name, gold, options)
    try:
        plan = build(request, _survey(parts, request, types, client, retries, exact=False), types, gold_table)
    except NeedValues:
        plan = build(request, _survey(parts, request, types, client, retries, exact=True), types, gold_table)
    if plan.mode == "exact":
        return _exact_sweep(source, plan, gold_table, client, retries, options)
    # one copy of the plan per worker (it holds the labels of every axis), not one per task
    shared = client.scatter(plan, broadcast=True) if client is not None else dask.delayed(plan, pure=True)
    tallies = [dask.delayed(_count_partition)(p, i, shared) for i, p in enumerate(parts)]
    return assemble(_run(_tree(tallies, _merge), client, retries))


def _exact_sweep(source, plan, gold_table, client, retries, options: CountOptions) -> ConfusionTensor:
    """An exact sweep on Dask: rows moved (Dask's own shuffle) so that each topic's rows -- every
    system's -- land in one partition, each partition swept where it lands by the one-process
    count, the cells put in the order one process gives.

    The rows move by topic, not by (system, topic): a topic's gold items, the items each run
    lacks and a duplicated item are then all in one partition, so the gold join, the missing
    policy and the duplicate check behave exactly as in one process. Without a topic axis they
    move by the first grouping column. Topics are dealt to the partitions in turn, by their
    codes in the plan (:func:`dealt`), not by a hash of their values: every partition
    gets as many topics as any other (give or take one), whatever the topics are called.
    """
    import dask
    import dask.dataframe as dd

    frame = dd.read_parquet(source) if isinstance(source, str) else source
    columns = list(frame.columns)
    topic, by = options.topic, options.by
    key = topic if topic in by and topic in columns else next((c for c in by if c in columns), None)
    labels = {c: plan.encoders[c].labels.to_pylist() for c in plan.axes if c in by}
    shuffled = dealt(frame, plan.encoders[key], key) if key is not None else frame.repartition(npartitions=1)
    gold = dask.delayed(gold_table, pure=True) if gold_table is not None else None
    gold_key = "topic" if key == topic else key  # the gold's own name for the column (its topic)
    parts = [
        dask.delayed(_exact_partition)(p, gold, (key, gold_key), replace(options, coords=labels))
        for p in shuffled.to_delayed()
    ]
    tensors = [t for t in _run(parts, client, retries) if t is not None]
    if not tensors:
        raise InputError("The input has no rows.")
    coords = {c: np.concatenate([t.coords[c] for t in tensors]) for c in tensors[0].coords}
    counts = np.concatenate([t.counts for t in tensors])
    # the one-process order: groups in label order, each group's thresholds decreasing
    ranks = [np.searchsorted(np.asarray(sorted(set(coords[c].tolist()))), coords[c]) for c in labels if c in coords]
    order = np.lexsort([-coords["threshold"]] + ranks[::-1]) if ranks else np.argsort(-coords["threshold"])
    return ConfusionTensor(
        counts[order],
        ("cell",),
        {c: v[order] for c, v in coords.items()},
        coord_axes={c: "cell" for c in coords},
        classes=tensors[0].classes,
    )


_PARTITION = "__fastmetrics_partition"


def dealt(frame, encoder, key: str):
    """Move the rows of a Dask DataFrame so that each value of ``key`` is in one partition, dealt in turn.

    Partition ``i`` holds the rows whose ``key`` value has code ``i``, ``i + n``, ``i + 2n``, ...
    among ``encoder``'s labels (``n`` partitions, as many as ``frame`` has).

    Parameters
    ----------
    frame : dask.dataframe.DataFrame
    encoder : fastmetrics.count.encoders.Encoder
        The plan's encoder of the column ``key``: its labels hold every value of the column.
    key : str

    Returns
    -------
    dask.dataframe.DataFrame
        The same rows and columns, indexed by their partition number.
    """
    n = frame.npartitions
    meta = frame._meta.assign(**{_PARTITION: np.zeros(0, np.int64)})
    tagged = frame.map_partitions(_with_partition, encoder, key, n, meta=meta)
    # partition i holds the rows tagged i: the divisions are 0, 1, ..., n (the last one inclusive)
    return tagged.set_index(_PARTITION, divisions=list(range(n + 1)))


def _with_partition(frame, encoder, key, n):
    """A pandas partition with the partition its rows go to: the code of their ``key`` value
    among the plan's labels (sorted; coded by :func:`fastmetrics.count.goldkeys.column_codes`, the
    package's one string hash) modulo ``n``."""
    codes = column_codes(encoder, pa.array(frame[key]), "a Dask partition") if len(frame) else np.zeros(0, np.int64)
    return frame.assign(**{_PARTITION: codes % n})


def _exact_partition(frame, gold, keys, options: CountOptions):
    """One shuffled partition (whole topics) swept by :func:`fastmetrics.count`; None if empty.

    ``keys``: the column the rows were shuffled on, and the gold's name for it."""
    if len(frame) == 0:
        return None
    table = pa.Table.from_pandas(frame, preserve_index=False)
    key, gold_key = keys
    if gold is not None and gold_key in gold.column_names:
        shuffled_on = table.column(key).cast(gold.schema.field(gold_key).type)
        gold = gold.filter(pc.is_in(gold.column(gold_key), value_set=pc.unique(shuffled_on)))
    return local_count(table, gold, options=options)


def _survey(parts, request, types, client, retries, exact) -> Survey:
    """Pass 1 on every partition, merged in a tree."""
    import dask

    read = request.survey_columns(types)
    score = request.score if request.score in read else None
    surveys = [dask.delayed(_survey_partition)(p, i, read, request.ranged, score, exact) for i, p in enumerate(parts)]
    facts = _run(_tree(surveys, _merge), client, retries)
    if not read:
        facts.rows = sum(_run([dask.delayed(_rows)(p) for p in parts], client, retries))
    return facts


def _rows(part) -> int:
    return _as_arrow(part, []).num_rows if isinstance(part, str) else len(part)


def _partitions(source):
    """(partitions, schema, name): the files of a Parquet dataset pyarrow can open (read by
    pyarrow on the workers), else the partitions of a Dask DataFrame."""
    if isinstance(source, str):
        import pyarrow.dataset as pads

        try:
            dataset = pads.dataset(source, format="parquet")
        except (pa.ArrowInvalid, OSError, ValueError):
            dataset = None
        if dataset is not None:
            files = dataset.files
            if dataset.filesystem.type_name != "local":
                files = [f"{dataset.filesystem.type_name}://{f}" for f in files]
            if not files:
                raise InputError(f"The Parquet dataset {source!r} holds no file.")
            return files, dataset.schema, source
    frame = _frame(source)
    schema = pa.Schema.from_pandas(frame._meta, preserve_index=False)
    return frame.to_delayed(), schema, "<dask dataframe>"


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


def client_for(scheduler: str):
    """A distributed Client for ``local``, ``local:N`` (N worker processes) or a scheduler ADDRESS."""
    _require_dask()
    from distributed import Client, LocalCluster

    if scheduler == "local" or scheduler.startswith("local:"):
        text = scheduler.split(":", 1)[1] if ":" in scheduler else None
        if text is not None and not (text.isdigit() and int(text) > 0):
            raise ParameterError(
                f"A local scheduler is 'local' or 'local:N' with N worker processes >= 1; got {scheduler!r}."
            )
        # a user's bad row fails a task: its message reaches the caller once, as an InputError;
        # the workers' own log of the failure (a traceback per retry) would only bury it
        cluster = LocalCluster(
            n_workers=None if text is None else int(text),
            threads_per_worker=1,
            processes=True,
            dashboard_address=":0",
            silence_logs=logging.CRITICAL,
        )
        return Client(cluster)
    try:
        return Client(scheduler)
    except (ValueError, OSError, TimeoutError) as exc:  # a mistyped or unreachable address
        raise ParameterError(
            f"scheduler {scheduler!r}: cannot reach a Dask scheduler ({exc}); give 'local', 'local:N' or HOST:PORT."
        ) from None
