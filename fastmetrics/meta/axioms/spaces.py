"""What a check runs over: a measure, every m x m matrix up to n_max, and how counterexamples read.

A property written once over m x m matrices takes a :class:`Space`. :class:`BinarySpace` is
m = 2 with the binary measure (its binary kernel, smoothing and parameters) and the binary
checker's wording: matrices as ``(tp, fp, fn, tn)``, cells by name, counterexamples that show
both matrices. :class:`MatrixSpace` is a measure's native multiclass definition on m x m
matrices, written ``[c00 c01; c10 c11]``. The two differ where the published tables (the
profiles in docs/axioms.md) were generated with different wording or tolerances; those
differences are attributes of the space, so that each property has one definition.
"""

from __future__ import annotations

import abc
from functools import cached_property

import numpy as np

from ..._numbers import count, short
from . import random_classifier
from .evaluators import BinaryMeasure, MatrixMeasure
from .matrices import BINARY_NAMES, all_class_matrices, binary_matrices, labelings

TOL = 1e-9
# Equality of measure values: arccos-based measures (CD) turn a 1e-16 rounding into ~1e-8.
EQ = 1e-7
N_DIST = 6  # binary dist: all labelings of n <= min(n_max, N_DIST)
N_DIST_MULTICLASS = 4  # multiclass dist: all labelings of n <= 4


def fmt_counts(tp, fp, fn, tn) -> str:
    """Binary counts as ``(tp, fp, fn, tn)``.

    Parameters
    ----------
    tp, fp, fn, tn : float

    Returns
    -------
    str
    """
    return "(" + ", ".join(count(x) for x in (tp, fp, fn, tn)) + ")"


def first(mask) -> int | None:
    """Index of the first True of ``mask``, or None.

    Parameters
    ----------
    mask : array_like of bool

    Returns
    -------
    int or None
    """
    hit = np.flatnonzero(mask)
    return int(hit[0]) if hit.size else None


class Space(abc.ABC):
    """A measure ``f`` on every matrix ``C[k, m, m]`` with n <= ``n_max`` (ordered by n).

    The properties read a space through this interface; :class:`BinarySpace` and
    :class:`MatrixSpace` fill it in with the binary and the multiclass checker's choices.

    Parameters
    ----------
    f : callable
        Oriented measure of ``C[..., m, m]`` (NaN where undefined), with a ``sign`` attribute.
    C : numpy.ndarray
        The enumerated matrices ``C[k, m, m]``.
    n_max : int
        Largest number of items enumerated.

    Attributes
    ----------
    swap_tolerance : float
        Relative difference under which two values count as equal in the symmetry checks.
    dist_first_item_fastest : bool
        Order of the labelings ``dist`` enumerates (see :func:`.matrices.labelings`).
    cells : tuple of (int, int)
        The order in which monotonicity moves visit the cells; among violations on equally
        small test sets, the first move in this order is reported.
    """

    swap_tolerance = 1e-12
    dist_first_item_fastest = True
    cells: tuple[tuple[int, int], ...] = ()

    def __init__(self, f, C: np.ndarray, n_max: int):
        self.f = f
        self.C = C
        self.n_max = n_max

    @property
    def m(self) -> int:
        """Number of classes."""
        return self.C.shape[-1]

    @property
    def sign(self) -> float:
        """+1 if the measure is higher-is-better, -1 otherwise (values are oriented by it)."""
        return self.f.sign

    @cached_property
    def values(self) -> np.ndarray:
        """``f(C)``: the oriented measure of every enumerated matrix."""
        return self.f(self.C)

    def labelings(self, n: int) -> np.ndarray:
        """The labelings ``dist`` checks.

        Parameters
        ----------
        n : int
            Number of items.

        Returns
        -------
        numpy.ndarray
            ``L[labeling, item]``.
        """
        return labelings(self.m, n, self.dist_first_item_fastest)

    @abc.abstractmethod
    def fmt(self, c) -> str:
        """One matrix ``c[m, m]`` as counterexamples write it.

        Parameters
        ----------
        c : numpy.ndarray

        Returns
        -------
        str
        """

    @abc.abstractmethod
    def cell(self, a: int, b: int) -> str:
        """The name of cell c_ab in the labels of moves.

        Parameters
        ----------
        a, b : int
            True and predicted class.

        Returns
        -------
        str
        """

    @abc.abstractmethod
    def permutation(self, p) -> str:
        """How a counterexample names the class permutation ``p``.

        Parameters
        ----------
        p : tuple of int

        Returns
        -------
        str
        """

    @abc.abstractmethod
    def swap_text(self, c, image, a: float, b: float, what: str) -> str:
        """A counterexample to an invariance.

        Parameters
        ----------
        c, image : numpy.ndarray
            A matrix and its transform.
        a, b : float
            Their oriented values.
        what : str
            The transformation.

        Returns
        -------
        str
        """

    @abc.abstractmethod
    def reach_text(self, c, v: float, ref: float, c_ref) -> str:
        """A counterexample to an extreme.

        Matrix ``c`` (value ``v``) reaches the value ``ref`` of the extreme matrix ``c_ref``.

        Parameters
        ----------
        c, c_ref : numpy.ndarray
        v, ref : float
            Oriented values.

        Returns
        -------
        str
        """

    @abc.abstractmethod
    def triangle_text(self, labels: str, d_ac: float, d_abc: float) -> str:
        """A counterexample to the triangle inequality d(A,C) <= d(A,B) + d(B,C).

        Parameters
        ----------
        labels : str
            The three labelings.
        d_ac, d_abc : float
            d(A,C) and d(A,B) + d(B,C).

        Returns
        -------
        str
        """

    @abc.abstractmethod
    def dist_sizes(self) -> range:
        """The numbers of items whose labelings ``dist`` checks.

        Returns
        -------
        range
        """

    @abc.abstractmethod
    def dist_note(self) -> str:
        """The note of a ``dist`` verdict that holds.

        Returns
        -------
        str
        """

    @abc.abstractmethod
    def baseline_cases(self):
        """The cases of the constant baselines (Gösgens et al. 2021, Defs. 8-9).

        Yields
        ------
        key : str
            The case as counterexamples name it.
        a, b : numpy.ndarray
            True class sizes (every class present) and non-unary predicted class sizes.
        """

    @abc.abstractmethod
    def margin_tables(self, a, b):
        """The tables of a random labeling against a true one, and their probabilities.

        The true labeling has class sizes ``a``, the random one class sizes ``b`` (see
        :mod:`.random_classifier`).

        Parameters
        ----------
        a, b : numpy.ndarray

        Returns
        -------
        tables : numpy.ndarray
            ``C[k, m, m]``.
        p : numpy.ndarray
        """

    @abc.abstractmethod
    def baseline_note(self, skipped: int) -> str:
        """The note of a constant-baseline verdict.

        Parameters
        ----------
        skipped : int
            Cases where the measure is undefined on some table.

        Returns
        -------
        str
        """


