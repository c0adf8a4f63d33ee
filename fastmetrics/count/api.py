"""The count stage: any source in, :class:`~fastmetrics.tensor.ConfusionTensor` out.

``count()`` is open -> plan (pass 1, :mod:`.plan`) -> count record batches (pass 2, :mod:`.tally`)
-> tensor (:mod:`.assemble`). The same plan and kernels serve the Parquet stream,
:mod:`fastmetrics.dask` (one tally per partition, merged) and the resampled counts
(:mod:`.resample`).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .. import _memory as memory
from .._errors import InputError, ParameterError
from .._progress import Progress
from ..io.labels import require_columns
from ..io.native import setting as native_setting
from ..io.source import Source, open_source
from ..tensor import ConfusionTensor, MultilabelTensor
from ._ranks import rank_sweep_of_strings
from .assemble import assemble
from .fitted import fitted_grids, resample_sweep
from .goldkeys import normalised_gold
from .multilabel import count_multilabel, join_gold
from .options import CountOptions, given_options
from .plan import plan
from .probabilities import is_probability_input, probability_rows
from .tables import MATRIX_COLUMNS, from_count_table, from_matrix_table, saved_layout
from .tally import DuplicateItem, Tally

__all__ = ["count"]


COUNT_COLUMNS = ("tp", "fp", "fn", "tn")


def count(
    source,
    gold=None,
    *,
    by=None,
    system="system",
    topic="topic",
    pred="pred",
    score="score",
    thresholds=None,
    gold_column="gold",
    item="item",
    weight=None,
    missing="error",
    format="auto",
    task="auto",
    classes=None,
    category=None,
    coords=None,
    unjudged="error",
    ties="input",
    grid="global",
    multiclass="ovr",
    progress=False,
    native=None,
    options=None,
) -> ConfusionTensor:
    """Count confusion matrices per group (and per threshold) in one pass over the rows.

    Parameters
    ----------
    source : path, list of paths, glob, pyarrow.Table or DataFrame
        Runs in the long input schema (``system, topic, item, gold, pred | score[, weight]``),
        SemEval-style run files, or a table of precomputed counts ``system, topic, tp, fp, fn, tn``.
        Parquet datasets are streamed by record batch.
    gold : path or table, optional
        Separate gold labels keyed by ``(topic, item)``. Without it the input needs a gold column.
    by : str or sequence of str, optional
        Grouping columns, one batch axis each; default ``(system, topic)``. The system and topic
        columns may be absent from the input (one system, one topic) unless named by ``system=``
        or ``topic=``; other grouping columns must exist. A string is one column.
    system, topic : str, default "system", "topic"
        The columns playing the system (duplicates are checked per system, item) and the topic
        (the key joined with a separate gold's ``topic``, or its own ``topic`` column): e.g.
        ``system="annotator"``. Their axes keep the columns' names.
    pred, score : str
        Names of the hard-prediction and score columns. Multiclass probabilities: ``score`` a
        list-typed column (``m`` scores per item, in the order of ``classes``) or a sequence of
        ``m`` column names, one per class (the classes default to the column names); see
        :mod:`fastmetrics.count.probabilities`.
    thresholds : None, "exact", int or array_like, default None
        ``None``: hard predictions from ``pred`` (or an exact sweep if there is only a score);
        ``"exact"``: every distinct score of each group; an int ``k``: ``k`` evenly spaced
        thresholds over the score range of the whole input, interior values rounded to 12
        significant digits and deduplicated (see :mod:`fastmetrics.count.grid`); an array:
        those thresholds. An item is predicted positive iff ``score >= threshold``.
        ``"ranks"``: each group's items ranked by decreasing score, one cell per position
        (``counts[cell, 2, 2]`` with per-cell ``system, topic, rank``: the counts of the top
        ``rank`` items) -- the input of ranking measures such as ``ranked_ap`` and
        ``reciprocal_rank``.
    gold_column, item, weight : str or None
        Column names; ``weight`` (item costs λ_i, Sebastiani (2015, §2.1)) gives float64 counts, and the
        tensor's ``squares`` (each count's sum of squared weights, for confidence intervals).
    missing : {"error", "negative", "drop"}, default "error"
        What happens to gold items a run lacks (with a separate gold only).
    unjudged : {"error", "negative"}, default "error"
        What happens to run items the separate gold lacks: an error, or (``"negative"``, as
        trec_eval reads TREC qrels) they are non-relevant; each topic's items are then the judged
        ones and every one some run returned (use with ``missing="negative"`` for TREC runs).
    format : str, default "auto"
        Input format, see :func:`fastmetrics.read_runs`.
    task : {"auto", "binary", "multiclass", "multilabel"}, default "auto"
        ``auto`` decides from the labels: list-typed gold (or a ``category`` column) is
        multilabel; gold and predictions that are all bool, 0/1 or true/false are binary;
        anything else is multiclass. Scores and thresholds need binary gold.
    classes : sequence, optional
        Multiclass/multilabel: the classes (categories) in the order of the last two axes, e.g.
        the order of an ordinal scale. Default: the sorted union of gold and predicted values.
    category : str, optional
        Multilabel input in long form: one row per (item, category) with boolean ``gold`` and
        ``pred`` flags; see :func:`fastmetrics.count.multilabel.count_multilabel`.
    grid : {"global", "system", "quantile"}, default "global"
        With ``thresholds=k``: one grid over the scores of the whole input, or each system's own
        ``k`` thresholds -- evenly spaced over its own score range, or at quantiles of its own
        scores (see :mod:`fastmetrics.count.fitted`); the result then has the exact sweep's
        layout (``counts[cell, 2, 2]`` with per-cell ``system, topic, threshold``).
    ties : {"input", "item", "trec"}, default "input"
        With ``thresholds="ranks"``: how items of equal score are ordered -- as they come in the
        input (a stable sort, what the SemEval-2016 Task 3 scorer does), by item label, or by
        decreasing item label (trec_eval's order).
    coords : mapping of str to sequence, optional
        Fixed labels (in order) for grouping columns, instead of the sorted labels found in the
        input. A value outside them is an error.
    multiclass : {"ovr", "ovo"}, default "ovr"
        Class probabilities swept (``thresholds="exact"`` or a grid): one binary sweep per class
        against the rest (a ``class`` coordinate), or per ordered pair of classes (``class``,
        ``versus``) for Hand & Till's multiclass AUC. With ``thresholds=None`` probabilities give
        argmax predictions; ``thresholds="topk"`` the rank of the gold class (``counts[..., top_k, 2,
        2]``, read by ``top_k_accuracy``).
    progress : bool, default False
        A progress bar of the rows counted, with the time left, on stderr (on a terminal, for
        inputs that take more than about a second).
    native : bool, optional
        False reads every file (the runs and a gold file) with pyarrow only, instead of
        fastmetrics' own Parquet, CSV and run-file readers; None: ``FASTMETRICS_NATIVE`` (see
        :func:`fastmetrics.io.open_source`). The counts are the same either way.
    options : CountOptions, optional
        All of the options above but ``source``, ``gold``, ``format``, ``progress`` and ``native``,
        as one object (e.g. built once and varied with ``dataclasses.replace``); the keywords it
        holds are then left at their defaults.

    Returns
    -------
    ConfusionTensor
        ``counts[system, topic, 2, 2]``, ``counts[system, topic, threshold, 2, 2]`` for a grid,
        or ``counts[cell, 2, 2]`` with per-cell ``system, topic, threshold`` for an exact sweep;
        ``counts[system, topic, m, m]`` (``classes`` = the class labels) for multiclass; a
        :class:`~fastmetrics.tensor.MultilabelTensor` for multilabel input.

    Raises
    ------
    InputError
        Missing columns, non-binary gold with scores, non-finite scores, duplicated
        ``(system, topic, item)`` anywhere in the input (any batch, row group, file), gold
        items missing from a run, empty input, unreadable files.
    """
    asked = dict(
        by=by,
        system=system,
        topic=topic,
        pred=pred,
        score=score,
        thresholds=thresholds,
        gold_column=gold_column,
        item=item,
        weight=weight,
        missing=missing,
        unjudged=unjudged,
        task=task,
        classes=classes,
        category=category,
        coords=coords,
        grid=grid,
        ties=ties,
        multiclass=multiclass,
    )
    options = given_options(options, asked)
    with native_setting(native):
        src = open_source(source, format=format)
        saved = saved_layout(src.schema).get("roles")
        if saved and (options.system, options.topic) == ("system", "topic") and saved["system"] in src.column_names:
            # counts saved by `fastmetrics count --system COL`, read back with their own parts
            default_by = options.by == ("system", "topic")
            by = None if default_by else options.by
            options = replace(options, system=saved["system"], topic=saved["topic"], by=by)
        check_roles(src.column_names, src.names[0], options.system, options.topic)
        tensor = _count_source(src, gold, options, progress=progress)
        if options.weight is not None and type(tensor) is ConfusionTensor:
            tensor.squares = _weight_squares(src, gold, options, tensor.counts.shape)
        elif type(tensor) is ConfusionTensor and saved_layout(src.schema).get("weighted"):
            tensor.squares = np.full(tensor.counts.shape, np.nan)  # saved weighted counts: squares unknown
        return tensor


def _weight_squares(src, gold, options: CountOptions, shape) -> np.ndarray:
    """Each count's sum of squared weights (:attr:`ConfusionTensor.squares`): the same count with
    the weights squared, so that intervals can take Kish's effective number of items. NaN when
    the weights are in a separate gold table (the runs' rows are counted, not the gold's)."""
    weight = options.weight
    if weight not in src.column_names:
        return np.full(shape, np.nan)
    parts = []
    for part in src.parts:
        table = part if isinstance(part, pa.Table) else part.to_table()
        given = table.column(weight).cast(pa.float64())
        w = pc.multiply(given, given)
        # squares beyond float64's range (overflow, or a nonzero weight squared to 0) are unknown
        if pc.any(pc.or_(pc.is_inf(w), pc.and_(pc.equal(w, 0.0), pc.not_equal(given, 0.0)))).as_py():
            return np.full(shape, np.nan)
        parts.append(table.set_column(table.schema.get_field_index(weight), weight, w))
    squared = _count_source(Source(parts, list(src.names)), gold, options)
    if squared.counts.shape != shape:  # pragma: no cover - the same rows give the same cells
        return np.full(shape, np.nan)
    return squared.counts.astype(np.float64)


def check_roles(columns, where: str, system: str, topic: str) -> None:
    """Refuse one column playing both parts, or a column named to play one that is not there.

    The default names (``system``, ``topic``) may be absent: an input without them is one
    system, or one topic.

    Parameters
    ----------
    columns : sequence of str
        The input's columns.
    where : str
        The input's name, for the error.
    system, topic : str
        The columns playing the system and the topic.
    """
    if system == topic:
        raise ParameterError(f"One column cannot play both the system and the topic: '{system}'.")
    for column, role in ((system, "system"), (topic, "topic")):
        if column != role:
            require_columns(columns, [column], where, f" to play the {role}")


def _count_source(src, gold, options: CountOptions, *, progress=False) -> ConfusionTensor:
    """:func:`count` of an opened source."""
    columns = src.column_names
    group_cols = tuple(c for c in options.by if c in columns or c not in (options.system, options.topic))
    require_columns(columns, group_cols, src.names[0], " to group by")
    thresholds = options.thresholds
    if is_probability_input(columns, src.schema, options.score):
        if options.grid != "global" or options.ties != "input" or options.category is not None:
            raise ParameterError(
                "Class probabilities are swept on one shared grid (thresholds=k), exactly, or by the gold "
                "class's rank: grid=, ties= and category= (--grid, --ties, --category) do not apply to them."
            )
        return _count_probabilities(src, gold, group_cols, options)
    special = _other_forms(src, group_cols, gold, options)
    if special is not None:
        return special
    if options.grid != "global":
        return fitted_sweep(src, gold, options)
    if thresholds == "ranks":
        return rank_sweep(src, gold, options)
    read = _columns_read(src.column_names, group_cols, options)
    if any(_labelled(src.schema.field(c).type) for c in read):
        # text labels are surveyed by reading them (numbers by the files' statistics): decoded
        # once rather than twice; without them, streaming overlaps decoding and counting
        # the survey's distinct values of the label columns are noted as they are decoded (the
        # items' dictionaries are taken whole: their indices are not read twice)
        labels = [c for c in read if c != options.item]
        src = src.loaded(read, min(_LOAD_BUDGET, (memory.limit() or _LOAD_BUDGET) // 4), labels)
    tensor = assemble(src.verified(lambda: _tally(src, gold, options, progress)))
    if options.weight is not None and isinstance(tensor, ConfusionTensor) and not tensor.cells:
        tensor.present = _classes_present(tensor, src, gold, options)
    return tensor


def _tally(src, gold, options: CountOptions, progress: bool) -> Tally:
    """Pass 1 (the plan) and pass 2 (every batch counted) of :func:`_count_source`."""
    count_plan = plan(src, gold, options)
    tally = Tally(count_plan)
    try:
        with Progress(src.count_rows(), "counting rows", quiet=not progress) as bar:
            for part, offset, batch in src.record_batches(count_plan.read_columns):
                tally.add(batch, part, offset)
                bar.advance(batch.num_rows)
    except DuplicateItem as error:
        raise error.located(src) from None
    return tally


def _classes_present(tensor, src, gold, options) -> np.ndarray | None:
    """The classes of each cell's labelling where items of weight 0 hold classes the weighted
    counts lack (scikit-learn: their labels are classes); None where the counts tell."""
    c = tensor.counts
    weighed = (c.sum(axis=-1) + c.sum(axis=-2)) > 0
    if weighed.all():
        return None
    plain = _count_source(src, gold, replace(options, weight=None)).counts
    present = (plain.sum(axis=-1) + plain.sum(axis=-2)) > 0
    return present if plain.shape == c.shape and (present != weighed).any() else None


# A Parquet input is decoded once into memory when its columns take at most this many bytes (at
# 8 bytes a value), and streamed twice (survey, then counting) beyond.
_LOAD_BUDGET = 1 << 30


def _labelled(data_type: pa.DataType) -> bool:
    """Whether a column of this type is surveyed by its distinct values (text, dictionaries)."""
    return pa.types.is_dictionary(data_type) or pa.types.is_string(data_type) or pa.types.is_large_string(data_type)


def _columns_read(columns, group_cols, options: CountOptions) -> list:
    """The columns a count of hard labels or of a sweep reads (those of the input)."""
    pred, score = options.pred, options.score
    value = pred if options.thresholds is None and pred in columns else score
    wanted = [*group_cols, options.system, options.topic, options.item, options.gold_column, value, options.weight]
    return [c for c in dict.fromkeys(wanted) if c in columns]


def _count_probabilities(src, gold, group_cols, options: CountOptions):
    """Class probabilities: the rows of the asked form (:mod:`.probabilities`), counted as any input."""
    thresholds = options.thresholds
    names = ("score", "gold_column", "item", "weight", "classes", "missing", "topic", "thresholds", "multiclass")
    rows, by, counted = probability_rows(src, gold, group_cols=group_cols, **{k: getattr(options, k) for k in names})
    weight = "weight" if options.weight is not None else None
    tensor = count(rows, by=by, weight=weight, task="auto", **counted)
    if thresholds != "topk":
        return tensor
    # the grid -m..-1 over minus the gold's rank: reversed, its cells are top_k = 1..m (not "k": a measure)
    at = tensor.axes.index("threshold")
    counts = np.flip(tensor.counts, axis=at)
    axes = tensor.axes[:at] + ("top_k",) + tensor.axes[at + 1 :]
    coords = {a: tensor.coords[a] for a in axes if a != "top_k"}
    coords["top_k"] = np.arange(1, counts.shape[at] + 1)
    return ConfusionTensor(counts, axes, coords, classes=[0, 1])


def _other_forms(src, group_cols, gold, options: CountOptions):
    """A table of precomputed counts or multilabel input, counted by its own path; else None."""
    columns = src.column_names
    pred, score, gold_column, task = options.pred, options.score, options.gold_column, options.task
    counts_form = all(c in columns for c in COUNT_COLUMNS) and pred not in columns and score not in columns
    matrix_form = all(c in columns for c in MATRIX_COLUMNS) and gold_column not in columns
    if (counts_form or matrix_form) and gold is not None:
        shown = ", ".join(COUNT_COLUMNS if counts_form else MATRIX_COLUMNS)
        raise InputError(
            f"The input {src.names[0]} is a table of counts ({shown}): it is counted already and takes no "
            "separate gold. Drop the gold (--gold)."
        )
    if counts_form:
        return from_count_table(src, group_cols, options.thresholds)
    if matrix_form:
        return from_matrix_table(src, group_cols, options.classes)
    lists = _list_typed(src, gold_column) or (gold is not None and _list_typed(src, pred))
    if task == "multilabel" or options.category is not None or (task == "auto" and lists):
        return _multilabel(src, group_cols, gold, options)
    return None


def _multilabel(src, group_cols, gold, options: CountOptions) -> MultilabelTensor:
    """Multilabel counts, the gold in the runs or (``gold``) a separate table joined to them."""
    pred, item, weight, category = options.pred, options.item, options.weight, options.category
    gold_column = options.gold_column
    if gold is not None and gold_column in src.column_names:
        raise InputError(
            f"The multilabel runs {src.names[0]} carry their own gold categories (column '{gold_column}') and a "
            "separate gold is given too: drop one of them (--gold, or the runs' column)."
        )
    if gold is not None:
        table = join_gold(
            src,
            gold,
            group_cols,
            pred=pred,
            item=item,
            weight=weight,
            category=category,
            missing=options.missing,
            unjudged=options.unjudged,
            gold_column=gold_column,
            topic=options.topic,
        )
        src, gold_column, category = Source([table], src.names[:1]), "gold", None
    return count_multilabel(
        src,
        group_cols,
        gold_column=gold_column,
        pred=pred,
        item=item,
        weight=weight,
        classes=options.classes,
        category=category,
    )


def fitted_sweep(src, gold, options: CountOptions) -> ConfusionTensor:
    """Each system's own ``k`` thresholds, read from the exact sweep (:mod:`fastmetrics.count.fitted`).

    Parameters
    ----------
    src : Source
    gold : path or table, optional
    options : CountOptions
        With ``thresholds=k`` and ``grid`` ``"system"`` or ``"quantile"``.

    Returns
    -------
    ConfusionTensor
        ``counts[cell, 2, 2]`` with per-cell ``system, topic, threshold``.
    """
    k, grid, system = options.thresholds, options.grid, options.system
    exact = count(src, gold, options=replace(options, thresholds="exact", grid="global"))
    if system not in exact.coords:
        raise ParameterError(
            f"grid={grid!r} fits a grid to each system: the input needs a '{system}' column (or "
            "name the column playing the system with system=)."
        )
    return resample_sweep(exact, fitted_grids(exact, k, grid, system), system)


def rank_sweep(src, gold, options: CountOptions) -> ConfusionTensor:
    """Each group's items ranked by decreasing score, counted at every position.

    Parameters
    ----------
    src : Source
    gold : path or table, optional
    options : CountOptions
        With ``thresholds="ranks"``; ``ties`` orders the items of equal score (see :func:`count`).

    Returns
    -------
    ConfusionTensor
        ``counts[cell, 2, 2]`` with per-cell coordinates of the groups and ``rank`` (1 = top).
    """
    by, score, ties, item = options.by, options.score, options.ties, options.item
    fast = _rank_sweep_of_strings(src, gold, options)
    if fast is None and ties == "trec":
        fast = _trec_ordered(src, gold, options)
    if fast is not None:
        return fast
    table = src.read_all()
    by_item = ties in ("item", "trec")
    require_columns(table.column_names, [score] + ([item] if by_item else []), src.names[0], " to rank items")
    values = table.column(score)
    if not (pa.types.is_integer(values.type) or pa.types.is_floating(values.type)):
        raise InputError(f"Column '{score}' has type {values.type}; ranking needs numeric scores.")
    bad = np.flatnonzero(~np.isfinite(values.to_numpy(zero_copy_only=False).astype(np.float64)))
    if bad.size:
        raise InputError(
            f"Column '{score}' has no finite score at row {int(bad[0])} of {src.names[0]}: ranking "
            "needs a finite score for every item."
        )
    keys = [c for c in by if c in table.column_names]
    table = table.append_column("__row", pa.array(np.arange(table.num_rows)))
    order = [(c, "ascending") for c in keys] + [(score, "descending")]
    # trec_eval's qsort: equal scores by decreasing document id (strcmp, bytes)
    order += [(item, "descending" if ties == "trec" else "ascending")] if by_item else []
    table = table.take(pc.sort_indices(table, sort_keys=order + [("__row", "ascending")]))
    first = np.zeros(table.num_rows, bool)
    first[0] = True
    for c in keys:
        column = table.column(c).combine_chunks()
        first[1:] |= ~np.asarray(pc.equal(column[1:], column[:-1]).fill_null(False))
    start = np.maximum.accumulate(np.where(first, np.arange(table.num_rows), 0))
    rank = np.arange(table.num_rows) - start + 1
    table = table.append_column("__rank_score", pa.array(-rank.astype(np.float64)))
    ranked = replace(options, score="__rank_score", thresholds="exact", ties="input")
    tensor = count(table.drop_columns(["__row"]), gold, options=ranked)
    coords = {c: v for c, v in tensor.coords.items() if c != "threshold"}
    coords["rank"] = (-tensor.coords["threshold"]).astype(np.int64)
    return ConfusionTensor(
        tensor.counts, tensor.axes, coords, coord_axes={c: "cell" for c in coords}, classes=tensor.classes
    )


def _trec_ordered(src, gold, options: CountOptions):
    """trec_eval's order of equal scores (decreasing item id) by one Arrow sort of the rows, then
    the string path in input order; None where that path does not apply (the general path then
    counts, and names any error by the rows of the input itself)."""
    by, score, item = options.by, options.score, options.item
    names = src.column_names
    if item not in names or score not in names or not all(c in names for c in by):
        return None
    table = src.read_all()
    keys = [(c, "ascending") for c in by] + [(score, "descending"), (item, "descending")]
    ordered = open_source(table.take(pc.sort_indices(table, sort_keys=keys)))
    return _rank_sweep_of_strings(ordered, gold, replace(options, ties="input"))


def _rank_sweep_of_strings(src, gold, options: CountOptions, levels=None):
    """:func:`rank_sweep` by :mod:`._ranks` (string ids hashed once, no Arrow join), or None for
    an input that path does not cover: the general path then counts it, or names its error.
    With ``levels``, one sweep a grade level (see :func:`rank_sweeps_at_levels`)."""
    system, topic, item = options.system, options.topic, options.item
    columns = (system, topic, item, options.score)
    if (
        gold is None
        or options.ties not in ("input", "trec")
        or options.by != (system, topic)
        or any(getattr(options, k) is not None for k in ("weight", "coords", "classes"))
        or options.task not in ("auto", "binary")
        or options.unjudged not in ("error", "negative")
        or len(set(columns)) < 4
        or not all(c in src.column_names for c in columns)
    ):
        return None
    gold_table = normalised_gold(gold, item, options.gold_column, topic=topic, unique=False)
    if "topic" not in gold_table.column_names:
        return None
    runs = src.read_all(list(columns))
    try:
        return rank_sweep_of_strings(
            runs,
            gold_table,
            missing=options.missing,
            unjudged=options.unjudged,
            columns=columns,
            ties=options.ties,
            levels=levels,
        )
    except InputError:  # a (topic, item) judged twice: named as the general path names it (file, rows)
        normalised_gold(gold, item, options.gold_column, topic=topic)
        raise


def rank_sweeps_at_levels(source, gold, levels, *, ties="input", format="auto", native=None, **options):
    """Ranks sweeps of string-keyed runs at several grade levels in one pass, or None.

    Parameters
    ----------
    source : path or table
        The runs, as :func:`count` reads them.
    gold : pyarrow.Table
        ``topic, item`` and numeric grades (``gold_column``).
    levels : sequence of float
        Sweep ``j`` counts "grade >= levels[j]" as the positive class.
    ties : {"input", "trec"}, default "input"
    format : str, default "auto"
    native : bool, optional
    **options
        :func:`count`'s roles (``system``, ``topic``, ``item``, ``score``, ``gold_column``) and
        ``missing``, ``unjudged``.

    Returns
    -------
    tuple of ConfusionTensor or None
        One ranks sweep a level, the same cells in each; None where the one-pass path does not
        apply (the caller then counts each level with :func:`count`, which names any error).
    """
    named = dict(system="system", topic="topic", item="item", score="score", gold_column="gold") | options
    asked = CountOptions(by=(named["system"], named["topic"]), thresholds="ranks", ties=ties, **named)
    with native_setting(native):
        src = open_source(source, format=format)
        if saved_layout(src.schema).get("roles") or _list_typed(src, asked.score):
            return None
        return _rank_sweep_of_strings(src, gold, asked, levels=levels)


def _list_typed(src, column: str) -> bool:
    if column not in src.column_names:
        return False
    field_type = src.schema.field(column).type
    return pa.types.is_list(field_type) or pa.types.is_large_list(field_type)
