"""SemEval-2016 Task 3 subtask A: P, R, F1, Acc of all 32 runs equal the official results table."""

import glob
import math

import pyarrow.csv as pacsv
import pytest

import fastmetrics as fm
from tests._program import run_fastmetrics
from tests.conftest import external


def _official():
    path = external("semeval2016-task3-cqa", "_results", "results_subtask_A.tab")
    rows = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        fields = line.split("\t")
        if len(fields) < 9:
            continue
        name = fields[0].replace("\u00ad", "")  # two team names carry a soft hyphen
        p, r, f1, acc = (float(x) for x in fields[5:9])
        rows[name] = {"precision": p, "recall": r, "f1": f1, "accuracy": acc}
    return rows


def _table_name(system: str) -> str:
    team, stem = system.split("/")
    kind = stem.replace("subtask_A_", "")
    return f"{team}-{kind}"


@pytest.fixture(scope="module")
def semeval():
    root = external("semeval2016-task3-cqa")
    runs = sorted(glob.glob(str(root / "*" / "subtask_A_*.txt")))
    gold = root / "_gold" / "SemEval2016-Task3-CQA-QL-test-subtaskA.xml.subtaskA.relevancy"
    return runs, gold


def test_semeval_subtask_a_matches_official_table(semeval):
    runs, gold = semeval
    assert len(runs) == 32  # 29 team runs + 3 baselines
    official = _official()
    tensor = fm.count(runs, gold=gold, by=("system",))
    scores = tensor.evaluate(["precision", "recall", "f1", "accuracy"])
    seen = set()
    for row in scores.to_arrow().to_pylist():
        name = _table_name(row["system"])
        expected = official[name][row["measure"]]
        seen.add(name)
        if name == "_baseline-baseline_false" and row["measure"] == "precision":
            # all-negative run: precision is 0/0; the official table prints 0.0000
            assert math.isnan(row["value"]) and expected == 0.0
            continue
        assert round(row["value"], 4) == pytest.approx(expected, abs=1e-12), (name, row["measure"])
    assert seen == set(official)


def test_semeval_cli_per_run(semeval, tmp_path):
    runs, gold = semeval
    official = _official()
    run = [r for r in runs if r.endswith("Kelp/subtask_A_primary.txt")][0]
    out = tmp_path / "kelp.csv"
    proc = run_fastmetrics(
        [
            "evaluate",
            run,
            "--gold",
            str(gold),
            "--measures",
            "precision,recall,f1,accuracy",
            "--by",
            "system",
            "--out",
            str(out),
        ],
        module="fastmetrics.cli",
    )
    assert proc.returncode == 0, proc.stderr
    table = pacsv.read_csv(out).to_pylist()
    assert {r["measure"]: round(r["value"], 4) for r in table} == official["Kelp-primary"]
