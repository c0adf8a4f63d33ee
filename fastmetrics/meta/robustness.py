"""Robustness of measures across topics (seed 004 §6.4, after Amigó et al. 2013).

For a topic pair (t, t'), the Spearman correlation between the systems' scores on t and on t'
(average ranks for ties); robustness is its mean over random distinct topic pairs. Systems with
an undefined score on either topic are left out of that pair; a pair where either side is
constant (or fewer than two systems remain) has no correlation: it is counted as undefined and
not averaged.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from .._errors import ParameterError
from .._seeding import rng_of
from ._common import MetaResult, in_roles, labels_array, system_topic_values


def _average_ranks(x: np.ndarray) -> np.ndarray:
    """Ranks along axis 1 (1-based, ties get their average rank); NaN entries stay NaN and
    are not ranked. Vectorised over the other axes: sort once, find each tie run's first and
    last position, and give every member the mean of the two."""
    order = np.argsort(x, axis=1, kind="stable")  # NaN sort last
    ordered = np.take_along_axis(x, order, axis=1)
    n = x.shape[1]
    position = np.broadcast_to(np.arange(n).reshape(1, n, 1), x.shape)
    starts = np.ones(x.shape, bool)
    starts[:, 1:] = ordered[:, 1:] != ordered[:, :-1]  # NaN != NaN: each NaN its own run
    first = np.maximum.accumulate(np.where(starts, position, 0), axis=1)
    ends = np.ones(x.shape, bool)
    ends[:, :-1] = starts[:, 1:]
    last = n - 1 - np.maximum.accumulate(np.where(ends, n - 1 - position, 0)[:, ::-1], axis=1)[:, ::-1]
    ranks = np.empty(x.shape)
    np.put_along_axis(ranks, order, 0.5 * (first + last) + 1.0, axis=1)
    ranks[np.isnan(x)] = np.nan
    return ranks


def _pair_correlations(values, first, second, chunk: int = 256) -> np.ndarray:
    """out[m, p] = Spearman of values[m, :, first[p]] and values[m, :, second[p]] over the
    systems defined on both topics; NaN when fewer than two remain or either side is constant.
    Plain numpy, pairs taken ``chunk`` at a time so memory stays measures x systems x chunk."""
    out = np.empty((values.shape[0], first.size))
    for start in range(0, first.size, chunk):
        a = values[:, :, first[start : start + chunk]]
        b = values[:, :, second[start : start + chunk]]
        both = ~(np.isnan(a) | np.isnan(b))
        rx = _average_ranks(np.where(both, a, np.nan))
        ry = _average_ranks(np.where(both, b, np.nan))
        n = both.sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            dx = np.where(both, rx - np.nansum(rx, axis=1, keepdims=True) / n[:, None], 0.0)
            dy = np.where(both, ry - np.nansum(ry, axis=1, keepdims=True) / n[:, None], 0.0)
            sxx, syy = (dx * dx).sum(axis=1), (dy * dy).sum(axis=1)
            r = (dx * dy).sum(axis=1) / np.sqrt(sxx * syy)
        out[:, start : start + chunk] = np.where((n >= 2) & (sxx > 0) & (syy > 0), r, np.nan)
    return out


def topic_pairs(n_topics: int, pairs, rng) -> tuple[np.ndarray, np.ndarray]:
    """``pairs`` distinct unordered topic pairs drawn without replacement, or every pair ('all')."""
    total = n_topics * (n_topics - 1) // 2
    if total == 0:
        raise ParameterError("Robustness compares topics: the scores need at least two topics.")
    first, second = np.triu_indices(n_topics, 1)
    if isinstance(pairs, str):
        if pairs != "all":
            raise ParameterError(f"pairs must be a positive integer or 'all'; got {pairs!r}.")
        return first, second
    if isinstance(pairs, bool) or not isinstance(pairs, (int, np.integer)) or pairs < 1:
        raise ParameterError(f"pairs must be a positive integer or 'all'; got {pairs!r}.")
    if pairs >= total:
        return first, second
    chosen = np.sort(rng.choice(total, size=int(pairs), replace=False))
    return first[chosen], second[chosen]


def robustness(scores, *, pairs=1000, seed=0, system: str = "system", topic: str = "topic") -> MetaResult:
    """Mean Spearman correlation of system scores between random topic pairs, per measure.

    Parameters
    ----------
    scores : Scores
        Values over ``(system, topic)``.
    pairs : int or "all", default 1000
        Number of distinct topic pairs drawn (the same pairs for every measure), or every pair.
    seed : int, default 0
        Seed of the draw: the same seed gives the same pairs.
    system, topic : str, default "system", "topic"
        The axes of ``scores`` playing the system and the topic (e.g. ``system="annotator"`` for
        scores of ``fm.count(..., system="annotator")``); the output columns keep their names.

    Returns
    -------
    MetaResult
        ``summary``: ``measure, mean, std`` (sample standard deviation), ``pairs`` (defined
        correlations) and ``undefined`` (pairs with a constant side); ``detail``: ``measure,
        topic_a, topic_b, value``.
    """
    scores = in_roles(scores, system, topic)
    values, _, topics = system_topic_values(scores)
    first, second = topic_pairs(len(topics), pairs, rng_of(seed))
    corr = _pair_correlations(np.asarray(values, np.float64), first.astype(np.int64), second.astype(np.int64))
    defined = ~np.isnan(corr)
    counts = defined.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(counts > 0, np.nansum(corr, axis=1) / np.maximum(counts, 1), np.nan)
        centred = np.where(defined, corr - mean[:, None], 0.0)
        std = np.where(counts > 1, np.sqrt((centred**2).sum(axis=1) / np.maximum(counts - 1, 1)), np.nan)
    names = list(scores.measures)
    summary = pa.table(
        {
            "measure": names,
            "mean": pa.array(mean, pa.float64()),
            "std": pa.array(std, pa.float64()),
            "pairs": pa.array(counts, pa.int64()),
            "undefined": pa.array(first.size - counts, pa.int64()),
        }
    )
    topic_labels = np.asarray(topics)
    detail = pa.table(
        {
            "measure": np.repeat(names, first.size).tolist(),
            "topic_a": labels_array(np.tile(topic_labels[first], len(names))),
            "topic_b": labels_array(np.tile(topic_labels[second], len(names))),
            "value": pa.array(corr.reshape(-1), pa.float64()),
        }
    )
    return MetaResult(summary, detail, {"seed": seed, "pairs_drawn": int(first.size)}).in_names(system, topic)
