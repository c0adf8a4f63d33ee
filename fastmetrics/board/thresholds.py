"""Thresholds: the best threshold of a sweep per system (and topic), and thresholds chosen without
the data they are scored on (cross-topic folds, split halves), with how much choosing on the test
data flatters."""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from .._errors import ParameterError, parameter_error
from .._seeding import rng_of
from ..measures import registry
from ..meta import MetaResult, higher_is_better, labels_array
from ..tensor import Roles, Scores, group_starts
from ._common import nanmean


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
        mean = nanmean(fit.reshape(fit.shape[0], fit.shape[1], -1, fit.shape[-1]), 2)  # [measure, system, step]
        defined = ~np.isnan(mean).all(axis=-1)
        best = np.argmax(np.where(np.isnan(mean), -np.inf, mean), axis=-1)  # the lowest threshold on ties
        score = v[:, :, test] if test_half is None else v[:, :, test, test_half][:, :, :, None]
        picked = np.take_along_axis(score, best[:, :, None, None, None], axis=-1)[..., 0]
        out[:, :, test, p] = np.where(defined[:, :, None], nanmean(picked, 3), np.nan)
        chosen[:, :, p] = np.where(
            defined, np.take_along_axis(cube.thresholds[None], best[..., None], -1)[..., 0], np.nan
        )
    return nanmean(out, 3) * sign[..., 0, 0], chosen


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
    in_sample, held = nanmean(inside, 2), nanmean(outside, 2)
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
