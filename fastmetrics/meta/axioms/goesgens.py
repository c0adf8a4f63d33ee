"""Gösgens et al. (2021) (Gösgens, Zhiyanov, Tikhonov & Prokhorenkova 2021, §3): Definitions 1-9.

Each definition is one function over a :class:`.spaces.Space`: the binary checker runs it on
every 2 x 2 matrix, ``check_multiclass`` on every m x m matrix with a measure's native
multiclass definition. Readings:

- ``cb`` and ``acb`` take true labelings with every class present: with a unary true labeling
  the measures of Table 2 are 0/0 (CC, BA in the paper's form), which Gösgens et al. (2021) fills by
  convention; fastmetrics' balanced_accuracy is defined there (macro recall over the present
  class, as scikit-learn) and would otherwise fail ``cb`` through that convention alone.
- ``cb`` is exact: a sum over every contingency table with the given margins
  (:mod:`.random_classifier`); an (A, b) where the measure is undefined on one of them is skipped.
- ``dist`` checks the triangle inequality on every triple of labelings of a few items.
"""

from __future__ import annotations

import numpy as np

from . import engines, random_classifier
from .engines import Outcome
from .matrices import labeling_matrices
from .spaces import EQ, Space


def goesgens_max(space: Space) -> Outcome:
    """Def. 1, maximal agreement: M(C) <= c_max with equality iff C is diagonal.

    Parameters
    ----------
    space : Space
        Binary or multiclass.

    Returns
    -------
    tuple
        ``(holds, counterexample, note)``.
    """
    return engines.extreme(space, engines.diagonal(space.C), "max")


def goesgens_min(space: Space) -> Outcome:
    """Def. 2, minimal agreement: M(C) >= c_min with equality iff the diagonal of C is zero.

    Parameters
    ----------
    space : Space
        Binary or multiclass.

    Returns
    -------
    tuple
        ``(holds, counterexample, note)``.
    """
    return engines.extreme(space, engines.zero_diagonal(space.C), "min")


def goesgens_sym(space: Space) -> Outcome:
    """Def. 3, symmetry: M(C) = M(C^T) (true and predicted labeling exchanged).

    Parameters
    ----------
    space : Space
        Binary or multiclass.

    Returns
    -------
    tuple
        ``(holds, counterexample, note)``.
    """
    return engines.invariance(space, engines.transpose, "transposed")


def goesgens_csym(space: Space) -> Outcome:
    """Def. 4, class symmetry: M is unchanged by every permutation of the classes.

    In the binary case the only permutation swaps the class and its complement, which is also
    Sebastiani's (2015) ``SYM``; the first failing permutation is reported.

    Parameters
    ----------
    space : Space
        Binary or multiclass.

    Returns
    -------
    tuple
        ``(holds, counterexample, note)``.
    """
    for p in engines.class_permutations(space.m):
        outcome = engines.invariance(space, lambda X, p=p: engines.permute(X, p), space.permutation(p))
        if outcome[0] is False:
            return outcome
    return True, None, ""


def _triangle(space: Space, c_max: float, n: int):
    """The first labelings (A, B, C) of ``n`` items with d(A,C) > d(A,B) + d(B,C) + EQ, as text
    (None if there are none)."""
    L = space.labelings(n)
    k = len(L)
    d = c_max - space.f(labeling_matrices(L, space.m)).reshape(k, k)
    excess = d[:, None, :] - (d[:, :, None] + d[None, :, :])  # d(a,c) - d(a,b) - d(b,c), index [a, b, c]
    bad = np.nan_to_num(excess, nan=-1.0) > EQ
    if not bad.any():
        return None
    a, b, c = np.unravel_index(np.argmax(bad), bad.shape)
    text = ", ".join(f"{name}={''.join(map(str, L[x]))}" for name, x in (("A", a), ("B", b), ("C", c)))
    return space.triangle_text(f"labelings {text}", d[a, c], d[a, b] + d[b, c])


def goesgens_dist(space: Space) -> Outcome:
    """Def. 5, distance: M can be linearly transformed to a metric.

    That is: M is symmetric, has maximal agreement, and c_max - M satisfies the triangle
    inequality, checked on every triple of labelings of a few items (``space.dist_sizes()``).

    Parameters
    ----------
    space : Space
        Binary or multiclass.

    Returns
    -------
    tuple
        ``(holds, counterexample, note)``.
    """
    sym = goesgens_sym(space)
    if sym[0] is False:
        return False, "not symmetric: " + sym[1], ""
    mx = goesgens_max(space)
    if mx[0] is not True:
        return False, "no maximal agreement: " + (mx[1] or mx[2]), ""
    c_max = float(space.f(np.eye(space.m)[None])[0])
    for n in space.dist_sizes():
        found = _triangle(space, c_max, n)
        if found is not None:
            return False, found, ""
    return True, None, space.dist_note()


def goesgens_mon(space: Space) -> Outcome:
    """Def. 6, monotonicity: resolving a disagreement strictly increases M.

    Moving one item from c_ab (a != b) to c_aa or c_bb must increase M, on every matrix with no
    row or column sum equal to n; comparisons with an undefined side are skipped.

    Parameters
    ----------
    space : Space
        Binary or multiclass.

    Returns
    -------
    tuple
        ``(holds, counterexample, note)``.
    """
    return engines.verdict(engines.moves(space, engines.agreement_moves(space), allowed=engines.non_unary(space.C)))


def goesgens_smon(space: Space) -> Outcome:
    """Def. 7, strong monotonicity: one more agreement or one disagreement less increases M.

    Incrementing a diagonal cell or decrementing an off-diagonal one must strictly increase M,
    on every matrix with no row or column sum equal to n, unless both matrices are diagonal or
    both zero-diagonal; comparisons with an undefined side are skipped.

    Parameters
    ----------
    space : Space
        Binary or multiclass.

    Returns
    -------
    tuple
        ``(holds, counterexample, note)``.
    """
    found = engines.moves(space, engines.strong_moves(space), allowed=engines.non_unary(space.C), exclude_extremes=True)
    return engines.verdict(found)


def goesgens_cb(space: Space) -> Outcome:
    """Def. 8, constant baseline: a random labeling scores the same expected M everywhere.

    E[M(A, B)] over B uniform among the labelings with class sizes b must be the same for every
    true labeling A (every class present) and every non-unary b; exact sums over the tables of
    :mod:`.random_classifier`, cases where M is undefined on a table skipped.

    Parameters
    ----------
    space : Space
        Binary or multiclass.

    Returns
    -------
    tuple
        ``(holds, counterexample, note)``.
    """
    values, skipped = [], 0
    for key, a, b in space.baseline_cases():
        e = random_classifier.expected_given_margins(space.f, *space.margin_tables(a, b))
        skipped += np.isnan(e)
        values.append((key, space.sign * e))
    ok, cex = engines.constant(values, "E[M] =")
    return ok, cex, space.baseline_note(skipped)


def goesgens_acb(space: Space) -> Outcome:
    """Def. 9, approximate constant baseline: the expected matrix scores the same everywhere.

    M of the expected matrix a_i b_j / n must be the same for every class sizes a (every class
    present) and every non-unary b.

    Parameters
    ----------
    space : Space
        Binary or multiclass.

    Returns
    -------
    tuple
        ``(holds, counterexample, note)``.
    """
    values = [
        (key, space.sign * float(space.f(random_classifier.expected_matrix(a, b))[0]))
        for key, a, b in space.baseline_cases()
    ]
    ok, cex = engines.constant(values, "M(expected matrix) =")
    return ok, cex, space.baseline_note(0)
