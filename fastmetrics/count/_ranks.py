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
  one pass (a stable sort first when they are not; with ``ties="trec"`` equal scores by decreasing
  item, as trec_eval orders them, :mod:`._ties`); with grade ``levels``, the same pass counts one
  sweep a level (the graded judgements of nDCG and bpref).

It returns None -- the general path then counts, and raises the error the input deserves -- for any
input it does not cover: other column types, non-finite scores, a duplicated item or gold line,
``unjudged="error"`` with unjudged items, ``missing="error"`` with missing ones, ``ties="item"``,
weights, given coordinates, other groupings.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from numba import njit

from .. import _memory, _strings
from .._strings import string_buffers
from .._threads import on_threads
from ..tensor import ConfusionTensor
from ._ties import trec_order
from .goldkeys import check_unique_gold

OK, DUPLICATE_GOLD, DUPLICATE_RUN, UNJUDGED, LONG_PROBE = 0, 1, 2, 3, 4


@njit(cache=True, inline="always")
def _same(off_a, data_a, i, off_b, data_b, j):
    """Whether string ``i`` of one column equals string ``j`` of another (or the same)."""
    a0, a1 = np.int64(off_a[i]), np.int64(off_a[i + 1])
    return _strings.same_bytes(data_a, a0, a1, data_b, np.int64(off_b[j]), np.int64(off_b[j + 1]))


@njit(cache=True, inline="always")
def _hash(off, data, i):
    return _strings.string_hash(data, np.int64(off[i]), np.int64(off[i + 1]))


@njit(cache=True, nogil=True)
def _changes(off, data, r0, r1, out, k):
    """Write the rows ``r0:r1`` (``r0 >= 1``) whose string differs from the row before to
    ``out[k:]``; return the new end."""
    # a row's bounds are carried to the next (its end is the next row's start), and each column
    # has its own pass: comparing two columns in one loop ran several times slower than two loops
    lo, hi = np.int64(off[r0 - 1]), np.int64(off[r0])
    for r in range(r0, r1):
        end = np.int64(off[r + 1])
        if not _strings.same_bytes(data, lo, hi, data, hi, end):
            out[k] = r
            k += 1
        lo, hi = hi, end
    return k


@njit(cache=True, nogil=True)
def _segment_chunk(off_a, data_a, off_b, data_b, two, r0, r1, starts, found, c):
    """Rows ``r0:r1`` where column a (and, with ``two``, b) differs from the previous row: written
    to ``starts[r0:]``, their number to ``found[c]``."""
    k = r0
    if r0 == 0 and r1 > 0:
        starts[0] = 0
        k = 1
    first = max(r0, 1)
    if r1 <= first:
        found[c] = k - r0
        return
    end = _changes(off_a, data_a, first, r1, starts, k)
    if two and end - k < r1 - first:
        changed_b = np.empty(r1 - first, np.int64)
        n_b = _changes(off_b, data_b, first, r1, changed_b, 0)
        if n_b:
            changed_a = starts[k:end].copy()
            i = j = 0
            while i < changed_a.size or j < n_b:
                if j == n_b or (i < changed_a.size and changed_a[i] < changed_b[j]):
                    starts[k] = changed_a[i]
                    i += 1
                elif i == changed_a.size or changed_b[j] < changed_a[i]:
                    starts[k] = changed_b[j]
                    j += 1
                else:
                    starts[k] = changed_a[i]
                    i += 1
                    j += 1
                k += 1
            end = k
    found[c] = end - r0


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


@njit(cache=True, inline="always")
def _judged(t, gold, table, mask, bounded):
    """Put topic ``t``'s judged items in the table: ``(relevant ones, a gold row judged twice or
    -1, whether a probe ran long)``."""
    off, data, order, start, label = gold
    slots, stamp, tags = table[0], table[1], table[4]
    positives = 0
    for k in range(start[t + 1] - start[t]):
        g = order[start[t] + k]
        positives += label[g]
        h = _hash(off, data, g)
        s = h & mask
        steps = 0
        while stamp[s] == t:
            if tags[s] == h and _same(off, data, g, off, data, order[start[t] + slots[s] - 1]):
                return positives, g, False
            s = (s + np.uint64(1)) & mask
            steps += 1
        if bounded and _strings.long_probe(steps, slots.size):
            return positives, -1, True
        stamp[s], slots[s], tags[s] = t, k + 1, h
    return positives, -1, False


