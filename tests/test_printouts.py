"""What result objects print (issue 46): the numbers themselves, as pandas shows a frame -- wide,
sorted where that reads better, long tables cut around "..." with their size -- written by the one
formatter (fastmetrics._numbers); and leaderboard files that hold the board that was printed."""

import json
from html.parser import HTMLParser

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
import pytest

import fastmetrics as fm
from fastmetrics._numbers import value
from fastmetrics.cli import main
from fastmetrics.report.boards import board_latex, board_table, references
from tests.meta._data import semeval_paths


class _Page(HTMLParser):
    """Checks that tags nest and collects the text of the cells."""

    def __init__(self):
        super().__init__()
        self.open, self.cells = [], []

    def handle_starttag(self, tag, attrs):
        if tag not in ("br", "meta"):
            self.open.append(tag)

    def handle_endtag(self, tag):
        assert self.open and self.open[-1] == tag, (self.open, tag)
        self.open.pop()

    def handle_data(self, data):
        if self.open and self.open[-1] in ("td", "th"):
            self.cells.append(data)


def _valid(page: str) -> _Page:
    parsed = _Page()
    parsed.feed(page)
    parsed.close()
    assert not parsed.open
    return parsed


@pytest.fixture(scope="module")
def tensor():
    rng = np.random.default_rng(3)
    s, t, i = (x.reshape(-1) for x in np.indices((5, 8, 30)))
    gold = rng.random(s.size) < 0.4
    pred = np.where(rng.random(s.size) < 0.7 + 0.05 * s, gold, ~gold)
    return fm.count(pa.table({"system": [f"s{x}" for x in s], "topic": t, "item": i, "gold": gold, "pred": pred}))


def test_score_prints_its_values_in_one_row():
    y = [0, 1, 1, 0, 1, 0, 1, 1]
    p = [0, 1, 0, 0, 1, 1, 1, 1]
    scores = fm.score(y, p, measures=["precision", "recall", "accuracy", "mcc"])
    # tp 4, fp 1, fn 1, tn 2: precision = recall = 4/5, accuracy 6/8, mcc (8 - 1) / 15
    assert repr(scores) == (
        "Scores: precision, recall, accuracy, mcc\n"
        "precision  recall  accuracy     mcc\n"
        "   0.8000  0.8000    0.7500  0.4667"
    )
    assert str(scores) == repr(scores)


def test_scores_over_systems_show_each_systems_mean_over_topics(tensor):
    scores = tensor.evaluate(["f1", "mcc"])
    lines = repr(scores).splitlines()
    assert lines[0] == "Scores: f1, mcc over system=5 x topic=8"
    assert lines[1].split() == ["system", "f1", "mcc"]
    means = np.nanmean(scores.values, axis=2)
    for i, line in enumerate(lines[2:7]):
        assert line.split() == [f"s{i}", value(means[0, i]), value(means[1, i])]
    assert "means over topic" in lines[7]


def test_a_long_scores_is_cut_around_dots_with_its_size(tensor):
    scores = tensor.evaluate(["f1"]).sel(system="s0")
    wide = tensor.evaluate(["f1"], ci=0.9).sel(system="s2")
    text = repr(wide)
    assert len(text.splitlines()) == 2 + 8  # eight topics: no cut
    row = text.splitlines()[2].split(None, 1)[1]
    assert row == value(wide.values[0, 0]) + f" [{value(wide.low[0, 0])}, {value(wide.high[0, 0])}]"
    long = fm.count(
        pa.table({"topic": np.repeat(np.arange(50), 4), "gold": np.tile([0, 1, 1, 0], 50), "pred": np.ones(200, int)})
    ).evaluate(["precision"])
    lines = repr(long).splitlines()
    assert lines[12].split() == ["...", "..."] and lines[-1] == "[50 rows x 2 columns]"
    assert lines[2].split() == ["0", "0.5000"] and lines[-2].split() == ["49", "0.5000"]
    assert scores.view()[0].num_rows == 8


