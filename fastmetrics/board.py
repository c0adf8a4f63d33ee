"""Leaderboard stage: system scores aggregated over topics and ranked."""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa

from . import _memory
from ._errors import ParameterError, UndefinedMeasureWarning, parameter_error
from ._seeding import rng_of
from .measures import api, chance, intervals, registry
from .measures.evaluation import evaluate, values_over
from .measures.positive import positive_counts
from .meta import MetaResult, higher_is_better, labels_array, system_topic_values
from .meta import significance as paired_tests
from .tensor import Roles, Scores, group_starts


def macro_leaderboard(
    scores: Scores, *, order=("k", "mcc"), system: str = "system", topic: str = "topic"
) -> MetaResult:
    """Macro mean over topics per system, NaN-aware, ranked by the ``order`` measures.

    Parameters
    ----------
    scores : Scores
        Values over the axes ``(system, topic)``.
    order : sequence of str, default ("k", "mcc")
        Measures to sort by, descending, the first deciding (ties broken by the next).
    system, topic : str, default "system", "topic"
        The axes playing the system and the topic; the output's system column keeps its name.

    Returns
    -------
    MetaResult
        ``summary``: ``rank, system, mean_<measure>..., undefined_topics``; undefined cells are
        left out of each mean, and ``undefined_topics`` is the largest number of topics any
        measure left out for that system. ``detail``: None.
    """
    if set(scores.axes) != set(Roles(system, topic).identity):
        raise ParameterError(f"A leaderboard needs scores over ({system}, {topic}); got axes {scores.axes}.")
    topic_axis = scores.axes.index(topic) + 1
    means = _nanmean(scores.values, topic_axis)
    undefined = np.isnan(scores.values).sum(axis=topic_axis)
    systems = scores.coords[system]
    keys = [means[scores.measures.index(m)] for m in reversed(order) if m in scores.measures]
    rank = np.lexsort([-k for k in keys]) if keys else np.arange(len(systems))
    cols = {"rank": pa.array(np.arange(1, len(systems) + 1)), system: pa.array(systems[rank].tolist())}
    for i, m in enumerate(scores.measures):
        cols[f"mean_{m}"] = pa.array(means[i][rank])
    cols["undefined_topics"] = pa.array(undefined.max(axis=0)[rank])
    return MetaResult(pa.table(cols), None, {"order": tuple(order)})


# --- the full leaderboard: macro and micro, ranks, non-informative baselines, significance ---------

BASELINES = ("placebo", "zero", "random")
_RANDOM_EXACT_CELLS = 2_000_000
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


@dataclass
class BoardValues:
    """Everything a leaderboard ranks, each measure evaluated once (:func:`board_values`).

    Parameters
    ----------
    specs : list of MeasureSpec
        The measures, in the order of the rows of ``scores`` and ``micro``.
    scores : Scores
        Per (system, topic) values, ``values[measure, system, topic]``.
    micro : ndarray, shape (measures, systems)
        The measures of each system's counts pooled over topics.
    baselines : dict or None
        Per baseline name, ``(per_topic[measure, topic], pooled[measure])`` -- binary counts only.
    pooled : ndarray or None
        Each system's counts pooled over topics, ``pooled[system, m, m]`` (the micro values' counts).
    matrix_params : dict or None
        Array parameters the measures were evaluated with (``cost`` of ``k_cost``).
    pooled_squares : ndarray or None
        With weighted counts, the sums of squared weights of ``pooled`` (for its intervals).
    roles : Roles
        The axes of ``scores`` playing the system and the topic (the tensor's own names).
    """

    specs: list
    scores: Scores
    micro: np.ndarray
    baselines: dict | None = None
    pooled: np.ndarray | None = None
    matrix_params: dict | None = None
    pooled_squares: np.ndarray | None = None
    roles: Roles = field(default_factory=Roles)


def _pooled_squares(tensor, system: str):
    """Each system's sums of squared weights pooled over the other axes (None without weights)."""
    if tensor.squares is None:
        return None
    return tensor.sum([a for a in tensor.axes if a != system]).squares


