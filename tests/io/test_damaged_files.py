"""Damaged and unusual files, one of each shape a mutation campaign found crashing, hanging,
tracebacking or miscounting (issue 42): each is a pyarrow-written file with the damaged bytes
crafted in, and each must end in pyarrow's counts of the same bytes or one clear InputError
naming the file. Files that once killed the process are read in a subprocess."""

from __future__ import annotations

import base64
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
import pytest

import fastmetrics as fm
from fastmetrics.io import csvfile, source
from fastmetrics.io.native import csv as native_csv
from fastmetrics.io.native import hybrid, thrift
from fastmetrics.io.native import parquet as native_parquet
from tests._program import run_fastmetrics

from . import fuzzing

ROOT = Path(__file__).resolve().parents[2]


def _uleb(value: int) -> bytes:
    return fuzzing._uleb(value)


def _pages(data: bytes) -> list:
    """``(column, header start, body start, body end, header events)`` of every page."""
    return [page[:5] for page in fuzzing.pages(data)]


def _page_type(data: bytes, events) -> int:
    return next(fuzzing._varint(data, s)[0] for p, k, s, e in events if p == (1,)) // 2


def _write(path, table, **options) -> bytes:
    pq.write_table(table, path, **options)
    return Path(path).read_bytes()


def _expect_pyarrows_reading(path, **options):
    """fm.count of the file equals fm.count of pyarrow's reading of it, or both refuse."""
    try:
        expected = fm.count(pq.read_table(path), **options).counts
    except (OSError, pa.ArrowException, fm.InputError):
        with pytest.raises(fm.InputError, match=os.path.basename(path)):
            fm.count(path, **options)
        return None
    got = fm.count(path, **options).counts
    np.testing.assert_array_equal(got, expected)
    return got


def _python(*args: str) -> subprocess.CompletedProcess:
    """``python -c CODE`` or ``python -m ...`` in a process of its own (a crash or a hang must
    not take pytest down)."""
    command = [sys.executable, "-c", *args] if len(args) == 1 else [sys.executable, *args]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run(command, capture_output=True, text=True, timeout=300, env=env, cwd=str(ROOT))


