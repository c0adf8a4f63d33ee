"""The Parquet reader of the count stage (fastmetrics.io._parquet) against pyarrow's: the same
values for every writer option it decodes, and pyarrow's reading wherever it does not."""

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import fastmetrics as fm
from fastmetrics.io import readahead, source
from fastmetrics.io.native import Unsupported, hybrid
from fastmetrics.io.native import parquet as _parquet

WRITER_OPTIONS = [
    {},
    {"compression": "none"},
    {"compression": "zstd"},  # left to pyarrow
    {"data_page_version": "2.0"},
    {"data_page_version": "2.0", "compression": "none"},
    {"use_dictionary": False},  # plain strings: left to pyarrow
    {"dictionary_pagesize_limit": 64},  # dictionaries outgrown mid-chunk: plain pages after them
    {"data_page_size": 100, "write_batch_size": 7},  # many small pages, runs cut anywhere
    {"row_group_size": 333},
]


def _table(rows, seed, nulls=False):
    rng = np.random.default_rng(seed)
    system = rng.integers(0, 5, rows)
    system.sort()
    columns = {
        "system": pa.array([f"team{s:02d}/run_é" for s in system]),
        "topic": pa.array([f"Q{t}" for t in rng.integers(0, 40, rows)]),
        "item": pa.array([f"doc{i}" for i in rng.permutation(rows)]),
        "gold": pa.array(rng.random(rows) < 0.3),
        "pred": pa.array(rng.random(rows) < 0.5),
        "score": pa.array(rng.random(rows).astype(np.float32)),
        "weight": pa.array(rng.random(rows)),
        "code": pa.array(rng.integers(-3, 900, rows).astype(np.int32)),
        "big": pa.array(rng.integers(0, 2**40, rows)),
    }
    if nulls:
        columns["topic"] = pa.array([None if i % 97 == 5 else f"Q{i % 7}" for i in range(rows)])
    return pa.table(columns)


def _plain(batch_or_table):
    """Dictionary columns decoded, for comparing values whatever the dictionaries."""
    table = pa.Table.from_batches([batch_or_table]) if isinstance(batch_or_table, pa.RecordBatch) else batch_or_table
    return source.decode_dictionaries(table).combine_chunks()


@pytest.mark.parametrize(
    "options", WRITER_OPTIONS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()) or "defaults"
)
@pytest.mark.parametrize("rows", [1, 1000, 5000])
def test_batches_equal_pyarrow(tmp_path, options, rows):
    table = _table(rows, rows)
    path = str(tmp_path / "t.parquet")
    pq.write_table(table, path, **options)
    src = source.open_source(path)
    columns = list(table.column_names)
    got = pa.concat_tables([pa.Table.from_batches([b]) for _, _, b in src.record_batches(columns)])
    assert _plain(got).equals(table.combine_chunks())
    # the dictionary columns stay dictionaries, as pyarrow's dataset reads them
    assert pa.types.is_dictionary(got.schema.field("system").type)


NATIVE = [{}, {"compression": "none"}, {"data_page_version": "2.0"}, {"data_page_size": 100, "write_batch_size": 7}]


@pytest.mark.parametrize("options", NATIVE, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()) or "defaults")
def test_the_native_reader_decodes_pyarrows_files(tmp_path, options):
    """The fast path is taken (not a silent fallback) for the files pyarrow writes."""
    table = _table(4000, 1)
    path = str(tmp_path / "t.parquet")
    pq.write_table(table, path, row_group_size=1500, **options)
    dataset = source._parquet_dataset(path)
    fragment = next(iter(dataset.get_fragments()))
    groups = _parquet.RowGroups(path, fragment.metadata, dataset.schema)
    for g in range(fragment.metadata.num_row_groups):
        batch = groups.read(g, table.column_names)
        expected = pq.ParquetFile(path).read_row_group(g)
        assert _plain(batch).equals(expected.combine_chunks())