def random_baseline(spec, ap: float, an: float) -> float:
    """Expected value of a measure for the random classifier of seed 004 §6.5.

    The random baseline labels each item positive with probability 1/2.

    Parameters
    ----------
    spec : MeasureSpec
        A binary measure (a spec with one-vs-rest averaging has no random baseline: NaN).
    ap, an : float
        The topic's positives and negatives: tp ~ Bin(ap, 1/2) and fp ~ Bin(an, 1/2)
        independently.

    Returns
    -------
    float
        The expectation, exact (summed over the joint distribution, conditioned on the outcomes
        where the measure is defined) while the support has at most 2 million cells; beyond
        that the measure at the expected counts (ap/2, an/2, ap/2, an/2), an O(1/n)
        approximation. See :mod:`fastmetrics.measures.chance`.
    """
    return float(random_baselines(spec, [ap], [an])[0])


def random_baselines(spec, ap, an) -> np.ndarray:
    """Expected values of a measure for the random classifier on many topics at once.

    The measure is evaluated over the outcomes of a batch of topics in one call (one call per
    topic was most of the time of a leaderboard's baselines); each value equals
    :func:`random_baseline` of its topic.

    Parameters
    ----------
    spec : MeasureSpec
        A binary measure (a spec with one-vs-rest averaging has no random baseline: NaN).
    ap, an : sequence of float
        Each topic's positives and negatives.

    Returns
    -------
    ndarray of float64
        One expectation per topic.
    """
    if spec.averaged(None) is not None:
        return np.full(len(ap), np.nan)
    return chance.expected_randoms(spec, ap, an, "uniform", max_cells=_RANDOM_EXACT_CELLS)


def baseline_counts(tensor, *, system: str = "system") -> tuple[np.ndarray, np.ndarray]:
    """Per topic, the gold sizes (AP, AN) as counted for the most complete run (largest n).

    Parameters
    ----------
    tensor : ConfusionTensor
        Binary counts over ``(system[, topic])``.
    system : str, default "system"
        The axis playing the system.

    Returns
    -------
    ap, an : ndarray of float64
        Over the tensor's axes without ``system``.
    """
    c = tensor.counts
    n = c.sum(axis=(-1, -2))
    system_axis = tensor.axes.index(system)
    best = np.expand_dims(np.argmax(n, axis=system_axis), system_axis)
    ap = np.take_along_axis(c[..., 1, :].sum(-1), best, axis=system_axis).squeeze(system_axis)
    an = np.take_along_axis(c[..., 0, :].sum(-1), best, axis=system_axis).squeeze(system_axis)
    return ap.astype(np.float64), an.astype(np.float64)


def _check_board_axes(tensor, roles: Roles) -> None:
    if roles.system in tensor.axes and not set(tensor.axes) - set(roles.identity):
        return
    hint = ""
    if "cell" in tensor.axes or "threshold" in tensor.axes:
        hint = (
            " These are counts of a threshold sweep: rank it with curve or ranking measures (roc_auc, "
            "average_precision, ranked_ap, ...), choose each system's threshold on held-out data (select= / "
            "--select cross-topic), or count a 'pred' column of hard labels."
        )
    elif roles.system not in tensor.axes:
        hint = (
            f" Count with by=({roles.system!r}, {roles.topic!r}), or name the axis playing the system: "
            "leaderboard(tensor, measures, system='annotator')."
        )
    raise ParameterError(
        f"A leaderboard needs counts over ({roles.system}[, {roles.topic}]); got axes {tensor.axes}.{hint}"
    )


