"""The command line: outputs, and one clear error (exit status 2, no file left) per bad input."""

import json

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
import pytest

from tests._program import run_fastmetrics


def run(*args, cwd=None):
    return run_fastmetrics(args, cwd=cwd, module="fastmetrics.cli")


@pytest.fixture()
def runs_file(tmp_path):
    rng = np.random.default_rng(3)
    s, t, i = np.indices((2, 3, 20)).reshape(3, -1)
    table = pa.table(
        {
            "system": [f"s{x}" for x in s],
            "topic": [f"t{x}" for x in t],
            "item": i,
            "gold": rng.random(s.size) < 0.4,
            "pred": rng.random(s.size) < 0.5,
            "score": rng.normal(size=s.size),
        }
    )
    path = tmp_path / "runs.parquet"
    pq.write_table(table, path)
    return path, table


@pytest.mark.parametrize("suffix", [".parquet", ".csv", ".json", ".md"])
def test_evaluate_writes_each_format(runs_file, tmp_path, suffix):
    path, table = runs_file
    out = tmp_path / f"out{suffix}"
    proc = run("evaluate", path, "--measures", "f1,k,fbeta(beta=2)", "--out", out)
    assert proc.returncode == 0, proc.stderr
    text = out.read_bytes()
    if suffix == ".parquet":
        result = pq.read_table(out)
        assert result.column_names == ["system", "topic", "measure", "value"]
        assert result.num_rows == 3 * 2 * 3
        assert set(result.column("measure").to_pylist()) == {"f1", "k", "fbeta(beta=2)"}
    elif suffix == ".json":
        rows = json.loads(text)
        assert len(rows) == 18 and set(rows[0]) == {"system", "topic", "measure", "value"}
    elif suffix == ".csv":
        assert pacsv.read_csv(out).num_rows == 18
    else:
        assert text.decode().startswith("| system | topic | measure | value |")


def test_evaluate_threshold_sweep_prints_table(runs_file):
    path, _ = runs_file
    proc = run("evaluate", path, "--measures", "recall", "--thresholds", "5")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].split() == ["system", "topic", "threshold", "recall"]
    assert len(lines) == 2 + 2 * 3 * 5


def test_measures_catalog_lists_registry():
    proc = run("measures", "--format", "json")
    assert proc.returncode == 0
    names = {row["name"] for row in json.loads(proc.stdout)}
    assert {"k", "proficiency", "mcc", "f1", "jaccard"} <= names
    md = run("measures").stdout
    assert md.splitlines()[0].startswith("| name | aliases | formula")


def test_demo_prints_the_leaderboard(tmp_path):
    """The one leaderboard (fm.board.leaderboard): systems ranked by K's macro mean (competition
    ranks), then the baselines, under lines saying what it ranks by and which baselines it adds;
    --out writes the board as printed, --long its tidy table."""
    proc = run("demo", "--data-dir", tmp_path / "demo", "--out", tmp_path / "board.csv", "--long")
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "demo" / "runs.parquet").exists()
    heading, lines = proc.stdout.splitlines()[:3], proc.stdout.splitlines()[2:]
    assert heading[0].startswith("Leaderboard ranked by the macro mean over topics of k (the first default measure")
    assert heading[1].startswith("Baselines added (rank 'baseline'): placebo (all positive), zero (all negative)")
    assert lines[1].split()[0] == "k" and set(lines[1].split()[1]) == {"-"}
    assert lines[2].split()[:5] == ["rank", "system", "macro", "micro", "topics"]
    body = [line.split() for line in lines[4:27]]
    assert [r[0] for r in body] == [str(i) for i in range(1, 21)] + ["baseline"] * 3
    assert [r[1] for r in body[20:]] == ["placebo", "zero", "random"]
    macro_k = [float(r[2]) for r in body[:20]]
    assert macro_k == sorted(macro_k, reverse=True)
    rows = pacsv.read_csv(tmp_path / "board.csv").to_pylist()
    k = {r["system"]: r for r in rows if r["measure"] == "k" and r["kind"] == "system"}
    assert len(rows) == 4 * 23 and len(k) == 20
    assert {r[1]: int(r[0]) for r in body[:20]} == {s: r["rank"] for s, r in k.items()}
    proc = run("demo", "--data-dir", tmp_path / "demo", "--out", tmp_path / "board.csv", "--rank-by", "mcc")
    rows = pacsv.read_csv(tmp_path / "board.csv").to_pylist()
    assert [r["system"] for r in rows[:20]] == [r[1] for r in sorted(body[:20], key=lambda r: -float(r[5]))]
    assert "of mcc (--rank-by" in proc.stdout
    # deterministic generator: a second run writes the same file
    first = pq.read_table(tmp_path / "demo" / "runs.parquet")
    run("demo", "--data-dir", tmp_path / "demo")
    assert pq.read_table(tmp_path / "demo" / "runs.parquet").equals(first)


