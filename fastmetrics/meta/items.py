"""Paired tests over items, for leaderboards scored on one test set.

Topic-level tests need several topics; with one test set the unit of resampling is the item.
Every system is read on the items all of them labelled (binary gold and predictions), so that
each comparison is paired:

- ``mcnemar``: McNemar's test of two systems' accuracies from their discordant items (b = items
  only ``a`` gets right, c = items only ``b`` gets right): the exact binomial test when
  ``b + c < 25``, else the chi-square statistic ``(|b - c| - 1)² / (b + c)`` with continuity
  correction (``mcnemar="exact" | "chi2" | "chi2-corrected"`` forces one form), as
  ``statsmodels.stats.contingency_tables.mcnemar`` computes them.
- ``item-bootstrap``: any point measure. Each replicate draws one weight per item (Poisson(1), or
  a multinomial draw of the items), shared by all systems, and every system's confusion matrix is
  counted with those weights in one matrix product -- ``counts[replicate, system, 2, 2]``. For a
  pair the difference of the measure over the replicates gives the effect's interval, the share
  of replicates where ``a`` beats ``b`` (in the measure's direction) and the two-sided p-value
  ``2 min(P(d* <= 0), P(d* >= 0))`` (the level at which the percentile interval of the
  difference stops covering 0).

- ``delong``: DeLong's paired test of two systems' ROC AUCs on the same items
  (:mod:`fastmetrics.measures.area_intervals`): the ``pred`` column read as scores (any real
  numbers, higher meaning more likely positive); the difference of the AUCs with its normal
  interval, ``z = difference / sd`` and the two-sided normal p-value, as R's pROC ``roc.test``.

P-values of all pairs are adjusted together by ``holm``, ``bonferroni`` or ``bh``
(Benjamini-Hochberg), as ``statsmodels.stats.multitest.multipletests`` does.
"""

from __future__ import annotations

import math

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .. import _memory
from .._errors import InputError, ParameterError, parameter_error
from .._seeding import rng_of
from ..count.encoders import string_codes
from ..io.gold import gold_table
from ..io.labels import no_nulls, require_columns, weight_values
from ..io.source import open_source
from ..measures import api, area_intervals, registry
from ..tensor import Roles
from ._common import MetaResult, higher_is_better
from .corrections import CORRECTIONS, adjust


def item_tests(
    runs,
    gold=None,
    *,
    measures=("accuracy",),
    method="mcnemar",
    resamples=1000,
    seed=0,
    weights="poisson",
    correction="holm",
    mcnemar="auto",
    ci=0.95,
    pred="pred",
    item="item",
    weight=None,
    system="system",
    topic="topic",
    gold_column="gold",
):
    """Paired tests over items between every pair of systems (see the module docstring).

    Parameters
    ----------
    runs : path, table or Source
        Runs with ``system``, ``item``, ``pred`` (and ``topic``, and ``gold`` without a separate
        gold) columns, or the columns named by ``system``, ``item``, ...; binary labels.
    gold : path or table, optional
        A separate gold with ``item`` and ``gold`` columns (and ``topic``), joined on the runs'
        topic and item (see :func:`fastmetrics.count.goldkeys.normalised_gold`).
    measures : sequence of str, default ("accuracy",)
        Point measures (``item-bootstrap``); McNemar compares accuracies.
    method : {"mcnemar", "item-bootstrap", "delong"}
        ``delong`` reads ``pred`` as scores (e.g. ``pred="score"``) and compares ROC AUCs.
    resamples, seed : int
        Of the bootstrap.
    weights : {"poisson", "multinomial"}
        How a replicate weighs the items.
    correction : {None, "holm", "bonferroni", "bh"}, default "holm"
    mcnemar : {"auto", "exact", "chi2", "chi2-corrected"}
    ci : float, default 0.95
        Level of the effect's interval (bootstrap).
    pred, item : str
        Column names.
    weight : str, optional
        A column of item weights (the same for every system on an item): the item bootstrap then
        counts weighted confusion matrices, as a weighted leaderboard does, and resamples the
        items with their weights. McNemar's test counts discordant items and has no standard
        weighted form: it refuses weights.
    system, topic, gold_column : str, default "system", "topic", "gold"
        The runs' columns playing the system and the topic, and holding the gold (without a
        separate gold).

    Returns
    -------
    MetaResult
        ``summary``: one row per (measure, pair) -- ``system_a, system_b, measure, difference``
        (a - b), ``ci_low, ci_high`` and ``a_beats_b`` (share of replicates; bootstrap),
        ``discordant_a, discordant_b`` (McNemar), ``p_value, p_adjusted``, ``items``; the pair's
        columns are ``<system>_a, <system>_b`` after the column playing the system.
    """
    _check_options(method, resamples, ci, correction, weight)
    columns = dict(pred=pred, item=item, weight=weight, system=system, topic=topic, gold_column=gold_column)
    systems, gold_labels, predictions, item_weights = item_matrix(runs, gold, **columns, scores=method == "delong")
    pairs = [(a, b) for a in range(len(systems)) for b in range(a + 1, len(systems))]
    if method == "mcnemar":
        rows = _mcnemar_rows(systems, gold_labels, predictions, pairs, mcnemar)
    elif method == "delong":
        rows = _delong_rows(systems, gold_labels, predictions, pairs, ci)
    else:
        draw = (resamples, seed, weights, ci)
        rows = _bootstrap_rows(systems, gold_labels, predictions, item_weights, pairs, measures, *draw)
    rows["p_adjusted"] = []
    for measure in dict.fromkeys(rows["measure"]):
        mine = [i for i, m in enumerate(rows["measure"]) if m == measure]
        rows["p_adjusted"] += adjust([rows["p_value"][i] for i in mine], correction).tolist()
    rows["items"] = [predictions.shape[1]] * len(rows["measure"])
    names = dict(zip(("system_a", "system_b"), Roles(system, topic).pair("system")))
    table = pa.table({names.get(k, k): pa.array(v, from_pandas=True) for k, v in rows.items()})
    return MetaResult(table, None, {"method": method, "correction": correction, "resamples": resamples, "seed": seed})


