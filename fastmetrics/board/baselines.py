"""The non-informative baselines of a leaderboard (Amigó et al. (2019) §6.5): what a system that
knows nothing scores on each topic's gold.

``placebo`` (every item positive) and ``zero`` (every item negative) are counts, evaluated with
the systems' counts (:func:`fastmetrics.board.values.board_values`); ``random`` (each item
positive with probability 1/2) is an expectation over the outcomes, computed here.
"""

from __future__ import annotations

import numpy as np

from ..measures import chance

BASELINES = ("placebo", "zero", "random")
# the joint support of tp ~ Bin(AP, 1/2), fp ~ Bin(AN, 1/2) summed exactly up to this many outcomes
_RANDOM_EXACT_CELLS = 2_000_000


def random_baseline(spec, ap: float, an: float) -> float:
    """Expected value of a measure for the random classifier of Amigó et al. (2019, §6.5).

    The random baseline labels each item positive with probability 1/2.

    Parameters
    ----------
    spec : MeasureSpec
        A binary measure (a spec with one-vs-rest averaging has no random baseline: NaN).
    ap, an : float
        The topic's positives and negatives: tp ~ Bin(ap, 1/2) and fp ~ Bin(an, 1/2)
        independently.

    Returns
    -------
    float
        The expectation, exact (summed over the joint distribution, conditioned on the outcomes
        where the measure is defined) while the support has at most 2 million cells; beyond
        that the measure at the expected counts (ap/2, an/2, ap/2, an/2), an O(1/n)
        approximation. See :mod:`fastmetrics.measures.chance`.
    """
    return float(random_baselines(spec, [ap], [an])[0])


def random_baselines(spec, ap, an) -> np.ndarray:
    """Expected values of a measure for the random classifier on many topics at once.

    The measure is evaluated over the outcomes of a batch of topics in one call (one call per
    topic was most of the time of a leaderboard's baselines); each value equals
    :func:`random_baseline` of its topic.

    Parameters
    ----------
    spec : MeasureSpec
        A binary measure (a spec with one-vs-rest averaging has no random baseline: NaN).
    ap, an : sequence of float
        Each topic's positives and negatives.

    Returns
    -------
    ndarray of float64
        One expectation per topic.
    """
    if spec.averaged(None) is not None:
        return np.full(len(ap), np.nan)
    return chance.expected_randoms(spec, ap, an, "uniform", max_cells=_RANDOM_EXACT_CELLS)


def baseline_counts(tensor, *, system: str = "system") -> tuple[np.ndarray, np.ndarray]:
    """Per topic, the gold sizes (AP, AN) as counted for the most complete run (largest n).

    Parameters
    ----------
    tensor : ConfusionTensor
        Binary counts over ``(system[, topic])``.
    system : str, default "system"
        The axis playing the system.

    Returns
    -------
    ap, an : ndarray of float64
        Over the tensor's axes without ``system``.
    """
    c = tensor.counts
    n = c.sum(axis=(-1, -2))
    system_axis = tensor.axes.index(system)
    best = np.expand_dims(np.argmax(n, axis=system_axis), system_axis)
    ap = np.take_along_axis(c[..., 1, :].sum(-1), best, axis=system_axis).squeeze(system_axis)
    an = np.take_along_axis(c[..., 0, :].sum(-1), best, axis=system_axis).squeeze(system_axis)
    return ap.astype(np.float64), an.astype(np.float64)


def pooled_squares(tensor, system: str):
    """Each system's sums of squared weights pooled over the other axes (None without weights)."""
    if tensor.squares is None:
        return None
    return tensor.sum([a for a in tensor.axes if a != system]).squares
