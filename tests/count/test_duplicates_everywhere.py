"""A (system, topic, item) seen twice is refused wherever the copies sit: one batch, two Parquet
row groups, two read batches of a large file, two files, two Dask partitions -- with the gold in
the runs or joined from a separate table, for hard labels, grids and exact sweeps."""

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
import pytest

import fastmetrics as fm
from fastmetrics.io import readahead
from tests._program import run_fastmetrics


def _runs(n_items=30, systems=("s0", "s1"), topics=(1, 2)):
    rng = np.random.default_rng(0)
    rows = [(s, t, i) for s in systems for t in topics for i in range(n_items)]
    system, topic, item = zip(*rows)
    n = len(rows)
    return pa.table(
        {
            "system": list(system),
            "topic": np.array(topic, np.int64),
            "item": np.array(item, np.int64),
            "gold": rng.random(n) < 0.4,
            "pred": rng.random(n) < 0.5,
            "score": rng.random(n),
        }
    )


def _with_copy(table, row, at=None):
    """The table with row ``row`` repeated at position ``at`` (default: the end)."""
    copy = table.slice(row, 1)
    if at is None:
        return pa.concat_tables([table, copy])
    return pa.concat_tables([table.slice(0, at), copy, table.slice(at)])


DUPLICATE = r"Duplicated \(system, topic, item\): system='s1', topic=2, item=7 appears more than once"
MODES = [{}, {"thresholds": 5}, {"thresholds": "exact"}]


def _row(table, system="s1", topic=2, item=7):
    rows = table.to_pylist()
    return next(i for i, r in enumerate(rows) if (r["system"], r["topic"], r["item"]) == (system, topic, item))


@pytest.mark.parametrize("mode", MODES, ids=["hard", "grid", "exact"])
def test_in_one_table(mode):
    table = _runs()
    with pytest.raises(fm.InputError, match=DUPLICATE + r" \(row \d+ of the table; row \d+ of the table\)"):
        fm.count(_with_copy(table, _row(table)), **mode)


@pytest.mark.parametrize("mode", MODES, ids=["hard", "grid", "exact"])
def test_across_row_groups(tmp_path, mode):
    table = _runs()
    path = tmp_path / "runs.parquet"
    pq.write_table(_with_copy(table, _row(table)), path, row_group_size=16)
    assert pq.ParquetFile(path).metadata.num_row_groups > 3
    with pytest.raises(fm.InputError, match=DUPLICATE + r".*'.*runs.parquet'.*runs.parquet'"):
        fm.count(str(path), **mode)


def test_across_read_batches_of_a_file_over_two_million_rows(tmp_path):
    n = 2_100_000
    item = np.arange(n, dtype=np.int64)
    item[-1] = 5  # the last row repeats the sixth, 2.1M rows and three read batches later
    table = pa.table(
        {
            "system": np.zeros(n, np.int32),
            "topic": np.zeros(n, np.int32),
            "item": item,
            "gold": np.arange(n) % 3 == 0,
            "pred": np.arange(n) % 2 == 0,
        }
    )
    path = tmp_path / "big.parquet"
    pq.write_table(table, path, row_group_size=500_000)
    with pytest.raises(
        fm.InputError,
        match=r"system=0, topic=0, item=5 appears more than once \(row 5 in "
        r"'.*big.parquet'; row 2099999 in",
    ):
        fm.count(str(path))


@pytest.mark.parametrize("mode", MODES, ids=["hard", "grid", "exact"])
def test_across_files_and_small_batches(tmp_path, monkeypatch, mode):
    table = _runs()
    folder = tmp_path / "runs"
    folder.mkdir()
    pq.write_table(table, folder / "a.parquet")
    pq.write_table(table.slice(_row(table), 1), folder / "b.parquet")
    with pytest.raises(fm.InputError, match=DUPLICATE + r" \(row \d+ in '.*a.parquet'; row 0 in '.*b.parquet'\)"):
        fm.count(str(folder), **mode)
    monkeypatch.setattr(readahead, "BATCH_ROWS", 7)  # every batch of the stream is small
    with pytest.raises(fm.InputError, match=DUPLICATE):
        fm.count(str(folder), **mode)


