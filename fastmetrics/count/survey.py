"""What pass 1 finds in the columns before counting: integer ranges, distinct labels, the score
range and the rows (:class:`Survey`), from the data or from Parquet statistics."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .._errors import InputError
from .._threads import on_threads
from ..io.labels import where
from ._codes import N_KINDS
from .encoders import distinct, no_nulls, score_range, score_view, sorted_union

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
        found = on_threads(pc.min_max, [(c,) for c in columns])
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

    def add(self, batch: pa.RecordBatch, part, score: str | None, offset: int = 0, known=None) -> None:
        """Add one batch's facts.

        Parameters
        ----------
        batch : pyarrow.RecordBatch
        part : str
            The part (file) it comes from, for error messages.
        score : str or None
            The score column, whose range is surveyed (None: no score).
        offset : int, default 0
            The index of the batch's first row in ``part``, for error messages.
        known : callable, optional
            ``known(column)``: a column's distinct values where its reading found them already
            (:meth:`fastmetrics.io.source.Source.known_distinct`), else None.
        """
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
                    found = column.dictionary
                else:
                    found = known(column) if known is not None else None
                    found = distinct(column) if found is None else found
                self.values.setdefault(name, []).append(found)

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
