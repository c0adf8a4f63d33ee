"""Gösgens et al. (2021, §5.1), Table 3: which binary measures no triplet of labelings of n items tells apart."""

from __future__ import annotations

import numpy as np

from ...measures import registry
from .evaluators import BinaryMeasure


def _order_signs(f: BinaryMeasure, n: int, tolerance: float) -> np.ndarray:
    """For every pair of outputs on the same true labeling: 1, -1, 0 (tie) or 9 (undefined) as
    the measure orders them, concatenated over the positive class sizes a1 = 1..n-1."""
    parts = []
    for a1 in range(1, n):
        a0 = n - a1
        tp, fp = np.meshgrid(np.arange(a1 + 1), np.arange(a0 + 1), indexing="ij")
        tp, fp = tp.reshape(-1).astype(float), fp.reshape(-1).astype(float)
        keep = (tp + fp >= 1) & (tp + fp <= n - 1)
        tp, fp = tp[keep], fp[keep]
        v = f.counts(tp, fp, a1 - tp, a0 - fp)
        d = v[:, None] - v[None, :]
        parts.append(np.where(np.isnan(d), 9, np.where(d > tolerance, 1, np.where(d < -tolerance, -1, 0))).reshape(-1))
    return np.concatenate(parts)


def indistinguishable(measures, n: int, tolerance: float = 1e-5) -> set[frozenset]:
    """Pairs of measures no triplet of labelings of ``n`` items tells apart (Gösgens et al. 2021, §5.1).

    Two measures are indistinguishable if they are consistent on every triplet (A, B1, B2) of
    labelings that all contain both classes.

    Consistency depends on the labelings only through the two confusion matrices of (A, B1) and
    (A, B2), so the search runs over pairs of matrices with the same true class sizes: for every
    a1 in 1..n-1, all (tp, fp) with 1 <= tp + fp <= n - 1. Differences within ``tolerance`` are
    ties, as in the paper's code.

    Parameters
    ----------
    measures : sequence of str
        Measures or specs.
    n : int
        Number of items.
    tolerance : float, default 1e-5
        Largest difference counted as a tie.

    Returns
    -------
    set of frozenset
        Each indistinguishable pair, by the measures' labels.
    """
    evaluators = [BinaryMeasure(registry.make_spec(m)) for m in measures]
    signs = [_order_signs(f, n, tolerance) for f in evaluators]
    pairs = set()
    for i in range(len(measures)):
        for j in range(i + 1, len(measures)):
            if np.array_equal(signs[i], signs[j]):
                pairs.add(frozenset((evaluators[i].label, evaluators[j].label)))
    return pairs