def board_values(
    tensor,
    measures,
    *,
    baselines: bool = True,
    smoothing=None,
    undefined=None,
    select=None,
    folds=None,
    seed=0,
    matrix_params=None,
    system: str = "system",
    topic: str = "topic",
) -> BoardValues:
    """The per-topic, pooled and baseline values of a leaderboard in one evaluation per measure.

    The systems' per-topic matrices, their pooled matrices and the placebo and zero outputs'
    matrices are stacked into one count array, so each measure's kernel runs once.

    Parameters
    ----------
    tensor : ConfusionTensor
        Counts over ``(system[, topic])``.
    measures : str or sequence of str
        Names or specs.
    baselines : bool, default True
        Compute the non-informative baselines (binary counts only).
    smoothing : optional
        As in :func:`fastmetrics.compute`.
    undefined : float, optional
        The value of undefined cells (default NaN: left out of the macro means). Curve and ranking
        measures read a threshold sweep and have no pooled (micro) value or baselines.
    select : {None, "cross-topic", "split-half"}, optional
        Rank a threshold sweep by each system's held-out values: every topic scored at the
        threshold chosen without it (see :func:`best_thresholds`); no micro value or baselines.
    folds, seed : optional
        Of ``select``.
    matrix_params : mapping, optional
        Array parameters of multiclass measures, e.g. ``{"cost": C}`` for ``k_cost``.
    system, topic : str, default "system", "topic"
        The axes playing the system and the topic.

    Returns
    -------
    BoardValues
    """
    roles = Roles(system, topic)
    specs = registry.parse_specs(measures)
    matrix_params = dict(matrix_params or {})
    if select is not None:
        scores = evaluate(tensor, specs, smoothing=smoothing, undefined=undefined, **matrix_params)
        scores = held_out_scores(scores, select, folds, seed, system=system, topic=topic)
        return BoardValues(specs, scores, np.full((len(specs), len(scores.coords[system])), np.nan), roles=roles)
    if any(spec.measure.kind != "point" for spec in specs):
        return _curve_board(tensor, specs, undefined, roles)
    _check_board_axes(tensor, roles)
    has_topic = topic in tensor.axes
    counts = positive_counts(tensor.counts, tensor.classes, specs, None)  # the class binary measures read
    per_topic = np.moveaxis(counts, tensor.axes.index(system), 0)
    if not has_topic:
        per_topic = per_topic[:, None]
    n_systems, n_topics, m = per_topic.shape[0], per_topic.shape[1], counts.shape[-1]
    blocks = [per_topic.reshape(-1, m, m), per_topic.sum(axis=1)]
    binary = baselines and m == 2 and tensor.classes.tolist() == [0, 1]
    if binary:
        ap, an = (x.reshape(-1) for x in baseline_counts(tensor, system=system))
        ap, an = np.append(ap, ap.sum()), np.append(an, an.sum())  # every topic, then all pooled
        zeros = np.zeros_like(ap)
        blocks.append(np.stack([np.stack([zeros, an], -1), np.stack([zeros, ap], -1)], -2))  # placebo
        blocks.append(np.stack([np.stack([an, zeros], -1), np.stack([ap, zeros], -1)], -2))  # zero
    values, labels = values_over(
        np.concatenate(blocks), specs, smoothing=smoothing, undefined=undefined, matrix_params=matrix_params
    )
    systems_end = n_systems * n_topics
    scores_values = values[:, :systems_end].reshape(len(specs), n_systems, n_topics)
    axes, coords = (
        roles.identity,
        {system: tensor.coords[system], topic: tensor.coords[topic] if has_topic else np.array(["-"], object)},
    )
    if not has_topic:
        scores_values, axes, coords = scores_values[..., 0], (system,), {system: coords[system]}
    result = BoardValues(
        specs,
        Scores(scores_values, labels, axes, coords),
        values[:, systems_end : systems_end + n_systems],
        pooled=blocks[1],
        matrix_params=matrix_params,
        pooled_squares=_pooled_squares(tensor, system),
        roles=roles,
    )
    if binary:
        rest = values[:, systems_end + n_systems :].reshape(len(specs), 2, n_topics + 1)
        random = np.array([random_baselines(spec, ap, an) for spec in specs])
        result.baselines = {name: (v[:, :-1], v[:, -1]) for name, v in zip(BASELINES, (rest[:, 0], rest[:, 1], random))}
    return result


