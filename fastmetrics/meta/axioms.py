"""The axiomatic property checker: each binary measure's profile, decided by enumeration.

Every property of seeds 000, 003 and 004 is decided by running the measure's vectorized kernel
over *all* binary confusion matrices ``(tp, fp, fn, tn)`` with ``1 <= n <= n_max`` (and, where the
property is about expectations, by exact hypergeometric or binomial sums). A failing property
comes with the smallest counterexample found (smallest n first). "Holds" therefore means "holds
for every test set up to n_max" -- a proof for the finite cases, evidence beyond them.

Conventions (measures are oriented so that higher is better, as seed 003 §3 does):

- ``MON`` (seed 000 Axiom 1): turning one wrong decision into a right one (fn -> tp, or
  fp -> tn) strictly increases the measure, on every test set. Comparisons with an undefined side
  are skipped: definedness is what SDE/WDE judge. ``strict_mon`` (seed 004 §3.2) is the same
  axiom read as seed 004 reads it -- a comparison must be definable -- so an undefined side fails.
- ``CON`` (Axiom 2) is numeric: on each test set with n <= ``n_con`` the measure, as a function
  of real TP in [0, AP] and TN in [0, AN], must be finite on the closed rectangle and its
  forward, backward and refined finite-difference partial derivatives must agree (no kink, no
  blow-up). Reported with ``numeric = True``.
- ``SDE``/``WDE``/``FIX`` (Axioms 3-5): defined everywhere / on a test set either for every
  classifier or for none / the same [min, max] of defined values on every test set.
- ``CHA`` (Axiom 6): the expected value of the random classifier is the same on every test set.
  Two random classifiers: ``CHA`` draws the number k of predicted positives uniformly from
  0..n and then k items at random -- the model that reproduces seed 000's numbers (E[F1] = 0.500
  for |D| = 1 and 0.612 for |D| = 100 when AN = 0); ``CHA_uniform`` labels each item positive
  with probability 1/2 (uniform over all labelings; it gives 0.667 for |D| = 100). Expectations
  are taken over the outcomes where the measure is defined.
- ``IMB`` (Axiom 7): trivial acceptor and rejector each score a constant on every test set with
  AP, AN > 0 (``holds`` is None if the measure is undefined there: seed 000 §4.1 says so of
  DOR and LAM%). ``SYM`` (Axiom 8) = seed 003's ``csym`` in the binary case.
- seed 003 Definitions 1-9 (``max``, ``min``, ``csym``, ``sym``, ``dist``, ``mon``, ``smon``,
  ``cb``, ``acb``) as written; ``dist`` enumerates all triples of labelings of n <= ``n_dist``.
  ``cb`` and ``acb`` take true labelings with both classes: with a unary true labeling the
  measures of Table 2 are 0/0 (CC, BA in the paper's form), which seed 003 fills by convention;
  fastmetrics' balanced_accuracy is defined there (macro recall over the present class, as
  scikit-learn) and would otherwise fail ``cb`` through that convention alone.
- seed 004: ``nonin_fixed`` (every non-informative output, tp = q AP, fp = q AN, scores the same),
  ``nonin_growing`` (on test sets with both classes, the score strictly grows with q), and
  ``abs_weighting`` for measures with parameters (a parameter and a threshold theta such that
  adding one relevant and one irrelevant item to the output hurts iff the parameter is on one
  side of theta, for every output).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Callable

import numpy as np
import pyarrow as pa

from .._errors import ParameterError
from ..measures import api, chance, registry
from numba import vectorize

TOL = 1e-9
# Equality of measure values: arccos-based measures (CD) turn a 1e-16 rounding into ~1e-8.
EQ = 1e-7

PROPERTIES = {
    "MON": "seed 000 Axiom 1: strict monotonicity",
    "CON": "seed 000 Axiom 2: continuous differentiability (numeric)",
    "SDE": "seed 000 Axiom 3: strong definiteness",
    "WDE": "seed 000 Axiom 4: weak definiteness",
    "FIX": "seed 000 Axiom 5: fixed range",
    "CHA": "seed 000 Axiom 6: robustness to chance (random number of positives)",
    "CHA_uniform": "seed 000 Axiom 6 with the uniform random labeling",
    "IMB": "seed 000 Axiom 7: robustness to imbalance",
    "SYM": "seed 000 Axiom 8: symmetry (class swap)",
    "max": "seed 003 Def. 1: maximal agreement",
    "min": "seed 003 Def. 2: minimal agreement",
    "csym": "seed 003 Def. 4: class symmetry",
    "sym": "seed 003 Def. 3: symmetry (transpose)",
    "dist": "seed 003 Def. 5: linear transform to a metric",
    "mon": "seed 003 Def. 6: monotonicity",
    "smon": "seed 003 Def. 7: strong monotonicity",
    "cb": "seed 003 Def. 8: constant baseline",
    "acb": "seed 003 Def. 9: approximate constant baseline",
    "strict_mon": "seed 004 §3.2: strict monotonicity (comparisons must be defined)",
    "nonin_fixed": "seed 004 §3.3: non-informativeness fixed quality",
    "nonin_growing": "seed 004 §3.3: non-informativeness growing quality",
    "abs_weighting": "seed 004 §3.3: absolute weighting (parametric measures)",
}
DEFAULT_N_MAX = 12
N_CON = 6
N_DIST = 6


@dataclass
class Verdict:
    """One (measure, property) decision."""

    measure: str
    property: str
    holds: bool | None
    counterexample: str | None = None
    note: str = ""
    numeric: bool = False


def _fmt(c) -> str:
    return "(" + ", ".join(_num(x) for x in c) + ")"


def _num(x) -> str:
    x = float(x)
    return str(int(x)) if x == int(x) else f"{x:.4g}"


def _val(v) -> str:
    return "undefined" if np.isnan(v) else f"{v + 0.0:.6g}"  # + 0.0: no "-0"


class _Evaluator:
    """A binary measure as an oriented float function of count arrays (NaN where undefined)."""

    def __init__(self, spec, smoothing=None, params=None):
        self.spec = spec
        self.smoothing = smoothing
        self.sign = 1.0 if spec.measure.higher_is_better else -1.0
        self.label = spec.label + (f"[{smoothing}]" if smoothing else "")

    def __call__(self, tp, fp, fn, tn, spec=None):
        arrays = np.broadcast_arrays(*(np.asarray(x, np.float64) for x in (tp, fp, fn, tn)))
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            values = api.compute(spec or self.spec, *arrays, smoothing=self.smoothing, warn=False)
        values = np.asarray(values, np.float64)
        values[~np.isfinite(values)] = np.nan
        return self.sign * values


def all_matrices(n_max: int, n_min: int = 1):
    """Every (tp, fp, fn, tn) with n_min <= n <= n_max, ordered by n, then lexicographically."""
    rows = []
    for n in range(n_min, n_max + 1):
        for tp in range(n + 1):
            for fp in range(n + 1 - tp):
                for fn in range(n + 1 - tp - fp):
                    rows.append((tp, fp, fn, n - tp - fp - fn))
    return np.array(rows, dtype=np.float64).T


def _first(mask) -> int | None:
    hit = np.flatnonzero(mask)
    return int(hit[0]) if hit.size else None


# --- seed 000 -----------------------------------------------------------------------------------

_FIXES = (([1, 0, -1, 0], "fn -> tp"), ([0, -1, 0, 1], "fp -> tn"))


def _diagonal(M):
    return (M[1] == 0) & (M[2] == 0)


def _zero_diagonal(M):
    return (M[0] == 0) & (M[3] == 0)


def _moves(f, C, moves, allowed=None, strict_defined=False, exclude_extremes=False):
    """The smallest violation of "every move strictly increases M" as ``(n, text)``, or None.

    ``moves`` are count changes with a label; ``allowed`` restricts the starting matrices;
    ``strict_defined`` makes an undefined side a violation (otherwise it is skipped);
    ``exclude_extremes`` skips moves between two diagonal or two zero-diagonal matrices (Def. 7).
    """
    best = None
    a_all = f(*C)
    for move, what in moves:
        move = np.asarray(move)
        ok = np.ones(C.shape[1], bool) if allowed is None else allowed.copy()
        for k in np.flatnonzero(move < 0):
            ok &= C[k] > 0
        source = C[:, ok]
        target = source + move[:, None]
        a, b = a_all[ok], f(*target)
        undefined = np.isnan(a) | np.isnan(b)
        if strict_defined:
            mask = undefined | ~(a < b)
        else:
            mask = ~undefined & ~(a < b - 1e-12)
        if exclude_extremes:
            mask &= ~((_diagonal(source) & _diagonal(target)) | (_zero_diagonal(source) & _zero_diagonal(target)))
        i = _first(mask)
        if i is not None:
            n = source[:, i].sum()
            if best is None or n < best[0]:
                best = (n, f"{_fmt(source[:, i])} -> {_fmt(target[:, i])} ({what}): "
                           f"{_val(f.sign * a[i])} -> {_val(f.sign * b[i])}")
    return best


def _monotone(f, C, strict_defined: bool):
    return _moves(f, C, _FIXES, strict_defined=strict_defined)


def _verdict(found, note=""):
    return (True, None, note) if found is None else (False, found[1], "")


def check_MON(f, C, **_):
    return _verdict(_monotone(f, C, strict_defined=False), "comparisons with an undefined side skipped")


def check_strict_mon(f, C, **_):
    return _verdict(_monotone(f, C, strict_defined=True))


def check_SDE(f, C, **_):
    v = f(*C)
    i = _first(np.isnan(v))
    return (True, None, "") if i is None else (False, f"{_fmt(C[:, i])} is undefined", "")


def _test_sets(C):
    """Group index of each matrix by its test set (AP, AN)."""
    ap, an = C[0] + C[2], C[1] + C[3]
    keys = ap * 10_000 + an
    uniq, inverse = np.unique(keys, return_inverse=True)
    return uniq, inverse


def check_WDE(f, C, **_):
    v = f(*C)
    _, group = _test_sets(C)
    defined = ~np.isnan(v)
    for g in np.unique(group):  # groups come out sorted by AP then AN: small n early enough
        d = defined[group == g]
        if d.any() and not d.all():
            idx = np.flatnonzero(group == g)
            good, bad = idx[np.argmax(d)], idx[np.argmin(d)]
            return False, f"defined at {_fmt(C[:, good])}, undefined at {_fmt(C[:, bad])} (same test set)", ""
    return True, None, ""


def check_FIX(f, C, **_):
    v = f(*C)
    _, group = _test_sets(C)
    reference = None
    for n in np.unique(C.sum(axis=0)):
        for g in np.unique(group[C.sum(axis=0) == n]):
            vals = v[(group == g) & ~np.isnan(v)]
            if vals.size == 0:
                continue
            rng = (vals.min(), vals.max())
            ap, an = C[0, group == g][0] + C[2, group == g][0], C[1, group == g][0] + C[3, group == g][0]
            if reference is None:
                reference = (rng, (ap, an))
            elif abs(rng[0] - reference[0][0]) > EQ or abs(rng[1] - reference[0][1]) > EQ:
                s = f.sign
                lo, hi = sorted((s * rng[0], s * rng[1]))
                rlo, rhi = sorted((s * reference[0][0], s * reference[0][1]))
                return False, (f"range [{_val(lo)}, {_val(hi)}] on the test set AP={_num(ap)}, AN={_num(an)} but "
                               f"[{_val(rlo)}, {_val(rhi)}] on AP={_num(reference[1][0])}, AN={_num(reference[1][1])}"), ""
    return True, None, ""


def _expectation(f, outcomes, weights, require_all: bool = False):
    return chance.expectation(f(*outcomes), weights, require_all)


def expected_random(measure, ap: int, an: int, model: str = "count", smoothing=None) -> float:
    """E[M] of the random classifier on a test set with ``ap`` positives and ``an`` negatives,
    in the measure's own direction; ``model`` "count" (uniform number of predicted positives) or
    "uniform" (uniform over labelings). ``expected_random("f1", 100, 0)`` is 0.612 (seed 000 §4).
    See :mod:`fastmetrics.measures.chance`."""
    return chance.expected_random(registry.make_spec(measure), ap, an, model, smoothing)


def _constant(values, what):
    ref = None
    for key, e in values:
        if np.isnan(e):
            continue
        if ref is None:
            ref = (key, e)
        elif abs(e - ref[1]) > 1e-9 * max(1.0, abs(ref[1])):
            return False, f"{what} {_val(e)} on {key} but {_val(ref[1])} on {ref[0]}"
    return True, None


def _cha(f, n_max, model):
    values = []
    for n in range(1, n_max + 1):
        for ap in range(n + 1):
            tp, fp, w = chance.random_outcomes(ap, n - ap, model)
            e = _expectation(f, (tp, fp, ap - tp, n - ap - fp), w)
            values.append((f"AP={ap}, AN={n - ap}", f.sign * e))
    ok, cex = _constant(values, "E[M(random)] =")
    return ok, cex, ""


def check_CHA(f, C, n_max, **_):
    return _cha(f, n_max, "count")


def check_CHA_uniform(f, C, n_max, **_):
    return _cha(f, n_max, "uniform")


def check_IMB(f, C, n_max, **_):
    acc, rej = [], []
    for n in range(2, n_max + 1):
        for ap in range(1, n):
            an = n - ap
            acc.append((f"AP={ap}, AN={an}", float(f.sign * f(ap, an, 0, 0))))
            rej.append((f"AP={ap}, AN={an}", float(f.sign * f(0, 0, ap, an))))
    for values, who in ((acc, "trivial acceptor"), (rej, "trivial rejector")):
        ok, cex = _constant(values, f"{who} scores")
        if not ok:
            return False, cex, ""
    if any(np.isnan(v) for _, v in acc + rej):
        key, _ = next((k, v) for k, v in acc + rej if np.isnan(v))
        return None, None, f"undefined for a trivial classifier on {key}: IMB cannot be decided"
    return True, None, ""


def _swap_check(f, C, perm, what):
    a = f(*C)
    b = f(*C[list(perm)])
    differ = ~((np.isnan(a) & np.isnan(b)) | (np.abs(a - b) <= 1e-12 * np.maximum(1, np.abs(a))))
    i = _first(differ)
    if i is None:
        return True, None, ""
    return False, f"{_fmt(C[:, i])} -> {_val(f.sign * a[i])}, {what} {_fmt(C[list(perm), i])} -> {_val(f.sign * b[i])}", ""


def check_SYM(f, C, **_):
    return _swap_check(f, C, (3, 2, 1, 0), "classes swapped")


check_csym = check_SYM


def check_sym(f, C, **_):
    return _swap_check(f, C, (0, 2, 1, 3), "transposed")


def check_CON(f, C, n_max, **_):
    n_con = min(n_max, N_CON)
    for n in range(1, n_con + 1):
        for ap in range(n + 1):
            an = n - ap
            tp_axis = np.linspace(0, ap, 4 * ap + 1) if ap else np.zeros(1)
            tn_axis = np.linspace(0, an, 4 * an + 1) if an else np.zeros(1)
            tp, tn = np.meshgrid(tp_axis, tn_axis, indexing="ij")
            v = f(tp, an - tn, ap - tp, tn)
            if np.isnan(v).any():
                i = np.unravel_index(np.argmax(np.isnan(v)), v.shape)
                point = (tp[i], an - tn[i], ap - tp[i], tn[i])
                return False, f"undefined at {_fmt(point)} (TP = {_num(tp[i])}, TN = {_num(tn[i])} on AP={ap}, AN={an})", \
                    "numeric"
            for axis, size in ((0, ap), (1, an)):
                if size == 0:
                    continue
                bad = _derivative_trouble(f, tp, tn, ap, an, axis)
                if bad is not None:
                    return False, f"{bad} on the test set AP={ap}, AN={an}", "numeric"
    return True, None, "numeric"


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
        i = _first(mask & ~np.isnan(fwd1))
        if i is not None:
            return f"{name} {what} at TP = {_num(pts[0][i])}, TN = {_num(pts[1][i])}"
    return None


# --- seed 003 -----------------------------------------------------------------------------------

def _extreme(f, C, where, kind):
    v = f(*C)
    ok = ~np.isnan(v)
    special = where & ok
    if not special.any():
        return None, None, "undefined on every such matrix"
    target = v[special]
    ref = target[0]
    i = _first(special & (np.abs(v - ref) > EQ))
    if i is not None:
        j = _first(special)
        return False, f"{_fmt(C[:, j])} -> {_val(f.sign * ref)} but {_fmt(C[:, i])} -> {_val(f.sign * v[i])}", ""
    if kind == "max":
        i = _first(~where & ok & (v >= ref - EQ))
    else:
        i = _first(~where & ok & (v <= ref + EQ))
    if i is not None:
        j = _first(special)
        return False, f"{_fmt(C[:, i])} -> {_val(f.sign * v[i])} reaches the value {_val(f.sign * ref)} of {_fmt(C[:, j])}", ""
    return True, None, ""


def check_max(f, C, **_):
    return _extreme(f, C, (C[1] == 0) & (C[2] == 0), "max")


def check_min(f, C, **_):
    return _extreme(f, C, (C[0] == 0) & (C[3] == 0), "min")


def _non_unary(C):
    ap, an, pp, pn = C[0] + C[2], C[1] + C[3], C[0] + C[1], C[2] + C[3]
    return (ap > 0) & (an > 0) & (pp > 0) & (pn > 0)


def check_mon(f, C, **_):
    moves = (([0, -1, 0, 1], "fp -> tn"), ([1, -1, 0, 0], "fp -> tp"), ([1, 0, -1, 0], "fn -> tp"),
             ([0, 0, -1, 1], "fn -> tn"))
    return _verdict(_moves(f, C, moves, _non_unary(C)))


def check_smon(f, C, **_):
    moves = (([1, 0, 0, 0], "+tp"), ([0, 0, 0, 1], "+tn"), ([0, -1, 0, 0], "-fp"), ([0, 0, -1, 0], "-fn"))
    return _verdict(_moves(f, C, moves, _non_unary(C), exclude_extremes=True))


def check_cb(f, C, n_max, **_):
    values = []
    skipped = 0
    for n in range(2, n_max + 1):
        for a1 in range(1, n):
            for b1 in range(1, n):
                tp, p = chance.hypergeometric(n, a1, b1)
                e = _expectation(f, (tp, b1 - tp, a1 - tp, n - a1 - b1 + tp), p, require_all=True)
                skipped += np.isnan(e)
                values.append((f"n={n}, a1={a1}, b1={b1}", f.sign * e))
    ok, cex = _constant(values, "E[M] =")
    note = f"{skipped} (A, b) with an undefined outcome skipped" if skipped else ""
    return ok, cex, note


def check_acb(f, C, n_max, **_):
    values = []
    for n in range(2, n_max + 1):
        for a1 in range(1, n):
            for b1 in range(1, n):
                a0, b0 = n - a1, n - b1
                v = float(f(a1 * b1 / n, a0 * b1 / n, a1 * b0 / n, a0 * b0 / n))
                values.append((f"n={n}, a1={a1}, b1={b1}", f.sign * v))
    ok, cex = _constant(values, "M(expected matrix) =")
    return ok, cex, ""


def _labelings(n):
    codes = np.arange(2 ** n)
    return ((codes[:, None] >> np.arange(n)) & 1).astype(bool)


def check_dist(f, C, n_max, **kw):
    sym = check_sym(f, C)
    if sym[0] is False:
        return False, "not symmetric: " + sym[1], ""
    mx = check_max(f, C)
    if mx[0] is not True:
        return False, "no maximal agreement: " + (mx[1] or mx[2]), ""
    c_max = float(f(1, 0, 0, 1))
    for n in range(2, min(n_max, N_DIST) + 1):
        L = _labelings(n)
        A, B = L[:, None, :], L[None, :, :]
        tp = (A & B).sum(-1)
        fp = (~A & B).sum(-1)
        fn = (A & ~B).sum(-1)
        tn = (~A & ~B).sum(-1)
        d = c_max - f(tp, fp, fn, tn)
        excess = d[:, None, :] - (d[:, :, None] + d[None, :, :])  # d(a,c) - d(a,b) - d(b,c), index [a, b, c]
        bad = np.nan_to_num(excess, nan=-1.0) > EQ
        if bad.any():
            a, b, c = np.unravel_index(np.argmax(bad), bad.shape)
            s = lambda x: "".join("1" if v else "0" for v in L[x])  # noqa: E731
            return False, (f"labelings A={s(a)}, B={s(b)}, C={s(c)}: d(A,C) = {_val(d[a, c])} > "
                           f"d(A,B) + d(B,C) = {_val(d[a, b] + d[b, c])}"), ""
    return True, None, f"triangle inequality checked on all labelings of n <= {min(n_max, N_DIST)}"


# --- seed 004 -----------------------------------------------------------------------------------

def _noninformative(f, n_max):
    """Scores of non-informative outputs tp = q AP, fp = q AN per test set, q = 0, 1/n, ..., 1."""
    for n in range(1, n_max + 1):
        q = np.arange(n + 1) / n
        for ap in range(n + 1):
            an = n - ap
            yield ap, an, q, f(q * ap, q * an, (1 - q) * ap, (1 - q) * an)


def check_nonin_fixed(f, C, n_max, **_):
    values = []
    for ap, an, q, v in _noninformative(f, n_max):
        if ap == 0 or an == 0:
            continue  # one class only: every output is trivially independent of the gold
        values += [(f"AP={ap}, AN={an}, P(S)={_num(qq)}", f.sign * vv) for qq, vv in zip(q, v)]
    ok, cex = _constant(values, "non-informative output scores")
    return ok, cex, "test sets with both classes; undefined outputs skipped"


def check_nonin_growing(f, C, n_max, **_):
    for ap, an, q, v in _noninformative(f, n_max):
        if ap == 0 or an == 0:
            continue
        ok = ~np.isnan(v)
        vv, qq = v[ok], q[ok]
        i = _first(np.diff(vv) <= 1e-12)
        if i is not None:
            return False, (f"AP={ap}, AN={an}: P(S)={_num(qq[i])} scores {_val(f.sign * vv[i])}, "
                           f"P(S)={_num(qq[i + 1])} scores {_val(f.sign * vv[i + 1])}"), ""
    return True, None, ""


def _param_grid(p):
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


def check_abs_weighting(f, C, n_max, **_):
    params = f.spec.measure.params
    if not params:
        return None, None, "not parametric"
    ok_rows = (C[2] >= 1) & (C[3] >= 1)
    source = C[:, ok_rows]
    target = source + np.array([1, 1, -1, -1])[:, None]  # one relevant and one irrelevant item added
    for k, p in enumerate(params):
        grid = _param_grid(p)
        signs = []
        for value in grid:
            values = list(f.spec.params)
            values[k] = value
            spec = registry.MeasureSpec(f.spec.measure, tuple(values))
            diff = f(*source, spec=spec) - f(*target, spec=spec)
            s = np.sign(np.where(np.abs(diff) <= 1e-12, 0.0, diff))
            signs.append(s)
        S = np.array(signs)  # [grid, pair]
        defined = ~np.isnan(S)
        uniform = []
        for row, d in zip(S, defined):
            vals = set(np.unique(row[d & (row != 0)]).tolist())
            uniform.append(vals.pop() if len(vals) == 1 else (0.0 if not vals else None))
        if any(u is None for u in uniform):
            continue
        seq = [u for u in uniform if u != 0.0]
        changes = sum(1 for a, b in zip(seq, seq[1:]) if a != b)
        if changes == 1:
            cut = next(i for i in range(1, len(uniform)) if uniform[i] != 0.0 and uniform[i] != seq[0])
            return True, None, f"parameter {p.name}: adding a relevant and an irrelevant item flips at " \
                               f"{p.name} ~ {_num(grid[cut - 1])}..{_num(grid[cut])}"
    return False, f"no parameter ({', '.join(p.name for p in params)}) has one threshold valid for every output", ""


CHECKS: dict[str, Callable] = {
    "MON": check_MON, "CON": check_CON, "SDE": check_SDE, "WDE": check_WDE, "FIX": check_FIX,
    "CHA": check_CHA, "CHA_uniform": check_CHA_uniform, "IMB": check_IMB, "SYM": check_SYM,
    "max": check_max, "min": check_min, "csym": check_csym, "sym": check_sym, "dist": check_dist,
    "mon": check_mon, "smon": check_smon, "cb": check_cb, "acb": check_acb,
    "strict_mon": check_strict_mon, "nonin_fixed": check_nonin_fixed, "nonin_growing": check_nonin_growing,
    "abs_weighting": check_abs_weighting,
}


def check(measure, properties=None, *, n_max: int = DEFAULT_N_MAX, smoothing=None) -> list[Verdict]:
    """Decide ``properties`` (default: all of :data:`PROPERTIES`) for one binary measure.

    Parameters
    ----------
    measure : str or MeasureSpec
        A registered measure (name, alias or spec such as ``"gm(r=1)"``).
    properties : sequence of str, optional
    n_max : int, default 12
        Largest test-set size enumerated (``CON`` uses n <= 6, ``dist`` labelings of n <= 6).
    smoothing : {None, "laplace", "noninformative"}
        Check the smoothed measure (seed 004 §5).

    Returns
    -------
    list of Verdict
    """
    if isinstance(n_max, bool) or not isinstance(n_max, (int, np.integer)) or n_max < 2:
        raise ParameterError(f"n_max must be an integer >= 2; got {n_max!r}.")
    spec = registry.make_spec(measure)
    f = _Evaluator(spec, smoothing)
    props = list(PROPERTIES) if properties is None else list(properties)
    unknown = [p for p in props if p not in CHECKS]
    if unknown:
        raise ParameterError(f"Unknown property {unknown[0]!r}; known: {', '.join(PROPERTIES)}.")
    C = all_matrices(int(n_max))
    out = []
    for p in props:
        holds, cex, note = CHECKS[p](f, C, n_max=int(n_max))
        numeric = note == "numeric"
        out.append(Verdict(f.label, p, holds, cex, "" if numeric else note, numeric))
    return out


def axioms(measures=None, properties=None, *, n_max: int = DEFAULT_N_MAX, smoothing=None, classes: int = 2) -> pa.Table:
    """The property profile of several measures as a tidy table.

    With ``classes`` = m > 2 the native multiclass definitions are checked on m x m matrices
    (:func:`check_multiclass`; ``n_max`` then defaults to 6 and measures without a multiclass
    definition are left out).

    Returns
    -------
    pyarrow.Table
        ``measure, property, holds, counterexample, note, numeric``; ``holds`` is null where
        the property does not apply (``abs_weighting`` of a measure without parameters) or
        cannot be decided (``IMB`` when the trivial classifiers are undefined).
    """
    names = registry.names() if measures is None else list(measures)
    if classes > 2:
        if smoothing is not None:
            raise ParameterError("Smoothing applies to binary counts; check it with classes=2.")
        names = [m for m in names if registry.make_spec(m).measure.multiclass is not None]
        n = min(n_max, 6) if n_max == DEFAULT_N_MAX else n_max
        rows = [v for m in names for v in check_multiclass(m, properties, m=classes, n_max=n)]
    else:
        rows = [v for m in names for v in check(m, properties, n_max=n_max, smoothing=smoothing)]
    return pa.table({
        "measure": [v.measure for v in rows], "property": [v.property for v in rows],
        "holds": pa.array([v.holds for v in rows], pa.bool_()),
        "counterexample": pa.array([v.counterexample for v in rows], pa.string()),
        "note": [v.note for v in rows], "numeric": [v.numeric for v in rows],
    })


# --- seed 003 Table 3: indistinguishable measures ------------------------------------------------

def indistinguishable(measures, n: int, tolerance: float = 1e-5) -> set[frozenset]:
    """Pairs of measures consistent on every triplet (A, B1, B2) of labelings of ``n`` items that
    all contain both classes (seed 003 §5.1).

    Consistency depends on the labelings only through the two confusion matrices of (A, B1) and
    (A, B2), so the search runs over pairs of matrices with the same true class sizes: for every
    a1 in 1..n-1, all (tp, fp) with 1 <= tp + fp <= n - 1. Differences within ``tolerance`` are
    ties, as in the paper's code.
    """
    evaluators = [_Evaluator(registry.make_spec(m)) for m in measures]
    signs = []
    for f in evaluators:
        parts = []
        for a1 in range(1, n):
            a0 = n - a1
            tp, fp = np.meshgrid(np.arange(a1 + 1), np.arange(a0 + 1), indexing="ij")
            tp, fp = tp.reshape(-1).astype(float), fp.reshape(-1).astype(float)
            keep = (tp + fp >= 1) & (tp + fp <= n - 1)
            tp, fp = tp[keep], fp[keep]
            v = f(tp, fp, a1 - tp, a0 - fp)
            d = v[:, None] - v[None, :]
            parts.append(np.where(np.isnan(d), 9, np.where(d > tolerance, 1, np.where(d < -tolerance, -1, 0))).reshape(-1))
        signs.append(np.concatenate(parts))
    pairs = set()
    for i in range(len(measures)):
        for j in range(i + 1, len(measures)):
            if np.array_equal(signs[i], signs[j]):
                pairs.add(frozenset((evaluators[i].label, evaluators[j].label)))
    return pairs


# --- user-defined measures ------------------------------------------------------------------------

def register_function(name: str, function: Callable, *, higher_is_better: bool = True, summary: str = "",
                      formula: str = "", range=(-math.inf, math.inf), family: str = "none",
                      undefined_when: str = "see its definition", reference: str = "user-defined"):
    """Compile a Python function of ``(tp, fp, fn, tn)`` (numba-compatible scalar code; return
    NaN where undefined) into a measure, register it and return its record, so that it can be
    computed, put in leaderboards and checked like any built-in measure.

    Examples
    --------
    >>> from fastmetrics.meta.axioms import register_function
    >>> def youden(tp, fp, fn, tn):
    ...     return tp / (tp + fn) + tn / (fp + tn) - 1.0
    >>> m = register_function("my_youden", youden)
    """
    # not cached: the function may live in a notebook or a test, where numba cannot cache
    kernel = vectorize(["float64(float64, float64, float64, float64)"])(function)
    return registry.register(registry.Measure(
        name=name, kernel=kernel, summary=summary or f"user-defined measure {name}", formula=formula or name,
        latex=formula or name, range=tuple(range), higher_is_better=higher_is_better, family=family,
        undefined_when=undefined_when, reference=reference,
    ))


# --- seed 003's properties for multiclass definitions (the "✓/✗" cells of Table 2) -------------------

MULTICLASS_PROPERTIES = ("max", "min", "csym", "sym", "dist", "mon", "smon", "cb", "acb")
N_DIST_MULTICLASS = 4


def all_class_matrices(m: int, n_max: int, n_min: int = 1) -> np.ndarray:
    """Every m x m count matrix with n_min <= n <= n_max, as ``C[k, m, m]`` ordered by n."""
    out = []
    for n in range(n_min, n_max + 1):
        cells = m * m
        # compositions of n into m*m parts (stars and bars over the bar positions)
        import itertools

        for bars in itertools.combinations(range(n + cells - 1), cells - 1):
            parts = np.diff((-1,) + bars + (n + cells - 1,)) - 1
            out.append(parts.reshape(m, m))
    return np.array(out, dtype=np.float64)


class _MatrixEvaluator:
    """A measure's native multiclass definition as an oriented function of C[..., m, m]."""

    def __init__(self, spec):
        if spec.measure.multiclass is None:
            raise ParameterError(f"Measure '{spec.measure.name}' has no native multiclass definition to check.")
        self.spec = spec
        self.sign = 1.0 if spec.measure.higher_is_better else -1.0
        self.label = spec.label

    def __call__(self, C):
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            v = np.asarray(api.compute(self.spec, counts=np.asarray(C, np.float64), warn=False), np.float64)
        v = np.array(v, dtype=np.float64)
        v[~np.isfinite(v)] = np.nan
        return self.sign * v