def test_with_a_separate_gold_in_another_file(tmp_path):
    table = _runs()
    gold = table.filter(pa.compute.equal(table.column("system"), "s0")).select(["topic", "item", "gold"])
    runs = table.drop_columns(["gold"])
    pq.write_table(runs, tmp_path / "a.parquet")
    pq.write_table(runs.slice(_row(table), 1), tmp_path / "b.parquet")
    paths = [str(tmp_path / "a.parquet"), str(tmp_path / "b.parquet")]
    for mode in MODES:
        with pytest.raises(fm.InputError, match=DUPLICATE):
            fm.count(paths, gold=gold, **mode)


def test_csv_files_on_the_command_line(tmp_path):
    table = _runs()
    pacsv.write_csv(table, tmp_path / "a.csv")
    pacsv.write_csv(table.slice(_row(table), 1), tmp_path / "b.csv")
    proc = run_fastmetrics(
        ["evaluate", tmp_path / "a.csv", tmp_path / "b.csv", "--measures", "f1"], module="fastmetrics.cli"
    )
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
    assert "item=7 appears more than once" in proc.stderr and "a.csv" in proc.stderr and "b.csv" in proc.stderr


def test_csv_files_with_different_columns_are_refused(tmp_path):
    table = _runs()
    pacsv.write_csv(table, tmp_path / "a.csv")
    pacsv.write_csv(table.drop_columns(["score"]), tmp_path / "b.csv")
    with pytest.raises(fm.InputError, match="do not share one schema"):
        fm.count([str(tmp_path / "a.csv"), str(tmp_path / "b.csv")])
    proc = run_fastmetrics(["evaluate", tmp_path / "a.csv", tmp_path / "b.csv"], module="fastmetrics.cli")
    assert proc.returncode == 2 and "do not share one schema" in proc.stderr and "Traceback" not in proc.stderr


def test_items_repeated_across_systems_or_topics_are_not_duplicates():
    table = _runs()  # every item id occurs under both systems and both topics
    counts = fm.count(table).counts
    assert counts.sum() == table.num_rows


def test_the_sorted_key_check_when_a_bitmap_would_be_too_large(monkeypatch):
    from fastmetrics.count import tally

    monkeypatch.setattr(tally, "_BITMAP_BITS", 0)
    table = _runs()
    np.testing.assert_array_equal(fm.count(table).counts, fm.count(table.slice(0)).counts)
    with pytest.raises(fm.InputError, match=DUPLICATE):
        fm.count(_with_copy(table, _row(table), at=3))
    gold = table.filter(pa.compute.equal(table.column("system"), "s0")).select(["topic", "item", "gold"])
    with pytest.raises(fm.InputError, match=DUPLICATE):
        fm.count(_with_copy(table.drop_columns(["gold"]), _row(table)), gold=gold)


def test_across_dask_partitions(tmp_path):
    pytest.importorskip("distributed")
    import fastmetrics.dask as fmd

    table = _runs()
    folder = tmp_path / "parts"
    folder.mkdir()
    pq.write_table(table.slice(0, 60), folder / "p0.parquet")
    pq.write_table(table.slice(60), folder / "p1.parquet")
    pq.write_table(table.slice(_row(table), 1), folder / "p2.parquet")
    for mode in ({}, {"thresholds": 5}):
        with pytest.raises(
            fm.InputError,
            match=r"system='s1', topic=2, item=7 appears more than once \(in "
            r"different partitions or files",
        ):
            fmd.count(str(folder), **mode)
    gold = table.filter(pa.compute.equal(table.column("system"), "s0")).select(["topic", "item", "gold"])
    with pytest.raises(fm.InputError, match=r"system='s1', topic=2, item=7 appears more than once"):
        fmd.count(str(folder), gold=gold)
