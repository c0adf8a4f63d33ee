"""Resampled counting: split-half replicates (seed 001 §5) in one pass over the rows.

Each replicate splits the items of every topic at random into two halves of sizes
``floor(n/2)`` and ``ceil(n/2)``; the same split applies to every system, so the halves are two
test sets the systems share. The kernel walks the rows group by group and, for each replicate,
adds a row to half 0 when its item falls there; half 1 is the group total minus half 0. The rows
are never copied per replicate: the only per-replicate data is one byte per item.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from numba import njit, prange

from .._errors import InputError, ParameterError
from ..io import encode as enc
from ..io.readers import open_source
from ..tensor import ConfusionTensor
from .._seeding import rng_of
from .api import _label_codes, _open_gold, count


@njit(cache=True, parallel=True)
def _half_counts(group_start, gold, pred, item, half, out):
    """out[r, g, i, j] += rows of group g (rows sorted by group) with gold i, prediction j and
    their item in half 0 of replicate r."""
    n_groups = group_start.size - 1
    replicates = half.shape[0]
    for g in prange(n_groups):
        for r in range(replicates):
            h = half[r]
            for k in range(group_start[g], group_start[g + 1]):
                if h[item[k]] == 0:
                    out[r, g, gold[k], pred[k]] += 1


def half_assignment(item_topic: np.ndarray, n_topics: int, replicates: int, rng) -> np.ndarray:
    """``half[r, item]`` in {0, 1}: per topic, a uniformly random floor(n/2) of its items get 0."""
    half = np.ones((replicates, item_topic.size), np.int8)
    order = np.argsort(item_topic, kind="stable")
    bounds = np.searchsorted(item_topic[order], np.arange(n_topics + 1))
    for t in range(n_topics):
        items = order[bounds[t]:bounds[t + 1]]
        k = items.size // 2
        if k == 0:
            continue
        keys = rng.random((replicates, items.size))
        chosen = np.argpartition(keys, k - 1, axis=1)[:, :k]
        rows = np.repeat(np.arange(replicates), k)
        half[rows, items[chosen.reshape(-1)]] = 0
    return half


def split_half_counts(source, gold=None, *, replicates: int = 500, seed: int = 0, by=("system", "topic"),
                      pred="pred", gold_column="gold", item="item", missing="error", task="auto",
                      classes=None, format="auto") -> ConfusionTensor:
    """``counts[replicate, half, system, topic, m, m]`` for ``replicates`` random halvings.

    Parameters are those of :func:`fastmetrics.count` (hard predictions only); ``missing`` may
    be ``"error"`` or ``"drop"``. The full counts (``fm.count`` on the same input) equal the sum
    over ``half`` of every replicate.
    """
    if isinstance(replicates, bool) or not isinstance(replicates, (int, np.integer)) or replicates < 1:
        raise ParameterError(f"replicates must be a positive integer; got {replicates!r}.")
    if missing == "negative":
        raise ParameterError("Split-half stability needs the items each run covers: use missing='error' or 'drop'.")
    rng = rng_of(seed)
    whole = count(source, gold, by=by, pred=pred, gold_column=gold_column, item=item, missing=missing,
                  task=task, classes=classes, format=format)
    if not isinstance(whole, ConfusionTensor) or type(whole) is not ConfusionTensor or "threshold" in whole.axes \
            or "cell" in whole.axes:
        raise InputError("Split-half stability needs hard predictions (a 'pred' column) of binary or "
                         "multiclass labels.")
    src = open_source(source, format=format)
    columns = src.column_names
    group_cols = whole.axes
    enc.require_columns(columns, [item, pred], src.names[0], " for split halves")
    table = src.read_all(list(dict.fromkeys(list(group_cols) + [item, pred]
                                            + ([gold_column] if gold is None else [])
                                            + (["topic"] if "topic" in columns else []))))
    topic = table.column("topic").combine_chunks() if "topic" in columns else pa.array(["-"] * table.num_rows)
    if gold is not None:
        # the same join as fm.count: (topic, item) keys, or item alone when either side has no topic
        gold_idx, join_on_topic = _open_gold(gold, src, group_cols, item, gold_column)
        key_topic = topic if join_on_topic else pa.array(["-"] * table.num_rows)
        index = pc.index_in(enc.join_key(key_topic, table.column(item)), value_set=gold_idx.keys)
        keep = pc.is_valid(index)
        if not pc.all(keep).as_py():  # rows count() refused unless missing="drop" allowed them
            table, topic, index = table.filter(keep), pc.filter(topic, keep), index.drop_null()
        gold_values = gold_idx.values.take(index)
    else:
        gold_values = table.column(gold_column)
    binary = whole.m == 2 and whole.classes.tolist() == [0, 1]
    class_array = None if binary else pa.array(whole.classes.tolist())
    gold_codes = _label_codes(gold_values, class_array, gold_column, src.names[0])
    pred_codes = _label_codes(table.column(pred), class_array, pred, src.names[0])
    sizes = whole.batch_shape
    codes = [enc.encode_with(table.column(c), pa.array(whole.coords[c].tolist()).cast(table.column(c).type), c,
                             src.names[0]) for c in group_cols]
    group = np.ravel_multi_index(codes, sizes).astype(np.int64) if codes else np.zeros(table.num_rows, np.int64)
    keys = pc.dictionary_encode(enc.join_key(topic, table.column(item).combine_chunks()))
    item_codes = keys.indices.to_numpy(zero_copy_only=False).astype(np.int64)
    topic_codes = pc.dictionary_encode(topic).indices.to_numpy(zero_copy_only=False)
    item_topic = np.zeros(len(keys.dictionary), np.int64)
    item_topic[item_codes] = topic_codes
    half = half_assignment(item_topic, int(topic_codes.max()) + 1, int(replicates), rng)

    order = np.argsort(group, kind="stable")
    n_groups = int(np.prod(sizes, dtype=np.int64))
    group_start = np.searchsorted(group[order], np.arange(n_groups + 1)).astype(np.int64)
    m = whole.m
    first = np.zeros((int(replicates), n_groups, m, m), np.int64)
    _half_counts(group_start, gold_codes[order].astype(np.int64), pred_codes[order].astype(np.int64),
                 item_codes[order], half, first)
    total = whole.counts.reshape(n_groups, m, m)
    counts = np.stack([first, total[None] - first], axis=1).reshape((int(replicates), 2) + sizes + (m, m))
    return ConfusionTensor(counts, ("replicate", "half") + tuple(group_cols),
                           {**whole.coords, "replicate": np.arange(replicates), "half": np.array([0, 1])},
                           classes=whole.classes)

