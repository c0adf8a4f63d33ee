"""Paired tests across topics, every system pair of a measure in one batch.

For systems ``a`` and ``b`` and one measure, ``d_t = m_a(t) - m_b(t)`` over the topics where both
are defined. Every test is two-sided:

- ``t`` -- the paired t-test, as ``scipy.stats.ttest_rel``: ``t = mean(d) / (sd(d) / sqrt(n))``
  (``sd`` with ``n - 1``), Student's t with ``n - 1`` degrees of freedom. Continuous p-values: a
  correction over many pairs can use them. The default (see below).
- ``wilcoxon`` -- Wilcoxon's signed-rank test, as ``scipy.stats.wilcoxon`` at its defaults
  (``zero_method="wilcox"``, ``correction=False``, ``method="auto"``): zero differences are
  dropped, the others ranked by absolute value (ties get their average rank), the statistic is
  ``T+``, the sum of the ranks of the positive differences. The p-value is exact (the distribution
  of ``T+`` over the ``2^n`` sign patterns) when there are at most 50 differences and neither a zero
  nor a tie; exact over the sign patterns of the tied ranks (scipy's permutation test, which
  enumerates them all) when there are at most 13 and a zero or a tie; else the normal
  approximation with the ties' variance correction and no continuity correction. ``n`` counts the
  defined topics, zeros included, as scipy's ``method="auto"`` counts them.
- ``sign`` -- the sign test: the number of positive differences among the nonzero ones against
  Binomial(n, 1/2), the two-sided p-value of ``scipy.stats.binomtest`` (zero differences dropped).
- ``fisher`` -- Fisher's randomization (permutation) test of the mean difference: each ``d_t``
  flips sign with probability 1/2 under the null hypothesis. With at most as many sign patterns
  (``2^n``) as resamples, all are enumerated and the p-value is exact, ``#{|stat*| >= |stat|} / 2^n``;
  otherwise ``B`` random patterns and the add-one rule ``(1 + #{|stat*| >= |stat|}) / (B + 1)``.
- ``bootstrap`` -- the paired bootstrap test: topics resampled with replacement from the
  differences shifted to mean 0, add-one p-values as above.

**How many resamples.** A resampled p-value is at least ``1 / (B + 1)``, and a correction over
``m`` pairs multiplies the smallest by ``m`` (Holm, Bonferroni): with ``B = 1000`` and the 190 pairs of
20 systems no pair can reach 0.05. Left to itself (``resamples=None``), a resampling test draws
``B = max(1000, ceil(10 m / alpha))`` resamples (:func:`resamples_for`), so that the smallest
adjusted p-value reachable is a tenth of ``alpha``. :func:`unreachable` says when a family cannot
reach ``alpha`` at all -- too few resamples, or too few topics for an exact test -- and how far
it gets.

**The default is the paired t-test.** Its p-values are continuous (no resampling budget limits
them, so a correction over thousands of pairs still separates systems that differ), deterministic,
and computed for every pair in one pass over the topics; it is what ranx and trec_eval-based
studies use, and on IR evaluation data it agrees with the randomization test, while Wilcoxon's
and the sign test's p-values disagree with both (Smucker, Allan & Carterette 2007; Urbano,
Lima & Hanjalic 2019).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .. import _memory
from .._errors import ParameterError, parameter_error
from .._threads import in_ranges
from . import _paired_kernels as kernels

TESTS = ("t", "wilcoxon", "sign", "fisher", "bootstrap")
RESAMPLED = ("fisher", "bootstrap")
DEFAULT_TEST = "t"
EXACT_WILCOXON = 50  # scipy's method="auto": the exact distribution up to 50 differences ...
PERMUTATION_WILCOXON = 13  # ... and, with a zero or a tie, exact over the sign patterns up to 13
_CHUNK_VALUES = 1 << 22  # resampled statistics held at once: 32 MiB
_MAX_ENUMERATED = 24  # topics whose 2^n sign patterns may be enumerated


@dataclass
class PairedTests:
    """The tests of a batch of pairs (:func:`paired_tests`), one entry per pair.

    Attributes
    ----------
    mean : ndarray of float64
        The mean difference over the defined topics (NaN with none).
    topics : ndarray of int64
        The topics where both systems are defined.
    statistic : ndarray of float64
        The test's statistic: ``t``; Wilcoxon's ``min(T+, T-)`` (scipy's two-sided statistic);
        the sign test's number of positive differences; the mean difference (fisher, bootstrap).
    p_value : ndarray of float64
        Two-sided; NaN where the test cannot be run (no topic; fewer than two for ``t``).
    smallest_p : ndarray of float64
        The smallest p-value the test can give on the pair's topics: 0 for a continuous p-value,
        ``2 / 2^n`` for an exact test on ``n`` nonzero differences, ``1 / (B + 1)`` after ``B`` resamples.
    resamples : int or None
        The resamples drawn (fisher, bootstrap).
    """

    mean: np.ndarray
    topics: np.ndarray
    statistic: np.ndarray
    p_value: np.ndarray
    smallest_p: np.ndarray
    resamples: int | None = None


def check_test(method, owner: str = "paired_tests") -> None:
    """Refuse a test that is not one of :data:`TESTS`."""
    if method not in TESTS:
        raise parameter_error("method", owner, "one of " + ", ".join(repr(t) for t in TESTS), method)


def check_resamples(resamples, owner: str = "paired_tests") -> None:
    """Refuse a number of resamples that is neither None (sized to the correction) nor >= 1."""
    if resamples is None:
        return
    if isinstance(resamples, bool) or not isinstance(resamples, (int, np.integer)) or resamples < 1:
        raise parameter_error("resamples", owner, "None (sized to the correction) or an integer >= 1", resamples)


def check_alpha(alpha, owner: str = "paired_tests") -> None:
    """Refuse a significance level outside (0, 1)."""
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float, np.floating)) or not 0 < alpha < 1:
        raise parameter_error("alpha", owner, "a significance level strictly between 0 and 1 (e.g. 0.05)", alpha)


def resamples_for(family: int, alpha: float) -> int:
    """The resamples a resampling test draws when left to itself: ``max(1000, ceil(10 m / alpha))``.

    With ``B + 1 > 10 m / alpha``, the smallest adjusted p-value (``m / (B + 1)`` under Holm or
    Bonferroni) is below a tenth of ``alpha``.

    Parameters
    ----------
    family : int
        ``m``, the tests one correction adjusts together (1 without a correction).
    alpha : float

    Returns
    -------
    int
    """
    return max(1000, math.ceil(10 * max(int(family), 1) / alpha))


def scipy_special(what: str):
    """``scipy.special``, or a one-line error saying which extra brings it."""
    try:
        import scipy.special
    except ImportError:  # pragma: no cover - scipy is in the test extra
        raise ParameterError(f"{what} needs scipy: pip install 'fastmetrics[stats]'.") from None
    return scipy.special


def paired_tests(values, first, second, method, *, resamples=None, alpha=0.05, family=1, rng=None, progress=None):
    """Test every pair ``(first[p], second[p])`` of rows of ``values[system, topic]``.

    Parameters
    ----------
    values : ndarray of float64, shape (systems, topics)
        One measure's values; NaN where undefined (the topic is left out of that system's pairs).
    first, second : ndarray of int64
        The rows compared; ``second[p] < 0`` compares ``first[p]`` with 0 (a row of differences).
    method : {"t", "wilcoxon", "sign", "fisher", "bootstrap"}
        See the module docstring.
    resamples : int, optional
        Of ``fisher`` and ``bootstrap``; default :func:`resamples_for` ``(family, alpha)``.
    alpha : float, default 0.05
        The level the resamples are sized for.
    family : int, default 1
        The tests the caller's correction adjusts together.
    rng : numpy.random.Generator, optional
        Of the resampling tests.
    progress : callable, optional
        Called with a number of steps done as the resampling tests advance (one step a pair and
        resample).

    Returns
    -------
    PairedTests
    """
    check_test(method)
    check_resamples(resamples)
    values = np.ascontiguousarray(values, np.float64)
    first = np.ascontiguousarray(first, np.int64)
    second = np.ascontiguousarray(second, np.int64)
    n_pairs = first.size
    if method in RESAMPLED:
        budget = int(resamples) if resamples is not None else resamples_for(family, alpha)
        return _resampled(values, first, second, method, budget, rng, progress)
    if method == "t":
        return _t_test(*_t_moments(values, first, second))
    n, mean, m2 = np.zeros(n_pairs, np.int64), np.empty(n_pairs), np.empty(n_pairs)
    up, down = np.zeros(n_pairs, np.int64), np.zeros(n_pairs, np.int64)
    if n_pairs:
        in_ranges(kernels.pair_moments, n_pairs, values, first, second, n, mean, m2, up, down)
    if method == "sign":
        return _sign_test(n, mean, up, down)
    return _wilcoxon(values, first, second, n, mean)


def _t_moments(values, first, second):
    """Per pair: the defined topics, the mean difference and the sum of squared deviations of the
    differences from it, from each system's moments where that is as accurate as the direct pass.

    Systems defined on the same topics share them; for two such rows ``a`` and ``b`` centred on
    their means, ``sum_t (d_t - mean d)^2 = C_aa + C_bb - 2 C_ab`` with ``C`` the Gram matrix of the
    centred rows (one matrix product for every pair) and ``mean d = (S_a - S_b) / n`` from
    compensated row sums ``S``. Both cancel when the systems are close; the worst-case rounding
    bounds (Higham 2002, ch. 3-4) say by how much, and a pair whose bound exceeds
    :data:`_MOMENT_TOLERANCE` of its value -- near-identical systems, equal means -- takes the
    direct pass over its differences (:func:`~fastmetrics.meta._paired_kernels.pair_moments`), as do
    pairs on different topics and rows compared with 0.
    """
    n_pairs = first.size
    n, mean, m2 = np.zeros(n_pairs, np.int64), np.full(n_pairs, np.nan), np.full(n_pairs, np.nan)
    direct = np.ones(n_pairs, bool)
    valid = ~np.isnan(values)
    if n_pairs and values.shape[1] >= 2:
        if valid.all():
            group = np.zeros(values.shape[0], np.int64)
        else:
            group = np.unique(np.packbits(valid, axis=1), axis=0, return_inverse=True)[1].reshape(-1)
        other = np.maximum(second, 0)
        shared = (second >= 0) & (group[first] == group[other])
        # one group (every row defined on the same topics) needs no sort of the pairs' groups
        groups = np.unique(group[first[shared]]) if group.any() else np.flatnonzero([shared.any()])
        for g in groups:
            rows = np.flatnonzero(group == g)
            columns = np.flatnonzero(valid[rows[0]])
            if columns.size < 2:
                continue
            pairs = np.flatnonzero(shared & (group[first] == g))
            at = np.zeros(values.shape[0], np.int64)
            at[rows] = np.arange(rows.size)
            if columns.size < values.shape[1]:
                block = values[np.ix_(rows, columns)]
            else:
                block = values if rows.size == values.shape[0] else values[rows]
            ok, pair_mean, pair_m2 = _gram_moments(np.ascontiguousarray(block), at[first[pairs]], at[second[pairs]])
            kept = pairs[ok]
            n[kept], mean[kept], m2[kept] = columns.size, pair_mean[ok], pair_m2[ok]
            direct[kept] = False
    rest = np.flatnonzero(direct)
    if rest.size:
        sub = [np.zeros(rest.size, np.int64), np.empty(rest.size), np.empty(rest.size)]
        up, down = np.zeros(rest.size, np.int64), np.zeros(rest.size, np.int64)
        parts = _parts(rest.size * values.shape[1])
        in_ranges(kernels.pair_moments, rest.size, values, first[rest], second[rest], *sub, up, down, parts=parts)
        n[rest], mean[rest], m2[rest] = sub
    return n, mean, m2


def _parts(work: int) -> int | None:
    """One range for less than :data:`_SMALL_WORK` steps (a thread woken would cost more than it
    saves), else one a thread."""
    return 1 if work < _SMALL_WORK else None


_SMALL_WORK = 1 << 24
_MOMENT_TOLERANCE = 1e-12  # relative error allowed (by the worst-case bound) to the moments of a pair
_EPS = np.finfo(np.float64).eps / 2  # the unit roundoff


def _gram_moments(block, a, b):
    """Mean difference and sum of squared deviations of the pairs ``(a, b)`` of rows of ``block``
    (no NaN) from the rows' moments, and which pairs' rounding bounds are within tolerance.

    The compensated sums ``S`` are within ``2u |S| + n^2 u^2 sum |x|`` of the exact sums, so the mean
    difference is within ``u (2 |S_a| + 2 |S_b| + |S_a - S_b|) + ...`` of exact; the Gram matrix's
    entries are within ``n u / (1 - n u) sum_t |x_a x_b|`` (any summation order), and the centred
    rows' own roundings within a few ``u``: the sum of squared deviations is within
    ``2 (n + 3) u (C_aa + C_bb)`` of exact."""
    size = block.shape[1]
    sums, magnitudes = np.empty(block.shape[0]), np.empty(block.shape[0])
    kernels.row_sums(block, sums, magnitudes)
    centred = block - (sums / size)[:, None]
    # a numba kernel rather than BLAS, whose threads on a busy machine can take a hundred times longer
    gram = np.zeros((block.shape[0], block.shape[0]))
    k = block.shape[0]
    in_ranges(kernels.gram_rows, k, centred, gram, parts=_parts(k * k * size // 2))
    ok, mean, m2 = np.empty(a.size, np.bool_), np.empty(a.size), np.empty(a.size)
    kernels.gram_pairs(sums, magnitudes, gram, a, b, float(size), _EPS, _MOMENT_TOLERANCE, ok, mean, m2)
    return ok, mean, m2


def _t_test(n, mean, m2) -> PairedTests:
    special = scipy_special("The paired t-test")
    with np.errstate(invalid="ignore", divide="ignore"):
        sd = np.sqrt(m2 / (n - 1))
        t = mean / (sd / np.sqrt(n))
        p = 2.0 * special.stdtr(n - 1.0, -np.abs(t))
    p = np.where(n >= 2, p, np.nan)
    return PairedTests(mean, n, np.where(n >= 2, t, np.nan), p, np.where(n >= 2, 0.0, np.nan))


def _sign_test(n, mean, up, down) -> PairedTests:
    special = scipy_special("The sign test")
    nonzero = up + down
    with np.errstate(invalid="ignore"):
        p = np.minimum(1.0, 2.0 * special.bdtr(np.minimum(up, down), np.maximum(nonzero, 1), 0.5))
    ok = nonzero > 0
    smallest = np.minimum(1.0, 2.0 * 0.5 ** nonzero.astype(np.float64))
    return PairedTests(mean, n, up.astype(np.float64), np.where(ok, p, np.nan), np.where(ok, smallest, np.nan))


def _wilcoxon(values, first, second, n, mean) -> PairedTests:
    special = scipy_special("Wilcoxon's signed-rank test")
    n_pairs = first.size
    t_plus, tie_term = np.empty(n_pairs), np.empty(n_pairs)
    nonzero, defined, tied = np.zeros(n_pairs, np.int64), np.zeros(n_pairs, np.int64), np.zeros(n_pairs, np.bool_)
    if n_pairs:
        in_ranges(kernels.pair_signed_ranks, n_pairs, values, first, second, t_plus, tie_term, nonzero, defined, tied)
    k = nonzero.astype(np.float64)
    plain = (defined <= EXACT_WILCOXON) & ~tied & (nonzero == defined)
    enumerated = ~plain & (defined <= PERMUTATION_WILCOXON)
    normal = ~plain & ~enumerated
    with np.errstate(invalid="ignore", divide="ignore"):
        se = np.sqrt((k * (k + 1) * (2 * k + 1) - tie_term / 2) / 24)
        z = (t_plus - k * (k + 1) / 4) / se
        p = special.erfc(np.abs(z) / math.sqrt(2.0))
    smallest = np.where(normal, 0.0, np.minimum(1.0, 2.0 * 0.5**k))
    doubled = np.empty(max(values.shape[1], 1), np.int64)
    for i in np.flatnonzero((plain | enumerated) & (defined > 0)):
        if plain[i]:
            counts = _signed_rank_counts(int(nonzero[i]))
            observed = int(round(t_plus[i]))
        else:
            size = kernels.pair_doubled_ranks(values, first, second, i, doubled)
            counts = _subset_sum_counts(doubled[:size])
            observed = int(round(2 * t_plus[i]))
        total = counts.sum()
        p[i] = min(1.0, 2.0 * min(counts[: observed + 1].sum(), counts[observed:].sum()) / total)
    statistic = np.minimum(t_plus, k * (k + 1) / 2 - t_plus)
    ok = defined > 0
    return PairedTests(
        mean, n, np.where(ok, statistic, np.nan), np.where(ok, p, np.nan), np.where(ok, smallest, np.nan)
    )


_SIGNED_RANK_COUNTS: dict = {}


def _signed_rank_counts(n: int) -> np.ndarray:
    """The number of subsets of ``{1, ..., n}`` with each sum: ``T+``'s distribution times ``2^n``."""
    if n not in _SIGNED_RANK_COUNTS:
        _SIGNED_RANK_COUNTS[n] = _subset_sum_counts(np.arange(1, n + 1))
    return _SIGNED_RANK_COUNTS[n]


