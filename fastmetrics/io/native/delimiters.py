"""Where a CSV file's fields end: an index of its delimiters, 64 bytes at a time.

The plain dialect :mod:`fastmetrics.io.native.csv` reads has no quote or line end inside a
field, so every quote, CR and LF of the file is structure, and every comma but those inside
quotes (which the reader steps over). They are found first, for a
block of the file at a time: 64 bytes compared with each of the four in a few vector
instructions (:func:`_special_mask`, an LLVM vector comparison that becomes AVX-512, AVX2 or
SSE2 code, whatever the machine has), and the positions of the mask's set bits written to an
array with no branch a position (:func:`_append_positions`). Each line's fields are then taken
off the array (:func:`fastmetrics.io.native.csv.parse_range`).

Why two passes: found one field at a time, each field's end is the next field's start, and
searching from it takes a branch whose outcome follows the field's length. Ids, scores and
labels of varied lengths make that branch a misprediction a field, and each one waits on the
last: about 26 ns a field on the machines we measured. The index costs a few instructions a
delimiter, in a loop whose work does not depend on the data, and reading fields off it leaves
only branches the file's regular layout makes predictable (the same column is quoted on every
line): five times faster on the benchmark's files (see docs/guides/performance.md).

The simdjson parser (Langdale and Lemire, 2019, "Parsing gigabytes of JSON per second") made
this two-stage design known; this module takes the idea, not its code.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.cpython.unsafe.numbers import trailing_zeros
from numba.extending import intrinsic

NEWLINE, RETURN, COMMA, QUOTE = 10, 13, 44, 34

# bytes of the file indexed at a time: a multiple of 64, and its positions (8 bytes each, at
# most one a byte) stay in the core's L2 cache
CHUNK = 1 << 14

_ONE = np.uint64(1)
_ALL = np.uint64(0xFFFFFFFFFFFFFFFF)


@intrinsic
def _special_mask(typingctx, data, at):
    """Bit ``k`` set when byte ``at + k`` of ``data`` is a comma, a quote, a CR or a LF, for
    ``k`` in 0..63 (the caller makes sure the 64 bytes are inside ``data``)."""
    signature = types.uint64(data, types.int64)

    def codegen(context, builder, signature, args):
        array = context.make_array(signature.args[0])(context, builder, args[0])
        vector = ir.VectorType(ir.IntType(8), 64)
        pointer = builder.bitcast(builder.gep(array.data, [args[1]]), vector.as_pointer())
        block = builder.load(pointer, align=1)
        found = None
        for byte in (COMMA, QUOTE, RETURN, NEWLINE):
            equal = builder.icmp_unsigned("==", block, ir.Constant(vector, [byte] * 64))
            found = equal if found is None else builder.or_(found, equal)
        return builder.bitcast(found, ir.IntType(64))

    return signature, codegen


@intrinsic
def _popcount(typingctx, word):
    """The number of bits set in ``word``."""
    if word != types.uint64:
        return None
    signature = types.int64(types.uint64)

    def codegen(context, builder, signature, args):
        return builder.zext(builder.ctpop(args[0]), ir.IntType(64))

    return signature, codegen


@njit(cache=True, nogil=True, inline="always")
def _append_positions(positions, n, base, mask):
    """Write ``base + k`` for each bit ``k`` set in ``mask`` to ``positions[n:]``; the new ``n``.

    Eight positions are written whatever the count (those past it are overwritten later), then
    eight more only when there are more than eight: a line of a few short fields puts about a
    dozen delimiters in 64 bytes, and the count decides one branch a block, not one a position.
    ``positions`` has room for 16 entries past any count.
    """
    count = _popcount(mask)
    for k in range(8):
        positions[n + k] = base + np.int64(trailing_zeros(mask))
        mask &= mask - _ONE
    if count > 8:
        for k in range(8, 16):
            positions[n + k] = base + np.int64(trailing_zeros(mask))
            mask &= mask - _ONE
        k = 16
        while mask:
            positions[n + k] = base + np.int64(trailing_zeros(mask))
            mask &= mask - _ONE
            k += 1
    return n + count


@njit(cache=True, nogil=True)
def index_delimiters(buf, start, stop, positions, n):
    """Append the positions of the delimiters of ``buf[start:stop]`` to ``positions[n:]``.

    The commas, quotes, CRs and LFs, in order; returns the new ``n``. Bytes at and past ``stop``
    are never indexed, even where a block reads them.
    """
    at = start
    while at + 64 <= stop:
        n = _append_positions(positions, n, at, _special_mask(buf, at))
        at += 64
    if at < stop:
        if at + 64 <= buf.size:
            mask = _special_mask(buf, at) & ~(_ALL << np.uint64(stop - at))
            n = _append_positions(positions, n, at, mask)
        else:  # the file's last bytes, fewer than 64
            while at < stop:
                byte = buf[at]
                if byte == COMMA or byte == QUOTE or byte == RETURN or byte == NEWLINE:
                    positions[n] = at
                    n += 1
                at += 1
    return n


def positions_for(n_cols: int) -> np.ndarray:
    """An array of positions for :func:`refill` on lines of ``n_cols`` fields."""
    return np.empty(CHUNK + 2 * reserve_for(n_cols) + 64, np.int64)


@njit(cache=True, nogil=True)
def reserve_for(n_cols):
    """The most delimiters a line of ``n_cols`` fields has.

    A quote either side of each field, a comma or a line end after it (a CR LF: two)."""
    return 4 * n_cols + 4


@njit(cache=True, nogil=True)
def refill(buf, positions, n, i, indexed, stop, reserve):
    """Index more of ``buf[indexed:stop]`` when fewer than ``reserve`` positions are left unread.

    ``positions[i:n]`` are the positions not read yet. Returns the new ``(n, i, indexed)``: at
    least ``reserve`` positions from ``i`` on, the last ones ``stop`` once the range is all
    indexed (read as the data's end).
    """
    if n - i >= reserve or indexed >= stop:
        return n, i, indexed
    left = n - i
    for k in range(left):  # to the front, in order (the ranges may overlap)
        positions[k] = positions[i + k]
    n = left
    while n < reserve and indexed < stop:
        end = min(indexed + CHUNK, stop)
        n = index_delimiters(buf, indexed, end, positions, n)
        indexed = end
    if indexed >= stop:
        positions[n : n + reserve] = stop
    return n, 0, indexed
