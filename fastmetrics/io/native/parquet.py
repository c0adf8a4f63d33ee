"""A Parquet reader for the columns a count reads: a row group's pages decoded straight to what
the counting kernels take. Private: used by :mod:`fastmetrics.io.readahead`.

pyarrow's reader builds each column through its general machinery: a dictionary-encoded string
column whose pages are a few runs of one index (the systems and topics of a run, grouped) costs
as much as a column of distinct numbers, and decoding W1's five columns takes longer than
counting them (figures in the performance guide). Here a row group's column chunks are read as bytes; one kernel walks
a chunk's page headers (Thrift's compact protocol, :mod:`.thrift` -- pyarrow writes pages of
20,000 rows, so a header parsed in Python would cost as much as the page), the pages are
decompressed by one kernel (:mod:`.snappy`), and one kernel decodes the values: the RLE/bit-packed hybrid
(dictionary indices and definition levels; a run becomes one fill), booleans copied as a bitmap.
A string column read as a dictionary keeps the dictionary page as its dictionary, so the count
stage reads indices, as it reads pyarrow's.

What is read here: flat columns of booleans, int32/int64, float32/float64 (plain or
dictionary-encoded) and strings (dictionary-encoded pages, read as a dictionary), data pages v1
and v2, uncompressed or Snappy (pyarrow's default), no null. Anything else -- another codec, a
null, a string page written plain after its dictionary outgrew the writer's limit, a delta
encoding, a nested column, a damaged page -- raises :class:`Unsupported`, and the caller reads
that row group with pyarrow instead, so no input reads differently.

Everything the file says is checked before it is used: the footer is read by :func:`.thrift.footer`
(pyarrow's metadata objects are not asked for the codec or the statistics: some of their
properties abort the process on a damaged footer); a chunk's sizes against the file and against
each other; each page's sizes against the chunk; each count of values against the row group's
rows and the bytes that must hold them, before it indexes or allocates; each run header of the
hybrid for sign and overflow.

References: the Apache Parquet format specification (``parquet.thrift``, ``Encodings.md``).
"""

from __future__ import annotations

import os

import numpy as np
import pyarrow as pa
from numba import njit

from ... import _memory
from ..._strings import move_bytes
from ..labels import used_values
from . import Unsupported, snappy, thrift
from .hybrid import all_equal, copy_bits, hybrid_bits, plain_byte_arrays, read_u32, unpack_hybrid
from .snappy import B_FROM, B_LENGTH, B_SIZE, B_TO
from .thrift import STRUCT, struct_fields

# parquet.thrift enums
_DATA_PAGE, _INDEX_PAGE, _DICTIONARY_PAGE, _DATA_PAGE_V2 = 0, 1, 2, 3


_PLAIN, _PLAIN_DICTIONARY, _RLE, _RLE_DICTIONARY = 0, 2, 3, 8


PHYSICAL = ("BOOLEAN", "INT32", "INT64", "INT96", "FLOAT", "DOUBLE", "BYTE_ARRAY", "FIXED_LEN_BYTE_ARRAY")


# the codecs decoded here (parquet.thrift's CompressionCodec); Snappy by :mod:`.snappy`
_UNCOMPRESSED, _SNAPPY = 0, 1


_FIXED = {  # physical type -> numpy type of its plain values, and the Arrow types it is read as
    "INT32": (np.int32, (pa.int32(),)),
    "INT64": (np.int64, (pa.int64(),)),
    "FLOAT": (np.float32, (pa.float32(),)),
    "DOUBLE": (np.float64, (pa.float64(),)),
}


# a row group is decoded whole; beyond this many rows pyarrow streams it in batches instead
MAX_GROUP_ROWS = 1 << 23


# uncompressed bytes a chunk may claim per compressed byte (Snappy's bound is about 21)
_MAX_RATIO = 32


# a footer longer than this is left to pyarrow (pyarrow's own bound is about 1 GB)
_MAX_FOOTER = 1 << 28


# columns of the page table: where a page's bytes are and what its header says
P_TYPE, P_AT, P_PACKED, P_SIZE, P_VALUES, P_ENCODING, P_LEVELS, P_NULLS, P_DEF, P_REP, P_COMPRESSED = range(11)


