"""Pass 1 of counting: any source -> a :class:`CountPlan`.

A plan fixes everything the counting kernels need before they see a row: the count axes and the
labels along each (so every record batch, file and Dask partition is coded alike), the classes,
the threshold grid, the gold join and the missing policy, and one :class:`Encoder` per column.
It is built from a :class:`Survey` -- the distinct values of the columns whose labels are not
known in advance, the score range for ``thresholds=k``, the number of rows -- which is additive:
Dask surveys each partition and merges the surveys on the client.

Count axes are the ``by`` columns followed by *hidden* identity columns: the columns playing the
system and the topic (:class:`Roles`, read by the user's names) when the input has them but
``by`` does not group by them. Items are unique per
(system, topic), so duplicates and missing gold items are checked per (system, topic) even when
the result is pooled; the hidden axes are summed away at the end.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .. import _memory as memory
from .._errors import InputError, ParameterError, parameter_error
from ..io import labels as labels_of
from ..io.gold import GOLD_FILE
from ..io.gold import gold_table as load_gold
from ..io.labels import require_columns, where
from ..tensor import Roles
from . import goldindex
from ._kernels import N_KINDS, _rows_chunk
from .encoders import ABSENT_COLUMN, Encoder, distinct, no_nulls, score_range, score_view, sorted_union
from .goldindex import GoldIndex
from .grid import bucket_guide, is_count, threshold_grid

MISSING_POLICIES = ("error", "negative", "drop")
TASKS = ("auto", "binary", "multiclass")
# a (topic, item) -> gold row table is dense up to this many cells, else binary search
DENSE_JOIN_CELLS = 1 << 25


@dataclass(frozen=True)
class Request:
    """What the caller asked for, checked against the input's columns."""

    columns: tuple
    by: tuple
    pred: str = "pred"
    score: str = "score"
    thresholds: object = None
    gold_column: str = "gold"
    roles: Roles = Roles()
    weight: str | None = None
    missing: str = "error"
    task: str = "auto"
    classes: object = None
    coords: dict | None = None
    has_gold: bool = False
    gold_topics: bool = False  # the separate gold has a topic column (joined on topic, item)
    part: str = "<table>"

    @property
    def item(self) -> str:
        """The column holding the items."""
        return self.roles.item

    @property
    def mode(self) -> str:
        """Counting mode: ``"hard"`` (predicted labels), ``"sweep"`` (a threshold grid) or ``"exact"``.

        Without thresholds, a ``pred`` column means hard counting and a ``score`` column alone an
        exact sweep; an input with neither is an error.
        """
        if isinstance(self.thresholds, str):
            if self.thresholds != "exact":
                raise parameter_error(
                    "thresholds", "count", "None, 'exact', an int >= 1 or an array of floats", self.thresholds
                )
            return "exact"
        if self.thresholds is not None:
            return "sweep"
        if self.pred in self.columns:
            return "hard"
        if self.score in self.columns:
            return "exact"
        raise InputError(
            f"The input has neither a '{self.pred}' column (hard predictions) nor a '{self.score}' "
            f"column (scores); columns present: {', '.join(self.columns)}."
        )

    @property
    def axes(self) -> tuple:
        """Count axes: the ``by`` columns, then the hidden identity columns (system, topic) present."""
        roles = self.roles
        shown = tuple(c for c in self.by if c in self.columns or c not in roles.identity)
        # a gold without topics is joined on the item alone: then the topic is no identity
        identity = tuple(c for c in roles.identity if c != roles.topic or not self.has_gold or self.gold_topics)
        return shown + tuple(c for c in identity if c in self.columns and c not in shown)

    @property
    def hidden(self) -> tuple:
        """Count axes the caller did not group by: summed away once duplicates are checked."""
        return tuple(c for c in self.axes if c not in self.by)

    @property
    def value(self) -> str:
        """Column holding the prediction: ``pred`` for hard counting, ``score`` otherwise."""
        return self.pred if self.mode == "hard" else self.score

    @property
    def label_columns(self) -> list:
        """Columns of the input holding class labels: the prediction (hard mode) and the gold."""
        return ([self.pred] if self.mode == "hard" else []) + ([] if self.has_gold else [self.gold_column])

    @property
    def dedup(self) -> bool:
        """Whether items are checked for duplicates (there is an item column or a separate gold)."""
        return self.has_gold or self.item in self.columns

    def validate(self) -> None:
        """Check the options and that the input has the columns they need; raise on the first problem."""
        if self.missing not in MISSING_POLICIES:
            raise parameter_error("missing", "count", "one of " + ", ".join(MISSING_POLICIES), self.missing)
        if self.task not in TASKS + ("multilabel",):
            raise parameter_error("task", "count", "one of " + ", ".join(TASKS + ("multilabel",)), self.task)
        if self.mode != "hard" and self.task == "multiclass":
            raise ParameterError(
                "Multiclass counting needs hard predictions (a 'pred' column of class labels); "
                "thresholds and scores apply to binary gold."
            )
        require_columns(self.columns, [c for c in self.by if c not in self.roles.identity], self.part, " to group by")
        require_columns(self.columns, [self.value] + ([self.weight] if self.weight else []), self.part)
        if self.has_gold:
            require_columns(self.columns, [self.item], self.part, " to join the gold")
            topic = self.roles.topic
            if topic in self.by and topic in self.columns and not self.gold_topics:
                raise InputError(
                    f"Grouping by topic needs a '{topic}' column in the runs and a topic column in the gold "
                    f"('{topic}' or 'topic')."
                )
        else:
            require_columns(self.columns, [self.gold_column], self.part, " (or pass a separate gold)")

    @property
    def ranged(self) -> frozenset:
        """Columns pass 1 may survey by their range alone (integer axes and items)."""
        return frozenset(c for c in self.axes + (self.item,) if c not in (self.coords or ()))

    def survey_columns(self, label_types: dict) -> list:
        """List the columns pass 1 reads.

        Those are the axes without given labels, the non-boolean label columns, the items
        (duplicates are found per item code) and the score for a grid over its range.
        """
        fixed = set(self.coords or ())
        cols = [c for c in self.axes if c not in fixed]
        cols += [c for c in self.label_columns if not pa.types.is_boolean(label_types[c])]
        if self.item in self.columns and not self.has_gold:
            cols.append(self.item)
        if self.mode == "sweep" and is_count(self.thresholds):
            cols.append(self.score)
        return list(dict.fromkeys(cols))


