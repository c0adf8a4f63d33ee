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
from . import _inconsistency_kernels as _kernels
from ._common import MetaResult, measure_rows


def inconsistency_counts(rows: np.ndarray, signs: np.ndarray, tolerance: float):
    """Count the comparisons each pair of measures orders differently, and those both define.

    One pass over the comparisons of each slice: each system pair of a topic is signed once per
    measure (eight to a byte), two measures compared by popcounts, the topics in chunks over
    the threads (:mod:`fastmetrics.meta._inconsistency_kernels`).

    Parameters
    ----------
    rows : ndarray of float64, shape (n_measures, n_systems, n_topics, n_slices)
        The values (:func:`~fastmetrics.meta._common.measure_rows`).
    signs : ndarray of float64, shape (n_measures,)
        1 or -1 a measure: the values times it are higher-is-better.
    tolerance : float
        Differences within it are ties.

    Returns
    -------
    inconsistent, comparisons : ndarray of int64, shape (n_slices, n_measures, n_measures)
        Symmetric in the last two axes; the diagonal means nothing.
    """
    n_measures, _, n_topics, n_slices = rows.shape
    n_chunks = max(1, min(n_topics, 4 * numba.get_num_threads()))
    bad = np.zeros((n_chunks, n_slices, n_measures, n_measures), np.int64)
    both = np.zeros_like(bad)
    _kernels.inconsistency_counts(rows, signs, float(tolerance), n_chunks, bad, both)
    bad, both = bad.sum(axis=0), both.sum(axis=0)
    return bad + bad.transpose(0, 2, 1), both + both.transpose(0, 2, 1)


def inconsistency(scores, *, tolerance: float = 1e-5, system: str = "system", topic: str = "topic") -> MetaResult:
    """Percentage of comparisons on which each pair of measures orders two systems differently.

    Parameters
    ----------
    scores : Scores
        Values over ``(system, topic)`` for two or more measures, and optionally other labelled
        axes (a threshold sweep's ``threshold``), judged once per label in one call.
    tolerance : float, default 1e-5
        Differences within ``tolerance`` are ties.
    system, topic : str, default "system", "topic"
        The axes of ``scores`` playing the system and the topic (e.g. ``system="annotator"`` for
        scores of ``fm.count(..., system="annotator")``); the output columns keep their names.

    Returns
    -------
    MetaResult
        ``summary``: ``measure_a, measure_b, value`` (percent), ``inconsistent``, ``comparisons``
        for every ordered pair of distinct measures; with other axes, their columns come first,
        one block of rows per label.
    """
    if not tolerance >= 0:
        raise ParameterError(f"tolerance must be >= 0; got {tolerance!r}.")
    if len(scores.measures) < 2:
        raise ParameterError("Inconsistency compares measures: give at least two.")
    rows, signs, slices = measure_rows(scores, system=system, topic=topic)
    names = list(scores.measures)
    first, second = np.nonzero(~np.eye(len(names), dtype=bool))
    bad, total = inconsistency_counts(rows, signs, tolerance)
    bad, total = bad[:, first, second].reshape(-1), total[:, first, second].reshape(-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        percent = 100.0 * bad / total
    columns = (
        {}
        if slices is None
        else {k: slices.column(k).take(np.repeat(np.arange(rows.shape[3]), first.size)) for k in slices.column_names}
    )
    labels = np.asarray(names, dtype=object)
    columns["measure_a"] = pa.array(np.tile(labels[first], rows.shape[3]).tolist(), pa.string())
    columns["measure_b"] = pa.array(np.tile(labels[second], rows.shape[3]).tolist(), pa.string())
    columns["value"] = pa.array(percent, pa.float64())
    columns["inconsistent"] = pa.array(bad, pa.int64())
    columns["comparisons"] = pa.array(total, pa.int64())
    params = {"tolerance": tolerance, "systems": rows.shape[1], "topics": rows.shape[2]}
    return MetaResult(pa.table(columns), None, params)