@njit(cache=True, nogil=True)
def _join_topic(t, gold, run, segments, unjudged_error, out, table, bounded):
    """Join topic ``t``'s items to the gold in ``table`` (see :func:`_join_topics`).

    Returns ``(status, row)``: ``OK``, a problem with the row it names, or ``LONG_PROBE`` when
    ``bounded`` and a probe ran long (see :func:`fastmetrics._strings.long_probe`): nothing is
    kept of the topic then, for the caller to join it again in a larger table.
    """
    seg_start, seg_stop, seg_group, topic_segs, topic_rows = segments
    relevant, n_items, n_relevant = out
    gold_off, gold_data, gold_order, gold_start, gold_label = gold
    run_off, run_data = run
    slots, stamp, seen, new_rows, tags = table
    mask = np.uint64(slots.size - 1)
    judged = gold_start[t + 1] - gold_start[t]
    positives, twice, long = _judged(t, gold, table, mask, bounded)
    if twice >= 0:
        return DUPLICATE_GOLD, twice
    if long:
        return LONG_PROBE, 0
    items = judged
    for q in range(topic_segs[t], topic_segs[t + 1]):
        for r in range(seg_start[q], seg_stop[q]):
            # the row's item in the topic's table, probed here rather than in an inlined helper:
            # numba counted the references of a helper's array arguments at every row (atomic
            # increments and decrements, several times the time of the join itself)
            h = _hash(run_off, run_data, r)
            s = h & mask
            a0, a1 = np.int64(run_off[r]), np.int64(run_off[r + 1])
            local = -1
            steps = 0
            while stamp[s] == t:
                k = slots[s] - 1
                # the slot's hash first: a probe past other items reads none of their bytes
                if tags[s] != h:
                    same = False
                elif k < judged:
                    j = gold_order[gold_start[t] + k]
                    b0, b1 = np.int64(gold_off[j]), np.int64(gold_off[j + 1])
                    same = _strings.same_bytes(run_data, a0, a1, gold_data, b0, b1)
                else:
                    j = new_rows[k - judged]
                    b0, b1 = np.int64(run_off[j]), np.int64(run_off[j + 1])
                    same = _strings.same_bytes(run_data, a0, a1, run_data, b0, b1)
                if same:
                    local = k
                    break
                s = (s + np.uint64(1)) & mask
                steps += 1
            if local < 0:
                if unjudged_error:
                    return UNJUDGED, r
                if bounded and _strings.long_probe(steps, slots.size):
                    seen[:items] = -1
                    return LONG_PROBE, 0
                local, new_rows[items - judged] = items, r
                stamp[s], slots[s], tags[s] = t, items + 1, h
                items += 1
            relevant[r] = gold_label[gold_order[gold_start[t] + local]] if local < judged else 0
            if seen[local] == seg_group[q]:
                return DUPLICATE_RUN, r
            seen[local] = seg_group[q]
    # the local ids of the next topic start at 0 again: forget this topic's groups
    seen[:items] = -1
    n_items[t], n_relevant[t] = items, positives
    return OK, 0


