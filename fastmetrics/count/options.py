"""The options of a count, as one frozen, checked :class:`CountOptions`.

:func:`fastmetrics.count`, :func:`fastmetrics.dask.count` and the command line build one
``CountOptions`` from what the caller asked; it travels unchanged through pass 1
(:mod:`.plan`, where :class:`~.request.Request` adds what the input holds) and pass 2. Every
check that needs only the options -- types, ranges, allowed values and their combinations -- is
made here, once, and names the option at fault; the checks that need the input's columns are
:meth:`.request.Request.validate`'s.
"""

from __future__ import annotations

import dataclasses
import numbers
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from .._errors import ParameterError, parameter_error, suggest
from ..tensor import Roles

MISSING_POLICIES = ("error", "negative", "drop")
UNJUDGED_POLICIES = ("error", "negative")
TASKS = ("auto", "binary", "multiclass")
GRIDS = ("global", "system", "quantile")
TIES = ("input", "item", "trec")
MULTICLASS = ("ovr", "ovo")
THRESHOLD_WORDS = ("exact", "ranks", "topk")

_THRESHOLDS = "None, 'exact', 'ranks', 'topk', an int >= 1 or a non-empty 1-D array of finite floats"
_COLUMN_OPTIONS = ("system", "topic", "pred", "gold_column", "item")


