"""Many systems at once: Friedman's test, its post-hoc comparisons and the tiers they draw.

The topics are the blocks (the data sets of Demšar 2006): on each topic the systems are ranked by
the measure, rank 1 the best in the measure's direction, tied systems sharing their average rank.
Only the topics where every system is defined take part (a complete block design); the others are
counted and left out. With ``n`` topics, ``k`` systems and mean ranks ``R_j``:

- **Friedman's test** (Friedman 1937), as ``scipy.stats.friedmanchisquare``:
  ``chi2 = (12 / (n k (k + 1)) sum_j (n R_j)^2 - 3 n (k + 1)) / C`` with the ties' correction
  ``C = 1 - sum (t^3 - t) / (n k (k^2 - 1))``, chi-square with ``k - 1`` degrees of freedom.
- **Iman and Davenport's F** (1980), less conservative: ``F = (n - 1) chi2 / (n (k - 1) - chi2)``
  with ``k - 1`` and ``(k - 1)(n - 1)`` degrees of freedom.
- **Nemenyi's test** (Nemenyi 1963; Demšar 2006): two systems differ when their mean ranks
  differ by more than the critical difference ``CD = q_alpha sqrt(k (k + 1) / (6 n))``, ``q_alpha``
  the studentized range's ``1 - alpha`` quantile over ``sqrt(2)``; the p-value of a pair is the
  studentized range's survival function at ``|R_i - R_j| sqrt(2) / sqrt(k (k + 1) / (6 n))``, as
  scikit-posthocs' ``posthoc_nemenyi_friedman`` computes it. It controls the family-wise error by
  itself: no further correction.
- **Conover's test** (Conover & Iman 1979; Conover 1999), as scikit-posthocs'
  ``posthoc_conover_friedman``: ``t = |S_i - S_j| / sqrt(A B)`` over the rank sums ``S``, with
  ``A = 2 n (k - 1) S2 / df``, ``B = 1 - T2 / (n (k - 1))``, Student's t with
  ``df = (n - 1)(k - 1)``; its p-values are corrected (Holm by default).
- **Wilcoxon-Holm**: Wilcoxon's signed-rank test of every pair on the same topics
  (:mod:`fastmetrics.meta.paired`), Holm-corrected -- the post-hoc test Benavoli, Corani &
  Mangili (2016) recommend over those on mean ranks, whose outcome depends on the other systems.

**Tiers.** Pairs whose (corrected) p-value is below ``alpha`` are *separated*. With the systems in
their order (mean rank, or a leaderboard's ranking), a *group* is a maximal run of consecutive
systems no two of which are separated -- the bars of a critical-difference diagram; each system
lists the letters of the groups it belongs to (a compact letter display: two systems sharing a
letter are not separated). The *tiers* partition the order: tier 1 is the group starting at the
first system, and each next tier the longest run of consecutive systems, starting right after the
previous tier, no two of which are separated -- the clusters a shared task publishes.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from .._errors import parameter_error
from .._threads import in_ranges
from ..meta.corrections import adjust
from ..meta.paired import paired_tests, scipy_special
from ._compare_kernels import piecewise_polynomial, range_sf, topic_ranks

POSTHOC = ("nemenyi", "conover", "wilcoxon")
_Q_GRID = 0.05  # spacing of the studentized range's grid (its log survival interpolated between points)
_Q_MAX = 60.0  # beyond it, the survival function of any k is below the smallest double
_NODES = 128  # Gauss-Legendre nodes of the studentized range's integral


def check_posthoc(posthoc, owner: str = "compare") -> None:
    """Refuse a post-hoc test that is not one of :data:`POSTHOC`."""
    if posthoc not in POSTHOC:
        raise parameter_error("posthoc", owner, "one of " + ", ".join(repr(p) for p in POSTHOC), posthoc)


def block_ranks(values: np.ndarray) -> tuple[np.ndarray, float]:
    """Ranks of the systems on each topic, 1 the best (highest value), ties sharing their average.

    Parameters
    ----------
    values : ndarray of float64, shape (systems, topics)
        Oriented values (higher is better), all defined.

    Returns
    -------
    ranks : ndarray of float64, shape (systems, topics)
    ties : float
        ``sum (t^3 - t)`` over the groups of tied systems of every topic (Friedman's correction).
    """
    by_topic = np.ascontiguousarray(values.T, np.float64)
    ranks = np.empty(values.shape)
    ties = np.zeros(by_topic.shape[0])
    if by_topic.size:
        # numpy sorts every topic's row at once (vectorised); any order within ties: they share their average rank
        order = np.argsort(-by_topic, axis=1)
        topic_ranks(0, by_topic.shape[0], by_topic, order, ranks, ties)  # a pass of microseconds: no threads
    return ranks, float(ties.sum())


def friedman_test(ranks: np.ndarray, ties: float) -> dict:
    """Friedman's chi-square and Iman and Davenport's F of one measure's ranks.

    Parameters
    ----------
    ranks : ndarray of float64, shape (systems, topics)
        :func:`block_ranks` of the complete topics.
    ties : float
        Their tie term (:func:`block_ranks`).

    Returns
    -------
    dict
        ``chi2, p_chi2, f, p_f`` (NaN with fewer than two systems or topics, or every topic a tie).
    """
    special = scipy_special("Friedman's test")
    k, n = ranks.shape
    nan = dict(chi2=math.nan, p_chi2=math.nan, f=math.nan, p_f=math.nan)
    if k < 2 or n < 2:
        return nan
    c = 1.0 - ties / (k * (k * k - 1.0) * n)
    if c <= 0:
        return nan
    sums = ranks.sum(axis=1)
    chi2 = (12.0 / (k * n * (k + 1.0)) * float(np.sum(sums**2)) - 3.0 * n * (k + 1.0)) / c
    chi2 = max(chi2, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        f = (n - 1.0) * chi2 / (n * (k - 1.0) - chi2) if n * (k - 1.0) > chi2 else math.inf
    return dict(
        chi2=chi2,
        p_chi2=float(special.chdtrc(k - 1.0, chi2)),
        f=f,
        p_f=0.0 if math.isinf(f) else float(special.fdtrc(k - 1.0, (k - 1.0) * (n - 1.0), f)),
    )


def critical_difference(k: int, n: int, alpha: float) -> float:
    """Nemenyi's critical difference of mean ranks: ``q_alpha sqrt(k (k + 1) / (6 n))``.

    Parameters
    ----------
    k, n : int
        Systems and topics.
    alpha : float

    Returns
    -------
    float
        NaN with fewer than two systems or no topic.
    """
    if k < 2 or n < 1:
        return math.nan
    return _q_alpha(k, alpha) / math.sqrt(2.0) * math.sqrt(k * (k + 1.0) / (6.0 * n))


@functools.lru_cache(maxsize=64)
def _q_alpha(k: int, alpha: float) -> float:
    from scipy.stats import studentized_range

    return float(studentized_range.ppf(1.0 - alpha, k, np.inf))


def nemenyi_p(mean_ranks: np.ndarray, n: int, first, second) -> np.ndarray:
    """Nemenyi's p-values of the pairs ``(first, second)`` from the systems' mean ranks."""
    k = mean_ranks.size
    q = np.abs(mean_ranks[first] - mean_ranks[second]) * math.sqrt(2.0) / math.sqrt(k * (k + 1.0) / (6.0 * n))
    return studentized_range_sf(q, k)


def studentized_range_sf(q, k: int) -> np.ndarray:
    """The survival function of the studentized range of ``k`` standard normals, many ``q`` at once.

    The studentized range has infinite degrees of freedom here.

    ``P(Q > q) = k ∫ φ(z) Φ(z)^(k-1) [1 - (1 - Φ(z - q) / Φ(z))^(k-1)] dz``, every term positive, so
    the tail keeps its relative accuracy; computed by Gauss-Legendre quadrature on a grid of ``q``
    (every 0.05 up to 60, once per ``k`` and process) and its logarithm interpolated by a quintic
    spline (within 1e-9 of the quadrature at every point). ``scipy.stats.studentized_range.sf``
    gives the same values (to 1e-9) at about a millisecond a value, which the thousands of pairs
    of a large leaderboard cannot pay.

    Parameters
    ----------
    q : array_like of float
    k : int
        At least 2.

    Returns
    -------
    ndarray of float64
    """
    q = np.asarray(q, np.float64)
    breaks, coefficients = _log_sf_spline(int(k))
    x = np.clip(q, 0.0, _Q_MAX)
    # the spline as its polynomial pieces, evaluated by Horner's rule: the same values (to
    # rounding) at a fraction of a B-spline evaluation's cost
    log_sf = np.empty(x.shape)
    piecewise_polynomial(0, x.size, np.ascontiguousarray(x).reshape(-1), breaks, coefficients, log_sf.reshape(-1))
    out = np.exp(log_sf)
    return np.where(q >= _Q_MAX, 0.0, np.where(q <= 0, 1.0, np.minimum(out, 1.0)))


@functools.lru_cache(maxsize=16)
def _log_sf_spline(k: int):
    """The quintic spline of the log survival function on the grid: its breakpoints and its
    pieces' polynomial coefficients, highest power first."""
    from scipy.interpolate import PPoly, make_interp_spline

    grid = np.arange(0.0, _Q_MAX + _Q_GRID / 2, _Q_GRID)
    spline = make_interp_spline(grid, np.log(np.maximum(range_sf_quadrature(grid, k), 1e-320)), k=5)
    pieces = PPoly.from_spline(spline)
    wide = np.diff(pieces.x) > 0  # the spline's repeated end knots give pieces of no width
    return np.append(pieces.x[:-1][wide], pieces.x[-1]), pieces.c[:, wide]


def range_sf_quadrature(q, k: int) -> np.ndarray:
    """:func:`studentized_range_sf` by quadrature at each ``q`` (no grid).

    The reference the spline is built from.

    Parameters
    ----------
    q : array_like of float
    k : int

    Returns
    -------
    ndarray of float64
    """
    q = np.ascontiguousarray(q, np.float64)
    nodes, weights = np.polynomial.legendre.leggauss(_NODES)
    z = np.linspace(-40.0, 40.0, 8001)
    with np.errstate(divide="ignore"):
        log_density = math.log(k) - 0.5 * z * z + (k - 1) * scipy_special("Nemenyi's test").log_ndtr(z)
    # the density of the largest of k normals, where it exceeds 1e-40 of the total
    kept = z[log_density > math.log(1e-40)]
    out = np.empty(q.size)
    in_ranges(range_sf, q.size, q, float(k), nodes, weights, float(kept[0] - 0.01), float(kept[-1] + 0.01), out)
    return out


def conover_p(ranks: np.ndarray, first, second) -> np.ndarray:
    """Conover's (uncorrected) p-values of the pairs ``(first, second)`` from the block ranks."""
    special = scipy_special("Conover's test")
    k, n = ranks.shape
    sums = ranks.sum(axis=1)
    s2 = (float(np.sum(ranks**2)) - k * n * (k + 1.0) ** 2 / 4.0) / (k - 1.0)
    t2 = float(np.sum((sums - n * (k + 1.0) / 2.0) ** 2)) / s2
    df = n * k - k - n + 1.0
    a = s2 * 2.0 * n * (k - 1.0) / df
    b = 1.0 - t2 / (n * (k - 1.0))
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.abs(sums[first] - sums[second]) / math.sqrt(a) / math.sqrt(b)
        return 2.0 * special.stdtr(df, -t)


def posthoc_p(posthoc, values, ranks, first, second, correction) -> np.ndarray:
    """The p-values of one measure's pairs by ``posthoc``, corrected where the test needs it.

    Parameters
    ----------
    posthoc : {"nemenyi", "conover", "wilcoxon"}
    values : ndarray, shape (systems, topics)
        The complete topics' values (Wilcoxon's test reads them).
    ranks : ndarray, shape (systems, topics)
        Their block ranks.
    first, second : ndarray of int64
        The pairs.
    correction : {None, "holm", "bonferroni", "bh"}
        Of Conover's and Wilcoxon's p-values (Nemenyi's need none).

    Returns
    -------
    ndarray of float64
    """
    if ranks.shape[1] < 1 or ranks.shape[0] < 2:
        return np.full(first.size, np.nan)
    if posthoc == "nemenyi":
        return nemenyi_p(ranks.mean(axis=1), ranks.shape[1], first, second)
    if posthoc == "conover":
        return adjust(conover_p(ranks, first, second), correction)
    return adjust(paired_tests(values, first, second, "wilcoxon").p_value, correction)


def group_spans(order, separated) -> list:
    """The groups of systems in ``order``.

    Groups are maximal runs of consecutive positions no two of which are separated (see the module
    docstring).

    Parameters
    ----------
    order : sequence of int
        The systems (indices into ``separated``), best first.
    separated : ndarray of bool, shape (systems, systems)
        Symmetric: the pairs a test separates.

    Returns
    -------
    list of (int, int)
        First and last position (in ``order``) of each group, in order; every position is in one
        group at least (a system no other joins is a group of its own).
    """
    return _spans(_reach(order, separated))


def _spans(reach) -> list:
    """The groups' first and last positions from :func:`_reach`."""
    return [(i, int(reach[i])) for i in range(reach.size) if i == 0 or reach[i] > reach[i - 1]]


def _reach(order, separated) -> np.ndarray:
    """``reach[i]``: the last position of the longest run from ``i`` with no separated pair.

    With ``f[a]`` the first position after ``a`` separated from it, the run ``i..j`` is free iff
    ``f[a] > j`` for every ``a`` in it, so the run from ``i`` ends just before ``min(f[i:])``."""
    order = np.asarray(list(order), np.int64)
    n = order.size
    if n == 0:
        return np.zeros(0, np.int64)
    ordered = np.triu(np.asarray(separated, bool)[np.ix_(order, order)], 1)
    first_apart = np.where(ordered.any(axis=1), ordered.argmax(axis=1), n)
    return np.minimum.accumulate(first_apart[::-1])[::-1] - 1


def tiers(order, separated) -> tuple[np.ndarray, list]:
    """Tiers and groups of systems in ``order`` (see the module docstring).

    :func:`tiers_and_spans` without the spans.

    Parameters
    ----------
    order : sequence of int
        The systems (indices into ``separated``), best first.
    separated : ndarray of bool, shape (systems, systems)
        Symmetric: the pairs a test separates.

    Returns
    -------
    tier : ndarray of int64
        Per position of ``order``, its tier (1 the first).
    groups : list of str
        Per position of ``order``, the letters of the groups holding it (``"a"``, ``"ab"``; after
        ``z`` come ``aa``, ``ab`` ...).
    """
    return tiers_and_spans(order, separated)[:2]


def tiers_and_spans(order, separated) -> tuple[np.ndarray, list, list]:
    """:func:`tiers` and :func:`group_spans` of the same systems, from one pass over ``separated``.

    Returns ``(tier, groups, spans)``: :func:`tiers`' two results and :func:`group_spans`'.
    """
    reach = _reach(order, separated)
    n = reach.size
    groups = [""] * n
    spans = _spans(reach)
    for g, (first, last) in enumerate(spans):
        letters = _letters(g)
        for position in range(first, last + 1):
            groups[position] += letters
    tier = np.zeros(n, np.int64)
    start, number = 0, 1
    while start < n:
        tier[start : reach[start] + 1] = number
        start, number = int(reach[start]) + 1, number + 1
    return tier, groups, spans


@functools.lru_cache(maxsize=1024)
def _letters(g: int) -> str:
    text = ""
    g += 1
    while g:
        g, r = divmod(g - 1, 26)
        text = chr(ord("a") + r) + text
    return text
