"""Sebastiani (2015) (Sebastiani 2015, §3.1): Axioms 1-8 for binary measures.

Each axiom is one function over a :class:`.spaces.BinarySpace`. Readings:

- ``MON`` (Axiom 1): turning one wrong decision into a right one (fn -> tp, or fp -> tn)
  strictly increases the measure, on every test set. Comparisons with an undefined side are
  skipped: definedness is what ``SDE``/``WDE`` judge (Amigó et al.'s (2019) ``strict_mon`` is the reading
  where they count).
- ``CON`` (Axiom 2) is numeric: on each test set with n <= ``N_CON`` the measure, as a function
  of real TP in [0, AP] and TN in [0, AN], must be finite on the closed rectangle and its
  forward, backward and refined finite-difference partial derivatives must agree (no kink, no
  blow-up).
- ``SDE``/``WDE``/``FIX`` (Axioms 3-5): defined everywhere / on a test set either for every
  classifier or for none / the same [min, max] of defined values on every test set.
- ``CHA`` (Axiom 6): the expected value of the random classifier is the same on every test set.
  ``CHA`` draws the number k of predicted positives uniformly from 0..n and then k items at
  random -- the model that reproduces Sebastiani's (2015) numbers (E[F1] = 0.500 for |D| = 1 and 0.612
  for |D| = 100 when AN = 0); ``CHA_uniform`` labels each item positive with probability 1/2.
  Expectations are taken over the outcomes where the measure is defined.
- ``IMB`` (Axiom 7): trivial acceptor and rejector each score a constant on every test set with
  AP, AN > 0 (undecidable if the measure is undefined there: Sebastiani (2015, §4.1) says so of DOR and
  LAM%).
- ``SYM`` (Axiom 8): swapping the class and its complement leaves the measure unchanged (seed
  003's ``csym`` in the binary case).
"""

from __future__ import annotations

import numpy as np

from ..._numbers import count, short
from . import engines, random_classifier
from .engines import Outcome
from .spaces import EQ, BinarySpace, first, fmt_counts

N_CON = 6


def sebastiani_mon(space: BinarySpace) -> Outcome:
    """Axiom 1, strict monotonicity (MON); comparisons with an undefined side are skipped.

    Parameters
    ----------
    space : BinarySpace

    Returns
    -------
    tuple
        ``(holds, counterexample, note)``.
    """
    found = engines.moves(space, engines.corrections(space))
    return engines.verdict(found, "comparisons with an undefined side skipped")


def _derivative_trouble(f, tp, tn, ap, an, axis):
    """Forward and backward differences at two step sizes must agree at every grid point."""
    h = 1e-4
    pts = (tp.reshape(-1), tn.reshape(-1))
    x = pts[axis]
    hi = ap if axis == 0 else an

    def value(shift):
        # points whose shift leaves the domain are clipped and masked out below
        t = np.clip(pts[0] + (shift if axis == 0 else 0.0), 0.0, ap)
        s = np.clip(pts[1] + (shift if axis == 1 else 0.0), 0.0, an)
        return f(t, an - s, ap - t, s)

    base = value(0.0)
    fwd1, fwd2 = (value(h) - base) / h, (value(h / 16) - base) / (h / 16)
    bwd1 = (base - value(-h)) / h
    can_fwd = x + h <= hi
    can_bwd = x - h >= 0
    scale = 1.0 + np.abs(fwd2)
    name = "d/dTP" if axis == 0 else "d/dTN"
    blow = can_fwd & (np.abs(fwd1 - fwd2) > 1e-2 * scale)
    kink = can_fwd & can_bwd & (np.abs(fwd1 - bwd1) > 1e-2 * (1.0 + np.abs(bwd1)))
    for mask, what in ((blow, "diverges"), (kink, "jumps")):
        i = first(mask & ~np.isnan(fwd1))
        if i is not None:
            return f"{name} {what} at TP = {count(pts[0][i])}, TN = {count(pts[1][i])}"
    return None