def _mfmt(c) -> str:
    return "[" + "; ".join(" ".join(_num(x) for x in row) for row in c) + "]"


def _m_extreme(f, C, where, kind):
    v = f(C)
    ok = ~np.isnan(v)
    special = where & ok
    if not special.any():
        return None, None, "undefined on every such matrix"
    ref = v[_first(special)]
    i = _first(special & (np.abs(v - ref) > EQ))
    if i is not None:
        return False, f"{_mfmt(C[_first(special)])} -> {_val(f.sign * ref)} but {_mfmt(C[i])} -> {_val(f.sign * v[i])}", ""
    i = _first(~where & ok & ((v >= ref - EQ) if kind == "max" else (v <= ref + EQ)))
    if i is not None:
        return False, f"{_mfmt(C[i])} -> {_val(f.sign * v[i])} reaches the value {_val(f.sign * ref)}", ""
    return True, None, ""


def _m_non_unary(C):
    n = C.sum(axis=(1, 2))[:, None]
    return ~((C.sum(axis=2) == n).any(axis=1) | (C.sum(axis=1) == n).any(axis=1))


def _m_moves(f, C, strong):
    m = C.shape[1]
    base = f(C)
    allowed = _m_non_unary(C)
    diag = np.eye(m, dtype=bool)
    is_diag = lambda X: (X[:, ~diag] == 0).all(axis=1)  # noqa: E731
    zero_diag = lambda X: (X[:, diag] == 0).all(axis=1)  # noqa: E731
    moves = []
    for a in range(m):
        for b in range(m):
            step = np.zeros((m, m))
            if strong:
                step[a, b] = 1 if a == b else -1
                moves.append((step, f"{'+' if a == b else '-'}c{a}{b}"))
            elif a != b:
                for t in (a, b):
                    s = np.zeros((m, m))
                    s[a, b] = -1
                    s[t, t] = 1
                    moves.append((s, f"c{a}{b} -> c{t}{t}"))
    for step, what in moves:
        ok = allowed & (C[:, step < 0] >= 1).all(axis=1)
        source = C[ok]
        target = source + step
        a, b = base[ok], f(target)
        bad = ~np.isnan(a) & ~np.isnan(b) & ~(a < b - 1e-12)
        if strong:
            bad &= ~((is_diag(source) & is_diag(target)) | (zero_diag(source) & zero_diag(target)))
        i = _first(bad)
        if i is not None:
            return False, f"{_mfmt(source[i])} -> {_mfmt(target[i])} ({what}): {_val(f.sign * a[i])} -> {_val(f.sign * b[i])}", ""
    return True, None, ""