def _subset_sum_counts(parts) -> np.ndarray:
    """``counts[s]`` = the number of subsets of the integers ``parts`` summing to ``s`` (exact in
    float64 up to 2^53 subsets)."""
    counts = np.zeros(int(np.sum(parts)) + 1)
    counts[0] = 1.0
    top = 0
    for r in np.asarray(parts, np.int64).tolist():
        counts[r : top + r + 1] += counts[: top + 1].copy()
        top += r
    return counts


def _resampled(values, first, second, method, budget, rng, progress) -> PairedTests:
    """Fisher's randomization test or the paired bootstrap test, pairs grouped by the topics
    they are defined on (usually one group); the resamples drawn in chunks of bounded memory."""
    if rng is None:
        raise ParameterError("The resampling tests need a random generator (rng=).")
    diff = values[first] - np.where(second[:, None] >= 0, values[np.maximum(second, 0)], 0.0)
    n_pairs = first.size
    mean, p = np.full(n_pairs, np.nan), np.full(n_pairs, np.nan)
    smallest = np.full(n_pairs, np.nan)
    topics = (~np.isnan(diff)).sum(axis=1)
    for pairs, columns in pattern_groups(diff):
        if columns.size == 0:
            continue
        d = diff[np.ix_(pairs, columns)]
        n = columns.size
        observed = d.mean(axis=1)
        exact = method == "fisher" and n <= _MAX_ENUMERATED and 2**n <= budget
        draws = 2**n if exact else budget
        extreme = _extreme_counts(d, observed, method, draws, exact, rng, progress)
        mean[pairs] = observed
        if exact:
            p[pairs] = extreme / draws
            smallest[pairs] = 2.0 / draws
        else:
            p[pairs] = (1.0 + extreme) / (budget + 1.0)
            smallest[pairs] = 1.0 / (budget + 1.0)
    return PairedTests(mean, topics.astype(np.int64), mean.copy(), p, smallest, budget)