def _con_on(f, ap: int, an: int) -> str | None:
    """CON's trouble on one test set, as text, or None."""
    tp_axis = np.linspace(0, ap, 4 * ap + 1) if ap else np.zeros(1)
    tn_axis = np.linspace(0, an, 4 * an + 1) if an else np.zeros(1)
    tp, tn = np.meshgrid(tp_axis, tn_axis, indexing="ij")
    v = f(tp, an - tn, ap - tp, tn)
    if np.isnan(v).any():
        i = np.unravel_index(np.argmax(np.isnan(v)), v.shape)
        point = fmt_counts(tp[i], an - tn[i], ap - tp[i], tn[i])
        return f"undefined at {point} (TP = {count(tp[i])}, TN = {count(tn[i])} on AP={ap}, AN={an})"
    for axis, size in ((0, ap), (1, an)):
        if size == 0:
            continue
        bad = _derivative_trouble(f, tp, tn, ap, an, axis)
        if bad is not None:
            return f"{bad} on the test set AP={ap}, AN={an}"
    return None


def sebastiani_con(space: BinarySpace) -> Outcome:
    """Axiom 2, continuous differentiability (CON), numerically on test sets with n <= 6.

    Parameters
    ----------
    space : BinarySpace

    Returns
    -------
    tuple
        ``(holds, counterexample, note)``.
    """
    for n in range(1, min(space.n_max, N_CON) + 1):
        for ap in range(n + 1):
            trouble = _con_on(space.f.counts, ap, n - ap)
            if trouble is not None:
                return False, trouble, ""
    return True, None, ""


def sebastiani_sde(space: BinarySpace) -> Outcome:
    """Axiom 3, strong definiteness (SDE): defined on every matrix.

    Parameters
    ----------
    space : BinarySpace

    Returns
    -------
    tuple
        ``(holds, counterexample, note)``.
    """
    i = first(np.isnan(space.values))
    return (True, None, "") if i is None else (False, f"{space.fmt(space.C[i])} is undefined", "")


def _test_sets(C):
    """AP, AN and the group index of each matrix by its test set (groups sorted by AP, then AN)."""
    ap, an = C[:, 1, 1] + C[:, 1, 0], C[:, 0, 1] + C[:, 0, 0]
    _, group = np.unique(ap * 10_000 + an, return_inverse=True)
    return ap, an, group


def sebastiani_wde(space: BinarySpace) -> Outcome:
    """Axiom 4, weak definiteness (WDE): on each test set, defined for every classifier or none.

    Parameters
    ----------
    space : BinarySpace

    Returns
    -------
    tuple
        ``(holds, counterexample, note)``.
    """
    defined = ~np.isnan(space.values)
    _, _, group = _test_sets(space.C)
    for g in np.unique(group):  # groups come out sorted by AP then AN: small n early enough
        d = defined[group == g]
        if d.any() and not d.all():
            idx = np.flatnonzero(group == g)
            good, bad = space.C[idx[np.argmax(d)]], space.C[idx[np.argmin(d)]]
            return False, f"defined at {space.fmt(good)}, undefined at {space.fmt(bad)} (same test set)", ""
    return True, None, ""