def _count_in_subprocess(path: str, *args: str) -> subprocess.CompletedProcess:
    """``fastmetrics evaluate path`` in a process of its own."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return run_fastmetrics(["evaluate", path, "--measures", "f1", *args], timeout=300, env=env, cwd=str(ROOT))


def _one_clear_error(done: subprocess.CompletedProcess, name: str):
    assert done.returncode == 2, (done.returncode, done.stderr[-2000:])
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("fastmetrics: error:") and name in lines[0], done.stderr


# -- 1, 2: run headers ---------------------------------------------------------------------------


NEGATIVE = _uleb((1 << 63) | (2 << 40))  # bit 63 set: negative as an int64
WRAPPING = _uleb((1 << 62) + 1)  # bit-packed, bit 63 clear: (header >> 1) * bit_width wraps


def test_hybrid_kernels_refuse_run_headers_that_wrap():
    for header in (NEGATIVE, WRAPPING):
        buf = np.frombuffer(header + bytes(range(40)), np.uint8)
        out = np.zeros(64, np.uint32)
        assert hybrid.unpack_hybrid(buf, 0, buf.size, 8, out, 0, 64, 256) < 64
        assert not hybrid.all_equal(buf, 0, buf.size, 1, 64, 1)
        assert hybrid.hybrid_bits(buf, 0, buf.size, 64, np.zeros(8, np.uint8), 0) < 64
    for width in (0, 1, 8, 32):  # a run of more groups than the bytes hold is refused before any product
        buf = np.frombuffer(_uleb(((1 << 61) << 1) | 1) + bytes(16), np.uint8)
        assert hybrid.unpack_hybrid(buf, 0, buf.size, width, np.zeros(16, np.uint32), 0, 16, 1 << 20) < 16 or (
            width == 0
        )


def _levels_file(tmp_path) -> tuple[str, bytes]:
    """An uncompressed v1 file whose nullable 'pred' column has nulls: its definition levels are
    bit-packed runs long enough to hold a crafted header."""
    n = 400
    table = pa.table(
        {
            "item": pa.array(np.arange(n, dtype=np.int32)),
            "gold": pa.array(np.arange(n) % 2 == 0),
            "pred": pa.array([None if i % 3 == 0 else i % 5 == 0 for i in range(n)]),
        }
    )
    path = str(tmp_path / "levels.parquet")
    return path, _write(path, table, compression="none", data_page_version="1.0")


@pytest.mark.parametrize("header", [NEGATIVE, WRAPPING], ids=["bit63", "2^62+1"])
def test_a_definition_level_run_header_that_wraps(tmp_path, header):
    """Finding 1 (a segfault in _all_equal) and 2 (unpack_hybrid): the levels' first run header
    replaced, in place, by one of bit 63 or of 2^62 + 1."""
    path, data = _levels_file(tmp_path)
    column, _, body, end, _ = next(p for p in _pages(data) if p[0] == "pred")
    length = int.from_bytes(data[body : body + 4], "little")
    assert length >= len(header) + 1
    patched = data[: body + 4] + header + data[body + 4 + len(header) :]
    Path(path).write_bytes(patched)
    done = _count_in_subprocess(path, "--by", "")
    _one_clear_error(done, "levels.parquet")


def test_a_dictionary_index_run_header_that_wraps(tmp_path):
    """Finding 2: a run header of 2^62 + 1 (bit 63 clear) in the dictionary indices."""
    n = 1024
    table = pa.table(
        {
            "item": (np.arange(n) % 256 * 1000 + 7).astype(np.int32),
            "gold": np.arange(n) % 2 == 0,
            "pred": np.arange(n) % 3 == 0,
        }
    )
    path = str(tmp_path / "indices.parquet")
    data = _write(path, table, compression="none", use_dictionary=["item"], data_page_version="1.0")
    at = data.find(bytes([8, 0x7F]) + bytes(range(8)))  # bit width 8, the first bit-packed run
    assert at > 0
    Path(path).write_bytes(data[: at + 1] + WRAPPING + data[at + 1 + len(WRAPPING) :])
    done = _count_in_subprocess(path, "--by", "")
    assert done.returncode in (0, 2) and "Traceback" not in done.stderr, done.stderr[-2000:]
    if done.returncode == 2:
        _one_clear_error(done, "indices.parquet")


# -- 3: a codec out of range ---------------------------------------------------------------------


def test_a_codec_out_of_range_is_one_clear_error(tmp_path):
    """Finding 3: pyarrow's ColumnChunkMetaData.compression aborted the process on this footer;
    the codec is read from the footer's Thrift instead, and pyarrow's refusal is the error."""
    path = str(tmp_path / "codec.parquet")
    data = _write(path, fuzzing.base_table(200, 3, string_ids=False))
    lo, hi = fuzzing._footer_span(data)
    events = []
    fuzzing.walk(data, lo, events)
    codecs = [(s, e) for p, k, s, e in events if k == "int" and len(p) == 6 and p[4] == 3 and p[5] == 4]
    assert codecs
    for s, e in codecs:
        data = data[:s] + _uleb(fuzzing._zigzag(60)) + data[e:]  # codec 60: one byte, as SNAPPY's
    Path(path).write_bytes(data)
    _one_clear_error(_count_in_subprocess(path), "codec.parquet")
    done = _python(f"import fastmetrics as fm; fm.count({path!r})")
    assert done.returncode == 1 and "InputError" in done.stderr and "codec.parquet" in done.stderr


# -- 4: a list of booleans of a huge size --------------------------------------------------------


def test_skip_is_bounded_by_the_bytes():
    """Finding 4: a list header claiming 2^62 booleans ends the walk at once."""
    buf = np.frombuffer(bytes([0xF1]) + _uleb(1 << 62) + bytes(32), np.uint8)
    assert thrift.skip(buf, 0, buf.size, thrift.LIST) == -1
    for kind, head in ((thrift.BINARY, b""), (thrift.MAP, b""), (thrift.SET, bytes([0xF5]))):
        buf = np.frombuffer(head + _uleb(1 << 62) + bytes(8), np.uint8)
        assert thrift.skip(buf, 0, buf.size, kind) == -1
    buf = np.frombuffer(bytes([0x80]) + bytes(8), np.uint8)  # 8 elements of no type
    assert thrift.skip(buf, 0, buf.size, thrift.LIST) == -1


def test_a_page_header_with_a_huge_list_of_booleans(tmp_path):
    path = str(tmp_path / "list.parquet")
    data = _write(path, fuzzing.base_table(300, 0), compression="none")
    column, start, body, end, events = next(p for p in _pages(data) if _page_type(data, p[4]) == 0)
    # a field 15 of type list<bool> of 2^62 elements, before the page header's end
    field = bytes([0x09]) + _uleb(fuzzing._zigzag(15)) + bytes([0xF1]) + _uleb(1 << 62)
    Path(path).write_bytes(fuzzing.splice(data, body - 1, 0, field))
    done = _python(f"import fastmetrics as fm\ntry:\n fm.count({path!r})\nexcept fm.InputError: pass")
    assert done.returncode == 0, done.stderr[-2000:]


# -- 5: a dictionary page of 2^40 values ----------------------------------------------------------


def test_a_dictionary_page_claiming_more_values_than_its_bytes(tmp_path):
    """Finding 5: the count is checked against the page's bytes before anything is allocated."""
    with pytest.raises(native_parquet.Unsupported):
        native_parquet._dictionary(np.zeros(64, np.uint8), 1 << 40, 2, 0)
    with pytest.raises(native_parquet.Unsupported):
        native_parquet._dictionary(np.zeros(64, np.uint8), 1 << 40, 1, 8)
    path = str(tmp_path / "dictionary.parquet")
    data = _write(path, fuzzing.base_table(300, 0), compression="none")
    column, start, body, end, events = next(p for p in _pages(data) if _page_type(data, p[4]) == 2)
    s, e = next((s, e) for p, k, s, e in events if p == (7, 1))  # DictionaryPageHeader.num_values
    for value in (1 << 40, (1 << 31) - 1, 1 << 20):
        Path(path).write_bytes(fuzzing.splice(data, s, e - s, _uleb(fuzzing._zigzag(value))))
        _expect_pyarrows_reading(path)


