"""Split-half stability of measures (seed 001 §5).

Each of ``R`` replicates splits the items of every topic at random into two halves (the same split
for all systems, :mod:`fastmetrics.count.resample`) and scores every system on each half: the
macro mean over topics (as the leaderboard) or the pooled (micro) value. Per measure:

- ``std``: the standard deviation (ddof = 1) of a system's score over the ``2R`` halves -- seed
  001 reports about 1 % for 800 items;
- ``swap_rate``: the fraction of (replicate, system pair) where the two halves order the pair
  differently, with the sign convention of :mod:`fastmetrics.meta.inconsistency` (differences
  within ``tolerance`` are ties; a win against a tie is a swap; pairs with a NaN are skipped).
"""

from __future__ import annotations

import warnings

import numpy as np
import pyarrow as pa

from .._errors import ParameterError
from .._progress import Progress
from ..count.resample import split_halves
from ..measures.registry import parse_specs
from ..tensor import role_names
from ._common import MetaResult, higher_is_better, labels_array
from ._kernels import nanmean_rows

AGGREGATES = ("macro", "micro")


def stability(
    source,
    gold=None,
    *,
    measures=("accuracy", "f1", "mcc", "k"),
    replicates: int = 500,
    seed: int = 0,
    aggregate: str = "macro",
    tolerance: float = 1e-5,
    progress: bool = False,
    system: str = "system",
    topic: str = "topic",
    **count_options,
) -> MetaResult:
    """Standard deviation and swap rate of each measure over random split halves.

    Parameters
    ----------
    source, gold, **count_options
        As :func:`fastmetrics.count` (hard predictions).
    measures : sequence of str, default ("accuracy", "f1", "mcc", "k")
        Measure names or specs.
    replicates : int, default 500
        Random halvings ``R``; each gives two halves.
    seed : int, default 0
        Seed of the random splits.
    aggregate : {"macro", "micro"}, default "macro"
        A system's score on a half: mean over topics, or the measure of the pooled counts.
    tolerance : float, default 1e-5
        Differences within it are ties when the two halves order a system pair.
    progress : bool, default False
        Progress bar on stderr (on a terminal, for runs longer than about a second).
    system, topic : str, default "system", "topic"
        The columns playing the system and the topic; the output columns keep their names.

    Returns
    -------
    MetaResult
        ``summary``: ``measure, swap_rate, swaps, comparisons, mean_std``; ``detail``: ``system,
        measure, mean, std``.
    """
    if aggregate not in AGGREGATES:
        raise ParameterError(f"aggregate must be 'macro' or 'micro'; got {aggregate!r}.")
    swept = [s.base_label for s in parse_specs(list(measures)) if s.measure.kind != "point"]
    if swept:
        raise ParameterError(
            f"Stability splits the items of hard predictions and counts each half: {', '.join(swept)} read(s) a "
            "threshold sweep or a ranking, which it does not count. Choose point measures (accuracy, f1, mcc, ...)."
        )
    halving = split_halves(source, gold, replicates=replicates, seed=seed, system=system, topic=topic, **count_options)
    bar = Progress(replicates, f"stability ({replicates} halvings)", quiet=not progress)
    names, systems, values = _half_scores(halving, list(measures), aggregate, role_names(system, topic), bar)
    n_systems = systems.size
    per_system = values.reshape(len(names), -1, n_systems)  # [measure, 2R, system]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        std = np.nanstd(per_system, axis=1, ddof=1)
        mean = np.nanmean(per_system, axis=1)
    first, second = np.triu_indices(n_systems, 1)
    swaps, comparisons = [], []
    for i, name in enumerate(names):
        v = values[i] if higher_is_better(name) else -values[i]  # [R, 2, S]
        d = v[:, :, first] - v[:, :, second]
        with np.errstate(invalid="ignore"):
            sign = (d > tolerance).astype(np.int8) - (d < -tolerance).astype(np.int8)
        valid = ~np.isnan(d).any(axis=1)
        swaps.append(int(((sign[:, 0] != sign[:, 1]) & valid).sum()))
        comparisons.append(int(valid.sum()))
    bar.close()
    summary = pa.table(
        {
            "measure": names,
            "swap_rate": pa.array([s / c if c else np.nan for s, c in zip(swaps, comparisons)], pa.float64()),
            "swaps": pa.array(swaps, pa.int64()),
            "comparisons": pa.array(comparisons, pa.int64()),
            "mean_std": pa.array(
                np.nanmean(np.where(np.isnan(std), np.nan, std), axis=1) if n_systems else np.full(len(names), np.nan),
                pa.float64(),
            ),
        }
    )
    detail = pa.table(
        {
            "system": labels_array(np.tile(systems, len(names))),
            "measure": np.repeat(names, n_systems).tolist(),
            "mean": pa.array(mean.reshape(-1), pa.float64()),
            "std": pa.array(std.reshape(-1), pa.float64()),
        }
    )
    params = {"replicates": replicates, "seed": seed, "aggregate": aggregate, "tolerance": tolerance}
    return MetaResult(summary, detail, params).in_names(system, topic)


def _half_scores(halving, measures, aggregate, names, bar):
    """``values[measure, replicate, half, system]``: each half's system scores, a block of
    replicates at a time (the counts of all the halves at once may not fit in memory)."""
    parts = []
    # float counts: the measures compute in float64 anyway, and skip a cast of every block
    for halves in halving.blocks(dtype=np.float64):
        halves = halves.rename(names)
        if "topic" in halves.axes and aggregate == "micro":
            halves = halves.sum("topic")
        scores = halves.evaluate(measures)
        if "system" not in scores.axes:
            raise ParameterError("Stability compares systems: the input needs a 'system' column.")
        values = scores.values  # [measure, replicate, half, system(, topic)]
        if "topic" in scores.axes:
            values = _mean_over(values, scores.axes.index("topic") + 1)
        parts.append(values)
        bar.advance(values.shape[1])
    return list(scores.measures), np.asarray(scores.coords["system"]), np.concatenate(parts, axis=1)


def _mean_over(values, axis):
    """``np.nanmean(values, axis)`` without its copy of the values (NaN where all are NaN)."""
    moved = np.ascontiguousarray(np.moveaxis(values, axis, -1))
    out = np.empty(moved.shape[:-1])
    nanmean_rows(moved.reshape(out.size, moved.shape[-1]), out.reshape(-1))
    return out
