"""The Snappy decoder of the native Parquet reader against pyarrow's codec, the maintained
implementation: every block it decompresses, pyarrow's codec decompresses to the same bytes, and
it refuses exactly the blocks pyarrow's codec refuses (or that state another length than the
page's), damaged ones included, without writing outside its range."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

from fastmetrics.io.native import snappy

from .fuzzing import _uleb

CODEC = pa.Codec("snappy")
GUARD = 0xAB


def literal(data: bytes, extra: int | None = None) -> bytes:
    """A literal element; ``extra`` length bytes (1-4) even where the tag could hold the length."""
    n = len(data) - 1
    if extra is None and n < 60:
        return bytes([n << 2]) + data
    extra = extra or max(1, (n.bit_length() + 7) // 8)
    return bytes([(59 + extra) << 2]) + n.to_bytes(extra, "little") + data


def copy(offset: int, length: int, width: int) -> bytes:
    """A copy element with an offset of ``width`` bytes (1: the 11-bit form)."""
    if width == 1:
        return bytes([1 | ((length - 4) << 2) | ((offset >> 8) << 5), offset & 0xFF])
    return bytes([(2 if width == 2 else 3) | ((length - 1) << 2)]) + offset.to_bytes(width, "little")


def block(size: int, *elements: bytes) -> bytes:
    return _uleb(size) + b"".join(elements)


def stated(data: bytes) -> int | None:
    """The length a block states, as Snappy reads it (at most 5 bytes, below 2^32), or None."""
    value = 0
    for k, byte in enumerate(data[:5]):
        value |= (byte & 0x7F) << (7 * k)
        if byte < 0x80:
            return value if value < 1 << 32 else None
    return None


def ours(data: bytes, size: int, to: int = 5, tail: int = 7):
    """``(accepted, bytes)`` of our decoder writing at ``to`` of a guarded buffer; the guard
    bytes around ``[to, to + size)`` must be untouched whatever the block."""
    src = np.frombuffer(data, np.uint8)
    dst = np.full(to + size + tail, GUARD, np.uint8)
    accepted = snappy.decompress(src, 0, src.size, dst, to, size)
    assert (dst[:to] == GUARD).all() and (dst[to + size :] == GUARD).all(), "a write outside the block's range"
    return bool(accepted), dst[to : to + size].tobytes()


def arrows(data: bytes, size: int):
    """``(accepted, bytes)`` of pyarrow's codec, under the reader's rule that a block states
    the page's size."""
    if stated(data) != size:
        return False, None
    try:
        return True, CODEC.decompress(data, size).to_pybytes()
    except (pa.ArrowException, OSError):
        return False, None


def agree(data: bytes, size: int) -> bool:
    accepted, got = ours(data, size)
    expected_ok, expected = arrows(data, size)
    assert accepted == expected_ok, (data[:40].hex(), size, accepted)
    if accepted:
        assert got == expected
    return accepted


def _samples():
    rng = np.random.default_rng(7)
    ids = "".join(f"LA{rng.integers(10**5, 10**6)}-{k:04d} doc{k} Q268_R4_C{k % 9}\n" for k in range(3000))
    bits = np.packbits(rng.random(160_000) < 0.3).tobytes()
    return {
        "empty": b"",
        "one byte": b"x",
        "random": rng.integers(0, 256, 70_000).astype(np.uint8).tobytes(),
        "zeros": bytes(200_000),
        "pattern": b"abcdefgh" * 9000,
        "ids": ids.encode(),
        "a bitmap": bits,
        "a run of indices": np.repeat(np.arange(40, dtype=np.int32), 2500).tobytes(),
    }


@pytest.mark.parametrize("name", list(_samples()))
def test_blocks_pyarrow_writes_decompress_to_their_bytes(name):
    data = _samples()[name]
    packed = CODEC.compress(data, asbytes=True)
    assert ours(packed, len(data)) == (True, data)