def _curve_board(tensor, specs, undefined, roles: Roles) -> BoardValues:
    """A leaderboard of curve or ranking measures: their per-group values, no micro value (a
    pooled curve would rank the items of every topic together) and no baselines."""
    scores = evaluate(tensor, specs, undefined=undefined)
    if roles.system not in scores.axes or set(scores.axes) - set(roles.identity):
        raise ParameterError(
            f"A leaderboard needs values over ({roles.system}[, {roles.topic}]); these have {scores.axes}."
        )
    n_systems = len(scores.coords[roles.system])
    return BoardValues(specs, scores, np.full((len(specs), n_systems), np.nan), roles=roles)


def _competition_ranks(values: np.ndarray) -> np.ndarray:
    """1 + number of strictly better values (ties share the best rank); NaN has no rank."""
    ranks = np.full(values.shape, np.nan)
    ok = ~np.isnan(values)
    v = values[ok]
    ranks[ok] = 1 + (v[None, :] > v[:, None]).sum(axis=1)
    return ranks


def _nanmean(values: np.ndarray, axis: int) -> np.ndarray:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a measure undefined on every topic: NaN mean
        return np.nanmean(values, axis=axis)


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
    macro, defined = _nanmean(values, 2), (~np.isnan(values)).sum(axis=2)
    rows = {k: [] for k in _SUMMARY_COLUMNS}
    for i, label in enumerate(board.scores.measures):
        sign = 1.0 if higher_is_better(label) else -1.0
        base_macro = {}
        for name, (per_topic, pooled) in (board.baselines or {}).items():
            base_macro[name] = float(_nanmean(per_topic[i], 0))
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


def one_sided(spec) -> bool:
    """Whether a measure's best threshold is trivially at an end of the range.

    A proportion whose successes lie in one row or one column of the confusion matrix reads one
    side of the decisions only: a rate of a gold class (recall, specificity, fallout, fnr,
    prevalence) or of all items predicted one way (predicted_positive_rate) is monotone in the
    threshold, and a rate of a predicted class (precision, npv, fdr, elusion) is best where
    hardly any item is predicted on its side. Decided by the measure's record (``proportion``);
    measures that weigh both kinds of error (accuracy, F1, MCC, K, ...) are not one-sided.

    Parameters
    ----------
    spec : str or MeasureSpec

    Returns
    -------
    bool
    """
    proportion = registry.parse_specs([spec])[0].measure.proportion
    if proportion is None:
        return False
    cells = [registry.MATRIX_CELLS[c] for c in proportion[0]]
    return len({i for i, _ in cells}) == 1 or len({j for _, j in cells}) == 1


def best_thresholds(
    scores, *, select: str = "same", folds=None, seed: int = 0, system="system", topic="topic"
) -> MetaResult:
    """The best threshold per (system[, topic], measure) of a threshold sweep.

    Parameters
    ----------
    scores : Scores
        Values of a sweep: over axes that include ``threshold`` (``fm.count(..., thresholds=101)``),
        or over the ``cell`` axis of an exact sweep or of per-system grids (``thresholds="exact"``,
        ``grid="system"``), each group's cells holding its own thresholds.
    select : {"same", "cross-topic", "split-half"}, default "same"
        ``same``: the best threshold of each group, chosen and scored on the same data -- an
        optimistic value. ``cross-topic``: each system's threshold for a topic is chosen on the
        mean over its other topics (leave one out, or ``folds`` folds) and scored on that topic;
        ``split-half``: chosen on one half of each topic's items and scored on the other (the
        scores need a ``half`` axis: count with a two-valued column in ``by``, as
        ``fastmetrics sweep --select split-half`` does).
    folds : int, optional
        Topic folds of ``cross-topic`` (default: leave one topic out).
    seed : int, default 0
        Of the fold assignment.
    system, topic : str, default "system", "topic"
        The axes playing the system and the topic (held-out selection); outputs keep their names.

    Returns
    -------
    MetaResult
        ``summary``: the other batch columns, then ``measure, threshold, value``: the threshold
        where the measure is best in its own direction (the lowest such threshold on ties; cells
        undefined at every threshold get nulls). ``detail``: None (the whole curve is
        ``scores.to_arrow()``). With ``select`` other than ``same``: one row per (system,
        measure) -- ``threshold`` chosen on all the data, ``in_sample`` (the mean over topics
        there), ``held_out`` (the mean over topics of the values at thresholds chosen without
        them), ``optimism`` (in-sample minus held-out, in the measure's direction: how much
        choosing on the test data flatters), ``threshold_mean, threshold_std, threshold_min,
        threshold_max`` (of the thresholds chosen in the folds) and ``folds``; ``detail`` the
        held-out value per (system, topic, measure).
    """
    _folds_apply(select, folds)
    if select != "same":
        return _held_out_result(scores, select, folds, seed, Roles(system, topic))
    if scores.axes == ("cell",) and scores.coord_axes.get("threshold") == "cell":
        return MetaResult(_best_in_cells(scores))
    return MetaResult(_best_on_grid(scores))


