"""Amigó, Gonzalo, Verdejo & Spina (2019, §3.2-3.3): constraints on binary measures.

- ``strict_mon`` (§3.2): Sebastiani's (2015) strict monotonicity as Amigó et al. (2019) reads it -- a comparison
  must be definable, so an undefined side is a violation;
- ``nonin_fixed`` (§3.3): every non-informative output (tp = q AP, fp = q AN) scores the same,
  on test sets with both classes;
- ``nonin_growing`` (§3.3): on test sets with both classes, a non-informative output's score
  strictly grows with q;
- ``abs_weighting`` (§3.3), for measures with parameters: a parameter and a threshold theta such
  that adding one relevant and one irrelevant item to the output hurts iff the parameter is on
  one side of theta, for every output.
"""

from __future__ import annotations

from itertools import pairwise

import numpy as np

from ..._numbers import count, short
from ...measures import registry
from . import engines
from .engines import Outcome
from .spaces import BinarySpace, first


def amigo_strict_mon(space: BinarySpace) -> Outcome:
    """§3.2, strict monotonicity with every comparison defined.

    fn -> tp and fp -> tn must strictly increase the measure; an undefined side is a violation.

    Parameters
    ----------
    space : BinarySpace

    Returns
    -------
    tuple
        ``(holds, counterexample, note)``.
    """
    return engines.verdict(engines.moves(space, engines.corrections(space), strict_defined=True))


def _noninformative(space: BinarySpace):
    """Scores of non-informative outputs tp = q AP, fp = q AN per test set with both classes,
    q = 0, 1/n, ..., 1."""
    for n in range(1, space.n_max + 1):
        q = np.arange(n + 1) / n
        for ap in range(1, n):  # one class only: every output is trivially independent of the gold
            an = n - ap
            yield ap, an, q, space.f.counts(q * ap, q * an, (1 - q) * ap, (1 - q) * an)


def amigo_nonin_fixed(space: BinarySpace) -> Outcome:
    """§3.3, non-informativeness fixed quality: every non-informative output scores the same.

    Parameters
    ----------
    space : BinarySpace

    Returns
    -------
    tuple
        ``(holds, counterexample, note)``.
    """
    values = []
    for ap, an, q, v in _noninformative(space):
        values += [(f"AP={ap}, AN={an}, P(S)={count(qq)}", space.sign * vv) for qq, vv in zip(q, v)]
    ok, cex = engines.constant(values, "non-informative output scores")
    return ok, cex, "test sets with both classes; undefined outputs skipped"


def amigo_nonin_growing(space: BinarySpace) -> Outcome:
    """§3.3, non-informativeness growing quality: the score strictly grows with q = P(S).

    Parameters
    ----------
    space : BinarySpace

    Returns
    -------
    tuple
        ``(holds, counterexample, note)``.
    """
    for ap, an, q, v in _noninformative(space):
        ok = ~np.isnan(v)
        vv, qq = v[ok], q[ok]
        i = first(np.diff(vv) <= 1e-12)
        if i is not None:
            return (
                False,
                (
                    f"AP={ap}, AN={an}: P(S)={count(qq[i])} scores {short(space.sign * vv[i])}, "
                    f"P(S)={count(qq[i + 1])} scores {short(space.sign * vv[i + 1])}"
                ),
                "",
            )
    return True, None, ""


def _param_grid(p) -> np.ndarray:
    """241 values over a parameter's domain (geometric above an open-ended lower bound)."""
    lo = p.low if p.low is not None else -10.0
    hi = p.high if p.high is not None else 10.0
    if p.low is not None and p.high is None:
        grid = p.low + np.concatenate([np.geomspace(1e-3, 1e3, 241)])
    else:
        grid = np.linspace(lo, hi, 241)
    if p.low_open:
        grid = grid[grid > p.low]
    if p.high_open:
        grid = grid[grid < p.high]
    return grid


def _sides(space: BinarySpace, k: int, grid, source, target) -> list:
    """Per grid value of parameter k: +1 / -1 if the added pair hurts / helps every output, 0 if
    it changes none, None if it depends on the output."""
    uniform = []
    for value in grid:
        values = list(space.f.spec.params)
        values[k] = value
        spec = registry.MeasureSpec(space.f.spec.measure, tuple(values))
        diff = space.f.counts(*source, spec=spec) - space.f.counts(*target, spec=spec)
        row = np.sign(np.where(np.abs(diff) <= 1e-12, 0.0, diff))
        signs = set(np.unique(row[~np.isnan(row) & (row != 0)]).tolist())
        uniform.append(signs.pop() if len(signs) == 1 else (0.0 if not signs else None))
    return uniform


def amigo_abs_weighting(space: BinarySpace) -> Outcome:
    """§3.3, absolute weighting: a parameter threshold decides whether adding items hurts.

    Some parameter must have one threshold at which adding a relevant and an irrelevant item to
    the output turns from helping to hurting (or back), for every output; not applicable (None)
    to measures without parameters.

    Parameters
    ----------
    space : BinarySpace

    Returns
    -------
    tuple
        ``(holds, counterexample, note)``.
    """
    params = space.f.spec.measure.params
    if not params:
        return None, None, "not parametric"
    C = space.C[(space.C[:, 1, 0] >= 1) & (space.C[:, 0, 0] >= 1)]
    source = (C[:, 1, 1], C[:, 0, 1], C[:, 1, 0], C[:, 0, 0])
    target = (source[0] + 1, source[1] + 1, source[2] - 1, source[3] - 1)  # one relevant and one irrelevant added
    for k, p in enumerate(params):
        grid = _param_grid(p)
        uniform = _sides(space, k, grid, source, target)
        if any(u is None for u in uniform):
            continue
        seq = [u for u in uniform if u != 0.0]
        changes = sum(1 for a, b in pairwise(seq) if a != b)
        if changes == 1:
            cut = next(i for i in range(1, len(uniform)) if uniform[i] != 0.0 and uniform[i] != seq[0])
            return (
                True,
                None,
                (
                    f"parameter {p.name}: adding a relevant and an irrelevant item flips at "
                    f"{p.name} ~ {count(grid[cut - 1])}..{count(grid[cut])}"
                ),
            )
    return False, f"no parameter ({', '.join(p.name for p in params)}) has one threshold valid for every output", ""
