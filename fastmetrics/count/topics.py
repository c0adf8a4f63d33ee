"""Which topics a ranked evaluation runs over: trec_eval's rules, on a ranks sweep.

trec_eval evaluates the topics that have both results and judgements: a run's topic absent from
the qrels is ignored (``topics="gold"``), not scored 0. With ``-c`` (``complete=True``) every
qrels topic a run does not return counts too, with an empty ranked list: 0 for every measure
(its relevant items all missed). :func:`ranked_topics` applies both to a ranks sweep (or to
every sweep of a :class:`~fastmetrics.tensor.graded.GradedRanks`) before anything is evaluated,
so that a table, a leaderboard's means and a report all run over the same topics.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .._errors import ParameterError
from ..tensor import ConfusionTensor, group_starts
from ..tensor.graded import GradedRanks

TOPICS = ("gold", "runs")


def ranked_topics(ranks, gold: pa.Table, *, topics: str = "gold", complete: bool = False, gold_column: str = "gold"):
    """A ranks sweep over trec_eval's topics.

    Parameters
    ----------
    ranks : ConfusionTensor or GradedRanks
        Counted with ``thresholds="ranks"`` against ``gold``.
    gold : pyarrow.Table
        The judgements: ``topic`` and ``gold_column`` (booleans, or grades for a GradedRanks).
    topics : {"gold", "runs"}, default "gold"
        ``"gold"``: the cells of topics the gold lacks are dropped (trec_eval); ``"runs"``: kept
        (their items all non-relevant).
    complete : bool, default False
        Every gold topic a system lacks added as an empty list (trec_eval's ``-c``).
    gold_column : str, default "gold"

    Returns
    -------
    ConfusionTensor or GradedRanks
        The same kind as ``ranks``.
    """
    if topics not in TOPICS:
        raise ParameterError(f"topics must be 'gold' or 'runs' (--topics); got {topics!r}.")
    gold_topics = gold.column("topic").combine_chunks().cast(pa.string())
    labels = gold.column(gold_column).combine_chunks()
    if isinstance(ranks, GradedRanks):
        grades = labels.cast(pa.float64())

        def at(level, tensor):
            positive = np.asarray(pc.greater_equal(grades, pa.scalar(level, pa.float64())))
            return _over_topics(tensor, gold_topics, positive, topics, complete)

        tensors = tuple(at(float(g), t) for g, t in zip(ranks.grades, ranks.tensors))
        return GradedRanks(ranks.grades, tensors, at(0.0, ranks.judged), ranks.relevance_level)
    positive = np.asarray(labels.cast(pa.bool_()).fill_null(False))
    return _over_topics(ranks, gold_topics, positive, topics, complete)


def _over_topics(tensor: ConfusionTensor, gold_topics: pa.Array, positive, topics: str, complete: bool):
    if tensor.coord_axes.get("rank") != "cell":
        raise ParameterError("trec_eval's topics apply to ranked lists: count with thresholds='ranks'.")
    # read a group at a time (its first cell), not a cell at a time: millions of cells, thousands of groups
    starts, _ = group_starts(tensor)
    first = starts[:-1]
    sizes = np.diff(starts)
    group_topics = np.asarray(tensor.coords["topic"])[first].astype(str)
    group_systems = np.asarray(tensor.coords["system"])[first]
    if topics == "gold":
        # the gold's topics by Arrow: a Python string a judged row is most of the time of a large qrels
        judged = pc.unique(gold_topics)
        kept = np.asarray(pc.is_in(pa.array(group_topics, pa.string()), value_set=judged).fill_null(False))
    else:
        kept = np.ones(first.size, bool)
    if kept.all() and not complete:
        return tensor  # every topic judged: the sweep as counted (a copy of millions of cells saved)
    names = np.asarray(gold_topics.to_pylist(), dtype=str)
    judged_topics, where = np.unique(names, return_inverse=True)
    cells = np.repeat(kept, sizes)
    counts = tensor.counts[cells]
    coords = {c: np.asarray(v)[cells] for c, v in tensor.coords.items()}
    if complete:
        relevant = np.bincount(where, weights=positive, minlength=judged_topics.size)
        judged = np.bincount(where, minlength=judged_topics.size)
        groups = (group_systems[kept], group_topics[kept], sizes[kept])
        counts, coords = _empty_lists(counts, coords, groups, judged_topics, relevant, judged - relevant)
    return ConfusionTensor(counts, tensor.axes, coords, coord_axes={c: "cell" for c in coords}, classes=tensor.classes)


def _empty_lists(counts, coords, groups, judged_topics, relevant, nonrelevant):
    """Each (system, judged topic) without a cell given one: the empty list, nothing retrieved."""
    systems, topics, sizes = groups
    have = set(zip(systems.tolist(), topics.tolist()))
    add = [(s, t) for s in np.unique(systems).tolist() for t in range(judged_topics.size)]
    add = [(s, t) for s, t in add if (s, judged_topics[t]) not in have]
    if not add:
        return counts, coords
    extra = np.zeros((len(add), 2, 2), counts.dtype)
    index = np.array([t for _, t in add], np.int64)
    extra[:, 0, 0] = nonrelevant[index]
    extra[:, 1, 0] = relevant[index]
    new = {"system": [s for s, _ in add], "topic": judged_topics[index].tolist(), "rank": [0] * len(add)}
    coords = {
        c: np.concatenate([v, np.asarray(new[c], dtype=v.dtype if c == "rank" else object)]) for c, v in coords.items()
    }
    # the groups in (system, topic) order, each group's cells in rank order
    all_systems = np.concatenate([systems, np.asarray(new["system"], dtype=object)]).astype(str)
    all_topics = np.concatenate([topics, judged_topics[index]]).astype(str)
    all_sizes = np.concatenate([sizes, np.ones(len(add), np.int64)])
    group_first = np.concatenate([[0], np.cumsum(all_sizes)[:-1]])
    order = np.lexsort((all_topics, all_systems))
    cells = np.concatenate([np.arange(group_first[g], group_first[g] + all_sizes[g]) for g in order])
    return np.concatenate([counts, extra])[cells], {c: v[cells] for c, v in coords.items()}
