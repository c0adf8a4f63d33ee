"""A separate gold's string items indexed by topic, for the join of runs by (topic, item).

A run row joins the gold row judging its (topic, item). Coding the run's item strings first and
looking the codes up in a (topic, item) table makes two random reads per row over structures the
size of the whole gold -- tens of MB for a large qrels, out of every cache -- and the coding
itself a hash look-up among every distinct item. Runs list their rows topic by topic, so the
gold's items are instead hashed into one table *per topic* (one array, each topic a region of
its own, at a load of at most 1/4 -- 1/2 for a gold of more than 4M rows --, each slot a gold
row and 31 bits of its item's hash): a row's item is hashed
(:func:`fastmetrics._strings.string_hash`) and looked up in its topic's region alone, a few KB
that stay in cache while the run stays on the topic. The gold's items are compared where the
gold holds them (a qrels file lists a topic's items together, so they are near each other too).
Rows in any order give the same gold rows; only the speed depends on the order.

A probe that runs long (:func:`fastmetrics._strings.long_probe`) while the index is built gives
its topic a region twice as large, up to eight times the first.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np
import pyarrow as pa
from numba import njit

from .. import _memory, _strings, _threads
from ._codes import row_codes, run_codes, run_of
from ._marks import atomic_or, mark_key


@dataclass
class GoldIndex:
    """The gold's items by topic, read in the gold's own buffers.

    A string_view gold is read in its cast to large_string.
    """

    base: np.ndarray  # int64 [n_topics + 1]: topic t's region is slots[base[t]:base[t + 1]]
    slots: np.ndarray  # int64 tagged gold row (see _tag), -1 for an empty slot
    offsets: np.ndarray  # int64 [n_gold + 1]: gold row r's item is data[offsets[r]:offsets[r + 1]]
    data: np.ndarray  # uint8


def is_string(data_type: pa.DataType) -> bool:
    """Whether items of this type are looked up in a :class:`GoldIndex` (plain strings)."""
    return pa.types.is_string(data_type) or pa.types.is_large_string(data_type) or pa.types.is_string_view(data_type)


_SPREAD_ROWS = 1 << 22  # gold rows up to which the index has 4 slots an item (8 bytes each)
MOST_ROWS = (1 << 31) - 1  # a slot holds a gold row in 31 bits: a larger gold takes the coded path
_ROW_BITS = np.int64(31)
_ROW = np.int64(MOST_ROWS)


@njit(cache=True, nogil=True, inline="always")
def _tag(h):
    """The 31 high bits of a hash, stored in a slot beside the gold row: a slot whose tag differs
    is passed over without comparing its row's item (a load a probe, and the branch on it)."""
    return np.int64(h >> np.uint64(33))


@njit(cache=True, nogil=True)
def _fill(base, slots, starts, order, hashes, sizes, bounded, offsets, data):
    """Put each topic's gold rows (``order[starts[t]:starts[t + 1]]``) in its region. Returns
    ``(topic, row)``: a topic whose probe ran long while ``bounded[topic]`` (else -1), and a row
    whose item its topic has already (else -1)."""
    for t in range(starts.size - 1):
        mask = np.uint64(sizes[t] - 1)
        for k in range(starts[t], starts[t + 1]):
            row = order[k]
            s = hashes[row] & mask
            steps = 0
            other = slots[base[t] + np.int64(s)]
            other = other if other < 0 else other & _ROW
            while other >= 0:
                if hashes[other] == hashes[row] and _strings.same_bytes(
                    data, offsets[row], offsets[row + 1], data, offsets[other], offsets[other + 1]
                ):
                    return -1, row
                s = (s + np.uint64(1)) & mask
                steps += 1
                other = slots[base[t] + np.int64(s)]
                other = other if other < 0 else other & _ROW
            if bounded[t] and _strings.long_probe(steps, sizes[t]):
                return t, -1
            slots[base[t] + np.int64(s)] = (_tag(hashes[row]) << _ROW_BITS) | row
    return -1, -1


