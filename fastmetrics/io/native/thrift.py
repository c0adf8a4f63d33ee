"""Thrift's compact protocol, in which Parquet writes its page headers and its footer: the
primitives the page reader walks headers with, and the footer's column chunk records.

The bytes are untrusted. Every position is compared with the end of the bytes before it is read,
every size a value declares (a string's, a list's) with the bytes left before anything is
skipped, read or allocated by it, every integer field with the range of its Thrift type, so a
damaged header ends the walk (-1) instead of reading past the end, or looping over a size the
bytes cannot hold.

Reference: the Apache Thrift compact protocol specification (``thrift-compact-protocol.md``) and
the Parquet format's ``parquet.thrift``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

# compact protocol types
STOP, TRUE, FALSE, BYTE, I16, I32, I64, DOUBLE, BINARY, LIST, SET, MAP, STRUCT = range(13)
FIELDS = 32  # struct fields read by their id (parquet.thrift's structs have fewer)
_DEPTH = 64  # nesting a skipped value may have

# the column chunk records of footer(): one int64 a slot
TYPE, CODEC, VALUES, UNPACKED, PACKED, DATA, DICTIONARY, NULLS = range(8)
MAX_AT, MAX_LEN, MIN_AT, MIN_LEN, MAX_VALUE_AT, MAX_VALUE_LEN, MIN_VALUE_AT, MIN_VALUE_LEN = range(8, 16)
EXTERNAL, SCHEMA_TYPE = 16, 17  # 1: data in another file or encrypted; the schema leaf's type
REP_HISTOGRAM, DEF_HISTOGRAM = 18, 19  # the sizes of the level histograms of SizeStatistics
RECORD = 20


@njit(cache=True, nogil=True, inline="always")
def uvarint(buf, at, stop):
    """Read a ULEB128 varint.

    ULEB128 at ``at``: (value, next position); position -1 when it runs past ``stop`` or past
    ten bytes. Bits beyond 64 are dropped (a value of bit 63 is negative as an int64)."""
    value, shift = np.int64(0), 0
    if at < 0:
        return value, -1
    while at < stop and shift < 64:
        b = np.int64(buf[at])
        at += 1
        value |= (b & 0x7F) << shift
        shift += 7
        if b < 0x80:
            return value, at
    return value, -1


@njit(cache=True, nogil=True, inline="always")
def zigzag(n):
    """The signed integer of a zigzag-encoded one."""
    return (n >> 1) ^ -(n & 1)


@njit(cache=True, nogil=True, inline="always")
def field_header(buf, at, stop, last):
    """Read the header of a struct's next field.

    The next field of a struct at ``at``, after field ``last``: (type, id, position after the
    header); type ``STOP`` at the struct's end; position -1 when the header is damaged."""
    if at < 0 or at >= stop:
        return STOP, 0, -1
    head = np.int64(buf[at])
    at += 1
    if head == 0:
        return STOP, 0, at
    kind = head & 0x0F
    if kind == STOP or kind > STRUCT:
        return STOP, 0, -1
    if head >> 4:  # the id as a delta from the last one's
        return kind, last + (head >> 4), at
    raw, at = uvarint(buf, at, stop)
    field = zigzag(raw)
    if field < -(1 << 15) or field >= 1 << 15:  # an i16
        return STOP, 0, -1
    return kind, field, at


@njit(cache=True, nogil=True, inline="always")
def _element_header(buf, at, stop):
    """A list's or set's header at ``at``: (element type, size, position of the first element);
    position -1 when damaged or when the size exceeds the bytes left (each element takes one at
    least)."""
    if at < 0 or at >= stop:
        return STOP, 0, -1
    head = np.int64(buf[at])
    at += 1
    size = head >> 4
    if size == 15:
        size, at = uvarint(buf, at, stop)
    if at < 0 or size < 0 or size > stop - at:
        return STOP, 0, -1
    return head & 0x0F, size, at


