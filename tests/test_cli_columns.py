"""Column options on every command that reads runs, cost-matrix files, and help texts true to
what each command writes (issue 18, points 2, 3 and 7)."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
import pytest

import fastmetrics as fm
from fastmetrics.board import leaderboard
from fastmetrics.cli import build_parser, main
from fastmetrics.measures import parse_spec
from tests.conftest import binary_runs

OURS = {"system": "annotator", "topic": "query", "item": "id", "gold": "label", "pred": "guess", "score": "prob"}
OPTIONS = [
    "--system",
    "annotator",
    "--topic",
    "query",
    "--item",
    "id",
    "--gold-column",
    "label",
    "--pred",
    "guess",
    "--score",
    "prob",
]
READERS = ("evaluate", "leaderboard", "meta", "sweep", "report")


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """The same runs twice: with the default column names, and with the user's own names plus a
    column called ``system`` that plays no part (it must not get in the way)."""
    default = binary_runs(5, 4, 5, 30)
    ours = default.rename_columns([OURS[c] for c in default.column_names])
    ours = ours.append_column("system", pa.array(["batch-1"] * ours.num_rows))
    folder = tmp_path_factory.mktemp("columns")
    pq.write_table(default, folder / "default.parquet")
    pq.write_table(ours, folder / "ours.parquet")
    return folder, default, ours


def _cli(capsys, *argv) -> str:
    status = main([str(a) for a in argv])
    captured = capsys.readouterr()
    assert status == 0, captured.err
    return captured.out


def _table(path) -> pa.Table:
    return pacsv.read_csv(path)


def _ours_named(table: pa.Table) -> pa.Table:
    return table.rename_columns([OURS.get(c, c) if c in ("system", "topic") else c for c in table.column_names])


@pytest.mark.parametrize(
    "command",
    [
        ["evaluate", "--measures", "f1,k"],
        ["leaderboard", "--measures", "f1,k", "--quiet"],
        ["meta", "robustness", "--measures", "f1,k", "--pairs", "all", "--quiet"],
        ["meta", "stability", "--measures", "f1,k", "--splits", "10", "--quiet"],
        ["sweep", "--measures", "f1", "--thresholds", "11"],
        ["sweep", "--measures", "f1", "--thresholds", "11", "--select", "cross-topic"],
    ],
    ids=lambda c: "-".join(c[:2]),
)
def test_column_options_give_the_default_names_results(runs, tmp_path, capsys, command):
    folder, _, _ = runs
    words = command[: 2 if command[0] == "meta" else 1]
    options = command[len(words) :]
    _cli(capsys, *words, folder / "default.parquet", *options, "--out", tmp_path / "default.csv")
    _cli(capsys, *words, folder / "ours.parquet", *options, *OPTIONS, "--out", tmp_path / "ours.csv")
    expected = _ours_named(_table(tmp_path / "default.csv"))
    got = _table(tmp_path / "ours.csv")
    assert got.column_names == expected.column_names
    assert got.equals(expected)


def test_any_grouping_column_plays_the_system(runs, tmp_path, capsys):
    """Topics ranked as if they were systems: the systems' column plays the topic."""
    folder, default, _ = runs
    out = tmp_path / "board.csv"
    _cli(capsys, "leaderboard", folder / "default.parquet", "--system", "topic", "--topic", "system", "--quiet")
    _cli(
        capsys,
        "leaderboard",
        folder / "default.parquet",
        "--system",
        "topic",
        "--topic",
        "system",
        "--long",
        "--out",
        out,
    )
    board = _table(out)
    assert board.column_names[0] == "topic"
    swapped = fm.count(default.rename_columns(["topic", "system", "item", "gold", "pred", "score"]))
    expected = leaderboard(swapped, ["f1", "mcc", "k", "accuracy", "precision", "recall"]).summary  # the defaults
    macro = [np.nan if v is None else v for v in board.column("macro").to_pylist()]  # CSV nulls
    assert macro == pytest.approx(expected.column("macro").to_numpy(), nan_ok=True)


