"""The leaderboard printout fits 120 columns: each spec once, over its macro / micro / topics
columns; measures that do not fit go to further blocks (issue 29, item 12)."""

import re

import pyarrow.csv as pacsv
import pytest

from fastmetrics.cli import main
from tests.meta._data import semeval_paths

RANKING = "ranked_ap_retrieved(cutoff=10),reciprocal_rank(cutoff=10)"


def _board(capsys, *options):
    runs, gold = semeval_paths()
    assert main(["leaderboard", *runs, "--gold", gold, "--quiet", *options]) == 0
    lines = capsys.readouterr().out.splitlines(keepends=True)
    if "--out" in options:
        return "".join(lines)
    heading = next(i for i, line in enumerate(lines) if line.startswith(" "))  # what it ranks by, the baselines
    assert lines[0].startswith("Leaderboard ranked by the macro mean over topics of ")
    return "".join(lines[heading:])


def test_long_specs_are_printed_once_within_120_columns(capsys, tmp_path):
    options = ("--thresholds", "ranks", "--measures", RANKING, "--undefined", "0")
    text = _board(capsys, *options)
    lines = text.splitlines()
    assert max(len(line) for line in lines) <= 120
    for spec in RANKING.split(","):
        assert text.count(spec) == 1
    assert re.match(r"\s+ranked_ap_retrieved\(cutoff=10\)\s+reciprocal_rank\(cutoff=10\)", lines[0])
    assert lines[1].split() == ["rank", "system", "macro", "micro", "topics", "macro", "micro", "topics"]
    # the rows hold the values of the board written to a file, under their spec
    _board(capsys, *options, "--long", "--out", str(tmp_path / "board.csv"))
    rows = pacsv.read_csv(tmp_path / "board.csv").to_pylist()
    for r in rows:
        if r["kind"] != "system":
            continue
        line = next(line for line in lines[3:] if line.split()[1] == r["system"])
        column = 2 if r["measure"].startswith("ranked_ap") else 5
        assert float(line.split()[column]) == pytest.approx(r["macro"], abs=5e-5)
        assert int(line.split()[column + 2]) == r["topics"]


def test_wide_boards_wrap_into_blocks_of_whole_measures(capsys):
    text = _board(capsys, "--ci", "0.95", "--resamples", "50")  # six default measures with intervals
    assert max(len(line) for line in text.splitlines()) <= 120
    blocks = text.strip("\n").split("\n\n")
    assert len(blocks) > 1
    specs = [s for b in blocks for s in re.findall(r"(\S+) -+", b.splitlines()[0])]
    assert specs == ["f1", "mcc", "k", "accuracy", "precision", "recall"]  # each once, in order
    for block in blocks:  # every block lists every system, ranked by the first measure
        assert [line.split()[0] for line in block.splitlines()[3:6]] == ["1", "2", "3"]