def build(topics: np.ndarray, n_topics: int, items: pa.Array) -> GoldIndex | None:
    """Index the gold's ``items`` (strings, no nulls) by their ``topics`` codes (``0 <= t < n_topics``).

    Parameters
    ----------
    topics : ndarray of int64
        Each gold row's topic code (all 0 for a join on the item alone).
    n_topics : int
    items : pyarrow.Array
        Each gold row's item, a string type without nulls.

    Returns
    -------
    GoldIndex or None
        None when the gold judges a (topic, item) twice (for the caller to name it).
    """
    order = np.argsort(topics, kind="stable")
    counts = np.bincount(topics, minlength=n_topics).astype(np.int64)
    starts = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    if pa.types.is_string_view(items.type):
        items = items.cast(pa.large_string())
    # the gold's items are read where they are; the index's arrays are views of blocks kept for
    # the next call (fastmetrics._memory.empty): a loop joining run after run to one gold builds
    # it each time into pages already mapped
    given, data = _strings.string_buffers(items)
    offsets = given
    if given.dtype != np.int64:  # one type of offsets for the kernels (a string gold's are int32)
        offsets = _memory.empty(given.size, np.int64)
        offsets[:] = given
    hashes = _memory.empty(order.size, np.uint64)
    _strings.hashes_of(offsets, data, hashes)
    sizes = np.ones(n_topics, np.int64)
    # the least power of two at least four times the topic's items (a load of at most 1/4: a
    # look-up's first slot is its item's three times in four, where at 1/2 a second probe's
    # branch, mispredicted, cost a tenth of the join), twice for a gold too large for that
    spread = 4 if order.size <= _SPREAD_ROWS else 2
    while (sizes < spread * counts).any():
        sizes = np.where(sizes < spread * counts, 2 * sizes, sizes)
    largest = 8 * sizes
    while True:
        base = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
        slots = _memory.empty(int(base[-1]), np.int64)
        slots.fill(-1)
        long, twice = _fill(base, slots, starts, order, hashes, sizes, sizes < largest, offsets, data)
        if twice >= 0:
            return None
        if long < 0:
            break
        sizes[long] *= 2
    return GoldIndex(base, slots, offsets, data)


@njit(cache=True, nogil=True)
def _group_runs(n, a, b, stride_a, starts, groups, err):
    """Write the first row of each run of rows of one group to ``starts`` and its group code to
    ``groups``; return the number of runs, or -1 after noting a row whose group is outside the plan."""
    runs = 0
    s = 0
    while s < n:
        e, g = run_of(a, b, stride_a, s, n, err)
        if g < 0:
            return -1
        if runs == 0 or g != groups[runs - 1]:
            starts[runs], groups[runs] = s, g
            runs += 1
        s = e
    return runs


# rows a run's look-ups are made in at a time: their candidates first, then their comparisons
_BLOCK = 32


@njit(cache=True, nogil=True, inline="always")
def _tagged(data, a0, a1, slots, lo, mask):
    """The gold row of the first slot whose tag is the item's, or -1 (its bytes not compared)."""
    h = _strings.string_hash(data, a0, a1)
    s = h & mask
    tag = _tag(h)
    slot = slots[lo + np.int64(s)]
    while slot >= 0 and (slot >> _ROW_BITS) != tag:
        s = (s + np.uint64(1)) & mask
        slot = slots[lo + np.int64(s)]
    return slot & _ROW if slot >= 0 else np.int64(-1)


@njit(cache=True, nogil=True)
def _look_up(data, a0, a1, slots, lo, mask, g_offsets, g_data):
    """The gold row whose item is ``data[a0:a1]``, or -1: every slot of the item's tag compared."""
    h = _strings.string_hash(data, a0, a1)
    s = h & mask
    tag = _tag(h)
    slot = slots[lo + np.int64(s)]
    while slot >= 0:
        k = slot & _ROW
        if (slot >> _ROW_BITS) == tag and _strings.same_bytes(data, a0, a1, g_data, g_offsets[k], g_offsets[k + 1]):
            return k
        s = (s + np.uint64(1)) & mask
        slot = slots[lo + np.int64(s)]
    return np.int64(-1)


