"""The ranks sweep of string-keyed runs against a separate gold, on codes (TREC runs and qrels).

:func:`rank_sweep_of_strings` gives what :func:`fastmetrics.count.api.rank_sweep` gives -- each
(system, topic)'s items ranked by decreasing score, equal scores in input order, counted at every
rank -- for runs whose system, topic and item are strings and a gold with ``topic, item`` strings
and boolean labels, without a pyarrow sort, join or group-by. Each string is read once:

- runs and gold come grouped by topic (and the runs by system), so a row whose topic and system
  equal the previous row's joins its *segment* by a byte comparison, and only the first row of each
  segment is looked up (by Arrow, among a few thousand strings);
- each topic's items are hashed in a table of that topic alone (the gold's judged items, then every
  item a run returns; those the gold lacks become the topic's unjudged, non-relevant items), small
  enough to stay in cache, topics on every thread;
- each group's rows, already in decreasing score order in a run file, are counted at every rank in
  one pass (a stable sort first when they are not).

It returns None -- the general path then counts, and raises the error the input deserves -- for any
input it does not cover: other column types, non-finite scores, a duplicated item or gold line,
``unjudged="error"`` with unjudged items, ``missing="error"`` with missing ones, ``ties="item"``,
weights, given coordinates, other groupings.
"""

from __future__ import annotations

import numba
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from numba import njit

from .._threads import on_threads
from ..tensor import ConfusionTensor
from .plan import check_unique_gold

OK, DUPLICATE_GOLD, DUPLICATE_RUN, UNJUDGED = 0, 1, 2, 3
_FNV_OFFSET = np.uint64(0xCBF29CE484222325)
_FNV_PRIME = np.uint64(0x100000001B3)


def string_buffers(array: pa.Array):
    """``(offsets, data)`` numpy views of a string array (no nulls), offsets rebased to the data."""
    offsets_type = np.int64 if pa.types.is_large_string(array.type) else np.int32
    buffers = array.buffers()
    offsets = np.frombuffer(buffers[1], offsets_type)[array.offset : array.offset + len(array) + 1]
    data = np.zeros(1, np.uint8) if buffers[2] is None else np.frombuffer(buffers[2], np.uint8)
    return offsets, data


@njit(cache=True, inline="always")
def _same(off_a, data_a, i, off_b, data_b, j):
    n = off_a[i + 1] - off_a[i]
    if off_b[j + 1] - off_b[j] != n:
        return False
    a, b = off_a[i], off_b[j]
    for q in range(n):
        if data_a[a + q] != data_b[b + q]:
            return False
    return True


@njit(cache=True, inline="always")
def _hash(off, data, i):
    h = _FNV_OFFSET
    for q in range(off[i], off[i + 1]):
        h = (h ^ np.uint64(data[q])) * _FNV_PRIME
    return h ^ (h >> np.uint64(29))


@njit(cache=True, inline="always")
def _differs(off, data, r):
    """Whether string ``r`` differs from string ``r - 1``."""
    a0, a1, a2 = off[r - 1], off[r], off[r + 1]
    if a2 - a1 != a1 - a0:
        return True
    for q in range(a2 - a1):
        if data[a1 + q] != data[a0 + q]:
            return True
    return False


@njit(cache=True, nogil=True)
def _segment_chunk(off_a, data_a, off_b, data_b, two, r0, r1, starts, found, c):
    """Rows ``r0:r1`` where column a (and, with ``two``, b) differs from the previous row: written
    to ``starts[r0:]``, their number to ``found[c]``."""
    k = r0
    for r in range(r0, r1):
        if r == 0 or _differs(off_a, data_a, r) or (two and _differs(off_b, data_b, r)):
            starts[k] = r
            k += 1
    found[c] = k - r0


def segment_starts(off_a, data_a, off_b, data_b, two: bool) -> np.ndarray:
    """Rows where column a (and, with ``two``, column b) differs from the previous row, on the threads.

    Parameters
    ----------
    off_a, data_a, off_b, data_b : ndarray
        The columns' :func:`string_buffers`.
    two : bool
        Whether column b counts.

    Returns
    -------
    ndarray of int64
        The first row of each run of equal rows, increasing.
    """
    n = off_a.size - 1
    bounds = np.linspace(0, n, max(1, min(4 * numba.get_num_threads(), n >> 18)) + 1).astype(np.int64)
    starts = np.empty(n, np.int64)
    found = np.zeros(bounds.size - 1, np.int64)
    calls = [(off_a, data_a, off_b, data_b, two, bounds[c], bounds[c + 1], starts, found, c) for c in range(found.size)]
    on_threads(_segment_chunk, calls)
    return np.concatenate([starts[bounds[c] : bounds[c] + found[c]] for c in range(found.size)])