def _extreme_counts(d, observed, method, draws, exact, rng, progress) -> np.ndarray:
    """Per row of ``d``, the resampled means at least as far from 0 as the observed one."""
    n_rows, n = d.shape
    chunk = max(1, min(draws, _CHUNK_VALUES // max(n_rows, n)))
    # a relative tolerance: resampled means equal to the observed one up to rounding count
    threshold = (np.abs(observed) - 1e-12 * np.maximum(1.0, np.abs(observed)))[:, None]
    centred = d - observed[:, None]
    extreme = np.zeros(n_rows, np.int64)
    bits = np.arange(n, dtype=np.int64)
    for start in range(0, draws, chunk):
        size = min(chunk, draws - start)
        if exact:
            signs = ((np.arange(start, start + size, dtype=np.int64)[:, None] >> bits) & 1) * 2.0 - 1.0
            stats = d @ signs.T / n
        elif method == "fisher":
            signs = rng.integers(0, 2, size=(size, n)) * 2.0 - 1.0
            stats = d @ signs.T / n
        else:
            picks = rng.integers(0, n, size=(size, n)) + n * np.arange(size)[:, None]
            weights = np.bincount(picks.reshape(-1), minlength=size * n).reshape(size, n).astype(np.float64)
            stats = centred @ weights.T / n
        extreme += (np.abs(stats) >= threshold).sum(axis=1)
        if progress is not None:
            progress(size * n_rows)
    return extreme


def pattern_groups(diff: np.ndarray):
    """Rows grouped by which columns are defined (not NaN) in them, in order of first appearance.

    Parameters
    ----------
    diff : ndarray, shape (rows, columns)

    Yields
    ------
    rows, columns : ndarray of int64
        The rows of one group and the columns defined in all of them.
    """
    valid = ~np.isnan(diff)
    if diff.shape[0] == 0:
        return
    keys = np.packbits(valid, axis=1)
    _, first, inverse = np.unique(keys, axis=0, return_index=True, return_inverse=True)
    inverse = inverse.reshape(-1)
    for g in np.argsort(first):  # first-occurrence order: deterministic for a seed
        rows = np.flatnonzero(inverse == g)
        yield rows, np.flatnonzero(valid[rows[0]])


def resampled_work(values, first, second, method, resamples, family, alpha) -> int:
    """Pairs times resamples a resampling test will draw (the steps of its progress bar).

    0 for the tests that draw none."""
    if method not in RESAMPLED:
        return 0
    budget = int(resamples) if resamples is not None else resamples_for(family, alpha)
    n_topics = values.shape[1]
    draws = 2**n_topics if method == "fisher" and n_topics <= _MAX_ENUMERATED and 2**n_topics <= budget else budget
    return int(first.size) * min(draws, budget)


def check_memory(n_pairs: int, n_topics: int, method: str, what: str, resamples: int) -> None:
    """Refuse, before any test, a batch that cannot be held.

    A resampling test holds one measure's ``pairs x topics`` differences (and their centred copy)
    and the statistics of a chunk of resamples, ``min(resamples, chunk)`` of them
    (:func:`_extreme_counts`).

    Parameters
    ----------
    n_pairs, n_topics : int
    method : str
    what : str
        The tests, for the message.
    resamples : int
        The resamples each pair draws (already sized to the correction when left to itself).
    """
    if method in RESAMPLED:
        rows = max(n_pairs, n_topics, 1)
        chunk = min(int(resamples), max(1, _CHUNK_VALUES // rows)) * rows
        _memory.check(
            16 * n_pairs * n_topics + 8 * chunk,
            f"{what} with {int(resamples):,} resamples",
            "Use fewer resamples (--test-resamples, resamples=) or compare fewer systems (each pair's "
            "differences are held at once), or use --significance t",
        )


def unreachable(smallest_adjusted: float, alpha: float) -> bool:
    """Whether a family can reject nothing at ``alpha``.

    ``smallest_adjusted`` is the smallest adjusted p-value the family can reach."""
    return not (smallest_adjusted < alpha)
