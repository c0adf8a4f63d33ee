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


def bucket_guide(grid: np.ndarray) -> tuple:
    """``(guide, cells, lo, inv_step)``: how the sweep kernel guesses a score's bucket.

    An evenly spaced grid needs no table (``guide`` None): the guess is
    ``(score - lo) * inv_step + 1``. Any other grid gets a finer even grid of ``cells`` points
    and ``guide[c]`` = the number of thresholds <= its point ``c - 1``, so the guess lands at or
    just below the bucket and a short walk settles it. Computed without overflow on any finite
    grid (a range too wide for a finite step gives inv_step 0: every guess walks).
    """
    k = grid.size
    even, lo, inv_step = _even(grid)
    if even:
        return None, float(k), lo, inv_step
    cells = max(64, 4 * k)
    virtual = _even_points(grid[0], grid[-1], cells)
    inv_step = _inverse_step(grid[0], grid[-1], cells)
    guide = np.zeros(cells + 1, np.int32)
    guide[1:] = np.searchsorted(grid, virtual, side="right")
    return guide, float(cells), float(grid[0]), inv_step


def _inverse_step(lo: float, hi: float, n: int) -> float:
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        step = hi / (n - 1) - lo / (n - 1)
        inverse = 1.0 / step if step > 0.0 else 0.0
    return float(inverse) if np.isfinite(inverse) else 0.0


def _even_points(lo: float, hi: float, n: int) -> np.ndarray:
    f = np.arange(n, dtype=np.float64) / (n - 1)
    return lo * (1.0 - f) + hi * f


def _even(grid: np.ndarray) -> tuple[bool, float, float]:
    """Whether the grid is (nearly) evenly spaced, its first value and 1 / step."""
    if grid.size < 2:
        return False, 0.0, 0.0
    inv_step = _inverse_step(grid[0], grid[-1], grid.size)
    if inv_step == 0.0:
        return False, 0.0, 0.0
    with np.errstate(over="ignore", invalid="ignore"):
        deviation = np.max(np.abs(grid - _even_points(grid[0], grid[-1], grid.size))) * inv_step
    return bool(deviation <= 1e-6), float(grid[0]), inv_step
