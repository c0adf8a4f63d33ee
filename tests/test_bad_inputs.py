"""Bad input, one case per row (issue 15, point 7).

Every mistake a user can make on the command line or through the Python API ends the same way:

- command line: exit status 2 and ONE line on stderr, ``fastmetrics: error: ...``, naming the
  culprit (file, column, row, group or option) and what was expected; no output file and no
  temporary file (``.<name>.*.tmp``) left behind;
- Python API: :class:`fastmetrics.InputError` / :class:`fastmetrics.ParameterError` (or
  :class:`fastmetrics.UnknownMeasureError` for a measure name) with the same wording, never a raw
  ``ArrowInvalid``, ``ValueError``, ``TypeError``, ``UFuncTypeError`` or ``IndexError``.

A few inputs that look odd but are valid (numeric system ids, one class, no ``system`` column, run
files with a blank first line or mixed separators) must work and give the right values.

The command-line cases run as subprocesses of the ``fastmetrics`` console script (``python -m
fastmetrics`` has no ``__main__``; ``-m fastmetrics.cli`` is the fallback). To keep the file
fast on two cores the table of command-line cases is run in one batch, a few processes at a
time, the first time one of them is needed; each case gets its own empty working folder. Rows
marked ``slow`` (near-duplicates of other rows) and the exhaustive interruption sweep run with
``--runslow``.

Interruptions (SIGINT, SIGTERM) are sent to a job on a generated multi-million-row Parquet input
while it counts and while it writes, timed from what ``/proc/<pid>/fd`` shows it doing; a hook
loaded through ``sitecustomize`` also raises SIGINT inside the first kernel callback of a stage, the
window where timing alone catches a swallowed Ctrl-C only now and then.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
import pytest

import fastmetrics as fm
from tests._program import run_fastmetrics

# -- how the command line is run ------------------------------------------------------------------

_SCRIPT = Path(sys.executable).with_name("fastmetrics")
CLI = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, "-m", "fastmetrics.cli"]
# a guard against a hang, not a time limit: on a fresh checkout the first commands compile every
# kernel they reach, several at once beside the other worker's tests (a fresh clone's CI once
# passed 120 s on one of them)
TIMEOUT = 600
PARALLEL = 3
RAW_ERRORS = re.compile(
    r"Traceback|ArrowInvalid|ArrowTypeError|ArrowNotImplementedError|UFuncTypeError|"
    r"IndexError|KeyError|AttributeError|numba|\bFile \""
)
PREFIX = "fastmetrics: error: "


def _env(extra: dict | None = None) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "FASTMETRICS_MEMORY_LIMIT"}
    env.update(extra or {})
    return env


def run_cli(argv, cwd, env=None, timeout=TIMEOUT, prefix=()) -> subprocess.CompletedProcess:
    return run_fastmetrics(argv, cwd=cwd, env=_env(env), timeout=timeout, prefix=prefix)


def files_under(folder: Path) -> set:
    """Every file and folder below ``folder`` (hidden ones too), relative."""
    return {str(p.relative_to(folder)) for p in folder.rglob("*")}


def one_error_line(proc) -> str:
    """The single ``fastmetrics: error:`` line of a failed run (asserting there is exactly one)."""
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, f"expected one line on stderr, got {len(lines)}:\n{proc.stderr[-3000:]}"
    line = lines[0]
    assert line.startswith(PREFIX), line
    assert not RAW_ERRORS.search(line), f"a raw error leaks into the message: {line}"
    return line


def read_only_prefix() -> list:
    """A command prefix under which a folder's permission bits hold: as root, setpriv drops
    CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH from the child's capabilities (no preexec_fn: the
    command-line cases run from threads)."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    return [setpriv, "--bounding-set=-dac_override,-dac_read_search", "--"] if setpriv else []


# -- the data ---------------------------------------------------------------------------------------

N_SYS, N_TOP, N_ITEMS = 3, 4, 30
NAN_ROW = 37
DUP_ROW = 50


def _runs_table(seed=0) -> pa.Table:
    rng = np.random.default_rng(seed)
    s, t, i = np.indices((N_SYS, N_TOP, N_ITEMS)).reshape(3, -1)
    return pa.table(
        {
            "system": [f"s{x}" for x in s],
            "topic": [f"t{x}" for x in t],
            "item": i,
            "gold": rng.random(s.size) < 0.4,
            "pred": rng.random(s.size) < 0.5,
            "score": rng.random(s.size),
        }
    )


def _run_lines(rng, topics, items, sep):
    lines = []
    for t in topics:
        for i in items:
            lines.append(
                sep.join([t, f"{t}_i{i}", "0", f"{rng.random():.6f}", "true" if rng.random() < 0.5 else "false"])
            )
    return lines