def test_significance_detail_names_pairs_by_the_users_column(runs, tmp_path, capsys):
    folder, _, _ = runs
    for test in ("fisher", "mcnemar"):
        detail = tmp_path / f"{test}.csv"
        args = ["--measures", "f1", "--significance", test, "--resamples", "20", "--quiet"]
        board = tmp_path / "board.csv"
        _cli(capsys, "leaderboard", folder / "ours.parquet", *OPTIONS, *args, "--detail", detail, "--out", board)
        names = _table(detail).column_names
        assert "annotator_a" in names and "annotator_b" in names and "system_a" not in names


def test_a_separate_gold_takes_the_same_column_names(runs, tmp_path, capsys):
    folder, default, ours = runs
    gold = ours.filter(pa.compute.equal(ours.column("annotator"), "s0")).select(["query", "id", "label"])
    pq.write_table(gold, tmp_path / "gold.parquet")
    pq.write_table(ours.drop_columns(["label"]), tmp_path / "runs.parquet")
    out = tmp_path / "ours.csv"
    _cli(capsys, "evaluate", tmp_path / "runs.parquet", "--gold", tmp_path / "gold.parquet", *OPTIONS, "--out", out)
    _cli(capsys, "evaluate", folder / "default.parquet", "--out", tmp_path / "default.csv")
    assert _table(out).equals(_ours_named(_table(tmp_path / "default.csv")))


def test_report_reads_the_users_columns(runs, tmp_path, capsys):
    folder, _, _ = runs
    out = tmp_path / "report.md"
    fast = ["--measures", "f1,k,mcc", "--resamples", "10", "--pairs", "10", "--quiet"]
    status = main([*map(str, ["report", folder / "ours.parquet", *OPTIONS, *fast, "--out", out])])
    assert status == 0, capsys.readouterr().err
    text = out.read_text()
    assert "s0" in text and "batch-1" not in text
    assert (tmp_path / "report_figures" / "threshold_curves.png").exists()  # the curves read --score prob


def test_count_and_leaderboard_take_the_columns_playing_system_and_topic(runs):
    _, default, ours = runs
    names = dict(item="id", gold_column="label", pred="guess")
    tensor = fm.count(ours, system="annotator", topic="query", **names)
    assert tensor.axes == ("annotator", "query")
    assert np.array_equal(tensor.counts, fm.count(default).counts)
    kept = fm.count(ours, system="annotator", topic="query", by=("annotator", "system"), **names)
    assert kept.axes == ("annotator", "system") and kept.coords["system"].tolist() == ["batch-1"]
    board = leaderboard(tensor, ["f1", "k"], system="annotator", topic="query").summary
    expected = leaderboard(fm.count(default), ["f1", "k"]).summary
    assert board.column_names[0] == "annotator"
    assert board.rename_columns(expected.column_names).equals(expected)
    with pytest.raises(fm.InputError, match="'nosuch'"):
        fm.count(ours, system="nosuch", **names)


SQUARE = ",neg,neu,pos,great\nneg,0,1,3,4\nneu,1,0,1,2\npos,2,1,0,1\ngreat,5,2,1,0\n"
COSTS = np.array([[0, 1, 3, 4], [1, 0, 1, 2], [2, 1, 0, 1], [5, 2, 1, 0]], float)
SCALE = ["neg", "neu", "pos", "great"]


@pytest.fixture()
def sentiment(tmp_path):
    rng = np.random.default_rng(11)
    gold = np.array(SCALE)[rng.integers(0, 4, 400)]
    pred = np.where(rng.random(400) < 0.5, gold, np.array(SCALE)[rng.integers(0, 4, 400)])
    table = pa.table({"system": np.where(np.arange(400) < 200, "a", "b"), "item": np.arange(400), "gold": gold})
    path = tmp_path / "sentiment.parquet"
    pq.write_table(table.append_column("pred", pa.array(pred)), path)
    return path


