"""Helpers shared by the leaderboard's modules."""

from __future__ import annotations

import warnings

import numpy as np


def nanmean(values: np.ndarray, axis: int) -> np.ndarray:
    """The mean over ``axis`` of the values that are not NaN; NaN (without a warning) where none is.

    Parameters
    ----------
    values : ndarray
    axis : int

    Returns
    -------
    ndarray
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a measure undefined on every topic: NaN mean
        return np.nanmean(values, axis=axis)
