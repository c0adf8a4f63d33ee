"""The fused CSV reader (:mod:`fastmetrics.io._csv`) reads exactly what pyarrow reads, or gives up.

Every file is read both ways: the fast path's table (its dictionaries decoded) must equal
pyarrow's with the same conversion options, value for value -- doubles bit for bit -- and files
outside the plain dialect must be handed back (None) rather than read differently. The size
threshold is lowered so small files take the fast path; the ranges are cut by thread as for a
large file.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv
import pytest

import fastmetrics as fm
from fastmetrics.io.native import csv as _csv
from tests.test_string_hash import colliding


@pytest.fixture(autouse=True)
def small_files_take_the_fast_path(monkeypatch):
    monkeypatch.setattr(_csv, "MIN_BYTES", 0)


def _pyarrow(path) -> pa.Table:
    return pacsv.read_csv(path, read_options=pacsv.ReadOptions(block_size=1 << 20), convert_options=_csv.CONVERT)


def _read_plain(path, block_size, columns=None):
    """The fast path's table of ``columns`` (all by default), or None where it gives up."""
    sample = _csv.plain_sample(str(path), block_size)
    if sample is None:
        return None
    return _csv.read_plain_csv(str(path), sample, sample.column_names if columns is None else columns)


def _decoded(table: pa.Table) -> pa.Table:
    columns = {}
    for name in table.column_names:
        column = table.column(name)
        if pa.types.is_dictionary(column.type):
            column = column.cast(column.type.value_type)
        columns[name] = column
    return pa.table(columns)


def _same_as_pyarrow(path):
    fast = _read_plain(path, 1 << 20)
    assert fast is not None, "the fast path gave up on a plain file"
    expected = _pyarrow(path)
    got = _decoded(fast)
    assert got.schema == expected.schema, (got.schema, expected.schema)
    for name in expected.column_names:
        a, b = got.column(name).combine_chunks(), expected.column(name).combine_chunks()
        if pa.types.is_floating(a.type):  # bit for bit, -0.0 included
            np.testing.assert_array_equal(a.to_numpy().view(np.int64), b.to_numpy().view(np.int64))
        else:
            assert a.equals(b), name


def _numbers(rng, n):
    """Decimals written in the forms CSV writers use, within the exactly rounded fast path."""
    forms = [
        lambda: f"{rng.standard_normal():.8f}",
        lambda: repr(float(np.float32(rng.standard_normal()))),
        lambda: f"{rng.standard_normal() * 1e-7:.6e}",
        lambda: f"{rng.integers(-5, 5)}",
        lambda: repr(float(rng.standard_normal())),  # 17 digits: beyond the fast path, read after it
        lambda: f"{rng.random():.25f}",
        lambda: "-0.0",
        lambda: f"{rng.integers(0, 10**15)}.{rng.integers(0, 10)}",
        lambda: f"{rng.random() * 1e20:.3E}",
    ]
    return [forms[int(rng.integers(0, len(forms)))]() for _ in range(n)]


def _text(rng, n):
    pool = ["team007/run_primary", "Q1042_R6", "doc123", "é中🙂", "a b", "x" * 40, "NA", "null", "1.5e3", "true"]
    pool += [f"doc{int(i)}" for i in rng.integers(0, 5000, 200)]
    return [pool[int(i)] for i in rng.integers(0, len(pool), n)]


@pytest.mark.parametrize("seed", range(6))
def test_random_plain_files_read_as_pyarrow_reads_them(tmp_path, seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 3000))
    columns = {
        "system": _text(rng, n),
        "score": _numbers(rng, n),
        "gold": [["true", "false", "True", "FALSE", "1", "0"][int(i)] for i in rng.integers(0, 6, n)],
        "rank": [str(int(i)) for i in rng.integers(-(10**17), 10**17, n)],
        "item": _text(rng, n),
    }
    quote = seed % 2 == 0  # pyarrow's writer quotes every text field; hand-made files do not
    end = "\r\n" if seed % 3 == 0 else "\n"
    lines = [",".join(f'"{c}"' if quote else c for c in columns)]
    for row in zip(*columns.values()):
        cells = [f'"{v}"' if quote and name in ("system", "item") else v for name, v in zip(columns, row)]
        lines.append(",".join(cells))
    text = end.join(lines) + ("" if seed == 4 else end)  # a last line without its line end, once
    if seed == 5:
        text = text.replace(end, end + end, 3)  # empty lines, which pyarrow skips
    path = tmp_path / "runs.csv"
    path.write_bytes(text.encode())
    _same_as_pyarrow(path)


GOOD = "name,value\n" + "".join(f"n{i},{i}.5\n" for i in range(8))  # the sample: text, double


@pytest.mark.parametrize(
    "bad, why",
    [
        ('"x ""quoted"" y",2\n', "a quote inside a quoted field"),
        ("b,\n", "an empty field (missing)"),
        ("b,2,3\n", "a long line"),
        ("b\n", "a short line"),
        ("b,nan\n", "a number outside the fast path's syntax"),
        ("b,1e\n", "an exponent without digits"),
        ("b,x\n", "a value not of the column's type (pyarrow's error)"),
        ('"b\nc",2\n', "a line end inside a quoted field"),
        ("b,+2\n", "a sign pyarrow may read, the fast path does not"),
    ],
)
def test_other_files_are_left_to_pyarrow(tmp_path, bad, why):
    path = tmp_path / "odd.csv"
    path.write_bytes((GOOD + bad).encode())
    assert _read_plain(path, len(GOOD)) is None, why


