"""Paired significance tests between every pair of systems, and discriminative power.

:func:`significance` runs one of the paired tests across topics of :mod:`fastmetrics.meta.paired`
(the paired t-test by default; Wilcoxon's signed-rank test, the sign test, Fisher's randomization
test, the paired bootstrap test) on every pair of systems of every measure, each measure's pairs in
one batch, and corrects each measure's family of pairs (Holm, Bonferroni, Benjamini-Hochberg:
:mod:`fastmetrics.meta.corrections`). When a family cannot reach ``alpha`` -- too few resamples
or topics -- a :class:`~fastmetrics.SignificanceWarning` names the smallest adjusted p-value it can
reach and what to change.

Discriminative power (Sakai 2006) is the fraction of system pairs whose paired bootstrap p-value
is below ``alpha``.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pyarrow as pa

from .._errors import ParameterError, SignificanceWarning
from .._numbers import count, short
from .._progress import Progress
from .._seeding import rng_of
from ..tensor import Roles
from ._common import MetaResult, labels_array, system_topic_values
from .corrections import adjust, check_correction, holm, smallest_adjusted
from .paired import (
    DEFAULT_TEST,
    RESAMPLED,
    TESTS,
    check_alpha,
    check_memory,
    check_resamples,
    check_test,
    paired_tests,
    resampled_work,
    resamples_for,
)

METHODS = TESTS
__all__ = ["METHODS", "holm", "paired_p_values", "power", "significance", "system_pairs"]
_NAMES = {
    "t": "Paired t-tests",
    "wilcoxon": "Wilcoxon signed-rank tests",
    "sign": "Sign tests",
    "fisher": "Randomization tests",
    "bootstrap": "Paired bootstrap tests",
}
_CORRECTION_NAMES = {"holm": "Holm's", "bonferroni": "Bonferroni's", "bh": "Benjamini-Hochberg's"}


def paired_p_values(diff: np.ndarray, method: str, resamples: int, rng) -> tuple[np.ndarray, np.ndarray]:
    """Test whether paired per-topic differences have mean 0: mean differences and two-sided p-values.

    Each row of ``diff`` is tested over its defined topics (see :mod:`fastmetrics.meta.paired`);
    rows defined on the same topics share their resamples.

    Parameters
    ----------
    diff : numpy.ndarray of shape (pairs, topics)
        ``m_a(t) - m_b(t)`` per system pair and topic; NaN where either score is undefined.
    method : {"t", "wilcoxon", "sign", "fisher", "bootstrap"}
        The test.
    resamples : int
        Number of resamples ``B`` of ``fisher`` and ``bootstrap``, at least 1.
    rng : numpy.random.Generator
        Source of the resamples.

    Returns
    -------
    mean : numpy.ndarray of float64, shape (pairs,)
        Mean difference over the defined topics; NaN for a row with none.
    p_value : numpy.ndarray of float64, shape (pairs,)
        Two-sided p-value; NaN for a row with no topic.
    """
    if method not in METHODS:
        raise ParameterError(f"method must be one of {', '.join(METHODS)}; got {method!r}.")
    if isinstance(resamples, bool) or not isinstance(resamples, (int, np.integer)) or resamples < 1:
        raise ParameterError(f"The number of resamples must be a positive integer; got {resamples!r}.")
    rows = np.arange(diff.shape[0], dtype=np.int64)
    result = paired_tests(diff, rows, np.full(rows.size, -1), method, resamples=int(resamples), rng=rng)
    return result.mean, result.p_value


def system_pairs(n_systems: int):
    """Return ``(first, second)`` indices of every unordered pair of systems, ``first < second``."""
    return np.triu_indices(n_systems, 1)


def significance(
    scores,
    *,
    method: str = DEFAULT_TEST,
    resamples: int | None = None,
    alpha: float = 0.05,
    seed: int = 0,
    correction: str | None = None,
    progress: bool = False,
    system: str = "system",
    topic: str = "topic",
) -> MetaResult:
    """Paired significance between every pair of systems, per measure.

    Parameters
    ----------
    scores : Scores
        Values over ``(system, topic)``.
    method : {"t", "wilcoxon", "sign", "fisher", "bootstrap"}, default "t"
        The paired test across topics (:mod:`fastmetrics.meta.paired`): the paired t-test,
        Wilcoxon's signed-rank test, the sign test, Fisher's randomization test, the paired
        bootstrap test.
    resamples : int, optional
        Resamples of ``fisher`` and ``bootstrap``; by default as many as the correction needs
        to reach a tenth of ``alpha`` (:func:`~fastmetrics.meta.paired.resamples_for`).
    alpha : float, default 0.05
        The level the resamples are sized for and the warning checks.
    seed : int, default 0
        Seed of the random resamples: the same seed gives the same p-values.
    correction : {None, "holm", "bonferroni", "bh"}
        The correction of each measure's family of system pairs.
    progress : bool, default False
        Show a progress bar on a terminal when the job runs longer than about a second.
    system, topic : str, default "system", "topic"
        The axes of ``scores`` playing the system and the topic (e.g. ``system="annotator"`` for
        scores of ``fm.count(..., system="annotator")``); the output columns keep their names.

    Returns
    -------
    MetaResult
        ``summary``: ``measure, system_a, system_b, diff, topics, statistic, p_value, p_adjusted``
        (``diff`` = mean over topics of a minus b, in the measure's own direction; the pair's
        columns are ``<system>_a, <system>_b`` after the column playing the system).
        ``params``: the test, the resamples drawn, ``alpha``, the correction, and ``notes``:
        one line per measure whose family cannot reach ``alpha``.

    Warns
    -----
    SignificanceWarning
        A measure's family cannot reach ``alpha`` (too few resamples, or too few topics for an
        exact test); the message names the smallest adjusted p-value reachable.
    """
    check_test(method, "significance")
    check_resamples(resamples, "significance")
    check_alpha(alpha, "significance")
    check_correction(correction, "significance")
    values, systems, _ = system_topic_values(scores, oriented=False, system=system, topic=topic)
    rng = rng_of(seed)
    first, second = (np.asarray(x, np.int64) for x in system_pairs(len(systems)))
    family = first.size if correction is not None else 1
    what = f"{_NAMES[method]} of {first.size:,} system pairs on {values.shape[2]:,} topics"
    check_memory(first.size, values.shape[2], method, what, resamples or resamples_for(family, alpha))
    work = resampled_work(values[0] if len(values) else values, first, second, method, resamples, family, alpha)
    columns = {k: [] for k in ("diff", "topics", "statistic", "p_value", "p_adjusted")}
    notes = []
    with Progress(max(work, 1) * len(scores.measures), f"{method} tests", quiet=not progress) as bar:
        for i, name in enumerate(scores.measures):
            bar.update(i * max(work, 1))
            tests = paired_tests(
                values[i],
                first,
                second,
                method,
                resamples=resamples,
                alpha=alpha,
                family=family,
                rng=rng,
                progress=bar.advance if work else None,
            )
            columns["diff"].append(tests.mean)
            columns["topics"].append(tests.topics)
            columns["statistic"].append(tests.statistic)
            columns["p_value"].append(tests.p_value)
            columns["p_adjusted"].append(adjust(tests.p_value, correction))
            note = reach_note(method, name, tests.smallest_p, correction, alpha, tests.resamples)
            if note:
                notes.append(note)
    for k in ("diff", "topics", "statistic", "p_value", "p_adjusted"):
        columns[k] = np.concatenate(columns[k]) if columns[k] else np.empty(0)
    pair = Roles(system, topic).pair("system")
    repeat = len(scores.measures)
    summary = pa.table(
        {
            "measure": pa.array(list(scores.measures), pa.string()).take(np.repeat(np.arange(repeat), first.size)),
            pair[0]: labels_array(systems).take(np.tile(first, repeat)),
            pair[1]: labels_array(systems).take(np.tile(second, repeat)),
            "diff": pa.array(columns["diff"], pa.float64()),
            "topics": pa.array(columns["topics"], pa.int64()),
            "statistic": pa.array(columns["statistic"], pa.float64()),
            "p_value": pa.array(columns["p_value"], pa.float64()),
            "p_adjusted": pa.array(columns["p_adjusted"], pa.float64()),
        }
    )
    for note in notes:
        warnings.warn(note, SignificanceWarning, stacklevel=2)
    drawn = (resamples if resamples is not None else resamples_for(family, alpha)) if method in RESAMPLED else None
    params = dict(method=method, resamples=drawn, alpha=alpha, seed=seed, correction=correction, notes=notes)
    return MetaResult(summary, None, params)


def reach_note(method, measure, smallest_p, correction, alpha, resamples) -> str | None:
    """The sentence saying that a family of tests cannot reach ``alpha``, or None when it can.

    Parameters
    ----------
    method : str
        The test.
    measure : str
        The measure whose pairs form the family.
    smallest_p : ndarray of float64
        The smallest p-value each test can give (:attr:`PairedTests.smallest_p`).
    correction : str or None
    alpha : float
    resamples : int or None
        The resamples drawn (resampling tests).

    Returns
    -------
    str or None
    """
    reachable = smallest_adjusted(smallest_p, correction)
    if math.isnan(reachable) or reachable < alpha:
        return None
    m = int(np.sum(~np.isnan(smallest_p)))
    least = float(np.nanmin(smallest_p))
    if method in RESAMPLED and resamples is not None and least >= 1.0 / (resamples + 1.0):
        why = f"{count(resamples)} resamples give p-values of at least 1/{count(resamples + 1)}"
        needed = resamples_for(m if correction else 1, alpha)
        fix = (
            f"give {count(needed)} resamples or more (--test-resamples, resamples=), or leave the number to size itself"
        )
    else:
        why = f"an exact test on these topics gives p-values of at least {short(least)}"
        fix = "more topics are needed, or a test with continuous p-values (--significance t)"
    if correction:
        why += f", and {_CORRECTION_NAMES[correction]} correction over {m:,} pairs makes the smallest adjusted p-value"
    else:
        why += ", so the smallest p-value is"
    return (
        f"{_NAMES[method]} of {measure}: {why} reachable {short(reachable)}, not below alpha {short(alpha)}: "
        f"no pair can be significant; {fix}."
    )


def power(
    scores,
    *,
    alpha: float = 0.05,
    resamples: int = 1000,
    seed: int = 0,
    progress: bool = False,
    system: str = "system",
    topic: str = "topic",
) -> MetaResult:
    """Compute each measure's discriminative power: the fraction of system pairs it separates.

    A pair is separated when its paired bootstrap test (:func:`significance`) gives a p-value
    below ``alpha`` (Sakai 2006); pairs with no topic where both systems are defined do not count.

    Parameters
    ----------
    scores : Scores
        Values over ``(system, topic)``.
    alpha : float, default 0.05
        Significance level, in (0, 1).
    resamples : int, default 1000
        Number of bootstrap resamples per pair.
    seed : int, default 0
        Seed of the resamples: the same seed gives the same result.
    progress : bool, default False
        Show a progress bar on a terminal when the job runs longer than about a second.
    system, topic : str, default "system", "topic"
        The axes of ``scores`` playing the system and the topic (e.g. ``system="annotator"`` for
        scores of ``fm.count(..., system="annotator")``); the output columns keep their names.

    Returns
    -------
    MetaResult
        ``summary``: ``measure, value`` (the fraction), ``significant``, ``pairs`` (pairs with
        at least one topic where both systems are defined); ``detail``: the tests.
    """
    if not 0 < alpha < 1:
        raise ParameterError(f"alpha must be in (0, 1); got {alpha!r}.")
    roles = dict(system=system, topic=topic)
    tests = significance(scores, method="bootstrap", resamples=resamples, seed=seed, progress=progress, **roles).summary
    names = list(scores.measures)
    measure = np.asarray(tests.column("measure").to_pylist(), dtype=object)
    p = tests.column("p_value").to_numpy(zero_copy_only=False)
    significant = [int(np.sum((measure == m) & (p < alpha))) for m in names]
    pairs = [int(np.sum((measure == m) & ~np.isnan(p))) for m in names]
    summary = pa.table(
        {
            "measure": names,
            "value": pa.array([s / n if n else np.nan for s, n in zip(significant, pairs)], pa.float64()),
            "significant": pa.array(significant, pa.int64()),
            "pairs": pa.array(pairs, pa.int64()),
        }
    )
    return MetaResult(summary, tests, {"alpha": alpha, "resamples": resamples, "seed": seed})
