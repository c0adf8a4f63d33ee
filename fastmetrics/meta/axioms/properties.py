"""The property registry: one :class:`Property` record per property the checker decides.

Ids are what users type and read (``fastmetrics axioms --properties MON,sym``, the ``property``
column, docs/axioms.md) and stay as the papers print them, so two ids differ only by case:
``SYM`` is Sebastiani's (2015, Axiom 8: class swap) and ``sym`` Gösgens et al.'s (2021, Def. 3:
transpose); ``MON`` is Sebastiani's (2015) and ``mon`` Gösgens et al.'s (2021). Each record says
whose it is (``seed``: the paper's key, ``author``, ``section``) and what it means (``title``,
``definition``); the checks are named after their paper (:mod:`.sebastiani`, :mod:`.goesgens`, :mod:`.amigo`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from . import amigo, goesgens, sebastiani

AUTHORS = {
    "000": "Sebastiani (2015)",
    "003": "Gösgens, Zhiyanov, Tikhonov & Prokhorenkova (2021)",
    "004": "Amigó, Gonzalo, Verdejo & Spina (2019)",
}
# How a one-line summary opens, as people cite the paper: "Sebastiani (2015, Axiom 8)".
CITED = {"000": "Sebastiani (2015", "003": "Gösgens et al. (2021", "004": "Amigó et al. (2019"}


@dataclass(frozen=True)
class Property:
    """One property: whose it is, what it says, and the checks that decide it.

    Attributes
    ----------
    id : str
        The user-visible id (CLI ``--properties``, the ``property`` column).
    seed : str
        The paper: "000", "003" or "004" (see :data:`AUTHORS`).
    section : str
        Where the paper states it ("Axiom 1", "Def. 6", "§3.3").
    title : str
        Its name, descriptive enough to tell ``SYM`` from ``sym``.
    definition : str
        One line: what is checked.
    binary : callable
        ``check(space: BinarySpace) -> (holds, counterexample, note)``.
    multiclass : callable or None
        The same definition on m x m matrices (``MatrixSpace``), where the property has one.
    numeric : bool
        Decided by finite differences rather than exactly.
    variant : str
        For a second reading of another property: how it differs (replaces the title in
        :attr:`summary`).
    """

    id: str
    seed: str
    section: str
    title: str
    definition: str
    binary: Callable
    multiclass: Callable | None = None
    numeric: bool = False
    variant: str = ""

    @property
    def author(self) -> str:
        """The paper's authors and year."""
        return AUTHORS[self.seed]

    @property
    def summary(self) -> str:
        """One line, e.g. ``"Sebastiani (2015, Axiom 8): symmetry (class swap)"``."""
        return (
            f"{CITED[self.seed]}, {self.section}) {self.variant}"
            if self.variant
            else f"{CITED[self.seed]}, {self.section}): {self.title}"
        )


