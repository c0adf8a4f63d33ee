"""Outputs people read: undefined values as nulls in files (numeric columns for pandas, polars and
DuckDB), wide tables, pandas/polars conversions, the leaderboard printed one row per system."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv
import pytest

import fastmetrics as fm
from fastmetrics.cli import main


def _runs():
    # topic 2 has no positive and no predicted positive: precision and F1 are undefined there
    return pa.table(
        {
            "system": ["a"] * 6 + ["b"] * 6,
            "topic": [1, 1, 1, 2, 2, 2] * 2,
            "item": [1, 2, 3, 4, 5, 6] * 2,
            "gold": [1, 0, 1, 0, 0, 0] * 2,
            "pred": [1, 1, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0],
        }
    )


@pytest.mark.parametrize("suffix", ["csv", "parquet"])
def test_undefined_values_are_nulls_in_files(tmp_path, suffix):
    path = tmp_path / "runs.parquet"
    import pyarrow.parquet as pq

    pq.write_table(_runs(), path)
    out = tmp_path / f"scores.{suffix}"
    assert main(["evaluate", str(path), "--measures", "precision,f1", "--out", str(out)]) == 0
    polars = pytest.importorskip("polars")
    duckdb = pytest.importorskip("duckdb")
    frame = polars.read_csv(out) if suffix == "csv" else polars.read_parquet(out)
    assert frame.schema["value"] == polars.Float64 and frame["value"].null_count() == 4
    mean = duckdb.sql(f"select avg(value) from '{out}' where measure = 'f1'").fetchall()[0][0]
    assert mean == pytest.approx(np.mean([0.5, 1.0]))
    if suffix == "csv":
        assert any(line.endswith(",") for line in out.read_text().splitlines())  # an empty field
    # numpy results keep NaN
    assert np.isnan(fm.count(_runs()).evaluate("f1").values).sum() == 2


def test_wide_tables_and_dataframes():
    scores = fm.count(_runs()).evaluate(["recall", "f1"], ci=0.9, resamples=50)
    wide = scores.to_arrow(wide=True)
    assert wide.column_names == [
        "system",
        "topic",
        "recall",
        "recall ci_low",
        "recall ci_high",
        "f1",
        "f1 ci_low",
        "f1 ci_high",
    ]
    long = scores.to_arrow().to_pylist()
    for row in wide.to_pylist():
        for m in ("recall", "f1"):
            match = next(r for r in long if (r["system"], r["topic"], r["measure"]) == (row["system"], row["topic"], m))
            assert match["value"] == row[m] or (np.isnan(match["value"]) and np.isnan(row[m]))
    pytest.importorskip("pandas")
    assert scores.to_pandas(wide=True).shape == (4, 8)
    pytest.importorskip("polars")
    assert scores.to_polars().shape == (8, 6)


def test_leaderboard_printed_one_row_per_system_by_rank(tmp_path, capsys):
    path = tmp_path / "runs.csv"
    pacsv.write_csv(_runs(), path)
    assert main(["leaderboard", str(path), "--measures", "accuracy,f1", "--quiet"]) == 0
    printed = capsys.readouterr().out.splitlines()
    start = next(i for i, line in enumerate(printed) if line.startswith(" "))  # after what it ranks by
    heading, lines = printed[:start], printed[start:]
    assert heading[0].startswith(
        "Leaderboard ranked by the macro mean over topics of accuracy (the first of --measures"
    )
    # each measure's spec once, over its macro / micro / topics columns
    assert [w for w in lines[0].split() if not w.startswith("-")] == ["accuracy", "f1"]
    assert lines[1].split()[:5] == ["rank", "system", "macro", "micro", "topics"]
    body = [line.split() for line in lines[3:]]
    assert [row[0] for row in body] == ["1", "2", "baseline", "baseline", "baseline"]
    assert [row[1] for row in body[:2]] == ["b", "a"]  # b is right on 5 of 6 items, a on 4
