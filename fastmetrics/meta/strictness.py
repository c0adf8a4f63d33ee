"""Strictness of measures (seed 004 §6.3, after Amigó et al. 2013).

Outputs are the (system, topic) pairs. With every measure oriented so that higher is better::

    rank(m, o)               = fraction of outputs o' with m(o) >= m(o')    (top 1, bottom ~0)
    top(m, th)               = {o : rank(m, o) >= th}
    strictness_th(m, m')     = min over o in top(m, th) of rank(m', o)
    strictness_th(m)         = min over m' != m of strictness_th(m, m')

A strict measure ranks an output high only if every other measure does too. For each pair
(m, m') the outputs where m or m' is undefined are left out, and ranks are taken among the rest.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from .._errors import ParameterError
from .._progress import Progress
from ._common import MetaResult, in_roles, system_topic_values

DEFAULT_THRESHOLDS = np.round(np.arange(0.50, 0.995, 0.01), 2)


def fraction_ranks(x: np.ndarray) -> np.ndarray:
    """rank(o) = fraction of values <= x[o] (ties share the highest position), for finite x."""
    order = np.sort(x)
    return np.searchsorted(order, x, side="right") / x.size


def pair_strictness(m: np.ndarray, other: np.ndarray, thresholds: np.ndarray) -> np.ndarray:
    """strictness_th(m, m') for each threshold, over the outputs where both are defined."""
    keep = ~(np.isnan(m) | np.isnan(other))
    if not keep.any():
        return np.full(thresholds.size, np.nan)
    rank_m = fraction_ranks(m[keep])
    rank_other = fraction_ranks(other[keep])
    order = np.argsort(-rank_m, kind="stable")
    running_min = np.minimum.accumulate(rank_other[order])
    # the outputs with rank_m >= th are a prefix of `order`; its length, per threshold:
    sorted_desc = rank_m[order]
    lengths = np.searchsorted(-sorted_desc, -thresholds, side="right")
    out = np.full(thresholds.size, np.nan)
    has = lengths > 0
    out[has] = running_min[lengths[has] - 1]
    return out


def strictness(
    scores, *, thresholds=None, progress: bool = False, system: str = "system", topic: str = "topic"
) -> MetaResult:
    """Strictness of every measure against every other, and overall, per threshold ``th``.

    Parameters
    ----------
    scores : Scores
        Values over ``(system, topic)`` for two or more measures.
    thresholds : array_like, optional
        The ``th`` values, in (0, 1]; default 0.50, 0.51, ..., 0.99.
    progress : bool, default False
        Show a progress bar on a terminal when the job runs longer than about a second.
    system, topic : str, default "system", "topic"
        The axes of ``scores`` playing the system and the topic (e.g. ``system="annotator"`` for
        scores of ``fm.count(..., system="annotator")``); the output columns keep their names.

    Returns
    -------
    MetaResult
        ``summary``: ``measure, threshold, value`` (strictness_th(m)); ``detail``: ``measure_a,
        measure_b, threshold, value`` (strictness_th(m, m')).
    """
    scores = in_roles(scores, system, topic)
    th = DEFAULT_THRESHOLDS if thresholds is None else np.asarray(thresholds, np.float64)
    if th.ndim != 1 or th.size == 0 or np.any((th <= 0) | (th > 1)):
        raise ParameterError("Strictness thresholds must be values in (0, 1].")
    names = list(scores.measures)
    if len(names) < 2:
        raise ParameterError("Strictness compares measures: give at least two.")
    values, _, _ = system_topic_values(scores)
    flat = values.reshape(len(names), -1)
    pairwise = np.full((len(names), len(names), th.size), np.nan)
    bar = Progress(len(names), "strictness", quiet=not progress)
    for a in range(len(names)):
        bar.update(a)
        for b in range(len(names)):
            if a != b:
                pairwise[a, b] = pair_strictness(flat[a], flat[b], th)
    bar.close()
    masked = pairwise.copy()
    masked[np.arange(len(names)), np.arange(len(names))] = np.inf
    with np.errstate(invalid="ignore"):
        overall = np.nanmin(np.where(np.isnan(masked), np.inf, masked), axis=1)
    overall[np.isinf(overall)] = np.nan
    summary = pa.table(
        {
            "measure": np.repeat(names, th.size).tolist(),
            "threshold": pa.array(np.tile(th, len(names)), pa.float64()),
            "value": pa.array(overall.reshape(-1), pa.float64()),
        }
    )
    pairs = [(a, b) for a in range(len(names)) for b in range(len(names)) if a != b]
    detail = pa.table(
        {
            "measure_a": [names[a] for a, _ in pairs for _ in th],
            "measure_b": [names[b] for _, b in pairs for _ in th],
            "threshold": pa.array(np.tile(th, len(pairs)), pa.float64()),
            "value": pa.array(np.concatenate([pairwise[a, b] for a, b in pairs]), pa.float64()),
        }
    )
    return MetaResult(summary, detail, {"thresholds": th.tolist(), "outputs": int(flat.shape[1])}).in_names(
        system, topic
    )