_PAGE = 11


@njit(cache=True, nogil=True, inline="always")
def _field(kinds, ints, field, default):
    """An i32 field of a struct read by :func:`.thrift.struct_fields` (every integer field of a page
    header is one), or ``default`` when it is absent or of another type: a Thrift reader skips a
    field of another type, as if it were absent (pyarrow's does)."""
    return ints[field] if kinds[field] == thrift.I32 else default


@njit(cache=True, nogil=True, inline="always")
def _has(kinds, last):
    """Whether fields 1 to ``last`` (a header's required fields) are all i32 fields: a Thrift
    reader refuses a struct without one of its required fields."""
    for field in range(1, last + 1):
        if kinds[field] != thrift.I32:
            return False
    return True


@njit(cache=True, nogil=True)
def page_table(chunk):
    """List the pages of a column chunk.

    The pages of a column chunk: ``(table, status)``, a row a page (columns ``P_*``; ``P_AT``
    the position of its body in ``chunk``); status 0, or -1 when a header is damaged or a page
    runs past the chunk."""
    pages = np.empty((16, _PAGE), np.int64)
    n = 0
    kinds, ints, starts = (
        np.zeros(thrift.FIELDS, np.int64),
        np.zeros(thrift.FIELDS, np.int64),
        np.zeros(thrift.FIELDS, np.int64),
    )
    s_kinds, s_ints, s_starts = (
        np.zeros(thrift.FIELDS, np.int64),
        np.zeros(thrift.FIELDS, np.int64),
        np.zeros(thrift.FIELDS, np.int64),
    )
    at = 0
    stop = chunk.size
    while at < stop:
        body = struct_fields(chunk, at, stop, kinds, ints, starts)
        if body < 0:
            return pages[:n], -1
        kind, size, packed = _field(kinds, ints, 1, -1), _field(kinds, ints, 2, -1), _field(kinds, ints, 3, -1)
        if kind < 0 or size < 0 or packed < 0 or packed > stop - body:
            return pages[:n], -1
        if n == pages.shape[0]:
            grown = np.empty((2 * n, _PAGE), np.int64)
            grown[:n] = pages
            pages = grown
        page = pages[n]
        page[:] = 0
        page[P_TYPE], page[P_AT], page[P_PACKED], page[P_SIZE] = kind, body, packed, size
        page[P_COMPRESSED] = 1
        sub = 5 if kind == _DATA_PAGE else 7 if kind == _DICTIONARY_PAGE else 8 if kind == _DATA_PAGE_V2 else -1
        if sub > 0:
            if kinds[sub] != STRUCT or struct_fields(chunk, starts[sub], stop, s_kinds, s_ints, s_starts) < 0:
                return pages[:n], -1
            # the fields parquet.thrift requires: v1 1-4, dictionary 1-2, v2 1-6
            if not _has(s_kinds, 4 if kind == _DATA_PAGE else 2 if kind == _DICTIONARY_PAGE else 6):
                return pages[:n], -1
            page[P_VALUES] = _field(s_kinds, s_ints, 1, -1)
            if kind == _DATA_PAGE_V2:
                page[P_NULLS], page[P_ENCODING] = _field(s_kinds, s_ints, 2, -1), _field(s_kinds, s_ints, 4, -1)
                page[P_DEF], page[P_REP] = _field(s_kinds, s_ints, 5, -1), _field(s_kinds, s_ints, 6, -1)
                compressed = s_kinds[7]  # a boolean: its value is its type; true when absent
                page[P_COMPRESSED] = 0 if compressed == thrift.FALSE else 1
                # pyarrow refuses a negative count of rows (read nowhere else here); a negative
                # count of nulls, which pyarrow reads past, is left to it too
                if page[P_NULLS] < 0 or _field(s_kinds, s_ints, 3, -1) < 0:
                    return pages[:n], -1
                if page[P_DEF] < 0 or page[P_REP] < 0 or page[P_DEF] + page[P_REP] > min(packed, size):
                    return pages[:n], -1
            else:
                page[P_ENCODING], page[P_LEVELS] = _field(s_kinds, s_ints, 2, -1), _field(s_kinds, s_ints, 3, -1)
            if page[P_VALUES] < 0:
                return pages[:n], -1
        n += 1
        at = body + packed
    return pages[:n], 0