_S, _G, _A = sebastiani, goesgens, amigo
_RECORDS = (
    Property(
        "MON",
        "000",
        "Axiom 1",
        "strict monotonicity",
        "turning one wrong decision into a right one (fn -> tp, fp -> tn) strictly increases M "
        "(comparisons with an undefined side skipped)",
        _S.sebastiani_mon,
    ),
    Property(
        "CON",
        "000",
        "Axiom 2",
        "continuous differentiability (numeric)",
        "on every test set M is a C^1 function of real TP in [0, AP] and TN in [0, AN]",
        _S.sebastiani_con,
        numeric=True,
    ),
    Property(
        "SDE",
        "000",
        "Axiom 3",
        "strong definiteness",
        "M is defined on every test set for every classifier",
        _S.sebastiani_sde,
    ),
    Property(
        "WDE",
        "000",
        "Axiom 4",
        "weak definiteness",
        "on every test set M is defined for every classifier or for none",
        _S.sebastiani_wde,
    ),
    Property(
        "FIX",
        "000",
        "Axiom 5",
        "fixed range",
        "the [min, max] of M's defined values is the same on every test set",
        _S.sebastiani_fix,
    ),
    Property(
        "CHA",
        "000",
        "Axiom 6",
        "robustness to chance (random number of positives)",
        "E[M] of the random classifier (number of predicted positives uniform on 0..n) is the same on every test set",
        _S.sebastiani_cha,
    ),
    Property(
        "CHA_uniform",
        "000",
        "Axiom 6",
        "robustness to chance (uniform random labeling)",
        "E[M] of the random classifier (each item positive with probability 1/2) is the same on every test set",
        _S.sebastiani_cha_uniform,
        variant="with the uniform random labeling",
    ),
    Property(
        "IMB",
        "000",
        "Axiom 7",
        "robustness to imbalance",
        "the trivial acceptor and the trivial rejector each score a constant on every test set with AP, AN > 0",
        _S.sebastiani_imb,
    ),
    Property(
        "SYM",
        "000",
        "Axiom 8",
        "symmetry (class swap)",
        "swapping the class and its complement (tp <-> tn, fp <-> fn) leaves M unchanged",
        _S.sebastiani_sym,
    ),
    Property(
        "max",
        "003",
        "Def. 1",
        "maximal agreement",
        "M(C) <= c_max with equality iff C is diagonal",
        _G.goesgens_max,
        _G.goesgens_max,
    ),
    Property(
        "min",
        "003",
        "Def. 2",
        "minimal agreement",
        "M(C) >= c_min with equality iff the diagonal of C is zero",
        _G.goesgens_min,
        _G.goesgens_min,
    ),
    Property(
        "csym",
        "003",
        "Def. 4",
        "class symmetry",
        "M is unchanged by every permutation of the classes",
        _G.goesgens_csym,
        _G.goesgens_csym,
    ),
    Property(
        "sym",
        "003",
        "Def. 3",
        "symmetry (transpose)",
        "M(C) = M(C^T): exchanging the true and the predicted labeling leaves M unchanged",
        _G.goesgens_sym,
        _G.goesgens_sym,
    ),
    Property(
        "dist",
        "003",
        "Def. 5",
        "linear transform to a metric",
        "M is symmetric with maximal agreement and c_max - M satisfies the triangle inequality",
        _G.goesgens_dist,
        _G.goesgens_dist,
    ),
    Property(
        "mon",
        "003",
        "Def. 6",
        "monotonicity",
        "moving a disagreement c_ab to c_aa or c_bb strictly increases M (no row or column sum n)",
        _G.goesgens_mon,
        _G.goesgens_mon,
    ),
    Property(
        "smon",
        "003",
        "Def. 7",
        "strong monotonicity",
        "incrementing a diagonal or decrementing an off-diagonal cell strictly increases M",
        _G.goesgens_smon,
        _G.goesgens_smon,
    ),
    Property(
        "cb",
        "003",
        "Def. 8",
        "constant baseline",
        "E[M(A, B)] over B uniform with non-unary class sizes b is the same for every A and b",
        _G.goesgens_cb,
        _G.goesgens_cb,
    ),
    Property(
        "acb",
        "003",
        "Def. 9",
        "approximate constant baseline",
        "M of the expected matrix a_i b_j / n is the same for every a and non-unary b",
        _G.goesgens_acb,
        _G.goesgens_acb,
    ),
    Property(
        "strict_mon",
        "004",
        "§3.2",
        "strict monotonicity (comparisons must be defined)",
        "fn -> tp and fp -> tn strictly increase M, both sides defined",
        _A.amigo_strict_mon,
    ),
    Property(
        "nonin_fixed",
        "004",
        "§3.3",
        "non-informativeness fixed quality",
        "every non-informative output (tp = q AP, fp = q AN) scores the same",
        _A.amigo_nonin_fixed,
    ),
    Property(
        "nonin_growing",
        "004",
        "§3.3",
        "non-informativeness growing quality",
        "a non-informative output's score strictly grows with q",
        _A.amigo_nonin_growing,
    ),
    Property(
        "abs_weighting",
        "004",
        "§3.3",
        "absolute weighting (parametric measures)",
        "a parameter threshold decides, for every output, whether one relevant plus one irrelevant item hurts",
        _A.amigo_abs_weighting,
    ),
)

REGISTRY: dict[str, Property] = {p.id: p for p in _RECORDS}
"""Every property by id, in the order of the profile tables."""

PROPERTIES: dict[str, str] = {p.id: p.summary for p in _RECORDS}
"""Id -> one-line summary of every property (binary checker)."""

MULTICLASS_PROPERTIES: tuple[str, ...] = tuple(p.id for p in _RECORDS if p.multiclass is not None)
"""Ids of the properties with a multiclass check (those of Gösgens et al. (2021): the "✓/✗" cells of their Table 2)."""