@njit(cache=True, nogil=True)
def _join_runs(first, last, runs, items, index, topic_stride, n_topics, classes, out, seen, n_gold, private):
    """Join the rows of runs ``first:last`` (taken in the order given: topic by topic), writing
    each row's class (and its gold row, unless ``rows`` is empty) and marking its (run, gold row)
    in ``seen``. Returns whether a mark was set before (a duplicated item), and the first row the
    gold lacks (``row_classes.size`` when none does).

    The rows are taken :data:`_BLOCK` at a time: each row's candidate first (the first slot of its
    item's tag), then each candidate's bytes compared, a row whose candidate differs looked up
    again in full (a slot passed on the probe holds another item of the same 31 bits of tag about
    once in 2**33 look-ups at a load of 1/4).
    Compared as it was found, each row's look-up was one chain of loads -- slot, the gold row's
    offsets, its bytes -- that the next row's waited behind: 8-11 % slower (one thread, 2M rows).

    Another thread marks the same bitmap. With ``private``, no other thread takes a run these
    take, so the bytes of a run's marks are this call's alone but the first and the last (shared
    with the runs either side), marked atomically; the others are read and written as plain
    bytes. Otherwise every mark is atomic (a ``lock`` instruction, several times the cost).
    """
    starts, stops, groups = runs
    offsets, data = items
    base, slots, g_offsets, g_data = index
    rows, row_classes = out
    twice = False
    first_missing = row_classes.size
    found = np.empty(_BLOCK, np.int64)
    for q in range(first, last):
        g = groups[q]
        t = (g // topic_stride) % n_topics if topic_stride > 0 else 0
        run = (g // (topic_stride * n_topics)) * topic_stride + g % topic_stride if topic_stride > 0 else g
        lo = base[t]
        mask = np.uint64(base[t + 1] - lo - 1)
        # the run's first and last bytes of marks, which the runs either side share
        shared_lo, shared_hi = (run * n_gold) >> 3, ((run + 1) * n_gold - 1) >> 3
        for r0 in range(starts[q], stops[q], _BLOCK):
            r1 = min(r0 + _BLOCK, stops[q])
            for r in range(r0, r1):
                found[r - r0] = _tagged(data, np.int64(offsets[r]), np.int64(offsets[r + 1]), slots, lo, mask)
            for r in range(r0, r1):
                a0, a1 = np.int64(offsets[r]), np.int64(offsets[r + 1])
                row = found[r - r0]
                if row >= 0 and not _strings.same_bytes(data, a0, a1, g_data, g_offsets[row], g_offsets[row + 1]):
                    row = _look_up(data, a0, a1, slots, lo, mask, g_offsets, g_data)
                if rows.size:
                    rows[r] = row
                if row < 0:
                    row_classes[r] = 0
                    first_missing = min(first_missing, r)
                    continue
                row_classes[r] = classes[row]
                if seen.size:
                    key = run * n_gold + row
                    at = key >> 3
                    bit = np.uint8(1 << (key & 7))
                    if private and at != shared_lo and at != shared_hi:
                        before = seen[at]
                        seen[at] = before | bit
                    else:
                        before = atomic_or(seen, at, bit)
                    twice |= (before & bit) != 0
    return twice, first_missing


def join(join_index: GoldIndex, items: pa.Array, a, b, stride_a, plan_topics, classes, seen, n_gold, err, rows=True):
    """Join a batch's rows to the gold by (topic, item) on the threads, marking each (run, gold row).

    The rows' runs of one group are taken topic by topic (see :func:`_topic_by_topic`): every
    system's rows of a topic then meet the topic's region of the index while it is in cache.

    Parameters
    ----------
    join_index : GoldIndex
    items : pyarrow.Array
        The batch's items, a string type without nulls.
    a, b, stride_a
        The batch's grouping columns as the counting kernels read them.
    plan_topics : (int, int)
        Where the topic code sits in a group code (:meth:`CountPlan.topic_stride`).
    classes : ndarray
        The gold class code of each gold row.
    seen : ndarray of uint8
        The (run, gold row) bitmap (empty: nothing is marked).
    n_gold : int
    err : ndarray of int64
        ``[N_KINDS]``, -1 filled: a row whose grouping value is outside the plan is noted there,
        and None returned.
    rows : bool
        Whether to return each row's gold row; without them the join writes and reads less.

    Returns
    -------
    (rows, row_classes, first_twice, first_missing) or None
        The gold row of each row (None unless asked for), its class as int32, the first row whose
        (run, gold row) was marked before -- a duplicated item -- or -1, and the first row the
        gold lacks, or -1. When a row is missing, nothing else is settled: ``rows`` (if any) has
        -1 there, ``first_twice`` is -1 and some marks may be set.
    """
    topic_stride, n_topics = plan_topics
    if pa.types.is_string_view(items.type):
        items = items.cast(pa.large_string())
    offsets, data = _strings.string_buffers(items)
    n = len(items)
    if n == 0:
        return (np.zeros(0, np.int64) if rows else None), np.zeros(0, np.int32), -1, -1
    # a batch's arrays from the blocks kept for the next call (fastmetrics._memory.empty): fresh
    # arrays had their pages faulted in again at every call, a cost that varied with the process
    starts, groups = _memory.empty(n + 1, np.int64), _memory.empty(n, np.int64)
    runs = _group_runs(n, a, b, stride_a, starts, groups, err)
    if runs < 0:
        return None
    starts[runs] = n
    stops = starts[1 : runs + 1].copy()
    starts, groups = starts[:runs], groups[:runs]
    # a copy to put back should an item be marked twice (the first such row is then found serially);
    # a bitmap much larger than the batch is marked serially instead
    shared = seen if seen.size <= 4 * n else np.zeros(0, np.uint8)
    before = shared.copy()
    pieces = max(1, min(4 * numba.get_num_threads(), n >> 15))
    if 1 < runs <= n // 8:  # rows in runs: the runs topic by topic, each topic's in input order
        (starts, stops, groups), cuts, private = _topic_by_topic(starts, stops, groups, plan_topics, pieces)
    else:
        cuts, private = _cuts_by_rows(starts, stops, pieces), pieces == 1
    # the gold rows only where they are asked for, or marked after (each row's 8 bytes written
    # and read again: a fifth of the join's memory traffic)
    serial = bool(seen.size and not shared.size)
    out = (_memory.empty(n if rows or serial else 0, np.int64), _memory.empty(n, np.int32))
    arrays = (join_index.base, join_index.slots, join_index.offsets, join_index.data)
    common = ((starts, stops, groups), (offsets, data), arrays, topic_stride, n_topics, classes, out, shared, n_gold)
    calls = [(cuts[c], cuts[c + 1], *common, private) for c in range(cuts.size - 1)]
    results = _threads.on_threads(_join_runs, calls)
    first_missing = min(missing for _, missing in results)
    first_twice = -1
    if first_missing < n:
        return (out[0] if out[0].size else None), out[1], first_twice, first_missing
    if any(twice for twice, _ in results) or serial:
        shared[:] = before
        if not out[0].size:  # a duplicated item: the rows joined again, to find the first
            out = (_memory.empty(n, np.int64), out[1])
            _threads.on_threads(_join_runs, [(*call[:8], out, np.zeros(0, np.uint8), *call[10:]) for call in calls])
        first_twice = mark_gold_rows(n, a, b, stride_a, topic_stride, n_topics, out[0], seen, n_gold, err)
    return (out[0] if rows else None), out[1], first_twice, -1


def _topic_by_topic(starts, stops, groups, plan_topics, pieces: int):
    """The runs of rows in the order the threads join them, the cuts between the threads'
    pieces, and whether each piece holds runs of its own.

    Each piece takes its runs topic by topic (each topic's in input order), so that all the
    systems' rows of a topic meet its region of the index while it is in cache. With several runs
    a thread, a piece takes whole runs (systems): its marks are then its own, and need no atomic
    operation (see :func:`_join_runs`); with fewer, the pieces are cut by rows alone, every mark atomic.
    """
    topic_stride, n_topics = plan_topics
    by_topic = (groups // topic_stride) % n_topics if topic_stride > 0 else np.zeros(groups.size, np.int64)
    sizes = stops - starts
    run_ids, run_of = np.unique(run_codes(groups, topic_stride, n_topics), return_inverse=True)
    threads = numba.get_num_threads()
    if pieces == 1 or run_ids.size < 2 * threads:
        order = np.argsort(by_topic, kind="stable")
        starts, stops, groups = starts[order], stops[order], groups[order]
        return (starts, stops, groups), _cuts_by_rows(starts, stops, pieces), pieces == 1
    # one piece a thread (with more, each topic's region came into cache once a piece: slower,
    # measured), of whole runs near equal in rows: a run goes to the piece its middle row falls in
    rows_of_run = np.bincount(run_of, weights=sizes, minlength=run_ids.size)
    middle = np.cumsum(rows_of_run) - rows_of_run / 2
    pieces = threads
    piece_of_run = np.minimum((middle * pieces / sizes.sum()).astype(np.int64), pieces - 1)
    piece = piece_of_run[run_of]
    order = np.lexsort((by_topic, piece))
    cuts = np.flatnonzero(np.diff(piece[order])) + 1
    cuts = np.concatenate([[0], cuts, [groups.size]]).astype(np.int64)
    return (starts[order], stops[order], groups[order]), cuts, True


def _cuts_by_rows(starts, stops, pieces: int) -> np.ndarray:
    """Cuts between runs of rows, ``pieces`` pieces of near equal rows (fewer when runs are long)."""
    ends = np.cumsum(stops - starts)
    cuts = np.unique(np.searchsorted(ends, np.arange(1, pieces) * (ends[-1] / pieces)))
    return np.concatenate([[0], cuts[(cuts > 0) & (cuts < starts.size)], [starts.size]]).astype(np.int64)


@njit(cache=True)
def mark_gold_rows(n, a, b, stride_a, topic_stride, n_topics, rows, seen, n_gold, err):
    """Mark each row's (run, gold row) in ``seen``; return the first row marked before, or -1.

    A row marked before is a duplicated item. A run is the group code without its topic digit;
    rows the gold lacks (-1) are skipped, and an empty ``seen`` marks nothing."""
    if seen.size == 0:
        return -1
    for r in range(n):
        row = rows[r]
        if row < 0:
            continue
        g, _ = row_codes(a, b, stride_a, (0,), r, err)
        if g < 0:
            return -1
        run = (g // (topic_stride * n_topics)) * topic_stride + g % topic_stride if topic_stride > 0 else g
        if not mark_key(seen, run * n_gold + row):
            return r
    return -1