# status codes of data_pages: why a column chunk is left to pyarrow
DAMAGED, NULL, ENCODING = -1, -2, -3


_STATUS = {DAMAGED: "a page this reader cannot parse", NULL: "a null", ENCODING: "an encoding it does not decode"}


@njit(cache=True, nogil=True)
def _page_values(page, v, count, encoding, kind, width, out, indices, dictionary, dict_count, filled, present):
    """Decode one page's ``count`` values from byte ``v`` into row ``filled`` on (see
    :func:`data_pages`); return 0, or a negative status."""
    if encoding == _PLAIN_DICTIONARY or encoding == _RLE_DICTIONARY:
        if dict_count < 0 or kind == 0 or v >= page.size:
            return ENCODING
        bit_width = np.int64(page[v])
        if kind == 2:
            got = unpack_hybrid(page, v + 1, page.size, bit_width, indices, filled, count, dict_count, None, present)
        elif width == 4:
            values, table = out.view(np.uint32), dictionary[: dict_count * 4].view(np.uint32)
            got = unpack_hybrid(page, v + 1, page.size, bit_width, values, filled, count, dict_count, table)
        else:
            values, table = out.view(np.uint64), dictionary[: dict_count * 8].view(np.uint64)
            got = unpack_hybrid(page, v + 1, page.size, bit_width, values, filled, count, dict_count, table)
        if got != count:
            return DAMAGED
    elif encoding == _RLE and kind == 0:  # booleans of v2 pages: 4-byte length, hybrid of 1 bit
        if v + 4 > page.size:
            return DAMAGED
        length = read_u32(page, v)
        if length > page.size - v - 4 or hybrid_bits(page, v + 4, v + 4 + length, count, out, filled) != count:
            return DAMAGED
    elif encoding == _PLAIN and kind == 0:
        if (count + 7) // 8 > page.size - v:
            return DAMAGED
        copy_bits(page, v, count, out, filled)
    elif encoding == _PLAIN and kind == 1:
        if count * width > page.size - v:
            return DAMAGED
        move_bytes(out, filled * width, page, v, count * width)
    else:
        return ENCODING
    return 0


@njit(cache=True, nogil=True)
def data_pages(source, pages, first, kind, width, max_def, rows, out, indices, dictionary, dict_count, present):
    """Decode the data pages of a column chunk.

    Decode the data pages ``pages[first:]`` (each ``source[P_AT:P_AT + P_SIZE]``, decompressed);
    return the values decoded, or a negative status (``DAMAGED``, ``NULL``, ``ENCODING``).

    ``kind`` 0 (booleans) writes the bitmap ``out``; 1 (fixed ``width`` values) their bytes to
    ``out``, dictionary pages through ``indices`` and the ``dict_count`` values of ``dictionary``
    (bytes); 2 (strings) the dictionary ``indices``, setting ``present[index]`` for each index
    met when ``present`` is not empty (see :func:`.hybrid.unpack_hybrid`).
    """
    filled = 0
    for p in range(first, pages.shape[0]):
        kind_of_page, at, size, count = pages[p, P_TYPE], pages[p, P_AT], pages[p, P_SIZE], pages[p, P_VALUES]
        if kind_of_page == _INDEX_PAGE:  # nothing a count reads
            continue
        if kind_of_page != _DATA_PAGE and kind_of_page != _DATA_PAGE_V2:
            return DAMAGED
        if count < 0 or count > rows - filled or at < 0 or size < 0 or size > source.size - at:
            return DAMAGED
        page = source[at : at + size]
        v = 0
        if kind_of_page == _DATA_PAGE_V2:
            if pages[p, P_NULLS] != 0:
                return NULL
            if pages[p, P_REP] != 0:
                return DAMAGED
            levels = pages[p, P_DEF]
            if max_def and count and (levels == 0 or not all_equal(page, 0, levels, 1, count, 1)):
                return NULL if levels else DAMAGED
            v = levels
        elif max_def:
            if pages[p, P_LEVELS] != _RLE:
                return ENCODING
            if page.size < 4:
                return DAMAGED
            length = read_u32(page, 0)
            if length > page.size - 4:
                return DAMAGED
            if not all_equal(page, 4, 4 + length, 1, count, 1):
                return NULL
            v = 4 + length
        if page.size == 0 and count > 0:
            return DAMAGED
        status = _page_values(
            page, v, count, pages[p, P_ENCODING], kind, width, out, indices, dictionary, dict_count, filled, present
        )
        if status < 0:
            return status
        filled += count
    return filled


