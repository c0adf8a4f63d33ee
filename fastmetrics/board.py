"""Leaderboard stage: system scores aggregated over topics and ranked."""

from __future__ import annotations

import warnings

import numpy as np
import pyarrow as pa

from ._errors import ParameterError
from .tensor import Scores


def macro_leaderboard(scores: Scores, *, order=("k", "mcc")) -> pa.Table:
    """Macro mean over topics per system, NaN-aware, ranked by the ``order`` measures.

    Parameters
    ----------
    scores : Scores
        Values over the axes ``(system, topic)``.
    order : sequence of str, default ("k", "mcc")
        Measures to sort by, descending, the first deciding (ties broken by the next).

    Returns
    -------
    pyarrow.Table
        ``rank, system, mean_<measure>..., undefined_topics``: undefined cells are left out of
        each mean, and ``undefined_topics`` is the largest number of topics any measure left out
        for that system.
    """
    if set(scores.axes) != {"system", "topic"}:
        raise ParameterError(f"A leaderboard needs scores over (system, topic); got axes {scores.axes}.")
    topic_axis = scores.axes.index("topic") + 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a measure undefined on every topic: NaN mean
        means = np.nanmean(scores.values, axis=topic_axis)
    undefined = np.isnan(scores.values).sum(axis=topic_axis)
    systems = scores.coords["system"]
    keys = [means[scores.measures.index(m)] for m in reversed(order) if m in scores.measures]
    rank = np.lexsort([-k for k in keys]) if keys else np.arange(len(systems))
    cols = {"rank": pa.array(np.arange(1, len(systems) + 1)), "system": pa.array(systems[rank].tolist())}
    for i, m in enumerate(scores.measures):
        cols[f"mean_{m}"] = pa.array(means[i][rank])
    cols["undefined_topics"] = pa.array(undefined.max(axis=0)[rank])
    return pa.table(cols)


# --- the full leaderboard: macro and micro, ranks, non-informative baselines, significance ---------

BASELINES = ("placebo", "zero", "random")
_RANDOM_EXACT_CELLS = 2_000_000


def random_baseline(spec, ap: float, an: float) -> float:
    """Expected value of a measure for the classifier that labels each item positive with
    probability 1/2 (seed 004 §6.5's random baseline), on a topic with ``ap`` positives and ``an``
    negatives: tp ~ Bin(ap, 1/2) and fp ~ Bin(an, 1/2) independently.

    The expectation is exact (summed over the joint distribution, conditioned on the outcomes
    where the measure is defined) while the support has at most 2 million cells; beyond that the
    measure is taken at the expected counts (ap/2, an/2, ap/2, an/2), an O(1/n) approximation.
    See :mod:`fastmetrics.measures.chance`.
    """
    from .measures import chance

    return chance.expected_random(spec, ap, an, "uniform", max_cells=_RANDOM_EXACT_CELLS)


def baseline_counts(tensor) -> tuple[np.ndarray, np.ndarray]:
    """Per topic, the gold sizes (AP, AN) as counted for the most complete run (largest n)."""
    c = tensor.counts
    n = c.sum(axis=(-1, -2))
    system_axis = tensor.axes.index("system")
    best = np.expand_dims(np.argmax(n, axis=system_axis), system_axis)
    ap = np.take_along_axis(c[..., 1, :].sum(-1), best, axis=system_axis).squeeze(system_axis)
    an = np.take_along_axis(c[..., 0, :].sum(-1), best, axis=system_axis).squeeze(system_axis)
    return ap.astype(np.float64), an.astype(np.float64)


def _baseline_values(spec, ap: np.ndarray, an: np.ndarray) -> dict[str, np.ndarray]:
    from .measures import api

    zeros = np.zeros_like(ap)
    out = {
        "placebo": api.compute(spec, tp=ap, fp=an, fn=zeros, tn=zeros, warn=False),
        "zero": api.compute(spec, tp=zeros, fp=zeros, fn=ap, tn=an, warn=False),
        "random": np.array([random_baseline(spec, a, b) for a, b in zip(ap.reshape(-1), an.reshape(-1))]).reshape(ap.shape),
    }
    return {k: np.asarray(v, np.float64) for k, v in out.items()}


def _competition_ranks(values: np.ndarray) -> np.ndarray:
    """1 + number of strictly better values (ties share the best rank); NaN has no rank."""
    ranks = np.full(values.shape, np.nan)
    ok = ~np.isnan(values)
    v = values[ok]
    ranks[ok] = 1 + (v[None, :] > v[:, None]).sum(axis=1)
    return ranks