@njit(cache=True, nogil=True)
def _join_topics(
    t0,
    t1,
    gold_off,
    gold_data,
    gold_order,
    gold_start,
    gold_label,
    run_off,
    run_data,
    seg_start,
    seg_stop,
    seg_group,
    topic_segs,
    topic_rows,
    unjudged_error,
    relevant,
    n_items,
    n_relevant,
    status,
    c,
):
    """Join the items of topics ``t0:t1`` to the gold, each topic in a hash table of its own.

    ``relevant[row]`` gets each run row's label (0 for an unjudged item), ``n_items[t]`` and
    ``n_relevant[t]`` the topic's judged and unjudged items and its relevant ones. A problem stops
    the chunk with ``status[c]``: a gold item twice, a run's (system, topic) item twice, or an
    unjudged item under ``unjudged_error``.
    """
    most = 1
    for t in range(t0, t1):
        most = max(most, gold_start[t + 1] - gold_start[t] + topic_rows[t])
    size = 1
    while size < 2 * most:
        size *= 2
    slots = np.empty(size, np.int64)  # local item id + 1 (0 = empty), for the topic of the stamp
    stamp = np.full(size, -1, np.int64)
    seen = np.full(most, -1, np.int64)  # local item -> the last group that returned it
    new_rows = np.empty(most, np.int64)  # local item - judged -> the run row that brought it
    mask = np.uint64(size - 1)
    for t in range(t0, t1):
        judged = gold_start[t + 1] - gold_start[t]
        positives = 0
        for k in range(judged):
            g = gold_order[gold_start[t] + k]
            positives += gold_label[g]
            s = _hash(gold_off, gold_data, g) & mask
            while stamp[s] == t:
                other = gold_order[gold_start[t] + slots[s] - 1]
                if _same(gold_off, gold_data, g, gold_off, gold_data, other):
                    status[c, 0] = DUPLICATE_GOLD
                    status[c, 1] = g
                    return
                s = (s + np.uint64(1)) & mask
            stamp[s] = t
            slots[s] = k + 1
        items = judged
        for q in range(topic_segs[t], topic_segs[t + 1]):
            group = seg_group[q]
            for r in range(seg_start[q], seg_stop[q]):
                s = _hash(run_off, run_data, r) & mask
                local = -1
                while stamp[s] == t:
                    k = slots[s] - 1
                    if k < judged:
                        if _same(run_off, run_data, r, gold_off, gold_data, gold_order[gold_start[t] + k]):
                            local = k
                            break
                    elif _same(run_off, run_data, r, run_off, run_data, new_rows[k - judged]):
                        local = k
                        break
                    s = (s + np.uint64(1)) & mask
                if local < 0:
                    if unjudged_error:
                        status[c, 0] = UNJUDGED
                        status[c, 1] = r
                        return
                    local = items
                    new_rows[items - judged] = r
                    items += 1
                    stamp[s] = t
                    slots[s] = local + 1
                    relevant[r] = 0
                else:
                    relevant[r] = gold_label[gold_order[gold_start[t] + local]] if local < judged else 0
                if seen[local] == group:
                    status[c, 0] = DUPLICATE_RUN
                    status[c, 1] = r
                    return
                seen[local] = group
        # the local ids of the next topic start at 0 again: forget this topic's groups
        for k in range(items):
            seen[k] = -1
        n_items[t] = items
        n_relevant[t] = positives


