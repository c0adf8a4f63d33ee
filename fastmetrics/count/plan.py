"""Pass 1 of counting: any source -> a :class:`CountPlan`.

A plan fixes everything the counting kernels need before they see a row: the count axes and the
labels along each (so every record batch, file and Dask partition is coded alike), the classes,
the threshold grid, the gold join and the missing policy, and one :class:`Encoder` per column.
It is built from a :class:`Survey` -- the distinct values of the columns whose labels are not
known in advance, the score range for ``thresholds=k``, the number of rows -- which is additive:
Dask surveys each partition and merges the surveys on the client.

Count axes are the ``by`` columns followed by *hidden* identity columns: the columns playing the
system and the topic (:class:`~fastmetrics.tensor.Roles`, read by the user's names) when the input has them but
``by`` does not group by them. Items are unique per
(system, topic), so duplicates and missing gold items are checked per (system, topic) even when
the result is pooled; the hidden axes are summed away at the end.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .. import _memory as memory
from .._errors import InputError, ParameterError
from ..io import labels as labels_of
from ..io.labels import empty_input, require_columns
from . import goldindex
from .encoders import (
    Encoder,
    code_text_columns,
    sorted_union,
)
from .goldindex import GoldIndex
from .goldkeys import check_normalised_gold, column_codes, normalised_gold
from .grid import bucket_guide, is_count, threshold_grid
from .options import CountOptions
from .request import DENSE_JOIN_CELLS, Request
from .survey import NeedValues, Survey


@dataclass(frozen=True)
class ItemCodes:
    """The gold's items coded, for the join of runs whose items are not plain strings."""

    item: Encoder  # the gold's items, sorted
    dense: np.ndarray  # int32 (topic, item) -> gold row, or empty
    keys: np.ndarray  # sorted int64 topic * n_items + item (when not dense)
    key_rows: np.ndarray  # gold row of each key


@dataclass
class GoldJoin:
    """A separate gold indexed by (topic, item), for the join in pass 2.

    Holds each gold row's class code and topic code, the gold's string items indexed by topic
    (:mod:`.goldindex`, for runs whose items are strings) and, made on first use, the gold's items
    coded with a (topic, item) -> gold row lookup (:meth:`item_codes`, for runs whose items are
    integers or dictionaries).
    """

    item_column: str  # the runs' name of the item column (error messages)
    topic_axis: int | None  # position of the topic among the count axes, None: join on item
    classes: np.ndarray  # class code per gold row
    topic_codes: np.ndarray  # topic code per gold row
    n_topics: int
    table: pa.Table  # the gold: topic, item, gold
    index: GoldIndex | None = None  # string items by topic
    _codes: ItemCodes | None = field(default=None, repr=False)

    @property
    def n_gold(self) -> int:
        """Number of gold rows."""
        return self.table.num_rows

    def item_codes(self) -> ItemCodes:
        """The gold's items coded and the (topic, item) -> gold row lookup (made once)."""
        if self._codes is None:
            items = self.table.column("item").combine_chunks()
            item = Encoder(
                self.item_column, sorted_union([items], self.item_column), unknown="which the gold does not have"
            )
            key = self.topic_codes * item.size + column_codes(item, items, "gold")
            rows = np.arange(self.n_gold, dtype=np.int32)
            if self.n_topics * item.size <= DENSE_JOIN_CELLS:
                dense = np.full(self.n_topics * item.size, -1, np.int32)
                dense[key] = rows
                self._codes = ItemCodes(item, dense, np.zeros(0, np.int64), np.zeros(0, np.int32))
            else:
                order = np.argsort(key)
                self._codes = ItemCodes(item, np.zeros(0, np.int32), key[order], rows[order])
        return self._codes