def test_only_the_columns_asked_for_are_parsed(tmp_path):
    """A column not asked for is only delimited: values the fast path would give up on (a sign,
    a NaN) do not send the file to pyarrow, and the columns read equal pyarrow's."""
    rows = ["name,value,flag"] + [f"n{i % 13},{i % 7}.5,{'true' if i % 3 else 'false'}" for i in range(5000)]
    rows += ["n1,+2,true", "n2,nan,false"]
    path = tmp_path / "odd_value.csv"
    path.write_text("\n".join(rows) + "\n")
    assert _read_plain(path, 1 << 20) is None  # every column: the value column is outside the fast path
    fast = _read_plain(path, 1 << 20, ["flag", "name"])
    assert fast is not None and fast.column_names == ["name", "flag"]  # in the file's order
    expected = pacsv.read_csv(path, convert_options=_csv.CONVERT).select(["name", "flag"])
    assert _decoded(fast).equals(expected)


def test_decimals_beyond_the_fast_path_are_read_as_pyarrow_reads_them(tmp_path):
    values = ["1e300", "-2.5E-300", "0.1000000000000000055511151231257827", "123456789012345678901234", "5e-324"]
    path = tmp_path / "wide.csv"
    path.write_text("name,value\n" + "".join(f"n{i},{v}\n" for i, v in enumerate(values * 3)))
    _same_as_pyarrow(path)


def test_not_utf8_is_left_to_pyarrow(tmp_path):
    path = tmp_path / "latin1.csv"
    path.write_bytes(b"name,value\nb,1\ncaf\xe9,2\n")
    assert _read_plain(path, 1 << 20) is None


def test_many_distinct_values_grow_the_tables(tmp_path):
    # the sample (first block) sees few values; the rest of the file has 100,000 more
    rows = ["item,score"] + [f"same,{i % 7}.5" for i in range(20_000)]
    rows += [f"doc{i},{i % 7}.25" for i in range(100_000)]
    path = tmp_path / "grow.csv"
    path.write_text("\n".join(rows) + "\n")
    fast = _read_plain(path, 1 << 16)  # a small block: the sample holds one value
    assert fast is not None
    expected = pacsv.read_csv(path, convert_options=_csv.CONVERT)
    assert _decoded(fast).column("item").combine_chunks().equals(expected.column("item").combine_chunks())


def test_counts_from_the_fast_path_equal_pyarrows(tmp_path, monkeypatch):
    rng = np.random.default_rng(9)
    n = 50_000
    table = pa.table(
        {
            "system": [f"team{i:03d}/run" for i in rng.integers(0, 7, n)],
            "topic": [f"Q{i}" for i in rng.integers(0, 11, n)],
            "item": [f"doc{i}" for i in range(n)],
            "gold": rng.random(n) < 0.3,
            "score": rng.standard_normal(n),
        }
    )
    path = tmp_path / "runs.csv"
    pacsv.write_csv(table, path)
    assert _read_plain(path, 1 << 20) is not None  # the count below takes the fast path
    fast = fm.count(str(path), thresholds=21)
    hard = fm.count(str(path), pred="gold")  # the scores not parsed
    monkeypatch.setattr(_csv, "MIN_BYTES", 1 << 62)  # pyarrow's reader
    slow = fm.count(str(path), thresholds=21)
    np.testing.assert_array_equal(fast.counts, slow.counts)
    np.testing.assert_array_equal(fast.coords["threshold"], slow.coords["threshold"])
    np.testing.assert_array_equal(hard.counts, fm.count(str(path), pred="gold").counts)


@pytest.mark.parametrize("bits", [4, 13])
def test_ids_sharing_their_hash_bits_are_read_or_given_up(tmp_path, bits):
    """400 ids whose hashes share their low ``bits`` bits, 40,000 rows in ranges of at most 10,000
    (four a thread): 4 bits leave them spread over a range's table, and the fast path reads them;
    with 13 bits the probes run long, the range is parsed again with a table as large as its rows
    allow (at most 2**15 slots), and they still run long: the file is handed to pyarrow rather
    than probed without bound."""
    ids = colliding(400, bits)
    rows = np.random.default_rng(bits).integers(0, len(ids), 40_000)
    path = tmp_path / "ids.csv"
    path.write_text("item,score\n" + "".join(f"{ids[i]},{i / 7:.3f}\n" for i in rows))
    if bits == 4:
        _same_as_pyarrow(path)
    else:
        assert _read_plain(path, 1 << 20) is None


@pytest.mark.parametrize("seed", range(6))
def test_line_ends_are_counted_as_pyarrow_ends_lines(seed):
    """LF, CR LF and a lone CR each end a line; a range may end between the CR and the LF of a
    CR LF (the CR is then not counted: its LF, in the next range, is)."""
    rng = np.random.default_rng(seed)
    pieces = rng.choice([b"a", b",", b"\n", b"\r", b"\r\n", b"xyz"], size=5000, p=[0.3, 0.2, 0.2, 0.1, 0.1, 0.1])
    if seed == 0:
        pieces = np.array([b"ab", b"\n"] * 3000)  # no CR at all: the vectorized count alone
    data = b"".join(pieces)
    buf = np.frombuffer(data, np.uint8)
    expected = [
        sum(1 for i in range(lo, hi) if data[i] == 10 or (data[i] == 13 and data[i + 1 : i + 2] != b"\n"))
        for lo, hi in [(0, len(data)), (0, len(data) // 3), (len(data) // 3, len(data))]
    ]
    out = np.zeros(3, np.int64)
    for k, (lo, hi) in enumerate([(0, len(data)), (0, len(data) // 3), (len(data) // 3, len(data))]):
        _csv.count_lines(buf, lo, hi, out, k)
    assert list(out) == expected
    assert expected[1] + expected[2] == expected[0]
