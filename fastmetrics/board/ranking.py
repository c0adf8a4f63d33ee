"""Ranking: the leaderboard table -- macro and micro values per system and measure, competition
ranks in each measure's direction, the baselines beaten -- and :func:`leaderboard`, which makes it."""

from __future__ import annotations

import warnings

import numpy as np
import pyarrow as pa

from .._errors import UndefinedMeasureWarning
from ..meta import MetaResult, higher_is_better, labels_array, system_topic_values
from ..meta import significance as paired_tests
from ._common import nanmean
from .intervals import board_intervals, with_intervals
from .values import BoardValues, board_values

_SUMMARY_COLUMNS = (
    "system",
    "kind",
    "measure",
    "macro",
    "micro",
    "topics",
    "undefined_topics",
    "rank",
    "beats_baselines",
)


def _competition_ranks(values: np.ndarray) -> np.ndarray:
    """1 + number of strictly better values (ties share the best rank); NaN has no rank."""
    ranks = np.full(values.shape, np.nan)
    ok = ~np.isnan(values)
    v = values[ok]
    ranks[ok] = 1 + (v[None, :] > v[:, None]).sum(axis=1)
    return ranks


def rank_systems(board: BoardValues) -> pa.Table:
    """The leaderboard table of :func:`leaderboard` from its values.

    Parameters
    ----------
    board : BoardValues

    Returns
    -------
    pyarrow.Table
        One row per (baseline or system, measure); see :func:`leaderboard`.
    """
    roles = dict(system=board.roles.system, topic=board.roles.topic)
    values, systems, _ = system_topic_values(board.scores, oriented=False, **roles)  # [measure, system, topic]
    macro, defined = nanmean(values, 2), (~np.isnan(values)).sum(axis=2)
    rows = {k: [] for k in _SUMMARY_COLUMNS}
    for i, label in enumerate(board.scores.measures):
        sign = 1.0 if higher_is_better(label) else -1.0
        base_macro = {}
        for name, (per_topic, pooled) in (board.baselines or {}).items():
            base_macro[name] = float(nanmean(per_topic[i], 0))
            defined_topics = int((~np.isnan(per_topic[i])).sum())
            _add_row(
                rows,
                name,
                "baseline",
                label,
                base_macro[name],
                float(pooled[i]),
                defined_topics,
                per_topic.shape[1] - defined_topics,
                None,
                None,
            )
        best_baseline = max((sign * v for v in base_macro.values() if not np.isnan(v)), default=-np.inf)
        ranks = _competition_ranks(sign * macro[i])
        for s, system in enumerate(systems.tolist()):
            beats = (
                None if board.baselines is None or np.isnan(macro[i, s]) else bool(sign * macro[i, s] > best_baseline)
            )
            _add_row(
                rows,
                system,
                "system",
                label,
                float(macro[i, s]),
                float(board.micro[i, s]),
                int(defined[i, s]),
                int(values.shape[2] - defined[i, s]),
                None if np.isnan(ranks[s]) else int(ranks[s]),
                beats,
            )
    types = {
        "macro": pa.float64(),
        "micro": pa.float64(),
        "topics": pa.int64(),
        "undefined_topics": pa.int64(),
        "rank": pa.int64(),
        "beats_baselines": pa.bool_(),
    }
    columns = {k: pa.array(v, types[k]) if k in types else v for k, v in rows.items()}
    columns["system"] = labels_array(rows["system"])
    return pa.table({board.roles.system if k == "system" else k: v for k, v in columns.items()})


def _add_row(rows, *values) -> None:
    for key, value in zip(_SUMMARY_COLUMNS, values):
        rows[key].append(value)