def test_a_tensor_prints_its_axes_and_a_few_labels_not_its_counts(tensor):
    assert repr(tensor).splitlines() == [
        "ConfusionTensor: system=5 x topic=8; 2 classes, int64 counts",
        "  system: s0, s1, s2, s3, s4 (5)",
        "  topic: 0, 1, 2, 3, ..., 7 (8)",
    ]


def test_meta_results_are_sorted_by_their_main_statistic(tensor):
    scores = tensor.evaluate(["f1", "mcc", "accuracy"])
    result = fm.meta.robustness(scores, pairs="all")
    lines = repr(result).splitlines()
    rows = sorted(result.summary.to_pylist(), key=lambda r: -r["mean"])
    assert [line.split()[0] for line in lines[2:5]] == [r["measure"] for r in rows]
    assert lines[2].split()[1:3] == [value(rows[0]["mean"]), value(rows[0]["std"])]
    _valid(result._repr_html_())


def test_strictness_prints_one_row_per_measure_at_five_levels(tensor):
    result = fm.meta.strictness(tensor.evaluate(["f1", "mcc", "accuracy"]))
    table, _, _ = result.view()
    assert table.column_names == ["measure", "at 0.5", "at 0.62", "at 0.74", "at 0.87", "at 0.99", "mean"]
    summary = result.summary.to_pylist()
    for row in table.to_pylist():
        mine = {r["level"]: r["value"] for r in summary if r["measure"] == row["measure"]}
        assert row["at 0.74"] == mine[0.74] and row["mean"] == pytest.approx(np.mean(list(mine.values())))
    assert table.column("mean").to_pylist() == sorted(table.column("mean").to_pylist(), reverse=True)
    assert value(table.column("at 0.99")[0].as_py()) in repr(result)


def test_views_are_valid_html_and_escape_labels():
    y = np.array([0, 1, 1, 0, 1, 0])
    scores = fm.score(y, np.array([0, 1, 0, 0, 1, 1]), groups={"system": ["<b>&", "<b>&", "<b>&", "x", "x", "x"]})
    page = scores._repr_html_()
    parsed = _valid(page)
    assert "<b>&" in parsed.cells and "&lt;b&gt;&amp;" in page


def test_a_system_scoring_as_a_baseline_is_marked(tensor):
    table = pa.table(
        {
            "system": ["always"] * 40 + ["half"] * 40,
            "topic": np.tile(np.repeat([0, 1], 20), 2),
            "item": np.tile(np.arange(20), 4),
            "gold": np.tile(np.arange(20) % 3 == 0, 4),
            "pred": np.concatenate([np.ones(40, bool), np.arange(40) % 2 == 0]),
        }
    )
    board = fm.board.leaderboard(fm.count(table), ["f1", "accuracy"])
    typed = board_table(board.summary).to_pylist()
    assert {r["system"]: r["as_baseline"] for r in typed if r["kind"] == "system"} == {
        "always": "placebo",
        "half": None,
    }
    assert "always *" in repr(board) and "* scores exactly as the placebo baseline" in repr(board)


def _cli_board(tmp_path, capsys, suffix, *extra):
    runs, gold = semeval_paths()
    out = tmp_path / f"board{suffix}"
    argv = ["leaderboard", *runs, "--gold", gold, "--measures", "f1,mcc", "--quiet", *extra]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    assert main(argv + ["--out", str(out)]) == 0
    return printed, out


def test_leaderboard_files_hold_the_printed_board(tmp_path, capsys):
    printed, out = _cli_board(tmp_path, capsys, ".csv")
    lines = printed.splitlines()
    assert lines[0].startswith("Leaderboard ranked by the macro mean over topics of f1 (the first of --measures")
    assert lines[1].startswith("Baselines added (rank 'baseline'): placebo (all positive)")
    rows = [line.split() for line in lines if line[:1].isdigit() or line.startswith("baseline")]
    written = pacsv.read_csv(out).to_pylist()
    assert len(rows) == len(written) == 35
    for shown, row in zip(rows, written):
        assert shown[0] == ("baseline" if row["kind"] == "baseline" else str(row["rank"]))
        assert shown[1] == row["system"]
        numbers = [x for x in shown[2:] if x != "*"]
        assert numbers[0] == value(row["f1 macro"]) and numbers[1] == value(row["f1 micro"])
        assert numbers[3] == (value(row["mcc macro"]) if row["mcc macro"] is not None else "NaN")
    assert [r["system"] for r in written if r["as_baseline"]] == [
        "_baseline/subtask_A_baseline_true",
        "_baseline/subtask_A_baseline_false",
    ]
    for suffix in (".parquet", ".json"):
        _, other = _cli_board(tmp_path, capsys, suffix)
        table = pq.read_table(other) if suffix == ".parquet" else json.loads(other.read_text())
        systems = table.column("system").to_pylist() if suffix == ".parquet" else [r["system"] for r in table]
        assert systems == [r["system"] for r in written]