class Footer:
    """A Parquet file's footer, read by :func:`.thrift.footer` from its bytes.

    Parameters
    ----------
    path : str
        A local Parquet file.
    groups, columns : int
        The row groups and leaf columns pyarrow found (a footer read otherwise is refused).

    Attributes
    ----------
    chunks : numpy.ndarray
        int64 ``[group, column, slot]``: each column chunk's record (the slots of :mod:`.thrift`).
    rows : numpy.ndarray
        Each row group's rows.
    size : int
        The file's size in bytes.
    """

    def __init__(self, path: str, groups: int, columns: int):
        with open(path, "rb") as handle:
            self.size = os.fstat(handle.fileno()).st_size
            if self.size < 12:
                raise Unsupported("a file too short for a footer")
            handle.seek(self.size - 8)
            tail = handle.read(8)
            length = int.from_bytes(tail[:4], "little")
            if tail[4:] != b"PAR1" or not 0 < length <= min(self.size - 12, _MAX_FOOTER):
                raise Unsupported("a footer this reader does not read (encrypted, or damaged)")
            handle.seek(self.size - 8 - length)
            self.bytes = np.frombuffer(handle.read(length), np.uint8)
        if self.bytes.size != length:
            raise Unsupported("a footer cut short")
        self.chunks = np.empty((groups, columns, thrift.RECORD), np.int64)
        self.rows = np.zeros(groups, np.int64)
        writer = np.full(2, -1, np.int64)
        if thrift.footer(self.bytes, length, self.chunks, self.rows, writer) < 0:
            raise Unsupported("a footer this reader cannot parse")
        at, size = int(writer[0]), int(writer[1])
        self.created_by = self.bytes[at : at + size].tobytes() if at >= 0 else b""

    def statistic(self, group: int, column: int):
        """The range a column chunk's statistics state.

        ``(min, max)`` of a column chunk of integers or floats as its statistics state them, or
        None (no statistics, a null, another type, values of the wrong size)."""
        record = self.chunks[group, column]
        physical = int(record[thrift.TYPE])
        dtype = {1: "<i4", 2: "<i8", 4: "<f4", 5: "<f8"}.get(physical)
        if dtype is None or record[thrift.NULLS] != 0 or record[thrift.SCHEMA_TYPE] != physical:
            return None
        found = []
        for at_slot, deprecated in ((thrift.MIN_VALUE_AT, thrift.MIN_AT), (thrift.MAX_VALUE_AT, thrift.MAX_AT)):
            at, size = int(record[at_slot]), int(record[at_slot + 1])
            if at < 0:  # the deprecated fields, signed order, as integers and floats are ordered
                at, size = int(record[deprecated]), int(record[deprecated + 1])
            if at < 0 or size != np.dtype(dtype).itemsize:
                return None
            found.append(self.bytes[at : at + size].view(dtype)[0].item())
        return tuple(found)