@dataclass
class CountPlan:
    """Everything pass 2 needs; see the module docstring."""

    request: Request
    axes: tuple
    hidden: tuple
    encoders: dict  # count axis -> Encoder
    gold: Encoder | None  # gold labels in the runs table
    pred: Encoder | None  # hard predictions
    classes: pa.Array | None  # None: binary
    grid: np.ndarray | None
    join: GoldJoin | None
    item: Encoder | None  # item codes for the duplicate check (no separate gold)

    @property
    def mode(self) -> str:
        """Counting mode of the request: ``"hard"``, ``"sweep"`` or ``"exact"``."""
        return self.request.mode

    @property
    def sizes(self) -> tuple:
        """Number of labels along each count axis."""
        return tuple(self.encoders[c].size for c in self.axes)

    @property
    def n_groups(self) -> int:
        """Number of groups: the product of :attr:`sizes`."""
        return int(np.prod(self.sizes, dtype=np.int64))

    @property
    def m(self) -> int:
        """Number of classes (2 for a binary task)."""
        return 2 if self.classes is None else len(self.classes)

    @property
    def read_columns(self) -> list:
        """Columns pass 2 reads: the axes, the prediction, the weight, the items, the gold."""
        r = self.request
        cols = list(self.axes) + [r.value] + ([r.weight] if r.weight else [])
        cols += [r.item] if (self.join is not None or self.item is not None) else []
        cols += [] if r.has_gold else [r.gold_column]
        return list(dict.fromkeys(cols))

    @property
    def guide(self) -> tuple:
        """How the sweep kernel finds a score's bucket (:func:`~.grid.bucket_guide`)."""
        if not hasattr(self, "_guide"):
            self._guide = bucket_guide(self.grid)
        return self._guide

    def topic_stride(self) -> tuple[int, int]:
        """(stride, size) of the topic digit in a group code; (0, 1) without a topic axis."""
        if self.request.roles.topic not in self.axes:
            return 0, 1
        i = self.axes.index(self.request.roles.topic)
        return int(np.prod(self.sizes[i + 1 :], dtype=np.int64)), self.sizes[i]


def build(request: Request, survey: Survey, label_types: dict, gold: pa.Table | None) -> CountPlan:
    """The plan from the surveyed facts (and a validated gold table)."""
    if survey.rows == 0:
        raise InputError("The input has no rows.")
    labels = _axis_labels(request, survey, label_types, gold)
    classes = _classes(request, survey, label_types, gold)
    given = request.coord_labels
    encoders = {
        c: Encoder(
            c,
            labels[c],
            compact=c in survey.ranges and c not in given,
            unknown="which is not among the coordinates given" if c in given else "which the gold does not know",
        )
        for c in request.axes
    }
    unknown = (
        "which is not among the classes given" if request.classes is not None else "which is not among the classes"
    )
    gold_enc = (
        None if request.has_gold else Encoder(request.gold_column, classes, binary=classes is None, unknown=unknown)
    )
    pred_enc = (
        Encoder(request.pred, classes, binary=classes is None, unknown=unknown) if request.mode == "hard" else None
    )
    _check_memory(request, encoders, classes, survey.rows)
    grid = None
    if request.mode == "sweep":
        grid = threshold_grid(request.thresholds, survey.lo, survey.hi)
    plan = CountPlan(request, request.axes, request.hidden, encoders, gold_enc, pred_enc, classes, grid, None, None)
    if gold is not None:
        plan.join = _gold_join(plan, gold, classes)
    elif request.item in request.columns:
        plan.item = Encoder(request.item, survey.labels(request.item, label_types))
    if classes is not None and request.missing == "negative" and gold is not None:
        raise ParameterError(
            "missing='negative' has no meaning for multiclass labels (there is no negative "
            "class); use 'error' or 'drop'."
        )
    return plan


def _check_memory(request, encoders, classes, rows: int) -> None:
    """Refuse a count whose arrays cannot fit, before any is allocated (see :mod:`fastmetrics._memory`)."""
    groups = int(np.prod([len(encoders[c].labels) for c in request.axes], dtype=np.float64))
    by = ", ".join(request.axes) or "no grouping column"
    if request.mode == "sweep":
        # an array of the wrong shape is refused with its own message by threshold_grid
        k = int(request.thresholds) if is_count(request.thresholds) else int(np.size(request.thresholds))
        # per-thread histograms (groups x 2 x (k + 1)) and the counts tensor (groups x k x 2 x 2), int64
        nbytes = groups * (2 * (k + 1) * 8 + 4 * k * 8) + 8 * k
        what = f"Counting {groups:,} groups ({by}) at {k:,} thresholds"
        ways = "Use fewer thresholds, fewer grouping columns (--by), or count on Dask (--scheduler)"
    elif request.mode == "hard":
        m = 2 if classes is None else len(classes)
        nbytes = groups * m * m * 8 * 2
        what = f"Counting {groups:,} groups ({by}) x {m:,} x {m:,} classes"
        ways = "Use fewer classes (merge rare ones), fewer grouping columns (--by), or count on Dask (--scheduler)"
    else:  # exact: at most one cell per row, plus the rows' codes and their order
        nbytes = rows * (8 + 8 + 32 + 8 * 3)
        what = f"An exact sweep over {rows:,} rows"
        ways = "Use a grid (thresholds=k) instead of 'exact', or count on Dask (--scheduler)"
    memory.check(nbytes, what, ways)