def sebastiani_fix(space: BinarySpace) -> Outcome:
    """Axiom 5, fixed range (FIX): the same [min, max] of defined values on every test set.

    Parameters
    ----------
    space : BinarySpace

    Returns
    -------
    tuple
        ``(holds, counterexample, note)``.
    """
    v, C = space.values, space.C
    ap, an, group = _test_sets(C)
    sizes = C.sum(axis=(1, 2))
    reference = None
    for n in np.unique(sizes):
        for g in np.unique(group[sizes == n]):
            vals = v[(group == g) & ~np.isnan(v)]
            if vals.size == 0:
                continue
            rng, where = (vals.min(), vals.max()), (ap[group == g][0], an[group == g][0])
            if reference is None:
                reference = (rng, where)
            elif abs(rng[0] - reference[0][0]) > EQ or abs(rng[1] - reference[0][1]) > EQ:
                lo, hi = sorted((space.sign * rng[0], space.sign * rng[1]))
                rlo, rhi = sorted((space.sign * reference[0][0], space.sign * reference[0][1]))
                return (
                    False,
                    (
                        f"range [{short(lo)}, {short(hi)}] on the test set AP={count(where[0])}, AN={count(where[1])} "
                        f"but [{short(rlo)}, {short(rhi)}] on AP={count(reference[1][0])}, "
                        f"AN={count(reference[1][1])}"
                    ),
                    "",
                )
    return True, None, ""


def _chance(space: BinarySpace, model: str) -> Outcome:
    f = space.f
    values = [
        (f"AP={ap}, AN={n - ap}", random_classifier.expected_random(f.spec, ap, n - ap, model, f.smoothing))
        for n in range(1, space.n_max + 1)
        for ap in range(n + 1)
    ]
    ok, cex = engines.constant(values, "E[M(random)] =")
    return ok, cex, ""


def sebastiani_cha(space: BinarySpace) -> Outcome:
    """Axiom 6, robustness to chance (CHA): the random classifier's E[M] is the same everywhere.

    The random classifier draws the number of predicted positives uniformly from 0..n, then the
    items at random (:func:`.random_classifier.expected_random`, model "count"); test sets with
    1 <= n <= n_max.

    Parameters
    ----------
    space : BinarySpace

    Returns
    -------
    tuple
        ``(holds, counterexample, note)``.
    """
    return _chance(space, "count")


def sebastiani_cha_uniform(space: BinarySpace) -> Outcome:
    """Axiom 6 (CHA_uniform) with the uniform random labeling.

    The random classifier labels each item positive with probability 1/2 (model "uniform").

    Parameters
    ----------
    space : BinarySpace

    Returns
    -------
    tuple
        ``(holds, counterexample, note)``.
    """
    return _chance(space, "uniform")


def sebastiani_imb(space: BinarySpace) -> Outcome:
    """Axiom 7, robustness to imbalance (IMB): the trivial classifiers score constants.

    The trivial acceptor and the trivial rejector must each score the same on every test set
    with AP, AN > 0; undecidable (None) where one of them is undefined.

    Parameters
    ----------
    space : BinarySpace

    Returns
    -------
    tuple
        ``(holds, counterexample, note)``.
    """
    f = space.f.counts
    acc, rej = [], []
    for n in range(2, space.n_max + 1):
        for ap in range(1, n):
            an = n - ap
            acc.append((f"AP={ap}, AN={an}", float(space.sign * f(ap, an, 0, 0))))
            rej.append((f"AP={ap}, AN={an}", float(space.sign * f(0, 0, ap, an))))
    for values, who in ((acc, "trivial acceptor"), (rej, "trivial rejector")):
        ok, cex = engines.constant(values, f"{who} scores")
        if not ok:
            return False, cex, ""
    if any(np.isnan(v) for _, v in acc + rej):
        key, _ = next((k, v) for k, v in acc + rej if np.isnan(v))
        return None, None, f"undefined for a trivial classifier on {key}: IMB cannot be decided"
    return True, None, ""


def sebastiani_sym(space: BinarySpace) -> Outcome:
    """Axiom 8, symmetry (SYM): swapping the class and its complement leaves M unchanged.

    The swap exchanges tp with tn and fp with fn (Gösgens et al.'s (2021) ``csym`` with two classes).

    Parameters
    ----------
    space : BinarySpace

    Returns
    -------
    tuple
        ``(holds, counterexample, note)``.
    """
    return engines.invariance(space, lambda X: engines.permute(X, (1, 0)), space.permutation((1, 0)))