def _check_options(method, resamples, ci, correction, weight) -> None:
    """Refuse an option no test takes, before the runs are read."""
    if method not in ("mcnemar", "item-bootstrap", "delong"):
        raise parameter_error("method", "item_tests", "'mcnemar', 'item-bootstrap' or 'delong'", method)
    if isinstance(resamples, bool) or not isinstance(resamples, (int, np.integer)) or resamples < 1:
        raise parameter_error("resamples", "item_tests", "an integer >= 1", resamples)
    if isinstance(ci, bool) or not isinstance(ci, (int, float, np.floating)) or not 0 < ci < 1:
        raise parameter_error("ci", "item_tests", "a confidence level strictly between 0 and 1 (e.g. 0.95)", ci)
    if correction is not None and correction not in CORRECTIONS:
        raise parameter_error("correction", "item_tests", "None, 'holm', 'bonferroni' or 'bh'", correction)
    if weight is not None and method == "delong":
        raise ParameterError("DeLong's test counts items (placement values): drop the weights.")
    if weight is not None and method == "mcnemar":
        raise ParameterError(
            "McNemar's test counts discordant items (a binomial count): weighted items have no standard "
            "McNemar test. Use the item bootstrap (method='item-bootstrap', --significance item-bootstrap), "
            "which counts the weights, or drop the weights."
        )


def item_matrix(
    runs,
    gold=None,
    *,
    pred="pred",
    item="item",
    weight=None,
    system="system",
    topic="topic",
    gold_column="gold",
    scores=False,
):
    """Every system's binary predictions (or scores) on the items all of them labelled.

    Parameters
    ----------
    runs : path, table or Source
    gold : path or table, optional
        A separate gold with ``item`` and ``gold`` columns (and ``topic``).
    pred, item : str
    weight : str, optional
        A column of item weights.
    system, topic, gold_column : str, default "system", "topic", "gold"
        The runs' columns playing the system and the topic, and holding the gold.
    scores : bool, default False
        Read ``pred`` as finite real scores instead of binary predictions.

    Returns
    -------
    systems : list
    gold : ndarray of bool, shape (items,)
    predictions : ndarray of bool (of float64 with ``scores``), shape (systems, items)
    weights : ndarray of float64, shape (items,)
        Ones without ``weight``.

    Raises
    ------
    InputError
        An item whose gold (or weight) differs between systems, naming the item.
    """
    table = open_source(runs).read_all()
    wanted = [system, item, pred] + ([weight] if weight is not None else [])
    require_columns(table.column_names, wanted, "the runs", " for paired tests over items")
    keys = [c for c in (topic, item) if c in table.column_names]
    if gold is not None:
        table, gold_column = _with_gold(table, gold_table(gold), keys, item)
    require_columns(table.column_names, [gold_column], "the runs", " (or give a separate gold)")
    for column in [system, *keys]:  # a missing id would be coded as no label at all
        no_nulls(table.column(column), column, "the runs")
    key = (
        pc.binary_join_element_wise(*[pc.cast(table.column(c), pa.string()) for c in keys], "\x1f")
        if len(keys) > 1
        else pc.cast(table.column(item), pa.string())
    )
    item_codes = pc.dictionary_encode(key).combine_chunks()
    systems, s = _sorted_codes(pc.cast(table.column(system), pa.string()))
    n_systems, n_items = len(systems), len(item_codes.dictionary)
    i = item_codes.indices.to_numpy()
    given = np.zeros((n_systems, n_items), np.int32)
    np.add.at(given, (s, i), 1)
    if given.max() > 1:
        raise InputError("A system labels an item twice: paired tests need one prediction per system and item.")
    predictions = np.zeros((n_systems, n_items), np.float64 if scores else bool)
    predictions[s, i] = _real(table.column(pred), pred) if scores else _binary(table.column(pred), pred)
    gold_labels = _per_item(_binary(table.column(gold_column), gold_column), i, n_items, table, keys, "gold")
    weights = np.ones(n_items)
    if weight is not None:
        weights = _per_item(
            weight_values(table.column(weight), weight, "the runs"), i, n_items, table, keys, f"weight ('{weight}')"
        )
    shared = given.all(axis=0)
    if not shared.any():
        raise InputError("No item is labelled by every system: paired tests need the same items.")
    if n_systems < 2:
        raise ParameterError("Paired tests compare systems: the runs hold one.")
    return systems, gold_labels[shared], predictions[:, shared], weights[shared]


