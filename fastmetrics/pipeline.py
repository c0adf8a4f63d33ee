"""The pipeline: count → evaluate → leaderboard and meta-evaluation, each run once.

:func:`report_data` computes everything a report shows and returns it as :class:`ReportData`;
:mod:`fastmetrics.report` only renders it. Each measure is evaluated once on the leaderboard's
counts (per topic, pooled and the baselines stacked in one call, :func:`fastmetrics.board.board_values`)
and once on the threshold curves' counts (every shown system in one count and one evaluation).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ._errors import ParameterError
from ._progress import Progress
from ._seeding import rng_of
from .board import best_thresholds, board_intervals, board_values, compare, one_sided, rank_systems, with_intervals
from .count import count, count_graded
from .count.fitted import fitted_grids, resample_sweep
from .count.graded import graded_table
from .count.topics import ranked_topics
from .io import read_gold, read_runs
from .measures import parse_specs
from .measures.calibration import reliability_bins
from .measures.profiles import PROFILES, with_profile
from .meta import MetaResult, holm, inconsistency, paired_p_values, robustness, strictness, system_topic_values
from .tensor import MixedCounts, Roles, Scores


@dataclass
class ReportData:
    """Everything a report shows, computed once by :func:`report_data`.

    Attributes
    ----------
    title : str
    measures : list of str
        The measure labels, in the order asked (the first ranks the systems).
    board : MetaResult
        The leaderboard (:func:`fastmetrics.board.leaderboard`'s table).
    scores : Scores
        Per (system, topic) values of every measure.
    strictness, robustness, inconsistency : MetaResult or None
        The meta-evaluation jobs (None where they do not apply: fewer than two measures or topics).
    order : dict
        Per measure, the systems from best to worst rank.
    adjacent : dict
        ``(measure, system)`` → Holm-adjusted p-value of the system against the next one.
    curves : list or None
        ``(system, thresholds, {measure: values})`` for the best systems, on each one's own grid.
    best : pyarrow.Table or None
        The best threshold of each curve and measure.
    roc, pr : list or None
        Exact ROC and precision-recall points of the same systems, with ROC AUC / average
        precision (:class:`Curves`).
    reliability : list or None
        Reliability-diagram points of the same systems when the scores are probabilities.
    n_topics : int
    scatter : list of (str, str)
        The measure pairs drawn output by output.
    roles : Roles
        The columns playing the system and the topic: the names of the system columns of
        ``board`` and ``best`` and of the axes of ``scores``.
    comparison : Comparison or None
        Friedman's test and Nemenyi's of the first measure (the critical-difference diagram), with
        two systems and two topics where every system is defined at least.
    """

    title: str
    measures: list[str]
    board: MetaResult
    scores: Scores
    strictness: MetaResult | None = None
    robustness: MetaResult | None = None
    inconsistency: MetaResult | None = None
    order: dict = field(default_factory=dict)
    adjacent: dict = field(default_factory=dict)
    curves: list | None = None
    best: pa.Table | None = None
    roc: list | None = None
    pr: list | None = None
    reliability: list | None = None
    n_topics: int = 0
    scatter: list = field(default_factory=list)
    roles: Roles = field(default_factory=Roles)
    comparison: object = None


def report_data(
    tensor,
    measures,
    *,
    runs=None,
    gold=None,
    thresholds: int = 51,
    seed: int = 0,
    resamples: int = 2000,
    pairs=1000,
    title: str = "fastmetrics report",
    max_curves: int = 8,
    scatter=None,
    weight=None,
    progress: bool = False,
    system: str = "system",
    topic: str = "topic",
    item: str = "item",
    gold_column: str = "gold",
    score: str = "score",
) -> ReportData:
    """Compute the leaderboard, the meta-evaluation and the threshold curves of a report.

    Parameters
    ----------
    tensor : ConfusionTensor
        Hard counts over ``(system[, topic])`` (the axes named by ``system`` and ``topic``).
    measures : str or sequence of str
        Measure names or specs; the first ranks the systems.
    runs : pyarrow.Table, optional
        The runs with a score column (``score``): each of the best ``max_curves`` systems is
        swept over ``thresholds`` points of its own score range, all topics pooled (systems
        score on different scales, so one shared grid would flatten most curves).
    gold : optional
        The separate gold of ``runs`` (items a run lacks count as predicted negative).
    thresholds : int, default 51
        Points of each system's grid.
    seed, resamples : int
        Of the adjacent-rank tests and the robustness topic pairs.
    pairs : int or "all", default 1000
        Topic pairs of the robustness job.
    title : str
    max_curves : int, default 8
    scatter : sequence of (str, str), optional
        The measure pairs to draw output by output (default: the first measure against the
        second and the third).
    weight : str, optional
        The column of ``runs`` holding item weights (the curves' counts are then weighted).
    progress : bool, default False
        A progress bar with the time left on stderr (on a terminal, for runs longer than about
        a second).
    system, topic, item, gold_column, score : str
        The columns playing the system, the topic and the item, and holding the gold and the
        score (as :func:`fastmetrics.count` names them; the tensor's axes are the first two).

    Returns
    -------
    ReportData
    """
    labels = [spec.label for spec in parse_specs(measures)]
    pairs_drawn = _scatter_pairs(scatter, labels)
    bar = Progress(6 + (runs is not None), "report", quiet=not progress)
    roles = dict(system=system, topic=topic)
    board = board_values(tensor, labels, **roles)
    bounds = board_intervals(board, ci=0.95, resamples=resamples, seed=seed)
    bar.advance(2)
    summary = MetaResult(
        with_intervals(rank_systems(board), board, bounds),
        None,
        {"baselines": board.baselines is not None, "ci": 0.95},
    )
    scores = board.scores
    n_topics = len(tensor.coords.get(topic, [0]))
    data = ReportData(
        title, list(scores.measures), summary, scores, n_topics=n_topics, scatter=pairs_drawn, roles=board.roles
    )
    if len(labels) >= 2:
        data.strictness = strictness(scores, **roles)
        bar.advance()
        data.inconsistency = inconsistency(scores, **roles)
    bar.advance()
    data.robustness = robustness(scores, pairs=pairs, seed=seed, **roles) if n_topics >= 2 else None
    bar.advance()
    data.comparison = _comparison(scores, data.measures[0], roles)
    data.order = {m: ranked_systems(summary.summary, m, system=system) for m in data.measures}
    data.adjacent = adjacent_tests(scores, data.order, resamples, seed, **roles)
    bar.advance()
    if runs is not None:
        shown = data.order[data.measures[0]][:max_curves]
        columns = dict(roles, item=item, gold_column=gold_column, score=score)
        curves = threshold_curves(runs, gold, shown, data.measures[:2], thresholds, weight=weight, **columns)
        data.curves, data.best, data.roc, data.pr = curves.grid, curves.best, curves.roc, curves.pr
        data.reliability = curves.reliability or None
    bar.update(bar.total)
    bar.close()
    return data


def _comparison(scores: Scores, measure: str, roles: dict):
    """Friedman's and Nemenyi's tests of one measure, where there is something to compare."""
    values, systems, _ = system_topic_values(scores, oriented=False, **roles)
    complete = ~np.isnan(values[scores.measures.index(measure)]).any(axis=0)
    if len(systems) < 2 or complete.sum() < 2:
        return None
    return compare(scores, [measure], **roles)


def _scatter_pairs(scatter, labels) -> list:
    if scatter is None:
        return [(labels[0], other) for other in labels[1:3]]
    for a, b in scatter:
        for name in (a, b):
            if name not in labels:
                raise ParameterError(
                    f"Scatter pair {a}:{b}: {name!r} is not among the report's measures ({', '.join(labels)})."
                )
    return [tuple(p) for p in scatter]


def ranked_systems(summary: pa.Table, measure: str, *, system: str = "system") -> list:
    """The systems of a leaderboard table from best to worst rank under one measure.

    Parameters
    ----------
    summary : pyarrow.Table
        :func:`fastmetrics.board.leaderboard`'s summary.
    measure : str
    system : str, default "system"
        The summary's system column (named after the column playing the system).

    Returns
    -------
    list
        System labels; unranked systems (undefined on every topic) last.
    """
    rows = [r for r in summary.to_pylist() if r["measure"] == measure and r["kind"] == "system"]
    return [r[system] for r in sorted(rows, key=lambda r: (r["rank"] is None, r["rank"] or 0))]


def adjacent_tests(
    scores: Scores, order: dict, resamples: int, seed: int, *, system: str = "system", topic: str = "topic"
) -> dict:
    """Paired bootstrap tests of each system against the next one in the ranking, per measure.

    Holm-corrected over those ``len(systems) - 1`` comparisons (testing every pair would make
    the correction too strict for any resampling budget to reach).

    Parameters
    ----------
    scores : Scores
        Over ``(system, topic)``.
    order : dict
        Per measure, the systems from best to worst.
    resamples, seed : int
    system, topic : str, default "system", "topic"
        The axes playing the system and the topic.

    Returns
    -------
    dict
        ``(measure, system)`` → adjusted p-value.
    """
    values, systems, _ = system_topic_values(scores, oriented=False, system=system, topic=topic)
    names = [str(x) for x in systems.tolist()]
    rng = rng_of(seed)
    out = {}
    for i, m in enumerate(scores.measures):
        ranked = [names.index(str(s)) for s in order[m]]
        if len(ranked) < 2:
            continue
        diff = np.array([values[i, a] - values[i, b] for a, b in zip(ranked, ranked[1:])])
        _, p = paired_p_values(diff, "bootstrap", resamples, rng)
        for a, q in zip(ranked, holm(p)):
            out[(m, names[a])] = q
    return out


def threshold_curves(
    runs: pa.Table,
    gold,
    systems: list,
    measures: list,
    thresholds: int,
    weight=None,
    *,
    system: str = "system",
    **columns,
):
    """Each system's curves: measures on a grid over its own score range, and exact ROC and PR.

    One exact sweep of the shown systems (all topics pooled) gives everything: each system's
    grid of ``thresholds`` points over its own scores is read from it
    (:mod:`fastmetrics.count.fitted`), and so are the ROC and precision-recall points and their
    areas.

    Parameters
    ----------
    runs : pyarrow.Table
        With ``system`` and ``score`` columns (and whatever the count needs), or the columns
        ``system`` and ``columns`` name.
    gold : optional
        A separate gold (items a run lacks count as predicted negative).
    systems : list
        The systems to draw, in order (labels as text or numbers).
    measures : list of str
    thresholds : int
    weight : str, optional
        A column of item weights.
    system : str, default "system"
        The column playing the system.
    **columns
        The other count options naming the runs' columns (``topic``, ``item``, ``gold_column``,
        ``score``), as :func:`fastmetrics.count` takes them.

    Returns
    -------
    Curves
    """
    names = pc.cast(runs.column(system), pa.string())
    wanted = pa.array([str(s) for s in systems], pa.string())
    rows = runs.filter(pc.is_in(names, value_set=wanted))
    missing = "negative" if gold is not None else "error"
    options = dict(columns, system=system, missing=missing, weight=weight)
    exact = count(rows, gold, by=(system,), thresholds="exact", **options)
    grid = resample_sweep(exact, fitted_grids(exact, thresholds, "system", system), system)
    on_grid = grid.evaluate(measures)
    points = exact.evaluate(["recall", "fallout", "precision"])
    areas = exact.evaluate(["roc_auc", "average_precision"])
    scores = np.asarray(exact.coords["threshold"], np.float64)
    probabilities = bool(scores.size) and scores.min() >= 0.0 and scores.max() <= 1.0
    area_of = {str(s): i for i, s in enumerate(areas.coords[system].tolist())}
    informative = [i for i, m in enumerate(measures) if not one_sided(m)]  # precision's, recall's optima: the ends
    best = None
    if informative:
        chosen = Scores(
            on_grid.values[informative],
            [on_grid.measures[i] for i in informative],
            on_grid.axes,
            on_grid.coords,
            coord_axes=on_grid.coord_axes,
        )
        best = _in_order(best_thresholds(chosen).summary, systems, system)
    out = Curves(best=best)
    for label in systems:
        mine = np.flatnonzero(pc.equal(pc.cast(pa.array(grid.coords[system]), pa.string()), str(label)))[::-1]
        out.grid.append((label, grid.coords["threshold"][mine], {m: on_grid[m][mine] for m in measures}))
        cells = np.flatnonzero(pc.equal(pc.cast(pa.array(exact.coords[system]), pa.string()), str(label)))
        auc, ap = areas.values[:, area_of[str(label)]]
        out.roc.append((label, points["fallout"][cells], points["recall"][cells], auc))
        out.pr.append((label, points["recall"][cells], points["precision"][cells], ap))
        if probabilities:  # the bins, their ECE and the Brier score in one pass
            out.reliability.append((label, *reliability_bins(exact.counts[cells], scores[cells], 10)))
    return out


@dataclass
class Curves:
    """The curves of the report's best systems (:func:`threshold_curves`).

    Parameters
    ----------
    best : pyarrow.Table or None
        The best threshold per system and measure on each system's own grid, for the measures
        that are not one-sided (:func:`fastmetrics.board.one_sided`); None if there is none.
    grid : list of (system, thresholds, dict)
        Measures at each threshold of the system's grid (increasing).
    roc, pr : list of (system, x, y, area)
        Exact ROC points (FPR, TPR) with the ROC AUC, and precision-recall points (recall,
        precision) with the average precision, in decreasing threshold order.
    reliability : list of (system, mean_score, frequency, weight, ece, brier)
        Scores that are probabilities only: ten equal-width bins per system (mean score, share
        of positives, weight), with its ECE over those bins and its Brier score.
    """

    best: pa.Table | None
    grid: list = field(default_factory=list)
    roc: list = field(default_factory=list)
    pr: list = field(default_factory=list)
    reliability: list = field(default_factory=list)


def _in_order(best: pa.Table, systems: list, system: str) -> pa.Table:
    order = {str(s): i for i, s in enumerate(systems)}
    keys = [order[str(s)] for s in best.column(system).to_pylist()]
    return best.take(np.argsort(keys, kind="stable"))


GRADED_KIND = "graded"


def count_ranked(source, gold, *, profile: str | None = None, measures=None, **explicit):
    """Ranked lists counted the way a scorer profile counts them, over its topics.

    The one place where a profile (:mod:`fastmetrics.measures.profiles`) meets the count: its
    keywords merged under the caller's (an explicit keyword wins), the runs' scores rounded to
    32 bits where the profile ranks so (``trec_eval9``), the sweep at every relevance grade when
    a graded measure (nDCG, bpref, judged@k) is asked, and trec_eval's topics kept (run topics
    absent from the gold dropped; with ``complete=True`` every gold topic a system lacks added as
    an empty list).

    Parameters
    ----------
    source : path or table
        The runs.
    gold : path or table
        The judgements (TREC qrels, or any gold :func:`fastmetrics.read_gold` reads).
    profile : str, optional
        ``"trec_eval"``, ``"trec_eval9"``, ``"semeval2016"`` or None.
    measures : str or sequence of str, optional
        The measures to be evaluated: a graded one makes the ranked lists a GradedRanks; a point
        measure (precision, F1, accuracy ...) makes the result a MixedCounts, the hard counts of the
        runs' ``pred`` column (counted from the same read) beside the ranked lists.
    **explicit
        Count keywords (``ties``, ``unjudged``, ``missing``, ``format``, the roles ...) and
        conventions (``undefined``, ``topics``, ``complete``, ``score_bits``,
        ``relevance_level``), each winning over the profile's.

    Returns
    -------
    ranks : ConfusionTensor, GradedRanks or MixedCounts
    conventions : dict
        What the evaluation applies (``undefined`` ...), see :func:`~fastmetrics.measures.profiles.with_profile`.
    """
    options, conventions = with_profile(profile, explicit)
    options["thresholds"] = "ranks"
    specs = parse_specs(measures) if measures is not None else []
    graded = any(s.measure.kind == GRADED_KIND for s in specs)
    point = any(s.measure.kind == "point" for s in specs)
    score = options.get("score", "score")
    if point and not isinstance(source, pa.Table):  # the hard counts and the ranked lists from one read
        source = read_runs(source, options.get("format", "auto"))
        options["format"] = "auto"
    pred = options.pop("pred", "pred")  # the hard counts' column; the ranked lists read the scores
    hard = _hard_counts(source, gold, profile, dict(options, pred=pred), explicit) if point else None
    if conventions.get("score_bits", 64) == 32:
        # rounded once, before the count orders the lists (by trec_eval's ties: count(ties="trec"))
        if not isinstance(source, pa.Table):
            source = read_runs(source, options.get("format", "auto"))
            options["format"] = "auto"
        source = _float32_scores(source, score)
    level = conventions.get("relevance_level", 1)
    if graded:
        options.pop("thresholds")
        ranks = count_graded(source, gold, relevance_level=level, **options)
        table = graded_table(gold, gold_column=options.get("gold_column", "gold"))
    else:
        table = read_gold(gold, relevance_level=level) if not isinstance(gold, pa.Table) else gold
        ranks = count(source, table, **options)
    if conventions.get("topics", "runs") == "gold" or conventions.get("complete"):
        ranks = ranked_topics(
            ranks,
            table,
            topics=conventions.get("topics", "runs"),
            complete=bool(conventions.get("complete")),
            gold_column=options.get("gold_column", "gold"),
        )
    return (ranks if hard is None else MixedCounts(hard, ranks)), conventions


def _hard_counts(runs: pa.Table, gold, profile, options: dict, explicit: dict):
    """The counts of the runs' hard predictions over (system, topic), for the point measures of a
    mixed table: the profile's ``hard`` keywords (SemEval-2016: an item a run lacks is left out of
    its P, R, F1 and accuracy, ``missing="drop"``) under the caller's."""
    system, topic = options.get("system", "system"), options.get("topic", "topic")
    pred = options.get("pred", "pred")
    if pred not in runs.column_names:
        raise ParameterError(
            f"Point measures (precision, f1, accuracy ...) read each item's hard prediction, and the runs have no "
            f"'{pred}' column (columns: {', '.join(runs.column_names)}): name it with pred= (--pred), or ask ranking "
            "measures only."
        )
    named = ("item", "gold_column", "weight", "pred", "classes", "task", "unjudged", "missing")
    keywords = {k: v for k, v in options.items() if k in named}
    keywords.update(
        {k: v for k, v in (PROFILES[profile].get("hard", {}) if profile else {}).items() if k not in explicit}
    )
    conventions = with_profile(profile, explicit)[1]
    table = (
        read_gold(gold, relevance_level=conventions.get("relevance_level", 1))
        if not isinstance(gold, pa.Table)
        else gold
    )
    if conventions.get("topics") == "gold" and topic in runs.column_names and topic in table.column_names:
        # run topics absent from the gold are left out of every measure, as of the ranked lists'
        judged = pc.unique(pc.cast(table.column(topic), pa.string()))
        runs = runs.filter(pc.is_in(pc.cast(runs.column(topic), pa.string()), value_set=judged))
    by = tuple(c for c in (system, topic) if c in runs.column_names)
    return count(runs, table, by=by, system=system, topic=topic, **keywords)


def _float32_scores(table: pa.Table, score: str) -> pa.Table:
    """The runs with their scores rounded to 32-bit floats (and back), as trec_eval 9.x reads them."""
    column = table.column(score).cast(pa.float32()).cast(pa.float64())
    return table.set_column(table.column_names.index(score), score, column)
