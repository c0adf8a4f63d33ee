"""The counting kernels on plain arrays, for callers that hold codes already (no source, no plan)."""

from __future__ import annotations

import numba
import numpy as np

from .._errors import InputError
from . import _codes, _hard, _sweep
from .encoders import ABSENT_COLUMN, code_column
from .grid import bucket_guide


# -- the kernels on plain arrays, for callers that hold codes already ---------------------------
def _scratch(n_rows, out):
    chunks = 1 if n_rows < 100_000 else max(1, min(numba.get_num_threads(), (256 << 20) // max(out.nbytes, 1)))
    return np.empty((chunks,) + out.shape, out.dtype)


def _raise_codes(errors):
    if errors.max() >= 0:
        raise InputError(f"A code at row {int(errors[errors >= 0].min())} is outside its range.")


def hard_counts(group, gold, pred, n_groups: int, m: int, weight=None, out=None) -> np.ndarray:
    """Confusion counts ``counts[g, i, j]`` from group codes, gold and predicted class codes.

    One parallel pass over the rows, for callers that hold codes already.

    Parameters
    ----------
    group : array_like of int, shape (n_rows,)
        Group code of each row, ``0 <= group < n_groups``.
    gold, pred : array_like of int, shape (n_rows,)
        Gold and predicted class codes, ``0 <= code < m``.
    n_groups : int
        Number of groups.
    m : int
        Number of classes.
    weight : array_like of float, shape (n_rows,), optional
        Item weights (finite, >= 0); the counts are then float64 sums of weights.
    out : ndarray, shape (n_groups, m, m), optional
        Counts to add to (in place), e.g. over the record batches of a stream.

    Returns
    -------
    ndarray of int64 (float64 with ``weight``), shape (n_groups, m, m)
        ``out`` (or a new array) plus the number (weight) of rows of group ``g`` with gold class
        ``i`` predicted as ``j``.

    Raises
    ------
    InputError
        A code outside its range, or a weight that is negative or not finite (the first such
        row is named).
    """
    weight = None if weight is None else np.asarray(weight, np.float64)
    if out is None:
        out = np.zeros((n_groups, m, m), np.int64 if weight is None else np.float64)
    errors = np.full((numba.get_num_threads(), _codes.N_KINDS), -1, np.int64)
    partial = _scratch(len(group), out)
    partial[:] = 0
    _hard.hard_batch(
        len(group),
        code_column(group, n_groups),
        ABSENT_COLUMN,
        1,
        code_column(gold, m),
        code_column(pred, m),
        weight,
        _codes.NO_MARKS,
        partial,
        errors,
    )
    _raise_codes(errors)
    out += partial.sum(axis=0)
    return out


def sweep_histogram(group, gold, score, grid, n_groups: int, weight=None, out=None) -> np.ndarray:
    """Sweep histogram ``hist[g, gold, b]``: rows passing exactly the ``b`` lowest thresholds.

    A row passes a threshold ``t`` when ``score >= t``. Cumulative sums of the histogram give the
    counts at every threshold (:func:`histogram_to_counts`).

    Parameters
    ----------
    group : array_like of int, shape (n_rows,)
        Group code of each row, ``0 <= group < n_groups``.
    gold : array_like of int, shape (n_rows,)
        Gold class codes, 0 (negative) or 1 (positive).
    score : ndarray of float, shape (n_rows,)
        Scores, finite.
    grid : array_like of float, shape (k,)
        The thresholds, in increasing order.
    n_groups : int
        Number of groups.
    weight : array_like of float, shape (n_rows,), optional
        Item weights (finite, >= 0); the histogram then holds float64 sums of weights.
    out : ndarray, shape (n_groups, 2, k + 1), optional
        Histogram to add to (in place), e.g. over the record batches of a stream.

    Returns
    -------
    ndarray of int64 (float64 with ``weight``), shape (n_groups, 2, k + 1)
        ``out`` (or a new array) plus the number (weight) of rows of group ``g`` and gold class
        ``gold`` whose score passes exactly the ``b`` lowest thresholds of ``grid``.

    Raises
    ------
    InputError
        A code outside its range, a non-finite score, or a weight that is negative or not
        finite (the first such row is named).
    """
    weight = None if weight is None else np.asarray(weight, np.float64)
    grid = np.asarray(grid, np.float64)
    if out is None:
        out = np.zeros((n_groups, 2, grid.size + 1), np.int64 if weight is None else np.float64)

    errors = np.full((numba.get_num_threads(), _codes.N_KINDS), -1, np.int64)
    partial = _scratch(len(group), out)
    partial[:] = 0
    _sweep.sweep_batch(
        len(group),
        code_column(group, n_groups),
        ABSENT_COLUMN,
        1,
        code_column(gold, 2),
        score,
        weight,
        _codes.NO_MARKS,
        (grid, *bucket_guide(grid)),
        partial,
        errors,
    )
    _raise_codes(errors)
    out += partial.sum(axis=0)
    return out
