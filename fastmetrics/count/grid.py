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
    """``(guide, cells, lo, inv_step)``: how the sweep kernel finds a score's bucket.

    The kernel maps a score ``s`` to a cell ``c = int(min((s - lo) * inv_step + 1, cells))``
    (0 when that is not positive) of an even grid about 64 times finer than the thresholds,
    and reads ``guide[c]``:

    - ``guide[c] >= 0``: every score of the cell has exactly that many thresholds ``<= s``;
      one table load is the whole search;
    - ``guide[c] = -(b + 1)``: a threshold falls inside the cell. The ``b`` thresholds below
      the cell are ``<= s`` and those above it are not, so a walk up from ``b`` settles it.

    The cell of a score only rises with the score (each step of the formula rounds
    monotonically), so a threshold ``t`` splits a cell exactly when ``t`` and the float just
    below it fall in the same cell. The cells are found here by the kernel's own formula in
    float64, so the table agrees with the kernel to the last bit. A range too wide for a finite
    step (inv_step 0) makes every cell a walk from 0: a NaN cell there would not be monotone.
    """
    k = grid.size
    lo, hi = float(grid[0]), float(grid[-1])
    cells = int(min(max(64, 64 * k), 1 << 16))
    inv_step = _inverse_step(lo, hi, cells)
    dtype = np.int16 if k < np.iinfo(np.int16).max else np.int32
    if inv_step == 0.0:
        return np.full(cells + 1, -1, dtype), float(cells), lo, 0.0
    at = _cell_of(grid, lo, inv_step, cells)
    with np.errstate(over="ignore"):  # the float below -MAX is -inf: cell 0, as the kernel's
        below = _cell_of(np.nextafter(grid, -np.inf), lo, inv_step, cells)
    guide = np.searchsorted(at, np.arange(cells + 1), side="right").astype(dtype)
    split = at[below == at]
    guide[split] = -np.searchsorted(at, split, side="left").astype(dtype) - 1
    return guide, float(cells), lo, inv_step


def _cell_of(values: np.ndarray, lo: float, inv_step: float, cells: int) -> np.ndarray:
    """The sweep kernel's cell of each value (see :func:`bucket_guide`), computed as it does."""
    with np.errstate(over="ignore", invalid="ignore"):
        x = (values - lo) * inv_step + 1.0
        return np.where(x > 0.0, np.minimum(x, float(cells)), 0.0).astype(np.int64)


def _inverse_step(lo: float, hi: float, n: int) -> float:
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        step = hi / (n - 1) - lo / (n - 1)
        inverse = 1.0 / step if step > 0.0 else 0.0
    return float(inverse) if np.isfinite(inverse) else 0.0
