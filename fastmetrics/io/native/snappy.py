"""Snappy blocks decompressed in one kernel call a column chunk.

pyarrow's codec is the maintained implementation, but it is called once a block, from Python:
pyarrow writes a page every 20,000 rows, so a chunk of a million rows is some fifty blocks of a
few thousand bytes, and the calls cost more than the decompression (each releases the GIL, and
two threads decoding row groups side by side then hand it to each other at every page). Here a
chunk's blocks are decompressed by one ``nogil`` kernel. Issue 42 allowed a decoder of our own
only if pyarrow's measured more than 10 % slower end to end on the string-id Parquet file;
it measured 20-25 % slower (docs/guides/performance.md, "Snappy pages").

The decoder is strict where pyarrow's is: whatever it decompresses, pyarrow's codec decompresses
to the same bytes (``tests/io/test_native_snappy.py`` checks it on every block it is given, valid
and damaged), and a block it refuses sends the row group to pyarrow's reader
(:func:`fastmetrics.io.native.attempt`), whose reading or refusal is the one counted.

Reference: Google's Snappy format description (``format_description.txt``): a block is its
uncompressed length (a ULEB128 varint of at most 5 bytes, below 2^32), then elements -- a
literal (tag & 3 == 0; its length - 1 in the tag's upper six bits, or in the 1-4 bytes after it
for 60-63) or a copy of output already written (tags 1, 2, 3: offsets of 11, 16 and 32 bits,
from 1 to what was written), which may overlap what it writes.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..._strings import move_bytes
from .hybrid import little_endian
from .thrift import uvarint

# columns of a table of blocks: where a block's bytes are, how many, where its output goes,
# and how many bytes it unpacks to
B_FROM, B_LENGTH, B_TO, B_SIZE = range(4)


@njit(cache=True, nogil=True)
def decompress(src, at, stop, dst, to, size):
    """Decompress one raw Snappy block.

    Decompress ``src[at:stop]`` into ``dst[to:to + size]``; return True when the block states
    ``size`` as its length and its elements write exactly that many bytes, False otherwise
    (``dst`` then holds garbage from ``to`` on). Every read and write is checked against the
    block's and ``dst``'s bounds first.
    """
    if at < 0 or stop > src.size or at > stop or to < 0 or size < 0 or size > dst.size - to:
        return False
    stated, after = uvarint(src, at, stop)
    # pyarrow's codec reads at most 5 bytes of length and refuses a length of 2^32 or more
    if after < 0 or after > at + 5 or stated != size or stated >= np.int64(1) << 32:
        return False
    at, out, end = after, to, to + size
    while at < stop:
        tag = np.int64(src[at])
        at += 1
        kind = tag & 3
        if kind == 0:  # a literal
            length = tag >> 2
            if length >= 60:
                extra = length - 59
                if extra > stop - at:
                    return False
                length = np.int64(little_endian(src, at, extra))
                at += extra
            length += 1
            if length > stop - at or length > end - out:
                return False
            move_bytes(dst, out, src, at, length)
            at += length
            out += length
            continue
        if kind == 1:
            if at >= stop:
                return False
            length = 4 + ((tag >> 2) & 7)
            offset = ((tag >> 5) << 8) | np.int64(src[at])
            at += 1
        else:
            width = 2 if kind == 2 else 4
            if width > stop - at:
                return False
            length = 1 + (tag >> 2)
            offset = np.int64(little_endian(src, at, width))
            at += width
        if offset <= 0 or offset > out - to or length > end - out:
            return False
        if offset >= length:
            move_bytes(dst, out, dst, out - offset, length)
        else:  # the copy overlaps what it writes: a pattern repeated, byte by byte
            for k in range(length):
                dst[out + k] = dst[out - offset + k]
        out += length
    return out == end


@njit(cache=True, nogil=True)
def decompress_blocks(src, blocks, dst):
    """Decompress a table of Snappy blocks.

    Decompress each block of ``blocks`` (rows ``B_FROM``, ``B_LENGTH``, ``B_TO``, ``B_SIZE``)
    from ``src`` into ``dst``; return the index of the first block refused, or -1."""
    for k in range(blocks.shape[0]):
        start, length = blocks[k, B_FROM], blocks[k, B_LENGTH]
        if length < 0 or start > src.size - length:
            return k
        if not decompress(src, start, start + length, dst, blocks[k, B_TO], blocks[k, B_SIZE]):
            return k
    return -1