HAND_MADE = {
    "literals of every length form": block(
        10, literal(b"ab"), literal(b"cd", extra=1), literal(b"ef", extra=2), literal(b"gh", extra=3), literal(b"ij", 4)
    ),
    "a long literal": block(300, literal(bytes(range(256)) + bytes(44))),
    "copies of 1, 2 and 4 offset bytes": block(
        4 + 11 + 64 + 5, literal(b"wxyz"), copy(4, 11, 1), copy(15, 64, 2), copy(70, 5, 4)
    ),
    "an overlapping copy: a run": block(1 + 64, literal(b"z"), copy(1, 64, 2)),
    "an overlapping copy of a pattern": block(3 + 9, literal(b"abc"), copy(3, 9, 1)),
    "an offset past 64 KiB": block(70_000 + 8, literal(bytes(range(200)) * 350), copy(70_000, 8, 4)),
    "a length stated in five bytes": b"\x83\x80\x80\x80\x00" + literal(b"abc"),
}


@pytest.mark.parametrize("name", list(HAND_MADE))
def test_every_element_kind_decompresses_as_pyarrow_decompresses_it(name):
    data = HAND_MADE[name]
    assert agree(data, stated(data))


REFUSED = {
    "a copy before the block's start": block(6, literal(b"ab"), copy(3, 4, 1)),
    "an offset of zero": block(6, literal(b"ab"), copy(0, 4, 2)),
    "more output than stated": block(3, literal(b"abcd")),
    "less output than stated": block(5, literal(b"abcd")),
    "a literal past the block": block(8, bytes([7 << 2]) + b"abc"),
    "a tag cut short": block(6, literal(b"ab"), bytes([2])),
    "a length stated in six bytes": b"\x83\x80\x80\x80\x80\x00" + literal(b"abc"),
    "a length of 2^32 or more": _uleb(1 << 32) + literal(b"abc"),
}


@pytest.mark.parametrize("name", list(REFUSED))
def test_what_pyarrow_refuses_is_refused(name):
    data = REFUSED[name]
    size = stated(data) if stated(data) is not None else 3
    assert not ours(data, size)[0]
    assert not agree(data, size)


def _mutants(rng, data: bytes):
    b = bytearray(data)
    n = len(b)
    op = rng.integers(0, 6)
    if op == 0 and n:
        for _ in range(rng.integers(1, 4)):
            b[rng.integers(0, min(n, 48))] = rng.integers(0, 256)  # the length and the first tags
    elif op == 1 and n:
        b[rng.integers(0, n)] ^= 1 << rng.integers(0, 8)
    elif op == 2:
        del b[rng.integers(0, n + 1) :]
    elif op == 3:
        at = rng.integers(0, n + 1)
        b[at:at] = rng.integers(0, 256, rng.integers(1, 6)).astype(np.uint8).tobytes()
    elif op == 4 and n:
        at = rng.integers(0, n)
        del b[at : at + rng.integers(1, 8)]
    else:
        b[0:1] = bytes([rng.integers(0, 256)])  # another stated length
    return bytes(b)


def test_damaged_blocks_are_refused_or_read_as_pyarrow_reads_them():
    rng = np.random.default_rng(2026)
    samples = _samples()
    bases = [CODEC.compress(samples[k][:3000], asbytes=True) for k in ("ids", "pattern", "a bitmap", "random")]
    bases += list(HAND_MADE.values())
    outcomes = {True: 0, False: 0}
    for k in range(3000):
        base = bases[k % len(bases)]
        size = stated(base)
        mutant = _mutants(rng, base)
        outcomes[agree(mutant, size if rng.integers(0, 4) else rng.integers(0, size + 4))] += 1
    assert outcomes[True] > 100 and outcomes[False] > 100  # both outcomes occur: the test can tell them


def test_a_table_of_blocks_stops_at_the_first_refused():
    good, bad = CODEC.compress(b"abcdef" * 50, asbytes=True), block(6, literal(b"ab"), copy(3, 4, 1))
    src = np.frombuffer(good + bad + good, np.uint8)
    rows = [(0, len(good), 0, 300), (len(good), len(bad), 300, 6), (len(good) + len(bad), len(good), 306, 300)]
    dst = np.zeros(606, np.uint8)
    assert snappy.decompress_blocks(src, np.array(rows[::2], np.int64), dst) == -1
    assert snappy.decompress_blocks(src, np.array(rows, np.int64), dst) == 1
    past = np.array([(src.size - 2, 5, 0, 3)], np.int64)  # bytes past the chunk's end
    assert snappy.decompress_blocks(src, past, dst) == 0