@pytest.mark.parametrize("layout", ["square.csv", "long.csv", "long.parquet"])
def test_cost_file_equals_the_python_api(sentiment, tmp_path, capsys, layout):
    path = tmp_path / layout
    if layout == "square.csv":
        path.write_text(SQUARE)
    else:
        rows = [(t, p, COSTS[i, j]) for i, t in enumerate(SCALE) for j, p in enumerate(SCALE) if i != j]
        long = pa.table({"true": [r[0] for r in rows], "pred": [r[1] for r in rows], "cost": [r[2] for r in rows]})
        pq.write_table(long, path) if layout.endswith("parquet") else pacsv.write_csv(long, path)
    out = tmp_path / "k.csv"
    _cli(capsys, "evaluate", sentiment, "--measures", "k_cost", "--cost", path, "--out", out)
    tensor = fm.count(sentiment)  # classes in sorted order: great, neg, neu, pos
    order = [SCALE.index(c) for c in tensor.classes]
    expected = tensor.evaluate("k_cost", cost=COSTS[np.ix_(order, order)]).values[0]
    assert _table(out).column("value").to_pylist() == pytest.approx(expected.tolist())
    ordinal = tensor.evaluate("k_cost", cost=fm.ordinal_costs(4)).values[0]
    assert not np.allclose(expected, ordinal)  # the file's costs, not a default


def test_leaderboard_takes_the_cost_matrix(sentiment, tmp_path, capsys):
    table = pq.read_table(sentiment)
    table = table.append_column("topic", pa.array(np.arange(400) % 5))
    path = tmp_path / "topics.parquet"
    pq.write_table(table, path)
    tensor = fm.count(path)
    order = [SCALE.index(c) for c in tensor.classes]
    cost = COSTS[np.ix_(order, order)]
    board = leaderboard(tensor, ["k_cost"], cost=cost, baselines=False, ci=0.9, resamples=50).summary
    per_topic = tensor.evaluate("k_cost", cost=cost).values[0]  # [system, topic]
    micro = tensor.sum("topic").evaluate("k_cost", cost=cost).values[0]
    by_system = {s: i for i, s in enumerate(tensor.coords["system"])}
    rows = board.to_pylist()
    for row in rows:
        assert row["macro"] == pytest.approx(per_topic[by_system[row["system"]]].mean())
        assert row["micro"] == pytest.approx(micro[by_system[row["system"]]])
        assert row["micro_low"] <= row["micro"] <= row["micro_high"]
    unit = leaderboard(tensor, ["k_cost"], baselines=False).summary.column("macro").to_pylist()
    assert not np.allclose(unit, [r["macro"] for r in rows])  # the costs, not the default
    out = tmp_path / "board.csv"
    square = tmp_path / "square.csv"
    square.write_text(SQUARE)
    _cli(
        capsys, "leaderboard", path, "--measures", "k_cost", "--cost", square, "--no-baselines", "--long", "--out", out
    )
    assert _table(out).column("macro").to_pylist() == pytest.approx([r["macro"] for r in rows])


def test_cost_matrix_errors_name_the_labels():
    from fastmetrics.measures.multiclass import cost_matrix

    square = pacsv.read_csv(pa.BufferReader(SQUARE.encode()))
    with pytest.raises(fm.InputError, match="lack the classes bad"):
        cost_matrix(square, ["neg", "neu", "pos", "great", "bad"], "costs.csv")
    with pytest.raises(fm.InputError, match="not classes: great"):
        cost_matrix(square, ["neg", "neu", "pos"], "costs.csv")
    diagonal = pa.table({"true": ["a", "a", "b"], "pred": ["a", "b", "a"], "cost": [1.0, 1.0, 1.0]})
    with pytest.raises(fm.InputError, match="costs.csv.*0 on the diagonal"):
        cost_matrix(diagonal, ["a", "b"], "costs.csv")
    twice = pa.table({"true": ["a", "a", "b"], "pred": ["b", "b", "a"], "cost": [1.0, 2.0, 1.0]})
    with pytest.raises(fm.InputError, match="true=a, pred=b is given twice"):
        cost_matrix(twice, ["a", "b"], "costs.csv")


def _help(command: str) -> str:
    return build_parser()._subparsers._group_actions[0].choices[command].format_help()


def test_every_command_that_reads_runs_takes_the_column_options():
    for command in READERS:
        text = _help(command)
        for option in ("--system", "--topic", "--item", "--gold-column", "--pred", "--score", "--weight"):
            assert option in text, (command, option)


