"""Random classifiers for the checker: every expectation the properties take goes through here.

The distributions and the expectation itself are :mod:`fastmetrics.measures.chance` (shared with
the leaderboard's random baseline); this module adds the two readings the properties need:

- a random classifier on a test set (Sebastiani's (2015) ``CHA``): :func:`expected_random`, with the
  ``"count"`` or ``"uniform"`` model of :func:`fastmetrics.measures.chance.random_outcomes`;
- a random labeling B with given class sizes b against a true labeling with class sizes a (seed
  003's constant baseline): the contingency tables with margins a and b and their probabilities
  (:func:`tables_with_margins`; for two classes the hypergeometric distribution of tp), and the
  expected matrix a_i b_j / n (:func:`expected_matrix`, the approximate constant baseline).
"""

from __future__ import annotations

import math

import numpy as np

from ...measures import chance, registry
from .matrices import binary_matrix

_lgamma = np.vectorize(math.lgamma)


def expected_random(measure, ap: int, an: int, model: str = "count", smoothing=None) -> float:
    """E[M] of the random classifier on a test set with ``ap`` positives and ``an`` negatives.

    Parameters
    ----------
    measure : str or MeasureSpec
        A registered measure (name, alias or spec string).
    ap, an : int
        Positives and negatives of the test set.
    model : {"count", "uniform"}, default "count"
        ``"count"``: the number of predicted positives uniform on 0..n, then the items at random
        (reproduces Sebastiani (2015, §4)); ``"uniform"``: every labeling equally likely.
    smoothing : {None, "laplace", "noninformative"}
        Smoothing of the measure (Amigó et al. 2019, §5).

    Returns
    -------
    float
        The expectation in the measure's own direction, over the outcomes where it is defined.

    See Also
    --------
    fastmetrics.measures.chance.expected_random

    Examples
    --------
    >>> round(expected_random("f1", 100, 0), 3)
    0.613
    """
    return chance.expected_random(registry.make_spec(measure), ap, an, model, smoothing)


def hypergeometric_tables(a, b):
    """The 2 x 2 tables with given class sizes and their probabilities (hypergeometric).

    The true labeling has class sizes ``a``, the predicted one is drawn uniformly among the
    labelings with class sizes ``b``.

    Parameters
    ----------
    a, b : array_like
        ``(size of class 0, size of class 1)`` of the true and the predicted labeling.

    Returns
    -------
    tables : numpy.ndarray
        ``C[k, 2, 2]``, tp increasing.
    p : numpy.ndarray
        Hypergeometric probabilities (:func:`fastmetrics.measures.chance.hypergeometric`).
    """
    n, a1, b1 = int(a[0] + a[1]), int(a[1]), int(b[1])
    tp, p = chance.hypergeometric(n, a1, b1)
    return binary_matrix(tp, b1 - tp, a1 - tp, n - a1 - b1 + tp), p


def tables_with_margins(C, a, b):
    """The m x m tables with given class sizes and their probabilities (multivariate hypergeometric).

    The tables are the matrices among ``C`` with row sums ``a`` and column sums ``b``; their
    probability when B is drawn uniformly among the labelings with class sizes b is
    prod a! prod b! / (n! prod c!). With two classes this is :func:`hypergeometric_tables`.

    Parameters
    ----------
    C : numpy.ndarray
        Enumerated matrices ``C[k, m, m]`` (every matrix with these margins must be among them).
    a, b : numpy.ndarray
        True and predicted class sizes.

    Returns
    -------
    tables : numpy.ndarray
        ``C[k, m, m]`` in the order of ``C``.
    p : numpy.ndarray
        Their probabilities (the multivariate hypergeometric distribution).
    """
    rows = C[(C.sum(axis=2) == a).all(axis=1) & (C.sum(axis=1) == b).all(axis=1)]
    n = a.sum()
    logp = _lgamma(a + 1).sum() + _lgamma(b + 1).sum() - math.lgamma(n + 1) - _lgamma(rows + 1).sum(axis=(1, 2))
    return rows, np.exp(logp)


def expected_given_margins(f, tables, p) -> float:
    """E[M] over the tables of a random labeling with fixed class sizes.

    NaN if M is undefined on one of the tables (:func:`fastmetrics.measures.chance.expectation`
    with ``require_all``).

    Parameters
    ----------
    f : callable
        Oriented measure of ``C[..., m, m]``.
    tables, p : numpy.ndarray
        From :func:`hypergeometric_tables` or :func:`tables_with_margins`.

    Returns
    -------
    float
    """
    return chance.expectation(f(tables), p, require_all=True)


def expected_matrix(a, b) -> np.ndarray:
    """The expected confusion matrix of a random labeling: c_ij = a_i b_j / n.

    Parameters
    ----------
    a, b : numpy.ndarray
        True and predicted class sizes (same total n).

    Returns
    -------
    numpy.ndarray
        ``float64`` array of shape ``(1, m, m)``.
    """
    return (a[:, None] * b[None, :] / a.sum())[None]
