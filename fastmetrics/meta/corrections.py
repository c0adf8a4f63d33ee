"""Multiple-comparison corrections: Holm, Bonferroni, Benjamini-Hochberg.

A family is the tests one correction adjusts together -- a leaderboard's system pairs of one
measure. NaN entries (tests that could not be run) stay NaN and do not count in the family's size
``m``. The adjusted values equal ``statsmodels.stats.multitest.multipletests``'s:

- ``holm`` (Holm 1979): the p-values sorted increasingly, ``p_(1) <= ... <= p_(m)``, adjusted to
  ``min(1, max_{j <= i} (m - j + 1) p_(j))``; controls the family-wise error rate under any
  dependence, and never rejects less than Bonferroni.
- ``bonferroni``: ``min(1, m p)``.
- ``bh`` (Benjamini & Hochberg 1995): ``min(1, min_{j >= i} m p_(j) / j)``; controls the false
  discovery rate (independent or positively dependent tests).

:func:`smallest_adjusted` answers the question a resampling test must ask before it runs: given
the smallest p-value each test can reach (``1 / (B + 1)`` after ``B`` resamples, ``2 / 2^n`` for an
exact test on ``n`` topics), what is the smallest adjusted p-value the family can reach?
"""

from __future__ import annotations

import numpy as np

from .._errors import parameter_error

CORRECTIONS = ("holm", "bonferroni", "bh")


def holm(p_values: np.ndarray) -> np.ndarray:
    """Adjust p-values for multiple comparisons with Holm's step-down method.

    With the ``m`` defined p-values sorted increasingly, ``p_(1) <= ... <= p_(m)``, the adjusted
    values are ``min(1, max_{j <= i} (m - j + 1) p_(j))``; they control the family-wise error rate
    without assuming independence (Holm 1979). Tied p-values get the same adjusted value in any
    order, so they are sorted by numpy's fastest (unstable) sort.

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
    order = ok[np.argsort(p[ok])]
    m = order.size
    out[order] = np.minimum(1.0, np.maximum.accumulate((m - np.arange(m)) * p[order]))
    return out


def adjust(p_values, correction: str | None) -> np.ndarray:
    """P-values adjusted for multiple comparisons.

    Parameters
    ----------
    p_values : array_like of float
        One family of tests; NaN entries stay NaN and do not count.
    correction : {None, "holm", "bonferroni", "bh"}
        None leaves the p-values as they are (a copy).

    Returns
    -------
    ndarray of float64
    """
    p = np.asarray(p_values, np.float64)
    if correction is None:
        return p.copy()
    if correction == "holm":
        return holm(p)
    if correction not in CORRECTIONS:
        raise parameter_error("correction", "adjust", "None, 'holm', 'bonferroni' or 'bh'", correction)
    out = np.full(p.shape, np.nan)
    ok = np.flatnonzero(~np.isnan(p))
    m = ok.size
    if correction == "bonferroni":
        out[ok] = np.minimum(1.0, p[ok] * m)
        return out
    order = ok[np.argsort(p[ok], kind="stable")]
    scaled = p[order] * m / np.arange(1, m + 1)
    out[order] = np.minimum(1.0, np.minimum.accumulate(scaled[::-1])[::-1])
    return out


def check_correction(correction, owner: str) -> None:
    """Refuse a correction that is not one of :data:`CORRECTIONS` (or None)."""
    if correction is not None and correction not in CORRECTIONS:
        raise parameter_error("correction", owner, "None, 'holm', 'bonferroni' or 'bh'", correction)


def smallest_adjusted(smallest_p, correction: str | None) -> float:
    """The smallest adjusted p-value a family can reach, each test at its smallest p-value.

    The corrections are monotone in every p-value, so the family reaches its smallest adjusted
    values when every test is at its own smallest p-value: the least of those adjusted values.

    Parameters
    ----------
    smallest_p : array_like of float
        Per test, the smallest p-value it can give (NaN for a test that cannot be run).
    correction : {None, "holm", "bonferroni", "bh"}

    Returns
    -------
    float
        NaN when no test can be run.
    """
    smallest_p = np.asarray(smallest_p, np.float64)
    if (smallest_p == 0).any():  # every correction keeps a p-value of 0 at 0: no sort needed
        return 0.0
    adjusted = adjust(smallest_p, correction)
    return float(np.nanmin(adjusted)) if np.isfinite(adjusted).any() else float("nan")