@njit(cache=True, nogil=True)
def list_header(buf, at, stop):
    """:func:`_element_header`, for the callers that walk a list's elements themselves."""
    return _element_header(buf, at, stop)


@njit(cache=True, nogil=True, inline="always")
def _open(buf, at, stop, kind, depth, kinds, values, left, maps):
    """Push the list, set or map whose header is at ``at`` on the stack of :func:`skip`; return
    the position of its first element, or -1 when its size exceeds the bytes left."""
    if kind == MAP:
        size, at = uvarint(buf, at, stop)
        if at < 0 or size < 0 or size > (stop - at) // 2:  # a key and a value of a byte at least
            return -1
        types = np.int64(buf[at]) if size else 0x11
        if not (_is_type(types >> 4) and _is_type(types & 0x0F)):
            return -1
        kinds[depth], values[depth], left[depth], maps[depth] = types >> 4, types & 0x0F, 2 * size, True
        return at + 1 if size else at
    element, size, at = _element_header(buf, at, stop)
    # an empty list may give no element type (fastparquet writes 0), which Thrift's reader takes
    if not (_is_type(element) or (size == 0 and element == STOP)):
        return -1
    kinds[depth], left[depth], maps[depth] = element, size, False
    return at


@njit(cache=True, nogil=True, inline="always")
def _is_type(kind):
    """Whether ``kind`` is a type a value may have (STOP is none)."""
    return TRUE <= kind <= STRUCT


@njit(cache=True, nogil=True)
def skip(buf, at, stop, kind):
    """Skip one value of the compact protocol.

    Position after one value of type ``kind`` at ``at`` (nested containers walked with an
    explicit stack); -1 when it runs past ``stop``, nests deeper than 64, or holds a type the
    protocol does not have. Each step consumes a byte or closes a container, so the walk ends
    within ``stop - at`` steps whatever sizes the bytes declare."""
    kinds = np.empty(_DEPTH, np.int64)  # element type of each open container (a map's key type)
    values = np.empty(_DEPTH, np.int64)  # a map's value type
    left = np.empty(_DEPTH, np.int64)  # elements left; -1 in a struct
    maps = np.zeros(_DEPTH, np.bool_)
    depth = 0
    pending = kind
    while True:
        if at < 0 or at > stop:
            return -1
        if pending == BYTE:
            at += 1
        elif pending == I16 or pending == I32 or pending == I64:
            _, at = uvarint(buf, at, stop)
        elif pending == DOUBLE:
            at += 8
        elif pending == BINARY:
            size, at = uvarint(buf, at, stop)
            if at < 0 or size < 0 or size > stop - at:
                return -1
            at += size
        elif pending == LIST or pending == SET or pending == MAP:
            if depth == _DEPTH:
                return -1
            at = _open(buf, at, stop, pending, depth, kinds, values, left, maps)
            depth += 1
        elif pending == STRUCT:
            if depth == _DEPTH:
                return -1
            kinds[depth], left[depth], maps[depth] = STRUCT, -1, False
            depth += 1
        elif pending != TRUE and pending != FALSE:  # a boolean field's value is its type
            return -1
        if at < 0 or at > stop:
            return -1
        pending = STOP
        while depth > 0 and pending == STOP:
            d = depth - 1
            if left[d] < 0:  # in a struct: the next field's header, or its end
                pending, _, at = field_header(buf, at, stop, 0)
                if at < 0:
                    return -1
                if pending == STOP:
                    depth -= 1
                elif pending == TRUE or pending == FALSE:
                    pending = STOP
            elif left[d] == 0:
                depth -= 1
            else:
                left[d] -= 1
                pending = values[d] if maps[d] and left[d] % 2 == 0 else kinds[d]
                if pending == TRUE or pending == FALSE:  # a boolean element is a byte
                    at += 1
                    pending = STOP
                    if at > stop:
                        return -1
        if depth == 0 and pending == STOP:
            return at


