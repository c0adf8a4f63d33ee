"""Leaderboard stage: system scores aggregated over topics and ranked."""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from ._errors import ParameterError
from .measures import chance, registry
from .measures.evaluate import values_over
from .meta import MetaResult, higher_is_better, labels_array, system_topic_values
from .meta import significance as paired_tests
from .tensor import Scores


def macro_leaderboard(scores: Scores, *, order=("k", "mcc")) -> MetaResult:
    """Macro mean over topics per system, NaN-aware, ranked by the ``order`` measures.

    Parameters
    ----------
    scores : Scores
        Values over the axes ``(system, topic)``.
    order : sequence of str, default ("k", "mcc")
        Measures to sort by, descending, the first deciding (ties broken by the next).

    Returns
    -------
    MetaResult
        ``summary``: ``rank, system, mean_<measure>..., undefined_topics``; undefined cells are
        left out of each mean, and ``undefined_topics`` is the largest number of topics any
        measure left out for that system. ``detail``: None.
    """
    if set(scores.axes) != {"system", "topic"}:
        raise ParameterError(f"A leaderboard needs scores over (system, topic); got axes {scores.axes}.")
    topic_axis = scores.axes.index("topic") + 1
    means = _nanmean(scores.values, topic_axis)
    undefined = np.isnan(scores.values).sum(axis=topic_axis)
    systems = scores.coords["system"]
    keys = [means[scores.measures.index(m)] for m in reversed(order) if m in scores.measures]
    rank = np.lexsort([-k for k in keys]) if keys else np.arange(len(systems))
    cols = {"rank": pa.array(np.arange(1, len(systems) + 1)), "system": pa.array(systems[rank].tolist())}
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
    """

    specs: list
    scores: Scores
    micro: np.ndarray
    baselines: dict | None = None


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
    if spec.averaged(None) is not None:
        return np.nan
    return chance.expected_random(spec, ap, an, "uniform", max_cells=_RANDOM_EXACT_CELLS)


def baseline_counts(tensor) -> tuple[np.ndarray, np.ndarray]:
    """Per topic, the gold sizes (AP, AN) as counted for the most complete run (largest n).

    Parameters
    ----------
    tensor : ConfusionTensor
        Binary counts over ``(system[, topic])``.

    Returns
    -------
    ap, an : ndarray of float64
        Over the tensor's axes without ``system``.
    """
    c = tensor.counts
    n = c.sum(axis=(-1, -2))
    system_axis = tensor.axes.index("system")
    best = np.expand_dims(np.argmax(n, axis=system_axis), system_axis)
    ap = np.take_along_axis(c[..., 1, :].sum(-1), best, axis=system_axis).squeeze(system_axis)
    an = np.take_along_axis(c[..., 0, :].sum(-1), best, axis=system_axis).squeeze(system_axis)
    return ap.astype(np.float64), an.astype(np.float64)


def _check_board_axes(tensor) -> None:
    if "system" in tensor.axes and not set(tensor.axes) - {"system", "topic"}:
        return
    hint = ""
    if "cell" in tensor.axes or "threshold" in tensor.axes:
        hint = (
            " These are counts of a threshold sweep (scores without hard predictions): count a 'pred' "
            "column of hard labels, or one threshold per system chosen with best_thresholds."
        )
    elif "system" not in tensor.axes:
        hint = " Count with by=('system', 'topic') (or name the column playing the system with by=)."
    raise ParameterError(f"A leaderboard needs counts over (system[, topic]); got axes {tensor.axes}.{hint}")


def board_values(tensor, measures, *, baselines: bool = True, smoothing=None) -> BoardValues:
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

    Returns
    -------
    BoardValues
    """
    _check_board_axes(tensor)
    specs = registry.parse_specs(measures)
    has_topic = "topic" in tensor.axes
    per_topic = np.moveaxis(tensor.counts, tensor.axes.index("system"), 0)
    if not has_topic:
        per_topic = per_topic[:, None]
    n_systems, n_topics, m = per_topic.shape[0], per_topic.shape[1], tensor.m
    blocks = [per_topic.reshape(-1, m, m), per_topic.sum(axis=1)]
    binary = baselines and m == 2 and tensor.classes.tolist() == [0, 1]
    if binary:
        ap, an = (x.reshape(-1) for x in baseline_counts(tensor))
        ap, an = np.append(ap, ap.sum()), np.append(an, an.sum())  # every topic, then all pooled
        zeros = np.zeros_like(ap)
        blocks.append(np.stack([np.stack([zeros, an], -1), np.stack([zeros, ap], -1)], -2))  # placebo
        blocks.append(np.stack([np.stack([an, zeros], -1), np.stack([ap, zeros], -1)], -2))  # zero
    values, labels = values_over(np.concatenate(blocks), specs, smoothing=smoothing)
    systems_end = n_systems * n_topics
    scores_values = values[:, :systems_end].reshape(len(specs), n_systems, n_topics)
    axes, coords = (
        ("system", "topic"),
        {"system": tensor.coords["system"], "topic": tensor.coords["topic"] if has_topic else np.array(["-"], object)},
    )
    if not has_topic:
        scores_values, axes, coords = scores_values[..., 0], ("system",), {"system": coords["system"]}
    result = BoardValues(
        specs, Scores(scores_values, labels, axes, coords), values[:, systems_end : systems_end + n_systems]
    )
    if binary:
        rest = values[:, systems_end + n_systems :].reshape(len(specs), 2, n_topics + 1)
        random = np.array([[random_baseline(spec, a, b) for a, b in zip(ap, an)] for spec in specs])
        result.baselines = {name: (v[:, :-1], v[:, -1]) for name, v in zip(BASELINES, (rest[:, 0], rest[:, 1], random))}
    return result


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
    values, systems, _ = system_topic_values(board.scores, oriented=False)  # [measure, system, topic]
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
    return pa.table(columns)


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
) -> MetaResult:
    """Recompute a leaderboard under several measures.

    Parameters
    ----------
    tensor : ConfusionTensor
        Counts over ``(system, topic)`` (``topic`` optional).
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
        Of the significance tests.
    smoothing : optional
        As in :func:`fastmetrics.compute`.
    progress : bool, default False
        Progress bar on a terminal for runs longer than about a second.

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
    board = board_values(tensor, measures, baselines=baselines, smoothing=smoothing)
    detail = None
    if significance is not None:
        detail = paired_tests(
            board.scores, method=significance, resamples=resamples, seed=seed, correction=correction, progress=progress
        ).summary
    return MetaResult(
        rank_systems(board),
        detail,
        {
            "baselines": board.baselines is not None,
            "significance": significance,
            "correction": correction,
            "resamples": resamples,
            "seed": seed,
        },
    )


def best_thresholds(scores) -> MetaResult:
    """The best threshold per (system[, topic], measure) of a threshold sweep.

    Parameters
    ----------
    scores : Scores
        Values over axes that include ``threshold`` (e.g. ``fm.count(..., thresholds=101)``).

    Returns
    -------
    MetaResult
        ``summary``: the other batch columns, then ``measure, threshold, value``: the threshold
        where the measure is best in its own direction (the lowest such threshold on ties; cells
        undefined at every threshold get nulls). ``detail``: None (the whole curve is
        ``scores.to_arrow()``).
    """
    if "threshold" not in scores.axes:
        raise ParameterError(
            f"A sweep needs a 'threshold' axis; these scores have {', '.join(scores.axes)}: "
            "count with thresholds=k or an array of thresholds."
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
    return MetaResult(
        pa.table(
            {
                **{a: columns[a] for a in others},
                "measure": columns["measure"],
                "threshold": pa.array(columns["threshold"], pa.float64()),
                "value": pa.array(columns["value"], pa.float64()),
            }
        )
    )