@njit(cache=True, nogil=True)
def _join_topics(t0, t1, gold, run, segments, unjudged_error, out, status, c):
    """Join the items of topics ``t0:t1`` to the gold, each topic in a hash table of its own.

    ``gold`` is ``(offsets, data, row order by topic, topic starts, labels)``, ``run`` the items'
    ``(offsets, data)``, ``segments`` ``(start, stop, group, topic's first segment, topic's run
    rows)``. ``out``: ``relevant[row]`` gets each run row's label (0 for an unjudged item),
    ``n_items[t]`` and ``n_relevant[t]`` the topic's judged and unjudged items and its relevant
    ones. A problem stops the chunk with ``status[c]``: a gold item twice, a run's (system, topic)
    item twice, or an unjudged item under ``unjudged_error``.

    The table holds at most half as many items as slots; a topic whose probe runs long is joined
    again in a table twice as large, up to eight times the first (then without the bound: only
    ids of equal 64-bit hashes could fill it so).
    """
    gold_start, topic_rows = gold[3], segments[4]
    most = 1
    for t in range(t0, t1):
        most = max(most, gold_start[t + 1] - gold_start[t] + topic_rows[t])
    size = 1
    while size < 2 * most:
        size *= 2
    largest = 8 * size
    seen = np.full(most, -1, np.int64)  # local item -> the last group that returned it
    new_rows = np.empty(most, np.int64)  # local item - judged -> the run row that brought it
    # local item id + 1 and its hash by slot, valid where the stamp is the topic
    slots, stamp, tags = np.empty(size, np.int64), np.full(size, -1, np.int64), np.empty(size, np.uint64)
    t = t0
    while t < t1:
        table = (slots, stamp, seen, new_rows, tags)
        problem, row = _join_topic(t, gold, run, segments, unjudged_error, out, table, size < largest)
        if problem == LONG_PROBE:
            size *= 2
            slots, stamp, tags = np.empty(size, np.int64), np.full(size, -1, np.int64), np.empty(size, np.uint64)
            continue
        if problem != OK:
            status[c, 0], status[c, 1] = problem, row
            return
        t += 1


@njit(cache=True, nogil=True, inline="always")
def _count_level(rows, relevant, total, positives, counts):
    tp = 0
    for i in range(rows.size):
        tp += relevant[rows[i]] & 1
        counts[i, 1, 1] = tp
        counts[i, 1, 0] = positives - tp
        counts[i, 0, 1] = i + 1 - tp
        counts[i, 0, 0] = total - positives - (i + 1 - tp)


@njit(cache=True, nogil=True)
def _count_groups(g0, g1, group_segs, seg_start, seg_stop, group_out, group_topic, score, ranked, joined, out):
    """Counts at every rank of groups ``g0:g1``: rows by decreasing score, ties in input order (or,
    with ``trec``, by decreasing item). ``joined``: each row's levels reached (bit ``j``: level
    ``j``), the topics' items and their items reaching each level; ``out``: ``counts[level, cell]``
    and each cell's rank."""
    trec, item_off, item_data, drop = ranked
    relevant, n_items, n_relevant = joined
    counts, rank = out
    levels = counts.shape[0]
    tp = np.empty(levels, np.int64)
    positives = np.empty(levels, np.int64)
    for g in range(g0, g1):
        n = group_out[g + 1] - group_out[g]
        rows = np.empty(n, np.int64)
        i = 0
        for q in range(group_segs[g], group_segs[g + 1]):
            for r in range(seg_start[q], seg_stop[q]):
                rows[i] = r
                i += 1
        if trec:
            rows = trec_order(rows, score, item_off, item_data)
        else:
            for i in range(1, n):
                if score[rows[i]] > score[rows[i - 1]]:
                    keys = np.empty(n, np.float64)
                    for k in range(n):
                        keys[k] = -score[rows[k]]
                    rows = rows[np.argsort(keys, kind="mergesort")]
                    break
        if drop:
            total = n
            for j in range(levels):
                positives[j] = 0
                for i in range(n):
                    positives[j] += (relevant[rows[i]] >> j) & 1
        else:
            total = n_items[group_topic[g]]
            for j in range(levels):
                positives[j] = n_relevant[group_topic[g], j]
        tp[:] = 0
        o = group_out[g]
        for i in range(n):
            rank[o + i] = i + 1
        if levels == 1:  # the binary sweep, its running count in a register
            _count_level(rows, relevant, total, positives[0], counts[0, o : o + n])
            continue
        for i in range(n):
            bits = relevant[rows[i]]
            for j in range(levels):
                tp[j] += (bits >> j) & 1
                fp = i + 1 - tp[j]
                counts[j, o + i, 1, 1] = tp[j]
                counts[j, o + i, 1, 0] = positives[j] - tp[j]
                counts[j, o + i, 0, 1] = fp
                counts[j, o + i, 0, 0] = total - positives[j] - fp


