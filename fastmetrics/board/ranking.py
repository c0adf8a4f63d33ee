"""Ranking: the leaderboard table -- macro and micro values per system and measure, competition
ranks in each measure's direction, the baselines beaten -- and :func:`leaderboard`, which makes it."""

from __future__ import annotations

import warnings

import numpy as np
import pyarrow as pa

from .._errors import ParameterError, UndefinedMeasureWarning
from ..meta import MetaResult, higher_is_better, labels_array, system_topic_values
from ..meta import significance as paired_tests
from ..meta.corrections import check_correction
from ..meta.paired import RESAMPLED, TESTS, check_alpha, check_resamples, resamples_for
from ..meta.paired import check_memory as check_test_memory
from . import bayes
from ._common import nanmean
from .compare import bayesian_tests, with_tiers
from .intervals import board_intervals, check_interval_memory, with_intervals
from .values import BoardValues, board_values

SIGNIFICANCE = (*TESTS, "bayes")
CI_RESAMPLES = 1000  # the leaderboard intervals' replicates unless asked

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
    alpha: float = 0.05,
    resamples: int | None = None,
    test_resamples: int | None = None,
    ci_resamples: int | None = None,
    rope: float = 0.01,
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
    tensor : ConfusionTensor or MixedCounts
        Counts over ``(system, topic)`` (``topic`` optional), or over the axes named by
        ``system`` and ``topic``; a :class:`~fastmetrics.tensor.MixedCounts` (hard counts and
        ranked lists of the same runs) ranks point and ranking measures in one board.
    measures : sequence of str
        Measure names or specs (``"f1@macro"`` for multiclass averaging).
    baselines : bool, default True
        Add Amigó et al.'s (2019) non-informative outputs as rows (binary counts only): ``placebo`` (all
        positive), ``zero`` (all negative) and ``random`` (each item positive with probability
        1/2, expected value; see :func:`random_baseline`), scored on each topic's gold.
    significance : {None, "t", "wilcoxon", "sign", "fisher", "bootstrap", "bayes"}
        Also test every pair of systems across topics (the ``detail``): a paired test of
        :mod:`fastmetrics.meta.paired` (``"t"`` is the default test of ``fastmetrics leaderboard
        --significance``), or the Bayesian signed-rank test with a ROPE
        (:mod:`fastmetrics.board.bayes`). The summary then has each system's ``tier`` and
        ``groups`` (:func:`~fastmetrics.board.compare.with_tiers`).
    correction : {None, "holm", "bonferroni", "bh"}
        Multiple-comparison correction of each measure's family of pairs.
    alpha : float, default 0.05
        The level of the tiers, and the one resampling tests size their resamples for.
    resamples : int, optional
        The old single count: the tests' and the intervals' resamples, where ``test_resamples``
        or ``ci_resamples`` do not say otherwise.
    test_resamples : int, optional
        Of the resampling tests (``fisher``, ``bootstrap``); default: as many as the correction
        needs to reach a tenth of ``alpha`` (:func:`~fastmetrics.meta.paired.resamples_for`).
    ci_resamples : int, optional
        Of the intervals (default 1000).
    rope : float, default 0.01
        The Bayesian test's region of practical equivalence, in the measures' units.
    seed : int, default 0
        Of every random choice.
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
        The cost matrix of ``k_cost`` (Sebastiani 2015, §5; default unit costs, which make it K), e.g.
        :func:`fastmetrics.measures.ordinal_costs` for an ordinal scale.

    Returns
    -------
    MetaResult
        ``summary``: one row per (system or baseline, measure) -- ``system, kind`` ("system" or
        "baseline"), ``measure, macro`` (mean over topics where defined), ``micro`` (the measure
        of the pooled counts), ``topics`` (defined), ``undefined_topics``, ``rank`` (by macro,
        ties share the best rank; baselines unranked) and ``beats_baselines`` (the system's macro
        value beats every baseline's in the measure's direction -- the boldface of Amigó et al. (2019)
        Table 6; null without baselines); with ``significance``, ``tier`` and ``groups``.
        ``detail``: the significance tests, if asked. ``params["notes"]``: what the tests could
        not reach (see :func:`fastmetrics.meta.significance`).

    Warns
    -----
    SignificanceWarning
        A measure's family of tests cannot reach ``alpha``.
    """
    _check_options(significance, correction, alpha, resamples, test_resamples, ci_resamples, rope)
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
    tests_drawn = test_resamples if test_resamples is not None else resamples
    ci_drawn = ci_resamples if ci_resamples is not None else resamples if resamples is not None else CI_RESAMPLES
    tests_sized = tests_drawn or resamples_for(1 if correction is None else _pairs(board), alpha)
    _check_memory(board, significance, tests_sized, ci, ci_drawn)  # before any test or interval runs
    detail, notes = None, []
    if significance == "bayes":
        detail = bayesian_tests(board.scores, rope=rope, seed=seed, progress=progress, **roles).summary
    elif significance is not None:
        options = dict(method=significance, resamples=tests_drawn, alpha=alpha, seed=seed, correction=correction)
        tests = paired_tests(board.scores, **options, progress=progress, **roles)
        detail, notes, tests_drawn = tests.summary, tests.params["notes"], tests.params["resamples"]
    summary = rank_systems(board)
    if detail is not None:
        summary = with_tiers(summary, detail, alpha, system=board.roles.system, topic=board.roles.topic)
    note = None
    if ci is not None:
        bounds = board_intervals(board, ci=ci, resamples=ci_drawn, seed=seed)
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
            "alpha": alpha,
            "test_resamples": tests_drawn if significance in RESAMPLED else None,
            "ci_resamples": ci_drawn if ci is not None else None,
            "rope": rope if significance == "bayes" else None,
            "notes": notes,
            "seed": seed,
        },
    )


def _check_options(significance, correction, alpha, resamples, test_resamples, ci_resamples, rope) -> None:
    """Refuse an option out of its domain before anything is evaluated."""
    if significance is not None and significance not in SIGNIFICANCE:
        raise ParameterError(f"significance must be None or one of {', '.join(SIGNIFICANCE)}; got {significance!r}.")
    check_correction(correction, "leaderboard")
    check_alpha(alpha, "leaderboard")
    for value in (resamples, test_resamples, ci_resamples):
        check_resamples(value, "leaderboard")
    bayes.check_options(rope, 1, 0.5, "leaderboard")


def _pairs(board: BoardValues) -> int:
    """The pairs of systems a leaderboard's tests compare (a correction's family)."""
    n_systems = len(board.scores.coords[board.roles.system])
    return n_systems * (n_systems - 1) // 2


def _check_memory(board: BoardValues, significance, test_resamples, ci, ci_resamples) -> None:
    """The memory of the tests and the intervals, checked before either runs."""
    values = board.scores.values
    n_systems = len(board.scores.coords[board.roles.system])
    n_topics = values.size // max(1, len(board.scores.measures) * n_systems)
    pairs = _pairs(board)
    if significance == "bayes":
        bayes.check_memory(pairs, n_topics, f"Bayesian tests of {pairs:,} pairs on {n_topics:,} topics")
    elif significance is not None:
        what = f"Paired tests of {pairs:,} pairs on {n_topics:,} topics"
        check_test_memory(pairs, n_topics, significance, what, test_resamples)
    if ci is not None:
        check_interval_memory(board, ci_resamples)
