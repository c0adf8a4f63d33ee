"""What a count is asked to do on one input: the :class:`~.options.CountOptions` and the facts
of the input they are checked against, as one frozen :class:`Request`."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import pyarrow as pa

from .._errors import InputError, ParameterError, parameter_error
from ..io.labels import require_columns
from .grid import is_count
from .options import CountOptions

# a (topic, item) -> gold row table is dense up to this many cells, else binary search
DENSE_JOIN_CELLS = 1 << 25


@dataclass(frozen=True)
class Request(CountOptions):
    """The count options and what the input holds (its columns, a separate gold), checked together.

    Parameters
    ----------
    columns : tuple of str
        The input's columns.
    has_gold : bool
        Whether a separate gold is given.
    gold_topics : bool
        Whether the separate gold has a topic column (joined on topic and item).
    part : str
        The input's name, for errors.
    **options
        The fields of :class:`~.options.CountOptions`.
    """

    columns: tuple = ()
    has_gold: bool = False
    gold_topics: bool = False
    part: str = "<table>"

    @classmethod
    def of(cls, options: CountOptions, **facts) -> Request:
        """The request of ``options`` on an input described by ``facts`` (the fields above).

        Parameters
        ----------
        options : CountOptions
        **facts
            ``columns``, ``has_gold``, ``gold_topics``, ``part``.

        Returns
        -------
        Request
        """
        fields = {f.name: getattr(options, f.name) for f in dataclasses.fields(CountOptions)}
        return cls(**fields, **facts)

    @property
    def mode(self) -> str:
        """Counting mode: ``"hard"`` (predicted labels), ``"sweep"`` (a threshold grid) or ``"exact"``.

        Without thresholds, a ``pred`` column means hard counting and a ``score`` column alone an
        exact sweep; an input with neither is an error.
        """
        if isinstance(self.thresholds, str):
            if self.thresholds != "exact":  # "ranks" and "topk" are counted by paths of their own
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
                named = f"'{topic}'" if topic == "topic" else f"'{topic}' or 'topic'"
                raise InputError(
                    f"Grouping by topic needs a '{topic}' column in the runs and a topic column ({named}) in the "
                    "gold: the gold has none."
                )
        else:
            require_columns(self.columns, [self.gold_column], self.part, " (or pass a separate gold)")

    @property
    def ranged(self) -> frozenset:
        """Columns pass 1 may survey by their range alone (integer axes and items)."""
        return frozenset(c for c in self.axes + (self.item,) if c not in self.coord_labels)

    def survey_columns(self, label_types: dict) -> list:
        """List the columns pass 1 reads.

        Those are the axes without given labels, the non-boolean label columns, the items
        (duplicates are found per item code) and the score for a grid over its range.
        """
        fixed = set(self.coord_labels)
        cols = [c for c in self.axes if c not in fixed]
        cols += [c for c in self.label_columns if not pa.types.is_boolean(label_types[c])]
        if self.item in self.columns and not self.has_gold:
            cols.append(self.item)
        if self.mode == "sweep" and is_count(self.thresholds):
            cols.append(self.score)
        return list(dict.fromkeys(cols))
