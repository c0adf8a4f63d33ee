"""The stages after counting find the system and topic axes by the user's column names (issue 27,
point 4): the leaderboard, threshold selection, the meta-evaluation jobs, the item tests, the
report's data and the command line give, on columns named ``run`` and ``query`` -- or on a column
literally called ``topic`` playing the system while ``system`` plays the topic -- the results of
the same data under the default names, with the user's names on their columns."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
import pytest

import fastmetrics as fm
from fastmetrics.board import best_thresholds, held_out_scores, leaderboard
from fastmetrics.cli import main
from fastmetrics.meta import inconsistency, item_tests, power, robustness, significance, stability, strictness
from fastmetrics.pipeline import report_data
from tests.conftest import binary_runs

# default name -> the user's; the options of fastmetrics.count named after the parts they play
NAMINGS = {
    "run-query": {"system": "run", "topic": "query", "item": "id", "gold": "label", "pred": "guess", "score": "prob"},
    "swapped": {"system": "topic", "topic": "system"},
}
OPTION = {"system": "system", "topic": "topic", "item": "item", "gold": "gold_column", "pred": "pred", "score": "score"}
MEASURES = ["f1", "mcc", "accuracy"]


@pytest.fixture(scope="module", params=sorted(NAMINGS))
def named(request):
    """(names, options, default runs, the same runs under the user's names)."""
    names = NAMINGS[request.param]
    default = binary_runs(7, 4, 6, 40)
    ours = default.rename_columns([names.get(c, c) for c in default.column_names])
    if "system" not in ours.column_names:  # a column called 'system' that plays no part
        ours = ours.append_column("system", pa.array(["batch-1"] * ours.num_rows))
    options = {OPTION[part]: name for part, name in names.items()}
    return names, options, default, ours


def _columns(names: dict) -> dict:
    """An output column under the default names -> under the user's (pairs ``system_a`` too)."""
    out = {role: names[role] for role in ("system", "topic")}
    for role in ("system", "topic"):
        out[f"{role}_a"], out[f"{role}_b"] = f"{names[role]}_a", f"{names[role]}_b"
    return out


def _rows(table: pa.Table) -> list:
    """The rows, NaN made comparable (Arrow's equals tells NaN from NaN)."""
    return [{k: "NaN" if v != v else v for k, v in row.items()} for row in table.to_pylist()]


def _same(got: pa.Table, expected: pa.Table, names: dict) -> None:
    """``got`` is ``expected`` with the user's names on the columns of the parts."""
    columns = _columns(names)
    assert got.column_names == [columns.get(c, c) for c in expected.column_names]
    assert got.schema.types == expected.schema.types
    assert _rows(got) == _rows(expected.rename_columns(got.column_names))


def _roles(names: dict) -> dict:
    return dict(system=names["system"], topic=names["topic"])


def test_leaderboard_with_tests_and_intervals(named):
    names, options, default, ours = named
    options_of_board = dict(significance="bootstrap", resamples=40, ci=0.9)
    got = leaderboard(fm.count(ours, **options), MEASURES, **options_of_board, **_roles(names))
    expected = leaderboard(fm.count(default), MEASURES, **options_of_board)
    assert got.summary.column_names[0] == names["system"]
    _same(got.summary, expected.summary, names)
    _same(got.detail, expected.detail, names)


def test_axes_in_either_order(named):
    """Counted by (topic, system), the axes are found by name, not by place."""
    names, options, default, ours = named
    tensor = fm.count(ours, by=(names["topic"], names["system"]), **options)
    assert tensor.axes == (names["topic"], names["system"])
    got = leaderboard(tensor, MEASURES, significance="fisher", resamples=40, **_roles(names))
    expected = leaderboard(fm.count(default), MEASURES, significance="fisher", resamples=40)
    _same(got.summary, expected.summary, names)
    _same(got.detail, expected.detail, names)
    scores, reference = tensor.evaluate(MEASURES), fm.count(default).evaluate(MEASURES)
    _same(robustness(scores, pairs="all", **_roles(names)).detail, robustness(reference, pairs="all").detail, names)


def test_leaderboard_of_one_topic_and_of_curve_measures(named):
    names, options, default, ours = named
    pooled = fm.count(ours, by=(names["system"],), **options)
    got = leaderboard(pooled, MEASURES, **_roles(names)).summary
    _same(got, leaderboard(fm.count(default, by=("system",)), MEASURES).summary, names)
    exact = fm.count(ours, thresholds="exact", **options)
    got = leaderboard(exact, ["roc_auc"], **_roles(names)).summary
    _same(got, leaderboard(fm.count(default, thresholds="exact"), ["roc_auc"]).summary, names)


@pytest.mark.parametrize("grid", ["global", "system"])
def test_thresholds_chosen_on_held_out_topics(named, grid):
    names, options, default, ours = named
    sweep = fm.count(ours, thresholds=7, grid=grid, **options).evaluate(MEASURES)
    reference = fm.count(default, thresholds=7, grid=grid).evaluate(MEASURES)
    got = best_thresholds(sweep, select="cross-topic", folds=3, **_roles(names))
    expected = best_thresholds(reference, select="cross-topic", folds=3)
    _same(got.summary, expected.summary, names)
    _same(got.detail, expected.detail, names)
    held = held_out_scores(sweep, "cross-topic", **_roles(names))
    assert held.axes == (names["system"], names["topic"])
    np.testing.assert_array_equal(held.values, held_out_scores(reference, "cross-topic").values)
    board = leaderboard(
        fm.count(ours, thresholds=7, grid=grid, **options), MEASURES, select="cross-topic", **_roles(names)
    )
    expected = leaderboard(fm.count(default, thresholds=7, grid=grid), MEASURES, select="cross-topic")
    _same(board.summary, expected.summary, names)


JOBS = {
    "strictness": lambda scores, **kw: strictness(scores, **kw),
    "robustness": lambda scores, **kw: robustness(scores, pairs="all", **kw),
    "significance": lambda scores, **kw: significance(scores, method="fisher", resamples=40, **kw),
    "power": lambda scores, **kw: power(scores, resamples=40, **kw),
    "inconsistency": lambda scores, **kw: inconsistency(scores, **kw),
}


@pytest.mark.parametrize("job", sorted(JOBS))
def test_meta_jobs(named, job):
    names, options, default, ours = named
    got = JOBS[job](fm.count(ours, **options).evaluate(MEASURES), **_roles(names))
    expected = JOBS[job](fm.count(default).evaluate(MEASURES))
    _same(got.summary, expected.summary, names)
    if expected.detail is not None:
        _same(got.detail, expected.detail, names)


@pytest.mark.parametrize("job", ["strictness", "inconsistency"])
def test_meta_jobs_once_per_threshold(named, job):
    names, options, default, ours = named
    got = JOBS[job](fm.count(ours, thresholds=[0.4, 0.6, 0.8], **options).evaluate(MEASURES), **_roles(names))
    expected = JOBS[job](fm.count(default, thresholds=[0.4, 0.6, 0.8]).evaluate(MEASURES))
    _same(got.summary, expected.summary, names)


@pytest.mark.parametrize("by", ["both", "system"], ids=["by-system-topic", "topic-hidden"])
@pytest.mark.parametrize("aggregate", ["macro", "micro"])
def test_stability(named, by, aggregate):
    """Grouped by the system alone, the halves are scored from their counts (the topic a hidden
    axis); by both parts, by the fused kernels."""
    names, options, default, ours = named
    own_by, default_by = ((names["system"],), ("system",)) if by == "system" else (None, None)
    kw = dict(measures=("accuracy", "f1"), replicates=12, aggregate=aggregate)
    got = stability(ours, by=own_by, **kw, **options)
    expected = stability(default, by=default_by, **kw)
    _same(got.summary, expected.summary, names)
    _same(got.detail, expected.detail, names)


@pytest.mark.parametrize("method", ["mcnemar", "item-bootstrap"])
@pytest.mark.parametrize("separate_gold", [False, True], ids=["gold-in-runs", "separate-gold"])
def test_item_tests(named, method, separate_gold):
    names, options, default, ours = named
    runs, own_runs, gold, own_gold = default, ours, None, None
    if separate_gold:
        first = default.filter(pa.compute.equal(default.column("system"), "s0"))
        gold = first.select(["topic", "item", "gold"])
        own_gold = gold  # a gold in its own (normalised) names, joined on the runs' topic and item
        runs, own_runs = default.drop_columns(["gold"]), ours.drop_columns([names.get("gold", "gold")])
    columns = {k: v for k, v in options.items() if k != "score"}
    kw = dict(method=method, measures=["f1", "accuracy"], resamples=40)
    got = item_tests(own_runs, own_gold, **kw, **columns).summary
    _same(got, item_tests(runs, gold, **kw).summary, names)


def test_report_data(named):
    names, options, default, ours = named
    kw = dict(thresholds=5, resamples=20, pairs=10)
    columns = {k: v for k, v in options.items() if k != "pred"}
    got = report_data(fm.count(ours, **options), MEASURES, runs=ours, **kw, **columns)
    expected = report_data(fm.count(default), MEASURES, runs=default, **kw)
    assert got.roles.system == names["system"] and got.scores.axes == (names["system"], names["topic"])
    _same(got.board.summary, expected.board.summary, names)
    _same(got.best, expected.best, names)
    assert got.order == expected.order and got.adjacent == expected.adjacent
    for mine, theirs in zip(got.roc, expected.roc):
        assert mine[0] == theirs[0] and mine[3] == theirs[3]
        np.testing.assert_array_equal(mine[1], theirs[1])
    for job in ("strictness", "robustness", "inconsistency"):
        assert getattr(got, job).summary.equals(getattr(expected, job).summary)


# -- the command line ------------------------------------------------------------------------------
COMMANDS = {
    "leaderboard": ["leaderboard", "--measures", "f1,mcc", "--significance", "bootstrap", "--resamples", "30"],
    "leaderboard-items": ["leaderboard", "--measures", "f1", "--significance", "item-bootstrap", "--resamples", "30"],
    "leaderboard-select": ["leaderboard", "--measures", "f1", "--thresholds", "7", "--select", "cross-topic"],
    "strictness": ["meta", "strictness", "--measures", "f1,mcc,accuracy"],
    "robustness": ["meta", "robustness", "--measures", "f1,mcc", "--pairs", "all"],
    "power": ["meta", "power", "--measures", "f1,mcc", "--resamples", "30"],
    "inconsistency": ["meta", "inconsistency", "--measures", "f1,mcc,accuracy"],
    "stability": ["meta", "stability", "--measures", "f1,mcc", "--splits", "8"],
    "sweep-select": ["sweep", "--measures", "f1", "--thresholds", "7", "--select", "cross-topic"],
}
NO_DETAIL = {"leaderboard-select", "inconsistency", "sweep-select"}  # jobs without a detail table


@pytest.fixture(scope="module")
def files(named, tmp_path_factory):
    names, _, default, ours = named
    folder = tmp_path_factory.mktemp("roles")
    pq.write_table(default, folder / "default.parquet")
    pq.write_table(ours, folder / "ours.parquet")
    options = [x for part, name in names.items() for x in (f"--{OPTION[part].replace('_', '-')}", name)]
    return names, folder, options


def _run(capsys, argv) -> str:
    status = main([str(a) for a in argv])
    captured = capsys.readouterr()
    assert status == 0, captured.err
    return captured.out


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_commands_name_their_columns_after_the_users(files, tmp_path, capsys, command):
    names, folder, options = files
    argv = [*COMMANDS[command], "--quiet"] if command != "sweep-select" else COMMANDS[command]
    words = 2 if argv[0] == "meta" else 1
    outputs = {}
    for which, extra in (("default", []), ("ours", options)):
        out, detail = tmp_path / f"{which}.csv", tmp_path / f"{which}-detail.csv"
        more = [] if command in NO_DETAIL else ["--detail", detail]
        _run(capsys, [*argv[:words], folder / f"{which}.parquet", *argv[words:], *extra, "--out", out, *more])
        outputs[which] = [pacsv.read_csv(p) for p in (out, detail) if p.exists()]
    assert len(outputs["ours"]) == len(outputs["default"])
    for got, expected in zip(outputs["ours"], outputs["default"]):
        _same(got, expected, names)


def test_the_printed_leaderboard_is_headed_by_the_users_name(files, capsys):
    names, folder, options = files
    text = _run(capsys, ["leaderboard", folder / "ours.parquet", *options, "--measures", "f1", "--quiet"])
    lines = text.splitlines()
    assert lines[0].startswith("Leaderboard ranked by") and lines[1].startswith("Baselines added")
    assert lines[1 + next(i for i, line in enumerate(lines) if line.startswith(" "))].split()[:2] == [
        "rank",
        names["system"],
    ]
