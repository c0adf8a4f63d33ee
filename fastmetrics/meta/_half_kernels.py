"""Split-half scores in one pass: a binary measure on both halves of every replicate, averaged over
topics (macro) or on counts pooled over topics (micro), inside one numba kernel per measure.

Evaluating the measures' ufuncs on a tensor of every half (10^8 cells for 100 systems x 1,000
topics x 500 replicates) wrote and read that tensor once per measure, each value through the
ufunc machinery's strided loop. Here the measure's element function is compiled into the loop
over the replicates of each (system, topic) group: the half-0 counts are read from
:meth:`fastmetrics.count.resample.Halving.count_first` (replicates innermost, so the loop runs
over contiguous int32), half 1 is the group's total minus half 0, and a system's sum over its
topics stays in a small array. The float operations are those of the ufunc (same element function,
numpy's error model) and the topics are summed in order, as ``np.nanmean`` over a tensor would.
The kernels are serial and release the GIL: :func:`fastmetrics.meta.stability` gives each
thread a range of systems, counted and measured while its counts are in cache.
"""

from __future__ import annotations

import hashlib
import inspect
import re
import types

import numpy as np
from numba import njit

from ..measures import _kernels as measure_helpers

_KERNELS: dict = {}


def _macro(first, totals, groups, cells, params, out):
    """``out[s, h, r]``: mean over the topics ``groups[s]`` of the measure on half ``h`` of
    replicate ``r`` (NaN values skipped; NaN if every one is)."""
    n_systems, n_topics = groups.shape
    width = first.shape[2]
    itp, ifp, ifn, itn = cells
    for s in range(n_systems):
        sums = np.zeros((2, width))
        seen = np.zeros((2, width))
        for t in range(n_topics):
            g = groups[s, t]
            whole_tp, whole_fp = float(totals[g, itp]), float(totals[g, ifp])
            whole_fn, whole_tn = float(totals[g, ifn]), float(totals[g, itn])
            a_tp, a_fp, a_fn, a_tn = first[g, itp], first[g, ifp], first[g, ifn], first[g, itn]
            for r in range(width):
                tp, fp, fn, tn = float(a_tp[r]), float(a_fp[r]), float(a_fn[r]), float(a_tn[r])
                v = MEASURE(tp, fp, fn, tn, *params)  # noqa: F821 (bound per measure by half_means)
                ok = v == v
                sums[0, r] += v if ok else 0.0
                seen[0, r] += ok
                v = MEASURE(whole_tp - tp, whole_fp - fp, whole_fn - fn, whole_tn - tn, *params)  # noqa: F821
                ok = v == v
                sums[1, r] += v if ok else 0.0
                seen[1, r] += ok
        for h in range(2):
            for r in range(width):
                out[s, h, r] = sums[h, r] / seen[h, r] if seen[h, r] > 0 else np.nan


def _micro(first, totals, groups, cells, params, out):
    """``out[s, h, r]``: the measure on half ``h`` of replicate ``r`` of the counts of the topics
    ``groups[s]`` pooled."""
    n_systems, n_topics = groups.shape
    width = first.shape[2]
    for s in range(n_systems):
        half = np.zeros((4, width), np.int64)
        whole = np.zeros(4, np.int64)
        for t in range(n_topics):
            g = groups[s, t]
            for c in range(4):
                cell = cells[c]
                whole[c] += totals[g, cell]
                row = first[g, cell]
                for r in range(width):
                    half[c, r] += row[r]
        for r in range(width):
            tp, fp, fn, tn = float(half[0, r]), float(half[1, r]), float(half[2, r]), float(half[3, r])
            out[s, 0, r] = MEASURE(tp, fp, fn, tn, *params)  # noqa: F821
            out[s, 1, r] = MEASURE(whole[0] - tp, whole[1] - fp, whole[2] - fn, whole[3] - tn, *params)  # noqa: F821


_TEMPLATES = {"macro": _macro, "micro": _micro}


def half_means(name: str, element, aggregate: str):
    """The kernel of one binary measure and aggregate (``"macro"`` or ``"micro"``).

    Each is its own numba function (the measure's element function bound as a global, so it is
    inlined into the loop) with its own name, so that numba caches each on disk. numba keys a
    cached function on its own code, not on the functions it inlines: the name also carries a
    hash of the measure's source (:func:`_source_hash`), so an edited formula is compiled anew
    instead of read back stale.

    Parameters
    ----------
    name : str
        The measure's registry name (the kernel's name and cache key).
    element : numba dispatcher
        Its scalar function of ``(tp, fp, fn, tn, *params)``
        (:func:`fastmetrics.measures.api.binary_element`).
    aggregate : {"macro", "micro"}

    Returns
    -------
    callable
        ``kernel(first, totals, groups, cells, params, out)``: see :func:`_macro` and :func:`_micro`.
    """
    key = (name, aggregate)
    if key not in _KERNELS:
        template = _TEMPLATES[aggregate]
        suffix = "_" + re.sub(r"\W", "_", name) + "_" + _source_hash(element)
        scope = {**template.__globals__, "MEASURE": element}
        clone = types.FunctionType(template.__code__, scope, template.__name__ + suffix, None, None)
        clone.__qualname__ = template.__qualname__ + suffix
        _KERNELS[key] = njit(cache=True, nogil=True, error_model="numpy")(clone)
    return _KERNELS[key]


def _source_hash(element) -> str:
    """Eight hex digits of the source files an element function is compiled from: its module and
    the measures' shared helpers (:mod:`fastmetrics.measures._kernels`)."""
    digest = hashlib.sha256()
    for module in sorted({inspect.getsourcefile(element.py_func), inspect.getsourcefile(measure_helpers)}):
        with open(module, "rb") as handle:
            digest.update(handle.read())
    return digest.hexdigest()[:8]