class BinarySpace(Space):
    """Every 2 x 2 matrix with n <= ``n_max`` in the order of :func:`.matrices.all_matrices`.

    Matrices read ``(tp, fp, fn, tn)`` and cells by name; counterexamples show both matrices;
    moves visit the cells as tp, tn, fp, fn (right decisions first, the positive class first);
    ``dist`` checks labelings of n <= min(n_max, 6); the constant baselines run over
    2 <= n <= n_max by n, then AP, then the predicted positives.

    Parameters
    ----------
    f : BinaryMeasure
    n_max : int
    """

    cells = ((1, 1), (0, 0), (0, 1), (1, 0))

    def __init__(self, f: BinaryMeasure, n_max: int):
        super().__init__(f, binary_matrices(n_max), n_max)

    def fmt(self, c) -> str:
        """``(tp, fp, fn, tn)``."""
        return fmt_counts(c[1, 1], c[0, 1], c[1, 0], c[0, 0])

    def cell(self, a: int, b: int) -> str:
        """tp, fp, fn or tn."""
        return BINARY_NAMES[(a, b)]

    def permutation(self, p) -> str:
        """The only one: "classes swapped"."""
        return "classes swapped"

    def swap_text(self, c, image, a, b, what: str) -> str:
        """Both matrices and both values."""
        return f"{self.fmt(c)} -> {short(self.sign * a)}, {what} {self.fmt(image)} -> {short(self.sign * b)}"

    def reach_text(self, c, v, ref, c_ref) -> str:
        """Both matrices and both values."""
        return (
            f"{self.fmt(c)} -> {short(self.sign * v)} reaches the value {short(self.sign * ref)} of {self.fmt(c_ref)}"
        )

    def triangle_text(self, labels: str, d_ac: float, d_abc: float) -> str:
        """The labelings and both sides of the inequality."""
        return f"{labels}: d(A,C) = {short(d_ac)} > d(A,B) + d(B,C) = {short(d_abc)}"

    def dist_sizes(self) -> range:
        """2 .. min(n_max, N_DIST)."""
        return range(2, min(self.n_max, N_DIST) + 1)

    def dist_note(self) -> str:
        """How many items the labelings had."""
        return f"triangle inequality checked on all labelings of n <= {min(self.n_max, N_DIST)}"

    def baseline_cases(self):
        """By n = 2..n_max, then a1, then b1 (keys ``n=.., a1=.., b1=..``)."""
        for n in range(2, self.n_max + 1):
            for a1 in range(1, n):
                for b1 in range(1, n):
                    yield f"n={n}, a1={a1}, b1={b1}", np.array([n - a1, a1], float), np.array([n - b1, b1], float)

    def margin_tables(self, a, b):
        """The hypergeometric distribution of tp (:func:`.random_classifier.hypergeometric_tables`)."""
        return random_classifier.hypergeometric_tables(a, b)

    def baseline_note(self, skipped: int) -> str:
        """The number of skipped cases, if any."""
        return f"{skipped} (A, b) with an undefined outcome skipped" if skipped else ""


