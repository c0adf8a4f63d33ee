"""One value per group of a sweep: a curve or calibration kernel over each group's cells.

The loop takes the measure's kernel as a first-class function of a fixed type (numba's
``FunctionType``), so it is compiled once per counts dtype and cached like every other kernel.
Passed as a plain dispatcher argument instead, the kernel made the loop a new function per
measure that numba cannot cache: it was compiled again in every process, for every measure --
most of a small report's time. Large inputs run on threads over runs of groups (the loop releases
the GIL, :func:`fastmetrics._threads.on_threads`).
"""

from __future__ import annotations

import numba
import numpy as np
from numba import types

from .._threads import on_threads
from .curves import NOTHING

NAN = np.nan
_CELLS = {np.dtype(np.int64): types.int64, np.dtype(np.float64): types.float64}
_LOOPS: dict = {}


def _curve_loop(curve, counts, starts, params, out):
    for g in range(starts.size - 1):
        lo, hi = starts[g], starts[g + 1]
        c = counts[lo:hi]
        out[g] = curve(c[:, 1, 1], c[:, 0, 1], c[:, 1, 0], c[:, 0, 0], params) if hi > lo else NAN


def _scored_loop(measure, counts, scores, starts, params, out):
    for g in range(starts.size - 1):
        lo, hi = starts[g], starts[g + 1]
        c = counts[lo:hi]
        out[g] = measure(c[:, 1, 1], c[:, 0, 1], c[:, 1, 0], c[:, 0, 0], scores[lo:hi], params) if hi > lo else NAN


def _point_loop(point, counts, starts, params, out):
    for g in range(starts.size - 1):
        lo, hi = starts[g], starts[g + 1]
        c = counts[lo:hi]
        out[g] = point(c[:, 1, 1], c[:, 0, 1], c[:, 1, 0], c[:, 0, 0], params)[1] if hi > lo else NOTHING


def _loop(kind: str, dtype: np.dtype):
    """The loop of ``kind`` ("curve", "scored" or "point") for counts of ``dtype``, compiled (or
    read from the cache) on first use."""
    key = (kind, dtype)
    if key not in _LOOPS:
        side = types.Array(_CELLS[dtype], 1, "A")
        vector = types.Array(types.float64, 1, "C")
        scored = (types.Array(types.float64, 1, "A"),) if kind == "scored" else ()
        value = types.Tuple((types.float64, types.int64)) if kind == "point" else types.float64
        kernel = types.FunctionType(value(side, side, side, side, *scored, vector))
        counts = types.Array(_CELLS[dtype], 3, "C")
        out = types.Array(types.int64 if kind == "point" else types.float64, 1, "C")
        data = (counts, vector) if kind == "scored" else (counts,)
        args = (kernel, *data, types.Array(types.int64, 1, "C"), vector, out)
        py_func = {"curve": _curve_loop, "scored": _scored_loop, "point": _point_loop}[kind]
        _LOOPS[key] = numba.njit(types.void(*args), cache=True, nogil=True)(py_func)
    return _LOOPS[key]


def over_groups(kernel, counts, starts, params, out, scores=None, kind=None) -> None:
    """``out[g]`` = ``kernel`` over the cells ``starts[g]:starts[g + 1]`` of ``counts[cell, 2, 2]``.

    Parameters
    ----------
    kernel : numba dispatcher
        A curve kernel ``(tp, fp, fn, tn, params) -> float``; with ``scores`` a calibration
        kernel ``(tp, fp, fn, tn, scores, params) -> float``; with ``kind="point"`` an
        operating-point kernel ``(...) -> (value, cell)``, of which ``out`` (int64) takes the cell
        (:data:`~fastmetrics.measures.curves.NOTHING` for a group without cells).
    counts : ndarray, shape (cells, 2, 2)
        int64, or float64 with weights.
    starts : ndarray of int64
        Where each group's cells start; the last entry is the cell count.
    params : ndarray of float64
        The measure's parameters.
    out : ndarray of float64
        One value per group, NaN for a group without cells.
    scores : ndarray of float64, optional
        The score of each cell (calibration kernels).
    kind : {None, "point"}
        ``"point"`` for operating-point kernels.
    """
    dtype = np.dtype(np.float64) if counts.dtype.kind == "f" else np.dtype(np.int64)
    counts = np.ascontiguousarray(counts, dtype)
    starts = np.ascontiguousarray(starts, np.int64)
    params = np.ascontiguousarray(params, np.float64)
    loop = _loop(kind or ("scored" if scores is not None else "curve"), dtype)
    data = (counts,) if scores is None else (counts, np.ascontiguousarray(scores, np.float64))
    if starts[-1] < (1 << 20):
        loop(kernel, *data, starts, params, out)
        return
    threads = numba.get_num_threads()
    cut = np.searchsorted(starts, np.linspace(0, starts[-1], threads + 1)[1:-1])
    bounds = [0, *np.unique(cut).tolist(), starts.size - 1]
    runs = [(a, b) for a, b in zip(bounds[:-1], bounds[1:]) if b > a]
    on_threads(loop, ((kernel, *data, starts[a : b + 1], params, out[a:b]) for a, b in runs))
