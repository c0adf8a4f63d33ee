"""Every input format gives the same tensor as the in-memory Arrow table it came from."""

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.feather as feather
import pyarrow.parquet as pq
import pytest

import fastmetrics as fm


@pytest.fixture()
def runs():
    rng = np.random.default_rng(7)
    n = 3 * 4 * 25
    s, t, i = np.indices((3, 4, 25)).reshape(3, -1)
    return pa.table(
        {
            "system": [f"sys{x}" for x in s],
            "topic": [f"q{x}" for x in t],
            "item": [f"q{a}_c{b}" for a, b in zip(t, i)],
            "gold": np.broadcast_to(rng.random((4, 25)) < 0.4, (3, 4, 25)).reshape(-1),
            "pred": rng.random(n) < 0.5,
            "score": rng.normal(size=n),
        }
    )


def _same(a, b):
    np.testing.assert_array_equal(a.counts, b.counts)
    for k in a.coords:
        np.testing.assert_array_equal(a.coords[k], b.coords[k])


def test_parquet_csv_ipc_pandas(runs, tmp_path):
    reference = fm.count(runs)
    pq.write_table(runs, tmp_path / "r.parquet")
    pacsv.write_csv(runs, tmp_path / "r.csv")
    feather.write_feather(runs, tmp_path / "r.arrow")
    for path in ("r.parquet", "r.csv", "r.arrow"):
        _same(fm.count(str(tmp_path / path)), reference)
    _same(fm.count(runs.to_pandas()), reference)
    _same(fm.count(runs.to_batches()[0]), reference)


def test_polars(runs):
    pl = pytest.importorskip("polars")
    _same(fm.count(pl.from_arrow(runs)), fm.count(runs))


def test_run_files_and_separate_gold(runs, tmp_path):
    """SemEval-style text files: one system per file, gold joined on (topic, item)."""
    reference = fm.count(runs.drop_columns(["score"]))
    gold_lines = []
    for system in ("sys0", "sys1", "sys2"):
        rows = runs.filter(pa.compute.equal(runs.column("system"), system)).to_pylist()
        folder = tmp_path / "team"
        folder.mkdir(exist_ok=True)
        with open(folder / f"{system}.txt", "w") as fh:
            for r in rows:
                fh.write(f"{r['topic']}\t{r['item']}\t0\t{r['score']}\t{str(r['pred']).lower()}\n")
        gold_lines = [f"{r['topic']}\t{r['item']}\t0\t0\t{str(r['gold']).lower()}\n" for r in rows]
    (tmp_path / "gold.txt").write_text("".join(gold_lines))
    tensor = fm.count(str(tmp_path / "team" / "*.txt"), gold=str(tmp_path / "gold.txt"))
    assert list(tensor.coords["system"]) == ["team/sys0", "team/sys1", "team/sys2"]
    np.testing.assert_array_equal(tensor.counts, reference.counts)
    # the folder form and read_runs give the same
    tensor2 = fm.count(str(tmp_path / "team"), gold=str(tmp_path / "gold.txt"))
    np.testing.assert_array_equal(tensor2.counts, reference.counts)
    table = fm.read_runs(str(tmp_path / "team"))
    assert set(table.column_names) == {"topic", "item", "rank", "score", "pred", "system"}
    assert table.num_rows == runs.num_rows


def test_counts_table_round_trip(runs):
    tensor = fm.count(runs)
    again = fm.count(tensor.to_arrow())
    _same(again, tensor)


def test_scores_to_arrow_is_tidy(runs):
    scores = fm.count(runs).evaluate(["f1", "mcc"])
    table = scores.to_arrow()
    assert table.column_names == ["system", "topic", "measure", "value"]
    assert table.num_rows == 2 * 3 * 4
    assert table.schema.field("value").type == pa.float64()
    # every tidy row carries the value of its own (system, topic): checked against scikit-learn
    # on the raw rows of that group
    from sklearn.metrics import f1_score, matthews_corrcoef

    oracle = {"f1": f1_score, "mcc": matthews_corrcoef}
    raw = runs.to_pandas()
    for row in table.to_pylist():
        group = raw[(raw.system == row["system"]) & (raw.topic == row["topic"])]
        expected = oracle[row["measure"]](group.gold.astype(int), group.pred.astype(int))
        if not np.isnan(row["value"]):  # NaN cells are checked against the documented table elsewhere
            assert row["value"] == pytest.approx(expected, abs=1e-12)