def test_leaderboard_long_keeps_the_tidy_table(tmp_path, capsys):
    _, out = _cli_board(tmp_path, capsys, ".csv", "--long")
    table = pacsv.read_csv(out)
    assert {"measure", "macro", "micro", "kind"} <= set(table.column_names) and table.num_rows == 35 * 2


def test_markdown_and_html_boards_show_the_printed_cells(tmp_path, capsys):
    printed, md = _cli_board(tmp_path, capsys, ".md")
    first = next(line for line in printed.splitlines() if line.startswith("1 "))
    row = md.read_text().splitlines()[2]
    assert [c.strip() for c in row.strip("|").split("|")] == first.split()
    _, page = _cli_board(tmp_path, capsys, ".html")
    assert first.split() == [c.strip() for c in _valid(page.read_text()).cells[8:16]]


def test_latex_board_is_ready_for_a_paper(tmp_path, capsys):
    _, out = _cli_board(tmp_path, capsys, ".tex", "--ci", "0.9", "--resamples", "50")
    tex = out.read_text()
    for rule in (r"\toprule", r"\midrule", r"\bottomrule", r"\caption{", r"\begin{table}"):
        assert rule in tex
    assert r"SLS/subtask\_A\_contrastive1" in tex and r"\& Prokhorenkova (2021)" in tex
    assert "Sebastiani (2015)" in tex and "ranked by the macro mean of f1" in tex
    body = [line for line in tex.splitlines() if line.endswith(r"\\") and line[:1].isdigit()]
    assert len(body) == 32
    # the bold cell of each column is the best value there (mcc: higher is better)
    cells = [line[: -len(r"\\")].split(" & ") for line in body]
    for column in range(2, 6):
        bold = [c[column] for c in cells if c[column].startswith(r"\textbf{")]
        values = [
            float(c[column].removeprefix(r"\textbf{").split()[0].rstrip("}")) for c in cells if "NaN" not in c[column]
        ]
        assert bold and all(float(b.removeprefix(r"\textbf{").split()[0]) == max(values) for b in bold)
    assert "[" in cells[0][2]  # intervals beside the values


def test_every_option_of_every_command_says_its_default():
    import argparse

    from fastmetrics.cli.program import build_parser

    commands = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)).choices
    silent = [
        f"{name} {action.option_strings[-1]}"
        for name, parser in commands.items()
        for action in parser._actions
        if action.option_strings
        and action.help
        and action.default not in (None, False, argparse.SUPPRESS)
        and "default" not in action.help.lower()
    ]
    assert not silent
    assert "order of equal scores (default input)" in " ".join(commands["leaderboard"].format_help().split())


def test_latex_escapes_names_and_bolds_the_lowest_of_an_error_measure():
    summary = pa.table(
        {
            "system": ["a_1 & #2", "b%"],
            "kind": ["system", "system"],
            "measure": ["error_rate", "error_rate"],
            "macro": [0.2, 0.1],
            "micro": [0.25, 0.3],
            "topics": [3, 3],
            "rank": [2, 1],
        }
    )
    tex = board_latex(summary)
    assert r"a\_1 \& \#2" in tex and r"b\%" in tex
    assert r"\textbf{0.1000}" in tex and r"\textbf{0.2500}" in tex and r"\textbf{0.2000}" not in tex
    assert references(["f1"]) == ["f1: Sebastiani (2015)"]
