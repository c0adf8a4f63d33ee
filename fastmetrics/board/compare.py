"""Comparisons of a leaderboard's systems: many systems at once (Friedman, post-hoc tests, tiers,
the critical-difference diagram's data), the Bayesian signed-rank test of every pair, and the
tiers of a leaderboard from its paired tests.

:func:`compare` is what ``fastmetrics compare`` runs and ``fm.board.compare`` offers: per measure,
Friedman's test over the topics, a post-hoc test of every pair (Nemenyi, Conover, Wilcoxon-Holm;
:mod:`fastmetrics.board.friedman`), each system's mean rank, tier and groups. :func:`bayesian_tests`
is :func:`fastmetrics.meta.significance`'s Bayesian counterpart (:mod:`fastmetrics.board.bayes`).
:func:`with_tiers` adds a leaderboard's tiers, from whatever paired tests it ran.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa

from .._errors import ParameterError
from .._numbers import short
from .._progress import Progress
from .._seeding import rng_of
from ..meta import MetaResult, higher_is_better, labels_array, system_topic_values
from ..meta.corrections import check_correction
from ..meta.paired import check_alpha
from ..meta.significance import system_pairs
from ..tensor import Roles, Scores
from . import bayes, friedman
from .values import board_values


@dataclass
class Comparison(MetaResult):
    """The result of :func:`compare`: a :class:`~fastmetrics.meta.MetaResult` with the tests.

    Parameters
    ----------
    summary : pyarrow.Table
        One row per (measure, system): ``measure, <system>, mean_rank, rank, tier, groups``.
    detail : pyarrow.Table
        One row per (measure, pair): ``measure, <system>_a, <system>_b, rank_difference,
        p_value, separated``.
    params : dict
        The settings.
    tests : pyarrow.Table
        One row per measure: ``measure, systems, topics, left_out`` (topics where a system is
        undefined), ``chi2, p_value`` (Friedman), ``iman_davenport, p_iman_davenport, df1, df2``,
        ``critical_difference`` (Nemenyi's, at ``alpha``), ``posthoc``.
    spans : dict
        Per measure, the first and last position (in the summary's order of that measure's
        systems) of each group (:func:`fastmetrics.board.friedman.group_spans`): the bars of its
        critical-difference diagram.
    """

    tests: pa.Table | None = None
    spans: dict = field(default_factory=dict)


def compare(
    data,
    measures=None,
    *,
    posthoc: str = "nemenyi",
    alpha: float = 0.05,
    correction: str | None = "holm",
    smoothing=None,
    undefined=None,
    progress: bool = False,
    system: str = "system",
    topic: str = "topic",
) -> Comparison:
    """Compare many systems at once: Friedman's test, a post-hoc test of every pair, tiers.

    Parameters
    ----------
    data : ConfusionTensor or Scores
        Counts over ``(system, topic)`` (evaluated here, as a leaderboard evaluates them), or their
        values.
    measures : sequence of str, optional
        The measures of a ConfusionTensor (required there); of Scores, a subset (default all).
    posthoc : {"nemenyi", "conover", "wilcoxon"}, default "nemenyi"
        The post-hoc test (see :mod:`fastmetrics.board.friedman`).
    alpha : float, default 0.05
        The level of the critical difference and of the separations.
    correction : {"holm", "bonferroni", "bh", None}, default "holm"
        Of Conover's and Wilcoxon's p-values (Nemenyi's need none).
    smoothing, undefined : optional
        As a leaderboard evaluates a ConfusionTensor.
    progress : bool, default False
        A progress bar on a terminal for runs longer than about a second.
    system, topic : str, default "system", "topic"
        The axes playing the system and the topic; the output columns keep their names.

    Returns
    -------
    Comparison

    Raises
    ------
    ParameterError
        Fewer than two systems or topics, or an option out of its domain.
    """
    friedman.check_posthoc(posthoc)
    check_alpha(alpha, "compare")
    check_correction(correction, "compare")
    scores = _scores_of(data, measures, smoothing, undefined, system, topic)
    values, systems, topics = system_topic_values(scores, oriented=True, system=system, topic=topic)
    if len(systems) < 2 or len(topics) < 2:
        raise ParameterError(
            f"Friedman's test ranks at least two systems on at least two topics; these scores have "
            f"{len(systems)} system(s) and {len(topics)} topic(s)."
        )
    first, second = (np.asarray(x, np.int64) for x in system_pairs(len(systems)))
    rows = {k: [] for k in ("measure", "system", "mean_rank", "rank", "tier", "groups")}
    pairs = {k: [] for k in ("rank_difference", "p_value", "separated")}
    tests, spans = [], {}
    with Progress(len(scores.measures), f"{posthoc} comparisons", quiet=not progress) as bar:
        for i, name in enumerate(scores.measures):
            complete = ~np.isnan(values[i]).any(axis=0)
            kept = values[i] if complete.all() else values[i][:, complete]
            ranks, ties = friedman.block_ranks(kept)
            mean = ranks.mean(axis=1) if kept.shape[1] else np.full(len(systems), np.nan)
            p = friedman.posthoc_p(posthoc, kept, ranks, first, second, correction)
            tests.append(_test_row(name, ranks, ties, complete, posthoc, alpha))
            spans[name] = _rank_rows(rows, name, systems, mean, first, second, p < alpha)
            pairs["rank_difference"].append(mean[first] - mean[second])
            pairs["p_value"].append(p)
            pairs["separated"].append(p < alpha)
            bar.advance()
    params = dict(posthoc=posthoc, alpha=alpha, correction=None if posthoc == "nemenyi" else correction)
    summary, detail = _tables(
        rows, pairs, scores.measures, labels_array(systems), (first, second), Roles(system, topic)
    )
    return Comparison(summary, detail, params, tests=pa.Table.from_pylist(tests), spans=spans)


def _rank_rows(rows, name, systems, mean, first, second, separated) -> list:
    """One measure's systems by mean rank, with their tiers and groups, appended to ``rows``;
    returns the groups' spans."""
    order = np.lexsort((np.arange(len(systems)), mean))
    matrix = np.zeros((len(systems), len(systems)), bool)
    matrix[first, second] = matrix[second, first] = separated
    tier, groups, spans = friedman.tiers_and_spans(order, matrix)
    rows["measure"] += [name] * order.size
    rows["system"].append(order)
    rows["mean_rank"].append(mean[order])
    rows["rank"].append(1 + np.searchsorted(np.sort(mean), mean[order], side="left"))  # 1 + systems ranked above
    rows["tier"].append(tier)
    rows["groups"] += groups
    return spans


def _tables(rows, pairs, measures, labels, pair, names: Roles) -> tuple[pa.Table, pa.Table]:
    """The summary (a row per measure and system) and the detail (a row per measure and pair).

    ``labels`` are the systems' labels, ``pair`` the indices ``(first, second)`` of each of the
    ``measures``' pairs."""
    stacked = {k: np.concatenate(rows[k]) if rows[k] else np.empty(0) for k in ("system", "mean_rank", "rank", "tier")}
    summary = pa.table(
        {
            "measure": rows["measure"],
            names.system: labels.take(stacked["system"].astype(np.int64)),
            "mean_rank": pa.array(stacked["mean_rank"], pa.float64()),
            "rank": pa.array(stacked["rank"], pa.int64()),
            "tier": pa.array(stacked["tier"], pa.int64()),
            "groups": pa.array(rows["groups"], pa.string()),
        }
    )
    a, b = names.pair("system")
    repeat = len(pairs["p_value"])
    detail = pa.table(
        {
            "measure": pa.array(list(measures), pa.string()).take(np.repeat(np.arange(repeat), pair[0].size)),
            a: labels.take(np.tile(pair[0], repeat)),
            b: labels.take(np.tile(pair[1], repeat)),
            "rank_difference": pa.array(np.concatenate(pairs["rank_difference"]), pa.float64()),
            "p_value": pa.array(np.concatenate(pairs["p_value"]), pa.float64()),
            "separated": pa.array(np.concatenate(pairs["separated"]), pa.bool_()),
        }
    )
    return summary, detail


def _scores_of(data, measures, smoothing, undefined, system, topic) -> Scores:
    """The values to compare: Scores as given (a subset of their measures), or a tensor evaluated."""
    if isinstance(data, Scores):
        if measures is None:
            return data
        missing = [m for m in measures if m not in data.measures]
        if missing:
            raise ParameterError(f"The scores hold no {', '.join(missing)}; they hold {', '.join(data.measures)}.")
        picked = [data.measures.index(m) for m in measures]
        return Scores(data.values[picked], list(measures), data.axes, data.coords, coord_axes=data.coord_axes)
    if measures is None:
        raise ParameterError("compare evaluates a ConfusionTensor: name the measures (measures=[...]).")
    roles = dict(system=system, topic=topic)
    return board_values(data, measures, baselines=False, smoothing=smoothing, undefined=undefined, **roles).scores


def _test_row(name, ranks, ties, complete, posthoc, alpha) -> dict:
    k, n = ranks.shape
    test = friedman.friedman_test(ranks, ties)
    return {
        "measure": name,
        "systems": k,
        "topics": n,
        "left_out": int(complete.size - n),
        "chi2": test["chi2"],
        "p_value": test["p_chi2"],
        "iman_davenport": test["f"],
        "df1": k - 1,
        "df2": (k - 1) * (n - 1),
        "p_iman_davenport": test["p_f"],
        "critical_difference": friedman.critical_difference(k, n, alpha),
        "posthoc": posthoc,
    }


def bayesian_tests(
    scores,
    *,
    rope: float = 0.01,
    samples: int = 50_000,
    prior: float = 0.5,
    seed: int = 0,
    progress: bool = False,
    system: str = "system",
    topic: str = "topic",
) -> MetaResult:
    """The Bayesian signed-rank test with a ROPE between every pair of systems, per measure.

    Parameters
    ----------
    scores : Scores
        Values over ``(system, topic)``.
    rope : float, default 0.01
        The half-width of the region of practical equivalence, in each measure's units.
    samples : int, default 50000
        Posterior samples (shared by the pairs defined on the same topics).
    prior : float, default 0.5
        The strength of the Dirichlet process's prior at 0.
    seed : int, default 0
        Of the posterior samples: the same seed gives the same probabilities.
    progress : bool, default False
        A progress bar on a terminal for runs longer than about a second.
    system, topic : str, default "system", "topic"
        The axes playing the system and the topic.

    Returns
    -------
    MetaResult
        ``summary``: ``measure, <system>_a, <system>_b, diff, topics, p_a_better, p_equivalent,
        p_b_better`` (``diff`` the mean of a minus b over the topics both are defined on).
    """
    bayes.check_options(rope, samples, prior, "bayesian_tests")
    values, systems, _ = system_topic_values(scores, oriented=False, system=system, topic=topic)
    rng = rng_of(seed)
    first, second = (np.asarray(x, np.int64) for x in system_pairs(len(systems)))
    bayes.check_memory(
        first.size, values.shape[2], f"Bayesian tests of {first.size:,} pairs on {values.shape[2]:,} topics"
    )
    columns = {k: [] for k in ("measure", "diff", "topics", "p")}
    total = max(1, first.size * samples * len(scores.measures))
    with Progress(total, "bayes tests", quiet=not progress) as bar:
        for i, name in enumerate(scores.measures):
            diff = values[i, first] - values[i, second]
            sign = 1.0 if higher_is_better(name) else -1.0
            probabilities = bayes.signed_rank(
                sign * diff, rope=rope, samples=samples, prior=prior, rng=rng, progress=bar.advance
            )
            columns["measure"] += [name] * first.size
            with np.errstate(invalid="ignore"):
                columns["diff"].append(
                    np.nanmean(np.where(np.isnan(diff), np.nan, diff), axis=1)
                    if diff.shape[1]
                    else np.full(first.size, np.nan)
                )
            columns["topics"].append((~np.isnan(diff)).sum(axis=1))
            columns["p"].append(probabilities)
    p = np.concatenate(columns["p"]) if columns["p"] else np.empty((0, 3))
    a, b = Roles(system, topic).pair("system")
    repeat = len(scores.measures)
    summary = pa.table(
        {
            "measure": columns["measure"],
            a: labels_array(systems).take(np.tile(first, repeat)),
            b: labels_array(systems).take(np.tile(second, repeat)),
            "diff": pa.array(np.concatenate(columns["diff"]) if columns["diff"] else [], pa.float64()),
            "topics": pa.array(np.concatenate(columns["topics"]) if columns["topics"] else [], pa.int64()),
            "p_a_better": pa.array(p[:, 2], pa.float64()),
            "p_equivalent": pa.array(p[:, 1], pa.float64()),
            "p_b_better": pa.array(p[:, 0], pa.float64()),
        }
    )
    return MetaResult(summary, None, dict(method="bayes", rope=rope, samples=samples, prior=prior, seed=seed))


def separated_pairs(tests: pa.Table, alpha: float) -> np.ndarray:
    """Which rows of a table of paired tests separate their pair.

    A p-value test separates a pair whose ``p_adjusted`` is below ``alpha``; the Bayesian test one
    where ``P(a better)`` or ``P(b better)`` is at least ``1 - alpha``.

    Parameters
    ----------
    tests : pyarrow.Table
        :func:`fastmetrics.meta.significance`'s, :func:`bayesian_tests`' or
        :func:`fastmetrics.meta.item_tests`' summary.
    alpha : float

    Returns
    -------
    ndarray of bool
    """
    if "p_a_better" in tests.column_names:
        better = np.maximum(_floats(tests, "p_a_better"), _floats(tests, "p_b_better"))
        return better >= 1.0 - alpha
    return _floats(tests, "p_adjusted") < alpha


def _floats(table: pa.Table, name: str) -> np.ndarray:
    return table.column(name).to_numpy(zero_copy_only=False).astype(np.float64)


def with_tiers(
    summary: pa.Table, tests: pa.Table | None, alpha: float, *, system: str = "system", topic: str = "topic"
) -> pa.Table:
    """A leaderboard's table with ``tier`` and ``groups`` from its paired tests.

    The systems of each measure in their rank order (ties in the order of the table); two systems
    are separated by :func:`separated_pairs`; tiers and groups as
    :func:`fastmetrics.board.friedman.tiers` draws them. Baselines, unranked systems and measures
    without tests get nulls.

    Parameters
    ----------
    summary : pyarrow.Table
        :func:`fastmetrics.board.leaderboard`'s table.
    tests : pyarrow.Table or None
        Its paired tests (``measure, <system>_a, <system>_b``, ...).
    alpha : float
    system, topic : str, default "system", "topic"
        The columns playing the system (the summary's, and ``<system>_a, <system>_b`` in the tests)
        and the topic.

    Returns
    -------
    pyarrow.Table
    """
    tier = [None] * summary.num_rows
    groups = [None] * summary.num_rows
    if tests is not None and tests.num_rows:
        a, b = Roles(system, topic).pair("system")
        separated = separated_pairs(tests, alpha)
        test_measure = np.asarray(tests.column("measure").to_pylist(), dtype=object)
        names_a = [str(x) for x in tests.column(a).to_pylist()]
        names_b = [str(x) for x in tests.column(b).to_pylist()]
        rows = summary.to_pylist()
        for measure in dict.fromkeys(r["measure"] for r in rows):
            mine = [
                i
                for i, r in enumerate(rows)
                if r["measure"] == measure and r["kind"] == "system" and r["rank"] is not None
            ]
            if not mine or not (test_measure == measure).any():
                continue
            mine.sort(key=lambda i: rows[i]["rank"])
            index = {str(rows[i][system]): j for j, i in enumerate(mine)}
            matrix = np.zeros((len(mine), len(mine)), bool)
            for t in np.flatnonzero((test_measure == measure) & separated):
                x, y = index.get(names_a[t]), index.get(names_b[t])
                if x is not None and y is not None:
                    matrix[x, y] = matrix[y, x] = True
            levels, letters = friedman.tiers(range(len(mine)), matrix)
            for j, i in enumerate(mine):
                tier[i], groups[i] = int(levels[j]), letters[j]
    summary = summary.append_column("tier", pa.array(tier, pa.int64()))
    return summary.append_column("groups", pa.array(groups, pa.string()))


def p_value_text(p: float) -> str:
    """``p = 0.0123`` inside a sentence (up to 6 significant digits), ``p < 1e-300`` where it underflows."""
    return "p < 1e-300" if p == 0 else f"p = {short(p)}"


def test_sentence(test: dict, alpha: float) -> str:
    """One measure's row of :attr:`Comparison.tests` in a sentence.

    Parameters
    ----------
    test : dict
        A row of :attr:`Comparison.tests`.
    alpha : float

    Returns
    -------
    str
    """
    left = f" ({test['left_out']} left out: a system is undefined there)" if test["left_out"] else ""
    return (
        f"{test['measure']}: {test['systems']} systems on {test['topics']} topics{left}; Friedman's chi2 = "
        f"{short(test['chi2'])} ({test['df1']} df), {p_value_text(test['p_value'])}; Iman-Davenport F = "
        f"{short(test['iman_davenport'])} ({test['df1']}, {test['df2']} df), {p_value_text(test['p_iman_davenport'])}; "
        f"Nemenyi's critical difference at alpha {short(alpha)}: {short(test['critical_difference'])} mean ranks."
    )