def _axis_labels(request, survey, types, gold) -> dict:
    """Labels along each count axis: given coordinates, the whole range of a narrow integer axis
    (absent labels dropped after counting), or the sorted distinct values met."""
    given, topic = request.coord_labels, request.roles.topic
    gold_topics = gold.column("topic").combine_chunks() if gold is not None and "topic" in gold.column_names else None
    if gold_topics is not None and topic in survey.ranges and topic not in given:
        if not pa.types.is_integer(gold_topics.type):
            raise NeedValues(topic)
        low, high = pc.min_max(gold_topics).values()
        survey.merge(Survey(ranges={topic: (low.as_py(), high.as_py())}))
    ranged = survey.range_labels([c for c in request.axes if c not in given], types)
    labels = {}
    for c in request.axes:
        if c in given:
            labels[c] = _given_coords(survey, c, given[c], types.get(c))
        elif c in ranged:
            labels[c] = ranged[c]
        else:
            arrays = survey.values[c] + ([gold_topics] if gold_topics is not None and c == topic else [])
            labels[c] = sorted_union(arrays, c)
    return labels


def _given_coords(survey, column, given, found_type) -> pa.Array:
    fixed = pa.array(list(given))
    if found_type is not None:
        fixed = fixed.cast(found_type.value_type if pa.types.is_dictionary(found_type) else found_type)
    return fixed


def _classes(request: Request, survey: Survey, label_types: dict, gold: pa.Table | None):
    """None for binary labels, else the class labels (pyarrow Array) of a multiclass task."""
    found, names = [], []
    for c in request.label_columns:
        if pa.types.is_boolean(label_types[c]):
            found.append(pa.array([False, True]))
        else:
            found.append(sorted_union(survey.values[c], c))
        names.append(c)
    if gold is not None:
        found.append(pc.unique(gold.column("gold").combine_chunks()))
        names.append(request.gold_column)
    # a NaN label is no class: left out here, it is refused with its row when the rows are coded
    found = [v.filter(pc.invert(pc.is_nan(v))) if pa.types.is_floating(v.type) else v for v in found]
    binary = all(labels_of.is_binary_like(v) for v in found)
    task = request.task
    if request.mode != "hard" or task == "binary" or (task == "auto" and binary and request.classes is None):
        if not binary:
            col, bad = next((c, v) for c, v in zip(names, found) if not labels_of.is_binary_like(v))
            what = "scores and thresholds need binary gold" if request.mode != "hard" else "task='binary' was asked"
            raise InputError(
                f"Column '{col}' has non-binary values (e.g. {labels_of.non_binary_example(bad)!r}) "
                f"but {what}; multiclass labels need a 'pred' column of classes (task='multiclass')."
            )
        return None
    return labels_of.class_labels(found, names, request.classes)


def _gold_join(plan: CountPlan, gold: pa.Table, classes) -> GoldJoin:
    """Code the gold's topics and classes against the plan and index its items by topic."""
    request = plan.request
    topic = request.roles.topic
    join_on_topic = topic in plan.axes and "topic" in gold.column_names
    if not join_on_topic:
        gold = gold.drop_columns([c for c in ("topic",) if c in gold.column_names])
        check_normalised_gold(gold, ["item"])
    if join_on_topic:
        topic_axis = plan.axes.index(topic)
        topics = column_codes(plan.encoders[topic], gold.column("topic").combine_chunks(), "gold")
        n_topics = plan.encoders[topic].size
    else:
        topic_axis, topics, n_topics = None, np.zeros(gold.num_rows, np.int64), 1
    gold_classes = Encoder("gold", classes, binary=classes is None, unknown="which is not among the classes given")
    codes = column_codes(gold_classes, gold.column("gold").combine_chunks(), "gold")
    items = gold.column("item").combine_chunks()
    # string items: a (topic, item) judged twice is found while they are indexed
    indexed = goldindex.is_string(items.type) and len(items) <= goldindex.MOST_ROWS
    index = goldindex.build(topics, n_topics, items) if indexed else None
    if index is None and join_on_topic:
        check_normalised_gold(gold, ["topic", "item"])
    classes = codes.astype(np.int8 if classes is None else np.int32)
    return GoldJoin(request.item, topic_axis, classes, topics, n_topics, gold, index)


