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
  per line of the 2M-line run); ``--many`` times only the 100 files;
- the spelling table: the same 2M-line run and qrels once per id spelling of a real collection
  (``workloads.SPELLINGS``: TREC disks ``LA010189-0001`` and ``FBIS3-10082``, ClueWeb09, MS
  MARCO's numbers, UUIDs, URLs, ``doc{topic}_{n}``, SemEval's ``Q268_R4_C1``; the run named
  ``team000_run_primary``), a row each: ``fm.count + evaluate`` in process (and ``fm.read_runs``
  of the run alone), pytrec_eval in process (its ``parse_run``, ``parse_qrel`` and
  ``RelevanceEvaluator`` for MAP, the reciprocal rank -- trec_eval has no cutoff for it -- and
  P@10), the ``leaderboard`` command and a ranx process. Targets: every spelling within 1.5 x the
  ns a line of the fastest; pytrec_eval / fastmetrics >= 3 and ranx / leaderboard >= 10 on every
  spelling. ``--spellings`` chooses them (``none`` skips the table);
- with ``--shapes``: qrels of 1,000 judged documents a query (400 never retrieved), 10 systems x
  10,000 queries and 1,000 systems x 50 queries (100 documents a query), beside pytrec_eval.

    python benchmarks/trec_runs.py [--big | --many] [--spellings all|none|NAMES] [--peer-rounds N] [--shapes]
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

import workloads  # noqa: E402
from workloads import best_of  # noqa: E402

import fastmetrics as fm  # noqa: E402
from fastmetrics.pipeline import count_ranked  # noqa: E402

