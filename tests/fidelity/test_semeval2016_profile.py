"""``--profile semeval2016``: the whole official table of SemEval-2016 Task 3, subtasks A-D, in one command.

The profile sets the scorer's conventions (equal scores in file order, a missing comment counted
as not retrieved for the ranking columns and left out of the classification ones, a question
without a relevant comment in the top 10 scoring 0) and its columns: MAP
(``ranked_ap_retrieved(cutoff=10)``, see ``test_semeval2016_ranking.py``), AvgRec (``avgrec``,
pooled over the questions: the micro column), MRR (``reciprocal_rank(cutoff=10)``, printed as
a percentage), and P, R, F1, Acc of the ``true`` class over all items (micro) -- ranking measures
on the ranked lists and classification measures on the hard labels, counted from one read.
Every column of every run of the organisers' ``_results`` tables is reproduced to its printed
digits (ConvKN's subtask D contrastive runs lack 30 comments: the missing-item conventions show).
"""

import glob

import pyarrow.csv as pacsv
import pytest

from fastmetrics.cli import main
from tests.conftest import external

MAP, AVGREC, MRR = "ranked_ap_retrieved(cutoff=10)", "avgrec", "reciprocal_rank(cutoff=10)"
# the official columns after the run name and a blank: (measure, board column, scale)
COLUMNS = (
    (MAP, "macro", 1),
    (AVGREC, "micro", 1),
    (MRR, "macro", 100),
    ("precision", "micro", 1),
    ("recall", "micro", 1),
    ("f1", "micro", 1),
    ("accuracy", "micro", 1),
)


def _official(subtask):
    rows = {}
    path = external("semeval2016-task3-cqa", "_results", f"results_subtask_{subtask}.tab")
    for line in path.read_text(encoding="utf-8").splitlines():
        fields = line.split("\t")
        if len(fields) >= 9:
            rows[fields[0].replace("\u00ad", "")] = [float(x) for x in fields[2:9]]
    return rows


@pytest.mark.parametrize("subtask", "ABCD")
def test_the_profile_gives_the_whole_official_table(tmp_path, subtask):
    root = external("semeval2016-task3-cqa")
    gold = [p for p in glob.glob(str(root / "_gold" / "*")) if p.endswith(f"subtask{subtask}.relevancy")]
    runs = sorted(glob.glob(str(root / "*" / f"subtask_{subtask}_*.txt")))
    out = tmp_path / "board.csv"
    argv = ["leaderboard", *runs, "--gold", gold[0], "--profile", "semeval2016"]
    if subtask == "B":  # named in another order, as a user may: the same columns
        argv += ["--measures", "accuracy,f1," + ",".join(m for m, _, _ in COLUMNS[:5])]
    assert main([*argv, "--no-baselines", "--long", "--out", str(out), "--quiet"]) == 0
    rows = pacsv.read_csv(out).to_pylist()
    board = {(r["system"].replace(f"/subtask_{subtask}_", "-"), r["measure"]): r for r in rows}
    official = _official(subtask)
    assert len(official) >= 13
    for name, printed in official.items():
        for (measure, column, scale), value in zip(COLUMNS, printed):
            got = round(scale * board[(name, measure)][column], 4)
            assert got == pytest.approx(value, abs=1e-12), (name, measure)
