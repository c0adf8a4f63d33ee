"""Inconsistency between measures (Gösgens et al. 2021, §5).

A *comparison* is a pair of systems on one topic. Measure ``m`` orders it by the sign of the score
difference -- +1 or -1 beyond a tolerance (default 1e-5, as the paper's code), 0 (a tie) inside
it -- after orienting every measure so that higher is better. Two measures are inconsistent on a
comparison when their signs differ; a win against a tie counts, as in the paper's definition
(consistent iff ``M1(A, B1) * M1(A, B2)`` implies ``M2(A, B1) * M2(A, B2)`` for * in <, >, =).
Comparisons where either measure is undefined (NaN) are skipped for that pair.

Note on Gösgens et al. (2021, Table 4): the published percentages equal these on 4 of the 28 pairs and are
0.07-0.41 points lower on the others, because the paper's script skips a win-against-tie whenever
some other measure of its set of eleven prefers the opposite side. That rule makes a pair's value
depend on which other measures were computed; fastmetrics follows the definition instead.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from .._errors import ParameterError
from .._threads import in_ranges, thread_count
from . import _common
from . import _inconsistency_kernels as _kernels
from ._common import MetaResult, measure_rows, slices_first


def inconsistency_counts(rows: np.ndarray, signs: np.ndarray, tolerance: float, by_numpy: bool = False):
    """Count the comparisons each pair of measures orders differently, and those both define.

    One pass over the comparisons of each slice: each system pair of a topic is signed once per
    measure (eight to a byte), two measures compared by popcounts, the topics in chunks over
    the threads (:mod:`fastmetrics.meta._inconsistency_kernels`); by numpy on a few comparisons
    (:func:`_counts_numpy`).

    Parameters
    ----------
    rows : ndarray of float64, shape (n_measures, n_systems, n_topics, n_slices)
        The values (:func:`~fastmetrics.meta._common.measure_rows`).
    signs : ndarray of float64, shape (n_measures,)
        1 or -1 a measure: the values times it are higher-is-better.
    tolerance : float
        Differences within it are ties.
    by_numpy : bool, default False
        Count by numpy (:func:`_counts_numpy`), not by the kernel.

    Returns
    -------
    inconsistent, comparisons : ndarray of int64, shape (n_slices, n_measures, n_measures)
        Symmetric in the last two axes; the diagonal means nothing.
    """
    if by_numpy:
        counted = [_counts_numpy(values, tolerance) for values in slices_first(rows, signs)]
        return np.stack([c[0] for c in counted]), np.stack([c[1] for c in counted])
    n_measures, _, n_topics, n_slices = rows.shape
    n_chunks = max(1, min(n_topics, 4 * thread_count()))
    bad = np.zeros((n_chunks, n_slices, n_measures, n_measures), np.int64)
    both = np.zeros_like(bad)
    kernel = _kernels.inconsistency_counts
    in_ranges(kernel, n_chunks, rows, signs, float(tolerance), n_chunks, bad, both)
    bad, both = bad.sum(axis=0), both.sum(axis=0)
    return bad + bad.transpose(0, 2, 1), both + both.transpose(0, 2, 1)


def _counts_numpy(values: np.ndarray, tolerance: float):
    """:func:`inconsistency_counts` of one slice ``values[measure, system, topic]`` (oriented) by
    numpy: the signs of every comparison of every measure at once, and the pairs of measures as
    products of their indicator rows (exact integers)."""
    n_measures, n_systems, _ = values.shape
    first, second = np.triu_indices(n_systems, 1)
    with np.errstate(invalid="ignore"):  # inf - inf: undefined, as in the kernel
        differences = (values[:, first] - values[:, second]).reshape(n_measures, -1)
    defined = ~np.isnan(differences)
    both = _pair_sums(defined)
    agree = sum(
        _pair_sums(defined & side)
        for side in (differences > tolerance, differences < -tolerance, np.abs(differences) <= tolerance)
    )
    return both - agree, both


def _pair_sums(indicators: np.ndarray) -> np.ndarray:
    """``out[a, b]`` = the comparisons both rows a and b of ``indicators`` mark; 0 on the diagonal."""
    rows = indicators.astype(np.float64)
    out = np.rint(rows @ rows.T).astype(np.int64)
    np.fill_diagonal(out, 0)
    return out


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
    n_measures, n_systems, n_topics, n_slices = rows.shape
    comparisons = n_slices * n_measures * n_systems * (n_systems - 1) // 2 * n_topics
    bad, total = inconsistency_counts(rows, signs, tolerance, comparisons <= _common.NUMPY_VALUES)
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