def _string(array) -> pa.Array | None:
    if isinstance(array, pa.ChunkedArray):
        # one chunk is taken as it is: combine_chunks copies even one
        array = array.chunk(0) if array.num_chunks == 1 else array.combine_chunks()
    if array.null_count or not (pa.types.is_string(array.type) or pa.types.is_large_string(array.type)):
        return None
    return array


def _chunks(sizes: np.ndarray, parts: int) -> np.ndarray:
    """Bounds splitting ``sizes`` into about ``parts`` runs of equal sums."""
    ends = np.cumsum(sizes)
    total = int(ends[-1]) if ends.size else 0
    bounds = np.searchsorted(ends, np.arange(1, parts) * (total / parts), "right")
    return np.unique(np.concatenate([[0], bounds, [sizes.size]])).astype(np.int64)


@dataclass
class _Segments:
    """The runs' segments (rows of one system and topic in a row) by (topic, system, input
    order), the labels, and the gold's rows by topic."""

    start: np.ndarray
    stop: np.ndarray
    topic: np.ndarray  # code of each segment's topic (sorted labels)
    system: np.ndarray
    group: np.ndarray  # each segment's (topic, system) group, numbered in this order
    topic_segs: np.ndarray  # topic t's segments: topic_segs[t]:topic_segs[t + 1]
    topic_rows: np.ndarray
    topic_labels: pa.Array
    system_labels: pa.Array
    gold_order: np.ndarray  # gold rows by topic, topic t's from gold_start[t] on
    gold_start: np.ndarray


def _codes(strings: pa.Array, labels: pa.Array) -> np.ndarray:
    return pc.index_in(strings.cast(pa.string()), value_set=labels).to_numpy().astype(np.int64)


def _sorted_labels(*arrays) -> pa.Array:
    labels = pc.unique(pa.concat_arrays([a.cast(pa.string()) for a in arrays]))
    return labels.take(pc.sort_indices(labels))


def _segments(systems: pa.Array, topics: pa.Array, gold_topics: pa.Array) -> _Segments:
    """Each segment's first row looked up among the labels (a few thousand strings, by Arrow)."""
    n, n_gold = len(topics), len(gold_topics)
    starts = segment_starts(*string_buffers(topics), *string_buffers(systems), True)
    gold_starts = segment_starts(*string_buffers(gold_topics), *string_buffers(gold_topics), False)
    topic_labels = _sorted_labels(topics.take(starts), gold_topics.take(gold_starts))
    system_labels = _sorted_labels(systems.take(starts))
    topic, system = _codes(topics.take(starts), topic_labels), _codes(systems.take(starts), system_labels)
    gold_topic = _codes(gold_topics.take(gold_starts), topic_labels)
    gold_row_topic = np.repeat(gold_topic, np.diff(np.append(gold_starts, n_gold)))
    gold_order = np.arange(n_gold) if (np.diff(gold_topic) > 0).all() else np.argsort(gold_row_topic, kind="stable")
    n_topics = len(topic_labels)
    # a group's segments adjoin, in input order
    order = np.lexsort((starts, system, topic))
    start, stop, topic, system = starts[order], np.append(starts[1:], n)[order], topic[order], system[order]
    key = topic * len(system_labels) + system
    return _Segments(
        start,
        stop,
        topic,
        system,
        np.cumsum(np.append(True, key[1:] != key[:-1])) - 1,
        np.searchsorted(topic, np.arange(n_topics + 1)),
        np.bincount(topic, stop - start, minlength=n_topics).astype(np.int64),
        topic_labels,
        system_labels,
        gold_order,
        np.searchsorted(gold_row_topic[gold_order], np.arange(n_topics + 1)),
    )


