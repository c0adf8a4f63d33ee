"""One corpus of files read both ways -- fastmetrics' native readers (the default) and pyarrow's
only (``native=False``, ``FASTMETRICS_NATIVE=0``, ``--no-native``) -- gives the same tensors.

The corpus: Parquet written by pyarrow (every codec, dictionary on and off, data pages v1 and
v2, dictionaries outgrown mid-chunk, tiny pages and row groups, integer ids), polars, DuckDB and
fastparquet; CSV files with each line end, quotes and a byte-order mark; TREC runs and qrels,
SemEval run files.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
import pytest

import fastmetrics as fm
from fastmetrics.io import native
from fastmetrics.io.native import csv as native_csv
from tests._program import run_fastmetrics

from . import fuzzing

ROOT = Path(__file__).resolve().parents[2]
ROWS = 800


def _table(seed: int = 0, string_ids: bool = True) -> pa.Table:
    return fuzzing.base_table(ROWS, seed, string_ids=string_ids)


PYARROW = {
    "snappy": {},
    "none": {"compression": "none"},
    "gzip": {"compression": "gzip"},
    "zstd": {"compression": "zstd"},
    "brotli": {"compression": "brotli"},
    "lz4": {"compression": "lz4"},
    "plain": {"use_dictionary": False},
    "v2": {"data_page_version": "2.0"},
    "v2-none": {"data_page_version": "2.0", "compression": "none"},
    "outgrown": {"dictionary_pagesize_limit": 64},
    "tiny": {"data_page_size": 100, "write_batch_size": 7, "row_group_size": 333},
    "delta": {"use_dictionary": False, "column_encoding": {"item": "DELTA_BYTE_ARRAY", "score": "BYTE_STREAM_SPLIT"}},
}


def _parquet_corpus(folder: Path) -> dict:
    files = {}
    for name, options in PYARROW.items():
        for ids in ("strings", "ints"):
            path = folder / f"pyarrow-{name}-{ids}.parquet"
            if name == "delta" and ids == "ints":
                options = {**options, "column_encoding": {"item": "DELTA_BINARY_PACKED", "score": "BYTE_STREAM_SPLIT"}}
            pq.write_table(_table(len(files), string_ids=ids == "strings"), path, **options)
            files[path.name] = str(path)
    table = _table(7)
    try:
        import polars as pl

        for compression in ("zstd", "snappy", "uncompressed"):
            path = folder / f"polars-{compression}.parquet"
            pl.from_arrow(table).write_parquet(path, compression=compression, row_group_size=1000)
            files[path.name] = str(path)
    except ImportError:  # pragma: no cover - polars is a test dependency
        pass
    try:
        import duckdb

        path = folder / "duckdb.parquet"
        con = duckdb.connect()
        con.register("runs", table)
        con.execute(f"COPY runs TO '{path}' (FORMAT parquet, ROW_GROUP_SIZE 1024)")
        files[path.name] = str(path)
    except ImportError:  # pragma: no cover
        pass
    try:
        import fastparquet

        path = folder / "fastparquet.parquet"
        fastparquet.write(str(path), table.to_pandas(), row_group_offsets=1000, compression="SNAPPY")
        files[path.name] = str(path)
    except ImportError:  # pragma: no cover
        pass
    return files


def _csv_corpus(folder: Path) -> dict:
    table = _table(11)
    lines = [b"system,topic,item,gold,pred,score"]
    for s, t, i, g, p, v in zip(*(table.column(c).to_pylist() for c in table.column_names)):
        lines.append(f"{s},{t},{i},{int(g)},{str(p).lower()},{v}".encode())
    quoted = [line.replace(b",", b'","') for line in lines]
    variants = {
        "lf": b"\n".join(lines) + b"\n",
        "crlf": b"\r\n".join(lines) + b"\r\n",
        "cr": b"\r".join(lines) + b"\r",
        "quoted": b"\n".join(b'"' + q + b'"' for q in quoted) + b"\n",
        "bom": b"\xef\xbb\xbf" + b"\n".join(lines) + b"\n",
        "empty-lines": b"\n\n".join(lines) + b"\n\r\n",
        "no-final-end": b"\n".join(lines),
    }
    files = {}
    for name, data in variants.items():
        path = folder / f"{name}.csv"
        path.write_bytes(data)
        files[path.name] = str(path)
    return files


def _run_corpus(folder: Path) -> dict:
    table = _table(12)
    topics, items = table.column("topic").to_pylist(), table.column("item").to_pylist()
    scores, preds, gold = (table.column(c).to_pylist() for c in ("score", "pred", "gold"))
    (folder / "runs").mkdir()
    for system in range(3):
        rows = zip(topics, items, scores, preds)
        text = "".join(f"{t}\t{i}\t{r}\t{s * (system + 1)}\t{str(p).lower()}\n" for r, (t, i, s, p) in enumerate(rows))
        (folder / "runs" / f"sys{system}.txt").write_text(("# a comment\n" if system else "") + text)
    trec = "".join(f"{t} Q0 {i} {r} {s} tagA\n" for r, (t, i, s) in enumerate(zip(topics, items, scores)))
    (folder / "run.trec").write_text(trec)
    (folder / "run-crlf.trec").write_bytes(trec.replace("\n", "\r\n").encode())
    (folder / "qrels.txt").write_text("".join(f"{t} 0 {i} {int(g)}\n" for t, i, g in zip(topics, items, gold)))
    (folder / "gold.txt").write_text("".join(f"{t} {i} 0 0 {str(g).lower()}\n" for t, i, g in zip(topics, items, gold)))
    return {
        "semeval": (str(folder / "runs"), {"gold": str(folder / "gold.txt")}),
        "trec": (str(folder / "run.trec"), {"gold": str(folder / "qrels.txt"), "thresholds": 9}),
        "trec-crlf": (str(folder / "run-crlf.trec"), {"gold": str(folder / "qrels.txt")}),
    }


def _same(a, b):
    np.testing.assert_array_equal(a.counts, b.counts)
    assert a.axes == b.axes and a.coords.keys() == b.coords.keys()
    for axis, labels in a.coords.items():
        np.testing.assert_array_equal(np.asarray(labels), np.asarray(b.coords[axis]))


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    folder = tmp_path_factory.mktemp("corpus")
    return _parquet_corpus(folder), _csv_corpus(folder), _run_corpus(folder)


@pytest.mark.parametrize("thresholds", [None, 5])
def test_parquet_both_ways(corpus, thresholds):
    parquet, _, _ = corpus
    assert len(parquet) >= 24 + 3 + 1 + 1
    for name, path in parquet.items():
        _same(fm.count(path, thresholds=thresholds), fm.count(path, thresholds=thresholds, native=False))
        expected = fm.count(pq.read_table(path), thresholds=thresholds)  # pyarrow's reading, counted
        np.testing.assert_array_equal(fm.count(path, thresholds=thresholds).counts, expected.counts, err_msg=name)


@pytest.mark.parametrize("thresholds", [None, 5])
def test_csv_both_ways(corpus, monkeypatch, thresholds):
    _, csv, _ = corpus
    monkeypatch.setattr(native_csv, "MIN_BYTES", 0)  # small files parsed natively too
    for name, path in csv.items():
        _same(fm.count(path, thresholds=thresholds), fm.count(path, thresholds=thresholds, native=False))
        table = pacsv.read_csv(path, convert_options=native_csv.CONVERT)
        np.testing.assert_array_equal(
            fm.count(path, thresholds=thresholds).counts, fm.count(table, thresholds=thresholds).counts, err_msg=name
        )


def test_run_files_both_ways(corpus):
    _, _, runs = corpus
    for path, options in runs.values():
        _same(fm.count(path, **options), fm.count(path, native=False, **options))


def test_the_switch_reaches_every_reader(tmp_path, monkeypatch):
    """``native=False`` and ``FASTMETRICS_NATIVE=0`` read with pyarrow only: no native reader is
    called (each is made to fail here, so that a call would show)."""
    from fastmetrics.io import csvfile, readahead, runfiles

    path = str(tmp_path / "t.parquet")
    pq.write_table(_table(1), path)
    csv_path = tmp_path / "t.csv"
    csv_path.write_text("system,item,gold,pred\na,x,1,1\nb,x,0,1\n")

    def called(*args, **kwargs):
        raise AssertionError("a native reader was called")

    monkeypatch.setattr(readahead.native_parquet, "RowGroups", called)
    monkeypatch.setattr(readahead.native_parquet, "Footer", called)
    monkeypatch.setattr(csvfile, "plain_sample", called)
    monkeypatch.setattr(runfiles, "_read_plain_file", called)
    expected = fm.count(pq.read_table(path), thresholds=3).counts
    np.testing.assert_array_equal(fm.count(path, thresholds=3, native=False).counts, expected)
    monkeypatch.setenv("FASTMETRICS_NATIVE", "0")
    np.testing.assert_array_equal(fm.count(path, thresholds=3).counts, expected)
    assert fm.count(str(csv_path)).counts.sum() == 2
    monkeypatch.setenv("FASTMETRICS_NATIVE", "maybe")
    with pytest.raises(fm.ParameterError, match="FASTMETRICS_NATIVE"):
        fm.count(path)
    with pytest.raises(fm.ParameterError, match="native"):
        native.enabled("no")


def test_the_command_line_flag(tmp_path):
    path = str(tmp_path / "t.parquet")
    pq.write_table(_table(2), path)
    out = []
    for flag in ([], ["--no-native"]):
        done = run_fastmetrics(
            [*flag, "evaluate", path, "--measures", "f1", "--by", "system"],
            timeout=300,
            env=dict(os.environ, PYTHONPATH=str(ROOT)),
        )
        assert done.returncode == 0, done.stderr
        out.append(done.stdout)
    assert out[0] == out[1]