# -- pass 1: the options checked, the columns surveyed, the plan built ---------------------------
def plan(src, gold=None, options: CountOptions | None = None, **keywords) -> CountPlan:
    """Pass 1 over an opened source: survey the columns and build the :class:`CountPlan`.

    When the ranges of the label columns are too wide to encode, the survey runs again and
    collects their distinct values.

    Parameters
    ----------
    src : Source
        An opened input (:func:`fastmetrics.io.open_source`).
    gold : path or table, optional
        Separate gold labels keyed by ``(topic, item)``, as in :func:`count`.
    options : CountOptions, optional
        The count's options; ``unjudged="negative"`` adds the run items the gold lacks to it as
        negatives (:func:`with_unjudged`; binary gold only).
    **keywords
        Without ``options``: the fields of :class:`~.options.CountOptions` to build them from.

    Returns
    -------
    CountPlan
        What pass 2 (:class:`~fastmetrics.count.tally.Tally`) needs to count the record batches.
    """
    options = CountOptions(**keywords) if options is None else options
    request, types, gold_table = prepare(src.column_names, src.schema, src.names[0], gold, options)
    if options.unjudged == "negative" and gold_table is not None:
        gold_table = with_unjudged(src, request, gold_table)
    try:
        return build(request, survey(src, request, types), types, gold_table)
    except NeedValues:
        return build(request, survey(src, request, types, exact=True), types, gold_table)


def with_unjudged(src, request: Request, gold: pa.Table) -> pa.Table:
    """The gold with the (topic, item) pairs the runs hold but the gold lacks added as negatives.

    This is trec_eval's reading of unjudged documents. Items are then the judged ones and every
    one some run returned, so a run lacking an item returned by another run is missing it (see
    ``missing``). The gold is returned unchanged when no item is new, or when the runs' item
    types cannot be cast to the gold's (every run item then stays unknown, and is reported as
    such).
    """
    label_type = gold.schema.field("gold").type
    if not (pa.types.is_boolean(label_type) or pa.types.is_integer(label_type)):
        raise ParameterError(
            f"unjudged='negative' needs binary gold (bool or 0/1); the gold's labels have type {label_type}."
        )
    keys = [c for c in ("topic", "item") if c in gold.column_names]
    columns = [request.roles.topic if c == "topic" else request.item for c in keys]
    require_columns(src.column_names, columns, src.names[0], " to find unjudged items")
    runs = src.read_all(columns)
    try:  # the run's keys as a table of the gold's (topic, item), to join the two
        runs = pa.table({c: runs.column(r).cast(gold.schema.field(c).type) for c, r in zip(keys, columns)})
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return gold  # item types that cannot match: every run item stays unknown, and is reported as such
    found = runs.group_by(keys).aggregate([])
    new = found.join(gold.select(keys), keys=keys, join_type="left anti")
    if new.num_rows == 0:
        return gold
    new = new.append_column("gold", pa.array(np.zeros(new.num_rows, bool)).cast(label_type))
    # the gold's metadata (its file, its own column names) names it in a later error
    return pa.concat_tables([gold, new.select(gold.column_names)]).replace_schema_metadata(gold.schema.metadata)


def survey(src, request: Request, types: dict, exact: bool = False) -> Survey:
    """Pass 1: the :class:`Survey` of the columns the plan needs to know before counting."""
    facts = Survey(ranged=request.ranged, exact=exact, whole=frozenset([request.item]) - set(request.axes))
    read = request.survey_columns(types)
    score = request.score if request.score in read else None
    if not exact:
        # Parquet row-group statistics give integer ranges and the score range without a read
        known = facts.use_statistics(src.statistics(read), types, score)
        read = [c for c in read if c not in known]
    coded = code_text_columns(src, [c for c in read if c != score])
    for name, values in coded.items():  # a coded column's dictionary is its distinct values
        facts.values.setdefault(name, []).extend(values)
    read = [c for c in read if c not in coded]
    for part, offset, batch in src.record_batches(read) if read else ():
        facts.add(batch, part, score, offset, src.known_distinct)
    facts.rows = src.count_rows()
    if facts.rows == 0:
        raise empty_input(src)
    return facts


def prepare(columns, schema, part: str, gold, options: CountOptions):
    """The checked :class:`Request`, the label columns' types and the normalised gold table.

    Parameters
    ----------
    columns : sequence of str
        The input's columns.
    schema : pyarrow.Schema
        The input's schema (the label columns' types).
    part : str
        The input's name, for errors.
    gold : path or table, optional
        A separate gold.
    options : CountOptions
        The count's options.

    Returns
    -------
    tuple
        ``(request, types, gold_table)``.
    """
    # duplicated judgements are found when the plan indexes the gold (plan.build)
    gold_table = (
        normalised_gold(gold, options.item, options.gold_column, topic=options.topic, unique=False)
        if gold is not None
        else None
    )
    request = Request.of(
        options,
        columns=tuple(columns),
        has_gold=gold is not None,
        part=part,
        gold_topics=gold_table is not None and "topic" in gold_table.column_names,
    )
    request.validate()
    types = {f.name: f.type for f in schema}
    return request, types, gold_table
