"""String ids are coded once, by the cheapest route the data allows, and count exactly as int codes.

The coder (:func:`fastmetrics.count.encoders.string_codes`) is checked against Arrow's own
``dictionary_encode`` on strings of every length around the 8-byte word it compares by, in every
order (grouped, repeated blocks, random), sliced, chunked and of every string type. The counts of
one data set are then compared across the forms a user has it in: int codes, ``string``,
``large_string``, ``string_view``, dictionary arrays, Parquet with per-row-group dictionaries that
differ, pandas and polars categoricals and CSV -- for hard labels, a grid, an exact sweep and
ranks. Sizes cross the point where the parallel kernels take over (65,536 rows).
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
import pytest

import fastmetrics as fm
from fastmetrics._errors import InputError
from fastmetrics.count.encoders import SMALL, string_codes

BIG = SMALL + 4_321  # past the parallel kernels' threshold, not a round number of rows


def _random_strings(rng, n_distinct: int, max_len: int = 30) -> list[str]:
    """Distinct-ish ids of 0 to ``max_len`` characters, some multibyte, some sharing prefixes."""
    alphabet = list("abcXYZ019_/-.") + ["é", "ß", "中", "🙂"]
    out = {""}
    while len(out) < n_distinct:
        size = int(rng.integers(0, max_len + 1))
        out.add("".join(rng.choice(alphabet, size)))
    out = sorted(out)
    # ids equal in their first 8 or 16 bytes, differing after: the word comparison's edge
    out += ["prefix__" + "x" * k for k in range(1, 10)] + ["0123456789abcdef" + c for c in "ab"]
    return out


def _reference(values: pa.Array) -> tuple[np.ndarray, pa.Array]:
    """Codes into the sorted distinct values, by Arrow's hash and sort."""
    dictionary = pc.unique(values)
    dictionary = dictionary.take(pc.sort_indices(dictionary))
    return pc.index_in(values, value_set=dictionary).to_numpy(zero_copy_only=False), dictionary


def _check(column, expected_values):
    coded = string_codes(column)
    chunks = column.chunks if isinstance(column, pa.ChunkedArray) else [column]
    assert [len(c) for c in coded.chunks] == [len(c) for c in chunks]
    codes = np.concatenate([c.indices.to_numpy() for c in coded.chunks]) if coded.num_chunks else np.zeros(0)
    expected_codes, dictionary = _reference(pa.array(expected_values, pa.string()))
    assert coded.chunk(0).dictionary.cast(pa.string()).equals(dictionary)
    assert all(c.dictionary.equals(coded.chunk(0).dictionary) for c in coded.chunks)
    np.testing.assert_array_equal(codes, expected_codes)


@pytest.mark.parametrize("order", ["grouped", "blocks", "random"])
@pytest.mark.parametrize("n_rows", [1_000, BIG])
def test_codes_equal_arrows_in_every_order(order, n_rows):
    rng = np.random.default_rng(n_rows + len(order))
    labels = _random_strings(rng, 300)
    if order == "grouped":  # runs of equal ids, as systems and topics come
        index = np.sort(rng.integers(0, len(labels), n_rows))
    elif order == "blocks":  # one block of items repeated, as every system of a topic lists them
        block = rng.integers(0, len(labels), 97)
        index = np.resize(block, n_rows)
        index[rng.integers(0, n_rows, 50)] = rng.integers(0, len(labels), 50)  # the pattern broken now and then
    else:
        index = rng.integers(0, len(labels), n_rows)
    values = [labels[i] for i in index]
    _check(pa.array(values), values)
    _check(pa.array(values, pa.large_string()), values)
    _check(pa.array(values, pa.string_view()), values)


