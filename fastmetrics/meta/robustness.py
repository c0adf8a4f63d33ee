"""Robustness of measures across topics (seed 004 §6.4, after Amigó et al. 2013).

For a topic pair (t, t'), the Spearman correlation between the systems' scores on t and on t'
(average ranks for ties); robustness is its mean over random distinct topic pairs. Systems with
an undefined score on either topic are left out of that pair; a pair where either side is
constant (or fewer than two systems remain) has no correlation: it is counted as undefined and
not averaged.
"""

from __future__ import annotations

import math

import numpy as np
import pyarrow as pa
from numba import njit, prange

from .._errors import ParameterError
from .._seeding import rng_of
from ._common import MetaResult, labels_array, system_topic_values


@njit(cache=True, inline="always")
def _average_ranks(x, out):
    order = np.argsort(x)
    n = x.size
    i = 0
    while i < n:
        j = i
        while j + 1 < n and x[order[j + 1]] == x[order[i]]:
            j += 1
        rank = 0.5 * (i + j) + 1.0
        for k in range(i, j + 1):
            out[order[k]] = rank
        i = j + 1


@njit(cache=True)
def _spearman(x, y):
    keep = ~(np.isnan(x) | np.isnan(y))
    xs = x[keep]
    ys = y[keep]
    n = xs.size
    if n < 2:
        return np.nan
    rx = np.empty(n)
    ry = np.empty(n)
    _average_ranks(xs, rx)
    _average_ranks(ys, ry)
    mx = rx.mean()
    my = ry.mean()
    sxy = 0.0
    sxx = 0.0
    syy = 0.0
    for i in range(n):
        dx = rx[i] - mx
        dy = ry[i] - my
        sxy += dx * dy
        sxx += dx * dx
        syy += dy * dy
    if sxx == 0.0 or syy == 0.0:
        return np.nan
    return sxy / math.sqrt(sxx * syy)


@njit(cache=True, parallel=True)
def _pair_correlations(values, first, second, out):
    """out[m, p] = Spearman of values[m, :, first[p]] and values[m, :, second[p]]."""
    n_measures = values.shape[0]
    n_pairs = first.size
    for job in prange(n_measures * n_pairs):
        m = job // n_pairs
        p = job % n_pairs
        out[m, p] = _spearman(np.ascontiguousarray(values[m, :, first[p]]),
                              np.ascontiguousarray(values[m, :, second[p]]))


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


def robustness(scores, *, pairs=1000, seed=0) -> MetaResult:
    """Mean Spearman correlation of system scores between random topic pairs, per measure.

    Parameters
    ----------
    scores : Scores
        Values over ``(system, topic)``.
    pairs : int or "all", default 1000
        Number of distinct topic pairs drawn (the same pairs for every measure), or every pair.
    seed : int, default 0

    Returns
    -------
    MetaResult
        ``summary``: ``measure, mean, std`` (sample standard deviation), ``pairs`` (defined
        correlations) and ``undefined`` (pairs with a constant side); ``detail``: ``measure,
        topic_a, topic_b, value``.
    """
    values, _, topics = system_topic_values(scores)
    first, second = topic_pairs(len(topics), pairs, rng_of(seed))
    corr = np.empty((values.shape[0], first.size))
    _pair_correlations(np.ascontiguousarray(values), first.astype(np.int64), second.astype(np.int64), corr)
    defined = ~np.isnan(corr)
    counts = defined.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(counts > 0, np.nansum(corr, axis=1) / np.maximum(counts, 1), np.nan)
        centred = np.where(defined, corr - mean[:, None], 0.0)
        std = np.where(counts > 1, np.sqrt((centred ** 2).sum(axis=1) / np.maximum(counts - 1, 1)), np.nan)
    names = list(scores.measures)
    summary = pa.table({
        "measure": names, "mean": pa.array(mean, pa.float64()), "std": pa.array(std, pa.float64()),
        "pairs": pa.array(counts, pa.int64()), "undefined": pa.array(first.size - counts, pa.int64()),
    })
    topic_labels = np.asarray(topics)
    detail = pa.table({
        "measure": np.repeat(names, first.size).tolist(),
        "topic_a": labels_array(np.tile(topic_labels[first], len(names))),
        "topic_b": labels_array(np.tile(topic_labels[second], len(names))),
        "value": pa.array(corr.reshape(-1), pa.float64()),
    })
    return MetaResult(summary, detail, {"seed": seed, "pairs_drawn": int(first.size)})