class RowGroups:
    """The row groups of one Parquet file, decoded column by column (see the module docstring).

    Parameters
    ----------
    path : str
        A local Parquet file.
    metadata : pyarrow.parquet.FileMetaData
        Its footer as pyarrow read it: only its shape (row groups, columns, rows) and its schema
        are read.
    schema : pyarrow.Schema
        The types the columns are read as (the dataset's: strings as dictionaries).
    footer : Footer, optional
        The footer read already (by the statistics).
    """

    def __init__(self, path: str, metadata, schema: pa.Schema, footer: Footer | None = None):
        self.path, self.schema = path, schema
        self.footer = footer or Footer(path, metadata.num_row_groups, metadata.num_columns)
        self.rows = [metadata.row_group(g).num_rows for g in range(metadata.num_row_groups)]
        if list(self.footer.rows) != self.rows:
            raise Unsupported("row counts that differ from pyarrow's reading of the footer")
        self.leaves = {}
        for j in range(metadata.num_columns):
            column = metadata.schema.column(j)
            self.leaves[column.path] = (j, column.max_definition_level, column.max_repetition_level)

    def read(self, group: int, columns) -> pa.RecordBatch:
        """Decode the columns of one row group.

        Decode row group ``group``'s ``columns`` as a record batch; :class:`Unsupported` when a
        column is not one this reader decodes."""
        return self.decode(group, columns)[0]

    def decode(self, group: int, columns, distinct=()) -> tuple[pa.RecordBatch, dict]:
        """:meth:`read`, and the distinct values of the ``distinct`` columns read as dictionaries.

        Returns ``(batch, {column: values})``: each such column's dictionary values its indices
        use, unsorted, found while the indices are decoded (a store a repeated run), where a
        survey would read every row again."""
        rows = self.rows[group]
        if not 0 <= rows <= MAX_GROUP_ROWS:
            raise Unsupported("a row group too large to decode whole")
        arrays, found = [], {}
        with open(self.path, "rb") as handle:
            for name in columns:
                if name not in self.leaves:
                    raise Unsupported(f"column {name!r} is nested or absent")
                j, max_def, max_rep = self.leaves[name]
                if max_rep or max_def > 1:
                    raise Unsupported("a nested column")
                record = self.footer.chunks[group, j]
                # the levels the footer's size statistics count must be the schema's (pyarrow's check)
                for slot, top in ((thrift.DEF_HISTOGRAM, max_def), (thrift.REP_HISTOGRAM, max_rep)):
                    if record[slot] > 0 and record[slot] != top + 1:  # an empty list: none kept
                        raise Unsupported("level histograms that do not fit the schema")
                chunk = self._chunk(handle, record, rows)
                physical = PHYSICAL[record[thrift.TYPE]] if 0 <= record[thrift.TYPE] < len(PHYSICAL) else None
                layout = _layout(physical, self.schema.field(name).type)
                codec = int(record[thrift.CODEC])
                flags = _stated_v2_flags(self.footer.created_by)
                array, present = _column(chunk, codec, layout, max_def, rows, flags, name in distinct)
                arrays.append(array)
                if present is not None:
                    found[name] = used_values(array.dictionary, present)
        return pa.RecordBatch.from_arrays(arrays, names=list(columns)), found

    def _chunk(self, handle, record, rows: int) -> np.ndarray:
        """A column chunk's bytes, once its record is one this reader trusts."""
        if record[thrift.EXTERNAL] != 0 or record[thrift.TYPE] != record[thrift.SCHEMA_TYPE]:
            raise Unsupported("a column chunk elsewhere, encrypted, or of another type than its schema's")
        if record[thrift.VALUES] != rows:
            raise Unsupported("a column chunk whose values are not its row group's rows")
        start, dictionary = int(record[thrift.DATA]), int(record[thrift.DICTIONARY])
        if dictionary >= 0:
            start = min(start, dictionary) if dictionary > 0 else start
        size, unpacked = int(record[thrift.PACKED]), int(record[thrift.UNPACKED])
        # a damaged footer's sizes are not taken at their word: Snappy unpacks at most ~21 times
        if not (4 <= start and 0 < size <= self.footer.size - start and 0 <= unpacked <= _MAX_RATIO * size + (1 << 16)):
            raise Unsupported("column chunk sizes this reader does not trust")
        handle.seek(start)
        chunk = _memory.empty(size, np.uint8)
        if handle.readinto(chunk) != size:
            raise Unsupported("a column chunk cut short")
        return chunk


def _layout(physical: str | None, arrow_type: pa.DataType) -> tuple[int, int, object]:
    """(kind, width, numpy type) of a column as :func:`data_pages` decodes it."""
    if physical == "BOOLEAN" and arrow_type == pa.bool_():
        return 0, 0, None
    if physical in _FIXED and arrow_type in _FIXED[physical][1]:
        dtype = np.dtype(_FIXED[physical][0])
        return 1, dtype.itemsize, dtype
    if (
        physical == "BYTE_ARRAY"
        and pa.types.is_dictionary(arrow_type)
        and arrow_type.index_type == pa.int32()
        and arrow_type.value_type in (pa.string(), pa.large_string())
    ):
        return 2, 0, None
    raise Unsupported(f"a {physical} column read as {arrow_type}")


