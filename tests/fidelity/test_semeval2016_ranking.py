"""SemEval-2016 Task 3 subtask A: the official MAP and MRR of all 32 runs, through the command line.

The scorer is not distributed; its conventions, read from the data (every run's ``.score`` file
and the results table, subtasks A and C):

- each question's comments are ranked by decreasing score, equal scores kept in the order of the
  run file (a stable sort -- ranking ties by comment id changes 8 of the 64 values of subtask A);
- the cutoff is 10 (subtask C, 100 comments per question, matches only with it);
- a question's AP divides by the relevant comments *found within the cutoff*, not by all of its
  relevant comments (again decided by subtask C);
- a question with no relevant comment in the top 10 scores 0 and still counts in the mean.

Hence ``ranked_ap_retrieved(cutoff=10)`` and ``reciprocal_rank(cutoff=10)`` on a ranks sweep, with
``--undefined 0``; MRR is printed by the scorer as a percentage.
"""

import glob

import pyarrow.csv as pacsv
import pytest

from fastmetrics.cli import main
from tests.conftest import external

SPEC = "ranked_ap_retrieved(cutoff=10),reciprocal_rank(cutoff=10)"


def _official():
    path = external("semeval2016-task3-cqa", "_results", "results_subtask_A.tab")
    rows = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        fields = line.split("\t")
        if len(fields) >= 9:
            rows[fields[0].replace("\u00ad", "")] = (float(fields[2]), float(fields[4]))
    return rows


def _board(tmp_path, ties="input"):
    root = external("semeval2016-task3-cqa")
    runs = sorted(glob.glob(str(root / "*" / "subtask_A_*.txt")))
    gold = root / "_gold" / "SemEval2016-Task3-CQA-QL-test-subtaskA.xml.subtaskA.relevancy"
    out = tmp_path / f"map_{ties}.csv"
    argv = ["leaderboard", *runs, "--gold", str(gold), "--thresholds", "ranks", "--ties", ties, "--long"]
    assert main(argv + ["--measures", SPEC, "--undefined", "0", "--out", str(out), "--quiet"]) == 0
    table = pacsv.read_csv(out).to_pylist()
    return {(r["system"].replace("/subtask_A_", "-"), r["measure"]): r["macro"] for r in table}


def test_official_map_and_mrr_of_every_run(tmp_path):
    official = _official()
    board = _board(tmp_path)
    assert len(official) == 32
    for name, (map_, mrr) in official.items():
        assert round(board[(name, "ranked_ap_retrieved(cutoff=10)")], 4) == pytest.approx(map_, abs=1e-12), name
        assert round(100 * board[(name, "reciprocal_rank(cutoff=10)")], 4) == pytest.approx(mrr, abs=1e-12), name


def test_ties_in_file_order_matter(tmp_path):
    official = _official()
    by_item = _board(tmp_path, ties="item")
    wrong = [n for n, (map_, _) in official.items() if round(by_item[(n, "ranked_ap_retrieved(cutoff=10)")], 4) != map_]
    assert len(wrong) >= 5  # the convention is decided by the data, not by chance