def _tables_with_margins(C, a, b):
    """The enumerated matrices with row sums a and column sums b, and their probability when B is
    drawn uniformly among labelings with class sizes b (prod a! prod b! / (n! prod c!))."""
    rows = C[(C.sum(axis=2) == a).all(axis=1) & (C.sum(axis=1) == b).all(axis=1)]
    n = a.sum()
    lg = np.vectorize(math.lgamma)
    logp = (lg(a + 1).sum() + lg(b + 1).sum() - math.lgamma(n + 1) - lg(rows + 1).sum(axis=(1, 2)))
    return rows, np.exp(logp)


def _m_baseline(f, C, exact):
    m = C.shape[1]
    values = []
    sizes = {tuple(x) for x in C.sum(axis=2).astype(int).tolist()}
    for a_t in sorted(sizes, key=lambda t: (sum(t), t)):
        a = np.array(a_t, dtype=float)
        if (a == 0).any():
            continue  # true labelings with every class (see the binary note on unary labelings)
        for b_t in sorted(sizes, key=lambda t: (sum(t), t)):
            b = np.array(b_t, dtype=float)
            if b.sum() != a.sum() or (b == b.sum()).any():
                continue
            if exact:
                tables, p = _tables_with_margins(C, a, b)
                v = f(tables)
                e = np.nan if np.isnan(v).any() else float((p * v).sum() / p.sum())
            else:
                e = float(f((a[:, None] * b[None, :] / a.sum())[None])[0])
            values.append((f"a={a_t}, b={b_t}", f.sign * e))
    ok, cex = _constant(values, "E[M] =" if exact else "M(expected matrix) =")
    return ok, cex, f"m = {m}, true labelings with every class"


