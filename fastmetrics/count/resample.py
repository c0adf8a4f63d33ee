"""Resampled counting: split-half replicates (seed 001 §5) in one pass over the rows.

Each replicate splits the items of every topic at random into two halves of sizes
``floor(n/2)`` and ``ceil(n/2)``; the same split applies to every system, so the halves are two
test sets the systems share. The kernel walks the rows group by group and, for each replicate,
adds a row to half 0 when its item falls there; half 1 is the group total minus half 0. The rows
are never copied per replicate: the only per-replicate data is one byte per item.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from .._errors import InputError, ParameterError
from .._seeding import rng_of
from ..io.labels import require_columns
from ..io.readers import open_source
from ..tensor import ConfusionTensor
from .api import check_roles, plan
from .assemble import assemble, compact, kept_labels, labels_to_numpy
from .tally import DuplicateItem, Tally, missing_rows


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
        items = order[bounds[t] : bounds[t + 1]]
        k = items.size // 2
        if k == 0:
            continue
        keys = rng.random((replicates, items.size))
        chosen = np.argpartition(keys, k - 1, axis=1)[:, :k]
        rows = np.repeat(np.arange(replicates), k)
        half[rows, items[chosen.reshape(-1)]] = 0
    return half


def split_half_counts(
    source,
    gold=None,
    *,
    replicates: int = 500,
    seed: int = 0,
    by=None,
    system="system",
    topic="topic",
    pred="pred",
    gold_column="gold",
    item="item",
    missing="error",
    task="auto",
    classes=None,
    format="auto",
) -> ConfusionTensor:
    """``counts[replicate, half, system, topic, m, m]`` for ``replicates`` random halvings.

    Parameters are those of :func:`fastmetrics.count` (hard predictions). The rows are read once,
    with the same plan, kernels, duplicate check and gold join as ``fm.count``; under
    ``missing="negative"`` the items a run lacks are predicted negative in every half (the
    gold defines the items). The full counts (``fm.count`` on the same input) equal the sum over
    ``half`` of every replicate; ``system`` and ``topic`` name the columns playing them, as in
    ``fm.count``.
    """
    if isinstance(replicates, bool) or not isinstance(replicates, (int, np.integer)) or replicates < 1:
        raise ParameterError(f"replicates must be a positive integer; got {replicates!r}.")
    rng = rng_of(seed)
    src = open_source(source, format=format)
    check_roles(src.column_names, src.names[0], system, topic)
    options = dict(by=by, system=system, topic=topic, pred=pred, gold_column=gold_column, item=item)
    return _split_halves(src, gold, rng, replicates, missing, task, classes, options)


def _split_halves(src, gold, rng, replicates, missing, task, classes, options):
    item = options["item"]
    count_plan = plan(src, gold, missing=missing, task=task, classes=classes, **options)
    if count_plan.mode != "hard":
        raise InputError(
            "Split-half stability needs hard predictions (a 'pred' column) of binary or multiclass labels."
        )
    require_columns(src.column_names, [item], src.names[0], " for split halves")
    tally = Tally(count_plan, keep_rows=True)
    try:
        for part, offset, batch in src.record_batches(count_plan.read_columns):
            tally.add(batch, part, offset)
    except DuplicateItem as error:
        raise error.located(src) from None
    whole = assemble(tally)
    group, gold_codes, pred_codes, items = (np.concatenate(column) for column in zip(*tally.kept))
    extra = missing_rows(tally) if count_plan.join is not None else None
    if extra is not None:
        group = np.concatenate([group, extra[0]])
        gold_codes = np.concatenate([gold_codes, extra[1]])
        pred_codes = np.concatenate([pred_codes, np.zeros(extra[0].size, np.int64)])
        items = np.concatenate([items, extra[2]])
    keys, item_codes = np.unique(items, return_inverse=True)
    item_topic = _item_topics(count_plan, tally, keys)
    half = half_assignment(item_topic, int(item_topic.max()) + 1, int(replicates), rng)
    first = _first_halves(group, gold_codes, pred_codes, item_codes, half, count_plan)
    full = tally.acc.reshape(count_plan.sizes + (count_plan.m, count_plan.m))
    keep = kept_labels(count_plan, full.any(axis=(-2, -1)))
    coords = {c: labels_to_numpy(count_plan.encoders[c].labels) for c in count_plan.axes}
    first, coords = compact(count_plan, first, keep, coords, lead=1)
    full, _ = compact(count_plan, full, keep, dict(coords))
    counts = np.stack([first, full[None] - first], axis=1)
    axes = ("replicate", "half") + count_plan.axes
    halves = ConfusionTensor(
        counts, axes, {**coords, "replicate": np.arange(replicates), "half": np.array([0, 1])}, classes=whole.classes
    )
    return halves.sum(list(count_plan.hidden)) if count_plan.hidden else halves


def _item_topics(count_plan, tally, keys):
    """The topic code of each item key (halves are drawn per topic)."""
    if count_plan.join is not None:
        return count_plan.join.topic_codes[keys].astype(np.int64)
    return keys // tally.n_keys


def _first_halves(group, gold_codes, pred_codes, item_codes, half, count_plan):
    """counts[replicate, group..., m, m] of the rows whose item is in half 0."""
    order = np.argsort(group, kind="stable")
    n_groups = count_plan.n_groups
    group_start = np.searchsorted(group[order], np.arange(n_groups + 1)).astype(np.int64)
    m = count_plan.m
    first = np.zeros((half.shape[0], n_groups, m, m), np.int64)
    _half_counts(
        group_start,
        gold_codes[order].astype(np.int64),
        pred_codes[order].astype(np.int64),
        item_codes[order].astype(np.int64),
        half,
        first,
    )
    return first.reshape((half.shape[0],) + count_plan.sizes + (m, m))