class MatrixSpace(Space):
    """Every m x m matrix with n <= ``n_max`` in the order of :func:`.matrices.all_class_matrices`.

    Matrices read ``[c00 c01; c10 c11]`` and cells ``c01``; counterexamples show the first
    matrix; moves visit the cells in row-major order; values within 1e-9 (relative) are equal in
    the symmetry checks; ``dist`` checks labelings of n <= 4; the constant baselines run over the
    class sizes of the enumerated matrices.

    Parameters
    ----------
    f : MatrixMeasure
    m : int
        Number of classes.
    n_max : int
    """

    swap_tolerance = 1e-9
    dist_first_item_fastest = False

    def __init__(self, f: MatrixMeasure, m: int, n_max: int):
        super().__init__(f, all_class_matrices(m, n_max), n_max)
        self.classes = m
        self.cells = tuple((a, b) for a in range(m) for b in range(m))  # row-major

    @property
    def m(self) -> int:
        """Number of classes."""
        return self.classes

    def fmt(self, c) -> str:
        """``[c00 c01; c10 c11]``."""
        return "[" + "; ".join(" ".join(count(x) for x in row) for row in c) + "]"

    def cell(self, a: int, b: int) -> str:
        """``c<a><b>``."""
        return f"c{a}{b}"

    def permutation(self, p) -> str:
        """``classes permuted (p0, p1, ...)``."""
        return f"classes permuted {p}"

    def swap_text(self, c, image, a, b, what: str) -> str:
        """The matrix and both values."""
        return f"{self.fmt(c)} -> {short(self.sign * a)}, {what} -> {short(self.sign * b)}"

    def reach_text(self, c, v, ref, c_ref) -> str:
        """The matrix, its value and the extreme value."""
        return f"{self.fmt(c)} -> {short(self.sign * v)} reaches the value {short(self.sign * ref)}"

    def triangle_text(self, labels: str, d_ac: float, d_abc: float) -> str:
        """The labelings."""
        return f"{labels}: triangle inequality fails"

    def dist_sizes(self) -> range:
        """2 .. N_DIST_MULTICLASS, whatever n_max."""
        return range(2, N_DIST_MULTICLASS + 1)

    def dist_note(self) -> str:
        """How many items and classes the labelings had."""
        return f"all labelings of n <= {N_DIST_MULTICLASS} with {self.m} classes"

    def baseline_cases(self):
        """Class sizes a of the enumerated matrices (all present) and non-unary b, by (n, sizes).

        Keys read ``a=(..), b=(..)``.
        """
        sizes = sorted({tuple(x) for x in self.C.sum(axis=2).astype(int).tolist()}, key=lambda t: (sum(t), t))
        for a_t in sizes:
            a = np.array(a_t, dtype=float)
            if (a == 0).any():
                continue  # true labelings with every class (see the binary note on unary labelings)
            for b_t in sizes:
                b = np.array(b_t, dtype=float)
                if b.sum() != a.sum() or (b == b.sum()).any():
                    continue
                yield f"a={a_t}, b={b_t}", a, b

    def margin_tables(self, a, b):
        """The enumerated tables with these margins (:func:`.random_classifier.tables_with_margins`)."""
        return random_classifier.tables_with_margins(self.C, a, b)

    def baseline_note(self, skipped: int) -> str:
        """The number of classes."""
        return f"m = {self.m}, true labelings with every class"