# An integer axis whose values span at most this many is counted over its whole range and the
# labels without rows are dropped afterwards: pass 1 then needs only its min and max.
RANGE_AXIS = 1 << 16
RANGE_GROUPS = 1 << 24


def _min_max(columns, part, names) -> list:
    """(min, max) of integer columns; Arrow's kernel is single-threaded, so two large columns
    are scanned side by side (it releases the GIL)."""
    for column, name in zip(columns, names):
        no_nulls(column, name, part)
    if len(columns) > 1 and len(columns[0]) > (1 << 20):
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(len(columns)) as pool:
            found = list(pool.map(pc.min_max, columns))
    else:
        found = [pc.min_max(c) for c in columns]
    return [(low.as_py(), high.as_py()) for low, high in (f.values() for f in found)]


class NeedValues(Exception):
    """Ranges alone do not fit (too wide): survey again with the distinct values."""


@dataclass
class Survey:
    """Additive facts about the rows, gathered by pass 1.

    The facts are the distinct values per column (or, for integer axes, only their range), the
    score range and the number of rows; surveys of partitions merge into the survey of the whole.

    ``ranged``: columns that may be surveyed by their range alone (integer axes and items); with
    ``exact=True`` every column gets its distinct values (a partition survey, merged later).
    ``whole``: columns whose dictionaries are taken whole, values without rows included -- the
    items, whose labels are only the key space of the duplicate check, not coordinates -- so
    their indices are not scanned.
    """

    values: dict = field(default_factory=dict)
    ranges: dict = field(default_factory=dict)
    lo: float = np.inf
    hi: float = -np.inf
    rows: int = 0
    ranged: frozenset = frozenset()
    exact: bool = False
    whole: frozenset = frozenset()

    def add(self, batch: pa.RecordBatch, part, score: str | None, offset: int = 0) -> None:
        """Add one batch whose first row is row ``offset`` of ``part`` (for error messages)."""
        self.rows += batch.num_rows
        ranged = [
            n
            for n in batch.schema.names
            if n in self.ranged and pa.types.is_integer(batch.schema.field(n).type) and not self.exact
        ]
        for name, (low, high) in zip(ranged, _min_max([batch.column(n) for n in ranged], part, ranged)):
            old = self.ranges.get(name)
            self.ranges[name] = (low, high) if old is None else (min(old[0], low), max(old[1], high))
            if high - low >= RANGE_AXIS:
                self.values.setdefault(name, []).append(distinct(batch.column(name)))
        for name in batch.schema.names:
            if name == score:
                self._score(batch.column(name), name, part, offset)
            elif name not in ranged:
                column = batch.column(name)
                no_nulls(column, name, part, offset)
                if name in self.whole and pa.types.is_dictionary(column.type) and not column.dictionary.null_count:
                    self.values.setdefault(name, []).append(column.dictionary)
                else:
                    self.values.setdefault(name, []).append(distinct(column))

    def use_statistics(self, stats: dict, types: dict, score: str | None) -> set:
        """Take ranges from column statistics (min, max): integer axes and a finite score range.

        Returns the columns settled this way, which pass 1 then need not read.
        """
        known = set()
        for name, (low, high) in stats.items():
            if name == score and isinstance(low, float) and np.isfinite(low) and np.isfinite(high):
                self.lo, self.hi = min(self.lo, low), max(self.hi, high)
            elif name in self.ranged and pa.types.is_integer(types[name]) and high - low < RANGE_AXIS:
                self.ranges[name] = (int(low), int(high))
            else:
                continue
            known.add(name)
        return known

    def _score(self, column, name, part, offset):
        values = score_view(column, name, part)
        errors = np.full((1, N_KINDS), -1, np.int64)
        lo, hi = score_range(values, errors)
        if errors.max() >= 0:
            row = int(errors.max())
            raise InputError(
                f"Column '{name}'{where(part)} has the non-finite value "
                f"{values[row].item()!r} at row {offset + row}; scores must be finite numbers."
            )
        self.lo, self.hi = min(self.lo, lo), max(self.hi, hi)

    def merge(self, other: Survey) -> Survey:
        """Add the facts of ``other`` (another partition's survey) to this one and return it."""
        for name, arrays in other.values.items():
            self.values.setdefault(name, []).extend(arrays)
        for name, (low, high) in other.ranges.items():
            old = self.ranges.get(name)
            self.ranges[name] = (low, high) if old is None else (min(old[0], low), max(old[1], high))
        self.lo, self.hi, self.rows = min(self.lo, other.lo), max(self.hi, other.hi), self.rows + other.rows
        return self

    def range_labels(self, names, types) -> dict:
        """Labels of the integer axes counted over their whole range: ``arange(lo, hi + 1)``."""
        out, groups = {}, 1
        for name in names:
            if name not in self.ranges:
                continue
            low, high = self.ranges[name]
            if name in self.values or high - low >= RANGE_AXIS:
                raise NeedValues(name)
            groups *= high - low + 1
            out[name] = pa.array(np.arange(low, high + 1), type=types[name])
        if groups > RANGE_GROUPS:
            raise NeedValues(names[0])
        return out

    def labels(self, name: str, types=None) -> pa.Array:
        """Sorted labels of one column: its whole range (a narrow integer axis) or its distinct values."""
        if name in self.ranges:
            return self.range_labels([name], types)[name]
        return sorted_union(self.values[name], name)


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
    given = request.coords or {}
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
    given, topic = request.coords or {}, request.roles.topic
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
    index = goldindex.build(topics, n_topics, items) if goldindex.is_string(items.type) else None
    if index is None and join_on_topic:
        check_normalised_gold(gold, ["topic", "item"])
    classes = codes.astype(np.int8 if classes is None else np.int32)
    return GoldJoin(request.item, topic_axis, classes, topics, n_topics, gold, index)