@njit(cache=True, nogil=True)
def struct_fields(buf, at, stop, kinds, ints, starts):
    """Read a struct's integer fields and where its other fields are.

    Read the struct at ``at``: for each field id ``f < FIELDS``, ``kinds[f]`` its type (0:
    absent), ``ints[f]`` its value when an integer (booleans 1/0) and ``starts[f]`` the position
    of its value (a nested struct, list or string is read from there). Return the position after
    the struct, or -1 when it is damaged: an integer outside its type's range, a field beyond
    the bytes, a size they cannot hold."""
    kinds[:] = STOP
    last = 0
    while True:
        kind, field, at = field_header(buf, at, stop, last)
        if at < 0:
            return -1
        if kind == STOP:
            return at
        last = field
        mine = 0 <= field < FIELDS
        if mine:
            kinds[field], starts[field] = kind, at
        if kind == TRUE or kind == FALSE:
            if mine:
                ints[field] = 1 if kind == TRUE else 0
        elif kind == BYTE:
            if at >= stop:
                return -1
            if mine:
                ints[field] = np.int64(np.int8(buf[at]))
            at += 1
        elif kind == I16 or kind == I32 or kind == I64:
            raw, at = uvarint(buf, at, stop)
            if at < 0:
                return -1
            value = zigzag(raw)
            bits = 15 if kind == I16 else 31 if kind == I32 else 63
            if bits < 63 and (value < -(1 << bits) or value >= 1 << bits):
                return -1
            if mine:
                ints[field] = value
        else:
            at = skip(buf, at, stop, kind)
            if at < 0:
                return -1


@njit(cache=True, nogil=True, inline="always")
def _integer(kinds, ints, field, kind):
    """An integer field's value, or -1 when it is absent or not of its declared type ``kind``: a
    Thrift reader skips a field of another type, as if it were absent (pyarrow's does)."""
    return ints[field] if kinds[field] == kind else np.int64(-1)


@njit(cache=True, nogil=True)
def _binary_span(buf, kinds, starts, field, stop, record, slot):
    """``record[slot:slot + 2]`` = (position, length) of a binary field, (-1, -1) when absent."""
    record[slot], record[slot + 1] = -1, -1
    if kinds[field] == BINARY:
        size, at = uvarint(buf, starts[field], stop)
        if at >= 0 and 0 <= size <= stop - at:
            record[slot], record[slot + 1] = at, size


@njit(cache=True, nogil=True)
def _leaf_types(buf, at, stop, out):
    """The physical types of the schema's leaves (elements without children, the root left out)
    into ``out``; return how many, or -1."""
    element, size, at = _element_header(buf, at, stop)
    if at < 0 or element != STRUCT:
        return -1
    kinds, ints, starts = np.zeros(FIELDS, np.int64), np.zeros(FIELDS, np.int64), np.zeros(FIELDS, np.int64)
    n = 0
    for e in range(size):
        at = struct_fields(buf, at, stop, kinds, ints, starts)
        if at < 0:
            return -1
        if e > 0 and _integer(kinds, ints, 5, I32) <= 0:  # num_children: a leaf has none
            if n < out.size:
                out[n] = _integer(kinds, ints, 1, I32)
            n += 1
    return n


