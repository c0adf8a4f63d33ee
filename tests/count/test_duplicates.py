"""A (system, topic, item) may occur once. A second copy is refused wherever it sits -- the same
in-memory table, another Parquet row group, another read batch of a large file, another input
file (Parquet or CSV), another Dask partition -- with the gold in the runs or joined from a
separate table, for hard labels, grids and exact sweeps. The error names the system, the topic and
the item; the CLI stops with exit status 2 and one line. Rows that merely share an item id under
another system or topic are not duplicates."""

from __future__ import annotations

import re

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
import pytest

import fastmetrics as fm
from fastmetrics._errors import InputError
from tests._program import run_fastmetrics

SYSTEMS = ("sysA", "sysB")
TOPICS = ("t-alpha", "t-beta")
N_ITEMS = 30
DUP = ("sysB", "t-beta", "it-017")  # the (system, topic, item) copied in every test
MODES = {
    "hard": {},
    "grid": {"thresholds": 5},
    "grid-array": {"thresholds": [0.2, 0.5, 0.8]},
    "exact": {"thresholds": "exact"},
}


def _runs() -> pa.Table:
    """Every item id under both systems and both topics; gold, a hard pred and a score."""
    rng = np.random.default_rng(7)
    rows = [(s, t, f"it-{i:03d}") for s in SYSTEMS for t in TOPICS for i in range(N_ITEMS)]
    system, topic, item = (list(c) for c in zip(*rows))
    n = len(rows)
    gold_of = {(t, f"it-{i:03d}"): bool(g) for t in TOPICS for i, g in enumerate(rng.random(N_ITEMS) < 0.4)}
    return pa.table(
        {
            "system": system,
            "topic": topic,
            "item": item,
            "gold": [gold_of[(t, i)] for t, i in zip(topic, item)],
            "pred": rng.random(n) < 0.5,
            "score": np.round(rng.random(n), 2),
        }
    )


def _row_of(table: pa.Table, key=DUP) -> int:
    rows = zip(*(table.column(c).to_pylist() for c in ("system", "topic", "item")))
    return next(k for k, r in enumerate(rows) if r == key)


def _copy(table: pa.Table, key=DUP) -> pa.Table:
    """The row of ``key`` as a one-row table, with a different prediction and score (a second
    opinion on the same item is still a duplicate)."""
    row = table.slice(_row_of(table, key), 1)
    if "pred" in row.column_names:
        row = row.set_column(row.column_names.index("pred"), "pred", pc.invert(row.column("pred")))
    if "score" in row.column_names:
        row = row.set_column(row.column_names.index("score"), "score", pa.array([0.123]))
    return row


def _gold(table: pa.Table) -> pa.Table:
    return table.filter(pc.equal(table.column("system"), SYSTEMS[0])).select(["topic", "item", "gold"])


def _names(*values) -> str:
    """A regex (for ``pytest.raises(match=...)``, i.e. ``re.search``) requiring the message to call
    the item a duplicate and to name every one of ``values``."""
    parts = [r"(?=.*(?:[Dd]uplicat|more than once))"]
    parts += [rf"(?=.*(?<![\w-]){re.escape(str(v))}(?![\w-]))" for v in values]
    return "(?s)^" + "".join(parts)


DUPLICATE = _names(*DUP)


def _cli(*args):
    return run_fastmetrics(args, timeout=300, module="fastmetrics.cli")


def _assert_one_line_error(proc, *needles):
    assert proc.returncode == 2, (proc.returncode, proc.stdout[-2000:], proc.stderr[-2000:])
    assert "Traceback" not in proc.stderr, proc.stderr[-3000:]
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, proc.stderr
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])


# -- one in-memory table ------------------------------------------------------------------------
@pytest.mark.parametrize("mode", sorted(MODES))
def test_in_one_table(mode):
    table = _runs()
    with pytest.raises(InputError, match=DUPLICATE):
        fm.count(pa.concat_tables([table, _copy(table)]), **MODES[mode])
    # the copy right next to the first one, and in front of it
    at = _row_of(table)
    with pytest.raises(InputError, match=DUPLICATE):
        fm.count(pa.concat_tables([table.slice(0, at), _copy(table), table.slice(at)]), **MODES[mode])