def column_codes(encoder: Encoder, array: pa.Array, part) -> np.ndarray:
    """Codes of a whole (small) column, e.g. of the gold table; -1 is an error here."""
    n = len(array)
    codes, unused = np.empty(n, np.int64), np.empty(n, np.int64)
    err = np.full(N_KINDS, -1, np.int64)
    _rows_chunk(
        0,
        n,
        encoder.encode(array, part),
        ABSENT_COLUMN,
        1,
        ABSENT_COLUMN,
        ABSENT_COLUMN,
        codes,
        unused,
        np.zeros(0, np.int64),
        err,
    )
    if err.max() >= 0:
        raise encoder.explain(array, int(err.max()), part)
    return codes


def check_unique_gold(gold: pa.Table, keys: list, name: str | None = None) -> None:
    """Raise an :class:`InputError` naming the first ``keys`` value the gold has more than once.

    The message names the rows holding it (of the file ``name``, when the gold is one file).
    """
    grouped = gold.select(keys).group_by(keys).aggregate([([], "count_all")])
    dup = grouped.filter(pc.greater(grouped.column("count_all"), 1))
    if not dup.num_rows:
        return
    where = ", ".join(f"{k}={dup.column(k)[0].as_py()!r}" for k in keys)
    mask = None
    for k in keys:
        same = pc.equal(gold.column(k), dup.column(k)[0])
        mask = same if mask is None else pc.and_(mask, same)
    rows = np.flatnonzero(mask.to_numpy(zero_copy_only=False))
    shown = ", ".join(map(str, rows[:4].tolist())) + (" ..." if rows.size > 4 else "")
    of = f"of '{name}'" if name else "of the gold table"
    raise InputError(f"The gold has ({', '.join(keys)}) = ({where}) more than once (rows {shown} {of}).")


