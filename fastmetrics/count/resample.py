"""Resampled counting: split-half replicates (Steingold & Laclavík n.d., §5), a block of replicates at a time.

Each replicate splits the items of every topic at random into two halves of sizes
``floor(n/2)`` and ``ceil(n/2)``; the same split applies to every system, so the halves are two
test sets the systems share; how they are drawn from the seed is :mod:`fastmetrics.count.draws`.
The rows are read once, in the pass that counts them. Binary hard labels are kept as item bit
masks of each group (:mod:`fastmetrics.count.itemmasks`) and a half's counts are popcounts of
them and the half's mask. Other inputs keep their rows as (cell, item) sorted by group (a
counting sort) and the halves one byte an (item, replicate): :func:`half_block` walks each
group's rows once per block of replicates and adds the item's bytes of the whole block to the
row's cell (replicates innermost, so the additions are vectors). Either way half 1 is the group
total minus half 0, and the halves of a block are drawn when it is counted. A job that reduces
each block (:func:`fastmetrics.meta.stability`) holds the counts of one block at a time.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from .._errors import InputError, ParameterError
from .._seeding import seed_key
from .._threads import on_threads
from ..io.labels import require_columns
from ..io.source import open_source
from ..tensor import ConfusionTensor
from .api import check_roles
from .assemble import assemble, compact, kept_labels, labels_to_numpy
from .draws import half_bytes
from .itemmasks import ItemMasks
from .plan import plan
from .tally import DuplicateItem, Tally, missing_rows


@njit(cache=True)
def _group_sizes(group, start):
    """``start[g + 1] += `` rows of group ``g`` (a counting sort's first pass)."""
    for k in range(group.size):
        start[group[k] + 1] += 1


@njit(cache=True)
def _place(group, gold, pred, keys, place, m, at, cell, items):
    """Put each row at its group's next place (``at``): its cell ``gold * m + pred`` and its
    item's place among the distinct items (``place[key]``)."""
    for k in range(group.size):
        g = group[k]
        p = at[g]
        at[g] = p + 1
        cell[p] = gold[k] * m + pred[k]
        items[p] = place[keys[k]]


# rows a uint8 tally adds before it is widened into the counts (a byte holds 255)
_BYTE_ROWS = 255
# cells (m * m) up to which every cell is added into the counts after a chunk of rows, without
# looking for the ones its rows touched
_FLUSH_ALL = 16


@njit(cache=True, inline="always")
def _flush(tally, counts):
    """``counts += tally``, and the tally back to zero."""
    for r in range(tally.size):
        counts[r] += tally[r]
        tally[r] = 0


@njit(cache=True, nogil=True)
def half_block(group_start, cell, item, chosen, out):
    """Count the rows of each group and cell whose item is in half 0, replicates innermost.

    ``out[g, c, r]`` = rows of group g in cell c whose item is in half 0 of replicate r
    (``chosen[item, r]`` is 1); group ``g`` holds the rows ``group_start[g]:group_start[g + 1]``.

    Replicates are innermost: a row adds its item's contiguous bytes of the block as vectors. The
    bytes go into a uint8 tally, 32 a vector where int32 counts take 8 and a widening, and every
    255 rows (a byte's capacity) the tally is added into ``out``: every cell of a binary task,
    the cells those rows touched for more classes. Serial and without the GIL: callers spread
    ranges of groups over threads (:func:`fastmetrics._threads.on_threads`).
    """
    n_cells, block = out.shape[1], out.shape[2]
    tally = np.zeros((n_cells, block), np.uint8)
    # the chunk that last added a cell into out: a stamp instead of flags reset after each chunk
    stamp = np.full(n_cells, -1, np.int64)
    for g in range(group_start.size - 1):
        out[g] = 0
        for start in range(group_start[g], group_start[g + 1], _BYTE_ROWS):
            end = min(group_start[g + 1], start + _BYTE_ROWS)
            for k in range(start, end):
                c, i = cell[k], item[k]
                for r in range(block):
                    tally[c, r] += chosen[i, r]
            if n_cells <= _FLUSH_ALL:
                for c in range(n_cells):
                    _flush(tally[c], out[g, c])
                continue
            for k in range(start, end):
                c = cell[k]
                if stamp[c] != start:
                    stamp[c] = start
                    _flush(tally[c], out[g, c])


@njit(cache=True, parallel=True)
def _both_halves(first, totals, at, counts):
    """``counts[r, 0, g, c] = first[g, c, at + r]`` and ``counts[r, 1, g, c]`` the rest of the
    group's ``totals[g, c]``."""
    for g in prange(first.shape[0]):
        for c in range(first.shape[1]):
            for r in range(counts.shape[0]):
                v = first[g, c, at + r]
                counts[r, 0, g, c] = v
                counts[r, 1, g, c] = totals[g, c] - v


# count entries (2 halves x replicates x groups x m x m) of one block: bounds the memory of a job
BLOCK_ENTRIES = 1 << 23
# replicates the kernel counts a pass (enough to fill its vectors), and its output's entries at most
KERNEL_REPLICATES = 128
KERNEL_ENTRIES = 1 << 25


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
    """Read the rows once; the halves are drawn and counted a block of replicates at a time.

    Parameters are those of :func:`split_half_counts`; ``Halving.blocks()`` yields the same
    tensors as ``split_half_counts`` cut along ``replicate``, in bounded memory.
    """
    if isinstance(replicates, bool) or not isinstance(replicates, (int, np.integer)) or replicates < 1:
        raise ParameterError(f"replicates must be a positive integer; got {replicates!r}.")
    key = seed_key(seed)
    src = open_source(source, format=format)
    roles = {k: options.get(k, k) for k in ("system", "topic")}
    check_roles(src.column_names, src.names[0], roles["system"], roles["topic"])
    count = {k: options.pop(k) for k in ("missing", "task", "classes") if k in options}
    return Halving(*_read_rows(src, gold, count, options), key, int(replicates))


def _read_rows(src, gold, count, options):
    """The tally of every row (the plan's whole counts) and the rows kept for the halves: as
    item masks where they fit (:class:`ItemMasks`), else as :class:`KeptRows`."""
    return src.verified(lambda: _rows(src, gold, count, options))


def _rows(src, gold, count, options):
    count_plan = plan(src, gold, **count, **options)
    if count_plan.mode != "hard":
        raise InputError(
            "Split-half stability needs hard predictions (a 'pred' column) of binary or multiclass labels."
        )
    item = count_plan.request.item
    require_columns(src.column_names, [item], src.names[0], " for split halves")
    masks = ItemMasks(count_plan) if ItemMasks.fits(count_plan, src.count_rows()) else None
    tally = Tally(count_plan, keep_rows=masks is None)
    try:
        for part, offset, batch in src.record_batches(count_plan.read_columns):
            tally.add(batch, part, offset)
            if masks is not None:
                masks.add(batch, part)
    except DuplicateItem as error:
        raise error.located(src) from None
    if masks is None:
        return tally, KeptRows(tally)
    masks.finish()
    return tally, masks


class KeptRows:
    """Every row as (cell, item), sorted by group, with the items in the order of their keys.

    For the inputs :class:`ItemMasks` does not take (more classes, a separate gold, many
    items): the halves are one byte an (item, replicate), counted by :func:`half_block`.
    """

    def __init__(self, tally):
        count_plan = tally.plan
        pieces = list(tally.kept)
        extra = missing_rows(tally) if count_plan.join is not None else None
        if extra is not None:
            pieces.append((extra[0], extra[1], np.zeros(extra[0].size, np.int64), extra[2]))
        keys, place = item_ranks([piece[3] for piece in pieces])
        self.item_topic = _item_topics(count_plan, tally, keys)
        self.rows = _by_group(pieces, keys, place, count_plan)

    def halves(self, key, lo: int, hi: int) -> np.ndarray:
        """``chosen[item, r - lo]`` of replicates ``lo:hi`` (:func:`~fastmetrics.count.draws.half_bytes`)."""
        return half_bytes(key, self.item_topic, lo, hi)

    def count(self, chosen, g_lo: int, g_hi: int, out) -> None:
        """Half 0's cells of groups ``g_lo:g_hi`` (:func:`half_block`)."""
        group_start, cell, item = self.rows
        half_block(group_start[g_lo : g_hi + 1], cell, item, chosen, out)


class Halving:
    """The whole counts, the rows kept for the halves and the seed's key.

    The rows are :class:`ItemMasks` or :class:`KeptRows`; the halves of a block of replicates
    are drawn when it is counted.
    """

    def __init__(self, tally, rows, key: int, replicates: int):
        count_plan = self.plan = tally.plan
        self.replicates = replicates
        self.whole = assemble(tally)
        self.rows, self.key = rows, key
        self._buffer = None
        m = count_plan.m
        full = tally.acc.reshape(count_plan.sizes + (m, m))
        self.keep = kept_labels(count_plan, full.any(axis=(-2, -1)))
        coords = {c: labels_to_numpy(count_plan.encoders[c].labels) for c in count_plan.axes}
        self.labels = coords
        self.group_totals = full.reshape(count_plan.n_groups, m * m)
        self.full, self.coords = compact(count_plan, full, self.keep, coords)

    def block_size(self) -> int:
        """Replicates a block: about ``BLOCK_ENTRIES`` count entries, at least one replicate."""
        per = 2 * self.plan.n_groups * self.plan.m**2
        return max(1, min(self.replicates, BLOCK_ENTRIES // max(per, 1)))

    def blocks(self, size: int | None = None, dtype=np.int64):
        """Yield the counts of replicates ``[lo, lo + size)`` in turn (see :meth:`block`).

        The kernel counts up to ``KERNEL_REPLICATES`` replicates a pass (its inner loop runs over
        them), cut into blocks of ``size``.
        """
        size = size or self.block_size()
        per = self.plan.n_groups * self.plan.m**2
        step = max(size, min(KERNEL_REPLICATES, KERNEL_ENTRIES // max(per, 1)))
        for lo in range(0, self.replicates, step):
            hi = min(lo + step, self.replicates)
            first = self._first(lo, hi)
            for at in range(0, hi - lo, size):
                yield self._tensor(first, at, min(at + size, hi - lo), lo, dtype)

    def block(self, lo: int, hi: int, dtype=np.int64) -> ConfusionTensor:
        """``counts[replicate, half, ...axes, m, m]`` of replicates ``lo`` to ``hi - 1``.

        ``dtype=np.float64`` gives the same counts as floats (the measures' own type).
        """
        return self._tensor(self._first(lo, hi), 0, hi - lo, lo, dtype)

    def passes(self):
        """``(lo, hi)`` of each pass of up to ``KERNEL_REPLICATES`` replicates."""
        for lo in range(0, self.replicates, KERNEL_REPLICATES):
            yield lo, min(lo + KERNEL_REPLICATES, self.replicates)

    def pass_chosen(self, lo: int, hi: int):
        """Draw half 0 of replicates ``lo:hi`` (:mod:`fastmetrics.count.draws`) for :meth:`count_first`."""
        return self.rows.halves(self.key, lo, hi)

    def count_first(self, chosen, g_lo: int, g_hi: int, out) -> None:
        """Count half 0 of groups ``g_lo:g_hi`` into ``out`` for the replicates of ``chosen``.

        ``out[g - g_lo, cell, r]`` (int32): the half-0 counts of replicate ``r`` of ``chosen``
        (:meth:`pass_chosen`); half 1 is :attr:`group_totals` minus them. For jobs that reduce
        the halves in their own kernels, a range of groups per thread.
        """
        self.rows.count(chosen, g_lo, g_hi, out)

    def kept_groups(self, axes) -> np.ndarray:
        """Return the group of every combination of the kept labels of ``axes``, in that order.

        ``groups[i, j, ...]``: the group of the ``i``-th kept label of ``axes[0]``, the ``j``-th
        of ``axes[1]``, ... (an axis the plan lacks has one label), as :meth:`block` keeps them.
        """
        groups = np.arange(self.plan.n_groups, dtype=np.int64).reshape(self.plan.sizes)
        for i, c in enumerate(self.plan.axes):
            if c in self.keep:
                groups = np.compress(self.keep[c], groups, axis=i)
        order = [self.plan.axes.index(c) for c in axes if c in self.plan.axes]
        shape = [groups.shape[self.plan.axes.index(c)] if c in self.plan.axes else 1 for c in axes]
        return np.ascontiguousarray(groups.transpose(order).reshape(shape))

    def _first(self, lo, hi):
        """``first[group, cell, replicate]``: the half-0 counts (int32) of replicates ``lo:hi``, in
        the buffer every pass reuses."""
        n_groups, m = self.plan.n_groups, self.plan.m
        chosen = self.pass_chosen(lo, hi)
        size = n_groups * m * m * (hi - lo)
        # one buffer for every pass: fresh pages cost more to fault in than the kernel's additions
        if self._buffer is None or self._buffer.size < size:
            self._buffer = np.empty(size, np.int32)
        out = self._buffer[:size].reshape(n_groups, m * m, hi - lo)
        cuts = np.linspace(0, n_groups, min(n_groups, 64) + 1).astype(np.int64)
        on_threads(self.count_first, [(chosen, a, b, out[a:b]) for a, b in zip(cuts[:-1], cuts[1:])])
        return out

    def _tensor(self, first, a, b, lo, dtype):
        """The tensor of replicates ``a:b`` of ``first`` (replicate ``lo + a`` onwards)."""
        count_plan, m = self.plan, self.plan.m
        # C order: the measures run several times slower on the kernel's (replicates innermost)
        counts = np.empty((b - a, 2, count_plan.n_groups, m * m), dtype)
        _both_halves(first, self.group_totals, a, counts)
        counts = counts.reshape((b - a, 2) + count_plan.sizes + (m, m))
        counts, _ = compact(count_plan, counts, self.keep, self.labels, lead=2)
        replicates = np.arange(lo + a, lo + b)
        coords = {**self.coords, "replicate": replicates, "half": np.array([0, 1])}
        axes = ("replicate", "half") + count_plan.axes
        halves = ConfusionTensor(counts, axes, coords, classes=self.whole.classes)
        return halves.sum(list(count_plan.hidden)) if count_plan.hidden else halves


def item_ranks(items: list):
    """Return the distinct item keys of the pieces ``items`` (sorted) and a table of their places.

    ``place[key]`` (int32) is the key's place among the distinct keys when the keys are small,
    found in O(n) by a mark array; None when they are not (negative or far apart), and
    ``np.searchsorted(distinct, keys)`` places them.
    """
    low = min((int(i.min()) for i in items if i.size), default=0)
    top = max((int(i.max()) for i in items if i.size), default=-1)
    if low < 0 or top > 4 * sum(i.size for i in items) + 4096:
        return np.unique(np.concatenate(items)), None
    mark = np.zeros(top + 1, bool)
    for i in items:
        mark[i] = True
    place = (np.cumsum(mark, dtype=np.int64) - 1).astype(np.int32)
    return np.flatnonzero(mark), place


def _by_group(pieces, distinct, place, count_plan):
    """The rows of every piece in a counting sort by group: (group starts, cells, item places)."""
    n_groups = count_plan.n_groups
    start = np.zeros(n_groups + 1, np.int64)
    for piece in pieces:
        _group_sizes(piece[0], start)
    np.cumsum(start, out=start)
    at = start[:-1].copy()
    cell = np.empty(int(start[-1]), np.int32)
    items = np.empty(int(start[-1]), np.int32)
    identity = np.arange(distinct.size, dtype=np.int32) if place is None else None
    for group, gold_codes, pred_codes, keys in pieces:
        if place is None:
            _place(
                group, gold_codes, pred_codes, np.searchsorted(distinct, keys), identity, count_plan.m, at, cell, items
            )
        else:
            _place(group, gold_codes, pred_codes, keys, place, count_plan.m, at, cell, items)
    return start, cell, items


def _item_topics(count_plan, tally, keys):
    """The topic code of each item key (halves are drawn per topic)."""
    if count_plan.join is not None:
        return count_plan.join.topic_codes[keys].astype(np.int64)
    return keys // tally.n_keys
