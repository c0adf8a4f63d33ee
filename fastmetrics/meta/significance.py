"""Paired significance tests across topics, Holm's correction and discriminative power.

For systems ``a`` and ``b`` and one measure, ``d_t = m_a(t) - m_b(t)`` over the topics where
both are defined, and the statistic is the mean difference. Two-sided p-values, estimated with
``B`` resamples and the add-one rule ``p = (1 + #{|stat*| >= |stat|}) / (B + 1)`` (never 0):

- ``fisher`` -- Fisher's randomization (permutation) test: each ``d_t`` flips sign with
  probability 1/2 under the null hypothesis of exchangeable system labels.
- ``bootstrap`` -- the paired bootstrap test: topics are resampled with replacement from the
  differences shifted to mean 0 (the null), as in Sakai's discriminative-power studies.

Discriminative power (Sakai 2006) is the fraction of system pairs whose paired bootstrap p-value
is below ``alpha``.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from .. import _memory
from .._errors import ParameterError
from .._progress import Progress
from .._seeding import rng_of
from ..tensor import Roles
from ._common import MetaResult, labels_array, system_topic_values

METHODS = ("fisher", "bootstrap")


def holm(p_values: np.ndarray) -> np.ndarray:
    """Adjust p-values for multiple comparisons with Holm's step-down method.

    With the ``m`` defined p-values sorted increasingly, ``p_(1) <= ... <= p_(m)``, the adjusted
    values are ``min(1, max_{j <= i} (m - j + 1) p_(j))``; they control the family-wise error rate
    without assuming independence (Holm 1979). Ties keep their input order.

    Parameters
    ----------
    p_values : array_like of float
        The p-values of one family of tests; NaN entries (tests that could not be run) stay NaN
        and do not count in ``m``.

    Returns
    -------
    numpy.ndarray of float64
        The adjusted p-values, in the input's order and shape.
    """
    p = np.asarray(p_values, np.float64)
    out = np.full(p.shape, np.nan)
    ok = np.flatnonzero(~np.isnan(p))
    if ok.size == 0:
        return out
    order = ok[np.argsort(p[ok], kind="stable")]
    m = order.size
    adjusted = np.minimum(1.0, np.maximum.accumulate((m - np.arange(m)) * p[order]))
    out[order] = adjusted
    return out


def _pattern_groups(diff: np.ndarray):
    """Pairs grouped by which topics are defined for them (usually one or two patterns)."""
    valid = ~np.isnan(diff)
    keys = np.packbits(valid, axis=1)
    _, first, inverse = np.unique(keys, axis=0, return_index=True, return_inverse=True)
    for g in np.argsort(first):  # first-occurrence order: deterministic for a seed
        pairs = np.flatnonzero(inverse.reshape(-1) == g)
        yield pairs, np.flatnonzero(valid[pairs[0]])


def paired_p_values(diff: np.ndarray, method: str, resamples: int, rng) -> tuple[np.ndarray, np.ndarray]:
    """Test whether paired per-topic differences have mean 0: mean differences and two-sided p-values.

    Each row of ``diff`` is tested over its defined topics, with the statistic and the add-one
    p-value of the module docstring. Rows defined on the same topics share their resamples.

    Parameters
    ----------
    diff : numpy.ndarray of shape (pairs, topics)
        ``m_a(t) - m_b(t)`` per system pair and topic; NaN where either score is undefined.
    method : {"bootstrap", "fisher"}
        Paired bootstrap test or Fisher's randomization test.
    resamples : int
        Number of resamples ``B``, at least 1.
    rng : numpy.random.Generator
        Source of the resamples.

    Returns
    -------
    mean : numpy.ndarray of float64, shape (pairs,)
        Mean difference over the defined topics; NaN for a row with none.
    p_value : numpy.ndarray of float64, shape (pairs,)
        Two-sided p-value, ``(1 + #{|stat*| >= |stat|}) / (B + 1)``; NaN for a row with no topic.
    """
    if method not in METHODS:
        raise ParameterError(f"method must be one of {', '.join(METHODS)}; got {method!r}.")
    if isinstance(resamples, bool) or not isinstance(resamples, (int, np.integer)) or resamples < 1:
        raise ParameterError(f"The number of resamples must be a positive integer; got {resamples!r}.")
    mean = np.full(diff.shape[0], np.nan)
    p = np.full(diff.shape[0], np.nan)
    # per replicate: the topics' draw (picks, counts, float weights) and every pair's statistic
    n_pairs, n_topics = diff.shape
    what = f"Paired {method} tests of {n_pairs:,} system pairs on {n_topics:,} topics"
    _memory.check_replicates(resamples, 24 * n_topics + 16 * n_pairs, what)
    for pairs, topics in _pattern_groups(diff):
        if topics.size == 0:
            continue
        d = diff[np.ix_(pairs, topics)]
        n = topics.size
        observed = d.mean(axis=1)
        if method == "fisher":
            signs = rng.integers(0, 2, size=(resamples, n)) * 2.0 - 1.0
            stats = d @ signs.T / n
        else:
            picks = rng.integers(0, n, size=(resamples, n)) + n * np.arange(resamples)[:, None]
            weights = np.bincount(picks.reshape(-1), minlength=resamples * n).reshape(resamples, n).astype(np.float64)
            stats = (d - observed[:, None]) @ weights.T / n
        # a relative tolerance: resampled means equal to the observed one up to rounding count
        tol = 1e-12 * np.maximum(1.0, np.abs(observed))[:, None]
        extreme = (np.abs(stats) >= np.abs(observed)[:, None] - tol).sum(axis=1)
        mean[pairs] = observed
        p[pairs] = (1.0 + extreme) / (resamples + 1.0)
    return mean, p


def system_pairs(n_systems: int):
    """Return ``(first, second)`` indices of every unordered pair of systems, ``first < second``."""
    return np.triu_indices(n_systems, 1)


def significance(
    scores,
    *,
    method: str = "bootstrap",
    resamples: int = 1000,
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
    method : {"bootstrap", "fisher"}, default "bootstrap"
        ``bootstrap``: the paired bootstrap test (topics resampled with replacement from the
        differences shifted to mean 0); ``fisher``: Fisher's randomization test (each topic's
        difference flips sign with probability 1/2).
    resamples : int, default 1000
        Number of resamples ``B``; the smallest p-value reachable is ``1 / (B + 1)``.
    seed : int, default 0
        Seed of the random resamples: the same seed gives the same p-values.
    correction : {None, "holm"}
        Holm's step-down correction over the system pairs of each measure.
    progress : bool, default False
        Show a progress bar on a terminal when the job runs longer than about a second.
    system, topic : str, default "system", "topic"
        The axes of ``scores`` playing the system and the topic (e.g. ``system="annotator"`` for
        scores of ``fm.count(..., system="annotator")``); the output columns keep their names.

    Returns
    -------
    MetaResult
        ``summary``: ``measure, system_a, system_b, diff, topics, p_value, p_adjusted``
        (``diff`` = mean over topics of a minus b, in the measure's own direction; the pair's
        columns are ``<system>_a, <system>_b`` after the column playing the system).
    """
    if correction not in (None, "holm"):
        raise ParameterError(f"correction must be None or 'holm'; got {correction!r}.")
    values, systems, _ = system_topic_values(scores, oriented=False, system=system, topic=topic)
    rng = rng_of(seed)
    first, second = system_pairs(len(systems))
    columns = {k: [] for k in ("measure", "system_a", "system_b", "diff", "topics", "p_value", "p_adjusted")}
    bar = Progress(len(scores.measures), f"{method} tests", quiet=not progress)
    for i, name in enumerate(scores.measures):
        bar.update(i)
        diff = values[i, first, :] - values[i, second, :]
        mean, p = paired_p_values(diff, method, resamples, rng)
        columns["measure"] += [name] * first.size
        columns["system_a"] += systems[first].tolist()
        columns["system_b"] += systems[second].tolist()
        columns["diff"].append(mean)
        columns["topics"].append((~np.isnan(diff)).sum(axis=1))
        columns["p_value"].append(p)
        columns["p_adjusted"].append(holm(p) if correction == "holm" else p)
    bar.close()
    for k in ("diff", "topics", "p_value", "p_adjusted"):
        columns[k] = np.concatenate(columns[k]) if columns[k] else np.empty(0)
    pair = Roles(system, topic).pair("system")
    summary = pa.table(
        {
            "measure": columns["measure"],
            pair[0]: labels_array(columns["system_a"]),
            pair[1]: labels_array(columns["system_b"]),
            "diff": pa.array(columns["diff"], pa.float64()),
            "topics": pa.array(columns["topics"], pa.int64()),
            "p_value": pa.array(columns["p_value"], pa.float64()),
            "p_adjusted": pa.array(columns["p_adjusted"], pa.float64()),
        }
    )
    return MetaResult(summary, None, {"method": method, "resamples": resamples, "seed": seed, "correction": correction})


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