@dataclass(frozen=True)
class CountOptions:
    """What a count is asked to do: the options of :func:`fastmetrics.count`, checked once.

    Immutable and hashable; equal options compare equal whichever spelling built them (a list or a
    tuple of columns, an array or a list of thresholds). A variant is
    ``dataclasses.replace(options, thresholds=11)`` (checked again); a preset is a dict of field
    values, applied by :meth:`from_preset`.

    Parameters
    ----------
    by : str or sequence of str, optional
        Grouping columns, one batch axis each. Default (None): ``(system, topic)``; a string is
        one column. Stored as a tuple.
    system, topic : str, default "system", "topic"
        The columns playing the system and the topic (two different columns).
    pred : str, default "pred"
        The column of hard predictions.
    score : str or sequence of str, default "score"
        The column of scores; for class probabilities a list-typed column or two or more distinct
        columns, one per class (stored as a tuple), none of them a column playing another part.
    thresholds : None, "exact", "ranks", "topk", int or array_like, default None
        None: hard predictions (or an exact sweep of a score alone); ``"exact"``: every distinct
        score of each group; ``"ranks"``: one cell per rank; ``"topk"``: the gold class's rank
        among class probabilities; an int ``k >= 1``: ``k`` evenly spaced thresholds over the score
        range; an array: those thresholds (non-empty, 1-D, finite; stored as a tuple of floats).
    gold_column : str, default "gold"
        The column of gold labels (in the runs, or in a separate gold).
    item : str, default "item"
        The column of items.
    weight : str, optional
        A column of item weights (float64 counts).
    missing : {"error", "negative", "drop"}, default "error"
        What happens to gold items a run lacks (with a separate gold only).
    unjudged : {"error", "negative"}, default "error"
        What happens to run items the separate gold lacks.
    task : {"auto", "binary", "multiclass", "multilabel"}, default "auto"
        The task, or ``"auto"``: decided from the labels.
    classes : sequence, optional
        The classes in the order of the class axes (stored as a tuple); not a string.
    category : str, optional
        The category column of a multilabel input in long form; not a grouping or item column.
    coords : mapping of str to sequence, optional
        Fixed labels, in order, of grouping columns; stored as a tuple of ``(column, labels)``
        pairs (read back as a dict by :attr:`coord_labels`).
    grid : {"global", "system", "quantile"}, default "global"
        With ``thresholds=k``: one grid for the whole input, or each system's own ``k``
        thresholds; a fitted grid needs ``thresholds`` an int.
    ties : {"input", "item", "trec"}, default "input"
        With ``thresholds="ranks"``: the order of items of equal score (input order, increasing
        item id, or trec_eval's decreasing item id).
    multiclass : {"ovr", "ovo"}, default "ovr"
        Class probabilities swept one class against the rest, or per ordered pair of classes.

    Raises
    ------
    ParameterError
        An option of the wrong type, out of range, not among its allowed values, or two options
        that do not go together; the message names the option.

    See Also
    --------
    fastmetrics.count : the meaning of each option in full.
    """

    by: tuple | None = None
    system: str = "system"
    topic: str = "topic"
    pred: str = "pred"
    score: str | tuple = "score"
    thresholds: object = None
    gold_column: str = "gold"
    item: str = "item"
    weight: str | None = None
    missing: str = "error"
    unjudged: str = "error"
    task: str = "auto"
    classes: tuple | None = None
    category: str | None = None
    coords: tuple | None = None
    grid: str = "global"
    ties: str = "input"
    multiclass: str = "ovr"

    def __post_init__(self):
        for option in _COLUMN_OPTIONS:
            _column(option, getattr(self, option))
        if self.weight is not None:
            _column("weight", self.weight)
        if self.category is not None:
            _column("category", self.category)
        Roles(self.system, self.topic, self.item)  # one column cannot play the system and the topic
        object.__setattr__(self, "by", _by(self.by, self.system, self.topic))
        object.__setattr__(self, "score", _score(self.score, [getattr(self, o) for o in _COLUMN_OPTIONS]))
        object.__setattr__(self, "thresholds", _thresholds(self.thresholds))
        object.__setattr__(self, "classes", _classes(self.classes))
        object.__setattr__(self, "coords", _coords(self.coords))
        for option, allowed in (
            ("missing", MISSING_POLICIES),
            ("unjudged", UNJUDGED_POLICIES),
            ("task", TASKS + ("multilabel",)),
            ("grid", GRIDS),
            ("ties", TIES),
            ("multiclass", MULTICLASS),
        ):
            _one_of(option, getattr(self, option), allowed)
        if self.grid != "global" and not _is_count(self.thresholds):
            raise ParameterError(
                f"grid={self.grid!r} fits k thresholds to each system: pass thresholds=k (an int >= 1); "
                f"got thresholds={self.thresholds!r}."
            )
        if self.category is not None and self.category in (self.system, self.topic, self.item, *self.by):
            raise ParameterError(
                f"category='{self.category}' (--category) is also a grouping or item column: the categories of a "
                f"multilabel input need a column of their own."
            )

    @classmethod
    def from_preset(cls, preset: Mapping, **overrides) -> CountOptions:
        """Build the options from a preset (a dict of field values) and the caller's overrides.

        Parameters
        ----------
        preset : mapping of str to object
            Field values, e.g. a scorer's conventions (``{"missing": "negative", "unjudged":
            "negative"}``); the other fields keep their defaults.
        **overrides
            Field values that take precedence over the preset's.

        Returns
        -------
        CountOptions

        Raises
        ------
        ParameterError
            A key that is no field (named, with the closest fields), or any invalid value.
        """
        values = {**preset, **overrides}
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = [k for k in values if k not in names]
        if unknown:
            raise ParameterError(f"{unknown[0]!r} is no count option.{suggest(unknown[0], sorted(names))}")
        return cls(**values)

    @property
    def roles(self) -> Roles:
        """The columns playing the system, the topic and the item."""
        return Roles(self.system, self.topic, self.item)

    @property
    def coord_labels(self) -> dict:
        """The fixed labels of grouping columns, as a dict (empty without ``coords``)."""
        return {column: list(labels) for column, labels in self.coords or ()}


def given_options(options, asked: dict) -> CountOptions:
    """The :class:`CountOptions` of a call: ``options``, or those the keywords ask for.

    Parameters
    ----------
    options : CountOptions or None
        The ``options=`` of the call.
    asked : dict
        The call's count keywords; with ``options``, each must be left at its default.

    Returns
    -------
    CountOptions

    Raises
    ------
    ParameterError
        ``options`` of another type, or given with a count keyword away from its default.
    """
    if options is None:
        return CountOptions(**asked)
    if not isinstance(options, CountOptions):
        raise parameter_error("options", "count", "a CountOptions", options)
    defaults = CountOptions.__dataclass_fields__
    for name, value in asked.items():
        if not _same(value, defaults[name].default):
            raise ParameterError(
                f"count() got {name}= and options= together: give {name} inside the options "
                f"(dataclasses.replace(options, {name}=...))."
            )
    return options


