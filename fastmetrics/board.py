"""Leaderboard stage: system scores aggregated over topics and ranked."""

from __future__ import annotations

import warnings

import numpy as np
import pyarrow as pa

from ._errors import ParameterError
from .tensor import Scores


def macro_leaderboard(scores: Scores, *, order=("k", "mcc")) -> pa.Table:
    """Macro mean over topics per system, NaN-aware, ranked by the ``order`` measures.

    Parameters
    ----------
    scores : Scores
        Values over the axes ``(system, topic)``.
    order : sequence of str, default ("k", "mcc")
        Measures to sort by, descending, the first deciding (ties broken by the next).

    Returns
    -------
    pyarrow.Table
        ``rank, system, mean_<measure>..., undefined_topics``: undefined cells are left out of
        each mean, and ``undefined_topics`` is the largest number of topics any measure left out
        for that system.
    """
    if set(scores.axes) != {"system", "topic"}:
        raise ParameterError(f"A leaderboard needs scores over (system, topic); got axes {scores.axes}.")
    topic_axis = scores.axes.index("topic") + 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a measure undefined on every topic: NaN mean
        means = np.nanmean(scores.values, axis=topic_axis)
    undefined = np.isnan(scores.values).sum(axis=topic_axis)
    systems = scores.coords["system"]
    keys = [means[scores.measures.index(m)] for m in reversed(order) if m in scores.measures]
    rank = np.lexsort([-k for k in keys]) if keys else np.arange(len(systems))
    cols = {"rank": pa.array(np.arange(1, len(systems) + 1)), "system": pa.array(systems[rank].tolist())}
    for i, m in enumerate(scores.measures):
        cols[f"mean_{m}"] = pa.array(means[i][rank])
    cols["undefined_topics"] = pa.array(undefined.max(axis=0)[rank])
    return pa.table(cols)