def _join(seg: _Segments, items: pa.Array, gold_items: pa.Array, gold: pa.Table, labels, unjudged: str):
    """``(levels reached per run row, items per topic, items reaching each level per topic)``, or
    None; ``labels``: each gold row's levels reached, bit ``j`` for level ``j``, and the number of levels."""
    labels, levels = labels
    n_topics = len(seg.topic_labels)
    relevant = _memory.empty(len(items), np.int64)
    out = (relevant, np.zeros(n_topics, np.int64), np.zeros(n_topics, np.int64))
    gold_items = (*string_buffers(gold_items), seg.gold_order, seg.gold_start, labels)
    segments = (seg.start, seg.stop, seg.group, seg.topic_segs, seg.topic_rows)
    bounds = _chunks(seg.topic_rows + np.diff(seg.gold_start), 8 * numba.get_num_threads())
    status = np.zeros((bounds.size - 1, 2), np.int64)
    common = (gold_items, string_buffers(items), segments, unjudged == "error", out, status)
    on_threads(_join_topics, [(bounds[c], bounds[c + 1], *common, c) for c in range(bounds.size - 1)])
    if (status[:, 0] == DUPLICATE_GOLD).any():
        check_unique_gold(gold, ["topic", "item"])  # names the judged item, as the general path does
    if status[:, 0].any():
        return None
    topic_of = np.repeat(np.arange(n_topics), np.diff(seg.gold_start))
    ordered = labels[seg.gold_order]
    reached = [np.bincount(topic_of, (ordered >> j) & 1, minlength=n_topics) for j in range(levels)]
    return relevant, out[1], np.stack(reached, axis=1).astype(np.int64)


def _repeated(labels: pa.Array, codes: np.ndarray, group_out: np.ndarray) -> np.ndarray:
    """``labels[codes[g]]`` over the cells of each group ``g`` (an object array, as the general path
    gives): one slice assignment per run of equal codes, where ``np.repeat`` of objects goes cell
    by cell."""
    names = np.asarray(labels.to_pylist(), dtype=object)
    change = np.flatnonzero(np.append(True, codes[1:] != codes[:-1]))
    if change.size > (1 << 16):
        return np.repeat(names[codes], np.diff(group_out))
    out = np.empty(int(group_out[-1]), object)
    bounds = np.append(group_out[change], group_out[-1])
    for i, code in enumerate(codes[change]):
        out[bounds[i] : bounds[i + 1]] = names[code]
    return out


def _counted(seg: _Segments, score: np.ndarray, joined, missing: str, ranked, levels: int, names=("system", "topic")):
    """The tensors, one a level: groups by system, then topic (both sorted labels); None when an
    item is missing under ``missing="error"`` (the general path names it). ``ranked``: ``(trec,
    item offsets, item data)``."""
    relevant, n_items, n_relevant = joined
    first = np.flatnonzero(np.append(True, seg.group[1:] != seg.group[:-1]))
    topic, system = seg.topic[first], seg.system[first]
    rows = np.add.reduceat(seg.stop - seg.start, first)
    if missing == "error" and (
        first.size != len(seg.system_labels) * int((n_items > 0).sum()) or (rows != n_items[topic]).any()
    ):
        return None
    order = np.lexsort((topic, system))
    segs = np.append(first, seg.topic.size)
    segs_start, segs_stop = segs[:-1][order], segs[1:][order]
    # the segments of each group in turn: one arange with a shift a group (a Python loop a group
    # is slow when the groups are many)
    lengths = segs_stop - segs_start
    picked = np.arange(int(lengths.sum())) + np.repeat(segs_start - (np.cumsum(lengths) - lengths), lengths)
    topic, system, rows = topic[order], system[order], rows[order]
    group_out = np.append(0, np.cumsum(rows))
    counts = _memory.empty((levels, group_out[-1], 2, 2), np.int64)
    rank = _memory.empty(group_out[-1], np.int64)
    bounds = _chunks(rows, 8 * numba.get_num_threads())
    args = (np.append(0, np.cumsum(segs_stop - segs_start)), seg.start[picked], seg.stop[picked], group_out, topic)
    args += (score, (*ranked, missing == "drop"), (relevant, n_items, n_relevant), (counts, rank))
    on_threads(_count_groups, [(bounds[c], bounds[c + 1], *args) for c in range(bounds.size - 1)])
    coords = {
        names[0]: _repeated(seg.system_labels, system, group_out),
        names[1]: _repeated(seg.topic_labels, topic, group_out),
        "rank": rank,
    }
    tensors = []
    for level in counts:
        tensor = ConfusionTensor(level, ("cell",), dict(coords), coord_axes={c: "cell" for c in coords}, classes=[0, 1])
        # the groups' first cells, for the measures (fastmetrics.tensor.group_starts would compare strings)
        tensor._group_starts = (tuple(names), (tensor.coords[names[0]], tensor.coords[names[1]]), group_out)
        tensors.append(tensor)
    return tuple(tensors)