def check_normalised_gold(gold: pa.Table, keys: list) -> None:
    """Run :func:`check_unique_gold` on a :func:`normalised_gold` table.

    The message names the gold's own columns and its file, as before the gold was normalised."""
    meta = gold.schema.metadata or {}
    own = dict(pair.split("\0") for pair in meta.get(_GOLD_NAMES, b"").decode().split("\0\0") if "\0" in pair)
    if all(c in own for c in gold.column_names):
        gold = gold.rename_columns([own[c] for c in gold.column_names])
        keys = [own[k] for k in keys]
    check_unique_gold(gold, keys, meta.get(GOLD_FILE, b"").decode() or None)


# schema metadata of a normalised gold: each column's name and the gold's own name for it
_GOLD_NAMES = b"fastmetrics.gold_columns"


def normalised_gold(gold, item: str, gold_column: str, *, topic: str = "topic", unique: bool = True) -> pa.Table:
    """A separate gold as a table ``[topic,] item, gold`` (validated: no nulls, unique keys).

    Parameters
    ----------
    gold : path or pyarrow.Table
    item, gold_column : str
        The gold's item and label columns when it has them (else ``item`` and ``gold``).
    topic : str, default "topic"
        The runs' topic column: the gold's topic when it has that column (else its ``topic``).
    unique : bool, default True
        Check that no ``(topic, item)`` is judged twice; a caller that finds duplicates on its own
        (:mod:`._ranks` and :mod:`.goldindex`, in their hash tables; :func:`build` checks the rest
        by :func:`check_normalised_gold`) skips the group-by.

    Returns
    -------
    pyarrow.Table
        The gold's own topic, item and label columns under the names ``topic``, ``item`` and
        ``gold``: the count stage's name for its gold, never the runs' columns.
    """
    table = load_gold(gold)
    names = table.column_names
    item = item if item in names else "item"
    label = gold_column if gold_column in names else "gold"
    topic = topic if topic in names else "topic" if "topic" in names else None
    one_file = (table.schema.metadata or {}).get(GOLD_FILE, b"").decode() or None
    require_columns(
        names, [item, label], str(gold) if isinstance(gold, (str, os.PathLike)) else "gold", " of a gold table"
    )
    own = ([topic] if topic else []) + [item, label]
    table = table.select(own)
    if table.num_rows == 0:
        raise InputError("The gold table has no rows.")
    for name in own:
        if table.column(name).null_count:
            raise InputError(f"Column '{name}' in 'gold' has a missing (null) value.")
    if pa.types.is_dictionary(table.schema.field(item).type):
        table = table.set_column(
            own.index(item), item, table.column(item).cast(table.schema.field(item).type.value_type)
        )
    if unique:
        check_unique_gold(table, own[:-1], one_file)  # in the gold's own names
    names = (["topic"] if topic else []) + ["item", "gold"]
    pairs = "\0\0".join(f"{name}\0{mine}" for name, mine in zip(names, own)).encode()
    kept = {_GOLD_NAMES: pairs} | ({GOLD_FILE: one_file.encode()} if one_file else {})
    # (renaming drops a schema's metadata)
    return table.rename_columns(names).replace_schema_metadata({**(table.schema.metadata or {}), **kept})


def gold_keys_like(gold: pa.Table, runs: pa.Table, keys: list, run_keys: list) -> pa.Table:
    """Cast the gold's key columns ``keys`` to the types of the runs' ``run_keys``, for a join.

    A key that does not convert is an :class:`InputError`.

    Parameters
    ----------
    gold, runs : pyarrow.Table
    keys, run_keys : list of str
        The join keys in each.

    Returns
    -------
    pyarrow.Table
    """
    for key, run_key in zip(keys, run_keys):
        target = runs.schema.field(run_key).type
        try:
            gold = gold.set_column(gold.column_names.index(key), key, gold.column(key).cast(target))
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError):
            raise InputError(
                f"Column '{key}' of the gold has type {gold.schema.field(key).type}, which does not convert to the "
                f"runs' '{run_key}' type {target}: the gold cannot be joined to the runs."
            ) from None
    return gold
