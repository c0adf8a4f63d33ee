"""Threshold grids that fit each system: read from the exact sweep, one grid per system.

Systems score on different scales: a grid over the scores of all systems leaves most of its
points outside any one system's range (on SemEval-2016 A the systems' scores run from -4.1 to
20.7, and SLS's best F1 on a shared 101-point grid is its all-positive value). Here each system
gets its own ``k`` thresholds -- evenly spaced over its own score range (``grid="system"``,
rounded as :mod:`fastmetrics.count.grid` rounds) or at quantiles of its own scores
(``grid="quantile"``, each an actual score) -- shared by all of its topics.

The counts come from the exact sweep without another pass over the rows: an exact sweep holds,
for each group, the counts at every distinct score, and "score >= t" selects the same items as
"score >= the smallest distinct score at or above t". The result has the exact sweep's layout:
``counts[cell, 2, 2]`` with per-cell ``system, topic, threshold``, thresholds decreasing within
each group, so point measures, curve measures and best thresholds read it as they read an exact
sweep.
"""

from __future__ import annotations

import numba
import numpy as np

from ..tensor import ConfusionTensor, counts_at, group_starts
from .assemble import SMALL_EXACT
from .grid import threshold_grid


def fitted_grids(exact: ConfusionTensor, k: int, grid: str, system: str = "system") -> dict:
    """Each system's ``k`` thresholds, from the scores its exact sweep holds.

    Parameters
    ----------
    exact : ConfusionTensor
        An exact sweep with a per-cell ``system`` coordinate.
    k : int
        Thresholds per system.
    grid : {"system", "quantile"}
        Evenly spaced over the system's score range, or at the quantiles ``j / (k - 1)`` of its
        scores (each item once; the lower value where a quantile falls between two scores).
    system : str, default "system"
        The coordinate playing the system.

    Returns
    -------
    dict
        System label → increasing thresholds.
    """
    system = np.asarray(exact.coords[system])
    threshold = np.asarray(exact.coords["threshold"], np.float64)
    starts, _ = group_starts(exact)
    positives = exact.counts[:, 1, 1] + exact.counts[:, 0, 1]  # items scored >= the cell's threshold
    first = np.zeros(system.size, bool)
    first[starts[:-1]] = True
    items = np.where(first, positives, positives - np.roll(positives, 1))  # items at exactly that score
    out = {}
    for label in dict.fromkeys(system.tolist()):
        mine = system == label
        scores, weights = threshold[mine], items[mine].astype(np.float64)
        if grid == "system":
            out[label] = threshold_grid(k, scores.min(), scores.max())
            continue
        order = np.argsort(scores, kind="stable")
        cumulative = np.cumsum(weights[order])
        wanted = np.linspace(0.0, 1.0, k) * cumulative[-1]
        at = np.minimum(np.searchsorted(cumulative, wanted, side="left"), order.size - 1)
        out[label] = np.unique(scores[order][at])
    return out


def resample_sweep(exact: ConfusionTensor, grids: dict, system: str = "system") -> ConfusionTensor:
    """The exact sweep read at each system's own thresholds.

    Parameters
    ----------
    exact : ConfusionTensor
        An exact sweep (``counts[cell, 2, 2]``, per-cell ``system, topic, threshold``).
    grids : dict
        System label → increasing thresholds (:func:`fitted_grids`).
    system : str, default "system"
        The coordinate playing the system.

    Returns
    -------
    ConfusionTensor
        ``counts[cell, 2, 2]``: every group at each of its system's thresholds, decreasing.
    """
    starts, axes = group_starts(exact)
    system = np.asarray(exact.coords[system])
    labels = list(grids)
    index = {label: i for i, label in enumerate(labels)}
    group_grid = np.array([index[system[s]] for s in starts[:-1].tolist()], np.int64)
    sizes = np.array([grids[label].size for label in labels], np.int64)
    grid_starts = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    thresholds = np.concatenate([grids[label] for label in labels]) if labels else np.zeros(0)
    per_group = sizes[group_grid]
    n_out = int(per_group.sum())
    out_counts = np.empty((n_out, 2, 2), exact.counts.dtype)
    out_thresholds = np.empty(n_out)
    exact_thresholds = np.asarray(exact.coords["threshold"], np.float64)
    resample = _resample_groups if exact.counts.shape[0] >= SMALL_EXACT else _small_resample
    resample(exact.counts, exact_thresholds, starts, thresholds, group_grid, grid_starts, out_counts, out_thresholds)
    coords = {a: np.repeat(np.asarray(exact.coords[a])[starts[:-1]], per_group) for a in axes}
    coords["threshold"] = out_thresholds
    return ConfusionTensor(out_counts, ("cell",), coords, coord_axes={c: "cell" for c in coords}, classes=exact.classes)


