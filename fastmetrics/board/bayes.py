"""The Bayesian signed-rank test with a region of practical equivalence, for every system pair.

Benavoli, Corani, Demšar & Zaffalon (2017, JMLR 18(77), §4.2): the differences ``z_1 ... z_n`` of two
systems over the topics are a sample of an unknown distribution with a Dirichlet-process prior of
strength ``s`` (``prior``, default 0.5) centred on a pseudo-observation ``z_0 = 0``. Its posterior
gives the weights ``(w_0, w_1, ..., w_n) ~ Dirichlet(s, 1, ..., 1)``, and for each posterior sample

- ``θ_left = Σ_i Σ_j w_i w_j H(-z_i - z_j - 2 r)``: the probability that the difference is below
  the ROPE ``[-r, r]`` (``b`` practically better),
- ``θ_right = Σ_i Σ_j w_i w_j H(z_i + z_j - 2 r)``: above it (``a`` practically better),
- ``θ_rope = 1 - θ_left - θ_right``: within it (practically equivalent),

``H`` being 1 above 0, 1/2 at 0 and 0 below (``i = j`` included), as the authors' ``baycomp``
computes them. ``P(a better)``, ``P(equivalent)`` and ``P(b better)`` are the shares of samples
where θ_right, θ_rope or θ_left is the largest of the three (the first largest on ties). With
``rope = 0`` there is no equivalence: the test reads ``P(a better)`` and ``P(b better)``.

Here ``z_t = m_a(t) - m_b(t)`` oriented so that a positive difference is ``a`` doing better (a
lower-is-better measure's difference is negated), over the topics where both are defined. The
ROPE ``r`` is in the measure's own units (0.01: differences within one point of F1 in 100 are
practically equivalent, the authors' choice for accuracy).

Each θ is computed in ``O(n)`` a sample: with the ``z`` sorted, the ``j`` with ``z_i + z_j > 2 r`` are a
suffix, so ``Σ_j w_j H(...)`` is a difference of cumulative weights. The pairs of a measure defined
on the same topics share their posterior samples (common random numbers: each pair's estimate is
exact in distribution, and their Monte-Carlo errors are dependent).
"""

from __future__ import annotations

import numpy as np

from .. import _memory
from .._errors import parameter_error
from .._threads import in_ranges
from ..meta.paired import pattern_groups
from ._compare_kernels import rope_positions, signed_rank_thetas, signed_rank_wins

_CHUNK_VALUES = 1 << 22  # posterior weights held at once: 32 MiB


def check_options(rope, samples, prior, owner: str = "signed_rank") -> None:
    """Refuse a ROPE below 0, fewer than one sample or a prior strength not above 0."""
    if isinstance(rope, bool) or not isinstance(rope, (int, float, np.floating)) or not rope >= 0:
        raise parameter_error("rope", owner, "a half-width >= 0 in the measure's units (e.g. 0.01)", rope)
    if isinstance(samples, bool) or not isinstance(samples, (int, np.integer)) or samples < 1:
        raise parameter_error("samples", owner, "an integer >= 1", samples)
    if isinstance(prior, bool) or not isinstance(prior, (int, float, np.floating)) or not prior > 0:
        raise parameter_error("prior", owner, "a prior strength > 0 (default 0.5)", prior)


def signed_rank(diff, *, rope=0.01, samples=50_000, prior=0.5, rng, progress=None) -> np.ndarray:
    """The Bayesian signed-rank test of every row of differences.

    Parameters
    ----------
    diff : ndarray of float64, shape (rows, topics)
        Oriented differences (positive: the first system better); NaN where undefined.
    rope : float, default 0.01
        The half-width ``r`` of the region of practical equivalence, in the measure's units.
    samples : int, default 50000
        Posterior samples.
    prior : float, default 0.5
        The strength ``s`` of the Dirichlet process's prior at 0.
    rng : numpy.random.Generator
    progress : callable, optional
        Called with the number of (row, sample) steps done.

    Returns
    -------
    ndarray of float64, shape (rows, 3)
        ``P(b better), P(equivalent), P(a better)`` per row (the order of θ_left, θ_rope,
        θ_right); NaN for a row with no defined topic.
    """
    check_options(rope, samples, prior)
    out = np.full((diff.shape[0], 3), np.nan)
    for rows, columns in pattern_groups(diff):
        if columns.size == 0:
            continue
        z = np.zeros((rows.size, columns.size + 1))
        z[:, 1:] = diff[np.ix_(rows, columns)]
        positions = _positions(z, rope)
        wins = np.zeros((rows.size, 3), np.int64)
        chunk = max(1, min(samples, _CHUNK_VALUES // z.shape[1]))
        for start in range(0, samples, chunk):
            weights = posterior_weights(min(chunk, samples - start), columns.size, prior, rng)
            in_ranges(signed_rank_wins, rows.size, weights, *positions, wins)
            if progress is not None:
                progress(weights.shape[0] * rows.size)
        out[rows] = wins / float(samples)
    return out


def posterior_weights(samples: int, n: int, prior: float, rng) -> np.ndarray:
    """Dirichlet(prior, 1, ..., 1) draws over the pseudo-observation and ``n`` topics.

    Parameters
    ----------
    samples, n : int
    prior : float
    rng : numpy.random.Generator

    Returns
    -------
    ndarray of float64, shape (samples, n + 1)
    """
    gammas = np.empty((samples, n + 1))
    gammas[:, 0] = rng.standard_gamma(prior, size=samples)
    gammas[:, 1:] = rng.standard_exponential(size=(samples, n))
    gammas /= gammas.sum(axis=1, keepdims=True)
    return gammas


def _positions(z: np.ndarray, rope: float) -> tuple:
    order = np.argsort(z, axis=1, kind="stable")
    bounds = [np.empty(z.shape, np.int64) for _ in range(4)]
    in_ranges(rope_positions, z.shape[0], z, order, *bounds, float(rope))
    return (order, *bounds)


def thetas(z, weights, rope) -> np.ndarray:
    """θ_left and θ_right of one row of differences for given posterior weights.

    Parameters
    ----------
    z : ndarray of float64, shape (n + 1,)
        The prior's 0 first, then the differences.
    weights : ndarray of float64, shape (samples, n + 1)
    rope : float

    Returns
    -------
    ndarray of float64, shape (samples, 2)
    """
    z = np.ascontiguousarray(z, np.float64)[None, :]
    positions = _positions(z, rope)
    out = np.empty((weights.shape[0], 2))
    signed_rank_thetas(np.ascontiguousarray(weights, np.float64), *positions, 0, out)
    return out


def check_memory(n_rows: int, n_topics: int, what: str) -> None:
    """Refuse, before any sampling, a batch whose differences and positions cannot be held."""
    _memory.check(
        48 * n_rows * (n_topics + 1) + 8 * _CHUNK_VALUES,
        what,
        "Compare fewer systems, or use a test that keeps no positions (--significance t)",
    )
