"""TREC runs and qrels to MAP, MRR@10 and P@10 (issue 27): fastmetrics against reading the run, and
against ranx as a whole process.

A synthetic TREC run of 2,000 queries x 1,000 documents (2M lines ``qid Q0 docno rank score tag``,
string ids such as ``q1042`` and ``doc123456``, scores with ties) and its qrels (100 judged
documents a query, about 60 of them returned, some relevant, every 50th query with none; most
returned documents unjudged) are written to a temporary folder, then timed in the same run:

- ``pyarrow.csv.read_csv`` of the run file, and ``fm.count(run, qrels, format="trec",
  thresholds="ranks", missing="negative", unjudged="negative").evaluate([...])`` (best of 7
  each, after a warm-up call); target: at most 2.5 x the read;
- the ``fastmetrics leaderboard`` command on the files, and a Python process running ranx's
  ``Run.from_file``, ``Qrels.from_file`` and ``evaluate(qrels, run, ["map", "mrr@10",
  "precision@10"])`` (whole processes, best of 3 each); target: ranx / fastmetrics >= 10. The
  scores of both are printed side by side (``--undefined 0``: a query without a relevant document
  counts 0, as ranx counts it);
- with ``--big``: a run of 7,000 queries (7M lines; target <= 5 s) and 100 run files of 100,000
  lines each -- 100 systems over the same 100 queries, as a track's runs are (target: the rate
  per line of the 2M-line run); ``--many`` times only the 100 files.

    python benchmarks/trec_runs.py [--big | --many]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
import pyarrow.csv as pacsv

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from workloads import best_of  # noqa: E402

import fastmetrics as fm  # noqa: E402

REPEAT = 7  # timings of each in-process call, the fastest kept
PROCESS_REPEAT = 3  # of each process (a ranx process takes about 10 s)
MEASURES = ["ranked_ap", "reciprocal_rank(cutoff=10)", "precision_at_k(k=10)"]
DEPTH, JUDGED = 1000, 100
# the modules the leaderboard command loads (the command line imports them in its commands)
START_UP = (
    "import numpy as np, fastmetrics.cli, fastmetrics.board, fastmetrics.count, fastmetrics.report; "
    "from fastmetrics.io.native import text; text.first_field_count(np.zeros(1, np.uint8))"
)
RANX = """
import sys
from ranx import Qrels, Run, evaluate
run = Run.from_file(sys.argv[1], kind="trec")
qrels = Qrels.from_file(sys.argv[2], kind="trec")
print(evaluate(qrels, run, ["map", "mrr@10", "precision@10"]))
"""


def write_runs(folder: str, queries: int, files: int = 1, seed: int = 0) -> tuple[list, str]:
    """``files`` TREC runs -- systems, as a track's run files are -- each of the same ``queries``
    queries x 1,000 documents, and the qrels.

    The first run's documents are drawn as described in the module docstring; every other run
    returns 1,000 of the same query's 1,100 candidates in its own order with its own scores, so
    the runs overlap as runs pooled for judging do.
    """
    rng = np.random.default_rng(seed)
    weights = np.linspace(2, 0.1, DEPTH)
    weights /= weights.sum()
    lines, qrels = [[] for _ in range(files)], []
    for q in range(queries):
        qid = f"q{1000 + q}"
        docs = rng.choice(1_000_000, DEPTH + JUDGED, replace=False)
        returned = docs[:DEPTH]
        top = rng.choice(DEPTH, int(JUDGED * 0.6), replace=False, p=weights)
        judged = np.concatenate([returned[top], docs[DEPTH : DEPTH + JUDGED - top.size]])
        grades = (rng.random(judged.size) < 0.15) * rng.integers(1, 3, judged.size) * (q % 50 != 7)
        qrels.append("".join(f"{qid} 0 doc{d:06d} {g}\n" for d, g in zip(judged, grades)))
        for f in range(files):
            mine = returned if f == 0 else rng.permutation(docs)[:DEPTH]
            scores = np.sort(np.round(rng.normal(10, 3, DEPTH), 2))[::-1]
            lines[f].append(
                "".join(f"{qid} Q0 doc{d:06d} {r} {s:.2f} run{f}\n" for r, (d, s) in enumerate(zip(mine, scores), 1))
            )
    runs = [os.path.join(folder, f"run{f}.txt") for f in range(files)]
    for path, text in zip(runs, lines):
        with open(path, "w") as fh:
            fh.writelines(text)
    with open(os.path.join(folder, "qrels.txt"), "w") as fh:
        fh.writelines(qrels)
    return runs, os.path.join(folder, "qrels.txt")


def fastmetrics_scores(runs, qrels):
    return fm.count(runs, qrels, format="trec", thresholds="ranks", missing="negative", unjudged="negative").evaluate(
        MEASURES
    )


def read_run(path):
    return pacsv.read_csv(
        path,
        read_options=pacsv.ReadOptions(autogenerate_column_names=True),
        parse_options=pacsv.ParseOptions(delimiter=" "),
    )


# Processes start as they do where the packages were installed by pip, which compiles their
# bytecode: an environment that sets PYTHONDONTWRITEBYTECODE (some sandboxes and containers do)
# would otherwise have an editable install compile its sources at every start, 0.3-0.5 s of it.
PROCESS_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def process(command) -> float:
    start = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True, env=PROCESS_ENV)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--big", action="store_true", help="also the 7M-line run and 100 files of 100k lines")
    parser.add_argument("--many", action="store_true", help="only the 2M-line run in Python and the 100 files")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        runs, qrels = write_runs(folder, 2000)
        run = runs[0]
        # seven of each, as compare_peers.py: on a shared 2-core machine a single call varies
        # by up to 2x, and both sides of the ratio get the same number of tries
        read = best_of(lambda: read_run(run), REPEAT)
        fastmetrics_scores(run, qrels)  # compiles (or loads) the kernels
        seconds = best_of(lambda: fastmetrics_scores(run, qrels), REPEAT)
        print(f"2M lines: pyarrow read_csv of the run {read:.3f} s, fm.count + evaluate {seconds:.3f} s")
        print(f"TARGET python: fm.count+evaluate / read_csv = {seconds / read:.2f} (target <= 2.5)")
        if not args.many:
            command_line(folder, run, qrels)
        if args.big:
            big_runs, big_qrels = write_runs(folder, 7000, seed=1)
            big = best_of(lambda: fastmetrics_scores(big_runs[0], big_qrels), 2)
            print(f"TARGET 7M lines: fm.count + evaluate {big:.2f} s (target <= 5 s)")
        if args.big or args.many:
            many_files(folder, seconds / 2e6)


def command_line(folder: str, run: str, qrels: str) -> None:
    """The ``fastmetrics leaderboard`` process beside a ranx process on the same files."""
    board = os.path.join(folder, "board.csv")
    cli = [sys.executable, "-m", "fastmetrics", "leaderboard", run, "--gold", qrels, "--thresholds", "ranks"]
    cli += ["--missing", "negative", "--unjudged", "negative", "--measures", ",".join(MEASURES)]
    cli += ["--undefined", "0", "--quiet", "--out", board]
    process(cli)
    command = best_of(lambda: process(cli), PROCESS_REPEAT)
    table = pacsv.read_csv(board).to_pylist()
    ours = {r["measure"]: r["macro"] for r in table}
    print(f"fastmetrics leaderboard: {command:.2f} s; {ours}")
    floor = best_of(lambda: process([sys.executable, "-c", START_UP]))
    print(f"  of which a process's start-up (python, imports, numba's first cached kernel): {floor:.2f} s")
    try:
        import ranx  # noqa: F401
    except ImportError:
        print("TARGET cli: ranx is not installed")
        return
    script = os.path.join(folder, "ranx_run.py")
    with open(script, "w") as fh:
        fh.write(RANX)
    ranx_command = [sys.executable, script, run, qrels]
    theirs = subprocess.run(ranx_command, check=True, capture_output=True, text=True, env=PROCESS_ENV).stdout.strip()
    peer = best_of(lambda: process(ranx_command), PROCESS_REPEAT)
    print(f"ranx process: {peer:.2f} s; {theirs}")
    print(f"TARGET cli: ranx / fastmetrics leaderboard = {peer / command:.1f} (target >= 10)")


def many_files(folder: str, rate: float) -> None:
    """100 run files (systems) of 100 queries x 1,000 documents, against the 2M-line run's rate."""
    many_folder = os.path.join(folder, "many")
    os.mkdir(many_folder)
    many_runs, many_qrels = write_runs(many_folder, 100, files=100, seed=2)
    fastmetrics_scores(many_runs[:2], many_qrels)
    many = best_of(lambda: fastmetrics_scores(many_runs, many_qrels), 3)
    print(
        f"TARGET 100 files x 100k lines: fm.count + evaluate {many:.2f} s, {many / 1e7 * 1e9:.0f} ns a line "
        f"(2M-line run: {rate * 1e9:.0f} ns a line; target: the same rate)"
    )


if __name__ == "__main__":
    main()