def _m_dist(f, C, m):
    sym = _m_swap(f, C, lambda X: np.swapaxes(X, 1, 2), "transposed")
    if sym[0] is False:
        return False, "not symmetric: " + sym[1], ""
    mx = _m_extreme(f, C, (C[:, ~np.eye(m, dtype=bool)] == 0).all(axis=1), "max")
    if mx[0] is not True:
        return False, "no maximal agreement: " + (mx[1] or mx[2]), ""
    c_max = float(f(np.eye(m)[None])[0])
    import itertools

    for n in range(2, N_DIST_MULTICLASS + 1):
        L = np.array(list(itertools.product(range(m), repeat=n)))
        onehot = np.eye(m)[L]  # [labeling, item, class]
        conf = np.einsum("xic,yid->xycd", onehot, onehot)
        d = c_max - f(conf.reshape(-1, m, m)).reshape(len(L), len(L))
        excess = d[:, None, :] - (d[:, :, None] + d[None, :, :])
        bad = np.nan_to_num(excess, nan=-1.0) > EQ
        if bad.any():
            a, b, c = np.unravel_index(np.argmax(bad), bad.shape)
            s = lambda x: "".join(map(str, L[x]))  # noqa: E731
            return False, f"labelings A={s(a)}, B={s(b)}, C={s(c)}: triangle inequality fails", ""
    return True, None, f"all labelings of n <= {N_DIST_MULTICLASS} with {m} classes"