@pytest.mark.parametrize("mode", sorted(MODES))
def test_in_one_table_with_a_separate_gold(mode):
    table = _runs()
    runs = pa.concat_tables([table, _copy(table)]).drop_columns(["gold"])
    with pytest.raises(InputError, match=DUPLICATE):
        fm.count(runs, gold=_gold(table), **MODES[mode])


# -- one Parquet file, copies in different row groups ----------------------------------------------
@pytest.mark.parametrize("mode", sorted(MODES))
def test_across_row_groups(tmp_path, mode):
    table = _runs()
    path = tmp_path / "runs.parquet"
    pq.write_table(pa.concat_tables([table, _copy(table)]), path, row_group_size=16)
    meta = pq.ParquetFile(path).metadata
    assert meta.num_row_groups == -(-(table.num_rows + 1) // 16)
    assert _row_of(table) // 16 != table.num_rows // 16  # the two copies sit in different row groups
    with pytest.raises(InputError, match=DUPLICATE):
        fm.count(str(path), **MODES[mode])
    with pytest.raises(InputError, match=DUPLICATE):
        fm.count(str(path), gold=_gold(table), **MODES[mode])


def test_across_row_groups_on_the_command_line(tmp_path):
    table = _runs()
    path = tmp_path / "runs.parquet"
    pq.write_table(pa.concat_tables([table, _copy(table)]), path, row_group_size=16)
    _assert_one_line_error(_cli("evaluate", path, "--measures", "f1"), DUP[2])
    _assert_one_line_error(_cli("evaluate", path, "--measures", "f1", "--thresholds", "5"), DUP[2])


# -- one Parquet file over 2M rows, copies in different read batches -------------------------------
BIG_ROWS = 2_100_000
BIG_KEY = (7007, 4242, 123456789)  # (system, topic, item), all ints
BIG_FIRST, BIG_SECOND = 3, BIG_ROWS - 5


@pytest.fixture(scope="module")
def big_file(tmp_path_factory):
    n = BIG_ROWS
    row = np.arange(n, dtype=np.int64)
    system = (row % 2).astype(np.int32)
    topic = ((row // 2) % 3).astype(np.int32)
    item = row.copy()
    for r in (BIG_FIRST, BIG_SECOND):
        system[r], topic[r], item[r] = BIG_KEY
    table = pa.table(
        {
            "system": system,
            "topic": topic,
            "item": item,
            "gold": row % 3 == 0,
            "pred": row % 2 == 0,
            "score": ((row * 7919) % 1000).astype(np.float64) / 1000.0,
        }
    )
    path = tmp_path_factory.mktemp("big") / "big.parquet"
    pq.write_table(table, path, row_group_size=500_000)
    meta = pq.ParquetFile(path).metadata
    assert meta.num_row_groups == 5 and meta.num_rows == n
    return path


@pytest.mark.parametrize("mode", ["hard", "grid"])
def test_across_read_batches_of_a_file_over_two_million_rows(big_file, mode):
    # the reader streams batches of 1 << 20 rows: the copies are in the first and the third batch
    assert BIG_FIRST < 1 << 20 and BIG_SECOND >= 2 << 20
    with pytest.raises(InputError, match=_names(*BIG_KEY)):
        fm.count(str(big_file), **MODES[mode])


def test_a_file_over_two_million_rows_without_the_copy_counts(tmp_path):
    """The same layout without a duplicate is counted (the check is not a false alarm of size)."""
    n = BIG_ROWS
    row = np.arange(n, dtype=np.int64)
    table = pa.table(
        {
            "system": (row % 2).astype(np.int32),
            "topic": ((row // 2) % 3).astype(np.int32),
            "item": row,
            "gold": row % 3 == 0,
            "pred": row % 2 == 0,
        }
    )
    path = tmp_path / "big.parquet"
    pq.write_table(table, path, row_group_size=500_000)
    tensor = fm.count(str(path))
    assert tensor.counts.sum() == n
    assert tensor.counts.shape == (2, 3, 2, 2)


# -- different input files -------------------------------------------------------------------------
@pytest.mark.parametrize("mode", sorted(MODES))
def test_across_two_parquet_files_in_a_folder(tmp_path, mode):
    table = _runs()
    folder = tmp_path / "runs"
    folder.mkdir()
    pq.write_table(table, folder / "a.parquet")
    pq.write_table(_copy(table), folder / "b.parquet")
    with pytest.raises(InputError, match=DUPLICATE):
        fm.count(str(folder), **MODES[mode])
    with pytest.raises(InputError, match=DUPLICATE):
        fm.count([str(folder / "a.parquet"), str(folder / "b.parquet")], **MODES[mode])


@pytest.mark.parametrize("mode", sorted(MODES))
def test_across_two_csv_files_given_as_a_list(tmp_path, mode):
    table = _runs()
    pacsv.write_csv(table, tmp_path / "a.csv")
    pacsv.write_csv(_copy(table), tmp_path / "b.csv")
    with pytest.raises(InputError, match=DUPLICATE):
        fm.count([str(tmp_path / "a.csv"), str(tmp_path / "b.csv")], **MODES[mode])


@pytest.mark.parametrize("mode", sorted(MODES))
def test_with_a_separate_gold_across_files(tmp_path, mode):
    table = _runs()
    runs = table.drop_columns(["gold"])
    gold = _gold(table)
    pq.write_table(runs, tmp_path / "a.parquet", row_group_size=40)
    pq.write_table(_copy(runs), tmp_path / "b.parquet")
    paths = [str(tmp_path / "a.parquet"), str(tmp_path / "b.parquet")]
    for missing in ("error", "negative", "drop"):
        with pytest.raises(InputError, match=DUPLICATE):
            fm.count(paths, gold=gold, missing=missing, **MODES[mode])
    pq.write_table(gold, tmp_path / "gold.parquet")
    with pytest.raises(InputError, match=DUPLICATE):
        fm.count(paths, gold=str(tmp_path / "gold.parquet"), **MODES[mode])


def test_csv_files_on_the_command_line(tmp_path):
    table = _runs()
    pacsv.write_csv(table, tmp_path / "a.csv")
    pacsv.write_csv(_copy(table), tmp_path / "b.csv")
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    _assert_one_line_error(_cli("evaluate", a, b, "--measures", "f1"), DUP[2])
    _assert_one_line_error(_cli("evaluate", a, b, "--measures", "f1", "--thresholds", "5"), DUP[2])
    _assert_one_line_error(_cli("evaluate", a, b, "--measures", "f1", "--thresholds", "exact"), DUP[2])


def test_csv_files_with_a_separate_gold_on_the_command_line(tmp_path):
    table = _runs()
    runs = table.drop_columns(["gold"])
    pacsv.write_csv(runs, tmp_path / "a.csv")
    pacsv.write_csv(_copy(runs), tmp_path / "b.csv")
    pacsv.write_csv(_gold(table), tmp_path / "gold.csv")
    for missing in ("error", "negative", "drop"):
        proc = _cli(
            "evaluate",
            tmp_path / "a.csv",
            tmp_path / "b.csv",
            "--gold",
            tmp_path / "gold.csv",
            "--missing",
            missing,
            "--measures",
            "f1",
        )
        _assert_one_line_error(proc, DUP[2])


# -- Dask partitions (the default scheduler, no client) -------------------------------------------
@pytest.fixture()
def fmd():
    pytest.importorskip("distributed")
    from distributed import default_client

    try:
        default_client()
    except ValueError:
        pass
    else:  # pragma: no cover - a client left by another test would change the scheduler
        pytest.skip("a distributed client is active")
    import fastmetrics.dask as module

    return module


def _partitioned(tmp_path, table) -> str:
    folder = tmp_path / "parts"
    folder.mkdir()
    pq.write_table(table.slice(0, 50), folder / "p0.parquet")
    pq.write_table(table.slice(50), folder / "p1.parquet", row_group_size=25)
    pq.write_table(_copy(table), folder / "p2.parquet")
    return str(folder)


@pytest.mark.parametrize("mode", ["hard", "grid", "grid-array"])
def test_across_dask_partitions(tmp_path, fmd, mode):
    table = _runs()
    folder = _partitioned(tmp_path, table)
    with pytest.raises(InputError, match=DUPLICATE):
        fmd.count(folder, **MODES[mode])


@pytest.mark.parametrize("mode", ["hard", "grid"])
def test_across_dask_partitions_with_a_separate_gold(tmp_path, fmd, mode):
    table = _runs()
    folder = _partitioned(tmp_path, table.drop_columns(["gold"]))
    for missing in ("error", "negative", "drop"):
        with pytest.raises(InputError, match=DUPLICATE):
            fmd.count(folder, gold=_gold(table), missing=missing, **MODES[mode])


def test_dask_partitions_without_a_copy_count(tmp_path, fmd):
    table = _runs()
    folder = tmp_path / "parts"
    folder.mkdir()
    pq.write_table(table.slice(0, 50), folder / "p0.parquet")
    pq.write_table(table.slice(50), folder / "p1.parquet")
    np.testing.assert_array_equal(fmd.count(str(folder)).counts, fm.count(table).counts)


# -- files that do not share one schema ------------------------------------------------------------
SCHEMA = r"(?i)schema"


@pytest.mark.parametrize("change", ["extra-column", "renamed-column", "missing-column"])
def test_csv_files_with_different_columns_are_refused(tmp_path, change):
    table = _runs()
    other = {
        "extra-column": lambda t: t.append_column("note", pa.array(["x"] * t.num_rows)),
        "renamed-column": lambda t: t.rename_columns(["system", "topic", "doc", "gold", "pred", "score"]),
        "missing-column": lambda t: t.drop_columns(["score"]),
    }[change](table.slice(0, 10))
    pacsv.write_csv(table, tmp_path / "a.csv")
    pacsv.write_csv(other, tmp_path / "b.csv")
    with pytest.raises(InputError, match=SCHEMA):
        fm.count([str(tmp_path / "a.csv"), str(tmp_path / "b.csv")])
    proc = _cli("evaluate", tmp_path / "a.csv", tmp_path / "b.csv", "--measures", "f1")
    _assert_one_line_error(proc)
    assert re.search(SCHEMA, proc.stderr), proc.stderr


# -- not duplicates ---------------------------------------------------------------------------------
def test_an_item_under_two_topics_or_two_systems_is_not_a_duplicate(tmp_path):
    table = _runs()  # every item id occurs under both systems and both topics
    for mode in MODES.values():
        tensor = fm.count(table, **mode)
        per_cell = tensor.counts.sum(axis=(-1, -2))
        if mode.get("thresholds") != "exact":
            assert np.all(per_cell == N_ITEMS)
    # the same across files: one file per system, then one file per topic
    for column, values in (("system", SYSTEMS), ("topic", TOPICS)):
        folder = tmp_path / f"by-{column}"
        folder.mkdir()
        paths = []
        for k, value in enumerate(values):
            path = folder / f"{k}.parquet"
            pq.write_table(table.filter(pc.equal(table.column(column), value)), path)
            paths.append(str(path))
        np.testing.assert_array_equal(fm.count(str(folder)).counts, fm.count(table).counts)
        np.testing.assert_array_equal(fm.count(paths, thresholds=5).counts, fm.count(table, thresholds=5).counts)
        csvs = []
        for k, value in enumerate(values):
            path = folder / f"{k}.csv"
            pacsv.write_csv(table.filter(pc.equal(table.column(column), value)), path)
            csvs.append(str(path))
        np.testing.assert_array_equal(fm.count(csvs).counts, fm.count(table).counts)
    gold = _gold(table)
    np.testing.assert_array_equal(fm.count(table.drop_columns(["gold"]), gold=gold).counts, fm.count(table).counts)


def test_same_item_under_two_systems_on_the_command_line(tmp_path):
    table = _runs()
    for k, system in enumerate(SYSTEMS):
        pacsv.write_csv(table.filter(pc.equal(table.column("system"), system)), tmp_path / f"{k}.csv")
    proc = _cli("evaluate", tmp_path / "0.csv", tmp_path / "1.csv", "--measures", "f1")
    assert proc.returncode == 0, proc.stderr