@njit(cache=True, nogil=True)
def _count_groups(
    g0,
    g1,
    group_segs,
    seg_start,
    seg_stop,
    group_out,
    group_topic,
    score,
    relevant,
    n_items,
    n_relevant,
    drop,
    counts,
    rank,
):
    """Counts at every rank of groups ``g0:g1``: rows by decreasing score, ties in input order."""
    for g in range(g0, g1):
        n = group_out[g + 1] - group_out[g]
        rows = np.empty(n, np.int64)
        i = 0
        for q in range(group_segs[g], group_segs[g + 1]):
            for r in range(seg_start[q], seg_stop[q]):
                rows[i] = r
                i += 1
        ordered = True
        for i in range(1, n):
            if score[rows[i]] > score[rows[i - 1]]:
                ordered = False
                break
        if not ordered:
            keys = np.empty(n, np.float64)
            for i in range(n):
                keys[i] = -score[rows[i]]
            rows = rows[np.argsort(keys, kind="mergesort")]
        if drop:
            total, positives = n, 0
            for i in range(n):
                positives += relevant[rows[i]]
        else:
            total, positives = n_items[group_topic[g]], n_relevant[group_topic[g]]
        tp = 0
        o = group_out[g]
        for i in range(n):
            tp += relevant[rows[i]]
            fp = i + 1 - tp
            counts[o + i, 1, 1] = tp
            counts[o + i, 1, 0] = positives - tp
            counts[o + i, 0, 1] = fp
            counts[o + i, 0, 0] = total - positives - fp
            rank[o + i] = i + 1


def _string(array) -> pa.Array | None:
    array = array.combine_chunks() if isinstance(array, pa.ChunkedArray) else array
    if array.null_count or not (pa.types.is_string(array.type) or pa.types.is_large_string(array.type)):
        return None
    return array


def _chunks(sizes: np.ndarray, parts: int) -> np.ndarray:
    """Bounds splitting ``sizes`` into about ``parts`` runs of equal sums."""
    ends = np.cumsum(sizes)
    total = int(ends[-1]) if ends.size else 0
    bounds = np.searchsorted(ends, np.arange(1, parts) * (total / parts), "right")
    return np.unique(np.concatenate([[0], bounds, [sizes.size]])).astype(np.int64)


