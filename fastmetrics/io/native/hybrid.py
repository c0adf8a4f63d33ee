"""Parquet's RLE/bit-packed hybrid encoding (definition levels, dictionary indices, booleans) and
its plain byte arrays, decoded by numba kernels that check every length against the buffer."""

from __future__ import annotations

import numpy as np
from numba import njit

from ..._strings import load_word, move_bytes
from . import thrift

# bit-packed groups of 8 a run header may give (pyarrow's bound, a group fewer: values in an int32)
_MAX_GROUPS = ((1 << 31) - 1) // 8


@njit(cache=True, nogil=True, inline="always")
def _run(buf, at, stop, bit_width, left):
    """The next run of the hybrid at ``at``: ``(packed, values, size, position)`` -- whether it is
    bit-packed, the values it gives (at most ``left``), its bytes after the header (bit-packed
    runs; a repeated run's value takes ``ceil(bit_width / 8)``) and the position after its
    header; position -1 when the header is damaged: a bit-packed run longer than the bytes left,
    or a header pyarrow refuses -- more than 5 bytes or 32 bits (it reads a uint32), a run of
    no values, more than 2^31 - 1 bit-packed values. No product is formed before its factors
    are bounded."""
    header, after = thrift.uvarint(buf, at, stop)
    if after < 0 or after > at + 5 or header >= np.int64(1) << 32 or header >> 1 == 0:
        return False, 0, 0, -1
    at = after
    n = header >> 1
    if header & 1 and n > _MAX_GROUPS:
        return True, 0, 0, -1
    if header & 1 == 0:
        size = (bit_width + 7) // 8
        if size > stop - at:
            return False, 0, 0, -1
        return False, min(n, left), size, at
    if bit_width > 0 and n > (stop - at) // bit_width:
        return True, 0, 0, -1
    size = n * bit_width  # bytes: 8 values of bit_width bits a group
    values = left if n >= (left + 7) // 8 else n * 8
    return True, values, size, at


@njit(cache=True, nogil=True, inline="always")
def little_endian(buf, at, size):
    """Read an unsigned integer of ``size`` bytes at ``at``, least significant byte first.

    A repeated run's value here; a Snappy element's length or offset in :mod:`.snappy`."""
    value = np.uint64(0)
    for k in range(size):
        value |= np.uint64(buf[at + k]) << np.uint64(8 * k)
    return value


@njit(cache=True, nogil=True)
def unpack_hybrid(buf, at, stop, bit_width, out, start, count, limit, table=None, present=None):
    """Decode values of the RLE/bit-packed hybrid.

    Decode ``count`` values of the RLE/bit-packed hybrid in ``buf[at:stop]`` into
    ``out[start:start + count]``; return how many were decoded (fewer: the data is short or
    damaged), or -1 when a value is ``limit`` or more (an index past its dictionary).

    With a ``table`` (a dictionary page's fixed-width values), ``out`` receives ``table[value]``
    instead of the value: a run of one index is then one fill of its value, with no array of
    indices written and read back.

    With a non-empty ``present`` (one byte per dictionary value), ``present[value]`` is set for
    every value decoded: the distinct indices of a page found at one store a run, where a scan of
    the decoded indices costs a read of every row.

    A run header ``h`` (ULEB128) with ``h & 1 == 0`` is ``h >> 1`` copies of one value stored in
    ``ceil(bit_width / 8)`` bytes; otherwise ``h >> 1`` groups of 8 values of ``bit_width`` bits,
    least significant bit first.
    """
    if bit_width > 32 or stop > buf.size:
        return 0
    n = 0
    mask = (np.uint64(1) << np.uint64(bit_width)) - np.uint64(1)
    top = np.uint64(0)  # the largest value written, checked against limit once
    while n < count and at < stop:
        packed, m, size, at = _run(buf, at, stop, bit_width, count - n)
        if at < 0:
            return n
        if not packed:
            value = little_endian(buf, at, size)
            at += size
            if m > 0:
                top = max(top, value)
                if present is not None:
                    if value < np.uint64(min(limit, present.size)):
                        present[value] = 1
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
            safe = m if at + size + 8 <= buf.size else max(0, m - 16)  # values a word load may read
            base = np.uint64(start + n)  # unsigned: numba wraps a signed index, a cost per value
            for k in range(safe):
                bit = k * bit_width
                value = (load_word(buf, at + (bit >> 3)) >> np.uint64(bit & 7)) & mask
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
            if present is not None:
                last = min(limit, present.size) - 1  # a value past it is refused below
                if last >= 0:
                    for r in range(start + n, start + n + m):
                        present[min(np.uint64(out[r]), np.uint64(last))] = 1
            if table is not None and limit > 0:  # indices to values, in a loop of its own
                for r in range(start + n, start + n + m):
                    out[r] = table[min(np.uint64(out[r]), np.uint64(limit - 1))]  # past it: refused below
            at += size
            n += m
    if n and top >= np.uint64(limit):
        return -1
    return n