def _sorted_codes(column) -> tuple[list, np.ndarray]:
    """The distinct labels of ``column`` in sorted order and each row's code among them, as
    :func:`fastmetrics.count` codes a system axis (:func:`~fastmetrics.count.encoders.string_codes`):
    the order of the pairs does not depend on the order of the rows, which a join with a separate
    gold does not keep."""
    coded = string_codes(column).combine_chunks()
    return coded.dictionary.to_pylist(), coded.indices.to_numpy().astype(np.int64)


def _with_gold(table: pa.Table, labels: pa.Table, keys: list, item: str) -> tuple[pa.Table, str]:
    """The runs joined with a separate gold (its ``topic``, ``item`` and ``gold`` columns) on the
    runs' ``keys``, and the name of the joined gold column: one the runs do not have."""
    gold_keys = ["topic", "item"] if len(keys) == 2 and "topic" in labels.column_names else ["item"]
    label = "gold"
    while label in table.column_names:
        label = f"_{label}"
    labels = labels.select(gold_keys + ["gold"]).rename_columns(gold_keys + [label])
    run_keys = keys if len(gold_keys) == 2 else [item]
    return table.join(labels, keys=run_keys, right_keys=gold_keys, join_type="inner"), label


def _per_item(values: np.ndarray, codes: np.ndarray, n_items: int, table: pa.Table, keys: list, what: str):
    """One value per item from the rows of every system: refused, naming the item, where the
    systems' rows disagree (the paired tests compare the systems on the same items)."""
    out = np.zeros(n_items, values.dtype)
    out[codes] = values
    differ = np.flatnonzero(out[codes] != values)
    if differ.size:
        row = int(differ[0])
        shown = ", ".join(f"{c}={table.column(c)[row].as_py()!r}" for c in keys)
        raise InputError(
            f"The {what} of item {shown} differs between systems: paired tests over items compare the "
            "systems on the same items, so each item needs one gold label and one weight."
        )
    return out


def _binary(column, name) -> np.ndarray:
    values = column.to_numpy(zero_copy_only=False)
    if column.null_count or not set(np.unique(values).tolist()) <= {0, 1}:
        raise InputError(f"Column '{name}' must hold binary labels (bool or 0/1) for paired tests over items.")
    return values.astype(bool)


def _real(column, name) -> np.ndarray:
    values = column.to_numpy(zero_copy_only=False)
    if column.null_count or not np.issubdtype(values.dtype, np.number) or not np.isfinite(values).all():
        raise InputError(f"Column '{name}' must hold finite scores (numbers, no null) for DeLong's test over items.")
    return values.astype(np.float64)


def _delong_rows(systems, gold, scores, pairs, ci) -> dict:
    auc, covariance = area_intervals.delong_covariance(scores, gold)
    first = np.array([a for a, _ in pairs], np.int64)
    second = np.array([b for _, b in pairs], np.int64)
    difference, low, high, p = area_intervals.delong_test(auc, covariance, first, second, ci)
    return {
        "system_a": [systems[a] for a in first],
        "system_b": [systems[b] for b in second],
        "measure": ["roc_auc"] * len(pairs),
        "difference": difference.tolist(),
        "ci_low": low.tolist(),
        "ci_high": high.tolist(),
        "p_value": p.tolist(),
    }