# -- 6: ids that are not UTF-8 --------------------------------------------------------------------


def _not_utf8_table() -> pa.Table:
    system = pa.Array.from_buffers(
        pa.string(), 4, [None, pa.py_buffer(np.array([0, 1, 3, 4, 5], np.int32)), pa.py_buffer(b"a\xff\xfebc")]
    )
    return pa.table({"system": system, "item": ["x", "x", "y", "y"], "gold": [1, 0, 1, 1], "pred": [1, 1, 0, 1]})


@pytest.mark.parametrize("form", ["arrow", "pandas", "parquet", "parquet-pyarrow", "csv", "csv-native"])
def test_an_id_that_is_not_utf8_is_refused_naming_column_and_row(tmp_path, monkeypatch, form):
    """Finding 6: a UnicodeDecodeError (exit 1) from every input; now one InputError naming the
    column and the row."""
    table = _not_utf8_table()
    source = table
    if form == "pandas":
        source = pd.DataFrame({c: pd.arrays.ArrowExtensionArray(table.column(c)) for c in table.column_names})
    elif form.startswith("parquet"):
        source = str(tmp_path / "ids.parquet")
        pq.write_table(table, source)
    elif form.startswith("csv"):
        source = str(tmp_path / "ids.csv")
        Path(source).write_bytes(b"system,item,gold,pred\na,x,1,1\n\xff\xfe,x,0,1\nb,y,1,0\nc,y,1,1\n")
        monkeypatch.setattr(native_csv, "MIN_BYTES", 0 if form == "csv-native" else native_csv.MIN_BYTES)
    with pytest.raises(fm.InputError, match=r"Column 'system'.* not UTF-8 text at row 1: b'\\xff\\xfe'"):
        fm.count(source, native=form != "parquet-pyarrow")
    if not isinstance(source, str):
        with pytest.raises(fm.InputError, match="not UTF-8"):
            fm.count(table.select(["item", "gold", "pred"]), gold=_gold_not_utf8(), by=())


def _gold_not_utf8() -> pa.Table:
    item = pa.Array.from_buffers(
        pa.string(), 2, [None, pa.py_buffer(np.array([0, 1, 3], np.int32)), pa.py_buffer(b"x\xffy")]
    )
    return pa.table({"item": item, "gold": [True, False]})


# -- 7: a damaged embedded Arrow schema ---------------------------------------------------------