@njit(cache=True, nogil=True)
def footer(buf, stop, chunks, rows, writer):
    """Read the column chunk records of a Parquet footer.

    Read a Parquet footer (``FileMetaData``) from ``buf[:stop]``: each column chunk's record
    into ``chunks[group, column]`` (slots ``TYPE`` ... ``SCHEMA_TYPE``, -1 when absent; positions
    of statistics are in ``buf``), each row group's rows into ``rows``, and where its
    ``created_by`` string is into ``writer`` (position, length; -1 when absent). Return 0, or -1
    when the footer is damaged or its shape is not ``chunks``'s."""
    n_groups, n_columns = chunks.shape[0], chunks.shape[1]
    chunks[:] = -1
    kinds, ints, starts = np.zeros(FIELDS, np.int64), np.zeros(FIELDS, np.int64), np.zeros(FIELDS, np.int64)
    if struct_fields(buf, 0, stop, kinds, ints, starts) < 0 or kinds[2] != LIST:
        return -1
    _binary_span(buf, kinds, starts, 6, stop, writer, 0)
    leaves = np.full(n_columns, -1, np.int64)
    if _leaf_types(buf, starts[2], stop, leaves) != n_columns:
        return -1
    if n_groups == 0:
        return 0 if kinds[4] == STOP or (kinds[4] == LIST and _element_header(buf, starts[4], stop)[1] == 0) else -1
    if kinds[4] != LIST:
        return -1
    element, size, at = _element_header(buf, starts[4], stop)
    if at < 0 or element != STRUCT or size != n_groups:
        return -1
    g_kinds, g_ints, g_starts = np.zeros(FIELDS, np.int64), np.zeros(FIELDS, np.int64), np.zeros(FIELDS, np.int64)
    s_kinds, s_ints, s_starts = np.zeros(FIELDS, np.int64), np.zeros(FIELDS, np.int64), np.zeros(FIELDS, np.int64)
    for g in range(n_groups):
        at = struct_fields(buf, at, stop, g_kinds, g_ints, g_starts)
        if at < 0 or g_kinds[1] != LIST:
            return -1
        rows[g] = _integer(g_kinds, g_ints, 3, I64)
        element, size, c_at = _element_header(buf, g_starts[1], stop)
        if c_at < 0 or element != STRUCT or size != n_columns:
            return -1
        for c in range(n_columns):
            record = chunks[g, c]
            c_at = struct_fields(buf, c_at, stop, kinds, ints, starts)
            if c_at < 0:
                return -1
            record[SCHEMA_TYPE] = leaves[c]
            # a path to another file, or encryption: the chunk is not in this file in the clear
            record[EXTERNAL] = (
                1 if kinds[1] != STOP or kinds[8] != STOP or kinds[9] != STOP or kinds[3] != STRUCT else 0
            )
            if kinds[3] != STRUCT:
                continue
            if struct_fields(buf, starts[3], stop, kinds, ints, starts) < 0:
                return -1
            record[TYPE], record[CODEC] = _integer(kinds, ints, 1, I32), _integer(kinds, ints, 4, I32)
            record[VALUES], record[UNPACKED] = _integer(kinds, ints, 5, I64), _integer(kinds, ints, 6, I64)
            record[PACKED], record[DATA] = _integer(kinds, ints, 7, I64), _integer(kinds, ints, 9, I64)
            record[DICTIONARY] = _integer(kinds, ints, 11, I64)
            size_statistics = starts[16] if kinds[16] == STRUCT else -1
            if kinds[12] == STRUCT:
                if struct_fields(buf, starts[12], stop, s_kinds, s_ints, s_starts) < 0:
                    return -1
                record[NULLS] = _integer(s_kinds, s_ints, 3, I64)
                _binary_span(buf, s_kinds, s_starts, 1, stop, record, MAX_AT)
                _binary_span(buf, s_kinds, s_starts, 2, stop, record, MIN_AT)
                _binary_span(buf, s_kinds, s_starts, 5, stop, record, MAX_VALUE_AT)
                _binary_span(buf, s_kinds, s_starts, 6, stop, record, MIN_VALUE_AT)
            if size_statistics >= 0:
                if struct_fields(buf, size_statistics, stop, s_kinds, s_ints, s_starts) < 0:
                    return -1
                for field, slot in ((2, REP_HISTOGRAM), (3, DEF_HISTOGRAM)):
                    if s_kinds[field] == LIST:
                        record[slot] = _element_header(buf, s_starts[field], stop)[1]
    return 0
