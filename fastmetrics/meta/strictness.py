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
from ._kernels import _strictness_pairs

DEFAULT_THRESHOLDS = np.round(np.arange(0.50, 0.995, 0.01), 2)


def pairwise_strictness(flat: np.ndarray, thresholds: np.ndarray, bar: Progress | None = None) -> np.ndarray:
    """Strictness of every measure against every other at each threshold.

    Each measure's outputs are sorted once; a pair then walks the two orders, ranking among the
    outputs both define (the pairs of one measure in parallel, one step of ``bar`` each).

    Parameters
    ----------
    flat : ndarray of float64, shape (n_measures, n_outputs)
        Oriented values (higher is better for every measure).
    thresholds : ndarray of float64
        The levels ``th``.
    bar : Progress, optional
        Advanced once a measure.

    Returns
    -------
    ndarray of float64, shape (n_measures, n_measures, n_thresholds)
        ``out[a, b, k]`` = strictness at ``thresholds[k]`` of ``a`` against ``b``; NaN on the
        diagonal and where no output defines both.
    """
    n = flat.shape[0]
    flat = np.ascontiguousarray(flat)
    order = np.argsort(flat, axis=1)
    th = np.ascontiguousarray(thresholds, np.float64)
    out = np.full((n, n, th.size), np.nan)
    for a in range(n):
        others = np.delete(np.arange(n), a)
        values = np.empty((others.size, th.size))
        _strictness_pairs(flat, order, np.full(others.size, a), others, th, values)
        out[a, others] = values
        if bar is not None:
            bar.update(a + 1)
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
    bar = Progress(len(names), "strictness", quiet=not progress)
    pairwise = pairwise_strictness(flat, th, bar)
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