def _best_on_grid(scores) -> pa.Table:
    if "threshold" not in scores.axes:
        raise ParameterError(
            f"A sweep needs a 'threshold' axis; these scores have {', '.join(scores.axes)}: "
            "count with thresholds=k, an array of thresholds or 'exact'."
        )
    axis = scores.axes.index("threshold")
    grid = np.asarray(scores.coords["threshold"], np.float64)
    others = [a for a in scores.axes if a != "threshold"]
    columns: dict[str, list] = {a: [] for a in others}
    columns.update(measure=[], threshold=[], value=[])
    shape = tuple(scores.values.shape[1 + scores.axes.index(a)] for a in others)
    for i, label in enumerate(scores.measures):
        v = np.moveaxis(scores.values[i], axis, -1).reshape(-1, grid.size)
        oriented = v if higher_is_better(label) else -v
        defined = ~np.isnan(oriented).all(axis=1)
        best = np.argmax(np.where(np.isnan(oriented), -np.inf, oriented), axis=1)
        for flat in range(v.shape[0]):
            idx = np.unravel_index(flat, shape) if shape else ()
            for a, j in zip(others, idx):
                columns[a].append(np.asarray(scores.coords[a]).tolist()[j])
            columns["measure"].append(label)
            columns["threshold"].append(float(grid[best[flat]]) if defined[flat] else None)
            columns["value"].append(float(v[flat, best[flat]]) if defined[flat] else None)
    return pa.table(
        {
            **{a: columns[a] for a in others},
            "measure": columns["measure"],
            "threshold": pa.array(columns["threshold"], pa.float64()),
            "value": pa.array(columns["value"], pa.float64()),
        }
    )


def _best_in_cells(scores) -> pa.Table:
    """:func:`best_thresholds` of a sweep whose groups hold their own thresholds (cells)."""
    starts, axes = group_starts(scores)
    first = starts[:-1]
    threshold = np.asarray(scores.coords["threshold"], np.float64)
    group = np.repeat(np.arange(first.size), np.diff(starts))
    columns = {
        **{a: np.asarray(scores.coords[a])[first].tolist() * len(scores.measures) for a in axes},
        "measure": [],
        "threshold": [],
        "value": [],
    }
    for i, label in enumerate(scores.measures):
        v = scores.values[i]
        oriented = np.where(np.isnan(v), -np.inf, v if higher_is_better(label) else -v)
        # per group: the best value, and among the cells reaching it the lowest threshold
        best = np.full(first.size, -np.inf)
        np.maximum.at(best, group, oriented)
        hit = (oriented == best[group]) & np.isfinite(best[group])
        lowest = np.full(first.size, np.inf)
        np.minimum.at(lowest, group[hit], threshold[hit])
        pick = np.full(first.size, -1)
        cells = np.flatnonzero(hit & (threshold == lowest[group]))
        pick[group[cells]] = cells
        defined = pick >= 0
        columns["measure"] += [label] * first.size
        columns["threshold"] += np.where(defined, threshold[pick], np.nan).tolist()
        columns["value"] += np.where(defined, v[pick], np.nan).tolist()
    table = pa.table(
        {
            k: (pa.array(v, pa.float64(), from_pandas=True) if k in ("threshold", "value") else v)
            for k, v in columns.items()
        }
    )
    return table