def leaderboard(tensor, measures, *, baselines: bool = True, significance: str | None = None,
                correction: str | None = None, resamples: int = 1000, seed: int = 0, smoothing=None,
                progress: bool = False):
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
    resamples, seed
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
    from .meta import significance as paired_tests
    from .meta._common import MetaResult, higher_is_better, labels_array, system_topic_values
    from .tensor import _measure_entries

    if "system" not in tensor.axes or set(tensor.axes) - {"system", "topic"}:
        hint = ""
        if "cell" in tensor.axes or "threshold" in tensor.axes:
            hint = (" These are counts of a threshold sweep (scores without hard predictions): count a 'pred' "
                    "column of hard labels, or one threshold per system chosen with best_thresholds.")
        elif "system" not in tensor.axes:
            hint = " Count with by=('system', 'topic') (or name the column playing the system with by=)."
        raise ParameterError(f"A leaderboard needs counts over (system[, topic]); got axes {tensor.axes}.{hint}")
    entries = _measure_entries(measures, None)
    scores = tensor.evaluate([e[2] for e in entries], smoothing=smoothing)
    pooled = tensor.sum("topic") if "topic" in tensor.axes else tensor
    micro = pooled.evaluate([e[2] for e in entries], smoothing=smoothing).values  # [measure, system]
    values, _, _ = system_topic_values(scores, oriented=False)  # [measure, system, topic]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        macro = np.nanmean(values, axis=2)
    defined = (~np.isnan(values)).sum(axis=2)
    binary = tensor.m == 2 and tensor.classes.tolist() == [0, 1]
    use_baselines = baselines and binary
    if use_baselines:
        ap, an = baseline_counts(tensor)
        ap_all, an_all = np.array([ap.sum()]), np.array([an.sum()])
    systems = np.asarray(tensor.coords["system"])
    rows = {k: [] for k in ("system", "kind", "measure", "macro", "micro", "topics", "undefined_topics", "rank",
                            "beats_baselines")}
    n_topics = values.shape[2]
    for i, (spec, avg, label) in enumerate(entries):
        sign = 1.0 if higher_is_better(label) else -1.0
        ranks = _competition_ranks(sign * macro[i])
        base_macro = {}
        if use_baselines:
            per_topic = _baseline_values(spec, ap, an)
            pooled_base = _baseline_values(spec, ap_all, an_all)
            for name in BASELINES:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", RuntimeWarning)
                    base_macro[name] = float(np.nanmean(per_topic[name]))
                rows["system"].append(name)
                rows["kind"].append("baseline")
                rows["measure"].append(label)
                rows["macro"].append(base_macro[name])
                rows["micro"].append(float(pooled_base[name][0]))
                rows["topics"].append(int((~np.isnan(per_topic[name])).sum()))
                rows["undefined_topics"].append(int(np.isnan(per_topic[name]).sum()))
                rows["rank"].append(None)
                rows["beats_baselines"].append(None)
        best_baseline = max((sign * v for v in base_macro.values() if not np.isnan(v)), default=-np.inf)
        for s, system in enumerate(systems.tolist()):
            rows["system"].append(system)
            rows["kind"].append("system")
            rows["measure"].append(label)
            rows["macro"].append(float(macro[i, s]))
            rows["micro"].append(float(micro[i, s]))
            rows["topics"].append(int(defined[i, s]))
            rows["undefined_topics"].append(int(n_topics - defined[i, s]))
            rows["rank"].append(None if np.isnan(ranks[s]) else int(ranks[s]))
            beats = None if not use_baselines or np.isnan(macro[i, s]) else bool(sign * macro[i, s] > best_baseline)
            rows["beats_baselines"].append(beats)
    summary = pa.table({
        "system": labels_array(rows["system"]), "kind": rows["kind"], "measure": rows["measure"],
        "macro": pa.array(rows["macro"], pa.float64()), "micro": pa.array(rows["micro"], pa.float64()),
        "topics": pa.array(rows["topics"], pa.int64()),
        "undefined_topics": pa.array(rows["undefined_topics"], pa.int64()),
        "rank": pa.array(rows["rank"], pa.int64()), "beats_baselines": pa.array(rows["beats_baselines"], pa.bool_()),
    })
    detail = None
    if significance is not None:
        detail = paired_tests(scores, method=significance, resamples=resamples, seed=seed,
                              correction=correction, progress=progress).summary
    return MetaResult(summary, detail, {"baselines": use_baselines, "significance": significance,
                                        "correction": correction, "resamples": resamples, "seed": seed})


def best_thresholds(scores) -> pa.Table:
    """The best threshold per (system[, topic], measure) of a threshold sweep.

    Parameters
    ----------
    scores : Scores
        Values over axes that include ``threshold`` (e.g. ``fm.count(..., thresholds=101)``).

    Returns
    -------
    pyarrow.Table
        The other batch columns, then ``measure, threshold, value``: the threshold where the
        measure is best in its own direction (the lowest such threshold on ties; cells undefined
        at every threshold get nulls).
    """
    from .meta._common import higher_is_better

    if "threshold" not in scores.axes:
        raise ParameterError(f"A sweep needs a 'threshold' axis; these scores have {', '.join(scores.axes)}: "
                             "count with thresholds=k or an array of thresholds.")
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
    return pa.table({**{a: columns[a] for a in others}, "measure": columns["measure"],
                     "threshold": pa.array(columns["threshold"], pa.float64()),
                     "value": pa.array(columns["value"], pa.float64())})