def test_help_is_true_to_what_each_command_writes():
    report = " ".join(_help("report").split())
    assert ".html" in report and ".md" in report and ".parquet" not in report
    for command in ("report", "evaluate", "sweep"):
        assert "--detail" not in _help(command), command
    assert "--smoothing" not in _help("report")
    assert "--significance" in " ".join(_help("leaderboard").split()).split("--detail", 1)[1][:200]


def test_axioms_prints_plain_arrows(capsys):
    text = _cli(capsys, "axioms", "f1", "--n-max", "4", "--properties", "SYM")
    assert "->" in text and "&gt;" not in text


def test_counts_saved_under_the_users_names_read_back_as_saved(runs, capsys, tmp_path):
    folder, _, _ = runs
    saved = tmp_path / "counts.parquet"
    assert main(["count", str(folder / "ours.parquet"), *OPTIONS, "--out", str(saved), "--quiet"]) == 0
    expected = _cli(capsys, "leaderboard", str(folder / "ours.parquet"), *OPTIONS, "--measures", "f1", "--quiet")
    assert _cli(capsys, "leaderboard", str(saved), "--measures", "f1", "--quiet") == expected
    assert fm.count(saved).axes == ("annotator", "query")
    # a CSV file cannot say which columns play the system and topic: refused, nothing written
    csv = tmp_path / "counts.csv"
    assert main(["count", str(folder / "ours.parquet"), *OPTIONS, "--out", str(csv)]) == 2
    assert not csv.exists() and "does not keep" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--pred", "label"], "--gold-column and --pred both name the column 'label'"),
        (["--weight", "id"], "--item and --weight both name the column 'id'"),
        (["--score", "prob,prob"], "--score names the column 'prob' twice"),
    ],
)
def test_one_column_plays_one_part(runs, capsys, options, message):
    folder, _, _ = runs
    argv = ["evaluate", str(folder / "ours.parquet"), *OPTIONS[:8], *options]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and err.count("\n") == 1


def _duplicated(tmp_path):
    path = tmp_path / "dup.csv"
    path.write_text("model,query,item,gold,pred\na,q1,1,1,1\na,q1,1,0,1\n")
    return path


def test_data_errors_name_the_users_columns(tmp_path, capsys):
    path = _duplicated(tmp_path)
    for command in ("evaluate", "leaderboard"):
        assert main([command, str(path), "--system", "model", "--topic", "query", "--measures", "f1"]) == 2
        err = capsys.readouterr().err
        assert "(model, query, item): model='a', query='q1'" in err, err
        assert "once per (model, query)" in err and "system" not in err, err
    with pytest.raises(fm.InputError) as caught:
        fm.count(pacsv.read_csv(path), system="model", topic="query")
    assert "model='a', query='q1'" in str(caught.value) and "system" not in str(caught.value)


def test_option_errors_keep_the_names_the_user_gave(tmp_path, capsys):
    # the columns swapped: a message naming the user's column must not be translated back
    assert main(["evaluate", str(_duplicated(tmp_path)), "--system", "topic", "--topic", "model"]) == 2
    assert "missing the required column 'topic' named by --system" in capsys.readouterr().err


def test_meta_functions_take_the_columns_playing_system_and_topic():
    from fastmetrics.meta import inconsistency, power, robustness, significance, stability, strictness

    rng = np.random.default_rng(2)
    s, t, i = np.indices((4, 6, 40)).reshape(3, -1)
    gold = (rng.random((6, 40)) < 0.4)[t, i]
    pred = np.where(rng.random(s.size) < 0.4 + 0.1 * s, gold, ~gold)
    ours = pa.table({"annotator": s, "batch": t, "id": i, "gold": gold, "pred": pred})
    default = ours.rename_columns(["system", "topic", "item", "gold", "pred"])
    back = {"system": "annotator", "topic": "batch", "system_a": "annotator_a", "system_b": "annotator_b"}
    back |= {"topic_a": "batch_a", "topic_b": "batch_b"}
    scores = fm.count(ours, system="annotator", topic="batch").evaluate(["f1", "mcc", "accuracy"])
    expected_scores = fm.count(default).evaluate(["f1", "mcc", "accuracy"])
    roles = dict(system="annotator", topic="batch")
    jobs = [
        (lambda sc, **kw: inconsistency(sc, **kw)),
        (lambda sc, **kw: robustness(sc, pairs=20, **kw)),
        (lambda sc, **kw: significance(sc, resamples=50, **kw)),
        (lambda sc, **kw: power(sc, resamples=50, **kw)),
        (lambda sc, **kw: strictness(sc, **kw)),
    ]
    for job in jobs:
        mine, expected = job(scores, **roles), job(expected_scores)
        for a, b in ((mine.summary, expected.summary), (mine.detail, expected.detail)):
            if b is not None:
                assert a.column_names == [back.get(c, c) for c in b.column_names]
                assert a.rename_columns(b.column_names).equals(b)
    mine = stability(ours, item="id", replicates=10, **roles)
    expected = stability(default, replicates=10)
    assert mine.detail.column_names[0] == "annotator" and mine.summary.equals(expected.summary)
    with pytest.raises(fm.ParameterError, match="system='annotator'"):
        inconsistency(scores)  # names the axes a user can pass


