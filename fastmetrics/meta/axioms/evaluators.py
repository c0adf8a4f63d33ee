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


class BinaryMeasure:
    """A binary measure as an oriented float function (NaN where undefined), higher is better.

    Parameters
    ----------
    spec : MeasureSpec
        The measure with its parameters.
    smoothing : {None, "laplace", "noninformative"}
        Smoothing applied before the kernel (seed 004 §5).
    """

    def __init__(self, spec, smoothing=None):
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
        If the measure has no native multiclass definition.
    """

    def __init__(self, spec):
        if spec.measure.multiclass is None:
            raise ParameterError(f"Measure '{spec.measure.name}' has no native multiclass definition to check.")
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