def make_data(d: Path) -> None:
    rng = np.random.default_rng(7)
    runs = _runs_table()
    pq.write_table(runs, d / "runs.parquet")
    pacsv.write_csv(runs, d / "runs.csv")
    pq.write_table(runs.drop_columns(["pred"]), d / "scores.parquet")  # score only
    pq.write_table(runs.drop_columns(["score"]), d / "hard.parquet")  # pred only

    score = runs.column("score").to_numpy().copy()
    score[NAN_ROW] = np.nan
    pq.write_table(runs.drop_columns(["pred"]).set_column(4, "score", pa.array(score)), d / "nan_score.parquet")
    score = runs.column("score").to_numpy().copy()
    score[NAN_ROW] = np.inf
    pacsv.write_csv(runs.drop_columns(["pred"]).set_column(4, "score", pa.array(score)), d / "inf_score.csv")

    dup = pa.concat_tables([runs, runs.slice(DUP_ROW, 1)])
    pq.write_table(dup, d / "dup.parquet")

    gold = runs.column("gold").to_numpy().astype(np.int64)
    gold[NAN_ROW] = 2
    pq.write_table(runs.set_column(3, "gold", pa.array(gold)).drop_columns(["pred"]), d / "gold012_scores.parquet")
    gold_null = pa.array([None if k == NAN_ROW else bool(v) for k, v in enumerate(runs.column("gold").to_pylist())])
    pq.write_table(runs.set_column(3, "gold", gold_null), d / "gold_null.parquet")

    n = runs.num_rows
    classes = np.array(["neg", "neu", "pos"])
    keys = runs.drop_columns(["gold", "pred", "score"])
    mc = keys.append_column("gold", pa.array(classes[rng.integers(0, 3, n)])).append_column(
        "pred", pa.array(classes[rng.integers(0, 3, n)])
    )
    pq.write_table(mc, d / "multiclass.parquet")
    ints = keys.append_column("gold", pa.array(rng.integers(1, 4, n))).append_column(
        "pred", pa.array(rng.integers(1, 4, n))
    )
    pq.write_table(ints, d / "intlabels.parquet")

    # counts table with a negative count
    counts = pa.table(
        {
            "system": ["a", "a", "b"],
            "topic": ["x", "y", "x"],
            "tp": [3, 1, 2],
            "fp": [1, -2, 0],
            "fn": [0, 1, 1],
            "tn": [5, 5, 5],
        }
    )
    pacsv.write_csv(counts, d / "neg_counts.csv")

    # numeric system ids 0..4 (report must work)
    s, t, i = np.indices((5, 3, 20)).reshape(3, -1)
    numeric = pa.table(
        {
            "system": s,
            "topic": t,
            "item": i,
            "gold": rng.random(s.size) < 0.4,
            "pred": rng.random(s.size) < 0.5,
            "score": rng.random(s.size),
        }
    )
    pacsv.write_csv(numeric, d / "numeric_systems.csv")

    # one class only
    (d / "one_class.csv").write_text(
        "system,topic,item,gold,pred\n" + "".join(f"s{k % 2},t0,{k},1,1\n" for k in range(10))
    )
    # no system (and no topic / item) column
    pacsv.write_csv(pa.table({"gold": runs.column("gold"), "score": runs.column("score")}), d / "no_system.csv")
    pacsv.write_csv(
        pa.table({"item": np.arange(n), "gold": runs.column("gold"), "pred": runs.column("pred")}),
        d / "no_system_hard.csv",
    )

    (d / "empty.csv").write_bytes(b"")
    (d / "header_only.csv").write_text("system,topic,item,gold,pred\n")
    (d / "ragged.csv").write_text("system,topic,item,gold,pred\ns0,t0,1,true,false\ns0,t0,2,true,false,9\n")
    (d / "corrupt.parquet").write_bytes(b"PAR1" + bytes(rng.integers(0, 256, 500, dtype=np.uint8)) + b"PAR1")
    truncated = (d / "runs.parquet").read_bytes()
    (d / "truncated.parquet").write_bytes(truncated[: len(truncated) // 2])
    (d / "emptydir").mkdir()

    # SemEval-style run files and their gold
    topics, items = ["q1", "q2", "q3"], range(8)
    gold_lines = _run_lines(np.random.default_rng(1), topics, items, "\t")
    (d / "gold.txt").write_text("\n".join(gold_lines) + "\n")
    (d / "gold_dup.txt").write_text("\n".join(gold_lines + gold_lines[:1]) + "\n")
    lines = _run_lines(np.random.default_rng(2), topics, items, "\t")
    for folder in ("runs_tab", "runs_blank", "runs_mixed", "runs_short", "runs_extra", "runs_garbage", "runs_empty"):
        (d / folder).mkdir()
    (d / "runs_tab" / "sysA.txt").write_text("\n".join(lines) + "\n")
    (d / "runs_blank" / "sysA.txt").write_text("\n" + "\n".join(lines) + "\n")
    (d / "runs_mixed" / "sysA.txt").write_text("\n".join([lines[0]] + [x.replace("\t", " ") for x in lines[1:]]) + "\n")
    (d / "runs_short" / "sysA.txt").write_text("\n".join(lines[:5] + lines[6:]) + "\n")  # lacks q1_i5
    (d / "runs_extra" / "sysA.txt").write_text("\n".join(lines + ["q1\tq1_i99\t0\t0.5\ttrue"]) + "\n")
    garbage = lines[:3] + ["this line is not a run line"] + lines[3:]
    (d / "runs_garbage" / "sysA.txt").write_text("\n".join(garbage) + "\n")
    (d / "runs_empty" / "sysA.txt").write_text("")

    # 10,000 classes x 200 groups (20 systems x 10 topics x 50 items, every gold label distinct)
    s, t, i = np.indices((20, 10, 50)).reshape(3, -1)
    labels = np.array([f"c{k}" for k in range(s.size)])
    pq.write_table(
        pa.table({"system": s, "topic": t, "item": i, "gold": labels, "pred": labels[::-1]}), d / "many_classes.parquet"
    )

    # cost matrices for the classes neg, neu, pos of multiclass.parquet
    (d / "cost_missing.csv").write_text(",neg,neu\nneg,0,1\nneu,1,0\n")
    (d / "cost_negative.csv").write_text(",neg,neu,pos\nneg,0,1,2\nneu,1,0,-1\npos,2,1,0\n")
    (d / "cost_text.csv").write_text("true,pred,cost\nneg,neu,one\n")

    # multilabel runs (list-typed gold)
    pq.write_table(
        pa.table({"system": ["a", "a"], "item": [1, 2], "gold": [["x"], ["x", "y"]], "pred": [["x"], ["y"]]}),
        d / "multilabel.parquet",
    )
    # multilabel runs without gold, and a separate gold one run's item 2 is missing from
    pq.write_table(
        pa.table({"system": ["a", "a", "b"], "item": [1, 2, 1], "pred": [["x"], ["y"], []]}), d / "ml_runs.parquet"
    )
    pq.write_table(pa.table({"item": [1, 2], "gold": [["x"], ["x", "y"]]}), d / "ml_gold.parquet")

    # saved counts: hard counts; a grid lacking one (group, threshold) row; a 'cell' column with a gap
    pq.write_table(fm.count(runs).to_arrow(), d / "counts.parquet")
    grid = fm.count(runs, thresholds=[0.25, 0.5, 0.75]).to_arrow()
    pacsv.write_csv(grid.slice(1), d / "grid_gap.csv")
    cells = fm.count(runs.slice(0, 40), thresholds="exact").to_arrow()
    pacsv.write_csv(cells.set_column(0, "cell", pa.array(np.arange(cells.num_rows) * 2)), d / "cell_gap.csv")


@pytest.fixture(scope="module")
def data(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("data")
    make_data(d)
    return d


# -- the command-line table -------------------------------------------------------------------------


@dataclass
class Cli:
    """One command line: ``argv`` ({d} = the data folder), the exit status, a regex the single
    stderr line must match, an optional ``setup(workdir)`` and extra environment."""

    id: str
    argv: list
    pattern: str
    code: int = 2
    setup: Callable | None = None
    env: dict = field(default_factory=dict)
    read_only: bool = False
    slow: bool = False


def _mkfile(name):
    def setup(w: Path):
        (w / name).write_text("already here\n")

    return setup


def _mkdir(name, mode=None):
    def setup(w: Path):
        (w / name).mkdir()
        if mode is not None:
            os.chmod(w / name, mode)

    return setup


D = "{d}"
RUNS, CSV, SCORES, HARD = f"{D}/runs.parquet", f"{D}/runs.csv", f"{D}/scores.parquet", f"{D}/hard.parquet"
MC, INTS = f"{D}/multiclass.parquet", f"{D}/intlabels.parquet"
REPORT_FAST = ["--quiet", "--measures", "f1,accuracy,k", "--resamples", "10", "--pairs", "10"]

CLI_CASES = [
    # --- files that are missing, empty or unreadable
    Cli("missing-file", ["evaluate", f"{D}/nope.parquet"], r"nope\.parquet.*(no such file|not found|does not exist)"),
    Cli("missing-glob", ["evaluate", f"{D}/nothing_*.parquet"], r"nothing_\*\.parquet"),
    Cli("empty-folder", ["evaluate", f"{D}/emptydir"], r"emptydir.*(no|empty)"),
    Cli(
        "missing-gold-file",
        ["evaluate", f"{D}/runs_tab", "--gold", f"{D}/nogold.txt"],
        r"nogold\.txt.*(no such file|not found|does not exist)",
    ),
    Cli("empty-csv", ["evaluate", f"{D}/empty.csv"], r"empty\.csv.*(?i:empty|no (data|rows|header|columns))"),
    Cli("header-only-csv", ["evaluate", f"{D}/header_only.csv"], r"(?=.*header_only\.csv)(?=.*no rows)"),
    Cli(
        "ragged-csv",
        ["evaluate", f"{D}/ragged.csv"],
        r"(?=.*ragged\.csv)(?=.*\b5 (columns|fields))(?=.*((row 1|line 3)\b|s0,t0,2,true,false,9))",
    ),
    Cli("corrupt-parquet", ["evaluate", f"{D}/corrupt.parquet"], r"corrupt\.parquet.*(?i:parquet)"),
    Cli("truncated-parquet", ["evaluate", f"{D}/truncated.parquet"], r"truncated\.parquet.*(?i:parquet)", slow=True),
    Cli(
        "empty-run-file",
        ["evaluate", f"{D}/runs_empty", "--gold", f"{D}/gold.txt"],
        r"runs_empty.*sysA\.txt.*(empty|no data)",
    ),
    Cli(
        "garbage-run-line",
        ["evaluate", f"{D}/runs_garbage", "--gold", f"{D}/gold.txt"],
        r"runs_garbage/sysA\.txt.*(line|row) 4.*topic item rank score label",
    ),
    Cli("schemas-differ", ["evaluate", RUNS, MC], r"(?=.*runs\.parquet)(?=.*multiclass\.parquet)(?=.*schema)"),
    # --- columns
    Cli("by-unknown-column", ["evaluate", RUNS, "--by", "system,nosuch"], r"'nosuch'.*group.*columns present"),
    Cli("pred-unknown-column", ["evaluate", HARD, "--pred", "guess"], r"'guess'.*columns present"),
    Cli(
        "score-unknown-column",
        ["evaluate", RUNS, "--score", "prob", "--thresholds", "5"],
        r"(?=.*'prob')(?=.*runs\.parquet)",
    ),
    Cli("no-gold-column", ["evaluate", f"{D}/runs_tab"], r"'gold'.*(--gold|separate gold)"),
    Cli("gold-null", ["evaluate", f"{D}/gold_null.parquet"], rf"'gold'.*gold_null\.parquet.*row {NAN_ROW}\b"),
    Cli(
        "topic-not-in-gold",
        ["evaluate", RUNS, "--gold", f"{D}/no_system_hard.csv", "--by", "system,topic"],
        r"'topic'.*gold",
    ),
    Cli(
        "gold-missing-columns",
        ["evaluate", f"{D}/runs_tab", "--gold", f"{D}/neg_counts.csv"],
        r"(?=.*neg_counts\.csv)(?=.*'item')(?=.*'gold')",
    ),
    Cli(
        "category-unknown",
        ["evaluate", f"{D}/multilabel.parquet", "--category", "nosuch"],
        r"(?=.*'nosuch')(?=.*multilabel\.parquet)",
    ),
    Cli("task-multilabel-on-bool", ["evaluate", RUNS, "--task", "multilabel"], r"'gold'.*bool.*list"),
    Cli(
        "system-unknown-column",
        ["leaderboard", RUNS, "--quiet", "--system", "annotator"],
        r"(?=.*runs\.parquet)(?=.*'annotator')(?=.*--system)",
    ),
    Cli(
        "topic-unknown-column",
        ["meta", "robustness", RUNS, "--topic", "query"],
        r"(?=.*runs\.parquet)(?=.*'query')(?=.*--topic)",
    ),
    Cli("item-unknown-column", ["sweep", RUNS, "--item", "id"], r"(?=.*runs\.parquet)(?=.*'id')(?=.*--item)"),
    Cli("gold-column-unknown", ["report", RUNS, *REPORT_FAST, "--out", "r.md", "--gold-column", "label"], r"'label'"),
    Cli("weight-unknown-column", ["evaluate", RUNS, "--weight", "cost"], r"(?=.*runs\.parquet)(?=.*'cost')"),
    Cli(
        "system-and-topic-one-column",
        ["evaluate", RUNS, "--system", "topic"],
        r"--system and --topic both name the column 'topic'",
    ),
    Cli(
        "gold-file-lacks-named-item",
        ["evaluate", f"{D}/no_system_hard.csv", "--gold", f"{D}/neg_counts.csv", "--item", "item"],
        r"(?=.*neg_counts\.csv)(?=.*'item')",
        slow=True,
    ),
    Cli("leaderboard-by-topic", ["leaderboard", RUNS, "--quiet", "--by", "topic"], r"system.*(--by|by=)", slow=True),
    # --- measures
    Cli(
        "unknown-measure",
        ["evaluate", RUNS, "--measures", "f1,precisoin"],
        r"'precisoin'.*(?i:did you mean).*precision",
    ),
    Cli("bad-average-suffix", ["evaluate", MC, "--measures", "f1@median"], r"(?=.*'median')(?=.*micro)(?=.*macro)"),
    Cli("bad-measure-param", ["evaluate", RUNS, "--measures", "fbeta(beta=abc)"], r"beta.*abc|abc.*beta"),
    Cli("unknown-measure-param", ["evaluate", RUNS, "--measures", "f1(gamma=2)"], r"gamma"),
    Cli("negative-beta", ["evaluate", RUNS, "--measures", "fbeta(beta=-1)"], r"beta.*-1", slow=True),
    Cli("empty-measures", ["evaluate", RUNS, "--measures", ","], r"(?i)measure", slow=True),
    Cli(
        "multiclass-needs-average",
        ["evaluate", MC, "--measures", "precision"],
        r"precision.*(@macro|--average|average)",
    ),
    Cli(
        "samples-average-mcc",
        ["evaluate", f"{D}/multilabel.parquet", "--average", "samples", "--measures", "mcc"],
        r"samples.*'mcc'",
        slow=True,
    ),
    Cli("smoothing-unsmoothable", ["evaluate", RUNS, "--measures", "tp", "--smoothing", "laplace"], r"'tp'.*smooth"),
    Cli("cost-on-binary", ["evaluate", RUNS, "--measures", "k_cost", "--cost", "ordinal"], r"--cost.*multiclass"),
    Cli(
        "cost-file-missing-class",
        ["evaluate", MC, "--measures", "k_cost", "--cost", f"{D}/cost_missing.csv"],
        r"(?=.*cost_missing\.csv)(?=.*lack the classes pos)",
    ),
    Cli(
        "cost-file-negative",
        ["evaluate", MC, "--measures", "k_cost", "--cost", f"{D}/cost_negative.csv"],
        r"cost_negative\.csv.*>= ?0",
    ),
    Cli(
        "cost-file-not-numbers",
        ["evaluate", MC, "--measures", "k_cost", "--cost", f"{D}/cost_text.csv"],
        r"cost_text\.csv.*'cost'.*number",
    ),
    Cli(
        "cost-not-a-file", ["evaluate", MC, "--measures", "k_cost", "--cost", "nope.csv"], r"--cost.*unit.*'nope\.csv'"
    ),
    # --- thresholds
    Cli("thresholds-0", ["evaluate", RUNS, "--thresholds", "0"], r"thresholds.*(>= ?1|positive).*\b0\b"),
    Cli("thresholds-negative", ["evaluate", RUNS, "--thresholds", "-3"], r"thresholds.*-3"),
    Cli("thresholds-abc", ["evaluate", RUNS, "--thresholds", "abc"], r"thresholds.*'abc'"),
    Cli("thresholds-nan", ["evaluate", RUNS, "--thresholds", "nan"], r"thresholds.*finite.*(?i:nan)"),
    Cli("thresholds-list-inf", ["evaluate", RUNS, "--thresholds", "0.2,inf"], r"thresholds.*finite.*inf"),
    Cli(
        "thresholds-huge",
        ["evaluate", RUNS, "--thresholds", "200000000"],
        r"200,?000,?000 thresholds.*\d[\d.,]* ?[GTP]i?B.*fewer thresholds.*--by.*(?i:dask)",
    ),
    Cli(
        "many-classes",
        ["evaluate", f"{D}/many_classes.parquet"],
        r"200 groups.*10,?000 x 10,?000 classes.*\d[\d.,]* ?[GTP]i?B.*fewer classes.*--by.*(?i:dask)",
    ),
    Cli(
        "sweep-grid-needs-k",
        ["sweep", RUNS, "--thresholds", "0.5", "--grid", "system"],
        r"--grid system.*--thresholds k",
    ),
    Cli("select-needs-grid", ["leaderboard", RUNS, "--select", "cross-topic"], r"--select cross-topic.*--thresholds k"),
    Cli(
        "item-tests-on-a-sweep",
        ["leaderboard", RUNS, "--measures", "roc_auc", "--thresholds", "exact", "--significance", "item-bootstrap"],
        r"--significance item-bootstrap.*hard predictions.*--thresholds",
    ),
    Cli(
        "sweep-select-exact",
        ["sweep", RUNS, "--thresholds", "exact", "--select", "split-half"],
        r"--select split-half.*grid.*--thresholds k",
    ),
    Cli(
        "ranking-measure-on-hard-counts", ["evaluate", RUNS, "--measures", "ranked_ap"], r"ranked_ap.*thresholds.*ranks"
    ),
    Cli("sweep-no-score", ["sweep", HARD], r"(?=.*'score')(?=.*hard\.parquet)"),
    Cli(
        "multiclass-with-thresholds",
        ["evaluate", MC, "--task", "multiclass", "--thresholds", "5"],
        r"(?i)multiclass.*(pred|hard)",
    ),
    # --- label values
    Cli(
        "nan-score",
        ["evaluate", f"{D}/nan_score.parquet", "--thresholds", "5"],
        rf"'score'.*nan_score\.parquet.*(?i:nan).*row {NAN_ROW}\b.*finite",
    ),
    Cli(
        "inf-score-exact",
        ["evaluate", f"{D}/inf_score.csv"],
        rf"'score'.*inf_score\.csv.*inf.*row {NAN_ROW}\b",
        slow=True,
    ),
    Cli("duplicate-item", ["evaluate", f"{D}/dup.parquet"], "set below"),
    Cli("non-binary-gold-with-scores", ["evaluate", f"{D}/gold012_scores.parquet"], r"'gold'.*\b2\b.*binary"),
    Cli("task-binary-on-multiclass", ["evaluate", MC, "--task", "binary"], r"'(gold|pred)'.*'(neg|neu|pos)'.*binary"),
    Cli("classes-on-int-labels", ["evaluate", INTS, "--classes", "a,b"], r"classes.*\(a, b\).*int.*(gold|pred)"),
    Cli("classes-on-bool-labels", ["evaluate", RUNS, "--classes", "a,b"], r"classes.*\(a, b\).*bool.*(gold|pred)"),
    Cli("classes-incomplete", ["evaluate", MC, "--classes", "neg,neu"], r"'pos'.*classes given"),
    Cli("classes-duplicate", ["evaluate", MC, "--classes", "neg,neu,neg,pos"], r"classes.*duplicate"),
    Cli("negative-count", ["evaluate", f"{D}/neg_counts.csv"], r"(?=.*'fp')(?=.*neg_counts\.csv)(?=.*row 1\b)(?=.*-2)"),
    Cli(
        "multilabel-with-gold",
        ["evaluate", f"{D}/multilabel.parquet", "--gold", f"{D}/gold.txt"],
        r"(?i)multilabel.*gold",
    ),
    # --- saved counts (fastmetrics count) and multilabel runs joined to a separate gold
    Cli("count-out-json", ["count", RUNS, "--out", "c.json"], r"\.parquet or \.csv.*c\.json"),
    Cli(
        "count-multilabel",
        ["count", f"{D}/multilabel.parquet", "--out", "c.parquet"],
        r"(?i)multilabel counts are not saved.*tp, fp, fn, tn",
    ),
    Cli("counts-swept", ["sweep", f"{D}/counts.parquet"], r"counts\.parquet.*without thresholds.*--thresholds"),
    Cli(
        "count-csv-class-order",
        ["count", MC, "--classes", "pos,neu,neg", "--out", "c.csv"],
        r"CSV.*class order \(pos, neu, neg\).*\.parquet.*--classes",
    ),
    Cli("counts-cell-gap", ["evaluate", f"{D}/cell_gap.csv"], r"'cell'.*cell_gap\.csv.*0, 1, 2"),
    Cli(
        "counts-with-gold",
        ["evaluate", f"{D}/counts.parquet", "--gold", f"{D}/gold.txt"],
        r"counts\.parquet.*table of counts.*counted already.*--gold",
    ),
    Cli("counts-grid-gap", ["evaluate", f"{D}/grid_gap.csv"], r"grid_gap\.csv.*row per group and threshold.*'cell'"),
    Cli(
        "multilabel-gold-lacks-run-item",
        ["evaluate", f"{D}/ml_runs.parquet", "--gold", f"{D}/ml_gold.parquet"],
        r"Run \(system='b'\) lacks gold items, e\.g\. item 2.*--missing negative",
    ),
    # --- gold joins and --missing
    Cli(
        "run-lacks-gold-item",
        ["evaluate", f"{D}/runs_short", "--gold", f"{D}/gold.txt"],
        r"(?=.*runs_short/sysA)(?=.*q1_i5)(?=.*--missing)",
    ),
    Cli("run-item-unknown-to-gold", ["evaluate", f"{D}/runs_extra", "--gold", f"{D}/gold.txt"], r"q1_i99.*gold"),
    Cli("gold-duplicate", ["evaluate", f"{D}/runs_tab", "--gold", f"{D}/gold_dup.txt"], r"gold.*q1_i0.*more than once"),
    Cli(
        "missing-bad-policy",
        ["evaluate", f"{D}/runs_short", "--gold", f"{D}/gold.txt", "--missing", "ignore"],
        r"--missing.*'ignore'.*error.*negative.*drop",
    ),
    # --- output files
    Cli(
        "out-read-only-folder",
        ["evaluate", RUNS, "--out", "ro/out.csv"],
        r"ro/out\.csv.*(?i:permission|read-only)",
        setup=_mkdir("ro", 0o555),
        read_only=True,
    ),
    Cli("out-is-folder", ["evaluate", RUNS, "--out", "existing"], r"existing.*folder", setup=_mkdir("existing")),
    Cli("out-missing-folder", ["evaluate", RUNS, "--out", "nowhere/out.csv"], r"nowhere.*does not exist"),
    Cli("out-unknown-suffix", ["evaluate", RUNS, "--out", "out.xlsx"], r"(?=.*out\.xlsx)(?=.*\.parquet)(?=.*\.csv)"),
    Cli(
        "detail-without-tests",
        ["leaderboard", RUNS, "--quiet", "--detail", "detail.csv", "--out", "board.csv"],
        r"--detail|--significance",
    ),
    Cli(
        "detail-is-folder",
        [
            "leaderboard",
            RUNS,
            "--quiet",
            "--significance",
            "fisher",
            "--resamples",
            "10",
            "--detail",
            "existing",
            "--out",
            "board.csv",
        ],
        r"existing.*folder",
        setup=_mkdir("existing"),
    ),
    Cli(
        "curves-read-only",
        ["sweep", RUNS, "--thresholds", "5", "--curves", "ro/curves.csv", "--out", "best.csv"],
        r"ro/curves\.csv.*(?i:permission|read-only)",
        setup=_mkdir("ro", 0o555),
        read_only=True,
        slow=True,
    ),
    Cli(
        "report-figures-is-file",
        ["report", RUNS, *REPORT_FAST, "--out", "report.html", "--figures", "figs"],
        r"figs.*(not a folder|is a file)",
        setup=_mkfile("figs"),
    ),
    Cli(
        "report-out-is-folder",
        ["report", RUNS, *REPORT_FAST, "--out", "existing"],
        r"existing.*folder",
        setup=_mkdir("existing"),
    ),
    Cli("report-no-out", ["report", RUNS, "--quiet"], r"--out"),
    Cli(
        "report-bad-suffix",
        ["report", RUNS, *REPORT_FAST, "--out", "report.pdf"],
        r"(?=.*report\.pdf)(?=.*\.html)(?=.*\.md)",
        slow=True,
    ),
    Cli(
        "axioms-out-is-folder",
        ["axioms", "f1", "--n-max", "4", "--properties", "sym", "--out", "existing"],
        r"existing.*folder",
        setup=_mkdir("existing"),
    ),
    # --- options with values out of their domain
    Cli("seed-negative", ["leaderboard", RUNS, "--seed", "-1"], r"--seed.*(>= ?0|non-negative).*-1"),
    Cli("seed-text", ["meta", "robustness", RUNS, "--seed", "abc"], r"--seed.*'abc'", slow=True),
    Cli(
        "resamples-zero",
        ["leaderboard", RUNS, "--quiet", "--significance", "bootstrap", "--resamples", "0"],
        r"resamples.*\b0\b",
    ),
    Cli("resamples-text", ["leaderboard", RUNS, "--resamples", "many"], r"--resamples.*'many'", slow=True),
    Cli("pairs-zero", ["meta", "robustness", RUNS, "--pairs", "0"], r"--pairs.*positive.*'0'"),
    Cli("pairs-text", ["meta", "robustness", RUNS, "--pairs", "lots"], r"--pairs.*'lots'", slow=True),
    Cli("splits-zero", ["meta", "stability", RUNS, "--quiet", "--splits", "0"], r"--splits.*\b0\b"),
    Cli(
        "alpha-out-of-range",
        ["meta", "power", RUNS, "--quiet", "--alpha", "1.5", "--resamples", "10"],
        r"alpha.*1\.5",
        slow=True,
    ),
    Cli("tolerance-negative", ["meta", "inconsistency", RUNS, "--tolerance", "-1"], r"tolerance.*>= ?0.*-1", slow=True),
    Cli("stability-scheduler", ["meta", "stability", RUNS, "--scheduler", "local"], r"--scheduler"),
    Cli("scheduler-two-inputs", ["evaluate", RUNS, CSV, "--scheduler", "local"], r"--scheduler.*one"),
    Cli("scheduler-bad-local", ["evaluate", RUNS, "--scheduler", "local:zero"], r"local:zero|'local:N'|local:N"),
    Cli(
        "scheduler-unjudged",
        ["evaluate", RUNS, "--scheduler", "local", "--unjudged", "negative"],
        r"--unjudged negative.*--scheduler|--unjudged has no effect without a --gold",
    ),
    Cli("unjudged-bad-choice", ["evaluate", RUNS, "--unjudged", "zero"], r"--unjudged.*'zero'"),
    Cli(
        "report-thresholds-zero",
        ["report", RUNS, *REPORT_FAST, "--out", "r.html", "--thresholds", "0"],
        r"--thresholds.*positive.*'0'",
    ),
    Cli(
        "report-scatter-no-colon",
        ["report", RUNS, *REPORT_FAST, "--out", "r.html", "--scatter", "f1"],
        r"--scatter.*a:b.*'f1'",
    ),
    Cli(
        "report-scatter-unknown",
        ["report", RUNS, *REPORT_FAST, "--out", "r.html", "--scatter", "f1:nope"],
        r"nope",
        slow=True,
    ),
    Cli("memory-limit-bad", ["--memory-limit", "lots", "evaluate", RUNS], r"(?i)memory.*'lots'"),
    Cli(
        "memory-limit-env-bad",
        ["evaluate", RUNS],
        r"FASTMETRICS_MEMORY_LIMIT.*'lots'",
        env={"FASTMETRICS_MEMORY_LIMIT": "lots"},
    ),
    Cli("axioms-unknown-measure", ["axioms", "nope"], r"'nope'"),
    Cli("axioms-unknown-property", ["axioms", "f1", "--properties", "sym,bogus"], r"'bogus'.*known"),
    Cli("axioms-n-max-small", ["axioms", "f1", "--n-max", "1"], r"n.max.*>= ?2.*1"),
    Cli("axioms-classes-one", ["axioms", "mcc", "--classes", "1"], r"--classes.*(>= ?2|at least 2).*\b1\b"),
    # --- usage mistakes (argparse)
    Cli("unknown-subcommand", ["evaluat", RUNS], r"'evaluat'.*evaluate"),
    Cli("unknown-option", ["evaluate", RUNS, "--bogus"], r"--bogus"),
    Cli("no-inputs", ["evaluate"], r"inputs"),
    Cli("unknown-format", ["measures", "--format", "xml"], r"--format.*'xml'.*md.*csv.*json"),
    Cli("axioms-unknown-format", ["axioms", "f1", "--format", "csv"], r"--format.*'csv'", slow=True),
    Cli("unknown-task", ["evaluate", RUNS, "--task", "ternary"], r"--task.*'ternary'"),
    Cli("unknown-average", ["evaluate", RUNS, "--average", "median"], r"--average.*'median'"),
    Cli("undefined-text", ["evaluate", RUNS, "--undefined", "zero"], r"--undefined.*'zero'", slow=True),
    Cli("unknown-meta-job", ["meta", "fairness", RUNS], r"'fairness'.*strictness"),
    Cli("unknown-significance", ["leaderboard", RUNS, "--significance", "ttest"], r"--significance.*'ttest'"),
    Cli("unknown-smoothing", ["evaluate", RUNS, "--smoothing", "add-one"], r"--smoothing.*'add-one'", slow=True),
]
# a duplicated (system, topic, item): the message names the file, both rows and the key
_dup = _runs_table().slice(DUP_ROW, 1).to_pylist()[0]
for _case in CLI_CASES:
    if _case.id == "duplicate-item":
        _case.pattern = (
            rf"(?=.*dup\.parquet)(?=.*'{_dup['system']}')(?=.*'{_dup['topic']}')(?=.*\b{_dup['item']}\b)"
            rf"(?=.*row {DUP_ROW}\b)(?=.*row {N_SYS * N_TOP * N_ITEMS}\b)"
        )


@pytest.fixture(scope="module")
def cli_results(request, data, tmp_path_factory):
    """Run every selected command-line case once, ``PARALLEL`` at a time; ``{id: (proc, before,
    after, workdir)}``."""
    runslow = request.config.getoption("--runslow", default=False)
    selected = [
        item.callspec.params["case"]
        for item in request.session.items
        if getattr(item, "originalname", None) == "test_cli_error"
        and item.module is request.module
        and hasattr(item, "callspec")
        and (runslow or item.get_closest_marker("slow") is None)
    ]
    root = tmp_path_factory.mktemp("cli")

    def one(case: Cli):
        w = root / case.id
        w.mkdir()
        if case.setup:
            case.setup(w)
        before = files_under(w)
        argv = [a.replace("{d}", str(data)) for a in case.argv]
        proc = run_cli(argv, cwd=w, env=case.env, prefix=read_only_prefix() if case.read_only else ())
        return case.id, (proc, before, files_under(w), w)

    data_before = files_under(data)
    with ThreadPoolExecutor(PARALLEL) as pool:
        results = dict(pool.map(one, selected))
    results["<data>"] = (data_before, files_under(data))
    return results


def _probe_read_only(folder: Path) -> bool:
    """Whether a process started like the case is refused writing into ``folder``."""
    code = f"open({str(folder / 'probe')!r}, 'w')"
    return subprocess.run([*read_only_prefix(), sys.executable, "-c", code], capture_output=True).returncode != 0


@pytest.mark.parametrize(
    "case", [pytest.param(c, id=c.id, marks=[pytest.mark.slow] if c.slow else []) for c in CLI_CASES]
)
def test_cli_error(case: Cli, cli_results):
    proc, before, after, workdir = cli_results[case.id]
    if case.read_only and not _probe_read_only(workdir / "ro"):
        pytest.skip("cannot make a folder read-only for a child process here")
    assert proc.returncode == case.code, f"exit status {proc.returncode}; stderr:\n{proc.stderr[-3000:]}"
    line = one_error_line(proc)
    assert re.search(case.pattern, line), f"message does not name the culprit ({case.pattern!r}): {line}"
    assert after == before, f"files left behind: {sorted(after - before)}"


def test_cli_cases_leave_nothing_beside_the_inputs(cli_results):
    data_before, data_after = cli_results["<data>"]
    assert data_after == data_before, f"files left beside the inputs: {sorted(data_after - data_before)}"


# -- valid inputs that must work --------------------------------------------------------------------


@pytest.mark.parametrize("out", ["report.md", pytest.param("report.html", marks=pytest.mark.slow)])
def test_report_on_numeric_system_ids(data, tmp_path, out):
    """Systems 0..4 read from CSV as integers: the report is written (exit 0), all five ranked."""
    proc = run_cli(["report", data / "numeric_systems.csv", *REPORT_FAST, "--out", out], cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    text = (tmp_path / out).read_text()
    for system in range(5):
        cell = rf"\|\s*{system}\s*\|" if out.endswith(".md") else rf"<td[^>]*>\s*{system}\s*</td>"
        assert re.search(cell, text), f"system {system} missing from the report's table"
    assert not [p for p in os.listdir(tmp_path) if p.endswith(".tmp")]


def test_one_class_binary_labels_work(data, tmp_path):
    """Gold and predictions all positive: binary, accuracy 1 (not a refusal, not NaN)."""
    proc = run_cli(
        ["evaluate", data / "one_class.csv", "--measures", "accuracy,recall", "--out", "s.csv"], cwd=tmp_path
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    table = pacsv.read_csv(tmp_path / "s.csv")
    values = dict(zip(table.column("measure").to_pylist(), table.column("value").to_pylist()))
    assert set(table.column("system").to_pylist()) == {"s0", "s1"}
    assert table.filter(pc.equal(table.column("measure"), "accuracy")).column("value").to_pylist() == [1.0, 1.0]
    assert values["recall"] == 1.0


def test_one_class_binary_labels_api():
    for labels in ([1] * 6, [True] * 6, [0] * 6):
        t = fm.count(pd.DataFrame({"system": ["a"] * 6, "item": range(6), "gold": labels, "pred": labels}))
        assert t.m == 2 and t.counts.sum() == 6
        assert t.evaluate("accuracy")["accuracy"].tolist() == [1.0]


@pytest.mark.parametrize("folder", ["runs_blank", "runs_mixed"])
def test_run_file_layouts_read_like_tabs(data, tmp_path, folder):
    """A run file whose first line is blank, or whose first line has tabs and the others spaces,
    is read whole: the same counts as the all-tabs file."""
    expected = fm.count(str(data / "runs_tab"), gold=str(data / "gold.txt")).counts
    assert expected.sum() == 24
    got = fm.count(str(data / folder), gold=str(data / "gold.txt"))
    np.testing.assert_array_equal(got.counts, expected)
    proc = run_cli(
        [
            "evaluate",
            data / folder,
            "--gold",
            data / "gold.txt",
            "--measures",
            "accuracy",
            "--by",
            "system",
            "--out",
            "s.csv",
        ],
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    accuracy = (expected[..., 0, 0].sum() + expected[..., 1, 1].sum()) / expected.sum()
    assert pacsv.read_csv(tmp_path / "s.csv").column("value").to_pylist() == [pytest.approx(accuracy)]


def test_no_system_column_api():
    """gold and score only: one system, one topic, an exact sweep over the scores."""
    rng = np.random.default_rng(0)
    y, s = rng.random(40) < 0.5, rng.random(40)
    t = fm.count(pd.DataFrame({"gold": y, "score": s}))
    assert t.counts.sum(axis=(-2, -1)).max() == 40  # every cell counts all 40 items
    values = t.evaluate("recall")["recall"]
    assert np.nanmax(values) == 1.0  # the lowest threshold: all positive
    table = t.evaluate("recall").to_arrow()
    if "system" in table.column_names:
        assert len(set(table.column("system").to_pylist())) == 1
    h = fm.count(pd.DataFrame({"gold": y, "pred": s >= 0.5}))
    assert h.counts.sum() == 40
    assert h.evaluate("accuracy")["accuracy"].ravel().tolist() == [pytest.approx(np.mean(y == (s >= 0.5)))]


@pytest.mark.parametrize("name", ["no_system.csv", "no_system_hard.csv"])
def test_no_system_column_cli(data, tmp_path, name):
    proc = run_cli(["evaluate", data / name, "--measures", "accuracy", "--out", "s.csv"], cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    table = pacsv.read_csv(tmp_path / "s.csv")
    assert table.num_rows >= 1 and set(table.column("measure").to_pylist()) == {"accuracy"}
    if "system" in table.column_names:
        assert len(set(table.column("system").to_pylist())) == 1
    if name == "no_system_hard.csv":
        runs = _runs_table()
        expected = np.mean(runs.column("gold").to_numpy() == runs.column("pred").to_numpy())
        assert table.column("value").to_pylist() == [pytest.approx(expected)]


@pytest.mark.parametrize("missing, rows", [("negative", 24), ("drop", 23)])
def test_missing_policies_count_the_gold(data, tmp_path, missing, rows):
    """A run lacking a gold item: counted as predicted negative, or left out, as asked."""
    t = fm.count(str(data / "runs_short"), gold=str(data / "gold.txt"), missing=missing)
    assert t.counts.sum() == rows
    accuracy = (t.counts[..., 0, 0].sum() + t.counts[..., 1, 1].sum()) / rows
    proc = run_cli(
        [
            "evaluate",
            data / "runs_short",
            "--gold",
            data / "gold.txt",
            "--missing",
            missing,
            "--measures",
            "accuracy",
            "--by",
            "system",
            "--out",
            "s.csv",
        ],
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert pacsv.read_csv(tmp_path / "s.csv").column("value").to_pylist() == [pytest.approx(accuracy)]


@pytest.mark.parametrize("command", ["leaderboard", "report"])
def test_scores_only_ranked_or_refused_clearly(data, tmp_path, command):
    """Scores without hard predictions: counted on a default grid, or refused with what to add --
    never the internal 'got axes ('cell',)'."""
    out = "board.csv" if command == "leaderboard" else "report.html"
    proc = run_cli(
        [command, data / "scores.parquet", "--quiet", "--measures", "f1,accuracy,k", "--out", out], cwd=tmp_path
    )
    assert "axes ('cell',)" not in proc.stderr
    if proc.returncode == 0:
        assert (tmp_path / out).stat().st_size > 0
        return
    assert proc.returncode == 2, proc.stderr[-3000:]
    line = one_error_line(proc)
    assert re.search(r"'pred'.*(score >= |--pred|sweep)", line), line
    assert os.listdir(tmp_path) == []


# -- the Python API ---------------------------------------------------------------------------------


def _table(**over):
    base = {
        "system": ["a"] * 4 + ["b"] * 4,
        "topic": ["x", "x", "y", "y"] * 2,
        "item": [1, 2, 3, 4] * 2,
        "gold": [True, False, True, False] * 2,
        "pred": [True, True, False, False] * 2,
        "score": [0.9, 0.6, 0.4, 0.1, 0.8, 0.3, 0.7, 0.2],
    }
    base.update(over)
    return pa.table({k: v for k, v in base.items() if v is not None})


def _tensor():
    return fm.count(_table(), by=("system", "topic"))


def _multiclass_tensor():
    return fm.count(_table(gold=["a", "b", "c", "a"] * 2, pred=["a", "c", "c", "b"] * 2, score=None))


def _scores():
    return _tensor().evaluate(["f1", "accuracy"])


C22 = np.array([[5, 1], [2, 7]])
IE, PE, UE = fm.InputError, fm.ParameterError, fm.UnknownMeasureError

API_CASES = [
    # count(): labels, classes, columns
    (
        "count-classes-on-int-labels",
        lambda d: fm.count(_table(gold=[1, 2, 3, 1] * 2, pred=[1, 2, 2, 3] * 2, score=None), classes=["a", "b"]),
        IE,
        r"classes.*\(a, b\).*int.*gold",
    ),
    (
        "count-classes-on-bool-labels",
        lambda d: fm.count(_table(score=None), classes=["a", "b"]),
        IE,
        r"classes.*\(a, b\).*bool",
    ),
    ("count-missing-file", lambda d: fm.count(str(d / "nope.parquet")), IE, r"nope\.parquet.*no such file"),
    ("count-unsupported-object", lambda d: fm.count(12345), IE, r"int.*expected a path"),
    ("count-bad-format", lambda d: fm.count(str(d / "runs.parquet"), format="xlsx"), (IE, PE), r"format.*'xlsx'"),
    ("count-by-unknown", lambda d: fm.count(_table(), by=("system", "nosuch")), IE, r"'nosuch'.*columns present"),
    ("count-no-pred-no-score", lambda d: fm.count(_table(pred=None, score=None)), IE, r"'pred'.*'score'"),
    ("count-no-gold", lambda d: fm.count(_table(gold=None)), IE, r"'gold'"),
    ("count-missing-policy", lambda d: fm.count(_table(), missing="ignore"), PE, r"'missing'.*'ignore'"),
    ("count-task", lambda d: fm.count(_table(), task="ternary"), PE, r"'task'.*'ternary'"),
    ("count-thresholds-0", lambda d: fm.count(_table(), thresholds=0), PE, r"'thresholds'.*\b0\b"),
    ("count-thresholds-neg", lambda d: fm.count(_table(), thresholds=-3), PE, r"'thresholds'.*-3"),
    ("count-thresholds-str", lambda d: fm.count(_table(), thresholds="abc"), PE, r"'thresholds'.*'abc'"),
    ("count-thresholds-nan", lambda d: fm.count(_table(), thresholds=[0.5, float("nan")]), PE, r"'thresholds'.*finite"),
    ("count-thresholds-empty", lambda d: fm.count(_table(), thresholds=[]), PE, r"'thresholds'.*non-empty"),
    ("count-thresholds-float", lambda d: fm.count(_table(), thresholds=2.5), PE, r"'thresholds'.*2\.5"),
    ("count-thresholds-bool", lambda d: fm.count(_table(), thresholds=True), PE, r"'thresholds'.*True"),
    (
        "count-nan-score",
        lambda d: fm.count(_table(pred=None, score=[0.1, np.nan] * 4), thresholds=5),
        IE,
        r"'score'.*nan.*row 1\b",
    ),
    (
        "count-duplicate",
        lambda d: fm.count(_table(item=[1, 2, 3, 3, 1, 2, 3, 4], topic=["x"] * 8)),
        IE,
        r"'a'.*\b3\b.*row.*\b2\b.*\b3\b",
    ),
    (
        "count-non-binary-gold-scores",
        lambda d: fm.count(_table(gold=[0, 1, 2, 0] * 2, pred=None)),
        IE,
        r"'gold'.*\b2\b.*binary",
    ),
    ("count-null-pred", lambda d: fm.count(_table(pred=[True, None, False, False] * 2)), IE, r"'pred'.*null.*row 1\b"),
    ("count-weight-negative", lambda d: fm.count(_table(w=[1.0, -1.0] * 4), weight="w"), IE, r"'w'.*-1.*row 1\b"),
    ("count-weight-missing", lambda d: fm.count(_table(), weight="w"), IE, r"'w'"),
    ("count-coords-unknown", lambda d: fm.count(_table(), coords={"system": ["a"]}), IE, r"'system'.*'b'"),
    ("count-empty-table", lambda d: fm.count(_table().slice(0, 0)), IE, r"no rows"),
    (
        "count-gold-missing-items",
        lambda d: fm.count(str(d / "runs_short"), gold=str(d / "gold.txt")),
        IE,
        r"runs_short/sysA.*q1_i5.*missing|q1_i5.*runs_short/sysA",
    ),
    (
        "count-multiclass-missing-negative",
        lambda d: fm.count(
            _table(gold=None, pred=["a", "b", "c", "a"] * 2, score=None, topic=None),
            gold=pa.table({"item": [1, 2, 3, 4, 5], "gold": ["a", "b", "c", "a", "b"]}),
            missing="negative",
        ),
        PE,
        r"missing.*negative.*multiclass",
    ),
    (
        "count-mixed-object-column",
        lambda d: fm.count(pd.DataFrame({"system": ["a", "a"], "item": [1, 2], "gold": [1, "x"], "pred": [1, 0]})),
        IE,
        r"(?i)gold|convert",
    ),
    ("count-weight-text", lambda d: fm.count(_table(w=["x"] * 8), weight="w"), IE, r"'w'.*(?i:weight|number)"),
    ("count-coords-not-mapping", lambda d: fm.count(_table(), coords="system"), PE, r"coords.*'system'"),
    (
        "count-many-classes-memory",
        lambda d: fm.count(str(d / "many_classes.parquet")),
        PE,
        r"200 groups.*10,?000 x 10,?000 classes.*[GTP]i?B",
    ),
    ("read-gold-missing", lambda d: fm.read_gold(str(d / "nogold.txt")), IE, r"nogold\.txt"),
    # compute()
    (
        "compute-out-wrong-shape",
        lambda d: fm.compute("f1", counts=np.ones((3, 2, 2)), out=np.empty(2)),
        PE,
        r"out.*\(3,\).*\(2,\)",
    ),
    (
        "compute-out-int",
        lambda d: fm.compute("f1", counts=np.ones((3, 2, 2)), out=np.empty(3, int)),
        PE,
        r"out.*float64.*int64",
    ),
    (
        "compute-out-list",
        lambda d: fm.compute("f1", counts=np.ones((3, 2, 2)), out=[0.0, 0.0, 0.0]),
        PE,
        r"out.*float64.*list",
    ),
    ("compute-complex-counts", lambda d: fm.compute("f1", counts=np.ones((2, 2), complex)), IE, r"counts.*complex"),
    ("compute-complex-tp", lambda d: fm.compute("f1", tp=1 + 2j, fp=1, fn=1, tn=1), IE, r"'tp'.*complex"),
    ("compute-string-counts", lambda d: fm.compute("f1", tp="3", fp=1, fn=1, tn=1), IE, r"'tp'.*(numeric|<U1|str)"),
    ("compute-negative", lambda d: fm.compute("f1", tp=-1, fp=1, fn=1, tn=1), IE, r"'tp'.*non-negative.*-1"),
    ("compute-nan", lambda d: fm.compute("f1", tp=np.nan, fp=1, fn=1, tn=1), IE, r"'tp'.*finite"),
    ("compute-broadcast", lambda d: fm.compute("f1", tp=[1, 2], fp=[1, 2, 3], fn=1, tn=1), IE, r"tp\(2,\).*fp\(3,\)"),
    ("compute-ragged-counts", lambda d: fm.compute("f1", counts=[[1, 2], [3]]), IE, r"'counts'"),
    ("compute-missing-count", lambda d: fm.compute("f1", tp=1, fp=1), PE, r"fn.*tn"),
    ("compute-both-forms", lambda d: fm.compute("f1", tp=1, fp=1, fn=1, tn=1, counts=C22), PE, r"counts=.*tp="),
    ("compute-shape", lambda d: fm.compute("f1", counts=np.ones((2, 3))), IE, r"\(\.\.\., (2, 2|m, m)\).*\(2, 3\)"),
    ("compute-unknown", lambda d: fm.compute("precisoin", counts=C22), UE, r"'precisoin'.*precision"),
    ("compute-bad-beta", lambda d: fm.compute("fbeta", counts=C22, beta=-1), PE, r"beta.*-1"),
    ("compute-unknown-param", lambda d: fm.compute("f1", counts=C22, gamma=2), PE, r"gamma"),
    (
        "compute-bad-average",
        lambda d: fm.compute("f1", counts=np.ones((3, 3)), average="median"),
        PE,
        r"average.*'median'",
    ),
    (
        "compute-multiclass-no-average",
        lambda d: fm.compute("precision", counts=np.ones((3, 3))),
        PE,
        r"precision.*average",
    ),
    (
        "compute-bad-smoothing",
        lambda d: fm.compute("precision", counts=C22, smoothing="add-one"),
        PE,
        r"smoothing.*'add-one'",
    ),
    (
        "compute-bad-undefined",
        lambda d: fm.compute("precision", counts=C22, undefined="zero"),
        PE,
        r"'undefined'.*'zero'",
    ),
    (
        "compute-k-cost-shape",
        lambda d: fm.compute("k_cost", counts=np.ones((3, 3)), cost=np.ones((2, 2))),
        (IE, PE),
        r"cost.*\(3, 3\).*\(2, 2\)|cost.*\(2, 2\).*\(3, 3\)",
    ),
    ("ordinal-costs-zero", lambda d: fm.ordinal_costs(0), (IE, PE), r"\b0\b"),
    # tensors and scores
    ("evaluate-none", lambda d: _tensor().evaluate(None), PE, r"measures must be.*None"),
    ("evaluate-int", lambda d: _tensor().evaluate(3), PE, r"measures must be.*\b3\b"),
    ("evaluate-empty", lambda d: _tensor().evaluate([]), PE, r"(?i)at least one measure"),
    ("evaluate-unknown", lambda d: _tensor().evaluate(["f1", "nope"]), UE, r"'nope'"),
    ("evaluate-bad-suffix", lambda d: _multiclass_tensor().evaluate("f1@median"), PE, r"median"),
    (
        "evaluate-cost-multiclass-shape",
        lambda d: _multiclass_tensor().evaluate("k_cost", cost=np.ones((2, 2))),
        (IE, PE),
        r"cost",
    ),
    ("tensor-sum-unknown-axis", lambda d: _tensor().sum("nosuch"), PE, r"'nosuch'.*system.*topic"),
    (
        "counts-table-duplicate-group",
        lambda d: fm.count(
            pa.table({"system": ["a", "a"], "topic": [1, 1], "tp": [1, 2], "fp": [0, 0], "fn": [0, 0], "tn": [3, 3]})
        ),
        IE,
        r"Duplicated \(system, topic\).*system='a', topic=1.*2 times",
    ),
    (
        "multilabel-empty",
        lambda d: fm.count(
            pa.table(
                {
                    "system": pa.array([], pa.string()),
                    "gold": pa.array([], pa.list_(pa.string())),
                    "pred": pa.array([], pa.list_(pa.string())),
                }
            )
        ),
        IE,
        r"no rows",
    ),
    ("tensor-select-unknown-label", lambda d: _tensor().sel(system="zz"), PE, r"'zz'.*known.*a.*b"),
    # concat and merge of counts
    (
        "concat-labels-held-twice",
        lambda d: _tensor().concat(_tensor().sel(system=["b"]), axis="system"),
        PE,
        r"Part 1 holds system 'b' already held.*merge",
    ),
    ("concat-unknown-axis", lambda d: _tensor().concat(_tensor(), axis="lang"), PE, r"'lang'.*system, topic"),
    (
        "merge-other-classes",
        lambda d: _multiclass_tensor().merge(
            fm.count(_table(gold=["a", "b", "d", "a"] * 2, pred=["a"] * 8, score=None))
        ),
        PE,
        r"Part 1 has classes \(a, b, d\); the first has \(a, b, c\).*classes=",
    ),
    (
        "merge-other-grid",
        lambda d: fm.count(_table(), thresholds=[0.2, 0.5]).merge(fm.count(_table(), thresholds=[0.3, 0.5])),
        PE,
        r"Part 1.*other thresholds \(0\.3, 0\.5\).*\(0\.2, 0\.5\)",
    ),
    ("merge-other-axes", lambda d: _tensor().merge(fm.count(_table(), by="system")), PE, r"Part 1 has axes \(system\)"),
    (
        "merge-ranks",
        lambda d: fm.count(_table(), thresholds="ranks").merge(fm.count(_table(), thresholds="ranks")),
        PE,
        r"ranks.*do not merge",
    ),
    ("merge-not-a-tensor", lambda d: _tensor().merge(5), PE, r"Part 1 is a int"),
    (
        "merge-multilabel-and-binary",
        lambda d: fm.count(str(d / "multilabel.parquet")).merge(_tensor()),
        PE,
        r"(?i)multilabel counts combine only with multilabel",
    ),
    ("counts-with-gold", lambda d: fm.count(str(d / "counts.parquet"), gold=_table()), IE, r"counted already"),
    (
        "multilabel-gold-not-lists",
        lambda d: fm.count(str(d / "ml_runs.parquet"), gold=pa.table({"item": [1, 2], "gold": [True, False]})),
        IE,
        r"'gold' of the gold has type bool.*list of categories",
    ),
    (
        "multilabel-gold-lacks-run-item",
        lambda d: fm.count(str(d / "ml_runs.parquet"), gold=pa.table({"item": [1], "gold": [["x"]]})),
        IE,
        r"gold lacks the run item \(system='a', item=2\)",
    ),
    (
        "multilabel-gold-duplicate",
        lambda d: fm.count(str(d / "ml_runs.parquet"), gold=pa.table({"item": [1, 1, 2], "gold": [["x"], [], []]})),
        IE,
        r"gold has \(item\) = \(item=1\) more than once",
    ),
    ("scores-unknown-measure", lambda d: _scores()["mcc"], PE, r"'mcc'.*f1.*accuracy"),
    # meta and board
    (
        "leaderboard-bad-significance",
        lambda d: fm.board.leaderboard(_tensor(), ["f1"], significance="ttest"),
        PE,
        r"'ttest'",
    ),
    (
        "leaderboard-zero-resamples",
        lambda d: fm.board.leaderboard(_tensor(), ["f1"], significance="bootstrap", resamples=0),
        PE,
        r"resamples.*\b0\b",
    ),
    (
        "leaderboard-negative-seed",
        lambda d: fm.board.leaderboard(_tensor(), ["f1"], significance="bootstrap", seed=-1),
        PE,
        r"seed.*-1",
    ),
    ("robustness-pairs-zero", lambda d: fm.meta.robustness(_scores(), pairs=0), PE, r"pairs.*\b0\b"),
    ("robustness-seed-float", lambda d: fm.meta.robustness(_scores(), seed=1.5), PE, r"seed.*1\.5"),
    ("power-alpha", lambda d: fm.meta.power(_scores(), alpha=2.0), PE, r"alpha.*\(0, 1\).*2\.0"),
    ("robustness-of-a-tensor", lambda d: fm.meta.robustness(_tensor()), PE, r"(?i)scores.*evaluate|evaluate.*scores"),
    ("inconsistency-tolerance", lambda d: fm.meta.inconsistency(_scores(), tolerance=-1), PE, r"tolerance.*-1"),
    ("strictness-one-measure", lambda d: fm.meta.strictness(_tensor().evaluate("f1")), PE, r"at least two"),
    (
        "stability-replicates-zero",
        lambda d: fm.meta.stability(_table(), measures=["f1"], replicates=0),
        PE,
        r"replicates.*\b0\b",
    ),
]


@pytest.mark.parametrize("call, expected, pattern", [c[1:] for c in API_CASES], ids=[c[0] for c in API_CASES])
def test_api_error(call, expected, pattern, data, tmp_path):
    before = set(os.listdir(tmp_path))
    with pytest.raises(Exception) as info:
        call(data)
    exc = info.value
    assert isinstance(exc, expected), f"raised {type(exc).__module__}.{type(exc).__name__}: {exc}"
    message = str(exc)
    assert re.search(pattern, message), f"message does not name the culprit ({pattern!r}): {message}"
    assert not RAW_ERRORS.search(message), message
    assert set(os.listdir(tmp_path)) == before


SAME_WORDING = [
    ("missing-file", lambda d: fm.count(str(d / "nope.parquet"))),
    ("nan-score", lambda d: fm.count(str(d / "nan_score.parquet"), thresholds=5)),
    ("duplicate-item", lambda d: fm.count(str(d / "dup.parquet"))),
    ("gold-null", lambda d: fm.count(str(d / "gold_null.parquet"))),
    ("classes-on-int-labels", lambda d: fm.count(str(d / "intlabels.parquet"), classes=["a", "b"])),
    ("run-lacks-gold-item", lambda d: fm.count(str(d / "runs_short"), gold=str(d / "gold.txt"))),
    ("thresholds-huge", lambda d: fm.count(str(d / "runs.parquet"), thresholds=200_000_000)),
    ("negative-count", lambda d: fm.count(str(d / "neg_counts.csv"))),
    ("counts-grid-gap", lambda d: fm.count(str(d / "grid_gap.csv"))),
    ("multilabel-gold-lacks-run-item", lambda d: fm.count(str(d / "ml_runs.parquet"), gold=str(d / "ml_gold.parquet"))),
]


@pytest.mark.parametrize("case_id, call", SAME_WORDING, ids=[c[0] for c in SAME_WORDING])
def test_cli_and_api_say_the_same(case_id, call, data, cli_results, tmp_path):
    """The command line prints the Python API's message (on one line): one wording per mistake."""
    if case_id in cli_results:
        proc = cli_results[case_id][0]
    else:
        case = next(c for c in CLI_CASES if c.id == case_id)
        proc = run_cli([a.replace("{d}", str(data)) for a in case.argv], cwd=tmp_path, env=case.env)
    with pytest.raises(fm.FastmetricsError) as info:
        call(data)
    # the memory available is measured twice: it may differ in its last digit
    available = re.compile(r"\(\d[\d.,]* [KMGT]iB\)")
    api = PREFIX + " ".join(str(info.value).split())
    assert available.sub("(…)", proc.stderr.strip()) == available.sub("(…)", api)


def test_by_as_one_string():
    """by="system" (a string, not a tuple): grouped by that column, or refused naming 'by' --
    not read as the columns 's', 'y', 's', 't', 'e', 'm'."""
    try:
        t = fm.count(_table(), by="system")
    except fm.FastmetricsError as exc:
        assert isinstance(exc, fm.ParameterError) and re.search(r"'by'.*'system'", str(exc)), str(exc)
        return
    assert t.axes == ("system",) and t.counts.sum() == 8


def test_compute_out_is_filled_and_returned():
    """The valid ``out=`` still works (the error cases above are not a blanket refusal)."""
    out = np.empty(3)
    assert fm.compute("f1", counts=np.ones((3, 2, 2)), out=out) is out
    np.testing.assert_allclose(out, 0.5)


# -- Dask: a bad row reported in one line -----------------------------------------------------------


def test_nan_score_on_dask_is_one_line(data, tmp_path):
    """A NaN score counted on a local Dask cluster: one line naming the score column and the row,
    no worker logs on stderr."""
    pytest.importorskip("distributed")
    proc = run_cli(
        ["evaluate", data / "nan_score.parquet", "--scheduler", "local:1", "--thresholds", "5", "--out", "s.csv"],
        cwd=tmp_path,
    )
    assert proc.returncode == 2, proc.stderr[-3000:]
    line = one_error_line(proc)
    assert re.search(rf"'score'.*(?i:nan).*row {NAN_ROW}\b", line), line
    assert os.listdir(tmp_path) == []


# -- interruptions ----------------------------------------------------------------------------------
#
# A job is started on a generated Parquet input (a few million rows, 2,000 groups, 500
# thresholds: about half a second of reading and counting, then a multi-million-row CSV written for
# about a second). What it is doing is read from /proc/<pid>/fd: the input open = reading and
# counting; a file open in the output folder (a hidden .tmp name, or an unnamed O_TMPFILE shown as
# '<folder>/#<inode> (deleted)') = writing. The signal is sent at a given delay after that point.
# If the job had ended before the signal could take effect the test is skipped, never failed; a job
# that goes on for a long time after the signal and then reports success has swallowed it.


def _write_big(path: Path, rows: int, groups: int) -> None:
    rng = np.random.default_rng(5)
    n_sys = max(1, groups // 20)
    table = pa.table(
        {
            "system": rng.integers(0, n_sys, rows).astype(np.int32),
            "topic": rng.integers(0, 20, rows).astype(np.int32),
            "gold": rng.random(rows) < 0.3,
            "score": rng.random(rows),
        }
    )
    pq.write_table(table, path, row_group_size=1 << 18)


@pytest.fixture(scope="module")
def big_input(tmp_path_factory):
    path = tmp_path_factory.mktemp("big") / "big.parquet"
    _write_big(path, rows=4_000_000, groups=2000)
    return path


def _open_paths(pid: int) -> list:
    out = []
    try:
        for fd in os.listdir(f"/proc/{pid}/fd"):
            try:
                out.append(os.readlink(f"/proc/{pid}/fd/{fd}"))
            except OSError:
                pass
    except OSError:
        pass
    return out


def _wait_for(proc, condition, timeout=60.0) -> bool:
    """Poll until ``condition()`` or the process ends; True if the condition was met while running."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if proc.poll() is not None:
            return False
        if condition():
            return True
        time.sleep(0.002)
    return False


RACE = 0.15  # a job that exits 0 within this time of the signal may simply have been done


def _interrupt(big: Path, workdir: Path, sig: int, phase: str, delay: float = 0.0):
    """Start a long job, send ``sig`` ``delay`` seconds into ``phase`` ('counting' or 'writing'),
    and return (exit status, stderr); skip if the job ended before the signal could act."""
    if not Path("/proc/self/fd").exists():
        pytest.skip("needs /proc to see what the job is doing")
    out = workdir / "scores.csv"
    proc = subprocess.Popen(
        CLI
        + [
            "evaluate",
            str(big),
            "--by",
            "system,topic",
            "--thresholds",
            "500",
            "--measures",
            "f1,accuracy,mcc,k",
            "--out",
            str(out),
        ],
        cwd=workdir,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_env(),
    )
    try:
        if phase == "counting":
            seen = _wait_for(proc, lambda: str(big.resolve()) in _open_paths(proc.pid))
        else:

            def writing():
                return any(p.startswith(str(workdir.resolve()) + os.sep) for p in _open_paths(proc.pid)) or any(
                    n.endswith(".tmp") for n in os.listdir(workdir)
                )

            seen = _wait_for(proc, writing)
        time.sleep(delay)
        if not seen or proc.poll() is not None:
            proc.communicate(timeout=TIMEOUT)
            pytest.skip(f"the job ended before it could be interrupted while {phase}")
        proc.send_signal(sig)
        sent = time.monotonic()
        stdout, stderr = proc.communicate(timeout=TIMEOUT)
        after = time.monotonic() - sent
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    if proc.returncode == 0 and after < RACE and "Traceback" not in stderr:
        pytest.skip(f"the job completed {after:.2f} s after the signal: too close to tell ({phase})")
    assert proc.returncode != 0, (
        f"{signal.Signals(sig).name} sent while {phase} was swallowed: the job went on "
        f"for {after:.1f} s and exited 0; stderr:\n{stderr[-3000:]}"
    )
    return proc.returncode, stderr


def _assert_interrupted(code, stderr, workdir, big, sig):
    if sig == signal.SIGINT:
        assert code == 130, stderr[-3000:]
        assert stderr.splitlines() == ["fastmetrics: interrupted"], stderr[-3000:]
    else:
        assert code in (143, 130), stderr[-3000:]
        lines = stderr.splitlines()
        assert len(lines) == 1 and re.fullmatch(r"fastmetrics: (terminated|interrupted)", lines[0]), stderr[-3000:]
    assert os.listdir(workdir) == [], "output or temporary file left behind"
    assert sorted(os.listdir(big.parent)) == ["big.parquet"]


@pytest.mark.parametrize(
    "sig, phase, delay",
    [
        pytest.param(signal.SIGINT, "counting", 0.0, id="SIGINT-counting-0ms"),
        pytest.param(signal.SIGINT, "counting", 0.05, id="SIGINT-counting-50ms", marks=pytest.mark.slow),
        pytest.param(signal.SIGINT, "counting", 0.3, id="SIGINT-counting-300ms", marks=pytest.mark.slow),
        pytest.param(signal.SIGINT, "writing", 0.0, id="SIGINT-writing"),
        pytest.param(signal.SIGTERM, "counting", 0.05, id="SIGTERM-counting-50ms"),
        pytest.param(signal.SIGTERM, "writing", 0.0, id="SIGTERM-writing"),
    ],
)
def test_interrupt_leaves_nothing(big_input, tmp_path, sig, phase, delay):
    code, stderr = _interrupt(big_input, tmp_path, sig, phase, delay)
    _assert_interrupted(code, stderr, tmp_path, big_input, sig)


# A signal handled while the main thread runs a ctypes callback (numba loading or compiling a kernel
# calls back into Python through llvmlite) raises KeyboardInterrupt inside the callback, where ctypes
# prints "Exception ignored" and drops it: the job then runs to its end and exits 0. The timing tests
# above hit that window now and then; this hook hits it every time, by raising SIGINT from inside the
# first such callback of a stage (counting: fastmetrics/count, evaluating: fastmetrics/measures).
SIGINT_HOOK = """
import os, signal, traceback
_stage = os.environ.get("FASTMETRICS_TEST_SIGINT_IN")
if _stage:
    try:
        from llvmlite.binding import executionengine as _ee
        _original = _ee.ExecutionEngine.set_object_cache
    except (ImportError, AttributeError):
        _original = None
    if _original is not None:
        _fired = []

        def set_object_cache(self, notify_func=None, getbuffer_func=None):
            if notify_func is not None:
                inner = notify_func

                def notify_func(module, buf):
                    if not _fired and any(_stage in f.filename for f in traceback.extract_stack()):
                        _fired.append(True)
                        open(os.environ["FASTMETRICS_TEST_MARKER"], "w").close()
                        os.kill(os.getpid(), signal.SIGINT)
                    return inner(module, buf)
            return _original(self, notify_func, getbuffer_func)

        _ee.ExecutionEngine.set_object_cache = set_object_cache
"""


@pytest.mark.parametrize("stage", ["counting", "evaluating"])
def test_sigint_inside_a_kernel_callback(data, tmp_path, stage):
    hook = tmp_path / "hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(SIGINT_HOOK)
    work = tmp_path / "work"
    work.mkdir()
    marker = tmp_path / "fired"
    where = os.sep.join(["fastmetrics", "count" if stage == "counting" else "measures", ""])
    path = os.pathsep.join([str(hook)] + ([os.environ["PYTHONPATH"]] if os.environ.get("PYTHONPATH") else []))
    proc = run_cli(
        ["evaluate", data / "runs.parquet", "--thresholds", "5", "--out", "scores.csv"],
        cwd=work,
        env={"PYTHONPATH": path, "FASTMETRICS_TEST_SIGINT_IN": where, "FASTMETRICS_TEST_MARKER": str(marker)},
    )
    if not marker.exists():
        pytest.skip(f"no kernel callback while {stage} in this version (nothing to interrupt there)")
    assert proc.returncode == 130, f"exit status {proc.returncode}; stderr:\n{proc.stderr[-3000:]}"
    assert proc.stderr.splitlines() == ["fastmetrics: interrupted"], proc.stderr[-3000:]
    assert os.listdir(work) == [], "output or temporary file left behind"


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
@pytest.mark.parametrize("delay", [round(0.1 * k, 1) for k in range(12)])
def test_interrupt_anywhere_while_counting(tmp_path_factory, tmp_path, sig, delay):
    """Every 100 ms of a longer job (20M rows): the same clean end wherever the signal lands."""
    folder = tmp_path_factory.getbasetemp() / "big20m"
    big = folder / "big.parquet"
    if not big.exists():
        folder.mkdir(exist_ok=True)
        _write_big(big, rows=20_000_000, groups=2000)
    code, stderr = _interrupt(big, tmp_path, sig, "counting", delay)
    _assert_interrupted(code, stderr, tmp_path, big, sig)
