"""Measures of random classifiers: the outcomes of a classifier that ignores the items, and the
expected value of a measure over them.

Two random classifiers on a test set with ``ap`` positives and ``an`` negatives:

- ``"uniform"``: every item positive with probability 1/2 (every labeling equally likely), so
  tp ~ Bin(ap, 1/2) and fp ~ Bin(an, 1/2) independently -- Amigó et al.'s (2019) random baseline;
- ``"count"``: the number k of predicted positives uniform on 0..n, then k items at random, so
  tp ~ Hypergeometric(n, ap, k) -- the model that reproduces Sebastiani's (2015) E[F1] numbers.

Expectations are taken over the outcomes where the measure is defined (conditioned on them).
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from .._errors import ParameterError
from .api import compute

MODELS = ("uniform", "count")
_lgamma = np.vectorize(math.lgamma, otypes=[np.float64])


def log_choose(n, k) -> np.ndarray:
    """Return ``log C(n, k)`` through log-gamma: finite for any n, elementwise over ``k``."""
    k = np.asarray(k, np.float64)
    return math.lgamma(n + 1) - _lgamma(k + 1) - _lgamma(n - k + 1)


def hypergeometric(n: int, a: int, k: int):
    """Support and probabilities of tp ~ Hypergeometric(n items, a positives, k drawn)."""
    tp = np.arange(max(0, a + k - n), min(a, k) + 1, dtype=np.float64)
    return tp, np.exp(log_choose(a, tp) + log_choose(n - a, k - tp) - log_choose(n, k))


def _binomial_half_range(n: float) -> tuple[int, int]:
    """The values ``lo..hi`` of Bin(n, 1/2) carrying all but ~1e-15 of its mass (mean +- 8 sd;
    the whole support up to n = 256)."""
    half_width = 8.0 * math.sqrt(n) / 2.0 + 1.0
    return max(0, int(math.floor(n / 2.0 - half_width))), min(int(n), int(math.ceil(n / 2.0 + half_width)))


def _binomial_half_support(n: float):
    """Values and probabilities of Bin(n, 1/2) over :func:`_binomial_half_range`."""
    lo, hi = _binomial_half_range(n)
    x = np.arange(lo, hi + 1, dtype=np.float64)
    return x, np.exp(log_choose(n, x) - n * math.log(2.0))


def random_outcomes(ap: int, an: int, model: str = "uniform"):
    """``(tp, fp, weights)`` over the outcomes of the random classifier ``model``."""
    if model == "uniform":
        tp, wt = _binomial_half_support(ap)
        fp, wf = _binomial_half_support(an)
        return np.repeat(tp, fp.size), np.tile(fp, tp.size), np.outer(wt, wf).reshape(-1)
    if model == "count":
        n = int(ap + an)
        parts = [hypergeometric(n, int(ap), k) for k in range(n + 1)]
        tp = np.concatenate([t for t, _ in parts])
        fp = np.concatenate([k - t for k, (t, _) in enumerate(parts)])
        w = np.concatenate([p / (n + 1) for _, p in parts])
        return tp, fp, w
    raise ParameterError(f"model must be one of {', '.join(MODELS)}; got {model!r}.")


def expectation(values, weights, require_all: bool = False) -> float:
    """Return the weighted mean of ``values`` over the outcomes where it is defined (not NaN).

    The weights are renormalised over the defined outcomes, i.e. the expectation is conditioned on
    the measure being defined. NaN if no value is defined, or if ``require_all`` and one is not.
    """
    values = np.asarray(values, np.float64)
    ok = ~np.isnan(values)
    if not ok.any() or (require_all and not ok.all()):
        return np.nan
    return float((weights[ok] * values[ok]).sum() / weights[ok].sum())


def expected_random(
    spec, ap: int, an: int, model: str = "uniform", smoothing=None, max_cells: int | None = None
) -> float:
    """E[M] of the random classifier ``model`` on a test set, in the measure's own direction.

    ``max_cells``: beyond that many outcomes (large test sets) the measure is taken at the
    expected counts instead, an O(1/n) approximation (the random baseline of Amigó et al. (2019) on big topics).
    """
    return float(expected_randoms(spec, [ap], [an], model, smoothing, max_cells)[0])


def expected_randoms(spec, ap, an, model: str = "uniform", smoothing=None, max_cells: int | None = None) -> np.ndarray:
    """E[M] of the random classifier ``model`` on each of many test sets.

    The measure is evaluated once per batch of test sets, over all their outcomes (one call per
    test set was most of the time of a leaderboard's baselines); each value equals
    :func:`expected_random` of its test set.

    Parameters
    ----------
    spec : MeasureSpec
    ap, an : sequence of float
        Each test set's positives and negatives.
    model, smoothing, max_cells
        As in :func:`expected_random`.

    Returns
    -------
    ndarray of float64
        One expectation per test set.
    """
    out = np.full(len(ap), np.nan)
    batch, cells = [], 0
    for i, (a, n) in enumerate(zip(ap, an)):
        if a + n == 0:
            continue
        if model == "uniform" and max_cells is not None and _outcomes(a) * _outcomes(n) > max_cells:
            out[i] = _at_expected_counts(spec, a, n, smoothing)
            continue
        batch.append((i, a, n, random_outcomes(a, n, model)))
        cells += batch[-1][3][0].size
        if cells >= _BATCH_CELLS:
            _expectations(spec, batch, smoothing, out)
            batch, cells = [], 0
    if batch:
        _expectations(spec, batch, smoothing, out)
    return out


def _outcomes(n: float) -> int:
    lo, hi = _binomial_half_range(n)
    return hi - lo + 1


_BATCH_CELLS = 1 << 20  # outcomes evaluated in one call: memory stays bounded however many topics


def _quiet_compute(spec, tp, fp, fn, tn, smoothing):
    """The measure of the counts, its undefined values NaN without a warning (a baseline's
    outcomes include the degenerate ones by design)."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return compute(spec, tp=tp, fp=fp, fn=fn, tn=tn, smoothing=smoothing, warn=False)


def _at_expected_counts(spec, ap, an, smoothing) -> float:
    return float(_quiet_compute(spec, ap / 2.0, an / 2.0, ap / 2.0, an / 2.0, smoothing))


def _expectations(spec, batch, smoothing, out) -> None:
    """``out[i]`` = the expectation over the outcomes of each test set ``(i, ap, an, (tp, fp,
    weights))`` of ``batch``."""
    tp = np.concatenate([t for _, _, _, (t, _, _) in batch])
    fp = np.concatenate([f for _, _, _, (_, f, _) in batch])
    fn = np.concatenate([a - t for _, a, _, (t, _, _) in batch])
    tn = np.concatenate([n - f for _, _, n, (_, f, _) in batch])
    values = _quiet_compute(spec, tp, fp, fn, tn, smoothing)
    values = np.where(np.isfinite(values), values, np.nan)
    at = 0
    for i, _, _, (t, _, w) in batch:
        out[i] = expectation(values[at : at + t.size], w)
        at += t.size