def _mcnemar_rows(systems, gold, predictions, pairs, form) -> dict:
    correct = predictions == gold[None, :]
    only = correct.astype(np.int64) @ (~correct).T.astype(np.int64)  # only[a, b]: a right, b wrong
    accuracy = correct.mean(axis=1)
    rows = {k: [] for k in ("system_a", "system_b", "measure", "difference", "discordant_a", "discordant_b", "p_value")}
    for a, b in pairs:
        rows["system_a"].append(systems[a])
        rows["system_b"].append(systems[b])
        rows["measure"].append("accuracy")
        rows["difference"].append(float(accuracy[a] - accuracy[b]))
        rows["discordant_a"].append(int(only[a, b]))
        rows["discordant_b"].append(int(only[b, a]))
        rows["p_value"].append(mcnemar_p(int(only[a, b]), int(only[b, a]), form))
    return rows


def mcnemar_p(b: int, c: int, form: str = "auto") -> float:
    """McNemar's two-sided p-value from the discordant counts.

    Parameters
    ----------
    b, c : int
        Items only the first / only the second system gets right.
    form : {"auto", "exact", "chi2", "chi2-corrected"}
        ``auto``: exact when ``b + c < 25``, else chi-square with continuity correction.

    Returns
    -------
    float
        1.0 when there is no discordant item.
    """
    n = b + c
    if form == "auto":
        form = "exact" if n < 25 else "chi2-corrected"
    if form not in ("exact", "chi2", "chi2-corrected"):
        raise parameter_error("mcnemar", "item_tests", "'auto', 'exact', 'chi2' or 'chi2-corrected'", form)
    if n == 0:
        return 1.0
    if form == "exact":
        tail = sum(math.comb(n, k) for k in range(min(b, c) + 1)) / 2.0**n
        return min(1.0, 2.0 * tail)
    statistic = (abs(b - c) - (1.0 if form == "chi2-corrected" else 0.0)) ** 2 / n
    return math.erfc(math.sqrt(statistic / 2.0))


def _bootstrap_rows(systems, gold, predictions, item_weights, pairs, measures, resamples, seed, weights, ci) -> dict:
    specs = registry.parse_specs(measures)
    other = [s.base_label for s in specs if s.measure.kind != "point"]
    if other:
        raise ParameterError(
            f"The item bootstrap resamples confusion matrices of hard predictions; {', '.join(other)} "
            "read(s) a threshold sweep: choose point measures (accuracy, f1, mcc, ...)."
        )
    if weights not in ("poisson", "multinomial"):
        raise parameter_error("weights", "item_tests", "'poisson' or 'multinomial'", weights)
    n_systems, n_items = predictions.shape
    # per replicate: the items' weights (int64 and float64), the systems' counts and values
    what = f"The item bootstrap of {n_systems:,} systems on {n_items:,} items"
    _memory.check_replicates(resamples, 16 * n_items + 8 * n_systems * (4 + len(specs)), what)
    # one indicator column per (system, cell): the counts are then one matrix product per replicate set
    cells = np.stack([~gold & ~predictions, ~gold & predictions, gold & ~predictions, gold & predictions], axis=-1)
    indicator = cells.transpose(1, 0, 2).reshape(n_items, n_systems * 4) * item_weights[:, None]
    observed = indicator.sum(axis=0).reshape(n_systems, 2, 2)
    rng = rng_of(seed)
    draws = (
        rng.poisson(1.0, (resamples, n_items))
        if weights == "poisson"
        else rng.multinomial(n_items, np.full(n_items, 1.0 / n_items), size=resamples)
    )
    replicated = (draws.astype(np.float64) @ indicator).reshape(resamples, n_systems, 2, 2)
    q = [(1 - ci) / 2 * 100, (1 + ci) / 2 * 100]
    rows = {
        k: [] for k in ("system_a", "system_b", "measure", "difference", "ci_low", "ci_high", "a_beats_b", "p_value")
    }
    for spec in specs:
        sign = 1.0 if higher_is_better(spec.label) else -1.0
        estimate = api.values_of(spec, observed)
        values = api.values_of(spec, replicated)  # [replicate, system]
        for a, b in pairs:
            d = values[:, a] - values[:, b]
            d = d[~np.isnan(d)]
            rows["system_a"].append(systems[a])
            rows["system_b"].append(systems[b])
            rows["measure"].append(spec.label)
            rows["difference"].append(float(estimate[a] - estimate[b]))
            low, high = np.percentile(d, q) if d.size else (np.nan, np.nan)
            rows["ci_low"].append(float(low))
            rows["ci_high"].append(float(high))
            rows["a_beats_b"].append(float(np.mean(sign * d > 0)) if d.size else np.nan)
            rows["p_value"].append(float(min(1.0, 2 * min(np.mean(d <= 0), np.mean(d >= 0)))) if d.size else np.nan)
    return rows