@pytest.mark.parametrize(
    "options,reason",
    [
        ({"compression": "zstd"}, "codec"),
        ({"use_dictionary": False}, "read as"),
    ],
)
def test_what_it_does_not_decode_is_left_to_pyarrow(tmp_path, options, reason):
    table = _table(100, 2)
    path = str(tmp_path / "t.parquet")
    pq.write_table(table, path, **options)
    dataset = source._parquet_dataset(path)
    fragment = next(iter(dataset.get_fragments()))
    groups = _parquet.RowGroups(path, fragment.metadata, dataset.schema)
    with pytest.raises(Unsupported):
        groups.read(0, ["system", "score"] if reason == "read as" else ["gold"])


def test_a_null_is_left_to_pyarrow_and_named(tmp_path):
    table = _table(500, 3, nulls=True)
    path = str(tmp_path / "t.parquet")
    pq.write_table(table, path)
    with pytest.raises(fm.InputError, match="topic"):
        fm.count(path)


def test_counts_from_a_file_equal_counts_from_its_table(tmp_path):
    table = _table(20000, 4)
    path = str(tmp_path / "t.parquet")
    pq.write_table(table, path, row_group_size=3000, data_page_size=512)
    for thresholds in (None, 11, "exact"):
        from_file = fm.count(path, thresholds=thresholds)
        from_table = fm.count(table, thresholds=thresholds)
        np.testing.assert_array_equal(from_file.counts, from_table.counts)


