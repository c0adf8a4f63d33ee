"""Random halves of each topic's items, the same for every system (held-out threshold selection),
and the counts of each half."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .._errors import InputError
from .._seeding import rng_of
from ..io.gold import gold_table as load_gold
from ..io.labels import require_columns
from ..io.source import open_source
from ..tensor import ConfusionTensor
from .api import count
from .fitted import fitted_grids, resample_sweep
from .grid import threshold_grid


def with_halves(table, seed: int = 0, *, topic: str | None = "topic", item: str = "item", column: str = "half"):
    """The table with a column ``half`` (0 or 1) splitting each topic's items at random.

    The two halves have equal size (one more in half 0 when odd); the split is the same for every
    system.

    What threshold selection on held-out items counts by (``select="split-half"``).

    Parameters
    ----------
    table : pyarrow.Table
        Runs with an item column (and a topic column, if any).
    seed : int, default 0
    topic, item, column : str
        Column names (``topic=None``: one topic).

    Returns
    -------
    pyarrow.Table
    """
    require_columns(table.column_names, [item], "the input", " to split items into halves")
    topic = topic if topic in table.column_names else None
    keys = [c for c in (topic, item) if c is not None]
    joined = (
        pc.binary_join_element_wise(*[pc.cast(table.column(c), pa.string()) for c in keys], "\x1f")
        if len(keys) > 1
        else pc.cast(table.column(item), pa.string())
    )
    encoded = pc.dictionary_encode(joined).combine_chunks()
    distinct = encoded.dictionary
    n = len(distinct)
    group = np.zeros(n, np.int64)
    if topic is not None:
        first = pc.dictionary_encode(pc.cast(table.column(topic), pa.string())).combine_chunks()
        owner = np.zeros(n, np.int64)
        owner[encoded.indices.to_numpy()] = first.indices.to_numpy()
        group = owner
    rng = rng_of(seed)
    half = np.zeros(n, np.int8)
    for g in np.unique(group):
        members = np.flatnonzero(group == g)
        half[rng.permutation(members)[(members.size + 1) // 2 :]] = 1
    return table.append_column(column, pa.array(half[encoded.indices.to_numpy()]))


def halves_sweep(source, gold=None, *, thresholds, grid="global", seed=0, by=None, **options):
    """A threshold sweep of each half of every topic's items.

    The input of ``split-half`` threshold selection (:func:`fastmetrics.board.best_thresholds`).

    Each topic's items (those of the separate gold, or of the runs) are split at random into two
    halves, the same split for every system (:func:`fastmetrics.count.resample.with_halves`);
    both halves are swept at the same thresholds -- one grid over all scores, or each system's
    own grid fitted on all of its scores -- so a threshold chosen on one half can be scored on
    the other.

    Parameters
    ----------
    source, gold
        As in :func:`count`.
    thresholds : int or array_like
        A grid.
    grid : {"global", "system", "quantile"}, default "global"
    seed : int, default 0
        Of the split.
    by : sequence of str, optional
        Default: the columns playing the system and the topic.
    **options
        The other options of :func:`count` (``system``, ``topic``, ``item``, ``score``, ``missing``, ...).

    Returns
    -------
    ConfusionTensor
        ``counts[system, topic, half, threshold, 2, 2]`` for a global grid, or ``counts[cell, 2, 2]``
        with per-cell ``system, topic, half, threshold`` for fitted grids.
    """
    src = open_source(source)
    table, item, topic = src.read_all(), options.get("item", "item"), options.get("topic", "topic")
    by = (options.get("system", "system"), topic) if by is None else by
    require_columns(table.column_names, [item], src.names[0], " to split each topic's items into halves")
    runs_keys = [c for c in (topic, item) if c in table.column_names]
    # the items are the gold's when it is separate (it defines them), else the runs'
    gold = load_gold(gold) if gold is not None else None
    keys_from, keys = table, runs_keys
    if gold is not None:
        names = gold.column_names  # keyed by the runs' names, or by its own topic and item
        own = {c: c if c in names else default for c, default in ((topic, "topic"), (item, "item"))}
        runs_keys = [c for c in runs_keys if own[c] in names]
        keys_from, keys = gold, [own[c] for c in runs_keys]
    split = with_halves(keys_from.select(keys), seed, topic=keys[0] if len(keys) > 1 else None, item=keys[-1])
    halves = split.group_by(keys).aggregate([("half", "min")]).select([*keys, "half_min"])
    halves = halves.rename_columns([*keys, "half"])
    if gold is not None:
        gold = gold.join(halves, keys=keys, join_type="left outer")
    table = table.join(halves.rename_columns([*runs_keys, "half"]), keys=runs_keys, join_type="left outer")
    table = table.set_column(table.column_names.index("half"), "half", pc.fill_null(table.column("half"), 0))
    ends = pc.min_max(table.column("half")).as_py()
    if table.num_rows and ends["min"] == ends["max"]:
        raise InputError(
            f"Split-half selection (--select split-half) splits each topic's items into two halves; no topic of "
            f"{src.names[0]} has two items, so one half is empty. Choose on other topics (--select cross-topic) "
            "or on the same items (--select same)."
        )
    whole = count(table, gold, by=by, thresholds="exact", **options)
    labels = {
        c: np.asarray(list(dict.fromkeys(whole.coords[c].tolist())), dtype=whole.coords[c].dtype)
        for c in by
        if c in whole.coords
    }
    system = options.get("system", "system")
    if grid != "global":
        fitted = fitted_grids(whole, int(thresholds), grid, system)
    else:
        lo, hi = float(np.min(whole.coords["threshold"])), float(np.max(whole.coords["threshold"]))
        fitted = threshold_grid(thresholds, lo, hi)
    parts = []
    for h in (0, 1):
        rows = table.filter(pc.equal(table.column("half"), h)).drop_columns(["half"])
        part_gold = gold.filter(pc.equal(gold.column("half"), h)).drop_columns(["half"]) if gold is not None else None
        if grid == "global":
            parts.append(count(rows, part_gold, by=by, thresholds=fitted, coords=labels, **options))
        else:
            exact = count(rows, part_gold, by=by, thresholds="exact", coords=labels, **options)
            parts.append(resample_sweep(exact, fitted, system))
    return _stack_halves(parts)


def _stack_halves(parts: list) -> ConfusionTensor:
    first, second = parts
    if first.axes != ("cell",):
        counts = np.stack([first.counts, second.counts], axis=first.axes.index("threshold"))
        axes = list(first.axes)
        axes.insert(axes.index("threshold"), "half")
        return ConfusionTensor(counts, axes, {**first.coords, "half": np.array([0, 1])}, classes=first.classes)
    coords = {c: np.concatenate([first.coords[c], second.coords[c]]) for c in first.coords}
    coords["half"] = np.repeat([0, 1], [first.counts.shape[0], second.counts.shape[0]])
    return ConfusionTensor(
        np.concatenate([first.counts, second.counts]),
        ("cell",),
        coords,
        coord_axes={c: "cell" for c in coords},
        classes=first.classes,
    )