def rank_sweep_of_strings(
    runs: pa.Table,
    gold: pa.Table,
    *,
    missing: str,
    unjudged: str,
    columns=("system", "topic", "item", "score"),
    ties: str = "input",
    levels=None,
):
    """The ranks sweep of ``runs`` (``system, topic, item, score``) against ``gold``, or None.

    Parameters
    ----------
    runs : pyarrow.Table
        ``system, topic, item`` strings and a float64 ``score``, in input order, in the columns
        ``columns`` names; the result's coordinates take the names of the first two.
    gold : pyarrow.Table
        ``topic, item`` strings and a boolean ``gold`` (numeric grades with ``levels``).
    missing : {"error", "negative", "drop"}
    unjudged : {"error", "negative"}
    columns : tuple of str
    ties : {"input", "trec"}, default "input"
        The order of equal scores: the input's, or trec_eval's (decreasing item id, as C's
        ``strcmp`` compares bytes).
    levels : sequence of float, optional
        Count one sweep a level, the positive class "grade >= level", all in the same pass (at
        most 63 levels).

    Returns
    -------
    ConfusionTensor, tuple of ConfusionTensor, or None
        ``counts[cell, 2, 2]`` with per-cell ``system, topic, rank``, equal to the general path's
        (a tuple of them, one a level, with ``levels``); None when the input is not one this path
        covers (see the module docstring).

    Raises
    ------
    InputError
        The gold judges a (topic, item) twice.
    """
    systems, topics, items = (_string(runs.column(c)) for c in columns[:3])
    gold_topics, gold_items = (_string(gold.column(c)) for c in ("topic", "item"))
    score = runs.column(columns[3])
    if any(c is None for c in (systems, topics, items, gold_topics, gold_items)) or score.type != pa.float64():
        return None
    labels = _level_bits(gold.column("gold"), levels)
    if score.null_count or labels is None or ties not in ("input", "trec"):
        return None
    score = score.to_numpy()
    if len(topics) == 0 or len(gold_topics) == 0 or not np.isfinite(score).all():
        return None
    seg = _segments(systems, topics, gold_topics)
    n_levels = 1 if levels is None else len(levels)
    joined = _join(seg, items, gold_items, gold, (labels, n_levels), unjudged)
    if joined is None:
        return None
    ranked = (ties == "trec", *string_buffers(items))
    tensors = _counted(seg, score, joined, missing, ranked, n_levels, columns[:2])
    return tensors if tensors is None or levels is not None else tensors[0]


def _level_bits(gold: pa.ChunkedArray, levels) -> np.ndarray | None:
    """Each gold row's levels reached (bit ``j``: grade >= ``levels[j]``); booleans without
    ``levels``; None for labels this path does not take."""
    kind = gold.type
    if levels is None and not gold.null_count:
        return gold.to_numpy(zero_copy_only=False).astype(np.int64) if pa.types.is_boolean(kind) else None
    if gold.null_count or not (pa.types.is_integer(kind) or pa.types.is_floating(kind)) or not 0 < len(levels) < 64:
        return None
    grades = gold.to_numpy(zero_copy_only=False).astype(np.float64)
    bits = np.zeros(grades.size, np.int64)
    for j, level in enumerate(levels):
        bits |= (grades >= level).astype(np.int64) << j
    return bits
