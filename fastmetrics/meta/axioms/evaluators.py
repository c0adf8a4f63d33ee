"""The measure under check as an oriented function (higher is better, NaN where undefined).

:class:`BinaryMeasure` runs the binary kernel (with smoothing and parameters) on counts or on
2 x 2 matrices; :class:`MatrixMeasure` runs a measure's native multiclass definition on m x m
matrices.
"""

from __future__ import annotations

import warnings

import numpy as np

from ..._errors import ParameterError
from ...measures import api

# why the checker, which runs a measure on confusion matrices, cannot run the other kinds
_NOT_OF_COUNTS = {
    "curve": "a function of the scores over every threshold",
    "ranking": "a function of each topic's ranked list",
    "calibration": "a function of the predicted probabilities",
    "topk": "a function of each item's class scores",
}
_AVERAGES = ("micro", "macro", "weighted")


def of_counts(spec) -> None:
    """Refuse a measure that is not a function of one confusion matrix.

    Parameters
    ----------
    spec : MeasureSpec

    Raises
    ------
    ParameterError
        For a curve, ranking, calibration or top-k measure: the properties are defined on
        confusion matrices, which such a measure does not read.
    """
    kind = spec.measure.kind
    if kind != "point":
        raise ParameterError(
            f"The property checker cannot evaluate '{spec.label}': it is a {kind.replace('topk', 'top-k')} measure "
            f"({_NOT_OF_COUNTS.get(kind, 'not a function of counts')}), and the properties are defined "
            "on confusion matrices; check point measures (fastmetrics measures lists each kind)."
        )


class BinaryMeasure:
    """A binary measure as an oriented float function (NaN where undefined), higher is better.

    Parameters
    ----------
    spec : MeasureSpec
        The measure with its parameters.
    smoothing : {None, "laplace", "noninformative"}
        Smoothing applied before the kernel (Amigó et al. 2019, §5).
    """

    def __init__(self, spec, smoothing=None):
        of_counts(spec)
        self.spec = spec
        self.smoothing = smoothing
        self.sign = 1.0 if spec.measure.higher_is_better else -1.0
        self.label = spec.label + (f"[{smoothing}]" if smoothing else "")

    def counts(self, tp, fp, fn, tn, spec=None) -> np.ndarray:
        """The oriented measure of count arrays (any broadcastable shapes, real values allowed).

        Parameters
        ----------
        tp, fp, fn, tn : array_like
        spec : MeasureSpec, optional
            Another parameterisation of the same measure (``abs_weighting``).

        Returns
        -------
        numpy.ndarray
            ``float64``, NaN where undefined or not finite.
        """
        arrays = np.broadcast_arrays(*(np.asarray(x, np.float64) for x in (tp, fp, fn, tn)))
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            values = api.compute(spec or self.spec, *arrays, smoothing=self.smoothing, warn=False)
        values = np.asarray(values, np.float64)
        values[~np.isfinite(values)] = np.nan
        return self.sign * values

    def __call__(self, C) -> np.ndarray:
        """The oriented measure of matrices ``C[..., 2, 2]``.

        Parameters
        ----------
        C : numpy.ndarray

        Returns
        -------
        numpy.ndarray
        """
        return self.counts(C[..., 1, 1], C[..., 0, 1], C[..., 1, 0], C[..., 0, 0])


class MatrixMeasure:
    """A measure's native multiclass definition as an oriented function of ``C[..., m, m]``.

    Parameters
    ----------
    spec : MeasureSpec

    Raises
    ------
    ParameterError
        If the measure is not a point measure, or has no native multiclass definition and no
        average (``f1@macro`` is checked as the macro mean of the one-vs-rest values).
    """

    def __init__(self, spec):
        of_counts(spec)
        if spec.measure.multiclass is None and spec.average not in _AVERAGES:
            raise ParameterError(
                f"Measure '{spec.label}' has no native multiclass definition to check: name an average "
                f"({', '.join(f'{spec.base_label}@{a}' for a in _AVERAGES)}) or a measure with one."
            )
        self.spec = spec
        self.sign = 1.0 if spec.measure.higher_is_better else -1.0
        self.label = spec.label

    def __call__(self, C) -> np.ndarray:
        """The oriented measure, NaN where undefined or not finite.

        Parameters
        ----------
        C : array_like
            ``C[..., m, m]``.

        Returns
        -------
        numpy.ndarray
        """
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            v = np.asarray(api.compute(self.spec, counts=np.asarray(C, np.float64), warn=False), np.float64)
        v = np.array(v, dtype=np.float64)
        v[~np.isfinite(v)] = np.nan
        return self.sign * v