def _stated_v2_flags(created_by: bytes) -> bool:
    """Whether a v2 page's ``is_compressed`` is taken as its writer states it.

    parquet-cpp before Arrow 3.0 wrote false on pages it had compressed, and pyarrow takes
    every v2 page of its files as compressed (ARROW-10353: an application ``parquet-cpp`` older
    than 2.0.0; Arrow's own writer is ``parquet-cpp-arrow``). Any ``created_by`` that may name it
    is answered False, and such a file's pages marked not compressed are left to pyarrow."""
    name = created_by.strip().lower()
    return not (name.startswith(b"parquet-cpp") and not name.startswith(b"parquet-cpp-arrow"))


def _pages(chunk: np.ndarray, codec: int, stated_v2_flags: bool) -> tuple[np.ndarray, np.ndarray]:
    """``(source, pages)``: the page table of a chunk, and the bytes its ``P_AT``/``P_SIZE`` point
    into -- the chunk itself when it is not compressed, else the pages laid out one after another
    uncompressed (:func:`_unpacked_layout`) and filled by one kernel (:func:`_unpack`)."""
    pages, status = page_table(chunk)
    if status < 0:
        raise Unsupported(_STATUS[DAMAGED])
    if codec == _UNCOMPRESSED:
        if (pages[:, P_PACKED] != pages[:, P_SIZE]).any():
            raise Unsupported(_STATUS[DAMAGED])
        return chunk, pages
    if codec != _SNAPPY:
        raise Unsupported(f"codec {codec}")
    total, copies, blocks = _unpacked_layout(chunk, pages, _MAX_RATIO * chunk.size + (1 << 16), stated_v2_flags)
    if total == -2:
        raise Unsupported("a v2 page marked as not compressed by a writer whose mark pyarrow does not take")
    if total < 0:
        raise Unsupported(_STATUS[DAMAGED])
    source = _memory.empty(max(1, total), np.uint8)
    if not _unpack(chunk, copies, blocks, source):
        raise Unsupported(_STATUS[DAMAGED])
    return source, pages


@njit(cache=True, nogil=True)
def _unpacked_layout(chunk, pages, bound, stated_v2_flags):
    """Lay out a Snappy chunk's pages uncompressed, one after another.

    Each page becomes its uncompressed size: the levels of a v2 page (never compressed), then
    its values -- copied when a v2 page says they are not compressed (and from an index page),
    else a Snappy block. ``pages[:, P_AT]`` is rewritten to where each page starts in that
    layout.

    Returns ``(total, copies, blocks)``: the bytes laid out, the parts copied (rows ``B_FROM``,
    ``B_LENGTH``, ``B_TO``) and the Snappy blocks (and ``B_SIZE``); ``total`` -1 when a page's
    sizes disagree or the pages would unpack to more than ``bound`` bytes, -2 at a v2 page
    marked not compressed when the marks are not ``stated_v2_flags`` (:func:`_stated_v2_flags`).
    """
    n = pages.shape[0]
    copies = np.empty((2 * n, 3), np.int64)
    blocks = np.empty((n, 4), np.int64)
    n_copies, n_blocks, to = 0, 0, 0
    for p in range(n):
        kind, at, packed, size = pages[p, P_TYPE], pages[p, P_AT], pages[p, P_PACKED], pages[p, P_SIZE]
        levels = pages[p, P_DEF] + pages[p, P_REP] if kind == _DATA_PAGE_V2 else 0
        values = size - levels  # page_table has checked 0 <= levels <= min(packed, size)
        if size > bound - to:
            return -1, copies[:0], blocks[:0]
        pages[p, P_AT] = to
        if levels > 0:
            _part(copies, n_copies, at, levels, to)
            n_copies += 1
        plain = kind == _DATA_PAGE_V2 and pages[p, P_COMPRESSED] == 0
        if plain and not stated_v2_flags:
            return -2, copies[:0], blocks[:0]
        if plain or kind == _INDEX_PAGE:
            if packed - levels != values:
                return -1, copies[:0], blocks[:0]
            if values > 0:
                _part(copies, n_copies, at + levels, values, to + levels)
                n_copies += 1
        elif values > 0:  # a Snappy block, which must state ``values`` as its length (snappy.decompress)
            _part(blocks, n_blocks, at + levels, packed - levels, to + levels)
            blocks[n_blocks, B_SIZE] = values
            n_blocks += 1
        to += size
    return to, copies[:n_copies], blocks[:n_blocks]


