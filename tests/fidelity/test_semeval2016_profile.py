"""``--profile semeval2016``: the official MAP and MRR of every run of SemEval-2016 Task 3, subtasks A-D.

The profile sets the scorer's conventions (equal scores in file order, a missing comment counted
as not retrieved, a question without a relevant comment in the top 10 scoring 0); the measures
are the scorer's, ``ranked_ap_retrieved(cutoff=10)`` (MAP) and ``reciprocal_rank(cutoff=10)``
(MRR, printed as a percentage), see ``test_semeval2016_ranking.py``.
"""

import glob

import pyarrow.csv as pacsv
import pytest

from fastmetrics.cli import main
from tests.conftest import external

SPEC = "ranked_ap_retrieved(cutoff=10),reciprocal_rank(cutoff=10)"


def _official(subtask):
    rows = {}
    path = external("semeval2016-task3-cqa", "_results", f"results_subtask_{subtask}.tab")
    for line in path.read_text(encoding="utf-8").splitlines():
        fields = line.split("\t")
        if len(fields) >= 9:
            rows[fields[0].replace("\u00ad", "")] = (float(fields[2]), float(fields[4]))
    return rows


@pytest.mark.parametrize("subtask", "ABCD")
def test_the_profile_gives_the_official_map_and_mrr(tmp_path, subtask):
    root = external("semeval2016-task3-cqa")
    gold = [p for p in glob.glob(str(root / "_gold" / "*")) if p.endswith(f"subtask{subtask}.relevancy")]
    runs = sorted(glob.glob(str(root / "*" / f"subtask_{subtask}_*.txt")))
    out = tmp_path / "board.csv"
    argv = ["leaderboard", *runs, "--gold", gold[0], "--profile", "semeval2016"]
    argv += ["--measures", SPEC] if subtask in "AB" else []  # C, D: the profile's measures, the same
    assert main([*argv, "--no-baselines", "--out", str(out), "--long", "--quiet"]) == 0
    rows = pacsv.read_csv(out).to_pylist()
    board = {(r["system"].replace(f"/subtask_{subtask}_", "-"), r["measure"]): r["macro"] for r in rows}
    official = _official(subtask)
    assert len(official) >= 13
    for name, (map_, mrr) in official.items():
        assert round(board[(name, "ranked_ap_retrieved(cutoff=10)")], 4) == pytest.approx(map_, abs=1e-12), name
        assert round(100 * board[(name, "reciprocal_rank(cutoff=10)")], 4) == pytest.approx(mrr, abs=1e-12), name