# --- thresholds chosen without leakage ------------------------------------------------------------

SELECTIONS = ("same", "cross-topic", "split-half")


@dataclass
class SweepCube:
    """A sweep's values laid out for threshold selection (:func:`sweep_cube`).

    Parameters
    ----------
    values : ndarray, shape (measures, systems, topics, halves, steps)
        ``halves`` is 1 without a ``half`` axis; steps follow increasing thresholds.
    thresholds : ndarray, shape (systems, steps)
        Each system's thresholds (shared by its topics).
    systems, topics : ndarray
        The labels.
    measures : tuple of str
    """

    values: np.ndarray
    thresholds: np.ndarray
    systems: np.ndarray
    topics: np.ndarray
    measures: tuple


def sweep_cube(scores, *, system: str = "system", topic: str = "topic") -> SweepCube:
    """The values of a sweep whose systems share their thresholds across topics.

    Parameters
    ----------
    scores : Scores
        Over ``(system, topic[, half], threshold)`` (a grid), or the ``cell`` axis of per-system
        grids (``grid="system"`` or ``"quantile"``).
    system, topic : str, default "system", "topic"
        The axes (or per-cell coordinates) playing the system and the topic.

    Returns
    -------
    SweepCube
    """
    roles = Roles(system, topic)
    if scores.axes == ("cell",):
        return _cube_from_cells(scores, roles)
    need = {system, topic, "threshold"}
    if not need <= set(scores.axes) or set(scores.axes) - need - {"half"}:
        raise ParameterError(
            f"Choosing thresholds on held-out data needs a sweep over ({system}, {topic}[, half], "
            f"threshold); these scores have the axes {', '.join(scores.axes)}."
        )
    order = [a for a in (system, topic, "half", "threshold") if a in scores.axes]
    values = np.transpose(scores.values, [0] + [1 + scores.axes.index(a) for a in order])
    if "half" not in scores.axes:
        values = values[:, :, :, None]
    thresholds = np.broadcast_to(
        np.asarray(scores.coords["threshold"], np.float64), (values.shape[1], values.shape[-1])
    )
    return SweepCube(
        values, thresholds, np.asarray(scores.coords[system]), np.asarray(scores.coords[topic]), scores.measures
    )


def _cube_from_cells(scores, roles: Roles) -> SweepCube:
    starts, axes = group_starts(scores)
    system, topic = roles.identity
    if not {system, topic} <= set(axes) or set(axes) - {system, topic, "half"}:
        raise ParameterError(
            f"Choosing thresholds on held-out data needs groups of ({system}, {topic}[, half]); these "
            f"have {', '.join(axes)}."
        )
    first = starts[:-1]
    label = {a: np.asarray(scores.coords[a]) for a in axes}
    systems, topics = (np.unique(label[a][first]) for a in roles.identity)
    halves = np.unique(label["half"][first]) if "half" in axes else np.zeros(1)
    threshold = np.asarray(scores.coords["threshold"], np.float64)
    grids: dict = {}
    for lo, hi in zip(first, starts[1:]):
        mine = threshold[lo:hi][::-1]
        known = grids.setdefault(label[system][lo], mine)
        if known.shape != mine.shape or not np.array_equal(known, mine):
            raise ParameterError(
                "Choosing thresholds on held-out data needs each system's thresholds shared by its topics: count "
                "with thresholds=k (grid='global', 'system' or 'quantile'), not 'exact'."
            )
    steps = max(len(v) for v in grids.values())
    values = np.full((len(scores.measures), systems.size, topics.size, halves.size, steps), np.nan)
    for lo, hi in zip(first, starts[1:]):
        s = np.searchsorted(systems, label[system][lo])
        t = np.searchsorted(topics, label[topic][lo])
        h = np.searchsorted(halves, label["half"][lo]) if "half" in axes else 0
        values[:, s, t, h, : hi - lo] = scores.values[:, lo:hi][:, ::-1]
    thresholds = np.array([np.pad(grids[s], (0, steps - grids[s].size), constant_values=np.nan) for s in systems])
    return SweepCube(values, thresholds, systems, topics, scores.measures)