def test_a_damaged_embedded_arrow_schema_is_one_clear_error(tmp_path):
    """Finding 7: an ArrowNotImplementedError (exit 1) from a damaged ARROW:schema; pyarrow's
    failures are caught by one rule, whatever their class."""
    path = str(tmp_path / "schema.parquet")
    table = fuzzing.base_table(50, 0)
    data = _write(path, table)
    schema = base64.b64decode(pq.ParquetFile(path).metadata.metadata[b"ARROW:schema"])
    damaged = None
    for at in range(len(schema)):  # the first byte whose change makes pyarrow's reading not implemented
        for value in range(64):
            candidate = schema[:at] + bytes([value]) + schema[at + 1 :]
            try:
                pa.ipc.read_schema(pa.py_buffer(candidate))
            except pa.ArrowNotImplementedError:
                damaged = candidate
                break
            except (pa.ArrowException, OSError):
                continue
        if damaged is not None:
            break
    assert damaged is not None
    stored = base64.b64encode(schema)
    assert data.count(stored) == 1
    Path(path).write_bytes(data.replace(stored, base64.b64encode(damaged)))  # the same length
    with pytest.raises(pa.ArrowNotImplementedError):
        pq.read_table(path)
    with pytest.raises(fm.InputError, match="schema.parquet"):
        fm.count(path)
    _one_clear_error(_count_in_subprocess(path), "schema.parquet")


# -- 8, 10: statistics that lie -------------------------------------------------------------------


def _statistics_spans(data: bytes, column: int, group: int = 0) -> dict:
    """{Statistics field id: (start, stop)} of the min/max values of a column chunk's footer."""
    lo, _ = fuzzing._footer_span(data)
    events = []
    fuzzing.walk(data, lo, events)
    return {p[-1]: (s, e) for p, k, s, e in events if k == "bytes" and p[:6] == (4, group, 1, column, 3, 12)}


@pytest.mark.parametrize("edit", ["wider", "narrower", "past the data"])
def test_lying_score_statistics_give_the_counts_of_the_data(tmp_path, edit):
    """Finding 8: the threshold grid came from the footer's min/max; now the data is checked
    against them and the count planned again from the data when they lie."""
    path = str(tmp_path / "stats.parquet")
    table = fuzzing.base_table(400, 0).select(["system", "topic", "item", "gold", "score"])
    data = _write(path, table, row_group_size=200)
    spans = _statistics_spans(data, 4)
    s, e = spans[5]  # max_value
    maximum = np.frombuffer(data[s:e], np.float64)[0]
    value = {"wider": maximum * 3, "narrower": maximum / 2, "past the data": -5.0}[edit]
    field = 6 if edit == "past the data" else 5  # a min above every score, or another max
    s, e = spans[field]
    Path(path).write_bytes(data[:s] + np.float64(value if field == 5 else 5.0).tobytes() + data[e:])
    src = source.open_source(path)
    assert src.statistics(["score"]) != {}  # the lie is taken as a hint
    got = _expect_pyarrows_reading(path, thresholds=7)
    assert got is not None
    np.testing.assert_array_equal(got, fm.count(path, thresholds=7, native=False).counts)


def test_an_integer_id_outside_the_stated_range_is_counted(tmp_path):
    """Finding 10: an id outside the footer's range was refused as unknown to a gold not given."""
    path = str(tmp_path / "ints.parquet")
    table = fuzzing.base_table(400, 1, string_ids=False)
    data = _write(path, table, row_group_size=200)
    s, e = _statistics_spans(data, 0, group=1)[5]  # the system's max in row group 1: 3, stated 2
    Path(path).write_bytes(data[:s] + np.int32(2).tobytes() + data[e:])
    assert source.open_source(path).statistics(["system"]) == {"system": (0, 2)}
    got = _expect_pyarrows_reading(path)
    assert got is not None and got.shape[0] == 4


def test_statistics_are_not_used_by_the_pyarrow_reading(tmp_path):
    path = str(tmp_path / "plain.parquet")
    pq.write_table(fuzzing.base_table(100, 0), path)
    assert source.open_source(path).statistics(["score"])
    assert source.open_source(path, native=False).statistics(["score"]) == {}


# -- 9: lone CRs in CSV --------------------------------------------------------------------------


