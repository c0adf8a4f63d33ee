"""Parquet read-ahead: a Parquet part's record batches decoded ahead of the count on the worker
threads, the statistics of its footers, and the check that the data agree with them."""

from __future__ import annotations

import os

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .._errors import InputError
from .._threads import read_ahead
from .native import attempt
from .native import parquet as native_parquet
from .paths import ARROW_ERRORS, arrow_reason

BATCH_ROWS = 1 << 20


READAHEAD = 4


def native_footer(fragment):
    """The native reading of a Parquet fragment's footer."""
    metadata = fragment.metadata
    return native_parquet.Footer(fragment.path, metadata.num_row_groups, metadata.num_columns)


class StatisticsMismatch(InputError):
    """A Parquet footer's statistics state a range its data does not have.

    Raised by :meth:`Source.record_batches` on the column whose statistics shaped a plan; the
    count stage then plans again from the data, with the statistics distrusted.
    """

    def __init__(self, column: str, stated, found, names):
        self.column = column
        super().__init__(
            f"The Parquet statistics of column '{column}' in {', '.join(map(str, names))} state the range "
            f"{list(stated)}, which its data does not have ({list(found)}): the footer is damaged."
        )


def check_hints(batch: pa.RecordBatch, hinted: dict, found: dict, name: str, ranges: dict | None) -> None:
    """Add a batch's range of each hinted column to ``found``.

    ``ranges`` are those found already, on the thread that decoded the batch; a value outside its
    hint raises."""
    for column, (low, high) in hinted.items():
        bounds = ranges[column] if ranges and column in ranges else _value_range(batch.column(column))
        if bounds is None:
            continue
        lo, hi = bounds
        if not low <= lo <= hi <= high:  # NaN and nulls fail this too
            raise StatisticsMismatch(column, (low, high), (lo, hi), [name])
        old = found.get(column)
        found[column] = (lo, hi) if old is None else (min(old[0], lo), max(old[1], hi))


def _value_range(values) -> tuple | None:
    """``(min, max)`` of a column of numbers (None when it is empty; NaN for a null or a NaN).
    numpy's reductions over the buffer in place: several times faster than Arrow's min_max."""
    if len(values) == 0:
        return None
    if values.null_count:
        return (np.nan, np.nan)
    array = values.to_numpy(zero_copy_only=False)
    return array.min().item(), array.max().item()  # NaN propagates


def _decoded_group(groups, group: int, columns, hinted, distinct) -> tuple:
    """``(batch, ranges, found)``: row group ``group`` decoded natively (None: pyarrow reads it),
    the range of each ``hinted`` column and the distinct values of the ``distinct`` ones (see
    :meth:`.native.parquet.RowGroups.decode`), found here, on the decoding thread, off the
    counting's."""
    decoded = attempt(groups.decode, group, columns, distinct)
    if decoded is None:
        return None, None, None
    batch, found = decoded
    ranges = {column: _value_range(batch.column(column)) for column in hinted} if hinted else None
    return batch, ranges, found


def parquet_batches(fragment, schema, columns, src, distinct=()):
    """A Parquet file's record batches, read ahead.

    Each row group is decoded by :mod:`fastmetrics.io.native.parquet`
    (on numba's threads, a few groups ahead), or by pyarrow where that reader does not decode it
    or fails in any way (:func:`fastmetrics.io.native.attempt`), or when ``src.native`` is off.
    The distinct values of the ``distinct`` columns found while decoding are kept in
    ``src.distinct`` (see :meth:`Source.known_distinct`)."""
    groups = None
    if src.native and is_local(fragment):
        footer = src.footer(fragment)
        groups = footer and attempt(native_parquet.RowGroups, fragment.path, fragment.metadata, schema, footer)
    if groups is None:
        yield from _arrow_batches(fragment, schema, columns)
        return
    count = len(groups.rows)
    hinted = [c for c in columns if c in src.hints]
    distinct = [c for c in columns if c in distinct]
    pieces = None
    jobs = ((groups, g, columns, hinted, distinct) for g in range(count))
    for g, (batch, ranges, found) in enumerate(read_ahead(_decoded_group, jobs, READAHEAD)):
        if batch is None:
            pieces = pieces or _pieces(fragment)
            yield from _arrow_batches(pieces[g], schema, columns)
        else:
            if ranges is not None:
                src.ranges[id(batch)] = (batch, ranges)  # the batch kept: its id is not reused meanwhile
            for column, values in found.items():
                array = batch.column(column)
                key = dictionary_key(array)
                if key is not None:
                    src.distinct[key] = (array, values)  # the array kept: its buffer too
            yield batch


