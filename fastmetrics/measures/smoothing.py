"""Smoothed estimates of the conditional probabilities behind the measures (Amigó et al. 2019, §5).

A measure is written in terms of recall r = P(S|G), specificity s = P(¬S|¬G), precision
p = P(G|S), npv v = P(¬G|¬S) and the priors g = P(G), q = P(S). Smoothing replaces the raw
estimates by:

``laplace`` (§5.1)
    one pseudo-item added to every cell: r = (tp + 1)/(AP + 2), p = (tp + 1)/(PP + 2), ...,
    g = (AP + 2)/(n + 4). Equivalent to evaluating the measure on ``counts + 1``. It turns a
    non-informative output informative (the zero output gets precision 1/2 instead of P(G)).
``noninformative`` (§5.2)
    the prior is the non-informative output, with Laplace's weight 2:
    r = (tp + 2q)/(AP + 2), 1 - s = (fp + 2q)/(AN + 2), p = (tp + 2g)/(PP + 2),
    1 - v = (fn + 2g)/(PN + 2), with the raw priors g = AP/n, q = PP/n. A non-informative output
    keeps P(G|S) = P(G) exactly.

Measures of recall and specificity alone (K, informedness, LAM%, DOR, ...) and measures of
precision or npv have a probability-form kernel of their own (``Measure.smoothed``), so they stay
defined under smoothing even when a gold class is absent. Measures of the joint distribution
(MCC, kappa, mutual information, accuracy, utilities, ...) are evaluated by their count kernel on
the joint rebuilt from the smoothed r, s and the prior g (scaled by n, so utilities keep their
scale).

Found here, against Amigó et al. (2019, §5.2): ``noninformative`` smoothing does not make F1 strictly
monotone. Smoothed recall (tp + 2 P(S))/(AP + 2) falls when a false positive becomes a true
negative, and can outweigh the gain in precision: (tp, fp, fn, tn) = (1, 1, 1, 0) -> (1, 0, 1, 1)
lowers smoothed F1 from 0.5833 to 0.5426. LAM% is strictly monotone under it (away from the
trivial outputs); Laplace's correction makes both strictly monotone.

Also found here: with ``noninformative`` smoothing the zero and placebo
outputs (q = 0 or 1) are left exactly as they are (2q or 2(1 - q) adds nothing), so LAM% stays
undefined for them; and with no positive in the gold (g = 0) precision stays 0 and the
measures of the joint distribution of both classes (MCC, kappa, ...) stay undefined.
"""

from __future__ import annotations

import numpy as np

from .._errors import ParameterError, parameter_error

SMOOTHINGS = ("laplace", "noninformative")


def conditional_estimates(tp, fp, fn, tn, smoothing: str):
    """Smoothed ``(r, s, p, v, g, q, n)`` as float64 arrays (n: the scale of the joint)."""
    tp, fp, fn, tn = (np.asarray(x, dtype=np.float64) for x in (tp, fp, fn, tn))
    with np.errstate(invalid="ignore", divide="ignore"):
        if smoothing == "laplace":
            tp, fp, fn, tn = tp + 1.0, fp + 1.0, fn + 1.0, tn + 1.0
            n = tp + fp + fn + tn
            g = (tp + fn) / n
            q = (tp + fp) / n
            r = tp / (tp + fn)
            s = tn / (fp + tn)
            p = tp / (tp + fp)
            v = tn / (fn + tn)
        elif smoothing == "noninformative":
            n = tp + fp + fn + tn
            g = (tp + fn) / n
            q = (tp + fp) / n
            r = (tp + 2.0 * q) / (tp + fn + 2.0)
            s = 1.0 - (fp + 2.0 * q) / (fp + tn + 2.0)
            p = (tp + 2.0 * g) / (tp + fp + 2.0)
            v = 1.0 - (fn + 2.0 * g) / (fn + tn + 2.0)
        else:
            raise parameter_error("smoothing", "compute", "None, 'laplace' or 'noninformative'", smoothing)
    return r, s, p, v, g, q, n


def smoothed_values(spec, tp, fp, fn, tn, smoothing: str, out=None):
    """Evaluate ``spec`` on smoothed probability estimates."""
    measure = spec.measure
    if measure.smoothed is None:
        raise ParameterError(
            f"Measure '{measure.name}' cannot be smoothed: it is not a function of the conditional "
            "probabilities of Amigó et al. (2019, §5)."
        )
    r, s, p, v, g, q, n = conditional_estimates(tp, fp, fn, tn, smoothing)
    kwargs = {} if out is None else {"out": out}
    with np.errstate(invalid="ignore", divide="ignore"):
        if measure.smoothed == "joint":
            return measure.kernel(
                n * r * g, n * (1.0 - s) * (1.0 - g), n * (1.0 - r) * g, n * s * (1.0 - g), *spec.params, **kwargs
            )
        return measure.smoothed(r, s, p, v, g, q, *spec.params, **kwargs)
