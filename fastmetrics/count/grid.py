"""Threshold grids: the values a sweep counts at, and how a score finds its bucket fast.

An item is predicted positive at threshold ``t`` iff ``score >= t`` (scores compared as float64,
so a float32 score is promoted before the comparison). ``thresholds=k`` lays ``k`` evenly spaced
values over the observed score range ``[lo, hi]``:

- each value is ``lo * (1 - f) + hi * f`` with ``f = i / (k - 1)``, which cannot overflow even
  when the range spans ±1.8e308 (``hi - lo`` would be infinite);
- interior values are rounded to 12 significant digits, so that 11 thresholds over ``[0, 1]``
  hold exactly 0.1, 0.2, 0.3, ... (not 0.30000000000000004) and a score of exactly 0.3 is
  positive at the threshold printed as 0.3; the two ends stay the exact observed extremes, so
  the lowest threshold predicts every item positive;
- duplicates are removed (a constant score gives one threshold, a range of a few subnormal
  numbers gives as many thresholds as it has representable values).

The values returned are exactly the values used, and written out as such.
"""

from __future__ import annotations

import numbers

import numpy as np

from .._errors import parameter_error

SIGNIFICANT_DIGITS = 12
_EXPECTED = "None, 'exact', an int >= 1 or an array of finite floats"


def is_count(thresholds) -> bool:
    """Whether ``thresholds`` asks for ``k`` evenly spaced values (an int, not a bool)."""
    return isinstance(thresholds, numbers.Integral) and not isinstance(thresholds, bool)


def threshold_grid(thresholds, lo: float = 0.0, hi: float = 1.0) -> np.ndarray:
    """The sorted, distinct threshold values.

    Parameters
    ----------
    thresholds : int or array_like
        ``k`` evenly spaced values over ``[lo, hi]`` (see the module docstring for the rounding),
        or explicit values (sorted and deduplicated, kept exactly).
    lo, hi : float
        The observed score range, used when ``thresholds`` is an int.

    Returns
    -------
    numpy.ndarray of float64, strictly increasing and finite.
    """
    if is_count(thresholds):
        if thresholds < 1:
            raise parameter_error("thresholds", "count", _EXPECTED, thresholds)
        return _even_values(float(lo), float(hi), int(thresholds))
    try:
        grid = np.asarray(thresholds, dtype=np.float64)
    except (TypeError, ValueError):
        raise parameter_error("thresholds", "count", _EXPECTED, thresholds) from None
    if grid.ndim != 1 or grid.size == 0 or not np.all(np.isfinite(grid)):
        raise parameter_error("thresholds", "count", "a non-empty 1-D array of finite floats", thresholds)
    return np.unique(grid)


def _even_values(lo: float, hi: float, k: int) -> np.ndarray:
    if not (np.isfinite(lo) and np.isfinite(hi)) or lo > hi:
        raise parameter_error("thresholds", "count", "a grid over a finite score range", (lo, hi))
    if k == 1 or lo == hi:
        return np.array([lo], np.float64)
    f = np.arange(k, dtype=np.float64) / (k - 1)
    grid = lo * (1.0 - f) + hi * f
    grid[0], grid[-1] = lo, hi
    interior = grid[1:-1]
    if interior.size:
        grid[1:-1] = [float(f"{v:.{SIGNIFICANT_DIGITS}g}") for v in interior.tolist()]
    return np.unique(np.clip(grid, lo, hi))


def even_spacing(grid: np.ndarray) -> tuple[bool, float, float]:
    """``(even, lo, 1 / step)`` of a sorted grid: when the values are (nearly) evenly spaced a
    score's bucket is found by one multiplication, then settled exactly against the stored
    values (see ``_kernels._bucket``). Computed without overflow on any finite grid."""
    if grid.size < 2:
        return False, 0.0, 0.0
    n = grid.size - 1
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        step = grid[-1] / n - grid[0] / n
        if not (step > 0.0) or not np.isfinite(1.0 / step):
            return False, 0.0, 0.0
        ideal = grid[0] + step * np.arange(grid.size)
        even = bool(np.max(np.abs(grid - ideal)) <= 1e-6 * step)
    return even, float(grid[0]), float(1.0 / step)