def _m_swap(f, C, transform, what):
    a, b = f(C), f(transform(C))
    differ = ~((np.isnan(a) & np.isnan(b)) | (np.abs(a - b) <= 1e-9 * np.maximum(1, np.abs(a))))
    i = _first(differ)
    if i is None:
        return True, None, ""
    return False, f"{_mfmt(C[i])} -> {_val(f.sign * a[i])}, {what} -> {_val(f.sign * b[i])}", ""


def check_multiclass(measure, properties=None, *, m: int = 3, n_max: int = 6) -> list[Verdict]:
    """Decide seed 003's properties for a measure's native multiclass definition with ``m`` classes,
    on every m x m matrix with n <= ``n_max`` (``dist``: labelings of n <= 4).

    The same readings as the binary checks; ``cb``/``acb`` take true labelings with every class
    present and non-unary predicted class sizes, the constant baseline being exact (a sum over all
    contingency tables with the given margins) for ``cb``.
    """
    spec = registry.make_spec(measure)
    f = _MatrixEvaluator(spec)
    props = list(MULTICLASS_PROPERTIES) if properties is None else list(properties)
    unknown = [p for p in props if p not in MULTICLASS_PROPERTIES]
    if unknown:
        raise ParameterError(f"Unknown multiclass property {unknown[0]!r}; known: {', '.join(MULTICLASS_PROPERTIES)}.")
    C = all_class_matrices(m, n_max)
    off = ~np.eye(m, dtype=bool)
    import itertools

    perms = [p for p in itertools.permutations(range(m)) if p != tuple(range(m))]
    checks = {
        "max": lambda: _m_extreme(f, C, (C[:, off] == 0).all(axis=1), "max"),
        "min": lambda: _m_extreme(f, C, (C[:, ~off] == 0).all(axis=1), "min"),
        "csym": lambda: next((r for r in (_m_swap(f, C, lambda X, p=p: X[:, list(p)][:, :, list(p)],
                                                  f"classes permuted {p}") for p in perms) if r[0] is False),
                             (True, None, "")),
        "sym": lambda: _m_swap(f, C, lambda X: np.swapaxes(X, 1, 2), "transposed"),
        "dist": lambda: _m_dist(f, C, m),
        "mon": lambda: _m_moves(f, C, strong=False),
        "smon": lambda: _m_moves(f, C, strong=True),
        "cb": lambda: _m_baseline(f, C, exact=True),
        "acb": lambda: _m_baseline(f, C, exact=False),
    }
    out = []
    for p in props:
        holds, cex, note = checks[p]()
        out.append(Verdict(f"{spec.label} (m={m})", p, holds, cex, note))
    return out