@njit(cache=True, nogil=True)
def all_equal(buf, at, stop, bit_width, count, value):
    """Whether the first ``count`` values of a hybrid all equal ``value``.

    The hybrid is ``buf[at:stop]``; a run is checked at its header, a bit-packed group value by
    value."""
    n = 0
    mask = (np.int64(1) << bit_width) - 1
    while n < count:
        packed, m, size, at = _run(buf, at, stop, bit_width, count - n)
        if at < 0:
            return False
        if not packed:
            if little_endian(buf, at, size) != np.uint64(value) and m > 0:
                return False
        else:
            for k in range(m):
                bit = k * bit_width
                low = np.int64(buf[at + (bit >> 3)])
                high = np.int64(buf[min(at + (bit >> 3) + 1, stop - 1)])
                if (low | high << 8) >> (bit & 7) & mask != value:
                    return False
        at += size
        n += m
    return True


@njit(cache=True, nogil=True)
def copy_bits(src, at, count, dst, dst_bit):
    """Copy bits from one bitmap to another.

    Copy ``count`` bits from byte ``at`` of ``src`` (least significant first) to bit
    ``dst_bit`` of ``dst``: whole bytes when ``dst_bit`` is a byte boundary."""
    if dst_bit & 7 == 0:
        first = dst_bit >> 3
        size = (count + 7) >> 3
        move_bytes(dst, first, src, at, size)
        return
    for k in range(count):
        bit = (src[at + (k >> 3)] >> (k & 7)) & 1
        d = dst_bit + k
        if bit:
            dst[d >> 3] |= np.uint8(1 << (d & 7))
        else:
            dst[d >> 3] &= np.uint8(~(1 << (d & 7)) & 0xFF)


@njit(cache=True, nogil=True)
def hybrid_bits(buf, at, stop, count, out, dst_bit):
    """Decode booleans of a 1-bit hybrid to a bitmap.

    ``count`` booleans of ``buf[at:stop]`` go to the bits of ``out`` from ``dst_bit``; returns how
    many were decoded. Bit-packed groups are the bitmap's own bytes."""
    n = 0
    while n < count:
        packed, m, size, at = _run(buf, at, stop, 1, count - n)
        if at < 0:
            return n
        if not packed:
            value = buf[at] & 1
            for k in range(m):
                d = dst_bit + n + k
                if value:
                    out[d >> 3] |= np.uint8(1 << (d & 7))
                else:
                    out[d >> 3] &= np.uint8(~(1 << (d & 7)) & 0xFF)
        else:
            copy_bits(buf, at, m, out, dst_bit + n)
        at += size
        n += m
    return n


@njit(cache=True, nogil=True, inline="always")
def read_u32(buf, at):
    """The little-endian 4-byte length at ``at`` (levels and booleans of a page are prefixed by one)."""
    return np.int64(buf[at]) | np.int64(buf[at + 1]) << 8 | np.int64(buf[at + 2]) << 16 | np.int64(buf[at + 3]) << 24


@njit(cache=True, nogil=True)
def plain_byte_arrays(buf, at, stop, count, offsets, data):
    """Decode plain BYTE_ARRAY values into Arrow string buffers.

    Decode ``count`` plain BYTE_ARRAY values (each a 4-byte little-endian length, then the
    bytes) into Arrow string ``offsets`` and ``data``; return the bytes written, or -1 when the
    page is short."""
    size = 0
    for k in range(count):
        if at + 4 > stop:
            return -1
        length = read_u32(buf, at)
        at += 4
        if length > stop - at:
            return -1
        move_bytes(data, size, buf, at, length)
        size += length
        at += length
        offsets[k + 1] = size
    return size