@njit(cache=True, nogil=True, inline="always")
def _part(parts, k, start, length, to):
    parts[k, B_FROM], parts[k, B_LENGTH], parts[k, B_TO] = start, length, to


@njit(cache=True, nogil=True)
def _unpack(chunk, copies, blocks, source):
    """Copy the parts ``copies`` and decompress the Snappy blocks ``blocks`` of ``chunk`` into
    ``source`` (the tables of :func:`_unpacked_layout`); False when a block is refused."""
    for k in range(copies.shape[0]):
        move_bytes(source, copies[k, B_TO], chunk, copies[k, B_FROM], copies[k, B_LENGTH])
    return snappy.decompress_blocks(chunk, blocks, source) < 0


def _column(chunk: np.ndarray, codec: int, layout, max_def: int, rows: int, stated_v2_flags: bool, distinct: bool):
    """``(array, present)``: one column chunk decoded, and (``distinct``, strings) which of its
    dictionary's values its indices use, one byte a value (else None)."""
    kind, width, dtype = layout
    source, pages = _pages(chunk, codec, stated_v2_flags)
    first, dictionary, count = 0, np.zeros(1, np.uint8), -1
    if len(pages) and pages[0, P_TYPE] == _DICTIONARY_PAGE:
        if pages[0, P_ENCODING] not in (_PLAIN, _PLAIN_DICTIONARY):
            raise Unsupported(_STATUS[ENCODING])
        count, at, size = int(pages[0, P_VALUES]), int(pages[0, P_AT]), int(pages[0, P_SIZE])
        dictionary = _dictionary(source[at : at + size], count, kind, width)
        first = 1
    out = _memory.zeros((rows + 7) // 8 + 8 if kind == 0 else rows * width, np.uint8)
    indices = _memory.empty(rows if kind == 2 else 0, np.int32)
    values = dictionary if kind == 1 else np.zeros(1, np.uint8)
    present = np.zeros(max(count, 0) if distinct and kind == 2 else 0, np.uint8)
    filled = data_pages(source, pages, first, kind, width, max_def, rows, out, indices, values, count, present)
    if filled != rows:
        raise Unsupported(_STATUS.get(filled, "fewer values than the row group's rows"))
    if kind == 0:
        return pa.Array.from_buffers(pa.bool_(), rows, [None, pa.py_buffer(out)]), None
    if kind == 1:
        return pa.array(out.view(dtype)), None
    array = pa.DictionaryArray.from_arrays(pa.array(indices), dictionary, safe=False)
    return array, (present if distinct else None)


def _dictionary(page: np.ndarray, count: int, kind: int, width: int):
    """A dictionary page's values: an Arrow string array (strings), its bytes (fixed values). The
    count is checked against the bytes that must hold it (4 a string, ``width`` a value) before
    anything is allocated for it."""
    if kind == 0:
        raise Unsupported("a dictionary page for booleans")
    if kind == 1:
        if count > page.size // width:
            raise Unsupported(_STATUS[DAMAGED])
        return page[: count * width].copy()
    if count > page.size // 4:
        raise Unsupported(_STATUS[DAMAGED])
    offsets = np.zeros(count + 1, np.int64)
    data = np.empty(max(1, page.size), np.uint8)
    size = plain_byte_arrays(page, 0, page.size, count, offsets, data)
    if size < 0 or size >= (1 << 31) - 1:
        raise Unsupported(_STATUS[DAMAGED])
    return pa.Array.from_buffers(
        pa.string(), count, [None, pa.py_buffer(offsets.astype(np.int32)), pa.py_buffer(data[:size].copy())]
    )