def rank_sweep_of_strings(runs: pa.Table, gold: pa.Table, *, missing: str, unjudged: str):
    """The ranks sweep of ``runs`` (``system, topic, item, score``) against ``gold``, or None.

    Parameters
    ----------
    runs : pyarrow.Table
        ``system, topic, item`` strings and a float64 ``score``, in input order.
    gold : pyarrow.Table
        ``topic, item`` strings and a boolean ``gold``.
    missing : {"error", "negative", "drop"}
    unjudged : {"error", "negative"}

    Returns
    -------
    ConfusionTensor or None
        ``counts[cell, 2, 2]`` with per-cell ``system, topic, rank``, equal to the general path's;
        None when the input is not one this path covers (see the module docstring).

    Raises
    ------
    InputError
        The gold judges a (topic, item) twice.
    """
    columns = [_string(runs.column(c)) for c in ("system", "topic", "item")]
    gold_columns = [_string(gold.column(c)) for c in ("topic", "item")]
    score = runs.column("score")
    if any(c is None for c in columns + gold_columns) or score.null_count or score.type != pa.float64():
        return None
    if not pa.types.is_boolean(gold.schema.field("gold").type) or gold.column("gold").null_count:
        return None
    score = score.to_numpy()
    if not np.isfinite(score).all():
        return None
    systems, topics, items = columns
    gold_topics, gold_items = gold_columns
    n, n_gold = len(topics), len(gold_topics)
    if n == 0 or n_gold == 0:
        return None
    # segments: rows of one (system, topic) in a row; the gold's of one topic
    starts = segment_starts(*string_buffers(topics), *string_buffers(systems), True)
    stops = np.append(starts[1:], n)
    gold_starts = segment_starts(*string_buffers(gold_topics), *string_buffers(gold_topics), False)
    topic_labels = pc.unique(pa.concat_arrays([topics.take(starts), gold_topics.take(gold_starts)]).cast(pa.string()))
    topic_labels = topic_labels.take(pc.sort_indices(topic_labels))
    system_labels = pc.unique(systems.take(starts).cast(pa.string()))
    system_labels = system_labels.take(pc.sort_indices(system_labels))
    seg_topic = pc.index_in(topics.take(starts).cast(pa.string()), value_set=topic_labels).to_numpy()
    seg_system = pc.index_in(systems.take(starts).cast(pa.string()), value_set=system_labels).to_numpy()
    n_topics, n_systems = len(topic_labels), len(system_labels)
    # the gold's rows by topic
    gold_seg_topic = pc.index_in(gold_topics.take(gold_starts).cast(pa.string()), value_set=topic_labels).to_numpy()
    gold_row_topic = np.repeat(gold_seg_topic, np.diff(np.append(gold_starts, n_gold)))
    gold_order = np.arange(n_gold) if (np.diff(gold_seg_topic) > 0).all() else np.argsort(gold_row_topic, kind="stable")
    gold_start = np.searchsorted(gold_row_topic[gold_order], np.arange(n_topics + 1))
    # the runs' segments by (topic, system), in input order within each: a group's segments adjoin
    by_topic = np.lexsort((starts, seg_system, seg_topic))
    seg_start, seg_stop = starts[by_topic], stops[by_topic]
    seg_topic, seg_system = seg_topic[by_topic].astype(np.int64), seg_system[by_topic].astype(np.int64)
    key = seg_topic * n_systems + seg_system
    first = np.ones(key.size, bool)
    first[1:] = key[1:] != key[:-1]
    seg_group = np.cumsum(first) - 1
    topic_segs = np.searchsorted(seg_topic, np.arange(n_topics + 1))
    topic_rows = np.bincount(seg_topic, seg_stop - seg_start, minlength=n_topics).astype(np.int64)
    relevant = np.empty(n, np.int64)
    n_items, n_relevant = np.zeros(n_topics, np.int64), np.zeros(n_topics, np.int64)
    gold_off, gold_data = string_buffers(gold_items)
    run_off, run_data = string_buffers(items)
    labels = gold.column("gold").combine_chunks().to_numpy(zero_copy_only=False).astype(np.int64)
    bounds = _chunks(topic_rows + np.diff(gold_start), 8 * numba.get_num_threads())
    status = np.zeros((bounds.size - 1, 2), np.int64)
    common = (gold_off, gold_data, gold_order, gold_start, labels, run_off, run_data, seg_start, seg_stop)
    common += (seg_group, topic_segs, topic_rows, unjudged == "error", relevant, n_items, n_relevant, status)
    on_threads(_join_topics, [(bounds[c], bounds[c + 1], *common, c) for c in range(bounds.size - 1)])
    if (status[:, 0] == DUPLICATE_GOLD).any():
        check_unique_gold(gold, ["topic", "item"])  # names the judged item, as the general path does
    if status[:, 0].any():
        return None
    # groups in the result's order: by system, then topic (both sorted labels)
    group_first = np.flatnonzero(first)
    group_topic, group_system = seg_topic[group_first], seg_system[group_first]
    group_rows = np.add.reduceat(seg_stop - seg_start, group_first)
    if missing == "error" and (
        group_first.size != n_systems * int((n_items > 0).sum()) or (group_rows != n_items[group_topic]).any()
    ):
        return None  # some run lacks an item: the general path names it
    order = np.lexsort((group_topic, group_system))
    group_segs = np.append(group_first, seg_topic.size)
    group_segs_start, group_segs_stop = group_segs[:-1][order], group_segs[1:][order]
    # each group's segments contiguous again, in the new order
    seg_index = np.concatenate([np.arange(a, b) for a, b in zip(group_segs_start, group_segs_stop)])
    seg_start, seg_stop = seg_start[seg_index], seg_stop[seg_index]
    group_topic, group_system, group_rows = group_topic[order], group_system[order], group_rows[order]
    group_segs = np.append(0, np.cumsum(group_segs_stop - group_segs_start))
    group_out = np.append(0, np.cumsum(group_rows))
    counts = np.empty((n, 2, 2), np.int64)
    rank = np.empty(n, np.int64)
    bounds = _chunks(group_rows, 8 * numba.get_num_threads())
    args = (group_segs, seg_start, seg_stop, group_out, group_topic, score, relevant, n_items, n_relevant)
    on_threads(
        _count_groups,
        [(bounds[c], bounds[c + 1], *args, missing == "drop", counts, rank) for c in range(bounds.size - 1)],
    )
    system_names = np.asarray(system_labels.to_pylist(), dtype=object)
    topic_names = np.asarray(topic_labels.to_pylist(), dtype=object)
    coords = {
        "system": np.repeat(system_names[group_system], group_rows),
        "topic": np.repeat(topic_names[group_topic], group_rows),
        "rank": rank,
    }
    tensor = ConfusionTensor(counts, ("cell",), coords, coord_axes={c: "cell" for c in coords}, classes=[0, 1])
    # the groups' first cells, for the measures (fastmetrics.tensor.group_starts would compare strings)
    tensor._group_starts = (("system", "topic"), (tensor.coords["system"], tensor.coords["topic"]), group_out)
    return tensor
