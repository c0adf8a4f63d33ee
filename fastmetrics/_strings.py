"""Numba kernels that turn strings into integer codes. Private: used by
:func:`fastmetrics.count.encoders.string_codes` (Arrow string buffers) and
:mod:`fastmetrics.io.native.csv` (the fields of a CSV file, coded as they are parsed).

Each row's bytes are compared first with the row one *period* back, where the period is the
distance between the last two occurrences of a value met through the hash table. Ids come
grouped (a run of equal systems or topics: the period is 1) or repeated (the same items, in the
same order, for every system of a topic: the period is the distance between two systems' blocks),
so most rows cost one comparison of a few bytes and the hash is computed only where the pattern
breaks. Any order gives correct codes; only the speed depends on it, and the order only: no path
looks at what the bytes spell.

:func:`string_hash` is the one string hash of every table in the package (these coders, the CSV
reader's, the per-topic join of :mod:`fastmetrics.count._ranks`, the gold's index by topic in
:mod:`fastmetrics.count.goldindex`): every input bit reaches every output bit, so ids that differ
only in their last characters (``LA010189-0001``, ``doc42_7``), their first, or anywhere, spread
over a table's slots as random numbers would. The tables probe linearly from
``hash & (size - 1)`` at a load of at most 1/2, and a probe that runs long (:func:`long_probe`)
makes its table larger, so the slots searched for one id stay bounded whatever the ids: only ids
whose 64-bit hashes are equal could still share a run of slots.

Rows are split in ranges coded on their own (one per thread and chunk), each with its own
table; the ranges' distinct values are then merged in order into one store of distinct byte
strings, and a last pass rewrites every code as the rank of its value in the sorted store. The
kernels are serial and release the GIL: the caller spreads the ranges over threads, and no
parallel kernel is compiled on a first call.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

EMPTY = np.int64(-1)
# the hash's keys: odd, every byte >= 0x80, so that no word of ASCII text xor a key is zero (a
# zero factor would drop the other from the product)
_KEY_A = np.uint64(0xA0F69DE4F8BDE4AF)
_KEY_B = np.uint64(0xE783FED1A0B4A8DB)
_SEED = np.uint64(0x8EBCEAF09C88C6E3)
_LARGE_STRING_ID = pa.large_string().id


@intrinsic
def load_word(typingctx, data, at):
    """The 8 bytes of ``data`` from byte ``at`` as one little-endian word, at any alignment."""
    signature = types.uint64(data, types.int64)

    def codegen(context, builder, signature, args):
        array = context.make_array(signature.args[0])(context, builder, args[0])
        pointer = builder.bitcast(builder.gep(array.data, [args[1]]), ir.IntType(64).as_pointer())
        return builder.load(pointer, align=1)

    return signature, codegen


@intrinsic
def byte_swapped(typingctx, word):
    """``word`` with its 8 bytes in reverse order (one ``bswap``): a little-endian
    :func:`load_word` made big-endian, so that comparing two words as unsigned numbers compares
    their bytes in memory order, as ``memcmp`` does."""
    if word != types.uint64:
        return None
    signature = types.uint64(types.uint64)

    def codegen(context, builder, signature, args):
        return builder.bswap(args[0])

    return signature, codegen


@intrinsic
def move_bytes(typingctx, dst, dst_at, src, src_at, count):
    """Copy ``count`` elements of ``src`` from ``src_at`` to ``dst`` from ``dst_at`` (memmove:
    the two may overlap). Numba compiles a slice assignment as an element loop, about five
    times slower than this on a 4 MB copy and on copies of a few bytes alike."""
    signature = types.void(dst, types.int64, src, types.int64, types.int64)

    def codegen(context, builder, signature, args):
        target = context.make_array(signature.args[0])(context, builder, args[0])
        source = context.make_array(signature.args[2])(context, builder, args[2])
        itemsize = context.get_abi_sizeof(context.get_data_type(signature.args[0].dtype))
        cgutils.raw_memmove(
            builder, builder.gep(target.data, [args[1]]), builder.gep(source.data, [args[3]]), args[4], itemsize
        )
        return context.get_dummy_value()

    return signature, codegen


@njit(cache=True, nogil=True, inline="always")
def last_word(data, lo, hi):
    """The bytes of ``data[lo:hi]`` after its whole words, as a word (zeros above them).

    Strings of 8 bytes or more end with a word that overlaps the one before; shorter ones are
    loaded as a word and masked when the buffer goes on for 8 bytes, else read byte by byte.
    """
    size = hi - lo
    if size >= 8:
        return load_word(data, hi - 8)
    if lo + 8 <= data.size:
        return load_word(data, lo) & ((np.uint64(1) << np.uint64(8 * size)) - np.uint64(1))
    word = np.uint64(0)
    for i in range(size):
        word |= np.uint64(data[lo + i]) << np.uint64(8 * i)
    return word


@intrinsic
def _mum(typingctx, a, b):
    """The 128-bit product of two words folded to one: its low word xor its high word.

    Every bit of either factor reaches the high word, so each output bit depends on every input
    bit (one ``mul`` on x86-64 and ARM64)."""
    if a != types.uint64 or b != types.uint64:
        return None
    signature = types.uint64(types.uint64, types.uint64)

    def codegen(context, builder, signature, args):
        wide = ir.IntType(128)
        product = builder.mul(builder.zext(args[0], wide), builder.zext(args[1], wide))
        low = builder.trunc(product, ir.IntType(64))
        high = builder.trunc(builder.lshr(product, ir.Constant(wide, 64)), ir.IntType(64))
        return builder.xor(low, high)

    return signature, codegen


@njit(cache=True, nogil=True, inline="always")
def string_hash(data, lo, hi):
    """A 64-bit hash of ``data[lo:hi]`` in which every input bit reaches every output bit.

    Sixteen bytes at a time are multiplied together as two words (each xor a key) into a 128-bit
    product folded to a word (:func:`_mum`), chained through the state; the last sixteen bytes
    (or the whole string, up to 16) are folded the same way and the result once more with the
    length. A table of ``2**k`` slots may take any ``k`` bits of the result: a product's low bits
    alone depend only on its factors' low bits, which is why the fold keeps the high word too.
    """
    size = np.uint64(hi - lo)
    state = _SEED ^ size
    if hi - lo <= 16:
        if hi - lo > 8:
            a, b = load_word(data, lo), load_word(data, hi - 8)
        else:
            a, b = last_word(data, lo, hi), np.uint64(0)
    else:
        at = lo
        while hi - at > 16:
            state = _mum(load_word(data, at) ^ _KEY_A, load_word(data, at + 8) ^ state)
            at += 16
        a, b = load_word(data, hi - 16), load_word(data, hi - 8)
    return _mum(_KEY_B ^ size, _mum(a ^ _KEY_A, b ^ state))


@njit(cache=True, nogil=True)
def hashes_of(offsets, data, out):
    """``out[i]`` = :func:`string_hash` of string ``i`` of ``(offsets, data)`` (:func:`string_buffers`)."""
    for i in range(out.size):
        out[i] = string_hash(data, np.int64(offsets[i]), np.int64(offsets[i + 1]))


@njit(cache=True, nogil=True)
def long_probe(steps, size):
    """Whether a probe of ``steps`` slots past its own is too long for a table of ``size`` slots.

    At a load of at most 1/2 a random hash's longest probe grows as the logarithm of the table
    (about 50 slots in 2**24, 8 in 2**8); past ``16 + 4 * log2(size)`` the slots are not spread
    as a random hash spreads them, and the table is to be made larger (or a probe given up).
    """
    if steps <= 16:
        return False
    bits = 0
    while (np.int64(1) << bits) < size:
        bits += 1
    return steps > 16 + 4 * bits


@njit(cache=True, nogil=True)
def most_slots(n):
    """The largest table a long probe may grow a table of ``n`` values to: four times the
    largest that its load alone asks for (``8 * n`` slots), at least 2**12."""
    return max(np.int64(1) << 12, 32 * n)


@njit(cache=True, nogil=True, inline="always")
def same_bytes(data_a, a0, a1, data_b, b0, b1):
    if a1 - a0 != b1 - b0:
        return False
    at = 0
    while a0 + at + 8 < a1:
        if load_word(data_a, a0 + at) != load_word(data_b, b0 + at):
            return False
        at += 8
    return last_word(data_a, a0, a1) == last_word(data_b, b0, b1)


@njit(cache=True, nogil=True, inline="always")
def compare_bytes(data_a, a0, a1, data_b, b0, b1):
    """-1, 0 or 1 as ``data_a[a0:a1]`` sorts before, equal to or after ``data_b[b0:b1]``: bytes
    compared as unsigned, a prefix before any longer string (C's ``strcmp`` and ``memcmp``).

    Eight bytes a step, as big-endian words (:func:`byte_swapped`), so that ids sharing a long
    prefix (URLs, ``clueweb09-en0000-...``) cost a word a step of it, not a byte.
    """
    n = min(a1 - a0, b1 - b0)
    at = 0
    while at + 8 <= n:
        x, y = load_word(data_a, a0 + at), load_word(data_b, b0 + at)
        if x != y:
            return 1 if byte_swapped(x) > byte_swapped(y) else -1
        at += 8
    if at < n:
        # the common part's last bytes: a word ending there (its bytes before them are equal),
        # or a short string's bytes with zeros above them in both
        x, y = last_word(data_a, a0, a0 + n), last_word(data_b, b0, b0 + n)
        if x != y:
            return 1 if byte_swapped(x) > byte_swapped(y) else -1
    if a1 - a0 == b1 - b0:
        return 0
    return 1 if a1 - a0 > b1 - b0 else -1


@njit(cache=True, nogil=True)
def _grown(values, size):
    out = np.empty(max(size, 2 * values.size), values.dtype)
    out[: values.size] = values
    return out


@njit(cache=True, nogil=True)
def _rehash(hashes, n, size):
    table = np.full(size, EMPTY, np.int64)
    mask = np.uint64(size - 1)
    for c in range(n):
        slot = hashes[c] & mask
        while table[slot] >= 0:
            slot = (slot + np.uint64(1)) & mask
        table[slot] = c
    return table


@njit(cache=True, nogil=True)
def _roomier(table, hashes, n, steps):
    """The table after its ``n``-th value went in, ``steps`` slots past its own: four times as
    large when half full, twice when the probe was long (see :func:`long_probe`), up to
    :func:`most_slots`; else the same table."""
    if 2 * n > table.size:
        return _rehash(hashes, n, 4 * table.size)
    if long_probe(steps, table.size) and table.size < most_slots(n):
        return _rehash(hashes, n, 2 * table.size)
    return table


_BLOCK = 64  # rows a block check covers: long enough to run at memory speed, short on a miss


@njit(cache=True, nogil=True)
def _same_block(offsets, data, r, p, stop):
    """Whether rows ``r:stop`` equal rows ``p:p + stop - r`` one by one (``p < r``).

    Equal lengths row by row make the two blocks' byte spans line up, so one comparison of the
    spans, without a branch per row, decides every row at once.
    """
    shift = np.int64(offsets[r]) - np.int64(offsets[p])
    differ = np.int64(0)
    # unsigned indices: numba wraps a signed index that may be negative, and the wrap turns
    # this loop's vector loads into gathers (several times slower on this loop)
    at, back = np.uint64(r), np.uint64(p)
    for i in range(np.uint64(stop - r + 1)):
        differ |= np.int64(offsets[at + i]) - np.int64(offsets[back + i]) - shift
    if differ != 0:
        return False
    a, b, end = np.int64(offsets[p]), np.int64(offsets[r]), np.int64(offsets[stop])
    words = np.uint64(0)
    while b + 8 <= end:
        words |= load_word(data, a) ^ load_word(data, b)
        a += 8
        b += 8
    while b < end:
        words |= np.uint64(data[a] ^ data[b])
        a += 1
        b += 1
    return words == 0


@njit(cache=True, nogil=True)
def code_range(offsets, data, start, stop, codes, first, hashes):
    """Code rows ``start:stop`` by first appearance within the range.

    Writes ``codes[start:stop]``, and from ``start`` on in ``first`` and ``hashes`` the row where
    each code's value first appears and its hash; returns the number of codes.
    """
    last = np.empty(64, np.int64)  # the row of each code's last hash look-up
    table = np.full(128, EMPTY, np.int64)
    n = 0
    period = 1
    c = -1
    blocks_from = start  # rows before this one are not tried a block at a time (a block missed)
    r = start
    while r < stop:
        p = r - period
        if r >= blocks_from and p >= start and r + _BLOCK <= stop:
            if _same_block(offsets, data, r, p, r + _BLOCK):
                # unsigned indices, a plain loop: a slice assignment or a wrapped signed index
                # costs more than the comparison of the block (see _same_block)
                at, back = np.uint64(r), np.uint64(p)
                if period == 1:  # a fill: copying each code from the one just written would chain the stores
                    fill = codes[r - 1]
                    for i in range(np.uint64(_BLOCK)):
                        codes[at + i] = fill
                else:
                    for i in range(np.uint64(_BLOCK)):
                        codes[at + i] = codes[back + i]
                r += _BLOCK
                c = codes[r - 1]
                continue
            blocks_from = r + _BLOCK
        a0, a1 = np.int64(offsets[r]), np.int64(offsets[r + 1])
        if p >= start and same_bytes(data, a0, a1, data, np.int64(offsets[p]), np.int64(offsets[p + 1])):
            if period != 1:  # in a run the code is the one in hand: no load of the row just written
                c = codes[p]
            codes[r] = c
            r += 1
            continue
        h = string_hash(data, a0, a1)
        mask = np.uint64(table.size - 1)
        slot = h & mask
        c = table[slot]
        steps = 0
        while c >= 0:
            f = first[start + c]
            if hashes[start + c] == h and same_bytes(
                data, a0, a1, data, np.int64(offsets[f]), np.int64(offsets[f + 1])
            ):
                break
            slot = (slot + np.uint64(1)) & mask
            c = table[slot]
            steps += 1
        if c >= 0:
            period = r - last[c]
        else:
            c = n
            if n == last.size:
                last = _grown(last, n + 1)
            first[start + n], hashes[start + n] = r, h
            table[slot] = n
            n += 1
            table = _roomier(table, hashes[start:], n, steps)
        codes[r] = c
        last[c] = r
        r += 1
    return n


@njit(cache=True, nogil=True)
def merge_range(offsets, data, first, hashes, store):
    """Add one range's distinct values to the store; return the store code of each.

    ``store`` is ``(offsets, data, hashes, table, counts)`` with ``counts = [values, bytes]``;
    its arrays are replaced by larger ones as it fills, so the new store is returned too.
    """
    s_offsets, s_data, s_hashes, table, counts = store
    out = np.empty(first.size, np.int64)
    for k in range(first.size):
        r = first[k]
        a0, a1 = np.int64(offsets[r]), np.int64(offsets[r + 1])
        h = hashes[k]
        mask = np.uint64(table.size - 1)
        slot = h & mask
        c = table[slot]
        steps = 0
        while c >= 0:
            if s_hashes[c] == h and same_bytes(data, a0, a1, s_data, s_offsets[c], s_offsets[c + 1]):
                break
            slot = (slot + np.uint64(1)) & mask
            c = table[slot]
            steps += 1
        if c < 0:
            c = counts[0]
            size = a1 - a0
            if c + 2 > s_offsets.size:
                s_offsets, s_hashes = _grown(s_offsets, c + 2), _grown(s_hashes, c + 1)
            if counts[1] + size > s_data.size:
                s_data = _grown(s_data, counts[1] + size)
            s_data[counts[1] : counts[1] + size] = data[a0:a1]
            counts[1] += size
            s_offsets[c + 1] = counts[1]
            s_hashes[c] = h
            table[slot] = c
            counts[0] = c + 1
            table = _roomier(table, s_hashes, counts[0], steps)
        out[k] = c
    return out, (s_offsets, s_data, s_hashes, table, counts)


def string_buffers(array):
    """``(offsets, data)`` of an Arrow string or large_string array (no nulls) as numpy views, the
    offsets starting at the array's own offset (a slice is read in place)."""
    buffers = array.buffers()
    offset_type = np.int64 if array.type.id == _LARGE_STRING_ID else np.int32
    offsets = np.frombuffer(buffers[1], offset_type)[array.offset : array.offset + len(array) + 1]
    data = np.frombuffer(buffers[2], np.uint8) if buffers[2] is not None and buffers[2].size else np.zeros(1, np.uint8)
    return offsets, data


def new_store():
    """An empty store of distinct byte strings (see :func:`merge_range`)."""
    return (
        np.zeros(1024, np.int64),
        np.empty(1 << 14, np.uint8),
        np.empty(1024, np.uint64),
        np.full(2048, EMPTY, np.int64),
        np.zeros(2, np.int64),
    )


@njit(cache=True, nogil=True)
def code_into(offsets, data, start, stop, codes, first, hashes, sizes, k):
    """:func:`code_range`, its number of codes written to ``sizes[k]`` (a call for a thread)."""
    sizes[k] = code_range(offsets, data, start, stop, codes, first, hashes)


@njit(cache=True, nogil=True)
def recode(codes, start, stop, table):
    """``codes[r] = table[codes[r]]`` for ``start <= r < stop``, in place."""
    for r in range(np.uint64(start), np.uint64(stop)):  # unsigned: see _same_block
        codes[r] = table[np.uint64(codes[r])]