@pytest.mark.parametrize("width", [1, 3, 10, 17])
def test_hybrid_runs_and_bit_packing_equal_a_reference(tmp_path, width):
    rng = np.random.default_rng(width)
    values = rng.permutation(np.repeat(np.arange(2**width, dtype=np.int64) * 7919, 3 + 600 // 2**width))
    values[100:400] = values[100]  # a run
    # written by pyarrow as dictionary indices of this bit width: read back through the pages
    for step in (1, 2):
        table = pa.table({"v": pa.array(values[::step])})
        path = str(tmp_path / f"h{step}.parquet")
        pq.write_table(table, path, use_dictionary=True, dictionary_pagesize_limit=1 << 30)
        dataset = source._parquet_dataset(path)
        fragment = next(iter(dataset.get_fragments()))
        got = _parquet.RowGroups(path, fragment.metadata, dataset.schema).read(0, ["v"])
        np.testing.assert_array_equal(got.column(0).to_numpy(), values[::step])


def test_a_damaged_file_is_an_input_error_or_reads_as_pyarrow_reads_it(tmp_path):
    """Bytes of the data pages changed at random: the count either refuses the file with an
    InputError (naming it) or gives pyarrow's counts of the same bytes -- never another error."""
    rng = np.random.default_rng(7)
    base = str(tmp_path / "base.parquet")
    pq.write_table(_table(2000, 8), base, row_group_size=700, data_page_size=256)
    raw = open(base, "rb").read()
    data_end = len(raw) - 8 - int.from_bytes(raw[-8:-4], "little")
    damaged = str(tmp_path / "damaged.parquet")
    compared = 0
    for _ in range(60):
        body = bytearray(raw)
        for _ in range(rng.integers(1, 5)):
            body[rng.integers(4, data_end)] = rng.integers(0, 256)
        open(damaged, "wb").write(body)
        try:
            got = fm.count(damaged, thresholds=11).counts
        except fm.InputError as error:
            assert "damaged.parquet" in str(error)
            continue
        try:
            with pytest.MonkeyPatch.context() as m:
                m.setattr(source, "is_local", lambda fragment: False)
                m.setattr(readahead, "is_local", lambda fragment: False)
                expected = fm.count(damaged, thresholds=11).counts
        except fm.InputError:
            continue  # damage in bytes pyarrow checks and a count does not read (statistics)
        np.testing.assert_array_equal(got, expected)
        compared += 1
    assert compared > 5


def _uleb128(value: int) -> list:
    out = []
    while True:
        byte, value = value & 0x7F, value >> 7
        out.append(byte | 0x80 if value else byte)
        if not value:
            return out


# a run header with bit 63 set: negative as the int64 the decoder reads it into
NEGATIVE_RUN = _uleb128((1 << 63) | (2 << 40))


def test_a_run_header_past_int64_is_refused_not_written():
    """A damaged hybrid run header whose value sets bit 63 stops the decoding where it is (the
    page is then damaged, and the file left to pyarrow), instead of a negative run length whose
    writes land outside the output."""
    buf = np.array(NEGATIVE_RUN + [3] + list(range(8)), np.uint8)
    out = np.zeros(16, np.uint32)
    table = np.arange(256, dtype=np.uint32) * 7
    assert hybrid.unpack_hybrid(buf, 0, buf.size, 8, out, 0, 16, 256, table) == 0
    assert hybrid.unpack_hybrid(buf, 0, buf.size, 8, out, 0, 16, 256) == 0
    assert not out.any()
    bits = np.zeros(4, np.uint8)
    assert hybrid.hybrid_bits(buf, 0, buf.size, 16, bits, 0) == 0


def test_a_file_with_such_a_header_is_an_input_error(tmp_path):
    path = str(tmp_path / "damaged.parquet")
    n = 1024
    table = pa.table(
        {
            "item": (np.arange(n) % 256 * 1000 + 7).astype(np.int32),
            "gold": np.arange(n) % 2 == 0,
            "pred": np.arange(n) % 3 == 0,
        }
    )
    pq.write_table(table, path, compression="none", use_dictionary=["item"], data_page_version="1.0")
    raw = bytearray(open(path, "rb").read())
    at = raw.find(bytes([8, 0x7F]) + bytes(range(8)))  # bit width 8, the first bit-packed run of the indices
    assert at > 0
    patch = bytes(NEGATIVE_RUN + [3] + list(range(8)))  # the negative run, then one bit-packed group
    raw[at + 1 : at + 1 + len(patch)] = patch
    open(path, "wb").write(bytes(raw))
    with pytest.raises(fm.InputError, match="damaged.parquet"):
        fm.count(path, by=())


def test_an_empty_thrift_list_without_an_element_type_is_skipped():
    """A list of no elements whose header gives element type 0 is read by Thrift's reader (and
    written by fastparquet for an empty key_value_metadata); a list of elements needs a type."""
    from fastmetrics.io.native import thrift

    empty = np.frombuffer(bytes([0x00]), np.uint8)
    assert thrift.skip(empty, 0, empty.size, thrift.LIST) == 1
    untyped = np.frombuffer(bytes([0x10, 0x00]), np.uint8)
    assert thrift.skip(untyped, 0, untyped.size, thrift.LIST) == -1


def test_fastparquet_footers_are_read_natively(tmp_path):
    """Every footer fastparquet wrote was left to pyarrow (its empty lists, above); its columns
    are now decoded natively where their encodings are ones the reader decodes."""
    fastparquet = pytest.importorskip("fastparquet")
    rng = np.random.default_rng(5)
    table = pa.table({"gold": rng.random(3000) < 0.4, "pred": rng.random(3000) < 0.5, "score": rng.random(3000)})
    path = str(tmp_path / "fastparquet.parquet")
    fastparquet.write(path, table.to_pandas(), compression="SNAPPY")
    groups = _parquet.RowGroups(path, pq.ParquetFile(path).metadata, table.schema)
    batch = groups.read(0, ["gold", "pred", "score"])
    assert batch.equals(pq.read_table(path).select(["gold", "pred", "score"]).to_batches()[0])
    np.testing.assert_array_equal(
        fm.count(path, by=(), thresholds=5).counts, fm.count(table, by=(), thresholds=5).counts
    )


def _unique_values(column):
    return sorted(set(source.decode_dictionaries(pa.table({"c": column})).column("c").to_pylist()))


def _dictionary_strings(indices, dictionary):
    return pa.DictionaryArray.from_arrays(pa.array(np.asarray(indices, np.int32)), pa.array(dictionary))


@pytest.mark.parametrize("options", NATIVE, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()) or "defaults")
@pytest.mark.parametrize("width", [1, 4, 9])
def test_the_distinct_values_found_while_decoding_are_those_the_rows_use(tmp_path, options, width):
    """Runs, bit-packed groups and a dictionary holding values no row uses (pyarrow writes an
    Arrow dictionary whole): the values noted while decoding are exactly the rows' distinct ones."""
    rng = np.random.default_rng(width)
    size = 2**width + 3
    runs = rng.integers(0, size - 3, 300)  # the last three values never used
    indices = np.repeat(runs, rng.integers(1, 40, runs.size))
    indices[::13] = rng.integers(0, size - 3, indices[::13].size)  # short runs: bit-packed groups
    dictionary = [f"LA{v:06d}-{(v * 7919) % 10000:04d}" for v in range(size)]
    table = pa.table({"system": _dictionary_strings(indices, dictionary), "gold": pa.array(indices % 2 == 0)})
    path = str(tmp_path / "d.parquet")
    pq.write_table(table, path, row_group_size=indices.size // 2 + 1, **options)
    dataset = source._parquet_dataset(path)
    fragment = next(iter(dataset.get_fragments()))
    groups = _parquet.RowGroups(path, fragment.metadata, dataset.schema)
    for g in range(fragment.metadata.num_row_groups):
        batch, found = groups.decode(g, ["system", "gold"], ["system", "gold"])
        assert set(found) == {"system"}  # booleans have no dictionary
        column = batch.column("system")
        expected = set(column.dictionary.take(pa.array(np.unique(column.indices.to_numpy()))).to_pylist())
        assert sorted(found["system"].to_pylist()) == sorted(expected)
        assert len(column.dictionary) > len(expected)  # the unused values were in the dictionary


def test_a_count_from_a_file_ignores_dictionary_values_no_row_uses(tmp_path):
    n = 70_000  # above the serial threshold: the threaded kernels count
    rng = np.random.default_rng(5)
    system = _dictionary_strings(rng.integers(0, 2, n), ["a", "b", "never"])
    topic = _dictionary_strings(np.arange(n) % 7, [f"t{k}" for k in range(9)])
    table = pa.table(
        {
            "system": system,
            "topic": topic,
            "item": pa.array([f"d{k}" for k in range(n)]),
            "gold": pa.array(rng.random(n) < 0.4),
            "pred": pa.array(rng.random(n) < 0.5),
        }
    )
    path = str(tmp_path / "unused.parquet")
    pq.write_table(table, path, row_group_size=20_000)
    got = fm.count(path)
    assert list(got.coords["system"]) == ["a", "b"]
    assert list(got.coords["topic"]) == [f"t{k}" for k in range(7)]
    np.testing.assert_array_equal(got.counts, fm.count(source.decode_dictionaries(table)).counts)


def test_the_loaded_source_gives_the_distinct_values_of_its_own_batches_only(tmp_path):
    table = _table(5000, 6)
    path = str(tmp_path / "t.parquet")
    pq.write_table(table, path, row_group_size=1200)
    loaded = source.open_source(path).loaded(["system", "topic", "gold"], 1 << 30, ["system", "topic"])
    batches = [b for _, _, b in loaded.record_batches(["system", "topic", "gold"])]
    assert len(batches) == 5
    for batch in batches:
        for name in ("system", "topic"):
            column = batch.column(name)
            expected = _unique_values(column)
            assert sorted(loaded.known_distinct(column).to_pylist()) == expected
        assert loaded.known_distinct(batch.column("gold")) is None
    # the same values in other memory (a copy, or other indices on the same dictionary) are not
    # known: surveyed from their rows
    column = batches[0].column("system")
    indices = column.indices.to_numpy().copy()
    assert loaded.known_distinct(pa.DictionaryArray.from_arrays(pa.array(indices), column.dictionary)) is None
    indices[:] = 0
    assert loaded.known_distinct(pa.DictionaryArray.from_arrays(pa.array(indices), column.dictionary)) is None
    # a slice lies in the same buffer, at another offset
    assert loaded.known_distinct(column.slice(1)) is None
    # a dictionary sliced over the same buffers holds other values at the same indices
    shifted = pa.DictionaryArray.from_arrays(column.indices, column.dictionary.slice(1), safe=False)
    assert loaded.known_distinct(shifted) is None
