"""Inconsistency between measures (seed 003 §5).

A *comparison* is a pair of systems on one topic. Measure ``m`` orders it by the sign of the score
difference -- +1 or -1 beyond a tolerance (default 1e-5, as the paper's code), 0 (a tie) inside
it -- after orienting every measure so that higher is better. Two measures are inconsistent on a
comparison when their signs differ; a win against a tie counts, as in the paper's definition
(consistent iff ``M1(A, B1) * M1(A, B2)`` implies ``M2(A, B1) * M2(A, B2)`` for * in <, >, =).
Comparisons where either measure is undefined (NaN) are skipped for that pair.

Note on seed 003 Table 4: the published percentages equal these on 4 of the 28 pairs and are
0.07-0.41 points lower on the others, because the paper's script skips a win-against-tie whenever
some other measure of its set of eleven prefers the opposite side. That rule makes a pair's value
depend on which other measures were computed; fastmetrics follows the definition instead.
"""

from __future__ import annotations

import numba
import numpy as np
import pyarrow as pa

from .._errors import ParameterError
from ._common import MetaResult, in_roles, system_topic_values
from ._kernels import _inconsistency_counts


def inconsistency_counts(values: np.ndarray, tolerance: float):
    """Count the comparisons each pair of measures orders differently, and those both define.

    One pass over the comparisons: each system pair of a topic is signed once per measure, the
    topics go in chunks over the threads.

    Parameters
    ----------
    values : ndarray of float64, shape (n_measures, n_systems, n_topics)
        Oriented values (higher is better for every measure).
    tolerance : float
        Differences within it are ties.

    Returns
    -------
    inconsistent, comparisons : ndarray of int64, shape (n_measures, n_measures)
        Symmetric; the diagonal means nothing.
    """
    n_measures = values.shape[0]
    by_topic = np.ascontiguousarray(values.transpose(2, 0, 1))
    n_chunks = max(1, min(by_topic.shape[0], 4 * numba.get_num_threads()))
    bad = np.zeros((n_chunks, n_measures, n_measures), np.int64)
    both = np.zeros_like(bad)
    _inconsistency_counts(by_topic, float(tolerance), n_chunks, bad, both)
    bad, both = bad.sum(axis=0), both.sum(axis=0)
    return bad + bad.T, both + both.T


def inconsistency(scores, *, tolerance: float = 1e-5, system: str = "system", topic: str = "topic") -> MetaResult:
    """Percentage of comparisons on which each pair of measures orders two systems differently.

    Parameters
    ----------
    scores : Scores
        Values over ``(system, topic)`` for two or more measures.
    tolerance : float, default 1e-5
        Differences within ``tolerance`` are ties.
    system, topic : str, default "system", "topic"
        The axes of ``scores`` playing the system and the topic (e.g. ``system="annotator"`` for
        scores of ``fm.count(..., system="annotator")``); the output columns keep their names.

    Returns
    -------
    MetaResult
        ``summary``: ``measure_a, measure_b, value`` (percent), ``inconsistent``, ``comparisons``
        for every ordered pair of distinct measures.
    """
    scores = in_roles(scores, system, topic)
    if not tolerance >= 0:
        raise ParameterError(f"tolerance must be >= 0; got {tolerance!r}.")
    if len(scores.measures) < 2:
        raise ParameterError("Inconsistency compares measures: give at least two.")
    values, systems, topics = system_topic_values(scores)
    bad, total = inconsistency_counts(values, tolerance)
    names = list(scores.measures)
    rows = [(a, b) for a in range(len(names)) for b in range(len(names)) if a != b]
    with np.errstate(invalid="ignore", divide="ignore"):
        percent = 100.0 * bad / total
    summary = pa.table(
        {
            "measure_a": [names[a] for a, _ in rows],
            "measure_b": [names[b] for _, b in rows],
            "value": pa.array([percent[a, b] for a, b in rows], pa.float64()),
            "inconsistent": pa.array([int(bad[a, b]) for a, b in rows], pa.int64()),
            "comparisons": pa.array([int(total[a, b]) for a, b in rows], pa.int64()),
        }
    )
    return MetaResult(summary, None, {"tolerance": tolerance, "systems": len(systems), "topics": len(topics)}).in_names(
        system, topic
    )