# --- bad input: each a one-line error, exit status 2, and no output file -----------------------


def _write(tmp_path, table, name="bad.parquet"):
    path = tmp_path / name
    if name.endswith(".parquet"):
        pq.write_table(table, path)
    else:
        pacsv.write_csv(table, path)
    return path


def _bad_cases(tmp_path, runs_file):
    path, table = runs_file
    gold_file = tmp_path / "gold.txt"
    gold_file.write_text("t0\ti0\t0\t0\ttrue\nt0\ti1\t0\t0\tfalse\nt0\ti2\t0\t0\ttrue\n")
    run_file = tmp_path / "team" / "run1.txt"
    run_file.parent.mkdir()
    run_file.write_text("t0\ti0\t0\t0.9\ttrue\nt0\ti1\t0\t0.2\tfalse\n")  # lacks t0/i2
    truncated = tmp_path / "team2" / "run.txt"
    truncated.parent.mkdir()
    truncated.write_text("t0\ti0\t0\t0.9\ttrue\nt0\ti1\t0\n")
    corrupt = tmp_path / "corrupt.parquet"
    corrupt.write_bytes(pq_bytes(table)[:200])
    nonbinary = table.set_column(table.column_names.index("gold"), "gold", pa.array(np.arange(table.num_rows) % 3))
    scores = table.column("score").to_numpy().copy()
    scores[7] = np.nan
    with_nan = table.set_column(table.column_names.index("score"), "score", pa.array(scores))
    duplicated = pa.concat_tables([table, table.slice(5, 1)])
    return {
        "missing column": (
            [_write(tmp_path, table.drop_columns(["gold"]), "nogold.parquet")],
            [],
            "missing the required column 'gold'",
        ),
        "non-binary gold": (
            [_write(tmp_path, nonbinary, "nonbinary.parquet")],
            ["--task", "binary"],
            "Column 'gold' has non-binary values (e.g. 2) but task='binary' was asked",
        ),
        "multiclass f1 without average": (
            [_write(tmp_path, nonbinary, "nonbinary.parquet")],
            ["--measures", "f1"],
            "'f1' has no native multiclass definition",
        ),
        "nan score": (
            [_write(tmp_path, with_nan, "nan.parquet")],
            ["--thresholds", "5"],
            "non-finite value nan at row 7",
        ),
        "duplicated item": ([_write(tmp_path, duplicated, "dup.parquet")], [], "Duplicated (system, topic, item)"),
        "missing gold items": ([run_file], ["--gold", gold_file], "lacks 1 of the 3 gold item(s)"),
        "unknown measure": ([path], ["--measures", "f1,mcc_macro_typo,precison"], "Unknown measure"),
        "empty input": ([_write(tmp_path, table.slice(0, 0), "empty.csv")], [], "no rows"),
        "truncated file": ([truncated], [], "Cannot read run file"),
        "corrupt parquet": ([corrupt], [], "Cannot read Parquet"),
        "no such file": ([tmp_path / "nope.parquet"], [], "no such file"),
    }


def pq_bytes(table):
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink)
    return sink.getvalue().to_pybytes()


CASES = [
    "missing column",
    "non-binary gold",
    "multiclass f1 without average",
    "nan score",
    "duplicated item",
    "missing gold items",
    "unknown measure",
    "empty input",
    "truncated file",
    "corrupt parquet",
    "no such file",
]