def _csv_lines(n: int) -> list:
    return [b"system,item,gold,pred"] + [b"sys%d,i%d,%d,%d" % (i % 5, i, i % 2, (i // 2) % 2) for i in range(n)]


CR_CASES = {
    "a lone CR starting a line": lambda r: b"\n".join(r[:500]) + b"\n\r" + b"\n".join(r[500:]) + b"\n",
    "lone CRs ending every line": lambda r: b"\r".join(r) + b"\r",
    "CR LF, then lone CRs, then LF": lambda r: (
        b"\r\n".join(r[:300]) + b"\r\n" + b"\r".join(r[300:700]) + b"\r" + b"\n".join(r[700:])
    ),
    "a lone CR inside an id": lambda r: b"\n".join(r[:1500]) + b"\nsy\rs1,x,1,1\n" + b"\n".join(r[1500:]) + b"\n",
    "a header ended by a lone CR": lambda r: b"\r".join(r[:2]) + b"\n" + b"\n".join(r[2:]) + b"\n",
    "runs of empty lines": lambda r: b"\n\r\n\r\r".join(r) + b"\r\n",
}


@pytest.mark.parametrize("case", list(CR_CASES))
@pytest.mark.parametrize("sample", [1 << 24, 4096], ids=["whole-sample", "past-the-sample"])
def test_csv_line_ends_as_pyarrow_reads_them(tmp_path, monkeypatch, case, sample):
    """Finding 9: a lone CR is a line end, as in pyarrow's parser: at a line's start it makes an
    empty line (skipped), inside an id it cuts the line (pyarrow refuses the file) -- in the
    first block pyarrow types the columns from and past it."""
    monkeypatch.setattr(native_csv, "MIN_BYTES", 0)
    monkeypatch.setattr(csvfile, "plain_sample", lambda path: native_csv.plain_sample(path, block_size=sample))
    path = str(tmp_path / "cr.csv")
    Path(path).write_bytes(CR_CASES[case](_csv_lines(2000)))
    try:
        expected = fm.count(pacsv.read_csv(path, convert_options=native_csv.CONVERT)).counts
    except pa.ArrowInvalid:
        with pytest.raises(fm.InputError, match="cr.csv"):
            fm.count(path)
        return
    np.testing.assert_array_equal(fm.count(path).counts, expected)


# -- 11: DELTA_BYTE_ARRAY strings ----------------------------------------------------------------


@pytest.mark.parametrize("encoding", ["DELTA_BYTE_ARRAY", "DELTA_LENGTH_BYTE_ARRAY"])
def test_delta_encoded_strings_are_read_by_pyarrow(tmp_path, encoding):
    """Finding 11: strings pyarrow cannot read as a dictionary were refused; they are read as
    strings, as the inputs guide promises of what the native reader does not decode."""
    path = str(tmp_path / "delta.parquet")
    table = fuzzing.base_table(500, 0)
    pq.write_table(
        table, path, use_dictionary=False, column_encoding={c: encoding for c in ("system", "topic", "item")}
    )
    for thresholds in (None, 5):
        np.testing.assert_array_equal(
            fm.count(path, thresholds=thresholds).counts, fm.count(table, thresholds=thresholds).counts
        )


# -- a second campaign (the slow fuzz run of 2026-11-29, with Snappy blocks mutated too) -----------
# Each found fastmetrics counting bytes pyarrow refuses; the rule each test holds is pyarrow's.


def _header_event(data: bytes, column: str, field: tuple, page_type: int):
    """``(value start, value end)`` of a field of the first page header of ``column`` whose page
    is of ``page_type``, and the header's events."""
    for name, _, _, _, events in _pages(data):
        if name == column and _page_type(data, events) == page_type:
            return next((s, e) for p, k, s, e in events if p == field)
    raise AssertionError(f"no page of type {page_type} in column {column}")


def _table_file(tmp_path, name: str, **options) -> tuple[str, bytes]:
    path = str(tmp_path / name)
    return path, _write(path, fuzzing.base_table(300, 3), compression="none", **options)


@pytest.mark.parametrize("field", [(8, 3), (8, 2), (8, 1)], ids=["rows", "nulls", "values"])
def test_a_negative_count_in_a_v2_page_header(tmp_path, field):
    """pyarrow refuses a v2 page header with a negative count of values or rows ("Invalid page
    header (negative number of rows)"; the rows were not read at all), and reads past a negative
    count of nulls; the native reader leaves all three to it."""
    path, data = _table_file(tmp_path, "negative.parquet", data_page_version="2.0")
    s, e = _header_event(data, "gold", field, 3)
    Path(path).write_bytes(fuzzing.splice(data, s, e - s, _uleb(fuzzing._zigzag(-1))))
    _expect_pyarrows_reading(path)


FIELD_OF_ANOTHER_TYPE = {  # (page type, version, field, type written instead of i32)
    "v2 nulls as i16": (3, "2.0", (8, 2), thrift.I16),
    "v2 rows as i64": (3, "2.0", (8, 3), thrift.I64),
    "v1 values as i64": (0, "1.0", (5, 1), thrift.I64),
    "v1 repetition encoding as i16": (0, "1.0", (5, 4), thrift.I16),
    "page size as i64": (0, "1.0", (2,), thrift.I64),
    "dictionary values as i16": (2, "1.0", (7, 1), thrift.I16),
}


@pytest.mark.parametrize("case", list(FIELD_OF_ANOTHER_TYPE))
def test_a_header_field_of_another_type_is_absent(tmp_path, case):
    """A Thrift reader skips a field whose type is not the one declared, as if it were absent,
    and refuses a struct without a required field; the native reader read any integer type."""
    page_type, version, field, kind = FIELD_OF_ANOTHER_TYPE[case]
    path, data = _table_file(tmp_path, "typed.parquet", data_page_version=version)
    s, _ = _header_event(data, "item", field, page_type)
    assert data[s - 1] & 0x0F == thrift.I32  # the field's one-byte header: id delta, then type
    b = bytearray(data)
    b[s - 1] = (data[s - 1] & 0xF0) | kind
    Path(path).write_bytes(bytes(b))
    assert _expect_pyarrows_reading(path) is None


def _padded_uleb(value: int, length: int) -> bytes:
    """``value`` as a ULEB128 of ``length`` bytes (continuation bytes of zeros)."""
    head = _uleb(value)
    return bytes(b | 0x80 for b in head) + bytes([0x80] * (length - len(head) - 1)) + b"\x00"


def test_run_headers_pyarrow_refuses_are_refused():
    """pyarrow reads a run header as a uint32 of at most 5 bytes and refuses a run of no values
    (Arrow's RLE/bit-packed decoder); a header it refuses ends the values there."""
    value = bytes([5])
    cases = {
        "5 bytes": (_padded_uleb(3 << 1, 5), 3),
        "6 bytes": (_padded_uleb(3 << 1, 6), 0),
        "2^32": (_uleb(1 << 32), 0),
        "a repeated run of none": (_uleb(0), 0),
        "a bit-packed run of none": (_uleb(1), 0),
    }
    for name, (header, decoded) in cases.items():
        buf = np.frombuffer(header + value + bytes(8), np.uint8)
        out = np.zeros(3, np.uint32)
        got = hybrid.unpack_hybrid(buf, 0, buf.size, 8, out, 0, 3, 256)
        assert got == decoded, name
        assert hybrid.all_equal(buf, 0, buf.size, 8, 3, 5) == (decoded == 3), name
        assert (hybrid.hybrid_bits(buf, 0, buf.size, 3, np.zeros(1, np.uint8), 0) == 3) == (decoded == 3), name


def test_a_dictionary_index_run_of_a_seven_byte_header(tmp_path):
    """The campaign's case: a dictionary page's first index run header replaced by one of 7
    bytes that covers every row with one index; pyarrow: "Unexpected end of stream"."""
    path, data = _table_file(tmp_path, "long-header.parquet", data_page_version="1.0")
    _, _, body, end, events = next(p for p in _pages(data) if p[0] == "system" and _page_type(data, p[4]) == 0)
    length = int.from_bytes(data[body : body + 4], "little")  # the definition levels, then the indices
    at = body + 4 + length + 1  # past the bit width
    header = _padded_uleb(1 << 20, 7)  # a repeated run of 2^19 values
    assert at + len(header) + 1 <= end
    Path(path).write_bytes(data[:at] + header + bytes([0]) + data[at + len(header) + 1 :])
    assert _expect_pyarrows_reading(path) is None


@pytest.mark.parametrize("native", [True, False])
def test_a_csv_column_name_that_is_not_utf8_is_one_clear_error(tmp_path, monkeypatch, native):
    """A header name that is not UTF-8 ended in a UnicodeDecodeError traceback (pyarrow's Schema.names)."""
    path = tmp_path / "names.csv"
    path.write_bytes(b"system,it\xe3m,gold,pred\na,x,1,1\nb,y,0,1\n")
    monkeypatch.setattr(native_csv, "MIN_BYTES", 0)
    with pytest.raises(fm.InputError, match="names.csv': a column name is not UTF-8 text"):
        fm.count(str(path), native=native)
    if native:
        _one_clear_error(_count_in_subprocess(str(path)), "names.csv")


def test_a_footer_field_of_another_type_is_absent(tmp_path):
    """The footer too: a dictionary page offset written as an i32 (ColumnMetaData field 11 is an
    i64) is no offset for pyarrow ("Dictionary page must be before data page"); the native
    reader took it and counted the file."""
    path, data = _table_file(tmp_path, "footer-type.parquet")
    lo, _ = fuzzing._footer_span(data)
    events: list = []
    fuzzing.walk(data, lo, events)
    s = next(s for p, k, s, e in events if p[-2:] == (3, 11) and k == "int")
    assert data[s - 1] & 0x0F == thrift.I64
    b = bytearray(data)
    b[s - 1] = (data[s - 1] & 0xF0) | thrift.I32
    Path(path).write_bytes(bytes(b))
    assert _expect_pyarrows_reading(path) is None


def _flagged_v2_file(tmp_path, created_by: bytes) -> str:
    """A v2 Snappy file in which every page pyarrow marked not compressed holds, instead of its
    values, a Snappy block of exactly their length that decompresses to other values, and whose
    footer names ``created_by`` as its writer."""
    from .test_native_snappy import copy, literal

    path = str(tmp_path / "flags.parquet")
    table = fuzzing.base_table(300, 3, string_ids=False)
    data = bytearray(_write(path, table, compression="snappy", data_page_version="2.0", use_dictionary=False))
    rewritten = 0
    for _, _, body, end, events in _pages(bytes(data)):
        # a boolean field is its header byte alone: is_compressed follows the levels' lengths
        after = next((e for p, k, s, e in events if p == (8, 6)), None)
        if after is None or data[after] != 0x10 | thrift.FALSE:
            continue
        raw = next(fuzzing._varint(data, s)[0] for p, k, s, e in events if p == (8, 5))
        levels = (raw >> 1) ^ -(raw & 1)
        n = end - body - levels
        block = _uleb(n) + literal(bytes(data[body + levels : end - 8]), extra=4 - len(_uleb(n))) + copy(1, 8, 2)
        assert len(block) == n
        data[body + levels : end] = block
        rewritten += 1
    assert rewritten  # pyarrow marks the pages of random numbers, which Snappy cannot shrink
    lo, _ = fuzzing._footer_span(bytes(data))
    events: list = []
    fuzzing.walk(bytes(data), lo, events)
    s, e = next((s, e) for p, k, s, e in events if p == (6,) and k == "bytes")
    Path(path).write_bytes(fuzzing.splice(bytes(data), s - 1, e - s + 1, _uleb(len(created_by)) + created_by))
    return path


@pytest.mark.parametrize("writer", [b"parquet-cpp version 1.5.1", b"parquet-cpp-arrow version 26.0.1"])
def test_v2_pages_marked_not_compressed_are_read_as_pyarrow_reads_them(tmp_path, writer):
    """pyarrow takes every v2 page of a file parquet-cpp wrote before Arrow 3.0 as compressed,
    whatever its is_compressed says (ARROW-10353: that writer marked compressed pages false);
    the native reader copied such a page as it was."""
    path = _flagged_v2_file(tmp_path, writer)
    assert pq.ParquetFile(path).metadata.created_by == writer.decode()
    _expect_pyarrows_reading(path, thresholds=[0.25, 0.5, 0.75])


def test_v2_pages_marked_not_compressed_by_arrow_are_decoded_natively(tmp_path):
    path = str(tmp_path / "v2.parquet")
    table = fuzzing.base_table(300, 3, string_ids=False)
    pq.write_table(table, path, compression="snappy", data_page_version="2.0", use_dictionary=False)
    metadata = pq.ParquetFile(path).metadata
    schema = pq.read_schema(path)
    groups = native_parquet.RowGroups(path, metadata, schema)
    batch = groups.read(0, ["item", "score"])  # Unsupported here would leave the file to pyarrow
    assert batch.equals(pq.read_table(path, columns=["item", "score"]).slice(0, batch.num_rows).to_batches()[0])