def dictionary_key(array: pa.DictionaryArray) -> tuple | None:
    """Return where a dictionary array lies in memory, or None.

    The key is its indices' (address, offset, length) and its dictionary's (buffers' addresses,
    offset, length): an array taken from the one noted, not a copy, has them. None for indices
    without a data buffer (nothing is noted for such)."""
    values = array.indices.buffers()[1]
    if values is None:
        return None
    dictionary = array.dictionary
    held = tuple(b.address if b is not None else 0 for b in dictionary.buffers())
    return (values.address, array.offset, len(array), dictionary.offset, len(dictionary)) + held


def _pieces(fragment) -> list:
    """A fragment's row groups, one fragment each (for pyarrow to read the groups it is handed)."""
    try:
        return fragment.split_by_row_group()
    except ARROW_ERRORS as exc:
        raise InputError(f"Cannot read Parquet data '{fragment.path}': {arrow_reason(exc)}") from None


def is_local(fragment) -> bool:
    """Whether a fragment is a file on the local file system (the native reader maps it)."""
    import pyarrow.fs as pafs

    return isinstance(fragment.filesystem, pafs.LocalFileSystem) and os.path.isfile(fragment.path)


def numbered_batches(name, batches):
    """``(name, first row, batch)`` of the non-empty batches of one part."""
    offset = 0
    for batch in batches:
        if batch.num_rows:
            yield name, offset, batch
            offset += batch.num_rows


def _arrow_batches(fragment, schema, columns):
    """pyarrow's reading of a Parquet file (or row group), string columns as dictionaries; where
    that fails and the columns read hold dictionaries (pyarrow builds none from
    ``DELTA_BYTE_ARRAY`` pages: "Not yet implemented"), the rest is read as strings and
    dictionary-encoded after. Any failure of that reading is an InputError naming the file."""
    done = 0
    plain = pa.schema([f.with_type(f.type.value_type) if pa.types.is_dictionary(f.type) else f for f in schema])
    try:
        for batch in _scan(fragment, schema, columns):
            yield _indices_in_range(batch, fragment.path)
            done += batch.num_rows
        return
    except ARROW_ERRORS as exc:
        if all(plain.field(c).equals(schema.field(c)) for c in columns):
            raise InputError(f"Cannot read Parquet data '{fragment.path}': {arrow_reason(exc)}") from None
    try:
        import pyarrow.dataset as pads  # imported on use: it weighs on start-up

        groups = [group.id for group in fragment.row_groups]
        strings = pads.ParquetFileFormat().make_fragment(fragment.path, fragment.filesystem, row_groups=groups)
        for batch in _scan(strings, plain, columns):
            if done >= batch.num_rows:  # yielded already, as dictionaries
                done -= batch.num_rows
                continue
            batch, done = batch.slice(done), 0
            names = batch.schema.names
            arrays = [
                pc.dictionary_encode(c) if schema.field(n).type != c.type else c for n, c in zip(names, batch.columns)
            ]
            yield pa.RecordBatch.from_arrays(arrays, names=names)
    except ARROW_ERRORS as exc:
        raise InputError(f"Cannot read Parquet data '{fragment.path}': {arrow_reason(exc)}") from None


def _scan(fragment, schema, columns):
    # decoding runs on Arrow's threads, ahead of the counting; a small readahead keeps memory
    # at a few batches whatever the file's size
    batches = fragment.to_batches(
        schema=schema, columns=columns, batch_size=BATCH_ROWS, batch_readahead=READAHEAD, use_threads=True
    )
    for i, batch in enumerate(batches):
        yield batch
        if i % 16 == 15:
            # Arrow's allocator keeps freed pages; handing them back now and then is what
            # keeps a 100M-row stream at a flat peak
            pa.default_memory_pool().release_unused()


def _indices_in_range(batch: pa.RecordBatch, path: str) -> pa.RecordBatch:
    """The batch, once its dictionary indices are known to point into their dictionaries:
    pyarrow's reader does not check them, and a damaged file's would fail far from their read."""
    for name, column in zip(batch.schema.names, batch.columns):
        if pa.types.is_dictionary(column.type) and len(column) and column.indices.null_count < len(column):
            bounds = pc.min_max(column.indices).as_py()
            if bounds["min"] < 0 or bounds["max"] >= len(column.dictionary):
                raise InputError(
                    f"Cannot read Parquet data '{path}': column '{name}' has a dictionary index out of "
                    f"range (the file is damaged)."
                )
    return batch