REPEAT = 7  # timings of each in-process call, the fastest kept
PROCESS_REPEAT = 3  # of each process (a ranx process takes about 10 s)
PEER_REPEAT = 3  # rounds of the spelling table's slow peers (pytrec_eval about 5 s, ranx about 10 s)
MEASURES = ["ranked_ap", "reciprocal_rank(cutoff=10)", "precision_at_k(k=10)"]
# what trec_eval prints without -m: num_ret, num_rel, num_rel_ret, map, gm_map, Rprec, bpref,
# recip_rank, iprec_at_recall_0.00 ... 1.00, P_5 ... P_1000
TREC_DEFAULT = ["num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank"]
TREC_DEFAULT += [f"iprec_at_recall_{r / 10:.2f}" for r in range(11)]
TREC_DEFAULT += [f"P_{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)]
DEPTH, JUDGED = 1000, 100
# the modules the leaderboard command loads (the command line imports them in its commands)
# set up as the program sets up its process (fastmetrics.__main__._set_up, the imports it refuses)
START_UP = (
    "import argparse; from fastmetrics.__main__ import _set_up; _set_up(); "
    "from fastmetrics.cli.process import skip_unused_imports; skip_unused_imports(argparse.Namespace()); "
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


def write_runs(
    folder: str,
    queries: int,
    files: int = 1,
    seed: int = 0,
    spelling: workloads.Spelling = workloads.SPELLINGS[0],
    depth: int = DEPTH,
    judged: int = JUDGED,
    tag=lambda f: f"run{f}",
) -> tuple[list, str]:
    """``files`` TREC runs -- systems, as a track's run files are -- each of the same ``queries``
    queries x ``depth`` documents, and the qrels, with ids spelled as ``spelling`` spells them.

    The first run's documents are drawn as described in the module docstring (``judged``
    documents judged a query, 60 % of them among those the first run returns); every other run
    returns ``depth`` of the same query's ``depth + judged`` candidates in its own order with its
    own scores, so the runs overlap as runs pooled for judging do. ``tag(f)`` names run ``f`` (the
    last field of its lines).
    """
    rng = np.random.default_rng(seed)
    weights = np.linspace(2, 0.1, depth)
    weights /= weights.sum()
    lines, qrels = [[] for _ in range(files)], []
    for q in range(queries):
        qid = spelling.topic(q)
        docs = rng.choice(workloads.COLLECTION, depth + judged, replace=False)
        ids = [spelling.doc(qid, k, int(d)) for k, d in enumerate(docs)]
        top = rng.choice(depth, int(judged * 0.6), replace=False, p=weights)
        picked = np.concatenate([top, np.arange(depth, depth + judged - top.size)])
        grades = (rng.random(picked.size) < 0.15) * rng.integers(1, 3, picked.size) * (q % 50 != 7)
        qrels.append("".join(f"{qid} 0 {ids[k]} {g}\n" for k, g in zip(picked, grades)))
        for f in range(files):
            mine = np.arange(depth) if f == 0 else rng.permutation(docs.size)[:depth]
            scores = np.sort(np.round(rng.normal(10, 3, depth), 2))[::-1]
            name = tag(f)
            lines[f].append(
                "".join(f"{qid} Q0 {ids[k]} {r} {s:.2f} {name}\n" for r, (k, s) in enumerate(zip(mine, scores), 1))
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


def trec_default_scores(run, qrels):
    """trec_eval's default measure set under the trec_eval profile (its ties, topics and undefined)."""
    ranks, conventions = count_ranked(run, qrels, profile="trec_eval", measures=TREC_DEFAULT, format="trec")
    return ranks.evaluate(TREC_DEFAULT, undefined=conventions["undefined"])


def trec_default_target(run, qrels, rounds: int = 3) -> None:
    """trec_eval's default set against MAP, MRR@10 and P@10, timed in turn, the fastest of each kept."""
    trec_default_scores(run, qrels)  # compiles (or loads) the kernels
    times = {"default": [], "three": []}
    for _ in range(rounds):
        times["default"].append(best_of(lambda: trec_default_scores(run, qrels), 1))
        times["three"].append(best_of(lambda: fastmetrics_scores(run, qrels), 1))
    default, three = min(times["default"]), min(times["three"])
    print(
        f"TARGET trec_eval default set ({len(TREC_DEFAULT)} measures, --profile trec_eval) / MAP, MRR@10, P@10 = "
        f"{default / three:.2f} (target <= 2; {default:.2f} s against {three:.2f} s)"
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
    """Wall time of ``command`` as a process, its input files in the page cache first.

    Every tool's process reads files written minutes before; on a machine that reclaims idle
    pages (a VM's balloon or DAMON reclaim) some of them are back on disk by then, and the
    first process to read them would pay the disk for all: each one is read here beforehand,
    for every tool alike, as a user's files are after being written or read once."""
    for argument in command:
        if argument != sys.executable and os.path.isfile(argument) and not argument.endswith(".py"):
            _read_through(argument)
    start = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True, env=PROCESS_ENV)
    return time.perf_counter() - start


def _read_through(path: str) -> None:
    with open(path, "rb") as fh:
        while fh.read(1 << 22):
            pass


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--big", action="store_true", help="also the 7M-line run and 100 files of 100k lines")
    parser.add_argument("--many", action="store_true", help="only the 2M-line run in Python and the 100 files")
    parser.add_argument(
        "--spellings",
        default="all",
        help="the id spellings of the spelling table: 'all' (default), 'none', or names or numbers "
        f"separated by commas ({', '.join(f'{i}: {s.name}' for i, s in enumerate(workloads.SPELLINGS))})",
    )
    parser.add_argument(
        "--peer-rounds",
        type=int,
        default=PEER_REPEAT,
        help=f"rounds of the spelling table's pytrec_eval, leaderboard and ranx timings (default {PEER_REPEAT}; "
        "a ranx process takes 10 s on an idle machine, minutes on a loaded one)",
    )
    parser.add_argument(
        "--shapes", action="store_true", help="also the shapes: 1,000 judged a query, 10 x 10,000 and 1,000 x 50"
    )
    args = parser.parse_args()
    chosen = chosen_spellings(args.spellings)
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
        trec_default_target(run, qrels)
        if not args.many:
            command_line(folder, run, qrels)
        if args.big:
            big_runs, big_qrels = write_runs(folder, 7000, seed=1)
            big = best_of(lambda: fastmetrics_scores(big_runs[0], big_qrels), 2)
            print(f"TARGET 7M lines: fm.count + evaluate {big:.2f} s (target <= 5 s)")
        if args.big or args.many:
            many_files(folder, seconds / 2e6)
        if chosen and not args.many:
            spelling_table(folder, chosen, peer_rounds=args.peer_rounds)
        if args.shapes:
            shapes(folder)


def command_line(folder: str, run: str, qrels: str) -> None:
    """The ``fastmetrics leaderboard`` process beside a ranx process on the same files."""
    board = os.path.join(folder, "board.csv")
    cli = leaderboard_command(folder, run, qrels)
    process(cli)
    command = best_of(lambda: process(cli), PROCESS_REPEAT)
    # the board as printed: a row a system (the baselines after), a "<measure> macro" column a measure
    row = pacsv.read_csv(board).to_pylist()[0]
    ours = {name[: -len(" macro")]: value for name, value in row.items() if name.endswith(" macro")}
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


def chosen_spellings(text: str) -> list:
    """The spellings ``--spellings`` names (``all``, ``none``, or names or numbers)."""
    if text == "all":
        return list(workloads.SPELLINGS)
    if text == "none":
        return []
    chosen = []
    for word in text.split(","):
        word = word.strip()
        spelling = workloads.SPELLINGS[int(word)] if word.isdigit() else workloads.SPELLING.get(word)
        if spelling is None:
            raise SystemExit(f"--spellings: unknown spelling {word!r}")
        chosen.append(spelling)
    return chosen


def pytrec_eval_scores(runs, qrels) -> list:
    """pytrec_eval as its users call it: its own ``parse_qrel`` and ``parse_run`` of the files, and
    a ``RelevanceEvaluator`` for MAP, the reciprocal rank (trec_eval has no cutoff for it) and P@10,
    evaluating each run."""
    import pytrec_eval

    with open(qrels) as fh:
        qrel = pytrec_eval.parse_qrel(fh)
    evaluator = pytrec_eval.RelevanceEvaluator(qrel, {"map", "recip_rank", "P.10"})
    found = []
    for path in [runs] if isinstance(runs, str) else runs:
        with open(path) as fh:
            found.append(evaluator.evaluate(pytrec_eval.parse_run(fh)))
    return found


def _map_of(scores) -> float:
    """fastmetrics' MAP, a query without a relevant document counting 0 (as trec_eval counts it)."""
    import pyarrow.compute as pc

    table = scores.to_arrow()
    values = table.filter(pc.equal(table.column("measure"), "ranked_ap")).column("value").to_numpy()
    return float(np.nan_to_num(values).mean())


def _median(values) -> float:
    return float(np.median(values)) if values else float("nan")


def spelling_table(folder: str, chosen: list, queries: int = 2000, peer_rounds: int = PEER_REPEAT) -> None:
    """The 2M-line run and its qrels once per id spelling (the same draws, only the topic and
    document ids spelled otherwise; the run named ``team000_run_primary`` in each): fastmetrics in
    process and its ``leaderboard`` command beside pytrec_eval in process and a ranx process, and
    ``fm.read_runs`` of the run alone (the share of the time that grows with the bytes of a line).
    Every timing round visits the spellings in turn, so a slow spell of the machine falls on all
    of them; each figure is the median of its rounds (on a shared machine the fastest round of one
    spelling may have met an idle moment the others did not)."""
    files = {}
    for i, spelling in enumerate(chosen):
        where = os.path.join(folder, f"spelling{i}")
        os.mkdir(where)
        runs, qrels = write_runs(where, queries, spelling=spelling, tag=workloads.run_name)
        files[spelling.name] = (runs[0], qrels, where)
    lines = queries * DEPTH
    size = {name: os.path.getsize(run) / lines for name, (run, _, _) in files.items()}
    times = {name: {"fm": [], "read": [], "rest": [], "pytrec": [], "board": [], "ranx": []} for name in files}
    values = {}
    try:
        import pytrec_eval  # noqa: F401
    except ImportError:
        pytrec_eval = None
    for name, (run, qrels, _) in files.items():
        values[name] = [_map_of(fastmetrics_scores(run, qrels))]
        if pytrec_eval is not None:
            values[name].append(float(np.mean([q["map"] for q in pytrec_eval_scores(run, qrels)[0].values()])))
    for _ in range(REPEAT):
        for name, (run, qrels, _) in files.items():
            times[name]["fm"].append(_timed(fastmetrics_scores, run, qrels))
            times[name]["read"].append(_timed(fm.read_runs, run, format="trec"))
            times[name]["rest"].append(times[name]["fm"][-1] - times[name]["read"][-1])
    for _ in range(peer_rounds if pytrec_eval is not None else 0):
        for name, (run, qrels, _) in files.items():
            times[name]["pytrec"].append(_timed(pytrec_eval_scores, run, qrels))
    ranx_script = os.path.join(folder, "ranx_run.py")
    with open(ranx_script, "w") as fh:
        fh.write(RANX)
    try:
        import ranx  # noqa: F401

        has_ranx = True
    except ImportError:
        has_ranx = False
    for _ in range(peer_rounds):
        for name, (run, qrels, where) in files.items():
            times[name]["board"].append(process(leaderboard_command(where, run, qrels)))
            if has_ranx:
                times[name]["ranx"].append(process([sys.executable, ranx_script, run, qrels]))
    best = {name: {k: _median(v) for k, v in t.items()} for name, t in times.items()}
    fastest = min(b["fm"] for b in best.values())
    print()
    print(
        f"Spellings: {queries:,} queries x {DEPTH:,} documents ({lines:,} lines), {JUDGED} judged a query; "
        f"medians of {REPEAT} rounds in process, of {peer_rounds} for pytrec_eval and the processes"
    )
    print()
    print(
        "| document ids | collection | bytes/line | fm.count+evaluate ns/line | / fastest spelling | "
        "fm.read_runs alone ns/line | the rest ns/line | pytrec_eval ns/line | pytrec_eval / fm | "
        "leaderboard s | ranx process s | ranx / leaderboard | MAP fm / pytrec_eval |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    spelled = {s.name: s for s in chosen}
    for name, b in best.items():
        shown = " / ".join(f"{v:.4f}" for v in values[name])
        print(
            f"| {name} | {spelled[name].source} | {size[name]:.0f} | {b['fm'] / lines * 1e9:,.0f} | "
            f"{b['fm'] / fastest:.2f} | {b['read'] / lines * 1e9:,.0f} | {b['rest'] / lines * 1e9:,.0f} | "
            f"{b['pytrec'] / lines * 1e9:,.0f} | {b['pytrec'] / b['fm']:.1f} | {b['board']:.2f} | {b['ranx']:.2f} | "
            f"{b['ranx'] / b['board']:.1f} | {shown} |"
        )
    print()
    slowest = max(best, key=lambda n: best[n]["fm"])
    rest = {n: b["rest"] for n, b in best.items()}
    print(
        f"TARGET spellings, TREC run: slowest ({slowest}) / fastest = {best[slowest]['fm'] / fastest:.2f} "
        f"(target <= 1.5); without reading the run: {max(rest.values()) / min(rest.values()):.2f}"
    )
    if pytrec_eval is not None:
        worst = min(best, key=lambda n: best[n]["pytrec"] / best[n]["fm"])
        ratio = best[worst]["pytrec"] / best[worst]["fm"]
        print(
            f"TARGET spellings, python: pytrec_eval / fm.count+evaluate >= {ratio:.1f} on every spelling "
            f"(least: {worst}) (target >= 3)"
        )
    if has_ranx:
        worst = min(best, key=lambda n: best[n]["ranx"] / best[n]["board"])
        ratio = best[worst]["ranx"] / best[worst]["board"]
        print(
            f"TARGET spellings, cli: ranx / fastmetrics leaderboard >= {ratio:.1f} on every spelling "
            f"(least: {worst}) (target >= 10)"
        )


def _timed(fn, *args, **kwargs) -> float:
    start = time.perf_counter()
    fn(*args, **kwargs)
    return time.perf_counter() - start


def leaderboard_command(folder: str, runs, qrels: str) -> list:
    """The ``fastmetrics leaderboard`` command on run files and qrels, writing ``board.csv`` in ``folder``."""
    runs = [runs] if isinstance(runs, str) else list(runs)
    cli = [sys.executable, "-m", "fastmetrics", "leaderboard", *runs, "--gold", qrels, "--thresholds", "ranks"]
    cli += ["--missing", "negative", "--unjudged", "negative", "--measures", ",".join(MEASURES)]
    return cli + ["--undefined", "0", "--quiet", "--out", os.path.join(folder, "board.csv")]


# (name, spelling, systems, queries, depth, judged)
SHAPES = [
    ("1,000 judged a query, 400 of them never retrieved", "LA010189-0001", 1, 1000, 1000, 1000),
    ("10 systems x 10,000 queries", "7067032", 10, 10_000, 100, 100),
    ("1,000 systems x 50 queries", "LA010189-0001", 1000, 50, 100, 100),
]


def shapes(folder: str) -> None:
    """The shapes of real evaluations beside pytrec_eval in process (each run file parsed and
    evaluated by it): ns a line of all the run files."""
    try:
        import pytrec_eval  # noqa: F401
    except ImportError:
        pytrec_eval = None
    print()
    print("| shape | document ids | lines | fm.count+evaluate s | ns/line | pytrec_eval s | pytrec_eval / fm |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for i, (name, spelling, systems, queries, depth, judged) in enumerate(SHAPES):
        where = os.path.join(folder, f"shape{i}")
        os.mkdir(where)
        runs, qrels = write_runs(
            where,
            queries,
            files=systems,
            seed=3 + i,
            spelling=workloads.SPELLING[spelling],
            depth=depth,
            judged=judged,
            tag=workloads.run_name,
        )
        lines = systems * queries * depth
        fastmetrics_scores(runs, qrels)
        ours = best_of(lambda runs=runs, qrels=qrels: fastmetrics_scores(runs, qrels), 3)
        theirs = (
            best_of(lambda runs=runs, qrels=qrels: pytrec_eval_scores(runs, qrels), 2)
            if pytrec_eval is not None
            else float("nan")
        )
        print(
            f"| {name} | {spelling} | {lines:,} | {ours:.3f} | {ours / lines * 1e9:,.0f} | {theirs:.3f} | "
            f"{theirs / ours:.1f} |"
        )


if __name__ == "__main__":
    main()
