"""The checks shared by several properties, written once over m x m matrices.

Each takes a :class:`.spaces.Space` (binary: m = 2) and returns an outcome
``(holds, counterexample, note)``: ``holds`` is True, False, or None where the property cannot
be decided.

- :func:`extreme`: one value on a set of matrices, reached nowhere else (maximal / minimal
  agreement);
- :func:`invariance`: the measure unchanged by a transformation of the matrices (class
  permutations, transposition);
- :func:`moves`: the measure strictly increased by changes of cells (monotonicity in its
  several readings), with :func:`corrections`, :func:`agreement_moves` and :func:`strong_moves`;
- :func:`constant`: one value over a list of cases (baselines, trivial classifiers).
"""

from __future__ import annotations

import itertools
from typing import NamedTuple

import numpy as np

from ..._numbers import short
from .spaces import EQ, Space, first

Outcome = tuple[bool | None, str | None, str]
"""A decision: ``(holds, counterexample, note)``; holds is None where it cannot be decided."""


def diagonal(C) -> np.ndarray:
    """Which matrices are diagonal (every item agreed on).

    Parameters
    ----------
    C : numpy.ndarray
        ``C[k, m, m]``.

    Returns
    -------
    numpy.ndarray of bool
        Shape ``(k,)``.
    """
    m = C.shape[-1]
    return (C[:, ~np.eye(m, dtype=bool)] == 0).all(axis=1)


def zero_diagonal(C) -> np.ndarray:
    """Which matrices have a zero diagonal (every item disagreed on).

    Parameters
    ----------
    C : numpy.ndarray
        ``C[k, m, m]``.

    Returns
    -------
    numpy.ndarray of bool
        Shape ``(k,)``.
    """
    m = C.shape[-1]
    return (C[:, np.eye(m, dtype=bool)] == 0).all(axis=1)


def non_unary(C) -> np.ndarray:
    """Which matrices have no row sum and no column sum equal to n (both labelings non-unary).

    Parameters
    ----------
    C : numpy.ndarray
        ``C[k, m, m]``.

    Returns
    -------
    numpy.ndarray of bool
        Shape ``(k,)``.
    """
    n = C.sum(axis=(1, 2))[:, None]
    return ~((C.sum(axis=2) == n).any(axis=1) | (C.sum(axis=1) == n).any(axis=1))


def extreme(space: Space, where, kind: str) -> Outcome:
    """Whether the measure's extreme value is taken exactly on the matrices ``where``.

    For ``kind`` "max" ("min") the measure must take one value on ``where`` and a strictly lower
    (higher) one on every other matrix; values within ``EQ`` are equal.

    Parameters
    ----------
    space : Space
    where : numpy.ndarray of bool
        The extreme matrices (diagonal ones for "max", zero-diagonal ones for "min").
    kind : {"max", "min"}

    Returns
    -------
    tuple
        ``(holds, counterexample, note)``; holds is None if the measure is undefined on every
        extreme matrix.
    """
    C, v = space.C, space.values
    ok = ~np.isnan(v)
    special = where & ok
    if not special.any():
        return None, None, "undefined on every such matrix"
    j = first(special)
    ref = v[j]
    i = first(special & (np.abs(v - ref) > EQ))
    if i is not None:
        text = f"{space.fmt(C[j])} -> {short(space.sign * ref)} but {space.fmt(C[i])} -> {short(space.sign * v[i])}"
        return False, text, ""
    i = first(~where & ok & ((v >= ref - EQ) if kind == "max" else (v <= ref + EQ)))
    if i is not None:
        return False, space.reach_text(C[i], v[i], ref, C[j]), ""
    return True, None, ""


def invariance(space: Space, transform, what: str) -> Outcome:
    """The measure is unchanged (or undefined on both sides) when the matrices are transformed.

    Parameters
    ----------
    space : Space
    transform : callable
        ``C[k, m, m] -> C'[k, m, m]``.
    what : str
        The transformation, as counterexamples name it.

    Returns
    -------
    tuple
        ``(holds, counterexample, note)``; values within ``space.swap_tolerance`` (relative)
        are equal.
    """
    image = transform(space.C)
    a, b = space.values, space.f(image)
    same = np.abs(a - b) <= space.swap_tolerance * np.maximum(1, np.abs(a))
    i = first(~((np.isnan(a) & np.isnan(b)) | same))
    if i is None:
        return True, None, ""
    return False, space.swap_text(space.C[i], image[i], a[i], b[i], what), ""


def class_permutations(m: int) -> list[tuple[int, ...]]:
    """Every permutation of m classes but the identity, in lexicographic order.

    Parameters
    ----------
    m : int

    Returns
    -------
    list of tuple of int
    """
    return [p for p in itertools.permutations(range(m)) if p != tuple(range(m))]


def permute(C, p) -> np.ndarray:
    """The matrices with their classes permuted: ``c'_ij = c_{p(i) p(j)}``.

    Parameters
    ----------
    C : numpy.ndarray
        ``C[k, m, m]``.
    p : sequence of int
        A permutation of 0..m-1.

    Returns
    -------
    numpy.ndarray
    """
    return C[:, list(p)][:, :, list(p)]