def _folds_apply(select, folds) -> None:
    """Refuse ``folds`` where it would be ignored: only cross-topic selection has folds."""
    if folds is not None and select != "cross-topic":
        raise ParameterError(
            f"folds= sets the topic folds of select='cross-topic'; with select={select!r} it does nothing."
        )


def held_out(cube: SweepCube, select: str, folds=None, seed: int = 0):
    """Per-topic values at thresholds chosen without the topic (or the half) they are scored on.

    Parameters
    ----------
    cube : SweepCube
    select : {"cross-topic", "split-half", "same"}
        ``cross-topic``: each topic scored at the threshold that is best on the mean of the other
        topics (leave one out, or ``folds`` random folds of topics); ``split-half``: each half of
        the items scored at the threshold best on the other half (a ``half`` axis of two labels);
        ``same``: at the threshold best on the same data (in-sample).
    folds : int, optional
        Topic folds for ``cross-topic`` (default: one per topic).
    seed : int, default 0
        Of the fold assignment.

    Returns
    -------
    values : ndarray, shape (measures, systems, topics)
        The held-out (or in-sample) values.
    chosen : ndarray, shape (measures, systems, folds)
        The thresholds chosen in each fold.
    """
    _folds_apply(select, folds)
    sign = np.array([1.0 if higher_is_better(m) else -1.0 for m in cube.measures])[:, None, None, None, None]
    v = cube.values * sign
    n_topics, n_halves = v.shape[2], v.shape[3]
    if select == "split-half":
        if n_halves != 2:
            raise ParameterError(f"select='split-half' needs a 'half' axis with two labels; got {n_halves}.")
        plans = [(np.arange(n_topics), h, np.arange(n_topics), 1 - h) for h in (0, 1)]
    elif select == "cross-topic":
        if n_topics < 2:
            raise ParameterError(
                "select='cross-topic' chooses each topic's threshold on the others: it needs at least two topics."
            )
        whole = folds is None or (not isinstance(folds, bool) and float(folds).is_integer())
        k = n_topics if folds is None else int(folds) if whole else 0
        if not 2 <= k <= n_topics:
            raise ParameterError(f"folds must be an integer from 2 to the number of topics ({n_topics}); got {folds}.")
        fold_of = rng_of(seed).permutation(n_topics) % k if folds is not None else np.arange(n_topics)
        plans = [(np.flatnonzero(fold_of != f), None, np.flatnonzero(fold_of == f), None) for f in range(k)]
    elif select == "same":
        plans = [(np.arange(n_topics), None, np.arange(n_topics), None)]
    else:
        raise parameter_error("select", "best_thresholds", "'same', 'cross-topic' or 'split-half'", select)
    out = np.full(v.shape[:3] + (len(plans),), np.nan)
    chosen = np.full(v.shape[:2] + (len(plans),), np.nan)
    for p, (train, train_half, test, test_half) in enumerate(plans):
        fit = v[:, :, train] if train_half is None else v[:, :, train, train_half][:, :, :, None]
        mean = _nanmean(fit.reshape(fit.shape[0], fit.shape[1], -1, fit.shape[-1]), 2)  # [measure, system, step]
        defined = ~np.isnan(mean).all(axis=-1)
        best = np.argmax(np.where(np.isnan(mean), -np.inf, mean), axis=-1)  # the lowest threshold on ties
        score = v[:, :, test] if test_half is None else v[:, :, test, test_half][:, :, :, None]
        picked = np.take_along_axis(score, best[:, :, None, None, None], axis=-1)[..., 0]
        out[:, :, test, p] = np.where(defined[:, :, None], _nanmean(picked, 3), np.nan)
        chosen[:, :, p] = np.where(
            defined, np.take_along_axis(cube.thresholds[None], best[..., None], -1)[..., 0], np.nan
        )
    return _nanmean(out, 3) * sign[..., 0, 0], chosen