@pytest.mark.parametrize("case", CASES)
def test_bad_input_is_one_clear_line(case, tmp_path, runs_file):
    inputs, options, message = _bad_cases(tmp_path, runs_file)[case]
    out = tmp_path / "result.parquet"
    proc = run("evaluate", *inputs, *options, "--out", out)
    assert proc.returncode == 2, proc.stderr
    err = proc.stderr.strip()
    assert len(err.splitlines()) == 1, err
    assert err.startswith("fastmetrics: error:")
    assert message in err
    assert not out.exists()
    assert not list(tmp_path.glob(".result.parquet.*"))


def test_unknown_measure_suggests_close_names(runs_file):
    path, _ = runs_file
    proc = run("evaluate", path, "--measures", "precison")
    assert proc.returncode == 2
    assert "Did you mean: precision" in proc.stderr


def test_missing_negative_and_drop(tmp_path):
    gold = tmp_path / "gold.txt"
    gold.write_text("t0\ti0\t0\t0\ttrue\nt0\ti1\t0\t0\tfalse\nt0\ti2\t0\t0\ttrue\n")
    run_file = tmp_path / "team" / "run1.txt"
    run_file.parent.mkdir()
    run_file.write_text("t0\ti0\t0\t0.9\ttrue\nt0\ti1\t0\t0.2\tfalse\n")
    neg = run("evaluate", run_file, "--gold", gold, "--measures", "recall", "--out", tmp_path / "n.json")
    assert neg.returncode == 2
    neg = run(
        "evaluate",
        run_file,
        "--gold",
        gold,
        "--measures",
        "recall",
        "--missing",
        "negative",
        "--out",
        tmp_path / "n.json",
    )
    assert neg.returncode == 0, neg.stderr
    assert json.loads((tmp_path / "n.json").read_text())[0]["value"] == 0.5  # i2 counted as a false negative
    drop = run(
        "evaluate", run_file, "--gold", gold, "--measures", "recall", "--missing", "drop", "--out", tmp_path / "d.json"
    )
    assert drop.returncode == 0, drop.stderr
    assert json.loads((tmp_path / "d.json").read_text())[0]["value"] == 1.0


def test_evaluate_with_smoothing(runs_file, tmp_path):
    path, _ = runs_file
    out = tmp_path / "s.json"
    proc = run("evaluate", path, "--measures", "f1,lam", "--smoothing", "laplace", "--out", out)
    assert proc.returncode == 0, proc.stderr
    rows = json.loads(out.read_text())
    assert all(r["value"] is not None for r in rows)
    bad = run("evaluate", path, "--measures", "tp", "--smoothing", "laplace")
    assert bad.returncode == 2 and "cannot be smoothed" in bad.stderr


def _multiclass_file(tmp_path):
    rng = np.random.default_rng(11)
    scale = np.array(["neg", "neu", "pos", "great"])
    gold = scale[rng.integers(0, 4, 400)]
    pred = np.where(rng.random(400) < 0.5, gold, scale[rng.integers(0, 4, 400)])
    table = pa.table(
        {"system": np.where(np.arange(400) < 200, "a", "b"), "item": np.arange(400), "gold": gold, "pred": pred}
    )
    path = tmp_path / "sentiment.parquet"
    pq.write_table(table, path)
    return path, table.to_pandas()


def test_evaluate_multiclass_with_ordinal_costs(tmp_path):
    from sklearn.metrics import confusion_matrix, f1_score

    path, df = _multiclass_file(tmp_path)
    out = tmp_path / "mc.csv"
    order = "neg,neu,pos,great"
    result = run(
        "evaluate",
        str(path),
        "--measures",
        "accuracy,f1@macro,k_cost",
        "--cost",
        "ordinal",
        "--classes",
        order,
        "--out",
        str(out),
    )
    assert result.returncode == 0, result.stderr
    rows = pacsv.read_csv(out).to_pylist()
    values = {(r["system"], r["measure"]): r["value"] for r in rows}
    for system, group in df.groupby("system"):
        assert values[(system, "f1@macro")] == pytest.approx(f1_score(group.gold, group.pred, average="macro"))
        c = confusion_matrix(group.gold, group.pred, labels=order.split(","))
        # eq. 11 written out: |i - j| costs, recall credit 1 - |i - j| / max_j |i - j|
        rho = [sum(c[i, j] * (1 - abs(i - j) / max(i, 3 - i)) for j in range(4)) / c[i].sum() for i in range(4)]
        assert values[(system, "k_cost")] == pytest.approx(4 / 3 * np.mean(rho) - 1 / 3)