def leaderboard(
    tensor,
    measures,
    *,
    baselines: bool = True,
    significance: str | None = None,
    correction: str | None = None,
    resamples: int = 1000,
    seed: int = 0,
    smoothing=None,
    progress: bool = False,
    undefined=None,
    select=None,
    folds=None,
    ci=None,
    system="system",
    topic="topic",
    cost=None,
) -> MetaResult:
    """Recompute a leaderboard under several measures.

    Parameters
    ----------
    tensor : ConfusionTensor
        Counts over ``(system, topic)`` (``topic`` optional), or over the axes named by
        ``system`` and ``topic``.
    measures : sequence of str
        Measure names or specs (``"f1@macro"`` for multiclass averaging).
    baselines : bool, default True
        Add seed 004's non-informative outputs as rows (binary counts only): ``placebo`` (all
        positive), ``zero`` (all negative) and ``random`` (each item positive with probability
        1/2, expected value; see :func:`random_baseline`), scored on each topic's gold.
    significance : {None, "fisher", "bootstrap"}
        Also run paired tests across topics between every pair of systems (the ``detail``).
    correction : {None, "holm"}
        Multiple-comparison correction of the significance tests.
    resamples, seed : int
        Of the significance tests and the intervals.
    smoothing : optional
        As in :func:`fastmetrics.compute`.
    progress : bool, default False
        Progress bar on a terminal for runs longer than about a second.
    undefined : float, optional
        The value of undefined per-topic values (default NaN: left out of the macro mean and
        counted in ``undefined_topics``); e.g. ``0`` for MAP over every topic.
    select : {None, "cross-topic", "split-half"}, optional
        With a threshold sweep: rank by held-out values (see :func:`board_values`).
    folds : int, optional
        Topic folds of ``select="cross-topic"`` (default: leave one topic out).
    ci : float, optional
        A confidence level: adds ``macro_low, macro_high`` (topics resampled, paired across
        systems), ``micro_low, micro_high`` (items resampled), ``rank_low, rank_high`` and
        ``tied_with_leader`` (see :func:`board_intervals`).
    system, topic : str, default "system", "topic"
        The axes playing the system and the topic, e.g. ``system="annotator"`` for counts
        ``fm.count(..., system="annotator")``; the output columns keep their names.
    cost : array_like of shape (m, m), optional
        The cost matrix of ``k_cost`` (seed 000 §5; default unit costs, which make it K), e.g.
        :func:`fastmetrics.measures.ordinal_costs` for an ordinal scale.

    Returns
    -------
    MetaResult
        ``summary``: one row per (system or baseline, measure) -- ``system, kind`` ("system" or
        "baseline"), ``measure, macro`` (mean over topics where defined), ``micro`` (the measure
        of the pooled counts), ``topics`` (defined), ``undefined_topics``, ``rank`` (by macro,
        ties share the best rank; baselines unranked) and ``beats_baselines`` (the system's macro
        value beats every baseline's in the measure's direction -- the boldface of seed 004
        Table 6; null without baselines). ``detail``: the significance tests, if asked.
    """
    roles = dict(system=system, topic=topic)
    board = board_values(
        tensor,
        measures,
        baselines=baselines,
        smoothing=smoothing,
        undefined=undefined,
        select=select,
        folds=folds,
        seed=seed,
        matrix_params=None if cost is None else {"cost": cost},
        **roles,
    )
    detail = None
    if significance is not None:
        options = dict(method=significance, resamples=resamples, seed=seed, correction=correction, progress=progress)
        detail = paired_tests(board.scores, **options, **roles).summary
    summary = rank_systems(board)
    note = None
    if ci is not None:
        bounds = board_intervals(board, ci=ci, resamples=resamples, seed=seed)
        summary, note = with_intervals(summary, board, bounds), bounds.get("note")
        if note is not None:
            warnings.warn(f"Leaderboard intervals on {note}.", UndefinedMeasureWarning, stacklevel=2)
    return MetaResult(
        summary,
        detail,
        {
            "ci": ci,
            "ci_note": note,
            "baselines": board.baselines is not None,
            "significance": significance,
            "correction": correction,
            "resamples": resamples,
            "seed": seed,
        },
    )