def _small_resample(counts, exact_thresholds, starts, thresholds, group_grid, grid_starts, out_counts, out_thresholds):
    """:func:`_resample_groups` by numpy, a group at a time: a small sweep (a report's) does not
    wait for the kernel to compile."""
    cell = 0
    for g in range(starts.size - 1):
        lo, hi = starts[g], starts[g + 1]
        grid = thresholds[grid_starts[group_grid[g]] : grid_starts[group_grid[g] + 1]][::-1]
        out_counts[cell : cell + grid.size] = counts_at(exact_thresholds[lo:hi], counts[lo:hi], grid)
        out_thresholds[cell : cell + grid.size] = grid
        cell += grid.size


@numba.njit(cache=True)
def _resample_groups(counts, exact_thresholds, starts, thresholds, group_grid, grid_starts, out_counts, out_thresholds):
    """Counts of every group at its system's thresholds (decreasing), from its exact cells."""
    cell = 0
    for g in range(starts.size - 1):
        lo, hi = starts[g], starts[g + 1]
        positives = counts[lo, 1, 1] + counts[lo, 1, 0]
        negatives = counts[lo, 0, 1] + counts[lo, 0, 0]
        a, b = grid_starts[group_grid[g]], grid_starts[group_grid[g] + 1]
        i = lo - 1  # the last exact cell (thresholds decrease) whose threshold is >= t
        for j in range(b - 1, a - 1, -1):
            t = thresholds[j]
            while i + 1 < hi and exact_thresholds[i + 1] >= t:
                i += 1
            out_thresholds[cell] = t
            if i < lo:  # t above every score: nothing predicted positive
                out_counts[cell, 1, 1] = 0
                out_counts[cell, 0, 1] = 0
                out_counts[cell, 1, 0] = positives
                out_counts[cell, 0, 0] = negatives
            else:  # cell by cell: a row assignment compiles numba's array setitem on a first call
                for a_ in range(2):
                    for b_ in range(2):
                        out_counts[cell, a_, b_] = counts[i, a_, b_]
            cell += 1


def ranges_differ(src, score: str = "score", system: str = "system", share: float = 0.5) -> bool:
    """Whether some system's score range covers less than ``share`` of the range of all scores.

    The rule behind ``grid="auto"`` of ``fastmetrics sweep``: a shared grid then leaves most of
    that system's thresholds outside its scores.

    Parameters
    ----------
    src : Source
        An opened input (:func:`fastmetrics.io.open_source`).
    score, system : str
        Column names.
    share : float, default 0.5

    Returns
    -------
    bool
        False without a ``system`` or ``score`` column.
    """
    if system not in src.column_names or score not in src.column_names:
        return False
    table = src.read_all([system, score])
    ranges = table.group_by(system).aggregate([(score, "min"), (score, "max")])
    lo = np.asarray(ranges.column(f"{score}_min").to_numpy(zero_copy_only=False), np.float64)
    hi = np.asarray(ranges.column(f"{score}_max").to_numpy(zero_copy_only=False), np.float64)
    total = np.nanmax(hi) - np.nanmin(lo)
    return bool(total > 0 and np.any((hi - lo) < share * total))