def held_out_scores(
    scores, select: str, folds=None, seed: int = 0, *, system: str = "system", topic: str = "topic"
) -> Scores:
    """Per-topic values at thresholds chosen without the data they are scored on.

    What a leaderboard ranks to avoid choosing the threshold on the test data (see
    :func:`best_thresholds`).

    Parameters
    ----------
    scores : Scores
        A sweep (see :func:`sweep_cube`).
    select : {"cross-topic", "split-half", "same"}
    folds : int, optional
    seed : int, default 0
    system, topic : str, default "system", "topic"
        The axes playing the system and the topic.

    Returns
    -------
    Scores
        Over ``(system, topic)``, those axes keeping their names.
    """
    cube = sweep_cube(scores, system=system, topic=topic)
    values, _ = held_out(cube, select, folds, seed)
    return Scores(values, cube.measures, (system, topic), {system: cube.systems, topic: cube.topics})


def _held_out_result(scores, select, folds, seed, roles: Roles) -> MetaResult:
    system, topic = roles.identity
    cube = sweep_cube(scores, system=system, topic=topic)
    outside, chosen = held_out(cube, select, folds, seed)
    inside, at = held_out(cube, "same")
    sign = np.array([1.0 if higher_is_better(m) else -1.0 for m in cube.measures])[:, None]
    in_sample, held = _nanmean(inside, 2), _nanmean(outside, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        spread = {
            k: f(chosen, axis=2)
            for k, f in (
                ("threshold_mean", np.nanmean),
                ("threshold_std", np.nanstd),
                ("threshold_min", np.nanmin),
                ("threshold_max", np.nanmax),
            )
        }
    n_m, n_s = in_sample.shape
    summary = {
        system: labels_array(np.tile(cube.systems, n_m)),
        "measure": np.repeat(np.asarray(cube.measures), n_s).tolist(),
        "threshold": at[:, :, 0].reshape(-1),
        "in_sample": in_sample.reshape(-1),
        "held_out": held.reshape(-1),
        "optimism": (sign * (in_sample - held)).reshape(-1),
        **{k: v.reshape(-1) for k, v in spread.items()},
        "folds": np.full(n_m * n_s, chosen.shape[2]),
    }
    table = pa.table({k: pa.array(v, from_pandas=True) if isinstance(v, np.ndarray) else v for k, v in summary.items()})
    detail = Scores(outside, cube.measures, (system, topic), {system: cube.systems, topic: cube.topics})
    return MetaResult(table, detail.to_arrow(), {"select": select, "folds": folds, "seed": seed})


# --- intervals: macro (topics resampled, paired across systems), micro (items), ranks ------------

INTERVAL_COLUMNS = ("macro_low", "macro_high", "micro_low", "micro_high", "rank_low", "rank_high", "tied_with_leader")


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
    intervals.check(ci, "bootstrap", resamples, "percentile")
    roles = dict(system=board.roles.system, topic=board.roles.topic)
    values, _, _ = system_topic_values(board.scores, oriented=False, **roles)  # [measure, system, topic]
    s, t = values.shape[1:]
    # per replicate: the topic draw, the systems' values on it and nanmean's copies, their ranks
    _memory.check_replicates(
        resamples, 8 * t + 25 * s * t + 40 * s + s * s, f"Leaderboard intervals of {s:,} systems on {t:,} topics"
    )
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
        replicate = _nanmean(values[i][:, draws], 2)  # [system, replicate]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            out["macro_low"][i], out["macro_high"][i] = np.nanpercentile(replicate, q, axis=1)
        oriented = np.where(np.isnan(replicate), -np.inf, sign * replicate)
        ranks = 1 + (oriented[None, :, :] > oriented[:, None, :]).sum(axis=1)  # [system, replicate]
        out["rank_low"][i] = np.percentile(ranks, q[0], axis=1, method="lower")
        out["rank_high"][i] = np.percentile(ranks, q[1], axis=1, method="higher")
        macro = _nanmean(values[i], 1)
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
    low, high = intervals.interval(
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