def _same(value, default) -> bool:
    """Whether a keyword is left at its default (arrays compared as what they are, not elementwise)."""
    return value is default or (isinstance(value, str) and value == default)


def _is_count(value) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_))


def _column(option: str, value) -> None:
    if not isinstance(value, str):
        raise parameter_error(option, "count", "a column name (str)", value)


def _one_of(option: str, value, allowed: tuple) -> None:
    if not isinstance(value, str) or value not in allowed:
        words = [repr(a) for a in allowed]
        raise parameter_error(option, "count", ", ".join(words[:-1]) + " or " + words[-1], value)


def _by(by, system: str, topic: str) -> tuple:
    if by is None:
        return (system, topic)
    columns = (by,) if isinstance(by, str) else tuple(by) if isinstance(by, Sequence) else None
    if columns is None or not all(isinstance(c, str) for c in columns):
        raise parameter_error("by", "count", "a column name or a sequence of column names", by)
    return columns


def _score(score, named: list):
    if isinstance(score, str):
        return score
    columns = tuple(score) if isinstance(score, (list, tuple)) else None
    if columns is None or len(columns) < 2 or not all(isinstance(c, str) for c in columns):
        raise parameter_error("score", "count", "a column name, or two or more (one per class)", score)
    if len(set(columns)) < len(columns) or set(columns) & set(named):
        raise ParameterError(
            f"score={list(columns)!r}: each class needs a score column of its own, none of them a column "
            "playing another part."
        )
    return columns


def _thresholds(thresholds):
    """None, a word, an int ``k >= 1`` or a tuple of finite floats (hashable, equal however spelled)."""
    if thresholds is None:
        return None
    if isinstance(thresholds, str):
        if thresholds not in THRESHOLD_WORDS:
            raise parameter_error("thresholds", "count", _THRESHOLDS, thresholds)
        return thresholds
    if _is_count(thresholds):
        if thresholds < 1:
            raise parameter_error("thresholds", "count", _THRESHOLDS, thresholds)
        return int(thresholds)
    try:
        grid = np.asarray(thresholds, dtype=np.float64)
    except (TypeError, ValueError):
        raise parameter_error("thresholds", "count", _THRESHOLDS, thresholds) from None
    if grid.ndim != 1 or grid.size == 0 or not np.all(np.isfinite(grid)):
        raise parameter_error("thresholds", "count", "a non-empty 1-D array of finite floats", thresholds)
    return tuple(grid.tolist())


def _labels(option: str, values) -> tuple:
    if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__") or isinstance(values, Mapping):
        raise parameter_error(option, "count", "a sequence of labels", values)
    if hasattr(values, "to_pylist"):  # a pyarrow array
        values = values.to_pylist()
    elif hasattr(values, "tolist"):  # a numpy array or pandas index: plain Python labels
        values = values.tolist()
    labels = tuple(values)
    try:
        hash(labels)
    except TypeError:
        raise parameter_error(option, "count", "a sequence of labels (numbers, strings, booleans)", values) from None
    return labels


def _classes(classes):
    return None if classes is None else _labels("classes", classes)


def _coords(coords):
    if coords is None:
        return None
    if isinstance(coords, Mapping):
        pairs = coords.items()
    elif isinstance(coords, tuple) and all(isinstance(p, tuple) and len(p) == 2 for p in coords):
        pairs = coords  # already stored: a replace() of other fields
    else:
        raise parameter_error("coords", "count", "a mapping of grouping column -> labels", coords)
    for column, _ in pairs:
        if not isinstance(column, str):
            raise parameter_error("coords", "count", "a mapping of grouping column (str) -> labels", coords)
    return tuple((column, _labels(f"coords['{column}']", labels)) for column, labels in pairs)
