"""The CSV reader's index of delimiters (:mod:`fastmetrics.io.native.delimiters`).

The index is checked against numpy's own search for the four bytes, on random bytes and every
alignment, start and stop (the last bytes of a buffer are read one at a time, the others 64 at a
time); then files whose fields, blank lines and line ends fall across the index's 64-byte blocks
and its chunks are read by the fast path and must equal pyarrow's table, or be given up where
pyarrow reads them otherwise.
"""

from __future__ import annotations

import numpy as np
import pytest

from fastmetrics.io.native import csv as _csv
from fastmetrics.io.native import delimiters
from tests.io.test_plain_csv import _read_plain, _same_as_pyarrow


@pytest.fixture(autouse=True)
def small_files_take_the_fast_path(monkeypatch):
    monkeypatch.setattr(_csv, "MIN_BYTES", 0)


def _expected(buf, start, stop):
    window = buf[start:stop]
    special = (window == 44) | (window == 34) | (window == 13) | (window == 10)
    return start + np.flatnonzero(special)


@pytest.mark.parametrize("seed", range(8))
def test_the_index_holds_every_delimiter_and_nothing_else(seed):
    rng = np.random.default_rng(seed)
    # delimiters dense or sparse, among all 256 byte values
    size = int(rng.integers(1, 3000))
    density = [0.02, 0.3, 0.9][seed % 3]
    buf = rng.integers(0, 256, size).astype(np.uint8)
    where = rng.random(size) < density
    buf[where] = rng.choice(np.array([44, 34, 13, 10], np.uint8), int(where.sum()))
    positions = np.full(size + 64, -7, np.int64)
    for _ in range(50):
        start = int(rng.integers(0, size + 1))
        stop = int(rng.integers(start, size + 1))
        offset = int(rng.integers(0, 5))
        n = delimiters.index_delimiters(buf, start, stop, positions, offset)
        expected = _expected(buf, start, stop)
        assert n == offset + expected.size
        np.testing.assert_array_equal(positions[offset:n], expected)


def test_a_block_of_64_delimiters_is_indexed_whole():
    """More than 16 delimiters in a block take the loop past the unrolled ones."""
    buf = np.frombuffer(b"," * 64 + b"a" * 64 + b'"\r\n,' * 40, np.uint8)
    positions = np.empty(buf.size + 64, np.int64)
    n = delimiters.index_delimiters(buf, 0, buf.size, positions, 0)
    np.testing.assert_array_equal(positions[:n], _expected(buf, 0, buf.size))


def test_refill_keeps_the_positions_not_read_and_marks_the_end():
    buf = np.frombuffer((b"ab,cd\n" * 10_000), np.uint8)
    positions = delimiters.positions_for(2)
    reserve = delimiters.reserve_for(2)
    n, i, indexed = delimiters.refill(buf, positions, 0, 0, 0, buf.size, reserve)
    expected = _expected(buf, 0, buf.size)
    read = []
    while True:
        take = min(n - i, 5)
        read.extend(positions[i : i + take])
        i += take
        if indexed >= buf.size and i >= n:
            break
        n, i, indexed = delimiters.refill(buf, positions, n, i, indexed, buf.size, reserve)
    np.testing.assert_array_equal(read, expected)
    assert (positions[n : n + reserve] == buf.size).all()  # what the reader takes for the data's end


def _write(tmp_path, text: str):
    path = tmp_path / "runs.csv"
    path.write_bytes(text.encode())
    return path


@pytest.mark.parametrize("end", ["\n", "\r\n", "\r"])
@pytest.mark.parametrize("quote", [False, True])
def test_fields_across_blocks_and_chunks(tmp_path, end, quote):
    """Field lengths that walk every offset of a 64-byte block, and lines up to several of the
    index's chunks long."""
    rng = np.random.default_rng(len(end) + 2 * quote)
    lengths = list(range(1, 130)) + [delimiters.CHUNK - 1, delimiters.CHUNK, 3 * delimiters.CHUNK + 7]
    q = '"' if quote else ""
    lines = ["item,score,label"]
    for k in range(3000):
        size = lengths[k % len(lengths)] if k % 3 else int(rng.integers(1, 20))
        lines.append(f"{q}{'x' * size}{k % 97}{q},{rng.random():.6f},{q}l{k % 5}{q}")
    _same_as_pyarrow(_write(tmp_path, end.join(lines) + end))


@pytest.mark.parametrize("blank", [1, 27, delimiters.CHUNK + 5])
def test_runs_of_blank_lines_are_skipped(tmp_path, blank):
    """Runs of empty lines longer than a line's reserve of positions, or than a chunk."""
    body = [f"doc{k},{k % 7}.5" for k in range(2000)]
    text = "item,score\n" + "\n".join(body[:700]) + "\n" * blank + "\r\n" * blank + "\n".join(body[700:]) + "\n"
    _same_as_pyarrow(_write(tmp_path, text))


GOOD = "name,value\n" + "".join(f"n{i},{i}.5\n" for i in range(200))


@pytest.mark.parametrize(
    "bad, why",
    [
        ('"b"x,2\n', "bytes after a closing quote"),
        ('"b,2\n', "a quoted field without its closing quote on its line"),
        ('"b', "a quoted field cut by the data's end"),
        ("b,2,\n", "a comma after the last column"),
        ("b,2,", "a comma after the last column, at the data's end"),
        ("b\r\n", "a short line ended by a CR LF"),
        ("b,\r\n", "an empty last field"),
        ('b,"2"3\n', "a quote inside an unquoted field's neighbour"),
        ('b"c,2\n', "a quote inside an unquoted field"),
        ('"",2\n', "an empty quoted field (missing)"),
        ("b,2\r\r\nc,3,4\n", "a long line after a CR and a CR LF"),
    ],
)
def test_fields_outside_the_dialect_are_left_to_pyarrow(tmp_path, bad, why):
    # the odd line lands at every offset of a 64-byte block as the padding grows
    for pad in range(0, 64, 7):
        text = "name,value\n" + "p" * pad + ",0.5\n" + GOOD[len("name,value\n") :] + bad
        assert _read_plain(_write(tmp_path, text), len(text) // 2) is None, (why, pad)


def test_the_last_line_without_its_end_at_every_length(tmp_path):
    for extra in range(70):
        text = "name,value\n" + "".join(f"n{i},{i}.5\n" for i in range(100)) + "z" * (extra + 1) + ",1.5"
        _same_as_pyarrow(_write(tmp_path, text))


@pytest.mark.parametrize("commas", [1, 3, 200, delimiters.CHUNK + 9])
def test_commas_inside_quoted_fields(tmp_path, commas):
    """A quoted field may hold commas (the plain dialect excludes only quotes and line ends): more
    of them than a line's reserve of positions, or than a chunk, are read past as they come."""
    rng = np.random.default_rng(commas)
    lines = ["label,item,score"]
    for k in range(3000):
        inside = "," * (commas if k % 500 == 7 else int(rng.integers(0, 4)))
        lines.append(f'"l{k % 3}","d{inside}{k % 89}",{rng.random():.5f}')
    _same_as_pyarrow(_write(tmp_path, "\n".join(lines) + "\n"))


@pytest.mark.parametrize("blank", ["\n", "\r\n\r\n", "\r"])
def test_empty_lines_before_the_header(tmp_path, blank):
    """pyarrow skips empty lines before the header too: the header is the first line that is not
    empty, not a row."""
    text = blank + "x,y\n" + "".join(f"a{i},b{i % 7}\n" for i in range(300))
    _same_as_pyarrow(_write(tmp_path, text))
