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


@njit(cache=True)
def _by_group(group, gold, pred, item, m, n_groups):
    """Counting sort of the rows by group: (group starts, cell ``gold * m + pred``, item), stable."""
    n = group.size
    start = np.zeros(n_groups + 1, np.int64)
    for k in range(n):
        start[group[k] + 1] += 1
    for g in range(n_groups):
        start[g + 1] += start[g]
    at = start[:-1].copy()
    cell = np.empty(n, np.int32)
    items = np.empty(n, np.int64)
    for k in range(n):
        g = group[k]
        p = at[g]
        at[g] = p + 1
        cell[p] = gold[k] * m + pred[k]
        items[p] = item[k]
    return start, cell, items


@njit(cache=True, parallel=True)
def _half_block(group_start, cell, item, chosen, out):
    """out[g, c, r] += rows of group g in cell c whose item is in half 0 of replicate r
    (``chosen[item, r]`` is 1)."""
    n_groups = group_start.size - 1
    block = chosen.shape[1]
    for g in prange(n_groups):
        acc = out[g]
        for k in range(group_start[g], group_start[g + 1]):
            row = chosen[item[k]]
            a = acc[cell[k]]
            # replicates innermost: one contiguous row of bytes per item, added as vectors
            for r in range(block):
                a[r] += row[r]


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


# count entries (2 halves x replicates x groups x m x m) of one block: bounds the memory of a job
BLOCK_ENTRIES = 1 << 23


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
    ``fm.count``. :func:`split_halves` gives the same counts a block of replicates at a time.
    """
    options = dict(by=by, system=system, topic=topic, pred=pred, gold_column=gold_column, item=item)
    halving = split_halves(
        source,
        gold,
        replicates=replicates,
        seed=seed,
        missing=missing,
        task=task,
        classes=classes,
        format=format,
        **options,
    )
    return halving.block(0, halving.replicates)


def split_halves(source, gold=None, *, replicates: int = 500, seed: int = 0, format="auto", **options) -> Halving:
    """Read the rows once and draw the halves; the counts come a block of replicates at a time.

    Parameters are those of :func:`split_half_counts`; ``Halving.blocks()`` yields the same
    tensors as ``split_half_counts`` cut along ``replicate``, in bounded memory.
    """
    if isinstance(replicates, bool) or not isinstance(replicates, (int, np.integer)) or replicates < 1:
        raise ParameterError(f"replicates must be a positive integer; got {replicates!r}.")
    rng = rng_of(seed)
    src = open_source(source, format=format)
    roles = {k: options.get(k, k) for k in ("system", "topic")}
    check_roles(src.column_names, src.names[0], roles["system"], roles["topic"])
    count = {k: options.pop(k) for k in ("missing", "task", "classes") if k in options}
    return Halving(_kept_rows(src, gold, count, options), rng, int(replicates))


def _kept_rows(src, gold, count, options):
    """The tally of every row, kept (group, gold, pred, item), and the plan's whole counts."""
    count_plan = plan(src, gold, **count, **options)
    if count_plan.mode != "hard":
        raise InputError(
            "Split-half stability needs hard predictions (a 'pred' column) of binary or multiclass labels."
        )
    item = count_plan.request.item
    require_columns(src.column_names, [item], src.names[0], " for split halves")
    tally = Tally(count_plan, keep_rows=True)
    try:
        for part, offset, batch in src.record_batches(count_plan.read_columns):
            tally.add(batch, part, offset)
    except DuplicateItem as error:
        raise error.located(src) from None
    return tally


class Halving:
    """The kept rows sorted by group and the halves of every replicate (``half[r, item]``)."""

    def __init__(self, tally, rng, replicates: int):
        count_plan = self.plan = tally.plan
        self.replicates = replicates
        self.whole = assemble(tally)
        group, gold_codes, pred_codes, items = (np.concatenate(column) for column in zip(*tally.kept))
        extra = missing_rows(tally) if count_plan.join is not None else None
        if extra is not None:
            group = np.concatenate([group, extra[0]])
            gold_codes = np.concatenate([gold_codes, extra[1]])
            pred_codes = np.concatenate([pred_codes, np.zeros(extra[0].size, np.int64)])
            items = np.concatenate([items, extra[2]])
        keys, item_codes = dense_codes(items)
        item_topic = _item_topics(count_plan, tally, keys)
        self.half = half_assignment(item_topic, int(item_topic.max()) + 1, replicates, rng)
        m = count_plan.m
        as64 = lambda a: a.astype(np.int64, copy=False)  # noqa: E731
        self.rows = _by_group(as64(group), as64(gold_codes), as64(pred_codes), item_codes, m, count_plan.n_groups)
        full = tally.acc.reshape(count_plan.sizes + (m, m))
        self.keep = kept_labels(count_plan, full.any(axis=(-2, -1)))
        coords = {c: labels_to_numpy(count_plan.encoders[c].labels) for c in count_plan.axes}
        self.labels = coords
        self.full, self.coords = compact(count_plan, full, self.keep, coords)

    def block_size(self) -> int:
        """Replicates a block: about ``BLOCK_ENTRIES`` count entries, at least one replicate."""
        per = 2 * self.plan.n_groups * self.plan.m**2
        return max(1, min(self.replicates, BLOCK_ENTRIES // max(per, 1)))

    def blocks(self, size: int | None = None):
        """Yield the counts of replicates ``[lo, lo + size)`` in turn (see :meth:`block`)."""
        size = size or self.block_size()
        for lo in range(0, self.replicates, size):
            yield self.block(lo, min(lo + size, self.replicates))

    def block(self, lo: int, hi: int) -> ConfusionTensor:
        """``counts[replicate, half, ...axes, m, m]`` of replicates ``lo`` to ``hi - 1``."""
        count_plan, m = self.plan, self.plan.m
        group_start, cell, item = self.rows
        chosen = np.ascontiguousarray((self.half[lo:hi] == 0).T).view(np.uint8)
        out = np.zeros((count_plan.n_groups, m * m, hi - lo), np.int32)
        _half_block(group_start, cell, item, chosen, out)
        first = out.transpose(2, 0, 1).reshape((hi - lo,) + count_plan.sizes + (m, m)).astype(np.int64)
        first, _ = compact(count_plan, first, self.keep, self.labels, lead=1)
        counts = np.stack([first, self.full[None] - first], axis=1)
        coords = {**self.coords, "replicate": np.arange(lo, hi), "half": np.array([0, 1])}
        axes = ("replicate", "half") + count_plan.axes
        halves = ConfusionTensor(counts, axes, coords, classes=self.whole.classes)
        return halves.sum(list(count_plan.hidden)) if count_plan.hidden else halves


def dense_codes(keys: np.ndarray):
    """``np.unique(keys, return_inverse=True)`` in O(n) when the keys are small non-negative ints."""
    if keys.size == 0 or keys.min() < 0 or keys.max() > 4 * keys.size + 4096:
        distinct, codes = np.unique(keys, return_inverse=True)
        return distinct, codes.reshape(-1).astype(np.int64)
    mark = np.zeros(int(keys.max()) + 1, bool)
    mark[keys] = True
    rank = np.cumsum(mark, dtype=np.int64) - 1
    return np.flatnonzero(mark), rank[keys]


def _item_topics(count_plan, tally, keys):
    """The topic code of each item key (halves are drawn per topic)."""
    if count_plan.join is not None:
        return count_plan.join.topic_codes[keys].astype(np.int64)
    return keys // tally.n_keys
