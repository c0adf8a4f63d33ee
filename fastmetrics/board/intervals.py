"""Intervals of a leaderboard: macro means with the topics resampled (paired across systems), micro
values with the items resampled, and rank intervals with the systems the data cannot separate from
the leader."""

from __future__ import annotations

import warnings

import numpy as np
import pyarrow as pa

from .. import _memory
from .._seeding import rng_of
from ..measures import api
from ..measures import intervals as measure_intervals
from ..meta import higher_is_better, system_topic_values
from ._common import nanmean
from .values import BoardValues

OPTIONS = "--ci-resamples, ci_resamples="  # what sets the leaderboard's interval replicates
INTERVAL_COLUMNS = ("macro_low", "macro_high", "micro_low", "micro_high", "rank_low", "rank_high", "tied_with_leader")


def check_interval_memory(board: BoardValues, resamples: int) -> None:
    """Refuse, before any replicate is drawn, intervals whose replicates cannot be held.

    The topic replicates of the macro means and ranks, and the items' of the micro values."""
    roles = dict(system=board.roles.system, topic=board.roles.topic)
    values, _, _ = system_topic_values(board.scores, oriented=False, **roles)
    s, t = values.shape[1:]
    # per replicate: the topic draw, the systems' values on it and nanmean's copies, their ranks
    _memory.check_replicates(
        resamples,
        8 * t + 25 * s * t + 40 * s + s * s,
        f"Leaderboard intervals of {s:,} systems on {t:,} topics",
        OPTIONS,
    )
    if board.pooled is not None:
        m = board.pooled.shape[-1]
        measure_intervals.check_memory(1, int(np.prod(board.pooled.shape[:-2])), m, resamples, OPTIONS)


def board_intervals(board: BoardValues, *, ci=0.95, resamples=2000, seed=0) -> dict:
    """Confidence intervals of a leaderboard's values and ranks.

    Macro means: a bootstrap over topics, paired across systems -- every replicate draws one set of
    topics (with replacement) for all systems, so the systems' means and ranks move together as
    they would on another sample of topics. Micro values: the multinomial bootstrap of each
    system's pooled counts (:mod:`fastmetrics.measures.intervals`). Rank intervals: the
    ``(1 - ci) / 2`` and ``(1 + ci) / 2`` quantiles of each system's rank (by macro, ties sharing the
    best rank) over the topic replicates; ``tied_with_leader``: the system's rank interval reaches
    the leader's (the best-ranked system's) -- the group the data cannot separate from it.

    Parameters
    ----------
    board : BoardValues
    ci : float, default 0.95
    resamples : int, default 2000
    seed : int, default 0

    Returns
    -------
    dict
        Column name → array ``[measure, system]`` for each of :data:`INTERVAL_COLUMNS`; on a
        board of one topic the topic-resampled ones are NaN (a resample of one topic is that
        topic: it says nothing of other topics), and ``"note"`` says why.
    """
    measure_intervals.check(ci, "bootstrap", resamples, "percentile")
    roles = dict(system=board.roles.system, topic=board.roles.topic)
    values, _, _ = system_topic_values(board.scores, oriented=False, **roles)  # [measure, system, topic]
    check_interval_memory(board, resamples)
    rng = rng_of(seed)
    draws = rng.integers(0, values.shape[2], size=(resamples, values.shape[2]))
    q = [(1 - ci) / 2 * 100, (1 + ci) / 2 * 100]
    out = {k: np.full(values.shape[:2], np.nan) for k in INTERVAL_COLUMNS}
    if values.shape[2] < 2:
        out["note"] = ONE_TOPIC_NOTE
    for i, spec in enumerate(board.specs):
        sign = 1.0 if higher_is_better(board.scores.measures[i]) else -1.0
        if values.shape[2] < 2:
            _micro_interval(out, i, spec, board, ci, resamples, seed)
            continue
        replicate = nanmean(values[i][:, draws], 2)  # [system, replicate]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            out["macro_low"][i], out["macro_high"][i] = np.nanpercentile(replicate, q, axis=1)
        oriented = np.where(np.isnan(replicate), -np.inf, sign * replicate)
        ranks = 1 + (oriented[None, :, :] > oriented[:, None, :]).sum(axis=1)  # [system, replicate]
        out["rank_low"][i] = np.percentile(ranks, q[0], axis=1, method="lower")
        out["rank_high"][i] = np.percentile(ranks, q[1], axis=1, method="higher")
        macro = nanmean(values[i], 1)
        if np.isfinite(macro).any():
            leader = int(np.nanargmax(sign * macro))
            out["tied_with_leader"][i] = out["rank_low"][i] <= out["rank_high"][i, leader]
        _micro_interval(out, i, spec, board, ci, resamples, seed)
    return out


ONE_TOPIC_NOTE = (
    "one topic: the macro and rank intervals and tied_with_leader resample topics, and a resample of one "
    "topic is that topic, so they are undefined (null); the micro intervals resample the items"
)


def _micro_interval(out: dict, i: int, spec, board: BoardValues, ci, resamples, seed) -> None:
    """The micro interval of measure ``i``: each system's pooled counts resampled."""
    if board.pooled is None:
        return
    low, high = measure_intervals.interval(
        spec,
        api.checked_counts(board.pooled),
        board.micro[i],
        ci=ci,
        resamples=resamples,
        seed=seed,
        average=spec.averaged(None),
        matrix_args={k: v for k, v in (board.matrix_params or {}).items() if k in spec.measure.matrix_params},
        squares=board.pooled_squares,
    )
    out["micro_low"][i], out["micro_high"][i] = low, high


def with_intervals(table: pa.Table, board: BoardValues, bounds: dict) -> pa.Table:
    """The leaderboard table with the interval columns (null on baseline rows)."""
    n_baselines = len(board.baselines or {})
    for name in INTERVAL_COLUMNS:
        column = []
        for i in range(bounds[name].shape[0]):
            column += [None] * n_baselines + [_plain(name, v) for v in bounds[name][i]]
        kind = pa.bool_() if name == "tied_with_leader" else pa.int64() if name.startswith("rank") else pa.float64()
        table = table.append_column(name, pa.array(column, kind))
    return table


def _plain(name, value):
    if np.isnan(value):
        return None
    return bool(value) if name == "tied_with_leader" else int(value) if name.startswith("rank") else float(value)
