"""Seed 001 Table 1: three KDD Cup 2005 labelers compared pairwise (precision, recall, alpha, alpha'),
through the command line on a Parquet of ``item, gold, pred`` list columns."""

import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
import pytest

from fastmetrics.cli import main
from tests.conftest import external

# actual -> predicted: precision, recall, alpha, alpha' (%)
TABLE1 = {
    (1, 2): (63.48, 41.41, 24.73, 25.02),
    (2, 3): (36.50, 58.62, 28.06, 28.62),
    (3, 1): (58.66, 55.99, 33.26, 33.51),
}


def _labeler(i):
    path = external("proficiency-metric", "data", f"labeler{i}.txt")
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        fields = line.split("\t")
        rows.append([f for f in fields[1:] if f])  # column 0 is the query, then up to 5 categories
    return rows


@pytest.mark.parametrize("actual, predicted", list(TABLE1))
def test_table_1_from_the_command_line(tmp_path, actual, predicted):
    gold, pred = _labeler(actual), _labeler(predicted)
    assert len(gold) == len(pred) == 800
    path = tmp_path / "labelers.parquet"
    pq.write_table(pa.table({"item": range(800), "gold": gold, "pred": pred}), path)
    out = tmp_path / "out.csv"
    code = main(
        [
            "evaluate",
            str(path),
            "--task",
            "multilabel",
            "--measures",
            "precision,recall,proficiency,permuted_proficiency",
            "--out",
            str(out),
        ]
    )
    assert code == 0
    values = dict(zip(*pacsv.read_csv(out).select(["measure", "value"]).to_pydict().values()))
    got = [round(100 * values[m], 2) for m in ("precision", "recall", "proficiency", "permuted_proficiency")]
    assert got == pytest.approx(list(TABLE1[(actual, predicted)]))