def transpose(C) -> np.ndarray:
    """The transposed matrices (true and predicted labeling exchanged).

    Parameters
    ----------
    C : numpy.ndarray
        ``C[k, m, m]``.

    Returns
    -------
    numpy.ndarray
    """
    return np.swapaxes(C, 1, 2)


class Move(NamedTuple):
    """A change of cells (``step[m, m]``, -1 / +1 entries) and its name in counterexamples."""

    step: np.ndarray
    label: str


def _step(m: int, *changes: tuple[int, int, int]) -> np.ndarray:
    step = np.zeros((m, m))
    for a, b, d in changes:
        step[a, b] += d
    return step


def corrections(space: Space) -> list[Move]:
    """The moves of Sebastiani's (2015) MON: one wrong decision made right.

    c_ab -> c_aa for a != b (an item of class a predicted b is now predicted a; binary:
    ``fn -> tp`` and ``fp -> tn``), by the target cell in the space's order.

    Parameters
    ----------
    space : Space
        Gives m, the order of the cells and their names.

    Returns
    -------
    list of Move
    """
    m = space.m
    targets = [a for a, b in space.cells if a == b]
    return [
        Move(_step(m, (a, b, -1), (a, a, 1)), f"{space.cell(a, b)} -> {space.cell(a, a)}")
        for a in targets
        for row, b in space.cells
        if row == a != b
    ]


def agreement_moves(space: Space) -> list[Move]:
    """The moves of Gösgens et al. (2021, Def. 6): a disagreement resolved either way.

    c_ab decremented and c_aa or c_bb incremented, for a != b, by the source cell in the
    space's order.

    Parameters
    ----------
    space : Space
        Gives m, the order of the cells and their names.

    Returns
    -------
    list of Move
    """
    m = space.m
    return [
        Move(_step(m, (a, b, -1), (t, t, 1)), f"{space.cell(a, b)} -> {space.cell(t, t)}")
        for a, b in space.cells
        if a != b
        for t in (a, b)
    ]


def strong_moves(space: Space) -> list[Move]:
    """The moves of Gösgens et al. (2021, Def. 7): one more agreement or one disagreement less.

    A diagonal cell incremented or an off-diagonal one decremented, cells in the space's
    order.

    Parameters
    ----------
    space : Space
        Gives m, the order of the cells and their names.

    Returns
    -------
    list of Move
    """
    m = space.m
    return [
        Move(_step(m, (a, b, 1 if a == b else -1)), f"{'+' if a == b else '-'}{space.cell(a, b)}")
        for a, b in space.cells
    ]


def moves(
    space: Space, steps: list[Move], *, allowed=None, strict_defined: bool = False, exclude_extremes: bool = False
) -> tuple[float, str] | None:
    """The smallest violation of "every move strictly increases the measure", or None.

    Parameters
    ----------
    space : Space
    steps : list of Move
    allowed : numpy.ndarray of bool, optional
        Matrices a move may start from (default: all).
    strict_defined : bool
        An undefined side is a violation (otherwise the comparison is skipped).
    exclude_extremes : bool
        Skip moves between two diagonal or two zero-diagonal matrices (Gösgens et al. 2021, Def. 7).

    Returns
    -------
    tuple or None
        ``(n, counterexample)`` of the violation on the smallest test set (the first move listed
        among equally small ones).
    """
    C, base = space.C, space.values
    best = None
    for step, what in steps:
        ok = np.ones(len(C), bool) if allowed is None else allowed.copy()
        ok &= (C[:, step < 0] >= 1).all(axis=1)
        source = C[ok]
        target = source + step
        a, b = base[ok], space.f(target)
        undefined = np.isnan(a) | np.isnan(b)
        bad = (undefined | ~(a < b)) if strict_defined else (~undefined & ~(a < b - 1e-12))
        if exclude_extremes:
            bad &= ~((diagonal(source) & diagonal(target)) | (zero_diagonal(source) & zero_diagonal(target)))
        i = first(bad)
        if i is not None and (best is None or source[i].sum() < best[0]):
            text = (
                f"{space.fmt(source[i])} -> {space.fmt(target[i])} ({what}): "
                f"{short(space.sign * a[i])} -> {short(space.sign * b[i])}"
            )
            best = (source[i].sum(), text)
    return best


def verdict(found, note: str = "") -> Outcome:
    """The outcome of a :func:`moves` search: holds (with ``note``) when nothing was found.

    Parameters
    ----------
    found : tuple or None
        What :func:`moves` returned.
    note : str
        The note of a property that holds.

    Returns
    -------
    tuple
        ``(holds, counterexample, note)``.
    """
    return (True, None, note) if found is None else (False, found[1], "")


def constant(values, what: str) -> tuple[bool, str | None]:
    """Whether every defined value of ``values`` equals the first one (relative tolerance 1e-9).

    Parameters
    ----------
    values : list of (str, float)
        ``(case, value)``; NaN values are skipped.
    what : str
        How the counterexample names the value.

    Returns
    -------
    tuple
        ``(holds, counterexample)``.
    """
    ref = None
    for key, e in values:
        if np.isnan(e):
            continue
        if ref is None:
            ref = (key, e)
        elif abs(e - ref[1]) > 1e-9 * max(1.0, abs(ref[1])):
            return False, f"{what} {short(e)} on {key} but {short(ref[1])} on {ref[0]}"
    return True, None