@pytest.mark.parametrize("period", [1, 2, 97])
def test_repeats_broken_by_one_byte_or_by_where_rows_cut(period):
    """Rows are compared a block at a time with the rows one period back: a block that differs
    from those rows in one byte, or only in where its rows cut the same bytes ("ab", "c" then
    "a", "bc"), is coded row by row."""
    pattern = ["ab", "c"] if period == 2 else [f"doc{i:04d}" for i in range(period)]
    values = pattern * (BIG // len(pattern))
    for at in (100, 5_003, 40_000, len(values) - 3):
        changed = list(values[at])
        changed[-1] = "Z"
        values[at] = "".join(changed)  # same length, one byte changed
    if period == 2:
        values[7_000:7_002] = ["a", "bc"]  # the same bytes, cut elsewhere
        values[9_000:9_064] = ["a", "bc"] * 32
    _check(pa.array(values), values)
    _check(pa.array(values, pa.large_string()), values)


def test_codes_of_slices_and_chunks():
    rng = np.random.default_rng(3)
    labels = _random_strings(rng, 2_000)
    values = [labels[i] for i in rng.integers(0, len(labels), 3 * BIG)]
    array = pa.array(values)
    _check(array.slice(12_345, 2 * BIG), values[12_345 : 12_345 + 2 * BIG])
    cut = [0, 7, 40_000, 40_001, 2 * BIG + 5, 3 * BIG]
    chunks = pa.chunked_array([array.slice(a, b - a) for a, b in zip(cut[:-1], cut[1:])])
    _check(chunks, values)
    # chunks of both widths, and an empty one, in one column
    mixed = pa.chunked_array(
        [array.slice(0, BIG).cast(pa.large_string()), array.slice(BIG, 0).cast(pa.large_string())]
        + [array.slice(BIG, BIG).cast(pa.large_string())]
    )
    _check(mixed, values[: 2 * BIG])


def test_codes_of_empty_and_one_value():
    _check(pa.array([""] * BIG), [""] * BIG)
    _check(pa.array(["same id"] * BIG), ["same id"] * BIG)
    _check(pa.array(["a", "", "a"]), ["a", "", "a"])


def test_many_distinct_values():
    # every value new: the hash tables grow many times, in every thread
    values = [f"doc{i:07d}" for i in np.random.default_rng(5).permutation(300_000)]
    _check(pa.array(values), values)


# -- the same counts from every form of the same data ------------------------------------------
SYSTEMS = [f"team{i:03d}/run_{kind}" for i, kind in enumerate(["primary", "contrastive1", "b", "c"])]
TOPICS = [f"Q{1000 + i}_R{i % 3}" for i in range(5)]
N_ITEMS = 4_000  # 4 x 5 x 4,000 = 80,000 rows: past SMALL


def _runs(seed: int = 11) -> pa.Table:
    rng = np.random.default_rng(seed)
    s, t, i = (x.reshape(-1) for x in np.indices((len(SYSTEMS), len(TOPICS), N_ITEMS)))
    gold_of = rng.random((len(TOPICS), N_ITEMS)) < 0.3
    score = np.round(rng.random(s.size), 3)  # rounded: ties within a topic
    return pa.table(
        {
            "system": pa.array(SYSTEMS).take(pa.array(s)),
            "topic": pa.array(TOPICS).take(pa.array(t)),
            "item": pa.array([f"doc{k}" for k in range(N_ITEMS)]).take(pa.array(i)),
            "gold": gold_of[t, i],
            "pred": score >= 0.5,
            "score": score,
        }
    )


def _as_int_codes(table: pa.Table) -> pa.Table:
    """Each id column as the int rank of its string among the sorted ids: the same axes' order."""
    for name in ("system", "topic", "item"):
        codes, _ = _reference(table.column(name).combine_chunks())
        table = table.set_column(table.column_names.index(name), name, pa.array(codes.astype(np.int64)))
    return table


def _cast_ids(table: pa.Table, kind) -> pa.Table:
    for name in ("system", "topic", "item"):
        column = table.column(name)
        column = column.dictionary_encode() if kind == "dictionary" else column.cast(kind)
        table = table.set_column(table.column_names.index(name), name, column)
    return table


COUNTS = {
    "hard": dict(),
    "grid": dict(thresholds=11),
    "exact": dict(thresholds="exact"),
    "ranks": dict(thresholds="ranks"),
}


def _same_counts(tensor, reference, strings=True):
    np.testing.assert_array_equal(tensor.counts, reference.counts)
    assert tensor.axes == reference.axes
    for name, values in reference.coords.items():
        got = tensor.coords[name]
        if strings and name in ("system", "topic"):
            labels = {"system": sorted(SYSTEMS), "topic": sorted(TOPICS)}[name]
            values = np.asarray([labels[int(v)] for v in values])
            got = np.asarray([str(v) for v in got])
        np.testing.assert_array_equal(got, values)


def _forms(tmp_path, table):
    """Name -> the input in that form (objects, or file paths)."""
    out = {
        "string": table,
        "large_string": _cast_ids(table, pa.large_string()),
        "string_view": _cast_ids(table, pa.string_view()),
        "dictionary": _cast_ids(table, "dictionary"),
        "pandas categorical": table.to_pandas().astype({"system": "category", "topic": "category", "item": "category"}),
        "chunked": pa.Table.from_batches(table.to_batches(max_chunksize=9_999)),
    }
    # row groups of 7,000 rows: each holds its own dictionary, of other values than the next one's
    parquet = tmp_path / "runs.parquet"
    pq.write_table(table, parquet, row_group_size=7_000)
    out["parquet"] = str(parquet)
    csv = tmp_path / "runs.csv"
    pacsv.write_csv(table, csv)
    out["csv"] = str(csv)
    try:
        import polars as pl

        out["polars categorical"] = pl.from_arrow(table).with_columns(
            pl.col("system", "topic", "item").cast(pl.Categorical)
        )
    except ImportError:
        pass
    return out


@pytest.mark.parametrize("mode", sorted(COUNTS))
def test_every_form_counts_as_int_codes(tmp_path, mode):
    table = _runs()
    options = COUNTS[mode]
    drop = ["score"] if mode == "hard" else ["pred"]
    reference = fm.count(_as_int_codes(table).drop_columns(drop), **options)
    for name, data in _forms(tmp_path, table.drop_columns(drop)).items():
        tensor = fm.count(data, **options)
        try:
            _same_counts(tensor, reference)
        except AssertionError as error:
            raise AssertionError(f"{name}: {error}") from None


def test_separate_gold_with_string_ids(tmp_path):
    table = _runs()
    gold = table.filter(pc.equal(table.column("system"), SYSTEMS[0])).select(["topic", "item", "gold"])
    runs = table.drop_columns(["gold", "score"])
    reference = fm.count(table.drop_columns(["score"]))
    for name, data in _forms(tmp_path, runs).items():
        try:
            _same_counts(fm.count(data, gold=gold), reference, strings=False)
        except AssertionError as error:
            raise AssertionError(f"{name}: {error}") from None


# -- duplicates with string ids, wherever the copies sit -----------------------------------------
def _with_copy(table: pa.Table, at: int, to: int) -> pa.Table:
    """Row ``at`` copied in front of row ``to`` (its prediction flipped, or its score changed: a
    second opinion)."""
    row = table.slice(at, 1)
    if "pred" in row.column_names:
        row = row.set_column(row.column_names.index("pred"), "pred", pc.invert(row.column("pred")))
    else:
        row = row.set_column(row.column_names.index("score"), "score", pc.subtract(1.0, row.column("score")))
    return pa.concat_tables([table.slice(0, to), row, table.slice(to)]).combine_chunks()


def _named(table, at):
    return [table.column(c)[at].as_py() for c in ("system", "topic", "item")]


@pytest.mark.parametrize(
    "at, to",
    [
        (5, 6),  # the copy next to the original, in the first thread's rows
        (5, 79_000),  # the original in the first thread's rows, the copy in the second's
        (41_000, 79_999),  # both in the second thread's rows
    ],
)
@pytest.mark.parametrize("thresholds", [None, 11])
def test_duplicate_in_one_large_batch(at, to, thresholds):
    """Found by the counting pass itself (hard labels, or a grid), on two threads."""
    table = _runs().drop_columns(["score" if thresholds is None else "pred"])
    copied = _with_copy(table, at, to)
    with pytest.raises(InputError, match="more than once") as error:
        fm.count(copied, thresholds=thresholds)
    for value in _named(table, at):
        assert repr(value) in str(error.value)
    assert f"row {to}" in str(error.value)  # the copy, found wherever the threads split the rows


def test_duplicate_across_batches_and_files(tmp_path):
    table = _runs().drop_columns(["score"])
    copied = _with_copy(table, 100, 70_000)
    batches = pa.Table.from_batches(copied.to_batches(max_chunksize=30_000))
    with pytest.raises(InputError, match="more than once") as error:
        fm.count(batches)
    assert all(repr(v) in str(error.value) for v in _named(table, 100))
    first, second = tmp_path / "a.csv", tmp_path / "b.csv"
    pacsv.write_csv(table, first)
    pacsv.write_csv(table.slice(100, 1), second)
    with pytest.raises(InputError, match="more than once") as error:
        fm.count([str(first), str(second)])
    assert all(repr(v) in str(error.value) for v in _named(table, 100))


# -- a user's CSV as written by hand or by other tools ---------------------------------------------
def _csv_text(table: pa.Table, *, quote_all: bool, crlf: bool) -> str:
    """The rows as CSV text, ids quoted (all, or those that need it), with a header."""
    names = table.column_names
    end = "\r\n" if crlf else "\n"
    lines = [",".join(names)]
    for row in zip(*(table.column(c).to_pylist() for c in names)):
        cells = []
        for value in row:
            text = str(value).lower() if isinstance(value, bool) else str(value)
            if isinstance(value, str) and (quote_all or "," in text or '"' in text):
                text = '"' + text.replace('"', '""') + '"'
            cells.append(text)
        lines.append(",".join(cells))
    return end.join(lines) + end


@pytest.mark.parametrize("quote_all, crlf", [(True, False), (False, True)])
def test_csv_quoting_and_line_ends(tmp_path, quote_all, crlf):
    table = _runs().drop_columns(["score"])
    # ids with the separator and the quote character in them
    odd = {SYSTEMS[0]: 'team, "quoted" run', TOPICS[1]: "Q,1"}
    for name in ("system", "topic"):
        values = [odd.get(v, v) for v in table.column(name).to_pylist()]
        table = table.set_column(table.column_names.index(name), name, pa.array(values))
    path = tmp_path / "runs.csv"
    path.write_bytes(_csv_text(table, quote_all=quote_all, crlf=crlf).encode())
    tensor = fm.count(str(path))
    reference = fm.count(table)
    np.testing.assert_array_equal(tensor.counts, reference.counts)
    assert list(tensor.coords["system"]) == sorted(odd.get(s, s) for s in SYSTEMS)
    assert list(tensor.coords["topic"]) == sorted(odd.get(t, t) for t in TOPICS)


def test_csv_empty_id_is_named(tmp_path):
    table = _runs().drop_columns(["score"])
    text = _csv_text(table, quote_all=False, crlf=False).splitlines()
    # an empty item on data row 70,001 (line 70,002 with the header): missing, not an id ''
    fields = text[70_001].split(",")
    fields[2] = ""
    text[70_001] = ",".join(fields)
    path = tmp_path / "runs.csv"
    path.write_text("\n".join(text) + "\n")
    with pytest.raises(InputError, match=r"(?=.*'item')(?=.*runs\.csv)(?=.*(null|missing))(?=.*row 70000)"):
        fm.count(str(path))


def test_null_id_in_a_large_table_is_named():
    table = _runs().drop_columns(["score"])
    systems = table.column("system").to_pylist()
    systems[66_000] = None
    table = table.set_column(0, "system", pa.array(systems))
    with pytest.raises(InputError, match=r"(?=.*'system')(?=.*(null|missing))"):
        fm.count(table)
