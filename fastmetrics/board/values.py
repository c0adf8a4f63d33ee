"""What a leaderboard ranks: per-topic, pooled and baseline values, each measure evaluated once."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .._errors import ParameterError
from ..measures import api, mixed, registry
from ..measures.evaluation import evaluate, values_over
from ..measures.positive import positive_counts
from ..tensor import MixedCounts, Roles, Scores
from .baselines import BASELINES, baseline_counts, pooled_squares, random_baselines
from .thresholds import held_out_scores


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
    tensor : ConfusionTensor or MixedCounts
        Counts over ``(system[, topic])``; a :class:`~fastmetrics.tensor.MixedCounts` (hard counts
        and ranked lists of the same runs) ranks point and ranking measures in one board.
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
    if select is not None and not isinstance(tensor, MixedCounts):
        scores = evaluate(tensor, specs, smoothing=smoothing, undefined=undefined, **matrix_params)
        scores = held_out_scores(scores, select, folds, seed, system=system, topic=topic)
        return BoardValues(specs, scores, np.full((len(specs), len(scores.coords[system])), np.nan), roles=roles)
    if isinstance(tensor, MixedCounts):
        if select is not None:
            raise ParameterError(
                "select= (--select) chooses each system's threshold on a grid; these counts are hard predictions and "
                "ranked lists together: count a grid, or drop select."
            )
        options = dict(baselines=baselines, smoothing=smoothing, undefined=undefined, matrix_params=matrix_params)
        return _mixed_board(tensor, specs, roles, **options)
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
        pooled_squares=pooled_squares(tensor, system),
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
    micro = np.full((len(specs), n_systems), np.nan)
    for i, spec in enumerate(specs):
        if spec.measure.pooled is not None:  # defined over all topics at once (AvgRec)
            micro[i] = api.apply_undefined(
                spec.measure.pooled(tensor, spec, roles.system, evaluate), undefined, spec.base_label, False
            )
    return BoardValues(specs, scores, micro, roles=roles)


def _mixed_board(tensor, specs, roles: Roles, **options) -> BoardValues:
    """A leaderboard of point measures on the hard counts and the others on the sweep of the same
    runs (:class:`~fastmetrics.tensor.MixedCounts`), rows in the order asked: the baselines of
    the point measures, NaN for the others (a baseline has no ranking)."""
    parts = mixed.split(tensor, specs)
    boards = {
        part: board_values(
            getattr(tensor, part), [s for _, s in entries], system=roles.system, topic=roles.topic, **options
        )
        for part, entries in parts.items()
    }
    scores = mixed.merged([(boards[p].scores, [i for i, _ in parts[p]]) for p in parts])
    systems = scores.coords[roles.system].tolist()
    micro = np.full((len(specs), len(systems)), np.nan)
    for part, entries in parts.items():
        board = boards[part]
        where = [systems.index(s) for s in board.scores.coords[roles.system].tolist()]
        for row, (position, _) in enumerate(entries):
            micro[position, where] = board.micro[row]
    result = BoardValues(specs, scores, micro, roles=roles)
    hard = boards.get(mixed.HARD)
    if hard is not None and hard.baselines is not None:
        result.baselines = _mixed_baselines(hard, [i for i, _ in parts[mixed.HARD]], scores, roles, len(specs))
    return result


def _mixed_baselines(hard: BoardValues, rows, scores, roles: Roles, n: int) -> dict:
    """The point measures' baselines at their rows of a mixed board, over its topics."""
    if roles.topic in scores.axes:
        topics = scores.coords[roles.topic].tolist()
        where = [topics.index(t) for t in hard.scores.coords[roles.topic].tolist()]
    else:
        topics, where = [None], [0]
    out = {}
    for name, (per_topic, pooled) in hard.baselines.items():
        spread, total = np.full((n, len(topics)), np.nan), np.full(n, np.nan)
        spread[np.ix_(rows, where)] = per_topic
        total[rows] = pooled
        out[name] = (spread, total)
    return out