def test_values_equal_to_a_parts_name_are_only_values():
    # a label 'system' or 'topic' is a label: the errors quote it as it is
    table = pa.table(
        {"model": ["system"] * 2, "topic": ["topic"] * 2, "item": ["system"] * 2, "gold": [1, 0], "pred": [1, 1]}
    )
    with pytest.raises(fm.InputError) as caught:
        fm.count(table, system="model")
    message = str(caught.value)
    assert "(model, topic, item): model='system', topic='topic', item='system'" in message, message
    assert "once per (model, topic)" in message


def test_a_column_called_topic_can_hold_the_items(tmp_path, capsys):
    # 'query' plays the topic and the column called 'topic' holds the items
    table = pa.table(
        {
            "model": ["a", "a", "a", "b", "b", "b"],
            "query": ["q1", "q1", "q2", "q1", "q1", "q2"],
            "topic": [1, 2, 1, 1, 2, 1],
            "gold": [1, 0, 1, 1, 0, 0],
            "pred": [1, 1, 0, 1, 0, 0],
        }
    )
    default = table.rename_columns(["system", "topic", "item", "gold", "pred"])
    expected = fm.count(default)
    mine = fm.count(table, system="model", topic="query", item="topic")
    np.testing.assert_array_equal(mine.counts, expected.counts)
    path = tmp_path / "aside.csv"
    pacsv.write_csv(table, path)
    out = tmp_path / "acc.csv"
    _cli(
        capsys,
        "evaluate",
        path,
        "--system",
        "model",
        "--topic",
        "query",
        "--item",
        "topic",
        "--measures",
        "accuracy",
        "--out",
        out,
    )
    assert _table(out).column("value").to_pylist() == pytest.approx(expected.evaluate("accuracy").values[0].ravel())


def test_leaderboard_refuses_a_cost_matrix_no_measure_takes(sentiment, tmp_path, capsys):
    square = tmp_path / "square.csv"
    square.write_text(SQUARE)
    assert main(["leaderboard", str(sentiment), "--measures", "accuracy", "--cost", str(square)]) == 2
    assert "cost matrix, --cost, is k_cost's" in capsys.readouterr().err


def test_two_columns_of_one_name_and_named_columns_that_are_absent(tmp_path, capsys):
    dup = tmp_path / "dup.csv"
    dup.write_text("system,topic,gold,pred,gold\na,1,1,1,0\n")
    assert main(["evaluate", str(dup)]) == 2
    assert "two columns named 'gold'" in capsys.readouterr().err
    runs = tmp_path / "runs.csv"
    runs.write_text("system,topic,item,gold,pred\na,1,1,1,1\na,1,2,0,0\n")
    for option, column in (("--score", "prob"), ("--weight", "w")):
        assert main(["report", str(runs), option, column, "--out", str(tmp_path / "r.html")]) == 2
        assert f"'{column}' named by {option}" in capsys.readouterr().err


def test_a_number_of_bins_has_a_bound():
    with pytest.raises(fm.ParameterError, match="bins.*<= 1e\\+06"):
        parse_spec("ece(bins=1e19)")  # overflowed int64 and hung the bin search
