"""A Parquet reader for the columns a count reads: a row group's pages decoded straight to what
the counting kernels take. Private: used by :mod:`fastmetrics.io.readers`.

pyarrow's reader builds each column through its general machinery: a dictionary-encoded string
column whose pages are a few runs of one index (the systems and topics of a run, grouped) costs
as much as a column of distinct numbers, and W1's five columns take about 110 ms to decode,
more than a count of them. Here a row group's column chunks are read as bytes and one kernel a
column chunk walks its pages: the page headers (Thrift's compact protocol -- pyarrow writes pages
of 20,000 rows, so a header parsed in Python would cost as much as the page), Snappy
decompression, and the values: the RLE/bit-packed hybrid (dictionary indices and definition
levels; a run becomes one fill), booleans copied as a bitmap. A string column read as a
dictionary keeps the dictionary page as its dictionary, so the count stage reads indices, as it
reads pyarrow's.

What is read here: flat columns of booleans, int32/int64, float32/float64 (plain or
dictionary-encoded) and strings (dictionary-encoded pages, read as a dictionary), data pages v1
and v2, uncompressed or Snappy (pyarrow's default), no null. Anything else -- another codec, a
null, a string page written plain after its dictionary outgrew the writer's limit, a delta
encoding, a nested column, a damaged page -- raises :class:`Unsupported`, and the caller reads
that row group with pyarrow instead, so no input reads differently.

References: the Apache Parquet format specification (``parquet.thrift``, ``Encodings.md``);
Google's Snappy format description (``format_description.txt``).
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
from numba import njit

from .. import _memory
from .._strings import _load, _move

# parquet.thrift enums
_DATA_PAGE, _DICTIONARY_PAGE, _DATA_PAGE_V2 = 0, 2, 3
_PLAIN, _PLAIN_DICTIONARY, _RLE, _RLE_DICTIONARY = 0, 2, 3, 8
_CODECS = {"UNCOMPRESSED": 0, "SNAPPY": 1}  # what data_pages decompresses
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


class Unsupported(Exception):
    """Something this reader does not decode: the row group is read by pyarrow instead."""


# -- kernels ---------------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def unpack_hybrid(buf, at, stop, bit_width, out, start, count, limit, table=None):
    """Decode ``count`` values of the RLE/bit-packed hybrid in ``buf[at:stop]`` into
    ``out[start:start + count]``; return how many were decoded (fewer: the data is short), or -1
    when a value is ``limit`` or more (an index past its dictionary).

    With a ``table`` (a dictionary page's fixed-width values), ``out`` receives ``table[value]``
    instead of the value: a run of one index is then one fill of its value, with no array of
    indices written and read back.

    A run header ``h`` (ULEB128) with ``h & 1 == 0`` is ``h >> 1`` copies of one value stored in
    ``ceil(bit_width / 8)`` bytes; otherwise ``h >> 1`` groups of 8 values of ``bit_width`` bits,
    least significant bit first.
    """
    if bit_width > 32:
        return 0
    n = 0
    value_bytes = (bit_width + 7) // 8
    mask = (np.uint64(1) << np.uint64(bit_width)) - np.uint64(1)
    top = np.uint64(0)  # the largest value written, checked against limit once
    while n < count and at < stop:
        header, at = _uvarint(buf, at, stop)
        if at < 0 or header < 0:  # a damaged header (bit 63 set): a negative run would wrap the writes
            return n
        if header & 1 == 0:
            if at + value_bytes > stop:
                return n
            value = np.uint64(0)
            for k in range(value_bytes):
                value |= np.uint64(buf[at + k]) << np.uint64(8 * k)
            at += value_bytes
            m = min(header >> 1, count - n)
            if m > 0:
                top = max(top, value)
                # loops over unsigned indices: numba's slice assignment costs more per run. Two
                # loops, not one of `value if table is None else table[value]`: numba would unify
                # the two types, a float64 for a signed table, which rounds values past 2**53
                base = np.uint64(start + n)
                if table is None:
                    for k in range(np.uint64(m)):
                        out[base + k] = value
                elif value < np.uint64(limit):
                    fill = table[value]
                    for k in range(np.uint64(m)):
                        out[base + k] = fill
            n += m
        else:
            size = (header >> 1) * bit_width  # bytes: 8 values of bit_width bits a group
            if at + size > stop:
                return n
            m = min((header >> 1) * 8, count - n)
            safe = m if at + size + 8 <= buf.size else max(0, m - 16)  # values a word load may read
            base = np.uint64(start + n)  # unsigned: numba wraps a signed index, a cost per value
            for k in range(safe):
                bit = k * bit_width
                value = (_load(buf, at + (bit >> 3)) >> np.uint64(bit & 7)) & mask
                top = max(top, value)
                out[base + np.uint64(k)] = value
            for k in range(safe, m):
                bit = k * bit_width
                word = np.uint64(0)
                for b in range(min(8, buf.size - at - (bit >> 3))):
                    word |= np.uint64(buf[at + (bit >> 3) + b]) << np.uint64(8 * b)
                value = (word >> np.uint64(bit & 7)) & mask
                top = max(top, value)
                out[start + n + k] = value
            if table is not None and limit > 0:  # indices to values, in a loop of its own
                for r in range(start + n, start + n + m):
                    out[r] = table[min(np.uint64(out[r]), np.uint64(limit - 1))]  # past it: refused below
            at += size
            n += m
    if n and top >= np.uint64(limit):
        return -1
    return n


@njit(cache=True, nogil=True)
def copy_bits(src, at, count, dst, dst_bit):
    """Copy ``count`` bits from byte ``at`` of ``src`` (least significant first) to bit
    ``dst_bit`` of ``dst``: whole bytes when ``dst_bit`` is a byte boundary."""
    if dst_bit & 7 == 0:
        first = dst_bit >> 3
        size = (count + 7) >> 3
        _move(dst, first, src, at, size)
        return
    for k in range(count):
        bit = (src[at + (k >> 3)] >> (k & 7)) & 1
        d = dst_bit + k
        if bit:
            dst[d >> 3] |= np.uint8(1 << (d & 7))
        else:
            dst[d >> 3] &= np.uint8(~(1 << (d & 7)) & 0xFF)


@njit(cache=True, nogil=True, inline="always")
def _u32(buf, at):
    """The little-endian 4-byte length at ``at`` (levels and booleans of a page are prefixed by one)."""
    return np.int64(buf[at]) | np.int64(buf[at + 1]) << 8 | np.int64(buf[at + 2]) << 16 | np.int64(buf[at + 3]) << 24


@njit(cache=True, nogil=True)
def plain_byte_arrays(buf, at, stop, count, offsets, data):
    """Decode ``count`` plain BYTE_ARRAY values (each a 4-byte little-endian length, then the
    bytes) into Arrow string ``offsets`` and ``data``; return the bytes written, or -1 when the
    page is short."""
    size = 0
    for k in range(count):
        if at + 4 > stop:
            return -1
        length = _u32(buf, at)
        at += 4
        if at + length > stop:
            return -1
        _move(data, size, buf, at, length)
        size += length
        at += length
        offsets[k + 1] = size
    return size


# -- page headers: Thrift's compact protocol --------------------------------------------------


@njit(cache=True, nogil=True, inline="always")
def _uvarint(buf, at, stop):
    """ULEB128 at ``at``: (value, next position); position -1 when it runs past ``stop``."""
    value, shift = np.int64(0), 0
    while at < stop and shift < 64:
        b = np.int64(buf[at])
        at += 1
        value |= (b & 0x7F) << shift
        shift += 7
        if b < 0x80:
            return value, at
    return value, -1


@njit(cache=True, nogil=True, inline="always")
def _zigzag(n):
    return (n >> 1) ^ -(n & 1)


@njit(cache=True, nogil=True, inline="always")
def _field_header(buf, at, stop, last):
    """The next field of a struct at ``at``, after field ``last``: (type, id, position after the
    header); type 0 at the struct's end; position -1 when the header runs past ``stop``."""
    if at >= stop:
        return 0, 0, -1
    head = np.int64(buf[at])
    at += 1
    if head == 0:
        return 0, 0, at
    if head >> 4:  # the id as a delta from the last one's
        return head & 0x0F, last + (head >> 4), at
    raw, at = _uvarint(buf, at, stop)
    return head & 0x0F, _zigzag(raw), at


@njit(cache=True, nogil=True)
def _skip(buf, at, stop, kind):
    """Position after one compact-protocol value of type ``kind`` (nested containers walked with
    an explicit stack); -1 when it runs past ``stop`` or holds a type the protocol does not have."""
    kinds, left = np.empty(64, np.int64), np.empty(64, np.int64)  # a struct's left is -1
    depth = 0
    pending = kind
    while True:
        if pending in (3,):
            at += 1
        elif pending in (4, 5, 6):
            _, at = _uvarint(buf, at, stop)
        elif pending == 7:
            at += 8
        elif pending == 8:
            size, at = _uvarint(buf, at, stop)
            at = at + size if at >= 0 else -1
        elif pending in (9, 10):
            if at >= stop or depth == 64:
                return -1
            head = np.int64(buf[at])
            at += 1
            size = head >> 4
            if size == 15:
                size, at = _uvarint(buf, at, stop)
            kinds[depth], left[depth] = head & 0x0F, size
            depth += 1
        elif pending == 12:
            if depth == 64:
                return -1
            kinds[depth], left[depth] = 12, -1
            depth += 1
        elif pending not in (1, 2):  # booleans: in a struct the field's type is the value
            return -1
        if at < 0 or at > stop:
            return -1
        pending = 0
        while depth > 0 and pending == 0:
            if left[depth - 1] < 0:  # in a struct: the next field's header, or its end
                pending, _, at = _field_header(buf, at, stop, 0)
                if at < 0:
                    return -1
                if pending == 0:
                    depth -= 1
                elif pending in (1, 2):
                    pending = 0
            elif left[depth - 1] == 0:
                depth -= 1
            else:
                left[depth - 1] -= 1
                pending = kinds[depth - 1]
                if pending in (1, 2):  # a boolean in a list is a byte
                    at += 1
                    pending = 0
        if depth == 0 and pending == 0:
            return at


@njit(cache=True, nogil=True)
def _header_struct(buf, at, stop, fields):
    """Read the i32 fields 1-8 of a struct into ``fields[1:9]`` (booleans as 1/0), skipping the
    rest; return the position after it, or -1."""
    last = 0
    while True:
        kind, field, at = _field_header(buf, at, stop, last)
        if at < 0 or kind == 0:
            return at
        last = field
        if kind == 5 and 1 <= field <= 8:
            raw, at = _uvarint(buf, at, stop)
            fields[field] = _zigzag(raw)
        elif kind in (1, 2):
            if 1 <= field <= 8:
                fields[field] = 1 if kind == 1 else 0
        else:
            at = _skip(buf, at, stop, kind)
        if at < 0:
            return -1


@njit(cache=True, nogil=True)
def page_header(buf, at, stop, fields):
    """Parse a PageHeader at ``at``; return the position of its body, or -1.

    ``fields`` (int64, 16) receives: 0 type, 1 uncompressed size, 2 compressed size, then the
    page-type header -- data page: 3 values, 4 encoding, 5 definition-level encoding; dictionary
    page: 3 values, 4 encoding; data page v2: 3 values, 4 encoding, 6 nulls, 7 definition-levels
    length, 8 repetition-levels length, 9 compressed (1/0).
    """
    fields[:] = -1
    fields[9] = 1
    top = np.full(9, -1, np.int64)  # the PageHeader's own i32 fields 1-3
    sub = np.full(9, -1, np.int64)  # those of its one page-type header
    last = 0
    while True:
        kind, field, at = _field_header(buf, at, stop, last)
        if at < 0 or kind == 0:
            break
        last = field
        if kind == 12 and field in (5, 7, 8):
            at = _header_struct(buf, at, stop, sub)
            fields[3], fields[4] = sub[1], (sub[4] if field == 8 else sub[2])
            if field == 5:
                fields[5] = sub[3]
            elif field == 8:
                fields[6], fields[7], fields[8] = sub[2], sub[5], sub[6]
                fields[9] = 0 if sub[7] == 0 else 1
        elif kind == 5 and field in (1, 2, 3):
            raw, at = _uvarint(buf, at, stop)
            top[field] = _zigzag(raw)
        elif kind not in (1, 2):
            at = _skip(buf, at, stop, kind)
        if at < 0:
            return -1
    fields[0], fields[1], fields[2] = top[1], top[2], top[3]
    return at


# -- page bodies ---------------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def snappy(src, at, stop, dst):
    """Decompress the raw Snappy block ``src[at:stop]`` into ``dst``; return its size, or -1.

    The block is its length (ULEB128), then elements: a literal (tag & 3 == 0; its length - 1 in
    the tag's upper six bits, or in the 1-4 bytes after it for 60-63) or a copy of earlier output
    (tags 1, 2, 3: offsets of 11, 16 and 32 bits), which may overlap what it writes.
    """
    size, at = _uvarint(src, at, stop)
    if at < 0 or size > dst.size:
        return -1
    out = 0
    while at < stop:
        tag = np.int64(src[at])
        at += 1
        kind = tag & 3
        if kind == 0:
            length = tag >> 2
            if length >= 60:
                extra = length - 59
                if at + extra > stop:
                    return -1
                length = 0
                for k in range(extra):
                    length |= np.int64(src[at + k]) << (8 * k)
                at += extra
            length += 1
            if at + length > stop or out + length > size:
                return -1
            _move(dst, out, src, at, length)
            at += length
            out += length
            continue
        if kind == 1:
            if at >= stop:
                return -1
            length = 4 + ((tag >> 2) & 7)
            offset = ((tag >> 5) << 8) | np.int64(src[at])
            at += 1
        else:
            width = 2 if kind == 2 else 4
            if at + width > stop:
                return -1
            length = 1 + (tag >> 2)
            offset = 0
            for k in range(width):
                offset |= np.int64(src[at + k]) << (8 * k)
            at += width
        if offset <= 0 or offset > out or out + length > size:
            return -1
        if offset >= length:
            _move(dst, out, dst, out - offset, length)
        else:
            for k in range(length):
                dst[out + k] = dst[out - offset + k]
        out += length
    return out if out == size else -1


@njit(cache=True, nogil=True)
def page_body(chunk, at, compressed, size, codec, buffer):
    """The page's bytes: ``chunk[at:at + compressed]`` itself (``codec`` 0) or Snappy-decompressed
    into ``buffer`` (1); an empty array when the page is damaged."""
    if at < 0 or compressed < 0 or size < 0 or at + compressed > chunk.size:
        return chunk[:0]
    if codec == 0:
        return chunk[at : at + compressed] if compressed == size else chunk[:0]
    if size > buffer.size or snappy(chunk, at, at + compressed, buffer) != size:
        return chunk[:0]
    return buffer[:size]


@njit(cache=True, nogil=True)
def _all_equal(buf, at, stop, bit_width, count, value):
    """Whether the first ``count`` values of the hybrid in ``buf[at:stop]`` all equal ``value``:
    a run is checked at its header, a bit-packed group value by value."""
    n = 0
    mask = (np.int64(1) << bit_width) - 1
    while n < count:
        header, at = _uvarint(buf, at, stop)
        if at < 0:
            return False
        if header & 1 == 0:
            if at + (bit_width + 7) // 8 > stop:
                return False
            run = np.int64(0)
            for k in range((bit_width + 7) // 8):
                run |= np.int64(buf[at + k]) << (8 * k)
            at += (bit_width + 7) // 8
            if run != value and header >> 1 > 0:
                return False
            n += header >> 1
        else:
            size = (header >> 1) * bit_width
            if at + size > stop:
                return False
            m = min((header >> 1) * 8, count - n)
            for k in range(m):
                bit = k * bit_width
                if (np.int64(buf[at + (bit >> 3)]) | np.int64(buf[min(at + (bit >> 3) + 1, stop - 1)]) << 8) >> (
                    bit & 7
                ) & mask != value:
                    return False
            at += size
            n += m
    return True


# status codes of data_pages: why a column chunk is left to pyarrow
DAMAGED, NULL, ENCODING = -1, -2, -3
_STATUS = {DAMAGED: "a page this reader cannot parse", NULL: "a null", ENCODING: "an encoding it does not decode"}


@njit(cache=True, nogil=True)
def _hybrid_bits(buf, at, stop, count, out, dst_bit):
    """Decode ``count`` booleans of the 1-bit hybrid in ``buf[at:stop]`` to bits of ``out`` from
    ``dst_bit``; return how many were decoded. Bit-packed groups are the bitmap's own bytes."""
    n = 0
    while n < count:
        header, at = _uvarint(buf, at, stop)
        if at < 0 or at >= stop or header < 0:  # a damaged header (bit 63 set), as unpack_hybrid's
            return n
        if header & 1 == 0:
            value = buf[at] & 1
            at += 1
            for k in range(min(header >> 1, count - n)):
                d = dst_bit + n + k
                if value:
                    out[d >> 3] |= np.uint8(1 << (d & 7))
                else:
                    out[d >> 3] &= np.uint8(~(1 << (d & 7)) & 0xFF)
            n += min(header >> 1, count - n)
        else:
            size = header >> 1  # bytes: 8 one-bit values a group
            if at + size > stop:
                return n
            m = min(size * 8, count - n)
            copy_bits(buf, at, m, out, dst_bit + n)
            at += size
            n += m
    return n


@njit(cache=True, nogil=True)
def _page_values(page, v, count, encoding, kind, width, out, indices, dictionary, dict_count, filled):
    """Decode one page's ``count`` values from byte ``v`` into row ``filled`` on (see
    :func:`data_pages`); return 0, or a negative status."""
    if encoding in (2, 8):
        if dict_count < 0 or kind == 0 or v >= page.size:
            return ENCODING
        bit_width = np.int64(page[v])
        if kind == 2:
            got = unpack_hybrid(page, v + 1, page.size, bit_width, indices, filled, count, dict_count)
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
        length = _u32(page, v)
        if v + 4 + length > page.size or _hybrid_bits(page, v + 4, v + 4 + length, count, out, filled) != count:
            return DAMAGED
    elif encoding == 0 and kind == 0:
        if v + (count + 7) // 8 > page.size:
            return DAMAGED
        copy_bits(page, v, count, out, filled)
    elif encoding == 0 and kind == 1:
        if v + count * width > page.size:
            return DAMAGED
        _move(out, filled * width, page, v, count * width)
    else:
        return ENCODING
    return 0


@njit(cache=True, nogil=True)
def data_pages(chunk, at, codec, kind, width, max_def, rows, out, indices, dictionary, dict_count, buffer):
    """Decode the data pages of a column chunk from ``at`` on; return the values decoded, or a
    negative status (``DAMAGED``, ``NULL``, ``ENCODING``).

    ``kind`` 0 (booleans) writes the bitmap ``out``; 1 (fixed ``width`` values) their bytes to
    ``out``, dictionary pages through ``indices`` and the ``dict_count`` values of ``dictionary``
    (bytes); 2 (strings) the dictionary ``indices``.
    """
    fields = np.empty(16, np.int64)
    filled = 0
    while at < chunk.size:
        body = page_header(chunk, at, chunk.size, fields)
        if body < 0 or fields[2] < 0 or body + fields[2] > chunk.size:
            return DAMAGED
        at = body + fields[2]
        if fields[0] == 1:  # an index page: nothing a count reads
            continue
        count, encoding = fields[3], fields[4]
        if fields[0] not in (0, 3) or count < 0 or count > rows - filled:
            return DAMAGED
        v = 0
        if fields[0] == 3:
            if fields[6] != 0:
                return NULL
            if fields[8] != 0 or fields[7] < 0 or fields[7] > fields[2]:
                return DAMAGED
            page = page_body(
                chunk, body + fields[7], fields[2] - fields[7], fields[1] - fields[7], codec * fields[9], buffer
            )
        else:
            page = page_body(chunk, body, fields[2], fields[1], codec, buffer)
            if max_def and page.size >= 4:
                if fields[5] != 3:
                    return ENCODING
                length = _u32(page, 0)
                if 4 + length > page.size:
                    return DAMAGED
                if not _all_equal(page, 4, 4 + length, 1, count, 1):
                    return NULL
                v = 4 + length
        if page.size == 0 and count > 0:
            return DAMAGED
        status = _page_values(page, v, count, encoding, kind, width, out, indices, dictionary, dict_count, filled)
        if status < 0:
            return status
        filled += count
    return filled


# -- row groups ----------------------------------------------------------------------------------


class RowGroups:
    """The row groups of one Parquet file, decoded column by column (see the module docstring).

    Parameters
    ----------
    path : str
        A local Parquet file.
    metadata : pyarrow.parquet.FileMetaData
        Its footer.
    schema : pyarrow.Schema
        The types the columns are read as (the dataset's: strings as dictionaries).
    """

    def __init__(self, path: str, metadata, schema: pa.Schema):
        self.path, self.metadata, self.schema = path, metadata, schema
        self.leaves = {}
        for j in range(metadata.num_columns):
            column = metadata.schema.column(j)
            self.leaves[column.path] = (
                j,
                column.physical_type,
                column.max_definition_level,
                column.max_repetition_level,
            )

    def read(self, group: int, columns) -> pa.RecordBatch:
        """Decode row group ``group``'s ``columns`` as a record batch; :class:`Unsupported` when a
        column is not one this reader decodes."""
        meta = self.metadata.row_group(group)
        if not 0 <= meta.num_rows <= MAX_GROUP_ROWS:
            raise Unsupported("a row group too large to decode whole")
        arrays = []
        with open(self.path, "rb") as handle:
            for name in columns:
                if name not in self.leaves:
                    raise Unsupported(f"column {name!r} is nested or absent")
                j, physical, max_def, max_rep = self.leaves[name]
                if max_rep or max_def > 1:
                    raise Unsupported("a nested column")
                chunk_meta = meta.column(j)
                start = chunk_meta.data_page_offset
                if chunk_meta.has_dictionary_page and chunk_meta.dictionary_page_offset is not None:
                    start = min(start, chunk_meta.dictionary_page_offset)
                size, unpacked = chunk_meta.total_compressed_size, chunk_meta.total_uncompressed_size
                # a damaged footer's sizes are not taken at their word: Snappy unpacks at most ~21 times
                if start < 0 or size <= 0 or not 0 <= unpacked <= _MAX_RATIO * size + (1 << 16):
                    raise Unsupported("column chunk sizes this reader does not trust")
                handle.seek(start)
                chunk = _memory.empty(size, np.uint8)
                chunk = chunk[: handle.readinto(chunk)]  # a file cut short leaves the chunk short
                layout = _layout(physical, self.schema.field(name).type)
                arrays.append(_column(chunk, chunk_meta, layout, max_def, meta.num_rows))
        return pa.RecordBatch.from_arrays(arrays, names=list(columns))


def _layout(physical: str, arrow_type: pa.DataType) -> tuple[int, int, object]:
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


def _column(chunk: np.ndarray, chunk_meta, layout, max_def: int, rows: int) -> pa.Array:
    kind, width, dtype = layout
    codec = _CODECS.get(chunk_meta.compression)
    if codec is None:
        raise Unsupported(f"codec {chunk_meta.compression}")
    buffer = _memory.empty(max(1, chunk_meta.total_uncompressed_size), np.uint8)  # bounds every page
    at, dictionary, count = 0, np.zeros(1, np.uint8), -1
    fields = np.empty(16, np.int64)
    body = page_header(chunk, 0, chunk.size, fields)
    if body >= 0 and fields[0] == _DICTIONARY_PAGE:
        count = int(fields[3])
        page = page_body(chunk, body, fields[2], fields[1], codec, buffer)
        if count < 0 or (page.size == 0 and count):
            raise Unsupported(_STATUS[DAMAGED])
        dictionary = _dictionary(page.copy(), count, kind, width)
        at = body + int(fields[2])
    out = _memory.zeros((rows + 7) // 8 + 8 if kind == 0 else rows * width, np.uint8)
    indices = _memory.empty(rows if kind == 2 else 0, np.int32)
    values = dictionary if kind == 1 else np.zeros(1, np.uint8)
    filled = data_pages(chunk, at, codec, kind, width, max_def, rows, out, indices, values, count, buffer)
    if filled != rows:
        raise Unsupported(_STATUS.get(filled, "fewer values than the row group's rows"))
    if kind == 0:
        return pa.Array.from_buffers(pa.bool_(), rows, [None, pa.py_buffer(out)])
    if kind == 1:
        return pa.array(out.view(dtype))
    return pa.DictionaryArray.from_arrays(pa.array(indices), dictionary, safe=False)


def _dictionary(page: np.ndarray, count: int, kind: int, width: int):
    """A dictionary page's values: an Arrow string array (strings), its bytes (fixed values)."""
    if kind == 1:
        if page.size < count * width:
            raise Unsupported(_STATUS[DAMAGED])
        return page[: count * width]
    if kind == 0:
        raise Unsupported("a dictionary page for booleans")
    offsets = np.zeros(count + 1, np.int64)
    data = np.empty(max(1, page.size), np.uint8)
    size = plain_byte_arrays(page, 0, page.size, count, offsets, data)
    if size < 0 or size >= (1 << 31) - 1:
        raise Unsupported(_STATUS[DAMAGED])
    return pa.Array.from_buffers(
        pa.string(), count, [None, pa.py_buffer(offsets.astype(np.int32)), pa.py_buffer(data[:size].copy())]
    )
