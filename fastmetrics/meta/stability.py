"""Split-half stability of measures (Steingold & Laclavík n.d., §5).

Each of ``R`` replicates splits the items of every topic at random into two halves of
``floor(n/2)`` and ``ceil(n/2)`` items (the same split for all systems, counted by
:mod:`fastmetrics.count.resample`; drawn from the seed as :mod:`fastmetrics.count.draws`
documents) and scores every system on each half: the macro mean over topics (as the
leaderboard) or the pooled (micro) value. Per measure:

- ``std``: the standard deviation (ddof = 1) of a system's score over the ``2R`` halves -- seed
  001 reports about 1 % for 800 items;
- ``swap_rate``: the fraction of (replicate, system pair) where the two halves order the pair
  differently, with the sign convention of :mod:`fastmetrics.meta.inconsistency` (differences
  within ``tolerance`` are ties; a win against a tie is a swap; pairs with a NaN are skipped).
"""

from __future__ import annotations

import threading
import warnings

import numpy as np
import pyarrow as pa

from .._errors import ParameterError
from .._progress import Progress
from .._threads import in_ranges, on_threads
from ..count.resample import split_halves
from ..measures.api import binary_element
from ..measures.evaluation import label_of
from ..measures.positive import positive_counts
from ..measures.registry import parse_specs
from ..tensor import Roles
from ._common import MetaResult, higher_is_better, labels_array
from ._half_kernels import half_means
from ._kernels import half_swaps, nanmean_rows

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
        Seed of the random splits: the same seed gives the same halves
        (:mod:`fastmetrics.count.draws`).
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
        measure, mean, std`` (the first column named after the column playing the system).
    """
    if aggregate not in AGGREGATES:
        raise ParameterError(f"aggregate must be 'macro' or 'micro'; got {aggregate!r}.")
    swept = [s.base_label for s in parse_specs(list(measures)) if s.measure.kind != "point"]
    if swept:
        raise ParameterError(
            f"Stability splits the items of hard predictions and counts each half: {', '.join(swept)} read(s) a "
            "threshold sweep or a ranking, which it does not count. Choose point measures (accuracy, f1, mcc, ...)."
        )
    roles = Roles(system, topic)
    halving = split_halves(source, gold, replicates=replicates, seed=seed, system=system, topic=topic, **count_options)
    bar = Progress(replicates, f"stability ({replicates} halvings)", quiet=not progress)
    fused = _fused_scores(halving, list(measures), aggregate, roles, bar)
    if fused is None:
        fused = _half_scores(halving, list(measures), aggregate, roles, bar)
    names, systems, values = fused
    n_systems = systems.size
    per_system = values.reshape(len(names), -1, n_systems)  # [measure, 2R, system]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        std = np.nanstd(per_system, axis=1, ddof=1)
        mean = np.nanmean(per_system, axis=1)
    oriented = [values[i] if higher_is_better(name) else -values[i] for i, name in enumerate(names)]
    swaps, comparisons = zip(*on_threads(half_swaps, [(np.ascontiguousarray(v), tolerance) for v in oriented]))
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
            system: labels_array(np.tile(systems, len(names))),
            "measure": np.repeat(names, n_systems).tolist(),
            "mean": pa.array(mean.reshape(-1), pa.float64()),
            "std": pa.array(std.reshape(-1), pa.float64()),
        }
    )
    params = {"replicates": replicates, "seed": seed, "aggregate": aggregate, "tolerance": tolerance}
    return MetaResult(summary, detail, params)


def _fused_scores(halving, measures, aggregate, roles, bar):
    """:func:`_half_scores` by one kernel per measure (:mod:`._half_kernels`), without a tensor
    of every half; None where that does not apply (more than two classes, other count axes than
    the system and topic, or a measure that is not a plain binary kernel)."""
    count_plan = halving.plan
    system, topic = roles.identity
    specs = parse_specs(measures)
    if count_plan.m != 2 or count_plan.axes[:1] != (system,) or set(count_plan.axes) - {system, topic}:
        return None
    elements = [binary_element(spec) for spec in specs]
    if count_plan.hidden or any(element is None for element in elements):
        return None
    # the positive class as evaluate reads it (and its refusal of labels without one): where each
    # of tp, fp, fn, tn comes from among the four cells
    basis = positive_counts(np.eye(4).reshape(4, 2, 2), halving.whole.classes, specs, None)
    cells = tuple(int(np.argmax(basis[:, i, j])) for i, j in ((1, 1), (0, 1), (1, 0), (0, 0)))
    kernels = [half_means(s.measure.name, e, aggregate) for s, e in zip(specs, elements)]
    job = _FusedJob(halving, [(k, tuple(map(float, s.params))) for k, s in zip(kernels, specs)], cells)
    groups = halving.kept_groups((system, topic))
    values = np.empty((len(specs), halving.replicates, 2, groups.shape[0]))
    for lo, hi in halving.passes():
        out = job.run(halving.pass_chosen(lo, hi), hi - lo, groups)
        values[:, lo:hi] = out.transpose(0, 3, 2, 1)
        bar.advance(hi - lo)
    return [label_of(spec, None, None) for spec in specs], np.asarray(halving.coords[system]), values


class _FusedJob:
    """One pass of replicates: each thread counts the halves of a few systems' groups (every
    topic of them) and runs every measure's kernel on those counts while they are in cache."""

    # int32 counts a thread's block holds at most (beyond one system)
    BLOCK_ENTRIES = 1 << 19

    def __init__(self, halving, kernels, cells):
        self.halving, self.kernels, self.cells = halving, kernels, cells
        self.local = threading.local()
        self.per_system = int(np.prod(halving.plan.sizes[1:], dtype=np.int64))  # groups a system

    def run(self, chosen, width, groups):
        """``out[measure, system, half, replicate]`` of the ``width`` replicates of ``chosen``."""
        n_systems = groups.shape[0]
        out = np.empty((len(self.kernels), n_systems, 2, width))
        cells = self.halving.plan.m**2
        step = max(1, self.BLOCK_ENTRIES // max(1, self.per_system * cells * width))
        on_threads(
            self._block,
            [(chosen, width, groups[i : i + step], out[:, i : i + step]) for i in range(0, n_systems, step)],
        )
        return out

    def _block(self, chosen, width, groups, out):
        # the block's groups are the whole systems of its rows (the system is the plan's first axis)
        g_lo = int(groups[0, 0]) // self.per_system * self.per_system
        g_hi = (int(groups[-1, 0]) // self.per_system + 1) * self.per_system
        first = self._buffer((g_hi - g_lo) * self.halving.plan.m**2 * width)
        first = first.reshape(g_hi - g_lo, self.halving.plan.m**2, width)
        self.halving.count_first(chosen, g_lo, g_hi, first)
        local_groups = groups - g_lo
        totals = self.halving.group_totals[g_lo:g_hi]
        for i, (kernel, params) in enumerate(self.kernels):
            kernel(first, totals, local_groups, self.cells, params, out[i])

    def _buffer(self, size):
        """This thread's int32 buffer of at least ``size`` (reused: fresh pages are slow to fault in)."""
        buffer = getattr(self.local, "buffer", None)
        if buffer is None or buffer.size < size:
            buffer = self.local.buffer = np.empty(size, np.int32)
        return buffer[:size]


def _half_scores(halving, measures, aggregate, roles, bar):
    """``values[measure, replicate, half, system]``: each half's system scores, a block of
    replicates at a time (the counts of all the halves at once may not fit in memory)."""
    parts = []
    system, topic = roles.identity
    # float counts: the measures compute in float64 anyway, and skip a cast of every block
    for halves in halving.blocks(dtype=np.float64):
        if topic in halves.axes and aggregate == "micro":
            halves = halves.sum(topic)
        scores = halves.evaluate(measures)
        if system not in scores.axes:
            raise ParameterError(f"Stability compares systems: the input needs a '{system}' column.")
        values = scores.values  # [measure, replicate, half, system(, topic)]
        if topic in scores.axes:
            values = _mean_over(values, scores.axes.index(topic) + 1)
        parts.append(values)
        bar.advance(values.shape[1])
    return list(scores.measures), np.asarray(scores.coords[system]), np.concatenate(parts, axis=1)


def _mean_over(values, axis):
    """``np.nanmean(values, axis)`` without its copy of the values (NaN where all are NaN)."""
    moved = np.ascontiguousarray(np.moveaxis(values, axis, -1))
    out = np.empty(moved.shape[:-1])
    in_ranges(nanmean_rows, out.size, moved.reshape(out.size, moved.shape[-1]), out.reshape(-1))
    return out
