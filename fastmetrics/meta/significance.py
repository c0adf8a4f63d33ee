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

from .._errors import ParameterError
from .._seeding import rng_of
from ._common import MetaResult, Progress, labels_array, system_topic_values

METHODS = ("fisher", "bootstrap")


def holm(p_values: np.ndarray) -> np.ndarray:
    """Holm's step-down adjusted p-values (NaN entries stay NaN and do not count)."""
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
    """Mean differences and two-sided p-values for ``diff[pair, topic]`` (NaN = undefined)."""
    if method not in METHODS:
        raise ParameterError(f"method must be one of {', '.join(METHODS)}; got {method!r}.")
    if isinstance(resamples, bool) or not isinstance(resamples, (int, np.integer)) or resamples < 1:
        raise ParameterError(f"The number of resamples must be a positive integer; got {resamples!r}.")
    mean = np.full(diff.shape[0], np.nan)
    p = np.full(diff.shape[0], np.nan)
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
    return np.triu_indices(n_systems, 1)


def significance(scores, *, method: str = "bootstrap", resamples: int = 1000, seed: int = 0,
                 correction: str | None = None, progress: bool = False) -> MetaResult:
    """Paired significance between every pair of systems, per measure.

    Parameters
    ----------
    scores : Scores
        Values over ``(system, topic)``.
    method : {"bootstrap", "fisher"}
    resamples : int, default 1000
    seed : int, default 0
    correction : {None, "holm"}
        Holm's step-down correction over the system pairs of each measure.
    progress : bool, default False
        Show a progress bar on a terminal when the job runs longer than about a second.

    Returns
    -------
    MetaResult
        ``summary``: ``measure, system_a, system_b, diff, topics, p_value, p_adjusted``
        (``diff`` = mean over topics of a minus b, in the measure's own direction).
    """
    if correction not in (None, "holm"):
        raise ParameterError(f"correction must be None or 'holm'; got {correction!r}.")
    values, systems, _ = system_topic_values(scores, oriented=False)
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
    summary = pa.table({
        "measure": columns["measure"], "system_a": labels_array(columns["system_a"]),
        "system_b": labels_array(columns["system_b"]), "diff": pa.array(columns["diff"], pa.float64()),
        "topics": pa.array(columns["topics"], pa.int64()), "p_value": pa.array(columns["p_value"], pa.float64()),
        "p_adjusted": pa.array(columns["p_adjusted"], pa.float64()),
    })
    return MetaResult(summary, None, {"method": method, "resamples": resamples, "seed": seed,
                                      "correction": correction})


def power(scores, *, alpha: float = 0.05, resamples: int = 1000, seed: int = 0, progress: bool = False) -> MetaResult:
    """Discriminative power: the fraction of system pairs significantly different at ``alpha``
    under the paired bootstrap test, per measure.

    Returns
    -------
    MetaResult
        ``summary``: ``measure, value`` (the fraction), ``significant``, ``pairs`` (pairs with
        at least one topic where both systems are defined); ``detail``: the tests.
    """
    if not 0 < alpha < 1:
        raise ParameterError(f"alpha must be in (0, 1); got {alpha!r}.")
    tests = significance(scores, method="bootstrap", resamples=resamples, seed=seed, progress=progress).summary
    names = list(scores.measures)
    measure = np.asarray(tests.column("measure").to_pylist(), dtype=object)
    p = tests.column("p_value").to_numpy(zero_copy_only=False)
    significant = [int(np.sum((measure == m) & (p < alpha))) for m in names]
    pairs = [int(np.sum((measure == m) & ~np.isnan(p))) for m in names]
    summary = pa.table({
        "measure": names,
        "value": pa.array([s / n if n else np.nan for s, n in zip(significant, pairs)], pa.float64()),
        "significant": pa.array(significant, pa.int64()), "pairs": pa.array(pairs, pa.int64()),
    })
    return MetaResult(summary, tests, {"alpha": alpha, "resamples": resamples, "seed": seed})