def test_evaluate_multiclass_defaults_and_cost_errors(tmp_path, runs_file):
    path, _ = _multiclass_file(tmp_path)
    result = run("evaluate", str(path))
    assert result.returncode == 0, result.stderr
    for name in ("accuracy", "balanced_accuracy", "f1@macro", "cohen_kappa", "mcc", "k"):
        assert name in result.stdout
    result = run("evaluate", str(runs_file[0]), "--measures", "k_cost", "--cost", "ordinal")
    assert result.returncode == 2 and "--cost applies to multiclass" in result.stderr


def test_evaluate_multilabel_long_form(tmp_path):
    table = pa.table(
        {
            "item": [1, 1, 2, 3, 3],
            "category": ["x", "y", "x", "y", "z"],
            "gold": [True, False, True, True, True],
            "pred": [True, True, False, True, False],
        }
    )
    path = tmp_path / "long.parquet"
    pq.write_table(table, path)
    result = run("evaluate", str(path), "--category", "category", "--measures", "precision,recall,f1@samples")
    assert result.returncode == 0, result.stderr
    # gold sets {x}, {x}, {y, z}; predicted {x, y}, {}, {y}: 2 shared of 3 predicted and 4 gold
    assert "0.6667" in result.stdout and "0.5000" in result.stdout


@pytest.mark.parametrize("option", ["--measures", "--rank-by"])
def test_leaderboard_names_a_misspelt_measure_before_reading_the_runs(tmp_path, monkeypatch, capsys, option):
    # as evaluate does: the runs are not read (here they could not be) before the measures are checked
    from fastmetrics.cli import leaderboard, main

    monkeypatch.setattr(leaderboard, "open_runs", lambda args: pytest.fail("read the runs first"))
    given = ["--measures", "f1", "--rank-by", "mrr@10"] if option == "--rank-by" else ["--measures", "map,mrr@10"]
    assert main(["leaderboard", str(tmp_path / "runs"), *given]) == 2
    err = capsys.readouterr().err
    assert "Unknown measure 'mrr'" in err and len(err.splitlines()) == 1
    assert main(["leaderboard", str(tmp_path / "runs"), "--measures", "f1", "--rank-by", "f1,precision"]) == 2
    assert "--rank-by takes one measure" in capsys.readouterr().err


def test_a_signal_while_modules_import_starts_no_import(monkeypatch, capsys):
    # SIGTERM landing inside numpy's import ran an import from the handler, which met the
    # half-imported numpy: a traceback and exit 1 instead of one line and 143
    import signal
    import sys

    from fastmetrics.cli import process

    monkeypatch.delitem(sys.modules, "fastmetrics.report.tables", raising=False)
    monkeypatch.delitem(sys.modules, "fastmetrics.report", raising=False)
    exits = []
    monkeypatch.setattr(process.os, "_exit", exits.append)
    process.on_signal(signal.SIGTERM, None)
    assert exits == [143] and "fastmetrics.report.tables" not in sys.modules
    assert capsys.readouterr().err == "fastmetrics: terminated\n"


def test_a_signal_while_the_writer_imports_stops_at_once(monkeypatch, capsys):
    # the writer's module is in sys.modules from its first line, before it defines `writing`
    import signal
    import sys
    import types

    from fastmetrics.cli import process

    monkeypatch.setitem(sys.modules, "fastmetrics.report.tables", types.ModuleType("fastmetrics.report.tables"))
    exits = []
    monkeypatch.setattr(process.os, "_exit", exits.append)
    process.on_signal(signal.SIGINT, None)
    assert exits == [130] and capsys.readouterr().err == "fastmetrics: interrupted\n"
