"""A CSV file opened as a part of a source: its column names and types at once, its columns parsed
when a count reads them (by :mod:`fastmetrics.io.native.csv`, or by pyarrow)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv

from .._errors import InputError
from .labels import not_text_error, not_utf8, python_value, text_names
from .native import attempt
from .native.csv import CONVERT, SAMPLE_BYTES, plain_sample, read_plain_csv
from .paths import ARROW_ERRORS, COMPRESSED_SUFFIXES, arrow_reason

# CSV is parsed in blocks of this many bytes, one per thread at a time: large blocks keep the
# columns in few chunks, which the count stage codes on every thread.
CSV_BLOCK = SAMPLE_BYTES


class CsvFile:
    """A CSV file opened: its column names and types now, its values when a column is read.

    The types are those pyarrow infers from the file's first block (``SAMPLE_BYTES``). A file the
    plain parser reads (:mod:`fastmetrics.io.native.csv`) has only the columns asked for parsed -- a
    count of hard labels does not parse the scores, as DuckDB's and polars' readers do not -- and
    the last table read is kept, so the passes of one count parse the file once; any other file
    (small, compressed, another dialect) is read whole by pyarrow when opened.

    Parameters
    ----------
    path : str
        The file (uncompressed, or compressed as its suffix says).
    native : bool, default True
        False reads it with pyarrow only.
    """

    def __init__(self, path: str, native: bool = True):
        self.path = path
        plain = native and Path(path).suffix.lower() not in COMPRESSED_SUFFIXES
        self._sample = attempt(plain_sample, path) if plain else None
        self._table = None if self._sample is not None else self._pyarrow(None)
        self.schema = (self._sample if self._sample is not None else self._table).schema
        text_names(self.schema, f"Cannot read CSV file '{path}'")

    @property
    def lazy(self) -> bool:
        """Whether columns are parsed when asked for (False: the file was read when opened)."""
        return self._sample is not None

    def to_table(self, columns: Sequence[str] | None = None) -> pa.Table:
        """The ``columns`` (all of them by default) as a table."""
        if columns is None and self._table is not None and self._table.num_columns == len(self.schema):
            return self._table  # as read: columns of one name (refused by the caller) stay apart
        columns = list(self.schema.names if columns is None else columns)
        if self._table is None or not set(columns) <= set(self._table.column_names):
            kept = [] if self._table is None else self._table.column_names
            wanted = [c for c in self.schema.names if c in set(columns) | set(kept)]
            self._table = self._read(wanted or self.schema.names[:1])
        return self._table.select(columns)

    def count_rows(self) -> int:
        """The number of rows (the file is read for it unless a column was read already)."""
        return self.to_table([] if self._table is not None else self.schema.names[:1]).num_rows

    def _read(self, columns: list) -> pa.Table:
        table = attempt(read_plain_csv, self.path, self._sample, columns)
        return table if table is not None else self._pyarrow(columns)

    def _pyarrow(self, columns: list | None) -> pa.Table:
        """pyarrow's reading of the file (``columns`` None: all of them, with the types it infers
        from the first block; else those columns, with the sample's types)."""
        options = CONVERT
        if columns is not None:
            options = pacsv.ConvertOptions(
                strings_can_be_null=CONVERT.strings_can_be_null,
                null_values=CONVERT.null_values,
                check_utf8=CONVERT.check_utf8,
                include_columns=columns,
                column_types=self._sample.schema,
            )
        try:
            table = pacsv.read_csv(self.path, read_options=_CSV_READ, convert_options=options)
        except ARROW_ERRORS as exc:
            raise InputError(f"Cannot read CSV file '{self.path}': {arrow_reason(exc)}") from None
        for name, column in zip(text_names(table.schema, f"Cannot read CSV file '{self.path}'"), table.columns):
            bad = not_utf8(column.combine_chunks())
            if bad is not None:
                raise not_text_error(name, self.path, int(np.argmax(bad)), python_value(column, int(np.argmax(bad))))
        return table


_CSV_READ = pacsv.ReadOptions(block_size=CSV_BLOCK)
